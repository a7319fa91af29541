"""The read and write at a version that Kafka 3.9's message generator (generator/.../MessageDataGenerator.java) puts
into each generated class, for the kio-style records of this package, and MessageUtil.toVersionPrefixedBytes.

Not a port of one Kafka file: Kafka generates a read(Readable, version) and write(Writable, cache, version) into
every message class; here one codec walks the dataclass fields instead. It reads, per field, the metadata the JSON
gives: `kafka_type`, `versions` ("0+", "3+", "1", "0-1"; missing: every version), `ignorable` and `tag`. A class
gives its versions as `__valid_versions__` and `__flexible_versions__` (JSON spelling), or, for a single-version
record, `__version__` and `__flexible__`. Nullability comes from the type hint (`str | None`).

Encoding, as Kafka's: before the first flexible version strings are int16-length, bytes and arrays int32-length
(-1 for null); from it on they are compact (uvarint length + 1, 0 for null) and every struct ends with its tagged
fields. Unknown tagged fields are skipped when read (Kafka keeps them to write back; no record here needs that).
A version outside the class's valid range is not refused: like the generated code, whose version checks only test
the bounds that fall inside the valid range, a field present at the lowest (highest) valid version is present at
every lower (higher) one; so a key written at another record type has the same body.
"""

from __future__ import annotations

import dataclasses
import struct
import types
import typing
import uuid
from typing import Any, TypeVar

from kafka_edu.v1_0_2.clients.common.errors import UnsupportedVersionException
from kafka_edu.v3_9.clients.common.utils.byte_utils import (
    Buffer,
    BufferUnderflowException,
    read_unsigned_varint,
    write_unsigned_varint,
)

M = TypeVar("M")

_NO_UPPER = 0x7FFF
_INTS = {"int8": struct.Struct(">b"), "int16": struct.Struct(">h"), "int32": struct.Struct(">i"),
         "int64": struct.Struct(">q")}
_I16 = _INTS["int16"]
_I32 = _INTS["int32"]


def _parse_versions(text: str) -> tuple[int, int]:
    """A JSON version range: "none" is empty, "3+" open-ended, "1" a single version, "0-1" a closed range."""
    if text == "none":
        return 1, 0
    if text.endswith("+"):
        return int(text[:-1]), _NO_UPPER
    low, _, high = text.partition("-")
    return int(low), int(high or low)


def _valid_versions(message_class: type) -> tuple[int, int]:
    valid = getattr(message_class, "__valid_versions__", None)
    if valid is not None:
        return _parse_versions(valid)
    version = int(message_class.__version__)  # type: ignore[attr-defined]
    return version, version


def _is_flexible(message_class: type, version: int) -> bool:
    flexible = getattr(message_class, "__flexible_versions__", None)
    if flexible is None:
        return bool(message_class.__flexible__)  # type: ignore[attr-defined]
    if flexible == "none":
        return False
    first = _parse_versions(flexible)[0]
    return first <= _valid_versions(message_class)[0] or version >= first


def lowest_supported_version(message_class: type) -> int:
    return _valid_versions(message_class)[0]


def highest_supported_version(message_class: type) -> int:
    return _valid_versions(message_class)[1]


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.capitalize() for word in rest)


class _Field:
    """One dataclass field as the codec needs it: wire type, presence by version, nullability, tag."""

    __slots__ = ("name", "kafka_type", "versions", "ignorable", "tag", "nullable", "array", "struct", "default")

    def __init__(self, field: dataclasses.Field[Any], hint: Any, valid: tuple[int, int]) -> None:
        self.name = field.name
        self.kafka_type: str | None = field.metadata.get("kafka_type")
        low, high = _parse_versions(field.metadata.get("versions", "0+"))
        # a bound at or past the valid range's is not tested, as in the generated code
        self.versions = (low if low > valid[0] else -1, high if high < valid[1] else _NO_UPPER)
        self.ignorable = bool(field.metadata.get("ignorable", False))
        self.tag: int | None = field.metadata.get("tag")
        self.default = field.default if field.default is not dataclasses.MISSING else None
        self.nullable = False
        if typing.get_origin(hint) in (types.UnionType, typing.Union) and type(None) in typing.get_args(hint):
            self.nullable = True
            hint = next(arg for arg in typing.get_args(hint) if arg is not type(None))
        self.array = typing.get_origin(hint) is tuple
        element = typing.get_args(hint)[0] if self.array else hint
        self.struct: type | None = element if dataclasses.is_dataclass(element) else None

    def present(self, version: int) -> bool:
        return self.versions[0] <= version <= self.versions[1]


