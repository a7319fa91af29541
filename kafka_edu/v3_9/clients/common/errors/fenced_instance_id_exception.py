"""Port of clients/src/main/java/org/apache/kafka/common/errors/FencedInstanceIdException.java (Kafka 3.9): another
member now holds this static member's group.instance.id (FENCED_INSTANCE_ID)."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import ApiException


class FencedInstanceIdException(ApiException):
    pass
