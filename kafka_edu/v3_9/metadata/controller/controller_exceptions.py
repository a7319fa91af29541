"""Port of metadata/src/main/java/org/apache/kafka/controller/errors/ControllerExceptions.java (Kafka 3.9).

With EventHandlerExceptionInfo.java, and the org.apache.kafka.common.errors classes the controller raises that
kafka_edu/v1_0_2/clients/common/errors.py does not have yet (same names: the protocol layer maps a name to its code).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import CancelledError

from kafka_edu.v1_0_2.clients.common.errors import (
    ApiException,
    InvalidRequestException,
    KafkaException,
    NotControllerException,
    PolicyViolationException,
    RejectedExecutionException,
    TimeoutException,
    UnknownServerException,
)
from kafka_edu.v3_9.raft.raft.errors import NotLeaderException
from kafka_edu.v3_9.server_common.server.mutable.bounded_list import BoundedListTooLongException


class StaleBrokerEpochException(ApiException):
    """A broker spoke with a broker epoch that is not its current registration's."""


class DuplicateBrokerRegistrationException(ApiException):
    """Another live incarnation of this broker id is registered."""


class BrokerIdNotRegisteredException(ApiException):
    pass


class InconsistentClusterIdException(ApiException):
    pass


class InvalidRegistrationException(ApiException):
    """A broker registration the controller refuses (its directories, or its listeners)."""


class UnknownTopicIdException(ApiException):
    pass


class FaultHandlerException(RuntimeError):
    """What a fault handler returns for the caller to raise (server-common's FaultHandlerException)."""


def is_timeout_exception(exception: BaseException | None) -> bool:
    """A deadline passed before the event ran (the queue's TimeoutException), wherever it is wrapped."""
    while exception is not None:
        if isinstance(exception, TimeoutException) or type(exception).__name__ == "TimeoutException":
            return True
        exception = exception.__cause__
    return False


def is_not_controller_exception(exception: BaseException | None) -> bool:
    return isinstance(exception, NotControllerException)


def new_wrong_controller_exception(controller_id: int | None) -> NotControllerException:
    if controller_id is None:
        return NotControllerException("No controller appears to be active.")
    return NotControllerException(f"The active controller appears to be node {controller_id}.")


def new_pre_migration_exception(controller_id: int | None) -> NotControllerException:
    return new_wrong_controller_exception(controller_id)


class EventHandlerExceptionInfo:
    """How the controller treats an exception from one of its events: whether it is a fault (to log loudly),
    whether it costs this controller its leadership, and what the caller is told."""

    def __init__(self, is_fault: bool, causes_failover: bool, internal: BaseException,
                 external: BaseException) -> None:
        self.is_fault = is_fault
        self.causes_failover = causes_failover
        self.internal_exception = internal
        self.external_exception = external

    @staticmethod
    def from_internal(exception: BaseException,
                      latest_controller: Callable[[], int | None]) -> EventHandlerExceptionInfo:
        if isinstance(exception, ApiException) and not isinstance(exception, NotLeaderException):
            # An expected error of the API (invalid request, NOT_CONTROLLER, a timeout in the queue): no fault.
            return EventHandlerExceptionInfo(False, False, exception, exception)
        if isinstance(exception, NotLeaderException):
            # The raft layer says we lost the leadership: renounce, and send the caller to the new controller.
            return EventHandlerExceptionInfo(False, True, exception,
                                             new_wrong_controller_exception(latest_controller()))
        if isinstance(exception, RejectedExecutionException | CancelledError):
            return EventHandlerExceptionInfo(False, False, exception, TimeoutException("The controller is "
                                                                                       "shutting down."))
        if isinstance(exception, BoundedListTooLongException):
            # The operation would have made an overly large batch of records.
            return EventHandlerExceptionInfo(False, False, exception, PolicyViolationException(
                "Unable to perform excessively large batch operation."))
        if isinstance(exception, InterruptedError):
            return EventHandlerExceptionInfo(False, False, exception, UnknownServerException("The controller was "
                                                                                             "interrupted."))
        # Anything else is a bug or a broken invariant: a fault, and the controller gives up its leadership.
        return EventHandlerExceptionInfo(True, True, exception, UnknownServerException(str(exception)))

    def failure_message(self, epoch: int, delta_us: int | None, is_active_controller: bool,
                        last_committed_offset: int) -> str:
        parts = [f"event failed with {type(self.internal_exception).__name__}"]
        if str(self.internal_exception):
            parts.append(f" (exception message: {self.internal_exception})")
        parts.append(f" at epoch {epoch}")
        if delta_us is not None:
            parts.append(f" in {delta_us} microseconds")
        if self.causes_failover:
            parts.append(". Renouncing leadership and reverting to the last committed offset "
                         f"{last_committed_offset}" if is_active_controller else
                         ". The controller is already in standby mode")
        return "".join(parts) + "."

    def effective_external_exception(self) -> BaseException:
        return self.external_exception


__all__ = [
    "BrokerIdNotRegisteredException", "DuplicateBrokerRegistrationException", "EventHandlerExceptionInfo",
    "FaultHandlerException", "InconsistentClusterIdException", "InvalidRegistrationException",
    "InvalidRequestException", "KafkaException",
    "RejectedExecutionException", "StaleBrokerEpochException", "UnknownTopicIdException", "is_timeout_exception",
    "new_wrong_controller_exception",
]
