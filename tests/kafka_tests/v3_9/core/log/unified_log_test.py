"""Port of core/src/test/scala/unit/kafka/log/UnifiedLogTest.scala (Kafka 3.9).

The fields of Kafka's test class (a temp dir, a partition log dir in it, MockTime with its scheduler, the logs to
close) are the `ctx` fixture; Kafka's private helpers are module functions taking it. Scala's Option / Java's
Optional are `X | None`. Metrics (BrokerTopicStats, Yammer) are not ported: the logs get no stats object and the
metric assertions are left out (said per case). Tiered storage is not ported: its cases run on UnifiedLog's own
remote offsets, with a fake in place of Kafka's Mockito RemoteLogManager; Mockito's spy is an instance attribute.
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from kio.schema.fetch.v17.response import AbortedTransaction
from kio.schema.types import ProducerId
from kio.static.primitive import i64

from kafka_edu.v1_0_2.clients.common.errors import (
    IllegalArgumentException,
    InvalidProducerEpochException,
    InvalidTxnStateException,
    KafkaStorageException,
    OffsetOutOfRangeException,
    OffsetsOutOfOrderException,
    OutOfOrderSequenceException,
    RecordBatchTooLargeException,
    RecordTooLargeException,
    TransactionCoordinatorFencedException,
    UnexpectedAppendOffsetException,
)
from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.errors.inconsistent_topic_id_exception import InconsistentTopicIdException
from kafka_edu.v3_9.clients.common.internals import topic as Topic
from kafka_edu.v3_9.clients.common.invalid_record_exception import InvalidRecordException
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType
from kafka_edu.v3_9.clients.common.record.end_transaction_marker import EndTransactionMarker
from kafka_edu.v3_9.clients.common.record.file_records import FileRecords, TimestampAndOffset
from kafka_edu.v3_9.clients.common.record.memory_records import (
    BatchRetention,
    BatchRetentionResult,
    MemoryRecords,
    RecordFilter,
)
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
)
from kafka_edu.v3_9.clients.common.record.record_version import RecordVersion
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.core.log import unified_log
from kafka_edu.v3_9.core.log.unified_log import UnifiedLog
from kafka_edu.v3_9.server_common.server.util.kafka_scheduler import KafkaScheduler
from kafka_edu.v3_9.server_common.server.util.mock_time import MockTime
from kafka_edu.v3_9.storage.storage.internals.checkpoint.leader_epoch_checkpoint_file import LeaderEpochCheckpointFile
from kafka_edu.v3_9.storage.storage.internals.checkpoint.partition_metadata_file import PartitionMetadataFile
from kafka_edu.v3_9.storage.storage.internals.epoch.leader_epoch_file_cache import LeaderEpochFileCache
from kafka_edu.v3_9.storage.storage.internals.log import log_file_utils
from kafka_edu.v3_9.storage.storage.internals.log.aborted_txn import AbortedTxn
from kafka_edu.v3_9.storage.storage.internals.log.append_origin import AppendOrigin
from kafka_edu.v3_9.storage.storage.internals.log.epoch_entry import EpochEntry
from kafka_edu.v3_9.storage.storage.internals.log.fetch_isolation import FetchIsolation
from kafka_edu.v3_9.storage.storage.internals.log.log_config import LogConfig
from kafka_edu.v3_9.storage.storage.internals.log.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.storage.storage.internals.log.log_offset_snapshot import LogOffsetSnapshot
from kafka_edu.v3_9.storage.storage.internals.log.log_offsets_listener import LogOffsetsListener
from kafka_edu.v3_9.storage.storage.internals.log.log_segment import LogSegment
from kafka_edu.v3_9.storage.storage.internals.log.log_start_offset_increment_reason import (
    LogStartOffsetIncrementReason,
)
from kafka_edu.v3_9.storage.storage.internals.log.producer_state_manager import ProducerStateManager
from kafka_edu.v3_9.storage.storage.internals.log.producer_state_manager_config import ProducerStateManagerConfig
from kafka_edu.v3_9.storage.storage.internals.log.record_validation_exception import RecordValidationException
from kafka_edu.v3_9.storage.storage.internals.log.verification_guard import VerificationGuard
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.core.log import log_test_utils as LogTestUtils

INT_MAX = 2**31 - 1
LONG_MAX = 2**63 - 1
PRODUCER_ID_EXPIRATION_MS_DEFAULT = 86400000  # TransactionLogConfigs
PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_DEFAULT = 600000  # TransactionLogConfigs

NOT_APPLICABLE: dict[str, str] = {
}

NOT_PORTED: dict[str, str] = {
    "testCompactionDeletesProducerStateSnapshots": "3.9's LogCleaner (Cleaner, LogToClean) is not ported yet",
}

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/log/UnifiedLogTest.scala",
    cases=[
        "testHighWatermarkMetadataUpdatedAfterSegmentRoll",
        "testAppendAsLeaderWithRaftLeader",
        "testAppendInfoFirstOffset",
        "testTruncateBelowFirstUnstableOffset",
        "testTruncateFullyAndStartBelowFirstUnstableOffset",
        "testTruncateFullyAndStart",
        "testHighWatermarkMaintenance",
        "testFetchUpToLogEndOffset",
        "testFetchUpToHighWatermark",
        "testActiveProducers",
        "testFetchUpToLastStableOffset",
        "testOffsetFromProducerSnapshotFile",
        "testTimeBasedLogRollDuringAppend",
        "testRollSegmentThatAlreadyExists",
        "testNonSequentialAppend",
        "testTruncateToEndOffsetClearsEpochCache",
        "testLogSegmentsCallCorrect",
        "testInitializationOfProducerSnapshotsUpgradePath",
        "testLogReinitializeAfterManualDelete",
        "testProducerExpireCheckAfterDelete",
        "testProducerIdMapOffsetUpdatedForNonIdempotentData",
        "testRebuildProducerIdMapWithCompactedData",
        "testRebuildProducerStateWithEmptyCompactedBatch",
        "testUpdateProducerIdMapWithCompactedData",
        "testProducerIdMapTruncateTo",
        "testProducerIdMapTruncateToWithNoSnapshots",
        "testRetentionDeletesProducerStateSnapshots",
        "testRetentionIdempotency",
        "testLogStartOffsetMovementDeletesSnapshots",
        "testCompactionDeletesProducerStateSnapshots",
        "testLoadingLogDeletesProducerStateSnapshotsPastLogEndOffset",
        "testProducerIdMapTruncateFullyAndStartAt",
        "testProducerIdExpirationOnSegmentDeletion",
        "testTakeSnapshotOnRollAndDeleteSnapshotOnRecoveryPointCheckpoint",
        "testProducerSnapshotAfterSegmentRollOnAppend",
        "testRebuildTransactionalState",
        "testPeriodicProducerIdExpiration",
        "testDuplicateAppends",
        "testMultipleProducerIdsPerMemoryRecord",
        "testDuplicateAppendToFollower",
        "testMultipleProducersWithDuplicatesInSingleAppend",
        "testOldProducerEpoch",
        "testDeleteSnapshotsOnIncrementLogStartOffset",
        "testTimeBasedLogRollJitter",
        "testSizeBasedLogRoll",
        "testLoadEmptyLog",
        "testAppendAndReadWithSequentialOffsets",
        "testAppendAndReadWithNonSequentialOffsets",
        "testReadAtLogGap",
        "testLogRollAfterLogHandlerClosed",
        "testReadWithMinMessage",
        "testReadWithTooSmallMaxLength",
        "testReadOutOfRange",
        "testFlushingEmptyActiveSegments",
        "testLogRolls",
        "testCompressedMessages",
        "testThatGarbageCollectingSegmentsDoesntChangeOffset",
        "testMessageSetSizeCheck",
        "testCompactedTopicConstraints",
        "testMessageSizeCheck",
        "testMessageSizeCheckInAppendAsFollower",
        "testLogFlushesPartitionMetadataOnAppend",
        "testLogFlushesPartitionMetadataOnClose",
        "testLogRecoversTopicId",
        "testNoOpWhenKeepPartitionMetadataFileIsFalse",
        "testLogFailsWhenInconsistentTopicIdSet",
        "testBuildTimeIndexWhenNotAssigningOffsets",
        "testFetchOffsetByTimestampIncludesLeaderEpoch",
        "testFetchOffsetByTimestampWithMaxTimestampIncludesTimestamp",
        "testFetchOffsetByTimestampFromRemoteStorage",
        "testFetchLatestTieredTimestampNoRemoteStorage",
        "testFetchLatestTieredTimestampWithRemoteStorage",
        "testTruncateTo",
        "testIndexResizingAtTruncation",
        "testAsyncDelete",
        "testAppendMessageWithNullPayload",
        "testAppendWithOutOfOrderOffsetsThrowsException",
        "testAppendBelowExpectedOffsetThrowsException",
        "testAppendEmptyLogBelowLogStartOffsetThrowsException",
        "testAppendWithNoTimestamp",
        "testAppendToOrReadFromLogInFailedLogDir",
        "testWriteLeaderEpochCheckpointAfterDirectoryRename",
        "testTopicIdTransfersAfterDirectoryRename",
        "testTopicIdFlushesBeforeDirectoryRename",
        "testLeaderEpochCacheClearedAfterDowngradeInAppendedMessages",
        "testLeaderEpochCacheClearedAfterDynamicMessageFormatDowngrade",
        "testLeaderEpochCacheCreatedAfterMessageFormatUpgrade",
        "testSplitOnOffsetOverflow",
        "testDegenerateSegmentSplit",
        "testDegenerateSegmentSplitWithOutOfRangeBatchLastOffset",
        "testDeleteOldSegments",
        "testLogDeletionAfterClose",
        "testLogDeletionAfterDeleteRecords",
        "shouldDeleteSizeBasedSegments",
        "shouldNotDeleteSizeBasedSegmentsWhenUnderRetentionSize",
        "shouldDeleteTimeBasedSegmentsReadyToBeDeleted",
        "shouldNotDeleteTimeBasedSegmentsWhenNoneReadyToBeDeleted",
        "shouldNotDeleteSegmentsWhenPolicyDoesNotIncludeDelete",
        "shouldDeleteSegmentsReadyToBeDeletedWhenCleanupPolicyIsCompactAndDelete",
        "shouldDeleteStartOffsetBreachedSegmentsWhenPolicyDoesNotIncludeDelete",
        "shouldApplyEpochToMessageOnAppendIfLeader",
        "followerShouldSaveEpochInformationFromReplicatedMessagesToTheEpochCache",
        "shouldTruncateLeaderEpochsWhenDeletingSegments",
        "shouldUpdateOffsetForLeaderEpochsWhenDeletingSegments",
        "shouldTruncateLeaderEpochCheckpointFileWhenTruncatingLog",
        "testFirstUnstableOffsetNoTransactionalData",
        "testFirstUnstableOffsetWithTransactionalData",
        "testReadCommittedWithConcurrentHighWatermarkUpdates",
        "testTransactionIndexUpdated",
        "testTransactionIndexUpdatedThroughReplication",
        "testZombieCoordinatorFenced",
        "testZombieCoordinatorFencedEmptyTransaction",
        "testEndTxnWithFencedProducerEpoch",
        "testLastStableOffsetDoesNotExceedLogStartOffsetMidSegment",
        "testLastStableOffsetDoesNotExceedLogStartOffsetAfterSegmentDeletion",
        "testAppendToTransactionIndexFailure",
        "testOffsetSnapshot",
        "testLastStableOffsetWithMixedProducerData",
        "testAbortedTransactionSpanningMultipleSegments",
        "testLoadPartitionDirWithNoSegmentsShouldNotThrow",
        "testSegmentDeletionWithHighWatermarkInitialization",
        "testCannotDeleteSegmentsAtOrAboveHighWatermark",
        "testCannotIncrementLogStartOffsetPastHighWatermark",
        "testRenamingDirWithoutReinitialization",
        "testMaybeUpdateHighWatermarkAsFollower",
        "testRemoteLogStorageIsDisabledOnInternalAndRemoteLogMetadataTopic",
        "testNoOpWhenRemoteLogStorageIsDisabled",
        "testStartOffsetsRemoteLogStorageIsEnabled",
        "testLogOffsetsListener",
        "testUpdateLogOffsetsListener",
        "testTransactionIsOngoingAndVerificationGuard",
        "testEmptyTransactionStillClearsVerificationGuard",
        "testDisabledVerificationClearsVerificationGuard",
        "testEnablingVerificationWhenRequestIsAtLogLayer",
        "testAllowNonZeroSequenceOnFirstAppendNonZeroEpoch",
        "testRecoveryPointNotIncrementedOnProducerStateSnapshotFlushFailure",
        "testDeletableSegmentsFilter",
        "testDeletableSegmentsIteration",
        "testActiveSegmentDeletionDueToRetentionTimeBreachWithRemoteStorage",
        "testSegmentDeletionEnabledBeforeUploadToRemoteTierWhenLogStartOffsetMovedAhead",
        "testRetentionOnLocalLogDeletionWhenRemoteLogCopyEnabledAndDefaultLocalRetentionBytes",
        "testRetentionOnLocalLogDeletionWhenRemoteLogCopyEnabledAndDefaultLocalRetentionMs",
        "testRetentionOnLocalLogDeletionWhenRemoteLogCopyDisabled",
        "testIncrementLocalLogStartOffsetAfterLocalLogDeletion",
        "testConvertToOffsetMetadataDoesNotThrowOffsetOutOfRangeError",
        "testGetFirstBatchTimestampForSegments",
    ],
    not_applicable=NOT_APPLICABLE,
    not_ported=NOT_PORTED,
)


@dataclass
class Ctx:
    """UnifiedLogTest's fields."""

    tmp_dir: Path
    log_dir: Path
    mock_time: MockTime = field(default_factory=MockTime)
    logs_to_close: list[UnifiedLog] = field(default_factory=list)
    producer_state_manager_config: ProducerStateManagerConfig = field(
        default_factory=lambda: ProducerStateManagerConfig(PRODUCER_ID_EXPIRATION_MS_DEFAULT, False))


def random_partition_log_dir(parent_dir: Path) -> Path:
    """TestUtils.randomPartitionLogDir: kafka-<n>, which parses as topic kafka, partition n."""
    for _ in range(1000):
        f = parent_dir / f"kafka-{random.randrange(1000000)}"
        try:
            f.mkdir()
            return f
        except FileExistsError:
            continue
    raise AssertionError("Failed to create directory after 1000 attempts")


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[Ctx]:
    c = Ctx(tmp_path, random_partition_log_dir(tmp_path))
    yield c
    for log in c.logs_to_close:
        try:
            log.close()
        except Exception:  # Utils.closeQuietly
            pass
    shutil.rmtree(c.tmp_dir, ignore_errors=True)


def create_log(ctx: Ctx, dir: Path, config: LogConfig, log_start_offset: int = 0, recovery_point: int = 0,
               scheduler: Any = None, time: Any = None, max_transaction_timeout_ms: int = 60 * 60 * 1000,
               producer_state_manager_config: ProducerStateManagerConfig | None = None,
               producer_id_expiration_check_interval_ms: int = PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_DEFAULT,
               last_shutdown_clean: bool = True, topic_id: Uuid | None = None,
               keep_partition_metadata_file: bool = True, remote_storage_system_enable: bool = False,
               log_offsets_listener: LogOffsetsListener = LogOffsetsListener.NO_OP_OFFSETS_LISTENER) -> UnifiedLog:
    log = LogTestUtils.create_log(
        dir, config, None, scheduler if scheduler is not None else ctx.mock_time.scheduler,
        time if time is not None else ctx.mock_time, log_start_offset, recovery_point, max_transaction_timeout_ms,
        producer_state_manager_config if producer_state_manager_config is not None
        else ctx.producer_state_manager_config,
        producer_id_expiration_check_interval_ms, last_shutdown_clean, topic_id, keep_partition_metadata_file, {},
        remote_storage_system_enable, None, log_offsets_listener)
    ctx.logs_to_close.append(log)
    return log


def create_empty_logs(dir: Path, *offsets: int) -> None:
    for offset in offsets:
        log_file_utils.log_file(dir, offset).touch(exist_ok=False)
        log_file_utils.offset_index_file(dir, offset).touch(exist_ok=False)


def records(simple_records: Iterable[SimpleRecord], magic_value: int = CURRENT_MAGIC_VALUE,
            codec: Any = Compression.NONE, producer_id: int = NO_PRODUCER_ID, producer_epoch: int = NO_PRODUCER_EPOCH,
            sequence: int = NO_SEQUENCE, base_offset: int = 0,
            partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH) -> MemoryRecords:
    """TestUtils.records."""
    import time as _time
    builder = MemoryRecords.builder(bytearray(), magic_value, codec, TimestampType.CREATE_TIME, base_offset,
                                    int(_time.time() * 1000), producer_id, producer_epoch, sequence, False, False,
                                    partition_leader_epoch)
    for r in simple_records:
        builder.append(r)
    return builder.build()


def singleton_records(value: bytes | None, key: bytes | None = None, codec: Any = Compression.NONE,
                      timestamp: int = NO_TIMESTAMP, magic_value: int = CURRENT_MAGIC_VALUE) -> MemoryRecords:
    """TestUtils.singletonRecords."""
    return records([SimpleRecord.of(timestamp, key, value)], magic_value=magic_value, codec=codec)


def srec(timestamp: int, key: bytes | None, value: bytes | None) -> SimpleRecord:
    """new SimpleRecord(timestamp, key, value)."""
    return SimpleRecord.of(timestamp, key, value)


def offsets_of(recs: Any) -> list[int]:
    return [r.offset() for r in recs.records()]


def assert_valid_log_offset_metadata(log: UnifiedLog, offset_metadata: LogOffsetMetadata) -> None:
    assert not offset_metadata.message_offset_only()
    segment_base_offset = offset_metadata.segment_base_offset
    segment_opt = log.log_segments(segment_base_offset, segment_base_offset + 1)
    assert segment_opt
    segment = segment_opt[0]
    assert segment.base_offset() == segment_base_offset
    assert offset_metadata.relative_position_in_segment <= segment.size()
    read_info = segment.read(offset_metadata.message_offset, 2048, segment.size(), False)
    if offset_metadata.relative_position_in_segment < segment.size():
        assert read_info.fetch_offset_metadata == offset_metadata
    else:
        assert read_info is None


def assert_cached_first_unstable_offset(log: UnifiedLog, expected_offset: int) -> None:
    first_unstable_offset = log.producer_state_manager.first_unstable_offset()
    assert first_unstable_offset is not None
    assert expected_offset == first_unstable_offset.message_offset
    assert not first_unstable_offset.message_offset_only()
    assert_valid_log_offset_metadata(log, first_unstable_offset)


def assert_non_empty_fetch(log: UnifiedLog, offset: int, isolation: FetchIsolation) -> None:
    read_info = log.read(offset, INT_MAX, isolation, True)
    assert not read_info.first_entry_incomplete
    assert read_info.records.size_in_bytes() > 0
    upper_bound_offset = {FetchIsolation.LOG_END: log.log_end_offset, FetchIsolation.HIGH_WATERMARK:
                          log.high_watermark, FetchIsolation.TXN_COMMITTED: log.last_stable_offset}[isolation]()
    for record in read_info.records.records():
        assert record.offset() < upper_bound_offset
    assert offset == read_info.fetch_offset_metadata.message_offset
    assert_valid_log_offset_metadata(log, read_info.fetch_offset_metadata)


def assert_empty_fetch(log: UnifiedLog, offset: int, isolation: FetchIsolation) -> None:
    read_info = log.read(offset, INT_MAX, isolation, True)
    assert not read_info.first_entry_incomplete
    assert read_info.records.size_in_bytes() == 0
    assert offset == read_info.fetch_offset_metadata.message_offset
    assert_valid_log_offset_metadata(log, read_info.fetch_offset_metadata)


def append_transactional_to_buffer(ctx: Ctx, buffer: bytearray, producer_id: int, producer_epoch: int,
                                   leader_epoch: int = 0) -> Callable[[int, int], None]:
    sequence = 0

    def append(offset: int, num_records: int) -> None:
        nonlocal sequence
        builder = MemoryRecords.builder(buffer, CURRENT_MAGIC_VALUE, Compression.NONE, TimestampType.CREATE_TIME,
                                        offset, ctx.mock_time.milliseconds(), producer_id, producer_epoch, sequence,
                                        True, False, leader_epoch)
        for seq in range(sequence, sequence + num_records):
            builder.append(SimpleRecord(str(seq).encode()))
        sequence += num_records
        builder.close()

    return append


def append_end_txn_marker_to_buffer(ctx: Ctx, buffer: bytearray, producer_id: int, producer_epoch: int, offset: int,
                                    control_type: ControlRecordType, coordinator_epoch: int = 0,
                                    leader_epoch: int = 0) -> None:
    marker = EndTransactionMarker(control_type, coordinator_epoch)
    MemoryRecords.write_end_transactional_marker(buffer, offset, ctx.mock_time.milliseconds(), leader_epoch,
                                                 producer_id, producer_epoch, marker)


def append_non_transactional_to_buffer(buffer: bytearray, offset: int, num_records: int) -> None:
    builder = MemoryRecords.builder(buffer, compression=Compression.NONE, timestamp_type=TimestampType.CREATE_TIME,
                                    base_offset=offset)
    for seq in range(num_records):
        builder.append(SimpleRecord(str(seq).encode()))
    builder.close()


def append_as_follower(log: UnifiedLog, recs: MemoryRecords, leader_epoch: int = 0) -> None:
    for batch in recs.batches():
        batch.set_partition_leader_epoch(leader_epoch)
    log.append_as_follower(recs)


def create_log_with_offset_overflow(ctx: Ctx, log_config: LogConfig) -> tuple[UnifiedLog, LogSegment]:
    LogTestUtils.initialize_log_dir_with_overflowed_segment(ctx.log_dir)
    log = create_log(ctx, ctx.log_dir, log_config, recovery_point=LONG_MAX)
    segment_with_overflow = LogTestUtils.first_overflow_segment(log)
    if segment_with_overflow is None:
        raise AssertionError("Failed to create log with a segment which has overflowed offsets")
    return log, segment_with_overflow


