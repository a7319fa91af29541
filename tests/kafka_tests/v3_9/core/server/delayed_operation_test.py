"""Port of core/src/test/scala/unit/kafka/server/DelayedOperationTest.scala (Kafka 3.9).

Differences of form only:
- Kafka's MockDelayedOperation waits and notifies on its own monitor; here on a Condition of its own, and
  `await_expiration` waits until `on_complete` has notified rather than for the next notify.
- ReentrantLock.isHeldByCurrentThread is RLock's `_is_owned()`.
- Executors.newScheduledThreadPool(20) is the 3.9 KafkaScheduler with 20 threads; the random pauses inside
  tryComplete are Kafka's own (they widen the timing windows under test), not synchronisation.
- The purgatory's gauges are not ported (no metrics registry) and no case asserts on them.
- Kafka's verifyDelayedOperationLock helper is called by no 3.9 test, so it is not ported.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException, TimeoutException
from kafka_edu.v1_0_2.core.utils.concurrent import AtomicInteger
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM
from kafka_edu.v3_9.core.server.delayed_future import DelayedFuturePurgatory
from kafka_edu.v3_9.core.server.delayed_operation import DelayedOperation, DelayedOperationPurgatory
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from kafka_edu.v3_9.server_common.server.util.kafka_scheduler import KafkaScheduler
from kafka_edu.v3_9.server_common.server.util.scheduler import ScheduledFuture
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import wait_until_true

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/server/DelayedOperationTest.scala",
    cases=[
        "testLockInTryCompleteElseWatch",
        "testSafeTryCompleteOrElse",
        "testRequestSatisfaction",
        "testRequestExpiry",
        "testDelayedFuture",
        "testRequestPurge",
        "shouldCancelForKeyReturningCancelledOperations",
        "shouldReturnNilOperationsOnCancelForKeyWhenKeyDoesntExist",
        "testTryCompleteWithMultipleThreads",
    ],
)


class MockDelayedOperation(DelayedOperation):
    def __init__(self, delay_ms: int, lock_opt: threading.RLock | None = None,
                 response_lock_opt: threading.RLock | None = None) -> None:
        super().__init__(delay_ms, lock_opt)
        self.response_lock_opt = response_lock_opt
        self.completable = False
        self._monitor = threading.Condition()
        self._notified = False

    def await_expiration(self) -> None:
        with self._monitor:
            self._monitor.wait_for(lambda: self._notified)

    def try_complete(self) -> bool:
        if self.completable:
            return self.force_complete()
        return False

    def on_expiration(self) -> None:
        pass

    def on_complete(self) -> None:
        if self.response_lock_opt is not None and not self.response_lock_opt.acquire(blocking=False):
            raise IllegalStateException("Response callback lock could not be acquired in callback")
        with self._monitor:
            self._notified = True
            self._monitor.notify()


@pytest.fixture
def purgatory() -> Iterator[DelayedOperationPurgatory[DelayedOperation]]:
    purgatory = DelayedOperationPurgatory.apply(purgatory_name="mock")
    yield purgatory
    purgatory.shutdown()


class _NoOpOperation(DelayedOperation):
    def on_expiration(self) -> None:
        pass

    def on_complete(self) -> None:
        pass


def test_lock_in_try_complete_else_watch(purgatory: DelayedOperationPurgatory[DelayedOperation]) -> None:
    class Op(_NoOpOperation):
        def try_complete(self) -> bool:
            assert self.lock._is_owned()
            return False

        def safe_try_complete(self) -> bool:
            pytest.fail("tryCompleteElseWatch should not use safeTryComplete")

    purgatory.try_complete_else_watch(Op(100000), ["key"])


def test_safe_try_complete_or_else() -> None:
    def op(should_complete: bool) -> DelayedOperation:
        class Op(_NoOpOperation):
            def try_complete(self) -> bool:
                assert self.lock._is_owned()
                return should_complete
        return Op(100000)

    passed = []
    assert not op(False).safe_try_complete_or_else(lambda: passed.append(True))
    assert passed == [True]
    assert op(True).safe_try_complete_or_else(lambda: pytest.fail("this method should NOT be executed"))


def test_request_satisfaction(purgatory: DelayedOperationPurgatory[DelayedOperation]) -> None:
    r1 = MockDelayedOperation(100000)
    r2 = MockDelayedOperation(100000)
    assert purgatory.check_and_complete("test1") == 0, "With no waiting requests, nothing should be satisfied"
    assert not purgatory.try_complete_else_watch(r1, ["test1"]), "r1 not satisfied and hence watched"
    assert purgatory.check_and_complete("test1") == 0, "Still nothing satisfied"
    assert not purgatory.try_complete_else_watch(r2, ["test2"]), "r2 not satisfied and hence watched"
    assert purgatory.check_and_complete("test2") == 0, "Still nothing satisfied"
    r1.completable = True
    assert purgatory.check_and_complete("test1") == 1, "r1 satisfied"
    assert purgatory.check_and_complete("test1") == 0, "Nothing satisfied"
    r2.completable = True
    assert purgatory.check_and_complete("test2") == 1, "r2 satisfied"
    assert purgatory.check_and_complete("test2") == 0, "Nothing satisfied"


def test_request_expiry(purgatory: DelayedOperationPurgatory[DelayedOperation]) -> None:
    expiration = 20
    start = SYSTEM.hi_res_clock_ms()
    r1 = MockDelayedOperation(expiration)
    r2 = MockDelayedOperation(200000)
    assert not purgatory.try_complete_else_watch(r1, ["test1"]), "r1 not satisfied and hence watched"
    assert not purgatory.try_complete_else_watch(r2, ["test2"]), "r2 not satisfied and hence watched"
    r1.await_expiration()
    elapsed = SYSTEM.hi_res_clock_ms() - start
    assert r1.is_completed, "r1 completed due to expiration"
    assert not r2.is_completed, "r2 hasn't completed"
    assert elapsed >= expiration, f"Time for expiration {elapsed} should at least {expiration}"


def test_delayed_future() -> None:
    purgatory_name = "testDelayedFuture"
    purgatory = DelayedFuturePurgatory(purgatory_name, broker_id=0)
    try:
        result = AtomicInteger()

        def has_executor_thread() -> bool:
            return any(f"DelayedExecutor-{purgatory_name}" in t.name for t in threading.enumerate())

        def update_result(futures: list[CompletableFuture[int]]) -> None:
            result.set(sum(f.result() for f in futures if not f.is_completed_exceptionally()))

        assert not has_executor_thread(), "Unnecessary thread created"

        # two completed futures: the callback runs at once, on this thread
        futures1 = [CompletableFuture.completed_future(10), CompletableFuture.completed_future(11)]
        r1 = purgatory.try_complete_else_watch(100000, futures1, lambda: update_result(futures1))
        assert r1.is_completed, "r1 not completed"
        assert result.get() == 21
        assert not has_executor_thread(), "Unnecessary thread created"

        # two delayed futures: the callback waits for both
        result.set(-1)
        futures2: list[CompletableFuture[int]] = [CompletableFuture(), CompletableFuture()]
        r2 = purgatory.try_complete_else_watch(100000, futures2, lambda: update_result(futures2))
        assert not r2.is_completed, "r2 should be incomplete"
        futures2[0].complete(20)
        assert not r2.is_completed
        assert result.get() == -1
        futures2[1].complete(21)
        wait_until_true(lambda: r2.is_completed, "r2 not completed")
        wait_until_true(lambda: result.get() == 41, "callback not invoked")
        assert has_executor_thread(), "Thread not created for executing delayed task"

        # one immediate and one delayed future: the callback waits for the delayed one
        result.set(-1)
        futures3: list[CompletableFuture[int]] = [CompletableFuture(), CompletableFuture.completed_future(31)]
        r3 = purgatory.try_complete_else_watch(100000, futures3, lambda: update_result(futures3))
        assert not r3.is_completed, "r3 should be incomplete"
        assert result.get() == -1
        futures3[0].complete(30)
        wait_until_true(lambda: r3.is_completed, "r3 not completed")
        wait_until_true(lambda: result.get() == 61, "callback not invoked")

        # one future does not complete in time: the operation expires and calls back after the timeout
        result.set(-1)
        start = SYSTEM.hi_res_clock_ms()
        expiration_ms = 2000
        futures4: list[CompletableFuture[int]] = [CompletableFuture(), CompletableFuture()]
        r4 = purgatory.try_complete_else_watch(expiration_ms, futures4, lambda: update_result(futures4))
        futures4[0].complete(40)
        wait_until_true(lambda: futures4[1].done(), "r4 futures not expired")
        assert r4.is_completed, "r4 not completed after timeout"
        elapsed = SYSTEM.hi_res_clock_ms() - start
        assert elapsed >= expiration_ms, f"Time for expiration {elapsed} should at least {expiration_ms}"
        assert futures4[0].result() == 40
        assert isinstance(futures4[1].exception(timeout=0), TimeoutException)
        assert result.get() == 40
    finally:
        purgatory.shutdown()


def test_request_purge(purgatory: DelayedOperationPurgatory[DelayedOperation]) -> None:
    r1 = MockDelayedOperation(100000)
    r2 = MockDelayedOperation(100000)
    r3 = MockDelayedOperation(100000)
    purgatory.try_complete_else_watch(r1, ["test1"])
    purgatory.try_complete_else_watch(r2, ["test1", "test2"])
    purgatory.try_complete_else_watch(r3, ["test1", "test2", "test3"])

    assert purgatory.num_delayed == 3, "Purgatory should have 3 total delayed operations"
    assert purgatory.watched == 6, "Purgatory should have 6 watched elements"

    # a completed operation leaves the timer at once
    r2.completable = True
    r2.try_complete()
    assert purgatory.num_delayed == 2, f"Purgatory should have 2 total delayed operations instead of " \
                                       f"{purgatory.num_delayed}"

    r3.completable = True
    r3.try_complete()
    assert purgatory.num_delayed == 1, f"Purgatory should have 1 total delayed operations instead of " \
                                       f"{purgatory.num_delayed}"

    # checking a key purges its watch list
    purgatory.check_and_complete("test1")
    assert purgatory.watched == 4, f"Purgatory should have 4 watched elements instead of {purgatory.watched}"

    purgatory.check_and_complete("test2")
    assert purgatory.watched == 2, f"Purgatory should have 2 watched elements instead of {purgatory.watched}"

    purgatory.check_and_complete("test3")
    assert purgatory.watched == 1, f"Purgatory should have 1 watched elements instead of {purgatory.watched}"


def test_should_cancel_for_key_returning_cancelled_operations(
        purgatory: DelayedOperationPurgatory[DelayedOperation]) -> None:
    purgatory.try_complete_else_watch(MockDelayedOperation(10000), ["key"])
    purgatory.try_complete_else_watch(MockDelayedOperation(10000), ["key"])
    purgatory.try_complete_else_watch(MockDelayedOperation(10000), ["key2"])

    cancelled_operations = purgatory.cancel_for_key("key")
    assert len(cancelled_operations) == 2
    assert purgatory.num_delayed == 1
    assert purgatory.watched == 1


def test_should_return_nil_operations_on_cancel_for_key_when_key_doesnt_exist(
        purgatory: DelayedOperationPurgatory[DelayedOperation]) -> None:
    cancelled_operations = purgatory.cancel_for_key("key")
    assert cancelled_operations == []


def test_try_complete_with_multiple_threads(purgatory: DelayedOperationPurgatory[DelayedOperation]) -> None:
    executor = KafkaScheduler(20)
    executor.startup()
    rnd = random.Random()
    max_delay_ms = 10
    completion_attempts = 20

    class TestDelayOperation(MockDelayedOperation):
        def __init__(self, index: int) -> None:
            super().__init__(10000)
            self.key = f"key{index}"
            self.completion_attempts_remaining = AtomicInteger(completion_attempts)

        def try_complete(self) -> bool:
            should_complete = self.completable
            time.sleep(rnd.randrange(max_delay_ms) / 1000)  # Kafka's random pause, widening the race
            if should_complete:
                return self.force_complete()
            return False

    try:
        ops = []
        for index in range(100):
            op = TestDelayOperation(index)
            purgatory.try_complete_else_watch(op, [op.key])
            ops.append(op)

        def schedule_try_complete(op: TestDelayOperation, delay_ms: int) -> ScheduledFuture:
            def run() -> None:
                if op.completion_attempts_remaining.decrement_and_get() == 0:
                    op.completable = True
                purgatory.check_and_complete(op.key)
            return executor.schedule_once("try-complete", run, delay_ms)

        futures = [schedule_try_complete(op, rnd.randrange(max_delay_ms))
                   for _ in range(completion_attempts) for op in ops]
        for future in futures:
            future.get()

        for op in ops:
            assert op.is_completed, "Operation should have completed"
    finally:
        executor.shutdown()

