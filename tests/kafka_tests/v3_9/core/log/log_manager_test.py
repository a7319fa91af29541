"""Port of core/src/test/scala/unit/kafka/log/LogManagerTest.scala (Kafka 3.9).

The fields of Kafka's test class (MockTime, a log config with 1 KiB segments, a log dir and the log manager started
on it) are the `ctx` fixture. Mockito spies become small wrappers: a config repository counting its calls, an
instance attribute replacing one method of the manager. Metrics are not ported (the recovery-metric and log-metric
cases are not applicable), nor is tiered storage; the LeaderAndIsrRequest stray detection serves ZooKeeper mode only.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from kafka_edu.v1_0_2.clients.common.errors import KafkaException, OffsetOutOfRangeException
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM
from kafka_edu.v3_9.clients.common.utils.utils import delete as utils_delete
from kafka_edu.v3_9.clients.common.uuid import DirectoryId, Uuid
from kafka_edu.v3_9.core.log import log_manager as LogManagerCompanion
from kafka_edu.v3_9.core.log import unified_log
from kafka_edu.v3_9.core.log.log_manager import LogManager
from kafka_edu.v3_9.core.log.unified_log import UnifiedLog
from kafka_edu.v3_9.core.server.checkpoints.offset_checkpoint_file import OffsetCheckpointFile
from kafka_edu.v3_9.metadata.image.topic_image import TopicImage
from kafka_edu.v3_9.metadata.image.topics_image import TopicsImage
from kafka_edu.v3_9.metadata.metadata.partition_registration import PartitionRegistration
from kafka_edu.v3_9.metadata.metadata.properties.meta_properties import (
    META_PROPERTIES_NAME,
    MetaProperties,
    MetaPropertiesVersion,
    write_properties_file,
)
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from kafka_edu.v3_9.server_common.server.util.file_lock import FileLock
from kafka_edu.v3_9.server_common.server.util.kafka_scheduler import KafkaScheduler
from kafka_edu.v3_9.server_common.server.util.mock_time import MockTime
from kafka_edu.v3_9.storage.storage.internals.checkpoint.clean_shutdown_file_handler import CleanShutdownFileHandler
from kafka_edu.v3_9.storage.storage.internals.log.cleaner_config import CleanerConfig
from kafka_edu.v3_9.storage.storage.internals.log.fetch_data_info import FetchDataInfo
from kafka_edu.v3_9.storage.storage.internals.log.fetch_isolation import FetchIsolation
from kafka_edu.v3_9.storage.storage.internals.log.log_config import LogConfig
from kafka_edu.v3_9.storage.storage.internals.log.log_dir_failure_channel import LogDirFailureChannel
from kafka_edu.v3_9.storage.storage.internals.log.log_start_offset_increment_reason import (
    LogStartOffsetIncrementReason,
)
from kafka_edu.v3_9.storage.storage.internals.log.producer_state_manager_config import ProducerStateManagerConfig
from kafka_edu.v3_9.transaction_coordinator.coordinator.transaction.transaction_log_configs import (
    PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_DEFAULT,
    PRODUCER_ID_EXPIRATION_MS_DEFAULT,
)
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import temp_dir, wait_until_true
from tests.kafka_tests.v3_9.core.log import log_test_utils as LogTestUtils
from tests.kafka_tests.v3_9.core.server.metadata.mock_config_repository import MockConfigRepository

_METRICS = "metrics are not ported (no Yammer registry): the case asserts only on gauges and metric names"
_ZK = "ZooKeeper mode only: findStrayReplicas reads a full LeaderAndIsrRequest, which KRaft brokers never get"

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/log/LogManagerTest.scala",
    cases=["testCreateLog", "testCreateLogOnTargetedLogDirectory",
           "testCreateLogWithTargetedLogDirectorySetAsUnassigned",
           "testCreateLogWithTargetedLogDirectorySetAsUnknownWithoutAnyOfflineDirectories",
           "testHandlingExceptionsDuringShutdown", "testCleanShutdownFileWithBrokerEpoch",
           "testCleanShutdownFileWhenShutdownCalledBeforeStartupComplete", "testCreateLogWithInvalidLogDir",
           "testCreateLogWithLogDirFallback", "testGetNonExistentLog", "testCleanupExpiredSegments",
           "testCleanupSegmentsToMaintainSize", "testDoesntCleanLogsWithCompactDeletePolicy",
           "testDoesntCleanLogsWithCompactPolicy", "testTimeBasedFlush", "testLeastLoadedAssignment",
           "testLoadLogsSkipRemoteIndexCache", "testLoadLogRenameLogThatShouldBeStray",
           "testTwoLogManagersUsingSameDirFails", "testCheckpointRecoveryPoints",
           "testRecoveryDirectoryMappingWithTrailingSlash", "testRecoveryDirectoryMappingWithRelativeDirectory",
           "testFileReferencesAfterAsyncDelete", "testCreateAndDeleteOverlyLongTopic",
           "testCheckpointForOnlyAffectedLogs", "testTopicConfigChangeUpdatesLogConfig",
           "testConfigChangeGetsCleanedUp", "testBrokerConfigChangeDeliveredToAllLogs",
           "testTopicConfigChangeStopCleaningIfCompactIsRemoved", "testConfigChangesWithNoLogGettingInitialized",
           "testLogRecoveryMetrics", "testLogRecoveryMetricsShouldBeRemovedAfterLogRecovered",
           "testMetricsExistWhenLogIsRecreatedBeforeDeletion", "testMetricsAreRemovedWhenMovingCurrentToFutureLog",
           "testWaitForAllToComplete", "testLoadDirectoryIds", "testCheckpointLogStartOffsetForRemoteTopic",
           "testCheckpointLogStartOffsetForNormalTopic", "testIsStrayKraftReplicaWithEmptyImage",
           "testIsStrayKraftReplicaInImage", "testIsStrayKraftReplicaInImageWithRemoteReplicas",
           "testIsStrayKraftMissingTopicId", "testFindStrayReplicasInEmptyLAIR", "testFindNoStrayReplicasInFullLAIR",
           "testFindSomeStrayReplicasInFullLAIR", "testTopicRecreationInFullLAIR", "testLock",
           "testShutdownWithZeroFileDeleteDelayMs"],
    not_applicable={
        "testMetricsExistWhenLogIsRecreatedBeforeDeletion": _METRICS,
        "testMetricsAreRemovedWhenMovingCurrentToFutureLog": _METRICS,
        "testCheckpointLogStartOffsetForRemoteTopic": "tiered storage (remote log) is not ported",
        "testFindStrayReplicasInEmptyLAIR": _ZK,
        "testFindNoStrayReplicasInFullLAIR": _ZK,
        "testFindSomeStrayReplicasInFullLAIR": _ZK,
        "testTopicRecreationInFullLAIR": _ZK,
    },
)

NAME = "kafka"
MAX_LOG_AGE_MS = 10 * 60 * 1000
LOG_PROPS = {"segment.bytes": 1024, "segment.index.bytes": 4096, "retention.ms": MAX_LOG_AGE_MS}
INITIAL_TASK_DELAY_MS = 10 * 1000


@dataclass
class Ctx:
    time: MockTime = field(default_factory=MockTime)
    log_config: LogConfig = field(default_factory=lambda: LogConfig(LOG_PROPS))
    log_dir: Path = field(default_factory=temp_dir)
    log_manager: LogManager | None = None

    def create_log_manager(self, log_dirs: list[Path] | None = None, config_repository: Any = None,
                           recovery_threads_per_data_dir: int = 1) -> LogManager:
        return LogTestUtils.create_log_manager(
            default_config=self.log_config,
            config_repository=MockConfigRepository() if config_repository is None else config_repository,
            log_dirs=[self.log_dir] if log_dirs is None else log_dirs, time=self.time,
            recovery_threads_per_data_dir=recovery_threads_per_data_dir, initial_task_delay_ms=INITIAL_TASK_DELAY_MS)

    @property
    def lm(self) -> LogManager:
        assert self.log_manager is not None
        return self.log_manager


@pytest.fixture
def ctx() -> Iterator[Ctx]:
    c = Ctx()
    c.log_manager = c.create_log_manager()
    c.lm.startup(set())
    assert c.lm.initial_task_delay_ms == INITIAL_TASK_DELAY_MS
    yield c
    if c.log_manager is not None:
        c.log_manager.shutdown()
    utils_delete(c.log_dir)
    # some cases assign another manager
    if c.log_manager is not None:
        for d in c.log_manager.live_log_dirs():
            utils_delete(d)


def singleton_records(value: bytes, key: bytes | None = None, timestamp: int = -1) -> Any:
    return LogTestUtils.singleton_records(value, key=key, timestamp=timestamp)


def read_log(log: UnifiedLog, offset: int, max_length: int = 1024) -> FetchDataInfo:
    return log.read(offset, max_length, FetchIsolation.LOG_END, True)


def write_meta_properties(dir: Path, directory_id: Uuid | None = None) -> None:
    meta_props = (MetaProperties.Builder().set_version(MetaPropertiesVersion.V0)
                  .set_cluster_id("IVT1Seu3QjacxS7oBTKhDQ").set_node_id(1).set_directory_id(directory_id).build())
    write_properties_file(meta_props.to_properties(), str((dir / META_PROPERTIES_NAME).absolute()), False)


def test_create_log(ctx: Ctx) -> None:
    log = ctx.lm.get_or_create_log(TopicPartition(NAME, 0), topic_id=None)
    assert len(ctx.lm.live_log_dirs()) == 1

    log_file = ctx.log_dir / f"{NAME}-0"
    assert log_file.exists()
    log.append_as_leader(singleton_records(b"test"), leader_epoch=0)


def test_create_log_on_targeted_log_directory(ctx: Ctx) -> None:
    targeted_log_directory_id = Uuid.random_uuid()  # DirectoryId.random()

    dirs = [temp_dir() for _ in range(5)]
    write_meta_properties(dirs[0])
    write_meta_properties(dirs[1], targeted_log_directory_id)
    write_meta_properties(dirs[3], Uuid.random_uuid())
    write_meta_properties(dirs[4])

    ctx.log_manager = ctx.create_log_manager(dirs)

    log = ctx.lm.get_or_create_log(TopicPartition(NAME, 0), topic_id=None,
                                   target_log_directory_id=targeted_log_directory_id)
    assert len(ctx.lm.live_log_dirs()) == 5

    log_file = dirs[1] / f"{NAME}-0"
    assert log_file.exists()
    assert str(log_file.parent) == str(dirs[1].absolute())
    log.append_as_leader(singleton_records(b"test"), leader_epoch=0)


def test_create_log_with_targeted_log_directory_set_as_unassigned(ctx: Ctx) -> None:
    log = ctx.lm.get_or_create_log(TopicPartition(NAME, 0), topic_id=None,
                                   target_log_directory_id=DirectoryId.UNASSIGNED)
    assert len(ctx.lm.live_log_dirs()) == 1
    log_file = ctx.log_dir / f"{NAME}-0"
    assert log_file.exists()
    assert ctx.lm.directory_id(str(log_file.parent)) != DirectoryId.UNASSIGNED
    log.append_as_leader(singleton_records(b"test"), leader_epoch=0)


def test_create_log_with_targeted_log_directory_set_as_unknown_without_any_offline_directories(ctx: Ctx) -> None:
    log = ctx.lm.get_or_create_log(TopicPartition(NAME, 0), topic_id=None, target_log_directory_id=DirectoryId.LOST)
    assert len(ctx.lm.live_log_dirs()) == 1
    log_file = ctx.log_dir / f"{NAME}-0"
    assert log_file.exists()
    assert ctx.lm.directory_id(str(log_file.parent)) != Uuid.random_uuid()
    log.append_as_leader(singleton_records(b"test"), leader_epoch=0)


def test_handling_exceptions_during_shutdown(ctx: Ctx) -> None:
    """Every close job completes before shutdown returns, even when one fails."""
    # two dirs, so that the failing one can be told from the other
    log_dir1 = temp_dir()
    log_dir2 = temp_dir()
    log_manager_for_test: LogManager | None = None
    try:
        log_manager_for_test = ctx.create_log_manager([log_dir1, log_dir2])

        assert len(log_manager_for_test.live_log_dirs()) == 2
        log_manager_for_test.startup(set())

        log1 = log_manager_for_test.get_or_create_log(TopicPartition(NAME, 0), topic_id=None)
        log2 = log_manager_for_test.get_or_create_log(TopicPartition(NAME, 1), topic_id=None)

        log_file1 = log_dir1 / f"{NAME}-0"
        assert log_file1.exists()
        log_file2 = log_dir2 / f"{NAME}-1"
        assert log_file2.exists()

        log1.append_as_leader(singleton_records(b"test1"), leader_epoch=0)
        log1.take_producer_snapshot()
        log1.append_as_leader(singleton_records(b"test1"), leader_epoch=0)

        log2.append_as_leader(singleton_records(b"test2"), leader_epoch=0)
        log2.take_producer_snapshot()
        log2.append_as_leader(singleton_records(b"test2"), leader_epoch=0)

        # log1.close() fails during the shutdown
        utils_delete(log_file1)

        log_manager_for_test.shutdown(3)

        assert not (log_dir1 / CleanShutdownFileHandler.CLEAN_SHUTDOWN_FILE_NAME).exists()
        assert (log_dir2 / CleanShutdownFileHandler.CLEAN_SHUTDOWN_FILE_NAME).exists()
        assert log_manager_for_test.read_broker_epoch_from_clean_shutdown_files() is None
    finally:
        if log_manager_for_test is not None:
            for d in log_manager_for_test.live_log_dirs():
                utils_delete(d)


def test_clean_shutdown_file_with_broker_epoch(ctx: Ctx) -> None:
    log_dir1 = temp_dir()
    log_dir2 = temp_dir()
    log_manager_for_test: LogManager | None = None
    try:
        log_manager_for_test = ctx.create_log_manager([log_dir1, log_dir2])

        assert len(log_manager_for_test.live_log_dirs()) == 2
        log_manager_for_test.startup(set())
        log_manager_for_test.get_or_create_log(TopicPartition(NAME, 0), topic_id=None)
        log_manager_for_test.get_or_create_log(TopicPartition(NAME, 1), topic_id=None)

        assert (log_dir1 / f"{NAME}-0").exists()
        assert (log_dir2 / f"{NAME}-1").exists()

        log_manager_for_test.shutdown(3)

        assert (log_dir1 / CleanShutdownFileHandler.CLEAN_SHUTDOWN_FILE_NAME).exists()
        assert (log_dir2 / CleanShutdownFileHandler.CLEAN_SHUTDOWN_FILE_NAME).exists()
        assert log_manager_for_test.read_broker_epoch_from_clean_shutdown_files() == 3
    finally:
        if log_manager_for_test is not None:
            for d in log_manager_for_test.live_log_dirs():
                utils_delete(d)


def test_clean_shutdown_file_when_shutdown_called_before_startup_complete(ctx: Ctx) -> None:
    """A dir whose recovery did not complete gets no clean shutdown file. Kafka's spy sleeps 5 s in loadLog; here
    the second load waits for the shutdown to have happened instead."""
    # 1. two logs under the log dir
    topic_partition0 = TopicPartition(NAME, 0)
    topic_partition1 = TopicPartition(NAME, 1)
    log0 = ctx.lm.get_or_create_log(topic_partition0, topic_id=None)
    log1 = ctx.lm.get_or_create_log(topic_partition1, topic_id=None)
    assert (ctx.log_dir / f"{NAME}-0").exists()
    assert (ctx.log_dir / f"{NAME}-1").exists()

    log0.append_as_leader(singleton_records(b"test1"), leader_epoch=0)
    log0.take_producer_snapshot()

    log1.append_as_leader(singleton_records(b"test1"), leader_epoch=0)
    log1.take_producer_snapshot()

    # 2. an unclean shutdown: the clean shutdown marker is deleted
    ctx.lm.shutdown()
    marker = ctx.log_dir / CleanShutdownFileHandler.CLEAN_SHUTDOWN_FILE_NAME
    assert marker.exists()
    marker.unlink()

    # 3. a new LogManager, started in another thread
    load_log_called = 0
    shut_down = threading.Event()
    log_manager = ctx.create_log_manager()
    ctx.log_manager = log_manager
    real_load_log = log_manager.load_log

    def load_log(*args: Any) -> UnifiedLog:
        nonlocal load_log_called
        if load_log_called == 1:
            # the second log loads only once the manager has been shut down
            shut_down.wait(10)
        log = real_load_log(*args)
        load_log_called += 1
        return log

    log_manager.load_log = load_log  # type: ignore[method-assign]
    t = threading.Thread(target=lambda: log_manager.startup(set()))
    t.start()

    # 4. shut down after the first log is loaded, before the second is
    wait_until_true(lambda: load_log_called == 1, "Timed out waiting for only the first log to be loaded")
    log_manager.shutdown()
    shut_down.set()
    t.join(10)
    ctx.log_manager = None

    # 5. no clean shutdown file in the log dir
    assert not marker.exists()


def test_create_log_with_invalid_log_dir(ctx: Ctx) -> None:
    """A dir named by the NUL character cannot be checked (the disk is not mounted, say): it goes offline."""
    dirs = [ctx.log_dir, Path("\u0000")]

    ctx.lm.shutdown()
    ctx.log_manager = ctx.create_log_manager(dirs)
    ctx.lm.startup(set())

    log = ctx.lm.get_or_create_log(TopicPartition(NAME, 0), is_new=True, topic_id=None)
    assert (ctx.log_dir / f"{NAME}-0").exists()
    log.append_as_leader(singleton_records(b"test"), leader_epoch=0)


def test_create_log_with_log_dir_fallback(ctx: Ctx) -> None:
    # dirs one level below the log dir: tear-down deletes them all
    dirs = [ctx.log_dir / str(i) for i in range(5)]

    # a manager whose create_log_directory fails for the first half of the dirs tried
    ctx.lm.shutdown()
    ctx.log_manager = ctx.create_log_manager(dirs)
    broken_dirs: set[Path] = set()
    real_create_log_directory = ctx.lm.create_log_directory

    def create_log_directory(log_dir: Path, log_dir_name: str) -> tuple[Path | None, BaseException | None]:
        if log_dir in broken_dirs or len(broken_dirs) < len(dirs) // 2:
            broken_dirs.add(log_dir)
            return None, Exception("broken dir")
        return real_create_log_directory(log_dir, log_dir_name)

    ctx.lm.create_log_directory = create_log_directory  # type: ignore[method-assign]
    ctx.lm.startup(set())

    # the manager tries every dir until one works
    ctx.lm.get_or_create_log(TopicPartition(NAME, 0), is_new=True, topic_id=None)

    # half the dirs were broken,
    assert len(broken_dirs) == len(dirs) // 2

    # exactly one log dir was created,
    def contains_log_file(dir: Path) -> bool:
        return (dir / f"{NAME}-0").exists()

    assert sum(1 for d in dirs if contains_log_file(d)) == 1, "More than one log file created"

    # and not in a broken dir
    assert not any(contains_log_file(d) for d in broken_dirs)


def test_get_non_existent_log(ctx: Ctx) -> None:
    log = ctx.lm.get_log(TopicPartition(NAME, 0))
    assert log is None, "No log should be found."
    assert not (ctx.log_dir / f"{NAME}-0").exists()


def _set_last_modified(file: Path, ms: int) -> None:
    os.utime(file, (ms / 1000, ms / 1000))


def test_cleanup_expired_segments(ctx: Ctx) -> None:
    """Time-based retention: once the segments are old enough, the retention task deletes them."""
    log = ctx.lm.get_or_create_log(TopicPartition(NAME, 0), topic_id=None)
    offset = 0
    for _ in range(200):
        info = log.append_as_leader(singleton_records(b"test"), leader_epoch=0)
        offset = info.last_offset
    assert log.number_of_segments() > 1, "There should be more than one segment now."
    log.update_high_watermark(log.log_end_offset())

    for segment in log.log_segments():
        _set_last_modified(segment.log().file(), ctx.time.milliseconds())

    ctx.time.sleep(MAX_LOG_AGE_MS + 1)
    assert log.number_of_segments() == 1, "Now there should only be only one segment in the index."
    ctx.time.sleep(log.config().file_delete_delay_ms + 1)

    for s in log.log_segments():
        s.offset_index()
        s.time_index()

    # a log file, two indexes, one producer snapshot, and the leader epoch checkpoint
    assert len(list(log.dir().iterdir())) == log.number_of_segments() * 4 + 1, "Files should have been deleted"
    assert read_log(log, offset + 1).records.size_in_bytes() == 0, "Should get empty fetch off new log."

    with pytest.raises(OffsetOutOfRangeException):
        read_log(log, 0)
    # the log still takes appends
    log.append_as_leader(singleton_records(b"test"), leader_epoch=0)


def test_cleanup_segments_to_maintain_size(ctx: Ctx) -> None:
    """Size-based retention."""
    set_size = singleton_records(b"test").size_in_bytes()
    ctx.lm.shutdown()
    segment_bytes = 10 * set_size
    properties = {"segment.bytes": str(segment_bytes), "retention.bytes": str(5 * 10 * set_size + 10)}
    config_repository = MockConfigRepository.for_topic(NAME, properties)

    ctx.log_manager = ctx.create_log_manager(config_repository=config_repository)
    ctx.lm.startup(set())

    log = ctx.lm.get_or_create_log(TopicPartition(NAME, 0), topic_id=None)
    offset = 0

    # more messages than the retention size
    num_messages = 200
    for _ in range(num_messages):
        info = log.append_as_leader(singleton_records(b"test"), leader_epoch=0)
        offset = info.first_offset

    log.update_high_watermark(log.log_end_offset())
    assert log.number_of_segments() == num_messages * set_size // segment_bytes, \
        "Check we have the expected number of segments."

    # no segment has expired, but some must go to bring the size down
    ctx.time.sleep(ctx.lm.initial_task_delay_ms)
    assert log.number_of_segments() == 6, "Now there should be exactly 6 segments"
    ctx.time.sleep(log.config().file_delete_delay_ms + 1)

    # per segment a log file, two indexes (the txn index is lazy) and a producer snapshot; the epoch checkpoint
    assert len(list(log.dir().iterdir())) == log.number_of_segments() * 4 + 1, "Files should have been deleted"
    assert read_log(log, offset + 1).records.size_in_bytes() == 0, "Should get empty fetch off new log."
    with pytest.raises(OffsetOutOfRangeException):
        read_log(log, 0)
    # the log still takes appends
    log.append_as_leader(singleton_records(b"test"), leader_epoch=0)


def _test_doesnt_clean_logs(ctx: Ctx, policy: str) -> None:
    ctx.lm.shutdown()
    config_repository = MockConfigRepository.for_topic(NAME, "cleanup.policy", policy)

    ctx.log_manager = ctx.create_log_manager(config_repository=config_repository)
    log = ctx.lm.get_or_create_log(TopicPartition(NAME, 0), topic_id=None)
    for _ in range(200):
        log.append_as_leader(singleton_records(b"test", key=b"test"), leader_epoch=0)

    num_segments = log.number_of_segments()
    assert log.number_of_segments() > 1, "There should be more than one segment now."

    for segment in log.log_segments():
        _set_last_modified(segment.log().file(), ctx.time.milliseconds())

    ctx.time.sleep(MAX_LOG_AGE_MS + 1)
    assert log.number_of_segments() == num_segments, "number of segments shouldn't have changed"


def test_doesnt_clean_logs_with_compact_delete_policy(ctx: Ctx) -> None:
    """The retention task leaves compact,delete logs to the cleaner."""
    _test_doesnt_clean_logs(ctx, "compact,delete")


def test_doesnt_clean_logs_with_compact_policy(ctx: Ctx) -> None:
    _test_doesnt_clean_logs(ctx, "compact")


def test_time_based_flush(ctx: Ctx) -> None:
    """The flusher task flushes a log whose flush.ms has passed."""
    ctx.lm.shutdown()
    config_repository = MockConfigRepository.for_topic(NAME, "flush.ms", "1000")

    ctx.log_manager = ctx.create_log_manager(config_repository=config_repository)
    ctx.lm.startup(set())
    log = ctx.lm.get_or_create_log(TopicPartition(NAME, 0), topic_id=None)
    last_flush = log.last_flush_time()
    for _ in range(200):
        log.append_as_leader(singleton_records(b"test"), leader_epoch=0)
    ctx.time.sleep(ctx.lm.initial_task_delay_ms)
    assert last_flush != log.last_flush_time(), "Time based flush should have been triggered"


def test_least_loaded_assignment(ctx: Ctx) -> None:
    """New logs go to the dir holding the fewest."""
    dirs = [temp_dir(), temp_dir(), temp_dir()]
    ctx.lm.shutdown()
    ctx.log_manager = ctx.create_log_manager(dirs)

    for partition in range(20):
        ctx.lm.get_or_create_log(TopicPartition("test", partition), topic_id=None)
        assert len(ctx.lm.all_logs()) == partition + 1, "We should have created the right number of logs"
        counts: dict[Path, int] = {}
        for log in ctx.lm.all_logs():
            counts[log.dir().parent] = counts.get(log.dir().parent, 0) + 1
        assert max(counts.values()) <= min(counts.values()) + 1, "Load should balance evenly"


def test_load_logs_skip_remote_index_cache(ctx: Ctx) -> None:
    log_dir = temp_dir()
    (log_dir / "remote-log-index-cache").mkdir()
    ctx.log_manager = ctx.create_log_manager([log_dir])
    ctx.lm.load_logs(ctx.log_config, {}, lambda _: False)


def test_load_log_rename_log_that_should_be_stray(ctx: Ctx) -> None:
    invoked_count = 0
    log_dir = temp_dir()
    ctx.log_manager = ctx.create_log_manager([log_dir])

    test_topic = "test-stray-topic"
    test_topic_partition = TopicPartition(test_topic, 0)
    log = ctx.lm.get_or_create_log(test_topic_partition, topic_id=Uuid.random_uuid())

    def provided_is_stray(log: UnifiedLog) -> bool:
        nonlocal invoked_count
        invoked_count += 1
        return True

    ctx.lm.load_log(log.dir(), True, {}, {}, ctx.log_config, {}, {}, provided_is_stray)
    assert invoked_count == 1
    assert any(f.name.startswith(test_topic) and f.name.endswith(unified_log.STRAY_DIR_SUFFIX)
               for f in log_dir.iterdir())


def test_two_log_managers_using_same_dir_fails(ctx: Ctx) -> None:
    with pytest.raises(KafkaException):
        ctx.create_log_manager()


def _verify_checkpoint_recovery(topic_partitions: list[TopicPartition], log_manager: LogManager,
                                log_dir: Path) -> None:
    logs = [log_manager.get_or_create_log(tp, topic_id=None) for tp in topic_partitions]
    for log in logs:
        for _ in range(50):
            log.append_as_leader(singleton_records(b"test"), leader_epoch=0)
        log.flush(False)

    log_manager.checkpoint_log_recovery_offsets()
    checkpoints = OffsetCheckpointFile(log_dir / LogManagerCompanion.RECOVERY_POINT_CHECKPOINT_FILE).read()

    for tp, log in zip(topic_partitions, logs, strict=True):
        assert checkpoints[tp] == log.recovery_point(), "Recovery point should equal checkpoint"


def test_checkpoint_recovery_points(ctx: Ctx) -> None:
    """The recovery points are written to disk."""
    _verify_checkpoint_recovery([TopicPartition("test-a", 1), TopicPartition("test-b", 1)], ctx.lm, ctx.log_dir)


def test_recovery_directory_mapping_with_trailing_slash(ctx: Ctx) -> None:
    ctx.lm.shutdown()
    ctx.log_manager = LogTestUtils.create_log_manager(log_dirs=[Path(str(temp_dir().absolute()) + os.sep)])
    ctx.lm.startup(set())
    _verify_checkpoint_recovery([TopicPartition("test-a", 1)], ctx.lm, ctx.lm.live_log_dirs()[0])


def test_recovery_directory_mapping_with_relative_directory(ctx: Ctx, monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path: Path) -> None:
    # the relative "data" dir is resolved under a temp working dir, not the repository
    with monkeypatch.context() as m:
        m.chdir(tmp_path)
        relative_dir = Path("data", ctx.log_dir.name).absolute()
    ctx.lm.shutdown()
    ctx.log_manager = ctx.create_log_manager([relative_dir])
    ctx.lm.startup(set())
    _verify_checkpoint_recovery([TopicPartition("test-a", 1)], ctx.lm, ctx.lm.live_log_dirs()[0])


def test_file_references_after_async_delete(ctx: Ctx) -> None:
    log = ctx.lm.get_or_create_log(TopicPartition(NAME, 0), topic_id=None)
    active_segment = log.active_segment()
    log_name = active_segment.log().file().name
    index_name = active_segment.offset_index().file().name
    time_index_name = active_segment.time_index().file().name
    txn_index_name = active_segment.txn_index().file().name
    index_files_on_disk_before_delete = [f for f in active_segment.log().file().parent.iterdir()
                                         if f.name.endswith("index")]

    removed_log = ctx.lm.async_delete(TopicPartition(NAME, 0))
    assert removed_log is not None
    removed_segment = removed_log.active_segment()
    index_files_after_delete = [removed_segment.offset_index_file(), removed_segment.time_index_file(),
                                removed_segment.txn_index().file()]

    assert removed_segment.log().file() == removed_log.dir() / log_name
    assert removed_segment.offset_index_file() == removed_log.dir() / index_name
    assert removed_segment.time_index_file() == removed_log.dir() / time_index_name
    assert removed_segment.txn_index().file() == removed_log.dir() / txn_index_name

    # an index type added without its file reference being updated would show here (if created eagerly)
    for file_before_delete in index_files_on_disk_before_delete:
        file_in_index = next((f for f in index_files_after_delete if f.name == file_before_delete.name), None)
        assert file_in_index is not None, \
            f"Could not find index file {file_before_delete.name} in indexFilesAfterDelete"
        assert file_before_delete.absolute() != file_in_index.absolute(), "File reference was not updated in index"

    ctx.time.sleep(ctx.lm.initial_task_delay_ms)
    assert ctx.lm.has_logs_to_be_deleted(), "Logs deleted too early"
    ctx.time.sleep(ctx.lm.current_default_config().file_delete_delay_ms - ctx.lm.initial_task_delay_ms)
    assert not ctx.lm.has_logs_to_be_deleted(), "Logs not deleted"


def test_create_and_delete_overly_long_topic(ctx: Ctx) -> None:
    invalid_topic_name = "x" * 253
    ctx.lm.get_or_create_log(TopicPartition(invalid_topic_name, 0), topic_id=None)
    ctx.lm.async_delete(TopicPartition(invalid_topic_name, 0))


def test_checkpoint_for_only_affected_logs(ctx: Ctx) -> None:
    tps = [TopicPartition("test-a", 0), TopicPartition("test-a", 1), TopicPartition("test-a", 2),
           TopicPartition("test-b", 0), TopicPartition("test-b", 1)]

    all_logs = [ctx.lm.get_or_create_log(tp, topic_id=None) for tp in tps]
    for log in all_logs:
        for _ in range(50):
            log.append_as_leader(singleton_records(b"test"), leader_epoch=0)
        log.flush(False)

    ctx.lm.checkpoint_recovery_offsets_in_dir(ctx.log_dir)

    checkpoints = OffsetCheckpointFile(ctx.log_dir / LogManagerCompanion.RECOVERY_POINT_CHECKPOINT_FILE).read()

    for tp, log in zip(tps, all_logs, strict=True):
        assert checkpoints[tp] == log.recovery_point(), "Recovery point should equal checkpoint"


class SpyConfigRepository(MockConfigRepository):
    """Mockito's spy on a MockConfigRepository: counts topic_config calls per topic."""

    def __init__(self) -> None:
        super().__init__()
        self.topic_config_calls: dict[str, int] = {}

    def topic_config(self, topic_name: str) -> dict[str, Any]:
        self.topic_config_calls[topic_name] = self.topic_config_calls.get(topic_name, 0) + 1
        return super().topic_config(topic_name)


