"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/modern/consumer/ConsumerGroupMember.java
(Kafka 3.9).

Kafka's wire messages are kio's classes (ConsumerGroupDescribe v0 response, JoinGroup v9 request); its collections
are lists or tuples. Java's Optional results are `X | None`; Optional/OptionalInt arguments of the maybeUpdate...
methods are `X | None`, None standing for empty. Topic ids are uuid.UUID, as kio and the metadata image carry them.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Set

from kio.schema.consumer_group_describe.v0.response import Assignment as DescribeAssignment
from kio.schema.consumer_group_describe.v0.response import Member as DescribeMember
from kio.schema.consumer_group_describe.v0.response import TopicPartitions as DescribeTopicPartitions
from kio.schema.join_group.v9.request import JoinGroupRequestProtocol

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_current_member_assignment_value import (  # noqa: E501
    ConsumerGroupCurrentMemberAssignmentValue,
    TopicPartitions,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_member_metadata_value import (
    ClassicMemberMetadata,
    ClassicProtocol,
    ConsumerGroupMemberMetadataValue,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.assignment import Assignment
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.member_state import MemberState
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.modern_group_member import ModernGroupMember
from kafka_edu.v3_9.metadata.image.topics_image import TopicsImage


def assignment_from_topic_partitions(
    topic_partitions_list: Iterable[TopicPartitions],
) -> dict[uuid.UUID, frozenset[int]]:
    """Kafka's group Utils.assignmentFromTopicPartitions (only ConsumerGroupMember uses it here): a record's list of
    topic partitions as a map, each partition set read-only."""
    assignment: dict[uuid.UUID, frozenset[int]] = {}
    for topic_partitions in topic_partitions_list:
        if topic_partitions.topic_id in assignment:  # Collectors.toMap refuses a key seen twice
            raise IllegalStateException(f"Duplicate key {topic_partitions.topic_id}")
        assignment[topic_partitions.topic_id] = frozenset(topic_partitions.partitions)
    return assignment


class ConsumerGroupMember(ModernGroupMember):
    """A member of a consumer group (KIP-848). Immutable: every change goes through a Builder, and every field comes
    from the member's records in __consumer_offsets."""

    class Builder:
        """Creates a member, or a changed copy of one (Builder(member) or Builder(member, new_member_id))."""

        def __init__(self, member_or_id: ConsumerGroupMember | str, new_member_id: str | None = None) -> None:
            if isinstance(member_or_id, ConsumerGroupMember):
                member = member_or_id
                member_id = member._member_id if new_member_id is None else new_member_id
            else:
                member = None
                member_id = member_or_id
            if member_id is None:
                raise TypeError("memberId")  # Java's Objects.requireNonNull
            self._member_id = member_id
            if member is None:
                self._member_epoch = 0
                self._previous_member_epoch = -1
                self._state = MemberState.STABLE
                self._instance_id: str | None = None
                self._rack_id: str | None = None
                self._rebalance_timeout_ms = -1
                self._client_id = ""
                self._client_host = ""
                self._subscribed_topic_names: frozenset[str] | None = frozenset()
                self._subscribed_topic_regex: str | None = ""
                self._server_assignor_name: str | None = None
                self._assigned_partitions: Mapping[uuid.UUID, Set[int]] = {}
                self._partitions_pending_revocation: Mapping[uuid.UUID, Set[int]] = {}
                self._classic_member_metadata: ClassicMemberMetadata | None = None
            else:
                self._member_epoch = member._member_epoch
                self._previous_member_epoch = member._previous_member_epoch
                self._instance_id = member._instance_id
                self._rack_id = member._rack_id
                self._rebalance_timeout_ms = member._rebalance_timeout_ms
                self._client_id = member._client_id
                self._client_host = member._client_host
                self._subscribed_topic_names = member._subscribed_topic_names
                self._subscribed_topic_regex = member._subscribed_topic_regex
                self._server_assignor_name = member._server_assignor_name
                self._state = member._state
                self._assigned_partitions = member._assigned_partitions
                self._partitions_pending_revocation = member._partitions_pending_revocation
                self._classic_member_metadata = member._classic_member_metadata

        def update_member_epoch(self, member_epoch: int) -> ConsumerGroupMember.Builder:
            """Moves to a new epoch, remembering the current one as the previous epoch."""
            current_member_epoch = self._member_epoch
            self._member_epoch = member_epoch
            self._previous_member_epoch = current_member_epoch
            return self

        def set_member_epoch(self, member_epoch: int) -> ConsumerGroupMember.Builder:
            self._member_epoch = member_epoch
            return self

        def set_previous_member_epoch(self, previous_member_epoch: int) -> ConsumerGroupMember.Builder:
            self._previous_member_epoch = previous_member_epoch
            return self

        def set_instance_id(self, instance_id: str | None) -> ConsumerGroupMember.Builder:
            self._instance_id = instance_id
            return self

        def maybe_update_instance_id(self, instance_id: str | None) -> ConsumerGroupMember.Builder:
            self._instance_id = instance_id if instance_id is not None else self._instance_id
            return self

        def set_rack_id(self, rack_id: str | None) -> ConsumerGroupMember.Builder:
            self._rack_id = rack_id
            return self

        def maybe_update_rack_id(self, rack_id: str | None) -> ConsumerGroupMember.Builder:
            self._rack_id = rack_id if rack_id is not None else self._rack_id
            return self

        def set_rebalance_timeout_ms(self, rebalance_timeout_ms: int) -> ConsumerGroupMember.Builder:
            self._rebalance_timeout_ms = rebalance_timeout_ms
            return self

        def maybe_update_rebalance_timeout_ms(self, rebalance_timeout_ms: int | None) -> ConsumerGroupMember.Builder:
            self._rebalance_timeout_ms = (rebalance_timeout_ms if rebalance_timeout_ms is not None
                                          else self._rebalance_timeout_ms)
            return self

        def set_client_id(self, client_id: str) -> ConsumerGroupMember.Builder:
            self._client_id = client_id
            return self

        def set_client_host(self, client_host: str) -> ConsumerGroupMember.Builder:
            self._client_host = client_host
            return self

        def set_subscribed_topic_names(self, subscribed_topic_list: Iterable[str]) -> ConsumerGroupMember.Builder:
            # Kafka tests the current field, not the argument, before copying the list into a set
            if self._subscribed_topic_names is not None:
                self._subscribed_topic_names = frozenset(subscribed_topic_list)
            return self

        def maybe_update_subscribed_topic_names(
            self, subscribed_topic_list: Iterable[str] | None,
        ) -> ConsumerGroupMember.Builder:
            if subscribed_topic_list is not None:
                self._subscribed_topic_names = frozenset(subscribed_topic_list)
            return self

        def set_subscribed_topic_regex(self, subscribed_topic_regex: str | None) -> ConsumerGroupMember.Builder:
            self._subscribed_topic_regex = subscribed_topic_regex
            return self

        def maybe_update_subscribed_topic_regex(
            self, subscribed_topic_regex: str | None,
        ) -> ConsumerGroupMember.Builder:
            self._subscribed_topic_regex = (subscribed_topic_regex if subscribed_topic_regex is not None
                                            else self._subscribed_topic_regex)
            return self

        def set_server_assignor_name(self, server_assignor_name: str | None) -> ConsumerGroupMember.Builder:
            self._server_assignor_name = server_assignor_name
            return self

        def maybe_update_server_assignor_name(self, server_assignor_name: str | None) -> ConsumerGroupMember.Builder:
            self._server_assignor_name = (server_assignor_name if server_assignor_name is not None
                                          else self._server_assignor_name)
            return self

        def set_state(self, state: MemberState) -> ConsumerGroupMember.Builder:
            self._state = state
            return self

        def set_assigned_partitions(
            self, assigned_partitions: Mapping[uuid.UUID, Set[int]],
        ) -> ConsumerGroupMember.Builder:
            self._assigned_partitions = assigned_partitions
            return self

        def set_partitions_pending_revocation(
            self, partitions_pending_revocation: Mapping[uuid.UUID, Set[int]],
        ) -> ConsumerGroupMember.Builder:
            self._partitions_pending_revocation = partitions_pending_revocation
            return self

        def set_classic_member_metadata(
            self, classic_member_metadata: ClassicMemberMetadata | None,
        ) -> ConsumerGroupMember.Builder:
            self._classic_member_metadata = classic_member_metadata
            return self

        def update_with(
            self, record: ConsumerGroupMemberMetadataValue | ConsumerGroupCurrentMemberAssignmentValue,
        ) -> ConsumerGroupMember.Builder:
            """Kafka's two updateWith overloads: the member's metadata record or its current assignment record."""
            if isinstance(record, ConsumerGroupMemberMetadataValue):
                self.set_instance_id(record.instance_id)
                self.set_rack_id(record.rack_id)
                self.set_client_id(record.client_id)
                self.set_client_host(record.client_host)
                self.set_subscribed_topic_names(record.subscribed_topic_names)
                self.set_subscribed_topic_regex(record.subscribed_topic_regex)
                self.set_rebalance_timeout_ms(record.rebalance_timeout_ms)
                self.set_server_assignor_name(record.server_assignor)
                self.set_classic_member_metadata(record.classic_member_metadata)
            else:
                self.set_member_epoch(record.member_epoch)
                self.set_previous_member_epoch(record.previous_member_epoch)
                self.set_state(MemberState.from_value(record.state))
                self.set_assigned_partitions(assignment_from_topic_partitions(record.assigned_partitions))
                self.set_partitions_pending_revocation(
                    assignment_from_topic_partitions(record.partitions_pending_revocation))
            return self

        def build(self) -> ConsumerGroupMember:
            return ConsumerGroupMember(
                self._member_id,
                self._member_epoch,
                self._previous_member_epoch,
                self._instance_id,
                self._rack_id,
                self._rebalance_timeout_ms,
                self._client_id,
                self._client_host,
                self._subscribed_topic_names,
                self._subscribed_topic_regex,
                self._server_assignor_name,
                self._state,
                self._assigned_partitions,
                self._partitions_pending_revocation,
                self._classic_member_metadata,
            )

    def __init__(
        self,
        member_id: str,
        member_epoch: int,
        previous_member_epoch: int,
        instance_id: str | None,
        rack_id: str | None,
        rebalance_timeout_ms: int,
        client_id: str,
        client_host: str,
        subscribed_topic_names: frozenset[str] | None,
        subscribed_topic_regex: str | None,
        server_assignor_name: str | None,
        state: MemberState,
        assigned_partitions: Mapping[uuid.UUID, Set[int]],
        partitions_pending_revocation: Mapping[uuid.UUID, Set[int]],
        classic_member_metadata: ClassicMemberMetadata | None,
    ) -> None:
        super().__init__(member_id, member_epoch, previous_member_epoch, instance_id, rack_id, client_id, client_host,
                         subscribed_topic_names, state, assigned_partitions)
        self._rebalance_timeout_ms = rebalance_timeout_ms
        self._subscribed_topic_regex = subscribed_topic_regex
        self._server_assignor_name = server_assignor_name
        self._partitions_pending_revocation = partitions_pending_revocation
        self._classic_member_metadata = classic_member_metadata

    def rebalance_timeout_ms(self) -> int:
        return self._rebalance_timeout_ms

    def subscribed_topic_regex(self) -> str | None:
        return self._subscribed_topic_regex

    def server_assignor_name(self) -> str | None:
        return self._server_assignor_name

    def partitions_pending_revocation(self) -> Mapping[uuid.UUID, Set[int]]:
        return self._partitions_pending_revocation

    def supported_join_group_request_protocols(self) -> list[JoinGroupRequestProtocol]:
        """The classic protocols the member offered, as a JoinGroup request carries them (empty for a member that
        uses the consumer protocol)."""
        protocols: list[JoinGroupRequestProtocol] = []
        for protocol in self.supported_classic_protocols() or ():
            protocols.append(JoinGroupRequestProtocol(name=protocol.name, metadata=protocol.metadata))
        return protocols

    def classic_protocol_session_timeout(self) -> int | None:
        if self.use_classic_protocol():
            return self._classic_member_metadata.session_timeout_ms
        return None

    def classic_member_metadata(self) -> ClassicMemberMetadata | None:
        return self._classic_member_metadata

    def supported_classic_protocols(self) -> list[ClassicProtocol] | None:
        if self.use_classic_protocol():
            return list(self._classic_member_metadata.supported_protocols)
        return None

    def as_consumer_group_describe_member(
        self, target_assignment: Assignment | None, topics_image: TopicsImage,
    ) -> DescribeMember:
        """The member as ConsumerGroupDescribe reports it; topics the image does not know are left out."""
        return DescribeMember(
            member_epoch=self._member_epoch,
            member_id=self._member_id,
            assignment=DescribeAssignment(
                topic_partitions=ConsumerGroupMember._topic_partitions_from_map(self._assigned_partitions,
                                                                                 topics_image)),
            target_assignment=DescribeAssignment(
                topic_partitions=ConsumerGroupMember._topic_partitions_from_map(
                    target_assignment.partitions() if target_assignment is not None else {}, topics_image)),
            client_host=self._client_host,
            client_id=self._client_id,
            instance_id=self._instance_id,
            rack_id=self._rack_id,
            # Kafka copies its HashSet in hash order; sorted here so the order does not depend on string hashing
            subscribed_topic_names=(None if self._subscribed_topic_names is None
                                    else tuple(sorted(self._subscribed_topic_names))),
            subscribed_topic_regex=self._subscribed_topic_regex,
        )

    @staticmethod
    def _topic_partitions_from_map(
        partitions: Mapping[uuid.UUID, Set[int]], topics_image: TopicsImage,
    ) -> tuple[DescribeTopicPartitions, ...]:
        topic_partitions: list[DescribeTopicPartitions] = []
        for topic_id, partition_set in partitions.items():
            topic_image = topics_image.get_topic(topic_id)
            if topic_image is not None:
                topic_partitions.append(DescribeTopicPartitions(
                    topic_id=topic_id, topic_name=topic_image.name, partitions=tuple(sorted(partition_set))))
        return tuple(topic_partitions)

    @staticmethod
    def classic_protocol_list_from_join_request_protocol_collection(
        protocols: Iterable[JoinGroupRequestProtocol],
    ) -> list[ClassicProtocol]:
        return [ClassicProtocol(name=protocol.name, metadata=protocol.metadata) for protocol in protocols]

    def use_classic_protocol(self) -> bool:
        return self._classic_member_metadata is not None

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other is None or type(other) is not type(self):
            return False
        return (self._member_epoch == other._member_epoch
                and self._previous_member_epoch == other._previous_member_epoch
                and self._state == other._state
                and self._rebalance_timeout_ms == other._rebalance_timeout_ms
                and self._member_id == other._member_id
                and self._instance_id == other._instance_id
                and self._rack_id == other._rack_id
                and self._client_id == other._client_id
                and self._client_host == other._client_host
                and self._subscribed_topic_names == other._subscribed_topic_names
                and self._subscribed_topic_regex == other._subscribed_topic_regex
                and self._server_assignor_name == other._server_assignor_name
                and self._assigned_partitions == other._assigned_partitions
                and self._partitions_pending_revocation == other._partitions_pending_revocation
                and self._classic_member_metadata == other._classic_member_metadata)

    def __hash__(self) -> int:
        return hash((self._member_id, self._member_epoch, self._previous_member_epoch, self._state,
                     self._instance_id, self._rack_id, self._rebalance_timeout_ms, self._client_id,
                     self._client_host, self._subscribed_topic_names, self._subscribed_topic_regex,
                     self._server_assignor_name, _frozen(self._assigned_partitions),
                     _frozen(self._partitions_pending_revocation), self._classic_member_metadata))

    def __repr__(self) -> str:
        return (f"ConsumerGroupMember(memberId='{self._member_id}', memberEpoch={self._member_epoch}, "
                f"previousMemberEpoch={self._previous_member_epoch}, state='{self._state}', "
                f"instanceId='{self._instance_id}', rackId='{self._rack_id}', "
                f"rebalanceTimeoutMs={self._rebalance_timeout_ms}, clientId='{self._client_id}', "
                f"clientHost='{self._client_host}', subscribedTopicNames={self._subscribed_topic_names}, "
                f"subscribedTopicRegex='{self._subscribed_topic_regex}', "
                f"serverAssignorName='{self._server_assignor_name}', assignedPartitions={self._assigned_partitions}, "
                f"partitionsPendingRevocation={self._partitions_pending_revocation}, "
                f"classicMemberMetadata='{self._classic_member_metadata}')")


def _frozen(assignment: Mapping[uuid.UUID, Set[int]]) -> frozenset:
    """A hashable copy of an assignment map, for __hash__ (Java hashes its maps of sets directly)."""
    return frozenset((topic_id, frozenset(partitions)) for topic_id, partitions in assignment.items())
