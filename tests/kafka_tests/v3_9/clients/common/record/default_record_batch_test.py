"""Port of clients/src/test/java/org/apache/kafka/common/record/DefaultRecordBatchTest.java (Kafka 3.9).

Differences of form: a Java ByteBuffer is a bytearray (DefaultRecordBatch takes a view of it); Kafka's builder
overloads are `MemoryRecords.builder(...)` keywords; `batch.iterator()` is `iter(batch)`.
"""

from __future__ import annotations

import random
import struct
import time

import pytest

from kafka_edu.v1_0_2.clients.common.errors import (
    CorruptRecordException,
    IllegalArgumentException,
)
from kafka_edu.v3_9.clients.common.compress.compression import NONE, Compression
from kafka_edu.v3_9.clients.common.header.internals.record_header import RecordHeader
from kafka_edu.v3_9.clients.common.invalid_record_exception import InvalidRecordException
from kafka_edu.v3_9.clients.common.record import default_record_batch
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType
from kafka_edu.v3_9.clients.common.record.default_record import PartialDefaultRecord
from kafka_edu.v3_9.clients.common.record.default_record_batch import (
    LAST_OFFSET_DELTA_OFFSET,
    LENGTH_OFFSET,
    RECORDS_COUNT_OFFSET,
    DefaultRecordBatch,
    RecordIterator,
    StreamRecordIterator,
)
from kafka_edu.v3_9.clients.common.record.end_transaction_marker import EndTransactionMarker, deserialize
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.memory_records_builder import MemoryRecordsBuilder
from kafka_edu.v3_9.clients.common.record.record_batch import (
    CURRENT_MAGIC_VALUE,
    MAGIC_VALUE_V2,
    NO_PARTITION_LEADER_EPOCH,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    NO_SEQUENCE,
    NO_TIMESTAMP,
)
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "clients/src/test/java/org/apache/kafka/common/record/DefaultRecordBatchTest.java",
    cases=["testWriteEmptyHeader", "buildDefaultRecordBatch", "buildDefaultRecordBatchWithProducerId",
           "buildDefaultRecordBatchWithSequenceWrapAround", "testSizeInBytes", "testInvalidRecordSize",
           "testInvalidRecordCountTooManyNonCompressedV2", "testInvalidRecordCountTooLittleNonCompressedV2",
           "testInvalidRecordCountTooManyCompressedV2", "testInvalidRecordCountTooLittleCompressedV2",
           "testInvalidCrc", "testSetLastOffset", "testSetPartitionLeaderEpoch", "testSetLogAppendTime",
           "testSetNoTimestampTypeNotAllowed", "testReadAndWriteControlBatch", "testStreamingIteratorConsistency",
           "testSkipKeyValueIteratorCorrectness", "testBufferReuseInSkipKeyValueIterator",
           "testZstdJniForSkipKeyValueIterator", "testIncrementSequence", "testDecrementSequence"],
    not_applicable={
        "testBufferReuseInSkipKeyValueIterator": "Java buffer pooling: the port decompresses a batch's records in one "
                                                 "codec call and has no BufferSupplier to count allocations on",
        "testZstdJniForSkipKeyValueIterator": "zstd-jni stream internals (JNI read/skip calls, Mockito spies): the "
                                              "port calls cramjam's zstd once per batch",
    },
)

RANDOM = random.Random(20231025)
INT_MAX = 2**31 - 1


def _now() -> int:
    return time.time_ns() // 1_000_000


def _three_records(compression: Compression = NONE) -> MemoryRecords:
    return MemoryRecords.with_records(compression, SimpleRecord.of(1, b"a", b"1"), SimpleRecord.of(2, b"b", b"2"),
                                      SimpleRecord.of(3, b"c", b"3"), magic=MAGIC_VALUE_V2, initial_offset=0,
                                      timestamp_type=TimestampType.CREATE_TIME)


