"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/CoordinatorRecordHelpers.java (Kafka
3.9): every helper but the share group ones.

The ConsumerGroup* records (member subscription, subscription metadata, group epoch, target assignment and its
epoch, current assignment), the classic group's GroupMetadata record and the offset commit record, with their
tombstones. Share groups (KIP-932) are not ported: newGroupEpochRecord and its tombstone raise NotImplementedError
for one, and newShareGroupMemberSubscription(Tombstone)Record and the share member overload of
newCurrentAssignmentRecord are left out. Kafka's key versions are the record types of __consumer_offsets; the
metadata.version picks the value versions of the two classic records.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Set
from typing import TYPE_CHECKING

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, IllegalStateException
from kafka_edu.v3_9.clients.common.record.record_batch import NO_PARTITION_LEADER_EPOCH
from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record import CoordinatorRecord
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
    PartitionMetadata,
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
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.topic_metadata import TopicMetadata
from kafka_edu.v3_9.group_coordinator.coordinator.group.offset_and_metadata import OffsetAndMetadata
from kafka_edu.v3_9.server_common.server.common.api_message_and_version import ApiMessageAndVersion
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion

if TYPE_CHECKING:
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import ClassicGroup

# OffsetCommitRequest.DEFAULT_TIMESTAMP: no expire timestamp
_DEFAULT_TIMESTAMP = -1


def new_member_subscription_record(group_id: str, member: ConsumerGroupMember) -> CoordinatorRecord:
    # sorted so that the same subscription always writes the same record
    topic_names = sorted(member.subscribed_topic_names())
    return CoordinatorRecord(
        ApiMessageAndVersion(ConsumerGroupMemberMetadataKey(group_id=group_id, member_id=member.member_id()), 5),
        ApiMessageAndVersion(
            ConsumerGroupMemberMetadataValue(
                rack_id=member.rack_id(),
                instance_id=member.instance_id(),
                client_id=member.client_id(),
                client_host=member.client_host(),
                subscribed_topic_names=topic_names,
                subscribed_topic_regex=member.subscribed_topic_regex(),
                server_assignor=member.server_assignor_name(),
                rebalance_timeout_ms=member.rebalance_timeout_ms(),
                classic_member_metadata=member.classic_member_metadata(),
            ),
            0,
        ),
    )


def new_member_subscription_tombstone_record(group_id: str, member_id: str) -> CoordinatorRecord:
    return CoordinatorRecord(
        ApiMessageAndVersion(ConsumerGroupMemberMetadataKey(group_id=group_id, member_id=member_id), 5),
        None,
    )


def new_group_subscription_metadata_record(
    group_id: str, new_subscription_metadata: Mapping[str, TopicMetadata],
) -> CoordinatorRecord:
    topics: list[TopicMetadataRecord] = []
    for topic_metadata in new_subscription_metadata.values():
        # no rack known for any partition: an empty list, not a partition entry each with no rack
        partition_metadata = [PartitionMetadata(partition=partition, racks=list(racks))
                              for partition, racks in topic_metadata.partition_racks().items()]
        topics.append(TopicMetadataRecord(
            topic_id=topic_metadata.id(),
            topic_name=topic_metadata.name(),
            num_partitions=topic_metadata.num_partitions(),
            partition_metadata=partition_metadata,
        ))
    return CoordinatorRecord(
        ApiMessageAndVersion(ConsumerGroupPartitionMetadataKey(group_id=group_id), 4),
        ApiMessageAndVersion(ConsumerGroupPartitionMetadataValue(topics=topics), 0),
    )


def new_group_subscription_metadata_tombstone_record(group_id: str) -> CoordinatorRecord:
    return CoordinatorRecord(ApiMessageAndVersion(ConsumerGroupPartitionMetadataKey(group_id=group_id), 4), None)


