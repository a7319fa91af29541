"""Port of server-common/src/main/java/org/apache/kafka/timeline/Revertable.java and Delta.java (Kafka 3.9)."""

from __future__ import annotations

from abc import ABC, abstractmethod


class Delta(ABC):
    """What one timeline structure kept in one snapshot to be able to go back to it."""

    @abstractmethod
    def merge_from(self, destination_epoch: int, delta: Delta) -> None:
        """Fold a later snapshot's delta into this one, when the later snapshot is deleted."""


class Revertable(ABC):
    """A structure registered with a SnapshotRegistry."""

    @abstractmethod
    def execute_revert(self, target_epoch: int, delta: Delta) -> None:
        """Go back to the state this delta describes (the snapshot at target_epoch)."""

    @abstractmethod
    def reset(self) -> None:
        """Go back to the empty, initial state."""
