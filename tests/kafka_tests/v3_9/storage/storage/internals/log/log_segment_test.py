"""Port of core/src/test/scala/unit/kafka/log/LogSegmentTest.scala (Kafka 3.9).

TestUtils.tempDir/tempFile become folders and files under pytest's tmp_path; Optional results are None when empty;
Optional.empty() as read's max position is None.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from kafka_edu.v1_0_2.clients.common.record.end_transaction_marker import EndTransactionMarker
from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType
from kafka_edu.v3_9.clients.common.record.file_records import FileRecords
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record_batch import MAGIC_VALUE_V1, MAGIC_VALUE_V2, NO_TIMESTAMP
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM, Time
from kafka_edu.v3_9.server_common.server.util.mock_scheduler import MockScheduler
from kafka_edu.v3_9.storage.storage.internals.checkpoint.leader_epoch_checkpoint_file import LeaderEpochCheckpointFile
from kafka_edu.v3_9.storage.storage.internals.epoch.leader_epoch_file_cache import LeaderEpochFileCache
from kafka_edu.v3_9.storage.storage.internals.log import log_file_utils
from kafka_edu.v3_9.storage.storage.internals.log.batch_metadata import BatchMetadata
from kafka_edu.v3_9.storage.storage.internals.log.epoch_entry import EpochEntry
from kafka_edu.v3_9.storage.storage.internals.log.log_config import LogConfig
from kafka_edu.v3_9.storage.storage.internals.log.log_dir_failure_channel import LogDirFailureChannel
from kafka_edu.v3_9.storage.storage.internals.log.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.storage.storage.internals.log.log_segment import LogSegment
from kafka_edu.v3_9.storage.storage.internals.log.log_segment_offset_overflow_exception import (
    LogSegmentOffsetOverflowException,
)
from kafka_edu.v3_9.storage.storage.internals.log.producer_state_entry import ProducerStateEntry
from kafka_edu.v3_9.storage.storage.internals.log.producer_state_manager import ProducerStateManager
from kafka_edu.v3_9.storage.storage.internals.log.producer_state_manager_config import ProducerStateManagerConfig
from kafka_edu.v3_9.storage.storage.internals.log.roll_params import RollParams
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.storage.storage.internals.log import log_test_utils

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/log/LogSegmentTest.scala",
    cases=[
        "testAppendForLogSegmentOffsetOverflowException",
        "testReadOnEmptySegment",
        "testReadBeforeFirstOffset",
        "testReadAfterLast",
        "testReadFromGap",
        "testReadWhenNoMaxPosition",
        "testTruncate",
        "testTruncateEmptySegment",
        "testReloadLargestTimestampAndNextOffsetAfterTruncation",
        "testTruncateFull",
        "testFindOffsetByTimestamp",
        "testNextOffsetCalculation",
        "testChangeFileSuffixes",
        "testRecoveryFixesCorruptIndex",
        "testRecoverTransactionIndex",
        "testRecoveryRebuildsEpochCache",
        "testRecoveryFixesCorruptTimeIndex",
        "testRecoveryWithCorruptMessage",
        "testCreateWithInitFileSizeAppendMessage",
        "testCreateWithInitFileSizeClearShutdown",
        "shouldTruncateEvenIfOffsetPointsToAGapInTheLog",
        "testAppendFromFile",
        "testGetFirstBatchTimestamp",
    ],
)

TOPIC_PARTITION = TopicPartition("topic", 0)
INT_MAX = 2**31 - 1
LONG_MAX = 2**63 - 1
PRODUCER_ID_EXPIRATION_MS_DEFAULT = 86400000  # TransactionLogConfigs.PRODUCER_ID_EXPIRATION_MS_DEFAULT
RANDOM = random.Random()


class _Segments:
    """The test's segments: created in a temp log dir, closed at teardown."""

    def __init__(self, log_dir: Path, tmp_path: Path) -> None:
        self.log_dir = log_dir
        self._tmp_path = tmp_path
        self.segments: list[LogSegment] = []
        self._dirs = 0

    def create(self, offset: int, index_interval_bytes: int = 10, time: Time = SYSTEM) -> LogSegment:
        seg = log_test_utils.create_segment(offset, self.log_dir, index_interval_bytes, time)
        self.segments.append(seg)
        return seg

    def temp_dir(self) -> Path:
        self._dirs += 1
        path = self._tmp_path / f"temp-{self._dirs}"
        path.mkdir()
        return path

    def open_with(self, base_offset: int, file_already_exists: bool, init_file_size: int,
                  preallocate: bool) -> LogSegment:
        """The test's createSegment(baseOffset, fileAlreadyExists, initFileSize, preallocate)."""
        seg = LogSegment.open(self.temp_dir(), base_offset, _log_config(), SYSTEM, file_already_exists,
                              init_file_size, preallocate, "")
        self.segments.append(seg)
        return seg


