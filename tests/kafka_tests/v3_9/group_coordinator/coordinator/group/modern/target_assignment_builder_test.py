"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/modern/TargetAssignmentBuilderTest.java
(Kafka 3.9).

Mockito's mock assignor is a unittest.mock Mock (verify(..., times(1)).assign(spec, describer) is
assert_called_once_with). Topic ids are uuid.UUID (Uuid.randomUuid() -> uuid.uuid4()). Kafka's
Assertions.assertUnorderedListEquals is written here as a local helper.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Mapping, Set
from unittest.mock import Mock

from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record import CoordinatorRecord
from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record_helpers import (
    new_target_assignment_epoch_record,
    new_target_assignment_record,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.assignment import Assignment
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.consumer.consumer_group_member import (
    ConsumerGroupMember,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.group_spec_impl import GroupSpecImpl
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.member_assignment_impl import MemberAssignmentImpl
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.member_subscription_and_assignment_impl import (
    MemberSubscriptionAndAssignmentImpl,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.subscribed_topic_describer_impl import (
    SubscribedTopicDescriberImpl,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.target_assignment_builder import (
    TargetAssignmentBuilder,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.topic_ids import TopicIds
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.topic_metadata import TopicMetadata
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.group_assignment import GroupAssignment
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.member_assignment import MemberAssignment
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.partition_assignor import PartitionAssignor
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.subscription_type import SubscriptionType
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.assignment_test_util import (
    inverted_target_assignment,
    mk_assignment,
    mk_map_of_partition_racks,
    mk_topic_assignment,
)
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.metadata_image_builder import MetadataImageBuilder

KAFKA = kafka_test_class(
    "3.9",
    "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/modern/TargetAssignmentBuilderTest.java",
    cases=["testCreateMemberSubscriptionSpecImpl", "testEmpty", "testAssignmentHasNotChanged",
           "testAssignmentSwapped", "testNewMember", "testUpdateMember", "testPartialAssignmentUpdate",
           "testDeleteMember", "testReplaceStaticMember"],
)

create_member_subscription_and_assignment = TargetAssignmentBuilder.create_member_subscription_and_assignment


def assert_unordered_list_equals(expected: list[CoordinatorRecord], actual: list[CoordinatorRecord]) -> None:
    """Kafka's Assertions.assertUnorderedListEquals: the same elements, as many times each, in any order."""
    assert Counter(actual) == Counter(expected)


class TargetAssignmentBuilderTestContext:
    """A group (members, subscription metadata, current target), the pending member changes and what the mock
    assignor returns; build() runs the builder and checks the assignor was asked with the expected spec."""

    def __init__(self, group_id: str, group_epoch: int) -> None:
        self._group_id = group_id
        self._group_epoch = group_epoch
        self._assignor = Mock(spec=PartitionAssignor)
        self._members: dict[str, ConsumerGroupMember] = {}
        self._subscription_metadata: dict[str, TopicMetadata] = {}
        self._updated_members: dict[str, ConsumerGroupMember | None] = {}
        self._target_assignment: dict[str, Assignment] = {}
        self._member_assignments: dict[str, MemberAssignment] = {}
        self._static_members: dict[str, str] = {}
        self._topics_image_builder = MetadataImageBuilder()

    def add_group_member(self, member_id: str, *args: object) -> None:
        """Kafka's addGroupMember(memberId, subscriptions, targetPartitions) and its private overload with an
        instance id before the subscriptions."""
        if len(args) == 2:
            instance_id, (subscriptions, target_partitions) = None, args
        else:
            instance_id, subscriptions, target_partitions = args
        member_builder = ConsumerGroupMember.Builder(member_id).set_subscribed_topic_names(subscriptions)

        if instance_id is not None:
            member_builder.set_instance_id(instance_id)
            self._static_members[instance_id] = member_id
        self._members[member_id] = member_builder.build()
        self._target_assignment[member_id] = Assignment(target_partitions)

    def add_topic_metadata(self, topic_name: str, num_partitions: int,
                           partition_racks: Mapping[int, Set[str]]) -> uuid.UUID:
        topic_id = uuid.uuid4()
        self._subscription_metadata[topic_name] = TopicMetadata(topic_id, topic_name, num_partitions, partition_racks)
        self._topics_image_builder = self._topics_image_builder.add_topic(topic_id, topic_name, num_partitions)
        return topic_id

    def update_member_subscription(self, member_id: str, subscriptions: list[str], instance_id: str | None = None,
                                   rack_id: str | None = None) -> None:
        existing_member = self._members.get(member_id)
        if existing_member is not None:
            builder = ConsumerGroupMember.Builder(existing_member)
        else:
            builder = ConsumerGroupMember.Builder(member_id)
        self._updated_members[member_id] = (builder
                                            .set_subscribed_topic_names(subscriptions)
                                            .maybe_update_instance_id(instance_id)
                                            .maybe_update_rack_id(rack_id)
                                            .build())

    def remove_member_subscription(self, member_id: str) -> None:
        self._updated_members[member_id] = None

    def prepare_member_assignment(self, member_id: str, assignment: Mapping[uuid.UUID, Set[int]]) -> None:
        self._member_assignments[member_id] = MemberAssignmentImpl(assignment)

    def build(self) -> TargetAssignmentBuilder.TargetAssignmentResult:
        topics_image = self._topics_image_builder.build().topics
        # the member specs the assignor should be given
        member_subscriptions: dict[str, MemberSubscriptionAndAssignmentImpl] = {}

        for member_id, member in self._members.items():
            member_subscriptions[member_id] = create_member_subscription_and_assignment(
                member, self._target_assignment.get(member_id, Assignment.EMPTY), topics_image)

        for member_id, updated_member_or_none in self._updated_members.items():
            if updated_member_or_none is None:
                member_subscriptions.pop(member_id, None)
            else:
                assignment = self._target_assignment.get(member_id, Assignment.EMPTY)
                # a new static member takes over the target of the departed one with its instance id
                if updated_member_or_none.instance_id() is not None:
                    previous_member_id = self._static_members.get(updated_member_or_none.instance_id())
                    if previous_member_id is not None and previous_member_id != member_id:
                        assignment = self._target_assignment.get(previous_member_id, Assignment.EMPTY)
                member_subscriptions[member_id] = create_member_subscription_and_assignment(
                    updated_member_or_none, assignment, topics_image)

        topic_metadata_map = {topic_metadata.id(): topic_metadata
                              for topic_metadata in self._subscription_metadata.values()}

        subscribed_topic_metadata = SubscribedTopicDescriberImpl(topic_metadata_map)
        subscription_type = SubscriptionType.HOMOGENEOUS

        inverted = inverted_target_assignment(member_subscriptions)

        group_spec = GroupSpecImpl(member_subscriptions, subscription_type, inverted)

        # the mock answers whatever it is asked; the call is checked below
        self._assignor.assign.return_value = GroupAssignment(self._member_assignments)

        builder = (TargetAssignmentBuilder(self._group_id, self._group_epoch, self._assignor)
                   .with_members(self._members)
                   .with_static_members(self._static_members)
                   .with_subscription_metadata(self._subscription_metadata)
                   .with_subscription_type(subscription_type)
                   .with_target_assignment(self._target_assignment)
                   .with_inverted_target_assignment(inverted)
                   .with_topics_image(topics_image))

        for member_id, updated_member_or_none in self._updated_members.items():
            if updated_member_or_none is not None:
                builder.add_or_update_member(member_id, updated_member_or_none)
            else:
                builder.remove_member(member_id)

        result = builder.build()

        self._assignor.assign.assert_called_once_with(group_spec, subscribed_topic_metadata)

        return result


def test_create_member_subscription_spec_impl() -> None:
    foo_topic_id = uuid.uuid4()
    bar_topic_id = uuid.uuid4()
    topics_image = (MetadataImageBuilder()
                    .add_topic(foo_topic_id, "foo", 5)
                    .add_topic(bar_topic_id, "bar", 5)
                    .build()
                    .topics)

    member = (ConsumerGroupMember.Builder("member-id")
              .set_subscribed_topic_names(["foo", "bar", "zar"])
              .set_rack_id("rackId")
              .set_instance_id("instanceId")
              .build())

    assignment = Assignment(mk_assignment(
        mk_topic_assignment(foo_topic_id, 1, 2, 3),
        mk_topic_assignment(bar_topic_id, 1, 2, 3),
    ))

    subscription_spec = create_member_subscription_and_assignment(member, assignment, topics_image)

    assert subscription_spec == MemberSubscriptionAndAssignmentImpl(
        "rackId", "instanceId", TopicIds({"bar", "foo", "zar"}, topics_image), assignment)


def test_empty() -> None:
    context = TargetAssignmentBuilderTestContext("my-group", 20)

    result = context.build()
    assert result.records() == [new_target_assignment_epoch_record("my-group", 20)]
    assert result.target_assignment() == {}


def test_assignment_has_not_changed() -> None:
    context = TargetAssignmentBuilderTestContext("my-group", 20)

    foo_topic_id = context.add_topic_metadata("foo", 6, {})
    bar_topic_id = context.add_topic_metadata("bar", 6, {})

    context.add_group_member("member-1", ["foo", "bar", "zar"], mk_assignment(
        mk_topic_assignment(foo_topic_id, 1, 2, 3),
        mk_topic_assignment(bar_topic_id, 1, 2, 3)))
    context.add_group_member("member-2", ["foo", "bar", "zar"], mk_assignment(
        mk_topic_assignment(foo_topic_id, 4, 5, 6),
        mk_topic_assignment(bar_topic_id, 4, 5, 6)))

    context.prepare_member_assignment("member-1", mk_assignment(
        mk_topic_assignment(foo_topic_id, 1, 2, 3),
        mk_topic_assignment(bar_topic_id, 1, 2, 3)))
    context.prepare_member_assignment("member-2", mk_assignment(
        mk_topic_assignment(foo_topic_id, 4, 5, 6),
        mk_topic_assignment(bar_topic_id, 4, 5, 6)))

    result = context.build()

    assert result.records() == [new_target_assignment_epoch_record("my-group", 20)]

    expected_assignment = {
        "member-1": MemberAssignmentImpl(mk_assignment(
            mk_topic_assignment(foo_topic_id, 1, 2, 3),
            mk_topic_assignment(bar_topic_id, 1, 2, 3))),
        "member-2": MemberAssignmentImpl(mk_assignment(
            mk_topic_assignment(foo_topic_id, 4, 5, 6),
            mk_topic_assignment(bar_topic_id, 4, 5, 6))),
    }
    assert result.target_assignment() == expected_assignment


def test_assignment_swapped() -> None:
    context = TargetAssignmentBuilderTestContext("my-group", 20)

    foo_topic_id = context.add_topic_metadata("foo", 6, {})
    bar_topic_id = context.add_topic_metadata("bar", 6, {})

    context.add_group_member("member-1", ["foo", "bar", "zar"], mk_assignment(
        mk_topic_assignment(foo_topic_id, 1, 2, 3),
        mk_topic_assignment(bar_topic_id, 1, 2, 3)))
    context.add_group_member("member-2", ["foo", "bar", "zar"], mk_assignment(
        mk_topic_assignment(foo_topic_id, 4, 5, 6),
        mk_topic_assignment(bar_topic_id, 4, 5, 6)))

    context.prepare_member_assignment("member-2", mk_assignment(
        mk_topic_assignment(foo_topic_id, 1, 2, 3),
        mk_topic_assignment(bar_topic_id, 1, 2, 3)))
    context.prepare_member_assignment("member-1", mk_assignment(
        mk_topic_assignment(foo_topic_id, 4, 5, 6),
        mk_topic_assignment(bar_topic_id, 4, 5, 6)))

    result = context.build()

    assert len(result.records()) == 3

    assert_unordered_list_equals([
        new_target_assignment_record("my-group", "member-1", mk_assignment(
            mk_topic_assignment(foo_topic_id, 4, 5, 6),
            mk_topic_assignment(bar_topic_id, 4, 5, 6))),
        new_target_assignment_record("my-group", "member-2", mk_assignment(
            mk_topic_assignment(foo_topic_id, 1, 2, 3),
            mk_topic_assignment(bar_topic_id, 1, 2, 3))),
    ], result.records()[0:2])

    assert result.records()[2] == new_target_assignment_epoch_record("my-group", 20)

    expected_assignment = {
        "member-2": MemberAssignmentImpl(mk_assignment(
            mk_topic_assignment(foo_topic_id, 1, 2, 3),
            mk_topic_assignment(bar_topic_id, 1, 2, 3))),
        "member-1": MemberAssignmentImpl(mk_assignment(
            mk_topic_assignment(foo_topic_id, 4, 5, 6),
            mk_topic_assignment(bar_topic_id, 4, 5, 6))),
    }
    assert result.target_assignment() == expected_assignment


def test_new_member() -> None:
    context = TargetAssignmentBuilderTestContext("my-group", 20)

    foo_topic_id = context.add_topic_metadata("foo", 6, {})
    bar_topic_id = context.add_topic_metadata("bar", 6, {})

    context.add_group_member("member-1", ["foo", "bar", "zar"], mk_assignment(
        mk_topic_assignment(foo_topic_id, 1, 2, 3),
        mk_topic_assignment(bar_topic_id, 1, 2, 3)))
    context.add_group_member("member-2", ["foo", "bar", "zar"], mk_assignment(
        mk_topic_assignment(foo_topic_id, 4, 5, 6),
        mk_topic_assignment(bar_topic_id, 4, 5, 6)))

    context.update_member_subscription("member-3", ["foo", "bar", "zar"])

    context.prepare_member_assignment("member-1", mk_assignment(
        mk_topic_assignment(foo_topic_id, 1, 2),
        mk_topic_assignment(bar_topic_id, 1, 2)))
    context.prepare_member_assignment("member-2", mk_assignment(
        mk_topic_assignment(foo_topic_id, 3, 4),
        mk_topic_assignment(bar_topic_id, 3, 4)))
    context.prepare_member_assignment("member-3", mk_assignment(
        mk_topic_assignment(foo_topic_id, 5, 6),
        mk_topic_assignment(bar_topic_id, 5, 6)))

    result = context.build()

    assert len(result.records()) == 4

    assert_unordered_list_equals([
        new_target_assignment_record("my-group", "member-1", mk_assignment(
            mk_topic_assignment(foo_topic_id, 1, 2),
            mk_topic_assignment(bar_topic_id, 1, 2))),
        new_target_assignment_record("my-group", "member-2", mk_assignment(
            mk_topic_assignment(foo_topic_id, 3, 4),
            mk_topic_assignment(bar_topic_id, 3, 4))),
        new_target_assignment_record("my-group", "member-3", mk_assignment(
            mk_topic_assignment(foo_topic_id, 5, 6),
            mk_topic_assignment(bar_topic_id, 5, 6))),
    ], result.records()[0:3])

    assert result.records()[3] == new_target_assignment_epoch_record("my-group", 20)

    expected_assignment = {
        "member-1": MemberAssignmentImpl(mk_assignment(
            mk_topic_assignment(foo_topic_id, 1, 2),
            mk_topic_assignment(bar_topic_id, 1, 2))),
        "member-2": MemberAssignmentImpl(mk_assignment(
            mk_topic_assignment(foo_topic_id, 3, 4),
            mk_topic_assignment(bar_topic_id, 3, 4))),
        "member-3": MemberAssignmentImpl(mk_assignment(
            mk_topic_assignment(foo_topic_id, 5, 6),
            mk_topic_assignment(bar_topic_id, 5, 6))),
    }
    assert result.target_assignment() == expected_assignment


def test_update_member() -> None:
    context = TargetAssignmentBuilderTestContext("my-group", 20)

    foo_topic_id = context.add_topic_metadata("foo", 6, {})
    bar_topic_id = context.add_topic_metadata("bar", 6, {})

    context.add_group_member("member-1", ["foo", "bar", "zar"], mk_assignment(
        mk_topic_assignment(foo_topic_id, 1, 2, 3),
        mk_topic_assignment(bar_topic_id, 1, 2)))
    context.add_group_member("member-2", ["foo", "bar", "zar"], mk_assignment(
        mk_topic_assignment(foo_topic_id, 4, 5, 6),
        mk_topic_assignment(bar_topic_id, 3, 4)))
    context.add_group_member("member-3", ["bar", "zar"], mk_assignment(
        mk_topic_assignment(bar_topic_id, 5, 6)))

    context.update_member_subscription("member-3", ["foo", "bar", "zar"], "instance-id-3", "rack-0")

    context.prepare_member_assignment("member-1", mk_assignment(
        mk_topic_assignment(foo_topic_id, 1, 2),
        mk_topic_assignment(bar_topic_id, 1, 2)))
    context.prepare_member_assignment("member-2", mk_assignment(
        mk_topic_assignment(foo_topic_id, 3, 4),
        mk_topic_assignment(bar_topic_id, 3, 4)))
    context.prepare_member_assignment("member-3", mk_assignment(
        mk_topic_assignment(foo_topic_id, 5, 6),
        mk_topic_assignment(bar_topic_id, 5, 6)))

    result = context.build()

    assert len(result.records()) == 4

    assert_unordered_list_equals([
        new_target_assignment_record("my-group", "member-1", mk_assignment(
            mk_topic_assignment(foo_topic_id, 1, 2),
            mk_topic_assignment(bar_topic_id, 1, 2))),
        new_target_assignment_record("my-group", "member-2", mk_assignment(
            mk_topic_assignment(foo_topic_id, 3, 4),
            mk_topic_assignment(bar_topic_id, 3, 4))),
        new_target_assignment_record("my-group", "member-3", mk_assignment(
            mk_topic_assignment(foo_topic_id, 5, 6),
            mk_topic_assignment(bar_topic_id, 5, 6))),
    ], result.records()[0:3])

    assert result.records()[3] == new_target_assignment_epoch_record("my-group", 20)

    expected_assignment = {
        "member-1": MemberAssignmentImpl(mk_assignment(
            mk_topic_assignment(foo_topic_id, 1, 2),
            mk_topic_assignment(bar_topic_id, 1, 2))),
        "member-2": MemberAssignmentImpl(mk_assignment(
            mk_topic_assignment(foo_topic_id, 3, 4),
            mk_topic_assignment(bar_topic_id, 3, 4))),
        "member-3": MemberAssignmentImpl(mk_assignment(
            mk_topic_assignment(foo_topic_id, 5, 6),
            mk_topic_assignment(bar_topic_id, 5, 6))),
    }
    assert result.target_assignment() == expected_assignment


def test_partial_assignment_update() -> None:
    context = TargetAssignmentBuilderTestContext("my-group", 20)

    foo_topic_id = context.add_topic_metadata("foo", 6, mk_map_of_partition_racks(6))
    bar_topic_id = context.add_topic_metadata("bar", 6, mk_map_of_partition_racks(6))

    context.add_group_member("member-1", ["foo", "bar", "zar"], mk_assignment(
        mk_topic_assignment(foo_topic_id, 1, 2),
        mk_topic_assignment(bar_topic_id, 1, 2)))
    context.add_group_member("member-2", ["foo", "bar", "zar"], mk_assignment(
        mk_topic_assignment(foo_topic_id, 3, 4),
        mk_topic_assignment(bar_topic_id, 3, 4)))
    context.add_group_member("member-3", ["bar", "zar"], mk_assignment(
        mk_topic_assignment(foo_topic_id, 5, 6),
        mk_topic_assignment(bar_topic_id, 5, 6)))

    context.prepare_member_assignment("member-1", mk_assignment(
        mk_topic_assignment(foo_topic_id, 1, 2),
        mk_topic_assignment(bar_topic_id, 1, 2)))
    context.prepare_member_assignment("member-2", mk_assignment(
        mk_topic_assignment(foo_topic_id, 3, 4, 5),
        mk_topic_assignment(bar_topic_id, 3, 4, 5)))
    context.prepare_member_assignment("member-3", mk_assignment(
        mk_topic_assignment(foo_topic_id, 6),
        mk_topic_assignment(bar_topic_id, 6)))

    result = context.build()

    assert len(result.records()) == 3

    # member-1's target is unchanged: no record for it
    assert_unordered_list_equals([
        new_target_assignment_record("my-group", "member-2", mk_assignment(
            mk_topic_assignment(foo_topic_id, 3, 4, 5),
            mk_topic_assignment(bar_topic_id, 3, 4, 5))),
        new_target_assignment_record("my-group", "member-3", mk_assignment(
            mk_topic_assignment(foo_topic_id, 6),
            mk_topic_assignment(bar_topic_id, 6))),
    ], result.records()[0:2])

    assert result.records()[2] == new_target_assignment_epoch_record("my-group", 20)

    expected_assignment = {
        "member-1": MemberAssignmentImpl(mk_assignment(
            mk_topic_assignment(foo_topic_id, 1, 2),
            mk_topic_assignment(bar_topic_id, 1, 2))),
        "member-2": MemberAssignmentImpl(mk_assignment(
            mk_topic_assignment(foo_topic_id, 3, 4, 5),
            mk_topic_assignment(bar_topic_id, 3, 4, 5))),
        "member-3": MemberAssignmentImpl(mk_assignment(
            mk_topic_assignment(foo_topic_id, 6),
            mk_topic_assignment(bar_topic_id, 6))),
    }
    assert result.target_assignment() == expected_assignment


def test_delete_member() -> None:
    context = TargetAssignmentBuilderTestContext("my-group", 20)

    foo_topic_id = context.add_topic_metadata("foo", 6, {})
    bar_topic_id = context.add_topic_metadata("bar", 6, {})

    context.add_group_member("member-1", ["foo", "bar", "zar"], mk_assignment(
        mk_topic_assignment(foo_topic_id, 1, 2),
        mk_topic_assignment(bar_topic_id, 1, 2)))
    context.add_group_member("member-2", ["foo", "bar", "zar"], mk_assignment(
        mk_topic_assignment(foo_topic_id, 3, 4),
        mk_topic_assignment(bar_topic_id, 3, 4)))
    context.add_group_member("member-3", ["foo", "bar", "zar"], mk_assignment(
        mk_topic_assignment(foo_topic_id, 5, 6),
        mk_topic_assignment(bar_topic_id, 5, 6)))

    context.remove_member_subscription("member-3")

    context.prepare_member_assignment("member-1", mk_assignment(
        mk_topic_assignment(foo_topic_id, 1, 2, 3),
        mk_topic_assignment(bar_topic_id, 1, 2, 3)))
    context.prepare_member_assignment("member-2", mk_assignment(
        mk_topic_assignment(foo_topic_id, 4, 5, 6),
        mk_topic_assignment(bar_topic_id, 4, 5, 6)))

    result = context.build()

    assert len(result.records()) == 3

    assert_unordered_list_equals([
        new_target_assignment_record("my-group", "member-1", mk_assignment(
            mk_topic_assignment(foo_topic_id, 1, 2, 3),
            mk_topic_assignment(bar_topic_id, 1, 2, 3))),
        new_target_assignment_record("my-group", "member-2", mk_assignment(
            mk_topic_assignment(foo_topic_id, 4, 5, 6),
            mk_topic_assignment(bar_topic_id, 4, 5, 6))),
    ], result.records()[0:2])

    assert result.records()[2] == new_target_assignment_epoch_record("my-group", 20)

    expected_assignment = {
        "member-1": MemberAssignmentImpl(mk_assignment(
            mk_topic_assignment(foo_topic_id, 1, 2, 3),
            mk_topic_assignment(bar_topic_id, 1, 2, 3))),
        "member-2": MemberAssignmentImpl(mk_assignment(
            mk_topic_assignment(foo_topic_id, 4, 5, 6),
            mk_topic_assignment(bar_topic_id, 4, 5, 6))),
    }
    assert result.target_assignment() == expected_assignment


def test_replace_static_member() -> None:
    context = TargetAssignmentBuilderTestContext("my-group", 20)

    foo_topic_id = context.add_topic_metadata("foo", 6, {})
    bar_topic_id = context.add_topic_metadata("bar", 6, {})

    context.add_group_member("member-1", "instance-member-1", ["foo", "bar", "zar"], mk_assignment(
        mk_topic_assignment(foo_topic_id, 1, 2),
        mk_topic_assignment(bar_topic_id, 1, 2)))
    context.add_group_member("member-2", "instance-member-2", ["foo", "bar", "zar"], mk_assignment(
        mk_topic_assignment(foo_topic_id, 3, 4),
        mk_topic_assignment(bar_topic_id, 3, 4)))
    context.add_group_member("member-3", "instance-member-3", ["foo", "bar", "zar"], mk_assignment(
        mk_topic_assignment(foo_topic_id, 5, 6),
        mk_topic_assignment(bar_topic_id, 5, 6)))

    # static member 3 leaves, and another member joins with its instance id
    context.remove_member_subscription("member-3")
    context.update_member_subscription("member-3-a", ["foo", "bar", "zar"], "instance-member-3", None)

    context.prepare_member_assignment("member-1", mk_assignment(
        mk_topic_assignment(foo_topic_id, 1, 2),
        mk_topic_assignment(bar_topic_id, 1, 2)))
    context.prepare_member_assignment("member-2", mk_assignment(
        mk_topic_assignment(foo_topic_id, 3, 4),
        mk_topic_assignment(bar_topic_id, 3, 4)))
    context.prepare_member_assignment("member-3-a", mk_assignment(
        mk_topic_assignment(foo_topic_id, 5, 6),
        mk_topic_assignment(bar_topic_id, 5, 6)))

    result = context.build()

    assert len(result.records()) == 2

    assert_unordered_list_equals([
        new_target_assignment_record("my-group", "member-3-a", mk_assignment(
            mk_topic_assignment(foo_topic_id, 5, 6),
            mk_topic_assignment(bar_topic_id, 5, 6))),
    ], result.records()[0:1])

    assert result.records()[1] == new_target_assignment_epoch_record("my-group", 20)

    expected_assignment = {
        "member-1": MemberAssignmentImpl(mk_assignment(
            mk_topic_assignment(foo_topic_id, 1, 2),
            mk_topic_assignment(bar_topic_id, 1, 2))),
        "member-2": MemberAssignmentImpl(mk_assignment(
            mk_topic_assignment(foo_topic_id, 3, 4),
            mk_topic_assignment(bar_topic_id, 3, 4))),
        "member-3-a": MemberAssignmentImpl(mk_assignment(
            mk_topic_assignment(foo_topic_id, 5, 6),
            mk_topic_assignment(bar_topic_id, 5, 6))),
    }
    assert result.target_assignment() == expected_assignment
