"""Port of core/src/main/scala/kafka/server/ReplicaManager.scala (Kafka 3.9): the partitions this broker hosts, the
produce, fetch and DeleteRecords paths over them with their purgatories, and the leader/follower transitions a KRaft
broker derives from each metadata delta (applyDelta)."""

from __future__ import annotations

import importlib
import logging
import os
import shutil
import threading
import uuid as _py_uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kio.schema.describe_log_dirs.v4.response import (
    DescribeLogDirsPartition,
    DescribeLogDirsResult,
    DescribeLogDirsTopic,
)
from kio.schema.offset_for_leader_epoch.v4.request import OffsetForLeaderTopic
from kio.schema.offset_for_leader_epoch.v4.response import EpochEndOffset, OffsetForLeaderTopicResult
from kio.schema.types import TopicName
from kio.static.primitive import i32, i64

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import (
    ApiException,
    CorruptRecordException,
    IllegalStateException,
    InvalidProducerEpochException,
    InvalidTopicException,
    KafkaStorageException,
    LogDirNotFoundException,
    NotEnoughReplicasException,
    OffsetOutOfRangeException,
    PolicyViolationException,
    RecordBatchTooLargeException,
    RecordTooLargeException,
    ReplicaNotAvailableException,
    UnknownTopicOrPartitionException,
)
from kafka_edu.v3_9.clients.common.errors.fenced_leader_epoch_exception import FencedLeaderEpochException
from kafka_edu.v3_9.clients.common.errors.inconsistent_topic_id_exception import InconsistentTopicIdException
from kafka_edu.v3_9.clients.common.errors.invalid_pid_mapping_exception import InvalidPidMappingException
from kafka_edu.v3_9.clients.common.errors.not_leader_or_follower_exception import NotLeaderOrFollowerException
from kafka_edu.v3_9.clients.common.errors.unknown_leader_epoch_exception import UnknownLeaderEpochException
from kafka_edu.v3_9.clients.common.internals import topic as Topic
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.file_records import TimestampAndOffset
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record_batch import NO_PARTITION_LEADER_EPOCH, NO_TIMESTAMP
from kafka_edu.v3_9.clients.common.replica.client_metadata import ClientMetadata
from kafka_edu.v3_9.clients.common.replica.partition_view import DefaultPartitionView
from kafka_edu.v3_9.clients.common.replica.rack_aware_replica_selector import RackAwareReplicaSelector
from kafka_edu.v3_9.clients.common.replica.replica_selector import ReplicaSelector
from kafka_edu.v3_9.clients.common.replica.replica_view import DefaultReplicaView, ReplicaView
from kafka_edu.v3_9.clients.common.requests.fetch_request import PartitionData
from kafka_edu.v3_9.clients.common.requests.produce_response import PartitionResponse
from kafka_edu.v3_9.clients.common.topic_id_partition import TopicIdPartition
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.clients.common.uuid import ZERO_UUID, Uuid
from kafka_edu.v3_9.core.cluster.broker_end_point import BrokerEndPoint
from kafka_edu.v3_9.core.cluster.partition import (
    LeaderAndIsrPartitionState,
    LogDeleteRecordsResult,
    Partition,
    PartitionListener,
)
from kafka_edu.v3_9.core.log.log_manager import LogManager
from kafka_edu.v3_9.core.log.unified_log import UNKNOWN_OFFSET, UnifiedLog, log_future_dir_name
from kafka_edu.v3_9.core.server.abstract_fetcher_manager import InitialFetchState
from kafka_edu.v3_9.core.server.action_queue import ActionQueue, DelayedActionQueue
from kafka_edu.v3_9.core.server.checkpoints.offset_checkpoint_file import LazyOffsetCheckpoints, OffsetCheckpointFile
from kafka_edu.v3_9.core.server.delayed_delete_records import (
    DelayedDeleteRecords,
    DeleteRecordsPartitionResult,
    DeleteRecordsPartitionStatus,
)
from kafka_edu.v3_9.core.server.delayed_fetch import DelayedFetch, FetchPartitionStatus
from kafka_edu.v3_9.core.server.delayed_operation import DelayedOperationPurgatory
from kafka_edu.v3_9.core.server.delayed_operation_key import DelayedOperationKey, TopicPartitionOperationKey
from kafka_edu.v3_9.core.server.delayed_produce import DelayedProduce, ProduceMetadata, ProducePartitionStatus
from kafka_edu.v3_9.core.server.kafka_request_handler import wrap_async_callback
from kafka_edu.v3_9.metadata.image.local_replica_changes import PartitionInfo, local_changes
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.metadata.image.topics_delta import TopicsDelta
from kafka_edu.v3_9.metadata.metadata.partition_registration import NO_LEADER, PartitionRegistration
from kafka_edu.v3_9.raft.raft.voter_set import Node
from kafka_edu.v3_9.server_common.server.common.topic_id_partition import TopicIdPartition as ServerTopicIdPartition
from kafka_edu.v3_9.server_common.server.storage.log.fetch_partition_data import FetchPartitionData
from kafka_edu.v3_9.server_common.server.util.shutdownable_thread import ShutdownableThread
from kafka_edu.v3_9.storage.storage.internals.log.append_origin import AppendOrigin
from kafka_edu.v3_9.storage.storage.internals.log.fetch_data_info import FetchDataInfo
from kafka_edu.v3_9.storage.storage.internals.log.fetch_params import FetchParams
from kafka_edu.v3_9.storage.storage.internals.log.leader_hw_change import LeaderHwChange
from kafka_edu.v3_9.storage.storage.internals.log.log_append_info import LogAppendInfo
from kafka_edu.v3_9.storage.storage.internals.log.log_dir_failure_channel import LogDirFailureChannel
from kafka_edu.v3_9.storage.storage.internals.log.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.storage.storage.internals.log.record_validation_exception import RecordValidationException
from kafka_edu.v3_9.storage.storage.internals.log.verification_guard import VerificationGuard

log = logging.getLogger("kafka.server.ReplicaManager")
state_change_logger = logging.getLogger("state.change.logger")

HIGH_WATERMARK_FILENAME = "replication-offset-checkpoint"
NO_NODE = Node(-1, "", -1)  # Node.noNode()


# -- results ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LogAppendResult:
    """The outcome of appending to one partition's log."""

    info: LogAppendInfo
    exception: BaseException | None
    has_custom_error_message: bool

    @property
    def error(self) -> Errors:
        return Errors.NONE if self.exception is None else Errors.for_exception(self.exception)

    @property
    def error_message(self) -> str | None:
        if self.exception is not None and self.has_custom_error_message:
            return str(self.exception)
        return None


@dataclass(frozen=True)
class StopPartition:
    topic_partition: TopicPartition
    delete_local_log: bool
    delete_remote_log: bool = False
    stop_remote_log_metadata_manager: bool = False


@dataclass(frozen=True)
class LogReadResult:
    """The outcome of reading one partition's log, with the leader's offsets at the time of the read."""

    info: FetchDataInfo
    diverging_epoch: Any | None
    high_watermark: int
    leader_log_start_offset: int
    leader_log_end_offset: int
    follower_log_start_offset: int
    fetch_time_ms: int
    last_stable_offset: int | None
    preferred_read_replica: int | None = None
    exception: BaseException | None = None

    @property
    def error(self) -> Errors:
        return Errors.NONE if self.exception is None else Errors.for_exception(self.exception)

    def to_fetch_partition_data(self, is_reassignment_fetch: bool) -> FetchPartitionData:
        return FetchPartitionData(self.error, self.high_watermark, self.leader_log_start_offset, self.info.records,
                                  self.diverging_epoch, self.last_stable_offset, self.info.aborted_transactions,
                                  self.preferred_read_replica, is_reassignment_fetch)


class HostedPartition:
    """What this broker holds of a partition: nothing (NONE), an online Partition, or one in an offline log dir."""

    NONE: HostedPartition

    @dataclass(frozen=True, eq=False)
    class Online:
        partition: Partition

    @dataclass(frozen=True, eq=False)
    class Offline:
        partition: Partition | None


class _NoneHostedPartition(HostedPartition):
    def __repr__(self) -> str:
        return "HostedPartition.None"


HostedPartition.NONE = _NoneHostedPartition()


def create_log_read_result(e: BaseException, high_watermark: int = UNKNOWN_OFFSET,
                           leader_log_start_offset: int = UNKNOWN_OFFSET,
                           leader_log_end_offset: int = UNKNOWN_OFFSET) -> LogReadResult:
    """ReplicaManager.createLogReadResult, both overloads: a failed read."""
    return LogReadResult(info=FetchDataInfo(LogOffsetMetadata.UNKNOWN_OFFSET_METADATA, MemoryRecords.EMPTY),
                         diverging_epoch=None, high_watermark=high_watermark,
                         leader_log_start_offset=leader_log_start_offset, leader_log_end_offset=leader_log_end_offset,
                         follower_log_start_offset=UNKNOWN_OFFSET,
                         fetch_time_ms=-1, last_stable_offset=None, exception=e)


def to_leader_and_isr_partition_state(partition: PartitionRegistration, tp: TopicPartition,
                                      is_new: bool) -> LeaderAndIsrPartitionState:
    """PartitionRegistration.toLeaderAndIsrPartitionState: the registration as Partition.makeLeader/makeFollower
    take it (no controller epoch in KRaft)."""
    return LeaderAndIsrPartitionState(topic_name=tp.topic or "", partition_index=tp.partition, controller_epoch=-1,
                                      leader=partition.leader, leader_epoch=partition.leader_epoch,
                                      isr=list(partition.isr), partition_epoch=partition.partition_epoch,
                                      replicas=list(partition.replicas),
                                      adding_replicas=list(partition.adding_replicas),
                                      removing_replicas=list(partition.removing_replicas), is_new=is_new,
                                      leader_recovery_state=int(partition.leader_recovery_state))


def _assigned_directory_id(directory_ids: Mapping[TopicIdPartition, _py_uuid.UUID],
                           tp: TopicPartition) -> Uuid | None:
    for topic_id_partition, directory_id in directory_ids.items():
        if topic_id_partition.topic_partition == tp:
            return _topic_uuid(directory_id)
    return None


def _topic_id_of(topic_image: Any) -> Uuid | None:
    return _topic_uuid(topic_image.id) if topic_image is not None else None


def _topic_uuid(topic_id: _py_uuid.UUID | Uuid | None) -> Uuid | None:
    """The metadata image and the wire carry uuid.UUID; the log and Partition carry Uuid."""
    if topic_id is None or isinstance(topic_id, Uuid):
        return topic_id
    return Uuid.from_bytes(topic_id.bytes)


