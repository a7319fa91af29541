"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/modern/consumer/
CurrentAssignmentBuilderTest.java (Kafka 3.9).

AssignmentTestUtil's helpers come from its port, assignment_test_util; topic ids are uuid.UUID
(Uuid.randomUuid() -> uuid.uuid4()). Owned partitions are kio's ConsumerGroupHeartbeat request
TopicPartitions.
"""

from __future__ import annotations

import uuid

import pytest
from kio.schema.consumer_group_heartbeat.v0.request import TopicPartitions

from kafka_edu.v3_9.clients.common.errors.fenced_member_epoch_exception import FencedMemberEpochException
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.assignment import Assignment
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.consumer.consumer_group_member import (
    ConsumerGroupMember,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.consumer.current_assignment_builder import (
    CurrentAssignmentBuilder,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.member_state import MemberState
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.assignment_test_util import (
    mk_assignment,
    mk_topic_assignment,
)

KAFKA = kafka_test_class(
    "3.9",
    "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/modern/consumer/"
    "CurrentAssignmentBuilderTest.java",
    cases=[
        "testStableToStable",
        "testStableToStableWithNewPartitions",
        "testStableToUnrevokedPartitions",
        "testStableToUnreleasedPartitions",
        "testStableToUnreleasedPartitionsWithOwnedPartitionsNotHavingRevokedPartitions",
        "testUnrevokedPartitionsToStable",
        "testRemainsInUnrevokedPartitions",
        "testUnrevokedPartitionsToUnrevokedPartitions",
        "testUnrevokedPartitionsToUnreleasedPartitions",
        "testUnreleasedPartitionsToStable",
        "testUnreleasedPartitionsToStableWithNewPartitions",
        "testUnreleasedPartitionsToUnreleasedPartitions",
        "testUnreleasedPartitionsToUnrevokedPartitions",
        "testUnknownState",
    ],
)


def owned(topic_id: uuid.UUID, *partitions: int) -> TopicPartitions:
    """A ConsumerGroupHeartbeatRequestData.TopicPartitions."""
    return TopicPartitions(topic_id=topic_id, partitions=partitions)


def test_stable_to_stable() -> None:
    topic_id1 = uuid.uuid4()
    topic_id2 = uuid.uuid4()

    member = (ConsumerGroupMember.Builder("member")
              .set_state(MemberState.STABLE)
              .set_member_epoch(10)
              .set_previous_member_epoch(10)
              .set_assigned_partitions(mk_assignment(
                  mk_topic_assignment(topic_id1, 1, 2, 3),
                  mk_topic_assignment(topic_id2, 4, 5, 6)))
              .build())

    updated_member = (CurrentAssignmentBuilder(member)
                      .with_target_assignment(11, Assignment(mk_assignment(
                          mk_topic_assignment(topic_id1, 1, 2, 3),
                          mk_topic_assignment(topic_id2, 4, 5, 6))))
                      .with_current_partition_epoch(lambda topic_id, partition_id: 10)
                      .build())

    assert updated_member == (ConsumerGroupMember.Builder("member")
                              .set_state(MemberState.STABLE)
                              .set_member_epoch(11)
                              .set_previous_member_epoch(10)
                              .set_assigned_partitions(mk_assignment(
                                  mk_topic_assignment(topic_id1, 1, 2, 3),
                                  mk_topic_assignment(topic_id2, 4, 5, 6)))
                              .build())


def test_stable_to_stable_with_new_partitions() -> None:
    topic_id1 = uuid.uuid4()
    topic_id2 = uuid.uuid4()

    member = (ConsumerGroupMember.Builder("member")
              .set_state(MemberState.STABLE)
              .set_member_epoch(10)
              .set_previous_member_epoch(10)
              .set_assigned_partitions(mk_assignment(
                  mk_topic_assignment(topic_id1, 1, 2, 3),
                  mk_topic_assignment(topic_id2, 4, 5, 6)))
              .build())

    updated_member = (CurrentAssignmentBuilder(member)
                      .with_target_assignment(11, Assignment(mk_assignment(
                          mk_topic_assignment(topic_id1, 1, 2, 3, 4),
                          mk_topic_assignment(topic_id2, 4, 5, 6, 7))))
                      .with_current_partition_epoch(lambda topic_id, partition_id: -1)
                      .build())

    assert updated_member == (ConsumerGroupMember.Builder("member")
                              .set_state(MemberState.STABLE)
                              .set_member_epoch(11)
                              .set_previous_member_epoch(10)
                              .set_assigned_partitions(mk_assignment(
                                  mk_topic_assignment(topic_id1, 1, 2, 3, 4),
                                  mk_topic_assignment(topic_id2, 4, 5, 6, 7)))
                              .build())


def test_stable_to_unrevoked_partitions() -> None:
    topic_id1 = uuid.uuid4()
    topic_id2 = uuid.uuid4()

    member = (ConsumerGroupMember.Builder("member")
              .set_state(MemberState.STABLE)
              .set_member_epoch(10)
              .set_previous_member_epoch(10)
              .set_assigned_partitions(mk_assignment(
                  mk_topic_assignment(topic_id1, 1, 2, 3),
                  mk_topic_assignment(topic_id2, 4, 5, 6)))
              .build())

    updated_member = (CurrentAssignmentBuilder(member)
                      .with_target_assignment(11, Assignment(mk_assignment(
                          mk_topic_assignment(topic_id1, 2, 3, 4),
                          mk_topic_assignment(topic_id2, 5, 6, 7))))
                      .with_current_partition_epoch(lambda topic_id, partition_id: -1)
                      .build())

    assert updated_member == (ConsumerGroupMember.Builder("member")
                              .set_state(MemberState.UNREVOKED_PARTITIONS)
                              .set_member_epoch(10)
                              .set_previous_member_epoch(10)
                              .set_assigned_partitions(mk_assignment(
                                  mk_topic_assignment(topic_id1, 2, 3),
                                  mk_topic_assignment(topic_id2, 5, 6)))
                              .set_partitions_pending_revocation(mk_assignment(
                                  mk_topic_assignment(topic_id1, 1),
                                  mk_topic_assignment(topic_id2, 4)))
                              .build())


def test_stable_to_unreleased_partitions() -> None:
    topic_id1 = uuid.uuid4()
    topic_id2 = uuid.uuid4()

    member = (ConsumerGroupMember.Builder("member")
              .set_state(MemberState.STABLE)
              .set_member_epoch(10)
              .set_previous_member_epoch(10)
              .set_assigned_partitions(mk_assignment(
                  mk_topic_assignment(topic_id1, 1, 2, 3),
                  mk_topic_assignment(topic_id2, 4, 5, 6)))
              .build())

    updated_member = (CurrentAssignmentBuilder(member)
                      .with_target_assignment(11, Assignment(mk_assignment(
                          mk_topic_assignment(topic_id1, 1, 2, 3, 4),
                          mk_topic_assignment(topic_id2, 4, 5, 6, 7))))
                      .with_current_partition_epoch(lambda topic_id, partition_id: 10)
                      .build())

    assert updated_member == (ConsumerGroupMember.Builder("member")
                              .set_state(MemberState.UNRELEASED_PARTITIONS)
                              .set_member_epoch(11)
                              .set_previous_member_epoch(10)
                              .set_assigned_partitions(mk_assignment(
                                  mk_topic_assignment(topic_id1, 1, 2, 3),
                                  mk_topic_assignment(topic_id2, 4, 5, 6)))
                              .build())


def test_stable_to_unreleased_partitions_with_owned_partitions_not_having_revoked_partitions() -> None:
    topic_id1 = uuid.uuid4()
    topic_id2 = uuid.uuid4()

    member = (ConsumerGroupMember.Builder("member")
              .set_state(MemberState.STABLE)
              .set_member_epoch(10)
              .set_previous_member_epoch(10)
              .set_assigned_partitions(mk_assignment(
                  mk_topic_assignment(topic_id1, 1, 2, 3),
                  mk_topic_assignment(topic_id2, 4, 5, 6)))
              .build())

    updated_member = (CurrentAssignmentBuilder(member)
                      .with_target_assignment(11, Assignment(mk_assignment(
                          mk_topic_assignment(topic_id1, 1, 2, 3),
                          mk_topic_assignment(topic_id2, 4, 5, 7))))
                      .with_current_partition_epoch(lambda topic_id, _: 10 if topic_id2 == topic_id else -1)
                      .with_owned_topic_partitions([])
                      .build())

    assert updated_member == (ConsumerGroupMember.Builder("member")
                              .set_state(MemberState.UNRELEASED_PARTITIONS)
                              .set_member_epoch(11)
                              .set_previous_member_epoch(10)
                              .set_assigned_partitions(mk_assignment(
                                  mk_topic_assignment(topic_id1, 1, 2, 3),
                                  mk_topic_assignment(topic_id2, 4, 5)))
                              .build())


def test_unrevoked_partitions_to_stable() -> None:
    topic_id1 = uuid.uuid4()
    topic_id2 = uuid.uuid4()

    member = (ConsumerGroupMember.Builder("member")
              .set_state(MemberState.UNREVOKED_PARTITIONS)
              .set_member_epoch(10)
              .set_previous_member_epoch(10)
              .set_assigned_partitions(mk_assignment(
                  mk_topic_assignment(topic_id1, 2, 3),
                  mk_topic_assignment(topic_id2, 5, 6)))
              .set_partitions_pending_revocation(mk_assignment(
                  mk_topic_assignment(topic_id1, 1),
                  mk_topic_assignment(topic_id2, 4)))
              .build())

    updated_member = (CurrentAssignmentBuilder(member)
                      .with_target_assignment(11, Assignment(mk_assignment(
                          mk_topic_assignment(topic_id1, 2, 3),
                          mk_topic_assignment(topic_id2, 5, 6))))
                      .with_current_partition_epoch(lambda topic_id, partition_id: -1)
                      .with_owned_topic_partitions([
                          owned(topic_id1, 2, 3),
                          owned(topic_id2, 5, 6)])
                      .build())

    assert updated_member == (ConsumerGroupMember.Builder("member")
                              .set_state(MemberState.STABLE)
                              .set_member_epoch(11)
                              .set_previous_member_epoch(10)
                              .set_assigned_partitions(mk_assignment(
                                  mk_topic_assignment(topic_id1, 2, 3),
                                  mk_topic_assignment(topic_id2, 5, 6)))
                              .build())


def test_remains_in_unrevoked_partitions() -> None:
    topic_id1 = uuid.uuid4()
    topic_id2 = uuid.uuid4()

    member = (ConsumerGroupMember.Builder("member")
              .set_state(MemberState.UNREVOKED_PARTITIONS)
              .set_member_epoch(10)
              .set_previous_member_epoch(10)
              .set_assigned_partitions(mk_assignment(
                  mk_topic_assignment(topic_id1, 2, 3),
                  mk_topic_assignment(topic_id2, 5, 6)))
              .set_partitions_pending_revocation(mk_assignment(
                  mk_topic_assignment(topic_id1, 1),
                  mk_topic_assignment(topic_id2, 4)))
              .build())

    current_assignment_builder = (CurrentAssignmentBuilder(member)
                                  .with_target_assignment(12, Assignment(mk_assignment(
                                      mk_topic_assignment(topic_id1, 3),
                                      mk_topic_assignment(topic_id2, 6))))
                                  .with_current_partition_epoch(lambda topic_id, partition_id: -1))

    assert current_assignment_builder.with_owned_topic_partitions(None).build() == member

    assert current_assignment_builder.with_owned_topic_partitions([
        owned(topic_id1, 1, 2, 3),
        owned(topic_id2, 5, 6)]).build() == member

    assert current_assignment_builder.with_owned_topic_partitions([
        owned(topic_id1, 2, 3),
        owned(topic_id2, 4, 5, 6)]).build() == member


def test_unrevoked_partitions_to_unrevoked_partitions() -> None:
    topic_id1 = uuid.uuid4()
    topic_id2 = uuid.uuid4()

    member = (ConsumerGroupMember.Builder("member")
              .set_state(MemberState.UNREVOKED_PARTITIONS)
              .set_member_epoch(10)
              .set_previous_member_epoch(10)
              .set_assigned_partitions(mk_assignment(
                  mk_topic_assignment(topic_id1, 2, 3),
                  mk_topic_assignment(topic_id2, 5, 6)))
              .set_partitions_pending_revocation(mk_assignment(
                  mk_topic_assignment(topic_id1, 1),
                  mk_topic_assignment(topic_id2, 4)))
              .build())

    updated_member = (CurrentAssignmentBuilder(member)
                      .with_target_assignment(12, Assignment(mk_assignment(
                          mk_topic_assignment(topic_id1, 3),
                          mk_topic_assignment(topic_id2, 6))))
                      .with_current_partition_epoch(lambda topic_id, partition_id: -1)
                      .with_owned_topic_partitions([
                          owned(topic_id1, 2, 3),
                          owned(topic_id2, 5, 6)])
                      .build())

    assert updated_member == (ConsumerGroupMember.Builder("member")
                              .set_state(MemberState.UNREVOKED_PARTITIONS)
                              .set_member_epoch(11)
                              .set_previous_member_epoch(10)
                              .set_assigned_partitions(mk_assignment(
                                  mk_topic_assignment(topic_id1, 3),
                                  mk_topic_assignment(topic_id2, 6)))
                              .set_partitions_pending_revocation(mk_assignment(
                                  mk_topic_assignment(topic_id1, 2),
                                  mk_topic_assignment(topic_id2, 5)))
                              .build())


def test_unrevoked_partitions_to_unreleased_partitions() -> None:
    topic_id1 = uuid.uuid4()
    topic_id2 = uuid.uuid4()

    member = (ConsumerGroupMember.Builder("member")
              .set_state(MemberState.UNREVOKED_PARTITIONS)
              .set_member_epoch(11)
              .set_previous_member_epoch(10)
              .set_assigned_partitions(mk_assignment(
                  mk_topic_assignment(topic_id1, 2, 3),
                  mk_topic_assignment(topic_id2, 5, 6)))
              .build())

    updated_member = (CurrentAssignmentBuilder(member)
                      .with_target_assignment(11, Assignment(mk_assignment(
                          mk_topic_assignment(topic_id1, 2, 3, 4),
                          mk_topic_assignment(topic_id2, 5, 6, 7))))
                      .with_current_partition_epoch(lambda topic_id, partition_id: 10)
                      .with_owned_topic_partitions([
                          owned(topic_id1, 2, 3),
                          owned(topic_id2, 5, 6)])
                      .build())

    assert updated_member == (ConsumerGroupMember.Builder("member")
                              .set_state(MemberState.UNRELEASED_PARTITIONS)
                              .set_member_epoch(11)
                              .set_previous_member_epoch(11)
                              .set_assigned_partitions(mk_assignment(
                                  mk_topic_assignment(topic_id1, 2, 3),
                                  mk_topic_assignment(topic_id2, 5, 6)))
                              .build())


def test_unreleased_partitions_to_stable() -> None:
    topic_id1 = uuid.uuid4()
    topic_id2 = uuid.uuid4()

    member = (ConsumerGroupMember.Builder("member")
              .set_state(MemberState.UNRELEASED_PARTITIONS)
              .set_member_epoch(11)
              .set_previous_member_epoch(11)
              .set_assigned_partitions(mk_assignment(
                  mk_topic_assignment(topic_id1, 2, 3),
                  mk_topic_assignment(topic_id2, 5, 6)))
              .build())

    updated_member = (CurrentAssignmentBuilder(member)
                      .with_target_assignment(12, Assignment(mk_assignment(
                          mk_topic_assignment(topic_id1, 2, 3),
                          mk_topic_assignment(topic_id2, 5, 6))))
                      .with_current_partition_epoch(lambda topic_id, partition_id: 10)
                      .build())

    assert updated_member == (ConsumerGroupMember.Builder("member")
                              .set_state(MemberState.STABLE)
                              .set_member_epoch(12)
                              .set_previous_member_epoch(11)
                              .set_assigned_partitions(mk_assignment(
                                  mk_topic_assignment(topic_id1, 2, 3),
                                  mk_topic_assignment(topic_id2, 5, 6)))
                              .build())


def test_unreleased_partitions_to_stable_with_new_partitions() -> None:
    topic_id1 = uuid.uuid4()
    topic_id2 = uuid.uuid4()

    member = (ConsumerGroupMember.Builder("member")
              .set_state(MemberState.UNRELEASED_PARTITIONS)
              .set_member_epoch(11)
              .set_previous_member_epoch(11)
              .set_assigned_partitions(mk_assignment(
                  mk_topic_assignment(topic_id1, 2, 3),
                  mk_topic_assignment(topic_id2, 5, 6)))
              .build())

    updated_member = (CurrentAssignmentBuilder(member)
                      .with_target_assignment(11, Assignment(mk_assignment(
                          mk_topic_assignment(topic_id1, 2, 3, 4),
                          mk_topic_assignment(topic_id2, 5, 6, 7))))
                      .with_current_partition_epoch(lambda topic_id, partition_id: -1)
                      .build())

    assert updated_member == (ConsumerGroupMember.Builder("member")
                              .set_state(MemberState.STABLE)
                              .set_member_epoch(11)
                              .set_previous_member_epoch(11)
                              .set_assigned_partitions(mk_assignment(
                                  mk_topic_assignment(topic_id1, 2, 3, 4),
                                  mk_topic_assignment(topic_id2, 5, 6, 7)))
                              .build())


def test_unreleased_partitions_to_unreleased_partitions() -> None:
    topic_id1 = uuid.uuid4()
    topic_id2 = uuid.uuid4()

    member = (ConsumerGroupMember.Builder("member")
              .set_state(MemberState.UNRELEASED_PARTITIONS)
              .set_member_epoch(11)
              .set_previous_member_epoch(11)
              .set_assigned_partitions(mk_assignment(
                  mk_topic_assignment(topic_id1, 2, 3),
                  mk_topic_assignment(topic_id2, 5, 6)))
              .build())

    updated_member = (CurrentAssignmentBuilder(member)
                      .with_target_assignment(11, Assignment(mk_assignment(
                          mk_topic_assignment(topic_id1, 2, 3, 4),
                          mk_topic_assignment(topic_id2, 5, 6, 7))))
                      .with_current_partition_epoch(lambda topic_id, partition_id: 10)
                      .build())

    assert updated_member == member


def test_unreleased_partitions_to_unrevoked_partitions() -> None:
    topic_id1 = uuid.uuid4()
    topic_id2 = uuid.uuid4()

    member = (ConsumerGroupMember.Builder("member")
              .set_state(MemberState.UNRELEASED_PARTITIONS)
              .set_member_epoch(11)
              .set_previous_member_epoch(11)
              .set_assigned_partitions(mk_assignment(
                  mk_topic_assignment(topic_id1, 2, 3),
                  mk_topic_assignment(topic_id2, 5, 6)))
              .build())

    updated_member = (CurrentAssignmentBuilder(member)
                      .with_target_assignment(12, Assignment(mk_assignment(
                          mk_topic_assignment(topic_id1, 3),
                          mk_topic_assignment(topic_id2, 6))))
                      .with_current_partition_epoch(lambda topic_id, partition_id: 10)
                      .build())

    assert updated_member == (ConsumerGroupMember.Builder("member")
                              .set_state(MemberState.UNREVOKED_PARTITIONS)
                              .set_member_epoch(11)
                              .set_previous_member_epoch(11)
                              .set_assigned_partitions(mk_assignment(
                                  mk_topic_assignment(topic_id1, 3),
                                  mk_topic_assignment(topic_id2, 6)))
                              .set_partitions_pending_revocation(mk_assignment(
                                  mk_topic_assignment(topic_id1, 2),
                                  mk_topic_assignment(topic_id2, 5)))
                              .build())


def test_unknown_state() -> None:
    topic_id1 = uuid.uuid4()
    topic_id2 = uuid.uuid4()

    member = (ConsumerGroupMember.Builder("member")
              .set_state(MemberState.UNKNOWN)
              .set_member_epoch(11)
              .set_previous_member_epoch(11)
              .set_assigned_partitions(mk_assignment(
                  mk_topic_assignment(topic_id1, 3),
                  mk_topic_assignment(topic_id2, 6)))
              .set_partitions_pending_revocation(mk_assignment(
                  mk_topic_assignment(topic_id1, 2),
                  mk_topic_assignment(topic_id2, 5)))
              .build())

    # an unknown state first fences the member, so that the client resets itself
    with pytest.raises(FencedMemberEpochException):
        (CurrentAssignmentBuilder(member)
         .with_target_assignment(12, Assignment(mk_assignment(
             mk_topic_assignment(topic_id1, 3),
             mk_topic_assignment(topic_id2, 6))))
         .with_current_partition_epoch(lambda topic_id, partition_id: 10)
         .build())

    # it comes back owning nothing and is reconciled from scratch
    updated_member = (CurrentAssignmentBuilder(member)
                      .with_target_assignment(12, Assignment(mk_assignment(
                          mk_topic_assignment(topic_id1, 3),
                          mk_topic_assignment(topic_id2, 6))))
                      .with_current_partition_epoch(lambda topic_id, partition_id: 11)
                      .with_owned_topic_partitions([])
                      .build())

    assert updated_member == (ConsumerGroupMember.Builder("member")
                              .set_state(MemberState.STABLE)
                              .set_member_epoch(12)
                              .set_previous_member_epoch(11)
                              .set_assigned_partitions(mk_assignment(
                                  mk_topic_assignment(topic_id1, 3),
                                  mk_topic_assignment(topic_id2, 6)))
                              .build())
