"""Port of clients/src/main/java/org/apache/kafka/common/utils/Timer.java (Kafka 3.9), as the raft states use it."""

from __future__ import annotations

LONG_MAX = 2**63 - 1


class Timer:
    """A deadline that moves only when told the time: `update(now)`, then `is_expired()` / `remaining_ms()`."""

    def __init__(self, current_time_ms: int, timeout_ms: int) -> None:
        self._current_time_ms = current_time_ms
        self._start_ms = current_time_ms
        self._deadline_ms = current_time_ms
        self._timeout_ms = 0
        self.reset(timeout_ms)

    def is_expired(self) -> bool:
        return self._current_time_ms >= self._deadline_ms

    def reset(self, timeout_ms: int) -> None:
        if timeout_ms < 0:
            raise ValueError(f"Invalid negative timeout {timeout_ms}")
        self._timeout_ms = timeout_ms
        self._start_ms = self._current_time_ms
        self._deadline_ms = min(LONG_MAX, self._current_time_ms + timeout_ms)

    def update(self, current_time_ms: int) -> None:
        self._current_time_ms = max(current_time_ms, self._current_time_ms)

    def remaining_ms(self) -> int:
        return max(0, self._deadline_ms - self._current_time_ms)

    def elapsed_ms(self) -> int:
        return self._current_time_ms - self._start_ms

    def timeout_ms(self) -> int:
        return self._timeout_ms

    def deadline_ms(self) -> int:
        return self._deadline_ms
