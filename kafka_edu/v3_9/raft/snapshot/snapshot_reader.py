"""Port of raft/src/main/java/org/apache/kafka/snapshot/SnapshotReader.java (Kafka 3.9)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import Generic, TypeVar

from kafka_edu.v3_9.raft.raft.batch import Batch
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch

T = TypeVar("T")


class SnapshotReader(ABC, Iterator[Batch[T]], Generic[T]):
    """The batches of a frozen snapshot, decoded; what RaftClient.Listener.handle_load_snapshot gets (close it)."""

    @abstractmethod
    def snapshot_id(self) -> OffsetAndEpoch: ...

    @abstractmethod
    def last_contained_log_offset(self) -> int:
        """The last log offset the snapshot covers: snapshot_id().offset - 1."""

    @abstractmethod
    def last_contained_log_epoch(self) -> int: ...

    @abstractmethod
    def last_contained_log_timestamp(self) -> int:
        """The append time of the last record the snapshot covers, from its SnapshotHeaderRecord."""

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> SnapshotReader[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
