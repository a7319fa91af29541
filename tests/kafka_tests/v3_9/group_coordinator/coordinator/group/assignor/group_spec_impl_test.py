"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/assignor/GroupSpecImplTest.java
(Kafka 3.9). The @BeforeEach is the `spec` fixture."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.assignment import Assignment
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.group_spec_impl import GroupSpecImpl
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.member_subscription_and_assignment_impl import (
    MemberSubscriptionAndAssignmentImpl,
)
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.subscription_type import SubscriptionType
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/assignor/GroupSpecImplTest.java",
    cases=[
        "testMemberIds",
        "testSubscriptionType",
        "testIsPartitionAssigned",
        "testMemberSubscription",
        "testMemberAssignment",
    ],
)

TEST_MEMBER = "test-member"


@dataclass
class _Spec:
    members: dict[str, MemberSubscriptionAndAssignmentImpl]
    subscription_type: SubscriptionType
    inverted_target_assignment: dict[uuid.UUID, dict[int, str]]
    group_spec: GroupSpecImpl
    topic_id: uuid.UUID


@pytest.fixture
def spec() -> _Spec:
    members: dict[str, MemberSubscriptionAndAssignmentImpl] = {}
    subscription_type = SubscriptionType.HOMOGENEOUS
    inverted_target_assignment: dict[uuid.UUID, dict[int, str]] = {}
    topic_id = uuid.uuid4()
    members[TEST_MEMBER] = MemberSubscriptionAndAssignmentImpl(None, None, {topic_id}, Assignment.EMPTY)
    group_spec = GroupSpecImpl(members, subscription_type, inverted_target_assignment)
    return _Spec(members, subscription_type, inverted_target_assignment, group_spec, topic_id)


def test_member_ids(spec: _Spec):
    assert spec.group_spec.member_ids() == spec.members.keys()


def test_subscription_type(spec: _Spec):
    assert spec.group_spec.subscription_type() == spec.subscription_type


def test_is_partition_assigned(spec: _Spec):
    spec.inverted_target_assignment[spec.topic_id] = {1: "test-member"}

    assert spec.group_spec.is_partition_assigned(spec.topic_id, 1)
    assert not spec.group_spec.is_partition_assigned(spec.topic_id, 2)
    assert not spec.group_spec.is_partition_assigned(uuid.uuid4(), 2)


def test_member_subscription(spec: _Spec):
    assert spec.group_spec.member_subscription(TEST_MEMBER) == spec.members[TEST_MEMBER]
    with pytest.raises(IllegalArgumentException):
        spec.group_spec.member_subscription("unknown-member")


def test_member_assignment(spec: _Spec):
    topic_partitions = {spec.topic_id: {0, 1}}
    spec.members[TEST_MEMBER] = MemberSubscriptionAndAssignmentImpl(
        None, None, {spec.topic_id}, Assignment(topic_partitions))

    assert spec.group_spec.member_assignment(TEST_MEMBER).partitions() == topic_partitions
    assert spec.group_spec.member_assignment("unknown-member").partitions() == {}
