"""Port of core/src/test/scala/unit/kafka/log/LogManagerTest.scala (Kafka 1.0.2).

The manager runs on kafka.utils.MockTime's MockScheduler (tests/kafka_tests/mock_scheduler.py): its background
tasks (retention, flusher, checkpoints, segment and log deletion) run in the test's thread when the test sleeps the
mock clock past them, as in Kafka's test. TestUtils.createLogManager builds no LogCleaner (the port has none; Kafka's
helper disables it too).

`log.oldestProducerSnapshotOffset` (Log's private[log] accessor of its producer state manager's oldest snapshot) is
read from the log's ProducerStateManager directly. testRecoveryDirectoryMappingWithRelativeDirectory resolves its
relative `data/<dir>` (made absolute at once, as Kafka's getAbsoluteFile) against a scratch working directory
instead of the one the suite runs in.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_edu.v1_0_2.clients.common.errors import KafkaException, OffsetOutOfRangeException
from kafka_edu.v1_0_2.core.log.log import Log
from kafka_edu.v1_0_2.core.log.log_config import LogConfig
from kafka_edu.v1_0_2.core.log.log_manager import INITIAL_TASK_DELAY_MS, RECOVERY_POINT_CHECKPOINT_FILE, LogManager
from kafka_edu.v1_0_2.core.server.checkpoints.offset_checkpoint_file import OffsetCheckpointFile
from tests.kafka_tests.mock_scheduler import MockTimeWithScheduler
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import create_log_manager, singleton_records, temp_dir

KAFKA = kafka_test_class(
    "1.0.2", "core/src/test/scala/unit/kafka/log/LogManagerTest.scala",
    cases=[
        "testCreateLog",
        "testGetNonExistentLog",
        "testCleanupExpiredSegments",
        "testCleanupSegmentsToMaintainSize",
        "testDoesntCleanLogsWithCompactDeletePolicy",
        "testTimeBasedFlush",
        "testLeastLoadedAssignment",
        "testTwoLogManagersUsingSameDirFails",
        "testCheckpointRecoveryPoints",
        "testRecoveryDirectoryMappingWithTrailingSlash",
        "testRecoveryDirectoryMappingWithRelativeDirectory",
        "testFileReferencesAfterAsyncDelete",
    ],
)

MAX_LOG_AGE_MS = 10 * 60 * 1000
LOG_PROPS = {
    "segment.bytes": 1024,
    "segment.index.bytes": 4096,
    "retention.ms": MAX_LOG_AGE_MS,
    "message.timestamp.difference.max.ms": str(2**63 - 1),
}
LOG_CONFIG = LogConfig.from_props(LOG_PROPS)
NAME = "kafka"


def _config_with(**overrides: object) -> LogConfig:
    """LogConfig.fromProps(logConfig.originals, overrides)."""
    return LogConfig.from_props({**LOG_PROPS, **{k.replace("_", "."): v for k, v in overrides.items()}})


def _record() -> bytes:
    return bytes(singleton_records(b"test").buffer)


class _Context:
    """The test class's fields: its MockTime, its log dir, and the LogManager it currently holds."""

    def __init__(self) -> None:
        self.time = MockTimeWithScheduler()
        self.log_dir = temp_dir()
        self.log_manager: LogManager = self.create_log_manager()
        self.log_manager.startup()

    def create_log_manager(self, log_dirs: list[Path] | None = None) -> LogManager:
        return create_log_manager(log_dirs=[self.log_dir] if log_dirs is None else log_dirs,
                                  default_config=LOG_CONFIG, time=self.time)


@pytest.fixture
def ctx() -> Iterator[_Context]:
    context = _Context()  # setUp
    yield context
    if context.log_manager is not None:  # tearDown
        context.log_manager.shutdown()
    shutil.rmtree(context.log_dir, ignore_errors=True)
    for d in context.log_manager.live_log_dirs:  # some tests make a LogManager of their own
        shutil.rmtree(d, ignore_errors=True)


def _set_last_modified(log: Log, ms: int) -> None:
    for segment in log.log_segments():
        os.utime(segment.log.file, (ms / 1000, ms / 1000))


def test_create_log(ctx: _Context) -> None:
    log = ctx.log_manager.get_or_create_log((NAME, 0), LOG_CONFIG)
    assert (ctx.log_dir / f"{NAME}-0").exists()
    log.append_as_leader(_record(), leader_epoch=0)