def all_records(log: UnifiedLog) -> list[Any]:
    return [record for segment in log.log_segments() for batch in segment.log().batches() for record in batch]


def verify_records_in_log(log: UnifiedLog, expected_records: list[Any]) -> None:
    assert expected_records == all_records(log)


def epoch_cache(log: UnifiedLog) -> LeaderEpochFileCache:
    assert log.leader_epoch_cache is not None
    return log.leader_epoch_cache


def read_buffer(buffer: bytearray) -> MemoryRecords:
    """buffer.flip(); MemoryRecords.readableRecords(buffer.slice())."""
    return MemoryRecords.readable_records(bytes(buffer))


def abc_records(ctx: Ctx, base_offset: int = 0,
                partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH) -> MemoryRecords:
    """The three-record batch (keys a, b, c) several of Kafka's cases build."""
    now = ctx.mock_time.milliseconds()
    return records([srec(now, b"a", b"value"), srec(now, b"b", b"value"), srec(now, b"c", b"value")],
                   base_offset=base_offset, partition_leader_epoch=partition_leader_epoch)


def test_high_watermark_metadata_updated_after_segment_roll(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024)
    log = create_log(ctx, ctx.log_dir, log_config)

    def assert_fetch_size_and_offsets(fetch_offset: int, expected_size: int, expected_offsets: list[int]) -> None:
        read_info = log.read(fetch_offset, 2048, FetchIsolation.HIGH_WATERMARK, False)
        assert expected_size == read_info.records.size_in_bytes()
        assert expected_offsets == offsets_of(read_info.records)

    recs = abc_records(ctx)
    log.append_as_leader(recs, leader_epoch=0)
    assert_fetch_size_and_offsets(0, 0, [])

    log.maybe_increment_high_watermark(log.log_end_offset_metadata())
    assert_fetch_size_and_offsets(0, recs.size_in_bytes(), [0, 1, 2])

    log.roll()
    assert_fetch_size_and_offsets(0, recs.size_in_bytes(), [0, 1, 2])

    log.append_as_leader(recs, leader_epoch=0)
    assert_fetch_size_and_offsets(3, 0, [])


def test_append_as_leader_with_raft_leader(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024)
    log = create_log(ctx, ctx.log_dir, log_config)
    leader_epoch = 0

    def recs(offset: int) -> MemoryRecords:
        return abc_records(ctx, base_offset=offset, partition_leader_epoch=leader_epoch)

    log.append_as_leader(recs(0), leader_epoch, AppendOrigin.RAFT_LEADER)
    assert 0 == log.log_start_offset
    assert 3 == log.log_end_offset()

    # the raft leader assigns offsets itself: an append must start at the log end offset
    with pytest.raises(UnexpectedAppendOffsetException):
        log.append_as_leader(recs(1), leader_epoch, AppendOrigin.RAFT_LEADER)

    log.append_as_leader(recs(3), leader_epoch, AppendOrigin.RAFT_LEADER)
    assert 6 == log.log_end_offset()


def test_append_info_first_offset(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024)
    log = create_log(ctx, ctx.log_dir, log_config)

    first_append_info = log.append_as_leader(abc_records(ctx), leader_epoch=0)
    assert 0 == first_append_info.first_offset

    second_append_info = log.append_as_leader(abc_records(ctx), leader_epoch=0)
    assert 3 == second_append_info.first_offset

    log.roll()
    after_roll_append_info = log.append_as_leader(abc_records(ctx), leader_epoch=0)
    assert 3 * 2 == after_roll_append_info.first_offset


def _test_truncate_below_first_unstable_offset(ctx: Ctx, truncate_func: Callable[[UnifiedLog, int], Any]) -> None:
    # truncation below the first unstable offset resets producer state, here with the offset's segment position
    # unknown
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024)
    log = create_log(ctx, ctx.log_dir, log_config)
    producer_id = 17
    producer_epoch = 10
    sequence = 0

    log.append_as_leader(records([SimpleRecord(b"0"), SimpleRecord(b"1"), SimpleRecord(b"2")]), leader_epoch=0)
    log.append_as_leader(MemoryRecords.with_transactional_records(
        Compression.NONE, producer_id, producer_epoch, sequence, SimpleRecord(b"3"), SimpleRecord(b"4")),
        leader_epoch=0)
    assert 3 == log.first_unstable_offset()

    # close and reopen: the first unstable offset's segment position is then unknown
    log.close()

    reopened = create_log(ctx, ctx.log_dir, log_config)
    assert LogOffsetMetadata(3) == reopened.producer_state_manager.first_unstable_offset()

    truncate_func(reopened, 0)
    assert reopened.first_unstable_offset() is None
    assert {} == dict(reopened.producer_state_manager.active_producers())


def test_truncate_below_first_unstable_offset(ctx: Ctx) -> None:
    _test_truncate_below_first_unstable_offset(ctx, lambda log, target_offset: log.truncate_to(target_offset))


def test_truncate_fully_and_start_below_first_unstable_offset(ctx: Ctx) -> None:
    _test_truncate_below_first_unstable_offset(
        ctx, lambda log, target_offset: log.truncate_fully_and_start_at(target_offset))


def test_truncate_fully_and_start(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024)
    log = create_log(ctx, ctx.log_dir, log_config)
    producer_id = 17
    producer_epoch = 10
    sequence = 0

    log.append_as_leader(records([SimpleRecord(b"0"), SimpleRecord(b"1"), SimpleRecord(b"2")]), leader_epoch=0)
    log.append_as_leader(MemoryRecords.with_transactional_records(
        Compression.NONE, producer_id, producer_epoch, sequence, SimpleRecord(b"3"), SimpleRecord(b"4")),
        leader_epoch=0)
    assert 3 == log.first_unstable_offset()

    log.close()

    reopened = create_log(ctx, ctx.log_dir, log_config)
    assert LogOffsetMetadata(3) == reopened.producer_state_manager.first_unstable_offset()

    reopened.truncate_fully_and_start_at(2, 1)
    assert reopened.first_unstable_offset() is None
    assert {} == dict(reopened.producer_state_manager.active_producers())
    assert 1 == reopened.log_start_offset
    assert 2 == reopened.log_end_offset()


def test_high_watermark_maintenance(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024)
    log = create_log(ctx, ctx.log_dir, log_config)
    leader_epoch = 0

    def recs(offset: int) -> MemoryRecords:
        return abc_records(ctx, base_offset=offset, partition_leader_epoch=leader_epoch)

    def assert_high_watermark(offset: int) -> None:
        assert offset == log.high_watermark()
        assert_valid_log_offset_metadata(log, log.fetch_offset_snapshot().high_watermark)

    # high watermark initialized to 0
    assert_high_watermark(0)

    # not changed by append
    log.append_as_leader(recs(0), leader_epoch)
    assert_high_watermark(0)

    # update as leader
    log.maybe_increment_high_watermark(LogOffsetMetadata(1))
    assert_high_watermark(1)

    # cannot pass the log end offset
    log.update_high_watermark(5)
    assert_high_watermark(3)

    # update as follower
    log.append_as_follower(recs(3))
    log.update_high_watermark(6)
    assert_high_watermark(6)

    # adjusted by truncation
    log.truncate_to(3)
    assert_high_watermark(3)

    log.append_as_leader(recs(0), leader_epoch=0)
    assert_high_watermark(3)
    assert 6 == log.log_end_offset()
    assert 0 == log.log_start_offset

    # full truncation resets it too
    log.truncate_fully_and_start_at(4)
    assert 4 == log.log_end_offset()
    assert 4 == log.log_start_offset
    assert_high_watermark(4)


def test_fetch_up_to_log_end_offset(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024)
    log = create_log(ctx, ctx.log_dir, log_config)
    log.append_as_leader(records([SimpleRecord(b"0"), SimpleRecord(b"1"), SimpleRecord(b"2")]), leader_epoch=0)
    log.append_as_leader(records([SimpleRecord(b"3"), SimpleRecord(b"4")]), leader_epoch=0)

    for offset in range(log.log_start_offset, log.log_end_offset()):
        assert_non_empty_fetch(log, offset, FetchIsolation.LOG_END)


def test_fetch_up_to_high_watermark(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024)
    log = create_log(ctx, ctx.log_dir, log_config)
    log.append_as_leader(records([SimpleRecord(b"0"), SimpleRecord(b"1"), SimpleRecord(b"2")]), leader_epoch=0)
    log.append_as_leader(records([SimpleRecord(b"3"), SimpleRecord(b"4")]), leader_epoch=0)

    def assert_high_watermark_bounded_fetches() -> None:
        for offset in range(log.log_start_offset, log.high_watermark()):
            assert_non_empty_fetch(log, offset, FetchIsolation.HIGH_WATERMARK)
        for offset in range(log.high_watermark(), log.log_end_offset() + 1):
            assert_empty_fetch(log, offset, FetchIsolation.HIGH_WATERMARK)

    assert_high_watermark_bounded_fetches()
    log.update_high_watermark(3)
    assert_high_watermark_bounded_fetches()
    log.update_high_watermark(5)
    assert_high_watermark_bounded_fetches()


def test_active_producers(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024)
    log = create_log(ctx, ctx.log_dir, log_config)

    def assert_producer_state(producer_id: int, producer_epoch: int, last_sequence: int,
                              current_txn_start_offset: int | None, coordinator_epoch: int | None) -> None:
        producer_state = next((p for p in log.active_producers() if p.producer_id == producer_id), None)
        assert producer_state is not None
        assert producer_epoch == producer_state.producer_epoch
        assert last_sequence == producer_state.last_sequence
        assert (current_txn_start_offset if current_txn_start_offset is not None else -1) == \
            producer_state.current_txn_start_offset
        assert (coordinator_epoch if coordinator_epoch is not None else -1) == producer_state.coordinator_epoch

    # transactional producer state (open transaction)
    producer1_epoch = 5
    producer_id1 = 1
    LogTestUtils.append_transactional_as_leader(log, producer_id1, producer1_epoch, ctx.mock_time)(5)
    assert_producer_state(producer_id1, producer1_epoch, 4, 0, None)

    # closed transaction
    coordinator_epoch = 15
    LogTestUtils.append_end_txn_marker_as_leader(log, producer_id1, producer1_epoch, ControlRecordType.COMMIT,
                                                 ctx.mock_time.milliseconds(), coordinator_epoch)
    assert_producer_state(producer_id1, producer1_epoch, 4, None, coordinator_epoch)

    # idempotent producer state
    producer2_epoch = 5
    producer_id2 = 2
    LogTestUtils.append_idempotent_as_leader(log, producer_id2, producer2_epoch, ctx.mock_time)(3)
    assert_producer_state(producer_id2, producer2_epoch, 2, None, None)


def test_fetch_up_to_last_stable_offset(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024)
    log = create_log(ctx, ctx.log_dir, log_config)
    epoch = 0
    producer_id1 = 1
    producer_id2 = 2

    append_producer1 = LogTestUtils.append_transactional_as_leader(log, producer_id1, epoch, ctx.mock_time)
    append_producer2 = LogTestUtils.append_transactional_as_leader(log, producer_id2, epoch, ctx.mock_time)

    append_producer1(5)
    LogTestUtils.append_non_transactional_as_leader(log, 3)
    append_producer2(2)
    append_producer1(4)
    LogTestUtils.append_non_transactional_as_leader(log, 2)
    append_producer1(10)

    def assert_lso_bounded_fetches() -> None:
        for offset in range(log.log_start_offset, log.last_stable_offset()):
            assert_non_empty_fetch(log, offset, FetchIsolation.TXN_COMMITTED)
        for offset in range(log.last_stable_offset(), log.log_end_offset() + 1):
            assert_empty_fetch(log, offset, FetchIsolation.TXN_COMMITTED)

    assert_lso_bounded_fetches()

    log.update_high_watermark(log.log_end_offset())
    assert_lso_bounded_fetches()

    LogTestUtils.append_end_txn_marker_as_leader(log, producer_id1, epoch, ControlRecordType.COMMIT,
                                                 ctx.mock_time.milliseconds())
    assert 0 == log.last_stable_offset()

    log.update_high_watermark(log.log_end_offset())
    assert 8 == log.last_stable_offset()
    assert_lso_bounded_fetches()

    LogTestUtils.append_end_txn_marker_as_leader(log, producer_id2, epoch, ControlRecordType.ABORT,
                                                 ctx.mock_time.milliseconds())
    assert 8 == log.last_stable_offset()

    log.update_high_watermark(log.log_end_offset())
    assert log.log_end_offset() == log.last_stable_offset()
    assert_lso_bounded_fetches()


def test_offset_from_producer_snapshot_file(ctx: Ctx) -> None:
    offset = 23423423
    snapshot_file = log_file_utils.producer_snapshot_file(ctx.tmp_dir, offset)
    assert offset == unified_log.offset_from_file(snapshot_file)


def test_time_based_log_roll_during_append(ctx: Ctx) -> None:
    """Time-based roll: append, move the mock clock past segment.ms, check the segment count."""
    def create_records() -> MemoryRecords:
        return singleton_records(b"test")
    log_config = LogTestUtils.create_log_config(segment_ms=1 * 60 * 60)

    log = create_log(ctx, ctx.log_dir, log_config,
                     producer_state_manager_config=ProducerStateManagerConfig(24 * 60, False))
    assert 1 == log.number_of_segments(), "Log begins with a single empty segment."
    # messages without a timestamp
    ctx.mock_time.sleep(log.config().segment_ms + 1)
    log.append_as_leader(create_records(), leader_epoch=0)
    assert 1 == log.number_of_segments(), "Log doesn't roll if doing so creates an empty segment."

    log.append_as_leader(create_records(), leader_epoch=0)
    assert 2 == log.number_of_segments(), "Log rolls on this append since time has expired."

    for num_segments in range(3, 5):
        ctx.mock_time.sleep(log.config().segment_ms + 1)
        log.append_as_leader(create_records(), leader_epoch=0)
        assert num_segments == log.number_of_segments()

    # a message with a timestamp into a segment whose first message has none
    timestamp = ctx.mock_time.milliseconds() + log.config().segment_ms + 1

    def create_records_with_timestamp() -> MemoryRecords:
        return singleton_records(b"test", timestamp=timestamp)
    log.append_as_leader(create_records_with_timestamp(), leader_epoch=0)
    assert 4 == log.number_of_segments(), "Segment should not have been rolled out (wall clock based)."

    # messages with timestamps
    ctx.mock_time.sleep(log.config().segment_ms + 1)
    log.append_as_leader(create_records_with_timestamp(), leader_epoch=0)
    assert 5 == log.number_of_segments(), "A new segment should have been rolled out"

    # the wall clock past the roll time
    ctx.mock_time.sleep(log.config().segment_ms + 1)
    log.append_as_leader(create_records_with_timestamp(), leader_epoch=0)
    assert 5 == log.number_of_segments(), "The roll depends on the timestamp of the first message."

    record_with_expired_timestamp = singleton_records(b"test", timestamp=ctx.mock_time.milliseconds())
    log.append_as_leader(record_with_expired_timestamp, leader_epoch=0)
    assert 6 == log.number_of_segments(), "The timestamp in the message makes the segment expire."

    num_segments = log.number_of_segments()
    ctx.mock_time.sleep(log.config().segment_ms + 1)
    log.append_as_leader(MemoryRecords.with_records(Compression.NONE), leader_epoch=0)
    assert num_segments == log.number_of_segments(), "An empty message set does not roll the log."


def test_roll_segment_that_already_exists(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_ms=1 * 60 * 60)
    log = create_log(ctx, ctx.log_dir, log_config)
    assert 1 == log.number_of_segments(), "Log begins with a single empty segment."

    # rolling an empty active segment at its own base offset recreates it
    log.roll(0)
    assert 1 == log.number_of_segments(), "Expect 1 segment after roll() empty segment with base offset."

    recs = records([srec(ctx.mock_time.milliseconds(), b"k1", b"v1")], base_offset=0, partition_leader_epoch=0)
    log.append_as_follower(recs)
    assert 1 == log.number_of_segments(), "Expect one segment."
    assert 0 == log.active_segment().base_offset()

    records2 = records([srec(ctx.mock_time.milliseconds() + 10, b"k2", b"v2")], base_offset=1,
                       partition_leader_epoch=0)
    log.append_as_follower(records2)

    assert 2 == log.log_end_offset(), "Expect two records in the log"
    assert 0 == next(iter(LogTestUtils.read_log(log, 0, 1).records.batches())).last_offset()
    assert 1 == next(iter(LogTestUtils.read_log(log, 1, 1).records.batches())).last_offset()

    # roll so that the active segment is empty
    log.roll()
    assert 2 == log.active_segment().base_offset(), "Expect base offset of active segment to be LEO"
    assert 2 == log.number_of_segments(), "Expect two segments."

    # an index resized to nothing forces a roll of the empty active segment on the next append
    log.active_segment().offset_index().resize(0)
    records3 = records([srec(ctx.mock_time.milliseconds() + 12, b"k3", b"v3")], base_offset=2,
                       partition_leader_epoch=0)
    log.append_as_follower(records3)
    assert log.active_segment().offset_index().max_entries() > 1
    assert 2 == next(iter(LogTestUtils.read_log(log, 2, 1).records.batches())).last_offset()
    assert 2 == log.number_of_segments(), "Expect two segments."


def test_non_sequential_append(ctx: Ctx) -> None:
    log = create_log(ctx, ctx.log_dir, LogConfig({}))
    pid = 1
    epoch = 0
    recs = records([srec(ctx.mock_time.milliseconds(), b"key", b"value")], producer_id=pid, producer_epoch=epoch,
                   sequence=0)
    log.append_as_leader(recs, leader_epoch=0)

    next_records = records([srec(ctx.mock_time.milliseconds(), b"key", b"value")], producer_id=pid,
                           producer_epoch=epoch, sequence=2)
    with pytest.raises(OutOfOrderSequenceException):
        log.append_as_leader(next_records, leader_epoch=0)


def test_truncate_to_end_offset_clears_epoch_cache(ctx: Ctx) -> None:
    log = create_log(ctx, ctx.log_dir, LogConfig({}))

    recs = records([SimpleRecord(b"a"), SimpleRecord(b"b")], base_offset=27)
    append_as_follower(log, recs, leader_epoch=19)
    assert EpochEntry(19, 27) == epoch_cache(log).latest_entry()
    assert 29 == log.log_end_offset()

    def verify_truncation_clears_epoch_cache(epoch: int, truncation_offset: int) -> None:
        # become the leader
        log.maybe_assign_epoch_start_offset(epoch, log.log_end_offset())
        assert EpochEntry(epoch, 29) == epoch_cache(log).latest_entry()
        assert 29 == log.log_end_offset()

        # become a follower and truncate at or past the end: the trivial entry at the end goes
        log.truncate_to(truncation_offset)
        assert EpochEntry(19, 27) == epoch_cache(log).latest_entry()
        assert 29 == log.log_end_offset()

    verify_truncation_clears_epoch_cache(20, log.log_end_offset())
    verify_truncation_clears_epoch_cache(24, log.log_end_offset() + 1)


def test_log_segments_call_correct(ctx: Ctx) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test", timestamp=ctx.mock_time.milliseconds())

    def get_segment_offsets(log: UnifiedLog, from_offset: int, to: int) -> list[int]:
        return [s.base_offset() for s in log.log_segments(from_offset, to)]
    set_size = create_records().size_in_bytes()
    msg_per_seg = 10
    segment_size = msg_per_seg * set_size  # each segment will be 10 messages
    log_config = LogTestUtils.create_log_config(segment_bytes=segment_size)
    log = create_log(ctx, ctx.log_dir, log_config)
    assert 1 == log.number_of_segments()

    for _ in range(2 * msg_per_seg + 2):
        log.append_as_leader(create_records(), leader_epoch=0)
    assert 3 == log.number_of_segments()

    # from == to is always empty
    assert [] == get_segment_offsets(log, 10, 10)
    assert [] == get_segment_offsets(log, 15, 15)

    assert [0, 10, 20] == get_segment_offsets(log, 0, 21)

    assert [0] == get_segment_offsets(log, 1, 5)
    assert [10, 20] == get_segment_offsets(log, 13, 21)
    assert [10] == get_segment_offsets(log, 13, 17)

    # from > to is refused
    with pytest.raises(IllegalArgumentException):
        log.log_segments(10, 0)


def test_initialization_of_producer_snapshots_upgrade_path(ctx: Ctx) -> None:
    # the upgrade path: a log of several segments, its snapshot files deleted, reloaded
    log_config = LogTestUtils.create_log_config(segment_bytes=64 * 10)
    log = create_log(ctx, ctx.log_dir, log_config)
    assert log.oldest_producer_snapshot_offset() is None

    for i in range(101):
        record = SimpleRecord(str(i).encode(), timestamp=ctx.mock_time.milliseconds())
        log.append_as_leader(records([record]), leader_epoch=0)
    assert len(log.log_segments()) >= 2
    log_end_offset = log.log_end_offset()
    log.close()

    LogTestUtils.delete_producer_snapshot_files(ctx.log_dir)

    # reload after clean shutdown
    log = create_log(ctx, ctx.log_dir, log_config, recovery_point=log_end_offset)
    expected_snapshot_offsets = [s.base_offset() for s in log.log_segments()][-2:] + [log.log_end_offset()]
    assert expected_snapshot_offsets == LogTestUtils.list_producer_snapshot_offsets(ctx.log_dir)
    log.close()

    LogTestUtils.delete_producer_snapshot_files(ctx.log_dir)

    # reload after unclean shutdown with the recovery point at the log end offset
    log = create_log(ctx, ctx.log_dir, log_config, recovery_point=log_end_offset, last_shutdown_clean=False)
    assert expected_snapshot_offsets == LogTestUtils.list_producer_snapshot_offsets(ctx.log_dir)
    log.close()

    LogTestUtils.delete_producer_snapshot_files(ctx.log_dir)

    # reload after unclean shutdown with the recovery point at 0: a snapshot per segment after it
    log = create_log(ctx, ctx.log_dir, log_config, recovery_point=0, last_shutdown_clean=False)
    expected_snapshot_offsets = [s.base_offset() for s in log.log_segments()][1:] + [log.log_end_offset()]
    assert expected_snapshot_offsets == LogTestUtils.list_producer_snapshot_offsets(ctx.log_dir)
    log.close()