def test_write_empty_header() -> None:
    producer_id = 23423
    producer_epoch = 145
    base_sequence = 983
    base_offset = 15
    last_offset = 37
    partition_leader_epoch = 15
    timestamp = _now()
    for timestamp_type in (TimestampType.CREATE_TIME, TimestampType.LOG_APPEND_TIME):
        for is_transactional in (True, False):
            for is_control_batch in (True, False):
                buffer = bytearray(default_record_batch.RECORD_BATCH_OVERHEAD)
                default_record_batch.write_empty_header(buffer, 0, CURRENT_MAGIC_VALUE, producer_id, producer_epoch,
                                                        base_sequence, base_offset, last_offset,
                                                        partition_leader_epoch, timestamp_type, timestamp,
                                                        is_transactional, is_control_batch)
                batch = DefaultRecordBatch(buffer)
                assert batch.producer_id() == producer_id
                assert batch.producer_epoch() == producer_epoch
                assert batch.base_sequence() == base_sequence
                assert batch.last_sequence() == base_sequence + (last_offset - base_offset)
                assert batch.base_offset() == base_offset
                assert batch.last_offset() == last_offset
                assert batch.partition_leader_epoch() == partition_leader_epoch
                assert batch.is_transactional() == is_transactional
                assert batch.timestamp_type() is timestamp_type
                assert batch.max_timestamp() == timestamp
                assert batch.base_timestamp() == NO_TIMESTAMP
                assert batch.is_control_batch() == is_control_batch


def test_build_default_record_batch() -> None:
    builder = MemoryRecords.builder(2048, MAGIC_VALUE_V2, NONE, TimestampType.CREATE_TIME, 1234567)
    builder.append_with_offset(1234567, 1, b"a", b"v")
    builder.append_with_offset(1234568, 2, b"b", b"v")
    records = builder.build()
    for batch in records.batches():
        assert batch.is_valid()
        assert batch.base_offset() == 1234567
        assert batch.last_offset() == 1234568
        assert batch.max_timestamp() == 2
        assert batch.producer_id() == NO_PRODUCER_ID
        assert batch.producer_epoch() == NO_PRODUCER_EPOCH
        assert batch.base_sequence() == NO_SEQUENCE
        assert batch.last_sequence() == NO_SEQUENCE
        for record in batch:
            record.ensure_valid()


def test_build_default_record_batch_with_producer_id() -> None:
    pid, epoch, base_sequence = 23423, 145, 983
    builder = MemoryRecords.builder(2048, MAGIC_VALUE_V2, NONE, TimestampType.CREATE_TIME, 1234567, NO_TIMESTAMP,
                                    pid, epoch, base_sequence)
    builder.append_with_offset(1234567, 1, b"a", b"v")
    builder.append_with_offset(1234568, 2, b"b", b"v")
    records = builder.build()
    for batch in records.batches():
        assert batch.is_valid()
        assert batch.base_offset() == 1234567
        assert batch.last_offset() == 1234568
        assert batch.max_timestamp() == 2
        assert batch.producer_id() == pid
        assert batch.producer_epoch() == epoch
        assert batch.base_sequence() == base_sequence
        assert batch.last_sequence() == base_sequence + 1
        for record in batch:
            record.ensure_valid()


def test_build_default_record_batch_with_sequence_wrap_around() -> None:
    pid, epoch, base_sequence = 23423, 145, INT_MAX - 1
    builder = MemoryRecords.builder(2048, MAGIC_VALUE_V2, NONE, TimestampType.CREATE_TIME, 1234567, NO_TIMESTAMP,
                                    pid, epoch, base_sequence)
    builder.append_with_offset(1234567, 1, b"a", b"v")
    builder.append_with_offset(1234568, 2, b"b", b"v")
    builder.append_with_offset(1234569, 3, b"c", b"v")
    records = builder.build()
    batches = list(records.batches())
    assert len(batches) == 1
    batch = batches[0]
    assert batch.producer_id() == pid
    assert batch.producer_epoch() == epoch
    assert batch.base_sequence() == base_sequence
    assert batch.last_sequence() == 0
    all_records = list(batch)
    assert len(all_records) == 3
    assert all_records[0].sequence() == INT_MAX - 1
    assert all_records[1].sequence() == INT_MAX
    assert all_records[2].sequence() == 0


