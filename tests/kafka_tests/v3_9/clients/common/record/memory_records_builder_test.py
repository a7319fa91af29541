"""Port of clients/src/test/java/org/apache/kafka/common/record/MemoryRecordsBuilderTest.java (Kafka 3.9).

Differences of form: a Java ByteBuffer at position p is a bytearray of p bytes the builder appends to (so
`buffer.position()` is `len(buffer)`), and `buffer.capacity()` is passed as the builder's write limit. Kafka's
overloads `append(record)` / `append(timestamp, key, value)` are the same Python method.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import pytest
from kio.schema.leader_change_message.v0.data import LeaderChangeMessage, Voter
from kio.static.primitive import i16, i32

from kafka_edu.v1_0_2.clients.common.errors import (
    IllegalArgumentException,
    IllegalStateException,
    UnsupportedCompressionTypeException,
)
from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.record import legacy_record
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType, ControlRecordUtils
from kafka_edu.v3_9.clients.common.record.end_transaction_marker import EndTransactionMarker
from kafka_edu.v3_9.clients.common.record.legacy_record import LegacyRecord
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.memory_records_builder import MemoryRecordsBuilder
from kafka_edu.v3_9.clients.common.record.record import EMPTY_HEADERS
from kafka_edu.v3_9.clients.common.record.record_batch import (
    MAGIC_VALUE_V0,
    MAGIC_VALUE_V1,
    MAGIC_VALUE_V2,
    NO_PARTITION_LEADER_EPOCH,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    NO_SEQUENCE,
    NO_TIMESTAMP,
)
from kafka_edu.v3_9.clients.common.record.record_validation_stats import RecordValidationStats
from kafka_edu.v3_9.clients.common.record.records import LOG_OVERHEAD
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "clients/src/test/java/org/apache/kafka/common/record/MemoryRecordsBuilderTest.java",
    cases=["testUnsupportedCompress", "testWriteEmptyRecordSet", "testWriteTransactionalRecordSet",
           "testWriteTransactionalWithInvalidPID", "testWriteIdempotentWithInvalidEpoch",
           "testWriteIdempotentWithInvalidBaseSequence", "testWriteEndTxnMarkerNonTransactionalBatch",
           "testWriteEndTxnMarkerNonControlBatch", "testWriteLeaderChangeControlBatchWithoutLeaderEpoch",
           "testWriteLeaderChangeControlBatch", "testLegacyCompressionRate", "testEstimatedSizeInBytes",
           "buildUsingLogAppendTime", "buildUsingCreateTime", "testAppendedChecksumConsistency",
           "testSmallWriteLimit", "writePastLimit", "testAppendAtInvalidOffset",
           "convertV2ToV1UsingMixedCreateAndLogAppendTime", "convertToV1WithMixedV0AndV2Data",
           "shouldThrowIllegalStateExceptionOnBuildWhenAborted", "shouldResetBufferToInitialPositionOnAbort",
           "shouldThrowIllegalStateExceptionOnCloseWhenAborted", "shouldThrowIllegalStateExceptionOnAppendWhenAborted",
           "testBuffersDereferencedOnClose", "testRecordTimestampsWithDeleteHorizon"],
    not_applicable={
        "testBuffersDereferencedOnClose": "JVM heap accounting (System.gc, Runtime memory): Python frees a closed "
                                          "builder's buffers by reference counting",
    },
)


@dataclass(frozen=True)
class Args:
    buffer_offset: int
    compression: Compression
    magic: int

    def __repr__(self) -> str:
        return f"magic={self.magic}, bufferOffset={self.buffer_offset}, compression={self.compression.type()}"


def _memory_records_builder_arguments() -> list[Args]:
    values = []
    for buffer_offset in (0, 15):
        for type in CompressionType:
            magics = [MAGIC_VALUE_V2] if type is CompressionType.ZSTD else [MAGIC_VALUE_V0, MAGIC_VALUE_V1,
                                                                            MAGIC_VALUE_V2]
            for magic in magics:
                values.append(Args(buffer_offset, Compression.of(type).build(), magic))
    return values


def _v2_memory_records_builder_arguments() -> list[Args]:
    return [Args(buffer_offset, Compression.of(type).build(), MAGIC_VALUE_V2)
            for buffer_offset in (0, 15) for type in CompressionType]


ARGS = pytest.mark.parametrize("args", _memory_records_builder_arguments(), ids=repr)
V2_ARGS = pytest.mark.parametrize("args", _v2_memory_records_builder_arguments(), ids=repr)
COMPRESSION_TYPES = pytest.mark.parametrize("compression_type", list(CompressionType), ids=str)


def _now() -> int:
    return time.time_ns() // 1_000_000


def _allocate_buffer(args: Args) -> bytearray:
    """ByteBuffer.allocate(size) positioned at args.bufferOffset: the size is the builder's write limit."""
    return bytearray(args.buffer_offset)