def test_log_reinitialize_after_manual_delete(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config()
    # no log data but a non-zero start offset
    log = create_log(ctx, ctx.log_dir, log_config, log_start_offset=500)
    assert 500 == log.log_start_offset
    assert 500 == log.log_end_offset()


def test_producer_expire_check_after_delete(ctx: Ctx) -> None:
    scheduler = KafkaScheduler(1)
    try:
        scheduler.startup()
        log_config = LogTestUtils.create_log_config()
        log = create_log(ctx, ctx.log_dir, log_config, scheduler=scheduler)

        producer_expire_check = log.producer_expire_check
        assert scheduler.task_running(producer_expire_check), "producerExpireCheck isn't as part of scheduled tasks"

        log.delete()
        assert not scheduler.task_running(producer_expire_check), \
            "producerExpireCheck is part of scheduled tasks even after log deletion"
    finally:
        scheduler.shutdown()


def test_producer_id_map_offset_updated_for_non_idempotent_data(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=2048 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)
    log.append_as_leader(records([srec(ctx.mock_time.milliseconds(), b"key", b"value")]), leader_epoch=0)
    log.take_producer_snapshot()
    assert 1 == log.latest_producer_snapshot_offset()


class _Filter(RecordFilter):
    def __init__(self, retention: BatchRetention, contains_marker_for_empty_txn: bool,
                 should_retain: Callable[[Any], bool]) -> None:
        super().__init__(0, 0)
        self._retention = retention
        self._contains_marker = contains_marker_for_empty_txn
        self._should_retain = should_retain

    def check_batch_retention(self, batch: Any) -> BatchRetentionResult:
        return BatchRetentionResult(self._retention, self._contains_marker)

    def should_retain_record(self, record_batch: Any, record: Any) -> bool:
        return self._should_retain(record)


def _compacted_records(ctx: Ctx, pid: int, epoch: int, seq: int, base_offset: int) -> MemoryRecords:
    """A batch with gaps, as compaction leaves it: the keyed records filtered out."""
    now = ctx.mock_time.milliseconds()
    recs = records([SimpleRecord(b"a", timestamp=now), srec(now, b"key", b"b"), SimpleRecord(b"c", timestamp=now),
                    srec(now, b"key", b"d")], producer_id=pid, producer_epoch=epoch, sequence=seq,
                   base_offset=base_offset)
    for batch in recs.batches():
        batch.set_partition_leader_epoch(0)
    filtered = bytearray()
    recs.filter_to(TopicPartition("foo", 0), _Filter(BatchRetention.DELETE_EMPTY, False, lambda r: not r.has_key()),
                   filtered, INT_MAX)
    return MemoryRecords.readable_records(bytes(filtered))


def test_rebuild_producer_id_map_with_compacted_data(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=2048 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)
    pid = 1
    base_offset = 23
    log.append_as_follower(_compacted_records(ctx, pid, 0, 0, base_offset))

    # more data, then a truncation: producer state is rebuilt
    more_records = records([SimpleRecord(b"e", timestamp=ctx.mock_time.milliseconds()),
                            SimpleRecord(b"f", timestamp=ctx.mock_time.milliseconds())], base_offset=base_offset + 4)
    for batch in more_records.batches():
        batch.set_partition_leader_epoch(0)
    log.append_as_follower(more_records)

    log.truncate_to(base_offset + 4)

    active_producers = log.active_producers_with_last_sequence()
    assert pid in active_producers
    assert 3 == active_producers[pid]


def test_rebuild_producer_state_with_empty_compacted_batch(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=2048 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)
    pid = 1
    epoch = 0
    seq = 0
    base_offset = 23

    # an empty batch
    now = ctx.mock_time.milliseconds()
    recs = records([srec(now, b"key", b"a"), srec(now, b"key", b"b")], producer_id=pid, producer_epoch=epoch,
                   sequence=seq, base_offset=base_offset)
    for batch in recs.batches():
        batch.set_partition_leader_epoch(0)
    filtered = bytearray()
    recs.filter_to(TopicPartition("foo", 0), _Filter(BatchRetention.RETAIN_EMPTY, True, lambda r: False), filtered,
                   INT_MAX)
    log.append_as_follower(MemoryRecords.readable_records(bytes(filtered)))

    more_records = records([SimpleRecord(b"e", timestamp=now), SimpleRecord(b"f", timestamp=now)],
                           base_offset=base_offset + 2)
    for batch in more_records.batches():
        batch.set_partition_leader_epoch(0)
    log.append_as_follower(more_records)

    log.truncate_to(base_offset + 2)

    active_producers = log.active_producers_with_last_sequence()
    assert pid in active_producers
    assert 1 == active_producers[pid]


def test_update_producer_id_map_with_compacted_data(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=2048 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)
    pid = 1
    log.append_as_follower(_compacted_records(ctx, pid, 0, 0, 23))
    active_producers = log.active_producers_with_last_sequence()
    assert pid in active_producers
    assert 3 == active_producers[pid]


def test_producer_id_map_truncate_to(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=2048 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)
    log.append_as_leader(records([SimpleRecord(b"a")]), leader_epoch=0)
    log.append_as_leader(records([SimpleRecord(b"b")]), leader_epoch=0)
    log.take_producer_snapshot()

    log.append_as_leader(records([SimpleRecord(b"c")]), leader_epoch=0)
    log.take_producer_snapshot()

    log.truncate_to(2)
    assert 2 == log.latest_producer_snapshot_offset()
    assert 2 == log.latest_producer_state_end_offset()

    log.truncate_to(1)
    assert 1 == log.latest_producer_snapshot_offset()
    assert 1 == log.latest_producer_state_end_offset()

    log.truncate_to(0)
    assert log.latest_producer_snapshot_offset() is None
    assert 0 == log.latest_producer_state_end_offset()


def test_producer_id_map_truncate_to_with_no_snapshots(ctx: Ctx) -> None:
    # the upgrade shortcut cannot apply after the first load
    log_config = LogTestUtils.create_log_config(segment_bytes=2048 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)
    pid = 1
    epoch = 0

    log.append_as_leader(records([SimpleRecord(b"a")], producer_id=pid, producer_epoch=epoch, sequence=0),
                         leader_epoch=0)
    log.append_as_leader(records([SimpleRecord(b"b")], producer_id=pid, producer_epoch=epoch, sequence=1),
                         leader_epoch=0)

    LogTestUtils.delete_producer_snapshot_files(ctx.log_dir)

    log.truncate_to(1)
    assert 1 == len(log.active_producers_with_last_sequence())
    assert 0 == log.active_producers_with_last_sequence().get(pid)


@pytest.mark.parametrize("create_empty_active_segment", [True, False])
def test_retention_deletes_producer_state_snapshots(ctx: Ctx, create_empty_active_segment: bool) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=2048 * 5, retention_bytes=0, retention_ms=1000 * 60,
                                                file_delete_delay_ms=0)
    log = create_log(ctx, ctx.log_dir, log_config)
    pid1 = 1
    epoch = 0

    log.append_as_leader(records([SimpleRecord(b"a")], producer_id=pid1, producer_epoch=epoch, sequence=0),
                         leader_epoch=0)
    log.roll()
    log.append_as_leader(records([SimpleRecord(b"b")], producer_id=pid1, producer_epoch=epoch, sequence=1),
                         leader_epoch=0)
    log.roll()
    log.append_as_leader(records([SimpleRecord(b"c")], producer_id=pid1, producer_epoch=epoch, sequence=2),
                         leader_epoch=0)
    if create_empty_active_segment:
        log.roll()

    log.update_high_watermark(log.log_end_offset())

    num_producer_snapshots = 3 if create_empty_active_segment else 2
    assert num_producer_snapshots == len(ProducerStateManager.list_snapshot_files(ctx.log_dir))
    # past the retention period
    ctx.mock_time.sleep(1000 * 60 + 1)
    log.delete_old_segments()
    # past the file delete delay: the scheduled deletions run
    ctx.mock_time.sleep(1)
    assert 1 == len(ProducerStateManager.list_snapshot_files(ctx.log_dir)), \
        "expect a single producer state snapshot remaining"
    assert 3 == log.log_start_offset


def test_retention_idempotency(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=2048 * 5, retention_bytes=-1, retention_ms=900,
                                                file_delete_delay_ms=0)
    log = create_log(ctx, ctx.log_dir, log_config)

    log.append_as_leader(records([SimpleRecord(b"a", timestamp=ctx.mock_time.milliseconds() + 100)]), leader_epoch=0)
    log.roll()
    log.append_as_leader(records([SimpleRecord(b"b", timestamp=ctx.mock_time.milliseconds())]), leader_epoch=0)
    log.roll()
    log.append_as_leader(records([SimpleRecord(b"c", timestamp=ctx.mock_time.milliseconds() + 100)]), leader_epoch=0)

    ctx.mock_time.sleep(901)

    log.update_high_watermark(log.log_end_offset())
    log.maybe_increment_log_start_offset(1, LogStartOffsetIncrementReason.ClientRecordDeletion)
    assert 2 == log.delete_old_segments(), \
        "Expecting two segment deletions as log start offset retention should unblock time based retention"
    assert 0 == log.delete_old_segments()


def test_log_start_offset_movement_deletes_snapshots(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=2048 * 5, retention_bytes=-1, file_delete_delay_ms=0)
    log = create_log(ctx, ctx.log_dir, log_config)
    pid1 = 1
    epoch = 0

    log.append_as_leader(records([SimpleRecord(b"a")], producer_id=pid1, producer_epoch=epoch, sequence=0),
                         leader_epoch=0)
    log.roll()
    log.append_as_leader(records([SimpleRecord(b"b")], producer_id=pid1, producer_epoch=epoch, sequence=1),
                         leader_epoch=0)
    log.roll()
    log.append_as_leader(records([SimpleRecord(b"c")], producer_id=pid1, producer_epoch=epoch, sequence=2),
                         leader_epoch=0)
    log.update_high_watermark(log.log_end_offset())
    assert 2 == len(ProducerStateManager.list_snapshot_files(ctx.log_dir))

    # the log start offset past the first two segments
    log.maybe_increment_log_start_offset(log.log_end_offset() - 1, LogStartOffsetIncrementReason.ClientRecordDeletion)
    log.delete_old_segments()
    ctx.mock_time.sleep(1)
    assert 1 == len(ProducerStateManager.list_snapshot_files(ctx.log_dir)), \
        "expect a single producer state snapshot remaining"


def test_loading_log_deletes_producer_state_snapshots_past_log_end_offset(ctx: Ctx) -> None:
    """After loading, no producer snapshot lies past the log end offset."""
    stray_snapshot_file = log_file_utils.producer_snapshot_file(ctx.log_dir, 42)
    stray_snapshot_file.touch(exist_ok=False)
    log_config = LogTestUtils.create_log_config(segment_bytes=2048 * 5, retention_bytes=-1, file_delete_delay_ms=0)
    create_log(ctx, ctx.log_dir, log_config)
    assert 0 == len(ProducerStateManager.list_snapshot_files(ctx.log_dir)), \
        "expected producer state snapshots greater than the log end offset to be cleaned up"


def test_producer_id_map_truncate_fully_and_start_at(ctx: Ctx) -> None:
    recs = singleton_records(b"foo")
    log_config = LogTestUtils.create_log_config(segment_bytes=recs.size_in_bytes(),
                                                retention_bytes=recs.size_in_bytes() * 2)
    log = create_log(ctx, ctx.log_dir, log_config)
    log.append_as_leader(recs, leader_epoch=0)
    log.take_producer_snapshot()

    log.append_as_leader(singleton_records(b"bar"), leader_epoch=0)
    log.append_as_leader(singleton_records(b"baz"), leader_epoch=0)
    log.take_producer_snapshot()

    assert 3 == len(log.log_segments())
    assert 3 == log.latest_producer_state_end_offset()
    assert 3 == log.latest_producer_snapshot_offset()

    log.truncate_fully_and_start_at(29)
    assert 1 == len(log.log_segments())
    assert log.latest_producer_snapshot_offset() is None
    assert 29 == log.latest_producer_state_end_offset()


def test_producer_id_expiration_on_segment_deletion(ctx: Ctx) -> None:
    pid1 = 1
    recs = records([SimpleRecord(b"foo")], producer_id=pid1, producer_epoch=0, sequence=0)
    log_config = LogTestUtils.create_log_config(segment_bytes=recs.size_in_bytes(),
                                                retention_bytes=recs.size_in_bytes() * 2)
    log = create_log(ctx, ctx.log_dir, log_config)
    log.append_as_leader(recs, leader_epoch=0)
    log.take_producer_snapshot()

    pid2 = 2
    log.append_as_leader(records([SimpleRecord(b"bar")], producer_id=pid2, producer_epoch=0, sequence=0),
                         leader_epoch=0)
    log.append_as_leader(records([SimpleRecord(b"baz")], producer_id=pid2, producer_epoch=0, sequence=1),
                         leader_epoch=0)
    log.take_producer_snapshot()

    assert 3 == len(log.log_segments())
    assert {pid1, pid2} == set(log.active_producers_with_last_sequence())

    log.update_high_watermark(log.log_end_offset())
    log.delete_old_segments()

    # deleting a segment does not remove producer state
    assert 2 == len(log.log_segments())
    assert {pid1, pid2} == set(log.active_producers_with_last_sequence())


def test_take_snapshot_on_roll_and_delete_snapshot_on_recovery_point_checkpoint(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=2048 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)
    log.append_as_leader(singleton_records(b"a"), leader_epoch=0)
    log.roll(1)
    assert 1 == log.latest_producer_snapshot_offset()
    assert 1 == log.oldest_producer_snapshot_offset()

    log.append_as_leader(singleton_records(b"b"), leader_epoch=0)
    log.roll(2)
    assert 2 == log.latest_producer_snapshot_offset()
    assert 1 == log.oldest_producer_snapshot_offset()

    log.append_as_leader(singleton_records(b"c"), leader_epoch=0)
    log.roll(3)
    assert 3 == log.latest_producer_snapshot_offset()

    # a roll flushes up to the new segment's base offset: every snapshot stays
    assert 1 == log.oldest_producer_snapshot_offset()

    # a flush within the active segment keeps the snapshot too
    log.append_as_leader(singleton_records(b"baz"), leader_epoch=0)
    log.flush_upto_offset_exclusive(4)
    assert 3 == log.latest_producer_snapshot_offset()


def test_producer_snapshot_after_segment_roll_on_append(ctx: Ctx) -> None:
    producer_id = 1
    log_config = LogTestUtils.create_log_config(segment_bytes=1024)
    log = create_log(ctx, ctx.log_dir, log_config)

    log.append_as_leader(records([SimpleRecord(bytes(512), timestamp=ctx.mock_time.milliseconds())],
                                 producer_id=producer_id, producer_epoch=0, sequence=0), leader_epoch=0)

    # the next append overflows the segment: the log rolls
    log.append_as_leader(records([SimpleRecord(bytes(512), timestamp=ctx.mock_time.milliseconds())],
                                 producer_id=producer_id, producer_epoch=0, sequence=1), leader_epoch=0)

    assert 2 == len(log.log_segments())
    assert 1 == log.active_segment().base_offset()
    assert 1 == log.latest_producer_snapshot_offset()

    # a reload from the snapshot checks it
    log.truncate_to(1)

    assert 2 == len(log.log_segments())
    assert 1 == log.active_segment().base_offset()
    assert not list(log.active_segment().log().batches())
    assert 1 == log.latest_producer_snapshot_offset()

    last_entry = log.producer_state_manager.last_entry(producer_id)
    assert last_entry is not None
    assert 0 == last_entry.first_data_offset()
    assert 0 == last_entry.last_data_offset()


def test_rebuild_transactional_state(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)
    pid = 137
    epoch = 5
    seq = 0

    recs = MemoryRecords.with_transactional_records(Compression.NONE, pid, epoch, seq, SimpleRecord(b"foo"),
                                                    SimpleRecord(b"bar"), SimpleRecord(b"baz"))
    log.append_as_leader(recs, leader_epoch=0)
    abort_append_info = LogTestUtils.append_end_txn_marker_as_leader(log, pid, epoch, ControlRecordType.ABORT,
                                                                     ctx.mock_time.milliseconds())
    log.update_high_watermark(abort_append_info.last_offset + 1)

    # no first unstable offset any more
    assert log.first_unstable_offset() is None

    log.close()

    reopened_log = create_log(ctx, ctx.log_dir, log_config, last_shutdown_clean=False)
    reopened_log.update_high_watermark(abort_append_info.last_offset + 1)
    assert reopened_log.first_unstable_offset() is None


def test_periodic_producer_id_expiration(ctx: Ctx) -> None:
    producer_state_manager_config = ProducerStateManagerConfig(200, False)
    producer_id_expiration_check_interval_ms = 100

    pid = 23
    log_config = LogTestUtils.create_log_config(segment_bytes=2048 * 5)
    log = create_log(ctx, ctx.log_dir, log_config, producer_state_manager_config=producer_state_manager_config,
                     producer_id_expiration_check_interval_ms=producer_id_expiration_check_interval_ms)
    recs = [SimpleRecord(b"foo", timestamp=ctx.mock_time.milliseconds())]
    log.append_as_leader(records(recs, producer_id=pid, producer_epoch=0, sequence=0), leader_epoch=0)

    assert {pid} == set(log.active_producers_with_last_sequence())

    ctx.mock_time.sleep(producer_id_expiration_check_interval_ms)
    assert {pid} == set(log.active_producers_with_last_sequence())

    ctx.mock_time.sleep(producer_id_expiration_check_interval_ms)
    assert set() == set(log.active_producers_with_last_sequence())


def test_duplicate_appends(ctx: Ctx) -> None:
    log = create_log(ctx, ctx.log_dir, LogConfig({}))
    pid = 1
    epoch = 0
    now = ctx.mock_time.milliseconds

    seq = 0
    # pad the beginning of the log
    for _ in range(6):
        record = records([srec(now(), b"key", b"value")], producer_id=pid, producer_epoch=epoch, sequence=seq)
        log.append_as_leader(record, leader_epoch=0)
        seq = seq + 1

    # an entry with several records
    def create_records() -> MemoryRecords:
        k, v = f"key-{seq}".encode(), f"value-{seq}".encode()
        return records([srec(now(), k, v), srec(now(), k, v), srec(now(), k, v)], producer_id=pid,
                       producer_epoch=epoch, sequence=seq)
    multi_entry_append_info = log.append_as_leader(create_records(), leader_epoch=0)
    assert multi_entry_append_info.last_offset - multi_entry_append_info.first_offset + 1 == 3, \
        "should have appended 3 entries"

    # a duplicate of the tail, whose entry has several records
    dup_multi_entry_append_info = log.append_as_leader(create_records(), leader_epoch=0)
    assert multi_entry_append_info.first_offset == dup_multi_entry_append_info.first_offset
    assert multi_entry_append_info.last_offset == dup_multi_entry_append_info.last_offset

    seq = seq + 3

    # a partial duplicate of the tail is refused
    k, v = f"key-{seq}".encode(), f"value-{seq}".encode()
    recs = records([srec(now(), k, v), srec(now(), k, v)], producer_id=pid, producer_epoch=epoch, sequence=seq - 2)
    with pytest.raises(OutOfOrderSequenceException):
        log.append_as_leader(recs, leader_epoch=0)

    # a duplicate of the 4th batch from the tail is fine: the last 5 batches' metadata is kept
    duplicate_of_fourth = records([srec(now(), b"key", b"value")], producer_id=pid, producer_epoch=epoch, sequence=2)
    log.append_as_leader(duplicate_of_fourth, leader_epoch=0)

    # duplicates of older batches are out of sequence
    recs = records([srec(now(), b"key-1", b"value-1")], producer_id=pid, producer_epoch=epoch, sequence=1)
    with pytest.raises(OutOfOrderSequenceException):
        log.append_as_leader(recs, leader_epoch=0)

    # a duplicate single-record entry at the tail answers with the original's append info
    def create_records_with_duplicate() -> MemoryRecords:
        return records([srec(now(), b"key", b"value")], producer_id=pid, producer_epoch=epoch, sequence=seq)
    orig_append_info = log.append_as_leader(create_records_with_duplicate(), leader_epoch=0)
    new_append_info = log.append_as_leader(create_records_with_duplicate(), leader_epoch=0)
    assert orig_append_info.first_offset == new_append_info.first_offset, "Inserted a duplicate records into the log"
    assert orig_append_info.last_offset == new_append_info.last_offset, "Inserted a duplicate records into the log"


def _builder(ctx: Ctx, buffer: bytearray, base_offset: int, producer_id: int, epoch: int, sequence: int,
             partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH, magic: int = MAGIC_VALUE_V2) -> Any:
    return MemoryRecords.builder(buffer, magic, Compression.NONE, TimestampType.LOG_APPEND_TIME, base_offset,
                                 ctx.mock_time.milliseconds(), producer_id, epoch, sequence, False, False,
                                 partition_leader_epoch)


def test_multiple_producer_ids_per_memory_record(ctx: Ctx) -> None:
    log = create_log(ctx, ctx.log_dir, LogConfig({}))
    epoch = 0
    buffer = bytearray()
    for offset, pid in ((0, 1), (1, 2), (2, 3), (3, 4)):
        builder = _builder(ctx, buffer, offset, pid, epoch, 0, partition_leader_epoch=0)
        builder.append(SimpleRecord(key=b"key", value=b"value"))
        builder.close()

    memory_records = read_buffer(buffer)

    log.append_as_follower(memory_records)
    log.flush(False)

    fetched_data = LogTestUtils.read_log(log, 0, INT_MAX)

    orig_iterator = iter(memory_records.batches())
    for batch in fetched_data.records.batches():
        orig_entry = next(orig_iterator)
        assert orig_entry.producer_id() == batch.producer_id()
        assert orig_entry.base_offset() == batch.base_offset()
        assert orig_entry.base_sequence() == batch.base_sequence()


