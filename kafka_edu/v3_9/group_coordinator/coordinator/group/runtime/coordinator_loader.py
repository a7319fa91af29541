"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/runtime/CoordinatorLoader.java
(Kafka 3.9): reads a coordinator partition from its start and replays every record into the coordinator."""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import TracebackType
from typing import Generic, TypeVar

from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_playback import CoordinatorPlayback
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture

U = TypeVar("U")


class UnknownRecordTypeException(RuntimeError):
    """A Deserializer met a record type it does not know (CoordinatorLoader.UnknownRecordTypeException)."""

    def __init__(self, unknown_type: int) -> None:
        super().__init__(f"Found an unknown record type {unknown_type}")
        self._unknown_type = unknown_type

    def unknown_type(self) -> int:
        return self._unknown_type


class LoadSummary:
    """What a load reports once done (CoordinatorLoader.LoadSummary): when it ran, how long it waited to be
    scheduled, and how much it read."""

    def __init__(self, start_time_ms: int, end_time_ms: int, scheduler_queue_time_ms: int, num_records: int,
                 num_bytes: int) -> None:
        self._start_time_ms = start_time_ms
        self._end_time_ms = end_time_ms
        self._scheduler_queue_time_ms = scheduler_queue_time_ms
        self._num_records = num_records
        self._num_bytes = num_bytes

    def start_time_ms(self) -> int:
        return self._start_time_ms

    def end_time_ms(self) -> int:
        return self._end_time_ms

    def scheduler_queue_time_ms(self) -> int:
        return self._scheduler_queue_time_ms

    def num_records(self) -> int:
        return self._num_records

    def num_bytes(self) -> int:
        return self._num_bytes

    def __str__(self) -> str:
        return (f"LoadSummary(startTimeMs={self._start_time_ms}, endTimeMs={self._end_time_ms}, "
                f"schedulerQueueTimeMs={self._scheduler_queue_time_ms}, numRecords={self._num_records}, "
                f"numBytes={self._num_bytes})")

    __repr__ = __str__


class CoordinatorLoader(ABC, Generic[U]):
    """AutoCloseable: usable in a `with` block, which closes it."""

    UnknownRecordTypeException = UnknownRecordTypeException
    LoadSummary = LoadSummary

    @abstractmethod
    def load(self, tp: TopicPartition, coordinator: CoordinatorPlayback[U]) -> CompletableFuture[LoadSummary]: ...

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> CoordinatorLoader[U]:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
