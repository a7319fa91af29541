"""Port of server-common/src/main/java/org/apache/kafka/server/common/CheckpointFile.java (Kafka 3.9): the text file a
checkpoint is kept in (a version line, an entry count line, one line per entry), rewritten whole through a fsynced
temp file and an atomic rename, so that a crash leaves the old content or the new."""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Collection
from pathlib import Path
from typing import Generic, Protocol, TextIO, TypeVar

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.utils.utils import atomic_move_with_fallback

T = TypeVar("T")

_JAVA_INTEGER = re.compile(r"[+-]?[0-9]+")


def parse_integer(value: str, bits: int = 32) -> int:
    """Integer.parseInt (bits=32) / Long.parseLong (bits=64): only an optional sign and digits, in range; anything
    else is a NumberFormatException, an IllegalArgumentException."""
    if _JAVA_INTEGER.fullmatch(value):
        number = int(value)
        if -(2 ** (bits - 1)) <= number < 2 ** (bits - 1):
            return number
    raise IllegalArgumentException(f'For input string: "{value}"')


class EntryFormatter(Protocol[T]):
    """An entry as one line of the file, and back; `from_string` answers None for a line it cannot read."""

    def to_string(self, entry: T) -> str: ...

    def from_string(self, value: str) -> T | None: ...


class CheckpointFile(Generic[T]):
    def __init__(self, file: str | os.PathLike[str], version: int, formatter: EntryFormatter[T]) -> None:
        self._version = version
        self._formatter = formatter
        self._lock = threading.Lock()
        try:
            # a new checkpoint starts as an empty file, which reads as no entries
            with open(file, "x"):
                pass
        except FileExistsError:
            pass
        self._absolute_path = Path(file).absolute()
        self._temp_path = Path(f"{self._absolute_path}.tmp")

    def write(self, entries: Collection[T]) -> None:
        with self._lock:
            # the new content goes to a temp file first, then replaces the old file in one rename
            with open(self._temp_path, "w", encoding="utf-8", newline="\n") as writer:
                checkpoint_write_buffer = CheckpointWriteBuffer(writer, self._version, self._formatter)
                checkpoint_write_buffer.write(entries)
                writer.flush()
                os.fsync(writer.fileno())

            atomic_move_with_fallback(self._temp_path, self._absolute_path)

    def read(self) -> list[T]:
        with self._lock, open(self._absolute_path, encoding="utf-8") as reader:
            checkpoint_buffer = CheckpointReadBuffer(str(self._absolute_path), reader, self._version,
                                                     self._formatter)
            return checkpoint_buffer.read()


class CheckpointWriteBuffer(Generic[T]):
    def __init__(self, writer: TextIO, version: int, formatter: EntryFormatter[T]) -> None:
        self._writer = writer
        self._version = version
        self._formatter = formatter

    def write(self, entries: Collection[T]) -> None:
        self._writer.write(f"{self._version}\n")
        self._writer.write(f"{len(entries)}\n")
        for entry in entries:
            self._writer.write(f"{self._formatter.to_string(entry)}\n")


class CheckpointReadBuffer(Generic[T]):
    def __init__(self, location: str, reader: TextIO, version: int, formatter: EntryFormatter[T]) -> None:
        self._location = location
        self._reader = reader
        self._version = version
        self._formatter = formatter

    def read(self) -> list[T]:
        """The entries; an empty file, or one cut after its version line, has none. Raises OSError (Kafka's
        IOException) for another version, a malformed line or a wrong entry count."""
        line = self._read_line()
        if line is None:
            return []

        read_version = self._to_int(line)
        if read_version != self._version:
            raise OSError(f"Unrecognised version:{read_version}, expected version: {self._version} in checkpoint "
                          f"file at: {self._location}")

        line = self._read_line()
        if line is None:
            return []
        expected_size = self._to_int(line)
        entries: list[T] = []
        line = self._read_line()
        while line is not None:
            maybe_entry = self._formatter.from_string(line)
            if maybe_entry is None:
                raise self._build_malformed_line_exception(line)
            entries.append(maybe_entry)
            line = self._read_line()

        if len(entries) != expected_size:
            raise OSError(f"Expected [{expected_size}] entries in checkpoint file [{self._location}], but found only "
                          f"[{len(entries)}]")

        return entries

    def _read_line(self) -> str | None:
        """BufferedReader.readLine: the next line without its terminator, None at the end of the file."""
        line = self._reader.readline()
        if not line:
            return None
        return line[:-1] if line.endswith("\n") else line

    def _to_int(self, line: str) -> int:
        try:
            return parse_integer(line)
        except IllegalArgumentException:
            raise self._build_malformed_line_exception(line) from None

    def _build_malformed_line_exception(self, line: str) -> OSError:
        return OSError(f"Malformed line in checkpoint file [{self._location}]: {line}")
