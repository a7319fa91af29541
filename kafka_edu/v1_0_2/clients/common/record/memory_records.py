"""Port of clients/src/main/java/org/apache/kafka/common/record/MemoryRecords.java (Kafka 1.0.2): `filterTo`, with
its RecordFilter, BatchRetention and FilterResult, the copy with some records left out that the log cleaner makes.

The MemoryRecords class itself lives in file_records.py beside the batch it reads; its `filter_to` calls this.
"""

from __future__ import annotations

import enum
import logging
import struct
from abc import ABC, abstractmethod
from dataclasses import dataclass

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.clients.common.record.compression_type import CompressionType
from kafka_edu.v1_0_2.clients.common.record.default_record import DefaultRecord
from kafka_edu.v1_0_2.clients.common.record.file_records import (
    ATTRIBUTES_OFFSET,
    CONTROL_FLAG_MASK,
    CRC_OFFSET,
    LOG_OVERHEAD,
    MAGIC_VALUE_V2,
    NO_TIMESTAMP,
    RECORD_BATCH_OVERHEAD,
    TIMESTAMP_TYPE_MASK,
    TRANSACTIONAL_FLAG_MASK,
    DefaultRecordBatch,
    MemoryRecords,
    TimestampType,
    checksum_crc32c,
)
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import MemoryRecordsBuilder

log = logging.getLogger("org.apache.kafka.common.record.MemoryRecords")

# DefaultRecordBatch.writeHeader's layout (see memory_records_builder._HEADER).
_HEADER = struct.Struct(">qiibIhiqqqhii")


class BatchRetention(enum.Enum):
    """RecordFilter.BatchRetention: what becomes of a batch before (and after) its records are looked at."""

    DELETE = "DELETE"  # drop the batch without reading its records
    RETAIN_EMPTY = "RETAIN_EMPTY"  # keep the batch's header even when no record stays
    DELETE_EMPTY = "DELETE_EMPTY"  # drop the batch when no record stays


class RecordFilter(ABC):
    """MemoryRecords.RecordFilter: decides per batch, then per record."""

    @abstractmethod
    def check_batch_retention(self, batch: DefaultRecordBatch) -> BatchRetention: ...

    @abstractmethod
    def should_retain_record(self, record_batch: DefaultRecordBatch, record: DefaultRecord) -> bool: ...


@dataclass
class FilterResult:
    """What filterTo wrote (`output`) and counted; `bytes_read` covers only the batches it processed."""

    output: bytearray
    messages_read: int
    bytes_read: int
    messages_retained: int
    bytes_retained: int
    max_offset: int
    max_timestamp: int
    shallow_offset_of_max_timestamp: int


