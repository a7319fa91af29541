"""Port of core/src/test/scala/unit/kafka/log/LogSegmentTest.scala (Kafka 1.0.2).

Kafka's `records(offset, strings...)` helper builds magic v1 messages, uncompressed: every string is then its own
entry in the log (v1 has no batch of several records unless compressed), all of them stamped offset * 10. The port's
log stores record batches v2 only, so the helper here lays out the same log from v2 batches of one record each: the
same offsets, timestamps, keys and values, one batch per message. testMaxOffset needs that layout (a read bounded by
maxOffset stops at a batch boundary); the other cases would also pass with a single batch.

Left out of testCreateWithInitFileSizeClearShutdown: the two assertions on `log.channel.position` (a Java
FileChannel's write pointer; the port's FileRecords writes with pwrite at the end of its records and keeps none).
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
from collections import deque
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_edu.v1_0_2.clients.common.record.control_record_type import ControlRecordType
from kafka_edu.v1_0_2.clients.common.record.default_record import DefaultRecord
from kafka_edu.v1_0_2.clients.common.record.end_transaction_marker import EndTransactionMarker
from kafka_edu.v1_0_2.clients.common.record.file_records import (
    NO_TIMESTAMP,
    FileRecords,
    MemoryRecords,
)
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import (
    SimpleRecord,
    with_end_transaction_marker,
    with_simple_records,
    with_transactional_records,
)
from kafka_edu.v1_0_2.core.log.log_segment import LogSegment
from kafka_edu.v1_0_2.core.log.offset_index import OffsetIndex
from kafka_edu.v1_0_2.core.log.producer_state_manager import (
    BatchMetadata,
    ProducerStateEntry,
    ProducerStateManager,
)
from kafka_edu.v1_0_2.core.log.time_index import TimeIndex
from kafka_edu.v1_0_2.core.log.transaction_index import TransactionIndex
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "1.0.2", "core/src/test/scala/unit/kafka/log/LogSegmentTest.scala",
    cases=[
        "testReadOnEmptySegment",
        "testReadBeforeFirstOffset",
        "testMaxOffset",
        "testReadAfterLast",
        "testReadFromGap",
        "testTruncate",
        "testReloadLargestTimestampAndNextOffsetAfterTruncation",
        "testTruncateFull",
        "testFindOffsetByTimestamp",
        "testNextOffsetCalculation",
        "testChangeFileSuffixes",
        "testRecoveryFixesCorruptIndex",
        "testRecoverTransactionIndex",
        "testRecoveryFixesCorruptTimeIndex",
        "testRecoveryWithCorruptMessage",
        "testCreateWithInitFileSizeAppendMessage",
        "testCreateWithInitFileSizeClearShutdown",
        "shouldTruncateEvenIfOffsetPointsToAGapInTheLog",
    ],
)

TOPIC_PARTITION = ("topic", 0)
_random = random.Random()  # TestUtils.random


class _SegmentTestContext:
    """The test class's state: the segments it made (deleted in teardown) and a log dir for producer state."""

    def __init__(self, tmp_path: Path) -> None:
        self._tmp_path = tmp_path
        self.segments: list[LogSegment] = []
        self.log_dir = self.temp_dir()

    def temp_dir(self) -> Path:
        """TestUtils.tempDir."""
        return Path(tempfile.mkdtemp(prefix="kafka-", dir=self._tmp_path))

    def temp_file(self) -> Path:
        """TestUtils.tempFile."""
        fd, name = tempfile.mkstemp(prefix="kafka", suffix=".tmp", dir=self._tmp_path)
        os.close(fd)
        return Path(name)

    def create_segment(self, offset: int, index_interval_bytes: int = 10) -> LogSegment:
        ms = FileRecords.open(self.temp_file())
        idx_file, time_idx_file, txn_idx_file = self.temp_file(), self.temp_file(), self.temp_file()
        for f in (idx_file, time_idx_file, txn_idx_file):
            f.unlink()
        idx = OffsetIndex(idx_file, offset, 1000)
        time_idx = TimeIndex(time_idx_file, offset, 1500)
        txn_index = TransactionIndex(offset, txn_idx_file)
        seg = LogSegment(ms, idx, time_idx, txn_index, offset, index_interval_bytes, 0)
        self.segments.append(seg)
        return seg

    def create_segment_with_init_file_size(self, offset: int, file_already_exists: bool, init_file_size: int,
                                           preallocate: bool) -> LogSegment:
        """Kafka's second createSegment overload: the auxiliary LogSegment constructor in a new directory."""
        seg = LogSegment.open(self.temp_dir(), offset, 10, 1000, 0, file_already_exists=file_already_exists,
                              init_file_size=init_file_size, preallocate=preallocate)
        self.segments.append(seg)
        return seg

    def teardown(self) -> None:
        for seg in self.segments:
            # A segment a case deleted itself has closed its file descriptors, whose numbers may have been reused
            # since: closing them again would close another segment's files.
            if not seg.log.file.exists():
                continue
            seg.index.delete()
            seg.time_index.delete()
            seg.txn_index.delete()
            seg.log.delete()
        shutil.rmtree(self.log_dir, ignore_errors=True)


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[_SegmentTestContext]:
    context = _SegmentTestContext(tmp_path)
    yield context
    context.teardown()