_PARTITION_ERRORS: dict[Errors, type[Exception]] = {
    Errors.NOT_LEADER_OR_FOLLOWER: NotLeaderOrFollowerException,
    Errors.UNKNOWN_TOPIC_OR_PARTITION: UnknownTopicOrPartitionException,
}


# -- the manager --------------------------------------------------------------------------------------------------


class ReplicaManager:
    """The replicas this broker hosts. `all_partitions` maps each partition to its HostedPartition."""

    def __init__(self, config: Any, time: Time, scheduler: Any, log_manager: LogManager, metadata_cache: Any,
                 log_dir_failure_channel: LogDirFailureChannel, alter_partition_manager: Any,
                 remote_log_manager: Any = None, quota_managers: Any = None, broker_topic_stats: Any = None,
                 is_shutting_down: threading.Event | None = None, zk_client: Any = None,
                 delayed_produce_purgatory_param: DelayedOperationPurgatory[DelayedProduce] | None = None,
                 delayed_fetch_purgatory_param: DelayedOperationPurgatory[DelayedFetch] | None = None,
                 delayed_delete_records_purgatory_param: DelayedOperationPurgatory[DelayedDeleteRecords] | None = None,
                 delayed_elect_leader_purgatory_param: DelayedOperationPurgatory[Any] | None = None,
                 delayed_remote_fetch_purgatory_param: DelayedOperationPurgatory[Any] | None = None,
                 thread_name_prefix: str | None = None, broker_epoch_supplier: Callable[[], int] = lambda: -1,
                 add_partitions_to_txn_manager: Any = None, directory_event_handler: Any = None,
                 replica_fetcher_manager: Any = None, replica_alter_log_dirs_manager: Any = None) -> None:
        self.config = config
        self.time = time
        self.scheduler = scheduler
        self.log_manager = log_manager
        self.remote_log_manager = remote_log_manager
        self.quota_managers = quota_managers
        self.metadata_cache = metadata_cache
        self.log_dir_failure_channel = log_dir_failure_channel
        self.alter_partition_manager = alter_partition_manager
        self.broker_topic_stats = broker_topic_stats
        self.is_shutting_down = is_shutting_down if is_shutting_down is not None else threading.Event()
        self.zk_client = zk_client
        self.broker_epoch_supplier = broker_epoch_supplier
        self.add_partitions_to_txn_manager = add_partitions_to_txn_manager
        self.directory_event_handler = directory_event_handler

        broker_id = config.broker_id
        self.delayed_produce_purgatory = delayed_produce_purgatory_param or DelayedOperationPurgatory.apply(
            "Produce", broker_id, config.producer_purgatory_purge_interval_requests)
        self.delayed_fetch_purgatory = delayed_fetch_purgatory_param or DelayedOperationPurgatory.apply(
            "Fetch", broker_id, config.fetch_purgatory_purge_interval_requests)
        self.delayed_delete_records_purgatory = delayed_delete_records_purgatory_param or \
            DelayedOperationPurgatory.apply("DeleteRecords", broker_id,
                                            config.delete_records_purgatory_purge_interval_requests)
        self.delayed_elect_leader_purgatory = delayed_elect_leader_purgatory_param or \
            DelayedOperationPurgatory.apply("ElectLeader", broker_id)
        self.delayed_remote_fetch_purgatory = delayed_remote_fetch_purgatory_param or \
            DelayedOperationPurgatory.apply("RemoteFetch", broker_id)

        self.controller_epoch = 0
        """Epoch of the controller that last changed the leader (ZooKeeper mode; stays 0 on KRaft)."""
        self.local_broker_id = broker_id
        self.all_partitions: dict[TopicPartition, Any] = {}
        self.replica_state_change_lock = threading.RLock()
        # 3.9 makes both managers here; the broker hands them in (create_replica_fetcher_manager,
        # create_replica_alter_log_dirs_manager), so tests can pass their own
        self.replica_fetcher_manager = replica_fetcher_manager
        self.replica_alter_log_dirs_manager = replica_alter_log_dirs_manager
        self._high_watermark_check_point_thread_started = False
        self.high_watermark_checkpoints: dict[str, OffsetCheckpointFile] = {
            str(Path(d).absolute()): OffsetCheckpointFile(Path(d) / HIGH_WATERMARK_FILENAME, log_dir_failure_channel)
            for d in log_manager.live_log_dirs()}
        self.is_in_controlled_shutdown = False
        self._log_dir_failure_handler: ShutdownableThread | None = None
        self.replica_selector_opt: ReplicaSelector | None = self._create_replica_selector()
        """Visible for testing: the `replica.selector.class` plug-in (KIP-392), if one is configured."""
        self._default_action_queue = DelayedActionQueue()

    def producer_id_count(self) -> int:
        return sum(p.producer_id_count() for p in self._online_partitions_iterator())

    def under_replicated_partition_count(self) -> int:
        return sum(1 for p in self._leader_partitions_iterator() if p.is_under_replicated())

    def start_high_watermark_check_point_thread(self) -> None:
        if not self._high_watermark_check_point_thread_started:
            self._high_watermark_check_point_thread_started = True
            self.scheduler.schedule("highwatermark-checkpoint", self.checkpoint_high_watermarks, 0,
                                    self.config.replica_high_watermark_checkpoint_interval_ms)

    def _shutdown_idle_replica_alter_log_dirs_thread(self) -> None:
        if self.replica_alter_log_dirs_manager is not None:
            self.replica_alter_log_dirs_manager.shutdown_idle_fetcher_threads()

    def resize_fetcher_thread_pool(self, new_size: int) -> None:
        self.replica_fetcher_manager.resize_thread_pool(new_size)

    def get_log(self, topic_partition: TopicPartition) -> UnifiedLog | None:
        return self.log_manager.get_log(topic_partition)

    def has_delayed_election_operations(self) -> bool:
        return self.delayed_elect_leader_purgatory.num_delayed != 0

    def try_complete_election(self, key: DelayedOperationKey) -> None:
        completed = self.delayed_elect_leader_purgatory.check_and_complete(key)
        log.debug("Request key %s unblocked %d ElectLeader.", key.key_label(), completed)

    def startup(self) -> None:
        # A follower may lag for up to 1.5 x replica.lag.time.max.ms before it is removed from the ISR.
        self.scheduler.schedule("isr-expiration", self._maybe_shrink_isr, 0, self.config.replica_lag_time_max_ms // 2)
        self.scheduler.schedule("shutdown-idle-replica-alter-log-dirs-thread",
                                self._shutdown_idle_replica_alter_log_dirs_thread, 0, 10000)
        # (3.9 halts on a dir failure below IBP 1.0; a KRaft metadata version is always newer)
        self._log_dir_failure_handler = _LogDirFailureHandler("LogDirFailureHandler", self,
                                                              halt_broker_on_dir_failure=False)
        self._log_dir_failure_handler.start()
        if self.add_partitions_to_txn_manager is not None:
            self.add_partitions_to_txn_manager.start()

    def _complete_delayed_fetch_or_produce_requests(self, topic_partition: TopicPartition) -> None:
        topic_partition_operation_key = TopicPartitionOperationKey.apply(topic_partition)
        self.delayed_produce_purgatory.check_and_complete(topic_partition_operation_key)
        self.delayed_fetch_purgatory.check_and_complete(topic_partition_operation_key)
        self.delayed_remote_fetch_purgatory.check_and_complete(topic_partition_operation_key)

    def complete_delayed_fetch_requests(self, topic_partitions: Iterable[TopicPartition]) -> None:
        for tp in topic_partitions:
            self.delayed_fetch_purgatory.check_and_complete(TopicPartitionOperationKey.apply(tp))

    def maybe_add_listener(self, partition: TopicPartition, listener: PartitionListener) -> bool:
        hosted = self.get_partition(partition)
        if isinstance(hosted, HostedPartition.Online):
            return hosted.partition.maybe_add_listener(listener)
        return False

    def remove_listener(self, partition: TopicPartition, listener: PartitionListener) -> None:
        hosted = self.get_partition(partition)
        if isinstance(hosted, HostedPartition.Online):
            hosted.partition.remove_listener(listener)

    # (stopReplicas answers the ZooKeeper controller's StopReplica: not on a KRaft broker)

    def _stop_partitions(self, partitions_to_stop: Iterable[StopPartition]) -> dict[TopicPartition, BaseException]:
        """Stop fetching, forget the partitions whose logs go, delete those logs; returns the failures."""
        partitions_to_stop = list(partitions_to_stop)
        partitions = {sp.topic_partition for sp in partitions_to_stop}
        # First stop fetchers for all partitions.
        self.replica_fetcher_manager.remove_fetcher_for_partitions(partitions)
        if self.replica_alter_log_dirs_manager is not None:
            self.replica_alter_log_dirs_manager.remove_fetcher_for_partitions(partitions)

        partitions_to_delete: list[TopicPartition] = []
        for stop_partition in partitions_to_stop:
            topic_partition = stop_partition.topic_partition
            if stop_partition.delete_local_log:
                hosted = self.get_partition(topic_partition)
                if isinstance(hosted, HostedPartition.Online):
                    if self.all_partitions.get(topic_partition) is hosted:
                        del self.all_partitions[topic_partition]
                        hosted.partition.delete()
                partitions_to_delete.append(topic_partition)
            # Requests waiting on this partition can be answered now (NOT_LEADER_OR_FOLLOWER and the like).
            self._complete_delayed_fetch_or_produce_requests(topic_partition)

        error_map: dict[TopicPartition, BaseException] = {}
        if partitions_to_delete:
            self.log_manager.async_delete_all(partitions_to_delete, is_stray=False,
                                              error_handler=lambda tp, e: error_map.__setitem__(tp, e))
        # (remote log partitions are not ported)
        return error_map

    def get_partition(self, topic_partition: TopicPartition) -> Any:
        return self.all_partitions.get(topic_partition, HostedPartition.NONE)

    def is_adding_replica(self, topic_partition: TopicPartition, replica_id: int) -> bool:
        hosted = self.get_partition(topic_partition)
        return isinstance(hosted, HostedPartition.Online) and hosted.partition.is_adding_replica(replica_id)

    def create_partition(self, topic_partition: TopicPartition) -> Partition:
        partition = Partition.apply(topic_partition, self.time, self)
        self.all_partitions[topic_partition] = HostedPartition.Online(partition)
        return partition

    def online_partition(self, topic_partition: TopicPartition) -> Partition | None:
        hosted = self.get_partition(topic_partition)
        return hosted.partition if isinstance(hosted, HostedPartition.Online) else None

    def _online_partitions_iterator(self) -> Iterator[Partition]:
        for hosted in list(self.all_partitions.values()):
            if isinstance(hosted, HostedPartition.Online):
                yield hosted.partition

    def offline_partition_count(self) -> int:
        return sum(1 for hosted in self.all_partitions.values() if isinstance(hosted, HostedPartition.Offline))

    def get_partition_or_exception(self, topic_partition: TopicPartition) -> Partition:
        partition_or_error = self.get_partition_or_error(topic_partition)
        if partition_or_error == Errors.KAFKA_STORAGE_ERROR:
            raise KafkaStorageException(f"Partition {topic_partition} is in an offline log directory")
        if isinstance(partition_or_error, Errors):
            raise _PARTITION_ERRORS[partition_or_error](
                f"Error while fetching partition state for {topic_partition}")
        return partition_or_error

    def get_partition_or_error(self, topic_partition: TopicPartition) -> Errors | Partition:
        """Either[Errors, Partition]: an Errors value is the Left."""
        hosted = self.get_partition(topic_partition)
        if isinstance(hosted, HostedPartition.Online):
            return hosted.partition
        if isinstance(hosted, HostedPartition.Offline):
            return Errors.KAFKA_STORAGE_ERROR
        # Known to the metadata but not hosted here: the client's metadata is stale, it should look again.
        if self.metadata_cache.contains(topic_partition):
            return Errors.NOT_LEADER_OR_FOLLOWER
        return Errors.UNKNOWN_TOPIC_OR_PARTITION

    def local_log_or_exception(self, topic_partition: TopicPartition) -> UnifiedLog:
        return self.get_partition_or_exception(topic_partition).local_log_or_exception()

    def future_local_log_or_exception(self, topic_partition: TopicPartition) -> UnifiedLog:
        return self.get_partition_or_exception(topic_partition).future_local_log_or_exception()

    def future_log_exists(self, topic_partition: TopicPartition) -> bool:
        return self.get_partition_or_exception(topic_partition).future_log is not None

    def local_log(self, topic_partition: TopicPartition) -> UnifiedLog | None:
        partition = self.online_partition(topic_partition)
        return partition.log if partition is not None else None

    def get_log_dir(self, topic_partition: TopicPartition) -> str | None:
        local_log = self.local_log(topic_partition)
        return local_log.parent_dir() if local_log is not None else None

    def try_complete_actions(self) -> None:
        self._default_action_queue.try_complete_actions()

    # -- produce --------------------------------------------------------------------------------------------------

    @step("RQ.produce.3")
    def append_records(self, timeout: int, required_acks: int, internal_topics_allowed: bool, origin: AppendOrigin,
                       entries_per_partition: Mapping[TopicPartition, MemoryRecords],
                       response_callback: Callable[[dict[TopicPartition, PartitionResponse]], None],
                       delayed_produce_lock: Any = None,
                       record_validation_stats_callback: Callable[[dict[TopicPartition, Any]], None] = lambda _: None,
                       request_local: Any = None, action_queue: ActionQueue | None = None,
                       verification_guards: Mapping[TopicPartition, VerificationGuard] | None = None) -> None:
        """Append to the leaders' logs, then answer at once or, for acks=-1, once the ISR has the records."""
        action_queue = self._default_action_queue if action_queue is None else action_queue
        if not self._is_valid_required_acks(required_acks):
            self._send_invalid_required_acks_response(entries_per_partition, response_callback)
            return

        s_time = self.time.milliseconds()
        local_produce_results = self._append_to_local_log(internal_topics_allowed, origin, entries_per_partition,
                                                          required_acks, request_local,
                                                          dict(verification_guards or {}))
        log.debug("Produce to local log in %d ms", self.time.milliseconds() - s_time)

        produce_status = self._build_produce_partition_status(local_produce_results)

        self._add_complete_purgatory_action(action_queue, local_produce_results)
        record_validation_stats_callback({k: v.info.record_validation_stats for k, v in local_produce_results.items()})

        self._maybe_add_delayed_produce(required_acks, delayed_produce_lock, timeout, entries_per_partition,
                                        local_produce_results, produce_status, response_callback)

    @step("RQ.produce.2")
    def handle_produce_append(self, timeout: int, required_acks: int, internal_topics_allowed: bool,
                              transactional_id: str | None,
                              entries_per_partition: Mapping[TopicPartition, MemoryRecords],
                              response_callback: Callable[[dict[TopicPartition, PartitionResponse]], None],
                              record_validation_stats_callback: Callable[[dict[TopicPartition, Any]], None] = (
                                  lambda _: None),
                              request_local: Any = None, action_queue: ActionQueue | None = None,
                              transaction_supported_operation: Any = None) -> None:
        """Produce from a client: verify transactional partitions with the coordinator first (KIP-890), then
        append the partitions that passed."""
        transactional_producer_info: set[tuple[int, int]] = set()
        topic_partition_batch_info: dict[TopicPartition, int] = {}
        for topic_partition, records in entries_per_partition.items():
            transactional_batches = [b for b in records.batches() if b.has_producer_id() and b.is_transactional()]
            for batch in transactional_batches:
                transactional_producer_info.add((batch.producer_id(), batch.producer_epoch()))
            if transactional_batches:
                topic_partition_batch_info[topic_partition] = records.first_batch().base_sequence()
        if len(transactional_producer_info) > 1:
            raise InvalidPidMappingException("Transactional records contained more than one producer ID")

        def post_verification_callback(new_request_local: Any,
                                       results: tuple[dict[TopicPartition, Errors],
                                                      dict[TopicPartition, VerificationGuard]]) -> None:
            pre_append_errors, verification_guards = results
            error_results: dict[TopicPartition, LogAppendResult] = {}
            for topic_partition, error in pre_append_errors.items():
                custom_exception: BaseException | None = None
                if error == Errors.INVALID_TXN_STATE:
                    custom_exception = _error_exception(error, "Partition was not added to the transaction")
                elif error in (Errors.CONCURRENT_TRANSACTIONS, Errors.NETWORK_EXCEPTION,
                               Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.COORDINATOR_NOT_AVAILABLE,
                               Errors.NOT_COORDINATOR):
                    # a retriable error every client version understands
                    custom_exception = NotEnoughReplicasException(
                        f"Unable to verify the partition has been added to the transaction. Underlying error: "
                        f"{error.name}")
                error_results[topic_partition] = LogAppendResult(
                    LogAppendInfo.UNKNOWN_LOG_APPEND_INFO,
                    custom_exception if custom_exception is not None else _error_exception(error),
                    has_custom_error_message=custom_exception is not None)
            entries_without_errors_per_partition = {k: v for k, v in entries_per_partition.items()
                                                    if k not in error_results}
            pre_append_partition_responses = {k: status.response_status for k, status in
                                              self._build_produce_partition_status(error_results).items()}

            def new_response_callback(responses: dict[TopicPartition, PartitionResponse]) -> None:
                response_callback({**pre_append_partition_responses, **responses})

            self.append_records(timeout=timeout, required_acks=required_acks,
                                internal_topics_allowed=internal_topics_allowed, origin=AppendOrigin.CLIENT,
                                entries_per_partition=entries_without_errors_per_partition,
                                response_callback=new_response_callback,
                                record_validation_stats_callback=record_validation_stats_callback,
                                request_local=new_request_local, action_queue=action_queue,
                                verification_guards=verification_guards)

        if not transactional_producer_info:
            post_verification_callback(request_local, ({}, {}))
            return

        producer_id, producer_epoch = next(iter(transactional_producer_info))
        self._maybe_start_transaction_verification_for_partitions(
            topic_partition_batch_info, transactional_id, producer_id, producer_epoch,
            # the coordinator's answer comes back on the AddPartitionsToTxnManager's thread: resume on a handler
            # thread (request_local is used only when the callback runs at once, on this one)
            wrap_async_callback(post_verification_callback, request_local), transaction_supported_operation)

    def _build_produce_partition_status(self, results: Mapping[TopicPartition, LogAppendResult]
                                        ) -> dict[TopicPartition, ProducePartitionStatus]:
        return {topic_partition: ProducePartitionStatus(
            result.info.last_offset + 1,  # required offset
            PartitionResponse(result.error, result.info.first_offset, result.info.last_offset,
                              result.info.log_append_time, result.info.log_start_offset,
                              list(result.info.record_errors), result.error_message))
            for topic_partition, result in results.items()}

    def _add_complete_purgatory_action(self, action_queue: ActionQueue,
                                       append_results: Mapping[TopicPartition, LogAppendResult]) -> None:
        """Queued rather than run: the caller may hold a lock a delayed operation's completion would need."""
        def action() -> None:
            for topic_partition, result in append_results.items():
                request_key = TopicPartitionOperationKey.apply(topic_partition)
                if result.info.leader_hw_change == LeaderHwChange.INCREASED:
                    # some delayed operations may be unblocked after HW changed
                    self.delayed_produce_purgatory.check_and_complete(request_key)
                    self.delayed_fetch_purgatory.check_and_complete(request_key)
                    self.delayed_delete_records_purgatory.check_and_complete(request_key)
                elif result.info.leader_hw_change == LeaderHwChange.SAME:
                    # probably unblock some follower fetch requests since log end offset has been updated
                    self.delayed_fetch_purgatory.check_and_complete(request_key)
        action_queue.add(action)

    def _maybe_add_delayed_produce(self, required_acks: int, delayed_produce_lock: Any, timeout_ms: int,
                                   entries_per_partition: Mapping[TopicPartition, MemoryRecords],
                                   initial_append_results: Mapping[TopicPartition, LogAppendResult],
                                   initial_produce_status: Mapping[TopicPartition, ProducePartitionStatus],
                                   response_callback: Callable[[dict[TopicPartition, PartitionResponse]], None]
                                   ) -> None:
        if self._delayed_produce_request_required(required_acks, entries_per_partition, initial_append_results):
            produce_metadata = ProduceMetadata(required_acks, dict(initial_produce_status))
            delayed_produce = DelayedProduce(timeout_ms, produce_metadata, self, response_callback,
                                             delayed_produce_lock)
            producer_request_keys = [TopicPartitionOperationKey.apply(tp) for tp in entries_per_partition]
            # try to complete the request immediately, otherwise put it into the purgatory
            self.delayed_produce_purgatory.try_complete_else_watch(delayed_produce, producer_request_keys)
        else:
            response_callback({k: status.response_status for k, status in initial_produce_status.items()})

    def _send_invalid_required_acks_response(self, entries: Mapping[TopicPartition, MemoryRecords],
                                             response_callback: Callable[[dict[TopicPartition, PartitionResponse]],
                                                                         None]) -> None:
        unknown = LogAppendInfo.UNKNOWN_LOG_APPEND_INFO
        response_callback({topic_partition: PartitionResponse(Errors.INVALID_REQUIRED_ACKS, unknown.first_offset,
                                                              log_append_time=NO_TIMESTAMP,
                                                              log_start_offset=unknown.log_start_offset)
                           for topic_partition in entries})

    def maybe_start_transaction_verification_for_partition(
            self, topic_partition: TopicPartition, transactional_id: str | None, producer_id: int,
            producer_epoch: int, base_sequence: int, callback: Callable[[tuple[Errors, VerificationGuard]], None],
            transaction_supported_operation: Any = None) -> None:
        def generalized_callback(results: tuple[dict[TopicPartition, Errors],
                                                dict[TopicPartition, VerificationGuard]]) -> None:
            pre_append_errors, verification_guards = results
            callback((pre_append_errors.get(topic_partition, Errors.NONE),
                      verification_guards.get(topic_partition, VerificationGuard.SENTINEL)))

        self._maybe_start_transaction_verification_for_partitions(
            {topic_partition: base_sequence}, transactional_id, producer_id, producer_epoch, generalized_callback,
            transaction_supported_operation)

    @step("TX39.verify")
    def _maybe_start_transaction_verification_for_partitions(
            self, topic_partition_batch_info: Mapping[TopicPartition, int], transactional_id: str | None,
            producer_id: int, producer_epoch: int,
            callback: Callable[[tuple[dict[TopicPartition, Errors], dict[TopicPartition, VerificationGuard]]], None],
            transaction_supported_operation: Any) -> None:
        if transactional_id is None or not self.config.transaction_partition_verification_enable() \
                or self.add_partitions_to_txn_manager is None:
            callback(({}, {}))
            return

        verification_guards: dict[TopicPartition, VerificationGuard] = {}
        errors: dict[TopicPartition, Errors] = {}
        for topic_partition, base_sequence in topic_partition_batch_info.items():
            error_or_guard = self._maybe_start_transaction_verification_for_partition(
                topic_partition, producer_id, producer_epoch, base_sequence)
            if isinstance(error_or_guard, Errors):
                errors[topic_partition] = error_or_guard
            elif error_or_guard is not VerificationGuard.SENTINEL:
                verification_guards[topic_partition] = error_or_guard

        # No need to verify if the transaction is already ongoing on every partition.
        if not verification_guards:
            callback((errors, {}))
            return

        def invoke_callback(verification_errors: Mapping[TopicPartition, Errors]) -> None:
            callback(({**errors, **verification_errors}, dict(verification_guards)))

        self.add_partitions_to_txn_manager.verify_transaction(
            transactional_id=transactional_id, producer_id=producer_id, producer_epoch=producer_epoch,
            topic_partitions=list(verification_guards), callback=invoke_callback,
            transaction_supported_operation=transaction_supported_operation)

    def _maybe_start_transaction_verification_for_partition(self, topic_partition: TopicPartition, producer_id: int,
                                                            producer_epoch: int,
                                                            base_sequence: int) -> Errors | VerificationGuard:
        try:
            return self.get_partition_or_exception(topic_partition).maybe_start_transaction_verification(
                producer_id, base_sequence, producer_epoch)
        except Exception as e:
            return Errors.for_exception(e)

    # -- DeleteRecords ----------------------------------------------------------------------------------------------

    def _delete_records_on_local_log(self, offset_per_partition: Mapping[TopicPartition, int]
                                     ) -> dict[TopicPartition, LogDeleteRecordsResult]:
        log.debug("Delete records on local logs to offsets [%s]", offset_per_partition)
        results: dict[TopicPartition, LogDeleteRecordsResult] = {}
        for topic_partition, requested_offset in offset_per_partition.items():
            if Topic.is_internal(topic_partition.topic):
                results[topic_partition] = LogDeleteRecordsResult(-1, -1, InvalidTopicException(
                    f"Cannot delete records of internal topic {topic_partition.topic}"))
                continue
            try:
                partition = self.get_partition_or_exception(topic_partition)
                results[topic_partition] = partition.delete_records_on_leader(requested_offset)
            except (UnknownTopicOrPartitionException, NotLeaderOrFollowerException, OffsetOutOfRangeException,
                    PolicyViolationException, KafkaStorageException) as e:
                results[topic_partition] = LogDeleteRecordsResult(-1, -1, e)
            except Exception as t:
                log.error("Error processing delete records operation on partition %s", topic_partition, exc_info=t)
                results[topic_partition] = LogDeleteRecordsResult(-1, -1, t)
        return results

    @staticmethod
    def _delayed_delete_records_required(local_delete_records_results: Mapping[TopicPartition,
                                                                               LogDeleteRecordsResult]) -> bool:
        """Some partition deleted without error and its low watermark has not reached the offset yet."""
        return any(result.exception is None and result.low_watermark < result.requested_offset
                   for result in local_delete_records_results.values())

    def alter_replica_log_dirs(self, partition_dirs: Mapping[TopicPartition, str]) -> dict[TopicPartition, Errors]:
        """Move replicas to other log dirs of this broker (JBOD): a future log in the destination, filled by the
        ReplicaAlterLogDirsManager (handed in, like the fetcher manager: create_replica_alter_log_dirs_manager)."""
        with self.replica_state_change_lock:
            results: dict[TopicPartition, Errors] = {}
            for topic_partition, destination_dir in partition_dirs.items():
                try:
                    # A directory name longer than the file system allows cannot be created (KAFKA-4893).
                    if len(log_future_dir_name(topic_partition)) > 255:
                        raise InvalidTopicException("The topic name is too long.")
                    if not self.log_manager.is_log_dir_online(destination_dir):
                        raise KafkaStorageException(f"Log directory {destination_dir} is offline")

                    hosted = self.get_partition(topic_partition)
                    if isinstance(hosted, HostedPartition.Online):
                        # Stop the current move if it goes to another dir.
                        if hosted.partition.future_replica_dir_changed(destination_dir):
                            self.replica_alter_log_dirs_manager.remove_fetcher_for_partitions({topic_partition})
                            hosted.partition.remove_future_local_replica()
                    elif isinstance(hosted, HostedPartition.Offline):
                        raise KafkaStorageException(f"Partition {topic_partition} is offline")

                    # A replica created later goes to this dir; one not created yet answers REPLICA_NOT_AVAILABLE.
                    self.log_manager.maybe_update_preferred_log_dir(topic_partition, destination_dir)

                    partition = self.get_partition_or_exception(topic_partition)
                    the_log = partition.local_log_or_exception()
                    topic_id = the_log.topic_id()

                    high_watermark_checkpoints = LazyOffsetCheckpoints(self.high_watermark_checkpoints)
                    if partition.maybe_create_future_replica(destination_dir, high_watermark_checkpoints):
                        future_log = self.future_local_log_or_exception(topic_partition)
                        self.log_manager.abort_and_pause_cleaning(topic_partition)
                        initial_fetch_state = InitialFetchState(topic_id, BrokerEndPoint(self.config.broker_id,
                                                                                         "localhost", -1),
                                                                partition.get_leader_epoch(),
                                                                future_log.high_watermark())
                        self.replica_alter_log_dirs_manager.add_fetcher_for_partitions(
                            {topic_partition: initial_fetch_state})
                    results[topic_partition] = Errors.NONE
                except (InvalidTopicException, LogDirNotFoundException, ReplicaNotAvailableException,
                        KafkaStorageException) as e:
                    log.warning("Unable to alter log dirs for %s", topic_partition, exc_info=e)
                    results[topic_partition] = Errors.for_exception(e)
                except NotLeaderOrFollowerException as e:
                    # REPLICA_NOT_AVAILABLE, as AlterReplicaLogDirs has always answered
                    log.warning("Unable to alter log dirs for %s", topic_partition, exc_info=e)
                    results[topic_partition] = Errors.REPLICA_NOT_AVAILABLE
                except Exception as t:
                    log.error("Error while changing replica dir for partition %s", topic_partition, exc_info=t)
                    results[topic_partition] = Errors.for_exception(t)
            return results

    def describe_log_dirs(self, partitions: set[TopicPartition]) -> list[DescribeLogDirsResult]:
        """Each configured log dir: its space and the given partitions' logs in it (size, offset lag)."""
        logs_by_dir: dict[str, list[UnifiedLog]] = {}
        for the_log in self.log_manager.all_logs():
            logs_by_dir.setdefault(the_log.parent_dir(), []).append(the_log)

        results = []
        for log_dir in dict.fromkeys(self.config.log_dirs):
            absolute_path = str(Path(log_dir).absolute())
            try:
                if not self.log_manager.is_log_dir_online(absolute_path):
                    raise KafkaStorageException(f"Log directory {absolute_path} is offline")
                usage = shutil.disk_usage(absolute_path)
                total_bytes = self._adjust_for_large_file_systems(usage.total)
                usable_bytes = self._adjust_for_large_file_systems(usage.free)
                logs_by_topic: dict[str, list[UnifiedLog]] = {}
                for the_log in logs_by_dir.get(absolute_path, []):
                    logs_by_topic.setdefault(the_log.topic_partition().topic, []).append(the_log)
                topic_infos = []
                for topic, logs in logs_by_topic.items():
                    topic_partitions = tuple(DescribeLogDirsPartition(
                        partition_index=i32(the_log.topic_partition().partition),
                        partition_size=i64(the_log.size()),
                        offset_lag=i64(self.get_log_end_offset_lag(the_log.topic_partition(), the_log.log_end_offset(),
                                                                   the_log.is_future())),
                        is_future_key=the_log.is_future())
                        for the_log in logs if the_log.topic_partition() in partitions)
                    if topic_partitions:
                        topic_infos.append(DescribeLogDirsTopic(name=TopicName(topic), partitions=topic_partitions))
                results.append(DescribeLogDirsResult(error_code=Errors.NONE, log_dir=absolute_path,
                                                     topics=tuple(topic_infos), total_bytes=i64(total_bytes),
                                                     usable_bytes=i64(usable_bytes)))
            except KafkaStorageException as e:
                log.warning("Unable to describe replica dirs for %s", absolute_path, exc_info=e)
                results.append(DescribeLogDirsResult(error_code=Errors.KAFKA_STORAGE_ERROR, log_dir=absolute_path,
                                                     topics=(), total_bytes=i64(-1), usable_bytes=i64(-1)))
            except Exception as t:
                log.error("Error while describing replica in dir %s", absolute_path, exc_info=t)
                results.append(DescribeLogDirsResult(error_code=Errors.for_exception(t), log_dir=absolute_path,
                                                     topics=(), total_bytes=i64(-1), usable_bytes=i64(-1)))
        return results

    @staticmethod
    def _adjust_for_large_file_systems(space: int) -> int:
        # a negative size from the file store means it overflowed (JDK-8162520)
        return 2**63 - 1 if space < 0 else space

    def get_log_end_offset_lag(self, topic_partition: TopicPartition, log_end_offset: int, is_future: bool) -> int:
        local_log = self.local_log(topic_partition)
        if local_log is None:
            return -1  # DescribeLogDirsResponse.INVALID_OFFSET_LAG
        if is_future:
            return local_log.log_end_offset() - log_end_offset
        return max(local_log.high_watermark() - log_end_offset, 0)

    def delete_records(self, timeout: int, offset_per_partition: Mapping[TopicPartition, int],
                       response_callback: Callable[[dict[TopicPartition, DeleteRecordsPartitionResult]], None]
                       ) -> None:
        """Move each leader's log start offset, then answer once every replica followed (or at once)."""
        time_before_local_delete_records = self.time.milliseconds()
        local_delete_records_results = self._delete_records_on_local_log(offset_per_partition)
        log.debug("Delete records on local log in %d ms", self.time.milliseconds() - time_before_local_delete_records)

        delete_records_status = {topic_partition: DeleteRecordsPartitionStatus(
            result.requested_offset,
            DeleteRecordsPartitionResult(partition_index=topic_partition.partition, low_watermark=result.low_watermark,
                                         error_code=_delete_error(result).code))
            for topic_partition, result in local_delete_records_results.items()}

        if self._delayed_delete_records_required(local_delete_records_results):
            delayed_delete_records = DelayedDeleteRecords(timeout, delete_records_status, self, response_callback)
            delete_records_request_keys = [TopicPartitionOperationKey.apply(tp) for tp in offset_per_partition]
            self.delayed_delete_records_purgatory.try_complete_else_watch(delayed_delete_records,
                                                                          delete_records_request_keys)
        else:
            response_callback({k: status.response_status for k, status in delete_records_status.items()})

    @staticmethod
    def _delayed_produce_request_required(required_acks: int,
                                          entries_per_partition: Mapping[TopicPartition, MemoryRecords],
                                          local_produce_results: Mapping[TopicPartition, LogAppendResult]) -> bool:
        """acks=-1, there is data to append, and at least one partition's append succeeded."""
        return (required_acks == -1 and len(entries_per_partition) > 0
                and sum(1 for r in local_produce_results.values() if r.exception is not None)
                < len(entries_per_partition))

    @staticmethod
    def _is_valid_required_acks(required_acks: int) -> bool:
        return required_acks in (-1, 1, 0)

    def _append_to_local_log(self, internal_topics_allowed: bool, origin: AppendOrigin,
                             entries_per_partition: Mapping[TopicPartition, MemoryRecords], required_acks: int,
                             request_local: Any, verification_guards: Mapping[TopicPartition, VerificationGuard]
                             ) -> dict[TopicPartition, LogAppendResult]:
        def process_failed_record(topic_partition: TopicPartition, t: BaseException) -> int:
            partition = self.online_partition(topic_partition)
            log_start_offset = partition.log_start_offset() if partition is not None else -1
            if isinstance(t, InvalidProducerEpochException):
                log.info("Error processing append operation on partition %s", topic_partition, exc_info=t)
            else:
                log.error("Error processing append operation on partition %s", topic_partition, exc_info=t)
            return log_start_offset

        log.debug("Append [%s] to local log", entries_per_partition)
        results: dict[TopicPartition, LogAppendResult] = {}
        for topic_partition, records in entries_per_partition.items():
            # reject appending to internal topics if it is not allowed
            if Topic.is_internal(topic_partition.topic) and not internal_topics_allowed:
                results[topic_partition] = LogAppendResult(
                    LogAppendInfo.UNKNOWN_LOG_APPEND_INFO,
                    InvalidTopicException(f"Cannot append to internal topic {topic_partition.topic}"),
                    has_custom_error_message=False)
                continue
            try:
                partition = self.get_partition_or_exception(topic_partition)
                info = partition.append_records_to_leader(
                    records, origin, required_acks, request_local,
                    verification_guards.get(topic_partition, VerificationGuard.SENTINEL))
                log.debug("%d written to log %s beginning at offset %d and ending at offset %d",
                          records.size_in_bytes(), topic_partition, info.first_offset, info.last_offset)
                results[topic_partition] = LogAppendResult(info, None, has_custom_error_message=False)
            except (UnknownTopicOrPartitionException, NotLeaderOrFollowerException, RecordTooLargeException,
                    RecordBatchTooLargeException, CorruptRecordException, KafkaStorageException) as e:
                # expected failures: no stack trace in the log
                results[topic_partition] = LogAppendResult(LogAppendInfo.UNKNOWN_LOG_APPEND_INFO, e,
                                                           has_custom_error_message=False)
            except RecordValidationException as rve:
                log_start_offset = process_failed_record(topic_partition, rve.invalid_exception)
                results[topic_partition] = LogAppendResult(
                    LogAppendInfo.unknown_log_append_info_with_additional_info(log_start_offset,
                                                                              list(rve.record_errors)),
                    rve.invalid_exception, has_custom_error_message=True)
            except Exception as t:
                log_start_offset = process_failed_record(topic_partition, t)
                results[topic_partition] = LogAppendResult(
                    LogAppendInfo.unknown_log_append_info_with_log_start_offset(log_start_offset), t,
                    has_custom_error_message=False)
        return results

    def fetch_offset_for_timestamp(self, topic_partition: TopicPartition, timestamp: int,
                                   isolation_level: int | None, current_leader_epoch: int | None,
                                   fetch_only_from_leader: bool) -> TimestampAndOffset | None:
        partition = self.get_partition_or_exception(topic_partition)
        return partition.fetch_offset_for_timestamp(timestamp, isolation_level, current_leader_epoch,
                                                    fetch_only_from_leader, self.remote_log_manager)

    def legacy_fetch_offsets_for_timestamp(self, topic_partition: TopicPartition, timestamp: int,
                                           max_num_offsets: int, is_from_consumer: bool,
                                           fetch_only_from_leader: bool) -> list[int]:
        partition = self.get_partition_or_exception(topic_partition)
        return partition.legacy_fetch_offsets_for_timestamp(timestamp, max_num_offsets, is_from_consumer,
                                                            fetch_only_from_leader)

    # -- fetch ------------------------------------------------------------------------------------------------------

    @step("RQ.fetch.3")
    def fetch_messages(self, params: FetchParams, fetch_infos: Sequence[tuple[TopicIdPartition, PartitionData]],
                       quota: Any,
                       response_callback: Callable[[list[tuple[TopicIdPartition, FetchPartitionData]]], None]) -> None:
        """Read now; answer now if there is enough (or an error, a divergence, nothing to wait for), else wait in
        the Fetch purgatory."""
        log_read_results = self.read_from_log(params, fetch_infos, quota, read_from_purgatory=False)
        bytes_readable = 0
        error_reading_data = False
        has_diverging_epoch = False
        has_preferred_read_replica = False
        log_read_result_map: dict[TopicIdPartition, LogReadResult] = {}
        for topic_id_partition, log_read_result in log_read_results:
            if log_read_result.error != Errors.NONE:
                error_reading_data = True
            if log_read_result.diverging_epoch is not None:
                has_diverging_epoch = True
            if log_read_result.preferred_read_replica is not None:
                has_preferred_read_replica = True
            bytes_readable += log_read_result.info.records.size_in_bytes()
            log_read_result_map[topic_id_partition] = log_read_result

        # (remote storage reads, DelayedRemoteFetch, are not ported: tiered storage)
        if (params.max_wait_ms <= 0 or not fetch_infos or bytes_readable >= params.min_bytes or error_reading_data
                or has_diverging_epoch or has_preferred_read_replica):
            fetch_partition_data = []
            for tp, result in log_read_results:
                is_reassignment_fetch = params.is_from_follower() and self.is_adding_replica(tp.topic_partition,
                                                                                            params.replica_id)
                fetch_partition_data.append((tp, result.to_fetch_partition_data(is_reassignment_fetch)))
            response_callback(fetch_partition_data)
        else:
            # construct the fetch results from the read results
            fetch_partition_status: list[tuple[TopicIdPartition, FetchPartitionStatus]] = []
            for topic_id_partition, partition_data in fetch_infos:
                log_read_result = log_read_result_map.get(topic_id_partition)
                if log_read_result is not None:
                    fetch_partition_status.append((topic_id_partition, FetchPartitionStatus(
                        log_read_result.info.fetch_offset_metadata, partition_data)))
            delayed_fetch = DelayedFetch(params=params, fetch_partition_status=fetch_partition_status,
                                         replica_manager=self, quota=quota, response_callback=response_callback)
            delayed_fetch_keys = [TopicPartitionOperationKey.apply(tp) for tp, _ in fetch_partition_status]
            # try to complete the request immediately, otherwise put it into the purgatory
            self.delayed_fetch_purgatory.try_complete_else_watch(delayed_fetch, delayed_fetch_keys)

    def read_from_log(self, params: FetchParams, read_partition_info: Sequence[tuple[TopicIdPartition, PartitionData]],
                      quota: Any, read_from_purgatory: bool) -> list[tuple[TopicIdPartition, LogReadResult]]:
        """Read each partition in turn within the request's byte budget; only the first partition with data may go
        over it (unless the request is v2 or older: a hard limit)."""
        def check_fetch_data_info(partition: Partition, given_fetched_data_info: FetchDataInfo) -> FetchDataInfo:
            if params.is_from_follower() and self.should_leader_throttle(quota, partition, params.replica_id):
                # the follower is over its replication quota: nothing this time
                return FetchDataInfo(given_fetched_data_info.fetch_offset_metadata, MemoryRecords.EMPTY)
            if not params.hard_max_bytes_limit() and given_fetched_data_info.first_entry_incomplete:
                # old fetch versions cannot take a partial batch
                return FetchDataInfo(given_fetched_data_info.fetch_offset_metadata, MemoryRecords.EMPTY)
            return given_fetched_data_info

        def read(tp: TopicIdPartition, fetch_info: PartitionData, limit_bytes: int,
                 min_one_message: bool) -> LogReadResult:
            offset = fetch_info.fetch_offset
            follower_log_start_offset = fetch_info.log_start_offset
            adjusted_max_bytes = min(fetch_info.max_bytes, limit_bytes)
            local_log: UnifiedLog | None = None
            fetch_time_ms = self.time.milliseconds()
            try:
                log.debug("Fetching log segment for partition %s, offset %d, partition fetch size %d, remaining "
                          "response limit %d%s", tp, offset, fetch_info.max_bytes, limit_bytes,
                          ", ignoring response/partition size limits" if min_one_message else "")
                partition = self.get_partition_or_exception(tp.topic_partition)

                # Check if topic ID from the fetch request/session matches the ID in the log
                topic_id = None if tp.topic_id == _py_uuid.UUID(int=0) else _topic_uuid(tp.topic_id)
                if not self._has_consistent_topic_id(topic_id, partition.topic_id()):
                    raise InconsistentTopicIdException("Topic ID in the fetch session did not match the topic ID in "
                                                       "the log.")

                preferred_read_replica = None
                if params.client_metadata is not None:
                    preferred_read_replica = self.find_preferred_read_replica(
                        partition, params.client_metadata, params.replica_id, fetch_info.fetch_offset, fetch_time_ms)

                if preferred_read_replica is not None:
                    # If the client should read from another replica, answer with no data and where to go.
                    log.debug("Replica selector %s returned preferred replica %d for %s",
                              type(self.replica_selector_opt).__name__, preferred_read_replica, params.client_metadata)
                    offset_snapshot = partition.fetch_offset_snapshot(fetch_info.current_leader_epoch,
                                                                      fetch_only_from_leader=False)
                    return LogReadResult(
                        info=FetchDataInfo(LogOffsetMetadata.UNKNOWN_OFFSET_METADATA, MemoryRecords.EMPTY),
                        diverging_epoch=None, high_watermark=offset_snapshot.high_watermark.message_offset,
                        leader_log_start_offset=offset_snapshot.log_start_offset,
                        leader_log_end_offset=offset_snapshot.log_end_offset.message_offset,
                        follower_log_start_offset=follower_log_start_offset, fetch_time_ms=-1,
                        last_stable_offset=offset_snapshot.last_stable_offset.message_offset,
                        preferred_read_replica=preferred_read_replica, exception=None)

                local_log = partition.local_log_with_epoch_or_throw(fetch_info.current_leader_epoch,
                                                                    params.fetch_only_leader())
                # Try the read first, this tells us whether we need all of adjustedFetchSize for this partition
                read_info = partition.fetch_records(fetch_params=params, fetch_partition_data=fetch_info,
                                                    fetch_time_ms=fetch_time_ms, max_bytes=adjusted_max_bytes,
                                                    min_one_message=min_one_message,
                                                    update_fetch_state=not read_from_purgatory)
                fetch_data_info = check_fetch_data_info(partition, read_info.fetched_data)
                return LogReadResult(info=fetch_data_info, diverging_epoch=read_info.diverging_epoch,
                                     high_watermark=read_info.high_watermark,
                                     leader_log_start_offset=read_info.log_start_offset,
                                     leader_log_end_offset=read_info.log_end_offset,
                                     follower_log_start_offset=follower_log_start_offset,
                                     fetch_time_ms=fetch_time_ms, last_stable_offset=read_info.last_stable_offset,
                                     preferred_read_replica=preferred_read_replica, exception=None)
            except (UnknownTopicOrPartitionException, NotLeaderOrFollowerException, UnknownLeaderEpochException,
                    FencedLeaderEpochException, ReplicaNotAvailableException, KafkaStorageException,
                    InconsistentTopicIdException) as e:
                # expected failures: no stack trace in the log
                return create_log_read_result(e)
            except OffsetOutOfRangeException as e:
                return self._handle_offset_out_of_range_error(tp, params, fetch_info, adjusted_max_bytes,
                                                              min_one_message, local_log, fetch_time_ms, e)
            except Exception as e:
                log.error("Error processing fetch with max size %d from replica %d on partition %s: %s",
                          adjusted_max_bytes, params.replica_id, tp, fetch_info, exc_info=e)
                return LogReadResult(info=FetchDataInfo(LogOffsetMetadata.UNKNOWN_OFFSET_METADATA,
                                                        MemoryRecords.EMPTY),
                                     diverging_epoch=None, high_watermark=UNKNOWN_OFFSET,
                                     leader_log_start_offset=UNKNOWN_OFFSET, leader_log_end_offset=UNKNOWN_OFFSET,
                                     follower_log_start_offset=UNKNOWN_OFFSET, fetch_time_ms=-1,
                                     last_stable_offset=None, exception=e)

        limit_bytes = params.max_bytes
        result: list[tuple[TopicIdPartition, LogReadResult]] = []
        min_one_message = not params.hard_max_bytes_limit()
        for tp, fetch_info in read_partition_info:
            read_result = read(tp, fetch_info, limit_bytes, min_one_message)
            record_batch_size = read_result.info.records.size_in_bytes()
            # Once we read from a non-empty partition, we stop ignoring request and partition level size limits
            if record_batch_size > 0:
                min_one_message = False
            limit_bytes = max(0, limit_bytes - record_batch_size)
            result.append((tp, read_result))
        return result

    def _handle_offset_out_of_range_error(self, tp: TopicIdPartition, params: FetchParams, fetch_info: PartitionData,
                                          adjusted_max_bytes: int, min_one_message: bool,
                                          local_log: UnifiedLog | None, fetch_time_ms: int,
                                          exception: OffsetOutOfRangeException) -> LogReadResult:
        # (an offset moved to tiered storage would be read remotely: not ported)
        return create_log_read_result(exception)

    def find_preferred_read_replica(self, partition: Partition, client_metadata: ClientMetadata, replica_id: int,
                                    fetch_offset: int, current_time_ms: int) -> int | None:
        """The replica the selector prefers for this consumer, when it is not the leader itself."""
        leader_replica_id = partition.leader_id_if_local()
        if leader_replica_id is None:
            return None
        # Don't look up preferred for follower fetches via normal replication
        if replica_id >= 0 or self.replica_selector_opt is None:
            return None
        replica_endpoints = self.metadata_cache.get_partition_replica_endpoints(partition.topic_partition,
                                                                                client_metadata.listener_name())
        replica_info_set: set[ReplicaView] = set()
        for replica in partition.remote_replicas():
            replica_state = replica.state_snapshot
            # Only ISR members that have the offset: a lagging follower would keep the consumer behind.
            if (replica.broker_id in partition.in_sync_replica_ids()
                    and replica_state.log_end_offset >= fetch_offset
                    and replica_state.log_start_offset <= fetch_offset):
                replica_info_set.add(DefaultReplicaView(replica_endpoints.get(replica.broker_id, NO_NODE),
                                                        replica_state.log_end_offset,
                                                        current_time_ms - replica_state.last_caught_up_time_ms))
        leader_replica = DefaultReplicaView(replica_endpoints.get(leader_replica_id, NO_NODE),
                                            partition.local_log_or_exception().log_end_offset(), 0)
        replica_info_set.add(leader_replica)

        partition_info = DefaultPartitionView(frozenset(replica_info_set), leader_replica)
        selected = self.replica_selector_opt.select(partition.topic_partition, client_metadata, partition_info)
        # The selector may return the leader, which is not sent back in the FetchResponse.
        if selected is None or _node_is_empty(selected.endpoint()) or selected == leader_replica:
            return None
        return selected.endpoint().id

    def should_leader_throttle(self, quota: Any, partition: Partition, replica_id: int) -> bool:
        """A follower out of the ISR and over the replication quota is throttled."""
        if quota is None:
            return False
        is_replica_in_sync = replica_id in partition.in_sync_replica_ids()
        return not is_replica_in_sync and quota.is_throttled(partition.topic_partition) and quota.is_quota_exceeded()

    def get_log_config(self, topic_partition: TopicPartition) -> Any:
        local_log = self.local_log(topic_partition)
        return local_log.config() if local_log is not None else None

    # (maybeUpdateMetadataCache and becomeLeaderOrFollower answer the ZooKeeper controller: not on a KRaft broker)

    @staticmethod
    def _has_consistent_topic_id(request_topic_id_opt: Uuid | None, log_topic_id_opt: Uuid | None) -> bool:
        """Consistent if either side has no id (old requests, old logs) or both are the same."""
        if request_topic_id_opt is None or log_topic_id_opt is None:
            return True
        return request_topic_id_opt == log_topic_id_opt

    def maybe_add_log_dir_fetchers(self, partitions: Iterable[Partition], offset_checkpoints: Any,
                                   topic_ids: Callable[[str], Uuid | None]) -> None:
        """Resume moving the replicas that have a future log (JBOD): the ReplicaAlterLogDirsManager copies them."""
        future_replicas_and_initial_offset: dict[TopicPartition, InitialFetchState] = {}
        for partition in partitions:
            topic_partition = partition.topic_partition
            future_log = self.log_manager.get_log(topic_partition, is_future=True)
            if future_log is None or partition.log is None:
                continue
            leader = BrokerEndPoint(self.config.broker_id, "localhost", -1)
            # Add future replica log to partition's map if it does not exist yet
            if partition.maybe_create_future_replica(future_log.parent_dir(), offset_checkpoints,
                                                     topic_ids(partition.topic)):
                # pause cleaning for partitions that are being moved
                self.log_manager.abort_and_pause_cleaning(topic_partition)
            future_replicas_and_initial_offset[topic_partition] = InitialFetchState(
                topic_ids(topic_partition.topic), leader, partition.get_leader_epoch(), future_log.high_watermark())

        if future_replicas_and_initial_offset:
            # Another thread may add the same fetcher meanwhile: the same BrokerIdAndFetcherId makes it a no-op.
            self.replica_alter_log_dirs_manager.add_fetcher_for_partitions(future_replicas_and_initial_offset)

    def initial_fetch_offset(self, local_log: UnifiedLog) -> int:
        """With truncation on fetch (every KRaft metadata version) a follower with an epoch starts at its LEO."""
        if local_log.latest_epoch() is not None:
            return local_log.log_end_offset()
        return local_log.high_watermark()

    def _maybe_shrink_isr(self) -> None:
        log.debug("Evaluating ISR list of partitions to see which replicas can be removed from the ISR")
        # Shrink ISRs for non offline partitions
        for topic_partition in list(self.all_partitions):
            partition = self.online_partition(topic_partition)
            if partition is not None:
                partition.maybe_shrink_isr()

    def _leader_partitions_iterator(self) -> Iterator[Partition]:
        return (p for p in self._online_partitions_iterator() if p.leader_log_if_local() is not None)

    def get_log_end_offset(self, topic_partition: TopicPartition) -> int | None:
        partition = self.online_partition(topic_partition)
        leader_log = partition.leader_log_if_local() if partition is not None else None
        return leader_log.log_end_offset() if leader_log is not None else None

    def checkpoint_high_watermarks(self) -> None:
        """Flushes the highwatermark value for all partitions to the highwatermark file of their log dir."""
        log_dir_to_hws: dict[str, dict[TopicPartition, int]] = {}

        def put_hw(the_log: UnifiedLog) -> None:
            log_dir_to_hws.setdefault(the_log.parent_dir(), {})[the_log.topic_partition()] = the_log.high_watermark()

        for partition in self._online_partitions_iterator():
            if partition.log is not None:
                put_hw(partition.log)
            if partition.future_log is not None:
                put_hw(partition.future_log)

        for log_dir, hws in log_dir_to_hws.items():
            checkpoint = self.high_watermark_checkpoints.get(str(Path(log_dir).absolute()))
            try:
                if checkpoint is not None:
                    checkpoint.write(hws)
            except KafkaStorageException as e:
                log.error("Error while writing to highwatermark file in directory %s", log_dir, exc_info=e)

    def mark_partition_offline(self, tp: TopicPartition) -> None:
        with self.replica_state_change_lock:
            hosted = self.all_partitions.get(tp)
            if isinstance(hosted, HostedPartition.Online):
                self.all_partitions[tp] = HostedPartition.Offline(hosted.partition)
                hosted.partition.mark_offline()
            else:
                self.all_partitions[tp] = HostedPartition.Offline(None)

    def handle_log_dir_failure(self, dir: str, notify_controller: bool = True) -> None:
        """Stop serving the replicas in a failed log dir: offline partitions, no fetchers; tell the controller
        (through the directory event handler, KIP-858)."""
        if not self.log_manager.is_log_dir_online(dir):
            return
        dir_uuid = self.log_manager.directory_id(dir)
        log.warning("Stopping serving replicas in dir %s with uuid %s because the log directory has failed.", dir,
                    dir_uuid)
        with self.replica_state_change_lock:
            new_offline_partitions = {p.topic_partition for p in self._online_partitions_iterator()
                                      if p.log is not None and p.log.parent_dir() == dir}
            partitions_with_offline_future_replica = {p for p in self._online_partitions_iterator()
                                                      if p.future_log is not None and p.future_log.parent_dir() == dir}
            self.replica_fetcher_manager.remove_fetcher_for_partitions(new_offline_partitions)
            if self.replica_alter_log_dirs_manager is not None:
                self.replica_alter_log_dirs_manager.remove_fetcher_for_partitions(
                    new_offline_partitions | {p.topic_partition for p in partitions_with_offline_future_replica})
            for partition in partitions_with_offline_future_replica:
                partition.remove_future_local_replica(delete_from_log_dir=False)
            for topic_partition in new_offline_partitions:
                self.mark_partition_offline(topic_partition)
            self.high_watermark_checkpoints = {checkpoint_dir: c for checkpoint_dir, c in
                                               self.high_watermark_checkpoints.items() if checkpoint_dir != dir}
            log.warning("Broker %d stopped fetcher for partitions %s and stopped moving logs for partitions %s "
                        "because they are in the failed log directory %s.", self.local_broker_id,
                        ",".join(map(str, new_offline_partitions)),
                        ",".join(str(p) for p in partitions_with_offline_future_replica), dir)
        self.log_manager.handle_log_dir_failure(dir)
        if dir == str(Path(self.config.metadata_log_dir()).absolute()) and self.config.process_roles:
            log.critical("Shutdown broker because the metadata log dir %s has failed", dir)
            os._exit(1)

        if notify_controller:
            if dir_uuid is not None and self.directory_event_handler is not None:
                self.directory_event_handler.handle_failure(dir_uuid)
            elif dir_uuid is None:
                log.critical("Unable to propagate directory failure disabled because directory %s has no UUID", dir)
                os._exit(1)
        log.warning("Stopped serving replicas in dir %s", dir)

    def begin_controlled_shutdown(self) -> None:
        self.is_in_controlled_shutdown = True

    def shutdown(self, checkpoint_hw: bool = True) -> None:
        log.info("Shutting down")
        if self._log_dir_failure_handler is not None:
            self._log_dir_failure_handler.shutdown()
        self.replica_fetcher_manager.shutdown()
        if self.replica_alter_log_dirs_manager is not None:
            self.replica_alter_log_dirs_manager.shutdown()
        self.delayed_fetch_purgatory.shutdown()
        self.delayed_remote_fetch_purgatory.shutdown()
        self.delayed_produce_purgatory.shutdown()
        self.delayed_delete_records_purgatory.shutdown()
        self.delayed_elect_leader_purgatory.shutdown()
        if checkpoint_hw:
            self.checkpoint_high_watermarks()
        if self.replica_selector_opt is not None:
            self.replica_selector_opt.close()
        if self.add_partitions_to_txn_manager is not None:
            self.add_partitions_to_txn_manager.shutdown()
        log.info("Shut down completely")

    def create_replica_fetcher_manager(self, metrics: Any, time: Time, thread_name_prefix: str | None,
                                       quota_manager: Any) -> Any:
        """The follower's fetchers, each fetching at the metadata version the metadata cache has now."""
        from kafka_edu.v3_9.core.server.replica_fetcher_manager import ReplicaFetcherManager

        return ReplicaFetcherManager(self.config, self, metrics, time, thread_name_prefix,
                                     quota_manager=quota_manager,
                                     metadata_version_supplier=lambda: self.metadata_cache.metadata_version(),
                                     broker_epoch_supplier=self.broker_epoch_supplier)

    def create_replica_alter_log_dirs_manager(self, quota_manager: Any, broker_topic_stats: Any) -> Any:
        """The threads that move replicas between this broker's log dirs."""
        from kafka_edu.v3_9.core.server.replica_alter_log_dirs_manager import ReplicaAlterLogDirsManager

        return ReplicaAlterLogDirsManager(self.config, self, quota_manager, broker_topic_stats,
                                          self.directory_event_handler)

    def _create_replica_selector(self) -> ReplicaSelector | None:
        class_name = self.config.replica_selector_class_name
        if class_name is None:
            return None
        tmp_replica_selector = _create_object(class_name)
        tmp_replica_selector.configure(self.config.originals())
        return tmp_replica_selector

    def last_offset_for_leader_epoch(self, requested_epoch_info: Sequence[OffsetForLeaderTopic]
                                     ) -> list[OffsetForLeaderTopicResult]:
        results = []
        for offset_for_leader_topic in requested_epoch_info:
            partitions = []
            for offset_for_leader_partition in offset_for_leader_topic.partitions:
                tp = TopicPartition(str(offset_for_leader_topic.topic), int(offset_for_leader_partition.partition))
                hosted = self.get_partition(tp)
                if isinstance(hosted, HostedPartition.Online):
                    current_leader_epoch = int(offset_for_leader_partition.current_leader_epoch)
                    current_leader_epoch_opt = None if current_leader_epoch == NO_PARTITION_LEADER_EPOCH \
                        else current_leader_epoch
                    partitions.append(hosted.partition.last_offset_for_leader_epoch(
                        current_leader_epoch_opt, int(offset_for_leader_partition.leader_epoch),
                        fetch_only_from_leader=True))
                elif isinstance(hosted, HostedPartition.Offline):
                    partitions.append(EpochEndOffset(partition=i32(tp.partition),
                                                     error_code=Errors.KAFKA_STORAGE_ERROR))
                elif self.metadata_cache.contains(tp):
                    partitions.append(EpochEndOffset(partition=i32(tp.partition),
                                                     error_code=Errors.NOT_LEADER_OR_FOLLOWER))
                else:
                    partitions.append(EpochEndOffset(partition=i32(tp.partition),
                                                     error_code=Errors.UNKNOWN_TOPIC_OR_PARTITION))
            results.append(OffsetForLeaderTopicResult(topic=offset_for_leader_topic.topic,
                                                      partitions=tuple(partitions)))
        return results

    # (electLeaders is ZooKeeper mode's preferred-leader election: the KRaft controller elects)

    def active_producer_state(self, request_partition: TopicPartition) -> Any:
        partition_or_error = self.get_partition_or_error(request_partition)
        if isinstance(partition_or_error, Errors):
            from kio.schema.describe_producers.v0.response import PartitionResponse as DescribeProducersPartition
            return DescribeProducersPartition(partition_index=i32(request_partition.partition),
                                              error_code=partition_or_error, error_message=None,
                                              active_producers=())
        return partition_or_error.active_producer_state()

    # -- KRaft: applyDelta ------------------------------------------------------------------------------------------

    def get_or_create_partition(self, tp: TopicPartition, delta: TopicsDelta,
                                topic_id: _py_uuid.UUID) -> tuple[Partition, bool] | None:
        """The partition and whether it is new; None if it lives in an offline dir with this very topic id."""
        hosted = self.get_partition(tp)
        topic_uuid = _topic_uuid(topic_id)
        if isinstance(hosted, HostedPartition.Offline):
            if hosted.partition is not None and hosted.partition.topic_id() == topic_uuid:
                state_change_logger.warning("Unable to bring up new local leader %s with topic id %s because it "
                                            "resides in an offline log directory.", tp, topic_id)
                return None
            state_change_logger.info("Creating new partition %s with topic id %s.A topic with the same name but "
                                     "different id exists but it resides in an offline log directory.", tp, topic_id)
            partition = Partition.apply(tp, self.time, self, topic_uuid)
            self.all_partitions[tp] = HostedPartition.Online(partition)
            return partition, True
        if isinstance(hosted, HostedPartition.Online):
            existing = hosted.partition.topic_id()
            if existing is not None and existing != ZERO_UUID and existing != topic_uuid:
                raise IllegalStateException(f"Topic {tp} exists, but its ID is {existing}, not {topic_id} as "
                                            "expected")
            return hosted.partition, False
        if topic_id in delta.image().topics_by_id:
            state_change_logger.error("Expected partition %s with topic id %s to exist, but it was missing. "
                                      "Creating...", tp, topic_id)
        else:
            state_change_logger.info("Creating new partition %s with topic id %s.", tp, topic_id)
        # it's a partition that we don't know about yet, so create it and mark it online
        partition = Partition.apply(tp, self.time, self, topic_uuid)
        self.all_partitions[tp] = HostedPartition.Online(partition)
        return partition, True

    def apply_delta(self, delta: TopicsDelta, new_image: MetadataImage) -> None:
        """Apply a KRaft topic change delta: delete the replicas this broker lost, then lead or follow."""
        # Before taking the lock, compute the local changes
        changes = local_changes(delta, self.config.node_id)

        with self.replica_state_change_lock:
            # First, handle partitions that should be deleted
            if changes.deletes:
                deletes = set()
                for tp in changes.deletes:
                    topic_image = delta.image().get_topic(tp.topic)
                    partition_image = topic_image.partitions.get(tp.partition) if topic_image is not None else None
                    is_current_leader = partition_image is not None and partition_image.leader == self.config.node_id
                    delete_remote_log = delta.topic_was_deleted(tp.topic) and is_current_leader
                    deletes.add(StopPartition(tp, delete_local_log=True, delete_remote_log=delete_remote_log))
                state_change_logger.info("Deleting %d partition(s).", len(deletes))
                for topic_partition, e in self._stop_partitions(deletes).items():
                    if isinstance(e, KafkaStorageException):
                        state_change_logger.error("Unable to delete replica %s because the local replica for the "
                                                  "partition is in an offline log directory", topic_partition)
                    else:
                        state_change_logger.error("Unable to delete replica %s because we got an unexpected %s "
                                                  "exception: %s", topic_partition, type(e).__name__, e)

            # Handle partitions which we are now the leader or follower for.
            if changes.leaders or changes.followers:
                lazy_offset_checkpoints = LazyOffsetCheckpoints(self.high_watermark_checkpoints)
                leader_changed_partitions: set[Partition] = set()
                follower_changed_partitions: set[Partition] = set()
                if changes.leaders:
                    self._apply_local_leaders_delta(leader_changed_partitions, new_image, delta,
                                                    lazy_offset_checkpoints, changes.leaders, changes.directory_ids)
                if changes.followers:
                    self._apply_local_followers_delta(follower_changed_partitions, new_image, delta,
                                                      lazy_offset_checkpoints, changes.followers,
                                                      changes.directory_ids)
                self.maybe_add_log_dir_fetchers(leader_changed_partitions | follower_changed_partitions,
                                                lazy_offset_checkpoints,
                                                lambda name: _topic_id_of(new_image.topics.get_topic(name)))
                self.replica_fetcher_manager.shutdown_idle_fetcher_threads()
                if self.replica_alter_log_dirs_manager is not None:
                    self.replica_alter_log_dirs_manager.shutdown_idle_fetcher_threads()

            if new_image.features.metadata_version.is_directory_assignment_supported():
                for partition, partition_directory_id in changes.directory_ids.items():
                    self._maybe_update_topic_assignment(partition, partition_directory_id)

    def _apply_local_leaders_delta(self, changed_partitions: set[Partition], new_image: MetadataImage,
                                   delta: TopicsDelta, offset_checkpoints: Any,
                                   local_leaders: Mapping[TopicPartition, PartitionInfo],
                                   directory_ids: Mapping[TopicIdPartition, _py_uuid.UUID]) -> None:
        state_change_logger.info("Transitioning %d partition(s) to local leaders.", len(local_leaders))
        self.replica_fetcher_manager.remove_fetcher_for_partitions(set(local_leaders))
        for tp, info in local_leaders.items():
            partition_and_is_new = self.get_or_create_partition(tp, delta, info.topic_id)
            if partition_and_is_new is None:
                continue
            partition, is_new = partition_and_is_new
            try:
                state = to_leader_and_isr_partition_state(info.partition, tp, is_new)
                partition_assigned_directory_id = _assigned_directory_id(directory_ids, tp)
                partition.make_leader(state, offset_checkpoints, _topic_uuid(info.topic_id),
                                      partition_assigned_directory_id)
                changed_partitions.add(partition)
            except KafkaStorageException as e:
                state_change_logger.info("Skipped the become-leader state change for %s with topic id %s due to a "
                                         "storage error %s", tp, info.topic_id, e)
                # If there is an offline log directory, a Partition object may have been created and have been
                # added to allPartitions before createLogIfNotExists() failed to create local replica due to
                # KafkaStorageException. In this case we need to mark the partition as offline.
                self.mark_partition_offline(tp)

    def _apply_local_followers_delta(self, changed_partitions: set[Partition], new_image: MetadataImage,
                                     delta: TopicsDelta, offset_checkpoints: Any,
                                     local_followers: Mapping[TopicPartition, PartitionInfo],
                                     directory_ids: Mapping[TopicIdPartition, _py_uuid.UUID]) -> None:
        state_change_logger.info("Transitioning %d partition(s) to local followers.", len(local_followers))
        partitions_to_start_fetching: dict[TopicPartition, Partition] = {}
        partitions_to_stop_fetching: dict[TopicPartition, bool] = {}
        follower_topic_set: set[str] = set()
        for tp, info in local_followers.items():
            partition_and_is_new = self.get_or_create_partition(tp, delta, info.topic_id)
            if partition_and_is_new is None:
                continue
            partition, is_new = partition_and_is_new
            try:
                follower_topic_set.add(tp.topic)
                # We always update the follower state: the leader epoch and partition epoch may have changed.
                state = to_leader_and_isr_partition_state(info.partition, tp, is_new)
                partition_assigned_directory_id = _assigned_directory_id(directory_ids, tp)
                is_new_leader_epoch = partition.make_follower(state, offset_checkpoints, _topic_uuid(info.topic_id),
                                                              partition_assigned_directory_id)
                if self.is_in_controlled_shutdown and (info.partition.leader == NO_LEADER
                                                       or self.config.broker_id not in info.partition.isr):
                    # During controlled shutdown, a replica with no leader or out of the ISR stops fetching.
                    partitions_to_stop_fetching[tp] = False
                elif is_new_leader_epoch:
                    # Otherwise, fetcher is restarted if the leader epoch has changed.
                    partitions_to_start_fetching[tp] = partition
                changed_partitions.add(partition)
            except KafkaStorageException as e:
                state_change_logger.error("Unable to start fetching %s with topic ID %s due to a storage error %s",
                                          tp, info.topic_id, e, exc_info=e)
                self.replica_fetcher_manager.add_failed_partition(tp)
                # If there is an offline log directory, a Partition object may have been created and have been
                # added to allPartitions before createLogIfNotExists() failed to create local replica due to
                # KafkaStorageException. In this case we need to mark the partition as offline.
                self.mark_partition_offline(tp)
            except Exception as e:
                state_change_logger.error("Unable to start fetching %s with topic ID %s due to %s", tp,
                                          info.topic_id, type(e).__name__, exc_info=e)
                self.replica_fetcher_manager.add_failed_partition(tp)

        if partitions_to_start_fetching:
            # Stopping the fetchers must be done first in order to initialize the fetch position correctly.
            self.replica_fetcher_manager.remove_fetcher_for_partitions(set(partitions_to_start_fetching))
            state_change_logger.info("Stopped fetchers as part of become-follower for %d partitions",
                                     len(partitions_to_start_fetching))
            listener_name = self.config.inter_broker_listener_name().value()
            partition_and_offsets: dict[TopicPartition, InitialFetchState] = {}
            for topic_partition, partition in partitions_to_start_fetching.items():
                broker = new_image.cluster.broker(partition.leader_replica_id_opt) \
                    if partition.leader_replica_id_opt is not None else None
                node = broker.listeners.get(listener_name) if broker is not None else None
                if node is not None:
                    the_log = partition.local_log_or_exception()
                    partition_and_offsets[topic_partition] = InitialFetchState(
                        the_log.topic_id(), BrokerEndPoint(broker.id, node.host, node.port),
                        partition.get_leader_epoch(), self.initial_fetch_offset(the_log))
                else:
                    state_change_logger.debug("Unable to start fetching %s with topic ID %s from leader %s because "
                                              "it is not alive.", topic_partition, partition.topic_id(),
                                              partition.leader_replica_id_opt)
            self.replica_fetcher_manager.add_fetcher_for_partitions(partition_and_offsets)
            state_change_logger.info("Started fetchers as part of become-follower for %d partitions",
                                     len(partitions_to_start_fetching))
            for topic_partition in partitions_to_start_fetching:
                self._complete_delayed_fetch_or_produce_requests(topic_partition)

        if partitions_to_stop_fetching:
            partitions_to_stop = {StopPartition(tp, delete_local_log) for tp, delete_local_log in
                                  partitions_to_stop_fetching.items()}
            self._stop_partitions(partitions_to_stop)
            state_change_logger.info("Stopped fetchers as part of controlled shutdown for %d partitions",
                                     len(partitions_to_stop))


    def _maybe_update_topic_assignment(self, partition: TopicIdPartition, partition_directory_id: _py_uuid.UUID
                                       ) -> None:
        """Tell the controller where the log really is when the metadata assigns it elsewhere (or nowhere)."""
        topic_partition_actual_log = self.log_manager.get_log(partition.topic_partition)
        if topic_partition_actual_log is None:
            return
        actual_directory_id = self.log_manager.directory_id(str(topic_partition_actual_log.dir().parent))
        if actual_directory_id is None or _topic_uuid(partition_directory_id) == actual_directory_id:
            return
        if self.directory_event_handler is None:
            return  # DirectoryEventHandler.NOOP
        self.directory_event_handler.handle_assignment(
            ServerTopicIdPartition(_topic_uuid(partition.topic_id), partition.partition), actual_directory_id,
            "Applying metadata delta", lambda: None)


class _LogDirFailureHandler(ShutdownableThread):
    """Takes each failed log dir off the channel and stops serving its replicas (or halts the broker)."""

    def __init__(self, name: str, replica_manager: ReplicaManager, halt_broker_on_dir_failure: bool) -> None:
        super().__init__(name)
        self._replica_manager = replica_manager
        self._halt_broker_on_dir_failure = halt_broker_on_dir_failure

    def interrupt(self) -> None:
        # Thread.interrupt wakes a thread blocked in ArrayBlockingQueue.take: here a None through the same queue
        self._replica_manager.log_dir_failure_channel._offline_log_dir_queue.put_nowait(None)

    def do_work(self) -> None:
        new_offline_log_dir = self._replica_manager.log_dir_failure_channel.take_next_offline_log_dir()
        if new_offline_log_dir is None:
            return  # woken to shut down
        if self._halt_broker_on_dir_failure:
            log.critical("Halting broker because dir %s is offline", new_offline_log_dir)
            os._exit(1)
        self._replica_manager.handle_log_dir_failure(new_offline_log_dir)


class ClassNotFoundException(ImportError):
    """java.lang.ClassNotFoundException: a configured plug-in class that does not exist."""


# Kafka's own plug-in classes by their Java names; any other name must be an importable Python `module.Class`.
_KNOWN_CLASSES: dict[str, type] = {
    "org.apache.kafka.common.replica.RackAwareReplicaSelector": RackAwareReplicaSelector,
}


def _create_object(class_name: str) -> Any:
    """CoreUtils.createObject: an instance of the named class."""
    klass = _KNOWN_CLASSES.get(class_name)
    if klass is None:
        module_name, _, name = class_name.rpartition(".")
        try:
            klass = getattr(importlib.import_module(module_name), name) if module_name else None
        except ImportError:
            klass = None
        if not isinstance(klass, type):
            raise ClassNotFoundException(class_name)
    return klass()


def _node_is_empty(node: Any) -> bool:
    """Node.isEmpty: no host or no port."""
    return not node.host or node.port < 0


_EXCEPTION_CLASSES: dict[Errors, type[ApiException]] = {}


def _error_exception(error: Errors, message: str | None = None) -> BaseException:
    """Errors.exception(message): the exception class named after the error (made on first use where the port has
    none), so that Errors.forException maps it back to the same code."""
    klass = _EXCEPTION_CLASSES.get(error)
    if klass is None:
        klass = type(error.exception_name or "ApiException", (ApiException,), {"__module__": __name__})
        _EXCEPTION_CLASSES[error] = klass
    return klass(message or error.exception_name or error.name)


def _delete_error(result: LogDeleteRecordsResult) -> Errors:
    """LogDeleteRecordsResult.error."""
    return Errors.NONE if result.exception is None else Errors.for_exception(result.exception)