def test_duplicate_append_to_follower(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)
    epoch = 0
    pid = 1
    base_sequence = 0
    partition_leader_epoch = 0
    # no validation on the follower: a batch with the same sequence numbers but increasing offsets is taken
    assert 0 == log.log_end_offset()
    log.append_as_follower(MemoryRecords.with_idempotent_records(
        Compression.NONE, pid, epoch, base_sequence, SimpleRecord(b"a"), SimpleRecord(b"b"), initial_offset=0,
        partition_leader_epoch=partition_leader_epoch))
    log.append_as_follower(MemoryRecords.with_idempotent_records(
        Compression.NONE, pid, epoch, base_sequence, SimpleRecord(b"a"), SimpleRecord(b"b"), initial_offset=2,
        partition_leader_epoch=partition_leader_epoch))

    # even the duplicate sequences are accepted on the follower
    assert 4 == log.log_end_offset()


def test_multiple_producers_with_duplicates_in_single_append(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)
    pid1 = 1
    pid2 = 2
    epoch = 0
    buffer = bytearray()
    # pid1 seq 0, pid2 seq 0, pid1 seq 1, pid2 seq 1, pid1 seq 1 (duplicate)
    for offset, pid, seq in ((0, pid1, 0), (1, pid2, 0), (2, pid1, 1), (3, pid2, 1), (4, pid1, 1)):
        builder = _builder(ctx, buffer, offset, pid, epoch, seq, magic=CURRENT_MAGIC_VALUE)
        builder.append(SimpleRecord(key=b"key", value=b"value"))
        builder.close()

    recs = read_buffer(buffer)
    for batch in recs.batches():
        batch.set_partition_leader_epoch(0)

    # batches with duplicates are accepted on the follower
    assert 0 == log.log_end_offset()
    log.append_as_follower(recs)
    assert 5 == log.log_end_offset()


def test_old_producer_epoch(ctx: Ctx) -> None:
    log = create_log(ctx, ctx.log_dir, LogConfig({}))
    pid = 1
    new_epoch = 1
    old_epoch = 0

    recs = records([srec(ctx.mock_time.milliseconds(), b"key", b"value")], producer_id=pid, producer_epoch=new_epoch,
                   sequence=0)
    log.append_as_leader(recs, leader_epoch=0)

    next_records = records([srec(ctx.mock_time.milliseconds(), b"key", b"value")], producer_id=pid,
                           producer_epoch=old_epoch, sequence=0)
    with pytest.raises(InvalidProducerEpochException):
        log.append_as_leader(next_records, leader_epoch=0)


def test_delete_snapshots_on_increment_log_start_offset(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=2048 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)
    pid1 = 1
    pid2 = 2
    epoch = 0

    log.append_as_leader(records([SimpleRecord(b"a", timestamp=ctx.mock_time.milliseconds())], producer_id=pid1,
                                 producer_epoch=epoch, sequence=0), leader_epoch=0)
    log.roll()
    log.append_as_leader(records([SimpleRecord(b"b", timestamp=ctx.mock_time.milliseconds())], producer_id=pid2,
                                 producer_epoch=epoch, sequence=0), leader_epoch=0)
    log.roll()

    assert 2 == len(log.active_producers_with_last_sequence())
    assert 2 == len(ProducerStateManager.list_snapshot_files(log.dir()))

    log.update_high_watermark(log.log_end_offset())
    log.maybe_increment_log_start_offset(2, LogStartOffsetIncrementReason.ClientRecordDeletion)
    log.delete_old_segments()  # retention removes the snapshot files
    ctx.mock_time.sleep(log_config.file_delete_delay_ms + 1000)  # past the file deletion delay

    # deleting records keeps producer state but deletes snapshots after the delay
    assert 2 == len(log.active_producers_with_last_sequence())
    assert 1 == len(ProducerStateManager.list_snapshot_files(log.dir()))
    assert 0 == log.active_producers_with_last_sequence().get(pid2)


def test_time_based_log_roll_jitter(ctx: Ctx) -> None:
    """Time-based roll with jitter."""
    recs = singleton_records(b"test", timestamp=ctx.mock_time.milliseconds())
    max_jitter = 20 * 60
    log_config = LogTestUtils.create_log_config(segment_ms=1 * 60 * 60, segment_jitter_ms=max_jitter)
    log = create_log(ctx, ctx.log_dir, log_config)
    assert 1 == log.number_of_segments(), "Log begins with a single empty segment."
    log.append_as_leader(recs, leader_epoch=0)

    ctx.mock_time.sleep(log.config().segment_ms - max_jitter)
    recs = singleton_records(b"test", timestamp=ctx.mock_time.milliseconds())
    log.append_as_leader(recs, leader_epoch=0)
    assert 1 == log.number_of_segments(), "Log does not roll on this append because it occurs earlier than max jitter"
    ctx.mock_time.sleep(max_jitter - log.active_segment().roll_jitter_ms() + 1)
    recs = singleton_records(b"test", timestamp=ctx.mock_time.milliseconds())
    log.append_as_leader(recs, leader_epoch=0)
    assert 2 == log.number_of_segments(), "Log should roll after segmentMs adjusted by random jitter"


def test_size_based_log_roll(ctx: Ctx) -> None:
    """Appending more than the segment size rolls the log."""
    def create_records() -> MemoryRecords:
        return singleton_records(b"test", timestamp=ctx.mock_time.milliseconds())
    set_size = create_records().size_in_bytes()
    msg_per_seg = 10
    segment_size = msg_per_seg * (set_size - 1)  # each segment will be 10 messages
    log_config = LogTestUtils.create_log_config(segment_bytes=segment_size)
    log = create_log(ctx, ctx.log_dir, log_config)
    assert 1 == log.number_of_segments(), "There should be exactly 1 segment."

    for _ in range(msg_per_seg + 1):
        log.append_as_leader(create_records(), leader_epoch=0)
    assert 2 == log.number_of_segments(), "There should be exactly 2 segments."


def test_load_empty_log(ctx: Ctx) -> None:
    """An empty log opens and takes appends."""
    create_empty_logs(ctx.log_dir, 0)
    log = create_log(ctx, ctx.log_dir, LogConfig({}))
    log.append_as_leader(singleton_records(b"test", timestamp=ctx.mock_time.milliseconds()), leader_epoch=0)


def test_append_and_read_with_sequential_offsets(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=71)
    log = create_log(ctx, ctx.log_dir, log_config)
    values = [str(i).encode() for i in range(0, 100, 2)]

    for value in values:
        log.append_as_leader(singleton_records(value), leader_epoch=0)

    for i in range(len(values)):
        read = next(iter(LogTestUtils.read_log(log, i, 1).records.batches()))
        assert i == read.last_offset(), "Offset read should match order appended."
        actual = next(iter(read))
        assert actual.key() is None, "Key should be null"
        assert values[i] == bytes(actual.value()), "Values not equal"
    assert 0 == len(list(LogTestUtils.read_log(log, len(values), 100).records.batches())), \
        "Reading beyond the last message returns nothing."


def _message_ids() -> list[int]:
    return list(range(50)) + list(range(50, 200, 7))


def _append_non_sequential(log: UnifiedLog) -> tuple[list[int], list[SimpleRecord]]:
    message_ids = _message_ids()
    recs = [SimpleRecord(str(i).encode()) for i in message_ids]
    # the offsets are given, and not sequential
    for i in range(len(recs)):
        log.append_as_follower(MemoryRecords.with_records(Compression.NONE, recs[i], initial_offset=message_ids[i],
                                                          partition_leader_epoch=0))
    return message_ids, recs


def test_append_and_read_with_non_sequential_offsets(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=72)
    log = create_log(ctx, ctx.log_dir, log_config)
    message_ids, recs = _append_non_sequential(log)
    for i in range(50, max(message_ids)):
        idx = next(j for j, m in enumerate(message_ids) if m >= i)
        read = next(iter(LogTestUtils.read_log(log, i, 100).records.records()))
        assert message_ids[idx] == read.offset(), "Offset read should match message id."
        assert recs[idx] == SimpleRecord.from_record(read), "Message should match appended."


def test_read_at_log_gap(ctx: Ctx) -> None:
    """A gap at the end of a segment: a read of the missing offset comes from the next segment."""
    log_config = LogTestUtils.create_log_config(segment_bytes=300)
    log = create_log(ctx, ctx.log_dir, log_config)

    # two segments, the second with a single message
    while log.number_of_segments() == 1:
        log.append_as_leader(singleton_records(b"42"), leader_epoch=0)

    # truncate all but one message off the first segment: a gap
    log.log_segments()[0].truncate_to(1)

    assert log.log_end_offset() - 1 == next(iter(LogTestUtils.read_log(log, 1, 200).records.batches())).last_offset(), \
        "A read should now return the last message in the log"


