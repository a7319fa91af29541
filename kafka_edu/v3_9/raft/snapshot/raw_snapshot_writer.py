"""Port of raft/src/main/java/org/apache/kafka/snapshot/RawSnapshotWriter.java (Kafka 3.9)."""

from __future__ import annotations

from abc import ABC, abstractmethod

from kafka_edu.v1_0_2.clients.common.record.file_records import MemoryRecords
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch


class RawSnapshotWriter(ABC):
    """Bytes of a snapshot being written: whole batches from a local writer, or any chunk fetched from the leader."""

    @abstractmethod
    def snapshot_id(self) -> OffsetAndEpoch:
        """The end offset (exclusive) and epoch of the log the snapshot stands for."""

    @abstractmethod
    def size_in_bytes(self) -> int: ...

    @abstractmethod
    def append(self, records: MemoryRecords | bytes | bytearray | memoryview) -> None:
        """Add bytes at the end; bytes need not end on a batch boundary (Kafka's UnalignedMemoryRecords)."""

    @abstractmethod
    def is_frozen(self) -> bool: ...

    @abstractmethod
    def freeze(self) -> None:
        """Make the snapshot durable and immutable, and only then visible under its final name."""

    @abstractmethod
    def close(self) -> None:
        """Release the file; an unfrozen snapshot is thrown away."""
