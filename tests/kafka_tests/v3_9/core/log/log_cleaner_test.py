"""Port of core/src/test/scala/unit/kafka/log/LogCleanerTest.scala (Kafka 3.9).

FakeOffsetMap is ported as Kafka has it (keys as strings). A UnifiedLog subclass that overrides one method is a log
whose method is replaced on the instance. Pool is a dict; ByteBuffer keys are bytes.
"""

from __future__ import annotations

import random
import shutil
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kafka_edu.v1_0_2.clients.common.errors import (
    CorruptRecordException,
    IllegalStateException,
    LogCleaningAbortedException,
)
from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType
from kafka_edu.v3_9.clients.common.record.end_transaction_marker import EndTransactionMarker
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record_batch import (
    CURRENT_MAGIC_VALUE,
    NO_PARTITION_LEADER_EPOCH,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    NO_SEQUENCE,
)
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.log import unified_log
from kafka_edu.v3_9.core.log.log_cleaner import (
    CleanedTransactionMetadata,
    Cleaner,
    CleanerStats,
    LogCleaner,
    LogToClean,
)
from kafka_edu.v3_9.core.log.unified_log import UnifiedLog
from kafka_edu.v3_9.server_common.server.util.mock_time import MockTime
from kafka_edu.v3_9.storage.storage.internals.log import log_file_utils
from kafka_edu.v3_9.storage.storage.internals.log.aborted_txn import AbortedTxn
from kafka_edu.v3_9.storage.storage.internals.log.append_origin import AppendOrigin
from kafka_edu.v3_9.storage.storage.internals.log.log_append_info import LogAppendInfo
from kafka_edu.v3_9.storage.storage.internals.log.log_config import LogConfig
from kafka_edu.v3_9.storage.storage.internals.log.log_dir_failure_channel import LogDirFailureChannel
from kafka_edu.v3_9.storage.storage.internals.log.log_start_offset_increment_reason import (
    LogStartOffsetIncrementReason,
)
from kafka_edu.v3_9.storage.storage.internals.log.offset_map import OffsetMap
from kafka_edu.v3_9.storage.storage.internals.log.producer_state_manager_config import ProducerStateManagerConfig
from kafka_edu.v3_9.storage.storage.internals.utils.throttler import Throttler
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.core.log import log_test_utils as LogTestUtils

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/log/LogCleanerTest.scala",
    cases=[
        "testRemoveMetricsOnClose",
        "testMetricsActiveAfterReconfiguration",
        "testCleanSegments",
        "testCleanSegmentsWithConcurrentSegmentDeletion",
        "testSizeTrimmedForPreallocatedAndCompactedTopic",
        "testDuplicateCheckAfterCleaning",
        "testMultiPassSegmentCleaningWithAbortedTransactions",
        "testBasicTransactionAwareCleaning",
        "testCleanWithTransactionsSpanningSegments",
        "testCommitMarkerRemoval",
        "testDeletedBatchesWithNoMessagesRead",
        "testCommitMarkerRetentionWithEmptyBatch",
        "testCleanEmptyControlBatch",
        "testCommittedTransactionSpanningSegments",
        "testAbortedTransactionSpanningSegments",
        "testAbortMarkerRemoval",
        "testEmptyBatchRemovalWithSequenceReuse",
        "testAbortMarkerRetentionWithEmptyBatch",
        "testLargeMessage",
        "testMessageLargerThanMaxMessageSize",
        "testMessageLargerThanMaxMessageSizeWithCorruptHeader",
        "testCorruptMessageSizeLargerThanBytesAvailable",
        "testCleaningWithDeletes",
        "testLogCleanerStats",
        "testLogCleanerRetainsProducerLastSequence",
        "testLogCleanerRetainsLastSequenceEvenIfTransactionAborted",
        "testCleaningWithKeysConflictingWithTxnMarkerKeys",
        "testPartialSegmentClean",
        "testCleaningWithUncleanableSection",
        "testLogToClean",
        "testLogToCleanWithUncleanableSection",
        "testCleaningWithUnkeyedMessages",
        "testCleanSegmentsWithAbort",
        "testSegmentGrouping",
        "testSegmentGroupingWithSparseOffsetsAndEmptySegments",
        "testSegmentGroupingWithSparseOffsets",
        "testSegmentGroupingFollowingLoadOfZeroIndex",
        "testBuildOffsetMap",
        "testSegmentWithOffsetOverflow",
        "testRecoveryAfterCrash",
        "testBuildOffsetMapFakeLarge",
        "testBuildPartialOffsetMap",
        "testCleanCorruptMessageSet",
        "testClientHandlingOfCorruptMessageSet",
        "testCleanTombstone",
        "testCleaningBeyondMissingOffsets",
        "testMaxCleanTimeSecs",
        "testReconfigureLogCleanerIoMaxBytesPerSecond",
    ],
    not_applicable={
        "testRemoveMetricsOnClose": "Yammer metrics and Mockito: the port has no metrics registry",
        "testMetricsActiveAfterReconfiguration": "Yammer metrics: the port has no metrics registry",
        "testMaxCleanTimeSecs": "reads the max-clean-time-secs gauge: no metrics registry",
    },
    not_ported={},
)

LONG_MAX = 2**63 - 1
INT_MAX = 2**31 - 1
PRODUCER_ID_EXPIRATION_MS_DEFAULT = 86400000
PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_DEFAULT = 600000
TOMBSTONE_RETENTION_MS = 86400000
LARGE_TIMESTAMP = LONG_MAX - TOMBSTONE_RETENTION_MS - 1
TP = TopicPartition("test", 0)


class FakeOffsetMap(OffsetMap):
    def __init__(self, slots: int) -> None:
        self._slots = slots
        self.map: dict[str, int] = {}
        self.last_offset = -1

    def slots(self) -> int:
        return self._slots

    @staticmethod
    def _key_for(key: bytes) -> str:
        return bytes(key).decode("utf-8")

    def put(self, key: bytes, offset: int) -> None:
        self.last_offset = offset
        self.map[self._key_for(key)] = offset

    def get(self, key: bytes) -> int:
        return self.map.get(self._key_for(key), -1)

    def clear(self) -> None:
        self.map.clear()

    def size(self) -> int:
        return len(self.map)

    def latest_offset(self) -> int:
        return self.last_offset

    def update_latest_offset(self, offset: int) -> None:
        self.last_offset = offset

    def __repr__(self) -> str:
        return repr(self.map)


def _random_partition_log_dir(parent_dir: Path) -> Path:
    while True:
        f = parent_dir / f"kafka-{random.randrange(1000000)}"
        if not f.exists():
            f.mkdir(parents=True)
            return f


