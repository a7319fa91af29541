"""Our own code, not a Kafka port: the brokers' traces around each anomaly of a verdict.

The request path's spans name the partition they append to and the offsets they assign (`kafka.topic`,
`kafka.partition`, `kafka.offset.first` / `kafka.offset.last`: 1.0.2's `Log.append`, 3.9's
`Partition.appendRecordsToLeader` and `UnifiedLog.append`), and the controller's and replicas' spans name the
partitions they change. For an anomaly, the traces whose append covers one of its offsets come first, then the
traces on its partition nearest in time to when the client saw it. Request-path spans are sampled (TRACING.md), so
an append may have left no span; the nearest ones in time then stand in.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from pathlib import Path

from kafka_edu.nemesis.checker import Anomaly
from kafka_edu.tracing.query import parse_traces_line

WINDOW_NS = 3_000_000_000  # a span further than this from the anomaly is not "around" it
TRACE_IDS_PER_ANOMALY = 4


@dataclass(frozen=True)
class PartitionSpan:
    start_ns: int
    trace_id: str
    name: str
    instance: str
    partition: int
    first: int | None
    last: int | None


def partition_spans(run_dir: Path, topic: str) -> list[PartitionSpan]:
    """Every span of the run that names a partition of `topic`, in start order."""
    needle = topic.encode()
    found: list[PartitionSpan] = []
    for path in sorted(run_dir.glob("*.jsonl*")):
        if ".starts." in path.name or not path.name.endswith((".jsonl", ".jsonl.gz")):
            continue
        opener = gzip.open if path.name.endswith(".gz") else open
        with opener(path, "rb") as f:
            for line in f:
                if needle not in line or not line.endswith(b"\n"):
                    continue
                for s in parse_traces_line(line.decode("utf-8", errors="replace")):
                    if s.attributes.get("kafka.topic") != topic or "kafka.partition" not in s.attributes:
                        continue
                    first = s.attributes.get("kafka.offset.first")
                    last = s.attributes.get("kafka.offset.last", first)
                    found.append(PartitionSpan(s.start_ns, s.trace_id, s.name, s.instance,
                                               int(s.attributes["kafka.partition"]), first, last))
    found.sort(key=lambda s: s.start_ns)
    return found


def traces_around(anomaly: Anomaly, spans: list[PartitionSpan], limit: int = TRACE_IDS_PER_ANOMALY) -> list[str]:
    """The trace ids of the appends that wrote the anomaly's offsets, then the nearest in time on its partition."""
    on_partition = [s for s in spans if s.partition == anomaly.partition]
    covering = [s for s in on_partition if s.first is not None and s.last is not None
                and any(s.first <= offset <= s.last for offset in anomaly.offsets)]
    near = sorted((s for s in on_partition if abs(s.start_ns - anomaly.t) <= WINDOW_NS),
                  key=lambda s: abs(s.start_ns - anomaly.t))
    ids: list[str] = []
    for s in covering + near:
        if s.trace_id not in ids:
            ids.append(s.trace_id)
        if len(ids) == limit:
            break
    return ids


def attach_trace_ids(run_dir: Path, topic: str, anomalies: list[Anomaly]) -> None:
    """Fill each anomaly's `trace_ids` from the run's span files."""
    if not anomalies:
        return
    spans = partition_spans(run_dir, topic)
    for anomaly in anomalies:
        anomaly.trace_ids = traces_around(anomaly, spans)
