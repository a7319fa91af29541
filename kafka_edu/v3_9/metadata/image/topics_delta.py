"""Port of metadata/src/main/java/org/apache/kafka/image/TopicsDelta.java (Kafka 3.9)."""

from __future__ import annotations

import uuid
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v3_9.metadata.image.topic_delta import TopicDelta
from kafka_edu.v3_9.metadata.image.topic_image import TopicImage
from kafka_edu.v3_9.metadata.image.topics_image import TopicsImage
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion


class TopicsDelta:
    """Topics created, changed or deleted since `image`."""

    def __init__(self, image: TopicsImage) -> None:
        self._image = image
        # a topic's delta by id; a deleted topic has none
        self._changed_topics: dict[uuid.UUID, TopicDelta] = {}
        # ids of topics of the image that were deleted (a topic created and deleted in one delta leaves no trace)
        self._deleted_topic_ids: set[uuid.UUID] = set()
        self._created_topic_ids: set[uuid.UUID] = set()

    def image(self) -> TopicsImage:
        return self._image

    def changed_topics(self) -> dict[uuid.UUID, TopicDelta]:
        return self._changed_topics

    def replay_topic(self, record: Any) -> None:
        delta = TopicDelta(TopicImage(record.name, record.topic_id, {}))
        self._changed_topics[record.topic_id] = delta
        self._created_topic_ids.add(record.topic_id)

    def get_or_create_topic_delta(self, id: uuid.UUID) -> TopicDelta:
        topic_delta = self._changed_topics.get(id)
        if topic_delta is None:
            topic_image = self._image.get_topic(id)
            if topic_image is None:
                raise RuntimeError(f"Unable to find topic with id {id}")
            topic_delta = TopicDelta(topic_image)
            self._changed_topics[id] = topic_delta
        return topic_delta

    def replay_partition(self, record: Any) -> None:
        self.get_or_create_topic_delta(record.topic_id).replay_partition(record)

    def replay_partition_change(self, record: Any) -> None:
        self.get_or_create_topic_delta(record.topic_id).replay_partition_change(record)

    def replay_remove_topic(self, record: Any) -> str:
        """Returns the deleted topic's name (its configs go too)."""
        topic_delta = self._changed_topics.pop(record.topic_id, None)
        if topic_delta is not None:
            topic_name = topic_delta.image().name
            if record.topic_id in self._image.topics_by_id:
                self._deleted_topic_ids.add(record.topic_id)
        else:
            topic_image = self._image.get_topic(record.topic_id)
            if topic_image is None:
                raise RuntimeError(f"Unable to delete topic with id {record.topic_id}: no such topic found.")
            topic_name = topic_image.name
            self._deleted_topic_ids.add(record.topic_id)
        return topic_name

    def finish_snapshot(self) -> None:
        for topic_id in self._image.topics_by_id:
            if topic_id not in self._changed_topics:
                self._deleted_topic_ids.add(topic_id)

    def handle_metadata_version_change(self, new_version: MetadataVersion) -> None:
        pass  # nothing in the topics image depends on it

    def apply(self) -> TopicsImage:
        new_topics_by_id = dict(self._image.topics_by_id)
        new_topics_by_name = dict(self._image.topics_by_name)
        for topic_id in self._deleted_topic_ids:
            original_topic_to_be_deleted = self._image.topics_by_id.get(topic_id)
            if original_topic_to_be_deleted is None:
                raise IllegalStateException(f"Missing topic id {topic_id}")
            del new_topics_by_id[topic_id]
            del new_topics_by_name[original_topic_to_be_deleted.name]
        for topic_id, topic_delta in self._changed_topics.items():
            new_topic_to_be_added_or_updated = topic_delta.apply()
            new_topics_by_id[topic_id] = new_topic_to_be_added_or_updated
            new_topics_by_name[new_topic_to_be_added_or_updated.name] = new_topic_to_be_added_or_updated
        return TopicsImage(new_topics_by_id, new_topics_by_name)

    def changed_topic(self, topic_id: uuid.UUID) -> TopicDelta | None:
        return self._changed_topics.get(topic_id)

    def topic_was_deleted(self, topic_name: str) -> bool:
        """True if the topic of this name in the image was deleted (even if one of the same name came back)."""
        topic_image = self._image.get_topic(topic_name)
        return topic_image is not None and topic_image.id in self._deleted_topic_ids

    def deleted_topic_ids(self) -> set[uuid.UUID]:
        return self._deleted_topic_ids

    def created_topic_ids(self) -> set[uuid.UUID]:
        return self._created_topic_ids

    def local_changes(self, broker_id: int) -> Any:
        """What this delta asks of one broker: the replicas it loses, leads and follows (LocalReplicaChanges)."""
        from kafka_edu.v3_9.metadata.image.local_replica_changes import local_changes
        return local_changes(self, broker_id)

    def __str__(self) -> str:
        return (f"TopicsDelta(changedTopics={self._changed_topics}, deletedTopicIds={self._deleted_topic_ids}, "
                f"createdTopicIds={self._created_topic_ids})")
