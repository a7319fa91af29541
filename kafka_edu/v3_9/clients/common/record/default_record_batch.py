"""Port of clients/src/main/java/org/apache/kafka/common/record/DefaultRecordBatch.java (Kafka 3.9): the v2 record
batch: a 61-byte header (offsets, CRC-32C, attributes, timestamps, producer state, count) and its records, read in
place from a buffer; plus DefaultFileChannelRecordBatch, the same batch read lazily from a log file."""

from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import crc32c

from kafka_edu.v1_0_2.clients.common.errors import (
    CorruptRecordException,
    IllegalArgumentException,
    KafkaException,
)
from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.header.internals.record_header import RecordHeader
from kafka_edu.v3_9.clients.common.invalid_record_exception import InvalidRecordException
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.record.default_record import DefaultRecord, RecordsSkim, skim_records
from kafka_edu.v3_9.clients.common.record.file_log_input_stream import FileChannelRecordBatch
from kafka_edu.v3_9.clients.common.record.record import Record
from kafka_edu.v3_9.clients.common.record.record_batch import (
    CURRENT_MAGIC_VALUE,
    NO_SEQUENCE,
    NO_TIMESTAMP,
    AbstractRecordBatch,
    CloseableIterator,
)
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from kafka_edu.v3_9.clients.common.utils.byte_utils import (
    Buffer,
    BufferUnderflowException,
    read_unsigned_int,
    write_unsigned_int,
)

if TYPE_CHECKING:
    from kafka_edu.v3_9.clients.common.record.file_records import FileRecords

LOG_OVERHEAD = 12  # Records.LOG_OVERHEAD: base offset and length

BASE_OFFSET_OFFSET = 0
BASE_OFFSET_LENGTH = 8
LENGTH_OFFSET = BASE_OFFSET_OFFSET + BASE_OFFSET_LENGTH
LENGTH_LENGTH = 4
PARTITION_LEADER_EPOCH_OFFSET = LENGTH_OFFSET + LENGTH_LENGTH
PARTITION_LEADER_EPOCH_LENGTH = 4
MAGIC_OFFSET = PARTITION_LEADER_EPOCH_OFFSET + PARTITION_LEADER_EPOCH_LENGTH
MAGIC_LENGTH = 1
CRC_OFFSET = MAGIC_OFFSET + MAGIC_LENGTH
CRC_LENGTH = 4
ATTRIBUTES_OFFSET = CRC_OFFSET + CRC_LENGTH
ATTRIBUTE_LENGTH = 2
LAST_OFFSET_DELTA_OFFSET = ATTRIBUTES_OFFSET + ATTRIBUTE_LENGTH
LAST_OFFSET_DELTA_LENGTH = 4
BASE_TIMESTAMP_OFFSET = LAST_OFFSET_DELTA_OFFSET + LAST_OFFSET_DELTA_LENGTH
BASE_TIMESTAMP_LENGTH = 8
MAX_TIMESTAMP_OFFSET = BASE_TIMESTAMP_OFFSET + BASE_TIMESTAMP_LENGTH
MAX_TIMESTAMP_LENGTH = 8
PRODUCER_ID_OFFSET = MAX_TIMESTAMP_OFFSET + MAX_TIMESTAMP_LENGTH
PRODUCER_ID_LENGTH = 8
PRODUCER_EPOCH_OFFSET = PRODUCER_ID_OFFSET + PRODUCER_ID_LENGTH
PRODUCER_EPOCH_LENGTH = 2
BASE_SEQUENCE_OFFSET = PRODUCER_EPOCH_OFFSET + PRODUCER_EPOCH_LENGTH
BASE_SEQUENCE_LENGTH = 4
RECORDS_COUNT_OFFSET = BASE_SEQUENCE_OFFSET + BASE_SEQUENCE_LENGTH
RECORDS_COUNT_LENGTH = 4
RECORDS_OFFSET = RECORDS_COUNT_OFFSET + RECORDS_COUNT_LENGTH
RECORD_BATCH_OVERHEAD = RECORDS_OFFSET

