"""Port of storage/src/test/java/org/apache/kafka/storage/internals/log/TimeIndexTest.java (Kafka 3.9).

TestUtils.tempFile becomes a file under pytest's tmp_path; the index each case starts from (a field of Kafka's test
class) is the `idx` fixture.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, InvalidOffsetException
from kafka_edu.v1_0_2.clients.common.record.file_records import NO_TIMESTAMP
from kafka_edu.v3_9.storage.storage.internals.log.corrupt_index_exception import CorruptIndexException
from kafka_edu.v3_9.storage.storage.internals.log.time_index import TimeIndex
from kafka_edu.v3_9.storage.storage.internals.log.timestamp_offset import TimestampOffset
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "storage/src/test/java/org/apache/kafka/storage/internals/log/TimeIndexTest.java",
    cases=[
        "testLookUp",
        "testEntry",
        "testEntryOverflow",
        "testTruncate",
        "testAppend",
        "testSanityCheck",
        "testIsFull",
        "testLastEntry",
        "testResize",
        "testEntrySize",
        "testParseEntry",
    ],
)

MAX_ENTRIES = 30
BASE_OFFSET = 45


@pytest.fixture
def idx(tmp_path: Path) -> Iterator[TimeIndex]:
    index = TimeIndex(tmp_path / "kafka.timeindex", BASE_OFFSET, MAX_ENTRIES * 12)
    yield index
    index.file().unlink(missing_ok=True)


def _append_entries(idx: TimeIndex, num_entries: int) -> None:
    for i in range(1, num_entries + 1):
        idx.maybe_append(i * 10, i * 10 + BASE_OFFSET)


def test_look_up(idx: TimeIndex) -> None:
    # an empty index
    assert idx.lookup(100) == TimestampOffset(-1, BASE_OFFSET)

    _append_entries(idx, MAX_ENTRIES - 1)

    # before the earliest entry
    assert idx.lookup(9) == TimestampOffset(-1, BASE_OFFSET)
    # between two entries
    assert idx.lookup(25) == TimestampOffset(20, 65)
    # exactly an entry's timestamp
    assert idx.lookup(30) == TimestampOffset(30, 75)


def test_entry(idx: TimeIndex) -> None:
    _append_entries(idx, MAX_ENTRIES - 1)
    assert idx.entry(0) == TimestampOffset(10, 55)
    assert idx.entry(1) == TimestampOffset(20, 65)
    assert idx.entry(2) == TimestampOffset(30, 75)
    assert idx.entry(3) == TimestampOffset(40, 85)


def test_entry_overflow(idx: TimeIndex) -> None:
    with pytest.raises(IllegalArgumentException):
        idx.entry(0)


def test_truncate(idx: TimeIndex) -> None:
    _append_entries(idx, MAX_ENTRIES - 1)
    idx.truncate()
    assert idx.entries() == 0

    _append_entries(idx, MAX_ENTRIES - 1)
    idx.truncate_to(10 + BASE_OFFSET)
    assert idx.entries() == 0


def test_append(idx: TimeIndex) -> None:
    _append_entries(idx, MAX_ENTRIES - 1)
    with pytest.raises(IllegalArgumentException):
        idx.maybe_append(10000, 1000)
    with pytest.raises(InvalidOffsetException):
        idx.maybe_append(10000, (MAX_ENTRIES - 2) * 10, True)
    idx.maybe_append(10000, 1000, True)


def test_sanity_check(idx: TimeIndex) -> None:
    idx.sanity_check()
    _append_entries(idx, 5)
    first_entry = idx.entry(0)
    idx.sanity_check()
    idx.close()

    class MockTimeIndex(TimeIndex):
        def __init__(self, file: Path, base_offset: int, max_entries: int) -> None:
            super().__init__(file, base_offset, max_entries)
            self.should_corrupt_offset = False
            self.should_corrupt_timestamp = False
            self.should_corrupt_length = False

        def last_entry(self) -> TimestampOffset:
            super_last_entry = super().last_entry()
            offset = self.base_offset() - 1 if self.should_corrupt_offset else super_last_entry.offset
            timestamp = first_entry.timestamp - 1 if self.should_corrupt_timestamp else super_last_entry.timestamp
            return TimestampOffset(timestamp, offset)

        def length(self) -> int:
            super_length = super().length()
            return super_length - 1 if self.should_corrupt_length else super_length

        def set_should_corrupt_offset(self, should_corrupt_offset: bool) -> None:
            self.should_corrupt_offset = should_corrupt_offset

        def set_should_corrupt_timestamp(self, should_corrupt_timestamp: bool) -> None:
            self.should_corrupt_timestamp = should_corrupt_timestamp

        def set_should_corrupt_length(self, should_corrupt_length: bool) -> None:
            self.should_corrupt_length = should_corrupt_length

    mock_idx = MockTimeIndex(idx.file(), BASE_OFFSET, MAX_ENTRIES * 12)
    try:
        mock_idx.set_should_corrupt_offset(True)
        with pytest.raises(CorruptIndexException):
            mock_idx.sanity_check()
        mock_idx.set_should_corrupt_offset(False)

        mock_idx.set_should_corrupt_timestamp(True)
        with pytest.raises(CorruptIndexException):
            mock_idx.sanity_check()
        mock_idx.set_should_corrupt_timestamp(False)

        mock_idx.set_should_corrupt_length(True)
        with pytest.raises(CorruptIndexException):
            mock_idx.sanity_check()
        mock_idx.set_should_corrupt_length(False)

        mock_idx.sanity_check()
    finally:
        mock_idx.close()


def test_is_full(idx: TimeIndex) -> None:
    assert not idx.is_full()
    _append_entries(idx, MAX_ENTRIES - 1)
    assert idx.is_full()


def test_last_entry(idx: TimeIndex) -> None:
    assert idx.last_entry() == TimestampOffset(NO_TIMESTAMP, BASE_OFFSET)
    idx.maybe_append(1, 1 + BASE_OFFSET)
    assert idx.last_entry() == TimestampOffset(1, BASE_OFFSET + 1)


def test_resize(idx: TimeIndex) -> None:
    result = idx.resize(MAX_ENTRIES * idx.entry_size())
    assert not result

    result = idx.resize(MAX_ENTRIES // 2 * idx.entry_size())
    assert result

    result = idx.resize(MAX_ENTRIES * 2 * idx.entry_size())
    assert result


def test_entry_size(idx: TimeIndex) -> None:
    assert idx.entry_size() == 12


def test_parse_entry(idx: TimeIndex) -> None:
    idx.maybe_append(1, 1 + BASE_OFFSET)
    assert idx.parse_entry(idx.mmap(), 0) == TimestampOffset(1, BASE_OFFSET + 1)
