"""One TracerProvider per process, writing the span files TRACING.md fixes.

A process that runs several Kafka nodes in itself (the raft simulation, `kafka-edu raft-sim`) gives each node a
Tracing of its own (`node_tracing`: its own `service.instance.id` and span file) and makes it the current one while
that node's code runs (`with using(tracing):`); such a Tracing may read span times from a clock the process drives
(`clock`, see clock.py) instead of the wall clock.

Spans go to the files of `writer.py` (OTLP/JSON Lines, written by otlp_json.py as the official file exporter writes
them, starts in a side file so live views can draw a step that is still running), written in batches by one
background thread a few times a second: the thread that starts or ends a span only appends it to a queue.
Request-path traces are sampled and kept within a budget there; nothing else is ever given up.
"""

from __future__ import annotations

import functools
import inspect
import logging
import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from time import time_ns

from opentelemetry import trace
from opentelemetry.attributes import BoundedAttributes
from opentelemetry.context import Context
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event, ReadableSpan, Span, SpanLimits, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import Decision, Sampler, SamplingResult
from opentelemetry.sdk.util import BoundedList
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import Link, NonRecordingSpan, SpanContext, SpanKind, TraceFlags, get_current_span
from opentelemetry.trace.span import DEFAULT_TRACE_STATE

from kafka_edu.tracing.steps import REQUEST_PATH_ROOTS
from kafka_edu.tracing.writer import SpanFileWriter, TracePolicy

TRACING_ENV = "KAFKA_EDU_TRACING"  # "off": request-path spans are sampled away (benchmarks); lifecycle spans stay
# OpenTelemetry keeps 128 events per span by default and drops the rest silently; one state-machine batch of a
# large failover carries thousands of state changes, and none may go missing.
SPAN_EVENT_LIMIT = 1_000_000
_sdk_log = logging.getLogger("opentelemetry.sdk.trace")  # where the SDK's span warns of a second end
_SCOPE = InstrumentationScope("kafka_edu")  # the one tracer's scope: every span file groups spans under it
_PLAIN = frozenset({str, int, float, bool})  # attribute values OpenTelemetry's checks store unchanged
_STR = frozenset({str})
_SEQUENCES = frozenset({list, tuple})  # what the checks store as a tuple of its (checked) items
_UNSET_STATUS = inspect.signature(ReadableSpan.__init__).parameters["status"].default  # the SDK's shared one
_span_context = functools.partial(tuple.__new__, SpanContext)  # SpanContext is a tuple of its fields and is_valid
# the four flag values a span can get (sampled or not, random trace id or not), made once
_FLAGS = tuple(TraceFlags(flags) for flags in range(4))
_SAMPLED_OR_RANDOM = TraceFlags.SAMPLED | TraceFlags.RANDOM_TRACE_ID


class _RecordedSpan(Span):
    """OpenTelemetry's span; the SDK lets only subclasses be made outside its tracer (its own is private).

    Made by `Tracing.start_span` only, which sets its fields itself: the fields SDK 1.45's `Span.__init__` sets,
    to the values that constructor gives them for an INTERNAL span of our scope with no attributes or events yet,
    without the two constructors' keyword handling (3.8 -> 3.0 us a span here); those that every span starts with
    the same value in are the class's.
    `tests/unit/test_tracing_start_span.py` holds the fields to the SDK's own span's."""

    # The fields every span of ours starts with the same value in, read from the class until a span sets its own (an
    # end time, a status, a first event): fewer stores a span.
    _kind = SpanKind.INTERNAL
    _instrumentation_info = None
    _instrumentation_scope = _SCOPE
    _start_time = None
    _end_time = None
    _status = _UNSET_STATUS
    _trace_config = None
    _record_end_metrics = None
    # Most spans never get an event or a link: the SDK's bounded list for each (a deque and a lock) is made at the
    # first one, and until then the span holds an empty tuple, which every reader of them takes as empty.
    _events = ()

    def __init__(self, name: str, context: SpanContext, parent: SpanContext | None, sampler: Sampler,
                 resource: Resource, span_processor: object, links: Sequence[Link], limits: SpanLimits,
                 record_exception: bool, set_status_on_exception: bool) -> None:
        # ReadableSpan's fields
        self._name = name
        self._context = context
        self._parent = parent
        self._resource = resource
        # Span's
        self._sampler = sampler
        self._record_exception = record_exception
        self._set_status_on_exception = set_status_on_exception
        self._span_processor = span_processor
        self._limits = limits
        self._lock = threading.Lock()
        # what BoundedAttributes(max_span_attributes, None, immutable=False, max_value_len=...) makes, without its
        # checks of limits that SpanLimits has checked already
        attributes = object.__new__(BoundedAttributes)
        attributes._dict = {}
        attributes.maxlen = limits.max_span_attributes
        attributes.dropped = 0
        attributes.max_value_len = limits.max_span_attribute_length
        attributes._lock = threading.Lock()
        attributes._immutable = False
        self._attributes = attributes
        self._links = self._new_links(links) if links else ()

    def get_span_context(self) -> SpanContext:
        return self._context  # the SDK's returns it through typing.cast, a Python call asked several times a span

    def _add_event(self, event: Event) -> None:
        self._make_list("_events", self._limits.max_events)
        super()._add_event(event)

    def _add_link(self, link: Link) -> None:
        self._make_list("_links", self._limits.max_links)
        super()._add_link(link)

    def _make_list(self, field: str, maxlen: int | None) -> None:
        """The SDK's bounded list for `field`, in place of the empty tuple it holds until its first item."""
        if type(getattr(self, field)) is tuple:
            with self._lock:
                if type(getattr(self, field)) is tuple:
                    setattr(self, field, BoundedList(maxlen))

    def end(self, end_time: int | None = None) -> None:
        """The SDK's `Span.end`, for a span that records no end metrics and is its own readable span."""
        with self._lock:
            if self._start_time is None:
                raise RuntimeError("Calling end() on a not started span.")
            if self._end_time is not None:
                _sdk_log.warning("Calling end() on an ended span.")
                return
            self._end_time = end_time if end_time is not None else time_ns()
            self._attributes._immutable = True
        self._span_processor._on_ending(self)
        self._span_processor.on_end(self)

    def _readable_span(self) -> ReadableSpan:
        # The SDK hands its processors a ReadableSpan copy at the end, sharing this span's attributes, events and
        # links anyway; an ended span accepts no more changes, so it is handed over itself (one object less a span).
        return self


