"""Port of clients/src/main/java/org/apache/kafka/common/utils/Time.java and SystemTime.java (Kafka 3.9): the clock
Kafka's classes take in their constructors, so that a test can hand them a MockTime instead."""

from __future__ import annotations

import time as _time
from typing import Protocol, runtime_checkable


@runtime_checkable
class Time(Protocol):
    """A wall clock in milliseconds, a monotonic clock in nanoseconds, and a sleep on the same time."""

    def milliseconds(self) -> int: ...

    def nanoseconds(self) -> int: ...

    def sleep(self, ms: int) -> None: ...


class SystemTime:
    """Time.SYSTEM: the real clocks."""

    def milliseconds(self) -> int:
        return _time.time_ns() // 1_000_000

    def nanoseconds(self) -> int:
        return _time.monotonic_ns()

    def hi_res_clock_ms(self) -> int:
        return self.nanoseconds() // 1_000_000

    def sleep(self, ms: int) -> None:
        _time.sleep(ms / 1000)


SYSTEM = SystemTime()
