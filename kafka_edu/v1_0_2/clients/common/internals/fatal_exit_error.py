"""Port of clients/src/main/java/org/apache/kafka/common/internals/FatalExitError.java (Kafka 1.0.2): the error that
says the process must exit."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException


class FatalExitError(Exception):
    """Raised up to the top of a thread, which calls Exit.exit(status_code) once it holds no shared lock."""

    def __init__(self, status_code: int = 1) -> None:
        if status_code == 0:
            raise IllegalArgumentException("statusCode must not be 0")
        super().__init__(f"exit with status {status_code}")
        self.status_code = status_code
