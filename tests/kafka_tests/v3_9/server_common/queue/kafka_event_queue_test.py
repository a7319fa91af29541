"""Port of server-common/src/test/java/org/apache/kafka/queue/KafkaEventQueueTest.java (Kafka 3.9).

Java's CompletableFuture is `_CompletableFuture` below (a concurrent.futures.Future whose `get` waits at most the
class's 60 s @Timeout and whose `complete` ignores a settled future); a Java lambda given where an Event is wanted is
`_event(...)`; MockTime and TestUtils' waits are ported beside the cases. `future.get()` throwing an
ExecutionException whose cause is X becomes `pytest.raises` of exactly X, since a Python future raises the cause.

Java interrupts the queue's thread with `Thread.interrupt()`; the port's queue thread has the same `interrupt()`,
`is_interrupted()` and `interrupted()`, and a Java InterruptedException is Python's InterruptedError (as in the rest of
the port). A blocked `Future.get()` cannot be interrupted in Python, so InterruptibleEvent waits on its future through
`_get_interruptibly`, which throws InterruptedError as soon as its thread's interrupt flag is up.

The @AfterAll thread-leak check looks at the queue threads of this module's cases only (other modules' queues may
share the process).
"""

from __future__ import annotations

import concurrent.futures
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

import pytest

from kafka_edu.v1_0_2.clients.common.errors import RejectedExecutionException, TimeoutException
from kafka_edu.v3_9.clients.common.utils.mock_time import NS_PER_MS, MockTime
from kafka_edu.v3_9.server_common.queue.event_queue import Event
from kafka_edu.v3_9.server_common.queue.kafka_event_queue import (
    EVENT_HANDLER_THREAD_SUFFIX,
    SYSTEM_TIME,
    KafkaEventQueue,
)
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "server-common/src/test/java/org/apache/kafka/queue/KafkaEventQueueTest.java",
    cases=[
        "testCreateAndClose",
        "testHandleEvents",
        "testTimeouts",
        "testScheduleDeferred",
        "testScheduleDeferredWithTagReplacement",
        "testDeferredIsQueuedAfterTriggering",
        "testShutdownBeforeDeferred",
        "testRejectedExecutionException",
        "testSize",
        "testHandleExceptionThrowingAnException",
        "testInterruptedExceptionHandling",
        "testInterruptedWithEmptyQueue",
        "testInterruptedWithDeferredEvents",
    ],
)

T = TypeVar("T")
TIMEOUT_S = 60.0  # the class's @Timeout(60)
DEFAULT_MAX_WAIT_S = 15.0  # TestUtils.DEFAULT_MAX_WAIT_MS
NS_PER_S = 1_000_000_000
ONE_HOUR_NS = 3600 * NS_PER_S

# Every thread name prefix the cases give their queues (Kafka's, including its two that differ from the case name).
_PREFIXES = (
    "testCreateAndClose", "testHandleEvents", "testTimeouts", "testAppendDeferred",
    "testScheduleDeferredWithTagReplacement", "testDeferredIsQueuedAfterTriggering", "testShutdownBeforeDeferred",
    "testRejectedExecutionException", "testEmpty", "testHandleExceptionThrowingAnException",
    "testInterruptedExceptionHandling", "testInterruptedWithEmptyQueue", "testInterruptedWithDeferredEvents",
)


# -- Java's helpers ----------------------------------------------------------------------------------------------------

class _CompletableFuture(concurrent.futures.Future, Generic[T]):
    """java.util.concurrent.CompletableFuture, the part the cases use."""

    def complete(self, value: T) -> bool:
        try:
            self.set_result(value)
            return True
        except concurrent.futures.InvalidStateError:
            return False

    def complete_exceptionally(self, e: BaseException) -> bool:
        try:
            self.set_exception(e)
            return True
        except concurrent.futures.InvalidStateError:
            return False

    def get(self) -> T:
        return self.result(TIMEOUT_S)


