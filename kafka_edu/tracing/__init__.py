"""Tracing for kafka-edu: the only package that knows OpenTelemetry (see shared/TRACING.md).

Ported code carries markers only: `step` and `span` (decorator or `with`), `event` and `note`; see step.py. What a
span says besides its name comes from the describers (attributes.py), what it is from the table (steps.py).
"""

from kafka_edu.tracing.provider import current_tracing, set_process_attribute, setup_tracing
from kafka_edu.tracing.requests import completes_request, request_root
from kafka_edu.tracing.step import (
    current_span_context,
    event,
    note,
    span,
    step,
)

__all__ = [
    "completes_request",
    "current_span_context",
    "current_tracing",
    "event",
    "note",
    "request_root",
    "set_process_attribute",
    "setup_tracing",
    "span",
    "step",
]