def new_group_epoch_record(
    group_id: str, new_group_epoch: int, group_type: Group.GroupType = Group.GroupType.CONSUMER,
) -> CoordinatorRecord:
    """Kafka's two overloads: a consumer group unless the type says otherwise."""
    if group_type == Group.GroupType.CONSUMER:
        return CoordinatorRecord(
            ApiMessageAndVersion(ConsumerGroupMetadataKey(group_id=group_id), 3),
            ApiMessageAndVersion(ConsumerGroupMetadataValue(epoch=new_group_epoch), 0),
        )
    if group_type == Group.GroupType.SHARE:
        raise NotImplementedError("newGroupEpochRecord: share group records (ShareGroupMetadataKey) are not ported")
    raise IllegalArgumentException(f"Unsupported group type: {group_type}")


def new_group_epoch_tombstone_record(
    group_id: str, group_type: Group.GroupType = Group.GroupType.CONSUMER,
) -> CoordinatorRecord:
    if group_type == Group.GroupType.CONSUMER:
        return CoordinatorRecord(ApiMessageAndVersion(ConsumerGroupMetadataKey(group_id=group_id), 3), None)
    if group_type == Group.GroupType.SHARE:
        raise NotImplementedError(
            "newGroupEpochTombstoneRecord: share group records (ShareGroupMetadataKey) are not ported")
    raise IllegalArgumentException(f"Unsupported group type: {group_type}")


def new_target_assignment_record(
    group_id: str, member_id: str, partitions: Mapping[uuid.UUID, Set[int]],
) -> CoordinatorRecord:
    # topics and partitions in the map's and sets' own order, as Kafka copies them
    topic_partitions = [TopicPartition(topic_id=topic_id, partitions=list(topic_partitions))
                        for topic_id, topic_partitions in partitions.items()]
    return CoordinatorRecord(
        ApiMessageAndVersion(ConsumerGroupTargetAssignmentMemberKey(group_id=group_id, member_id=member_id), 7),
        ApiMessageAndVersion(ConsumerGroupTargetAssignmentMemberValue(topic_partitions=topic_partitions), 0),
    )


def new_target_assignment_tombstone_record(group_id: str, member_id: str) -> CoordinatorRecord:
    return CoordinatorRecord(
        ApiMessageAndVersion(ConsumerGroupTargetAssignmentMemberKey(group_id=group_id, member_id=member_id), 7),
        None,
    )


def new_target_assignment_epoch_record(group_id: str, assignment_epoch: int) -> CoordinatorRecord:
    return CoordinatorRecord(
        ApiMessageAndVersion(ConsumerGroupTargetAssignmentMetadataKey(group_id=group_id), 6),
        ApiMessageAndVersion(ConsumerGroupTargetAssignmentMetadataValue(assignment_epoch=assignment_epoch), 0),
    )


def new_target_assignment_epoch_tombstone_record(group_id: str) -> CoordinatorRecord:
    return CoordinatorRecord(ApiMessageAndVersion(ConsumerGroupTargetAssignmentMetadataKey(group_id=group_id), 6),
                             None)


def new_current_assignment_record(group_id: str, member: ConsumerGroupMember) -> CoordinatorRecord:
    """Kafka's overload for a consumer group member (the share group one is not ported)."""
    return CoordinatorRecord(
        ApiMessageAndVersion(ConsumerGroupCurrentMemberAssignmentKey(group_id=group_id, member_id=member.member_id()),
                             8),
        ApiMessageAndVersion(
            ConsumerGroupCurrentMemberAssignmentValue(
                member_epoch=member.member_epoch(),
                previous_member_epoch=member.previous_member_epoch(),
                state=member.state().value,
                assigned_partitions=_to_topic_partitions(member.assigned_partitions()),
                partitions_pending_revocation=_to_topic_partitions(member.partitions_pending_revocation()),
            ),
            0,
        ),
    )


def new_current_assignment_tombstone_record(group_id: str, member_id: str) -> CoordinatorRecord:
    return CoordinatorRecord(
        ApiMessageAndVersion(ConsumerGroupCurrentMemberAssignmentKey(group_id=group_id, member_id=member_id), 8),
        None,
    )


