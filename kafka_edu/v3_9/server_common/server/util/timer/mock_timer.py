"""Port of server-common/src/test/java/org/apache/kafka/server/util/timer/MockTimer.java (Kafka 3.9): a Timer on a
MockTime, for tests; `advance_clock(ms)` moves the mock clock and runs, on the caller's thread, what fell due."""

from __future__ import annotations

import heapq
import itertools
import threading

from kafka_edu.v3_9.server_common.server.util.mock_time import MockTime
from kafka_edu.v3_9.server_common.server.util.timer.timer import Timer
from kafka_edu.v3_9.server_common.server.util.timer.timer_task import TimerTask
from kafka_edu.v3_9.server_common.server.util.timer.timer_task_entry import TimerTaskEntry


class MockTimer(Timer):
    def __init__(self, time: MockTime | None = None) -> None:
        self._time = MockTime() if time is None else time
        # Java's PriorityQueue by expiration; the sequence keeps entries with the same expiration comparable
        self._task_queue: list[tuple[int, int, TimerTaskEntry]] = []
        self._sequence = itertools.count()
        self._lock = threading.Lock()

    def add(self, timer_task: TimerTask) -> None:
        if timer_task.delay_ms <= 0:
            timer_task.run()
        else:
            with self._lock:
                entry = TimerTaskEntry(timer_task, timer_task.delay_ms + self._time.milliseconds())
                heapq.heappush(self._task_queue, (entry.expiration_ms, next(self._sequence), entry))

    def advance_clock(self, timeout_ms: int) -> bool:
        self._time.sleep(timeout_ms)

        now = self._time.milliseconds()
        executed = False
        has_more = True

        while has_more:
            has_more = False
            task_entry = None

            with self._lock:
                if self._task_queue and now > self._task_queue[0][0]:
                    task_entry = heapq.heappop(self._task_queue)[2]
                    has_more = bool(self._task_queue)

            if task_entry is not None and not task_entry.cancelled():
                task_entry.timer_task.run()
                executed = True

        return executed

    def time(self) -> MockTime:
        return self._time

    def size(self) -> int:
        return len(self._task_queue)

    def task_queue(self) -> list[TimerTaskEntry]:
        """The pending entries, soonest first."""
        with self._lock:
            return [entry for _, _, entry in sorted(self._task_queue)]

    def close(self) -> None:
        pass