def test_log_roll_after_log_handler_closed(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config()
    log = create_log(ctx, ctx.log_dir, log_config)
    log.close_handlers()
    with pytest.raises(KafkaStorageException):
        log.roll(1)


def test_read_with_min_message(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=72)
    log = create_log(ctx, ctx.log_dir, log_config)
    message_ids, recs = _append_non_sequential(log)

    for i in range(50, max(message_ids)):
        idx = next(j for j, m in enumerate(message_ids) if m >= i)
        reads = [next(iter(LogTestUtils.read_log(log, i, n).records.records())) for n in (1, 100000, 100)]
        for read in reads:
            assert message_ids[idx] == read.offset(), "Offset read should match message id."
            assert recs[idx] == SimpleRecord.from_record(read), "Message should match appended."


def test_read_with_too_small_max_length(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=72)
    log = create_log(ctx, ctx.log_dir, log_config)
    message_ids, _ = _append_non_sequential(log)

    for i in range(50, max(message_ids)):
        assert MemoryRecords.EMPTY == LogTestUtils.read_log(log, i, max_length=0, min_one_message=False).records

        # an incomplete message rather than an empty one: how fetch v2 and below learn the message is larger than
        # the fetch size
        fetch_info = LogTestUtils.read_log(log, i, max_length=1, min_one_message=False)
        assert fetch_info.first_entry_incomplete
        assert isinstance(fetch_info.records, FileRecords)
        assert 1 == fetch_info.records.size_in_bytes()


def test_read_out_of_range(ctx: Ctx) -> None:
    """Reads at the log's edges: at the end an empty set; below the start or past the end OffsetOutOfRange."""
    create_empty_logs(ctx.log_dir, 1024)
    # a replica log starting at 1024 with one message
    log_config = LogTestUtils.create_log_config(segment_bytes=1024)
    log = create_log(ctx, ctx.log_dir, log_config)
    log.append_as_leader(singleton_records(b"42"), leader_epoch=0)

    assert 0 == LogTestUtils.read_log(log, 1025, 1000).records.size_in_bytes(), \
        "Reading at the log end offset should produce 0 byte read."

    with pytest.raises(OffsetOutOfRangeException):
        LogTestUtils.read_log(log, 0, 1000)
    with pytest.raises(OffsetOutOfRangeException):
        LogTestUtils.read_log(log, 1026, 1000)


def test_flushing_empty_active_segments(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config()
    log = create_log(ctx, ctx.log_dir, log_config)
    message = singleton_records(b"Test", timestamp=ctx.mock_time.milliseconds())
    log.append_as_leader(message, leader_epoch=0)
    log.roll()

    def count(suffix: str) -> int:
        return len([f for f in ctx.log_dir.iterdir() if f.name.endswith(suffix)])
    assert 2 == count(".log")
    assert 1 == count(".index")
    assert 0 == log.active_segment().size()
    log.flush(True)
    assert 2 == count(".log")
    assert 2 == count(".index")


def test_log_rolls(ctx: Ctx) -> None:
    """Reads and writes on a multi-segment log of 100 messages."""
    log_config = LogTestUtils.create_log_config(segment_bytes=100)
    log = create_log(ctx, ctx.log_dir, log_config)
    num_messages = 100
    message_sets = [singleton_records(str(i).encode(), timestamp=ctx.mock_time.milliseconds())
                    for i in range(num_messages)]
    for message_set in message_sets:
        log.append_as_leader(message_set, leader_epoch=0)
    log.flush(False)

    # successive reads find every message
    offset = 0
    for i in range(num_messages):
        messages = LogTestUtils.read_log(log, offset, 1024 * 1024).records.batches()
        head = next(iter(messages))
        assert offset == head.last_offset(), "Offsets not equal"

        expected = next(iter(message_sets[i].records()))
        actual = next(iter(head))
        assert expected.key() == actual.key(), f"Keys not equal at offset {offset}"
        assert bytes(expected.value()) == bytes(actual.value()), f"Values not equal at offset {offset}"
        assert expected.timestamp() == actual.timestamp(), f"Timestamps not equal at offset {offset}"
        offset = head.last_offset() + 1
    last_read = LogTestUtils.read_log(log, num_messages, 1024 * 1024).records
    assert 0 == len(list(last_read.records())), "Should be no more messages"

    # rolling forced a flush (run by the scheduler)
    ctx.mock_time.scheduler.tick()
    assert log.recovery_point() >= log.active_segment().base_offset(), "Log role should have forced flush"


def test_compressed_messages(ctx: Ctx) -> None:
    """Reads at offsets inside compressed message sets."""
    # the log rolls after every message set
    log_config = LogTestUtils.create_log_config(segment_bytes=110)
    log = create_log(ctx, ctx.log_dir, log_config)

    # two compressed sets of two messages: offsets 0, 1, 2, 3
    log.append_as_leader(MemoryRecords.with_records(Compression.gzip().build(), SimpleRecord(b"hello"),
                                                    SimpleRecord(b"there")), leader_epoch=0)
    log.append_as_leader(MemoryRecords.with_records(Compression.gzip().build(), SimpleRecord(b"alpha"),
                                                    SimpleRecord(b"beta")), leader_epoch=0)

    def read(offset: int) -> Any:
        return LogTestUtils.read_log(log, offset, 4096).records.records()

    # a read of any offset in a compressed set starts at the set's first message
    assert 0 == next(iter(read(0))).offset(), "Read at offset 0 should produce 0"
    assert 0 == next(iter(read(1))).offset(), "Read at offset 1 should produce 0"
    assert 2 == next(iter(read(2))).offset(), "Read at offset 2 should produce 2"
    assert 2 == next(iter(read(3))).offset(), "Read at offset 3 should produce 2"


def test_that_garbage_collecting_segments_doesnt_change_offset(ctx: Ctx) -> None:
    for messages_to_append in (0, 1, 25):
        ctx.log_dir.mkdir(parents=True, exist_ok=True)
        # a log segment starting at 0
        log_config = LogTestUtils.create_log_config(segment_bytes=100, retention_ms=0)
        log = create_log(ctx, ctx.log_dir, log_config)
        for i in range(messages_to_append):
            log.append_as_leader(singleton_records(str(i).encode(), timestamp=ctx.mock_time.milliseconds() - 10),
                                 leader_epoch=0)

        curr_offset = log.log_end_offset()
        assert curr_offset == messages_to_append

        # time goes by; the log file is deleted
        log.update_high_watermark(curr_offset)
        log.delete_old_segments()

        assert curr_offset == log.log_end_offset(), "Deleting segments shouldn't have changed the logEndOffset"
        assert 1 == log.number_of_segments(), "We should still have one segment left"
        assert 0 == log.delete_old_segments(), "Further collection shouldn't delete anything"
        assert curr_offset == log.log_end_offset(), "Still no change in the logEndOffset"
        assert curr_offset == log.append_as_leader(
            singleton_records(b"hello", timestamp=ctx.mock_time.milliseconds()), leader_epoch=0).first_offset, \
            "Should still be able to append and should get the logEndOffset assigned to the new append"

        # cleanup the log
        log.delete()


def test_message_set_size_check(ctx: Ctx) -> None:
    """A message set larger than segment.bytes is refused."""
    message_set = MemoryRecords.with_records(Compression.NONE, SimpleRecord(b"You"), SimpleRecord(b"bethe"))
    config_segment_size = message_set.size_in_bytes() - 1
    log_config = LogTestUtils.create_log_config(segment_bytes=config_segment_size)
    log = create_log(ctx, ctx.log_dir, log_config)

    with pytest.raises(RecordBatchTooLargeException):
        log.append_as_leader(message_set, leader_epoch=0)


def test_compacted_topic_constraints(ctx: Ctx) -> None:
    """The NoKeyCompactedTopicRecordsPerSec meter assertions are left out (metrics are not ported)."""
    keyed_message = SimpleRecord(key=b"and here it is", value=b"this message has a key")
    another_keyed_message = SimpleRecord(key=b"another key", value=b"this message also has a key")
    unkeyed_message = SimpleRecord(b"this message does not have a key")

    message_set_with_unkeyed_message = MemoryRecords.with_records(Compression.NONE, unkeyed_message, keyed_message)
    message_set_with_one_unkeyed_message = MemoryRecords.with_records(Compression.NONE, unkeyed_message)
    message_set_with_compressed_keyed_message = MemoryRecords.with_records(Compression.gzip().build(), keyed_message)
    message_set_with_compressed_unkeyed_message = MemoryRecords.with_records(Compression.gzip().build(),
                                                                             keyed_message, unkeyed_message)

    message_set_with_keyed_message = MemoryRecords.with_records(Compression.NONE, keyed_message)
    message_set_with_keyed_messages = MemoryRecords.with_records(Compression.NONE, keyed_message,
                                                                 another_keyed_message)

    log_config = LogTestUtils.create_log_config(cleanup_policy="compact")
    log = create_log(ctx, ctx.log_dir, log_config)

    error_msg_prefix = "Compacted topic cannot accept message without key"

    for message_set, batch_index in ((message_set_with_unkeyed_message, 0), (message_set_with_one_unkeyed_message, 0),
                                     (message_set_with_compressed_unkeyed_message, 1)):
        with pytest.raises(RecordValidationException) as e:
            log.append_as_leader(message_set, leader_epoch=0)
        assert isinstance(e.value.invalid_exception(), InvalidRecordException)
        assert 1 == len(e.value.record_errors())
        assert batch_index == e.value.record_errors()[0].batch_index
        assert e.value.record_errors()[0].message.startswith(error_msg_prefix)

    # these succeed
    log.append_as_leader(message_set_with_keyed_message, leader_epoch=0)
    log.append_as_leader(message_set_with_keyed_messages, leader_epoch=0)
    log.append_as_leader(message_set_with_compressed_keyed_message, leader_epoch=0)


def test_message_size_check(ctx: Ctx) -> None:
    """A batch larger than max.message.bytes is refused."""
    first = MemoryRecords.with_records(Compression.NONE, SimpleRecord(b"You"), SimpleRecord(b"bethe"))
    second = MemoryRecords.with_records(Compression.NONE,
                                        SimpleRecord(b"change (I need more bytes)... blah blah blah."),
                                        SimpleRecord(b"More padding boo hoo"))

    max_message_size = second.size_in_bytes() - 1
    log_config = LogTestUtils.create_log_config(max_message_bytes=max_message_size)
    log = create_log(ctx, ctx.log_dir, log_config)

    # the small message goes in
    log.append_as_leader(first, leader_epoch=0)

    with pytest.raises(RecordTooLargeException):
        log.append_as_leader(second, leader_epoch=0)


def test_message_size_check_in_append_as_follower(ctx: Ctx) -> None:
    first = MemoryRecords.with_records(Compression.NONE, SimpleRecord(b"You"), SimpleRecord(b"bethe"),
                                       initial_offset=0, partition_leader_epoch=0)
    second = MemoryRecords.with_records(Compression.NONE,
                                        SimpleRecord(b"change (I need more bytes)... blah blah blah."),
                                        SimpleRecord(b"More padding boo hoo"), initial_offset=5,
                                        partition_leader_epoch=0)

    log = create_log(ctx, ctx.log_dir, LogTestUtils.create_log_config(max_message_bytes=second.size_in_bytes() - 1))

    log.append_as_follower(first)
    # larger than the limit, but a follower append does not check sizes
    log.append_as_follower(second)


def test_log_flushes_partition_metadata_on_append(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config()
    log = create_log(ctx, ctx.log_dir, log_config)
    record = MemoryRecords.with_records(Compression.NONE, SimpleRecord(b"simpleValue"))

    topic_id = Uuid.random_uuid()
    assert log.partition_metadata_file is not None
    log.partition_metadata_file.record(topic_id)

    # a synchronous flush
    log.append_as_leader(record, leader_epoch=0)
    assert log.partition_metadata_file.exists()
    assert topic_id == log.partition_metadata_file.read().topic_id


def test_log_flushes_partition_metadata_on_close(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config()
    log = create_log(ctx, ctx.log_dir, log_config)

    topic_id = Uuid.random_uuid()
    assert log.partition_metadata_file is not None
    log.partition_metadata_file.record(topic_id)

    # a synchronous flush
    log.close()

    # reopened: the file holds the same id
    log = create_log(ctx, ctx.log_dir, log_config)
    assert log.partition_metadata_file is not None
    assert log.partition_metadata_file.exists()
    assert topic_id == log.partition_metadata_file.read().topic_id


def test_log_recovers_topic_id(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config()
    log = create_log(ctx, ctx.log_dir, log_config)

    topic_id = Uuid.random_uuid()
    log.assign_topic_id(topic_id)
    log.close()

    # recovery
    log = create_log(ctx, ctx.log_dir, log_config)
    assert log.topic_id() is not None
    assert log.topic_id() == topic_id
    log.close()


def test_no_op_when_keep_partition_metadata_file_is_false(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config()
    log = create_log(ctx, ctx.log_dir, log_config, keep_partition_metadata_file=False)

    topic_id = Uuid.random_uuid()
    log.assign_topic_id(topic_id)
    # neither the file nor the topic id is set
    assert log.partition_metadata_file is not None
    assert not log.partition_metadata_file.exists()
    assert log.topic_id() is None
    log.close()

    log2 = create_log(ctx, ctx.log_dir, log_config, topic_id=Uuid.random_uuid(), keep_partition_metadata_file=False)
    assert log2.partition_metadata_file is not None
    assert not log2.partition_metadata_file.exists()
    assert log2.topic_id() is None
    log2.close()


def test_log_fails_when_inconsistent_topic_id_set(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config()
    log = create_log(ctx, ctx.log_dir, log_config)

    topic_id = Uuid.random_uuid()
    log.assign_topic_id(topic_id)
    log.close()

    # a log created with a new id
    try:
        log = create_log(ctx, ctx.log_dir, log_config, topic_id=Uuid.random_uuid())
        log.close()
    except Exception as e:
        assert isinstance(e, InconsistentTopicIdException)


def test_build_time_index_when_not_assigning_offsets(ctx: Ctx) -> None:
    """The follower builds the time index."""
    num_messages = 100
    log_config = LogTestUtils.create_log_config(segment_bytes=10000, index_interval_bytes=1)
    log = create_log(ctx, ctx.log_dir, log_config)

    messages = [MemoryRecords.with_records(
        Compression.NONE, SimpleRecord(str(i).encode(), timestamp=ctx.mock_time.milliseconds() + i),
        initial_offset=100 + i, partition_leader_epoch=0) for i in range(num_messages)]
    for message in messages:
        log.append_as_follower(message)
    time_index_entries = sum(segment.time_index().entries() for segment in log.log_segments())
    assert num_messages - 1 == time_index_entries, f"There should be {num_messages - 1} time index entries"
    assert ctx.mock_time.milliseconds() + num_messages - 1 == log.active_segment().time_index().last_entry().timestamp


def test_fetch_offset_by_timestamp_includes_leader_epoch(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=200, index_interval_bytes=1)
    log = create_log(ctx, ctx.log_dir, log_config)

    assert log.fetch_offset_by_timestamp(0) is None

    first_timestamp = ctx.mock_time.milliseconds()
    first_leader_epoch = 0
    log.append_as_leader(singleton_records(random.randbytes(10), timestamp=first_timestamp),
                         leader_epoch=first_leader_epoch)

    second_timestamp = first_timestamp + 1
    second_leader_epoch = 1
    log.append_as_leader(singleton_records(random.randbytes(10), timestamp=second_timestamp),
                         leader_epoch=second_leader_epoch)

    assert TimestampAndOffset(first_timestamp, 0, first_leader_epoch) == log.fetch_offset_by_timestamp(first_timestamp)
    assert TimestampAndOffset(second_timestamp, 1, second_leader_epoch) == \
        log.fetch_offset_by_timestamp(second_timestamp)

    unknown_timestamp = -1  # ListOffsetsResponse.UNKNOWN_TIMESTAMP
    assert TimestampAndOffset(unknown_timestamp, 0, first_leader_epoch) == \
        log.fetch_offset_by_timestamp(unified_log.EARLIEST_TIMESTAMP)
    assert TimestampAndOffset(unknown_timestamp, 0, first_leader_epoch) == \
        log.fetch_offset_by_timestamp(unified_log.EARLIEST_LOCAL_TIMESTAMP)
    assert TimestampAndOffset(unknown_timestamp, 2, second_leader_epoch) == \
        log.fetch_offset_by_timestamp(unified_log.LATEST_TIMESTAMP)

    # the cache may be updated right after a leader change: the latest offset carries the new epoch
    log.maybe_assign_epoch_start_offset(2, 2)

    assert TimestampAndOffset(unknown_timestamp, 2, 2) == log.fetch_offset_by_timestamp(unified_log.LATEST_TIMESTAMP)


def test_fetch_offset_by_timestamp_with_max_timestamp_includes_timestamp(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=200, index_interval_bytes=1)
    log = create_log(ctx, ctx.log_dir, log_config)

    assert log.fetch_offset_by_timestamp(0) is None

    first_timestamp = ctx.mock_time.milliseconds()
    leader_epoch = 0
    log.append_as_leader(singleton_records(random.randbytes(10), timestamp=first_timestamp), leader_epoch=leader_epoch)

    second_timestamp = first_timestamp + 1
    log.append_as_leader(singleton_records(random.randbytes(10), timestamp=second_timestamp),
                         leader_epoch=leader_epoch)

    log.append_as_leader(singleton_records(random.randbytes(10), timestamp=first_timestamp), leader_epoch=leader_epoch)

    assert TimestampAndOffset(second_timestamp, 1, leader_epoch) == \
        log.fetch_offset_by_timestamp(unified_log.MAX_TIMESTAMP)


class FakeRemoteLogManager:
    """Stands for Kafka's Mockito mock of RemoteLogManager (not ported): find_offset_by_timestamp answers what the
    test's `answer` function gives, after checking the arguments Kafka's matchers check."""

    def __init__(self) -> None:
        self.answer: Callable[[TopicPartition, int, int, Any], TimestampAndOffset | None] = \
            lambda tp, timestamp, start_offset, cache: None

    def find_offset_by_timestamp(self, tp: TopicPartition, timestamp: int, start_offset: int,
                                 leader_epoch_cache: Any) -> TimestampAndOffset | None:
        return self.answer(tp, timestamp, start_offset, leader_epoch_cache)


def _answer_first_timestamp(log: UnifiedLog, first_timestamp: int, first_leader_epoch: int) -> Callable[..., Any]:
    """Kafka's thenAnswer: the remote tier holds only the first timestamp, at offset 0."""
    def answer(tp: TopicPartition, timestamp: int, start_offset: int, cache: Any) -> TimestampAndOffset | None:
        assert tp == log.topic_partition() and cache is log.leader_epoch_cache
        return TimestampAndOffset(timestamp, 0, first_leader_epoch) if timestamp == first_timestamp else None
    return answer


def test_fetch_offset_by_timestamp_from_remote_storage(ctx: Ctx) -> None:
    remote_log_manager = FakeRemoteLogManager()
    log_config = LogTestUtils.create_log_config(segment_bytes=200, index_interval_bytes=1,
                                                remote_log_storage_enable=True)
    log = create_log(ctx, ctx.log_dir, log_config, remote_storage_system_enable=True)
    assert log.fetch_offset_by_timestamp(0, remote_log_manager) is None

    first_timestamp = ctx.mock_time.milliseconds()
    first_leader_epoch = 0
    log.append_as_leader(singleton_records(random.randbytes(10), timestamp=first_timestamp),
                         leader_epoch=first_leader_epoch)

    second_timestamp = first_timestamp + 1
    second_leader_epoch = 1
    log.append_as_leader(singleton_records(random.randbytes(10), timestamp=second_timestamp),
                         leader_epoch=second_leader_epoch)

    remote_log_manager.answer = _answer_first_timestamp(log, first_timestamp, first_leader_epoch)
    log._local_log_start_offset = 1

    assert TimestampAndOffset(first_timestamp, 0, first_leader_epoch) == \
        log.fetch_offset_by_timestamp(first_timestamp, remote_log_manager)
    assert TimestampAndOffset(second_timestamp, 1, second_leader_epoch) == \
        log.fetch_offset_by_timestamp(second_timestamp, remote_log_manager)

    unknown_timestamp = -1  # ListOffsetsResponse.UNKNOWN_TIMESTAMP
    assert TimestampAndOffset(unknown_timestamp, 0, first_leader_epoch) == \
        log.fetch_offset_by_timestamp(unified_log.EARLIEST_TIMESTAMP, remote_log_manager)
    assert TimestampAndOffset(unknown_timestamp, 1, second_leader_epoch) == \
        log.fetch_offset_by_timestamp(unified_log.EARLIEST_LOCAL_TIMESTAMP, remote_log_manager)
    assert TimestampAndOffset(unknown_timestamp, 2, second_leader_epoch) == \
        log.fetch_offset_by_timestamp(unified_log.LATEST_TIMESTAMP, remote_log_manager)

    # the cache may be updated right after a leader change: the latest offset carries the new epoch
    log.maybe_assign_epoch_start_offset(2, 2)

    assert TimestampAndOffset(unknown_timestamp, 2, 2) == \
        log.fetch_offset_by_timestamp(unified_log.LATEST_TIMESTAMP, remote_log_manager)


def test_fetch_latest_tiered_timestamp_no_remote_storage(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=200, index_interval_bytes=1)
    log = create_log(ctx, ctx.log_dir, log_config)

    assert TimestampAndOffset(-1, -1, -1) == log.fetch_offset_by_timestamp(unified_log.LATEST_TIERED_TIMESTAMP)

    first_timestamp = ctx.mock_time.milliseconds()
    leader_epoch = 0
    log.append_as_leader(singleton_records(random.randbytes(10), timestamp=first_timestamp), leader_epoch=leader_epoch)
    second_timestamp = first_timestamp + 1
    log.append_as_leader(singleton_records(random.randbytes(10), timestamp=second_timestamp),
                         leader_epoch=leader_epoch)

    assert TimestampAndOffset(-1, -1, -1) == log.fetch_offset_by_timestamp(unified_log.LATEST_TIERED_TIMESTAMP)


def test_fetch_latest_tiered_timestamp_with_remote_storage(ctx: Ctx) -> None:
    remote_log_manager = FakeRemoteLogManager()
    log_config = LogTestUtils.create_log_config(segment_bytes=200, index_interval_bytes=1,
                                                remote_log_storage_enable=True)
    log = create_log(ctx, ctx.log_dir, log_config, remote_storage_system_enable=True)

    unknown_timestamp = -1  # ListOffsetsResponse.UNKNOWN_TIMESTAMP
    assert log.fetch_offset_by_timestamp(0, remote_log_manager) is None
    assert TimestampAndOffset(unknown_timestamp, 0, None) == \
        log.fetch_offset_by_timestamp(unified_log.EARLIEST_LOCAL_TIMESTAMP, remote_log_manager)

    first_timestamp = ctx.mock_time.milliseconds()
    first_leader_epoch = 0
    log.append_as_leader(singleton_records(random.randbytes(10), timestamp=first_timestamp),
                         leader_epoch=first_leader_epoch)

    second_timestamp = first_timestamp + 1
    second_leader_epoch = 1
    log.append_as_leader(singleton_records(random.randbytes(10), timestamp=second_timestamp),
                         leader_epoch=second_leader_epoch)

    remote_log_manager.answer = _answer_first_timestamp(log, first_timestamp, first_leader_epoch)
    log._local_log_start_offset = 1
    log._highest_offset_in_remote_storage = 0

    # offset 0 (first timestamp) is in remote storage, offset 1 (second timestamp) local
    assert TimestampAndOffset(first_timestamp, 0, first_leader_epoch) == \
        log.fetch_offset_by_timestamp(first_timestamp, remote_log_manager)
    assert TimestampAndOffset(second_timestamp, 1, second_leader_epoch) == \
        log.fetch_offset_by_timestamp(second_timestamp, remote_log_manager)

    assert TimestampAndOffset(unknown_timestamp, 0, first_leader_epoch) == \
        log.fetch_offset_by_timestamp(unified_log.EARLIEST_TIMESTAMP, remote_log_manager)
    assert TimestampAndOffset(unknown_timestamp, 0, first_leader_epoch) == \
        log.fetch_offset_by_timestamp(unified_log.LATEST_TIERED_TIMESTAMP, remote_log_manager)
    assert TimestampAndOffset(unknown_timestamp, 1, second_leader_epoch) == \
        log.fetch_offset_by_timestamp(unified_log.EARLIEST_LOCAL_TIMESTAMP, remote_log_manager)
    assert TimestampAndOffset(unknown_timestamp, 2, second_leader_epoch) == \
        log.fetch_offset_by_timestamp(unified_log.LATEST_TIMESTAMP, remote_log_manager)

    # the cache may be updated right after a leader change: the latest offset carries the new epoch
    log.maybe_assign_epoch_start_offset(2, 2)

    assert TimestampAndOffset(unknown_timestamp, 2, 2) == \
        log.fetch_offset_by_timestamp(unified_log.LATEST_TIMESTAMP, remote_log_manager)


def test_truncate_to(ctx: Ctx) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test", timestamp=ctx.mock_time.milliseconds())
    set_size = create_records().size_in_bytes()
    msg_per_seg = 10
    segment_size = msg_per_seg * set_size  # each segment will be 10 messages

    log_config = LogTestUtils.create_log_config(segment_bytes=segment_size)
    log = create_log(ctx, ctx.log_dir, log_config)
    assert 1 == log.number_of_segments(), "There should be exactly 1 segment."

    for _ in range(msg_per_seg):
        log.append_as_leader(create_records(), leader_epoch=0)

    assert 1 == log.number_of_segments(), "There should be exactly 1 segments."
    assert msg_per_seg == log.log_end_offset(), "Log end offset should be equal to number of messages"

    last_offset = log.log_end_offset()
    size = log.size()
    log.truncate_to(log.log_end_offset())  # keep the entire log
    assert last_offset == log.log_end_offset(), "Should not change offset"
    assert size == log.size(), "Should not change log size"
    log.truncate_to(log.log_end_offset() + 1)  # beyond the last offset
    assert last_offset == log.log_end_offset(), "Should not change offset but should log error"
    assert size == log.size(), "Should not change log size"
    log.truncate_to(msg_per_seg // 2)  # somewhere in between
    assert log.log_end_offset() == msg_per_seg // 2, "Should change offset"
    assert log.size() < size, "Should change log size"
    log.truncate_to(0)  # the entire log
    assert 0 == log.log_end_offset(), "Should change offset"
    assert 0 == log.size(), "Should change log size"

    for _ in range(msg_per_seg):
        log.append_as_leader(create_records(), leader_epoch=0)

    assert log.log_end_offset() == last_offset, "Should be back to original offset"
    assert log.size() == size, "Should be back to original size"
    log.truncate_fully_and_start_at(log.log_end_offset() - (msg_per_seg - 1))
    assert log.log_end_offset() == last_offset - (msg_per_seg - 1), "Should change offset"
    assert log.size() == 0, "Should change log size"

    for _ in range(msg_per_seg):
        log.append_as_leader(create_records(), leader_epoch=0)

    assert log.log_end_offset() > msg_per_seg, "Should be ahead of to original offset"
    assert size == log.size(), "log size should be same as before"
    log.truncate_to(0)  # below the log's first offset
    assert 0 == log.log_end_offset(), "Should change offset"
    assert log.size() == 0, "Should change log size"


def test_index_resizing_at_truncation(ctx: Ctx) -> None:
    """Truncation resizes the last segment's indexes to the maximum again."""
    set_size = singleton_records(b"test", timestamp=ctx.mock_time.milliseconds()).size_in_bytes()
    msg_per_seg = 10
    segment_size = msg_per_seg * set_size  # each segment will be 10 messages
    log_config = LogTestUtils.create_log_config(segment_bytes=segment_size, index_interval_bytes=set_size - 1)
    log = create_log(ctx, ctx.log_dir, log_config)
    assert 1 == log.number_of_segments()

    for i in range(1, msg_per_seg + 1):
        log.append_as_leader(singleton_records(b"test", timestamp=ctx.mock_time.milliseconds() + i), leader_epoch=0)
    assert 1 == log.number_of_segments()

    ctx.mock_time.sleep(msg_per_seg)
    for i in range(1, msg_per_seg + 1):
        log.append_as_leader(singleton_records(b"test", timestamp=ctx.mock_time.milliseconds() + i), leader_epoch=0)
    assert 2 == log.number_of_segments()
    expected_entries = msg_per_seg - 1

    assert expected_entries == log.log_segments()[0].offset_index().max_entries()
    assert expected_entries == log.log_segments()[0].time_index().max_entries()

    log.truncate_to(0)
    assert 1 == log.number_of_segments()
    assert log.config().max_index_size // 8 == log.log_segments()[0].offset_index().max_entries(), \
        "The index of segment 1 should be resized to maxIndexSize"
    assert log.config().max_index_size // 12 == log.log_segments()[0].time_index().max_entries(), \
        "The time index of segment 1 should be resized to maxIndexSize"

    ctx.mock_time.sleep(msg_per_seg)
    for i in range(1, msg_per_seg + 1):
        log.append_as_leader(singleton_records(b"test", timestamp=ctx.mock_time.milliseconds() + i), leader_epoch=0)
    assert 1 == log.number_of_segments()


def test_async_delete(ctx: Ctx) -> None:
    """Deleted files go after file.delete.delay.ms."""
    def create_records() -> MemoryRecords:
        return singleton_records(b"test", timestamp=ctx.mock_time.milliseconds() - 1000)
    async_delete_ms = 1000
    log_config = LogTestUtils.create_log_config(segment_bytes=create_records().size_in_bytes() * 5,
                                                segment_index_bytes=1000, index_interval_bytes=10000,
                                                retention_ms=999, file_delete_delay_ms=async_delete_ms)
    log = create_log(ctx, ctx.log_dir, log_config)

    for _ in range(100):
        log.append_as_leader(create_records(), leader_epoch=0)

    # the files are renamed
    segments = list(log.log_segments())
    old_files = [s.log().file() for s in segments] + [s.offset_index_file() for s in segments]

    log.update_high_watermark(log.log_end_offset())
    log.delete_old_segments()

    assert 1 == log.number_of_segments(), "Only one segment should remain."
    assert all(s.log().file().name.endswith(log_file_utils.DELETED_FILE_SUFFIX) for s in segments) and \
        all(s.offset_index_file().name.endswith(log_file_utils.DELETED_FILE_SUFFIX) for s in segments), \
        "All log and index files should end in .deleted"
    assert all(s.log().file().exists() for s in segments) and all(s.offset_index_file().exists() for s in segments), \
        "The .deleted files should still be there."
    assert all(not f.exists() for f in old_files), "The original file should be gone."

    # once the delay passed the files are gone
    deleted_files = [s.log().file() for s in segments] + [s.offset_index_file() for s in segments]
    ctx.mock_time.sleep(async_delete_ms + 1)
    assert all(not f.exists() for f in deleted_files), "Files should all be gone."


def test_append_message_with_null_payload(ctx: Ctx) -> None:
    log = create_log(ctx, ctx.log_dir, LogConfig({}))
    log.append_as_leader(singleton_records(None), leader_epoch=0)
    head = next(iter(LogTestUtils.read_log(log, 0, 4096).records.records()))
    assert 0 == head.offset()
    assert not head.has_value(), "Message payload should be null."


def test_append_with_out_of_order_offsets_throws_exception(ctx: Ctx) -> None:
    log = create_log(ctx, ctx.log_dir, LogConfig({}))
    buffer = bytearray()
    for offset in (0, 1, 3, 2, 4):
        builder = _builder(ctx, buffer, offset, 1, 0, 0, partition_leader_epoch=0)
        builder.append(SimpleRecord(key=b"key", value=b"value"))
        builder.close()
    memory_records = read_buffer(buffer)

    with pytest.raises(OffsetsOutOfOrderException):
        log.append_as_follower(memory_records)


def test_append_below_expected_offset_throws_exception(ctx: Ctx) -> None:
    log = create_log(ctx, ctx.log_dir, LogConfig({}))
    for record in [SimpleRecord(str(i).encode()) for i in range(2)]:
        log.append_as_leader(MemoryRecords.with_records(Compression.NONE, record), leader_epoch=0)

    for magic in (MAGIC_VALUE_V0, MAGIC_VALUE_V1, MAGIC_VALUE_V2):
        for compression_type in (CompressionType.NONE, CompressionType.LZ4):
            compression = Compression.of(compression_type).build()
            invalid_record = MemoryRecords.with_records(compression, SimpleRecord(b"1"), magic=magic)
            with pytest.raises(UnexpectedAppendOffsetException):
                log.append_as_follower(invalid_record)


def test_append_empty_log_below_log_start_offset_throws_exception(ctx: Ctx) -> None:
    create_empty_logs(ctx.log_dir, 7)
    log = create_log(ctx, ctx.log_dir, LogConfig({}))
    assert 7 == log.log_start_offset
    assert 7 == log.log_end_offset()

    first_offset = 4
    for magic in (MAGIC_VALUE_V0, MAGIC_VALUE_V1, MAGIC_VALUE_V2):
        for compression_type in (CompressionType.NONE, CompressionType.LZ4):
            batch = records([SimpleRecord(key=b"k1", value=b"v1"), SimpleRecord(key=b"k2", value=b"v2"),
                             SimpleRecord(key=b"k3", value=b"v3")], magic_value=magic,
                            codec=Compression.of(compression_type).build(), base_offset=first_offset)
            with pytest.raises(UnexpectedAppendOffsetException) as exception:
                log.append_as_follower(batch)
            assert first_offset == exception.value.first_offset, f"Magic={magic}, compressionType={compression_type}"
            assert first_offset + 2 == exception.value.last_offset, f"Magic={magic}, compressionType={compression_type}"


def test_append_with_no_timestamp(ctx: Ctx) -> None:
    log = create_log(ctx, ctx.log_dir, LogConfig({}))
    log.append_as_leader(MemoryRecords.with_records(Compression.NONE, srec(NO_TIMESTAMP, b"key", b"value")),
                         leader_epoch=0)


def test_append_to_or_read_from_log_in_failed_log_dir(ctx: Ctx) -> None:
    pid = 1
    epoch = 0
    log = create_log(ctx, ctx.log_dir, LogConfig({}))
    log.append_as_leader(singleton_records(None), leader_epoch=0)
    assert 0 == next(iter(LogTestUtils.read_log(log, 0, 4096).records.records())).offset()
    append = LogTestUtils.append_transactional_as_leader(log, pid, epoch, ctx.mock_time)
    append(10)
    # a transaction index renamed to a directory makes the index append fail
    log.active_segment().txn_index().rename_to(log.dir())
    with pytest.raises(KafkaStorageException):
        LogTestUtils.append_end_txn_marker_as_leader(log, pid, epoch, ControlRecordType.ABORT,
                                                     ctx.mock_time.milliseconds(), coordinator_epoch=1)
    with pytest.raises(KafkaStorageException):
        log.append_as_leader(singleton_records(None), leader_epoch=0)
    with pytest.raises(KafkaStorageException):
        next(iter(LogTestUtils.read_log(log, 0, 4096).records.records())).offset()


def _epoch_test_config() -> LogConfig:
    return LogTestUtils.create_log_config(segment_bytes=1000, index_interval_bytes=1, max_message_bytes=64 * 1024)


def test_write_leader_epoch_checkpoint_after_directory_rename(ctx: Ctx) -> None:
    log = create_log(ctx, ctx.log_dir, _epoch_test_config())
    log.append_as_leader(records([SimpleRecord(b"foo")]), leader_epoch=5)
    assert 5 == log.latest_epoch()

    # after a directory rename the epoch cache is written in the new place
    tp = unified_log.parse_topic_partition_name(log.dir())
    log.rename_dir(unified_log.log_delete_dir_name(tp), True)
    log.append_as_leader(records([SimpleRecord(b"foo")]), leader_epoch=10)
    assert 10 == log.latest_epoch()
    assert LeaderEpochCheckpointFile.new_file(log.dir()).exists()
    assert not LeaderEpochCheckpointFile.new_file(ctx.log_dir).exists()


def test_topic_id_transfers_after_directory_rename(ctx: Ctx) -> None:
    log = create_log(ctx, ctx.log_dir, _epoch_test_config())

    # a topic id in partition.metadata, to be carried over
    topic_id = Uuid.random_uuid()
    log.assign_topic_id(topic_id)

    log.append_as_leader(records([SimpleRecord(b"foo")]), leader_epoch=5)
    assert 5 == log.latest_epoch()

    # after a directory rename partition.metadata is written in the new place
    tp = unified_log.parse_topic_partition_name(log.dir())
    log.rename_dir(unified_log.log_delete_dir_name(tp), True)
    log.append_as_leader(records([SimpleRecord(b"foo")]), leader_epoch=10)
    assert 10 == log.latest_epoch()
    assert PartitionMetadataFile.new_file(log.dir()).exists()
    assert not PartitionMetadataFile.new_file(ctx.log_dir).exists()

    # the topic id stays in memory and was copied
    assert log.topic_id() is not None
    assert topic_id == log.topic_id()
    assert log.partition_metadata_file is not None
    assert topic_id == log.partition_metadata_file.read().topic_id


def test_topic_id_flushes_before_directory_rename(ctx: Ctx) -> None:
    log = create_log(ctx, ctx.log_dir, _epoch_test_config())

    topic_id = Uuid.random_uuid()
    assert log.partition_metadata_file is not None
    log.partition_metadata_file.record(topic_id)

    tp = unified_log.parse_topic_partition_name(log.dir())
    log.rename_dir(unified_log.log_delete_dir_name(tp), True)
    assert PartitionMetadataFile.new_file(log.dir()).exists()
    assert not PartitionMetadataFile.new_file(ctx.log_dir).exists()

    # the file holds the right contents
    assert log.partition_metadata_file.exists()
    assert topic_id == log.partition_metadata_file.read().topic_id


def test_leader_epoch_cache_cleared_after_downgrade_in_appended_messages(ctx: Ctx) -> None:
    log = create_log(ctx, ctx.log_dir, _epoch_test_config())
    log.append_as_leader(records([SimpleRecord(b"foo")]), leader_epoch=5)
    assert 5 == epoch_cache(log).latest_epoch()

    log.append_as_follower(records([SimpleRecord(b"foo")], base_offset=1, magic_value=RecordVersion.V1.value))
    assert epoch_cache(log).latest_epoch() is None


def _v0_10_2_props() -> dict[str, Any]:
    return {"segment.bytes": "1000", "index.interval.bytes": "1", "max.message.bytes": "65536",
            "message.format.version": "0.10.2"}


def test_leader_epoch_cache_cleared_after_dynamic_message_format_downgrade(ctx: Ctx) -> None:
    log = create_log(ctx, ctx.log_dir, _epoch_test_config())
    log.append_as_leader(records([SimpleRecord(b"foo")]), leader_epoch=5)
    assert 5 == log.latest_epoch()

    downgraded_log_config = LogConfig(_v0_10_2_props())
    log.update_config(downgraded_log_config)
    LogTestUtils.assert_leader_epoch_cache_empty(log)

    log.append_as_leader(records([SimpleRecord(b"bar")], magic_value=RecordVersion.V1.value), leader_epoch=5)
    LogTestUtils.assert_leader_epoch_cache_empty(log)


def test_leader_epoch_cache_created_after_message_format_upgrade(ctx: Ctx) -> None:
    log_props = _v0_10_2_props()
    log_config = LogConfig(log_props)
    log = create_log(ctx, ctx.log_dir, log_config)
    log.append_as_leader(records([SimpleRecord(b"bar")], magic_value=RecordVersion.V1.value), leader_epoch=5)
    LogTestUtils.assert_leader_epoch_cache_empty(log)

    log_props["message.format.version"] = "0.11.0"
    upgraded_log_config = LogConfig(log_props)
    log.update_config(upgraded_log_config)
    log.append_as_leader(records([SimpleRecord(b"foo")]), leader_epoch=5)
    assert 5 == log.latest_epoch()


def test_split_on_offset_overflow(ctx: Ctx) -> None:
    # a log with one segment whose offsets overflow, split
    log_config = LogTestUtils.create_log_config(index_interval_bytes=1, file_delete_delay_ms=1000)
    log, segment_with_overflow = create_log_with_offset_overflow(ctx, log_config)
    assert LogTestUtils.has_offset_overflow(log), "At least one segment must have offset overflow"

    all_records_before_split = all_records(log)

    log.split_overflowed_segment(segment_with_overflow)

    assert 4 == log.number_of_segments()
    verify_records_in_log(log, all_records_before_split)

    assert not LogTestUtils.has_offset_overflow(log)


def _test_degenerate_split_segment_with_overflow(ctx: Ctx, segment_base_offset: int,
                                                 recs: list[MemoryRecords]) -> None:
    segment = LogTestUtils.raw_segment(ctx.log_dir, segment_base_offset)
    # index files present: loading does not recover (and truncate) the segment
    log_file_utils.offset_index_file(ctx.log_dir, segment_base_offset).touch(exist_ok=False)
    log_file_utils.time_index_file(ctx.log_dir, segment_base_offset).touch(exist_ok=False)
    for r in recs:
        segment.append(r)
    segment.close()

    log_config = LogTestUtils.create_log_config(index_interval_bytes=1, file_delete_delay_ms=1000)
    log = create_log(ctx, ctx.log_dir, log_config, recovery_point=LONG_MAX)

    segment_with_overflow = LogTestUtils.first_overflow_segment(log)
    if segment_with_overflow is None:
        raise AssertionError("Failed to create log with a segment which has overflowed offsets")

    all_records_before_split = all_records(log)
    log.split_overflowed_segment(segment_with_overflow)

    assert 1 == log.number_of_segments()

    first_batch_base_offset = next(iter(recs[0].batches())).base_offset()
    assert first_batch_base_offset == log.active_segment().base_offset()
    verify_records_in_log(log, all_records_before_split)

    assert not LogTestUtils.has_offset_overflow(log)


def test_degenerate_segment_split(ctx: Ctx) -> None:
    # every batch of the segment overflows: the split makes one segment
    overflow_offset = INT_MAX + 1
    batch1 = MemoryRecords.with_records(Compression.NONE, SimpleRecord(b"a"), initial_offset=overflow_offset,
                                        partition_leader_epoch=0)
    batch2 = MemoryRecords.with_records(Compression.NONE, SimpleRecord(b"b"), initial_offset=overflow_offset + 1,
                                        partition_leader_epoch=0)
    _test_degenerate_split_segment_with_overflow(ctx, 0, [batch1, batch2])


def test_degenerate_segment_split_with_out_of_range_batch_last_offset(ctx: Ctx) -> None:
    # the only batch's first offset fits, its last overflows
    first_batch_base_offset = INT_MAX - 1
    recs = MemoryRecords.with_records(Compression.NONE, SimpleRecord(b"a"), SimpleRecord(b"b"), SimpleRecord(b"c"),
                                      initial_offset=first_batch_base_offset, partition_leader_epoch=0)
    _test_degenerate_split_segment_with_overflow(ctx, 0, [recs])


def test_delete_old_segments(ctx: Ctx) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test", timestamp=ctx.mock_time.milliseconds() - 1000)
    log_config = LogTestUtils.create_log_config(segment_bytes=create_records().size_in_bytes() * 5,
                                                segment_index_bytes=1000, retention_ms=999)
    log = create_log(ctx, ctx.log_dir, log_config)

    for _ in range(100):
        log.append_as_leader(create_records(), leader_epoch=0)

    log.maybe_assign_epoch_start_offset(0, 40)
    log.maybe_assign_epoch_start_offset(1, 90)

    # no high watermark: nothing is deletable
    num_segments = log.number_of_segments()
    log.delete_old_segments()
    assert num_segments == log.number_of_segments()
    assert 0 == log.log_start_offset

    # only segments below the high watermark are deletable
    for hw in range(25, 31):
        log.update_high_watermark(hw)
        log.delete_old_segments()
        assert log.log_start_offset <= hw
        for segment in log.log_segments():
            segment_fetch_info = segment.read(segment.base_offset(), INT_MAX)
            offsets = offsets_of(segment_fetch_info.records)
            if offsets:
                assert offsets[-1] >= hw

    # expire all segments
    log.update_high_watermark(log.log_end_offset())
    log.delete_old_segments()
    assert 1 == log.number_of_segments(), "The deleted segments should be gone."
    assert 1 == len(epoch_cache(log).epoch_entries()), "Epoch entries should have gone."
    assert EpochEntry(1, 100) == epoch_cache(log).epoch_entries()[0], \
        "Epoch entry should be the latest epoch and the leo."

    for _ in range(100):
        log.append_as_leader(create_records(), leader_epoch=0)

    log.delete()
    assert 0 == log.number_of_segments(), "The number of segments should be 0"
    assert 0 == log.delete_old_segments(), "The number of deleted segments should be zero."
    assert 0 == len(epoch_cache(log).epoch_entries()), "Epoch entries should have gone."


def test_log_deletion_after_close(ctx: Ctx) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test", timestamp=ctx.mock_time.milliseconds() - 1000)
    log_config = LogTestUtils.create_log_config(segment_bytes=create_records().size_in_bytes() * 5,
                                                segment_index_bytes=1000, retention_ms=999)
    log = create_log(ctx, ctx.log_dir, log_config)

    log.append_as_leader(create_records(), leader_epoch=0)

    assert 1 == log.number_of_segments()
    assert 1 == len(epoch_cache(log).epoch_entries())

    log.close()
    log.delete()
    assert 0 == log.number_of_segments(), "The number of segments should be 0"
    assert 0 == len(epoch_cache(log).epoch_entries()), "Epoch entries should have gone."


def test_log_deletion_after_delete_records(ctx: Ctx) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test")
    log_config = LogTestUtils.create_log_config(segment_bytes=create_records().size_in_bytes() * 5)
    log = create_log(ctx, ctx.log_dir, log_config)

    for _ in range(15):
        log.append_as_leader(create_records(), leader_epoch=0)
    assert 3 == log.number_of_segments(), "should have 3 segments"
    assert log.log_start_offset == 0
    log.update_high_watermark(log.log_end_offset())

    log.maybe_increment_log_start_offset(1, LogStartOffsetIncrementReason.ClientRecordDeletion)
    log.delete_old_segments()
    assert 3 == log.number_of_segments(), "should have 3 segments"
    assert log.log_start_offset == 1

    log.maybe_increment_log_start_offset(6, LogStartOffsetIncrementReason.ClientRecordDeletion)
    log.delete_old_segments()
    assert 2 == log.number_of_segments(), "should have 2 segments"
    assert log.log_start_offset == 6

    log.maybe_increment_log_start_offset(15, LogStartOffsetIncrementReason.ClientRecordDeletion)
    log.delete_old_segments()
    assert 1 == log.number_of_segments(), "should have 1 segments"
    assert log.log_start_offset == 15


def _retention_log(ctx: Ctx, create_records: Callable[[], MemoryRecords], **config: Any) -> UnifiedLog:
    log_config = LogTestUtils.create_log_config(segment_bytes=create_records().size_in_bytes() * 5, **config)
    log = create_log(ctx, ctx.log_dir, log_config)
    # some messages, some segments
    for _ in range(15):
        log.append_as_leader(create_records(), leader_epoch=0)
    return log


def test_should_delete_size_based_segments(ctx: Ctx) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test")
    log = _retention_log(ctx, create_records, retention_bytes=create_records().size_in_bytes() * 10)
    log.update_high_watermark(log.log_end_offset())
    log.delete_old_segments()
    assert 2 == log.number_of_segments(), "should have 2 segments"


def test_should_not_delete_size_based_segments_when_under_retention_size(ctx: Ctx) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test")
    log = _retention_log(ctx, create_records, retention_bytes=create_records().size_in_bytes() * 15)
    log.update_high_watermark(log.log_end_offset())
    log.delete_old_segments()
    assert 3 == log.number_of_segments(), "should have 3 segments"


def test_should_delete_time_based_segments_ready_to_be_deleted(ctx: Ctx) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test", timestamp=10)
    log = _retention_log(ctx, create_records, retention_ms=10000)
    log.update_high_watermark(log.log_end_offset())
    log.delete_old_segments()
    assert 1 == log.number_of_segments(), "There should be 1 segment remaining"


def test_should_not_delete_time_based_segments_when_none_ready_to_be_deleted(ctx: Ctx) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test", timestamp=ctx.mock_time.milliseconds())
    log = _retention_log(ctx, create_records, retention_ms=10000000)
    log.update_high_watermark(log.log_end_offset())
    log.delete_old_segments()
    assert 3 == log.number_of_segments(), "There should be 3 segments remaining"


def test_should_not_delete_segments_when_policy_does_not_include_delete(ctx: Ctx) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test", key=b"test", timestamp=10)
    log = _retention_log(ctx, create_records, retention_ms=10000, cleanup_policy="compact")

    # the oldest segment older than retention.ms
    log.log_segments()[0].set_last_modified(ctx.mock_time.milliseconds() - 20000)

    segments = log.number_of_segments()
    log.update_high_watermark(log.log_end_offset())
    log.delete_old_segments()
    assert segments == log.number_of_segments(), "There should be 3 segments remaining"


def test_should_delete_segments_ready_to_be_deleted_when_cleanup_policy_is_compact_and_delete(ctx: Ctx) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test", key=b"test", timestamp=10)
    log = _retention_log(ctx, create_records, retention_ms=10000, cleanup_policy="compact,delete")
    log.update_high_watermark(log.log_end_offset())
    log.delete_old_segments()
    assert 1 == log.number_of_segments(), "There should be 1 segment remaining"


def test_should_delete_start_offset_breached_segments_when_policy_does_not_include_delete(ctx: Ctx) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test", key=b"test", timestamp=10)
    records_per_segment = 5
    log = _retention_log(ctx, create_records, retention_ms=10000, cleanup_policy="compact")

    assert 3 == len(log.log_segments())
    log.update_high_watermark(log.log_end_offset())
    log.maybe_increment_log_start_offset(records_per_segment, LogStartOffsetIncrementReason.ClientRecordDeletion)

    # the first segment, wholly below the log start offset, goes; of the rest the first may hold the log start
    # offset and the others start above it
    log.update_high_watermark(log.log_end_offset())
    log.delete_old_segments()
    assert 2 == log.number_of_segments(), "There should be 2 segments remaining"
    assert log.log_segments()[0].base_offset() <= log.log_start_offset
    assert all(s.base_offset() > log.log_start_offset for s in log.log_segments()[1:])


def test_should_apply_epoch_to_message_on_append_if_leader(ctx: Ctx) -> None:
    recs = [SimpleRecord(str(i).encode()) for i in range(50)]

    # the partition is on leader epoch 72
    epoch = 72
    log = create_log(ctx, ctx.log_dir, LogConfig({}))
    log.maybe_assign_epoch_start_offset(epoch, len(recs))

    # appends as the leader (offsets assigned)
    for record in recs:
        log.append_as_leader(MemoryRecords.with_records(Compression.NONE, record), leader_epoch=epoch)

    # the leader epoch is set on the batches
    for i in range(len(recs)):
        read = next(iter(LogTestUtils.read_log(log, i, 1).records.batches()))
        assert 72 == read.partition_leader_epoch(), "Should have set leader epoch"


def test_follower_should_save_epoch_information_from_replicated_messages_to_the_epoch_cache(ctx: Ctx) -> None:
    message_ids = list(range(50))
    recs = [SimpleRecord(str(i).encode()) for i in message_ids]

    # each message has an offset and an epoch, as the leader's would
    def records_for_epoch(i: int) -> MemoryRecords:
        r = MemoryRecords.with_records(Compression.NONE, recs[i], initial_offset=message_ids[i])
        for batch in r.batches():
            batch.set_partition_leader_epoch(42)
            batch.set_last_offset(i)
        return r

    log = create_log(ctx, ctx.log_dir, LogConfig({}))

    # appends as a follower (offsets given)
    for i in range(len(recs)):
        log.append_as_follower(records_for_epoch(i))

    assert 42 == log.latest_epoch()


def test_should_truncate_leader_epochs_when_deleting_segments(ctx: Ctx) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test")
    log = _retention_log(ctx, create_records, retention_bytes=create_records().size_in_bytes() * 10)
    cache = epoch_cache(log)

    cache.assign(0, 0)
    cache.assign(1, 5)
    cache.assign(2, 10)

    # the first segment goes
    log.update_high_watermark(log.log_end_offset())
    log.delete_old_segments()

    # and the oldest epoch entry with it
    assert [EpochEntry(1, 5), EpochEntry(2, 10)] == cache.epoch_entries()


def test_should_update_offset_for_leader_epochs_when_deleting_segments(ctx: Ctx) -> None:
    def create_records() -> MemoryRecords:
        return singleton_records(b"test")
    log = _retention_log(ctx, create_records, retention_bytes=create_records().size_in_bytes() * 10)
    cache = epoch_cache(log)

    cache.assign(0, 0)
    cache.assign(1, 7)
    cache.assign(2, 10)

    # the first segment (up to offset 5) goes
    log.update_high_watermark(log.log_end_offset())
    log.delete_old_segments()

    # the first entry moved from (0, 0) to (0, 5)
    assert [EpochEntry(0, 5), EpochEntry(1, 7), EpochEntry(2, 10)] == cache.epoch_entries()


def test_should_truncate_leader_epoch_checkpoint_file_when_truncating_log(ctx: Ctx) -> None:
    def create_records(start_offset: int, epoch: int) -> MemoryRecords:
        return records([SimpleRecord(b"value")], base_offset=start_offset, partition_leader_epoch=epoch)

    log_config = LogTestUtils.create_log_config(segment_bytes=10 * create_records(0, 0).size_in_bytes())
    log = create_log(ctx, ctx.log_dir, log_config)
    cache = epoch_cache(log)

    def append(epoch: int, start_offset: int, count: int) -> None:
        for i in range(count):
            log.append_as_follower(create_records(start_offset + i, epoch))

    # 2 segments of 10 messages
    append(0, 0, 10)
    append(1, 10, 6)
    append(2, 16, 4)

    assert 2 == log.number_of_segments()
    assert 20 == log.log_end_offset()

    # truncation to the LEO changes nothing
    log.truncate_to(log.log_end_offset())
    assert 3 == len(cache.epoch_entries())

    log.truncate_to(11)
    assert 2 == len(cache.epoch_entries())

    log.truncate_to(10)
    assert 1 == len(cache.epoch_entries())

    log.truncate_to(0)
    assert 0 == len(cache.epoch_entries())


def test_first_unstable_offset_no_transactional_data(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)
    recs = MemoryRecords.with_records(Compression.NONE, SimpleRecord(b"foo"), SimpleRecord(b"bar"),
                                      SimpleRecord(b"baz"))
    log.append_as_leader(recs, leader_epoch=0)
    assert log.first_unstable_offset() is None


def test_first_unstable_offset_with_transactional_data(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)
    pid = 137
    epoch = 5
    seq = 0

    recs = MemoryRecords.with_transactional_records(Compression.NONE, pid, epoch, seq, SimpleRecord(b"foo"),
                                                    SimpleRecord(b"bar"), SimpleRecord(b"baz"))
    first_append_info = log.append_as_leader(recs, leader_epoch=0)
    assert first_append_info.first_offset == log.first_unstable_offset()

    # more transactional records
    seq += 3
    log.append_as_leader(MemoryRecords.with_transactional_records(Compression.NONE, pid, epoch, seq,
                                                                  SimpleRecord(b"blah")), leader_epoch=0)

    # the LSO has not moved
    assert first_append_info.first_offset == log.first_unstable_offset()

    # the transaction commits
    commit_append_info = LogTestUtils.append_end_txn_marker_as_leader(log, pid, epoch, ControlRecordType.COMMIT,
                                                                      ctx.mock_time.milliseconds())

    # the first unstable offset moves only when the high watermark does
    assert first_append_info.first_offset == log.first_unstable_offset()
    log.update_high_watermark(commit_append_info.last_offset + 1)

    assert log.first_unstable_offset() is None


def test_read_committed_with_concurrent_high_watermark_updates(ctx: Ctx) -> None:
    import threading
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)
    last_offset = 50

    producer_epoch = 0
    producer_id = 15
    append_producer = LogTestUtils.append_transactional_as_leader(log, producer_id, producer_epoch, ctx.mock_time)

    # thread 1 writes single-record transactions, tries to read them before aborting them, then aborts them
    def txn_write_and_read_loop() -> int:
        non_empty_reads = 0
        while log.log_end_offset() < last_offset:
            current_log_end_offset = log.log_end_offset()
            append_producer(1)
            read_info = log.read(current_log_end_offset, INT_MAX, FetchIsolation.TXN_COMMITTED, False)
            if read_info.records.size_in_bytes() > 0:
                non_empty_reads += 1
            LogTestUtils.append_end_txn_marker_as_leader(log, producer_id, producer_epoch, ControlRecordType.ABORT,
                                                         ctx.mock_time.milliseconds())
        return non_empty_reads

    # thread 2 watches the log and moves the high watermark
    def hw_update_loop() -> None:
        while log.log_end_offset() < last_offset:
            log.update_high_watermark(log.log_end_offset())

    hw_thread = threading.Thread(target=hw_update_loop, daemon=True)
    hw_thread.start()
    try:
        assert 0 == txn_write_and_read_loop()
    finally:
        hw_thread.join(timeout=30)


def _append_mixed_transactions(log: UnifiedLog, ctx: Ctx) -> None:
    epoch = 0
    pid1, pid2, pid3, pid4 = 1, 2, 3, 4
    append_pid1 = LogTestUtils.append_transactional_as_leader(log, pid1, epoch, ctx.mock_time)
    append_pid2 = LogTestUtils.append_transactional_as_leader(log, pid2, epoch, ctx.mock_time)
    append_pid3 = LogTestUtils.append_transactional_as_leader(log, pid3, epoch, ctx.mock_time)
    append_pid4 = LogTestUtils.append_transactional_as_leader(log, pid4, epoch, ctx.mock_time)

    def end(pid: int, control_type: ControlRecordType) -> None:
        LogTestUtils.append_end_txn_marker_as_leader(log, pid, epoch, control_type, ctx.mock_time.milliseconds())

    # transactional and non-transactional data mixed (next offset in the comments)
    append_pid1(5)  # 5
    LogTestUtils.append_non_transactional_as_leader(log, 3)  # 8
    append_pid2(2)  # 10
    append_pid1(4)  # 14
    append_pid3(3)  # 17
    LogTestUtils.append_non_transactional_as_leader(log, 2)  # 19
    append_pid1(10)  # 29
    end(pid1, ControlRecordType.ABORT)  # 30
    append_pid2(6)  # 36
    append_pid4(3)  # 39
    LogTestUtils.append_non_transactional_as_leader(log, 10)  # 49
    append_pid3(9)  # 58
    end(pid3, ControlRecordType.COMMIT)  # 59
    append_pid4(8)  # 67
    append_pid2(7)  # 74
    end(pid2, ControlRecordType.ABORT)  # 75
    LogTestUtils.append_non_transactional_as_leader(log, 10)  # 85
    append_pid4(4)  # 89
    end(pid4, ControlRecordType.COMMIT)  # 90


def _check_transaction_index(log: UnifiedLog) -> None:
    aborted_transactions = LogTestUtils.all_aborted_transactions(log)
    expected_transactions = [AbortedTxn(1, 0, 29, 8), AbortedTxn(2, 8, 74, 36)]
    assert expected_transactions == aborted_transactions

    # the first unstable offset's segment position is cached
    log.update_high_watermark(30)
    assert_cached_first_unstable_offset(log, 8)

    log.update_high_watermark(75)
    assert_cached_first_unstable_offset(log, 36)

    log.update_high_watermark(log.log_end_offset())
    assert log.first_unstable_offset() is None


def test_transaction_index_updated(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)
    _append_mixed_transactions(log, ctx)
    _check_transaction_index(log)


def test_transaction_index_updated_through_replication(ctx: Ctx) -> None:
    epoch = 0
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)
    buffer = bytearray()
    pid1, pid2, pid3, pid4 = 1, 2, 3, 4

    append_pid1 = append_transactional_to_buffer(ctx, buffer, pid1, epoch)
    append_pid2 = append_transactional_to_buffer(ctx, buffer, pid2, epoch)
    append_pid3 = append_transactional_to_buffer(ctx, buffer, pid3, epoch)
    append_pid4 = append_transactional_to_buffer(ctx, buffer, pid4, epoch)

    append_pid1(0, 5)
    append_non_transactional_to_buffer(buffer, 5, 3)
    append_pid2(8, 2)
    append_pid1(10, 4)
    append_pid3(14, 3)
    append_non_transactional_to_buffer(buffer, 17, 2)
    append_pid1(19, 10)
    append_end_txn_marker_to_buffer(ctx, buffer, pid1, epoch, 29, ControlRecordType.ABORT)
    append_pid2(30, 6)
    append_pid4(36, 3)
    append_non_transactional_to_buffer(buffer, 39, 10)
    append_pid3(49, 9)
    append_end_txn_marker_to_buffer(ctx, buffer, pid3, epoch, 58, ControlRecordType.COMMIT)
    append_pid4(59, 8)
    append_pid2(67, 7)
    append_end_txn_marker_to_buffer(ctx, buffer, pid2, epoch, 74, ControlRecordType.ABORT)
    append_non_transactional_to_buffer(buffer, 75, 10)
    append_pid4(85, 4)
    append_end_txn_marker_to_buffer(ctx, buffer, pid4, epoch, 89, ControlRecordType.COMMIT)

    append_as_follower(log, read_buffer(buffer))
    _check_transaction_index(log)


def test_zombie_coordinator_fenced(ctx: Ctx) -> None:
    pid = 1
    epoch = 0
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)

    append = LogTestUtils.append_transactional_as_leader(log, pid, epoch, ctx.mock_time)

    append(10)
    LogTestUtils.append_end_txn_marker_as_leader(log, pid, epoch, ControlRecordType.ABORT,
                                                 ctx.mock_time.milliseconds(), coordinator_epoch=1)
    append(5)
    LogTestUtils.append_end_txn_marker_as_leader(log, pid, epoch, ControlRecordType.COMMIT,
                                                 ctx.mock_time.milliseconds(), coordinator_epoch=2)

    with pytest.raises(TransactionCoordinatorFencedException):
        LogTestUtils.append_end_txn_marker_as_leader(log, pid, epoch, ControlRecordType.ABORT,
                                                     ctx.mock_time.milliseconds(), coordinator_epoch=1)


def test_zombie_coordinator_fenced_empty_transaction(ctx: Ctx) -> None:
    pid = 1
    epoch = 0
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)

    buffer = bytearray()
    append = append_transactional_to_buffer(ctx, buffer, pid, epoch, leader_epoch=1)
    append(0, 10)
    append_end_txn_marker_to_buffer(ctx, buffer, pid, epoch, 10, ControlRecordType.COMMIT, leader_epoch=1)

    log.append_as_follower(read_buffer(buffer))

    LogTestUtils.append_end_txn_marker_as_leader(log, pid, epoch, ControlRecordType.ABORT,
                                                 ctx.mock_time.milliseconds(), coordinator_epoch=2, leader_epoch=1)
    LogTestUtils.append_end_txn_marker_as_leader(log, pid, epoch, ControlRecordType.ABORT,
                                                 ctx.mock_time.milliseconds(), coordinator_epoch=2, leader_epoch=1)
    with pytest.raises(TransactionCoordinatorFencedException):
        LogTestUtils.append_end_txn_marker_as_leader(log, pid, epoch, ControlRecordType.ABORT,
                                                     ctx.mock_time.milliseconds(), coordinator_epoch=1, leader_epoch=1)


def test_end_txn_with_fenced_producer_epoch(ctx: Ctx) -> None:
    producer_id = 1
    epoch = 5
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)
    LogTestUtils.append_end_txn_marker_as_leader(log, producer_id, epoch, ControlRecordType.ABORT,
                                                 ctx.mock_time.milliseconds(), coordinator_epoch=1)

    with pytest.raises(InvalidProducerEpochException):
        LogTestUtils.append_end_txn_marker_as_leader(log, producer_id, epoch - 1, ControlRecordType.ABORT,
                                                     ctx.mock_time.milliseconds(), coordinator_epoch=1)


def _two_segments_with_open_transaction(ctx: Ctx) -> UnifiedLog:
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)
    append_pid = LogTestUtils.append_transactional_as_leader(log, 1, 0, ctx.mock_time)

    append_pid(5)
    LogTestUtils.append_non_transactional_as_leader(log, 3)
    assert 8 == log.log_end_offset()

    log.roll()
    assert 2 == len(log.log_segments())
    append_pid(5)

    assert 0 == log.first_unstable_offset()
    return log


def test_last_stable_offset_does_not_exceed_log_start_offset_mid_segment(ctx: Ctx) -> None:
    log = _two_segments_with_open_transaction(ctx)
    log.update_high_watermark(log.log_end_offset())
    log.maybe_increment_log_start_offset(5, LogStartOffsetIncrementReason.ClientRecordDeletion)

    # the first unstable offset is bounded below by the log start offset
    assert 5 == log.first_unstable_offset()


def test_last_stable_offset_does_not_exceed_log_start_offset_after_segment_deletion(ctx: Ctx) -> None:
    log = _two_segments_with_open_transaction(ctx)
    log.update_high_watermark(log.log_end_offset())
    log.maybe_increment_log_start_offset(8, LogStartOffsetIncrementReason.ClientRecordDeletion)
    log.update_high_watermark(log.log_end_offset())
    log.delete_old_segments()
    assert 1 == len(log.log_segments())

    # the first unstable offset is bounded below by the log start offset
    assert 8 == log.first_unstable_offset()


def test_append_to_transaction_index_failure(ctx: Ctx) -> None:
    pid = 1
    epoch = 0
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)

    append = LogTestUtils.append_transactional_as_leader(log, pid, epoch, ctx.mock_time)
    append(10)

    # a transaction index renamed to a directory makes the index append fail
    log.active_segment().txn_index().rename_to(log.dir())

    # the records are written, the index write fails
    with pytest.raises(KafkaStorageException):
        LogTestUtils.append_end_txn_marker_as_leader(log, pid, epoch, ControlRecordType.ABORT,
                                                     ctx.mock_time.milliseconds(), coordinator_epoch=1)
    assert 11 == log.log_end_offset()
    assert 0 == log.last_stable_offset()

    # a second try: the log dir is offline, so neither the log nor the index grows
    with pytest.raises(KafkaStorageException):
        LogTestUtils.append_end_txn_marker_as_leader(log, pid, epoch, ControlRecordType.ABORT,
                                                     ctx.mock_time.milliseconds(), coordinator_epoch=1)
    assert 11 == log.log_end_offset()
    assert 0 == log.last_stable_offset()

    # the first unstable offset stays even when the high watermark moves
    log.update_high_watermark(12)
    assert 0 == log.last_stable_offset()

    with pytest.raises(KafkaStorageException):
        log.close()
    reopened_log = create_log(ctx, ctx.log_dir, log_config, last_shutdown_clean=False)
    assert 11 == reopened_log.log_end_offset()
    assert 1 == len(reopened_log.active_segment().txn_index().all_aborted_txns())
    reopened_log.update_high_watermark(12)
    assert reopened_log.first_unstable_offset() is None


def test_offset_snapshot(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)

    append_as_follower(log, MemoryRecords.with_records(Compression.NONE, SimpleRecord(b"a"), SimpleRecord(b"b"),
                                                       SimpleRecord(b"c")), 5)

    log.update_high_watermark(2)
    offsets: LogOffsetSnapshot = log.fetch_offset_snapshot()
    assert offsets.high_watermark.message_offset == 2
    assert not offsets.high_watermark.message_offset_only()

    offsets = log.fetch_offset_snapshot()
    assert offsets.high_watermark.message_offset == 2
    assert not offsets.high_watermark.message_offset_only()


def test_last_stable_offset_with_mixed_producer_data(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)

    # both producers share an epoch
    epoch = 5
    pid1 = 137
    seq1 = 0
    pid2 = 983
    seq2 = 0

    first_append_info = log.append_as_leader(MemoryRecords.with_transactional_records(
        Compression.NONE, pid1, epoch, seq1, SimpleRecord(b"a"), SimpleRecord(b"b"), SimpleRecord(b"c")),
        leader_epoch=0)
    assert first_append_info.first_offset == log.first_unstable_offset()

    # non-transactional data in between
    log.append_as_leader(MemoryRecords.with_records(Compression.NONE, SimpleRecord(b"g"), SimpleRecord(b"h"),
                                                    SimpleRecord(b"i")), leader_epoch=0)

    # a second transactional producer
    second_append_info = log.append_as_leader(MemoryRecords.with_transactional_records(
        Compression.NONE, pid2, epoch, seq2, SimpleRecord(b"d"), SimpleRecord(b"e"), SimpleRecord(b"f")),
        leader_epoch=0)

    # the LSO has not moved
    assert first_append_info.first_offset == log.first_unstable_offset()

    # the first producer's transaction aborts
    abort_append_info = LogTestUtils.append_end_txn_marker_as_leader(log, pid1, epoch, ControlRecordType.ABORT,
                                                                     ctx.mock_time.milliseconds())
    log.update_high_watermark(abort_append_info.last_offset + 1)

    # the LSO is now the second transaction's first offset
    assert second_append_info.first_offset == log.first_unstable_offset()

    # the second transaction commits
    commit_append_info = LogTestUtils.append_end_txn_marker_as_leader(log, pid2, epoch, ControlRecordType.COMMIT,
                                                                      ctx.mock_time.milliseconds())
    log.update_high_watermark(commit_append_info.last_offset + 1)

    assert log.first_unstable_offset() is None


def test_aborted_transaction_spanning_multiple_segments(ctx: Ctx) -> None:
    pid = 137
    epoch = 5
    seq = 0

    recs = MemoryRecords.with_transactional_records(Compression.NONE, pid, epoch, seq, SimpleRecord(b"a"),
                                                    SimpleRecord(b"b"), SimpleRecord(b"c"))

    log_config = LogTestUtils.create_log_config(segment_bytes=recs.size_in_bytes())
    log = create_log(ctx, ctx.log_dir, log_config)

    first_append_info = log.append_as_leader(recs, leader_epoch=0)
    assert first_append_info.first_offset == log.first_unstable_offset()

    # this write spills into the second segment
    seq = 3
    log.append_as_leader(MemoryRecords.with_transactional_records(
        Compression.NONE, pid, epoch, seq, SimpleRecord(b"d"), SimpleRecord(b"e"), SimpleRecord(b"f")),
        leader_epoch=0)
    assert first_append_info.first_offset == log.first_unstable_offset()
    assert 3 == log.log_end_offset_metadata().segment_base_offset

    # abort the transaction
    abort_append_info = LogTestUtils.append_end_txn_marker_as_leader(log, pid, epoch, ControlRecordType.ABORT,
                                                                     ctx.mock_time.milliseconds())
    log.update_high_watermark(abort_append_info.last_offset + 1)
    assert log.first_unstable_offset() is None

    # a fetch includes the aborted transaction
    fetch_data_info = log.read(0, 2048, FetchIsolation.TXN_COMMITTED, True)

    assert fetch_data_info.aborted_transactions is not None
    assert 1 == len(fetch_data_info.aborted_transactions)
    assert AbortedTransaction(producer_id=ProducerId(pid), first_offset=i64(0)) == \
        fetch_data_info.aborted_transactions[0]


def test_load_partition_dir_with_no_segments_should_not_throw(ctx: Ctx) -> None:
    dir_name = unified_log.log_delete_dir_name(TopicPartition("foo", 3))
    log_dir = ctx.tmp_dir / dir_name
    log_dir.mkdir(parents=True)
    log_config = LogTestUtils.create_log_config()
    log = create_log(ctx, log_dir, log_config)
    assert 1 == log.number_of_segments()


def _hundred_records_log(ctx: Ctx, log_config: LogConfig, **kw: Any) -> UnifiedLog:
    log = create_log(ctx, ctx.log_dir, log_config, **kw)
    for i in range(100):
        log.append_as_leader(singleton_records(f"test{i}".encode()), leader_epoch=0)
    return log


def _expired_log(ctx: Ctx) -> UnifiedLog:
    log_config = LogTestUtils.create_log_config(segment_bytes=512, segment_index_bytes=1000, retention_ms=999)
    log = create_log(ctx, ctx.log_dir, log_config)
    expired_timestamp = ctx.mock_time.milliseconds() - 1000
    for i in range(100):
        log.append_as_leader(singleton_records(f"test{i}".encode(), timestamp=expired_timestamp), leader_epoch=0)
    return log


def test_segment_deletion_with_high_watermark_initialization(ctx: Ctx) -> None:
    log = _expired_log(ctx)

    initial_high_watermark = log.update_high_watermark(25)
    assert 25 == initial_high_watermark

    initial_num_segments = log.number_of_segments()
    log.delete_old_segments()
    assert log.number_of_segments() < initial_num_segments
    assert log.log_start_offset <= initial_high_watermark


def test_cannot_delete_segments_at_or_above_high_watermark(ctx: Ctx) -> None:
    log = _expired_log(ctx)

    # a few segments, so that the case is not trivial
    assert log.number_of_segments() > 5
    assert 0 == log.high_watermark()
    assert 0 == log.log_start_offset
    assert 100 == log.log_end_offset()

    for hw in range(101):
        log.update_high_watermark(hw)
        assert hw == log.high_watermark()
        log.delete_old_segments()
        assert log.log_start_offset <= hw

        # every segment below the high watermark is gone
        segments = log.log_segments()
        if segments:
            assert segments[0].base_offset() <= hw
            assert segments[0].base_offset() >= log.log_start_offset
        for segment in segments[1:]:
            assert segment.base_offset() > hw
            assert segment.base_offset() >= log.log_start_offset

    assert 100 == log.log_start_offset
    assert 1 == log.number_of_segments()
    assert 0 == log.active_segment().size()


def test_cannot_increment_log_start_offset_past_high_watermark(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=512, segment_index_bytes=1000, retention_ms=999)
    log = _hundred_records_log(ctx, log_config)

    log.update_high_watermark(25)
    with pytest.raises(OffsetOutOfRangeException):
        log.maybe_increment_log_start_offset(26, LogStartOffsetIncrementReason.ClientRecordDeletion)


def test_renaming_dir_without_reinitialization(ctx: Ctx) -> None:
    """A rename without reinitialisation: topic deletion."""
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024)
    log = create_log(ctx, ctx.log_dir, log_config)
    assert 1 == log.number_of_segments(), "The number of segments should be 1"

    new_dir = random_partition_log_dir(ctx.tmp_dir)
    assert new_dir.exists()

    log.rename_dir(new_dir.name, False)
    assert log.leader_epoch_cache is None
    assert log.partition_metadata_file is None
    assert 0 == log.log_end_offset()
    # appends still work without the epoch cache and partition.metadata
    log.append_as_leader(records([srec(ctx.mock_time.milliseconds(), b"key", b"value")]), leader_epoch=0)
    assert 1 == log.log_end_offset()

    # the background deletion works
    log.delete()
    assert 0 == log.number_of_segments(), "The number of segments should be 0"
    assert not new_dir.exists()


