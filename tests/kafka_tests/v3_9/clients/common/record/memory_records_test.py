"""Port of clients/src/test/java/org/apache/kafka/common/record/MemoryRecordsTest.java (Kafka 3.9).

Differences of form: a Java ByteBuffer written by builders and flipped is a bytearray the builders append to; a
destination buffer for filterTo is an empty bytearray (it grows, so Kafka's undersized-buffer case never has to
hand back a new buffer); a buffer's shrinking limit (testNextBatchSize) is a shorter view of the same bytes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import pytest
from kio.schema.leader_change_message.v0.data import LeaderChangeMessage, Voter
from kio.static.primitive import i16, i32

from kafka_edu.v1_0_2.clients.common.errors import CorruptRecordException, IllegalArgumentException
from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.header.internals.record_header import RecordHeader
from kafka_edu.v3_9.clients.common.record import default_record_batch
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType, ControlRecordUtils
from kafka_edu.v3_9.clients.common.record.end_transaction_marker import (
    CURRENT_END_TXN_SCHEMA_RECORD_SIZE,
    EndTransactionMarker,
    deserialize,
)
from kafka_edu.v3_9.clients.common.record.memory_records import (
    BatchRetention,
    BatchRetentionResult,
    MemoryRecords,
    RecordFilter,
)
from kafka_edu.v3_9.clients.common.record.memory_records_builder import MemoryRecordsBuilder
from kafka_edu.v3_9.clients.common.record.record import EMPTY_HEADERS, Record
from kafka_edu.v3_9.clients.common.record.record_batch import (
    MAGIC_VALUE_V0,
    MAGIC_VALUE_V1,
    MAGIC_VALUE_V2,
    NO_PARTITION_LEADER_EPOCH,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    NO_SEQUENCE,
    NO_TIMESTAMP,
    RecordBatch,
)
from kafka_edu.v3_9.clients.common.record.records import (
    HEADER_SIZE_UP_TO_MAGIC,
    LOG_OVERHEAD,
    MAGIC_OFFSET,
    SIZE_OFFSET,
)
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "clients/src/test/java/org/apache/kafka/common/record/MemoryRecordsTest.java",
    cases=["testIterator", "testHasRoomForMethod", "testHasRoomForMethodWithHeaders", "testChecksum",
           "testFilterToPreservesPartitionLeaderEpoch", "testFilterToEmptyBatchRetention", "testEmptyBatchRetention",
           "testEmptyBatchDeletion", "testBuildEndTxnMarker", "testBaseTimestampToDeleteHorizonConversion",
           "testBuildLeaderChangeMessage", "testFilterToBatchDiscard", "testFilterToAlreadyCompactedLog",
           "testFilterToPreservesProducerInfo", "testFilterToWithUndersizedBuffer", "testFilterTo",
           "testFilterToPreservesLogAppendTime", "testNextBatchSize", "testWithRecords", "testUnsupportedCompress"],
)

TP = ("foo", 0)  # TopicPartition: filterTo only names it in a log line


def _now() -> int:
    return time.time_ns() // 1_000_000


LOG_APPEND_TIME = _now()


@dataclass(frozen=True)
class Args:
    magic: int
    first_offset: int
    compression: Compression

    @property
    def pid(self) -> int:
        return 134234 if self.magic >= MAGIC_VALUE_V2 else NO_PRODUCER_ID

    @property
    def epoch(self) -> int:
        return 28 if self.magic >= MAGIC_VALUE_V2 else NO_PRODUCER_EPOCH

    @property
    def first_sequence(self) -> int:
        return 777 if self.magic >= MAGIC_VALUE_V2 else NO_SEQUENCE

    def __repr__(self) -> str:
        return f"magic={self.magic}, firstOffset={self.first_offset}, compression={self.compression.type()}"


def _memory_records_arguments() -> list[Args]:
    arguments = []
    for first_offset in (0, 57):
        for type in CompressionType:
            magics = [MAGIC_VALUE_V2] if type is CompressionType.ZSTD else [MAGIC_VALUE_V0, MAGIC_VALUE_V1,
                                                                            MAGIC_VALUE_V2]
            for magic in magics:
                arguments.append(Args(magic, first_offset, Compression.of(type).build()))
    return arguments


ARGS = pytest.mark.parametrize("args", _memory_records_arguments(), ids=repr)
V2_ARGS = pytest.mark.parametrize("args", [Args(MAGIC_VALUE_V2, first_offset, Compression.of(type).build())
                                           for first_offset in (0, 57) for type in CompressionType], ids=repr)


class RetainNonNullKeysFilter(RecordFilter):
    def __init__(self) -> None:
        super().__init__(0, 0)

    def check_batch_retention(self, batch: RecordBatch) -> BatchRetentionResult:
        return BatchRetentionResult(BatchRetention.DELETE_EMPTY, False)

    def should_retain_record(self, record_batch: RecordBatch, record: Record) -> bool:
        return record.has_key()


class _Filter(RecordFilter):
    """Kafka's anonymous RecordFilter subclasses: a fixed batch retention and a record predicate."""

    def __init__(self, retention: BatchRetention, retain_record: bool, current_time: int = 0,
                 delete_retention_ms: int = 0, drop_last_offsets: tuple[int, ...] = ()) -> None:
        super().__init__(current_time, delete_retention_ms)
        self.retention = retention
        self.retain_record = retain_record
        self.drop_last_offsets = drop_last_offsets

    def check_batch_retention(self, batch: RecordBatch) -> BatchRetentionResult:
        if batch.last_offset() in self.drop_last_offsets:
            return BatchRetentionResult(BatchRetention.DELETE, False)
        return BatchRetentionResult(self.retention, False)

    def should_retain_record(self, record_batch: RecordBatch, record: Record) -> bool:
        return self.retain_record


