"""Port of core/src/main/scala/kafka/coordinator/group/GroupCoordinatorAdapter.scala (Kafka 3.9): the old group
coordinator behind the interface KafkaApis speaks, group-coordinator's GroupCoordinator.java.

In Kafka 3.9 the old coordinator is 3.9's Scala GroupCoordinator. Here, until 3.9's coordinators are ported, it is
Kafka 1.0.2's (kafka_edu/v1_0_2/core/coordinator/group/group_coordinator.py), whose handle* methods take fewer and
older arguments. This adapter maps them, method by method:

- JoinGroup: 1.0.2 takes no group instance id, no "require known member id" (KIP-394), no "supports skipping
  assignment" (KIP-814) and no reason (KIP-800). A v4+ member joining without an id is admitted at once instead of
  getting MEMBER_ID_REQUIRED first (clients accept both), the leader never skips the assignment, the members carry no
  instance ids, and the response's protocol type is the group's (the request's, once the join succeeded).
- Static membership (KIP-345, Kafka 2.3) is what 1.0.2's coordinator cannot do: a JoinGroup, SyncGroup, Heartbeat or
  OffsetCommit with a group instance id fails with UNSUPPORTED_VERSION, the answer 3.9's KafkaApis gives to static
  members while the cluster's metadata version is below IBP_2_3_IV0.
- SyncGroup: 1.0.2 does not check the protocol type and name a v5+ member sends (INCONSISTENT_GROUP_PROTOCOL in 3.9);
  the response carries the group's.
- LeaveGroup: 1.0.2 removes one member per call; a batch (v3+) is one call per member, and a group-level error
  (coordinator not available, not coordinator, loading) is the response's top-level error, as 3.9 answers it.
- ListGroups: 1.0.2 takes no state or type filter and its overviews carry no state: the adapter filters (states
  case-insensitively; every group is a classic group) and reads each group's state. 1.0.2's AwaitingSync is named
  CompletingRebalance, as from Kafka 2.0 on.
- OffsetFetch: 1.0.2 knows no leader epochs (committed leader epoch -1) and no require_stable (KIP-447): pending
  transactional offsets are never reported as UNSTABLE_OFFSET_COMMIT.
- OffsetCommit / TxnOffsetCommit: 1.0.2's offsets need an expiry when committed, where 3.9 derives it when expiring:
  without a retention in the request it is the commit time plus offsets.retention.minutes. The leader epoch is not
  stored. 1.0.2 does not check the member and generation of a TxnOffsetCommit (KIP-447).
- OffsetDelete (KIP-496) has no 1.0.2 counterpart: the adapter plays 3.9's GroupCoordinator.handleDeleteOffsets over
  1.0.2's group cache, except that it cannot tell which topics an active consumer group subscribes to (1.0.2 does not
  parse subscriptions): a non-empty group is NON_EMPTY_GROUP as a whole.
- startup: 1.0.2 reads the offsets topic's partition count from its config when built, not from the supplier.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from datetime import timedelta
from typing import Any

from kafka_edu.v1_0_2.clients.common import errors as errors_1_0_2
from kafka_edu.v1_0_2.clients.common.errors import ApiException, IllegalStateException
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v1_0_2.core.coordinator.group.group_coordinator import GroupCoordinator, JoinGroupResult
from kafka_edu.v1_0_2.core.coordinator.group.group_metadata import AwaitingSync, Dead, Empty, PreparingRebalance, Stable
from kafka_edu.v1_0_2.core.coordinator.group.offset_and_metadata import NO_METADATA, OffsetAndMetadata
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.request_context import RequestContext
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM, Time
from kafka_edu.v3_9.core.server.kraft_coordinator_bridge import CoordinatorReplicaManager, VerifyingGroupCoordinator
from kafka_edu.v3_9.core.server.request_local import RequestLocal

DEFAULT_RETENTION_TIME = -1  # OffsetCommitRequest.DEFAULT_RETENTION_TIME
DEFAULT_TIMESTAMP = -1  # OffsetCommitRequest.DEFAULT_TIMESTAMP
NO_PARTITION_LEADER_EPOCH = -1  # RecordBatch.NO_PARTITION_LEADER_EPOCH
CLASSIC_GROUP_TYPE = "classic"  # Group.GroupType.CLASSIC
# 1.0.2's state names that later Kafkas renamed
_STATE_NAMES = {"AwaitingSync": "CompletingRebalance"}


class GroupCoordinatorAdapter:
    """The old coordinator as the new GroupCoordinator interface: each call answers with a Future of the response's
    fields (kio snake_case names, nested entities as dicts), or fails it with the Kafka exception."""

    def __init__(self, coordinator: GroupCoordinator, time: Time = SYSTEM) -> None:
        self.coordinator = coordinator
        self.time = time

    @staticmethod
    def apply(config: Any, replica_manager: Any, time: Time = SYSTEM, metrics: Any = None) -> GroupCoordinatorAdapter:
        """The old coordinator built from the broker's config (the KafkaConfig the KRaft broker reads, 1.0.2's names)
        on 3.9's ReplicaManager, seen through the KRaft bridge. The port keeps no metrics registry."""
        return GroupCoordinatorAdapter(VerifyingGroupCoordinator(
            GroupCoordinator.apply(config, CoordinatorReplicaManager(replica_manager), time_ms=time.milliseconds)),
            time)

    def consumer_group_heartbeat(self, context: RequestContext, request: Any) -> Future[dict[str, Any]]:
        return _failed_future(_error_exception(
            Errors.UNSUPPORTED_VERSION,
            "The old group coordinator does not support ConsumerGroupHeartbeat API."))

    def share_group_heartbeat(self, context: RequestContext, request: Any) -> Future[dict[str, Any]]:
        return _failed_future(_error_exception(
            Errors.UNSUPPORTED_VERSION,
            "The old group coordinator does not support ShareGroupHeartbeat API."))

    def join_group(self, context: RequestContext, request: Any, buffer_supplier: Any = None) -> Future[dict[str, Any]]:
        future: Future[dict[str, Any]] = Future()
        if getattr(request, "group_instance_id", None) is not None:
            future.set_exception(_static_membership_unsupported(ApiKeys.JOIN_GROUP))
            return future

        def callback(join_result: JoinGroupResult) -> None:
            succeeded = join_result.error == Errors.NONE
            future.set_result(dict(
                error_code=join_result.error,
                generation_id=join_result.generation_id,
                protocol_type=request.protocol_type if succeeded else None,
                protocol_name=join_result.sub_protocol,
                leader=join_result.leader_id or "",
                skip_assignment=False,
                member_id=join_result.member_id,
                members=[dict(member_id=member_id, group_instance_id=None, metadata=metadata)
                         for member_id, metadata in join_result.members.items()]))

        session_timeout_ms = _ms(request.session_timeout)
        # v0 has no rebalance timeout: the session timeout serves as both (JoinGroupRequest's override)
        rebalance_timeout = getattr(request, "rebalance_timeout", None)
        rebalance_timeout_ms = session_timeout_ms if rebalance_timeout is None else _ms(rebalance_timeout)
        protocols = [(protocol.name, bytes(protocol.metadata)) for protocol in request.protocols]

        self.coordinator.handle_join_group(
            request.group_id,
            request.member_id,
            context.client_id(),
            _client_host(context),
            rebalance_timeout_ms,
            session_timeout_ms,
            request.protocol_type,
            protocols,
            callback)
        return future

    def sync_group(self, context: RequestContext, request: Any, buffer_supplier: Any = None) -> Future[dict[str, Any]]:
        future: Future[dict[str, Any]] = Future()
        if getattr(request, "group_instance_id", None) is not None:
            future.set_exception(_static_membership_unsupported(ApiKeys.SYNC_GROUP))
            return future

        def callback(member_assignment: bytes, error: Errors) -> None:
            protocol_type, protocol_name = self._group_protocol(request.group_id) if error == Errors.NONE \
                else (None, None)
            future.set_result(dict(
                error_code=error,
                protocol_type=protocol_type,
                protocol_name=protocol_name,
                assignment=member_assignment))

        assignment_map = {assignment.member_id: bytes(assignment.assignment) for assignment in request.assignments}

        self.coordinator.handle_sync_group(
            request.group_id,
            request.generation_id,
            request.member_id,
            assignment_map,
            callback)
        return future

    def heartbeat(self, context: RequestContext, request: Any) -> Future[dict[str, Any]]:
        future: Future[dict[str, Any]] = Future()
        if getattr(request, "group_instance_id", None) is not None:
            future.set_exception(_static_membership_unsupported(ApiKeys.HEARTBEAT))
            return future

        self.coordinator.handle_heartbeat(
            request.group_id,
            request.member_id,
            request.generation_id,
            lambda error: future.set_result(dict(error_code=error)))
        return future

    def leave_group(self, context: RequestContext, request: Any) -> Future[dict[str, Any]]:
        future: Future[dict[str, Any]] = Future()
        members = _leaving_members(request)
        member_responses: list[dict[str, Any]] = []

        def member_callback(member: Any, error: Errors) -> None:
            if error in (Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR, Errors.COORDINATOR_LOAD_IN_PROGRESS):
                # a group-level error, as 3.9's coordinator reports it: no member answers
                if not future.done():
                    future.set_result(dict(error_code=error, members=[]))
                return
            member_responses.append(dict(member_id=member.member_id,
                                         group_instance_id=getattr(member, "group_instance_id", None),
                                         error_code=error))
            if len(member_responses) == len(members) and not future.done():
                future.set_result(dict(error_code=Errors.NONE, members=list(member_responses)))

        if not members:
            future.set_result(dict(error_code=Errors.NONE, members=[]))
        for member in members:
            if future.done():
                break
            self.coordinator.handle_leave_group(request.group_id, member.member_id,
                                                lambda error, member=member: member_callback(member, error))
        return future

    def list_groups(self, context: RequestContext, request: Any) -> Future[dict[str, Any]]:
        # Handle a null array the same as empty.
        states_filter = {state.lower() for state in getattr(request, "states_filter", None) or ()}
        types_filter = {group_type.lower() for group_type in getattr(request, "types_filter", None) or ()}
        error, overviews = self.coordinator.handle_list_groups()

        groups = []
        for overview in overviews:
            state = self._group_state(overview.group_id)
            if states_filter and state.lower() not in states_filter:
                continue
            if types_filter and CLASSIC_GROUP_TYPE not in types_filter:
                continue
            groups.append(dict(group_id=overview.group_id, protocol_type=overview.protocol_type,
                               group_state=state, group_type=CLASSIC_GROUP_TYPE))

        return _completed_future(dict(error_code=error, groups=groups))

    def describe_groups(self, context: RequestContext, group_ids: Iterable[str]) -> Future[list[dict[str, Any]]]:
        def describe_group(group_id: str) -> dict[str, Any]:
            error, summary = self.coordinator.handle_describe_group(group_id)
            return dict(
                error_code=error,
                group_id=group_id,
                group_state=_STATE_NAMES.get(summary.state, summary.state),
                protocol_type=summary.protocol_type,
                protocol_data=summary.protocol,
                members=[dict(member_id=member.member_id,
                              group_instance_id=None,
                              client_id=member.client_id,
                              client_host=member.client_host,
                              member_assignment=member.assignment,
                              member_metadata=member.metadata)
                         for member in summary.members])

        return _completed_future([describe_group(group_id) for group_id in group_ids])

    def delete_groups(self, context: RequestContext, group_ids: Iterable[str],
                      buffer_supplier: Any = None) -> Future[list[dict[str, Any]]]:
        group_ids = list(group_ids)
        group_errors = self.coordinator.handle_delete_groups(set(group_ids))
        results = [dict(group_id=group_id, error_code=group_errors[group_id])
                   for group_id in dict.fromkeys(group_ids) if group_id in group_errors]
        return _completed_future(results)

    def fetch_all_offsets(self, context: RequestContext, request: Any,
                          require_stable: bool = False) -> Future[dict[str, Any]]:
        return self._handle_fetch_offset(request.group_id, require_stable, None)

    def fetch_offsets(self, context: RequestContext, request: Any,
                      require_stable: bool = False) -> Future[dict[str, Any]]:
        topic_partitions = [TopicPartition(topic.name, partition)
                            for topic in request.topics or ()
                            for partition in topic.partition_indexes]
        return self._handle_fetch_offset(request.group_id, require_stable, topic_partitions)

    def _handle_fetch_offset(self, group_id: str, require_stable: bool,
                             partitions: list[TopicPartition] | None) -> Future[dict[str, Any]]:
        # 1.0.2 has no require_stable: pending transactional offsets are not reported (module docstring)
        error, results = self.coordinator.handle_fetch_offsets(group_id, partitions)

        future: Future[dict[str, Any]] = Future()
        if error != Errors.NONE:
            future.set_exception(_error_exception(error))
        else:
            topics: dict[str, dict[str, Any]] = {}
            for tp, offset in results.items():
                topic = topics.setdefault(tp.topic, dict(name=tp.topic, partitions=[]))
                topic["partitions"].append(dict(
                    partition_index=tp.partition,
                    metadata=offset.metadata,
                    committed_offset=offset.offset,
                    committed_leader_epoch=NO_PARTITION_LEADER_EPOCH,
                    error_code=offset.error))
            future.set_result(dict(group_id=group_id, topics=list(topics.values())))
        return future

    def commit_offsets(self, context: RequestContext, request: Any,
                       buffer_supplier: Any = None) -> Future[dict[str, Any]]:
        current_time_ms = self.time.milliseconds()
        future: Future[dict[str, Any]] = Future()
        if getattr(request, "group_instance_id", None) is not None:
            future.set_exception(_static_membership_unsupported(ApiKeys.OFFSET_COMMIT))
            return future

        def callback(commit_status: dict[Any, Errors]) -> None:
            future.set_result(dict(topics=_by_topic(commit_status)))

        # The "default" expiration is now + retention; the retention may be given in v2 to v4, else the broker's
        # applies. An explicit commit timestamp (v1 only) is kept as the commit time.
        retention_time_ms = _ms(getattr(request, "retention_time", DEFAULT_RETENTION_TIME))
        expire_time_ms = None if retention_time_ms == DEFAULT_RETENTION_TIME else current_time_ms + retention_time_ms

        partitions: dict[TopicPartition, OffsetAndMetadata] = {}
        for topic in request.topics:
            for partition in topic.partitions:
                partitions[TopicPartition(topic.name, partition.partition_index)] = self._create_offset_and_metadata(
                    current_time_ms,
                    partition.committed_offset,
                    getattr(partition, "committed_leader_epoch", NO_PARTITION_LEADER_EPOCH),
                    partition.committed_metadata,
                    getattr(partition, "commit_timestamp", DEFAULT_TIMESTAMP),
                    expire_time_ms)

        self.coordinator.handle_commit_offsets(
            request.group_id,
            request.member_id,
            _generation_id(request),
            partitions,
            callback)
        return future

    def commit_transactional_offsets(self, context: RequestContext, request: Any,
                                     buffer_supplier: Any = None) -> Future[dict[str, Any]]:
        current_time_ms = self.time.milliseconds()
        future: Future[dict[str, Any]] = Future()

        def callback(results: dict[Any, Errors]) -> None:
            future.set_result(dict(topics=_by_topic(results)))

        partitions: dict[TopicPartition, OffsetAndMetadata] = {}
        for topic in request.topics:
            for partition in topic.partitions:
                partitions[TopicPartition(topic.name, partition.partition_index)] = self._create_offset_and_metadata(
                    current_time_ms,
                    partition.committed_offset,
                    getattr(partition, "committed_leader_epoch", NO_PARTITION_LEADER_EPOCH),
                    partition.committed_metadata,
                    DEFAULT_TIMESTAMP,  # means that current_time_ms is used
                    None)

        # 1.0.2 takes neither the member, the generation nor the api version (KIP-447); the transactional id, the
        # api version and the request local go to the bridge's transaction verification (kraft_coordinator_bridge.py)
        self.coordinator.handle_txn_commit_offsets(
            request.group_id,
            request.producer_id,
            request.producer_epoch,
            partitions,
            callback,
            transactional_id=request.transactional_id,
            api_version=context.api_version(),
            request_local=RequestLocal(buffer_supplier))
        return future

    def _create_offset_and_metadata(self, current_time_ms: int, offset: int, leader_epoch: int,
                                    metadata: str | None, commit_timestamp: int,
                                    expire_timestamp: int | None) -> OffsetAndMetadata:
        # 1.0.2 stores no leader epoch; its offsets need their expiry now (module docstring)
        commit_timestamp = current_time_ms if commit_timestamp == DEFAULT_TIMESTAMP else commit_timestamp
        if expire_timestamp is None:
            expire_timestamp = commit_timestamp + self.coordinator.offset_config.offsets_retention_ms
        return OffsetAndMetadata(
            offset=offset,
            metadata=NO_METADATA if metadata is None else metadata,
            commit_timestamp=commit_timestamp,
            expire_timestamp=expire_timestamp)

    def delete_offsets(self, context: RequestContext, request: Any,
                       buffer_supplier: Any = None) -> Future[dict[str, Any]]:
        future: Future[dict[str, Any]] = Future()

        partitions = [TopicPartition(topic.name, partition.partition_index)
                      for topic in request.topics
                      for partition in topic.partitions]

        group_error, topic_partition_results = self._handle_delete_offsets(request.group_id, partitions)

        if group_error != Errors.NONE:
            future.set_exception(_error_exception(group_error))
        else:
            future.set_result(dict(error_code=Errors.NONE, topics=_by_topic(topic_partition_results)))
        return future

    def _handle_delete_offsets(self, group_id: str, partitions: list[TopicPartition]
                               ) -> tuple[Errors, dict[TopicPartition, Errors]]:
        """3.9's GroupCoordinator.handleDeleteOffsets over 1.0.2's group cache (module docstring)."""
        coordinator = self.coordinator
        if not group_id:
            return Errors.INVALID_GROUP_ID, {}
        if not coordinator.is_active:
            return Errors.COORDINATOR_NOT_AVAILABLE, {}
        if not coordinator.group_manager.is_group_local(group_id):
            return Errors.NOT_COORDINATOR, {}
        if coordinator.is_group_loading(group_id):
            return Errors.COORDINATOR_LOAD_IN_PROGRESS, {}
        group = coordinator.group_manager.get_group(group_id)
        if group is None:
            return Errors.GROUP_ID_NOT_FOUND, {}
        partition_errors: dict[TopicPartition, Errors] = {}
        with group.in_lock():
            if group.is_(Dead):
                return Errors.GROUP_ID_NOT_FOUND, {}
            if group.is_(Empty):
                eligible = list(partitions)
            elif group.protocol_type == CONSUMER_PROTOCOL_TYPE and group.state in (PreparingRebalance, AwaitingSync,
                                                                                   Stable):
                # an active consumer group keeps the offsets of the topics its members subscribe to
                subscribed = _subscribed_topics(group)
                eligible = [tp for tp in partitions if subscribed is not None and tp.topic not in subscribed]
                partition_errors = {tp: Errors.GROUP_SUBSCRIBED_TO_TOPIC for tp in partitions if tp not in eligible}
            else:
                return Errors.NON_EMPTY_GROUP, {}
        if eligible:
            coordinator.group_manager.cleanup_group_metadata(eligible, [group])
            partition_errors.update({tp: Errors.NONE for tp in eligible})
        return Errors.NONE, {tp: partition_errors[tp] for tp in partitions}

    def complete_transaction(self, tp: TopicPartition, producer_id: int, producer_epoch: int,
                             coordinator_epoch: int, result: Any, timeout: timedelta) -> Future[None]:
        return _failed_future(IllegalStateException(
            "The old group coordinator does not support `completeTransaction` API."))

    def partition_for(self, group_id: str) -> int:
        return self.coordinator.partition_for(group_id)

    def on_transaction_completed(self, producer_id: int, partitions: Iterable[TopicPartition],
                                 transaction_result: Any) -> None:
        self.coordinator.schedule_handle_txn_completion(producer_id, partitions,
                                                        TransactionResult[transaction_result.name])

    def on_partitions_deleted(self, topic_partitions: list[TopicPartition], buffer_supplier: Any = None) -> None:
        self.coordinator.handle_deleted_partitions(list(topic_partitions))

    def on_election(self, group_metadata_partition_index: int, group_metadata_partition_leader_epoch: int) -> None:
        # 1.0.2 loads whatever the epoch: leadership comes in order from one metadata log
        self.coordinator.handle_group_immigration(group_metadata_partition_index)

    def on_resignation(self, group_metadata_partition_index: int,
                       group_metadata_partition_leader_epoch: int | None) -> None:
        self.coordinator.handle_group_emigration(group_metadata_partition_index)

    # The names the KRaft switch's brief gave these two (KafkaApis's onLeadershipChange calls them so).
    on_elected = on_election
    on_resigned = on_resignation

    def on_new_metadata_image(self, new_image: Any, delta: Any) -> None:
        # The metadata image is not used in the old group coordinator.
        pass

    def group_metadata_topic_configs(self) -> dict[str, str]:
        return self.coordinator.offsets_topic_configs()

    def startup(self, group_metadata_topic_partition_count: Callable[[], int] | None = None) -> None:
        # 1.0.2 took the partition count from its config when it was built (module docstring)
        self.coordinator.startup()

    def shutdown(self) -> None:
        self.coordinator.shutdown()

    def consumer_group_describe(self, context: RequestContext, group_ids: Iterable[str]
                                ) -> Future[list[dict[str, Any]]]:
        return _failed_future(_error_exception(
            Errors.UNSUPPORTED_VERSION,
            "The old group coordinator does not support ConsumerGroupDescribe API."))

    def share_group_describe(self, context: RequestContext, group_ids: Iterable[str]) -> Future[list[dict[str, Any]]]:
        return _failed_future(_error_exception(
            Errors.UNSUPPORTED_VERSION,
            "The old group coordinator does not support ShareGroupDescribe API."))

    # -- what 1.0.2's results do not carry -----------------------------------------------------------------------

    def _group_state(self, group_id: str) -> str:
        group = self.coordinator.group_manager.get_group(group_id)
        state = Dead.name if group is None else group.current_state.name
        return _STATE_NAMES.get(state, state)

    def _group_protocol(self, group_id: str) -> tuple[str | None, str | None]:
        group = self.coordinator.group_manager.get_group(group_id)
        return (None, None) if group is None else (group.protocol_type, group.protocol_or_null)