def _builder(buffer: bytearray, args: Args, capacity: int, producer_id: int = NO_PRODUCER_ID,
             producer_epoch: int = NO_PRODUCER_EPOCH, base_sequence: int = NO_SEQUENCE, is_transactional: bool = False,
             is_control_batch: bool = False, partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH,
             timestamp_type: TimestampType = TimestampType.CREATE_TIME,
             log_append_time: int = 0) -> MemoryRecordsBuilder:
    return MemoryRecordsBuilder(buffer, args.magic, args.compression, timestamp_type, 0, log_append_time, producer_id,
                                producer_epoch, base_sequence, is_transactional, is_control_batch,
                                partition_leader_epoch, capacity)


def test_unsupported_compress() -> None:
    for magic in (MAGIC_VALUE_V0, MAGIC_VALUE_V1):
        with pytest.raises(IllegalArgumentException) as e:
            MemoryRecordsBuilder(128, magic, Compression.zstd().build(), TimestampType.CREATE_TIME, 0, 0,
                                 NO_PRODUCER_ID, NO_PRODUCER_EPOCH, NO_SEQUENCE, False, False,
                                 NO_PARTITION_LEADER_EPOCH, 128)
        assert str(e.value) == f"ZStandard compression is not supported for magic {magic}"


@ARGS
def test_write_empty_record_set(args: Args) -> None:
    buffer = _allocate_buffer(args)
    records = _builder(buffer, args, 128).build()
    assert records.size_in_bytes() == 0
    assert len(buffer) == args.buffer_offset


@ARGS
def test_write_transactional_record_set(args: Args) -> None:
    buffer = _allocate_buffer(args)

    def supplier() -> MemoryRecordsBuilder:
        return _builder(buffer, args, 128, 9809, 15, 2342, is_transactional=True)

    if args.magic < MAGIC_VALUE_V2:
        with pytest.raises(IllegalArgumentException):
            supplier()
    else:
        builder = supplier()
        builder.append(_now(), b"foo", b"bar")
        records = builder.build()
        batches = list(records.batches())
        assert len(batches) == 1
        assert batches[0].is_transactional()


def _assert_invalid_producer_state_on_close(args: Args, producer_id: int, producer_epoch: int,
                                            base_sequence: int) -> None:
    buffer = _allocate_buffer(args)

    def supplier() -> MemoryRecordsBuilder:
        return _builder(buffer, args, 128, producer_id, producer_epoch, base_sequence, is_transactional=True)

    if args.magic < MAGIC_VALUE_V2:
        with pytest.raises(IllegalArgumentException):
            supplier()
    else:
        builder = supplier()
        with pytest.raises(IllegalArgumentException):
            builder.close()


@ARGS
def test_write_transactional_with_invalid_pid(args: Args) -> None:
    _assert_invalid_producer_state_on_close(args, NO_PRODUCER_ID, 15, 2342)


@ARGS
def test_write_idempotent_with_invalid_epoch(args: Args) -> None:
    _assert_invalid_producer_state_on_close(args, 9809, NO_PRODUCER_EPOCH, 2342)