_FIELDS: dict[tuple[type, tuple[int, int]], list[_Field]] = {}


def _fields(struct_class: type, valid: tuple[int, int]) -> list[_Field]:
    key = (struct_class, valid)
    fields = _FIELDS.get(key)
    if fields is None:
        hints = typing.get_type_hints(struct_class)
        fields = [_Field(field, hints[field.name], valid) for field in dataclasses.fields(struct_class)]
        _FIELDS[key] = fields
    return fields


# --- write ---

def _write_length(out: bytearray, length: int, flexible: bool, int16: bool = False) -> None:
    """A string (int16), bytes or array (int32) length, -1 for null; compact: uvarint length + 1, 0 for null."""
    if flexible:
        write_unsigned_varint(length + 1, out)
    else:
        out += (_I16 if int16 else _I32).pack(length)


def _write_primitive(out: bytearray, kafka_type: str, value: Any, flexible: bool) -> None:
    if kafka_type in _INTS:
        out += _INTS[kafka_type].pack(value)
    elif kafka_type == "bool":
        out.append(1 if value else 0)
    elif kafka_type == "uuid":
        out += value.bytes
    elif kafka_type in ("string", "bytes"):
        if value is None:
            _write_length(out, -1, flexible, int16=kafka_type == "string")
            return
        data = value.encode("utf-8") if kafka_type == "string" else bytes(value)
        _write_length(out, len(data), flexible, int16=kafka_type == "string")
        out += data
    else:
        raise NotImplementedError(f"kafka_type {kafka_type}")


def _write_value(out: bytearray, field: _Field, value: Any, version: int, flexible: bool,
                 valid: tuple[int, int]) -> None:
    if value is None and not field.nullable:
        raise TypeError(f"non-nullable field {_camel(field.name)} is null")
    if field.array:
        if value is None:
            _write_length(out, -1, flexible)
            return
        _write_length(out, len(value), flexible)
        for element in value:
            if field.struct is not None:
                _write_struct(out, element, version, flexible, valid)
            else:
                _write_primitive(out, field.kafka_type or "", element, flexible)
    elif field.struct is not None:
        if field.nullable:  # a nullable struct carries a presence byte (KIP-893), tagged or not
            out += _INTS["int8"].pack(-1 if value is None else 1)
            if value is None:
                return
        _write_struct(out, value, version, flexible, valid)
    else:
        _write_primitive(out, field.kafka_type or "", value, flexible)


def _write_struct(out: bytearray, message: Any, version: int, flexible: bool, valid: tuple[int, int]) -> None:
    tagged: list[tuple[int, bytes]] = []
    for field in _fields(type(message), valid):
        value = getattr(message, field.name)
        if not field.present(version):
            # a field the version has not got may be dropped only if the schema says it is ignorable
            if not field.ignorable and value != field.default:
                raise UnsupportedVersionException(
                    f"Attempted to write a non-default {_camel(field.name)} at version {version}")
            continue
        if field.tag is not None:
            if flexible and value != field.default:
                data = bytearray()
                _write_value(data, field, value, version, flexible, valid)
                tagged.append((field.tag, bytes(data)))
            elif value != field.default:
                raise UnsupportedVersionException(
                    f"Attempted to write a non-default {_camel(field.name)} at version {version}")
            continue
        _write_value(out, field, value, version, flexible, valid)
    if flexible:
        write_unsigned_varint(len(tagged), out)
        for tag, data in sorted(tagged):
            write_unsigned_varint(tag, out)
            write_unsigned_varint(len(data), out)
            out += data


def write_message(message: Any, version: int, out: bytearray | None = None) -> bytes:
    """The message at `version`, appended to `out` when given; the bytes written are returned."""
    message_class = type(message)
    start = 0 if out is None else len(out)
    buffer = bytearray() if out is None else out
    _write_struct(buffer, message, version, _is_flexible(message_class, version), _valid_versions(message_class))
    return bytes(buffer[start:])


