"""Port of the part of clients/src/main/java/org/apache/kafka/common/protocol/types/Type.java (Kafka 1.0.2) that the
coordinators' own log records use: `__consumer_offsets` and `__transaction_state` keys and values are Kafka protocol
structs (INT8/16/32/64, STRING, NULLABLE_STRING, BYTES, arrays), big-endian, each led by its int16 schema version."""

from __future__ import annotations

import struct

from kafka_edu.v1_0_2.clients.common.errors import KafkaException


class TypeWriter:
    """Appends Kafka protocol types to a byte buffer; every method returns the writer, to chain."""

    def __init__(self) -> None:
        self.out = bytearray()

    def int8(self, v: int) -> TypeWriter:
        self.out += struct.pack(">b", v)
        return self

    def int16(self, v: int) -> TypeWriter:
        self.out += struct.pack(">h", v)
        return self

    def int32(self, v: int) -> TypeWriter:
        self.out += struct.pack(">i", v)
        return self

    def int64(self, v: int) -> TypeWriter:
        self.out += struct.pack(">q", v)
        return self

    def string(self, v: str) -> TypeWriter:
        data = v.encode("utf-8")
        return self.int16(len(data)).raw(data)

    def nullable_string(self, v: str | None) -> TypeWriter:
        return self.int16(-1) if v is None else self.string(v)

    def bytes_(self, v: bytes) -> TypeWriter:
        return self.int32(len(v)).raw(v)

    def raw(self, v: bytes) -> TypeWriter:
        self.out += v
        return self


class TypeReader:
    """Reads Kafka protocol types from a buffer; running out of bytes is a KafkaException naming `what`."""

    def __init__(self, buffer: bytes, what: str = "record") -> None:
        self.buffer = buffer
        self.position = 0
        self.what = what

    def _unpack(self, fmt: str, size: int) -> int:
        if self.position + size > len(self.buffer):
            raise KafkaException(f"Error reading {self.what}: buffer underflow")
        (value,) = struct.unpack_from(fmt, self.buffer, self.position)
        self.position += size
        return value

    def int8(self) -> int:
        return self._unpack(">b", 1)

    def int16(self) -> int:
        return self._unpack(">h", 2)

    def int32(self) -> int:
        return self._unpack(">i", 4)

    def int64(self) -> int:
        return self._unpack(">q", 8)

    def _take(self, n: int) -> bytes:
        if n < 0 or self.position + n > len(self.buffer):
            raise KafkaException(f"Error reading {self.what}: buffer underflow")
        data = self.buffer[self.position:self.position + n]
        self.position += n
        return bytes(data)

    def string(self) -> str:
        length = self.int16()
        if length < 0:
            raise KafkaException(f"Error reading {self.what}: non-nullable string is null")
        return self._take(length).decode("utf-8")

    def nullable_string(self) -> str | None:
        length = self.int16()
        return None if length < 0 else self._take(length).decode("utf-8")

    def bytes_(self) -> bytes:
        return self._take(self.int32())
