"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/modern/consumer/ConsumerGroup.java (Kafka
3.9).

Differences: the port has no metrics registry, so there is no GroupCoordinatorMetricsShard argument and state
transitions are not counted. A described group is kio's
ConsumerGroupDescribe (v0) DescribedGroup. Java's Optional results are `X | None`; the overloads state(),
state(committedOffset), preferredServerAssignor() and preferredServerAssignor(committedOffset) take an optional
offset. Topic ids are uuid.UUID.
"""

from __future__ import annotations

import enum
import uuid
from collections.abc import Mapping, MutableMapping, Set
from typing import TYPE_CHECKING, Any

from kio.schema.consumer_group_describe.v0.response import DescribedGroup
from kio.schema.errors import ErrorCode

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, UnsupportedVersionException
from kafka_edu.v3_9.clients.clients.consumer.internals import consumer_protocol
from kafka_edu.v3_9.clients.common.errors.group_not_empty_exception import GroupNotEmptyException
from kafka_edu.v3_9.clients.common.errors.illegal_generation_exception import IllegalGenerationException
from kafka_edu.v3_9.clients.common.errors.stale_member_epoch_exception import StaleMemberEpochException
from kafka_edu.v3_9.clients.common.errors.unknown_member_id_exception import UnknownMemberIdException
from kafka_edu.v3_9.clients.common.network.java_nio import ByteBuffer
from kafka_edu.v3_9.group_coordinator.coordinator.group import coordinator_record_helpers
from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record import CoordinatorRecord
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_member_metadata_value import (
    ClassicMemberMetadata,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.group import Group
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.assignment import Assignment
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.consumer.consumer_group_member import (
    ConsumerGroupMember,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.member_state import MemberState
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.modern_group import (
    ModernGroup,
    ReadOnlyView,
    compute,
    dec_value,
    inc_value,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.offset_expiration_condition import OffsetExpirationCondition
from kafka_edu.v3_9.group_coordinator.coordinator.group.offset_expiration_condition_impl import (
    OffsetExpirationConditionImpl,
)
from kafka_edu.v3_9.metadata.image.topics_image import TopicsImage
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import LATEST_EPOCH, SnapshotRegistry
from kafka_edu.v3_9.server_common.timeline.timeline_hash_map import TimelineHashMap
from kafka_edu.v3_9.server_common.timeline.timeline_integer import TimelineInteger
from kafka_edu.v3_9.server_common.timeline.timeline_object import TimelineObject

if TYPE_CHECKING:
    from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import ClassicGroup

CONSUMER_PROTOCOL_TYPE = consumer_protocol.PROTOCOL_TYPE


class ConsumerGroup(ModernGroup[ConsumerGroupMember]):
    """A consumer group (KIP-848): members heartbeat with ConsumerGroupHeartbeat (or, during an upgrade, with the
    classic JoinGroup/SyncGroup protocol) and the coordinator assigns their partitions. Every field comes from
    records in __consumer_offsets."""

    class ConsumerGroupState(enum.Enum):
        EMPTY = "Empty"  # no members
        ASSIGNING = "Assigning"  # the group epoch is ahead of the target assignment's: a new one is due
        RECONCILING = "Reconciling"  # some member has not yet reached the target assignment
        STABLE = "Stable"  # every member is at the target assignment
        DEAD = "Dead"

        def __str__(self) -> str:
            return self.value

        def to_lower_case_string(self) -> str:
            return self.value.lower()

    def __init__(self, snapshot_registry: SnapshotRegistry, group_id: str) -> None:
        super().__init__(snapshot_registry, group_id)
        self._state: TimelineObject[ConsumerGroup.ConsumerGroupState] = TimelineObject(
            snapshot_registry, ConsumerGroup.ConsumerGroupState.EMPTY)
        # instance id -> member id
        self._static_members: TimelineHashMap[str, str] = TimelineHashMap(snapshot_registry, 0)
        # server assignor name -> number of members asking for it
        self._server_assignors: TimelineHashMap[str, int] = TimelineHashMap(snapshot_registry, 0)
        self._num_classic_protocol_members = TimelineInteger(snapshot_registry)
        # classic protocol name -> number of classic-protocol members that support it
        self._classic_protocol_members_supported_protocols: TimelineHashMap[str, int] = TimelineHashMap(
            snapshot_registry, 0)

    def type(self) -> Group.GroupType:
        return Group.GroupType.CONSUMER

    def protocol_type(self) -> str:
        return CONSUMER_PROTOCOL_TYPE

    def state_as_string(self, committed_offset: int | None = None) -> str:
        return str(self.state(committed_offset))

    def state(self, committed_offset: int | None = None) -> ConsumerGroup.ConsumerGroupState:
        return self._state.get(LATEST_EPOCH if committed_offset is None else committed_offset)

    def set_num_classic_protocol_members(self, num_classic_protocol_members: int) -> None:
        self._num_classic_protocol_members.set(num_classic_protocol_members)

    def static_member_id(self, group_instance_id: str | None) -> str | None:
        if group_instance_id is None:
            return None
        return self._static_members.get(group_instance_id)

    def get_or_maybe_create_member(self, member_id: str, create_if_not_exists: bool) -> ConsumerGroupMember:
        """A new member is not added to the group: update_member does that."""
        member = self._members.get(member_id)
        if member is not None:
            return member

        if not create_if_not_exists:
            raise UnknownMemberIdException(f"Member {member_id} is not a member of group {self._group_id}.")

        return ConsumerGroupMember.Builder(member_id).build()

    def static_member(self, instance_id: str | None) -> ConsumerGroupMember | None:
        existing_member_id = self.static_member_id(instance_id)
        return None if existing_member_id is None else self.get_or_maybe_create_member(existing_member_id, False)

    def has_static_member(self, instance_id: str | None) -> bool:
        if instance_id is None:
            return False
        return self._static_members.contains_key(instance_id)

    def target_assignment(self, member_id: str | None = None, instance_id: str | None = None) -> Any:
        """ModernGroup's two overloads, and Kafka's targetAssignment(memberId, instanceId): with an instance id,
        the target of the member that holds it now (EMPTY if none does); without one, the member's own."""
        if instance_id is None:
            return super().target_assignment(member_id)
        previous_member_id = self.static_member_id(instance_id)
        if previous_member_id is not None:
            return super().target_assignment(previous_member_id)
        return Assignment.EMPTY

    def update_member(self, new_member: ConsumerGroupMember) -> None:
        if new_member is None:
            raise IllegalArgumentException("newMember cannot be null.")
        old_member = self._members.put(new_member.member_id(), new_member)
        self.maybe_update_subscribed_topic_names_and_group_subscription_type(old_member, new_member)
        self._maybe_update_server_assignors(old_member, new_member)
        self._maybe_update_partition_epoch(old_member, new_member)
        self._update_static_member(new_member)
        self.maybe_update_group_state()
        self._maybe_update_num_classic_protocol_members(old_member, new_member)
        self._maybe_update_classic_protocol_members_supported_protocols(old_member, new_member)

    def _update_static_member(self, new_member: ConsumerGroupMember) -> None:
        if new_member.instance_id() is not None:
            self._static_members.put(new_member.instance_id(), new_member.member_id())

    def remove_member(self, member_id: str) -> None:
        old_member = self._members.remove(member_id)
        self.maybe_update_subscribed_topic_names_and_group_subscription_type(old_member, None)
        self._maybe_update_server_assignors(old_member, None)
        self._maybe_remove_partition_epoch(old_member)
        self._remove_static_member(old_member)
        self.maybe_update_group_state()
        self._maybe_update_num_classic_protocol_members(old_member, None)
        self._maybe_update_classic_protocol_members_supported_protocols(old_member, None)

    def _remove_static_member(self, old_member: ConsumerGroupMember) -> None:
        # as in Kafka, removing a member the group does not have fails here (on None)
        if old_member.instance_id() is not None:
            self._static_members.remove(old_member.instance_id())

    def num_classic_protocol_members(self) -> int:
        return self._num_classic_protocol_members.get()

    def classic_members_supported_protocols(self) -> Mapping[str, int]:
        return ReadOnlyView(self._classic_protocol_members_supported_protocols)

    def static_members(self) -> Mapping[str, str]:
        return ReadOnlyView(self._static_members)

    def compute_preferred_server_assignor(self, old_member: ConsumerGroupMember | None,
                                          new_member: ConsumerGroupMember | None) -> str | None:
        """The assignor most members would ask for once the member is updated; the group's counts are left as
        they are."""
        counts = dict(self._server_assignors.entry_set())
        ConsumerGroup._maybe_update_server_assignors_count(counts, old_member, new_member)
        return _max_by_value(counts.items())

    def preferred_server_assignor(self, committed_offset: int = LATEST_EPOCH) -> str | None:
        """The assignor most members ask for (now, or as of the offset); None when no member names one."""
        return _max_by_value(self._server_assignors.entry_set(committed_offset))

    def validate_offset_commit(self, member_id: str, group_instance_id: str | None, member_epoch: int,
                               is_transactional: bool, api_version: int) -> None:
        """UnknownMemberIdException for an unknown member; for a known one, a member epoch other than its own is
        StaleMemberEpochException (consumer protocol) or IllegalGenerationException (classic protocol). Whether
        the commit is transactional matters only for the request version check."""
        # no member epoch (-1): the admin client, or a consumer outside group management; allowed in an empty group
        if member_epoch < 0 and len(self.members()) == 0:
            return

        member = self.get_or_maybe_create_member(member_id, False)

        # a consumer-protocol member commits with OffsetCommit v9 or later, which carries the member epoch
        if not is_transactional and not member.use_classic_protocol() and api_version < 9:
            raise UnsupportedVersionException(
                "OffsetCommit version 9 or above must be used by members using the modern group protocol")

        self._validate_member_epoch(member_epoch, member.member_epoch(), member.use_classic_protocol())

    def validate_offset_fetch(self, member_id: str | None, member_epoch: int, last_committed_offset: int) -> None:
        """As validate_offset_commit, against the member as of the last committed offset."""
        # no member id and no epoch: the admin client, or a client that does not send them
        if member_id is None and member_epoch < 0:
            return

        member = self._members.get(member_id, last_committed_offset)
        if member is None:
            raise UnknownMemberIdException(f"Member {member_id} is not a member of group {self._group_id}.")
        self._validate_member_epoch(member_epoch, member.member_epoch(), member.use_classic_protocol())

    def validate_offset_delete(self) -> None:
        pass  # a consumer group's offsets may always be deleted

    def validate_delete_group(self) -> None:
        if self.state() != ConsumerGroup.ConsumerGroupState.EMPTY:
            raise GroupNotEmptyException("The group is not empty.")  # Errors.NON_EMPTY_GROUP.exception()

    def create_group_tombstone_records(self, records: list[CoordinatorRecord]) -> None:
        # the reverse of the order the group was written in
        for member_id in self.members():
            records.append(coordinator_record_helpers.new_current_assignment_tombstone_record(self.group_id(),
                                                                                              member_id))

        for member_id in self.members():
            records.append(coordinator_record_helpers.new_target_assignment_tombstone_record(self.group_id(),
                                                                                             member_id))
        records.append(coordinator_record_helpers.new_target_assignment_epoch_tombstone_record(self.group_id()))

        for member_id in self.members():
            records.append(coordinator_record_helpers.new_member_subscription_tombstone_record(self.group_id(),
                                                                                               member_id))

        records.append(coordinator_record_helpers.new_group_subscription_metadata_tombstone_record(self.group_id()))
        records.append(coordinator_record_helpers.new_group_epoch_tombstone_record(self.group_id()))

    def is_empty(self) -> bool:
        return self.state() == ConsumerGroup.ConsumerGroupState.EMPTY

    def offset_expiration_condition(self) -> OffsetExpirationCondition | None:
        # a consumer group's offsets expire offsets.retention.ms after their commit
        return OffsetExpirationConditionImpl(lambda offset_and_metadata: offset_and_metadata.commit_timestamp_ms)

    def is_in_states(self, states_filter: Set[str], committed_offset: int) -> bool:
        return self._state.get(committed_offset).to_lower_case_string() in states_filter

    def _validate_member_epoch(self, received_member_epoch: int, expected_member_epoch: int,
                               use_classic_protocol: bool) -> None:
        if received_member_epoch != expected_member_epoch:
            if use_classic_protocol:
                raise IllegalGenerationException(
                    f"The received generation id {received_member_epoch} does not match the expected member epoch "
                    f"{expected_member_epoch}.")
            raise StaleMemberEpochException(
                f"The received member epoch {received_member_epoch} does not match the expected member epoch "
                f"{expected_member_epoch}.")

    def maybe_update_group_state(self) -> None:
        new_state = ConsumerGroup.ConsumerGroupState.STABLE
        if self._members.is_empty():
            new_state = ConsumerGroup.ConsumerGroupState.EMPTY
        elif self._group_epoch.get() > self._target_assignment_epoch.get():
            new_state = ConsumerGroup.ConsumerGroupState.ASSIGNING
        else:
            for member in self._members.values():
                if not member.is_reconciled_to(self._target_assignment_epoch.get()):
                    new_state = ConsumerGroup.ConsumerGroupState.RECONCILING
                    break

        # Kafka reports the transition to its metrics shard here; the port has no metrics
        self._state.set(new_state)

    def _maybe_update_server_assignors(self, old_member: ConsumerGroupMember | None,
                                       new_member: ConsumerGroupMember | None) -> None:
        ConsumerGroup._maybe_update_server_assignors_count(self._server_assignors, old_member, new_member)

    @staticmethod
    def _maybe_update_server_assignors_count(server_assignor_count: MutableMapping[str, int],
                                             old_member: ConsumerGroupMember | None,
                                             new_member: ConsumerGroupMember | None) -> None:
        if old_member is not None and old_member.server_assignor_name() is not None:
            compute(server_assignor_count, old_member.server_assignor_name(), dec_value)
        if new_member is not None and new_member.server_assignor_name() is not None:
            compute(server_assignor_count, new_member.server_assignor_name(), inc_value)

    def _maybe_update_num_classic_protocol_members(self, old_member: ConsumerGroupMember | None,
                                                   new_member: ConsumerGroupMember | None) -> None:
        delta = 0
        if old_member is not None and old_member.use_classic_protocol():
            delta -= 1
        if new_member is not None and new_member.use_classic_protocol():
            delta += 1
        self.set_num_classic_protocol_members(self.num_classic_protocol_members() + delta)

    def _maybe_update_classic_protocol_members_supported_protocols(self, old_member: ConsumerGroupMember | None,
                                                                   new_member: ConsumerGroupMember | None) -> None:
        if old_member is not None:
            for protocol in old_member.supported_classic_protocols() or ():
                compute(self._classic_protocol_members_supported_protocols, protocol.name, dec_value)
        if new_member is not None:
            for protocol in new_member.supported_classic_protocols() or ():
                compute(self._classic_protocol_members_supported_protocols, protocol.name, inc_value)

    def _maybe_update_partition_epoch(self, old_member: ConsumerGroupMember | None,
                                      new_member: ConsumerGroupMember) -> None:
        self._maybe_remove_partition_epoch(old_member)
        self.add_partition_epochs(new_member.assigned_partitions(), new_member.member_epoch())
        self.add_partition_epochs(new_member.partitions_pending_revocation(), new_member.member_epoch())

    def _maybe_remove_partition_epoch(self, old_member: ConsumerGroupMember | None) -> None:
        if old_member is not None:
            self.remove_partition_epochs(old_member.assigned_partitions(), old_member.member_epoch())
            self.remove_partition_epochs(old_member.partitions_pending_revocation(), old_member.member_epoch())

    def as_described_group(self, committed_offset: int, default_assignor: str,
                           topics_image: TopicsImage) -> DescribedGroup:
        """The group as ConsumerGroupDescribe reports it, as of the last committed offset."""
        assignor_name = self.preferred_server_assignor(committed_offset)
        members = tuple(
            member.as_consumer_group_describe_member(
                self._target_assignment.get(member.member_id(), committed_offset), topics_image)
            for _, member in self._members.entry_set(committed_offset)
        )
        return DescribedGroup(
            error_code=ErrorCode.none,
            group_id=self._group_id,
            assignor_name=default_assignor if assignor_name is None else assignor_name,
            group_epoch=self._group_epoch.get(committed_offset),
            group_state=str(self._state.get(committed_offset)),
            assignment_epoch=self._target_assignment_epoch.get(committed_offset),
            members=members,
        )

    @staticmethod
    def from_classic_group(snapshot_registry: SnapshotRegistry, classic_group: ClassicGroup,
                           topics_image: TopicsImage) -> ConsumerGroup:
        """Kafka's online upgrade of a classic group to a consumer group: every classic member becomes a stable
        member at the group's generation, owning (and targeted at) the partitions of its last assignment. A group
        that was rebalancing asks its members to rejoin afterwards."""
        group_id = classic_group.group_id()
        consumer_group = ConsumerGroup(snapshot_registry, group_id)
        consumer_group.set_group_epoch(classic_group.generation_id())
        consumer_group.set_target_assignment_epoch(classic_group.generation_id())

        for classic_group_member in classic_group.all_members():
            assigned_partitions = to_topic_partition_map(
                consumer_protocol.deserialize_consumer_protocol_assignment(
                    ByteBuffer.wrap(classic_group_member.assignment())),
                topics_image,
            )
            subscription = consumer_protocol.deserialize_consumer_protocol_subscription(
                ByteBuffer.wrap(classic_group_member.metadata(_get(classic_group.protocol_name()))))

            new_member = (ConsumerGroupMember.Builder(classic_group_member.member_id())
                          .set_member_epoch(classic_group.generation_id())
                          .set_state(MemberState.STABLE)
                          .set_previous_member_epoch(classic_group.generation_id())
                          .set_instance_id(classic_group_member.group_instance_id())
                          .set_rack_id(to_optional(subscription.rack_id))
                          .set_rebalance_timeout_ms(classic_group_member.rebalance_timeout_ms())
                          .set_client_id(classic_group_member.client_id())
                          .set_client_host(classic_group_member.client_host())
                          .set_subscribed_topic_names(subscription.topics)
                          .set_assigned_partitions(assigned_partitions)
                          .set_classic_member_metadata(ClassicMemberMetadata(
                              session_timeout_ms=classic_group_member.session_timeout_ms(),
                              supported_protocols=tuple(
                                  ConsumerGroupMember.classic_protocol_list_from_join_request_protocol_collection(
                                      classic_group_member.supported_protocols())),
                          ))
                          .build())
            consumer_group.update_target_assignment(new_member.member_id(), Assignment(assigned_partitions))
            consumer_group.update_member(new_member)

        return consumer_group

    def create_consumer_group_records(self, records: list[CoordinatorRecord]) -> None:
        """Appends the records that write this whole group (after an upgrade from a classic group)."""
        for member in self.members().values():
            records.append(coordinator_record_helpers.new_member_subscription_record(self.group_id(), member))

        records.append(coordinator_record_helpers.new_group_epoch_record(self.group_id(), self.group_epoch()))

        for member_id in self.members():
            records.append(coordinator_record_helpers.new_target_assignment_record(
                self.group_id(), member_id, self.target_assignment(member_id).partitions()))

        records.append(coordinator_record_helpers.new_target_assignment_epoch_record(self.group_id(),
                                                                                     self.group_epoch()))

        for member in self.members().values():
            records.append(coordinator_record_helpers.new_current_assignment_record(self.group_id(), member))

    def supports_classic_protocols(self, member_protocol_type: str, member_protocols: Set[str]) -> bool:
        """Whether a classic member offering these protocols could join: an empty group takes any, else one of
        them must be supported by every member that uses the classic protocol."""
        if member_protocol_type == CONSUMER_PROTOCOL_TYPE:
            if self.is_empty():
                return len(member_protocols) > 0
            return any(
                _get_or_default(self._classic_protocol_members_supported_protocols, name, 0)
                == self.num_classic_protocol_members()
                for name in member_protocols
            )
        return False

    def all_members_use_classic_protocol_except(self, member_id: str) -> bool:
        """Whether, once this (consumer-protocol) member leaves, only classic-protocol members remain: the group may
        then be downgraded."""
        return (self.num_classic_protocol_members() == len(self.members()) - 1
                and not self.get_or_maybe_create_member(member_id, False).use_classic_protocol())

    def waiting_on_unreleased_partition(self, member: ConsumerGroupMember) -> bool:
        """Whether the member waits for a partition of its target that another member still owns."""
        if member.state() == MemberState.UNRELEASED_PARTITIONS:
            for topic_id, partitions in self.target_assignment()[member.member_id()].partitions().items():
                assigned_partitions = member.assigned_partitions().get(topic_id, frozenset())

                for partition in partitions:
                    if partition not in assigned_partitions and self.current_partition_epoch(topic_id,
                                                                                             partition) != -1:
                        return True
        return False


