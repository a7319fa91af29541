"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/GroupMetadataManager.java (Kafka 3.9).

The state machine of the new group coordinator: request handlers that answer and produce records, and replay methods
that apply records (the handlers' own and those read back while loading) to the timeline structures.

Left out of this port: share groups (KIP-932, early access in 3.9: ShareGroupHeartbeat, the ShareGroup records and
their replay) and metrics (the port has no metrics registry, so the sensor and state-transition calls are dropped).
Wire messages are kio's (ConsumerGroupHeartbeat v0, JoinGroup v9, SyncGroup v5, Heartbeat v4, LeaveGroup v5,
DescribeGroups v5, ListGroups v5, ConsumerGroupDescribe v0); kio's messages are immutable, so a response is built
whole, its unset fields at Kafka's generated defaults. Durations kio carries as timedeltas are milliseconds here.
LogContext is its prefix string, as elsewhere in the port. Java's Optional is `X | None`.
"""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from typing import Any, TypeVar

from kio.schema.consumer_group_describe.v0.response import DescribedGroup as ConsumerGroupDescribedGroup
from kio.schema.consumer_group_heartbeat.v0.request import ConsumerGroupHeartbeatRequest
from kio.schema.consumer_group_heartbeat.v0.request import TopicPartitions as RequestTopicPartitions
from kio.schema.consumer_group_heartbeat.v0.response import Assignment as HeartbeatAssignment
from kio.schema.consumer_group_heartbeat.v0.response import ConsumerGroupHeartbeatResponse
from kio.schema.consumer_group_heartbeat.v0.response import TopicPartitions as ResponseTopicPartitions
from kio.schema.describe_groups.v5.response import DescribedGroup
from kio.schema.errors import ErrorCode
from kio.schema.heartbeat.v4.request import HeartbeatRequest
from kio.schema.heartbeat.v4.response import HeartbeatResponse
from kio.schema.join_group.v9.request import JoinGroupRequest, JoinGroupRequestProtocol
from kio.schema.join_group.v9.response import JoinGroupResponse
from kio.schema.leave_group.v5.request import LeaveGroupRequest
from kio.schema.leave_group.v5.response import LeaveGroupResponse, MemberResponse
from kio.schema.list_groups.v5.response import ListedGroup
from kio.schema.sync_group.v5.request import SyncGroupRequest
from kio.schema.sync_group.v5.response import SyncGroupResponse
from kio.static.primitive import i32Timedelta

from kafka_edu.tracing import event, span, step
from kafka_edu.v1_0_2.clients.common.errors import (
    CoordinatorNotAvailableException,
    IllegalArgumentException,
    IllegalStateException,
    InvalidRequestException,
    KafkaException,
    UnknownServerException,
)
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.clients.consumer.internals import consumer_protocol
from kafka_edu.v3_9.clients.common.errors.fenced_instance_id_exception import FencedInstanceIdException
from kafka_edu.v3_9.clients.common.errors.fenced_member_epoch_exception import FencedMemberEpochException
from kafka_edu.v3_9.clients.common.errors.group_id_not_found_exception import GroupIdNotFoundException
from kafka_edu.v3_9.clients.common.errors.group_max_size_reached_exception import GroupMaxSizeReachedException
from kafka_edu.v3_9.clients.common.errors.illegal_generation_exception import IllegalGenerationException
from kafka_edu.v3_9.clients.common.errors.inconsistent_group_protocol_exception import (
    InconsistentGroupProtocolException,
)
from kafka_edu.v3_9.clients.common.errors.rebalance_in_progress_exception import RebalanceInProgressException
from kafka_edu.v3_9.clients.common.errors.unknown_member_id_exception import UnknownMemberIdException
from kafka_edu.v3_9.clients.common.errors.unreleased_instance_id_exception import UnreleasedInstanceIdException
from kafka_edu.v3_9.clients.common.errors.unsupported_assignor_exception import UnsupportedAssignorException
from kafka_edu.v3_9.clients.common.network.java_nio import ByteBuffer
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.protocol.types.schema_exception import SchemaException
from kafka_edu.v3_9.clients.common.requests.request_context import RequestContext
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM, Time
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.group_coordinator.coordinator.group import coordinator_record_helpers
from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import (
    ClassicGroup,
    join_group_response,
    sync_group_response,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_member import ClassicGroupMember
from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
from kafka_edu.v3_9.group_coordinator.coordinator.group.consumer_group_migration_policy import (
    ConsumerGroupMigrationPolicy,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record import CoordinatorRecord
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_current_member_assignment_key import (  # noqa: E501
    ConsumerGroupCurrentMemberAssignmentKey,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_current_member_assignment_value import (  # noqa: E501
    ConsumerGroupCurrentMemberAssignmentValue,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_member_metadata_key import (
    ConsumerGroupMemberMetadataKey,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_member_metadata_value import (
    ClassicMemberMetadata,
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
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_target_assignment_member_key import (  # noqa: E501
    ConsumerGroupTargetAssignmentMemberKey,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_target_assignment_member_value import (  # noqa: E501
    ConsumerGroupTargetAssignmentMemberValue,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_target_assignment_metadata_key import (  # noqa: E501
    ConsumerGroupTargetAssignmentMetadataKey,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_target_assignment_metadata_value import (  # noqa: E501
    ConsumerGroupTargetAssignmentMetadataValue,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.group_metadata_key import GroupMetadataKey
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.group_metadata_value import GroupMetadataValue
from kafka_edu.v3_9.group_coordinator.coordinator.group.group import Group
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.assignment import Assignment
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.consumer.consumer_group import ConsumerGroup
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.consumer.consumer_group_member import (
    ConsumerGroupMember,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.consumer.current_assignment_builder import (
    CurrentAssignmentBuilder,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.member_state import MemberState
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.modern_group import ModernGroup
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.target_assignment_builder import (
    TargetAssignmentBuilder,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.topic_metadata import TopicMetadata
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_result import CoordinatorResult
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_timer import CoordinatorTimer
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.consumer_group_partition_assignor import (
    ConsumerGroupPartitionAssignor,
)
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.partition_assignor_exception import (
    PartitionAssignorException,
)
from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.metadata.image.topics_image import TopicsImage
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import LATEST_EPOCH, SnapshotRegistry
from kafka_edu.v3_9.server_common.timeline.timeline_hash_map import TimelineHashMap
from kafka_edu.v3_9.server_common.timeline.timeline_hash_set import TimelineHashSet

T = TypeVar("T")

EMPTY = ClassicGroupState.EMPTY
PREPARING_REBALANCE = ClassicGroupState.PREPARING_REBALANCE
COMPLETING_REBALANCE = ClassicGroupState.COMPLETING_REBALANCE
STABLE = ClassicGroupState.STABLE
DEAD = ClassicGroupState.DEAD

CLASSIC = Group.GroupType.CLASSIC
CONSUMER = Group.GroupType.CONSUMER

# ConsumerGroupHeartbeatRequest's epochs of a member that leaves, for good or (a static member) for a while
LEAVE_GROUP_MEMBER_EPOCH = -1
LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2
# JoinGroupRequest.UNKNOWN_MEMBER_ID
UNKNOWN_MEMBER_ID = ""
# JoinGroupRequest.UNKNOWN_GENERATION_ID
UNKNOWN_GENERATION_ID = -1
_INT_MAX = 2**31 - 1
_LOGGER_NAME = "org.apache.kafka.coordinator.group.GroupMetadataManager"


def _ms(value: datetime.timedelta | int | None) -> int:
    """kio carries millisecond fields as timedeltas; Kafka's code works on ints."""
    if value is None:
        return -1
    if isinstance(value, datetime.timedelta):
        return value // datetime.timedelta(milliseconds=1)
    return int(value)


def _timedelta(ms: int) -> i32Timedelta:
    return i32Timedelta.parse(datetime.timedelta(milliseconds=ms))


def heartbeat_response(**fields: Any) -> ConsumerGroupHeartbeatResponse:
    """A ConsumerGroupHeartbeat response with Kafka's generated defaults for the fields not given; a
    `heartbeat_interval_ms` int stands for kio's timedelta."""
    interval = fields.pop("heartbeat_interval_ms", 0)
    defaults: dict[str, Any] = dict(throttle_time=_timedelta(0), error_code=ErrorCode.none, error_message=None,
                                    member_id=None, member_epoch=0, heartbeat_interval=_timedelta(interval),
                                    assignment=None)
    return ConsumerGroupHeartbeatResponse(**{**defaults, **fields})


def classic_heartbeat_response(error: Errors = Errors.NONE) -> HeartbeatResponse:
    return HeartbeatResponse(throttle_time=_timedelta(0), error_code=ErrorCode(error.code))


def leave_group_response(**fields: Any) -> LeaveGroupResponse:
    defaults: dict[str, Any] = dict(throttle_time=_timedelta(0), error_code=ErrorCode.none, members=())
    return LeaveGroupResponse(**{**defaults, **fields})


def _of_sentinel(value: int) -> int | None:
    # Utils.ofSentinel: -1 stands for "not given"
    return None if value == -1 else value


def _to_optional(value: str | None) -> str | None:
    # Utils.toOptional: an empty string is no value
    return None if value is None or value == "" else value


def _assignment_to_string(assignment: Mapping[uuid.UUID, Set[int]]) -> str:
    # Utils.assignmentToString
    return ", ".join(f"{topic_id}-{sorted(partitions)}" for topic_id, partitions in assignment.items())


def _to_topic_partitions(owned_partitions: Iterable[Any], topics_image: TopicsImage) -> list[RequestTopicPartitions]:
    """Utils.toTopicPartitions: a classic member's owned partitions by name as the heartbeat's by topic id; a topic
    the image does not know is left out."""
    result: list[RequestTopicPartitions] = []
    for tp in owned_partitions:
        topic_image = topics_image.get_topic(tp.topic)
        if topic_image is not None:
            result.append(RequestTopicPartitions(topic_id=topic_image.id, partitions=tuple(tp.partitions)))
    return result


