"""`step`, `span`, `event` and `note`: the markers ported code carries, and the only way it reaches OpenTelemetry.

    @step("CT.failover.01")                 # the step is the whole method
    def read_controller_epoch_from_zookeeper(self) -> None: ...

    with step("LC.startup.04", self):       # the step is a block inside a method
        self.zk_utils = self.init_zk()

    with step("CT.broker", self, broker_ids=cur_broker_ids):   # a value only a local holds is handed over
        ...
        note(new_broker_ids=new_broker_ids)  # one the block computes, for the span's end

A marker names a row of the table in `steps.py`: the span's name, Kafka origin and FIDELITY id come from there. Its
domain attributes, links and (on the request path) its parent come from the describers in `attributes.py`. A
describer reads a *scope*: for a decorated method, its arguments by name and its `result`; for a block or an event,
the object handed first (as `self`) and the values handed by name. Tracing never reads a method's local variables:
renaming a local in Kafka-shaped code cannot change a span. A marker costs one check when the process does not
trace, and nothing more for a request whose trace is not sampled.
"""

from __future__ import annotations

import functools
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import CodeType, TracebackType
from typing import Any, TypeVar

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.context.contextvars_context import ContextVarsRuntimeContext
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import Link, Span, SpanContext, Status, StatusCode, TraceFlags
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from kafka_edu.tracing import attributes, breakpoints, provider
from kafka_edu.tracing.requests import (
    UNSAMPLED,
    remote_span_context,  # noqa: F401  (re-exported)
)
from kafka_edu.tracing.steps import EVENTS, KAFKA_3_9, REQUEST_PATH_ROOTS, STEPS, SYMBOLS, Symbol

F = TypeVar("F", bound=Callable[..., Any])
_REPO_ROOT = Path(__file__).resolve().parents[2]
_ROOT_CONTEXT = trace.set_span_in_context(trace.INVALID_SPAN)
_UNSAMPLED_CONTEXT = trace.set_span_in_context(UNSAMPLED)
_propagator = TraceContextTextMapPropagator()

# OpenTelemetry's current context lives in a ContextVar (its default runtime context). A marker sets and resets it
# once a span: straight on the ContextVar, as the API's attach, set_span_in_context and detach would, without the
# eight calls they take between them. Another runtime context (OTEL_PYTHON_CONTEXT) is used through the API.
_RUNTIME_CONTEXT = otel_context._RUNTIME_CONTEXT
_CURRENT = _RUNTIME_CONTEXT._current_context if type(_RUNTIME_CONTEXT) is ContextVarsRuntimeContext else None
_SPAN_KEY = trace.propagation._SPAN_KEY
_context_log = logging.getLogger("opentelemetry.context")


def _attach_span(span_: Span) -> object:
    """`attach(set_span_in_context(span_))`: the current context with `span_` as its span, made current."""
    if _CURRENT is None:
        return otel_context.attach(trace.set_span_in_context(span_))
    values = _CURRENT.get().copy()
    values[_SPAN_KEY] = span_
    return _CURRENT.set(Context(values))


def _attach(context: Context) -> object:
    return _CURRENT.set(context) if _CURRENT is not None else otel_context.attach(context)


def _current_span() -> Span:
    """`trace.get_current_span()`: the current context's span, or INVALID_SPAN."""
    if _CURRENT is None:
        return trace.get_current_span()
    span_ = _CURRENT.get().get(_SPAN_KEY)
    if span_ is None or (type(span_) is not provider._RecordedSpan and not isinstance(span_, Span)):
        return trace.INVALID_SPAN
    return span_


def _detach(token: object) -> None:
    """`detach(token)`: a token that cannot be reset is logged, as the API logs it, never raised."""
    if _CURRENT is None:
        otel_context.detach(token)
        return
    try:
        _CURRENT.reset(token)
    except Exception:
        _context_log.exception("Failed to detach context")


class UnknownSpanName(KeyError):
    """A marker named a span, step or event that the table in steps.py does not have."""


@functools.cache
def _in_3_9_tree(filename: str) -> bool:
    return f"{os.sep}kafka_edu{os.sep}v3_9{os.sep}" in filename


