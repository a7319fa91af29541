"""Port of clients/src/main/java/org/apache/kafka/common/errors/GroupIdNotFoundException.java (Kafka 3.9): the
coordinator hosts no live group of that id (GROUP_ID_NOT_FOUND)."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import ApiException


class GroupIdNotFoundException(ApiException):
    pass
