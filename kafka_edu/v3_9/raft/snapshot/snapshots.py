"""Port of raft/src/main/java/org/apache/kafka/snapshot/Snapshots.java (Kafka 3.9)."""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kafka_edu.v3_9.clients.common.utils.utils import atomic_move_with_fallback
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.snapshot.snapshot_path import SnapshotPath

if TYPE_CHECKING:
    from kafka_edu.v3_9.raft.snapshot.raw_snapshot_reader import RawSnapshotReader

log = logging.getLogger(__name__)


class Snapshots:
    """Snapshot file names in a raft partition directory: `<20-digit end offset>-<10-digit epoch>.checkpoint`.

    A snapshot is written under a temporary `<id>-<random>.checkpoint.part` name and renamed when frozen, so a
    crash never leaves a half-written file under a snapshot's name; one to be deleted is renamed
    `.checkpoint.deleted` first, so that a restart does not load it while its removal is pending.
    """

    SUFFIX = ".checkpoint"
    PARTIAL_SUFFIX = f"{SUFFIX}.part"
    DELETE_SUFFIX = f"{SUFFIX}.deleted"

    OFFSET_WIDTH = 20
    EPOCH_WIDTH = 10

    BOOTSTRAP_SNAPSHOT_ID = OffsetAndEpoch(0, 0)

    @staticmethod
    def snapshot_dir(log_dir: Path) -> Path:
        return Path(log_dir)

    @staticmethod
    def filename_from_snapshot_id(snapshot_id: OffsetAndEpoch) -> str:
        return (f"{_min_digits(snapshot_id.offset, Snapshots.OFFSET_WIDTH)}-"
                f"{_min_digits(snapshot_id.epoch, Snapshots.EPOCH_WIDTH)}")

    @staticmethod
    def move_rename(source: Path, snapshot_id: OffsetAndEpoch) -> Path:
        return Path(source).with_name(Snapshots.filename_from_snapshot_id(snapshot_id) + Snapshots.SUFFIX)

    @staticmethod
    def delete_rename_path(source: Path, snapshot_id: OffsetAndEpoch) -> Path:
        return Path(source).with_name(Snapshots.filename_from_snapshot_id(snapshot_id) + Snapshots.DELETE_SUFFIX)

    @staticmethod
    def snapshot_path(log_dir: Path, snapshot_id: OffsetAndEpoch) -> Path:
        return Snapshots.snapshot_dir(log_dir) / (Snapshots.filename_from_snapshot_id(snapshot_id) + Snapshots.SUFFIX)

    @staticmethod
    def create_temp_file(log_dir: Path, snapshot_id: OffsetAndEpoch) -> Path:
        """A new, empty `<id>-<random>.checkpoint.part` file in the snapshot directory (created if missing)."""
        directory = Snapshots.snapshot_dir(log_dir)
        try:
            directory.mkdir(parents=True, exist_ok=True)
            prefix = f"{Snapshots.filename_from_snapshot_id(snapshot_id)}-"
            fd, name = tempfile.mkstemp(suffix=Snapshots.PARTIAL_SUFFIX, prefix=prefix, dir=directory)
            os.close(fd)
            return Path(name)
        except OSError as e:
            raise OSError(e.errno, f"Error creating temporary file, logDir = {directory.absolute()}, "
                                   f"snapshotId = {snapshot_id}.") from e

    @staticmethod
    def parse(path: Path) -> SnapshotPath | None:
        """What a file name says: a snapshot, a partial one, one marked for deletion, or (None) no snapshot file.

        Like Kafka, a name that ends in a snapshot suffix but does not start with the two numbers raises ValueError.
        """
        name = Path(path).name
        if not name:
            return None
        partial = deleted = False
        if name.endswith(Snapshots.PARTIAL_SUFFIX):
            partial = True
        elif name.endswith(Snapshots.DELETE_SUFFIX):
            deleted = True
        elif not name.endswith(Snapshots.SUFFIX):
            return None
        end_offset = int(name[:Snapshots.OFFSET_WIDTH])
        epoch = int(name[Snapshots.OFFSET_WIDTH + 1:Snapshots.OFFSET_WIDTH + Snapshots.EPOCH_WIDTH + 1])
        return SnapshotPath(Path(path), OffsetAndEpoch(end_offset, epoch), partial, deleted)

    @staticmethod
    def delete_if_exists(log_dir: Path, snapshot_id: OffsetAndEpoch) -> bool:
        """Remove the snapshot, under its own name or its `.deleted` one; False if neither was there."""
        immutable_path = Snapshots.snapshot_path(log_dir, snapshot_id)
        deleted_path = Snapshots.delete_rename_path(immutable_path, snapshot_id)
        try:
            deleted = _delete_if_exists(immutable_path) | _delete_if_exists(deleted_path)
            if deleted:
                log.info("Deleted snapshot files for snapshot %s.", snapshot_id)
            else:
                log.info("Did not delete snapshot files for snapshot %s since they did not exist.", snapshot_id)
            return deleted
        except OSError:
            log.exception("Error deleting snapshot files %s and %s", immutable_path, deleted_path)
            return False

    @staticmethod
    def mark_for_delete(log_dir: Path, snapshot_id: OffsetAndEpoch) -> Path:
        """Rename the snapshot to `.checkpoint.deleted`; returns the new path."""
        immutable_path = Snapshots.snapshot_path(log_dir, snapshot_id)
        deleted_path = Snapshots.delete_rename_path(immutable_path, snapshot_id)
        try:
            atomic_move_with_fallback(immutable_path, deleted_path, need_flush_parent_dir=False)
            return deleted_path
        except OSError as e:
            raise OSError(e.errno, f"Error renaming snapshot file from {immutable_path} to "
                                   f"{deleted_path}.") from e

    @staticmethod
    def last_contained_log_timestamp(reader: RawSnapshotReader) -> int:
        """The append time of the last record a snapshot covers, read from its header without decoding records."""
        from kafka_edu.v3_9.raft.snapshot.records_snapshot_reader import RecordsSnapshotReader

        with RecordsSnapshotReader.of(reader, _IdentitySerde(), do_crc_validation=True) as records_reader:
            return records_reader.last_contained_log_timestamp()


def _min_digits(value: int, width: int) -> str:
    # java.text.NumberFormat with a minimum of `width` integer digits and no grouping.
    return ("-" if value < 0 else "") + str(abs(value)).zfill(width)


def _delete_if_exists(path: Path) -> bool:
    try:
        path.unlink()
        return True
    except FileNotFoundError:
        return False


class _IdentitySerde:
    """raft/internals/IdentitySerde: a record value is its own bytes."""

    def record_size(self, data: bytes, serialization_cache: Any = None) -> int:
        return len(data)

    def write(self, data: bytes, serialization_cache: Any = None, out: Any = None) -> bytes:
        if out is not None:
            out.write(data)
        return bytes(data)

    def read(self, input: bytes | memoryview, size: int | None = None) -> bytes:
        return bytes(input[: len(input) if size is None else size])
