"""Port of metadata/src/main/java/org/apache/kafka/image/LocalReplicaChanges.java (Kafka 3.9), with
TopicDelta.localChanges and TopicsDelta.localChanges (the same 3.9 package): what one delta asks of one broker."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from kafka_edu.v3_9.clients.common.topic_id_partition import TopicIdPartition
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.metadata.image.topic_delta import TopicDelta
from kafka_edu.v3_9.metadata.image.topics_delta import TopicsDelta
from kafka_edu.v3_9.metadata.metadata.partition_registration import MIGRATING_DIR, PartitionRegistration


@dataclass(frozen=True)
class PartitionInfo:
    """LocalReplicaChanges.PartitionInfo: a partition this broker now leads or follows, and its topic's id."""

    topic_id: uuid.UUID
    partition: PartitionRegistration

    def __str__(self) -> str:
        return f"PartitionInfo(topicId = {self.topic_id}, partition = {self.partition})"


@dataclass(frozen=True)
class LocalReplicaChanges:
    """The partitions a delta removes from this broker, makes it lead and makes it follow, with the log directory
    of each it leads or follows (KIP-858)."""

    deletes: set[TopicPartition] = field(default_factory=set)
    # the partitions of `leaders` whose leader epoch moved: this broker was just elected (a coordinator loads them)
    elected_leaders: dict[TopicPartition, PartitionInfo] = field(default_factory=dict)
    leaders: dict[TopicPartition, PartitionInfo] = field(default_factory=dict)
    followers: dict[TopicPartition, PartitionInfo] = field(default_factory=dict)
    # topic name -> id, for the topics of `leaders` and `followers`
    topic_ids: dict[str, uuid.UUID] = field(default_factory=dict)
    # the log directory the metadata assigns to each partition of `leaders` and `followers` (KIP-858)
    directory_ids: dict[TopicIdPartition, uuid.UUID] = field(default_factory=dict)

    def __str__(self) -> str:
        return (f"LocalReplicaChanges(deletes = {sorted(map(str, self.deletes))}, leaders = "
                f"{sorted(map(str, self.leaders))}, followers = {sorted(map(str, self.followers))})")


def topic_local_changes(topic_delta: TopicDelta, broker_id: int) -> LocalReplicaChanges:
    """TopicDelta.localChanges: of one topic's changed partitions, those this broker left, leads or follows.

    A partition whose partition epoch did not move (a record that changed nothing this broker sees) is neither led
    nor followed anew; every leader or ISR change bumps the partition epoch, so an ISR change on a partition this
    broker leads is in `leaders` again.
    """
    changes = LocalReplicaChanges()
    image_partitions = topic_delta.image().partitions
    for partition_id, partition in topic_delta.partition_changes().items():
        prev_partition = image_partitions.get(partition_id)
        topic_partition = TopicPartition(topic_delta.name(), partition_id)
        if broker_id not in partition.replicas:
            if prev_partition is not None and broker_id in prev_partition.replicas:
                changes.deletes.add(topic_partition)
        elif prev_partition is None or prev_partition.partition_epoch != partition.partition_epoch:
            target = changes.leaders if partition.leader == broker_id else changes.followers
            target[topic_partition] = PartitionInfo(topic_delta.id(), partition)
            if partition.leader == broker_id and (prev_partition is None
                                                  or prev_partition.leader_epoch != partition.leader_epoch):
                changes.elected_leaders[topic_partition] = target[topic_partition]
            changes.topic_ids.setdefault(topic_delta.name(), topic_delta.id())
            # a registration built without directories (as records before KIP-858 are read) is MIGRATING
            directory = partition.directory(broker_id) if partition.directories else MIGRATING_DIR
            changes.directory_ids[TopicIdPartition(topic_delta.id(), topic_partition)] = directory
    return changes


def local_changes(topics_delta: TopicsDelta, broker_id: int) -> LocalReplicaChanges:
    """TopicsDelta.localChanges: every changed topic's local changes, plus each replica of a deleted topic that this
    broker held (a deleted topic has no TopicDelta, so it is read from the image the delta started from)."""
    changes = LocalReplicaChanges()
    for topic_delta in topics_delta.changed_topics().values():
        topic_changes = topic_local_changes(topic_delta, broker_id)
        changes.deletes.update(topic_changes.deletes)
        changes.elected_leaders.update(topic_changes.elected_leaders)
        changes.leaders.update(topic_changes.leaders)
        changes.followers.update(topic_changes.followers)
        changes.topic_ids.update(topic_changes.topic_ids)
        changes.directory_ids.update(topic_changes.directory_ids)
    for topic_id in topics_delta.deleted_topic_ids():
        topic_image = topics_delta.image().get_topic(topic_id)
        for partition_id, prev_partition in topic_image.partitions.items():
            if broker_id in prev_partition.replicas:
                changes.deletes.add(TopicPartition(topic_image.name, partition_id))
    return changes