def _static(m: _Marker, code: CodeType) -> dict[str, Any]:
    return m.static_3_9 if _in_3_9_tree(code.co_filename) else m.static


def _base(m: _Marker, code: CodeType, line: int) -> dict[str, Any]:
    """The attributes every span of this marker at this place starts with (its row's and `code.*`), built once."""
    key = (id(code), line)  # a code object hashes its whole bytecode and constants: its id, checked below
    known = m.bases.get(key)
    if known is not None and known[0] is code:
        return known[1]
    base = dict(_static(m, code))
    base["code.function.name"] = code.co_qualname
    base["code.file.path"] = _repo_relative(code.co_filename)
    base["code.line.number"] = line
    m.bases[key] = (code, base)
    return base


@functools.cache  # resolving a path stats the file: once per source file, not once per span
def _repo_relative(filename: str) -> str:
    path = Path(filename).resolve()
    try:
        return str(path.relative_to(_REPO_ROOT))
    except ValueError:
        return str(path)


class _Marker:
    """What never changes between two spans of one marker: the table row, its describers and static attributes."""

    __slots__ = ("name", "step_id", "root", "request_root", "static", "static_3_9", "start", "end", "parent", "links",
                 "when", "retro", "bases")

    def __init__(self, name: str, step_id: str | None, root: bool) -> None:
        symbol: Symbol = SYMBOLS.get(name) or _unknown(f"span {name!r}")
        self.name = name
        self.step_id = step_id or symbol.step
        self.request_root = name in REQUEST_PATH_ROOTS
        self.root = root or self.request_root
        # A span name two versions share (NW.acceptor.1 and RQ.net.3 are both Acceptor.accept): the row says which
        # Kafka it ports.
        row = STEPS.get(self.step_id) if self.step_id else None
        origin = row if row is not None and row.event is None and row.span_name == name else symbol
        self.static = {"kafka.origin.file": origin.origin_file, "kafka.origin.symbol": origin.origin_symbol,
                       "kafka.origin.version": origin.version}
        if self.step_id:
            self.static["kafka.step"] = self.step_id
        # A row both versions perform (TX.init, CL.clean, NW.processor.*) names 1.0.2's file, which 3.9 keeps at the
        # same path (tests/unit/test_tracing_origin_3_9.py checks it against Kafka's tree): a span of the 3.9 tree
        # says 3.9, so a learner is never told 1.0.2 ran where 3.9 did.
        self.static_3_9 = ({**self.static, "kafka.origin.version": KAFKA_3_9}
                           if self.static["kafka.origin.version"] != KAFKA_3_9 else self.static)
        describer = attributes.describer_for(self.step_id, name)
        self.start, self.end, self.parent, self.links, self.when, self.retro = (
            describer.start, describer.end, describer.parent, describer.links, describer.when, describer.retro)
        self.bases: dict[tuple[int, int], tuple[CodeType, dict[str, Any]]] = {}  # by the marker's code and line


def _unknown(what: str) -> Any:
    raise UnknownSpanName(f"{what} is not in the table (kafka_edu/tracing/steps.py): add its row there first")


@functools.cache
def _marker(name: str, step_id: str | None, root: bool) -> _Marker:
    return _Marker(name, step_id, root)


def _step_span_name(step_id: str) -> str:
    row = STEPS.get(step_id) or _unknown(f"step {step_id!r}")
    if row.event is not None:
        _unknown(f"step {step_id!r} is an event ({row.event}), use event();")
    return row.span_name


class _Open:
    """One span in progress: what `_finish` needs to end it (and the clock its times are read from)."""

    __slots__ = ("span", "token", "tracing")

    def __init__(self, span_: Span | None, token: object, tracing: provider.Tracing | None = None) -> None:
        self.span = span_
        self.token = token
        self.tracing = tracing


