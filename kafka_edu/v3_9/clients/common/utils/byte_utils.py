"""Port of the varint and unsigned-int helpers of clients/src/main/java/org/apache/kafka/common/utils/ByteUtils.java
(Kafka 3.9): zig-zag varints as record format v2 writes them.

Kafka reads from a ByteBuffer's position; here a read takes (buffer, position) and returns (value, next position).
"""

from __future__ import annotations

import struct

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException

_U32 = struct.Struct(">I")
_MASK32 = 0xFFFFFFFF
_MASK64 = 0xFFFFFFFFFFFFFFFF

Buffer = bytes | bytearray | memoryview


class BufferUnderflowException(Exception):
    """java.nio.BufferUnderflowException: a read ran past the buffer's limit."""


def read_unsigned_int(buffer: Buffer, index: int) -> int:
    return _U32.unpack_from(buffer, index)[0]


def write_unsigned_int(buffer: bytearray | memoryview, index: int, value: int) -> None:
    _U32.pack_into(buffer, index, value & _MASK32)


def _to_int32(value: int) -> int:
    value &= _MASK32
    return value - (1 << 32) if value & 0x80000000 else value


def _to_int64(value: int) -> int:
    value &= _MASK64
    return value - (1 << 64) if value & (1 << 63) else value


def read_unsigned_varint(buffer: Buffer, position: int) -> tuple[int, int]:
    """At most 5 bytes; the value is an unsigned 32-bit int (as Java's int, it may come back negative)."""
    value = 0
    i = 0
    while True:
        if position >= len(buffer):
            raise BufferUnderflowException()
        b = buffer[position]
        position += 1
        if b & 0x80 == 0:
            return _to_int32(value | (b << i)), position
        value |= (b & 0x7F) << i
        i += 7
        if i > 28:
            raise IllegalArgumentException("Varint is too long, the most significant bit in the 5th byte is set, "
                                           f"converted value: {_to_int32(value):x}")


def read_varint(buffer: Buffer, position: int) -> tuple[int, int]:
    # Fast path: a one-byte varint, the common case for sizes and deltas.
    if position < len(buffer):
        b = buffer[position]
        if b < 0x80:
            return (b >> 1) ^ -(b & 1), position + 1
    raw, position = read_unsigned_varint(buffer, position)
    raw &= _MASK32
    return _to_int32((raw >> 1) ^ -(raw & 1)), position


def read_unsigned_varlong(buffer: Buffer, position: int) -> tuple[int, int]:
    value = 0
    i = 0
    while True:
        if position >= len(buffer):
            raise BufferUnderflowException()
        b = buffer[position]
        position += 1
        if b & 0x80 == 0:
            return (value | (b << i)) & _MASK64, position
        value |= (b & 0x7F) << i
        i += 7
        if i > 63:
            raise IllegalArgumentException("Varlong is too long, most significant bit in the 10th byte is set, "
                                           f"converted value: {_to_int64(value):x}")


def read_varlong(buffer: Buffer, position: int) -> tuple[int, int]:
    if position < len(buffer):
        b = buffer[position]
        if b < 0x80:
            return (b >> 1) ^ -(b & 1), position + 1
    raw, position = read_unsigned_varlong(buffer, position)
    return _to_int64((raw >> 1) ^ -(raw & 1)), position


def write_unsigned_varint(value: int, out: bytearray) -> None:
    value &= _MASK32
    while value & ~0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


def write_varint(value: int, out: bytearray) -> None:
    write_unsigned_varint((value << 1) ^ (value >> 31), out)


def write_unsigned_varlong(value: int, out: bytearray) -> None:
    value &= _MASK64
    while value & ~0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


def write_varlong(value: int, out: bytearray) -> None:
    write_unsigned_varlong((value << 1) ^ (value >> 63), out)


def size_of_unsigned_varint(value: int) -> int:
    value &= _MASK32
    size = 1
    while value & ~0x7F:
        size += 1
        value >>= 7
    return size


def size_of_varint(value: int) -> int:
    return size_of_unsigned_varint((value << 1) ^ (value >> 31))


def size_of_unsigned_varlong(value: int) -> int:
    value &= _MASK64
    size = 1
    while value & ~0x7F:
        size += 1
        value >>= 7
    return size


def size_of_varlong(value: int) -> int:
    return size_of_unsigned_varlong((value << 1) ^ (value >> 63))
