"""Port of clients/src/test/java/org/apache/kafka/clients/consumer/internals/ConsumerProtocolTest.java (Kafka 3.9).

Java's ByteBuffer user data is `bytes | None`; Optional is `X | None`; a serialized buffer is compared by its bytes.
Kafka writes its "future version" buffers with the legacy Schema/Struct types; here they are written field by field
with struct, in the same layout (the current version's fields, then one more).
"""

from __future__ import annotations

import struct

import pytest

from kafka_edu.v3_9.clients.clients.consumer.consumer_partition_assignor import (
    DEFAULT_GENERATION,
    Assignment,
    Subscription,
)
from kafka_edu.v3_9.clients.clients.consumer.internals import consumer_protocol
from kafka_edu.v3_9.clients.clients.consumer.internals.consumer_protocol import (
    ConsumerProtocolAssignment,
    ConsumerProtocolAssignmentTopicPartition,
    ConsumerProtocolSubscriptionTopicPartition,
)
from kafka_edu.v3_9.clients.common.network.java_nio import ByteBuffer
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9",
    "clients/src/test/java/org/apache/kafka/clients/consumer/internals/ConsumerProtocolTest.java",
    cases=["serializeDeserializeSubscriptionAllVersions", "serializeDeserializeMetadata",
           "serializeDeserializeMetadataAndGroupInstanceId", "serializeDeserializeNullSubscriptionUserData",
           "serializeSubscriptionShouldOrderTopics", "serializeSubscriptionShouldOrderOwnedPartitions",
           "deserializeOldSubscriptionVersion", "deserializeNewSubscriptionWithOldVersion",
           "deserializeFutureSubscriptionVersion", "serializeDeserializeAssignmentAllVersions",
           "serializeDeserializeConsumerProtocolAssignmentAllVersions", "serializeDeserializeAssignment",
           "deserializeNullAssignmentUserData", "deserializeFutureAssignmentVersion",
           "serializeDeserializeConsumerProtocolSubscriptionAllVersions"],
)

TP1 = TopicPartition("foo", 1)
TP2 = TopicPartition("bar", 2)
GROUP_INSTANCE_ID = "instance.id"
GENERATION_ID = 1
RACK_ID = "rack-a"

SUBSCRIPTION_VERSIONS = range(consumer_protocol.SUBSCRIPTION_LOWEST_SUPPORTED_VERSION,
                              consumer_protocol.SUBSCRIPTION_HIGHEST_SUPPORTED_VERSION + 1)
ASSIGNMENT_VERSIONS = range(consumer_protocol.ASSIGNMENT_LOWEST_SUPPORTED_VERSION,
                            consumer_protocol.ASSIGNMENT_HIGHEST_SUPPORTED_VERSION + 1)


def _string(value: str) -> bytes:
    encoded = value.encode()
    return struct.pack(">h", len(encoded)) + encoded


def _bytes(value: bytes) -> bytes:
    return struct.pack(">i", len(value)) + value


def _int32_array(values: list[int]) -> bytes:
    return struct.pack(">i", len(values)) + b"".join(struct.pack(">i", v) for v in values)


def test_serialize_deserialize_subscription_all_versions() -> None:
    owned_partitions = [TopicPartition("foo", 0), TopicPartition("bar", 0)]
    subscription = Subscription(["foo", "bar"], b"hello", owned_partitions, GENERATION_ID, RACK_ID)

    for version in SUBSCRIPTION_VERSIONS:
        buffer = consumer_protocol.serialize_subscription(subscription, version)
        parsed_subscription = consumer_protocol.deserialize_subscription(buffer)

        assert set(parsed_subscription.topics()) == set(subscription.topics())
        assert parsed_subscription.user_data() == subscription.user_data()
        assert parsed_subscription.group_instance_id() is None

        if version >= 1:
            assert set(parsed_subscription.owned_partitions()) == set(subscription.owned_partitions())
        else:
            assert parsed_subscription.owned_partitions() == []

        if version >= 2:
            generation_id = parsed_subscription.generation_id()
            assert (DEFAULT_GENERATION if generation_id is None else generation_id) == GENERATION_ID
        else:
            assert parsed_subscription.generation_id() is None

        if version >= 3:
            assert parsed_subscription.rack_id() == RACK_ID
        else:
            assert parsed_subscription.rack_id() is None


