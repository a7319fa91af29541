"""Port of core/src/test/scala/unit/kafka/log/LogLoaderTest.scala (Kafka 3.9).

Kafka's fields (a temp dir, a partition log dir in it, MockTime with its scheduler, the logs to close) are the `ctx`
fixture. Mockito mocks of ProducerStateManager are unittest.mock autospecs answering Mockito's defaults (None for an
Optional, 0, False); a Mockito spy of a segment is the segment with its read/recover wrapped on the instance.
Metrics (BrokerTopicStats) are not ported: logs get no stats object.
"""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record_batch import (
    CURRENT_MAGIC_VALUE,
    MAGIC_VALUE_V1,
    NO_PARTITION_LEADER_EPOCH,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    NO_SEQUENCE,
    NO_TIMESTAMP,
)
from kafka_edu.v3_9.clients.common.record.record_version import RecordVersion
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from kafka_edu.v3_9.clients.common.utils import utils
from kafka_edu.v3_9.core.log import local_log, unified_log
from kafka_edu.v3_9.core.log.local_log import LocalLog
from kafka_edu.v3_9.core.log.log_loader import LogLoader
from kafka_edu.v3_9.core.log.unified_log import UnifiedLog
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from kafka_edu.v3_9.server_common.server.util.mock_time import MockTime
from kafka_edu.v3_9.storage.storage.internals.log import log_file_utils
from kafka_edu.v3_9.storage.storage.internals.log.aborted_txn import AbortedTxn
from kafka_edu.v3_9.storage.storage.internals.log.epoch_entry import EpochEntry
from kafka_edu.v3_9.storage.storage.internals.log.log_config import LogConfig
from kafka_edu.v3_9.storage.storage.internals.log.log_dir_failure_channel import LogDirFailureChannel
from kafka_edu.v3_9.storage.storage.internals.log.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.storage.storage.internals.log.log_segment import LogSegment
from kafka_edu.v3_9.storage.storage.internals.log.log_segments import LogSegments
from kafka_edu.v3_9.storage.storage.internals.log.log_start_offset_increment_reason import (
    LogStartOffsetIncrementReason,
)
from kafka_edu.v3_9.storage.storage.internals.log.offset_index import OffsetIndex
from kafka_edu.v3_9.storage.storage.internals.log.producer_state_manager import ProducerStateManager
from kafka_edu.v3_9.storage.storage.internals.log.producer_state_manager_config import ProducerStateManagerConfig
from kafka_edu.v3_9.storage.storage.internals.log.snapshot_file import SnapshotFile
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.core.log import log_test_utils as LogTestUtils

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/log/LogLoaderTest.scala",
    cases=[
        "testLogRecoveryIsCalledUponBrokerCrash",
        "testProducerSnapshotsRecoveryAfterUncleanShutdownV1",
        "testProducerSnapshotsRecoveryAfterUncleanShutdownCurrentMessageFormat",
        "testSkipLoadingIfEmptyProducerStateBeforeTruncation",
        "testRecoverAfterNonMonotonicCoordinatorEpochWrite",
        "testSkipTruncateAndReloadIfOldMessageFormatAndNoCleanShutdown",
        "testSkipTruncateAndReloadIfOldMessageFormatAndCleanShutdown",
        "testSkipTruncateAndReloadIfNewMessageFormatAndCleanShutdown",
        "testLoadProducersAfterDeleteRecordsMidSegment",
        "testLoadingLogKeepsLargestStrayProducerStateSnapshot",
        "testLoadProducersAfterDeleteRecordsOnSegment",
        "testLogRecoversToCorrectOffset",
        "testIndexRebuild",
        "testRebuildTimeIndexForOldMessages",
        "testCorruptIndexRebuild",
        "testBogusIndexSegmentsAreRemoved",
        "testReopenThenTruncate",
        "testOpenDeletesObsoleteFiles",
        "testCorruptLog",
        "testOverCompactedLogRecovery",
        "testLeaderEpochCacheClearedAfterStaticMessageFormatDowngrade",
        "testOverCompactedLogRecoveryMultiRecord",
        "testOverCompactedLogRecoveryMultiRecordV1",
        "testRecoveryOfSegmentWithOffsetOverflow",
        "testRecoveryAfterCrashDuringSplitPhase1",
        "testRecoveryAfterCrashDuringSplitPhase2",
        "testRecoveryAfterCrashDuringSplitPhase3",
        "testRecoveryAfterCrashDuringSplitPhase4",
        "testRecoveryAfterCrashDuringSplitPhase5",
        "testCleanShutdownFile",
        "testLogRecoversForLeaderEpoch",
        "testFullTransactionIndexRecovery",
        "testRecoverOnlyLastSegment",
        "testRecoverLastSegmentWithNoSnapshots",
        "testLogEndLessThanStartAfterReopen",
        "testCorruptedLogRecoveryDoesNotDeleteProducerStateSnapshotsPostRecovery",
        "testRecoverWithEmptyActiveSegment",
        "testLogStartOffsetWhenRemoteStorageIsEnabled",
    ],
    not_ported={
        "testLogRecoveryIsCalledUponBrokerCrash": "needs the 3.9 LogManager (loadLogs, the clean shutdown file "
                                                  "handler, offline log dirs): not ported yet",
    },
)

PRODUCER_ID_EXPIRATION_MS_DEFAULT = 86400000  # TransactionLogConfigs.PRODUCER_ID_EXPIRATION_MS_DEFAULT
PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_DEFAULT = 600000
INT_MAX = 2**31 - 1
LONG_MAX = 2**63 - 1


@dataclass
class _Ctx:
    tmp_dir: Path
    log_dir: Path
    mock_time: MockTime = field(default_factory=MockTime)
    max_transaction_timeout_ms: int = 5 * 60 * 1000
    producer_state_manager_config: ProducerStateManagerConfig = field(
        default_factory=lambda: ProducerStateManagerConfig(PRODUCER_ID_EXPIRATION_MS_DEFAULT, False))
    producer_id_expiration_check_interval_ms: int = PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_DEFAULT
    logs_to_close: list[UnifiedLog] = field(default_factory=list)


def _random_partition_log_dir(parent_dir: Path) -> Path:
    """TestUtils.randomPartitionLogDir: a new directory named topic-partition under `parent_dir`."""
    while True:
        d = parent_dir / f"kafka-{random.randrange(1_000_000)}"
        try:
            d.mkdir()
            return d
        except FileExistsError:
            continue


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[_Ctx]:
    c = _Ctx(tmp_path, _random_partition_log_dir(tmp_path))
    yield c
    for log in c.logs_to_close:
        try:
            log.close()
        except Exception:  # Utils.closeQuietly
            pass
    shutil.rmtree(c.tmp_dir, ignore_errors=True)


def create_log(ctx: _Ctx, dir: Path, config: LogConfig, log_start_offset: int = 0, recovery_point: int = 0,
               scheduler: Any = None, time: Any = None, max_producer_id_expiration_ms: int | None = None,
               last_shutdown_clean: bool = True) -> UnifiedLog:
    log = LogTestUtils.create_log(
        dir, config, None, scheduler if scheduler is not None else ctx.mock_time.scheduler,
        time if time is not None else ctx.mock_time, log_start_offset, recovery_point,
        ctx.max_transaction_timeout_ms,
        ProducerStateManagerConfig(max_producer_id_expiration_ms if max_producer_id_expiration_ms is not None
                                   else ctx.producer_state_manager_config.producer_id_expiration_ms(), False),
        ctx.producer_id_expiration_check_interval_ms, last_shutdown_clean)
    ctx.logs_to_close.append(log)
    return log


def create_log_with_offset_overflow(ctx: _Ctx, log_config: LogConfig) -> tuple[UnifiedLog, LogSegment]:
    LogTestUtils.initialize_log_dir_with_overflowed_segment(ctx.log_dir)

    log = create_log(ctx, ctx.log_dir, log_config, recovery_point=LONG_MAX)
    segment_with_overflow = LogTestUtils.first_overflow_segment(log)
    if segment_with_overflow is None:
        raise AssertionError("Failed to create log with a segment which has overflowed offsets")
    return log, segment_with_overflow


def recover_and_check(ctx: _Ctx, config: LogConfig, expected_keys: Iterable[int]) -> UnifiedLog:
    # only after a hard reset
    recovered_log = LogTestUtils.recover_and_check(ctx.log_dir, config, expected_keys, None, ctx.mock_time,
                                                   ctx.mock_time.scheduler)
    ctx.logs_to_close.append(recovered_log)
    return recovered_log


# --- kafka.utils.TestUtils, the 3.9 record helpers ---

def _records(simple_records: Iterable[SimpleRecord], magic_value: int = CURRENT_MAGIC_VALUE,
             codec: Any = Compression.NONE, producer_id: int = NO_PRODUCER_ID,
             producer_epoch: int = NO_PRODUCER_EPOCH, sequence: int = NO_SEQUENCE, base_offset: int = 0,
             partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH) -> MemoryRecords:
    """TestUtils.records."""
    return MemoryRecords.with_records(codec, *simple_records, magic=magic_value, initial_offset=base_offset,
                                      producer_id=producer_id, producer_epoch=producer_epoch, base_sequence=sequence,
                                      partition_leader_epoch=partition_leader_epoch)


