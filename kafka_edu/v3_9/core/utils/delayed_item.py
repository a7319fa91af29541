"""Port of core/src/main/scala/kafka/utils/DelayedItem.scala (Kafka 3.9): something due `delay_ms` after its
creation, on the system clock."""

from __future__ import annotations

from kafka_edu.v3_9.clients.common.utils.time import SYSTEM


class DelayedItem:
    def __init__(self, delay_ms: int) -> None:
        self.delay_ms = delay_ms
        self._due_ms = SYSTEM.milliseconds() + delay_ms

    def get_delay(self) -> int:
        """The milliseconds left until due, never negative (Kafka's getDelay(TimeUnit.MILLISECONDS))."""
        return max(self._due_ms - SYSTEM.milliseconds(), 0)

    def compare_to(self, other: DelayedItem) -> int:
        return (self._due_ms > other._due_ms) - (self._due_ms < other._due_ms)

    def __lt__(self, other: DelayedItem) -> bool:
        return self._due_ms < other._due_ms
