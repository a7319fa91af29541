"""Port of storage/src/main/java/org/apache/kafka/storage/internals/checkpoint/CheckpointFileWithFailureHandler.java
(Kafka 3.9): a CheckpointFile whose I/O errors take its log directory offline and surface as KafkaStorageException."""

from __future__ import annotations

import logging
import os
from collections.abc import Collection
from pathlib import Path
from typing import Generic, TypeVar

from kafka_edu.v1_0_2.clients.common.errors import KafkaStorageException
from kafka_edu.v3_9.server_common.server.common.checkpoint_file import CheckpointFile, EntryFormatter
from kafka_edu.v3_9.storage.storage.internals.log.log_dir_failure_channel import LogDirFailureChannel

log = logging.getLogger("org.apache.kafka.storage.internals.checkpoint.CheckpointFileWithFailureHandler")

T = TypeVar("T")


class CheckpointFileWithFailureHandler(Generic[T]):
    def __init__(self, file: str | os.PathLike[str], version: int, formatter: EntryFormatter[T],
                 log_dir_failure_channel: LogDirFailureChannel, log_dir: str) -> None:
        self.file = Path(file)
        self._log_dir_failure_channel = log_dir_failure_channel
        self._log_dir = log_dir
        self._checkpoint_file: CheckpointFile[T] = CheckpointFile(file, version, formatter)

    def write(self, entries: Collection[T]) -> None:
        try:
            self._checkpoint_file.write(entries)
        except OSError as e:
            msg = f"Error while writing to checkpoint file {self.file.absolute()}"
            self._log_dir_failure_channel.maybe_add_offline_log_dir(self._log_dir, msg, e)
            raise KafkaStorageException(msg) from e

    def write_if_dir_exists(self, entries: Collection[T]) -> None:
        """write, except that a directory gone missing (the partition is being deleted) is only a warning."""
        try:
            self._checkpoint_file.write(entries)
        except FileNotFoundError as e:
            log.warning("Failed to write to checkpoint file %s. This is ok if the topic/partition is being deleted",
                        self.file.absolute(), exc_info=e)
        except OSError as e:
            msg = f"Error while writing to checkpoint file {self.file.absolute()}"
            self._log_dir_failure_channel.maybe_add_offline_log_dir(self._log_dir, msg, e)
            raise KafkaStorageException(msg) from e

    def read(self) -> list[T]:
        try:
            return self._checkpoint_file.read()
        except OSError as e:
            msg = f"Error while reading checkpoint file {self.file.absolute()}"
            self._log_dir_failure_channel.maybe_add_offline_log_dir(self._log_dir, msg, e)
            raise KafkaStorageException(msg) from e
