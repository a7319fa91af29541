"""Port of core/src/test/scala/unit/kafka/log/LogTest.scala (Kafka 1.0.2).

The log runs on kafka.utils.MockTime and its MockScheduler (tests/kafka_tests/mock_scheduler.py), as Kafka's test
does: the flush after a roll, segment file deletion and the producer id expiration check run when the test sleeps
the mock clock past them.

kafka-edu's log stores record batches v2 only (message formats v0/v1 are not built: a Produce request carrying them
gets UNSUPPORTED_VERSION, docs/request-path.md). So the cases about the old formats are not applicable, and
testAppendBelowExpectedOffsetThrowsException and testAppendEmptyLogBelowLogStartOffsetThrowsException loop over
magic v2 only (Kafka also tries v0 and v1 there). MemoryRecords.filterTo (what the log cleaner writes, which
testRebuildProducerIdMapWithCompactedData and its siblings use to make a compacted batch) is ported here as a small
helper for its v2 path: retained records keep their offsets, and the batch keeps its last offset. EasyMock's
ProducerStateManager mocks are ported as a strict recording fake handed to the Log (Kafka's constructor takes one),
testSizeForLargeLogs's mocked LogSegment as a stub whose size is Int.MaxValue, and the LogSegment subclass that
testProducerSnapshotsRecoveryAfterUncleanShutdown's Log wraps every added segment in as the same interception made on
each segment as it is added (its reads and recoveries are recorded, then done as before).
"""

from __future__ import annotations

import os
import random
import shutil
import struct
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kafka_edu.v1_0_2.clients.common.errors import (
    CorruptRecordException,
    KafkaException,
    KafkaStorageException,
    OffsetOutOfRangeException,
    OffsetsOutOfOrderException,
    OutOfOrderSequenceException,
    ProducerFencedException,
    RecordBatchTooLargeException,
    RecordTooLargeException,
    TransactionCoordinatorFencedException,
    UnexpectedAppendOffsetException,
)
from kafka_edu.v1_0_2.clients.common.record.compression_type import CompressionType
from kafka_edu.v1_0_2.clients.common.record.control_record_type import ControlRecordType
from kafka_edu.v1_0_2.clients.common.record.end_transaction_marker import EndTransactionMarker
from kafka_edu.v1_0_2.clients.common.record.file_records import (
    ATTRIBUTES_OFFSET,
    CRC_OFFSET,
    LAST_OFFSET_DELTA_OFFSET,
    NO_PARTITION_LEADER_EPOCH,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    NO_SEQUENCE,
    NO_TIMESTAMP,
    RECORD_BATCH_OVERHEAD,
    FileRecords,
    MemoryRecords,
    TimestampType,
    checksum_crc32c,
)
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import (
    MemoryRecordsBuilder,
    SimpleRecord,
    with_end_transaction_marker,
    with_simple_records,
    with_transactional_records,
)
from kafka_edu.v1_0_2.clients.common.requests.fetch_response import AbortedTransaction
from kafka_edu.v1_0_2.clients.common.requests.isolation_level import IsolationLevel
from kafka_edu.v1_0_2.core.log import producer_state_manager as psm_module
from kafka_edu.v1_0_2.core.log.log import Log
from kafka_edu.v1_0_2.core.log.log_config import LogConfig
from kafka_edu.v1_0_2.core.log.offset_index import OffsetIndex
from kafka_edu.v1_0_2.core.log.transaction_index import AbortedTxn
from kafka_edu.v1_0_2.core.server.epoch.leader_epoch_file_cache import EpochEntry
from kafka_edu.v1_0_2.core.server.log_dir_failure_channel import LogDirFailureChannel
from tests.kafka_tests.mock_scheduler import MockTimeWithScheduler
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import retry, singleton_records, temp_dir

KAFKA = kafka_test_class(
    "1.0.2", "core/src/test/scala/unit/kafka/log/LogTest.scala",
    cases=[
        "testOffsetFromFile", "testTimeBasedLogRoll", "testNonSequentialAppend",
        "testInitializationOfProducerSnapshotsUpgradePath", "testProducerSnapshotsRecoveryAfterUncleanShutdown",
        "testSizeForLargeLogs", "testProducerIdMapOffsetUpdatedForNonIdempotentData",
        "testSkipLoadingIfEmptyProducerStateBeforeTruncation",
        "testSkipTruncateAndReloadIfOldMessageFormatAndNoCleanShutdown",
        "testSkipTruncateAndReloadIfOldMessageFormatAndCleanShutdown",
        "testSkipTruncateAndReloadIfNewMessageFormatAndCleanShutdown", "testRebuildProducerIdMapWithCompactedData",
        "testRebuildProducerStateWithEmptyCompactedBatch", "testUpdateProducerIdMapWithCompactedData",
        "testProducerIdMapTruncateTo", "testProducerIdMapTruncateToWithNoSnapshots",
        "testLoadProducersAfterDeleteRecordsMidSegment", "testLoadProducersAfterDeleteRecordsOnSegment",
        "testProducerIdMapTruncateFullyAndStartAt", "testProducerIdExpirationOnSegmentDeletion",
        "testTakeSnapshotOnRollAndDeleteSnapshotOnRecoveryPointCheckpoint",
        "testProducerSnapshotAfterSegmentRollOnAppend", "testRebuildTransactionalState",
        "testPeriodicProducerIdExpiration", "testDuplicateAppends", "testMultipleProducerIdsPerMemoryRecord",
        "testDuplicateAppendToFollower", "testMultipleProducersWithDuplicatesInSingleAppend", "testOldProducerEpoch",
        "testTimeBasedLogRollJitter", "testSizeBasedLogRoll", "testLoadEmptyLog",
        "testAppendAndReadWithSequentialOffsets", "testAppendAndReadWithNonSequentialOffsets", "testReadAtLogGap",
        "testLogRollAfterLogHandlerClosed", "testReadWithMinMessage", "testReadWithTooSmallMaxLength",
        "testReadOutOfRange", "testLogRolls", "testCompressedMessages",
        "testThatGarbageCollectingSegmentsDoesntChangeOffset", "testMessageSetSizeCheck",
        "testCompactedTopicConstraints", "testMessageSizeCheck", "testLogRecoversToCorrectOffset",
        "testBuildTimeIndexWhenNotAssigningOffsets", "testIndexRebuild", "testRebuildTimeIndexForOldMessages",
        "testCorruptIndexRebuild", "testTruncateTo", "testIndexResizingAtTruncation",
        "testBogusIndexSegmentsAreRemoved", "testReopenThenTruncate", "testAsyncDelete",
        "testOpenDeletesObsoleteFiles", "testAppendMessageWithNullPayload",
        "testAppendWithOutOfOrderOffsetsThrowsException", "testAppendBelowExpectedOffsetThrowsException",
        "testAppendEmptyLogBelowLogStartOffsetThrowsException", "testAppendWithNoTimestamp", "testCorruptLog",
        "testOverCompactedLogRecovery", "testCleanShutdownFile", "testParseTopicPartitionName",
        "testParseTopicPartitionNameWithPeriodForDeletedTopic", "testParseTopicPartitionNameForEmptyName",
        "testParseTopicPartitionNameForNull", "testParseTopicPartitionNameForMissingSeparator",
        "testParseTopicPartitionNameForMissingTopic", "testParseTopicPartitionNameForMissingPartition",
        "testParseTopicPartitionNameForInvalidPartition", "testParseTopicPartitionNameForExistingInvalidDir",
        "testLogDeletionAfterClose", "testDeleteOldSegments", "testLogDeletionAfterDeleteRecords",
        "shouldDeleteSizeBasedSegments", "shouldNotDeleteSizeBasedSegmentsWhenUnderRetentionSize",
        "shouldDeleteTimeBasedSegmentsReadyToBeDeleted", "shouldNotDeleteTimeBasedSegmentsWhenNoneReadyToBeDeleted",
        "shouldNotDeleteSegmentsWhenPolicyDoesNotIncludeDelete",
        "shouldDeleteSegmentsReadyToBeDeletedWhenCleanupPolicyIsCompactAndDelete",
        "shouldApplyEpochToMessageOnAppendIfLeader",
        "followerShouldSaveEpochInformationFromReplicatedMessagesToTheEpochCache",
        "shouldTruncateLeaderEpochsWhenDeletingSegments", "shouldUpdateOffsetForLeaderEpochsWhenDeletingSegments",
        "shouldTruncateLeaderEpochFileWhenTruncatingLog", "testLogRecoversForLeaderEpoch",
        "testFirstUnstableOffsetWithTransactionalData", "testTransactionIndexUpdated",
        "testFullTransactionIndexRecovery", "testRecoverOnlyLastSegment", "testRecoverLastSegmentWithNoSnapshots",
        "testTransactionIndexUpdatedThroughReplication", "testZombieCoordinatorFenced",
        "testFirstUnstableOffsetDoesNotExceedLogStartOffsetMidSegment",
        "testFirstUnstableOffsetDoesNotExceedLogStartOffsetAfterSegmentDeletion",
        "testLastStableOffsetWithMixedProducerData", "testAbortedTransactionSpanningMultipleSegments",
    ],
    not_applicable={
        "testSkipTruncateAndReloadIfOldMessageFormatAndNoCleanShutdown":
            "message format 0.10.2 (v1): the port's log stores record batches v2 only (formats v0/v1 not built)",
        "testSkipTruncateAndReloadIfOldMessageFormatAndCleanShutdown":
            "message format 0.10.2 (v1): the port's log stores record batches v2 only (formats v0/v1 not built)",
        "testRebuildTimeIndexForOldMessages":
            "magic v1 messages under format 0.9.0: the port's log stores record batches v2 only "
            "(formats v0/v1 not built)",
    },
)

INT_MAX = 2**31 - 1
_random = random.Random()  # TestUtils.random

# LogConfig's Defaults (Kafka 1.0.2) that createLogConfig starts from.
_DEFAULTS = {
    "segment_ms": 7 * 24 * 60 * 60 * 1000, "segment_bytes": 1024 * 1024 * 1024,
    "retention_ms": 7 * 24 * 60 * 60 * 1000, "retention_bytes": -1, "segment_jitter_ms": 0,
    "cleanup_policy": "delete", "max_message_bytes": 1000000 + 12, "index_interval_bytes": 4096,
    "segment_index_bytes": 10 * 1024 * 1024, "file_delete_delay_ms": 60000,
}


def create_log_config(**overrides: Any) -> LogConfig:
    """createLogConfig: Kafka's LogConfig defaults with the given fields changed."""
    values = {**_DEFAULTS, **overrides}
    return LogConfig.from_props({
        "segment.ms": values["segment_ms"], "segment.bytes": values["segment_bytes"],
        "retention.ms": values["retention_ms"], "retention.bytes": values["retention_bytes"],
        "segment.jitter.ms": values["segment_jitter_ms"], "cleanup.policy": values["cleanup_policy"],
        "max.message.bytes": values["max_message_bytes"], "index.interval.bytes": values["index_interval_bytes"],
        "segment.index.bytes": values["segment_index_bytes"], "file.delete.delay.ms": values["file_delete_delay_ms"],
    })


def records(simple_records: list[SimpleRecord], codec: CompressionType = CompressionType.NONE,
            producer_id: int = NO_PRODUCER_ID, producer_epoch: int = NO_PRODUCER_EPOCH, sequence: int = NO_SEQUENCE,
            base_offset: int = 0, partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH) -> MemoryRecords:
    """TestUtils.records (magic v2, CreateTime)."""
    return with_simple_records(simple_records, base_offset, codec, TimestampType.CREATE_TIME, producer_id,
                               producer_epoch, sequence, partition_leader_epoch)


def build_batch(buffer: bytearray, *, compression: CompressionType, timestamp_type: TimestampType,
                base_offset: int, log_append_time: int, producer_id: int = NO_PRODUCER_ID,
                producer_epoch: int = NO_PRODUCER_EPOCH, base_sequence: int = NO_SEQUENCE,
                is_transactional: bool = False, partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH,
                values: list[SimpleRecord]) -> None:
    """MemoryRecords.builder(buffer, ...) + append + close: write one batch at the end of `buffer`."""
    builder = MemoryRecordsBuilder(compression, timestamp_type, base_offset, log_append_time, producer_id,
                                   producer_epoch, base_sequence, is_transactional, partition_leader_epoch)
    for record in values:
        builder.append(record.timestamp, record.key, record.value, list(record.headers))
    buffer.extend(builder.build().buffer)


def filter_to(memory_records: MemoryRecords, should_retain: Callable[[Any], bool],
              retain_empty: bool) -> MemoryRecords:
    """MemoryRecords.filterTo for v2 batches: drop the records `should_retain` refuses, keep each batch's offsets,
    producer fields and last offset; an emptied batch is dropped (DELETE_EMPTY) or kept as a bare header
    (RETAIN_EMPTY)."""
    out = bytearray()
    for batch in memory_records.batches():
        retained = [record for record in batch.records() if should_retain(record)]
        if retained:
            builder = MemoryRecordsBuilder(batch.compression_type, batch.timestamp_type, batch.base_offset,
                                           batch.max_timestamp, batch.producer_id, batch.producer_epoch,
                                           batch.base_sequence, batch.is_transactional, batch.partition_leader_epoch)
            for record in retained:
                builder.append_with_offset(record.offset, record)
            written = bytearray(builder.build().buffer)
        elif retain_empty:
            written = bytearray(RECORD_BATCH_OVERHEAD)
            attributes = batch.attributes & ~0x07  # no records: no codec
            struct.pack_into(">qiibIhiqqqhii", written, 0, batch.base_offset, RECORD_BATCH_OVERHEAD - 12,
                             batch.partition_leader_epoch, 2, 0, attributes, 0, batch.max_timestamp,
                             batch.max_timestamp, batch.producer_id, batch.producer_epoch, batch.base_sequence, 0)
        else:
            continue
        # builder.overrideLastOffset(originalBatch.lastOffset): the last sequence survives compaction
        struct.pack_into(">i", written, LAST_OFFSET_DELTA_OFFSET, batch.last_offset - batch.base_offset)
        struct.pack_into(">I", written, CRC_OFFSET, checksum_crc32c(memoryview(written)[ATTRIBUTES_OFFSET:]))
        out.extend(written)
    return MemoryRecords(out)


