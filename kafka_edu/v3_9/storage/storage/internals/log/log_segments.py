"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/LogSegments.java (Kafka 3.9): a log's segments
keyed and ordered by base offset, with the floor/lower/higher look-ups the log uses to find a segment for an offset."""

from __future__ import annotations

import bisect
import os
import threading
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException

if TYPE_CHECKING:
    from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
    from kafka_edu.v3_9.storage.storage.internals.log.log_segment import LogSegment

# Map.Entry<Long, LogSegment>: (base offset, segment)
Entry = tuple[int, "LogSegment"]


class LogSegments:
    """Kafka keeps a ConcurrentSkipListMap; here a sorted key list plus a dict under one lock. Views (values, higher
    segments...) are snapshot lists rather than Java's live views; Optional results are None when empty."""

    def __init__(self, topic_partition: TopicPartition) -> None:
        self._topic_partition = topic_partition
        # the segments of the log, keyed by base offset
        self._segments: dict[int, LogSegment] = {}
        self._keys: list[int] = []  # sorted base offsets
        self._lock = threading.RLock()

    def is_empty(self) -> bool:
        return not self._segments

    def non_empty(self) -> bool:
        return not self.is_empty()

    def add(self, segment: LogSegment) -> LogSegment | None:
        """Insert (or replace the segment at the same base offset); returns the one replaced."""
        with self._lock:
            base_offset = segment.base_offset()
            previous = self._segments.get(base_offset)
            if previous is None:
                bisect.insort(self._keys, base_offset)
            self._segments[base_offset] = segment
            return previous

    def remove(self, offset: int) -> None:
        with self._lock:
            if self._segments.pop(offset, None) is not None:
                del self._keys[bisect.bisect_left(self._keys, offset)]

    def clear(self) -> None:
        with self._lock:
            self._segments.clear()
            self._keys.clear()

    def close(self) -> None:
        for s in self.values():
            s.close()

    def close_handlers(self) -> None:
        for s in self.values():
            s.close_handlers()

    def update_parent_dir(self, dir: str | os.PathLike[str]) -> None:
        for s in self.values():
            s.update_parent_dir(Path(dir))

    def number_of_segments(self) -> int:
        return len(self._segments)

    def base_offsets(self) -> list[int]:
        return [segment.base_offset() for segment in self.values()]

    def contains(self, offset: int) -> bool:
        return offset in self._segments

    def get(self, offset: int) -> LogSegment | None:
        return self._segments.get(offset)

    def values(self, from_offset: int | None = None, to: int | None = None) -> list[LogSegment]:
        """values(): every segment in offset order; values(from, to): the segments that may hold offsets in
        [from, to): from the one holding `from` up to, not including, the one based at `to`."""
        with self._lock:
            if from_offset is None or to is None:
                return [self._segments[k] for k in self._keys]
            if from_offset == to:
                # a range that does not start at a segment boundary can still be empty
                return []
            if to < from_offset:
                raise IllegalArgumentException(
                    f"Invalid log segment range: requested segments in {self._topic_partition} from offset "
                    f"{from_offset} which is greater than limit offset {to}")
            floor = self._floor_key(from_offset)
            start = bisect.bisect_left(self._keys, floor) if floor is not None else 0
            end = bisect.bisect_left(self._keys, to)
            return [self._segments[k] for k in self._keys[start:end]]

    def non_active_log_segments_from(self, from_offset: int) -> list[LogSegment]:
        active_segment = self.active_segment()
        if from_offset > active_segment.base_offset():
            return []
        return self.values(from_offset, active_segment.base_offset())

    def _floor_entry(self, offset: int) -> Entry | None:
        return self._entry(self._floor_key(offset))

    def floor_segment(self, offset: int) -> LogSegment | None:
        return _value(self._floor_entry(offset))

    def _lower_entry(self, offset: int) -> Entry | None:
        with self._lock:
            i = bisect.bisect_left(self._keys, offset)
            return self._entry(self._keys[i - 1] if i > 0 else None)

    def lower_segment(self, offset: int) -> LogSegment | None:
        return _value(self._lower_entry(offset))

    def higher_entry(self, offset: int) -> Entry | None:
        return self._entry(self._higher_key(offset))

    def higher_segment(self, offset: int) -> LogSegment | None:
        return _value(self.higher_entry(offset))

    def first_entry(self) -> Entry | None:
        with self._lock:
            return self._entry(self._keys[0] if self._keys else None)

    def first_segment(self) -> LogSegment | None:
        return _value(self.first_entry())

    def first_segment_base_offset(self) -> int | None:
        segment = self.first_segment()
        return segment.base_offset() if segment is not None else None

    def last_entry(self) -> Entry | None:
        with self._lock:
            return self._entry(self._keys[-1] if self._keys else None)

    def last_segment(self) -> LogSegment | None:
        return _value(self.last_entry())

    def higher_segments(self, base_offset: int) -> list[LogSegment]:
        """The segments based strictly above `base_offset`, in offset order."""
        with self._lock:
            start = bisect.bisect_right(self._keys, base_offset)
            return [self._segments[k] for k in self._keys[start:]]

    def active_segment(self) -> LogSegment:
        segment = self.last_segment()
        if segment is None:
            raise LookupError("No value present")  # Optional.get() on an empty log
        return segment

    def size_in_bytes(self) -> int:
        return LogSegments.size_in_bytes_of(self.values())

    def filter(self, predicate: Callable[[LogSegment], bool]) -> list[LogSegment]:
        return [segment for segment in self.values() if predicate(segment)]

    @staticmethod
    def size_in_bytes_of(segments: Collection[LogSegment]) -> int:
        """LogSegments.sizeInBytes(Collection): a sum as a long, so that many 2 GiB segments do not overflow."""
        return sum(segment.size() for segment in segments)

    def _floor_key(self, offset: int) -> int | None:
        with self._lock:
            i = bisect.bisect_right(self._keys, offset)
            return self._keys[i - 1] if i > 0 else None

    def _higher_key(self, offset: int) -> int | None:
        with self._lock:
            i = bisect.bisect_right(self._keys, offset)
            return self._keys[i] if i < len(self._keys) else None

    def _entry(self, key: int | None) -> Entry | None:
        if key is None:
            return None
        segment = self._segments.get(key)
        return (key, segment) if segment is not None else None


def _value(entry: Entry | None) -> LogSegment | None:
    return entry[1] if entry is not None else None
