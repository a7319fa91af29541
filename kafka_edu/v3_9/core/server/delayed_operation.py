"""Port of core/src/main/scala/kafka/server/DelayedOperation.scala (Kafka 3.9): DelayedOperation, an operation that
waits at most `delay_ms` (a produce waiting for its acks, a fetch for its bytes), and DelayedOperationPurgatory, which
watches such operations under keys, completes them when a key's state changes and expires them on a timing wheel.

The operation's `on_complete` runs exactly once, by `force_complete`: from `try_complete` when it can complete now, or
from the timer's `run` on expiration. The purgatory's gauges (PurgatorySize, NumDelayedOperations) are not ported:
the port has no metrics registry; `watched` and `num_delayed` are what they read.
"""

from __future__ import annotations

import threading
from abc import abstractmethod
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Generic, TypeVar

from kafka_edu.v1_0_2.core.utils.concurrent import AtomicBoolean, AtomicInteger
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.server_common.server.util.shutdownable_thread import ShutdownableThread
from kafka_edu.v3_9.server_common.server.util.timer.system_timer import SystemTimer
from kafka_edu.v3_9.server_common.server.util.timer.timer import Timer
from kafka_edu.v3_9.server_common.server.util.timer.timer_task import TimerTask


class DelayedOperation(TimerTask):
    """Subclasses define `try_complete`, `on_complete` and `on_expiration`. An operation whose `on_complete` appends
    to the log (as DelayedJoin does) must also drain the action queue in `on_expiration`."""

    def __init__(self, delay_ms: int, lock_opt: Any = None) -> None:
        super().__init__(delay_ms)
        self._completed = AtomicBoolean(False)
        # visible for testing; a caller may share its own lock (a group's) with the operation
        self.lock = lock_opt if lock_opt is not None else threading.RLock()

    def force_complete(self) -> bool:
        """Complete the operation unless it already is: it can (try_complete), or it expired. True only for the one
        caller that completed it, whichever of several threads gets here first."""
        if self._completed.compare_and_set(False, True):
            # the timeout timer no longer needs it
            self.cancel()
            self.on_complete()
            return True
        return False

    @property
    def is_completed(self) -> bool:
        return self._completed.get()

    @abstractmethod
    def on_expiration(self) -> None:
        """Called after `on_complete` when the operation completed because it expired."""

    @abstractmethod
    def on_complete(self) -> None:
        """The completion logic; called exactly once, by `force_complete`."""

    @abstractmethod
    def try_complete(self) -> bool:
        """If the operation can complete now, `force_complete` it and return what that returns; else False."""

    def safe_try_complete_or_else(self, f: Callable[[], None]) -> bool:
        """`try_complete` under the lock; if it fails, `f` and a last `try_complete`, still under the lock."""
        with self.lock:
            if self.try_complete():
                return True
            f()
            return self.try_complete()

    def safe_try_complete(self) -> bool:
        with self.lock:
            return self.try_complete()

    def run(self) -> None:
        """The timer task: expire the operation."""
        if self.force_complete():
            self.on_expiration()


T = TypeVar("T", bound=DelayedOperation)

SHARDS = 512  # the watcher lists are sharded by key to reduce lock contention