COMPRESSION_CODEC_MASK = 0x07
TRANSACTIONAL_FLAG_MASK = 0x10
CONTROL_FLAG_MASK = 0x20
DELETE_HORIZON_FLAG_MASK = 0x40
TIMESTAMP_TYPE_MASK = 0x08

INT_MAX = 2**31 - 1

_INT64 = struct.Struct(">q")
_INT32 = struct.Struct(">i")
_INT16 = struct.Struct(">h")


def crc32c_compute(buffer: Buffer, offset: int, size: int) -> int:
    """Crc32C.compute(buffer, offset, size); the GIL stays held (see 1.0.2's file_records for why)."""
    return crc32c.crc32c(memoryview(buffer)[offset:offset + size], gil_release_mode=0)


class DefaultRecordBatch(AbstractRecordBatch):
    """A v2 batch over `buffer`, which holds exactly the batch; setters write into it (it must be writable)."""

    __slots__ = ("buffer",)

    def __init__(self, buffer: Buffer) -> None:
        self.buffer = memoryview(buffer)

    def magic(self) -> int:
        return struct.unpack_from(">b", self.buffer, MAGIC_OFFSET)[0]

    def ensure_valid(self) -> None:
        if self.size_in_bytes() < RECORD_BATCH_OVERHEAD:
            raise CorruptRecordException(f"Record batch is corrupt (the size {self.size_in_bytes()} is smaller than "
                                         f"the minimum allowed overhead {RECORD_BATCH_OVERHEAD})")
        if not self.is_valid():
            raise CorruptRecordException(f"Record is corrupt (stored crc = {self.checksum()}, computed crc = "
                                         f"{self._compute_checksum()})")

    def base_timestamp(self) -> int:
        return _INT64.unpack_from(self.buffer, BASE_TIMESTAMP_OFFSET)[0]

    def max_timestamp(self) -> int:
        return _INT64.unpack_from(self.buffer, MAX_TIMESTAMP_OFFSET)[0]

    def timestamp_type(self) -> TimestampType:
        return TimestampType.CREATE_TIME if self._attributes() & TIMESTAMP_TYPE_MASK == 0 \
            else TimestampType.LOG_APPEND_TIME

    def base_offset(self) -> int:
        return _INT64.unpack_from(self.buffer, BASE_OFFSET_OFFSET)[0]

    def last_offset(self) -> int:
        return self.base_offset() + self._last_offset_delta()

    def producer_id(self) -> int:
        return _INT64.unpack_from(self.buffer, PRODUCER_ID_OFFSET)[0]

    def producer_epoch(self) -> int:
        return _INT16.unpack_from(self.buffer, PRODUCER_EPOCH_OFFSET)[0]

    def base_sequence(self) -> int:
        return _INT32.unpack_from(self.buffer, BASE_SEQUENCE_OFFSET)[0]

    def _last_offset_delta(self) -> int:
        return _INT32.unpack_from(self.buffer, LAST_OFFSET_DELTA_OFFSET)[0]

    def last_sequence(self) -> int:
        base_sequence = self.base_sequence()
        if base_sequence == NO_SEQUENCE:
            return NO_SEQUENCE
        return increment_sequence(base_sequence, self._last_offset_delta())

    def compression_type(self) -> CompressionType:
        return CompressionType.for_id(self._attributes() & COMPRESSION_CODEC_MASK)

    def size_in_bytes(self) -> int:
        return LOG_OVERHEAD + _INT32.unpack_from(self.buffer, LENGTH_OFFSET)[0]

    def _count(self) -> int:
        return _INT32.unpack_from(self.buffer, RECORDS_COUNT_OFFSET)[0]

    def count_or_null(self) -> int | None:
        return self._count()

    def write_to(self, buffer: bytearray) -> None:
        """writeTo(ByteBuffer) and writeTo(ByteBufferOutputStream): append the batch's bytes."""
        buffer += self.buffer

    def is_transactional(self) -> bool:
        return self._attributes() & TRANSACTIONAL_FLAG_MASK > 0

    def _has_delete_horizon_ms(self) -> bool:
        return self._attributes() & DELETE_HORIZON_FLAG_MASK > 0

    def delete_horizon_ms(self) -> int | None:
        """The delete horizon the cleaner stored in the base timestamp field, or None (OptionalLong.empty)."""
        if self._has_delete_horizon_ms():
            return _INT64.unpack_from(self.buffer, BASE_TIMESTAMP_OFFSET)[0]
        return None

    def is_control_batch(self) -> bool:
        return self._attributes() & CONTROL_FLAG_MASK > 0

    def partition_leader_epoch(self) -> int:
        return _INT32.unpack_from(self.buffer, PARTITION_LEADER_EPOCH_OFFSET)[0]

    def record_input_stream(self, buffer_supplier: Any = None) -> bytes:
        """The records section, decompressed (Kafka returns a stream over it)."""
        compression = Compression.of(self.compression_type()).build()
        return compression.wrap_for_input(self.buffer[RECORDS_OFFSET:], self.magic(), buffer_supplier)

    def _compressed_iterator(self, buffer_supplier: Any, skip_key_value: bool) -> CloseableIterator:
        data = self.record_input_stream(buffer_supplier)
        read = DefaultRecord.read_partially_from if skip_key_value else DefaultRecord.read_from_stream
        return StreamRecordIterator(self, data, read)

    def _uncompressed_iterator(self) -> CloseableIterator:
        return _BufferRecordIterator(self, self.buffer)

    def __iter__(self) -> Iterator[Record]:
        if self._count() == 0:
            return iter(())
        if not self.is_compressed():
            return self._uncompressed_iterator()
        # Decompress everything up front so that the caller need not close a stream.
        with self._compressed_iterator(None, False) as iterator:
            return iter(list(iterator))

    def skim_records(self) -> RecordsSkim | None:
        """The records' timestamp range and null keys, walked in place without building them (uncompressed only);
        None when the batch is compressed or any record is malformed (iterate it to get the error)."""
        if self.is_compressed():
            return None
        return skim_records(self.buffer, RECORDS_OFFSET, len(self.buffer), self._count())

    def skip_key_value_iterator(self, buffer_supplier: Any = None) -> CloseableIterator:
        if self._count() == 0:
            return CloseableIterator.wrap(iter(()))
        if not self.is_compressed():
            return self._uncompressed_iterator()
        return self._compressed_iterator(buffer_supplier, True)

    def streaming_iterator(self, buffer_supplier: Any = None) -> CloseableIterator:
        if self.is_compressed():
            return self._compressed_iterator(buffer_supplier, False)
        return self._uncompressed_iterator()

    def set_last_offset(self, offset: int) -> None:
        _INT64.pack_into(self.buffer, BASE_OFFSET_OFFSET, offset - self._last_offset_delta())

    def set_max_timestamp(self, timestamp_type: TimestampType, max_timestamp: int) -> None:
        current_max_timestamp = self.max_timestamp()
        # Rewriting the header would mean recomputing the CRC: skip it when nothing changes.
        if self.timestamp_type() is timestamp_type and current_max_timestamp == max_timestamp:
            return
        attributes = compute_attributes(self.compression_type(), timestamp_type, self.is_transactional(),
                                        self.is_control_batch(), self._has_delete_horizon_ms())
        _INT16.pack_into(self.buffer, ATTRIBUTES_OFFSET, attributes)
        _INT64.pack_into(self.buffer, MAX_TIMESTAMP_OFFSET, max_timestamp)
        write_unsigned_int(self.buffer, CRC_OFFSET, self._compute_checksum())

    def set_partition_leader_epoch(self, epoch: int) -> None:
        # The leader epoch is outside the CRC, so no checksum to update.
        _INT32.pack_into(self.buffer, PARTITION_LEADER_EPOCH_OFFSET, epoch)

    def checksum(self) -> int:
        return read_unsigned_int(self.buffer, CRC_OFFSET)

    def is_valid(self) -> bool:
        return self.size_in_bytes() >= RECORD_BATCH_OVERHEAD and self.checksum() == self._compute_checksum()

    def _compute_checksum(self) -> int:
        return crc32c_compute(self.buffer, ATTRIBUTES_OFFSET, len(self.buffer) - ATTRIBUTES_OFFSET)

    def _attributes(self) -> int:
        # Only the low byte of the int16 attributes carries flags.
        return self.buffer[ATTRIBUTES_OFFSET + 1]

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other is None or type(other) is not type(self):
            return False
        assert isinstance(other, DefaultRecordBatch)
        return self.buffer == other.buffer

    def __hash__(self) -> int:
        return hash(bytes(self.buffer))

    def __repr__(self) -> str:
        return (f"RecordBatch(magic={self.magic()}, offsets=[{self.base_offset()}, {self.last_offset()}], "
                f"sequence=[{self.base_sequence()}, {self.last_sequence()}], "
                f"isTransactional={self.is_transactional()}, isControlBatch={self.is_control_batch()}, "
                f"compression={self.compression_type()}, timestampType={self.timestamp_type()}, "
                f"crc={self.checksum()})")