@pytest.fixture
def segments(tmp_path: Path) -> Iterator[_Segments]:
    log_dir = tmp_path / "log"
    log_dir.mkdir()
    s = _Segments(log_dir, tmp_path)
    yield s
    for seg in s.segments:
        seg.close()


def _log_config() -> LogConfig:
    return LogConfig({"index.interval.bytes": 10, "segment.index.bytes": 1000, "segment.jitter.ms": 0})


def records(offset: int, *values: str) -> MemoryRecords:
    """Magic v1 records from `offset`, each with timestamp offset * 10."""
    return MemoryRecords.with_records(Compression.NONE, *[SimpleRecord(s.encode(), timestamp=offset * 10)
                                                          for s in values],
                                      magic=MAGIC_VALUE_V1, initial_offset=offset,
                                      timestamp_type=TimestampType.CREATE_TIME)


def _check_equals(s1: Iterable[object], s2: Iterable[object]) -> None:
    i1, i2 = iter(s1), iter(s2)
    while True:
        a, b = next(i1, None), next(i2, None)
        if a is None or b is None:
            assert a is None, "Iterators have uneven length--first has more"
            assert b is None, "Iterators have uneven length--second has more"
            return
        assert a == b


def _write_nonsense_to_file(file_name: Path, position: int, size: int) -> None:
    with open(file_name, "r+b") as file:
        file.seek(position)
        file.write(bytes(RANDOM.randrange(255) for _ in range(size)))


def _new_producer_state_manager(log_dir: Path) -> ProducerStateManager:
    return ProducerStateManager(TOPIC_PARTITION, log_dir, 5 * 60 * 1000,
                                ProducerStateManagerConfig(PRODUCER_ID_EXPIRATION_MS_DEFAULT, False), MockTime())


def _end_txn_records(control_record_type: ControlRecordType, producer_id: int, producer_epoch: int, offset: int,
                     partition_leader_epoch: int = 0, coordinator_epoch: int = 0,
                     timestamp: int = NO_TIMESTAMP) -> MemoryRecords:
    marker = EndTransactionMarker(control_record_type, coordinator_epoch)
    return MemoryRecords.with_end_transaction_marker(producer_id, producer_epoch, marker, initial_offset=offset,
                                                     timestamp=timestamp,
                                                     partition_leader_epoch=partition_leader_epoch)


@pytest.mark.parametrize("base_offset,largest_offset", [
    (0, -2147483648),
    (0, 2147483648),
    (1, 0),
    (100, 10),
    (2147483648, 0),
    (-2147483648, 0),
    (2147483648, 4294967296),
])
def test_append_for_log_segment_offset_overflow_exception(segments: _Segments, base_offset: int,
                                                          largest_offset: int) -> None:
    """The append's largest offset must be >= the base offset and at most Int.MaxValue above it."""
    seg = segments.create(base_offset)
    current_time = SYSTEM.milliseconds()
    shallow_offset_of_max_timestamp = largest_offset
    memory_records = records(0, "hello")
    with pytest.raises(LogSegmentOffsetOverflowException):
        seg.append(largest_offset, current_time, shallow_offset_of_max_timestamp, memory_records)