class DelayedOperationPurgatory(Generic[T]):
    """Delayed operations watched under keys and timed out on `timeout_timer`, expired by the
    "ExpirationReaper-<broker id>-<purgatory name>" thread."""

    @staticmethod
    def apply(purgatory_name: str, broker_id: int = 0, purge_interval: int = 1000, reaper_enabled: bool = True,
              timer_enabled: bool = True) -> DelayedOperationPurgatory[Any]:
        """The companion object's apply: a purgatory on its own SystemTimer."""
        timer = SystemTimer(purgatory_name)
        return DelayedOperationPurgatory(purgatory_name, timer, broker_id, purge_interval, reaper_enabled,
                                         timer_enabled)

    def __init__(self, purgatory_name: str, timeout_timer: Timer, broker_id: int = 0, purge_interval: int = 1000,
                 reaper_enabled: bool = True, timer_enabled: bool = True) -> None:
        self.purgatory_name = purgatory_name
        self.timeout_timer = timeout_timer
        self.broker_id = broker_id
        self.purge_interval = purge_interval
        self.reaper_enabled = reaper_enabled
        self.timer_enabled = timer_enabled
        self.log = Logging("kafka.server.DelayedOperationPurgatory")

        self._watcher_lists = [_WatcherList() for _ in range(SHARDS)]
        # operations added, counting those completed but still in some watch list; drives the purge
        self._estimated_total_operations = AtomicInteger(0)
        # the background thread expiring operations that timed out
        self._expiration_reaper = _ExpiredOperationReaper(self)

        if reaper_enabled:
            self._expiration_reaper.start()

    def _watcher_list(self, key: Hashable) -> _WatcherList:
        return self._watcher_lists[hash(key) % len(self._watcher_lists)]

    def try_complete_else_watch(self, operation: T, watch_keys: Sequence[Hashable]) -> bool:
        """Complete the operation now if it can; otherwise watch it under every key and time it out. True iff the
        caller completed it.

        An operation completed after being watched under some keys only is not watched under the rest; the reaper
        purges it from the lists it is in. The watching happens under the operation's lock, between two
        `try_complete`s, so a key's change cannot slip by unseen, and no thread completing the operation through
        `check_and_complete` holds its lock while this one waits for it.
        """
        if not watch_keys:
            raise AssertionError("The watch key list can't be empty")

        def watch_all() -> None:
            for key in watch_keys:
                self._watch_for_operation(key, operation)
            if watch_keys:
                self._estimated_total_operations.increment_and_get()

        if operation.safe_try_complete_or_else(watch_all):
            return True

        # not completable yet, hence watched: time it out too
        if not operation.is_completed:
            if self.timer_enabled:
                self.timeout_timer.add(operation)
            if operation.is_completed:
                # completed meanwhile: take it off the timer
                operation.cancel()

        return False

    def check_and_complete(self, key: Hashable) -> int:
        """Complete what can be completed of the operations watched under `key`; the number completed."""
        wl = self._watcher_list(key)
        with wl.watchers_lock:
            watchers = wl.watchers_by_key.get(key)
        num_completed = 0 if watchers is None else watchers.try_complete_watched()
        if num_completed > 0:
            self.log.debug("Request key %s unblocked %d %s operations", key, num_completed, self.purgatory_name)
        return num_completed

    @property
    def watched(self) -> int:
        """The total size of the watch lists; an operation counts once per key and may stay after it completed, so
        this can exceed the number of operations."""
        return sum(watchers.count_watched for wl in self._watcher_lists for watchers in wl.all_watchers())

    @property
    def num_delayed(self) -> int:
        """The number of operations in the expiry queue."""
        return self.timeout_timer.size()

    def cancel_for_key(self, key: Hashable) -> list[T]:
        """Stop watching the operations of `key`, without completing them; those operations."""
        wl = self._watcher_list(key)
        with wl.watchers_lock:
            watchers = wl.watchers_by_key.pop(key, None)
            return watchers.cancel() if watchers is not None else []

    def _watch_for_operation(self, key: Hashable, operation: T) -> None:
        # under the watchers lock, so the operation never lands in a list being removed
        wl = self._watcher_list(key)
        with wl.watchers_lock:
            watchers = wl.watchers_by_key.get(key)
            if watchers is None:
                watchers = wl.watchers_by_key[key] = _Watchers(self, key)
            watchers.watch(operation)

    def _remove_key_if_empty(self, key: Hashable, watchers: _Watchers) -> None:
        wl = self._watcher_list(key)
        with wl.watchers_lock:
            # the key may have got a new watcher list meanwhile
            if wl.watchers_by_key.get(key) is not watchers:
                return
            if watchers is not None and watchers.is_empty:
                del wl.watchers_by_key[key]

    def shutdown(self) -> None:
        """Stop the expiration reaper and close the timer."""
        if self.reaper_enabled:
            self._expiration_reaper.initiate_shutdown()
            # a due no-op wakes the reaper blocked in its poll
            self.timeout_timer.add(_NoOpTimerTask(0))
            self._expiration_reaper.await_shutdown()
        self.timeout_timer.close()

    def advance_clock(self, timeout_ms: int) -> None:
        self.timeout_timer.advance_clock(timeout_ms)

        # Operations completed but still watched are about (added - still delayed); past the purge interval, they
        # are purged from the watch lists. The estimate restarts at the delayed count (it may overestimate a bit if
        # more complete during the purge).
        if self._estimated_total_operations.get() - self.num_delayed > self.purge_interval:
            self._estimated_total_operations.get_and_set(self.num_delayed)
            self.log.debug("Begin purging watch lists")
            purged = sum(watchers.purge_completed() for wl in self._watcher_lists for watchers in wl.all_watchers())
            self.log.debug("Purged %d elements from watch lists.", purged)