@ARGS
def test_iterator(args: Args) -> None:
    compression = args.compression
    magic = args.magic
    partition_leader_epoch = 998
    builder = MemoryRecordsBuilder(1024, magic, compression, TimestampType.CREATE_TIME, args.first_offset,
                                   LOG_APPEND_TIME, args.pid, args.epoch, args.first_sequence, False, False,
                                   partition_leader_epoch, 1024)
    records = [SimpleRecord.of(1, b"a", b"1"), SimpleRecord.of(2, b"b", b"2"), SimpleRecord.of(3, b"c", b"3"),
               SimpleRecord.of(4, None, b"4"), SimpleRecord.of(5, b"d", None), SimpleRecord.of(6, None, None)]
    for record in records:
        builder.append(record)
    memory_records = builder.build()
    for _ in range(2):
        total = 0
        for batch in memory_records.batches():
            assert batch.is_valid()
            assert batch.compression_type() is compression.type()
            assert batch.base_offset() == args.first_offset + total
            if magic >= MAGIC_VALUE_V2:
                assert batch.producer_id() == args.pid
                assert batch.producer_epoch() == args.epoch
                assert batch.base_sequence() == args.first_sequence + total
                assert batch.partition_leader_epoch() == partition_leader_epoch
                assert batch.count_or_null() == len(records)
                assert batch.timestamp_type() is TimestampType.CREATE_TIME
                assert batch.max_timestamp() == records[-1].timestamp()
            else:
                assert batch.producer_id() == NO_PRODUCER_ID
                assert batch.producer_epoch() == NO_PRODUCER_EPOCH
                assert batch.base_sequence() == NO_SEQUENCE
                assert batch.partition_leader_epoch() == NO_PARTITION_LEADER_EPOCH
                assert batch.count_or_null() is None
                if magic == MAGIC_VALUE_V0:
                    assert batch.timestamp_type() is TimestampType.NO_TIMESTAMP_TYPE
                else:
                    assert batch.timestamp_type() is TimestampType.CREATE_TIME
            record_count = 0
            for record in batch:
                record.ensure_valid()
                assert record.has_magic(batch.magic())
                assert not record.is_compressed()
                assert record.offset() == args.first_offset + total
                assert record.key() == records[total].key()
                assert record.value() == records[total].value()
                if magic >= MAGIC_VALUE_V2:
                    assert record.sequence() == args.first_sequence + total
                assert not record.has_timestamp_type(TimestampType.LOG_APPEND_TIME)
                if magic == MAGIC_VALUE_V0:
                    assert record.timestamp() == NO_TIMESTAMP
                    assert not record.has_timestamp_type(TimestampType.CREATE_TIME)
                    assert record.has_timestamp_type(TimestampType.NO_TIMESTAMP_TYPE)
                else:
                    assert record.timestamp() == records[total].timestamp()
                    assert not record.has_timestamp_type(TimestampType.NO_TIMESTAMP_TYPE)
                    if magic < MAGIC_VALUE_V2:
                        assert record.has_timestamp_type(TimestampType.CREATE_TIME)
                    else:
                        assert not record.has_timestamp_type(TimestampType.CREATE_TIME)
                total += 1
                record_count += 1
            assert batch.last_offset() == batch.base_offset() + record_count - 1


