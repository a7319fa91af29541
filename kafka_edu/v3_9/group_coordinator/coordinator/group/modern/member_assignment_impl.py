"""Port of group-coordinator/src/main/java/.../group/modern/MemberAssignmentImpl.java (Kafka 3.9)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Set

from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.member_assignment import MemberAssignment


class MemberAssignmentImpl(MemberAssignment):
    """The assignment an assignor computes for one member of a modern group."""

    def __init__(self, partitions: Mapping[uuid.UUID, Set[int]]) -> None:
        if partitions is None:
            raise TypeError("partitions")  # Objects.requireNonNull
        self._partitions = partitions

    def partitions(self) -> Mapping[uuid.UUID, Set[int]]:
        return self._partitions

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other is None or type(other) is not type(self):
            return False
        return self._partitions == other._partitions

    __hash__ = None  # type: ignore[assignment]  # the assignors fill the map in place

    def __repr__(self) -> str:
        return f"MemberAssignment(partitions={dict(self._partitions)})"
