"""Port of storage/src/test/java/org/apache/kafka/storage/internals/log/OffsetIndexTest.java (Kafka 3.9).

TestUtils.tempFile becomes a file under pytest's tmp_path. Java's NullPointerException on an unmapped index (the
mapping is null) is Python's AttributeError on None, which forceUnmapTest expects instead.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, InvalidOffsetException
from kafka_edu.v3_9.storage.storage.internals.log.offset_index import OffsetIndex
from kafka_edu.v3_9.storage.storage.internals.log.offset_position import OffsetPosition
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "storage/src/test/java/org/apache/kafka/storage/internals/log/OffsetIndexTest.java",
    cases=[
        "randomLookupTest",
        "lookupExtremeCases",
        "testEntry",
        "testEntryOverflow",
        "appendTooMany",
        "appendOutOfOrder",
        "testFetchUpperBoundOffset",
        "testReopen",
        "truncate",
        "forceUnmapTest",
        "testSanityLastOffsetEqualToBaseOffset",
    ],
)

BASE_OFFSET = 45


@pytest.fixture
def non_existent_temp_file(tmp_path: Path) -> Callable[[], Path]:
    """TestUtils.tempFile, deleted: a path with no file yet."""
    counter = itertools.count()
    return lambda: tmp_path / f"kafka-{next(counter)}.tmp"


@pytest.fixture
def index(non_existent_temp_file: Callable[[], Path]) -> Iterator[OffsetIndex]:
    idx = OffsetIndex(non_existent_temp_file(), BASE_OFFSET, 30 * 8)
    yield idx
    idx.close()
    idx.file().unlink(missing_ok=True)


def _monotonic_seq(base: int, length: int) -> list[int]:
    rnd = random.Random()
    seq = []
    last = base
    for _ in range(length):
        last += rnd.randrange(15) + 1
        seq.append(last)
    return seq


def _offsets_to_positions(base: int, length: int) -> dict[int, int]:
    positions = _monotonic_seq(0, length)
    return dict(zip(_monotonic_seq(base, length), positions, strict=True))


def _assert_write_fails(idx: OffsetIndex, offset: int) -> None:
    with pytest.raises(Exception) as e:  # noqa: B017 - the exact class is checked below, as Kafka does
        idx.append(offset, 1)
    assert e.type is IllegalArgumentException, "Got an unexpected exception."


def test_random_lookup_test(index: OffsetIndex) -> None:
    assert index.lookup(92) == OffsetPosition(index.base_offset(), 0), \
        "Not present value should return physical offset 0."
    base = index.base_offset() + 1
    size = index.max_entries()
    offsets_to_positions = _offsets_to_positions(base, size)
    for offset, position in offsets_to_positions.items():
        index.append(offset, position)
    for offset, position in offsets_to_positions.items():
        assert index.lookup(offset) == OffsetPosition(offset, position), \
            "Should find the correct position for the offset."

    # a value not in the index finds the largest entry <= it
    val_map = sorted(offsets_to_positions.items())
    offsets = list(range(index.base_offset(), val_map[-1][0]))
    random.shuffle(offsets)

    for offset in offsets[:30]:
        if offset < val_map[0][0]:
            right_answer = OffsetPosition(index.base_offset(), 0)
        else:
            floor = max(k for k, _ in val_map if k <= offset)
            right_answer = OffsetPosition(floor, offsets_to_positions[floor])
        assert index.lookup(offset) == right_answer, "The index should give the same answer as the sorted map"


def test_lookup_extreme_cases(index: OffsetIndex) -> None:
    assert index.lookup(index.base_offset()) == OffsetPosition(index.base_offset(), 0), "Lookup on empty file"
    for i in range(index.max_entries()):
        index.append(index.base_offset() + i + 1, i)
    assert index.lookup(index.base_offset()) == OffsetPosition(index.base_offset(), 0)
    assert index.lookup(index.base_offset() + index.max_entries()) == \
        OffsetPosition(index.base_offset() + index.max_entries(), index.max_entries() - 1)


def test_entry(index: OffsetIndex) -> None:
    for i in range(index.max_entries()):
        index.append(index.base_offset() + i, i)
    for i in range(index.max_entries()):
        assert index.entry(i) == OffsetPosition(index.base_offset() + i, i)


def test_entry_overflow(index: OffsetIndex) -> None:
    with pytest.raises(IllegalArgumentException):
        index.entry(0)


def test_append_too_many(index: OffsetIndex) -> None:
    for i in range(index.max_entries()):
        offset = index.base_offset() + i + 1
        index.append(offset, i)
    _assert_write_fails(index, index.max_entries() + 1)


def test_append_out_of_order(index: OffsetIndex) -> None:
    index.append(51, 0)
    with pytest.raises(InvalidOffsetException):
        index.append(50, 1)


def test_fetch_upper_bound_offset(index: OffsetIndex) -> None:
    first = OffsetPosition(BASE_OFFSET, 0)
    second = OffsetPosition(BASE_OFFSET + 1, 10)
    third = OffsetPosition(BASE_OFFSET + 2, 23)
    fourth = OffsetPosition(BASE_OFFSET + 3, 37)

    assert index.fetch_upper_bound_offset(first, 5) is None

    for offset_position in (first, second, third, fourth):
        index.append(offset_position.offset, offset_position.position)

    assert index.fetch_upper_bound_offset(first, 5) == second
    assert index.fetch_upper_bound_offset(first, 10) == second
    assert index.fetch_upper_bound_offset(first, 23) == third
    assert index.fetch_upper_bound_offset(first, 22) == third
    assert index.fetch_upper_bound_offset(second, 24) == fourth
    assert index.fetch_upper_bound_offset(fourth, 1) is None
    assert index.fetch_upper_bound_offset(first, 200) is None
    assert index.fetch_upper_bound_offset(second, 200) is None


def test_reopen(index: OffsetIndex) -> None:
    first = OffsetPosition(51, 0)
    sec = OffsetPosition(52, 1)
    index.append(first.offset, first.position)
    index.append(sec.offset, sec.position)
    index.close()
    idx_ro = OffsetIndex(index.file(), index.base_offset())
    assert idx_ro.lookup(first.offset) == first
    assert idx_ro.lookup(sec.offset) == sec
    assert idx_ro.last_offset() == sec.offset
    assert idx_ro.entries() == 2
    _assert_write_fails(idx_ro, 53)


def test_truncate(non_existent_temp_file: Callable[[], Path]) -> None:
    idx = OffsetIndex(non_existent_temp_file(), 0, 10 * 8)
    try:
        idx.truncate()
        for i in range(1, 10):
            idx.append(i, i)

        # the last offset after each truncation, and the index still takes appends
        idx.truncate_to(12)
        assert idx.lookup(10) == OffsetPosition(9, 9), "Index should be unchanged by truncate past the end"
        assert idx.last_offset() == 9, "9 should be the last entry in the index"

        idx.append(10, 10)
        idx.truncate_to(10)
        assert idx.lookup(10) == OffsetPosition(9, 9), "Index should be unchanged by truncate at the end"
        assert idx.last_offset() == 9, "9 should be the last entry in the index"
        idx.append(10, 10)

        idx.truncate_to(9)
        assert idx.lookup(10) == OffsetPosition(8, 8), "Index should truncate off last entry"
        assert idx.last_offset() == 8, "8 should be the last entry in the index"
        idx.append(9, 9)

        idx.truncate_to(5)
        assert idx.lookup(10) == OffsetPosition(4, 4), "4 should be the last entry in the index"
        assert idx.last_offset() == 4, "4 should be the last entry in the index"
        idx.append(5, 5)

        idx.truncate()
        assert idx.entries() == 0, "Full truncation should leave no entries"
    finally:
        idx.close()


def test_force_unmap_test(non_existent_temp_file: Callable[[], Path]) -> None:
    idx = OffsetIndex(non_existent_temp_file(), 0, 10 * 8)
    idx.force_unmap()
    # the mapping is gone: a lookup, and the close that trims the file, hit None
    with pytest.raises(AttributeError):
        idx.lookup(1)
    with pytest.raises(AttributeError):
        idx.close()


def test_sanity_last_offset_equal_to_base_offset(non_existent_temp_file: Callable[[], Path]) -> None:
    # the last offset appended equals the base offset: still sane
    base_offset = 20
    idx = OffsetIndex(non_existent_temp_file(), base_offset, 10 * 8)
    try:
        idx.append(base_offset, 0)
        idx.sanity_check()
    finally:
        idx.close()
