"""Port of group-coordinator/group-coordinator-api/.../api/assignor/PartitionAssignorException.java (Kafka 3.9)."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import ApiException


class PartitionAssignorException(ApiException):
    """An assignor could not compute an assignment (a member subscribed to an unknown topic, say); the coordinator
    handles it itself, it never reaches a client as such."""

    def __init__(self, message: str, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.__cause__ = cause
