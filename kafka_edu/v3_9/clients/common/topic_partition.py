"""Port of clients/src/main/java/org/apache/kafka/common/TopicPartition.java (Kafka 3.9): a topic name and a partition
number."""

from __future__ import annotations

from typing import NamedTuple


class TopicPartition(NamedTuple):
    """A tuple, as 1.0.2's port of the same class is, so the two compare and hash alike while both trees are in use.
    The topic may be None: 3.9 builds one for a topic id the broker cannot name yet."""

    topic: str | None
    partition: int

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"