def test_read_on_empty_segment(segments: _Segments) -> None:
    seg = segments.create(40)
    read = seg.read(40, 300)
    assert read is None, "Read beyond the last offset in the segment should be null"


def test_read_before_first_offset(segments: _Segments) -> None:
    """A read from before the segment's first offset starts at its first message."""
    seg = segments.create(40)
    ms = records(50, "hello", "there", "little", "bee")
    seg.append(53, NO_TIMESTAMP, -1, ms)
    read = seg.read(41, 300).records
    _check_equals(ms.records(), read.records())


def test_read_after_last(segments: _Segments) -> None:
    seg = segments.create(40)
    ms = records(50, "hello", "there")
    seg.append(51, NO_TIMESTAMP, -1, ms)
    read = seg.read(52, 200)
    assert read is None, "Read beyond the last offset in the segment should give null"


def test_read_from_gap(segments: _Segments) -> None:
    """A read from a missing offset starts at the next offset the segment holds."""
    seg = segments.create(40)
    ms = records(50, "hello", "there")
    seg.append(51, NO_TIMESTAMP, -1, ms)
    ms2 = records(60, "alpha", "beta")
    seg.append(61, NO_TIMESTAMP, -1, ms2)
    read = seg.read(55, 200)
    _check_equals(ms2.records(), read.records.records())


@pytest.mark.parametrize("min_one_message", [True, False])
def test_read_when_no_max_position(segments: _Segments, min_one_message: bool) -> None:
    max_position = None
    max_size = 1
    seg = segments.create(40)
    ms = records(50, "hello", "there")
    seg.append(51, NO_TIMESTAMP, -1, ms)
    # read before first offset
    read = seg.read(48, max_size, max_position, min_one_message)
    assert read.fetch_offset_metadata == LogOffsetMetadata(48, 40, 0)
    assert not list(read.records.records())
    # read at first offset
    read = seg.read(50, max_size, max_position, min_one_message)
    assert read.fetch_offset_metadata == LogOffsetMetadata(50, 40, 0)
    assert not list(read.records.records())
    # read at last offset
    read = seg.read(51, max_size, max_position, min_one_message)
    assert read.fetch_offset_metadata == LogOffsetMetadata(51, 40, 39)
    assert not list(read.records.records())
    # read at log-end-offset
    assert seg.read(52, max_size, max_position, min_one_message) is None
    # read beyond log-end-offset
    assert seg.read(53, max_size, max_position, min_one_message) is None


def test_truncate(segments: _Segments) -> None:
    """Append two messages, truncate the second off: the first can be read, the second not."""
    seg = segments.create(40)
    offset = 40
    for _ in range(30):
        ms1 = records(offset, "hello")
        seg.append(offset, NO_TIMESTAMP, -1, ms1)
        ms2 = records(offset + 1, "hello")
        seg.append(offset + 1, NO_TIMESTAMP, -1, ms2)
        # both messages read back
        read = seg.read(offset, 10000)
        assert list(read.records.records()) == [next(iter(ms1.records())), next(iter(ms2.records()))]
        # truncate the last one off
        seg.truncate_to(offset + 1)
        read2 = seg.read(offset, 10000)
        assert len(list(read2.records.records())) == 1
        _check_equals(ms1.records(), read2.records.records())
        offset += 1


def test_truncate_empty_segment(segments: _Segments) -> None:
    """A follower truncating to an empty segment: the indexes are resized, so a full index does not roll it."""
    max_segment_ms = 300000
    time = MockTime()
    seg = segments.create(0, time=time)
    # load the indexes before closing the segment
    seg.time_index()
    seg.offset_index()
    seg.close()

    reopened = segments.create(0, time=time)
    assert seg.time_index().size_in_bytes() == 0
    assert seg.offset_index().size_in_bytes() == 0

    time.sleep(500)
    reopened.truncate_to(57)
    assert reopened.time_waited_for_roll(time.milliseconds(), NO_TIMESTAMP) == 0
    assert not reopened.time_index().is_full()
    assert not reopened.offset_index().is_full()

    roll_params = RollParams(max_segment_ms, INT_MAX, NO_TIMESTAMP, 100, 1024, time.milliseconds())
    assert not reopened.should_roll(roll_params)

    # an empty segment is not rolled for its age
    time.sleep(max_segment_ms + 1)
    assert reopened.time_waited_for_roll(time.milliseconds(), NO_TIMESTAMP) == max_segment_ms + 1
    roll_params = RollParams(max_segment_ms, INT_MAX, NO_TIMESTAMP, 100, 1024, time.milliseconds())
    assert not reopened.should_roll(roll_params)

    # but it is rolled if the next offset does not fit
    roll_params = RollParams(max_segment_ms, INT_MAX, NO_TIMESTAMP, INT_MAX + 200, 1024, time.milliseconds())
    assert reopened.should_roll(roll_params)


