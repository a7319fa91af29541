"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/SnapshotFile.java (Kafka 3.9): one producer
state snapshot on disk, `<offset>.snapshot`, and the offset it is named after."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from kafka_edu.v3_9.clients.common.utils.utils import atomic_move_with_fallback
from kafka_edu.v3_9.storage.storage.internals.log.log_file_utils import DELETED_FILE_SUFFIX, offset_from_file_name

log = logging.getLogger("org.apache.kafka.storage.internals.log.SnapshotFile")


class SnapshotFile:
    """The offset is fixed; the file moves (to a new parent dir, or to `.deleted`)."""

    def __init__(self, file: str | os.PathLike[str], offset: int | None = None) -> None:
        self._file = Path(file)
        self.offset = offset_from_file_name(self._file.name) if offset is None else offset

    def delete_if_exists(self) -> bool:
        try:
            self._file.unlink()
            deleted = True
        except FileNotFoundError:
            deleted = False
        if deleted:
            log.info("Deleted producer state snapshot %s", self._file.absolute())
        else:
            log.info("Failed to delete producer state snapshot %s because it does not exist.", self._file.absolute())
        return deleted

    def update_parent_dir(self, parent_dir: str | os.PathLike[str]) -> None:
        self._file = Path(parent_dir, self._file.name)

    def file(self) -> Path:
        return self._file

    def rename_to_delete(self) -> None:
        """Raises FileNotFoundError (Kafka's NoSuchFileException) if the file is gone; the new name is kept anyway."""
        renamed = Path(str(self._file) + DELETED_FILE_SUFFIX)
        try:
            atomic_move_with_fallback(self._file, renamed, need_flush_parent_dir=False)
        finally:
            self._file = renamed

    def __str__(self) -> str:
        return f"SnapshotFile(offset={self.offset}, file={self._file})"

    __repr__ = __str__
