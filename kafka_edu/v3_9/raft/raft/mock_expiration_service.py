"""Port of raft/src/test/java/org/apache/kafka/raft/MockExpirationService.java (Kafka 3.9): futures that fail with
TimeoutException when a MockTime passes their deadline (it listens to the clock), rather than on a reaper thread."""

from __future__ import annotations

import heapq
import itertools
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import TimeoutException
from kafka_edu.v3_9.raft.raft.expiration_service import ExpirationService
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture


class MockExpirationService(ExpirationService):
    """MockExpirationService(MockTime): registers itself as the clock's listener."""

    def __init__(self, time: Any) -> None:
        self._ids = itertools.count(1)
        self.time = time
        self._queue: list[tuple[int, int, CompletableFuture]] = []  # (deadline, id, future): Java's PriorityQueue
        time.add_listener(self)

    def fail_after(self, timeout_ms: int) -> CompletableFuture:
        deadline_ms = self.time.milliseconds() + timeout_ms
        future: CompletableFuture = CompletableFuture()
        heapq.heappush(self._queue, (deadline_ms, next(self._ids), future))
        return future

    def on_time_updated(self) -> None:
        current_time_ms = self.time.milliseconds()
        while self._queue and self._queue[0][0] <= current_time_ms:
            _, _, future = heapq.heappop(self._queue)
            if not future.done():
                future.complete_exceptionally(TimeoutException())
