"""Port of server-common/src/main/java/org/apache/kafka/server/util/KafkaScheduler.java (Kafka 3.9): the broker's
scheduler, a pool of `kafka-scheduler-N` threads running delayed and periodic tasks.

Java builds it on ScheduledThreadPoolExecutor; Python has none, so `_ScheduledThreadPoolExecutor` below is the part
of it KafkaScheduler uses, with the policies KafkaScheduler sets: tasks still queued at shutdown are dropped, a
cancelled task leaves the queue.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException, RejectedExecutionException
from kafka_edu.v3_9.server_common.queue.kafka_event_queue import KafkaThread
from kafka_edu.v3_9.server_common.server.util.scheduler import ScheduledFuture, Scheduler

log = logging.getLogger("org.apache.kafka.server.util.KafkaScheduler")


class _NoOpScheduledFutureTask:
    """What a task scheduled on a stopped scheduler gets: already cancelled, never run."""

    def cancel(self, may_interrupt_if_running: bool = False) -> bool:
        return True

    def is_cancelled(self) -> bool:
        return True

    def is_done(self) -> bool:
        return True

    def get(self, timeout_ms: float | None = None) -> Any:
        return None

    def get_delay_ms(self) -> int:
        return 0


class KafkaScheduler(Scheduler):
    def __init__(self, threads: int, daemon: bool = True, thread_name_prefix: str = "kafka-scheduler-") -> None:
        self._scheduler_thread_id = itertools.count()
        self._threads = threads
        self._daemon = daemon
        self._thread_name_prefix = thread_name_prefix
        self._lock = threading.RLock()  # `synchronized (this)`
        self._executor: _ScheduledThreadPoolExecutor | None = None

    def startup(self) -> None:
        log.debug("Initializing task scheduler.")
        with self._lock:
            if self.is_started():
                raise IllegalStateException("This scheduler has already been started.")
            self._executor = _ScheduledThreadPoolExecutor(
                self._threads,
                lambda runnable: KafkaThread(f"{self._thread_name_prefix}{next(self._scheduler_thread_id)}",
                                             runnable, self._daemon))

    def shutdown(self) -> None:
        log.debug("Shutting down task scheduler.")
        # taken under the lock, awaited outside it: another thread may shut down at the same time
        maybe_executor = None
        with self._lock:
            if self.is_started():
                maybe_executor = self._executor
                maybe_executor.shutdown()
                self._executor = None
        if maybe_executor is not None:
            maybe_executor.await_termination()

    def schedule(self, name: str, task: Callable[[], None], delay_ms: int, period_ms: int) -> ScheduledFuture:
        log.debug("Scheduling task %s with initial delay %s ms and period %s ms.", name, delay_ms, period_ms)
        with self._lock:
            if self.is_started():
                def runnable() -> None:
                    try:
                        log.debug("Beginning execution of scheduled task '%s'.", name)
                        task()
                    except Exception:
                        log.exception("Uncaught exception in scheduled task '%s'", name)
                    finally:
                        log.debug("Completed execution of scheduled task '%s'.", name)
                if period_ms > 0:
                    return self._executor.schedule_at_fixed_rate(runnable, delay_ms, period_ms)
                return self._executor.schedule(runnable, delay_ms)
            log.info("Kafka scheduler is not running at the time task '%s' is scheduled. The task is ignored.", name)
            return _NoOpScheduledFutureTask()

    def is_started(self) -> bool:
        return self._executor is not None

    def resize_thread_pool(self, new_size: int) -> None:
        with self._lock:
            if self.is_started():
                self._executor.set_core_pool_size(new_size)

    def thread_name_prefix(self) -> str:
        return self._thread_name_prefix

    def task_running(self, task: ScheduledFuture) -> bool:
        """Whether `task` is still queued (for tests)."""
        e = self._executor
        return e is not None and e.queue_contains(task)


class _ScheduledFutureTask:
    """A queued task: its trigger time on the monotonic clock and, if periodic, its period."""

    def __init__(self, executor: _ScheduledThreadPoolExecutor, runnable: Callable[[], None], trigger_ns: int,
                 period_ns: int) -> None:
        self._executor = executor
        self.runnable = runnable
        self.trigger_ns = trigger_ns
        self.period_ns = period_ns
        self._cancelled = False
        self._done = threading.Event()

    def is_periodic(self) -> bool:
        return self.period_ns > 0

    def cancel(self, may_interrupt_if_running: bool = False) -> bool:
        if self._done.is_set():
            return False
        self._cancelled = True
        self._done.set()
        self._executor.remove(self)
        return True

    def is_cancelled(self) -> bool:
        return self._cancelled

    def is_done(self) -> bool:
        return self._done.is_set()

    def get(self, timeout_ms: float | None = None) -> Any:
        self._done.wait(None if timeout_ms is None else timeout_ms / 1000)
        return None

    def get_delay_ms(self) -> int:
        return (self.trigger_ns - time.monotonic_ns()) // 1_000_000

    def run(self) -> None:
        if self._cancelled:
            return
        self.runnable()
        if not self.is_periodic():
            self._done.set()

    def mark_done(self) -> None:
        self._done.set()


class _ScheduledThreadPoolExecutor:
    """The part of java.util.concurrent.ScheduledThreadPoolExecutor KafkaScheduler uses: `core_pool_size` threads
    started as tasks arrive, taking tasks from a queue ordered by trigger time. Periodic tasks run at a fixed rate."""

    def __init__(self, core_pool_size: int, thread_factory: Callable[[Callable[[], None]], threading.Thread]) -> None:
        self._core_pool_size = core_pool_size
        self._thread_factory = thread_factory
        self._cond = threading.Condition()
        self._queue: list[tuple[int, int, _ScheduledFutureTask]] = []
        self._sequence = itertools.count()
        self._workers: list[threading.Thread] = []
        self._is_shutdown = False

    def schedule(self, runnable: Callable[[], None], delay_ms: int) -> _ScheduledFutureTask:
        return self._delayed_execute(runnable, delay_ms, 0)

    def schedule_at_fixed_rate(self, runnable: Callable[[], None], delay_ms: int,
                               period_ms: int) -> _ScheduledFutureTask:
        return self._delayed_execute(runnable, delay_ms, period_ms)

    def _delayed_execute(self, runnable: Callable[[], None], delay_ms: int, period_ms: int) -> _ScheduledFutureTask:
        task = _ScheduledFutureTask(self, runnable, time.monotonic_ns() + max(0, delay_ms) * 1_000_000,
                                    period_ms * 1_000_000)
        with self._cond:
            if self._is_shutdown:
                raise RejectedExecutionException("the executor is shut down")
            self._push(task)
            if len(self._workers) < self._core_pool_size:
                worker = self._thread_factory(self._work)
                self._workers.append(worker)
                worker.start()
        return task

    def _push(self, task: _ScheduledFutureTask) -> None:
        heapq.heappush(self._queue, (task.trigger_ns, next(self._sequence), task))
        self._cond.notify_all()

    def remove(self, task: _ScheduledFutureTask) -> None:
        with self._cond:
            self._queue = [entry for entry in self._queue if entry[2] is not task]
            heapq.heapify(self._queue)

    def queue_contains(self, task: object) -> bool:
        with self._cond:
            return any(entry[2] is task for entry in self._queue)

    def set_core_pool_size(self, new_size: int) -> None:
        with self._cond:
            self._core_pool_size = new_size
            self._cond.notify_all()  # a worker beyond the new size leaves when it next looks for work

    def shutdown(self) -> None:
        with self._cond:
            self._is_shutdown = True
            # neither delayed nor periodic tasks outlive the shutdown
            for _, _, task in self._queue:
                task.mark_done()
            self._queue.clear()
            self._cond.notify_all()

    def await_termination(self) -> None:
        with self._cond:
            workers = list(self._workers)
        for worker in workers:
            if worker is not threading.current_thread():
                worker.join()

    def _take(self) -> _ScheduledFutureTask | None:
        """The next due task, waiting for it; None when this worker should leave."""
        me = threading.current_thread()
        with self._cond:
            while True:
                if self._is_shutdown and not self._queue:
                    self._workers.remove(me)
                    return None
                if len(self._workers) > self._core_pool_size:
                    self._workers.remove(me)
                    return None
                if self._queue:
                    wait_ns = self._queue[0][0] - time.monotonic_ns()
                    if wait_ns <= 0:
                        return heapq.heappop(self._queue)[2]
                    self._cond.wait(wait_ns / 1e9)
                else:
                    self._cond.wait()

    def _work(self) -> None:
        while True:
            task = self._take()
            if task is None:
                return
            task.run()
            if task.is_periodic() and not task.is_cancelled():
                with self._cond:
                    if self._is_shutdown:
                        task.mark_done()
                    else:
                        task.trigger_ns += task.period_ns
                        self._push(task)
