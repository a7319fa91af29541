"""Port of clients/src/main/java/org/apache/kafka/common/record/MemoryRecords.java (Kafka 3.9): record batches in
a buffer (a produce request's, a fetch response's, the log cleaner's output), the cleaner's filterTo with its
FilterResult, and the factory methods that build batches."""

from __future__ import annotations

import enum
import logging
import time as _time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, IllegalStateException
from kafka_edu.v3_9.clients.common.compress.compression import NONE as COMPRESSION_NONE
from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.record import default_record_batch
from kafka_edu.v3_9.clients.common.record.abstract_records import (
    AbstractRecords,
    estimate_size_in_bytes_of_simple_records,
)
from kafka_edu.v3_9.clients.common.record.byte_buffer_log_input_stream import ByteBufferLogInputStream
from kafka_edu.v3_9.clients.common.record.converted_records import ConvertedRecords
from kafka_edu.v3_9.clients.common.record.record import Record
from kafka_edu.v3_9.clients.common.record.record_batch import (
    CURRENT_MAGIC_VALUE,
    MAGIC_VALUE_V2,
    NO_PARTITION_LEADER_EPOCH,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    NO_SEQUENCE,
    NO_TIMESTAMP,
    MutableRecordBatch,
    RecordBatch,
)
from kafka_edu.v3_9.clients.common.record.record_batch_iterator import RecordBatchIterator
from kafka_edu.v3_9.clients.common.record.records import HEADER_SIZE_UP_TO_MAGIC
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from kafka_edu.v3_9.clients.common.utils.byte_utils import Buffer

if TYPE_CHECKING:
    from kafka_edu.v3_9.clients.common.record.memory_records_builder import MemoryRecordsBuilder

log = logging.getLogger("org.apache.kafka.common.record.MemoryRecords")

INT_MAX = 2**31 - 1


def _now_ms() -> int:
    return _time.time_ns() // 1_000_000


