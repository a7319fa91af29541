"""Glue between kio's schemas and the broker: org.apache.kafka.common.requests.RequestHeader / ResponseHeader (3.9).

Where a request carries the sender's W3C traceparent (TRACING.md, causality), without ever changing its version:

- a flexible request header (v2: the KRaft RPCs, 3.9's newer versions) carries it in the tagged field
  TRACEPARENT_TAG, which Kafka skips as an unknown tag; the client id is left as it is;
- a header v1 (every non-flexible version but ControlledShutdown v0: what Kafka 1.0.2 sends) carries it as a suffix
  of the client id, which Kafka reads and uses only as a label (logs, metrics, quotas):

      <client id>;kafka-edu.traceparent=00-<32 hex trace id>-<16 hex span id>-<2 hex flags>
      controller-1;kafka-edu.traceparent=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01

  decode_request strips the suffix off again, so every consumer (KafkaApis, quotas, a span's kafka.client.id) sees
  the plain client id, and returns the traceparent as DecodedRequest.traceparent. Only a suffix at the very end
  of the client id, in exactly that form (version 00, lower-case hex, trace and span ids not all zero), is taken; any
  other text, including a malformed suffix or one followed by more text, is just part of the client id and never an
  error. A null client id with a traceparent goes out as the suffix alone and reads back as "" (as null does);
- a header v0 (ControlledShutdown v0) has no client id and no tagged fields: the traceparent is not sent.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import re
import struct
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kio.schema.errors import ErrorCode
from kio.serial import entity_writer, readers
from kio.serial._implicit_defaults import get_tagged_field_default
from kio.serial._introspect import (
    EntityField,
    EntityTupleField,
    PrimitiveTupleField,
    classify_field,
    get_field_tag,
    get_schema_field_type,
    is_optional,
)
from kio.serial._parse import get_reader
from kio.serial.writers import write_unsigned_varint

from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys

TRACEPARENT_TAG = 0x7E57
"""Request-header tagged field (flexible headers only) holding the UTF-8 W3C traceparent; Kafka skips unknown tags."""

CLIENT_ID_TRACEPARENT_MARKER = ";kafka-edu.traceparent="
"""What separates the client id from the traceparent in a header v1 (see the module docstring)."""

_CLIENT_ID_TRACEPARENT = re.compile(re.escape(CLIENT_ID_TRACEPARENT_MARKER)
                                    + r"(00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2})\Z")
_MAX_CLIENT_ID_BYTES = 0x7FFF  # a legacy (int16-length) string

Reader = Callable[[memoryview, int], tuple[Any, int]]
_PREFIX = struct.Struct(">hhi")


class CodecError(Exception):
    """Base of the three ways a frame can fail to decode."""


class InvalidRequestError(CodecError):
    """Truncated, garbled or over-long request: Kafka closes the connection (InvalidRequestException)."""


class UnknownApiKeyError(InvalidRequestError):
    """An api key this broker does not implement: Kafka closes the connection too."""

    def __init__(self, api_key: int, api_version: int, correlation_id: int | None) -> None:
        super().__init__(f"Unknown API key {api_key} (version {api_version}, correlation id {correlation_id})")
        self.api_key, self.api_version, self.correlation_id = api_key, api_version, correlation_id


class UnsupportedVersionError(CodecError):
    """A known API at a version outside the supported range; the header parsed, the body was not read.

    Kafka 3.9 answers only ApiVersions (see api_versions_unsupported_response) and closes the connection otherwise.
    """

    def __init__(self, api_key: ApiKeys, api_version: int, correlation_id: int, client_id: str,
                 traceparent: str | None) -> None:
        super().__init__(f"{api_key.api_name} v{api_version} is not supported (supported {api_key.supported})")
        self.api_key, self.api_version, self.correlation_id = api_key, api_version, correlation_id
        self.client_id, self.traceparent = client_id, traceparent


class InvalidResponseError(CodecError):
    """A response from another broker that cannot be parsed."""


@dataclass(frozen=True)
class DecodedRequest:
    api_key: ApiKeys
    api_version: int
    correlation_id: int
    client_id: str  # "" when the wire carries null, as Kafka does
    body: Any
    header_tagged_fields: Mapping[int, bytes]
    traceparent: str | None
    header_version: int
    size: int  # bytes of the frame


@dataclass(frozen=True)
class DecodedResponse:
    correlation_id: int
    body: Any
    header_tagged_fields: Mapping[int, bytes]


@dataclass(frozen=True)
class DecodedRequestHeader:
    api_key: ApiKeys
    api_version: int
    correlation_id: int
    client_id: str  # "" when the wire carries null; without the traceparent suffix
    header_tagged_fields: Mapping[int, bytes]
    traceparent: str | None
    header_version: int
    size: int  # bytes of the header: where the body starts


def decode_request_header(frame: bytes | bytearray | memoryview) -> DecodedRequestHeader:
    """RequestHeader.parse: the header of a size-stripped request frame, its body left unread (3.9's Processor
    checks the API is enabled on the listener before the body is parsed). InvalidRequestError (UnknownApiKeyError
    for a key this broker lacks) when it cannot be read."""
    # nothing read here refers back into the frame: a view will do, no copy
    buf = frame if isinstance(frame, memoryview) else memoryview(frame)
    if len(buf) < 4:
        raise InvalidRequestError(f"request of {len(buf)} bytes has no api key and version")
    api_key, api_version = struct.unpack_from(">hh", buf)
    if not ApiKeys.has_key(api_key):
        raise UnknownApiKeyError(api_key, api_version, struct.unpack_from(">i", buf, 4)[0] if len(buf) >= 8 else None)
    api = ApiKeys(api_key)
    header_version = api.request_header_version(api_version)
    try:
        correlation_id, client_id, tagged, pos = _read_request_header(buf, header_version)
    except Exception as e:
        raise InvalidRequestError(f"Error parsing request header, api key {api_key}: {e!r}") from e
    if header_version >= 2:
        traceparent = _traceparent(tagged.get(TRACEPARENT_TAG))
    else:
        client_id, traceparent = split_client_id(client_id)
    return DecodedRequestHeader(api, api_version, correlation_id, client_id, tagged, traceparent, header_version, pos)


def decode_request(frame: bytes | bytearray | memoryview,
                   is_api_enabled: Callable[[ApiKeys, int], bool] | None = None) -> DecodedRequest:
    """Parse one size-stripped request frame; raises only the codec errors. `is_api_enabled` is the listener's
    (its ApiVersionManager's); without one, each API's advertised range decides. A writable frame is read in
    place (a records field stays a view of it): the caller hands over a receive buffer it will not reuse."""
    buf = frame if isinstance(frame, memoryview) else memoryview(frame)
    header = decode_request_header(buf)
    api, api_version, correlation_id, client_id = (header.api_key, header.api_version, header.correlation_id,
                                                   header.client_id)
    tagged, traceparent, header_version, pos = (header.header_tagged_fields, header.traceparent,
                                                header.header_version, header.size)
    if not (api.is_supported(api_version) if is_api_enabled is None else is_api_enabled(api, api_version)):
        raise UnsupportedVersionError(api, api_version, correlation_id, client_id, traceparent)
    try:
        body, size = _entity_reader(api.request_schema(api_version))(buf, pos)
    except Exception as e:
        raise InvalidRequestError(f"Error getting request for {api.api_name} v{api_version}: {e!r}") from e
    # Bytes after the body are ignored, as Kafka's parser does (librdkafka 2.x sends some on Metadata v12).
    return DecodedRequest(api, api_version, correlation_id, client_id, body, tagged, traceparent, header_version,
                          len(buf))


class _ResponseBytes(io.BytesIO):
    """A response's bytes in memory; a records field that holds records rather than bytes (SendBuilder's
    RecordsField) is turned into its bytes here."""

    def write(self, data: Any) -> int:
        return super().write(data if isinstance(data, (bytes, bytearray, memoryview)) else bytes(data))


def encode_response(api_key: int, api_version: int, correlation_id: int, body: Any) -> bytes:
    """Response header (v0, or v1 when flexible, ApiVersions always v0) and body, without the size prefix."""
    api = ApiKeys.for_key(api_key)
    check_body(body, api, api_version, "response")
    out = _ResponseBytes()
    out.write(struct.pack(">i", correlation_id))
    if api.response_header_version(api_version) >= 1:
        write_unsigned_varint(out, 0)
    entity_writer(type(body))(out, body)
    return out.getvalue()


def api_versions_unsupported_response(correlation_id: int, supported_entries: Iterable[Any]) -> bytes:
    """UNSUPPORTED_VERSION in a v0 ApiVersions body behind header v0, listing `supported_entries`.

    Entries are kio ApiVersion objects of any version or (api_key, min, max) tuples. Kafka 3.9 lists only its
    ApiVersions range here (KIP-511), which is what librdkafka uses to pick the version to retry with.
    """
    schema = ApiKeys.API_VERSIONS.response_schema(0)
    entry = _api_version_v0()
    entries = tuple(entry(api_key=e[0], min_version=e[1], max_version=e[2]) if isinstance(e, tuple) else
                    entry(api_key=e.api_key, min_version=e.min_version, max_version=e.max_version)
                    for e in supported_entries)
    body = schema(error_code=ErrorCode.unsupported_version, api_keys=entries)
    return encode_response(ApiKeys.API_VERSIONS, 0, correlation_id, body)


def encode_request(api_key: int, api_version: int, correlation_id: int, client_id: str | None, body: Any,
                   traceparent: str | None = None, tagged_fields: Mapping[int, bytes] | None = None) -> bytes:
    """Request header and body, without the size prefix. A traceparent goes where the header has room for it without
    changing the version (module docstring): a tagged field of a flexible header, else a client id suffix, else
    (header v0) nowhere. Explicit `tagged_fields` need a flexible header."""
    api = ApiKeys.for_key(api_key)
    check_body(body, api, api_version, "request")
    header_version = api.request_header_version(api_version)
    tags = dict(tagged_fields or {})
    if tags and header_version < 2:
        raise ValueError(f"{api.api_name} v{api_version} uses request header v{header_version}: no tagged fields")
    if traceparent is not None and header_version >= 2:
        tags[TRACEPARENT_TAG] = traceparent.encode()
    elif traceparent is not None and header_version == 1:
        client_id = join_client_id(client_id, traceparent)
    out = io.BytesIO()
    out.write(_PREFIX.pack(api_key, api_version, correlation_id))
    if header_version >= 1:
        raw = None if client_id is None else client_id.encode()
        out.write(struct.pack(">h", -1) if raw is None else struct.pack(">h", len(raw)) + raw)
    if header_version >= 2:
        write_unsigned_varint(out, len(tags))
        for tag in sorted(tags):
            write_unsigned_varint(out, tag)
            write_unsigned_varint(out, len(tags[tag]))
            out.write(tags[tag])
    entity_writer(type(body))(out, body)
    return out.getvalue()


def decode_response(api_key: int, api_version: int, frame: bytes | bytearray | memoryview) -> DecodedResponse:
    """Parse a size-stripped response to a request this side sent; ApiVersions falls back to v0 like Kafka."""
    api = ApiKeys.for_key(api_key)
    buf = memoryview(bytes(frame))
    versions = [api_version, 0] if api is ApiKeys.API_VERSIONS and api_version != 0 else [api_version]
    for attempt, version in enumerate(versions):
        try:
            (correlation_id,) = struct.unpack_from(">i", buf)
            pos, tagged = 4, {}
            if api.response_header_version(version) >= 1:
                tagged, size = _read_tagged(buf, pos)
                pos += size
            body, size = _entity_reader(api.response_schema(version))(buf, pos)
            if pos + size != len(buf):
                raise InvalidResponseError(f"{len(buf) - pos - size} bytes after the body")
            return DecodedResponse(correlation_id, body, tagged)
        except Exception as e:
            if attempt == len(versions) - 1:
                raise InvalidResponseError(f"Error parsing {api.api_name} v{version} response: {e!r}") from e
    raise AssertionError("unreachable")


def check_body(body: Any, api: ApiKeys, version: int, kind: str) -> None:
    if getattr(body, "__api_key__", None) != api.id or getattr(body, "__version__", None) != version \
            or getattr(body, "__type__", None) is None or body.__type__.name != kind:
        raise TypeError(f"{type(body).__name__} is not a {api.api_name} v{version} {kind}")


@functools.cache
def _api_version_v0() -> type[Any]:
    from kio.schema.api_versions.v0.response import ApiVersion

    return ApiVersion


def join_client_id(client_id: str | None, traceparent: str) -> str | None:
    """The client id a header v1 carries: `client_id` with the traceparent suffix; `client_id` as it is when the
    suffix would not read back (not a version-00 traceparent) or would not fit in the string."""
    joined = (client_id or "") + CLIENT_ID_TRACEPARENT_MARKER + traceparent
    if _CLIENT_ID_TRACEPARENT.search(joined) is None or len(joined.encode()) > _MAX_CLIENT_ID_BYTES:
        return client_id
    return joined


def split_client_id(client_id: str) -> tuple[str, str | None]:
    """(plain client id, traceparent) from a header v1's client id; (client_id, None) when it has no well-formed
    suffix (then anything that looks like one is part of the client id)."""
    match = _CLIENT_ID_TRACEPARENT.search(client_id)
    if match is None:
        return client_id, None
    return client_id[:match.start()], match.group(1)


def _traceparent(raw: bytes | None) -> str | None:
    try:
        return None if raw is None else raw.decode("ascii")
    except UnicodeDecodeError:
        return None  # a bad trace header never fails the request


def _read_request_header(buf: memoryview, header_version: int) -> tuple[int, str, dict[int, bytes], int]:
    (correlation_id,) = struct.unpack_from(">i", buf, 4)
    pos, client_id, tagged = 8, None, {}
    if header_version >= 1:  # client id stays a legacy nullable string even in header v2
        client_id, size = _string_reader(False, True, False)(buf, pos)
        pos += size
    if header_version >= 2:
        tagged, size = _read_tagged(buf, pos)
        pos += size
    return correlation_id, client_id or "", tagged, pos


def _read_tagged(buf: memoryview, offset: int) -> tuple[dict[int, bytes], int]:
    count, pos = _uvarint(buf, offset)
    tagged = {}
    for _ in range(count):
        tag, pos = _uvarint(buf, pos)
        size, pos = _uvarint(buf, pos)
        tagged[tag] = bytes(_take(buf, pos, size))
        pos += size
    return tagged, pos - offset


def _uvarint(buf: memoryview, pos: int) -> tuple[int, int]:
    value, size = readers.read_unsigned_varint(buf, pos)
    return value, pos + size


def _take(buf: memoryview, pos: int, size: int) -> memoryview:
    if size < 0 or pos + size > len(buf):
        raise InvalidRequestError(f"field of {size} bytes at {pos} runs past the end of the {len(buf)}-byte frame")
    return buf[pos:pos + size]


# kio's own reader fails on unknown tagged fields, trusts negative lengths and raises on invalid UTF-8, where Kafka
# skips, rejects and replaces; so the walk over kio's schema classes is done here, reusing kio's fixed-width readers.

def _string_reader(flexible: bool, nullable: bool, as_bytes: bool) -> Reader:
    def read(buf: memoryview, offset: int) -> tuple[Any, int]:
        if flexible:
            length, end = _uvarint(buf, offset)
            length -= 1
        else:
            fmt = ">i" if as_bytes else ">h"
            (length,) = struct.unpack_from(fmt, _take(buf, offset, struct.calcsize(fmt)))
            end = offset + struct.calcsize(fmt)
        if length < 0:
            if nullable:
                return None, end - offset
            raise InvalidRequestError("non-nullable field was serialized as null")
        if not as_bytes and length > 0x7FFF:
            raise InvalidRequestError(f"string field had invalid length {length}")
        raw = bytes(_take(buf, end, length))
        return (raw if as_bytes else raw.decode("utf-8", "replace")), end + length - offset

    return read


def _records_reader(flexible: bool, nullable: bool) -> Reader:
    """A records field: like bytes, except that over a writable frame (a receive buffer, which is never reused) the
    value is a view of the frame, as Kafka's MemoryRecords is a slice of the request's buffer: a produce request's
    records are then validated and appended without being copied first."""
    read_bytes = _string_reader(flexible, nullable, True)

    def read(buf: memoryview, offset: int) -> tuple[Any, int]:
        if buf.readonly:
            return read_bytes(buf, offset)
        if flexible:
            length, end = _uvarint(buf, offset)
            length -= 1
        else:
            (length,) = struct.unpack_from(">i", _take(buf, offset, 4))
            end = offset + 4
        if length < 0:
            if nullable:
                return None, end - offset
            raise InvalidRequestError("non-nullable field was serialized as null")
        return _take(buf, end, length), end + length - offset

    return read


def _read_error_code(buf: memoryview, offset: int) -> tuple[Any, int]:
    code, size = readers.read_int16(buf, offset)
    return ErrorCode._value2member_map_.get(code, code), size


def _primitive_reader(kafka_type: str, flexible: bool, nullable: bool) -> Reader:
    if kafka_type == "records":
        return _records_reader(flexible, nullable)
    if kafka_type in ("string", "bytes"):
        return _string_reader(flexible, nullable, kafka_type == "bytes")
    if kafka_type == "error_code":
        return _read_error_code
    return get_reader(kafka_type, flexible, nullable)


def _array_reader(item: Reader, flexible: bool, nullable: bool) -> Reader:
    def read(buf: memoryview, offset: int) -> tuple[Any, int]:
        if flexible:
            length, pos = _uvarint(buf, offset)
            length -= 1
        else:
            (length,) = struct.unpack_from(">i", _take(buf, offset, 4))
            pos = offset + 4
        if length < 0:
            if nullable:
                return None, pos - offset
            raise InvalidRequestError("non-nullable array was serialized as null")
        if length > len(buf) - pos:
            raise InvalidRequestError(f"array of {length} items but only {len(buf) - pos} bytes remain")
        items = []
        for _ in range(length):
            value, size = item(buf, pos)
            items.append(value)
            pos += size
        return tuple(items), pos - offset

    return read


def _field_reader(field: dataclasses.Field[Any], flexible: bool, tagged: bool) -> Reader:
    kind = classify_field(field)
    nullable = is_optional(field) and not tagged
    if isinstance(kind, EntityTupleField):
        return _array_reader(_entity_reader(kind.type_), flexible, nullable)
    if isinstance(kind, PrimitiveTupleField):
        return _array_reader(_primitive_reader(get_schema_field_type(field), flexible, False), flexible, nullable)
    if isinstance(kind, EntityField):
        return _entity_reader(kind.type_, nullable)
    return _primitive_reader(get_schema_field_type(field), flexible, nullable)


@functools.cache
def _entity_reader(entity_type: type[Any], nullable: bool = False) -> Reader:
    flexible = entity_type.__flexible__
    plain: list[tuple[str, Reader]] = []
    tagged: dict[int, tuple[str, Reader]] = {}
    defaults: dict[str, Any] = {}
    for field in dataclasses.fields(entity_type):
        tag = get_field_tag(field)
        reader = _field_reader(field, flexible, tag is not None)
        if tag is None:
            plain.append((field.name, reader))
        else:
            tagged[tag] = (field.name, reader)
            defaults[field.name] = get_tagged_field_default(field)

    def read(buf: memoryview, offset: int) -> tuple[Any, int]:
        pos = offset
        if nullable:
            (marker,) = struct.unpack_from(">b", _take(buf, pos, 1))
            pos += 1
            if marker < 0:
                return None, 1
        values: dict[str, Any] = {}
        for name, reader in plain:
            values[name], size = reader(buf, pos)
            pos += size
        if flexible:
            count, pos = _uvarint(buf, pos)
            for _ in range(count):
                tag, pos = _uvarint(buf, pos)
                size, pos = _uvarint(buf, pos)
                _take(buf, pos, size)
                if tag in tagged:  # unknown tags are skipped, as Kafka keeps them aside unread
                    name, reader = tagged[tag]
                    values[name], used = reader(buf, pos)
                    if used != size:
                        raise InvalidRequestError(f"tagged field {tag} declared {size} bytes but holds {used}")
                pos += size
            for name, default in defaults.items():
                values.setdefault(name, default)
        return entity_type(**values), pos - offset

    return read
