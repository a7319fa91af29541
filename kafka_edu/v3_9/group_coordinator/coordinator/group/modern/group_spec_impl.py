"""Port of group-coordinator/src/main/java/.../group/modern/GroupSpecImpl.java (Kafka 3.9)."""

from __future__ import annotations

import uuid
from collections.abc import Collection, Mapping
from types import MappingProxyType

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.member_assignment_impl import MemberAssignmentImpl
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.member_subscription_and_assignment_impl import (
    MemberSubscriptionAndAssignmentImpl,
)
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.group_spec import GroupSpec
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.member_assignment import MemberAssignment
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.member_subscription import MemberSubscription
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.subscription_type import SubscriptionType


class GroupSpecImpl(GroupSpec):
    """A modern group's members, subscription type and who holds which partition, handed to an assignor."""

    def __init__(self, members: Mapping[str, MemberSubscriptionAndAssignmentImpl], subscription_type: SubscriptionType,
                 inverted_member_assignment: Mapping[uuid.UUID, Mapping[int, str]]) -> None:
        if members is None:
            raise TypeError("members")  # Objects.requireNonNull, for each argument
        if subscription_type is None:
            raise TypeError("subscriptionType")
        if inverted_member_assignment is None:
            raise TypeError("invertedMemberAssignment")
        self._members = members
        self._subscription_type = subscription_type
        # topic id -> partition -> member: answers is_partition_assigned without walking every member
        self._inverted_member_assignment = inverted_member_assignment

    def member_ids(self) -> Collection[str]:
        return self._members.keys()

    def subscription_type(self) -> SubscriptionType:
        return self._subscription_type

    def is_partition_assigned(self, topic_id: uuid.UUID, partition_id: int) -> bool:
        partition_map = self._inverted_member_assignment.get(topic_id)
        if partition_map is None:
            return False
        return partition_id in partition_map

    def member_subscription(self, member_id: str) -> MemberSubscription:
        member_subscription = self._members.get(member_id)
        if member_subscription is None:
            raise IllegalArgumentException(f"Member Id {member_id} not found.")
        return member_subscription

    def member_assignment(self, member_id: str) -> MemberAssignment:
        member = self._members.get(member_id)
        if member is None:
            return MemberAssignmentImpl(MappingProxyType({}))  # Collections.emptyMap(): read-only
        return member

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other is None or type(other) is not type(self):
            return False
        return (self._subscription_type == other._subscription_type and self._members == other._members
                and self._inverted_member_assignment == other._inverted_member_assignment)

    __hash__ = None  # type: ignore[assignment]  # keyed by mutable maps

    def __repr__(self) -> str:
        return (f"GroupSpecImpl(members={dict(self._members)}, subscriptionType={self._subscription_type}, "
                f"invertedMemberAssignment={dict(self._inverted_member_assignment)})")
