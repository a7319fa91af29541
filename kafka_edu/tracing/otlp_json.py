"""Our own code, not a Kafka port: the span files' lines, OTLP JSON as `opentelemetry-exporter-otlp-json-file`
writes them (one ExportTraceServiceRequest per line), built straight from the SDK's spans.

The library builds a message object per span, attribute and value and then a dict from each; under load that was
a quarter of a broker's CPU, on the same interpreter lock as the broker's own threads. This module builds the same
dicts in one pass; `tests/unit/test_otlp_json.py` holds it to the library's output, field by field.
"""

from __future__ import annotations

import base64
import json
import math
import os
from collections.abc import Mapping, Sequence
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanContext

_HAS_IS_REMOTE = 0x100  # SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK
_IS_REMOTE = 0x200  # SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK


def _value(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, str):
        return {"stringValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        if math.isnan(value):
            return {"doubleValue": "NaN"}
        if math.isinf(value):
            return {"doubleValue": "Infinity" if value > 0 else "-Infinity"}
        return {"doubleValue": value}
    if isinstance(value, bytes):
        return {"bytesValue": base64.b64encode(value).decode("ascii")}
    if isinstance(value, Sequence):
        values = [_value(v) for v in value]
        return {"arrayValue": {"values": values} if values else {}}
    if isinstance(value, Mapping):
        pairs = [_key_value(str(k), v) for k, v in value.items()]
        return {"kvlistValue": {"values": pairs} if pairs else {}}
    raise TypeError(f"Invalid type {type(value)} of value {value}")


def _key_value(key: str, value: Any) -> dict[str, Any]:
    return {"key": key, "value": _value(value)} if key else {"value": _value(value)}


def _attributes(attributes: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    return [_key_value(key, value) for key, value in attributes.items()] if attributes else []


def _flags(parent: SpanContext | None) -> int:
    return _HAS_IS_REMOTE | _IS_REMOTE if parent is not None and parent.is_remote else _HAS_IS_REMOTE


def _trace_state(context: SpanContext) -> str:
    return ",".join(f"{key}={value}" for key, value in context.trace_state.items()) if context.trace_state else ""


def _span(span: ReadableSpan) -> dict[str, Any]:
    context = span.get_span_context()
    out: dict[str, Any] = {}
    out["traceId"] = f"{context.trace_id if context else 0:032x}"
    out["spanId"] = f"{context.span_id if context else 0:016x}"
    if context is not None and (trace_state := _trace_state(context)):
        out["traceState"] = trace_state
    if span.parent is not None:
        out["parentSpanId"] = f"{span.parent.span_id:016x}"
    out["flags"] = _flags(span.parent)
    if span.name:
        out["name"] = span.name
    out["kind"] = span.kind.value + 1  # OTLP's SpanKind counts from SPAN_KIND_UNSPECIFIED = 0
    if span.start_time:
        out["startTimeUnixNano"] = str(span.start_time)
    if span.end_time:
        out["endTimeUnixNano"] = str(span.end_time)
    if attributes := _attributes(span.attributes):
        out["attributes"] = attributes
    if span.dropped_attributes:
        out["droppedAttributesCount"] = span.dropped_attributes
    if span.events:
        out["events"] = [_event(event) for event in span.events]
    if span.dropped_events:
        out["droppedEventsCount"] = span.dropped_events
    if span.links:
        out["links"] = [_link(link) for link in span.links]
    if span.dropped_links:
        out["droppedLinksCount"] = span.dropped_links
    status: dict[str, Any] = {}
    if span.status.description:
        status["message"] = span.status.description
    if span.status.status_code.value:
        status["code"] = span.status.status_code.value
    out["status"] = status
    return out


def _event(event: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if event.timestamp:
        out["timeUnixNano"] = str(event.timestamp)
    if event.name:
        out["name"] = event.name
    if attributes := _attributes(event.attributes):
        out["attributes"] = attributes
    if event.dropped_attributes:
        out["droppedAttributesCount"] = event.dropped_attributes
    return out


def _link(link: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    out["traceId"] = f"{link.context.trace_id:032x}"
    out["spanId"] = f"{link.context.span_id:016x}"
    if attributes := _attributes(link.attributes):
        out["attributes"] = attributes
    if link.dropped_attributes:
        out["droppedAttributesCount"] = link.dropped_attributes
    out["flags"] = _flags(link.context)
    return out


def _scope(scope: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if scope is None:
        return out
    if scope.name:
        out["name"] = scope.name
    if scope.version:
        out["version"] = scope.version
    if attributes := _attributes(scope.attributes):
        out["attributes"] = attributes
    return out


def encode_spans(spans: Sequence[ReadableSpan]) -> dict[str, Any] | None:
    """The ExportTraceServiceRequest of `spans` as the library's `to_dict()` gives it; None for no spans."""
    # Grouped by the resource object first: a Resource hashes by dumping its attributes to JSON, and a process's
    # spans share one. Equal resources are merged after, as the library's grouping by value would.
    by_identity: dict[int, tuple[Any, dict[Any, list[dict[str, Any]]]]] = {}
    for span in spans:
        resource = span.resource
        group = by_identity.get(id(resource))
        if group is None:
            group = by_identity[id(resource)] = (resource, {})
        group[1].setdefault(span.instrumentation_scope or None, []).append(_span(span))
    if not by_identity:
        return None
    by_resource: dict[Any, dict[Any, list[dict[str, Any]]]] = {}
    for resource, scopes in by_identity.values():
        merged = by_resource.setdefault(resource, {})
        for scope, encoded in scopes.items():
            merged.setdefault(scope, []).extend(encoded)
    resource_spans = []
    for resource, scopes in by_resource.items():
        scope_spans = []
        for scope, encoded in scopes.items():
            entry: dict[str, Any] = {"scope": _scope(scope), "spans": encoded}
            if scope is not None and scope.schema_url:
                entry["schemaUrl"] = scope.schema_url
            scope_spans.append(entry)
        resource_entry: dict[str, Any] = {"resource": _resource(resource), "scopeSpans": scope_spans}
        if resource.schema_url:
            resource_entry["schemaUrl"] = resource.schema_url
        resource_spans.append(resource_entry)
    return {"resourceSpans": resource_spans}


def _resource(resource: Any) -> dict[str, Any]:
    attributes = _attributes(resource.attributes)
    return {"attributes": attributes} if attributes else {}


class SpanLineFile:
    """A span file opened for appending: each `export` writes one line and flushes it to the OS."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._file = open(path, "a", encoding="utf-8")  # noqa: SIM115 - open until shutdown

    def export(self, spans: Sequence[ReadableSpan]) -> None:
        encoded = encode_spans(spans)
        if encoded is not None:
            self._file.write(json.dumps(encoded, separators=(",", ":")) + "\n")
        self._file.flush()

    def shutdown(self) -> None:
        self._file.close()
