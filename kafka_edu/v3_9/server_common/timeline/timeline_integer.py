"""Port of server-common/src/main/java/org/apache/kafka/timeline/TimelineInteger.java (Kafka 3.9)."""

from __future__ import annotations

from kafka_edu.v3_9.server_common.timeline.revertable import Delta, Revertable
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import LATEST_EPOCH, SnapshotRegistry


class IntegerContainer(Delta):
    def __init__(self, value: int = 0) -> None:
        self.value = value

    def merge_from(self, destination_epoch: int, delta: Delta) -> None:
        pass  # the older snapshot's value is the one to keep


class TimelineInteger(Revertable):
    """A number readable at any snapshot of its registry (a count the controller keeps: brokers, partitions...)."""

    INITIAL_VALUE = 0

    def __init__(self, snapshot_registry: SnapshotRegistry) -> None:
        self._snapshot_registry = snapshot_registry
        self._value = self.INITIAL_VALUE
        snapshot_registry.register(self)

    def get(self, epoch: int = LATEST_EPOCH) -> int:
        if epoch == LATEST_EPOCH:
            return self._value
        for snapshot in self._snapshot_registry.iterator(epoch):
            container = snapshot.get_delta(self)
            if container is not None:
                return container.value
        return self._value

    def set(self, value: int) -> None:
        iterator = self._snapshot_registry.reverse_iterator()
        if iterator.has_next():
            snapshot = iterator.next()
            if snapshot.get_delta(self) is None:
                snapshot.set_delta(self, IntegerContainer(self._value))
        self._value = value

    def increment(self) -> None:
        self.set(self.get() + 1)

    def decrement(self) -> None:
        self.set(self.get() - 1)

    def execute_revert(self, target_epoch: int, delta: Delta) -> None:
        self._value = delta.value  # type: ignore[attr-defined]

    def reset(self) -> None:
        self.set(self.INITIAL_VALUE)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TimelineInteger) and self._value == other._value

    def __hash__(self) -> int:
        return self._value

    def __repr__(self) -> str:
        return str(self._value)
