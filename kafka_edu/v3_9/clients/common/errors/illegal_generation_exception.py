"""Port of clients/src/main/java/org/apache/kafka/common/errors/IllegalGenerationException.java (Kafka 3.9): the
generation id a group member sent is not the group's (ILLEGAL_GENERATION)."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import ApiException


class IllegalGenerationException(ApiException):
    pass
