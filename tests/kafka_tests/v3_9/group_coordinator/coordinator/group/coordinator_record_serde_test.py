"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/CoordinatorRecordSerdeTest.java
(Kafka 3.9).

MessageUtil.toVersionPrefixedBytes/ByteBuffer is message_codec.to_version_prefixed_bytes; a ByteBuffer is bytes.
Java's RuntimeException is RuntimeError (UnknownRecordTypeException is one too).
"""

from __future__ import annotations

import struct
from typing import Any

import pytest

from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record import CoordinatorRecord
from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record_serde import CoordinatorRecordSerde
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_current_member_assignment_key import (  # noqa: E501
    ConsumerGroupCurrentMemberAssignmentKey,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_current_member_assignment_value import (  # noqa: E501
    ConsumerGroupCurrentMemberAssignmentValue,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_member_metadata_key import (
    ConsumerGroupMemberMetadataKey,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_member_metadata_value import (
    ConsumerGroupMemberMetadataValue,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_metadata_key import (
    ConsumerGroupMetadataKey,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_metadata_value import (
    ConsumerGroupMetadataValue,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_partition_metadata_key import (
    ConsumerGroupPartitionMetadataKey,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_partition_metadata_value import (
    ConsumerGroupPartitionMetadataValue,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_target_assignment_member_key import (  # noqa: E501
    ConsumerGroupTargetAssignmentMemberKey,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_target_assignment_member_value import (  # noqa: E501
    ConsumerGroupTargetAssignmentMemberValue,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_target_assignment_metadata_key import (  # noqa: E501
    ConsumerGroupTargetAssignmentMetadataKey,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_target_assignment_metadata_value import (  # noqa: E501
    ConsumerGroupTargetAssignmentMetadataValue,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.group_metadata_key import GroupMetadataKey
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.group_metadata_value import GroupMetadataValue
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.message_codec import (
    highest_supported_version,
    lowest_supported_version,
    to_version_prefixed_bytes,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.offset_commit_key import OffsetCommitKey
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.offset_commit_value import OffsetCommitValue
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_loader import CoordinatorLoader
from kafka_edu.v3_9.server_common.server.common.api_message_and_version import ApiMessageAndVersion
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9",
    "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/CoordinatorRecordSerdeTest.java",
    cases=[
        "testSerializeKey",
        "testSerializeValue",
        "testSerializeNullValue",
        "testDeserialize",
        "testDeserializeWithTombstoneForValue",
        "testDeserializeWithInvalidRecordType",
        "testDeserializeWithKeyEmptyBuffer",
        "testDeserializeWithValueEmptyBuffer",
        "testDeserializeWithInvalidKeyBytes",
        "testDeserializeWithInvalidValueBytes",
        "testDeserializeAllRecordTypes",
    ],
)


def _short_buffer(value: int, size: int) -> bytes:
    """ByteBuffer.allocate(size) with a short put at its start and rewound."""
    return struct.pack(">h", value) + bytes(size - 2)


def test_serialize_key() -> None:
    serializer = CoordinatorRecordSerde()
    record = CoordinatorRecord(
        ApiMessageAndVersion(ConsumerGroupMetadataKey(group_id="group"), 3),
        ApiMessageAndVersion(ConsumerGroupMetadataValue(epoch=10), 0),
    )

    assert to_version_prefixed_bytes(record.key().version, record.key().message) == serializer.serialize_key(record)


def test_serialize_value() -> None:
    serializer = CoordinatorRecordSerde()
    record = CoordinatorRecord(
        ApiMessageAndVersion(ConsumerGroupMetadataKey(group_id="group"), 3),
        ApiMessageAndVersion(ConsumerGroupMetadataValue(epoch=10), 0),
    )
    value = record.value()
    assert value is not None

    assert to_version_prefixed_bytes(value.version, value.message) == serializer.serialize_value(record)


def test_serialize_null_value() -> None:
    serializer = CoordinatorRecordSerde()
    record = CoordinatorRecord(ApiMessageAndVersion(ConsumerGroupMetadataKey(group_id="group"), 1), None)

    assert serializer.serialize_value(record) is None


def test_deserialize() -> None:
    serde = CoordinatorRecordSerde()

    key = ApiMessageAndVersion(ConsumerGroupMetadataKey(group_id="foo"), 3)
    key_buffer = to_version_prefixed_bytes(key.version, key.message)

    value = ApiMessageAndVersion(ConsumerGroupMetadataValue(epoch=10), 0)
    value_buffer = to_version_prefixed_bytes(value.version, value.message)

    record = serde.deserialize(key_buffer, value_buffer)
    assert key == record.key()
    assert value == record.value()


def test_deserialize_with_tombstone_for_value() -> None:
    serde = CoordinatorRecordSerde()

    key = ApiMessageAndVersion(ConsumerGroupMetadataKey(group_id="foo"), 3)
    key_buffer = to_version_prefixed_bytes(key.version, key.message)

    record = serde.deserialize(key_buffer, None)
    assert key == record.key()
    assert record.value() is None


def test_deserialize_with_invalid_record_type() -> None:
    serde = CoordinatorRecordSerde()

    key_buffer = _short_buffer(255, 64)
    value_buffer = bytes(64)

    with pytest.raises(CoordinatorLoader.UnknownRecordTypeException) as ex:
        serde.deserialize(key_buffer, value_buffer)
    assert ex.value.unknown_type() == 255


def test_deserialize_with_key_empty_buffer() -> None:
    serde = CoordinatorRecordSerde()

    key_buffer = b""
    value_buffer = bytes(64)

    with pytest.raises(RuntimeError) as ex:
        serde.deserialize(key_buffer, value_buffer)
    assert str(ex.value) == "Could not read version from key's buffer."


def test_deserialize_with_value_empty_buffer() -> None:
    serde = CoordinatorRecordSerde()

    key = ApiMessageAndVersion(ConsumerGroupMetadataKey(group_id="foo"), 3)
    key_buffer = to_version_prefixed_bytes(key.version, key.message)

    value_buffer = b""

    with pytest.raises(RuntimeError) as ex:
        serde.deserialize(key_buffer, value_buffer)
    assert str(ex.value) == "Could not read version from value's buffer."


def test_deserialize_with_invalid_key_bytes() -> None:
    serde = CoordinatorRecordSerde()

    key_buffer = _short_buffer(3, 2)
    value_buffer = _short_buffer(0, 2)

    with pytest.raises(RuntimeError) as ex:
        serde.deserialize(key_buffer, value_buffer)
    assert str(ex.value).startswith("Could not read record with version 3 from key's buffer due to"), str(ex.value)


def test_deserialize_with_invalid_value_bytes() -> None:
    serde = CoordinatorRecordSerde()

    key = ApiMessageAndVersion(ConsumerGroupMetadataKey(group_id="foo"), 3)
    key_buffer = to_version_prefixed_bytes(key.version, key.message)

    value_buffer = _short_buffer(0, 2)

    with pytest.raises(RuntimeError) as ex:
        serde.deserialize(key_buffer, value_buffer)
    assert str(ex.value).startswith("Could not read record with version 0 from value's buffer due to"), \
        str(ex.value)


def test_deserialize_all_record_types() -> None:
    _round_trip(0, OffsetCommitKey(), OffsetCommitValue())
    _round_trip(1, OffsetCommitKey(), OffsetCommitValue())
    _round_trip(2, GroupMetadataKey(), GroupMetadataValue())
    _round_trip(3, ConsumerGroupMetadataKey(), ConsumerGroupMetadataValue())
    _round_trip(4, ConsumerGroupPartitionMetadataKey(), ConsumerGroupPartitionMetadataValue())
    _round_trip(5, ConsumerGroupMemberMetadataKey(), ConsumerGroupMemberMetadataValue())
    _round_trip(6, ConsumerGroupTargetAssignmentMetadataKey(), ConsumerGroupTargetAssignmentMetadataValue())
    _round_trip(7, ConsumerGroupTargetAssignmentMemberKey(), ConsumerGroupTargetAssignmentMemberValue())
    _round_trip(8, ConsumerGroupCurrentMemberAssignmentKey(), ConsumerGroupCurrentMemberAssignmentValue())


def _round_trip(record_type: int, key: Any, val: Any) -> None:
    serde = CoordinatorRecordSerde()

    # Kafka's loop stops before the highest version
    for version in range(lowest_supported_version(type(val)), highest_supported_version(type(val))):
        key_message_and_version = ApiMessageAndVersion(key, record_type)
        val_message_and_version = ApiMessageAndVersion(val, version)

        record = serde.deserialize(
            to_version_prefixed_bytes(record_type, key),
            to_version_prefixed_bytes(version, val),
        )

        assert key_message_and_version == record.key()
        assert val_message_and_version == record.value()
