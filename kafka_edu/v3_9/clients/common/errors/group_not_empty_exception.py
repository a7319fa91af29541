"""Port of clients/src/main/java/org/apache/kafka/common/errors/GroupNotEmptyException.java (Kafka 3.9): the group still
has members, so it cannot be deleted (NON_EMPTY_GROUP)."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import ApiException


class GroupNotEmptyException(ApiException):
    pass