class MockLog:
    """mock(classOf[UnifiedLog]) as far as finishedInitializingLog touches it."""

    def __init__(self) -> None:
        self.configs: list[LogConfig] = []

    def update_config(self, new_config: LogConfig) -> LogConfig:
        self.configs.append(new_config)
        return new_config


def test_topic_config_change_updates_log_config(ctx: Ctx) -> None:
    """A topic config updated while its log initialises is fetched again when the log is ready."""
    ctx.lm.shutdown()
    spy_config_repository = SpyConfigRepository()
    ctx.log_manager = ctx.create_log_manager(config_repository=spy_config_repository)
    mock_log = MockLog()

    test_topic_one = "test-topic-one"
    test_topic_two = "test-topic-two"
    test_topic_one_partition = TopicPartition(test_topic_one, 1)
    test_topic_two_partition = TopicPartition(test_topic_two, 1)

    ctx.lm.initializing_log(test_topic_one_partition)
    ctx.lm.initializing_log(test_topic_two_partition)

    ctx.lm.topic_config_updated(test_topic_one)

    ctx.lm.finished_initializing_log(test_topic_one_partition, mock_log)  # type: ignore[arg-type]
    ctx.lm.finished_initializing_log(test_topic_two_partition, mock_log)  # type: ignore[arg-type]

    # test_topic_one's configs are loaded again for the update
    assert spy_config_repository.topic_config_calls.get(test_topic_one, 0) == 1
    # test_topic_two's are not: it had none
    assert spy_config_repository.topic_config_calls.get(test_topic_two, 0) == 0