def records(offset: int, *values: str) -> MemoryRecords:
    """MemoryRecords.withRecords(MAGIC_VALUE_V1, offset, NONE, CREATE_TIME, ...): one entry per message, as v1 lays
    them out, each here a v2 batch of one record stamped offset * 10."""
    buffer = bytearray()
    for i, value in enumerate(values):
        buffer += with_simple_records([SimpleRecord(value.encode(), timestamp=offset * 10)], offset + i).buffer
    return MemoryRecords(buffer)


def record_list(records: MemoryRecords | FileRecords | None) -> list[DefaultRecord]:
    """`records.records` as a list; None stands for MemoryRecords.EMPTY."""
    if records is None:
        return []
    out: list[DefaultRecord] = []
    for batch in records.batches():
        full = batch.load_full_batch() if hasattr(batch, "load_full_batch") else batch
        out.extend(full.records())
    return out


def check_equals(expected: list[DefaultRecord], actual: list[DefaultRecord]) -> None:
    """TestUtils.checkEquals over two record iterators."""
    assert actual == expected


def write_nonsense_to_file(file_to_corrupt: Path, position: int, size: int) -> None:
    """TestUtils.writeNonsenseToFile."""
    with open(file_to_corrupt, "r+b") as f:
        f.seek(position)
        f.write(bytes(_random.randrange(255) for _ in range(size)))


def test_read_on_empty_segment(ctx: _SegmentTestContext) -> None:
    seg = ctx.create_segment(40)
    read = seg.read(start_offset=40, max_size=300, max_offset=None)
    assert read is None, "Read beyond the last offset in the segment should be null"


def test_read_before_first_offset(ctx: _SegmentTestContext) -> None:
    seg = ctx.create_segment(40)
    ms = records(50, "hello", "there", "little", "bee")
    seg.append(50, 53, NO_TIMESTAMP, -1, ms)
    read = seg.read(start_offset=41, max_size=300, max_offset=None).records
    check_equals(record_list(ms), record_list(read))


def test_max_offset(ctx: _SegmentTestContext) -> None:
    base_offset = 50
    seg = ctx.create_segment(base_offset)
    ms = records(base_offset, "hello", "there", "beautiful")
    seg.append(base_offset, 52, NO_TIMESTAMP, -1, ms)

    def validate(offset: int) -> None:
        assert [r for r in record_list(ms) if r.offset == offset] == record_list(
            seg.read(start_offset=offset, max_size=1024, max_offset=offset + 1).records)

    validate(50)
    validate(51)
    validate(52)


def test_read_after_last(ctx: _SegmentTestContext) -> None:
    seg = ctx.create_segment(40)
    ms = records(50, "hello", "there")
    seg.append(50, 51, NO_TIMESTAMP, -1, ms)
    read = seg.read(start_offset=52, max_size=200, max_offset=None)
    assert read is None, "Read beyond the last offset in the segment should give null"


def test_read_from_gap(ctx: _SegmentTestContext) -> None:
    seg = ctx.create_segment(40)
    ms = records(50, "hello", "there")
    seg.append(50, 51, NO_TIMESTAMP, -1, ms)
    ms2 = records(60, "alpha", "beta")
    seg.append(60, 61, NO_TIMESTAMP, -1, ms2)
    read = seg.read(start_offset=55, max_size=200, max_offset=None)
    check_equals(record_list(ms2), record_list(read.records))


