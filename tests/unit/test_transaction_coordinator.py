"""TransactionCoordinator, TransactionStateManager and the marker channel (Kafka 1.0.2), in process: real Logs for
`__transaction_state`, WriteTxnMarkers answered by a fake network (tests/unit/transaction_harness.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_edu.v1_0_2.clients.common.record.file_records import MemoryRecords
from kafka_edu.v1_0_2.core.coordinator.transaction import transaction_log
from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_metadata import (
    CompleteAbort,
    CompleteCommit,
    Empty,
    Ongoing,
    PrepareAbort,
    PrepareCommit,
)
from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_state_manager import TRANSACTION_STATE_TOPIC_NAME
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from tests.integration.helpers import wait_until
from tests.unit.transaction_harness import Harness, TxnReplicaManager

TXN_STATE = TopicPartition(TRANSACTION_STATE_TOPIC_NAME, 0)


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    harness = Harness(tmp_path)
    yield harness
    harness.close()


def txn_log(h: Harness) -> list[tuple[str, object]]:
    """(transactional id, state name or None) of every `__transaction_state` record."""
    log = h.rm.partitions[TXN_STATE].log
    data = log.read(log.log_start_offset, 1 << 30) if log.log_end_offset > log.log_start_offset else b""
    out = []
    for batch in MemoryRecords(data).batches():
        for record in batch.records():
            key = transaction_log.read_txn_record_key(record.key).transactional_id
            value = transaction_log.read_txn_record_value(key, record.value)
            out.append((key, value.state.name if value is not None else None))
    return out


# -- InitProducerId ----------------------------------------------------------------------------------------------


def test_a_new_transactional_id_gets_a_producer_id_and_epoch_0_written_before_the_answer(h: Harness):
    result = h.init("t1")
    assert (result.producer_id, result.producer_epoch, result.error) == (1000, 0, Errors.NONE)
    assert txn_log(h) == [("t1", "Empty")]
    again = h.init("t1")  # a restarted producer: same id, the next epoch
    assert (again.producer_id, again.producer_epoch, again.error) == (1000, 1, Errors.NONE)
    assert h.init(None) == type(result)(1001, 0, Errors.NONE)  # idempotent: any broker, no log write
    assert len(txn_log(h)) == 2


def test_init_producer_id_bad_input(h: Harness):
    assert h.init("").error == Errors.INVALID_REQUEST
    assert h.init("t1", timeout_ms=60_001).error == Errors.INVALID_TRANSACTION_TIMEOUT  # > transaction.max.timeout.ms
    assert h.init("t1", timeout_ms=0).error == Errors.INVALID_TRANSACTION_TIMEOUT
    assert (h.init("t1", timeout_ms=-5).producer_id, h.init("t1", timeout_ms=-5).producer_epoch) == (-1, -1)
    assert txn_log(h) == []  # nothing written for any of them


def test_a_partition_not_led_here_or_still_loading(h: Harness):
    h.manager.add_loading_partition(0, 2)
    assert h.init("t1").error == Errors.COORDINATOR_LOAD_IN_PROGRESS
    h.coordinator.handle_txn_emigration(0, 2)
    wait_until(lambda: 0 not in h.manager.transaction_metadata_cache, 5, "the partition unloaded")
    assert h.init("t1").error == Errors.NOT_COORDINATOR
    assert h.add("t1", 1000, 0, h.topic("a")) == Errors.NOT_COORDINATOR


def test_a_failed_write_answers_the_coordinator_error_and_clears_the_pending_state(h: Harness):
    h.rm.append_error = Errors.NOT_ENOUGH_REPLICAS
    assert h.init("t1").error == Errors.COORDINATOR_NOT_AVAILABLE
    h.rm.append_error = Errors.NOT_LEADER_OR_FOLLOWER
    assert h.init("t1").error == Errors.NOT_COORDINATOR
    h.rm.append_error = None
    assert h.init("t1").error == Errors.NONE


# -- a transaction ---------------------------------------------------------------------------------------------


def test_commit_writes_prepare_then_markers_to_each_leader_then_complete(h: Harness):
    a = h.topic("a", 2, leader=1)
    b = h.topic("b", 1, leader=2)
    init = h.init("t1")
    pid, epoch = init.producer_id, init.producer_epoch
    assert h.add("t1", pid, epoch, a) == Errors.NONE
    assert h.add("t1", pid, epoch, a) == Errors.NONE  # nothing new: answered at once, nothing written
    assert h.add("t1", pid, epoch, b) == Errors.NONE
    assert h.metadata("t1").state is Ongoing and h.metadata("t1").topic_partitions == set(a + b)
    assert h.end("t1", pid, epoch, commit=True) == Errors.NONE
    h.wait_for_state("t1", CompleteCommit)
    assert sorted(h.network.markers()) == [(1, pid, epoch, True, a), (2, pid, epoch, True, b)]
    assert txn_log(h) == [("t1", "Empty"), ("t1", "Ongoing"), ("t1", "Ongoing"), ("t1", "PrepareCommit"),
                          ("t1", "CompleteCommit")]
    assert h.metadata("t1").topic_partitions == set()
    # EndTxn again (the client retrying): the same decision is fine, the other one is not
    assert h.end("t1", pid, epoch, commit=True) == Errors.NONE
    assert h.end("t1", pid, epoch, commit=False) == Errors.INVALID_TXN_STATE
    # the next transaction starts from CompleteCommit, with the same producer id and epoch
    assert h.add("t1", pid, epoch, b) == Errors.NONE
    assert h.end("t1", pid, epoch, commit=False) == Errors.NONE
    h.wait_for_state("t1", CompleteAbort)
    assert h.network.markers()[-1] == (2, pid, epoch, False, b)


def test_end_txn_out_of_order(h: Harness):
    topic = h.topic("a")
    init = h.init("t1")
    pid, epoch = init.producer_id, init.producer_epoch
    assert h.end("t1", pid, epoch, commit=True) == Errors.INVALID_TXN_STATE  # nothing begun
    assert h.end("nobody", pid, epoch, commit=True) == Errors.INVALID_PRODUCER_ID_MAPPING
    assert h.end("t1", pid + 1, epoch, commit=True) == Errors.INVALID_PRODUCER_ID_MAPPING
    assert h.end("", pid, epoch, commit=True) == Errors.INVALID_REQUEST
    assert h.add("t1", pid, epoch, topic) == Errors.NONE
    h.network.answer = lambda tp: None  # the leader is unreachable: the markers wait, the transaction is prepared
    assert h.end("t1", pid, epoch, commit=False) == Errors.NONE
    wait_until(lambda: h.metadata("t1").state is PrepareAbort, 5, "PrepareAbort")
    # while the markers are out, the completion is pending: any EndTxn waits
    assert h.end("t1", pid, epoch, commit=False) == Errors.CONCURRENT_TRANSACTIONS
    assert h.end("t1", pid, epoch, commit=True) == Errors.CONCURRENT_TRANSACTIONS
    assert h.add("t1", pid, epoch, topic) == Errors.CONCURRENT_TRANSACTIONS
    assert h.init("t1").error == Errors.CONCURRENT_TRANSACTIONS
    h.network.answer = lambda tp: Errors.NONE
    h.wait_for_state("t1", CompleteAbort)
    assert h.end("t1", pid, epoch, commit=True) == Errors.INVALID_TXN_STATE  # the other decision, after the fact
    assert h.end("t1", pid, epoch, commit=False) == Errors.NONE


def test_unknown_transactional_ids_and_producer_ids(h: Harness):
    topic = h.topic("a")
    assert h.add("nobody", 1000, 0, topic) == Errors.INVALID_PRODUCER_ID_MAPPING
    assert h.add("", 1000, 0, topic) == Errors.INVALID_REQUEST
    init = h.init("t1")
    assert h.add("t1", init.producer_id + 7, init.producer_epoch, topic) == Errors.INVALID_PRODUCER_ID_MAPPING
    assert txn_log(h) == [("t1", "Empty")]


def test_a_newer_producer_fences_the_old_one_and_aborts_its_transaction(h: Harness):
    topic = h.topic("a")
    old = h.init("t1")
    assert h.add("t1", old.producer_id, old.producer_epoch, topic) == Errors.NONE
    # A second producer with the same transactional id: the ongoing transaction is aborted with a bumped epoch,
    # and the new producer is told to retry.
    assert h.init("t1").error == Errors.CONCURRENT_TRANSACTIONS
    h.wait_for_state("t1", CompleteAbort)
    assert h.network.markers() == [(1, old.producer_id, old.producer_epoch + 1, False, topic)]
    new = h.init("t1")
    assert (new.producer_id, new.producer_epoch) == (old.producer_id, old.producer_epoch + 2)
    # The old producer is fenced everywhere.
    assert h.add("t1", old.producer_id, old.producer_epoch, topic) == Errors.INVALID_PRODUCER_EPOCH
    assert h.end("t1", old.producer_id, old.producer_epoch, commit=True) == Errors.INVALID_PRODUCER_EPOCH
    assert h.add("t1", new.producer_id, new.producer_epoch, topic) == Errors.NONE


def test_a_transaction_older_than_its_timeout_is_aborted(h: Harness):
    topic = h.topic("a")
    init = h.init("t1", timeout_ms=5_000)
    assert h.add("t1", init.producer_id, init.producer_epoch, topic) == Errors.NONE
    h.coordinator.abort_timed_out_transactions()
    assert h.metadata("t1").state is Ongoing  # not yet
    h.clock.now_ms += 5_001
    h.coordinator.abort_timed_out_transactions()
    h.wait_for_state("t1", CompleteAbort)
    assert h.network.markers() == [(1, init.producer_id, init.producer_epoch + 1, False, topic)]
    assert h.metadata("t1").producer_epoch == init.producer_epoch + 1
    # the producer that let it time out is fenced
    assert h.end("t1", init.producer_id, init.producer_epoch, commit=True) == Errors.INVALID_PRODUCER_EPOCH


def test_markers_are_retried_until_every_leader_answers(h: Harness):
    topic = h.topic("a", 2)
    answers = {TopicPartition("a", 0): [None, Errors.NOT_LEADER_OR_FOLLOWER, Errors.NONE],
               TopicPartition("a", 1): [Errors.NONE]}
    h.network.answer = lambda tp: answers[tp].pop(0) if len(answers[tp]) > 1 else answers[tp][0]
    init = h.init("t1")
    assert h.add("t1", init.producer_id, init.producer_epoch, topic) == Errors.NONE
    assert h.end("t1", init.producer_id, init.producer_epoch, commit=True) == Errors.NONE
    h.wait_for_state("t1", CompleteCommit)
    sent = [partitions for _, _, _, _, partitions in h.network.markers()]
    # a lost connection sends the whole request again; NOT_LEADER_OR_FOLLOWER only its partition
    assert sent == [topic, topic, [TopicPartition("a", 0)]]


def test_a_marker_for_a_deleted_partition_is_skipped(h: Harness):
    topic = h.topic("a")
    init = h.init("t1")
    assert h.add("t1", init.producer_id, init.producer_epoch, topic) == Errors.NONE
    del h.metadata_cache.leaders[topic[0]]  # the topic is gone
    assert h.end("t1", init.producer_id, init.producer_epoch, commit=True) == Errors.NONE
    h.wait_for_state("t1", CompleteCommit)
    assert h.network.markers() == []


def test_a_leader_that_is_not_alive_waits_in_the_unknown_broker_queue(h: Harness):
    topic = h.topic("a", leader=None)
    init = h.init("t1")
    assert h.add("t1", init.producer_id, init.producer_epoch, topic) == Errors.NONE
    assert h.end("t1", init.producer_id, init.producer_epoch, commit=True) == Errors.NONE
    wait_until(lambda: h.channel.queue_for_unknown_broker.total_num_markers() == 1 or h.network.markers() == [],
               5, "the marker queued for an unknown broker")
    assert h.metadata("t1").state is PrepareCommit
    h.metadata_cache.leaders[topic[0]] = 2  # a leader is elected
    h.wait_for_state("t1", CompleteCommit)
    assert h.network.markers() == [(2, init.producer_id, init.producer_epoch, True, topic)]


def test_the_answer_waits_for_the_log_write_to_be_acknowledged(h: Harness):
    topic = h.topic("a")
    init = h.init("t1")
    h.rm.hold = True
    from tests.unit.helpers import Reply
    reply = Reply()
    h.coordinator.handle_add_partitions_to_transaction("t1", init.producer_id, init.producer_epoch, topic, reply)
    assert not reply.calls and h.metadata("t1").pending_state is Ongoing and h.metadata("t1").state is Empty
    assert h.add("t1", init.producer_id, init.producer_epoch, topic) == Errors.CONCURRENT_TRANSACTIONS
    h.rm.release()
    assert reply.get() == Errors.NONE and h.metadata("t1").state is Ongoing


# -- failover: a new coordinator finishes what the old one prepared --------------------------------------------


def test_a_new_coordinator_loads_the_log_and_completes_a_prepared_transaction(tmp_path: Path):
    rm = TxnReplicaManager(tmp_path)
    first = Harness(tmp_path, replica_manager=rm)
    topic = first.topic("a")
    init = first.init("t1")
    assert first.add("t1", init.producer_id, init.producer_epoch, topic) == Errors.NONE
    other = first.init("t2")
    assert first.add("t2", other.producer_id, other.producer_epoch, topic) == Errors.NONE
    first.network.answer = lambda tp: None  # the coordinator dies before any marker is written
    assert first.end("t1", init.producer_id, init.producer_epoch, commit=True) == Errors.NONE
    wait_until(lambda: first.metadata("t1").state is PrepareCommit, 5, "PrepareCommit")
    first.coordinator.shutdown()

    # the partition's next leader, from the same log
    second = Harness(tmp_path, epoch=2, replica_manager=rm, topics={"a": 1})
    try:
        second.wait_for_state("t1", CompleteCommit)
        assert second.network.markers() == [(1, init.producer_id, init.producer_epoch, True, topic)]
        assert second.metadata("t2").state is Ongoing  # an open transaction stays open, in the new coordinator
        assert second.metadata("t2").topic_partitions == set(topic)
        assert txn_log(second)[-1] == ("t1", "CompleteCommit")
        # the producer finds the new coordinator and goes on
        assert second.end("t2", other.producer_id, other.producer_epoch, commit=False) == Errors.NONE
        second.wait_for_state("t2", CompleteAbort)
    finally:
        second.close()


def test_emigration_drops_the_cache_and_the_queued_markers(h: Harness):
    topic = h.topic("a")
    init = h.init("t1")
    assert h.add("t1", init.producer_id, init.producer_epoch, topic) == Errors.NONE
    h.network.answer = lambda tp: None
    assert h.end("t1", init.producer_id, init.producer_epoch, commit=True) == Errors.NONE
    h.coordinator.handle_txn_emigration(0, 1)
    wait_until(lambda: 0 not in h.manager.transaction_metadata_cache, 5, "unloaded")
    assert h.init("t1").error == Errors.NOT_COORDINATOR
    assert h.channel.txn_marker_purgatory.watchers_for_key.get("t1") is None


def test_init_epochs_are_refused_while_a_transition_is_written(h: Harness):
    h.init("t1")
    h.rm.hold = True
    from tests.unit.helpers import Reply
    reply = Reply()
    h.coordinator.handle_init_producer_id("t1", 10_000, reply)
    assert h.init("t1").error == Errors.CONCURRENT_TRANSACTIONS
    h.rm.release()
    assert reply.get().producer_epoch == 1 and h.metadata("t1").state is Empty


# -- the trace of a transaction --------------------------------------------------------------------------------

TX_ORDER = ["TX.init", "TX.add", "TX.offsets", "TX.end", "TX.markers", "TX.write", "TX.complete", "TX.state"]


def steps_out_of_order(spans: list) -> list[str]:
    """check_trace.py's rule: in each trace, the TX steps' first occurrences start in FIDELITY's order (an event
    counts at its span's start)."""
    firsts: dict[int, dict[str, tuple[int, int]]] = {}
    for s in spans:
        steps = [s.attributes.get("kafka.step")] + [e.attributes.get("kafka.step") for e in s.events]
        for step_id in steps:
            if step_id in TX_ORDER:
                entry = (s.start_time, TX_ORDER.index(step_id))
                firsts.setdefault(s.context.trace_id, {})
                firsts[s.context.trace_id][step_id] = min(firsts[s.context.trace_id].get(step_id, entry), entry)
    problems = []
    for trace_id, by_step in firsts.items():
        order = [index for _, index in sorted(by_step.values())]
        if order != sorted(order):
            problems.append(f"{trace_id:x}: {sorted(by_step, key=lambda k: by_step[k])}")
    return problems


