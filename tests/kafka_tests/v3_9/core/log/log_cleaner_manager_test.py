"""Port of core/src/test/scala/unit/kafka/log/LogCleanerManagerTest.scala (Kafka 3.9).

Kafka's LogCleanerManagerMock (checkpoints in a map) is a subclass here too; its LogMock (a UnifiedLog whose
getFirstBatchTimestampForSegments throws) is a log whose method is replaced on the instance. Pool is a dict.
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, IllegalStateException
from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType
from kafka_edu.v3_9.clients.common.record.end_transaction_marker import EndTransactionMarker
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.log import log_cleaner_manager as LCM
from kafka_edu.v3_9.core.log import unified_log
from kafka_edu.v3_9.core.log.log_cleaner_manager import (
    LogCleanerManager,
    LogCleaningAborted,
    LogCleaningException,
    LogCleaningInProgress,
    LogCleaningPaused,
)
from kafka_edu.v3_9.core.log.unified_log import UnifiedLog
from kafka_edu.v3_9.server_common.server.util.mock_time import MockTime
from kafka_edu.v3_9.storage.storage.internals.log.append_origin import AppendOrigin
from kafka_edu.v3_9.storage.storage.internals.log.log_config import LogConfig
from kafka_edu.v3_9.storage.storage.internals.log.log_start_offset_increment_reason import (
    LogStartOffsetIncrementReason,
)
from kafka_edu.v3_9.storage.storage.internals.log.producer_state_manager_config import ProducerStateManagerConfig
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.core.log import log_test_utils as LogTestUtils

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/log/LogCleanerManagerTest.scala",
    cases=[
        "testGrabFilthiestCompactedLogThrowsException",
        "testGrabFilthiestCompactedLogReturnsLogWithDirtiestRatio",
        "testGrabFilthiestCompactedLogIgnoresUncleanablePartitions",
        "testGrabFilthiestCompactedLogIgnoresInProgressPartitions",
        "testGrabFilthiestCompactedLogIgnoresBothInProgressPartitionsAndUncleanablePartitions",
        "testDirtyOffsetResetIfLargerThanEndOffset",
        "testDirtyOffsetResetIfSmallerThanStartOffset",
        "testLogStartOffsetLargerThanActiveSegmentBaseOffset",
        "testDirtyOffsetLargerThanActiveSegmentBaseOffset",
        "testLogsWithSegmentsToDeleteShouldNotConsiderCleanupPolicyDeleteLogs",
        "testLogsWithSegmentsToDeleteShouldConsiderCleanupPolicyCompactDeleteLogs",
        "testLogsWithSegmentsToDeleteShouldConsiderCleanupPolicyCompactLogs",
        "testLogsUnderCleanupIneligibleForCompaction",
        "testUpdateCheckpointsShouldAddOffsetToPartition",
        "testUpdateCheckpointsShouldRemovePartitionData",
        "testHandleLogDirFailureShouldRemoveDirAndData",
        "testMaybeTruncateCheckpointShouldTruncateData",
        "testAlterCheckpointDirShouldRemoveDataInSrcDirAndAddInNewDir",
        "testConcurrentLogCleanupAndLogTruncation",
        "testConcurrentLogCleanupAndTopicDeletion",
        "testLogsWithSegmentsToDeleteShouldNotConsiderUncleanablePartitions",
        "testCleanableOffsetsForNone",
        "testCleanableOffsetsActiveSegment",
        "testCleanableOffsetsForTime",
        "testCleanableOffsetsForShortTime",
        "testCleanableOffsetsNeedsCheckpointReset",
        "testUndecidedTransactionalDataNotCleanable",
        "testDoneCleaning",
        "testDoneDeleting",
        "testCheckpointUpdatedForInvalidOffsetNoCleaning",
        "testCheckpointUpdatedForInvalidOffsetNotSelected",
    ],
)

PRODUCER_ID_EXPIRATION_MS_DEFAULT = 86400000
PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_DEFAULT = 600000
OFFSET = 999


def _random_partition_log_dir(parent_dir: Path) -> Path:
    while True:
        f = parent_dir / f"kafka-{random.randrange(1000000)}"
        if not f.exists():
            f.mkdir(parents=True)
            return f


class Ctx:
    def __init__(self, tmp_path: Path) -> None:
        self.tmp_dir = tmp_path / "tmp"
        self.tmp_dir.mkdir()
        self.log_dir = _random_partition_log_dir(self.tmp_dir)
        self.log_dir2 = _random_partition_log_dir(self.tmp_dir)
        self.topic_partition = TopicPartition("log", 0)
        self.topic_partition2 = TopicPartition("log2", 0)
        self.log_config = LogConfig({"segment.bytes": 1024, "segment.index.bytes": 1024,
                                     "cleanup.policy": "compact"})
        self.time = MockTime(1400000000000, 1000)
        self.producer_state_manager_config = ProducerStateManagerConfig(PRODUCER_ID_EXPIRATION_MS_DEFAULT, False)
        self.cleaner_checkpoints: dict[TopicPartition, int] = {}
        self.logs: list[UnifiedLog] = []


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[Ctx]:
    c = Ctx(tmp_path)
    yield c
    for lg in c.logs:
        try:
            lg.close()
        except Exception:
            pass
    shutil.rmtree(c.tmp_dir, ignore_errors=True)


class LogCleanerManagerMock(LogCleanerManager):
    def __init__(self, ctx: Ctx, log_dirs: list[Path], logs: dict[TopicPartition, UnifiedLog]) -> None:
        super().__init__(log_dirs, logs, None)
        self._ctx = ctx

    def all_cleaner_checkpoints(self) -> dict[TopicPartition, int]:
        return dict(self._ctx.cleaner_checkpoints)

    def update_checkpoints(self, data_dir: Path, partition_to_update_or_add: tuple[TopicPartition, int] | None = None,
                           partition_to_remove: TopicPartition | None = None) -> None:
        assert partition_to_remove is None, "partitionToRemove argument with value not yet handled"
        if partition_to_update_or_add is None:
            raise IllegalArgumentException("partitionToUpdateOrAdd==None argument not yet handled")
        tp, offset = partition_to_update_or_add
        self._ctx.cleaner_checkpoints[tp] = offset


def singleton_records(value: bytes, key: bytes | None = None) -> MemoryRecords:
    return MemoryRecords.with_records(Compression.NONE, SimpleRecord(value, key))


def setup_increasingly_filthy_logs(ctx: Ctx, partitions: list[TopicPartition], start_num_batches: int,
                                   batch_increment: int) -> dict[TopicPartition, UnifiedLog]:
    logs: dict[TopicPartition, UnifiedLog] = {}
    num_batches = start_num_batches
    for tp in partitions:
        lg = create_log(ctx, 2048, "compact", topic_partition=tp)
        logs[tp] = lg
        write_records(ctx, lg, num_batches=num_batches, records_per_batch=1, batches_per_segment=5)
        num_batches += batch_increment
    return logs


def create_cleaner_manager(ctx: Ctx, lg: UnifiedLog) -> LogCleanerManager:
    return LogCleanerManager([ctx.log_dir, ctx.log_dir2], {ctx.topic_partition: lg}, None)


def create_cleaner_manager_mock(ctx: Ctx, pool: dict[TopicPartition, UnifiedLog]) -> LogCleanerManagerMock:
    return LogCleanerManagerMock(ctx, [ctx.log_dir], pool)


def create_log(ctx: Ctx, segment_size: int, cleanup_policy: str,
               topic_partition: TopicPartition | None = None) -> UnifiedLog:
    if topic_partition is None:
        topic_partition = TopicPartition("log", 0)
    config = create_low_retention_log_config(segment_size, cleanup_policy)
    partition_dir = ctx.log_dir / unified_log.log_dir_name(topic_partition)
    lg = LogTestUtils.create_log(partition_dir, config, None, ctx.time.scheduler, ctx.time,
                                 producer_state_manager_config=ctx.producer_state_manager_config,
                                 producer_id_expiration_check_interval_ms=PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_DEFAULT)
    ctx.logs.append(lg)
    return lg


def create_low_retention_log_config(segment_size: int, cleanup_policy: str) -> LogConfig:
    return LogConfig({"segment.bytes": segment_size, "retention.ms": 1, "cleanup.policy": cleanup_policy,
                      "min.cleanable.dirty.ratio": 0.05})  # small for easier and clearer tests


def write_records(ctx: Ctx, lg: UnifiedLog, num_batches: int, records_per_batch: int, batches_per_segment: int) -> None:
    for i in range(num_batches):
        append_records(ctx, lg, records_per_batch)
        if i % batches_per_segment == 0:
            lg.roll()
    lg.roll()


def append_records(ctx: Ctx, lg: UnifiedLog, num_records: int) -> None:
    start_offset = lg.log_end_offset()
    end_offset = start_offset + num_records
    records = [SimpleRecord(f"value-{offset}".encode(), f"key-{offset}".encode(), ctx.time.milliseconds())
               for offset in range(start_offset, end_offset)]
    lg.append_as_leader(MemoryRecords.with_records(Compression.NONE, *records), leader_epoch=1)
    lg.maybe_increment_high_watermark(lg.log_end_offset_metadata())


def make_log(ctx: Ctx, config: LogConfig, dir: Path | None = None) -> UnifiedLog:
    lg = LogTestUtils.create_log(dir if dir is not None else ctx.log_dir, config, None, ctx.time.scheduler, ctx.time,
                                 producer_state_manager_config=ctx.producer_state_manager_config,
                                 producer_id_expiration_check_interval_ms=PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_DEFAULT)
    ctx.logs.append(lg)
    return lg


def records(key: int, value: int, timestamp: int) -> MemoryRecords:
    return MemoryRecords.with_records(Compression.NONE, SimpleRecord(str(value).encode(), str(key).encode(), timestamp))


def _config_with(ctx: Ctx, **props: Any) -> LogConfig:
    return LogConfig({**ctx.log_config.props, **{k.replace("_", "."): v for k, v in props.items()}})


def _fill(ctx: Ctx, lg: UnifiedLog, segments: int, timestamp: int | None = None) -> None:
    while lg.number_of_segments() < segments:
        ts = ctx.time.milliseconds() if timestamp is None else timestamp
        lg.append_as_leader(records(lg.log_end_offset(), lg.log_end_offset(), ts), leader_epoch=0)


def _wishing_well() -> list[TopicPartition]:
    return [TopicPartition("wishing-well", i) for i in range(3)]


def test_grab_filthiest_compacted_log_throws_exception(ctx: Ctx) -> None:
    tp = TopicPartition("A", 1)
    log_segment_size = singleton_records(b"test").size_in_bytes() * 10
    log_segments_count = 2
    tp_dir = ctx.log_dir / "A-1"
    tp_dir.mkdir(parents=True, exist_ok=True)
    config = create_low_retention_log_config(log_segment_size, "compact")
    lg = LogTestUtils.create_log(tp_dir, config, None, ctx.time.scheduler, ctx.time,
                                 producer_state_manager_config=ctx.producer_state_manager_config)
    ctx.logs.append(lg)

    # the exception should be caught and the partition that caused it marked as uncleanable
    def get_first_batch_timestamp_for_segments(segments: Any) -> Any:
        raise IllegalStateException("Error!")
    lg.get_first_batch_timestamp_for_segments = get_first_batch_timestamp_for_segments  # type: ignore[method-assign]

    write_records(ctx, lg, num_batches=log_segments_count * 2, records_per_batch=10, batches_per_segment=2)
    cleaner_manager = create_cleaner_manager_mock(ctx, {tp: lg})
    ctx.cleaner_checkpoints[tp] = 1

    with pytest.raises(LogCleaningException) as thrown:
        cleaner_manager.grab_filthiest_compacted_log(ctx.time)
    assert thrown.value.log is lg
    assert isinstance(thrown.value.__cause__, IllegalStateException)


def test_grab_filthiest_compacted_log_returns_log_with_dirtiest_ratio(ctx: Ctx) -> None:
    partitions = _wishing_well()
    # cleanable ranges: [20, 20], [20, 25], [20, 30]
    logs = setup_increasingly_filthy_logs(ctx, partitions, start_num_batches=20, batch_increment=5)
    cleaner_manager = create_cleaner_manager_mock(ctx, logs)
    for partition in partitions:
        ctx.cleaner_checkpoints[partition] = 20
    filthiest_log = cleaner_manager.grab_filthiest_compacted_log(ctx.time)
    assert filthiest_log is not None
    assert filthiest_log.topic_partition == partitions[2]
    assert filthiest_log.log.topic_partition() == partitions[2]


def test_grab_filthiest_compacted_log_ignores_uncleanable_partitions(ctx: Ctx) -> None:
    partitions = _wishing_well()
    logs = setup_increasingly_filthy_logs(ctx, partitions, start_num_batches=20, batch_increment=5)
    cleaner_manager = create_cleaner_manager_mock(ctx, logs)
    for partition in partitions:
        ctx.cleaner_checkpoints[partition] = 20
    cleaner_manager.mark_partition_uncleanable(str(logs[partitions[2]].dir().parent), partitions[2])
    filthiest_log = cleaner_manager.grab_filthiest_compacted_log(ctx.time)
    assert filthiest_log is not None
    assert filthiest_log.topic_partition == partitions[1]
    assert filthiest_log.log.topic_partition() == partitions[1]


def test_grab_filthiest_compacted_log_ignores_in_progress_partitions(ctx: Ctx) -> None:
    partitions = _wishing_well()
    logs = setup_increasingly_filthy_logs(ctx, partitions, start_num_batches=20, batch_increment=5)
    cleaner_manager = create_cleaner_manager_mock(ctx, logs)
    for partition in partitions:
        ctx.cleaner_checkpoints[partition] = 20
    cleaner_manager.set_cleaning_state(partitions[2], LogCleaningInProgress)
    filthiest_log = cleaner_manager.grab_filthiest_compacted_log(ctx.time)
    assert filthiest_log is not None
    assert filthiest_log.topic_partition == partitions[1]
    assert filthiest_log.log.topic_partition() == partitions[1]


def test_grab_filthiest_compacted_log_ignores_both_in_progress_partitions_and_uncleanable_partitions(ctx: Ctx) -> None:
    partitions = _wishing_well()
    logs = setup_increasingly_filthy_logs(ctx, partitions, start_num_batches=20, batch_increment=5)
    cleaner_manager = create_cleaner_manager_mock(ctx, logs)
    for partition in partitions:
        ctx.cleaner_checkpoints[partition] = 20
    cleaner_manager.set_cleaning_state(partitions[2], LogCleaningInProgress)
    cleaner_manager.mark_partition_uncleanable(str(logs[partitions[1]].dir().parent), partitions[1])
    assert cleaner_manager.grab_filthiest_compacted_log(ctx.time) is None


def test_dirty_offset_reset_if_larger_than_end_offset(ctx: Ctx) -> None:
    tp = TopicPartition("foo", 0)
    logs = setup_increasingly_filthy_logs(ctx, [tp], start_num_batches=20, batch_increment=5)
    cleaner_manager = create_cleaner_manager_mock(ctx, logs)
    ctx.cleaner_checkpoints[tp] = 200
    filthiest_log = cleaner_manager.grab_filthiest_compacted_log(ctx.time)
    assert filthiest_log is not None
    assert filthiest_log.first_dirty_offset == 0


def test_dirty_offset_reset_if_smaller_than_start_offset(ctx: Ctx) -> None:
    tp = TopicPartition("foo", 0)
    logs = setup_increasingly_filthy_logs(ctx, [tp], start_num_batches=20, batch_increment=5)
    logs[tp].maybe_increment_log_start_offset(10, LogStartOffsetIncrementReason.ClientRecordDeletion)
    cleaner_manager = create_cleaner_manager_mock(ctx, logs)
    ctx.cleaner_checkpoints[tp] = 0
    filthiest_log = cleaner_manager.grab_filthiest_compacted_log(ctx.time)
    assert filthiest_log is not None
    assert filthiest_log.first_dirty_offset == 10


def test_log_start_offset_larger_than_active_segment_base_offset(ctx: Ctx) -> None:
    tp = TopicPartition("foo", 0)
    lg = create_log(ctx, 2048, "compact", tp)
    logs = {tp: lg}
    append_records(ctx, lg, num_records=3)
    append_records(ctx, lg, num_records=3)
    append_records(ctx, lg, num_records=3)
    assert len(lg.log_segments()) == 1
    lg.maybe_increment_log_start_offset(2, LogStartOffsetIncrementReason.ClientRecordDeletion)
    cleaner_manager = create_cleaner_manager_mock(ctx, logs)
    ctx.cleaner_checkpoints[tp] = 0
    # the active segment is uncleanable, so not filthy
    assert cleaner_manager.grab_filthiest_compacted_log(ctx.time) is None


def test_dirty_offset_larger_than_active_segment_base_offset(ctx: Ctx) -> None:
    # after an unclean leader election the checkpoint may pass the active segment's base offset, within the log
    tp = TopicPartition("foo", 0)
    lg = create_log(ctx, 2048, "compact", topic_partition=tp)
    logs = {tp: lg}
    append_records(ctx, lg, num_records=3)
    append_records(ctx, lg, num_records=3)
    assert len(lg.log_segments()) == 1
    assert lg.active_segment().base_offset() == 0
    cleaner_manager = create_cleaner_manager_mock(ctx, logs)
    ctx.cleaner_checkpoints[tp] = 3
    assert cleaner_manager.grab_filthiest_compacted_log(ctx.time) is None


def test_logs_with_segments_to_delete_should_not_consider_cleanup_policy_delete_logs(ctx: Ctx) -> None:
    rec = singleton_records(b"test")
    lg = create_log(ctx, rec.size_in_bytes() * 5, "delete")
    cleaner_manager = create_cleaner_manager(ctx, lg)
    assert len(cleaner_manager.deletable_logs()) == 0, "should have 0 logs ready to be deleted"


def test_logs_with_segments_to_delete_should_consider_cleanup_policy_compact_delete_logs(ctx: Ctx) -> None:
    rec = singleton_records(b"test", key=b"test")
    lg = create_log(ctx, rec.size_in_bytes() * 5, "compact,delete")
    cleaner_manager = create_cleaner_manager(ctx, lg)
    assert len(cleaner_manager.deletable_logs()) == 1, "should have 1 logs ready to be deleted"


def test_logs_with_segments_to_delete_should_consider_cleanup_policy_compact_logs(ctx: Ctx) -> None:
    rec = singleton_records(b"test", key=b"test")
    lg = create_log(ctx, rec.size_in_bytes() * 5, "compact")
    cleaner_manager = create_cleaner_manager(ctx, lg)
    assert len(cleaner_manager.deletable_logs()) == 1, "should have 1 logs ready to be deleted"


def test_logs_under_cleanup_ineligible_for_compaction(ctx: Ctx) -> None:
    rec = singleton_records(b"test", key=b"test")
    lg = create_log(ctx, rec.size_in_bytes() * 5, "delete")
    cleaner_manager = create_cleaner_manager(ctx, lg)

    lg.append_as_leader(rec, leader_epoch=0)
    lg.roll()
    lg.append_as_leader(singleton_records(b"test", key=b"test"), leader_epoch=0)
    lg.update_high_watermark(2)

    # the cleanup thread works on the partition
    deletable_log = cleaner_manager.pause_cleaning_for_non_compacted_partitions()
    assert len(deletable_log) == 1, "should have 1 logs ready to be deleted"

    # the cleanup policy changes from delete to compact
    log_props: dict[str, Any] = {"segment.bytes": lg.config().segment_size, "retention.ms": lg.config().retention_ms,
                                 "cleanup.policy": "compact", "min.cleanable.dirty.ratio": 0}
    lg.update_config(LogConfig(log_props))

    # cleanup in progress: the log is not available for compaction
    assert cleaner_manager.grab_filthiest_compacted_log(ctx.time) is None, "should have 0 logs ready to be compacted"

    # cleanup finished: the log can be compacted
    cleaner_manager.resume_cleaning([tp for tp, _ in deletable_log])
    cleanable2 = cleaner_manager.grab_filthiest_compacted_log(ctx.time)
    assert cleanable2 is not None, "should have 1 logs ready to be compacted"

    # the cleanup policy changes to delete
    log_props["cleanup.policy"] = "delete"
    lg.update_config(LogConfig(log_props))

    # compaction in progress: no log eligible for cleanup
    assert len(cleaner_manager.pause_cleaning_for_non_compacted_partitions()) == 0, \
        "should have 0 logs ready to be deleted"

    # compaction done: one log eligible for cleanup
    cleaner_manager.done_deleting([cleanable2.topic_partition])
    assert len(cleaner_manager.pause_cleaning_for_non_compacted_partitions()) == 1, \
        "should have 1 logs ready to be deleted"


def test_update_checkpoints_should_add_offset_to_partition(ctx: Ctx) -> None:
    rec = singleton_records(b"test", key=b"test")
    lg = create_log(ctx, rec.size_in_bytes() * 5, "compact")
    cleaner_manager = create_cleaner_manager(ctx, lg)
    assert cleaner_manager.all_cleaner_checkpoints().get(ctx.topic_partition, 0) != OFFSET
    cleaner_manager.update_checkpoints(ctx.log_dir, partition_to_update_or_add=(ctx.topic_partition, OFFSET))
    assert cleaner_manager.all_cleaner_checkpoints()[ctx.topic_partition] == OFFSET


def test_update_checkpoints_should_remove_partition_data(ctx: Ctx) -> None:
    rec = singleton_records(b"test", key=b"test")
    lg = create_log(ctx, rec.size_in_bytes() * 5, "compact")
    cleaner_manager = create_cleaner_manager(ctx, lg)
    cleaner_manager.update_checkpoints(ctx.log_dir, partition_to_update_or_add=(ctx.topic_partition, OFFSET))
    assert cleaner_manager.all_cleaner_checkpoints()[ctx.topic_partition] == OFFSET
    cleaner_manager.update_checkpoints(ctx.log_dir, partition_to_remove=ctx.topic_partition)
    assert ctx.topic_partition not in cleaner_manager.all_cleaner_checkpoints()


def test_handle_log_dir_failure_should_remove_dir_and_data(ctx: Ctx) -> None:
    rec = singleton_records(b"test", key=b"test")
    lg = create_log(ctx, rec.size_in_bytes() * 5, "compact")
    cleaner_manager = create_cleaner_manager(ctx, lg)
    cleaner_manager.update_checkpoints(ctx.log_dir, partition_to_update_or_add=(ctx.topic_partition, OFFSET))
    cleaner_manager.update_checkpoints(ctx.log_dir2, partition_to_update_or_add=(ctx.topic_partition2, OFFSET))
    assert cleaner_manager.all_cleaner_checkpoints()[ctx.topic_partition] == OFFSET
    assert cleaner_manager.all_cleaner_checkpoints()[ctx.topic_partition2] == OFFSET

    cleaner_manager.handle_log_dir_failure(str(ctx.log_dir.absolute()))
    # the data of log_dir is gone, log_dir2's is still there
    assert cleaner_manager.all_cleaner_checkpoints()[ctx.topic_partition2] == OFFSET
    assert ctx.topic_partition not in cleaner_manager.all_cleaner_checkpoints()


def test_maybe_truncate_checkpoint_should_truncate_data(ctx: Ctx) -> None:
    rec = singleton_records(b"test", key=b"test")
    lg = create_log(ctx, rec.size_in_bytes() * 5, "compact")
    cleaner_manager = create_cleaner_manager(ctx, lg)
    lower_offset, higher_offset = 1, 1000
    cleaner_manager.update_checkpoints(ctx.log_dir, partition_to_update_or_add=(ctx.topic_partition, OFFSET))
    assert cleaner_manager.all_cleaner_checkpoints()[ctx.topic_partition] == OFFSET
    # not truncated for a checkpoint <= the given offset
    cleaner_manager.maybe_truncate_checkpoint(ctx.log_dir, ctx.topic_partition, higher_offset)
    assert cleaner_manager.all_cleaner_checkpoints()[ctx.topic_partition] == OFFSET
    # truncated for a checkpoint > the given offset
    cleaner_manager.maybe_truncate_checkpoint(ctx.log_dir, ctx.topic_partition, lower_offset)
    assert cleaner_manager.all_cleaner_checkpoints()[ctx.topic_partition] == lower_offset


def test_alter_checkpoint_dir_should_remove_data_in_src_dir_and_add_in_new_dir(ctx: Ctx) -> None:
    rec = singleton_records(b"test", key=b"test")
    lg = create_log(ctx, rec.size_in_bytes() * 5, "compact")
    cleaner_manager = create_cleaner_manager(ctx, lg)
    cleaner_manager.update_checkpoints(ctx.log_dir, partition_to_update_or_add=(ctx.topic_partition, OFFSET))
    assert cleaner_manager.all_cleaner_checkpoints()[ctx.topic_partition] == OFFSET

    cleaner_manager.alter_checkpoint_dir(ctx.topic_partition, ctx.log_dir, ctx.log_dir2)
    # still there, now in log_dir2
    assert cleaner_manager.all_cleaner_checkpoints()[ctx.topic_partition] == OFFSET

    cleaner_manager.handle_log_dir_failure(str(ctx.log_dir2.absolute()))
    assert ctx.topic_partition not in cleaner_manager.all_cleaner_checkpoints()


def test_concurrent_log_cleanup_and_log_truncation(ctx: Ctx) -> None:
    rec = singleton_records(b"test", key=b"test")
    lg = create_log(ctx, rec.size_in_bytes() * 5, "delete")
    cleaner_manager = create_cleaner_manager(ctx, lg)
    # cleanup starts
    paused_partitions = cleaner_manager.pause_cleaning_for_non_compacted_partitions()
    # a truncation after an unclean leader election
    cleaner_manager.abort_and_pause_cleaning(lg.topic_partition())
    cleaner_manager.resume_cleaning([lg.topic_partition()])
    # cleanup finishes
    cleaner_manager.resume_cleaning([tp for tp, _ in paused_partitions])
    assert cleaner_manager.cleaning_state(lg.topic_partition()) is None


def test_concurrent_log_cleanup_and_topic_deletion(ctx: Ctx) -> None:
    rec = singleton_records(b"test", key=b"test")
    lg = create_log(ctx, rec.size_in_bytes() * 5, "delete")
    cleaner_manager = create_cleaner_manager(ctx, lg)
    paused_partitions = cleaner_manager.pause_cleaning_for_non_compacted_partitions()
    # StopReplica with delete=true
    cleaner_manager.abort_cleaning(lg.topic_partition())
    cleaner_manager.resume_cleaning([tp for tp, _ in paused_partitions])
    assert cleaner_manager.cleaning_state(lg.topic_partition()) is None


def test_logs_with_segments_to_delete_should_not_consider_uncleanable_partitions(ctx: Ctx) -> None:
    rec = singleton_records(b"test", key=b"test")
    lg = create_log(ctx, rec.size_in_bytes() * 5, "compact")
    cleaner_manager = create_cleaner_manager(ctx, lg)
    cleaner_manager.mark_partition_uncleanable(str(lg.dir().parent), ctx.topic_partition)
    assert len(cleaner_manager.deletable_logs()) == 0, "should have 0 logs ready to be deleted"


def test_cleanable_offsets_for_none(ctx: Ctx) -> None:
    lg = make_log(ctx, config=_config_with(ctx, segment_bytes=1024))
    _fill(ctx, lg, 8)
    lg.update_high_watermark(50)
    cleanable_offsets = LCM.cleanable_offsets(lg, 0, ctx.time.milliseconds())
    assert cleanable_offsets.first_dirty_offset == 0, "The first cleanable offset starts at the beginning of the log."
    assert lg.last_stable_offset() == lg.high_watermark(), \
        "The high watermark equals the last stable offset as no transactions are in progress"
    assert cleanable_offsets.first_uncleanable_dirty_offset == lg.last_stable_offset(), \
        "The first uncleanable offset is bounded by the last stable offset."


def test_cleanable_offsets_active_segment(ctx: Ctx) -> None:
    lg = make_log(ctx, config=_config_with(ctx, segment_bytes=1024))
    _fill(ctx, lg, 8)
    lg.update_high_watermark(lg.log_end_offset())
    cleanable_offsets = LCM.cleanable_offsets(lg, 0, ctx.time.milliseconds())
    assert cleanable_offsets.first_dirty_offset == 0
    assert cleanable_offsets.first_uncleanable_dirty_offset == lg.active_segment().base_offset(), \
        "The first uncleanable offset begins with the active segment."


def test_cleanable_offsets_for_time(ctx: Ctx) -> None:
    compaction_lag = 60 * 60 * 1000
    lg = make_log(ctx, config=_config_with(ctx, segment_bytes=1024, **{"min.compaction.lag.ms": compaction_lag}))
    t0 = ctx.time.milliseconds()
    _fill(ctx, lg, 4, t0)
    active_seg_at_t0 = lg.active_segment()
    ctx.time.sleep(compaction_lag + 1)
    t1 = ctx.time.milliseconds()
    _fill(ctx, lg, 8, t1)
    lg.update_high_watermark(lg.log_end_offset())
    cleanable_offsets = LCM.cleanable_offsets(lg, 0, ctx.time.milliseconds())
    assert cleanable_offsets.first_dirty_offset == 0
    assert cleanable_offsets.first_uncleanable_dirty_offset == active_seg_at_t0.base_offset(), \
        "The first uncleanable offset begins with the second block of log entries."


def test_cleanable_offsets_for_short_time(ctx: Ctx) -> None:
    compaction_lag = 60 * 60 * 1000
    lg = make_log(ctx, config=_config_with(ctx, segment_bytes=1024, **{"min.compaction.lag.ms": compaction_lag}))
    t0 = ctx.time.milliseconds()
    _fill(ctx, lg, 8, t0)
    lg.update_high_watermark(lg.log_end_offset())
    ctx.time.sleep(compaction_lag + 1)
    cleanable_offsets = LCM.cleanable_offsets(lg, 0, ctx.time.milliseconds())
    assert cleanable_offsets.first_dirty_offset == 0
    assert cleanable_offsets.first_uncleanable_dirty_offset == lg.active_segment().base_offset(), \
        "The first uncleanable offset begins with active segment."


def test_cleanable_offsets_needs_checkpoint_reset(ctx: Ctx) -> None:
    tp = TopicPartition("foo", 0)
    logs = setup_increasingly_filthy_logs(ctx, [tp], start_num_batches=20, batch_increment=5)
    logs[tp].maybe_increment_log_start_offset(10, LogStartOffsetIncrementReason.ClientRecordDeletion)

    cleanable_offsets = LCM.cleanable_offsets(logs[tp], 15, ctx.time.milliseconds())
    assert not cleanable_offsets.force_update_checkpoint, "Checkpoint offset should not be reset if valid"

    logs[tp].maybe_increment_log_start_offset(20, LogStartOffsetIncrementReason.ClientRecordDeletion)
    cleanable_offsets = LCM.cleanable_offsets(logs[tp], 15, ctx.time.milliseconds())
    assert cleanable_offsets.force_update_checkpoint, \
        "Checkpoint offset needs to be reset if less than log start offset"

    cleanable_offsets = LCM.cleanable_offsets(logs[tp], 25, ctx.time.milliseconds())
    assert cleanable_offsets.force_update_checkpoint, \
        "Checkpoint offset needs to be reset if greater than log end offset"


def test_undecided_transactional_data_not_cleanable(ctx: Ctx) -> None:
    compaction_lag = 60 * 60 * 1000
    lg = make_log(ctx, config=_config_with(ctx, segment_bytes=1024, **{"min.compaction.lag.ms": compaction_lag}))
    producer_id, producer_epoch, sequence = 15, 0, 0
    lg.append_as_leader(MemoryRecords.with_transactional_records(
        Compression.NONE, producer_id, producer_epoch, sequence,
        SimpleRecord(b"a", b"1", ctx.time.milliseconds()), SimpleRecord(b"b", b"2", ctx.time.milliseconds())),
        leader_epoch=0)
    lg.append_as_leader(MemoryRecords.with_transactional_records(
        Compression.NONE, producer_id, producer_epoch, sequence + 2,
        SimpleRecord(b"c", b"3", ctx.time.milliseconds())), leader_epoch=0)
    lg.roll()
    lg.update_high_watermark(3)

    ctx.time.sleep(compaction_lag + 1)
    # past the compaction lag, but undecided data is not cleaned
    cleanable_offsets = LCM.cleanable_offsets(lg, 0, ctx.time.milliseconds())
    assert cleanable_offsets.first_dirty_offset == 0
    assert cleanable_offsets.first_uncleanable_dirty_offset == 0

    lg.append_as_leader(MemoryRecords.with_end_transaction_marker(
        producer_id, producer_epoch, EndTransactionMarker(ControlRecordType.ABORT, 15),
        timestamp=ctx.time.milliseconds()), leader_epoch=0, origin=AppendOrigin.COORDINATOR)
    lg.roll()
    lg.update_high_watermark(4)

    # the first segment is cleanable at once
    cleanable_offsets = LCM.cleanable_offsets(lg, 0, ctx.time.milliseconds())
    assert cleanable_offsets.first_dirty_offset == 0
    assert cleanable_offsets.first_uncleanable_dirty_offset == 3

    ctx.time.sleep(compaction_lag + 1)
    # the second after the compaction lag
    cleanable_offsets = LCM.cleanable_offsets(lg, 0, ctx.time.milliseconds())
    assert cleanable_offsets.first_dirty_offset == 0
    assert cleanable_offsets.first_uncleanable_dirty_offset == 4


def test_done_cleaning(ctx: Ctx) -> None:
    lg = make_log(ctx, config=_config_with(ctx, segment_bytes=1024))
    _fill(ctx, lg, 8)
    cleaner_manager = create_cleaner_manager(ctx, lg)
    tp = ctx.topic_partition

    with pytest.raises(IllegalStateException):
        cleaner_manager.done_cleaning(tp, lg.dir(), 1)

    cleaner_manager.set_cleaning_state(tp, LogCleaningPaused(1))
    with pytest.raises(IllegalStateException):
        cleaner_manager.done_cleaning(tp, lg.dir(), 1)

    cleaner_manager.set_cleaning_state(tp, LogCleaningInProgress)
    end_offset = 1
    cleaner_manager.done_cleaning(tp, lg.dir(), end_offset)
    assert cleaner_manager.cleaning_state(tp) is None
    assert tp in cleaner_manager.all_cleaner_checkpoints()
    assert cleaner_manager.all_cleaner_checkpoints().get(tp) == end_offset

    cleaner_manager.set_cleaning_state(tp, LogCleaningAborted)
    cleaner_manager.done_cleaning(tp, lg.dir(), end_offset)
    assert cleaner_manager.cleaning_state(tp) == LogCleaningPaused(1)
    assert tp in cleaner_manager.all_cleaner_checkpoints()


def test_done_deleting(ctx: Ctx) -> None:
    rec = singleton_records(b"test", key=b"test")
    lg = create_log(ctx, rec.size_in_bytes() * 5, "compact,delete")
    cleaner_manager = create_cleaner_manager(ctx, lg)
    tp = TopicPartition("log", 0)

    with pytest.raises(IllegalStateException):
        cleaner_manager.done_deleting([tp])

    cleaner_manager.set_cleaning_state(tp, LogCleaningPaused(1))
    with pytest.raises(IllegalStateException):
        cleaner_manager.done_deleting([tp])

    cleaner_manager.set_cleaning_state(tp, LogCleaningInProgress)
    cleaner_manager.done_deleting([tp])
    assert cleaner_manager.cleaning_state(tp) is None

    cleaner_manager.set_cleaning_state(tp, LogCleaningAborted)
    cleaner_manager.done_deleting([tp])
    assert cleaner_manager.cleaning_state(tp) == LogCleaningPaused(1)


def test_checkpoint_updated_for_invalid_offset_no_cleaning(ctx: Ctx) -> None:
    tp = TopicPartition("foo", 0)
    logs = setup_increasingly_filthy_logs(ctx, [tp], start_num_batches=20, batch_increment=5)
    logs[tp].maybe_increment_log_start_offset(20, LogStartOffsetIncrementReason.ClientRecordDeletion)
    cleaner_manager = create_cleaner_manager_mock(ctx, logs)
    ctx.cleaner_checkpoints[tp] = 15
    assert cleaner_manager.grab_filthiest_compacted_log(ctx.time) is None, "Log should not be selected for cleaning"
    assert ctx.cleaner_checkpoints[tp] == 20, "Unselected log should have checkpoint offset updated"


def test_checkpoint_updated_for_invalid_offset_not_selected(ctx: Ctx) -> None:
    tp0, tp1 = TopicPartition("foo", 0), TopicPartition("foo", 1)
    # one log with an invalid offset, one dirtier
    logs = setup_increasingly_filthy_logs(ctx, [tp0, tp1], start_num_batches=20, batch_increment=5)
    logs[tp0].maybe_increment_log_start_offset(15, LogStartOffsetIncrementReason.ClientRecordDeletion)
    cleaner_manager = create_cleaner_manager_mock(ctx, logs)
    ctx.cleaner_checkpoints[tp0] = 10
    ctx.cleaner_checkpoints[tp1] = 5
    filthiest_log = cleaner_manager.grab_filthiest_compacted_log(ctx.time)
    assert filthiest_log is not None
    assert filthiest_log.topic_partition == tp1, "Dirtier log should be selected"
    assert ctx.cleaner_checkpoints[tp0] == 15, "Unselected log should have checkpoint offset updated"

