"""Port of core/src/test/scala/unit/kafka/log/LogCleanerTest.scala (Kafka 1.0.2).

testSizeTrimmedForPreallocatedAndCompactedTopic sets `preallocate`, which the port's LogConfig accepts and ignores
(its log never preallocates a segment file): the case still checks that the cleaned segment's file is no larger
than its records.
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kafka_edu.v1_0_2.clients.common.errors import LogCleaningAbortedException
from kafka_edu.v1_0_2.clients.common.record.control_record_type import ControlRecordType
from kafka_edu.v1_0_2.clients.common.record.end_transaction_marker import EndTransactionMarker
from kafka_edu.v1_0_2.clients.common.record.file_records import MemoryRecords
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import (
    SimpleRecord,
    with_end_transaction_marker,
    with_simple_records,
    with_transactional_records,
)
from kafka_edu.v1_0_2.core.log.log import Log, LogAppendInfo
from kafka_edu.v1_0_2.core.log.log_cleaner import Cleaner, CleanerStats, LogToClean
from kafka_edu.v1_0_2.core.log.log_config import LogConfig
from kafka_edu.v1_0_2.core.log.log_manager import PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS
from kafka_edu.v1_0_2.core.log.log_segment import LogSegment
from kafka_edu.v1_0_2.core.log.offset_map import OffsetMap
from kafka_edu.v1_0_2.core.server.log_dir_failure_channel import LogDirFailureChannel
from kafka_edu.v1_0_2.core.utils.throttler import Throttler
from tests.kafka_tests.mock_scheduler import MockTimeWithScheduler
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import singleton_records, temp_dir

KAFKA = kafka_test_class(
    "1.0.2", "core/src/test/scala/unit/kafka/log/LogCleanerTest.scala",
    cases=["testCleanSegments", "testSizeTrimmedForPreallocatedAndCompactedTopic", "testDuplicateCheckAfterCleaning",
           "testBasicTransactionAwareCleaning", "testCleanWithTransactionsSpanningSegments", "testCommitMarkerRemoval",
           "testDeletedBatchesWithNoMessagesRead", "testCommitMarkerRetentionWithEmptyBatch",
           "testAbortMarkerRemoval", "testAbortMarkerRetentionWithEmptyBatch", "testLargeMessage",
           "testCleaningWithDeletes", "testLogCleanerRetainsProducerLastSequence",
           "testLogCleanerRetainsLastSequenceEvenIfTransactionAborted", "testPartialSegmentClean",
           "testCleaningWithUncleanableSection", "testLogToClean", "testLogToCleanWithUncleanableSection",
           "testCleaningWithUnkeyedMessages", "testCleanSegmentsWithAbort", "testSegmentGrouping",
           "testSegmentGroupingWithSparseOffsets", "testSegmentGroupingFollowingLoadOfZeroIndex",
           "testBuildOffsetMap", "testRecoveryAfterCrash", "testBuildOffsetMapFakeLarge",
           "testBuildPartialOffsetMap", "testCleanCorruptMessageSet", "testClientHandlingOfCorruptMessageSet",
           "testCleanTombstone"],
    not_applicable={
        "testCleanCorruptMessageSet": "writes magic v0/v1 message sets (LegacyRecord), a format the port's log does "
                                      "not store (v2 batches only)",
        "testClientHandlingOfCorruptMessageSet": "magic v0/v1 message sets (LegacyRecord): not stored by the port",
    },

)

LOG_PROPS = {"segment.bytes": 1024, "segment.index.bytes": 1024, "cleanup.policy": "compact",
             "message.timestamp.difference.max.ms": str(2**63 - 1)}
INT_MAX = 2**31 - 1
LONG_MAX = 2**63 - 1
TP = ("test", 0)


class FakeOffsetMap(OffsetMap):
    """The test's map: a dict of the keys themselves, no digests."""

    def __init__(self, slots: int) -> None:
        self._slots = slots
        self.map: dict[bytes, int] = {}
        self.last_offset = -1

    @property
    def slots(self) -> int:
        return self._slots

    def put(self, key: bytes, offset: int) -> None:
        self.last_offset = offset
        self.map[bytes(key)] = offset

    def get(self, key: bytes) -> int:
        return self.map.get(bytes(key), -1)

    def clear(self) -> None:
        self.map.clear()

    @property
    def size(self) -> int:
        return len(self.map)

    @property
    def latest_offset(self) -> int:
        return self.last_offset

    def update_latest_offset(self, offset: int) -> None:
        self.last_offset = offset


class _Context:
    def __init__(self) -> None:
        self.tmp_dir = temp_dir()
        self.dir = self.tmp_dir / f"kafka-{random.randrange(1000000)}"
        self.time = MockTimeWithScheduler()
        self.throttler = Throttler(desired_rate_per_sec=1.7976931348623157e308, check_interval_ms=LONG_MAX,
                                   time=self.time)

    def make_log(self, config: LogConfig | None = None, dir: Path | None = None, recovery_point: int = 0) -> Log:
        return Log(dir or self.dir, config or LogConfig.from_props(LOG_PROPS), log_start_offset=0,
                   recovery_point=recovery_point, scheduler=self.time.scheduler, time_ms=self.time.milliseconds,
                   log_dir_failure_channel=LogDirFailureChannel(10), max_producer_id_expiration_ms=60 * 60 * 1000,
                   producer_id_expiration_check_interval_ms=PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS)

    def make_cleaner(self, capacity: int, check_done: Callable[[tuple[str, int]], None] = lambda tp: None,
                     max_message_size: int = 64 * 1024) -> Cleaner:
        return Cleaner(id=0, offset_map=FakeOffsetMap(capacity), io_buffer_size=max_message_size,
                       max_io_buffer_size=max_message_size, dup_buffer_load_factor=0.75, throttler=self.throttler,
                       time=self.time, check_done=check_done)


