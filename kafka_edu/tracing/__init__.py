"""Tracing for kafka-edu: the only package that knows OpenTelemetry (see shared/TRACING.md)."""

from kafka_edu.tracing.provider import current_tracing, set_process_attribute, setup_tracing
from kafka_edu.tracing.step import (
    activate,
    add_event,
    current_span_context,
    end_span,
    event,
    open_span,
    set_attributes,
    span,
    step,
)

__all__ = [
    "activate",
    "add_event",
    "end_span",
    "open_span",
    "current_span_context",
    "current_tracing",
    "event",
    "set_attributes",
    "set_process_attribute",
    "setup_tracing",
    "span",
    "step",
]