def _singleton_records(value: bytes | None, key: bytes | None = None, codec: Any = Compression.NONE,
                       timestamp: int = NO_TIMESTAMP, magic_value: int = CURRENT_MAGIC_VALUE) -> MemoryRecords:
    """TestUtils.singletonRecords."""
    return _records([SimpleRecord.of(timestamp, key, value)], magic_value=magic_value, codec=codec)


def _random_bytes(size: int) -> bytes:
    return random.randbytes(size)


def _append_nonsense_to_file(file: Path, size: int) -> None:
    """TestUtils.appendNonsenseToFile."""
    with open(file, "ab") as f:
        f.write(bytes(random.randrange(256) for _ in range(size)))


def _singleton_records_with_leader_epoch(ctx: _Ctx, value: bytes, leader_epoch: int, offset: int,
                                         key: bytes | None = None, codec: Any = Compression.NONE,
                                         timestamp: int = NO_TIMESTAMP,
                                         magic_value: int = CURRENT_MAGIC_VALUE) -> MemoryRecords:
    """One record in a batch carrying `leader_epoch`."""
    builder = MemoryRecords.builder(bytearray(), magic_value, codec, TimestampType.CREATE_TIME, offset,
                                    ctx.mock_time.milliseconds(), partition_leader_epoch=leader_epoch)
    builder.append(SimpleRecord.of(timestamp, key, value))
    return builder.build()


def _overwrite(file: Path, data: str) -> None:
    """new BufferedWriter(new FileWriter(file)).write(data): the file's content replaced."""
    with open(file, "w") as f:
        f.write(data)


# --- Mockito stand-ins ---

def _mock_producer_state_manager() -> Any:
    """mock(classOf[ProducerStateManager]): every method answers Mockito's default (None for an Optional, 0 for
    a number, False for a boolean, empty for a collection)."""
    m = mock.create_autospec(ProducerStateManager, instance=True)
    _apply_mockito_defaults(m)
    return m


def _apply_mockito_defaults(m: Any) -> None:
    for name, value in (("is_empty", False), ("latest_snapshot_offset", None), ("oldest_snapshot_offset", None),
                        ("map_end_offset", 0), ("first_unstable_offset", None), ("first_undecided_offset", None),
                        ("take_snapshot", None), ("last_entry", None), ("active_producers", {}),
                        ("producer_id_count", 0), ("has_late_transaction", False), ("snapshot_file_for_offset", None),
                        ("fetch_snapshot", None), ("remove_and_mark_snapshot_for_deletion", None),
                        ("max_transaction_timeout_ms", 0), ("producer_state_manager_config", None),
                        ("verification_state_entry", None)):
        getattr(m, name).return_value = value


def _reset(m: Any) -> None:
    """Mockito.reset: calls and stubbing forgotten."""
    m.reset_mock(return_value=True, side_effect=True)
    _apply_mockito_defaults(m)


def _times(method: Any, *args: Any) -> int:
    """How many calls of `method` had exactly `args` (mock.ANY matches anything)."""
    return sum(1 for c in method.call_args_list if c.args == args and not c.kwargs)


# --- the cases ---

def test_producer_snapshots_recovery_after_unclean_shutdown_v1(ctx: _Ctx) -> None:
    min_supported_for_v1 = next(v for v in MetadataVersion
                                if v.highest_supported_record_version() == RecordVersion.V1)
    _test_producer_snapshots_recovery_after_unclean_shutdown(ctx, min_supported_for_v1.version())


def test_producer_snapshots_recovery_after_unclean_shutdown_current_message_format(ctx: _Ctx) -> None:
    _test_producer_snapshots_recovery_after_unclean_shutdown(ctx, MetadataVersion.latest_testing().version())


def _test_producer_snapshots_recovery_after_unclean_shutdown(ctx: _Ctx, message_format_version: str) -> None:
    log_config = LogConfig({"segment.bytes": "640", "message.format.version": message_format_version})
    log = create_log(ctx, ctx.log_dir, log_config)
    assert log.oldest_producer_snapshot_offset() is None

    for i in range(101):
        record = SimpleRecord(str(i).encode(), timestamp=ctx.mock_time.milliseconds())
        log.append_as_leader(_records([record]), leader_epoch=0)

    assert len(log.log_segments()) >= 5
    segment_offsets = [s.base_offset() for s in log.log_segments()]
    active_segment_offset = segment_offsets[-1]

    # the recovery point sits past a segment's base offset, two segments before the active one
    offset_for_segment_after_recovery_point = segment_offsets[-3]
    offset_for_recovery_point_segment = segment_offsets[-4]
    seg_offsets_before_recovery = {o for o in segment_offsets if o < offset_for_recovery_point_segment}
    seg_offsets_after_recovery = {o for o in segment_offsets if o >= offset_for_recovery_point_segment}
    recovery_point = offset_for_recovery_point_segment + 1
    assert recovery_point < offset_for_segment_after_recovery_point
    log.close()

    segments_with_reads: set[int] = set()
    recovered_segments: set[int] = set()
    expected_segments_with_reads: set[int] = set()
    expected_snapshot_offsets: set[int] = set()

    if log_config.message_format_version.is_less_than(MetadataVersion.IBP_0_11_0_IV0):
        expected_segments_with_reads.add(active_segment_offset)
        expected_snapshot_offsets.update([s.base_offset() for s in log.log_segments()][-2:] + [log.log_end_offset()])
    else:
        expected_segments_with_reads.update(seg_offsets_before_recovery | {active_segment_offset})
        expected_snapshot_offsets.update([s.base_offset() for s in log.log_segments()][-4:] + [log.log_end_offset()])

    def create_log_with_intercepted_reads(recovery_point: int) -> UnifiedLog:
        topic_partition = unified_log.parse_topic_partition_name(ctx.log_dir)
        log_dir_failure_channel = LogDirFailureChannel(10)

        # every segment added gets its reads and recoveries recorded (Kafka spies on it)
        class InterceptedLogSegments(LogSegments):
            def add(self, segment: LogSegment) -> LogSegment | None:
                read, recover = segment.read, segment.recover

                def intercepted_read(*args: Any, **kwargs: Any) -> Any:
                    segments_with_reads.add(segment.base_offset())
                    return read(*args, **kwargs)

                def intercepted_recover(*args: Any, **kwargs: Any) -> Any:
                    recovered_segments.add(segment.base_offset())
                    return recover(*args, **kwargs)
                segment.read = intercepted_read  # type: ignore[method-assign]
                segment.recover = intercepted_recover  # type: ignore[method-assign]
                return super().add(segment)

        intercepted_log_segments = InterceptedLogSegments(topic_partition)
        leader_epoch_cache = unified_log.maybe_create_leader_epoch_cache(
            ctx.log_dir, topic_partition, log_dir_failure_channel, log_config.record_version(), "", None,
            ctx.mock_time.scheduler)
        producer_state_manager = ProducerStateManager(topic_partition, ctx.log_dir, 5 * 60 * 1000,
                                                      ctx.producer_state_manager_config, ctx.mock_time)
        log_loader = LogLoader(ctx.log_dir, topic_partition, log_config, ctx.mock_time.scheduler, ctx.mock_time,
                               log_dir_failure_channel, False, intercepted_log_segments, 0, recovery_point,
                               leader_epoch_cache, producer_state_manager)
        offsets = log_loader.load()
        local_log_ = LocalLog(ctx.log_dir, log_config, intercepted_log_segments, offsets.recovery_point,
                              offsets.next_offset_metadata, ctx.mock_time.scheduler, ctx.mock_time, topic_partition,
                              log_dir_failure_channel)
        return UnifiedLog(offsets.log_start_offset, local_log_, None,
                          PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_DEFAULT, leader_epoch_cache,
                          producer_state_manager, None, True)

    # keep the snapshots of the last 2 segments only
    log.producer_state_manager.delete_snapshots_before(segment_offsets[-2])
    log = create_log_with_intercepted_reads(offset_for_recovery_point_segment)
    # every segment is reloaded: the recovery point is behind the producer snapshots (before KAFKA-5829)
    assert segments_with_reads == expected_segments_with_reads
    assert recovered_segments == seg_offsets_after_recovery
    assert set(LogTestUtils.list_producer_snapshot_offsets(ctx.log_dir)) == expected_snapshot_offsets
    log.close()
    segments_with_reads.clear()
    recovered_segments.clear()

    # delete only the snapshots below the recovery point's segment (KAFKA-5829): no segment is read but the last
    log.producer_state_manager.delete_snapshots_before(offset_for_recovery_point_segment)
    log = create_log_with_intercepted_reads(recovery_point=recovery_point)
    assert segments_with_reads == {active_segment_offset}
    assert recovered_segments == seg_offsets_after_recovery
    assert set(LogTestUtils.list_producer_snapshot_offsets(ctx.log_dir)) == expected_snapshot_offsets

    log.close()


