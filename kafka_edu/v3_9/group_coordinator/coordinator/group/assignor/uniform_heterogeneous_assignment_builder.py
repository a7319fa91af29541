"""Port of group-coordinator/src/main/java/.../group/assignor/UniformHeterogeneousAssignmentBuilder.java (Kafka 3.9).

The uniform assignment when members subscribe to different topics. It keeps every member's current partitions of
topics it still subscribes to, gives out the rest (the topics with most partitions per subscriber first, each
partition to its least loaded subscriber), then moves partitions from loaded members to lighter ones until no move
improves the balance, remembering moves so a partition that went A -> B is preferred when B gives one back to A.

Kafka keeps the partitions to place in HashSets and sorts them with a stable sort: partitions that tie under the
sort keep HashSet order, which JavaHashSet reproduces, so the port places them as Kafka does. Java's TreeSet of
members ordered by (assignment size, member id) is _SortedMembers.
"""

from __future__ import annotations

import bisect
import logging
import uuid
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass

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

LOG = logging.getLogger("org.apache.kafka.coordinator.group.assignor.UniformHeterogeneousAssignmentBuilder")


def _java_string_key(member_id: str) -> bytes:
    return member_id.encode("utf-16-be", "surrogatepass")  # orders as String.compareTo


class _SortedMembers:
    """A TreeSet of member ids ordered by their current target assignment size, then id. The key is taken when a
    member goes in or out, so, as in Kafka, a member leaves before its size changes and comes back after."""

    def __init__(self, sizes: dict[str, _MemberAssignmentData], member_ids: Iterable[str] = ()) -> None:
        self._sizes = sizes
        self._entries: list[tuple[int, bytes, str]] = []
        for member_id in member_ids:
            self.add(member_id)

    def _key(self, member_id: str) -> tuple[int, bytes, str]:
        return self._sizes[member_id].current_assignment_size, _java_string_key(member_id), member_id

    def add(self, member_id: str) -> None:
        key = self._key(member_id)
        i = bisect.bisect_left(self._entries, key)
        if i == len(self._entries) or self._entries[i] != key:
            self._entries.insert(i, key)

    def remove(self, member_id: str) -> None:
        if member_id not in self._sizes:
            return
        key = self._key(member_id)
        i = bisect.bisect_left(self._entries, key)
        if i < len(self._entries) and self._entries[i] == key:
            del self._entries[i]

    def first(self) -> str:
        if not self._entries:
            raise KeyError("empty")  # TreeSet.first's NoSuchElementException
        return self._entries[0][2]

    def last(self) -> str:
        if not self._entries:
            raise KeyError("empty")
        return self._entries[-1][2]

    def __iter__(self) -> Iterator[str]:
        return iter([entry[2] for entry in self._entries])

    def __len__(self) -> int:
        return len(self._entries)


@dataclass(frozen=True)
class _MemberPair:
    """A partition (or one of a topic's partitions) moved from src to dst during this rebalance."""

    src_member_id: str
    dst_member_id: str

    def __repr__(self) -> str:
        return f"MemberPair(srcMemberId='{self.src_member_id}', dstMemberId='{self.dst_member_id}')"