def batches_of(info: Any) -> list[Any]:
    """fetchDataInfo.records.batches, each loaded whole."""
    if info.records is None:
        return []
    return [batch.load_full_batch() for batch in info.records.batches()]


def records_of(info: Any) -> list[Any]:
    """fetchDataInfo.records.records."""
    return [record for batch in batches_of(info) for record in batch.records()]


def segment_records(segment: Any) -> list[Any]:
    return [record for batch in segment.log.batches() for record in batch.load_full_batch().records()]


def simple(record: Any) -> SimpleRecord:
    """new SimpleRecord(record)."""
    return SimpleRecord(record.value, record.key, record.timestamp, tuple(record.headers))


class LogTestContext:
    """The test class's fields: tmpDir, logDir (a random partition dir in it), kafka.utils.MockTime."""

    def __init__(self) -> None:
        self.tmp_dir = temp_dir()
        self.log_dir = self.tmp_dir / f"kafka-{_random.randrange(1000000)}"
        self.log_dir.mkdir()
        self.mock_time = MockTimeWithScheduler()

    def create_log(self, config: LogConfig, log_start_offset: int = 0, recovery_point: int = 0,
                   max_producer_id_expiration_ms: int = 60 * 60 * 1000,
                   producer_id_expiration_check_interval_ms: int = 10 * 60 * 1000,
                   log_class: type[Log] = Log, **kwargs: Any) -> Log:
        return log_class(self.log_dir, config, log_start_offset=log_start_offset, recovery_point=recovery_point,
                         scheduler=self.mock_time.scheduler, time_ms=self.mock_time.milliseconds,
                         log_dir_failure_channel=LogDirFailureChannel(10),
                         max_producer_id_expiration_ms=max_producer_id_expiration_ms,
                         producer_id_expiration_check_interval_ms=producer_id_expiration_check_interval_ms,
                         **kwargs)

    def create_empty_logs(self, *offsets: int) -> None:
        for offset in offsets:
            Log.log_file(self.log_dir, offset).touch()
            Log.offset_index_file(self.log_dir, offset).touch()

    def create_clean_shutdown_file(self) -> Path:
        parent = self.log_dir.parent
        assert parent.is_dir()
        clean_shutdown_file = parent / Log.CleanShutdownFile
        clean_shutdown_file.touch()
        assert clean_shutdown_file.exists()
        return clean_shutdown_file

    def delete_producer_snapshot_files(self) -> None:
        for f in self.log_dir.iterdir():
            if f.is_file() and f.name.endswith(Log.ProducerSnapshotFileSuffix):
                f.unlink()

    def list_producer_snapshot_offsets(self) -> list[int]:
        return sorted(Log.offset_from_file(f) for f in psm_module.list_snapshot_files(self.log_dir))

    def end_txn_records(self, control_type: ControlRecordType, producer_id: int, epoch: int, offset: int = 0,
                        coordinator_epoch: int = 0, partition_leader_epoch: int = 0) -> MemoryRecords:
        marker = EndTransactionMarker(control_type, coordinator_epoch)
        return with_end_transaction_marker(producer_id, epoch, marker, offset, self.mock_time.milliseconds(),
                                           partition_leader_epoch)

    def append_end_txn_marker_as_leader(self, log: Log, producer_id: int, producer_epoch: int,
                                        control_type: ControlRecordType, coordinator_epoch: int = 0) -> None:
        log.append_as_leader(self.end_txn_records(control_type, producer_id, producer_epoch,
                                                  coordinator_epoch=coordinator_epoch),
                             is_from_client=False, leader_epoch=0)

    def append_end_txn_marker_to_buffer(self, buffer: bytearray, producer_id: int, producer_epoch: int, offset: int,
                                        control_type: ControlRecordType, coordinator_epoch: int = 0) -> None:
        marker = EndTransactionMarker(control_type, coordinator_epoch)
        buffer.extend(with_end_transaction_marker(producer_id, producer_epoch, marker, offset,
                                                  self.mock_time.milliseconds(), 0).buffer)


@pytest.fixture
def ctx() -> Iterator[LogTestContext]:
    context = LogTestContext()
    yield context


def append_transactional_as_leader(log: Log, producer_id: int, producer_epoch: int) -> Callable[[int], None]:
    sequence = 0

    def append(num_records: int) -> None:
        nonlocal sequence
        simple_records = [SimpleRecord(f"{seq}".encode()) for seq in range(sequence, sequence + num_records)]
        log.append_as_leader(with_transactional_records(simple_records, producer_id, producer_epoch, sequence),
                             leader_epoch=0)
        sequence += num_records

    return append


def append_non_transactional_as_leader(log: Log, num_records: int) -> None:
    simple_records = [SimpleRecord(f"{seq}".encode()) for seq in range(num_records)]
    log.append_as_leader(with_simple_records(simple_records), leader_epoch=0)


def append_transactional_to_buffer(buffer: bytearray, producer_id: int,
                                   producer_epoch: int) -> Callable[[int, int], None]:
    sequence = 0

    def append(offset: int, num_records: int) -> None:
        nonlocal sequence
        build_batch(buffer, compression=CompressionType.NONE, timestamp_type=TimestampType.CREATE_TIME,
                    base_offset=offset, log_append_time=NO_TIMESTAMP, producer_id=producer_id,
                    producer_epoch=producer_epoch, base_sequence=sequence, is_transactional=True,
                    values=[SimpleRecord(f"{seq}".encode()) for seq in range(sequence, sequence + num_records)])
        sequence += num_records

    return append


def append_non_transactional_to_buffer(buffer: bytearray, offset: int, num_records: int) -> None:
    build_batch(buffer, compression=CompressionType.NONE, timestamp_type=TimestampType.CREATE_TIME,
                base_offset=offset, log_append_time=NO_TIMESTAMP,
                values=[SimpleRecord(f"{seq}".encode()) for seq in range(num_records)])


def append_as_follower(log: Log, memory_records: MemoryRecords, leader_epoch: int = 0) -> None:
    for batch in memory_records.batches():
        batch.set_partition_leader_epoch(leader_epoch)
    log.append_as_follower(memory_records)


def all_aborted_transactions(log: Log) -> list[AbortedTxn]:
    return [txn for segment in log.log_segments() for txn in segment.txn_index.all_aborted_txns()]


def epoch_cache(log: Log) -> Any:
    return log.leader_epoch_cache


def append_mixed_transactions(ctx: LogTestContext, log: Log) -> tuple[int, int]:
    """The mix of transactional and plain appends that the transaction index cases share; returns pid1, pid2."""
    epoch = 0
    pid1, pid2, pid3, pid4 = 1, 2, 3, 4
    append_pid1 = append_transactional_as_leader(log, pid1, epoch)
    append_pid2 = append_transactional_as_leader(log, pid2, epoch)
    append_pid3 = append_transactional_as_leader(log, pid3, epoch)
    append_pid4 = append_transactional_as_leader(log, pid4, epoch)
    append_pid1(5)  # 5
    append_non_transactional_as_leader(log, 3)  # 8
    append_pid2(2)  # 10
    append_pid1(4)  # 14
    append_pid3(3)  # 17
    append_non_transactional_as_leader(log, 2)  # 19
    append_pid1(10)  # 29
    ctx.append_end_txn_marker_as_leader(log, pid1, epoch, ControlRecordType.ABORT)  # 30
    append_pid2(6)  # 36
    append_pid4(3)  # 39
    append_non_transactional_as_leader(log, 10)  # 49
    append_pid3(9)  # 58
    ctx.append_end_txn_marker_as_leader(log, pid3, epoch, ControlRecordType.COMMIT)  # 59
    append_pid4(8)  # 67
    append_pid2(7)  # 74
    ctx.append_end_txn_marker_as_leader(log, pid2, epoch, ControlRecordType.ABORT)  # 75
    append_non_transactional_as_leader(log, 10)  # 85
    append_pid4(4)  # 89
    ctx.append_end_txn_marker_as_leader(log, pid4, epoch, ControlRecordType.COMMIT)  # 90
    return pid1, pid2


# ---- cases ----


def test_offset_from_file(ctx: LogTestContext) -> None:
    offset = 23423423
    assert Log.offset_from_file(Log.log_file(ctx.tmp_dir, offset)) == offset
    assert Log.offset_from_file(Log.offset_index_file(ctx.tmp_dir, offset)) == offset
    assert Log.offset_from_file(Log.time_index_file(ctx.tmp_dir, offset)) == offset
    assert Log.offset_from_file(Log.producer_snapshot_file(ctx.tmp_dir, offset)) == offset


def test_time_based_log_roll(ctx: LogTestContext) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test")

    log_config = create_log_config(segment_ms=1 * 60 * 60)
    log = ctx.create_log(log_config, max_producer_id_expiration_ms=24 * 60)
    assert log.number_of_segments == 1, "Log begins with a single empty segment."
    ctx.mock_time.sleep(log.config.segment_ms + 1)
    log.append_as_leader(create_records(), leader_epoch=0)
    assert log.number_of_segments == 1, "Log doesn't roll if doing so creates an empty segment."

    log.append_as_leader(create_records(), leader_epoch=0)
    assert log.number_of_segments == 2, "Log rolls on this append since time has expired."

    for num_segments in range(3, 5):
        ctx.mock_time.sleep(log.config.segment_ms + 1)
        log.append_as_leader(create_records(), leader_epoch=0)
        assert log.number_of_segments == num_segments

    timestamp = ctx.mock_time.milliseconds() + log.config.segment_ms + 1

    def create_records_with_timestamp() -> MemoryRecords:
        return singleton_records(b"test", timestamp=timestamp)

    log.append_as_leader(create_records_with_timestamp(), leader_epoch=0)
    assert log.number_of_segments == 4, "the log rolling should be based on wall clock"

    ctx.mock_time.sleep(log.config.segment_ms + 1)
    log.append_as_leader(create_records_with_timestamp(), leader_epoch=0)
    assert log.number_of_segments == 5, "A new segment should have been rolled out"

    ctx.mock_time.sleep(log.config.segment_ms + 1)
    log.append_as_leader(create_records_with_timestamp(), leader_epoch=0)
    assert log.number_of_segments == 5, "the roll should depend on timestamp of the first message"

    record_with_expired_timestamp = singleton_records(b"test", timestamp=ctx.mock_time.milliseconds())
    log.append_as_leader(record_with_expired_timestamp, leader_epoch=0)
    assert log.number_of_segments == 6, "the timestamp in the message should make the log segment expire"

    num_segments = log.number_of_segments
    ctx.mock_time.sleep(log.config.segment_ms + 1)
    log.append_as_leader(with_simple_records([]), leader_epoch=0)
    assert log.number_of_segments == num_segments, "Appending an empty message set should not roll log"


def test_non_sequential_append(ctx: LogTestContext) -> None:
    log = ctx.create_log(LogConfig())
    pid, epoch = 1, 0
    log.append_as_leader(records([SimpleRecord(b"value", b"key", ctx.mock_time.milliseconds())], producer_id=pid,
                                 producer_epoch=epoch, sequence=0), leader_epoch=0)
    with pytest.raises(OutOfOrderSequenceException):
        log.append_as_leader(records([SimpleRecord(b"value", b"key", ctx.mock_time.milliseconds())],
                                     producer_id=pid, producer_epoch=epoch, sequence=2), leader_epoch=0)


def test_initialization_of_producer_snapshots_upgrade_path(ctx: LogTestContext) -> None:
    log_config = create_log_config(segment_bytes=64 * 10)
    log = ctx.create_log(log_config)
    assert log.oldest_producer_snapshot_offset is None

    for i in range(101):
        record = SimpleRecord(str(i).encode(), timestamp=ctx.mock_time.milliseconds())
        log.append_as_leader(records([record]), leader_epoch=0)
    assert len(log.log_segments()) >= 2
    log_end_offset = log.log_end_offset
    log.close()

    clean_shutdown_file = ctx.create_clean_shutdown_file()
    ctx.delete_producer_snapshot_files()

    # Reload after clean shutdown
    log = ctx.create_log(log_config, recovery_point=log_end_offset)
    expected = [s.base_offset for s in log.log_segments()][-2:] + [log.log_end_offset]
    assert ctx.list_producer_snapshot_offsets() == expected
    log.close()

    clean_shutdown_file.unlink()
    ctx.delete_producer_snapshot_files()

    # Reload after unclean shutdown with recoveryPoint set to log end offset
    log = ctx.create_log(log_config, recovery_point=log_end_offset)
    expected = [log.log_segments()[-1].base_offset, log.log_end_offset]
    assert ctx.list_producer_snapshot_offsets() == expected
    log.close()

    ctx.delete_producer_snapshot_files()

    # Reload after unclean shutdown with recoveryPoint set to 0
    log = ctx.create_log(log_config, recovery_point=0)
    expected = [s.base_offset for s in log.log_segments()][1:] + [log.log_end_offset]
    assert ctx.list_producer_snapshot_offsets() == expected
    log.close()


