"""Port of clients/src/main/java/org/apache/kafka/common/errors/UnknownMemberIdException.java (Kafka 3.9): the member id
is not one of the group's members (UNKNOWN_MEMBER_ID)."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import ApiException


class UnknownMemberIdException(ApiException):
    pass
