"""Port of server-common/src/main/java/org/apache/kafka/server/util/timer/TimerTaskList.java (Kafka 3.9): one bucket
of a timing wheel, a circular doubly linked list of entries that expire together, queued by its expiration."""

from __future__ import annotations

import threading
from collections.abc import Callable

from kafka_edu.v1_0_2.core.utils.concurrent import AtomicInteger
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM, Time
from kafka_edu.v3_9.server_common.server.util.timer.timer_task import TimerTask
from kafka_edu.v3_9.server_common.server.util.timer.timer_task_entry import TimerTaskEntry


class TimerTaskList:
    def __init__(self, task_counter: AtomicInteger, time: Time = SYSTEM) -> None:
        self._time = time
        self._task_counter = task_counter
        self._expiration = AtomicInteger(-1)  # Java's AtomicLong
        self._lock = threading.RLock()  # Java's `synchronized (this)`
        # a dummy root: root.next is the head, root.prev the tail
        self._root = TimerTaskEntry(None, -1)
        self._root.next = self._root
        self._root.prev = self._root

    def set_expiration(self, expiration_ms: int) -> bool:
        """Set the bucket's expiration; True if it changed (the bucket must then be queued again)."""
        return self._expiration.get_and_set(expiration_ms) != expiration_ms

    def get_expiration(self) -> int:
        return self._expiration.get()

    def foreach(self, f: Callable[[TimerTask], object]) -> None:
        """Apply `f` to each task not cancelled."""
        with self._lock:
            entry = self._root.next
            while entry is not self._root:
                next_entry = entry.next
                if not entry.cancelled():
                    f(entry.timer_task)
                entry = next_entry

    def add(self, timer_task_entry: TimerTaskEntry) -> None:
        done = False
        while not done:
            # take the entry out of any other list first, outside this list's lock so two lists cannot deadlock;
            # retry until it sits in none
            timer_task_entry.remove()

            with self._lock, timer_task_entry._lock:
                if timer_task_entry.list is None:
                    tail = self._root.prev
                    timer_task_entry.next = self._root
                    timer_task_entry.prev = tail
                    timer_task_entry.list = self
                    tail.next = timer_task_entry
                    self._root.prev = timer_task_entry
                    self._task_counter.increment_and_get()
                    done = True

    def remove(self, timer_task_entry: TimerTaskEntry) -> None:
        with self._lock, timer_task_entry._lock:
            if timer_task_entry.list is self:
                timer_task_entry.next.prev = timer_task_entry.prev
                timer_task_entry.prev.next = timer_task_entry.next
                timer_task_entry.next = None
                timer_task_entry.prev = None
                timer_task_entry.list = None
                self._task_counter.decrement_and_get()

    def flush(self, f: Callable[[TimerTaskEntry], object]) -> None:
        """Remove every entry and hand it to `f` (the timer re-inserts it or runs it); the bucket is reusable after."""
        with self._lock:
            head = self._root.next
            while head is not self._root:
                self.remove(head)
                f(head)
                head = self._root.next
            self._expiration.set(-1)

    def get_delay(self) -> int:
        """Milliseconds until the bucket expires, never negative (Java's getDelay(TimeUnit.MILLISECONDS))."""
        return max(self.get_expiration() - self._time.hi_res_clock_ms(), 0)

    def compare_to(self, other: TimerTaskList) -> int:
        return (self.get_expiration() > other.get_expiration()) - (self.get_expiration() < other.get_expiration())

    def __lt__(self, other: TimerTaskList) -> bool:
        return self.compare_to(other) < 0
