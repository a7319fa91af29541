"""Metadata records (Kafka 3.9's metadata/*.json) and their value frame (MetadataRecordSerde)."""

from __future__ import annotations

import io
import uuid

import pytest
from kio.schema.types import BrokerId, TopicName
from kio.static.primitive import f64, i8, i16, i32, i64, u16

from kafka_edu.v1_0_2.clients.common.errors import UnsupportedVersionException
from kafka_edu.v3_9.metadata.common.metadata import (
    AbortTransactionRecord,
    ApiMessageAndVersion,
    BeginTransactionRecord,
    BrokerEndpoint,
    BrokerFeature,
    BrokerRegistrationChangeRecord,
    ClientQuotaRecord,
    ConfigRecord,
    EndTransactionRecord,
    FeatureLevelRecord,
    FenceBrokerRecord,
    MetadataRecordType,
    NoOpRecord,
    PartitionChangeRecord,
    PartitionRecord,
    ProducerIdsRecord,
    RegisterBrokerRecord,
    RemoveTopicRecord,
    RemoveUserScramCredentialRecord,
    TopicRecord,
    UnfenceBrokerRecord,
    UnregisterBrokerRecord,
    UserScramCredentialRecord,
)
from kafka_edu.v3_9.metadata.common.metadata.access_control_entry_record import AccessControlEntryRecord
from kafka_edu.v3_9.metadata.common.metadata.client_quota_record import EntityData as QuotaEntityData
from kafka_edu.v3_9.metadata.common.metadata.remove_access_control_entry_record import RemoveAccessControlEntryRecord
from kafka_edu.v3_9.metadata.metadata.metadata_record_serde import MetadataParseException, MetadataRecordSerde

SERDE = MetadataRecordSerde.INSTANCE
TOPIC_ID = uuid.UUID("0123456789abcdef0123456789abcdef")
DIR_1 = uuid.UUID("11111111111111111111111111111111")
DIR_2 = uuid.UUID("22222222222222222222222222222222")


def test_topic_record_bytes_follow_the_json_definition() -> None:
    record = ApiMessageAndVersion(TopicRecord(name=TopicName("foo"), topic_id=TOPIC_ID), 0)
    value = SERDE.write(record)
    expected = bytes.fromhex(
        "01"  # frame version 1 (uvarint)
        "02"  # api key 2, TopicRecord
        "00"  # version 0
        "04" "666f6f"  # Name: compact string, length + 1 = 4, "foo"
        "0123456789abcdef0123456789abcdef"  # TopicId: 16 bytes
        "00"  # no tagged fields
    )
    assert value == expected
    assert SERDE.record_size(record) == len(expected) == 24
    assert SERDE.read(value) == record


def test_partition_record_v1_bytes_follow_the_json_definition() -> None:
    record = PartitionRecord(
        partition_id=i32(7), topic_id=TOPIC_ID, replicas=(BrokerId(1), BrokerId(2)), isr=(i32(2),),
        leader=BrokerId(2), leader_recovery_state=i8(1), leader_epoch=i32(3), partition_epoch=i32(4),
        directories=(DIR_1, DIR_2))
    expected = bytes.fromhex(
        "01" "03" "01"  # frame 1, api key 3 PartitionRecord, version 1 (3.9-IV0 writes v1)
        "00000007"  # PartitionId int32
        "0123456789abcdef0123456789abcdef"  # TopicId
        "03" "00000001" "00000002"  # Replicas: compact array, 2 + 1
        "02" "00000002"  # Isr
        "01"  # RemovingReplicas: empty
        "01"  # AddingReplicas: empty
        "00000002"  # Leader
        "00000003"  # LeaderEpoch (LeaderRecoveryState is tagged, so it is not here)
        "00000004"  # PartitionEpoch
        "03" + "11" * 16 + "22" * 16 +  # Directories (v1+): compact array of two uuids
        "01"  # one tagged field
        "00" "01" "01"  # tag 0 LeaderRecoveryState, 1 byte, value 1 (written because it is not the default 0)
    )
    assert SERDE.write(ApiMessageAndVersion(record, 1)) == expected
    assert SERDE.read(expected) == ApiMessageAndVersion(record, 1)