def compute_attributes(type: CompressionType, timestamp_type: TimestampType, is_transactional: bool,
                       is_control: bool, is_delete_horizon_set: bool) -> int:
    if timestamp_type is TimestampType.NO_TIMESTAMP_TYPE:
        raise IllegalArgumentException("Timestamp type must be provided to compute attributes for message format "
                                       "v2 and above")
    attributes = TRANSACTIONAL_FLAG_MASK if is_transactional else 0
    if is_control:
        attributes |= CONTROL_FLAG_MASK
    if type.id > 0:
        attributes |= COMPRESSION_CODEC_MASK & type.id
    if timestamp_type is TimestampType.LOG_APPEND_TIME:
        attributes |= TIMESTAMP_TYPE_MASK
    if is_delete_horizon_set:
        attributes |= DELETE_HORIZON_FLAG_MASK
    return attributes


def write_empty_header(buffer: bytearray | memoryview, position: int, magic: int, producer_id: int,
                       producer_epoch: int, base_sequence: int, base_offset: int, last_offset: int,
                       partition_leader_epoch: int, timestamp_type: TimestampType, timestamp: int,
                       is_transactional: bool, is_control_record: bool) -> None:
    """DefaultRecordBatch.writeEmptyHeader: a batch of no records keeping the offsets and producer state of one
    that the cleaner emptied; `buffer` must hold RECORD_BATCH_OVERHEAD bytes from `position`."""
    offset_delta = last_offset - base_offset
    write_header(buffer, position, base_offset, offset_delta, RECORD_BATCH_OVERHEAD, magic, CompressionType.NONE,
                 timestamp_type, NO_TIMESTAMP, timestamp, producer_id, producer_epoch, base_sequence,
                 is_transactional, is_control_record, False, partition_leader_epoch, 0)