class ProcessAttributes:
    """Attributes learned during the process's life (e.g. a generated broker id), stamped on every new span by the
    sampler: a sampler's attributes become the span's own as it is created, in the one pass over them OpenTelemetry
    makes anyway (a span processor setting them after would take the span's lock and check them again)."""

    def __init__(self) -> None:
        self.attributes: dict[str, object] = {}


class RequestPathSampler(Sampler):
    """Drops request-path traces when tracing is off; every other span is always kept (TRACING.md). A kept span gets
    the process's attributes."""

    def __init__(self, request_path_on: bool, process_attributes: ProcessAttributes | None = None) -> None:
        self.request_path_on = request_path_on
        self.process_attributes = process_attributes or ProcessAttributes()

    def should_sample(self, parent_context, trace_id, name, kind=None, attributes=None, links=None,
                      trace_state=None) -> SamplingResult:
        parent = get_current_span(parent_context).get_span_context()
        if self.sampled(parent if parent.is_valid else None, name):
            return SamplingResult(Decision.RECORD_AND_SAMPLE, self.stamped(attributes))
        return SamplingResult(Decision.DROP, attributes)

    def sampled(self, parent: SpanContext | None, name: str) -> bool:
        """The decision: children follow their root's; a request-path root is dropped when tracing is off."""
        if parent is not None:
            return parent.trace_flags.sampled
        return self.request_path_on or name not in REQUEST_PATH_ROOTS

    def stamped(self, attributes: Mapping[str, object] | None) -> Mapping[str, object] | None:
        """A kept span's attributes: the given ones, then the process's (which win)."""
        stamped = self.process_attributes.attributes
        if stamped:
            return {**attributes, **stamped} if attributes else dict(stamped)
        return attributes

    def get_description(self) -> str:
        return f"RequestPathSampler(request_path_on={self.request_path_on})"


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
            tracing = current_tracing()
            current.record_exception(exc, attributes={"exception.type": type(exc).__name__,
                                                      "exception.message": str(exc)},
                                     timestamp=tracing.now_ns() if tracing is not None else None)


