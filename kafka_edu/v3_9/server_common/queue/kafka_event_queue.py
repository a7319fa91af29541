"""Port of server-common/src/main/java/org/apache/kafka/queue/KafkaEventQueue.java (Kafka 3.9).

One thread runs every event, one at a time, so the state its events touch (a QuorumController's control managers)
needs no lock of its own. Events wait in two structures: a circular list in run order (APPEND at the tail, PREPEND
at the head) and a map from deadline to event (events with a deadline, and DEFERRED events, which are only there).
"""

from __future__ import annotations

import bisect
import contextvars
import logging
import threading
import traceback
from collections.abc import Callable
from time import monotonic_ns
from typing import Protocol

from kafka_edu.tracing import span, step
from kafka_edu.v1_0_2.clients.common.errors import RejectedExecutionException, TimeoutException
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.server_common.queue.event_queue import (
    DeadlineNsCalculator,
    Event,
    EventInsertionType,
    EventQueue,
    VoidEvent,
)

EVENT_HANDLER_THREAD_SUFFIX = "event-handler"


class Time(Protocol):
    """The part of org.apache.kafka.common.utils.Time the queue reads: a monotonic clock in nanoseconds."""

    def nanoseconds(self) -> int: ...


class SystemTime:
    """Time.SYSTEM's monotonic clock: the one `append_with_deadline` and `schedule_deferred` deadlines are on."""

    def nanoseconds(self) -> int:
        return monotonic_ns()


SYSTEM_TIME = SystemTime()


class KafkaThread(threading.Thread):
    """org.apache.kafka.common.utils.KafkaThread with the interrupt flag of java.lang.Thread.

    Python cannot interrupt a thread, so `interrupt` raises the flag and calls `on_interrupt` to wake up what the
    thread blocks on; the thread's own blocking waits look at the flag and raise InterruptedError (Java's
    InterruptedException) as Java's do.
    """

    def __init__(self, name: str, runnable: Callable[[], None], daemon: bool,
                 on_interrupt: Callable[[], None] = lambda: None) -> None:
        super().__init__(target=runnable, name=name, daemon=daemon)
        self._interrupt_lock = threading.Lock()
        self._interrupted = False
        self._on_interrupt = on_interrupt

    def interrupt(self) -> None:
        with self._interrupt_lock:
            self._interrupted = True
        self._on_interrupt()

    def is_interrupted(self) -> bool:
        with self._interrupt_lock:
            return self._interrupted

    def interrupted(self) -> bool:
        """Thread.interrupted() of this thread: whether the flag was up, and down it goes."""
        with self._interrupt_lock:
            was, self._interrupted = self._interrupted, False
            return was


def _current_thread_is_interrupted() -> bool:
    is_interrupted = getattr(threading.current_thread(), "is_interrupted", None)
    return bool(is_interrupted is not None and is_interrupted())


class _TreeMap:
    """The slice of java.util.TreeMap<Long, EventContext> the event handler uses, ordered by deadline."""

    def __init__(self) -> None:
        self._keys: list[int] = []
        self._values: dict[int, KafkaEventQueue.EventContext] = {}

    def first_entry(self) -> tuple[int, KafkaEventQueue.EventContext] | None:
        return (self._keys[0], self._values[self._keys[0]]) if self._keys else None

    def first_key(self) -> int:
        return self._keys[0]

    def is_empty(self) -> bool:
        return not self._keys

    def put_if_absent(self, key: int, value: KafkaEventQueue.EventContext) -> KafkaEventQueue.EventContext | None:
        existing = self._values.get(key)
        if existing is None:
            self._values[key] = value
            bisect.insort(self._keys, key)
        return existing

    def remove(self, key: int) -> None:
        if self._values.pop(key, None) is not None:
            del self._keys[bisect.bisect_left(self._keys, key)]


