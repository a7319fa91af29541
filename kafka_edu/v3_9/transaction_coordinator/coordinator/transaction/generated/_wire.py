"""The few primitives of Kafka's generated-message wire format that TransactionLogKey/Value use (Kafka 3.9's
org.apache.kafka.common.protocol.ByteBufferAccessor, Readable/Writable and RawTaggedField, cut to what is needed).

Not generated code: Kafka generates these classes from JSON; the port writes the two small ones by hand.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from kafka_edu.v3_9.clients.common.utils import byte_utils

_I8, _I16, _I32, _I64 = struct.Struct(">b"), struct.Struct(">h"), struct.Struct(">i"), struct.Struct(">q")


@dataclass(frozen=True)
class RawTaggedField:
    """A tagged field this version does not know: kept as bytes so a rewrite does not lose it."""

    tag: int
    data: bytes


class Readable:
    """A cursor over bytes (ByteBufferAccessor's reads); `position` is where the next read starts."""

    def __init__(self, data: bytes | bytearray | memoryview, position: int = 0) -> None:
        self.data = memoryview(bytes(data))
        self.position = position

    def _take(self, size: int) -> memoryview:
        if self.position + size > len(self.data):
            raise ValueError(f"Tried to read {size} bytes at {self.position} of a {len(self.data)} byte buffer")
        chunk = self.data[self.position:self.position + size]
        self.position += size
        return chunk

    def read_byte(self) -> int:
        return _I8.unpack(self._take(1))[0]

    def read_short(self) -> int:
        return _I16.unpack(self._take(2))[0]

    def read_int(self) -> int:
        return _I32.unpack(self._take(4))[0]

    def read_long(self) -> int:
        return _I64.unpack(self._take(8))[0]

    def read_unsigned_varint(self) -> int:
        value, self.position = byte_utils.read_unsigned_varint(self.data, self.position)
        return value

    def read_string(self, length: int) -> str:
        return bytes(self._take(length)).decode("utf-8")

    def read_bytes(self, length: int) -> bytes:
        return bytes(self._take(length))

    def read_unknown_tagged_fields(self) -> list[RawTaggedField]:
        fields = []
        for _ in range(self.read_unsigned_varint()):
            tag = self.read_unsigned_varint()
            fields.append(RawTaggedField(tag, self.read_bytes(self.read_unsigned_varint())))
        return fields


class Writable:
    """Appends to a bytearray (ByteBufferAccessor's writes)."""

    def __init__(self) -> None:
        self.out = bytearray()

    def write_byte(self, value: int) -> None:
        self.out += _I8.pack(value)

    def write_short(self, value: int) -> None:
        self.out += _I16.pack(value)

    def write_int(self, value: int) -> None:
        self.out += _I32.pack(value)

    def write_long(self, value: int) -> None:
        self.out += _I64.pack(value)

    def write_unsigned_varint(self, value: int) -> None:
        byte_utils.write_unsigned_varint(value, self.out)

    def write_bytes(self, data: bytes) -> None:
        self.out += data

    def write_string(self, value: str, flexible: bool) -> None:
        encoded = value.encode("utf-8")
        if flexible:
            self.write_unsigned_varint(len(encoded) + 1)
        else:
            if len(encoded) > 0x7FFF:
                raise ValueError(f"'{value[:20]}...' is longer than 32767 bytes")
            self.write_short(len(encoded))
        self.write_bytes(encoded)

    def write_tagged_fields(self, fields: list[RawTaggedField]) -> None:
        self.write_unsigned_varint(len(fields))
        for field in sorted(fields, key=lambda f: f.tag):
            self.write_unsigned_varint(field.tag)
            self.write_unsigned_varint(len(field.data))
            self.write_bytes(field.data)


def read_string(readable: Readable, flexible: bool, field: str) -> str:
    length = readable.read_unsigned_varint() - 1 if flexible else readable.read_short()
    if length < 0:
        raise ValueError(f"non-nullable field {field} was serialized as null")
    if length > 0x7FFF:
        raise ValueError(f"string field {field} had invalid length {length}")
    return readable.read_string(length)