class _Lambda(Event):
    """A Java lambda where an EventQueue.Event is expected: `run` is the lambda, `handleException` the default."""

    def __init__(self, run: Callable[[], Any]) -> None:
        self._run = run

    def run(self) -> None:
        self._run()


def _event(run: Callable[[], Any]) -> Event:
    return _Lambda(run)


def _wait_for_condition(condition: Callable[[], bool], details: str,
                        max_wait_s: float = DEFAULT_MAX_WAIT_S) -> None:
    """TestUtils.waitForCondition."""
    deadline = time.monotonic() + max_wait_s
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"Condition not met within timeout {max_wait_s * 1000:.0f}. {details}")
        time.sleep(0.01)


def _retry_on_exception_with_timeout(timeout_ms: int, runnable: Callable[[], None]) -> None:
    """TestUtils.retryOnExceptionWithTimeout: run until it stops failing an assertion, or the time is up."""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        try:
            runnable()
            return
        except AssertionError:
            if time.monotonic() > deadline:
                raise
        time.sleep(0.01)


def _get_interruptibly(future: _CompletableFuture[T]) -> T:
    """Future.get() on a thread Java may interrupt: an InterruptedError once this thread's interrupt flag is up."""
    thread = threading.current_thread()
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        if thread.interrupted():
            raise InterruptedError("interrupted while waiting on a future")
        try:
            return future.result(0.01)
        except concurrent.futures.TimeoutError:
            if time.monotonic() > deadline:
                raise


class FutureEvent(Event, Generic[T]):
    def __init__(self, future: _CompletableFuture[T], supplier: Callable[[], T]) -> None:
        self.future = future
        self.supplier = supplier

    def run(self) -> None:
        value = self.supplier()
        self.future.complete(value)

    def handle_exception(self, e: BaseException) -> None:
        self.future.complete_exceptionally(e)


class InterruptibleEvent(Event):
    def __init__(self, queue_thread: _CompletableFuture[threading.Thread], num_calls_to_run: _AtomicInteger,
                 num_interrupted_exceptions_seen: _AtomicInteger) -> None:
        self.run_future: _CompletableFuture[None] = _CompletableFuture()
        self.queue_thread = queue_thread
        self.num_calls_to_run = num_calls_to_run
        self.num_interrupted_exceptions_seen = num_interrupted_exceptions_seen

    def run(self) -> None:
        self.num_calls_to_run.increment_and_get()
        self.queue_thread.complete(threading.current_thread())
        _get_interruptibly(self.run_future)

    def handle_exception(self, e: BaseException) -> None:
        if isinstance(e, InterruptedError):
            self.num_interrupted_exceptions_seen.increment_and_get()
            threading.current_thread().interrupt()


class ExceptionTrapperEvent(Event):
    def __init__(self) -> None:
        self.exception: _CompletableFuture[BaseException | None] = _CompletableFuture()

    def run(self) -> None:
        self.exception.complete(None)

    def handle_exception(self, e: BaseException) -> None:
        self.exception.complete(e)


class _AtomicInteger:
    def __init__(self, value: int = 0) -> None:
        self._lock = threading.Lock()
        self._value = value

    def get(self) -> int:
        with self._lock:
            return self._value

    def add_and_get(self, delta: int) -> int:
        with self._lock:
            self._value += delta
            return self._value

    def get_and_add(self, delta: int) -> int:
        with self._lock:
            self._value += delta
            return self._value - delta

    def increment_and_get(self) -> int:
        return self.add_and_get(1)

    def get_and_increment(self) -> int:
        return self.get_and_add(1)


# -- @AfterAll / @BeforeEach -------------------------------------------------------------------------------------------

@pytest.fixture(scope="module", autouse=True)
def _no_thread_leak() -> Iterator[None]:
    yield
    ours = {prefix + EVENT_HANDLER_THREAD_SUFFIX for prefix in _PREFIXES}
    _wait_for_condition(lambda: not any(t.name in ours for t in threading.enumerate()), "Thread leak detected")