def test_partition_change_record_writes_only_changed_fields_as_tags_in_tag_order() -> None:
    record = PartitionChangeRecord(partition_id=i32(0), topic_id=TOPIC_ID, isr=(BrokerId(1), BrokerId(2)),
                                   leader=BrokerId(2), directories=(DIR_1,))
    expected = bytes.fromhex(
        "01" "05" "01"  # PartitionChangeRecord v1
        "00000000" "0123456789abcdef0123456789abcdef"
        "03"  # three tagged fields: Isr (0), Leader (1), Directories (8); the others hold their defaults
        "00" "09" "03" "00000001" "00000002"  # tag 0, 9 bytes: compact array of two int32
        "01" "04" "00000002"  # tag 1, 4 bytes: leader 2
        "08" "11" "02" + "11" * 16  # tag 8, 17 bytes: one directory
    )
    assert SERDE.write(ApiMessageAndVersion(record, 1)) == expected
    assert SERDE.read(expected).message == record


def _sample(record_type: MetadataRecordType) -> ApiMessageAndVersion:
    """One record of each type, with non-default values, at the version 3.9 writes at metadata.version 3.9-IV0."""
    samples = {
        MetadataRecordType.REGISTER_BROKER_RECORD: ApiMessageAndVersion(RegisterBrokerRecord(
            broker_id=BrokerId(1), incarnation_id=uuid.uuid4(), broker_epoch=i64(42),
            end_points=(BrokerEndpoint(name="PLAINTEXT", host="127.0.0.1", port=u16(9092),
                                       security_protocol=i16(0)),),
            features=(BrokerFeature(name="metadata.version", min_supported_version=i16(1),
                                    max_supported_version=i16(21)),),
            rack=None, fenced=True, in_controlled_shutdown=False, log_dirs=(DIR_1,)), 3),
        MetadataRecordType.UNREGISTER_BROKER_RECORD: ApiMessageAndVersion(
            UnregisterBrokerRecord(broker_id=BrokerId(3), broker_epoch=i64(9)), 0),
        MetadataRecordType.TOPIC_RECORD: ApiMessageAndVersion(TopicRecord(name=TopicName("t"), topic_id=TOPIC_ID), 0),
        MetadataRecordType.PARTITION_RECORD: ApiMessageAndVersion(PartitionRecord(
            partition_id=i32(0), topic_id=TOPIC_ID, replicas=(BrokerId(1),), isr=(i32(1),), leader=BrokerId(1),
            leader_epoch=i32(0), partition_epoch=i32(0), directories=(DIR_1,)), 1),
        MetadataRecordType.CONFIG_RECORD: ApiMessageAndVersion(ConfigRecord(
            resource_type=i8(2), resource_name="t", name="retention.ms", value=None), 0),
        MetadataRecordType.PARTITION_CHANGE_RECORD: ApiMessageAndVersion(PartitionChangeRecord(
            partition_id=i32(1), topic_id=TOPIC_ID, isr=(BrokerId(1),), leader=BrokerId(-1),
            leader_recovery_state=i8(0)), 1),
        MetadataRecordType.FENCE_BROKER_RECORD: ApiMessageAndVersion(
            FenceBrokerRecord(id=BrokerId(1), epoch=i64(5)), 0),
        MetadataRecordType.UNFENCE_BROKER_RECORD: ApiMessageAndVersion(
            UnfenceBrokerRecord(id=BrokerId(1), epoch=i64(5)), 0),
        MetadataRecordType.REMOVE_TOPIC_RECORD: ApiMessageAndVersion(RemoveTopicRecord(topic_id=TOPIC_ID), 0),
        MetadataRecordType.FEATURE_LEVEL_RECORD: ApiMessageAndVersion(
            FeatureLevelRecord(name="metadata.version", feature_level=i16(21)), 0),
        MetadataRecordType.PRODUCER_IDS_RECORD: ApiMessageAndVersion(
            ProducerIdsRecord(broker_id=BrokerId(1), broker_epoch=i64(7), next_producer_id=i64(1000)), 0),
        MetadataRecordType.BROKER_REGISTRATION_CHANGE_RECORD: ApiMessageAndVersion(
            BrokerRegistrationChangeRecord(broker_id=BrokerId(1), broker_epoch=i64(7), fenced=i8(-1)), 0),
        MetadataRecordType.NO_OP_RECORD: ApiMessageAndVersion(NoOpRecord(), 0),
        MetadataRecordType.BEGIN_TRANSACTION_RECORD: ApiMessageAndVersion(
            BeginTransactionRecord(name="Bootstrap records"), 0),
        MetadataRecordType.END_TRANSACTION_RECORD: ApiMessageAndVersion(EndTransactionRecord(), 0),
        MetadataRecordType.ABORT_TRANSACTION_RECORD: ApiMessageAndVersion(AbortTransactionRecord(reason="renounce"),
                                                                          0),
        # part A (issue 24): quotas and SCRAM
        MetadataRecordType.CLIENT_QUOTA_RECORD: ApiMessageAndVersion(ClientQuotaRecord(
            entity=(QuotaEntityData(entity_type="user", entity_name="alice"),
                    QuotaEntityData(entity_type="client-id", entity_name=None)),
            key="producer_byte_rate", value=f64(1024.5), remove=False), 0),
        MetadataRecordType.USER_SCRAM_CREDENTIAL_RECORD: ApiMessageAndVersion(UserScramCredentialRecord(
            name="alice", mechanism=i8(1), salt=b"salt", stored_key=b"stored", server_key=b"server",
            iterations=i32(8192)), 0),
        MetadataRecordType.REMOVE_USER_SCRAM_CREDENTIAL_RECORD: ApiMessageAndVersion(
            RemoveUserScramCredentialRecord(name="alice", mechanism=i8(2)), 0),
        # part B (issue 24): ACLs
        MetadataRecordType.ACCESS_CONTROL_ENTRY_RECORD: ApiMessageAndVersion(AccessControlEntryRecord(
            id=uuid.UUID(int=7), resource_type=i8(2), resource_name="foo", pattern_type=i8(3),
            principal="User:alice", host="*", operation=i8(3), permission_type=i8(3)), 0),
        MetadataRecordType.REMOVE_ACCESS_CONTROL_ENTRY_RECORD: ApiMessageAndVersion(
            RemoveAccessControlEntryRecord(id=uuid.UUID(int=7)), 0),
    }
    return samples[record_type]


