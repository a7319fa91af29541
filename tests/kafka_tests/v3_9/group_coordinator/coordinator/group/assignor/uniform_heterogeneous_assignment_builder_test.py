"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/assignor/
UniformHeterogeneousAssignmentBuilderTest.java (Kafka 3.9).

Kafka's members maps are TreeMaps: the port inserts members in sorted order. Partitions that tie under the
builder's sort keep Java's HashSet order, which the port reproduces (JavaHashSet), so the exact expected
assignments hold. `_member` builds a MemberSubscriptionAndAssignmentImpl without rack or instance id.
"""

from __future__ import annotations

import uuid

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
    mk_topic_assignment,
    topic_id_from_string,
)

KAFKA = kafka_test_class(
    "3.9",
    "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/assignor/"
    "UniformHeterogeneousAssignmentBuilderTest.java",
    cases=[
        "testTwoMembersNoTopicSubscription",
        "testTwoMembersSubscribedToNonexistentTopics",
        "testFirstAssignmentTwoMembersTwoTopics",
        "testFirstAssignmentNumMembersGreaterThanTotalNumPartitions",
        "testReassignmentForTwoMembersThreeTopicsGivenUnbalancedPrevAssignment",
        "testReassignmentWhenPartitionsAreAddedForTwoMembers",
        "testReassignmentWhenOneMemberAddedAndPartitionsAddedTwoMembersTwoTopics",
        "testReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithThreeMembersThreeTopics",
        "testReassignmentWhenOneSubscriptionRemovedAfterInitialAssignmentWithTwoMembersTwoTopics",
        "testFirstAssignmentWithTwoMembersIncludingOneWithoutSubscriptions",
    ],
)

HETEROGENEOUS = SubscriptionType.HETEROGENEOUS

assignor = UniformAssignor()
topic1_uuid = topic_id_from_string("T1-A4s3VTwiI5CTbEp6POw")
topic2_uuid = topic_id_from_string("T2-B4s3VTwiI5YHbPp6YUe")
topic3_uuid = topic_id_from_string("T3-CU8fVTLCz5YMkLoDQsa")
topic4_uuid = topic_id_from_string("T4-Tw9fVTLCz5HbPp6YQsa")
topic1_name = "topic1"
topic2_name = "topic2"
topic3_name = "topic3"
topic4_name = "topic4"
member_a = "A"
member_b = "B"
member_c = "C"


def _member(topics: set[uuid.UUID], assignment: Assignment = Assignment.EMPTY) -> MemberSubscriptionAndAssignmentImpl:
    return MemberSubscriptionAndAssignmentImpl(None, None, topics, assignment)


def _topic(topic_id: uuid.UUID, name: str, num_partitions: int,
           num_racked_partitions: int | None = None) -> TopicMetadata:
    racked = num_partitions if num_racked_partitions is None else num_racked_partitions
    return TopicMetadata(topic_id, name, num_partitions, mk_map_of_partition_racks(racked))


def test_two_members_no_topic_subscription():
    subscribed_topic_metadata = SubscribedTopicDescriberImpl({topic1_uuid: _topic(topic1_uuid, topic1_name, 3)})
    members = {member_a: _member(set()), member_b: _member(set())}
    group_spec = GroupSpecImpl(members, HETEROGENEOUS, {})

    group_assignment = assignor.assign(group_spec, subscribed_topic_metadata)

    assert group_assignment.members() == {}


def test_two_members_subscribed_to_nonexistent_topics():
    subscribed_topic_metadata = SubscribedTopicDescriberImpl({topic1_uuid: _topic(topic1_uuid, topic1_name, 3)})
    members = {member_a: _member({topic3_uuid}), member_b: _member({topic2_uuid})}
    group_spec = GroupSpecImpl(members, HETEROGENEOUS, {})

    with pytest.raises(PartitionAssignorException):
        assignor.assign(group_spec, subscribed_topic_metadata)


def test_first_assignment_two_members_two_topics():
    topic_metadata = {
        topic1_uuid: _topic(topic1_uuid, topic1_name, 3),
        topic3_uuid: _topic(topic3_uuid, topic3_name, 6),
    }
    members = {
        member_a: _member({topic1_uuid, topic3_uuid}),
        member_b: _member({topic3_uuid}),
    }
    group_spec = GroupSpecImpl(members, HETEROGENEOUS, {})

    computed_assignment = assignor.assign(group_spec, SubscribedTopicDescriberImpl(topic_metadata))

    expected_assignment = {
        member_a: mk_assignment(mk_topic_assignment(topic1_uuid, 0, 1, 2), mk_topic_assignment(topic3_uuid, 3, 5)),
        member_b: mk_assignment(mk_topic_assignment(topic3_uuid, 0, 1, 2, 4)),
    }
    assert_assignment(expected_assignment, computed_assignment)


def test_first_assignment_num_members_greater_than_total_num_partitions():
    topic_metadata = {
        topic3_uuid: _topic(topic3_uuid, topic3_name, 1),
        topic1_uuid: _topic(topic1_uuid, topic1_name, 2),
    }
    members = {
        member_a: _member({topic3_uuid}),
        member_b: _member({topic3_uuid}),
        member_c: _member({topic1_uuid}),
    }
    group_spec = GroupSpecImpl(members, HETEROGENEOUS, {})

    computed_assignment = assignor.assign(group_spec, SubscribedTopicDescriberImpl(topic_metadata))

    # topic 3's one partition cannot reach both its members
    expected_assignment = {
        member_a: mk_assignment(mk_topic_assignment(topic3_uuid, 0)),
        member_b: {},
        member_c: mk_assignment(mk_topic_assignment(topic1_uuid, 0, 1)),
    }
    assert_assignment(expected_assignment, computed_assignment)


def test_reassignment_for_two_members_three_topics_given_unbalanced_prev_assignment():
    topic_metadata = {
        topic1_uuid: _topic(topic1_uuid, topic1_name, 6),
        topic2_uuid: _topic(topic2_uuid, topic2_name, 4),
        topic3_uuid: _topic(topic3_uuid, topic3_name, 4),
    }
    members = {
        member_a: _member({topic1_uuid}, Assignment(mk_assignment(mk_topic_assignment(topic1_uuid, 0, 1, 2)))),
        member_b: _member({topic1_uuid, topic2_uuid}, Assignment(mk_assignment(
            mk_topic_assignment(topic1_uuid, 3), mk_topic_assignment(topic2_uuid, 0)))),
        member_c: _member({topic1_uuid, topic2_uuid, topic3_uuid}, Assignment(mk_assignment(
            mk_topic_assignment(topic1_uuid, 4, 5), mk_topic_assignment(topic2_uuid, 1, 2, 3),
            mk_topic_assignment(topic3_uuid, 0, 1, 2, 3)))),
    }
    group_spec = GroupSpecImpl(members, HETEROGENEOUS, inverted_target_assignment(members))

    computed_assignment = assignor.assign(group_spec, SubscribedTopicDescriberImpl(topic_metadata))

    expected_assignment = {
        member_a: mk_assignment(mk_topic_assignment(topic1_uuid, 0, 1, 2, 3, 4)),
        member_b: mk_assignment(mk_topic_assignment(topic2_uuid, 0, 1, 2, 3)),
        member_c: mk_assignment(mk_topic_assignment(topic1_uuid, 5), mk_topic_assignment(topic3_uuid, 0, 1, 2, 3)),
    }
    assert_assignment(expected_assignment, computed_assignment)


def test_reassignment_when_partitions_are_added_for_two_members():
    # the topics had 4, 3, 2 and 3 partitions
    topic_metadata = {
        topic1_uuid: _topic(topic1_uuid, topic1_name, 6),
        topic2_uuid: _topic(topic2_uuid, topic2_name, 5),
        topic3_uuid: _topic(topic3_uuid, topic3_name, 3),
        topic4_uuid: _topic(topic4_uuid, topic4_name, 3),
    }
    members = {
        member_a: _member({topic1_uuid, topic3_uuid}, Assignment(mk_assignment(
            mk_topic_assignment(topic1_uuid, 0, 1, 2, 3), mk_topic_assignment(topic3_uuid, 0, 1)))),
        member_b: _member({topic1_uuid, topic2_uuid, topic3_uuid, topic4_uuid}, Assignment(mk_assignment(
            mk_topic_assignment(topic2_uuid, 0, 1, 2), mk_topic_assignment(topic4_uuid, 0, 1, 2)))),
    }
    group_spec = GroupSpecImpl(members, HETEROGENEOUS, inverted_target_assignment(members))

    computed_assignment = assignor.assign(group_spec, SubscribedTopicDescriberImpl(topic_metadata))

    expected_assignment = {
        member_a: mk_assignment(mk_topic_assignment(topic1_uuid, 0, 1, 2, 3, 4, 5),
                                mk_topic_assignment(topic3_uuid, 0, 1, 2)),
        member_b: mk_assignment(mk_topic_assignment(topic2_uuid, 0, 1, 2, 3, 4),
                                mk_topic_assignment(topic4_uuid, 0, 1, 2)),
    }
    assert_assignment(expected_assignment, computed_assignment)


def test_reassignment_when_one_member_added_and_partitions_added_two_members_two_topics():
    # topics 1 and 2 had 3 partitions each
    topic_metadata = {
        topic1_uuid: _topic(topic1_uuid, topic1_name, 6),
        topic2_uuid: _topic(topic2_uuid, topic2_name, 7),
    }
    members = {
        member_a: _member({topic1_uuid}, Assignment(mk_assignment(
            mk_topic_assignment(topic1_uuid, 0, 2), mk_topic_assignment(topic2_uuid, 0)))),
        member_b: _member({topic1_uuid, topic2_uuid}, Assignment(mk_assignment(
            mk_topic_assignment(topic1_uuid, 1), mk_topic_assignment(topic2_uuid, 1, 2)))),
        # a new member, to trigger a reassignment
        member_c: _member({topic1_uuid, topic2_uuid}),
    }
    group_spec = GroupSpecImpl(members, HETEROGENEOUS, inverted_target_assignment(members))

    computed_assignment = assignor.assign(group_spec, SubscribedTopicDescriberImpl(topic_metadata))

    expected_assignment = {
        member_a: mk_assignment(mk_topic_assignment(topic1_uuid, 0, 2, 3, 4, 5)),
        member_b: mk_assignment(mk_topic_assignment(topic1_uuid, 1), mk_topic_assignment(topic2_uuid, 1, 2, 5)),
        member_c: mk_assignment(mk_topic_assignment(topic2_uuid, 0, 3, 4, 6)),
    }
    assert_assignment(expected_assignment, computed_assignment)


def test_reassignment_when_one_member_removed_after_initial_assignment_with_three_members_three_topics():
    topic_metadata = {
        topic1_uuid: _topic(topic1_uuid, topic1_name, 3),
        topic2_uuid: _topic(topic2_uuid, topic2_name, 8, num_racked_partitions=4),  # as Kafka's: racks for 4 only
        topic3_uuid: _topic(topic3_uuid, topic3_name, 3),
    }
    members = {
        member_a: _member({topic1_uuid, topic3_uuid}, Assignment(mk_assignment(
            mk_topic_assignment(topic1_uuid, 0, 1, 2), mk_topic_assignment(topic3_uuid, 0, 1)))),
        member_b: _member({topic2_uuid}, Assignment(mk_assignment(mk_topic_assignment(topic2_uuid, 3, 4, 5, 6)))),
        # member C left
    }
    group_spec = GroupSpecImpl(members, HETEROGENEOUS, inverted_target_assignment(members))

    computed_assignment = assignor.assign(group_spec, SubscribedTopicDescriberImpl(topic_metadata))

    expected_assignment = {
        member_a: mk_assignment(mk_topic_assignment(topic1_uuid, 0, 1, 2), mk_topic_assignment(topic3_uuid, 0, 1, 2)),
        member_b: mk_assignment(mk_topic_assignment(topic2_uuid, 0, 1, 2, 3, 4, 5, 6, 7)),
    }
    assert_assignment(expected_assignment, computed_assignment)


def test_reassignment_when_one_subscription_removed_after_initial_assignment_with_two_members_two_topics():
    topic_metadata = {
        topic1_uuid: _topic(topic1_uuid, topic1_name, 3),
        topic2_uuid: _topic(topic2_uuid, topic2_name, 5),
    }
    # both subscribed to T1 and T2 before
    members = {
        member_a: _member({topic1_uuid}, Assignment(mk_assignment(
            mk_topic_assignment(topic1_uuid, 0, 2), mk_topic_assignment(topic2_uuid, 1, 3)))),
        member_b: _member({topic1_uuid, topic2_uuid}, Assignment(mk_assignment(
            mk_topic_assignment(topic1_uuid, 1), mk_topic_assignment(topic2_uuid, 0, 2, 4)))),
    }
    group_spec = GroupSpecImpl(members, HETEROGENEOUS, inverted_target_assignment(members))

    computed_assignment = assignor.assign(group_spec, SubscribedTopicDescriberImpl(topic_metadata))

    expected_assignment = {
        member_a: mk_assignment(mk_topic_assignment(topic1_uuid, 0, 1, 2)),
        member_b: mk_assignment(mk_topic_assignment(topic2_uuid, 0, 1, 2, 3, 4)),
    }
    assert_assignment(expected_assignment, computed_assignment)


def test_first_assignment_with_two_members_including_one_without_subscriptions():
    topic_metadata = {topic1_uuid: _topic(topic1_uuid, topic1_name, 3)}
    members = {
        member_a: _member({topic1_uuid}),
        member_b: _member(set()),
    }
    group_spec = GroupSpecImpl(members, HETEROGENEOUS, {})

    computed_assignment = assignor.assign(group_spec, SubscribedTopicDescriberImpl(topic_metadata))

    expected_assignment = {
        member_a: mk_assignment(mk_topic_assignment(topic1_uuid, 0, 1, 2)),
        member_b: {},
    }
    assert_assignment(expected_assignment, computed_assignment)