def _begin(m: _Marker, code: CodeType, line: int, scope: Callable[[], Mapping[str, Any]],
           base: dict[str, Any] | None = None) -> _Open | None:
    """Start the marker's span, or return None where nothing is to be traced. `base`: the marker's `_base` at this
    place, when the caller has it already (a decorated method's, made once)."""
    tracing = provider.current_tracing()
    if tracing is None:
        return None
    if m.request_root and not tracing.request_path_on:  # sampled away: the steps below it must know, and skip too
        return _Open(None, _attach(_UNSAMPLED_CONTEXT))
    if m.when is not None and not m.when(scope()):
        return None
    if m.parent is not None:  # a request-path step: its parent is the request's root, found from its scope
        parent_span = m.parent(scope())
        if parent_span is None:
            return None
        parent: SpanContext | None = parent_span.get_span_context()
        if not parent.trace_flags & TraceFlags.SAMPLED:  # an unsampled request: its steps trace nothing
            return _Open(None, _attach_span(parent_span))
        if not parent.is_valid:
            parent = None  # NEW_TRACE: a trace of its own
    elif m.root:
        parent = None
    else:
        parent = _current_span().get_span_context()
        if not parent.is_valid:
            parent = None
        elif not parent.trace_flags & TraceFlags.SAMPLED:
            return None  # inside an unsampled request
    attrs = dict(base if base is not None else _base(m, code, line))
    attrs["thread.name"] = threading.current_thread().name
    if m.start is not None:
        attrs.update(_described(m.start, scope))
    step_id = attrs.get("kafka.step")
    if breakpoints.ACTIVE and step_id:  # blocks before the span opens: the span shows the step's own time
        breakpoints.on_step(step_id, m.name)
    links = [Link(c) for c in _described(m.links, scope) or ()] if m.links is not None else None
    clock = tracing.clock  # None: the wall clock, read by the span itself
    span_ = tracing.start_span_under(m.name, parent, attrs, links, clock() if clock is not None else None, False, False)
    return _Open(span_, _attach_span(span_), tracing)


def _finish(m: _Marker, opened: _Open, exc: BaseException | None, scope: Callable[[], Mapping[str, Any]]) -> None:
    span_ = opened.span
    if span_ is None:
        _detach(opened.token)
        return
    clock = opened.tracing.clock if opened.tracing is not None else None  # None: the wall clock, read by the span
    if exc is not None:
        # Python exceptions here carry Kafka's class names (InconsistentBrokerIdException, ...).
        span_.record_exception(exc, attributes={"exception.type": type(exc).__name__},
                               timestamp=clock() if clock is not None else None)
        span_.set_status(Status(StatusCode.ERROR, f"{type(exc).__name__}: {exc}"))
    if m.end is not None:
        described = _described(m.end, scope)
        if described:
            provider.set_span_attributes(span_, described)
    _detach(opened.token)  # after the describers: they may name the span as the current one
    span_.end(end_time=clock() if clock is not None else None)


def _described(describer: Callable[[Mapping[str, Any]], Any], scope: Callable[[], Mapping[str, Any]]) -> Any:
    """A describer's answer; a describer that fails costs the span its attributes, never the broker its step."""
    try:
        return describer(scope())
    except Exception as e:
        # Under test a describer that no longer matches the code it reads fails loudly; a failed read of the world
        # (ZooKeeper away, a file gone) only ever costs the attributes.
        if attributes.STRICT and isinstance(e, (KeyError, AttributeError, TypeError, NameError)):
            raise
        return {"kafka.describe.error": f"{type(e).__name__}: {e}"}


_NO_OWNER = object()

class _Blocks(threading.local):
    """The `with` markers open on this thread, innermost last: each one's scope, or None where no span opened (so a
    `note` in a block that traces nothing goes nowhere, never into the block around it). A thread of its own: a
    context copied to another thread does not carry it."""

    def __init__(self) -> None:
        self.scopes: list[dict[str, Any] | None] = []


_blocks = _Blocks()


def _scope_of(owner: Any, values: dict[str, Any]) -> dict[str, Any]:
    if owner is not _NO_OWNER:
        values["self"] = owner
    return values


def note(**values: Any) -> None:
    """Hand the innermost open `with` marker values its end describers read: what the block computed in locals."""
    scopes = _blocks.scopes
    if scopes and scopes[-1] is not None:
        scopes[-1].update(values)