class MemoryRecords(AbstractRecords):
    """Batches over a buffer; batches are views of it, so setting a batch's offset or epoch writes into it."""

    EMPTY: MemoryRecords

    def __init__(self, buffer: Buffer) -> None:
        if buffer is None:
            raise TypeError("buffer should not be null")
        self._buffer = memoryview(buffer)
        self._valid_bytes = -1

    def size_in_bytes(self) -> int:
        return len(self._buffer)

    def write_to(self, channel: Any, position: int, length: int) -> int:
        """TransferableRecords.writeTo: up to `length` bytes from `position` into `channel` (its write(data))."""
        if position + length > len(self._buffer):
            raise IllegalArgumentException(f"position+length should not be greater than buffer.limit(), position: "
                                           f"{position}, length: {length}, buffer.limit(): {len(self._buffer)}")
        return channel.write(self._buffer[position:position + length])

    def write_fully_to(self, channel: Any) -> int:
        """Write every byte to `channel` (a FileChannel), resuming short writes."""
        written = 0
        while written < self.size_in_bytes():
            written += channel.write(self._buffer[written:])
        return written

    def valid_bytes(self) -> int:
        """The bytes of the complete batches (a fetch response may end with a partial one)."""
        if self._valid_bytes >= 0:
            return self._valid_bytes
        size = 0
        for batch in self.batches():
            size += batch.size_in_bytes()
        self._valid_bytes = size
        return size

    def down_convert(self, to_magic: int, first_offset: int, time: Any) -> ConvertedRecords[MemoryRecords]:
        from kafka_edu.v3_9.clients.common.record.records_util import down_convert
        return down_convert(self.batches(), to_magic, first_offset, time)

    def batch_iterator(self) -> RecordBatchIterator[MutableRecordBatch]:
        return RecordBatchIterator(ByteBufferLogInputStream(self._buffer, INT_MAX))

    def first_batch_size(self) -> int | None:
        """The size of the first batch, or None if even its header is incomplete."""
        if len(self._buffer) < HEADER_SIZE_UP_TO_MAGIC:
            return None
        return ByteBufferLogInputStream(self._buffer, INT_MAX).next_batch_size()

    def filter_to(self, partition: Any, filter: RecordFilter, destination_buffer: bytearray, max_record_batch_size: int,
                  decompression_buffer_supplier: Any = None) -> FilterResult:
        """Append to `destination_buffer` the batches and records `filter` keeps: the log cleaner's compaction."""
        return MemoryRecords._filter_to(partition, self.batches(), filter, destination_buffer, max_record_batch_size,
                                        decompression_buffer_supplier)

    @staticmethod
    def _filter_to(partition: Any, batches: Iterable[MutableRecordBatch], filter: RecordFilter,
                   destination_buffer: bytearray, max_record_batch_size: int,
                   decompression_buffer_supplier: Any) -> FilterResult:
        filter_result = FilterResult(destination_buffer)
        for batch in batches:
            batch_retention_result = filter.check_batch_retention(batch)
            contains_marker_for_empty_txn = batch_retention_result.contains_marker_for_empty_txn
            batch_retention = batch_retention_result.batch_retention
            filter_result._bytes_read += batch.size_in_bytes()
            if batch_retention is BatchRetention.DELETE:
                continue
            # Read each record of the batch (this decompresses) and keep those the filter retains.
            batch_magic = batch.magic()
            retained_records: list[Record] = []
            iteration_result = MemoryRecords._filter_batch(batch, decompression_buffer_supplier, filter_result,
                                                           filter, batch_magic, True, retained_records)
            contains_tombstones = iteration_result.contains_tombstones
            write_original_batch = iteration_result.write_original_batch
            max_offset = iteration_result.max_offset
            if retained_records:
                # A v2 batch first holding a tombstone or an empty transaction's marker gets a delete horizon.
                need_to_set_delete_horizon = (batch.magic() >= MAGIC_VALUE_V2
                                              and (contains_tombstones or contains_marker_for_empty_txn)
                                              and batch.delete_horizon_ms() is None)
                if write_original_batch and not need_to_set_delete_horizon:
                    batch.write_to(destination_buffer)
                    filter_result._update_retained_batch_metadata(batch, len(retained_records), False)
                else:
                    if need_to_set_delete_horizon:
                        delete_horizon_ms = filter.current_time + filter.delete_retention_ms
                    else:
                        horizon = batch.delete_horizon_ms()
                        delete_horizon_ms = NO_TIMESTAMP if horizon is None else horizon
                    with MemoryRecords._build_retained_records_into(batch, retained_records, destination_buffer,
                                                                    delete_horizon_ms) as builder:
                        records = builder.build()
                        filtered_batch_size = records.size_in_bytes()
                        if filtered_batch_size > batch.size_in_bytes() and filtered_batch_size > max_record_batch_size:
                            log.warning("Record batch from %s with last offset %d exceeded max record batch size %d "
                                        "after cleaning (new size is %d). Consumers with version earlier than "
                                        "0.10.1.0 may need to increase their fetch sizes.", partition,
                                        batch.last_offset(), max_record_batch_size, filtered_batch_size)
                        info = builder.info()
                        filter_result._update_retained_batch_metadata_values(
                            info.max_timestamp, info.shallow_offset_of_max_timestamp, max_offset,
                            len(retained_records), filtered_batch_size)
            elif batch_retention is BatchRetention.RETAIN_EMPTY:
                if batch_magic < MAGIC_VALUE_V2:
                    raise IllegalStateException("Empty batches are only supported for magic v2 and above")
                position = len(destination_buffer)
                destination_buffer += bytes(default_record_batch.RECORD_BATCH_OVERHEAD)
                default_record_batch.write_empty_header(
                    destination_buffer, position, batch_magic, batch.producer_id(), batch.producer_epoch(),
                    batch.base_sequence(), batch.base_offset(), batch.last_offset(), batch.partition_leader_epoch(),
                    batch.timestamp_type(), batch.max_timestamp(), batch.is_transactional(), batch.is_control_batch())
                filter_result._update_retained_batch_metadata(batch, 0, True)
            # Kafka returns early here when its output buffer had to grow; a bytearray grows in place.
        return filter_result

    @staticmethod
    def _filter_batch(batch: RecordBatch, decompression_buffer_supplier: Any, filter_result: FilterResult,
                      filter: RecordFilter, batch_magic: int, write_original_batch: bool,
                      retained_records: list[Record]) -> _BatchFilterResult:
        max_offset = -1
        contains_tombstones = False
        with batch.streaming_iterator(decompression_buffer_supplier) as iterator:
            for record in iterator:
                filter_result._messages_read += 1
                if filter.should_retain_record(batch, record):
                    # A record of another magic than its batch's (an old up-conversion) forces a rewrite.
                    if not record.has_magic(batch_magic):
                        write_original_batch = False
                    if record.offset() > max_offset:
                        max_offset = record.offset()
                    retained_records.append(record)
                    if not record.has_value():
                        contains_tombstones = True
                else:
                    write_original_batch = False
        return _BatchFilterResult(write_original_batch, contains_tombstones, max_offset)

    @staticmethod
    def _build_retained_records_into(original_batch: RecordBatch, retained_records: list[Record],
                                     buffer: bytearray, delete_horizon_ms: int) -> MemoryRecordsBuilder:
        from kafka_edu.v3_9.clients.common.record.memory_records_builder import MemoryRecordsBuilder
        magic = original_batch.magic()
        compression = Compression.of(original_batch.compression_type()).build()
        timestamp_type = original_batch.timestamp_type()
        log_append_time = original_batch.max_timestamp() \
            if timestamp_type is TimestampType.LOG_APPEND_TIME else NO_TIMESTAMP
        base_offset = original_batch.base_offset() if magic >= MAGIC_VALUE_V2 else retained_records[0].offset()
        builder = MemoryRecordsBuilder(buffer, magic, compression, timestamp_type, base_offset, log_append_time,
                                       original_batch.producer_id(), original_batch.producer_epoch(),
                                       original_batch.base_sequence(), original_batch.is_transactional(),
                                       original_batch.is_control_batch(), original_batch.partition_leader_epoch(),
                                       INT_MAX, delete_horizon_ms)
        for record in retained_records:
            builder.append(record)
        if magic >= MAGIC_VALUE_V2:
            # Keep the batch's original last offset, so the producer's sequence range stays intact.
            builder.override_last_offset(original_batch.last_offset())
        return builder

    def buffer(self) -> memoryview:
        return self._buffer

    def batches(self) -> Iterable[MutableRecordBatch]:
        return _Batches(self)

    def __repr__(self) -> str:
        return f"MemoryRecords(size={self.size_in_bytes()}, buffer={self._buffer!r})"

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other is None or type(other) is not type(self):
            return False
        assert isinstance(other, MemoryRecords)
        return self._buffer == other._buffer

    def __hash__(self) -> int:
        return hash(bytes(self._buffer))

    @staticmethod
    def readable_records(buffer: Buffer) -> MemoryRecords:
        """MemoryRecords over `buffer`; read-only bytes are copied, as Kafka's buffers are always writable."""
        view = memoryview(buffer)
        if view.readonly:
            view = memoryview(bytearray(view))
        return MemoryRecords(view)

    @staticmethod
    def builder(buffer: bytearray | int, magic: int = CURRENT_MAGIC_VALUE, compression: Compression = COMPRESSION_NONE,
                timestamp_type: TimestampType = TimestampType.CREATE_TIME, base_offset: int = 0,
                log_append_time: int | None = None, producer_id: int = NO_PRODUCER_ID,
                producer_epoch: int = NO_PRODUCER_EPOCH, base_sequence: int = NO_SEQUENCE,
                is_transactional: bool = False, is_control_batch: bool = False,
                partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH,
                max_size: int | None = None) -> MemoryRecordsBuilder:
        """Every MemoryRecords.builder overload: Kafka's defaults are the keyword defaults; a log append time left
        out is now for LogAppendTime batches."""
        from kafka_edu.v3_9.clients.common.record.memory_records_builder import MemoryRecordsBuilder
        if not isinstance(magic, int) or not isinstance(base_offset, int):
            raise TypeError("builder(buffer, magic, compression, timestamp_type, base_offset, ...): pass Kafka's "
                            "overloads without a magic by keyword (compression=, timestamp_type=, base_offset=)")
        if log_append_time is None:
            log_append_time = _now_ms() if timestamp_type is TimestampType.LOG_APPEND_TIME else NO_TIMESTAMP
        return MemoryRecordsBuilder(buffer, magic, compression, timestamp_type, base_offset, log_append_time,
                                    producer_id, producer_epoch, base_sequence, is_transactional, is_control_batch,
                                    partition_leader_epoch, max_size)

    @staticmethod
    def idempotent_builder(buffer: bytearray | int, compression: Compression, base_offset: int, producer_id: int,
                           producer_epoch: int, base_sequence: int) -> MemoryRecordsBuilder:
        return MemoryRecords.builder(buffer, CURRENT_MAGIC_VALUE, compression, TimestampType.CREATE_TIME, base_offset,
                                     _now_ms(), producer_id, producer_epoch, base_sequence)

    @staticmethod
    def with_records(compression: Compression, *records: SimpleRecord, magic: int = CURRENT_MAGIC_VALUE,
                     initial_offset: int = 0, timestamp_type: TimestampType = TimestampType.CREATE_TIME,
                     producer_id: int = NO_PRODUCER_ID, producer_epoch: int = NO_PRODUCER_EPOCH,
                     base_sequence: int = NO_SEQUENCE, partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH,
                     is_transactional: bool = False) -> MemoryRecords:
        """Every MemoryRecords.withRecords overload: one batch of `records` from `initial_offset`."""
        from kafka_edu.v3_9.clients.common.record.memory_records_builder import MemoryRecordsBuilder
        if not isinstance(compression, Compression):
            raise TypeError("with_records(compression, *records, magic=..., initial_offset=...): Kafka's leading "
                            "magic and offset arguments are keywords here")
        if not records:
            return MemoryRecords.EMPTY
        size_estimate = estimate_size_in_bytes_of_simple_records(magic, compression.type(), records)
        log_append_time = _now_ms() if timestamp_type is TimestampType.LOG_APPEND_TIME else NO_TIMESTAMP
        with MemoryRecordsBuilder(size_estimate, magic, compression, timestamp_type, initial_offset, log_append_time,
                                  producer_id, producer_epoch, base_sequence, is_transactional, False,
                                  partition_leader_epoch, size_estimate) as builder:
            for record in records:
                builder.append(record)
            return builder.build()

    @staticmethod
    def with_idempotent_records(compression: Compression, producer_id: int, producer_epoch: int, base_sequence: int,
                                *records: SimpleRecord, magic: int = CURRENT_MAGIC_VALUE, initial_offset: int = 0,
                                partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH) -> MemoryRecords:
        return MemoryRecords.with_records(compression, *records, magic=magic, initial_offset=initial_offset,
                                          producer_id=producer_id, producer_epoch=producer_epoch,
                                          base_sequence=base_sequence, partition_leader_epoch=partition_leader_epoch)

    @staticmethod
    def with_transactional_records(compression: Compression, producer_id: int, producer_epoch: int,
                                   base_sequence: int, *records: SimpleRecord, magic: int = CURRENT_MAGIC_VALUE,
                                   initial_offset: int = 0,
                                   partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH) -> MemoryRecords:
        return MemoryRecords.with_records(compression, *records, magic=magic, initial_offset=initial_offset,
                                          producer_id=producer_id, producer_epoch=producer_epoch,
                                          base_sequence=base_sequence, partition_leader_epoch=partition_leader_epoch,
                                          is_transactional=True)

    @staticmethod
    def with_end_transaction_marker(producer_id: int, producer_epoch: int, marker: Any, initial_offset: int = 0,
                                    timestamp: int | None = None,
                                    partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH) -> MemoryRecords:
        """One transactional control batch holding `marker` (timestamp: now by default)."""
        from kafka_edu.v3_9.clients.common.record.end_transaction_marker import CURRENT_END_TXN_SCHEMA_RECORD_SIZE
        if timestamp is None:
            timestamp = _now_ms()
        buffer = bytearray()
        MemoryRecords.write_end_transactional_marker(
            buffer, initial_offset, timestamp, partition_leader_epoch, producer_id, producer_epoch, marker,
            default_record_batch.RECORD_BATCH_OVERHEAD + CURRENT_END_TXN_SCHEMA_RECORD_SIZE)
        return MemoryRecords.readable_records(buffer)

    @staticmethod
    def write_end_transactional_marker(buffer: bytearray, initial_offset: int, timestamp: int,
                                       partition_leader_epoch: int, producer_id: int, producer_epoch: int,
                                       marker: Any, capacity: int = INT_MAX) -> None:
        from kafka_edu.v3_9.clients.common.record.memory_records_builder import MemoryRecordsBuilder
        with MemoryRecordsBuilder(buffer, CURRENT_MAGIC_VALUE, COMPRESSION_NONE, TimestampType.CREATE_TIME,
                                  initial_offset, timestamp, producer_id, producer_epoch, NO_SEQUENCE, True, True,
                                  partition_leader_epoch, capacity) as builder:
            builder.append_end_txn_marker(timestamp, marker)

    @staticmethod
    def with_leader_change_message(initial_offset: int, timestamp: int, leader_epoch: int, buffer: bytearray | int,
                                   leader_change_message: Any) -> MemoryRecords:
        with MemoryRecords._create_kraft_control_record_builder(initial_offset, timestamp, leader_epoch,
                                                                buffer) as builder:
            builder.append_leader_change_message(timestamp, leader_change_message)
            return builder.build()

    @staticmethod
    def with_snapshot_header_record(initial_offset: int, timestamp: int, leader_epoch: int, buffer: bytearray | int,
                                    snapshot_header_record: Any) -> MemoryRecords:
        with MemoryRecords._create_kraft_control_record_builder(initial_offset, timestamp, leader_epoch,
                                                                buffer) as builder:
            builder.append_snapshot_header_message(timestamp, snapshot_header_record)
            return builder.build()

    @staticmethod
    def with_snapshot_footer_record(initial_offset: int, timestamp: int, leader_epoch: int, buffer: bytearray | int,
                                    snapshot_footer_record: Any) -> MemoryRecords:
        with MemoryRecords._create_kraft_control_record_builder(initial_offset, timestamp, leader_epoch,
                                                                buffer) as builder:
            builder.append_snapshot_footer_message(timestamp, snapshot_footer_record)
            return builder.build()

    @staticmethod
    def with_kraft_version_record(initial_offset: int, timestamp: int, leader_epoch: int, buffer: bytearray | int,
                                  kraft_version_record: Any) -> MemoryRecords:
        with MemoryRecords._create_kraft_control_record_builder(initial_offset, timestamp, leader_epoch,
                                                                buffer) as builder:
            builder.append_kraft_version_message(timestamp, kraft_version_record)
            return builder.build()

    @staticmethod
    def with_voters_record(initial_offset: int, timestamp: int, leader_epoch: int, buffer: bytearray | int,
                           voters_record: Any) -> MemoryRecords:
        with MemoryRecords._create_kraft_control_record_builder(initial_offset, timestamp, leader_epoch,
                                                                buffer) as builder:
            builder.append_voters_message(timestamp, voters_record)
            return builder.build()

    @staticmethod
    def _create_kraft_control_record_builder(initial_offset: int, timestamp: int, leader_epoch: int,
                                             buffer: bytearray | int) -> MemoryRecordsBuilder:
        from kafka_edu.v3_9.clients.common.record.memory_records_builder import MemoryRecordsBuilder
        capacity = buffer if isinstance(buffer, int) else INT_MAX
        return MemoryRecordsBuilder(buffer, CURRENT_MAGIC_VALUE, COMPRESSION_NONE, TimestampType.CREATE_TIME,
                                    initial_offset, timestamp, NO_PRODUCER_ID, NO_PRODUCER_EPOCH, NO_SEQUENCE, False,
                                    True, leader_epoch, capacity)