def test_one_transaction_is_one_trace_and_each_state_change_a_linked_trace_of_its_own(tmp_path: Path):
    from kafka_edu.tracing import setup_tracing
    tracing = setup_tracing("broker-0", "run-1")
    h = Harness(tmp_path)
    try:
        topic = h.topic("a", 2)
        init = h.init("t1")
        assert h.add("t1", init.producer_id, init.producer_epoch, topic[:1]) == Errors.NONE
        assert h.add("t1", init.producer_id, init.producer_epoch, topic) == Errors.NONE
        assert h.end("t1", init.producer_id, init.producer_epoch, commit=True) == Errors.NONE
        h.wait_for_state("t1", CompleteCommit)
        wait_until(lambda: any(s.attributes.get("kafka.step") == "TX.complete"
                               for s in tracing.memory.get_finished_spans()), 5, "TX.complete span")
    finally:
        h.close()
    spans = tracing.memory.get_finished_spans()
    by_step = {}
    for s in spans:
        by_step.setdefault(s.attributes.get("kafka.step"), []).append(s)
    first_add, second_add = by_step["TX.add"]
    txn_trace = first_add.context.trace_id
    assert first_add.parent is None  # the transaction's root
    assert second_add.parent.span_id == first_add.context.span_id
    for step_id in ("TX.end", "TX.markers", "TX.complete"):
        (step_span,) = by_step[step_id]
        assert step_span.context.trace_id == txn_trace, step_id
    (send,) = [s for s in spans if s.name == "InterBrokerSendThread.doWork#send"]
    assert send.context.trace_id == txn_trace
    # the WriteTxnMarkers request carried the send's traceparent: the leaders' TX.write joins the trace
    assert [t[:52] for t in h.network.traceparents] == [f"00-{txn_trace:032x}-{send.context.span_id:016x}"]
    (complete,) = by_step["TX.complete"]
    assert complete.attributes["kafka.txn.state"] == "CompleteCommit"
    (init_span,) = by_step["TX.init"]
    assert init_span.context.trace_id != txn_trace and init_span.attributes["kafka.producer.epoch"] == 0

    transitions = [s for s in spans if s.name == "TransactionMetadata.completeTransitionTo"]
    changes = [(e.attributes["kafka.txn.state.from"], e.attributes["kafka.txn.state.to"])
               for s in sorted(transitions, key=lambda s: s.start_time) for e in s.events]
    assert changes == [("Empty", "Empty"), ("Empty", "Ongoing"), ("Ongoing", "Ongoing"),
                       ("Ongoing", "PrepareCommit"), ("PrepareCommit", "CompleteCommit")]
    for transition in transitions:
        assert transition.parent is None and transition.context.trace_id != txn_trace
        assert transition.events[0].attributes["kafka.step"] == "TX.state"
    assert all(any(link.context.trace_id == txn_trace for link in t.links) for t in transitions[1:])
    assert steps_out_of_order(spans) == []


