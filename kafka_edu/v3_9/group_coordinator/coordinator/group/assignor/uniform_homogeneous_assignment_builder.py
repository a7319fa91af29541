"""Port of group-coordinator/src/main/java/.../group/assignor/UniformHomogeneousAssignmentBuilder.java (Kafka 3.9).

The uniform assignment when every member subscribes to the same topics. Balance first (member sizes differ by one
at most), then stickiness: each member keeps its current partitions up to its quota, the rest go to the members
below theirs. Like Kafka, it reuses a member's current assignment map when it does not change it, which is why it
insists on read-only maps (any Mapping that is not a MutableMapping: Assignment's MappingProxyType, say).

Kafka walks the subscribed topics in HashSet order, and that order decides who gets which partition when several
answers are equally good; JavaHashSet reproduces it.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, MutableMapping, Set

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v3_9.group_coordinator.coordinator.group.assignor.java_hash_order import JavaHashSet
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.member_assignment_impl import MemberAssignmentImpl
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.group_assignment import GroupAssignment
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.group_spec import GroupSpec
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.member_assignment import MemberAssignment
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.partition_assignor_exception import (
    PartitionAssignorException,
)
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.subscribed_topic_describer import (
    SubscribedTopicDescriber,
)
from kafka_edu.v3_9.server_common.server.common.topic_id_partition import TopicIdPartition


def _is_immutable_map(partitions: Mapping[uuid.UUID, Set[int]]) -> bool:
    """Kafka checks for its unmodifiable and empty map classes; a read-only Mapping is the Python equivalent."""
    return not isinstance(partitions, MutableMapping)


class _MemberWithRemainingQuota:
    def __init__(self, member_id: str, remaining_quota: int) -> None:
        self.member_id = member_id
        self.remaining_quota = remaining_quota


class UniformHomogeneousAssignmentBuilder:
    def __init__(self, group_spec: GroupSpec, subscribed_topic_describer: SubscribedTopicDescriber) -> None:
        self._group_spec = group_spec
        self._subscribed_topic_describer = subscribed_topic_describer
        first_member = next(iter(group_spec.member_ids()))
        self._subscribed_topic_ids: JavaHashSet[uuid.UUID] = JavaHashSet(
            group_spec.member_subscription(first_member).subscribed_topic_ids())
        self._unfilled_members: list[_MemberWithRemainingQuota] = []  # members still below their quota
        self._unassigned_partitions: list[TopicIdPartition] = []  # every partition nobody holds, then the revoked
        self._target_assignment: dict[str, MemberAssignment] = {}
        self._minimum_member_quota = 0  # total partitions // members
        self._remaining_members_to_get_an_extra_partition = 0  # total partitions % members

    def build(self) -> GroupAssignment:
        """PartitionAssignorException for a subscribed topic the describer does not know."""
        if not self._subscribed_topic_ids:
            return GroupAssignment({})

        total_partitions_count = 0
        for topic_id in self._subscribed_topic_ids:
            partition_count = self._subscribed_topic_describer.num_partitions(topic_id)
            if partition_count == -1:
                raise PartitionAssignorException(
                    f"Members are subscribed to topic {topic_id} which doesn't exist in the topic metadata.")
            for i in range(partition_count):
                if not self._group_spec.is_partition_assigned(topic_id, i):
                    self._unassigned_partitions.append(TopicIdPartition(topic_id, i))
            total_partitions_count += partition_count

        number_of_members = len(self._group_spec.member_ids())
        self._minimum_member_quota = total_partitions_count // number_of_members
        self._remaining_members_to_get_an_extra_partition = total_partitions_count % number_of_members

        self._maybe_revoke_partitions()
        self._assign_remaining_partitions()
        return GroupAssignment(self._target_assignment)

    def _maybe_revoke_partitions(self) -> None:
        """Take from each member the partitions of topics it no longer subscribes to and those beyond its quota;
        a member whose assignment does not change keeps its very map (no copy)."""
        for member_id in self._group_spec.member_ids():
            old_assignment = self._group_spec.member_assignment(member_id).partitions()
            new_assignment: dict[uuid.UUID, set[int]] | None = None

            if not _is_immutable_map(old_assignment):
                raise IllegalStateException("The assignor expect an immutable map.")

            quota = self._minimum_member_quota
            if self._remaining_members_to_get_an_extra_partition > 0:
                quota += 1
                self._remaining_members_to_get_an_extra_partition -= 1

            for topic_id, partitions in old_assignment.items():
                if topic_id in self._subscribed_topic_ids:
                    if len(partitions) <= quota:
                        quota -= len(partitions)
                    else:
                        for partition in partitions:
                            if quota > 0:
                                quota -= 1
                            else:
                                if new_assignment is None:
                                    new_assignment = _deep_copy(old_assignment)
                                parts = new_assignment[topic_id]
                                parts.discard(partition)
                                if not parts:
                                    del new_assignment[topic_id]
                                self._unassigned_partitions.append(TopicIdPartition(topic_id, partition))
                else:
                    if new_assignment is None:
                        new_assignment = _deep_copy(old_assignment)
                    new_assignment.pop(topic_id, None)  # the whole topic goes

            if quota > 0:
                self._unfilled_members.append(_MemberWithRemainingQuota(member_id, quota))

            self._target_assignment[member_id] = MemberAssignmentImpl(
                old_assignment if new_assignment is None else new_assignment)

    def _assign_remaining_partitions(self) -> None:
        unassigned_partition_index = 0
        for unfilled_member in self._unfilled_members:
            member_id = unfilled_member.member_id
            remaining_quota = unfilled_member.remaining_quota

            new_assignment = self._target_assignment[member_id].partitions()
            if _is_immutable_map(new_assignment):
                new_assignment = _deep_copy(new_assignment)  # the member's own map: copy before changing it
                self._target_assignment[member_id] = MemberAssignmentImpl(new_assignment)

            i = 0
            while i < remaining_quota and unassigned_partition_index < len(self._unassigned_partitions):
                unassigned_topic_id_partition = self._unassigned_partitions[unassigned_partition_index]
                unassigned_partition_index += 1
                new_assignment.setdefault(unassigned_topic_id_partition.topic_id, set()).add(  # type: ignore[union-attr]
                    unassigned_topic_id_partition.partition_id)
                i += 1

        if unassigned_partition_index < len(self._unassigned_partitions):
            raise PartitionAssignorException("Partitions were left unassigned")


def _deep_copy(partitions: Mapping[uuid.UUID, Set[int]]) -> dict[uuid.UUID, set[int]]:
    return {topic_id: set(parts) for topic_id, parts in partitions.items()}
