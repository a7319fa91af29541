"""Port of clients/src/main/java/org/apache/kafka/common/errors/UnknownLeaderEpochException.java (Kafka 3.9): the
request's leader epoch is newer than the broker's (UNKNOWN_LEADER_EPOCH)."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import RetriableException


class UnknownLeaderEpochException(RetriableException):
    pass
