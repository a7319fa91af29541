"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/CorruptSnapshotException.java (Kafka 3.9): a
producer state snapshot that cannot be read back (bad version, bad CRC, or not the schema)."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import KafkaException


class CorruptSnapshotException(KafkaException):
    pass
