"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/modern/consumer/ConsumerGroupTest.java
(Kafka 3.9).

The port's ConsumerGroup takes no GroupCoordinatorMetricsShard (it has no metrics registry), so Kafka's mock (or real)
shard argument is left out. Topic ids are uuid.UUID (Uuid.randomUuid() -> uuid.uuid4()); Java's Optional.empty() is
None. @ApiKeyVersionsSource(OFFSET_COMMIT) is every OffsetCommit version, from ApiKeys.
"""

from __future__ import annotations

import uuid

import pytest
from kio.schema.consumer_group_describe.v0.response import Assignment as DescribeAssignment
from kio.schema.consumer_group_describe.v0.response import DescribedGroup
from kio.schema.consumer_group_describe.v0.response import Member as DescribeMember
from kio.schema.errors import ErrorCode

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException, UnsupportedVersionException
from kafka_edu.v3_9.clients.common.errors.group_not_empty_exception import GroupNotEmptyException
from kafka_edu.v3_9.clients.common.errors.illegal_generation_exception import IllegalGenerationException
from kafka_edu.v3_9.clients.common.errors.stale_member_epoch_exception import StaleMemberEpochException
from kafka_edu.v3_9.clients.common.errors.unknown_member_id_exception import UnknownMemberIdException
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_member_metadata_value import (
    ClassicMemberMetadata,
    ClassicProtocol,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.group import Group
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.assignment import Assignment
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.consumer.consumer_group import (
    CONSUMER_PROTOCOL_TYPE,
    ConsumerGroup,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.consumer.consumer_group_member import (
    ConsumerGroupMember,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.member_state import MemberState
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.topic_metadata import TopicMetadata
from kafka_edu.v3_9.group_coordinator.coordinator.group.offset_and_metadata import OffsetAndMetadata
from kafka_edu.v3_9.group_coordinator.coordinator.group.offset_expiration_condition_impl import (
    OffsetExpirationConditionImpl,
)
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.subscription_type import SubscriptionType
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import LATEST_EPOCH, SnapshotRegistry
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.assignment_test_util import (
    mk_assignment,
    mk_map_of_partition_racks,
    mk_topic_assignment,
)
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.metadata_image_builder import MetadataImageBuilder

KAFKA = kafka_test_class(
    "3.9",
    "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/modern/consumer/ConsumerGroupTest.java",
    cases=["testGetOrCreateMember", "testUpdateMember", "testNoStaticMember", "testGetStaticMemberByInstanceId",
           "testRemoveMember", "testRemoveStaticMember", "testUpdatingMemberUpdatesPartitionEpoch",
           "testUpdatingMemberUpdatesPartitionEpochWhenPartitionIsReassignedBeforeBeingRevoked",
           "testUpdatingMemberUpdatesPartitionEpochWhenPartitionIsNotReleased", "testRemovePartitionEpochs",
           "testAddPartitionEpochs", "testDeletingMemberRemovesPartitionEpoch", "testWaitingOnUnreleasedPartition",
           "testGroupState", "testGroupTypeFromString", "testPreferredServerAssignor", "testUpdateSubscriptionMetadata",
           "testUpdateSubscribedTopicNamesAndSubscriptionType", "testUpdateInvertedAssignment",
           "testMetadataRefreshDeadline", "testValidateTransactionalOffsetCommit", "testValidateOffsetCommit",
           "testAsListedGroup", "testValidateOffsetFetch", "testValidateDeleteGroup", "testOffsetExpirationCondition",
           "testIsSubscribedToTopic", "testAsDescribedGroup", "testStateTransitionMetrics",
           "testIsInStatesCaseInsensitive", "testClassicMembersSupportedProtocols", "testNumClassicProtocolMembers"],
    not_applicable={
        "testStateTransitionMetrics": "metrics: the port has no metrics registry, so ConsumerGroup reports its state "
                                      "transitions to no GroupCoordinatorMetricsShard",
    },
)

OFFSET_COMMIT_VERSIONS = list(range(ApiKeys.OFFSET_COMMIT.oldest_version, ApiKeys.OFFSET_COMMIT.latest_version + 1))
State = ConsumerGroup.ConsumerGroupState


def create_consumer_group(group_id: str) -> ConsumerGroup:
    return ConsumerGroup(SnapshotRegistry(), group_id)


def test_get_or_create_member() -> None:
    consumer_group = create_consumer_group("foo")

    member = consumer_group.get_or_maybe_create_member("member-id", True)
    assert member.member_id() == "member-id"

    consumer_group.update_member(member)

    member = consumer_group.get_or_maybe_create_member("member-id", False)
    assert member.member_id() == "member-id"

    with pytest.raises(UnknownMemberIdException):
        consumer_group.get_or_maybe_create_member("does-not-exist", False)


def test_update_member() -> None:
    consumer_group = create_consumer_group("foo")

    member = consumer_group.get_or_maybe_create_member("member", True)
    member = ConsumerGroupMember.Builder(member).set_subscribed_topic_names(["foo", "bar"]).build()

    consumer_group.update_member(member)

    assert consumer_group.get_or_maybe_create_member("member", False) == member


def test_no_static_member() -> None:
    consumer_group = create_consumer_group("foo")

    # a member that is not static
    consumer_group.get_or_maybe_create_member("member", True)
    assert consumer_group.static_member("instance-id") is None


def test_get_static_member_by_instance_id() -> None:
    consumer_group = create_consumer_group("foo")

    member = consumer_group.get_or_maybe_create_member("member", True)
    member = (ConsumerGroupMember.Builder(member)
              .set_subscribed_topic_names(["foo", "bar"])
              .set_instance_id("instance")
              .build())

    consumer_group.update_member(member)

    assert consumer_group.static_member("instance") == member
    assert consumer_group.get_or_maybe_create_member("member", False) == member
    assert consumer_group.static_member_id("instance") == member.member_id()


def test_remove_member() -> None:
    consumer_group = create_consumer_group("foo")

    member = consumer_group.get_or_maybe_create_member("member", True)
    consumer_group.update_member(member)
    assert consumer_group.has_member("member")

    consumer_group.remove_member("member")
    assert not consumer_group.has_member("member")


def test_remove_static_member() -> None:
    consumer_group = create_consumer_group("foo")

    member = (ConsumerGroupMember.Builder("member")
              .set_subscribed_topic_names(["foo", "bar"])
              .set_instance_id("instance")
              .build())

    consumer_group.update_member(member)
    assert consumer_group.has_member("member")

    consumer_group.remove_member("member")
    assert not consumer_group.has_member("member")
    assert consumer_group.static_member("instance") is None
    assert consumer_group.static_member_id("instance") is None


def test_updating_member_updates_partition_epoch() -> None:
    foo_topic_id, bar_topic_id, zar_topic_id = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()

    consumer_group = create_consumer_group("foo")

    member = (ConsumerGroupMember.Builder("member")
              .set_member_epoch(10)
              .set_assigned_partitions(mk_assignment(mk_topic_assignment(foo_topic_id, 1, 2, 3)))
              .set_partitions_pending_revocation(mk_assignment(mk_topic_assignment(bar_topic_id, 4, 5, 6)))
              .build())

    consumer_group.update_member(member)

    for partition in (1, 2, 3):
        assert consumer_group.current_partition_epoch(foo_topic_id, partition) == 10
    for partition in (4, 5, 6):
        assert consumer_group.current_partition_epoch(bar_topic_id, partition) == 10
    for partition in (7, 8, 9):
        assert consumer_group.current_partition_epoch(zar_topic_id, partition) == -1

    member = (ConsumerGroupMember.Builder(member)
              .set_member_epoch(11)
              .set_assigned_partitions(mk_assignment(mk_topic_assignment(bar_topic_id, 1, 2, 3)))
              .set_partitions_pending_revocation(mk_assignment(mk_topic_assignment(zar_topic_id, 4, 5, 6)))
              .build())

    consumer_group.update_member(member)

    for partition in (1, 2, 3):
        assert consumer_group.current_partition_epoch(bar_topic_id, partition) == 11
    for partition in (4, 5, 6):
        assert consumer_group.current_partition_epoch(zar_topic_id, partition) == 11
    for partition in (7, 8, 9):
        assert consumer_group.current_partition_epoch(foo_topic_id, partition) == -1


def test_updating_member_updates_partition_epoch_when_partition_is_reassigned_before_being_revoked() -> None:
    foo_topic_id = uuid.uuid4()

    consumer_group = create_consumer_group("foo")

    member = (ConsumerGroupMember.Builder("member")
              .set_member_epoch(10)
              .set_assigned_partitions({})
              .set_partitions_pending_revocation(mk_assignment(mk_topic_assignment(foo_topic_id, 1)))
              .build())

    consumer_group.update_member(member)

    assert consumer_group.current_partition_epoch(foo_topic_id, 1) == 10

    member = (ConsumerGroupMember.Builder(member)
              .set_member_epoch(11)
              .set_assigned_partitions(mk_assignment(mk_topic_assignment(foo_topic_id, 1)))
              .set_partitions_pending_revocation({})
              .build())

    consumer_group.update_member(member)

    assert consumer_group.current_partition_epoch(foo_topic_id, 1) == 11


def test_updating_member_updates_partition_epoch_when_partition_is_not_released() -> None:
    foo_topic_id = uuid.uuid4()
    consumer_group = create_consumer_group("foo")

    m1 = (ConsumerGroupMember.Builder("m1")
          .set_member_epoch(10)
          .set_assigned_partitions(mk_assignment(mk_topic_assignment(foo_topic_id, 1)))
          .build())

    consumer_group.update_member(m1)

    m2 = (ConsumerGroupMember.Builder("m2")
          .set_member_epoch(10)
          .set_assigned_partitions(mk_assignment(mk_topic_assignment(foo_topic_id, 1)))
          .build())

    # foo-1 still belongs to m1: m2 cannot take it
    with pytest.raises(IllegalStateException):
        consumer_group.update_member(m2)


def test_remove_partition_epochs() -> None:
    foo_topic_id = uuid.uuid4()
    consumer_group = create_consumer_group("foo")

    # no epoch is set yet
    with pytest.raises(IllegalStateException):
        consumer_group.remove_partition_epochs(mk_assignment(mk_topic_assignment(foo_topic_id, 1)), 10)

    m1 = (ConsumerGroupMember.Builder("m1")
          .set_member_epoch(10)
          .set_assigned_partitions(mk_assignment(mk_topic_assignment(foo_topic_id, 1)))
          .build())

    consumer_group.update_member(m1)

    # the expected epoch is not the owner's
    with pytest.raises(IllegalStateException):
        consumer_group.remove_partition_epochs(mk_assignment(mk_topic_assignment(foo_topic_id, 1)), 11)


def test_add_partition_epochs() -> None:
    foo_topic_id = uuid.uuid4()
    consumer_group = create_consumer_group("foo")

    consumer_group.add_partition_epochs(mk_assignment(mk_topic_assignment(foo_topic_id, 1)), 10)

    # the owner must give the partition up before its epoch can change
    with pytest.raises(IllegalStateException):
        consumer_group.add_partition_epochs(mk_assignment(mk_topic_assignment(foo_topic_id, 1)), 11)


def test_deleting_member_removes_partition_epoch() -> None:
    foo_topic_id, bar_topic_id, zar_topic_id = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()

    consumer_group = create_consumer_group("foo")

    member = (ConsumerGroupMember.Builder("member")
              .set_member_epoch(10)
              .set_assigned_partitions(mk_assignment(mk_topic_assignment(foo_topic_id, 1, 2, 3)))
              .set_partitions_pending_revocation(mk_assignment(mk_topic_assignment(bar_topic_id, 4, 5, 6)))
              .build())

    consumer_group.update_member(member)

    for partition in (1, 2, 3):
        assert consumer_group.current_partition_epoch(foo_topic_id, partition) == 10
    for partition in (4, 5, 6):
        assert consumer_group.current_partition_epoch(bar_topic_id, partition) == 10
    for partition in (7, 8, 9):
        assert consumer_group.current_partition_epoch(zar_topic_id, partition) == -1

    consumer_group.remove_member(member.member_id())

    for partition in (1, 2, 3):
        assert consumer_group.current_partition_epoch(bar_topic_id, partition) == -1
    for partition in (4, 5, 6):
        assert consumer_group.current_partition_epoch(zar_topic_id, partition) == -1
    for partition in (7, 8, 9):
        assert consumer_group.current_partition_epoch(foo_topic_id, partition) == -1


def test_waiting_on_unreleased_partition() -> None:
    foo_topic_id, bar_topic_id, zar_topic_id = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    member_id1 = str(uuid.uuid4())
    member_id2 = str(uuid.uuid4())

    consumer_group = create_consumer_group("foo")
    consumer_group.update_target_assignment(member_id1, Assignment(mk_assignment(
        mk_topic_assignment(foo_topic_id, 1, 2, 3),
        mk_topic_assignment(zar_topic_id, 7, 8, 9),
    )))

    member1 = (ConsumerGroupMember.Builder(member_id1)
               .set_member_epoch(10)
               .set_state(MemberState.UNRELEASED_PARTITIONS)
               .set_assigned_partitions(mk_assignment(mk_topic_assignment(foo_topic_id, 1, 2, 3)))
               .set_partitions_pending_revocation(mk_assignment(mk_topic_assignment(bar_topic_id, 4, 5, 6)))
               .build())
    consumer_group.update_member(member1)

    assert not consumer_group.waiting_on_unreleased_partition(member1)

    member2 = (ConsumerGroupMember.Builder(member_id2)
               .set_member_epoch(10)
               .set_partitions_pending_revocation(mk_assignment(mk_topic_assignment(zar_topic_id, 7)))
               .build())
    consumer_group.update_member(member2)

    assert consumer_group.waiting_on_unreleased_partition(member1)


def test_group_state() -> None:
    consumer_group = create_consumer_group("foo")
    assert consumer_group.state() == State.EMPTY

    member1 = (ConsumerGroupMember.Builder("member1")
               .set_state(MemberState.STABLE)
               .set_member_epoch(1)
               .set_previous_member_epoch(0)
               .build())

    consumer_group.update_member(member1)
    consumer_group.set_group_epoch(1)

    assert member1.state() == MemberState.STABLE
    assert consumer_group.state() == State.ASSIGNING

    member2 = (ConsumerGroupMember.Builder("member2")
               .set_state(MemberState.STABLE)
               .set_member_epoch(1)
               .set_previous_member_epoch(0)
               .build())

    consumer_group.update_member(member2)
    consumer_group.set_group_epoch(2)

    assert member2.state() == MemberState.STABLE
    assert consumer_group.state() == State.ASSIGNING

    consumer_group.set_target_assignment_epoch(2)

    assert consumer_group.state() == State.RECONCILING

    member1 = (ConsumerGroupMember.Builder(member1)
               .set_state(MemberState.STABLE)
               .set_member_epoch(2)
               .set_previous_member_epoch(1)
               .build())

    consumer_group.update_member(member1)

    assert member1.state() == MemberState.STABLE
    assert consumer_group.state() == State.RECONCILING

    # member2 still reconciles: so does the group
    member2 = (ConsumerGroupMember.Builder(member2)
               .set_state(MemberState.UNREVOKED_PARTITIONS)
               .set_member_epoch(2)
               .set_previous_member_epoch(1)
               .build())

    consumer_group.update_member(member2)

    assert member2.state() == MemberState.UNREVOKED_PARTITIONS
    assert consumer_group.state() == State.RECONCILING

    member2 = (ConsumerGroupMember.Builder(member2)
               .set_state(MemberState.STABLE)
               .set_member_epoch(2)
               .set_previous_member_epoch(1)
               .build())

    consumer_group.update_member(member2)

    assert member2.state() == MemberState.STABLE
    assert consumer_group.state() == State.STABLE

    consumer_group.remove_member("member1")
    consumer_group.remove_member("member2")

    assert consumer_group.state() == State.EMPTY


def test_group_type_from_string() -> None:
    assert Group.GroupType.parse("classic") == Group.GroupType.CLASSIC

    # the case does not matter
    assert Group.GroupType.parse("Consumer") == Group.GroupType.CONSUMER

    # a name that is no group type
    assert Group.GroupType.parse("Invalid") == Group.GroupType.UNKNOWN


def test_preferred_server_assignor() -> None:
    consumer_group = create_consumer_group("foo")

    member1 = ConsumerGroupMember.Builder("member1").set_server_assignor_name("range").build()
    member2 = ConsumerGroupMember.Builder("member2").set_server_assignor_name("range").build()
    member3 = ConsumerGroupMember.Builder("member3").set_server_assignor_name("uniform").build()

    # an empty group has no preferred assignor
    assert consumer_group.preferred_server_assignor() is None

    # member1 as it would be, not yet in the group
    assert consumer_group.compute_preferred_server_assignor(None, member1) == "range"

    consumer_group.update_member(member1)

    assert consumer_group.preferred_server_assignor() == "range"

    # member1 as if removed, still in the group
    assert consumer_group.compute_preferred_server_assignor(member1, None) is None

    # member2 as it would be
    assert consumer_group.compute_preferred_server_assignor(None, member2) == "range"

    consumer_group.update_member(member2)

    assert consumer_group.preferred_server_assignor() == "range"

    consumer_group.update_member(member3)

    # two range, one uniform
    assert consumer_group.preferred_server_assignor() == "range"

    # the members drop their assignors
    updated_member1 = ConsumerGroupMember.Builder("member1").set_server_assignor_name(None).build()
    updated_member2 = ConsumerGroupMember.Builder("member2").set_server_assignor_name(None).build()
    updated_member3 = ConsumerGroupMember.Builder("member3").set_server_assignor_name(None).build()

    # one range, one uniform: either
    assignor = consumer_group.compute_preferred_server_assignor(member1, updated_member1)
    assert assignor in ("range", "uniform")

    consumer_group.update_member(updated_member1)

    assert consumer_group.compute_preferred_server_assignor(member2, updated_member2) == "uniform"

    consumer_group.update_member(updated_member2)

    # only member3 names one
    assert consumer_group.preferred_server_assignor() == "uniform"

    assert consumer_group.compute_preferred_server_assignor(member3, updated_member3) is None

    consumer_group.update_member(updated_member3)

    assert consumer_group.preferred_server_assignor() is None


def test_update_subscription_metadata() -> None:
    foo_topic_id, bar_topic_id, zar_topic_id = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()

    image = (MetadataImageBuilder()
             .add_topic(foo_topic_id, "foo", 1)
             .add_topic(bar_topic_id, "bar", 2)
             .add_topic(zar_topic_id, "zar", 3)
             .add_racks()
             .build())

    member1 = ConsumerGroupMember.Builder("member1").set_subscribed_topic_names(["foo"]).build()
    member2 = ConsumerGroupMember.Builder("member2").set_subscribed_topic_names(["bar"]).build()
    member3 = ConsumerGroupMember.Builder("member3").set_subscribed_topic_names(["zar"]).build()

    consumer_group = create_consumer_group("group-foo")

    foo = TopicMetadata(foo_topic_id, "foo", 1, mk_map_of_partition_racks(1))
    bar = TopicMetadata(bar_topic_id, "bar", 2, mk_map_of_partition_racks(2))
    zar = TopicMetadata(zar_topic_id, "zar", 3, mk_map_of_partition_racks(3))

    def compute(subscribed_topic_names: dict[str, int]) -> dict[str, TopicMetadata]:
        return dict(consumer_group.compute_subscription_metadata(subscribed_topic_names, image.topics,
                                                                 image.cluster))

    # empty by default
    assert compute(consumer_group.compute_subscribed_topic_names(None, None)) == {}

    # with member1
    assert compute(consumer_group.compute_subscribed_topic_names(None, member1)) == {"foo": foo}

    consumer_group.update_member(member1)

    assert compute(consumer_group.compute_subscribed_topic_names(None, None)) == {"foo": foo}

    # without member1
    assert compute(consumer_group.compute_subscribed_topic_names(member1, None)) == {}

    # with member2
    assert compute(consumer_group.compute_subscribed_topic_names(None, member2)) == {"foo": foo, "bar": bar}

    consumer_group.update_member(member2)

    assert compute(consumer_group.compute_subscribed_topic_names(None, None)) == {"foo": foo, "bar": bar}

    # without member2
    assert compute(consumer_group.compute_subscribed_topic_names(member2, None)) == {"foo": foo}

    # without member1
    assert compute(consumer_group.compute_subscribed_topic_names(member1, None)) == {"bar": bar}

    # with member3
    assert compute(consumer_group.compute_subscribed_topic_names(None, member3)) == {
        "foo": foo, "bar": bar, "zar": zar}

    consumer_group.update_member(member3)

    assert compute(consumer_group.compute_subscribed_topic_names(None, None)) == {
        "foo": foo, "bar": bar, "zar": zar}

    # without members 1, 2 and 3
    assert compute(consumer_group.compute_subscribed_topic_names({member1, member2, member3})) == {}

    # without members 2 and 3
    assert compute(consumer_group.compute_subscribed_topic_names({member2, member3})) == {"foo": foo}

    # without member1
    assert compute(consumer_group.compute_subscribed_topic_names({member1})) == {"bar": bar, "zar": zar}

    # nobody removed
    assert compute(consumer_group.compute_subscribed_topic_names(set())) == {"foo": foo, "bar": bar, "zar": zar}


def test_update_subscribed_topic_names_and_subscription_type() -> None:
    member1 = ConsumerGroupMember.Builder("member1").set_subscribed_topic_names(["foo"]).build()
    member2 = ConsumerGroupMember.Builder("member2").set_subscribed_topic_names(["bar", "foo"]).build()
    member3 = ConsumerGroupMember.Builder("member3").set_subscribed_topic_names(["bar", "foo"]).build()

    consumer_group = create_consumer_group("group-foo")

    # empty, and homogeneous, by default
    assert dict(consumer_group.subscribed_topic_names()) == {}
    assert consumer_group.subscription_type() == SubscriptionType.HOMOGENEOUS

    consumer_group.update_member(member1)

    # one member: homogeneous
    assert consumer_group.subscription_type() == SubscriptionType.HOMOGENEOUS

    consumer_group.update_member(member2)

    assert consumer_group.subscription_type() == SubscriptionType.HETEROGENEOUS

    consumer_group.update_member(member3)

    assert consumer_group.subscription_type() == SubscriptionType.HETEROGENEOUS

    consumer_group.remove_member(member1.member_id())

    assert consumer_group.subscription_type() == SubscriptionType.HOMOGENEOUS

    member4 = ConsumerGroupMember.Builder("member2").set_subscribed_topic_names(["bar", "foo", "zar"]).build()

    consumer_group.update_member(member4)

    assert consumer_group.subscription_type() == SubscriptionType.HETEROGENEOUS


def test_update_inverted_assignment() -> None:
    snapshot_registry = SnapshotRegistry()
    consumer_group = ConsumerGroup(snapshot_registry, "test-group")
    topic_id = uuid.uuid4()
    member_id1 = "member1"
    member_id2 = "member2"

    # member1 gets partition 0
    consumer_group.update_target_assignment(member_id1, Assignment({topic_id: {0}}))

    assert consumer_group.inverted_target_assignment() == {topic_id: {0: member_id1}}

    # member1 moves to partition 1
    consumer_group.update_target_assignment(member_id1, Assignment({topic_id: {1}}))

    assert consumer_group.inverted_target_assignment() == {topic_id: {1: member_id1}}

    # member2 takes partition 1
    consumer_group.update_target_assignment(member_id2, Assignment({topic_id: {1}}))

    assert consumer_group.inverted_target_assignment() == {topic_id: {1: member_id2}}

    # member1 gives partition 1 up (already member2's) and takes partition 0
    consumer_group.update_target_assignment(member_id1, Assignment({topic_id: {0}}))

    assert consumer_group.inverted_target_assignment() == {topic_id: {0: member_id1, 1: member_id2}}

    consumer_group.remove_target_assignment(member_id1)

    assert consumer_group.inverted_target_assignment() == {topic_id: {1: member_id2}}


def test_metadata_refresh_deadline() -> None:
    time = MockTime()
    group = create_consumer_group("group-foo")

    # the group epoch starts at 0
    assert group.group_epoch() == 0

    # a new (or loaded) group has no deadline: its metadata has expired
    assert group.has_metadata_expired(time.milliseconds())
    assert group.metadata_refresh_deadline().deadline_ms == 0
    assert group.metadata_refresh_deadline().epoch == 0

    # a deadline ahead, at the current group epoch: still valid
    group.set_metadata_refresh_deadline(time.milliseconds() + 1000, group.group_epoch())
    assert not group.has_metadata_expired(time.milliseconds())
    assert group.metadata_refresh_deadline().deadline_ms == time.milliseconds() + 1000
    assert group.metadata_refresh_deadline().epoch == group.group_epoch()

    # past the deadline: expired
    time.sleep(1001)
    assert group.has_metadata_expired(time.milliseconds())

    # a deadline set at a group epoch above the group's: expired whatever the time
    group.set_metadata_refresh_deadline(time.milliseconds() + 1000, group.group_epoch() + 1)
    assert group.has_metadata_expired(time.milliseconds())
    assert group.metadata_refresh_deadline().deadline_ms == time.milliseconds() + 1000
    assert group.metadata_refresh_deadline().epoch == group.group_epoch() + 1

    group.set_group_epoch(group.group_epoch() + 1)

    # a deadline ahead, at the current group epoch: valid
    group.set_metadata_refresh_deadline(time.milliseconds() + 1000, group.group_epoch())
    assert not group.has_metadata_expired(time.milliseconds())
    assert group.metadata_refresh_deadline().deadline_ms == time.milliseconds() + 1000
    assert group.metadata_refresh_deadline().epoch == group.group_epoch()

    # a refresh request expires it at once
    group.request_metadata_refresh()
    assert group.has_metadata_expired(time.milliseconds())
    assert group.metadata_refresh_deadline().deadline_ms == 0
    assert group.metadata_refresh_deadline().epoch == 0


@pytest.mark.parametrize("version", OFFSET_COMMIT_VERSIONS)
def test_validate_transactional_offset_commit(version: int) -> None:
    is_transactional = True
    group = create_consumer_group("group-foo")

    # the admin client, without member id and epoch: fine while the group is empty
    group.validate_offset_commit("", "", -1, is_transactional, version)

    # an unknown member
    with pytest.raises(UnknownMemberIdException):
        group.validate_offset_commit("member-id", None, 0, is_transactional, version)

    group.update_member(ConsumerGroupMember.Builder("member-id").build())

    # the admin client, now that the group has a member
    with pytest.raises(UnknownMemberIdException):
        group.validate_offset_commit("", "", -1, is_transactional, version)

    # a stale member epoch
    with pytest.raises(StaleMemberEpochException):
        group.validate_offset_commit("member-id", "", 10, is_transactional, version)

    group.validate_offset_commit("member-id", "", 0, is_transactional, version)


@pytest.mark.parametrize("version", OFFSET_COMMIT_VERSIONS)
def test_validate_offset_commit(version: int) -> None:
    is_transactional = False
    group = create_consumer_group("group-foo")

    # the admin client, without member id and epoch: fine while the group is empty
    group.validate_offset_commit("", "", -1, is_transactional, version)

    # an unknown member
    with pytest.raises(UnknownMemberIdException):
        group.validate_offset_commit("member-id", None, 0, is_transactional, version)

    group.update_member(ConsumerGroupMember.Builder("new-protocol-member-id").build())
    group.update_member(ConsumerGroupMember.Builder("old-protocol-member-id")
                        .set_classic_member_metadata(ClassicMemberMetadata())
                        .build())

    # the admin client, now that the group has members
    with pytest.raises(UnknownMemberIdException):
        group.validate_offset_commit("", "", -1, is_transactional, version)

    # a stale member epoch (or, below v9, a version a consumer-protocol member may not use)
    if version >= 9:
        with pytest.raises(StaleMemberEpochException):
            group.validate_offset_commit("new-protocol-member-id", "", 10, is_transactional, version)
    else:
        with pytest.raises(UnsupportedVersionException):
            group.validate_offset_commit("new-protocol-member-id", "", 10, is_transactional, version)
    with pytest.raises(IllegalGenerationException):
        group.validate_offset_commit("old-protocol-member-id", "", 10, is_transactional, version)

    if version >= 9:
        group.validate_offset_commit("new-protocol-member-id", "", 0, is_transactional, version)
    else:
        with pytest.raises(UnsupportedVersionException):
            group.validate_offset_commit("new-protocol-member-id", "", 0, is_transactional, version)


def test_as_listed_group() -> None:
    snapshot_registry = SnapshotRegistry()
    group = ConsumerGroup(snapshot_registry, "group-foo")
    snapshot_registry.get_or_create_snapshot(0)
    assert group.state_as_string(0) == str(State.EMPTY)
    group.update_member(ConsumerGroupMember.Builder("member1").set_subscribed_topic_names(["foo"]).build())
    snapshot_registry.get_or_create_snapshot(1)
    assert group.state_as_string(0) == str(State.EMPTY)
    assert group.state_as_string(1) == str(State.STABLE)


def test_validate_offset_fetch() -> None:
    snapshot_registry = SnapshotRegistry()
    group = ConsumerGroup(snapshot_registry, "group-foo")

    # the admin client, without member id and epoch
    group.validate_offset_fetch(None, -1, LATEST_EPOCH)

    # an unknown member
    with pytest.raises(UnknownMemberIdException):
        group.validate_offset_fetch("member-id", 0, LATEST_EPOCH)

    snapshot_registry.get_or_create_snapshot(0)
    group.update_member(ConsumerGroupMember.Builder("member-id").build())

    # the member did not exist yet at offset 0
    with pytest.raises(UnknownMemberIdException):
        group.validate_offset_fetch("member-id", 0, 0)

    # it exists now, but not at that epoch
    with pytest.raises(StaleMemberEpochException):
        group.validate_offset_fetch("member-id", 10, LATEST_EPOCH)

    group.validate_offset_fetch("member-id", 0, LATEST_EPOCH)


def test_validate_delete_group() -> None:
    consumer_group = create_consumer_group("foo")

    assert consumer_group.state() == State.EMPTY
    consumer_group.validate_delete_group()

    member1 = (ConsumerGroupMember.Builder("member1")
               .set_member_epoch(1)
               .set_previous_member_epoch(0)
               .build())
    consumer_group.update_member(member1)

    assert consumer_group.state() == State.RECONCILING
    with pytest.raises(GroupNotEmptyException):
        consumer_group.validate_delete_group()

    consumer_group.set_group_epoch(1)

    assert consumer_group.state() == State.ASSIGNING
    with pytest.raises(GroupNotEmptyException):
        consumer_group.validate_delete_group()

    consumer_group.set_target_assignment_epoch(1)

    assert consumer_group.state() == State.STABLE
    with pytest.raises(GroupNotEmptyException):
        consumer_group.validate_delete_group()


def test_offset_expiration_condition() -> None:
    current_timestamp = 30000
    commit_timestamp = 20000
    offsets_retention_ms = 10000
    offset_and_metadata = OffsetAndMetadata(15000, None, "", commit_timestamp, None)
    group = ConsumerGroup(SnapshotRegistry(), "group-id")

    offset_expiration_condition = group.offset_expiration_condition()
    assert offset_expiration_condition is not None

    condition = offset_expiration_condition
    assert isinstance(condition, OffsetExpirationConditionImpl)
    assert condition.base_timestamp()(offset_and_metadata) == commit_timestamp
    assert condition.is_offset_expired(offset_and_metadata, current_timestamp, offsets_retention_ms)


def test_is_subscribed_to_topic() -> None:
    foo_topic_id, bar_topic_id = uuid.uuid4(), uuid.uuid4()

    image = (MetadataImageBuilder()
             .add_topic(foo_topic_id, "foo", 1)
             .add_topic(bar_topic_id, "bar", 2)
             .add_racks()
             .build())

    member1 = ConsumerGroupMember.Builder("member1").set_subscribed_topic_names(["foo"]).build()
    member2 = ConsumerGroupMember.Builder("member2").set_subscribed_topic_names(["bar"]).build()

    consumer_group = create_consumer_group("group-foo")

    consumer_group.update_member(member1)
    consumer_group.update_member(member2)

    assert dict(consumer_group.compute_subscription_metadata(
        consumer_group.compute_subscribed_topic_names(None, None), image.topics, image.cluster,
    )) == {
        "foo": TopicMetadata(foo_topic_id, "foo", 1, mk_map_of_partition_racks(1)),
        "bar": TopicMetadata(bar_topic_id, "bar", 2, mk_map_of_partition_racks(2)),
    }

    assert consumer_group.is_subscribed_to_topic("foo")
    assert consumer_group.is_subscribed_to_topic("bar")

    consumer_group.remove_member("member1")
    assert not consumer_group.is_subscribed_to_topic("foo")

    consumer_group.remove_member("member2")
    assert not consumer_group.is_subscribed_to_topic("bar")


def test_as_described_group() -> None:
    snapshot_registry = SnapshotRegistry()
    group = ConsumerGroup(snapshot_registry, "group-id-1")
    snapshot_registry.get_or_create_snapshot(0)
    assert group.state_as_string(0) == str(State.EMPTY)

    group.update_member(ConsumerGroupMember.Builder("member1")
                        .set_subscribed_topic_names(["foo"])
                        .set_server_assignor_name("assignorName")
                        .build())
    group.update_member(ConsumerGroupMember.Builder("member2").build())
    snapshot_registry.get_or_create_snapshot(1)

    # Kafka's generated Member starts with epoch 0, empty client id and host, and empty assignments
    no_assignment = DescribeAssignment(topic_partitions=())
    expected = DescribedGroup(
        error_code=ErrorCode.none,
        group_id="group-id-1",
        group_state=str(State.STABLE),
        group_epoch=0,
        assignment_epoch=0,
        assignor_name="assignorName",
        members=(
            DescribeMember(member_id="member1", member_epoch=0, client_id="", client_host="",
                           subscribed_topic_names=("foo",), subscribed_topic_regex="",
                           assignment=no_assignment, target_assignment=no_assignment),
            DescribeMember(member_id="member2", member_epoch=0, client_id="", client_host="",
                           subscribed_topic_regex="", assignment=no_assignment, target_assignment=no_assignment),
        ),
    )
    actual = group.as_described_group(1, "", MetadataImageBuilder().build().topics)

    assert actual == expected


def test_is_in_states_case_insensitive() -> None:
    snapshot_registry = SnapshotRegistry()
    group = ConsumerGroup(snapshot_registry, "group-foo")
    snapshot_registry.get_or_create_snapshot(0)
    assert group.is_in_states({"empty"}, 0)
    assert not group.is_in_states({"Empty"}, 0)

    group.update_member(ConsumerGroupMember.Builder("member1").set_subscribed_topic_names(["foo"]).build())
    snapshot_registry.get_or_create_snapshot(1)
    assert group.is_in_states({"empty"}, 0)
    assert group.is_in_states({"stable"}, 1)
    assert not group.is_in_states({"empty"}, 1)


def test_classic_members_supported_protocols() -> None:
    consumer_group = create_consumer_group("foo")
    range_protocol = [ClassicProtocol(name="range", metadata=b"")]

    round_robin_and_range_protocols = [ClassicProtocol(name="roundrobin", metadata=b""),
                                       ClassicProtocol(name="range", metadata=b"")]

    member1 = (ConsumerGroupMember.Builder("member-1")
               .set_classic_member_metadata(ClassicMemberMetadata(supported_protocols=range_protocol))
               .build())
    consumer_group.update_member(member1)

    member2 = (ConsumerGroupMember.Builder("member-2")
               .set_classic_member_metadata(ClassicMemberMetadata(supported_protocols=round_robin_and_range_protocols))
               .build())
    consumer_group.update_member(member2)

    assert consumer_group.classic_members_supported_protocols().get("range") == 2
    assert consumer_group.classic_members_supported_protocols().get("roundrobin") == 1
    assert consumer_group.supports_classic_protocols(CONSUMER_PROTOCOL_TYPE, {"range", "sticky"})
    assert not consumer_group.supports_classic_protocols(CONSUMER_PROTOCOL_TYPE, {"sticky", "roundrobin"})

    member2 = (ConsumerGroupMember.Builder(member2)
               .set_classic_member_metadata(ClassicMemberMetadata(supported_protocols=range_protocol))
               .build())
    consumer_group.update_member(member2)

    assert consumer_group.classic_members_supported_protocols().get("range") == 2
    assert "roundrobin" not in consumer_group.classic_members_supported_protocols()

    member1 = (ConsumerGroupMember.Builder(member1)
               .set_classic_member_metadata(ClassicMemberMetadata(supported_protocols=round_robin_and_range_protocols))
               .build())
    consumer_group.update_member(member1)
    member2 = (ConsumerGroupMember.Builder(member2)
               .set_classic_member_metadata(ClassicMemberMetadata(supported_protocols=round_robin_and_range_protocols))
               .build())
    consumer_group.update_member(member2)

    assert consumer_group.classic_members_supported_protocols().get("range") == 2
    assert consumer_group.classic_members_supported_protocols().get("roundrobin") == 2
    assert consumer_group.supports_classic_protocols(CONSUMER_PROTOCOL_TYPE, {"sticky", "roundrobin"})


def test_num_classic_protocol_members() -> None:
    consumer_group = create_consumer_group("foo")
    protocols = [ClassicProtocol(name="range", metadata=b"")]

    # member-1 uses the classic protocol
    member1 = (ConsumerGroupMember.Builder("member-1")
               .set_classic_member_metadata(ClassicMemberMetadata(supported_protocols=protocols))
               .build())
    consumer_group.update_member(member1)
    assert consumer_group.num_classic_protocol_members() == 1

    # member-2 uses the consumer protocol
    member2 = ConsumerGroupMember.Builder("member-2").build()
    consumer_group.update_member(member2)
    assert consumer_group.num_classic_protocol_members() == 1
    assert not consumer_group.all_members_use_classic_protocol_except("member-1")
    assert consumer_group.all_members_use_classic_protocol_except("member-2")

    # member-2 and member-3, both on the consumer protocol
    consumer_group.remove_member(member1.member_id())
    member3 = ConsumerGroupMember.Builder("member-3").build()
    consumer_group.update_member(member3)
    assert consumer_group.num_classic_protocol_members() == 0
    assert not consumer_group.all_members_use_classic_protocol_except("member-2")

    # member-2 alone, now on the classic protocol
    consumer_group.remove_member(member2.member_id())
    member2 = (ConsumerGroupMember.Builder("member-2")
               .set_classic_member_metadata(ClassicMemberMetadata(supported_protocols=protocols))
               .build())
    consumer_group.update_member(member2)
    assert consumer_group.num_classic_protocol_members() == 1
