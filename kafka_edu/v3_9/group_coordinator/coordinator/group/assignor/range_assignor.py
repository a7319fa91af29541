"""Port of group-coordinator/src/main/java/.../group/assignor/RangeAssignor.java (Kafka 3.9).

The range assignor gives each member a contiguous run of each topic it subscribes to. When every member subscribes
to the same topics and the topics have as many partitions as each other, member i gets the same partition numbers
of every topic (co-partitioning, which joins of streams need). Members are ordered by instance id first (static
members keep their ranges across a restart that changes their member id), then by member id.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Set

from kafka_edu.v3_9.group_coordinator.coordinator.group.assignor.range_set import RangeSet
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.member_assignment_impl import MemberAssignmentImpl
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.consumer_group_partition_assignor import (
    ConsumerGroupPartitionAssignor,
)
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.group_assignment import GroupAssignment
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.group_spec import GroupSpec
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.member_assignment import MemberAssignment
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.partition_assignor_exception import (
    PartitionAssignorException,
)
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.subscribed_topic_describer import (
    SubscribedTopicDescriber,
)
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.subscription_type import SubscriptionType

RANGE_ASSIGNOR_NAME = "range"


class _TopicMetadata:
    """One topic while it is being split: its members, the quota each gets and where the next range starts."""

    def __init__(self, topic_id: uuid.UUID, num_partitions: int, num_members: int) -> None:
        self.topic_id = topic_id
        self.num_partitions = num_partitions
        self.num_members = num_members
        self.min_quota = -1
        self.extra_partitions = -1
        self.next_range = 0

    def maybe_compute_quota(self) -> None:
        """Computed on first use: in a heterogeneous group num_members is known only after every member is seen."""
        if self.min_quota != -1:
            return
        self.min_quota = self.num_partitions // self.num_members
        self.extra_partitions = self.num_partitions % self.num_members  # the first members get one more each

    def __repr__(self) -> str:
        return (f"TopicMetadata(topicId={self.topic_id}, numPartitions={self.num_partitions}, "
                f"numMembers={self.num_members}, minQuota={self.min_quota}, "
                f"extraPartitions={self.extra_partitions}, nextRange={self.next_range})")


class RangeAssignor(ConsumerGroupPartitionAssignor):
    RANGE_ASSIGNOR_NAME = RANGE_ASSIGNOR_NAME

    def name(self) -> str:
        return RANGE_ASSIGNOR_NAME

    def _assign_homogeneous_group(self, group_spec: GroupSpec,
                                  subscribed_topic_describer: SubscribedTopicDescriber) -> GroupAssignment:
        member_ids = self._sort_member_ids(group_spec)
        num_members = len(group_spec.member_ids())

        # every member has the same topics: the first one's stand for all
        subs = group_spec.member_subscription(member_ids[0])
        topics: list[_TopicMetadata] = []
        for topic_id in subs.subscribed_topic_ids():
            num_partitions = subscribed_topic_describer.num_partitions(topic_id)
            if num_partitions == -1:
                raise PartitionAssignorException("Member is subscribed to a non-existent topic")
            topics.append(_TopicMetadata(topic_id, num_partitions, num_members))

        assignments: dict[str, MemberAssignment] = {}
        for member_id in member_ids:
            assignment: dict[uuid.UUID, Set[int]] = {}
            for topic_metadata in topics:
                topic_metadata.maybe_compute_quota()
                self._add_partitions_to_assignment(topic_metadata, assignment)
            assignments[member_id] = MemberAssignmentImpl(assignment)
        return GroupAssignment(assignments)

    def _assign_heterogeneous_group(self, group_spec: GroupSpec,
                                    subscribed_topic_describer: SubscribedTopicDescriber) -> GroupAssignment:
        member_ids = self._sort_member_ids(group_spec)

        # first pass: count each topic's members
        topics: dict[uuid.UUID, _TopicMetadata] = {}
        for member_id in member_ids:
            subs = group_spec.member_subscription(member_id)
            for topic_id in subs.subscribed_topic_ids():
                topic_metadata = topics.get(topic_id)
                if topic_metadata is None:
                    num_partitions = subscribed_topic_describer.num_partitions(topic_id)
                    if num_partitions == -1:
                        raise PartitionAssignorException("Member is subscribed to a non-existent topic")
                    topic_metadata = topics[topic_id] = _TopicMetadata(topic_id, num_partitions, 0)
                topic_metadata.num_members += 1

        # second pass: hand out the ranges in member order
        assignments: dict[str, MemberAssignment] = {}
        for member_id in member_ids:
            subs = group_spec.member_subscription(member_id)
            assignment: dict[uuid.UUID, Set[int]] = {}
            for topic_id in subs.subscribed_topic_ids():
                metadata = topics[topic_id]
                metadata.maybe_compute_quota()
                self._add_partitions_to_assignment(metadata, assignment)
            assignments[member_id] = MemberAssignmentImpl(assignment)
        return GroupAssignment(assignments)

    @staticmethod
    def _sort_member_ids(group_spec: GroupSpec) -> list[str]:
        """Static members first, by instance id (their ranges survive a new member id); then the others by member
        id."""

        def compare(member_id1: str, member_id2: str) -> int:
            instance_id1 = group_spec.member_subscription(member_id1).instance_id()
            instance_id2 = group_spec.member_subscription(member_id2).instance_id()
            if instance_id1 is not None and instance_id2 is not None:
                return _compare_strings(instance_id1, instance_id2)
            if instance_id1 is not None:
                return -1
            if instance_id2 is not None:
                return 1
            return _compare_strings(member_id1, member_id2)

        return sorted(group_spec.member_ids(), key=functools.cmp_to_key(compare))

    @staticmethod
    def _add_partitions_to_assignment(topic_metadata: _TopicMetadata,
                                      member_assignment: dict[uuid.UUID, Set[int]]) -> None:
        start = topic_metadata.next_range
        quota = topic_metadata.min_quota
        if topic_metadata.extra_partitions > 0:
            quota += 1
            topic_metadata.extra_partitions -= 1
        end = min(start + quota, topic_metadata.num_partitions)
        topic_metadata.next_range = end
        if start < end:
            member_assignment[topic_metadata.topic_id] = RangeSet(start, end)

    def assign(self, group_spec: GroupSpec, subscribed_topic_describer: SubscribedTopicDescriber) -> GroupAssignment:
        """PartitionAssignorException when a member subscribes to a topic the describer does not know."""
        if not group_spec.member_ids():
            return GroupAssignment({})
        if group_spec.subscription_type() == SubscriptionType.HOMOGENEOUS:
            return self._assign_homogeneous_group(group_spec, subscribed_topic_describer)
        return self._assign_heterogeneous_group(group_spec, subscribed_topic_describer)


def _compare_strings(a: str, b: str) -> int:
    """String.compareTo: by UTF-16 code unit."""
    a16, b16 = a.encode("utf-16-be", "surrogatepass"), b.encode("utf-16-be", "surrogatepass")
    return (a16 > b16) - (a16 < b16)
