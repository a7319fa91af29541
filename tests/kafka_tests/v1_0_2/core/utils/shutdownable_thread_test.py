"""Port of core/src/test/scala/unit/kafka/utils/ShutdownableThreadTest.scala (Kafka 1.0.2)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from kafka_edu.v1_0_2.clients.common.internals.fatal_exit_error import FatalExitError
from kafka_edu.v1_0_2.clients.common.utils.exit import Exit
from kafka_edu.v1_0_2.core.utils.shutdownable_thread import ShutdownableThread
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import wait_until_true

KAFKA = kafka_test_class(
    "1.0.2", "core/src/test/scala/unit/kafka/utils/ShutdownableThreadTest.scala",
    cases=["testShutdownWhenCalledAfterThreadStart"],
)


@pytest.fixture
def released() -> Iterator[threading.Event]:
    """What ends the exit procedure's wait at tearDown (Kafka's test leaves its thread asleep for good)."""
    event = threading.Event()
    yield event
    Exit.reset_exit_procedure()
    event.set()


def test_shutdown_when_called_after_thread_start(released: threading.Event) -> None:
    status_codes: list[int] = []

    def exit_procedure(status_code: int, message: str | None) -> None:
        status_codes.append(status_code)
        # Wait, as System.exit never returns.
        released.wait()

    Exit.set_exit_procedure(exit_procedure)
    latch = threading.Event()

    class _Thread(ShutdownableThread):
        def do_work(self) -> None:
            latch.set()
            raise FatalExitError()

    thread = _Thread("shutdownable-thread-test")
    thread.daemon = True  # the exit procedure holds it until tearDown
    thread.start()
    assert latch.wait(10), "doWork was not invoked"

    thread.shutdown()
    wait_until_true(lambda: bool(status_codes), "Status code was not set by exit procedure")
    assert status_codes[0] == 1