def write_header(buffer: bytearray | memoryview, position: int, base_offset: int, last_offset_delta: int,
                 size_in_bytes: int, magic: int, compression_type: CompressionType, timestamp_type: TimestampType,
                 base_timestamp: int, max_timestamp: int, producer_id: int, epoch: int, sequence: int,
                 is_transactional: bool, is_control_batch: bool, is_delete_horizon_set: bool,
                 partition_leader_epoch: int, num_records: int) -> None:
    """DefaultRecordBatch.writeHeader at `position`; the batch's records must already follow it (the CRC covers
    them)."""
    if magic < CURRENT_MAGIC_VALUE:
        raise IllegalArgumentException(f"Invalid magic value {magic}")
    if base_timestamp < 0 and base_timestamp != NO_TIMESTAMP:
        raise IllegalArgumentException(f"Invalid message timestamp {base_timestamp}")
    attributes = compute_attributes(compression_type, timestamp_type, is_transactional, is_control_batch,
                                    is_delete_horizon_set)
    _INT64.pack_into(buffer, position + BASE_OFFSET_OFFSET, base_offset)
    _INT32.pack_into(buffer, position + LENGTH_OFFSET, size_in_bytes - LOG_OVERHEAD)
    _INT32.pack_into(buffer, position + PARTITION_LEADER_EPOCH_OFFSET, partition_leader_epoch)
    struct.pack_into(">b", buffer, position + MAGIC_OFFSET, magic)
    _INT16.pack_into(buffer, position + ATTRIBUTES_OFFSET, attributes)
    _INT64.pack_into(buffer, position + BASE_TIMESTAMP_OFFSET, base_timestamp)
    _INT64.pack_into(buffer, position + MAX_TIMESTAMP_OFFSET, max_timestamp)
    _INT32.pack_into(buffer, position + LAST_OFFSET_DELTA_OFFSET, last_offset_delta)
    _INT64.pack_into(buffer, position + PRODUCER_ID_OFFSET, producer_id)
    _INT16.pack_into(buffer, position + PRODUCER_EPOCH_OFFSET, epoch)
    _INT32.pack_into(buffer, position + BASE_SEQUENCE_OFFSET, sequence)
    _INT32.pack_into(buffer, position + RECORDS_COUNT_OFFSET, num_records)
    crc = crc32c_compute(buffer, position + ATTRIBUTES_OFFSET, size_in_bytes - ATTRIBUTES_OFFSET)
    write_unsigned_int(buffer, position + CRC_OFFSET, crc)


