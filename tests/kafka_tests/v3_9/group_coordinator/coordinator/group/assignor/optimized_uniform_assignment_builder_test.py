"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/assignor/
OptimizedUniformAssignmentBuilderTest.java (Kafka 3.9): it tests UniformHomogeneousAssignmentBuilder through the
UniformAssignor.

Kafka's members maps are TreeMaps: the port inserts members in sorted order, which is the order the builder walks
them in. The expected assignments depend on the order Java's HashSet walks the three fixed topic ids, which the
port reproduces (JavaHashSet); `_member` builds a MemberSubscriptionAndAssignmentImpl without rack or instance id.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping

import pytest

from kafka_edu.v3_9.group_coordinator.coordinator.group.assignor.uniform_assignor import UniformAssignor
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.assignment import Assignment
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.group_spec_impl import GroupSpecImpl
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.member_subscription_and_assignment_impl import (
    MemberSubscriptionAndAssignmentImpl,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.subscribed_topic_describer_impl import (
    SubscribedTopicDescriberImpl,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.topic_metadata import TopicMetadata
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.group_assignment import GroupAssignment
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.partition_assignor_exception import (
    PartitionAssignorException,
)
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.subscription_type import SubscriptionType
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.assignment_test_util import (
    assert_assignment,
    inverted_target_assignment,
    mk_assignment,
    mk_map_of_partition_racks,
    mk_ordered_assignment,
    mk_topic_assignment,
    topic_id_from_string,
)

KAFKA = kafka_test_class(
    "3.9",
    "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/assignor/"
    "OptimizedUniformAssignmentBuilderTest.java",
    cases=[
        "testOneMemberNoTopicSubscription",
        "testOneMemberSubscribedToNonexistentTopic",
        "testFirstAssignmentTwoMembersTwoTopicsNoMemberRacks",
        "testFirstAssignmentNumMembersGreaterThanTotalNumPartitions",
        "testValidityAndBalanceForLargeSampleSet",
        "testReassignmentForTwoMembersTwoTopicsGivenUnbalancedPrevAssignment",
        "testReassignmentWhenPartitionsAreAddedForTwoMembersTwoTopics",
        "testReassignmentWhenOneMemberAddedAfterInitialAssignmentWithTwoMembersTwoTopics",
        "testReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithThreeMembersTwoTopics",
        "testReassignmentWhenOneSubscriptionRemovedAfterInitialAssignmentWithTwoMembersTwoTopics",
    ],
)

HOMOGENEOUS = SubscriptionType.HOMOGENEOUS

assignor = UniformAssignor()
topic1_uuid = topic_id_from_string("T1-A4s3VTwiI5CTbEp6POw")
topic2_uuid = topic_id_from_string("T2-B4s3VTwiI5YHbPp6YUe")
topic3_uuid = topic_id_from_string("T3-CU8fVTLCz5YMkLoDQsa")
topic1_name = "topic1"
topic2_name = "topic2"
topic3_name = "topic3"
member_a = "A"
member_b = "B"
member_c = "C"


def _member(topics: set[uuid.UUID], assignment: Assignment = Assignment.EMPTY) -> MemberSubscriptionAndAssignmentImpl:
    return MemberSubscriptionAndAssignmentImpl(None, None, topics, assignment)


def _topic(topic_id: uuid.UUID, name: str, num_partitions: int) -> TopicMetadata:
    return TopicMetadata(topic_id, name, num_partitions, mk_map_of_partition_racks(num_partitions))


def test_one_member_no_topic_subscription():
    subscribed_topic_metadata = SubscribedTopicDescriberImpl({topic1_uuid: _topic(topic1_uuid, topic1_name, 3)})
    members = {member_a: _member(set())}
    group_spec = GroupSpecImpl(members, HOMOGENEOUS, {})

    group_assignment = assignor.assign(group_spec, subscribed_topic_metadata)

    assert group_assignment.members() == {}


def test_one_member_subscribed_to_nonexistent_topic():
    subscribed_topic_metadata = SubscribedTopicDescriberImpl({topic1_uuid: _topic(topic1_uuid, topic1_name, 3)})
    members = {member_a: _member({topic2_uuid})}
    group_spec = GroupSpecImpl(members, HOMOGENEOUS, {})

    with pytest.raises(PartitionAssignorException):
        assignor.assign(group_spec, subscribed_topic_metadata)


def test_first_assignment_two_members_two_topics_no_member_racks():
    topic_metadata = {
        topic1_uuid: _topic(topic1_uuid, topic1_name, 3),
        topic3_uuid: _topic(topic3_uuid, topic3_name, 2),
    }
    members = {
        member_a: _member({topic1_uuid, topic3_uuid}),
        member_b: _member({topic1_uuid, topic3_uuid}),
    }
    expected_assignment = {
        member_a: mk_assignment(mk_topic_assignment(topic1_uuid, 0), mk_topic_assignment(topic3_uuid, 0, 1)),
        member_b: mk_assignment(mk_topic_assignment(topic1_uuid, 1, 2)),
    }
    group_spec = GroupSpecImpl(members, HOMOGENEOUS, {})

    computed_assignment = assignor.assign(group_spec, SubscribedTopicDescriberImpl(topic_metadata))

    assert_assignment(expected_assignment, computed_assignment)
    _check_validity_and_balance(members, computed_assignment)


def test_first_assignment_num_members_greater_than_total_num_partitions():
    topic_metadata = {topic3_uuid: _topic(topic3_uuid, topic3_name, 2)}
    members = {
        member_a: _member({topic3_uuid}),
        member_b: _member({topic3_uuid}),
        member_c: _member({topic3_uuid}),
    }
    # two partitions for three members: one gets none
    expected_assignment = {
        member_a: mk_assignment(mk_topic_assignment(topic3_uuid, 0)),
        member_b: mk_assignment(mk_topic_assignment(topic3_uuid, 1)),
        member_c: {},
    }
    group_spec = GroupSpecImpl(members, HOMOGENEOUS, {})

    computed_assignment = assignor.assign(group_spec, SubscribedTopicDescriberImpl(topic_metadata))

    assert_assignment(expected_assignment, computed_assignment)
    _check_validity_and_balance(members, computed_assignment)


def test_validity_and_balance_for_large_sample_set():
    topic_metadata: dict[uuid.UUID, TopicMetadata] = {}
    for i in range(1, 100):
        topic_id = uuid.uuid4()
        topic_metadata[topic_id] = _topic(topic_id, f"topic-{i}", 3)

    members = dict(sorted((f"member{i}", _member(set(topic_metadata.keys()))) for i in range(1, 50)))
    group_spec = GroupSpecImpl(members, HOMOGENEOUS, {})

    computed_assignment = assignor.assign(group_spec, SubscribedTopicDescriberImpl(topic_metadata))

    _check_validity_and_balance(members, computed_assignment)


def test_reassignment_for_two_members_two_topics_given_unbalanced_prev_assignment():
    topic_metadata = {
        topic1_uuid: _topic(topic1_uuid, topic1_name, 3),
        topic2_uuid: _topic(topic2_uuid, topic2_name, 3),
    }
    members = {
        member_a: _member({topic1_uuid, topic2_uuid}, Assignment(mk_ordered_assignment(
            mk_topic_assignment(topic1_uuid, 0, 1), mk_topic_assignment(topic2_uuid, 0, 1)))),
        member_b: _member({topic1_uuid, topic2_uuid}, Assignment(mk_ordered_assignment(
            mk_topic_assignment(topic1_uuid, 2), mk_topic_assignment(topic2_uuid, 2)))),
    }
    expected_assignment = {
        member_a: mk_assignment(mk_topic_assignment(topic1_uuid, 0, 1), mk_topic_assignment(topic2_uuid, 0)),
        member_b: mk_assignment(mk_topic_assignment(topic1_uuid, 2), mk_topic_assignment(topic2_uuid, 1, 2)),
    }
    group_spec = GroupSpecImpl(members, HOMOGENEOUS, inverted_target_assignment(members))

    computed_assignment = assignor.assign(group_spec, SubscribedTopicDescriberImpl(topic_metadata))

    assert_assignment(expected_assignment, computed_assignment)
    _check_validity_and_balance(members, computed_assignment)


def test_reassignment_when_partitions_are_added_for_two_members_two_topics():
    # topics 1 and 2 had 3 partitions each
    topic_metadata = {
        topic1_uuid: _topic(topic1_uuid, topic1_name, 6),
        topic2_uuid: _topic(topic2_uuid, topic2_name, 5),
    }
    members = {
        member_a: _member({topic1_uuid, topic2_uuid}, Assignment(mk_ordered_assignment(
            mk_topic_assignment(topic1_uuid, 0, 2), mk_topic_assignment(topic2_uuid, 0)))),
        member_b: _member({topic1_uuid, topic2_uuid}, Assignment(mk_ordered_assignment(
            mk_topic_assignment(topic1_uuid, 1), mk_topic_assignment(topic2_uuid, 1, 2)))),
    }
    expected_assignment = {
        member_a: mk_assignment(mk_topic_assignment(topic1_uuid, 0, 2, 3), mk_topic_assignment(topic2_uuid, 0, 3, 4)),
        member_b: mk_assignment(mk_topic_assignment(topic1_uuid, 1, 4, 5), mk_topic_assignment(topic2_uuid, 1, 2)),
    }
    group_spec = GroupSpecImpl(members, HOMOGENEOUS, inverted_target_assignment(members))

    computed_assignment = assignor.assign(group_spec, SubscribedTopicDescriberImpl(topic_metadata))

    assert_assignment(expected_assignment, computed_assignment)
    _check_validity_and_balance(members, computed_assignment)


def test_reassignment_when_one_member_added_after_initial_assignment_with_two_members_two_topics():
    topic_metadata = {
        topic1_uuid: _topic(topic1_uuid, topic1_name, 3),
        topic2_uuid: _topic(topic2_uuid, topic2_name, 3),
    }
    members = {
        member_a: _member({topic1_uuid, topic2_uuid}, Assignment(mk_ordered_assignment(
            mk_topic_assignment(topic1_uuid, 0, 2), mk_topic_assignment(topic2_uuid, 0)))),
        member_b: _member({topic1_uuid, topic2_uuid}, Assignment(mk_ordered_assignment(
            mk_topic_assignment(topic1_uuid, 1), mk_topic_assignment(topic2_uuid, 1, 2)))),
        # a new member, to trigger a reassignment
        member_c: _member({topic1_uuid, topic2_uuid}),
    }
    expected_assignment = {
        member_a: mk_assignment(mk_topic_assignment(topic1_uuid, 0, 2)),
        member_b: mk_assignment(mk_topic_assignment(topic1_uuid, 1), mk_topic_assignment(topic2_uuid, 1)),
        member_c: mk_assignment(mk_topic_assignment(topic2_uuid, 0, 2)),
    }
    group_spec = GroupSpecImpl(members, HOMOGENEOUS, inverted_target_assignment(members))

    computed_assignment = assignor.assign(group_spec, SubscribedTopicDescriberImpl(topic_metadata))

    assert_assignment(expected_assignment, computed_assignment)
    _check_validity_and_balance(members, computed_assignment)


def test_reassignment_when_one_member_removed_after_initial_assignment_with_three_members_two_topics():
    topic_metadata = {
        topic1_uuid: _topic(topic1_uuid, topic1_name, 3),
        topic2_uuid: _topic(topic2_uuid, topic2_name, 3),
    }
    members = {
        member_a: _member({topic1_uuid, topic2_uuid}, Assignment(mk_assignment(
            mk_topic_assignment(topic1_uuid, 0), mk_topic_assignment(topic2_uuid, 0)))),
        member_b: _member({topic1_uuid, topic2_uuid}, Assignment(mk_assignment(
            mk_topic_assignment(topic1_uuid, 1), mk_topic_assignment(topic2_uuid, 1)))),
        # member C left
    }
    expected_assignment = {
        member_a: mk_assignment(mk_topic_assignment(topic1_uuid, 0), mk_topic_assignment(topic2_uuid, 0, 2)),
        member_b: mk_assignment(mk_topic_assignment(topic1_uuid, 1, 2), mk_topic_assignment(topic2_uuid, 1)),
    }
    group_spec = GroupSpecImpl(members, HOMOGENEOUS, inverted_target_assignment(members))

    computed_assignment = assignor.assign(group_spec, SubscribedTopicDescriberImpl(topic_metadata))

    assert_assignment(expected_assignment, computed_assignment)
    _check_validity_and_balance(members, computed_assignment)


def test_reassignment_when_one_subscription_removed_after_initial_assignment_with_two_members_two_topics():
    topic_metadata = {
        topic1_uuid: _topic(topic1_uuid, topic1_name, 2),
        topic2_uuid: _topic(topic2_uuid, topic2_name, 2),
    }
    # both subscribed to T1 and T2 before
    members = {
        member_a: _member({topic2_uuid}, Assignment(mk_assignment(
            mk_topic_assignment(topic1_uuid, 0), mk_topic_assignment(topic2_uuid, 0)))),
        member_b: _member({topic2_uuid}, Assignment(mk_assignment(
            mk_topic_assignment(topic1_uuid, 1), mk_topic_assignment(topic2_uuid, 1)))),
    }
    expected_assignment = {
        member_a: mk_assignment(mk_topic_assignment(topic2_uuid, 0)),
        member_b: mk_assignment(mk_topic_assignment(topic2_uuid, 1)),
    }
    group_spec = GroupSpecImpl(members, HOMOGENEOUS, inverted_target_assignment(members))

    computed_assignment = assignor.assign(group_spec, SubscribedTopicDescriberImpl(topic_metadata))

    assert_assignment(expected_assignment, computed_assignment)
    _check_validity_and_balance(members, computed_assignment)


def _check_validity_and_balance(member_subscription_spec: Mapping[str, MemberSubscriptionAndAssignmentImpl],
                                computed_group_assignment: GroupAssignment) -> None:
    """Valid: a member only gets partitions of topics it subscribes to, no partition goes to two members.
    Balanced: any two members' partition counts differ by one at most."""
    members_list = list(computed_group_assignment.members().keys())
    num_members = len(members_list)
    total_assignment_sizes_of_all_members = [
        sum(len(partitions) for partitions in computed_group_assignment.members()[member].partitions().values())
        for member in members_list]

    for i in range(num_members):
        member_id = members_list[i]
        computed_assignment_for_member = computed_group_assignment.members()[member_id].partitions()
        for topic_id in computed_assignment_for_member:
            assert topic_id in member_subscription_spec[member_id].subscribed_topic_ids(), (
                f"Error: Partitions for topic {topic_id} are assigned to member {member_id} but it is not part of "
                "the members subscription ")

        for j in range(i + 1, num_members):
            other_member_id = members_list[j]
            computed_assignment_for_other_member = computed_group_assignment.members()[other_member_id].partitions()
            for topic_id in computed_assignment_for_member:
                intersection: set[int] = set()
                if topic_id in computed_assignment_for_other_member:
                    intersection = (set(computed_assignment_for_member[topic_id])
                                    & set(computed_assignment_for_other_member[topic_id]))
                assert not intersection, (
                    f"Error : Member 1 {member_id} and Member 2 {other_member_id}have common partitions assigned to "
                    f"them {computed_assignment_for_other_member.get(topic_id)}")

            size1 = total_assignment_sizes_of_all_members[i]
            size2 = total_assignment_sizes_of_all_members[j]
            assert abs(size1 - size2) <= 1, (
                "Size of one assignment is greater than the other assignment by more than one partition "
                f"{size1} {size2}abs = {abs(size1 - size2)}")
