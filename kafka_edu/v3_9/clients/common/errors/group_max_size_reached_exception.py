"""Port of clients/src/main/java/org/apache/kafka/common/errors/GroupMaxSizeReachedException.java (Kafka 3.9):
the group is full (GROUP_MAX_SIZE_REACHED)."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import ApiException


class GroupMaxSizeReachedException(ApiException):
    pass
