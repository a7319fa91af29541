"""Span files for long runs: request-path traces are sampled by policy and kept within a budget; everything else
(lifecycle, controller, replication) is always written whole."""

from __future__ import annotations

import json
import time

import pytest
from opentelemetry import trace

from kafka_edu.tracing import setup_tracing, span, step
from kafka_edu.tracing.query import load_run
from kafka_edu.tracing.step import _ROOT_CONTEXT
from kafka_edu.tracing.writer import TracePolicy
from tests.unit.helpers import lenient_describers  # noqa: F401  (a fixture)

pytestmark = pytest.mark.usefixtures("lenient_describers")

def a_request(tracing, api_name: str = "Produce", *, slow_ms: float = 0, error: bool = False) -> None:
    """One request-path trace: a RequestChannel.Request root with one handler step below it."""
    root = tracing.tracer.start_span("RequestChannel.Request", context=_ROOT_CONTEXT,
                                     attributes={"kafka.api.name": api_name, "kafka.padding": "x" * 200})
    with trace.use_span(root, end_on_exit=False), step("NW.apis.1"):
        if error:
            trace.get_current_span().set_status(trace.Status(trace.StatusCode.ERROR, "boom"))
    end = root.start_time + int(slow_ms * 1e6) + 1000
    root.end(end_time=end)


def lifecycle_steps(n: int) -> None:
    for _ in range(n):
        with step("LC.startup.04"):
            pass
        with span("KafkaController.onBrokerStartup", root=True):
            pass


def test_request_segments_rotate_and_the_oldest_go_first_but_lifecycle_spans_all_stay(tmp_path, monkeypatch):
    monkeypatch.setenv("KAFKA_EDU_TRACE_SAMPLING", "all")
    monkeypatch.setenv("KAFKA_EDU_TRACE_SEGMENT_MB", str(8 / 1024))  # 8 KiB segments
    monkeypatch.setenv("KAFKA_EDU_TRACE_BUDGET_MB", str(64 / 1024))  # 64 KiB of request spans at most
    tracing = setup_tracing("broker-0", "run-1", run_dir=tmp_path)
    for _ in range(100):
        for _ in range(4):
            a_request(tracing)
        lifecycle_steps(1)
        tracing.writer.force_flush()
    tracing.shutdown()

    segments = sorted(tmp_path.glob("broker-0.requests-*.jsonl"))
    assert len(segments) >= 2 and segments[0].name != "broker-0.requests-000001.jsonl"  # the oldest were deleted
    largest = max(p.stat().st_size for p in segments)
    assert sum(p.stat().st_size for p in segments) <= 64 * 1024 + largest  # the budget, and the open segment
    stats = json.loads((tmp_path / "broker-0.tracing.json").read_text())
    assert stats["budget_dropped_spans"] > 0 and stats["dropped_spans"] == 0 and stats["sampled_out_spans"] == 0
    spans = load_run(tmp_path)
    assert len(spans.where(name="KafkaServer.initZk")) == 100  # every lifecycle span survives the budget
    assert len(spans.where(name="KafkaController.onBrokerStartup")) == 100
    kept_requests = len(spans.where(name="RequestChannel.Request"))
    assert kept_requests + stats["budget_dropped_spans"] / 2 == 400  # each request trace is two spans
    starts = (tmp_path / "broker-0.starts.jsonl").read_text()
    assert "RequestChannel.Request" not in starts and "KafkaServer.initZk" in starts


def test_the_sampling_policy_thins_a_flood_but_keeps_slow_and_failed_requests(tmp_path, monkeypatch):
    monkeypatch.setenv("KAFKA_EDU_TRACE_RATE", "10")
    monkeypatch.setenv("KAFKA_EDU_TRACE_ONE_IN", "20")
    monkeypatch.setenv("KAFKA_EDU_TRACE_SLOW_MS", "50")
    tracing = setup_tracing("broker-0", "run-1", run_dir=tmp_path)
    started = time.monotonic()
    for _ in range(210):
        a_request(tracing, "Produce")
    for _ in range(5):
        a_request(tracing, "Fetch")
    a_request(tracing, "Produce", slow_ms=80)
    a_request(tracing, "Produce", error=True)
    tracing.shutdown()
    assert time.monotonic() - started < 1.0, "the flood must fit in one rate window for the counts below"

    spans = load_run(tmp_path)
    roots = spans.where(name="RequestChannel.Request")
    produce = [s for s in roots if s.attributes["kafka.api.name"] == "Produce"]
    fetch = [s for s in roots if s.attributes["kafka.api.name"] == "Fetch"]
    assert len(fetch) == 5  # a kind under its rate keeps everything
    # 10 at the rate, then 1 in 20 of the next 200, plus the slow one and the failed one
    assert len(produce) == 10 + 10 + 2
    assert any((s.end_ns - s.start_ns) / 1e6 >= 80 for s in produce)
    kept_traces = {s.trace_id for s in roots}
    assert all(s.trace_id in kept_traces for s in spans.where(name="KafkaApis.handle"))  # whole traces, or none
    stats = json.loads((tmp_path / "broker-0.tracing.json").read_text())
    assert stats["sampled_out_spans"] == (215 + 2 - len(roots)) * 2
    assert "up to 10/s, then 1 in 20" in stats["policy"]