def test_get_non_existent_log(ctx: _Context) -> None:
    assert ctx.log_manager.get_log((NAME, 0)) is None, "No log should be found."
    assert not (ctx.log_dir / f"{NAME}-0").exists()


def _assert_log_start_moved_past(log: Log, offset: int) -> None:
    assert len(log.read_uncommitted(offset + 1, 1024).records_bytes()) == 0, "Should get empty fetch off new log."
    with pytest.raises(OffsetOutOfRangeException):
        log.read_uncommitted(0, 1024)  # fetching earlier than the log start


def test_cleanup_expired_segments(ctx: _Context) -> None:
    log = ctx.log_manager.get_or_create_log((NAME, 0), LOG_CONFIG)
    offset = 0
    for _ in range(200):
        offset = log.append_as_leader(_record(), leader_epoch=0).last_offset
    assert log.number_of_segments > 1, "There should be more than one segment now."
    log.on_high_watermark_incremented(log.log_end_offset)

    _set_last_modified(log, ctx.time.milliseconds())

    ctx.time.sleep(MAX_LOG_AGE_MS + 1)
    assert log.number_of_segments == 1, "Now there should be only one segment in the index."
    ctx.time.sleep(log.config.file_delete_delay_ms + 1)

    # per segment a log and two indexes, one producer snapshot; and the leader epoch checkpoint
    assert len(os.listdir(log.dir)) == log.number_of_segments * 4 + 1, "Files should have been deleted"
    _assert_log_start_moved_past(log, offset)
    log.append_as_leader(_record(), leader_epoch=0)  # still appendable


def test_cleanup_segments_to_maintain_size(ctx: _Context) -> None:
    set_size = singleton_records(b"test").size_in_bytes()
    ctx.log_manager.shutdown()
    config = _config_with(segment_bytes=10 * set_size, retention_bytes=5 * 10 * set_size + 10)

    ctx.log_manager = ctx.create_log_manager()
    ctx.log_manager.startup()

    log = ctx.log_manager.get_or_create_log((NAME, 0), config)
    offset = 0
    num_messages = 200
    for _ in range(num_messages):  # more than the retention size
        offset = log.append_as_leader(_record(), leader_epoch=0).first_offset

    log.on_high_watermark_incremented(log.log_end_offset)
    assert log.number_of_segments == num_messages * set_size // config.segment_bytes, \
        "Check we have the expected number of segments."

    # no segment has expired, but some must go to bring the log under its size
    ctx.time.sleep(INITIAL_TASK_DELAY_MS)
    assert log.number_of_segments == 6, "Now there should be exactly 6 segments"
    ctx.time.sleep(log.config.file_delete_delay_ms + 1)

    # per segment a log and two indexes (no transaction index: it is made lazily); the leader epoch checkpoint and
    # two producer snapshots (of the active segment and the one before it)
    assert len(os.listdir(log.dir)) == log.number_of_segments * 3 + 3, "Files should have been deleted"
    _assert_log_start_moved_past(log, offset)
    log.append_as_leader(_record(), leader_epoch=0)


def test_doesnt_clean_logs_with_compact_delete_policy(ctx: _Context) -> None:
    log = ctx.log_manager.get_or_create_log((NAME, 0), _config_with(cleanup_policy="compact,delete"))
    for _ in range(200):
        log.append_as_leader(bytes(singleton_records(b"test", key=b"test").buffer), leader_epoch=0)

    num_segments = log.number_of_segments
    assert log.number_of_segments > 1, "There should be more than one segment now."

    _set_last_modified(log, ctx.time.milliseconds())

    ctx.time.sleep(MAX_LOG_AGE_MS + 1)
    assert log.number_of_segments == num_segments, "number of segments shouldn't have changed"


def test_time_based_flush(ctx: _Context) -> None:
    ctx.log_manager.shutdown()
    config = _config_with(flush_ms=1000)

    ctx.log_manager = ctx.create_log_manager()
    ctx.log_manager.startup()
    log = ctx.log_manager.get_or_create_log((NAME, 0), config)
    last_flush = log.last_flush_time
    for _ in range(200):
        log.append_as_leader(_record(), leader_epoch=0)
    ctx.time.sleep(INITIAL_TASK_DELAY_MS)
    assert log.last_flush_time != last_flush, "Time based flush should have been triggered"