@ARGS
def test_write_idempotent_with_invalid_base_sequence(args: Args) -> None:
    _assert_invalid_producer_state_on_close(args, 9809, 15, NO_SEQUENCE)


@ARGS
def test_write_end_txn_marker_non_transactional_batch(args: Args) -> None:
    buffer = _allocate_buffer(args)

    def supplier() -> MemoryRecordsBuilder:
        return _builder(buffer, args, 128, 9809, 15, NO_SEQUENCE, is_transactional=False, is_control_batch=True)

    if args.magic < MAGIC_VALUE_V2:
        with pytest.raises(IllegalArgumentException):
            supplier()
    else:
        builder = supplier()
        with pytest.raises(IllegalArgumentException):
            builder.append_end_txn_marker(NO_TIMESTAMP, EndTransactionMarker(ControlRecordType.ABORT, 0))


@ARGS
def test_write_end_txn_marker_non_control_batch(args: Args) -> None:
    buffer = _allocate_buffer(args)

    def supplier() -> MemoryRecordsBuilder:
        return _builder(buffer, args, 128, 9809, 15, NO_SEQUENCE, is_transactional=True, is_control_batch=False)

    if args.magic < MAGIC_VALUE_V2:
        with pytest.raises(IllegalArgumentException):
            supplier()
    else:
        builder = supplier()
        with pytest.raises(IllegalArgumentException):
            builder.append_end_txn_marker(NO_TIMESTAMP, EndTransactionMarker(ControlRecordType.ABORT, 0))


@ARGS
def test_write_leader_change_control_batch_without_leader_epoch(args: Args) -> None:
    buffer = _allocate_buffer(args)

    def supplier() -> MemoryRecordsBuilder:
        return _builder(buffer, args, 128, is_control_batch=True)

    if args.magic < MAGIC_VALUE_V2:
        with pytest.raises(IllegalArgumentException):
            supplier()
    else:
        builder = supplier()
        with pytest.raises(IllegalArgumentException):
            builder.append_leader_change_message(
                NO_TIMESTAMP, LeaderChangeMessage(version=i16(0), leader_id=i32(1), voters=(), granting_voters=()))


@ARGS
def test_write_leader_change_control_batch(args: Args) -> None:
    buffer = _allocate_buffer(args)
    leader_id = 1
    leader_epoch = 5
    voters = [2, 3]

    def supplier() -> MemoryRecordsBuilder:
        return _builder(buffer, args, 128, is_control_batch=True, partition_leader_epoch=leader_epoch)

    if args.magic < MAGIC_VALUE_V2:
        with pytest.raises(IllegalArgumentException):
            supplier()
    else:
        builder = supplier()
        builder.append_leader_change_message(NO_TIMESTAMP, LeaderChangeMessage(
            version=i16(0), leader_id=i32(leader_id),
            voters=tuple(Voter(voter_id=i32(voter_id)) for voter_id in voters), granting_voters=()))
        built = builder.build()
        records = list(built.records())
        assert len(records) == 1
        leader_change_message = ControlRecordUtils.deserialize_leader_change_message(records[0])
        assert leader_change_message.leader_id == leader_id
        assert [voter.voter_id for voter in leader_change_message.voters] == voters


@ARGS
def test_legacy_compression_rate(args: Args) -> None:
    magic = args.magic
    buffer = _allocate_buffer(args)

    def supplier() -> list[LegacyRecord]:
        return [LegacyRecord.create(magic, 0, b"a", b"1"), LegacyRecord.create(magic, 1, b"b", b"2"),
                LegacyRecord.create(magic, 2, b"c", b"3")]

    if magic >= MAGIC_VALUE_V2:
        with pytest.raises(IllegalArgumentException):
            supplier()
    else:
        records = supplier()
        builder = _builder(buffer, args, 1024)
        uncompressed_size = 0
        for record in records:
            uncompressed_size += record.size_in_bytes() + LOG_OVERHEAD
            builder.append(record)
        built = builder.build()
        if args.compression.type() is CompressionType.NONE:
            assert builder.compression_ratio() == pytest.approx(1.0, abs=0.00001)
        else:
            record_head = legacy_record.RECORD_OVERHEAD_V0 if magic == MAGIC_VALUE_V0 \
                else legacy_record.RECORD_OVERHEAD_V1
            compressed_size = built.size_in_bytes() - LOG_OVERHEAD - record_head
            computed_compression_rate = compressed_size / uncompressed_size
            assert builder.compression_ratio() == pytest.approx(computed_compression_rate, abs=0.00001)