def filter_to(records: MemoryRecords, partition: object, filter: RecordFilter, destination_buffer_size: int,
              max_record_batch_size: int) -> FilterResult:
    """Copy the batches of `records` that `filter` keeps into a new buffer: a batch whose records all stay is copied
    as it is, one that lost records is rebuilt (same codec, producer fields and last offset), an emptied one goes or
    stays as a bare header.

    Kafka writes into a destination ByteBuffer of `destination_buffer_size` bytes and returns as soon as it had to
    grow it (KAFKA-5316); the output here stops at the same batch.
    """
    max_timestamp = NO_TIMESTAMP
    max_offset = -1
    shallow_offset_of_max_timestamp = -1
    messages_read = 0
    bytes_read = 0
    messages_retained = 0
    bytes_retained = 0
    output = bytearray()

    for batch in records.batches():
        bytes_read += batch.size_in_bytes
        batch_retention = filter.check_batch_retention(batch)
        if batch_retention is BatchRetention.DELETE:
            continue

        write_original_batch = True
        retained_records: list[DefaultRecord] = []
        for record in batch.records():
            messages_read += 1
            if filter.should_retain_record(batch, record):
                if record.offset > max_offset:
                    max_offset = record.offset
                retained_records.append(record)
            else:
                write_original_batch = False

        if retained_records:
            if write_original_batch:
                output += batch.buffer[:batch.size_in_bytes]
                messages_retained += len(retained_records)
                bytes_retained += batch.size_in_bytes
                if batch.max_timestamp > max_timestamp:
                    max_timestamp = batch.max_timestamp
                    shallow_offset_of_max_timestamp = batch.last_offset
            else:
                builder = _build_retained_records_into(batch, retained_records)
                built = builder.build()
                filtered_batch_size = built.size_in_bytes()
                output += built.buffer
                messages_retained += len(retained_records)
                bytes_retained += filtered_batch_size
                if filtered_batch_size > batch.size_in_bytes and filtered_batch_size > max_record_batch_size:
                    log.warning("Record batch from %s with last offset %d exceeded max record batch size %d after "
                                "cleaning (new size is %d). Consumers with version earlier than 0.10.1.0 may need to "
                                "increase their fetch sizes.", partition, batch.last_offset, max_record_batch_size,
                                filtered_batch_size)
                info_max_timestamp, info_shallow_offset = builder.info()
                if info_max_timestamp > max_timestamp:
                    max_timestamp = info_max_timestamp
                    shallow_offset_of_max_timestamp = info_shallow_offset
        elif batch_retention is BatchRetention.RETAIN_EMPTY:
            if batch.magic < MAGIC_VALUE_V2:
                raise IllegalStateException("Empty batches are only supported for magic v2 and above")
            output += write_empty_header(batch.magic, batch.producer_id, batch.producer_epoch, batch.base_sequence,
                                         batch.base_offset, batch.last_offset, batch.partition_leader_epoch,
                                         batch.timestamp_type, batch.max_timestamp, batch.is_transactional,
                                         batch.is_control_batch)

        if len(output) > destination_buffer_size:
            # Kafka had to allocate a bigger buffer for this batch: it returns at once rather than grow it again.
            break

    return FilterResult(output, messages_read, bytes_read, messages_retained, bytes_retained, max_offset,
                        max_timestamp, shallow_offset_of_max_timestamp)


def _build_retained_records_into(original_batch: DefaultRecordBatch,
                                 retained_records: list[DefaultRecord]) -> MemoryRecordsBuilder:
    timestamp_type = original_batch.timestamp_type
    log_append_time = original_batch.max_timestamp if timestamp_type is TimestampType.LOG_APPEND_TIME else NO_TIMESTAMP
    builder = MemoryRecordsBuilder(original_batch.compression_type, timestamp_type, original_batch.base_offset,
                                   log_append_time, original_batch.producer_id, original_batch.producer_epoch,
                                   original_batch.base_sequence, original_batch.is_transactional,
                                   original_batch.partition_leader_epoch, original_batch.is_control_batch)
    for record in retained_records:
        builder.append_with_offset(record.offset, record)
    # The batch keeps its last offset, so that its last sequence survives and the producer sees no gap.
    builder.override_last_offset(original_batch.last_offset)
    return builder


def write_empty_header(magic: int, producer_id: int, producer_epoch: int, base_sequence: int, base_offset: int,
                       last_offset: int, partition_leader_epoch: int, timestamp_type: TimestampType, timestamp: int,
                       is_transactional: bool, is_control_record: bool) -> bytes:
    """DefaultRecordBatch.writeEmptyHeader: a batch of no records, uncompressed, whose offsets and producer fields
    are the ones given."""
    attributes = CompressionType.NONE.id
    if timestamp_type is TimestampType.LOG_APPEND_TIME:
        attributes |= TIMESTAMP_TYPE_MASK
    if is_transactional:
        attributes |= TRANSACTIONAL_FLAG_MASK
    if is_control_record:
        attributes |= CONTROL_FLAG_MASK
    buffer = bytearray(RECORD_BATCH_OVERHEAD)
    _HEADER.pack_into(buffer, 0, base_offset, RECORD_BATCH_OVERHEAD - LOG_OVERHEAD, partition_leader_epoch, magic, 0,
                      attributes, last_offset - base_offset, timestamp, timestamp, producer_id, producer_epoch,
                      base_sequence, 0)
    struct.pack_into(">I", buffer, CRC_OFFSET, checksum_crc32c(memoryview(buffer)[ATTRIBUTES_OFFSET:]))
    return bytes(buffer)