@pytest.mark.parametrize("record_type", list(MetadataRecordType), ids=str)
def test_every_record_type_round_trips(record_type: MetadataRecordType) -> None:
    sample = _sample(record_type)
    out = io.BytesIO()
    value = SERDE.write(sample, {}, out)
    assert out.getvalue() == value
    assert value[:2] == bytes([1, record_type.id])  # frame version, then the type's id
    assert SERDE.read(value) == sample
    assert SERDE.read(value + b"next record", len(value)) == sample  # `size` bounds the value
    assert MetadataRecordType.for_message(sample.message) is record_type


def test_the_types_the_brief_lists_have_their_kafka_ids() -> None:
    assert {t.id: str(t) for t in MetadataRecordType} == {
        0: "RegisterBrokerRecord", 1: "UnregisterBrokerRecord", 2: "TopicRecord", 3: "PartitionRecord",
        4: "ConfigRecord", 5: "PartitionChangeRecord", 7: "FenceBrokerRecord", 8: "UnfenceBrokerRecord",
        9: "RemoveTopicRecord", 11: "UserScramCredentialRecord", 12: "FeatureLevelRecord",
        14: "ClientQuotaRecord", 15: "ProducerIdsRecord", 22: "RemoveUserScramCredentialRecord",
        17: "BrokerRegistrationChangeRecord", 20: "NoOpRecord", 23: "BeginTransactionRecord",
        24: "EndTransactionRecord", 25: "AbortTransactionRecord",
        18: "AccessControlEntryRecord", 19: "RemoveAccessControlEntryRecord"}  # part B (issue 24)


