"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/CoordinatorRecordHelpers.java (Kafka
3.9): the consumer group records only.

Ported: the ConsumerGroup* records (member subscription, subscription metadata, group epoch, target assignment and
its epoch, current assignment) and their tombstones. Not ported yet: the classic group (GroupMetadata), offset commit
and share group records, which need record classes this package does not have; newGroupEpochRecord and its
tombstone raise NotImplementedError for a share group. Kafka's key versions are the record types of
__consumer_offsets.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Set

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
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
from kafka_edu.v3_9.group_coordinator.coordinator.group.group import Group
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.consumer.consumer_group_member import (
    ConsumerGroupMember,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.topic_metadata import TopicMetadata
from kafka_edu.v3_9.server_common.server.common.api_message_and_version import ApiMessageAndVersion


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
            topic_id=_to_uuid(topic_metadata.id()),
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
    topic_partitions = [TopicPartition(topic_id=_to_uuid(topic_id), partitions=list(topic_partitions))
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


def _to_topic_partitions(topic_partitions: Mapping[uuid.UUID, Set[int]]) -> list[TopicPartitions]:
    return [TopicPartitions(topic_id=_to_uuid(topic_id), partitions=list(partitions))
            for topic_id, partitions in topic_partitions.items()]


def _to_uuid(topic_id: object) -> uuid.UUID:
    """The records carry uuid.UUID; TopicMetadata may hold Kafka's Uuid class (its from_record converts one way)."""
    if isinstance(topic_id, uuid.UUID):
        return topic_id
    return uuid.UUID(bytes=topic_id.to_bytes())  # type: ignore[attr-defined]
