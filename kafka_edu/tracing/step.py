"""`step`, `span` and `event`: the markers ported code carries, and the only way it reaches OpenTelemetry.

    @step("CT.failover.01")                 # the step is the whole method
    def read_controller_epoch_from_zookeeper(self) -> None: ...

    with step("LC.startup.04"):             # the step is a block inside a method
        self.zk_utils = self.init_zk()

A marker names a row of the table in `steps.py`: the span's name, Kafka origin and FIDELITY id come from there. Its
domain attributes, links and (on the request path) its parent come from the describers in `attributes.py`, which
read the method's arguments and result, or the block's local variables, so nothing about tracing has to stand
between Kafka's statements. A marker costs one check when the process does not trace, and nothing more for a
request whose trace is not sampled.
"""

from __future__ import annotations

import functools
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import CodeType, FrameType, TracebackType
from typing import Any, TypeVar

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Link, Span, SpanContext, Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from kafka_edu.tracing import attributes, breakpoints, provider
from kafka_edu.tracing.requests import (
    UNSAMPLED,
    remote_span_context,  # noqa: F401  (re-exported)
)
from kafka_edu.tracing.steps import EVENTS, REQUEST_PATH_ROOTS, STEPS, SYMBOLS, Symbol

F = TypeVar("F", bound=Callable[..., Any])
_REPO_ROOT = Path(__file__).resolve().parents[2]
_ROOT_CONTEXT = trace.set_span_in_context(trace.INVALID_SPAN)
_UNSAMPLED_CONTEXT = trace.set_span_in_context(UNSAMPLED)
_propagator = TraceContextTextMapPropagator()


class UnknownSpanName(KeyError):
    """A marker named a span, step or event that the table in steps.py does not have."""


@functools.cache  # resolving a path stats the file: once per source file, not once per span
def _repo_relative(filename: str) -> str:
    path = Path(filename).resolve()
    try:
        return str(path.relative_to(_REPO_ROOT))
    except ValueError:
        return str(path)


class _Marker:
    """What never changes between two spans of one marker: the table row, its describers and static attributes."""

    __slots__ = ("name", "step_id", "root", "request_root", "static", "start", "end", "parent", "links", "when",
                 "retro")

    def __init__(self, name: str, step_id: str | None, root: bool) -> None:
        symbol: Symbol = SYMBOLS.get(name) or _unknown(f"span {name!r}")
        self.name = name
        self.step_id = step_id or symbol.step
        self.request_root = name in REQUEST_PATH_ROOTS
        self.root = root or self.request_root
        self.static = {"kafka.origin.file": symbol.origin_file, "kafka.origin.symbol": symbol.origin_symbol,
                       "kafka.origin.version": symbol.version}
        if self.step_id:
            self.static["kafka.step"] = self.step_id
        describer = attributes.describer_for(self.step_id, name)
        self.start, self.end, self.parent, self.links, self.when, self.retro = (
            describer.start, describer.end, describer.parent, describer.links, describer.when, describer.retro)


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
    """One span in progress: what `_finish` needs to end it."""

    __slots__ = ("span", "token")

    def __init__(self, span_: Span | None, token: object) -> None:
        self.span = span_
        self.token = token


def _begin(m: _Marker, code: CodeType, line: int, scope: Callable[[], Mapping[str, Any]],
           legacy: tuple[dict[str, Any] | None, list[SpanContext] | None] | None = None) -> _Open | None:
    """Start the marker's span, or return None where nothing is to be traced."""
    tracing = provider.current_tracing()
    if tracing is None:
        return None
    if m.request_root and not tracing.request_path_on:  # sampled away: the steps below it must know, and skip too
        return _Open(None, otel_context.attach(_UNSAMPLED_CONTEXT))
    if m.when is not None and not m.when(scope()):
        return None
    context = None
    if m.parent is not None:  # a request-path step: its parent is the request's root, found from its scope
        parent = m.parent(scope())
        if parent is None:
            return None
        if not parent.get_span_context().trace_flags.sampled:  # an unsampled request: its steps trace nothing
            return _Open(None, otel_context.attach(trace.set_span_in_context(parent)))
        context = trace.set_span_in_context(parent)
    elif m.root:
        context = _ROOT_CONTEXT
    else:
        current = trace.get_current_span().get_span_context()
        if current.is_valid and not current.trace_flags.sampled:
            return None  # inside an unsampled request
    attrs = dict(m.static)
    attrs["code.function.name"] = code.co_qualname
    attrs["code.file.path"] = _repo_relative(code.co_filename)
    attrs["code.line.number"] = line
    attrs["thread.name"] = threading.current_thread().name
    if m.start is not None:
        attrs.update(_described(m.start, scope))
    if legacy is not None and legacy[0]:
        attrs.update(legacy[0])
    step_id = attrs.get("kafka.step")
    if breakpoints.ACTIVE and step_id:  # blocks before the span opens: the span shows the step's own time
        breakpoints.on_step(step_id, m.name)
    links = [Link(c) for c in _described(m.links, scope) or ()] if m.links is not None else None
    if legacy is not None and legacy[1]:
        links = (links or []) + [Link(c) for c in legacy[1]]
    span_ = tracing.tracer.start_span(m.name, context=context, attributes=attrs, links=links,
                                      record_exception=False, set_status_on_exception=False)
    return _Open(span_, otel_context.attach(trace.set_span_in_context(span_)))