def test_reload_largest_timestamp_and_next_offset_after_truncation(segments: _Segments) -> None:
    num_messages = 30
    seg = segments.create(40, 2 * records(0, "hello").size_in_bytes() - 1)
    offset = 40
    for _ in range(num_messages):
        seg.append(offset, offset, offset, records(offset, "hello"))
        offset += 1
    assert seg.read_next_offset() == offset

    expected_num_entries = num_messages // 2 - 1
    assert seg.time_index().entries() == expected_num_entries, f"Should have {expected_num_entries} time indexes"

    seg.truncate_to(41)
    assert seg.time_index().entries() == 0, "Should have 0 time indexes"
    assert seg.largest_timestamp() == 400, "Largest timestamp should be 400"
    assert seg.read_next_offset() == 41


def test_truncate_full(segments: _Segments) -> None:
    """Truncate the whole segment, then append again from the original offset."""
    time = MockTime()
    seg = segments.create(40, time=time)
    seg.append(41, NO_TIMESTAMP, -1, records(40, "hello", "there"))

    # an emptied segment starts its roll clock again
    time.sleep(500)
    assert seg.time_waited_for_roll(time.milliseconds(), NO_TIMESTAMP) == 500

    seg.truncate_to(0)
    assert seg.time_waited_for_roll(time.milliseconds(), NO_TIMESTAMP) == 0
    assert not seg.time_index().is_full()
    assert not seg.offset_index().is_full()
    assert seg.read(0, 1024) is None, "Segment should be empty."

    seg.append(41, NO_TIMESTAMP, -1, records(40, "hello", "there"))


def test_find_offset_by_timestamp(segments: _Segments) -> None:
    message_size = records(0, "msg00").size_in_bytes()
    seg = segments.create(40, message_size * 2 - 1)
    for i in range(40, 50):
        seg.append(i, i * 10, i, records(i, f"msg{i}"))

    assert seg.largest_timestamp() == 490
    # an indexed timestamp
    assert seg.find_offset_by_timestamp(420, 0).offset == 42
    assert seg.find_offset_by_timestamp(421, 0).offset == 43
    # an un-indexed timestamp
    assert seg.find_offset_by_timestamp(430, 0).offset == 43
    assert seg.find_offset_by_timestamp(431, 0).offset == 44
    # beyond the last timestamp
    assert seg.find_offset_by_timestamp(491, 0) is None
    # before the first indexed timestamp
    assert seg.find_offset_by_timestamp(401, 0).offset == 41
    # before the first timestamp
    assert seg.find_offset_by_timestamp(399, 0).offset == 40


def test_next_offset_calculation(segments: _Segments) -> None:
    seg = segments.create(40)
    assert seg.read_next_offset() == 40
    seg.append(52, NO_TIMESTAMP, -1, records(50, "hello", "there", "you"))
    assert seg.read_next_offset() == 53