@pytest.fixture
def ctx() -> Iterator[_Context]:
    context = _Context()
    try:
        yield context
    finally:
        shutil.rmtree(context.tmp_dir, ignore_errors=True)


def _config(**overrides: object) -> LogConfig:
    return LogConfig.from_props({**LOG_PROPS, **overrides})


def key(i: int) -> bytes:
    return str(i).encode()


def record(k: int, value: int | bytes | None, producer_id: int = -1, producer_epoch: int = -1,
           sequence: int = -1) -> MemoryRecords:
    """record(key, value, ...): MemoryRecords.withIdempotentRecords of one record (or TestUtils.singletonRecords)."""
    v = str(value).encode() if isinstance(value, int) else value
    return with_simple_records([SimpleRecord(v, key(k))], producer_id=producer_id, producer_epoch=producer_epoch,
                               base_sequence=sequence)


def tombstone_record(k: int) -> MemoryRecords:
    return record(k, None)


def unkeyed_record(value: int) -> MemoryRecords:
    return singleton_records(str(value).encode())


def _records(log: Log):  # noqa: ANN202
    for segment in log.log_segments():
        for batch in segment.log.batches():
            full = batch.load_full_batch()
            yield segment, full


def keys_in_log(log: Log) -> list[int]:
    return [int(r.key) for _, b in _records(log) if not b.is_control_batch for r in b.records()
            if r.value is not None and r.key is not None]


def offsets_in_log(log: Log) -> list[int]:
    return [r.offset for _, b in _records(log) for r in b.records() if r.value is not None and r.key is not None]


def last_offsets_per_batch_in_log(log: Log) -> list[int]:
    return [b.last_offset for _, b in _records(log)]


def last_sequences_in_log(log: Log) -> dict[int, int]:
    return {b.producer_id: b.last_sequence for _, b in _records(log) if b.has_producer_id and not b.is_control_batch}


def unkeyed_message_count_in_log(log: Log) -> int:
    return sum(1 for _, b in _records(log) for r in b.records() if r.value is not None and r.key is None)


def append_transactional_as_leader(ctx: _Context, log: Log, producer_id: int,
                                   producer_epoch: int) -> Callable[[list[int]], None]:
    sequence = 0

    def append(keys: list[int]) -> None:
        nonlocal sequence
        simple = [SimpleRecord(key(k), key(k), ctx.time.milliseconds()) for k in keys]
        log.append_as_leader(with_transactional_records(simple, producer_id, producer_epoch, sequence), 0)
        sequence += len(simple)
    return append


def end_txn_marker(ctx: _Context, producer_id: int, producer_epoch: int, control_type: ControlRecordType):  # noqa: ANN201
    return with_end_transaction_marker(producer_id, producer_epoch, EndTransactionMarker(control_type, 0), 0,
                                       ctx.time.milliseconds())


def test_clean_segments(ctx: _Context) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(_config(**{"segment.bytes": 1024}))
    while log.number_of_segments < 4:
        log.append_as_leader(record(log.log_end_offset, log.log_end_offset), 0)
    assert keys_in_log(log) == list(range(log.log_end_offset))

    keys = [1, 3, 5, 7, 9]
    offset_map = FakeOffsetMap(INT_MAX)
    for k in keys:
        offset_map.put(key(k), LONG_MAX)

    segments = log.log_segments()[:3]
    stats = CleanerStats()
    expected_bytes_read = sum(s.size for s in segments)
    cleaner.clean_segments(log, segments, offset_map, 0, stats)
    should_remain = [k for k in keys_in_log(log) if k not in keys]
    assert keys_in_log(log) == should_remain
    assert stats.bytes_read == expected_bytes_read


def test_basic_transaction_aware_cleaning(ctx: _Context) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(_config(**{"segment.bytes": 2048}))
    producer_epoch, pid1, pid2 = 0, 1, 2
    append_producer1 = append_transactional_as_leader(ctx, log, pid1, producer_epoch)
    append_producer2 = append_transactional_as_leader(ctx, log, pid2, producer_epoch)

    append_producer1([1, 2])
    append_producer2([2, 3])
    append_producer1([3, 4])
    log.append_as_leader(end_txn_marker(ctx, pid1, producer_epoch, ControlRecordType.ABORT), 0, is_from_client=False)
    log.append_as_leader(end_txn_marker(ctx, pid2, producer_epoch, ControlRecordType.COMMIT), 0, is_from_client=False)
    append_producer1([2])
    log.append_as_leader(end_txn_marker(ctx, pid1, producer_epoch, ControlRecordType.COMMIT), 0, is_from_client=False)

    aborted_transactions = log.collect_aborted_transactions(log.log_start_offset, log.log_end_offset)
    log.roll()
    cleaner.clean(LogToClean(TP, log, 0, log.active_segment.base_offset))
    assert keys_in_log(log) == [3, 2]
    assert offsets_in_log(log) == [3, 6, 7, 8, 9]
    assert log.collect_aborted_transactions(log.log_start_offset, log.log_end_offset) == aborted_transactions


def test_cleaning_with_deletes(ctx: _Context) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(_config(**{"segment.bytes": 1024}))
    while log.number_of_segments < 2:
        log.append_as_leader(record(log.log_end_offset, log.log_end_offset), 0)
    leo = log.log_end_offset
    for k in range(0, leo, 2):
        log.append_as_leader(tombstone_record(k), 0)
    while log.number_of_segments < 4:
        log.append_as_leader(record(log.log_end_offset, log.log_end_offset), 0)
    cleaner.clean(LogToClean(TP, log, 0, log.active_segment.base_offset))
    keys = set(keys_in_log(log))
    assert all(k not in keys for k in range(0, leo, 2)), "None of the keys we deleted should still exist."


