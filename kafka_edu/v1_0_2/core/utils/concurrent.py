"""The java.util.concurrent types KafkaServer's lifecycle is built on (AtomicBoolean, CountDownLatch), and
AtomicInteger."""

from __future__ import annotations

import threading


class AtomicBoolean:
    def __init__(self, value: bool = False) -> None:
        self._value = value
        self._lock = threading.Lock()

    def get(self) -> bool:
        return self._value

    def set(self, value: bool) -> None:
        with self._lock:
            self._value = value

    def compare_and_set(self, expect: bool, update: bool) -> bool:
        with self._lock:
            if self._value != expect:
                return False
            self._value = update
            return True


class CountDownLatch:
    def __init__(self, count: int) -> None:
        self._count = count
        self._cond = threading.Condition()

    @property
    def count(self) -> int:
        return self._count

    def count_down(self) -> None:
        with self._cond:
            if self._count > 0:
                self._count -= 1
                if self._count == 0:
                    self._cond.notify_all()

    def await_(self, timeout: float | None = None) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: self._count == 0, timeout)


class AtomicInteger:
    """java.util.concurrent.atomic.AtomicInteger (and AtomicLong: Python's int has no width)."""

    def __init__(self, value: int = 0) -> None:
        self._value = value
        self._lock = threading.Lock()

    def get(self) -> int:
        return self._value

    def set(self, value: int) -> None:
        with self._lock:
            self._value = value

    def get_and_set(self, value: int) -> int:
        with self._lock:
            previous, self._value = self._value, value
            return previous

    def increment_and_get(self) -> int:
        with self._lock:
            self._value += 1
            return self._value

    def decrement_and_get(self) -> int:
        with self._lock:
            self._value -= 1
            return self._value