def test_truncate(ctx: _SegmentTestContext) -> None:
    seg = ctx.create_segment(40)
    offset = 40
    for _ in range(30):
        ms1 = records(offset, "hello")
        seg.append(offset, offset, NO_TIMESTAMP, -1, ms1)
        ms2 = records(offset + 1, "hello")
        seg.append(offset + 1, offset + 1, NO_TIMESTAMP, -1, ms2)
        # both messages can be read back
        read = seg.read(offset, None, 10000)
        assert [record_list(ms1)[0], record_list(ms2)[0]] == record_list(read.records)
        # cut off the second
        seg.truncate_to(offset + 1)
        read2 = seg.read(offset, None, 10000)
        assert len(record_list(read2.records)) == 1
        check_equals(record_list(ms1), record_list(read2.records))
        offset += 1


def test_reload_largest_timestamp_and_next_offset_after_truncation(ctx: _SegmentTestContext) -> None:
    num_messages = 30
    seg = ctx.create_segment(40, 2 * records(0, "hello").size_in_bytes() - 1)
    offset = 40
    for _ in range(num_messages):
        seg.append(offset, offset, offset, offset, records(offset, "hello"))
        offset += 1
    assert seg.next_offset() == offset

    expected_num_entries = num_messages // 2 - 1
    assert seg.time_index.entries == expected_num_entries, f"Should have {expected_num_entries} time indexes"

    seg.truncate_to(41)
    assert seg.time_index.entries == 0, "Should have 0 time indexes"
    assert seg.largest_timestamp == 400, "Largest timestamp should be 400"
    assert seg.next_offset() == 41


def test_truncate_full(ctx: _SegmentTestContext) -> None:
    seg = ctx.create_segment(40)
    seg.append(40, 41, NO_TIMESTAMP, -1, records(40, "hello", "there"))
    seg.truncate_to(0)
    assert seg.read(0, None, 1024) is None, "Segment should be empty."
    seg.append(40, 41, NO_TIMESTAMP, -1, records(40, "hello", "there"))


def test_find_offset_by_timestamp(ctx: _SegmentTestContext) -> None:
    message_size = records(0, "msg00").size_in_bytes()
    seg = ctx.create_segment(40, message_size * 2 - 1)
    for i in range(40, 50):
        seg.append(i, i, i * 10, i, records(i, f"msg{i}"))

    assert seg.largest_timestamp == 490
    # an indexed timestamp
    assert seg.find_offset_by_timestamp(420).offset == 42
    assert seg.find_offset_by_timestamp(421).offset == 43
    # a timestamp between index entries
    assert seg.find_offset_by_timestamp(430).offset == 43
    assert seg.find_offset_by_timestamp(431).offset == 44
    # past the last timestamp
    assert seg.find_offset_by_timestamp(491) is None
    # before the first index entry
    assert seg.find_offset_by_timestamp(401).offset == 41
    # before the first timestamp
    assert seg.find_offset_by_timestamp(399).offset == 40


def test_next_offset_calculation(ctx: _SegmentTestContext) -> None:
    seg = ctx.create_segment(40)
    assert seg.next_offset() == 40
    seg.append(50, 52, NO_TIMESTAMP, -1, records(50, "hello", "there", "you"))
    assert seg.next_offset() == 53


def test_change_file_suffixes(ctx: _SegmentTestContext) -> None:
    seg = ctx.create_segment(40)
    log_file = seg.log.file
    index_file = seg.index.file
    seg.change_file_suffixes("", ".deleted")
    assert str(seg.log.file.absolute()) == str(log_file.absolute()) + ".deleted"
    assert str(seg.index.file.absolute()) == str(index_file.absolute()) + ".deleted"
    assert seg.log.file.exists()
    assert seg.index.file.exists()


def test_recovery_fixes_corrupt_index(ctx: _SegmentTestContext) -> None:
    seg = ctx.create_segment(0)
    for i in range(100):
        seg.append(i, i, NO_TIMESTAMP, -1, records(i, str(i)))
    index_file = seg.index.file
    write_nonsense_to_file(index_file, 5, index_file.stat().st_size)
    seg.recover(ProducerStateManager(TOPIC_PARTITION, ctx.log_dir))
    for i in range(100):
        assert record_list(seg.read(i, i + 1, 1024).records)[0].offset == i


