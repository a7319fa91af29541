"""Port of clients/src/main/java/org/apache/kafka/common/record/RecordsUtil.java (Kafka 3.9): down-conversion of
batches to an older magic for old consumers."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import UnsupportedCompressionTypeException
from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.record.converted_records import ConvertedRecords
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.memory_records_builder import MemoryRecordsBuilder
from kafka_edu.v3_9.clients.common.record.record import Record
from kafka_edu.v3_9.clients.common.record.record_batch import (
    MAGIC_VALUE_V1,
    MAGIC_VALUE_V2,
    NO_TIMESTAMP,
    RecordBatch,
)
from kafka_edu.v3_9.clients.common.record.record_validation_stats import RecordValidationStats
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType


class _RecordBatchAndRecords:
    def __init__(self, batch: RecordBatch, records: list[Record] | None, base_offset: int | None) -> None:
        self.batch = batch
        self.records = records
        self.base_offset = base_offset


def down_convert(batches: Iterable[RecordBatch], to_magic: int, first_offset: int,
                 time: Any) -> ConvertedRecords[MemoryRecords]:
    """Batches already at or below `to_magic` are copied as they are; the others are rebuilt record by record.
    Records below `first_offset` are dropped from uncompressed batches (a v0/v1 consumer would skip them)."""
    record_batch_and_records_list: list[_RecordBatchAndRecords] = []
    start_nanos = time.nanoseconds()
    for batch in batches:
        if to_magic < MAGIC_VALUE_V2:
            if batch.is_control_batch():
                continue
            if batch.compression_type() is CompressionType.ZSTD:
                raise UnsupportedCompressionTypeException("Down-conversion of zstandard-compressed batches is not "
                                                          "supported")
        if batch.magic() <= to_magic:
            record_batch_and_records_list.append(_RecordBatchAndRecords(batch, None, None))
        else:
            records = [record for record in batch
                       if to_magic > MAGIC_VALUE_V1 or batch.is_compressed() or record.offset() >= first_offset]
            if not records:
                continue
            if batch.magic() >= MAGIC_VALUE_V2 and to_magic >= MAGIC_VALUE_V2:
                base_offset = batch.base_offset()
            else:
                base_offset = records[0].offset()
            record_batch_and_records_list.append(_RecordBatchAndRecords(batch, records, base_offset))

    buffer = bytearray()
    temporary_memory_bytes = 0
    num_records_converted = 0
    for record_batch_and_records in record_batch_and_records_list:
        temporary_memory_bytes += record_batch_and_records.batch.size_in_bytes()
        if record_batch_and_records.batch.magic() <= to_magic:
            record_batch_and_records.batch.write_to(buffer)
        else:
            builder = _convert_record_batch(to_magic, buffer, record_batch_and_records)
            temporary_memory_bytes += builder.uncompressed_bytes_written()
            num_records_converted += builder.num_records()
    stats = RecordValidationStats(temporary_memory_bytes, num_records_converted, time.nanoseconds() - start_nanos)
    return ConvertedRecords(MemoryRecords.readable_records(buffer), stats)


def _convert_record_batch(magic: int, buffer: bytearray,
                          record_batch_and_records: _RecordBatchAndRecords) -> MemoryRecordsBuilder:
    batch = record_batch_and_records.batch
    timestamp_type = batch.timestamp_type()
    log_append_time = batch.max_timestamp() if timestamp_type is TimestampType.LOG_APPEND_TIME else NO_TIMESTAMP
    assert record_batch_and_records.base_offset is not None and record_batch_and_records.records is not None
    builder = MemoryRecords.builder(buffer, magic, Compression.of(batch.compression_type()).build(), timestamp_type,
                                    record_batch_and_records.base_offset, log_append_time)
    for record in record_batch_and_records.records:
        # A v0/v1 set keeps each record's offset; it has no headers to carry over.
        if magic > MAGIC_VALUE_V1:
            builder.append(record)
        else:
            builder.append_with_offset(record.offset(), record.timestamp(), record.key(), record.value())
    builder.close()
    return builder
