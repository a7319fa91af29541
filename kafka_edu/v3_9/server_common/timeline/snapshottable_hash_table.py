"""Port of server-common/src/main/java/org/apache/kafka/timeline/SnapshottableHashTable.java (Kafka 3.9).

Kafka builds it on BaseHashTable, its own chained hash table, so that a historical iterator can walk the current
tier and the snapshot tiers slot by slot. Here a Python dict (key -> element) stands in for BaseHashTable and
iterators work on a copy; the tiering, which is the point, is Kafka's.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import Generic, TypeVar

from kafka_edu.v3_9.server_common.timeline.revertable import Delta, Revertable
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import LATEST_EPOCH, SnapshotRegistry


class ElementWithStartEpoch:
    """An element of the table: its key, and the epoch from which it exists (which snapshots it is in)."""

    __slots__ = ("start_epoch",)

    def __init__(self) -> None:
        self.start_epoch = 0

    def key(self) -> Hashable:
        raise NotImplementedError


T = TypeVar("T", bound=ElementWithStartEpoch)


class HashTier(Delta, Generic[T]):
    """One snapshot's view of one table: its size then, and the elements overwritten or removed since."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.delta_table: dict[Hashable, T] | None = None  # None until something older than the snapshot changes

    def merge_from(self, epoch: int, source: Delta) -> None:
        other: HashTier[T] = source  # type: ignore[assignment]
        if other.delta_table is None:
            return
        for key, element in other.delta_table.items():
            # Only the elements that existed at our own epoch belong in our tier.
            if element.start_epoch <= epoch:
                if self.delta_table is None:
                    self.delta_table = {}
                self.delta_table[key] = element


class SnapshottableHashTable(Revertable, Generic[T]):
    """A set of elements whose past states, one per snapshot, stay readable while the present changes.

    The present lives in the top tier (`_base`). When an element that a snapshot holds is overwritten or removed,
    the old element is copied into the newest snapshot's tier; reading snapshot E checks the top tier (an element
    whose start epoch is <= E) and then the tiers from E onwards.
    """

    def __init__(self, snapshot_registry: SnapshotRegistry, expected_size: int = 0) -> None:
        self._base: dict[Hashable, T] = {}
        self._snapshot_registry = snapshot_registry
        snapshot_registry.register(self)

    # -- BaseHashTable's part -------------------------------------------------------------------------------------

    def base_size(self) -> int:
        return len(self._base)

    def base_get(self, key: Hashable) -> T | None:
        return self._base.get(key)

    def base_add_or_replace(self, element: T) -> T | None:
        key = element.key()
        prev = self._base.get(key)
        self._base[key] = element
        return prev

    def base_remove(self, key: Hashable) -> T | None:
        return self._base.pop(key, None)

    # -- the snapshotted table ------------------------------------------------------------------------------------

    def snapshottable_size(self, epoch: int) -> int:
        if epoch == LATEST_EPOCH:
            return self.base_size()
        for snapshot in self._snapshot_registry.iterator(epoch):
            tier: HashTier[T] | None = snapshot.get_delta(self)
            if tier is not None:
                return tier.size
        return self.base_size()

    def snapshottable_get(self, key: Hashable, epoch: int) -> T | None:
        result = self.base_get(key)
        if result is not None and result.start_epoch <= epoch:
            return result
        if epoch == LATEST_EPOCH:
            return None
        for snapshot in self._snapshot_registry.iterator(epoch):
            tier: HashTier[T] | None = snapshot.get_delta(self)
            if tier is not None and tier.delta_table is not None:
                result = tier.delta_table.get(key)
                if result is not None:
                    # Found in a later tier but born after E: it did not exist at E.
                    return result if result.start_epoch <= epoch else None
        return None

    def snapshottable_add_unless_present(self, element: T) -> bool:
        if self.base_get(element.key()) is not None:
            return False
        element.start_epoch = self._snapshot_registry.latest_epoch() + 1
        prev_size = self.base_size()
        self.base_add_or_replace(element)
        self._update_tier_data(None, prev_size)
        return True

    def snapshottable_add_or_replace(self, element: T) -> T | None:
        element.start_epoch = self._snapshot_registry.latest_epoch() + 1
        prev_size = self.base_size()
        prev = self.base_add_or_replace(element)
        self._update_tier_data(prev, prev_size)
        return prev

    def snapshottable_remove(self, key: Hashable) -> T | None:
        prev = self.base_remove(key)
        if prev is None:
            return None
        self._update_tier_data(prev, self.base_size() + 1)
        return prev

    def _update_tier_data(self, prev: T | None, prev_size: int) -> None:
        """The newest snapshot records the size it saw and, if it held `prev`, keeps `prev`."""
        iterator = self._snapshot_registry.reverse_iterator()
        if not iterator.has_next():
            return
        snapshot = iterator.next()
        tier: HashTier[T] | None = snapshot.get_delta(self)
        if prev is None:
            if tier is None:
                snapshot.set_delta(self, HashTier(prev_size))
            return
        if prev.start_epoch <= snapshot.epoch():
            if tier is None:
                tier = HashTier(prev_size)
                snapshot.set_delta(self, tier)
            if tier.delta_table is None:
                tier.delta_table = {}
            tier.delta_table[prev.key()] = prev

    def snapshottable_iterator(self, epoch: int) -> Iterator[T]:
        """The elements at `epoch` (LATEST_EPOCH: now), safe to use while the table changes."""
        if epoch == LATEST_EPOCH:
            return iter(list(self._base.values()))
        snapshot = self._snapshot_registry.get_snapshot(epoch)
        found: dict[Hashable, T] = {k: e for k, e in self._base.items() if e.start_epoch <= epoch}
        for later in self._snapshot_registry.iterator(snapshot):
            tier: HashTier[T] | None = later.get_delta(self)
            if tier is not None and tier.delta_table is not None:
                for key, element in tier.delta_table.items():
                    if element.start_epoch <= epoch and key not in found:
                        found[key] = element
        return iter(list(found.values()))

    def execute_revert(self, target_epoch: int, delta: Delta) -> None:
        tier: HashTier[T] = delta  # type: ignore[assignment]
        for key, element in list(self._base.items()):
            if element.start_epoch > target_epoch:
                del self._base[key]
        if tier.delta_table is not None:
            for element in tier.delta_table.values():
                self.base_add_or_replace(element)

    def reset(self) -> None:
        for element in list(self._base.values()):
            self.snapshottable_remove(element.key())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self._base.values())!r})"


