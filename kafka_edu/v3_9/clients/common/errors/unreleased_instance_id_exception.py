"""Port of clients/src/main/java/org/apache/kafka/common/errors/UnreleasedInstanceIdException.java (Kafka 3.9):
a static member's instance id is still held by another member (UNRELEASED_INSTANCE_ID)."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import ApiException


class UnreleasedInstanceIdException(ApiException):
    pass