def size_in_bytes(base_offset: int, records: Iterable[Record]) -> int:
    """DefaultRecordBatch.sizeInBytes(baseOffset, records): the batch size these records would take."""
    size = 0
    base_timestamp = None
    for record in records:
        if base_timestamp is None:
            size = RECORD_BATCH_OVERHEAD
            base_timestamp = record.timestamp()
        size += DefaultRecord.size_in_bytes_of(record.offset() - base_offset, record.timestamp() - base_timestamp,
                                               record.key(), record.value(), record.headers())
    return size


def size_in_bytes_of_simple_records(records: Iterable[Any]) -> int:
    """DefaultRecordBatch.sizeInBytes(Iterable<SimpleRecord>): offsets 0, 1, 2, ..."""
    size = 0
    base_timestamp = None
    for offset_delta, record in enumerate(records):
        if base_timestamp is None:
            size = RECORD_BATCH_OVERHEAD
            base_timestamp = record.timestamp()
        size += DefaultRecord.size_in_bytes_of(offset_delta, record.timestamp() - base_timestamp, record.key(),
                                               record.value(), record.headers())
    return size


def estimate_batch_size_upper_bound(key: Buffer | None, value: Buffer | None,
                                    headers: Sequence[RecordHeader]) -> int:
    return RECORD_BATCH_OVERHEAD + DefaultRecord.record_size_upper_bound(key, value, headers)


def increment_sequence(sequence: int, increment: int) -> int:
    """Sequences wrap from Integer.MAX_VALUE back to 0."""
    if sequence > INT_MAX - increment:
        return increment - (INT_MAX - sequence) - 1
    return sequence + increment


def decrement_sequence(sequence: int, decrement: int) -> int:
    if sequence < decrement:
        return INT_MAX - (decrement - sequence) + 1
    return sequence - decrement


