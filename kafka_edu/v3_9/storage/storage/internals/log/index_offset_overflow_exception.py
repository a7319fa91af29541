"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/IndexOffsetOverflowException.java (Kafka 3.9):
an offset too far from the segment's base offset to be stored as a 4-byte relative offset."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import KafkaException


class IndexOffsetOverflowException(KafkaException):
    pass
