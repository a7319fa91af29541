"""Port of group-coordinator/src/main/java/.../group/modern/SubscribedTopicDescriberImpl.java (Kafka 3.9)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Set

from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.topic_metadata import TopicMetadata
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.subscribed_topic_describer import (
    SubscribedTopicDescriber,
)


class SubscribedTopicDescriberImpl(SubscribedTopicDescriber):
    """Answers an assignor's questions about the topics a modern group subscribes to, from their TopicMetadata."""

    def __init__(self, topic_metadata: Mapping[uuid.UUID, TopicMetadata]) -> None:
        if topic_metadata is None:
            raise TypeError("topicMetadata")  # Objects.requireNonNull
        self._topic_metadata = topic_metadata

    def topic_metadata(self) -> Mapping[uuid.UUID, TopicMetadata]:
        return self._topic_metadata

    def num_partitions(self, topic_id: uuid.UUID) -> int:
        topic = self._topic_metadata.get(topic_id)
        return -1 if topic is None else topic.num_partitions()

    def racks_for_partition(self, topic_id: uuid.UUID, partition: int) -> Set[str]:
        topic = self._topic_metadata.get(topic_id)
        return frozenset() if topic is None else topic.partition_racks().get(partition, frozenset())

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other is None or type(other) is not type(self):
            return False
        return self._topic_metadata == other._topic_metadata

    __hash__ = None  # type: ignore[assignment]  # keyed by a mutable map

    def __repr__(self) -> str:
        return f"SubscribedTopicMetadata(topicMetadata={dict(self._topic_metadata)})"
