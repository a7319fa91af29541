"""The critical path the waterfall highlights: Jaeger's algorithm (kafka_edu/tracing/critical_path.py), with spans
still running counted as ending now."""

from __future__ import annotations

from collections.abc import Iterable

from kafka_edu.tracing.critical_path import Section
from kafka_edu.tracing.critical_path import critical_path as jaeger_critical_path
from kafka_edu.tracing.query import SpanRecord

__all__ = ["Section", "critical_path"]


def critical_path(spans: Iterable[SpanRecord], root_id: str, now_ns: int) -> list[Section]:
    """Sections of the trace rooted at `root_id`, root first; a running span counts as ending at `now_ns`."""
    return jaeger_critical_path(((s.span_id, s.parent_id or None, s.start_ns, s.end_ns or now_ns) for s in spans),
                                root_id)