class span:
    """A span for a Kafka symbol in the table. `with span(name):` around a block, or `@span(name)` on a method."""

    def __init__(self, name: str, owner: Any = _NO_OWNER, /, *, root: bool = False, **values: Any) -> None:
        self._m = _marker(name, None, root)
        self._open: _Open | None = None
        self._scope = _scope_of(owner, values)

    def __enter__(self) -> Span:
        frame = sys._getframe(1)  # where the block is, for `code.*`: its code object and line, never its locals
        scope = self._scope
        self._open = _begin(self._m, frame.f_code, frame.f_lineno, lambda: scope)
        traced = self._open is not None and self._open.span is not None
        _blocks.scopes.append(scope if traced else None)
        return self._open.span if traced else trace.INVALID_SPAN

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        _blocks.scopes.pop()
        if self._open is not None:
            scope = self._scope
            _finish(self._m, self._open, exc, lambda: scope)

    def __call__(self, func: F) -> F:
        return _decorate(self._m, func)


class step(span):
    """The span of one FIDELITY row, carrying `kafka.step`.

    On a method of a family row (`CT.failover.04`, `CT.select`), the span is named after the method's Kafka symbol:
    the class name and the method name in camelCase, which must be one of the row's members in the table.
    """

    def __init__(self, step_id: str, owner: Any = _NO_OWNER, /, *, root: bool = False, **values: Any) -> None:
        row = STEPS.get(step_id) or _unknown(f"step {step_id!r}")
        self._step_id = step_id
        self._family = row.is_family
        self._root = root
        self._open = None
        self._scope = _scope_of(owner, values)
        if not self._family:
            self._m = _marker(_step_span_name(step_id), step_id, root)

    def __call__(self, func: F) -> F:
        if self._family:
            self._m = _marker(kafka_symbol(func), self._step_id, self._root)
        return _decorate(self._m, func)


def kafka_symbol(func: Callable[..., Any]) -> str:
    """`KafkaController.register_topic_change_listener` -> `KafkaController.registerTopicChangeListener`."""
    owner, _, method = func.__qualname__.rpartition(".")
    head, *rest = method.split("_")
    return f"{owner.rsplit('.', 1)[-1]}.{head}{''.join(word.title() for word in rest)}"


def _decorate(m: _Marker, func: F) -> F:
    code = func.__code__
    names = code.co_varnames[:code.co_argcount]
    line = code.co_firstlineno

    # A method of `self` alone, such as a processor's turn of its loop (`Processor.poll`,
    # `process_completed_sends`), is asked many times a request and most times has nothing to show: its scope is
    # one small dict made at once, not arguments bound through closures.
    self_only = names == ("self",)
    base = _base(m, code, line)  # this method's `code.*` and row attributes, the same for every call
    # Its `when`, if it has one, is asked first, before any scope is made: a turn with nothing to show costs a call.
    # The answer is the one `_begin` would act on (not traced -> the method alone); a request root whose requests
    # are sampled away goes the whole way, so that the steps under it learn it.
    asks_first = self_only and m.when is not None

    def scope_of(args: tuple, kwargs: dict, result: Any = None) -> Callable[[], Mapping[str, Any]]:
        if self_only and len(args) == 1 and not kwargs:
            fixed = {"self": args[0], "result": result}
            return lambda: fixed
        bound: dict[str, Any] | None = None

        def bind() -> Mapping[str, Any]:  # bound at the first describer that reads it, once for all of them
            nonlocal bound
            if bound is None:
                bound = dict(zip(names, args, strict=False))
                bound.update(kwargs)
                bound["result"] = result
            return bound
        return bind

    if m.retro:
        @functools.wraps(func)
        def retro_wrapper(*args: Any, **kwargs: Any) -> Any:
            tracing = provider.current_tracing()
            if tracing is None or (m.request_root and not tracing.request_path_on):
                return func(*args, **kwargs)
            started = tracing.now_ns() or time.time_ns()
            result = func(*args, **kwargs)
            _retro_span(tracing, m, base, started, scope_of(args, kwargs, result))
            return result
        return retro_wrapper  # type: ignore[return-value]

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if asks_first and len(args) == 1 and not kwargs:
            tracing = provider.current_tracing()
            if (tracing is not None and (tracing.request_path_on or not m.request_root)
                    and not m.when({"self": args[0]})):
                return func(*args)
        scope = scope_of(args, kwargs)  # the arguments by name, bound once for every describer of this call
        opened = _begin(m, code, line, scope, base)
        if opened is None:
            return func(*args, **kwargs)
        try:
            result = func(*args, **kwargs)
        except BaseException as e:
            _finish(m, opened, e, scope)
            raise
        if m.end is not None and opened.span is not None:
            scope()["result"] = result  # read by the end describers only, after every start describer ran
        _finish(m, opened, None, scope)
        return result

    return wrapper  # type: ignore[return-value]


