"""Port of core/src/main/scala/kafka/server/checkpoints/OffsetCheckpointFile.scala (Kafka 1.0.2): the
`recovery-point-offset-checkpoint`, `log-start-offset-checkpoint` and `replication-offset-checkpoint` files."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from kafka_edu.v1_0_2.core.server.checkpoints.checkpoint_file import CheckpointFile

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.server.log_dir_failure_channel import LogDirFailureChannel

CURRENT_VERSION = 0
_WHITE_SPACES = re.compile(r"\s+")


class _Formatter:
    """`topic partition offset`."""

    @staticmethod
    def to_line(entry: tuple[tuple[str, int], int]) -> str:
        (topic, partition), offset = entry
        return f"{topic} {partition} {offset}"

    @staticmethod
    def from_line(line: str) -> tuple[tuple[str, int], int] | None:
        parts = _WHITE_SPACES.split(line.strip())
        if len(parts) != 3:
            return None
        topic, partition, offset = parts
        try:
            return (topic, int(partition)), int(offset)
        except ValueError:
            return None


class OffsetCheckpointFile:
    """An offset per partition of one log directory."""

    def __init__(self, file: Path, log_dir_failure_channel: LogDirFailureChannel | None = None) -> None:
        self.file = Path(file)
        # the log directory is the file's own: it sits next to the partition directories
        self.checkpoint = CheckpointFile(self.file, CURRENT_VERSION, _Formatter(), log_dir_failure_channel,
                                         str(self.file.parent))

    def write(self, offsets: dict[tuple[str, int], int]) -> None:
        self.checkpoint.write(offsets.items())

    def read(self) -> dict[tuple[str, int], int]:
        return dict(self.checkpoint.read())