def test_serialize_deserialize_metadata() -> None:
    subscription = Subscription(["foo", "bar"], b"")
    buffer = consumer_protocol.serialize_subscription(subscription)
    parsed_subscription = consumer_protocol.deserialize_subscription(buffer)
    assert set(parsed_subscription.topics()) == set(subscription.topics())
    assert len(parsed_subscription.user_data()) == 0
    assert parsed_subscription.group_instance_id() is None
    assert parsed_subscription.generation_id() is None
    assert parsed_subscription.rack_id() is None


def test_serialize_deserialize_metadata_and_group_instance_id() -> None:
    subscription = Subscription(["foo", "bar"], b"")
    buffer = consumer_protocol.serialize_subscription(subscription)

    parsed_subscription = consumer_protocol.deserialize_subscription(buffer)
    parsed_subscription.set_group_instance_id(GROUP_INSTANCE_ID)
    assert set(parsed_subscription.topics()) == set(subscription.topics())
    assert len(parsed_subscription.user_data()) == 0
    assert parsed_subscription.group_instance_id() == GROUP_INSTANCE_ID
    assert parsed_subscription.generation_id() is None
    assert parsed_subscription.rack_id() is None


def test_serialize_deserialize_null_subscription_user_data() -> None:
    subscription = Subscription(["foo", "bar"], None)
    buffer = consumer_protocol.serialize_subscription(subscription)
    parsed_subscription = consumer_protocol.deserialize_subscription(buffer)
    assert set(parsed_subscription.topics()) == set(subscription.topics())
    assert parsed_subscription.user_data() is None
    assert parsed_subscription.rack_id() is None


def test_serialize_subscription_should_order_topics() -> None:
    assert (bytes(consumer_protocol.serialize_subscription(Subscription(["foo", "bar"], None, [TP1, TP2])).array())
            == bytes(consumer_protocol.serialize_subscription(Subscription(["bar", "foo"], None, [TP1, TP2])).array()))


def test_serialize_subscription_should_order_owned_partitions() -> None:
    assert (bytes(consumer_protocol.serialize_subscription(Subscription(["foo", "bar"], None, [TP1, TP2])).array())
            == bytes(consumer_protocol.serialize_subscription(Subscription(["foo", "bar"], None, [TP2, TP1])).array()))


def test_deserialize_old_subscription_version() -> None:
    subscription = Subscription(["foo", "bar"], None)
    buffer = consumer_protocol.serialize_subscription(subscription, 0)
    parsed_subscription = consumer_protocol.deserialize_subscription(buffer)
    # Kafka compares the parsed topics with themselves here
    assert set(parsed_subscription.topics()) == set(parsed_subscription.topics())
    assert parsed_subscription.user_data() is None
    assert parsed_subscription.owned_partitions() == []
    assert parsed_subscription.generation_id() is None
    assert parsed_subscription.rack_id() is None


@pytest.mark.parametrize("has_generation_id_and_rack", [True, False])
def test_deserialize_new_subscription_with_old_version(has_generation_id_and_rack: bool) -> None:
    if has_generation_id_and_rack:
        subscription = Subscription(["foo", "bar"], None, [TP2], GENERATION_ID, RACK_ID)
    else:
        subscription = Subscription(["foo", "bar"], None, [TP2])
    buffer = consumer_protocol.serialize_subscription(subscription)
    # skip the version, as an old reader that reads everything as V0 does
    consumer_protocol.deserialize_version(buffer)
    parsed_subscription = consumer_protocol.deserialize_subscription(buffer, 0)
    assert set(parsed_subscription.topics()) == set(subscription.topics())
    assert parsed_subscription.user_data() is None
    assert parsed_subscription.owned_partitions() == []
    assert parsed_subscription.group_instance_id() is None
    assert parsed_subscription.generation_id() is None
    assert parsed_subscription.rack_id() is None


def test_deserialize_future_subscription_version() -> None:
    buffer = generate_future_subscription_version_data()

    subscription = consumer_protocol.deserialize_subscription(buffer)
    subscription.set_group_instance_id(GROUP_INSTANCE_ID)
    assert set(subscription.topics()) == {"topic"}
    assert set(subscription.owned_partitions()) == {TP2}
    assert subscription.group_instance_id() == GROUP_INSTANCE_ID
    generation_id = subscription.generation_id()
    assert (DEFAULT_GENERATION if generation_id is None else generation_id) == GENERATION_ID
    assert subscription.rack_id() == RACK_ID


