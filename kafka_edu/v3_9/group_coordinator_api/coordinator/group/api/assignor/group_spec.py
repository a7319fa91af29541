"""Port of group-coordinator/group-coordinator-api/.../api/assignor/GroupSpec.java (Kafka 3.9)."""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from collections.abc import Collection

from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.member_assignment import MemberAssignment
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.member_subscription import (
    MemberSubscription,
)
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.subscription_type import SubscriptionType


class GroupSpec(ABC):
    """The group as an assignor sees it: its members, their subscriptions and current assignments."""

    @abstractmethod
    def member_ids(self) -> Collection[str]: ...

    @abstractmethod
    def subscription_type(self) -> SubscriptionType: ...

    @abstractmethod
    def is_partition_assigned(self, topic_id: uuid.UUID, partition_id: int) -> bool:
        """Whether some member holds the partition in the current target assignment."""

    @abstractmethod
    def member_subscription(self, member_id: str) -> MemberSubscription:
        """IllegalArgumentException for a member the group has not got."""

    @abstractmethod
    def member_assignment(self, member_id: str) -> MemberAssignment:
        """An empty assignment for a member the group has not got."""
