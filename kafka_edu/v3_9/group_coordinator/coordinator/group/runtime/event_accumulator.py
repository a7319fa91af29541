"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/runtime/EventAccumulator.java (Kafka 3.9).

Events are queued per key; a key handed to a poller stays "in flight" until `done`, so two events with the same key
(the same coordinator partition) never run at once while events of different keys run in parallel. Which available
key a poller gets is random, so that no partition starves the others.
"""

from __future__ import annotations

import random as _random
import threading
import time
from abc import ABC, abstractmethod
from collections import deque
from types import TracebackType
from typing import Generic, TypeVar

from kafka_edu.v1_0_2.clients.common.errors import RejectedExecutionException

K = TypeVar("K")
T = TypeVar("T", bound="EventAccumulator.Event")


class EventAccumulator(Generic[K, T]):
    """Thread safe: one lock guards every field, one condition wakes pollers."""

    class Event(ABC, Generic[K]):
        """What the accumulator holds: anything with a key."""

        @abstractmethod
        def key(self) -> K: ...

    def __init__(self, random: _random.Random | None = None) -> None:
        self._random = random if random is not None else _random.Random()
        self._queues: dict[K, deque[T]] = {}
        # keys with queued events and no event in flight: the ones a poller may take
        self._available_keys: list[K] = []
        self._inflight_keys: set[K] = set()
        self._closed = False
        self._lock = threading.RLock()
        self._condition = threading.Condition(self._lock)
        self._size = 0

    def add_last(self, event: T) -> None:
        with self._lock:
            if self._closed:
                raise RejectedExecutionException("Can't accept an event because the accumulator is closed.")
            self._queue_for(event.key()).append(event)
            self._size += 1

    def add_first(self, event: T) -> None:
        with self._lock:
            if self._closed:
                raise RejectedExecutionException("Can't accept an event because the accumulator is closed.")
            self._queue_for(event.key()).appendleft(event)
            self._size += 1

    def _queue_for(self, key: K) -> deque[T]:
        # a new queue makes its key available, unless an event of that key is in flight (`done` will then)
        queue = self._queues.get(key)
        if queue is None:
            queue = deque()
            self._queues[key] = queue
            if key not in self._inflight_keys:
                self._add_available_key(key)
        return queue

    def poll(self, timeout_ms: int = 0) -> T | None:
        """The next event of an available key, waiting up to `timeout_ms` (Java's poll(timeout, unit) in
        milliseconds); None if nothing became available in time or the accumulator is closed."""
        with self._lock:
            key = self._random_key()
            deadline = time.monotonic() + timeout_ms / 1000
            remaining = timeout_ms / 1000
            while key is None and not self._closed and remaining > 0:
                self._condition.wait(min(remaining, threading.TIMEOUT_MAX))
                key = self._random_key()
                remaining = deadline - time.monotonic()

            if key is None:
                return None

            queue = self._queues[key]
            event = queue.popleft()
            if not queue:
                del self._queues[key]
            self._inflight_keys.add(key)
            self._size -= 1
            return event

    def done(self, event: T) -> None:
        """The event has run: its key is free again, and available if more of its events wait."""
        with self._lock:
            key = event.key()
            self._inflight_keys.discard(key)
            if key in self._queues:
                self._add_available_key(key)

    def size(self) -> int:
        with self._lock:
            return self._size

    def close(self) -> None:
        """Rejects new events and wakes every waiting poller; events already queued can still be polled."""
        with self._lock:
            self._closed = True
            self._condition.notify_all()

    def __enter__(self) -> EventAccumulator[K, T]:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def _add_available_key(self, key: K) -> None:
        # caller holds the lock
        self._available_keys.append(key)
        self._condition.notify()

    def _random_key(self) -> K | None:
        # caller holds the lock; swap the pick with the last key so removing it is O(1)
        if not self._available_keys:
            return None
        last_index = len(self._available_keys) - 1
        random_index = self._random.randrange(len(self._available_keys))
        random_key = self._available_keys[random_index]
        self._available_keys[random_index], self._available_keys[last_index] = (
            self._available_keys[last_index], self._available_keys[random_index])
        self._available_keys.pop()
        return random_key
