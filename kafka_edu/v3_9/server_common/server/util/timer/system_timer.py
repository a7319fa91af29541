"""Port of server-common/src/main/java/org/apache/kafka/server/util/timer/SystemTimer.java (Kafka 3.9): the Timer of
the purgatories, a timing wheel whose clock is advanced by whoever calls `advance_clock` (a reaper thread), with one
"executor-<name>" thread that runs the expired tasks."""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from kafka_edu.v1_0_2.clients.common.errors import RejectedExecutionException
from kafka_edu.v1_0_2.core.utils.concurrent import AtomicInteger
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM
from kafka_edu.v3_9.server_common.server.util.timer.delay_queue import DelayQueue
from kafka_edu.v3_9.server_common.server.util.timer.timer import Timer
from kafka_edu.v3_9.server_common.server.util.timer.timer_task import TimerTask
from kafka_edu.v3_9.server_common.server.util.timer.timer_task_entry import TimerTaskEntry
from kafka_edu.v3_9.server_common.server.util.timer.timer_task_list import TimerTaskList
from kafka_edu.v3_9.server_common.server.util.timer.timing_wheel import TimingWheel

SYSTEM_TIMER_THREAD_PREFIX = "executor-"

log = logging.getLogger("org.apache.kafka.common.utils.ThreadUtils")


class SystemTimer(Timer):
    def __init__(self, executor_name: str, tick_ms: int = 1, wheel_size: int = 20, start_ms: int | None = None) -> None:
        # the timeout timer's one (non-daemon) thread
        self._task_executor = _SingleThreadExecutor(SYSTEM_TIMER_THREAD_PREFIX + executor_name)
        self._delay_queue: DelayQueue[TimerTaskList] = DelayQueue()
        self._task_counter = AtomicInteger(0)
        if start_ms is None:
            start_ms = SYSTEM.hi_res_clock_ms()
        self._timing_wheel = TimingWheel(tick_ms, wheel_size, start_ms, self._task_counter, self._delay_queue)
        # adds share the read lock; a tick (advance_clock) takes the write lock
        self._read_write_lock = _ReadWriteLock()

    def add(self, timer_task: TimerTask) -> None:
        with self._read_write_lock.read_lock():
            self._add_timer_task_entry(TimerTaskEntry(timer_task, timer_task.delay_ms + SYSTEM.hi_res_clock_ms()))

    def _add_timer_task_entry(self, timer_task_entry: TimerTaskEntry) -> None:
        if not self._timing_wheel.add(timer_task_entry):
            # already expired or cancelled
            if not timer_task_entry.cancelled():
                self._task_executor.submit(timer_task_entry.timer_task.run)

    def advance_clock(self, timeout_ms: int) -> bool:
        bucket = self._delay_queue.poll(timeout_ms)
        if bucket is None:
            return False
        with self._read_write_lock.write_lock():
            while bucket is not None:
                self._timing_wheel.advance_clock(bucket.get_expiration())
                # each entry goes to a finer bucket, or to the executor when it is due
                bucket.flush(self._add_timer_task_entry)
                bucket = self._delay_queue.poll()
        return True

    def size(self) -> int:
        return self._task_counter.get()

    def close(self) -> None:
        _shutdown_executor_service_quietly(self._task_executor, 5.0)

    def is_terminated(self) -> bool:
        """Visible for testing."""
        return self._task_executor.is_terminated()


class _ReadWriteLock:
    """The part of java.util.concurrent.locks.ReentrantReadWriteLock SystemTimer uses: many readers or one writer."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._readers = 0
        self._writer = False

    @contextmanager
    def read_lock(self) -> Iterator[None]:
        with self._cond:
            self._cond.wait_for(lambda: not self._writer)
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                if self._readers == 0:
                    self._cond.notify_all()

    @contextmanager
    def write_lock(self) -> Iterator[None]:
        with self._cond:
            self._cond.wait_for(lambda: not self._writer and self._readers == 0)
            self._writer = True
        try:
            yield
        finally:
            with self._cond:
                self._writer = False
                self._cond.notify_all()


class _SingleThreadExecutor:
    """Executors.newFixedThreadPool(1, KafkaThread.nonDaemon(name)): one non-daemon thread, started by the first
    task, running the tasks in order. As with ExecutorService.submit, a task's exception ends only that task."""

    def __init__(self, thread_name: str) -> None:
        self._thread_name = thread_name
        self._cond = threading.Condition()
        self._tasks: deque[Callable[[], None]] = deque()
        self._thread: threading.Thread | None = None
        self._is_shutdown = False

    def submit(self, task: Callable[[], None]) -> None:
        with self._cond:
            if self._is_shutdown:
                raise RejectedExecutionException(f"Task {task} rejected from {self._thread_name}: shut down")
            self._tasks.append(task)
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name=self._thread_name, daemon=False)
                self._thread.start()
            self._cond.notify()

    def _work(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._tasks or self._is_shutdown)
                if not self._tasks:
                    return
                task = self._tasks.popleft()
            try:
                task()
            except Exception:  # noqa: BLE001 - the Future of submit() would hold it, and nobody reads that Future
                log.debug("A timer task failed", exc_info=True)

    def shutdown(self) -> None:
        with self._cond:
            self._is_shutdown = True
            self._cond.notify_all()

    def shutdown_now(self) -> None:
        """Drop the queued tasks; a running one cannot be interrupted in Python and finishes."""
        with self._cond:
            self._is_shutdown = True
            self._tasks.clear()
            self._cond.notify_all()

    def await_termination(self, timeout_s: float) -> bool:
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout_s)
        return self.is_terminated()

    def is_terminated(self) -> bool:
        with self._cond:
            return self._is_shutdown and (self._thread is None or not self._thread.is_alive())

    def __str__(self) -> str:
        return self._thread_name


def _shutdown_executor_service_quietly(executor: _SingleThreadExecutor, timeout_s: float) -> None:
    """ThreadUtils.shutdownExecutorServiceQuietly: shut down, wait, then drop what is queued and wait again."""
    executor.shutdown()
    if not executor.await_termination(timeout_s):
        executor.shutdown_now()
        if not executor.await_termination(timeout_s):
            log.error("Executor %s did not terminate in time", executor)
