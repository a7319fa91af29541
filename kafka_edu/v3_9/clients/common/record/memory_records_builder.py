"""Port of clients/src/main/java/org/apache/kafka/common/record/MemoryRecordsBuilder.java (Kafka 3.9): builds one
batch (v2, or a v0/v1 message set) into a buffer: records are appended uncompressed, and closing the builder
compresses them and writes the header in front.

Kafka writes through a ByteBufferOutputStream that grows its buffer; here the buffer is a bytearray the builder
appends to from its current end (Java's position). Pass an int instead to start a new buffer of that capacity.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from kio.serial import entity_writer

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, IllegalStateException
from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.header.internals.record_header import RecordHeader
from kafka_edu.v3_9.clients.common.record import abstract_legacy_record_batch, default_record_batch, legacy_record
from kafka_edu.v3_9.clients.common.record.abstract_records import record_batch_header_size_in_bytes
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType, ControlRecordUtils
from kafka_edu.v3_9.clients.common.record.default_record import DefaultRecord
from kafka_edu.v3_9.clients.common.record.legacy_record import LegacyRecord
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record import EMPTY_HEADERS
from kafka_edu.v3_9.clients.common.record.record_batch import (
    MAGIC_VALUE_V0,
    MAGIC_VALUE_V1,
    MAGIC_VALUE_V2,
    NO_PARTITION_LEADER_EPOCH,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    NO_TIMESTAMP,
)
from kafka_edu.v3_9.clients.common.record.records import LOG_OVERHEAD
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from kafka_edu.v3_9.clients.common.utils.byte_utils import Buffer

COMPRESSION_RATE_ESTIMATION_FACTOR = 1.05
INT_MAX = 2**31 - 1


class RecordsInfo:
    """The batch's max timestamp and the offset to index it under."""

    def __init__(self, max_timestamp: int, shallow_offset_of_max_timestamp: int) -> None:
        self.max_timestamp = max_timestamp
        self.shallow_offset_of_max_timestamp = shallow_offset_of_max_timestamp


