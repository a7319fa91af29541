"""Our own tests, not a Kafka port: the online upgrade and downgrade between a classic group and a consumer group
(Kafka 3.9's ConsumerGroup.fromClassicGroup and ClassicGroup.fromConsumerGroup). Kafka tests them only through
GroupMetadataManagerTest, which the port has not got; ConsumerGroupTest and ClassicGroupTest have no case for them."""

from __future__ import annotations

import uuid

from kio.schema.join_group.v9.request import JoinGroupRequestProtocol

from kafka_edu.v3_9.clients.clients.consumer.consumer_partition_assignor import Assignment, Subscription
from kafka_edu.v3_9.clients.clients.consumer.internals import consumer_protocol
from kafka_edu.v3_9.clients.common.network.java_nio import ByteBuffer
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.group_coordinator.coordinator.group import coordinator_record_helpers
from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import ClassicGroup
from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_member import ClassicGroupMember
from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record import CoordinatorRecord
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_member_metadata_value import (
    ClassicMemberMetadata,
    ClassicProtocol,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.assignment import Assignment as TargetAssignment
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.consumer.consumer_group import ConsumerGroup
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.consumer.consumer_group_member import (
    ConsumerGroupMember,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.member_state import MemberState
from kafka_edu.v3_9.server_common.server.common.metadata_version import LATEST_PRODUCTION
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import SnapshotRegistry
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.metadata_image_builder import MetadataImageBuilder

FOO_ID = uuid.uuid4()
BAR_ID = uuid.uuid4()
IMAGE = MetadataImageBuilder().add_topic(FOO_ID, "foo", 6).add_topic(BAR_ID, "bar", 3).build()


def subscription(topics: list[str], rack_id: str | None = None, version: int = 3) -> bytes:
    return bytes(consumer_protocol.serialize_subscription(
        Subscription(topics, None, [], -1, rack_id), version).array())


def assignment(partitions: list[TopicPartition], version: int = 3) -> bytes:
    return bytes(consumer_protocol.serialize_assignment(Assignment(partitions), version).array())


def classic_group_of_two(time: MockTime) -> ClassicGroup:
    group = ClassicGroup("", "group-id", ClassicGroupState.EMPTY, time)
    member1 = ClassicGroupMember(
        "member-1", "instance-1", "client-1", "host-1", 30000, 45000, "consumer",
        [JoinGroupRequestProtocol(name="range", metadata=subscription(["foo", "bar"], "rack-a"))],
        assignment([TopicPartition("foo", 0), TopicPartition("foo", 1), TopicPartition("bar", 0)]))
    member2 = ClassicGroupMember(
        "member-2", None, "client-2", "host-2", 40000, 50000, "consumer",
        [JoinGroupRequestProtocol(name="range", metadata=subscription(["foo"])),
         JoinGroupRequestProtocol(name="roundrobin", metadata=subscription(["foo"]))],
        assignment([TopicPartition("foo", 2), TopicPartition("gone", 0)]))
    group.add(member1)
    group.add(member2)
    group.transition_to(ClassicGroupState.PREPARING_REBALANCE)
    group.init_next_generation()
    group.transition_to(ClassicGroupState.STABLE)
    return group


def test_from_classic_group_makes_every_member_stable_at_the_generation_with_its_assignment() -> None:
    classic_group = classic_group_of_two(MockTime())

    consumer_group = ConsumerGroup.from_classic_group(SnapshotRegistry(), classic_group, IMAGE.topics)

    assert consumer_group.group_id() == "group-id"
    assert consumer_group.group_epoch() == 1
    assert consumer_group.assignment_epoch() == 1
    assert consumer_group.state() == ConsumerGroup.ConsumerGroupState.STABLE
    member1 = consumer_group.members()["member-1"]
    assert member1 == (ConsumerGroupMember.Builder("member-1")
                       .set_member_epoch(1)
                       .set_previous_member_epoch(1)
                       .set_state(MemberState.STABLE)
                       .set_instance_id("instance-1")
                       .set_rack_id("rack-a")
                       .set_rebalance_timeout_ms(30000)
                       .set_client_id("client-1")
                       .set_client_host("host-1")
                       .set_subscribed_topic_names(["foo", "bar"])
                       .set_assigned_partitions({FOO_ID: {0, 1}, BAR_ID: {0}})
                       .set_classic_member_metadata(ClassicMemberMetadata(
                           session_timeout_ms=45000,
                           supported_protocols=(ClassicProtocol(
                               name="range", metadata=subscription(["foo", "bar"], "rack-a")),)))
                       .build())
    member2 = consumer_group.members()["member-2"]
    # a topic the image does not know is dropped from the assignment
    assert member2.assigned_partitions() == {FOO_ID: {2}}
    assert member2.rack_id() is None
    assert member2.instance_id() is None
    assert member2.classic_protocol_session_timeout() == 50000
    assert [p.name for p in member2.supported_classic_protocols()] == ["range", "roundrobin"]
    assert consumer_group.target_assignment("member-1") == TargetAssignment({FOO_ID: {0, 1}, BAR_ID: {0}})
    assert consumer_group.target_assignment("member-2") == TargetAssignment({FOO_ID: {2}})
    assert consumer_group.static_member_id("instance-1") == "member-1"
    assert consumer_group.num_classic_protocol_members() == 2


def consumer_group_with_one_consumer_protocol_member() -> ConsumerGroup:
    group = ConsumerGroup(SnapshotRegistry(), "group-id")
    classic_member = (ConsumerGroupMember.Builder("classic-member")
                      .set_member_epoch(10)
                      .set_previous_member_epoch(9)
                      .set_instance_id("instance")
                      .set_rebalance_timeout_ms(20000)
                      .set_client_id("client")
                      .set_client_host("host")
                      .set_subscribed_topic_names(["foo", "bar"])
                      .set_assigned_partitions({FOO_ID: {0, 1}, BAR_ID: {2}})
                      .set_classic_member_metadata(ClassicMemberMetadata(
                          session_timeout_ms=5000,
                          supported_protocols=(
                              # an old client: its metadata, and so its assignment, is consumer protocol version 1
                              ClassicProtocol(name="range", metadata=subscription(["foo", "bar"], version=1)),)))
                      .build())
    leaving_member = (ConsumerGroupMember.Builder("leaving-member")
                      .set_member_epoch(10)
                      .set_previous_member_epoch(9)
                      .set_rebalance_timeout_ms(20000)
                      .set_client_id("client")
                      .set_client_host("host")
                      .set_subscribed_topic_names(["foo"])
                      .set_assigned_partitions({FOO_ID: {2}})
                      .build())
    group.update_member(classic_member)
    group.update_member(leaving_member)
    group.update_target_assignment("classic-member", TargetAssignment({FOO_ID: {0, 1}, BAR_ID: {2}}))
    group.update_target_assignment("leaving-member", TargetAssignment({FOO_ID: {2}}))
    group.set_group_epoch(10)
    group.set_target_assignment_epoch(10)
    return group


def test_from_consumer_group_keeps_the_classic_members_with_their_target_assignment_serialized() -> None:
    time = MockTime()
    consumer_group = consumer_group_with_one_consumer_protocol_member()

    classic_group = ClassicGroup.from_consumer_group(consumer_group, "leaving-member", "", time, IMAGE)

    assert classic_group.group_id() == "group-id"
    assert classic_group.current_state() == ClassicGroupState.STABLE
    assert classic_group.generation_id() == 10
    assert classic_group.protocol_type() == "consumer"
    assert classic_group.protocol_name() == "range"
    assert classic_group.current_state_timestamp_or_default() == time.milliseconds()
    assert set(classic_group.all_member_ids()) == {"classic-member"}
    assert classic_group.is_leader("classic-member")
    assert classic_group.static_member_id("instance") == "classic-member"
    assert classic_group.subscribed_topics() == {"foo", "bar"}

    member = classic_group.member("classic-member")
    assert member.session_timeout_ms() == 5000
    assert member.rebalance_timeout_ms() == 20000
    assert member.group_instance_id() == "instance"
    buffer = ByteBuffer.wrap(member.assignment())
    # the assignment is written in the consumer protocol version the member's metadata uses
    assert consumer_protocol.deserialize_version(buffer) == 1
    partitions = consumer_protocol.deserialize_assignment(buffer, 1).partitions()
    assert sorted(partitions) == [TopicPartition("bar", 2), TopicPartition("foo", 0), TopicPartition("foo", 1)]


def test_a_downgraded_group_upgrades_back_to_the_same_assignment() -> None:
    consumer_group = consumer_group_with_one_consumer_protocol_member()
    classic_group = ClassicGroup.from_consumer_group(consumer_group, "leaving-member", "", MockTime(), IMAGE)

    upgraded = ConsumerGroup.from_classic_group(SnapshotRegistry(), classic_group, IMAGE.topics)

    assert upgraded.group_epoch() == 10
    assert set(upgraded.members()) == {"classic-member"}
    member = upgraded.members()["classic-member"]
    assert member.assigned_partitions() == {FOO_ID: {0, 1}, BAR_ID: {2}}
    assert member.subscribed_topic_names() == {"foo", "bar"}
    assert upgraded.target_assignment("classic-member") == TargetAssignment({FOO_ID: {0, 1}, BAR_ID: {2}})


def test_a_downgraded_group_is_written_as_one_group_metadata_record_and_deleted_by_its_tombstone() -> None:
    consumer_group = consumer_group_with_one_consumer_protocol_member()
    classic_group = ClassicGroup.from_consumer_group(consumer_group, "leaving-member", "", MockTime(), IMAGE)

    records: list[CoordinatorRecord] = []
    classic_group.create_classic_group_records(LATEST_PRODUCTION, records)

    assert records == [coordinator_record_helpers.new_group_metadata_record(
        classic_group, {"classic-member": classic_group.member("classic-member").assignment()}, LATEST_PRODUCTION)]
    value = records[0].value().message
    assert value.generation == 10
    assert value.protocol == "range"
    assert [member.member_id for member in value.members] == ["classic-member"]

    tombstones: list[CoordinatorRecord] = []
    classic_group.create_group_tombstone_records(tombstones)
    assert tombstones == [coordinator_record_helpers.new_group_metadata_tombstone_record("group-id")]
