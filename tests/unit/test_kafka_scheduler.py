"""KafkaScheduler: named threads running delayed and periodic tasks, stopped by shutdown."""

from __future__ import annotations

import threading

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.core.utils.kafka_scheduler import KafkaScheduler


def test_periodic_and_one_shot_tasks_run_on_named_threads():
    scheduler = KafkaScheduler(2, thread_name_prefix="test-scheduler-")
    scheduler.startup()
    runs: list[str] = []
    done = threading.Event()

    def periodic() -> None:
        runs.append(threading.current_thread().name)
        if len(runs) == 3:
            done.set()

    once = threading.Event()
    scheduler.schedule("periodic", periodic, delay=0, period=10)
    scheduler.schedule("once", once.set, delay=5)
    assert done.wait(5) and once.wait(5)
    scheduler.shutdown()
    assert all(name.startswith("test-scheduler-") for name in runs)
    count = len(runs)
    assert not scheduler.is_started
    assert len(runs) == count  # nothing runs after shutdown returns


def test_a_failing_task_does_not_stop_the_scheduler():
    scheduler = KafkaScheduler(1)
    scheduler.startup()
    ran = threading.Event()
    scheduler.schedule("boom", lambda: 1 / 0)
    scheduler.schedule("after", ran.set, delay=1)
    assert ran.wait(5)
    scheduler.shutdown()


def test_lifecycle_errors_are_kafkas():
    scheduler = KafkaScheduler(1)
    with pytest.raises(IllegalStateException):
        scheduler.schedule("too-early", lambda: None)
    scheduler.startup()
    with pytest.raises(IllegalStateException):
        scheduler.startup()
    scheduler.shutdown()
    scheduler.shutdown()  # a second shutdown is a no-op, as in Kafka
