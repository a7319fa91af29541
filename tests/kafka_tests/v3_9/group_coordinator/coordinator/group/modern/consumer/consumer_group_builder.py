"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/modern/consumer/ConsumerGroupBuilder.java
(Kafka 3.9).

The records that write a whole consumer group to __consumer_offsets, for tests that replay a group into a
coordinator (Kafka's GroupMetadataManagerTest). Topic ids are uuid.UUID.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Set

from kafka_edu.v3_9.group_coordinator.coordinator.group import coordinator_record_helpers
from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record import CoordinatorRecord
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.assignment import Assignment
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.consumer.consumer_group_member import (
    ConsumerGroupMember,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.topic_metadata import TopicMetadata
from kafka_edu.v3_9.metadata.image.topics_image import TopicsImage


class ConsumerGroupBuilder:
    def __init__(self, group_id: str, group_epoch: int) -> None:
        self._group_id = group_id
        self._group_epoch = group_epoch
        self._assignment_epoch = 0
        self._members: dict[str, ConsumerGroupMember] = {}
        self._assignments: dict[str, Assignment] = {}
        self._subscription_metadata: dict[str, TopicMetadata] | None = None

    def with_member(self, member: ConsumerGroupMember) -> ConsumerGroupBuilder:
        self._members[member.member_id()] = member
        return self

    def with_subscription_metadata(self, subscription_metadata: Mapping[str, TopicMetadata]) -> ConsumerGroupBuilder:
        self._subscription_metadata = dict(subscription_metadata)
        return self

    def with_assignment(self, member_id: str, assignment: Mapping[uuid.UUID, Set[int]]) -> ConsumerGroupBuilder:
        self._assignments[member_id] = Assignment(assignment)
        return self

    def with_assignment_epoch(self, assignment_epoch: int) -> ConsumerGroupBuilder:
        self._assignment_epoch = assignment_epoch
        return self

    def build(self, topics_image: TopicsImage) -> list[CoordinatorRecord]:
        records: list[CoordinatorRecord] = []

        # the members' subscriptions
        for member in self._members.values():
            records.append(coordinator_record_helpers.new_member_subscription_record(self._group_id, member))

        # the subscription metadata, from the image unless given (without racks)
        if self._subscription_metadata is None:
            self._subscription_metadata = {}
            for member in self._members.values():
                for topic_name in member.subscribed_topic_names():
                    topic_image = topics_image.get_topic(topic_name)
                    if topic_image is not None:
                        self._subscription_metadata[topic_name] = TopicMetadata(
                            topic_image.id, topic_image.name, len(topic_image.partitions), {})

        if self._subscription_metadata:
            records.append(coordinator_record_helpers.new_group_subscription_metadata_record(
                self._group_id, self._subscription_metadata))

        records.append(coordinator_record_helpers.new_group_epoch_record(self._group_id, self._group_epoch))

        # the target assignment, then its epoch
        for member_id, assignment in self._assignments.items():
            records.append(coordinator_record_helpers.new_target_assignment_record(
                self._group_id, member_id, assignment.partitions()))

        records.append(coordinator_record_helpers.new_target_assignment_epoch_record(self._group_id,
                                                                                     self._assignment_epoch))

        # the members' current assignments
        for member in self._members.values():
            records.append(coordinator_record_helpers.new_current_assignment_record(self._group_id, member))

        return records
