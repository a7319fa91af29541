"""Port of clients/src/main/java/org/apache/kafka/common/errors/FencedLeaderEpochException.java (Kafka 3.9): the
request's leader epoch is older than the broker's (FENCED_LEADER_EPOCH)."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import InvalidMetadataException


class FencedLeaderEpochException(InvalidMetadataException):
    pass