def test_config_change_gets_cleaned_up(ctx: Ctx) -> None:
    """A log that failed to initialise leaves no initialising partition behind, and no config is fetched."""
    ctx.lm.shutdown()
    spy_config_repository = SpyConfigRepository()
    ctx.log_manager = ctx.create_log_manager(config_repository=spy_config_repository)

    test_topic_partition = TopicPartition("test-topic", 1)
    ctx.lm.initializing_log(test_topic_partition)
    ctx.lm.finished_initializing_log(test_topic_partition, None)

    assert not ctx.lm.partitions_initializing
    assert spy_config_repository.topic_config_calls.get(test_topic_partition.topic, 0) == 0


def test_broker_config_change_delivered_to_all_logs(ctx: Ctx) -> None:
    """A broker config change reaches every log being initialised."""
    ctx.lm.shutdown()
    spy_config_repository = SpyConfigRepository()
    ctx.log_manager = ctx.create_log_manager(config_repository=spy_config_repository)
    mock_log = MockLog()

    test_topic_one = "test-topic-one"
    test_topic_two = "test-topic-two"
    test_topic_one_partition = TopicPartition(test_topic_one, 1)
    test_topic_two_partition = TopicPartition(test_topic_two, 1)

    ctx.lm.initializing_log(test_topic_one_partition)
    ctx.lm.initializing_log(test_topic_two_partition)

    ctx.lm.broker_config_updated()

    ctx.lm.finished_initializing_log(test_topic_one_partition, mock_log)  # type: ignore[arg-type]
    ctx.lm.finished_initializing_log(test_topic_two_partition, mock_log)  # type: ignore[arg-type]

    assert spy_config_repository.topic_config_calls.get(test_topic_one, 0) == 1
    assert spy_config_repository.topic_config_calls.get(test_topic_two, 0) == 1