# -- helpers ------------------------------------------------------------------------------------------------------


def _ms(value: int | timedelta) -> int:
    """kio carries *_ms fields as timedeltas."""
    return value // timedelta(milliseconds=1) if isinstance(value, timedelta) else int(value)


def _client_host(context: RequestContext) -> str:
    """context.clientAddress.toString: an InetAddress without host name prints as "/127.0.0.1"."""
    return f"/{context.client_address}"


def _generation_id(request: Any) -> int:
    return getattr(request, "generation_id_or_member_epoch", getattr(request, "generation_id", -1))


def _leaving_members(request: Any) -> list[Any]:
    """LeaveGroupRequest.normalizedData: v0-2 name one member at the top level."""
    members = getattr(request, "members", None)
    if members is None:
        return [_MemberIdentity(request.member_id)]
    return list(members)


class _MemberIdentity:
    def __init__(self, member_id: str) -> None:
        self.member_id = member_id
        self.group_instance_id = None


def _by_topic(results: dict[Any, Errors]) -> list[dict[str, Any]]:
    """Per-partition errors grouped by topic, in the order the partitions came."""
    topics: dict[str, dict[str, Any]] = {}
    for tp, error in results.items():
        topic = topics.setdefault(tp.topic, dict(name=tp.topic, partitions=[]))
        topic["partitions"].append(dict(partition_index=tp.partition, error_code=error))
    return list(topics.values())