@ARGS
def test_has_room_for_method(args: Args) -> None:
    builder = MemoryRecords.builder(1024, args.magic, args.compression, TimestampType.CREATE_TIME, 0)
    builder.append(0, b"a", b"1")
    assert builder.has_room_for(1, b"b", b"2", EMPTY_HEADERS)
    builder.close()
    assert not builder.has_room_for(1, b"b", b"2", EMPTY_HEADERS)


@ARGS
def test_has_room_for_method_with_headers(args: Args) -> None:
    magic = args.magic
    builder = MemoryRecords.builder(120, magic, args.compression, TimestampType.CREATE_TIME, 0)
    builder.append(LOG_APPEND_TIME, b"key", b"value")
    headers = [RecordHeader("hello", b"world.world") for _ in range(10)]
    # hasRoomFor counts header sizes: the record without headers fits, the one with ten does not.
    assert builder.has_room_for(LOG_APPEND_TIME, b"key", b"value", EMPTY_HEADERS)
    if magic < MAGIC_VALUE_V2:
        assert builder.has_room_for(LOG_APPEND_TIME, b"key", b"value", headers)
    else:
        assert not builder.has_room_for(LOG_APPEND_TIME, b"key", b"value", headers)


@ARGS
def test_checksum(args: Args) -> None:
    compression = args.compression
    magic = args.magic
    # Uncompressed and one codec are coverage enough.
    if compression.type() not in (CompressionType.NONE, CompressionType.LZ4):
        return
    records = [SimpleRecord.of(283843, b"key1", b"value1"), SimpleRecord.of(1234, b"key2", b"value2")]
    batch = next(iter(MemoryRecords.with_records(compression, *records, magic=magic).batches()))
    if magic == MAGIC_VALUE_V0:
        expected_checksum = 1978725405 if compression.type() is CompressionType.NONE else 66944826
    elif magic == MAGIC_VALUE_V1:
        expected_checksum = 109425508 if compression.type() is CompressionType.NONE else 1407303399
    else:
        expected_checksum = 3851219455 if compression.type() is CompressionType.NONE else 2745969314
    assert batch.checksum() == expected_checksum, \
        f"Unexpected checksum for magic {magic} and compression type {compression.type()}"


@ARGS
def test_filter_to_preserves_partition_leader_epoch(args: Args) -> None:
    magic = args.magic
    partition_leader_epoch = 67
    builder = MemoryRecords.builder(2048, magic, args.compression, TimestampType.CREATE_TIME, 0, NO_TIMESTAMP,
                                    partition_leader_epoch=partition_leader_epoch)
    builder.append(10, None, b"a")
    builder.append(11, b"1", b"b")
    builder.append(12, None, b"c")
    filtered = bytearray()
    builder.build().filter_to(TP, RetainNonNullKeysFilter(), filtered, 2**31 - 1)
    batches = list(MemoryRecords.readable_records(filtered).batches())
    assert len(batches) == 1
    first_batch = batches[0]
    if magic < MAGIC_VALUE_V2:
        assert first_batch.partition_leader_epoch() == NO_PARTITION_LEADER_EPOCH
    else:
        assert first_batch.partition_leader_epoch() == partition_leader_epoch


@ARGS
def test_filter_to_empty_batch_retention(args: Args) -> None:
    magic = args.magic
    producer_id = 23
    producer_epoch = 5
    base_offset = 3
    base_sequence = 10
    partition_leader_epoch = 293
    num_records = 2
    for is_transactional in (True, False):
        buffer = bytearray()

        def supplier(buffer: bytearray = buffer, is_transactional: bool = is_transactional) -> MemoryRecordsBuilder:
            return MemoryRecords.builder(buffer, magic, args.compression, TimestampType.CREATE_TIME, base_offset,
                                         NO_TIMESTAMP, producer_id, producer_epoch, base_sequence, is_transactional,
                                         partition_leader_epoch=partition_leader_epoch)

        if is_transactional and magic < MAGIC_VALUE_V2:
            with pytest.raises(IllegalArgumentException):
                supplier()
            continue
        builder = supplier()
        builder.append(11, b"2", b"b")
        builder.append(12, b"3", b"c")
        if magic < MAGIC_VALUE_V2:
            with pytest.raises(IllegalArgumentException):
                builder.close()
            continue
        builder.close()
        records = builder.build()
        filtered = bytearray()
        filter_result = records.filter_to(TP, _Filter(BatchRetention.RETAIN_EMPTY, False), filtered, 2**31 - 1)
        assert filter_result.messages_read() == num_records
        assert filter_result.bytes_read() == records.size_in_bytes()
        assert filter_result.max_offset() == base_offset + 1
        assert filter_result.messages_retained() == 0
        assert filter_result.bytes_retained() == default_record_batch.RECORD_BATCH_OVERHEAD
        assert filter_result.max_timestamp() == 12
        assert filter_result.shallow_offset_of_max_timestamp() == base_offset + 1
        batches = list(MemoryRecords.readable_records(filtered).batches())
        assert len(batches) == 1
        batch = batches[0]
        assert batch.count_or_null() == 0
        assert batch.max_timestamp() == 12
        assert batch.timestamp_type() is TimestampType.CREATE_TIME
        assert batch.base_offset() == base_offset
        assert batch.last_offset() == base_offset + 1
        assert batch.base_sequence() == base_sequence
        assert batch.last_sequence() == base_sequence + 1
        assert batch.is_transactional() == is_transactional


