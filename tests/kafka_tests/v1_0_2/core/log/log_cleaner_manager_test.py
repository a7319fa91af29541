"""Port of core/src/test/scala/unit/kafka/log/LogCleanerManagerTest.scala (Kafka 1.0.2)."""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.clients.common.record.control_record_type import ControlRecordType
from kafka_edu.v1_0_2.clients.common.record.end_transaction_marker import EndTransactionMarker
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import (
    SimpleRecord,
    with_end_transaction_marker,
    with_simple_records,
    with_transactional_records,
)
from kafka_edu.v1_0_2.core.log.log import Log
from kafka_edu.v1_0_2.core.log.log_cleaner_manager import (
    LogCleanerManager,
    LogCleaningAborted,
    LogCleaningInProgress,
    LogCleaningPaused,
    cleanable_offsets,
)
from kafka_edu.v1_0_2.core.log.log_config import LogConfig
from kafka_edu.v1_0_2.core.log.log_manager import PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS
from kafka_edu.v1_0_2.core.server.log_dir_failure_channel import LogDirFailureChannel
from tests.kafka_tests.mock_scheduler import MockTimeWithScheduler
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import singleton_records, temp_dir

KAFKA = kafka_test_class(
    "1.0.2", "core/src/test/scala/unit/kafka/log/LogCleanerManagerTest.scala",
    cases=[
        "testLogsWithSegmentsToDeleteShouldNotConsiderCleanupPolicyDeleteLogs",
        "testLogsWithSegmentsToDeleteShouldConsiderCleanupPolicyCompactDeleteLogs",
        "testLogsWithSegmentsToDeleteShouldNotConsiderCleanupPolicyCompactLogs",
        "testCleanableOffsetsForNone",
        "testCleanableOffsetsForTime",
        "testCleanableOffsetsForShortTime",
        "testUndecidedTransactionalDataNotCleanable",
        "testDoneCleaning",
        "testDoneDeleting",
    ],
)

LOG_PROPS = {"segment.bytes": 1024, "segment.index.bytes": 1024, "cleanup.policy": "compact"}
TP = ("log", 0)


class _Context:
    def __init__(self) -> None:
        self.tmp_dir = temp_dir()
        self.log_dir = self.tmp_dir / f"kafka-{random.randrange(1000000)}"  # TestUtils.randomPartitionLogDir
        self.log_dir.mkdir()
        self.time = MockTimeWithScheduler(1400000000000, 1000)

    def config(self, **overrides: object) -> LogConfig:
        return LogConfig.from_props({**LOG_PROPS, **overrides})

    def make_log(self, config: LogConfig, dir: Path | None = None) -> Log:
        return Log(dir or self.log_dir, config, log_start_offset=0, recovery_point=0, scheduler=self.time.scheduler,
                   time_ms=self.time.milliseconds, log_dir_failure_channel=LogDirFailureChannel(10),
                   max_producer_id_expiration_ms=60 * 60 * 1000,
                   producer_id_expiration_check_interval_ms=PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS)

    def create_log(self, segment_size: int, cleanup_policy: str) -> Log:
        config = LogConfig.from_props({"segment.bytes": segment_size, "retention.ms": 1,
                                       "cleanup.policy": cleanup_policy})
        return self.make_log(config, self.log_dir / "log-0")

    def create_cleaner_manager(self, log: Log) -> LogCleanerManager:
        return LogCleanerManager([self.log_dir], {TP: log}, None)


@pytest.fixture
def ctx() -> Iterator[_Context]:
    context = _Context()
    try:
        yield context
    finally:
        shutil.rmtree(context.tmp_dir, ignore_errors=True)


def records(key: int, value: int, timestamp: int):  # noqa: ANN201
    return with_simple_records([SimpleRecord(str(value).encode(), str(key).encode(), timestamp)])


def test_logs_with_segments_to_delete_should_not_consider_cleanup_policy_delete_logs(ctx: _Context) -> None:
    size = singleton_records(b"test").size_in_bytes()
    log = ctx.create_log(size * 5, "delete")
    assert len(ctx.create_cleaner_manager(log).deletable_logs()) == 0


def test_logs_with_segments_to_delete_should_consider_cleanup_policy_compact_delete_logs(ctx: _Context) -> None:
    size = singleton_records(b"test", key=b"test").size_in_bytes()
    log = ctx.create_log(size * 5, "compact,delete")
    assert len(ctx.create_cleaner_manager(log).deletable_logs()) == 1


def test_logs_with_segments_to_delete_should_not_consider_cleanup_policy_compact_logs(ctx: _Context) -> None:
    size = singleton_records(b"test", key=b"test").size_in_bytes()
    log = ctx.create_log(size * 5, "compact")
    assert len(ctx.create_cleaner_manager(log).deletable_logs()) == 0


def test_cleanable_offsets_for_none(ctx: _Context) -> None:
    log = ctx.make_log(ctx.config(**{"segment.bytes": 1024}))
    while log.number_of_segments < 8:
        log.append_as_leader(records(log.log_end_offset, log.log_end_offset, ctx.time.milliseconds()), 0)
    first, uncleanable = cleanable_offsets(log, TP, {TP: 0}, ctx.time.milliseconds())
    assert first == 0, "The first cleanable offset starts at the beginning of the log."
    assert uncleanable == log.active_segment.base_offset, "The first uncleanable offset begins with the active segment."