def test_log_cleaner_retains_producer_last_sequence(ctx: _Context) -> None:
    cleaner = ctx.make_cleaner(10)
    log = ctx.make_log(_config(**{"segment.bytes": 1024}))
    log.append_as_leader(record(0, 0), 0)  # offset 0
    log.append_as_leader(record(0, 1, producer_id=1, producer_epoch=0, sequence=0), 0)  # offset 1
    log.append_as_leader(record(0, 2, producer_id=2, producer_epoch=0, sequence=0), 0)  # offset 2
    log.append_as_leader(record(0, 3, producer_id=3, producer_epoch=0, sequence=0), 0)  # offset 3
    log.append_as_leader(record(1, 1, producer_id=2, producer_epoch=0, sequence=1), 0)  # offset 4
    log.roll()

    cleaner.clean(LogToClean(TP, log, 0, log.active_segment.base_offset))
    assert last_offsets_per_batch_in_log(log) == [1, 3, 4]
    assert last_sequences_in_log(log) == {1: 0, 2: 1, 3: 0}
    assert keys_in_log(log) == [0, 1]
    assert offsets_in_log(log) == [3, 4]


def test_partial_segment_clean(ctx: _Context) -> None:
    cleaner = ctx.make_cleaner(2)
    log = ctx.make_log(_config(**{"segment.bytes": 1024}))
    for k in (0, 1, 0, 1, 0):  # offsets 0..4
        log.append_as_leader(record(k, k), 0)
    log.roll()

    cleaner.clean(LogToClean(TP, log, 2, log.active_segment.base_offset))
    assert keys_in_log(log) == [1, 0, 1, 0]
    assert offsets_in_log(log) == [1, 2, 3, 4]

    cleaner.clean(LogToClean(TP, log, 3, log.active_segment.base_offset))
    assert keys_in_log(log) == [0, 1, 0]
    assert offsets_in_log(log) == [2, 3, 4]

    cleaner.clean(LogToClean(TP, log, 4, log.active_segment.base_offset))
    assert keys_in_log(log) == [1, 0]
    assert offsets_in_log(log) == [3, 4]


def test_cleaning_with_uncleanable_section(ctx: _Context) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(_config(**{"segment.bytes": 1024}))
    n, num_cleanable_segments, num_total_segments = 10, 2, 7
    while log.number_of_segments <= num_cleanable_segments:
        log.append_as_leader(record(log.log_end_offset % n, log.log_end_offset), 0)
    first_uncleanable_offset = log.log_end_offset + 1  # past the base offset
    while log.number_of_segments < num_total_segments - 1:
        log.append_as_leader(record(log.log_end_offset % n, log.log_end_offset), 0)

    def distinct_values_by_segment() -> list[int]:
        return [len({r.value for b in s.log.batches() for r in b.load_full_batch().records()})
                for s in log.log_segments()]

    before = distinct_values_by_segment()
    assert all(count > n for count in list(reversed(before))[1:]), \
        "Test is not effective unless each segment contains duplicates."
    cleaner.clean(LogToClean(TP, log, 0, first_uncleanable_offset))
    after = distinct_values_by_segment()
    assert all(a < b for b, a in list(zip(before, after, strict=False))[:num_cleanable_segments])
    assert all(a == b for b, a in list(zip(before, after, strict=False))[num_cleanable_segments:num_total_segments])


def test_log_to_clean(ctx: _Context) -> None:
    log = ctx.make_log(_config(**{"segment.bytes": 100}))
    for _ in range(6):
        log.append_as_leader(singleton_records(bytes(25), key=b"1"), 0)
    log_to_clean = LogToClean(TP, log, log.active_segment.base_offset, log.active_segment.base_offset)
    assert log_to_clean.total_bytes == log.size - log.active_segment.size


def test_log_to_clean_with_uncleanable_section(ctx: _Context) -> None:
    log = ctx.make_log(_config(**{"segment.bytes": 100}))
    for _ in range(6):
        log.append_as_leader(singleton_records(bytes(25), key=b"1"), 0)
    segs = log.log_segments()
    log_to_clean = LogToClean(TP, log, segs[2].base_offset, segs[4].base_offset)
    expected_clean_size = sum(s.size for s in segs[:2])
    expected_cleanable_size = sum(s.size for s in segs[2:4])
    assert log_to_clean.clean_bytes == expected_clean_size
    assert log_to_clean.cleanable_bytes == expected_cleanable_size
    assert log_to_clean.total_bytes == expected_clean_size + expected_cleanable_size
    assert log_to_clean.cleanable_ratio == pytest.approx(
        expected_cleanable_size / (expected_clean_size + expected_cleanable_size), abs=1e-6)


def test_cleaning_with_unkeyed_messages(ctx: _Context) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(_config(**{"segment.bytes": 1024, "cleanup.policy": "delete"}))
    while log.number_of_segments < 2:
        log.append_as_leader(unkeyed_record(log.log_end_offset), 0)
    num_invalid_messages = unkeyed_message_count_in_log(log)
    size_with_unkeyed_messages = log.size
    while log.number_of_segments < 3:
        log.append_as_leader(record(log.log_end_offset, log.log_end_offset), 0)
    expected_size_after_cleaning = log.size - size_with_unkeyed_messages
    _, stats = cleaner.clean(LogToClean(TP, log, 0, log.active_segment.base_offset))
    assert unkeyed_message_count_in_log(log) == 0
    assert log.size == expected_size_after_cleaning
    assert stats.invalid_messages_read == num_invalid_messages