def test_producer_snapshots_recovery_after_unclean_shutdown(ctx: LogTestContext) -> None:
    log_config = create_log_config(segment_bytes=64 * 10)
    log = ctx.create_log(log_config)
    assert log.oldest_producer_snapshot_offset is None

    for i in range(101):
        record = SimpleRecord(str(i).encode(), timestamp=ctx.mock_time.milliseconds())
        log.append_as_leader(records([record]), leader_epoch=0)

    assert len(log.log_segments()) >= 5
    segment_offsets = [s.base_offset for s in log.log_segments()]
    active_segment_offset = segment_offsets[-1]

    offset_for_segment_after_recovery_point = segment_offsets[-3]
    offset_for_recovery_point_segment = segment_offsets[-4]
    seg_offsets_before_recovery = [o for o in segment_offsets if o < offset_for_recovery_point_segment]
    seg_offsets_after_recovery = [o for o in segment_offsets if o >= offset_for_recovery_point_segment]
    recovery_point = offset_for_recovery_point_segment + 1
    assert recovery_point < offset_for_segment_after_recovery_point
    log.close()

    segments_with_reads: list[Any] = []
    recovered_segments: list[Any] = []

    class InterceptingLog(Log):
        """Log whose addSegment wraps every segment so that its reads and recoveries are recorded."""

        def add_segment(self, segment: Any) -> Any:
            original_read, original_recover = segment.read, segment.recover

            def read(*args: Any, **kwargs: Any) -> Any:
                segments_with_reads.append(segment)
                return original_read(*args, **kwargs)

            def recover(*args: Any, **kwargs: Any) -> Any:
                recovered_segments.append(segment)
                return original_recover(*args, **kwargs)

            segment.read, segment.recover = read, recover
            return super().add_segment(segment)

    def create_log_with_intercepted_reads(recovery_point: int) -> Log:
        return ctx.create_log(log_config, recovery_point=recovery_point, log_class=InterceptingLog)

    def without_first(offsets: list[int], offset: int) -> list[int]:
        offsets = list(offsets)
        if offset in offsets:
            offsets.remove(offset)
        return offsets

    # Retain snapshots for the last 2 segments
    psm_module.delete_snapshots_before(ctx.log_dir, segment_offsets[-2])
    log = create_log_with_intercepted_reads(offset_for_recovery_point_segment)
    assert without_first([s.base_offset for s in segments_with_reads], active_segment_offset) == \
        seg_offsets_before_recovery
    assert [s.base_offset for s in recovered_segments] == seg_offsets_after_recovery
    expected = segment_offsets[-4:] + [log.log_end_offset]
    assert ctx.list_producer_snapshot_offsets() == expected
    log.close()
    segments_with_reads.clear()
    recovered_segments.clear()

    psm_module.delete_snapshots_before(ctx.log_dir, offset_for_recovery_point_segment)
    log = create_log_with_intercepted_reads(recovery_point)
    assert [s.base_offset for s in segments_with_reads] == [active_segment_offset]
    assert [s.base_offset for s in recovered_segments] == seg_offsets_after_recovery
    expected = [s.base_offset for s in log.log_segments()][-4:] + [log.log_end_offset]
    assert ctx.list_producer_snapshot_offsets() == expected

    # Verify that we keep 2 snapshot files if we checkpoint the log end offset
    log.delete_snapshots_after_recovery_point_checkpoint()
    expected = [s.base_offset for s in log.log_segments()][-2:] + [log.log_end_offset]
    assert ctx.list_producer_snapshot_offsets() == expected
    log.close()


def test_size_for_large_logs() -> None:
    large_size = INT_MAX * 2

    class SegmentStub:
        """The EasyMock LogSegment: size answers Int.MaxValue."""

        size = INT_MAX

    segment = SegmentStub()
    assert Log.size_in_bytes([segment]) == INT_MAX
    assert Log.size_in_bytes([segment, segment]) == large_size
    assert Log.size_in_bytes([segment, segment]) > INT_MAX


def test_producer_id_map_offset_updated_for_non_idempotent_data(ctx: LogTestContext) -> None:
    log = ctx.create_log(create_log_config(segment_bytes=2048 * 5))
    log.append_as_leader(records([SimpleRecord(b"value", b"key", ctx.mock_time.milliseconds())]), leader_epoch=0)
    log.take_producer_snapshot()
    assert log.latest_producer_snapshot_offset == 1


ANY = object()


class StrictMock:
    """EasyMock.mock(classOf[ProducerStateManager]) reduced to what these cases use: expected calls (each once, or
    any number of times for a stub), answered in order; an unexpected call fails at once, `verify` fails if an
    expected one was not made."""

    def __init__(self) -> None:
        self._expectations: list[dict[str, Any]] = []

    def reset(self) -> None:
        self._expectations = []

    def expect(self, name: str, *args: Any, returns: Any = None, any_times: bool = False) -> None:
        self._expectations.append({"name": name, "args": args, "returns": returns, "any_times": any_times,
                                   "calls": 0})

    def _call(self, name: str, *args: Any) -> Any:
        for e in self._expectations:
            if e["name"] != name or len(e["args"]) != len(args):
                continue
            if any(x is not ANY and x != a for x, a in zip(e["args"], args, strict=True)):
                continue
            if not e["any_times"] and e["calls"] >= 1:
                continue
            e["calls"] += 1
            return e["returns"]
        raise AssertionError(f"Unexpected method call ProducerStateManager.{name}{args}")

    def verify(self) -> None:
        missing = [e for e in self._expectations if not e["any_times"] and e["calls"] == 0]
        assert not missing, f"Expectation failure on verify: {[(e['name'], e['args']) for e in missing]}"

    # the ProducerStateManager surface Log uses
    def latest_snapshot_offset(self) -> Any:
        return self._call("latestSnapshotOffset")

    def oldest_snapshot_offset(self) -> Any:
        return self._call("oldestSnapshotOffset")

    def update_map_end_offset(self, offset: int) -> None:
        self._call("updateMapEndOffset", offset)

    @property
    def map_end_offset(self) -> Any:
        return self._call("mapEndOffset")

    def is_empty(self) -> Any:
        return self._call("isEmpty")

    def take_snapshot(self) -> None:
        self._call("takeSnapshot")

    def truncate_and_reload(self, log_start_offset: int, log_end_offset: int, current_time_ms: int) -> None:
        self._call("truncateAndReload", log_start_offset, log_end_offset, current_time_ms)

    def first_unstable_offset(self) -> Any:
        return self._call("firstUnstableOffset")

    def __getattr__(self, name: str) -> Any:
        def unexpected(*args: Any, **kwargs: Any) -> Any:
            raise AssertionError(f"Unexpected method call ProducerStateManager.{name}{args}")

        return unexpected


def test_skip_loading_if_empty_producer_state_before_truncation(ctx: LogTestContext) -> None:
    state_manager = StrictMock()
    # Load the log
    state_manager.expect("latestSnapshotOffset", returns=None)
    state_manager.expect("updateMapEndOffset", 0, any_times=True)
    state_manager.expect("mapEndOffset", returns=0, any_times=True)
    state_manager.expect("isEmpty", returns=True, any_times=True)
    state_manager.expect("takeSnapshot", any_times=True)
    state_manager.expect("truncateAndReload", 0, 0, ANY)
    state_manager.expect("firstUnstableOffset", returns=None, any_times=True)

    log = Log(ctx.log_dir, LogConfig(), log_start_offset=0, recovery_point=0, scheduler=ctx.mock_time.scheduler,
              time_ms=ctx.mock_time.milliseconds, max_producer_id_expiration_ms=300000,
              producer_id_expiration_check_interval_ms=30000, producer_state_manager=state_manager)
    state_manager.verify()

    # Append some messages
    state_manager.reset()
    state_manager.expect("firstUnstableOffset", returns=None, any_times=True)
    state_manager.expect("updateMapEndOffset", 1)
    state_manager.expect("updateMapEndOffset", 2)
    log.append_as_leader(records([SimpleRecord(b"a")]), leader_epoch=0)
    log.append_as_leader(records([SimpleRecord(b"b")]), leader_epoch=0)
    state_manager.verify()

    # Now truncate
    state_manager.reset()
    state_manager.expect("firstUnstableOffset", returns=None, any_times=True)
    state_manager.expect("latestSnapshotOffset", returns=None)
    state_manager.expect("isEmpty", returns=True, any_times=True)
    state_manager.expect("mapEndOffset", returns=2)
    state_manager.expect("truncateAndReload", 0, 1, ANY)
    # Truncation causes the map end offset to reset to 0
    state_manager.expect("mapEndOffset", returns=0)
    # We skip directly to updating the map end offset
    state_manager.expect("updateMapEndOffset", 1)
    log.truncate_to(1)
    state_manager.verify()


def test_skip_truncate_and_reload_if_new_message_format_and_clean_shutdown(ctx: LogTestContext) -> None:
    state_manager = StrictMock()
    state_manager.expect("latestSnapshotOffset", returns=None)
    state_manager.expect("updateMapEndOffset", 0, any_times=True)
    state_manager.expect("takeSnapshot", any_times=True)

    clean_shutdown_file = ctx.create_clean_shutdown_file()
    config = LogConfig.from_props({"message.format.version": "0.11.0"})
    Log(ctx.log_dir, config, log_start_offset=0, recovery_point=0, scheduler=ctx.mock_time.scheduler,
        time_ms=ctx.mock_time.milliseconds, max_producer_id_expiration_ms=300000,
        producer_id_expiration_check_interval_ms=30000, producer_state_manager=state_manager)
    state_manager.verify()
    clean_shutdown_file.unlink()


def _compacted_batch(ctx: LogTestContext, pid: int, epoch: int, seq: int, base_offset: int) -> MemoryRecords:
    now = ctx.mock_time.milliseconds()
    recs = records([SimpleRecord(b"a", timestamp=now), SimpleRecord(b"b", b"key", now),
                    SimpleRecord(b"c", timestamp=now), SimpleRecord(b"d", b"key", now)],
                   producer_id=pid, producer_epoch=epoch, sequence=seq, base_offset=base_offset)
    for batch in recs.batches():
        batch.set_partition_leader_epoch(0)
    return filter_to(recs, lambda record: not record.has_key(), retain_empty=False)


def test_rebuild_producer_id_map_with_compacted_data(ctx: LogTestContext) -> None:
    log = ctx.create_log(create_log_config(segment_bytes=2048 * 5))
    pid, epoch, seq, base_offset = 1, 0, 0, 23
    log.append_as_follower(_compacted_batch(ctx, pid, epoch, seq, base_offset))

    now = ctx.mock_time.milliseconds()
    more_records = records([SimpleRecord(b"e", timestamp=now), SimpleRecord(b"f", timestamp=now)],
                           base_offset=base_offset + 4)
    for batch in more_records.batches():
        batch.set_partition_leader_epoch(0)
    log.append_as_follower(more_records)

    log.truncate_to(base_offset + 4)

    active_producers = log.active_producers_with_last_sequence
    assert pid in active_producers
    assert active_producers[pid] == 3


def test_rebuild_producer_state_with_empty_compacted_batch(ctx: LogTestContext) -> None:
    log = ctx.create_log(create_log_config(segment_bytes=2048 * 5))
    pid, epoch, seq, base_offset = 1, 0, 0, 23
    now = ctx.mock_time.milliseconds()
    recs = records([SimpleRecord(b"a", b"key", now), SimpleRecord(b"b", b"key", now)], producer_id=pid,
                   producer_epoch=epoch, sequence=seq, base_offset=base_offset)
    for batch in recs.batches():
        batch.set_partition_leader_epoch(0)
    filtered = filter_to(recs, lambda record: False, retain_empty=True)
    log.append_as_follower(filtered)

    more_records = records([SimpleRecord(b"e", timestamp=now), SimpleRecord(b"f", timestamp=now)],
                           base_offset=base_offset + 2)
    for batch in more_records.batches():
        batch.set_partition_leader_epoch(0)
    log.append_as_follower(more_records)

    log.truncate_to(base_offset + 2)

    active_producers = log.active_producers_with_last_sequence
    assert pid in active_producers
    assert active_producers[pid] == 1


def test_update_producer_id_map_with_compacted_data(ctx: LogTestContext) -> None:
    log = ctx.create_log(create_log_config(segment_bytes=2048 * 5))
    pid, epoch, seq, base_offset = 1, 0, 0, 23
    log.append_as_follower(_compacted_batch(ctx, pid, epoch, seq, base_offset))
    active_producers = log.active_producers_with_last_sequence
    assert pid in active_producers
    assert active_producers[pid] == 3


def test_producer_id_map_truncate_to(ctx: LogTestContext) -> None:
    log = ctx.create_log(create_log_config(segment_bytes=2048 * 5))
    log.append_as_leader(records([SimpleRecord(b"a")]), leader_epoch=0)
    log.append_as_leader(records([SimpleRecord(b"b")]), leader_epoch=0)
    log.take_producer_snapshot()

    log.append_as_leader(records([SimpleRecord(b"c")]), leader_epoch=0)
    log.take_producer_snapshot()

    log.truncate_to(2)
    assert log.latest_producer_snapshot_offset == 2
    assert log.latest_producer_state_end_offset == 2

    log.truncate_to(1)
    assert log.latest_producer_snapshot_offset is None
    assert log.latest_producer_state_end_offset == 1


def test_producer_id_map_truncate_to_with_no_snapshots(ctx: LogTestContext) -> None:
    log = ctx.create_log(create_log_config(segment_bytes=2048 * 5))
    pid, epoch = 1, 0
    log.append_as_leader(records([SimpleRecord(b"a")], producer_id=pid, producer_epoch=epoch, sequence=0),
                         leader_epoch=0)
    log.append_as_leader(records([SimpleRecord(b"b")], producer_id=pid, producer_epoch=epoch, sequence=1),
                         leader_epoch=0)

    ctx.delete_producer_snapshot_files()

    log.truncate_to(1)
    assert len(log.active_producers_with_last_sequence) == 1
    assert log.active_producers_with_last_sequence.get(pid) == 0