class Ctx:
    def __init__(self, tmp_path: Path) -> None:
        self.tmpdir = tmp_path / "tmp"
        self.tmpdir.mkdir()
        self.dir = _random_partition_log_dir(self.tmpdir)
        self.log_props: dict[str, Any] = {"segment.bytes": 1024, "segment.index.bytes": 1024,
                                          "cleanup.policy": "compact"}
        self.log_config = LogConfig(self.log_props)
        self.time = MockTime()
        self.throttler = Throttler(1.7976931348623157e308, LONG_MAX // 1_000_000, "throttler", "entries", self.time)
        self.producer_state_manager_config = ProducerStateManagerConfig(PRODUCER_ID_EXPIRATION_MS_DEFAULT, False)
        self.logs: list[UnifiedLog] = []

    def config(self, **props: Any) -> LogConfig:
        """LogConfig.fromProps(logConfig.originals, props); keyword names use _ for ."""
        return LogConfig({**self.log_props, **{k.replace("_", "."): v for k, v in props.items()}})

    def make_log(self, dir: Path | None = None, config: LogConfig | None = None, recovery_point: int = 0) -> UnifiedLog:
        lg = LogTestUtils.create_log(dir if dir is not None else self.dir,
                                     config if config is not None else self.log_config, None, self.time.scheduler,
                                     self.time, recovery_point=recovery_point,
                                     producer_state_manager_config=self.producer_state_manager_config,
                                     producer_id_expiration_check_interval_ms=PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_DEFAULT)
        self.logs.append(lg)
        return lg

    def make_cleaner(self, capacity: int, check_done: Callable[[TopicPartition], None] = lambda tp: None,
                     max_message_size: int = 64 * 1024) -> Cleaner:
        return Cleaner(id=0, offset_map=FakeOffsetMap(capacity), io_buffer_size=max_message_size,
                       max_io_buffer_size=max_message_size, dup_buffer_load_factor=0.75, throttler=self.throttler,
                       time=self.time, check_done=check_done)

    def append_idempotent_as_leader(self, log: UnifiedLog, producer_id: int, producer_epoch: int,
                                    is_transactional: bool = False, leader_epoch: int = 0,
                                    origin: AppendOrigin = AppendOrigin.CLIENT) -> Callable[[Iterable[int]],
                                                                                            LogAppendInfo]:
        sequence = 0

        def append(keys: Iterable[int]) -> LogAppendInfo:
            nonlocal sequence
            # the value does not matter: the tests check offsets
            simple_records = [SimpleRecord(str(k).encode(), str(k).encode(), self.time.milliseconds()) for k in keys]
            if is_transactional:
                records = MemoryRecords.with_transactional_records(Compression.NONE, producer_id, producer_epoch,
                                                                   sequence, *simple_records)
            else:
                records = MemoryRecords.with_idempotent_records(Compression.NONE, producer_id, producer_epoch,
                                                                sequence, *simple_records)
            sequence += len(simple_records)
            return log.append_as_leader(records, leader_epoch, origin)
        return append

    def append_transactional_as_leader(self, log: UnifiedLog, producer_id: int, producer_epoch: int,
                                       leader_epoch: int = 0,
                                       origin: AppendOrigin = AppendOrigin.CLIENT) -> Callable[[Iterable[int]],
                                                                                               LogAppendInfo]:
        return self.append_idempotent_as_leader(log, producer_id, producer_epoch, is_transactional=True,
                                                leader_epoch=leader_epoch, origin=origin)

    def commit_marker(self, producer_id: int, producer_epoch: int, timestamp: int | None = None) -> MemoryRecords:
        return end_txn_marker(producer_id, producer_epoch, ControlRecordType.COMMIT, 0,
                              self.time.milliseconds() if timestamp is None else timestamp)

    def abort_marker(self, producer_id: int, producer_epoch: int, timestamp: int | None = None) -> MemoryRecords:
        return end_txn_marker(producer_id, producer_epoch, ControlRecordType.ABORT, 0,
                              self.time.milliseconds() if timestamp is None else timestamp)

    def recover_and_check(self, config: LogConfig, expected_keys: Iterable[int]) -> UnifiedLog:
        lg = LogTestUtils.recover_and_check(self.dir, config, expected_keys, None, self.time, self.time.scheduler)
        self.logs.append(lg)
        return lg


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[Ctx]:
    c = Ctx(tmp_path)
    yield c
    for lg in c.logs:
        try:
            lg.close()
        except Exception:
            pass
    try:
        c.time.scheduler.shutdown()
    except Exception:
        pass
    shutil.rmtree(c.tmpdir, ignore_errors=True)


def end_txn_marker(producer_id: int, producer_epoch: int, control_record_type: ControlRecordType, offset: int,
                   timestamp: int) -> MemoryRecords:
    marker = EndTransactionMarker(control_record_type, 0)
    return MemoryRecords.with_end_transaction_marker(producer_id, producer_epoch, marker, initial_offset=offset,
                                                     timestamp=timestamp,
                                                     partition_leader_epoch=NO_PARTITION_LEADER_EPOCH)


def record(key: int, value: int | bytes | None, producer_id: int = NO_PRODUCER_ID,
           producer_epoch: int = NO_PRODUCER_EPOCH, sequence: int = NO_SEQUENCE,
           partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH) -> MemoryRecords:
    if value is None or isinstance(value, bytes):
        # record(key, value: Array[Byte]): TestUtils.singletonRecords
        return MemoryRecords.with_records(Compression.NONE, SimpleRecord(value, str(key).encode()))
    return MemoryRecords.with_idempotent_records(Compression.NONE, producer_id, producer_epoch, sequence,
                                                 SimpleRecord(str(value).encode(), str(key).encode()),
                                                 magic=CURRENT_MAGIC_VALUE, initial_offset=0,
                                                 partition_leader_epoch=partition_leader_epoch)


def unkeyed_record(value: int) -> MemoryRecords:
    return MemoryRecords.with_records(Compression.NONE, SimpleRecord(str(value).encode()))


def tombstone_record(key: int) -> MemoryRecords:
    return record(key, None)


def key(id: int) -> bytes:
    return str(id).encode()


def message_with_offset(key: int | bytes, value: int | bytes, offset: int) -> MemoryRecords:
    k = key if isinstance(key, bytes) else str(key).encode()
    v = value if isinstance(value, bytes) else str(value).encode()
    return MemoryRecords.with_records(Compression.NONE, SimpleRecord(v, k), initial_offset=offset,
                                      partition_leader_epoch=0)


def write_to_log(log: UnifiedLog, seq: Iterable[tuple[int, int]]) -> list[int]:
    return [log.append_as_leader(record(k, v), leader_epoch=0).first_offset for k, v in seq]


def write_to_log_with_offsets(log: UnifiedLog, keys_and_values: Iterable[tuple[int, int]],
                              offset_seq: Iterable[int]) -> list[int]:
    return [log.append_as_follower(message_with_offset(k, v, offset)).last_offset
            for (k, v), offset in zip(keys_and_values, offset_seq, strict=False)]


def batch_base_offsets_in_log(log: UnifiedLog) -> list[int]:
    return [batch.base_offset() for segment in log.log_segments() for batch in segment.log().batches()]


def last_offsets_per_batch_in_log(log: UnifiedLog) -> list[int]:
    return [batch.last_offset() for segment in log.log_segments() for batch in segment.log().batches()]


def last_sequences_in_log(log: UnifiedLog) -> dict[int, int]:
    return {batch.producer_id(): batch.last_sequence()
            for segment in log.log_segments() for batch in segment.log().batches()
            if not batch.is_control_batch() and batch.has_producer_id()}


def offsets_in_log(log: UnifiedLog) -> list[int]:
    return [r.offset() for s in log.log_segments() for r in s.log().records() if r.has_value() and r.has_key()]


def unkeyed_message_count_in_log(log: UnifiedLog) -> int:
    return sum(1 for s in log.log_segments() for r in s.log().records() if r.has_value() and not r.has_key())


def abort_check_done(topic_partition: TopicPartition) -> None:
    raise LogCleaningAbortedException()


def run_two_pass_clean(cleaner: Cleaner, log_to_clean: LogToClean, current_time: int,
                       tombstone_retention_ms: int = 86400000) -> int:
    """Two cleanings: the first writes the delete horizon into the batches with tombstones or markers of empty
    transactions, the second, past the horizon, removes them. Returns the second's first dirty offset."""
    cleaner.do_clean(log_to_clean, current_time)
    return cleaner.do_clean(log_to_clean, current_time + tombstone_retention_ms + 1)[0]


def ltc(log: UnifiedLog, first_dirty: int = 0, uncleanable: int | None = None) -> LogToClean:
    return LogToClean(TP, log, first_dirty, log.active_segment().base_offset() if uncleanable is None
                      else uncleanable)


def assert_all_aborted_txns(expected_aborted_txns: list[AbortedTxn], log: UnifiedLog) -> None:
    aborted_txns = log.collect_aborted_transactions(0, log.log_end_offset())
    assert aborted_txns == expected_aborted_txns


def assert_all_transactions_complete(log: UnifiedLog) -> None:
    assert all(p.current_txn_start_offset == -1 for p in log.active_producers())


# -- the cases -----------------------------------------------------------------------------------------------------

def test_clean_segments(ctx: Ctx) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(config=ctx.config(segment_bytes=1024))
    # four segments
    while log.number_of_segments() < 4:
        log.append_as_leader(record(log.log_end_offset(), log.log_end_offset()), leader_epoch=0)
    keys_found = LogTestUtils.keys_in_log(log)
    assert keys_found == list(range(log.log_end_offset()))

    # pretend we have these keys
    keys = [1, 3, 5, 7, 9]
    map = FakeOffsetMap(INT_MAX)
    for k in keys:
        map.put(key(k), LONG_MAX)

    segments = log.log_segments()[:3]
    stats = CleanerStats()
    expected_bytes_read = sum(s.size() for s in segments)
    should_remain = [k for k in LogTestUtils.keys_in_log(log) if k not in keys]
    cleaner.clean_segments(log, segments, map, 0, stats, CleanedTransactionMetadata(), -1)
    assert LogTestUtils.keys_in_log(log) == should_remain
    assert stats.bytes_read == expected_bytes_read


def test_clean_segments_with_concurrent_segment_deletion(ctx: Ctx) -> None:
    delete_start_latch = threading.Event()
    delete_complete_latch = threading.Event()
    # a log whose replaceSegments waits for another thread's deleteOldSegments
    log = ctx.make_log(config=ctx.config(segment_bytes=1024, cleanup_policy="compact,delete"))
    original_replace_segments = log.replace_segments

    def replace_segments(new_segments: Any, old_segments: Any) -> None:
        delete_start_latch.set()
        if not delete_complete_latch.wait(5):
            raise IllegalStateException("Log segment deletion timed out")
        original_replace_segments(new_segments, old_segments)
    log.replace_segments = replace_segments  # type: ignore[method-assign]

    def run() -> None:
        delete_start_latch.wait(5)
        log.update_high_watermark(log.active_segment().base_offset())
        log.maybe_increment_log_start_offset(log.active_segment().base_offset(),
                                             LogStartOffsetIncrementReason.LeaderOffsetIncremented)
        log.update_high_watermark(log.active_segment().base_offset())
        log.delete_old_segments()
        delete_complete_latch.set()
    t = threading.Thread(target=run, daemon=True)
    t.start()

    while log.number_of_segments() < 3:
        log.append_as_leader(record(0, log.log_end_offset()), leader_epoch=0)
        log.roll()
    assert log.number_of_segments() == 3

    first_log_file = log.log_segments()[0].log()
    expected_file_name = str(first_log_file.file()) + log_file_utils.DELETED_FILE_SUFFIX

    offset_map = FakeOffsetMap(INT_MAX)
    cleaner = ctx.make_cleaner(INT_MAX)
    segments = log.log_segments(0, log.active_segment().base_offset())
    stats = CleanerStats()
    cleaner.build_offset_map(log, 0, log.active_segment().base_offset(), offset_map, stats)
    cleaner.clean_segments(log, segments, offset_map, 0, stats, CleanedTransactionMetadata(), -1)
    t.join(5)

    # renamed exactly once for the async deletion
    assert str(first_log_file.file()) == expected_file_name
    assert log.number_of_segments() == 2


def test_size_trimmed_for_preallocated_and_compacted_topic(ctx: Ctx) -> None:
    original_max_file_size = 1024
    cleaner = ctx.make_cleaner(2)
    log = ctx.make_log(config=ctx.config(segment_bytes=original_max_file_size, cleanup_policy="compact",
                                         preallocate="true"))
    for k in (0, 1, 0, 1, 0):
        log.append_as_leader(record(k, k), leader_epoch=0)
    log.roll()
    cleaner.clean(LogToClean(TP, log, 2, log.active_segment().base_offset()))
    assert log.log_segments()[0].log().channel().size() < original_max_file_size, \
        "Cleaned segment file should be trimmed to its real size."


def test_duplicate_check_after_cleaning(ctx: Ctx) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    config = ctx.config(segment_bytes=2048)
    log = ctx.make_log(config=config)
    producer_epoch = 0
    pid1, pid2, pid3, pid4 = 1, 2, 3, 4

    ctx.append_idempotent_as_leader(log, pid1, producer_epoch)([1, 2, 3])
    ctx.append_idempotent_as_leader(log, pid2, producer_epoch)([3, 1, 4])
    ctx.append_idempotent_as_leader(log, pid3, producer_epoch)([1, 4])

    log.roll()
    cleaner.clean(ltc(log))
    assert last_offsets_per_batch_in_log(log) == [2, 5, 7]
    assert last_sequences_in_log(log) == {pid1: 2, pid2: 2, pid3: 1}
    assert LogTestUtils.keys_in_log(log) == [2, 3, 1, 4]
    assert offsets_in_log(log) == [1, 3, 6, 7]

    # reload the log: the cleaner must have kept the sequence numbers right
    def reload_log() -> UnifiedLog:
        log.close()
        return ctx.make_log(config=config, recovery_point=0)

    log = reload_log()
    log_append_info = ctx.append_idempotent_as_leader(log, pid1, producer_epoch)([1, 2, 3])
    assert (log_append_info.first_offset, log_append_info.last_offset) == (0, 2)
    log_append_info = ctx.append_idempotent_as_leader(log, pid3, producer_epoch)([1, 4])
    assert (log_append_info.first_offset, log_append_info.last_offset) == (6, 7)
    log_append_info = ctx.append_idempotent_as_leader(log, pid2, producer_epoch)([3, 1, 4])
    assert (log_append_info.first_offset, log_append_info.last_offset) == (3, 5)

    # one more append and cleaning deletes more of producer 1's batch
    ctx.append_idempotent_as_leader(log, pid4, producer_epoch)([2])
    log.roll()
    cleaner.clean(ltc(log))
    assert last_sequences_in_log(log) == {pid1: 2, pid2: 2, pid3: 1, pid4: 0}
    assert last_offsets_per_batch_in_log(log) == [2, 5, 7, 8]
    assert LogTestUtils.keys_in_log(log) == [3, 1, 4, 2]
    assert offsets_in_log(log) == [3, 6, 7, 8]

    log = reload_log()
    log_append_info = ctx.append_idempotent_as_leader(log, pid1, producer_epoch)([1, 2, 3])
    assert (log_append_info.first_offset, log_append_info.last_offset) == (0, 2)


def test_multi_pass_segment_cleaning_with_aborted_transactions(ctx: Ctx) -> None:
    # aborted transaction state (and its index) survives a cleaning in several passes
    delete_retention_ms = 50000
    offset_map_slots = 4
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(config=ctx.config(**{"delete.retention.ms": str(delete_retention_ms)}))
    producer_epoch = 0
    producer_id1, producer_id2 = 1, 2
    append_producer1 = ctx.append_transactional_as_leader(log, producer_id1, producer_epoch)
    append_producer2 = ctx.append_transactional_as_leader(log, producer_id2, producer_epoch)

    def abort(producer_id: int) -> None:
        log.append_as_leader(ctx.abort_marker(producer_id, producer_epoch), leader_epoch=0,
                             origin=AppendOrigin.REPLICATION)

    def commit(producer_id: int) -> None:
        log.append_as_leader(ctx.commit_marker(producer_id, producer_epoch), leader_epoch=0,
                             origin=AppendOrigin.REPLICATION)

    append_producer1([1, 2])  # [0, 1]
    append_producer2([2, 3])  # [2, 3]
    append_producer1([3, 4])  # [4, 5]
    commit(producer_id1)      # [6, 6]
    commit(producer_id2)      # [7, 7]
    append_producer1([2, 3])  # [8, 9]
    abort(producer_id1)       # [10, 10]
    append_producer2([4, 5])  # [11, 12]
    append_producer1([5, 6])  # [13, 14]
    commit(producer_id1)      # [15, 15]
    abort(producer_id2)       # [16, 16]
    append_producer2([6, 7])  # [17, 18]
    commit(producer_id2)      # [19, 19]

    log.roll()
    assert log.log_end_offset() == 20

    expected_aborted_txns = [AbortedTxn(producer_id1, 8, 10, 11), AbortedTxn(producer_id2, 11, 16, 17)]
    assert_all_transactions_complete(log)
    assert_all_aborted_txns(expected_aborted_txns, log)

    dirty_offset = 0

    def clean_segments() -> None:
        nonlocal dirty_offset
        offset_map = FakeOffsetMap(offset_map_slots)
        segments = log.log_segments(0, log.active_segment().base_offset())
        stats = CleanerStats(ctx.time)
        cleaner.build_offset_map(log, dirty_offset, log.active_segment().base_offset(), offset_map, stats)
        cleaner.clean_segments(log, segments, offset_map, ctx.time.milliseconds(), stats,
                               CleanedTransactionMetadata(), LONG_MAX)
        dirty_offset = offset_map.latest_offset() + 1

    # first pass: the aborted data goes, the markers stay until their retention
    clean_segments()
    assert dirty_offset == 4
    assert batch_base_offsets_in_log(log) == [0, 2, 4, 6, 7, 10, 13, 15, 16, 17, 19]
    assert offsets_in_log(log) == [0, 2, 3, 4, 5, 6, 7, 10, 13, 14, 15, 16, 17, 18, 19]
    assert_all_transactions_complete(log)
    assert_all_aborted_txns(expected_aborted_txns, log)

    # second pass: no aborted data left; the markers stay but leave the transaction index
    clean_segments()
    assert dirty_offset == 14
    assert batch_base_offsets_in_log(log) == [0, 2, 4, 6, 7, 10, 13, 15, 16, 17, 19]
    assert offsets_in_log(log) == [0, 2, 4, 5, 6, 7, 10, 13, 14, 15, 16, 17, 18, 19]
    assert_all_transactions_complete(log)
    assert_all_aborted_txns([], log)

    # last pass, after the retention: the abort markers (10 and 16) go
    ctx.time.sleep(delete_retention_ms)
    clean_segments()
    assert dirty_offset == 20
    assert batch_base_offsets_in_log(log) == [0, 2, 4, 6, 7, 13, 15, 17, 19]
    assert offsets_in_log(log) == [0, 2, 4, 5, 6, 7, 13, 15, 17, 18, 19]
    assert_all_transactions_complete(log)
    assert_all_aborted_txns([], log)


def test_basic_transaction_aware_cleaning(ctx: Ctx) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(config=ctx.config(segment_bytes=2048))
    producer_epoch = 0
    pid1, pid2 = 1, 2
    append_producer1 = ctx.append_transactional_as_leader(log, pid1, producer_epoch)
    append_producer2 = ctx.append_transactional_as_leader(log, pid2, producer_epoch)

    append_producer1([1, 2])
    append_producer2([2, 3])
    append_producer1([3, 4])
    log.append_as_leader(ctx.abort_marker(pid1, producer_epoch), leader_epoch=0, origin=AppendOrigin.COORDINATOR)
    log.append_as_leader(ctx.commit_marker(pid2, producer_epoch), leader_epoch=0, origin=AppendOrigin.COORDINATOR)
    append_producer1([2])
    log.append_as_leader(ctx.commit_marker(pid1, producer_epoch), leader_epoch=0, origin=AppendOrigin.COORDINATOR)

    aborted_transactions = log.collect_aborted_transactions(log.log_start_offset, log.log_end_offset())

    log.roll()
    cleaner.clean(ltc(log))
    assert LogTestUtils.keys_in_log(log) == [3, 2]
    assert offsets_in_log(log) == [3, 6, 7, 8, 9]
    # the transaction index is still right
    assert log.collect_aborted_transactions(log.log_start_offset, log.log_end_offset()) == aborted_transactions


def test_clean_with_transactions_spanning_segments(ctx: Ctx) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(config=ctx.config(segment_bytes=1024))
    producer_epoch = 0
    pid1, pid2, pid3 = 1, 2, 3
    append_producer1 = ctx.append_transactional_as_leader(log, pid1, producer_epoch)
    append_producer2 = ctx.append_transactional_as_leader(log, pid2, producer_epoch)
    append_producer3 = ctx.append_transactional_as_leader(log, pid3, producer_epoch)

    append_producer1([1, 2])
    append_producer3([2, 3])
    append_producer2([3, 4])
    log.roll()
    append_producer2([5, 6])
    append_producer3([6, 7])
    append_producer1([7, 8])
    log.append_as_leader(ctx.abort_marker(pid2, producer_epoch), leader_epoch=0, origin=AppendOrigin.COORDINATOR)
    append_producer3([8, 9])
    log.append_as_leader(ctx.commit_marker(pid3, producer_epoch), leader_epoch=0, origin=AppendOrigin.COORDINATOR)
    append_producer1([9, 10])
    log.append_as_leader(ctx.abort_marker(pid1, producer_epoch), leader_epoch=0, origin=AppendOrigin.COORDINATOR)

    # only the first segment's records are cleaned
    dirty_offset = cleaner.clean(ltc(log))[0]
    assert LogTestUtils.keys_in_log(log) == [2, 3, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10]

    log.roll()
    # a couple more in the new segment, so there are sequence numbers
    append_producer2([11])
    append_producer1([12])

    # only pid3's keys remain
    cleaner.clean(ltc(log, dirty_offset))
    assert LogTestUtils.keys_in_log(log) == [2, 3, 6, 7, 8, 9, 11, 12]


def test_commit_marker_removal(ctx: Ctx) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(config=ctx.config(segment_bytes=256))
    producer_epoch, producer_id = 0, 1
    append_producer = ctx.append_transactional_as_leader(log, producer_id, producer_epoch)

    append_producer([1])
    append_producer([2, 3])
    log.append_as_leader(ctx.commit_marker(producer_id, producer_epoch), leader_epoch=0,
                         origin=AppendOrigin.COORDINATOR)
    append_producer([2])
    log.append_as_leader(ctx.commit_marker(producer_id, producer_epoch), leader_epoch=0,
                         origin=AppendOrigin.COORDINATOR)
    log.roll()

    # the marker stays: its transaction still has records
    dirty_offset = cleaner.do_clean(ltc(log), current_time=LARGE_TIMESTAMP)[0]
    assert LogTestUtils.keys_in_log(log) == [1, 3, 2]
    assert offsets_in_log(log) == [0, 2, 3, 4, 5]

    append_producer([1, 3])
    log.append_as_leader(ctx.commit_marker(producer_id, producer_epoch), leader_epoch=0,
                         origin=AppendOrigin.COORDINATOR)
    log.roll()

    # the first cleaning keeps the commit marker at 3: its transaction still had records
    dirty_offset = cleaner.do_clean(ltc(log, dirty_offset), current_time=LARGE_TIMESTAMP)[0]
    assert LogTestUtils.keys_in_log(log) == [2, 1, 3]
    assert offsets_in_log(log) == [3, 4, 5, 6, 7, 8]

    # the same time again: the marker is not removed early
    dirty_offset = cleaner.do_clean(ltc(log, dirty_offset), current_time=LARGE_TIMESTAMP)[0]
    assert LogTestUtils.keys_in_log(log) == [2, 1, 3]
    assert offsets_in_log(log) == [3, 4, 5, 6, 7, 8]

    # at the max timestamp it goes
    dirty_offset = cleaner.do_clean(ltc(log, dirty_offset), current_time=LONG_MAX)[0]
    assert LogTestUtils.keys_in_log(log) == [2, 1, 3]
    assert offsets_in_log(log) == [4, 5, 6, 7, 8]


def test_deleted_batches_with_no_messages_read(ctx: Ctx) -> None:
    # deleted batches with nothing more to read in the buffer: cleaning goes on from the next offset
    cleaner = ctx.make_cleaner(capacity=INT_MAX, max_message_size=100)
    log = ctx.make_log(config=ctx.config(**{"max.message.bytes": 100, "segment.bytes": 1000}))
    producer_epoch, producer_id = 0, 1
    append_producer = ctx.append_transactional_as_leader(log, producer_id, producer_epoch)

    append_producer([1])
    log.append_as_leader(ctx.abort_marker(producer_id, producer_epoch), leader_epoch=0,
                         origin=AppendOrigin.COORDINATOR)
    append_producer([2])
    append_producer([2])
    log.append_as_leader(ctx.commit_marker(producer_id, producer_epoch), leader_epoch=0,
                         origin=AppendOrigin.COORDINATOR)
    log.roll()

    cleaner.do_clean(ltc(log), current_time=LARGE_TIMESTAMP)
    assert LogTestUtils.keys_in_log(log) == [2]
    assert offsets_in_log(log) == [1, 3, 4]

    # the first pass sets the commit's delete horizon, the second removes it
    run_two_pass_clean(cleaner, ltc(log), current_time=LARGE_TIMESTAMP)
    assert LogTestUtils.keys_in_log(log) == [2]
    assert offsets_in_log(log) == [3, 4]


def test_commit_marker_retention_with_empty_batch(ctx: Ctx) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(config=ctx.config(segment_bytes=256))
    producer_epoch = 0
    producer1 = ctx.append_transactional_as_leader(log, 1, producer_epoch)
    producer2 = ctx.append_transactional_as_leader(log, 2, producer_epoch)

    producer1([2, 3])  # offsets 0, 1
    log.roll()
    producer2([2, 3])  # offsets 2, 3
    log.append_as_leader(ctx.commit_marker(2, producer_epoch), leader_epoch=0,
                         origin=AppendOrigin.COORDINATOR)  # offset 4
    log.roll()
    log.append_as_leader(record(2, 2), leader_epoch=0)  # offset 5
    log.append_as_leader(record(3, 3), leader_epoch=0)  # offset 6
    log.append_as_leader(ctx.commit_marker(1, producer_epoch), leader_epoch=0,
                         origin=AppendOrigin.COORDINATOR)  # offset 7
    log.roll()

    # first time through the records are removed
    dirty_offset = cleaner.do_clean(ltc(log), current_time=LARGE_TIMESTAMP)[0]
    assert LogTestUtils.keys_in_log(log) == [2, 3]
    assert offsets_in_log(log) == [4, 5, 6, 7]
    assert last_offsets_per_batch_in_log(log) == [1, 3, 4, 5, 6, 7]

    # the empty batch stays: it holds the last sequence
    dirty_offset = cleaner.do_clean(ltc(log, dirty_offset), current_time=LARGE_TIMESTAMP)[0]
    assert LogTestUtils.keys_in_log(log) == [2, 3]
    assert offsets_in_log(log) == [4, 5, 6, 7]
    assert last_offsets_per_batch_in_log(log) == [1, 3, 4, 5, 6, 7]

    # a new record from the producer lets the empty batch go
    producer2([1])  # offset 8
    log.append_as_leader(ctx.commit_marker(2, producer_epoch), leader_epoch=0,
                         origin=AppendOrigin.COORDINATOR)  # offset 9
    log.roll()

    # the commit's delete horizon is not set yet
    dirty_offset = cleaner.do_clean(ltc(log, dirty_offset), current_time=LARGE_TIMESTAMP)[0]
    assert LogTestUtils.keys_in_log(log) == [2, 3, 1]
    assert offsets_in_log(log) == [4, 5, 6, 7, 8, 9]
    assert last_offsets_per_batch_in_log(log) == [1, 4, 5, 6, 7, 8, 9]

    # the first pass sets the horizon of {Producer2: Commit}, the second removes it
    dirty_offset = run_two_pass_clean(cleaner, ltc(log, dirty_offset), current_time=LARGE_TIMESTAMP)
    assert LogTestUtils.keys_in_log(log) == [2, 3, 1]
    assert offsets_in_log(log) == [5, 6, 7, 8, 9]
    assert last_offsets_per_batch_in_log(log) == [1, 5, 6, 7, 8, 9]


def test_clean_empty_control_batch(ctx: Ctx) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(config=ctx.config(segment_bytes=256))
    producer_epoch = 0
    log.append_as_leader(ctx.commit_marker(1, producer_epoch), leader_epoch=0, origin=AppendOrigin.COORDINATOR)
    log.append_as_leader(record(2, 2), leader_epoch=0)
    log.append_as_leader(record(3, 3), leader_epoch=0)
    log.roll()

    # the marker's horizon is set, then it goes, but the empty batch stays for the producer epoch
    dirty_offset = run_two_pass_clean(cleaner, ltc(log), current_time=LARGE_TIMESTAMP)
    assert LogTestUtils.keys_in_log(log) == [2, 3]
    assert offsets_in_log(log) == [1, 2]
    assert last_offsets_per_batch_in_log(log) == [0, 1, 2]

    # the empty control batch cleans without an exception
    dirty_offset = cleaner.do_clean(ltc(log, dirty_offset), current_time=LONG_MAX)[0]
    assert LogTestUtils.keys_in_log(log) == [2, 3]
    assert offsets_in_log(log) == [1, 2]
    assert last_offsets_per_batch_in_log(log) == [0, 1, 2]


def test_committed_transaction_spanning_segments(ctx: Ctx) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(config=ctx.config(segment_bytes=128))
    producer_epoch, producer_id = 0, 1
    append_transaction = ctx.append_transactional_as_leader(log, producer_id, producer_epoch)
    append_transaction([1])
    log.roll()
    log.append_as_leader(ctx.commit_marker(producer_id, producer_epoch), leader_epoch=0,
                         origin=AppendOrigin.COORDINATOR)
    log.roll()

    # the record and the marker stay
    run_two_pass_clean(cleaner, ltc(log), current_time=LARGE_TIMESTAMP)
    assert offsets_in_log(log) == [0, 1]
    assert last_offsets_per_batch_in_log(log) == [0, 1]


def test_aborted_transaction_spanning_segments(ctx: Ctx) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(config=ctx.config(segment_bytes=128))
    producer_epoch, producer_id = 0, 1
    append_transaction = ctx.append_transactional_as_leader(log, producer_id, producer_epoch)
    append_transaction([1])
    log.roll()
    log.append_as_leader(ctx.abort_marker(producer_id, producer_epoch), leader_epoch=0,
                         origin=AppendOrigin.COORDINATOR)
    log.roll()

    # the batch stays (the producer's last entry), so does the marker (its transaction still has batches)
    cleaner.do_clean(ltc(log), current_time=LARGE_TIMESTAMP)
    assert offsets_in_log(log) == [1]
    assert last_offsets_per_batch_in_log(log) == [0, 1]

    # still after a second cleaning
    cleaner.do_clean(ltc(log), current_time=LONG_MAX)
    assert offsets_in_log(log) == [1]
    assert last_offsets_per_batch_in_log(log) == [0, 1]


def test_abort_marker_removal(ctx: Ctx) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(config=ctx.config(segment_bytes=256))
    producer_epoch, producer_id = 0, 1
    append_producer = ctx.append_transactional_as_leader(log, producer_id, producer_epoch)
    append_producer([1])
    append_producer([2, 3])
    log.append_as_leader(ctx.abort_marker(producer_id, producer_epoch), leader_epoch=0,
                         origin=AppendOrigin.COORDINATOR)
    append_producer([3])
    log.append_as_leader(ctx.commit_marker(producer_id, producer_epoch), leader_epoch=0,
                         origin=AppendOrigin.COORDINATOR)
    log.roll()

    # the aborted records go, the abort marker stays
    dirty_offset = cleaner.do_clean(ltc(log), current_time=LARGE_TIMESTAMP)[0]
    assert LogTestUtils.keys_in_log(log) == [3]
    assert offsets_in_log(log) == [3, 4, 5]

    # the first pass sets the abort marker's horizon, the second removes it
    run_two_pass_clean(cleaner, ltc(log, dirty_offset), current_time=LARGE_TIMESTAMP)
    assert LogTestUtils.keys_in_log(log) == [3]
    assert offsets_in_log(log) == [4, 5]


def test_empty_batch_removal_with_sequence_reuse(ctx: Ctx) -> None:
    # the group coordinator starts every batch at sequence 0: old empty batches and markers still go
    producer_epoch, producer_id = 0, 1
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(config=ctx.config(segment_bytes=2048))

    append_first_transaction = ctx.append_transactional_as_leader(log, producer_id, producer_epoch,
                                                                  origin=AppendOrigin.REPLICATION)
    append_first_transaction([1])
    log.append_as_leader(ctx.commit_marker(producer_id, producer_epoch), leader_epoch=0,
                         origin=AppendOrigin.COORDINATOR)
    append_second_transaction = ctx.append_transactional_as_leader(log, producer_id, producer_epoch,
                                                                   origin=AppendOrigin.REPLICATION)
    append_second_transaction([2])
    log.append_as_leader(ctx.commit_marker(producer_id, producer_epoch), leader_epoch=0,
                         origin=AppendOrigin.COORDINATOR)
    log.append_as_leader(record(1, 1), leader_epoch=0)
    log.append_as_leader(record(2, 1), leader_epoch=0)
    log.roll()

    # both transactional batches are cleaned; the last stays empty for the producer's sequence and epoch
    cleaner.do_clean(ltc(log), current_time=LARGE_TIMESTAMP)
    assert offsets_in_log(log) == [1, 3, 4, 5]
    assert last_offsets_per_batch_in_log(log) == [1, 2, 3, 4, 5]

    # the first marker's horizon is set, then it goes
    run_two_pass_clean(cleaner, ltc(log), current_time=LARGE_TIMESTAMP)
    assert offsets_in_log(log) == [3, 4, 5]
    assert last_offsets_per_batch_in_log(log) == [2, 3, 4, 5]


def test_abort_marker_retention_with_empty_batch(ctx: Ctx) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(config=ctx.config(segment_bytes=256))
    producer_epoch, producer_id = 0, 1
    append_producer = ctx.append_transactional_as_leader(log, producer_id, producer_epoch)
    append_producer([2, 3])  # batch last offset is 1
    log.append_as_leader(ctx.abort_marker(producer_id, producer_epoch), leader_epoch=0,
                         origin=AppendOrigin.COORDINATOR)
    log.roll()

    def assert_aborted_transaction_indexed() -> None:
        aborted_txns = log.collect_aborted_transactions(0, 100)
        assert len(aborted_txns) == 1
        assert aborted_txns[0].producer_id() == producer_id
        assert aborted_txns[0].first_offset() == 0
        assert aborted_txns[0].last_offset() == 2

    assert_aborted_transaction_indexed()

    # first time through the records are removed
    dirty_offset = cleaner.do_clean(ltc(log), current_time=LARGE_TIMESTAMP)[0]
    assert_aborted_transaction_indexed()
    assert LogTestUtils.keys_in_log(log) == []
    assert offsets_in_log(log) == [2]  # the abort marker stays
    assert last_offsets_per_batch_in_log(log) == [1, 2]  # so does the empty batch

    # the empty batch stays: it holds the last sequence
    dirty_offset = run_two_pass_clean(cleaner, ltc(log, dirty_offset), current_time=LARGE_TIMESTAMP)
    assert_aborted_transaction_indexed()
    assert LogTestUtils.keys_in_log(log) == []
    assert offsets_in_log(log) == [2]
    assert last_offsets_per_batch_in_log(log) == [1, 2]

    # a new last sequence lets the empty batch go
    append_producer([1])
    log.roll()
    dirty_offset = cleaner.do_clean(ltc(log, dirty_offset), current_time=LARGE_TIMESTAMP)[0]
    assert_aborted_transaction_indexed()
    assert LogTestUtils.keys_in_log(log) == [1]
    assert offsets_in_log(log) == [2, 3]  # the marker stays: the empty batch was read
    assert last_offsets_per_batch_in_log(log) == [2, 3]  # the empty batch is gone

    # the marker's horizon is set, then it goes
    dirty_offset = run_two_pass_clean(cleaner, ltc(log, dirty_offset), current_time=LARGE_TIMESTAMP)
    assert LogTestUtils.keys_in_log(log) == [1]
    assert offsets_in_log(log) == [3]
    assert last_offsets_per_batch_in_log(log) == [3]
    # the index keeps no empty aborted transaction
    assert len(log.collect_aborted_transactions(0, 100)) == 0


def test_large_message(ctx: Ctx) -> None:
    large_message_size = 1024 * 1024
    # a cleaner with a very small default max message size
    cleaner = ctx.make_cleaner(INT_MAX, max_message_size=1024)
    log = ctx.make_log(config=ctx.config(segment_bytes=large_message_size * 16,
                                         **{"max.message.bytes": large_message_size * 2}))
    while log.number_of_segments() < 2:
        log.append_as_leader(record(log.log_end_offset(), bytes(large_message_size)), leader_epoch=0)
    assert LogTestUtils.keys_in_log(log) == list(range(log.log_end_offset()))

    keys = [1, 3, 5, 7, 9]
    map = FakeOffsetMap(INT_MAX)
    for k in keys:
        map.put(key(k), LONG_MAX)

    stats = CleanerStats()
    cleaner.clean_segments(log, [log.log_segments()[0]], map, 0, stats, CleanedTransactionMetadata(), -1)
    should_remain = [k for k in LogTestUtils.keys_in_log(log) if k not in keys]
    assert LogTestUtils.keys_in_log(log) == should_remain


def create_log_with_messages_larger_than_max_size(ctx: Ctx, large_message_size: int) -> tuple[UnifiedLog,
                                                                                                FakeOffsetMap]:
    props = {"segment.bytes": large_message_size * 16, "max.message.bytes": large_message_size * 2}
    log = ctx.make_log(config=ctx.config(**props))
    while log.number_of_segments() < 2:
        log.append_as_leader(record(log.log_end_offset(), bytes(large_message_size)), leader_epoch=0)
    assert LogTestUtils.keys_in_log(log) == list(range(log.log_end_offset()))

    # the log's max message size goes down
    props["max.message.bytes"] = large_message_size // 2
    log.update_config(ctx.config(**props))

    map = FakeOffsetMap(INT_MAX)
    for k in [1, 3, 5, 7, 9]:
        map.put(key(k), LONG_MAX)
    return log, map


def test_message_larger_than_max_message_size(ctx: Ctx) -> None:
    log, offset_map = create_log_with_messages_larger_than_max_size(ctx, large_message_size=1024 * 1024)
    cleaner = ctx.make_cleaner(INT_MAX, max_message_size=1024)
    cleaner.clean_segments(log, [log.log_segments()[0]], offset_map, 0, CleanerStats(), CleanedTransactionMetadata(),
                           -1)
    should_remain = [k for k in LogTestUtils.keys_in_log(log) if str(k) not in offset_map.map]
    assert LogTestUtils.keys_in_log(log) == should_remain


def test_message_larger_than_max_message_size_with_corrupt_header(ctx: Ctx) -> None:
    from kafka_edu.v3_9.clients.common.record.records import MAGIC_OFFSET
    log, offset_map = create_log_with_messages_larger_than_max_size(ctx, large_message_size=1024 * 1024)
    with open(log.log_segments()[0].log().file(), "r+b") as file:
        file.seek(MAGIC_OFFSET)
        file.write(b"\xff")
    cleaner = ctx.make_cleaner(INT_MAX, max_message_size=1024)
    with pytest.raises(CorruptRecordException):
        cleaner.clean_segments(log, [log.log_segments()[0]], offset_map, 0, CleanerStats(),
                               CleanedTransactionMetadata(), -1)


def test_corrupt_message_size_larger_than_bytes_available(ctx: Ctx) -> None:
    log, offset_map = create_log_with_messages_larger_than_max_size(ctx, large_message_size=1024 * 1024)
    with open(log.log_segments()[0].log().file(), "r+b") as file:
        file.truncate(1024)
    cleaner = ctx.make_cleaner(INT_MAX, max_message_size=1024)
    with pytest.raises(CorruptRecordException):
        cleaner.clean_segments(log, [log.log_segments()[0]], offset_map, 0, CleanerStats(),
                               CleanedTransactionMetadata(), -1)


def test_cleaning_with_deletes(ctx: Ctx) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(config=ctx.config(segment_bytes=1024))
    # keys 0 through N
    while log.number_of_segments() < 2:
        log.append_as_leader(record(log.log_end_offset(), log.log_end_offset()), leader_epoch=0)
    # delete the even keys
    leo = log.log_end_offset()
    for k in range(0, leo, 2):
        log.append_as_leader(tombstone_record(k), leader_epoch=0)
    # new unique keys up to a new active segment
    while log.number_of_segments() < 4:
        log.append_as_leader(record(log.log_end_offset(), log.log_end_offset()), leader_epoch=0)

    cleaner.clean(LogToClean(TP, log, 0, log.active_segment().base_offset()))
    keys = set(LogTestUtils.keys_in_log(log))
    assert all(k not in keys for k in range(0, leo, 2)), "None of the keys we deleted should still exist."


def test_log_cleaner_stats(ctx: Ctx) -> None:
    # a load factor of 0.75: 3 messages fit the map
    cleaner = ctx.make_cleaner(4)
    log = ctx.make_log(config=ctx.config(segment_bytes=1024))
    for k in (0, 1, 0, 1, 0):
        log.append_as_leader(record(k, k), leader_epoch=0)
    log.roll()
    initial_log_size = log.size()

    end_offset, stats = cleaner.clean(LogToClean(TP, log, 2, log.active_segment().base_offset()))
    assert end_offset == 5
    assert stats.messages_read == 5
    assert stats.bytes_read == initial_log_size
    assert stats.messages_written == 2
    assert stats.bytes_written == log.size()
    assert stats.invalid_messages_read == 0
    assert stats.end_time >= stats.start_time


def test_log_cleaner_retains_producer_last_sequence(ctx: Ctx) -> None:
    cleaner = ctx.make_cleaner(10)
    log = ctx.make_log(config=ctx.config(segment_bytes=1024))
    log.append_as_leader(record(0, 0), leader_epoch=0)  # offset 0
    log.append_as_leader(record(0, 1, producer_id=1, producer_epoch=0, sequence=0), leader_epoch=0)  # offset 1
    log.append_as_leader(record(0, 2, producer_id=2, producer_epoch=0, sequence=0), leader_epoch=0)  # offset 2
    log.append_as_leader(record(0, 3, producer_id=3, producer_epoch=0, sequence=0), leader_epoch=0)  # offset 3
    log.append_as_leader(record(1, 1, producer_id=2, producer_epoch=0, sequence=1), leader_epoch=0)  # offset 4
    log.roll()

    cleaner.clean(ltc(log))
    assert last_offsets_per_batch_in_log(log) == [1, 3, 4]
    assert last_sequences_in_log(log) == {1: 0, 2: 1, 3: 0}
    assert LogTestUtils.keys_in_log(log) == [0, 1]
    assert offsets_in_log(log) == [3, 4]


def test_log_cleaner_retains_last_sequence_even_if_transaction_aborted(ctx: Ctx) -> None:
    cleaner = ctx.make_cleaner(10)
    log = ctx.make_log(config=ctx.config(segment_bytes=1024))
    producer_epoch, producer_id = 0, 1
    append_producer = ctx.append_transactional_as_leader(log, producer_id, producer_epoch)
    append_producer([1])
    append_producer([2, 3])
    log.append_as_leader(ctx.abort_marker(producer_id, producer_epoch), leader_epoch=0,
                         origin=AppendOrigin.COORDINATOR)
    log.roll()

    cleaner.clean(ltc(log))
    assert last_offsets_per_batch_in_log(log) == [2, 3]
    assert last_sequences_in_log(log) == {producer_id: 2}
    assert LogTestUtils.keys_in_log(log) == []
    assert offsets_in_log(log) == [3]

    # a new entry from the producer: the empty batch goes
    append_producer([1, 5])
    log.roll()
    cleaner.clean(ltc(log))
    assert last_offsets_per_batch_in_log(log) == [3, 5]
    assert last_sequences_in_log(log) == {producer_id: 4}
    assert LogTestUtils.keys_in_log(log) == [1, 5]
    assert offsets_in_log(log) == [3, 4, 5]


def test_cleaning_with_keys_conflicting_with_txn_marker_keys(ctx: Ctx) -> None:
    cleaner = ctx.make_cleaner(10)
    log = ctx.make_log(config=ctx.config(segment_bytes=1024))
    leader_epoch, producer_epoch = 5, 0

    # one committed transaction
    producer_id1 = 1
    append_producer = ctx.append_transactional_as_leader(log, producer_id1, producer_epoch, leader_epoch)
    append_producer([1])
    log.append_as_leader(ctx.commit_marker(producer_id1, producer_epoch), leader_epoch,
                         origin=AppendOrigin.COORDINATOR)

    # a transaction whose key is the COMMIT marker's key
    commit_record_key = ControlRecordType.COMMIT.record_key()
    producer_id2 = 2
    records = MemoryRecords.with_transactional_records(Compression.NONE, producer_id2, producer_epoch, 0,
                                                       SimpleRecord(b"foo", commit_record_key,
                                                                    ctx.time.milliseconds()))
    log.append_as_leader(records, leader_epoch, origin=AppendOrigin.CLIENT)
    log.append_as_leader(ctx.commit_marker(producer_id2, producer_epoch), leader_epoch,
                         origin=AppendOrigin.COORDINATOR)
    log.roll()
    assert offsets_in_log(log) == [0, 1, 2, 3]

    # the marker stays after cleaning
    cleaner.clean(ltc(log))
    assert last_offsets_per_batch_in_log(log) == [0, 1, 2, 3]
    assert offsets_in_log(log) == [0, 1, 2, 3]


def test_partial_segment_clean(ctx: Ctx) -> None:
    # a load factor of 0.75: 1 message fits the map
    cleaner = ctx.make_cleaner(2)
    log = ctx.make_log(config=ctx.config(segment_bytes=1024))
    for k in (0, 1, 0, 1, 0):
        log.append_as_leader(record(k, k), leader_epoch=0)
    log.roll()

    # one message removed
    cleaner.clean(LogToClean(TP, log, 2, log.active_segment().base_offset()))
    assert LogTestUtils.keys_in_log(log) == [1, 0, 1, 0]
    assert offsets_in_log(log) == [1, 2, 3, 4]

    # progress, one message at a time
    cleaner.clean(LogToClean(TP, log, 3, log.active_segment().base_offset()))
    assert LogTestUtils.keys_in_log(log) == [0, 1, 0]
    assert offsets_in_log(log) == [2, 3, 4]

    cleaner.clean(LogToClean(TP, log, 4, log.active_segment().base_offset()))
    assert LogTestUtils.keys_in_log(log) == [1, 0]
    assert offsets_in_log(log) == [3, 4]


def test_cleaning_with_uncleanable_section(ctx: Ctx) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(config=ctx.config(segment_bytes=1024))
    # few distinct keys, so each segment has duplicates
    n = 10
    num_cleanable_segments = 2
    num_total_segments = 7
    while log.number_of_segments() <= num_cleanable_segments:
        log.append_as_leader(record(log.log_end_offset() % n, log.log_end_offset()), leader_epoch=0)
    # one message past the cleanable segments: the segment holding the first uncleanable offset is not cleaned
    first_uncleanable_offset = log.log_end_offset() + 1
    while log.number_of_segments() < num_total_segments - 1:
        log.append_as_leader(record(log.log_end_offset() % n, log.log_end_offset()), leader_epoch=0)

    def distinct_values_by_segment() -> list[int]:
        return [len({bytes(r.value()).decode() for r in s.log().records()}) for s in log.log_segments()]

    before = distinct_values_by_segment()
    assert all(v > n for v in list(reversed(before))[1:]), \
        ("Test is not effective unless each segment contains duplicates. Increase segment size or decrease number of "
         "keys.")

    cleaner.clean(LogToClean(TP, log, 0, first_uncleanable_offset))
    after = distinct_values_by_segment()
    assert all(a < b for b, a in list(zip(before, after, strict=False))[:num_cleanable_segments]), \
        "The cleanable segments should have fewer number of values after cleaning"
    assert all(a == b for b, a in list(zip(before, after, strict=False))[num_cleanable_segments:num_total_segments]), \
        "The uncleanable segments should have the same number of values after cleaning"


def _singleton(value: bytes, key: bytes | None = None) -> MemoryRecords:
    """TestUtils.singletonRecords(value, key)."""
    return MemoryRecords.with_records(Compression.NONE, SimpleRecord(value, key))


def test_log_to_clean(ctx: Ctx) -> None:
    log = ctx.make_log(config=ctx.config(segment_bytes=100))
    # 6 segments of one message each
    for _ in range(6):
        log.append_as_leader(_singleton(bytes(25), b"1"), leader_epoch=0)
    log_to_clean = LogToClean(TP, log, log.active_segment().base_offset(), log.active_segment().base_offset())
    assert log_to_clean.total_bytes == log.size() - log.active_segment().size(), \
        "Total bytes of LogToClean should equal size of all segments excluding the active segment"


def test_log_to_clean_with_uncleanable_section(ctx: Ctx) -> None:
    log = ctx.make_log(config=ctx.config(segment_bytes=100))
    for _ in range(6):
        log.append_as_leader(_singleton(bytes(25), b"1"), leader_epoch=0)
    # [0, 1] clean, [2, 3] cleanable, [4, 5] uncleanable
    segs = log.log_segments()
    log_to_clean = LogToClean(TP, log, segs[2].base_offset(), segs[4].base_offset())
    expected_clean_size = sum(s.size() for s in segs[:2])
    expected_cleanable_size = sum(s.size() for s in segs[2:4])
    assert log_to_clean.clean_bytes == expected_clean_size
    assert log_to_clean.cleanable_bytes == expected_cleanable_size
    assert log_to_clean.total_bytes == expected_clean_size + expected_cleanable_size
    assert log_to_clean.cleanable_ratio == pytest.approx(
        expected_cleanable_size / (expected_clean_size + expected_cleanable_size), abs=1.0e-6)


def test_cleaning_with_unkeyed_messages(ctx: Ctx) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    # compaction off, so unkeyed messages may be appended
    log = ctx.make_log(config=ctx.config(segment_bytes=1024, cleanup_policy="delete"))
    while log.number_of_segments() < 2:
        log.append_as_leader(unkeyed_record(log.log_end_offset()), leader_epoch=0)
    num_invalid_messages = unkeyed_message_count_in_log(log)
    size_with_unkeyed_messages = log.size()
    while log.number_of_segments() < 3:
        log.append_as_leader(record(log.log_end_offset(), log.log_end_offset()), leader_epoch=0)

    expected_size_after_cleaning = log.size() - size_with_unkeyed_messages
    _, stats = cleaner.clean(LogToClean(TP, log, 0, log.active_segment().base_offset()))
    assert unkeyed_message_count_in_log(log) == 0, "Log should only contain keyed messages after cleaning."
    assert log.size() == expected_size_after_cleaning, "Log should only contain keyed messages after cleaning."
    assert stats.invalid_messages_read == num_invalid_messages


def test_clean_segments_with_abort(ctx: Ctx) -> None:
    cleaner = ctx.make_cleaner(INT_MAX, abort_check_done)
    log = ctx.make_log(config=ctx.config(segment_bytes=1024))
    while log.number_of_segments() < 4:
        log.append_as_leader(record(log.log_end_offset(), log.log_end_offset()), leader_epoch=0)
    keys = LogTestUtils.keys_in_log(log)
    map = FakeOffsetMap(INT_MAX)
    for k in keys:
        map.put(key(k), LONG_MAX)
    with pytest.raises(LogCleaningAbortedException):
        cleaner.clean_segments(log, log.log_segments()[:3], map, 0, CleanerStats(), CleanedTransactionMetadata(), -1)


def check_segment_order(groups: list[list[Any]]) -> None:
    offsets = [s.base_offset() for g in groups for s in g]
    assert offsets == sorted(offsets), "Offsets should be in increasing order."


def test_segment_grouping(ctx: Ctx) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(config=ctx.config(segment_bytes=300, **{"index.interval.bytes": 1}))
    while log.number_of_segments() < 10:
        log.append_as_leader(_singleton(b"hello", b"hello"), leader_epoch=0)

    # very large limits: one group of everything
    groups = cleaner.group_segments_by_size(log.log_segments(), max_size=INT_MAX, max_index_size=INT_MAX,
                                            first_uncleanable_offset=log.log_end_offset())
    assert len(groups) == 1
    assert len(groups[0]) == log.number_of_segments()
    check_segment_order(groups)

    # very small limits: singletons
    groups = cleaner.group_segments_by_size(log.log_segments(), max_size=1, max_index_size=INT_MAX,
                                            first_uncleanable_offset=log.log_end_offset())
    assert len(groups) == log.number_of_segments()
    assert all(len(g) == 1 for g in groups), "All groups should be singletons."
    check_segment_order(groups)
    groups = cleaner.group_segments_by_size(log.log_segments(), max_size=INT_MAX, max_index_size=1,
                                            first_uncleanable_offset=log.log_end_offset())
    assert len(groups) == log.number_of_segments()
    assert all(len(g) == 1 for g in groups), "All groups should be singletons."
    check_segment_order(groups)

    group_size = 3
    # by log size
    log_size = sum(s.size() for s in log.log_segments()[:group_size]) + 1
    groups = cleaner.group_segments_by_size(log.log_segments(), max_size=log_size, max_index_size=INT_MAX,
                                            first_uncleanable_offset=log.log_end_offset())
    check_segment_order(groups)
    assert all(len(g) == group_size for g in groups[:-1]), "All but the last group should be the target size."

    # by index size
    index_size = sum(s.offset_index().size_in_bytes() for s in log.log_segments()[:group_size]) + 1
    groups = cleaner.group_segments_by_size(log.log_segments(), max_size=INT_MAX, max_index_size=index_size,
                                            first_uncleanable_offset=log.log_end_offset())
    check_segment_order(groups)
    assert all(len(g) == group_size for g in groups[:-1]), "All but the last group should be the target size."


def test_segment_grouping_with_sparse_offsets_and_empty_segments(ctx: Ctx) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(config=ctx.config())
    k, v = b"key", b"val"
    # 3 segments
    for i in range(3):
        log.append_as_leader(_singleton(v, k), leader_epoch=0)
        # 0 to Int.MaxValue is Int.MaxValue + 1 messages: -1 is the i-th segment's last message
        log.append_as_follower(message_with_offset(k, v, (i + 1) * (INT_MAX + 1) - 1))
        assert log.number_of_segments() == i + 1

    # a 4th, active, segment
    log.append_as_leader(_singleton(v, k), leader_epoch=0)
    total_segments = 4
    first_uncleanable_offset = log.log_end_offset() - 1
    not_cleanable_segments = 1

    assert log.number_of_segments() == total_segments
    groups = cleaner.group_segments_by_size(log.log_segments(), max_size=INT_MAX, max_index_size=INT_MAX,
                                            first_uncleanable_offset=first_uncleanable_offset)
    # 4-byte relative offsets: non-empty segments do not group, however small
    assert len(groups) == total_segments - not_cleanable_segments
    # clean the first 2 segments to empty
    cleaner.clean(LogToClean(log.topic_partition(), log, 0, first_uncleanable_offset))
    assert log.number_of_segments() == total_segments
    assert log.log_segments()[0].size() == 0

    # 2 empty segments now group together
    groups = cleaner.group_segments_by_size(log.log_segments(), max_size=INT_MAX, max_index_size=INT_MAX,
                                            first_uncleanable_offset=first_uncleanable_offset)
    none_empty_segment = 1
    assert len(groups) == none_empty_segment + 1

    # and clean into 1
    cleaner.clean(LogToClean(log.topic_partition(), log, 0, first_uncleanable_offset))
    assert log.number_of_segments() == total_segments - 1


def test_segment_grouping_with_sparse_offsets(ctx: Ctx) -> None:
    # few messages but an offset range over Int.MaxValue: no group may span more than Int.MaxValue offsets
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(config=ctx.config(segment_bytes=400, **{"index.interval.bytes": 1}))
    while log.number_of_segments() == 1:
        log.append_as_leader(_singleton(b"hello", b"hello"), leader_epoch=0)

    # jump to Int.MaxValue in the next segment
    log.append_as_follower(message_with_offset(b"hello", b"hello", INT_MAX - 1))
    log.append_as_leader(_singleton(b"hello", b"hello"), leader_epoch=0)
    assert log.active_segment().offset_index().last_offset() == INT_MAX

    # one group, the maximum relative offset being Int.MaxValue
    groups = cleaner.group_segments_by_size(log.log_segments(), max_size=INT_MAX, max_index_size=INT_MAX,
                                            first_uncleanable_offset=log.log_end_offset())
    assert len(groups) == 1

    # the second segment's last offset passes Int.MaxValue: no longer grouped
    log.append_as_leader(_singleton(b"hello", b"hello"), leader_epoch=0)
    groups = cleaner.group_segments_by_size(log.log_segments(), max_size=INT_MAX, max_index_size=INT_MAX,
                                            first_uncleanable_offset=log.log_end_offset())
    assert len(groups) == 2
    check_segment_order(groups)

    # more segments still group
    while log.number_of_segments() < 4:
        log.append_as_leader(_singleton(b"hello", b"hello"), leader_epoch=0)
    groups = cleaner.group_segments_by_size(log.log_segments(), max_size=INT_MAX, max_index_size=INT_MAX,
                                            first_uncleanable_offset=log.log_end_offset())
    assert len(groups) == log.number_of_segments() - 1
    for group in groups:
        assert group[-1].offset_index().last_offset() - group[0].offset_index().base_offset() <= INT_MAX, \
            "Relative offset greater than Int.MaxValue"
    check_segment_order(groups)


def test_segment_grouping_following_load_of_zero_index(ctx: Ctx) -> None:
    # a segment loaded with an empty index reports its base offset as last offset: groups still stay in range
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(config=ctx.config(segment_bytes=400, **{"index.interval.bytes": 400}))
    log.append_as_follower(message_with_offset(b"hello", b"hello", 0))
    log.append_as_follower(message_with_offset(b"hello", b"hello", 1))
    log.roll(INT_MAX // 2)  # a new segment at Int.MaxValue / 2
    log.append_as_follower(message_with_offset(b"hello", b"hello", INT_MAX // 2))
    log.append_as_follower(message_with_offset(b"hello", b"hello", INT_MAX + 1))

    assert log.log_end_offset() - 1 - log.log_start_offset > INT_MAX, \
        "Actual offset range should be > Int.MaxValue"
    assert log.log_segments()[-1].offset_index().last_offset() - log.log_start_offset <= INT_MAX, \
        "index.lastOffset is reporting the wrong last offset"

    # two groups: the second segment's range passes Int.MaxValue
    groups = cleaner.group_segments_by_size(log.log_segments(), max_size=INT_MAX, max_index_size=INT_MAX,
                                            first_uncleanable_offset=log.log_end_offset())
    assert len(groups) == 2
    for group in groups:
        assert group[-1].read_next_offset() - 1 - group[0].base_offset() <= INT_MAX, \
            "Relative offset greater than Int.MaxValue"
    check_segment_order(groups)


def test_build_offset_map(ctx: Ctx) -> None:
    map = FakeOffsetMap(1000)
    log = ctx.make_log()
    cleaner = ctx.make_cleaner(INT_MAX)
    start, end = 0, 500
    write_to_log(log, zip(range(start, end), range(start, end), strict=True))

    def check_range(map: FakeOffsetMap, start: int, end: int) -> None:
        stats = CleanerStats()
        cleaner.build_offset_map(log, start, end, map, stats)
        end_offset = map.latest_offset() + 1
        assert end_offset == end, "Last offset should be the end offset."
        assert map.size() == end - start, "Should have the expected number of messages in the map."
        for i in range(start, end):
            assert map.get(key(i)) == i, "Should find all the keys"
        assert map.get(key(start - 1)) == -1, "Should not find a value too small"
        assert map.get(key(end)) == -1, "Should not find a value too large"
        assert stats.map_messages_read == end - start

    segments = log.log_segments()
    check_range(map, 0, segments[1].base_offset())
    check_range(map, segments[1].base_offset(), segments[3].base_offset())
    check_range(map, segments[3].base_offset(), log.log_end_offset())


def test_segment_with_offset_overflow(ctx: Ctx) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    config = ctx.config(**{"index.interval.bytes": 1, "file.delete.delay.ms": 1000})
    LogTestUtils.initialize_log_dir_with_overflowed_segment(ctx.dir)
    log = ctx.make_log(config=config, recovery_point=LONG_MAX)
    segment_with_overflow = LogTestUtils.first_overflow_segment(log)
    assert segment_with_overflow is not None, "Failed to create log with a segment which has overflowed offsets"

    num_segments_initial = len(log.log_segments())
    all_keys = LogTestUtils.keys_in_log(log)
    expected_keys_after_cleaning = []
    # clean every other key
    offset_map = FakeOffsetMap(INT_MAX)
    for k in range(1, len(all_keys), 2):
        expected_keys_after_cleaning.append(all_keys[k - 1])
        offset_map.put(key(all_keys[k]), LONG_MAX)

    # the overflow splits the segment and aborts the cleaning
    with pytest.raises(LogCleaningAbortedException):
        cleaner.clean_segments(log, [segment_with_overflow], offset_map, 0, CleanerStats(),
                               CleanedTransactionMetadata(), -1)
    assert len(log.log_segments()) == num_segments_initial + 1
    assert LogTestUtils.keys_in_log(log) == all_keys
    assert not LogTestUtils.has_offset_overflow(log)

    # each segment cleans once split
    for segment_to_clean in log.log_segments():
        cleaner.clean_segments(log, [segment_to_clean], offset_map, 0, CleanerStats(), CleanedTransactionMetadata(),
                               -1)
    assert LogTestUtils.keys_in_log(log) == expected_keys_after_cleaning
    assert not LogTestUtils.has_offset_overflow(log)
    log.close()


def _restore_deleted_files(dir: Path) -> None:
    for file in list(dir.iterdir()):
        if file.name.endswith(log_file_utils.DELETED_FILE_SUFFIX):
            file.rename(Path(str(file)[:-len(log_file_utils.DELETED_FILE_SUFFIX)]))


def test_recovery_after_crash(ctx: Ctx) -> None:
    # a crash at each stage of the swap: .cleaned written; some .swap; .swap and .deleted; swap done, deletes pending
    cleaner = ctx.make_cleaner(INT_MAX)
    config = ctx.config(segment_bytes=300, **{"index.interval.bytes": 1, "file.delete.delay.ms": 10})
    log = ctx.make_log(config=config)
    message_count = 0
    while log.number_of_segments() < 10:
        log.append_as_leader(record(log.log_end_offset(), log.log_end_offset()), leader_epoch=0)
        message_count += 1
    all_keys = LogTestUtils.keys_in_log(log)

    # pretend we have the odd keys
    offset_map = FakeOffsetMap(INT_MAX)
    for k in range(1, message_count, 2):
        offset_map.put(key(k), LONG_MAX)

    def clean_nine() -> list[int]:
        cleaner.clean_segments(log, log.log_segments()[:9], offset_map, 0, CleanerStats(),
                               CleanedTransactionMetadata(), -1)
        # no async deletes
        ctx.time.scheduler.clear()
        return LogTestUtils.keys_in_log(log)

    def append_more_and_map() -> None:
        nonlocal message_count
        while log.number_of_segments() < 10:
            log.append_as_leader(record(log.log_end_offset(), log.log_end_offset()), leader_epoch=0)
            message_count += 1
        for k in range(1, message_count, 2):
            offset_map.put(key(k), LONG_MAX)

    cleaned_keys = clean_nine()
    log.close()

    # 1) after the .cleaned file, before the rename to .swap: the clean is aborted, every message is there
    log.log_segments()[0].change_file_suffixes("", unified_log.CLEANED_FILE_SUFFIX)
    _restore_deleted_files(ctx.dir)
    log = ctx.recover_and_check(config, all_keys)

    cleaned_keys = clean_nine()
    log.close()

    # 2) after the .cleaned files, some renamed to .swap: aborted, every message is there
    head = log.log_segments()[0]
    head.change_file_suffixes("", unified_log.CLEANED_FILE_SUFFIX)
    head.log().rename_to(Path(str(head.log().file()).replace(unified_log.CLEANED_FILE_SUFFIX,
                                                             unified_log.SWAP_FILE_SUFFIX)))
    _restore_deleted_files(ctx.dir)
    log = ctx.recover_and_check(config, all_keys)

    cleaned_keys = clean_nine()
    log.close()

    # 3) after the .swap file, before the old segments are renamed .deleted: the swap is finished on recovery
    log.log_segments()[0].change_file_suffixes("", unified_log.SWAP_FILE_SUFFIX)
    _restore_deleted_files(ctx.dir)
    log = ctx.recover_and_check(config, cleaned_keys)

    append_more_and_map()
    cleaned_keys = clean_nine()

    # 4) after the .swap file and the .deleted renames: the swap is finished on recovery
    log.log_segments()[0].change_file_suffixes("", unified_log.SWAP_FILE_SUFFIX)
    log = ctx.recover_and_check(config, cleaned_keys)

    append_more_and_map()
    cleaned_keys = clean_nine()

    # 5) some .swap files renamed back, old segments .deleted: the swap is finished on recovery
    time_index_file = log.log_segments()[0].time_index().file()
    time_index_file.rename(Path(str(time_index_file) + unified_log.SWAP_FILE_SUFFIX))
    log = ctx.recover_and_check(config, cleaned_keys)

    append_more_and_map()
    cleaned_keys = clean_nine()
    log.close()

    # 6) the swap done, the async deletion not: recovery finishes it
    log = ctx.recover_and_check(config, cleaned_keys)
    log.close()


def test_build_offset_map_fake_large(ctx: Ctx) -> None:
    map = FakeOffsetMap(1000)
    log = ctx.make_log(config=LogConfig({"segment.bytes": 120, "segment.index.bytes": 120,
                                         "cleanup.policy": "compact"}))
    cleaner = ctx.make_cleaner(INT_MAX)
    key_start, key_end = 0, 2
    offset_start, offset_end = 0, 7206178
    write_to_log_with_offsets(log, zip(range(key_start, key_end), range(key_start, key_end), strict=True),
                              [offset_start, offset_end])
    cleaner.build_offset_map(log, key_start, offset_end + 1, map, CleanerStats())
    assert map.latest_offset() == offset_end, "Last offset should be the end offset."
    assert map.size() == key_end - key_start, "Should have the expected number of messages in the map."
    assert map.get(key(0)) == 0, "Map should contain first value"
    assert map.get(key(1)) == offset_end, "Map should contain second value"


def test_build_partial_offset_map(ctx: Ctx) -> None:
    # a load factor of 0.75: 2 messages fit the map
    log = ctx.make_log()
    cleaner = ctx.make_cleaner(3)
    map = cleaner.offset_map
    for k in range(5):
        log.append_as_leader(record(k, k), leader_epoch=0)
    log.roll()

    stats = CleanerStats()
    cleaner.build_offset_map(log, 2, INT_MAX, map, stats)
    assert map.size() == 2
    assert map.get(key(0)) == -1
    assert map.get(key(2)) == 2
    assert map.get(key(3)) == 3
    assert map.get(key(4)) == -1
    assert stats.map_messages_read == 4


def invalid_cleaned_message(initial_offset: int, keys_and_values: Iterable[tuple[int, int]],
                            compression_type: Any = None) -> MemoryRecords:
    """What old cleaners sometimes wrote: a compressed set whose outer magic is 1 and inner magic 0."""
    from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
    from kafka_edu.v3_9.clients.common.record.legacy_record import LegacyRecord
    from kafka_edu.v3_9.clients.common.record.record_batch import MAGIC_VALUE_V0, MAGIC_VALUE_V1, NO_TIMESTAMP
    from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
    if compression_type is None:
        compression_type = CompressionType.GZIP
    records = [LegacyRecord.create(MAGIC_VALUE_V0, NO_TIMESTAMP, str(k).encode(), str(v).encode())
               for k, v in keys_and_values]
    buffer = bytearray()
    codec = Compression.of(compression_type).build()
    builder = MemoryRecords.builder(buffer, MAGIC_VALUE_V1, codec, TimestampType.CREATE_TIME, initial_offset)
    offset = initial_offset
    for r in records:
        builder.append_unchecked_with_offset(offset, r)
        offset += 1
    return builder.build()


def test_clean_corrupt_message_set(ctx: Ctx) -> None:
    from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
    codec = CompressionType.GZIP
    log = ctx.make_log(config=LogConfig({"compression.type": codec.name.lower()}))
    cleaner = ctx.make_cleaner(10)

    # each payload is the offset it expects, so the offsets check after cleaning
    # one compressed entry with duplicates
    dup_set_keys = [0, 1, 0, 1]
    dup_set_offset = 25
    dup_set = list(zip(dup_set_keys, range(dup_set_offset, dup_set_offset + len(dup_set_keys)), strict=True))
    # one without (the cleaner still fixes it)
    no_dup_set_keys = [3, 4]
    no_dup_set_offset = 50
    no_dup_set = list(zip(no_dup_set_keys, range(no_dup_set_offset, no_dup_set_offset + len(no_dup_set_keys)),
                          strict=True))

    log.append_as_follower(invalid_cleaned_message(dup_set_offset, dup_set, codec))
    log.append_as_follower(invalid_cleaned_message(no_dup_set_offset, no_dup_set, codec))
    log.roll()

    cleaner.clean(LogToClean(TP, log, 0, log.active_segment().base_offset()))
    for segment in log.log_segments():
        for batch in segment.log().batches():
            for r in batch:
                assert r.has_magic(batch.magic())
                assert r.offset() == int(bytes(r.value()).decode())


def test_client_handling_of_corrupt_message_set(ctx: Ctx) -> None:
    keys = range(1, 10)
    offset = 50
    s = list(zip(keys, range(offset, offset + len(keys)), strict=True))
    corrupted_message = invalid_cleaned_message(offset, s)
    records = MemoryRecords.readable_records(corrupted_message.buffer())
    for log_entry in records.records():
        assert log_entry.offset() == int(bytes(log_entry.value()).decode())


def test_clean_tombstone(ctx: Ctx) -> None:
    log_config = LogConfig({})
    log = ctx.make_log(config=log_config)
    cleaner = ctx.make_cleaner(10)

    # a message with a large timestamp
    log.append_as_leader(MemoryRecords.with_records(Compression.NONE, SimpleRecord(
        b"0", b"0", ctx.time.milliseconds() + log_config.delete_retention_ms + 10000)), leader_epoch=0)
    log.roll()
    cleaner.clean(LogToClean(TP, log, 0, log.active_segment().base_offset()))
    # a tombstone with a small timestamp, in a new segment
    log.append_as_leader(MemoryRecords.with_records(Compression.NONE, SimpleRecord(
        None, b"0", ctx.time.milliseconds() - log_config.delete_retention_ms - 10000)), leader_epoch=0)
    log.roll()

    cleaner.clean(LogToClean(TP, log, 1, log.active_segment().base_offset()))
    assert next(iter(log.log_segments()[0].log().batches())).last_offset() == 1, "The tombstone should be retained."
    # another message, another segment
    log.append_as_leader(MemoryRecords.with_records(Compression.NONE, SimpleRecord(
        b"1", b"1", ctx.time.milliseconds())), leader_epoch=0)
    log.roll()
    cleaner.clean(LogToClean(TP, log, 2, log.active_segment().base_offset()))
    assert next(iter(log.log_segments()[0].log().batches())).last_offset() == 1, "The tombstone should be retained."


def test_cleaning_beyond_missing_offsets(ctx: Ctx) -> None:
    log_config = LogConfig({"segment.bytes": 1024 * 1024, "cleanup.policy": "compact"})
    cleaner = ctx.make_cleaner(INT_MAX)

    log = ctx.make_log(dir=_random_partition_log_dir(ctx.tmpdir), config=log_config)
    write_to_log_with_offsets(log, zip(range(10), range(10), strict=True), range(10))
    # a new segment at 11: the previous one has a hole at [9, 10]
    log.roll(11)
    log.append_as_follower(message_with_offset(1015, 1015, 11))
    next_dirty_offset, _ = cleaner.clean(LogToClean(log.topic_partition(), log, 0, log.active_segment().base_offset(),
                                                    need_compaction_now=True))
    assert next_dirty_offset == log.active_segment().base_offset(), "Cleaning point should pass offset gap"

    log = ctx.make_log(dir=_random_partition_log_dir(ctx.tmpdir), config=log_config)
    write_to_log_with_offsets(log, zip(range(10), range(10), strict=True), range(10))
    # a new segment at 15: a hole at [10, 14]
    log.roll(15)
    write_to_log_with_offsets(log, zip(range(15, 25), range(15, 25), strict=True), range(15, 25))
    # a new segment at 30: a hole at [25, 29]
    log.roll(30)
    log.append_as_follower(message_with_offset(1015, 1015, 30))
    next_dirty_offset, _ = cleaner.clean(LogToClean(log.topic_partition(), log, 0, log.active_segment().base_offset(),
                                                    need_compaction_now=True))
    assert next_dirty_offset == log.active_segment().base_offset(), \
        "Cleaning point should pass offset gap in multiple segments"


def test_reconfigure_log_cleaner_io_max_bytes_per_second(ctx: Ctx) -> None:
    from kafka_edu.v3_9.core.log.log_cleaner import cleaner_config
    from kafka_edu.v3_9.core.server.kafka_config import KafkaConfig
    from kafka_edu.v3_9.storage.storage.internals.log import cleaner_config as CC
    from tests.kafka_tests.test_utils import create_broker_config

    old_kafka_props = create_broker_config(1, "localhost:2181")
    old_kafka_props[CC.LOG_CLEANER_IO_MAX_BYTES_PER_SECOND_PROP] = "10000000"

    class _LogCleaner(LogCleaner):
        # reconfigure stops and starts the threads: none are wanted here
        def startup(self) -> None:
            pass

        def shutdown(self) -> None:
            pass

    log_cleaner = _LogCleaner(cleaner_config(KafkaConfig(old_kafka_props)), log_dirs=[ctx.tmpdir], logs={},
                              log_dir_failure_channel=LogDirFailureChannel(1), time=ctx.time)
    try:
        assert log_cleaner.throttler.desired_rate_per_sec() == 10000000
        new_kafka_props = create_broker_config(1, "localhost:2181")
        new_kafka_props[CC.LOG_CLEANER_IO_MAX_BYTES_PER_SECOND_PROP] = "20000000"
        log_cleaner.reconfigure(KafkaConfig(old_kafka_props), KafkaConfig(new_kafka_props))
        assert log_cleaner.throttler.desired_rate_per_sec() == 20000000
    finally:
        log_cleaner.shutdown()
