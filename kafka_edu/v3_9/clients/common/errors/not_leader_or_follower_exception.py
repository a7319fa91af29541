"""Port of clients/src/main/java/org/apache/kafka/common/errors/NotLeaderOrFollowerException.java (Kafka 3.9): the
broker is neither leader nor follower of the partition (NOT_LEADER_OR_FOLLOWER). A subclass of 1.0.2's
NotLeaderForPartitionException, as in Kafka, so code catching the old name still catches it."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import NotLeaderForPartitionException


class NotLeaderOrFollowerException(NotLeaderForPartitionException):
    pass