def test_size_in_bytes() -> None:
    headers = (RecordHeader("foo", b"value"), RecordHeader("bar", None))
    timestamp = _now()
    records = [SimpleRecord.of(timestamp, b"key", b"value"), SimpleRecord.of(timestamp + 30000, None, b"value"),
               SimpleRecord.of(timestamp + 60000, b"key", None),
               SimpleRecord.of(timestamp + 60000, b"key", b"value", headers)]
    actual_size = MemoryRecords.with_records(NONE, *records).size_in_bytes()
    assert default_record_batch.size_in_bytes_of_simple_records(records) == actual_size


def test_invalid_record_size() -> None:
    records = _three_records()
    buffer = records.buffer()
    struct.pack_into(">i", buffer, LENGTH_OFFSET, 10)
    batch = DefaultRecordBatch(buffer)
    assert not batch.is_valid()
    with pytest.raises(CorruptRecordException):
        batch.ensure_valid()


def _records_with_invalid_record_count(magic_value: int, timestamp: int, codec: CompressionType,
                                       invalid_count: int) -> DefaultRecordBatch:
    builder = MemoryRecords.builder(512, magic_value, Compression.of(codec).build(), TimestampType.CREATE_TIME, 0)
    builder.append_with_offset(0, timestamp, None, b"hello")
    builder.append_with_offset(1, timestamp, None, b"there")
    builder.append_with_offset(2, timestamp, None, b"beautiful")
    records = builder.build()
    buffer = records.buffer()
    struct.pack_into(">i", buffer, RECORDS_COUNT_OFFSET, invalid_count)
    return DefaultRecordBatch(buffer)


def test_invalid_record_count_too_many_non_compressed_v2() -> None:
    batch = _records_with_invalid_record_count(MAGIC_VALUE_V2, _now(), CompressionType.NONE, 5)
    with pytest.raises(InvalidRecordException):
        for record in batch:
            record.ensure_valid()


def test_invalid_record_count_too_little_non_compressed_v2() -> None:
    batch = _records_with_invalid_record_count(MAGIC_VALUE_V2, _now(), CompressionType.NONE, 2)
    with pytest.raises(InvalidRecordException):
        for record in batch:
            record.ensure_valid()


def test_invalid_record_count_too_many_compressed_v2() -> None:
    batch = _records_with_invalid_record_count(MAGIC_VALUE_V2, _now(), CompressionType.GZIP, 5)
    with pytest.raises(InvalidRecordException):
        for record in batch:
            record.ensure_valid()


def test_invalid_record_count_too_little_compressed_v2() -> None:
    batch = _records_with_invalid_record_count(MAGIC_VALUE_V2, _now(), CompressionType.GZIP, 2)
    with pytest.raises(InvalidRecordException):
        for record in batch:
            record.ensure_valid()


def test_invalid_crc() -> None:
    records = _three_records()
    buffer = records.buffer()
    struct.pack_into(">i", buffer, LAST_OFFSET_DELTA_OFFSET, 23)
    batch = DefaultRecordBatch(buffer)
    assert not batch.is_valid()
    with pytest.raises(CorruptRecordException):
        batch.ensure_valid()


def test_set_last_offset() -> None:
    records = _three_records()
    last_offset = 500
    first_offset = last_offset - 3 + 1
    batch = DefaultRecordBatch(records.buffer())
    batch.set_last_offset(last_offset)
    assert batch.last_offset() == last_offset
    assert batch.base_offset() == first_offset
    assert batch.is_valid()
    record_batches = list(records.batches())
    assert len(record_batches) == 1
    assert record_batches[0].last_offset() == last_offset
    assert [record.offset() for record in records.records()] == [first_offset, first_offset + 1, first_offset + 2]


def test_set_partition_leader_epoch() -> None:
    records = _three_records()
    leader_epoch = 500
    batch = DefaultRecordBatch(records.buffer())
    batch.set_partition_leader_epoch(leader_epoch)
    assert batch.partition_leader_epoch() == leader_epoch
    assert batch.is_valid()
    record_batches = list(records.batches())
    assert len(record_batches) == 1
    assert record_batches[0].partition_leader_epoch() == leader_epoch


