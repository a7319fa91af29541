"""Port of core/src/test/scala/unit/kafka/log/LogValidatorTest.scala (Kafka 3.9).

Kafka's test passes UnifiedLog's recorder over BrokerTopicStats and reads the meters back from the JMX registry;
here a recording MetricsRecorder stands in, and "the meter counted" is asserted on it (the registry's one-meter-per-
name check has nothing to port). RequestLocal's buffer supplier is None: the port's codecs decompress in one call.
"""

from __future__ import annotations

import struct

import pytest

from kafka_edu.v1_0_2.clients.common.errors import (
    CorruptRecordException,
    InvalidTimestampException,
    UnsupportedCompressionTypeException,
    UnsupportedForMessageFormatException,
)
from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.invalid_record_exception import InvalidRecordException
from kafka_edu.v3_9.clients.common.record import default_record_batch, legacy_record
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType
from kafka_edu.v3_9.clients.common.record.default_record_batch import DefaultRecordBatch
from kafka_edu.v3_9.clients.common.record.end_transaction_marker import EndTransactionMarker
from kafka_edu.v3_9.clients.common.record.legacy_record import LegacyRecord
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record_batch import (
    CURRENT_MAGIC_VALUE,
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
from kafka_edu.v3_9.clients.common.record.record_validation_stats import RecordValidationStats
from kafka_edu.v3_9.clients.common.record.record_version import RecordVersion
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.clients.common.utils.primitive_ref import LongRef, PrimitiveRef
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from kafka_edu.v3_9.storage.storage.internals.log.append_origin import AppendOrigin
from kafka_edu.v3_9.storage.storage.internals.log.log_validator import LogValidator, ValidationResult
from kafka_edu.v3_9.storage.storage.internals.log.record_validation_exception import RecordValidationException
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/log/LogValidatorTest.scala",
    cases=[
        "testOnlyOneBatch", "testAllowMultiBatch", "testValidationOfBatchesWithNonSequentialInnerOffsets",
        "testMisMatchMagic", "testLogAppendTimeNonCompressedV0", "testLogAppendTimeNonCompressedV1",
        "testLogAppendTimeNonCompressedV2", "testLogAppendTimeWithRecompressionV1",
        "testLogAppendTimeWithRecompressionV2", "testLogAppendTimeWithoutRecompressionV1",
        "testInvalidOffsetRangeAndRecordCount", "testLogAppendTimeWithoutRecompressionV2", "testNonCompressedV1",
        "testNonCompressedV2", "testRecompressionV1", "testRecompressionV2", "testCreateTimeUpConversionV0ToV1",
        "testCreateTimeUpConversionV0ToV2", "testCreateTimeUpConversionV1ToV2", "testCompressedV1",
        "testInvalidChecksum", "testCompressedV2", "testInvalidCreateTimeNonCompressedV1",
        "testInvalidCreateTimeNonCompressedV2", "testInvalidCreateTimeCompressedV1",
        "testInvalidCreateTimeCompressedV2", "testAbsoluteOffsetAssignmentNonCompressed",
        "testAbsoluteOffsetAssignmentCompressed", "testRelativeOffsetAssignmentNonCompressedV1",
        "testRelativeOffsetAssignmentNonCompressedV2", "testRelativeOffsetAssignmentCompressedV1",
        "testRelativeOffsetAssignmentCompressedV2", "testOffsetAssignmentAfterUpConversionV0ToV1NonCompressed",
        "testOffsetAssignmentAfterUpConversionV0ToV2NonCompressed",
        "testOffsetAssignmentAfterUpConversionV0ToV1Compressed",
        "testOffsetAssignmentAfterUpConversionV0ToV2Compressed", "testControlRecordsNotAllowedFromClients",
        "testControlRecordsNotCompressed", "testOffsetAssignmentAfterDownConversionV1ToV0NonCompressed",
        "testOffsetAssignmentAfterDownConversionV1ToV0Compressed",
        "testOffsetAssignmentAfterUpConversionV1ToV2NonCompressed",
        "testOffsetAssignmentAfterUpConversionV1ToV2Compressed",
        "testOffsetAssignmentAfterDownConversionV2ToV1NonCompressed",
        "testOffsetAssignmentAfterDownConversionV2ToV1Compressed",
        "testDownConversionOfTransactionalRecordsNotPermitted", "testDownConversionOfIdempotentRecordsNotPermitted",
        "testOffsetAssignmentAfterDownConversionV2ToV0NonCompressed",
        "testOffsetAssignmentAfterDownConversionV2ToV0Compressed",
        "testNonIncreasingOffsetRecordBatchHasMetricsLogged", "testCompressedBatchWithoutRecordsNotAllowed",
        "testZStdCompressedWithUnavailableIBPVersion", "testUncompressedBatchWithoutRecordsNotAllowed",
        "testRecompressedBatchWithoutRecordsNotAllowed", "testInvalidTimestampExceptionHasBatchIndex",
        "testInvalidRecordExceptionHasBatchIndex", "testBatchWithInvalidRecordsAndInvalidTimestamp",
        "testRecordWithPastTimestampIsRejected", "testRecordWithFutureTimestampIsRejected",
        "testDifferentLevelDoesNotCauseRecompression", "testDifferentCodecCausesRecompression",
    ],
)

time = SYSTEM
topic_partition = TopicPartition("topic", 0)
LATEST = MetadataVersion.latest_testing()
CLIENT = AppendOrigin.CLIENT
CREATE_TIME = TimestampType.CREATE_TIME
LOG_APPEND_TIME = TimestampType.LOG_APPEND_TIME


class RecordingMetricsRecorder:
    """A MetricsRecorder that counts what it is told, in place of BrokerTopicStats' meters."""

    def __init__(self) -> None:
        self.invalid_magic = 0
        self.invalid_offset = 0
        self.invalid_sequence = 0
        self.invalid_checksums = 0
        self.no_key_compacted_topic = 0

    def record_invalid_magic(self) -> None:
        self.invalid_magic += 1

    def record_invalid_offset(self) -> None:
        self.invalid_offset += 1

    def record_invalid_sequence(self) -> None:
        self.invalid_sequence += 1

    def record_invalid_checksums(self) -> None:
        self.invalid_checksums += 1

    def record_no_key_compacted_topic(self) -> None:
        self.no_key_compacted_topic += 1


@pytest.fixture
def metrics_recorder() -> RecordingMetricsRecorder:
    return RecordingMetricsRecorder()


def gzip() -> Compression:
    return Compression.gzip().build()


