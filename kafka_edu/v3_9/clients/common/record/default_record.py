"""Port of clients/src/main/java/org/apache/kafka/common/record/DefaultRecord.java and PartialDefaultRecord.java
(Kafka 3.9): one record of a v2 batch, its wire form (varint lengths, deltas from the batch's base offset and
timestamp) and a reader that skips key, value and headers.

Kafka reads at a ByteBuffer's position (or from an InputStream); here the readers take (buffer, position) and
return the record with the position after it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.header.internals.record_header import RecordHeader
from kafka_edu.v3_9.clients.common.invalid_record_exception import InvalidRecordException
from kafka_edu.v3_9.clients.common.record.record import EMPTY_HEADERS
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from kafka_edu.v3_9.clients.common.utils.byte_utils import (
    Buffer,
    BufferUnderflowException,
    read_varint,
    read_varlong,
    size_of_varint,
    size_of_varlong,
    write_varint,
    write_varlong,
)

MAGIC_VALUE_V2 = 2
NO_SEQUENCE = -1
INT_MAX = 2**31 - 1
# Five bytes each for the body size, offset delta, key size, value size and header count, one for attributes.
MAX_RECORD_OVERHEAD = 21
NULL_VARINT_SIZE_BYTES = size_of_varint(-1)


def _increment_sequence(sequence: int, increment: int) -> int:
    # DefaultRecordBatch.incrementSequence, here to keep this module free of the batch module.
    if sequence > INT_MAX - increment:
        return increment - (INT_MAX - sequence) - 1
    return sequence + increment


def _read_bytes(buffer: Buffer, position: int, size: int, limit: int) -> tuple[bytes | None, int]:
    """Utils.readBytes: `size` bytes at `position` (None for a negative size), never past `limit`."""
    if size < 0:
        return None, position
    if position + size > limit:
        raise IllegalArgumentException(f"Cannot read {size} bytes with only {limit - position} remaining")
    return bytes(buffer[position:position + size]), position + size


class DefaultRecord:
    """A v2 record with its absolute offset, timestamp and sequence resolved from the batch's base values."""

    __slots__ = ("_size_in_bytes", "_attributes", "_offset", "_timestamp", "_sequence", "_key", "_value",
                 "_headers")

    def __init__(self, size_in_bytes: int, attributes: int, offset: int, timestamp: int, sequence: int,
                 key: bytes | None, value: bytes | None, headers: Sequence[RecordHeader] | None) -> None:
        self._size_in_bytes = size_in_bytes
        self._attributes = attributes
        self._offset = offset
        self._timestamp = timestamp
        self._sequence = sequence
        self._key = key
        self._value = value
        self._headers = tuple(headers) if headers is not None else None

    def offset(self) -> int:
        return self._offset

    def sequence(self) -> int:
        return self._sequence

    def size_in_bytes(self) -> int:
        return self._size_in_bytes

    def timestamp(self) -> int:
        return self._timestamp

    def attributes(self) -> int:
        return self._attributes

    def ensure_valid(self) -> None:
        # A v2 record has no checksum of its own: the batch's CRC covers it.
        pass

    def key_size(self) -> int:
        return -1 if self._key is None else len(self._key)

    def value_size(self) -> int:
        return -1 if self._value is None else len(self._value)

    def has_key(self) -> bool:
        return self._key is not None

    def key(self) -> bytes | None:
        return self._key

    def has_value(self) -> bool:
        return self._value is not None

    def value(self) -> bytes | None:
        return self._value

    def headers(self) -> tuple[RecordHeader, ...]:
        assert self._headers is not None
        return self._headers

    @staticmethod
    def write_to(out: bytearray, offset_delta: int, timestamp_delta: int, key: Buffer | None, value: Buffer | None,
                 headers: Sequence[RecordHeader] | None) -> int:
        """Append the record to `out`; returns the bytes written (the size varint included)."""
        size_in_bytes = DefaultRecord.size_of_body_in_bytes(
            offset_delta, timestamp_delta, -1 if key is None else len(key), -1 if value is None else len(value),
            headers)
        write_varint(size_in_bytes, out)
        out.append(0)  # no record attributes are defined yet
        write_varlong(timestamp_delta, out)
        write_varint(offset_delta, out)
        if key is None:
            write_varint(-1, out)
        else:
            write_varint(len(key), out)
            out += key
        if value is None:
            write_varint(-1, out)
        else:
            write_varint(len(value), out)
            out += value
        if headers is None:
            raise IllegalArgumentException("Headers cannot be null")
        write_varint(len(headers), out)
        for header in headers:
            header_key = header.key()
            if header_key is None:
                raise IllegalArgumentException("Invalid null header key found in headers")
            utf8 = header_key.encode("utf-8")
            write_varint(len(utf8), out)
            out += utf8
            header_value = header.value()
            if header_value is None:
                write_varint(-1, out)
            else:
                write_varint(len(header_value), out)
                out += header_value
        return size_of_varint(size_in_bytes) + size_in_bytes

    def has_magic(self, magic: int) -> bool:
        return magic >= MAGIC_VALUE_V2

    def is_compressed(self) -> bool:
        return False

    def has_timestamp_type(self, timestamp_type: TimestampType) -> bool:
        return False

    def __repr__(self) -> str:
        return (f"DefaultRecord(offset={self._offset}, timestamp={self._timestamp}, key={max(self.key_size(), 0)} "
                f"bytes, value={max(self.value_size(), 0)} bytes)")

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other is None or type(other) is not type(self):
            return False
        assert isinstance(other, DefaultRecord)
        return (self._size_in_bytes == other._size_in_bytes and self._attributes == other._attributes
                and self._offset == other._offset and self._timestamp == other._timestamp
                and self._sequence == other._sequence and self._key == other._key and self._value == other._value
                and self._headers == other._headers)

    def __hash__(self) -> int:
        return hash((self._size_in_bytes, self._attributes, self._offset, self._timestamp, self._sequence,
                     self._key, self._value, self._headers))

    @staticmethod
    def read_from_stream(data: Buffer, position: int, base_offset: int, base_timestamp: int, base_sequence: int,
                         log_append_time: int | None) -> tuple[DefaultRecord, int]:
        """readFrom(InputStream, ...): `data` is the (decompressed) stream; the body is read whole first."""
        try:
            size_of_body_in_bytes, position = read_varint(data, position)
        except BufferUnderflowException:
            # The stream hit EOF inside the size varint: Java's readVarint sees -1 bytes and overflows.
            raise IllegalArgumentException("Varint is too long, the most significant bit in the 5th byte is set") \
                from None
        if size_of_body_in_bytes < 0 or len(data) - position < size_of_body_in_bytes:
            raise InvalidRecordException(f"Invalid record size: expected {size_of_body_in_bytes} bytes in record "
                                         "payload, but the record payload reached EOF.")
        end = position + size_of_body_in_bytes
        record = DefaultRecord._read_body(memoryview(data)[:end], position, size_of_body_in_bytes, base_offset,
                                          base_timestamp, base_sequence, log_append_time)
        return record, end

    @staticmethod
    def read_from(buffer: Buffer, position: int, base_offset: int, base_timestamp: int, base_sequence: int,
                  log_append_time: int | None) -> tuple[DefaultRecord, int]:
        """readFrom(ByteBuffer, ...): the record at `position`, and the position after it.

        Raises BufferUnderflowException if even the size varint runs out of bytes (the batch iterator turns that
        into InvalidRecordException).
        """
        size_of_body_in_bytes, position = read_varint(buffer, position)
        record = DefaultRecord._read_body(buffer, position, size_of_body_in_bytes, base_offset, base_timestamp,
                                          base_sequence, log_append_time)
        return record, position + size_of_body_in_bytes

    @staticmethod
    def _read_body(buffer: Buffer, position: int, size_of_body_in_bytes: int, base_offset: int, base_timestamp: int,
                   base_sequence: int, log_append_time: int | None) -> DefaultRecord:
        limit = len(buffer)
        if limit - position < size_of_body_in_bytes:
            raise InvalidRecordException(f"Invalid record size: expected {size_of_body_in_bytes} bytes in record "
                                         f"payload, but instead the buffer has only {limit - position} remaining "
                                         "bytes.")
        try:
            record_start = position
            if position >= limit:
                raise BufferUnderflowException()
            attributes = buffer[position]
            position += 1
            timestamp_delta, position = read_varlong(buffer, position)
            timestamp = base_timestamp + timestamp_delta
            if log_append_time is not None:
                timestamp = log_append_time
            offset_delta, position = read_varint(buffer, position)
            offset = base_offset + offset_delta
            sequence = _increment_sequence(base_sequence, offset_delta) if base_sequence >= 0 else NO_SEQUENCE
            key_size, position = read_varint(buffer, position)
            key, position = _read_bytes(buffer, position, key_size, limit)
            value_size, position = read_varint(buffer, position)
            value, position = _read_bytes(buffer, position, value_size, limit)
            num_headers, position = read_varint(buffer, position)
            if num_headers < 0:
                raise InvalidRecordException(f"Found invalid number of record headers {num_headers}")
            if num_headers > limit - position:
                raise InvalidRecordException(f"Found invalid number of record headers. {num_headers} is larger than "
                                             "the remaining size of the buffer")
            if num_headers == 0:
                headers: Sequence[RecordHeader] = EMPTY_HEADERS
            else:
                headers, position = DefaultRecord._read_headers(buffer, position, num_headers, limit)
            if position - record_start != size_of_body_in_bytes:
                raise InvalidRecordException(f"Invalid record size: expected to read {size_of_body_in_bytes} bytes in "
                                             f"record payload, but instead read {position - record_start}")
            total_size_in_bytes = size_of_varint(size_of_body_in_bytes) + size_of_body_in_bytes
            return DefaultRecord(total_size_in_bytes, attributes, offset, timestamp, sequence, key, value, headers)
        except (BufferUnderflowException, IllegalArgumentException) as e:
            raise InvalidRecordException("Found invalid record structure") from e

    @staticmethod
    def read_partially_from(data: Buffer, position: int, base_offset: int, base_timestamp: int, base_sequence: int,
                            log_append_time: int | None) -> tuple[PartialDefaultRecord, int]:
        """readPartiallyFrom(InputStream, ...): the record's fixed fields, skipping key, value and headers."""
        try:
            size_of_body_in_bytes, position = read_varint(data, position)
        except BufferUnderflowException:
            raise IllegalArgumentException("Varint is too long, the most significant bit in the 5th byte is set") \
                from None
        total_size_in_bytes = size_of_varint(size_of_body_in_bytes) + size_of_body_in_bytes
        return DefaultRecord._read_partially_from(data, position, total_size_in_bytes, base_offset, base_timestamp,
                                                  base_sequence, log_append_time)

    @staticmethod
    def _read_partially_from(data: Buffer, position: int, size_in_bytes: int, base_offset: int, base_timestamp: int,
                             base_sequence: int, log_append_time: int | None) -> tuple[PartialDefaultRecord, int]:
        limit = len(data)
        try:
            if position >= limit:
                raise BufferUnderflowException()
            attributes = data[position]
            position += 1
            timestamp_delta, position = read_varlong(data, position)
            timestamp = base_timestamp + timestamp_delta
            if log_append_time is not None:
                timestamp = log_append_time
            offset_delta, position = read_varint(data, position)
            offset = base_offset + offset_delta
            sequence = _increment_sequence(base_sequence, offset_delta) if base_sequence >= 0 else NO_SEQUENCE
            key_size, position = read_varint(data, position)
            position = DefaultRecord._skip_bytes(position, key_size, limit)
            value_size, position = read_varint(data, position)
            position = DefaultRecord._skip_bytes(position, value_size, limit)
            num_headers, position = read_varint(data, position)
            if num_headers < 0:
                raise InvalidRecordException(f"Found invalid number of record headers {num_headers}")
            for _ in range(num_headers):
                header_key_size, position = read_varint(data, position)
                if header_key_size < 0:
                    raise InvalidRecordException(f"Invalid negative header key size {header_key_size}")
                position = DefaultRecord._skip_bytes(position, header_key_size, limit)
                header_value_size, position = read_varint(data, position)
                position = DefaultRecord._skip_bytes(position, header_value_size, limit)
            record = PartialDefaultRecord(size_in_bytes, attributes, offset, timestamp, sequence, key_size,
                                          value_size)
            return record, position
        except (BufferUnderflowException, IllegalArgumentException) as e:
            raise InvalidRecordException("Found invalid record structure") from e

    @staticmethod
    def _skip_bytes(position: int, bytes_to_skip: int, limit: int) -> int:
        if bytes_to_skip <= 0:
            return position
        if position + bytes_to_skip > limit:
            raise InvalidRecordException("Reached end of input stream before skipping all bytes. Remaining bytes:"
                                         f"{position + bytes_to_skip - limit}")
        return position + bytes_to_skip

    @staticmethod
    def _read_headers(buffer: Buffer, position: int, num_headers: int,
                      limit: int) -> tuple[list[RecordHeader], int]:
        headers = []
        for _ in range(num_headers):
            header_key_size, position = read_varint(buffer, position)
            if header_key_size < 0:
                raise InvalidRecordException(f"Invalid negative header key size {header_key_size}")
            header_key, position = _read_bytes(buffer, position, header_key_size, limit)
            header_value_size, position = read_varint(buffer, position)
            header_value, position = _read_bytes(buffer, position, header_value_size, limit)
            assert header_key is not None
            headers.append(RecordHeader(header_key, header_value))
        return headers, position

    @staticmethod
    def size_in_bytes_of(offset_delta: int, timestamp_delta: int, key: Buffer | int | None,
                         value: Buffer | int | None, headers: Sequence[RecordHeader] | None) -> int:
        """DefaultRecord.sizeInBytes(offsetDelta, timestampDelta, key, value, headers): key and value as buffers
        (None for null) or as sizes (-1 for null)."""
        body_size = DefaultRecord.size_of_body_in_bytes(offset_delta, timestamp_delta, _size(key), _size(value),
                                                        headers)
        return body_size + size_of_varint(body_size)

    @staticmethod
    def size_of_body_in_bytes(offset_delta: int, timestamp_delta: int, key_size: int, value_size: int,
                              headers: Sequence[RecordHeader] | None) -> int:
        size = 1  # attributes
        size += size_of_varint(offset_delta)
        size += size_of_varlong(timestamp_delta)
        size += DefaultRecord._size_of(key_size, value_size, headers)
        return size

    @staticmethod
    def _size_of(key_size: int, value_size: int, headers: Sequence[RecordHeader] | None) -> int:
        size = 0
        size += NULL_VARINT_SIZE_BYTES if key_size < 0 else size_of_varint(key_size) + key_size
        size += NULL_VARINT_SIZE_BYTES if value_size < 0 else size_of_varint(value_size) + value_size
        if headers is None:
            raise IllegalArgumentException("Headers cannot be null")
        size += size_of_varint(len(headers))
        for header in headers:
            header_key = header.key()
            if header_key is None:
                raise IllegalArgumentException("Invalid null header key found in headers")
            header_key_size = len(header_key.encode("utf-8"))
            size += size_of_varint(header_key_size) + header_key_size
            header_value = header.value()
            size += NULL_VARINT_SIZE_BYTES if header_value is None else \
                size_of_varint(len(header_value)) + len(header_value)
        return size

    @staticmethod
    def record_size_upper_bound(key: Buffer | None, value: Buffer | None, headers: Sequence[RecordHeader]) -> int:
        return MAX_RECORD_OVERHEAD + DefaultRecord._size_of(_size(key), _size(value), headers)


