"""Port of clients/src/main/java/org/apache/kafka/clients/consumer/internals/ConsumerProtocol.java (Kafka 3.9).

The "consumer" protocol type's JoinGroup metadata (a subscription) and SyncGroup assignment: an int16 version,
then ConsumerProtocolSubscription or ConsumerProtocolAssignment at that version. The messages are kio's; kio has a
class per version, so what is read is returned as the highest version's class with the fields the read version
lacks at their defaults (as Kafka's single generated class holds them). Buffers are java_nio.ByteBuffer: reading
moves the position, as in Kafka, so that the version and then the body are read from the same buffer.
"""

from __future__ import annotations

import dataclasses
import io
import struct
import sys
from typing import Any

from kio.schema.consumer_protocol_assignment.v0 import data as assignment_v0
from kio.schema.consumer_protocol_assignment.v1 import data as assignment_v1
from kio.schema.consumer_protocol_assignment.v2 import data as assignment_v2
from kio.schema.consumer_protocol_assignment.v3 import data as assignment_v3
from kio.schema.consumer_protocol_subscription.v0 import data as subscription_v0
from kio.schema.consumer_protocol_subscription.v1 import data as subscription_v1
from kio.schema.consumer_protocol_subscription.v2 import data as subscription_v2
from kio.schema.consumer_protocol_subscription.v3 import data as subscription_v3
from kio.serial import entity_reader, entity_writer
from kio.serial.errors import BufferUnderflow

from kafka_edu.v3_9.clients.clients.consumer.consumer_partition_assignor import Assignment, Subscription
from kafka_edu.v3_9.clients.common.network.java_nio import ByteBuffer
from kafka_edu.v3_9.clients.common.protocol.types.schema_exception import SchemaException
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition

PROTOCOL_TYPE = "consumer"

ConsumerProtocolSubscription = subscription_v3.ConsumerProtocolSubscription
ConsumerProtocolAssignment = assignment_v3.ConsumerProtocolAssignment
# the nested TopicPartition structs, Java's ConsumerProtocolSubscription.TopicPartition and its Assignment twin
ConsumerProtocolSubscriptionTopicPartition = subscription_v3.TopicPartition
ConsumerProtocolAssignmentTopicPartition = assignment_v3.TopicPartition

_SUBSCRIPTION_VERSIONS: tuple[Any, ...] = (subscription_v0, subscription_v1, subscription_v2, subscription_v3)
_ASSIGNMENT_VERSIONS: tuple[Any, ...] = (assignment_v0, assignment_v1, assignment_v2, assignment_v3)
SUBSCRIPTION_LOWEST_SUPPORTED_VERSION = 0
SUBSCRIPTION_HIGHEST_SUPPORTED_VERSION = len(_SUBSCRIPTION_VERSIONS) - 1
ASSIGNMENT_LOWEST_SUPPORTED_VERSION = 0
ASSIGNMENT_HIGHEST_SUPPORTED_VERSION = len(_ASSIGNMENT_VERSIONS) - 1

# both halves of the protocol move in step: a member's metadata version picks its assignment version
if (SUBSCRIPTION_LOWEST_SUPPORTED_VERSION, SUBSCRIPTION_HIGHEST_SUPPORTED_VERSION) != (
        ASSIGNMENT_LOWEST_SUPPORTED_VERSION, ASSIGNMENT_HIGHEST_SUPPORTED_VERSION):
    raise RuntimeError("Subscription and Assignment schemas must have the same lowest and highest version")

_SHORT = struct.Struct(">h")


def deserialize_version(buffer: ByteBuffer) -> int:
    if buffer.remaining() < _SHORT.size:
        raise SchemaException("Buffer underflow while parsing consumer protocol's header")
    position = buffer.position()
    version = _SHORT.unpack_from(buffer.array(), position)[0]
    buffer.position(position + _SHORT.size)
    return version


def serialize_subscription(subscription: Subscription,
                           version: int = SUBSCRIPTION_HIGHEST_SUPPORTED_VERSION) -> ByteBuffer:
    version = _check_subscription_version(version)

    # sorted, so that the same subscription always serializes to the same bytes
    owned: dict[str, list[int]] = {}
    for tp in sorted(subscription.owned_partitions(), key=lambda tp: (tp.topic, tp.partition)):
        owned.setdefault(tp.topic, []).append(tp.partition)
    generation_id = subscription.generation_id()
    data = ConsumerProtocolSubscription(
        topics=tuple(sorted(subscription.topics())),
        user_data=subscription.user_data(),
        owned_partitions=tuple(subscription_v3.TopicPartition(topic=topic, partitions=tuple(partitions))
                               for topic, partitions in owned.items()),
        generation_id=-1 if generation_id is None else generation_id,
        rack_id=subscription.rack_id(),
    )
    return _to_version_prefixed_byte_buffer(version, _SUBSCRIPTION_VERSIONS[version].ConsumerProtocolSubscription,
                                            data)