def _finish(m: _Marker, opened: _Open, exc: BaseException | None, scope: Callable[[], Mapping[str, Any]]) -> None:
    span_ = opened.span
    if span_ is None:
        otel_context.detach(opened.token)
        return
    if exc is not None:
        # Python exceptions here carry Kafka's class names (InconsistentBrokerIdException, ...).
        span_.record_exception(exc, attributes={"exception.type": type(exc).__name__})
        span_.set_status(Status(StatusCode.ERROR, f"{type(exc).__name__}: {exc}"))
    if m.end is not None:
        described = _described(m.end, scope)
        if described:
            span_.set_attributes(described)
    otel_context.detach(opened.token)  # after the describers: they may name the span as the current one
    span_.end()


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


def _frame_scope(frame: FrameType) -> Callable[[], Mapping[str, Any]]:
    return lambda: frame.f_locals


class span:
    """A span for a Kafka symbol in the table. `with span(name):` around a block, or `@span(name)` on a method."""

    def __init__(self, name: str, attributes: dict[str, Any] | None = None, *, root: bool = False,
                 links: list[SpanContext] | None = None, _step_id: str | None = None, **_legacy: Any) -> None:
        self._m = _marker(name, _step_id, root)
        self._open: _Open | None = None
        self._frame: FrameType | None = None
        self._legacy = (attributes, links) if attributes or links else None  # being moved into attributes.py

    def __enter__(self) -> Span:
        frame = self._frame = sys._getframe(1)
        self._open = _begin(self._m, frame.f_code, frame.f_lineno, _frame_scope(frame), self._legacy)
        return self._open.span if self._open is not None and self._open.span is not None else trace.INVALID_SPAN

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._open is not None:
            _finish(self._m, self._open, exc, _frame_scope(self._frame))
        self._frame = None

    def __call__(self, func: F) -> F:
        return _decorate(self._m, func, self._legacy)


class step(span):
    """The span of one FIDELITY row, carrying `kafka.step`.

    On a method of a family row (`CT.failover.04`, `CT.select`), the span is named after the method's Kafka symbol:
    the class name and the method name in camelCase, which must be one of the row's members in the table.
    """

    def __init__(self, step_id: str, attributes: dict[str, Any] | None = None, *, root: bool = False,
                 links: list[SpanContext] | None = None, **_legacy: Any) -> None:
        row = STEPS.get(step_id) or _unknown(f"step {step_id!r}")
        self._step_id = step_id
        self._family = row.is_family
        self._root = root
        self._open = None
        self._frame = None
        self._legacy = (attributes, links) if attributes or links else None
        if not self._family:
            self._m = _marker(_step_span_name(step_id), step_id, root)

    def __call__(self, func: F) -> F:
        if self._family:
            self._m = _marker(kafka_symbol(func), self._step_id, self._root)
        return _decorate(self._m, func, self._legacy)


def kafka_symbol(func: Callable[..., Any]) -> str:
    """`KafkaController.register_topic_change_listener` -> `KafkaController.registerTopicChangeListener`."""
    owner, _, method = func.__qualname__.rpartition(".")
    head, *rest = method.split("_")
    return f"{owner.rsplit('.', 1)[-1]}.{head}{''.join(word.title() for word in rest)}"


def _decorate(m: _Marker, func: F, legacy: tuple | None = None) -> F:
    code = func.__code__
    names = code.co_varnames[:code.co_argcount]
    line = code.co_firstlineno

    def scope_of(args: tuple, kwargs: dict, result: Any = None) -> Callable[[], Mapping[str, Any]]:
        def bind() -> Mapping[str, Any]:
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
            started = time.time_ns()
            result = func(*args, **kwargs)
            _retro_span(tracing, m, code, line, started, scope_of(args, kwargs, result))
            return result
        return retro_wrapper  # type: ignore[return-value]

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        opened = _begin(m, code, line, scope_of(args, kwargs), legacy)
        if opened is None:
            return func(*args, **kwargs)
        try:
            result = func(*args, **kwargs)
        except BaseException as e:
            _finish(m, opened, e, scope_of(args, kwargs))
            raise
        _finish(m, opened, None, scope_of(args, kwargs, result))
        return result

    return wrapper  # type: ignore[return-value]