def new_group_metadata_record(
    group: ClassicGroup, assignment: Mapping[str, bytes], metadata_version: MetadataVersion,
) -> CoordinatorRecord:
    members: list[MemberMetadata] = []
    for member in group.all_members():
        protocol_name = group.protocol_name()
        subscription = member.metadata(protocol_name) if protocol_name is not None else None
        if subscription is None:
            raise IllegalStateException("Attempted to write non-empty group metadata with no defined protocol.")

        member_assignment = assignment.get(member.member_id())
        if member_assignment is None:
            raise IllegalStateException(
                f"Attempted to write member {member.member_id()} of group {group.group_id()} with no assignment.")

        members.append(MemberMetadata(
            member_id=member.member_id(),
            client_id=member.client_id(),
            client_host=member.client_host(),
            rebalance_timeout=member.rebalance_timeout_ms(),
            session_timeout=member.session_timeout_ms(),
            group_instance_id=member.group_instance_id(),
            subscription=subscription,
            assignment=member_assignment,
        ))

    protocol_type = group.protocol_type()
    return CoordinatorRecord(
        ApiMessageAndVersion(GroupMetadataKey(group=group.group_id()), 2),
        ApiMessageAndVersion(
            GroupMetadataValue(
                protocol=group.protocol_name(),
                protocol_type=protocol_type if protocol_type is not None else "",
                generation=group.generation_id(),
                leader=group.leader_or_null(),
                current_state_timestamp=group.current_state_timestamp_or_default(),
                members=members,
            ),
            metadata_version.group_metadata_value_version(),
        ),
    )


def new_group_metadata_tombstone_record(group_id: str) -> CoordinatorRecord:
    return CoordinatorRecord(ApiMessageAndVersion(GroupMetadataKey(group=group_id), 2), None)


def new_empty_group_metadata_record(group: ClassicGroup, metadata_version: MetadataVersion) -> CoordinatorRecord:
    """The record of a group with no members: no protocol, generation 0, no leader."""
    return CoordinatorRecord(
        ApiMessageAndVersion(GroupMetadataKey(group=group.group_id()), 2),
        ApiMessageAndVersion(
            GroupMetadataValue(
                protocol=None,
                protocol_type="",
                generation=0,
                leader=None,
                current_state_timestamp=group.current_state_timestamp_or_default(),
                members=(),
            ),
            metadata_version.group_metadata_value_version(),
        ),
    )


def new_offset_commit_record(
    group_id: str, topic: str, partition_id: int, offset_and_metadata: OffsetAndMetadata,
    metadata_version: MetadataVersion,
) -> CoordinatorRecord:
    # an expire timestamp forces version 1, the only one that stores it
    version = metadata_version.offset_commit_value_version(offset_and_metadata.expire_timestamp_ms is not None)
    leader_epoch = offset_and_metadata.leader_epoch
    expire_timestamp = offset_and_metadata.expire_timestamp_ms
    return CoordinatorRecord(
        ApiMessageAndVersion(OffsetCommitKey(group=group_id, topic=topic, partition=partition_id), 1),
        ApiMessageAndVersion(
            OffsetCommitValue(
                offset=offset_and_metadata.committed_offset,
                leader_epoch=leader_epoch if leader_epoch is not None else NO_PARTITION_LEADER_EPOCH,
                metadata=offset_and_metadata.metadata,
                commit_timestamp=offset_and_metadata.commit_timestamp_ms,
                expire_timestamp=expire_timestamp if expire_timestamp is not None else _DEFAULT_TIMESTAMP,
            ),
            version,
        ),
    )


def new_offset_commit_tombstone_record(group_id: str, topic: str, partition_id: int) -> CoordinatorRecord:
    return CoordinatorRecord(
        ApiMessageAndVersion(OffsetCommitKey(group=group_id, topic=topic, partition=partition_id), 1),
        None,
    )


def _to_topic_partitions(topic_partitions: Mapping[uuid.UUID, Set[int]]) -> list[TopicPartitions]:
    return [TopicPartitions(topic_id=topic_id, partitions=list(partitions))
            for topic_id, partitions in topic_partitions.items()]

