"""Port of group-coordinator/src/main/resources/common/message/ConsumerGroupCurrentMemberAssignmentValue.json (Kafka
3.9).

A kio-style frozen dataclass per struct; list fields are tuples so a record stays immutable and hashable. Defaults
are the ones Kafka's generated Java class starts with.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import ClassVar

from kio.static.constants import EntityType
from kio.static.primitive import i16


@dataclass(frozen=True, slots=True, kw_only=True)
class TopicPartitions:
    """Some partitions of one topic, by topic id."""

    __type__: ClassVar = EntityType.nested
    __version__: ClassVar[i16] = i16(0)
    __flexible__: ClassVar[bool] = True
    topic_id: uuid.UUID = field(metadata={"kafka_type": "uuid"}, default=uuid.UUID(int=0))
    partitions: tuple[int, ...] = field(metadata={"kafka_type": "int32"}, default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "partitions", tuple(self.partitions))


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsumerGroupCurrentMemberAssignmentValue:
    """Where a member stands in its reconciliation (the value of a ConsumerGroupCurrentMemberAssignmentKey)."""

    __type__: ClassVar = EntityType.data
    __version__: ClassVar[i16] = i16(0)
    __flexible__: ClassVar[bool] = True
    member_epoch: int = field(metadata={"kafka_type": "int32"}, default=0)
    previous_member_epoch: int = field(metadata={"kafka_type": "int32"}, default=0)
    state: int = field(metadata={"kafka_type": "int8"}, default=0)
    """A MemberState value."""
    assigned_partitions: tuple[TopicPartitions, ...] = field(default=())
    partitions_pending_revocation: tuple[TopicPartitions, ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "assigned_partitions", tuple(self.assigned_partitions))
        object.__setattr__(self, "partitions_pending_revocation", tuple(self.partitions_pending_revocation))