def _load_with_mock(ctx: _Ctx, state_manager: Any, config: LogConfig, had_clean_shutdown: bool,
                    log_dir_failure_channel: LogDirFailureChannel | None) -> UnifiedLog:
    """A LogLoader run over `state_manager`, then the UnifiedLog built on what it loaded."""
    topic_partition = unified_log.parse_topic_partition_name(ctx.log_dir)
    segments = LogSegments(topic_partition)
    leader_epoch_cache = unified_log.maybe_create_leader_epoch_cache(
        ctx.log_dir, topic_partition, log_dir_failure_channel, config.record_version(), "", None,
        ctx.mock_time.scheduler)
    offsets = LogLoader(ctx.log_dir, topic_partition, config, ctx.mock_time.scheduler, ctx.mock_time,
                        log_dir_failure_channel, had_clean_shutdown, segments, 0, 0, leader_epoch_cache,
                        state_manager).load()
    local_log_ = LocalLog(ctx.log_dir, config, segments, offsets.recovery_point, offsets.next_offset_metadata,
                          ctx.mock_time.scheduler, ctx.mock_time, topic_partition, log_dir_failure_channel)
    log = UnifiedLog(offsets.log_start_offset, local_log_, None, 30000, leader_epoch_cache, state_manager, None,
                     True)
    ctx.logs_to_close.append(log)
    return log


def test_skip_loading_if_empty_producer_state_before_truncation(ctx: _Ctx) -> None:
    max_transaction_timeout_ms = 60000
    producer_state_manager_config = ProducerStateManagerConfig(300000, False)

    state_manager = _mock_producer_state_manager()
    state_manager.producer_state_manager_config.return_value = producer_state_manager_config
    state_manager.max_transaction_timeout_ms.return_value = max_transaction_timeout_ms
    state_manager.latest_snapshot_offset.return_value = None
    state_manager.map_end_offset.return_value = 0
    state_manager.is_empty.return_value = True
    state_manager.first_unstable_offset.return_value = None

    log = _load_with_mock(ctx, state_manager, LogConfig({}), False, LogDirFailureChannel(1))

    assert _times(state_manager.update_map_end_offset, 0) == 1
    assert state_manager.remove_stray_snapshots.call_count == 1
    assert _times(state_manager.take_snapshot) == 1
    assert _times(state_manager.truncate_and_reload, 0, 0, mock.ANY) == 1

    # append some messages
    _reset(state_manager)
    state_manager.first_unstable_offset.return_value = None

    log.append_as_leader(_records([SimpleRecord(b"a")]), leader_epoch=0)
    log.append_as_leader(_records([SimpleRecord(b"b")]), leader_epoch=0)

    assert _times(state_manager.update_map_end_offset, 1) == 1
    assert _times(state_manager.update_map_end_offset, 2) == 1

    # now truncate
    _reset(state_manager)
    state_manager.first_unstable_offset.return_value = None
    state_manager.latest_snapshot_offset.return_value = None
    state_manager.is_empty.return_value = True
    state_manager.map_end_offset.return_value = 2
    # the truncation resets the map end offset to 0
    state_manager.map_end_offset.return_value = 0

    log.truncate_to(1)

    assert _times(state_manager.truncate_and_reload, 0, 1, mock.ANY) == 1
    assert _times(state_manager.update_map_end_offset, 1) == 1
    assert _times(state_manager.take_snapshot) == 2


def test_recover_after_non_monotonic_coordinator_epoch_write(ctx: _Ctx) -> None:
    # KAFKA-9144: a coordinator epoch may go backwards; recovery takes the latest write
    producer_id = 1
    coordinator_epoch = 5
    log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 1024 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)
    epoch = 0

    first_append_timestamp = ctx.mock_time.milliseconds()
    LogTestUtils.append_end_txn_marker_as_leader(log, producer_id, epoch, ControlRecordType.ABORT,
                                                 first_append_timestamp, coordinator_epoch=coordinator_epoch)
    assert log.producer_state_manager.last_entry(producer_id).last_timestamp() == first_append_timestamp

    max_producer_id_expiration_ms = PRODUCER_ID_EXPIRATION_MS_DEFAULT
    ctx.mock_time.sleep(max_producer_id_expiration_ms)
    assert log.producer_state_manager.last_entry(producer_id) is None

    second_append_timestamp = ctx.mock_time.milliseconds()
    LogTestUtils.append_end_txn_marker_as_leader(log, producer_id, epoch, ControlRecordType.ABORT,
                                                 second_append_timestamp, coordinator_epoch=coordinator_epoch - 1)

    log.close()

    # recovery from the log start
    log = create_log(ctx, ctx.log_dir, log_config, recovery_point=0, last_shutdown_clean=False)
    assert log.producer_state_manager.last_entry(producer_id).last_timestamp() == second_append_timestamp
    log.close()


def _skip_truncate_and_reload_state_manager(latest_snapshot_offset_empty: bool = False) -> Any:
    state_manager = _mock_producer_state_manager()
    if latest_snapshot_offset_empty:
        state_manager.latest_snapshot_offset.return_value = None
    state_manager.is_empty.return_value = True
    state_manager.first_unstable_offset.return_value = None
    state_manager.producer_state_manager_config.return_value = ProducerStateManagerConfig(300000, False)
    state_manager.max_transaction_timeout_ms.return_value = 60000
    return state_manager


def test_skip_truncate_and_reload_if_old_message_format_and_no_clean_shutdown(ctx: _Ctx) -> None:
    state_manager = _skip_truncate_and_reload_state_manager()
    config = LogConfig({"message.format.version": "0.10.2"})
    _load_with_mock(ctx, state_manager, config, False, None)

    assert state_manager.remove_stray_snapshots.call_count == 1
    assert _times(state_manager.update_map_end_offset, 0) == 2
    assert _times(state_manager.take_snapshot) == 2
    assert state_manager.is_empty.call_count == 1
    assert state_manager.first_unstable_offset.call_count == 1


def test_skip_truncate_and_reload_if_old_message_format_and_clean_shutdown(ctx: _Ctx) -> None:
    state_manager = _skip_truncate_and_reload_state_manager()
    config = LogConfig({"message.format.version": "0.10.2"})
    _load_with_mock(ctx, state_manager, config, True, None)

    assert state_manager.remove_stray_snapshots.call_count == 1
    assert _times(state_manager.update_map_end_offset, 0) == 2
    assert _times(state_manager.take_snapshot) == 2
    assert state_manager.is_empty.call_count == 1
    assert state_manager.first_unstable_offset.call_count == 1


def test_skip_truncate_and_reload_if_new_message_format_and_clean_shutdown(ctx: _Ctx) -> None:
    state_manager = _skip_truncate_and_reload_state_manager(latest_snapshot_offset_empty=True)
    config = LogConfig({"message.format.version": "0.11.0"})
    _load_with_mock(ctx, state_manager, config, True, None)

    assert state_manager.remove_stray_snapshots.call_count == 1
    assert _times(state_manager.update_map_end_offset, 0) == 2
    assert _times(state_manager.take_snapshot) == 2
    assert state_manager.is_empty.call_count == 1
    assert state_manager.first_unstable_offset.call_count == 1


def test_load_producers_after_delete_records_mid_segment(ctx: _Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=2048 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)
    pid1 = 1
    pid2 = 2
    epoch = 0

    log.append_as_leader(_records([SimpleRecord(b"a", timestamp=ctx.mock_time.milliseconds())], producer_id=pid1,
                                  producer_epoch=epoch, sequence=0), leader_epoch=0)
    log.append_as_leader(_records([SimpleRecord(b"b", timestamp=ctx.mock_time.milliseconds())], producer_id=pid2,
                                  producer_epoch=epoch, sequence=0), leader_epoch=0)
    assert len(log.active_producers_with_last_sequence()) == 2

    log.update_high_watermark(log.log_end_offset())
    log.maybe_increment_log_start_offset(1, LogStartOffsetIncrementReason.ClientRecordDeletion)

    # deleting records keeps the producer state
    assert len(log.active_producers_with_last_sequence()) == 2
    retained_last_seq_opt = log.active_producers_with_last_sequence().get(pid2)
    assert retained_last_seq_opt is not None
    assert retained_last_seq_opt == 0

    log.close()

    # the log start offset did not move past a segment: the snapshots remain and the state is rebuilt
    reloaded_log = create_log(ctx, ctx.log_dir, log_config, log_start_offset=1, last_shutdown_clean=False)
    assert len(reloaded_log.active_producers_with_last_sequence()) == 2
    reloaded_last_seq_opt = log.active_producers_with_last_sequence().get(pid2)
    assert reloaded_last_seq_opt == retained_last_seq_opt


