"""Port of server-common/src/main/java/org/apache/kafka/server/util/Scheduler.java (Kafka 3.9): what a broker
component asks of a scheduler: run a task once after a delay, or periodically."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol


class ScheduledFuture(Protocol):
    """java.util.concurrent.ScheduledFuture: the handle `schedule` answers."""

    def cancel(self, may_interrupt_if_running: bool = False) -> bool: ...

    def is_cancelled(self) -> bool: ...

    def is_done(self) -> bool: ...

    def get(self, timeout_ms: float | None = None) -> Any: ...

    def get_delay_ms(self) -> int: ...


class Scheduler:
    """Jobs that repeat in the background, and delayed one-off actions."""

    def startup(self) -> None:
        """Get ready to accept tasks."""
        raise NotImplementedError

    def shutdown(self) -> None:
        """Stop: once it returns no task runs any more, delayed ones included."""
        raise NotImplementedError

    def schedule_once(self, name: str, task: Callable[[], None], delay_ms: int = 0) -> ScheduledFuture:
        return self.schedule(name, task, delay_ms, -1)

    def schedule(self, name: str, task: Callable[[], None], delay_ms: int, period_ms: int) -> ScheduledFuture:
        """Run `task` after `delay_ms`, then every `period_ms` if that is not negative."""
        raise NotImplementedError

    def resize_thread_pool(self, new_size: int) -> None:
        raise NotImplementedError
