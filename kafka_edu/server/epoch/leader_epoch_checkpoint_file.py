"""Port of core/src/main/scala/kafka/server/checkpoints/LeaderEpochCheckpointFile.scala and the CheckpointFile it
writes through (Kafka 1.0.2): the `leader-epoch-checkpoint` file next to a partition's segments."""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kafka_edu.common.utils import flush_dir

if TYPE_CHECKING:
    from kafka_edu.server.log_dir_failure_channel import LogDirFailureChannel

LEADER_EPOCH_CHECKPOINT_FILENAME = "leader-epoch-checkpoint"
CURRENT_VERSION = 0
_WHITE_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class EpochEntry:
    """An epoch and the offset of its first record."""

    epoch: int
    start_offset: int


def new_file(dir: Path) -> Path:
    """LeaderEpochFile.newFile: where a partition directory keeps its checkpoint."""
    return Path(dir) / LEADER_EPOCH_CHECKPOINT_FILENAME


class LeaderEpochCheckpointFile:
    """`version`, `count`, then one `epoch startOffset` line per entry; rewritten whole by tmp file, fsync, rename."""

    def __init__(self, file: Path, log_dir_failure_channel: LogDirFailureChannel | None = None) -> None:
        self.file = Path(file)
        self.log_dir_failure_channel = log_dir_failure_channel
        self._lock = threading.Lock()
        try:
            self.file.touch(exist_ok=True)  # CheckpointFile creates it, so a read of a new partition finds it empty
        except OSError as e:
            self._fail(f"Failed to create checkpoint file {self.file}", e)

    def write(self, epochs: list[EpochEntry]) -> None:
        with self._lock:
            temp = self.file.with_name(self.file.name + ".tmp")
            lines = [str(CURRENT_VERSION), str(len(epochs))] + [f"{e.epoch} {e.start_offset}" for e in epochs]
            try:
                with open(temp, "w", encoding="utf-8") as f:
                    f.write("\n".join(lines) + "\n")
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(temp, self.file)
                flush_dir(self.file.parent)
            except OSError as e:
                self._fail(f"Error while writing to checkpoint file {self.file}", e)

    def read(self) -> list[EpochEntry]:
        with self._lock:
            try:
                text = self.file.read_text(encoding="utf-8")
            except OSError as e:
                self._fail(f"Error while reading checkpoint file {self.file}", e)
            lines = text.splitlines()
            if not lines:
                return []  # a new (empty) file
            if int(lines[0]) != CURRENT_VERSION:
                raise OSError(f"Unrecognized version of the checkpoint file ({self.file}): {lines[0]}")
            expected_size = int(lines[1])
            entries = []
            for line in lines[2:]:
                parts = _WHITE_SPACES.split(line.strip())
                if len(parts) != 2:
                    raise OSError(f"Malformed line in checkpoint file ({self.file}): {line}'")
                entries.append(EpochEntry(int(parts[0]), int(parts[1])))
            if len(entries) != expected_size:
                raise OSError(f"Expected {expected_size} entries in checkpoint file ({self.file}), but found only "
                              f"{len(entries)}")
            return entries

    def _fail(self, msg: str, e: OSError) -> None:
        if self.log_dir_failure_channel is not None:
            self.log_dir_failure_channel.maybe_add_offline_log_dir(str(self.file.parent.parent), msg, e)
        raise OSError(f"{msg}: {e}") from e
