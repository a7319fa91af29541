"""Port of server-common/src/test/java/org/apache/kafka/server/util/timer/TimerTest.java (Kafka 3.9).

A SystemTimer with 1 ms ticks and wheels of 3 buckets, so the tasks of testTaskExpiration (due in up to 500 ms) go
through several overflow wheels; the test thread advances the clock itself, as Kafka's does.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from kafka_edu.v1_0_2.core.utils.concurrent import AtomicBoolean, CountDownLatch
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM
from kafka_edu.v3_9.server_common.server.util.timer.system_timer import SystemTimer
from kafka_edu.v3_9.server_common.server.util.timer.timer_task import TimerTask
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import wait_until_true

KAFKA = kafka_test_class(
    "3.9", "server-common/src/test/java/org/apache/kafka/server/util/timer/TimerTest.java",
    cases=["testAlreadyExpiredTask", "testTaskExpiration"],
)


class _TestTask(TimerTask):
    def __init__(self, delay_ms: int, id_: int, latch: CountDownLatch, output: list[int],
                 output_lock: threading.Lock) -> None:
        super().__init__(delay_ms)
        self.id = id_
        self.latch = latch
        self.output = output
        self.output_lock = output_lock
        self.completed = AtomicBoolean(False)

    def run(self) -> None:
        if self.completed.compare_and_set(False, True):
            with self.output_lock:
                self.output.append(self.id)
            self.latch.count_down()


@pytest.fixture
def timer() -> Iterator[SystemTimer]:
    timer = SystemTimer("test", 1, 3, SYSTEM.hi_res_clock_ms())
    yield timer
    timer.close()
    wait_until_true(timer.is_terminated, "timer executor not terminated")


def test_already_expired_task(timer: SystemTimer) -> None:
    output: list[int] = []
    output_lock = threading.Lock()

    latches = []
    for i in range(-5, 0):
        latch = CountDownLatch(1)
        timer.add(_TestTask(i, i, latch, output, output_lock))
        latches.append(latch)

    timer.advance_clock(0)

    for latch in latches[:5]:
        assert latch.await_(3), "already expired tasks should run immediately"

    assert set(output) == {-5, -4, -3, -2, -1}, "output of already expired tasks"


def test_task_expiration(timer: SystemTimer) -> None:
    output: list[int] = []
    output_lock = threading.Lock()
    tasks: list[_TestTask] = []
    ids: list[int] = []
    latches: list[CountDownLatch] = []

    for i in range(0, 5):
        latch = CountDownLatch(1)
        tasks.append(_TestTask(i, i, latch, output, output_lock))
        ids.append(i)
        latches.append(latch)

    for i in range(10, 100):
        latch = CountDownLatch(2)
        tasks.append(_TestTask(i, i, latch, output, output_lock))
        tasks.append(_TestTask(i, i, latch, output, output_lock))
        ids.append(i)
        ids.append(i)
        latches.append(latch)

    for i in range(100, 500):
        latch = CountDownLatch(1)
        tasks.append(_TestTask(i, i, latch, output, output_lock))
        ids.append(i)
        latches.append(latch)

    for task in tasks:
        timer.add(task)

    while timer.advance_clock(2000):
        pass

    for latch in latches:
        latch.await_()

    assert sorted(output) == ids, "output should match"
