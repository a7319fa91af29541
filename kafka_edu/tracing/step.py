"""`step` and `span`: the only way ported code talks to OpenTelemetry.

    with step("LC.startup.04"):
        self.zk_utils = self.init_zk()

opens a span named after the FIDELITY row, tagged with its id, its Kafka origin and the Python lines that run it.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import CodeType, TracebackType
from typing import Any, TypeVar

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Link, Span, SpanContext, Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from kafka_edu.tracing import breakpoints, provider
from kafka_edu.tracing.steps import KAFKA_1_0_2, STEPS, SYMBOLS

F = TypeVar("F", bound=Callable[..., Any])
_REPO_ROOT = Path(__file__).resolve().parents[2]
_noop_tracer = trace.NoOpTracer()


def _tracer() -> trace.Tracer:
    current = provider.current_tracing()
    return current.provider.get_tracer("kafka_edu") if current else _noop_tracer


def _code_path(code: CodeType) -> str:
    return _repo_relative(code.co_filename)


@functools.cache  # resolving a path stats the file: once per source file, not once per span
def _repo_relative(filename: str) -> str:
    path = Path(filename).resolve()
    try:
        return str(path.relative_to(_REPO_ROOT))
    except ValueError:
        return str(path)


class span:
    """A span for a Kafka symbol. Usable as `with span(...)` or as a method decorator."""

    def __init__(self, name: str, attributes: dict[str, Any] | None = None, *, origin_file: str | None = None,
                 version: str = KAFKA_1_0_2, links: list[SpanContext] | None = None, root: bool = False,
                 _depth: int = 1) -> None:
        self.name = name
        self.attributes = {
            "kafka.origin.file": origin_file or SYMBOLS.get(name, ""),
            "kafka.origin.symbol": name.split("#", 1)[0],
            "kafka.origin.version": version,
        }
        if attributes:
            self.attributes.update(attributes)
        self.links = [Link(c) for c in links or []]
        self.root = root
        self._code: CodeType | None = None
        self._line = 0
        if _depth:
            frame = sys._getframe(_depth)
            self._code, self._line = frame.f_code, frame.f_lineno
        self._cm = None

    def __enter__(self) -> Span:
        if self._code is not None:
            self.attributes.update({
                "code.function.name": self._code.co_qualname,
                "code.file.path": _code_path(self._code),
                "code.line.number": self._line,
                "thread.name": threading.current_thread().name,
            })
        context = trace.set_span_in_context(trace.INVALID_SPAN) if self.root else None
        self._cm = _tracer().start_as_current_span(
            self.name, context=context, attributes=self.attributes, links=self.links,
            record_exception=False, set_status_on_exception=False)
        return self._cm.__enter__()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> bool | None:
        if exc is not None:
            current = trace.get_current_span()
            # Python exceptions here carry Kafka's class names (InconsistentBrokerIdException, ...).
            current.record_exception(exc, attributes={"exception.type": type(exc).__name__})
            current.set_status(Status(StatusCode.ERROR, f"{type(exc).__name__}: {exc}"))
        return self._cm.__exit__(exc_type, exc, tb)

    def __call__(self, func: F) -> F:
        name, attributes, links, root = self.name, self.attributes, self.links, self.root
        code, line = func.__code__, func.__code__.co_firstlineno

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            s = span(name, dict(attributes), root=root, _depth=0)
            s.links, s._code, s._line = links, code, line
            with s:
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


class step(span):
    """The span of one FIDELITY row, carrying `kafka.step`."""

    def __init__(self, step_id: str, attributes: dict[str, Any] | None = None, *,
                 links: list[SpanContext] | None = None, root: bool = False, _depth: int = 2) -> None:
        row = STEPS[step_id]
        super().__init__(row.span_name, {"kafka.step": step_id, **(attributes or {})}, origin_file=row.origin_file,
                         version=row.version, links=links, root=root, _depth=_depth)
        self.step_id = step_id

    def __enter__(self) -> Span:
        if breakpoints.ACTIVE:  # a breakpoint or a "next" is armed; otherwise this check is all a step pays
            breakpoints.on_step(self.step_id, self.name)  # blocks before the span opens: it shows the step's own time
        return super().__enter__()


def event(step_id: str | None, name: str, attributes: dict[str, Any] | None = None) -> None:
    """A span event on the current span (a state change, or an event-type FIDELITY row)."""
    attrs = dict(attributes or {})
    if step_id:
        attrs["kafka.step"] = step_id
    trace.get_current_span().add_event(name, attrs)


def set_attributes(attributes: dict[str, Any]) -> None:
    """Add attributes to the current span (values learned while a step runs)."""
    trace.get_current_span().set_attributes(attributes)


def current_span_context() -> SpanContext:
    return trace.get_current_span().get_span_context()


def current_traceparent() -> str | None:
    """The W3C traceparent of the current span, to carry in an outgoing request header; None when not tracing."""
    carrier: dict[str, str] = {}
    TraceContextTextMapPropagator().inject(carrier)
    return carrier.get("traceparent")


def remote_span_context(traceparent: str | None) -> SpanContext | None:
    """The sender's span named by a W3C traceparent from a request header; None when absent or malformed."""
    if not traceparent:
        return None
    context = TraceContextTextMapPropagator().extract({"traceparent": traceparent})
    span_context = trace.get_current_span(context).get_span_context()
    return span_context if span_context.is_valid else None


def open_span(name: str, attributes: dict[str, Any] | None = None, *, step_id: str | None = None,
              links: list[SpanContext] | None = None, start_time_ns: int | None = None,
              origin_file: str | None = None) -> Span:
    """A root span that outlives any `with` block: a request, from its receive to the end of its response."""
    row = STEPS[step_id] if step_id else None
    attrs = {
        "kafka.origin.file": row.origin_file if row else origin_file or SYMBOLS.get(name, ""),
        "kafka.origin.symbol": (row.origin_symbol if row else name.split("#", 1)[0]),
        "kafka.origin.version": row.version if row else KAFKA_1_0_2,
        **({"kafka.step": step_id} if step_id else {}),
        **(attributes or {}),
    }
    frame = sys._getframe(1)
    attrs.update({"code.function.name": frame.f_code.co_qualname, "code.file.path": _code_path(frame.f_code),
                  "code.line.number": frame.f_lineno, "thread.name": threading.current_thread().name})
    return _tracer().start_span(row.span_name if row else name, context=trace.set_span_in_context(trace.INVALID_SPAN),
                                attributes=attrs, links=[Link(c) for c in links or []], start_time=start_time_ns)


class activate:
    """Make `span` the current span on this thread (a request crossing from a processor to a handler)."""

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


def end_span(span_: Span | None, attributes: dict[str, Any] | None = None, end_time_ns: int | None = None) -> None:
    if span_ is not None:
        if attributes:
            span_.set_attributes(attributes)
        span_.end(end_time=end_time_ns)


def add_event(span_: Span | None, name: str, attributes: dict[str, Any] | None = None) -> None:
    if span_ is not None:
        span_.add_event(name, attributes or {})
