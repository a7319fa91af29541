"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/Group.java (Kafka 3.9).

Kafka's interface is an abstract class here; Java's Optional results are `X | None`. A listed group is kio's
ListGroups (v5) ListedGroup.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Set
from typing import TYPE_CHECKING

from kio.schema.list_groups.v5.response import ListedGroup

if TYPE_CHECKING:
    from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record import CoordinatorRecord
    from kafka_edu.v3_9.group_coordinator.coordinator.group.offset_expiration_condition import (
        OffsetExpirationCondition,
    )


class Group(ABC):
    """What every kind of group the coordinator hosts (classic, consumer, share) answers to."""

    class GroupType(enum.Enum):
        CONSUMER = "consumer"
        CLASSIC = "classic"
        SHARE = "share"
        UNKNOWN = "unknown"

        def __str__(self) -> str:
            return self.value

        @staticmethod
        def parse(name: str | None) -> Group.GroupType:
            """Case-insensitive; a name that is no group type (or None) is UNKNOWN rather than an error."""
            if name is None:
                return Group.GroupType.UNKNOWN
            group_type = _NAME_TO_ENUM.get(name.lower())
            return Group.GroupType.UNKNOWN if group_type is None else group_type

    @abstractmethod
    def type(self) -> Group.GroupType: ...

    @abstractmethod
    def state_as_string(self, committed_offset: int | None = None) -> str:
        """Kafka's stateAsString() and stateAsString(committedOffset): the state now, or as of an offset."""

    @abstractmethod
    def as_listed_group(self, committed_offset: int) -> ListedGroup: ...

    @abstractmethod
    def group_id(self) -> str: ...

    @abstractmethod
    def validate_offset_commit(self, member_id: str, group_instance_id: str | None,
                               generation_id_or_member_epoch: int, is_transactional: bool,
                               api_version: int) -> None:
        """Raises if this member may not commit offsets (the exception says why)."""

    @abstractmethod
    def validate_offset_fetch(self, member_id: str | None, member_epoch: int, last_committed_offset: int) -> None:
        """Raises if this member may not fetch offsets, as of the last committed offset."""

    @abstractmethod
    def validate_offset_delete(self) -> None: ...

    @abstractmethod
    def validate_delete_group(self) -> None: ...

    @abstractmethod
    def is_subscribed_to_topic(self, topic: str) -> bool: ...

    @abstractmethod
    def create_group_tombstone_records(self, records: list[CoordinatorRecord]) -> None:
        """Appends the tombstones that delete the group from __consumer_offsets."""

    @abstractmethod
    def is_empty(self) -> bool: ...

    @abstractmethod
    def offset_expiration_condition(self) -> OffsetExpirationCondition | None: ...

    @abstractmethod
    def is_in_states(self, states_filter: Set[str], committed_offset: int) -> bool:
        """Whether the state as of the offset, lower-cased, is one of the (lower-case) filter's."""

    @abstractmethod
    def has_member(self, member_id: str) -> bool: ...

    @abstractmethod
    def num_members(self) -> int: ...


_NAME_TO_ENUM: dict[str, Group.GroupType] = {group_type.value.lower(): group_type for group_type in Group.GroupType}
