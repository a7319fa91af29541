"""Port of clients/src/main/java/org/apache/kafka/common/errors/UnsupportedAssignorException.java (Kafka 3.9):
the server-side assignor asked for is not configured (UNSUPPORTED_ASSIGNOR)."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import ApiException


class UnsupportedAssignorException(ApiException):
    pass
