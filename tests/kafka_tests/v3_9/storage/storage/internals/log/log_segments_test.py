"""Port of core/src/test/scala/unit/kafka/log/LogSegmentsTest.scala (Kafka 3.9).

Optional results are None when empty; an entry (Map.Entry) is a (base offset, segment) tuple. testSizeForLargeLogs
uses a stand-in segment whose size() is Int.MaxValue instead of a Mockito mock, and leaves out its
UnifiedLog.sizeInBytes assertion: UnifiedLog is not ported yet.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.storage.storage.internals.log.log_segment import LogSegment
from kafka_edu.v3_9.storage.storage.internals.log.log_segments import Entry, LogSegments
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.storage.storage.internals.log.log_test_utils import create_segment

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/log/LogSegmentsTest.scala",
    cases=[
        "testBasicOperations",
        "testSegmentAccess",
        "testClosestMatchOperations",
        "testHigherSegments",
        "testSizeForLargeLogs",
        "testUpdateDir",
    ],
)

TOPIC_PARTITION = TopicPartition("topic", 0)
INT_MAX = 2**31 - 1


@pytest.fixture
def log_dir(tmp_path: Path) -> Path:
    return tmp_path


@pytest.fixture
def segment_factory(log_dir: Path) -> Callable[[int], LogSegment]:
    return lambda offset: create_segment(offset, log_dir)


def _assert_entry(segment: LogSegment, tested: Entry | None) -> None:
    assert tested is not None
    assert tested[0] == segment.base_offset()
    assert tested[1] is segment


def test_basic_operations(segment_factory: Callable[[int], LogSegment]) -> None:
    segments = LogSegments(TOPIC_PARTITION)
    assert segments.is_empty()
    assert not segments.non_empty()

    offset1 = 40
    seg1 = segment_factory(offset1)
    offset2 = 80
    seg2 = segment_factory(offset2)
    seg3 = segment_factory(offset1)

    # add seg1
    segments.add(seg1)
    assert not segments.is_empty()
    assert segments.non_empty()
    assert segments.number_of_segments() == 1
    assert segments.contains(offset1)
    assert segments.get(offset1) is seg1

    # add seg2
    segments.add(seg2)
    assert not segments.is_empty()
    assert segments.non_empty()
    assert segments.number_of_segments() == 2
    assert segments.contains(offset2)
    assert segments.get(offset2) is seg2

    # replace seg1 with seg3
    segments.add(seg3)
    assert not segments.is_empty()
    assert segments.non_empty()
    assert segments.number_of_segments() == 2
    assert segments.contains(offset1)
    assert segments.get(offset1) is seg3

    # remove seg2
    segments.remove(offset2)
    assert not segments.is_empty()
    assert segments.non_empty()
    assert segments.number_of_segments() == 1
    assert not segments.contains(offset2)

    # clear all segments including seg3
    segments.clear()
    assert segments.is_empty()
    assert not segments.non_empty()
    assert segments.number_of_segments() == 0
    assert not segments.contains(offset1)

    # cleared: the segments are closed one by one
    seg1.close()
    seg2.close()
    seg3.close()


def test_segment_access(segment_factory: Callable[[int], LogSegment]) -> None:
    segments = LogSegments(TOPIC_PARTITION)

    offset1, offset2, offset3, offset4 = 1, 2, 3, 4
    seg1 = segment_factory(offset1)
    seg2 = segment_factory(offset2)
    seg3 = segment_factory(offset3)
    seg4 = segment_factory(offset4)

    # first entry, last entry
    for seg in (seg1, seg2, seg3, seg4):
        segments.add(seg)
        _assert_entry(seg1, segments.first_entry())
        assert segments.first_segment() is seg1
        assert segments.first_segment_base_offset() == 1
        _assert_entry(seg, segments.last_entry())
        assert segments.last_segment() is seg

    # base offsets
    assert list(segments.base_offsets()) == [offset1, offset2, offset3, offset4]

    # values
    assert segments.values() == [seg1, seg2, seg3, seg4]

    # values(from, to)
    with pytest.raises(IllegalArgumentException):
        segments.values(2, 1)
    assert segments.values(1, 1) == []
    assert segments.values(1, 2) == [seg1]
    assert segments.values(1, 3) == [seg1, seg2]
    assert segments.values(1, 4) == [seg1, seg2, seg3]
    assert segments.values(2, 4) == [seg2, seg3]
    assert segments.values(3, 4) == [seg3]
    assert segments.values(4, 4) == []
    assert segments.values(4, 5) == [seg4]

    # active segment
    assert segments.active_segment() is seg4

    # non-active segments from an offset
    assert segments.non_active_log_segments_from(2) == [seg2, seg3]
    assert segments.non_active_log_segments_from(4) == []

    segments.close()


def test_closest_match_operations(segment_factory: Callable[[int], LogSegment]) -> None:
    segments = LogSegments(TOPIC_PARTITION)

    seg1 = segment_factory(1)
    seg2 = segment_factory(3)
    seg3 = segment_factory(5)
    seg4 = segment_factory(7)

    for seg in (seg1, seg2, seg3, seg4):
        segments.add(seg)

    # floor segment
    assert segments.floor_segment(2) is seg1
    assert segments.floor_segment(3) is seg2

    # lower segment
    assert segments.lower_segment(3) is seg1
    assert segments.lower_segment(4) is seg2

    # higher segment, higher entry
    assert segments.higher_segment(4) is seg3
    _assert_entry(seg3, segments.higher_entry(4))
    assert segments.higher_segment(5) is seg4
    _assert_entry(seg4, segments.higher_entry(5))

    segments.close()


def test_higher_segments(segment_factory: Callable[[int], LogSegment]) -> None:
    segments = LogSegments(TOPIC_PARTITION)

    seg1 = segment_factory(1)
    seg2 = segment_factory(3)
    seg3 = segment_factory(5)
    seg4 = segment_factory(7)
    seg5 = segment_factory(9)

    for seg in (seg1, seg2, seg3, seg4, seg5):
        segments.add(seg)

    # higher_segments(0): every segment, in order
    iterator = iter(segments.higher_segments(0))
    for segment in (seg1, seg2, seg3, seg4, seg5):
        assert next(iterator, None) is segment
    assert next(iterator, None) is None

    # higher_segments(1): all but seg1
    iterator = iter(segments.higher_segments(1))
    for segment in (seg2, seg3, seg4, seg5):
        assert next(iterator, None) is segment
    assert next(iterator, None) is None

    # higher_segments(8): only seg5
    iterator = iter(segments.higher_segments(8))
    assert next(iterator, None) is seg5
    assert next(iterator, None) is None

    # higher_segments(9): none
    assert next(iter(segments.higher_segments(9)), None) is None

    segments.close()


class _LargeSegment:
    """Stands in for Mockito's mock(LogSegment) with size() returning Int.MaxValue."""

    def size(self) -> int:
        return INT_MAX

    def base_offset(self) -> int:
        return 0

    def close(self) -> None:
        pass


def test_size_for_large_logs() -> None:
    large_size = INT_MAX * 2
    log_segment = _LargeSegment()

    assert LogSegments.size_in_bytes_of([log_segment]) == INT_MAX  # type: ignore[list-item]
    assert LogSegments.size_in_bytes_of([log_segment, log_segment]) == large_size  # type: ignore[list-item]

    log_segments = LogSegments(TOPIC_PARTITION)
    log_segments.add(log_segment)  # type: ignore[arg-type]
    assert log_segments.size_in_bytes() == INT_MAX

    log_segment.close()


def test_update_dir(segment_factory: Callable[[int], LogSegment], tmp_path_factory: pytest.TempPathFactory) -> None:
    seg1 = segment_factory(1)
    segments = LogSegments(TOPIC_PARTITION)
    segments.add(seg1)

    new_dir = tmp_path_factory.mktemp("new-dir")
    segments.update_parent_dir(new_dir)
    assert seg1.log().file().parent == new_dir
    assert seg1.time_index_file().parent == new_dir
    assert seg1.offset_index_file().parent == new_dir
    assert seg1.txn_index().file().parent == new_dir

    seg1.close()
