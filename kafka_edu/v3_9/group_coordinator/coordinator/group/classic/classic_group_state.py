"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/classic/ClassicGroupState.java
(Kafka 3.9)."""

from __future__ import annotations

import enum


class ClassicGroupState(enum.Enum):
    """The states of a classic group's rebalance protocol, each with the states it may be entered from.

    EMPTY: no members (or only offsets); a join starts a rebalance, other member requests get UNKNOWN_MEMBER_ID.
    PREPARING_REBALANCE: joins are parked until every expected member has (re)joined.
    COMPLETING_REBALANCE: the leader's assignment is awaited; syncs are parked until it arrives.
    STABLE: every member has its assignment; a membership or metadata change starts a new rebalance.
    DEAD: the group is being removed; it never leaves this state.
    """

    EMPTY = "Empty"
    PREPARING_REBALANCE = "PreparingRebalance"
    COMPLETING_REBALANCE = "CompletingRebalance"
    STABLE = "Stable"
    DEAD = "Dead"

    def __str__(self) -> str:
        return self.value

    def to_lower_case_string(self) -> str:
        return self.value.lower()

    def valid_previous_states(self) -> frozenset[ClassicGroupState]:
        """The states a group must be in to move to this one."""
        return _VALID_PREVIOUS_STATES[self]


_VALID_PREVIOUS_STATES: dict[ClassicGroupState, frozenset[ClassicGroupState]] = {
    ClassicGroupState.EMPTY: frozenset({ClassicGroupState.PREPARING_REBALANCE}),
    ClassicGroupState.PREPARING_REBALANCE: frozenset({
        ClassicGroupState.STABLE, ClassicGroupState.COMPLETING_REBALANCE, ClassicGroupState.EMPTY}),
    ClassicGroupState.COMPLETING_REBALANCE: frozenset({ClassicGroupState.PREPARING_REBALANCE}),
    ClassicGroupState.STABLE: frozenset({ClassicGroupState.COMPLETING_REBALANCE}),
    ClassicGroupState.DEAD: frozenset({
        ClassicGroupState.STABLE, ClassicGroupState.PREPARING_REBALANCE, ClassicGroupState.COMPLETING_REBALANCE,
        ClassicGroupState.EMPTY, ClassicGroupState.DEAD}),
}
