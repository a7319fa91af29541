"""Port of clients/src/main/java/org/apache/kafka/common/InvalidRecordException.java (Kafka 3.9): a record or batch
the broker refuses (error INVALID_RECORD). Since Kafka 2.4 it is an ApiException of its own; 1.0.2's class of the
same name (kafka_edu.v1_0_2.clients.common.errors) was a CorruptRecordException and travelled as CORRUPT_MESSAGE."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import ApiException


class InvalidRecordException(ApiException):
    pass