class Tracing:
    """What a process set up: its provider, its tracer, its processors, and where its files are."""

    def __init__(self, provider: TracerProvider, process_attributes: ProcessAttributes,
                 writer: SpanFileWriter | None, memory: InMemorySpanExporter | None, span_file: Path | None,
                 request_path_on: bool, clock: Callable[[], int] | None = None,
                 span_limits: SpanLimits | None = None) -> None:
        self.provider = provider
        self.tracer = provider.get_tracer(_SCOPE.name)
        span_limits = span_limits or SpanLimits()
        self.process_attributes = process_attributes
        self.writer = writer
        self.memory = memory
        self.span_file = span_file
        self.request_path_on = request_path_on
        self.clock = clock  # nanoseconds for span times; None: the wall clock (OpenTelemetry's own)
        self.span_limits = span_limits
        # stored as given only where no limit could apply: within the count, and no length limit on values
        self._attribute_room = (0 if span_limits.max_span_attribute_length is not None else
                                span_limits.max_span_attributes if span_limits.max_span_attributes is not None
                                else 1 << 30)

    def start_span(self, name: str, context: Context | None = None, attributes: dict[str, object] | None = None,
                   links: list[Link] | None = None, start_time: int | None = None, record_exception: bool = True,
                   set_status_on_exception: bool = True) -> trace.Span:
        """What the tracer's start_span does, with the attributes' checks done once for the whole span rather than value
        by value: when every key is a string and every value a str, int, float or bool (the markers' attributes
        nearly always are), OpenTelemetry's checks would pass them unchanged, so they are stored as they are; anything
        else goes through OpenTelemetry's own checks (`set_attributes`). The span is OpenTelemetry's own and it
        starts (reaching the span processors) only once it holds its attributes."""
        parent = get_current_span(context).get_span_context()
        return self.start_span_under(name, parent if parent.is_valid else None, attributes, links, start_time,
                                     record_exception, set_status_on_exception, context)

    def start_span_under(self, name: str, parent: SpanContext | None, attributes: dict[str, object] | None,
                         links: list[Link] | None, start_time: int | None, record_exception: bool,
                         set_status_on_exception: bool, context: Context | None = None) -> trace.Span:
        """`start_span` for a caller that knows the parent's SpanContext already (a valid one, or None for a new
        trace), as a marker does: the parent is not looked up again through a Context made for it. `context`, when
        the caller has one, is what the span processors and a sampler of another kind are handed."""
        tracer = self.tracer
        id_generator = tracer.id_generator
        sampler = tracer.sampler
        if type(sampler) is RequestPathSampler:  # ours: the same decision, without a SamplingResult per span
            if parent is not None:
                # SpanContext is a tuple (trace_id, span_id, is_remote, trace_flags, ...): a child keeps its trace's
                # id, its sampling decision and whether the id is random
                trace_id = parent[0]
                flags = _FLAGS[parent[3] & _SAMPLED_OR_RANDOM]
            else:
                trace_id = id_generator.generate_trace_id()
                flags = _FLAGS[(TraceFlags.SAMPLED if sampler.sampled(None, name) else 0)
                               | (TraceFlags.RANDOM_TRACE_ID if id_generator.is_trace_id_random() else 0)]
            recording = flags & TraceFlags.SAMPLED
            given = sampler.stamped(attributes) if recording else None
            trace_state = DEFAULT_TRACE_STATE
        else:
            if parent is not None:
                trace_id = parent.trace_id
                random_trace_id = parent.trace_flags.random_trace_id
            else:
                trace_id = id_generator.generate_trace_id()
                random_trace_id = id_generator.is_trace_id_random()
            if context is None and parent is not None:
                context = trace.set_span_in_context(NonRecordingSpan(parent))
            sampling = sampler.should_sample(context, trace_id, name, SpanKind.INTERNAL, attributes, links or ())
            recording = sampling.decision.is_recording()
            flags = _FLAGS[(TraceFlags.SAMPLED if sampling.decision.is_sampled() else 0)
                           | (TraceFlags.RANDOM_TRACE_ID if random_trace_id else 0)]
            given = sampling.attributes
            trace_state = sampling.trace_state or DEFAULT_TRACE_STATE
        # what SpanContext(...) makes, without its check of the ids: a parent's valid trace id or a new one, and a
        # new span id, are valid by construction
        span_context = _span_context((trace_id, id_generator.generate_span_id(), False, flags, trace_state, True))
        if not recording:
            return NonRecordingSpan(span_context)
        # one processor (the span files, or memory in tests) is called directly, not through the provider's loop
        # over its list; the list is read per span, so a processor added later still sees every new span
        processors = tracer.span_processor
        listed = getattr(processors, "_span_processors", None)
        if listed is not None and len(listed) == 1:
            processors = listed[0]
        span = object.__new__(_RecordedSpan)  # the SDK's Span.__new__ only turns away its own class, never ours
        span.__init__(name, span_context, parent, sampler, tracer.resource, processors, links or (), self.span_limits,
                      record_exception, set_status_on_exception)
        if given:
            stored = _as_checked(given) if len(given) <= self._attribute_room else None
            if stored is not None:
                span._attributes._dict.update(stored)  # what the checks would have stored, in the same order
            else:
                span.set_attributes(given)
        # what Span.start does, without its lock: no other thread can see the span yet
        span._start_time = start_time if start_time is not None else time_ns()
        processors.on_start(span, parent_context=context)
        return span

    def now_ns(self) -> int | None:
        """The time to stamp on a span start, end or event: None lets OpenTelemetry read the wall clock."""
        return self.clock() if self.clock is not None else None

    @property
    def dropped(self) -> int:
        return self.writer.dropped if self.writer else 0

    def stats(self) -> dict[str, object]:
        """What the span files gave up, and by which rule (the exit record and the manifest carry it)."""
        return self.writer.stats() if self.writer else {"dropped_spans": 0}

    def shutdown(self) -> None:
        self.provider.shutdown()