def _retro_span(tracing: provider.Tracing, m: _Marker, code: CodeType, line: int, started: int,
                scope: Callable[[], Mapping[str, Any]]) -> None:
    """A span recorded after the call, only when its describer says the call did work (a poll that found data)."""
    described = _described(m.end, scope)
    if described is None:
        return
    attrs = dict(m.static)
    attrs.update({"code.function.name": code.co_qualname, "code.file.path": _repo_relative(code.co_filename),
                  "code.line.number": line, "thread.name": threading.current_thread().name})
    attrs.update(described)
    links = [Link(c) for c in _described(m.links, scope) or ()] if m.links is not None else None
    span_ = tracing.tracer.start_span(m.name, context=_ROOT_CONTEXT if m.root else None, attributes=attrs,
                                      links=links, start_time=started)
    span_.end()


def event(name_or_step: str | None, legacy_name: str | None = None, legacy_attrs: dict | None = None) -> None:
    """A span event on the current span: a state change, or an event-type FIDELITY row (`event("CT.psm")`).

    Its attributes come from the event's describer in attributes.py, reading the caller's local variables. A FIDELITY
    event whose caller runs in no recorded span (a poll that had nothing else worth a span) gets a short span of its
    own, named after its row, when the table has that name: a step is never lost with a quiet caller.
    """
    frame = sys._getframe(1)
    current = trace.get_current_span()
    if not current.is_recording():
        row = STEPS.get(name_or_step) if name_or_step else None
        if legacy_name is None and row is not None and row.event and row.span_name in SYMBOLS:
            marker = _marker(row.span_name, None, True)
            opened = _begin(marker, frame.f_code, frame.f_lineno, _frame_scope(frame))
            if opened is not None and opened.span is not None:
                try:
                    _add_event(opened.span, name_or_step, None, None, frame)
                finally:
                    _finish(marker, opened, None, _frame_scope(frame))
            elif opened is not None:
                otel_context.detach(opened.token)
        return
    _add_event(current, name_or_step, legacy_name, legacy_attrs, frame)


def _add_event(current: Span, name_or_step: str | None, legacy_name: str | None, legacy_attrs: dict | None,
               frame: FrameType) -> None:
    if legacy_name is not None:  # event(step_id, name, attrs): being moved into attributes.py
        if legacy_name not in EVENTS:
            _unknown(f"event {legacy_name!r}")
        step_attr = {"kafka.step": name_or_step} if name_or_step else {}
        current.add_event(legacy_name, {**(legacy_attrs or {}), **step_attr})
        return
    row = STEPS.get(name_or_step)
    name = row.event if row is not None and row.event else name_or_step
    if name not in EVENTS:
        _unknown(f"event {name_or_step!r}")
    attrs: dict[str, Any] = {}
    describer = attributes.event_describer(name)
    if describer is not None:
        attrs.update(_described(describer, _frame_scope(frame)) or {})
    if EVENTS[name]:
        attrs["kafka.step"] = EVENTS[name]
    current.add_event(name, attrs)


# -- context across threads and processes (used by the tracing package and the wire codec) ------------------------

def current_span_context() -> SpanContext:
    return trace.get_current_span().get_span_context()


def current_traceparent() -> str | None:
    """The W3C traceparent of the current span, to carry in an outgoing request header; None when not tracing."""
    if not trace.get_current_span().is_recording():
        return None
    carrier: dict[str, str] = {}
    _propagator.inject(carrier)
    return carrier.get("traceparent")




# -- legacy helpers, being replaced by describers in attributes.py --------------------------------------------------

def set_attributes(attrs: dict[str, Any]) -> None:
    trace.get_current_span().set_attributes(attrs)


def add_event(span_: Span | None, name: str, attrs: dict[str, Any] | None = None) -> None:
    if span_ is not None:
        span_.add_event(name, attrs or {})


class activate:
    def __init__(self, span_: Span | None) -> None:
        self.span = span_
        self._token = None

    def __enter__(self) -> Span | None:
        if self.span is not None:
            self._token = otel_context.attach(trace.set_span_in_context(self.span))
        return self.span

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            otel_context.detach(self._token)


def open_span(name: str, attrs: dict[str, Any] | None = None, *, step_id: str | None = None,
              links: list[SpanContext] | None = None, start_time_ns: int | None = None, **_legacy: Any) -> Span:
    tracing = provider.current_tracing()
    if tracing is None:
        return trace.INVALID_SPAN
    m = _marker(_step_span_name(step_id) if step_id else name, step_id, True)
    frame = sys._getframe(1)
    a = dict(m.static)
    a.update({"code.function.name": frame.f_code.co_qualname,
              "code.file.path": _repo_relative(frame.f_code.co_filename), "code.line.number": frame.f_lineno,
              "thread.name": threading.current_thread().name, **(attrs or {})})
    return tracing.tracer.start_span(m.name, context=_ROOT_CONTEXT, attributes=a,
                                     links=[Link(c) for c in links or []], start_time=start_time_ns)


def end_span(span_: Span | None, attrs: dict[str, Any] | None = None, end_time_ns: int | None = None) -> None:
    if span_ is not None:
        if attrs:
            span_.set_attributes(attrs)
        span_.end(end_time=end_time_ns)