def test_topic_config_change_stop_cleaning_if_compact_is_removed(ctx: Ctx) -> None:
    """Turning compaction off aborts the cleaning of the topic's partitions."""
    ctx.lm.shutdown()
    ctx.log_manager = ctx.create_log_manager(config_repository=MockConfigRepository())
    spy_log_manager = ctx.lm
    topic_config_updated_calls: list[str] = []
    abort_cleaning_calls: list[TopicPartition] = []
    real_topic_config_updated = spy_log_manager.topic_config_updated
    real_abort_cleaning = spy_log_manager.abort_cleaning

    def topic_config_updated(topic: str) -> None:
        topic_config_updated_calls.append(topic)
        real_topic_config_updated(topic)

    def abort_cleaning(topic_partition: TopicPartition) -> None:
        abort_cleaning_calls.append(topic_partition)
        real_abort_cleaning(topic_partition)

    spy_log_manager.topic_config_updated = topic_config_updated  # type: ignore[method-assign]
    spy_log_manager.abort_cleaning = abort_cleaning  # type: ignore[method-assign]

    topic = "topic"
    tp0 = TopicPartition(topic, 0)
    tp1 = TopicPartition(topic, 1)

    old_log_config = LogConfig({**ctx.log_config.props, "cleanup.policy": "compact"}, frozenset({"cleanup.policy"}))

    log0 = spy_log_manager.get_or_create_log(tp0, topic_id=None)
    log0.update_config(old_log_config)
    log1 = spy_log_manager.get_or_create_log(tp1, topic_id=None)
    log1.update_config(old_log_config)

    assert set(map(id, spy_log_manager.logs_by_topic(topic))) == {id(log0), id(log1)}

    new_properties = {"cleanup.policy": "delete"}

    spy_log_manager.update_topic_config(topic, new_properties, is_remote_log_storage_system_enabled=False,
                                        was_remote_log_enabled=False, from_zk=False)

    assert log0.config().delete
    assert log1.config().delete
    assert not log0.config().compact
    assert not log1.config().compact

    assert topic_config_updated_calls == [topic]
    assert abort_cleaning_calls.count(tp0) == 1
    assert abort_cleaning_calls.count(tp1) == 1


