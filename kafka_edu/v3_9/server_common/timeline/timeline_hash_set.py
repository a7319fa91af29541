"""Port of server-common/src/main/java/org/apache/kafka/timeline/TimelineHashSet.java (Kafka 3.9)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, MutableSet
from typing import Generic, TypeVar

from kafka_edu.v3_9.server_common.timeline.snapshot_registry import LATEST_EPOCH, SnapshotRegistry
from kafka_edu.v3_9.server_common.timeline.snapshottable_hash_table import ElementWithStartEpoch, SnapshottableHashTable

T = TypeVar("T", bound=Hashable)


class TimelineHashSetEntry(ElementWithStartEpoch, Generic[T]):
    __slots__ = ("value",)

    def __init__(self, value: T) -> None:
        super().__init__()
        self.value = value

    def key(self) -> T:
        return self.value


class TimelineHashSet(SnapshottableHashTable[TimelineHashSetEntry], MutableSet, Generic[T]):
    """A set whose state at every snapshot of its registry stays readable; as a Python set, the current state."""

    def __init__(self, snapshot_registry: SnapshotRegistry, expected_size: int = 0) -> None:
        super().__init__(snapshot_registry, expected_size)

    def size(self, epoch: int = LATEST_EPOCH) -> int:
        return self.snapshottable_size(epoch)

    def is_empty(self, epoch: int = LATEST_EPOCH) -> bool:
        return self.snapshottable_size(epoch) == 0

    def contains(self, value: T, epoch: int = LATEST_EPOCH) -> bool:
        return self.snapshottable_get(value, epoch) is not None

    def iterator(self, epoch: int = LATEST_EPOCH) -> Iterator[T]:
        return (e.value for e in self.snapshottable_iterator(epoch))

    def add(self, value: T) -> bool:  # type: ignore[override]
        if value is None:
            raise ValueError("TimelineHashSet takes no null values")
        return self.snapshottable_add_unless_present(TimelineHashSetEntry(value))

    def add_all(self, values: Iterable[T]) -> bool:
        modified = False
        for value in values:
            modified |= self.add(value)
        return modified

    def remove(self, value: T) -> bool:  # type: ignore[override]
        return self.snapshottable_remove(value) is not None

    def discard(self, value: T) -> None:
        self.snapshottable_remove(value)

    def __contains__(self, value: object) -> bool:
        return self.base_get(value) is not None  # type: ignore[arg-type]

    def __iter__(self) -> Iterator[T]:
        return self.iterator()

    def __len__(self) -> int:
        return self.base_size()

    def clear(self) -> None:
        self.reset()
