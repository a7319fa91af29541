"""Port of server-common/src/main/java/org/apache/kafka/server/util/ShutdownableThread.java (Kafka 3.9), the Java
successor of core/src/main/scala/kafka/utils/ShutdownableThread.scala (Kafka 1.0.2).

A thread that calls `do_work` in a loop until `initiate_shutdown`. Java stops a blocked `do_work` by interrupting the
thread; Python cannot interrupt a thread, so an interruptible subclass overrides `interrupt` to wake up whatever its
`do_work` blocks on (a queue, a condition).
"""

from __future__ import annotations

import threading

from kafka_edu.v1_0_2.core.utils.concurrent import CountDownLatch
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging


class FatalExitError(Exception):
    """org.apache.kafka.common.utils.Exit's error: the thread must stop the process with `status_code`."""

    def __init__(self, status_code: int = 1) -> None:
        super().__init__(f"fatal exit with status {status_code}")
        self.status_code = status_code


class ShutdownableThread(threading.Thread):
    """`do_work` while `is_running`; `shutdown` = `initiate_shutdown` + `await_shutdown`."""

    def __init__(self, name: str, is_interruptible: bool = True, log_prefix: str | None = None,
                 logger_name: str | None = None, daemon: bool = False) -> None:
        super().__init__(name=name, daemon=daemon)
        self.is_interruptible = is_interruptible
        self.log_prefix = log_prefix if log_prefix is not None else f"[{name}]: "
        self.log = Logging(logger_name or f"{type(self).__module__}.{type(self).__qualname__}", self.log_prefix)
        self._shutdown_initiated = CountDownLatch(1)
        self._shutdown_complete = CountDownLatch(1)
        self._is_started = False
        self._lock = threading.Lock()

    def shutdown(self) -> None:
        self.initiate_shutdown()
        self.await_shutdown()

    @property
    def is_shutdown_initiated(self) -> bool:
        return self._shutdown_initiated.count == 0

    @property
    def is_shutdown_complete(self) -> bool:
        return self._shutdown_complete.count == 0

    @property
    def is_started(self) -> bool:
        return self._is_started

    @property
    def is_thread_failed(self) -> bool:
        """The loop ended by an exception, not by a shutdown."""
        return self.is_shutdown_complete and not self.is_shutdown_initiated

    def initiate_shutdown(self) -> bool:
        with self._lock:
            if not self.is_running:
                return False
            self.log.info("Shutting down")
            self._shutdown_initiated.count_down()
            if self.is_interruptible:
                self.interrupt()
            return True

    def interrupt(self) -> None:
        """Thread.interrupt: wake `do_work` if it is blocked. Subclasses that block override it."""

    def await_shutdown(self) -> None:
        if not self.is_shutdown_initiated:
            raise RuntimeError("initiateShutdown() was not called before awaitShutdown()")
        if self._is_started and self is not threading.current_thread():
            self._shutdown_complete.await_()
        self.log.info("Shutdown completed")

    def pause(self, timeout_s: float) -> None:
        """Sleep up to `timeout_s`, waking early if a shutdown is initiated."""
        if self._shutdown_initiated.await_(timeout_s):
            self.log.debug("shutdownInitiated latch count reached zero. Shutdown called.")

    def do_work(self) -> None:
        raise NotImplementedError

    def start(self) -> None:
        self._is_started = True  # set before the thread runs, so an early await_shutdown waits for it
        super().start()

    def run(self) -> None:
        self._is_started = True
        self.log.info("Starting")
        try:
            while self.is_running:
                self.do_work()
        except FatalExitError:
            self._shutdown_initiated.count_down()
            self._shutdown_complete.count_down()
            self.log.info("Stopped")
            raise
        except BaseException:
            if self.is_running:
                self.log.exception("Error due to")
        finally:
            self._shutdown_complete.count_down()
        self.log.info("Stopped")

    @property
    def is_running(self) -> bool:
        return not self.is_shutdown_initiated
