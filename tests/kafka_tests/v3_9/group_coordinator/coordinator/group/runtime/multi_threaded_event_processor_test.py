"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/runtime/
MultiThreadedEventProcessorTest.java (Kafka 3.9).

The processor's threads are real and non-daemon: every case closes its processor (a `with` block or a `finally`), so
no thread outlives it. Mockito's mock of GroupCoordinatorRuntimeMetrics is a `Mock` specced on the port's
CoordinatorRuntimeMetrics interface (no implementation is ported: there is no metrics registry); `verify(mock,
times(n)).m(x)` counts the calls of `m` with `x`. CountDownLatch is a threading.Event, `future.get(...)` throwing an
ExecutionException caused by X is `pytest.raises` of exactly X (a Python future raises the cause).

Every wait is bounded: the class's @Timeout(60) has no pytest equivalent here, so the waits Kafka leaves to it (the
`DEFAULT_MAX_WAIT_MS` seconds given to `get`) wait at most those 60 s.
"""

from __future__ import annotations

import concurrent.futures
import threading
from collections.abc import Callable
from typing import Generic, TypeVar
from unittest.mock import Mock

import pytest

from kafka_edu.v1_0_2.clients.common.errors import RejectedExecutionException
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM, Time
from kafka_edu.v3_9.group_coordinator.coordinator.group.metrics.coordinator_runtime_metrics import (
    CoordinatorRuntimeMetrics,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_event import CoordinatorEvent
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.event_accumulator import EventAccumulator
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.multi_threaded_event_processor import (
    MultiThreadedEventProcessor,
)
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import wait_until_true

KAFKA = kafka_test_class(
    "3.9",
    "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/runtime/MultiThreadedEventProcessorTest.java",
    cases=[
        "testCreateAndClose",
        "testEventsAreProcessed",
        "testProcessingGuarantees",
        "testEventsAreRejectedWhenClosed",
        "testEventsAreDrainedWhenClosed",
        "testMetrics",
        "testRecordThreadIdleRatio",
    ],
)

T = TypeVar("T")
TIMEOUT_S = 60.0  # the class's @Timeout(60)
LOG_CONTEXT = ""  # new LogContext(): no prefix


class DelayEventAccumulator(EventAccumulator[TopicPartition, CoordinatorEvent]):
    """Each poll, event or not, moves the (mock) time on by `take_delay_ms`."""

    def __init__(self, time: Time, take_delay_ms: int) -> None:
        super().__init__()
        self._time = time
        self._take_delay_ms = take_delay_ms

    def poll(self, timeout_ms: int = 0) -> CoordinatorEvent | None:
        event = super().poll(timeout_ms)
        self._time.sleep(self._take_delay_ms)
        return event


class FutureEvent(CoordinatorEvent, Generic[T]):
    """Runs `supplier` into `future`; a blocking one then waits for `release()` before completing."""

    def __init__(self, key: TopicPartition, supplier: Callable[[], T], block: bool = False,
                 created_time_ms: int = 0) -> None:
        self._key = key
        self.future: CompletableFuture[T] = CompletableFuture()
        self._supplier = supplier
        self._block = block
        self._latch = threading.Event()
        self._executed = threading.Event()
        self._created_time_ms = created_time_ms

    def run(self) -> None:
        result = self._supplier()
        self._executed.set()
        if self._block:
            # bounded, unlike Java's latch.await(): a case that fails must not leave the thread blocked for ever
            self._latch.wait(TIMEOUT_S)
        self.future.complete(result)

    def complete(self, exception: BaseException | None) -> None:
        self.future.complete_exceptionally(exception)

    def created_time_ms(self) -> int:
        return self._created_time_ms

    def key(self) -> TopicPartition:
        return self._key

    def release(self) -> None:
        self._latch.set()

    def await_execution(self, timeout_s: float) -> bool:
        return self._executed.wait(timeout_s)

    def __repr__(self) -> str:
        return f"FutureEvent(key={self._key})"


class AtomicInteger:
    def __init__(self, value: int = 0) -> None:
        self._lock = threading.Lock()
        self._value = value

    def increment_and_get(self) -> int:
        with self._lock:
            self._value += 1
            return self._value

    def get(self) -> int:
        with self._lock:
            return self._value


def _metrics() -> Mock:
    return Mock(spec=CoordinatorRuntimeMetrics)


def _all_of(events: list[FutureEvent[int]], timeout_s: float) -> None:
    """CompletableFuture.allOf(...).get(timeout): every future done in time, none failed."""
    done, not_done = concurrent.futures.wait([e.future for e in events], timeout=timeout_s)
    if not_done:
        raise TimeoutError(f"{len(not_done)} events not completed within {timeout_s} s")
    for f in done:
        f.result()


def _times(method: Mock, arg: int) -> int:
    return sum(1 for c in method.call_args_list if c.args == (arg,))


def test_create_and_close():
    event_processor = MultiThreadedEventProcessor(LOG_CONTEXT, "event-processor-", 2, SYSTEM, _metrics())
    event_processor.close()


def test_events_are_processed():
    with MultiThreadedEventProcessor(LOG_CONTEXT, "event-processor-", 2, SYSTEM, _metrics()) as event_processor:
        num_events_executed = AtomicInteger(0)

        events: list[FutureEvent[int]] = [
            FutureEvent(TopicPartition("foo", 0), num_events_executed.increment_and_get),
            FutureEvent(TopicPartition("foo", 1), num_events_executed.increment_and_get),
            FutureEvent(TopicPartition("foo", 2), num_events_executed.increment_and_get),
            FutureEvent(TopicPartition("foo", 0), num_events_executed.increment_and_get),
            FutureEvent(TopicPartition("foo", 1), num_events_executed.increment_and_get),
            FutureEvent(TopicPartition("foo", 2), num_events_executed.increment_and_get),
        ]

        for event in events:
            event_processor.enqueue_last(event)

        _all_of(events, 10)

        for event in events:
            assert event.future.done()
            assert not event.future.is_completed_exceptionally()

        assert num_events_executed.get() == len(events)


def test_processing_guarantees():
    with MultiThreadedEventProcessor(LOG_CONTEXT, "event-processor-", 2, SYSTEM, _metrics()) as event_processor:
        num_events_executed = AtomicInteger(0)
        events: list[FutureEvent[int]] = []
        try:
            events.extend([
                FutureEvent(TopicPartition("foo", 0), num_events_executed.increment_and_get, True),  # Event 0
                FutureEvent(TopicPartition("foo", 1), num_events_executed.increment_and_get, True),  # Event 1
                FutureEvent(TopicPartition("foo", 0), num_events_executed.increment_and_get, True),  # Event 2
                FutureEvent(TopicPartition("foo", 1), num_events_executed.increment_and_get, True),  # Event 3
                FutureEvent(TopicPartition("foo", 0), num_events_executed.increment_and_get, True),  # Event 4
                FutureEvent(TopicPartition("foo", 1), num_events_executed.increment_and_get, True),  # Event 5
            ])

            for event in events:
                event_processor.enqueue_last(event)

            # one event of each partition runs at once: 0 and 1 first
            assert events[0].await_execution(5)
            assert events[1].await_execution(5)

            events[0].release()

            result = events[0].future.result(5)
            assert result in (1, 2), f"Expected 1 or 2 but was {result}"

            # the next event of partition 0 runs once event 0 is done
            assert events[2].await_execution(5)

            events[2].release()

            assert events[2].future.result(5) == 3

            assert events[4].await_execution(5)

            events[1].release()

            result = events[1].future.result(5)
            assert result in (1, 2), f"Expected 1 or 2 but was {result}"

            assert events[3].await_execution(5)

            events[4].release()

            assert events[4].future.result(5) == 4

            events[3].release()

            assert events[3].future.result(5) == 5

            assert events[5].await_execution(5)

            events[5].release()

            assert events[5].future.result(5) == 6

            for event in events:
                assert event.future.done()
                assert not event.future.is_completed_exceptionally()

            assert num_events_executed.get() == len(events)
        finally:
            # a failed assertion must not leave a thread blocked on its event: close() would wait for it
            for event in events:
                event.release()


def test_events_are_rejected_when_closed():
    event_processor = MultiThreadedEventProcessor(LOG_CONTEXT, "event-processor-", 2, SYSTEM, _metrics())

    event_processor.close()

    with pytest.raises(RejectedExecutionException):
        event_processor.enqueue_last(FutureEvent(TopicPartition("foo", 0), lambda: 0))


def test_events_are_drained_when_closed():
    # a single thread, so the blocking event holds the processor
    with MultiThreadedEventProcessor(LOG_CONTEXT, "event-processor-", 1, SYSTEM, _metrics()) as event_processor:
        num_events_executed = AtomicInteger(0)

        blocking_event: FutureEvent[int] = FutureEvent(
            TopicPartition("foo", 0), num_events_executed.increment_and_get, True)
        try:
            events: list[FutureEvent[int]] = [
                FutureEvent(TopicPartition("foo", 0), num_events_executed.increment_and_get) for _ in range(6)
            ]

            event_processor.enqueue_last(blocking_event)

            wait_until_true(lambda: num_events_executed.get() > 0, "Blocking event not executed.")

            for event in events:
                event_processor.enqueue_last(event)

            for event in events:
                assert not event.future.done()

            event_processor.begin_shutdown()

            # the accumulator is closed first: new events are refused at once
            with pytest.raises(RejectedExecutionException):
                event_processor.enqueue_last(blocking_event)

            blocking_event.release()

            blocking_event.future.result(TIMEOUT_S)
            assert blocking_event.future.done()
            assert not blocking_event.future.is_completed_exceptionally()

            # the queued events were failed, not run
            for event in events:
                with pytest.raises(RejectedExecutionException) as raised:
                    event.future.result(TIMEOUT_S)
                assert type(raised.value) is RejectedExecutionException

            assert num_events_executed.get() == 1
        finally:
            blocking_event.release()


def test_metrics():
    mock_runtime_metrics = _metrics()
    mock_time = MockTime()
    num_events_executed = AtomicInteger(0)

    def blocking_supplier() -> int:
        mock_time.sleep(4000)
        return num_events_executed.increment_and_get()

    blocking_event: FutureEvent[int] = FutureEvent(
        TopicPartition("foo", 0), blocking_supplier, True, mock_time.milliseconds())

    # a single thread, so the blocking event holds the processor
    with MultiThreadedEventProcessor(LOG_CONTEXT, "event-processor-", 1, mock_time, mock_runtime_metrics,
                                     DelayEventAccumulator(mock_time, 500)) as event_processor:
        try:
            event_processor.enqueue_last(blocking_event)

            wait_until_true(lambda: num_events_executed.get() > 0, "Blocking event not executed.")

            def other_supplier() -> int:
                mock_time.sleep(5000)
                return num_events_executed.increment_and_get()

            other_event: FutureEvent[int] = FutureEvent(
                TopicPartition("foo", 0), other_supplier, False, mock_time.milliseconds())

            event_processor.enqueue_last(other_event)

            mock_time.sleep(3000)

            assert not other_event.future.done()

            blocking_event.release()

            blocking_event.future.result(TIMEOUT_S)
            assert blocking_event.future.done()
            assert not blocking_event.future.is_completed_exceptionally()

            other_event.future.result(TIMEOUT_S)
            assert other_event.future.done()
            assert not other_event.future.is_completed_exceptionally()
            assert num_events_executed.get() == 2

            # e1: polled in 500, processed in 4000; e2: enqueued 3000 before e1 is released, polled in 500
            # e1's queue time: its poll
            assert _times(mock_runtime_metrics.record_event_queue_time, 500) == 1
            # e1's processing time, and e2's wait while e1 blocks
            assert _times(mock_runtime_metrics.record_event_queue_processing_time, 7000) == 1
            # both polls
            assert _times(mock_runtime_metrics.record_thread_idle_time, 500) == 2
            # e2's queue time: its wait and its poll
            assert _times(mock_runtime_metrics.record_event_queue_time, 3500) == 1
        finally:
            blocking_event.release()


def test_record_thread_idle_ratio():
    mock_runtime_metrics = _metrics()
    time = MockTime()

    with MultiThreadedEventProcessor(LOG_CONTEXT, "event-processor-", 1, time, mock_runtime_metrics,
                                     DelayEventAccumulator(time, 100)) as event_processor:
        recorded_idle_times_ms: list[int] = []
        num_events_executed = AtomicInteger(0)

        def record_thread_idle_time(thread_idle_time: int) -> None:
            assert thread_idle_time == 100
            # one processor thread: no lock needed
            recorded_idle_times_ms.append(thread_idle_time)

        mock_runtime_metrics.record_thread_idle_time.side_effect = record_thread_idle_time

        keys = [0, 1, 2, 0, 1, 2, 2, 2]
        events: list[FutureEvent[int]] = [
            FutureEvent(TopicPartition("foo", k), num_events_executed.increment_and_get) for k in keys
        ]

        start_ms = time.milliseconds()
        for event in events:
            event_processor.enqueue_last(event)

        _all_of(events, 10)
        for event in events:
            assert event.future.done()
            assert not event.future.is_completed_exceptionally()

        assert num_events_executed.get() == len(events)
        assert mock_runtime_metrics.record_thread_idle_time.call_count == 8
        assert len(recorded_idle_times_ms) == 8

        diff = time.milliseconds() - start_ms
        total = sum(recorded_idle_times_ms)
        idle_ratio = total / diff

        assert idle_ratio == 1.0, f"idle ratio should be 1.0 but was: {idle_ratio}"