def run(validator: LogValidator, offset: int | LongRef = 0,
        metrics_recorder: RecordingMetricsRecorder | None = None) -> ValidationResult:
    offset_counter = offset if isinstance(offset, LongRef) else PrimitiveRef.of_long(offset)
    recorder = metrics_recorder or RecordingMetricsRecorder()
    return validator.validate_messages_and_assign_offsets(offset_counter, recorder, None)


def test_only_one_batch() -> None:
    check_only_one_batch(MAGIC_VALUE_V0, gzip(), gzip())
    check_only_one_batch(MAGIC_VALUE_V1, gzip(), gzip())
    check_only_one_batch(MAGIC_VALUE_V2, gzip(), gzip())
    check_only_one_batch(MAGIC_VALUE_V0, gzip(), Compression.NONE)
    check_only_one_batch(MAGIC_VALUE_V1, gzip(), Compression.NONE)
    check_only_one_batch(MAGIC_VALUE_V2, gzip(), Compression.NONE)
    check_only_one_batch(MAGIC_VALUE_V2, Compression.NONE, Compression.NONE)
    check_only_one_batch(MAGIC_VALUE_V2, Compression.NONE, gzip())


def test_allow_multi_batch() -> None:
    check_allow_multi_batch(MAGIC_VALUE_V0, Compression.NONE, Compression.NONE)
    check_allow_multi_batch(MAGIC_VALUE_V1, Compression.NONE, Compression.NONE)
    check_allow_multi_batch(MAGIC_VALUE_V0, Compression.NONE, gzip())
    check_allow_multi_batch(MAGIC_VALUE_V1, Compression.NONE, gzip())


def test_validation_of_batches_with_non_sequential_inner_offsets() -> None:
    def test_message_validation(magic_value: int) -> None:
        num_records = 20
        compression = gzip()
        invalid_records = records_with_non_sequential_inner_offsets(magic_value, compression, num_records)
        # v2 is strict here; older formats get their inner offsets fixed by rewriting the batch
        if magic_value >= MAGIC_VALUE_V2:
            with pytest.raises(InvalidRecordException):
                validate_messages(invalid_records, magic_value, CompressionType.GZIP, compression)
        else:
            result = validate_messages(invalid_records, magic_value, CompressionType.GZIP, compression)
            assert [r.offset() for r in result.validated_records.records()] == list(range(num_records))

    for version in RecordVersion:
        test_message_validation(version.value)


def test_mis_match_magic() -> None:
    compression = gzip()
    check_mismatch_magic(MAGIC_VALUE_V0, MAGIC_VALUE_V1, compression)
    check_mismatch_magic(MAGIC_VALUE_V1, MAGIC_VALUE_V0, compression)


def check_only_one_batch(magic: int, source_compression: Compression, target_compression: Compression) -> None:
    with pytest.raises(InvalidRecordException):
        validate_messages(create_two_batched_records(magic, source_compression), magic, source_compression.type(),
                          target_compression)


def check_allow_multi_batch(magic: int, source_compression: Compression, target_compression: Compression) -> None:
    validate_messages(create_two_batched_records(magic, source_compression), magic, source_compression.type(),
                      target_compression)


def check_mismatch_magic(batch_magic: int, record_magic: int, compression: Compression) -> None:
    metrics_recorder = RecordingMetricsRecorder()
    with pytest.raises(RecordValidationException):
        validate_messages(records_with_invalid_inner_magic(batch_magic, record_magic, compression), batch_magic,
                          compression.type(), compression, metrics_recorder)
    assert metrics_recorder.invalid_magic > 0


def validate_messages(records: MemoryRecords, magic: int, source_compression_type: CompressionType,
                      target_compression: Compression,
                      metrics_recorder: RecordingMetricsRecorder | None = None) -> ValidationResult:
    mock_time = MockTime(0, 0, 0)
    return run(LogValidator(records, topic_partition, mock_time, source_compression_type, target_compression, False,
                            magic, CREATE_TIME, 1000, 1000, NO_PRODUCER_EPOCH, CLIENT, MetadataVersion.IBP_2_3_IV1),
               0, metrics_recorder)


def test_log_append_time_non_compressed_v0() -> None:
    check_log_append_time_non_compressed(MAGIC_VALUE_V0)


def test_log_append_time_non_compressed_v1() -> None:
    check_log_append_time_non_compressed(MAGIC_VALUE_V1)


def test_log_append_time_non_compressed_v2() -> None:
    check_log_append_time_non_compressed(MAGIC_VALUE_V2)


def check_log_append_time_non_compressed(magic: int) -> None:
    mock_time = MockTime()
    # the timestamps are overwritten
    records = create_records(magic_value=magic, timestamp=1234, codec=Compression.NONE)
    offset_counter = PrimitiveRef.of_long(0)
    validated_results = run(LogValidator(records, topic_partition, mock_time, CompressionType.NONE, Compression.NONE,
                                         False, magic, LOG_APPEND_TIME, 1000, 1000, NO_PARTITION_LEADER_EPOCH, CLIENT,
                                         LATEST), offset_counter)

    assert offset_counter.value == len(list(records.records()))
    validated_records = validated_results.validated_records
    assert len(list(validated_records.records())) == len(list(records.records())), \
        "message set size should not change"
    now = mock_time.milliseconds()
    if magic >= MAGIC_VALUE_V1:
        for batch in validated_records.batches():
            validate_log_append_time(now, 1234, batch)
    assert validated_results.max_timestamp_ms == (NO_TIMESTAMP if magic == MAGIC_VALUE_V0 else now)
    assert not validated_results.message_size_maybe_changed, "Message size should not have been changed"

    # LogAppendTime: v1 indexes the first record's offset, v2 the batch's last
    expected_max_timestamp_offset = {MAGIC_VALUE_V0: -1, MAGIC_VALUE_V1: 0}.get(magic, 2)
    assert validated_results.shallow_offset_of_max_timestamp == expected_max_timestamp_offset
    verify_record_validation_stats(validated_results.record_validation_stats, 0, records, compressed=False)


def test_log_append_time_with_recompression_v1() -> None:
    check_log_append_time_with_recompression(MAGIC_VALUE_V1)


def check_log_append_time_with_recompression(target_magic: int) -> None:
    compression = gzip()
    mock_time = MockTime()
    # the timestamps are overwritten
    records = create_records(magic_value=MAGIC_VALUE_V0, codec=compression)
    validated_results = run(LogValidator(records, topic_partition, mock_time, CompressionType.GZIP, compression, False,
                                         target_magic, LOG_APPEND_TIME, 1000, 1000, NO_PARTITION_LEADER_EPOCH, CLIENT,
                                         LATEST))

    validated_records = validated_results.validated_records
    assert len(list(validated_records.records())) == len(list(records.records())), \
        "message set size should not change"
    now = mock_time.milliseconds()
    for batch in validated_records.batches():
        validate_log_append_time(now, -1, batch)
    assert next(iter(validated_records.batches())).is_valid(), "MessageSet should still valid"
    assert validated_results.max_timestamp_ms == now, f"Max timestamp should be {now}"
    assert validated_results.shallow_offset_of_max_timestamp == 2, \
        "The shallow offset of max timestamp should be 2 if logAppendTime is used"
    assert validated_results.message_size_maybe_changed, "Message size may have been changed"

    stats = validated_results.record_validation_stats
    verify_record_validation_stats(stats, 3, records, compressed=True)