def test_build_offset_map(ctx: _Context) -> None:
    offset_map = FakeOffsetMap(1000)
    log = ctx.make_log()
    cleaner = ctx.make_cleaner(INT_MAX)
    for i in range(500):  # writeToLog: as a follower, at offsets 0..499
        log.append_as_follower(with_simple_records([SimpleRecord(key(i), key(i))], initial_offset=i,
                                                   partition_leader_epoch=0))

    def check_range(start: int, end: int) -> None:
        stats = CleanerStats()
        cleaner.build_offset_map(log, start, end, offset_map, stats)
        assert offset_map.latest_offset + 1 == end, "Last offset should be the end offset."
        assert offset_map.size == end - start
        for i in range(start, end):
            assert offset_map.get(key(i)) == i
        assert offset_map.get(key(start - 1)) == -1
        assert offset_map.get(key(end)) == -1
        assert stats.map_messages_read == end - start

    segments = log.log_segments()
    check_range(0, segments[1].base_offset)
    check_range(segments[1].base_offset, segments[3].base_offset)
    check_range(segments[3].base_offset, log.log_end_offset)


def test_clean_tombstone(ctx: _Context) -> None:
    log_config = LogConfig()
    log = ctx.make_log(config=log_config)
    cleaner = ctx.make_cleaner(10)
    now = ctx.time.milliseconds()
    log.append_as_leader(singleton_records(b"0", key=b"0", timestamp=now + log_config.delete_retention_ms + 10000), 0)
    log.roll()
    cleaner.clean(LogToClean(TP, log, 0, log.active_segment.base_offset))
    log.append_as_leader(singleton_records(None, key=b"0", timestamp=now - log_config.delete_retention_ms - 10000), 0)
    log.roll()
    cleaner.clean(LogToClean(TP, log, 1, log.active_segment.base_offset))
    assert next(log.log_segments()[0].log.batches()).last_offset == 1, "The tombstone should be retained."
    log.append_as_leader(singleton_records(b"1", key=b"1", timestamp=ctx.time.milliseconds()), 0)
    log.roll()
    cleaner.clean(LogToClean(TP, log, 2, log.active_segment.base_offset))
    assert next(log.log_segments()[0].log.batches()).last_offset == 1, "The tombstone should be retained."


def append_idempotent_as_leader(ctx: _Context, log: Log, producer_id: int, producer_epoch: int,
                                is_transactional: bool = False) -> Callable[[list[int]], LogAppendInfo]:
    sequence = 0

    def append(keys: list[int]) -> LogAppendInfo:
        nonlocal sequence
        simple = [SimpleRecord(key(k), key(k), ctx.time.milliseconds()) for k in keys]
        if is_transactional:
            records = with_transactional_records(simple, producer_id, producer_epoch, sequence)
        else:
            records = with_simple_records(simple, producer_id=producer_id, producer_epoch=producer_epoch,
                                          base_sequence=sequence)
        sequence += len(simple)
        return log.append_as_leader(records, 0)
    return append


def commit_marker(ctx: _Context, producer_id: int, producer_epoch: int) -> MemoryRecords:
    return end_txn_marker(ctx, producer_id, producer_epoch, ControlRecordType.COMMIT)


def abort_marker(ctx: _Context, producer_id: int, producer_epoch: int) -> MemoryRecords:
    return end_txn_marker(ctx, producer_id, producer_epoch, ControlRecordType.ABORT)


def test_size_trimmed_for_preallocated_and_compacted_topic(ctx: _Context) -> None:
    original_max_file_size = 1024
    cleaner = ctx.make_cleaner(2)
    log = ctx.make_log(_config(**{"segment.bytes": original_max_file_size, "cleanup.policy": "compact",
                                  "preallocate": "true"}))
    for k in (0, 1, 0, 1, 0):
        log.append_as_leader(record(k, k), 0)
    log.roll()
    cleaner.clean(LogToClean(TP, log, 2, log.active_segment.base_offset))
    assert log.log_segments()[0].log.file.stat().st_size < original_max_file_size, \
        "Cleaned segment file should be trimmed to its real size."


def test_duplicate_check_after_cleaning(ctx: _Context) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    config = _config(**{"segment.bytes": 2048})
    log = ctx.make_log(config)
    producer_epoch, pid1, pid2, pid3, pid4 = 0, 1, 2, 3, 4

    append_idempotent_as_leader(ctx, log, pid1, producer_epoch)([1, 2, 3])
    append_idempotent_as_leader(ctx, log, pid2, producer_epoch)([3, 1, 4])
    append_idempotent_as_leader(ctx, log, pid3, producer_epoch)([1, 4])
    log.roll()
    cleaner.clean(LogToClean(TP, log, 0, log.active_segment.base_offset))
    assert last_offsets_per_batch_in_log(log) == [2, 5, 7]
    assert last_sequences_in_log(log) == {pid1: 2, pid2: 2, pid3: 1}
    assert keys_in_log(log) == [2, 3, 1, 4]
    assert offsets_in_log(log) == [1, 3, 6, 7]

    def reload_log() -> Log:
        log.close()
        return ctx.make_log(config, recovery_point=0)

    log = reload_log()
    info = append_idempotent_as_leader(ctx, log, pid1, producer_epoch)([1, 2, 3])
    assert (info.first_offset, info.last_offset) == (0, 2)
    info = append_idempotent_as_leader(ctx, log, pid3, producer_epoch)([1, 4])
    assert (info.first_offset, info.last_offset) == (6, 7)
    info = append_idempotent_as_leader(ctx, log, pid2, producer_epoch)([3, 1, 4])
    assert (info.first_offset, info.last_offset) == (3, 5)

    append_idempotent_as_leader(ctx, log, pid4, producer_epoch)([2])
    log.roll()
    cleaner.clean(LogToClean(TP, log, 0, log.active_segment.base_offset))
    assert last_sequences_in_log(log) == {pid1: 2, pid2: 2, pid3: 1, pid4: 0}
    assert last_offsets_per_batch_in_log(log) == [2, 5, 7, 8]
    assert keys_in_log(log) == [3, 1, 4, 2]
    assert offsets_in_log(log) == [3, 6, 7, 8]

    log = reload_log()
    info = append_idempotent_as_leader(ctx, log, pid1, producer_epoch)([1, 2, 3])
    assert (info.first_offset, info.last_offset) == (0, 2)