def _end_txn_records(control_record_type: ControlRecordType, producer_id: int, producer_epoch: int, offset: int,
                     partition_leader_epoch: int = 0, coordinator_epoch: int = 0,
                     timestamp: int = NO_TIMESTAMP) -> MemoryRecords:
    marker = EndTransactionMarker(control_record_type, coordinator_epoch)
    return with_end_transaction_marker(producer_id, producer_epoch, marker, initial_offset=offset,
                                       timestamp=timestamp, partition_leader_epoch=partition_leader_epoch)


def test_recover_transaction_index(ctx: _SegmentTestContext) -> None:
    segment = ctx.create_segment(100)
    producer_epoch = 0
    partition_leader_epoch = 15
    sequence = 100

    pid1 = 5
    pid2 = 10

    def ab() -> list[SimpleRecord]:
        return [SimpleRecord(b"a"), SimpleRecord(b"b")]

    # transactional records of pid1, then of pid2
    segment.append(first_offset=100, largest_offset=101, largest_timestamp=NO_TIMESTAMP,
                   shallow_offset_of_max_timestamp=100,
                   records=with_transactional_records(ab(), pid1, producer_epoch, sequence, initial_offset=100,
                                                      partition_leader_epoch=partition_leader_epoch))
    segment.append(first_offset=102, largest_offset=103, largest_timestamp=NO_TIMESTAMP,
                   shallow_offset_of_max_timestamp=102,
                   records=with_transactional_records(ab(), pid2, producer_epoch, sequence, initial_offset=102,
                                                      partition_leader_epoch=partition_leader_epoch))
    # records outside any transaction
    segment.append(first_offset=104, largest_offset=105, largest_timestamp=NO_TIMESTAMP,
                   shallow_offset_of_max_timestamp=104,
                   records=with_simple_records(ab(), initial_offset=104,
                                               partition_leader_epoch=partition_leader_epoch))
    # pid2 aborts while pid1's transaction is still open (last stable offset 100)
    segment.append(first_offset=106, largest_offset=106, largest_timestamp=NO_TIMESTAMP,
                   shallow_offset_of_max_timestamp=106,
                   records=_end_txn_records(ControlRecordType.ABORT, pid2, producer_epoch, offset=106))
    # pid1 commits
    segment.append(first_offset=107, largest_offset=107, largest_timestamp=NO_TIMESTAMP,
                   shallow_offset_of_max_timestamp=107,
                   records=_end_txn_records(ControlRecordType.COMMIT, pid1, producer_epoch, offset=107))

    state_manager = ProducerStateManager(TOPIC_PARTITION, ctx.log_dir)
    segment.recover(state_manager)
    assert state_manager.map_end_offset == 108

    aborted_txns = segment.txn_index.all_aborted_txns()
    assert len(aborted_txns) == 1
    aborted_txn = aborted_txns[0]
    assert aborted_txn.producer_id == pid2
    assert aborted_txn.first_offset == 102
    assert aborted_txn.last_offset == 106
    assert aborted_txn.last_stable_offset == 100

    # again, with pid2's transaction begun in an earlier segment
    state_manager = ProducerStateManager(TOPIC_PARTITION, ctx.log_dir)
    state_manager.load_producer_entry(ProducerStateEntry(
        pid2, deque([BatchMetadata(10, 10, 5, NO_TIMESTAMP)]), producer_epoch, 0, 75))
    segment.recover(state_manager)
    assert state_manager.map_end_offset == 108

    aborted_txns = segment.txn_index.all_aborted_txns()
    assert len(aborted_txns) == 1
    aborted_txn = aborted_txns[0]
    assert aborted_txn.producer_id == pid2
    assert aborted_txn.first_offset == 75
    assert aborted_txn.last_offset == 106
    assert aborted_txn.last_stable_offset == 100


