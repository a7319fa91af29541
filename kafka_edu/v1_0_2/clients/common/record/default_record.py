"""Port of clients/.../record/DefaultRecord.java and the varint helpers of utils/ByteUtils.java (Kafka 1.0.2)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from kafka_edu.v1_0_2.clients.common.errors import InvalidRecordException

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


class RecordsSummary(NamedTuple):
    """What LogValidator needs from a batch's records when it keeps the batch's bytes: no keys, values or headers.

    Timestamps are deltas from the batch's firstTimestamp; the offset of the largest timestamp is that of the first
    record carrying it, as a record-by-record scan with a strict `>` finds it.
    """

    min_timestamp_delta: int
    max_timestamp_delta: int
    index_of_max_timestamp: int  # position of that record in the batch, 0 for the first
    has_null_key: bool
    offset_deltas_in_order: bool  # offset deltas are exactly 0, 1, 2, ...


def read_records_partially(data: bytes | bytearray | memoryview, position: int, end: int,
                           count: int) -> RecordsSummary | None:
    """Walk `count` records in data[position:end] checking each one's framing as read_from does, reading no payload.

    The port of what later Kafka versions do with DefaultRecord.readPartiallyFrom (the batch's skipKeyValueIterator):
    each record's size, attributes, timestamp and offset deltas, key and value lengths and every header's key and value
    lengths are read, the bytes between them skipped, and the fields must end exactly where the record's size says,
    with exactly `count` records ending exactly at `end`. Returns None if any record would fail read_from (or for an
    empty batch): callers then walk the records with read_from, which raises the error for the first bad record.
    Varints of one or two bytes, the common case, are decoded inline.
    """
    if count <= 0:
        return None
    min_delta = max_delta = None
    index_of_max = -1
    has_null_key = False
    in_order = True
    try:
        for index in range(count):
            b = data[position]
            if b < 0x80:
                size = (b >> 1) ^ -(b & 1)
                position += 1
            elif data[position + 1] < 0x80:
                b = (b & 0x7F) | (data[position + 1] << 7)
                size = (b >> 1) ^ -(b & 1)
                position += 2
            else:
                size, position = read_varint(data, position)
            record_end = position + size
            if size <= 0 or record_end > end:
                return None
            p = position + 1  # attributes: no bits are defined for v2 records
            b = data[p]
            if b < 0x80:
                timestamp_delta = (b >> 1) ^ -(b & 1)
                p += 1
            elif data[p + 1] < 0x80:
                b = (b & 0x7F) | (data[p + 1] << 7)
                timestamp_delta = (b >> 1) ^ -(b & 1)
                p += 2
            else:
                timestamp_delta, p = read_varlong(data, p)
            b = data[p]
            if b < 0x80:
                offset_delta = (b >> 1) ^ -(b & 1)
                p += 1
            elif data[p + 1] < 0x80:
                b = (b & 0x7F) | (data[p + 1] << 7)
                offset_delta = (b >> 1) ^ -(b & 1)
                p += 2
            else:
                offset_delta, p = read_varint(data, p)
            b = data[p]
            if b < 0x80:
                key_size = (b >> 1) ^ -(b & 1)
                p += 1
            elif data[p + 1] < 0x80:
                b = (b & 0x7F) | (data[p + 1] << 7)
                key_size = (b >> 1) ^ -(b & 1)
                p += 2
            else:
                key_size, p = read_varint(data, p)
            if key_size >= 0:
                p += key_size
            else:
                has_null_key = True
            b = data[p]
            if b < 0x80:
                value_size = (b >> 1) ^ -(b & 1)
                p += 1
            elif data[p + 1] < 0x80:
                b = (b & 0x7F) | (data[p + 1] << 7)
                value_size = (b >> 1) ^ -(b & 1)
                p += 2
            else:
                value_size, p = read_varint(data, p)
            if value_size > 0:
                p += value_size
            b = data[p]
            if b == 0:  # no headers
                p += 1
            else:
                num_headers, p = read_varint(data, p)
                if num_headers < 0:
                    return None
                for _ in range(num_headers):
                    header_key_size, p = read_varint(data, p)
                    if header_key_size < 0 or p + header_key_size > record_end:
                        return None
                    p += header_key_size
                    header_value_size, p = read_varint(data, p)
                    if header_value_size > 0:
                        p += header_value_size
                    if p > record_end:
                        return None
            # Every field must lie inside the record (p only grows, so a field past its end shows here).
            if p != record_end:
                return None
            position = record_end
            if offset_delta != index:
                in_order = False
            if max_delta is None:
                min_delta = max_delta = timestamp_delta
                index_of_max = index
            elif timestamp_delta > max_delta:
                max_delta = timestamp_delta
                index_of_max = index
            elif timestamp_delta < min_delta:
                min_delta = timestamp_delta
    except (IndexError, _Underflow, InvalidRecordException):
        return None
    if position != end:
        return None
    assert min_delta is not None and max_delta is not None
    return RecordsSummary(min_delta, max_delta, index_of_max, has_null_key, in_order)


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
