"""Port of clients/src/main/java/org/apache/kafka/common/errors/MemberIdRequiredException.java (Kafka 3.9):
a dynamic member must rejoin with the member id it was given (MEMBER_ID_REQUIRED)."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import ApiException


class MemberIdRequiredException(ApiException):
    pass
