"""Our own code, not a Kafka port: the span files' lines, OTLP JSON as `opentelemetry-exporter-otlp-json-file`
writes them (one ExportTraceServiceRequest per line), built straight from the SDK's spans.

The library builds a message object per span, attribute and value and then a dict from each; under load that was
a quarter of a broker's CPU, on the same interpreter lock as the broker's own threads. This module writes the same
line in one pass, from pieces cached where spans repeat them (names, the origin attributes);
`tests/unit/test_otlp_json.py` holds it to the library's output, byte for byte.
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


def _span(span: ReadableSpan) -> str:
    """One span as json.dumps would write the library's dict of it, from cached pieces where they repeat."""
    context = span.get_span_context()
    trace_id, span_id = (context.trace_id, context.span_id) if context is not None else (0, 0)
    parts = [f'{{"traceId":"{trace_id:032x}","spanId":"{span_id:016x}"']
    if context is not None and (trace_state := _trace_state(context)):
        parts.append(f',"traceState":{_dumps(trace_state)}')
    if span.parent is not None:
        parts.append(f',"parentSpanId":"{span.parent.span_id:016x}"')
    parts.append(f',"flags":{_flags(span.parent)}')
    if span.name:
        parts.append(f',"name":{_string(span.name)}')
    parts.append(f',"kind":{span.kind.value + 1}')  # OTLP's SpanKind counts from SPAN_KIND_UNSPECIFIED = 0
    if span.start_time:
        parts.append(f',"startTimeUnixNano":"{span.start_time}"')
    if span.end_time:
        parts.append(f',"endTimeUnixNano":"{span.end_time}"')
    attributes = span.attributes
    if attributes:
        parts.append(',"attributes":[')
        parts.append(",".join([_key_value_json(key, value) for key, value in attributes.items()]))
        parts.append("]")
    if span.dropped_attributes:
        parts.append(f',"droppedAttributesCount":{span.dropped_attributes}')
    if span.events:
        parts.append(f',"events":{_dumps([_event(event) for event in span.events])}')
    if span.dropped_events:
        parts.append(f',"droppedEventsCount":{span.dropped_events}')
    if span.links:
        parts.append(f',"links":{_dumps([_link(link) for link in span.links])}')
    if span.dropped_links:
        parts.append(f',"droppedLinksCount":{span.dropped_links}')
    status: dict[str, Any] = {}
    if span.status.description:
        status["message"] = span.status.description
    if span.status.status_code.value:
        status["code"] = span.status.status_code.value
    parts.append(f',"status":{_dumps(status)}}}' if status else ',"status":{}}')
    return "".join(parts)


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


_STRINGS: dict[str, str] = {}
_PAIRS: dict[tuple[str, type, Any], str] = {}
_CACHE_LIMIT = 50_000  # distinct names and attribute pairs kept encoded; most repeat from span to span


def _string(value: str) -> str:
    encoded = _STRINGS.get(value)
    if encoded is None:
        encoded = _dumps(value)
        if len(_STRINGS) >= _CACHE_LIMIT:
            _STRINGS.clear()
        _STRINGS[value] = encoded
    return encoded


def _key_value_json(key: str, value: Any) -> str:
    kind = type(value)
    if kind is not str and kind is not int and kind is not bool:
        return _dumps(_key_value(key, value))
    pair = (key, kind, value)
    encoded = _PAIRS.get(pair)
    if encoded is None:
        encoded = _dumps(_key_value(key, value))
        if len(_PAIRS) >= _CACHE_LIMIT:
            _PAIRS.clear()
        _PAIRS[pair] = encoded
    return encoded


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


def encode_line(spans: Sequence[ReadableSpan]) -> str | None:
    """The ExportTraceServiceRequest of `spans` as one line, byte for byte what the library's file exporter writes;
    None for no spans."""
    # Grouped by the resource object first: a Resource hashes by dumping its attributes to JSON, and a process's
    # spans share one. Equal resources are merged after, as the library's grouping by value would.
    by_identity: dict[int, tuple[Any, dict[Any, list[str]]]] = {}
    for span in spans:
        resource = span.resource
        group = by_identity.get(id(resource))
        if group is None:
            group = by_identity[id(resource)] = (resource, {})
        group[1].setdefault(span.instrumentation_scope or None, []).append(_span(span))
    if not by_identity:
        return None
    by_resource: dict[Any, dict[Any, list[str]]] = {}
    for resource, scopes in by_identity.values():
        merged = by_resource.setdefault(resource, {})
        for scope, encoded in scopes.items():
            merged.setdefault(scope, []).extend(encoded)
    resource_spans = []
    for resource, scopes in by_resource.items():
        scope_spans = []
        for scope, encoded in scopes.items():
            schema = f',"schemaUrl":{_dumps(scope.schema_url)}' if scope is not None and scope.schema_url else ""
            scope_spans.append(f'{{"scope":{_dumps(_scope(scope))},"spans":[{",".join(encoded)}]{schema}}}')
        schema = f',"schemaUrl":{_dumps(resource.schema_url)}' if resource.schema_url else ""
        resource_spans.append(f'{{"resource":{_dumps(_resource(resource))},"scopeSpans":[{",".join(scope_spans)}]'
                              f'{schema}}}')
    return f'{{"resourceSpans":[{",".join(resource_spans)}]}}\n'


def _resource(resource: Any) -> dict[str, Any]:
    attributes = _attributes(resource.attributes)
    return {"attributes": attributes} if attributes else {}


class SpanLineFile:
    """A span file opened for appending: each `export` writes one line and flushes it to the OS."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._file = open(path, "a", encoding="utf-8")  # noqa: SIM115 - open until shutdown

    def export(self, spans: Sequence[ReadableSpan]) -> None:
        line = encode_line(spans)
        if line is not None:
            self._file.write(line)
        self._file.flush()

    def shutdown(self) -> None:
        self._file.close()
