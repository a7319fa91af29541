"""Port of server-common/src/main/java/org/apache/kafka/server/util/timer/SystemTimerReaper.java (Kafka 3.9): a Timer
that drives another with its own reaper thread, advancing the clock every 200 ms at most."""

from __future__ import annotations

from kafka_edu.v3_9.server_common.server.util.shutdownable_thread import ShutdownableThread
from kafka_edu.v3_9.server_common.server.util.timer.timer import Timer
from kafka_edu.v3_9.server_common.server.util.timer.timer_task import TimerTask

WORK_TIMEOUT_MS = 200


class SystemTimerReaper(Timer):
    class Reaper(ShutdownableThread):
        def __init__(self, name: str, timer: Timer) -> None:
            super().__init__(name, is_interruptible=False,
                             logger_name="org.apache.kafka.server.util.timer.SystemTimerReaper$Reaper")
            self._timer = timer

        def do_work(self) -> None:
            # Java ignores an InterruptedException here; this thread is not interruptible
            self._timer.advance_clock(WORK_TIMEOUT_MS)

    def __init__(self, reaper_thread_name: str, timer: Timer) -> None:
        self._timer = timer
        self._reaper = SystemTimerReaper.Reaper(reaper_thread_name, timer)
        self._reaper.start()

    def add(self, timer_task: TimerTask) -> None:
        self._timer.add(timer_task)

    def advance_clock(self, timeout_ms: int) -> bool:
        return self._timer.advance_clock(timeout_ms)

    def size(self) -> int:
        return self._timer.size()

    def close(self) -> None:
        self._reaper.initiate_shutdown()
        # a due no-op wakes the reaper blocked in its poll, so the shutdown need not wait out the timeout
        self._timer.add(_NoOpTask(0))
        self._reaper.await_shutdown()
        self._timer.close()

    def is_shutdown(self) -> bool:
        """Visible for testing."""
        return self._reaper.is_shutdown_complete


class _NoOpTask(TimerTask):
    def run(self) -> None:
        pass
