"""Port of core/src/test/scala/unit/kafka/controller/ControllerEventManagerTest.scala (Kafka 1.0.2).

Left out of both cases: the assertion that the state's rate-and-time timer counted the event (Yammer metrics: the
port registers no metrics). The rest of each case is Kafka's: while the event runs the manager is in the event's
state, afterwards Idle again, and the listener heard of the event once, whether it succeeded or threw.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import pytest

from kafka_edu.v1_0_2.core.controller.controller_event_manager import ControllerEvent, ControllerEventManager
from kafka_edu.v1_0_2.core.controller.controller_state import ControllerState
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "1.0.2", "core/src/test/scala/unit/kafka/controller/ControllerEventManagerTest.scala",
    cases=["testSuccessfulEvent", "testEventThatThrowsException"],
)


class _MockControllerEvent(ControllerEvent):
    """ControllerTestUtils.createMockControllerEvent: an event in `state` that runs `process`."""

    def __init__(self, state: ControllerState, process: Callable[[], None]) -> None:
        self._state, self._process = state, process

    @property
    def state(self) -> ControllerState:
        return self._state

    def process(self) -> None:
        self._process()


def _wait_until_true(condition: Callable[[], bool], message: str, timeout_s: float = 15.0) -> None:
    """TestUtils.waitUntilTrue."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(message)
        time.sleep(0.01)


@pytest.fixture
def managers() -> Iterator[list[ControllerEventManager]]:
    made: list[ControllerEventManager] = []
    yield made
    for manager in made:  # tearDown
        manager.close()


def _check(managers: list[ControllerEventManager], controller_state: ControllerState,
           process: Callable[[], None]) -> None:
    processed = []
    manager = ControllerEventManager(processed.append)
    managers.append(manager)
    manager.start()
    # only return from process() once the test has seen the manager in the event's state
    latch = threading.Event()

    def run() -> None:
        latch.wait()
        process()

    manager.put(_MockControllerEvent(controller_state, run))
    _wait_until_true(lambda: manager.state == controller_state, f"Controller state is not {controller_state}")
    latch.set()
    _wait_until_true(lambda: manager.state == ControllerState.Idle, "Controller state has not changed back to Idle")
    assert len(processed) == 1


def test_successful_event(managers: list[ControllerEventManager]) -> None:
    _check(managers, ControllerState.AutoLeaderBalance, lambda: None)


def test_event_that_throws_exception(managers: list[ControllerEventManager]) -> None:
    def fail() -> None:
        raise RuntimeError("a NullPointerException's stand-in")

    _check(managers, ControllerState.BrokerChange, fail)
