"""Port of core/src/main/scala/kafka/utils/KafkaScheduler.scala (Kafka 1.0.2)."""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException

log = logging.getLogger("kafka.utils.KafkaScheduler")


class KafkaScheduler:
    """A pool of named daemon threads running delayed and periodic tasks (Java's ScheduledThreadPoolExecutor).

    Threads are created on demand up to `threads`, as the Java executor does.
    """

    def __init__(self, threads: int, thread_name_prefix: str = "kafka-scheduler-", daemon: bool = True) -> None:
        self.threads = threads
        self.thread_name_prefix = thread_name_prefix
        self.daemon = daemon
        self._lock = threading.Condition()
        self._queue: list[tuple[float, int, str, Callable[[], None], float]] | None = None
        self._workers: list[threading.Thread] = []
        self._scheduler_thread_id = itertools.count()
        self._sequence = itertools.count()

    def startup(self) -> None:
        log.debug("Initializing task scheduler.")
        with self._lock:
            if self._queue is not None:
                raise IllegalStateException("This scheduler has already been started!")
            self._queue = []

    def shutdown(self) -> None:
        log.debug("Shutting down task scheduler.")
        with self._lock:
            if self._queue is None:
                return
            # Pending delayed and periodic tasks are discarded, as Kafka configures its executor.
            self._queue = None
            self._lock.notify_all()
            workers, self._workers = self._workers, []
        for worker in workers:  # awaitTermination: running tasks finish
            if worker is not threading.current_thread():
                worker.join()

    @property
    def is_started(self) -> bool:
        with self._lock:
            return self._queue is not None

    def schedule(self, name: str, fun: Callable[[], None], delay: float = 0, period: float = -1) -> None:
        """Run `fun` after `delay` ms, then every `period` ms when period >= 0."""
        log.debug("Scheduling task %s with initial delay %d ms and period %d ms.", name, delay, period)
        with self._lock:
            self._ensure_running()
            heapq.heappush(self._queue, (time.monotonic() + delay / 1000, next(self._sequence), name, fun, period))
            if len(self._workers) < self.threads:
                worker = threading.Thread(target=self._work, daemon=self.daemon,
                                          name=f"{self.thread_name_prefix}{next(self._scheduler_thread_id)}")
                self._workers.append(worker)
                worker.start()
            self._lock.notify()

    def _ensure_running(self) -> None:
        if self._queue is None:
            raise IllegalStateException("Kafka scheduler is not running.")

    def _work(self) -> None:
        while True:
            with self._lock:
                while True:
                    if self._queue is None:
                        return
                    now = time.monotonic()
                    if self._queue and self._queue[0][0] <= now:
                        due, _, name, fun, period = heapq.heappop(self._queue)
                        break
                    self._lock.wait(self._queue[0][0] - now if self._queue else None)
            self._run(name, fun)
            if period >= 0:
                with self._lock:
                    if self._queue is not None:  # fixed rate: the next run is due one period after this one was
                        heapq.heappush(self._queue, (due + period / 1000, next(self._sequence), name, fun, period))
                        self._lock.notify()

    @staticmethod
    def _run(name: str, fun: Callable[[], None]) -> None:
        try:
            log.debug("Beginning execution of scheduled task '%s'.", name)
            fun()
        except Exception:
            log.exception("Uncaught exception in scheduled task '%s'", name)
        finally:
            log.debug("Completed execution of scheduled task '%s'.", name)