def test_log_append_time_with_recompression_v2() -> None:
    check_log_append_time_with_recompression(MAGIC_VALUE_V2)


def test_log_append_time_without_recompression_v1() -> None:
    check_log_append_time_without_recompression(MAGIC_VALUE_V1)


def check_log_append_time_without_recompression(magic: int) -> None:
    compression = gzip()
    mock_time = MockTime()
    # the timestamps are overwritten
    records = create_records(magic_value=magic, timestamp=1234, codec=compression)
    validated_results = run(LogValidator(records, topic_partition, mock_time, CompressionType.GZIP, compression, False,
                                         magic, LOG_APPEND_TIME, 1000, 1000, NO_PARTITION_LEADER_EPOCH, CLIENT,
                                         LATEST))
    validated_records = validated_results.validated_records

    assert len(list(validated_records.records())) == len(list(records.records())), \
        "message set size should not change"
    now = mock_time.milliseconds()
    for batch in validated_records.batches():
        validate_log_append_time(now, 1234, batch)
    assert next(iter(validated_records.batches())).is_valid(), "MessageSet should still valid"
    assert validated_results.max_timestamp_ms == now, f"Max timestamp should be {now}"
    assert validated_results.shallow_offset_of_max_timestamp == 2, \
        "The shallow offset of max timestamp should be the last offset 2 if logAppendTime is used"
    assert not validated_results.message_size_maybe_changed, "Message size should not have been changed"

    verify_record_validation_stats(validated_results.record_validation_stats, 0, records, compressed=True)


def test_invalid_offset_range_and_record_count() -> None:
    # three records: the right lastOffsetDelta is 2
    validate_record_batch_with_count_overrides(last_offset_delta=2, count=3)

    # count and offset range inconsistent or invalid
    assert_invalid_batch_count_overrides(last_offset_delta=0, count=3)
    assert_invalid_batch_count_overrides(last_offset_delta=15, count=3)
    assert_invalid_batch_count_overrides(last_offset_delta=-3, count=3)
    assert_invalid_batch_count_overrides(last_offset_delta=2, count=-3)
    assert_invalid_batch_count_overrides(last_offset_delta=2, count=6)
    assert_invalid_batch_count_overrides(last_offset_delta=2, count=0)
    assert_invalid_batch_count_overrides(last_offset_delta=-3, count=-2)

    # consistent, but not the number of records the batch holds
    assert_invalid_batch_count_overrides(last_offset_delta=5, count=6)
    assert_invalid_batch_count_overrides(last_offset_delta=1, count=2)


def assert_invalid_batch_count_overrides(last_offset_delta: int, count: int) -> None:
    with pytest.raises(InvalidRecordException):
        validate_record_batch_with_count_overrides(last_offset_delta, count)


def validate_record_batch_with_count_overrides(last_offset_delta: int, count: int) -> None:
    records = create_records(magic_value=MAGIC_VALUE_V2, timestamp=1234, codec=Compression.NONE)
    struct.pack_into(">i", records.buffer(), default_record_batch.RECORDS_COUNT_OFFSET, count)
    struct.pack_into(">i", records.buffer(), default_record_batch.LAST_OFFSET_DELTA_OFFSET, last_offset_delta)
    run(LogValidator(records, topic_partition, time, CompressionType.GZIP, gzip(), False, MAGIC_VALUE_V2,
                     LOG_APPEND_TIME, 1000, 1000, NO_PARTITION_LEADER_EPOCH, CLIENT, LATEST))


def test_log_append_time_without_recompression_v2() -> None:
    check_log_append_time_without_recompression(MAGIC_VALUE_V2)


def test_non_compressed_v1() -> None:
    check_non_compressed(MAGIC_VALUE_V1)


def _producer_state(magic: int) -> tuple[int, int, int, bool, int]:
    if magic >= MAGIC_VALUE_V2:
        return 1324, 10, 984, True, 40
    return NO_PRODUCER_ID, NO_PRODUCER_EPOCH, NO_SEQUENCE, False, NO_PARTITION_LEADER_EPOCH


def check_non_compressed(magic: int) -> None:
    now = time.milliseconds()
    # offset 1 holds the max timestamp
    timestamp_seq = [now - 1, now + 1, now]

    producer_id, producer_epoch, base_sequence, is_transactional, partition_leader_epoch = _producer_state(magic)

    record_list = [SimpleRecord.of(timestamp_seq[0], None, b"hello"), SimpleRecord.of(timestamp_seq[1], None, b"there"),
                   SimpleRecord.of(timestamp_seq[2], None, b"beautiful")]

    records = MemoryRecords.with_records(Compression.NONE, *record_list, magic=magic, initial_offset=0,
                                         timestamp_type=CREATE_TIME, producer_id=producer_id,
                                         producer_epoch=producer_epoch, base_sequence=base_sequence,
                                         partition_leader_epoch=partition_leader_epoch,
                                         is_transactional=is_transactional)

    offset_counter = PrimitiveRef.of_long(0)
    validating_results = run(LogValidator(records, topic_partition, time, CompressionType.NONE, Compression.NONE,
                                          False, magic, CREATE_TIME, 1000, 1000, partition_leader_epoch, CLIENT,
                                          LATEST), offset_counter)

    validated_records = validating_results.validated_records

    i = 0
    for batch in validated_records.batches():
        assert batch.is_valid()
        assert batch.timestamp_type() is CREATE_TIME
        maybe_check_base_timestamp(timestamp_seq[0], batch)
        assert batch.max_timestamp() == max(r.timestamp() for r in batch)
        assert batch.producer_epoch() == producer_epoch
        assert batch.producer_id() == producer_id
        assert batch.base_sequence() == base_sequence
        assert batch.is_transactional() == is_transactional
        assert batch.partition_leader_epoch() == partition_leader_epoch
        for record in batch:
            record.ensure_valid()
            assert record.timestamp() == timestamp_seq[i]
            i += 1

    assert offset_counter.value == i
    assert validating_results.max_timestamp_ms == now + 1, f"Max timestamp should be {now + 1}"

    # v2: one batch, whose last offset is indexed; v1: three batches, the second holds the max timestamp
    if magic >= MAGIC_VALUE_V2:
        assert len(list(records.batches())) == 1
        assert validating_results.shallow_offset_of_max_timestamp == 2
    else:
        assert len(list(records.batches())) == 3
        assert validating_results.shallow_offset_of_max_timestamp == 1

    assert not validating_results.message_size_maybe_changed, "Message size should not have been changed"
    verify_record_validation_stats(validating_results.record_validation_stats, 0, records, compressed=False)


