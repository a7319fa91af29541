"""Port of raft/src/main/java/org/apache/kafka/raft/internals/FuturePurgatory.java and ThresholdPurgatory.java
(Kafka 3.9): futures parked until a value reaches their threshold, or their timeout expires."""

from __future__ import annotations

import itertools
import threading
from typing import Any

from kafka_edu.v3_9.raft.raft.expiration_service import ExpirationService
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture


class ThresholdPurgatory:
    """`await_(threshold, max_wait_ms)` parks a future; `maybe_complete(value, now)` completes (with `now`) every
    one whose threshold is <= `value`. The fetch purgatory waits on the log end, the append purgatory on the
    high watermark."""

    def __init__(self, expiration_service: ExpirationService) -> None:
        self._expiration_service = expiration_service
        self._ids = itertools.count()
        self._lock = threading.Lock()
        self._threshold_map: dict[tuple[Any, int], CompletableFuture] = {}

    def await_(self, threshold: Any, max_wait_time_ms: int) -> CompletableFuture:
        key = (threshold, next(self._ids))
        future = self._expiration_service.fail_after(max_wait_time_ms)
        with self._lock:
            self._threshold_map[key] = future

        def remove(_value: Any, _exception: BaseException | None) -> None:
            with self._lock:
                self._threshold_map.pop(key, None)
        future.when_complete(remove)
        return future

    def maybe_complete(self, value: Any, current_time_ms: int) -> None:
        with self._lock:
            ready = [f for (threshold, _), f in sorted(self._threshold_map.items(), key=lambda item: item[0])
                     if threshold <= value]
        for future in ready:
            future.complete(current_time_ms)

    def complete_all(self, value: int) -> None:
        with self._lock:
            futures = list(self._threshold_map.values())
        for future in futures:
            future.complete(value)

    def complete_all_exceptionally(self, exception: BaseException) -> None:
        with self._lock:
            futures = list(self._threshold_map.values())
        for future in futures:
            future.complete_exceptionally(exception)

    def num_waiting(self) -> int:
        return len(self._threshold_map)