MemoryRecords.EMPTY = MemoryRecords.readable_records(bytearray())


class _Batches:
    """MemoryRecords.batches(): iterable again and again, each time from the start."""

    def __init__(self, records: MemoryRecords) -> None:
        self._records = records

    def __iter__(self) -> RecordBatchIterator[MutableRecordBatch]:
        return self._records.batch_iterator()


class BatchRetention(enum.Enum):
    DELETE = "DELETE"  # drop the batch without looking at its records
    RETAIN_EMPTY = "RETAIN_EMPTY"  # keep the batch even if no record is kept
    DELETE_EMPTY = "DELETE_EMPTY"  # drop the batch if no record is kept


class BatchRetentionResult:
    def __init__(self, batch_retention: BatchRetention, contains_marker_for_empty_txn: bool) -> None:
        self.batch_retention = batch_retention
        self.contains_marker_for_empty_txn = contains_marker_for_empty_txn


class RecordFilter:
    """MemoryRecords.RecordFilter: decides per batch, then per record, what the cleaner keeps."""

    BatchRetention = BatchRetention
    BatchRetentionResult = BatchRetentionResult

    def __init__(self, current_time: int, delete_retention_ms: int) -> None:
        self.current_time = current_time
        self.delete_retention_ms = delete_retention_ms

    def check_batch_retention(self, batch: RecordBatch) -> BatchRetentionResult:
        raise NotImplementedError

    def should_retain_record(self, record_batch: RecordBatch, record: Record) -> bool:
        raise NotImplementedError