class GroupMetadataManager:
    """Holds the classic and consumer groups of one __consumer_offsets partition: their hard state (timeline
    structures, rolled back when a write fails) and their soft state (timers, futures of parked requests)."""

    class Builder:
        def __init__(self) -> None:
            self._log_context: str | None = None
            self._snapshot_registry: SnapshotRegistry | None = None
            self._time: Time | None = None
            self._timer: CoordinatorTimer[None, CoordinatorRecord] | None = None
            self._consumer_group_assignors: list[ConsumerGroupPartitionAssignor] | None = None
            self._consumer_group_max_size = _INT_MAX
            self._consumer_group_heartbeat_interval_ms = 5000
            self._consumer_group_metadata_refresh_interval_ms = _INT_MAX
            self._metadata_image: MetadataImage | None = None
            self._consumer_group_session_timeout_ms = 45000
            self._classic_group_max_size = _INT_MAX
            self._classic_group_initial_rebalance_delay_ms = 3000
            self._classic_group_new_member_join_timeout_ms = 5 * 60 * 1000
            self._classic_group_min_session_timeout_ms = 0
            self._classic_group_max_session_timeout_ms = 0
            self._consumer_group_migration_policy: ConsumerGroupMigrationPolicy | None = None
            # Java's metrics shard: kept so that callers can pass one, never used (no metrics registry here)
            self._metrics: Any = None

        def with_log_context(self, log_context: str) -> GroupMetadataManager.Builder:
            self._log_context = log_context
            return self

        def with_snapshot_registry(self, snapshot_registry: SnapshotRegistry) -> GroupMetadataManager.Builder:
            self._snapshot_registry = snapshot_registry
            return self

        def with_time(self, time: Time) -> GroupMetadataManager.Builder:
            self._time = time
            return self

        def with_timer(self, timer: CoordinatorTimer[None, CoordinatorRecord]) -> GroupMetadataManager.Builder:
            self._timer = timer
            return self

        def with_consumer_group_assignors(
            self, consumer_group_assignors: list[ConsumerGroupPartitionAssignor],
        ) -> GroupMetadataManager.Builder:
            self._consumer_group_assignors = consumer_group_assignors
            return self

        def with_consumer_group_max_size(self, consumer_group_max_size: int) -> GroupMetadataManager.Builder:
            self._consumer_group_max_size = consumer_group_max_size
            return self

        def with_consumer_group_session_timeout(self, session_timeout_ms: int) -> GroupMetadataManager.Builder:
            self._consumer_group_session_timeout_ms = session_timeout_ms
            return self

        def with_consumer_group_heartbeat_interval(self, interval_ms: int) -> GroupMetadataManager.Builder:
            self._consumer_group_heartbeat_interval_ms = interval_ms
            return self

        def with_consumer_group_metadata_refresh_interval_ms(self, interval_ms: int) -> GroupMetadataManager.Builder:
            self._consumer_group_metadata_refresh_interval_ms = interval_ms
            return self

        def with_metadata_image(self, metadata_image: MetadataImage) -> GroupMetadataManager.Builder:
            self._metadata_image = metadata_image
            return self

        def with_classic_group_max_size(self, classic_group_max_size: int) -> GroupMetadataManager.Builder:
            self._classic_group_max_size = classic_group_max_size
            return self

        def with_classic_group_initial_rebalance_delay_ms(self, delay_ms: int) -> GroupMetadataManager.Builder:
            self._classic_group_initial_rebalance_delay_ms = delay_ms
            return self

        def with_classic_group_new_member_join_timeout_ms(self, timeout_ms: int) -> GroupMetadataManager.Builder:
            self._classic_group_new_member_join_timeout_ms = timeout_ms
            return self

        def with_classic_group_min_session_timeout_ms(self, timeout_ms: int) -> GroupMetadataManager.Builder:
            self._classic_group_min_session_timeout_ms = timeout_ms
            return self

        def with_classic_group_max_session_timeout_ms(self, timeout_ms: int) -> GroupMetadataManager.Builder:
            self._classic_group_max_session_timeout_ms = timeout_ms
            return self

        def with_consumer_group_migration_policy(
            self, policy: ConsumerGroupMigrationPolicy,
        ) -> GroupMetadataManager.Builder:
            self._consumer_group_migration_policy = policy
            return self

        def with_group_coordinator_metrics_shard(self, metrics: Any) -> GroupMetadataManager.Builder:
            self._metrics = metrics
            return self

        def build(self) -> GroupMetadataManager:
            log_context = self._log_context if self._log_context is not None else ""
            snapshot_registry = self._snapshot_registry or SnapshotRegistry(log_context)
            metadata_image = self._metadata_image or MetadataImage.EMPTY
            time = self._time or SYSTEM
            if self._timer is None:
                raise IllegalArgumentException("Timer must be set.")
            if not self._consumer_group_assignors:
                raise IllegalArgumentException("Assignors must be set before building.")
            # Kafka also insists on a metrics shard; the port has none to insist on
            return GroupMetadataManager(
                snapshot_registry, log_context, time, self._timer, self._consumer_group_assignors, metadata_image,
                self._consumer_group_max_size, self._consumer_group_session_timeout_ms,
                self._consumer_group_heartbeat_interval_ms, self._consumer_group_metadata_refresh_interval_ms,
                self._classic_group_max_size, self._classic_group_initial_rebalance_delay_ms,
                self._classic_group_new_member_join_timeout_ms, self._classic_group_min_session_timeout_ms,
                self._classic_group_max_session_timeout_ms,
                self._consumer_group_migration_policy or ConsumerGroupMigrationPolicy.DISABLED,
            )

    def __init__(self, snapshot_registry: SnapshotRegistry, log_context: str, time: Time,
                 timer: CoordinatorTimer[None, CoordinatorRecord],
                 consumer_group_assignors: list[ConsumerGroupPartitionAssignor], metadata_image: MetadataImage,
                 consumer_group_max_size: int, consumer_group_session_timeout_ms: int,
                 consumer_group_heartbeat_interval_ms: int, consumer_group_metadata_refresh_interval_ms: int,
                 classic_group_max_size: int, classic_group_initial_rebalance_delay_ms: int,
                 classic_group_new_member_join_timeout_ms: int, classic_group_min_session_timeout_ms: int,
                 classic_group_max_session_timeout_ms: int,
                 consumer_group_migration_policy: ConsumerGroupMigrationPolicy) -> None:
        self._log_context = log_context
        self._log = Logging(_LOGGER_NAME, log_context)
        self._snapshot_registry = snapshot_registry
        self._time = time
        self._timer = timer
        self._metadata_image = metadata_image
        self._consumer_group_assignors = {assignor.name(): assignor for assignor in consumer_group_assignors}
        self._default_consumer_group_assignor = consumer_group_assignors[0]
        # every group by id, classic and consumer alike
        self._groups: TimelineHashMap[str, Group] = TimelineHashMap(snapshot_registry, 0)
        # topic name -> ids of the groups subscribed to it, to refresh their metadata when the topic changes
        self._groups_by_topics: TimelineHashMap[str, TimelineHashSet[str]] = TimelineHashMap(snapshot_registry, 0)
        self._consumer_group_max_size = consumer_group_max_size
        self._consumer_group_session_timeout_ms = consumer_group_session_timeout_ms
        self._consumer_group_heartbeat_interval_ms = consumer_group_heartbeat_interval_ms
        self._consumer_group_metadata_refresh_interval_ms = consumer_group_metadata_refresh_interval_ms
        self._classic_group_max_size = classic_group_max_size
        self._classic_group_initial_rebalance_delay_ms = classic_group_initial_rebalance_delay_ms
        self._classic_group_new_member_join_timeout_ms = classic_group_new_member_join_timeout_ms
        self._classic_group_min_session_timeout_ms = classic_group_min_session_timeout_ms
        self._classic_group_max_session_timeout_ms = classic_group_max_session_timeout_ms
        self._consumer_group_migration_policy = consumer_group_migration_policy

    def image(self) -> MetadataImage:
        return self._metadata_image

    def group(self, group_id: str, committed_offset: int = LATEST_EPOCH) -> Group:
        group = self._groups.get(group_id, committed_offset)
        if group is None:
            raise GroupIdNotFoundException(f"Group {group_id} not found.")
        return group

    def list_groups(self, states_filter: Set[str], types_filter: Set[str], committed_offset: int) -> list[ListedGroup]:
        case_insensitive_filter_set = {state.lower().strip() for state in states_filter}
        enum_types_filter = {Group.GroupType.parse(t) for t in types_filter}

        def combined_filter(group: Group) -> bool:
            state_check = not states_filter or group.is_in_states(case_insensitive_filter_set, committed_offset)
            type_check = not enum_types_filter or group.type() in enum_types_filter
            return state_check and type_check

        return [group.as_listed_group(committed_offset) for group in self._groups.values_at(committed_offset)
                if combined_filter(group)]

    def consumer_group_describe(self, group_ids: list[str],
                                committed_offset: int) -> list[ConsumerGroupDescribedGroup]:
        described_groups: list[ConsumerGroupDescribedGroup] = []
        for group_id in group_ids:
            try:
                described_groups.append(self.consumer_group(group_id, committed_offset).as_described_group(
                    committed_offset, self._default_consumer_group_assignor.name(), self._metadata_image.topics))
            except GroupIdNotFoundException:
                described_groups.append(ConsumerGroupDescribedGroup(
                    error_code=ErrorCode.group_id_not_found, error_message=None, group_id=group_id, group_state="",
                    group_epoch=0, assignment_epoch=0, assignor_name="", members=(),
                    authorized_operations=-2147483648))
        return described_groups

    def describe_groups(self, group_ids: list[str], committed_offset: int) -> list[DescribedGroup]:
        described_groups: list[DescribedGroup] = []
        for group_id in group_ids:
            try:
                group = self.classic_group(group_id, committed_offset)
                if group.is_in_state(STABLE):
                    if group.protocol_name() is None:
                        raise IllegalStateException("Invalid null group protocol for stable group")
                    described_groups.append(_described_group(
                        group_id=group_id, group_state=group.state_as_string(),
                        protocol_type=group.protocol_type() or "", protocol_data=group.protocol_name(),
                        members=tuple(m.describe(group.protocol_name()) for m in group.all_members())))
                else:
                    described_groups.append(_described_group(
                        group_id=group_id, group_state=group.state_as_string(),
                        protocol_type=group.protocol_type() or "",
                        members=tuple(m.describe_no_metadata() for m in group.all_members())))
            except GroupIdNotFoundException:
                described_groups.append(_described_group(group_id=group_id, group_state=str(DEAD)))
        return described_groups

    def get_or_maybe_create_consumer_group(self, group_id: str, create_if_not_exists: bool,
                                           records: list[CoordinatorRecord]) -> ConsumerGroup:
        """The consumer group of a heartbeat: a new one is not stored yet (its records will create it), an empty
        classic group is deleted to make room, a classic one in use may be upgraded."""
        group = self._groups.get(group_id)
        if group is None and not create_if_not_exists:
            raise GroupIdNotFoundException(f"Consumer group {group_id} not found.")
        if group is None or (create_if_not_exists and self._maybe_delete_empty_classic_group(group, records)):
            return ConsumerGroup(self._snapshot_registry, group_id)
        if group.type() == CONSUMER:
            return group  # type: ignore[return-value]
        if create_if_not_exists and self._validate_online_upgrade(group):  # type: ignore[arg-type]
            return self.convert_to_consumer_group(group, records)  # type: ignore[arg-type]
        raise GroupIdNotFoundException(f"Group {group_id} is not a consumer group.")

    def consumer_group(self, group_id: str, committed_offset: int = LATEST_EPOCH) -> ConsumerGroup:
        group = self.group(group_id, committed_offset)
        if group.type() == CONSUMER:
            return group  # type: ignore[return-value]
        raise GroupIdNotFoundException(f"Group {group_id} is not a consumer group.")

    def get_or_maybe_create_persisted_consumer_group(self, group_id: str,
                                                     create_if_not_exists: bool) -> ConsumerGroup:
        """The consumer group a record is replayed into; a record of a group that cannot exist is a bug."""
        group = self._groups.get(group_id)
        if group is None and not create_if_not_exists:
            raise IllegalStateException(f"Consumer group {group_id} not found.")
        if group is None:
            consumer_group = ConsumerGroup(self._snapshot_registry, group_id)
            self._groups.put(group_id, consumer_group)
            return consumer_group
        if group.type() == CONSUMER:
            return group  # type: ignore[return-value]
        raise IllegalStateException(f"Group {group_id} is not a consumer group.")

    def get_or_maybe_create_classic_group(self, group_id: str, create_if_not_exists: bool) -> ClassicGroup:
        group = self._groups.get(group_id)
        if group is None and not create_if_not_exists:
            raise UnknownMemberIdException(f"Classic group {group_id} not found.")
        if group is None:
            classic_group = ClassicGroup(self._log_context, group_id, EMPTY, self._time)
            self._groups.put(group_id, classic_group)
            return classic_group
        if group.type() == CLASSIC:
            return group  # type: ignore[return-value]
        raise GroupIdNotFoundException(f"Group {group_id} is not a classic group.")

    def classic_group(self, group_id: str, committed_offset: int = LATEST_EPOCH) -> ClassicGroup:
        group = self.group(group_id, committed_offset)
        if group.type() == CLASSIC:
            return group  # type: ignore[return-value]
        raise GroupIdNotFoundException(f"Group {group_id} is not a classic group.")

    def get_or_maybe_create_persisted_group(self, group_id: str, create_if_not_exists: bool,
                                            group_type: Group.GroupType) -> ModernGroup[Any]:
        if group_type == CONSUMER:
            return self.get_or_maybe_create_persisted_consumer_group(group_id, create_if_not_exists)
        raise IllegalArgumentException(f"Invalid group type: {group_type}")

    def _validate_online_downgrade(self, consumer_group: ConsumerGroup, member_id: str) -> bool:
        """Whether the leaving member is the last one on the consumer protocol and the group may become classic."""
        if not consumer_group.all_members_use_classic_protocol_except(member_id):
            return False
        if consumer_group.num_members() <= 1:
            self._log.debug("Skip downgrading the consumer group %s to classic group because it's empty.",
                            consumer_group.group_id())
            return False
        if not self._consumer_group_migration_policy.is_downgrade_enabled():
            self._log.info("Cannot downgrade consumer group %s to classic group because the online downgrade is "
                           "disabled.", consumer_group.group_id())
            return False
        if consumer_group.num_members() - 1 > self._classic_group_max_size:
            self._log.info("Cannot downgrade consumer group %s to classic group because its group size is greater "
                           "than classic group max size.", consumer_group.group_id())
            return False
        return True

    def _convert_to_classic_group(self, consumer_group: ConsumerGroup, leaving_member_id: str,
                                  response: T) -> CoordinatorResult[T, CoordinatorRecord]:
        records: list[CoordinatorRecord] = []
        consumer_group.create_group_tombstone_records(records)
        try:
            classic_group = ClassicGroup.from_consumer_group(consumer_group, leaving_member_id, self._log_context,
                                                             self._time, self._metadata_image)
        except SchemaException as e:
            self._log.warning("Cannot downgrade the consumer group %s: fail to parse the Consumer Protocol %s.",
                              consumer_group.group_id(), consumer_protocol.PROTOCOL_TYPE)
            raise GroupIdNotFoundException(
                f"Cannot downgrade the classic group {consumer_group.group_id()}: {e}.") from e
        classic_group.create_classic_group_records(self._metadata_image.features.metadata_version, records)

        # The state is changed here rather than by replaying the records, since the rebalance below needs this
        # very group object; the records are written but not replayed.
        self._remove_group(consumer_group.group_id())
        self._groups.put(consumer_group.group_id(), classic_group)
        for member in classic_group.all_members():
            self._reschedule_classic_group_member_heartbeat(classic_group, member)
        self.prepare_rebalance(classic_group, f"Downgrade group {classic_group.group_id()} from consumer to classic.")

        append_future: CompletableFuture[None] = CompletableFuture()
        return CoordinatorResult(records, response, append_future=append_future, replay_records=False)

    def _validate_online_upgrade(self, classic_group: ClassicGroup) -> bool:
        if not self._consumer_group_migration_policy.is_upgrade_enabled():
            self._log.info("Cannot upgrade classic group %s to consumer group because the online upgrade is "
                           "disabled.", classic_group.group_id())
            return False
        if not classic_group.uses_consumer_group_protocol():
            self._log.info("Cannot upgrade classic group %s to consumer group because the group does not use the "
                           "consumer embedded protocol.", classic_group.group_id())
            return False
        if classic_group.num_members() > self._consumer_group_max_size:
            self._log.info("Cannot upgrade classic group %s to consumer group because the group size exceeds the "
                           "consumer group maximum size.", classic_group.group_id())
            return False
        return True

    def convert_to_consumer_group(self, classic_group: ClassicGroup,
                                  records: list[CoordinatorRecord]) -> ConsumerGroup:
        """The online upgrade: a member joining with the consumer protocol turns the classic group into a consumer
        group; the classic members still waiting are told to rejoin."""
        classic_group.complete_all_join_futures(Errors.REBALANCE_IN_PROGRESS)
        classic_group.complete_all_sync_futures(Errors.REBALANCE_IN_PROGRESS)
        classic_group.create_group_tombstone_records(records)

        try:
            consumer_group = ConsumerGroup.from_classic_group(self._snapshot_registry, classic_group,
                                                              self._metadata_image.topics)
        except SchemaException as e:
            self._log.warning("Cannot upgrade the classic group %s to consumer group because the embedded consumer "
                              "protocol is malformed: %s.", classic_group.group_id(), e)
            raise GroupIdNotFoundException(
                f"Cannot upgrade the classic group {classic_group.group_id()} to consumer group because the "
                "embedded consumer protocol is malformed.") from e
        consumer_group.create_consumer_group_records(records)

        # if the upgrade fails, the group stays classic and these timers find no consumer group member to fence
        for member_id, member in consumer_group.members().items():
            self._schedule_consumer_group_session_timeout(consumer_group.group_id(), member_id,
                                                          member.classic_protocol_session_timeout())
        return consumer_group

    def _remove_group(self, group_id: str) -> None:
        self._groups.remove(group_id)

    @staticmethod
    def _throw_if_empty_string(value: str | None, error: str) -> None:
        if value is not None and value.strip() == "":
            raise InvalidRequestException(error)

    @staticmethod
    def _throw_if_not_null(value: object, error: str) -> None:
        if value is not None:
            raise InvalidRequestException(error)

    @staticmethod
    def _throw_if_null(value: object, error: str) -> None:
        if value is None:
            raise InvalidRequestException(error)

    def _throw_if_consumer_group_heartbeat_request_is_invalid(self, request: ConsumerGroupHeartbeatRequest) -> None:
        self._throw_if_empty_string(request.group_id, "GroupId can't be empty.")
        self._throw_if_empty_string(request.instance_id, "InstanceId can't be empty.")
        self._throw_if_empty_string(request.rack_id, "RackId can't be empty.")

        if request.member_epoch > 0 or request.member_epoch == LEAVE_GROUP_MEMBER_EPOCH:
            self._throw_if_empty_string(request.member_id, "MemberId can't be empty.")
        elif request.member_epoch == 0:
            if _ms(request.rebalance_timeout) == -1:
                raise InvalidRequestException("RebalanceTimeoutMs must be provided in first request.")
            if request.topic_partitions is None or len(request.topic_partitions) != 0:
                raise InvalidRequestException("TopicPartitions must be empty when (re-)joining.")
            if not request.subscribed_topic_names:
                raise InvalidRequestException("SubscribedTopicNames must be set in first request.")
        elif request.member_epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH:
            self._throw_if_empty_string(request.member_id, "MemberId can't be empty.")
            self._throw_if_null(request.instance_id, "InstanceId can't be null.")
        else:
            raise InvalidRequestException("MemberEpoch is invalid.")

        if request.server_assignor is not None and request.server_assignor not in self._consumer_group_assignors:
            raise UnsupportedAssignorException(
                f"ServerAssignor {request.server_assignor} is not supported. Supported assignors: "
                f"{', '.join(self._consumer_group_assignors)}.")

    @staticmethod
    def _is_subset(owned_topic_partitions: Sequence[RequestTopicPartitions] | None,
                   target: Mapping[uuid.UUID, Set[int]]) -> bool:
        """Whether the member owns only partitions of `target` (a member that sent nothing does not qualify)."""
        if owned_topic_partitions is None:
            return False
        for topic_partitions in owned_topic_partitions:
            partitions = target.get(topic_partitions.topic_id)
            if partitions is None:
                return False
            for partition_id in topic_partitions.partitions:
                if partition_id not in partitions:
                    return False
        return True

    def _throw_if_consumer_group_is_full(self, group: ConsumerGroup, member_id: str) -> None:
        # a full group still takes heartbeats from its members
        if group.num_members() >= self._consumer_group_max_size and (
                member_id == "" or not group.has_member(member_id)):
            raise GroupMaxSizeReachedException(
                f"The consumer group has reached its maximum capacity of {self._consumer_group_max_size} members.")

    def _throw_if_consumer_group_member_epoch_is_invalid(
            self, member: ConsumerGroupMember, received_member_epoch: int,
            owned_topic_partitions: Sequence[RequestTopicPartitions] | None) -> None:
        """A member ahead of the coordinator, or behind it other than by the one epoch whose response it may have
        missed (owning no more than it was assigned), is fenced."""
        if received_member_epoch > member.member_epoch():
            raise FencedMemberEpochException(
                f"The consumer group member has a greater member epoch ({received_member_epoch}) than the one known "
                f"by the group coordinator ({member.member_epoch()}). The member must abandon all its partitions "
                "and rejoin.")
        if received_member_epoch < member.member_epoch():
            if (received_member_epoch != member.previous_member_epoch()
                    or not self._is_subset(owned_topic_partitions, member.assigned_partitions())):
                raise FencedMemberEpochException(
                    f"The consumer group member has a smaller member epoch ({received_member_epoch}) than the one "
                    f"known by the group coordinator ({member.member_epoch()}). The member must abandon all its "
                    "partitions and rejoin.")

    def _throw_if_instance_id_is_unreleased(self, member: ConsumerGroupMember, group_id: str,
                                            received_member_id: str, received_instance_id: str) -> None:
        if member.member_epoch() != LEAVE_GROUP_STATIC_MEMBER_EPOCH:
            self._log.info("[GroupId %s] Static member %s with instance id %s cannot join the group because the "
                           "instance id is owned by member %s.", group_id, received_member_id,
                           received_instance_id, member.member_id())
            raise UnreleasedInstanceIdException(
                f"Static member {received_member_id} with instance id {received_instance_id} cannot join the group "
                f"because the instance id is owned by {member.member_id()} member.")

    def _throw_if_instance_id_is_fenced(self, member: ConsumerGroupMember, group_id: str, received_member_id: str,
                                        received_instance_id: str) -> None:
        if member.member_id() != received_member_id:
            self._log.info("[GroupId %s] Static member %s with instance id %s is fenced by existing member %s.",
                           group_id, received_member_id, received_instance_id, member.member_id())
            raise FencedInstanceIdException(
                f"Static member {received_member_id} with instance id {received_instance_id} was fenced by member "
                f"{member.member_id()}.")

    @staticmethod
    def _throw_if_static_member_is_unknown(static_member: ConsumerGroupMember | None,
                                           received_instance_id: str) -> None:
        if static_member is None:
            raise UnknownMemberIdException(f"Instance id {received_instance_id} is unknown.")

    @staticmethod
    def _throw_if_classic_protocol_is_not_supported(group: ConsumerGroup, member_id: str, protocol_type: str,
                                                    protocols: Sequence[JoinGroupRequestProtocol]) -> None:
        if not group.supports_classic_protocols(protocol_type, ClassicGroupMember.plain_protocol_set(protocols)):
            raise InconsistentGroupProtocolException(f"Member {member_id}'s protocols are not supported.")

    @staticmethod
    def _throw_if_member_does_not_use_classic_protocol(member: ConsumerGroupMember) -> None:
        if not member.use_classic_protocol():
            raise UnknownMemberIdException(f"Member {member.member_id()} does not use the classic protocol.")

    @staticmethod
    def _throw_if_generation_id_unmatched(member_id: str, member_epoch: int, request_generation_id: int) -> None:
        if member_epoch != request_generation_id:
            raise IllegalGenerationException(
                f"The request generation id {request_generation_id} is not equal to the member epoch "
                f"{member_epoch} of member {member_id}.")

    @staticmethod
    def _throw_if_classic_protocol_unmatched(member: ConsumerGroupMember, request_protocol_type: str | None,
                                             request_protocol_name: str | None) -> None:
        protocol_name = member.supported_classic_protocols()[0].name
        if request_protocol_type is not None and request_protocol_type != consumer_protocol.PROTOCOL_TYPE:
            raise InconsistentGroupProtocolException(
                f"The protocol type {request_protocol_type} from member {member.member_id()} request is not equal "
                f"to the group protocol type {consumer_protocol.PROTOCOL_TYPE}.")
        if request_protocol_name is not None and protocol_name != request_protocol_name:
            raise InconsistentGroupProtocolException(
                f"The protocol name {request_protocol_name} from member {member.member_id()} request is not equal "
                f"to the protocol name {protocol_name} returned in the join response.")

    def _throw_if_rebalance_in_progress(self, group: ConsumerGroup, member: ConsumerGroupMember) -> None:
        """A classic member behind the group epoch must rejoin, unless it still has partitions to revoke (it may
        sync and heartbeat meanwhile)."""
        if group.group_epoch() > member.member_epoch() and member.state() != MemberState.UNREVOKED_PARTITIONS:
            self._schedule_consumer_group_join_timeout_if_absent(group.group_id(), member.member_id(),
                                                                 member.rebalance_timeout_ms())
            raise RebalanceInProgressException(
                f"A new rebalance is triggered in group {group.group_id()} and member {member.member_id()} should "
                "rejoin to catch up.")

    @staticmethod
    def _deserialize_subscription(protocols: Sequence[JoinGroupRequestProtocol]) -> Any:
        try:
            return consumer_protocol.deserialize_consumer_protocol_subscription(
                ByteBuffer.wrap(protocols[0].metadata))
        except SchemaException as e:
            raise IllegalStateException(
                "Malformed embedded consumer protocol in subscription deserialization.") from e

    def _create_consumer_group_response_assignment(self, member: ConsumerGroupMember) -> HeartbeatAssignment:
        return HeartbeatAssignment(topic_partitions=tuple(self._from_assignment_map(member.assigned_partitions())))

    @staticmethod
    def _from_assignment_map(assignment: Mapping[uuid.UUID, Set[int]]) -> list[ResponseTopicPartitions]:
        return [ResponseTopicPartitions(topic_id=topic_id, partitions=tuple(partitions))
                for topic_id, partitions in assignment.items()]

    def _consumer_group_heartbeat(
            self, group_id: str, member_id: str, member_epoch: int, instance_id: str | None, rack_id: str | None,
            rebalance_timeout_ms: int, client_id: str, client_host: str, subscribed_topic_names: list[str] | None,
            assignor_name: str | None, owned_topic_partitions: Sequence[RequestTopicPartitions] | None,
    ) -> CoordinatorResult[ConsumerGroupHeartbeatResponse, CoordinatorRecord]:
        """A heartbeat of a consumer-protocol member: joins it, updates its subscription, bumps the group epoch
        and recomputes the target assignment when needed, then moves the member towards its target."""
        current_time_ms = self._time.milliseconds()
        records: list[CoordinatorRecord] = []

        # a new group or member is only created by a member joining (epoch 0)
        create_if_not_exists = member_epoch == 0
        group = self.get_or_maybe_create_consumer_group(group_id, create_if_not_exists, records)
        self._throw_if_consumer_group_is_full(group, member_id)

        # the coordinator names new members
        if member_id == "":
            member_id = str(Uuid.random_uuid())

        if instance_id is None:
            member = self._get_or_maybe_subscribe_dynamic_consumer_group_member(
                group, member_id, member_epoch, owned_topic_partitions, create_if_not_exists, False)
        else:
            member = self._get_or_maybe_subscribe_static_consumer_group_member(
                group, member_id, member_epoch, instance_id, owned_topic_partitions, create_if_not_exists, False,
                records)

        # a changed member is written; a changed subscription also bumps the group epoch
        updated_member = (ConsumerGroupMember.Builder(member)
                          .maybe_update_instance_id(instance_id)
                          .maybe_update_rack_id(rack_id)
                          .maybe_update_rebalance_timeout_ms(_of_sentinel(rebalance_timeout_ms))
                          .maybe_update_server_assignor_name(assignor_name)
                          .maybe_update_subscribed_topic_names(subscribed_topic_names)
                          .set_client_id(client_id)
                          .set_client_host(client_host)
                          .set_classic_member_metadata(None)
                          .build())

        bump_group_epoch = self._has_member_subscription_changed(group_id, member, updated_member, records)
        group_epoch, subscription_metadata, subscription_type = self._maybe_bump_group_epoch(
            group, member, updated_member, bump_group_epoch, current_time_ms, records)

        target_assignment_epoch, target_assignment = self._target_assignment_of(
            group, group_epoch, member, updated_member, subscription_metadata, subscription_type, records)

        updated_member = self._maybe_reconcile(group_id, updated_member, group.current_partition_epoch,
                                               target_assignment_epoch, target_assignment, owned_topic_partitions,
                                               records)

        self._schedule_consumer_group_session_timeout(group_id, member_id)

        assignment = None
        # a full request (joining, or every optional field set, as after an error) always gets its assignment
        is_full_request = member_epoch == 0 or (rebalance_timeout_ms != -1 and subscribed_topic_names is not None
                                                and owned_topic_partitions is not None)
        if is_full_request or ConsumerGroupMember.has_assigned_partitions_changed(member, updated_member):
            assignment = self._create_consumer_group_response_assignment(updated_member)

        response = heartbeat_response(member_id=updated_member.member_id(),
                                      member_epoch=updated_member.member_epoch(),
                                      heartbeat_interval_ms=self._consumer_group_heartbeat_interval_ms,
                                      assignment=assignment)
        return CoordinatorResult(records, response)

    def _maybe_bump_group_epoch(
            self, group: ConsumerGroup, member: ConsumerGroupMember, updated_member: ConsumerGroupMember,
            bump_group_epoch: bool, current_time_ms: int, records: list[CoordinatorRecord],
    ) -> tuple[int, Mapping[str, TopicMetadata], Any]:
        """The block both heartbeat paths share in Kafka: the subscription metadata is recomputed when the
        subscription changed or is due for a refresh, and a change of either bumps the group epoch."""
        group_id = group.group_id()
        group_epoch = group.group_epoch()
        subscription_metadata: Mapping[str, TopicMetadata] = group.subscription_metadata()
        subscription_type = group.subscription_type()

        if bump_group_epoch or group.has_metadata_expired(current_time_ms):
            subscribed_topic_names_map = group.compute_subscribed_topic_names(member, updated_member)
            subscription_metadata = group.compute_subscription_metadata(
                subscribed_topic_names_map, self._metadata_image.topics, self._metadata_image.cluster)

            num_members = group.num_members()
            if not group.has_member(updated_member.member_id()) and not group.has_static_member(
                    updated_member.instance_id()):
                num_members += 1
            subscription_type = ModernGroup.subscription_type(subscribed_topic_names_map, num_members)

            if dict(subscription_metadata) != dict(group.subscription_metadata()):
                self._log.info("[GroupId %s] Computed new subscription metadata: %s.", group_id,
                               subscription_metadata)
                bump_group_epoch = True
                records.append(coordinator_record_helpers.new_group_subscription_metadata_record(
                    group_id, subscription_metadata))

            if bump_group_epoch:
                group_epoch += 1
                records.append(coordinator_record_helpers.new_group_epoch_record(group_id, group_epoch))
                self._log.info("[GroupId %s] Bumped group epoch to %s.", group_id, group_epoch)

            group.set_metadata_refresh_deadline(
                current_time_ms + self._consumer_group_metadata_refresh_interval_ms, group_epoch)
        return group_epoch, subscription_metadata, subscription_type

    def _target_assignment_of(
            self, group: ConsumerGroup, group_epoch: int, member: ConsumerGroupMember,
            updated_member: ConsumerGroupMember, subscription_metadata: Mapping[str, TopicMetadata],
            subscription_type: Any, records: list[CoordinatorRecord],
    ) -> tuple[int, Assignment]:
        # a new target assignment is computed only when the group epoch moved past it
        if group_epoch > group.assignment_epoch():
            target_assignment = self._update_target_assignment(group, group_epoch, member, updated_member,
                                                               subscription_metadata, subscription_type, records)
            return group_epoch, target_assignment
        return group.assignment_epoch(), group.target_assignment(updated_member.member_id(),
                                                                 updated_member.instance_id())

    def _classic_group_join_to_consumer_group(
            self, group: ConsumerGroup, context: RequestContext, request: JoinGroupRequest,
            response_future: CompletableFuture[JoinGroupResponse],
    ) -> CoordinatorResult[None, CoordinatorRecord]:
        """A JoinGroup from a classic-protocol member of a consumer group: handled as a heartbeat, the response
        sent once the records are written."""
        current_time_ms = self._time.milliseconds()
        records: list[CoordinatorRecord] = []
        group_id = request.group_id
        instance_id = request.group_instance_id
        session_timeout_ms = _ms(request.session_timeout)
        protocols = request.protocols

        member_id = request.member_id
        is_unknown_member = member_id == UNKNOWN_MEMBER_ID
        if is_unknown_member:
            member_id = str(Uuid.random_uuid())

        self._throw_if_consumer_group_is_full(group, member_id)
        self._throw_if_classic_protocol_is_not_supported(group, member_id, request.protocol_type, protocols)

        if _requires_known_member_id(request, context.api_version()):
            response_future.complete(join_group_response(member_id=member_id,
                                                         error_code=ErrorCode.member_id_required))
            self._log.info("[GroupId %s] Dynamic member with unknown member id joins the consumer group. Created a "
                           "new member id %s and requesting the member to rejoin with this id.", group_id, member_id)
            return EMPTY_RESULT

        if instance_id is None:
            member = self._get_or_maybe_subscribe_dynamic_consumer_group_member(group, member_id, -1, [], True, True)
        else:
            member = self._get_or_maybe_subscribe_static_consumer_group_member(
                group, member_id, -1, instance_id, [], is_unknown_member, True, records)

        subscription = self._deserialize_subscription(protocols)
        updated_member = (ConsumerGroupMember.Builder(member)
                          .maybe_update_instance_id(instance_id)
                          .maybe_update_rack_id(_to_optional(subscription.rack_id))
                          .maybe_update_rebalance_timeout_ms(_of_sentinel(_ms(request.rebalance_timeout)))
                          .maybe_update_server_assignor_name(None)
                          .maybe_update_subscribed_topic_names(list(subscription.topics))
                          .set_client_id(context.client_id())
                          .set_client_host(str(context.client_address))
                          .set_classic_member_metadata(ClassicMemberMetadata(
                              session_timeout_ms=session_timeout_ms,
                              supported_protocols=ConsumerGroupMember
                              .classic_protocol_list_from_join_request_protocol_collection(protocols)))
                          .build())

        bump_group_epoch = self._has_member_subscription_changed(group_id, member, updated_member, records)
        group_epoch, subscription_metadata, subscription_type = self._maybe_bump_group_epoch(
            group, member, updated_member, bump_group_epoch, current_time_ms, records)
        target_assignment_epoch, target_assignment = self._target_assignment_of(
            group, group_epoch, member, updated_member, subscription_metadata, subscription_type, records)

        updated_member = self._maybe_reconcile(
            group_id, updated_member, group.current_partition_epoch, target_assignment_epoch, target_assignment,
            _to_topic_partitions(subscription.owned_partitions, self._metadata_image.topics), records)

        response = join_group_response(member_id=updated_member.member_id(),
                                       generation_id=updated_member.member_epoch(),
                                       protocol_type=consumer_protocol.PROTOCOL_TYPE,
                                       protocol_name=updated_member.supported_classic_protocols()[0].name)

        append_future: CompletableFuture[None] = CompletableFuture()

        def on_append(_: Any, t: BaseException | None) -> None:
            if t is None:
                self._cancel_consumer_group_join_timeout(group_id, response.member_id)
                self._schedule_consumer_group_session_timeout(group_id, response.member_id, session_timeout_ms)
                self._schedule_consumer_group_sync_timeout(group_id, response.member_id,
                                                           _ms(request.rebalance_timeout))
                response_future.complete(response)

        append_future.when_complete(on_append)
        return CoordinatorResult(records, None, append_future=append_future, replay_records=True)

    def _get_or_maybe_subscribe_dynamic_consumer_group_member(
            self, group: ConsumerGroup, member_id: str, member_epoch: int,
            owned_topic_partitions: Sequence[RequestTopicPartitions] | None, create_if_not_exists: bool,
            use_classic_protocol: bool) -> ConsumerGroupMember:
        member = group.get_or_maybe_create_member(member_id, create_if_not_exists)
        # a classic member has no epoch of its own to check
        if not use_classic_protocol:
            self._throw_if_consumer_group_member_epoch_is_invalid(member, member_epoch, owned_topic_partitions)
        if create_if_not_exists:
            self._log.info("[GroupId %s] Member %s joins the consumer group using the %s protocol.",
                           group.group_id(), member_id, "classic" if use_classic_protocol else "consumer")
        return member

    def _get_or_maybe_subscribe_static_consumer_group_member(
            self, group: ConsumerGroup, member_id: str, member_epoch: int, instance_id: str,
            owned_topic_partitions: Sequence[RequestTopicPartitions] | None, create_if_not_exists: bool,
            use_classic_protocol: bool, records: list[CoordinatorRecord]) -> ConsumerGroupMember:
        """A static member: a new instance id joins as a new member; a known one takes over the old member (its
        assignment included) once the old one left temporarily."""
        existing_static_member_or_null = group.static_member(instance_id)

        if create_if_not_exists:
            if existing_static_member_or_null is None:
                new_member = group.get_or_maybe_create_member(member_id, True)
                self._log.info("[GroupId %s] Static member %s with instance id %s joins the consumer group using "
                               "the %s protocol.", group.group_id(), member_id, instance_id,
                               "classic" if use_classic_protocol else "consumer")
                return new_member
            # a classic member replaces the old one at once (the classic protocol has no temporary leave)
            if not use_classic_protocol:
                self._throw_if_instance_id_is_unreleased(existing_static_member_or_null, group.group_id(), member_id,
                                                         instance_id)
            new_member = (ConsumerGroupMember.Builder(existing_static_member_or_null, member_id)
                          .set_member_epoch(0)
                          .set_previous_member_epoch(0)
                          .build())
            self._replace_member(records, group, existing_static_member_or_null, new_member)
            self._log.info("[GroupId %s] Static member with instance id %s re-joins the consumer group using the %s "
                           "protocol. Created a new member %s to replace the existing member %s.", group.group_id(),
                           instance_id, "classic" if use_classic_protocol else "consumer", member_id,
                           existing_static_member_or_null.member_id())
            return new_member

        self._throw_if_static_member_is_unknown(existing_static_member_or_null, instance_id)
        assert existing_static_member_or_null is not None
        self._throw_if_instance_id_is_fenced(existing_static_member_or_null, group.group_id(), member_id,
                                             instance_id)
        if not use_classic_protocol:
            self._throw_if_consumer_group_member_epoch_is_invalid(existing_static_member_or_null, member_epoch,
                                                                  owned_topic_partitions)
        return existing_static_member_or_null

    def _has_member_subscription_changed(self, group_id: str, member: ConsumerGroupMember,
                                         updated_member: ConsumerGroupMember,
                                         records: list[CoordinatorRecord]) -> bool:
        """Writes a changed member; True when its subscription (topics or regex) changed."""
        member_id = updated_member.member_id()
        if updated_member != member:
            records.append(coordinator_record_helpers.new_member_subscription_record(group_id, updated_member))
            if set(updated_member.subscribed_topic_names()) != set(member.subscribed_topic_names()):
                self._log.info("[GroupId %s] Member %s updated its subscribed topics to: %s.", group_id, member_id,
                               updated_member.subscribed_topic_names())
                return True
            if updated_member.subscribed_topic_regex() != member.subscribed_topic_regex():
                self._log.info("[GroupId %s] Member %s updated its subscribed regex to: %s.", group_id, member_id,
                               updated_member.subscribed_topic_regex())
                return True
        return False

    def _maybe_reconcile(self, group_id: str, member: ConsumerGroupMember,
                         current_partition_epoch: Callable[[uuid.UUID, int], int], target_assignment_epoch: int,
                         target_assignment: Assignment,
                         owned_topic_partitions: Sequence[RequestTopicPartitions] | None,
                         records: list[CoordinatorRecord]) -> ConsumerGroupMember:
        """Moves the member towards its target assignment; a member left with partitions to revoke gets a
        rebalance timeout to revoke them in."""
        if member.is_reconciled_to(target_assignment_epoch):
            return member

        updated_member = (CurrentAssignmentBuilder(member)
                          .with_target_assignment(target_assignment_epoch, target_assignment)
                          .with_current_partition_epoch(current_partition_epoch)
                          .with_owned_topic_partitions(owned_topic_partitions)
                          .build())

        if updated_member != member:
            records.append(coordinator_record_helpers.new_current_assignment_record(group_id, updated_member))
            self._log.info("[GroupId %s] Member %s new assignment state: epoch=%s, previousEpoch=%s, state=%s, "
                           "assignedPartitions=%s and revokedPartitions=%s.", group_id, updated_member.member_id(),
                           updated_member.member_epoch(), updated_member.previous_member_epoch(),
                           updated_member.state(), _assignment_to_string(updated_member.assigned_partitions()),
                           _assignment_to_string(updated_member.partitions_pending_revocation()))

            # classic members are timed by their join and sync timeouts instead
            if not updated_member.use_classic_protocol():
                if updated_member.state() == MemberState.UNREVOKED_PARTITIONS:
                    self._schedule_consumer_group_rebalance_timeout(group_id, updated_member.member_id(),
                                                                    updated_member.member_epoch(),
                                                                    updated_member.rebalance_timeout_ms())
                else:
                    self._cancel_consumer_group_rebalance_timeout(group_id, updated_member.member_id())
        return updated_member

    def _update_target_assignment(self, group: ConsumerGroup, group_epoch: int, member: ConsumerGroupMember,
                                  updated_member: ConsumerGroupMember,
                                  subscription_metadata: Mapping[str, TopicMetadata], subscription_type: Any,
                                  records: list[CoordinatorRecord]) -> Assignment:
        """Runs the group's preferred server assignor and writes the new target assignment; returns the member's."""
        preferred_server_assignor = group.compute_preferred_server_assignor(member, updated_member)
        if preferred_server_assignor is None:
            preferred_server_assignor = self._default_consumer_group_assignor.name()
        try:
            assignment_result_builder = (
                TargetAssignmentBuilder(group.group_id(), group_epoch,
                                        self._consumer_group_assignors[preferred_server_assignor])
                .with_members(group.members())
                .with_static_members(group.static_members())
                .with_subscription_metadata(subscription_metadata)
                .with_subscription_type(subscription_type)
                .with_target_assignment(group.target_assignment())
                .with_inverted_target_assignment(group.inverted_target_assignment())
                .with_topics_image(self._metadata_image.topics)
                .add_or_update_member(updated_member.member_id(), updated_member))

            # a static member that rejoined under a new member id replaces its old self
            previous_member_id = group.static_member_id(updated_member.instance_id())
            if previous_member_id is not None and updated_member.member_id() != previous_member_id:
                assignment_result_builder.remove_member(previous_member_id)

            start_time_ms = self._time.milliseconds()
            assignment_result = assignment_result_builder.build()
            assignor_time_ms = self._time.milliseconds() - start_time_ms
            self._log.info("[GroupId %s] Computed a new target assignment for epoch %s with '%s' assignor in %sms: "
                           "%s.", group.group_id(), group_epoch, preferred_server_assignor, assignor_time_ms,
                           assignment_result.target_assignment())

            records.extend(assignment_result.records())

            new_member_assignment = assignment_result.target_assignment().get(updated_member.member_id())
            if new_member_assignment is not None:
                return Assignment(new_member_assignment.partitions())
            return Assignment.EMPTY
        except PartitionAssignorException as ex:
            msg = f"Failed to compute a new target assignment for epoch {group_epoch}: {ex}"
            self._log.error("[GroupId %s] %s.", group.group_id(), msg)
            raise UnknownServerException(msg) from ex

    def _consumer_group_leave(self, group_id: str, instance_id: str | None, member_id: str,
                              member_epoch: int) -> CoordinatorResult[ConsumerGroupHeartbeatResponse,
                                                                      CoordinatorRecord]:
        group = self.consumer_group(group_id)
        response = heartbeat_response(member_id=member_id, member_epoch=member_epoch)

        if instance_id is None:
            member = group.get_or_maybe_create_member(member_id, False)
            self._log.info("[GroupId %s] Member %s left the consumer group.", group_id, member_id)
            return self._consumer_group_fence_member(group, member, response)

        static_member = group.static_member(instance_id)
        self._throw_if_static_member_is_unknown(static_member, instance_id)
        assert static_member is not None
        self._throw_if_instance_id_is_fenced(static_member, group_id, member_id, instance_id)
        if member_epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH:
            self._log.info("[GroupId %s] Static Member %s with instance id %s temporarily left the consumer group.",
                           group.group_id(), member_id, instance_id)
            return self._consumer_group_static_member_group_leave(group, static_member)
        self._log.info("[GroupId %s] Static Member %s with instance id %s left the consumer group.",
                       group.group_id(), member_id, instance_id)
        return self._consumer_group_fence_member(group, static_member, response)

    def _consumer_group_static_member_group_leave(
            self, group: ConsumerGroup, member: ConsumerGroupMember,
    ) -> CoordinatorResult[ConsumerGroupHeartbeatResponse, CoordinatorRecord]:
        """A static member's temporary leave: it keeps its assignment (for its next instance) but gives up the
        partitions it was revoking."""
        leaving_static_member = (ConsumerGroupMember.Builder(member)
                                 .set_member_epoch(LEAVE_GROUP_STATIC_MEMBER_EPOCH)
                                 .set_partitions_pending_revocation({})
                                 .build())
        return CoordinatorResult(
            [coordinator_record_helpers.new_current_assignment_record(group.group_id(), leaving_static_member)],
            heartbeat_response(member_id=member.member_id(), member_epoch=LEAVE_GROUP_STATIC_MEMBER_EPOCH))

    @step("GC.fence")
    def _consumer_group_fence_member(self, group: ConsumerGroup, member: ConsumerGroupMember,
                                     response: T) -> CoordinatorResult[T, CoordinatorRecord]:
        """Removes the member and bumps the group epoch, or turns the group back into a classic one when the
        member was the last on the consumer protocol."""
        if self._validate_online_downgrade(group, member.member_id()):
            return self._convert_to_classic_group(group, member.member_id(), response)

        records: list[CoordinatorRecord] = []
        self._remove_member(records, group.group_id(), member.member_id())

        # the member's topics may no longer be subscribed
        subscription_metadata = group.compute_subscription_metadata(
            group.compute_subscribed_topic_names(member, None), self._metadata_image.topics,
            self._metadata_image.cluster)
        if dict(subscription_metadata) != dict(group.subscription_metadata()):
            self._log.info("[GroupId %s] Computed new subscription metadata: %s.", group.group_id(),
                           subscription_metadata)
            records.append(coordinator_record_helpers.new_group_subscription_metadata_record(
                group.group_id(), subscription_metadata))

        # the bump makes the next heartbeat recompute the target assignment without the member
        group_epoch = group.group_epoch() + 1
        records.append(coordinator_record_helpers.new_group_epoch_record(group.group_id(), group_epoch))

        self._cancel_timers(group.group_id(), member.member_id())
        return CoordinatorResult(records, response)

    def _replace_member(self, records: list[CoordinatorRecord], group: ConsumerGroup,
                        old_member: ConsumerGroupMember, new_member: ConsumerGroupMember) -> None:
        """Writes the new member of a static instance id in place of the old one, with the old one's target."""
        group_id = group.group_id()
        self._remove_member(records, group_id, old_member.member_id())
        records.append(coordinator_record_helpers.new_member_subscription_record(group_id, new_member))
        records.append(coordinator_record_helpers.new_target_assignment_record(
            group_id, new_member.member_id(), group.target_assignment(old_member.member_id()).partitions()))
        records.append(coordinator_record_helpers.new_current_assignment_record(group_id, new_member))

    @staticmethod
    def _remove_member(records: list[CoordinatorRecord], group_id: str, member_id: str) -> None:
        # in this order: replaying the subscription tombstone checks that the others came first
        records.append(coordinator_record_helpers.new_current_assignment_tombstone_record(group_id, member_id))
        records.append(coordinator_record_helpers.new_target_assignment_tombstone_record(group_id, member_id))
        records.append(coordinator_record_helpers.new_member_subscription_tombstone_record(group_id, member_id))

    def _cancel_timers(self, group_id: str, member_id: str) -> None:
        self._cancel_group_session_timeout(group_id, member_id)
        self._cancel_consumer_group_rebalance_timeout(group_id, member_id)
        self._cancel_consumer_group_join_timeout(group_id, member_id)
        self._cancel_consumer_group_sync_timeout(group_id, member_id)

    def _consumer_group_fence_member_operation(self, group_id: str, member_id: str,
                                               reason: str) -> CoordinatorResult[None, CoordinatorRecord]:
        """What a member's expired timer does: fence it, if the group and the member are still there."""
        try:
            group = self.consumer_group(group_id)
            member = group.get_or_maybe_create_member(member_id, False)
            self._log.info("[GroupId %s] Member %s fenced from the group because %s.", group_id, member_id, reason)
            return self._consumer_group_fence_member(group, member, None)
        except GroupIdNotFoundException:
            self._log.debug("[GroupId %s] Could not fence %s because the group does not exist.", group_id,
                            member_id)
        except UnknownMemberIdException:
            self._log.debug("[GroupId %s] Could not fence %s because the member does not exist.", group_id,
                            member_id)
        return CoordinatorResult([])

    def _schedule_consumer_group_session_timeout(self, group_id: str, member_id: str,
                                                 session_timeout_ms: int | None = None) -> None:
        """Java's two overloads: without a timeout, the configured consumer group session timeout."""
        if session_timeout_ms is None:
            session_timeout_ms = self._consumer_group_session_timeout_ms
        self._timer.schedule(
            group_session_timeout_key(group_id, member_id), session_timeout_ms, True,
            lambda: self._consumer_group_fence_member_operation(group_id, member_id,
                                                                "the member session expired."))

    def _cancel_group_session_timeout(self, group_id: str, member_id: str) -> None:
        self._timer.cancel(group_session_timeout_key(group_id, member_id))

    def _schedule_consumer_group_rebalance_timeout(self, group_id: str, member_id: str, member_epoch: int,
                                                   rebalance_timeout_ms: int) -> None:
        """Fences the member unless it has left `member_epoch` (revoked its partitions) in time."""
        def operation() -> CoordinatorResult[None, CoordinatorRecord]:
            try:
                group = self.consumer_group(group_id)
                member = group.get_or_maybe_create_member(member_id, False)
                if member.member_epoch() == member_epoch:
                    self._log.info("[GroupId %s] Member %s fenced from the group because it failed to transition "
                                   "from epoch %s within %sms.", group_id, member_id, member_epoch,
                                   rebalance_timeout_ms)
                    return self._consumer_group_fence_member(group, member, None)
                self._log.debug("[GroupId %s] Ignoring rebalance timeout for %s because the member left the "
                                "epoch %s.", group_id, member_id, member_epoch)
                return CoordinatorResult([])
            except GroupIdNotFoundException:
                self._log.debug("[GroupId %s] Could not fence %s because the group does not exist.", group_id,
                                member_id)
            except UnknownMemberIdException:
                self._log.debug("[GroupId %s] Could not fence %s because the member does not exist.", group_id,
                                member_id)
            return CoordinatorResult([])

        self._timer.schedule(consumer_group_rebalance_timeout_key(group_id, member_id), rebalance_timeout_ms, True,
                             operation)

    def _cancel_consumer_group_rebalance_timeout(self, group_id: str, member_id: str) -> None:
        self._timer.cancel(consumer_group_rebalance_timeout_key(group_id, member_id))

    def _schedule_consumer_group_join_timeout_if_absent(self, group_id: str, member_id: str,
                                                        rebalance_timeout_ms: int) -> None:
        self._timer.schedule_if_absent(
            consumer_group_join_key(group_id, member_id), rebalance_timeout_ms, True,
            lambda: self._consumer_group_fence_member_operation(
                group_id, member_id, "the classic member failed to join within the rebalance timeout."))

    def _cancel_consumer_group_join_timeout(self, group_id: str, member_id: str) -> None:
        self._timer.cancel(consumer_group_join_key(group_id, member_id))

    def _schedule_consumer_group_sync_timeout(self, group_id: str, member_id: str, rebalance_timeout_ms: int) -> None:
        self._timer.schedule(
            consumer_group_sync_key(group_id, member_id), rebalance_timeout_ms, True,
            lambda: self._consumer_group_fence_member_operation(group_id, member_id,
                                                                "the member failed to sync within timeout."))

    def _cancel_consumer_group_sync_timeout(self, group_id: str, member_id: str) -> None:
        self._timer.cancel(consumer_group_sync_key(group_id, member_id))

    @step("GC.hb")
    def consumer_group_heartbeat(
            self, context: RequestContext, request: ConsumerGroupHeartbeatRequest,
    ) -> CoordinatorResult[ConsumerGroupHeartbeatResponse, CoordinatorRecord]:
        """Handles a ConsumerGroupHeartbeat: a leave (epoch -1, or -2 for a static member's temporary leave) or a
        heartbeat."""
        self._throw_if_consumer_group_heartbeat_request_is_invalid(request)

        if request.member_epoch in (LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH):
            return self._consumer_group_leave(request.group_id, request.instance_id, request.member_id,
                                              request.member_epoch)
        return self._consumer_group_heartbeat(
            request.group_id, request.member_id, request.member_epoch, request.instance_id, request.rack_id,
            _ms(request.rebalance_timeout), context.client_id(), str(context.client_address),
            None if request.subscribed_topic_names is None else list(request.subscribed_topic_names),
            request.server_assignor, request.topic_partitions)

    def replay(self, key: Any, value: Any) -> None:
        """Applies one record; Java's overloads are one method dispatching on the key's type."""
        handler = _REPLAYERS.get(type(key))
        if handler is None:
            raise IllegalStateException(f"Received an unknown record type {type(key).__name__}")
        handler(self, key, value)

    def _replay_consumer_group_member_metadata(self, key: ConsumerGroupMemberMetadataKey,
                                               value: ConsumerGroupMemberMetadataValue | None) -> None:
        group_id = key.group_id
        member_id = key.member_id
        consumer_group = self.get_or_maybe_create_persisted_consumer_group(group_id, value is not None)
        old_subscribed_topic_names = set(consumer_group.subscribed_topic_names().keys())

        if value is not None:
            old_member = consumer_group.get_or_maybe_create_member(member_id, True)
            consumer_group.update_member(ConsumerGroupMember.Builder(old_member).update_with(value).build())
        else:
            old_member = consumer_group.get_or_maybe_create_member(member_id, False)
            # the member's assignments must be gone already
            if old_member.member_epoch() != LEAVE_GROUP_MEMBER_EPOCH:
                raise IllegalStateException(
                    f"Received a tombstone record to delete member {member_id} but did not receive "
                    "ConsumerGroupCurrentMemberAssignmentValue tombstone.")
            if member_id in consumer_group.target_assignment():
                raise IllegalStateException(
                    f"Received a tombstone record to delete member {member_id} but did not receive "
                    "ConsumerGroupTargetAssignmentMetadataValue tombstone.")
            consumer_group.remove_member(member_id)

        self._update_groups_by_topics(group_id, old_subscribed_topic_names,
                                      set(consumer_group.subscribed_topic_names().keys()))

    def groups_subscribed_to_topic(self, topic_name: str) -> Set[str]:
        groups = self._groups_by_topics.get(topic_name)
        return set(groups) if groups is not None else set()

    def _subscribe_group_to_topic(self, group_id: str, topic_name: str) -> None:
        group_ids = self._groups_by_topics.get(topic_name)
        if group_ids is None:
            group_ids = TimelineHashSet(self._snapshot_registry, 1)
            self._groups_by_topics.put(topic_name, group_ids)
        group_ids.add(group_id)

    def _unsubscribe_group_from_topic(self, group_id: str, topic_name: str) -> None:
        group_ids = self._groups_by_topics.get(topic_name)
        if group_ids is not None:
            group_ids.remove(group_id)
            if group_ids.is_empty():
                self._groups_by_topics.remove(topic_name)

    def _update_groups_by_topics(self, group_id: str, old_subscribed_topics: Set[str],
                                 new_subscribed_topics: Set[str]) -> None:
        if not old_subscribed_topics:
            for topic_name in new_subscribed_topics:
                self._subscribe_group_to_topic(group_id, topic_name)
        elif not new_subscribed_topics:
            for topic_name in old_subscribed_topics:
                self._unsubscribe_group_from_topic(group_id, topic_name)
        else:
            for topic_name in old_subscribed_topics:
                if topic_name not in new_subscribed_topics:
                    self._unsubscribe_group_from_topic(group_id, topic_name)
            for topic_name in new_subscribed_topics:
                if topic_name not in old_subscribed_topics:
                    self._subscribe_group_to_topic(group_id, topic_name)

    def _replay_consumer_group_metadata(self, key: ConsumerGroupMetadataKey,
                                        value: ConsumerGroupMetadataValue | None) -> None:
        group_id = key.group_id
        if value is not None:
            event("GC.epoch", self, group_id=group_id, epoch=value.epoch)
            self.get_or_maybe_create_persisted_consumer_group(group_id, True).set_group_epoch(value.epoch)
            return
        consumer_group = self.get_or_maybe_create_persisted_consumer_group(group_id, False)
        # the group's other records must be gone already
        if consumer_group.members():
            raise IllegalStateException(
                f"Received a tombstone record to delete group {group_id} but the group still has "
                f"{len(consumer_group.members())} members.")
        if consumer_group.target_assignment():
            raise IllegalStateException(
                f"Received a tombstone record to delete group {group_id} but the target assignment still has "
                f"{len(consumer_group.target_assignment())} members.")
        if consumer_group.assignment_epoch() != -1:
            raise IllegalStateException(
                f"Received a tombstone record to delete group {group_id} but did not receive "
                "ConsumerGroupTargetAssignmentMetadataValue tombstone.")
        self._remove_group(group_id)

    def _replay_consumer_group_partition_metadata(self, key: ConsumerGroupPartitionMetadataKey,
                                                  value: ConsumerGroupPartitionMetadataValue | None,
                                                  group_type: Group.GroupType = CONSUMER) -> None:
        group = self.get_or_maybe_create_persisted_group(key.group_id, False, group_type)
        if value is not None:
            group.set_subscription_metadata(
                {topic_metadata.topic_name: TopicMetadata.from_record(topic_metadata)
                 for topic_metadata in value.topics})
        else:
            group.set_subscription_metadata({})

    def _replay_consumer_group_target_assignment_member(
            self, key: ConsumerGroupTargetAssignmentMemberKey, value: ConsumerGroupTargetAssignmentMemberValue | None,
            group_type: Group.GroupType = CONSUMER) -> None:
        group = self.get_or_maybe_create_persisted_group(key.group_id, False, group_type)
        if value is not None:
            group.update_target_assignment(key.member_id, Assignment.from_record(value))
        else:
            group.remove_target_assignment(key.member_id)

    def _replay_consumer_group_target_assignment_metadata(
            self, key: ConsumerGroupTargetAssignmentMetadataKey,
            value: ConsumerGroupTargetAssignmentMetadataValue | None,
            group_type: Group.GroupType = CONSUMER) -> None:
        group = self.get_or_maybe_create_persisted_group(key.group_id, False, group_type)
        if value is not None:
            group.set_target_assignment_epoch(value.assignment_epoch)
            return
        if group.target_assignment():
            raise IllegalStateException(
                f"Received a tombstone record to delete target assignment of {key.group_id} but the assignment "
                f"still has {len(group.target_assignment())} members.")
        group.set_target_assignment_epoch(-1)

    def _replay_consumer_group_current_member_assignment(
            self, key: ConsumerGroupCurrentMemberAssignmentKey,
            value: ConsumerGroupCurrentMemberAssignmentValue | None,
            group_type: Group.GroupType = CONSUMER) -> None:
        if group_type != CONSUMER:
            raise IllegalStateException("Received a ConsumerGroupCurrentMemberAssignmentKey/Value record for an "
                                        f"unknown group type: {group_type}")
        group = self.get_or_maybe_create_persisted_consumer_group(key.group_id, False)
        old_member = group.get_or_maybe_create_member(key.member_id, False)
        if value is not None:
            group.update_member(ConsumerGroupMember.Builder(old_member).update_with(value).build())
        else:
            # the tombstone leaves the member at the leave epoch, with nothing assigned, until its own tombstone
            group.update_member(ConsumerGroupMember.Builder(old_member)
                                .set_member_epoch(LEAVE_GROUP_MEMBER_EPOCH)
                                .set_previous_member_epoch(LEAVE_GROUP_MEMBER_EPOCH)
                                .set_assigned_partitions({})
                                .set_partitions_pending_revocation({})
                                .build())

    def on_new_metadata_image(self, new_image: MetadataImage, delta: MetadataDelta) -> None:
        """Takes the new image; the groups subscribed to a changed or deleted topic refresh their metadata at
        their next heartbeat."""
        self._metadata_image = new_image

        topics_delta = delta.topics_delta()
        if topics_delta is None:
            return
        all_group_ids: set[str] = set()
        for topic_delta in topics_delta.changed_topics().values():
            all_group_ids |= self.groups_subscribed_to_topic(topic_delta.name())
        for topic_id in topics_delta.deleted_topic_ids():
            topic_image = delta.image().topics.get_topic(topic_id)
            if topic_image is not None:
                all_group_ids |= self.groups_subscribed_to_topic(topic_image.name)
        for group_id in all_group_ids:
            group = self._groups.get(group_id)
            if group is not None and group.type() == CONSUMER:
                group.request_metadata_refresh()  # type: ignore[attr-defined]

    def on_loaded(self) -> None:
        """After loading: the timers, which are not in the log, are set again for every member."""
        for group_id, group in self._groups.entry_set():
            if group.type() == CONSUMER:
                consumer_group: ConsumerGroup = group  # type: ignore[assignment]
                self._log.info("Loaded consumer group %s with %s members.", group_id,
                               len(consumer_group.members()))
                for member_id, member in consumer_group.members().items():
                    self._log.debug("Loaded member %s in consumer group %s.", member_id, group_id)
                    self._schedule_consumer_group_session_timeout(group_id, member_id)
                    if member.state() == MemberState.UNREVOKED_PARTITIONS:
                        self._schedule_consumer_group_rebalance_timeout(group_id, member.member_id(),
                                                                        member.member_epoch(),
                                                                        member.rebalance_timeout_ms())
            elif group.type() == CLASSIC:
                classic_group: ClassicGroup = group  # type: ignore[assignment]
                self._log.info("Loaded classic group %s with %s members.", group_id,
                               len(classic_group.all_members()))
                for classic_member in classic_group.all_members():
                    self._log.debug("Loaded member %s in classic group %s.", classic_member.member_id(), group_id)
                    self._reschedule_classic_group_member_heartbeat(classic_group, classic_member)
                if classic_group.num_members() > self._classic_group_max_size:
                    self.prepare_rebalance(
                        classic_group, f"Freshly-loaded group {group_id} (size {classic_group.num_members()}) is "
                        f"over capacity {self._classic_group_max_size}. Rebalancing in order to give a chance for "
                        "consumers to commit offsets")
            else:
                self._log.warning("Loaded group %s with an unknown group type %s.", group_id, group.type())

    def on_unloaded(self) -> None:
        """The partition moved away: parked classic requests are answered NOT_COORDINATOR."""
        for group in self._groups.values_at():
            if group.type() == CONSUMER:
                self._log.info("[GroupId=%s] Unloaded group metadata for group epoch %s.", group.group_id(),
                               group.group_epoch())  # type: ignore[attr-defined]
            elif group.type() == CLASSIC:
                classic_group: ClassicGroup = group  # type: ignore[assignment]
                self._log.info("[GroupId=%s] Unloading group metadata for generation %s.", classic_group.group_id(),
                               classic_group.generation_id())
                classic_group.transition_to(DEAD)
                previous_state = classic_group.previous_state()
                if previous_state == PREPARING_REBALANCE:
                    for member in classic_group.all_members():
                        classic_group.complete_join_future(member, join_group_response(
                            member_id=member.member_id(), error_code=ErrorCode.not_coordinator))
                elif previous_state in (COMPLETING_REBALANCE, STABLE):
                    for member in classic_group.all_members():
                        classic_group.complete_sync_future(member, sync_group_response(
                            error_code=ErrorCode.not_coordinator))
            else:
                self._log.warning("onUnloaded group with an unknown group type %s.", group.type())

    def _replay_group_metadata(self, key: GroupMetadataKey, value: GroupMetadataValue | None) -> None:
        """A classic group's record: the whole group, members included; a tombstone deletes it."""
        group_id = key.group
        if value is None:
            self._remove_group(group_id)
            return
        loaded_members: list[ClassicGroupMember] = []
        for member in value.members:
            # records older than rebalance timeouts had only the session timeout
            rebalance_timeout = member.session_timeout if member.rebalance_timeout == -1 else member.rebalance_timeout
            supported_protocols = [JoinGroupRequestProtocol(name=value.protocol or "", metadata=member.subscription)]
            loaded_members.append(ClassicGroupMember(
                member.member_id, member.group_instance_id, member.client_id, member.client_host, rebalance_timeout,
                member.session_timeout, value.protocol_type, supported_protocols, member.assignment))
        protocol_type = value.protocol_type
        classic_group = ClassicGroup(
            self._log_context, group_id, EMPTY if not loaded_members else STABLE, self._time, value.generation,
            None if not protocol_type else protocol_type, value.protocol, value.leader,
            None if value.current_state_timestamp == -1 else value.current_state_timestamp)
        for loaded_member in loaded_members:
            classic_group.add(loaded_member, None)
        self._groups.put(group_id, classic_group)
        classic_group.set_subscribed_topics(classic_group.compute_subscribed_topics())

    @step("GC.join")
    def classic_group_join(self, context: RequestContext, request: JoinGroupRequest,
                           response_future: CompletableFuture[JoinGroupResponse],
                           ) -> CoordinatorResult[None, CoordinatorRecord]:
        """Handles a JoinGroup: against a consumer group in use (a classic member of it), else a classic group.
        The response completes `response_future`, possibly long after (once the rebalance completes)."""
        group = self._groups.get(request.group_id, LATEST_EPOCH)
        if group is not None and group.type() == CONSUMER and not group.is_empty():
            return self._classic_group_join_to_consumer_group(group, context, request,  # type: ignore[arg-type]
                                                              response_future)
        return self.classic_group_join_to_classic_group(context, request, response_future)

    def classic_group_join_to_classic_group(self, context: RequestContext, request: JoinGroupRequest,
                                            response_future: CompletableFuture[JoinGroupResponse],
                                            ) -> CoordinatorResult[None, CoordinatorRecord]:
        result = EMPTY_RESULT
        records: list[CoordinatorRecord] = []
        group_id = request.group_id
        member_id = request.member_id
        is_unknown_member = member_id == UNKNOWN_MEMBER_ID
        # an empty consumer group makes way for the classic group
        self._maybe_delete_empty_consumer_group(group_id, records)

        is_new_group = group_id not in self._groups
        try:
            group = self.get_or_maybe_create_classic_group(group_id, is_unknown_member)
        except Exception as t:  # noqa: BLE001 - Java catches Throwable and answers with its code
            response_future.complete(join_group_response(member_id=member_id,
                                                         error_code=ErrorCode(Errors.for_exception(t).code)))
            return EMPTY_RESULT

        if not self._accept_joining_member(group, member_id):
            group.remove(member_id)
            response_future.complete(join_group_response(member_id=UNKNOWN_MEMBER_ID,
                                                         error_code=ErrorCode.group_max_size_reached))
        elif is_unknown_member:
            result = self._classic_group_join_new_member(context, request, group, response_future)
        else:
            result = self._classic_group_join_existing_member(context, request, group, response_future)

        if is_new_group and result is EMPTY_RESULT:
            # a new group is written at once (empty), so that it survives a failover
            append_future: CompletableFuture[None] = CompletableFuture()

            def on_append(_: Any, t: BaseException | None) -> None:
                if t is not None:
                    self._log.warning("Failed to write empty metadata for group %s: %s", group.group_id(), t)
                    response_future.complete(join_group_response(error_code=ErrorCode(
                        append_group_metadata_error_to_response_error(Errors.for_exception(t)).code)))

            append_future.when_complete(on_append)
            records.append(coordinator_record_helpers.new_empty_group_metadata_record(
                group, self._metadata_image.features.metadata_version))
            return CoordinatorResult(records, None, append_future=append_future, replay_records=False)
        return result

    def _maybe_complete_join_phase(self, group: ClassicGroup) -> CoordinatorResult[None, CoordinatorRecord]:
        # an initial rebalance (from Empty) waits for its delay instead
        if group.is_in_state(PREPARING_REBALANCE) and group.has_all_members_joined() and \
                group.previous_state() != EMPTY:
            return self._complete_classic_group_join(group)
        return EMPTY_RESULT

    def _classic_group_join_new_member(self, context: RequestContext, request: JoinGroupRequest,
                                       group: ClassicGroup, response_future: CompletableFuture[JoinGroupResponse],
                                       ) -> CoordinatorResult[None, CoordinatorRecord]:
        if group.is_in_state(DEAD):
            # the group was unloaded or deleted meanwhile: the member must find the coordinator again
            response_future.complete(join_group_response(member_id=UNKNOWN_MEMBER_ID,
                                                         error_code=ErrorCode.coordinator_not_available))
        elif not group.supports_protocols(request.protocol_type, request.protocols):
            response_future.complete(join_group_response(member_id=UNKNOWN_MEMBER_ID,
                                                         error_code=ErrorCode.inconsistent_group_protocol))
        else:
            group_instance_id = request.group_instance_id
            new_member_id = group.generate_member_id(context.client_id(), group_instance_id)
            if group_instance_id is not None:
                return self._classic_group_join_new_static_member(context, request, group, new_member_id,
                                                                  response_future)
            return self._classic_group_join_new_dynamic_member(context, request, group, new_member_id,
                                                               response_future)
        return EMPTY_RESULT

    def _classic_group_join_new_static_member(self, context: RequestContext, request: JoinGroupRequest,
                                              group: ClassicGroup, new_member_id: str,
                                              response_future: CompletableFuture[JoinGroupResponse],
                                              ) -> CoordinatorResult[None, CoordinatorRecord]:
        group_instance_id = request.group_instance_id
        existing_member_id = group.static_member_id(group_instance_id)
        if existing_member_id is not None:
            self._log.info("Static member with groupInstanceId=%s and unknown member id joins group %s in %s state. "
                           "Replacing previously mapped member %s with this groupInstanceId.", group_instance_id,
                           group.group_id(), group.current_state(), existing_member_id)
            return self._update_static_member_then_rebalance_or_complete_join(
                context, request, group, existing_member_id, new_member_id, response_future)
        self._log.info("Static member with groupInstanceId=%s and unknown member id joins group %s in %s state. "
                       "Created a new member id %s for this member and added to the group.", group_instance_id,
                       group.group_id(), group.current_state(), new_member_id)
        return self._add_member_then_rebalance_or_complete_join(context, request, group, new_member_id,
                                                                response_future)

    def _classic_group_join_new_dynamic_member(self, context: RequestContext, request: JoinGroupRequest,
                                               group: ClassicGroup, new_member_id: str,
                                               response_future: CompletableFuture[JoinGroupResponse],
                                               ) -> CoordinatorResult[None, CoordinatorRecord]:
        if _requires_known_member_id_version(context.api_version()):
            # KIP-394: the member gets its id and must join again with it; it is pending meanwhile
            self._log.info("Dynamic member with unknown member id joins group %s in %s state. Created a new member "
                           "id %s and requesting the member to rejoin with this id.", group.group_id(),
                           group.current_state(), new_member_id)
            group.add_pending_member(new_member_id)
            group_id = group.group_id()
            self._timer.schedule(classic_group_heartbeat_key(group_id, new_member_id),
                                 _ms(request.session_timeout), False,
                                 lambda: self._expire_classic_group_member_heartbeat(group_id, new_member_id))
            response_future.complete(join_group_response(member_id=new_member_id,
                                                         error_code=ErrorCode.member_id_required))
        else:
            self._log.info("Dynamic member with unknown member id joins group %s in state %s. Created a new member "
                           "id %s and added the member to the group.", group.group_id(), group.current_state(),
                           new_member_id)
            return self._add_member_then_rebalance_or_complete_join(context, request, group, new_member_id,
                                                                    response_future)
        return EMPTY_RESULT

    def _classic_group_join_existing_member(self, context: RequestContext, request: JoinGroupRequest,
                                            group: ClassicGroup,
                                            response_future: CompletableFuture[JoinGroupResponse],
                                            ) -> CoordinatorResult[None, CoordinatorRecord]:
        member_id = request.member_id
        group_instance_id = request.group_instance_id

        if group.is_in_state(DEAD):
            response_future.complete(join_group_response(member_id=member_id,
                                                         error_code=ErrorCode.coordinator_not_available))
        elif not group.supports_protocols(request.protocol_type, request.protocols):
            response_future.complete(join_group_response(member_id=member_id,
                                                         error_code=ErrorCode.inconsistent_group_protocol))
        elif group.is_pending_member(member_id):
            # a pending member joins with its given id: now it is added
            if group_instance_id is not None:
                raise IllegalStateException(f"Received unexpected JoinGroup with groupInstanceId={group_instance_id} "
                                            f"for pending member with memberId={member_id}")
            self._log.debug("Pending dynamic member with id %s joins group %s in %s state. Adding to the group now.",
                            member_id, group.group_id(), group.current_state())
            return self._add_member_then_rebalance_or_complete_join(context, request, group, member_id,
                                                                    response_future)
        else:
            try:
                group.validate_member(member_id, group_instance_id, "join-group")
            except KafkaException as ex:
                response_future.complete(join_group_response(member_id=member_id,
                                                             error_code=ErrorCode(Errors.for_exception(ex).code),
                                                             protocol_type=None, protocol_name=None))
                return EMPTY_RESULT

            member = group.member(member_id)
            assert member is not None
            if group.is_in_state(PREPARING_REBALANCE):
                return self._update_member_then_rebalance_or_complete_join(
                    request, group, member, f"Member {member.member_id()} is joining group during "
                    f"{group.state_as_string()}; client reason: {_join_reason(request)}", response_future)
            if group.is_in_state(COMPLETING_REBALANCE):
                if member.matches(request.protocols):
                    # the member missed the join response: it gets it again
                    response_future.complete(join_group_response(
                        members=tuple(group.current_classic_group_members()) if group.is_leader(member_id) else (),
                        member_id=member_id, generation_id=group.generation_id(),
                        protocol_name=group.protocol_name(), protocol_type=group.protocol_type(),
                        leader=group.leader_or_null(), skip_assignment=False))
                else:
                    return self._update_member_then_rebalance_or_complete_join(
                        request, group, member, f"Updating metadata for member {member_id} during "
                        f"{group.state_as_string()}; client reason: {_join_reason(request)}", response_future)
            elif group.is_in_state(STABLE):
                if group.is_leader(member_id):
                    # a rejoining leader forces a rebalance (its subscription may have changed)
                    return self._update_member_then_rebalance_or_complete_join(
                        request, group, member, f"Leader {member_id} re-joining group during "
                        f"{group.state_as_string()}; client reason: {_join_reason(request)}", response_future)
                if not member.matches(request.protocols):
                    return self._update_member_then_rebalance_or_complete_join(
                        request, group, member, f"Updating metadata for member {member_id} during "
                        f"{group.state_as_string()}; client reason: {_join_reason(request)}", response_future)
                # a follower with unchanged metadata: the current generation, no rebalance
                response_future.complete(join_group_response(
                    members=(), member_id=member_id, generation_id=group.generation_id(),
                    protocol_name=group.protocol_name(), protocol_type=group.protocol_type(),
                    leader=group.leader_or_null(), skip_assignment=False))
            else:
                # Empty or Dead with a known member cannot happen
                self._log.warning("Attempt to add rejoining member %s of group %s in unexpected group state %s",
                                  member_id, group.group_id(), group.state_as_string())
                response_future.complete(join_group_response(member_id=member_id,
                                                             error_code=ErrorCode.unknown_member_id))
        return EMPTY_RESULT

    def _complete_classic_group_join_by_id(self, group_id: str) -> CoordinatorResult[None, CoordinatorRecord]:
        """What the join timer does: complete the join phase of the group, if it is still a classic group."""
        try:
            group = self.get_or_maybe_create_classic_group(group_id, False)
        except (UnknownMemberIdException, GroupIdNotFoundException):
            self._log.debug("Cannot find the group, skipping rebalance stage.")
            return EMPTY_RESULT
        return self._complete_classic_group_join(group)

    def _complete_classic_group_join(self, group: ClassicGroup) -> CoordinatorResult[None, CoordinatorRecord]:
        """Ends the join phase: dynamic members that did not rejoin are removed, and the new generation answers
        every parked join (the leader gets the members' metadata)."""
        self._timer.cancel(classic_group_join_key(group.group_id()))
        group_id = group.group_id()

        not_yet_rejoined_dynamic_members = {member_id: member
                                            for member_id, member in group.not_yet_rejoined_members().items()
                                            if not member.is_static_member()}
        if not_yet_rejoined_dynamic_members:
            for failed_member in not_yet_rejoined_dynamic_members.values():
                group.remove(failed_member.member_id())
                self._timer.cancel(classic_group_heartbeat_key(group.group_id(), failed_member.member_id()))
            self._log.info("Group %s removed dynamic members who haven't joined: %s", group_id,
                           set(not_yet_rejoined_dynamic_members))

        if group.is_in_state(DEAD):
            self._log.info("Group %s is dead, skipping rebalance stage.", group_id)
        elif not group.maybe_elect_new_joined_leader() and group.all_members():
            # only static members are left and none rejoined: wait another rebalance timeout
            self._log.error("Group %s could not complete rebalance because no members rejoined.", group_id)
            self._timer.schedule(classic_group_join_key(group_id), group.rebalance_timeout_ms(), False,
                                 lambda: self._complete_classic_group_join_by_id(group_id))
            return EMPTY_RESULT
        else:
            group.init_next_generation()
            if group.is_in_state(EMPTY):
                self._log.info("Group %s with generation %s is now empty.", group_id, group.generation_id())
                append_future: CompletableFuture[None] = CompletableFuture()

                def on_append(_: Any, t: BaseException | None) -> None:
                    if t is not None:
                        error = append_group_metadata_error_to_response_error(Errors.for_exception(t))
                        self._log.warning("Failed to write empty metadata for group %s: %s", group.group_id(), error)

                append_future.when_complete(on_append)
                records = [coordinator_record_helpers.new_group_metadata_record(
                    group, {}, self._metadata_image.features.metadata_version)]
                return CoordinatorResult(records, None, append_future=append_future, replay_records=False)

            self._log.info("Stabilized group %s generation %s with %s members.", group_id, group.generation_id(),
                           group.num_members())
            # every member gets its join response; the leader also gets the members
            for member in list(group.all_members()):
                members = group.current_classic_group_members() if group.is_leader(member.member_id()) else []
                response = join_group_response(
                    members=tuple(members), member_id=member.member_id(), generation_id=group.generation_id(),
                    protocol_name=group.protocol_name(), protocol_type=group.protocol_type(),
                    leader=group.leader_or_null(), skip_assignment=False, error_code=ErrorCode.none)
                group.complete_join_future(member, response)
                self.reschedule_classic_group_member_heartbeat(group, member)
                member.set_is_new(False)
                group.add_pending_sync_member(member.member_id())
            self._schedule_pending_sync(group)
        return EMPTY_RESULT

    def _schedule_pending_sync(self, group: ClassicGroup) -> None:
        group_id, generation_id = group.group_id(), group.generation_id()
        self._timer.schedule(classic_group_sync_key(group_id), group.rebalance_timeout_ms(), False,
                             lambda: self._expire_pending_sync(group_id, generation_id))

    @span("GroupMetadataManager.expireClassicGroupMemberHeartbeat")
    def _expire_classic_group_member_heartbeat(self, group_id: str,
                                               member_id: str) -> CoordinatorResult[None, CoordinatorRecord]:
        """A classic member's session expired: it is removed unless it heartbeated (or is parked) meanwhile."""
        try:
            group = self.get_or_maybe_create_classic_group(group_id, False)
        except (UnknownMemberIdException, GroupIdNotFoundException):
            self._log.debug("Received notification of heartbeat expiration for member %s after group %s had "
                            "already been deleted or upgraded.", member_id, group_id)
            return EMPTY_RESULT

        if group.is_in_state(DEAD):
            self._log.info("Received notification of heartbeat expiration for member %s after group %s had already "
                           "been unloaded or deleted.", member_id, group.group_id())
        elif group.is_pending_member(member_id):
            self._log.info("Pending member %s in group %s has been removed after session timeout expiration.",
                           member_id, group.group_id())
            return self._remove_pending_member_and_update_classic_group(group, member_id)
        elif not group.has_member(member_id):
            self._log.debug("Member %s has already been removed from the group.", member_id)
        else:
            member = group.member(member_id)
            assert member is not None
            if not member.has_satisfied_heartbeat():
                self._log.info("Member %s in group %s has failed, removing it from the group.", member.member_id(),
                               group.group_id())
                return self._remove_member_and_update_classic_group(
                    group, member, f"removing member {member.member_id()} on heartbeat expiration.")
        return EMPTY_RESULT

    def _remove_member_and_update_classic_group(self, group: ClassicGroup, member: ClassicGroupMember,
                                                reason: str) -> CoordinatorResult[None, CoordinatorRecord]:
        # a member parked in a join (a static member whose session expired, say) is answered first
        group.complete_join_future(member, join_group_response(member_id=UNKNOWN_MEMBER_ID,
                                                               error_code=ErrorCode.unknown_member_id))
        group.remove(member.member_id())

        if group.is_in_state(STABLE) or group.is_in_state(COMPLETING_REBALANCE):
            return self._maybe_prepare_rebalance_or_complete_join(group, reason)
        if group.is_in_state(PREPARING_REBALANCE) and group.has_all_members_joined():
            return self._complete_classic_group_join(group)
        return EMPTY_RESULT

    def _remove_pending_member_and_update_classic_group(
            self, group: ClassicGroup, member_id: str) -> CoordinatorResult[None, CoordinatorRecord]:
        group.remove(member_id)
        if group.is_in_state(PREPARING_REBALANCE) and group.has_all_members_joined():
            return self._complete_classic_group_join(group)
        return EMPTY_RESULT

    def _update_member_then_rebalance_or_complete_join(
            self, request: JoinGroupRequest, group: ClassicGroup, member: ClassicGroupMember, join_reason: str,
            response_future: CompletableFuture[JoinGroupResponse]) -> CoordinatorResult[None, CoordinatorRecord]:
        group.update_member(member, request.protocols, _ms(request.rebalance_timeout), _ms(request.session_timeout),
                            response_future)
        return self._maybe_prepare_rebalance_or_complete_join(group, join_reason)

    def _add_member_then_rebalance_or_complete_join(
            self, context: RequestContext, request: JoinGroupRequest, group: ClassicGroup, member_id: str,
            response_future: CompletableFuture[JoinGroupResponse]) -> CoordinatorResult[None, CoordinatorRecord]:
        member = ClassicGroupMember(member_id, request.group_instance_id, context.client_id(),
                                    str(context.client_address), _ms(request.rebalance_timeout),
                                    _ms(request.session_timeout), request.protocol_type, list(request.protocols))
        member.set_is_new(True)

        # a member joining during the initial rebalance delays its end (KIP-134)
        if group.is_in_state(PREPARING_REBALANCE) and group.previous_state() == EMPTY:
            group.set_new_member_added(True)

        group.add(member, response_future)

        # a new member gets the new-member join timeout rather than its session timeout, so that a member that
        # disconnected while parked is removed sooner
        self._reschedule_classic_group_member_heartbeat(group, member,
                                                        self._classic_group_new_member_join_timeout_ms)

        return self._maybe_prepare_rebalance_or_complete_join(
            group, f"Adding new member {member_id} with group instance id {request.group_instance_id}; client reason: "
            f"{_join_reason(request)}")

    def _maybe_prepare_rebalance_or_complete_join(self, group: ClassicGroup,
                                                  reason: str) -> CoordinatorResult[None, CoordinatorRecord]:
        if group.can_rebalance():
            return self.prepare_rebalance(group, reason)
        return self._maybe_complete_join_phase(group)

    def prepare_rebalance(self, group: ClassicGroup, reason: str) -> CoordinatorResult[None, CoordinatorRecord]:
        """Moves the group to PreparingRebalance and sets the timer that ends the join phase; an empty group
        waits the initial rebalance delay first."""
        # members waiting for their assignment must rejoin instead
        if group.is_in_state(COMPLETING_REBALANCE):
            self._reset_and_propagate_assignment_with_error(group, Errors.REBALANCE_IN_PROGRESS)

        # the sync phase of the old generation is over
        self._remove_sync_expiration(group)

        is_initial_rebalance = group.is_in_state(EMPTY)
        if is_initial_rebalance:
            delay_ms = self._classic_group_initial_rebalance_delay_ms
            remaining_ms = max(group.rebalance_timeout_ms() - self._classic_group_initial_rebalance_delay_ms, 0)
            group_id = group.group_id()
            self._timer.schedule(
                classic_group_join_key(group_id), delay_ms, False,
                lambda: self._try_complete_initial_rebalance_else_schedule(group_id, delay_ms, remaining_ms))

        group.transition_to(PREPARING_REBALANCE)

        self._log.info("Preparing to rebalance group %s in state %s with old generation %s (reason: %s).",
                       group.group_id(), group.current_state(), group.generation_id(), reason)

        return EMPTY_RESULT if is_initial_rebalance else self._maybe_complete_join_else_schedule(group)

    def _maybe_complete_join_else_schedule(self, group: ClassicGroup) -> CoordinatorResult[None, CoordinatorRecord]:
        group_id = group.group_id()
        if group.has_all_members_joined():
            return self._complete_classic_group_join(group)
        self._timer.schedule(classic_group_join_key(group_id), group.rebalance_timeout_ms(), False,
                             lambda: self._complete_classic_group_join_by_id(group_id))
        return EMPTY_RESULT

    def _try_complete_initial_rebalance_else_schedule(self, group_id: str, delay_ms: int,
                                                      remaining_ms: int) -> CoordinatorResult[None, CoordinatorRecord]:
        """The initial rebalance's delay ended: if members kept arriving, wait again (up to the rebalance
        timeout), else complete the join phase."""
        try:
            group = self.get_or_maybe_create_classic_group(group_id, False)
        except (UnknownMemberIdException, GroupIdNotFoundException):
            self._log.debug("Cannot find the group, skipping the initial rebalance stage.")
            return EMPTY_RESULT

        if group.new_member_added() and remaining_ms != 0:
            group.set_new_member_added(False)
            new_delay_ms = min(self._classic_group_initial_rebalance_delay_ms, remaining_ms)
            new_remaining_ms = max(remaining_ms - delay_ms, 0)
            self._timer.schedule(
                classic_group_join_key(group_id), new_delay_ms, False,
                lambda: self._try_complete_initial_rebalance_else_schedule(group_id, new_delay_ms,
                                                                           new_remaining_ms))
            return EMPTY_RESULT
        return self._complete_classic_group_join(group)

    def _reset_and_propagate_assignment_with_error(self, group: ClassicGroup, error: Errors) -> None:
        if not group.is_in_state(COMPLETING_REBALANCE):
            raise IllegalStateException(f"Group {group.group_id()} must be in {COMPLETING_REBALANCE.name} state but "
                                        f"is in {group.current_state()}.")
        for member in group.all_members():
            member.set_assignment(ClassicGroupMember.EMPTY_ASSIGNMENT)
        self._propagate_assignment(group, error)

    def _set_and_propagate_assignment(self, group: ClassicGroup, assignment: Mapping[str, bytes]) -> None:
        if not group.is_in_state(COMPLETING_REBALANCE):
            raise IllegalStateException("The group must be in CompletingRebalance state to set and propagate "
                                        "assignment.")
        for member in group.all_members():
            member.set_assignment(assignment.get(member.member_id(), ClassicGroupMember.EMPTY_ASSIGNMENT))
        self._propagate_assignment(group, Errors.NONE)

    def _propagate_assignment(self, group: ClassicGroup, error: Errors) -> None:
        """Answers every parked sync; the protocol is sent only with a success."""
        protocol_name = group.protocol_name() if error == Errors.NONE else None
        protocol_type = group.protocol_type() if error == Errors.NONE else None
        for member in group.all_members():
            if not member.has_assignment() and error == Errors.NONE:
                self._log.warning("Sending empty assignment to member %s of %s for generation %s with no errors",
                                  member.member_id(), group.group_id(), group.generation_id())
            if group.complete_sync_future(member, sync_group_response(
                    protocol_name=protocol_name, protocol_type=protocol_type, assignment=member.assignment(),
                    error_code=ErrorCode(error.code))):
                # the member's session restarts from its sync response
                self.reschedule_classic_group_member_heartbeat(group, member)

    def reschedule_classic_group_member_heartbeat(self, group: ClassicGroup, member: ClassicGroupMember) -> None:
        self._reschedule_classic_group_member_heartbeat(group, member, member.session_timeout_ms())

    def _reschedule_classic_group_member_heartbeat(self, group: ClassicGroup, member: ClassicGroupMember,
                                                   timeout_ms: int | None = None) -> None:
        if timeout_ms is None:
            timeout_ms = member.session_timeout_ms()
        group_id, member_id = group.group_id(), member.member_id()
        self._timer.schedule(classic_group_heartbeat_key(group_id, member_id), timeout_ms, False,
                             lambda: self._expire_classic_group_member_heartbeat(group_id, member_id))

    def _remove_sync_expiration(self, group: ClassicGroup) -> None:
        group.clear_pending_sync_members()
        self._timer.cancel(classic_group_sync_key(group.group_id()))

    def _expire_pending_sync(self, group_id: str, generation_id: int) -> CoordinatorResult[None, CoordinatorRecord]:
        """The sync phase timed out: the members that did not sync are removed and the group rebalances."""
        try:
            group = self.get_or_maybe_create_classic_group(group_id, False)
        except (UnknownMemberIdException, GroupIdNotFoundException):
            self._log.debug("Received notification of sync expiration for an unknown classic group %s.", group_id)
            return EMPTY_RESULT

        if generation_id != group.generation_id():
            self._log.error("Received unexpected notification of sync expiration for %s with an old generation %s "
                            "while the group has %s.", group.group_id(), generation_id, group.generation_id())
        elif group.is_in_state(DEAD) or group.is_in_state(EMPTY) or group.is_in_state(PREPARING_REBALANCE):
            self._log.error("Received unexpected notification of sync expiration after group %s already "
                            "transitioned to %s state.", group.group_id(), group.state_as_string())
        elif group.is_in_state(COMPLETING_REBALANCE) or group.is_in_state(STABLE):
            if not group.has_received_sync_from_all_members():
                pending_sync_members = set(group.all_pending_sync_members())
                for member_id in pending_sync_members:
                    group.remove(member_id)
                    self._timer.cancel(classic_group_heartbeat_key(group.group_id(), member_id))
                self._log.debug("Group %s removed members who haven't sent their sync requests: %s",
                                group.group_id(), pending_sync_members)
                return self.prepare_rebalance(group, f"Removing {pending_sync_members} on pending sync request "
                                                     "expiration")
        return EMPTY_RESULT

    def _accept_joining_member(self, group: ClassicGroup, member_id: str) -> bool:
        """Whether the group has room for the member (a member already in, or parked, always has)."""
        state = group.current_state()
        if state in (EMPTY, DEAD):
            return True
        if state == PREPARING_REBALANCE:
            member = group.member(member_id) if group.has_member(member_id) else None
            return (member is not None and member.is_awaiting_join()) or \
                group.num_awaiting_join_response() < self._classic_group_max_size
        if state in (COMPLETING_REBALANCE, STABLE):
            return group.has_member(member_id) or group.num_members() < self._classic_group_max_size
        raise IllegalStateException(f"Unknown group state: {group.state_as_string()}")

    def _update_static_member_then_rebalance_or_complete_join(
            self, context: RequestContext, request: JoinGroupRequest, group: ClassicGroup, old_member_id: str,
            new_member_id: str, response_future: CompletableFuture[JoinGroupResponse],
    ) -> CoordinatorResult[None, CoordinatorRecord]:
        """A known static member rejoined with a new member id: it replaces its old self; in a stable group whose
        protocol stays, without a rebalance (the group is written, and the change undone if that fails)."""
        current_leader = group.leader_or_null()
        new_member = group.replace_static_member(request.group_instance_id, old_member_id, new_member_id)

        # the old member's session timer goes with its id
        self.reschedule_classic_group_member_heartbeat(group, new_member)

        old_rebalance_timeout_ms = new_member.rebalance_timeout_ms()
        old_session_timeout_ms = new_member.session_timeout_ms()
        old_protocols = new_member.supported_protocols()

        group.update_member(new_member, request.protocols, _ms(request.rebalance_timeout),
                            _ms(request.session_timeout), response_future)

        if group.is_in_state(STABLE):
            group_instance_id = request.group_instance_id
            selected_protocol_for_next_generation = group.select_protocol()
            if (group.protocol_name() or "") == selected_protocol_for_next_generation:
                self._log.info("Static member which joins during Stable stage and doesn't affect the selected "
                               "protocol will not trigger a rebalance.")

                group_assignment = group.group_assignment()
                append_future: CompletableFuture[None] = CompletableFuture()

                def on_append(_: Any, t: BaseException | None) -> None:
                    if t is not None:
                        self._log.warning("Failed to persist metadata for group %s static member %s with group "
                                          "instance id %s due to %s. Reverting to old member id %s.",
                                          group.group_id(), new_member_id, group_instance_id, t, old_member_id)
                        # revert the replacement
                        group.update_member(new_member, old_protocols, old_rebalance_timeout_ms,
                                            old_session_timeout_ms, None)
                        old_member = group.replace_static_member(group_instance_id, new_member_id, old_member_id)
                        self.reschedule_classic_group_member_heartbeat(group, old_member)
                        response_future.complete(join_group_response(
                            member_id=UNKNOWN_MEMBER_ID, generation_id=group.generation_id(),
                            protocol_name=group.protocol_name(), protocol_type=group.protocol_type(),
                            leader=current_leader, skip_assignment=False,
                            error_code=ErrorCode(append_group_metadata_error_to_response_error(
                                Errors.for_exception(t)).code)))
                    elif _supports_skipping_assignment(context.api_version()):
                        # the leader gets the members but need not assign again (KIP-814)
                        is_leader = group.is_leader(new_member_id)
                        group.complete_join_future(new_member, join_group_response(
                            members=tuple(group.current_classic_group_members()) if is_leader else (),
                            member_id=new_member_id, generation_id=group.generation_id(),
                            protocol_name=group.protocol_name(), protocol_type=group.protocol_type(),
                            leader=group.leader_or_null(), skip_assignment=is_leader))
                    else:
                        group.complete_join_future(new_member, join_group_response(
                            member_id=new_member_id, generation_id=group.generation_id(),
                            protocol_name=group.protocol_name(), protocol_type=group.protocol_type(),
                            leader=current_leader, skip_assignment=False))

                append_future.when_complete(on_append)
                records = [coordinator_record_helpers.new_group_metadata_record(
                    group, group_assignment, self._metadata_image.features.metadata_version)]
                return CoordinatorResult(records, None, append_future=append_future, replay_records=False)
            return self._maybe_prepare_rebalance_or_complete_join(
                group, f"Group's selectedProtocol will change because static member {new_member.member_id()} with "
                f"instance id {group_instance_id} joined with change of protocol; client reason: "
                f"{_join_reason(request)}")
        if group.is_in_state(COMPLETING_REBALANCE):
            # the leader's assignment is stale (it names the old member id): rebalance again
            return self.prepare_rebalance(
                group, f"Updating metadata for static member {new_member.member_id()} with instance id "
                f"{request.group_instance_id}; client reason: {_join_reason(request)}")
        if group.is_in_state(EMPTY) or group.is_in_state(DEAD):
            raise IllegalStateException(f"Group {group.group_id()} was not supposed to be in the state "
                                        f"{group.state_as_string()} when the unknown static member "
                                        f"{request.group_instance_id} rejoins.")
        return self._maybe_complete_join_phase(group)

    @step("GC.sync")
    def classic_group_sync(self, context: RequestContext, request: SyncGroupRequest,
                           response_future: CompletableFuture[SyncGroupResponse],
                           ) -> CoordinatorResult[None, CoordinatorRecord]:
        """Handles a SyncGroup; the response completes `response_future` (for the leader, once the assignment
        is written)."""
        try:
            group = self.group(request.group_id)
        except GroupIdNotFoundException:
            response_future.complete(sync_group_response(error_code=ErrorCode.unknown_member_id))
            return EMPTY_RESULT

        if group.is_empty():
            response_future.complete(sync_group_response(error_code=ErrorCode.unknown_member_id))
            return EMPTY_RESULT

        if group.type() == CLASSIC:
            return self._classic_group_sync_to_classic_group(group, context, request,  # type: ignore[arg-type]
                                                             response_future)
        return self._classic_group_sync_to_consumer_group(group, context, request,  # type: ignore[arg-type]
                                                          response_future)

    def _classic_group_sync_to_classic_group(self, group: ClassicGroup, context: RequestContext,
                                             request: SyncGroupRequest,
                                             response_future: CompletableFuture[SyncGroupResponse],
                                             ) -> CoordinatorResult[None, CoordinatorRecord]:
        group_id = request.group_id
        member_id = request.member_id
        error_opt = self._validate_sync_group(group, request)
        if error_opt is not None:
            response_future.complete(sync_group_response(error_code=ErrorCode(error_opt.code)))
        elif group.is_in_state(PREPARING_REBALANCE):
            response_future.complete(sync_group_response(error_code=ErrorCode.rebalance_in_progress))
        elif group.is_in_state(COMPLETING_REBALANCE):
            member = group.member(member_id)
            assert member is not None
            member.set_awaiting_sync_future(response_future)
            self._remove_pending_sync_member(group, request.member_id)

            # the leader's sync carries the assignment: it is written, then every parked sync is answered
            if group.is_leader(member_id):
                self._log.info("Assignment received from leader %s for group %s for generation %s. The group has %s "
                               "members, %s of which are static.", member_id, group_id, group.generation_id(),
                               group.num_members(), len(group.all_static_member_ids()))

                assignment: dict[str, bytes] = {a.member_id: a.assignment for a in request.assignments}
                members_with_missing_assignment = {m.member_id(): ClassicGroupMember.EMPTY_ASSIGNMENT
                                                   for m in group.all_members() if m.member_id() not in assignment}
                assignment.update(members_with_missing_assignment)
                if members_with_missing_assignment:
                    self._log.warning("Setting empty assignments for members %s of %s for generation %s.",
                                      members_with_missing_assignment, group_id, group.generation_id())

                append_future: CompletableFuture[None] = CompletableFuture()

                def on_append(_: Any, t: BaseException | None) -> None:
                    # the group may have moved on meanwhile
                    if group.is_in_state(COMPLETING_REBALANCE) and request.generation_id == group.generation_id():
                        if t is not None:
                            error = append_group_metadata_error_to_response_error(Errors.for_exception(t))
                            self._reset_and_propagate_assignment_with_error(group, error)
                            self._maybe_prepare_rebalance_or_complete_join(
                                group, f"Error {error} when storing group assignmentduring SyncGroup (member: "
                                f"{member_id}).")
                        else:
                            self._set_and_propagate_assignment(group, assignment)
                            group.transition_to(STABLE)

                append_future.when_complete(on_append)
                records = [coordinator_record_helpers.new_group_metadata_record(
                    group, assignment, self._metadata_image.features.metadata_version)]
                return CoordinatorResult(records, None, append_future=append_future, replay_records=False)
        elif group.is_in_state(STABLE):
            self._remove_pending_sync_member(group, member_id)
            # the member missed its sync response: it gets its assignment again
            member = group.member(member_id)
            assert member is not None
            response_future.complete(sync_group_response(
                protocol_type=group.protocol_type(), protocol_name=group.protocol_name(),
                assignment=member.assignment(), error_code=ErrorCode.none))
        elif group.is_in_state(DEAD):
            raise IllegalStateException(f"Reached unexpected condition for Dead group {group_id}")
        return EMPTY_RESULT

    def _classic_group_sync_to_consumer_group(self, group: ConsumerGroup, context: RequestContext,
                                              request: SyncGroupRequest,
                                              response_future: CompletableFuture[SyncGroupResponse],
                                              ) -> CoordinatorResult[None, CoordinatorRecord]:
        """A classic member of a consumer group syncs: it gets its current assignment, in the consumer protocol."""
        group_id = request.group_id
        member_id = request.member_id
        instance_id = request.group_instance_id
        member = self._validate_consumer_group_member(group, member_id, instance_id)

        self._throw_if_member_does_not_use_classic_protocol(member)
        self._throw_if_generation_id_unmatched(member.member_id(), member.member_epoch(), request.generation_id)
        self._throw_if_classic_protocol_unmatched(member, request.protocol_type, request.protocol_name)
        self._throw_if_rebalance_in_progress(group, member)

        append_future: CompletableFuture[None] = CompletableFuture()

        def on_append(_: Any, t: BaseException | None) -> None:
            if t is None:
                self._cancel_consumer_group_sync_timeout(group_id, member_id)
                self._schedule_consumer_group_session_timeout(group_id, member_id,
                                                              member.classic_protocol_session_timeout())
                response_future.complete(sync_group_response(
                    protocol_type=request.protocol_type, protocol_name=request.protocol_name,
                    assignment=self._prepare_assignment(member)))

        append_future.when_complete(on_append)
        return CoordinatorResult([], None, append_future=append_future, replay_records=False)

    def _prepare_assignment(self, member: ConsumerGroupMember) -> bytes:
        """The member's assigned partitions in the consumer protocol version of its own metadata."""
        from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import (
            to_consumer_protocol_assignment,
        )
        try:
            classic_member_metadata = member.classic_member_metadata()
            assert classic_member_metadata is not None
            version = consumer_protocol.deserialize_version(
                ByteBuffer.wrap(classic_member_metadata.supported_protocols[0].metadata))
            return bytes(consumer_protocol.serialize_assignment(
                to_consumer_protocol_assignment(member.assigned_partitions(), self._metadata_image.topics),
                version).array())
        except SchemaException as e:
            raise IllegalStateException("Malformed embedded consumer protocol in version deserialization.") from e

    def _validate_sync_group(self, group: ClassicGroup, request: SyncGroupRequest) -> Errors | None:
        if group.is_in_state(DEAD):
            # the group was unloaded or deleted meanwhile: the member must find the coordinator again
            return Errors.COORDINATOR_NOT_AVAILABLE
        try:
            group.validate_member(request.member_id, request.group_instance_id, "sync-group")
        except KafkaException as ex:
            return Errors.for_exception(ex)
        if request.generation_id != group.generation_id():
            return Errors.ILLEGAL_GENERATION
        if _is_protocol_inconsistent(request.protocol_type, group.protocol_type()) or \
                _is_protocol_inconsistent(request.protocol_name, group.protocol_name()):
            return Errors.INCONSISTENT_GROUP_PROTOCOL
        return None

    def _remove_pending_sync_member(self, group: ClassicGroup, member_id: str) -> None:
        group.remove_pending_sync_member(member_id)
        sync_key = classic_group_sync_key(group.group_id())
        state = group.current_state()
        if state in (DEAD, EMPTY, PREPARING_REBALANCE):
            self._timer.cancel(sync_key)
        elif state in (COMPLETING_REBALANCE, STABLE):
            if group.has_received_sync_from_all_members():
                self._timer.cancel(sync_key)
        else:
            raise IllegalStateException(f"Unknown group state: {group.state_as_string()}")

    @step("GC.classic")
    def classic_group_heartbeat(self, context: RequestContext,
                                request: HeartbeatRequest) -> CoordinatorResult[HeartbeatResponse, CoordinatorRecord]:
        """Handles a classic Heartbeat (of a classic group, or of a classic member of a consumer group)."""
        try:
            group = self.group(request.group_id)
        except GroupIdNotFoundException as e:
            raise UnknownMemberIdException(f"Group {request.group_id} not found.") from e

        if group.type() == CLASSIC:
            return self._classic_group_heartbeat_to_classic_group(group, context, request)  # type: ignore[arg-type]
        return self._classic_group_heartbeat_to_consumer_group(group, context, request)  # type: ignore[arg-type]

    def _classic_group_heartbeat_to_classic_group(
            self, group: ClassicGroup, context: RequestContext,
            request: HeartbeatRequest) -> CoordinatorResult[HeartbeatResponse, CoordinatorRecord]:
        self._validate_classic_group_heartbeat(group, request.member_id, request.group_instance_id,
                                               request.generation_id)
        state = group.current_state()
        if state == EMPTY:
            return CoordinatorResult([], classic_heartbeat_response(Errors.UNKNOWN_MEMBER_ID))
        if state == PREPARING_REBALANCE:
            self.reschedule_classic_group_member_heartbeat(group, group.member(request.member_id))
            return CoordinatorResult([], classic_heartbeat_response(Errors.REBALANCE_IN_PROGRESS))
        if state in (COMPLETING_REBALANCE, STABLE):
            # a heartbeat during CompletingRebalance keeps the member alive until the leader syncs
            self.reschedule_classic_group_member_heartbeat(group, group.member(request.member_id))
            return CoordinatorResult([], classic_heartbeat_response())
        raise IllegalStateException(f"Reached unexpected state {group.current_state()} for group "
                                    f"{group.group_id()}")

    @staticmethod
    def _validate_classic_group_heartbeat(group: ClassicGroup, member_id: str, group_instance_id: str | None,
                                          generation_id: int) -> None:
        if group.is_in_state(DEAD):
            raise CoordinatorNotAvailableException("The coordinator is not available.")
        group.validate_member(member_id, group_instance_id, "heartbeat")
        if generation_id != group.generation_id():
            raise IllegalGenerationException("Specified group generation id is not valid.")

    def _classic_group_heartbeat_to_consumer_group(
            self, group: ConsumerGroup, context: RequestContext,
            request: HeartbeatRequest) -> CoordinatorResult[HeartbeatResponse, CoordinatorRecord]:
        """A classic member of a consumer group heartbeats: it learns of a rebalance (it must rejoin) through
        REBALANCE_IN_PROGRESS."""
        group_id = request.group_id
        member_id = request.member_id
        instance_id = request.group_instance_id
        member = self._validate_consumer_group_member(group, member_id, instance_id)

        self._throw_if_member_does_not_use_classic_protocol(member)
        self._throw_if_generation_id_unmatched(member_id, member.member_epoch(), request.generation_id)

        self._schedule_consumer_group_session_timeout(group_id, member_id, member.classic_protocol_session_timeout())

        error = Errors.NONE
        # the member rejoins when the group moved on, when it must revoke partitions, or when the partitions it
        # waits for are free
        if member.member_epoch() < group.group_epoch() or member.state() == MemberState.UNREVOKED_PARTITIONS or (
                member.state() == MemberState.UNRELEASED_PARTITIONS
                and not group.waiting_on_unreleased_partition(member)):
            error = Errors.REBALANCE_IN_PROGRESS
            self._schedule_consumer_group_join_timeout_if_absent(group_id, member_id, member.rebalance_timeout_ms())

        return CoordinatorResult([], classic_heartbeat_response(error))

    def _validate_consumer_group_member(self, group: ConsumerGroup, member_id: str,
                                        instance_id: str | None) -> ConsumerGroupMember:
        if instance_id is None:
            return group.get_or_maybe_create_member(member_id, False)
        member = group.static_member(instance_id)
        if member is None:
            raise UnknownMemberIdException(
                f"Member with instance id {instance_id} is not a member of group {group.group_id()}.")
        self._throw_if_instance_id_is_fenced(member, group.group_id(), member_id, instance_id)
        return member

    @span("GroupMetadataManager.classicGroupLeave")
    def classic_group_leave(self, context: RequestContext,
                            request: LeaveGroupRequest) -> CoordinatorResult[LeaveGroupResponse, CoordinatorRecord]:
        """Handles a LeaveGroup of one or more members (each answered on its own)."""
        try:
            group = self.group(request.group_id)
        except GroupIdNotFoundException as e:
            raise UnknownMemberIdException(f"Group {request.group_id} not found.") from e

        if group.type() == CLASSIC:
            return self._classic_group_leave_to_classic_group(group, context, request)  # type: ignore[arg-type]
        return self._classic_group_leave_to_consumer_group(group, context, request)  # type: ignore[arg-type]

    def _classic_group_leave_to_consumer_group(
            self, group: ConsumerGroup, context: RequestContext,
            request: LeaveGroupRequest) -> CoordinatorResult[LeaveGroupResponse, CoordinatorRecord]:
        group_id = group.group_id()
        member_responses: list[MemberResponse] = []
        valid_leave_group_members: list[ConsumerGroupMember] = []
        records: list[CoordinatorRecord] = []

        for member_identity in request.members:
            member_id = member_identity.member_id
            instance_id = member_identity.group_instance_id
            reason = member_identity.reason if member_identity.reason is not None else "not provided"
            try:
                if instance_id is None:
                    member = group.get_or_maybe_create_member(member_id, False)
                    self._throw_if_member_does_not_use_classic_protocol(member)
                    self._log.info("[Group %s] Dynamic Member %s has left group through explicit `LeaveGroup` "
                                   "request; client reason: %s", group_id, member_id, reason)
                else:
                    static_member = group.static_member(instance_id)
                    self._throw_if_static_member_is_unknown(static_member, instance_id)
                    assert static_member is not None
                    member = static_member
                    # an admin's leave (no member id) may remove any static member
                    if member_id != UNKNOWN_MEMBER_ID:
                        self._throw_if_instance_id_is_fenced(member, group_id, member_id, instance_id)
                    self._throw_if_member_does_not_use_classic_protocol(member)
                    member_id = member.member_id()
                    self._log.info("[Group %s] Static Member %s with instance id %s has left group through explicit "
                                   "`LeaveGroup` request; client reason: %s", group_id, member_id, instance_id,
                                   reason)

                self._remove_member(records, group_id, member_id)
                self._cancel_timers(group_id, member_id)
                member_responses.append(MemberResponse(member_id=member_id, group_instance_id=instance_id,
                                                       error_code=ErrorCode.none))
                valid_leave_group_members.append(member)
            except KafkaException as e:
                member_responses.append(MemberResponse(member_id=member_id, group_instance_id=instance_id,
                                                       error_code=ErrorCode(Errors.for_exception(e).code)))

        if records:
            # the subscription metadata without the members that left
            subscription_metadata = group.compute_subscription_metadata(
                group.compute_subscribed_topic_names(valid_leave_group_members), self._metadata_image.topics,
                self._metadata_image.cluster)
            if dict(subscription_metadata) != dict(group.subscription_metadata()):
                self._log.info("[GroupId %s] Computed new subscription metadata: %s.", group.group_id(),
                               subscription_metadata)
                records.append(coordinator_record_helpers.new_group_subscription_metadata_record(
                    group.group_id(), subscription_metadata))
            records.append(coordinator_record_helpers.new_group_epoch_record(group_id, group.group_epoch() + 1))

        return CoordinatorResult(records, leave_group_response(members=tuple(member_responses)))

    def _classic_group_leave_to_classic_group(
            self, group: ClassicGroup, context: RequestContext,
            request: LeaveGroupRequest) -> CoordinatorResult[LeaveGroupResponse, CoordinatorRecord]:
        if group.is_in_state(DEAD):
            return CoordinatorResult([], leave_group_response(error_code=ErrorCode.coordinator_not_available))

        member_responses: list[MemberResponse] = []
        for member in request.members:
            reason = member.reason if member.reason is not None else "not provided"
            if member.member_id == UNKNOWN_MEMBER_ID:
                # an admin removes a static member by its instance id alone
                if member.group_instance_id is not None and group.has_static_member(member.group_instance_id):
                    self._remove_current_member_from_classic_group(
                        group, group.static_member_id(member.group_instance_id), reason)
                    member_responses.append(MemberResponse(member_id=member.member_id,
                                                           group_instance_id=member.group_instance_id,
                                                           error_code=ErrorCode.none))
                else:
                    member_responses.append(MemberResponse(member_id=member.member_id,
                                                           group_instance_id=member.group_instance_id,
                                                           error_code=ErrorCode.unknown_member_id))
            elif group.is_pending_member(member.member_id):
                group.remove(member.member_id)
                self._timer.cancel(classic_group_heartbeat_key(group.group_id(), member.member_id))
                self._log.info("[Group %s] Pending member %s has left group through explicit `LeaveGroup` request; "
                               "client reason: %s", group.group_id(), member.member_id, reason)
                member_responses.append(MemberResponse(member_id=member.member_id,
                                                       group_instance_id=member.group_instance_id,
                                                       error_code=ErrorCode.none))
            else:
                try:
                    group.validate_member(member.member_id, member.group_instance_id, "leave-group")
                    self._remove_current_member_from_classic_group(group, member.member_id, reason)
                    member_responses.append(MemberResponse(member_id=member.member_id,
                                                           group_instance_id=member.group_instance_id,
                                                           error_code=ErrorCode.none))
                except KafkaException as e:
                    member_responses.append(MemberResponse(member_id=member.member_id,
                                                           group_instance_id=member.group_instance_id,
                                                           error_code=ErrorCode(Errors.for_exception(e).code)))

        valid_leave_group_members = [response.member_id for response in member_responses
                                     if response.error_code == ErrorCode.none]

        reason = f"explicit `LeaveGroup` request for ({', '.join(valid_leave_group_members)}) members."
        coordinator_result = EMPTY_RESULT

        if valid_leave_group_members:
            state = group.current_state()
            if state in (STABLE, COMPLETING_REBALANCE):
                coordinator_result = self._maybe_prepare_rebalance_or_complete_join(group, reason)
            elif state == PREPARING_REBALANCE:
                coordinator_result = self._maybe_complete_join_phase(group)

        return CoordinatorResult(coordinator_result.records(),
                                 leave_group_response(members=tuple(member_responses)),
                                 append_future=coordinator_result.append_future(),
                                 replay_records=coordinator_result.replay_records())

    def _remove_current_member_from_classic_group(self, group: ClassicGroup, member_id: str | None,
                                                  reason: str) -> None:
        member = group.member(member_id)  # type: ignore[arg-type]
        assert member is not None and member_id is not None
        self._timer.cancel(classic_group_heartbeat_key(group.group_id(), member_id))
        self._log.info("[Group %s] Member %s has left group through explicit `LeaveGroup` request; client reason: %s",
                       group.group_id(), member_id, reason)

        # a member parked in a join is answered
        group.complete_join_future(member, join_group_response(member_id=UNKNOWN_MEMBER_ID,
                                                               error_code=ErrorCode.unknown_member_id))
        group.remove(member.member_id())

    def create_group_tombstone_records(self, group_or_id: Group | str, records: list[CoordinatorRecord]) -> None:
        """Java's two overloads: by group id or by group."""
        group = self.group(group_or_id) if isinstance(group_or_id, str) else group_or_id
        group.create_group_tombstone_records(records)

    def validate_delete_group(self, group_id: str) -> None:
        self.group(group_id).validate_delete_group()

    def maybe_delete_group(self, group_id: str, records: list[CoordinatorRecord]) -> None:
        """Deletes the group if it is empty (its offsets expired, say)."""
        group = self._groups.get(group_id)
        if group is not None and group.is_empty():
            self.create_group_tombstone_records(group_id, records)

    @staticmethod
    def _is_empty_classic_group(group: Group | None) -> bool:
        return group is not None and group.type() == CLASSIC and group.is_empty()

    @staticmethod
    def _is_empty_consumer_group(group: Group | None) -> bool:
        return group is not None and group.type() == CONSUMER and group.is_empty()

    def _maybe_delete_empty_classic_group(self, group: Group, records: list[CoordinatorRecord]) -> bool:
        if self._is_empty_classic_group(group):
            self.create_group_tombstone_records(group, records)
            return True
        return False

    def _maybe_delete_empty_consumer_group(self, group_id: str, records: list[CoordinatorRecord]) -> None:
        group = self._groups.get(group_id, LATEST_EPOCH)
        if self._is_empty_consumer_group(group):
            assert group is not None
            self.create_group_tombstone_records(group, records)
            self._remove_group(group_id)

    def group_ids(self) -> Set[str]:
        return frozenset(self._groups.key_set())


