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
from json.encoder import encode_basestring_ascii
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
    """One span as json.dumps would write the library's dict of it, from cached pieces where they repeat.

    It reads the fields ReadableSpan's properties return (or copy: `events` and `links` make a tuple per call, and
    `attributes` a read-only view) straight from the span, each once."""
    context = span._context
    trace_id, span_id = (context.trace_id, context.span_id) if context is not None else (0, 0)
    parts = [f'{{"traceId":"{trace_id:032x}","spanId":"{span_id:016x}"']
    if context is not None and (trace_state := _trace_state(context)):
        parts.append(f',"traceState":{_dumps(trace_state)}')
    parent = span._parent
    if parent is not None:
        parts.append(f',"parentSpanId":"{parent.span_id:016x}"')
        parts.append(f',"flags":{_flags(parent)}')
    else:
        parts.append(f',"flags":{_HAS_IS_REMOTE}')
    if name := span._name:
        parts.append(f',"name":{_string(name)}')
    parts.append(f',"kind":{span._kind.value + 1}')  # OTLP's SpanKind counts from SPAN_KIND_UNSPECIFIED = 0
    if start_time := span._start_time:
        parts.append(f',"startTimeUnixNano":"{start_time}"')
    if end_time := span._end_time:
        parts.append(f',"endTimeUnixNano":"{end_time}"')
    attributes = span._attributes
    if attributes is not None:
        plain = getattr(attributes, "_dict", attributes)
        if plain:
            parts.append(',"attributes":[')
            parts.append(",".join(_attributes_json(plain)))
            parts.append("]")
        if dropped := getattr(attributes, "dropped", 0):
            parts.append(f',"droppedAttributesCount":{dropped}')
    events = span._events
    if events:
        parts.append(f',"events":{_dumps([_event(event) for event in events])}')
    if dropped := getattr(events, "dropped", 0):
        parts.append(f',"droppedEventsCount":{dropped}')
    links = span._links
    if links:
        parts.append(f',"links":{_dumps([_link(link) for link in links])}')
    if dropped := getattr(links, "dropped", 0):
        parts.append(f',"droppedLinksCount":{dropped}')
    status = span._status
    if status.description or status.status_code.value:
        fields: dict[str, Any] = {}
        if status.description:
            fields["message"] = status.description
        if status.status_code.value:
            fields["code"] = status.status_code.value
        parts.append(f',"status":{_dumps(fields)}}}')
    else:
        parts.append(',"status":{}}')
    return "".join(parts)


# json.dumps with separators builds an encoder per call; one made once writes the same text
_dumps = json.JSONEncoder(separators=(",", ":")).encode
_quote = encode_basestring_ascii  # what that encoder writes for a string (ensure_ascii)

_STRINGS: dict[str, str] = {}
_PREFIXES: dict[str, str] = {}  # attribute key -> the pair's text up to its value
_CACHE_LIMIT = 50_000  # distinct names and attribute keys kept encoded; most repeat from span to span


def _prefix(key: str) -> str:
    encoded = _PREFIXES.get(key)
    if encoded is None:
        encoded = f'{{"key":{_quote(key)},"value":' if key else '{"value":'
        if len(_PREFIXES) >= _CACHE_LIMIT:
            _PREFIXES.clear()
        _PREFIXES[key] = encoded
    return encoded


def _attributes_json(attributes: Mapping[str, Any]) -> list[str]:
    """Each pair as json.dumps writes `_key_value`'s dict of it: plain values and tuples of them written here, the
    rest by json. A pair with a string value is kept whole once written: most of a span's strings (its origin, its
    code, its thread) are the same in every span of its step."""
    out = []
    prefixes = _PREFIXES
    pairs = _STRING_PAIRS
    for item in attributes.items():
        key, value = item
        kind = type(value)
        if kind is str:
            encoded = pairs.get(item)
            if encoded is None:
                encoded = f'{prefixes.get(key) or _prefix(key)}{{"stringValue":{_quote(value)}}}}}'
                if len(pairs) >= _CACHE_LIMIT:
                    pairs.clear()
                pairs[item] = encoded
            out.append(encoded)
        elif kind is int:
            out.append(f'{prefixes.get(key) or _prefix(key)}{{"intValue":"{value}"}}}}')
        elif kind is tuple and _ARRAY_ITEMS.issuperset(map(type, value)):
            # a fetch's or a produce's partitions: `_as_checked` stores a list of plain values as a tuple
            items = [_plain_value(v) for v in value]
            if None in items:  # a float json writes its own way (NaN, infinity)
                out.append(_dumps(_key_value(key, value)))
            elif items:
                out.append(f'{prefixes.get(key) or _prefix(key)}{{"arrayValue":{{"values":[{",".join(items)}]}}}}}}')
            else:
                out.append(f'{prefixes.get(key) or _prefix(key)}{{"arrayValue":{{}}}}}}')
        elif kind is bool:
            out.append((prefixes.get(key) or _prefix(key)) + ('{"boolValue":true}}' if value else
                                                              '{"boolValue":false}}'))
        elif kind is float and math.isfinite(value):
            out.append(f'{prefixes.get(key) or _prefix(key)}{{"doubleValue":{float.__repr__(value)}}}}}')
        else:
            out.append(_dumps(_key_value(key, value)))
    return out


_ARRAY_ITEMS = frozenset({str, int, bool, float})
_STRING_PAIRS: dict[tuple[str, str], str] = {}  # (key, value) -> the pair's text


def _plain_value(value: Any) -> str | None:
    """The AnyValue text of a str, int, bool or finite float, as json.dumps writes `_value`'s dict of it; None for a
    float that is not finite."""
    kind = type(value)
    if kind is str:
        return f'{{"stringValue":{_quote(value)}}}'
    if kind is bool:
        return '{"boolValue":true}' if value else '{"boolValue":false}'
    if kind is int:
        return f'{{"intValue":"{value}"}}'
    if math.isfinite(value):
        return f'{{"doubleValue":{float.__repr__(value)}}}'
    return None


def _string(value: str) -> str:
    encoded = _STRINGS.get(value)
    if encoded is None:
        encoded = _dumps(value)
        if len(_STRINGS) >= _CACHE_LIMIT:
            _STRINGS.clear()
        _STRINGS[value] = encoded
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
    # A run of spans of one resource and scope (nearly every batch is one run) goes to the same list unlooked-up.
    by_identity: dict[int, tuple[Any, dict[Any, list[str]]]] = {}
    last_resource = last_scope = encoded = None
    for span in spans:
        resource = span._resource
        scope = span._instrumentation_scope or None
        if resource is not last_resource or scope is not last_scope or encoded is None:
            group = by_identity.get(id(resource))
            if group is None:
                group = by_identity[id(resource)] = (resource, {})
            encoded = group[1].setdefault(scope, [])
            last_resource, last_scope = resource, scope
        encoded.append(_span(span))
    if not by_identity:
        return None
    groups = list(by_identity.values())
    if len(groups) > 1:  # one resource (a process's own) has nothing to merge, nor a hash of it to take
        by_resource: dict[Any, dict[Any, list[str]]] = {}
        for resource, scopes in groups:
            merged = by_resource.setdefault(resource, {})
            for scope, encoded in scopes.items():
                merged.setdefault(scope, []).extend(encoded)
        groups = list(by_resource.items())
    resource_spans = []
    for resource, scopes in groups:
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