def test_load_producers_after_delete_records_mid_segment(ctx: LogTestContext) -> None:
    log_config = create_log_config(segment_bytes=2048 * 5)
    log = ctx.create_log(log_config)
    pid1, pid2, epoch = 1, 2, 0
    now = ctx.mock_time.milliseconds()
    log.append_as_leader(records([SimpleRecord(b"a", timestamp=now)], producer_id=pid1, producer_epoch=epoch,
                                 sequence=0), leader_epoch=0)
    log.append_as_leader(records([SimpleRecord(b"b", timestamp=now)], producer_id=pid2, producer_epoch=epoch,
                                 sequence=0), leader_epoch=0)
    assert len(log.active_producers_with_last_sequence) == 2

    log.maybe_increment_log_start_offset(1)

    assert len(log.active_producers_with_last_sequence) == 1
    retained_last_seq = log.active_producers_with_last_sequence.get(pid2)
    assert retained_last_seq == 0

    log.close()

    reloaded_log = ctx.create_log(log_config, log_start_offset=1)
    assert len(reloaded_log.active_producers_with_last_sequence) == 1
    assert log.active_producers_with_last_sequence.get(pid2) == retained_last_seq


def test_load_producers_after_delete_records_on_segment(ctx: LogTestContext) -> None:
    log_config = create_log_config(segment_bytes=2048 * 5)
    log = ctx.create_log(log_config)
    pid1, pid2, epoch = 1, 2, 0
    now = ctx.mock_time.milliseconds()
    log.append_as_leader(records([SimpleRecord(b"a", timestamp=now)], producer_id=pid1, producer_epoch=epoch,
                                 sequence=0), leader_epoch=0)
    log.roll()
    log.append_as_leader(records([SimpleRecord(b"b", timestamp=now)], producer_id=pid2, producer_epoch=epoch,
                                 sequence=0), leader_epoch=0)

    assert len(log.log_segments()) == 2
    assert len(log.active_producers_with_last_sequence) == 2

    log.maybe_increment_log_start_offset(1)
    log.on_high_watermark_incremented(log.log_end_offset)
    log.delete_old_segments()

    assert len(log.log_segments()) == 1
    assert len(log.active_producers_with_last_sequence) == 1
    retained_last_seq = log.active_producers_with_last_sequence.get(pid2)
    assert retained_last_seq == 0

    log.close()

    reloaded_log = ctx.create_log(log_config, log_start_offset=1)
    assert len(reloaded_log.active_producers_with_last_sequence) == 1
    assert log.active_producers_with_last_sequence.get(pid2) == retained_last_seq


def test_producer_id_map_truncate_fully_and_start_at(ctx: LogTestContext) -> None:
    recs = singleton_records(b"foo")
    log_config = create_log_config(segment_bytes=recs.size_in_bytes(), retention_bytes=recs.size_in_bytes() * 2)
    log = ctx.create_log(log_config)
    log.append_as_leader(recs, leader_epoch=0)
    log.take_producer_snapshot()

    log.append_as_leader(singleton_records(b"bar"), leader_epoch=0)
    log.append_as_leader(singleton_records(b"baz"), leader_epoch=0)
    log.take_producer_snapshot()

    assert len(log.log_segments()) == 3
    assert log.latest_producer_state_end_offset == 3
    assert log.latest_producer_snapshot_offset == 3

    log.truncate_fully_and_start_at(29)
    assert len(log.log_segments()) == 1
    assert log.latest_producer_snapshot_offset is None
    assert log.latest_producer_state_end_offset == 29


def test_producer_id_expiration_on_segment_deletion(ctx: LogTestContext) -> None:
    pid1 = 1
    recs = records([SimpleRecord(b"foo")], producer_id=pid1, producer_epoch=0, sequence=0)
    log_config = create_log_config(segment_bytes=recs.size_in_bytes(), retention_bytes=recs.size_in_bytes() * 2)
    log = ctx.create_log(log_config)
    log.append_as_leader(recs, leader_epoch=0)
    log.take_producer_snapshot()

    pid2 = 2
    log.append_as_leader(records([SimpleRecord(b"bar")], producer_id=pid2, producer_epoch=0, sequence=0),
                         leader_epoch=0)
    log.append_as_leader(records([SimpleRecord(b"baz")], producer_id=pid2, producer_epoch=0, sequence=1),
                         leader_epoch=0)
    log.take_producer_snapshot()

    assert len(log.log_segments()) == 3
    assert set(log.active_producers_with_last_sequence) == {pid1, pid2}

    log.on_high_watermark_incremented(log.log_end_offset)
    log.delete_old_segments()

    assert len(log.log_segments()) == 2
    assert set(log.active_producers_with_last_sequence) == {pid2}


def test_take_snapshot_on_roll_and_delete_snapshot_on_recovery_point_checkpoint(ctx: LogTestContext) -> None:
    log = ctx.create_log(create_log_config(segment_bytes=2048 * 5))
    log.append_as_leader(singleton_records(b"a"), leader_epoch=0)
    log.roll(1)
    assert log.latest_producer_snapshot_offset == 1
    assert log.oldest_producer_snapshot_offset == 1

    log.append_as_leader(singleton_records(b"b"), leader_epoch=0)
    log.roll(2)
    assert log.latest_producer_snapshot_offset == 2
    assert log.oldest_producer_snapshot_offset == 1

    log.append_as_leader(singleton_records(b"c"), leader_epoch=0)
    log.roll(3)
    assert log.latest_producer_snapshot_offset == 3
    assert log.oldest_producer_snapshot_offset == 1

    log.delete_snapshots_after_recovery_point_checkpoint()
    assert log.oldest_producer_snapshot_offset == 2

    log.append_as_leader(singleton_records(b"baz"), leader_epoch=0)
    log.flush(4)
    assert log.latest_producer_snapshot_offset == 3
    assert log.oldest_producer_snapshot_offset == 2


def test_producer_snapshot_after_segment_roll_on_append(ctx: LogTestContext) -> None:
    producer_id = 1
    log = ctx.create_log(create_log_config(segment_bytes=1024))
    log.append_as_leader(records([SimpleRecord(bytes(512), timestamp=ctx.mock_time.milliseconds())],
                                 producer_id=producer_id, producer_epoch=0, sequence=0), leader_epoch=0)
    log.append_as_leader(records([SimpleRecord(bytes(512), timestamp=ctx.mock_time.milliseconds())],
                                 producer_id=producer_id, producer_epoch=0, sequence=1), leader_epoch=0)

    assert len(log.log_segments()) == 2
    assert log.active_segment.base_offset == 1
    assert log.latest_producer_snapshot_offset == 1

    # Force a reload from the snapshot to check its consistency
    log.truncate_to(1)

    assert len(log.log_segments()) == 2
    assert log.active_segment.base_offset == 1
    assert not list(log.active_segment.log.batches())
    assert log.latest_producer_snapshot_offset == 1

    last_entry = log.producer_state_manager.last_entry(producer_id)
    assert last_entry is not None
    assert last_entry.first_offset == 0
    assert last_entry.last_data_offset == 0


def test_rebuild_transactional_state(ctx: LogTestContext) -> None:
    log_config = create_log_config(segment_bytes=1024 * 1024 * 5)
    log = ctx.create_log(log_config)
    pid, epoch, seq = 137, 5, 0
    recs = with_transactional_records([SimpleRecord(b"foo"), SimpleRecord(b"bar"), SimpleRecord(b"baz")], pid, epoch,
                                      seq)
    log.append_as_leader(recs, leader_epoch=0)
    commit_append_info = log.append_as_leader(ctx.end_txn_records(ControlRecordType.ABORT, pid, epoch),
                                              is_from_client=False, leader_epoch=0)
    log.on_high_watermark_incremented(commit_append_info.last_offset + 1)

    assert log.first_unstable_offset is None

    log.close()

    reopened_log = ctx.create_log(log_config)
    reopened_log.on_high_watermark_incremented(commit_append_info.last_offset + 1)
    assert reopened_log.first_unstable_offset is None


def test_periodic_producer_id_expiration(ctx: LogTestContext) -> None:
    max_producer_id_expiration_ms = 200
    producer_id_expiration_check_interval_ms = 100
    pid = 23
    log = ctx.create_log(create_log_config(segment_bytes=2048 * 5),
                         max_producer_id_expiration_ms=max_producer_id_expiration_ms,
                         producer_id_expiration_check_interval_ms=producer_id_expiration_check_interval_ms)
    recs = [SimpleRecord(b"foo", timestamp=ctx.mock_time.milliseconds())]
    log.append_as_leader(records(recs, producer_id=pid, producer_epoch=0, sequence=0), leader_epoch=0)

    assert set(log.active_producers_with_last_sequence) == {pid}

    ctx.mock_time.sleep(producer_id_expiration_check_interval_ms)
    assert set(log.active_producers_with_last_sequence) == {pid}

    ctx.mock_time.sleep(producer_id_expiration_check_interval_ms)
    assert set(log.active_producers_with_last_sequence) == set()


def test_duplicate_appends(ctx: LogTestContext) -> None:
    log = ctx.create_log(LogConfig())
    pid, epoch = 1, 0
    seq = 0
    for _ in range(6):
        log.append_as_leader(records([SimpleRecord(b"value", b"key", ctx.mock_time.milliseconds())], producer_id=pid,
                                     producer_epoch=epoch, sequence=seq), leader_epoch=0)
        seq += 1

    def create_records() -> MemoryRecords:
        now = ctx.mock_time.milliseconds()
        return records([SimpleRecord(f"value-{seq}".encode(), f"key-{seq}".encode(), now) for _ in range(3)],
                       producer_id=pid, producer_epoch=epoch, sequence=seq)

    multi_entry_append_info = log.append_as_leader(create_records(), leader_epoch=0)
    assert multi_entry_append_info.last_offset - multi_entry_append_info.first_offset + 1 == 3

    dup_multi_entry_append_info = log.append_as_leader(create_records(), leader_epoch=0)
    assert dup_multi_entry_append_info.first_offset == multi_entry_append_info.first_offset
    assert dup_multi_entry_append_info.last_offset == multi_entry_append_info.last_offset

    seq += 3

    # Append a partial duplicate of the tail. This is not allowed.
    with pytest.raises(OutOfOrderSequenceException):
        now = ctx.mock_time.milliseconds()
        log.append_as_leader(records([SimpleRecord(f"value-{seq}".encode(), f"key-{seq}".encode(), now)] * 2,
                                     producer_id=pid, producer_epoch=epoch, sequence=seq - 2), leader_epoch=0)

    # A duplicate of the batch 4th from the tail is accepted: the last 5 batches' metadata is retained.
    log.append_as_leader(records([SimpleRecord(b"value", b"key", ctx.mock_time.milliseconds())], producer_id=pid,
                                 producer_epoch=epoch, sequence=2), leader_epoch=0)

    # Duplicates at older entries are reported as OutOfOrderSequence errors
    with pytest.raises(OutOfOrderSequenceException):
        log.append_as_leader(records([SimpleRecord(b"value-1", b"key-1", ctx.mock_time.milliseconds())],
                                     producer_id=pid, producer_epoch=epoch, sequence=1), leader_epoch=0)

    def create_records_with_duplicate() -> MemoryRecords:
        return records([SimpleRecord(b"value", b"key", ctx.mock_time.milliseconds())], producer_id=pid,
                       producer_epoch=epoch, sequence=seq)

    orig_append_info = log.append_as_leader(create_records_with_duplicate(), leader_epoch=0)
    new_append_info = log.append_as_leader(create_records_with_duplicate(), leader_epoch=0)
    assert new_append_info.first_offset == orig_append_info.first_offset
    assert new_append_info.last_offset == orig_append_info.last_offset


def test_multiple_producer_ids_per_memory_record(ctx: LogTestContext) -> None:
    log = ctx.create_log(LogConfig())
    epoch = 0
    buffer = bytearray()
    for offset, pid in ((0, 1), (1, 2), (2, 3), (3, 4)):
        build_batch(buffer, compression=CompressionType.NONE, timestamp_type=TimestampType.LOG_APPEND_TIME,
                    base_offset=offset, log_append_time=ctx.mock_time.milliseconds(), producer_id=pid,
                    producer_epoch=epoch, base_sequence=0, is_transactional=False, partition_leader_epoch=0,
                    values=[SimpleRecord(b"value", b"key")])
    memory_records = MemoryRecords(buffer)

    log.append_as_follower(memory_records)
    log.flush()

    fetched_data = log.read_uncommitted(0, INT_MAX)

    orig_batches = list(memory_records.batches())
    fetched = batches_of(fetched_data)
    assert len(fetched) <= len(orig_batches)
    for orig, batch in zip(orig_batches, fetched, strict=False):
        assert batch.producer_id == orig.producer_id
        assert batch.base_offset == orig.base_offset
        assert batch.base_sequence == orig.base_sequence


def test_duplicate_append_to_follower(ctx: LogTestContext) -> None:
    log = ctx.create_log(create_log_config(segment_bytes=1024 * 1024 * 5))
    epoch, pid, base_sequence, partition_leader_epoch = 0, 1, 0, 0
    assert log.log_end_offset == 0
    for offset in (0, 2):
        log.append_as_follower(with_simple_records([SimpleRecord(b"a"), SimpleRecord(b"b")], offset,
                                                   producer_id=pid, producer_epoch=epoch,
                                                   base_sequence=base_sequence,
                                                   partition_leader_epoch=partition_leader_epoch))
    assert log.log_end_offset == 4


def test_multiple_producers_with_duplicates_in_single_append(ctx: LogTestContext) -> None:
    log = ctx.create_log(create_log_config(segment_bytes=1024 * 1024 * 5))
    pid1, pid2, epoch = 1, 2, 0
    buffer = bytearray()
    for offset, pid, seq in ((0, pid1, 0), (1, pid2, 0), (2, pid1, 1), (3, pid2, 1), (4, pid1, 1)):
        build_batch(buffer, compression=CompressionType.NONE, timestamp_type=TimestampType.LOG_APPEND_TIME,
                    base_offset=offset, log_append_time=ctx.mock_time.milliseconds(), producer_id=pid,
                    producer_epoch=epoch, base_sequence=seq, values=[SimpleRecord(b"value", b"key")])
    recs = MemoryRecords(buffer)
    for batch in recs.batches():
        batch.set_partition_leader_epoch(0)

    assert log.log_end_offset == 0
    log.append_as_follower(recs)
    assert log.log_end_offset == 5


