"""Port of metadata/src/main/java/org/apache/kafka/image/TopicsImage.java (Kafka 3.9)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import ClassVar

from kafka_edu.v3_9.metadata.image.topic_image import TopicImage
from kafka_edu.v3_9.metadata.image.writer.image_writer import ImageWriter
from kafka_edu.v3_9.metadata.image.writer.image_writer_options import ImageWriterOptions
from kafka_edu.v3_9.metadata.metadata.partition_registration import PartitionRegistration


@dataclass(frozen=True)
class TopicsImage:
    """Every topic, by id and by name (Kafka keeps both maps as persistent maps; plain copies here)."""

    EMPTY: ClassVar[TopicsImage]

    topics_by_id: Mapping[uuid.UUID, TopicImage] = field(default_factory=dict)
    topics_by_name: Mapping[str, TopicImage] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "topics_by_id", MappingProxyType(dict(self.topics_by_id)))
        object.__setattr__(self, "topics_by_name", MappingProxyType(dict(self.topics_by_name)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TopicsImage) and dict(self.topics_by_id) == dict(other.topics_by_id)

    def __hash__(self) -> int:
        return hash(frozenset(self.topics_by_id))

    def is_empty(self) -> bool:
        return not self.topics_by_id

    def get_partition(self, id: uuid.UUID, partition_id: int) -> PartitionRegistration | None:
        topic = self.topics_by_id.get(id)
        return None if topic is None else topic.partitions.get(partition_id)

    def get_topic(self, id_or_name: uuid.UUID | str) -> TopicImage | None:
        """Kafka's getTopic(Uuid) and getTopic(String)."""
        if isinstance(id_or_name, str):
            return self.topics_by_name.get(id_or_name)
        return self.topics_by_id.get(id_or_name)

    def write(self, writer: ImageWriter, options: ImageWriterOptions) -> None:
        # Kafka walks its id map (hash order); this one keeps the order the topics were created in
        for topic_image in self.topics_by_id.values():
            topic_image.write(writer, options)

    def __str__(self) -> str:
        return f"TopicsImage(topics={sorted(self.topics_by_name)})"


TopicsImage.EMPTY = TopicsImage({}, {})