def _empty_batch(base_offset: int, timestamp: int) -> MemoryRecords:
    buffer = bytearray(default_record_batch.RECORD_BATCH_OVERHEAD)
    default_record_batch.write_empty_header(buffer, 0, MAGIC_VALUE_V2, 23, 5, 10, base_offset, base_offset, 293,
                                            TimestampType.CREATE_TIME, timestamp, False, False)
    return MemoryRecords.readable_records(buffer)


def test_empty_batch_retention() -> None:
    base_offset = 3
    timestamp = _now()
    records = _empty_batch(base_offset, timestamp)
    filtered = bytearray()
    filter_result = records.filter_to(TP, _Filter(BatchRetention.RETAIN_EMPTY, False), filtered, 2**31 - 1)
    assert filter_result.messages_read() == 0
    assert filter_result.bytes_read() == records.size_in_bytes()
    assert filter_result.max_offset() == base_offset
    assert filter_result.messages_retained() == 0
    assert filter_result.bytes_retained() == default_record_batch.RECORD_BATCH_OVERHEAD
    assert filter_result.max_timestamp() == timestamp
    assert filter_result.shallow_offset_of_max_timestamp() == base_offset
    assert len(filter_result.output_buffer()) > 0
    assert MemoryRecords.readable_records(filtered).size_in_bytes() == default_record_batch.RECORD_BATCH_OVERHEAD


def test_empty_batch_deletion() -> None:
    for delete_retention in (BatchRetention.DELETE, BatchRetention.DELETE_EMPTY):
        records = _empty_batch(3, _now())
        filtered = bytearray()
        filter_result = records.filter_to(TP, _Filter(delete_retention, False), filtered, 2**31 - 1)
        assert len(filter_result.output_buffer()) == 0
        assert MemoryRecords.readable_records(filtered).size_in_bytes() == 0


def test_build_end_txn_marker() -> None:
    producer_id = 73
    producer_epoch = 13
    initial_offset = 983
    coordinator_epoch = 347
    partition_leader_epoch = 29
    marker = EndTransactionMarker(ControlRecordType.COMMIT, coordinator_epoch)
    records = MemoryRecords.with_end_transaction_marker(producer_id, producer_epoch, marker,
                                                        initial_offset=initial_offset, timestamp=_now(),
                                                        partition_leader_epoch=partition_leader_epoch)
    # The buffer was sized exactly: the schema record size constant matches what was written.
    assert records.size_in_bytes() == default_record_batch.RECORD_BATCH_OVERHEAD + CURRENT_END_TXN_SCHEMA_RECORD_SIZE
    batches = list(records.batches())
    assert len(batches) == 1
    batch = batches[0]
    assert batch.is_control_batch()
    assert batch.producer_id() == producer_id
    assert batch.producer_epoch() == producer_epoch
    assert batch.base_offset() == initial_offset
    assert batch.partition_leader_epoch() == partition_leader_epoch
    assert batch.is_valid()
    created_records = list(batch)
    assert len(created_records) == 1
    record = created_records[0]
    record.ensure_valid()
    deserialized_marker = deserialize(record)
    assert deserialized_marker.control_type is ControlRecordType.COMMIT
    assert deserialized_marker.coordinator_epoch == coordinator_epoch


