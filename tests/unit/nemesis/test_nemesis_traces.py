"""Our own tests: the trace ids around an anomaly, and the Nemesis.check span (NF.check) in runner.jsonl."""

from __future__ import annotations

from pathlib import Path

from kafka_edu.nemesis.checker import Anomaly
from kafka_edu.nemesis.traces import PartitionSpan, traces_around
from kafka_edu.tracing.query import read_span_file
from kafka_edu.tracing.runner_events import record_nemesis_check, runner_tracing

S = 1_000_000_000


def span(trace: str, start_s: float, partition: int, first: int | None = None,
         last: int | None = None) -> PartitionSpan:
    return PartitionSpan(int(start_s * S), trace, "Log.append", "broker-0", partition, first, last)


def test_the_append_that_wrote_the_offset_comes_first_then_the_nearest_in_time():
    spans = [span("far", 1, 0), span("writer", 2, 0, 10, 19), span("near", 9.5, 0), span("other-partition", 10, 1),
             span("nearer", 10.2, 0)]
    lost = Anomaly("lost", ["p0-1"], 0, [15], int(10 * S))
    assert traces_around(lost, spans) == ["writer", "nearer", "near"]


def test_no_span_around_gives_no_trace_id():
    assert traces_around(Anomaly("lost", ["p0-1"], 2, [5], 0), [span("x", 0, 1, 0, 9)]) == []


def test_the_check_span_goes_to_runner_jsonl_with_counts_and_one_event_an_anomaly(tmp_path: Path):
    tracing = runner_tracing(tmp_path, "run-1", "zk")
    try:
        trace_id = record_nemesis_check(tracing, 1, {"lost": 1, "valid": False},
                                        [{"kind": "lost", "records": ["p0-1"], "offsets": [15],
                                          "trace_ids": ["abc"]}])
    finally:
        tracing.shutdown()
    [check] = list(read_span_file(tmp_path / "runner.jsonl"))
    assert (check.name, check.step, check.trace_id) == ("Nemesis.check", "NF.check", trace_id)
    assert check.attributes["kafka.nemesis.lost"] == 1 and check.attributes["kafka.nemesis.valid"] is False
    assert check.resource["service.instance.id"] == "runner" and check.resource["kafka.run.id"] == "run-1"
    [event] = check.events
    assert event.name == "nemesis.anomaly"
    assert event.attributes == {"kafka.nemesis.kind": "lost", "kafka.nemesis.records": ["p0-1"],
                                "kafka.nemesis.offsets": [15], "kafka.nemesis.trace_ids": ["abc"]}
