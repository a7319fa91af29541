"""Port of clients/.../record/DefaultRecord.java and the varint helpers of utils/ByteUtils.java (Kafka 1.0.2)."""

from __future__ import annotations

from dataclasses import dataclass

from kafka_edu.common.errors import InvalidRecordException

NO_SEQUENCE = -1
INT_MAX = 2**31 - 1


class _Underflow(Exception):
    """BufferUnderflowException: a field runs past the end of the buffer."""


def read_varlong(buffer: bytes | bytearray | memoryview, position: int) -> tuple[int, int]:
    """A zig-zag varint of up to 10 bytes; returns (value, position after it)."""
    value = 0
    shift = 0
    while True:
        if position >= len(buffer):
            raise _Underflow()
        b = buffer[position]
        position += 1
        value |= (b & 0x7F) << shift
        if b & 0x80 == 0:
            return (value >> 1) ^ -(value & 1), position
        shift += 7
        if shift > 63:
            raise InvalidRecordException("Varlong is too long, most significant bit in the 10th byte is set")


def read_varint(buffer: bytes | bytearray | memoryview, position: int) -> tuple[int, int]:
    """A zig-zag varint of up to 5 bytes (ByteUtils.readVarint)."""
    value, end = read_varlong(buffer, position)
    if end - position > 5:
        raise InvalidRecordException("Varint is too long, the most significant bit in the 5th byte is set")
    return value, end


def write_varlong(value: int, out: bytearray) -> None:
    v = ((value << 1) ^ (value >> 63)) & 0xFFFFFFFFFFFFFFFF
    while v & ~0x7F:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)


def write_varint(value: int, out: bytearray) -> None:
    write_varlong(value, out)


def size_of_varint(value: int) -> int:
    out = bytearray()
    write_varlong(value, out)
    return len(out)


def increment_sequence(base_sequence: int, increment: int) -> int:
    """Sequences wrap from Integer.MAX_VALUE back to 0 (DefaultRecordBatch.incrementSequence)."""
    if base_sequence > INT_MAX - increment:
        return increment - (INT_MAX - base_sequence) - 1
    return base_sequence + increment


@dataclass
class DefaultRecord:
    """One record of a v2 batch with its absolute offset and timestamp already resolved."""

    size_in_bytes: int
    attributes: int
    offset: int
    timestamp: int
    sequence: int
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes | None]]

    def has_key(self) -> bool:
        return self.key is not None

    @staticmethod
    def read_from(buffer: bytes | bytearray | memoryview, position: int, base_offset: int, base_timestamp: int,
                  base_sequence: int, log_append_time: int | None) -> tuple[DefaultRecord, int]:
        """Parse the record at `position`; returns it and the position after it."""
        try:
            size_of_body, body_start = read_varint(buffer, position)
            if len(buffer) - body_start < size_of_body:
                raise _Underflow()
            total_size = body_start - position + size_of_body
            end = body_start + size_of_body
            body = memoryview(buffer)[:end]  # reads must not run into the next record
            p = body_start
            if p >= end:
                raise _Underflow()
            attributes = body[p]
            p += 1
            timestamp_delta, p = read_varlong(body, p)
            timestamp = log_append_time if log_append_time is not None else base_timestamp + timestamp_delta
            offset_delta, p = read_varint(body, p)
            offset = base_offset + offset_delta
            sequence = NO_SEQUENCE if base_sequence < 0 else increment_sequence(base_sequence, offset_delta)
            key, p = DefaultRecord._read_bytes(body, p)
            value, p = DefaultRecord._read_bytes(body, p)
            num_headers, p = read_varint(body, p)
            if num_headers < 0:
                raise InvalidRecordException(f"Found invalid number of record headers {num_headers}")
            headers: list[tuple[str, bytes | None]] = []
            for _ in range(num_headers):
                header_key, p = DefaultRecord._read_bytes(body, p)
                if header_key is None:
                    raise InvalidRecordException("Invalid negative header key size")
                header_value, p = DefaultRecord._read_bytes(body, p)
                headers.append((header_key.decode("utf-8", errors="replace"), header_value))
        except _Underflow:
            raise InvalidRecordException("Found invalid record structure") from None
        if p != end:
            raise InvalidRecordException(f"Invalid record size: expected to read {size_of_body} bytes in record "
                                         f"payload, but instead read {p - body_start}")
        return DefaultRecord(total_size, attributes, offset, timestamp, sequence, key, value, headers), end

    @staticmethod
    def _read_bytes(buffer: bytes | bytearray | memoryview, position: int) -> tuple[bytes | None, int]:
        size, position = read_varint(buffer, position)
        if size < 0:
            return None, position
        if position + size > len(buffer):
            raise _Underflow()
        return bytes(buffer[position : position + size]), position + size

    @staticmethod
    def write_to(out: bytearray, offset_delta: int, timestamp_delta: int, key: bytes | None, value: bytes | None,
                 headers: list[tuple[str, bytes | None]]) -> int:
        """Append one record (attributes 0) to `out`; returns the bytes written."""
        body = bytearray([0])
        write_varlong(timestamp_delta, body)
        write_varint(offset_delta, body)
        for field in (key, value):
            if field is None:
                write_varint(-1, body)
            else:
                write_varint(len(field), body)
                body += field
        write_varint(len(headers), body)
        for header_key, header_value in headers:
            encoded = header_key.encode("utf-8")
            write_varint(len(encoded), body)
            body += encoded
            if header_value is None:
                write_varint(-1, body)
            else:
                write_varint(len(header_value), body)
                body += header_value
        start = len(out)
        write_varint(len(body), out)
        out += body
        return len(out) - start
