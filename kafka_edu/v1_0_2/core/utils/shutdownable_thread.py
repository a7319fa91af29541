"""Port of core/src/main/scala/kafka/utils/ShutdownableThread.scala (Kafka 1.0.2): a thread that calls `do_work` in a
loop until it is shut down.

Java stops a `do_work` blocked in a wait by interrupting the thread. Python cannot interrupt a thread, so a subclass
whose `do_work` blocks overrides `interrupt` to wake up what it waits on (a queue, a condition).
"""

from __future__ import annotations

import threading

from kafka_edu.v1_0_2.clients.common.internals.fatal_exit_error import FatalExitError
from kafka_edu.v1_0_2.clients.common.utils.exit import Exit
from kafka_edu.v1_0_2.core.utils.concurrent import AtomicBoolean, CountDownLatch
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging


class ShutdownableThread(threading.Thread):
    """`do_work` while `is_running`; `shutdown` = `initiate_shutdown` + `await_shutdown`."""

    # The Logging trait logs under the class's name; a subclass names its own.
    logger_name = "kafka.utils.ShutdownableThread"

    def __init__(self, name: str, is_interruptible: bool = True) -> None:
        super().__init__(name=name)
        self.daemon = False
        self.is_interruptible = is_interruptible
        self.log = Logging(self.logger_name, f"[{name}]: ")
        self.is_running = AtomicBoolean(True)
        self.shutdown_latch = CountDownLatch(1)

    def shutdown(self) -> None:
        self.initiate_shutdown()
        self.await_shutdown()

    def initiate_shutdown(self) -> bool:
        if self.is_running.compare_and_set(True, False):
            self.log.info("Shutting down")
            if self.is_interruptible:
                self.interrupt()
            return True
        return False

    def interrupt(self) -> None:
        """Thread.interrupt: wake `do_work` up if it is blocked. A subclass that blocks overrides it."""

    def await_shutdown(self) -> None:
        """After initiate_shutdown(), wait until the loop has ended."""
        # Java would wait forever for a thread never started; the port's shutdown paths also stop components whose
        # startup never ran.
        if self.ident is not None:
            self.shutdown_latch.await_()
        self.log.info("Shutdown completed")

    def do_work(self) -> None:
        """Called again and again until the thread is shut down or it raises."""
        raise NotImplementedError

    def run(self) -> None:
        self.log.info("Starting")
        try:
            while self.is_running.get():
                self.do_work()
        except FatalExitError as e:
            self.is_running.set(False)
            self.shutdown_latch.count_down()
            self.log.info("Stopped")
            Exit.exit(e.status_code)
            return  # exit does not return, but a test's exit procedure does
        except BaseException:
            if self.is_running.get():
                self.log.exception("Error due to")
        self.shutdown_latch.count_down()
        self.log.info("Stopped")