def test_empty_records_are_three_frame_bytes_and_an_empty_tag_section() -> None:
    assert SERDE.write(ApiMessageAndVersion(NoOpRecord(), 0)) == bytes([1, 20, 0, 0])
    assert SERDE.write(ApiMessageAndVersion(EndTransactionRecord(), 0)) == bytes([1, 24, 0, 0])


def test_unknown_record_type_raises_a_parse_error_caused_by_the_unknown_id() -> None:
    with pytest.raises(MetadataParseException, match="Unknown metadata id 99") as raised:
        SERDE.read(bytes([1, 99, 0, 0]))
    assert isinstance(raised.value.__cause__, UnsupportedVersionException)


@pytest.mark.parametrize(("value", "message"), [
    (bytes([0, 2, 0]), "frame version 0"),
    (bytes([2, 2, 0]), "unknown frame version 2"),
    (bytes([1, 0x80, 0x80, 0x02, 0]), "Value for type was too large"),  # 32768 does not fit a short
    (bytes([1]), "Error while reading type"),
    (bytes([1, 2, 0, 4]) + b"fo", "Failed to deserialize record with type 2"),  # truncated body
    (bytes([1, 20, 0, 0, 0xFF]), "Found 1 byte\\(s\\) of garbage after 20"),
])
def test_broken_frames_raise_parse_errors(value: bytes, message: str) -> None:
    with pytest.raises(MetadataParseException, match=message):
        SERDE.read(value)


def test_versions_outside_what_the_class_frames_are_refused() -> None:
    record = _sample(MetadataRecordType.PARTITION_RECORD).message
    with pytest.raises(UnsupportedVersionException, match="Can't write version 0 of PartitionRecord"):
        SERDE.write(ApiMessageAndVersion(record, 0))  # v0 has no Directories field
    v1 = SERDE.write(ApiMessageAndVersion(record, 1))
    with pytest.raises(MetadataParseException) as raised:
        SERDE.read(v1[:2] + bytes([0]) + v1[3:])
    assert "Can't read version 0 of PartitionRecord" in str(raised.value.__cause__)


def test_a_field_newer_than_the_version_must_hold_its_default() -> None:
    shutdown = BrokerRegistrationChangeRecord(broker_id=BrokerId(1), broker_epoch=i64(7),
                                              in_controlled_shutdown=i8(1))
    with pytest.raises(UnsupportedVersionException, match="non-default in_controlled_shutdown at version 0"):
        SERDE.write(ApiMessageAndVersion(shutdown, 0))
    # 3.9 writes controlled shutdown at version 1; fencing at version 0 gives the same bytes as at version 2.
    assert SERDE.read(SERDE.write(ApiMessageAndVersion(shutdown, 1))).message == shutdown
    fence = BrokerRegistrationChangeRecord(broker_id=BrokerId(1), broker_epoch=i64(7), fenced=i8(1))
    assert SERDE.write(ApiMessageAndVersion(fence, 0))[3:] == SERDE.write(ApiMessageAndVersion(fence, 2))[3:]
    # A tag from a later version found in an older one is refused on read too.
    v1 = SERDE.write(ApiMessageAndVersion(shutdown, 1))
    with pytest.raises(MetadataParseException):
        SERDE.read(v1[:2] + bytes([0]) + v1[3:])


def test_a_class_that_is_not_a_metadata_record_is_refused() -> None:
    from kio.schema.leader_change_message.v0.data import LeaderChangeMessage

    with pytest.raises(UnsupportedVersionException):
        SERDE.write(ApiMessageAndVersion(LeaderChangeMessage(version=i16(0), leader_id=BrokerId(1), voters=(),
                                                             granting_voters=()), 0))