def set_span_attributes(span: trace.Span, attributes: Mapping[str, object]) -> None:
    """`span.set_attributes(attributes)` (a describer's answer at a span's end), with OpenTelemetry's checks done
    once for all of them on a span of ours, as `Tracing.start_span` does: plain values under string keys that are
    new to the span, with room for all, are stored as given (what the checks would store, in the same order; a
    key the span has already would move to the end, so that goes through the checks); anything else through them."""
    if type(span) is _RecordedSpan and attributes:
        stored = span._attributes
        plain = stored._dict
        checked = _as_checked(attributes) if stored.max_value_len is None else None
        if checked is not None:
            with span._lock, stored._lock:
                if (span._end_time is None and not stored._immutable and plain.keys().isdisjoint(checked)
                        and (stored.maxlen is None or len(plain) + len(checked) <= stored.maxlen)):
                    plain.update(checked)
                    return
    span.set_attributes(attributes)


def _as_checked(attributes: Mapping[str, object]) -> Mapping[str, object] | None:
    """The attributes as OpenTelemetry's checks would store them (with no length limit on values), when those checks
    could only pass them through or make a list a tuple: string keys, none empty, whose values are str, int, float or
    bool, or a list or tuple of those. None for anything else, which goes through the checks themselves."""
    if not _STR.issuperset(map(type, attributes)) or "" in attributes:
        return None
    if _PLAIN.issuperset(map(type, attributes.values())):
        return attributes
    checked: dict[str, object] = {}
    for key, value in attributes.items():
        kind = type(value)
        if kind in _PLAIN:
            checked[key] = value
        elif kind in _SEQUENCES and _PLAIN.issuperset(map(type, value)):
            checked[key] = tuple(value)  # a partition list on a fetch or a produce: the tuple the checks make
        else:
            return None
    return checked


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


def setup_tracing(instance_id: str, run_id: str, mode: str = "zk", run_dir: Path | None = None,
                  clock: Callable[[], int] | None = None) -> Tracing:
    """Install this process's TracerProvider. With no run_dir, spans are kept in memory (tests)."""
    global _current
    _current = _build(instance_id, run_id, mode, run_dir, clock)
    _instrument_once()
    return _current


def node_tracing(instance_id: str, run_id: str, mode: str, run_dir: Path | None = None,
                 clock: Callable[[], int] | None = None) -> Tracing:
    """A Tracing for one of several nodes run in this process, current only inside `using(it)`; its spans go to
    `<run_dir>/<instance_id>.jsonl` under that instance's resource, timed by `clock` when given."""
    tracing = _build(instance_id, run_id, mode, run_dir, clock)
    _instrument_once()
    return tracing


def _build(instance_id: str, run_id: str, mode: str, run_dir: Path | None,
           clock: Callable[[], int] | None) -> Tracing:
    request_path_on = os.environ.get(TRACING_ENV, "on").lower() != "off"
    process_attributes = ProcessAttributes()
    span_limits = SpanLimits(max_events=SPAN_EVENT_LIMIT)
    provider = TracerProvider(resource=resource_for(instance_id, run_id, mode),
                              sampler=RequestPathSampler(request_path_on, process_attributes), span_limits=span_limits)
    writer = memory = span_file = None
    if run_dir is None:
        memory = InMemorySpanExporter()
        provider.add_span_processor(SimpleSpanProcessor(memory))
    else:
        run_dir.mkdir(parents=True, exist_ok=True)
        span_file = run_dir / f"{instance_id}.jsonl"
        writer = SpanFileWriter(run_dir, instance_id, TracePolicy.from_environment())
        provider.add_span_processor(writer)
    return Tracing(provider, process_attributes, writer, memory, span_file, request_path_on, clock, span_limits)


def _instrument_once() -> None:
    from kafka_edu.tracing.instrument import instrument  # it imports the port, which imports this module
    instrument()
    root_logger = logging.getLogger()
    if _exception_handler not in root_logger.handlers:
        root_logger.addHandler(_exception_handler)


_using: ContextVar[Tracing | None] = ContextVar("kafka_edu_tracing", default=None)


@contextmanager
def using(tracing: Tracing | None) -> Iterator[Tracing | None]:
    """Make `tracing` the current one for the code inside (one node's turn in a simulation); None: the process's."""
    token = _using.set(tracing)
    try:
        yield tracing
    finally:
        _using.reset(token)


def current_tracing() -> Tracing | None:
    chosen = _using.get()
    return chosen if chosen is not None else _current


def set_process_attribute(key: str, value: object) -> None:
    """Attach an attribute to every span this process starts from now on."""
    tracing = current_tracing()
    if tracing is not None:
        tracing.process_attributes.attributes[key] = value
