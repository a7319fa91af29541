"""Port of clients/src/main/java/org/apache/kafka/common/record/AbstractLegacyRecordBatch.java (Kafka 3.9): a v0/v1
"batch", which is one log entry (offset, size, message); a compressed entry wraps a message set of inner entries,
which the deep iterator decompresses and gives absolute offsets."""

from __future__ import annotations

import struct
from collections import deque
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from kafka_edu.v1_0_2.clients.common.errors import CorruptRecordException
from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.header.internals.record_header import RecordHeader
from kafka_edu.v3_9.clients.common.invalid_record_exception import InvalidRecordException
from kafka_edu.v3_9.clients.common.record import legacy_record
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.record.file_log_input_stream import FileChannelRecordBatch
from kafka_edu.v3_9.clients.common.record.legacy_record import LegacyRecord
from kafka_edu.v3_9.clients.common.record.record import EMPTY_HEADERS, Record
from kafka_edu.v3_9.clients.common.record.record_batch import (
    MAGIC_VALUE_V0,
    MAGIC_VALUE_V1,
    NO_PARTITION_LEADER_EPOCH,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    NO_SEQUENCE,
    AbstractRecordBatch,
    CloseableIterator,
)
from kafka_edu.v3_9.clients.common.record.records import LOG_OVERHEAD, OFFSET_OFFSET
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from kafka_edu.v3_9.clients.common.utils.byte_utils import Buffer, write_unsigned_int

if TYPE_CHECKING:
    from kafka_edu.v3_9.clients.common.record.file_records import FileRecords

INT_MAX = 2**31 - 1
_INT64 = struct.Struct(">q")
_HEADER = struct.Struct(">qi")


class AbstractLegacyRecordBatch(AbstractRecordBatch):
    """An entry is both a batch and (uncompressed) its own single record."""

    def offset(self) -> int:
        raise NotImplementedError

    def outer_record(self) -> LegacyRecord:
        raise NotImplementedError

    def last_offset(self) -> int:
        return self.offset()

    def is_valid(self) -> bool:
        return self.outer_record().is_valid()

    def ensure_valid(self) -> None:
        self.outer_record().ensure_valid()

    def key_size(self) -> int:
        return self.outer_record().key_size()

    def has_key(self) -> bool:
        return self.outer_record().has_key()

    def key(self) -> bytes | None:
        return self.outer_record().key()

    def value_size(self) -> int:
        return self.outer_record().value_size()

    def has_value(self) -> bool:
        return not self.outer_record().has_null_value()

    def value(self) -> bytes | None:
        return self.outer_record().value()

    def headers(self) -> tuple[RecordHeader, ...]:
        return EMPTY_HEADERS

    def has_magic(self, magic: int) -> bool:
        return magic == self.outer_record().magic()

    def has_timestamp_type(self, timestamp_type: TimestampType) -> bool:
        return self.outer_record().timestamp_type() is timestamp_type

    def checksum(self) -> int:
        return self.outer_record().checksum()

    def max_timestamp(self) -> int:
        return self.timestamp()

    def timestamp(self) -> int:
        return self.outer_record().timestamp()

    def timestamp_type(self) -> TimestampType:
        return self.outer_record().timestamp_type()

    def base_offset(self) -> int:
        return next(iter(self)).offset()

    def magic(self) -> int:
        return self.outer_record().magic()

    def compression_type(self) -> CompressionType:
        return self.outer_record().compression_type()

    def size_in_bytes(self) -> int:
        return self.outer_record().size_in_bytes() + LOG_OVERHEAD

    def count_or_null(self) -> int | None:
        return None

    def __repr__(self) -> str:
        return f"LegacyRecordBatch(offset={self.offset()}, {self.outer_record()})"

    def write_to(self, buffer: bytearray) -> None:
        buffer += _HEADER.pack(self.offset(), self.outer_record().size_in_bytes())
        buffer += self.outer_record().buffer()

    def producer_id(self) -> int:
        return NO_PRODUCER_ID

    def producer_epoch(self) -> int:
        return NO_PRODUCER_EPOCH

    def has_producer_id(self) -> bool:
        return False

    def sequence(self) -> int:
        return NO_SEQUENCE

    def base_sequence(self) -> int:
        return NO_SEQUENCE

    def last_sequence(self) -> int:
        return NO_SEQUENCE

    def is_transactional(self) -> bool:
        return False

    def partition_leader_epoch(self) -> int:
        return NO_PARTITION_LEADER_EPOCH

    def is_control_batch(self) -> bool:
        return False

    def delete_horizon_ms(self) -> int | None:
        return None

    def __iter__(self) -> Iterator[Record]:
        return self.iterator(None)

    def iterator(self, buffer_supplier: Any) -> CloseableIterator:
        if self.is_compressed():
            return _DeepRecordsIterator(self, False, INT_MAX, buffer_supplier)
        return CloseableIterator.wrap(iter((self,)))  # type: ignore[arg-type]

    def streaming_iterator(self, buffer_supplier: Any = None) -> CloseableIterator:
        return self.iterator(buffer_supplier)