class _PartitionMovements:
    """The moves made so far, by topic and pair and by partition, so a later move can undo an earlier one instead
    of moving a second partition (stickiness)."""

    def __init__(self) -> None:
        self._partition_movements_by_topic: dict[uuid.UUID, dict[_MemberPair, JavaHashSet[TopicIdPartition]]] = {}
        self._partition_movements_by_partition: dict[TopicIdPartition, _MemberPair] = {}

    def _remove_movement_record_of_partition(self, partition: TopicIdPartition) -> _MemberPair:
        pair = self._partition_movements_by_partition.pop(partition)
        topic = partition.topic_id
        partition_movements_for_this_topic = self._partition_movements_by_topic[topic]
        partition_movements_for_this_topic[pair].discard(partition)
        if not partition_movements_for_this_topic[pair]:
            del partition_movements_for_this_topic[pair]
        if not self._partition_movements_by_topic[topic]:
            del self._partition_movements_by_topic[topic]
        return pair

    def _add_partition_movement_record(self, partition: TopicIdPartition, pair: _MemberPair) -> None:
        self._partition_movements_by_partition[partition] = pair
        topic = partition.topic_id
        partition_movements_for_this_topic = self._partition_movements_by_topic.setdefault(topic, {})
        partition_movements_for_this_topic.setdefault(pair, JavaHashSet()).add(partition)

    def move_partition(self, partition: TopicIdPartition, old_owner: str, new_owner: str) -> None:
        pair = _MemberPair(old_owner, new_owner)
        if partition in self._partition_movements_by_partition:
            # moved before: record one move from the first owner, or none if it goes back there
            existing_pair = self._remove_movement_record_of_partition(partition)
            if existing_pair.dst_member_id == old_owner:
                raise PartitionAssignorException(
                    "Mismatch in partition movement record with respect to partition ownership during a rebalance")
            if existing_pair.src_member_id != new_owner:
                self._add_partition_movement_record(partition, _MemberPair(existing_pair.src_member_id, new_owner))
        else:
            self._add_partition_movement_record(partition, pair)

    def compute_actual_partition_to_be_moved(self, partition: TopicIdPartition, old_owner: str,
                                             new_owner: str) -> TopicIdPartition:
        """The partition to move from old_owner to new_owner: one of the topic's partitions that earlier went the
        other way, if any (moving it back keeps both members stickier), else the given one."""
        topic = partition.topic_id
        if topic not in self._partition_movements_by_topic:
            return partition

        if partition in self._partition_movements_by_partition:
            expected_old_owner = self._partition_movements_by_partition[partition].dst_member_id
            if old_owner != expected_old_owner:
                raise PartitionAssignorException(
                    f"Old owner does not match expected value for partition: {partition}")
            old_owner = self._partition_movements_by_partition[partition].src_member_id

        partition_movements_for_this_topic = self._partition_movements_by_topic[topic]
        reverse_pair = _MemberPair(new_owner, old_owner)
        if reverse_pair not in partition_movements_for_this_topic:
            return partition
        return next(iter(partition_movements_for_this_topic[reverse_pair]))


class _MemberAssignmentData:
    def __init__(self, member_id: str) -> None:
        self.member_id = member_id
        self.current_assignment_size = 0
        self.max_assignment_size = 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _MemberAssignmentData) and self.member_id == other.member_id

    def __hash__(self) -> int:
        return hash(self.member_id)

    def __repr__(self) -> str:
        return (f"MemberAssignmentData(memberId='{self.member_id}', "
                f"currentAssignmentSize={self.current_assignment_size}, maxAssignmentSize={self.max_assignment_size})")


