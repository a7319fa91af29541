"""Port of clients/src/main/java/org/apache/kafka/common/network/InvalidReceiveException.java (Kafka 3.9): a frame
whose size prefix is negative or above the receiver's maximum."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import KafkaException


class InvalidReceiveException(KafkaException):
    pass