def test_change_file_suffixes(segments: _Segments) -> None:
    seg = segments.create(40)
    log_file = seg.log().file()
    index_file = seg.offset_index_file()
    time_index_file = seg.time_index_file()
    # the index files are not created eagerly
    assert not seg.offset_index_file().exists()
    assert not seg.time_index_file().exists()
    seg.change_file_suffixes("", ".deleted")
    # renaming absent index files does not create them
    assert not seg.offset_index_file().exists()
    assert not seg.time_index_file().exists()
    # the names changed
    assert str(seg.log().file().absolute()) == str(log_file.absolute()) + ".deleted"
    assert str(seg.offset_index_file().absolute()) == str(index_file.absolute()) + ".deleted"
    assert str(seg.time_index_file().absolute()) == str(time_index_file.absolute()) + ".deleted"
    assert seg.log().file().exists()
    # the offset index file is created when the index is first used
    seg.offset_index()
    assert seg.offset_index_file().exists()
    # so is the time index file
    seg.time_index()
    assert seg.time_index_file().exists()


def test_recovery_fixes_corrupt_index(segments: _Segments) -> None:
    """Corrupt the offset index, recover: every entry can be read."""
    seg = segments.create(0)
    for i in range(100):
        seg.append(i, NO_TIMESTAMP, -1, records(i, str(i)))
    index_file = seg.offset_index_file()
    _write_nonsense_to_file(index_file, 5, index_file.stat().st_size)
    seg.recover(_new_producer_state_manager(segments.log_dir), None)
    for i in range(100):
        recs = seg.read(i, 1, seg.size(), True).records.records()
        assert next(iter(recs)).offset() == i


def test_recover_transaction_index(segments: _Segments) -> None:
    segment = segments.create(100)
    producer_epoch = 0
    partition_leader_epoch = 15
    sequence = 100

    pid1 = 5
    pid2 = 10

    # transactional records from pid1
    segment.append(101, NO_TIMESTAMP, 100, MemoryRecords.with_transactional_records(
        Compression.NONE, pid1, producer_epoch, sequence, SimpleRecord(b"a"), SimpleRecord(b"b"),
        initial_offset=100, partition_leader_epoch=partition_leader_epoch))

    # transactional records from pid2
    segment.append(103, NO_TIMESTAMP, 102, MemoryRecords.with_transactional_records(
        Compression.NONE, pid2, producer_epoch, sequence, SimpleRecord(b"a"), SimpleRecord(b"b"),
        initial_offset=102, partition_leader_epoch=partition_leader_epoch))

    # non-transactional records
    segment.append(105, NO_TIMESTAMP, 104, MemoryRecords.with_records(
        Compression.NONE, SimpleRecord(b"a"), SimpleRecord(b"b"), initial_offset=104,
        partition_leader_epoch=partition_leader_epoch))

    # abort pid2's transaction (the LSO is 100: pid1's transaction is still open)
    segment.append(106, NO_TIMESTAMP, 106, _end_txn_records(ControlRecordType.ABORT, pid2, producer_epoch, offset=106))

    # commit pid1's transaction
    segment.append(107, NO_TIMESTAMP, 107,
                   _end_txn_records(ControlRecordType.COMMIT, pid1, producer_epoch, offset=107))

    state_manager = _new_producer_state_manager(segments.log_dir)
    segment.recover(state_manager, None)
    assert state_manager.map_end_offset() == 108

    aborted_txns = segment.txn_index().all_aborted_txns()
    assert len(aborted_txns) == 1
    aborted_txn = aborted_txns[0]
    assert aborted_txn.producer_id() == pid2
    assert aborted_txn.first_offset() == 102
    assert aborted_txn.last_offset() == 106
    assert aborted_txn.last_stable_offset() == 100

    # again, with pid2's transaction begun in an earlier segment
    state_manager = _new_producer_state_manager(segments.log_dir)
    state_manager.load_producer_entry(ProducerStateEntry(pid2, producer_epoch, 0, NO_TIMESTAMP, 75,
                                                         BatchMetadata(10, 10, 5, NO_TIMESTAMP)))
    segment.recover(state_manager, None)
    assert state_manager.map_end_offset() == 108

    aborted_txns = segment.txn_index().all_aborted_txns()
    assert len(aborted_txns) == 1
    aborted_txn = aborted_txns[0]
    assert aborted_txn.producer_id() == pid2
    assert aborted_txn.first_offset() == 75
    assert aborted_txn.last_offset() == 106
    assert aborted_txn.last_stable_offset() == 100


