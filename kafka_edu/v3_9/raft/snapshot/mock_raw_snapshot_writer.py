"""Port of raft/src/test/java/org/apache/kafka/snapshot/MockRawSnapshotWriter.java (Kafka 3.9): a snapshot written
to memory; `freeze` hands its bytes to the frozen handler (MockLog stores them as a MockRawSnapshotReader)."""

from __future__ import annotations

from collections.abc import Callable

from kafka_edu.v1_0_2.clients.common.record.file_records import MemoryRecords
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.snapshot.raw_snapshot_writer import RawSnapshotWriter


class MockRawSnapshotWriter(RawSnapshotWriter):
    def __init__(self, snapshot_id: OffsetAndEpoch, frozen_handler: Callable[[bytes], None]) -> None:
        self._snapshot_id = snapshot_id
        self._frozen_handler = frozen_handler
        self._data = bytearray()
        self._frozen = False
        self._closed = False

    def snapshot_id(self) -> OffsetAndEpoch:
        return self._snapshot_id

    def size_in_bytes(self) -> int:
        self._ensure_open()
        return len(self._data)

    def append(self, records: MemoryRecords | bytes | bytearray | memoryview) -> None:
        self._ensure_not_frozen_or_closed()
        self._data += records.buffer if isinstance(records, MemoryRecords) else bytes(records)

    def is_frozen(self) -> bool:
        return self._frozen

    def freeze(self) -> None:
        self._ensure_not_frozen_or_closed()
        self._frozen = True
        self._frozen_handler(bytes(self._data))

    def close(self) -> None:
        self._ensure_open()
        self._closed = True

    def __repr__(self) -> str:
        return f"MockRawSnapshotWriter(snapshotId={self._snapshot_id}, size={len(self._data)})"

    def _ensure_not_frozen_or_closed(self) -> None:
        if self._frozen:
            raise RuntimeError(f"Snapshot is already frozen {self._snapshot_id}")
        self._ensure_open()

    def _ensure_open(self) -> None:
        if self._closed:
            raise RuntimeError(f"Snapshot is already closed {self._snapshot_id}")