@V2_ARGS
def test_base_timestamp_to_delete_horizon_conversion(args: Args) -> None:
    builder = MemoryRecords.builder(2048, args.magic, args.compression, TimestampType.CREATE_TIME, 0, NO_TIMESTAMP,
                                    partition_leader_epoch=998)
    builder.append(5, b"0", b"0")
    builder.append(10, b"1", None)
    builder.append(15, b"2", b"2")
    filtered = bytearray()
    delete_horizon = (2**31 - 1) // 2
    record_filter = _Filter(BatchRetention.RETAIN_EMPTY, True, delete_horizon - 1, 1)
    builder.build().filter_to(("random", 0), record_filter, filtered, 2**31 - 1)
    batches = list(MemoryRecords.readable_records(filtered).batches())
    assert len(batches) == 1
    assert batches[0].delete_horizon_ms() == delete_horizon
    with batches[0].streaming_iterator() as record_iterator:
        assert next(record_iterator).timestamp() == 5
        assert next(record_iterator).timestamp() == 10
        assert next(record_iterator).timestamp() == 15


def test_build_leader_change_message() -> None:
    leader_id = 5
    leader_epoch = 20
    voter_id = 6
    initial_offset = 983
    leader_change_message = LeaderChangeMessage(version=i16(0), leader_id=i32(leader_id),
                                                voters=(Voter(voter_id=i32(voter_id)),), granting_voters=())
    records = MemoryRecords.with_leader_change_message(initial_offset, _now(), leader_epoch, 256,
                                                       leader_change_message)
    batches = list(records.batches())
    assert len(batches) == 1
    batch = batches[0]
    assert batch.is_control_batch()
    assert batch.base_offset() == initial_offset
    assert batch.partition_leader_epoch() == leader_epoch
    assert batch.is_valid()
    created_records = list(batch)
    assert len(created_records) == 1
    record = created_records[0]
    record.ensure_valid()
    assert ControlRecordType.parse(record.key()) is ControlRecordType.LEADER_CHANGE
    deserialized_message = ControlRecordUtils.deserialize_leader_change_message(record)
    assert deserialized_message.leader_id == leader_id
    assert len(deserialized_message.voters) == 1
    assert deserialized_message.voters[0].voter_id == voter_id


@ARGS
def test_filter_to_batch_discard(args: Args) -> None:
    compression = args.compression
    magic = args.magic
    buffer = bytearray()
    builder = MemoryRecords.builder(buffer, magic, compression, TimestampType.CREATE_TIME, 0)
    builder.append(10, b"1", b"a")
    builder.close()
    builder = MemoryRecords.builder(buffer, magic, compression, TimestampType.CREATE_TIME, 1)
    builder.append(11, b"2", b"b")
    builder.append(12, b"3", b"c")
    builder.close()
    builder = MemoryRecords.builder(buffer, magic, compression, TimestampType.CREATE_TIME, 3)
    builder.append(13, b"4", b"d")
    builder.append(20, b"5", b"e")
    builder.append(15, b"6", b"f")
    builder.close()
    builder = MemoryRecords.builder(buffer, magic, compression, TimestampType.CREATE_TIME, 6)
    builder.append(16, b"7", b"g")
    builder.close()
    filtered = bytearray()
    # Drop the second and fourth batches.
    MemoryRecords.readable_records(buffer).filter_to(
        TP, _Filter(BatchRetention.DELETE_EMPTY, True, drop_last_offsets=(2, 6)), filtered, 2**31 - 1)
    batches = list(MemoryRecords.readable_records(filtered).batches())
    if compression.type() is not CompressionType.NONE or magic >= MAGIC_VALUE_V2:
        assert len(batches) == 2
        assert batches[0].last_offset() == 0
        assert batches[1].last_offset() == 5
    else:
        assert len(batches) == 5
        assert batches[0].last_offset() == 0
        assert batches[1].last_offset() == 1


@ARGS
def test_filter_to_already_compacted_log(args: Args) -> None:
    magic = args.magic
    buffer = bytearray()
    # Offset gaps, as a compacted batch has.
    builder = MemoryRecords.builder(buffer, magic, args.compression, TimestampType.CREATE_TIME, 0)
    builder.append_with_offset(5, 10, None, b"a")
    builder.append_with_offset(8, 11, b"1", b"b")
    builder.append_with_offset(10, 12, None, b"c")
    builder.close()
    filtered = bytearray()
    MemoryRecords.readable_records(buffer).filter_to(TP, RetainNonNullKeysFilter(), filtered, 2**31 - 1)
    batches = list(MemoryRecords.readable_records(filtered).batches())
    assert len(batches) == 1
    batch = batches[0]
    records = list(batch)
    assert len(records) == 1
    assert records[0].offset() == 8
    if magic >= MAGIC_VALUE_V1:
        assert SimpleRecord.from_record(records[0]) == SimpleRecord.of(11, b"1", b"b")
    else:
        assert SimpleRecord.from_record(records[0]) == SimpleRecord.of(NO_TIMESTAMP, b"1", b"b")
    if magic >= MAGIC_VALUE_V2:
        # v2 keeps the original batch's first and last offsets.
        assert batch.base_offset() == 0
        assert batch.last_offset() == 10
    else:
        assert batch.base_offset() == 8
        assert batch.last_offset() == 8