def test_old_producer_epoch(ctx: LogTestContext) -> None:
    log = ctx.create_log(LogConfig())
    pid, new_epoch, old_epoch = 1, 1, 0
    log.append_as_leader(records([SimpleRecord(b"value", b"key", ctx.mock_time.milliseconds())], producer_id=pid,
                                 producer_epoch=new_epoch, sequence=0), leader_epoch=0)
    with pytest.raises(ProducerFencedException):
        log.append_as_leader(records([SimpleRecord(b"value", b"key", ctx.mock_time.milliseconds())],
                                     producer_id=pid, producer_epoch=old_epoch, sequence=0), leader_epoch=0)


def test_time_based_log_roll_jitter(ctx: LogTestContext) -> None:
    records_set = singleton_records(b"test", timestamp=ctx.mock_time.milliseconds())
    max_jitter = 20 * 60
    log = ctx.create_log(create_log_config(segment_ms=1 * 60 * 60, segment_jitter_ms=max_jitter))
    assert log.number_of_segments == 1, "Log begins with a single empty segment."
    log.append_as_leader(records_set, leader_epoch=0)

    ctx.mock_time.sleep(log.config.segment_ms - max_jitter)
    records_set = singleton_records(b"test", timestamp=ctx.mock_time.milliseconds())
    log.append_as_leader(records_set, leader_epoch=0)
    assert log.number_of_segments == 1, "Log does not roll on this append because it occurs earlier than max jitter"
    ctx.mock_time.sleep(max_jitter - log.active_segment.roll_jitter_ms + 1)
    records_set = singleton_records(b"test", timestamp=ctx.mock_time.milliseconds())
    log.append_as_leader(records_set, leader_epoch=0)
    assert log.number_of_segments == 2, "Log should roll after segmentMs adjusted by random jitter"


def test_size_based_log_roll(ctx: LogTestContext) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test", timestamp=ctx.mock_time.milliseconds())

    set_size = create_records().size_in_bytes()
    msg_per_seg = 10
    segment_size = msg_per_seg * (set_size - 1)
    log = ctx.create_log(create_log_config(segment_bytes=segment_size))
    assert log.number_of_segments == 1

    for _ in range(msg_per_seg + 1):
        log.append_as_leader(create_records(), leader_epoch=0)
    assert log.number_of_segments == 2


def test_load_empty_log(ctx: LogTestContext) -> None:
    ctx.create_empty_logs(0)
    log = ctx.create_log(LogConfig())
    log.append_as_leader(singleton_records(b"test", timestamp=ctx.mock_time.milliseconds()), leader_epoch=0)


def test_append_and_read_with_sequential_offsets(ctx: LogTestContext) -> None:
    log = ctx.create_log(create_log_config(segment_bytes=71))
    values = [str(i).encode() for i in range(0, 100, 2)]
    for value in values:
        log.append_as_leader(singleton_records(value), leader_epoch=0)

    for i in range(len(values)):
        read = batches_of(log.read_uncommitted(i, 100, i + 1))[0]
        assert read.last_offset == i, "Offset read should match order appended."
        actual = next(read.records())
        assert actual.key is None, "Key should be null"
        assert actual.value == values[i], "Values not equal"
    assert len(batches_of(log.read_uncommitted(len(values), 100, None))) == 0


def _append_non_sequential(log: Log) -> tuple[list[int], list[SimpleRecord]]:
    message_ids = list(range(50)) + list(range(50, 200, 7))
    recs = [SimpleRecord(str(i).encode()) for i in message_ids]
    for i, record in enumerate(recs):
        log.append_as_follower(with_simple_records([record], message_ids[i], partition_leader_epoch=0))
    return message_ids, recs


def test_append_and_read_with_non_sequential_offsets(ctx: LogTestContext) -> None:
    log = ctx.create_log(create_log_config(segment_bytes=72))
    message_ids, recs = _append_non_sequential(log)
    for i in range(50, max(message_ids)):
        idx = next(n for n, m in enumerate(message_ids) if m >= i)
        read = records_of(log.read_uncommitted(i, 100, None))[0]
        assert read.offset == message_ids[idx], "Offset read should match message id."
        assert simple(read) == recs[idx], "Message should match appended."


def test_read_at_log_gap(ctx: LogTestContext) -> None:
    log = ctx.create_log(create_log_config(segment_bytes=300))
    while log.number_of_segments == 1:
        log.append_as_leader(singleton_records(b"42"), leader_epoch=0)

    log.log_segments()[0].truncate_to(1)

    assert batches_of(log.read_uncommitted(1, 200, None))[0].last_offset == log.log_end_offset - 1


def test_log_roll_after_log_handler_closed(ctx: LogTestContext) -> None:
    log = ctx.create_log(create_log_config())
    log.close_handlers()
    with pytest.raises(KafkaStorageException):
        log.roll(1)


def test_read_with_min_message(ctx: LogTestContext) -> None:
    log = ctx.create_log(create_log_config(segment_bytes=72))
    message_ids, recs = _append_non_sequential(log)
    for i in range(50, max(message_ids)):
        idx = next(n for n, m in enumerate(message_ids) if m >= i)
        reads = [
            log.read_uncommitted(i, 1, min_one_message=True),
            log.read_uncommitted(i, 100, min_one_message=True),
            log.read_uncommitted(i, 100, 10000, min_one_message=True),
        ]
        for info in reads:
            read = records_of(info)[0]
            assert read.offset == message_ids[idx], "Offset read should match message id."
            assert simple(read) == recs[idx], "Message should match appended."

        assert batches_of(log.read_uncommitted(i, 1, 1, min_one_message=True)) == []


def test_read_with_too_small_max_length(ctx: LogTestContext) -> None:
    log = ctx.create_log(create_log_config(segment_bytes=72))
    message_ids, _ = _append_non_sequential(log)
    for i in range(50, max(message_ids)):
        assert log.read_uncommitted(i, 0).records is None  # MemoryRecords.EMPTY

        fetch_info = log.read_uncommitted(i, 1)
        assert fetch_info.first_entry_incomplete
        assert isinstance(fetch_info.records, FileRecords)
        assert fetch_info.records.size_in_bytes() == 1


def test_read_out_of_range(ctx: LogTestContext) -> None:
    ctx.create_empty_logs(1024)
    log = ctx.create_log(create_log_config(segment_bytes=1024))
    log.append_as_leader(singleton_records(b"42"), leader_epoch=0)

    assert len(log.read_uncommitted(1025, 1000).records_bytes()) == 0
    with pytest.raises(OffsetOutOfRangeException):
        log.read_uncommitted(0, 1000)
    with pytest.raises(OffsetOutOfRangeException):
        log.read_uncommitted(1026, 1000)
    assert len(log.read_uncommitted(1025, 1000, 1024).records_bytes()) == 0


def test_log_rolls(ctx: LogTestContext) -> None:
    log = ctx.create_log(create_log_config(segment_bytes=100))
    num_messages = 100
    message_sets = [singleton_records(str(i).encode(), timestamp=ctx.mock_time.milliseconds())
                    for i in range(num_messages)]
    for message_set in message_sets:
        log.append_as_leader(message_set, leader_epoch=0)
    log.flush()

    offset = 0
    for i in range(num_messages):
        head = batches_of(log.read_uncommitted(offset, 1024 * 1024))[0]
        assert head.last_offset == offset, "Offsets not equal"
        expected = next(next(message_sets[i].batches()).records())
        actual = next(head.records())
        assert actual.key == expected.key
        assert actual.value == expected.value
        assert actual.timestamp == expected.timestamp
        offset = head.last_offset + 1
    last_read = log.read_uncommitted(num_messages, 1024 * 1024, num_messages + 1)
    assert len(records_of(last_read)) == 0, "Should be no more messages"

    def check() -> None:
        assert log.recovery_point >= log.active_segment.base_offset, "Log role should have forced flush"

    retry(1000, check)


def test_compressed_messages(ctx: LogTestContext) -> None:
    log = ctx.create_log(create_log_config(segment_bytes=110))
    log.append_as_leader(with_simple_records([SimpleRecord(b"hello"), SimpleRecord(b"there")],
                                             compression_type=CompressionType.GZIP), leader_epoch=0)
    log.append_as_leader(with_simple_records([SimpleRecord(b"alpha"), SimpleRecord(b"beta")],
                                             compression_type=CompressionType.GZIP), leader_epoch=0)

    def read(offset: int) -> list[Any]:
        return records_of(log.read_uncommitted(offset, 4096))

    assert read(0)[0].offset == 0
    assert read(1)[0].offset == 0
    assert read(2)[0].offset == 2
    assert read(3)[0].offset == 2


def test_that_garbage_collecting_segments_doesnt_change_offset(ctx: LogTestContext) -> None:
    for messages_to_append in (0, 1, 25):
        ctx.log_dir.mkdir(parents=True, exist_ok=True)
        log = ctx.create_log(create_log_config(segment_bytes=100, retention_ms=0))
        for i in range(messages_to_append):
            log.append_as_leader(singleton_records(str(i).encode(), timestamp=ctx.mock_time.milliseconds() - 10),
                                 leader_epoch=0)

        curr_offset = log.log_end_offset
        assert messages_to_append == curr_offset

        log.on_high_watermark_incremented(curr_offset)
        log.delete_old_segments()

        assert log.log_end_offset == curr_offset, "Deleting segments shouldn't have changed the logEndOffset"
        assert log.number_of_segments == 1, "We should still have one segment left"
        assert log.delete_old_segments() == 0, "Further collection shouldn't delete anything"
        assert log.log_end_offset == curr_offset, "Still no change in the logEndOffset"
        assert log.append_as_leader(singleton_records(b"hello", timestamp=ctx.mock_time.milliseconds()),
                                    leader_epoch=0).first_offset == curr_offset

        log.delete()


def test_message_set_size_check(ctx: LogTestContext) -> None:
    message_set = with_simple_records([SimpleRecord(b"You"), SimpleRecord(b"bethe")])
    log = ctx.create_log(create_log_config(segment_bytes=message_set.size_in_bytes() - 1))
    with pytest.raises(RecordBatchTooLargeException):
        log.append_as_leader(message_set, leader_epoch=0)


def test_compacted_topic_constraints(ctx: LogTestContext) -> None:
    keyed_message = SimpleRecord(b"this message has a key", b"and here it is")
    another_keyed_message = SimpleRecord(b"this message also has a key", b"another key")
    unkeyed_message = SimpleRecord(b"this message does not have a key")

    message_set_with_unkeyed_message = with_simple_records([unkeyed_message, keyed_message])
    message_set_with_one_unkeyed_message = with_simple_records([unkeyed_message])
    message_set_with_compressed_keyed_message = with_simple_records([keyed_message],
                                                                    compression_type=CompressionType.GZIP)
    message_set_with_compressed_unkeyed_message = with_simple_records([keyed_message, unkeyed_message],
                                                                      compression_type=CompressionType.GZIP)
    message_set_with_keyed_message = with_simple_records([keyed_message])
    message_set_with_keyed_messages = with_simple_records([keyed_message, another_keyed_message])

    log = ctx.create_log(create_log_config(cleanup_policy="compact"))

    for message_set in (message_set_with_unkeyed_message, message_set_with_one_unkeyed_message,
                        message_set_with_compressed_unkeyed_message):
        with pytest.raises(CorruptRecordException):
            log.append_as_leader(message_set, leader_epoch=0)

    log.append_as_leader(message_set_with_keyed_message, leader_epoch=0)
    log.append_as_leader(message_set_with_keyed_messages, leader_epoch=0)
    log.append_as_leader(message_set_with_compressed_keyed_message, leader_epoch=0)


def test_message_size_check(ctx: LogTestContext) -> None:
    first = with_simple_records([SimpleRecord(b"You"), SimpleRecord(b"bethe")])
    second = with_simple_records([SimpleRecord(b"change (I need more bytes)... blah blah blah."),
                                  SimpleRecord(b"More padding boo hoo")])
    log = ctx.create_log(create_log_config(max_message_bytes=second.size_in_bytes() - 1))
    log.append_as_leader(first, leader_epoch=0)
    with pytest.raises(RecordTooLargeException):
        log.append_as_leader(second, leader_epoch=0)


def test_log_recovers_to_correct_offset(ctx: LogTestContext) -> None:
    num_messages = 100
    message_size = 100
    segment_size = 7 * message_size
    index_interval = 3 * message_size
    log_config = create_log_config(segment_bytes=segment_size, index_interval_bytes=index_interval,
                                   segment_index_bytes=4096)
    log = ctx.create_log(log_config)
    for i in range(num_messages):
        log.append_as_leader(singleton_records(os.urandom(message_size),
                                               timestamp=ctx.mock_time.milliseconds() + i * 10), leader_epoch=0)
    assert log.log_end_offset == num_messages
    last_index_offset = log.active_segment.index.last_offset
    num_index_entries = log.active_segment.index.entries
    last_offset = log.log_end_offset
    last_time_index_offset = log.log_end_offset - 1
    last_time_index_timestamp = log.active_segment.largest_timestamp
    num_time_index_entries = log.active_segment.time_index.entries + (
        0 if log.active_segment.time_index.last_entry.offset == log.log_end_offset - 1 else 1)
    log.close()

    def verify_recovered_log(log: Log, expected_recovery_point: int) -> None:
        assert log.recovery_point == expected_recovery_point, "Unexpected recovery point"
        assert log.log_end_offset == num_messages
        assert log.active_segment.index.last_offset == last_index_offset
        assert log.active_segment.index.entries == num_index_entries
        assert log.active_segment.time_index.last_entry.timestamp == last_time_index_timestamp
        assert log.active_segment.time_index.last_entry.offset == last_time_index_offset
        assert log.active_segment.time_index.entries == num_time_index_entries

    log = ctx.create_log(log_config, recovery_point=last_offset)
    verify_recovered_log(log, last_offset)
    log.close()

    log = ctx.create_log(log_config)
    verify_recovered_log(log, last_offset)
    log.close()


