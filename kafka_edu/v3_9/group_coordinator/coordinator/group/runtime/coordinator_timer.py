"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/runtime/CoordinatorTimer.java (Kafka 3.9).

How a coordinator shard schedules work for later (a member's session timeout, say): by key, so that scheduling again
replaces the pending operation and a key can be cancelled.

Java's `(delay, TimeUnit)` pairs are milliseconds here, and a TimeoutOperation is any callable returning a
CoordinatorResult (Java's `generateRecords()` is the call): Kafka passes lambdas.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Generic, TypeVar

from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_result import CoordinatorResult

T = TypeVar("T")
U = TypeVar("U")

# CoordinatorTimer.TimeoutOperation: builds the records of the timeout; the records, once applied, change the state
TimeoutOperation = Callable[[], CoordinatorResult[T, U]]


class CoordinatorTimer(ABC, Generic[T, U]):

    @abstractmethod
    def schedule(self, key: str, delay_ms: int, retry: bool, operation: TimeoutOperation[T, U],
                 retry_backoff_ms: int | None = None) -> None:
        """Replaces any operation of the same key. `retry`: run again after `retry_backoff_ms` if it fails (None:
        the timer's default, Java's overload without retryBackoff)."""

    @abstractmethod
    def schedule_if_absent(self, key: str, delay_ms: int, retry: bool, operation: TimeoutOperation[T, U]) -> None:
        """Schedules only when no operation of that key is pending."""

    @abstractmethod
    def cancel(self, key: str) -> None: ...