def _is_protocol_inconsistent(protocol_type_or_name: str | None, group_protocol_type_or_name: str | None) -> bool:
    return protocol_type_or_name is not None and group_protocol_type_or_name is not None and \
        group_protocol_type_or_name != protocol_type_or_name


def append_group_metadata_error_to_response_error(append_error: Errors) -> Errors:
    """The error a client is told when writing the group failed: storage errors become coordinator errors."""
    if append_error in (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.NOT_ENOUGH_REPLICAS, Errors.REQUEST_TIMED_OUT):
        return Errors.COORDINATOR_NOT_AVAILABLE
    if append_error in (Errors.NOT_LEADER_OR_FOLLOWER, Errors.KAFKA_STORAGE_ERROR):
        return Errors.NOT_COORDINATOR
    if append_error in (Errors.MESSAGE_TOO_LARGE, Errors.RECORD_LIST_TOO_LARGE, Errors.INVALID_FETCH_SIZE):
        return Errors.UNKNOWN_SERVER_ERROR
    return append_error


def _requires_known_member_id_version(api_version: int) -> bool:
    # JoinGroupRequest.requiresKnownMemberId(apiVersion): KIP-394, v4+
    return api_version >= 4


def _requires_known_member_id(request: JoinGroupRequest, api_version: int) -> bool:
    # JoinGroupRequest.requiresKnownMemberId(request, apiVersion): a dynamic member joining without an id
    return request.group_instance_id is None and request.member_id == UNKNOWN_MEMBER_ID and \
        _requires_known_member_id_version(api_version)