def test_loading_log_keeps_largest_stray_producer_state_snapshot(ctx: _Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=2048 * 5, retention_bytes=0, retention_ms=1000 * 60,
                                                file_delete_delay_ms=0)
    log = create_log(ctx, ctx.log_dir, log_config)
    pid1 = 1
    epoch = 0

    log.append_as_leader(_records([SimpleRecord(b"a")], producer_id=pid1, producer_epoch=epoch, sequence=0),
                         leader_epoch=0)
    log.roll()
    log.append_as_leader(_records([SimpleRecord(b"b")], producer_id=pid1, producer_epoch=epoch, sequence=1),
                         leader_epoch=0)
    log.roll()

    log.append_as_leader(_records([SimpleRecord(b"c")], producer_id=pid1, producer_epoch=epoch, sequence=2),
                         leader_epoch=0)
    log.append_as_leader(_records([SimpleRecord(b"d")], producer_id=pid1, producer_epoch=epoch, sequence=3),
                         leader_epoch=0)

    # closed: 3 segments
    log.close()
    assert len(log.log_segments()) == 3
    # 3 snapshots: two for the first two segments, one written when closing
    assert sorted(s.offset for s in ProducerStateManager.list_snapshot_files(ctx.log_dir)) == [1, 2, 4]
    # a stray snapshot inside the log (offset 3) goes when the log loads
    stray_snapshot_file = log_file_utils.producer_snapshot_file(ctx.log_dir, 3)
    stray_snapshot_file.touch(exist_ok=False)
    assert sorted(s.offset for s in ProducerStateManager.list_snapshot_files(ctx.log_dir)) == [1, 2, 3, 4]

    create_log(ctx, ctx.log_dir, log_config, last_shutdown_clean=False)
    # the stray one is gone, the largest (4) stays
    assert sorted(s.offset for s in ProducerStateManager.list_snapshot_files(ctx.log_dir)) == [1, 2, 4]


def test_load_producers_after_delete_records_on_segment(ctx: _Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=2048 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)
    pid1 = 1
    pid2 = 2
    epoch = 0

    log.append_as_leader(_records([SimpleRecord(b"a", timestamp=ctx.mock_time.milliseconds())], producer_id=pid1,
                                  producer_epoch=epoch, sequence=0), leader_epoch=0)
    log.roll()
    log.append_as_leader(_records([SimpleRecord(b"b", timestamp=ctx.mock_time.milliseconds())], producer_id=pid2,
                                  producer_epoch=epoch, sequence=0), leader_epoch=0)

    assert len(log.log_segments()) == 2
    assert len(log.active_producers_with_last_sequence()) == 2

    log.update_high_watermark(log.log_end_offset())
    log.maybe_increment_log_start_offset(1, LogStartOffsetIncrementReason.ClientRecordDeletion)
    log.delete_old_segments()

    # deleting records keeps the producer state
    assert len(log.log_segments()) == 1
    assert len(log.active_producers_with_last_sequence()) == 2
    retained_last_seq_opt = log.active_producers_with_last_sequence().get(pid2)
    assert retained_last_seq_opt is not None
    assert retained_last_seq_opt == 0

    log.close()

    # reloaded, the state of the deleted segment's producer is not rebuilt
    reloaded_log = create_log(ctx, ctx.log_dir, log_config, log_start_offset=1, last_shutdown_clean=False)
    assert len(reloaded_log.active_producers_with_last_sequence()) == 1
    reloaded_entry_opt = log.active_producers_with_last_sequence().get(pid2)
    assert reloaded_entry_opt == retained_last_seq_opt


def test_log_recovers_to_correct_offset(ctx: _Ctx) -> None:
    """Append, then reopen with and without recovery: the log comes back the same."""
    num_messages = 100
    message_size = 100
    segment_size = 7 * message_size
    index_interval = 3 * message_size
    log_config = LogTestUtils.create_log_config(segment_bytes=segment_size, index_interval_bytes=index_interval,
                                                segment_index_bytes=4096)
    log = create_log(ctx, ctx.log_dir, log_config)
    for i in range(num_messages):
        log.append_as_leader(_singleton_records(_random_bytes(message_size),
                                                timestamp=ctx.mock_time.milliseconds() + i * 10), leader_epoch=0)
    assert log.log_end_offset() == num_messages, (
        f"After appending {num_messages} messages to an empty log, the log end offset should be {num_messages}")
    last_index_offset = log.active_segment().offset_index().last_offset()
    num_index_entries = log.active_segment().offset_index().entries()
    last_offset = log.log_end_offset()
    # once the segment is closed, the time index ends with (largest timestamp -> last offset)
    last_time_index_offset = log.log_end_offset() - 1
    last_time_index_timestamp = log.active_segment().largest_timestamp()
    # an entry may or may not already be in the time index
    num_time_index_entries = log.active_segment().time_index().entries() + (
        0 if log.active_segment().time_index().last_entry().offset == log.log_end_offset() - 1 else 1)
    log.close()

    def verify_recovered_log(log: UnifiedLog, expected_recovery_point: int) -> None:
        assert log.recovery_point() == expected_recovery_point, "Unexpected recovery point"
        assert log.log_end_offset() == num_messages, (
            f"Should have {num_messages} messages when log is reopened w/o recovery")
        assert log.active_segment().offset_index().last_offset() == last_index_offset, (
            "Should have same last index offset as before.")
        assert log.active_segment().offset_index().entries() == num_index_entries, (
            "Should have same number of index entries as before.")
        assert log.active_segment().time_index().last_entry().timestamp == last_time_index_timestamp, (
            "Should have same last time index timestamp")
        assert log.active_segment().time_index().last_entry().offset == last_time_index_offset, (
            "Should have same last time index offset")
        assert log.active_segment().time_index().entries() == num_time_index_entries, (
            "Should have same number of time index entries as before.")

    log = create_log(ctx, ctx.log_dir, log_config, recovery_point=last_offset, last_shutdown_clean=False)
    verify_recovered_log(log, last_offset)
    log.close()

    # with recovery
    recovery_point = 10
    log = create_log(ctx, ctx.log_dir, log_config, recovery_point=recovery_point, last_shutdown_clean=False)
    # after an unclean shutdown the recovery point moves only with a flush
    verify_recovered_log(log, recovery_point)
    log.flush(False)
    verify_recovered_log(log, last_offset)
    log.close()


def test_index_rebuild(ctx: _Ctx) -> None:
    """An index deleted by hand is rebuilt when the log reopens."""
    num_messages = 200
    log_config = LogTestUtils.create_log_config(segment_bytes=200, index_interval_bytes=1)
    log = create_log(ctx, ctx.log_dir, log_config)
    for i in range(num_messages):
        log.append_as_leader(_singleton_records(_random_bytes(10), timestamp=ctx.mock_time.milliseconds() + i * 10),
                             leader_epoch=0)
    index_files = [s.offset_index_file() for s in log.log_segments()]
    time_index_files = [s.time_index_file() for s in log.log_segments()]
    log.close()

    # delete every index file
    for f in index_files + time_index_files:
        f.unlink(missing_ok=True)

    # reopen
    log = create_log(ctx, ctx.log_dir, log_config, last_shutdown_clean=False)
    assert log.log_end_offset() == num_messages, f"Should have {num_messages} messages when log is reopened"
    assert log.log_segments()[0].offset_index().entries() > 0, "The index should have been rebuilt"
    assert log.log_segments()[0].time_index().entries() > 0, "The time index should have been rebuilt"
    for i in range(num_messages):
        assert next(iter(LogTestUtils.read_log(log, i, 100).records.batches())).last_offset() == i
        if i == 0:
            assert (log.fetch_offset_by_timestamp(ctx.mock_time.milliseconds() + i * 10).offset
                    == log.log_segments()[0].base_offset())
        else:
            assert log.fetch_offset_by_timestamp(ctx.mock_time.milliseconds() + i * 10).offset == i
    log.close()


def test_rebuild_time_index_for_old_messages(ctx: _Ctx) -> None:
    """Messages of a format before 0.10.0 have no timestamps: the rebuilt time index is empty."""
    num_messages = 200
    segment_size = 200
    log_config = LogConfig({"segment.bytes": str(segment_size), "index.interval.bytes": "1",
                            "message.format.version": "0.9.0"})
    log = create_log(ctx, ctx.log_dir, log_config)
    for i in range(num_messages):
        log.append_as_leader(_singleton_records(_random_bytes(10), timestamp=ctx.mock_time.milliseconds() + i * 10,
                                                magic_value=MAGIC_VALUE_V1), leader_epoch=0)
    time_index_files = [s.time_index_file() for s in log.log_segments()]
    log.close()

    # delete the time indexes
    for f in time_index_files:
        f.unlink()

    # the rebuilt time index is empty
    log = create_log(ctx, ctx.log_dir, log_config, recovery_point=num_messages + 1, last_shutdown_clean=False)
    for segment in log.log_segments()[:-1]:
        assert segment.time_index().entries() == 0, "The time index should be empty"
        assert segment.time_index_file().stat().st_size == 0, "The time index file size should be 0"


def test_corrupt_index_rebuild(ctx: _Ctx) -> None:
    """A corrupt index is rebuilt when the log reopens."""
    num_messages = 200
    log_config = LogTestUtils.create_log_config(segment_bytes=200, index_interval_bytes=1)
    log = create_log(ctx, ctx.log_dir, log_config)
    for i in range(num_messages):
        log.append_as_leader(_singleton_records(_random_bytes(10), timestamp=ctx.mock_time.milliseconds() + i * 10),
                             leader_epoch=0)
    index_files = [s.offset_index_file() for s in log.log_segments()]
    time_index_files = [s.time_index_file() for s in log.log_segments()]
    log.close()

    # corrupt every index file
    for file in index_files:
        _overwrite(file, "  ")

    for file in time_index_files:
        _overwrite(file, "  ")

    # reopen with recovery point 0 so that the segments are recovered
    log = create_log(ctx, ctx.log_dir, log_config, last_shutdown_clean=False)
    assert log.log_end_offset() == num_messages, f"Should have {num_messages} messages when log is reopened"
    for i in range(num_messages):
        assert next(iter(LogTestUtils.read_log(log, i, 100).records.batches())).last_offset() == i
        if i == 0:
            assert (log.fetch_offset_by_timestamp(ctx.mock_time.milliseconds() + i * 10).offset
                    == log.log_segments()[0].base_offset())
        else:
            assert log.fetch_offset_by_timestamp(ctx.mock_time.milliseconds() + i * 10).offset == i
    log.close()