def test_a_fence_and_a_timeout_abort_in_the_transactions_trace(tmp_path: Path):
    from kafka_edu.tracing import setup_tracing
    tracing = setup_tracing("broker-0", "run-1")
    h = Harness(tmp_path)
    try:
        topic = h.topic("a")
        first = h.init("t1")
        assert h.add("t1", first.producer_id, first.producer_epoch, topic) == Errors.NONE
        assert h.init("t1").error == Errors.CONCURRENT_TRANSACTIONS  # fences the first producer
        h.wait_for_state("t1", CompleteAbort)
        second = h.init("t1")
        assert h.add("t1", second.producer_id, second.producer_epoch, topic) == Errors.NONE
        h.clock.now_ms += 20_000
        h.coordinator.abort_timed_out_transactions()
        h.wait_for_state("t1", CompleteAbort)
        wait_until(lambda: len([s for s in tracing.memory.get_finished_spans()
                                if s.attributes.get("kafka.step") == "TX.complete"]) == 2, 5, "two completions")
    finally:
        h.close()
    spans = tracing.memory.get_finished_spans()
    adds = [s for s in spans if s.attributes.get("kafka.step") == "TX.add"]
    ends = [s for s in spans if s.attributes.get("kafka.step") == "TX.end"]
    completes = [s for s in spans if s.attributes.get("kafka.step") == "TX.complete"]
    (expire,) = [s for s in spans if s.attributes.get("kafka.step") == "TX.expire"]
    assert [e.context.trace_id for e in ends] == [a.context.trace_id for a in adds]
    assert [c.context.trace_id for c in completes] == [a.context.trace_id for a in adds]
    assert expire.context.trace_id == adds[1].context.trace_id
    assert ends[1].parent.span_id == expire.context.span_id or ends[1].parent.span_id == adds[1].context.span_id
    assert steps_out_of_order(spans) == []