def _supports_skipping_assignment(api_version: int) -> bool:
    # JoinGroupRequest.supportsSkippingAssignment: KIP-814, v9+
    return api_version >= 9


def _join_reason(request: JoinGroupRequest) -> str:
    return request.reason if request.reason else "not provided"


def group_session_timeout_key(group_id: str, member_id: str) -> str:
    return f"session-timeout-{group_id}-{member_id}"


def consumer_group_rebalance_timeout_key(group_id: str, member_id: str) -> str:
    return f"rebalance-timeout-{group_id}-{member_id}"


def classic_group_heartbeat_key(group_id: str, member_id: str) -> str:
    return f"heartbeat-{group_id}-{member_id}"


def classic_group_join_key(group_id: str) -> str:
    return f"join-{group_id}"


def classic_group_sync_key(group_id: str) -> str:
    return f"sync-{group_id}"


def consumer_group_join_key(group_id: str, member_id: str) -> str:
    return f"join-{group_id}-{member_id}"


def consumer_group_sync_key(group_id: str, member_id: str) -> str:
    return f"sync-{group_id}-{member_id}"


def _described_group(**fields: Any) -> DescribedGroup:
    defaults: dict[str, Any] = dict(error_code=ErrorCode.none, group_id="", group_state="", protocol_type="",
                                    protocol_data="", members=(), authorized_operations=-2147483648)
    return DescribedGroup(**{**defaults, **fields})


