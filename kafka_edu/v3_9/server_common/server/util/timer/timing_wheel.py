"""Port of server-common/src/main/java/org/apache/kafka/server/util/timer/TimingWheel.java (Kafka 3.9): a
hierarchical timing wheel. `wheel_size` buckets of `tick_ms` each cover `interval` = tick_ms * wheel_size; a task
due beyond that goes to an overflow wheel whose tick is this wheel's interval, created on demand. Inserting and
removing are O(1); only the buckets (not the tasks) sit in the DelayQueue that drives the clock."""

from __future__ import annotations

import threading

from kafka_edu.v1_0_2.core.utils.concurrent import AtomicInteger
from kafka_edu.v3_9.server_common.server.util.timer.delay_queue import DelayQueue
from kafka_edu.v3_9.server_common.server.util.timer.timer_task_entry import TimerTaskEntry
from kafka_edu.v3_9.server_common.server.util.timer.timer_task_list import TimerTaskList


class TimingWheel:
    def __init__(self, tick_ms: int, wheel_size: int, start_ms: int, task_counter: AtomicInteger,
                 queue: DelayQueue[TimerTaskList]) -> None:
        self._tick_ms = tick_ms
        self._wheel_size = wheel_size
        self._task_counter = task_counter
        self._queue = queue
        self._interval = tick_ms * wheel_size
        # rounded down to a multiple of tick_ms
        self._current_time_ms = start_ms - (start_ms % tick_ms)
        self._buckets = [TimerTaskList(task_counter) for _ in range(wheel_size)]
        # add() may create it from two threads at once
        self._overflow_wheel: TimingWheel | None = None
        self._overflow_lock = threading.Lock()

    def _add_overflow_wheel(self) -> None:
        with self._overflow_lock:
            if self._overflow_wheel is None:
                self._overflow_wheel = TimingWheel(self._interval, self._wheel_size, self._current_time_ms,
                                                   self._task_counter, self._queue)

    def add(self, timer_task_entry: TimerTaskEntry) -> bool:
        """Put the entry in its bucket; False if it is cancelled or already expired (the caller runs it then)."""
        expiration = timer_task_entry.expiration_ms

        if timer_task_entry.cancelled():
            return False
        elif expiration < self._current_time_ms + self._tick_ms:
            return False  # already expired
        elif expiration < self._current_time_ms + self._interval:
            virtual_id = expiration // self._tick_ms
            bucket = self._buckets[virtual_id % self._wheel_size]
            bucket.add(timer_task_entry)

            # The expiration changes only when the wheel has moved on and this bucket is reused, so a bucket is
            # queued once per round however many entries it takes.
            if bucket.set_expiration(virtual_id * self._tick_ms):
                self._queue.offer(bucket)
            return True
        else:
            # beyond this wheel's interval: the overflow wheel takes it
            if self._overflow_wheel is None:
                self._add_overflow_wheel()
            return self._overflow_wheel.add(timer_task_entry)

    def advance_clock(self, time_ms: int) -> None:
        if time_ms >= self._current_time_ms + self._tick_ms:
            self._current_time_ms = time_ms - (time_ms % self._tick_ms)

            if self._overflow_wheel is not None:
                self._overflow_wheel.advance_clock(self._current_time_ms)
