"""Port of server-common/src/main/java/org/apache/kafka/server/util/timer/TimerTask.java (Kafka 3.9): a Runnable
with a delay, held by at most one TimerTaskEntry of a timing wheel at a time."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kafka_edu.v3_9.server_common.server.util.timer.timer_task_entry import TimerTaskEntry


class TimerTask(ABC):
    def __init__(self, delay_ms: int) -> None:
        self._timer_task_entry: TimerTaskEntry | None = None
        self.delay_ms = delay_ms  # in milliseconds
        # Java's `synchronized (this)`; named apart from `lock`, which DelayedOperation uses for its own lock
        self._timer_task_lock = threading.RLock()

    @abstractmethod
    def run(self) -> None: ...

    def cancel(self) -> None:
        with self._timer_task_lock:
            if self._timer_task_entry is not None:
                self._timer_task_entry.remove()
            self._timer_task_entry = None

    def is_cancelled(self) -> bool:
        return self._timer_task_entry is None

    def set_timer_task_entry(self, entry: TimerTaskEntry) -> None:
        with self._timer_task_lock:
            # a task lives in one entry only: a new entry evicts the old one from its list
            if self._timer_task_entry is not None and self._timer_task_entry is not entry:
                self._timer_task_entry.remove()
            self._timer_task_entry = entry

    def get_timer_task_entry(self) -> TimerTaskEntry | None:
        return self._timer_task_entry
