"""Port of group-coordinator/src/main/resources/common/message/ConsumerGroupTargetAssignmentMemberValue.json (Kafka
3.9).

A kio-style frozen dataclass per struct; list fields are tuples so a record stays immutable and hashable.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from kio.static.constants import EntityType
from kio.static.primitive import i16


@dataclass(frozen=True, slots=True, kw_only=True)
class TopicPartition:
    """The partitions of one topic the assignor gave the member."""

    __type__: ClassVar = EntityType.nested
    __version__: ClassVar[i16] = i16(0)
    __flexible__: ClassVar[bool] = True
    topic_id: uuid.UUID = field(metadata={"kafka_type": "uuid"}, default=uuid.UUID(int=0))
    partitions: tuple[int, ...] = field(metadata={"kafka_type": "int32"}, default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "partitions", tuple(self.partitions))


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsumerGroupTargetAssignmentMemberValue:
    """One member's target assignment (the value of a ConsumerGroupTargetAssignmentMemberKey)."""

    __type__: ClassVar = EntityType.data
    __version__: ClassVar[i16] = i16(0)
    __flexible__: ClassVar[bool] = True
    topic_partitions: tuple[TopicPartition, ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "topic_partitions", tuple(self.topic_partitions))