def test_bogus_index_segments_are_removed(ctx: _Ctx) -> None:
    """Index files without a log file are deleted when the log opens."""
    bogus_index1 = log_file_utils.offset_index_file(ctx.log_dir, 0)
    bogus_time_index1 = log_file_utils.time_index_file(ctx.log_dir, 0)
    bogus_index2 = log_file_utils.offset_index_file(ctx.log_dir, 5)
    bogus_time_index2 = log_file_utils.time_index_file(ctx.log_dir, 5)

    # indexes load lazily, so the files must be created for the test
    bogus_index2.touch(exist_ok=False)
    bogus_time_index2.touch(exist_ok=False)

    def create_records() -> MemoryRecords:
        return _singleton_records(b"test", timestamp=ctx.mock_time.milliseconds())
    log_config = LogTestUtils.create_log_config(segment_bytes=create_records().size_in_bytes() * 5,
                                                segment_index_bytes=1000, index_interval_bytes=1)
    log = create_log(ctx, ctx.log_dir, log_config)

    # load the lazy indexes
    log.log_segments()[0].offset_index()
    log.log_segments()[0].time_index()

    assert bogus_index1.stat().st_size > 0, "The first index file should have been replaced with a larger file"
    assert bogus_time_index1.stat().st_size > 0, (
        "The first time index file should have been replaced with a larger file")
    assert not bogus_index2.exists(), "The second index file should have been deleted."
    assert not bogus_time_index2.exists(), "The second time index file should have been deleted."

    # the log takes appends
    for _ in range(10):
        log.append_as_leader(create_records(), leader_epoch=0)

    log.delete()


def test_reopen_then_truncate(ctx: _Ctx) -> None:
    """Truncation works after the log is reopened."""
    def create_records() -> MemoryRecords:
        return _singleton_records(b"test", timestamp=ctx.mock_time.milliseconds())
    log_config = LogTestUtils.create_log_config(segment_bytes=create_records().size_in_bytes() * 5,
                                                segment_index_bytes=1000, index_interval_bytes=10000)
    log = create_log(ctx, ctx.log_dir, log_config)

    # several segments, then close, reopen and truncate
    for _ in range(100):
        log.append_as_leader(create_records(), leader_epoch=0)
    log.close()
    log = create_log(ctx, ctx.log_dir, log_config, last_shutdown_clean=False)
    log.truncate_to(3)
    assert log.number_of_segments() == 1, "All but one segment should be deleted."
    assert log.log_end_offset() == 3, "Log end offset should be 3."


def test_open_deletes_obsolete_files(ctx: _Ctx) -> None:
    """Files ending in .deleted are removed when the log reopens."""
    def create_records() -> MemoryRecords:
        return _singleton_records(b"test", timestamp=ctx.mock_time.milliseconds() - 1000)
    log_config = LogTestUtils.create_log_config(segment_bytes=create_records().size_in_bytes() * 5,
                                                segment_index_bytes=1000, retention_ms=999)
    log = create_log(ctx, ctx.log_dir, log_config)

    # some segments
    for _ in range(100):
        log.append_as_leader(create_records(), leader_epoch=0)

    # every segment expires
    log.update_high_watermark(log.log_end_offset())
    log.delete_old_segments()
    log.close()
    log = create_log(ctx, ctx.log_dir, log_config, last_shutdown_clean=False)
    assert log.number_of_segments() == 1, "The deleted segments should be gone."


def test_corrupt_log(ctx: _Ctx) -> None:
    # some segments
    log_config = LogTestUtils.create_log_config(segment_bytes=1000, index_interval_bytes=1,
                                                max_message_bytes=64 * 1024)

    def create_records() -> MemoryRecords:
        return _singleton_records(b"test", timestamp=ctx.mock_time.milliseconds())
    recovery_point = 50
    for _ in range(10):
        # a log with some messages
        ctx.log_dir.mkdir(parents=True, exist_ok=True)
        log = create_log(ctx, ctx.log_dir, log_config)
        num_messages = 50 + random.randrange(50)
        for _ in range(num_messages):
            log.append_as_leader(create_records(), leader_epoch=0)
        records = [r for s in log.log_segments() for r in s.log().records()]
        log.close()

        # random bytes after the index and the log
        _append_nonsense_to_file(log.active_segment().offset_index_file(), random.randrange(1024) + 1)
        _append_nonsense_to_file(log.active_segment().log().file(), random.randrange(1024) + 1)

        # recover
        log = create_log(ctx, ctx.log_dir, log_config, 0, recovery_point, last_shutdown_clean=False)
        assert log.log_end_offset() == num_messages

        recovered = [r for s in log.log_segments() for r in s.log().records()]
        assert len(recovered) == len(records)

        for expected, actual in zip(records, recovered, strict=True):
            assert actual.key() == expected.key(), "Keys not equal"
            assert actual.value() == expected.value(), "Values not equal"
            assert actual.timestamp() == expected.timestamp(), "Timestamps not equal"

        log.close()
        utils.delete(ctx.log_dir)


def _assert_index_files_last_offset(log_dir: Path, expected_count: int) -> None:
    index_files = [f for f in log_dir.iterdir() if ".index" in f.name]
    assert len(index_files) == expected_count
    for file in index_files:
        offset_index = OffsetIndex(file, int(file.name.replace(".index", "")))
        assert offset_index.last_offset() >= 0
        offset_index.close()


def test_over_compacted_log_recovery(ctx: _Ctx) -> None:
    # some segments
    log_config = LogTestUtils.create_log_config(segment_bytes=1000, index_interval_bytes=1,
                                                max_message_bytes=64 * 1024)
    log = create_log(ctx, ctx.log_dir, log_config)
    set1 = MemoryRecords.with_records(Compression.NONE, SimpleRecord(b"v1", b"k1"), initial_offset=0,
                                      partition_leader_epoch=0)
    set2 = MemoryRecords.with_records(Compression.NONE, SimpleRecord(b"v3", b"k3"),
                                      initial_offset=INT_MAX + 2, partition_leader_epoch=0)
    set3 = MemoryRecords.with_records(Compression.NONE, SimpleRecord(b"v4", b"k4"),
                                      initial_offset=INT_MAX + 3, partition_leader_epoch=0)
    set4 = MemoryRecords.with_records(Compression.NONE, SimpleRecord(b"v5", b"k5"),
                                      initial_offset=INT_MAX + 4, partition_leader_epoch=0)
    # into the empty log, base offset 0
    log.append_as_follower(set1)
    assert log.active_segment().base_offset() == 0
    # rolls: the new segment's base offset is max(1, Integer.MAX_VALUE + 2)
    log.append_as_follower(set2)
    assert log.active_segment().base_offset() == INT_MAX + 2
    assert log_file_utils.producer_snapshot_file(ctx.log_dir, INT_MAX + 2).exists()
    # into the same segment
    log.append_as_follower(set3)
    assert log.active_segment().base_offset() == INT_MAX + 2
    # into the same segment
    log.append_as_follower(set4)
    assert log.active_segment().base_offset() == INT_MAX + 2
    log.close()
    _assert_index_files_last_offset(ctx.log_dir, 2)
    utils.delete(ctx.log_dir)


def test_leader_epoch_cache_cleared_after_static_message_format_downgrade(ctx: _Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=1000, index_interval_bytes=1, max_message_bytes=65536)
    log = create_log(ctx, ctx.log_dir, log_config)
    log.append_as_leader(_records([SimpleRecord(b"foo")]), leader_epoch=5)
    assert log.latest_epoch() == 5
    log.close()

    # reopen with an older message format: the cache is gone
    downgraded_log_config = LogConfig({"segment.bytes": "1000", "index.interval.bytes": "1",
                                       "max.message.bytes": "65536", "message.format.version": "0.10.2"})
    reopened = create_log(ctx, ctx.log_dir, downgraded_log_config, last_shutdown_clean=False)
    LogTestUtils.assert_leader_epoch_cache_empty(reopened)

    reopened.append_as_leader(_records([SimpleRecord(b"bar")], magic_value=RecordVersion.V1.value), leader_epoch=5)
    LogTestUtils.assert_leader_epoch_cache_empty(reopened)


