"""Port of metadata/src/main/java/org/apache/kafka/image/TopicDelta.java (Kafka 3.9)."""

from __future__ import annotations

import uuid
from typing import Any

from kafka_edu.v3_9.metadata.image.topic_image import TopicImage
from kafka_edu.v3_9.metadata.metadata.partition_registration import PartitionRegistration


class TopicDelta:
    """Partitions of one topic created or changed since `image`."""

    def __init__(self, image: TopicImage) -> None:
        self._image = image
        self._partition_changes: dict[int, PartitionRegistration] = {}

    def image(self) -> TopicImage:
        return self._image

    def partition_changes(self) -> dict[int, PartitionRegistration]:
        return self._partition_changes

    def new_partitions(self) -> dict[int, PartitionRegistration]:
        return {partition_id: partition for partition_id, partition in self._partition_changes.items()
                if partition_id not in self._image.partitions}

    def name(self) -> str:
        return self._image.name

    def id(self) -> uuid.UUID:
        return self._image.id

    def replay_partition(self, record: Any) -> None:
        self._partition_changes[record.partition_id] = PartitionRegistration.from_record(record)

    def replay_partition_change(self, record: Any) -> None:
        partition_id = record.partition_id
        prev_partition = self._partition_changes.get(partition_id)
        if prev_partition is None:
            prev_partition = self._image.partitions.get(partition_id)
            if prev_partition is None:
                raise RuntimeError(f"Unable to find partition {record.topic_id}:{partition_id}")
        self._partition_changes[partition_id] = prev_partition.merge(record)

    def apply(self) -> TopicImage:
        new_partitions: dict[int, PartitionRegistration] = {}
        for partition_id, partition in self._image.partitions.items():
            new_partitions[partition_id] = self._partition_changes.get(partition_id, partition)
        for partition_id, partition in self._partition_changes.items():
            new_partitions.setdefault(partition_id, partition)
        return TopicImage(self._image.name, self._image.id, new_partitions)

    def __str__(self) -> str:
        return f"TopicDelta(partitionChanges={self._partition_changes})"