def _size(field: Buffer | int | None) -> int:
    if field is None:
        return -1
    if isinstance(field, int):
        return field
    return len(field)


class PartialDefaultRecord(DefaultRecord):
    """A record read without its key, value and headers: only their sizes are known."""

    __slots__ = ("_key_size", "_value_size")

    def __init__(self, size_in_bytes: int, attributes: int, offset: int, timestamp: int, sequence: int,
                 key_size: int, value_size: int) -> None:
        super().__init__(size_in_bytes, attributes, offset, timestamp, sequence, None, None, None)
        self._key_size = key_size
        self._value_size = value_size

    def __eq__(self, other: object) -> bool:
        return (super().__eq__(other) and isinstance(other, PartialDefaultRecord)
                and self._key_size == other._key_size and self._value_size == other._value_size)

    def __hash__(self) -> int:
        return hash((super().__hash__(), self._key_size, self._value_size))

    def __repr__(self) -> str:
        return (f"PartialDefaultRecord(offset={self.offset()}, timestamp={self.timestamp()}, key={self._key_size} "
                f"bytes, value={self._value_size} bytes)")

    def key_size(self) -> int:
        return self._key_size

    def has_key(self) -> bool:
        return self._key_size >= 0

    def key(self) -> bytes | None:
        raise NotImplementedError("key is skipped in PartialDefaultRecord")

    def value_size(self) -> int:
        return self._value_size

    def has_value(self) -> bool:
        return self._value_size >= 0

    def value(self) -> bytes | None:
        raise NotImplementedError("value is skipped in PartialDefaultRecord")

    def headers(self) -> tuple[RecordHeader, ...]:
        raise NotImplementedError("headers is skipped in PartialDefaultRecord")