def test_set_log_append_time() -> None:
    records = _three_records()
    log_append_time = 15
    batch = DefaultRecordBatch(records.buffer())
    batch.set_max_timestamp(TimestampType.LOG_APPEND_TIME, log_append_time)
    assert batch.timestamp_type() is TimestampType.LOG_APPEND_TIME
    assert batch.max_timestamp() == log_append_time
    assert batch.is_valid()
    record_batches = list(records.batches())
    assert len(record_batches) == 1
    assert record_batches[0].max_timestamp() == log_append_time
    assert record_batches[0].timestamp_type() is TimestampType.LOG_APPEND_TIME
    for record in records.records():
        assert record.timestamp() == log_append_time


def test_set_no_timestamp_type_not_allowed() -> None:
    batch = DefaultRecordBatch(_three_records().buffer())
    with pytest.raises(IllegalArgumentException):
        batch.set_max_timestamp(TimestampType.NO_TIMESTAMP_TYPE, NO_TIMESTAMP)


def test_read_and_write_control_batch() -> None:
    producer_id, producer_epoch, coordinator_epoch = 1, 0, 15
    builder = MemoryRecordsBuilder(128, CURRENT_MAGIC_VALUE, NONE, TimestampType.CREATE_TIME, 0, NO_TIMESTAMP,
                                   producer_id, producer_epoch, NO_SEQUENCE, True, True, NO_PARTITION_LEADER_EPOCH,
                                   128)
    marker = EndTransactionMarker(ControlRecordType.COMMIT, coordinator_epoch)
    builder.append_end_txn_marker(_now(), marker)
    records = builder.build()
    batches = list(records.batches())
    assert len(batches) == 1
    assert batches[0].is_control_batch()
    log_records = list(records.records())
    assert len(log_records) == 1
    assert deserialize(log_records[0]) == marker


@pytest.mark.parametrize("compression_type", list(CompressionType))
def test_streaming_iterator_consistency(compression_type: CompressionType) -> None:
    records = _three_records(Compression.of(compression_type).build())
    batch = DefaultRecordBatch(records.buffer())
    with batch.streaming_iterator() as streaming_iterator:
        assert list(streaming_iterator) == list(iter(batch))


@pytest.mark.parametrize("compression_type", list(CompressionType))
def test_skip_key_value_iterator_correctness(compression_type: CompressionType) -> None:
    compression = Compression.of(compression_type).build()
    headers = (RecordHeader("k1", b"v1"), RecordHeader("k2", None))
    large_record_value = RANDOM.randbytes(200 * 1024)
    records = MemoryRecords.with_records(
        compression, SimpleRecord.of(1, b"a", b"1"), SimpleRecord.of(2, b"b", None), SimpleRecord.of(3, None, b"3"),
        SimpleRecord.of(4, None, None), SimpleRecord.of(1000, b"abc", large_record_value),
        SimpleRecord.of(9999, b"abc", b"0", headers), magic=MAGIC_VALUE_V2, initial_offset=0,
        timestamp_type=TimestampType.CREATE_TIME)
    batch = DefaultRecordBatch(records.buffer())
    with batch.skip_key_value_iterator() as skip_key_value_iterator:
        if compression_type is CompressionType.NONE:
            # Uncompressed records are read in place, not through a stream.
            assert isinstance(skip_key_value_iterator, RecordIterator)
            assert len(list(skip_key_value_iterator)) == len(list(records.records()))
        else:
            assert isinstance(skip_key_value_iterator, StreamRecordIterator)
            assert list(skip_key_value_iterator) == [
                PartialDefaultRecord(9, 0, 0, 1, -1, 1, 1),
                PartialDefaultRecord(8, 0, 1, 2, -1, 1, -1),
                PartialDefaultRecord(8, 0, 2, 3, -1, -1, 1),
                PartialDefaultRecord(7, 0, 3, 4, -1, -1, -1),
                PartialDefaultRecord(15 + len(large_record_value), 0, 4, 1000, -1, 3, len(large_record_value)),
                PartialDefaultRecord(23, 0, 5, 9999, -1, 3, 1),
            ]


def test_increment_sequence() -> None:
    assert default_record_batch.increment_sequence(5, 5) == 10
    assert default_record_batch.increment_sequence(INT_MAX, 1) == 0
    assert default_record_batch.increment_sequence(INT_MAX - 5, 10) == 4


def test_decrement_sequence() -> None:
    assert default_record_batch.decrement_sequence(5, 5) == 0
    assert default_record_batch.decrement_sequence(0, 1) == INT_MAX