def test_maybe_update_high_watermark_as_follower(ctx: Ctx) -> None:
    log = _hundred_records_log(ctx, LogTestUtils.create_log_config())

    assert 99 == log.maybe_update_high_watermark(99)
    assert log.maybe_update_high_watermark(99) is None

    assert 100 == log.maybe_update_high_watermark(100)
    assert log.maybe_update_high_watermark(100) is None

    # bounded by the log end offset
    assert log.maybe_update_high_watermark(101) is None


def test_remote_log_storage_is_disabled_on_internal_and_remote_log_metadata_topic(ctx: Ctx) -> None:
    partitions = [TopicPartition(topic, 0) for topic in
                  (unified_log.REMOTE_LOG_METADATA_TOPIC_NAME, Topic.TRANSACTION_STATE_TOPIC_NAME,
                   Topic.TRANSACTION_STATE_TOPIC_NAME)]
    for i, partition in enumerate(partitions):
        log_config = LogTestUtils.create_log_config(remote_log_storage_enable=True)
        internal_log_dir = ctx.tmp_dir / f"t{i}" / str(partition)
        internal_log_dir.mkdir(parents=True)
        log = create_log(ctx, internal_log_dir, log_config, remote_storage_system_enable=True)
        assert not log.remote_log_enabled()


