"""Port of raft/src/main/java/org/apache/kafka/raft/BatchReader.java (Kafka 3.9)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import Generic, TypeVar

from kafka_edu.v3_9.raft.raft.batch import Batch

T = TypeVar("T")


class BatchReader(ABC, Iterator[Batch[T]], Generic[T]):
    """The committed batches handed to `RaftClient.Listener.handle_commit`.

    The listener iterates it and then must call `close()`: closing tells the raft client how far the listener has
    read, and only then does it send the next batches (one reader in flight per listener).
    """

    @abstractmethod
    def base_offset(self) -> int:
        """The offset of the first record of the first batch."""

    @abstractmethod
    def last_offset(self) -> int | None:
        """The offset of the last record, when known (None: a reader from disk before it has been read through)."""

    @abstractmethod
    def close(self) -> None:
        """Release the reader; the raft client learns the listener's new position from it."""

    def __enter__(self) -> BatchReader[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class CloseListener(ABC, Generic[T]):
    """Port of raft/src/main/java/org/apache/kafka/raft/internals/CloseListener.java: told when a reader closes."""

    @abstractmethod
    def on_close(self, closeable: T) -> None: ...