@ARGS
def test_estimated_size_in_bytes(args: Args) -> None:
    buffer = _allocate_buffer(args)
    builder = _builder(buffer, args, 1024)
    previous_estimate = 0
    for i in range(10):
        builder.append(SimpleRecord(str(i).encode(), timestamp=i))
        current_estimate = builder.estimated_size_in_bytes()
        assert current_estimate > previous_estimate
        previous_estimate = current_estimate
    bytes_written_before_close = builder.estimated_size_in_bytes()
    records = builder.build()
    assert builder.estimated_size_in_bytes() == records.size_in_bytes()
    if args.compression.type() is CompressionType.NONE:
        assert bytes_written_before_close == records.size_in_bytes()


@ARGS
def test_build_using_log_append_time(args: Args) -> None:
    magic = args.magic
    buffer = _allocate_buffer(args)
    log_append_time = _now()
    builder = _builder(buffer, args, 1024, timestamp_type=TimestampType.LOG_APPEND_TIME,
                       log_append_time=log_append_time)
    builder.append(0, b"a", b"1")
    builder.append(0, b"b", b"2")
    builder.append(0, b"c", b"3")
    records = builder.build()
    info = builder.info()
    assert info.max_timestamp == log_append_time
    if args.compression.type() is CompressionType.NONE and magic <= MAGIC_VALUE_V1:
        assert info.shallow_offset_of_max_timestamp == 0
    else:
        assert info.shallow_offset_of_max_timestamp == 2
    for batch in records.batches():
        if magic == MAGIC_VALUE_V0:
            assert batch.timestamp_type() is TimestampType.NO_TIMESTAMP_TYPE
        else:
            assert batch.timestamp_type() is TimestampType.LOG_APPEND_TIME
            for record in batch:
                assert record.timestamp() == log_append_time


@ARGS
def test_build_using_create_time(args: Args) -> None:
    magic = args.magic
    buffer = _allocate_buffer(args)
    builder = _builder(buffer, args, 1024, log_append_time=_now())
    builder.append(0, b"a", b"1")
    builder.append(2, b"b", b"2")
    builder.append(1, b"c", b"3")
    records = builder.build()
    info = builder.info()
    assert info.max_timestamp == (-1 if magic == MAGIC_VALUE_V0 else 2)
    if magic == MAGIC_VALUE_V0:
        assert info.shallow_offset_of_max_timestamp == -1
    elif args.compression.type() is CompressionType.NONE and magic == MAGIC_VALUE_V1:
        assert info.shallow_offset_of_max_timestamp == 1
    else:
        assert info.shallow_offset_of_max_timestamp == 2
    i = 0
    expected_timestamps = [0, 2, 1]
    for batch in records.batches():
        if magic == MAGIC_VALUE_V0:
            assert batch.timestamp_type() is TimestampType.NO_TIMESTAMP_TYPE
        else:
            assert batch.timestamp_type() is TimestampType.CREATE_TIME
            for record in batch:
                assert record.timestamp() == expected_timestamps[i]
                i += 1


@ARGS
def test_appended_checksum_consistency(args: Args) -> None:
    builder = MemoryRecordsBuilder(512, args.magic, args.compression, TimestampType.CREATE_TIME, 0,
                                   legacy_record.NO_TIMESTAMP, NO_PRODUCER_ID, NO_PRODUCER_EPOCH, NO_SEQUENCE, False,
                                   False, NO_PARTITION_LEADER_EPOCH, 512)
    builder.append(1, b"key", b"value")
    memory_records = builder.build()
    assert len(list(memory_records.records())) == 1


