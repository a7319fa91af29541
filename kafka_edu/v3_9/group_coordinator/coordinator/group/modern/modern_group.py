"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/modern/ModernGroup.java (Kafka 3.9).

Topic ids are uuid.UUID, as the metadata image carries them. Java's overloads share one Python name: the getter
subscriptionType() and the static subscriptionType(map, n) (see _GetterOrStatic), targetAssignment() and
targetAssignment(memberId), computeSubscribedTopicNames(old, new) and computeSubscribedTopicNames(removedMembers).
Kafka's Collections.unmodifiableMap views of the timeline maps are live read-only views here too.
"""

from __future__ import annotations

import uuid
from abc import abstractmethod
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Set
from types import MappingProxyType
from typing import Any, ClassVar, Generic, TypeVar

from kio.schema.list_groups.v5.response import ListedGroup

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v3_9.group_coordinator.coordinator.group.group import Group
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.assignment import Assignment
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.modern_group_member import ModernGroupMember
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.topic_metadata import TopicMetadata
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.subscription_type import SubscriptionType
from kafka_edu.v3_9.metadata.image.cluster_image import ClusterImage
from kafka_edu.v3_9.metadata.image.topics_image import TopicsImage
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import SnapshotRegistry
from kafka_edu.v3_9.server_common.timeline.timeline_hash_map import TimelineHashMap
from kafka_edu.v3_9.server_common.timeline.timeline_integer import TimelineInteger
from kafka_edu.v3_9.server_common.timeline.timeline_object import TimelineObject

T = TypeVar("T", bound=ModernGroupMember)
K = TypeVar("K")
V = TypeVar("V")


def dec_value(key: Any, value: int | None) -> int | None:
    """Kafka's group Utils.decValue, for compute(): one less, and gone at zero."""
    if value is None:
        return None
    return None if value == 1 else value - 1


def inc_value(key: Any, value: int | None) -> int | None:
    """Kafka's group Utils.incValue, for compute()."""
    return 1 if value is None else value + 1


def compute(target: MutableMapping[K, V], key: K, remapping: Callable[[K, V | None], V | None]) -> V | None:
    """Java's Map.compute: the new value replaces the old one; None removes the key."""
    old_value = target.get(key)
    new_value = remapping(key, old_value)
    if new_value is None:
        if old_value is not None:
            del target[key]
    else:
        target[key] = new_value
    return new_value


class ReadOnlyView(Mapping[K, V]):
    """Collections.unmodifiableMap: a live read-only view of a map (a TimelineHashMap too, whose own get() takes an
    epoch as second argument, so MappingProxyType's get(key, default) would misread it)."""

    def __init__(self, target: Mapping[K, V]) -> None:
        self._target = target

    def __getitem__(self, key: K) -> V:
        return self._target[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._target)

    def __len__(self) -> int:
        return len(self._target)

    def __contains__(self, key: object) -> bool:
        return key in self._target

    def __repr__(self) -> str:
        return repr(dict(self.items()))


class _GetterOrStatic:
    """One name for a Java getter and a static function of the same name: called on an instance without
    arguments it is the getter; on the class, or with arguments, the static function."""

    def __init__(self, getter: Callable[[Any], Any], static: Callable[..., Any]) -> None:
        self._getter = getter
        self._static = static

    def __get__(self, instance: Any, owner: type | None = None) -> Callable[..., Any]:
        if instance is None:
            return self._static
        getter, static = self._getter, self._static
        return lambda *args: static(*args) if args else getter(instance)


