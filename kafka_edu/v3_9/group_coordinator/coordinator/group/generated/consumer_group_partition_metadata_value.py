"""Port of group-coordinator/src/main/resources/common/message/ConsumerGroupPartitionMetadataValue.json (Kafka 3.9).

A kio-style frozen dataclass per struct, as the other records of this package; list fields are tuples.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from kio.static.constants import EntityType
from kio.static.primitive import i16


@dataclass(frozen=True, slots=True, kw_only=True)
class PartitionMetadata:
    """The racks one partition's replicas are on."""

    __type__: ClassVar = EntityType.nested
    __version__: ClassVar[i16] = i16(0)
    __flexible__: ClassVar[bool] = True
    partition: int = field(metadata={"kafka_type": "int32"}, default=0)
    racks: tuple[str, ...] = field(metadata={"kafka_type": "string"}, default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "racks", tuple(self.racks))


@dataclass(frozen=True, slots=True, kw_only=True)
class TopicMetadata:
    """One subscribed topic's id, name, partition count and partition racks (empty when no rack is known)."""

    __type__: ClassVar = EntityType.nested
    __version__: ClassVar[i16] = i16(0)
    __flexible__: ClassVar[bool] = True
    topic_id: uuid.UUID = field(metadata={"kafka_type": "uuid"}, default=uuid.UUID(int=0))
    topic_name: str = field(metadata={"kafka_type": "string"}, default="")
    num_partitions: int = field(metadata={"kafka_type": "int32"}, default=0)
    partition_metadata: tuple[PartitionMetadata, ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "partition_metadata", tuple(self.partition_metadata))


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsumerGroupPartitionMetadataValue:
    """The metadata of the topics a consumer group subscribes to, as its assignor last saw them."""

    __type__: ClassVar = EntityType.data
    __version__: ClassVar[i16] = i16(0)
    __flexible__: ClassVar[bool] = True
    topics: tuple[TopicMetadata, ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "topics", tuple(self.topics))