def to_version_prefixed_bytes(version: int, message: Any) -> bytes:
    """MessageUtil.toVersionPrefixedBytes: the int16 version, then the message at that version."""
    out = bytearray(_I16.pack(version))
    write_message(message, version, out)
    return bytes(out)


# --- read ---

class _Reader:
    """A position over a buffer; running past its end raises BufferUnderflowException, as a ByteBuffer does."""

    def __init__(self, data: Buffer, position: int) -> None:
        self.data = memoryview(data)
        self.position = position

    def take(self, size: int) -> bytes:
        if size < 0 or self.position + size > len(self.data):
            raise BufferUnderflowException()
        chunk = bytes(self.data[self.position:self.position + size])
        self.position += size
        return chunk

    def unpack(self, fmt: struct.Struct) -> int:
        return fmt.unpack(self.take(fmt.size))[0]

    def uvarint(self) -> int:
        value, self.position = read_unsigned_varint(self.data, self.position)
        return value

    def length(self, flexible: bool, int16: bool = False) -> int:
        if flexible:
            return self.uvarint() - 1
        return self.unpack(_I16 if int16 else _I32)


def _read_primitive(reader: _Reader, field: _Field, kafka_type: str, flexible: bool) -> Any:
    if kafka_type in _INTS:
        return reader.unpack(_INTS[kafka_type])
    if kafka_type == "bool":
        return reader.take(1)[0] != 0
    if kafka_type == "uuid":
        return uuid.UUID(bytes=reader.take(16))
    if kafka_type in ("string", "bytes"):
        length = reader.length(flexible, int16=kafka_type == "string")
        if length < 0:
            if not field.nullable or field.array:
                raise RuntimeError(f"non-nullable field {_camel(field.name)} was serialized as null")
            return None
        if kafka_type == "string" and length > _NO_UPPER:
            raise RuntimeError(f"string field {_camel(field.name)} had invalid length {length}")
        data = reader.take(length)
        return data.decode("utf-8") if kafka_type == "string" else data
    raise NotImplementedError(f"kafka_type {kafka_type}")


def _read_value(reader: _Reader, field: _Field, version: int, flexible: bool, valid: tuple[int, int]) -> Any:
    if field.array:
        length = reader.length(flexible)
        if length < 0:
            if not field.nullable:
                raise RuntimeError(f"non-nullable field {_camel(field.name)} was serialized as null")
            return None
        if field.struct is not None:
            struct_class = field.struct
            return tuple(_read_struct(reader, struct_class, version, flexible, valid) for _ in range(length))
        return tuple(_read_primitive(reader, field, field.kafka_type or "", flexible) for _ in range(length))
    if field.struct is not None:
        if field.nullable and reader.unpack(_INTS["int8"]) < 0:
            return None
        return _read_struct(reader, field.struct, version, flexible, valid)
    return _read_primitive(reader, field, field.kafka_type or "", flexible)


def _read_struct(reader: _Reader, struct_class: type, version: int, flexible: bool, valid: tuple[int, int]) -> Any:
    values: dict[str, Any] = {}
    fields = _fields(struct_class, valid)
    for field in fields:
        if field.tag is None and field.present(version):
            values[field.name] = _read_value(reader, field, version, flexible, valid)
    if flexible:
        by_tag = {field.tag: field for field in fields if field.tag is not None and field.present(version)}
        for _ in range(reader.uvarint()):
            tag = reader.uvarint()
            size = reader.uvarint()
            field = by_tag.get(tag)
            if field is None:
                reader.take(size)  # unknown to this version: skipped
                continue
            end = reader.position + size
            values[field.name] = _read_value(reader, field, version, flexible, valid)
            if reader.position != end:
                raise RuntimeError(f"tagged field {_camel(field.name)} had {size} bytes, read "
                                   f"{reader.position - end + size}")
    return struct_class(**values)


def read_message(message_class: type[M], data: Buffer, version: int, position: int = 0) -> tuple[M, int]:
    """A `message_class` read at `version` from `data` at `position`, and the position after it. Fields the
    version has not got keep their defaults."""
    reader = _Reader(data, position)
    message = _read_struct(reader, message_class, version, _is_flexible(message_class, version),
                           _valid_versions(message_class))
    return message, reader.position