class _WatcherList:
    """One shard of the watch lists: the watchers of its keys, and the lock that guards adding and removing them."""

    def __init__(self) -> None:
        self.watchers_by_key: dict[Hashable, _Watchers] = {}
        self.watchers_lock = threading.RLock()

    def all_watchers(self) -> list[_Watchers]:
        """The current watchers; other threads may remove some of them meanwhile."""
        # list() of a dict's values is one step under the GIL, like ConcurrentHashMap's weakly consistent view
        return list(self.watchers_by_key.values())


class _Watchers:
    """The operations watched under one key (Java's ConcurrentLinkedQueue: adds and removes from any thread)."""

    def __init__(self, purgatory: DelayedOperationPurgatory[Any], key: Hashable) -> None:
        self._purgatory = purgatory
        self.key = key
        self._operations: list[DelayedOperation] = []
        self._lock = threading.Lock()

    @property
    def count_watched(self) -> int:
        with self._lock:
            return len(self._operations)

    @property
    def is_empty(self) -> bool:
        with self._lock:
            return not self._operations

    def watch(self, t: DelayedOperation) -> None:
        with self._lock:
            self._operations.append(t)

    def _snapshot(self) -> list[DelayedOperation]:
        with self._lock:
            return list(self._operations)

    def _remove_all(self, removed: list[DelayedOperation]) -> None:
        if removed:
            ids = {id(op) for op in removed}
            with self._lock:
                self._operations = [op for op in self._operations if id(op) not in ids]

    def try_complete_watched(self) -> int:
        """Try to complete the watched operations; drop those completed, by this thread or another."""
        completed = 0
        removed = []
        for curr in self._snapshot():
            if curr.is_completed:
                # another thread completed it
                removed.append(curr)
            elif curr.safe_try_complete():
                removed.append(curr)
                completed += 1
        self._remove_all(removed)

        if self.is_empty:
            self._purgatory._remove_key_if_empty(self.key, self)
        return completed

    def cancel(self) -> list[Any]:
        with self._lock:
            cancelled, self._operations = self._operations, []
        for curr in cancelled:
            curr.cancel()
        return cancelled

    def purge_completed(self) -> int:
        """Drop the operations others completed; how many."""
        removed = [curr for curr in self._snapshot() if curr.is_completed]
        self._remove_all(removed)

        if self.is_empty:
            self._purgatory._remove_key_if_empty(self.key, self)
        return len(removed)


class _ExpiredOperationReaper(ShutdownableThread):
    """The background reaper that expires the operations that timed out."""

    def __init__(self, purgatory: DelayedOperationPurgatory[Any]) -> None:
        super().__init__(f"ExpirationReaper-{purgatory.broker_id}-{purgatory.purgatory_name}", is_interruptible=False,
                         logger_name="kafka.server.DelayedOperationPurgatory$ExpiredOperationReaper")
        self._purgatory = purgatory

    def do_work(self) -> None:
        self._purgatory.advance_clock(200)


class _NoOpTimerTask(TimerTask):
    def run(self) -> None:
        pass