def test_build_time_index_when_not_assigning_offsets(ctx: LogTestContext) -> None:
    num_messages = 100
    log = ctx.create_log(create_log_config(segment_bytes=10000, index_interval_bytes=1))
    messages = [with_simple_records([SimpleRecord(str(i).encode(), timestamp=ctx.mock_time.milliseconds() + i)],
                                    100 + i, partition_leader_epoch=0) for i in range(num_messages)]
    for message in messages:
        log.append_as_follower(message)
    time_index_entries = sum(segment.time_index.entries for segment in log.log_segments())
    assert time_index_entries == num_messages - 1
    assert log.active_segment.time_index.last_entry.timestamp == ctx.mock_time.milliseconds() + num_messages - 1


def _append_for_index_rebuild(ctx: LogTestContext, log: Log, num_messages: int) -> None:
    for i in range(num_messages):
        log.append_as_leader(singleton_records(os.urandom(10), timestamp=ctx.mock_time.milliseconds() + i * 10),
                             leader_epoch=0)


def _check_index_rebuilt(ctx: LogTestContext, log: Log, num_messages: int) -> None:
    for i in range(num_messages):
        assert batches_of(log.read_uncommitted(i, 100, None))[0].last_offset == i
        found = log.fetch_offsets_by_timestamp(ctx.mock_time.milliseconds() + i * 10)
        assert found is not None
        if i == 0:
            assert found[1] == log.log_segments()[0].base_offset
        else:
            assert found[1] == i


def test_index_rebuild(ctx: LogTestContext) -> None:
    num_messages = 200
    log_config = create_log_config(segment_bytes=200, index_interval_bytes=1)
    log = ctx.create_log(log_config)
    _append_for_index_rebuild(ctx, log, num_messages)
    index_files = [s.index.file for s in log.log_segments()]
    time_index_files = [s.time_index.file for s in log.log_segments()]
    log.close()

    for f in index_files + time_index_files:
        f.unlink()

    log = ctx.create_log(log_config)
    assert log.log_end_offset == num_messages
    assert log.log_segments()[0].index.entries > 0, "The index should have been rebuilt"
    assert log.log_segments()[0].time_index.entries > 0, "The time index should have been rebuilt"
    _check_index_rebuilt(ctx, log, num_messages)
    log.close()


def test_corrupt_index_rebuild(ctx: LogTestContext) -> None:
    num_messages = 200
    log_config = create_log_config(segment_bytes=200, index_interval_bytes=1)
    log = ctx.create_log(log_config)
    _append_for_index_rebuild(ctx, log, num_messages)
    index_files = [s.index.file for s in log.log_segments()]
    time_index_files = [s.time_index.file for s in log.log_segments()]
    log.close()

    for f in index_files + time_index_files:
        f.write_text("  ")

    log = ctx.create_log(log_config, recovery_point=200)
    assert log.log_end_offset == num_messages
    _check_index_rebuilt(ctx, log, num_messages)
    log.close()