def test_non_compressed_v2() -> None:
    check_non_compressed(MAGIC_VALUE_V2)


def test_recompression_v1() -> None:
    check_recompression(MAGIC_VALUE_V1)


def check_recompression(magic: int) -> None:
    now = time.milliseconds()
    # offset 1 holds the max timestamp
    timestamp_seq = [now - 1, now + 1, now]

    producer_id, producer_epoch, base_sequence, is_transactional, partition_leader_epoch = _producer_state(magic)

    records = MemoryRecords.with_records(
        Compression.NONE, SimpleRecord.of(timestamp_seq[0], None, b"hello"),
        SimpleRecord.of(timestamp_seq[1], None, b"there"), SimpleRecord.of(timestamp_seq[2], None, b"beautiful"),
        magic=magic, initial_offset=0, timestamp_type=CREATE_TIME,
        producer_id=producer_id, producer_epoch=producer_epoch, base_sequence=base_sequence,
        partition_leader_epoch=partition_leader_epoch, is_transactional=is_transactional)

    # v2 has one batch, older versions one batch per record
    assert len(list(records.batches())) == (1 if magic >= MAGIC_VALUE_V2 else 3)

    validating_results = run(LogValidator(records, topic_partition, time, CompressionType.NONE, gzip(), False, magic,
                                          CREATE_TIME, 1000, 1000, partition_leader_epoch, CLIENT, LATEST))
    validated_records = validating_results.validated_records

    i = 0
    for batch in validated_records.batches():
        assert batch.is_valid()
        assert batch.timestamp_type() is CREATE_TIME
        maybe_check_base_timestamp(timestamp_seq[0], batch)
        assert batch.max_timestamp() == max(r.timestamp() for r in batch)
        assert batch.producer_epoch() == producer_epoch
        assert batch.producer_id() == producer_id
        assert batch.base_sequence() == base_sequence
        assert batch.partition_leader_epoch() == partition_leader_epoch
        for record in batch:
            record.ensure_valid()
            assert record.timestamp() == timestamp_seq[i]
            i += 1
    assert validating_results.max_timestamp_ms == now + 1, f"Max timestamp should be {now + 1}"

    # compressed, both v1 and v2 come out as one batch, whose last offset is indexed
    assert len(list(validated_records.batches())) == 1
    assert validating_results.shallow_offset_of_max_timestamp == 2
    assert validating_results.message_size_maybe_changed, "Message size should have been changed"

    verify_record_validation_stats(validating_results.record_validation_stats, 3, records, compressed=True)


def test_recompression_v2() -> None:
    check_recompression(MAGIC_VALUE_V2)


def test_create_time_up_conversion_v0_to_v1() -> None:
    check_create_time_up_conversion_from_v0(MAGIC_VALUE_V1)


def check_create_time_up_conversion_from_v0(to_magic: int) -> None:
    compression = gzip()
    records = create_records(magic_value=MAGIC_VALUE_V0, codec=compression)
    validated_results = run(LogValidator(records, topic_partition, time, CompressionType.GZIP, compression, False,
                                         to_magic, CREATE_TIME, 1000, 1000, NO_PARTITION_LEADER_EPOCH, CLIENT, LATEST))
    validated_records = validated_results.validated_records

    for batch in validated_records.batches():
        assert batch.is_valid()
        maybe_check_base_timestamp(NO_TIMESTAMP, batch)
        assert batch.max_timestamp() == NO_TIMESTAMP
        assert batch.timestamp_type() is CREATE_TIME
        assert batch.producer_epoch() == NO_PRODUCER_EPOCH
        assert batch.producer_id() == NO_PRODUCER_ID
        assert batch.base_sequence() == NO_SEQUENCE
    assert validated_results.max_timestamp_ms == NO_TIMESTAMP, f"Max timestamp should be {NO_TIMESTAMP}"
    assert validated_results.shallow_offset_of_max_timestamp == -1
    assert validated_results.message_size_maybe_changed, "Message size should have been changed"

    verify_record_validation_stats(validated_results.record_validation_stats, 3, records, compressed=True)


def test_create_time_up_conversion_v0_to_v2() -> None:
    check_create_time_up_conversion_from_v0(MAGIC_VALUE_V2)


def test_create_time_up_conversion_v1_to_v2() -> None:
    timestamp = time.milliseconds()
    compression = gzip()
    records = create_records(magic_value=MAGIC_VALUE_V1, codec=compression, timestamp=timestamp)
    validated_results = run(LogValidator(records, topic_partition, time, CompressionType.GZIP, compression, False,
                                         MAGIC_VALUE_V2, CREATE_TIME, 1000, 1000, NO_PARTITION_LEADER_EPOCH, CLIENT,
                                         LATEST))
    validated_records = validated_results.validated_records

    for batch in validated_records.batches():
        assert batch.is_valid()
        maybe_check_base_timestamp(timestamp, batch)
        assert batch.max_timestamp() == timestamp
        assert batch.timestamp_type() is CREATE_TIME
        assert batch.producer_epoch() == NO_PRODUCER_EPOCH
        assert batch.producer_id() == NO_PRODUCER_ID
        assert batch.base_sequence() == NO_SEQUENCE
    assert validated_results.max_timestamp_ms == timestamp
    assert validated_results.shallow_offset_of_max_timestamp == 2, \
        "Offset of max timestamp should be the last offset 2."
    assert validated_results.message_size_maybe_changed, "Message size should have been changed"

    verify_record_validation_stats(validated_results.record_validation_stats, 3, records, compressed=True)


def test_compressed_v1() -> None:
    check_compressed(MAGIC_VALUE_V1)


