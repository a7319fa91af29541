"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/modern/consumer/
ConsumerGroupMemberTest.java (Kafka 3.9).

AssignmentTestUtil's helpers come from its port, assignment_test_util; topic ids are uuid.UUID
(Uuid.randomUuid() -> uuid.uuid4()). Kafka's ConsumerGroupDescribeResponseData.Member is kio's
frozen dataclass, which has no defaults for some fields: an expected Member spells out the values Kafka's generated
class starts with (epoch 0, empty client id and host, empty assignments). Optional.empty() arguments are None.
"""

from __future__ import annotations

import uuid

from kio.schema.consumer_group_describe.v0.response import Assignment as DescribeAssignment
from kio.schema.consumer_group_describe.v0.response import Member as DescribeMember
from kio.schema.consumer_group_describe.v0.response import TopicPartitions as DescribeTopicPartitions
from kio.schema.join_group.v9.request import JoinGroupRequestProtocol

from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_current_member_assignment_value import (  # noqa: E501
    ConsumerGroupCurrentMemberAssignmentValue,
    TopicPartitions,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_member_metadata_value import (
    ClassicMemberMetadata,
    ClassicProtocol,
    ConsumerGroupMemberMetadataValue,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.assignment import Assignment
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.consumer.consumer_group_member import (
    ConsumerGroupMember,
)
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.assignment_test_util import (
    mk_assignment,
    mk_topic_assignment,
)
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.metadata_image_builder import MetadataImageBuilder

KAFKA = kafka_test_class(
    "3.9",
    "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/modern/consumer/ConsumerGroupMemberTest.java",
    cases=[
        "testNewMember",
        "testEquals",
        "testUpdateMember",
        "testUpdateWithConsumerGroupMemberMetadataValue",
        "testUpdateWithConsumerGroupCurrentMemberAssignmentValue",
        "testAsConsumerGroupDescribeMember",
        "testAsConsumerGroupDescribeWithTargetAssignmentNull",
        "testAsConsumerGroupDescribeWithTopicNameNotFound",
        "testClassicProtocolListFromJoinRequestProtocolCollection",
    ],
)

classic_protocol_list_from_join_request_protocol_collection = (
    ConsumerGroupMember.classic_protocol_list_from_join_request_protocol_collection)


def _full_member(topic_id1: uuid.UUID, topic_id2: uuid.UUID) -> ConsumerGroupMember:
    # the member every case but the record ones starts from, built field by field as Kafka's cases do
    return (ConsumerGroupMember.Builder("member-id")
            .set_member_epoch(10)
            .set_previous_member_epoch(9)
            .set_instance_id("instance-id")
            .set_rack_id("rack-id")
            .set_rebalance_timeout_ms(5000)
            .set_client_id("client-id")
            .set_client_host("hostname")
            .set_subscribed_topic_names(["foo", "bar"])
            .set_subscribed_topic_regex("regex")
            .set_server_assignor_name("range")
            .set_assigned_partitions(mk_assignment(
                mk_topic_assignment(topic_id1, 1, 2, 3)))
            .set_partitions_pending_revocation(mk_assignment(
                mk_topic_assignment(topic_id2, 4, 5, 6)))
            .set_classic_member_metadata(ClassicMemberMetadata(
                supported_protocols=to_classic_protocol_collection("range")))
            .build())


def test_new_member() -> None:
    topic_id1 = uuid.uuid4()
    topic_id2 = uuid.uuid4()

    member = _full_member(topic_id1, topic_id2)

    assert member.member_id() == "member-id"
    assert member.member_epoch() == 10
    assert member.previous_member_epoch() == 9
    assert member.instance_id() == "instance-id"
    assert member.rack_id() == "rack-id"
    assert member.client_id() == "client-id"
    assert member.client_host() == "hostname"
    assert member.subscribed_topic_names() == {"bar", "foo"}
    assert member.subscribed_topic_regex() == "regex"
    assert member.server_assignor_name() == "range"
    assert member.assigned_partitions() == mk_assignment(mk_topic_assignment(topic_id1, 1, 2, 3))
    assert member.partitions_pending_revocation() == mk_assignment(mk_topic_assignment(topic_id2, 4, 5, 6))
    assert member.classic_member_metadata() == ClassicMemberMetadata(
        supported_protocols=to_classic_protocol_collection("range"))
    assert member.supported_classic_protocols() == to_classic_protocol_collection("range")


def test_equals() -> None:
    topic_id1 = uuid.uuid4()
    topic_id2 = uuid.uuid4()

    member1 = _full_member(topic_id1, topic_id2)
    member2 = _full_member(topic_id1, topic_id2)

    assert member1 == member2


def test_update_member() -> None:
    topic_id1 = uuid.uuid4()
    topic_id2 = uuid.uuid4()

    member = _full_member(topic_id1, topic_id2)

    # nothing given: nothing changes
    updated_member = (ConsumerGroupMember.Builder(member)
                      .maybe_update_rack_id(None)
                      .maybe_update_instance_id(None)
                      .maybe_update_server_assignor_name(None)
                      .maybe_update_subscribed_topic_names(None)
                      .maybe_update_subscribed_topic_regex(None)
                      .maybe_update_rebalance_timeout_ms(None)
                      .build())

    assert updated_member == member

    updated_member = (ConsumerGroupMember.Builder(member)
                      .maybe_update_rack_id("new-rack-id")
                      .maybe_update_instance_id("new-instance-id")
                      .maybe_update_server_assignor_name("new-assignor")
                      .maybe_update_subscribed_topic_names(["zar"])
                      .maybe_update_subscribed_topic_regex("new-regex")
                      .maybe_update_rebalance_timeout_ms(6000)
                      .build())

    assert updated_member.instance_id() == "new-instance-id"
    assert updated_member.rack_id() == "new-rack-id"
    assert updated_member.subscribed_topic_names() == {"zar"}
    assert updated_member.subscribed_topic_regex() == "new-regex"
    assert updated_member.server_assignor_name() == "new-assignor"


def test_update_with_consumer_group_member_metadata_value() -> None:
    record = ConsumerGroupMemberMetadataValue(
        server_assignor="range",
        client_id="client-id",
        client_host="host-id",
        instance_id="instance-id",
        rack_id="rack-id",
        rebalance_timeout_ms=1000,
        subscribed_topic_names=["foo", "bar"],
        subscribed_topic_regex="regex",
        classic_member_metadata=ClassicMemberMetadata(supported_protocols=to_classic_protocol_collection("range")),
    )

    member = ConsumerGroupMember.Builder("member-id").update_with(record).build()

    assert member.instance_id() == "instance-id"
    assert member.rack_id() == "rack-id"
    assert member.client_id() == "client-id"
    assert member.client_host() == "host-id"
    assert member.subscribed_topic_names() == {"bar", "foo"}
    assert member.subscribed_topic_regex() == "regex"
    assert member.server_assignor_name() == "range"
    assert member.classic_member_metadata() == ClassicMemberMetadata(
        supported_protocols=to_classic_protocol_collection("range"))


def test_update_with_consumer_group_current_member_assignment_value() -> None:
    topic_id1 = uuid.uuid4()
    topic_id2 = uuid.uuid4()

    record = ConsumerGroupCurrentMemberAssignmentValue(
        member_epoch=10,
        previous_member_epoch=9,
        assigned_partitions=[TopicPartitions(topic_id=topic_id1, partitions=[0, 1, 2])],
        partitions_pending_revocation=[TopicPartitions(topic_id=topic_id2, partitions=[3, 4, 5])],
    )

    member = ConsumerGroupMember.Builder("member-id").update_with(record).build()

    assert member.member_epoch() == 10
    assert member.previous_member_epoch() == 9
    assert member.assigned_partitions() == mk_assignment(mk_topic_assignment(topic_id1, 0, 1, 2))
    assert member.partitions_pending_revocation() == mk_assignment(mk_topic_assignment(topic_id2, 3, 4, 5))


def test_as_consumer_group_describe_member() -> None:
    topic_id1 = uuid.uuid4()
    topic_id2 = uuid.uuid4()
    topic_id3 = uuid.uuid4()
    topic_id4 = uuid.uuid4()
    metadata_image = (MetadataImageBuilder()
                      .add_topic(topic_id1, "topic1", 3)
                      .add_topic(topic_id2, "topic2", 3)
                      .add_topic(topic_id3, "topic3", 3)
                      .add_topic(topic_id4, "topic4", 3)
                      .build())
    assigned_partitions = [0, 1, 2]
    epoch = 10
    record = ConsumerGroupCurrentMemberAssignmentValue(
        member_epoch=epoch,
        previous_member_epoch=epoch - 1,
        assigned_partitions=[TopicPartitions(topic_id=topic_id1, partitions=assigned_partitions)],
        partitions_pending_revocation=[TopicPartitions(topic_id=topic_id2, partitions=[3, 4, 5])],
    )
    member_id = str(Uuid.random_uuid())
    client_id = "clientId"
    instance_id = "instanceId"
    rack_id = "rackId"
    client_host = "clientHost"
    subscribed_topic_names = ["topic1", "topic2"]
    subscribed_topic_regex = "topic.*"
    assignment_map = {topic_id4: set(assigned_partitions)}
    target_assignment = Assignment(assignment_map)
    member = (ConsumerGroupMember.Builder(member_id)
              .update_with(record)
              .set_client_id(client_id)
              .set_instance_id(instance_id)
              .set_rack_id(rack_id)
              .set_client_host(client_host)
              .set_subscribed_topic_names(subscribed_topic_names)
              .set_subscribed_topic_regex(subscribed_topic_regex)
              .build())

    actual = member.as_consumer_group_describe_member(target_assignment, metadata_image.topics)
    expected = DescribeMember(
        member_id=member_id,
        member_epoch=epoch,
        client_id=client_id,
        instance_id=instance_id,
        rack_id=rack_id,
        client_host=client_host,
        subscribed_topic_names=tuple(subscribed_topic_names),
        subscribed_topic_regex=subscribed_topic_regex,
        assignment=DescribeAssignment(topic_partitions=(
            DescribeTopicPartitions(topic_id=topic_id1, topic_name="topic1", partitions=tuple(assigned_partitions)),
        )),
        target_assignment=DescribeAssignment(topic_partitions=tuple(
            DescribeTopicPartitions(topic_id=topic_id, topic_name="topic4", partitions=tuple(partitions))
            for topic_id, partitions in target_assignment.partitions().items()
        )),
    )

    assert actual == expected


def test_as_consumer_group_describe_with_target_assignment_null() -> None:
    member = ConsumerGroupMember.Builder(str(Uuid.random_uuid())).build()

    consumer_group_describe_member = member.as_consumer_group_describe_member(
        None, MetadataImageBuilder().build().topics)

    assert consumer_group_describe_member.target_assignment == DescribeAssignment(topic_partitions=())


def test_as_consumer_group_describe_with_topic_name_not_found() -> None:
    member_id = Uuid.random_uuid()
    record = ConsumerGroupCurrentMemberAssignmentValue(
        assigned_partitions=[TopicPartitions(topic_id=uuid.uuid4(), partitions=[0, 1, 2])],
    )
    member = ConsumerGroupMember.Builder(str(member_id)).update_with(record).build()

    # Kafka's expected Member sets only the id and the regex; the rest are its generated class's defaults
    expected = DescribeMember(
        member_id=str(member_id),
        subscribed_topic_regex="",
        member_epoch=0,
        client_id="",
        client_host="",
        assignment=DescribeAssignment(topic_partitions=()),
        target_assignment=DescribeAssignment(topic_partitions=()),
    )
    actual = member.as_consumer_group_describe_member(
        None, MetadataImageBuilder().add_topic(uuid.uuid4(), "foo", 3).build().topics)
    assert actual == expected


def test_classic_protocol_list_from_join_request_protocol_collection() -> None:
    protocols = [JoinGroupRequestProtocol(name="range", metadata=bytes([1, 2, 3]))]

    assert classic_protocol_list_from_join_request_protocol_collection(protocols) == (
        to_classic_protocol_collection("range"))


def to_classic_protocol_collection(name: str) -> list[ClassicProtocol]:
    return [ClassicProtocol(name=name, metadata=bytes([1, 2, 3]))]