def test_config_changes_with_no_log_getting_initialized(ctx: Ctx) -> None:
    """Config change events are fine with no log initialising."""
    ctx.lm.broker_config_updated()
    ctx.lm.topic_config_updated("test-topic")
    assert not ctx.lm.partitions_initializing


def _append_records_to_log(time: MockTime, parent_log_dir: Path, partition_id: int,
                           expected_segments_per_log: int) -> None:
    def create_record() -> Any:
        return singleton_records(b"test", timestamp=time.milliseconds())

    tp_file = parent_log_dir / f"{NAME}-{partition_id}"
    segment_bytes = 1024

    log = LogTestUtils.create_log(tp_file, LogConfig(LOG_PROPS), None, time.scheduler, time, 0, 0, 5 * 60 * 1000,
                                  ProducerStateManagerConfig(PRODUCER_ID_EXPIRATION_MS_DEFAULT, False),
                                  PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_DEFAULT)

    assert expected_segments_per_log > 0
    # with segment.bytes = 1024, this many records fill expected_segments_per_log segments
    num_messages = segment_bytes * expected_segments_per_log // create_record().size_in_bytes()
    try:
        for _ in range(num_messages):
            log.append_as_leader(create_record(), leader_epoch=0)

        assert log.number_of_segments() == expected_segments_per_log
    finally:
        log.close()


