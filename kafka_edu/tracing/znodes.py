"""Causality through ZooKeeper: a znode's JSON names the span that wrote it (`with_writer`, where the port builds the
JSON), and the controller event its watch fires links to that span (`writer`, in a describer; TRACING.md, causality).

Kafka reads these znodes with a JSON parser that ignores keys it does not know, so the extra `traceparent` is
invisible to Kafka's own code and tools.
"""

from __future__ import annotations

from typing import Any

from opentelemetry.trace import SpanContext

from kafka_edu.tracing.step import current_traceparent, remote_span_context

TRACEPARENT = "traceparent"


def with_writer(znode_json: dict[str, Any]) -> dict[str, Any]:
    """`znode_json` plus the current span's traceparent, when there is one."""
    traceparent = current_traceparent()
    return {**znode_json, TRACEPARENT: traceparent} if traceparent else znode_json


def writer(znode_json: dict[str, Any] | None) -> SpanContext | None:
    """The span that wrote the znode, if its JSON names one: what a `@links` describer of the span that read the
    znode returns (a controller event fired by a watch links to the span whose write fired it)."""
    return remote_span_context((znode_json or {}).get(TRACEPARENT))
