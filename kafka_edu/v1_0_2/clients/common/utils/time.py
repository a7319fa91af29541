"""Port of clients/src/main/java/org/apache/kafka/common/utils/Time.java and SystemTime.java (Kafka 1.0.2): the clock
Kafka's classes take as a constructor argument, so that a test can hand them a MockTime instead of the system's."""

from __future__ import annotations

import time
from typing import Protocol


class Time(Protocol):
    def milliseconds(self) -> int: ...

    def nanoseconds(self) -> int: ...

    def sleep(self, ms: int) -> None: ...


class SystemTime:
    """Time.SYSTEM: wall-clock milliseconds, a monotonic nanosecond clock."""

    def milliseconds(self) -> int:
        return time.time_ns() // 1_000_000

    def nanoseconds(self) -> int:
        return time.monotonic_ns()

    def hi_res_clock_ms(self) -> int:
        return time.monotonic_ns() // 1_000_000

    def sleep(self, ms: int) -> None:
        time.sleep(ms / 1000)


SYSTEM: Time = SystemTime()