class MemoryRecordsBuilder:
    def __init__(self, buffer: bytearray | int, magic: int, compression: Compression, timestamp_type: TimestampType,
                 base_offset: int, log_append_time: int, producer_id: int, producer_epoch: int, base_sequence: int,
                 is_transactional: bool, is_control_batch: bool, partition_leader_epoch: int,
                 write_limit: int | None = None, delete_horizon_ms: int = NO_TIMESTAMP) -> None:
        if magic > MAGIC_VALUE_V0 and timestamp_type is TimestampType.NO_TIMESTAMP_TYPE:
            raise IllegalArgumentException("TimestampType must be set for magic >= 0")
        if magic < MAGIC_VALUE_V2:
            if is_transactional:
                raise IllegalArgumentException(f"Transactional records are not supported for magic {magic}")
            if is_control_batch:
                raise IllegalArgumentException(f"Control records are not supported for magic {magic}")
            if compression.type() is CompressionType.ZSTD:
                raise IllegalArgumentException(f"ZStandard compression is not supported for magic {magic}")
            if delete_horizon_ms != NO_TIMESTAMP:
                raise IllegalArgumentException(f"Delete horizon timestamp is not supported for magic {magic}")
        if isinstance(buffer, int):
            self._initial_capacity = buffer
            buffer = bytearray()
        else:
            self._initial_capacity = len(buffer)
        if write_limit is None:
            write_limit = self._initial_capacity if self._initial_capacity > len(buffer) else INT_MAX
        self.magic_ = magic
        self.timestamp_type = timestamp_type
        self.compression_ = compression
        self.base_offset = base_offset
        self.log_append_time = log_append_time
        self.num_records_ = 0
        self.uncompressed_records_size_in_bytes = 0
        self.actual_compression_ratio = 1.0
        self.estimated_compression_ratio = 1.0
        self.max_timestamp = NO_TIMESTAMP
        self.offset_of_max_timestamp = -1
        self.producer_id_ = producer_id
        self.producer_epoch_ = producer_epoch
        self.base_sequence_ = base_sequence
        self.is_transactional_ = is_transactional
        self.is_control_batch_ = is_control_batch
        self.delete_horizon_ms = delete_horizon_ms
        self.partition_leader_epoch = partition_leader_epoch
        self.write_limit = write_limit
        self.buffer_stream = buffer
        self.initial_position = len(buffer)
        self.batch_header_size_in_bytes = record_batch_header_size_in_bytes(magic, compression.type())
        # The header's room is reserved now and filled in on close, as Kafka positions its stream past it.
        buffer += bytes(self.batch_header_size_in_bytes)
        # Uncompressed record bytes; None once closed for appends (Kafka's CLOSED_STREAM).
        self.append_stream: bytearray | None = bytearray()
        self.last_offset: int | None = None
        self.base_timestamp: int | None = None
        self.built_records: MemoryRecords | None = None
        self.aborted = False
        if self.has_delete_horizon_ms():
            self.base_timestamp = delete_horizon_ms

    def buffer(self) -> bytearray:
        return self.buffer_stream

    def initial_capacity(self) -> int:
        return self._initial_capacity

    def compression_ratio(self) -> float:
        return self.actual_compression_ratio

    def compression(self) -> Compression:
        return self.compression_

    def is_control_batch(self) -> bool:
        return self.is_control_batch_

    def is_transactional(self) -> bool:
        return self.is_transactional_

    def has_delete_horizon_ms(self) -> bool:
        return self.magic_ >= MAGIC_VALUE_V2 and self.delete_horizon_ms >= 0

    def build(self) -> MemoryRecords:
        if self.aborted:
            raise IllegalStateException("Attempting to build an aborted record batch")
        self.close()
        assert self.built_records is not None
        return self.built_records

    def info(self) -> RecordsInfo:
        """The max timestamp and its shallow offset: the last offset for v2 and compressed sets."""
        shallow = self.compression_.type() is not CompressionType.NONE or self.magic_ >= MAGIC_VALUE_V2
        if self.timestamp_type is TimestampType.LOG_APPEND_TIME:
            return RecordsInfo(self.log_append_time, self.last_offset if shallow else self.base_offset)  # type: ignore
        if self.max_timestamp == NO_TIMESTAMP:
            return RecordsInfo(NO_TIMESTAMP, -1)
        return RecordsInfo(self.max_timestamp, self.last_offset if shallow else self.offset_of_max_timestamp)  # type: ignore

    def num_records(self) -> int:
        return self.num_records_

    def uncompressed_bytes_written(self) -> int:
        return self.uncompressed_records_size_in_bytes + self.batch_header_size_in_bytes

    def set_producer_state(self, producer_id: int, producer_epoch: int, base_sequence: int,
                           is_transactional: bool) -> None:
        if self.is_closed():
            raise IllegalStateException("Trying to set producer state of an already closed batch. This indicates a "
                                        "bug on the client.")
        self.producer_id_ = producer_id
        self.producer_epoch_ = producer_epoch
        self.base_sequence_ = base_sequence
        self.is_transactional_ = is_transactional

    def override_last_offset(self, last_offset: int) -> None:
        if self.built_records is not None:
            raise IllegalStateException("Cannot override the last offset after the records have been built")
        self.last_offset = last_offset

    def close_for_record_appends(self) -> None:
        """No more appends; the records are compressed into the buffer now, the header waits for close()."""
        if self.append_stream is not None:
            records = self.append_stream
            self.append_stream = None
            if self.num_records_ > 0:
                self.buffer_stream += self.compression_.wrap_for_output(records, self.magic_)

    def abort(self) -> None:
        self.close_for_record_appends()
        del self.buffer_stream[self.initial_position:]
        self.aborted = True

    def reopen_and_rewrite_producer_state(self, producer_id: int, producer_epoch: int, base_sequence: int,
                                          is_transactional: bool) -> None:
        if self.aborted:
            raise IllegalStateException("Should not reopen a batch which is already aborted.")
        self.built_records = None
        self.producer_id_ = producer_id
        self.producer_epoch_ = producer_epoch
        self.base_sequence_ = base_sequence
        self.is_transactional_ = is_transactional

    def close(self) -> None:
        if self.aborted:
            raise IllegalStateException("Cannot close MemoryRecordsBuilder as it has already been aborted")
        if self.built_records is not None:
            return
        self._validate_producer_state()
        self.close_for_record_appends()
        if self.num_records_ == 0:
            del self.buffer_stream[self.initial_position:]
            self.built_records = MemoryRecords.EMPTY
        else:
            if self.magic_ > MAGIC_VALUE_V1:
                self.actual_compression_ratio = \
                    self._write_default_batch_header() / self.uncompressed_records_size_in_bytes
            elif self.compression_.type() is not CompressionType.NONE:
                self.actual_compression_ratio = \
                    self._write_legacy_compressed_wrapper_header() / self.uncompressed_records_size_in_bytes
            # A copy: the caller may go on appending to the buffer, which a view would pin.
            self.built_records = MemoryRecords.readable_records(bytearray(self.buffer_stream[self.initial_position:]))

    def __enter__(self) -> MemoryRecordsBuilder:
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.aborted:
            self.close()

    def _validate_producer_state(self) -> None:
        if self.is_transactional_ and self.producer_id_ == NO_PRODUCER_ID:
            raise IllegalArgumentException("Cannot write transactional messages without a valid producer ID")
        if self.producer_id_ != NO_PRODUCER_ID:
            if self.producer_epoch_ == NO_PRODUCER_EPOCH:
                raise IllegalArgumentException("Invalid negative producer epoch")
            if self.base_sequence_ < 0 and not self.is_control_batch_:
                raise IllegalArgumentException("Invalid negative sequence number used")
            if self.magic_ < MAGIC_VALUE_V2:
                raise IllegalArgumentException(f"Idempotent messages are not supported for magic {self.magic_}")

    def _write_default_batch_header(self) -> int:
        self._ensure_open_for_record_batch_write()
        size = len(self.buffer_stream) - self.initial_position
        written_compressed = size - default_record_batch.RECORD_BATCH_OVERHEAD
        assert self.last_offset is not None and self.base_timestamp is not None
        offset_delta = self.last_offset - self.base_offset
        max_timestamp = self.log_append_time if self.timestamp_type is TimestampType.LOG_APPEND_TIME \
            else self.max_timestamp
        default_record_batch.write_header(
            self.buffer_stream, self.initial_position, self.base_offset, offset_delta, size, self.magic_,
            self.compression_.type(), self.timestamp_type, self.base_timestamp, max_timestamp, self.producer_id_,
            self.producer_epoch_, self.base_sequence_, self.is_transactional_, self.is_control_batch_,
            self.has_delete_horizon_ms(), self.partition_leader_epoch, self.num_records_)
        return written_compressed

    def _write_legacy_compressed_wrapper_header(self) -> int:
        self._ensure_open_for_record_batch_write()
        wrapper_size = len(self.buffer_stream) - self.initial_position - LOG_OVERHEAD
        written_compressed = wrapper_size - legacy_record.record_overhead(self.magic_)
        assert self.last_offset is not None
        abstract_legacy_record_batch.write_header_at(self.buffer_stream, self.initial_position, self.last_offset,
                                                     wrapper_size)
        timestamp = self.log_append_time if self.timestamp_type is TimestampType.LOG_APPEND_TIME \
            else self.max_timestamp
        legacy_record.write_compressed_record_header(self.buffer_stream, self.initial_position + LOG_OVERHEAD,
                                                     self.magic_, wrapper_size, timestamp, self.compression_.type(),
                                                     self.timestamp_type)
        return written_compressed

    def _append_with_offset(self, offset: int, is_control_record: bool, timestamp: int, key: Buffer | None,
                            value: Buffer | None, headers: Sequence[RecordHeader] | None) -> None:
        if is_control_record != self.is_control_batch_:
            raise IllegalArgumentException("Control records can only be appended to control batches")
        if self.last_offset is not None and offset <= self.last_offset:
            raise IllegalArgumentException(f"Illegal offset {offset} following previous offset {self.last_offset} "
                                           "(Offsets must increase monotonically).")
        if timestamp < 0 and timestamp != NO_TIMESTAMP:
            raise IllegalArgumentException(f"Invalid negative timestamp {timestamp}")
        if self.magic_ < MAGIC_VALUE_V2 and headers is not None and len(headers) > 0:
            raise IllegalArgumentException(f"Magic v{self.magic_} does not support record headers")
        if self.base_timestamp is None:
            self.base_timestamp = timestamp
        if self.magic_ > MAGIC_VALUE_V1:
            self._append_default_record(offset, timestamp, key, value, headers)
        else:
            self._append_legacy_record(offset, timestamp, key, value, self.magic_)

    def append_with_offset(self, offset: int, timestamp: Any, key: Buffer | None = None, value: Buffer | None = None,
                           headers: Sequence[RecordHeader] = EMPTY_HEADERS) -> None:
        """appendWithOffset(offset, timestamp, key, value[, headers]); also appendWithOffset(offset, record) for a
        SimpleRecord, a Record or a LegacyRecord passed as the second argument."""
        if isinstance(timestamp, SimpleRecord):
            record = timestamp
            self.append_with_offset(offset, record.timestamp(), record.key(), record.value(), record.headers())
        elif isinstance(timestamp, LegacyRecord):
            record_ = timestamp
            self.append_with_offset(offset, record_.timestamp(), record_.key(), record_.value())
        elif not isinstance(timestamp, int):
            record__ = timestamp
            self.append_with_offset(offset, record__.timestamp(), record__.key(), record__.value(),
                                    record__.headers())
        else:
            self._append_with_offset(offset, False, timestamp, key, value, headers)

    def append_control_record_with_offset(self, offset: int, record: SimpleRecord) -> None:
        key = record.key()
        type_id = ControlRecordType.parse_type_id(key if key is not None else b"")
        type = ControlRecordType.from_type_id(type_id)
        if type is ControlRecordType.UNKNOWN:
            raise IllegalArgumentException(f"Cannot append record with unknown control record type {type_id}")
        self._append_with_offset(offset, True, record.timestamp(), record.key(), record.value(), record.headers())

    def append(self, timestamp: Any, key: Buffer | None = None, value: Buffer | None = None,
               headers: Sequence[RecordHeader] = EMPTY_HEADERS) -> None:
        """append(timestamp, key, value[, headers]) at the next offset; append(record) for a SimpleRecord or a
        LegacyRecord (next offset) or any other Record (its own offset)."""
        if isinstance(timestamp, SimpleRecord):
            self.append_with_offset(self._next_sequential_offset(), timestamp)
        elif isinstance(timestamp, LegacyRecord):
            self.append_with_offset(self._next_sequential_offset(), timestamp)
        elif not isinstance(timestamp, int):
            record = timestamp
            self._append_with_offset(record.offset(), self.is_control_batch_, record.timestamp(), record.key(),
                                     record.value(), record.headers())
        else:
            self.append_with_offset(self._next_sequential_offset(), timestamp, key, value, headers)

    def append_control_record(self, timestamp: int, type: ControlRecordType, value: Buffer | None) -> None:
        key = type.record_key()
        self._append_with_offset(self._next_sequential_offset(), True, timestamp, key, value, EMPTY_HEADERS)

    def append_end_txn_marker(self, timestamp: int, marker: Any) -> None:
        if self.producer_id_ == NO_PRODUCER_ID:
            raise IllegalArgumentException("End transaction marker requires a valid producerId")
        if not self.is_transactional_:
            raise IllegalArgumentException("End transaction marker depends on batch transactional flag being enabled")
        value = marker.serialize_value()
        self.append_control_record(timestamp, marker.control_type, value)

    def append_leader_change_message(self, timestamp: int, leader_change_message: Any) -> None:
        if self.partition_leader_epoch == NO_PARTITION_LEADER_EPOCH:
            raise IllegalArgumentException(f"Partition leader epoch must be valid, but get "
                                           f"{self.partition_leader_epoch}")
        self.append_control_record(timestamp, ControlRecordType.LEADER_CHANGE,
                                   _to_byte_buffer(leader_change_message))

    def append_snapshot_header_message(self, timestamp: int, snapshot_header_record: Any) -> None:
        self.append_control_record(timestamp, ControlRecordType.SNAPSHOT_HEADER,
                                   _to_byte_buffer(snapshot_header_record))

    def append_snapshot_footer_message(self, timestamp: int, snapshot_footer_record: Any) -> None:
        self.append_control_record(timestamp, ControlRecordType.SNAPSHOT_FOOTER,
                                   _to_byte_buffer(snapshot_footer_record))

    def append_kraft_version_message(self, timestamp: int, kraft_version_record: Any) -> None:
        self.append_control_record(timestamp, ControlRecordType.KRAFT_VERSION, _to_byte_buffer(kraft_version_record))

    def append_voters_message(self, timestamp: int, voters_record: Any) -> None:
        self.append_control_record(timestamp, ControlRecordType.KRAFT_VOTERS, _to_byte_buffer(voters_record))

    def append_unchecked_with_offset(self, offset: int, record: LegacyRecord | SimpleRecord) -> None:
        """Append without the offset and timestamp checks (the broker's format conversion)."""
        self._ensure_open_for_record_append()
        assert self.append_stream is not None
        if isinstance(record, LegacyRecord):
            size = record.size_in_bytes()
            abstract_legacy_record_batch.write_header(self.append_stream, self._to_inner_offset(offset), size)
            self.append_stream += record.buffer()
            self._record_written(offset, record.timestamp(), size + LOG_OVERHEAD)
        elif self.magic_ >= MAGIC_VALUE_V2:
            offset_delta = offset - self.base_offset
            timestamp = record.timestamp()
            if self.base_timestamp is None:
                self.base_timestamp = timestamp
            size_in_bytes = DefaultRecord.write_to(self.append_stream, offset_delta, timestamp - self.base_timestamp,
                                                   record.key(), record.value(), record.headers())
            self._record_written(offset, timestamp, size_in_bytes)
        else:
            legacy = LegacyRecord.create(self.magic_, record.timestamp(), record.key(), record.value())
            self.append_unchecked_with_offset(offset, legacy)

    def _append_default_record(self, offset: int, timestamp: int, key: Buffer | None, value: Buffer | None,
                               headers: Sequence[RecordHeader] | None) -> None:
        self._ensure_open_for_record_append()
        assert self.append_stream is not None and self.base_timestamp is not None
        offset_delta = offset - self.base_offset
        timestamp_delta = timestamp - self.base_timestamp
        size_in_bytes = DefaultRecord.write_to(self.append_stream, offset_delta, timestamp_delta, key, value, headers)
        self._record_written(offset, timestamp, size_in_bytes)

    def _append_legacy_record(self, offset: int, timestamp: int, key: Buffer | None, value: Buffer | None,
                              magic: int) -> int:
        self._ensure_open_for_record_append()
        assert self.append_stream is not None
        size = legacy_record.record_size(magic, key, value)
        abstract_legacy_record_batch.write_header(self.append_stream, self._to_inner_offset(offset), size)
        if self.timestamp_type is TimestampType.LOG_APPEND_TIME:
            timestamp = self.log_append_time
        crc = legacy_record.write(self.append_stream, magic, timestamp, key, value, CompressionType.NONE,
                                  self.timestamp_type)
        self._record_written(offset, timestamp, size + LOG_OVERHEAD)
        return crc

    def _to_inner_offset(self, offset: int) -> int:
        # Inner messages of a compressed v1 set carry offsets relative to the set's first.
        if self.magic_ > 0 and self.compression_.type() is not CompressionType.NONE:
            return offset - self.base_offset
        return offset

    def _record_written(self, offset: int, timestamp: int, size: int) -> None:
        if self.num_records_ == INT_MAX:
            raise IllegalArgumentException(f"Maximum number of records per batch exceeded, max records: {INT_MAX}")
        if offset - self.base_offset > INT_MAX:
            raise IllegalArgumentException(f"Maximum offset delta exceeded, base offset: {self.base_offset}, "
                                           f"last offset: {offset}")
        self.num_records_ += 1
        self.uncompressed_records_size_in_bytes += size
        self.last_offset = offset
        if self.magic_ > MAGIC_VALUE_V0 and timestamp > self.max_timestamp:
            self.max_timestamp = timestamp
            self.offset_of_max_timestamp = offset

    def _ensure_open_for_record_append(self) -> None:
        if self.append_stream is None:
            raise IllegalStateException("Tried to append a record, but MemoryRecordsBuilder is closed for record "
                                        "appends")

    def _ensure_open_for_record_batch_write(self) -> None:
        if self.is_closed():
            raise IllegalStateException("Tried to write record batch header, but MemoryRecordsBuilder is closed")
        if self.aborted:
            raise IllegalStateException("Tried to write record batch header, but MemoryRecordsBuilder is aborted")

    def _estimated_bytes_written(self) -> int:
        if self.compression_.type() is CompressionType.NONE:
            return self.batch_header_size_in_bytes + self.uncompressed_records_size_in_bytes
        # Before closing, the compressed size is unknown: estimate it from the topic's observed ratio.
        return self.batch_header_size_in_bytes + int(self.uncompressed_records_size_in_bytes
                                                     * self.estimated_compression_ratio
                                                     * COMPRESSION_RATE_ESTIMATION_FACTOR)

    def set_estimated_compression_ratio(self, estimated_compression_ratio: float) -> None:
        self.estimated_compression_ratio = estimated_compression_ratio

    def has_room_for(self, timestamp: int, key: Buffer | None = None, value: Buffer | None = None,
                     headers: Sequence[RecordHeader] = EMPTY_HEADERS) -> bool:
        if self.is_full():
            return False
        # The first record always fits, so that a record larger than the batch size still gets sent.
        if self.num_records_ == 0:
            return True
        if self.magic_ < MAGIC_VALUE_V2:
            record_size = LOG_OVERHEAD + legacy_record.record_size(self.magic_, key, value)
        else:
            next_offset_delta = 0 if self.last_offset is None else self.last_offset - self.base_offset + 1
            timestamp_delta = 0 if self.base_timestamp is None else timestamp - self.base_timestamp
            record_size = DefaultRecord.size_in_bytes_of(next_offset_delta, timestamp_delta, key, value, headers)
        return self.write_limit >= self._estimated_bytes_written() + record_size

    def has_room_for_size(self, estimated_records_size: int) -> bool:
        """hasRoomFor(int estimatedRecordsSize)."""
        if self.is_full():
            return False
        return self.write_limit >= self._estimated_bytes_written() + estimated_records_size

    def max_allowed_bytes(self) -> int:
        return self.write_limit - self.batch_header_size_in_bytes

    def is_closed(self) -> bool:
        return self.built_records is not None

    def is_full(self) -> bool:
        return self.append_stream is None or (self.num_records_ > 0
                                              and self.write_limit <= self._estimated_bytes_written())

    def estimated_size_in_bytes(self) -> int:
        return self.built_records.size_in_bytes() if self.built_records is not None \
            else self._estimated_bytes_written()

    def magic(self) -> int:
        return self.magic_

    def _next_sequential_offset(self) -> int:
        return self.base_offset if self.last_offset is None else self.last_offset + 1

    def producer_id(self) -> int:
        return self.producer_id_

    def producer_epoch(self) -> int:
        return self.producer_epoch_

    def base_sequence(self) -> int:
        return self.base_sequence_


def _to_byte_buffer(message: Any) -> bytes:
    """MessageUtil.toByteBuffer(message, version): the bare body at the message's own (kio) version."""
    expected = [cls for type, cls in ControlRecordUtils.MESSAGE_CLASSES.items() if isinstance(message, cls)]
    if not expected:
        raise IllegalArgumentException(f"Not a raft control message: {message!r}")
    out = io.BytesIO()
    entity_writer(type(message))(out, message)
    return out.getvalue()

