"""One TracerProvider per process, writing the span files TRACING.md fixes.

Ended spans go to `<run>/<instance>.jsonl` (OTLP/JSON Lines, the official file exporter) and span starts to
`<run>/<instance>.starts.jsonl`, so live views can draw a step that is still running. Both are written in batches by
one background thread, a few times a second: the thread that starts or ends a span only appends it to a queue.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections import deque
from pathlib import Path

from opentelemetry import trace
from opentelemetry.exporter.otlp.json.file import FileSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanLimits, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import Decision, Sampler, SamplingResult
from opentelemetry.trace import get_current_span

from kafka_edu.tracing.steps import REQUEST_PATH_ROOTS

TRACING_ENV = "KAFKA_EDU_TRACING"  # "off": request-path spans are sampled away (benchmarks); lifecycle spans stay
EXPORT_DELAY_S = 0.1  # TRACING.md: a span is on disk within 250 ms of its end
MAX_QUEUE_SIZE = 1 << 16  # bursts (a startup, a flood of requests) fit without dropping
EXPORT_BATCH = 2048
# OpenTelemetry keeps 128 events per span by default and drops the rest silently; one state-machine batch of a
# large failover carries thousands of state changes, and none may go missing.
SPAN_EVENT_LIMIT = 1_000_000


class SpanFileWriter(SpanProcessor):
    """Queues span starts and ends and writes them from one thread: starts as JSON lines, ends through the exporter.

    A full queue drops the span and counts it (the count goes to the run manifest); nothing is dropped silently.
    """

    def __init__(self, exporter: SpanExporter, starts_path: Path | None) -> None:
        self.exporter = exporter
        self.dropped = 0
        self._ended: deque[ReadableSpan] = deque()
        self._started: deque[Span] = deque()
        self._starts_fd = os.open(starts_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644) if starts_path else -1
        self._wakeup = threading.Event()
        self._stopping = False
        self._flushed = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="span-file-writer", daemon=True)
        self._thread.start()

    def on_start(self, span: Span, parent_context=None) -> None:
        if self._starts_fd >= 0:
            self._started.append(span)  # deque.append is atomic: no lock on the traced thread

    def on_end(self, span: ReadableSpan) -> None:
        if len(self._ended) >= MAX_QUEUE_SIZE:
            self.dropped += 1
            return
        self._ended.append(span)
        if len(self._ended) >= EXPORT_BATCH:
            self._wakeup.set()

    def _run(self) -> None:
        while True:
            self._wakeup.wait(EXPORT_DELAY_S)
            self._wakeup.clear()
            self._write_pending()
            with self._flushed:
                self._flushed.notify_all()
            if self._stopping:
                return

    def _write_pending(self) -> None:
        started = _drain(self._started)
        if started:
            os.write(self._starts_fd, b"".join(_start_line(s) for s in started))
        while ended := _drain(self._ended, EXPORT_BATCH):
            try:
                self.exporter.export(ended)
            except Exception:  # a full disk must not kill the writer; the spans are counted as dropped
                logging.getLogger(__name__).exception("Exporting %d spans failed", len(ended))
                self.dropped += len(ended)

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        with self._flushed:
            self._wakeup.set()
            return self._flushed.wait(timeout_millis / 1000)

    def shutdown(self) -> None:
        self._stopping = True
        self._wakeup.set()
        self._thread.join(timeout=30)
        self._write_pending()  # anything that ended while the thread was stopping
        self.exporter.shutdown()
        if self._starts_fd >= 0:
            os.close(self._starts_fd)
            self._starts_fd = -1


def _drain(queue: deque, limit: int | None = None) -> list:
    items = []
    while queue and (limit is None or len(items) < limit):
        items.append(queue.popleft())
    return items


def _start_line(span: Span) -> bytes:
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
    return (json.dumps(record, separators=(",", ":"), default=str) + "\n").encode()


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


class ExceptionsOnSpans(logging.Handler):
    """A logged exception (Kafka's `error(msg, e)`) becomes an `exception` event on the span that was running.

    This is how a failure that the ported code catches, logs and survives still shows in the trace, without the
    ported code saying anything to the tracer.
    """

    def __init__(self) -> None:
        super().__init__(logging.WARNING)

    def emit(self, record: logging.LogRecord) -> None:
        if not record.exc_info or record.exc_info[1] is None:
            return
        current = trace.get_current_span()
        if current.is_recording():
            exc = record.exc_info[1]
            current.record_exception(exc, attributes={"exception.type": type(exc).__name__,
                                                      "exception.message": str(exc)})


class Tracing:
    """What a process set up: its provider, its tracer, its processors, and where its files are."""

    def __init__(self, provider: TracerProvider, process_attributes: ProcessAttributes,
                 writer: SpanFileWriter | None, memory: InMemorySpanExporter | None, span_file: Path | None,
                 request_path_on: bool) -> None:
        self.provider = provider
        self.tracer = provider.get_tracer("kafka_edu")
        self.process_attributes = process_attributes
        self.writer = writer
        self.memory = memory
        self.span_file = span_file
        self.request_path_on = request_path_on

    @property
    def dropped(self) -> int:
        return self.writer.dropped if self.writer else 0

    def shutdown(self) -> None:
        self.provider.shutdown()


_current: Tracing | None = None
_exception_handler = ExceptionsOnSpans()


def resource_for(instance_id: str, run_id: str, mode: str) -> Resource:
    return Resource.create({
        "service.name": "kafka-edu",
        "service.instance.id": instance_id,
        "kafka.run.id": run_id,
        "kafka.mode": mode,
        "process.pid": os.getpid(),
    })


def setup_tracing(instance_id: str, run_id: str, mode: str = "zk", run_dir: Path | None = None) -> Tracing:
    """Install this process's TracerProvider. With no run_dir, spans are kept in memory (tests)."""
    global _current
    request_path_on = os.environ.get(TRACING_ENV, "on").lower() != "off"
    provider = TracerProvider(resource=resource_for(instance_id, run_id, mode),
                              sampler=RequestPathSampler(request_path_on),
                              span_limits=SpanLimits(max_events=SPAN_EVENT_LIMIT))
    process_attributes = ProcessAttributes()
    provider.add_span_processor(process_attributes)
    writer = memory = span_file = None
    if run_dir is None:
        memory = InMemorySpanExporter()
        provider.add_span_processor(SimpleSpanProcessor(memory))
    else:
        run_dir.mkdir(parents=True, exist_ok=True)
        span_file = run_dir / f"{instance_id}.jsonl"
        writer = SpanFileWriter(FileSpanExporter(span_file), run_dir / f"{instance_id}.starts.jsonl")
        provider.add_span_processor(writer)
    _current = Tracing(provider, process_attributes, writer, memory, span_file, request_path_on)
    root_logger = logging.getLogger()
    if _exception_handler not in root_logger.handlers:
        root_logger.addHandler(_exception_handler)
    return _current


def current_tracing() -> Tracing | None:
    return _current


def set_process_attribute(key: str, value: object) -> None:
    """Attach an attribute to every span this process starts from now on."""
    if _current is not None:
        _current.process_attributes.attributes[key] = value
