"""Port of core/src/main/scala/kafka/server/checkpoints/OffsetCheckpointFile.scala and CheckpointFile.scala
(Kafka 1.0.2): the `recovery-point-offset-checkpoint` and `log-start-offset-checkpoint` files."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from kafka_edu.server.log_dir_failure_channel import LogDirFailureChannel

CURRENT_VERSION = 0


class OffsetCheckpointFile:
    """`version`, `count`, then one `topic partition offset` line per partition; written by atomic rename."""

    def __init__(self, file: Path, log_dir_failure_channel: LogDirFailureChannel | None = None) -> None:
        self.file = file
        self.log_dir_failure_channel = log_dir_failure_channel
        self._lock = threading.Lock()
        try:
            file.touch(exist_ok=True)
        except OSError as e:
            self._fail(f"Failed to create checkpoint file {file}", e)

    def write(self, offsets: dict[tuple[str, int], int]) -> None:
        with self._lock:
            temp = self.file.with_name(self.file.name + ".tmp")
            lines = [str(CURRENT_VERSION), str(len(offsets))]
            lines += [f"{topic} {partition} {offset}" for (topic, partition), offset in offsets.items()]
            try:
                with open(temp, "w", encoding="utf-8") as f:
                    f.write("\n".join(lines) + "\n")
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(temp, self.file)
            except OSError as e:
                self._fail(f"Error while writing to checkpoint file {self.file}", e)

    def read(self) -> dict[tuple[str, int], int]:
        with self._lock:
            try:
                text = self.file.read_text(encoding="utf-8")
            except OSError as e:
                self._fail(f"Error while reading checkpoint file {self.file}", e)
            lines = text.splitlines()
            if not lines:
                return {}
            if int(lines[0]) != CURRENT_VERSION:
                raise OSError(f"Unrecognized version of the highwatermark checkpoint file: {lines[0]}")
            expected = int(lines[1])
            offsets = {}
            for line in lines[2:]:
                topic, partition, offset = line.split()
                offsets[(topic, int(partition))] = int(offset)
            if len(offsets) != expected:
                raise OSError(f"Expected {expected} entries in checkpoint file {self.file}, but found only "
                              f"{len(offsets)}")
            return offsets

    def _fail(self, msg: str, e: OSError) -> None:
        if self.log_dir_failure_channel is not None:
            self.log_dir_failure_channel.maybe_add_offline_log_dir(str(self.file.parent), msg, e)
        raise OSError(f"{msg}: {e}") from e
