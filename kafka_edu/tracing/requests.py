"""A client request's trace: its root span is the request's life, from its receive to its response's send.

The root is opened the first time a request-path step asks for it (the processor that received the request) and
ended by `completes_request`, the decorator on `Request.update_request_metrics`, which puts Kafka's request metrics
on it. Between the two, every step that serves the request finds its parent here. The root is kept on the request
object under a private name: the ported Request class declares nothing for tracing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from opentelemetry import trace
from opentelemetry.trace import Link, NonRecordingSpan, Span, SpanContext, TraceFlags
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from kafka_edu.tracing import provider
from kafka_edu.tracing.steps import KAFKA_3_9, SYMBOLS

F = TypeVar("F", bound=Callable[..., Any])
_ROOT = "RequestChannel.Request"
_ATTR = "_kafka_edu_trace_root"
_ROOT_CONTEXT = trace.set_span_in_context(trace.INVALID_SPAN)
# The parent of every step of a request whose trace is not sampled: valid, so the steps below it do nothing.
UNSAMPLED = NonRecordingSpan(SpanContext(trace_id=1, span_id=1, is_remote=False, trace_flags=TraceFlags(0)))
_propagator = TraceContextTextMapPropagator()
_symbol = SYMBOLS[_ROOT]
_STATIC = {"kafka.origin.file": _symbol.origin_file, "kafka.origin.symbol": _symbol.origin_symbol,
           "kafka.origin.version": _symbol.version}
_STATIC_3_9 = {**_STATIC, "kafka.origin.version": KAFKA_3_9}  # the same class, at the same path, in 3.9


def request_root(request: Any) -> Span | None:
    """The root span of `request`'s trace, opened now if this is its first step; None when nothing traces."""
    root = request.__dict__.get(_ATTR)
    if root is not None:
        return root
    tracing = provider.current_tracing()
    if tracing is None:
        return None
    if not tracing.request_path_on:
        root = UNSAMPLED
    else:
        from kafka_edu.tracing.describers import request_path, request_path_39  # one describer for the root
        if request_path_39.is_3_9_request(request):
            attributes = {**_STATIC_3_9, **request_path_39.request_attributes(request)}
        else:
            attributes = {**_STATIC, **request_path.request_attributes(request)}
        sender = remote_span_context(request.traceparent)
        root = tracing.start_span(_ROOT, context=_ROOT_CONTEXT, attributes=attributes,
                                         links=[Link(sender)] if sender else None,
                                         start_time=request.start_time_ns)
    request.__dict__[_ATTR] = root
    return root


def completes_request(update_request_metrics: F) -> F:
    """On `Request.update_request_metrics`: its metrics go on the request's root span, which ends then. 1.0.2's
    port hands the end time (`update_request_metrics(end_time_ns)`); 3.9's (`update_request_metrics(
    network_thread_time_nanos, response)`) reads its own monotonic clock, so its root ends now."""
    code = update_request_metrics.__code__
    ends_at_argument = code.co_argcount > 1 and code.co_varnames[1] == "end_time_ns"

    @functools.wraps(update_request_metrics)
    def wrapper(request: Any, *args: Any, **kwargs: Any) -> Any:
        metrics = update_request_metrics(request, *args, **kwargs)
        root = request.__dict__.pop(_ATTR, None)
        if root is not None and root.is_recording():
            provider.set_span_attributes(root, _metric_attributes(metrics))
            root.end(end_time=args[0] if ends_at_argument else _now_ns())
        return metrics
    return wrapper  # type: ignore[return-value]


def _metric_attributes(metrics: dict[str, float]) -> dict[str, float]:
    """`kafka.request.*` names (TRACING.md) for the metrics 3.9's port returns under Kafka's own names
    (`request_queue_time_ms`, `local_time_ms`, ...); 1.0.2's returns them named already."""
    return {key if key.startswith("kafka.") else "kafka.request." + key.removeprefix("request_"): value
            for key, value in metrics.items()}


def _now_ns() -> int | None:
    tracing = provider.current_tracing()
    return tracing.now_ns() if tracing is not None else None


def remote_span_context(traceparent: str | None) -> SpanContext | None:
    """The sender's span named by a W3C traceparent from a request header; None when absent or malformed."""
    if not traceparent:
        return None
    context = _propagator.extract({"traceparent": traceparent})
    span_context = trace.get_current_span(context).get_span_context()
    return span_context if span_context.is_valid else None
