"""Port of storage/src/main/java/org/apache/kafka/storage/internals/checkpoint/LeaderEpochCheckpointFile.java
(Kafka 3.9): a replica's `leader-epoch-checkpoint`, one `epoch start_offset` line per leader epoch after the version
(0) and count lines."""

from __future__ import annotations

import os
import re
from collections.abc import Collection
from pathlib import Path

from kafka_edu.v3_9.server_common.server.common.checkpoint_file import parse_integer
from kafka_edu.v3_9.storage.storage.internals.checkpoint.checkpoint_file_with_failure_handler import (
    CheckpointFileWithFailureHandler,
)
from kafka_edu.v3_9.storage.storage.internals.log.epoch_entry import EpochEntry
from kafka_edu.v3_9.storage.storage.internals.log.log_dir_failure_channel import LogDirFailureChannel

LEADER_EPOCH_CHECKPOINT_FILENAME = "leader-epoch-checkpoint"
_WHITE_SPACES_PATTERN = re.compile(r"\s+")
CURRENT_VERSION = 0


class _Formatter:
    def to_string(self, entry: EpochEntry) -> str:
        return f"{entry.epoch} {entry.start_offset}"

    def from_string(self, line: str) -> EpochEntry | None:
        strings = _java_split(_WHITE_SPACES_PATTERN, line)
        if len(strings) == 2:
            return EpochEntry(parse_integer(strings[0]), parse_integer(strings[1], 64))
        return None


def _java_split(pattern: re.Pattern[str], line: str) -> list[str]:
    """Pattern.split: like re.split, but trailing empty strings are dropped (a leading one stays)."""
    strings = pattern.split(line)
    while strings and strings[-1] == "" and len(strings) > 1:
        strings.pop()
    return strings


FORMATTER = _Formatter()


class LeaderEpochCheckpointFile:
    FORMATTER = FORMATTER

    def __init__(self, file: str | os.PathLike[str], log_dir_failure_channel: LogDirFailureChannel) -> None:
        file = Path(file)
        # the log dir is the partition directory's parent: that is what goes offline on an I/O error
        self._checkpoint: CheckpointFileWithFailureHandler[EpochEntry] = CheckpointFileWithFailureHandler(
            file, CURRENT_VERSION, FORMATTER, log_dir_failure_channel, str(file.parent.parent))

    def write(self, epochs: Collection[EpochEntry]) -> None:
        self._checkpoint.write(epochs)

    def write_if_dir_exists(self, epochs: Collection[EpochEntry]) -> None:
        # the asynchronous write after a truncation may race the rename of a partition directory being deleted
        self._checkpoint.write_if_dir_exists(epochs)

    def read(self) -> list[EpochEntry]:
        return self._checkpoint.read()

    @staticmethod
    def new_file(dir: Path) -> Path:
        return Path(dir) / LEADER_EPOCH_CHECKPOINT_FILENAME
