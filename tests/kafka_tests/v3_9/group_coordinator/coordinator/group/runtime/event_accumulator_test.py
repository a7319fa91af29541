"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/runtime/EventAccumulatorTest.java
(Kafka 3.9).

Java's `CompletableFuture.supplyAsync(() -> accumulator.poll(Long.MAX_VALUE, ...))` is `_poll_async`: a thread
polling with no practical timeout into a future; `CompletableFuture.anyOf(...).get(5, SECONDS)` waits for the first
of them. Each case joins the polling threads it started.
"""

from __future__ import annotations

import concurrent.futures
import threading

from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.event_accumulator import EventAccumulator
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/runtime/EventAccumulatorTest.java",
    cases=[
        "testBasicOperations",
        "testAddFirst",
        "testKeyConcurrentAndOrderingGuarantees",
        "testDoneUnblockWaitingThreads",
        "testCloseUnblockWaitingThreads",
    ],
)

LONG_MAX_VALUE = 2**63 - 1


class MockEvent(EventAccumulator.Event[int]):
    def __init__(self, key: int, value: int) -> None:
        self._key = key
        self.value = value

    def key(self) -> int:
        return self._key

    def __eq__(self, o: object) -> bool:
        if self is o:
            return True
        if o is None or type(o) is not type(self):
            return False
        return self._key == o._key and self.value == o.value

    def __hash__(self) -> int:
        return 31 * self._key + self.value

    def __repr__(self) -> str:
        return f"MockEvent(key={self._key}, value={self.value})"


def _poll_async(accumulator: EventAccumulator[int, MockEvent],
                threads: list[threading.Thread]) -> CompletableFuture[MockEvent | None]:
    future: CompletableFuture[MockEvent | None] = CompletableFuture()

    def run() -> None:
        try:
            future.complete(accumulator.poll(LONG_MAX_VALUE))
        except BaseException as e:
            future.complete_exceptionally(e)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    threads.append(thread)
    return future


def _any_of(futures: list[CompletableFuture[MockEvent | None]], timeout_s: float) -> MockEvent | None:
    done, _ = concurrent.futures.wait(futures, timeout=timeout_s, return_when=concurrent.futures.FIRST_COMPLETED)
    if not done:
        raise TimeoutError(f"none of the futures completed within {timeout_s} s")
    return next(iter(done)).result()


def _join(threads: list[threading.Thread]) -> None:
    for thread in threads:
        thread.join(5)
        assert not thread.is_alive()


def test_basic_operations():
    accumulator: EventAccumulator[int, MockEvent] = EventAccumulator()

    assert accumulator.size() == 0
    assert accumulator.poll() is None

    events = [
        MockEvent(1, 0),
        MockEvent(1, 1),
        MockEvent(1, 2),
        MockEvent(2, 0),
        MockEvent(2, 1),
        MockEvent(2, 3),
        MockEvent(3, 0),
        MockEvent(3, 1),
        MockEvent(3, 2),
    ]

    for e in events:
        accumulator.add_last(e)
    assert accumulator.size() == 9

    polled_events = set()
    for i in range(len(events)):
        event = accumulator.poll()
        assert event is not None
        polled_events.add(event)
        assert accumulator.size() == len(events) - 1 - i
        accumulator.done(event)

    assert accumulator.poll() is None
    assert polled_events == set(events)
    assert accumulator.size() == 0

    accumulator.close()


def test_add_first():
    accumulator: EventAccumulator[int, MockEvent] = EventAccumulator()

    events = [
        MockEvent(1, 0),
        MockEvent(1, 1),
        MockEvent(1, 2),
    ]

    for e in events:
        accumulator.add_first(e)
    assert accumulator.size() == 3

    polled_events = []
    for i in range(len(events)):
        event = accumulator.poll()
        assert event is not None
        polled_events.append(event)
        assert accumulator.size() == len(events) - 1 - i
        accumulator.done(event)

    events.reverse()
    assert polled_events == events

    accumulator.close()


def test_key_concurrent_and_ordering_guarantees():
    accumulator: EventAccumulator[int, MockEvent] = EventAccumulator()

    event0 = MockEvent(1, 0)
    event1 = MockEvent(1, 1)
    event2 = MockEvent(1, 2)
    accumulator.add_last(event0)
    accumulator.add_last(event1)
    accumulator.add_last(event2)
    assert accumulator.size() == 3

    event = accumulator.poll()
    assert event == event0

    # the key is in flight
    assert accumulator.poll() is None
    accumulator.done(event)

    event = accumulator.poll()
    assert event == event1

    assert accumulator.poll() is None
    accumulator.done(event)

    event = accumulator.poll()
    assert event == event2

    assert accumulator.poll() is None
    accumulator.done(event)

    accumulator.close()


def test_done_unblock_waiting_threads():
    accumulator: EventAccumulator[int, MockEvent] = EventAccumulator()
    threads: list[threading.Thread] = []

    event0 = MockEvent(1, 0)
    event1 = MockEvent(1, 1)
    event2 = MockEvent(1, 2)

    try:
        future0 = _poll_async(accumulator, threads)
        future1 = _poll_async(accumulator, threads)
        future2 = _poll_async(accumulator, threads)
        futures = [future0, future1, future2]

        assert not future0.done()
        assert not future1.done()
        assert not future2.done()

        accumulator.add_last(event0)
        accumulator.add_last(event1)
        accumulator.add_last(event2)

        # one poller gets event0; the others wait, its key being in flight
        assert _any_of(futures, 5) == event0

        futures = [f for f in futures if not f.done()]
        assert len(futures) == 2

        accumulator.done(event0)

        assert _any_of(futures, 5) == event1

        futures = [f for f in futures if not f.done()]
        assert len(futures) == 1

        accumulator.done(event1)

        assert _any_of(futures, 5) == event2

        futures = [f for f in futures if not f.done()]
        assert len(futures) == 0

        accumulator.done(event2)

        assert accumulator.size() == 0
    finally:
        accumulator.close()
        _join(threads)


def test_close_unblock_waiting_threads():
    accumulator: EventAccumulator[int, MockEvent] = EventAccumulator()
    threads: list[threading.Thread] = []

    try:
        future0 = _poll_async(accumulator, threads)
        future1 = _poll_async(accumulator, threads)
        future2 = _poll_async(accumulator, threads)

        assert not future0.done()
        assert not future1.done()
        assert not future2.done()

        # closing wakes every poller, with nothing
        accumulator.close()

        assert future0.result(5) is None
        assert future1.result(5) is None
        assert future2.result(5) is None
    finally:
        accumulator.close()
        _join(threads)
