"""Port of core/src/main/scala/kafka/server/checkpoints/LeaderEpochCheckpointFile.scala (Kafka 1.0.2): the
`leader-epoch-checkpoint` file next to a partition's segments, one `epoch startOffset` line per epoch."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from kafka_edu.v1_0_2.core.server.checkpoints.checkpoint_file import CheckpointFile
from kafka_edu.v1_0_2.core.server.epoch.leader_epoch_file_cache import EpochEntry

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.server.log_dir_failure_channel import LogDirFailureChannel

LEADER_EPOCH_CHECKPOINT_FILENAME = "leader-epoch-checkpoint"
CURRENT_VERSION = 0
_WHITE_SPACES = re.compile(r"\s+")


def new_file(dir: Path) -> Path:
    """LeaderEpochFile.newFile: where a partition directory keeps its checkpoint."""
    return Path(dir) / LEADER_EPOCH_CHECKPOINT_FILENAME


class _Formatter:
    @staticmethod
    def to_line(entry: EpochEntry) -> str:
        return f"{entry.epoch} {entry.start_offset}"

    @staticmethod
    def from_line(line: str) -> EpochEntry | None:
        parts = _WHITE_SPACES.split(line.strip())
        if len(parts) != 2:
            return None
        try:
            return EpochEntry(int(parts[0]), int(parts[1]))
        except ValueError:
            return None


class LeaderEpochCheckpointFile:
    """The epochs of one replica's log, as LeaderEpochFileCache last wrote them."""

    def __init__(self, file: Path, log_dir_failure_channel: LogDirFailureChannel | None = None) -> None:
        self.file = Path(file)
        # a failure takes the log directory (the partition directory's parent) offline
        self.checkpoint = CheckpointFile(self.file, CURRENT_VERSION, _Formatter(), log_dir_failure_channel,
                                         str(self.file.parent.parent))

    def write(self, epochs: list[EpochEntry]) -> None:
        self.checkpoint.write(epochs)

    def read(self) -> list[EpochEntry]:
        return self.checkpoint.read()
