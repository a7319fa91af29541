"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/CoordinatorRecordHelpersTest.java
(Kafka 3.9).

Topic ids are uuid.UUID (Uuid.randomUuid() -> uuid.uuid4()); mkListOfPartitionRacks and mkMapOfPartitionRacks
live in assignment_test_util. Kafka's Assertions.assertRecordEquals is ported here for the one record these cases
need it for (ConsumerGroupPartitionMetadataValue, whose racks come from a set). Kafka's EnumSource over
MetadataVersion runs over the port's MetadataVersion, which lacks 3.9's unreleased IBP_4_0_IV1 (its record versions
would be IBP_4_0_IV0's). The port's ClassicGroup takes no metrics shard (Kafka's tests pass a mock) and its
LogContext is a prefix string.
"""

from __future__ import annotations

import uuid

import pytest
from kio.schema.join_group.v9.request import JoinGroupRequestProtocol

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, IllegalStateException
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import ClassicGroup
from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_member import ClassicGroupMember
from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record import CoordinatorRecord
from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record_helpers import (
    new_current_assignment_record,
    new_current_assignment_tombstone_record,
    new_empty_group_metadata_record,
    new_group_epoch_record,
    new_group_epoch_tombstone_record,
    new_group_metadata_record,
    new_group_metadata_tombstone_record,
    new_group_subscription_metadata_record,
    new_group_subscription_metadata_tombstone_record,
    new_member_subscription_record,
    new_member_subscription_tombstone_record,
    new_offset_commit_record,
    new_offset_commit_tombstone_record,
    new_target_assignment_epoch_record,
    new_target_assignment_epoch_tombstone_record,
    new_target_assignment_record,
    new_target_assignment_tombstone_record,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_current_member_assignment_key import (  # noqa: E501
    ConsumerGroupCurrentMemberAssignmentKey,
)
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
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_partition_metadata_key import (
    ConsumerGroupPartitionMetadataKey,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_partition_metadata_value import (
    ConsumerGroupPartitionMetadataValue,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_partition_metadata_value import (
    TopicMetadata as TopicMetadataRecord,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_target_assignment_member_key import (  # noqa: E501
    ConsumerGroupTargetAssignmentMemberKey,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_target_assignment_member_value import (  # noqa: E501
    ConsumerGroupTargetAssignmentMemberValue,
    TopicPartition,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_target_assignment_metadata_key import (  # noqa: E501
    ConsumerGroupTargetAssignmentMetadataKey,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_target_assignment_metadata_value import (  # noqa: E501
    ConsumerGroupTargetAssignmentMetadataValue,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.group_metadata_key import GroupMetadataKey
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.group_metadata_value import (
    GroupMetadataValue,
    MemberMetadata,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.offset_commit_key import OffsetCommitKey
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.offset_commit_value import OffsetCommitValue
from kafka_edu.v3_9.group_coordinator.coordinator.group.group import Group
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.consumer.consumer_group_member import (
    ConsumerGroupMember,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.member_state import MemberState
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.topic_metadata import TopicMetadata
from kafka_edu.v3_9.group_coordinator.coordinator.group.offset_and_metadata import OffsetAndMetadata
from kafka_edu.v3_9.server_common.server.common.api_message_and_version import ApiMessageAndVersion
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.assignment_test_util import (
    mk_list_of_partition_racks,
    mk_map_of_partition_racks,
    mk_ordered_assignment,
    mk_ordered_topic_assignment,
    mk_topic_assignment,
)

KAFKA = kafka_test_class(
    "3.9",
    "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/CoordinatorRecordHelpersTest.java",
    cases=[
        "testNewMemberSubscriptionRecord",
        "testNewMemberSubscriptionTombstoneRecord",
        "testNewGroupSubscriptionMetadataRecord",
        "testNewGroupSubscriptionMetadataTombstoneRecord",
        "testEmptyPartitionMetadataWhenRacksUnavailableGroupSubscriptionMetadataRecord",
        "testNewGroupEpochRecord",
        "testNewGroupEpochTombstoneRecord",
        "testNewGroupEpochTombstoneRecordShareGroup",
        "testNewGroupEpochTombstoneRecordUnknownGroup",
        "testNewTargetAssignmentRecord",
        "testNewTargetAssignmentTombstoneRecord",
        "testNewTargetAssignmentEpochRecord",
        "testNewTargetAssignmentEpochTombstoneRecord",
        "testNewCurrentAssignmentRecord",
        "testNewCurrentAssignmentTombstoneRecord",
        "testNewGroupMetadataRecord",
        "testNewGroupMetadataTombstoneRecord",
        "testNewGroupMetadataRecordThrowsWhenNullSubscription",
        "testNewGroupMetadataRecordThrowsWhenEmptyAssignment",
        "testEmptyGroupMetadataRecord",
        "testNewOffsetCommitRecord",
        "testNewOffsetCommitRecordWithExpireTimestamp",
        "testNewOffsetCommitTombstoneRecord",
    ],
    not_ported={
        "testNewGroupEpochTombstoneRecordShareGroup": "share groups (KIP-932): ShareGroupMetadataKey is not ported",
    },
)


def _assert_record_equals(expected: CoordinatorRecord, actual: CoordinatorRecord) -> None:
    """Assertions.assertRecordEquals, for the records these cases compare with it: a partition's racks are
    compared as a set, topics in topic id order."""
    for expected_part, actual_part in ((expected.key(), actual.key()), (expected.value(), actual.value())):
        if expected_part is actual_part:
            continue
        assert expected_part is not None and actual_part is not None
        assert expected_part.version == actual_part.version
        if isinstance(actual_part.message, ConsumerGroupPartitionMetadataValue):
            expected_topics = sorted(expected_part.message.topics, key=lambda topic: topic.topic_id)
            actual_topics = sorted(actual_part.message.topics, key=lambda topic: topic.topic_id)
            assert len(expected_topics) == len(actual_topics), "Topic metadata lists have different sizes"
            for expected_topic, actual_topic in zip(expected_topics, actual_topics, strict=True):
                assert expected_topic.topic_id == actual_topic.topic_id
                assert expected_topic.topic_name == actual_topic.topic_name
                assert expected_topic.num_partitions == actual_topic.num_partitions
                assert len(expected_topic.partition_metadata) == len(actual_topic.partition_metadata), \
                    "Partition metadata lists have different sizes"
                for expected_partition, actual_partition in zip(expected_topic.partition_metadata,
                                                                actual_topic.partition_metadata, strict=True):
                    assert expected_partition.partition == actual_partition.partition
                    assert set(expected_partition.racks) == set(actual_partition.racks)
        else:
            assert expected_part.message == actual_part.message


def test_new_member_subscription_record() -> None:
    protocols = [ClassicProtocol(name="range", metadata=b"")]

    member = (ConsumerGroupMember.Builder("member-id")
              .set_instance_id("instance-id")
              .set_rack_id("rack-id")
              .set_rebalance_timeout_ms(5000)
              .set_client_id("client-id")
              .set_client_host("client-host")
              .set_subscribed_topic_names(["foo", "zar", "bar"])
              .set_subscribed_topic_regex("regex")
              .set_server_assignor_name("range")
              .set_classic_member_metadata(ClassicMemberMetadata(supported_protocols=protocols))
              .build())

    expected_record = CoordinatorRecord(
        ApiMessageAndVersion(ConsumerGroupMemberMetadataKey(group_id="group-id", member_id="member-id"), 5),
        ApiMessageAndVersion(
            ConsumerGroupMemberMetadataValue(
                instance_id="instance-id",
                rack_id="rack-id",
                rebalance_timeout_ms=5000,
                client_id="client-id",
                client_host="client-host",
                subscribed_topic_names=["bar", "foo", "zar"],
                subscribed_topic_regex="regex",
                server_assignor="range",
                classic_member_metadata=ClassicMemberMetadata(supported_protocols=protocols),
            ),
            0,
        ),
    )

    assert expected_record == new_member_subscription_record("group-id", member)


def test_new_member_subscription_tombstone_record() -> None:
    expected_record = CoordinatorRecord(
        ApiMessageAndVersion(ConsumerGroupMemberMetadataKey(group_id="group-id", member_id="member-id"), 5),
        None,
    )

    assert expected_record == new_member_subscription_tombstone_record("group-id", "member-id")


def test_new_group_subscription_metadata_record() -> None:
    foo_topic_id = uuid.uuid4()
    bar_topic_id = uuid.uuid4()
    subscription_metadata = {
        "foo": TopicMetadata(foo_topic_id, "foo", 10, mk_map_of_partition_racks(10)),
        "bar": TopicMetadata(bar_topic_id, "bar", 20, mk_map_of_partition_racks(20)),
    }

    expected_record = CoordinatorRecord(
        ApiMessageAndVersion(ConsumerGroupPartitionMetadataKey(group_id="group-id"), 4),
        ApiMessageAndVersion(
            ConsumerGroupPartitionMetadataValue(topics=[
                TopicMetadataRecord(topic_id=foo_topic_id, topic_name="foo", num_partitions=10,
                                    partition_metadata=mk_list_of_partition_racks(10)),
                TopicMetadataRecord(topic_id=bar_topic_id, topic_name="bar", num_partitions=20,
                                    partition_metadata=mk_list_of_partition_racks(20)),
            ]),
            0,
        ),
    )

    _assert_record_equals(expected_record, new_group_subscription_metadata_record("group-id", subscription_metadata))


def test_new_group_subscription_metadata_tombstone_record() -> None:
    expected_record = CoordinatorRecord(
        ApiMessageAndVersion(ConsumerGroupPartitionMetadataKey(group_id="group-id"), 4),
        None,
    )

    assert expected_record == new_group_subscription_metadata_tombstone_record("group-id")


def test_empty_partition_metadata_when_racks_unavailable_group_subscription_metadata_record() -> None:
    foo_topic_id = uuid.uuid4()
    bar_topic_id = uuid.uuid4()
    subscription_metadata = {
        "foo": TopicMetadata(foo_topic_id, "foo", 10, {}),
        "bar": TopicMetadata(bar_topic_id, "bar", 20, {}),
    }

    expected_record = CoordinatorRecord(
        ApiMessageAndVersion(ConsumerGroupPartitionMetadataKey(group_id="group-id"), 4),
        ApiMessageAndVersion(
            ConsumerGroupPartitionMetadataValue(topics=[
                TopicMetadataRecord(topic_id=foo_topic_id, topic_name="foo", num_partitions=10,
                                    partition_metadata=[]),
                TopicMetadataRecord(topic_id=bar_topic_id, topic_name="bar", num_partitions=20,
                                    partition_metadata=[]),
            ]),
            0,
        ),
    )

    _assert_record_equals(expected_record, new_group_subscription_metadata_record("group-id", subscription_metadata))


def test_new_group_epoch_record() -> None:
    expected_record = CoordinatorRecord(
        ApiMessageAndVersion(ConsumerGroupMetadataKey(group_id="group-id"), 3),
        ApiMessageAndVersion(ConsumerGroupMetadataValue(epoch=10), 0),
    )

    assert expected_record == new_group_epoch_record("group-id", 10)


def test_new_group_epoch_tombstone_record() -> None:
    expected_record = CoordinatorRecord(ApiMessageAndVersion(ConsumerGroupMetadataKey(group_id="group-id"), 3), None)

    assert expected_record == new_group_epoch_tombstone_record("group-id")


def test_new_group_epoch_tombstone_record_unknown_group() -> None:
    with pytest.raises(IllegalArgumentException):
        new_group_epoch_tombstone_record("group-id", Group.GroupType.UNKNOWN)


def test_new_target_assignment_record() -> None:
    topic_id1 = uuid.uuid4()
    topic_id2 = uuid.uuid4()

    partitions = mk_ordered_assignment(
        mk_topic_assignment(topic_id1, 11, 12, 13),
        mk_topic_assignment(topic_id2, 21, 22, 23),
    )

    expected_record = CoordinatorRecord(
        ApiMessageAndVersion(ConsumerGroupTargetAssignmentMemberKey(group_id="group-id", member_id="member-id"), 7),
        ApiMessageAndVersion(
            ConsumerGroupTargetAssignmentMemberValue(topic_partitions=[
                TopicPartition(topic_id=topic_id1, partitions=[11, 12, 13]),
                TopicPartition(topic_id=topic_id2, partitions=[21, 22, 23]),
            ]),
            0,
        ),
    )

    assert expected_record == new_target_assignment_record("group-id", "member-id", partitions)


def test_new_target_assignment_tombstone_record() -> None:
    expected_record = CoordinatorRecord(
        ApiMessageAndVersion(ConsumerGroupTargetAssignmentMemberKey(group_id="group-id", member_id="member-id"), 7),
        None,
    )

    assert expected_record == new_target_assignment_tombstone_record("group-id", "member-id")


def test_new_target_assignment_epoch_record() -> None:
    expected_record = CoordinatorRecord(
        ApiMessageAndVersion(ConsumerGroupTargetAssignmentMetadataKey(group_id="group-id"), 6),
        ApiMessageAndVersion(ConsumerGroupTargetAssignmentMetadataValue(assignment_epoch=10), 0),
    )

    assert expected_record == new_target_assignment_epoch_record("group-id", 10)


def test_new_target_assignment_epoch_tombstone_record() -> None:
    expected_record = CoordinatorRecord(
        ApiMessageAndVersion(ConsumerGroupTargetAssignmentMetadataKey(group_id="group-id"), 6),
        None,
    )

    assert expected_record == new_target_assignment_epoch_tombstone_record("group-id")


def test_new_current_assignment_record() -> None:
    topic_id1 = uuid.uuid4()
    topic_id2 = uuid.uuid4()

    assigned = mk_ordered_assignment(
        mk_ordered_topic_assignment(topic_id1, 11, 12, 13),
        mk_ordered_topic_assignment(topic_id2, 21, 22, 23),
    )
    revoking = mk_ordered_assignment(
        mk_ordered_topic_assignment(topic_id1, 14, 15, 16),
        mk_ordered_topic_assignment(topic_id2, 24, 25, 26),
    )

    expected_record = CoordinatorRecord(
        ApiMessageAndVersion(ConsumerGroupCurrentMemberAssignmentKey(group_id="group-id", member_id="member-id"), 8),
        ApiMessageAndVersion(
            ConsumerGroupCurrentMemberAssignmentValue(
                state=MemberState.UNREVOKED_PARTITIONS.value,
                member_epoch=22,
                previous_member_epoch=21,
                assigned_partitions=[
                    TopicPartitions(topic_id=topic_id1, partitions=[11, 12, 13]),
                    TopicPartitions(topic_id=topic_id2, partitions=[21, 22, 23]),
                ],
                partitions_pending_revocation=[
                    TopicPartitions(topic_id=topic_id1, partitions=[14, 15, 16]),
                    TopicPartitions(topic_id=topic_id2, partitions=[24, 25, 26]),
                ],
            ),
            0,
        ),
    )

    assert expected_record == new_current_assignment_record(
        "group-id",
        ConsumerGroupMember.Builder("member-id")
        .set_state(MemberState.UNREVOKED_PARTITIONS)
        .set_member_epoch(22)
        .set_previous_member_epoch(21)
        .set_assigned_partitions(assigned)
        .set_partitions_pending_revocation(revoking)
        .build(),
    )


def test_new_current_assignment_tombstone_record() -> None:
    expected_record = CoordinatorRecord(
        ApiMessageAndVersion(ConsumerGroupCurrentMemberAssignmentKey(group_id="group-id", member_id="member-id"), 8),
        None,
    )

    assert expected_record == new_current_assignment_tombstone_record("group-id", "member-id")


# metadataToExpectedGroupMetadataValue
_METADATA_TO_EXPECTED_GROUP_METADATA_VALUE = [
    (MetadataVersion.IBP_0_10_0_IV0, 0),
    (MetadataVersion.IBP_1_1_IV0, 1),
    (MetadataVersion.IBP_2_2_IV0, 2),
    (MetadataVersion.IBP_3_5_IV0, 3),
]


@pytest.mark.parametrize(("metadata_version", "expected_group_metadata_value_version"),
                         _METADATA_TO_EXPECTED_GROUP_METADATA_VALUE)
def test_new_group_metadata_record(metadata_version: MetadataVersion,
                                   expected_group_metadata_value_version: int) -> None:
    time = MockTime()

    expected_members = [
        MemberMetadata(member_id="member-1", client_id="client-1", client_host="host-1", rebalance_timeout=1000,
                       session_timeout=1500, group_instance_id="group-instance-1", subscription=bytes([0, 1]),
                       assignment=bytes([1, 2])),
        MemberMetadata(member_id="member-2", client_id="client-2", client_host="host-2", rebalance_timeout=1000,
                       session_timeout=1500, group_instance_id="group-instance-2", subscription=bytes([1, 2]),
                       assignment=bytes([2, 3])),
    ]

    expected_record = CoordinatorRecord(
        ApiMessageAndVersion(GroupMetadataKey(group="group-id"), 2),
        ApiMessageAndVersion(
            GroupMetadataValue(protocol="range", protocol_type="consumer", leader="member-1", generation=1,
                               current_state_timestamp=time.milliseconds(), members=expected_members),
            expected_group_metadata_value_version,
        ),
    )

    group = ClassicGroup("", "group-id", ClassicGroupState.PREPARING_REBALANCE, time)

    assignment: dict[str, bytes] = {}
    for member in expected_members:
        protocols = [JoinGroupRequestProtocol(name="range", metadata=member.subscription)]
        group.add(ClassicGroupMember(member.member_id, member.group_instance_id, member.client_id,
                                     member.client_host, member.rebalance_timeout, member.session_timeout,
                                     "consumer", protocols, ClassicGroupMember.EMPTY_ASSIGNMENT))
        assignment[member.member_id] = member.assignment

    group.init_next_generation()
    group_metadata_record = new_group_metadata_record(group, assignment, metadata_version)

    assert expected_record == group_metadata_record


def test_new_group_metadata_tombstone_record() -> None:
    expected_record = CoordinatorRecord(ApiMessageAndVersion(GroupMetadataKey(group="group-id"), 2), None)

    group_metadata_record = new_group_metadata_tombstone_record("group-id")
    assert expected_record == group_metadata_record


def test_new_group_metadata_record_throws_when_null_subscription() -> None:
    time = MockTime()

    expected_members = [
        MemberMetadata(member_id="member-1", client_id="client-1", client_host="host-1", rebalance_timeout=1000,
                       session_timeout=1500, group_instance_id="group-instance-1", subscription=bytes([0, 1]),
                       assignment=bytes([1, 2])),
    ]

    group = ClassicGroup("", "group-id", ClassicGroupState.PREPARING_REBALANCE, time)

    for member in expected_members:
        # Kafka's generated request protocol takes a null metadata; kio's dataclass does not check its fields
        protocols = [JoinGroupRequestProtocol(name="range", metadata=None)]  # type: ignore[arg-type]
        group.add(ClassicGroupMember(member.member_id, member.group_instance_id, member.client_id,
                                     member.client_host, member.rebalance_timeout, member.session_timeout,
                                     "consumer", protocols, member.assignment))

    with pytest.raises(IllegalStateException):
        new_group_metadata_record(group, {}, MetadataVersion.IBP_3_5_IV2)


def test_new_group_metadata_record_throws_when_empty_assignment() -> None:
    time = MockTime()

    # Kafka sets a null assignment: the record class here holds bytes, so the member below is given None directly
    expected_members = [
        MemberMetadata(member_id="member-1", client_id="client-1", client_host="host-1", rebalance_timeout=1000,
                       session_timeout=1500, group_instance_id="group-instance-1", subscription=bytes([0, 1])),
    ]

    group = ClassicGroup("", "group-id", ClassicGroupState.PREPARING_REBALANCE, time)

    for member in expected_members:
        protocols = [JoinGroupRequestProtocol(name="range", metadata=member.subscription)]
        group.add(ClassicGroupMember(member.member_id, member.group_instance_id, member.client_id,
                                     member.client_host, member.rebalance_timeout, member.session_timeout,
                                     "consumer", protocols, None))

    with pytest.raises(IllegalStateException):
        new_group_metadata_record(group, {}, MetadataVersion.IBP_3_5_IV2)


@pytest.mark.parametrize(("metadata_version", "expected_group_metadata_value_version"),
                         _METADATA_TO_EXPECTED_GROUP_METADATA_VALUE)
def test_empty_group_metadata_record(metadata_version: MetadataVersion,
                                     expected_group_metadata_value_version: int) -> None:
    time = MockTime()

    expected_members: list[MemberMetadata] = []

    expected_record = CoordinatorRecord(
        ApiMessageAndVersion(GroupMetadataKey(group="group-id"), 2),
        ApiMessageAndVersion(
            GroupMetadataValue(protocol=None, protocol_type="", leader=None, generation=0,
                               current_state_timestamp=time.milliseconds(), members=expected_members),
            expected_group_metadata_value_version,
        ),
    )

    group = ClassicGroup("", "group-id", ClassicGroupState.PREPARING_REBALANCE, time)

    group.init_next_generation()
    group_metadata_record = new_empty_group_metadata_record(group, metadata_version)

    assert expected_record == group_metadata_record


@pytest.mark.parametrize("metadata_version", list(MetadataVersion))
def test_new_offset_commit_record(metadata_version: MetadataVersion) -> None:
    key = OffsetCommitKey(group="group-id", topic="foo", partition=1)
    value = OffsetCommitValue(offset=100, leader_epoch=10, metadata="metadata", commit_timestamp=1234,
                              expire_timestamp=-1)

    expected_record = CoordinatorRecord(
        ApiMessageAndVersion(key, 1),
        ApiMessageAndVersion(value, metadata_version.offset_commit_value_version(False)),
    )

    assert expected_record == new_offset_commit_record(
        "group-id", "foo", 1, OffsetAndMetadata(100, 10, "metadata", 1234, None), metadata_version)

    # Kafka sets the leader epoch on the same expected value; the record classes here are immutable
    value = OffsetCommitValue(offset=100, leader_epoch=-1, metadata="metadata", commit_timestamp=1234,
                              expire_timestamp=-1)
    expected_record = CoordinatorRecord(
        ApiMessageAndVersion(key, 1),
        ApiMessageAndVersion(value, metadata_version.offset_commit_value_version(False)),
    )

    assert expected_record == new_offset_commit_record(
        "group-id", "foo", 1, OffsetAndMetadata(100, None, "metadata", 1234, None), metadata_version)


@pytest.mark.parametrize("metadata_version", list(MetadataVersion))
def test_new_offset_commit_record_with_expire_timestamp(metadata_version: MetadataVersion) -> None:
    expected_record = CoordinatorRecord(
        ApiMessageAndVersion(OffsetCommitKey(group="group-id", topic="foo", partition=1), 1),
        ApiMessageAndVersion(
            OffsetCommitValue(offset=100, leader_epoch=10, metadata="metadata", commit_timestamp=1234,
                              expire_timestamp=5678),
            1,  # an expire timestamp is only in version 1
        ),
    )

    assert expected_record == new_offset_commit_record(
        "group-id", "foo", 1, OffsetAndMetadata(100, 10, "metadata", 1234, 5678), metadata_version)


def test_new_offset_commit_tombstone_record() -> None:
    expected_record = CoordinatorRecord(
        ApiMessageAndVersion(OffsetCommitKey(group="group-id", topic="foo", partition=1), 1),
        None,
    )

    record = new_offset_commit_tombstone_record("group-id", "foo", 1)
    assert expected_record == record
