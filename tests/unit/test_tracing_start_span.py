"""Tracing.start_span (kafka_edu/tracing/provider.py) makes the span OpenTelemetry's tracer makes: the same
attributes after OpenTelemetry's checks (lists become tuples, None is dropped, bytes are decoded), the same parent,
links, flags and sampling, in the same order; only the ids and times differ."""

from __future__ import annotations

import json
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import SpanProcessor
from opentelemetry.trace import Link, SpanContext, TraceFlags

from kafka_edu.tracing import provider
from kafka_edu.tracing.otlp_json import encode_line


@pytest.fixture
def tracing() -> provider.Tracing:
    return provider.node_tracing("start-span-test", "run", "kraft")


def _without_ids_and_times(span: Any) -> dict[str, Any]:
    line = json.loads(encode_line([span]))
    body = line["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    for key in ("traceId", "spanId", "parentSpanId", "startTimeUnixNano", "endTimeUnixNano"):
        body.pop(key, None)
    for link in body.get("links", ()):
        link.pop("traceId"), link.pop("spanId")
    return {"scope": line["resourceSpans"][0]["scopeSpans"][0]["scope"], **body}


ATTRIBUTE_CASES = {
    "plain": {"kafka.step": "RQ.produce", "kafka.partition": 3, "kafka.ratio": 0.5, "kafka.flag": True},
    "list": {"kafka.partitions": [1, 2, 3], "kafka.topics": ["a", "b"]},
    "none": {"kafka.leader": None, "kafka.step": "RQ.fetch"},
    "bytes": {"kafka.key": b"abc"},
    "mixed": {"kafka.step": "X", "kafka.replicas": (1, 2), "kafka.missing": None, "kafka.n": 7},
    "sequences": {"kafka.partitions": ["a-0"], "kafka.n": 1, "kafka.ratios": [0.5, 1.0], "kafka.flags": (True, False),
                  "kafka.empty": []},
    "sequence with none": {"kafka.leaders": [1, None], "kafka.step": "X"},
    "empty": {},
}


@pytest.mark.parametrize("case", sorted(ATTRIBUTE_CASES))
def test_a_span_s_attributes_are_what_opentelemetry_s_tracer_stores(tracing: provider.Tracing, case: str) -> None:
    attributes = ATTRIBUTE_CASES[case]
    ours = tracing.start_span("Kafka.main#shutdownHook", attributes=dict(attributes))
    theirs = tracing.tracer.start_span("Kafka.main#shutdownHook", attributes=dict(attributes))
    assert dict(ours.attributes) == dict(theirs.attributes)
    assert list(ours.attributes) == list(theirs.attributes)  # the same order too
    ours.end()
    theirs.end()
    assert _without_ids_and_times(ours) == _without_ids_and_times(theirs)


def test_a_child_keeps_its_parent_s_trace_and_flags_and_its_links(tracing: provider.Tracing) -> None:
    root = tracing.start_span("Kafka.main#shutdownHook")
    context = trace.set_span_in_context(root)
    remote = SpanContext(0x1234, 0x5678, is_remote=True, trace_flags=TraceFlags(TraceFlags.SAMPLED))
    child = tracing.start_span("Kafka.main#shutdownHook", context=context, links=[Link(remote)])
    reference = tracing.tracer.start_span("Kafka.main#shutdownHook", context=context, links=[Link(remote)])
    assert child.get_span_context().trace_id == root.get_span_context().trace_id
    assert child.parent == root.get_span_context() == reference.parent
    assert child.get_span_context().trace_flags == reference.get_span_context().trace_flags
    assert [link.context for link in child.links] == [remote]
    # the context a span answers with is the one the SDK's would: its own, the object the span holds
    assert child.get_span_context() is child.context is child._context
    assert type(child.get_span_context()) is type(reference.get_span_context()) is SpanContext
    for span in (reference, child, root):
        span.end()


def test_an_unsampled_request_s_steps_are_not_recorded(tracing: provider.Tracing) -> None:
    unsampled = trace.NonRecordingSpan(SpanContext(0x99, 0x98, is_remote=False, trace_flags=TraceFlags(0)))
    child = tracing.start_span("Kafka.main#shutdownHook", context=trace.set_span_in_context(unsampled))
    assert not child.is_recording() and not child.get_span_context().trace_flags.sampled


def test_the_process_attributes_stamped_by_the_sampler_come_last_and_win(tracing: provider.Tracing) -> None:
    tracing.process_attributes.attributes["kafka.broker.id"] = 7
    ours = tracing.start_span("Kafka.main#shutdownHook", attributes={"kafka.broker.id": 1, "kafka.step": "S"})
    theirs = tracing.tracer.start_span("Kafka.main#shutdownHook", attributes={"kafka.broker.id": 1, "kafka.step": "S"})
    assert dict(ours.attributes) == dict(theirs.attributes) == {"kafka.broker.id": 7, "kafka.step": "S"}


def test_a_span_reaches_the_processors_with_its_attributes_already_set(tracing: provider.Tracing) -> None:
    seen: list[dict[str, Any]] = []

    class Probe(SpanProcessor):
        def on_start(self, span: Any, parent_context: Any = None) -> None:
            seen.append(dict(span.attributes))

    tracing.provider.add_span_processor(Probe())
    tracing.start_span("Kafka.main#shutdownHook", attributes={"kafka.step": "S", "kafka.n": 1}).end()
    assert seen == [{"kafka.step": "S", "kafka.n": 1}]


def test_a_span_has_the_fields_the_sdk_s_own_span_has_with_the_same_values(tracing: provider.Tracing) -> None:
    # Tracing.start_span sets a span's fields itself (_RecordedSpan.__init__): none missing, none different
    ours = tracing.start_span("Kafka.main#shutdownHook", attributes={"kafka.step": "S"}, links=[
        Link(SpanContext(0x1234, 0x5678, is_remote=True, trace_flags=TraceFlags(TraceFlags.SAMPLED)))])
    theirs = tracing.tracer.start_span("Kafka.main#shutdownHook", attributes={"kafka.step": "S"}, links=[
        Link(SpanContext(0x1234, 0x5678, is_remote=True, trace_flags=TraceFlags(TraceFlags.SAMPLED)))])
    # every field the SDK's span has, ours has too (its own or, where every span starts the same, its class's), and
    # no other
    assert set(vars(ours)) <= set(vars(theirs))
    assert all(hasattr(ours, field) for field in vars(theirs))
    # ids, time, own objects; the deprecated instrumentation_info is never given, and the scope is our own object
    # (version None where the tracer's is "": both write no version)
    differ = {"_context", "_start_time", "_lock", "_span_processor", "_record_end_metrics", "_instrumentation_info",
              "_instrumentation_scope"}
    assert ours.instrumentation_scope.name == theirs.instrumentation_scope.name
    assert not ours.instrumentation_scope.version and not theirs.instrumentation_scope.version
    for field in sorted(set(vars(theirs)) - differ - {"_attributes", "_events", "_links"}):
        assert getattr(ours, field) == getattr(theirs, field), field
    # a span gets its list of events at its first event: until then an empty tuple stands for it
    assert ours._events == () and len(theirs._events) == 0
    ours.add_event("first")
    theirs.add_event("first")
    for field in ("_attributes", "_events", "_links"):
        mine, sdk = getattr(ours, field), getattr(theirs, field)
        assert type(mine) is type(sdk) and len(mine) == len(sdk), field
        assert {k: v for k, v in vars(mine).items() if k not in ("_lock", "_dq")} == {
            k: v for k, v in vars(sdk).items() if k not in ("_lock", "_dq")}, field
    assert ours._events._dq.maxlen == theirs._events._dq.maxlen and ours._links._dq.maxlen == theirs._links._dq.maxlen
    assert dict(ours._attributes) == dict(theirs._attributes)
    assert [(link.context, dict(link.attributes)) for link in ours.links] == [
        (link.context, dict(link.attributes)) for link in theirs.links]
    ours.end()
    theirs.end()
    assert ours._attributes._immutable and theirs._attributes._immutable
    # an end time is the span's own: the class's default, which the next span starts with, stays None
    assert ours.end_time is not None and type(ours)._end_time is None and ours.is_recording() is False
    assert tracing.start_span("Kafka.main#shutdownHook").is_recording()


def test_a_span_without_links_gets_its_list_at_its_first_link_and_none_once_ended(tracing: provider.Tracing) -> None:
    ours = tracing.start_span("Kafka.main#shutdownHook")
    theirs = tracing.tracer.start_span("Kafka.main#shutdownHook")
    assert ours._links == () and ours.links == theirs.links == () and ours.dropped_links == theirs.dropped_links == 0
    remote = SpanContext(0x1234, 0x5678, is_remote=True, trace_flags=TraceFlags(TraceFlags.SAMPLED))
    for span_ in (ours, theirs):
        span_.add_link(remote, {"kafka.why": "test"})
    assert type(ours._links) is type(theirs._links) and ours._links._dq.maxlen == theirs._links._dq.maxlen
    assert [(link.context, dict(link.attributes)) for link in ours.links] == [
        (link.context, dict(link.attributes)) for link in theirs.links]
    ended = tracing.start_span("Kafka.main#shutdownHook")
    ended.end()
    ended.add_event("late")
    ended.add_link(remote)
    assert ended.events == () and ended.links == ()
    ours.end()
    theirs.end()
    assert _without_ids_and_times(ours) == _without_ids_and_times(theirs)


@pytest.mark.parametrize("case", ["plain", "overlap", "checked", "sequences", "ended"])
def test_set_span_attributes_stores_what_opentelemetry_s_set_attributes_stores(tracing: provider.Tracing,
                                                                               case: str) -> None:
    start = {"kafka.step": "S", "kafka.n": 1}
    later = {"plain": {"kafka.bytes": 10, "kafka.ok": True, "kafka.ratio": 0.5, "kafka.name": "x"},
             "overlap": {"kafka.bytes": 10, "kafka.step": "T"},  # an existing key moves to the end
             "checked": {"kafka.list": [1, 2], "kafka.none": None, "kafka.key": b"k"},
             "sequences": {"kafka.partitions": ["t-0", "t-1"], "kafka.ids": (1, 2), "kafka.bytes": 10},
             "ended": {"kafka.bytes": 10}}[case]
    ours = tracing.start_span("Kafka.main#shutdownHook", attributes=dict(start))
    theirs = tracing.tracer.start_span("Kafka.main#shutdownHook", attributes=dict(start))
    if case == "ended":
        ours.end()
        theirs.end()
    provider.set_span_attributes(ours, dict(later))
    theirs.set_attributes(dict(later))
    assert list(ours.attributes.items()) == list(theirs.attributes.items())


def test_a_span_ends_once_as_the_sdk_s_span_does(tracing: provider.Tracing, caplog: pytest.LogCaptureFixture) -> None:
    ended: list[Any] = []

    class Probe(SpanProcessor):
        def on_end(self, span: Any) -> None:
            ended.append(span)

    tracing.provider.add_span_processor(Probe())
    ours = tracing.start_span("Kafka.main#shutdownHook", attributes={"kafka.step": "S"})
    ours.end(end_time=ours.start_time + 5)
    ours.end()
    assert ended == [ours] and ours.end_time == ours.start_time + 5 and ours._attributes._immutable
    assert "Calling end() on an ended span." in caplog.text
