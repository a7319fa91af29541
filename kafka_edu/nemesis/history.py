"""Our own code, not a Kafka port: the client-side history of a nemesis run, one JSON object a line.

Every line has `type` and `t` (wall-clock nanoseconds). The types and their fields:

- `meta`: topic, partitions, mode, settings, seed, faults (the run's parameters, first line)
- `send`: id, producer, partition, seq (the producer's n-th send to that partition), txn (its transaction or null)
- `ack`: id, partition, offset (the broker's answer to a send)
- `fail`: id, error, indeterminate (true when the record may have been written all the same, e.g. a timeout)
- `txn`: producer, txn, outcome (`commit` / `abort`), ok, error
- `read`: consumer (a group member, or `final` / `final-uncommitted` for the read-back), isolation, partition, offset,
  id (null for a value that is none of ours)
- `commit`: consumer, partition, offset (the next offset to read, as committed), ok, error
- `fault`: kind, node, phase (`start` / `end`)
- `final`: partition, high (the read-back's end), reached (how far it got), isolation
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HISTORY_FILE = "history.jsonl"


class History:
    """Appends events to `history.jsonl`; thread-safe, one flushed line per event, so a killed run keeps what it had.
    The events also stay in memory for the checker and the progress line."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._file = open(path, "a", encoding="utf-8")  # noqa: SIM115 - open until close()
        self.events: list[dict[str, Any]] = []
        self.counts: dict[str, int] = {}

    def record(self, type_: str, **fields: Any) -> dict[str, Any]:
        event = {"type": type_, "t": time.time_ns(), **fields}
        line = json.dumps(event, separators=(",", ":")) + "\n"
        with self._lock:
            self._file.write(line)
            self._file.flush()
            self.events.append(event)
            self.counts[type_] = self.counts.get(type_, 0) + 1
        return event

    def count(self, type_: str) -> int:
        return self.counts.get(type_, 0)

    def close(self) -> None:
        with self._lock:
            self._file.close()


def read_history(path: Path) -> list[dict[str, Any]]:
    """The events of a history file; a last line cut short (a run killed mid-write) is left out."""
    return list(_events(path))


def _events(path: Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.endswith("\n"):
                yield json.loads(line)