def test_serialize_deserialize_assignment_all_versions() -> None:
    partitions = [TP1, TP2]
    assignment = Assignment(partitions, b"hello")

    for version in ASSIGNMENT_VERSIONS:
        buffer = consumer_protocol.serialize_assignment(assignment, version)
        parsed_assignment = consumer_protocol.deserialize_assignment(buffer)
        assert set(parsed_assignment.partitions()) == set(partitions)
        assert parsed_assignment.user_data() == assignment.user_data()


def test_serialize_deserialize_consumer_protocol_assignment_all_versions() -> None:
    assignment = ConsumerProtocolAssignment(
        assigned_partitions=(
            ConsumerProtocolAssignmentTopicPartition(topic=TP1.topic, partitions=(TP1.partition,)),
            ConsumerProtocolAssignmentTopicPartition(topic=TP2.topic, partitions=(TP2.partition,)),
        ),
        user_data=b"hello",
    )

    for version in ASSIGNMENT_VERSIONS:
        buffer = consumer_protocol.serialize_assignment(assignment, version)
        parsed_assignment = consumer_protocol.deserialize_consumer_protocol_assignment(buffer)
        assert set(parsed_assignment.assigned_partitions) == set(assignment.assigned_partitions)
        assert parsed_assignment.user_data == assignment.user_data


def test_serialize_deserialize_assignment() -> None:
    partitions = [TP1, TP2]
    buffer = consumer_protocol.serialize_assignment(Assignment(partitions, b""))
    parsed_assignment = consumer_protocol.deserialize_assignment(buffer)
    assert set(parsed_assignment.partitions()) == set(partitions)
    assert len(parsed_assignment.user_data()) == 0


def test_deserialize_null_assignment_user_data() -> None:
    partitions = [TP1, TP2]
    buffer = consumer_protocol.serialize_assignment(Assignment(partitions, None))
    parsed_assignment = consumer_protocol.deserialize_assignment(buffer)
    assert set(parsed_assignment.partitions()) == set(partitions)
    assert parsed_assignment.user_data() is None


def test_deserialize_future_assignment_version() -> None:
    # a version 100 that appends a field "foo" still parses
    version = 100
    data = (struct.pack(">h", version)
            + struct.pack(">i", 1) + _string(TP1.topic) + _int32_array([TP1.partition])  # assigned_partitions
            + _bytes(b"")  # user_data
            + _string("bar"))  # foo
    buffer = ByteBuffer.wrap(data)

    assignment = consumer_protocol.deserialize_assignment(buffer)
    assert set(assignment.partitions()) == {TP1}


def test_serialize_deserialize_consumer_protocol_subscription_all_versions() -> None:
    owned_partitions = [TopicPartition("foo", 0), TopicPartition("bar", 0)]
    subscription = Subscription(["foo", "bar"], b"hello", owned_partitions, GENERATION_ID, RACK_ID)

    for version in SUBSCRIPTION_VERSIONS:
        buffer = consumer_protocol.serialize_subscription(subscription, version)
        parsed_subscription = consumer_protocol.deserialize_consumer_protocol_subscription(buffer)

        assert set(parsed_subscription.topics) == set(subscription.topics())
        assert parsed_subscription.user_data == subscription.user_data()

        if version >= 1:
            assert set(parsed_subscription.owned_partitions) == {
                ConsumerProtocolSubscriptionTopicPartition(topic="foo", partitions=(0,)),
                ConsumerProtocolSubscriptionTopicPartition(topic="bar", partitions=(0,)),
            }
        else:
            assert parsed_subscription.owned_partitions == ()

        if version >= 2:
            assert parsed_subscription.generation_id == GENERATION_ID
        else:
            assert parsed_subscription.generation_id == DEFAULT_GENERATION

        if version >= 3:
            assert parsed_subscription.rack_id == RACK_ID
        else:
            assert parsed_subscription.rack_id is None


def generate_future_subscription_version_data() -> ByteBuffer:
    # a version 100 that appends a field "bar" still parses
    version = 100
    data = (struct.pack(">h", version)
            + struct.pack(">i", 1) + _string("topic")  # topics
            + _bytes(b"")  # user_data
            + struct.pack(">i", 1) + _string(TP2.topic) + _int32_array([TP2.partition])  # owned_partitions
            + struct.pack(">i", GENERATION_ID)  # generation_id
            + _string(RACK_ID)  # rack_id
            + _string("bar"))  # bar
    return ByteBuffer.wrap(data)