class RecordsSkim(NamedTuple):
    """What an in-place offset assignment needs from an uncompressed batch's records, read without building them."""

    min_timestamp_delta: int
    max_timestamp_delta: int
    has_null_key: bool


def _varint_inline(data: Buffer, position: int) -> tuple[int, int]:
    b = data[position]
    if b < 0x80:
        return (b >> 1) ^ -(b & 1), position + 1
    b2 = data[position + 1]
    if b2 < 0x80:
        raw = (b & 0x7F) | (b2 << 7)
        return (raw >> 1) ^ -(raw & 1), position + 2
    return read_varint(data, position)


def skim_records(data: Buffer, position: int, end: int, count: int) -> RecordsSkim | None:
    """The framing walk of DefaultRecord.readPartiallyFrom over `count` records in data[position:end], keeping only
    the timestamp range and whether a key is null.

    Every length a full read checks is checked here: each record must end exactly where its size says and the last
    one exactly at `end`. Anything off returns None and the caller reads the records one by one, which raises the
    error a full read raises. A batch's validation reads each of its records; this is the same work, minus building
    the keys, values and headers nobody looks at when the batch is kept as it came.
    """
    if count <= 0:
        return None
    min_delta = max_delta = 0
    has_null_key = False
    try:
        for index in range(count):
            size, position = _varint_inline(data, position)
            record_end = position + size
            if size <= 0 or record_end > end:
                return None
            timestamp_delta, p = read_varlong(data, position + 1) if data[position + 1] >= 0x80 \
                else ((data[position + 1] >> 1) ^ -(data[position + 1] & 1), position + 2)
            _offset_delta, p = _varint_inline(data, p)
            key_size, p = _varint_inline(data, p)
            if key_size < 0:
                has_null_key = True
            else:
                p += key_size
            value_size, p = _varint_inline(data, p)
            if value_size > 0:
                p += value_size
            num_headers, p = _varint_inline(data, p)
            if num_headers < 0:
                return None
            for _ in range(num_headers):
                header_key_size, p = _varint_inline(data, p)
                if header_key_size < 0:
                    return None
                p += header_key_size
                header_value_size, p = _varint_inline(data, p)
                if header_value_size > 0:
                    p += header_value_size
                if p > record_end:
                    return None
            if p != record_end:
                return None
            position = record_end
            if index == 0:
                min_delta = max_delta = timestamp_delta
            elif timestamp_delta > max_delta:
                max_delta = timestamp_delta
            elif timestamp_delta < min_delta:
                min_delta = timestamp_delta
    except (IndexError, BufferUnderflowException, IllegalArgumentException):
        return None
    if position != end:
        return None
    return RecordsSkim(min_delta, max_delta, has_null_key)
