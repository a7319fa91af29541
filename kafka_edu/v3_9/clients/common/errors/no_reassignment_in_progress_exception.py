"""Port of clients/src/main/java/org/apache/kafka/common/errors/NoReassignmentInProgressException.java (Kafka 3.9): a
reassignment was cancelled where none runs (NO_REASSIGNMENT_IN_PROGRESS)."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import ApiException


class NoReassignmentInProgressException(ApiException):
    pass