def _static_membership_unsupported(api_key: ApiKeys) -> BaseException:
    return _error_exception(Errors.UNSUPPORTED_VERSION,
                            f"The old group coordinator does not support static membership ({api_key.api_name} with "
                            "a group instance id).")


_EXCEPTION_CLASSES: dict[Errors, type[BaseException]] = {}


def _error_exception(error: Errors, message: str | None = None) -> BaseException:
    """Errors.exception(message): the port's exception class of that name where it has one, else one made for it,
    so that Errors.forException gives the error back."""
    klass = _EXCEPTION_CLASSES.get(error)
    if klass is None:
        name = error.exception_name or "UnknownServerException"
        klass = getattr(errors_1_0_2, name, None) or type(name, (ApiException,), {"__module__": __name__})
        _EXCEPTION_CLASSES[error] = klass
    return klass(message or error.exception_name or error.name)


def _completed_future(value: Any) -> Future[Any]:
    future: Future[Any] = Future()
    future.set_result(value)
    return future


def _failed_future(exception: BaseException) -> Future[Any]:
    future: Future[Any] = Future()
    future.set_exception(exception)
    return future



CONSUMER_PROTOCOL_TYPE = "consumer"  # ConsumerProtocol.PROTOCOL_TYPE


def _subscribed_topics(group: Any) -> set[str] | None:
    """GroupMetadata.computeSubscribedTopics (Kafka 3.9): the topics the members of a consumer group subscribe to,
    read from each member's metadata for the chosen protocol with the consumer protocol's version-0 prefix (a
    version, then the topics), which every later version keeps; None when a member's metadata does not parse."""
    if not group.members:
        return set()
    if group.protocol is None:
        return None
    topics: set[str] = set()
    try:
        for member in group.members.values():
            data = memoryview(member.metadata(group.protocol))
            position = 2  # the version
            (count,) = struct.unpack_from(">i", data, position)
            position += 4
            for _ in range(count):
                (length,) = struct.unpack_from(">h", data, position)
                position += 2
                if length < 0 or position + length > len(data):
                    return None
                topics.add(bytes(data[position:position + length]).decode())
                position += length
    except (struct.error, UnicodeDecodeError):
        return None
    return topics
