"""Port of group-coordinator/src/main/java/.../group/modern/MemberSubscriptionAndAssignmentImpl.java (Kafka 3.9).

Kafka's current assignment is a modern.Assignment; any object with its partitions() method will do here.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Set

from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.member_assignment import MemberAssignment
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.member_subscription import MemberSubscription


class MemberSubscriptionAndAssignmentImpl(MemberSubscription, MemberAssignment):
    """One member as the group spec gives it to an assignor: its subscription and its current assignment."""

    def __init__(self, rack_id: str | None, instance_id: str | None, subscribed_topic_ids: Set[uuid.UUID],
                 member_assignment: MemberAssignment) -> None:
        # Java's Optional fields cannot be null (Optional.empty() is None here); the others can't either
        if subscribed_topic_ids is None:
            raise TypeError("subscribedTopicIds")
        if member_assignment is None:
            raise TypeError("memberAssignment")
        self._rack_id = rack_id
        self._instance_id = instance_id
        self._subscribed_topic_ids = subscribed_topic_ids
        self._member_assignment = member_assignment

    def rack_id(self) -> str | None:
        return self._rack_id

    def instance_id(self) -> str | None:
        return self._instance_id

    def subscribed_topic_ids(self) -> Set[uuid.UUID]:
        return self._subscribed_topic_ids

    def partitions(self) -> Mapping[uuid.UUID, Set[int]]:
        return self._member_assignment.partitions()

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other is None or type(other) is not type(self):
            return False
        return (self._rack_id == other._rack_id and self._instance_id == other._instance_id
                and self._subscribed_topic_ids == other._subscribed_topic_ids
                and self._member_assignment == other._member_assignment)

    __hash__ = None  # type: ignore[assignment]  # holds a mutable set

    def __repr__(self) -> str:
        rack = "N/A" if self._rack_id is None else self._rack_id
        instance = "Optional.empty" if self._instance_id is None else f"Optional[{self._instance_id}]"
        return (f"MemberSubscriptionAndAssignmentImpl(rackId={rack}, instanceId={instance}, "
                f"subscribedTopicIds={set(self._subscribed_topic_ids)}, memberAssignment={self._member_assignment})")