class _BatchFilterResult:
    def __init__(self, write_original_batch: bool, contains_tombstones: bool, max_offset: int) -> None:
        self.write_original_batch = write_original_batch
        self.contains_tombstones = contains_tombstones
        self.max_offset = max_offset


class FilterResult:
    """What filterTo read and kept."""

    def __init__(self, output_buffer: bytearray) -> None:
        self._output_buffer = output_buffer
        self._messages_read = 0
        # Counts bytes of batches read, whether kept or not.
        self._bytes_read = 0
        self._messages_retained = 0
        self._bytes_retained = 0
        self._max_offset = -1
        self._max_timestamp = NO_TIMESTAMP
        self._shallow_offset_of_max_timestamp = -1

    def _update_retained_batch_metadata(self, retained_batch: RecordBatch, num_messages_in_batch: int,
                                        header_only: bool) -> None:
        bytes_retained = default_record_batch.RECORD_BATCH_OVERHEAD if header_only else retained_batch.size_in_bytes()
        self._update_retained_batch_metadata_values(retained_batch.max_timestamp(), retained_batch.last_offset(),
                                                    retained_batch.last_offset(), num_messages_in_batch,
                                                    bytes_retained)

    def _update_retained_batch_metadata_values(self, max_timestamp: int, shallow_offset_of_max_timestamp: int,
                                               max_offset: int, messages_retained: int, bytes_retained: int) -> None:
        self._validate_batch_metadata(max_timestamp, shallow_offset_of_max_timestamp, max_offset)
        if max_timestamp > self._max_timestamp:
            self._max_timestamp = max_timestamp
            self._shallow_offset_of_max_timestamp = shallow_offset_of_max_timestamp
        self._max_offset = max(max_offset, self._max_offset)
        self._messages_retained += messages_retained
        self._bytes_retained += bytes_retained

    @staticmethod
    def _validate_batch_metadata(max_timestamp: int, shallow_offset_of_max_timestamp: int, max_offset: int) -> None:
        if max_timestamp != NO_TIMESTAMP and shallow_offset_of_max_timestamp < 0:
            raise IllegalArgumentException(f"shallowOffset undefined for maximum timestamp {max_timestamp}")
        if max_offset < 0:
            raise IllegalArgumentException("maxOffset undefined")

    def output_buffer(self) -> bytearray:
        return self._output_buffer

    def messages_read(self) -> int:
        return self._messages_read

    def bytes_read(self) -> int:
        return self._bytes_read

    def messages_retained(self) -> int:
        return self._messages_retained

    def bytes_retained(self) -> int:
        return self._bytes_retained

    def max_offset(self) -> int:
        return self._max_offset

    def max_timestamp(self) -> int:
        return self._max_timestamp

    def shallow_offset_of_max_timestamp(self) -> int:
        return self._shallow_offset_of_max_timestamp