def check_compressed(magic: int) -> None:
    now = time.milliseconds()
    # offset 1 holds the max timestamp
    timestamp_seq = [now - 1, now + 1, now]

    producer_id, producer_epoch, base_sequence, is_transactional, partition_leader_epoch = _producer_state(magic)

    record_list = [SimpleRecord.of(timestamp_seq[0], None, b"hello"), SimpleRecord.of(timestamp_seq[1], None, b"there"),
                   SimpleRecord.of(timestamp_seq[2], None, b"beautiful")]

    records = MemoryRecords.with_records(gzip(), *record_list, magic=magic, initial_offset=0,
                                         timestamp_type=CREATE_TIME, producer_id=producer_id,
                                         producer_epoch=producer_epoch, base_sequence=base_sequence,
                                         partition_leader_epoch=partition_leader_epoch,
                                         is_transactional=is_transactional)

    validated_results = run(LogValidator(records, topic_partition, time, CompressionType.GZIP, gzip(), False, magic,
                                         CREATE_TIME, 1000, 1000, partition_leader_epoch, CLIENT, LATEST))
    validated_records = validated_results.validated_records

    i = 0
    for batch in validated_records.batches():
        assert batch.is_valid()
        assert batch.timestamp_type() is CREATE_TIME
        maybe_check_base_timestamp(timestamp_seq[0], batch)
        assert batch.max_timestamp() == max(r.timestamp() for r in batch)
        assert batch.producer_epoch() == producer_epoch
        assert batch.producer_id() == producer_id
        assert batch.base_sequence() == base_sequence
        assert batch.partition_leader_epoch() == partition_leader_epoch
        for record in batch:
            record.ensure_valid()
            assert record.timestamp() == timestamp_seq[i]
            i += 1
    assert validated_results.max_timestamp_ms == now + 1, f"Max timestamp should be {now + 1}"

    assert validated_results.shallow_offset_of_max_timestamp == 2, "Shallow offset of max timestamp should be 2"
    assert not validated_results.message_size_maybe_changed, "Message size should not have been changed"

    verify_record_validation_stats(validated_results.record_validation_stats, 0, records, compressed=True)


@pytest.mark.parametrize("code,compression", [(0, "gzip"), (1, "gzip"), (0, "lz4"), (1, "lz4"), (0, "snappy"),
                                              (1, "snappy")])
def test_invalid_checksum(code: int, compression: str) -> None:
    check_invalid_checksum(code, Compression.of(compression).build(), CompressionType.for_name(compression))


def check_invalid_checksum(magic: int, compression: Compression, compression_type: CompressionType) -> None:
    record = LegacyRecord.create(magic, 0, None, b"hello")
    buf = record.buffer()

    # break the CRC
    buf[legacy_record.CRC_OFFSET] = 0

    builder = MemoryRecords.builder(bytearray(), magic, compression, CREATE_TIME, 0)
    builder.append_unchecked_with_offset(0, record)

    memory_records = builder.build()
    log_validator = LogValidator(memory_records, topic_partition, time, compression_type, compression, False, magic,
                                 CREATE_TIME, 1000, 1000, NO_PARTITION_LEADER_EPOCH, CLIENT, LATEST)

    metrics_recorder = RecordingMetricsRecorder()
    with pytest.raises(CorruptRecordException):
        run(log_validator, 0, metrics_recorder)

    assert metrics_recorder.invalid_checksums > 0


def test_compressed_v2() -> None:
    check_compressed(MAGIC_VALUE_V2)


def _assert_invalid_create_time(records_magic: int, codec: Compression, source: CompressionType,
                                to_magic: int) -> None:
    now = time.milliseconds()
    records = create_records(magic_value=records_magic, timestamp=now - 1001, codec=codec)
    with pytest.raises(RecordValidationException):
        run(LogValidator(records, topic_partition, time, source, codec, False, to_magic, CREATE_TIME, 1000, 1000,
                         NO_PARTITION_LEADER_EPOCH, CLIENT, LATEST))


def test_invalid_create_time_non_compressed_v1() -> None:
    _assert_invalid_create_time(MAGIC_VALUE_V1, Compression.NONE, CompressionType.NONE, MAGIC_VALUE_V1)


def test_invalid_create_time_non_compressed_v2() -> None:
    _assert_invalid_create_time(MAGIC_VALUE_V2, Compression.NONE, CompressionType.NONE, MAGIC_VALUE_V2)


def test_invalid_create_time_compressed_v1() -> None:
    _assert_invalid_create_time(MAGIC_VALUE_V1, gzip(), CompressionType.GZIP, MAGIC_VALUE_V1)


def test_invalid_create_time_compressed_v2() -> None:
    # Kafka's case validates these v2 records towards magic v1
    _assert_invalid_create_time(MAGIC_VALUE_V2, gzip(), CompressionType.GZIP, MAGIC_VALUE_V1)


def test_absolute_offset_assignment_non_compressed() -> None:
    records = create_records(magic_value=MAGIC_VALUE_V0, codec=Compression.NONE)
    offset = 1234567
    check_offsets(records, 0)
    check_offsets(run(LogValidator(records, topic_partition, time, CompressionType.NONE, Compression.NONE, False,
                                   MAGIC_VALUE_V0, CREATE_TIME, 1000, 1000, NO_PARTITION_LEADER_EPOCH, CLIENT, LATEST),
                      offset).validated_records, offset)


def test_absolute_offset_assignment_compressed() -> None:
    compression = gzip()
    records = create_records(magic_value=MAGIC_VALUE_V0, codec=compression)
    offset = 1234567
    check_offsets(records, 0)
    check_offsets(run(LogValidator(records, topic_partition, time, CompressionType.GZIP, compression, False,
                                   MAGIC_VALUE_V0, CREATE_TIME, 1000, 1000, NO_PARTITION_LEADER_EPOCH, CLIENT, LATEST),
                      offset).validated_records, offset)


def _check_relative_offset_assignment(magic: int, codec: Compression, source: CompressionType) -> None:
    now = time.milliseconds()
    records = create_records(magic_value=magic, timestamp=now, codec=codec)
    offset = 1234567
    check_offsets(records, 0)
    message_with_offset = run(LogValidator(records, topic_partition, time, source, codec, False, magic, CREATE_TIME,
                                           5000, 5000, NO_PARTITION_LEADER_EPOCH, CLIENT, LATEST),
                              offset).validated_records
    check_offsets(message_with_offset, offset)


def test_relative_offset_assignment_non_compressed_v1() -> None:
    _check_relative_offset_assignment(MAGIC_VALUE_V1, Compression.NONE, CompressionType.NONE)


def test_relative_offset_assignment_non_compressed_v2() -> None:
    _check_relative_offset_assignment(MAGIC_VALUE_V2, Compression.NONE, CompressionType.NONE)


def test_relative_offset_assignment_compressed_v1() -> None:
    _check_relative_offset_assignment(MAGIC_VALUE_V1, gzip(), CompressionType.GZIP)


def test_relative_offset_assignment_compressed_v2() -> None:
    _check_relative_offset_assignment(MAGIC_VALUE_V2, gzip(), CompressionType.GZIP)


