"""Port of server-common/src/main/java/org/apache/kafka/server/util/FutureUtils.java and Deadline.java (Kafka 3.9):
waiting for a startup future with a log line before and after."""

from __future__ import annotations

import concurrent.futures
import logging
import time
from typing import Any, TypeVar

from kafka_edu.v1_0_2.clients.common.errors import TimeoutException

T = TypeVar("T")
LONG_MAX_VALUE = (1 << 63) - 1
# Python runs a signal handler only between waits: wait in slices, so that SIGTERM is heard during a long startup.
_WAIT_SLICE_S = 1.0


class Deadline:
    """A point on the monotonic clock, in nanoseconds; Long.MAX_VALUE means never."""

    def __init__(self, nanoseconds: int) -> None:
        self.nanoseconds = nanoseconds

    @staticmethod
    def from_delay(delay_ms: int) -> Deadline:
        if delay_ms < 0:
            raise RuntimeError("Negative delays are not allowed.")
        deadline_ns = time.monotonic_ns() + delay_ms * 1_000_000
        return Deadline(LONG_MAX_VALUE if deadline_ns >= LONG_MAX_VALUE else deadline_ns)


def wait_with_logging(log: logging.Logger | logging.LoggerAdapter, prefix: str, action: str,
                      future: concurrent.futures.Future[T], deadline: Deadline) -> T:
    """The future's result, logging the wait; TimeoutException at the deadline, RuntimeException (caused by the
    future's own exception) if it fails or is cancelled."""
    log.info("%sWaiting for %s", prefix, action)
    try:
        result = _wait_for_future(future, deadline)
        log.info("%sFinished waiting for %s", prefix, action)
        return result
    except TimeoutException as e:
        log.error("%sTimed out while waiting for %s", prefix, action, exc_info=e)
        raise TimeoutException(f"Timed out while waiting for {action}") from e
    except BaseException as e:
        log.error("%sReceived a fatal error while waiting for %s", prefix, action, exc_info=e)
        raise RuntimeError(f"Received a fatal error while waiting for {action}") from e


def _wait_for_future(future: concurrent.futures.Future[Any], deadline: Deadline) -> Any:
    """Time.waitForFuture: the result once done, TimeoutException once the deadline has passed."""
    while True:
        remaining_s = None if deadline.nanoseconds >= LONG_MAX_VALUE else \
            (deadline.nanoseconds - time.monotonic_ns()) / 1e9
        if remaining_s is not None and remaining_s <= 0:
            raise TimeoutException()
        try:
            return future.result(_WAIT_SLICE_S if remaining_s is None else min(remaining_s, _WAIT_SLICE_S))
        except concurrent.futures.TimeoutError:
            continue
