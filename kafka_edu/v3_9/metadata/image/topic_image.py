"""Port of metadata/src/main/java/org/apache/kafka/image/TopicImage.java (Kafka 3.9)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from kafka_edu.v3_9.metadata.common.metadata import TopicRecord
from kafka_edu.v3_9.metadata.image.writer.image_writer import ImageWriter
from kafka_edu.v3_9.metadata.image.writer.image_writer_options import ImageWriterOptions
from kafka_edu.v3_9.metadata.metadata.partition_registration import PartitionRegistration


@dataclass(frozen=True)
class TopicImage:
    """One topic: its name, id and partitions by partition id."""

    name: str
    id: uuid.UUID
    partitions: Mapping[int, PartitionRegistration] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "partitions", MappingProxyType(dict(self.partitions)))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, TopicImage) and self.name == other.name and self.id == other.id
                and dict(self.partitions) == dict(other.partitions))

    def __hash__(self) -> int:
        return hash((self.name, self.id))

    def write(self, writer: ImageWriter, options: ImageWriterOptions) -> None:
        # the TopicRecord, then its partitions: a PartitionRecord needs its topic first
        writer.write(0, TopicRecord(name=self.name, topic_id=self.id))
        for partition_id in sorted(self.partitions):
            writer.write(self.partitions[partition_id].to_record(self.id, partition_id, options.metadata_version()))

    def __str__(self) -> str:
        return f"TopicImage(name={self.name}, id={self.id}, partitions={sorted(self.partitions)})"
