"""Port of raft/src/main/java/org/apache/kafka/snapshot/FileRawSnapshotReader.java (Kafka 3.9)."""

from __future__ import annotations

import os
from pathlib import Path

from kafka_edu.v1_0_2.clients.common.record.file_records import FileRecords
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.snapshot.raw_snapshot_reader import RawSnapshotReader
from kafka_edu.v3_9.raft.snapshot.snapshots import Snapshots

_FILE_END = 2**31 - 1


class FileRawSnapshotReader(RawSnapshotReader):
    """A frozen snapshot file opened read-only as FileRecords."""

    def __init__(self, file_records: FileRecords, snapshot_id: OffsetAndEpoch) -> None:
        self.file_records = file_records
        self._snapshot_id = snapshot_id

    def snapshot_id(self) -> OffsetAndEpoch:
        return self._snapshot_id

    def size_in_bytes(self) -> int:
        return self.file_records.size_in_bytes()

    def slice(self, position: int, size: int) -> bytes:
        return self.file_records.read(position, size).to_bytes()

    def records(self) -> FileRecords:
        return self.file_records

    def close(self) -> None:
        try:
            # Opened read-only: nothing to flush or trim, as FileRecords.close would.
            self.file_records.close_handlers()
        except OSError as e:
            raise OSError(e.errno, f"Unable to close snapshot reader {self._snapshot_id} at "
                                   f"{self.file_records}") from e

    def __enter__(self) -> FileRawSnapshotReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @staticmethod
    def open(log_dir: Path, snapshot_id: OffsetAndEpoch) -> FileRawSnapshotReader:
        """Open snapshot `snapshot_id` of the partition whose directory is `log_dir` (it must exist)."""
        file_path = Snapshots.snapshot_path(Path(log_dir), snapshot_id)
        try:
            fd = os.open(file_path, os.O_RDONLY)  # FileRecords.open(mutable = false, fileAlreadyExists = true)
        except OSError as e:
            raise OSError(e.errno, f"Unable to Opens a snapshot file {file_path.absolute()}") from e
        return FileRawSnapshotReader(FileRecords(file_path, fd, 0, _FILE_END, is_slice=False), snapshot_id)
