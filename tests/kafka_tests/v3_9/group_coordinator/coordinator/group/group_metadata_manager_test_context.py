"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/GroupMetadataManagerTestContext.java
(Kafka 3.9).

A GroupMetadataManager on a mock time and timer that replays the records of each operation, as the runtime would,
and helpers that drive classic groups through their rebalances. Share groups are left out (not ported).

Kafka's request messages are mutable and its tests change them between sends (`request.setMemberId(...)`); kio's
are immutable, so the tests build a changed copy (dataclasses.replace). The request builders take milliseconds as
ints. The port's ApiKeys has no ConsumerGroupHeartbeat: its request context names the Heartbeat API, which the
manager does not read (it reads the client id and address only). A client address is "127.0.0.1", the port's
str(InetAddress.getLoopbackAddress()).
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Sequence
from typing import Any

from kio.schema.consumer_group_heartbeat.v0.request import ConsumerGroupHeartbeatRequest
from kio.schema.consumer_group_heartbeat.v0.request import TopicPartitions as HeartbeatTopicPartitions
from kio.schema.heartbeat.v4.request import HeartbeatRequest
from kio.schema.join_group.v9.request import JoinGroupRequest, JoinGroupRequestProtocol
from kio.schema.join_group.v9.response import JoinGroupResponse
from kio.schema.leave_group.v5.request import LeaveGroupRequest
from kio.schema.sync_group.v5.request import SyncGroupRequest, SyncGroupRequestAssignment
from kio.schema.sync_group.v5.response import SyncGroupResponse
from kio.static.primitive import i32Timedelta

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import ANONYMOUS
from kafka_edu.v3_9.clients.clients.consumer.consumer_partition_assignor import Subscription
from kafka_edu.v3_9.clients.clients.consumer.internals import consumer_protocol
from kafka_edu.v3_9.clients.common.errors.unknown_member_id_exception import UnknownMemberIdException
from kafka_edu.v3_9.clients.common.network.client_information import ClientInformation
from kafka_edu.v3_9.clients.common.network.listener_name import ListenerName
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.request_context import RequestContext
from kafka_edu.v3_9.clients.common.requests.request_header import RequestHeader
from kafka_edu.v3_9.clients.common.security.auth.security_protocol import SecurityProtocol
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.group_coordinator.coordinator.group import coordinator_record_helpers
from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import ClassicGroup
from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
from kafka_edu.v3_9.group_coordinator.coordinator.group.consumer_group_migration_policy import (
    ConsumerGroupMigrationPolicy,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record import CoordinatorRecord
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.group_metadata_key import GroupMetadataKey
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.group_metadata_value import GroupMetadataValue
from kafka_edu.v3_9.group_coordinator.coordinator.group.group_metadata_manager import (
    EMPTY_RESULT,
    GroupMetadataManager,
    classic_group_heartbeat_key,
    consumer_group_join_key,
    consumer_group_rebalance_timeout_key,
    consumer_group_sync_key,
    group_session_timeout_key,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_result import CoordinatorResult
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from kafka_edu.v3_9.server_common.server.common.api_message_and_version import ApiMessageAndVersion
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from kafka_edu.v3_9.server_common.server.util.mock_time import MockTime
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import SnapshotRegistry
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.mock_coordinator_timer import (
    ExpiredTimeout,
    MockCoordinatorTimer,
    ScheduledTimeout,
)
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.mock_partition_assignor import MockPartitionAssignor
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.modern.consumer.consumer_group_builder import (
    ConsumerGroupBuilder,
)

COMPLETING_REBALANCE = ClassicGroupState.COMPLETING_REBALANCE
PREPARING_REBALANCE = ClassicGroupState.PREPARING_REBALANCE
STABLE = ClassicGroupState.STABLE
EMPTY = ClassicGroupState.EMPTY
DEAD = ClassicGroupState.DEAD
UNKNOWN_MEMBER_ID = ""
INT_MAX = 2**31 - 1
DEFAULT_CLIENT_ID = "client"
DEFAULT_CLIENT_ADDRESS = "127.0.0.1"


def ms(value: int) -> i32Timedelta:
    return i32Timedelta.parse(datetime.timedelta(milliseconds=value))


def request_context(api_key: ApiKeys, api_version: int | None = None) -> RequestContext:
    version = api_key.latest_version if api_version is None else api_version
    return RequestContext(RequestHeader(api_key, version, DEFAULT_CLIENT_ID, 0), "1", DEFAULT_CLIENT_ADDRESS, 0,
                          ANONYMOUS, ListenerName.for_security_protocol(SecurityProtocol.PLAINTEXT),
                          SecurityProtocol.PLAINTEXT, ClientInformation.EMPTY, False)


def consumer_group_heartbeat_request(**fields: Any) -> ConsumerGroupHeartbeatRequest:
    """new ConsumerGroupHeartbeatRequestData() with the fields given; `rebalance_timeout_ms` is an int, and topic
    partitions may be given as (topic id, partitions) pairs."""
    rebalance_timeout_ms = fields.pop("rebalance_timeout_ms", -1)
    topic_partitions = fields.pop("topic_partitions", None)
    if topic_partitions is not None:
        topic_partitions = tuple(tp if isinstance(tp, HeartbeatTopicPartitions)
                                 else HeartbeatTopicPartitions(topic_id=tp[0], partitions=tuple(tp[1]))
                                 for tp in topic_partitions)
    subscribed = fields.pop("subscribed_topic_names", None)
    defaults: dict[str, Any] = dict(group_id="", member_id="", member_epoch=0, instance_id=None, rack_id=None,
                                    server_assignor=None)
    return ConsumerGroupHeartbeatRequest(
        **{**defaults, **fields}, rebalance_timeout=ms(rebalance_timeout_ms),
        subscribed_topic_names=None if subscribed is None else tuple(subscribed), topic_partitions=topic_partitions)


def assert_no_or_empty_result(timeouts: list[ExpiredTimeout[None, CoordinatorRecord]]) -> None:
    assert len(timeouts) <= 1
    for timeout in timeouts:
        assert timeout.result == EMPTY_RESULT


def to_protocols(*protocol_names: str) -> tuple[JoinGroupRequestProtocol, ...]:
    """Each protocol subscribes to one of foo, bar and baz, in turn."""
    topic_names = ["foo", "bar", "baz"]
    return tuple(JoinGroupRequestProtocol(
        name=name,
        metadata=bytes(consumer_protocol.serialize_subscription(
            Subscription([topic_names[i % len(topic_names)]])).array()))
        for i, name in enumerate(protocol_names))


def to_consumer_protocol(topic_names: Sequence[str], owned_partitions: Sequence[TopicPartition],
                         version: int = consumer_protocol.SUBSCRIPTION_HIGHEST_SUPPORTED_VERSION,
                         ) -> tuple[JoinGroupRequestProtocol, ...]:
    return (JoinGroupRequestProtocol(
        name="range",
        metadata=bytes(consumer_protocol.serialize_subscription(
            Subscription(topic_names, None, owned_partitions), version).array())),)


def new_group_metadata_record(group_id: str, value: GroupMetadataValue,
                              metadata_version: MetadataVersion) -> CoordinatorRecord:
    return CoordinatorRecord(ApiMessageAndVersion(GroupMetadataKey(group=group_id), 2),
                             ApiMessageAndVersion(value, metadata_version.group_metadata_value_version()))


class RebalanceResult:
    def __init__(self, generation_id: int, leader_id: str, leader_assignment: bytes, follower_id: str,
                 follower_assignment: bytes) -> None:
        self.generation_id = generation_id
        self.leader_id = leader_id
        self.leader_assignment = leader_assignment
        self.follower_id = follower_id
        self.follower_assignment = follower_assignment


class PendingMemberGroupResult:
    def __init__(self, leader_id: str, follower_id: str, pending_member_response: JoinGroupResponse) -> None:
        self.leader_id = leader_id
        self.follower_id = follower_id
        self.pending_member_response = pending_member_response


class JoinResult:
    def __init__(self, join_future: CompletableFuture[JoinGroupResponse],
                 coordinator_result: CoordinatorResult[None, CoordinatorRecord]) -> None:
        self.join_future = join_future
        self.records = coordinator_result.records()
        self.append_future = coordinator_result.append_future()


class SyncResult:
    def __init__(self, sync_future: CompletableFuture[SyncGroupResponse],
                 coordinator_result: CoordinatorResult[None, CoordinatorRecord]) -> None:
        self.sync_future = sync_future
        self.records = coordinator_result.records()
        self.append_future = coordinator_result.append_future()


class JoinGroupRequestBuilder:
    def __init__(self) -> None:
        self.group_id: str | None = None
        self.group_instance_id: str | None = None
        self.member_id: str | None = None
        self.protocol_type = "consumer"
        self.protocols: tuple[JoinGroupRequestProtocol, ...] = ()
        self.session_timeout_ms = 500
        self.rebalance_timeout_ms = 500
        self.reason: str | None = None

    def with_group_id(self, group_id: str) -> JoinGroupRequestBuilder:
        self.group_id = group_id
        return self

    def with_group_instance_id(self, group_instance_id: str | None) -> JoinGroupRequestBuilder:
        self.group_instance_id = group_instance_id
        return self

    def with_member_id(self, member_id: str) -> JoinGroupRequestBuilder:
        self.member_id = member_id
        return self

    def with_default_protocol_type_and_protocols(self) -> JoinGroupRequestBuilder:
        self.protocols = to_protocols("range")
        return self

    def with_protocol_superset(self) -> JoinGroupRequestBuilder:
        self.protocols = to_protocols("range", "roundrobin")
        return self

    def with_protocol_type(self, protocol_type: str) -> JoinGroupRequestBuilder:
        self.protocol_type = protocol_type
        return self

    def with_protocols(self, protocols: Sequence[JoinGroupRequestProtocol]) -> JoinGroupRequestBuilder:
        self.protocols = tuple(protocols)
        return self

    def with_rebalance_timeout_ms(self, rebalance_timeout_ms: int) -> JoinGroupRequestBuilder:
        self.rebalance_timeout_ms = rebalance_timeout_ms
        return self

    def with_session_timeout_ms(self, session_timeout_ms: int) -> JoinGroupRequestBuilder:
        self.session_timeout_ms = session_timeout_ms
        return self

    def with_reason(self, reason: str | None) -> JoinGroupRequestBuilder:
        self.reason = reason
        return self

    def build(self) -> JoinGroupRequest:
        return JoinGroupRequest(group_id=self.group_id, group_instance_id=self.group_instance_id,
                                member_id=self.member_id, protocol_type=self.protocol_type,
                                protocols=self.protocols, rebalance_timeout=ms(self.rebalance_timeout_ms),
                                session_timeout=ms(self.session_timeout_ms), reason=self.reason)


def with_timeouts(request: JoinGroupRequest, session_timeout_ms: int | None = None,
                  rebalance_timeout_ms: int | None = None, **fields: Any) -> JoinGroupRequest:
    """A changed copy of a JoinGroup request (Java's setters), timeouts in milliseconds."""
    if session_timeout_ms is not None:
        fields["session_timeout"] = ms(session_timeout_ms)
    if rebalance_timeout_ms is not None:
        fields["rebalance_timeout"] = ms(rebalance_timeout_ms)
    return dataclasses.replace(request, **fields)


class SyncGroupRequestBuilder:
    def __init__(self) -> None:
        self.group_id: str | None = None
        self.group_instance_id: str | None = None
        self.member_id: str | None = None
        self.protocol_type: str | None = "consumer"
        self.protocol_name: str | None = "range"
        self.generation_id = 0
        self.assignment: tuple[SyncGroupRequestAssignment, ...] = ()

    def with_group_id(self, group_id: str) -> SyncGroupRequestBuilder:
        self.group_id = group_id
        return self

    def with_group_instance_id(self, group_instance_id: str | None) -> SyncGroupRequestBuilder:
        self.group_instance_id = group_instance_id
        return self

    def with_member_id(self, member_id: str) -> SyncGroupRequestBuilder:
        self.member_id = member_id
        return self

    def with_generation_id(self, generation_id: int) -> SyncGroupRequestBuilder:
        self.generation_id = generation_id
        return self

    def with_protocol_type(self, protocol_type: str | None) -> SyncGroupRequestBuilder:
        self.protocol_type = protocol_type
        return self

    def with_protocol_name(self, protocol_name: str | None) -> SyncGroupRequestBuilder:
        self.protocol_name = protocol_name
        return self

    def with_assignment(self, assignment: Sequence[SyncGroupRequestAssignment]) -> SyncGroupRequestBuilder:
        self.assignment = tuple(assignment)
        return self

    def build(self) -> SyncGroupRequest:
        return SyncGroupRequest(group_id=self.group_id, group_instance_id=self.group_instance_id,
                                member_id=self.member_id, generation_id=self.generation_id,
                                protocol_type=self.protocol_type, protocol_name=self.protocol_name,
                                assignments=self.assignment)


class GroupMetadataManagerTestContext:

    class Builder:
        def __init__(self) -> None:
            self._time = MockTime()
            self._timer: MockCoordinatorTimer[None, CoordinatorRecord] = MockCoordinatorTimer(self._time)
            self._log_context = ""
            self._snapshot_registry = SnapshotRegistry(self._log_context)
            self._metadata_image: MetadataImage | None = None
            self._consumer_group_assignors: list[Any] | None = [MockPartitionAssignor("range")]
            self._consumer_group_builders: list[ConsumerGroupBuilder] = []
            self._consumer_group_max_size = INT_MAX
            self._consumer_group_metadata_refresh_interval_ms = INT_MAX
            self._classic_group_max_size = INT_MAX
            self._classic_group_initial_rebalance_delay_ms = 3000
            self._classic_group_new_member_join_timeout_ms = 5 * 60 * 1000
            self._classic_group_min_session_timeout_ms = 10
            self._classic_group_max_session_timeout_ms = 10 * 60 * 1000
            self._consumer_group_migration_policy = ConsumerGroupMigrationPolicy.DISABLED

        def with_metadata_image(self, metadata_image: MetadataImage) -> GroupMetadataManagerTestContext.Builder:
            self._metadata_image = metadata_image
            return self

        def with_consumer_group_assignors(self, assignors: list[Any]) -> GroupMetadataManagerTestContext.Builder:
            self._consumer_group_assignors = assignors
            return self

        def with_consumer_group(self, builder: ConsumerGroupBuilder) -> GroupMetadataManagerTestContext.Builder:
            self._consumer_group_builders.append(builder)
            return self

        def with_consumer_group_max_size(self, size: int) -> GroupMetadataManagerTestContext.Builder:
            self._consumer_group_max_size = size
            return self

        def with_consumer_group_metadata_refresh_interval_ms(
                self, interval_ms: int) -> GroupMetadataManagerTestContext.Builder:
            self._consumer_group_metadata_refresh_interval_ms = interval_ms
            return self

        def with_classic_group_max_size(self, size: int) -> GroupMetadataManagerTestContext.Builder:
            self._classic_group_max_size = size
            return self

        def with_classic_group_initial_rebalance_delay_ms(
                self, delay_ms: int) -> GroupMetadataManagerTestContext.Builder:
            self._classic_group_initial_rebalance_delay_ms = delay_ms
            return self

        def with_classic_group_min_session_timeout_ms(self, timeout_ms: int) -> GroupMetadataManagerTestContext.Builder:
            self._classic_group_min_session_timeout_ms = timeout_ms
            return self

        def with_classic_group_max_session_timeout_ms(self, timeout_ms: int) -> GroupMetadataManagerTestContext.Builder:
            self._classic_group_max_session_timeout_ms = timeout_ms
            return self

        def with_consumer_group_migration_policy(
                self, policy: ConsumerGroupMigrationPolicy) -> GroupMetadataManagerTestContext.Builder:
            self._consumer_group_migration_policy = policy
            return self

        def build(self) -> GroupMetadataManagerTestContext:
            if self._metadata_image is None:
                self._metadata_image = MetadataImage.EMPTY
            if self._consumer_group_assignors is None:
                self._consumer_group_assignors = []

            context = GroupMetadataManagerTestContext(
                self._time, self._timer, self._snapshot_registry,
                GroupMetadataManager.Builder()
                .with_snapshot_registry(self._snapshot_registry)
                .with_log_context(self._log_context)
                .with_time(self._time)
                .with_timer(self._timer)
                .with_metadata_image(self._metadata_image)
                .with_consumer_group_heartbeat_interval(5000)
                .with_consumer_group_session_timeout(45000)
                .with_consumer_group_max_size(self._consumer_group_max_size)
                .with_consumer_group_assignors(self._consumer_group_assignors)
                .with_consumer_group_metadata_refresh_interval_ms(self._consumer_group_metadata_refresh_interval_ms)
                .with_classic_group_max_size(self._classic_group_max_size)
                .with_classic_group_min_session_timeout_ms(self._classic_group_min_session_timeout_ms)
                .with_classic_group_max_session_timeout_ms(self._classic_group_max_session_timeout_ms)
                .with_classic_group_initial_rebalance_delay_ms(self._classic_group_initial_rebalance_delay_ms)
                .with_classic_group_new_member_join_timeout_ms(self._classic_group_new_member_join_timeout_ms)
                .with_consumer_group_migration_policy(self._consumer_group_migration_policy)
                .build(),
                self._classic_group_initial_rebalance_delay_ms,
                self._classic_group_new_member_join_timeout_ms,
            )

            # twice, as Kafka does
            for builder in self._consumer_group_builders:
                for record in builder.build(self._metadata_image.topics):
                    context.replay(record)
            for builder in self._consumer_group_builders:
                for record in builder.build(self._metadata_image.topics):
                    context.replay(record)

            context.commit()
            return context

    def __init__(self, time: MockTime, timer: MockCoordinatorTimer[None, CoordinatorRecord],
                 snapshot_registry: SnapshotRegistry, group_metadata_manager: GroupMetadataManager,
                 classic_group_initial_rebalance_delay_ms: int, classic_group_new_member_join_timeout_ms: int) -> None:
        self.time = time
        self.timer = timer
        self.snapshot_registry = snapshot_registry
        self.group_metadata_manager = group_metadata_manager
        self.classic_group_initial_rebalance_delay_ms = classic_group_initial_rebalance_delay_ms
        self.classic_group_new_member_join_timeout_ms = classic_group_new_member_join_timeout_ms
        self.last_committed_offset = 0
        self.last_written_offset = 0
        snapshot_registry.get_or_create_snapshot(self.last_written_offset)

    def commit(self) -> None:
        last_committed_offset = self.last_committed_offset
        self.last_committed_offset = self.last_written_offset
        self.snapshot_registry.delete_snapshots_up_to(last_committed_offset)

    def rollback(self) -> None:
        self.last_written_offset = self.last_committed_offset
        self.snapshot_registry.revert_to_snapshot(self.last_committed_offset)

    def consumer_group_state(self, group_id: str) -> Any:
        return self.group_metadata_manager.consumer_group(group_id).state()

    def consumer_group_member_state(self, group_id: str, member_id: str) -> Any:
        return self.group_metadata_manager.consumer_group(group_id).get_or_maybe_create_member(
            member_id, False).state()

    def consumer_group_heartbeat(self, request: ConsumerGroupHeartbeatRequest) -> CoordinatorResult[Any, Any]:
        result = self.group_metadata_manager.consumer_group_heartbeat(request_context(ApiKeys.HEARTBEAT), request)
        if result.replay_records():
            for record in result.records():
                self.replay(record)
        return result

    def sleep(self, ms_: int) -> list[ExpiredTimeout[None, CoordinatorRecord]]:
        self.time.sleep(ms_)
        timeouts = self.timer.poll()
        for timeout in timeouts:
            if timeout.result.replay_records():
                for record in timeout.result.records():
                    self.replay(record)
        return timeouts

    def _assert_timeout(self, key: str, delay_ms: int) -> ScheduledTimeout[None, CoordinatorRecord]:
        timeout = self.timer.timeout(key)
        assert timeout is not None
        assert timeout.deadline_ms == self.time.milliseconds() + delay_ms
        return timeout

    def assert_session_timeout(self, group_id: str, member_id: str, delay_ms: int) -> None:
        self._assert_timeout(group_session_timeout_key(group_id, member_id), delay_ms)

    def assert_no_session_timeout(self, group_id: str, member_id: str) -> None:
        assert self.timer.timeout(group_session_timeout_key(group_id, member_id)) is None

    def assert_rebalance_timeout(self, group_id: str, member_id: str,
                                 delay_ms: int) -> ScheduledTimeout[None, CoordinatorRecord]:
        return self._assert_timeout(consumer_group_rebalance_timeout_key(group_id, member_id), delay_ms)

    def assert_no_rebalance_timeout(self, group_id: str, member_id: str) -> None:
        assert self.timer.timeout(consumer_group_rebalance_timeout_key(group_id, member_id)) is None

    def assert_join_timeout(self, group_id: str, member_id: str,
                            delay_ms: int) -> ScheduledTimeout[None, CoordinatorRecord]:
        return self._assert_timeout(consumer_group_join_key(group_id, member_id), delay_ms)

    def assert_no_join_timeout(self, group_id: str, member_id: str) -> None:
        assert self.timer.timeout(consumer_group_join_key(group_id, member_id)) is None

    def assert_sync_timeout(self, group_id: str, member_id: str,
                            delay_ms: int) -> ScheduledTimeout[None, CoordinatorRecord]:
        return self._assert_timeout(consumer_group_sync_key(group_id, member_id), delay_ms)

    def assert_no_sync_timeout(self, group_id: str, member_id: str) -> None:
        assert self.timer.timeout(consumer_group_sync_key(group_id, member_id)) is None

    def create_classic_group(self, group_id: str) -> ClassicGroup:
        return self.group_metadata_manager.get_or_maybe_create_classic_group(group_id, True)

    def send_classic_group_join(self, request: JoinGroupRequest, require_known_member_id: bool = False,
                                support_skipping_assignment: bool = False) -> JoinResult:
        # v3 knows no member id requirement, v4 does, v9 also lets the leader skip the assignment
        join_group_version = 3
        if require_known_member_id:
            join_group_version = 4
            if support_skipping_assignment:
                join_group_version = ApiKeys.JOIN_GROUP.latest_version
        response_future: CompletableFuture[JoinGroupResponse] = CompletableFuture()
        coordinator_result = self.group_metadata_manager.classic_group_join(
            request_context(ApiKeys.JOIN_GROUP, join_group_version), request, response_future)
        if coordinator_result.replay_records():
            for record in coordinator_result.records():
                self.replay(record)
        return JoinResult(response_future, coordinator_result)

    def join_classic_group_as_dynamic_member_and_complete_rebalance(self, group_id: str) -> JoinGroupResponse:
        group = self.create_classic_group(group_id)
        leader_join_response = self.join_classic_group_as_dynamic_member_and_complete_join(
            JoinGroupRequestBuilder().with_group_id(group_id).with_member_id(UNKNOWN_MEMBER_ID)
            .with_default_protocol_type_and_protocols().with_rebalance_timeout_ms(10000)
            .with_session_timeout_ms(5000).build())
        assert leader_join_response.generation_id == 1
        assert group.is_in_state(COMPLETING_REBALANCE)

        sync_result = self.send_classic_group_sync(
            SyncGroupRequestBuilder().with_group_id(group_id).with_member_id(leader_join_response.member_id)
            .with_generation_id(leader_join_response.generation_id).build())
        assert sync_result.records == [coordinator_record_helpers.new_group_metadata_record(
            group, group.group_assignment(), MetadataVersion.latest_testing())]
        sync_result.append_future.complete(None)
        assert sync_result.sync_future.done()
        assert sync_result.sync_future.result().error_code == Errors.NONE
        assert group.is_in_state(STABLE)
        return leader_join_response

    def join_classic_group_as_dynamic_member_and_complete_join(self, request: JoinGroupRequest) -> JoinGroupResponse:
        require_known_member_id = True
        new_member_id = request.member_id
        if request.member_id == UNKNOWN_MEMBER_ID:
            first_join_result = self.send_classic_group_join(request, require_known_member_id)
            assert first_join_result.records == []
            assert first_join_result.join_future.done()
            assert first_join_result.join_future.result().error_code == Errors.MEMBER_ID_REQUIRED
            new_member_id = first_join_result.join_future.result().member_id

        # the instance id is dropped, as in Kafka
        second_request = dataclasses.replace(request, member_id=new_member_id, group_instance_id=None)
        second_join_result = self.send_classic_group_join(second_request, require_known_member_id)
        assert second_join_result.records == []
        timeouts = self.sleep(self.classic_group_initial_rebalance_delay_ms)
        assert len(timeouts) == 1
        assert second_join_result.join_future.done()
        assert second_join_result.join_future.result().error_code == Errors.NONE
        return second_join_result.join_future.result()

    def join_classic_group_and_complete_join(self, request: JoinGroupRequest, require_known_member_id: bool,
                                             support_skipping_assignment: bool,
                                             advance_clock_ms: int | None = None) -> JoinGroupResponse:
        if advance_clock_ms is None:
            advance_clock_ms = self.classic_group_initial_rebalance_delay_ms
        if require_known_member_id and not request.group_instance_id:
            return self.join_classic_group_as_dynamic_member_and_complete_join(request)
        join_result = self.send_classic_group_join(request, require_known_member_id, support_skipping_assignment)
        self.sleep(advance_clock_ms)
        assert join_result.join_future.done()
        assert join_result.join_future.result().error_code == Errors.NONE
        return join_result.join_future.result()

    def send_classic_group_sync(self, request: SyncGroupRequest) -> SyncResult:
        response_future: CompletableFuture[SyncGroupResponse] = CompletableFuture()
        coordinator_result = self.group_metadata_manager.classic_group_sync(
            request_context(ApiKeys.SYNC_GROUP), request, response_future)
        if coordinator_result.replay_records():
            for record in coordinator_result.records():
                self.replay(record)
        return SyncResult(response_future, coordinator_result)

    def static_members_join_and_rebalance(self, group_id: str, leader_instance_id: str, follower_instance_id: str,
                                          rebalance_timeout_ms: int = 10000,
                                          session_timeout_ms: int = 5000) -> RebalanceResult:
        group = self.create_classic_group(group_id)
        join_request = (JoinGroupRequestBuilder().with_group_id(group_id).with_group_instance_id(leader_instance_id)
                        .with_member_id(UNKNOWN_MEMBER_ID).with_protocol_type("consumer").with_protocol_superset()
                        .with_rebalance_timeout_ms(rebalance_timeout_ms).with_session_timeout_ms(session_timeout_ms)
                        .build())

        leader_join_result = self.send_classic_group_join(join_request)
        follower_join_result = self.send_classic_group_join(
            dataclasses.replace(join_request, group_instance_id=follower_instance_id))

        assert leader_join_result.records == []
        assert follower_join_result.records == []
        assert not leader_join_result.join_future.done()
        assert not follower_join_result.join_future.done()

        # the initial rebalance delay, twice since the second member joined during the first
        assert_no_or_empty_result(self.sleep(self.classic_group_initial_rebalance_delay_ms))
        assert_no_or_empty_result(self.sleep(self.classic_group_initial_rebalance_delay_ms))

        assert leader_join_result.join_future.done()
        assert follower_join_result.join_future.done()
        assert leader_join_result.join_future.result().error_code == Errors.NONE
        assert follower_join_result.join_future.result().error_code == Errors.NONE
        assert leader_join_result.join_future.result().generation_id == 1
        assert follower_join_result.join_future.result().generation_id == 1
        assert group.num_members() == 2
        assert group.generation_id() == 1
        assert group.is_in_state(COMPLETING_REBALANCE)

        leader_id = leader_join_result.join_future.result().member_id
        follower_id = follower_join_result.join_future.result().member_id
        assignment = (SyncGroupRequestAssignment(member_id=leader_id, assignment=bytes([1])),
                      SyncGroupRequestAssignment(member_id=follower_id, assignment=bytes([2])))

        sync_request = (SyncGroupRequestBuilder().with_group_id(group_id).with_group_instance_id(leader_instance_id)
                        .with_member_id(leader_id).with_generation_id(1).with_assignment(assignment).build())

        leader_sync_result = self.send_classic_group_sync(sync_request)
        group_assignment = {a.member_id: a.assignment for a in assignment}
        assert leader_sync_result.records == [coordinator_record_helpers.new_group_metadata_record(
            group, group_assignment, MetadataVersion.latest_testing())]

        leader_sync_result.append_future.complete(None)
        assert leader_sync_result.sync_future.done()
        assert leader_sync_result.sync_future.result().error_code == Errors.NONE
        assert group.is_in_state(STABLE)

        follower_sync_result = self.send_classic_group_sync(dataclasses.replace(
            sync_request, group_instance_id=follower_instance_id, member_id=follower_id, assignments=()))

        assert follower_sync_result.records == []
        assert follower_sync_result.sync_future.done()
        assert follower_sync_result.sync_future.result().error_code == Errors.NONE
        assert group.is_in_state(STABLE)

        assert group.num_members() == 2
        assert group.generation_id() == 1

        return RebalanceResult(1, leader_id, leader_sync_result.sync_future.result().assignment, follower_id,
                               follower_sync_result.sync_future.result().assignment)

    def setup_group_with_pending_member(self, group: ClassicGroup) -> PendingMemberGroupResult:
        """A stable group of a leader and a follower, rebalancing, with a third member pending (it got its member
        id but has not joined with it)."""
        join_request = (JoinGroupRequestBuilder().with_group_id(group.group_id()).with_member_id(UNKNOWN_MEMBER_ID)
                        .with_default_protocol_type_and_protocols().with_rebalance_timeout_ms(10000)
                        .with_session_timeout_ms(5000).build())

        # the leader joins and syncs
        leader_join_response = self.join_classic_group_as_dynamic_member_and_complete_join(join_request)
        sync_request = (SyncGroupRequestBuilder().with_group_id(group.group_id())
                        .with_member_id(leader_join_response.member_id)
                        .with_generation_id(leader_join_response.generation_id)
                        .with_assignment([SyncGroupRequestAssignment(member_id=leader_join_response.member_id,
                                                                     assignment=b"")]).build())
        sync_result = self.send_classic_group_sync(sync_request)
        assert sync_result.records == [coordinator_record_helpers.new_group_metadata_record(
            group, group.group_assignment(), MetadataVersion.latest_testing())]
        sync_result.append_future.complete(None)
        assert sync_result.sync_future.done()
        assert sync_result.sync_future.result().error_code == Errors.NONE

        # a follower joins, the leader rejoins
        follower_join_result = self.send_classic_group_join(dataclasses.replace(join_request,
                                                                                member_id=UNKNOWN_MEMBER_ID))
        assert follower_join_result.records == []
        assert not follower_join_result.join_future.done()

        leader_join_result = self.send_classic_group_join(dataclasses.replace(
            join_request, member_id=leader_join_response.member_id))
        assert leader_join_result.records == []
        assert group.is_in_state(COMPLETING_REBALANCE)
        assert leader_join_result.join_future.done()
        assert follower_join_result.join_future.done()
        assert leader_join_result.join_future.result().error_code == Errors.NONE
        assert follower_join_result.join_future.result().error_code == Errors.NONE
        assert leader_join_result.join_future.result().generation_id == \
            follower_join_result.join_future.result().generation_id
        assert leader_join_result.join_future.result().leader == leader_join_response.member_id
        assert follower_join_result.join_future.result().leader == leader_join_response.member_id

        next_generation_id = leader_join_result.join_future.result().generation_id
        follower_id = follower_join_result.join_future.result().member_id

        # the leader syncs the new generation
        sync_result = self.send_classic_group_sync(dataclasses.replace(sync_request, generation_id=next_generation_id))
        assert sync_result.records == [coordinator_record_helpers.new_group_metadata_record(
            group, group.group_assignment(), MetadataVersion.latest_testing())]
        sync_result.append_future.complete(None)
        assert sync_result.sync_future.done()
        assert sync_result.sync_future.result().error_code == Errors.NONE

        # the leader rejoins: a rebalance, during which a new member gets its id and becomes pending
        leader_join_result = self.send_classic_group_join(dataclasses.replace(
            join_request, member_id=leader_join_response.member_id))
        assert leader_join_result.records == []
        assert not leader_join_result.join_future.done()
        assert group.is_in_state(PREPARING_REBALANCE)

        pending_member_join_result = self.send_classic_group_join(
            with_timeouts(join_request, session_timeout_ms=2500, member_id=UNKNOWN_MEMBER_ID), True)
        assert pending_member_join_result.records == []
        assert pending_member_join_result.join_future.done()
        assert pending_member_join_result.join_future.result().error_code == Errors.MEMBER_ID_REQUIRED
        assert group.num_pending_join_members() == 1

        follower_join_result = self.send_classic_group_join(
            with_timeouts(join_request, session_timeout_ms=5000, member_id=follower_id))
        assert follower_join_result.records == []
        assert not follower_join_result.join_future.done()
        assert group.is_in_state(PREPARING_REBALANCE)
        assert group.num_members() == 2
        assert group.num_pending_join_members() == 1

        return PendingMemberGroupResult(leader_join_response.member_id, follower_id,
                                        pending_member_join_result.join_future.result())

    def verify_session_expiration(self, group: ClassicGroup, timeout_ms: int) -> None:
        """Every member's session expires; the last expiration writes the empty group."""
        expected_heartbeat_keys = {classic_group_heartbeat_key(group.group_id(), member.member_id())
                                   for member in group.all_members()}
        timeouts = self.sleep(timeout_ms)
        expected_records = [new_group_metadata_record(group.group_id(), GroupMetadataValue(
            members=(), generation=group.generation_id(), leader=None, protocol_type="consumer", protocol=None,
            current_state_timestamp=self.time.milliseconds()), MetadataVersion.latest_testing())]
        assert {timeout.key for timeout in timeouts} == expected_heartbeat_keys
        assert timeouts[-1].result.records() == expected_records
        assert_no_or_empty_result(timeouts[:-1])
        assert group.is_in_state(EMPTY)
        assert group.num_members() == 0

    def send_classic_group_heartbeat(self, request: HeartbeatRequest) -> CoordinatorResult[Any, Any]:
        return self.group_metadata_manager.classic_group_heartbeat(request_context(ApiKeys.HEARTBEAT), request)

    def send_list_groups(self, states_filter: list[str], types_filter: list[str]) -> list[Any]:
        return self.group_metadata_manager.list_groups(set(states_filter), set(types_filter),
                                                       self.last_committed_offset)

    def send_consumer_group_describe(self, group_ids: list[str]) -> list[Any]:
        return self.group_metadata_manager.consumer_group_describe(group_ids, self.last_committed_offset)

    def describe_groups(self, group_ids: list[str]) -> list[Any]:
        return self.group_metadata_manager.describe_groups(group_ids, self.last_committed_offset)

    def verify_heartbeat(self, group_id: str, join_response: JoinGroupResponse, expected_error: Errors) -> None:
        import pytest

        request = HeartbeatRequest(group_id=group_id, member_id=join_response.member_id,
                                   generation_id=join_response.generation_id, group_instance_id=None)
        if expected_error == Errors.UNKNOWN_MEMBER_ID:
            with pytest.raises(UnknownMemberIdException):
                self.send_classic_group_heartbeat(request)
        else:
            response = self.send_classic_group_heartbeat(request).response()
            assert response.error_code == expected_error

    def join_with_n_members(self, group_id: str, num_members: int, rebalance_timeout_ms: int,
                            session_timeout_ms: int) -> list[JoinGroupResponse]:
        group = self.create_classic_group(group_id)
        require_known_member_id = True

        request = (JoinGroupRequestBuilder().with_group_id(group_id).with_member_id(UNKNOWN_MEMBER_ID)
                   .with_default_protocol_type_and_protocols().with_rebalance_timeout_ms(rebalance_timeout_ms)
                   .with_session_timeout_ms(session_timeout_ms).build())

        member_ids = []
        for _ in range(num_members):
            join_result = self.send_classic_group_join(request, require_known_member_id)
            assert join_result.records == []
            assert join_result.join_future.done()
            member_ids.append(join_result.join_future.result().member_id)

        second_join_futures = []
        for member_id in member_ids:
            join_result = self.send_classic_group_join(dataclasses.replace(request, member_id=member_id),
                                                       require_known_member_id)
            assert join_result.records == []
            assert not join_result.join_future.done()
            second_join_futures.append(join_result.join_future)

        # the initial rebalance delay, then the rebalance timeout for the members that kept joining
        assert_no_or_empty_result(self.sleep(self.classic_group_initial_rebalance_delay_ms))
        for future in second_join_futures:
            assert not future.done()
        assert_no_or_empty_result(self.sleep(rebalance_timeout_ms))

        join_responses = []
        for future in second_join_futures:
            assert future.done()
            assert future.result().error_code == Errors.NONE
            join_responses.append(future.result())

        assert group.num_members() == num_members
        assert group.is_in_state(COMPLETING_REBALANCE)
        return join_responses

    def send_classic_group_leave(self, request: LeaveGroupRequest) -> CoordinatorResult[Any, Any]:
        return self.group_metadata_manager.classic_group_leave(request_context(ApiKeys.LEAVE_GROUP), request)

    def verify_classic_group_sync_to_consumer_group(
            self, group_id: str, member_id: str, generation_id: int, protocol_name: str | None,
            protocol_type: str | None, topic_partition_list: list[TopicPartition],
            version: int = consumer_protocol.ASSIGNMENT_HIGHEST_SUPPORTED_VERSION) -> None:
        """A classic member of a consumer group syncs: no records, and once "written", its assignment in the
        consumer protocol version of its metadata; the sync timeout gives way to the session timeout."""
        from kafka_edu.v3_9.clients.clients.consumer.consumer_partition_assignor import Assignment
        from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group import sync_group_response
        from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.assertions import (
            assert_sync_group_response_equals,
        )
        sync_result = self.send_classic_group_sync(
            SyncGroupRequestBuilder().with_group_id(group_id).with_member_id(member_id)
            .with_generation_id(generation_id).with_protocol_name(protocol_name).with_protocol_type(protocol_type)
            .build())
        assert sync_result.records == []
        assert not sync_result.sync_future.done()

        sync_result.append_future.complete(None)
        assert_sync_group_response_equals(
            sync_group_response(protocol_type=protocol_type, protocol_name=protocol_name,
                                assignment=bytes(consumer_protocol.serialize_assignment(
                                    Assignment(topic_partition_list), version).array())),
            sync_result.sync_future.result())
        self.assert_session_timeout(group_id, member_id, 5000)
        self.assert_no_sync_timeout(group_id, member_id)

    def replay(self, record: CoordinatorRecord) -> None:
        key = record.key()
        value = record.value()
        if key is None:
            raise IllegalStateException(f"Received a null key in {record}")
        self.group_metadata_manager.replay(key.message, None if value is None else value.message)
        self.last_written_offset += 1
        self.snapshot_registry.get_or_create_snapshot(self.last_written_offset)

    def on_unloaded(self) -> None:
        self.group_metadata_manager.on_unloaded()


__all__ = ["GroupMetadataManagerTestContext", "JoinGroupRequestBuilder", "SyncGroupRequestBuilder", "JoinResult",
           "SyncResult", "RebalanceResult", "PendingMemberGroupResult", "to_protocols", "to_consumer_protocol",
           "new_group_metadata_record", "assert_no_or_empty_result", "consumer_group_heartbeat_request",
           "with_timeouts", "DEFAULT_CLIENT_ID", "DEFAULT_CLIENT_ADDRESS", "classic_group_heartbeat_key",
           "DEAD", "EMPTY"]