class RecordingMap(dict):  # type: ignore[type-arg]
    """mock(classOf[ConcurrentHashMap]): remembers every put, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.puts: list[tuple[str, int]] = []

    def __setitem__(self, key: str, value: int) -> None:
        self.puts.append((key, value))
        super().__setitem__(key, value)


def test_log_recovery_metrics(ctx: Ctx) -> None:
    """Recovery counts down the logs left per dir and the segments left per recovery thread. The gauges over
    those counts are metrics, not ported: the counts themselves are checked."""
    ctx.lm.shutdown()
    log_dir1 = temp_dir()
    log_dir2 = temp_dir()
    log_dirs = [log_dir1, log_dir2]
    recovery_threads_per_data_dir = 2
    # a manager with that many recovery threads
    ctx.log_manager = ctx.create_log_manager(log_dirs, recovery_threads_per_data_dir=recovery_threads_per_data_dir)
    spy_log_manager = ctx.lm

    assert len(spy_log_manager.live_log_dirs()) == 2

    mock_time = MockTime()
    mock_map = RecordingMap()
    expected_segments_per_log = 2

    # segments to recover in each log dir
    _append_records_to_log(mock_time, log_dir1, 0, expected_segments_per_log)
    _append_records_to_log(mock_time, log_dir2, 1, expected_segments_per_log)

    # load_log recovers (an unclean shutdown) and counts segments into the recording map
    def load_log(dir: Path, had_clean_shutdown: bool, recovery_points: Any, log_start_offsets: Any,
                 default_config: LogConfig, topic_config_overrides: Any, num_remaining_segments: Any,
                 is_stray: Callable[[UnifiedLog], bool]) -> UnifiedLog:
        topic_partition = unified_log.parse_topic_partition_name(dir)
        config = topic_config_overrides.get(topic_partition.topic, ctx.log_config)
        return unified_log.apply(dir, config, 0, 0, mock_time.scheduler, None, mock_time, 5 * 60 * 1000,
                                 ProducerStateManagerConfig(5 * 60 * 1000, False),
                                 PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_DEFAULT, LogDirFailureChannel(10),
                                 last_shutdown_clean=False, topic_id=None, keep_partition_metadata_file=False,
                                 num_remaining_segments=mock_map)

    dec_paths: list[str] = []
    real_dec = spy_log_manager.dec_num_remaining_logs

    def dec_num_remaining_logs(num_remaining_logs: dict[str, int], path: str) -> int:
        dec_paths.append(path)
        return real_dec(num_remaining_logs, path)

    add_calls: list[tuple[dict[str, int], dict[str, int]]] = []
    remove_calls = 0

    def add_log_recovery_metrics(num_remaining_logs: dict[str, int], num_remaining_segments: dict[str, int]) -> None:
        add_calls.append((num_remaining_logs, num_remaining_segments))

    def remove_log_recovery_metrics() -> None:
        nonlocal remove_calls
        remove_calls += 1

    spy_log_manager.load_log = load_log  # type: ignore[method-assign]
    spy_log_manager.dec_num_remaining_logs = dec_num_remaining_logs  # type: ignore[method-assign]
    spy_log_manager.add_log_recovery_metrics = add_log_recovery_metrics  # type: ignore[method-assign]
    spy_log_manager.remove_log_recovery_metrics = remove_log_recovery_metrics  # type: ignore[method-assign]

    # recovery
    spy_log_manager.startup(set())

    assert len(add_calls) == 1
    assert remove_calls == 1

    # one log per dir
    expected_remaining_logs_params = {str(log_dir1.absolute()): 1, str(log_dir2.absolute()): 1}
    assert len(dec_paths) == sum(expected_remaining_logs_params.values())
    for path, total_logs in expected_remaining_logs_params.items():
        # decremented to 0 in the end
        assert dec_paths.count(path) == total_logs
    num_remaining_logs, _ = add_calls[0]
    assert all(v == 0 for v in num_remaining_logs.values())

    expected_remaining_segments_params = {str(log_dir1.absolute()): expected_segments_per_log,
                                          str(log_dir2.absolute()): expected_segments_per_log}
    # from the total down to 0, one put each, per thread
    assert len(mock_map.puts) == sum(n + 1 for n in expected_remaining_segments_params.values())
    assert all(v == 0 for v in mock_map.values())
    for thread_name, total_segments in expected_remaining_segments_params.items():
        expected_cur_remaining_segments = total_segments + 1
        for name, value in mock_map.puts:
            if thread_name in name:
                expected_cur_remaining_segments -= 1
                assert value == expected_cur_remaining_segments
        assert expected_cur_remaining_segments == 0


def test_log_recovery_metrics_should_be_removed_after_log_recovered(ctx: Ctx) -> None:
    """The recovery gauges are added once and removed once (the gauges themselves are not ported)."""
    ctx.lm.shutdown()
    log_dirs = [temp_dir(), temp_dir()]
    recovery_threads_per_data_dir = 2
    ctx.log_manager = ctx.create_log_manager(log_dirs, recovery_threads_per_data_dir=recovery_threads_per_data_dir)
    spy_log_manager = ctx.lm

    assert len(spy_log_manager.live_log_dirs()) == 2
    calls: list[str] = []
    real_add = spy_log_manager.add_log_recovery_metrics
    real_remove = spy_log_manager.remove_log_recovery_metrics

    def add_log_recovery_metrics(num_remaining_logs: dict[str, int], num_remaining_segments: dict[str, int]) -> None:
        calls.append("add")
        real_add(num_remaining_logs, num_remaining_segments)

    def remove_log_recovery_metrics() -> None:
        calls.append("remove")
        real_remove()

    spy_log_manager.add_log_recovery_metrics = add_log_recovery_metrics  # type: ignore[method-assign]
    spy_log_manager.remove_log_recovery_metrics = remove_log_recovery_metrics  # type: ignore[method-assign]

    spy_log_manager.startup(set())

    assert calls == ["add", "remove"]


class _MockFuture:
    def __init__(self, answer: Callable[[], Any]) -> None:
        self._answer = answer

    def get(self) -> Any:
        return self._answer()


def test_wait_for_all_to_complete() -> None:
    invoked_count = 0

    def succeed() -> bool:
        nonlocal invoked_count
        invoked_count += 1
        return True

    def fail() -> bool:
        nonlocal invoked_count
        invoked_count += 1
        raise RuntimeError()

    success = _MockFuture(succeed)
    failure = _MockFuture(fail)

    failure_count = 0

    def count_failure(_: BaseException) -> None:
        nonlocal failure_count
        failure_count += 1

    # every future is waited for
    assert not LogManagerCompanion.wait_for_all_to_complete([success, failure], count_failure)
    assert invoked_count == 2
    assert failure_count == 1
    assert not LogManagerCompanion.wait_for_all_to_complete([failure, success], count_failure)
    assert invoked_count == 4
    assert failure_count == 2
    assert LogManagerCompanion.wait_for_all_to_complete([success, success], count_failure)
    assert invoked_count == 6
    assert failure_count == 2
    assert not LogManagerCompanion.wait_for_all_to_complete([failure, failure], count_failure)
    assert invoked_count == 8
    assert failure_count == 4


def test_load_directory_ids(ctx: Ctx) -> None:
    dirs = [temp_dir() for _ in range(5)]
    write_meta_properties(dirs[0])
    write_meta_properties(dirs[1], Uuid.from_string("ZwkGXjB0TvSF6mjVh6gO7Q"))
    # no meta.properties in dirs[2]
    write_meta_properties(dirs[3], Uuid.from_string("kQfNPJ2FTHq_6Qlyyv6Jqg"))
    write_meta_properties(dirs[4])

    ctx.log_manager = ctx.create_log_manager(dirs)

    assert ctx.lm.directory_id(str(dirs[0].absolute())) is None
    assert ctx.lm.directory_id(str(dirs[1].absolute())) is not None
    assert ctx.lm.directory_id(str(dirs[1].absolute())) == Uuid.from_string("ZwkGXjB0TvSF6mjVh6gO7Q")
    assert ctx.lm.directory_id(str(dirs[2].absolute())) is None
    assert ctx.lm.directory_id(str(dirs[3].absolute())) == Uuid.from_string("kQfNPJ2FTHq_6Qlyyv6Jqg")
    assert ctx.lm.directory_id(str(dirs[3].absolute())) is not None
    assert len(ctx.lm.directory_ids_set()) == 2


def test_checkpoint_log_start_offset_for_normal_topic(ctx: Ctx) -> None:
    checkpoint_file = ctx.log_dir / LogManagerCompanion.LOG_START_OFFSET_CHECKPOINT_FILE
    checkpoint = OffsetCheckpointFile(checkpoint_file)
    topic_partition = TopicPartition("test", 0)
    log = ctx.lm.get_or_create_log(topic_partition, topic_id=None)
    for _ in range(50):
        info = log.append_as_leader(singleton_records(b"test"), leader_epoch=0)
        offset = info.last_offset
        if offset != 0 and offset % 10 == 0:
            log.roll()
    assert len(log.log_segments()) == 5
    log.update_high_watermark(49)

    log_start_offset = 31
    log.maybe_increment_log_start_offset(log_start_offset, LogStartOffsetIncrementReason.SegmentDeletion)
    ctx.lm.checkpoint_log_start_offsets()
    assert len(log.log_segments()) == 5
    assert checkpoint.read().get(topic_partition, -1) == log_start_offset

    log.delete_old_segments()
    assert len(log.log_segments()) == 2
    assert log.log_start_offset == log_start_offset

    # once the segments below it are gone, the log start offset needs no checkpoint
    ctx.lm.checkpoint_log_start_offsets()
    assert checkpoint.read().get(topic_partition, -1) == -1


FOO0 = (Uuid.from_string("Sl08ZXU2QW6uF5hIoSzc8w"), TopicPartition("foo", 0))
FOO1 = (Uuid.from_string("Sl08ZXU2QW6uF5hIoSzc8w"), TopicPartition("foo", 1))
BAR0 = (Uuid.from_string("69O438ZkTSeqqclTtZO2KA"), TopicPartition("bar", 0))
BAR1 = (Uuid.from_string("69O438ZkTSeqqclTtZO2KA"), TopicPartition("bar", 1))
QUUX0 = (Uuid.from_string("YS9owjv5TG2OlsvBM0Qw6g"), TopicPartition("quux", 0))


class _StrayMockLog:
    """LogManagerTest.mockLog: a UnifiedLog answering only its topic id and partition."""

    def __init__(self, topic_id: Uuid | None, topic_partition: TopicPartition) -> None:
        self._topic_id = topic_id
        self._topic_partition = topic_partition

    def topic_id(self) -> Uuid | None:
        return self._topic_id

    def topic_partition(self) -> TopicPartition:
        return self._topic_partition

    def __str__(self) -> str:
        return f"MockLog({self._topic_partition})"


def mock_log(topic_id_partition: tuple[Uuid, TopicPartition]) -> Any:
    return _StrayMockLog(*topic_id_partition)


def topic_image(partitions: dict[tuple[Uuid, TopicPartition], list[int]]) -> TopicImage:
    topic_ids = {tid for tid, _ in partitions}
    topic_names = {tp.topic for _, tp in partitions}
    if len(topic_ids) > 1:
        raise ValueError("partition topic IDs did not match")
    if len(topic_names) > 1:
        raise ValueError("partition topic names did not match")
    if not topic_ids:
        raise ValueError("Invalid empty partitions map.")
    topic_id = LogManagerCompanion._image_uuid(next(iter(topic_ids)))
    partition_registrations = {
        tp.partition: PartitionRegistration(replicas=tuple(replicas),
                                            directories=(LogManagerCompanion._image_uuid(DirectoryId.UNASSIGNED),)
                                            * len(replicas),
                                            isr=tuple(replicas), leader=replicas[0], leader_epoch=0,
                                            partition_epoch=0)
        for (_, tp), replicas in partitions.items()}
    return TopicImage(next(iter(topic_names)), topic_id, partition_registrations)


def topics_image(topics: list[TopicImage]) -> TopicsImage:
    return TopicsImage({t.id: t for t in topics}, {t.name: t for t in topics})


def test_is_stray_kraft_replica_with_empty_image() -> None:
    image = topics_image([])
    on_disk = [mock_log(p) for p in (FOO0, FOO1, BAR0, BAR1, QUUX0)]
    assert all(LogManagerCompanion.is_stray_kraft_replica(0, image, log) for log in on_disk)


def test_is_stray_kraft_replica_in_image() -> None:
    image = topics_image([topic_image({FOO0: [0, 1, 2]}), topic_image({BAR0: [0, 1, 2], BAR1: [0, 1, 2]})])
    on_disk = [mock_log(p) for p in (FOO0, FOO1, BAR0, BAR1, QUUX0)]
    expected_strays = {FOO1[1], QUUX0[1]}

    for log in on_disk:
        assert LogManagerCompanion.is_stray_kraft_replica(0, image, log) == (log.topic_partition() in expected_strays)


def test_is_stray_kraft_replica_in_image_with_remote_replicas() -> None:
    image = topics_image([topic_image({FOO0: [0, 1, 2]}), topic_image({BAR0: [1, 2, 3], BAR1: [2, 3, 0]})])
    on_disk = [mock_log(p) for p in (FOO0, BAR0, BAR1)]
    expected_strays = {BAR0[1]}

    for log in on_disk:
        assert LogManagerCompanion.is_stray_kraft_replica(0, image, log) == (log.topic_partition() in expected_strays)


def test_is_stray_kraft_missing_topic_id() -> None:
    log = _StrayMockLog(None, TopicPartition("foo", 0))
    assert LogManagerCompanion.is_stray_kraft_replica(0, topics_image([]), log)  # type: ignore[arg-type]


def test_lock(ctx: Ctx) -> None:
    """The manager holds each dir's .lock, and removes it at shutdown."""
    tmp_log_dir = temp_dir()
    tmp_log_manager = ctx.create_log_manager([tmp_log_dir])

    try:
        # the .lock is held by tmp_log_manager
        file_lock = FileLock(tmp_log_dir / LogManagerCompanion.LOCK_FILE_NAME)
        assert not file_lock.try_lock()
    finally:
        # and gone after its shutdown
        tmp_log_manager.shutdown()
        f = tmp_log_dir / LogManagerCompanion.LOCK_FILE_NAME
        assert not f.exists()


