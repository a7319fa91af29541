"""Port of core/src/main/scala/kafka/server/checkpoints/CheckpointFile.scala (Kafka 1.0.2): the text file every
checkpoint of the broker is written as (a version line, a count line, then one line per entry)."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from kafka_edu.v1_0_2.clients.common.utils.utils import atomic_move_with_fallback

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.server.log_dir_failure_channel import LogDirFailureChannel

T = TypeVar("T")


class CheckpointFileFormatter(Protocol[T]):
    """How one entry becomes a line and back; `from_line` answers None for a line it cannot read."""

    def to_line(self, entry: T) -> str: ...

    def from_line(self, line: str) -> T | None: ...


class CheckpointFile(Generic[T]):
    """Rewritten whole on every write (temp file, fsync, rename), so a crash leaves the old or the new content.

    An I/O error takes `log_dir` offline (LogDirFailureChannel) and is raised as an OSError; so is a file whose
    content cannot be read, without taking the directory offline (this port's callers reset such a file).
    """

    def __init__(self, file: Path, version: int, formatter: CheckpointFileFormatter[T],
                 log_dir_failure_channel: LogDirFailureChannel | None, log_dir: str) -> None:
        self.file = Path(file)
        self.version = version
        self.formatter = formatter
        self.log_dir_failure_channel = log_dir_failure_channel
        self.log_dir = log_dir
        self._temp = self.file.with_name(self.file.name + ".tmp")
        self._lock = threading.Lock()
        try:
            self.file.touch(exist_ok=True)  # a new checkpoint reads as empty
        except OSError as e:
            self._fail(f"Failed to create checkpoint file {self.file}", e)

    def write(self, entries: Iterable[T]) -> None:
        entries = list(entries)
        with self._lock:
            lines = [str(self.version), str(len(entries))] + [self.formatter.to_line(e) for e in entries]
            try:
                with open(self._temp, "w", encoding="utf-8") as f:
                    f.write("".join(line + "\n" for line in lines))
                    f.flush()
                    os.fsync(f.fileno())
                atomic_move_with_fallback(self._temp, self.file)
            except OSError as e:
                self._fail(f"Error while writing to checkpoint file {self.file}", e)

    def read(self) -> list[T]:
        with self._lock:
            try:
                text = self.file.read_text(encoding="utf-8")
            except OSError as e:
                self._fail(f"Error while reading checkpoint file {self.file}", e)
            lines = text.splitlines()
            if not lines:
                return []
            if self._int(lines[0]) != self.version:
                raise OSError(f"Unrecognized version of the checkpoint file ({self.file}): {lines[0]}")
            if len(lines) == 1:
                return []
            expected_size = self._int(lines[1])
            entries = []
            for line in lines[2:]:
                entry = self.formatter.from_line(line)
                if entry is None:
                    raise self._malformed(line)
                entries.append(entry)
            if len(entries) != expected_size:
                raise OSError(f"Expected {expected_size} entries in checkpoint file ({self.file}), but found only "
                              f"{len(entries)}")
            return entries

    def _int(self, line: str) -> int:
        try:
            return int(line)
        except ValueError:
            raise self._malformed(line) from None

    def _malformed(self, line: str) -> OSError:
        return OSError(f"Malformed line in checkpoint file ({self.file}): {line}'")

    def _fail(self, msg: str, e: OSError) -> None:
        if self.log_dir_failure_channel is not None:
            self.log_dir_failure_channel.maybe_add_offline_log_dir(self.log_dir, msg, e)
        raise OSError(f"{msg}: {e}") from e
