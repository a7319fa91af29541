"""Port of core/src/main/scala/kafka/server/DelayedFuture.scala (Kafka 3.9): a delayed operation that waits for a set
of futures (an async Authorizer's ACL updates), and the purgatory that completes it on a "DelayedExecutor-<name>"
thread once they are all done."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Generic, TypeVar

from kafka_edu.v1_0_2.clients.common.errors import TimeoutException
from kafka_edu.v3_9.core.server.delayed_operation import DelayedOperation, DelayedOperationPurgatory
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture

T = TypeVar("T")

log = logging.getLogger("kafka.server.DelayedFuture")


class DelayedFuture(DelayedOperation, Generic[T]):
    def __init__(self, timeout_ms: int, futures: Sequence[CompletableFuture[T]],
                 response_callback: Callable[[], None]) -> None:
        super().__init__(timeout_ms)
        self.timeout_ms = timeout_ms
        self.futures = futures
        self.response_callback = response_callback

    def try_complete(self) -> bool:
        """Completable once every future is done, successfully or not."""
        log.debug("Trying to complete operation for %d futures", len(self.futures))

        pending = sum(1 for future in self.futures if not future.done())
        if pending == 0:
            log.debug("All futures have been completed or have errors, completing the delayed operation")
            return self.force_complete()
        log.debug("%d future still pending, not completing the delayed operation", pending)
        return False

    def on_complete(self) -> None:
        """Time out the futures still pending, then call back: all are done, or the operation expired."""
        pending_futures = [future for future in self.futures if not future.done()]
        log.debug("Completing operation for %d futures, expired %d", len(self.futures), len(pending_futures))
        for future in pending_futures:
            future.complete_exceptionally(TimeoutException(f"Request has been timed out after {self.timeout_ms} ms"))
        self.response_callback()

    def on_expiration(self) -> None:
        """Nothing: `on_complete` has run first."""


class DelayedFuturePurgatory:
    def __init__(self, purgatory_name: str, broker_id: int) -> None:
        self._purgatory: DelayedOperationPurgatory[DelayedFuture[Any]] = DelayedOperationPurgatory.apply(
            purgatory_name, broker_id)
        # one thread, created by the first task
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"DelayedExecutor-{purgatory_name}")
        self._is_shutdown = False
        self._purgatory_key = object()

    def try_complete_else_watch(self, timeout_ms: int, futures: Sequence[CompletableFuture[T]],
                                response_callback: Callable[[], None]) -> DelayedFuture[T]:
        delayed_future = DelayedFuture(timeout_ms, futures, response_callback)
        done = self._purgatory.try_complete_else_watch(delayed_future, [self._purgatory_key])
        if not done:
            # CompletableFuture.allOf(futures).whenCompleteAsync(forceComplete, executor)
            _when_all_complete_async(futures, delayed_future.force_complete, self._executor)
        return delayed_future

    def shutdown(self) -> None:
        self._is_shutdown = True
        self._executor.shutdown(wait=True, cancel_futures=True)
        self._purgatory.shutdown()

    @property
    def is_shutdown(self) -> bool:
        return self._is_shutdown


def _when_all_complete_async(futures: Sequence[Future], action: Callable[[], object],
                             executor: ThreadPoolExecutor) -> None:
    """Submit `action` to `executor` once every future is done."""
    remaining = [len(futures)]
    lock = threading.Lock()

    def one_done(_: Future) -> None:
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            executor.submit(action)

    if not futures:
        executor.submit(action)
    for future in futures:
        future.add_done_callback(one_done)
