"""Port of storage/src/main/java/org/apache/kafka/storage/internals/checkpoint/PartitionMetadataFile.java, with
PartitionMetadata.java and PartitionMetadataReadBuffer.java (Kafka 3.9): the `partition.metadata` file that keeps a
partition's topic id in its log directory."""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from kafka_edu.v1_0_2.clients.common.errors import KafkaStorageException
from kafka_edu.v3_9.clients.common.errors.inconsistent_topic_id_exception import InconsistentTopicIdException
from kafka_edu.v3_9.clients.common.utils.utils import atomic_move_with_fallback
from kafka_edu.v3_9.clients.common.uuid import ZERO_UUID, Uuid
from kafka_edu.v3_9.storage.storage.internals.log.log_dir_failure_channel import LogDirFailureChannel

PARTITION_METADATA_FILE_NAME = "partition.metadata"
CURRENT_VERSION = 0
_WHITE_SPACES_PATTERN = re.compile(r":\s+")


@dataclass(frozen=True)
class PartitionMetadata:
    version: int
    topic_id: Uuid

    def encode(self) -> str:
        return f"version: {self.version}\ntopic_id: {self.topic_id}"


class PartitionMetadataReadBuffer:
    def __init__(self, location: str, lines: list[str]) -> None:
        self._location = location
        self._lines = iter(lines)

    def read(self) -> PartitionMetadata:
        line = next(self._lines, None)
        try:
            version_arr = _WHITE_SPACES_PATTERN.split(line) if line is not None else []
            if len(version_arr) != 2:
                raise self._malformed_line_exception(line)
            version = int(version_arr[1])
            # any version from 0 up is read, so that a downgraded broker reads a newer one's file
            if version < CURRENT_VERSION:
                raise OSError(f"Unrecognized version of partition metadata file + ({self._location}): {version}")
            line = next(self._lines, None)
            topic_id_arr = _WHITE_SPACES_PATTERN.split(line) if line is not None else []
            if len(topic_id_arr) != 2:
                raise self._malformed_line_exception(line)
            metadata_topic_id = Uuid.from_string(topic_id_arr[1])
            if metadata_topic_id == ZERO_UUID:
                raise OSError(f"Invalid topic ID in partition metadata file ({self._location})")
            return PartitionMetadata(version, metadata_topic_id)
        except ValueError as e:
            raise self._malformed_line_exception(line) from e

    def _malformed_line_exception(self, line: str | None) -> OSError:
        return OSError(f"Malformed line in checkpoint file [{self._location}]: {line}")


class PartitionMetadataFile:
    @staticmethod
    def new_file(dir: str | os.PathLike[str]) -> Path:
        return Path(dir) / PARTITION_METADATA_FILE_NAME

    def __init__(self, file: str | os.PathLike[str], log_dir_failure_channel: LogDirFailureChannel | None) -> None:
        self.file = Path(file)
        self._log_dir_failure_channel = log_dir_failure_channel
        self._lock = threading.Lock()
        self._dirty_topic_id_opt: Uuid | None = None

    def record(self, topic_id: Uuid) -> None:
        """Remember the topic id to write at the next flush."""
        dirty = self._dirty_topic_id_opt
        if dirty is not None and dirty != topic_id:
            raise InconsistentTopicIdException(f"Tried to record topic ID {topic_id} to file but had already "
                                               f"recorded {dirty}")
        self._dirty_topic_id_opt = topic_id

    def maybe_flush(self) -> None:
        # checked before the lock: this runs on every append
        if self._dirty_topic_id_opt is None:
            return
        with self._lock:
            topic_id = self._dirty_topic_id_opt
            if topic_id is None:
                return
            try:
                with open(self._temp_path(), "w", encoding="utf-8") as writer:
                    writer.write(PartitionMetadata(CURRENT_VERSION, topic_id).encode())
                    writer.flush()
                    os.fsync(writer.fileno())
                atomic_move_with_fallback(self._temp_path(), self._path())
            except OSError as e:
                msg = f"Error while writing partition metadata file {self.file.absolute()}"
                if self._log_dir_failure_channel is not None:
                    self._log_dir_failure_channel.maybe_add_offline_log_dir(self._log_dir(), msg, e)
                raise KafkaStorageException(msg) from e
            self._dirty_topic_id_opt = None

    def read(self) -> PartitionMetadata:
        with self._lock:
            try:
                lines = self._path().read_text(encoding="utf-8").splitlines()
                return PartitionMetadataReadBuffer(str(self.file.absolute()), lines).read()
            except OSError as e:
                msg = f"Error while reading partition metadata file {self.file.absolute()}"
                if self._log_dir_failure_channel is not None:
                    self._log_dir_failure_channel.maybe_add_offline_log_dir(self._log_dir(), msg, e)
                raise KafkaStorageException(msg) from e

    def exists(self) -> bool:
        return self.file.exists()

    def delete(self) -> None:
        os.remove(self.file)

    def _path(self) -> Path:
        return self.file.absolute()

    def _temp_path(self) -> Path:
        return Path(str(self._path()) + ".tmp")

    def _log_dir(self) -> str:
        return str(self.file.absolute().parent.parent)

    def __str__(self) -> str:
        return f"PartitionMetadataFile(path={self._path()})"
