"""The span files' encoder (kafka_edu/tracing/otlp_json.py) writes what opentelemetry-exporter-otlp-json-file
writes, for every kind of span kafka-edu makes and a few it does not."""

from __future__ import annotations

import json

from opentelemetry.exporter.otlp.json.file import FileSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import (
    Link,
    NonRecordingSpan,
    SpanContext,
    SpanKind,
    Status,
    StatusCode,
    TraceFlags,
    set_span_in_context,
)

from kafka_edu.tracing.otlp_json import SpanLineFile, encode_line


def make_spans():
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.instance.id": "broker-1", "process.pid": 42}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("kafka_edu")
    other = provider.get_tracer("other", "1.2", schema_url="https://example.com/schema")
    with tracer.start_as_current_span("root", attributes={"s": "x", "i": 7, "f": 1.5, "b": True, "nan": float("nan"),
                                                          "inf": float("-inf"), "list": ["a", "b"], "ints": [1, 2],
                                                          "empty": [], "neg": -3, "big": 2**62, "blank": ""}):
        with tracer.start_as_current_span("child", kind=SpanKind.SERVER) as child:
            child.add_event("happened", {"n": 1})
            child.add_event("bare")
            child.set_status(Status(StatusCode.ERROR, "it broke"))
        with other.start_as_current_span("scoped", kind=SpanKind.CLIENT) as scoped:
            scoped.set_status(Status(StatusCode.OK))
    remote = SpanContext(0x1234, 0x5678, is_remote=True, trace_flags=TraceFlags(1))
    with tracer.start_as_current_span("from a remote parent", context=set_span_in_context(NonRecordingSpan(remote)),
                                      links=[Link(remote, {"why": "follows"}), Link(SpanContext(1, 2, False))]):
        pass
    try:
        with tracer.start_as_current_span("raises"):
            raise ValueError("boom")
    except ValueError:
        pass
    return memory.get_finished_spans()


def test_the_encoder_gives_the_library_s_dict_for_every_span(tmp_path) -> None:
    spans = make_spans()
    library = FileSpanExporter(tmp_path / "library.jsonl")
    library.export(spans)
    library.shutdown()
    ours = SpanLineFile(tmp_path / "ours.jsonl")
    ours.export(spans)
    ours.shutdown()
    expected = json.loads((tmp_path / "library.jsonl").read_text())
    assert json.loads((tmp_path / "ours.jsonl").read_text()) == expected
    # the same bytes, key order included
    assert (tmp_path / "ours.jsonl").read_text() == (tmp_path / "library.jsonl").read_text()


def test_no_spans_write_no_line(tmp_path) -> None:
    assert encode_line([]) is None
    ours = SpanLineFile(tmp_path / "ours.jsonl")
    ours.export([])
    ours.shutdown()
    assert (tmp_path / "ours.jsonl").read_text() == ""


def test_plain_values_written_without_json_dumps_are_the_library_s_bytes(tmp_path) -> None:
    # str, int, bool and finite float values are written by the encoder itself: text json escapes, floats whose
    # repr is unusual, ints at the edges, and spans made by kafka-edu's own start_span
    from kafka_edu.tracing import provider

    tracing = provider.node_tracing("otlp-json-test", "run", "kraft")
    odd = {"quote\"key": 'a "quoted" \\ value', "unicode": "ünïcødé ✓ 𝄞", "control": "tab\tnew\nline\x01",
           "zero": 0, "negative": -(2**63), "huge": 2**80, "true": True, "false": False, "tiny": 1e-7,
           "big": 1e22, "negzero": -0.0, "third": 1 / 3, "empty": ""}
    spans = []
    for make in (tracing.start_span, tracing.tracer.start_span):
        span = make("Kafka.main#shutdownHook", attributes=dict(odd))
        span.end()
        spans.append(span)
    library = FileSpanExporter(tmp_path / "library.jsonl")
    library.export(spans)
    library.shutdown()
    ours = SpanLineFile(tmp_path / "ours.jsonl")
    ours.export(spans)
    ours.shutdown()
    assert (tmp_path / "ours.jsonl").read_text() == (tmp_path / "library.jsonl").read_text()


def test_tuples_and_repeated_strings_written_by_the_encoder_are_the_library_s_bytes(tmp_path) -> None:
    # a list of plain values is stored as a tuple (a fetch's partitions) and written by the encoder itself; a string
    # pair is written once and then reused from the cache, so the same attributes go out twice
    from kafka_edu.tracing import provider

    tracing = provider.node_tracing("otlp-json-test", "run", "kraft")
    arrays = {"partitions": ["t-0", "t-1"], "ids": (1, -2, 2**70), "flags": [True, False], "floats": [0.5, -0.0],
              "mixed": ["x", 1, True, 2.5], "empty": [], "with nan": [1.0, float("nan")], "odd": ['"q"', "ü\t𝄞"],
              "origin": "core/src/main/scala/kafka/server/KafkaApis.scala", "step": "RQ.api.1"}
    spans = []
    for make in (tracing.start_span, tracing.tracer.start_span, tracing.start_span):
        span = make("KafkaApis.handleFetchRequest", attributes=dict(arrays))
        span.end()
        spans.append(span)
    assert spans[0].attributes["partitions"] == ("t-0", "t-1")
    library = FileSpanExporter(tmp_path / "library.jsonl")
    library.export(spans)
    library.shutdown()
    ours = SpanLineFile(tmp_path / "ours.jsonl")
    ours.export(spans)
    ours.export(spans)
    ours.shutdown()
    line = (tmp_path / "library.jsonl").read_text()
    assert (tmp_path / "ours.jsonl").read_text() == line + line
