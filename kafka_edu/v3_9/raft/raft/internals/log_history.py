"""Port of raft/src/main/java/org/apache/kafka/raft/internals/LogHistory.java (Kafka 3.9): values keyed by the log
offset they were set at."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


class LogHistory(ABC, Generic[T]):
    @abstractmethod
    def add_at(self, offset: int, value: T) -> None:
        """Store `value` at `offset`, which must be past every offset added so far (IllegalArgumentException)."""

    @abstractmethod
    def value_at_or_before(self, offset: int) -> T | None:
        """The value with the greatest offset <= `offset`."""

    @abstractmethod
    def last_entry(self) -> LogHistory.Entry[T] | None: ...

    @abstractmethod
    def truncate_new_entries(self, end_offset: int) -> None:
        """Forget the entries at `end_offset` and after."""

    @abstractmethod
    def truncate_old_entries(self, start_offset: int) -> None:
        """Forget the entries before `start_offset` except the newest of them, so a value known once stays known."""

    @abstractmethod
    def clear(self) -> None: ...

    @dataclass(frozen=True)
    class Entry(Generic[T]):
        """An offset and the value set there."""

        offset: int
        value: T

        def __str__(self) -> str:
            return f"Entry(offset={self.offset}, value={self.value})"
