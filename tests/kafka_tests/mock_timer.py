"""Port of core/src/test/scala/unit/kafka/utils/timer/MockTimer.scala (Kafka 1.0.2): a Timer whose tasks run, in the
caller's thread, when a test advances its clock past their expiration. Its `time` is core's kafka.utils.MockTime
(tests.kafka_tests.mock_scheduler.MockTimeWithScheduler)."""

from __future__ import annotations

import heapq
import itertools
import threading
from dataclasses import dataclass, field
from typing import Any

from tests.kafka_tests.mock_scheduler import MockTimeWithScheduler


@dataclass(order=True)
class TimerTaskEntry:
    """TimerTaskEntry(timerTask, expirationMs): ordered by expiration; ties in the order they were added."""

    expiration_ms: int
    sequence: int
    timer_task: Any = field(compare=False)

    @property
    def cancelled(self) -> bool:
        """A TimerTask is cancelled when its operation completed first (DelayedOperation.forceComplete cancels it);
        the port's DelayedOperation has no cancel, so a completed one stands for a cancelled entry."""
        return bool(getattr(self.timer_task, "is_completed", False))


class MockTimer:
    """kafka.utils.timer.MockTimer: `add(task)` runs a task due now at once, queues the others; `advance_clock(ms)`
    moves `time` on and runs every queued task whose expiration is now in the past."""

    def __init__(self) -> None:
        self.time = MockTimeWithScheduler()
        self._task_queue: list[TimerTaskEntry] = []
        self._sequence = itertools.count()
        self._lock = threading.RLock()

    def add(self, timer_task: Any) -> None:
        """`timer_task` has `delay_ms` and `run()` (a DelayedOperation)."""
        if timer_task.delay_ms <= 0:
            timer_task.run()
        else:
            with self._lock:
                heapq.heappush(self._task_queue, TimerTaskEntry(timer_task.delay_ms + self.time.milliseconds(),
                                                                next(self._sequence), timer_task))

    def advance_clock(self, timeout_ms: int) -> bool:
        self.time.sleep(timeout_ms)
        executed = False
        now = self.time.milliseconds()
        while True:
            with self._lock:
                if not self._task_queue or not now > self._task_queue[0].expiration_ms:
                    break
                task_entry = heapq.heappop(self._task_queue)
            if not task_entry.cancelled:
                task_entry.timer_task.run()
                executed = True
        return executed

    @property
    def size(self) -> int:
        with self._lock:
            return len(self._task_queue)

    def shutdown(self) -> None:
        pass
