"""Port of group-coordinator/src/main/java/.../group/modern/TopicMetadata.java (Kafka 3.9).

Topic ids are uuid.UUID, as in the records and the metadata image, so from_record keeps the record's id as it is.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Set

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_partition_metadata_value import (
    TopicMetadata as TopicMetadataRecord,
)

ZERO_UUID = uuid.UUID(int=0)  # Uuid.ZERO_UUID: never a topic's id


class TopicMetadata:
    """What a group's assignor needs of a topic: id, name, partition count and the racks of each partition's
    replicas (an empty map when no partition has rack information). Immutable."""

    def __init__(self, id: uuid.UUID, name: str, num_partitions: int, partition_racks: Mapping[int, Set[str]]) -> None:
        if id is None:
            raise TypeError("id")  # Objects.requireNonNull
        if id == ZERO_UUID:
            raise IllegalArgumentException("Topic id cannot be ZERO_UUID.")
        if name is None:
            raise TypeError("name")
        if not name:
            raise IllegalArgumentException("Topic name cannot be empty.")
        if num_partitions < 0:
            raise IllegalArgumentException("Number of partitions cannot be negative.")
        if partition_racks is None:
            raise TypeError("partitionRacks")
        self._id = id
        self._name = name
        self._num_partitions = num_partitions
        self._partition_racks = partition_racks

    def id(self) -> uuid.UUID:
        return self._id

    def name(self) -> str:
        return self._name

    def num_partitions(self) -> int:
        return self._num_partitions

    def partition_racks(self) -> Mapping[int, Set[str]]:
        return self._partition_racks

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other is None or type(other) is not type(self):
            return False
        return (self._id == other._id and self._name == other._name
                and self._num_partitions == other._num_partitions and self._partition_racks == other._partition_racks)

    def __hash__(self) -> int:
        return hash((self._id, self._name, self._num_partitions))

    def __repr__(self) -> str:
        return (f"TopicMetadata(id={self._id}, name={self._name}, numPartitions={self._num_partitions}, "
                f"partitionRacks={dict(self._partition_racks)})")

    @staticmethod
    def from_record(record: TopicMetadataRecord) -> TopicMetadata:
        """The metadata of one topic as a ConsumerGroupPartitionMetadata record stores it (racks as a list)."""
        partition_racks = {partition_metadata.partition: frozenset(partition_metadata.racks)
                           for partition_metadata in record.partition_metadata}
        return TopicMetadata(record.topic_id, record.topic_name, record.num_partitions, partition_racks)
