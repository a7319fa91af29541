"""Port of raft/src/main/java/org/apache/kafka/raft/ExpirationService.java and
core/src/main/scala/kafka/raft/TimingWheelExpirationService.scala (Kafka 3.9).

`fail_after(timeout_ms)` gives a future that fails with TimeoutException once the timeout passes, unless it is
completed first: the long-poll Fetch and the append waiting for its commit sit on such futures. Kafka reaps them with
a timing wheel on the "raft-expiration-reaper" thread; here one thread waits on a heap of deadlines.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from abc import ABC, abstractmethod

from kafka_edu.v1_0_2.clients.common.errors import TimeoutException
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from kafka_edu.v3_9.server_common.server.util.shutdownable_thread import ShutdownableThread


class ExpirationService(ABC):
    @abstractmethod
    def fail_after(self, timeout_ms: int) -> CompletableFuture: ...


class TimingWheelExpirationService(ExpirationService):
    def __init__(self, thread_name: str = "raft-expiration-reaper") -> None:
        self._lock = threading.Condition()
        self._heap: list[tuple[float, int, CompletableFuture]] = []
        self._ids = itertools.count()
        self._reaper = _ExpiredOperationReaper(self, thread_name)
        self._reaper.start()

    def fail_after(self, timeout_ms: int) -> CompletableFuture:
        future: CompletableFuture = CompletableFuture()
        deadline = time.monotonic() + timeout_ms / 1000
        with self._lock:
            heapq.heappush(self._heap, (deadline, next(self._ids), future))
            if self._heap[0][2] is future:
                self._lock.notify()
        return future

    def _advance_clock(self, max_wait_s: float) -> None:
        """Fail the futures whose deadline passed; wait (at most `max_wait_s`) for the next one otherwise."""
        expired = []
        with self._lock:
            now = time.monotonic()
            while self._heap and (self._heap[0][0] <= now or self._heap[0][2].done()):
                expired.append(heapq.heappop(self._heap)[2])
            if not expired:
                wait = max_wait_s if not self._heap else min(max_wait_s, self._heap[0][0] - now)
                self._lock.wait(max(wait, 0))
        for future in expired:
            if not future.done():
                future.complete_exceptionally(TimeoutException("Future failed to be completed before timeout"))

    def shutdown(self) -> None:
        self._reaper.initiate_shutdown()
        with self._lock:
            self._lock.notify()
        self._reaper.await_shutdown()


class _ExpiredOperationReaper(ShutdownableThread):
    def __init__(self, service: TimingWheelExpirationService, name: str) -> None:
        super().__init__(name, is_interruptible=False, logger_name="kafka.raft.TimingWheelExpirationService",
                         daemon=True)
        self.service = service

    def do_work(self) -> None:
        self.service._advance_clock(0.2)
