"""Describers: what a span or event says about the Kafka state around it, kept out of the ported code.

A describer is registered for a FIDELITY row id or a span name (from the table in steps.py) and reads a *scope*:

- for a decorated method, its arguments by name (`self`, ...) and, at the end, `result`;
- for a `with step(...)` block, the local variables of the method the block is in.

    @end("LC.startup.05")
    def _cluster_id(scope):
        return {"kafka.cluster.id": scope["self"].cluster_id}

Kinds: `start` (attributes when the span opens, for a step still running), `end` (attributes when it closes),
`links` (span contexts the span links to), `when` (False: this call gets no span), `parent` (the span to be the
child of: for request-path steps the request they serve; `NEW_TRACE` for a call that starts a story of its own,
linked to its cause; None for no span), `retro` (the span is recorded after the call, only when
its end describer returns a dict: a poll that found work), and `on_event` for span events. Describers run only for
spans that are recorded.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, Span, SpanContext, TraceFlags

from kafka_edu.tracing.steps import EVENTS, STEPS, SYMBOLS

Scope = Mapping[str, Any]
Describe = Callable[[Scope], Any]
# Tests set this so that a describer that no longer matches the code it reads fails loudly instead of being recorded.
STRICT = os.environ.get("KAFKA_EDU_TRACING_STRICT", "") == "1"


@dataclass
class Describer:
    start: Describe | None = None
    end: Describe | None = None
    parent: Describe | None = None
    links: Describe | None = None
    when: Describe | None = None
    retro: bool = False


# A `parent` describer's answer for "this call starts a trace of its own": a parent that names no span but says
# "sampled", so the span opened under it is a new trace's root (its `links` describer names the cause).
NEW_TRACE = NonRecordingSpan(SpanContext(trace_id=0, span_id=0, is_remote=False,
                                         trace_flags=TraceFlags(TraceFlags.SAMPLED)))


def own_trace() -> Span:
    """The parent for a call that starts a story of its own: a new trace, except inside an unsampled request, whose
    work traces nothing (the caller's unsampled span keeps it so)."""
    caller = trace.get_current_span()
    context = caller.get_span_context()
    return caller if context.is_valid and not context.trace_flags.sampled else NEW_TRACE


def caller_link() -> list[SpanContext]:
    """The span running where the call was made, for a span that starts a trace of its own to link to its cause."""
    context = trace.get_current_span().get_span_context()
    return [context] if context.is_valid and context.trace_flags.sampled else []


_NONE = Describer()
_DESCRIBERS: dict[str, Describer] = {}
_EVENT_DESCRIBERS: dict[str, Describe] = {}


def describer_for(step_id: str | None, name: str) -> Describer:
    return (_DESCRIBERS.get(step_id) if step_id else None) or _DESCRIBERS.get(name) or _NONE


def event_describer(name: str) -> Describe | None:
    return _EVENT_DESCRIBERS.get(name)


def _register(kind: str, *keys: str, retro: bool = False) -> Callable[[Describe], Describe]:
    for key in keys:
        if key not in STEPS and key not in SYMBOLS:
            raise KeyError(f"describer for {key!r}, which is not in the table (kafka_edu/tracing/steps.py)")

    def register(describe: Describe) -> Describe:
        for key in keys:
            describer = _DESCRIBERS.setdefault(key, Describer())
            setattr(describer, kind, describe)
            describer.retro = describer.retro or retro
        return describe
    return register


def start(*keys: str) -> Callable[[Describe], Describe]:
    return _register("start", *keys)


def end(*keys: str) -> Callable[[Describe], Describe]:
    return _register("end", *keys)


def retro(*keys: str) -> Callable[[Describe], Describe]:
    """An end describer whose None means "no span": the call did no work worth a span."""
    return _register("end", *keys, retro=True)


def links(*keys: str) -> Callable[[Describe], Describe]:
    return _register("links", *keys)


def when(*keys: str) -> Callable[[Describe], Describe]:
    """A predicate on the scope before the call: False means the call is not worth a span (a loop phase with no
    work), and it runs untraced."""
    return _register("when", *keys)


def parent(*keys: str) -> Callable[[Describe], Describe]:
    return _register("parent", *keys)


def safe(default: Any) -> Callable[[Describe], Describe]:
    """For `when` and `parent` describers, which run outside the marker's guard: one that fails gives `default` (or
    what `default()` returns) rather than failing the traced thread; run strictly (tests), a describer that no
    longer matches the code still fails loudly."""
    def wrap(describe: Describe) -> Describe:
        @functools.wraps(describe)
        def guarded(s: Scope) -> Any:
            try:
                return describe(s)
            except Exception as e:
                if STRICT and isinstance(e, (KeyError, AttributeError, TypeError, NameError)):
                    raise
                return default() if callable(default) else default
        return guarded
    return wrap


def on_event(*names: str) -> Callable[[Describe], Describe]:
    for name in names:
        if name not in EVENTS:
            raise KeyError(f"describer for event {name!r}, which is not in the table (kafka_edu/tracing/steps.py)")

    def register(describe: Describe) -> Describe:
        for name in names:
            _EVENT_DESCRIBERS[name] = describe
        return describe
    return register


# The describers themselves, one module per area of the port; importing them registers them.
from kafka_edu.tracing.describers import (  # noqa: E402, F401
    controller,
    group_coordinator_39,
    groups,
    kraft_broker,
    kraft_controller,
    kraft_image,
    kraft_publish,
    kraft_queue,
    kraft_raft,
    kraft_storage,
    kraft_voters,
    leader_epoch,
    lifecycle,
    log_cleaner,
    replication,
    request_path,
    request_path_39,
    security,
    transactions,
    transactions_39,
)
