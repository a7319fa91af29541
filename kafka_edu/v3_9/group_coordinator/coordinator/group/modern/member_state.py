"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/modern/MemberState.java (Kafka 3.9).

The states of a member's reconciliation; CurrentAssignmentBuilder describes the transitions. The byte value is what
ConsumerGroupCurrentMemberAssignmentValue.State stores; Kafka's value() is the enum's `value`.
"""

from __future__ import annotations

import enum


class MemberState(enum.Enum):
    STABLE = 0  # reconciled with the target assignment of its epoch
    UNREVOKED_PARTITIONS = 1  # must give up partitions before it can move to the next epoch
    UNRELEASED_PARTITIONS = 2  # at the latest epoch, but waits for partitions other members still hold
    UNKNOWN = 127  # a state written by a newer coordinator that this version does not know

    @staticmethod
    def from_value(value: int) -> MemberState:
        """A byte this version does not know maps to UNKNOWN instead of failing: records may come from a newer
        coordinator."""
        return _VALUES_TO_ENUMS.get(value, MemberState.UNKNOWN)

    def __str__(self) -> str:
        return self.name


_VALUES_TO_ENUMS: dict[int, MemberState] = {state.value: state for state in MemberState}
