"""The clock a span's times are read from, when it is not the wall clock.

A process that traces Kafka's code on a clock of its own (the raft simulation drives a MockTime: a poll at simulated
time t is a span at t) hands `setup_tracing`/`node_tracing` a `SpanClock`. Many steps run within one tick of a
simulated clock; the span clock gives each reading its own nanosecond after the last, so spans keep the order they
ran in and a span that ends is never drawn before it began.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class SpanClock:
    """Nanoseconds since the epoch from `source` (a callable, e.g. a simulated clock's milliseconds × 10⁶), never
    the same twice and never going back: a reading at or before the last one is the last one plus 1 ns."""

    def __init__(self, source: Callable[[], int]) -> None:
        self._source = source
        self._last = 0
        self._lock = threading.Lock()

    def __call__(self) -> int:
        now = self._source()
        with self._lock:
            self._last = now if now > self._last else self._last + 1
            return self._last