@ARGS
def test_small_write_limit(args: Args) -> None:
    # Even with no room at all, one record always goes in.
    key = b"foo"
    value = b"bar"
    builder = MemoryRecordsBuilder(512, args.magic, args.compression, TimestampType.CREATE_TIME, 0,
                                   legacy_record.NO_TIMESTAMP, NO_PRODUCER_ID, NO_PRODUCER_EPOCH, NO_SEQUENCE, False,
                                   False, NO_PARTITION_LEADER_EPOCH, 0)
    assert not builder.is_full()
    assert builder.has_room_for(0, key, value, EMPTY_HEADERS)
    builder.append(0, key, value)
    assert builder.is_full()
    assert not builder.has_room_for(0, key, value, EMPTY_HEADERS)
    records = list(builder.build().records())
    assert len(records) == 1
    assert records[0].key() == key
    assert records[0].value() == value


@ARGS
def test_write_past_limit(args: Args) -> None:
    magic = args.magic
    buffer = _allocate_buffer(args)
    builder = _builder(buffer, args, 64, log_append_time=_now())
    builder.set_estimated_compression_ratio(0.5)
    builder.append(0, b"a", b"1")
    builder.append(1, b"b", b"2")
    assert not builder.has_room_for(2, b"c", b"3", EMPTY_HEADERS)
    builder.append(2, b"c", b"3")
    records = builder.build()
    info = builder.info()
    if magic == MAGIC_VALUE_V0:
        assert info.shallow_offset_of_max_timestamp == -1
        assert info.max_timestamp == -1
    else:
        assert info.shallow_offset_of_max_timestamp == 2
        assert info.max_timestamp == 2
    i = 0
    for batch in records.batches():
        if magic == MAGIC_VALUE_V0:
            assert batch.timestamp_type() is TimestampType.NO_TIMESTAMP_TYPE
        else:
            assert batch.timestamp_type() is TimestampType.CREATE_TIME
            for record in batch:
                assert record.timestamp() == i
                i += 1


@ARGS
def test_append_at_invalid_offset(args: Args) -> None:
    buffer = _allocate_buffer(args)
    builder = _builder(buffer, args, 1024, log_append_time=_now())
    builder.append_with_offset(0, _now(), b"a", None)
    # Offsets must increase monotonically.
    with pytest.raises(IllegalArgumentException):
        builder.append_with_offset(0, _now(), b"b", None)


def _verify_records_processing_stats(compression: Compression, processing_stats: RecordValidationStats,
                                     num_records: int, num_records_converted: int, final_bytes: int,
                                     pre_converted_bytes: int) -> None:
    assert processing_stats is not None, "Records processing info is null"
    assert processing_stats.num_records_converted() == num_records_converted
    assert processing_stats.conversion_time_nanos() >= 0, f"Processing time not recorded: {processing_stats}"
    temp_bytes = processing_stats.temporary_memory_bytes()
    if compression.type() is CompressionType.NONE:
        if num_records_converted == 0:
            assert temp_bytes == final_bytes
        elif num_records_converted == num_records:
            assert temp_bytes == pre_converted_bytes + final_bytes
        else:
            assert final_bytes < temp_bytes < final_bytes + pre_converted_bytes, \
                f"Unexpected temp bytes {temp_bytes} final {final_bytes} pre {pre_converted_bytes}"
    else:
        compressed_bytes = final_bytes - LOG_OVERHEAD - legacy_record.RECORD_OVERHEAD_V0
        assert temp_bytes > compressed_bytes, \
            f"Uncompressed size expected temp={temp_bytes}, compressed={compressed_bytes}"


