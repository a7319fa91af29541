"""Port of raft/src/main/java/org/apache/kafka/raft/internals/TreeMapLogHistory.java (Kafka 3.9).

Java keeps a TreeMap; since offsets only ever grow, two parallel sorted lists searched with bisect do the same job.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Generic, TypeVar

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.raft.raft.internals.log_history import LogHistory

T = TypeVar("T")


class TreeMapLogHistory(LogHistory[T], Generic[T]):
    def __init__(self) -> None:
        self._offsets: list[int] = []
        self._values: list[T] = []

    def add_at(self, offset: int, value: T) -> None:
        # -1 is allowed: the bootstrap checkpoint (0-0.checkpoint) holds values "before" offset 0
        if offset < -1:
            raise IllegalArgumentException(f"Next offset {offset} must be greater than or equal to -1")
        if self._offsets and offset <= self._offsets[-1]:
            raise IllegalArgumentException(
                f"Next offset {offset} must be greater than the last offset {self._offsets[-1]}")
        self._offsets.append(offset)
        self._values.append(value)

    def value_at_or_before(self, offset: int) -> T | None:
        index = bisect_right(self._offsets, offset)
        return self._values[index - 1] if index > 0 else None

    def last_entry(self) -> LogHistory.Entry[T] | None:
        if not self._offsets:
            return None
        return LogHistory.Entry(self._offsets[-1], self._values[-1])

    def truncate_new_entries(self, end_offset: int) -> None:
        index = bisect_left(self._offsets, end_offset)
        del self._offsets[index:]
        del self._values[index:]

    def truncate_old_entries(self, start_offset: int) -> None:
        # keep the newest entry at or before start_offset: it is still the value at start_offset
        lesser = bisect_right(self._offsets, start_offset)
        if lesser > 1:
            del self._offsets[:lesser - 1]
            del self._values[:lesser - 1]

    def clear(self) -> None:
        self._offsets.clear()
        self._values.clear()
