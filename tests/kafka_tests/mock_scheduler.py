"""Port of core/src/test/scala/unit/kafka/utils/MockScheduler.scala and core's kafka.utils.MockTime (Kafka 1.0.2):
a scheduler that runs its tasks in the caller's thread when the mock clock reaches them, and the core MockTime that
owns one and ticks it on every `sleep`. A task due at exactly the new time runs (as if running took no time)."""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime


@dataclass(order=True)
class MockTask:
    """MockTask: ordered by its next execution time; ties run in the order they were scheduled."""

    next_execution: int
    sequence: int
    name: str = field(compare=False)
    fun: Callable[[], None] = field(compare=False)
    period: int = field(compare=False, default=-1)

    @property
    def periodic(self) -> bool:
        return self.period >= 0


class MockScheduler:
    """kafka.utils.MockScheduler(time): the KafkaScheduler interface, driven by `tick`."""

    def __init__(self, time: MockTime) -> None:
        self.time = time
        self.tasks: list[MockTask] = []
        self._sequence = itertools.count()
        self._lock = threading.RLock()

    @property
    def is_started(self) -> bool:
        return True

    def startup(self) -> None:
        pass

    def shutdown(self) -> None:
        """Run every pending task once, then forget them."""
        with self._lock:
            for task in sorted(self.tasks):
                task.fun()
            self.tasks.clear()

    def tick(self) -> None:
        """Run, in the caller's thread, every task due by now; a periodic one is queued again one period later."""
        with self._lock:
            now = self.time.milliseconds()
            while self.tasks and self.tasks[0].next_execution <= now:
                current = heapq.heappop(self.tasks)
                current.fun()
                if current.periodic:
                    current.next_execution += current.period
                    current.sequence = next(self._sequence)
                    heapq.heappush(self.tasks, current)

    def schedule(self, name: str, fun: Callable[[], None], delay: float = 0, period: float = -1) -> None:
        with self._lock:
            heapq.heappush(self.tasks, MockTask(self.time.milliseconds() + int(delay), next(self._sequence), name,
                                                fun, int(period)))
            self.tick()


class MockTimeWithScheduler(MockTime):
    """kafka.utils.MockTime(currentTimeMs, currentHiResTimeNs): the clients' MockTime without auto-tick, plus
    `scheduler`, a MockScheduler ticked after every sleep."""

    def __init__(self, current_time_ms: int | None = None, current_high_res_time_ns: int | None = None) -> None:
        super().__init__(0, current_time_ms, current_high_res_time_ns)
        self.scheduler = MockScheduler(self)

    def sleep(self, ms: int) -> None:
        super().sleep(ms)
        self.scheduler.tick()
