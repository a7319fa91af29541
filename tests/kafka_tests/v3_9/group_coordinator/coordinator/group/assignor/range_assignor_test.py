"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/assignor/RangeAssignorTest.java
(Kafka 3.9).

Kafka's members maps are TreeMaps: the port inserts members in sorted order (the range assignor sorts them anyway).
The class's private assertAssignment is AssignmentTestUtil's, which checks the same. `_member` builds a
MemberSubscriptionAndAssignmentImpl without a rack.
"""

from __future__ import annotations

import uuid

import pytest

from kafka_edu.v3_9.group_coordinator.coordinator.group.assignor.range_assignor import RangeAssignor
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.assignment import Assignment
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.group_spec_impl import GroupSpecImpl
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.member_assignment_impl import MemberAssignmentImpl
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
    mk_topic_assignment,
)

KAFKA = kafka_test_class(
    "3.9", "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/assignor/RangeAssignorTest.java",
    cases=[
        "testOneMemberNoTopic",
        "testOneMemberSubscribedToNonExistentTopic",
        "testFirstAssignmentTwoMembersTwoTopicsSameSubscriptions",
        "testFirstAssignmentThreeMembersThreeTopicsDifferentSubscriptions",
        "testFirstAssignmentNumMembersGreaterThanNumPartitions",
        "testStaticMembership",
        "testMixedStaticMembership",
        "testReassignmentNumMembersGreaterThanNumPartitionsWhenOneMemberAdded",
        "testReassignmentWhenOnePartitionAddedForTwoMembersTwoTopics",
        "testReassignmentWhenOneMemberAddedAfterInitialAssignmentWithTwoMembersTwoTopics",
        "testReassignmentWhenOneMemberAddedAndOnePartitionAfterInitialAssignmentWithTwoMembersTwoTopics",
        "testReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithTwoMembersTwoTopics",
        "testReassignmentWhenMultipleSubscriptionsRemovedAfterInitialAssignmentWithThreeMembersTwoTopics",
    ],
)

HOMOGENEOUS = SubscriptionType.HOMOGENEOUS
HETEROGENEOUS = SubscriptionType.HETEROGENEOUS

assignor = RangeAssignor()
topic1_uuid = uuid.uuid4()
topic1_name = "topic1"
topic2_uuid = uuid.uuid4()
topic2_name = "topic2"
topic3_uuid = uuid.uuid4()
topic3_name = "topic3"
member_a = "A"
member_b = "B"
member_c = "C"


def _member(topics: set[uuid.UUID], assignment: Assignment = Assignment.EMPTY,
            instance_id: str | None = None) -> MemberSubscriptionAndAssignmentImpl:
    return MemberSubscriptionAndAssignmentImpl(None, instance_id, topics, assignment)


def test_one_member_no_topic():
    subscribed_topic_metadata = SubscribedTopicDescriberImpl(
        {topic1_uuid: TopicMetadata(topic1_uuid, topic1_name, 3, {})})
    members = {member_a: _member(set())}
    group_spec = GroupSpecImpl(members, HOMOGENEOUS, {})

    group_assignment = assignor.assign(group_spec, subscribed_topic_metadata)

    expected_assignment = {member_a: MemberAssignmentImpl({})}
    assert group_assignment.members() == expected_assignment


def test_one_member_subscribed_to_non_existent_topic():
    subscribed_topic_metadata = SubscribedTopicDescriberImpl(
        {topic1_uuid: TopicMetadata(topic1_uuid, topic1_name, 3, {})})
    members = {member_a: _member({topic2_uuid})}
    group_spec = GroupSpecImpl(members, HOMOGENEOUS, {})

    with pytest.raises(PartitionAssignorException):
        assignor.assign(group_spec, subscribed_topic_metadata)


def test_first_assignment_two_members_two_topics_same_subscriptions():
    topic_metadata = {
        topic1_uuid: TopicMetadata(topic1_uuid, topic1_name, 3, {}),
        topic3_uuid: TopicMetadata(topic3_uuid, topic3_name, 2, {}),
    }
    members = {
        member_a: _member({topic1_uuid, topic3_uuid}),
        member_b: _member({topic1_uuid, topic3_uuid}),
    }
    group_spec = GroupSpecImpl(members, HOMOGENEOUS, inverted_target_assignment(members))

    computed_assignment = assignor.assign(group_spec, SubscribedTopicDescriberImpl(topic_metadata))

    expected_assignment = {
        member_a: mk_assignment(mk_topic_assignment(topic1_uuid, 0, 1), mk_topic_assignment(topic3_uuid, 0)),
        member_b: mk_assignment(mk_topic_assignment(topic1_uuid, 2), mk_topic_assignment(topic3_uuid, 1)),
    }
    assert_assignment(expected_assignment, computed_assignment)


def test_first_assignment_three_members_three_topics_different_subscriptions():
    topic_metadata = {
        topic1_uuid: TopicMetadata(topic1_uuid, topic1_name, 3, {}),
        topic2_uuid: TopicMetadata(topic2_uuid, topic2_name, 3, {}),
        topic3_uuid: TopicMetadata(topic3_uuid, topic3_name, 2, {}),
    }
    members = {
        member_a: _member({topic1_uuid, topic2_uuid}),
        member_b: _member({topic3_uuid}),
        member_c: _member({topic2_uuid, topic3_uuid}),
    }
    group_spec = GroupSpecImpl(members, HETEROGENEOUS, inverted_target_assignment(members))

    computed_assignment = assignor.assign(group_spec, SubscribedTopicDescriberImpl(topic_metadata))

    expected_assignment = {
        member_a: mk_assignment(mk_topic_assignment(topic1_uuid, 0, 1, 2), mk_topic_assignment(topic2_uuid, 0, 1)),
        member_b: mk_assignment(mk_topic_assignment(topic3_uuid, 0)),
        member_c: mk_assignment(mk_topic_assignment(topic2_uuid, 2), mk_topic_assignment(topic3_uuid, 1)),
    }
    assert_assignment(expected_assignment, computed_assignment)


def test_first_assignment_num_members_greater_than_num_partitions():
    topic_metadata = {
        topic1_uuid: TopicMetadata(topic1_uuid, topic1_name, 3, {}),
        topic3_uuid: TopicMetadata(topic3_uuid, topic3_name, 2, {}),
    }
    members = {
        member_a: _member({topic1_uuid, topic3_uuid}),
        member_b: _member({topic1_uuid, topic3_uuid}),
        member_c: _member({topic1_uuid, topic3_uuid}),
    }
    group_spec = GroupSpecImpl(members, HOMOGENEOUS, inverted_target_assignment(members))

    computed_assignment = assignor.assign(group_spec, SubscribedTopicDescriberImpl(topic_metadata))

    # topic 3's two partitions cannot reach all three members
    expected_assignment = {
        member_a: mk_assignment(mk_topic_assignment(topic1_uuid, 0), mk_topic_assignment(topic3_uuid, 0)),
        member_b: mk_assignment(mk_topic_assignment(topic1_uuid, 1), mk_topic_assignment(topic3_uuid, 1)),
        member_c: mk_assignment(mk_topic_assignment(topic1_uuid, 2)),
    }
    assert_assignment(expected_assignment, computed_assignment)


def test_static_membership():
    subscribed_topic_metadata = SubscribedTopicDescriberImpl(
        {topic1_uuid: TopicMetadata(topic1_uuid, topic1_name, 3, {})})
    members = {
        member_a: _member({topic1_uuid}, instance_id="instanceA"),
        member_b: _member({topic1_uuid}, instance_id="instanceB"),
    }
    group_spec = GroupSpecImpl(members, HOMOGENEOUS, inverted_target_assignment(members))

    initial_assignment = assignor.assign(group_spec, subscribed_topic_metadata)

    # static member A comes back under a new member id, same instance id
    del members[member_a]
    members["memberA1"] = _member({topic1_uuid}, instance_id="instanceA")
    members = dict(sorted(members.items()))  # TreeMap order
    group_spec = GroupSpecImpl(members, HOMOGENEOUS, inverted_target_assignment(members))

    reassigned_assignment = assignor.assign(group_spec, subscribed_topic_metadata)

    assert (initial_assignment.members()[member_a].partitions()
            == reassigned_assignment.members()["memberA1"].partitions())
    assert (initial_assignment.members()[member_b].partitions()
            == reassigned_assignment.members()[member_b].partitions())


def test_mixed_static_membership():
    subscribed_topic_metadata = SubscribedTopicDescriberImpl(
        {topic1_uuid: TopicMetadata(topic1_uuid, topic1_name, 5, {})})
    members = {
        member_a: _member({topic1_uuid}, instance_id="instanceA"),
        member_b: _member({topic1_uuid}),  # no instance id
        member_c: _member({topic1_uuid}, instance_id="instanceC"),
    }
    group_spec = GroupSpecImpl(members, HOMOGENEOUS, inverted_target_assignment(members))

    initial_assignment = assignor.assign(group_spec, subscribed_topic_metadata)

    # member A comes back under a new member id, same instance id
    del members[member_a]
    members["memberA1"] = _member({topic1_uuid}, instance_id="instanceA")
    members = dict(sorted(members.items()))  # TreeMap order
    group_spec = GroupSpecImpl(members, HOMOGENEOUS, inverted_target_assignment(members))

    reassigned_assignment = assignor.assign(group_spec, subscribed_topic_metadata)

    assert (initial_assignment.members()[member_a].partitions()
            == reassigned_assignment.members()["memberA1"].partitions())
    assert (initial_assignment.members()[member_b].partitions()
            == reassigned_assignment.members()[member_b].partitions())
    assert (initial_assignment.members()[member_c].partitions()
            == reassigned_assignment.members()[member_c].partitions())


def test_reassignment_num_members_greater_than_num_partitions_when_one_member_added():
    topic_metadata = {
        topic1_uuid: TopicMetadata(topic1_uuid, topic1_name, 2, {}),
        topic2_uuid: TopicMetadata(topic2_uuid, topic2_name, 2, {}),
    }
    members = {
        member_a: _member({topic1_uuid, topic2_uuid}, Assignment(mk_assignment(
            mk_topic_assignment(topic1_uuid, 0), mk_topic_assignment(topic2_uuid, 0)))),
        member_b: _member({topic1_uuid, topic2_uuid}, Assignment(mk_assignment(
            mk_topic_assignment(topic1_uuid, 1), mk_topic_assignment(topic2_uuid, 1)))),
        # a new member, to trigger a reassignment
        member_c: _member({topic1_uuid, topic2_uuid}),
    }
    group_spec = GroupSpecImpl(members, HOMOGENEOUS, inverted_target_assignment(members))

    computed_assignment = assignor.assign(group_spec, SubscribedTopicDescriberImpl(topic_metadata))

    expected_assignment = {
        member_a: mk_assignment(mk_topic_assignment(topic1_uuid, 0), mk_topic_assignment(topic2_uuid, 0)),
        member_b: mk_assignment(mk_topic_assignment(topic1_uuid, 1), mk_topic_assignment(topic2_uuid, 1)),
        member_c: {},  # nothing left for C
    }
    assert_assignment(expected_assignment, computed_assignment)


def test_reassignment_when_one_partition_added_for_two_members_two_topics():
    # each topic had 3 partitions and now has 4
    topic_metadata = {
        topic1_uuid: TopicMetadata(topic1_uuid, topic1_name, 4, {}),
        topic2_uuid: TopicMetadata(topic2_uuid, topic2_name, 4, {}),
    }
    members = {
        member_a: _member({topic1_uuid, topic2_uuid}, Assignment(mk_assignment(
            mk_topic_assignment(topic1_uuid, 0, 1), mk_topic_assignment(topic2_uuid, 0, 1)))),
        member_b: _member({topic1_uuid, topic2_uuid}, Assignment(mk_assignment(
            mk_topic_assignment(topic1_uuid, 2), mk_topic_assignment(topic2_uuid, 2)))),
    }
    group_spec = GroupSpecImpl(members, HOMOGENEOUS, inverted_target_assignment(members))

    computed_assignment = assignor.assign(group_spec, SubscribedTopicDescriberImpl(topic_metadata))

    expected_assignment = {
        member_a: mk_assignment(mk_topic_assignment(topic1_uuid, 0, 1), mk_topic_assignment(topic2_uuid, 0, 1)),
        member_b: mk_assignment(mk_topic_assignment(topic1_uuid, 2, 3), mk_topic_assignment(topic2_uuid, 2, 3)),
    }
    assert_assignment(expected_assignment, computed_assignment)


def test_reassignment_when_one_member_added_after_initial_assignment_with_two_members_two_topics():
    topic_metadata = {
        topic1_uuid: TopicMetadata(topic1_uuid, topic1_name, 3, {}),
        topic2_uuid: TopicMetadata(topic2_uuid, topic2_name, 3, {}),
    }
    members = {
        member_a: _member({topic1_uuid, topic2_uuid}, Assignment(mk_assignment(
            mk_topic_assignment(topic1_uuid, 0, 1), mk_topic_assignment(topic2_uuid, 0, 1)))),
        member_b: _member({topic1_uuid, topic2_uuid}, Assignment(mk_assignment(
            mk_topic_assignment(topic1_uuid, 2), mk_topic_assignment(topic2_uuid, 2)))),
        # a new member, to trigger a reassignment
        member_c: _member({topic1_uuid, topic2_uuid}),
    }
    group_spec = GroupSpecImpl(members, HOMOGENEOUS, inverted_target_assignment(members))

    computed_assignment = assignor.assign(group_spec, SubscribedTopicDescriberImpl(topic_metadata))

    expected_assignment = {
        member_a: mk_assignment(mk_topic_assignment(topic1_uuid, 0), mk_topic_assignment(topic2_uuid, 0)),
        member_b: mk_assignment(mk_topic_assignment(topic1_uuid, 1), mk_topic_assignment(topic2_uuid, 1)),
        member_c: mk_assignment(mk_topic_assignment(topic1_uuid, 2), mk_topic_assignment(topic2_uuid, 2)),
    }
    assert_assignment(expected_assignment, computed_assignment)


def test_reassignment_when_one_member_added_and_one_partition_after_initial_assignment_with_two_members_two_topics():
    # topic 1 had 3 partitions and now has 4
    topic_metadata = {
        topic1_uuid: TopicMetadata(topic1_uuid, topic1_name, 4, {}),
        topic2_uuid: TopicMetadata(topic2_uuid, topic2_name, 3, {}),
    }
    members = {
        member_a: _member({topic1_uuid, topic2_uuid}, Assignment(mk_assignment(
            mk_topic_assignment(topic1_uuid, 0, 1), mk_topic_assignment(topic2_uuid, 0, 1)))),
        member_b: _member({topic1_uuid, topic2_uuid}, Assignment(mk_assignment(
            mk_topic_assignment(topic1_uuid, 2), mk_topic_assignment(topic2_uuid, 2)))),
        # a new member, to trigger a reassignment
        member_c: _member({topic1_uuid}),
    }
    group_spec = GroupSpecImpl(members, HETEROGENEOUS, inverted_target_assignment(members))

    computed_assignment = assignor.assign(group_spec, SubscribedTopicDescriberImpl(topic_metadata))

    expected_assignment = {
        member_a: mk_assignment(mk_topic_assignment(topic1_uuid, 0, 1), mk_topic_assignment(topic2_uuid, 0, 1)),
        member_b: mk_assignment(mk_topic_assignment(topic1_uuid, 2), mk_topic_assignment(topic2_uuid, 2)),
        member_c: mk_assignment(mk_topic_assignment(topic1_uuid, 3)),
    }
    assert_assignment(expected_assignment, computed_assignment)


def test_reassignment_when_one_member_removed_after_initial_assignment_with_two_members_two_topics():
    topic_metadata = {
        topic1_uuid: TopicMetadata(topic1_uuid, topic1_name, 3, {}),
        topic2_uuid: TopicMetadata(topic2_uuid, topic2_name, 3, {}),
    }
    # member A left
    members = {
        member_b: _member({topic1_uuid, topic2_uuid}, Assignment(mk_assignment(
            mk_topic_assignment(topic1_uuid, 2), mk_topic_assignment(topic2_uuid, 2)))),
    }
    group_spec = GroupSpecImpl(members, HOMOGENEOUS, inverted_target_assignment(members))

    computed_assignment = assignor.assign(group_spec, SubscribedTopicDescriberImpl(topic_metadata))

    expected_assignment = {
        member_b: mk_assignment(mk_topic_assignment(topic1_uuid, 0, 1, 2), mk_topic_assignment(topic2_uuid, 0, 1, 2)),
    }
    assert_assignment(expected_assignment, computed_assignment)


def test_reassignment_when_multiple_subscriptions_removed_after_initial_assignment_with_three_members_two_topics():
    topic_metadata = {
        topic1_uuid: TopicMetadata(topic1_uuid, topic1_name, 3, {}),
        topic2_uuid: TopicMetadata(topic2_uuid, topic2_name, 3, {}),
        topic3_uuid: TopicMetadata(topic3_uuid, topic3_name, 2, {}),
    }
    # subscriptions were A: T1, T2; B: T2; C: T2, T3 and are now A: T1; B: T1, T2, T3; C: T2
    members = {
        member_a: _member({topic1_uuid}, Assignment(mk_assignment(
            mk_topic_assignment(topic1_uuid, 0, 1, 2), mk_topic_assignment(topic2_uuid, 0)))),
        member_b: _member({topic1_uuid, topic2_uuid, topic3_uuid}, Assignment(mk_assignment(
            mk_topic_assignment(topic2_uuid, 1)))),
        member_c: _member({topic2_uuid}, Assignment(mk_assignment(
            mk_topic_assignment(topic2_uuid, 2), mk_topic_assignment(topic3_uuid, 0, 1)))),
    }
    group_spec = GroupSpecImpl(members, HETEROGENEOUS, inverted_target_assignment(members))

    computed_assignment = assignor.assign(group_spec, SubscribedTopicDescriberImpl(topic_metadata))

    expected_assignment = {
        member_a: mk_assignment(mk_topic_assignment(topic1_uuid, 0, 1)),
        member_b: mk_assignment(mk_topic_assignment(topic1_uuid, 2), mk_topic_assignment(topic2_uuid, 0, 1),
                                mk_topic_assignment(topic3_uuid, 0, 1)),
        member_c: mk_assignment(mk_topic_assignment(topic2_uuid, 2)),
    }
    assert_assignment(expected_assignment, computed_assignment)