class KafkaEventQueue(EventQueue):
    """An EventQueue run by one thread named `<thread_name_prefix>event-handler`.

    Interrupting that thread (`event_handler_thread.interrupt()`, see KafkaThread) shuts the queue down as Java's
    does: every event still queued, and every one enqueued later, gets an InterruptedError (Java's
    InterruptedException) instead of running.
    """

    EVENT_HANDLER_THREAD_SUFFIX = EVENT_HANDLER_THREAD_SUFFIX

    class EventContext:
        """An event and its place in the queue: a node of the circular list, its deadline key and its tag."""

        def __init__(self, event: Event | None, insertion_type: EventInsertionType | None, tag: str | None) -> None:
            self.event = event
            self.insertion_type = insertion_type
            # A fresh node is a list of one; the event handler's head node is the list's sentinel.
            self.prev: KafkaEventQueue.EventContext = self
            self.next: KafkaEventQueue.EventContext = self
            # The key this event is under in the deadline map, None when it is not there.
            self.deadline_ns: int | None = None
            self.tag = tag
            # The enqueuing thread's context (its trace): the event's turn on the queue thread continues it.
            self.enqueued_in = contextvars.copy_context()

        def insert_after(self, other: KafkaEventQueue.EventContext) -> None:
            self.next.prev = other
            other.next = self.next
            other.prev = self
            self.next = other

        def insert_before(self, other: KafkaEventQueue.EventContext) -> None:
            self.prev.next = other
            other.prev = self.prev
            other.next = self
            self.prev = other

        def remove(self) -> None:
            self.prev.next = self.next
            self.next.prev = self.prev
            self.prev = self
            self.next = self

        def is_singleton(self) -> bool:
            return self.prev is self and self.next is self

        def run(self, log: logging.LoggerAdapter, exception_to_deliver: BaseException | None) -> bool:
            """Run the event, or hand it the exception the queue has for it instead; what run raises goes to the
            event's handle_exception, and the queue goes on. True if the thread was interrupted."""
            if exception_to_deliver is None:
                try:
                    self.event.run()
                except InterruptedError:
                    log.warning("Interrupted while running event. Shutting down event queue")
                    return True
                except Exception as e:
                    # what the event built before a MemoryError goes before its handling
                    traceback.clear_frames(e.__traceback__)
                    log.debug("Got exception while running %s. Invoking handleException.", self.event, exc_info=e)
                    exception_to_deliver = e
            if exception_to_deliver is not None:
                self.complete_with_exception(log, exception_to_deliver)
            return _current_thread_is_interrupted()

        def complete_with_exception(self, log: logging.LoggerAdapter, t: BaseException) -> None:
            try:
                self.event.handle_exception(t)
            except Exception:
                log.error("Unexpected exception in handleException", exc_info=True)

    class EventHandler:
        """What the queue thread runs: the list, the deadline map and the condition the thread waits on."""

        def __init__(self, queue: KafkaEventQueue) -> None:
            self.queue = queue
            # Events queued or running (one being run is still counted).
            self._size = 0
            # Only tagged events are here.
            self.tag_to_event_context: dict[str, KafkaEventQueue.EventContext] = {}
            self.head = KafkaEventQueue.EventContext(None, None, None)
            # Monotonic nanoseconds -> the event that times out (or, if DEFERRED, is due) then.
            self.deadline_map = _TreeMap()
            self.cond = threading.Condition(queue.lock)

        def run(self) -> None:
            try:
                self.handle_events()
            except BaseException as e:
                self.queue.log.warning("event handler thread exiting with exception", exc_info=e)
            try:
                self.queue.cleanup_event.run()
            except BaseException as e:
                self.queue.log.warning("cleanup event threw exception", exc_info=e)

        def remove(self, event_context: KafkaEventQueue.EventContext) -> None:
            """Take an event out of both structures and the tag index."""
            event_context.remove()
            if event_context.deadline_ns is not None:
                self.deadline_map.remove(event_context.deadline_ns)
                event_context.deadline_ns = None
            if event_context.tag is not None:
                # Only if the tag still names this event: an event that replaced it keeps the tag.
                if self.tag_to_event_context.get(event_context.tag) is event_context:
                    del self.tag_to_event_context[event_context.tag]
                event_context.tag = None

        def handle_events(self) -> None:
            queue = self.queue
            to_deliver: BaseException | None = None
            to_run: KafkaEventQueue.EventContext | None = None
            was_interrupted = False
            while True:
                if to_run is not None:
                    with span("KafkaEventQueue.EventHandler.handleEvents", to_run=to_run, to_deliver=to_deliver):
                        was_interrupted = to_run.run(queue.log, to_deliver)
                with queue.lock:
                    if to_run is not None:
                        self._size -= 1
                        if was_interrupted:
                            queue.interrupted = True
                        to_deliver = None
                        to_run = None
                        was_interrupted = False
                    await_ns: int | None = None  # Java's Long.MAX_VALUE: wait until signalled
                    entry = self.deadline_map.first_entry()
                    if entry is not None:
                        # The earliest deadline first: an event timed out, or a deferred event due.
                        now = queue.time.nanoseconds()
                        timeout_ns, event_context = entry
                        if timeout_ns <= now:
                            if event_context.insertion_type is EventInsertionType.DEFERRED:
                                # For a deferred event the deadline is when to run, not a timeout.
                                self.remove(event_context)
                                to_deliver = None
                                to_run = event_context
                            else:
                                self.remove(event_context)
                                to_deliver = TimeoutException()
                                to_run = event_context
                            continue
                        elif queue.interrupted:
                            self.remove(event_context)
                            to_deliver = InterruptedError("The event handler thread is interrupted")
                            to_run = event_context
                            continue
                        elif queue.shutting_down:
                            # Shutting down: every event that holds a deadline is refused; plain ones still run.
                            self.remove(event_context)
                            to_deliver = RejectedExecutionException("The event queue is shutting down")
                            to_run = event_context
                            continue
                        await_ns = timeout_ns - now
                    if self.head.next is self.head:
                        if self.deadline_map.is_empty() and (queue.shutting_down or queue.interrupted):
                            # Nothing left and no more to come: the thread ends.
                            return
                    else:
                        if queue.interrupted:
                            to_deliver = InterruptedError("The event handler thread is interrupted")
                        else:
                            to_deliver = None
                        to_run = self.head.next
                        self.remove(to_run)
                        continue
                    if await_ns is None:
                        try:
                            self.await_(None)
                        except InterruptedError:
                            queue.log.warning("Interrupted while waiting for a new event. Shutting down event queue")
                            queue.interrupted = True
                    else:
                        try:
                            self.await_(await_ns / 1_000_000_000)
                        except InterruptedError:
                            queue.log.warning("Interrupted while waiting for a deferred event. "
                                              "Shutting down event queue")
                            queue.interrupted = True

        def await_(self, timeout_s: float | None) -> None:
            """Condition.await / awaitNanos: an InterruptedError, and the flag down, if the thread is interrupted
            before or while it waits."""
            thread = self.queue.event_handler_thread
            if thread.interrupted():
                raise InterruptedError()
            self.cond.wait(timeout_s)
            if thread.interrupted():
                raise InterruptedError()

        def enqueue(self, event_context: KafkaEventQueue.EventContext,
                    deadline_ns_calculator: DeadlineNsCalculator) -> Exception | None:
            """Insert under the lock; the exception the event must get instead, or None."""
            queue = self.queue
            with queue.lock:
                if queue.shutting_down:
                    return RejectedExecutionException("The event queue is shutting down")
                if queue.interrupted:
                    return InterruptedError("The event handler thread is interrupted")
                existing_deadline_ns: int | None = None
                if event_context.tag is not None:
                    to_remove = self.tag_to_event_context.get(event_context.tag)
                    self.tag_to_event_context[event_context.tag] = event_context
                    if to_remove is not None:
                        # The new event replaces it, and its deadline is what the calculator starts from.
                        existing_deadline_ns = to_remove.deadline_ns
                        self.remove(to_remove)
                        self._size -= 1
                deadline_ns = deadline_ns_calculator(existing_deadline_ns)
                queue_was_empty = self.head.is_singleton()
                should_signal = False
                if event_context.insertion_type is EventInsertionType.APPEND:
                    self.head.insert_before(event_context)
                    if queue_was_empty:
                        should_signal = True
                elif event_context.insertion_type is EventInsertionType.PREPEND:
                    self.head.insert_after(event_context)
                    if queue_was_empty:
                        should_signal = True
                elif event_context.insertion_type is EventInsertionType.DEFERRED:
                    if deadline_ns is None:
                        return RuntimeError("You must specify a deadline for deferred events.")
                if deadline_ns is not None:
                    insert_ns = deadline_ns
                    prev_start_ns = None if self.deadline_map.is_empty() else self.deadline_map.first_key()
                    # The map holds one event per nanosecond: a taken one moves this event to the next free one.
                    while self.deadline_map.put_if_absent(insert_ns, event_context) is not None:
                        insert_ns += 1
                    event_context.deadline_ns = insert_ns
                    # A new earliest deadline: the thread may be waiting for a later one.
                    if prev_start_ns is None or insert_ns <= prev_start_ns:
                        should_signal = True
                self._size += 1
                if should_signal:
                    self.cond.notify()
            return None

        def cancel_deferred(self, tag: str) -> None:
            with self.queue.lock:
                event_context = self.tag_to_event_context.get(tag)
                if event_context is not None:
                    self.remove(event_context)
                    self._size -= 1

        def wake_up(self) -> None:
            with self.queue.lock:
                self.cond.notify()

        def size(self) -> int:
            with self.queue.lock:
                return self._size

    def __init__(self, time: Time, log_context: str, thread_name_prefix: str,
                 cleanup_event: Event = VoidEvent.INSTANCE) -> None:
        self.time = time
        # Run on the queue thread after the last event, when the queue shuts down.
        self.cleanup_event = cleanup_event
        # Guards everything below and the event handler's structures (Java's ReentrantLock).
        self.lock = threading.RLock()
        self.log = Logging("org.apache.kafka.queue.KafkaEventQueue", log_context)
        self.event_handler = KafkaEventQueue.EventHandler(self)
        # Daemon, unlike Kafka's thread: a process that never closes its queue can still exit.
        self.event_handler_thread = KafkaThread(thread_name_prefix + EVENT_HANDLER_THREAD_SUFFIX,
                                                self.event_handler.run, True, self.event_handler.wake_up)
        self.shutting_down = False
        # True once the event handler thread was interrupted. Guarded by the lock.
        self.interrupted = False
        self.event_handler_thread.start()

    @step("KR.queue")
    def enqueue(self, insertion_type: EventInsertionType, tag: str | None,
                deadline_ns_calculator: DeadlineNsCalculator, event: Event) -> None:
        event_context = KafkaEventQueue.EventContext(event, insertion_type, tag)
        e = self.event_handler.enqueue(event_context, deadline_ns_calculator)
        if e is not None:
            # Refused (the queue is shutting down, or its thread was interrupted): the caller's thread tells the event.
            event_context.complete_with_exception(self.log, e)

    def cancel_deferred(self, tag: str) -> None:
        self.event_handler.cancel_deferred(tag)

    def begin_shutdown(self, source: str) -> None:
        with self.lock:
            if self.shutting_down:
                self.log.debug("%s: Event queue is already shutting down.", source)
                return
            self.log.info("%s: shutting down event queue.", source)
            self.shutting_down = True
            self.event_handler.cond.notify()

    def size(self) -> int:
        return self.event_handler.size()

    def wakeup(self) -> None:
        self.event_handler.wake_up()

    def close(self) -> None:
        self.begin_shutdown("KafkaEventQueue#close")
        self.event_handler_thread.join()
        self.log.info("closed event queue.")

    def first_deferred_if_idling(self) -> Event | None:
        """The deferred event the idle queue waits for, if any (lets a test with its own clock jump to it)."""
        with self.lock:
            if self.event_handler.head.next is not self.event_handler.head:
                return None  # there is work to run now: not idling
            entry = self.event_handler.deadline_map.first_entry()
            if entry is None:
                return None  # idle, but with no deadline to wait for
            event_context = entry[1]
            if event_context.insertion_type is not EventInsertionType.DEFERRED:
                # A deadline of a queued event: that event runs now, so the queue is not waiting for it.
                return None
            return event_context.event
