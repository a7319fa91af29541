"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/runtime/CoordinatorResult.java
(Kafka 3.9).

What a write operation on a coordinator shard produces: the records to append (and, unless told otherwise, to replay)
and the response to give once they are committed.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture

T = TypeVar("T")
U = TypeVar("U")


class CoordinatorResult(Generic[T, U]):
    """Java's six constructors are one: CoordinatorResult(records), (records, response),
    (records, is_atomic=False), (records, append_future=f, replay_records=False), and so on."""

    def __init__(self, records: list[U], response: T | None = None,
                 append_future: CompletableFuture[None] | None = None, replay_records: bool = True,
                 is_atomic: bool = True) -> None:
        if records is None:
            raise TypeError("records")  # Java's Objects.requireNonNull: a NullPointerException
        self._records = records
        self._response = response
        # completed once the records are committed
        self._append_future = append_future
        self._replay_records = replay_records
        # whether the records must be written in one batch
        self._is_atomic = is_atomic

    def records(self) -> list[U]:
        return self._records

    def response(self) -> T | None:
        return self._response

    def append_future(self) -> CompletableFuture[None] | None:
        return self._append_future

    def replay_records(self) -> bool:
        return self._replay_records

    def is_atomic(self) -> bool:
        return self._is_atomic

    def __eq__(self, o: object) -> bool:
        if self is o:
            return True
        if o is None or type(o) is not type(self):
            return False
        return (self._records == o._records and self._response == o._response
                and self._replay_records == o._replay_records and self._is_atomic == o._is_atomic
                # a future is equal only to itself, as in Java
                and self._append_future is o._append_future)

    def __hash__(self) -> int:
        # records and responses may be unhashable (lists, response data): hash what equality fixes and is hashable
        return hash((len(self._records), id(self._append_future) if self._append_future is not None else 0,
                     self._replay_records, self._is_atomic))

    def __str__(self) -> str:
        return (f"CoordinatorResult(records={self._records}, response={self._response}, "
                f"appendFuture={self._append_future}, replayRecords={self._replay_records}, "
                f"isAtomic={self._is_atomic})")

    __repr__ = __str__
