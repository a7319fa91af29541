"""Port of group-coordinator/group-coordinator-api/.../api/assignor/GroupAssignment.java (Kafka 3.9)."""

from __future__ import annotations

from collections.abc import Mapping

from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.member_assignment import MemberAssignment


class GroupAssignment:
    """An assignor's answer: each member's assignment by member id."""

    def __init__(self, members: Mapping[str, MemberAssignment]) -> None:
        if members is None:
            raise TypeError("members")  # Objects.requireNonNull
        self._members = members

    def members(self) -> Mapping[str, MemberAssignment]:
        return self._members

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other is None or type(other) is not type(self):
            return False
        return self._members == other._members

    __hash__ = None  # type: ignore[assignment]  # keyed by a mutable map, as Java's hashCode follows it

    def __repr__(self) -> str:
        return f"GroupAssignment(members={self._members})"
