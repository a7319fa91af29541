"""Port of clients/src/main/java/org/apache/kafka/common/TopicIdPartition.java (Kafka 3.9): a topic partition with its
topic id."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.uuid import Uuid


@dataclass(frozen=True)
class TopicIdPartition:
    """Equal when both the id and the topic partition are. Topic ids are uuid.UUID, as kio and the metadata image
    carry them (uuid.UUID(int=0) is Uuid.ZERO_UUID)."""

    topic_id: uuid.UUID
    topic_partition: TopicPartition

    def __post_init__(self) -> None:
        if self.topic_id is None:
            raise TypeError("topicId can not be null")
        if self.topic_partition is None:
            raise TypeError("topicPartition can not be null")

    @staticmethod
    def of(topic_id: uuid.UUID, partition: int, topic: str | None) -> TopicIdPartition:
        """TopicIdPartition(Uuid topicId, int partition, String topic)."""
        return TopicIdPartition(topic_id, TopicPartition(topic, partition))

    @property
    def topic(self) -> str | None:
        return self.topic_partition.topic

    @property
    def partition(self) -> int:
        return self.topic_partition.partition

    def __str__(self) -> str:
        return f"{Uuid.from_bytes(self.topic_id.bytes)}:{self.topic}-{self.partition}"
