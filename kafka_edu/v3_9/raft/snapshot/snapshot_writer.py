"""Port of raft/src/main/java/org/apache/kafka/snapshot/SnapshotWriter.java (Kafka 3.9)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Generic, TypeVar

from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch

T = TypeVar("T")


class SnapshotWriter(ABC, Generic[T]):
    """Writes a state machine's records as a snapshot: header control batch, data batches, footer control batch.

    A snapshot with id (offset, epoch) holds the state after every record below `offset`; it becomes visible to
    readers only on `freeze`, and `close` without `freeze` discards it.
    """

    @abstractmethod
    def snapshot_id(self) -> OffsetAndEpoch: ...

    @abstractmethod
    def last_contained_log_offset(self) -> int:
        """The last log offset the snapshot covers: snapshot_id().offset - 1."""

    @abstractmethod
    def last_contained_log_epoch(self) -> int: ...

    @abstractmethod
    def is_frozen(self) -> bool: ...

    @abstractmethod
    def append(self, records: list[T]) -> None:
        """Add records; batches are written out as they fill up."""

    @abstractmethod
    def freeze(self) -> int:
        """Write the footer, make the snapshot durable and immutable; returns its size in bytes."""

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> SnapshotWriter[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
