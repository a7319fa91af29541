"""Port of core/src/test/scala/unit/kafka/utils/SchedulerTest.scala (Kafka 3.9): server-common's KafkaScheduler and
MockScheduler (the scheduler of server-common's MockTime).

Java's AtomicInteger counters are `_Counter`; CountDownLatch is threading.Event (latches of one) and a small
countdown for the completion latch. The five-millisecond pause of the non-periodic cases is Kafka's too: it only
gives a wrongly repeated task the chance to run again before the count is checked, nothing waits on it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from kafka_edu.v3_9.server_common.server.util.kafka_scheduler import KafkaScheduler
from kafka_edu.v3_9.server_common.server.util.mock_time import MockTime
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import retry

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/utils/SchedulerTest.scala",
    cases=[
        "testMockSchedulerNonPeriodicTask",
        "testMockSchedulerPeriodicTask",
        "testReentrantTaskInMockScheduler",
        "testNonPeriodicTask",
        "testNonPeriodicTaskWhenPeriodIsZero",
        "testPeriodicTask",
        "testRestart",
        "testUnscheduleProducerTask",
        "testMockSchedulerLocking",
    ],
    not_ported={
        "testUnscheduleProducerTask": "3.9's UnifiedLog, LocalLog, LogLoader and ProducerStateManager (the 3.9 log "
                                      "is not ported yet)",
    },
)


class _Counter:
    """AtomicInteger."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._value = 0

    def get_and_increment(self) -> int:
        with self._lock:
            value = self._value
            self._value += 1
            return value

    def get(self) -> int:
        with self._lock:
            return self._value


@pytest.fixture
def scheduler() -> Iterator[KafkaScheduler]:
    kafka_scheduler = KafkaScheduler(1)
    kafka_scheduler.startup()
    yield kafka_scheduler
    kafka_scheduler.shutdown()


@pytest.fixture
def mock_time() -> MockTime:
    return MockTime()


@pytest.fixture
def counter1() -> _Counter:
    return _Counter()


@pytest.fixture
def counter2() -> _Counter:
    return _Counter()


def test_mock_scheduler_non_periodic_task(mock_time: MockTime, counter1: _Counter, counter2: _Counter) -> None:
    mock_time.scheduler.schedule_once("test1", counter1.get_and_increment, 1)
    mock_time.scheduler.schedule_once("test2", counter2.get_and_increment, 100)
    assert counter1.get() == 0, "Counter1 should not be incremented prior to task running."
    assert counter2.get() == 0, "Counter2 should not be incremented prior to task running."
    mock_time.sleep(1)
    assert counter1.get() == 1, "Counter1 should be incremented"
    assert counter2.get() == 0, "Counter2 should not be incremented"
    mock_time.sleep(100000)
    assert counter1.get() == 1, "More sleeping should not result in more incrementing on counter1."
    assert counter2.get() == 1, "Counter2 should now be incremented."


def test_mock_scheduler_periodic_task(mock_time: MockTime, counter1: _Counter, counter2: _Counter) -> None:
    mock_time.scheduler.schedule("test1", counter1.get_and_increment, 1, 1)
    mock_time.scheduler.schedule("test2", counter2.get_and_increment, 100, 100)
    assert counter1.get() == 0, "Counter1 should not be incremented prior to task running."
    assert counter2.get() == 0, "Counter2 should not be incremented prior to task running."
    mock_time.sleep(1)
    assert counter1.get() == 1, "Counter1 should be incremented"
    assert counter2.get() == 0, "Counter2 should not be incremented"
    mock_time.sleep(100)
    assert counter1.get() == 101, "Counter1 should be incremented 101 times"
    assert counter2.get() == 1, "Counter2 should not be incremented once"


def test_reentrant_task_in_mock_scheduler(mock_time: MockTime, counter2: _Counter) -> None:
    mock_time.scheduler.schedule_once(
        "test1", lambda: mock_time.scheduler.schedule_once("test2", counter2.get_and_increment, 0), 1)
    mock_time.sleep(1)
    assert counter2.get() == 1


def test_non_periodic_task(scheduler: KafkaScheduler, counter1: _Counter) -> None:
    scheduler.schedule_once("test", counter1.get_and_increment)

    def ran_once() -> None:
        assert counter1.get() == 1
    retry(30000, ran_once)
    time.sleep(0.005)
    assert counter1.get() == 1, "Should only run once"


def test_non_periodic_task_when_period_is_zero(scheduler: KafkaScheduler, counter1: _Counter) -> None:
    scheduler.schedule("test", counter1.get_and_increment, 0, 0)

    def ran_once() -> None:
        assert counter1.get() == 1
    retry(30000, ran_once)
    time.sleep(0.005)
    assert counter1.get() == 1, "Should only run once"


def test_periodic_task(scheduler: KafkaScheduler, counter1: _Counter) -> None:
    scheduler.schedule("test", counter1.get_and_increment, 0, 5)

    def counted_to_20() -> None:
        assert counter1.get() >= 20, "Should count to 20"
    retry(30000, counted_to_20)


def test_restart(mock_time: MockTime, counter1: _Counter) -> None:
    mock_time.scheduler.schedule_once("test1", counter1.get_and_increment, 1)
    mock_time.sleep(1)
    assert counter1.get() == 1

    mock_time.scheduler.shutdown()
    mock_time.scheduler.startup()

    # a task scheduled after the restart runs too
    mock_time.scheduler.schedule_once("test1", counter1.get_and_increment, 1)
    mock_time.sleep(1)
    assert counter1.get() == 2


def test_mock_scheduler_locking(mock_time: MockTime) -> None:
    # the scheduler's lock is not held while a task runs, so a task may be scheduled meanwhile: otherwise a task
    # waiting for a lock would deadlock with the thread that holds the lock and schedules a task
    init_latch = threading.Event()
    completion = threading.Semaphore(0)
    task_latches = [threading.Event(), threading.Event()]

    def scheduled_task(task_latch: threading.Event) -> None:
        init_latch.set()
        assert task_latch.wait(30), "Timed out waiting for latch"
        completion.release()

    mock_time.scheduler.schedule_once("test1", lambda: scheduled_task(task_latches[0]), 1)
    stop = threading.Event()

    def tick() -> None:
        # scheduleWithFixedDelay(mockTime.sleep(1), 0, 1 ms)
        while not stop.is_set():
            mock_time.sleep(1)
            stop.wait(0.001)
    tick_executor = threading.Thread(target=tick, name="tick-executor", daemon=True)
    tick_executor.start()
    try:
        # while the first task runs, schedule the next one
        assert init_latch.wait(10)
        mock_time.scheduler.schedule_once("test2", lambda: scheduled_task(task_latches[1]), 1)

        for latch in task_latches:
            latch.set()
        deadline = time.monotonic() + 10
        assert all(completion.acquire(timeout=max(0.0, deadline - time.monotonic())) for _ in range(2)), \
            "Tasks did not complete"
    finally:
        stop.set()
        tick_executor.join()
