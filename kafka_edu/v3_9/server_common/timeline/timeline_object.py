"""Port of server-common/src/main/java/org/apache/kafka/timeline/TimelineObject.java (Kafka 3.9)."""

from __future__ import annotations

from typing import Generic, TypeVar

from kafka_edu.v3_9.server_common.timeline.revertable import Delta, Revertable
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import LATEST_EPOCH, SnapshotRegistry

T = TypeVar("T")


class ObjectContainer(Delta, Generic[T]):
    """The value a TimelineObject had when the snapshot was taken."""

    def __init__(self, initial_value: T) -> None:
        self.value = initial_value

    def merge_from(self, destination_epoch: int, delta: Delta) -> None:
        pass  # the older snapshot's value is the one to keep


class TimelineObject(Revertable, Generic[T]):
    """A mutable reference to an immutable value, readable at any snapshot of its registry."""

    def __init__(self, snapshot_registry: SnapshotRegistry, initial_value: T) -> None:
        if initial_value is None:
            raise ValueError("TimelineObject needs an initial value")
        self._snapshot_registry = snapshot_registry
        self._initial_value = initial_value
        self._value = initial_value
        snapshot_registry.register(self)

    def get(self, epoch: int = LATEST_EPOCH) -> T:
        if epoch == LATEST_EPOCH:
            return self._value
        for snapshot in self._snapshot_registry.iterator(epoch):
            container = snapshot.get_delta(self)
            if container is not None:
                return container.value
        return self._value

    def set(self, new_value: T) -> None:
        if new_value is None:
            raise ValueError("TimelineObject takes no null value")
        iterator = self._snapshot_registry.reverse_iterator()
        if iterator.has_next():
            # The newest snapshot keeps the value it saw, the first time the value changes after it.
            snapshot = iterator.next()
            if snapshot.get_delta(self) is None:
                snapshot.set_delta(self, ObjectContainer(self._value))
        self._value = new_value

    def execute_revert(self, target_epoch: int, delta: Delta) -> None:
        self._value = delta.value  # type: ignore[attr-defined]

    def reset(self) -> None:
        self.set(self._initial_value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TimelineObject) and self._value == other._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __repr__(self) -> str:
        return repr(self._value)