def write_header(out: bytearray, offset: int, size: int) -> None:
    """AbstractLegacyRecordBatch.writeHeader: a log entry's offset and size."""
    out += _HEADER.pack(offset, size)


def write_header_at(buffer: bytearray | memoryview, position: int, offset: int, size: int) -> None:
    _HEADER.pack_into(buffer, position, offset, size)


class _DataLogInputStream:
    """The entries of a decompressed message set."""

    def __init__(self, stream: bytes, max_message_size: int) -> None:
        self.stream = stream
        self.position = 0
        self.max_message_size = max_message_size

    def next_batch(self) -> AbstractLegacyRecordBatch | None:
        if len(self.stream) - self.position < LOG_OVERHEAD:
            return None
        offset, size = _HEADER.unpack_from(self.stream, self.position)
        if size < legacy_record.RECORD_OVERHEAD_V0:
            raise CorruptRecordException("Record size is less than the minimum record overhead "
                                         f"({legacy_record.RECORD_OVERHEAD_V0})")
        if size > self.max_message_size:
            raise CorruptRecordException(f"Record size exceeds the largest allowable message size "
                                         f"({self.max_message_size}).")
        start = self.position + LOG_OVERHEAD
        if len(self.stream) - start < size:
            return None
        self.position = start + size
        return BasicLegacyRecordBatch(offset, LegacyRecord(bytearray(self.stream[start:start + size])))


class _DeepRecordsIterator(CloseableIterator):
    """The inner records of a compressed wrapper entry, with absolute offsets (v1 stores relative ones)."""

    def __init__(self, wrapper_entry: AbstractLegacyRecordBatch, ensure_matching_magic: bool, max_message_size: int,
                 buffer_supplier: Any) -> None:
        wrapper_record = wrapper_entry.outer_record()
        self.wrapper_magic = wrapper_record.magic()
        if self.wrapper_magic != MAGIC_VALUE_V0 and self.wrapper_magic != MAGIC_VALUE_V1:
            raise InvalidRecordException(f"Invalid wrapper magic found in legacy deep record iterator "
                                         f"{self.wrapper_magic}")
        compression_type = wrapper_record.compression_type()
        if compression_type is CompressionType.ZSTD:
            raise InvalidRecordException("Invalid wrapper compressionType found in legacy deep record iterator "
                                         f"{self.wrapper_magic}")
        wrapper_value = wrapper_record.value()
        if wrapper_value is None:
            raise InvalidRecordException("Found invalid compressed record set with null value (magic = "
                                         f"{self.wrapper_magic})")
        stream = Compression.of(compression_type).build().wrap_for_input(wrapper_value, wrapper_record.magic(),
                                                                         buffer_supplier)
        log_stream = _DataLogInputStream(stream, max_message_size)
        last_offset_from_wrapper = wrapper_entry.last_offset()
        timestamp_from_wrapper = wrapper_record.timestamp()
        self.inner_entries: deque[AbstractLegacyRecordBatch] = deque()
        while True:
            inner_entry = log_stream.next_batch()
            if inner_entry is None:
                break
            record = inner_entry.outer_record()
            magic = record.magic()
            if ensure_matching_magic and magic != self.wrapper_magic:
                raise InvalidRecordException(f"Compressed message magic {magic} does not match wrapper magic "
                                             f"{self.wrapper_magic}")
            if magic == MAGIC_VALUE_V1:
                record_with_timestamp = LegacyRecord(record.buffer(), timestamp_from_wrapper,
                                                     wrapper_record.timestamp_type())
                inner_entry = BasicLegacyRecordBatch(inner_entry.last_offset(), record_with_timestamp)
            self.inner_entries.append(inner_entry)
        if not self.inner_entries:
            raise InvalidRecordException("Found invalid compressed record set with no inner records")
        if self.wrapper_magic == MAGIC_VALUE_V1:
            if last_offset_from_wrapper == 0:
                # An old producer's set, whose offsets the broker has not assigned yet.
                self.absolute_base_offset = 0
            else:
                last_inner_offset = self.inner_entries[-1].offset()
                if last_offset_from_wrapper < last_inner_offset:
                    raise InvalidRecordException(
                        "Found invalid wrapper offset in compressed v1 message set, wrapper offset "
                        f"'{last_offset_from_wrapper}' is less than the last inner message offset "
                        f"'{last_inner_offset}' and it is not zero.")
                self.absolute_base_offset = last_offset_from_wrapper - last_inner_offset
        else:
            self.absolute_base_offset = -1

    def __next__(self) -> Record:
        if not self.inner_entries:
            raise StopIteration
        entry = self.inner_entries.popleft()
        if self.wrapper_magic == MAGIC_VALUE_V1:
            entry = BasicLegacyRecordBatch(self.absolute_base_offset + entry.offset(), entry.outer_record())
        if entry.is_compressed():
            raise InvalidRecordException("Inner messages must not be compressed")
        return entry  # type: ignore[return-value]


