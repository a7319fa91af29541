"""Port of core/src/main/scala/kafka/coordinator/group/GroupCoordinator.scala (read: Kafka 1.0.2,
hhb1san14/kafka-1.0.2-src; handleDeleteGroups from Kafka 1.1.0, luobowo/kafka-1.1.0; handleTxnCommitOffsets and
scheduleHandleTxnCompletion from a 1.1 copy, unchanged since 1.0)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kafka_edu.tracing import span, step
from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v1_0_2.clients.common.record.file_records import NO_PRODUCER_EPOCH, NO_PRODUCER_ID
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v1_0_2.core.coordinator.group.delayed_heartbeat import DelayedHeartbeat
from kafka_edu.v1_0_2.core.coordinator.group.delayed_join import DelayedJoin, InitialDelayedJoin
from kafka_edu.v1_0_2.core.coordinator.group.delayed_operation_key import GroupKey, MemberKey
from kafka_edu.v1_0_2.core.coordinator.group.group_metadata import (
    AwaitingSync,
    Dead,
    Empty,
    GroupMetadata,
    GroupOverview,
    GroupSummary,
    PreparingRebalance,
    Stable,
)
from kafka_edu.v1_0_2.core.coordinator.group.group_metadata_manager import (
    GROUP_METADATA_TOPIC_NAME,
    GroupMetadataManager,
    PartitionData,
)
from kafka_edu.v1_0_2.core.coordinator.group.member_metadata import MemberMetadata
from kafka_edu.v1_0_2.core.coordinator.group.offset_and_metadata import OffsetAndMetadata
from kafka_edu.v1_0_2.core.coordinator.group.offset_config import OffsetConfig
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.log.log_segment import system_time_ms
from kafka_edu.v1_0_2.core.server.delayed_operation import DelayedOperationPurgatory
from kafka_edu.v1_0_2.core.utils.concurrent import AtomicBoolean
from kafka_edu.v3_9.clients.common.protocol.errors import Errors

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
    from kafka_edu.v1_0_2.core.server.replica_manager import ReplicaManager
    from kafka_edu.v1_0_2.core.utils.kafka_scheduler import KafkaScheduler
    from kafka_edu.v1_0_2.core.utils.zk_utils import ZkUtils

log = logging.getLogger("kafka.coordinator.group.GroupCoordinator")

NO_STATE = ""
NO_PROTOCOL_TYPE = ""
NO_PROTOCOL = ""
NO_LEADER = ""
NO_GENERATION = -1
NO_MEMBER_ID = ""
UNKNOWN_MEMBER_ID = ""  # JoinGroupRequest.UNKNOWN_MEMBER_ID
EMPTY_GROUP = GroupSummary(NO_STATE, NO_PROTOCOL_TYPE, NO_PROTOCOL, [])
DEAD_GROUP = GroupSummary(Dead.name, NO_PROTOCOL_TYPE, NO_PROTOCOL, [])


@dataclass(frozen=True)
class GroupConfig:
    group_min_session_timeout_ms: int
    group_max_session_timeout_ms: int
    group_initial_rebalance_delay_ms: int


@dataclass(frozen=True)
class JoinGroupResult:
    """The JoinGroup answer: the leader alone gets every member's metadata (`members`), to compute the assignment."""

    members: dict[str, bytes]
    member_id: str
    generation_id: int
    sub_protocol: str | None
    leader_id: str | None
    error: Errors


JoinCallback = Callable[[JoinGroupResult], None]
SyncCallback = Callable[[bytes, Errors], None]


