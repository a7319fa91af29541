"""Our own code, not a Kafka port: the verdict on a nemesis history (history.py), in the manner of Jepsen's queue
checkers. Pure functions over the events; nothing here reads a file or a cluster.

What counts as acknowledged: a record the broker answered with an offset, and, inside a transaction, only once
`commit_transaction` succeeded. What counts as definitely not written: a send that failed with an error that leaves
no doubt, or a record of a transaction whose abort succeeded. Anything in between (a timeout, a transaction whose
end is unknown) is indeterminate: it may be read or not, and neither is an anomaly.

The anomalies, each with the records and offsets it concerns:

- `lost`: acknowledged, yet not in the read-back (read_committed, every partition from offset 0)
- `duplicate`: one record at more than one offset of the read-back
- `reordered`: two records one producer sent to one partition, in the read-back in the opposite order
- `unacknowledged_read`: a committed read (a group member's or the read-back's) of a record never sent, or whose send
  definitely failed
- `aborted_read`: a committed read of a record whose transaction was aborted
- `offset_backwards`: a group's committed offset for a partition lower than one it committed before
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any

KINDS = ("lost", "duplicate", "reordered", "unacknowledged_read", "aborted_read", "offset_backwards")
FINAL = "final"  # the read-back's consumer name (read_committed); `final-uncommitted` reads with read_uncommitted
FINAL_UNCOMMITTED = "final-uncommitted"


@dataclass
class Anomaly:
    kind: str
    records: list[str]  # the records' ids
    partition: int
    offsets: list[int]
    t: int  # when the client saw it happen (ack, read or commit time), wall-clock ns
    detail: str = ""
    trace_ids: list[str] = field(default_factory=list)  # filled in from the brokers' spans (traces.py), if any

    def describe(self) -> str:
        return (f"{self.kind}: {', '.join(self.records[:5])}{' ...' if len(self.records) > 5 else ''} "
                f"partition {self.partition} offsets {self.offsets[:5]}{' ...' if len(self.offsets) > 5 else ''}"
                + (f" ({self.detail})" if self.detail else ""))


@dataclass
class Verdict:
    anomalies: list[Anomaly]
    acknowledged: int
    read: int  # distinct records in the read-back
    indeterminate: int
    incomplete_partitions: list[int]  # partitions the read-back could not read to their end

    @property
    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(KINDS, 0)
        for anomaly in self.anomalies:
            counts[anomaly.kind] += 1
        return counts

    @property
    def valid(self) -> bool:
        return not self.anomalies and not self.incomplete_partitions

    def to_json(self) -> dict[str, Any]:
        return {"valid": self.valid, "counts": self.counts, "acknowledged": self.acknowledged, "read": self.read,
                "indeterminate": self.indeterminate, "incomplete_partitions": self.incomplete_partitions,
                "anomalies": [asdict(a) for a in self.anomalies]}


@dataclass
class _Send:
    id: str
    producer: Any
    partition: int
    seq: int
    txn: str | None
    t: int
    ack: tuple[int, int, int] | None = None  # (partition, offset, time)
    failed: bool = False  # definitely not written
    indeterminate: bool = False


def check(events: list[dict[str, Any]]) -> Verdict:
    """The verdict on one history."""
    sends: dict[str, _Send] = {}
    txn_outcomes: dict[str, str] = {}  # txn -> "committed" | "aborted" | "unknown"
    for e in events:
        kind = e["type"]
        if kind == "send":
            sends[e["id"]] = _Send(e["id"], e.get("producer"), e["partition"], e.get("seq", 0), e.get("txn"), e["t"])
        elif kind == "ack" and e["id"] in sends:
            sends[e["id"]].ack = (e["partition"], e["offset"], e["t"])
        elif kind == "fail" and e["id"] in sends:
            if e.get("indeterminate", True):
                sends[e["id"]].indeterminate = True
            else:
                sends[e["id"]].failed = True
        elif kind == "txn":
            if e["ok"]:
                txn_outcomes[e["txn"]] = "committed" if e["outcome"] == "commit" else "aborted"
            else:
                txn_outcomes.setdefault(e["txn"], "unknown")

    def acknowledged(s: _Send) -> bool:
        if s.ack is None or s.failed:
            return False
        return s.txn is None or txn_outcomes.get(s.txn) == "committed"

    def definitely_aborted(s: _Send) -> bool:
        return s.txn is not None and txn_outcomes.get(s.txn) == "aborted"

    final = [e for e in events if e["type"] == "read" and e["consumer"] == FINAL]
    uncommitted_ids = {e["id"] for e in events if e["type"] == "read" and e["consumer"] == FINAL_UNCOMMITTED}
    anomalies: list[Anomaly] = []

    # lost: acknowledged, not read back
    where: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for e in final:
        if e.get("id") is not None:
            where[e["id"]].append(e)
    for s in sends.values():
        if acknowledged(s) and s.id not in where:
            partition, offset, t = s.ack
            detail = ("acknowledged at this offset; read_uncommitted sees it, read_committed does not"
                      if s.id in uncommitted_ids else "acknowledged at this offset; not in the log any more")
            anomalies.append(Anomaly("lost", [s.id], partition, [offset], t, detail))

    # duplicate: one record at several offsets
    for record_id, reads in where.items():
        places = sorted({(r["partition"], r["offset"]) for r in reads})
        if len(places) > 1:
            anomalies.append(Anomaly("duplicate", [record_id], places[0][0], [o for _, o in places],
                                     min(r["t"] for r in reads), f"at {len(places)} offsets"))

    # reordered: within one producer's sends to one partition, the log's order against the send order
    by_partition: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for e in final:
        by_partition[e["partition"]].append(e)
    for partition, reads in by_partition.items():
        latest: dict[Any, _Send] = {}  # producer -> its record with the highest seq read so far in this partition
        latest_offset: dict[Any, int] = {}
        seen: set[str] = set()
        for e in sorted(reads, key=lambda r: r["offset"]):
            s = sends.get(e.get("id"))
            if s is None or s.partition != partition or s.id in seen:
                continue  # not ours, or a duplicate's second copy (a duplicate, not a reordering)
            seen.add(s.id)
            before = latest.get(s.producer)
            if before is not None and s.seq < before.seq:
                anomalies.append(Anomaly("reordered", [before.id, s.id], partition,
                                         [latest_offset[s.producer], e["offset"]], e["t"],
                                         f"{s.id} was sent before {before.id} but follows it in the log"))
            elif before is None or s.seq > before.seq:
                latest[s.producer], latest_offset[s.producer] = s, e["offset"]

    # reads of what was never written, or was aborted (committed reads: group members and the read-back)
    for e in events:
        if e["type"] != "read" or e.get("isolation", "read_committed") != "read_committed":
            continue
        s = sends.get(e.get("id"))
        if s is None or s.failed:
            detail = "never sent" if s is None else "its send failed"
            anomalies.append(Anomaly("unacknowledged_read", [str(e.get("id"))], e["partition"], [e["offset"]],
                                     e["t"], f"read by {e['consumer']}; {detail}"))
        elif definitely_aborted(s):
            anomalies.append(Anomaly("aborted_read", [s.id], e["partition"], [e["offset"]], e["t"],
                                     f"read by {e['consumer']}; transaction {s.txn} was aborted"))

    # a group's committed offsets per partition never go back
    committed: dict[int, tuple[int, str]] = {}
    for e in sorted((e for e in events if e["type"] == "commit" and e.get("ok", True)), key=lambda e: e["t"]):
        previous = committed.get(e["partition"])
        if previous is not None and e["offset"] < previous[0]:
            anomalies.append(Anomaly("offset_backwards", [], e["partition"], [previous[0], e["offset"]], e["t"],
                                     f"{e['consumer']} committed {e['offset']} after {previous[1]} committed "
                                     f"{previous[0]}"))
        if previous is None or e["offset"] >= previous[0]:
            committed[e["partition"]] = (e["offset"], e["consumer"])

    incomplete = sorted({e["partition"] for e in events if e["type"] == "final" and e["reached"] < e["high"]})
    anomalies.sort(key=lambda a: (a.t, a.kind))
    return Verdict(anomalies, sum(1 for s in sends.values() if acknowledged(s)), len(where),
                   sum(1 for s in sends.values() if s.indeterminate or (s.ack is None and not s.failed)
                       or (s.txn is not None and txn_outcomes.get(s.txn, "unknown") == "unknown")),
                   incomplete)