class BasicLegacyRecordBatch(AbstractLegacyRecordBatch):
    def __init__(self, offset: int, record: LegacyRecord) -> None:
        self._offset = offset
        self.record = record

    def offset(self) -> int:
        return self._offset

    def outer_record(self) -> LegacyRecord:
        return self.record

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other is None or type(other) is not type(self):
            return False
        assert isinstance(other, BasicLegacyRecordBatch)
        return self._offset == other._offset and self.record == other.record

    def __hash__(self) -> int:
        return hash((self.record, self._offset))


class ByteBufferLegacyRecordBatch(AbstractLegacyRecordBatch):
    """An entry in place in a buffer (exactly the entry): the broker rewrites its offset and timestamp there."""

    def __init__(self, buffer: Buffer) -> None:
        self.buffer = memoryview(buffer)
        self.record = LegacyRecord(self.buffer[LOG_OVERHEAD:])

    def offset(self) -> int:
        return _INT64.unpack_from(self.buffer, OFFSET_OFFSET)[0]

    def outer_record(self) -> LegacyRecord:
        return self.record

    def set_last_offset(self, offset: int) -> None:
        _INT64.pack_into(self.buffer, OFFSET_OFFSET, offset)

    def set_max_timestamp(self, timestamp_type: TimestampType, timestamp: int) -> None:
        if self.record.magic() == MAGIC_VALUE_V0:
            raise NotImplementedError("Cannot set timestamp for a record with magic = 0")
        current_timestamp = self.record.timestamp()
        if self.record.timestamp_type() is timestamp_type and current_timestamp == timestamp:
            return
        self._set_timestamp_and_update_crc(timestamp_type, timestamp)

    def set_partition_leader_epoch(self, epoch: int) -> None:
        raise NotImplementedError("Magic versions prior to 2 do not support partition leader epoch")

    def _set_timestamp_and_update_crc(self, timestamp_type: TimestampType, timestamp: int) -> None:
        attributes = legacy_record.compute_attributes(self.magic(), self.compression_type(), timestamp_type)
        self.buffer[LOG_OVERHEAD + legacy_record.ATTRIBUTES_OFFSET] = attributes
        _INT64.pack_into(self.buffer, LOG_OVERHEAD + legacy_record.TIMESTAMP_OFFSET, timestamp)
        crc = self.record.compute_checksum()
        write_unsigned_int(self.buffer, LOG_OVERHEAD + legacy_record.CRC_OFFSET, crc)

    def skip_key_value_iterator(self, buffer_supplier: Any = None) -> CloseableIterator:
        return self.iterator(buffer_supplier)

    def write_to(self, buffer: bytearray) -> None:
        buffer += self.buffer

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other is None or type(other) is not type(self):
            return False
        assert isinstance(other, ByteBufferLegacyRecordBatch)
        return self.buffer == other.buffer

    def __hash__(self) -> int:
        return hash(bytes(self.buffer))


class LegacyFileChannelRecordBatch(FileChannelRecordBatch):
    """A v0/v1 entry in a log file; its last offset is the entry's offset, read with the log header."""

    def __init__(self, offset: int, magic: int, file_records: FileRecords, position: int, batch_size: int) -> None:
        super().__init__(offset, magic, file_records, position, batch_size)

    def _to_memory_record_batch(self, buffer: bytearray) -> ByteBufferLegacyRecordBatch:
        return ByteBufferLegacyRecordBatch(buffer)

    def base_offset(self) -> int:
        return self._load_full_batch().base_offset()

    def delete_horizon_ms(self) -> int | None:
        return None

    def last_offset(self) -> int:
        return self.offset

    def producer_id(self) -> int:
        return NO_PRODUCER_ID

    def producer_epoch(self) -> int:
        return NO_PRODUCER_EPOCH

    def base_sequence(self) -> int:
        return NO_SEQUENCE

    def last_sequence(self) -> int:
        return NO_SEQUENCE

    def count_or_null(self) -> int | None:
        return None

    def is_transactional(self) -> bool:
        return False

    def is_control_batch(self) -> bool:
        return False

    def partition_leader_epoch(self) -> int:
        return NO_PARTITION_LEADER_EPOCH

    def _header_size(self) -> int:
        return LOG_OVERHEAD + legacy_record.header_size(self._magic)

