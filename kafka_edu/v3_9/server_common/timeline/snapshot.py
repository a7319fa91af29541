"""Port of server-common/src/main/java/org/apache/kafka/timeline/Snapshot.java (Kafka 3.9)."""

from __future__ import annotations

from typing import Any

from kafka_edu.v3_9.server_common.timeline.revertable import Delta, Revertable


class Snapshot:
    """The deltas of every timeline structure changed since this epoch, in a doubly linked ring of snapshots."""

    def __init__(self, epoch: int) -> None:
        self._epoch = epoch
        # Keyed by the structure's identity, as Java's IdentityHashMap: structures compare by value.
        self._map: dict[int, tuple[Revertable, Delta]] | None = {}
        self._prev: Snapshot = self
        self._next: Snapshot = self

    def epoch(self) -> int:
        return self._epoch

    def get_delta(self, owner: Revertable) -> Any:
        entry = self._map.get(id(owner)) if self._map is not None else None
        return entry[1] if entry is not None else None

    def set_delta(self, owner: Revertable, delta: Delta) -> None:
        if self._map is None:
            raise RuntimeError("Snapshot cannot be accessed after erase is called.")
        self._map[id(owner)] = (owner, delta)

    def handle_revert(self) -> None:
        for owner, delta in list(self._map.values()):
            owner.execute_revert(self._epoch, delta)

    def merge_from(self, source: Snapshot) -> None:
        # A structure this snapshot has no delta for simply takes the source's; otherwise the two merge.
        for key, (owner, delta) in source._map.items():
            existing = self._map.get(key)
            if existing is None:
                self._map[key] = (owner, delta)
            else:
                existing[1].merge_from(self._epoch, delta)
        source.erase()  # it may now share deltas with us: nobody must use it again

    def prev(self) -> Snapshot:
        return self._prev

    def next(self) -> Snapshot:
        return self._next

    def append_next(self, new_next: Snapshot) -> None:
        new_next._prev = self
        new_next._next = self._next
        self._next._prev = new_next
        self._next = new_next

    def erase(self) -> None:
        self._map = None
        self._next._prev = self._prev
        self._prev._next = self._next
        self._prev = self
        self._next = self

    def __repr__(self) -> str:
        return f"Snapshot({self._epoch})"
