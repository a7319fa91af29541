"""One TracerProvider per process, writing the span files TRACING.md fixes.

Ended spans go to `<run>/<instance>.jsonl` (OTLP/JSON Lines, the official file exporter) within a fraction of a
second; span starts go at once to `<run>/<instance>.starts.jsonl` so live views can draw a step that is still running.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from opentelemetry.exporter.otlp.json.file import FileSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanLimits, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import Decision, Sampler, SamplingResult
from opentelemetry.trace import get_current_span

TRACING_ENV = "KAFKA_EDU_TRACING"  # "off": request-path spans are sampled away (benchmarks); lifecycle spans stay
# Roots of request-path traces: a connection accepted, a processor's loop phase, one client request.
REQUEST_PATH_ROOTS = frozenset({"RequestChannel.Request", "Acceptor.accept", "Processor.configureNewConnections",
                                "Processor.processNewResponses", "Processor.poll", "Processor.processCompletedSends",
                                "Processor.processDisconnected"})
EXPORT_DELAY_MS = 100  # TRACING.md: a span is on disk within 250 ms of its end
MAX_QUEUE_SIZE = 1 << 16  # bursts (a startup, a flood of requests) fit without dropping


class CountingBatchSpanProcessor(BatchSpanProcessor):
    """BatchSpanProcessor that counts the spans it has to drop when its queue is full."""

    def __init__(self, exporter: FileSpanExporter) -> None:
        super().__init__(exporter, max_queue_size=MAX_QUEUE_SIZE, schedule_delay_millis=EXPORT_DELAY_MS)
        self.dropped = 0

    def on_end(self, span: ReadableSpan) -> None:
        # The SDK drops the oldest span silently (a log line only) when the queue is full; count it.
        if len(self._batch_processor._queue) >= MAX_QUEUE_SIZE:
            self.dropped += 1
        super().on_end(span)


class RequestPathSampler(Sampler):
    """Drops request-path traces when tracing is off; every other span is always kept (TRACING.md)."""

    def __init__(self, request_path_on: bool) -> None:
        self.request_path_on = request_path_on

    def should_sample(self, parent_context, trace_id, name, kind=None, attributes=None, links=None,
                      trace_state=None) -> SamplingResult:
        parent = get_current_span(parent_context).get_span_context()
        if parent.is_valid:  # children follow their root's decision
            decision = Decision.RECORD_AND_SAMPLE if parent.trace_flags.sampled else Decision.DROP
        elif name in REQUEST_PATH_ROOTS and not self.request_path_on:
            decision = Decision.DROP
        else:
            decision = Decision.RECORD_AND_SAMPLE
        return SamplingResult(decision, attributes)

    def get_description(self) -> str:
        return f"RequestPathSampler(request_path_on={self.request_path_on})"


class ProcessAttributes(SpanProcessor):
    """Stamps attributes learned during the process's life (e.g. a generated broker id) on every new span."""

    def __init__(self) -> None:
        self.attributes: dict[str, object] = {}

    def on_start(self, span: Span, parent_context=None) -> None:
        if self.attributes:
            span.set_attributes(self.attributes)


class StartPublisher(SpanProcessor):
    """Appends one JSON line per span start, so a running step is visible before it ends."""

    def __init__(self, path: Path) -> None:
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self._lock = threading.Lock()

    def on_start(self, span: Span, parent_context=None) -> None:
        ctx = span.get_span_context()
        parent = span.parent
        record = {
            "traceId": format(ctx.trace_id, "032x"),
            "spanId": format(ctx.span_id, "016x"),
            "parentSpanId": format(parent.span_id, "016x") if parent else "",
            "name": span.name,
            "startTimeUnixNano": str(span.start_time),
            "attributes": dict(span.attributes or {}),
        }
        line = (json.dumps(record, separators=(",", ":"), default=str) + "\n").encode()
        with self._lock:  # one write per line keeps lines whole under O_APPEND
            os.write(self._fd, line)

    def shutdown(self) -> None:
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1


class Tracing:
    """What a process set up: its provider, its processors, and where its files are."""

    def __init__(self, provider: TracerProvider, process_attributes: ProcessAttributes,
                 batch: CountingBatchSpanProcessor | None, memory: InMemorySpanExporter | None,
                 span_file: Path | None) -> None:
        self.provider = provider
        self.process_attributes = process_attributes
        self.batch = batch
        self.memory = memory
        self.span_file = span_file

    @property
    def dropped(self) -> int:
        return self.batch.dropped if self.batch else 0

    def shutdown(self) -> None:
        self.provider.shutdown()


_current: Tracing | None = None


def resource_for(instance_id: str, run_id: str, mode: str) -> Resource:
    return Resource.create({
        "service.name": "kafka-edu",
        "service.instance.id": instance_id,
        "kafka.run.id": run_id,
        "kafka.mode": mode,
        "process.pid": os.getpid(),
    })


SPAN_EVENT_LIMIT = 1_000_000


def setup_tracing(instance_id: str, run_id: str, mode: str = "zk", run_dir: Path | None = None) -> Tracing:
    """Install this process's TracerProvider. With no run_dir, spans are kept in memory (tests)."""
    global _current
    request_path_on = os.environ.get(TRACING_ENV, "on").lower() != "off"
    # OpenTelemetry keeps 128 events per span by default and drops the rest silently; one state-machine batch of a
    # large failover carries thousands of state changes, and none may go missing.
    provider = TracerProvider(resource=resource_for(instance_id, run_id, mode),
                              sampler=RequestPathSampler(request_path_on),
                              span_limits=SpanLimits(max_events=SPAN_EVENT_LIMIT))
    process_attributes = ProcessAttributes()
    provider.add_span_processor(process_attributes)
    batch = memory = span_file = None
    if run_dir is None:
        memory = InMemorySpanExporter()
        provider.add_span_processor(SimpleSpanProcessor(memory))
    else:
        run_dir.mkdir(parents=True, exist_ok=True)
        span_file = run_dir / f"{instance_id}.jsonl"
        provider.add_span_processor(StartPublisher(run_dir / f"{instance_id}.starts.jsonl"))
        batch = CountingBatchSpanProcessor(FileSpanExporter(span_file))
        provider.add_span_processor(batch)
    _current = Tracing(provider, process_attributes, batch, memory, span_file)
    return _current


def current_tracing() -> Tracing | None:
    return _current


def set_process_attribute(key: str, value: object) -> None:
    """Attach an attribute to every span this process starts from now on."""
    if _current is not None:
        _current.process_attributes.attributes[key] = value
