"""Port of clients/src/main/java/org/apache/kafka/common/protocol/types/SchemaException.java (Kafka 3.9): bytes that
do not parse as the schema they are read with."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import KafkaException


class SchemaException(KafkaException):
    pass