def test_clean_with_transactions_spanning_segments(ctx: _Context) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(_config(**{"segment.bytes": 1024}))
    producer_epoch, pid1, pid2, pid3 = 0, 1, 2, 3
    append_producer1 = append_idempotent_as_leader(ctx, log, pid1, producer_epoch, is_transactional=True)
    append_producer2 = append_idempotent_as_leader(ctx, log, pid2, producer_epoch, is_transactional=True)
    append_producer3 = append_idempotent_as_leader(ctx, log, pid3, producer_epoch, is_transactional=True)

    append_producer1([1, 2])
    append_producer3([2, 3])
    append_producer2([3, 4])
    log.roll()
    append_producer2([5, 6])
    append_producer3([6, 7])
    append_producer1([7, 8])
    log.append_as_leader(abort_marker(ctx, pid2, producer_epoch), 0, is_from_client=False)
    append_producer3([8, 9])
    log.append_as_leader(commit_marker(ctx, pid3, producer_epoch), 0, is_from_client=False)
    append_producer1([9, 10])
    log.append_as_leader(abort_marker(ctx, pid1, producer_epoch), 0, is_from_client=False)

    dirty_offset = cleaner.clean(LogToClean(TP, log, 0, log.active_segment.base_offset))[0]
    assert keys_in_log(log) == [2, 3, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10]
    log.roll()
    append_producer2([11])
    append_producer1([12])
    cleaner.clean(LogToClean(TP, log, dirty_offset, log.active_segment.base_offset))
    assert keys_in_log(log) == [2, 3, 6, 7, 8, 9, 11, 12]


def test_commit_marker_removal(ctx: _Context) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(_config(**{"segment.bytes": 256}))
    producer_epoch, producer_id = 0, 1
    append_producer = append_idempotent_as_leader(ctx, log, producer_id, producer_epoch, is_transactional=True)

    append_producer([1])
    append_producer([2, 3])
    log.append_as_leader(commit_marker(ctx, producer_id, producer_epoch), 0, is_from_client=False)
    append_producer([2])
    log.append_as_leader(commit_marker(ctx, producer_id, producer_epoch), 0, is_from_client=False)
    log.roll()

    dirty_offset = cleaner.do_clean(LogToClean(TP, log, 0, 100), delete_horizon_ms=LONG_MAX)[0]
    assert keys_in_log(log) == [1, 3, 2]
    assert offsets_in_log(log) == [0, 2, 3, 4, 5]

    append_producer([1, 3])
    log.append_as_leader(commit_marker(ctx, producer_id, producer_epoch), 0, is_from_client=False)
    log.roll()

    dirty_offset = cleaner.do_clean(LogToClean(TP, log, dirty_offset, 100), delete_horizon_ms=LONG_MAX)[0]
    assert keys_in_log(log) == [2, 1, 3]
    assert offsets_in_log(log) == [3, 4, 5, 6, 7, 8]

    dirty_offset = cleaner.do_clean(LogToClean(TP, log, dirty_offset, 100), delete_horizon_ms=0)[0]
    assert keys_in_log(log) == [2, 1, 3]
    assert offsets_in_log(log) == [3, 4, 5, 6, 7, 8]

    dirty_offset = cleaner.do_clean(LogToClean(TP, log, dirty_offset, 100), delete_horizon_ms=LONG_MAX)[0]
    assert keys_in_log(log) == [2, 1, 3]
    assert offsets_in_log(log) == [4, 5, 6, 7, 8]


def test_deleted_batches_with_no_messages_read(ctx: _Context) -> None:
    cleaner = ctx.make_cleaner(INT_MAX, max_message_size=100)
    log = ctx.make_log(_config(**{"max.message.bytes": 100, "segment.bytes": 1000}))
    producer_epoch, producer_id = 0, 1
    append_producer = append_idempotent_as_leader(ctx, log, producer_id, producer_epoch, is_transactional=True)

    append_producer([1])
    log.append_as_leader(abort_marker(ctx, producer_id, producer_epoch), 0, is_from_client=False)
    append_producer([2])
    append_producer([2])
    log.append_as_leader(commit_marker(ctx, producer_id, producer_epoch), 0, is_from_client=False)
    log.roll()

    cleaner.do_clean(LogToClean(TP, log, 0, 100), delete_horizon_ms=LONG_MAX)
    assert keys_in_log(log) == [2]
    assert offsets_in_log(log) == [1, 3, 4]

    cleaner.do_clean(LogToClean(TP, log, 0, 100), delete_horizon_ms=LONG_MAX)
    assert keys_in_log(log) == [2]
    assert offsets_in_log(log) == [3, 4]