def deserialize_subscription(buffer: ByteBuffer, version: int | None = None) -> Subscription:
    """Kafka's two overloads: without a version, the buffer's own prefix gives it."""
    data = deserialize_consumer_protocol_subscription(buffer, version)
    owned_partitions = [TopicPartition(tp.topic, partition)
                        for tp in data.owned_partitions for partition in tp.partitions]
    return Subscription(
        list(data.topics),
        data.user_data,
        owned_partitions,
        data.generation_id,
        None if not data.rack_id else data.rack_id,
    )


def deserialize_consumer_protocol_subscription(buffer: ByteBuffer,
                                               version: int | None = None) -> ConsumerProtocolSubscription:
    if version is None:
        version = deserialize_version(buffer)
    version = _check_subscription_version(version)
    try:
        read = _read(buffer, _SUBSCRIPTION_VERSIONS[version].ConsumerProtocolSubscription)
    except BufferUnderflow as e:
        raise SchemaException("Buffer underflow while parsing consumer protocol's subscription") from e
    return ConsumerProtocolSubscription(
        topics=read.topics,
        user_data=read.user_data,
        owned_partitions=tuple(subscription_v3.TopicPartition(topic=tp.topic, partitions=tp.partitions)
                               for tp in getattr(read, "owned_partitions", ())),
        generation_id=getattr(read, "generation_id", -1),
        rack_id=getattr(read, "rack_id", None),
    )


def serialize_assignment(assignment: Assignment | ConsumerProtocolAssignment,
                         version: int = ASSIGNMENT_HIGHEST_SUPPORTED_VERSION) -> ByteBuffer:
    """Kafka's overloads: an Assignment (its partitions grouped by topic, topics in first-seen order) or a
    ready ConsumerProtocolAssignment."""
    version = _check_assignment_version(version)
    if isinstance(assignment, Assignment):
        by_topic: dict[str, list[int]] = {}
        for tp in assignment.partitions():
            by_topic.setdefault(tp.topic, []).append(tp.partition)
        assignment = ConsumerProtocolAssignment(
            assigned_partitions=tuple(assignment_v3.TopicPartition(topic=topic, partitions=tuple(partitions))
                                      for topic, partitions in by_topic.items()),
            user_data=assignment.user_data(),
        )
    return _to_version_prefixed_byte_buffer(version, _ASSIGNMENT_VERSIONS[version].ConsumerProtocolAssignment,
                                            assignment)


def deserialize_assignment(buffer: ByteBuffer, version: int | None = None) -> Assignment:
    data = deserialize_consumer_protocol_assignment(buffer, version)
    assigned_partitions = [TopicPartition(tp.topic, partition)
                           for tp in data.assigned_partitions for partition in tp.partitions]
    return Assignment(assigned_partitions, data.user_data)


def deserialize_consumer_protocol_assignment(buffer: ByteBuffer,
                                             version: int | None = None) -> ConsumerProtocolAssignment:
    if version is None:
        version = deserialize_version(buffer)
    version = _check_assignment_version(version)
    try:
        read = _read(buffer, _ASSIGNMENT_VERSIONS[version].ConsumerProtocolAssignment)
    except BufferUnderflow as e:
        raise SchemaException("Buffer underflow while parsing consumer protocol's assignment") from e
    return ConsumerProtocolAssignment(
        assigned_partitions=tuple(assignment_v3.TopicPartition(topic=tp.topic, partitions=tp.partitions)
                                  for tp in read.assigned_partitions),
        user_data=read.user_data,
    )


def _check_subscription_version(version: int) -> int:
    if version < SUBSCRIPTION_LOWEST_SUPPORTED_VERSION:
        raise SchemaException(f"Unsupported subscription version: {version}")
    # a newer version is read as the newest known one: versions only ever append fields
    return min(version, SUBSCRIPTION_HIGHEST_SUPPORTED_VERSION)


def _check_assignment_version(version: int) -> int:
    if version < ASSIGNMENT_LOWEST_SUPPORTED_VERSION:
        raise SchemaException(f"Unsupported assignment version: {version}")
    return min(version, ASSIGNMENT_HIGHEST_SUPPORTED_VERSION)


def _read(buffer: ByteBuffer, message_class: type[Any]) -> Any:
    view = memoryview(buffer.array())[:buffer.limit()]
    message, size = entity_reader(message_class)(view, buffer.position())
    buffer.position(buffer.position() + size)
    return message


def _to_version_prefixed_byte_buffer(version: int, message_class: type[Any], data: Any) -> ByteBuffer:
    """MessageUtil.toVersionPrefixedByteBuffer. Every field newer than the version is ignorable in both messages,
    so a field the version has not got is dropped rather than refused."""
    kept = {field.name: getattr(data, field.name) for field in dataclasses.fields(message_class)}
    for name, value in list(kept.items()):
        # nested structs are one kio class per version too
        if isinstance(value, tuple) and value and dataclasses.is_dataclass(value[0]):
            nested_class = type(value[0]).__name__
            nested = getattr(sys.modules[message_class.__module__], nested_class)
            kept[name] = tuple(nested(**dataclasses.asdict(item)) for item in value)
    out = io.BytesIO()
    out.write(_SHORT.pack(version))
    entity_writer(message_class)(out, message_class(**kept))
    return ByteBuffer.wrap(out.getvalue())