def test_cleanable_offsets_for_time(ctx: _Context) -> None:
    compaction_lag = 60 * 60 * 1000
    log = ctx.make_log(ctx.config(**{"segment.bytes": 1024, "min.compaction.lag.ms": compaction_lag}))
    t0 = ctx.time.milliseconds()
    while log.number_of_segments < 4:
        log.append_as_leader(records(log.log_end_offset, log.log_end_offset, t0), 0)
    active_seg_at_t0 = log.active_segment
    ctx.time.sleep(compaction_lag + 1)
    t1 = ctx.time.milliseconds()
    while log.number_of_segments < 8:
        log.append_as_leader(records(log.log_end_offset, log.log_end_offset, t1), 0)
    first, uncleanable = cleanable_offsets(log, TP, {TP: 0}, ctx.time.milliseconds())
    assert first == 0
    assert uncleanable == active_seg_at_t0.base_offset


def test_cleanable_offsets_for_short_time(ctx: _Context) -> None:
    compaction_lag = 60 * 60 * 1000
    log = ctx.make_log(ctx.config(**{"segment.bytes": 1024, "min.compaction.lag.ms": compaction_lag}))
    t0 = ctx.time.milliseconds()
    while log.number_of_segments < 8:
        log.append_as_leader(records(log.log_end_offset, log.log_end_offset, t0), 0)
    ctx.time.sleep(compaction_lag + 1)
    first, uncleanable = cleanable_offsets(log, TP, {TP: 0}, ctx.time.milliseconds())
    assert first == 0
    assert uncleanable == log.active_segment.base_offset


def test_undecided_transactional_data_not_cleanable(ctx: _Context) -> None:
    compaction_lag = 60 * 60 * 1000
    log = ctx.make_log(ctx.config(**{"segment.bytes": 1024, "min.compaction.lag.ms": compaction_lag}))
    producer_id, producer_epoch, sequence = 15, 0, 0
    now = ctx.time.milliseconds()
    log.append_as_leader(with_transactional_records([SimpleRecord(b"a", b"1", now), SimpleRecord(b"b", b"2", now)],
                                                    producer_id, producer_epoch, sequence), 0)
    log.append_as_leader(with_transactional_records([SimpleRecord(b"c", b"3", ctx.time.milliseconds())],
                                                    producer_id, producer_epoch, sequence + 2), 0)
    log.roll()
    log.on_high_watermark_incremented(3)

    ctx.time.sleep(compaction_lag + 1)
    # past the compaction lag, but the transaction is undecided
    assert cleanable_offsets(log, TP, {TP: 0}, ctx.time.milliseconds()) == (0, 0)

    log.append_as_leader(with_end_transaction_marker(producer_id, producer_epoch,
                                                     EndTransactionMarker(ControlRecordType.ABORT, 15),
                                                     timestamp=ctx.time.milliseconds()), 0, is_from_client=False)
    log.roll()
    log.on_high_watermark_incremented(4)
    # the first segment is cleanable at once
    assert cleanable_offsets(log, TP, {TP: 0}, ctx.time.milliseconds()) == (0, 3)

    ctx.time.sleep(compaction_lag + 1)
    # the second after the compaction lag
    assert cleanable_offsets(log, TP, {TP: 0}, ctx.time.milliseconds()) == (0, 4)


def test_done_cleaning(ctx: _Context) -> None:
    log = ctx.make_log(ctx.config(**{"segment.bytes": 1024}))
    while log.number_of_segments < 8:
        log.append_as_leader(records(log.log_end_offset, log.log_end_offset, ctx.time.milliseconds()), 0)
    cleaner_manager = ctx.create_cleaner_manager(log)

    with pytest.raises(IllegalStateException):
        cleaner_manager.done_cleaning(TP, log.dir, 1)
    cleaner_manager.set_cleaning_state(TP, LogCleaningPaused)
    with pytest.raises(IllegalStateException):
        cleaner_manager.done_cleaning(TP, log.dir, 1)

    cleaner_manager.set_cleaning_state(TP, LogCleaningInProgress)
    cleaner_manager.done_cleaning(TP, log.dir, 1)
    assert cleaner_manager.cleaning_state(TP) is None
    assert TP in cleaner_manager.all_cleaner_checkpoints()

    cleaner_manager.set_cleaning_state(TP, LogCleaningAborted)
    cleaner_manager.done_cleaning(TP, log.dir, 1)
    assert cleaner_manager.cleaning_state(TP) is LogCleaningPaused
    assert TP in cleaner_manager.all_cleaner_checkpoints()


def test_done_deleting(ctx: _Context) -> None:
    size = singleton_records(b"test", key=b"test").size_in_bytes()
    log = ctx.create_log(size * 5, "compact,delete")
    cleaner_manager = ctx.create_cleaner_manager(log)

    with pytest.raises(IllegalStateException):
        cleaner_manager.done_deleting(TP)
    cleaner_manager.set_cleaning_state(TP, LogCleaningPaused)
    with pytest.raises(IllegalStateException):
        cleaner_manager.done_deleting(TP)

    cleaner_manager.set_cleaning_state(TP, LogCleaningInProgress)
    cleaner_manager.done_deleting(TP)
    assert cleaner_manager.cleaning_state(TP) is None

    cleaner_manager.set_cleaning_state(TP, LogCleaningAborted)
    cleaner_manager.done_deleting(TP)
    assert cleaner_manager.cleaning_state(TP) is LogCleaningPaused
