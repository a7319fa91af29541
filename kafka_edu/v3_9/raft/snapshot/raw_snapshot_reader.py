"""Port of raft/src/main/java/org/apache/kafka/snapshot/RawSnapshotReader.java (Kafka 3.9)."""

from __future__ import annotations

from abc import ABC, abstractmethod

from kafka_edu.v1_0_2.clients.common.record.file_records import FileRecords
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch


class RawSnapshotReader(ABC):
    """A frozen snapshot's bytes: all of them as record batches, or a slice for a FetchSnapshot response."""

    @abstractmethod
    def snapshot_id(self) -> OffsetAndEpoch: ...

    @abstractmethod
    def size_in_bytes(self) -> int: ...

    @abstractmethod
    def records(self) -> FileRecords:
        """The snapshot as record batches."""

    @abstractmethod
    def slice(self, position: int, size: int) -> bytes:
        """Up to `size` bytes from `position`, cut anywhere (Kafka's UnalignedRecords)."""

    @abstractmethod
    def close(self) -> None: ...