def test_a_request_open_at_exit_is_written_whole_with_its_open_spans_marked(tmp_path):
    tracing = setup_tracing("broker-0", "run-1", run_dir=tmp_path)
    a_request(tracing)  # an ended request: nothing of it is marked
    # a request still in the handler when the process shuts down: one step ended, the handler and the root open
    root = tracing.tracer.start_span("RequestChannel.Request", context=_ROOT_CONTEXT,
                                     attributes={"kafka.api.name": "Fetch"})
    with trace.use_span(root, end_on_exit=False):
        handler = tracing.tracer.start_span("KafkaApis.handle")
        with trace.use_span(handler, end_on_exit=False), step("NW.apis.1"):
            pass
    tracing.shutdown()

    spans = load_run(tmp_path)
    ids = {(s.trace_id, s.span_id) for s in spans}
    assert all((s.trace_id, s.parent_id) in ids for s in spans if s.parent_id)  # no ended span lost its parent
    open_trace = [s for s in spans if s.trace_id == format(root.context.trace_id, "032x")]
    marked = {s.name for s in open_trace if s.attributes.get("kafka.span.open_at_exit")}
    assert marked == {"RequestChannel.Request", "KafkaApis.handle"} and len(open_trace) == 3
    assert all(s.end_ns >= s.start_ns for s in open_trace)
    assert not any(s.attributes.get("kafka.span.open_at_exit") for s in spans if s.trace_id != open_trace[0].trace_id)


def test_policy_from_the_environment():
    policy = TracePolicy.from_environment({"KAFKA_EDU_TRACE_SAMPLING": "all", "KAFKA_EDU_TRACE_BUDGET_MB": "64"})
    assert not policy.sampling and policy.budget_bytes == 64 << 20
    assert policy.describe().startswith("every request trace; request spans within 64 MB")


def test_a_restarted_process_takes_over_the_segments_its_killed_predecessor_left(tmp_path, monkeypatch):
    monkeypatch.setenv("KAFKA_EDU_TRACE_SAMPLING", "all")
    monkeypatch.setenv("KAFKA_EDU_TRACE_SEGMENT_MB", str(8 / 1024))
    monkeypatch.setenv("KAFKA_EDU_TRACE_BUDGET_MB", str(64 / 1024))
    first = setup_tracing("broker-0", "run-1", run_dir=tmp_path)
    for _ in range(30):
        for _ in range(4):
            a_request(first)
        first.writer.force_flush()
    first.writer._stopping = True  # a kill -9: nothing flushed, closed or counted at exit
    left_behind = sorted(p.name for p in tmp_path.glob("broker-0.requests-*.jsonl"))
    assert len(left_behind) >= 4

    second = setup_tracing("broker-0", "run-1", run_dir=tmp_path)
    for _ in range(30):
        for _ in range(4):
            a_request(second)
        second.writer.force_flush()
    second.shutdown()
    segments = sorted(p.name for p in tmp_path.glob("broker-0.requests-*.jsonl"))
    assert not set(left_behind) & set(segments)  # the predecessor's segments went first, and none was reused
    assert sum((tmp_path / n).stat().st_size for n in segments) <= 64 * 1024 + 16 * 1024
    assert json.loads((tmp_path / "broker-0.tracing.json").read_text())["budget_dropped_spans"] > 0


def test_a_full_queue_drops_what_does_not_fit_and_counts_it(tmp_path, monkeypatch):
    from kafka_edu.tracing import writer as writer_module
    tracing = setup_tracing("broker-0", "run-1", run_dir=tmp_path)
    writer = tracing.writer
    writer.force_flush()
    assert not writer._ended  # written: nothing else ends a span meanwhile
    monkeypatch.setattr(writer_module, "MAX_QUEUE_SIZE", 3)
    spans = [tracing.tracer.start_span("KafkaController.onBrokerStartup", context=_ROOT_CONTEXT) for _ in range(5)]
    for s in spans:
        s._end_time = s.start_time + 1  # ended, without handing them to the writer again
    writer._enqueue(spans, False)
    assert writer.dropped == 2
    monkeypatch.undo()
    tracing.shutdown()
    written = [r.span_id for r in load_run(tmp_path) if r.name == "KafkaController.onBrokerStartup"]
    assert written == [f"{s.context.span_id:016x}" for s in spans[:3]]
