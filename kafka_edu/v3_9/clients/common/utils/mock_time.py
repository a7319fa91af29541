"""Port of clients/src/test/java/org/apache/kafka/common/utils/MockTime.java (Kafka 3.9; 1.0.2's is the same clock):
the time Kafka's tests drive by hand. It moves only on `sleep` (and by `auto_tick_ms` on each reading), so a test
steps through timeouts without waiting for them."""

from __future__ import annotations

import threading
import time

NS_PER_MS = 1_000_000


class MockTime:
    """MockTime(autoTickMs, currentTimeMs, currentHighResTimeNs); MockTime() starts at the wall clock."""

    def __init__(self, auto_tick_ms: int = 0, current_time_ms: int | None = None,
                 current_high_res_time_ns: int | None = None) -> None:
        self._lock = threading.Lock()
        self.auto_tick_ms = auto_tick_ms
        self.time_ms = int(time.time() * 1000) if current_time_ms is None else current_time_ms
        self.high_res_time_ns = time.monotonic_ns() if current_high_res_time_ns is None else current_high_res_time_ns
        self._listeners: list = []  # MockTime.Listener: anything with on_time_updated(), told after each move

    def add_listener(self, listener) -> None:  # noqa: ANN001
        self._listeners.append(listener)

    def _tick(self) -> None:
        for listener in list(self._listeners):
            listener.on_time_updated()

    def milliseconds(self) -> int:
        self._maybe_sleep(self.auto_tick_ms)
        with self._lock:
            return self.time_ms

    def nanoseconds(self) -> int:
        self._maybe_sleep(self.auto_tick_ms)
        with self._lock:
            return self.high_res_time_ns

    def hi_res_clock_ms(self) -> int:
        return self.nanoseconds() // NS_PER_MS

    def _maybe_sleep(self, ms: int) -> None:
        if ms != 0:
            self.sleep(ms)

    def sleep(self, ms: int) -> None:
        with self._lock:
            self.time_ms += ms
            self.high_res_time_ns += ms * NS_PER_MS
        self._tick()

    def set_current_time_ms(self, new_ms: int) -> None:
        with self._lock:
            if self.time_ms > new_ms:
                raise ValueError(f"Setting the time to {new_ms} while current time {self.time_ms} is newer; this is "
                                 "not allowed")
            self.time_ms = new_ms
            self.high_res_time_ns = new_ms * NS_PER_MS
        self._tick()
