"""Port of server-common/src/test/java/org/apache/kafka/server/util/timer/SystemTimerReaperTest.java (Kafka 3.9).

testReaperClose verifies with Mockito that closing the reaper closes the timer it drives; here a small recording
Timer stands in for the mock.
"""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import TimeoutException
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from kafka_edu.v3_9.server_common.server.util.timer.system_timer import SystemTimer
from kafka_edu.v3_9.server_common.server.util.timer.system_timer_reaper import SystemTimerReaper
from kafka_edu.v3_9.server_common.server.util.timer.timer import Timer
from kafka_edu.v3_9.server_common.server.util.timer.timer_task import TimerTask
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import DEFAULT_MAX_WAIT_MS, wait_until_true

KAFKA = kafka_test_class(
    "3.9", "server-common/src/test/java/org/apache/kafka/server/util/timer/SystemTimerReaperTest.java",
    cases=["testReaper", "testReaperClose"],
)


class _FutureTimerTask(TimerTask):
    def __init__(self, delay_ms: int) -> None:
        super().__init__(delay_ms)
        self.future: CompletableFuture = CompletableFuture()

    def run(self) -> None:
        self.future.complete_exceptionally(TimeoutException(
            f"Future failed to be completed before timeout of {self.delay_ms}Ms ms was reached"))


def _add(timer: Timer, delay_ms: int) -> CompletableFuture:
    task = _FutureTimerTask(delay_ms)
    timer.add(task)
    return task.future


def _assert_future_throws(future: CompletableFuture, exception_class: type[BaseException]) -> None:
    """TestUtils.assertFutureThrows: the future fails with `exception_class`."""
    exception = future.exception(timeout=DEFAULT_MAX_WAIT_MS / 1000)
    assert isinstance(exception, exception_class), exception


def test_reaper() -> None:
    with SystemTimerReaper("reaper", SystemTimer("timer")) as timer:
        t1 = _add(timer, 100)
        t2 = _add(timer, 200)
        t3 = _add(timer, 300)
        _assert_future_throws(t1, TimeoutException)
        _assert_future_throws(t2, TimeoutException)
        _assert_future_throws(t3, TimeoutException)


class _RecordingTimer(Timer):
    """Mockito.mock(Timer.class): every method does nothing and returns the default; `close` calls are counted."""

    def __init__(self) -> None:
        self.close_calls = 0

    def add(self, timer_task: TimerTask) -> None:
        pass

    def advance_clock(self, timeout_ms: int) -> bool:
        return False

    def size(self) -> int:
        return 0

    def close(self) -> None:
        self.close_calls += 1


def test_reaper_close() -> None:
    timer = _RecordingTimer()
    timer_reaper = SystemTimerReaper("reaper", timer)
    timer_reaper.close()
    assert timer.close_calls == 1
    wait_until_true(timer_reaper.is_shutdown, "reaper not shutdown")
