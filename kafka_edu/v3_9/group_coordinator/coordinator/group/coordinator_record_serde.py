"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/CoordinatorRecordSerde.java (Kafka 3.9).

The bytes of a __consumer_offsets record: the key is the int16 record type (the key's version) then the key message;
the value is its int16 version then the value message; a tombstone has no value. Keys 0 and 1 are offset commits
and 2 a classic group's metadata, as 1.0.2 wrote them, so a log written by an old broker loads here. Like 3.9's,
the serde knows types 0 to 8: the share group records (types 9 to 11) are not in its switch either.
"""

from __future__ import annotations

import struct

from kafka_edu.v3_9.clients.common.utils.byte_utils import Buffer
from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record import CoordinatorRecord
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
    read_message,
    to_version_prefixed_bytes,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.offset_commit_key import OffsetCommitKey
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.offset_commit_value import OffsetCommitValue
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_loader import UnknownRecordTypeException
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.deserializer import Deserializer
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.serializer import Serializer
from kafka_edu.v3_9.server_common.server.common.api_message_and_version import ApiMessageAndVersion

_VERSION = struct.Struct(">h")

# record type -> (key class, value class); the two offset commit key versions share their classes
_RECORD_TYPES: dict[int, tuple[type, type]] = {
    0: (OffsetCommitKey, OffsetCommitValue),
    1: (OffsetCommitKey, OffsetCommitValue),
    2: (GroupMetadataKey, GroupMetadataValue),
    3: (ConsumerGroupMetadataKey, ConsumerGroupMetadataValue),
    4: (ConsumerGroupPartitionMetadataKey, ConsumerGroupPartitionMetadataValue),
    5: (ConsumerGroupMemberMetadataKey, ConsumerGroupMemberMetadataValue),
    6: (ConsumerGroupTargetAssignmentMetadataKey, ConsumerGroupTargetAssignmentMetadataValue),
    7: (ConsumerGroupTargetAssignmentMemberKey, ConsumerGroupTargetAssignmentMemberValue),
    8: (ConsumerGroupCurrentMemberAssignmentKey, ConsumerGroupCurrentMemberAssignmentValue),
}


class CoordinatorRecordSerde(Serializer[CoordinatorRecord], Deserializer[CoordinatorRecord]):
    """Both directions of the group coordinator's record format; stateless, so one instance can be shared."""

    def serialize_key(self, record: CoordinatorRecord) -> bytes:
        # a record always has a key
        return to_version_prefixed_bytes(record.key().version, record.key().message)

    def serialize_value(self, record: CoordinatorRecord) -> bytes | None:
        value = record.value()
        if value is None:  # a tombstone
            return None
        return to_version_prefixed_bytes(value.version, value.message)

    def deserialize(self, key_buffer: Buffer | None, value_buffer: Buffer | None) -> CoordinatorRecord:
        record_type, position = self._read_version(key_buffer, "key")
        key_message = self._read_message(self._api_message_key_for(record_type), key_buffer, position, record_type,
                                         "key")
        if value_buffer is None:
            return CoordinatorRecord(ApiMessageAndVersion(key_message, record_type), None)

        value_class = self._api_message_value_for(record_type)
        value_version, position = self._read_version(value_buffer, "value")
        value_message = self._read_message(value_class, value_buffer, position, value_version, "value")
        return CoordinatorRecord(ApiMessageAndVersion(key_message, record_type),
                                 ApiMessageAndVersion(value_message, value_version))

    @staticmethod
    def _read_version(buffer: Buffer | None, name: str) -> tuple[int, int]:
        """The int16 at the start of the buffer and the position after it."""
        if buffer is None or len(buffer) < _VERSION.size:
            raise RuntimeError(f"Could not read version from {name}'s buffer.")
        return _VERSION.unpack_from(buffer, 0)[0], _VERSION.size

    @staticmethod
    def _read_message(message_class: type, buffer: Buffer | None, position: int, version: int, name: str) -> object:
        try:
            message, _ = read_message(message_class, buffer or b"", version, position)
        except Exception as ex:  # Kafka catches every RuntimeException, a short buffer's included
            raise RuntimeError(f"Could not read record with version {version} from {name}'s buffer due to: "
                               f"{ex}.") from ex
        return message

    @staticmethod
    def _api_message_key_for(record_type: int) -> type:
        classes = _RECORD_TYPES.get(record_type)
        if classes is None:
            raise UnknownRecordTypeException(record_type)
        return classes[0]

    @staticmethod
    def _api_message_value_for(record_type: int) -> type:
        classes = _RECORD_TYPES.get(record_type)
        if classes is None:
            raise UnknownRecordTypeException(record_type)
        return classes[1]
