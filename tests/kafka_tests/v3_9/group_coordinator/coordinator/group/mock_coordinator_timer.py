"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/MockCoordinatorTimer.java (Kafka 3.9).

A CoordinatorTimer for tests: nothing expires by itself; `poll()` runs the operations whose deadline the (mock) time
has reached and returns their results.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_result import CoordinatorResult
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_timer import (
    CoordinatorTimer,
    TimeoutOperation,
)

T = TypeVar("T")
U = TypeVar("U")

# the backoff both Kafka timers use when none is given
_DEFAULT_RETRY_BACKOFF_MS = 500


class ScheduledTimeout(Generic[T, U]):
    def __init__(self, key: str, deadline_ms: int, operation: TimeoutOperation[T, U]) -> None:
        self.key = key
        self.deadline_ms = deadline_ms
        self.operation = operation


class ExpiredTimeout(Generic[T, U]):
    def __init__(self, key: str, result: CoordinatorResult[T, U]) -> None:
        self.key = key
        self.result = result

    def __eq__(self, o: object) -> bool:
        if self is o:
            return True
        if o is None or type(o) is not type(self):
            return False
        return self.key == o.key and self.result == o.result

    def __hash__(self) -> int:
        return hash((self.key, self.result))

    def __repr__(self) -> str:
        return f"ExpiredTimeout(key={self.key}, result={self.result})"


class MockCoordinatorTimer(CoordinatorTimer[T, U]):
    ScheduledTimeout = ScheduledTimeout
    ExpiredTimeout = ExpiredTimeout

    def __init__(self, time: Time) -> None:
        self._time = time
        self._timeout_map: dict[str, ScheduledTimeout[T, U]] = {}
        # Java's PriorityQueue by deadline; a list kept sorted (stable, so equal deadlines keep their order)
        self._timeout_queue: list[ScheduledTimeout[T, U]] = []

    def schedule(self, key: str, delay_ms: int, retry: bool, operation: TimeoutOperation[T, U],
                 retry_backoff_ms: int | None = None) -> None:
        self.cancel(key)
        deadline_ms = self._time.milliseconds() + delay_ms
        timeout = ScheduledTimeout(key, deadline_ms, operation)
        index = len(self._timeout_queue)
        while index > 0 and self._timeout_queue[index - 1].deadline_ms > deadline_ms:
            index -= 1
        self._timeout_queue.insert(index, timeout)
        self._timeout_map[key] = timeout

    def schedule_if_absent(self, key: str, delay_ms: int, retry: bool, operation: TimeoutOperation[T, U]) -> None:
        if key not in self._timeout_map:
            self.schedule(key, delay_ms, retry, operation, _DEFAULT_RETRY_BACKOFF_MS)

    def cancel(self, key: str) -> None:
        timeout = self._timeout_map.pop(key, None)
        if timeout is not None:
            self._timeout_queue.remove(timeout)

    def contains(self, key: str) -> bool:
        return key in self._timeout_map

    def timeout(self, key: str) -> ScheduledTimeout[T, U] | None:
        return self._timeout_map.get(key)

    def size(self) -> int:
        return len(self._timeout_map)

    def poll(self) -> list[ExpiredTimeout[T, U]]:
        """Runs the due operations, earliest deadline first."""
        results: list[ExpiredTimeout[T, U]] = []
        while self._timeout_queue and self._timeout_queue[0].deadline_ms <= self._time.milliseconds():
            timeout = self._timeout_queue.pop(0)
            if self._timeout_map.get(timeout.key) is timeout:
                del self._timeout_map[timeout.key]
            results.append(ExpiredTimeout(timeout.key, timeout.operation()))
        return results