def test_least_loaded_assignment(ctx: _Context) -> None:
    dirs = [temp_dir(), temp_dir(), temp_dir()]
    ctx.log_manager.shutdown()
    ctx.log_manager = ctx.create_log_manager(dirs)

    # every new log goes to the least loaded directory
    for partition in range(20):
        ctx.log_manager.get_or_create_log(("test", partition), LOG_CONFIG)
        assert len(ctx.log_manager.all_logs()) == partition + 1, "We should have created the right number of logs"
        counts: dict[Path, int] = {}
        for log in ctx.log_manager.all_logs():
            counts[log.dir.parent] = counts.get(log.dir.parent, 0) + 1
        assert max(counts.values()) <= min(counts.values()) + 1, "Load should balance evenly"


def test_two_log_managers_using_same_dir_fails(ctx: _Context) -> None:
    with pytest.raises(KafkaException):
        ctx.create_log_manager()


def _verify_checkpoint_recovery(topic_partitions: list[tuple[str, int]], log_manager: LogManager,
                                log_dir: Path) -> None:
    logs = [log_manager.get_or_create_log(tp, LOG_CONFIG) for tp in topic_partitions]
    for log in logs:
        for _ in range(50):
            log.append_as_leader(_record(), leader_epoch=0)
        log.flush()

    log_manager.checkpoint_log_recovery_offsets()
    checkpoints = OffsetCheckpointFile(log_dir / RECOVERY_POINT_CHECKPOINT_FILE).read()

    for tp, log in zip(topic_partitions, logs, strict=True):
        assert checkpoints[tp] == log.recovery_point, "Recovery point should equal checkpoint"
        assert log.producer_state_manager.oldest_snapshot_offset() == log.min_snapshots_offset_to_retain()


def test_checkpoint_recovery_points(ctx: _Context) -> None:
    _verify_checkpoint_recovery([("test-a", 1), ("test-b", 1)], ctx.log_manager, ctx.log_dir)


def test_recovery_directory_mapping_with_trailing_slash(ctx: _Context) -> None:
    ctx.log_manager.shutdown()
    ctx.log_manager = create_log_manager(log_dirs=[Path(str(temp_dir()) + os.sep)])
    ctx.log_manager.startup()
    _verify_checkpoint_recovery([("test-a", 1)], ctx.log_manager, ctx.log_manager.live_log_dirs[0])


def test_recovery_directory_mapping_with_relative_directory(ctx: _Context, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    ctx.log_manager.shutdown()
    with monkeypatch.context() as m:  # the relative path made absolute against a scratch working directory
        m.chdir(tmp_path)
        relative_dir = Path("data", ctx.log_dir.name).absolute()
    ctx.log_manager = ctx.create_log_manager([relative_dir])
    ctx.log_manager.startup()
    _verify_checkpoint_recovery([("test-a", 1)], ctx.log_manager, ctx.log_manager.live_log_dirs[0])


def test_file_references_after_async_delete(ctx: _Context) -> None:
    log = ctx.log_manager.get_or_create_log((NAME, 0), LOG_CONFIG)
    active_segment = log.active_segment
    log_name = active_segment.log.file.name
    index_name = active_segment.index.file.name
    time_index_name = active_segment.time_index.file.name
    txn_index_name = active_segment.txn_index.file.name
    index_files_on_disk_before_delete = [f for f in active_segment.log.file.parent.iterdir()
                                         if f.name.endswith("index")]

    removed_log = ctx.log_manager.async_delete((NAME, 0))
    assert removed_log is not None
    removed_segment = removed_log.active_segment
    index_files_after_delete = [removed_segment.index.file, removed_segment.time_index.file,
                                removed_segment.txn_index.file]

    assert removed_segment.log.file == removed_log.dir / log_name
    assert removed_segment.index.file == removed_log.dir / index_name
    assert removed_segment.time_index.file == removed_log.dir / time_index_name
    assert removed_segment.txn_index.file == removed_log.dir / txn_index_name

    # an index type added later and not repointed would show here (if its file is made eagerly)
    for file_before_delete in index_files_on_disk_before_delete:
        file_in_index = next((f for f in index_files_after_delete if f.name == file_before_delete.name), None)
        assert file_in_index is not None, \
            f"Could not find index file {file_before_delete.name} in indexFilesAfterDelete"
        assert file_in_index.absolute() != file_before_delete.absolute(), "File reference was not updated in index"