def test_commit_marker_retention_with_empty_batch(ctx: _Context) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(_config(**{"segment.bytes": 256}))
    producer_epoch, producer_id = 0, 1
    append_producer = append_idempotent_as_leader(ctx, log, producer_id, producer_epoch, is_transactional=True)

    append_producer([2, 3])  # the batch's last offset is 1
    log.append_as_leader(commit_marker(ctx, producer_id, producer_epoch), 0, is_from_client=False)
    log.roll()
    log.append_as_leader(record(2, 2), 0)
    log.append_as_leader(record(3, 3), 0)
    log.roll()

    dirty_offset = cleaner.do_clean(LogToClean(TP, log, 0, 100), delete_horizon_ms=LONG_MAX)[0]
    assert keys_in_log(log) == [2, 3]
    assert offsets_in_log(log) == [2, 3, 4]  # the commit marker stays
    assert last_offsets_per_batch_in_log(log) == [1, 2, 3, 4]  # and so does the empty batch

    dirty_offset = cleaner.do_clean(LogToClean(TP, log, dirty_offset, 100), delete_horizon_ms=LONG_MAX)[0]
    assert keys_in_log(log) == [2, 3]
    assert offsets_in_log(log) == [2, 3, 4]
    assert last_offsets_per_batch_in_log(log) == [1, 2, 3, 4]

    append_producer([1])
    log.roll()

    dirty_offset = cleaner.do_clean(LogToClean(TP, log, dirty_offset, 100), delete_horizon_ms=LONG_MAX)[0]
    assert keys_in_log(log) == [2, 3, 1]
    assert offsets_in_log(log) == [2, 3, 4, 5]
    assert last_offsets_per_batch_in_log(log) == [2, 3, 4, 5]  # the empty batch is gone

    dirty_offset = cleaner.do_clean(LogToClean(TP, log, dirty_offset, 100), delete_horizon_ms=LONG_MAX)[0]
    assert keys_in_log(log) == [2, 3, 1]
    assert offsets_in_log(log) == [3, 4, 5]  # the commit marker is gone
    assert last_offsets_per_batch_in_log(log) == [3, 4, 5]


def test_abort_marker_removal(ctx: _Context) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(_config(**{"segment.bytes": 256}))
    producer_epoch, producer_id = 0, 1
    append_producer = append_idempotent_as_leader(ctx, log, producer_id, producer_epoch, is_transactional=True)

    append_producer([1])
    append_producer([2, 3])
    log.append_as_leader(abort_marker(ctx, producer_id, producer_epoch), 0, is_from_client=False)
    append_producer([3])
    log.append_as_leader(commit_marker(ctx, producer_id, producer_epoch), 0, is_from_client=False)
    log.roll()

    dirty_offset = cleaner.do_clean(LogToClean(TP, log, 0, 100), delete_horizon_ms=0)[0]
    assert keys_in_log(log) == [3]
    assert offsets_in_log(log) == [3, 4, 5]

    cleaner.do_clean(LogToClean(TP, log, dirty_offset, 100), delete_horizon_ms=LONG_MAX)
    assert keys_in_log(log) == [3]
    assert offsets_in_log(log) == [4, 5]


def test_abort_marker_retention_with_empty_batch(ctx: _Context) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(_config(**{"segment.bytes": 256}))
    producer_epoch, producer_id = 0, 1
    append_producer = append_idempotent_as_leader(ctx, log, producer_id, producer_epoch, is_transactional=True)

    append_producer([2, 3])  # the batch's last offset is 1
    log.append_as_leader(abort_marker(ctx, producer_id, producer_epoch), 0, is_from_client=False)
    log.roll()

    def assert_aborted_transaction_indexed() -> None:
        aborted_txns = log.collect_aborted_transactions(0, 100)
        assert len(aborted_txns) == 1
        assert aborted_txns[0].producer_id == producer_id
        assert aborted_txns[0].first_offset == 0
        assert aborted_txns[0].last_offset == 2

    assert_aborted_transaction_indexed()
    dirty_offset = cleaner.do_clean(LogToClean(TP, log, 0, 100), delete_horizon_ms=LONG_MAX)[0]
    assert_aborted_transaction_indexed()
    assert keys_in_log(log) == []
    assert offsets_in_log(log) == [2]  # the abort marker stays
    assert last_offsets_per_batch_in_log(log) == [1, 2]  # and so does the empty batch

    dirty_offset = cleaner.do_clean(LogToClean(TP, log, dirty_offset, 100), delete_horizon_ms=LONG_MAX)[0]
    assert_aborted_transaction_indexed()
    assert keys_in_log(log) == []
    assert offsets_in_log(log) == [2]
    assert last_offsets_per_batch_in_log(log) == [1, 2]

    append_producer([1])
    log.roll()

    dirty_offset = cleaner.do_clean(LogToClean(TP, log, dirty_offset, 100), delete_horizon_ms=LONG_MAX)[0]
    assert_aborted_transaction_indexed()
    assert keys_in_log(log) == [1]
    assert offsets_in_log(log) == [2, 3]  # the marker stays: the empty batch was read
    assert last_offsets_per_batch_in_log(log) == [2, 3]  # but the empty batch is not kept

    dirty_offset = cleaner.do_clean(LogToClean(TP, log, dirty_offset, 100), delete_horizon_ms=LONG_MAX)[0]
    assert keys_in_log(log) == [1]
    assert offsets_in_log(log) == [3]  # the abort marker is gone
    assert last_offsets_per_batch_in_log(log) == [3]
    assert len(log.collect_aborted_transactions(0, 100)) == 0


def test_large_message(ctx: _Context) -> None:
    large_message_size = 1024 * 1024
    cleaner = ctx.make_cleaner(INT_MAX, max_message_size=1024)
    log = ctx.make_log(_config(**{"segment.bytes": large_message_size * 16,
                                  "max.message.bytes": large_message_size * 2}))
    while log.number_of_segments < 2:
        log.append_as_leader(record(log.log_end_offset, bytes(large_message_size)), 0)
    assert keys_in_log(log) == list(range(log.log_end_offset))

    keys = [1, 3, 5, 7, 9]
    offset_map = FakeOffsetMap(INT_MAX)
    for k in keys:
        offset_map.put(key(k), LONG_MAX)
    stats = CleanerStats()
    cleaner.clean_segments(log, [log.log_segments()[0]], offset_map, 0, stats)
    should_remain = [k for k in keys_in_log(log) if k not in keys]
    assert keys_in_log(log) == should_remain


