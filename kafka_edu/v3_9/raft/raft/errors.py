"""Port of raft/src/main/java/org/apache/kafka/raft/errors/*.java (Kafka 3.9): the raft client's exceptions."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import KafkaException


class RaftException(KafkaException):
    """The root of the raft client's own exceptions."""


class NotLeaderException(RaftException):
    """An append or flush on a replica that is not the leader of the epoch given (or of any epoch)."""


class BufferAllocationException(RaftException):
    """The batch accumulator could not get memory for a new batch."""


class UnexpectedBaseOffsetException(RaftException):
    """An atomic append that required a base offset the accumulator is not at."""