def test_over_compacted_log_recovery_multi_record(ctx: _Ctx) -> None:
    # some segments
    log_config = LogTestUtils.create_log_config(segment_bytes=1000, index_interval_bytes=1,
                                                max_message_bytes=64 * 1024)
    log = create_log(ctx, ctx.log_dir, log_config)
    gzip = Compression.gzip().build()
    set1 = MemoryRecords.with_records(Compression.NONE, SimpleRecord(b"v1", b"k1"), initial_offset=0,
                                      partition_leader_epoch=0)
    set2 = MemoryRecords.with_records(gzip, SimpleRecord(b"v3", b"k3"), SimpleRecord(b"v4", b"k4"),
                                      initial_offset=INT_MAX + 2, partition_leader_epoch=0)
    set3 = MemoryRecords.with_records(gzip, SimpleRecord(b"v5", b"k5"), SimpleRecord(b"v6", b"k6"),
                                      initial_offset=INT_MAX + 4, partition_leader_epoch=0)
    set4 = MemoryRecords.with_records(gzip, SimpleRecord(b"v7", b"k7"), SimpleRecord(b"v8", b"k8"),
                                      initial_offset=INT_MAX + 6, partition_leader_epoch=0)
    # into the empty log, base offset 0
    log.append_as_follower(set1)
    assert log.active_segment().base_offset() == 0
    # rolls: the new segment's base offset is max(1, Integer.MAX_VALUE + 2)
    log.append_as_follower(set2)
    assert log.active_segment().base_offset() == INT_MAX + 2
    assert log_file_utils.producer_snapshot_file(ctx.log_dir, INT_MAX + 2).exists()
    # into the same segment
    log.append_as_follower(set3)
    assert log.active_segment().base_offset() == INT_MAX + 2
    # into the same segment
    log.append_as_follower(set4)
    assert log.active_segment().base_offset() == INT_MAX + 2
    log.close()
    _assert_index_files_last_offset(ctx.log_dir, 2)
    utils.delete(ctx.log_dir)


def test_over_compacted_log_recovery_multi_record_v1(ctx: _Ctx) -> None:
    # some segments
    log_config = LogTestUtils.create_log_config(segment_bytes=1000, index_interval_bytes=1,
                                                max_message_bytes=64 * 1024)
    log = create_log(ctx, ctx.log_dir, log_config)
    gzip = Compression.gzip().build()
    set1 = MemoryRecords.with_records(Compression.NONE, SimpleRecord(b"v1", b"k1"), magic=MAGIC_VALUE_V1,
                                      initial_offset=0)
    set2 = MemoryRecords.with_records(gzip, SimpleRecord(b"v3", b"k3"), SimpleRecord(b"v4", b"k4"),
                                      magic=MAGIC_VALUE_V1, initial_offset=INT_MAX + 2)
    set3 = MemoryRecords.with_records(gzip, SimpleRecord(b"v5", b"k5"), SimpleRecord(b"v6", b"k6"),
                                      magic=MAGIC_VALUE_V1, initial_offset=INT_MAX + 4)
    set4 = MemoryRecords.with_records(gzip, SimpleRecord(b"v7", b"k7"), SimpleRecord(b"v8", b"k8"),
                                      magic=MAGIC_VALUE_V1, initial_offset=INT_MAX + 6)
    # into the empty log, base offset 0
    log.append_as_follower(set1)
    assert log.active_segment().base_offset() == 0
    # rolls: the new segment's base offset is max(1, 3) = 3
    log.append_as_follower(set2)
    assert log.active_segment().base_offset() == 3
    assert log_file_utils.producer_snapshot_file(ctx.log_dir, 3).exists()
    # rolls again: max(5, Integer.MAX_VALUE + 4)
    log.append_as_follower(set3)
    assert log.active_segment().base_offset() == INT_MAX + 4
    assert log_file_utils.producer_snapshot_file(ctx.log_dir, INT_MAX + 4).exists()
    # into the same segment
    log.append_as_follower(set4)
    assert log.active_segment().base_offset() == INT_MAX + 4
    log.close()
    _assert_index_files_last_offset(ctx.log_dir, 3)
    utils.delete(ctx.log_dir)


def test_recovery_of_segment_with_offset_overflow(ctx: _Ctx) -> None:
    log_config = LogTestUtils.create_log_config(index_interval_bytes=1, file_delete_delay_ms=1000)
    log, _ = create_log_with_offset_overflow(ctx, log_config)
    expected_keys = LogTestUtils.keys_in_log(log)

    # recovery splits the segment (.deleted files may still be around after the split)
    recovered_log = recover_and_check(ctx, log_config, expected_keys)
    assert LogTestUtils.keys_in_log(recovered_log) == expected_keys

    # a second split fails
    for segment in recovered_log.log_segments():
        with pytest.raises(IllegalArgumentException):
            log.split_overflowed_segment(segment)


def _restore_deleted_files(log_dir: Path) -> None:
    """The .deleted files renamed back, as if the broker crashed before the rename."""
    for file in log_dir.iterdir():
        if file.name.endswith(log_file_utils.DELETED_FILE_SUFFIX):
            utils.atomic_move_with_fallback(
                file, Path(utils.replace_suffix(str(file), log_file_utils.DELETED_FILE_SUFFIX, "")))


def test_recovery_after_crash_during_split_phase1(ctx: _Ctx) -> None:
    log_config = LogTestUtils.create_log_config(index_interval_bytes=1, file_delete_delay_ms=1000)
    log, segment_with_overflow = create_log_with_offset_overflow(ctx, log_config)
    expected_keys = LogTestUtils.keys_in_log(log)
    num_segments_initial = len(log.log_segments())

    # split the segment
    new_segments = log.split_overflowed_segment(segment_with_overflow)

    # a crash once the .cleaned files exist, before any is renamed .swap: recovery aborts that split and splits anew
    for segment in reversed(new_segments):
        segment.change_file_suffixes("", local_log.CLEANED_FILE_SUFFIX)
        segment.truncate_to(0)
    _restore_deleted_files(ctx.log_dir)

    recovered_log = recover_and_check(ctx, log_config, expected_keys)
    assert LogTestUtils.keys_in_log(recovered_log) == expected_keys
    assert len(recovered_log.log_segments()) == num_segments_initial + 1
    recovered_log.close()


def test_recovery_after_crash_during_split_phase2(ctx: _Ctx) -> None:
    log_config = LogTestUtils.create_log_config(index_interval_bytes=1, file_delete_delay_ms=1000)
    log, segment_with_overflow = create_log_with_offset_overflow(ctx, log_config)
    expected_keys = LogTestUtils.keys_in_log(log)
    num_segments_initial = len(log.log_segments())

    # split the segment
    new_segments = log.split_overflowed_segment(segment_with_overflow)

    # a crash once one new segment is .swap: recovery aborts that split and splits anew
    for segment in reversed(new_segments):
        if segment is not new_segments[-1]:
            segment.change_file_suffixes("", local_log.CLEANED_FILE_SUFFIX)
        else:
            segment.change_file_suffixes("", local_log.SWAP_FILE_SUFFIX)
        segment.truncate_to(0)
    _restore_deleted_files(ctx.log_dir)

    recovered_log = recover_and_check(ctx, log_config, expected_keys)
    assert LogTestUtils.keys_in_log(recovered_log) == expected_keys
    assert len(recovered_log.log_segments()) == num_segments_initial + 1
    recovered_log.close()


def test_recovery_after_crash_during_split_phase3(ctx: _Ctx) -> None:
    log_config = LogTestUtils.create_log_config(index_interval_bytes=1, file_delete_delay_ms=1000)
    log, segment_with_overflow = create_log_with_offset_overflow(ctx, log_config)
    expected_keys = LogTestUtils.keys_in_log(log)
    num_segments_initial = len(log.log_segments())

    # split the segment
    new_segments = log.split_overflowed_segment(segment_with_overflow)

    # a crash once every new segment is .swap: recovery completes the split and deletes the old segment
    for segment in reversed(new_segments):
        segment.change_file_suffixes("", local_log.SWAP_FILE_SUFFIX)
    _restore_deleted_files(ctx.log_dir)

    # truncate the old segment
    segment_with_overflow.truncate_to(0)

    recovered_log = recover_and_check(ctx, log_config, expected_keys)
    assert LogTestUtils.keys_in_log(recovered_log) == expected_keys
    assert len(recovered_log.log_segments()) == num_segments_initial + 1
    log.close()


def test_recovery_after_crash_during_split_phase4(ctx: _Ctx) -> None:
    log_config = LogTestUtils.create_log_config(index_interval_bytes=1, file_delete_delay_ms=1000)
    log, segment_with_overflow = create_log_with_offset_overflow(ctx, log_config)
    expected_keys = LogTestUtils.keys_in_log(log)
    num_segments_initial = len(log.log_segments())

    # split the segment
    new_segments = log.split_overflowed_segment(segment_with_overflow)

    # a crash once every new segment is .swap and the old one deleted: recovery completes the split
    for segment in reversed(new_segments):
        segment.change_file_suffixes("", local_log.SWAP_FILE_SUFFIX)

    for file in ctx.log_dir.iterdir():
        if file.name.endswith(log_file_utils.DELETED_FILE_SUFFIX):
            utils.delete(file)

    # truncate the old segment
    segment_with_overflow.truncate_to(0)

    recovered_log = recover_and_check(ctx, log_config, expected_keys)
    assert LogTestUtils.keys_in_log(recovered_log) == expected_keys
    assert len(recovered_log.log_segments()) == num_segments_initial + 1
    recovered_log.close()