@pytest.fixture
def log_context(request: pytest.FixtureRequest) -> str:
    return f"[KafkaEventQueue test={request.node.name}] "


# -- the cases ---------------------------------------------------------------------------------------------------------

def test_create_and_close(log_context: str) -> None:
    queue = KafkaEventQueue(SYSTEM_TIME, log_context, "testCreateAndClose")
    queue.close()


def test_handle_events(log_context: str) -> None:
    with KafkaEventQueue(SYSTEM_TIME, log_context, "testHandleEvents") as queue:
        num_events_executed = _AtomicInteger(0)

        def expect(n: int) -> Callable[[], int]:
            def supplier() -> int:
                assert num_events_executed.increment_and_get() == n
                return n
            return supplier

        future1: _CompletableFuture[int] = _CompletableFuture()
        queue.prepend(FutureEvent(future1, expect(1)))
        future2: _CompletableFuture[int] = _CompletableFuture()
        queue.append_with_deadline(SYSTEM_TIME.nanoseconds() + 60 * NS_PER_S, FutureEvent(future2, expect(2)))
        future3: _CompletableFuture[int] = _CompletableFuture()
        queue.append(FutureEvent(future3, expect(3)))
        assert future1.get() == 1
        assert future3.get() == 3
        assert future2.get() == 2
        future4: _CompletableFuture[int] = _CompletableFuture()
        queue.append_with_deadline(SYSTEM_TIME.nanoseconds() + 60 * NS_PER_S, FutureEvent(future4, expect(4)))
        future4.get()


def test_timeouts(log_context: str) -> None:
    with KafkaEventQueue(SYSTEM_TIME, log_context, "testTimeouts") as queue:
        num_events_executed = _AtomicInteger(0)

        def first() -> int:
            assert num_events_executed.increment_and_get() == 1
            return 1

        def second() -> int:
            assert num_events_executed.increment_and_get() == 2
            time.sleep(0.001)  # Time.SYSTEM.sleep(1): the work the event does, not synchronisation
            return 2

        def third() -> int:
            num_events_executed.increment_and_get()
            return 3

        def fourth() -> int:
            num_events_executed.increment_and_get()
            return 4

        future1: _CompletableFuture[int] = _CompletableFuture()
        queue.append(FutureEvent(future1, first))
        future2: _CompletableFuture[int] = _CompletableFuture()
        queue.append(FutureEvent(future2, second))
        future3: _CompletableFuture[int] = _CompletableFuture()
        queue.append_with_deadline(SYSTEM_TIME.nanoseconds() + 1, FutureEvent(future3, third))
        future4: _CompletableFuture[int] = _CompletableFuture()
        queue.append(FutureEvent(future4, fourth))
        assert future1.get() == 1
        assert future2.get() == 2
        assert future4.get() == 4
        with pytest.raises(Exception) as thrown:
            future3.get()
        assert type(thrown.value) is TimeoutException
        assert num_events_executed.get() == 3


def test_schedule_deferred(log_context: str) -> None:
    with KafkaEventQueue(SYSTEM_TIME, log_context, "testAppendDeferred") as queue:
        # Keep trying until the deferred event has run after the appended one at least once.
        counter = _AtomicInteger(0)
        while True:
            counter.add_and_get(1)
            future1: _CompletableFuture[bool] = _CompletableFuture()
            queue.schedule_deferred(None, lambda _: SYSTEM_TIME.nanoseconds() + NS_PER_MS,
                                    FutureEvent(future1, lambda: counter.get() % 2 == 0))
            future2: _CompletableFuture[int] = _CompletableFuture()
            queue.append(FutureEvent(future2, lambda: counter.add_and_get(1)))
            future2.get()
            if future1.get():
                break


