"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/modern/TargetAssignmentBuilder.java
(Kafka 3.9).

Topic ids are uuid.UUID, as the metadata image carries them. Java's Optional arguments are `X | None`.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from types import MappingProxyType
from typing import Generic, TypeVar

from kafka_edu.tracing import step
from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record import CoordinatorRecord
from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record_helpers import (
    new_target_assignment_epoch_record,
    new_target_assignment_record,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.assignment import Assignment
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.group_spec_impl import GroupSpecImpl
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.member_subscription_and_assignment_impl import (
    MemberSubscriptionAndAssignmentImpl,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.modern_group_member import ModernGroupMember
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.subscribed_topic_describer_impl import (
    SubscribedTopicDescriberImpl,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.topic_ids import TopicIds
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.topic_metadata import TopicMetadata
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.group_assignment import GroupAssignment
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.member_assignment import MemberAssignment
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.partition_assignor import PartitionAssignor
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.subscription_type import SubscriptionType
from kafka_edu.v3_9.metadata.image.topics_image import TopicsImage

T = TypeVar("T", bound=ModernGroupMember)


class TargetAssignmentBuilder(Generic[T]):
    """Runs the group's assignor over its members (with the changes not yet applied to the group) and turns the new
    target assignment into records: one for each member whose target changed, then the new assignment epoch.

    A removed member gets no tombstone here: deleting a member writes its tombstones already."""

    class TargetAssignmentResult:
        """What build() returns: the records to write and the new target assignment by member id."""

        def __init__(self, records: list[CoordinatorRecord], target_assignment: Mapping[str, MemberAssignment]) -> None:
            if records is None:
                raise TypeError("records")  # Objects.requireNonNull
            if target_assignment is None:
                raise TypeError("targetAssignment")
            self._records = records
            self._target_assignment = target_assignment

        def records(self) -> list[CoordinatorRecord]:
            return self._records

        def target_assignment(self) -> Mapping[str, MemberAssignment]:
            return self._target_assignment

    def __init__(self, group_id: str, group_epoch: int, assignor: PartitionAssignor) -> None:
        if group_id is None:
            raise TypeError("groupId")  # Objects.requireNonNull
        if assignor is None:
            raise TypeError("assignor")
        self._group_id = group_id
        self._group_epoch = group_epoch
        self._assignor = assignor
        self._members: Mapping[str, T] = MappingProxyType({})
        self._subscription_metadata: Mapping[str, TopicMetadata] = MappingProxyType({})
        self._subscription_type: SubscriptionType | None = None
        self._target_assignment: Mapping[str, Assignment] = MappingProxyType({})
        # topic id -> partition -> member id: who holds each partition in the current target
        self._inverted_target_assignment: Mapping[uuid.UUID, Mapping[int, str]] = MappingProxyType({})
        self._topics_image = TopicsImage.EMPTY
        # members added, updated (a member) or removed (None) since the group was last written
        self._updated_members: dict[str, T | None] = {}
        # instance id -> member id
        self._static_members: Mapping[str, str] = {}

    def with_members(self, members: Mapping[str, T]) -> TargetAssignmentBuilder[T]:
        self._members = members
        return self

    def with_static_members(self, static_members: Mapping[str, str]) -> TargetAssignmentBuilder[T]:
        self._static_members = static_members
        return self

    def with_subscription_metadata(
        self, subscription_metadata: Mapping[str, TopicMetadata],
    ) -> TargetAssignmentBuilder[T]:
        self._subscription_metadata = subscription_metadata
        return self

    def with_subscription_type(self, subscription_type: SubscriptionType) -> TargetAssignmentBuilder[T]:
        self._subscription_type = subscription_type
        return self

    def with_target_assignment(self, target_assignment: Mapping[str, Assignment]) -> TargetAssignmentBuilder[T]:
        self._target_assignment = target_assignment
        return self

    def with_inverted_target_assignment(
        self, inverted_target_assignment: Mapping[uuid.UUID, Mapping[int, str]],
    ) -> TargetAssignmentBuilder[T]:
        self._inverted_target_assignment = inverted_target_assignment
        return self

    def with_topics_image(self, topics_image: TopicsImage) -> TargetAssignmentBuilder[T]:
        self._topics_image = topics_image
        return self

    def add_or_update_member(self, member_id: str, member: T | None) -> TargetAssignmentBuilder[T]:
        """A member as it will be once the records of this change are applied (the group does not hold it yet)."""
        self._updated_members[member_id] = member
        return self

    def remove_member(self, member_id: str) -> TargetAssignmentBuilder[T]:
        return self.add_or_update_member(member_id, None)

    @step("GC.target")
    def build(self) -> TargetAssignmentBuilder.TargetAssignmentResult:
        """Raises PartitionAssignorException when the assignor cannot compute an assignment."""
        member_specs: dict[str, MemberSubscriptionAndAssignmentImpl] = {}

        # every current member, with its current target as its assignment
        for member_id, member in self._members.items():
            member_specs[member_id] = TargetAssignmentBuilder.create_member_subscription_and_assignment(
                member, self._target_assignment.get(member_id, Assignment.EMPTY), self._topics_image)

        # then the pending changes on top
        for member_id, updated_member_or_none in self._updated_members.items():
            if updated_member_or_none is None:
                member_specs.pop(member_id, None)
            else:
                assignment = self._target_assignment.get(member_id, Assignment.EMPTY)

                # a static member rejoining under a new member id takes over the target of its previous incarnation
                if updated_member_or_none.instance_id() is not None:
                    previous_member_id = self._static_members.get(updated_member_or_none.instance_id())
                    if previous_member_id is not None and previous_member_id != member_id:
                        assignment = self._target_assignment.get(previous_member_id, Assignment.EMPTY)

                member_specs[member_id] = TargetAssignmentBuilder.create_member_subscription_and_assignment(
                    updated_member_or_none, assignment, self._topics_image)

        # the assignor looks topics up by id
        topic_metadata_map: dict[uuid.UUID, TopicMetadata] = {}
        for topic_metadata in self._subscription_metadata.values():
            topic_metadata_map[topic_metadata.id()] = topic_metadata

        new_group_assignment = self._assignor.assign(
            GroupSpecImpl(MappingProxyType(member_specs), self._subscription_type,  # type: ignore[arg-type]
                          self._inverted_target_assignment),
            SubscribedTopicDescriberImpl(topic_metadata_map),
        )

        # a record only for the members whose target changed (or who had none)
        records: list[CoordinatorRecord] = []
        for member_id in member_specs:
            old_member_assignment = self._target_assignment.get(member_id)
            new_member_assignment = self._new_member_assignment(new_group_assignment, member_id)

            if new_member_assignment != old_member_assignment:
                records.append(new_target_assignment_record(self._group_id, member_id,
                                                            new_member_assignment.partitions()))

        # the new target is complete once its epoch is written
        records.append(new_target_assignment_epoch_record(self._group_id, self._group_epoch))

        return TargetAssignmentBuilder.TargetAssignmentResult(records, new_group_assignment.members())

    def _new_member_assignment(self, new_group_assignment: GroupAssignment, member_id: str) -> Assignment:
        new_member_assignment = new_group_assignment.members().get(member_id)
        if new_member_assignment is not None:
            return Assignment(new_member_assignment.partitions())
        return Assignment.EMPTY

    @staticmethod
    def create_member_subscription_and_assignment(
        member: ModernGroupMember, member_assignment: Assignment, topics_image: TopicsImage,
    ) -> MemberSubscriptionAndAssignmentImpl:
        """What the assignor sees of a member (package-private in Kafka, for its tests)."""
        return MemberSubscriptionAndAssignmentImpl(
            member.rack_id(),
            member.instance_id(),
            TopicIds(member.subscribed_topic_names(), topics_image),
            member_assignment,
        )