def test_log_cleaner_retains_last_sequence_even_if_transaction_aborted(ctx: _Context) -> None:
    cleaner = ctx.make_cleaner(10)
    log = ctx.make_log(_config(**{"segment.bytes": 1024}))
    producer_epoch, producer_id = 0, 1
    append_producer = append_idempotent_as_leader(ctx, log, producer_id, producer_epoch, is_transactional=True)

    append_producer([1])
    append_producer([2, 3])
    log.append_as_leader(abort_marker(ctx, producer_id, producer_epoch), 0, is_from_client=False)
    log.roll()

    cleaner.clean(LogToClean(TP, log, 0, log.active_segment.base_offset))
    assert last_offsets_per_batch_in_log(log) == [2, 3]
    assert last_sequences_in_log(log) == {producer_id: 2}
    assert keys_in_log(log) == []
    assert offsets_in_log(log) == [3]

    append_producer([1, 5])
    log.roll()
    cleaner.clean(LogToClean(TP, log, 0, log.active_segment.base_offset))
    assert last_offsets_per_batch_in_log(log) == [3, 5]
    assert last_sequences_in_log(log) == {producer_id: 4}
    assert keys_in_log(log) == [1, 5]
    assert offsets_in_log(log) == [3, 4, 5]


def test_clean_segments_with_abort(ctx: _Context) -> None:
    def abort_check_done(topic_partition: tuple[str, int]) -> None:
        raise LogCleaningAbortedException()

    cleaner = ctx.make_cleaner(INT_MAX, abort_check_done)
    log = ctx.make_log(_config(**{"segment.bytes": 1024}))
    while log.number_of_segments < 4:
        log.append_as_leader(record(log.log_end_offset, log.log_end_offset), 0)
    offset_map = FakeOffsetMap(INT_MAX)
    for k in keys_in_log(log):
        offset_map.put(key(k), LONG_MAX)
    with pytest.raises(LogCleaningAbortedException):
        cleaner.clean_segments(log, log.log_segments()[:3], offset_map, 0, CleanerStats())


def check_segment_order(groups: list[list[LogSegment]]) -> None:
    offsets = [seg.base_offset for group in groups for seg in group]
    assert offsets == sorted(offsets), "Offsets should be in increasing order."


def message_with_offset(k: bytes, v: bytes, offset: int) -> MemoryRecords:
    return with_simple_records([SimpleRecord(v, k)], initial_offset=offset, partition_leader_epoch=0)


def test_segment_grouping(ctx: _Context) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(_config(**{"segment.bytes": 300, "index.interval.bytes": 1}))
    while log.number_of_segments < 10:
        log.append_as_leader(singleton_records(b"hello", key=b"hello"), 0)

    groups = cleaner.group_segments_by_size(log.log_segments(), INT_MAX, INT_MAX, log.log_end_offset)
    assert len(groups) == 1
    assert len(groups[0]) == log.number_of_segments
    check_segment_order(groups)

    groups = cleaner.group_segments_by_size(log.log_segments(), 1, INT_MAX, log.log_end_offset)
    assert len(groups) == log.number_of_segments
    assert all(len(g) == 1 for g in groups), "All groups should be singletons."
    check_segment_order(groups)
    groups = cleaner.group_segments_by_size(log.log_segments(), INT_MAX, 1, log.log_end_offset)
    assert len(groups) == log.number_of_segments
    assert all(len(g) == 1 for g in groups), "All groups should be singletons."
    check_segment_order(groups)

    group_size = 3
    log_size = sum(seg.size for seg in log.log_segments()[:group_size]) + 1
    groups = cleaner.group_segments_by_size(log.log_segments(), log_size, INT_MAX, log.log_end_offset)
    check_segment_order(groups)
    assert all(len(g) == group_size for g in groups[:-1]), "All but the last group should be the target size."

    index_size = sum(seg.index.size_in_bytes() for seg in log.log_segments()[:group_size]) + 1
    groups = cleaner.group_segments_by_size(log.log_segments(), INT_MAX, index_size, log.log_end_offset)
    check_segment_order(groups)
    assert all(len(g) == group_size for g in groups[:-1]), "All but the last group should be the target size."


def test_segment_grouping_with_sparse_offsets(ctx: _Context) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(_config(**{"segment.bytes": 400, "index.interval.bytes": 1}))
    while log.number_of_segments == 1:
        log.append_as_leader(singleton_records(b"hello", key=b"hello"), 0)
    log.append_as_follower(message_with_offset(b"hello", b"hello", INT_MAX - 1))
    log.append_as_leader(singleton_records(b"hello", key=b"hello"), 0)
    assert log.active_segment.index.last_offset == INT_MAX

    groups = cleaner.group_segments_by_size(log.log_segments(), INT_MAX, INT_MAX, log.log_end_offset)
    assert len(groups) == 1

    log.append_as_leader(singleton_records(b"hello", key=b"hello"), 0)
    groups = cleaner.group_segments_by_size(log.log_segments(), INT_MAX, INT_MAX, log.log_end_offset)
    assert len(groups) == 2
    check_segment_order(groups)

    while log.number_of_segments < 4:
        log.append_as_leader(singleton_records(b"hello", key=b"hello"), 0)
    groups = cleaner.group_segments_by_size(log.log_segments(), INT_MAX, INT_MAX, log.log_end_offset)
    assert len(groups) == log.number_of_segments - 1
    for group in groups:
        assert group[-1].index.last_offset - group[0].index.base_offset <= INT_MAX
    check_segment_order(groups)