# Java's EMPTY_RESULT: no records, not replayed, its future already complete; compared by identity
_COMPLETED_FUTURE: CompletableFuture[None] = CompletableFuture.completed_future(None)
EMPTY_RESULT: CoordinatorResult[None, CoordinatorRecord] = CoordinatorResult(
    [], append_future=_COMPLETED_FUTURE, replay_records=False)
GroupMetadataManager.EMPTY_RESULT = EMPTY_RESULT  # type: ignore[attr-defined]

# Java's static helpers as GroupMetadataManager.x, as the tests call them
GroupMetadataManager.group_session_timeout_key = staticmethod(group_session_timeout_key)  # type: ignore[attr-defined]
GroupMetadataManager.consumer_group_rebalance_timeout_key = staticmethod(  # type: ignore[attr-defined]
    consumer_group_rebalance_timeout_key)
GroupMetadataManager.classic_group_heartbeat_key = staticmethod(classic_group_heartbeat_key)  # type: ignore[attr-defined]
GroupMetadataManager.classic_group_join_key = staticmethod(classic_group_join_key)  # type: ignore[attr-defined]
GroupMetadataManager.classic_group_sync_key = staticmethod(classic_group_sync_key)  # type: ignore[attr-defined]
GroupMetadataManager.consumer_group_join_key = staticmethod(consumer_group_join_key)  # type: ignore[attr-defined]
GroupMetadataManager.consumer_group_sync_key = staticmethod(consumer_group_sync_key)  # type: ignore[attr-defined]
GroupMetadataManager.append_group_metadata_error_to_response_error = staticmethod(  # type: ignore[attr-defined]
    append_group_metadata_error_to_response_error)

# the replay overloads by key type (share-group records are not ported)
_REPLAYERS: dict[type, Callable[[GroupMetadataManager, Any, Any], None]] = {
    GroupMetadataKey: GroupMetadataManager._replay_group_metadata,
    ConsumerGroupMetadataKey: GroupMetadataManager._replay_consumer_group_metadata,
    ConsumerGroupPartitionMetadataKey: GroupMetadataManager._replay_consumer_group_partition_metadata,
    ConsumerGroupMemberMetadataKey: GroupMetadataManager._replay_consumer_group_member_metadata,
    ConsumerGroupTargetAssignmentMetadataKey: GroupMetadataManager._replay_consumer_group_target_assignment_metadata,
    ConsumerGroupTargetAssignmentMemberKey: GroupMetadataManager._replay_consumer_group_target_assignment_member,
    ConsumerGroupCurrentMemberAssignmentKey: GroupMetadataManager._replay_consumer_group_current_member_assignment,
}
