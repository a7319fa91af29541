"""The part of java.util.concurrent.DelayQueue that SystemTimer and TimingWheel (server-common, Kafka 3.9) use: a
heap of delayed elements (TimerTaskLists) ordered by expiration, from which only an element whose delay has run out
can be taken. Not a Kafka class; a condition wakes a waiting `poll` when an earlier element is offered."""

from __future__ import annotations

import heapq
import threading
import time
from typing import Generic, Protocol, TypeVar


class Delayed(Protocol):
    """java.util.concurrent.Delayed: milliseconds left (never negative), ordered by expiration."""

    def get_delay(self) -> int: ...

    def __lt__(self, other: object) -> bool: ...


E = TypeVar("E", bound=Delayed)


class DelayQueue(Generic[E]):
    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._heap: list[E] = []

    def offer(self, e: E) -> bool:
        with self._lock:
            heapq.heappush(self._heap, e)
            if self._heap[0] is e:
                # a new head: the waiting poll must look at its (shorter) delay
                self._lock.notify_all()
            return True

    def poll(self, timeout_ms: int | None = None) -> E | None:
        """The head if its delay has run out. Without a timeout, None at once otherwise; with one, wait up to
        `timeout_ms` for an element to expire."""
        deadline = None if timeout_ms is None else time.monotonic() + max(timeout_ms, 0) / 1000
        with self._lock:
            while True:
                delay_ms = None
                if self._heap:
                    delay_ms = self._heap[0].get_delay()
                    if delay_ms <= 0:
                        e = heapq.heappop(self._heap)
                        if self._heap:
                            self._lock.notify_all()  # another poller may take the next one
                        return e
                if deadline is None:
                    return None
                remaining_s = deadline - time.monotonic()
                if remaining_s <= 0:
                    return None
                self._lock.wait(remaining_s if delay_ms is None else min(remaining_s, delay_ms / 1000))

    def size(self) -> int:
        with self._lock:
            return len(self._heap)