def _check_up_conversion_from_v0(to_magic: int, codec: Compression, source: CompressionType) -> None:
    records = create_records(magic_value=MAGIC_VALUE_V0, codec=codec)
    checked = records
    offset = 1234567
    check_offsets(checked, 0)
    validated_results = run(LogValidator(records, topic_partition, time, source, codec, False, to_magic,
                                         LOG_APPEND_TIME, 1000, 1000, NO_PARTITION_LEADER_EPOCH, CLIENT, LATEST),
                            offset)
    check_offsets(validated_results.validated_records, offset)
    verify_record_validation_stats(validated_results.record_validation_stats, 3, records,
                                   compressed=source is not CompressionType.NONE)


def test_offset_assignment_after_up_conversion_v0_to_v1_non_compressed() -> None:
    _check_up_conversion_from_v0(MAGIC_VALUE_V1, Compression.NONE, CompressionType.NONE)


def test_offset_assignment_after_up_conversion_v0_to_v2_non_compressed() -> None:
    _check_up_conversion_from_v0(MAGIC_VALUE_V2, Compression.NONE, CompressionType.NONE)


def test_offset_assignment_after_up_conversion_v0_to_v1_compressed() -> None:
    _check_up_conversion_from_v0(MAGIC_VALUE_V1, gzip(), CompressionType.GZIP)


def test_offset_assignment_after_up_conversion_v0_to_v2_compressed() -> None:
    _check_up_conversion_from_v0(MAGIC_VALUE_V2, gzip(), CompressionType.GZIP)


def test_control_records_not_allowed_from_clients() -> None:
    offset = 1234567
    end_txn_marker = EndTransactionMarker(ControlRecordType.COMMIT, 0)
    records = MemoryRecords.with_end_transaction_marker(23423, 5, end_txn_marker)
    with pytest.raises(InvalidRecordException):
        run(LogValidator(records, topic_partition, time, CompressionType.NONE, Compression.NONE, False,
                         CURRENT_MAGIC_VALUE, CREATE_TIME, 5000, 5000, NO_PARTITION_LEADER_EPOCH, CLIENT, LATEST),
            offset)


def test_control_records_not_compressed() -> None:
    offset = 1234567
    end_txn_marker = EndTransactionMarker(ControlRecordType.COMMIT, 0)
    records = MemoryRecords.with_end_transaction_marker(23423, 5, end_txn_marker)
    result = run(LogValidator(records, topic_partition, time, CompressionType.NONE, Compression.snappy().build(),
                              False, CURRENT_MAGIC_VALUE, CREATE_TIME, 5000, 5000, NO_PARTITION_LEADER_EPOCH,
                              AppendOrigin.COORDINATOR, LATEST), offset)
    batches = list(result.validated_records.batches())
    assert len(batches) == 1
    batch = batches[0]
    assert not batch.is_compressed()


def _check_conversion(records_magic: int, to_magic: int, codec: Compression, source: CompressionType,
                      timestamp_type: TimestampType, before_after_ms: int, with_timestamp: bool) -> None:
    offset = 1234567
    now = time.milliseconds()
    records = create_records(magic_value=records_magic, timestamp=now if with_timestamp else NO_TIMESTAMP,
                             codec=codec)
    check_offsets(records, 0)
    check_offsets(run(LogValidator(records, topic_partition, time, source, codec, False, to_magic, timestamp_type,
                                   before_after_ms, before_after_ms, NO_PARTITION_LEADER_EPOCH, CLIENT, LATEST),
                      offset).validated_records, offset)


def test_offset_assignment_after_down_conversion_v1_to_v0_non_compressed() -> None:
    _check_conversion(MAGIC_VALUE_V1, MAGIC_VALUE_V0, Compression.NONE, CompressionType.NONE, CREATE_TIME, 5000, True)


def test_offset_assignment_after_down_conversion_v1_to_v0_compressed() -> None:
    _check_conversion(MAGIC_VALUE_V1, MAGIC_VALUE_V0, gzip(), CompressionType.GZIP, CREATE_TIME, 5000, True)


def test_offset_assignment_after_up_conversion_v1_to_v2_non_compressed() -> None:
    _check_conversion(MAGIC_VALUE_V1, MAGIC_VALUE_V2, Compression.NONE, CompressionType.NONE, LOG_APPEND_TIME, 1000,
                      False)


def test_offset_assignment_after_up_conversion_v1_to_v2_compressed() -> None:
    _check_conversion(MAGIC_VALUE_V1, MAGIC_VALUE_V2, gzip(), CompressionType.GZIP, LOG_APPEND_TIME, 1000, False)


def test_offset_assignment_after_down_conversion_v2_to_v1_non_compressed() -> None:
    _check_conversion(MAGIC_VALUE_V2, MAGIC_VALUE_V1, Compression.NONE, CompressionType.NONE, CREATE_TIME, 5000, True)


def test_offset_assignment_after_down_conversion_v2_to_v1_compressed() -> None:
    _check_conversion(MAGIC_VALUE_V2, MAGIC_VALUE_V1, gzip(), CompressionType.GZIP, CREATE_TIME, 5000, True)


def test_down_conversion_of_transactional_records_not_permitted() -> None:
    offset = 1234567
    producer_id = 1344
    producer_epoch = 16
    sequence = 0
    records = MemoryRecords.with_transactional_records(Compression.NONE, producer_id, producer_epoch, sequence,
                                                       SimpleRecord(b"hello"), SimpleRecord(b"there"),
                                                       SimpleRecord(b"beautiful"))
    with pytest.raises(UnsupportedForMessageFormatException):
        run(LogValidator(records, topic_partition, time, CompressionType.GZIP, gzip(), False, MAGIC_VALUE_V1,
                         CREATE_TIME, 5000, 5000, NO_PARTITION_LEADER_EPOCH, CLIENT, LATEST), offset)


def test_down_conversion_of_idempotent_records_not_permitted() -> None:
    offset = 1234567
    producer_id = 1344
    producer_epoch = 16
    sequence = 0
    records = MemoryRecords.with_idempotent_records(Compression.NONE, producer_id, producer_epoch, sequence,
                                                    SimpleRecord(b"hello"), SimpleRecord(b"there"),
                                                    SimpleRecord(b"beautiful"))
    with pytest.raises(UnsupportedForMessageFormatException):
        run(LogValidator(records, topic_partition, time, CompressionType.GZIP, gzip(), False, MAGIC_VALUE_V1,
                         CREATE_TIME, 5000, 5000, NO_PARTITION_LEADER_EPOCH, CLIENT, LATEST), offset)


def test_offset_assignment_after_down_conversion_v2_to_v0_non_compressed() -> None:
    _check_conversion(MAGIC_VALUE_V2, MAGIC_VALUE_V0, Compression.NONE, CompressionType.NONE, CREATE_TIME, 5000, True)


