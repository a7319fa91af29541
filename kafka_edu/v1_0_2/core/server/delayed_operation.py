"""Port of core/src/main/scala/kafka/server/DelayedOperation.scala (Kafka 1.0.2): DelayedOperation and its purgatory.

A request that cannot be answered yet (acks=all waiting for replicas, a fetch waiting for fetch.min.bytes) waits in a
purgatory under one or more keys; whoever changes what it waits for calls `check_and_complete(key)`, and a timer
completes it when its time is up.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections import defaultdict
from collections.abc import Hashable, Iterable
from typing import Any

from kafka_edu.v1_0_2.core.utils.concurrent import AtomicBoolean


class DelayedOperation:
    """An operation with a deadline: `try_complete` checks whether it can finish, `on_complete` finishes it once."""

    def __init__(self, delay_ms: int) -> None:
        self.delay_ms = delay_ms
        self.completed = AtomicBoolean(False)
        self.lock = threading.Lock()

    def force_complete(self) -> bool:
        """Complete the operation exactly once, whoever gets here first (a check, or the timer)."""
        if self.completed.compare_and_set(False, True):
            self.on_complete()
            return True
        return False

    @property
    def is_completed(self) -> bool:
        return self.completed.get()

    def on_expiration(self) -> None:
        """Called when the deadline passed before the operation could complete."""

    def on_complete(self) -> None:
        raise NotImplementedError

    def try_complete(self) -> bool:
        raise NotImplementedError

    def maybe_try_complete(self) -> bool:
        with self.lock:
            return self.try_complete()

    def run(self) -> None:
        """The timer task: complete by expiration."""
        if self.force_complete():
            self.on_expiration()


class DelayedOperationPurgatory:
    """Operations waiting under watch keys, and a reaper thread that expires them (Kafka's timing wheel)."""

    def __init__(self, purgatory_name: str, broker_id: int = 0, purge_interval: int = 1000, *,
                 timeout_timer: Any = None, reaper_enabled: bool = True) -> None:
        self.purgatory_name = purgatory_name
        self.broker_id = broker_id
        self.purge_interval = purge_interval
        # Kafka's timeoutTimer: anything with add(operation) (tests pass a MockTimer); None, the reaper's own heap.
        self.timeout_timer = timeout_timer
        self.watchers_for_key: defaultdict[Hashable, list[DelayedOperation]] = defaultdict(list)
        self._lock = threading.Lock()
        self._timer: list[tuple[float, int, DelayedOperation]] = []
        self._sequence = itertools.count()
        self._timer_cond = threading.Condition()
        self._running = True
        self._reaper: threading.Thread | None = None
        if reaper_enabled:
            self._reaper = threading.Thread(target=self._expire_loop, name=f"ExpirationReaper-{broker_id}-"
                                                                           f"{purgatory_name}", daemon=True)
            self._reaper.start()

    def try_complete_else_watch(self, operation: DelayedOperation, watch_keys: Iterable[Hashable]) -> bool:
        """Complete now if possible; otherwise watch the keys and start the timer. True when completed now."""
        if operation.maybe_try_complete():
            return True
        with self._lock:
            for key in watch_keys:
                if operation.is_completed:
                    return False
                self.watchers_for_key[key].append(operation)
        # Something may have changed between the first check and the watch: check once more.
        if operation.maybe_try_complete():
            return True
        if not operation.is_completed and self.timeout_timer is not None:
            self.timeout_timer.add(operation)
        elif not operation.is_completed:
            with self._timer_cond:
                deadline = time.monotonic() + operation.delay_ms / 1000
                heapq.heappush(self._timer, (deadline, next(self._sequence), operation))
                self._timer_cond.notify()
        return False

    def check_and_complete(self, key: Hashable) -> int:
        """Something `key` stands for changed: try every operation watching it. Returns how many completed."""
        with self._lock:
            watchers = list(self.watchers_for_key.get(key, ()))
        completed = sum(1 for operation in watchers if not operation.is_completed and operation.maybe_try_complete())
        with self._lock:
            remaining = [op for op in self.watchers_for_key.get(key, ()) if not op.is_completed]
            if remaining:
                self.watchers_for_key[key] = remaining
            else:
                self.watchers_for_key.pop(key, None)
        return completed

    def cancel_for_key(self, key: Hashable) -> list[DelayedOperation]:
        """Stop watching `key`: its operations are dropped without completing (1.0.2's cancelForKey)."""
        with self._lock:
            return self.watchers_for_key.pop(key, [])

    def delayed(self) -> int:
        with self._timer_cond:
            return sum(1 for _, _, op in self._timer if not op.is_completed)

    def _expire_loop(self) -> None:
        while True:
            with self._timer_cond:
                while self._running and (not self._timer or self._timer[0][0] > time.monotonic()):
                    timeout = self._timer[0][0] - time.monotonic() if self._timer else None
                    self._timer_cond.wait(timeout)
                if not self._running:
                    return
                _, _, operation = heapq.heappop(self._timer)
            if not operation.is_completed:
                operation.run()

    def shutdown(self) -> None:
        with self._timer_cond:
            self._running = False
            self._timer_cond.notify_all()
        if self._reaper is not None:
            self._reaper.join()
