"""Port of server-common/src/main/java/org/apache/kafka/server/util/timer/Timer.java (Kafka 3.9): what a purgatory
needs of a timer: add a task, advance the clock, count the pending tasks, close."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kafka_edu.v3_9.server_common.server.util.timer.timer_task import TimerTask


class Timer(ABC):
    @abstractmethod
    def add(self, timer_task: TimerTask) -> None:
        """Run `timer_task` once its delay has passed."""

    @abstractmethod
    def advance_clock(self, timeout_ms: int) -> bool:
        """Let the internal clock catch up with the expired buckets, waiting up to `timeout_ms` for one; True if a
        bucket was flushed."""

    @abstractmethod
    def size(self) -> int:
        """The number of pending tasks."""

    @abstractmethod
    def close(self) -> None:
        """Shut down the timer; tasks still pending are not run."""

    def __enter__(self) -> Timer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
