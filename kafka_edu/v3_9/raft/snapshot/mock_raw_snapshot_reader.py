"""Port of raft/src/test/java/org/apache/kafka/snapshot/MockRawSnapshotReader.java (Kafka 3.9): a frozen snapshot
held in memory."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.record.file_records import MemoryRecords
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.snapshot.raw_snapshot_reader import RawSnapshotReader


class MockRawSnapshotReader(RawSnapshotReader):
    def __init__(self, snapshot_id: OffsetAndEpoch, data: bytes) -> None:
        self._snapshot_id = snapshot_id
        self._data = MemoryRecords(data)

    def snapshot_id(self) -> OffsetAndEpoch:
        return self._snapshot_id

    def size_in_bytes(self) -> int:
        return self._data.size_in_bytes()

    def slice(self, position: int, size: int) -> bytes:
        return bytes(self._data.buffer[position:min(len(self._data.buffer), position + size)])

    def records(self) -> MemoryRecords:  # type: ignore[override]
        return self._data

    def close(self) -> None:
        pass

    def __repr__(self) -> str:
        return f"MockRawSnapshotReader(snapshotId={self._snapshot_id}, size={self._data.size_in_bytes()})"
