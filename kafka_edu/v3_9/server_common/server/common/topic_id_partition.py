"""Port of server-common/src/main/java/org/apache/kafka/server/common/TopicIdPartition.java (Kafka 3.9): a partition
named by its topic id and number alone, as directory assignments (KIP-858) carry it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TopicIdPartition:
    topic_id: Any  # Uuid
    partition_id: int

    def __str__(self) -> str:
        return f"{self.topic_id}:{self.partition_id}"
