"""Port of raft/src/main/java/org/apache/kafka/snapshot/NotifyingRawSnapshotWriter.java (Kafka 3.9).

A RawSnapshotWriter that calls back with the snapshot id once it froze: the raft client then forgets the voter sets
and kraft.versions below it (KRaftControlRecordStateMachine.truncate_old_entries).
"""

from __future__ import annotations

from collections.abc import Callable

from kafka_edu.v1_0_2.clients.common.record.file_records import MemoryRecords
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.snapshot.raw_snapshot_writer import RawSnapshotWriter


class NotifyingRawSnapshotWriter(RawSnapshotWriter):
    def __init__(self, writer: RawSnapshotWriter, callback: Callable[[OffsetAndEpoch], None]) -> None:
        self._writer = writer
        self._callback = callback

    def snapshot_id(self) -> OffsetAndEpoch:
        return self._writer.snapshot_id()

    def size_in_bytes(self) -> int:
        return self._writer.size_in_bytes()

    def append(self, records: MemoryRecords | bytes | bytearray | memoryview) -> None:
        self._writer.append(records)

    def is_frozen(self) -> bool:
        return self._writer.is_frozen()

    def freeze(self) -> None:
        self._writer.freeze()
        # only after a successful freeze
        self._callback(self._writer.snapshot_id())

    def close(self) -> None:
        self._writer.close()

    def __str__(self) -> str:
        return str(self._writer)