def test_offset_assignment_after_down_conversion_v2_to_v0_compressed() -> None:
    _check_conversion(MAGIC_VALUE_V2, MAGIC_VALUE_V0, gzip(), CompressionType.GZIP, CREATE_TIME, 5000, True)


def test_non_increasing_offset_record_batch_has_metrics_logged() -> None:
    records = create_non_increasing_offset_records(MAGIC_VALUE_V2)
    next(iter(records.batches())).set_last_offset(2)
    metrics_recorder = RecordingMetricsRecorder()
    with pytest.raises(InvalidRecordException):
        run(LogValidator(records, topic_partition, time, CompressionType.GZIP, gzip(), False, MAGIC_VALUE_V0,
                         CREATE_TIME, 5000, 5000, NO_PARTITION_LEADER_EPOCH, CLIENT, LATEST), 0, metrics_recorder)
    assert metrics_recorder.invalid_offset > 0


def test_compressed_batch_without_records_not_allowed() -> None:
    check_batch_without_records_not_allowed(CompressionType.GZIP, gzip())


def test_z_std_compressed_with_unavailable_ibp_version() -> None:
    records = create_records(magic_value=MAGIC_VALUE_V2, timestamp=1234, codec=Compression.NONE)
    with pytest.raises(UnsupportedCompressionTypeException):
        run(LogValidator(records, topic_partition, time, CompressionType.NONE, Compression.zstd().build(), False,
                         MAGIC_VALUE_V2, LOG_APPEND_TIME, 1000, 1000, NO_PARTITION_LEADER_EPOCH, CLIENT,
                         MetadataVersion.IBP_2_0_IV1))


def test_uncompressed_batch_without_records_not_allowed() -> None:
    check_batch_without_records_not_allowed(CompressionType.NONE, Compression.NONE)


def test_recompressed_batch_without_records_not_allowed() -> None:
    check_batch_without_records_not_allowed(CompressionType.NONE, gzip())


def test_invalid_timestamp_exception_has_batch_index() -> None:
    now = time.milliseconds()
    compression = gzip()
    records = create_records(magic_value=MAGIC_VALUE_V2, timestamp=now - 1001, codec=compression)
    with pytest.raises(RecordValidationException) as info:
        run(LogValidator(records, topic_partition, time, CompressionType.GZIP, compression, False, MAGIC_VALUE_V1,
                         CREATE_TIME, 1000, 1000, NO_PARTITION_LEADER_EPOCH, CLIENT, LATEST))
    e = info.value

    assert isinstance(e.invalid_exception(), InvalidTimestampException)
    assert e.record_errors()
    assert len(e.record_errors()) == 3


def test_invalid_record_exception_has_batch_index() -> None:
    compression = gzip()
    with pytest.raises(RecordValidationException) as info:
        validate_messages(records_with_invalid_inner_magic(MAGIC_VALUE_V0, MAGIC_VALUE_V1, compression),
                          MAGIC_VALUE_V0, CompressionType.GZIP, compression)
    e = info.value

    assert isinstance(e.invalid_exception(), InvalidRecordException)
    assert e.record_errors()
    # records_with_invalid_inner_magic writes 20 records
    assert len(e.record_errors()) == 20
    for record_error in e.record_errors():
        assert record_error is not None


def test_batch_with_invalid_records_and_invalid_timestamp() -> None:
    compression = gzip()
    records = [LegacyRecord.create(MAGIC_VALUE_V0, 0, None, str(id).encode()) for id in range(5)]

    builder = MemoryRecords.builder(bytearray(), MAGIC_VALUE_V1, compression, CREATE_TIME, 0)
    offset = 0

    # one record with a timestamp out of range among the others
    builder.append_unchecked_with_offset(offset, LegacyRecord.create(MAGIC_VALUE_V1, 1200, None, b"timestamp"))
    for record in records:
        offset += 30
        builder.append_unchecked_with_offset(offset, record)
    invalid_offset_timestamp_records = builder.build()

    with pytest.raises(RecordValidationException) as info:
        validate_messages(invalid_offset_timestamp_records, MAGIC_VALUE_V0, CompressionType.GZIP, compression)
    e = info.value
    # with both kinds of record error, the timestamp error decides the exception
    assert isinstance(e.invalid_exception(), InvalidTimestampException)
    assert e.record_errors()
    assert len(e.record_errors()) == 6


def _check_out_of_range_timestamp_rejected(timestamp_of: str) -> None:
    timestamp_before_max_config = 24 * 60 * 60 * 1000  # 24 hours
    timestamp_after_max_config = 1 * 60 * 60 * 1000  # 1 hour
    now = time.milliseconds()
    if timestamp_of == "past":
        timestamp = now - timestamp_before_max_config - (5 * 60 * 1000)
    else:
        timestamp = now + timestamp_after_max_config + (5 * 60 * 1000)
    compression = gzip()
    records = create_records(magic_value=MAGIC_VALUE_V2, timestamp=timestamp, codec=compression)
    with pytest.raises(RecordValidationException) as info:
        run(LogValidator(records, topic_partition, time, CompressionType.GZIP, compression, False, MAGIC_VALUE_V2,
                         CREATE_TIME, timestamp_before_max_config, timestamp_after_max_config,
                         NO_PARTITION_LEADER_EPOCH, CLIENT, LATEST))
    e = info.value

    assert isinstance(e.invalid_exception(), InvalidTimestampException)
    assert e.record_errors()
    assert len(e.record_errors()) == 3


def test_record_with_past_timestamp_is_rejected() -> None:
    _check_out_of_range_timestamp_rejected("past")


def test_record_with_future_timestamp_is_rejected() -> None:
    _check_out_of_range_timestamp_rejected("future")


def test_different_level_does_not_cause_recompression() -> None:
    records = [b"some" * 256, b"data" * 256]
    # the producer compressed with gzip's max level
    gzip_max = Compression.gzip().level(CompressionType.GZIP.max_level()).build()
    records_gzip_max = create_records_of(records, MAGIC_VALUE_V2, NO_TIMESTAMP, gzip_max)

    # the topic is configured with gzip's min level
    gzip_min = Compression.gzip().level(CompressionType.GZIP.min_level()).build()
    records_gzip_min = create_records_of(records, MAGIC_VALUE_V2, NO_TIMESTAMP, gzip_min)

    # the two levels give different bytes
    assert records_gzip_max != records_gzip_min
    validator = LogValidator(records_gzip_max, topic_partition, time, gzip_max.type(), gzip_min, False, MAGIC_VALUE_V2,
                             CREATE_TIME, 5000, 5000, NO_PARTITION_LEADER_EPOCH, CLIENT, LATEST)
    result = run(validator)
    # the producer's records are kept as they came
    assert result.validated_records == records_gzip_max
    assert result.validated_records != records_gzip_min