def test_segment_grouping_following_load_of_zero_index(ctx: _Context) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    log = ctx.make_log(_config(**{"segment.bytes": 400, "index.interval.bytes": 400}))
    log.append_as_follower(message_with_offset(b"hello", b"hello", 0))
    log.append_as_follower(message_with_offset(b"hello", b"hello", 1))
    log.roll(INT_MAX // 2)  # a new segment at offset Int.MaxValue / 2
    log.append_as_follower(message_with_offset(b"hello", b"hello", INT_MAX // 2))
    log.append_as_follower(message_with_offset(b"hello", b"hello", INT_MAX + 1))

    assert log.log_end_offset - 1 - log.log_start_offset > INT_MAX
    assert log.log_segments()[-1].index.last_offset - log.log_start_offset <= INT_MAX

    groups = cleaner.group_segments_by_size(log.log_segments(), INT_MAX, INT_MAX, log.log_end_offset)
    assert len(groups) == 2
    for group in groups:
        assert group[-1].next_offset() - 1 - group[0].base_offset <= INT_MAX
    check_segment_order(groups)


def test_build_offset_map_fake_large(ctx: _Context) -> None:
    offset_map = FakeOffsetMap(1000)
    log = ctx.make_log(LogConfig.from_props({"segment.bytes": 120, "segment.index.bytes": 120,
                                             "cleanup.policy": "compact"}))
    cleaner = ctx.make_cleaner(INT_MAX)
    start, end = 0, 2
    for (k, v), offset in zip(zip(range(start, end), range(start, end), strict=True), [0, 7206178], strict=True):
        log.append_as_follower(message_with_offset(key(k), key(v), offset))
    cleaner.build_offset_map(log, start, end, offset_map, CleanerStats())
    assert offset_map.latest_offset == 7206178, "Last offset should be the end offset."
    assert offset_map.size == end - start
    assert offset_map.get(key(0)) == 0
    assert offset_map.get(key(1)) == 7206178


def test_build_partial_offset_map(ctx: _Context) -> None:
    offset_map = FakeOffsetMap(3)
    log = ctx.make_log()
    cleaner = ctx.make_cleaner(2)
    for k in range(5):
        log.append_as_leader(record(k, k), 0)
    log.roll()
    stats = CleanerStats()
    cleaner.build_offset_map(log, 2, INT_MAX, offset_map, stats)
    assert offset_map.size == 2
    assert offset_map.get(key(0)) == -1
    assert offset_map.get(key(2)) == 2
    assert offset_map.get(key(3)) == 3
    assert offset_map.get(key(4)) == -1
    assert stats.map_messages_read == 4


def test_recovery_after_crash(ctx: _Context) -> None:
    cleaner = ctx.make_cleaner(INT_MAX)
    config = _config(**{"segment.bytes": 300, "index.interval.bytes": 1, "file.delete.delay.ms": 10})

    def recover_and_check(expected_keys: list[int]) -> Log:
        recovered_log = ctx.make_log(config)
        ctx.time.sleep(config.file_delete_delay_ms + 1)
        for file in ctx.dir.iterdir():
            assert not file.name.endswith(Log.DeletedFileSuffix), "Unexpected .deleted file after recovery"
            assert not file.name.endswith(Log.CleanedFileSuffix), "Unexpected .cleaned file after recovery"
            assert not file.name.endswith(Log.SwapFileSuffix), "Unexpected .swap file after recovery"
        assert keys_in_log(recovered_log) == expected_keys
        return recovered_log

    def undelete() -> None:
        for file in ctx.dir.iterdir():
            if file.name.endswith(Log.DeletedFileSuffix):
                file.rename(file.with_name(file.name[:-len(Log.DeletedFileSuffix)]))

    log = ctx.make_log(config)
    message_count = 0
    while log.number_of_segments < 10:
        log.append_as_leader(record(log.log_end_offset, log.log_end_offset), 0)
        message_count += 1
    all_keys = keys_in_log(log)

    offset_map = FakeOffsetMap(INT_MAX)
    for k in range(1, message_count, 2):
        offset_map.put(key(k), LONG_MAX)

    # a crash before the swap: the .cleaned segment is dropped and the old segments stay
    cleaner.clean_segments(log, log.log_segments()[:9], offset_map, 0, CleanerStats())
    log.log_segments()[0].change_file_suffixes("", Log.CleanedFileSuffix)
    undelete()
    log = recover_and_check(all_keys)

    # a crash mid-swap: the .swap segment replaces the old ones on recovery
    cleaner.clean_segments(log, log.log_segments()[:9], offset_map, 0, CleanerStats())
    cleaned_keys = keys_in_log(log)
    log.log_segments()[0].change_file_suffixes("", Log.SwapFileSuffix)
    undelete()
    log = recover_and_check(cleaned_keys)

    # a crash mid-swap after the old segments were deleted
    while log.number_of_segments < 10:
        log.append_as_leader(record(log.log_end_offset, log.log_end_offset), 0)
        message_count += 1
    for k in range(1, message_count, 2):
        offset_map.put(key(k), LONG_MAX)
    cleaner.clean_segments(log, log.log_segments()[:9], offset_map, 0, CleanerStats())
    cleaned_keys = keys_in_log(log)
    log.log_segments()[0].change_file_suffixes("", Log.SwapFileSuffix)
    log = recover_and_check(cleaned_keys)

    # a crash after the swap
    while log.number_of_segments < 10:
        log.append_as_leader(record(log.log_end_offset, log.log_end_offset), 0)
        message_count += 1
    for k in range(1, message_count, 2):
        offset_map.put(key(k), LONG_MAX)
    cleaner.clean_segments(log, log.log_segments()[:9], offset_map, 0, CleanerStats())
    cleaned_keys = keys_in_log(log)
    recover_and_check(cleaned_keys)