def to_optional(value: str | None) -> str | None:
    """Kafka's group Utils.toOptional: an empty string is no value."""
    return None if not value else value


def to_topic_partition_map(consumer_protocol_assignment: Any,
                           topics_image: TopicsImage) -> dict[uuid.UUID, set[int]]:
    """Kafka's group Utils.toTopicPartitionMap (only ConsumerGroup uses it here): topic names to ids through the
    image; a topic the image does not know is left out."""
    topic_partition_map: dict[uuid.UUID, set[int]] = {}
    for topic_partition in consumer_protocol_assignment.assigned_partitions:
        topic_image = topics_image.get_topic(topic_partition.topic)
        if topic_image is not None:
            topic_partition_map[topic_image.id] = set(topic_partition.partitions)
    return topic_partition_map


def _get(value: str | None) -> str:
    """Java's Optional.get: the value, or NoSuchElementException (a ValueError here) when there is none."""
    if value is None:
        raise ValueError("No value present")
    return value


def _max_by_value(entries: Any) -> str | None:
    """Stream.max(Map.Entry.comparingByValue()).map(getKey): the key of the largest count, None for no entries."""
    best: tuple[str, int] | None = None
    for key, value in entries:
        if best is None or value > best[1]:
            best = (key, value)
    return None if best is None else best[0]


def _get_or_default(target: TimelineHashMap[str, int], key: str, default: int) -> int:
    value = target.get(key)
    return default if value is None else value

