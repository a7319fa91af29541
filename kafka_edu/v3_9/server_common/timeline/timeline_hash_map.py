"""Port of server-common/src/main/java/org/apache/kafka/timeline/TimelineHashMap.java (Kafka 3.9)."""

from __future__ import annotations

from collections.abc import Hashable, Iterator, MutableMapping
from typing import Generic, TypeVar

from kafka_edu.v3_9.server_common.timeline.snapshot_registry import LATEST_EPOCH, SnapshotRegistry
from kafka_edu.v3_9.server_common.timeline.snapshottable_hash_table import ElementWithStartEpoch, SnapshottableHashTable

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class TimelineHashMapEntry(ElementWithStartEpoch, Generic[K, V]):
    __slots__ = ("_key", "value")

    def __init__(self, key: K, value: V) -> None:
        super().__init__()
        self._key = key
        self.value = value

    def key(self) -> K:
        return self._key

    def __repr__(self) -> str:
        return f"{self._key!r}={self.value!r}@{self.start_epoch}"


class TimelineHashMap(SnapshottableHashTable[TimelineHashMapEntry], MutableMapping, Generic[K, V]):
    """A map whose state at every snapshot of its registry stays readable (the `*_at(epoch)` methods).

    As a Python mapping it shows the current state; the mutations only ever change the current state.
    """

    def __init__(self, snapshot_registry: SnapshotRegistry, expected_size: int = 0) -> None:
        super().__init__(snapshot_registry, expected_size)

    # -- reads, at an epoch ---------------------------------------------------------------------------------------

    def size(self, epoch: int = LATEST_EPOCH) -> int:
        return self.snapshottable_size(epoch)

    def is_empty(self, epoch: int = LATEST_EPOCH) -> bool:
        return self.snapshottable_size(epoch) == 0

    def contains_key(self, key: K, epoch: int = LATEST_EPOCH) -> bool:
        return self.snapshottable_get(key, epoch) is not None

    def get(self, key: K, epoch_or_default: int | None = None) -> V | None:  # type: ignore[override]
        """`get(key)` now, or `get(key, epoch)` at a snapshot, as Java's two overloads."""
        epoch = LATEST_EPOCH if epoch_or_default is None else epoch_or_default
        entry = self.snapshottable_get(key, epoch)
        return None if entry is None else entry.value

    def key_set(self, epoch: int = LATEST_EPOCH) -> list[K]:
        return [e.key() for e in self.snapshottable_iterator(epoch)]

    def values_at(self, epoch: int = LATEST_EPOCH) -> list[V]:
        return [e.value for e in self.snapshottable_iterator(epoch)]

    def entry_set(self, epoch: int = LATEST_EPOCH) -> list[tuple[K, V]]:
        return [(e.key(), e.value) for e in self.snapshottable_iterator(epoch)]

    # -- writes ---------------------------------------------------------------------------------------------------

    def put(self, key: K, value: V) -> V | None:
        if key is None or value is None:
            raise ValueError("TimelineHashMap takes no null keys or values")
        prev = self.snapshottable_add_or_replace(TimelineHashMapEntry(key, value))
        return None if prev is None else prev.value

    def put_if_absent(self, key: K, value: V) -> V | None:
        current = self.get(key)
        if current is None:
            self.put(key, value)
        return current

    def remove(self, key: K) -> V | None:
        prev = self.snapshottable_remove(key)
        return None if prev is None else prev.value

    # -- MutableMapping over the current state --------------------------------------------------------------------

    def __getitem__(self, key: K) -> V:
        entry = self.snapshottable_get(key, LATEST_EPOCH)
        if entry is None:
            raise KeyError(key)
        return entry.value

    def __setitem__(self, key: K, value: V) -> None:
        self.put(key, value)

    def __delitem__(self, key: K) -> None:
        if self.snapshottable_remove(key) is None:
            raise KeyError(key)

    def __iter__(self) -> Iterator[K]:
        return iter(self.key_set())

    def __len__(self) -> int:
        return self.base_size()

    def __contains__(self, key: object) -> bool:
        return self.base_get(key) is not None  # type: ignore[arg-type]

    def clear(self) -> None:
        self.reset()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TimelineHashMap):
            return dict(self.entry_set()) == dict(other.entry_set())
        if isinstance(other, dict):
            return dict(self.entry_set()) == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]
