"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/modern/consumer/
CurrentAssignmentBuilder.java (Kafka 3.9).

The consumer protocol's reconciliation state machine: from a member's current state and the group's target
assignment it computes the member's next state. A member first revokes what it must give up (UNREVOKED_PARTITIONS,
staying at its epoch), then moves to the target epoch and receives new partitions as soon as their previous owners
have released them (UNRELEASED_PARTITIONS until all are free, then STABLE).

Owned partitions are kio's ConsumerGroupHeartbeat v0 request TopicPartitions; topic ids are uuid.UUID.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence, Set

from kio.schema.consumer_group_heartbeat.v0.request import TopicPartitions

from kafka_edu.tracing import step
from kafka_edu.v3_9.clients.common.errors.fenced_member_epoch_exception import FencedMemberEpochException
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.assignment import Assignment
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.consumer.consumer_group_member import (
    ConsumerGroupMember,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.member_state import MemberState


class CurrentAssignmentBuilder:
    """Reconciles one member towards the target assignment; build() returns the next member, or the same one when
    it cannot progress yet."""

    def __init__(self, member: ConsumerGroupMember) -> None:
        if member is None:
            raise TypeError("member")  # Java's Objects.requireNonNull
        self._member = member
        self._target_assignment_epoch = 0
        self._target_assignment: Assignment | None = None
        # epoch of the member currently owning a partition, -1 when nobody owns it
        self._current_partition_epoch: Callable[[uuid.UUID, int], int] | None = None
        # what the member reported owning in its last heartbeat; None when it did not say
        self._owned_topic_partitions: Sequence[TopicPartitions] | None = None

    def with_target_assignment(
        self, target_assignment_epoch: int, target_assignment: Assignment,
    ) -> CurrentAssignmentBuilder:
        if target_assignment is None:
            raise TypeError("targetAssignment")
        self._target_assignment_epoch = target_assignment_epoch
        self._target_assignment = target_assignment
        return self

    def with_current_partition_epoch(
        self, current_partition_epoch: Callable[[uuid.UUID, int], int],
    ) -> CurrentAssignmentBuilder:
        if current_partition_epoch is None:
            raise TypeError("currentPartitionEpoch")
        self._current_partition_epoch = current_partition_epoch
        return self

    def with_owned_topic_partitions(
        self, owned_topic_partitions: Sequence[TopicPartitions] | None,
    ) -> CurrentAssignmentBuilder:
        self._owned_topic_partitions = owned_topic_partitions
        return self

    @step("GC.reconcile")
    def build(self) -> ConsumerGroupMember:
        member = self._member
        state = member.state()
        if state == MemberState.STABLE:
            # a stable member only moves when a newer target epoch exists
            if member.member_epoch() != self._target_assignment_epoch:
                return self._compute_next_assignment(member.member_epoch(), member.assigned_partitions())
            return member

        if state == MemberState.UNREVOKED_PARTITIONS:
            # stuck until the heartbeat no longer reports any partition it was asked to revoke
            if self._owns_revoked_partitions(member.partitions_pending_revocation()):
                return member
            # revocation done: the member may take the next epoch and reconcile from there
            return self._compute_next_assignment(member.member_epoch() + 1, member.assigned_partitions())

        if state == MemberState.UNRELEASED_PARTITIONS:
            # recompute: partitions released since last time can be handed out now
            return self._compute_next_assignment(member.member_epoch(), member.assigned_partitions())

        if state == MemberState.UNKNOWN:
            # a state from a newer coordinator (after a downgrade): fence the member until it comes back owning
            # nothing, then reconcile it from scratch
            if self._owned_topic_partitions is None or len(self._owned_topic_partitions) != 0:
                raise FencedMemberEpochException("The consumer group member is in a unknown state. "
                                                 "The member must abandon all its partitions and rejoin.")
            return self._compute_next_assignment(self._target_assignment_epoch, member.assigned_partitions())

        return member

    def _owns_revoked_partitions(self, assignment: Mapping[uuid.UUID, Set[int]]) -> bool:
        """Whether the owned partitions the member reported include one of those pending revocation; a member that
        reported nothing is assumed to still own them."""
        if self._owned_topic_partitions is None:
            return True

        for topic_partitions in self._owned_topic_partitions:
            partitions_pending_revocation = assignment.get(topic_partitions.topic_id, frozenset())
            for partition_id in topic_partitions.partitions:
                if partition_id in partitions_pending_revocation:
                    return True

        return False

    def _compute_next_assignment(
        self, member_epoch: int, member_assigned_partitions: Mapping[uuid.UUID, Set[int]],
    ) -> ConsumerGroupMember:
        """The member's next state at `member_epoch` (which may differ from its current epoch) given the partitions it
        holds now."""
        assert self._target_assignment is not None and self._current_partition_epoch is not None
        target_partitions = self._target_assignment.partitions()
        has_unreleased_partitions = False
        new_assigned_partitions: dict[uuid.UUID, set[int]] = {}
        new_partitions_pending_revocation: dict[uuid.UUID, set[int]] = {}
        new_partitions_pending_assignment: dict[uuid.UUID, set[int]] = {}

        all_topic_ids = set(target_partitions.keys())
        all_topic_ids.update(member_assigned_partitions.keys())

        for topic_id in all_topic_ids:
            target = target_partitions.get(topic_id, frozenset())
            current_assigned_partitions = member_assigned_partitions.get(topic_id, frozenset())

            # kept: what it holds and still should
            assigned_partitions = set(current_assigned_partitions) & set(target)

            # to give up: what it holds and no longer should
            partitions_pending_revocation = set(current_assigned_partitions) - assigned_partitions

            # to receive: the rest of its target, except partitions another member has not released yet
            partitions_pending_assignment = set(target) - assigned_partitions
            unreleased = {partition_id for partition_id in partitions_pending_assignment
                          if self._current_partition_epoch(topic_id, partition_id) != -1}
            partitions_pending_assignment -= unreleased
            has_unreleased_partitions = bool(unreleased) or has_unreleased_partitions

            if assigned_partitions:
                new_assigned_partitions[topic_id] = assigned_partitions

            if partitions_pending_revocation:
                new_partitions_pending_revocation[topic_id] = partitions_pending_revocation

            if partitions_pending_assignment:
                new_partitions_pending_assignment[topic_id] = partitions_pending_assignment

        if new_partitions_pending_revocation and self._owns_revoked_partitions(new_partitions_pending_revocation):
            # revoke first: the member keeps its epoch and waits in UNREVOKED_PARTITIONS for the client to confirm
            return (ConsumerGroupMember.Builder(self._member)
                    .set_state(MemberState.UNREVOKED_PARTITIONS)
                    .update_member_epoch(member_epoch)
                    .set_assigned_partitions(new_assigned_partitions)
                    .set_partitions_pending_revocation(new_partitions_pending_revocation)
                    .build())
        elif new_partitions_pending_assignment:
            # new partitions go straight into the assignment at the target epoch; still waiting on some keeps the
            # member in UNRELEASED_PARTITIONS
            for topic_id, partitions in new_partitions_pending_assignment.items():
                new_assigned_partitions.setdefault(topic_id, set()).update(partitions)
            new_state = MemberState.UNRELEASED_PARTITIONS if has_unreleased_partitions else MemberState.STABLE
            return (ConsumerGroupMember.Builder(self._member)
                    .set_state(new_state)
                    .update_member_epoch(self._target_assignment_epoch)
                    .set_assigned_partitions(new_assigned_partitions)
                    .set_partitions_pending_revocation({})
                    .build())
        elif has_unreleased_partitions:
            # nothing to revoke or hand out yet, but some target partitions are still held elsewhere
            return (ConsumerGroupMember.Builder(self._member)
                    .set_state(MemberState.UNRELEASED_PARTITIONS)
                    .update_member_epoch(self._target_assignment_epoch)
                    .set_assigned_partitions(new_assigned_partitions)
                    .set_partitions_pending_revocation({})
                    .build())
        else:
            # fully reconciled at the target epoch
            return (ConsumerGroupMember.Builder(self._member)
                    .set_state(MemberState.STABLE)
                    .update_member_epoch(self._target_assignment_epoch)
                    .set_assigned_partitions(new_assigned_partitions)
                    .set_partitions_pending_revocation({})
                    .build())