@ARGS
def test_filter_to_preserves_producer_info(args: Args) -> None:
    magic = args.magic
    compression = args.compression
    buffer = bytearray()
    # Neither idempotent nor transactional.
    builder = MemoryRecords.builder(buffer, magic, compression, TimestampType.CREATE_TIME, 0)
    builder.append(10, None, b"a")
    builder.append(11, b"1", b"b")
    builder.append(12, None, b"c")
    builder.close()
    # Idempotent.
    pid1, epoch1, base_sequence1 = 23, 5, 10
    idempotent_builder = MemoryRecords.builder(buffer, magic, compression, TimestampType.CREATE_TIME, 3, NO_TIMESTAMP,
                                               pid1, epoch1, base_sequence1)
    idempotent_builder.append(13, None, b"d")
    idempotent_builder.append(14, b"4", b"e")
    idempotent_builder.append(15, b"5", b"f")
    if magic < MAGIC_VALUE_V2:
        with pytest.raises(IllegalArgumentException):
            idempotent_builder.close()
    else:
        idempotent_builder.close()
    # Transactional.
    pid2, epoch2, base_sequence2 = 99384, 234, 15

    def transaction_supplier() -> MemoryRecordsBuilder:
        return MemoryRecords.builder(buffer, magic, compression, TimestampType.CREATE_TIME, 3, NO_TIMESTAMP, pid2,
                                     epoch2, base_sequence2, True, partition_leader_epoch=NO_PARTITION_LEADER_EPOCH)

    if magic < MAGIC_VALUE_V2:
        with pytest.raises(IllegalArgumentException):
            transaction_supplier()
        return
    builder = transaction_supplier()
    builder.append(16, b"6", b"g")
    builder.append(17, b"7", b"h")
    builder.append(18, None, b"i")
    builder.close()
    filtered = bytearray()
    MemoryRecords.readable_records(buffer).filter_to(TP, RetainNonNullKeysFilter(), filtered, 2**31 - 1)
    batches = list(MemoryRecords.readable_records(filtered).batches())
    assert len(batches) == 3

    first_batch = batches[0]
    assert first_batch.count_or_null() == 1
    assert first_batch.base_offset() == 0
    assert first_batch.last_offset() == 2
    assert first_batch.producer_id() == NO_PRODUCER_ID
    assert first_batch.producer_epoch() == NO_PRODUCER_EPOCH
    assert first_batch.base_sequence() == NO_SEQUENCE
    assert first_batch.last_sequence() == NO_SEQUENCE
    assert not first_batch.is_transactional()
    first_batch_records = list(first_batch)
    assert len(first_batch_records) == 1
    assert first_batch_records[0].sequence() == NO_SEQUENCE
    assert SimpleRecord.from_record(first_batch_records[0]) == SimpleRecord.of(11, b"1", b"b")

    second_batch = batches[1]
    assert second_batch.count_or_null() == 2
    assert second_batch.base_offset() == 3
    assert second_batch.last_offset() == 5
    assert second_batch.producer_id() == pid1
    assert second_batch.producer_epoch() == epoch1
    assert second_batch.base_sequence() == base_sequence1
    assert second_batch.last_sequence() == base_sequence1 + 2
    assert not second_batch.is_transactional()
    second_batch_records = list(second_batch)
    assert len(second_batch_records) == 2
    assert second_batch_records[0].sequence() == base_sequence1 + 1
    assert SimpleRecord.from_record(second_batch_records[0]) == SimpleRecord.of(14, b"4", b"e")
    assert second_batch_records[1].sequence() == base_sequence1 + 2
    assert SimpleRecord.from_record(second_batch_records[1]) == SimpleRecord.of(15, b"5", b"f")

    third_batch = batches[2]
    assert third_batch.count_or_null() == 2
    assert third_batch.base_offset() == 3
    assert third_batch.last_offset() == 5
    assert third_batch.producer_id() == pid2
    assert third_batch.producer_epoch() == epoch2
    assert third_batch.base_sequence() == base_sequence2
    assert third_batch.last_sequence() == base_sequence2 + 2
    assert third_batch.is_transactional()
    third_batch_records = list(third_batch)
    assert len(third_batch_records) == 2
    assert third_batch_records[0].sequence() == base_sequence2
    assert SimpleRecord.from_record(third_batch_records[0]) == SimpleRecord.of(16, b"6", b"g")
    assert third_batch_records[1].sequence() == base_sequence2 + 1
    assert SimpleRecord.from_record(third_batch_records[1]) == SimpleRecord.of(17, b"7", b"h")


