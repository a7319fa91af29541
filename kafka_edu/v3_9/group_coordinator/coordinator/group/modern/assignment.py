"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/modern/Assignment.java (Kafka 3.9).

Topic ids are uuid.UUID, as kio and the metadata image carry them.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Set
from types import MappingProxyType
from typing import ClassVar

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_target_assignment_member_value import (
    ConsumerGroupTargetAssignmentMemberValue,
)
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.member_assignment import MemberAssignment


class Assignment(MemberAssignment):
    """The partitions, by topic id, that a member is (or should be) assigned; read-only once built."""

    EMPTY: ClassVar[Assignment]

    def __init__(self, partitions: Mapping[uuid.UUID, Set[int]]) -> None:
        if partitions is None:
            raise TypeError("partitions")  # Java's Objects.requireNonNull
        # a read-only view, like Collections.unmodifiableMap: callers cannot change an assignment through it
        self._partitions: Mapping[uuid.UUID, Set[int]] = MappingProxyType(partitions)

    def partitions(self) -> Mapping[uuid.UUID, Set[int]]:
        return self._partitions

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other is None or type(other) is not type(self):
            return False
        return self._partitions == other._partitions

    def __hash__(self) -> int:
        return hash(frozenset((topic_id, frozenset(partitions)) for topic_id, partitions in self._partitions.items()))

    def __repr__(self) -> str:
        return f"Assignment(partitions={dict(self._partitions)})"

    @staticmethod
    def from_record(record: ConsumerGroupTargetAssignmentMemberValue) -> Assignment:
        """The target assignment a ConsumerGroupTargetAssignmentMember record stores."""
        partitions: dict[uuid.UUID, set[int]] = {}
        for topic_partitions in record.topic_partitions:
            if topic_partitions.topic_id in partitions:  # Collectors.toMap refuses a key seen twice
                raise IllegalStateException(f"Duplicate key {topic_partitions.topic_id}")
            partitions[topic_partitions.topic_id] = set(topic_partitions.partitions)
        return Assignment(partitions)


Assignment.EMPTY = Assignment({})