class ModernGroup(Group, Generic[T]):
    """What consumer (and share) groups have in common: members, the subscriptions they add up to, the target
    assignment and its epoch, and which partition each member currently owns at which epoch. Everything that comes
    from __consumer_offsets is held in timeline structures, so that an uncommitted write can be rolled back."""

    class DeadlineAndEpoch:
        """When the subscribed topics' metadata must next be refreshed, and the group epoch that deadline was set
        at."""

        EMPTY: ClassVar[ModernGroup.DeadlineAndEpoch]

        def __init__(self, deadline_ms: int, epoch: int) -> None:
            self.deadline_ms = deadline_ms
            self.epoch = epoch

    def __init__(self, snapshot_registry: SnapshotRegistry, group_id: str) -> None:
        if snapshot_registry is None:
            raise TypeError("snapshotRegistry")  # Objects.requireNonNull
        if group_id is None:
            raise TypeError("groupId")
        self._snapshot_registry = snapshot_registry
        self._group_id = group_id
        # bumped whenever the subscriptions change: a new target assignment is then due
        self._group_epoch = TimelineInteger(snapshot_registry)
        self._members: TimelineHashMap[str, T] = TimelineHashMap(snapshot_registry, 0)
        # topic name -> number of members subscribed to it
        self._subscribed_topic_names: TimelineHashMap[str, int] = TimelineHashMap(snapshot_registry, 0)
        self._subscribed_topic_metadata: TimelineHashMap[str, TopicMetadata] = TimelineHashMap(snapshot_registry, 0)
        self._subscription_type: TimelineObject[SubscriptionType] = TimelineObject(snapshot_registry,
                                                                                   SubscriptionType.HOMOGENEOUS)
        # the epoch of the installed target assignment: below the group epoch, a new one must be computed
        self._target_assignment_epoch = TimelineInteger(snapshot_registry)
        self._target_assignment: TimelineHashMap[str, Assignment] = TimelineHashMap(snapshot_registry, 0)
        # topic id -> partition -> member id, the target assignment turned around
        self._inverted_target_assignment: TimelineHashMap[uuid.UUID, TimelineHashMap[int, str]] = TimelineHashMap(
            snapshot_registry, 0)
        # topic id -> partition -> epoch of the member that owns it now (until it revokes it)
        self._current_partition_epoch: TimelineHashMap[uuid.UUID, TimelineHashMap[int, int]] = TimelineHashMap(
            snapshot_registry, 0)
        # Soft state, not a timeline structure: it is not in the log. The epoch makes a deadline set by a write
        # that then failed (and so was not rolled back) count as expired.
        self._metadata_refresh_deadline = ModernGroup.DeadlineAndEpoch.EMPTY

    def as_listed_group(self, committed_offset: int) -> ListedGroup:
        return ListedGroup(
            group_id=self._group_id,
            protocol_type=self.protocol_type(),
            group_state=self.state_as_string(committed_offset),
            group_type=str(self.type()),
        )

    def group_id(self) -> str:
        return self._group_id

    def group_epoch(self) -> int:
        return self._group_epoch.get()

    def set_group_epoch(self, group_epoch: int) -> None:
        self._group_epoch.set(group_epoch)
        self.maybe_update_group_state()

    def assignment_epoch(self) -> int:
        return self._target_assignment_epoch.get()

    def set_target_assignment_epoch(self, target_assignment_epoch: int) -> None:
        self._target_assignment_epoch.set(target_assignment_epoch)
        self.maybe_update_group_state()

    def has_member(self, member_id: str) -> bool:
        return self._members.contains_key(member_id)

    def num_members(self) -> int:
        return self._members.size()

    def members(self) -> Mapping[str, T]:
        return ReadOnlyView(self._members)

    def subscribed_topic_names(self) -> Mapping[str, int]:
        return ReadOnlyView(self._subscribed_topic_names)

    def is_subscribed_to_topic(self, topic: str) -> bool:
        return self._subscribed_topic_names.contains_key(topic)

    def _current_subscription_type(self) -> SubscriptionType:
        return self._subscription_type.get()

    @staticmethod
    def _subscription_type_of(subscribed_topic_names: Mapping[str, int], number_of_members: int) -> SubscriptionType:
        """HOMOGENEOUS when every member subscribes to every subscribed topic (or nothing is subscribed), else
        HETEROGENEOUS: a topic's subscriber count below the member count means some member lacks it."""
        if not subscribed_topic_names:
            return SubscriptionType.HOMOGENEOUS
        for subscriber_count in subscribed_topic_names.values():
            if subscriber_count != number_of_members:
                return SubscriptionType.HETEROGENEOUS
        return SubscriptionType.HOMOGENEOUS

    # group.subscription_type(): the group's; ModernGroup.subscription_type(names, n): Kafka's static function
    subscription_type = _GetterOrStatic(_current_subscription_type, _subscription_type_of)

    def target_assignment(self, member_id: str | None = None) -> Any:
        """Kafka's targetAssignment(memberId) (EMPTY for a member without one) and targetAssignment() (the whole
        map, read-only)."""
        if member_id is None:
            return ReadOnlyView(self._target_assignment)
        assignment = self._target_assignment.get(member_id)
        return Assignment.EMPTY if assignment is None else assignment

    def inverted_target_assignment(self) -> Mapping[uuid.UUID, Mapping[int, str]]:
        return ReadOnlyView(self._inverted_target_assignment)

    def update_target_assignment(self, member_id: str, new_target_assignment: Assignment) -> None:
        old_target_assignment = self._target_assignment.get(member_id)
        self._update_inverted_target_assignment(
            member_id,
            Assignment({}) if old_target_assignment is None else old_target_assignment,
            new_target_assignment,
        )
        self._target_assignment.put(member_id, new_target_assignment)

    def _update_inverted_target_assignment(self, member_id: str, old_target_assignment: Assignment,
                                           new_target_assignment: Assignment) -> None:
        all_topic_ids = set(old_target_assignment.partitions()) | set(new_target_assignment.partitions())

        for topic_id in all_topic_ids:
            old_partitions = old_target_assignment.partitions().get(topic_id, frozenset())
            new_partitions = new_target_assignment.partitions().get(topic_id, frozenset())

            topic_partition_assignment = self._inverted_target_assignment.get(topic_id)
            if topic_partition_assignment is None:
                topic_partition_assignment = TimelineHashMap(self._snapshot_registry,
                                                             max(len(old_partitions), len(new_partitions)))
                self._inverted_target_assignment.put(topic_id, topic_partition_assignment)

            # Only drop a partition this member still holds in the map: if it moved from A to B and B's new target
            # was written first, A's update must not undo it.
            for partition in old_partitions:
                if partition not in new_partitions and topic_partition_assignment.get(partition) == member_id:
                    topic_partition_assignment.remove(partition)

            for partition in new_partitions:
                if partition not in old_partitions:
                    topic_partition_assignment.put(partition, member_id)

            if topic_partition_assignment.is_empty():
                self._inverted_target_assignment.remove(topic_id)
            else:
                self._inverted_target_assignment.put(topic_id, topic_partition_assignment)

    def remove_target_assignment(self, member_id: str) -> None:
        old_target_assignment = self._target_assignment.get(member_id)
        self._update_inverted_target_assignment(
            member_id,
            Assignment.EMPTY if old_target_assignment is None else old_target_assignment,
            Assignment.EMPTY,
        )
        self._target_assignment.remove(member_id)

    def current_partition_epoch(self, topic_id: uuid.UUID, partition_id: int) -> int:
        """The epoch of the member that owns the partition, or -1 when none does."""
        partitions = self._current_partition_epoch.get(topic_id)
        if partitions is None:
            return -1
        epoch = partitions.get(partition_id)
        return -1 if epoch is None else epoch

    def subscription_metadata(self) -> Mapping[str, TopicMetadata]:
        return ReadOnlyView(self._subscribed_topic_metadata)

    def set_subscription_metadata(self, subscription_metadata: Mapping[str, TopicMetadata]) -> None:
        self._subscribed_topic_metadata.clear()
        for topic_name, topic_metadata in subscription_metadata.items():
            self._subscribed_topic_metadata.put(topic_name, topic_metadata)

    def compute_subscription_metadata(self, subscribed_topic_names: Mapping[str, int], topics_image: TopicsImage,
                                      cluster_image: ClusterImage) -> Mapping[str, TopicMetadata]:
        """The metadata of each subscribed topic the image knows (a topic it does not know is left out)."""
        new_subscription_metadata: dict[str, TopicMetadata] = {}

        for topic_name in subscribed_topic_names:
            topic_image = topics_image.get_topic(topic_name)
            if topic_image is not None:
                partition_racks: dict[int, set[str]] = {}
                for partition, partition_registration in topic_image.partitions.items():
                    racks: set[str] = set()
                    for replica in partition_registration.replicas:
                        # a broker without a rack adds nothing
                        rack = cluster_image.broker(replica).rack
                        if rack is not None:
                            racks.add(rack)
                    # a partition none of whose replicas has a rack gets no entry at all
                    if racks:
                        partition_racks[partition] = racks

                new_subscription_metadata[topic_name] = TopicMetadata(
                    topic_image.id, topic_image.name, len(topic_image.partitions), partition_racks)

        return MappingProxyType(new_subscription_metadata)

    def set_metadata_refresh_deadline(self, deadline_ms: int, group_epoch: int) -> None:
        self._metadata_refresh_deadline = ModernGroup.DeadlineAndEpoch(deadline_ms, group_epoch)

    def request_metadata_refresh(self) -> None:
        self._metadata_refresh_deadline = ModernGroup.DeadlineAndEpoch.EMPTY

    def has_metadata_expired(self, current_time_ms: int) -> bool:
        """Expired when the deadline has passed, or when it was set at a group epoch above the current one (the
        write that set it failed)."""
        return (current_time_ms >= self._metadata_refresh_deadline.deadline_ms
                or self.group_epoch() < self._metadata_refresh_deadline.epoch)

    def metadata_refresh_deadline(self) -> ModernGroup.DeadlineAndEpoch:
        return self._metadata_refresh_deadline

    def maybe_update_subscribed_topic_names_and_group_subscription_type(
        self, old_member: ModernGroupMember | None, new_member: ModernGroupMember | None,
    ) -> None:
        ModernGroup._maybe_update_subscribed_topic_names(self._subscribed_topic_names, old_member, new_member)
        self._subscription_type.set(ModernGroup._subscription_type_of(self._subscribed_topic_names,
                                                                      self._members.size()))

    @staticmethod
    def _maybe_update_subscribed_topic_names(subscribed_topic_count: MutableMapping[str, int],
                                             old_member: ModernGroupMember | None,
                                             new_member: ModernGroupMember | None) -> None:
        if old_member is not None:
            for topic_name in old_member.subscribed_topic_names():
                compute(subscribed_topic_count, topic_name, dec_value)

        if new_member is not None:
            for topic_name in new_member.subscribed_topic_names():
                compute(subscribed_topic_count, topic_name, inc_value)

    def compute_subscribed_topic_names(self, *args: Any) -> dict[str, int]:
        """A copy of the subscriber counts as they would be after a change: Kafka's (oldMember, newMember)
        overload, either of them None, or its (removedMembers) one, a set of members (or None)."""
        subscribed_topic_names = dict(self._subscribed_topic_names.entry_set())
        if len(args) == 2:
            old_member, new_member = args
            ModernGroup._maybe_update_subscribed_topic_names(subscribed_topic_names, old_member, new_member)
        else:
            (removed_members,) = args
            if removed_members is not None:
                for removed_member in removed_members:
                    ModernGroup._maybe_update_subscribed_topic_names(subscribed_topic_names, removed_member, None)
        return subscribed_topic_names

    def remove_partition_epochs(self, assignment: Mapping[uuid.UUID, Set[int]], expected_epoch: int) -> None:
        """Raises IllegalStateException when a partition is not owned at the expected epoch (or not at all)."""
        for topic_id, assigned_partitions in assignment.items():
            def remove(_: uuid.UUID, partitions_or_none: TimelineHashMap[int, int] | None,
                       assigned_partitions: Set[int] = assigned_partitions,
                       topic_id: uuid.UUID = topic_id) -> TimelineHashMap[int, int] | None:
                if partitions_or_none is None:
                    raise IllegalStateException(
                        f"Cannot remove the epoch {expected_epoch} from {topic_id} because it does not have any "
                        f"epoch")
                for partition_id in assigned_partitions:
                    prev_value = partitions_or_none.remove(partition_id)
                    # Kafka unboxes a missing epoch and fails with a NullPointerException; this fails as a mismatch
                    if prev_value != expected_epoch:
                        raise IllegalStateException(
                            f"Cannot remove the epoch {expected_epoch} from {topic_id}-{partition_id} because the "
                            f"partition is still owned at a different epoch {prev_value}")
                return None if partitions_or_none.is_empty() else partitions_or_none

            compute(self._current_partition_epoch, topic_id, remove)

    def add_partition_epochs(self, assignment: Mapping[uuid.UUID, Set[int]], epoch: int) -> None:
        """Raises IllegalStateException when a partition already has an owner: it must be revoked first."""
        for topic_id, assigned_partitions in assignment.items():
            def add(_: uuid.UUID, partitions_or_none: TimelineHashMap[int, int] | None,
                    assigned_partitions: Set[int] = assigned_partitions,
                    topic_id: uuid.UUID = topic_id) -> TimelineHashMap[int, int]:
                if partitions_or_none is None:
                    partitions_or_none = TimelineHashMap(self._snapshot_registry, len(assigned_partitions))
                for partition_id in assigned_partitions:
                    prev_value = partitions_or_none.put(partition_id, epoch)
                    if prev_value is not None:
                        raise IllegalStateException(
                            f"Cannot set the epoch of {topic_id}-{partition_id} to {epoch} because the partition is "
                            f"still owned at epoch {prev_value}")
                return partitions_or_none

            compute(self._current_partition_epoch, topic_id, add)

    @abstractmethod
    def protocol_type(self) -> str: ...

    @abstractmethod
    def get_or_maybe_create_member(self, member_id: str, create_if_not_exists: bool) -> T:
        """The member; a new one (not added to the group) if asked to create it; else UnknownMemberIdException."""

    @abstractmethod
    def update_member(self, new_member: T) -> None: ...

    @abstractmethod
    def remove_member(self, member_id: str) -> None: ...

    @abstractmethod
    def maybe_update_group_state(self) -> None: ...


ModernGroup.DeadlineAndEpoch.EMPTY = ModernGroup.DeadlineAndEpoch(0, 0)
