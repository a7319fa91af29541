"""Port of group-coordinator/group-coordinator-api/.../api/assignor/PartitionAssignor.java (Kafka 3.9)."""

from __future__ import annotations

from abc import ABC, abstractmethod

from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.group_assignment import GroupAssignment
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.group_spec import GroupSpec
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.subscribed_topic_describer import (
    SubscribedTopicDescriber,
)


class PartitionAssignor(ABC):
    """A server-side assignor the group coordinator runs to compute a group's target assignment."""

    @abstractmethod
    def name(self) -> str:
        """The name a group configures the assignor by (group.consumer.assignors)."""

    @abstractmethod
    def assign(self, group_spec: GroupSpec, subscribed_topic_describer: SubscribedTopicDescriber) -> GroupAssignment:
        """The new assignment; PartitionAssignorException when none can be computed."""