@ARGS
def test_filter_to_with_undersized_buffer(args: Args) -> None:
    magic = args.magic
    compression = args.compression
    buffer = bytearray()
    builder = MemoryRecords.builder(buffer, magic, compression, TimestampType.CREATE_TIME, 0)
    builder.append(10, None, b"a")
    builder.close()
    builder = MemoryRecords.builder(buffer, magic, compression, TimestampType.CREATE_TIME, 1)
    builder.append(11, b"1", bytes(128))
    builder.append(12, b"2", b"c")
    builder.append(13, None, b"d")
    builder.close()
    builder = MemoryRecords.builder(buffer, magic, compression, TimestampType.CREATE_TIME, 4)
    builder.append(14, None, b"e")
    builder.append(15, b"5", b"f")
    builder.append(16, b"6", b"g")
    builder.close()
    builder = MemoryRecords.builder(buffer, magic, compression, TimestampType.CREATE_TIME, 7)
    builder.append(17, b"7", bytes(128))
    builder.close()
    records: list[Record] = []
    position = 0
    while position < len(buffer):
        output = bytearray()
        result = MemoryRecords.readable_records(memoryview(buffer)[position:]).filter_to(
            TP, RetainNonNullKeysFilter(), output, 2**31 - 1)
        position += result.bytes_read()
        records.extend(MemoryRecords.readable_records(result.output_buffer()).records())
    assert len(records) == 5
    for record in records:
        assert record.key() is not None


@ARGS
def test_filter_to(args: Args) -> None:
    magic = args.magic
    compression = args.compression
    buffer = bytearray()
    builder = MemoryRecords.builder(buffer, magic, compression, TimestampType.CREATE_TIME, 0)
    builder.append(10, None, b"a")
    builder.close()
    builder = MemoryRecords.builder(buffer, magic, compression, TimestampType.CREATE_TIME, 1)
    builder.append(11, b"1", b"b")
    builder.append(12, None, b"c")
    builder.close()
    builder = MemoryRecords.builder(buffer, magic, compression, TimestampType.CREATE_TIME, 3)
    builder.append(13, None, b"d")
    builder.append(20, b"4", b"e")
    builder.append(15, b"5", b"f")
    builder.close()
    builder = MemoryRecords.builder(buffer, magic, compression, TimestampType.CREATE_TIME, 6)
    builder.append(16, b"6", b"g")
    builder.close()
    filtered = bytearray()
    result = MemoryRecords.readable_records(buffer).filter_to(TP, RetainNonNullKeysFilter(), filtered, 2**31 - 1)
    assert result.messages_read() == 7
    assert result.messages_retained() == 4
    assert result.bytes_read() == len(buffer)
    assert result.bytes_retained() == len(filtered)
    if magic > MAGIC_VALUE_V0:
        assert result.max_timestamp() == 20
        if compression.type() is CompressionType.NONE and magic < MAGIC_VALUE_V2:
            assert result.shallow_offset_of_max_timestamp() == 4
        else:
            assert result.shallow_offset_of_max_timestamp() == 5
    filtered_records = MemoryRecords.readable_records(filtered)
    batches = list(filtered_records.batches())
    if magic < MAGIC_VALUE_V2 and compression.type() is CompressionType.NONE:
        expected_end_offsets = [1, 4, 5, 6]
        expected_start_offsets = [1, 4, 5, 6]
        expected_max_timestamps = [11, 20, 15, 16]
    elif magic < MAGIC_VALUE_V2:
        expected_end_offsets = [1, 5, 6]
        expected_start_offsets = [1, 4, 6]
        expected_max_timestamps = [11, 20, 16]
    else:
        expected_end_offsets = [2, 5, 6]
        expected_start_offsets = [1, 3, 6]
        expected_max_timestamps = [11, 20, 16]
    assert len(batches) == len(expected_end_offsets)
    for i, batch in enumerate(batches):
        assert batch.base_offset() == expected_start_offsets[i]
        assert batch.last_offset() == expected_end_offsets[i]
        assert batch.magic() == magic
        assert batch.compression_type() is compression.type()
        if magic >= MAGIC_VALUE_V1:
            assert batch.max_timestamp() == expected_max_timestamps[i]
            assert batch.timestamp_type() is TimestampType.CREATE_TIME
        else:
            assert batch.max_timestamp() == NO_TIMESTAMP
            assert batch.timestamp_type() is TimestampType.NO_TIMESTAMP_TYPE
    records = list(filtered_records.records())
    assert len(records) == 4
    for record, (offset, timestamp, key, value) in zip(records, [(1, 11, b"1", b"b"), (4, 20, b"4", b"e"),
                                                                (5, 15, b"5", b"f"), (6, 16, b"6", b"g")], strict=True):
        assert record.offset() == offset
        if magic > MAGIC_VALUE_V0:
            assert record.timestamp() == timestamp
        assert record.key() == key
        assert record.value() == value