def test_truncate_to(ctx: LogTestContext) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test", timestamp=ctx.mock_time.milliseconds())

    set_size = create_records().size_in_bytes()
    msg_per_seg = 10
    segment_size = msg_per_seg * set_size
    log = ctx.create_log(create_log_config(segment_bytes=segment_size))
    assert log.number_of_segments == 1

    for _ in range(msg_per_seg):
        log.append_as_leader(create_records(), leader_epoch=0)

    assert log.number_of_segments == 1
    assert log.log_end_offset == msg_per_seg

    last_offset = log.log_end_offset
    size = log.size
    log.truncate_to(log.log_end_offset)
    assert log.log_end_offset == last_offset
    assert log.size == size
    log.truncate_to(log.log_end_offset + 1)
    assert log.log_end_offset == last_offset
    assert log.size == size
    log.truncate_to(msg_per_seg // 2)
    assert log.log_end_offset == msg_per_seg // 2
    assert log.size < size
    log.truncate_to(0)
    assert log.log_end_offset == 0
    assert log.size == 0

    for _ in range(msg_per_seg):
        log.append_as_leader(create_records(), leader_epoch=0)

    assert log.log_end_offset == last_offset
    assert log.size == size
    log.truncate_fully_and_start_at(log.log_end_offset - (msg_per_seg - 1))
    assert log.log_end_offset == last_offset - (msg_per_seg - 1)
    assert log.size == 0

    for _ in range(msg_per_seg):
        log.append_as_leader(create_records(), leader_epoch=0)

    assert log.log_end_offset > msg_per_seg
    assert log.size == size
    log.truncate_to(0)
    assert log.log_end_offset == 0
    assert log.size == 0


def test_index_resizing_at_truncation(ctx: LogTestContext) -> None:
    set_size = singleton_records(b"test", timestamp=ctx.mock_time.milliseconds()).size_in_bytes()
    msg_per_seg = 10
    segment_size = msg_per_seg * set_size
    log = ctx.create_log(create_log_config(segment_bytes=segment_size, index_interval_bytes=set_size - 1))
    assert log.number_of_segments == 1

    for i in range(1, msg_per_seg + 1):
        log.append_as_leader(singleton_records(b"test", timestamp=ctx.mock_time.milliseconds() + i), leader_epoch=0)
    assert log.number_of_segments == 1

    ctx.mock_time.sleep(msg_per_seg)
    for i in range(1, msg_per_seg + 1):
        log.append_as_leader(singleton_records(b"test", timestamp=ctx.mock_time.milliseconds() + i), leader_epoch=0)
    assert log.number_of_segments == 2
    expected_entries = msg_per_seg - 1

    assert log.log_segments()[0].index.max_entries == expected_entries
    assert log.log_segments()[0].time_index.max_entries == expected_entries

    log.truncate_to(0)
    assert log.number_of_segments == 1
    assert log.log_segments()[0].index.max_entries == log.config.segment_index_bytes // 8
    assert log.log_segments()[0].time_index.max_entries == log.config.segment_index_bytes // 12

    ctx.mock_time.sleep(msg_per_seg)
    for i in range(1, msg_per_seg + 1):
        log.append_as_leader(singleton_records(b"test", timestamp=ctx.mock_time.milliseconds() + i), leader_epoch=0)
    assert log.number_of_segments == 1


def test_bogus_index_segments_are_removed(ctx: LogTestContext) -> None:
    bogus_index1 = Log.offset_index_file(ctx.log_dir, 0)
    bogus_time_index1 = Log.time_index_file(ctx.log_dir, 0)
    bogus_index2 = Log.offset_index_file(ctx.log_dir, 5)
    bogus_time_index2 = Log.time_index_file(ctx.log_dir, 5)

    def create_records() -> MemoryRecords:
        return singleton_records(b"test", timestamp=ctx.mock_time.milliseconds())

    log_config = create_log_config(segment_bytes=create_records().size_in_bytes() * 5, segment_index_bytes=1000,
                                   index_interval_bytes=1)
    log = ctx.create_log(log_config)

    assert bogus_index1.stat().st_size > 0, "The first index file should have been replaced with a larger file"
    assert bogus_time_index1.stat().st_size > 0
    assert not bogus_index2.exists(), "The second index file should have been deleted."
    assert not bogus_time_index2.exists(), "The second time index file should have been deleted."

    for _ in range(10):
        log.append_as_leader(create_records(), leader_epoch=0)

    log.delete()


def test_reopen_then_truncate(ctx: LogTestContext) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test", timestamp=ctx.mock_time.milliseconds())

    log_config = create_log_config(segment_bytes=create_records().size_in_bytes() * 5, segment_index_bytes=1000,
                                   index_interval_bytes=10000)
    log = ctx.create_log(log_config)
    for _ in range(100):
        log.append_as_leader(create_records(), leader_epoch=0)
    log.close()
    log = ctx.create_log(log_config)
    log.truncate_to(3)
    assert log.number_of_segments == 1, "All but one segment should be deleted."
    assert log.log_end_offset == 3, "Log end offset should be 3."


def test_async_delete(ctx: LogTestContext) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test", timestamp=ctx.mock_time.milliseconds() - 1000)

    async_delete_ms = 1000
    log_config = create_log_config(segment_bytes=create_records().size_in_bytes() * 5, segment_index_bytes=1000,
                                   index_interval_bytes=10000, retention_ms=999,
                                   file_delete_delay_ms=async_delete_ms)
    log = ctx.create_log(log_config)
    for _ in range(100):
        log.append_as_leader(create_records(), leader_epoch=0)

    segments = log.log_segments()
    old_files = [s.log.file for s in segments] + [s.index.file for s in segments]

    log.on_high_watermark_incremented(log.log_end_offset)
    log.delete_old_segments()

    assert log.number_of_segments == 1, "Only one segment should remain."
    assert all(s.log.file.name.endswith(Log.DeletedFileSuffix) for s in segments)
    assert all(s.index.file.name.endswith(Log.DeletedFileSuffix) for s in segments)
    assert all(s.log.file.exists() for s in segments) and all(s.index.file.exists() for s in segments)
    assert all(not f.exists() for f in old_files), "The original file should be gone."

    deleted_files = [s.log.file for s in segments] + [s.index.file for s in segments]
    ctx.mock_time.sleep(async_delete_ms + 1)
    assert all(not f.exists() for f in deleted_files), "Files should all be gone."


def test_open_deletes_obsolete_files(ctx: LogTestContext) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test", timestamp=ctx.mock_time.milliseconds() - 1000)

    log_config = create_log_config(segment_bytes=create_records().size_in_bytes() * 5, segment_index_bytes=1000,
                                   retention_ms=999)
    log = ctx.create_log(log_config)
    for _ in range(100):
        log.append_as_leader(create_records(), leader_epoch=0)

    log.on_high_watermark_incremented(log.log_end_offset)
    log.delete_old_segments()
    log.close()
    log = ctx.create_log(log_config)
    assert log.number_of_segments == 1, "The deleted segments should be gone."


def test_append_message_with_null_payload(ctx: LogTestContext) -> None:
    log = ctx.create_log(LogConfig())
    log.append_as_leader(singleton_records(None), leader_epoch=0)
    head = records_of(log.read_uncommitted(0, 4096, None))[0]
    assert head.offset == 0
    assert head.value is None, "Message payload should be null."


def test_append_with_out_of_order_offsets_throws_exception(ctx: LogTestContext) -> None:
    log = ctx.create_log(LogConfig())
    buffer = bytearray()
    for offset in (0, 1, 3, 2, 4):
        build_batch(buffer, compression=CompressionType.NONE, timestamp_type=TimestampType.LOG_APPEND_TIME,
                    base_offset=offset, log_append_time=ctx.mock_time.milliseconds(), producer_id=1,
                    producer_epoch=0, base_sequence=0, partition_leader_epoch=0,
                    values=[SimpleRecord(b"value", b"key")])
    with pytest.raises(OffsetsOutOfOrderException):
        log.append_as_follower(MemoryRecords(buffer))


def test_append_below_expected_offset_throws_exception(ctx: LogTestContext) -> None:
    log = ctx.create_log(LogConfig())
    for record in [SimpleRecord(str(i).encode()) for i in range(2)]:
        log.append_as_leader(with_simple_records([record]), leader_epoch=0)

    for compression in (CompressionType.NONE, CompressionType.LZ4):  # magic v2 only: v0/v1 are not built
        invalid_record = with_simple_records([SimpleRecord(b"1")], compression_type=compression)
        with pytest.raises(UnexpectedAppendOffsetException):
            log.append_as_follower(invalid_record)


def test_append_empty_log_below_log_start_offset_throws_exception(ctx: LogTestContext) -> None:
    ctx.create_empty_logs(7)
    log = ctx.create_log(LogConfig())
    assert log.log_start_offset == 7
    assert log.log_end_offset == 7

    first_offset = 4
    for compression in (CompressionType.NONE, CompressionType.LZ4):  # magic v2 only: v0/v1 are not built
        batch = records([SimpleRecord(b"v1", b"k1"), SimpleRecord(b"v2", b"k2"), SimpleRecord(b"v3", b"k3")],
                        codec=compression, base_offset=first_offset)
        with pytest.raises(UnexpectedAppendOffsetException) as exception:
            log.append_as_follower(batch)
        assert exception.value.first_offset == first_offset
        assert exception.value.last_offset == first_offset + 2


def test_append_with_no_timestamp(ctx: LogTestContext) -> None:
    log = ctx.create_log(LogConfig())
    log.append_as_leader(with_simple_records([SimpleRecord(b"value", b"key", NO_TIMESTAMP)]), leader_epoch=0)


def _append_nonsense_to_file(file: Path, size: int) -> None:
    """TestUtils.appendNonsenseToFile."""
    with open(file, "ab") as f:
        f.write(bytes(_random.randrange(256) for _ in range(size)))


def test_corrupt_log(ctx: LogTestContext) -> None:
    log_config = create_log_config(segment_bytes=1000, index_interval_bytes=1, max_message_bytes=64 * 1024)

    def create_records() -> MemoryRecords:
        return singleton_records(b"test", timestamp=ctx.mock_time.milliseconds())

    recovery_point = 50
    for _ in range(10):
        ctx.log_dir.mkdir(parents=True, exist_ok=True)
        log = ctx.create_log(log_config)
        num_messages = 50 + _random.randrange(50)
        for _ in range(num_messages):
            log.append_as_leader(create_records(), leader_epoch=0)
        recs = [r for s in log.log_segments() for r in segment_records(s)]
        log.close()

        _append_nonsense_to_file(log.active_segment.index.file, _random.randrange(1024) + 1)
        _append_nonsense_to_file(log.active_segment.log.file, _random.randrange(1024) + 1)

        log = ctx.create_log(log_config, 0, recovery_point)
        assert log.log_end_offset == num_messages

        recovered = [r for s in log.log_segments() for r in segment_records(s)]
        assert len(recovered) == len(recs)
        for expected, actual in zip(recs, recovered, strict=True):
            assert actual.key == expected.key
            assert actual.value == expected.value
            assert actual.timestamp == expected.timestamp

        log.close()
        shutil.rmtree(ctx.log_dir)


def test_over_compacted_log_recovery(ctx: LogTestContext) -> None:
    log_config = create_log_config(segment_bytes=1000, index_interval_bytes=1, max_message_bytes=64 * 1024)
    log = ctx.create_log(log_config)
    set1 = with_simple_records([SimpleRecord(b"k1", b"v1")], 0, partition_leader_epoch=0)
    set2 = with_simple_records([SimpleRecord(b"k3", b"v3")], INT_MAX + 2, partition_leader_epoch=0)
    set3 = with_simple_records([SimpleRecord(b"k4", b"v4")], INT_MAX + 3, partition_leader_epoch=0)
    set4 = with_simple_records([SimpleRecord(b"k5", b"v5")], INT_MAX + 4, partition_leader_epoch=0)
    log.append_as_follower(set1)
    assert log.active_segment.base_offset == 0
    log.append_as_follower(set2)
    assert log.active_segment.base_offset == 2
    assert Log.producer_snapshot_file(ctx.log_dir, 2).exists()
    log.append_as_follower(set3)
    assert log.active_segment.base_offset == INT_MAX + 3
    assert Log.producer_snapshot_file(ctx.log_dir, INT_MAX + 3).exists()
    log.append_as_follower(set4)
    assert log.active_segment.base_offset == INT_MAX + 3
    log.close()
    index_files = [f for f in ctx.log_dir.iterdir() if ".index" in f.name]
    assert len(index_files) == 3
    for file in index_files:
        offset_index = OffsetIndex(file, int(file.name.replace(".index", "")))
        assert offset_index.last_offset >= 0
        offset_index.close()


def test_clean_shutdown_file(ctx: LogTestContext) -> None:
    log_config = create_log_config(segment_bytes=1000, index_interval_bytes=1, max_message_bytes=64 * 1024)

    def create_records() -> MemoryRecords:
        return singleton_records(b"test", timestamp=ctx.mock_time.milliseconds())

    clean_shutdown_file = ctx.create_clean_shutdown_file()
    assert clean_shutdown_file.exists()
    log = ctx.create_log(log_config)
    for _ in range(100):
        log.append_as_leader(create_records(), leader_epoch=0)
    log.close()

    recovery_point = log.log_end_offset
    log = ctx.create_log(log_config)
    assert log.log_end_offset == recovery_point
    clean_shutdown_file.unlink()


def topic_partition_name(topic: str, partition: str) -> str:
    return topic + "-" + partition


def test_parse_topic_partition_name(ctx: LogTestContext) -> None:
    topic, partition = "test_topic", "143"
    topic_partition = Log.parse_topic_partition_name(ctx.log_dir / topic_partition_name(topic, partition))
    assert topic_partition.topic == topic
    assert topic_partition.partition == int(partition)


def test_parse_topic_partition_name_with_period_for_deleted_topic(ctx: LogTestContext) -> None:
    topic, partition = "foo.bar-testtopic", "42"
    dir = ctx.log_dir / Log.log_delete_dir_name(topic_partition_name(topic, partition))
    topic_partition = Log.parse_topic_partition_name(dir)
    assert topic_partition.topic == topic, "Unexpected topic name parsed"
    assert topic_partition.partition == int(partition), "Unexpected partition number parsed"


def test_parse_topic_partition_name_for_empty_name() -> None:
    with pytest.raises(KafkaException):
        Log.parse_topic_partition_name(Path(""))


def test_parse_topic_partition_name_for_null() -> None:
    with pytest.raises(KafkaException):
        Log.parse_topic_partition_name(None)


def test_parse_topic_partition_name_for_missing_separator(ctx: LogTestContext) -> None:
    topic, partition = "test_topic", "1999"
    with pytest.raises(KafkaException):
        Log.parse_topic_partition_name(ctx.log_dir / (topic + partition))
    with pytest.raises(KafkaException):
        Log.parse_topic_partition_name(ctx.log_dir / Log.log_delete_dir_name(topic + partition))


def test_parse_topic_partition_name_for_missing_topic(ctx: LogTestContext) -> None:
    topic, partition = "", "1999"
    with pytest.raises(KafkaException):
        Log.parse_topic_partition_name(ctx.log_dir / topic_partition_name(topic, partition))
    with pytest.raises(KafkaException):
        Log.parse_topic_partition_name(ctx.log_dir / Log.log_delete_dir_name(topic_partition_name(topic, partition)))


def test_parse_topic_partition_name_for_missing_partition(ctx: LogTestContext) -> None:
    topic, partition = "test_topic", ""
    with pytest.raises(KafkaException):
        Log.parse_topic_partition_name(Path(str(ctx.log_dir) + topic_partition_name(topic, partition)))
    with pytest.raises(KafkaException):
        Log.parse_topic_partition_name(ctx.log_dir / Log.log_delete_dir_name(topic_partition_name(topic, partition)))


def test_parse_topic_partition_name_for_invalid_partition(ctx: LogTestContext) -> None:
    topic, partition = "test_topic", "1999a"
    with pytest.raises(KafkaException):
        Log.parse_topic_partition_name(ctx.log_dir / topic_partition_name(topic, partition))
    with pytest.raises(KafkaException):
        Log.parse_topic_partition_name(ctx.log_dir / Log.log_delete_dir_name(topic + partition))


def test_parse_topic_partition_name_for_existing_invalid_dir(ctx: LogTestContext) -> None:
    with pytest.raises(KafkaException):
        Log.parse_topic_partition_name(Path(str(ctx.log_dir) + "/non_kafka_dir"))
    with pytest.raises(KafkaException):
        Log.parse_topic_partition_name(Path(str(ctx.log_dir) + "/non_kafka_dir-delete"))


def test_log_deletion_after_close(ctx: LogTestContext) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test", timestamp=ctx.mock_time.milliseconds() - 1000)

    log_config = create_log_config(segment_bytes=create_records().size_in_bytes() * 5, segment_index_bytes=1000,
                                   retention_ms=999)
    log = ctx.create_log(log_config)
    log.append_as_leader(create_records(), leader_epoch=0)

    assert log.number_of_segments == 1
    assert len(epoch_cache(log).epoch_entries()) == 1, "Epoch entries should have gone."

    log.close()
    log.delete()
    assert log.number_of_segments == 0
    assert len(epoch_cache(log).epoch_entries()) == 0, "Epoch entries should have gone."


def test_delete_old_segments(ctx: LogTestContext) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test", timestamp=ctx.mock_time.milliseconds() - 1000)

    log_config = create_log_config(segment_bytes=create_records().size_in_bytes() * 5, segment_index_bytes=1000,
                                   retention_ms=999)
    log = ctx.create_log(log_config)
    for _ in range(100):
        log.append_as_leader(create_records(), leader_epoch=0)

    log.leader_epoch_cache.assign(0, 40)
    log.leader_epoch_cache.assign(1, 90)

    # segments are not eligible for deletion if no high watermark has been set
    num_segments = log.number_of_segments
    log.delete_old_segments()
    assert log.number_of_segments == num_segments
    assert log.log_start_offset == 0

    # only segments with offset before the current high watermark are eligible for deletion
    for hw in range(25, 31):
        log.on_high_watermark_incremented(hw)
        log.delete_old_segments()
        assert log.log_start_offset <= hw
        for segment in log.log_segments():
            segment_records_read = records_of(segment.read(segment.base_offset, None, INT_MAX))
            if segment_records_read:
                assert segment_records_read[-1].offset >= hw

    # expire all segments
    log.on_high_watermark_incremented(log.log_end_offset)
    log.delete_old_segments()
    assert log.number_of_segments == 1, "The deleted segments should be gone."
    assert len(epoch_cache(log).epoch_entries()) == 1, "Epoch entries should have gone."
    assert epoch_cache(log).epoch_entries()[0] == EpochEntry(1, 100)

    for _ in range(100):
        log.append_as_leader(create_records(), leader_epoch=0)

    log.delete()
    assert log.number_of_segments == 0
    assert log.delete_old_segments() == 0
    assert len(epoch_cache(log).epoch_entries()) == 0


def test_log_deletion_after_delete_records(ctx: LogTestContext) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test")

    log = ctx.create_log(create_log_config(segment_bytes=create_records().size_in_bytes() * 5))
    for _ in range(15):
        log.append_as_leader(create_records(), leader_epoch=0)
    assert log.number_of_segments == 3
    assert log.log_start_offset == 0
    log.on_high_watermark_incremented(log.log_end_offset)

    log.maybe_increment_log_start_offset(1)
    log.delete_old_segments()
    assert log.number_of_segments == 3
    assert log.log_start_offset == 1

    log.maybe_increment_log_start_offset(6)
    log.delete_old_segments()
    assert log.number_of_segments == 2
    assert log.log_start_offset == 6

    log.maybe_increment_log_start_offset(15)
    log.delete_old_segments()
    assert log.number_of_segments == 1
    assert log.log_start_offset == 15


def test_should_delete_size_based_segments(ctx: LogTestContext) -> None:
    size = singleton_records(b"test").size_in_bytes()
    log = ctx.create_log(create_log_config(segment_bytes=size * 5, retention_bytes=size * 10))
    for _ in range(15):
        log.append_as_leader(singleton_records(b"test"), leader_epoch=0)
    log.on_high_watermark_incremented(log.log_end_offset)
    log.delete_old_segments()
    assert log.number_of_segments == 2


def test_should_not_delete_size_based_segments_when_under_retention_size(ctx: LogTestContext) -> None:
    size = singleton_records(b"test").size_in_bytes()
    log = ctx.create_log(create_log_config(segment_bytes=size * 5, retention_bytes=size * 15))
    for _ in range(15):
        log.append_as_leader(singleton_records(b"test"), leader_epoch=0)
    log.on_high_watermark_incremented(log.log_end_offset)
    log.delete_old_segments()
    assert log.number_of_segments == 3


def test_should_delete_time_based_segments_ready_to_be_deleted(ctx: LogTestContext) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test", timestamp=10)

    log = ctx.create_log(create_log_config(segment_bytes=create_records().size_in_bytes() * 5, retention_ms=10000))
    for _ in range(15):
        log.append_as_leader(create_records(), leader_epoch=0)
    log.on_high_watermark_incremented(log.log_end_offset)
    log.delete_old_segments()
    assert log.number_of_segments == 1


def test_should_not_delete_time_based_segments_when_none_ready_to_be_deleted(ctx: LogTestContext) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test", timestamp=ctx.mock_time.milliseconds())

    log = ctx.create_log(create_log_config(segment_bytes=create_records().size_in_bytes() * 5,
                                           retention_ms=10000000))
    for _ in range(15):
        log.append_as_leader(create_records(), leader_epoch=0)
    log.on_high_watermark_incremented(log.log_end_offset)
    log.delete_old_segments()
    assert log.number_of_segments == 3


def test_should_not_delete_segments_when_policy_does_not_include_delete(ctx: LogTestContext) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test", key=b"test", timestamp=10)

    log = ctx.create_log(create_log_config(segment_bytes=create_records().size_in_bytes() * 5, retention_ms=10000,
                                           cleanup_policy="compact"))
    for _ in range(15):
        log.append_as_leader(create_records(), leader_epoch=0)

    # mark oldest segment as older the retention.ms
    segment = log.log_segments()[0]
    mtime = (ctx.mock_time.milliseconds() - 20000) / 1000
    os.utime(segment.log.file, (mtime, mtime))

    segments = log.number_of_segments
    log.on_high_watermark_incremented(log.log_end_offset)
    log.delete_old_segments()
    assert log.number_of_segments == segments


def test_should_delete_segments_ready_to_be_deleted_when_cleanup_policy_is_compact_and_delete(
        ctx: LogTestContext) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test", key=b"test", timestamp=10)

    log = ctx.create_log(create_log_config(segment_bytes=create_records().size_in_bytes() * 5, retention_ms=10000,
                                           cleanup_policy="compact,delete"))
    for _ in range(15):
        log.append_as_leader(create_records(), leader_epoch=0)
    log.on_high_watermark_incremented(log.log_end_offset)
    log.delete_old_segments()
    assert log.number_of_segments == 1


def test_should_apply_epoch_to_message_on_append_if_leader(ctx: LogTestContext) -> None:
    recs = [SimpleRecord(str(i).encode()) for i in range(50)]
    epoch = 72
    log = ctx.create_log(LogConfig())
    log.leader_epoch_cache.assign(epoch, len(recs))
    for record in recs:
        log.append_as_leader(with_simple_records([record]), leader_epoch=epoch)
    for i in range(len(recs)):
        read = batches_of(log.read_uncommitted(i, 100, i + 1))[0]
        assert read.partition_leader_epoch == 72, "Should have set leader epoch"


def test_follower_should_save_epoch_information_from_replicated_messages_to_the_epoch_cache(
        ctx: LogTestContext) -> None:
    message_ids = list(range(50))
    recs = [SimpleRecord(str(i).encode()) for i in message_ids]

    def records_for_epoch(i: int) -> MemoryRecords:
        result = with_simple_records([recs[i]], message_ids[i])
        for batch in result.batches():
            batch.set_partition_leader_epoch(42)
            batch.set_last_offset(i)
        return result

    log = ctx.create_log(LogConfig())
    for i in range(len(recs)):
        log.append_as_follower(records_for_epoch(i))
    assert log.leader_epoch_cache.latest_epoch() == 42


def _three_segments_with_epochs(ctx: LogTestContext, epochs: list[tuple[int, int]]) -> Log:
    size = singleton_records(b"test").size_in_bytes()
    log = ctx.create_log(create_log_config(segment_bytes=size * 5, retention_bytes=size * 10))
    for _ in range(15):
        log.append_as_leader(singleton_records(b"test"), leader_epoch=0)
    for epoch, offset in epochs:
        epoch_cache(log).assign(epoch, offset)
    log.on_high_watermark_incremented(log.log_end_offset)
    log.delete_old_segments()
    return log


def test_should_truncate_leader_epochs_when_deleting_segments(ctx: LogTestContext) -> None:
    log = _three_segments_with_epochs(ctx, [(0, 0), (1, 5), (2, 10)])
    assert epoch_cache(log).epoch_entries() == [EpochEntry(1, 5), EpochEntry(2, 10)]


def test_should_update_offset_for_leader_epochs_when_deleting_segments(ctx: LogTestContext) -> None:
    log = _three_segments_with_epochs(ctx, [(0, 0), (1, 7), (2, 10)])
    assert epoch_cache(log).epoch_entries() == [EpochEntry(0, 5), EpochEntry(1, 7), EpochEntry(2, 10)]


def test_should_truncate_leader_epoch_file_when_truncating_log(ctx: LogTestContext) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test", timestamp=ctx.mock_time.milliseconds())

    log = ctx.create_log(create_log_config(segment_bytes=10 * create_records().size_in_bytes()))
    cache = epoch_cache(log)
    for _ in range(1, 21):
        log.append_as_leader(create_records(), leader_epoch=0)

    cache.assign(0, 0)
    cache.assign(1, 10)
    cache.assign(2, 16)

    assert log.number_of_segments == 2
    assert log.log_end_offset == 20

    log.truncate_to(log.log_end_offset)
    assert len(cache.epoch_entries()) == 3

    log.truncate_to(11)
    assert len(cache.epoch_entries()) == 2

    log.truncate_to(10)
    assert len(cache.epoch_entries()) == 1

    log.truncate_to(0)
    assert len(cache.epoch_entries()) == 0


def singleton_records_with_leader_epoch(value: bytes, leader_epoch: int, offset: int, key: bytes | None = None,
                                        codec: CompressionType = CompressionType.NONE,
                                        timestamp: int = NO_TIMESTAMP) -> MemoryRecords:
    return with_simple_records([SimpleRecord(value, key, timestamp)], offset, codec, TimestampType.CREATE_TIME,
                               partition_leader_epoch=leader_epoch)


def test_log_recovers_for_leader_epoch(ctx: LogTestContext) -> None:
    log = ctx.create_log(LogConfig())
    leader_epoch_cache = epoch_cache(log)
    for epoch, offset in ((1, 0), (2, 1), (2, 2), (3, 3)):
        log.append_as_follower(singleton_records_with_leader_epoch(b"random", leader_epoch=epoch, offset=offset))

    expected = [EpochEntry(1, 0), EpochEntry(2, 1), EpochEntry(3, 3)]
    assert leader_epoch_cache.epoch_entries() == expected

    # deliberately remove some of the epoch entries
    leader_epoch_cache.clear_and_flush_latest(2)
    assert leader_epoch_cache.epoch_entries() != expected
    log.close()

    recovered_log = ctx.create_log(LogConfig())
    assert epoch_cache(recovered_log).epoch_entries() == expected
    recovered_log.close()


def test_first_unstable_offset_with_transactional_data(ctx: LogTestContext) -> None:
    log = ctx.create_log(create_log_config(segment_bytes=1024 * 1024 * 5))
    pid, epoch, seq = 137, 5, 0
    recs = with_transactional_records([SimpleRecord(b"foo"), SimpleRecord(b"bar"), SimpleRecord(b"baz")], pid, epoch,
                                      seq)
    first_append_info = log.append_as_leader(recs, leader_epoch=0)
    assert log.first_unstable_offset.message_offset == first_append_info.first_offset

    seq += 3
    log.append_as_leader(with_transactional_records([SimpleRecord(b"blah")], pid, epoch, seq), leader_epoch=0)
    assert log.first_unstable_offset.message_offset == first_append_info.first_offset

    commit_append_info = log.append_as_leader(ctx.end_txn_records(ControlRecordType.COMMIT, pid, epoch),
                                              is_from_client=False, leader_epoch=0)
    assert log.first_unstable_offset.message_offset == first_append_info.first_offset
    log.on_high_watermark_incremented(commit_append_info.last_offset + 1)

    assert log.first_unstable_offset is None


EXPECTED_ABORTED = [AbortedTxn(1, 0, 29, 8), AbortedTxn(2, 8, 74, 36)]


def test_transaction_index_updated(ctx: LogTestContext) -> None:
    log = ctx.create_log(create_log_config(segment_bytes=1024 * 1024 * 5))
    append_mixed_transactions(ctx, log)
    assert all_aborted_transactions(log) == EXPECTED_ABORTED


def test_full_transaction_index_recovery(ctx: LogTestContext) -> None:
    log = ctx.create_log(create_log_config(segment_bytes=128 * 5))
    append_mixed_transactions(ctx, log)

    for segment in log.log_segments():
        segment.index.delete()
        segment.txn_index.delete()

    log.close()

    reloaded_log = ctx.create_log(create_log_config(segment_bytes=1024 * 5))
    assert all_aborted_transactions(reloaded_log) == EXPECTED_ABORTED


def test_recover_only_last_segment(ctx: LogTestContext) -> None:
    log = ctx.create_log(create_log_config(segment_bytes=128 * 5))
    append_mixed_transactions(ctx, log)

    last_segment = log.log_segments()[-1]
    recovery_point = last_segment.base_offset
    last_segment.index.delete()
    last_segment.txn_index.delete()

    log.close()

    reloaded_log = ctx.create_log(create_log_config(segment_bytes=1024 * 5), recovery_point=recovery_point)
    assert all_aborted_transactions(reloaded_log) == EXPECTED_ABORTED


def test_recover_last_segment_with_no_snapshots(ctx: LogTestContext) -> None:
    log = ctx.create_log(create_log_config(segment_bytes=128 * 5))
    append_mixed_transactions(ctx, log)

    ctx.delete_producer_snapshot_files()

    last_segment = log.log_segments()[-1]
    recovery_point = last_segment.base_offset
    last_segment.index.delete()
    last_segment.txn_index.delete()

    log.close()

    reloaded_log = ctx.create_log(create_log_config(segment_bytes=1024 * 5), recovery_point=recovery_point)
    assert all_aborted_transactions(reloaded_log) == EXPECTED_ABORTED


def test_transaction_index_updated_through_replication(ctx: LogTestContext) -> None:
    epoch = 0
    log = ctx.create_log(create_log_config(segment_bytes=1024 * 1024 * 5))
    buffer = bytearray()
    pid1, pid2, pid3, pid4 = 1, 2, 3, 4

    append_pid1 = append_transactional_to_buffer(buffer, pid1, epoch)
    append_pid2 = append_transactional_to_buffer(buffer, pid2, epoch)
    append_pid3 = append_transactional_to_buffer(buffer, pid3, epoch)
    append_pid4 = append_transactional_to_buffer(buffer, pid4, epoch)

    append_pid1(0, 5)
    append_non_transactional_to_buffer(buffer, 5, 3)
    append_pid2(8, 2)
    append_pid1(10, 4)
    append_pid3(14, 3)
    append_non_transactional_to_buffer(buffer, 17, 2)
    append_pid1(19, 10)
    ctx.append_end_txn_marker_to_buffer(buffer, pid1, epoch, 29, ControlRecordType.ABORT)
    append_pid2(30, 6)
    append_pid4(36, 3)
    append_non_transactional_to_buffer(buffer, 39, 10)
    append_pid3(49, 9)
    ctx.append_end_txn_marker_to_buffer(buffer, pid3, epoch, 58, ControlRecordType.COMMIT)
    append_pid4(59, 8)
    append_pid2(67, 7)
    ctx.append_end_txn_marker_to_buffer(buffer, pid2, epoch, 74, ControlRecordType.ABORT)
    append_non_transactional_to_buffer(buffer, 75, 10)
    append_pid4(85, 4)
    ctx.append_end_txn_marker_to_buffer(buffer, pid4, epoch, 89, ControlRecordType.COMMIT)

    append_as_follower(log, MemoryRecords(buffer))

    assert all_aborted_transactions(log) == EXPECTED_ABORTED


def test_zombie_coordinator_fenced(ctx: LogTestContext) -> None:
    pid, epoch = 1, 0
    log = ctx.create_log(create_log_config(segment_bytes=1024 * 1024 * 5))
    append = append_transactional_as_leader(log, pid, epoch)

    append(10)
    ctx.append_end_txn_marker_as_leader(log, pid, epoch, ControlRecordType.ABORT, coordinator_epoch=1)

    append(5)
    ctx.append_end_txn_marker_as_leader(log, pid, epoch, ControlRecordType.COMMIT, coordinator_epoch=2)

    with pytest.raises(TransactionCoordinatorFencedException):
        ctx.append_end_txn_marker_as_leader(log, pid, epoch, ControlRecordType.ABORT, coordinator_epoch=1)


def _unstable_across_two_segments(log: Log) -> None:
    append_pid = append_transactional_as_leader(log, 1, 0)
    append_pid(5)
    append_non_transactional_as_leader(log, 3)
    assert log.log_end_offset == 8

    log.roll()
    assert len(log.log_segments()) == 2
    append_pid(5)

    assert log.first_unstable_offset.message_offset == 0


def test_first_unstable_offset_does_not_exceed_log_start_offset_mid_segment(ctx: LogTestContext) -> None:
    log = ctx.create_log(create_log_config(segment_bytes=1024 * 1024 * 5))
    _unstable_across_two_segments(log)

    log.maybe_increment_log_start_offset(5)

    # the first unstable offset should be lower bounded by the log start offset
    assert log.first_unstable_offset.message_offset == 5


def test_first_unstable_offset_does_not_exceed_log_start_offset_after_segment_deletion(ctx: LogTestContext) -> None:
    log = ctx.create_log(create_log_config(segment_bytes=1024 * 1024 * 5))
    _unstable_across_two_segments(log)

    log.maybe_increment_log_start_offset(8)
    log.on_high_watermark_incremented(log.log_end_offset)
    log.delete_old_segments()
    assert len(log.log_segments()) == 1

    assert log.first_unstable_offset.message_offset == 8


def test_last_stable_offset_with_mixed_producer_data(ctx: LogTestContext) -> None:
    log = ctx.create_log(create_log_config(segment_bytes=1024 * 1024 * 5))
    epoch = 5
    pid1, seq1, pid2, seq2 = 137, 0, 983, 0

    first_append_info = log.append_as_leader(with_transactional_records(
        [SimpleRecord(b"a"), SimpleRecord(b"b"), SimpleRecord(b"c")], pid1, epoch, seq1), leader_epoch=0)
    assert log.first_unstable_offset.message_offset == first_append_info.first_offset

    log.append_as_leader(with_simple_records([SimpleRecord(b"g"), SimpleRecord(b"h"), SimpleRecord(b"i")]),
                         leader_epoch=0)

    second_append_info = log.append_as_leader(with_transactional_records(
        [SimpleRecord(b"d"), SimpleRecord(b"e"), SimpleRecord(b"f")], pid2, epoch, seq2), leader_epoch=0)

    assert log.first_unstable_offset.message_offset == first_append_info.first_offset

    abort_append_info = log.append_as_leader(ctx.end_txn_records(ControlRecordType.ABORT, pid1, epoch),
                                             is_from_client=False, leader_epoch=0)
    log.on_high_watermark_incremented(abort_append_info.last_offset + 1)

    assert log.first_unstable_offset.message_offset == second_append_info.first_offset

    commit_append_info = log.append_as_leader(ctx.end_txn_records(ControlRecordType.COMMIT, pid2, epoch),
                                              is_from_client=False, leader_epoch=0)
    log.on_high_watermark_incremented(commit_append_info.last_offset + 1)

    assert log.first_unstable_offset is None


def test_aborted_transaction_spanning_multiple_segments(ctx: LogTestContext) -> None:
    pid, epoch, seq = 137, 5, 0
    recs = with_transactional_records([SimpleRecord(b"a"), SimpleRecord(b"b"), SimpleRecord(b"c")], pid, epoch, seq)

    log = ctx.create_log(create_log_config(segment_bytes=recs.size_in_bytes()))

    first_append_info = log.append_as_leader(recs, leader_epoch=0)
    assert log.first_unstable_offset.message_offset == first_append_info.first_offset
    assert log.first_unstable_offset.segment_base_offset == 0

    # this write should spill to the second segment
    seq = 3
    log.append_as_leader(with_transactional_records([SimpleRecord(b"d"), SimpleRecord(b"e"), SimpleRecord(b"f")],
                                                    pid, epoch, seq), leader_epoch=0)
    assert log.first_unstable_offset.message_offset == first_append_info.first_offset
    assert log.first_unstable_offset.segment_base_offset == 0
    assert log.log_end_offset_metadata.segment_base_offset == 3

    append_info = log.append_as_leader(ctx.end_txn_records(ControlRecordType.ABORT, pid, epoch),
                                       is_from_client=False, leader_epoch=0)
    log.on_high_watermark_incremented(append_info.last_offset + 1)
    assert log.first_unstable_offset is None

    fetch_data_info = log.read_fetch_data_info(0, 2048, isolation_level=IsolationLevel.READ_COMMITTED)
    assert fetch_data_info.aborted_transactions is not None
    assert len(fetch_data_info.aborted_transactions) == 1
    assert fetch_data_info.aborted_transactions[0] == AbortedTransaction(pid, 0)