def test_recovery_rebuilds_epoch_cache(segments: _Segments, tmp_path: Path) -> None:
    """Recovery assigns the leader epochs of the segment's batches to the epoch cache."""
    seg = segments.create(0)

    checkpoint = LeaderEpochCheckpointFile(tmp_path / "leader-epoch-checkpoint", LogDirFailureChannel(1))

    cache = LeaderEpochFileCache(TOPIC_PARTITION, checkpoint, MockScheduler(MockTime()))
    seg.append(105, NO_TIMESTAMP, 104, MemoryRecords.with_records(
        Compression.NONE, SimpleRecord(b"a"), SimpleRecord(b"b"), initial_offset=104, partition_leader_epoch=0))

    seg.append(107, NO_TIMESTAMP, 106, MemoryRecords.with_records(
        Compression.NONE, SimpleRecord(b"a"), SimpleRecord(b"b"), initial_offset=106, partition_leader_epoch=1))

    seg.append(109, NO_TIMESTAMP, 108, MemoryRecords.with_records(
        Compression.NONE, SimpleRecord(b"a"), SimpleRecord(b"b"), initial_offset=108, partition_leader_epoch=1))

    seg.append(111, NO_TIMESTAMP, 110, MemoryRecords.with_records(
        Compression.NONE, SimpleRecord(b"a"), SimpleRecord(b"b"), initial_offset=110, partition_leader_epoch=2))

    seg.recover(_new_producer_state_manager(segments.log_dir), cache)
    assert cache.epoch_entries() == [EpochEntry(0, 104), EpochEntry(1, 106), EpochEntry(2, 110)]


def test_recovery_fixes_corrupt_time_index(segments: _Segments) -> None:
    """Corrupt the time index, recover: every timestamp is found."""
    seg = segments.create(0)
    for i in range(100):
        seg.append(i, i * 10, i, records(i, str(i)))
    time_index_file = seg.time_index_file()
    _write_nonsense_to_file(time_index_file, 5, time_index_file.stat().st_size)
    seg.recover(_new_producer_state_manager(segments.log_dir), None)
    for i in range(100):
        assert seg.find_offset_by_timestamp(i * 10, 0).offset == i
        if i < 99:
            assert seg.find_offset_by_timestamp(i * 10 + 1, 0).offset == i + 1


def test_recovery_with_corrupt_message(segments: _Segments) -> None:
    """Corrupt the log at a random place (ten times) and recover: the batches before the corruption remain."""
    messages_appended = 20
    for _ in range(10):
        seg = segments.create(0)
        for i in range(messages_appended):
            seg.append(i, NO_TIMESTAMP, -1, records(i, str(i)))
        offset_to_begin_corruption = RANDOM.randrange(messages_appended)
        # corrupt from somewhere in the chosen record to the end

        record_position = seg.log().search_for_offset_with_size(offset_to_begin_corruption, 0)
        position = record_position.position + RANDOM.randrange(15)
        _write_nonsense_to_file(seg.log().file(), position, seg.log().file().stat().st_size - position)
        seg.recover(_new_producer_state_manager(segments.log_dir), None)
        assert [batch.last_offset() for batch in seg.log().batches()] == list(range(offset_to_begin_corruption)), \
            "Should have truncated off bad messages."
        seg.delete_if_exists()


def test_create_with_init_file_size_append_message(segments: _Segments) -> None:
    """A preallocated segment: append, read back."""
    seg = segments.open_with(40, False, 512 * 1024 * 1024, True)
    ms = records(50, "hello", "there")
    seg.append(51, NO_TIMESTAMP, -1, ms)
    ms2 = records(60, "alpha", "beta")
    seg.append(61, NO_TIMESTAMP, -1, ms2)
    read = seg.read(55, 200)
    _check_equals(ms2.records(), read.records.records())


