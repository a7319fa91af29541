"""The controller's event queue: one thread, events in the order they were put, each in its ControllerState."""

from __future__ import annotations

import threading
from collections.abc import Callable

from kafka_edu.tracing import setup_tracing, span
from kafka_edu.v1_0_2.core.controller.controller_event_manager import ControllerEvent, ControllerEventManager
from kafka_edu.v1_0_2.core.controller.controller_state import ControllerState
from tests.integration.helpers import wait_until


class RecordingEvent(ControllerEvent):
    def __init__(self, name: str, state: ControllerState, seen: list, manager: Callable[[], ControllerEventManager],
                 action: Callable[[], None] = lambda: None) -> None:
        self._name, self._state, self.seen, self.manager, self.action = name, state, seen, manager, action

    @property
    def name(self) -> str:
        return self._name

    @property
    def state(self) -> ControllerState:
        return self._state

    def process(self) -> None:
        self.seen.append((self._name, threading.current_thread().name, self.manager().state))
        self.action()


def test_events_run_in_order_on_the_controller_thread_each_in_its_state():
    seen: list = []
    processed: list[str] = []
    manager = ControllerEventManager(lambda e: processed.append(e.name))
    events = [RecordingEvent("Startup", ControllerState.ControllerChange, seen, lambda: manager),
              RecordingEvent("BrokerChange", ControllerState.BrokerChange, seen, lambda: manager),
              RecordingEvent("TopicChange", ControllerState.TopicChange, seen, lambda: manager)]
    for e in events:  # queued before the thread starts, as KafkaController.startup does with Startup
        manager.put(e)
    manager.start()
    try:
        wait_until(lambda: len(processed) == 3, 10, "three events processed")
        assert seen == [("Startup", "controller-event-thread", ControllerState.ControllerChange),
                        ("BrokerChange", "controller-event-thread", ControllerState.BrokerChange),
                        ("TopicChange", "controller-event-thread", ControllerState.TopicChange)]
        assert processed == ["Startup", "BrokerChange", "TopicChange"]
        assert manager.state is ControllerState.Idle
    finally:
        manager.close()
    assert not manager.thread.is_alive()


def test_a_failing_event_is_logged_and_the_next_one_still_runs():
    tracing = setup_tracing("broker-0", "run-1")
    seen: list = []
    processed: list[str] = []
    manager = ControllerEventManager(lambda e: processed.append(e.name))

    def fail() -> None:
        raise RuntimeError("boom")

    manager.put(RecordingEvent("Reelect", ControllerState.ControllerChange, seen, lambda: manager, fail))
    manager.put(RecordingEvent("TopicChange", ControllerState.TopicChange, seen, lambda: manager))
    manager.start()
    try:
        wait_until(lambda: len(processed) == 2, 10, "both events processed")
    finally:
        manager.close()
    assert [name for name, _, _ in seen] == ["Reelect", "TopicChange"]
    failed, ok = [s for s in tracing.memory.get_finished_spans() if s.name == "ControllerEventManager.process"]
    assert failed.status.status_code.name == "ERROR" and failed.events[0].attributes["exception.type"] == "RuntimeError"
    assert ok.status.status_code.name == "UNSET"


def test_each_event_is_a_root_span_linked_to_whoever_put_it():
    tracing = setup_tracing("broker-0", "run-1")
    processed: list[str] = []
    manager = ControllerEventManager(lambda e: processed.append(e.name))
    with span("KafkaController.startup", root=True) as enqueuer:
        manager.put(RecordingEvent("Startup", ControllerState.ControllerChange, [], lambda: manager))
    manager.put(RecordingEvent("BrokerChange", ControllerState.BrokerChange, [], lambda: manager))  # a ZK watch
    manager.start()
    try:
        wait_until(lambda: len(processed) == 2, 10, "both events processed")
    finally:
        manager.close()
    startup, broker_change = [s for s in tracing.memory.get_finished_spans()
                              if s.name == "ControllerEventManager.process"]
    assert startup.parent is None and startup.attributes["kafka.step"] == "CT.event"
    assert startup.attributes["kafka.controller.event"] == "Startup"
    assert startup.attributes["kafka.controller.state"] == "ControllerChange"
    assert startup.attributes["thread.name"] == "controller-event-thread"
    assert [link.context.span_id for link in startup.links] == [enqueuer.get_span_context().span_id]
    assert startup.context.trace_id != enqueuer.get_span_context().trace_id
    assert broker_change.attributes["kafka.controller.state"] == "BrokerChange" and not broker_change.links


def test_close_lets_the_running_event_finish_and_drops_the_queued_ones():
    seen: list = []
    started, release = threading.Event(), threading.Event()
    manager = ControllerEventManager(lambda e: None)

    def block() -> None:
        started.set()
        release.wait(10)

    manager.put(RecordingEvent("ControlledShutdown", ControllerState.ControlledShutdown, seen, lambda: manager, block))
    manager.put(RecordingEvent("BrokerChange", ControllerState.BrokerChange, seen, lambda: manager))
    manager.start()
    assert started.wait(10)
    closer = threading.Thread(target=manager.close)
    closer.start()
    try:
        wait_until(lambda: not manager.thread.is_running.get(), 10, "the shutdown to be initiated")
        assert manager.state is ControllerState.ControlledShutdown  # still inside the running event
    finally:
        release.set()
        closer.join(10)
    assert not closer.is_alive() and not manager.thread.is_alive()
    assert [name for name, _, _ in seen] == ["ControlledShutdown"]
    assert manager.state is ControllerState.Idle


def test_close_before_start_returns():
    manager = ControllerEventManager(lambda e: None)
    manager.close()
    assert not manager.thread.is_alive()
