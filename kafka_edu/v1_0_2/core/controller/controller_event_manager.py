"""Port of core/src/main/scala/kafka/controller/ControllerEventManager.scala (Kafka 1.0.2).

Everything the controller does happens on one thread, one event at a time: ZooKeeper watches, broker requests and
the broker's own startup only put events on the queue. That single thread is why the controller needs no locks.
"""

from __future__ import annotations

import contextvars
import queue
from collections.abc import Callable

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.core.controller.controller_state import ControllerState
from kafka_edu.v1_0_2.core.utils.shutdownable_thread import ShutdownableThread

CONTROLLER_EVENT_THREAD_NAME = "controller-event-thread"


class ControllerEvent:
    """The `ControllerEvent` trait: the state the controller is in while the event runs, and what it does."""

    @property
    def name(self) -> str:
        return type(self).__name__

    @property
    def state(self) -> ControllerState:
        raise NotImplementedError

    def process(self) -> None:
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.name


class ControllerEventManager:
    """A queue of controller events and the `controller-event-thread` that processes them in order.

    Each processed event is the root of its own trace (CT.event), linked to the span that put it on the queue: an
    event travels with the context it was put in.
    """

    def __init__(self, event_processed_listener: Callable[[ControllerEvent], None]) -> None:
        self.event_processed_listener = event_processed_listener
        self._state = ControllerState.Idle
        # None is the wake-up that stands in for Java interrupting the thread blocked in queue.take().
        self._queue: queue.Queue[tuple[ControllerEvent, contextvars.Context] | None] = queue.Queue()
        self.thread = ControllerEventThread(self, CONTROLLER_EVENT_THREAD_NAME)

    @property
    def state(self) -> ControllerState:
        return self._state

    def start(self) -> None:
        self.thread.start()

    def close(self) -> None:
        self.thread.shutdown()

    def interrupt(self) -> None:
        self._queue.put(None)

    def put(self, event: ControllerEvent) -> None:
        self._queue.put((event, contextvars.copy_context()))

    def do_work(self) -> None:
        """ControllerEventThread.doWork: take one event, run it in its state, tell the listener, back to Idle."""
        item = self._queue.get()
        if item is None or not self.thread.is_running.get():
            return
        controller_event, put_in = item
        self._state = controller_event.state
        try:
            with step("CT.event", event=controller_event, put_in=put_in, root=True):
                controller_event.process()
        except Exception:
            self.thread.log.exception("Error processing event %s", controller_event)

        try:
            self.event_processed_listener(controller_event)
        except Exception:
            self.thread.log.exception("Error while invoking listener for processed event %s", controller_event)

        self._state = ControllerState.Idle


class ControllerEventThread(ShutdownableThread):
    """The controller's ShutdownableThread: `do_work` processes one event.

    Java interrupts the thread to stop it; here `interrupt` puts a wake-up on the queue, so an event already running
    finishes first, and events still queued are dropped, as an interrupted `take()` drops them.
    """

    logger_name = "kafka.controller.ControllerEventManager$ControllerEventThread"

    def __init__(self, manager: ControllerEventManager, name: str) -> None:
        super().__init__(name)
        self.daemon = True  # unlike Kafka's, as the port's other broker threads: a failed shutdown keeps no process up
        self.manager = manager

    def do_work(self) -> None:
        self.manager.do_work()

    def interrupt(self) -> None:
        self.manager.interrupt()