@COMPRESSION_TYPES
def test_convert_v2_to_v1_using_mixed_create_and_log_append_time(compression_type: CompressionType) -> None:
    buffer = bytearray()
    compression = Compression.of(compression_type).build()
    builder = MemoryRecords.builder(buffer, MAGIC_VALUE_V2, compression, TimestampType.LOG_APPEND_TIME, 0)
    builder.append(10, b"1", b"a")
    builder.close()
    size_excluding_txn_markers = len(buffer)
    MemoryRecords.write_end_transactional_marker(buffer, 1, _now(), 0, 15, 0,
                                                 EndTransactionMarker(ControlRecordType.ABORT, 0))
    position = len(buffer)
    builder = MemoryRecords.builder(buffer, MAGIC_VALUE_V2, compression, TimestampType.CREATE_TIME, 1)
    builder.append(12, b"2", b"b")
    builder.append(13, b"3", b"c")
    builder.close()
    size_excluding_txn_markers += len(buffer) - position
    MemoryRecords.write_end_transactional_marker(buffer, 14, _now(), 0, 1, 0,
                                                 EndTransactionMarker(ControlRecordType.COMMIT, 0))

    def converted_records_supplier() -> object:
        return MemoryRecords.readable_records(buffer).down_convert(MAGIC_VALUE_V1, 0, SYSTEM)

    if compression.type() is not CompressionType.ZSTD:
        converted_records = MemoryRecords.readable_records(buffer).down_convert(MAGIC_VALUE_V1, 0, SYSTEM)
        records = converted_records.records()
        # The transaction markers are dropped on the way down to v1.
        _verify_records_processing_stats(compression, converted_records.record_conversion_stats(), 3, 3,
                                         records.size_in_bytes(), size_excluding_txn_markers)
        batches = list(records.batches())
        if compression.type() is not CompressionType.NONE:
            assert len(batches) == 2
            assert batches[0].timestamp_type() is TimestampType.LOG_APPEND_TIME
            assert batches[1].timestamp_type() is TimestampType.CREATE_TIME
        else:
            assert len(batches) == 3
            assert batches[0].timestamp_type() is TimestampType.LOG_APPEND_TIME
            assert batches[1].timestamp_type() is TimestampType.CREATE_TIME
            assert batches[2].timestamp_type() is TimestampType.CREATE_TIME
        log_records = list(records.records())
        assert len(log_records) == 3
        assert log_records[0].key() == b"1"
        assert log_records[1].key() == b"2"
        assert log_records[2].key() == b"3"
    else:
        with pytest.raises(UnsupportedCompressionTypeException) as e:
            converted_records_supplier()
        assert str(e.value) == "Down-conversion of zstandard-compressed batches is not supported"


