"""Port of raft/src/main/java/org/apache/kafka/raft/internals/MemoryBatchReader.java (Kafka 3.9): batches the
leader still holds in memory, handed to listeners without reading them back from disk."""

from __future__ import annotations

from typing import Generic, TypeVar

from kafka_edu.v3_9.raft.raft.batch import Batch
from kafka_edu.v3_9.raft.raft.batch_reader import BatchReader, CloseListener

T = TypeVar("T")


class MemoryBatchReader(BatchReader[T], Generic[T]):
    def __init__(self, batches: list[Batch[T]], close_listener: CloseListener) -> None:
        self._batches = list(batches)
        self._iterator = iter(self._batches)
        self._close_listener = close_listener
        self._last_offset = self._batches[-1].last_offset if self._batches else None
        self._closed = False

    @staticmethod
    def of(batches: list[Batch[T]], close_listener: CloseListener) -> MemoryBatchReader[T]:
        return MemoryBatchReader(batches, close_listener)

    def base_offset(self) -> int:
        return self._batches[0].base_offset

    def last_offset(self) -> int | None:
        return self._last_offset

    def __next__(self) -> Batch[T]:
        return next(self._iterator)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._close_listener.on_close(self)