def _retro_span(tracing: provider.Tracing, m: _Marker, base: dict[str, Any], started: int,
                scope: Callable[[], Mapping[str, Any]]) -> None:
    """A span recorded after the call, only when its describer says the call did work (a poll that found data)."""
    described = _described(m.end, scope)
    if described is None:
        return
    attrs = dict(base)
    attrs["thread.name"] = threading.current_thread().name
    attrs.update(described)
    links = [Link(c) for c in _described(m.links, scope) or ()] if m.links is not None else None
    span_ = tracing.start_span(m.name, context=_ROOT_CONTEXT if m.root else None, attributes=attrs,
                                      links=links, start_time=started)
    span_.end(end_time=tracing.now_ns())


def event(name_or_step: str, owner: Any = _NO_OWNER, /, **values: Any) -> None:
    """A span event on the current span: a state change, or an event-type FIDELITY row (`event("CT.psm", self, ...)`).

    Its attributes come from the event's describer in attributes.py, reading the object and values handed to it. A
    FIDELITY event whose caller runs in no recorded span (a poll that had nothing else worth a span) gets a short span
    of its own, named after its row, when the table has that name: a step is never lost with a quiet caller.
    """
    scope = _scope_of(owner, values)
    current = trace.get_current_span()
    if not current.is_recording():
        row = STEPS.get(name_or_step)
        if row is not None and row.event and row.span_name in SYMBOLS:
            frame = sys._getframe(1)  # where the event is, for `code.*`: never its locals
            marker = _marker(row.span_name, None, True)
            opened = _begin(marker, frame.f_code, frame.f_lineno, lambda: scope)
            if opened is not None and opened.span is not None:
                try:
                    _add_event(opened.span, name_or_step, scope)
                finally:
                    _finish(marker, opened, None, lambda: scope)
            elif opened is not None:
                _detach(opened.token)
        return
    _add_event(current, name_or_step, scope)


def _add_event(current: Span, name_or_step: str, scope: Mapping[str, Any]) -> None:
    row = STEPS.get(name_or_step)
    name = row.event if row is not None and row.event else name_or_step
    if name not in EVENTS:
        _unknown(f"event {name_or_step!r}")
    attrs: dict[str, Any] = {}
    describer = attributes.event_describer(name)
    if describer is not None:
        attrs.update(_described(describer, lambda: scope) or {})
    if EVENTS[name]:
        attrs["kafka.step"] = EVENTS[name]
    tracing = provider.current_tracing()
    current.add_event(name, attrs, timestamp=tracing.now_ns() if tracing is not None else None)


# -- context across threads and processes (used by the tracing package and the wire codec) ------------------------

def current_span_context() -> SpanContext:
    return trace.get_current_span().get_span_context()


def current_traceparent() -> str | None:
    """The W3C traceparent of the current span, to carry in an outgoing request header; None when not tracing.

    The span may have ended: work done for it afterwards, in a context copied while it ran (a send thread batching
    what several callers queued), still belongs to its trace."""
    current = trace.get_current_span()
    if not current.is_recording() and (not isinstance(current, ReadableSpan) or current.end_time is None
                                       or not current.get_span_context().trace_flags.sampled):
        return None
    carrier: dict[str, str] = {}
    _propagator.inject(carrier)
    return carrier.get("traceparent")