@COMPRESSION_TYPES
def test_convert_to_v1_with_mixed_v0_and_v2_data(compression_type: CompressionType) -> None:
    buffer = bytearray()
    compression = Compression.of(compression_type).build()

    def supplier() -> MemoryRecordsBuilder:
        return MemoryRecords.builder(buffer, MAGIC_VALUE_V0, compression, TimestampType.NO_TIMESTAMP_TYPE, 0)

    if compression_type is CompressionType.ZSTD:
        with pytest.raises(IllegalArgumentException):
            supplier()
        return
    builder = supplier()
    builder.append(NO_TIMESTAMP, b"1", b"a")
    builder.close()
    builder = MemoryRecords.builder(buffer, MAGIC_VALUE_V2, compression, TimestampType.CREATE_TIME, 1)
    builder.append(11, b"2", b"b")
    builder.append(12, b"3", b"c")
    builder.close()

    converted_records = MemoryRecords.readable_records(buffer).down_convert(MAGIC_VALUE_V1, 0, SYSTEM)
    records = converted_records.records()
    _verify_records_processing_stats(compression, converted_records.record_conversion_stats(), 3, 2,
                                     records.size_in_bytes(), len(buffer))
    batches = list(records.batches())
    if compression_type is not CompressionType.NONE:
        assert len(batches) == 2
        assert batches[0].magic() == MAGIC_VALUE_V0
        assert batches[0].base_offset() == 0
        assert batches[1].magic() == MAGIC_VALUE_V1
        assert batches[1].base_offset() == 1
    else:
        assert len(batches) == 3
        assert batches[0].magic() == MAGIC_VALUE_V0
        assert batches[0].base_offset() == 0
        assert batches[1].magic() == MAGIC_VALUE_V1
        assert batches[1].base_offset() == 1
        assert batches[2].magic() == MAGIC_VALUE_V1
        assert batches[2].base_offset() == 2
    log_records = list(records.records())
    assert log_records[0].key() == b"1"
    assert log_records[1].key() == b"2"
    assert log_records[2].key() == b"3"

    converted_records = MemoryRecords.readable_records(buffer).down_convert(MAGIC_VALUE_V1, 2, SYSTEM)
    records = converted_records.records()
    batches = list(records.batches())
    log_records = list(records.records())
    if compression_type is not CompressionType.NONE:
        assert len(batches) == 2
        assert batches[0].magic() == MAGIC_VALUE_V0
        assert batches[0].base_offset() == 0
        assert batches[1].magic() == MAGIC_VALUE_V1
        assert batches[1].base_offset() == 1
        assert log_records[0].key() == b"1"
        assert log_records[1].key() == b"2"
        assert log_records[2].key() == b"3"
        _verify_records_processing_stats(compression, converted_records.record_conversion_stats(), 3, 2,
                                         records.size_in_bytes(), len(buffer))
    else:
        assert len(batches) == 2
        assert batches[0].magic() == MAGIC_VALUE_V0
        assert batches[0].base_offset() == 0
        assert batches[1].magic() == MAGIC_VALUE_V1
        assert batches[1].base_offset() == 2
        assert log_records[0].key() == b"1"
        assert log_records[1].key() == b"3"
        _verify_records_processing_stats(compression, converted_records.record_conversion_stats(), 3, 1,
                                         records.size_in_bytes(), len(buffer))


@ARGS
def test_should_throw_illegal_state_exception_on_build_when_aborted(args: Args) -> None:
    builder = _builder(_allocate_buffer(args), args, 128)
    builder.abort()
    with pytest.raises(IllegalStateException):
        builder.build()


@ARGS
def test_should_reset_buffer_to_initial_position_on_abort(args: Args) -> None:
    builder = _builder(_allocate_buffer(args), args, 128)
    builder.append(0, b"a", b"1")
    builder.abort()
    assert len(builder.buffer()) == args.buffer_offset


@ARGS
def test_should_throw_illegal_state_exception_on_close_when_aborted(args: Args) -> None:
    builder = _builder(_allocate_buffer(args), args, 128)
    builder.abort()
    with pytest.raises(IllegalStateException):
        builder.close()


@ARGS
def test_should_throw_illegal_state_exception_on_append_when_aborted(args: Args) -> None:
    builder = _builder(_allocate_buffer(args), args, 128)
    builder.abort()
    with pytest.raises(IllegalStateException):
        builder.append(0, b"a", b"1")


@V2_ARGS
def test_record_timestamps_with_delete_horizon(args: Args) -> None:
    delete_horizon = 100
    builder = MemoryRecordsBuilder(bytearray(), args.magic, args.compression, TimestampType.CREATE_TIME, 0, 0,
                                   NO_PRODUCER_ID, NO_PRODUCER_EPOCH, NO_SEQUENCE, False, False,
                                   NO_PARTITION_LEADER_EPOCH, 0, delete_horizon)
    builder.append(50, b"0", b"0")
    builder.append(100, b"1", None)
    builder.append(150, b"2", b"2")
    records = builder.build()
    batches = list(records.batches())
    assert batches[0].delete_horizon_ms() == delete_horizon
    with batches[0].streaming_iterator() as record_iterator:
        assert next(record_iterator).timestamp() == 50
        assert next(record_iterator).timestamp() == 100
        assert next(record_iterator).timestamp() == 150