def test_schedule_deferred_with_tag_replacement(log_context: str) -> None:
    with KafkaEventQueue(SYSTEM_TIME, log_context, "testScheduleDeferredWithTagReplacement") as queue:
        ai = _AtomicInteger(0)
        future1: _CompletableFuture[int] = _CompletableFuture()
        queue.schedule_deferred("foo", lambda _: SYSTEM_TIME.nanoseconds() + ONE_HOUR_NS,
                                FutureEvent(future1, lambda: ai.add_and_get(1000)))
        future2: _CompletableFuture[int] = _CompletableFuture()
        queue.schedule_deferred("foo", lambda prev: (prev if prev is not None else 0) - ONE_HOUR_NS,
                                FutureEvent(future2, lambda: ai.add_and_get(1)))
        assert not future1.done()
        assert future2.get() == 1
        assert ai.get() == 1


def test_deferred_is_queued_after_triggering(log_context: str) -> None:
    mock_time = MockTime(0, 100000, 1)
    with KafkaEventQueue(mock_time, log_context, "testDeferredIsQueuedAfterTriggering") as queue:
        count = _AtomicInteger(0)
        futures: list[_CompletableFuture[int]] = [_CompletableFuture(), _CompletableFuture(), _CompletableFuture()]
        queue.schedule_deferred("foo", lambda _: 2, FutureEvent(futures[0], count.get_and_increment))
        queue.append(FutureEvent(futures[1], lambda: count.get_and_add(1)))
        assert futures[1].get() == 0
        mock_time.sleep(1)
        queue.append(FutureEvent(futures[2], lambda: count.get_and_add(1)))
        assert futures[0].get() == 1
        assert futures[2].get() == 2


def test_shutdown_before_deferred(log_context: str) -> None:
    with KafkaEventQueue(SYSTEM_TIME, log_context, "testShutdownBeforeDeferred") as queue:
        count = _AtomicInteger(0)
        future: _CompletableFuture[int] = _CompletableFuture()
        queue.schedule_deferred("myDeferred", lambda _: SYSTEM_TIME.nanoseconds() + ONE_HOUR_NS,
                                FutureEvent(future, lambda: count.get_and_add(1)))
        queue.begin_shutdown("testShutdownBeforeDeferred")
        with pytest.raises(Exception) as thrown:
            future.get()
        assert type(thrown.value) is RejectedExecutionException
        assert count.get() == 0


def test_rejected_execution_exception(log_context: str) -> None:
    queue = KafkaEventQueue(SYSTEM_TIME, log_context, "testRejectedExecutionException")
    queue.close()
    future: _CompletableFuture[None] = _CompletableFuture()

    class _Event(Event):
        def run(self) -> None:
            future.complete(None)

        def handle_exception(self, e: BaseException) -> None:
            future.complete_exceptionally(e)

    queue.append(_Event())
    with pytest.raises(Exception) as thrown:
        future.get()
    assert type(thrown.value) is RejectedExecutionException


def test_size(log_context: str) -> None:
    with KafkaEventQueue(SYSTEM_TIME, log_context, "testEmpty") as queue:
        assert queue.is_empty()
        future: _CompletableFuture[None] = _CompletableFuture()
        queue.append(_event(future.get))
        assert not queue.is_empty()
        assert queue.size() == 1
        queue.append(_event(future.get))
        assert queue.size() == 2
        future.complete(None)
        _wait_for_condition(queue.is_empty, "Failed to see the queue become empty.")
        queue.schedule_deferred("later", lambda _: SYSTEM_TIME.nanoseconds() + ONE_HOUR_NS, _event(lambda: None))
        assert not queue.is_empty()
        queue.schedule_deferred("soon", lambda _: SYSTEM_TIME.nanoseconds() + NS_PER_MS, _event(lambda: None))
        assert not queue.is_empty()
        queue.cancel_deferred("later")
        queue.cancel_deferred("soon")
        _wait_for_condition(queue.is_empty, "Failed to see the queue become empty.")
        assert queue.is_empty()