@ARGS
def test_filter_to_preserves_log_append_time(args: Args) -> None:
    magic = args.magic
    compression = args.compression
    log_append_time = _now()
    buffer = bytearray()
    builder = MemoryRecords.builder(buffer, magic, compression, TimestampType.LOG_APPEND_TIME, 0, log_append_time,
                                    args.pid, args.epoch, args.first_sequence)
    builder.append(10, None, b"a")
    builder.close()
    builder = MemoryRecords.builder(buffer, magic, compression, TimestampType.LOG_APPEND_TIME, 1, log_append_time,
                                    args.pid, args.epoch, args.first_sequence)
    builder.append(11, b"1", b"b")
    builder.append(12, None, b"c")
    builder.close()
    builder = MemoryRecords.builder(buffer, magic, compression, TimestampType.LOG_APPEND_TIME, 3, log_append_time,
                                    args.pid, args.epoch, args.first_sequence)
    builder.append(13, None, b"d")
    builder.append(14, b"4", b"e")
    builder.append(15, b"5", b"f")
    builder.close()
    filtered = bytearray()
    MemoryRecords.readable_records(buffer).filter_to(TP, RetainNonNullKeysFilter(), filtered, 2**31 - 1)
    batches = list(MemoryRecords.readable_records(filtered).batches())
    assert len(batches) == (3 if magic < MAGIC_VALUE_V2 and compression.type() is CompressionType.NONE else 2)
    for batch in batches:
        assert batch.compression_type() is compression.type()
        if magic > MAGIC_VALUE_V0:
            assert batch.timestamp_type() is TimestampType.LOG_APPEND_TIME
            assert batch.max_timestamp() == log_append_time


@ARGS
def test_next_batch_size(args: Args) -> None:
    buffer = bytearray()
    builder = MemoryRecords.builder(buffer, args.magic, args.compression, TimestampType.LOG_APPEND_TIME, 0,
                                    LOG_APPEND_TIME, args.pid, args.epoch, args.first_sequence)
    builder.append(10, None, b"abc")
    builder.close()
    size = len(buffer)
    view = memoryview(buffer)
    records = MemoryRecords.readable_records(view)
    assert records.first_batch_size() == size
    # The size is not in the buffer, then the magic is not, then only the payload is missing.
    assert MemoryRecords.readable_records(view[:1]).first_batch_size() is None
    assert MemoryRecords.readable_records(view[:LOG_OVERHEAD]).first_batch_size() is None
    assert MemoryRecords.readable_records(view[:HEADER_SIZE_UP_TO_MAGIC]).first_batch_size() == size
    magic = buffer[MAGIC_OFFSET]
    buffer[MAGIC_OFFSET] = 10
    with pytest.raises(CorruptRecordException):
        records.first_batch_size()
    buffer[MAGIC_OFFSET] = magic
    buffer[SIZE_OFFSET + 3] = 0
    with pytest.raises(CorruptRecordException):
        records.first_batch_size()


@ARGS
def test_with_records(args: Args) -> None:
    memory_records = MemoryRecords.with_records(args.compression, SimpleRecord.of(10, b"key1", b"value1"),
                                                magic=args.magic)
    key = next(iter(next(iter(memory_records.batches())))).key()
    assert key == b"key1"


def test_unsupported_compress() -> None:
    for magic in (MAGIC_VALUE_V0, MAGIC_VALUE_V1):
        with pytest.raises(IllegalArgumentException) as e:
            MemoryRecords.with_records(Compression.of(CompressionType.ZSTD).build(),
                                       SimpleRecord.of(10, b"key1", b"value1"), magic=magic)
        assert str(e.value) == f"ZStandard compression is not supported for magic {magic}"