def test_recovery_fixes_corrupt_time_index(ctx: _SegmentTestContext) -> None:
    seg = ctx.create_segment(0)
    for i in range(100):
        seg.append(i, i, i * 10, i, records(i, str(i)))
    time_index_file = seg.time_index.file
    write_nonsense_to_file(time_index_file, 5, time_index_file.stat().st_size)
    seg.recover(ProducerStateManager(TOPIC_PARTITION, ctx.log_dir))
    for i in range(100):
        assert seg.find_offset_by_timestamp(i * 10).offset == i
        if i < 99:
            assert seg.find_offset_by_timestamp(i * 10 + 1).offset == i + 1


def test_recovery_with_corrupt_message(ctx: _SegmentTestContext) -> None:
    messages_appended = 20
    for _ in range(10):
        seg = ctx.create_segment(0)
        for i in range(messages_appended):
            seg.append(i, i, NO_TIMESTAMP, -1, records(i, str(i)))
        offset_to_begin_corruption = _random.randrange(messages_appended)
        # garble from somewhere near the start of the chosen batch to the end of the file
        record_position = seg.log.search_for_offset_with_size(offset_to_begin_corruption, 0)
        position = record_position.position + _random.randrange(15)
        write_nonsense_to_file(seg.log.file, position, seg.log.file.stat().st_size - position)
        seg.recover(ProducerStateManager(TOPIC_PARTITION, ctx.log_dir))
        assert [b.last_offset for b in seg.log.batches()] == list(range(offset_to_begin_corruption)), \
            "Should have truncated off bad messages."
        seg.delete()


def test_create_with_init_file_size_append_message(ctx: _SegmentTestContext) -> None:
    seg = ctx.create_segment_with_init_file_size(40, False, 512 * 1024 * 1024, True)
    ms = records(50, "hello", "there")
    seg.append(50, 51, NO_TIMESTAMP, -1, ms)
    ms2 = records(60, "alpha", "beta")
    seg.append(60, 61, NO_TIMESTAMP, -1, ms2)
    read = seg.read(start_offset=55, max_size=200, max_offset=None)
    check_equals(record_list(ms2), record_list(read.records))


def test_create_with_init_file_size_clear_shutdown(ctx: _SegmentTestContext) -> None:
    temp_dir = ctx.temp_dir()
    seg = LogSegment.open(temp_dir, 40, 10, 1000, 0, file_already_exists=False, init_file_size=512 * 1024 * 1024,
                          preallocate=True)

    ms = records(50, "hello", "there")
    seg.append(50, 51, NO_TIMESTAMP, -1, ms)
    ms2 = records(60, "alpha", "beta")
    seg.append(60, 61, NO_TIMESTAMP, -1, ms2)
    read = seg.read(start_offset=55, max_size=200, max_offset=None)
    check_equals(record_list(ms2), record_list(read.records))
    old_size = seg.log.size_in_bytes()
    old_file_size = seg.log.file.stat().st_size
    assert old_file_size == 512 * 1024 * 1024
    seg.close()
    # closing trims the file to its records
    assert seg.log.file.stat().st_size == old_size

    seg_reopen = LogSegment.open(temp_dir, 40, 10, 1000, 0, file_already_exists=True,
                                 init_file_size=512 * 1024 * 1024, preallocate=True)
    ctx.segments.append(seg_reopen)

    read_again = seg_reopen.read(start_offset=55, max_size=200, max_offset=None)
    check_equals(record_list(ms2), record_list(read_again.records))
    size = seg_reopen.log.size_in_bytes()
    file_size = seg_reopen.log.file.stat().st_size
    assert size == old_size
    assert file_size == size


def test_should_truncate_even_if_offset_points_to_a_gap_in_the_log(ctx: _SegmentTestContext) -> None:
    seg = ctx.create_segment(40)
    offset = 40

    def v2_records(offset: int, record: str) -> MemoryRecords:
        return with_simple_records([SimpleRecord(record.encode(), timestamp=offset * 1000)], offset)

    # two messages with a gap between them (say, compacted away)
    ms1 = v2_records(offset, "first message")
    seg.append(offset, offset, NO_TIMESTAMP, -1, ms1)
    ms2 = v2_records(offset + 3, "message after gap")
    seg.append(offset + 3, offset + 3, NO_TIMESTAMP, -1, ms2)

    # truncating to an offset no entry has
    seg.truncate_to(offset + 1)

    # still removes the entry above it
    log = seg.read(offset, None, 10000)
    batches = list(log.records.batches())
    assert batches[0].base_offset == offset
    assert len(batches) == 1
