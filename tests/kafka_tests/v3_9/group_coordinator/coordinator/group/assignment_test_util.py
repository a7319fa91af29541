"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/AssignmentTestUtil.java (Kafka 3.9).

Kafka's mkAssignment builds a HashMap, and the uniform assignors walk a member's current assignment in that map's
order; the port's mk_assignment returns a read-only dict in the same order (JavaHashSet's), so the assignors see
the topics as Kafka's do. mk_ordered_assignment keeps the order given (LinkedHashMap). Partition sets become
frozensets (Collections.unmodifiableSet); mk_ordered_topic_assignment's keep their order (LinkedHashSet).
Topic ids are uuid.UUID; topic_id_from_string reads the base64 ids Kafka's tests spell out.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Set
from types import MappingProxyType

from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.group_coordinator.coordinator.group.assignor.java_hash_order import java_hash_map_order
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_partition_metadata_value import (
    PartitionMetadata,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.member_subscription_and_assignment_impl import (
    MemberSubscriptionAndAssignmentImpl,
)
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.group_assignment import GroupAssignment

TopicAssignment = tuple[uuid.UUID, Set[int]]


def topic_id_from_string(text: str) -> uuid.UUID:
    """Uuid.fromString as a uuid.UUID: the same 128 bits, so the same Java hash and the same HashSet order."""
    return uuid.UUID(bytes=Uuid.from_string(text).to_bytes())


def mk_topic_assignment(topic_id: uuid.UUID, *partitions: int) -> TopicAssignment:
    return topic_id, set(partitions)


def mk_ordered_topic_assignment(topic_id: uuid.UUID, *partitions: int) -> TopicAssignment:
    return topic_id, dict.fromkeys(partitions).keys()  # a read-only set view that keeps insertion order


def _unmodifiable(partitions: Set[int]) -> Set[int]:
    return frozenset(partitions) if isinstance(partitions, set) else partitions


def mk_assignment(*entries: TopicAssignment) -> Mapping[uuid.UUID, Set[int]]:
    assignment = dict(entries)
    return MappingProxyType({topic_id: _unmodifiable(assignment[topic_id])
                             for topic_id in java_hash_map_order(assignment)})


def mk_ordered_assignment(*entries: TopicAssignment) -> Mapping[uuid.UUID, Set[int]]:
    return MappingProxyType({topic_id: _unmodifiable(partitions) for topic_id, partitions in entries})


def assert_assignment(expected_assignment: Mapping[str, Mapping[uuid.UUID, Set[int]]],
                      computed_group_assignment: GroupAssignment) -> None:
    """Every member's computed assignment is the expected one."""
    assert len(expected_assignment) == len(computed_group_assignment.members())
    for member_id, member_assignment in computed_group_assignment.members().items():
        assert expected_assignment.get(member_id) == member_assignment.partitions()


def inverted_target_assignment(
        members: Mapping[str, MemberSubscriptionAndAssignmentImpl]) -> dict[uuid.UUID, dict[int, str]]:
    """Partition -> member by topic, from the members' current assignments (what GroupSpecImpl looks up)."""
    inverted: dict[uuid.UUID, dict[int, str]] = {}
    for member_id, member in members.items():
        for topic_id, partitions in member.partitions().items():
            partition_map = inverted.setdefault(topic_id, {})
            for partition_id in partitions:
                partition_map[partition_id] = member_id
    return inverted


# from CoordinatorRecordHelpersTest (Kafka's test of the record helpers, not ported here): partition racks for
# tests, two replicas a partition over four racks
def mk_list_of_partition_racks(num_partitions: int) -> list[PartitionMetadata]:
    return [PartitionMetadata(partition=i, racks=[f"rack{i % 4}", f"rack{(i + 1) % 4}"])
            for i in range(num_partitions)]


def mk_map_of_partition_racks(num_partitions: int) -> dict[int, set[str]]:
    return {i: {f"rack{i % 4}", f"rack{(i + 1) % 4}"} for i in range(num_partitions)}