def test_shutdown_with_zero_file_delete_delay_ms(ctx: Ctx) -> None:
    """A KafkaScheduler shuts down even with file.delete.delay.ms 0."""
    tmp_log_dir = temp_dir()
    tmp_properties = {"file.delete.delay.ms": "0"}
    scheduler = KafkaScheduler(1, True, "log-manager-test")
    tmp_log_manager = LogManager(
        log_dirs=[tmp_log_dir.absolute()], initial_offline_dirs=[], config_repository=MockConfigRepository(),
        initial_default_config=LogConfig(tmp_properties), cleaner_config=CleanerConfig(False),
        recovery_threads_per_data_dir=1, flush_check_ms=1000, flush_recovery_offset_checkpoint_ms=10000,
        flush_start_offset_checkpoint_ms=10000, retention_check_ms=1000, max_transaction_timeout_ms=5 * 60 * 1000,
        producer_state_manager_config=ProducerStateManagerConfig(PRODUCER_ID_EXPIRATION_MS_DEFAULT, False),
        producer_id_expiration_check_interval_ms=PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_DEFAULT,
        scheduler=scheduler, time=SYSTEM, broker_topic_stats=None, log_dir_failure_channel=LogDirFailureChannel(1),
        keep_partition_metadata_file=True, inter_broker_protocol_version=MetadataVersion.latest_testing(),
        remote_storage_system_enable=False, initial_task_delay_ms=0)

    scheduler.startup()
    tmp_log_manager.startup(set())

    def within(timeout_s: float, fn: Callable[[], None]) -> None:
        """assertTimeoutPreemptively."""
        done = threading.Event()
        errors: list[BaseException] = []

        def run() -> None:
            try:
                fn()
            except BaseException as e:
                errors.append(e)
            finally:
                done.set()

        threading.Thread(target=run, daemon=True).start()
        assert done.wait(timeout_s), "execution timed out"
        if errors:
            raise errors[0]

    within(5, tmp_log_manager.shutdown)
    within(5, scheduler.shutdown)