class GroupCoordinator:
    """Group membership and offsets for the groups whose __consumer_offsets partitions this broker leads.

    Locking: each group's lock guards it and is also the lock of its delayed operations, so purgatory checks may run
    while the group is locked. The manager's partition lock, when both are needed, is taken first.
    """

    def __init__(self, broker_id: int, group_config: GroupConfig, offset_config: OffsetConfig,
                 group_manager: GroupMetadataManager, heartbeat_purgatory: DelayedOperationPurgatory,
                 join_purgatory: DelayedOperationPurgatory, time_ms: Callable[[], int] = system_time_ms,
                 is_topic_known: Callable[[str], bool] | None = None) -> None:
        self.broker_id = broker_id
        self.group_config = group_config
        self.offset_config = offset_config
        self.group_manager = group_manager
        self.heartbeat_purgatory = heartbeat_purgatory
        self.join_purgatory = join_purgatory
        self.time_ms = time_ms
        # Optional: OffsetCommits to topics it does not know get UNKNOWN_TOPIC_OR_PARTITION (KafkaApis's check).
        self.is_topic_known = is_topic_known
        self._is_active = AtomicBoolean(False)

    @staticmethod
    def apply(config: KafkaConfig, replica_manager: ReplicaManager, scheduler: KafkaScheduler | None = None,
              time_ms: Callable[[], int] = system_time_ms, *, zk_utils: ZkUtils | None = None,
              heartbeat_purgatory: DelayedOperationPurgatory | None = None,
              join_purgatory: DelayedOperationPurgatory | None = None) -> GroupCoordinator:
        """Build the coordinator, its manager and its two purgatories from the broker config (Kafka's second
        overload takes the two purgatories: tests pass ones on a MockTimer).

        `scheduler` is the broker's; as in Kafka the manager loads and expires on its own one-thread scheduler, so
        loads and unloads of one partition stay in order. It is accepted for KafkaServer's convenience only.
        """
        if heartbeat_purgatory is None:
            heartbeat_purgatory = DelayedOperationPurgatory("Heartbeat", config.broker_id)
        if join_purgatory is None:
            join_purgatory = DelayedOperationPurgatory("Rebalance", config.broker_id)
        offset_config = GroupCoordinator.offset_config_from(config)
        group_config = GroupConfig(group_min_session_timeout_ms=config.group_min_session_timeout_ms,
                                   group_max_session_timeout_ms=config.group_max_session_timeout_ms,
                                   group_initial_rebalance_delay_ms=config.group_initial_rebalance_delay_ms)
        group_metadata_manager = GroupMetadataManager(config.broker_id, offset_config, replica_manager,
                                                      config.inter_broker_protocol_version, time_ms,
                                                      zk_utils=zk_utils)
        return GroupCoordinator(config.broker_id, group_config, offset_config, group_metadata_manager,
                                heartbeat_purgatory, join_purgatory, time_ms)

    @staticmethod
    def offset_config_from(config: KafkaConfig) -> OffsetConfig:
        return OffsetConfig(
            max_metadata_size=config.offset_metadata_max_size,
            load_buffer_size=config.offsets_load_buffer_size,
            offsets_retention_ms=config.offsets_retention_minutes * 60 * 1000,
            offsets_retention_check_interval_ms=config.offsets_retention_check_interval_ms,
            offsets_topic_num_partitions=config.offsets_topic_partitions,
            offsets_topic_segment_bytes=config.offsets_topic_segment_bytes,
            offsets_topic_replication_factor=config.offsets_topic_replication_factor,
            offsets_topic_compression_codec=config.offsets_topic_compression_codec,
            offset_commit_timeout_ms=config.offset_commit_timeout_ms,
            offset_commit_required_acks=config.offset_commit_required_acks)

    def offsets_topic_configs(self) -> dict[str, str]:
        """The topic configs __consumer_offsets is created with."""
        return {"cleanup.policy": "compact",
                "segment.bytes": str(self.offset_config.offsets_topic_segment_bytes),
                "compression.type": "producer"}

    @property
    def is_active(self) -> bool:
        return self._is_active.get()

    # -- lifecycle ------------------------------------------------------------------------------------------------

    def startup(self, enable_metadata_expiration: bool = True) -> None:
        log.info("Starting up.")
        self.group_manager.startup(enable_metadata_expiration)
        self._is_active.set(True)
        log.info("Startup complete.")

    def shutdown(self) -> None:
        """The reverse of startup."""
        log.info("Shutting down.")
        self._is_active.set(False)
        self.group_manager.shutdown()
        self.heartbeat_purgatory.shutdown()
        self.join_purgatory.shutdown()
        log.info("Shutdown complete.")

    # -- JoinGroup ------------------------------------------------------------------------------------------------

    def handle_join_group(self, group_id: str, member_id: str, client_id: str, client_host: str,
                          rebalance_timeout_ms: int, session_timeout_ms: int, protocol_type: str,
                          protocols: list[tuple[str, bytes]], response_callback: JoinCallback) -> None:
        if not self.is_active:
            response_callback(self._join_error(member_id, Errors.COORDINATOR_NOT_AVAILABLE))
        elif not self._valid_group_id(group_id):
            response_callback(self._join_error(member_id, Errors.INVALID_GROUP_ID))
        elif not self._is_coordinator_for_group(group_id):
            response_callback(self._join_error(member_id, Errors.NOT_COORDINATOR))
        elif self._is_coordinator_load_in_progress(group_id):
            response_callback(self._join_error(member_id, Errors.COORDINATOR_LOAD_IN_PROGRESS))
        elif (session_timeout_ms < self.group_config.group_min_session_timeout_ms
              or session_timeout_ms > self.group_config.group_max_session_timeout_ms):
            response_callback(self._join_error(member_id, Errors.INVALID_SESSION_TIMEOUT))
        else:
            # A group is created only for a new member; a known member id for an unknown group is refused.
            group = self.group_manager.get_group(group_id)
            if group is None:
                if member_id != UNKNOWN_MEMBER_ID:
                    response_callback(self._join_error(member_id, Errors.UNKNOWN_MEMBER_ID))
                    return
                group = self.group_manager.add_group(GroupMetadata(group_id, initial_state=Empty))
            self._do_join_group(group, member_id, client_id, client_host, rebalance_timeout_ms,
                                session_timeout_ms, protocol_type, protocols, response_callback)

    def _do_join_group(self, group: GroupMetadata, member_id: str, client_id: str, client_host: str,
                       rebalance_timeout_ms: int, session_timeout_ms: int, protocol_type: str,
                       protocols: list[tuple[str, bytes]], response_callback: JoinCallback) -> None:
        with group.in_lock():
            if not group.is_(Empty) and (group.protocol_type != protocol_type
                                         or not group.supports_protocols({name for name, _ in protocols})):
                # The new member cannot speak the group's protocol.
                response_callback(self._join_error(member_id, Errors.INCONSISTENT_GROUP_PROTOCOL))
            elif group.is_(Empty) and (not protocols or not protocol_type):
                # The first member must name a protocol type and at least one protocol.
                response_callback(self._join_error(member_id, Errors.INCONSISTENT_GROUP_PROTOCOL))
            elif member_id != UNKNOWN_MEMBER_ID and not group.has(member_id):
                # The member should forget its id and join as a new member.
                response_callback(self._join_error(member_id, Errors.UNKNOWN_MEMBER_ID))
            else:
                state = group.current_state
                if state is Dead:
                    # Removed from this coordinator meanwhile (emigrated or expired): let the member rejoin anew.
                    response_callback(self._join_error(member_id, Errors.UNKNOWN_MEMBER_ID))
                elif state is PreparingRebalance:
                    if member_id == UNKNOWN_MEMBER_ID:
                        self._add_member_and_rebalance(rebalance_timeout_ms, session_timeout_ms, client_id,
                                                       client_host, protocol_type, protocols, group,
                                                       response_callback)
                    else:
                        member = group.get(member_id)
                        self._update_member_and_rebalance(group, member, protocols, response_callback)
                elif state is AwaitingSync:
                    if member_id == UNKNOWN_MEMBER_ID:
                        self._add_member_and_rebalance(rebalance_timeout_ms, session_timeout_ms, client_id,
                                                       client_host, protocol_type, protocols, group,
                                                       response_callback)
                    else:
                        member = group.get(member_id)
                        if member.matches(protocols):
                            # Same metadata (the member missed our JoinGroup answer): answer it again.
                            response_callback(JoinGroupResult(
                                members=group.current_member_metadata() if group.is_leader(member_id) else {},
                                member_id=member_id,
                                generation_id=group.generation_id,
                                sub_protocol=group.protocol_or_null,
                                leader_id=group.leader_or_null,
                                error=Errors.NONE))
                        else:
                            # Changed metadata: rebalance again.
                            self._update_member_and_rebalance(group, member, protocols, response_callback)
                else:  # Empty or Stable
                    if member_id == UNKNOWN_MEMBER_ID:
                        self._add_member_and_rebalance(rebalance_timeout_ms, session_timeout_ms, client_id,
                                                       client_host, protocol_type, protocols, group,
                                                       response_callback)
                    else:
                        member = group.get(member_id)
                        if group.is_leader(member_id) or not member.matches(protocols):
                            # A leader's JoinGroup forces a rebalance: it may have seen a change (new topic
                            # partitions) that the members' metadata does not show.
                            self._update_member_and_rebalance(group, member, protocols, response_callback)
                        else:
                            # A follower with unchanged metadata just gets the current generation back.
                            response_callback(JoinGroupResult(
                                members={},
                                member_id=member_id,
                                generation_id=group.generation_id,
                                sub_protocol=group.protocol_or_null,
                                leader_id=group.leader_or_null,
                                error=Errors.NONE))
                if group.is_(PreparingRebalance):
                    self.join_purgatory.check_and_complete(GroupKey(group.group_id))

    # -- SyncGroup ------------------------------------------------------------------------------------------------

    def handle_sync_group(self, group_id: str, generation: int, member_id: str, group_assignment: dict[str, bytes],
                          response_callback: SyncCallback) -> None:
        if not self.is_active:
            response_callback(b"", Errors.COORDINATOR_NOT_AVAILABLE)
        elif not self._is_coordinator_for_group(group_id):
            response_callback(b"", Errors.NOT_COORDINATOR)
        else:
            group = self.group_manager.get_group(group_id)
            if group is None:
                response_callback(b"", Errors.UNKNOWN_MEMBER_ID)
            else:
                self._do_sync_group(group, generation, member_id, group_assignment, response_callback)

    def _do_sync_group(self, group: GroupMetadata, generation_id: int, member_id: str,
                       group_assignment: dict[str, bytes], response_callback: SyncCallback) -> None:
        with group.in_lock():
            if not group.has(member_id):
                response_callback(b"", Errors.UNKNOWN_MEMBER_ID)
            elif generation_id != group.generation_id:
                response_callback(b"", Errors.ILLEGAL_GENERATION)
            else:
                state = group.current_state
                if state is Empty or state is Dead:
                    response_callback(b"", Errors.UNKNOWN_MEMBER_ID)
                elif state is PreparingRebalance:
                    response_callback(b"", Errors.REBALANCE_IN_PROGRESS)
                elif state is AwaitingSync:
                    group.get(member_id).awaiting_sync_callback = response_callback
                    # The leader's SyncGroup carries the assignment: persist it, then move to Stable.
                    if group.is_leader(member_id):
                        log.info("Assignment received from leader for group %s for generation %d", group.group_id,
                                 group.generation_id)
                        # Members the leader left out get an empty assignment.
                        assignment = {**{m: b"" for m in group.all_members() - set(group_assignment)},
                                      **group_assignment}

                        def on_store(error: Errors) -> None:
                            with group.in_lock():
                                # Another member may have joined while the write was in flight: act only if this
                                # generation is still waiting for its assignment.
                                if group.is_(AwaitingSync) and generation_id == group.generation_id:
                                    if error != Errors.NONE:
                                        self._reset_and_propagate_assignment_error(group, error)
                                        self._maybe_prepare_rebalance(group)
                                    else:
                                        self._set_and_propagate_assignment(group, assignment)
                                        group.transition_to(Stable)

                        self.group_manager.store_group(group, assignment, on_store)
                else:  # Stable: hand out the current assignment
                    member_metadata = group.get(member_id)
                    response_callback(member_metadata.assignment, Errors.NONE)
                    self._complete_and_schedule_next_heartbeat_expiration(group, group.get(member_id))

    # -- LeaveGroup -----------------------------------------------------------------------------------------------

    def handle_leave_group(self, group_id: str, member_id: str, response_callback: Callable[[Errors], None]) -> None:
        if not self.is_active:
            response_callback(Errors.COORDINATOR_NOT_AVAILABLE)
        elif not self._is_coordinator_for_group(group_id):
            response_callback(Errors.NOT_COORDINATOR)
        elif self._is_coordinator_load_in_progress(group_id):
            response_callback(Errors.COORDINATOR_LOAD_IN_PROGRESS)
        else:
            group = self.group_manager.get_group(group_id)
            if group is None:
                # Removed meanwhile (emigrated, expired): the member should rejoin without its id.
                response_callback(Errors.UNKNOWN_MEMBER_ID)
                return
            with group.in_lock():
                if group.is_(Dead) or not group.has(member_id):
                    response_callback(Errors.UNKNOWN_MEMBER_ID)
                else:
                    member = group.get(member_id)
                    self._remove_heartbeat_for_leaving_member(group, member)
                    log.debug("Member %s in group %s has left, removing it from the group", member.member_id,
                              group.group_id)
                    self._remove_member_and_update_group(group, member)
                    response_callback(Errors.NONE)

    # -- DeleteGroups (Kafka 1.1) ---------------------------------------------------------------------------------

    def handle_delete_groups(self, group_ids: set[str]) -> dict[str, Errors]:
        if not self.is_active:
            return {group_id: Errors.COORDINATOR_NOT_AVAILABLE for group_id in group_ids}
        group_errors: dict[str, Errors] = {}
        eligible_groups: list[GroupMetadata] = []
        for group_id in group_ids:
            if not self._valid_group_id(group_id):
                group_errors[group_id] = Errors.INVALID_GROUP_ID
            elif not self._is_coordinator_for_group(group_id):
                group_errors[group_id] = Errors.NOT_COORDINATOR
            elif self._is_coordinator_load_in_progress(group_id):
                group_errors[group_id] = Errors.COORDINATOR_LOAD_IN_PROGRESS
            else:
                group = self.group_manager.get_group(group_id)
                if group is None:
                    group_errors[group_id] = (Errors.GROUP_ID_NOT_FOUND if self.group_manager.group_not_exists(
                        group_id) else Errors.NOT_COORDINATOR)
                    continue
                with group.in_lock():
                    if group.is_(Dead):
                        group_errors[group_id] = (Errors.GROUP_ID_NOT_FOUND
                                                  if self.group_manager.group_not_exists(group_id)
                                                  else Errors.NOT_COORDINATOR)
                    elif group.is_(Empty):
                        group.transition_to(Dead)
                        eligible_groups.append(group)
                    else:
                        group_errors[group_id] = Errors.NON_EMPTY_GROUP
        if eligible_groups:
            # Long.MaxValue as "now": every offset of these groups has expired.
            self.group_manager.cleanup_group_metadata(None, eligible_groups, 2**63 - 1)
            group_errors.update({group.group_id: Errors.NONE for group in eligible_groups})
            log.info("The following groups were deleted: %s", ", ".join(g.group_id for g in eligible_groups))
        return group_errors

    # -- Heartbeat ------------------------------------------------------------------------------------------------

    def handle_heartbeat(self, group_id: str, member_id: str, generation_id: int,
                         response_callback: Callable[[Errors], None]) -> None:
        if not self.is_active:
            response_callback(Errors.COORDINATOR_NOT_AVAILABLE)
        elif not self._is_coordinator_for_group(group_id):
            response_callback(Errors.NOT_COORDINATOR)
        elif self._is_coordinator_load_in_progress(group_id):
            # The group is still loading: answer blindly.
            response_callback(Errors.NONE)
        else:
            group = self.group_manager.get_group(group_id)
            if group is None:
                response_callback(Errors.UNKNOWN_MEMBER_ID)
                return
            with group.in_lock():
                state = group.current_state
                if state is Dead or state is Empty:
                    response_callback(Errors.UNKNOWN_MEMBER_ID)
                elif state is AwaitingSync:
                    response_callback(Errors.UNKNOWN_MEMBER_ID if not group.has(member_id)
                                      else Errors.REBALANCE_IN_PROGRESS)
                elif state is PreparingRebalance:
                    if not group.has(member_id):
                        response_callback(Errors.UNKNOWN_MEMBER_ID)
                    elif generation_id != group.generation_id:
                        response_callback(Errors.ILLEGAL_GENERATION)
                    else:
                        self._complete_and_schedule_next_heartbeat_expiration(group, group.get(member_id))
                        response_callback(Errors.REBALANCE_IN_PROGRESS)
                else:  # Stable
                    if not group.has(member_id):
                        response_callback(Errors.UNKNOWN_MEMBER_ID)
                    elif generation_id != group.generation_id:
                        response_callback(Errors.ILLEGAL_GENERATION)
                    else:
                        self._complete_and_schedule_next_heartbeat_expiration(group, group.get(member_id))
                        response_callback(Errors.NONE)

    # -- OffsetCommit / OffsetFetch -------------------------------------------------------------------------------

    def handle_commit_offsets(self, group_id: str, member_id: str, generation_id: int,
                              offset_metadata: dict[tuple[str, int], OffsetAndMetadata],
                              response_callback: Callable[[dict[tuple[str, int], Errors]], None]) -> None:
        offset_metadata = {TopicPartition(*tp): offset for tp, offset in offset_metadata.items()}
        if self.is_topic_known is not None:
            # KafkaApis's check, done here when the hook is set: unknown topics are answered, the rest go on.
            unknown = {tp: Errors.UNKNOWN_TOPIC_OR_PARTITION for tp in offset_metadata
                       if not self.is_topic_known(tp.topic)}
            if unknown:
                offset_metadata = {tp: offset for tp, offset in offset_metadata.items() if tp not in unknown}
                if not offset_metadata:
                    response_callback(unknown)
                    return
                response_callback = _with_errors(response_callback, unknown)
        error = self._validate_group(group_id)
        if error is not None:
            response_callback({tp: error for tp in offset_metadata})
            return
        group = self.group_manager.get_group(group_id)
        if group is None:
            if generation_id < 0:
                # The group does not use Kafka's group management, only its offset storage: accept the commit.
                group = self.group_manager.add_group(GroupMetadata(group_id, initial_state=Empty))
            else:
                # A commit from a generation this coordinator does not know.
                response_callback({tp: Errors.ILLEGAL_GENERATION for tp in offset_metadata})
                return
        self._do_commit_offsets(group, member_id, generation_id, offset_metadata, response_callback)

    @step("TX.offsets")
    def handle_txn_commit_offsets(self, group_id: str, producer_id: int, producer_epoch: int,
                                  offset_metadata: dict[TopicPartition, OffsetAndMetadata],
                                  response_callback: Callable[[dict[TopicPartition, Errors]], None]) -> None:
        """A transaction's offsets for the group: written now, the group's only once the transaction commits."""
        error = Errors.INVALID_GROUP_ID if not self._valid_group_id(group_id) else self._validate_group(group_id)
        if error is not None:
            response_callback({tp: error for tp in offset_metadata})
            return
        group = self.group_manager.get_group(group_id)
        if group is None:
            group = self.group_manager.add_group(GroupMetadata(group_id, initial_state=Empty))
        self._do_commit_offsets(group, NO_MEMBER_ID, NO_GENERATION, offset_metadata, response_callback,
                                producer_id, producer_epoch)

    def schedule_handle_txn_completion(self, producer_id: int, offsets_partitions: Iterable[TopicPartition],
                                       transaction_result: TransactionResult) -> None:
        """A producer's COMMIT or ABORT marker reached these offsets partitions (the partition leaders' WriteTxnMarkers
        handling calls this): its pending offsets there count, or are dropped."""
        offsets_partitions = [TopicPartition(*tp) for tp in offsets_partitions]
        if any(tp.topic != GROUP_METADATA_TOPIC_NAME for tp in offsets_partitions):
            raise IllegalArgumentException(f"Not all partitions are offsets partitions: {offsets_partitions}")
        is_commit = transaction_result is TransactionResult.COMMIT
        self.group_manager.schedule_handle_txn_completion(producer_id, {tp.partition for tp in offsets_partitions},
                                                          is_commit)

    def _do_commit_offsets(self, group: GroupMetadata, member_id: str, generation_id: int,
                           offset_metadata: dict[TopicPartition, OffsetAndMetadata],
                           response_callback: Callable[[dict[TopicPartition, Errors]], None],
                           producer_id: int = NO_PRODUCER_ID, producer_epoch: int = NO_PRODUCER_EPOCH) -> None:
        with group.in_lock():
            if group.is_(Dead):
                response_callback({tp: Errors.UNKNOWN_MEMBER_ID for tp in offset_metadata})
            elif (generation_id < 0 and group.is_(Empty)) or producer_id != NO_PRODUCER_ID:
                # The group only stores offsets here; or a transaction commits them, which no membership or
                # generation check applies to.
                self.group_manager.store_offsets(group, member_id, offset_metadata, response_callback, producer_id,
                                                 producer_epoch)
            elif group.is_(AwaitingSync):
                response_callback({tp: Errors.REBALANCE_IN_PROGRESS for tp in offset_metadata})
            elif not group.has(member_id):
                response_callback({tp: Errors.UNKNOWN_MEMBER_ID for tp in offset_metadata})
            elif generation_id != group.generation_id:
                response_callback({tp: Errors.ILLEGAL_GENERATION for tp in offset_metadata})
            else:
                member = group.get(member_id)
                self._complete_and_schedule_next_heartbeat_expiration(group, member)
                self.group_manager.store_offsets(group, member_id, offset_metadata, response_callback)

    def handle_fetch_offsets(self, group_id: str, partitions: list[tuple[str, int]] | None = None
                             ) -> tuple[Errors, dict[TopicPartition, PartitionData]]:
        if not self.is_active:
            return Errors.COORDINATOR_NOT_AVAILABLE, {}
        if not self._is_coordinator_for_group(group_id):
            log.debug("Could not fetch offsets for group %s (not group coordinator)", group_id)
            return Errors.NOT_COORDINATOR, {}
        if self._is_coordinator_load_in_progress(group_id):
            return Errors.COORDINATOR_LOAD_IN_PROGRESS, {}
        # Whatever the group's state: a group may use Kafka for offsets only, without group management.
        return Errors.NONE, self.group_manager.get_offsets(group_id, partitions)

    # -- ListGroups / DescribeGroups ------------------------------------------------------------------------------

    def handle_list_groups(self) -> tuple[Errors, list[GroupOverview]]:
        if not self.is_active:
            return Errors.COORDINATOR_NOT_AVAILABLE, []
        error = Errors.COORDINATOR_LOAD_IN_PROGRESS if self.group_manager.is_loading() else Errors.NONE
        return error, [group.overview() for group in self.group_manager.current_groups()]

    def handle_describe_group(self, group_id: str) -> tuple[Errors, GroupSummary]:
        if not self.is_active:
            return Errors.COORDINATOR_NOT_AVAILABLE, EMPTY_GROUP
        if not self._is_coordinator_for_group(group_id):
            return Errors.NOT_COORDINATOR, EMPTY_GROUP
        if self._is_coordinator_load_in_progress(group_id):
            return Errors.COORDINATOR_LOAD_IN_PROGRESS, EMPTY_GROUP
        group = self.group_manager.get_group(group_id)
        if group is None:
            return Errors.NONE, DEAD_GROUP
        with group.in_lock():
            return Errors.NONE, group.summary()

    def handle_deleted_partitions(self, topic_partitions: list[TopicPartition]) -> None:
        self.group_manager.cleanup_group_metadata(topic_partitions)

    def _validate_group(self, group_id: str) -> Errors | None:
        if not self.is_active:
            return Errors.COORDINATOR_NOT_AVAILABLE
        if not self._is_coordinator_for_group(group_id):
            return Errors.NOT_COORDINATOR
        if self._is_coordinator_load_in_progress(group_id):
            return Errors.COORDINATOR_LOAD_IN_PROGRESS
        return None

    # -- leadership of __consumer_offsets partitions --------------------------------------------------------------

    def _on_group_unloaded(self, group: GroupMetadata) -> None:
        with group.in_lock():
            log.info("Unloading group metadata for %s with generation %d", group.group_id, group.generation_id)
            previous_state = group.current_state
            group.transition_to(Dead)
            if previous_state is PreparingRebalance:
                for member in group.all_member_metadata():
                    if member.awaiting_join_callback is not None:
                        member.awaiting_join_callback(self._join_error(member.member_id, Errors.NOT_COORDINATOR))
                        member.awaiting_join_callback = None
                self.join_purgatory.check_and_complete(GroupKey(group.group_id))
            elif previous_state is Stable or previous_state is AwaitingSync:
                for member in group.all_member_metadata():
                    if member.awaiting_sync_callback is not None:
                        member.awaiting_sync_callback(b"", Errors.NOT_COORDINATOR)
                        member.awaiting_sync_callback = None
                    self.heartbeat_purgatory.check_and_complete(MemberKey(member.group_id, member.member_id))

    def _on_group_loaded(self, group: GroupMetadata) -> None:
        with group.in_lock():
            log.info("Loading group metadata for %s with generation %d", group.group_id, group.generation_id)
            assert group.is_(Stable) or group.is_(Empty)
            for member in group.all_member_metadata():
                self._complete_and_schedule_next_heartbeat_expiration(group, member)

    def handle_group_immigration(self, offset_topic_partition_id: int) -> None:
        """This broker became leader of __consumer_offsets-<id>: load its groups (in the background)."""
        self.group_manager.load_groups_for_partition(offset_topic_partition_id, self._on_group_loaded)

    def handle_group_emigration(self, offset_topic_partition_id: int) -> None:
        """This broker stopped leading __consumer_offsets-<id>: unload its groups (in the background)."""
        self.group_manager.remove_groups_for_partition(offset_topic_partition_id, self._on_group_unloaded)

    # -- assignment propagation -----------------------------------------------------------------------------------

    def _set_and_propagate_assignment(self, group: GroupMetadata, assignment: dict[str, bytes]) -> None:
        assert group.is_(AwaitingSync)
        for member in group.all_member_metadata():
            member.assignment = assignment[member.member_id]
        self._propagate_assignment(group, Errors.NONE)

    def _reset_and_propagate_assignment_error(self, group: GroupMetadata, error: Errors) -> None:
        assert group.is_(AwaitingSync)
        for member in group.all_member_metadata():
            member.assignment = b""
        self._propagate_assignment(group, error)

    def _propagate_assignment(self, group: GroupMetadata, error: Errors) -> None:
        for member in group.all_member_metadata():
            if member.awaiting_sync_callback is not None:
                member.awaiting_sync_callback(member.assignment, error)
                member.awaiting_sync_callback = None
                # A session that expired while the member waited was ignored: expect heartbeats from now on.
                self._complete_and_schedule_next_heartbeat_expiration(group, member)

    @staticmethod
    def _valid_group_id(group_id: str | None) -> bool:
        return group_id is not None and group_id != ""

    @staticmethod
    def _join_error(member_id: str, error: Errors) -> JoinGroupResult:
        return JoinGroupResult(members={}, member_id=member_id, generation_id=0, sub_protocol=NO_PROTOCOL,
                               leader_id=NO_LEADER, error=error)

    # -- sessions -------------------------------------------------------------------------------------------------

    def _complete_and_schedule_next_heartbeat_expiration(self, group: GroupMetadata, member: MemberMetadata) -> None:
        """The member was heard from: complete its current session expectation and start the next one."""
        member.latest_heartbeat = self.time_ms()
        member_key = MemberKey(member.group_id, member.member_id)
        self.heartbeat_purgatory.check_and_complete(member_key)
        new_heartbeat_deadline = member.latest_heartbeat + member.session_timeout_ms
        delayed_heartbeat = DelayedHeartbeat(self, group, member, new_heartbeat_deadline, member.session_timeout_ms)
        self.heartbeat_purgatory.try_complete_else_watch(delayed_heartbeat, [member_key])

    def _remove_heartbeat_for_leaving_member(self, group: GroupMetadata, member: MemberMetadata) -> None:
        member.is_leaving = True
        self.heartbeat_purgatory.check_and_complete(MemberKey(member.group_id, member.member_id))

    # -- rebalance ------------------------------------------------------------------------------------------------

    def _add_member_and_rebalance(self, rebalance_timeout_ms: int, session_timeout_ms: int, client_id: str,
                                  client_host: str, protocol_type: str, protocols: list[tuple[str, bytes]],
                                  group: GroupMetadata, callback: JoinCallback) -> MemberMetadata:
        member_id = f"{client_id}-{group.generate_member_id_suffix()}"
        member = MemberMetadata(member_id, group.group_id, client_id, client_host, rebalance_timeout_ms,
                                session_timeout_ms, protocol_type, protocols)
        member.awaiting_join_callback = callback
        # During the first rebalance a new member extends the initial delay once more.
        if group.is_(PreparingRebalance) and group.generation_id == 0:
            group.new_member_added = True
        group.add(member)
        self._maybe_prepare_rebalance(group)
        return member

    def _update_member_and_rebalance(self, group: GroupMetadata, member: MemberMetadata,
                                     protocols: list[tuple[str, bytes]], callback: JoinCallback) -> None:
        member.supported_protocols = list(protocols)
        member.awaiting_join_callback = callback
        self._maybe_prepare_rebalance(group)

    def _maybe_prepare_rebalance(self, group: GroupMetadata) -> None:
        with group.in_lock():
            if group.can_rebalance():
                self._prepare_rebalance(group)

    def _prepare_rebalance(self, group: GroupMetadata) -> None:
        # Members waiting in SyncGroup are told to rejoin.
        if group.is_(AwaitingSync):
            self._reset_and_propagate_assignment_error(group, Errors.REBALANCE_IN_PROGRESS)
        if group.is_(Empty):
            initial_delay = self.group_config.group_initial_rebalance_delay_ms
            delayed_rebalance: DelayedJoin = InitialDelayedJoin(
                self, self.join_purgatory, group, initial_delay, initial_delay,
                max(group.rebalance_timeout_ms - initial_delay, 0))
        else:
            delayed_rebalance = DelayedJoin(self, group, group.rebalance_timeout_ms)
        group.transition_to(PreparingRebalance)
        log.info("Preparing to rebalance group %s with old generation %d (%s-%d)", group.group_id,
                 group.generation_id, GROUP_METADATA_TOPIC_NAME, self.partition_for(group.group_id))
        self.join_purgatory.try_complete_else_watch(delayed_rebalance, [GroupKey(group.group_id)])

    def _remove_member_and_update_group(self, group: GroupMetadata, member: MemberMetadata) -> None:
        group.remove(member.member_id)
        state = group.current_state
        if state is Stable or state is AwaitingSync:
            self._maybe_prepare_rebalance(group)
        elif state is PreparingRebalance:
            self.join_purgatory.check_and_complete(GroupKey(group.group_id))

    def try_complete_join(self, group: GroupMetadata, force_complete: Callable[[], bool]) -> bool:
        with group.in_lock():
            if not group.not_yet_rejoined_members():
                return force_complete()
            return False

    def on_expire_join(self) -> None:
        """Kafka has a TODO here (rebalance metrics)."""

    def on_complete_join(self, group: GroupMetadata) -> None:
        """Every member rejoined, or the rebalance timed out: start the next generation and answer the JoinGroups."""
        with group.in_lock(), span("GroupCoordinator.onCompleteJoin", group=group):
            # Members that did not rejoin in time are out.
            for failed_member in group.not_yet_rejoined_members():
                group.remove(failed_member.member_id)
            if group.is_(Dead):
                return
            group.init_next_generation()
            if group.is_(Empty):
                log.info("Group %s with generation %d is now empty (%s-%d)", group.group_id, group.generation_id,
                         GROUP_METADATA_TOPIC_NAME, self.partition_for(group.group_id))

                def on_store(error: Errors) -> None:
                    if error != Errors.NONE:
                        # Safe to only warn: an empty generation has no member that could act on stale metadata.
                        log.warning("Failed to write empty metadata for group %s: %s", group.group_id, error.name)

                self.group_manager.store_group(group, {}, on_store)
            else:
                log.info("Stabilized group %s generation %d (%s-%d)", group.group_id, group.generation_id,
                         GROUP_METADATA_TOPIC_NAME, self.partition_for(group.group_id))
                # Answer every waiting JoinGroup; the leader's answer carries all members' metadata.
                for member in group.all_member_metadata():
                    assert member.awaiting_join_callback is not None
                    join_result = JoinGroupResult(
                        members=group.current_member_metadata() if group.is_leader(member.member_id) else {},
                        member_id=member.member_id,
                        generation_id=group.generation_id,
                        sub_protocol=group.protocol_or_null,
                        leader_id=group.leader_or_null,
                        error=Errors.NONE)
                    member.awaiting_join_callback(join_result)
                    member.awaiting_join_callback = None
                    self._complete_and_schedule_next_heartbeat_expiration(group, member)

    def try_complete_heartbeat(self, group: GroupMetadata, member: MemberMetadata, heartbeat_deadline: int,
                               force_complete: Callable[[], bool]) -> bool:
        with group.in_lock():
            if self._should_keep_member_alive(member, heartbeat_deadline) or member.is_leaving:
                return force_complete()
            return False

    def on_expire_heartbeat(self, group: GroupMetadata, member: MemberMetadata, heartbeat_deadline: int) -> None:
        with group.in_lock():
            if not self._should_keep_member_alive(member, heartbeat_deadline):
                with span("GroupCoordinator.onExpireHeartbeat", group=group, member=member):
                    log.info("Member %s in group %s has failed, removing it from the group", member.member_id,
                             group.group_id)
                    self._remove_member_and_update_group(group, member)

    def on_complete_heartbeat(self) -> None:
        """Kafka has a TODO here (heartbeat metrics)."""

    def partition_for(self, group: str) -> int:
        return self.group_manager.partition_for(group)

    @staticmethod
    def _should_keep_member_alive(member: MemberMetadata, heartbeat_deadline: int) -> bool:
        return (member.awaiting_join_callback is not None or member.awaiting_sync_callback is not None
                or member.latest_heartbeat + member.session_timeout_ms > heartbeat_deadline)

    def _is_coordinator_for_group(self, group_id: str) -> bool:
        return self.group_manager.is_group_local(group_id)

    def _is_coordinator_load_in_progress(self, group_id: str) -> bool:
        return self.group_manager.is_group_loading(group_id)

    def is_group_loading(self, group_id: str) -> bool:
        """Is the group's offsets partition being loaded right now (requests get COORDINATOR_LOAD_IN_PROGRESS)?"""
        return self._is_coordinator_load_in_progress(group_id)


def _with_errors(callback: Callable[[dict[TopicPartition, Errors]], None], errors: dict[TopicPartition, Errors]
                 ) -> Callable[[dict[TopicPartition, Errors]], None]:
    """A commit callback that also reports the partitions answered before the commit reached the group."""
    return lambda result: callback({**errors, **result})
