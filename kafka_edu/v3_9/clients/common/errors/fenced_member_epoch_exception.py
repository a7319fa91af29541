"""Port of clients/src/main/java/org/apache/kafka/common/errors/FencedMemberEpochException.java (Kafka 3.9): a
consumer group member's epoch is not one the coordinator accepts; the member must rejoin (FENCED_MEMBER_EPOCH)."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import ApiException


class FencedMemberEpochException(ApiException):
    pass
