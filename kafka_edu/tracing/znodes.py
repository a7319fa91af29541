"""Causality through ZooKeeper: a znode's JSON names the span that wrote it, and the controller event its watch
fires links to that span (TRACING.md, causality).

Kafka reads these znodes with a JSON parser that ignores keys it does not know, so the extra `traceparent` is
invisible to Kafka's own code and tools.
"""

from __future__ import annotations

from typing import Any

from opentelemetry import trace

from kafka_edu.tracing.step import current_traceparent, remote_span_context

TRACEPARENT = "traceparent"


def with_writer(znode_json: dict[str, Any]) -> dict[str, Any]:
    """`znode_json` plus the current span's traceparent, when there is one."""
    traceparent = current_traceparent()
    return {**znode_json, TRACEPARENT: traceparent} if traceparent else znode_json


def link_to_writer(znode_json: dict[str, Any] | None) -> None:
    """Link the current span to the span that wrote the znode, if the znode names one."""
    writer = remote_span_context((znode_json or {}).get(TRACEPARENT))
    if writer is not None:
        trace.get_current_span().add_link(writer, {"kafka.link": "znode writer"})