def test_recovery_after_crash_during_split_phase5(ctx: _Ctx) -> None:
    log_config = LogTestUtils.create_log_config(index_interval_bytes=1, file_delete_delay_ms=1000)
    log, segment_with_overflow = create_log_with_offset_overflow(ctx, log_config)
    expected_keys = LogTestUtils.keys_in_log(log)
    num_segments_initial = len(log.log_segments())

    # split the segment
    new_segments = log.split_overflowed_segment(segment_with_overflow)

    # a crash once one new segment is .swap and the other .log: recovery completes the split
    new_segments[-1].change_file_suffixes("", local_log.SWAP_FILE_SUFFIX)

    # truncate the old segment
    segment_with_overflow.truncate_to(0)

    recovered_log = recover_and_check(ctx, log_config, expected_keys)
    assert LogTestUtils.keys_in_log(recovered_log) == expected_keys
    assert len(recovered_log.log_segments()) == num_segments_initial + 1
    recovered_log.close()


def test_clean_shutdown_file(ctx: _Ctx) -> None:
    # some segments
    log_config = LogTestUtils.create_log_config(segment_bytes=1000, index_interval_bytes=1,
                                                max_message_bytes=64 * 1024)

    def create_records() -> MemoryRecords:
        return _singleton_records(b"test", timestamp=ctx.mock_time.milliseconds())

    # a log with some messages
    log = create_log(ctx, ctx.log_dir, log_config)
    for _ in range(100):
        log.append_as_leader(create_records(), leader_epoch=0)
    log.close()

    # after a clean shutdown no recovery runs, even from recovery point 0 (LogManager reads the clean shutdown
    # file and tells the log)
    recovery_point = log.log_end_offset()
    log = create_log(ctx, ctx.log_dir, log_config)
    assert log.log_end_offset() == recovery_point


def test_log_recovers_for_leader_epoch(ctx: _Ctx) -> None:
    """Append, reopen with recovery: the leader epochs are recovered."""
    log = create_log(ctx, ctx.log_dir, LogConfig({}))
    leader_epoch_cache = log.leader_epoch_cache
    assert leader_epoch_cache is not None
    first_batch = _singleton_records_with_leader_epoch(ctx, b"random", leader_epoch=1, offset=0)
    log.append_as_follower(first_batch)

    second_batch = _singleton_records_with_leader_epoch(ctx, b"random", leader_epoch=2, offset=1)
    log.append_as_follower(second_batch)

    third_batch = _singleton_records_with_leader_epoch(ctx, b"random", leader_epoch=2, offset=2)
    log.append_as_follower(third_batch)

    fourth_batch = _singleton_records_with_leader_epoch(ctx, b"random", leader_epoch=3, offset=3)
    log.append_as_follower(fourth_batch)

    expected = [EpochEntry(1, 0), EpochEntry(2, 1), EpochEntry(3, 3)]
    assert leader_epoch_cache.epoch_entries() == expected

    # remove some of the epoch entries on purpose
    leader_epoch_cache.truncate_from_end_async_flush(2)
    assert leader_epoch_cache.epoch_entries() != expected
    log.close()

    # reopen and recover from the start
    recovered_log = create_log(ctx, ctx.log_dir, LogConfig({}), last_shutdown_clean=False)
    recovered_leader_epoch_cache = recovered_log.leader_epoch_cache
    assert recovered_leader_epoch_cache is not None

    # the epoch entries are back
    assert recovered_leader_epoch_cache.epoch_entries() == expected
    recovered_log.close()


def _append_mixed_transactions(ctx: _Ctx, log: UnifiedLog, pids: tuple[int, int, int, int], epoch: int) -> None:
    """The transactional and non-transactional appends the three transaction index recovery cases share."""
    pid1, pid2, pid3, pid4 = pids
    append_pid1 = LogTestUtils.append_transactional_as_leader(log, pid1, epoch, ctx.mock_time)
    append_pid2 = LogTestUtils.append_transactional_as_leader(log, pid2, epoch, ctx.mock_time)
    append_pid3 = LogTestUtils.append_transactional_as_leader(log, pid3, epoch, ctx.mock_time)
    append_pid4 = LogTestUtils.append_transactional_as_leader(log, pid4, epoch, ctx.mock_time)

    # transactional and non-transactional data mixed
    append_pid1(5)  # next offset: 5
    LogTestUtils.append_non_transactional_as_leader(log, 3)  # 8
    append_pid2(2)  # 10
    append_pid1(4)  # 14
    append_pid3(3)  # 17
    LogTestUtils.append_non_transactional_as_leader(log, 2)  # 19
    append_pid1(10)  # 29
    LogTestUtils.append_end_txn_marker_as_leader(log, pid1, epoch, ControlRecordType.ABORT,
                                                 ctx.mock_time.milliseconds())  # 30
    append_pid2(6)  # 36
    append_pid4(3)  # 39
    LogTestUtils.append_non_transactional_as_leader(log, 10)  # 49
    append_pid3(9)  # 58
    LogTestUtils.append_end_txn_marker_as_leader(log, pid3, epoch, ControlRecordType.COMMIT,
                                                 ctx.mock_time.milliseconds())  # 59
    append_pid4(8)  # 67
    append_pid2(7)  # 74
    LogTestUtils.append_end_txn_marker_as_leader(log, pid2, epoch, ControlRecordType.ABORT,
                                                 ctx.mock_time.milliseconds())  # 75
    LogTestUtils.append_non_transactional_as_leader(log, 10)  # 85
    append_pid4(4)  # 89
    LogTestUtils.append_end_txn_marker_as_leader(log, pid4, epoch, ControlRecordType.COMMIT,
                                                 ctx.mock_time.milliseconds())  # 90


def test_full_transaction_index_recovery(ctx: _Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=128 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)
    epoch = 0
    pid1, pid2 = 1, 2
    _append_mixed_transactions(ctx, log, (pid1, pid2, 3, 4), epoch)

    # delete every offset and transaction index to force recovery
    for segment in log.log_segments():
        segment.offset_index().delete_if_exists()
        segment.txn_index().delete_if_exists()

    log.close()

    reloaded_log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 5)
    reloaded_log = create_log(ctx, ctx.log_dir, reloaded_log_config, last_shutdown_clean=False)
    aborted_transactions = LogTestUtils.all_aborted_transactions(reloaded_log)
    assert aborted_transactions == [AbortedTxn(pid1, 0, 29, 8), AbortedTxn(pid2, 8, 74, 36)]


def test_recover_only_last_segment(ctx: _Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=128 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)
    epoch = 0
    pid1, pid2 = 1, 2
    _append_mixed_transactions(ctx, log, (pid1, pid2, 3, 4), epoch)

    # delete the last segment's offset and transaction indexes to force its recovery
    last_segment = log.log_segments()[-1]
    recovery_point = last_segment.base_offset()
    last_segment.offset_index().delete_if_exists()
    last_segment.txn_index().delete_if_exists()

    log.close()

    reloaded_log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 5)
    reloaded_log = create_log(ctx, ctx.log_dir, reloaded_log_config, recovery_point=recovery_point,
                              last_shutdown_clean=False)
    aborted_transactions = LogTestUtils.all_aborted_transactions(reloaded_log)
    assert aborted_transactions == [AbortedTxn(pid1, 0, 29, 8), AbortedTxn(pid2, 8, 74, 36)]


def test_recover_last_segment_with_no_snapshots(ctx: _Ctx) -> None:
    log_config = LogTestUtils.create_log_config(segment_bytes=128 * 5)
    log = create_log(ctx, ctx.log_dir, log_config)
    epoch = 0
    pid1, pid2 = 1, 2
    _append_mixed_transactions(ctx, log, (pid1, pid2, 3, 4), epoch)

    LogTestUtils.delete_producer_snapshot_files(ctx.log_dir)

    # delete the last segment's offset and transaction indexes to force recovery, which must rebuild the producer
    # state from the start of the log
    last_segment = log.log_segments()[-1]
    recovery_point = last_segment.base_offset()
    last_segment.offset_index().delete_if_exists()
    last_segment.txn_index().delete_if_exists()

    log.close()

    reloaded_log_config = LogTestUtils.create_log_config(segment_bytes=1024 * 5)
    reloaded_log = create_log(ctx, ctx.log_dir, reloaded_log_config, recovery_point=recovery_point,
                              last_shutdown_clean=False)
    aborted_transactions = LogTestUtils.all_aborted_transactions(reloaded_log)
    assert aborted_transactions == [AbortedTxn(pid1, 0, 29, 8), AbortedTxn(pid2, 8, 74, 36)]