class RecordIterator(CloseableIterator):
    """RecordIterator: reads exactly the batch's record count, then checks that nothing is left over."""

    def __init__(self, batch: DefaultRecordBatch) -> None:
        self.log_append_time = batch.max_timestamp() \
            if batch.timestamp_type() is TimestampType.LOG_APPEND_TIME else None
        self.base_offset = batch.base_offset()
        self.base_timestamp = batch.base_timestamp()
        self.base_sequence = batch.base_sequence()
        num_records = batch._count()
        if num_records < 0:
            raise InvalidRecordException(f"Found invalid record count {num_records} in magic v{batch.magic()} batch")
        self.num_records = num_records
        self.read_records = 0

    def has_next(self) -> bool:
        return self.read_records < self.num_records

    def __next__(self) -> Record:
        if self.read_records >= self.num_records:
            raise StopIteration
        self.read_records += 1
        record = self._read_next()
        if self.read_records == self.num_records and not self._ensure_none_remaining():
            raise InvalidRecordException("Incorrect declared batch size, records still remaining in file")
        return record

    def _read_next(self) -> Record:
        raise NotImplementedError

    def _ensure_none_remaining(self) -> bool:
        raise NotImplementedError


class _BufferRecordIterator(RecordIterator):
    """The uncompressed iterator: records read in place from the batch's buffer."""

    def __init__(self, batch: DefaultRecordBatch, buffer: memoryview) -> None:
        super().__init__(batch)
        self.buffer = buffer
        self.position = RECORDS_OFFSET

    def _read_next(self) -> Record:
        try:
            record, self.position = DefaultRecord.read_from(self.buffer, self.position, self.base_offset,
                                                            self.base_timestamp, self.base_sequence,
                                                            self.log_append_time)
        except BufferUnderflowException:
            raise InvalidRecordException("Incorrect declared batch size, premature EOF reached") from None
        return record

    def _ensure_none_remaining(self) -> bool:
        return self.position >= len(self.buffer)


class StreamRecordIterator(RecordIterator):
    """StreamRecordIterator: records read from the decompressed records section."""

    def __init__(self, batch: DefaultRecordBatch, data: bytes, read: Any) -> None:
        super().__init__(batch)
        self.data = data
        self.position = 0
        self.read = read

    def _read_next(self) -> Record:
        try:
            record, self.position = self.read(self.data, self.position, self.base_offset, self.base_timestamp,
                                              self.base_sequence, self.log_append_time)
        except IllegalArgumentException as e:
            raise InvalidRecordException("Incorrect declared batch size, premature EOF reached") from e
        except OSError as e:
            raise KafkaException("Failed to decompress record stream") from e
        return record

    def _ensure_none_remaining(self) -> bool:
        return self.position >= len(self.data)


class DefaultFileChannelRecordBatch(FileChannelRecordBatch):
    """A v2 batch in a log file: the base offset and magic come from the log header already read; anything else
    loads the 61-byte batch header, and iteration loads the whole batch."""

    def __init__(self, offset: int, magic: int, file_records: FileRecords, position: int, batch_size: int) -> None:
        super().__init__(offset, magic, file_records, position, batch_size)

    def _to_memory_record_batch(self, buffer: bytearray) -> DefaultRecordBatch:
        return DefaultRecordBatch(buffer)

    def base_offset(self) -> int:
        return self.offset

    def last_offset(self) -> int:
        return self._load_batch_header().last_offset()

    def producer_id(self) -> int:
        return self._load_batch_header().producer_id()

    def producer_epoch(self) -> int:
        return self._load_batch_header().producer_epoch()

    def base_sequence(self) -> int:
        return self._load_batch_header().base_sequence()

    def last_sequence(self) -> int:
        return self._load_batch_header().last_sequence()

    def count_or_null(self) -> int | None:
        return self._load_batch_header().count_or_null()

    def is_transactional(self) -> bool:
        return self._load_batch_header().is_transactional()

    def delete_horizon_ms(self) -> int | None:
        return self._load_batch_header().delete_horizon_ms()

    def is_control_batch(self) -> bool:
        return self._load_batch_header().is_control_batch()

    def partition_leader_epoch(self) -> int:
        return self._load_batch_header().partition_leader_epoch()

    def _header_size(self) -> int:
        return RECORD_BATCH_OVERHEAD
