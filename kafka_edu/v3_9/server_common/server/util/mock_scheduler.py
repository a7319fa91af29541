"""Port of server-common/src/test/java/org/apache/kafka/server/util/MockScheduler.java (Kafka 3.9): a scheduler
driven by a MockTime; tasks run in the caller's thread when the clock reaches them (a task due exactly now runs, as if
running took no time). Scheduling a task that is already due runs it at once."""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Callable
from typing import Any

from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.server_common.server.util.scheduler import ScheduledFuture, Scheduler


class MockTask:
    def __init__(self, name: str, task: Callable[[], None], next_execution: int, period: int, time: Time) -> None:
        self.name = name
        self.task = task
        self._next_execution = next_execution
        self.period = period
        self.time = time

    def reschedule_if_periodic(self) -> bool:
        """A periodic task moves one period on (True); a one-off does not (False)."""
        if self._periodic():
            self._next_execution += self.period
            return True
        return False

    def next_execution(self) -> int:
        return self._next_execution

    def get_delay_ms(self) -> int:
        return self.time.milliseconds() - self.next_execution()

    # the rest of ScheduledFuture is not used by the tests, as in Kafka's mock
    def cancel(self, may_interrupt_if_running: bool = False) -> bool:
        return False

    def is_cancelled(self) -> bool:
        return False

    def is_done(self) -> bool:
        return False

    def get(self, timeout_ms: float | None = None) -> Any:
        return None

    def _periodic(self) -> bool:
        return self.period >= 0


class MockScheduler(Scheduler):
    def __init__(self, time: Time) -> None:
        self.time = time
        # ordered by next execution time; ties in the order they were queued
        self._tasks: list[tuple[int, int, MockTask]] = []
        self._sequence = itertools.count()
        self._lock = threading.RLock()

    def startup(self) -> None:
        pass

    def schedule(self, name: str, task: Callable[[], None], delay_ms: int, period_ms: int) -> ScheduledFuture:
        mock_task = MockTask(name, task, self.time.milliseconds() + delay_ms, period_ms, self.time)
        self._add(mock_task)
        self.tick()
        return mock_task

    def shutdown(self) -> None:
        """Run every task still queued, once."""
        while (current_task := self._poll(lambda t: True)) is not None:
            current_task.task()

    def resize_thread_pool(self, new_size: int) -> None:
        pass

    def tick(self) -> None:
        """Run every task due by now, in the caller's thread; a periodic one is queued again a period later."""
        now = self.time.milliseconds()
        while (current_task := self._poll(lambda t: t.next_execution() <= now)) is not None:
            current_task.task()
            if current_task.reschedule_if_periodic():
                self._add(current_task)

    def clear(self) -> None:
        with self._lock:
            self._tasks.clear()

    def _poll(self, predicate: Callable[[MockTask], bool]) -> MockTask | None:
        with self._lock:
            if self._tasks and predicate(self._tasks[0][2]):
                return heapq.heappop(self._tasks)[2]
            return None

    def _add(self, task: MockTask) -> None:
        with self._lock:
            heapq.heappush(self._tasks, (task.next_execution(), next(self._sequence), task))
