"""Port of clients/src/test/java/org/apache/kafka/common/record/AbstractLegacyRecordBatchTest.java (Kafka 3.9).

Java's UnsupportedOperationException is Python's NotImplementedError.
"""

from __future__ import annotations

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.invalid_record_exception import InvalidRecordException
from kafka_edu.v3_9.clients.common.record.abstract_legacy_record_batch import ByteBufferLegacyRecordBatch
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record_batch import MAGIC_VALUE_V0, MAGIC_VALUE_V1, NO_TIMESTAMP
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "clients/src/test/java/org/apache/kafka/common/record/AbstractLegacyRecordBatchTest.java",
    cases=["testSetLastOffsetCompressed", "testIterateCompressedRecordWithWrapperOffsetZero",
           "testInvalidWrapperOffsetV1", "testSetNoTimestampTypeNotAllowed", "testSetLogAppendTimeNotAllowedV0",
           "testSetCreateTimeNotAllowedV0", "testSetPartitionLeaderEpochNotAllowedV0",
           "testSetPartitionLeaderEpochNotAllowedV1", "testSetLogAppendTimeV1", "testSetCreateTimeV1",
           "testZStdCompressionTypeWithV0OrV1"],
)

SIMPLE_RECORDS = (SimpleRecord.of(1, b"a", b"1"), SimpleRecord.of(2, b"b", b"2"), SimpleRecord.of(3, b"c", b"3"))


def _records(magic: int, compression: Compression | None = None) -> MemoryRecords:
    return MemoryRecords.with_records(compression or Compression.gzip().build(), *SIMPLE_RECORDS, magic=magic,
                                      initial_offset=0, timestamp_type=TimestampType.CREATE_TIME)


def test_set_last_offset_compressed() -> None:
    records = _records(MAGIC_VALUE_V1)
    last_offset = 500
    first_offset = last_offset - len(SIMPLE_RECORDS) + 1
    batch = ByteBufferLegacyRecordBatch(records.buffer())
    batch.set_last_offset(last_offset)
    assert batch.last_offset() == last_offset
    assert batch.base_offset() == first_offset
    assert batch.is_valid()
    record_batches = list(records.batches())
    assert len(record_batches) == 1
    assert record_batches[0].last_offset() == last_offset
    assert [record.offset() for record in records.records()] == list(range(first_offset, last_offset + 1))


def test_iterate_compressed_record_with_wrapper_offset_zero() -> None:
    for magic in (MAGIC_VALUE_V0, MAGIC_VALUE_V1):
        records = _records(magic)
        batch = ByteBufferLegacyRecordBatch(records.buffer())
        batch.set_last_offset(0)
        assert [record.offset() for record in batch] == [0, 1, 2]


def test_invalid_wrapper_offset_v1() -> None:
    batch = ByteBufferLegacyRecordBatch(_records(MAGIC_VALUE_V1).buffer())
    batch.set_last_offset(1)
    with pytest.raises(InvalidRecordException):
        iter(batch)


def test_set_no_timestamp_type_not_allowed() -> None:
    batch = ByteBufferLegacyRecordBatch(_records(MAGIC_VALUE_V1).buffer())
    with pytest.raises(IllegalArgumentException):
        batch.set_max_timestamp(TimestampType.NO_TIMESTAMP_TYPE, NO_TIMESTAMP)


def test_set_log_append_time_not_allowed_v0() -> None:
    batch = ByteBufferLegacyRecordBatch(_records(MAGIC_VALUE_V0).buffer())
    with pytest.raises(NotImplementedError):
        batch.set_max_timestamp(TimestampType.LOG_APPEND_TIME, 15)


def test_set_create_time_not_allowed_v0() -> None:
    batch = ByteBufferLegacyRecordBatch(_records(MAGIC_VALUE_V0).buffer())
    with pytest.raises(NotImplementedError):
        batch.set_max_timestamp(TimestampType.CREATE_TIME, 15)


def test_set_partition_leader_epoch_not_allowed_v0() -> None:
    batch = ByteBufferLegacyRecordBatch(_records(MAGIC_VALUE_V0).buffer())
    with pytest.raises(NotImplementedError):
        batch.set_partition_leader_epoch(15)


def test_set_partition_leader_epoch_not_allowed_v1() -> None:
    batch = ByteBufferLegacyRecordBatch(_records(MAGIC_VALUE_V1).buffer())
    with pytest.raises(NotImplementedError):
        batch.set_partition_leader_epoch(15)


def test_set_log_append_time_v1() -> None:
    records = _records(MAGIC_VALUE_V1)
    log_append_time = 15
    batch = ByteBufferLegacyRecordBatch(records.buffer())
    batch.set_max_timestamp(TimestampType.LOG_APPEND_TIME, log_append_time)
    assert batch.timestamp_type() is TimestampType.LOG_APPEND_TIME
    assert batch.max_timestamp() == log_append_time
    assert batch.is_valid()
    record_batches = list(records.batches())
    assert len(record_batches) == 1
    assert record_batches[0].timestamp_type() is TimestampType.LOG_APPEND_TIME
    assert record_batches[0].max_timestamp() == log_append_time
    for record in records.records():
        assert record.timestamp() == log_append_time


def test_set_create_time_v1() -> None:
    records = _records(MAGIC_VALUE_V1)
    create_time = 15
    batch = ByteBufferLegacyRecordBatch(records.buffer())
    batch.set_max_timestamp(TimestampType.CREATE_TIME, create_time)
    assert batch.timestamp_type() is TimestampType.CREATE_TIME
    assert batch.max_timestamp() == create_time
    assert batch.is_valid()
    record_batches = list(records.batches())
    assert len(record_batches) == 1
    assert record_batches[0].timestamp_type() is TimestampType.CREATE_TIME
    assert record_batches[0].max_timestamp() == create_time
    assert [record.timestamp() for record in records.records()] == [1, 2, 3]


def test_z_std_compression_type_with_v0_or_v1() -> None:
    for magic in (MAGIC_VALUE_V0, MAGIC_VALUE_V1):
        with pytest.raises(IllegalArgumentException) as e:
            records = _records(magic, Compression.zstd().build())
            batch = ByteBufferLegacyRecordBatch(records.buffer())
            batch.set_last_offset(1)
            iter(batch)
        assert str(e.value) == f"ZStandard compression is not supported for magic {magic}"
