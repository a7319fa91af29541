"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/MockPartitionAssignor.java (Kafka 3.9).

A server-side assignor whose answer the test prepares (share groups left out: the port has none)."""

from __future__ import annotations

import uuid
from collections.abc import Set

from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.consumer_group_partition_assignor import (
    ConsumerGroupPartitionAssignor,
)
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.group_assignment import GroupAssignment
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.group_spec import GroupSpec
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.subscribed_topic_describer import (
    SubscribedTopicDescriber,
)


class MockPartitionAssignor(ConsumerGroupPartitionAssignor):
    def __init__(self, name: str) -> None:
        self._name = name
        self._prepare_group_assignment: GroupAssignment | None = None

    def prepare_group_assignment(self, prepare_group_assignment: GroupAssignment) -> None:
        self._prepare_group_assignment = prepare_group_assignment

    def name(self) -> str:
        return self._name

    def assign(self, group_spec: GroupSpec,
               subscribed_topic_describer: SubscribedTopicDescriber) -> GroupAssignment:
        return self._prepare_group_assignment  # type: ignore[return-value]

    def target_partitions(self, member_id: str) -> Set[int] | dict[uuid.UUID, Set[int]]:
        if self._prepare_group_assignment is None:
            raise TypeError("prepareGroupAssignment")  # Objects.requireNonNull
        return self._prepare_group_assignment.members()[member_id].partitions()  # type: ignore[return-value]


class NoOpPartitionAssignor(ConsumerGroupPartitionAssignor):
    """Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/NoOpPartitionAssignor.java
    (Kafka 3.9): every member keeps the assignment it has."""

    NAME = "no-op"

    def name(self) -> str:
        return NoOpPartitionAssignor.NAME

    def assign(self, group_spec: GroupSpec,
               subscribed_topic_describer: SubscribedTopicDescriber) -> GroupAssignment:
        return GroupAssignment({member_id: group_spec.member_assignment(member_id)
                                for member_id in group_spec.member_ids()})