def test_different_codec_causes_recompression() -> None:
    records = [b"some" * 256, b"data" * 256]
    # the producer compressed with gzip's max level
    gzip_max = Compression.gzip().level(CompressionType.GZIP.max_level()).build()
    records_gzip_max = create_records_of(records, MAGIC_VALUE_V2, NO_TIMESTAMP, gzip_max)

    # the topic is configured with lz4's min level
    lz4_min = Compression.lz4().level(CompressionType.LZ4.min_level()).build()
    records_lz4_min = create_records_of(records, MAGIC_VALUE_V2, NO_TIMESTAMP, lz4_min)

    validator = LogValidator(records_gzip_max, topic_partition, time, gzip_max.type(), lz4_min, False, MAGIC_VALUE_V2,
                             CREATE_TIME, 5000, 5000, NO_PARTITION_LEADER_EPOCH, CLIENT, LATEST)
    result = run(validator)
    # recompressed: the same bytes as lz4 at its min level
    assert result.validated_records == records_lz4_min


def check_batch_without_records_not_allowed(source_compression: CompressionType,
                                            target_compression: Compression) -> None:
    offset = 1234567
    producer_id, producer_epoch, base_sequence, is_transactional, partition_leader_epoch = 1324, 10, 984, True, 40
    buffer = bytearray(default_record_batch.RECORD_BATCH_OVERHEAD)
    default_record_batch.write_empty_header(buffer, 0, CURRENT_MAGIC_VALUE, producer_id, producer_epoch,
                                            base_sequence, 0, 5, partition_leader_epoch, CREATE_TIME,
                                            time.milliseconds(), is_transactional, False)
    records = MemoryRecords.readable_records(buffer)
    with pytest.raises(InvalidRecordException):
        run(LogValidator(records, topic_partition, time, source_compression, target_compression, False,
                         CURRENT_MAGIC_VALUE, CREATE_TIME, 5000, 5000, NO_PARTITION_LEADER_EPOCH, CLIENT, LATEST),
            offset)


def create_records(magic_value: int, codec: Compression, timestamp: int = NO_TIMESTAMP) -> MemoryRecords:
    return create_records_of([b"hello", b"there", b"beautiful"], magic_value, timestamp, codec)


def create_records_of(records: list[bytes], magic_value: int, timestamp: int, codec: Compression) -> MemoryRecords:
    builder = MemoryRecords.builder(bytearray(), magic_value, codec, CREATE_TIME, 0)
    for offset, value in enumerate(records):
        builder.append_with_offset(offset, timestamp, None, value)
    return builder.build()


def create_non_increasing_offset_records(magic_value: int, timestamp: int = NO_TIMESTAMP,
                                         codec: Compression = Compression.NONE) -> MemoryRecords:
    builder = MemoryRecords.builder(bytearray(), magic_value, codec, CREATE_TIME, 0)
    builder.append_with_offset(0, timestamp, None, b"hello")
    builder.append_with_offset(2, timestamp, None, b"there")
    builder.append_with_offset(3, timestamp, None, b"beautiful")
    return builder.build()


def create_two_batched_records(magic_value: int, codec: Compression) -> MemoryRecords:
    buf = bytearray()
    builder = MemoryRecords.builder(buf, magic_value, codec, CREATE_TIME, 0)
    builder.append(10, b"1", b"a")
    builder.close()
    builder = MemoryRecords.builder(buf, magic_value, codec, CREATE_TIME, 1)
    builder.append(11, b"2", b"b")
    builder.append(12, b"3", b"c")
    builder.close()
    return MemoryRecords.readable_records(buf)


def check_offsets(records: MemoryRecords, base_offset: int) -> None:
    """The offsets run consecutively from `base_offset`."""
    entries = list(records.records())
    assert entries, "Message set should not be empty"
    offset = base_offset
    for entry in entries:
        assert entry.offset() == offset, "Unexpected offset in message set iterator"
        offset += 1


def records_with_non_sequential_inner_offsets(magic_value: int, compression: Compression,
                                              num_records: int) -> MemoryRecords:
    records = [SimpleRecord(str(id).encode()) for id in range(num_records)]
    builder = MemoryRecords.builder(bytearray(), magic_value, compression, CREATE_TIME, 0)
    for record in records:
        builder.append_unchecked_with_offset(0, record)
    return builder.build()


def records_with_invalid_inner_magic(batch_magic_value: int, record_magic_value: int,
                                     codec: Compression) -> MemoryRecords:
    records = [LegacyRecord.create(record_magic_value, NO_TIMESTAMP, str(id).encode(), str(id).encode())
               for id in range(20)]
    builder = MemoryRecords.builder(bytearray(), batch_magic_value, codec, CREATE_TIME, 0)
    offset = 1234567
    for record in records:
        builder.append_unchecked_with_offset(offset, record)
        offset += 1
    return builder.build()


def maybe_check_base_timestamp(expected: int, batch: RecordBatch) -> None:
    if isinstance(batch, DefaultRecordBatch):
        assert batch.base_timestamp() == expected, f"Unexpected base timestamp of batch {batch}"


def validate_log_append_time(expected_log_append_time: int, expected_base_timestamp: int,
                             batch: RecordBatch) -> None:
    """expected_log_append_time is checked on v2+ batches only."""
    assert batch.is_valid()
    assert batch.timestamp_type() is LOG_APPEND_TIME
    assert batch.max_timestamp() == expected_log_append_time, f"Unexpected max timestamp of batch {batch}"
    maybe_check_base_timestamp(expected_base_timestamp, batch)
    for record in batch:
        record.ensure_valid()
        assert record.timestamp() == expected_log_append_time, f"Unexpected timestamp of record {record}"


def verify_record_validation_stats(stats: RecordValidationStats, num_converted_records: int, records: MemoryRecords,
                                   compressed: bool) -> None:
    assert stats is not None, "Records processing info is null"
    assert stats.num_records_converted() == num_converted_records
    if num_converted_records > 0:
        assert stats.conversion_time_nanos() >= 0, f"Conversion time not recorded {stats}"
        assert stats.conversion_time_nanos() <= 60 * 1_000_000_000, f"Conversion time not valid {stats}"
    original_size = records.size_in_bytes()
    temp_bytes = stats.temporary_memory_bytes()
    if num_converted_records > 0 and compressed:
        assert temp_bytes > original_size, f"Temp bytes too small, orig={original_size} actual={temp_bytes}"
    elif num_converted_records > 0 or compressed:
        assert temp_bytes > 0, "Temp bytes not updated"
    else:
        assert temp_bytes == 0