def test_no_op_when_remote_log_storage_is_disabled(ctx: Ctx) -> None:
    log = _hundred_records_log(ctx, LogTestUtils.create_log_config())

    log.update_high_watermark(90)
    log.maybe_increment_log_start_offset(20, LogStartOffsetIncrementReason.SegmentDeletion)
    assert 20 == log.log_start_offset


def test_start_offsets_remote_log_storage_is_enabled(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(remote_log_storage_enable=True)
    log = _hundred_records_log(ctx, log_config, remote_storage_system_enable=True)

    log.update_high_watermark(80)
    new_log_start_offset = 40
    log.maybe_increment_log_start_offset(new_log_start_offset, LogStartOffsetIncrementReason.SegmentDeletion)
    assert new_log_start_offset == log.log_start_offset
    assert log.log_start_offset == log.local_log_start_offset()

    # truncating the local log updates both offsets
    new_local_log_start_offset = 60
    log.truncate_fully_and_start_at(new_local_log_start_offset, new_log_start_offset)
    assert new_log_start_offset == log.log_start_offset
    assert new_local_log_start_offset == log.local_log_start_offset()


class MockLogOffsetsListener(LogOffsetsListener):
    def __init__(self) -> None:
        self._high_watermark = -1

    def on_high_watermark_updated(self, offset: int) -> None:
        self._high_watermark = offset

    def _clear(self) -> None:
        self._high_watermark = -1

    def verify(self, expected_high_watermark: int = -1) -> None:
        """The callbacks since the last verify (-1: none)."""
        assert expected_high_watermark == self._high_watermark, "Unexpected high watermark"
        self._clear()


def test_log_offsets_listener(ctx: Ctx) -> None:
    def recs(offset: int) -> MemoryRecords:
        return abc_records(ctx, base_offset=offset, partition_leader_epoch=0)

    listener = MockLogOffsetsListener()
    listener.verify()

    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024)
    log = create_log(ctx, ctx.log_dir, log_config, log_offsets_listener=listener)

    listener.verify(0)

    log.append_as_leader(recs(0), 0)
    log.append_as_leader(recs(0), 0)

    log.maybe_increment_high_watermark(LogOffsetMetadata(4))
    listener.verify(4)

    log.truncate_to(3)
    listener.verify(3)

    log.append_as_leader(recs(0), 0)
    log.truncate_fully_and_start_at(4)
    listener.verify(4)


def test_update_log_offsets_listener(ctx: Ctx) -> None:
    def recs(offset: int) -> MemoryRecords:
        return abc_records(ctx, base_offset=offset, partition_leader_epoch=0)

    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024)
    log = create_log(ctx, ctx.log_dir, log_config)

    log.append_as_leader(recs(0), 0)
    log.maybe_increment_high_watermark(LogOffsetMetadata(2))
    log.maybe_increment_log_start_offset(1, LogStartOffsetIncrementReason.SegmentDeletion)

    listener = MockLogOffsetsListener()
    listener.verify()

    log.set_log_offsets_listener(listener)
    listener.verify()  # setting the listener does not call it

    log.append_as_leader(recs(0), 0)
    log.maybe_increment_high_watermark(LogOffsetMetadata(4))
    listener.verify(4)