def test_log_end_less_than_start_after_reopen(ctx: _Ctx) -> None:
    log_config = LogTestUtils.create_log_config()
    log = create_log(ctx, ctx.log_dir, log_config)
    for i in range(5):
        record = SimpleRecord(str(i).encode(), timestamp=ctx.mock_time.milliseconds())
        log.append_as_leader(_records([record]), leader_epoch=0)
        log.roll()
    assert len(log.log_segments()) == 6

    # move the log start offset up
    start_offset = 4
    log.update_high_watermark(log.log_end_offset())
    log.maybe_increment_log_start_offset(start_offset, LogStartOffsetIncrementReason.ClientRecordDeletion)
    assert log.log_end_offset() > log.log_start_offset

    # garbage in a segment below the log start offset
    segment_to_force_truncation = log.log_segments()[:2][-1]
    _overwrite(segment_to_force_truncation.log().file(), "corruptRecord")
    log.close()

    # reopened, the corrupt segment is truncated and the later ones deleted; what remains is below the log start
    # offset, so it all goes and a single active segment starts at the log start offset
    log = create_log(ctx, ctx.log_dir, log_config, log_start_offset=start_offset, last_shutdown_clean=False)
    # let the scheduled deletions run
    ctx.mock_time.sleep(log_config.file_delete_delay_ms)
    assert log.number_of_segments() == 1
    assert log.log_start_offset == start_offset
    assert log.log_end_offset() == start_offset
    # the remaining segment
    only_segment = log.log_segments()[0]
    assert only_segment.base_offset() == start_offset
    assert only_segment.log().file().exists()
    assert only_segment.offset_index_file().exists()
    assert only_segment.time_index_file().exists()


def test_corrupted_log_recovery_does_not_delete_producer_state_snapshots_post_recovery(ctx: _Ctx) -> None:
    log_config = LogTestUtils.create_log_config()
    log = create_log(ctx, ctx.log_dir, log_config)
    # segments [0-0] .. [8-8] and an empty active [9-]: log start 0, log end 9
    for i in range(9):
        record = SimpleRecord(str(i).encode(), timestamp=ctx.mock_time.milliseconds())
        log.append_as_leader(_records([record]), leader_epoch=0)
        log.roll()
    assert len(log.log_segments()) == 10
    assert log.log_start_offset == 0
    assert log.active_segment().base_offset() == 9
    assert log.log_end_offset() == 9
    for offset in range(1, 10):
        snapshot_file_before_deletion = log.producer_state_manager.snapshot_file_for_offset(offset)
        assert snapshot_file_before_deletion is not None
        assert snapshot_file_before_deletion.file().exists()

    # log start offset to 4
    new_log_start_offset = 4
    log.update_high_watermark(log.log_end_offset())
    log.maybe_increment_log_start_offset(new_log_start_offset, LogStartOffsetIncrementReason.ClientRecordDeletion)
    assert log.log_start_offset == 4
    assert log.log_end_offset() == 9

    # garbage in the segment based at 1, below the log start offset
    segment_to_force_truncation = log.log_segments()[:2][-1]
    assert segment_to_force_truncation.base_offset() == 1
    _overwrite(segment_to_force_truncation.log().file(), "corruptRecord")
    log.close()

    # reopened: segment 1 is truncated and 2..9 are scheduled for deletion; 0 and 1 are below the log start
    # offset, so they go too and a single active segment starts at 4
    log = create_log(ctx, ctx.log_dir, log_config, log_start_offset=new_log_start_offset,
                     last_shutdown_clean=False)
    assert len(log.log_segments()) == 1
    assert log.log_start_offset == 4
    assert log.active_segment().base_offset() == 4
    assert log.log_end_offset() == 4

    offsets_with_snapshot_files = [
        SnapshotFile(log_file_utils.producer_snapshot_file(ctx.log_dir, offset)).offset for offset in range(1, 5)
        if log_file_utils.producer_snapshot_file(ctx.log_dir, offset).exists()]
    in_memory_snapshot_files = [s for s in (log.producer_state_manager.snapshot_file_for_offset(offset)
                                            for offset in range(1, 5)) if s is not None]

    assert not offsets_with_snapshot_files, (
        f"Found offsets with producer state snapshot files: {offsets_with_snapshot_files} while none were expected.")
    assert not in_memory_snapshot_files, (
        f"Found in-memory producer state snapshot files: {in_memory_snapshot_files} while none were expected.")

    # append and roll: snapshots exist for 5..9
    for i in range(5):
        record = SimpleRecord(str(i).encode(), timestamp=ctx.mock_time.milliseconds())
        log.append_as_leader(_records([record]), leader_epoch=0)
        log.roll()
    assert log.active_segment().base_offset() == 9
    assert log.log_end_offset() == 9
    for offset in range(5, 10):
        snapshot_file_before_deletion = log.producer_state_manager.snapshot_file_for_offset(offset)
        assert snapshot_file_before_deletion is not None
        assert snapshot_file_before_deletion.file().exists()

    # the deletions recovery scheduled run: the snapshots for 5..9 stay
    ctx.mock_time.sleep(log_config.file_delete_delay_ms)
    assert log.log_start_offset == new_log_start_offset
    assert log.log_end_offset() == 9
    offsets_with_missing_snapshot_files = []
    for offset in range(5, 10):
        snapshot_file = log.producer_state_manager.snapshot_file_for_offset(offset)
        if snapshot_file is None or not snapshot_file.file().exists():
            offsets_with_missing_snapshot_files.append(offset)
    assert not offsets_with_missing_snapshot_files, (
        f"Found offsets with missing producer state snapshot files: {offsets_with_missing_snapshot_files}")
    assert not any(name.endswith(log_file_utils.DELETED_FILE_SUFFIX) for name in os.listdir(ctx.log_dir)), (
        "Expected no files to be present with the deleted file suffix")


def test_recover_with_empty_active_segment(ctx: _Ctx) -> None:
    num_messages = 100
    message_size = 100
    segment_size = 7 * message_size
    index_interval = 3 * message_size
    log_config = LogTestUtils.create_log_config(segment_bytes=segment_size, index_interval_bytes=index_interval,
                                                segment_index_bytes=4096)
    log = create_log(ctx, ctx.log_dir, log_config)
    for i in range(num_messages):
        log.append_as_leader(_singleton_records(_random_bytes(message_size),
                                                timestamp=ctx.mock_time.milliseconds() + i * 10), leader_epoch=0)
    assert log.log_end_offset() == num_messages, (
        f"After appending {num_messages} messages to an empty log, the log end offset should be {num_messages}")
    log.roll()
    log.flush(False)
    with pytest.raises(FileNotFoundError):  # NoSuchFileException
        log.active_segment().sanity_check(True)
    last_offset = log.log_end_offset()
    log.close_handlers()

    log = create_log(ctx, ctx.log_dir, log_config, recovery_point=last_offset, last_shutdown_clean=False)
    assert log.recovery_point() == last_offset, "Unexpected recovery point"
    assert log.log_end_offset() == num_messages, (
        f"Should have {num_messages} messages when log is reopened w/o recovery")
    assert log.active_segment().time_index().entries() == 0, (
        "Should have same number of time index entries as before.")
    # LogLoader created the empty active segment's index files during recovery
    log.active_segment().sanity_check(True)

    for i in range(num_messages):
        log.append_as_leader(_singleton_records(_random_bytes(message_size),
                                                timestamp=ctx.mock_time.milliseconds() + i * 10), leader_epoch=0)
    log.roll()
    with pytest.raises(FileNotFoundError):  # NoSuchFileException
        log.active_segment().sanity_check(True)
    log.flush(True)
    # flushing the active segment created its empty index file
    log.active_segment().sanity_check(True)
    last_offset = log.log_end_offset()

    log = create_log(ctx, ctx.log_dir, log_config, recovery_point=last_offset, last_shutdown_clean=False)
    assert log.recovery_point() == last_offset, "Unexpected recovery point"
    assert log.log_end_offset() == 2 * num_messages, (
        f"Should have {num_messages} messages when log is reopened w/o recovery")
    assert log.active_segment().time_index().entries() == 0, (
        "Should have same number of time index entries as before.")
    log.active_segment().sanity_check(True)

    log.close()


@pytest.mark.parametrize(("is_remote_log_enabled", "expected_log_start_offset"), [(False, 5), (True, 0)])
def test_log_start_offset_when_remote_storage_is_enabled(ctx: _Ctx, is_remote_log_enabled: bool,
                                                         expected_log_start_offset: int) -> None:
    log_dir_failure_channel = None
    topic_partition = unified_log.parse_topic_partition_name(ctx.log_dir)
    log_config = LogTestUtils.create_log_config()
    state_manager = _mock_producer_state_manager()
    state_manager.is_empty.return_value = True

    log = create_log(ctx, ctx.log_dir, log_config)
    # segments [0-0] .. [8-8] and an empty active [9-]
    for i in range(9):
        record = SimpleRecord(str(i).encode(), timestamp=ctx.mock_time.milliseconds())
        log.append_as_leader(_records([record]), leader_epoch=0)
        log.roll()
    log.maybe_increment_high_watermark(LogOffsetMetadata(9))
    log.maybe_increment_log_start_offset(5, LogStartOffsetIncrementReason.SegmentDeletion)
    log.delete_old_segments()

    segments = LogSegments(topic_partition)
    for segment in log.log_segments():
        segments.add(segment)
    assert segments.first_segment().base_offset() == 5

    leader_epoch_cache = unified_log.maybe_create_leader_epoch_cache(
        ctx.log_dir, topic_partition, log_dir_failure_channel, log_config.record_version(), "", None,
        ctx.mock_time.scheduler)
    offsets = LogLoader(ctx.log_dir, topic_partition, log_config, ctx.mock_time.scheduler, ctx.mock_time,
                        log_dir_failure_channel, True, segments, 0, 0, leader_epoch_cache, state_manager,
                        is_remote_log_enabled=is_remote_log_enabled).load()
    assert offsets.log_start_offset == expected_log_start_offset
