"""Our own tests: the nemesis checker on histories written by hand, one anomaly each, and a clean one.

Each history is the clean one with one thing changed, so a test fails if the checker misses that change."""

from __future__ import annotations

from typing import Any

from kafka_edu.nemesis.checker import FINAL, FINAL_UNCOMMITTED, check


class Builder:
    """A history in the shape the workload writes, with a clock that moves one nanosecond an event."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.seqs: dict[tuple[int, int], int] = {}

    def add(self, type_: str, **fields: Any) -> Builder:
        self.events.append({"type": type_, "t": len(self.events) + 1, **fields})
        return self

    def send(self, record_id: str, partition: int = 0, producer: int = 0, txn: str | None = None) -> Builder:
        seq = self.seqs.get((producer, partition), 0)
        self.seqs[(producer, partition)] = seq + 1
        return self.add("send", id=record_id, producer=producer, partition=partition, seq=seq, txn=txn)

    def ack(self, record_id: str, offset: int, partition: int = 0) -> Builder:
        return self.add("ack", id=record_id, partition=partition, offset=offset)

    def read(self, record_id: str | None, offset: int, partition: int = 0, consumer: str = FINAL,
             isolation: str = "read_committed") -> Builder:
        return self.add("read", id=record_id, consumer=consumer, isolation=isolation, partition=partition,
                        offset=offset)

    def final_end(self, partition: int, high: int, reached: int | None = None) -> Builder:
        return self.add("final", partition=partition, high=high, reached=high if reached is None else reached,
                        isolation="read_committed")


def clean() -> Builder:
    """Three records to partition 0, all acknowledged, consumed by a group member and read back in order."""
    b = Builder()
    for i in range(3):
        b.send(f"p0-{i}")
    for i in range(3):
        b.ack(f"p0-{i}", i)
    for i in range(3):
        b.read(f"p0-{i}", i, consumer="member-0")
    b.add("commit", consumer="member-0", partition=0, offset=3, ok=True)
    for i in range(3):
        b.read(f"p0-{i}", i)
    return b.final_end(0, 3)


def test_a_clean_history_is_valid():
    verdict = check(clean().events)
    assert verdict.valid, verdict.anomalies
    assert verdict.acknowledged == 3 and verdict.read == 3 and verdict.indeterminate == 0
    assert set(verdict.counts.values()) == {0}


def test_an_acknowledged_record_missing_from_the_read_back_is_lost():
    b = clean()
    b.events = [e for e in b.events if not (e["type"] == "read" and e["consumer"] == FINAL and e["id"] == "p0-1")]
    verdict = check(b.events)
    assert not verdict.valid
    assert verdict.counts["lost"] == 1
    [lost] = verdict.anomalies
    assert (lost.kind, lost.records, lost.partition, lost.offsets) == ("lost", ["p0-1"], 0, [1])


def test_a_lost_record_still_visible_read_uncommitted_says_so():
    b = clean()
    b.events = [e for e in b.events if not (e["type"] == "read" and e["consumer"] == FINAL and e["id"] == "p0-2")]
    b.read("p0-2", 2, consumer=FINAL_UNCOMMITTED, isolation="read_uncommitted")
    [lost] = check(b.events).anomalies
    assert lost.kind == "lost" and "read_uncommitted sees it" in lost.detail


def test_a_record_at_two_offsets_is_a_duplicate():
    b = clean().read("p0-0", 3).final_end(0, 4)
    verdict = check(b.events)
    assert verdict.counts == {**verdict.counts, "duplicate": 1}
    [dup] = [a for a in verdict.anomalies if a.kind == "duplicate"]
    assert dup.records == ["p0-0"] and dup.offsets == [0, 3]


def test_records_of_one_producer_in_the_opposite_order_are_reordered():
    b = Builder().send("a").send("b").ack("a", 1).ack("b", 0)
    b.read("b", 0).read("a", 1).final_end(0, 2)
    verdict = check(b.events)
    assert verdict.counts["reordered"] == 1
    [reordered] = verdict.anomalies
    assert reordered.records == ["b", "a"] and reordered.offsets == [0, 1]


def test_two_producers_interleaving_is_not_a_reorder():
    b = Builder().send("a", producer=0).send("x", producer=1).send("b", producer=0)
    b.ack("x", 0).ack("a", 1).ack("b", 2).read("x", 0).read("a", 1).read("b", 2).final_end(0, 3)
    assert check(b.events).valid


def test_reading_a_record_nobody_sent_is_an_unacknowledged_read():
    b = clean().read("ghost", 7, consumer="member-1")
    verdict = check(b.events)
    assert verdict.counts["unacknowledged_read"] == 1
    assert verdict.anomalies[0].records == ["ghost"] and verdict.anomalies[0].offsets == [7]


def test_reading_a_record_whose_send_definitely_failed_is_an_unacknowledged_read():
    b = Builder().send("a").add("fail", id="a", error="MSG_SIZE_TOO_LARGE", indeterminate=False)
    b.read("a", 0).final_end(0, 1)
    assert check(b.events).counts["unacknowledged_read"] == 1


def test_reading_a_record_whose_send_timed_out_is_no_anomaly():
    b = Builder().send("a").add("fail", id="a", error="_MSG_TIMED_OUT", indeterminate=True)
    b.read("a", 0).final_end(0, 1)
    verdict = check(b.events)
    assert verdict.valid and verdict.indeterminate == 1


def transactional() -> Builder:
    """t1 commits a and b; t2 writes c and aborts."""
    b = Builder().send("a", txn="t1").send("b", txn="t1").ack("a", 0).ack("b", 1)
    b.add("txn", producer=0, txn="t1", outcome="commit", ok=True, error=None)
    b.send("c", txn="t2").ack("c", 3).add("txn", producer=0, txn="t2", outcome="abort", ok=True, error=None)
    b.read("a", 0).read("b", 1)
    b.read("a", 0, consumer=FINAL_UNCOMMITTED, isolation="read_uncommitted")
    b.read("b", 1, consumer=FINAL_UNCOMMITTED, isolation="read_uncommitted")
    b.read("c", 3, consumer=FINAL_UNCOMMITTED, isolation="read_uncommitted")
    return b.final_end(0, 5)


def test_transactions_committed_and_aborted_read_as_they_should_are_valid():
    verdict = check(transactional().events)
    assert verdict.valid, verdict.anomalies
    assert verdict.acknowledged == 2


def test_a_committed_read_of_an_aborted_transaction_is_an_aborted_read():
    b = transactional().read("c", 3, consumer="member-0")
    verdict = check(b.events)
    assert verdict.counts["aborted_read"] == 1
    assert verdict.anomalies[0].records == ["c"] and "t2" in verdict.anomalies[0].detail


def test_a_record_of_a_committed_transaction_hidden_from_read_committed_is_lost():
    b = transactional()
    b.events = [e for e in b.events if not (e["type"] == "read" and e["consumer"] == FINAL and e["id"] == "b")]
    [lost] = check(b.events).anomalies
    assert lost.kind == "lost" and lost.records == ["b"] and "read_uncommitted sees it" in lost.detail


def test_a_committed_offset_lower_than_an_earlier_one_goes_backwards():
    b = clean().add("commit", consumer="member-1", partition=0, offset=1, ok=True)
    verdict = check(b.events)
    assert verdict.counts["offset_backwards"] == 1
    assert verdict.anomalies[0].offsets == [3, 1]


def test_a_failed_commit_does_not_count():
    b = clean().add("commit", consumer="member-1", partition=0, offset=1, ok=False, error="REBALANCE_IN_PROGRESS")
    assert check(b.events).valid


def test_a_read_back_that_stopped_short_is_not_valid():
    b = clean().final_end(1, 10, reached=4)
    verdict = check(b.events)
    assert not verdict.valid and verdict.incomplete_partitions == [1] and not verdict.anomalies


def test_a_duplicate_written_again_later_is_not_also_a_reordering():
    b = Builder().send("a").send("b").ack("a", 0).ack("b", 1)
    b.read("a", 0).read("b", 1).read("a", 2).final_end(0, 3)
    assert check(b.events).counts == {**check(b.events).counts, "duplicate": 1, "reordered": 0}
