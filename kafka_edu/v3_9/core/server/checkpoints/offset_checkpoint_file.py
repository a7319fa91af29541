"""Port of core/src/main/scala/kafka/server/checkpoints/OffsetCheckpointFile.scala (Kafka 3.9): the per-log-dir
checkpoint of one offset per partition (recovery points, log start offsets, cleaner offsets), and its lazy reader."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.server_common.server.common.checkpoint_file import parse_integer
from kafka_edu.v3_9.storage.storage.internals.checkpoint.checkpoint_file_with_failure_handler import (
    CheckpointFileWithFailureHandler,
)
from kafka_edu.v3_9.storage.storage.internals.log.log_dir_failure_channel import LogDirFailureChannel

_WHITE_SPACES_PATTERN = re.compile(r"\s+")
CURRENT_VERSION = 0


class _Formatter:
    """One `topic partition offset` line per entry."""

    def to_string(self, entry: tuple[TopicPartition, int]) -> str:
        return f"{entry[0].topic} {entry[0].partition} {entry[1]}"

    def from_string(self, line: str) -> tuple[TopicPartition, int] | None:
        # Pattern.split drops trailing empty strings but keeps a leading one
        parts = _WHITE_SPACES_PATTERN.split(line)
        while parts and parts[-1] == "":
            parts.pop()
        if len(parts) == 3:
            topic, partition, offset = parts
            return TopicPartition(topic, parse_integer(partition)), parse_integer(offset, 64)
        return None


FORMATTER = _Formatter()


class OffsetCheckpointFile:
    def __init__(self, file: str | os.PathLike[str], log_dir_failure_channel: LogDirFailureChannel | None = None
                 ) -> None:
        self.file = Path(file)
        # a channel of None is Kafka's null: only a failing read or write would reach it
        self.checkpoint: CheckpointFileWithFailureHandler[tuple[TopicPartition, int]] = (
            CheckpointFileWithFailureHandler(file, CURRENT_VERSION, FORMATTER, log_dir_failure_channel,  # type: ignore[arg-type]
                                             str(self.file.parent)))

    def write(self, offsets: Mapping[TopicPartition, int]) -> None:
        self.checkpoint.write(list(offsets.items()))

    def read(self) -> dict[TopicPartition, int]:
        return dict(self.checkpoint.read())


class OffsetCheckpoints:
    """The trait: the checkpointed offset of a partition in a log dir, if any."""

    def fetch(self, log_dir: str, topic_partition: TopicPartition) -> int | None:
        raise NotImplementedError


class LazyOffsetCheckpoints(OffsetCheckpoints):
    def __init__(self, checkpoints_by_log_dir: Mapping[str, OffsetCheckpointFile]) -> None:
        self._lazy_checkpoints_by_log_dir = {log_dir: LazyOffsetCheckpointMap(checkpoint_file)
                                             for log_dir, checkpoint_file in checkpoints_by_log_dir.items()}

    def fetch(self, log_dir: str, topic_partition: TopicPartition) -> int | None:
        offset_checkpoint_file = self._lazy_checkpoints_by_log_dir.get(log_dir)
        if offset_checkpoint_file is None:
            raise IllegalArgumentException(f"No checkpoint file for log dir {log_dir}")
        return offset_checkpoint_file.fetch(topic_partition)


class LazyOffsetCheckpointMap:
    """Reads its file on the first fetch only."""

    def __init__(self, checkpoint: OffsetCheckpointFile) -> None:
        self._checkpoint = checkpoint
        self._offsets: dict[TopicPartition, int] | None = None

    def fetch(self, topic_partition: TopicPartition) -> int | None:
        if self._offsets is None:
            self._offsets = self._checkpoint.read()
        return self._offsets.get(topic_partition)