class _AssignmentManager:
    """Each member's current target size against the most it could hold (all partitions of its topics); it
    updates the builder's target assignment, owners and sorted members together."""

    def __init__(self, builder: UniformHeterogeneousAssignmentBuilder,
                 subscribed_topic_describer: SubscribedTopicDescriber) -> None:
        self._builder = builder
        self.members_with_assignment_sizes: dict[str, _MemberAssignmentData] = {}
        group_spec = builder._group_spec
        for member_id in group_spec.member_ids():
            max_size = sum(subscribed_topic_describer.num_partitions(topic_id)
                           for topic_id in group_spec.member_subscription(member_id).subscribed_topic_ids())
            member_assignment_data = self.members_with_assignment_sizes.setdefault(
                member_id, _MemberAssignmentData(member_id))
            member_assignment_data.max_assignment_size = max_size
            member_assignment_data.current_assignment_size = 0

    def target_assignment_size(self, member_id: str | None) -> int:
        member_data = self.members_with_assignment_sizes.get(member_id)  # type: ignore[arg-type]
        if member_data is None:
            LOG.warning("Member Id %s not found", member_id)
            return 0
        return member_data.current_assignment_size

    def max_assignment_size(self, member_id: str) -> int:
        member_data = self.members_with_assignment_sizes.get(member_id)
        if member_data is None:
            LOG.warning("Member Id %s not found", member_id)
            return 0
        return member_data.max_assignment_size

    def is_member_at_max_capacity(self, member_id: str) -> bool:
        return self.target_assignment_size(member_id) >= self.max_assignment_size(member_id)

    def increment_target_assignment_size(self, member_id: str) -> None:
        member_data = self.members_with_assignment_sizes.get(member_id)
        if member_data is None:
            LOG.warning("Member Id %s not found", member_id)
            return
        member_data.current_assignment_size += 1

    def decrement_target_assignment_size(self, member_id: str) -> None:
        member_data = self.members_with_assignment_sizes.get(member_id)
        if member_data is None:
            LOG.warning("Member Id %s not found", member_id)
            return
        if member_data.current_assignment_size > 0:
            member_data.current_assignment_size -= 1

    def maybe_assign_partition_to_member(self, topic_id_partition: TopicIdPartition, member_id: str) -> bool:
        """Assign unless the member does not subscribe to the topic or is full."""
        builder = self._builder
        if topic_id_partition.topic_id not in builder._group_spec.member_subscription(member_id).subscribed_topic_ids():
            return False
        if self.is_member_at_max_capacity(member_id):
            return False
        self.add_partition_to_target_assignment(topic_id_partition, member_id)
        return True

    def add_partition_to_target_assignment(self, topic_id_partition: TopicIdPartition, member_id: str) -> None:
        builder = self._builder
        _add_partition_to_assignment(builder._target_assignment, member_id, topic_id_partition.topic_id,
                                     topic_id_partition.partition_id)
        builder._partition_owner_in_target_assignment[topic_id_partition] = member_id
        # out of the sorted set while its size changes, back in unless it is now full
        builder._sorted_members_by_assignment_size.remove(member_id)
        self.increment_target_assignment_size(member_id)
        if not self.is_member_at_max_capacity(member_id):
            builder._sorted_members_by_assignment_size.add(member_id)
        builder._unassigned_partitions.discard(topic_id_partition)

    def remove_partition_from_target_assignment(self, topic_id_partition: TopicIdPartition, member_id: str) -> None:
        builder = self._builder
        target_partitions_map = builder._target_assignment[member_id].partitions()
        partitions_set = target_partitions_map.get(topic_id_partition.topic_id)
        if partitions_set is not None:
            partitions_set.discard(topic_id_partition.partition_id)  # type: ignore[attr-defined]
            if not partitions_set:
                del target_partitions_map[topic_id_partition.topic_id]  # type: ignore[attr-defined]

        owners = builder._partition_owner_in_target_assignment
        if owners.get(topic_id_partition) == member_id:  # Map.remove(key, value)
            del owners[topic_id_partition]
        builder._sorted_members_by_assignment_size.remove(member_id)
        self.decrement_target_assignment_size(member_id)
        if not self.is_member_at_max_capacity(member_id):
            builder._sorted_members_by_assignment_size.add(member_id)

    def sort_members_by_assignment_size(self, member_ids: Collection[str]) -> _SortedMembers:
        """The members that can take more, least loaded first."""
        return _SortedMembers(self.members_with_assignment_sizes, (
            member_id for member_id in member_ids
            if self.members_with_assignment_sizes[member_id].current_assignment_size
            < self.members_with_assignment_sizes[member_id].max_assignment_size))


