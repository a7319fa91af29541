"""Port of raft/src/main/java/org/apache/kafka/snapshot/FileRawSnapshotWriter.java (Kafka 3.9)."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.clients.common.record.file_records import MemoryRecords
from kafka_edu.v3_9.clients.common.utils.utils import atomic_move_with_fallback
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.snapshot.raw_snapshot_writer import RawSnapshotWriter
from kafka_edu.v3_9.raft.snapshot.snapshots import Snapshots


class FileRawSnapshotWriter(RawSnapshotWriter):
    """Appends to a `.checkpoint.part` file; `freeze` fsyncs it, makes it read-only and renames it into place."""

    def __init__(self, temp_snapshot_path: Path, fd: int, snapshot_id: OffsetAndEpoch) -> None:
        self.temp_snapshot_path = temp_snapshot_path
        self._fd: int | None = fd
        self._snapshot_id = snapshot_id
        self._frozen_size = -1

    def snapshot_id(self) -> OffsetAndEpoch:
        return self._snapshot_id

    def size_in_bytes(self) -> int:
        if self._frozen_size >= 0:
            return self._frozen_size
        try:
            return os.fstat(self._channel()).st_size
        except OSError as e:
            raise OSError(e.errno, f"Error calculating snapshot size. temp path = {self.temp_snapshot_path}, "
                                   f"snapshotId = {self._snapshot_id}.") from e

    def append(self, records: MemoryRecords | bytes | bytearray | memoryview) -> None:
        self.check_if_frozen("Append")
        view = memoryview(records.buffer if isinstance(records, MemoryRecords) else records)
        try:
            while view:  # the file is opened O_APPEND: each write lands at its end
                view = view[os.write(self._channel(), view):]
        except OSError as e:
            raise OSError(e.errno, f"Error writing file snapshot, temp path = {self.temp_snapshot_path}, "
                                   f"snapshotId = {self._snapshot_id}.") from e

    def is_frozen(self) -> bool:
        return self._frozen_size >= 0

    def freeze(self) -> None:
        self.check_if_frozen("Freeze")
        try:
            fd = self._channel()
            self._frozen_size = os.fstat(fd).st_size
            # The bytes must be on disk before the rename makes the snapshot visible.
            os.fsync(fd)
            os.close(fd)
            self._fd = None
            try:
                mode = os.stat(self.temp_snapshot_path).st_mode
                os.chmod(self.temp_snapshot_path, mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
            except OSError as e:
                raise IllegalStateException(f"Unable to set file ({self.temp_snapshot_path}) as read-only") from e
            destination = Snapshots.move_rename(self.temp_snapshot_path, self._snapshot_id)
            atomic_move_with_fallback(self.temp_snapshot_path, destination)
        except OSError as e:
            raise OSError(e.errno, f"Error freezing file snapshot, temp path = {self.temp_snapshot_path}, "
                                   f"snapshotId = {self._snapshot_id}.") from e

    def close(self) -> None:
        try:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
            # Nothing left to delete when freeze renamed it.
            self.temp_snapshot_path.unlink(missing_ok=True)
        except OSError as e:
            raise OSError(e.errno, f"Error closing snapshot writer, temp path = {self.temp_snapshot_path}, "
                                   f"snapshotId {self._snapshot_id}.") from e

    def __str__(self) -> str:
        return (f"FileRawSnapshotWriter(path={self.temp_snapshot_path}, snapshotId={self._snapshot_id}, "
                f"frozen={self.is_frozen()})")

    def check_if_frozen(self, operation: str) -> None:
        if self.is_frozen():
            raise IllegalStateException(f"{operation} is not supported. Snapshot is already frozen: id = "
                                        f"{self._snapshot_id}; temp path = {self.temp_snapshot_path}")

    def _channel(self) -> int:
        if self._fd is None:
            raise OSError(errno.EBADF, f"Snapshot writer for {self.temp_snapshot_path} is closed")
        return self._fd

    @staticmethod
    def create(log_dir: Path, snapshot_id: OffsetAndEpoch) -> FileRawSnapshotWriter:
        """A writer for snapshot `snapshot_id` of the partition whose directory is `log_dir`."""
        path = Snapshots.create_temp_file(Path(log_dir), snapshot_id)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        except OSError as e:
            raise OSError(e.errno, f"Error creating snapshot writer. path = {path}, "
                                            f"snapshotId {snapshot_id}.") from e
        return FileRawSnapshotWriter(path, fd, snapshot_id)