def test_create_with_init_file_size_clear_shutdown(segments: _Segments) -> None:
    """A preallocated segment shut down cleanly is trimmed, and reopens with the same size and position."""
    temp_dir = segments.temp_dir()
    log_config = _log_config()

    seg = LogSegment.open(temp_dir, 40, log_config, SYSTEM, init_file_size=512 * 1024 * 1024, preallocate=True)

    ms = records(50, "hello", "there")
    seg.append(51, NO_TIMESTAMP, -1, ms)
    ms2 = records(60, "alpha", "beta")
    seg.append(61, NO_TIMESTAMP, -1, ms2)
    read = seg.read(55, 200)
    _check_equals(ms2.records(), read.records.records())
    old_size = seg.log().size_in_bytes()
    old_position = seg.log().channel().position()
    old_file_size = seg.log().file().stat().st_size
    assert old_file_size == 512 * 1024 * 1024
    seg.close()
    # closing trims the file
    assert seg.log().file().stat().st_size == old_size

    seg_reopen = LogSegment.open(temp_dir, 40, log_config, SYSTEM, True, 512 * 1024 * 1024, True, "")
    segments.segments.append(seg_reopen)

    read_again = seg_reopen.read(55, 200)
    _check_equals(ms2.records(), read_again.records.records())
    size = seg_reopen.log().size_in_bytes()
    position = seg_reopen.log().channel().position()
    file_size = seg_reopen.log().file().stat().st_size
    assert position == old_position
    assert size == old_size
    assert file_size == size


def test_should_truncate_even_if_offset_points_to_a_gap_in_the_log(segments: _Segments) -> None:
    seg = segments.create(40)
    offset = 40

    def records_v2(offset: int, record: str) -> MemoryRecords:
        return MemoryRecords.with_records(Compression.NONE, SimpleRecord(record.encode(), timestamp=offset * 1000),
                                          magic=MAGIC_VALUE_V2, initial_offset=offset,
                                          timestamp_type=TimestampType.CREATE_TIME)

    # two messages with a gap between them (e.g. compacted away)
    ms1 = records_v2(offset, "first message")
    seg.append(offset, NO_TIMESTAMP, -1, ms1)
    ms2 = records_v2(offset + 3, "message after gap")
    seg.append(offset + 3, NO_TIMESTAMP, -1, ms2)

    # truncate to an offset no batch holds
    seg.truncate_to(offset + 1)

    # the batch after it is gone all the same
    log = seg.read(offset, 10000)
    batches = list(log.records.batches())
    assert batches[0].base_offset() == offset
    assert len(batches) == 1


def test_append_from_file(segments: _Segments) -> None:
    def records_of_size(offset: int, size: int) -> MemoryRecords:
        return MemoryRecords.with_records(Compression.NONE, SimpleRecord(bytes(size)), magic=MAGIC_VALUE_V2,
                                          initial_offset=offset, timestamp_type=TimestampType.CREATE_TIME)

    # a log file in a directory of its own
    temp_dir = segments.temp_dir()
    file_records = FileRecords.open(log_file_utils.log_file(temp_dir, 0))

    # one log whose offsets span more than Int.MaxValue
    file_records.append(records_of_size(0, 1024))
    file_records.append(records_of_size(500, 1024 * 1024 + 1))
    size_before_overflow = file_records.size_in_bytes()
    file_records.append(records_of_size(INT_MAX + 5, 1024))
    size_after_overflow = file_records.size_in_bytes()

    segment = segments.create(0)
    bytes_appended = segment.append_from_file(file_records, 0)
    assert bytes_appended == size_before_overflow
    assert segment.size() == size_before_overflow

    overflow_segment = segments.create(INT_MAX)
    overflow_bytes_appended = overflow_segment.append_from_file(file_records, size_before_overflow)
    assert overflow_bytes_appended == size_after_overflow - size_before_overflow
    assert overflow_segment.size() == overflow_bytes_appended

    file_records.close()


def test_get_first_batch_timestamp(segments: _Segments) -> None:
    segment = segments.create(1)
    assert segment.get_first_batch_timestamp() == LONG_MAX

    segment.append(1, 1000, 1, MemoryRecords.with_records(Compression.NONE, SimpleRecord(b"one"), initial_offset=1))
    assert segment.get_first_batch_timestamp() == 1000

    segment.close()