@pytest.mark.parametrize("append_origin", [AppendOrigin.CLIENT, AppendOrigin.COORDINATOR])
def test_transaction_is_ongoing_and_verification_guard(ctx: Ctx, append_origin: AppendOrigin) -> None:
    producer_state_manager_config = ProducerStateManagerConfig(86400000, True)

    producer_id = 23
    producer_epoch = 1
    sequence = 3 if append_origin == AppendOrigin.CLIENT else 0
    log_config = LogTestUtils.create_log_config(segment_bytes=2048 * 5)
    log = create_log(ctx, ctx.log_dir, log_config, producer_state_manager_config=producer_state_manager_config)
    assert not log.has_ongoing_transaction(producer_id)
    assert VerificationGuard.SENTINEL == log.verification_guard(producer_id)
    assert not log.verification_guard(producer_id).verify(VerificationGuard.SENTINEL)

    idempotent_records = MemoryRecords.with_idempotent_records(Compression.NONE, producer_id, producer_epoch,
                                                               sequence, SimpleRecord(b"1"), SimpleRecord(b"2"))

    # only clients have non-zero sequences
    if append_origin == AppendOrigin.CLIENT:
        sequence = sequence + 2

    transactional_records = MemoryRecords.with_transactional_records(Compression.NONE, producer_id, producer_epoch,
                                                                     sequence, SimpleRecord(b"1"), SimpleRecord(b"2"))

    verification_guard = log.maybe_start_transaction_verification(producer_id, sequence, producer_epoch)
    assert VerificationGuard.SENTINEL != verification_guard

    log.append_as_leader(idempotent_records, origin=append_origin, leader_epoch=0)
    assert not log.has_ongoing_transaction(producer_id)

    # idempotent records keep the guard
    assert verification_guard == log.verification_guard(producer_id)

    # the transactional records
    assert log.verification_guard(producer_id).verify(verification_guard)
    log.append_as_leader(transactional_records, origin=append_origin, leader_epoch=0,
                         verification_guard=verification_guard)
    assert log.has_ongoing_transaction(producer_id)
    # the guard is cleared
    assert VerificationGuard.SENTINEL == log.verification_guard(producer_id)

    # already verified: a new verification gets the sentinel
    assert VerificationGuard.SENTINEL == log.maybe_start_transaction_verification(producer_id, sequence,
                                                                                   producer_epoch)

    end_transaction_marker_record = MemoryRecords.with_end_transaction_marker(
        producer_id, producer_epoch, EndTransactionMarker(ControlRecordType.COMMIT, 0))

    log.append_as_leader(end_transaction_marker_record, origin=AppendOrigin.COORDINATOR, leader_epoch=0)
    assert not log.has_ongoing_transaction(producer_id)
    assert VerificationGuard.SENTINEL == log.verification_guard(producer_id)

    if append_origin == AppendOrigin.CLIENT:
        sequence = sequence + 1

    # the next transaction needs verifying again: a new guard
    new_verification_guard = log.maybe_start_transaction_verification(producer_id, sequence, producer_epoch)
    assert VerificationGuard.SENTINEL != new_verification_guard
    assert verification_guard != new_verification_guard
    assert not verification_guard.verify(new_verification_guard)


def test_empty_transaction_still_clears_verification_guard(ctx: Ctx) -> None:
    producer_state_manager_config = ProducerStateManagerConfig(86400000, True)
    producer_id = 23
    producer_epoch = 1
    log_config = LogTestUtils.create_log_config(segment_bytes=2048 * 5)
    log = create_log(ctx, ctx.log_dir, log_config, producer_state_manager_config=producer_state_manager_config)

    verification_guard = log.maybe_start_transaction_verification(producer_id, 0, producer_epoch)
    assert VerificationGuard.SENTINEL != verification_guard

    end_transaction_marker_record = MemoryRecords.with_end_transaction_marker(
        producer_id, producer_epoch, EndTransactionMarker(ControlRecordType.COMMIT, 0))

    log.append_as_leader(end_transaction_marker_record, origin=AppendOrigin.COORDINATOR, leader_epoch=0)
    assert not log.has_ongoing_transaction(producer_id)
    assert VerificationGuard.SENTINEL == log.verification_guard(producer_id)


def test_disabled_verification_clears_verification_guard(ctx: Ctx) -> None:
    producer_state_manager_config = ProducerStateManagerConfig(86400000, True)
    producer_id = 23
    producer_epoch = 1
    log_config = LogTestUtils.create_log_config(segment_bytes=2048 * 5)
    log = create_log(ctx, ctx.log_dir, log_config, producer_state_manager_config=producer_state_manager_config)

    verification_guard = log.maybe_start_transaction_verification(producer_id, 0, producer_epoch)
    assert VerificationGuard.SENTINEL != verification_guard

    producer_state_manager_config.set_transaction_verification_enabled(False)

    transactional_records = MemoryRecords.with_transactional_records(Compression.NONE, producer_id, producer_epoch,
                                                                     0, SimpleRecord(b"1"), SimpleRecord(b"2"))
    log.append_as_leader(transactional_records, leader_epoch=0)

    assert log.has_ongoing_transaction(producer_id)
    assert VerificationGuard.SENTINEL == log.verification_guard(producer_id)


def test_enabling_verification_when_request_is_at_log_layer(ctx: Ctx) -> None:
    producer_state_manager_config = ProducerStateManagerConfig(86400000, False)
    producer_id = 23
    producer_epoch = 1
    sequence = 4
    log_config = LogTestUtils.create_log_config(segment_bytes=2048 * 5)
    log = create_log(ctx, ctx.log_dir, log_config, producer_state_manager_config=producer_state_manager_config)

    producer_state_manager_config.set_transaction_verification_enabled(True)

    transactional_records = MemoryRecords.with_transactional_records(Compression.NONE, producer_id, producer_epoch,
                                                                     sequence, SimpleRecord(b"1"), SimpleRecord(b"2"))
    with pytest.raises(InvalidTxnStateException):
        log.append_as_leader(transactional_records, leader_epoch=0)
    assert not log.has_ongoing_transaction(producer_id)
    assert VerificationGuard.SENTINEL == log.verification_guard(producer_id)

    verification_guard = log.maybe_start_transaction_verification(producer_id, sequence, producer_epoch)
    assert VerificationGuard.SENTINEL != verification_guard

    log.append_as_leader(transactional_records, leader_epoch=0, verification_guard=verification_guard)
    assert log.has_ongoing_transaction(producer_id)
    assert VerificationGuard.SENTINEL == log.verification_guard(producer_id)


def test_allow_non_zero_sequence_on_first_append_non_zero_epoch(ctx: Ctx) -> None:
    producer_state_manager_config = ProducerStateManagerConfig(86400000, True)
    producer_id = 23
    producer_epoch = 1
    sequence = 3
    log_config = LogTestUtils.create_log_config(segment_bytes=2048 * 5)
    log = create_log(ctx, ctx.log_dir, log_config, producer_state_manager_config=producer_state_manager_config)
    assert not log.has_ongoing_transaction(producer_id)
    assert VerificationGuard.SENTINEL == log.verification_guard(producer_id)

    transactional_records = MemoryRecords.with_transactional_records(Compression.NONE, producer_id, producer_epoch,
                                                                     sequence, SimpleRecord(b"1"), SimpleRecord(b"2"))

    verification_guard = log.maybe_start_transaction_verification(producer_id, sequence, producer_epoch)
    # no error
    log.append_as_leader(transactional_records, leader_epoch=0, verification_guard=verification_guard)


def test_recovery_point_not_incremented_on_producer_state_snapshot_flush_failure(ctx: Ctx) -> None:
    """Kafka's Mockito spy is an instance attribute replacing flush_producer_state_snapshot."""
    log_config = LogTestUtils.create_log_config()
    log = create_log(ctx, ctx.log_dir, log_config)

    def fail(snapshot: Path) -> None:
        raise KafkaStorageException("Injected exception")
    log.flush_producer_state_snapshot = fail  # type: ignore[method-assign]

    log.append_as_leader(singleton_records(b"a"), leader_epoch=0)
    try:
        log.roll(1)
        ctx.mock_time.scheduler.tick()
    except KafkaStorageException:
        pass

    # the recovery point did not move
    assert 0 == log.recovery_point()


def _ten_segments_log(ctx: Ctx) -> UnifiedLog:
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024)
    log = create_log(ctx, ctx.log_dir, log_config)
    for _ in range(9):
        log.append_as_leader(records([SimpleRecord(b"a", timestamp=ctx.mock_time.milliseconds())]), leader_epoch=0)
        log.roll()
    log.maybe_increment_high_watermark(log.log_end_offset_metadata())
    assert 10 == len(log.log_segments())
    return log


def test_deletable_segments_filter(ctx: Ctx) -> None:
    log = _ten_segments_log(ctx)

    deletable = log.deletable_segments(lambda segment, _: segment.base_offset() <= 5)
    expected = [s for s in log.non_active_log_segments_from(0) if s.base_offset() <= 5]
    assert 6 == len(expected)
    assert expected == list(deletable)

    deletable = log.deletable_segments(lambda _s, _n: True)
    expected = list(log.non_active_log_segments_from(0))
    assert 9 == len(expected)
    assert expected == list(deletable)

    log.append_as_leader(records([SimpleRecord(b"a", timestamp=ctx.mock_time.milliseconds())]), leader_epoch=0)
    log.maybe_increment_high_watermark(log.log_end_offset_metadata())
    deletable = log.deletable_segments(lambda _s, _n: True)
    expected = list(log.log_segments())
    assert 10 == len(expected)
    assert expected == list(deletable)


def test_deletable_segments_iteration(ctx: Ctx) -> None:
    from kafka_edu.v3_9.storage.storage.internals.log.log_segments import LogSegments
    log = _ten_segments_log(ctx)

    offset = 0

    def predicate(segment: LogSegment, next_segment_opt: LogSegment | None) -> bool:
        nonlocal offset
        assert offset == segment.base_offset()
        log_segments = LogSegments(log.topic_partition())
        for s in log.log_segments():
            log_segments.add(s)
        floor_segment_opt = log_segments.floor_segment(offset)
        assert floor_segment_opt is not None
        assert floor_segment_opt == segment
        if offset == log.log_end_offset():
            assert next_segment_opt is None
        else:
            assert next_segment_opt is not None
            higher_segment_opt = log_segments.higher_segment(segment.base_offset())
            assert higher_segment_opt is not None
            assert segment.base_offset() + 1 == higher_segment_opt.base_offset()
            assert higher_segment_opt == next_segment_opt
        offset += 1
        return True

    deletable_segments = log.deletable_segments(predicate)
    assert 10 == len(log.log_segments())
    assert list(log.non_active_log_segments_from(0)) == list(deletable_segments)


def test_active_segment_deletion_due_to_retention_time_breach_with_remote_storage(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(index_interval_bytes=1, segment_index_bytes=12, retention_ms=3,
                                                local_retention_ms=1, file_delete_delay_ms=0,
                                                remote_log_storage_enable=True)
    log = create_log(ctx, ctx.log_dir, log_config, remote_storage_system_enable=True)

    # one message in the active segment
    log.append_as_leader(records([SimpleRecord(b"a", timestamp=ctx.mock_time.milliseconds())]), leader_epoch=0)
    # segments below the high watermark are deletable
    log.update_high_watermark(log.log_end_offset())
    assert 1 == len(log.log_segments())
    assert 0 == log.active_segment().base_offset()

    ctx.mock_time.sleep(2)
    # the active segment was rolled: it is past retention
    log.delete_old_segments()
    assert 2 == len(log.log_segments())
    for idx, segment in enumerate(log.log_segments()):
        assert idx == segment.base_offset()

    # once copied to remote storage the rolled segment goes
    log.update_highest_offset_in_remote_storage(1)
    log.delete_old_segments()
    assert 1 == len(log.log_segments())
    assert 1 == log.log_segments()[0].base_offset()
    assert 1 == log.local_log_start_offset()
    assert 1 == log.log_end_offset()
    assert 0 == log.log_start_offset


def test_segment_deletion_enabled_before_upload_to_remote_tier_when_log_start_offset_moved_ahead(ctx: Ctx) -> None:
    log_config = LogTestUtils.create_log_config(retention_bytes=1, file_delete_delay_ms=0,
                                                remote_log_storage_enable=True)
    log = create_log(ctx, ctx.log_dir, log_config, remote_storage_system_enable=True)
    pid = 1
    epoch = 0

    for value, seq, leader_epoch in ((b"a", 0, 0), (b"b", 1, 0), (b"c", 2, 0), (b"d", 3, 1)):
        log.append_as_leader(records([SimpleRecord(value)], producer_id=pid, producer_epoch=epoch, sequence=seq),
                             leader_epoch=leader_epoch)
    log.roll()
    log.append_as_leader(records([SimpleRecord(b"e")], producer_id=pid, producer_epoch=epoch, sequence=4),
                         leader_epoch=2)
    log.update_high_watermark(log.log_end_offset())
    assert 2 == len(log.log_segments())

    # nothing copied to remote storage: no local segment is deletable
    log.update_highest_offset_in_remote_storage(-1)
    log.delete_old_segments()
    ctx.mock_time.sleep(1)
    assert 2 == len(log.log_segments())

    # log start offset 0 -> 3: the base segment is still not deletable
    log.update_log_start_offset_from_remote_tier(3)
    log.delete_old_segments()
    ctx.mock_time.sleep(1)
    assert 2 == len(log.log_segments())

    # 3 -> 4: the base segment is deletable though not copied
    log.update_log_start_offset_from_remote_tier(4)
    log.delete_old_segments()
    ctx.mock_time.sleep(1)
    assert 1 == len(log.log_segments())


def _six_single_message_segments(ctx: Ctx, **config: Any) -> tuple[UnifiedLog, Callable[[], MemoryRecords], int]:
    def create_records() -> MemoryRecords:
        return records([SimpleRecord(b"a", timestamp=ctx.mock_time.milliseconds())])
    segment_bytes = create_records().size_in_bytes()
    log_config = LogTestUtils.create_log_config(segment_bytes=segment_bytes, file_delete_delay_ms=0,
                                                remote_log_storage_enable=True, **config)
    log = create_log(ctx, ctx.log_dir, log_config, remote_storage_system_enable=True)
    # 6 segments of 1 message
    for _ in range(6):
        log.append_as_leader(create_records(), leader_epoch=0)
    assert 6 == len(log.log_segments())
    return log, create_records, segment_bytes


def test_retention_on_local_log_deletion_when_remote_log_copy_enabled_and_default_local_retention_bytes(
        ctx: Ctx) -> None:
    log, _, _ = _six_single_message_segments(ctx, retention_bytes=1)

    log.update_high_watermark(log.log_end_offset())
    # 2 segments copied to remote storage
    log.update_highest_offset_in_remote_storage(1)
    log.delete_old_segments()
    assert 4 == len(log.log_segments())
    assert 0 == log.log_start_offset
    assert 2 == log.local_log_start_offset()


def test_retention_on_local_log_deletion_when_remote_log_copy_enabled_and_default_local_retention_ms(
        ctx: Ctx) -> None:
    log, _, _ = _six_single_message_segments(ctx, retention_ms=1000)

    log.update_high_watermark(log.log_end_offset())
    # 2 segments copied to remote storage
    log.update_highest_offset_in_remote_storage(1)

    ctx.mock_time.sleep(1001)
    log.delete_old_segments()
    assert 4 == len(log.log_segments())
    assert 0 == log.log_start_offset
    assert 2 == log.local_log_start_offset()


def test_retention_on_local_log_deletion_when_remote_log_copy_disabled(ctx: Ctx) -> None:
    def create_records() -> MemoryRecords:
        return records([SimpleRecord(b"a", timestamp=ctx.mock_time.milliseconds())])
    segment_bytes = create_records().size_in_bytes()
    log_config = LogTestUtils.create_log_config(segment_bytes=segment_bytes, local_retention_bytes=1,
                                                retention_bytes=segment_bytes * 5, file_delete_delay_ms=0,
                                                remote_log_storage_enable=True)
    log = create_log(ctx, ctx.log_dir, log_config, remote_storage_system_enable=True)

    for _ in range(6):
        log.append_as_leader(create_records(), leader_epoch=0)
    assert 6 == len(log.log_segments())

    log.update_high_watermark(log.log_end_offset())

    # nothing copied to remote storage yet (highest remote offset -1): no local deletion
    log.delete_old_segments()
    assert 6 == len(log.log_segments())
    assert 0 == log.log_start_offset
    assert 0 == log.local_log_start_offset()

    # 2 segments copied to remote storage
    log.update_highest_offset_in_remote_storage(1)

    log.delete_old_segments()
    assert 4 == len(log.log_segments())
    assert 0 == log.log_start_offset
    assert 2 == log.local_log_start_offset()

    # remote.log.copy.disable = true
    copy_disabled_log_config = LogTestUtils.create_log_config(
        segment_bytes=segment_bytes, local_retention_bytes=1, retention_bytes=segment_bytes * 5,
        file_delete_delay_ms=0, remote_log_storage_enable=True, remote_log_copy_disable=True)
    log.update_config(copy_disabled_log_config)

    # with copying disabled retention.ms/bytes apply, not local.retention.bytes: nothing goes
    log.delete_old_segments()
    assert 4 == len(log.log_segments())
    assert 0 == log.log_start_offset
    assert 2 == log.local_log_start_offset()

    # the remote segments are all deleted by retention
    log.update_log_start_offset_from_remote_tier(2)
    assert 4 == len(log.log_segments())
    assert 2 == log.log_start_offset
    assert 2 == log.local_log_start_offset()

    # 3 more segments
    for _ in range(3):
        log.append_as_leader(create_records(), leader_epoch=0)
    assert 7 == len(log.log_segments())
    log.update_high_watermark(log.log_end_offset())

    # retention.bytes (5 segments) applies: 2 segments go
    log.delete_old_segments()
    assert 5 == len(log.log_segments())
    assert 4 == log.log_start_offset
    assert 4 == log.local_log_start_offset()

    # local.retention.ms = 1, retention.ms = 1000
    retention_ms_config = LogTestUtils.create_log_config(
        segment_bytes=segment_bytes, local_retention_ms=1, retention_ms=1000, file_delete_delay_ms=0,
        remote_log_storage_enable=True, remote_log_copy_disable=True)
    log.update_config(retention_ms_config)

    # nothing expired under retention.ms = 1000
    ctx.mock_time.sleep(10)
    log.delete_old_segments()
    assert 5 == len(log.log_segments())
    assert 4 == log.log_start_offset
    assert 4 == log.local_log_start_offset()

    # everything expired under retention.ms = 1000
    ctx.mock_time.sleep(1000)
    log.delete_old_segments()
    assert 1 == len(log.log_segments())
    assert 9 == log.log_start_offset
    assert 9 == log.local_log_start_offset()


def _fifty_records_five_segments(ctx: Ctx) -> UnifiedLog:
    log_config = LogTestUtils.create_log_config(local_retention_bytes=1, file_delete_delay_ms=0,
                                                remote_log_storage_enable=True)
    log = create_log(ctx, ctx.log_dir, log_config, remote_storage_system_enable=True)
    for _ in range(50):
        info = log.append_as_leader(singleton_records(b"test"), leader_epoch=0)
        offset = info.last_offset
        if offset != 0 and offset % 10 == 0:
            log.roll()
    assert 5 == len(log.log_segments())
    log.update_high_watermark(log.log_end_offset())
    # 3 segments copied to remote storage
    log.update_highest_offset_in_remote_storage(30)

    log.delete_old_segments()
    assert 2 == len(log.log_segments())
    assert 0 == log.log_start_offset
    assert 31 == log.local_log_start_offset()
    return log


def test_increment_local_log_start_offset_after_local_log_deletion(ctx: Ctx) -> None:
    _fifty_records_five_segments(ctx)


def test_convert_to_offset_metadata_does_not_throw_offset_out_of_range_error(ctx: Ctx) -> None:
    log = _fifty_records_five_segments(ctx)

    log.update_log_start_offset_from_remote_tier(15)
    assert 15 == log.log_start_offset

    # log start < local log start < offset < log end
    assert LogOffsetMetadata(35, 31, 288) == log.maybe_convert_to_offset_metadata(35)
    # log start < offset < local log start < log end
    assert LogOffsetMetadata(29, -1, -1) == log.maybe_convert_to_offset_metadata(29)
    # log start < local log start < log end < offset
    assert LogOffsetMetadata(log.log_end_offset() + 1, -1, -1) == \
        log.maybe_convert_to_offset_metadata(log.log_end_offset() + 1)
    # offset < log start < local log start < log end
    assert LogOffsetMetadata(14, -1, -1) == log.maybe_convert_to_offset_metadata(14)


def test_get_first_batch_timestamp_for_segments(ctx: Ctx) -> None:
    from kafka_edu.v3_9.clients.common.utils.time import SYSTEM
    log = create_log(ctx, ctx.log_dir, LogTestUtils.create_log_config())

    seg1 = LogTestUtils.create_segment(1, ctx.log_dir, 10, SYSTEM)
    seg2 = LogTestUtils.create_segment(2, ctx.log_dir, 10, SYSTEM)
    segments = [seg1, seg2]
    assert [LONG_MAX, LONG_MAX] == list(log.get_first_batch_timestamp_for_segments(segments))

    seg1.append(1, 1000, 1, MemoryRecords.with_records(Compression.NONE, SimpleRecord(b"one"), initial_offset=1))
    seg2.append(2, 2000, 1, MemoryRecords.with_records(Compression.NONE, SimpleRecord(b"two"), initial_offset=2))
    assert [1000, 2000] == list(log.get_first_batch_timestamp_for_segments(segments))

    seg1.close()
    seg2.close()