class UniformHeterogeneousAssignmentBuilder:
    def __init__(self, group_spec: GroupSpec, subscribed_topic_describer: SubscribedTopicDescriber) -> None:
        self._group_spec = group_spec
        self._subscribed_topic_describer = subscribed_topic_describer
        self._subscribed_topic_ids: JavaHashSet[uuid.UUID] = JavaHashSet()
        self._members_per_topic: dict[uuid.UUID, list[str]] = {}  # subscribers of each topic, in member order
        self._target_assignment: dict[str, MemberAssignment] = {}
        for member_id in group_spec.member_ids():
            for topic_id in group_spec.member_subscription(member_id).subscribed_topic_ids():
                partition_count = subscribed_topic_describer.num_partitions(topic_id)
                if partition_count == -1:
                    raise PartitionAssignorException(
                        f"Members are subscribed to topic {topic_id} which doesn't exist in the topic metadata.")
                self._subscribed_topic_ids.add(topic_id)
                self._members_per_topic.setdefault(topic_id, []).append(member_id)
            self._target_assignment[member_id] = MemberAssignmentImpl({})
        self._unassigned_partitions = _topic_id_partitions(self._subscribed_topic_ids, subscribed_topic_describer)
        self._assigned_sticky_partitions: set[TopicIdPartition] = set()  # kept from current assignments
        self._partition_owner_in_target_assignment: dict[TopicIdPartition, str] = {}
        self._sorted_members_by_assignment_size = _SortedMembers({})
        self._assignment_manager = _AssignmentManager(self, subscribed_topic_describer)
        self._sorted_members_by_assignment_size = self._assignment_manager.sort_members_by_assignment_size(
            list(group_spec.member_ids()))
        self._partition_movements = _PartitionMovements()

    def build(self) -> GroupAssignment:
        """Keep what can be kept, place the rest, then balance."""
        if not self._subscribed_topic_ids:
            LOG.info("The subscription list is empty, returning an empty assignment")
            return GroupAssignment({})
        self._assign_sticky_partitions()
        self._unassigned_partitions_assignment()
        self._balance()
        return GroupAssignment(self._target_assignment)

    def _sort_topic_id_partitions(self, topic_id_partitions: Iterable[TopicIdPartition]) -> list[TopicIdPartition]:
        """Most partitions per subscriber first, then fewest subscribers, then partition number; ties keep the
        given order (Java's stable sort)."""

        def key(topic_id_partition: TopicIdPartition) -> tuple[float, int, int]:
            total_partitions = self._subscribed_topic_describer.num_partitions(topic_id_partition.topic_id)
            total_subscribers = len(self._members_per_topic[topic_id_partition.topic_id])
            return -(total_partitions / total_subscribers), total_subscribers, topic_id_partition.partition_id

        return sorted(topic_id_partitions, key=key)

    def _assign_sticky_partitions(self) -> None:
        """Members keep their current partitions of the topics they still subscribe to."""
        for member_id in self._group_spec.member_ids():
            for topic_id, current_assignment in self._group_spec.member_assignment(member_id).partitions().items():
                if topic_id in self._group_spec.member_subscription(member_id).subscribed_topic_ids():
                    for partition in current_assignment:
                        topic_id_partition = TopicIdPartition(topic_id, partition)
                        self._assignment_manager.add_partition_to_target_assignment(topic_id_partition, member_id)
                        self._assigned_sticky_partitions.add(topic_id_partition)
                else:
                    LOG.debug("The topic %s is no longer present in the subscribed topics list", topic_id)

    def _unassigned_partitions_assignment(self) -> None:
        """Each remaining partition, in sorted order, to its least loaded subscriber that has room."""
        sorted_partitions = self._sort_topic_id_partitions(self._unassigned_partitions)
        for partition in sorted_partitions:
            sorted_members = self._assignment_manager.sort_members_by_assignment_size(
                self._members_per_topic[partition.topic_id])
            for member in sorted_members:
                if self._assignment_manager.maybe_assign_partition_to_member(partition, member):
                    break

    def _can_topic_participate_in_reassignment(self, topic_id: uuid.UUID) -> bool:
        return len(self._members_per_topic[topic_id]) >= 2

    def _can_member_participate_in_reassignment(self, member_id: str) -> bool:
        """A member below its maximum can take more; a full one can still give partitions of a shared topic."""
        assigned_topic_ids = list(self._target_assignment[member_id].partitions().keys())
        current_assignment_size = self._assignment_manager.target_assignment_size(member_id)
        max_assignment_size = self._assignment_manager.max_assignment_size(member_id)
        if current_assignment_size > max_assignment_size:
            LOG.error("The member %s is assigned more partitions than the maximum possible.", member_id)
        if current_assignment_size < max_assignment_size:
            return True
        return any(self._can_topic_participate_in_reassignment(topic_id) for topic_id in assigned_topic_ids)

    def _is_balanced(self) -> bool:
        """Sizes within one of each other, or no member could take a partition from one with two or more
        partitions more than it has."""
        manager = self._assignment_manager
        sorted_members = self._sorted_members_by_assignment_size
        min_size = manager.target_assignment_size(sorted_members.first())
        max_size = manager.target_assignment_size(sorted_members.last())
        if min_size >= max_size - 1:
            return True

        for member in sorted_members:
            member_partition_count = manager.target_assignment_size(member)
            max_assignment_size = manager.max_assignment_size(member)
            if member_partition_count == max_assignment_size:
                continue  # it already has every partition it could have
            for topic_id in self._group_spec.member_subscription(member).subscribed_topic_ids():
                assigned_partitions = self._target_assignment[member].partitions().get(topic_id)
                for i in range(self._subscribed_topic_describer.num_partitions(topic_id)):
                    topic_id_partition = TopicIdPartition(topic_id, i)
                    if assigned_partitions is None or i not in assigned_partitions:
                        other_member = self._partition_owner_in_target_assignment.get(topic_id_partition)
                        other_member_partition_count = manager.target_assignment_size(other_member)
                        if member_partition_count + 1 < other_member_partition_count:
                            LOG.debug("%s can be moved from member %s to member %s for a more balanced assignment.",
                                      topic_id_partition, other_member, member)
                            return False
        return True

    def _balance(self) -> None:
        if self._unassigned_partitions:
            raise PartitionAssignorException("Some partitions were left unassigned")
        # every partition is a candidate again, except those of topics only one member subscribes to
        for topic_id_partition in _topic_id_partitions(self._subscribed_topic_ids, self._subscribed_topic_describer):
            self._unassigned_partitions.add(topic_id_partition)

        fixed_partitions: set[TopicIdPartition] = set()
        for topic_id in self._subscribed_topic_ids:
            if not self._can_topic_participate_in_reassignment(topic_id):
                for i in range(self._subscribed_topic_describer.num_partitions(topic_id)):
                    fixed_partitions.add(TopicIdPartition(topic_id, i))
        for topic_id_partition in fixed_partitions:
            self._unassigned_partitions.discard(topic_id_partition)

        for member in self._group_spec.member_ids():
            if not self._can_member_participate_in_reassignment(member):
                self._sorted_members_by_assignment_size.remove(member)

        if self._unassigned_partitions:
            self._perform_reassignments()

    def _perform_reassignments(self) -> None:
        """Move partitions off members two or more above a co-subscriber, pass after pass, until a pass moves
        nothing or the assignment is balanced."""
        while True:
            modified = False
            reassignment_occurred = False
            reassignable_partitions = self._sort_topic_id_partitions(self._unassigned_partitions)
            for reassignable_partition in reassignable_partitions:
                if reassignment_occurred and self._is_balanced():
                    return
                reassignment_occurred = False

                if len(self._members_per_topic[reassignable_partition.topic_id]) <= 1:
                    raise PartitionAssignorException(
                        f"Expected more than one potential member for topicIdPartition '{reassignable_partition}'")

                current_target_owner = self._partition_owner_in_target_assignment.get(reassignable_partition)
                if current_target_owner is None:
                    raise PartitionAssignorException(
                        f"Expected topicIdPartition '{reassignable_partition}' to be assigned to a member")

                for other_member in self._members_per_topic[reassignable_partition.topic_id]:
                    if (self._assignment_manager.target_assignment_size(current_target_owner)
                            > self._assignment_manager.target_assignment_size(other_member) + 1):
                        self._reassign_partition(reassignable_partition)
                        modified = True
                        reassignment_occurred = True
                        break
            if not modified:
                return

    def _reassign_partition(self, partition: TopicIdPartition, new_member: str | None = None) -> None:
        """Without new_member: to the least loaded member that subscribes to the partition's topic. Then, mindful
        of earlier moves, move it (or the partition that best undoes an earlier move) there."""
        if new_member is None:
            new_owner = None
            for another_member in self._sorted_members_by_assignment_size:
                if partition.topic_id in self._group_spec.member_subscription(another_member).subscribed_topic_ids():
                    new_owner = another_member
                    break
            if new_owner is None:
                raise PartitionAssignorException(f"No suitable new owner was found for the partition{partition}")
            self._reassign_partition(partition, new_owner)
            return

        member = self._partition_owner_in_target_assignment[partition]
        partition_to_be_moved = self._partition_movements.compute_actual_partition_to_be_moved(
            partition, member, new_member)
        self._process_partition_movement(partition_to_be_moved, new_member)

    def _process_partition_movement(self, topic_id_partition: TopicIdPartition, new_member: str) -> None:
        old_member = self._partition_owner_in_target_assignment[topic_id_partition]
        self._partition_movements.move_partition(topic_id_partition, old_member, new_member)
        self._assignment_manager.remove_partition_from_target_assignment(topic_id_partition, old_member)
        self._assignment_manager.add_partition_to_target_assignment(topic_id_partition, new_member)


def _add_partition_to_assignment(member_assignments: dict[str, MemberAssignment], member_id: str, topic_id: uuid.UUID,
                                 partition: int) -> None:
    partitions = member_assignments[member_id].partitions()
    partitions.setdefault(topic_id, set()).add(partition)  # type: ignore[attr-defined]


def _topic_id_partitions(topic_ids: Iterable[uuid.UUID],
                         subscribed_topic_describer: SubscribedTopicDescriber) -> JavaHashSet[TopicIdPartition]:
    """Every partition of the given topics, in a HashSet as Kafka builds it."""
    topic_id_partitions: JavaHashSet[TopicIdPartition] = JavaHashSet()
    for topic_id in topic_ids:
        for partition_id in range(subscribed_topic_describer.num_partitions(topic_id)):
            topic_id_partitions.add(TopicIdPartition(topic_id, partition_id))
    return topic_id_partitions
