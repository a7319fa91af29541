"""Port of clients/src/main/java/org/apache/kafka/common/errors/InconsistentTopicIdException.java (Kafka 3.9): the
topic id a log was given differs from the one it already has (INCONSISTENT_TOPIC_ID)."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import InvalidMetadataException


class InconsistentTopicIdException(InvalidMetadataException):
    pass