def test_handle_exception_throwing_an_exception(log_context: str) -> None:
    """The queue goes on handling events after an Event's handle_exception itself throws."""
    with KafkaEventQueue(SYSTEM_TIME, log_context, "testHandleExceptionThrowingAnException") as queue:
        initial_future: _CompletableFuture[None] = _CompletableFuture()
        queue.append(_event(initial_future.get))
        counter = _AtomicInteger(0)

        class _Event(Event):
            def run(self) -> None:
                counter.increment_and_get()
                raise RuntimeError("First exception")  # Java's IllegalStateException

            def handle_exception(self, e: BaseException) -> None:
                if isinstance(e, RuntimeError):
                    counter.increment_and_get()
                    raise RuntimeError("Second exception")

        queue.append(_Event())
        queue.append(_event(counter.increment_and_get))
        assert queue.size() == 3
        initial_future.complete(None)
        _wait_for_condition(lambda: counter.get() == 3, "Failed to see all events execute as planned.")


def test_interrupted_exception_handling(log_context: str) -> None:
    with KafkaEventQueue(SYSTEM_TIME, log_context, "testInterruptedExceptionHandling") as queue:
        queue_thread: _CompletableFuture[threading.Thread] = _CompletableFuture()
        num_calls_to_run = _AtomicInteger(0)
        num_interrupted_exceptions_seen = _AtomicInteger(0)
        for _ in range(4):
            queue.append(InterruptibleEvent(queue_thread, num_calls_to_run, num_interrupted_exceptions_seen))
        queue_thread.get().interrupt()

        def one_call_to_run() -> None:
            assert num_calls_to_run.get() == 1

        def three_interrupted_exceptions_seen() -> None:
            assert num_interrupted_exceptions_seen.get() == 3

        _retry_on_exception_with_timeout(30000, one_call_to_run)
        _retry_on_exception_with_timeout(30000, three_interrupted_exceptions_seen)


def test_interrupted_with_empty_queue(log_context: str) -> None:
    cleanup_future: _CompletableFuture[None] = _CompletableFuture()
    with KafkaEventQueue(SYSTEM_TIME, log_context, "testInterruptedWithEmptyQueue",
                         _event(lambda: cleanup_future.complete(None))) as queue:
        queue_thread: _CompletableFuture[threading.Thread] = _CompletableFuture()
        queue.append(_event(lambda: queue_thread.complete(threading.current_thread())))

        def queue_empty() -> None:
            assert queue.size() == 0

        _retry_on_exception_with_timeout(30000, queue_empty)
        queue_thread.get().interrupt()
        cleanup_future.get()
        ie_trapper = ExceptionTrapperEvent()
        queue.append(ie_trapper)
        assert type(ie_trapper.exception.get()) is InterruptedError
        queue.close()
        re_trapper = ExceptionTrapperEvent()
        queue.append(re_trapper)
        assert type(re_trapper.exception.get()) is RejectedExecutionException


def test_interrupted_with_deferred_events(log_context: str) -> None:
    cleanup_future: _CompletableFuture[None] = _CompletableFuture()
    with KafkaEventQueue(SYSTEM_TIME, log_context, "testInterruptedWithDeferredEvents",
                         _event(lambda: cleanup_future.complete(None))) as queue:
        queue_thread: _CompletableFuture[threading.Thread] = _CompletableFuture()
        queue.append(_event(lambda: queue_thread.complete(threading.current_thread())))
        ie_trapper1 = ExceptionTrapperEvent()
        ie_trapper2 = ExceptionTrapperEvent()
        queue.schedule_deferred("ie2", lambda _: SYSTEM_TIME.nanoseconds() + 2 * ONE_HOUR_NS, ie_trapper2)
        queue.schedule_deferred("ie1", lambda _: SYSTEM_TIME.nanoseconds() + ONE_HOUR_NS, ie_trapper1)

        def two_deferred() -> None:
            assert queue.size() == 2

        _retry_on_exception_with_timeout(30000, two_deferred)
        queue_thread.get().interrupt()
        cleanup_future.get()
        assert type(ie_trapper1.exception.get()) is InterruptedError
        assert type(ie_trapper2.exception.get()) is InterruptedError
