"""Our own test: __consumer_offsets records cross the 1.0.2 -> 3.9 upgrade, and 3.9's bytes are Kafka's.

A broker upgraded from 1.0.2 to 3.9 loads the offsets (key and value version 1) and classic group metadata (key
version 2, value versions 0 and 1) its old self wrote: the 1.0.2 port's GroupMetadataManager record builders write
them here and 3.9's CoordinatorRecordSerde reads them with the same fields. The other way, what 3.9 writes at the
versions a 1.0.2 broker knows reads back with the 1.0.2 readers (a rolling upgrade has both versions in a cluster).

The hex vectors were printed by Kafka 3.9's own generated message classes (generator/ run on the JSON files of
group-coordinator/src/main/resources/common/message at 3.9.0-rc3, then MessageUtil.toVersionPrefixedBytes for each
message and version), so every version of every record is checked against the Java encoding, not against ours.
"""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

import pytest

from kafka_edu.v1_0_2.core.coordinator.group import group_metadata_manager as gmm_1_0_2
from kafka_edu.v1_0_2.core.coordinator.group.group_metadata import GroupMetadata, PreparingRebalance
from kafka_edu.v1_0_2.core.coordinator.group.member_metadata import MemberMetadata as MemberMetadata102
from kafka_edu.v1_0_2.core.coordinator.group.offset_and_metadata import OffsetAndMetadata as OffsetAndMetadata102
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record import CoordinatorRecord
from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record_helpers import new_offset_commit_record
from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record_serde import CoordinatorRecordSerde
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_current_member_assignment_value import (  # noqa: E501
    ConsumerGroupCurrentMemberAssignmentValue,
    TopicPartitions,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_member_metadata_key import (
    ConsumerGroupMemberMetadataKey,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_member_metadata_value import (
    ClassicMemberMetadata,
    ClassicProtocol,
    ConsumerGroupMemberMetadataValue,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_metadata_key import (
    ConsumerGroupMetadataKey,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_metadata_value import (
    ConsumerGroupMetadataValue,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_partition_metadata_value import (
    ConsumerGroupPartitionMetadataValue,
    PartitionMetadata,
    TopicMetadata,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_target_assignment_member_value import (  # noqa: E501
    ConsumerGroupTargetAssignmentMemberValue,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_target_assignment_member_value import (
    TopicPartition as TargetTopicPartition,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_target_assignment_metadata_value import (  # noqa: E501
    ConsumerGroupTargetAssignmentMetadataValue,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.group_metadata_key import GroupMetadataKey
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.group_metadata_value import (
    GroupMetadataValue,
    MemberMetadata,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.message_codec import (
    read_message,
    to_version_prefixed_bytes,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.offset_commit_key import OffsetCommitKey
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.offset_commit_value import OffsetCommitValue
from kafka_edu.v3_9.group_coordinator.coordinator.group.offset_and_metadata import OffsetAndMetadata
from kafka_edu.v3_9.server_common.server.common.api_message_and_version import ApiMessageAndVersion
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion

SERDE = CoordinatorRecordSerde()


def _group_1_0_2() -> GroupMetadata:
    """A 1.0.2 group after a rebalance: two members on the range protocol, generation 1, awaiting sync."""
    group = GroupMetadata("grp")
    for member_id, client_id, rebalance_timeout, subscription in (("m1", "c1", 1000, b"\x00\x01"),
                                                                  ("m2", "c2", 2000, b"\x02")):
        member = MemberMetadata102(member_id, "grp", client_id, "/10.0.0.1", rebalance_timeout, 1500, "consumer",
                                   [("range", subscription)])
        member.awaiting_join_callback = lambda result: None
        group.add(member)
    group.transition_to(PreparingRebalance)
    group.init_next_generation()
    return group


def test_offsets_written_by_1_0_2_read_in_3_9() -> None:
    key = gmm_1_0_2.offset_commit_key("grp", TopicPartition("foo", 3))
    value = gmm_1_0_2.offset_commit_value(OffsetAndMetadata102(42, "meta", 1000, 2000))

    record = SERDE.deserialize(key, value)

    assert record.key() == ApiMessageAndVersion(OffsetCommitKey(group="grp", topic="foo", partition=3), 1)
    assert record.value() == ApiMessageAndVersion(
        OffsetCommitValue(offset=42, metadata="meta", commit_timestamp=1000, expire_timestamp=2000), 1)
    # what the 3.9 coordinator keeps: no leader epoch before value version 3
    record_value = record.value()
    assert record_value is not None
    assert OffsetAndMetadata.from_record(7, record_value.message) == OffsetAndMetadata(7, 42, None, "meta", 1000, 2000)

    # 1.0.2's default expire timestamp (-1) is 3.9's "none"
    no_expiry = SERDE.deserialize(key, gmm_1_0_2.offset_commit_value(OffsetAndMetadata102(43, "", 1000)))
    no_expiry_value = no_expiry.value()
    assert no_expiry_value is not None
    assert OffsetAndMetadata.from_record(8, no_expiry_value.message).expire_timestamp_ms is None


def test_offset_tombstone_written_by_1_0_2_read_in_3_9() -> None:
    record = SERDE.deserialize(gmm_1_0_2.offset_commit_key("grp", TopicPartition("foo", 3)), None)

    assert record == CoordinatorRecord(
        ApiMessageAndVersion(OffsetCommitKey(group="grp", topic="foo", partition=3), 1), None)


@pytest.mark.parametrize("version", [0, 1])
def test_group_metadata_written_by_1_0_2_read_in_3_9(version: int) -> None:
    group = _group_1_0_2()
    assignment = {"m1": b"\x01\x02", "m2": b"\x03"}
    key = gmm_1_0_2.group_metadata_key("grp")
    value = gmm_1_0_2.group_metadata_value(group, assignment, version)

    record = SERDE.deserialize(key, value)

    assert record.key() == ApiMessageAndVersion(GroupMetadataKey(group="grp"), 2)
    # version 0 has no rebalance timeout: it reads as the default, -1
    assert record.value() == ApiMessageAndVersion(
        GroupMetadataValue(
            protocol_type="consumer",
            generation=1,
            protocol="range",
            leader="m1",
            members=[
                MemberMetadata(member_id="m1", client_id="c1", client_host="/10.0.0.1",
                               rebalance_timeout=1000 if version == 1 else -1, session_timeout=1500,
                               subscription=b"\x00\x01", assignment=b"\x01\x02"),
                MemberMetadata(member_id="m2", client_id="c2", client_host="/10.0.0.1",
                               rebalance_timeout=2000 if version == 1 else -1, session_timeout=1500,
                               subscription=b"\x02", assignment=b"\x03"),
            ],
        ),
        version,
    )


def test_group_tombstone_written_by_1_0_2_read_in_3_9() -> None:
    record = SERDE.deserialize(gmm_1_0_2.group_metadata_key("grp"), None)

    assert record == CoordinatorRecord(ApiMessageAndVersion(GroupMetadataKey(group="grp"), 2), None)


@pytest.mark.parametrize("metadata_version", [MetadataVersion.IBP_0_10_0_IV0, MetadataVersion.IBP_1_0_IV0])
def test_offsets_written_by_3_9_at_1_0_versions_read_in_1_0_2(metadata_version: MetadataVersion) -> None:
    record = new_offset_commit_record("grp", "foo", 3, OffsetAndMetadata(42, 5, "meta", 1000, None), metadata_version)

    key = gmm_1_0_2.read_message_key(SERDE.serialize_key(record))
    value = gmm_1_0_2.read_offset_message_value(SERDE.serialize_value(record))

    assert key == gmm_1_0_2.OffsetKey(1, gmm_1_0_2.GroupTopicPartition("grp", TopicPartition("foo", 3)))
    assert value == OffsetAndMetadata102(42, "meta", 1000, -1)


@pytest.mark.parametrize("version", [0, 1])
def test_group_metadata_written_by_3_9_read_in_1_0_2(version: int) -> None:
    record = CoordinatorRecord(
        ApiMessageAndVersion(GroupMetadataKey(group="grp"), 2),
        ApiMessageAndVersion(
            GroupMetadataValue(protocol_type="consumer", generation=4, protocol="range", leader="m1",
                               current_state_timestamp=12345,
                               members=[MemberMetadata(member_id="m1", group_instance_id="i1", client_id="c1",
                                                       client_host="/h", rebalance_timeout=3000, session_timeout=1500,
                                                       subscription=b"\x00", assignment=b"\x01")]),
            version,
        ),
    )

    assert gmm_1_0_2.read_message_key(SERDE.serialize_key(record)) == gmm_1_0_2.GroupMetadataKey(2, "grp")
    group = gmm_1_0_2.read_group_message_value("grp", SERDE.serialize_value(record))
    assert group is not None
    assert (group.protocol_type, group.generation_id, group.protocol, group.leader_id) == ("consumer", 4, "range", "m1")
    member = group.members["m1"]
    assert (member.client_id, member.client_host, member.session_timeout_ms) == ("c1", "/h", 1500)
    # a version 0 record has no rebalance timeout: 1.0.2 falls back to the session timeout
    assert member.rebalance_timeout_ms == (3000 if version == 1 else 1500)
    assert (member.metadata("range"), member.assignment) == (b"\x00", b"\x01")


# --- the bytes Kafka 3.9's generated classes write ---

_TOPIC_ID = uuid.UUID("0123456789abcdef1122334455667788")
_OFFSET_VALUE = OffsetCommitValue(offset=100, leader_epoch=10, metadata="meta", commit_timestamp=1234,
                                  expire_timestamp=5678)
_GROUP_VALUE = GroupMetadataValue(
    protocol_type="consumer", generation=3, protocol="range", leader="m1", current_state_timestamp=999,
    members=[
        MemberMetadata(member_id="m1", group_instance_id="i1", client_id="c1", client_host="/h",
                       rebalance_timeout=1000, session_timeout=1500, subscription=b"\x00\x01", assignment=b"\x01\x02"),
        MemberMetadata(member_id="m2", group_instance_id=None, client_id="c2", client_host="/h2",
                       rebalance_timeout=-1, session_timeout=10, subscription=b"", assignment=b"\x03"),
    ])
_EMPTY_GROUP_VALUE = GroupMetadataValue(protocol_type="", generation=0, protocol=None, leader=None,
                                        current_state_timestamp=5, members=[])

KAFKA_VECTORS: list[tuple[Any, int, str]] = [
    (OffsetCommitKey(group="g", topic="t", partition=7), 0, "000000016700017400000007"),
    (OffsetCommitKey(group="g", topic="t", partition=7), 1, "000100016700017400000007"),
    (_OFFSET_VALUE, 0, "0000000000000000006400046d65746100000000000004d2"),
    (_OFFSET_VALUE, 1, "0001000000000000006400046d65746100000000000004d2000000000000162e"),
    (_OFFSET_VALUE, 2, "0002000000000000006400046d65746100000000000004d2"),
    (_OFFSET_VALUE, 3, "000300000000000000640000000a00046d65746100000000000004d2"),
    (_OFFSET_VALUE, 4, "000400000000000000640000000a056d65746100000000000004d200"),
    (GroupMetadataKey(group="grp"), 2, "00020003677270"),
    (_GROUP_VALUE, 0, "00000008636f6e73756d657200000003000572616e676500026d310000000200026d310002633100022f68000005dc"
                      "00000002000100000002010200026d320002633200032f68320000000a000000000000000103"),
    (_GROUP_VALUE, 1, "00010008636f6e73756d657200000003000572616e676500026d310000000200026d310002633100022f68000003e8"
                      "000005dc00000002000100000002010200026d320002633200032f6832ffffffff0000000a000000000000000103"),
    (_GROUP_VALUE, 2, "00020008636f6e73756d657200000003000572616e676500026d3100000000000003e70000000200026d3100026331"
                      "00022f68000003e8000005dc00000002000100000002010200026d320002633200032f6832ffffffff0000000a00"
                      "0000000000000103"),
    (_GROUP_VALUE, 3, "00030008636f6e73756d657200000003000572616e676500026d3100000000000003e70000000200026d3100026931"
                      "0002633100022f68000003e8000005dc00000002000100000002010200026d32ffff0002633200032f6832ffffffff"
                      "0000000a000000000000000103"),
    (_GROUP_VALUE, 4, "000409636f6e73756d6572000000030672616e6765036d3100000000000003e703036d31036931036331032f6800"
                      "0003e8000005dc03000103010200036d3200036332042f6832ffffffff0000000a0102030000"),
    (_EMPTY_GROUP_VALUE, 0, "0000000000000000ffffffff00000000"),
    (_EMPTY_GROUP_VALUE, 1, "0001000000000000ffffffff00000000"),
    (_EMPTY_GROUP_VALUE, 2, "0002000000000000ffffffff000000000000000500000000"),
    (_EMPTY_GROUP_VALUE, 3, "0003000000000000ffffffff000000000000000500000000"),
    (_EMPTY_GROUP_VALUE, 4, "00040100000000000000000000000000050100"),
    (ConsumerGroupMemberMetadataKey(group_id="g", member_id="m"), 5, "000500016700016d"),
    (ConsumerGroupMemberMetadataValue(
        instance_id=None, rack_id="r", client_id="c", client_host="h", subscribed_topic_names=["a", "b"],
        subscribed_topic_regex=None, rebalance_timeout_ms=5000, server_assignor="range",
        classic_member_metadata=ClassicMemberMetadata(
            session_timeout_ms=45, supported_protocols=[ClassicProtocol(name="range", metadata=b"\x09")])),
     0, "000000027202630268030261026200000013880672616e6765010010010000002d020672616e676502090000"),
    (ConsumerGroupPartitionMetadataValue(topics=[TopicMetadata(
        topic_id=_TOPIC_ID, topic_name="foo", num_partitions=2,
        partition_metadata=[PartitionMetadata(partition=0, racks=["r1", "r2"])])]),
     0, "0000020123456789abcdef112233445566778804666f6f00000002020000000003037231037232000000"),
    (ConsumerGroupCurrentMemberAssignmentValue(
        member_epoch=5, previous_member_epoch=4, state=1,
        assigned_partitions=[TopicPartitions(topic_id=_TOPIC_ID, partitions=[1, 2])]),
     0, "0000000000050000000401020123456789abcdef1122334455667788030000000100000002000100"),
    (ConsumerGroupTargetAssignmentMemberValue(topic_partitions=[TargetTopicPartition(topic_id=_TOPIC_ID,
                                                                                     partitions=[3])]),
     0, "0000020123456789abcdef112233445566778802000000030000"),
    (ConsumerGroupMetadataValue(epoch=42), 0, "00000000002a00"),
    (ConsumerGroupTargetAssignmentMetadataValue(assignment_epoch=43), 0, "00000000002b00"),
    # a key written at a record type it was not made for keeps its body, as Kafka's generated code does
    (ConsumerGroupMetadataKey(group_id="g"), 1, "0001000167"),
]


@pytest.mark.parametrize(("message", "version", "kafka_hex"), KAFKA_VECTORS)
def test_bytes_are_kafka_3_9s(message: Any, version: int, kafka_hex: str) -> None:
    assert to_version_prefixed_bytes(version, message).hex() == kafka_hex

    read, position = read_message(type(message), bytes.fromhex(kafka_hex), version, 2)
    assert position == len(kafka_hex) // 2
    # what was read writes the same bytes again: nothing the version has is lost or made up
    assert to_version_prefixed_bytes(version, read).hex() == kafka_hex
    for field in dataclasses.fields(message):
        if field.name != "members":  # a member's fields follow the same rule, one level down
            assert getattr(read, field.name) in (getattr(message, field.name), field.default)
