"""Port of clients/src/main/java/org/apache/kafka/common/requests/ApiError.java (Kafka 3.9).

The port's Errors carry no default message texts, so `ApiError(error)` leaves the message None where Kafka fills in
the error's default text; `from_throwable` keeps an exception's message, None when it has none (Kafka drops it when
it is the default text).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from kafka_edu.v3_9.clients.common.protocol.errors import Errors


@dataclass(frozen=True)
class ApiError:
    """An error code and its message."""

    NONE: ClassVar[ApiError]

    error: Errors
    message: str | None = None

    def is_success(self) -> bool:
        return self.error is Errors.NONE

    def is_failure(self) -> bool:
        return not self.is_success()

    @staticmethod
    def from_throwable(e: BaseException) -> ApiError:
        error = Errors.for_exception(e)
        return ApiError(error, None if error is Errors.UNKNOWN_SERVER_ERROR else (str(e) or None))

    def __str__(self) -> str:
        return f"ApiError(error={self.error.name}, message={self.message})"


ApiError.NONE = ApiError(Errors.NONE)
