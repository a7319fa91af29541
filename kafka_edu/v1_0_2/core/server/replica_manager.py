"""Port of core/src/main/scala/kafka/server/ReplicaManager.scala (Kafka 1.0.2), with DelayedProduce.scala and
DelayedFetch.scala: the broker's partitions, leadership changes from the controller, the local write and read paths,
the purgatories, and ISR expiration and change propagation."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from kafka_edu.tracing import event, span, step
from kafka_edu.v1_0_2.clients.common.errors import (
    ControllerMovedException,
    InvalidTopicException,
    KafkaStorageException,
    LogDirNotFoundException,
    NotEnoughReplicasException,
    NotLeaderForPartitionException,
    OffsetOutOfRangeException,
    PolicyViolationException,
    ReplicaNotAvailableException,
    UnknownTopicOrPartitionException,
)
from kafka_edu.v1_0_2.clients.common.record.file_records import MAGIC_VALUE_V2, FileRecords
from kafka_edu.v1_0_2.clients.common.requests.epoch_end_offset import UNDEFINED_EPOCH_OFFSET, EpochEndOffset
from kafka_edu.v1_0_2.clients.common.requests.fetch_response import AbortedTransaction
from kafka_edu.v1_0_2.clients.common.requests.isolation_level import IsolationLevel
from kafka_edu.v1_0_2.core.cluster.partition import (
    INITIAL_CONTROLLER_EPOCH,
    LeaderAndIsrPartitionState,
    Partition,
    Replica,
)
from kafka_edu.v1_0_2.core.log.log import Log, TopicPartition
from kafka_edu.v1_0_2.core.log.log_manager import LogManager
from kafka_edu.v1_0_2.core.server.abstract_fetcher_manager import BrokerAndInitialOffset
from kafka_edu.v1_0_2.core.server.abstract_fetcher_thread import BrokerEndPoint
from kafka_edu.v1_0_2.core.server.broker_topic_stats import BrokerTopicStats
from kafka_edu.v1_0_2.core.server.checkpoints.offset_checkpoint_file import OffsetCheckpointFile
from kafka_edu.v1_0_2.core.server.delayed_delete_records import (
    INVALID_LOW_WATERMARK,
    DelayedDeleteRecords,
    DeleteRecordsPartitionResponse,
    DeleteRecordsPartitionStatus,
)
from kafka_edu.v1_0_2.core.server.delayed_operation import DelayedOperation, DelayedOperationPurgatory
from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
from kafka_edu.v1_0_2.core.server.log_dir_failure_channel import LogDirFailureChannel
from kafka_edu.v1_0_2.core.server.metadata_cache import MetadataCache, UpdateMetadataRequest
from kafka_edu.v1_0_2.core.server.replica_fetcher_manager import ReplicaFetcherManager
from kafka_edu.v1_0_2.core.utils.concurrent import AtomicBoolean
from kafka_edu.v1_0_2.core.utils.kafka_scheduler import KafkaScheduler
from kafka_edu.v1_0_2.core.utils.replication_utils import propagate_isr_changes
from kafka_edu.v1_0_2.core.utils.zk_utils import ZkUtils
from kafka_edu.v3_9.clients.common.protocol.errors import Errors

log = logging.getLogger("kafka.server.ReplicaManager")

HIGH_WATERMARK_FILENAME = "replication-offset-checkpoint"
ISR_CHANGE_PROPAGATION_BLACK_OUT = 5000
ISR_CHANGE_PROPAGATION_INTERVAL = 60000
INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state"})
DEBUGGING_CONSUMER_ID = -2
FUTURE_LOCAL_REPLICA_ID = -3
HIGH_WATERMARK_OFFSET = -1  # DeleteRecordsRequest.HIGH_WATERMARK: delete up to the high watermark
INVALID_OFFSET_LAG = -1  # DescribeLogDirsResponse.INVALID_OFFSET_LAG


def is_valid_broker_id(replica_id: int) -> bool:
    return replica_id >= 0


def records_size(records: FileRecords | bytes) -> int:
    """The bytes a read returned: a slice of the log (FileRecords), or b"" when it returned none."""
    return len(records) if isinstance(records, bytes) else records.size_in_bytes()


# -- the write path -----------------------------------------------------------------------------------------------


@dataclass
class PartitionResponse:
    """ProduceResponse.PartitionResponse."""

    error: Errors
    base_offset: int = -1
    log_append_time: int = -1
    log_start_offset: int = -1


@dataclass
class ProducePartitionStatus:
    required_offset: int
    response_status: PartitionResponse
    acks_pending: bool = False


@dataclass
class LogDeleteRecordsResult:
    requested_offset: int
    low_watermark: int
    exception: Exception | None = None

    @property
    def error(self) -> Errors:
        return Errors.NONE if self.exception is None else Errors.for_exception(self.exception)


@dataclass
class ReplicaInfo:
    """DescribeLogDirsResponse.ReplicaInfo: one partition's log in a log directory."""

    size: int
    offset_lag: int
    is_future: bool


@dataclass
class LogDirInfo:
    """DescribeLogDirsResponse.LogDirInfo: a log directory's error and the queried partitions it holds."""

    error: Errors
    replica_infos: dict[TopicPartition, ReplicaInfo]


@dataclass
class LogAppendResult:
    first_offset: int
    last_offset: int
    log_append_time: int
    log_start_offset: int
    exception: Exception | None = None

    @property
    def error(self) -> Errors:
        return Errors.NONE if self.exception is None else Errors.for_exception(self.exception)


class DelayedProduce(DelayedOperation):
    """An acks=all produce waiting until every in-sync replica has the data, or until its timeout."""

    def __init__(self, delay_ms: int, required_acks: int, produce_status: dict[TopicPartition, ProducePartitionStatus],
                 replica_manager: ReplicaManager,
                 response_callback: Callable[[dict[TopicPartition, PartitionResponse]], None]) -> None:
        super().__init__(delay_ms)
        self.required_acks = required_acks
        self.produce_status = produce_status
        self.replica_manager = replica_manager
        self.response_callback = response_callback
        for status in produce_status.values():
            if status.response_status.error == Errors.NONE:
                status.acks_pending = True
                status.response_status.error = Errors.REQUEST_TIMED_OUT  # what the client gets if time runs out
            else:
                status.acks_pending = False

    def try_complete(self) -> bool:
        for topic_partition, status in self.produce_status.items():
            if not status.acks_pending:
                continue
            partition = self.replica_manager.get_partition(topic_partition)
            if partition is None:
                has_enough, error = False, Errors.UNKNOWN_TOPIC_OR_PARTITION
            else:
                has_enough, error = partition.check_enough_replicas_reach_offset(status.required_offset)
            if error != Errors.NONE:
                status.acks_pending = False
                status.response_status.error = error
            elif has_enough:
                status.acks_pending = False
                status.response_status.error = Errors.NONE
        if not any(status.acks_pending for status in self.produce_status.values()):
            return self.force_complete()
        return False

    def on_complete(self) -> None:
        self.response_callback({tp: status.response_status for tp, status in self.produce_status.items()})


# -- the read path ------------------------------------------------------------------------------------------------


@dataclass
class PartitionFetchInfo:
    fetch_offset: int
    max_bytes: int
    log_start_offset: int = -1


@dataclass
class LogReadResult:
    """What one partition's read produced, and the offsets the fetch response reports.

    `fetch_offset` is where the read started: for a follower, its log end offset when it sent the fetch. A
    read_committed read also has the last stable offset and the aborted transactions in what it read (None for
    read_uncommitted, as the response sends them).
    """

    records: FileRecords | bytes = b""  # the log slice read, sent from the file; b"" when nothing was read
    high_watermark: int = -1
    leader_log_start_offset: int = -1
    leader_log_end_offset: int = -1
    fetch_offset: int = -1
    follower_log_start_offset: int = -1
    fetch_time_ms: int = -1
    read_size: int = -1
    error: Errors = Errors.NONE
    exception: Exception | None = None
    last_stable_offset: int | None = None
    aborted_transactions: list[AbortedTransaction] | None = None

    @classmethod
    def unknown(cls) -> LogReadResult:
        """LogReadResult.UnknownLogReadResult: nothing is known of the follower's position."""
        return cls()

    def with_empty_fetch_info(self) -> LogReadResult:
        return replace(self, records=b"", fetch_offset=-1, aborted_transactions=None)


@dataclass
class FetchMetadata:
    fetch_min_bytes: int
    fetch_max_bytes: int
    hard_max_bytes_limit: bool
    fetch_only_leader: bool
    fetch_only_committed: bool
    is_from_follower: bool
    replica_id: int
    fetch_partition_status: dict[TopicPartition, PartitionFetchInfo] = field(default_factory=dict)


class DelayedFetch(DelayedOperation):
    """A fetch waiting until `fetch.min.bytes` are readable, or `max.wait.ms` passes."""

    def __init__(self, delay_ms: int, fetch_metadata: FetchMetadata, replica_manager: ReplicaManager,
                 response_callback: Callable[[list[tuple[TopicPartition, LogReadResult]]], None],
                 isolation_level: IsolationLevel = IsolationLevel.READ_UNCOMMITTED) -> None:
        super().__init__(delay_ms)
        self.fetch_metadata = fetch_metadata
        self.replica_manager = replica_manager
        self.response_callback = response_callback
        self.isolation_level = isolation_level

    def try_complete(self) -> bool:
        accumulated_size = 0
        for topic_partition, fetch_info in self.fetch_metadata.fetch_partition_status.items():
            partition = self.replica_manager.get_partition(topic_partition)
            replica = partition.leader_replica_if_local() if partition else None
            if replica is None:
                return self.force_complete()  # leadership moved or the partition is gone: answer now
            # A read_committed consumer waits for the last stable offset to move, not the high watermark.
            if self.isolation_level is IsolationLevel.READ_COMMITTED:
                end_offset = replica.last_stable_offset
            elif self.fetch_metadata.fetch_only_committed:
                end_offset = partition.high_watermark
            else:
                end_offset = replica.log.log_end_offset
            if end_offset < fetch_info.fetch_offset:
                return self.force_complete()  # the log was truncated below the fetch offset
            if end_offset > fetch_info.fetch_offset:
                if self.fetch_metadata.fetch_min_bytes <= 1:
                    return self.force_complete()
                accumulated_size += len(replica.log.read(fetch_info.fetch_offset, fetch_info.max_bytes,
                                                         max_offset=end_offset))
        if accumulated_size >= self.fetch_metadata.fetch_min_bytes:
            return self.force_complete()
        return False

    def on_complete(self) -> None:
        results = self.replica_manager.read_from_local_log(self.fetch_metadata, self.isolation_level)
        self.response_callback(results)


# -- controller requests -------------------------------------------------------------------------------------------


@dataclass
class LeaderAndIsrRequest:
    """LeaderAndIsrRequest as ReplicaManager reads it: the sender, its epoch, and each partition's new state."""

    controller_id: int
    controller_epoch: int
    partition_states: dict[TopicPartition, LeaderAndIsrPartitionState]
    live_leaders: list[BrokerEndPoint] = field(default_factory=list)


@dataclass
class StopReplicaRequest:
    """StopReplicaRequest (v0, 1.0.2's only version): stop fetching these partitions, and delete them when
    `delete_partitions`."""

    controller_id: int
    controller_epoch: int
    delete_partitions: bool
    partitions: list[TopicPartition]


@dataclass
class BecomeLeaderOrFollowerResult:
    response_map: dict[TopicPartition, Errors]
    error: Errors


# -- the manager --------------------------------------------------------------------------------------------------


class ReplicaManager:
    """Every partition this broker hosts: leadership changes from the controller, the local append and read that
    produce and fetch requests run, and the followers' fetchers."""

    def __init__(self, config: KafkaConfig, scheduler: KafkaScheduler, log_manager: LogManager,
                 is_shutting_down: AtomicBoolean, metadata_cache: MetadataCache,
                 log_dir_failure_channel: LogDirFailureChannel, broker_topic_stats: BrokerTopicStats,
                 zk_utils: ZkUtils | None = None) -> None:
        self.config = config
        self.local_broker_id = config.broker_id
        self.scheduler = scheduler
        self.log_manager = log_manager
        self.is_shutting_down = is_shutting_down
        self.metadata_cache = metadata_cache
        self.log_dir_failure_channel = log_dir_failure_channel
        self.broker_topic_stats = broker_topic_stats
        self.zk_utils = zk_utils
        """The broker's ZooKeeper session: ISR changes are written through it."""
        self._owns_zk_utils = False
        self.controller_epoch = INITIAL_CONTROLLER_EPOCH - 1
        """Epoch of the newest controller this broker has heard from: older ones are fenced off."""
        self.all_partitions: dict[TopicPartition, Partition] = {}
        self.replica_state_change_lock = threading.RLock()
        self.replica_fetcher_manager = self.create_replica_fetcher_manager()
        self.high_watermark_check_point_thread_started = AtomicBoolean(False)
        self.high_watermark_checkpoints = {
            d: OffsetCheckpointFile(d / HIGH_WATERMARK_FILENAME, log_dir_failure_channel)
            for d in log_manager.live_log_dirs}
        self.hw_thread_initialized = False
        self._checkpointed_hws: dict[TopicPartition, int] = {}
        for checkpoint in self.high_watermark_checkpoints.values():
            try:
                self._checkpointed_hws.update(checkpoint.read())
            except (OSError, ValueError) as e:
                log.warning("Unreadable high watermark checkpoint %s: %s", checkpoint.file, e)
        self.isr_change_set: set[TopicPartition] = set()
        """Partitions whose ISR changed since the last notification to the controller."""
        self._isr_change_lock = threading.Lock()
        self.last_isr_change_ms = _milliseconds()
        self.last_isr_propagation_ms = _milliseconds()
        self.delayed_produce_purgatory = DelayedOperationPurgatory("Produce", config.broker_id)
        self.delayed_fetch_purgatory = DelayedOperationPurgatory("Fetch", config.broker_id)
        self.delayed_delete_records_purgatory = DelayedOperationPurgatory("DeleteRecords", config.broker_id)

    def start_high_water_marks_check_point_thread(self) -> None:
        if self.high_watermark_check_point_thread_started.compare_and_set(False, True):
            self.scheduler.schedule("highwatermark-checkpoint", self.checkpoint_high_watermarks,
                                    period=self.config.replica_high_watermark_checkpoint_interval_ms)

    def record_isr_change(self, topic_partition: TopicPartition) -> None:
        with self._isr_change_lock:
            self.isr_change_set.add(topic_partition)
            self.last_isr_change_ms = _milliseconds()

    def maybe_propagate_isr_changes(self) -> None:
        """Tell the controller about ISR changes in batches: once none happened for a few seconds, or at least once a
        minute while they keep happening, so a burst of changes does not flood it."""
        now = _milliseconds()
        with self._isr_change_lock:
            if self.isr_change_set and (self.last_isr_change_ms + ISR_CHANGE_PROPAGATION_BLACK_OUT < now
                                        or self.last_isr_propagation_ms + ISR_CHANGE_PROPAGATION_INTERVAL < now):
                with span("ReplicaManager.maybePropagateIsrChanges", self, root=True):
                    propagate_isr_changes(self.zk_utils, self.isr_change_set)
                self.isr_change_set.clear()
                self.last_isr_propagation_ms = now

    def try_complete_delayed_produce(self, topic_partition: TopicPartition) -> None:
        """A high watermark moved (acks=all) or a follower fetched: some acks=all produces may be done."""
        self.delayed_produce_purgatory.check_and_complete(topic_partition)

    def try_complete_delayed_fetch(self, topic_partition: TopicPartition) -> None:
        """Data was appended (follower fetches) or a high watermark moved (consumer fetches)."""
        self.delayed_fetch_purgatory.check_and_complete(topic_partition)

    def try_complete_delayed_delete_records(self, topic_partition: TopicPartition) -> None:
        """The partition's low watermark moved: a DeleteRecords waiting for the followers may be done."""
        self.delayed_delete_records_purgatory.check_and_complete(topic_partition)

    def startup(self) -> None:
        if self.zk_utils is None:
            # Until KafkaServer hands over its session (as 1.0.2 does), ISR updates use a session of their own.
            self.zk_utils = ZkUtils.with_metrics(self.config.zk_connect, self.config.zk_session_timeout_ms,
                                                 self.config.zk_connection_timeout_ms)
            self._owns_zk_utils = True
        # A follower may lag for up to 1.5 x replica.lag.time.max.ms before the check below notices.
        self.scheduler.schedule("isr-expiration", self.maybe_shrink_isr, period=self.config.replica_lag_time_max_ms / 2)
        self.scheduler.schedule("isr-change-propagation", self.maybe_propagate_isr_changes, period=2500)
        # High watermarks are checkpointed from now on (1.0.2 starts the thread at the first LeaderAndIsr).
        self.start_high_water_marks_check_point_thread()

    # -- partitions -----------------------------------------------------------------------------------------------

    def get_partition(self, topic_partition: TopicPartition) -> Partition | None:
        return self.all_partitions.get(topic_partition)

    def get_or_create_partition(self, topic_partition: TopicPartition) -> Partition:
        partition = self.all_partitions.get(topic_partition)
        if partition is None:
            partition = Partition(topic_partition.topic, topic_partition.partition, self)
            self.all_partitions[topic_partition] = partition
        return partition

    def get_replica_or_exception(self, topic_partition: TopicPartition) -> Replica:
        partition = self.get_partition(topic_partition)
        replica = partition.get_replica(self.local_broker_id) if partition is not None else None
        if replica is None:
            raise ReplicaNotAvailableException(
                f"Replica {self.local_broker_id} is not available for partition {topic_partition}")
        return replica

    def get_leader_replica_if_local(self, topic_partition: TopicPartition) -> Replica:
        partition = self.get_partition(topic_partition)
        if partition is None:
            raise UnknownTopicOrPartitionException(
                f"Partition {topic_partition} doesn't exist on {self.local_broker_id}")
        leader_replica = partition.leader_replica_if_local()
        if leader_replica is None:
            raise NotLeaderForPartitionException(
                f"Leader not local for partition {topic_partition} on broker {self.local_broker_id}")
        return leader_replica

    def get_replica(self, topic_partition: TopicPartition, replica_id: int | None = None) -> Replica | None:
        partition = self.get_partition(topic_partition)
        return partition.get_replica(replica_id) if partition is not None else None

    def get_log(self, topic_partition: TopicPartition) -> Log | None:
        return self.log_manager.get_log(topic_partition)

    def get_log_end_offset(self, topic_partition: TopicPartition) -> int | None:
        """The log end offset of the partition this broker leads; None if it does not lead it."""
        partition = self.get_partition(topic_partition)
        leader = partition.leader_replica_if_local() if partition is not None else None
        return leader.log_end_offset if leader is not None else None

    def get_magic(self, topic_partition: TopicPartition) -> int | None:
        """The message format of the local replica's log, None if there is none here (this log stores v2 only)."""
        replica = self.get_replica(topic_partition)
        return MAGIC_VALUE_V2 if replica is not None and replica.log is not None else None

    def checkpointed_high_watermark(self, topic_partition: TopicPartition) -> int:
        return self._checkpointed_hws.get(topic_partition, 0)

    # -- StopReplica ----------------------------------------------------------------------------------------------

    def stop_replica(self, topic_partition: TopicPartition, delete_partition: bool) -> Errors:
        partition = self.get_partition(topic_partition)
        if partition is not None:
            if delete_partition:
                removed_partition = self.all_partitions.pop(topic_partition, None)
                if removed_partition is not None:
                    self._checkpointed_hws.pop(topic_partition, None)
                    removed_partition.delete()
                elif self.log_manager.get_log(topic_partition) is not None:
                    self.log_manager.async_delete(topic_partition)
        else:
            # The topic may have been deleted while this broker was down: its log is still on disk.
            if delete_partition and self.log_manager.get_log(topic_partition) is not None:
                self.log_manager.async_delete(topic_partition)
            log.debug("Ignoring stop replica (delete=%s) for partition %s as replica doesn't exist on broker",
                      delete_partition, topic_partition)
        # Requests waiting on the partition give up now rather than at their timeout.
        self.try_complete_delayed_fetch(topic_partition)
        self.try_complete_delayed_produce(topic_partition)
        return Errors.NONE

    def stop_replicas(self, stop_replica_request: StopReplicaRequest) -> tuple[dict[TopicPartition, Errors], Errors]:
        """StopReplica: stop the fetchers, then each replica."""
        with self.replica_state_change_lock, span("ReplicaManager.stopReplicas", request=stop_replica_request):
            response_map: dict[TopicPartition, Errors] = {}
            if stop_replica_request.controller_epoch < self.controller_epoch:
                log.warning("Received stop replica request from an old controller epoch %d. Latest known controller "
                            "epoch is %d", stop_replica_request.controller_epoch, self.controller_epoch)
                event("CT.fence", self, request=stop_replica_request)
                return response_map, Errors.STALE_CONTROLLER_EPOCH
            partitions = stop_replica_request.partitions
            self.controller_epoch = stop_replica_request.controller_epoch
            self.replica_fetcher_manager.remove_fetcher_for_partitions(set(partitions))
            for topic_partition in partitions:
                try:
                    response_map[topic_partition] = self.stop_replica(topic_partition,
                                                                      stop_replica_request.delete_partitions)
                except KafkaStorageException:
                    log.exception("Ignoring stop replica (delete=%s) for partition %s due to storage exception",
                                  stop_replica_request.delete_partitions, topic_partition)
                    response_map[topic_partition] = Errors.KAFKA_STORAGE_ERROR
            return response_map, Errors.NONE

    # -- UpdateMetadata -------------------------------------------------------------------------------------------

    def maybe_update_metadata_cache(self, correlation_id: int,
                                    update_metadata_request: UpdateMetadataRequest) -> list[TopicPartition]:
        """Fill the metadata cache from the controller; returns the partitions it marks deleted."""
        with self.replica_state_change_lock, span("ReplicaManager.maybeUpdateMetadataCache",
                                                  correlation_id=correlation_id, request=update_metadata_request):
            if update_metadata_request.controller_epoch < self.controller_epoch:
                message = (f"Received update metadata request with correlation id {correlation_id} from an old "
                           f"controller {update_metadata_request.controller_id} with epoch "
                           f"{update_metadata_request.controller_epoch}. Latest known controller epoch is "
                           f"{self.controller_epoch}")
                log.warning(message)
                event("CT.fence", self, request=update_metadata_request)
                raise ControllerMovedException(message)
            deleted_partitions = self.metadata_cache.update_cache_from_request(correlation_id,
                                                                               update_metadata_request)
            self.controller_epoch = update_metadata_request.controller_epoch
            return deleted_partitions

    # -- LeaderAndIsr ---------------------------------------------------------------------------------------------

    def become_leader_or_follower(
            self, correlation_id: int, leader_and_isr_request: LeaderAndIsrRequest,
            on_leadership_change: Callable[[set[TopicPartition], set[TopicPartition]], None],
    ) -> BecomeLeaderOrFollowerResult:
        """LeaderAndIsr: check the controller's and each partition's epoch, then lead or follow as told."""
        request = leader_and_isr_request
        with self.replica_state_change_lock, span("ReplicaManager.becomeLeaderOrFollower",
                                                  correlation_id=correlation_id, request=request):
            response_map: dict[TopicPartition, Errors] = {}
            if request.controller_epoch < self.controller_epoch:
                log.warning("Ignoring LeaderAndIsr request from controller %d with correlation id %d since its "
                            "controller epoch %d is old. Latest known controller epoch is %d", request.controller_id,
                            correlation_id, request.controller_epoch, self.controller_epoch)
                event("CT.fence", self, request=request)
                return BecomeLeaderOrFollowerResult(response_map, Errors.STALE_CONTROLLER_EPOCH)
            controller_id = request.controller_id
            self.controller_epoch = request.controller_epoch

            # First the leader epoch of each partition: a decision older than the one applied is ignored.
            partition_state: dict[TopicPartition, LeaderAndIsrPartitionState] = {}
            for topic_partition, state_info in request.partition_states.items():
                partition = self.get_or_create_partition(topic_partition)
                partition_leader_epoch = partition.get_leader_epoch()
                if partition_leader_epoch < state_info.leader_epoch:
                    if self.local_broker_id in state_info.replicas:
                        partition_state[topic_partition] = state_info
                    else:
                        log.warning("Ignoring LeaderAndIsr request from controller %d with correlation id %d epoch %d "
                                    "for partition %s as itself is not in assigned replica list %s", controller_id,
                                    correlation_id, self.controller_epoch, topic_partition, state_info.replicas)
                        response_map[topic_partition] = Errors.UNKNOWN_TOPIC_OR_PARTITION
                else:
                    log.warning("Ignoring LeaderAndIsr request from controller %d with correlation id %d epoch %d for "
                                "partition %s since its associated leader epoch %d is not higher than the current "
                                "leader epoch %d", controller_id, correlation_id, self.controller_epoch,
                                topic_partition, state_info.leader_epoch, partition_leader_epoch)
                    event("leader.epoch.stale", topic_partition=topic_partition, state_info=state_info,
                          partition_leader_epoch=partition_leader_epoch)
                    response_map[topic_partition] = Errors.STALE_CONTROLLER_EPOCH

            partitions_to_be_leader = {tp: s for tp, s in partition_state.items() if s.leader == self.local_broker_id}
            partitions_to_be_follower = {tp: s for tp, s in partition_state.items()
                                         if tp not in partitions_to_be_leader}
            partitions_become_leader = self.make_leaders(controller_id, partitions_to_be_leader, self.controller_epoch,
                                                         correlation_id, response_map) \
                if partitions_to_be_leader else set()
            partitions_become_follower = self.make_followers(controller_id, self.controller_epoch,
                                                             partitions_to_be_follower, correlation_id,
                                                             response_map) if partitions_to_be_follower else set()
            # A partition whose local replica could not be created serves nothing.
            for topic_partition in request.partition_states:
                partition = self.all_partitions.get(topic_partition)
                if partition is not None and partition.get_replica() is None:
                    del self.all_partitions[topic_partition]

            if not self.hw_thread_initialized:
                self.start_high_water_marks_check_point_thread()
                self.hw_thread_initialized = True
            self.replica_fetcher_manager.shutdown_idle_fetcher_threads()
            on_leadership_change({p.topic_partition for p in partitions_become_leader},
                                 {p.topic_partition for p in partitions_become_follower})
            return BecomeLeaderOrFollowerResult(response_map, Errors.NONE)

    def make_leaders(self, controller_id: int, partition_state: dict[TopicPartition, LeaderAndIsrPartitionState],
                     epoch: int | None = None, correlation_id: int = -1,
                     response_map: dict[TopicPartition, Errors] | None = None) -> set[Partition]:
        """Lead these partitions: stop fetching them, then take leadership; returns those whose leader changed."""
        response_map = {} if response_map is None else response_map
        epoch = self.controller_epoch if epoch is None else epoch
        with self.replica_state_change_lock, span("ReplicaManager.makeLeaders", controller_id=controller_id,
                                                  epoch=epoch, partition_state=partition_state):
            for topic_partition in partition_state:
                response_map[topic_partition] = Errors.NONE
            partitions_to_make_leaders: set[Partition] = set()
            self.replica_fetcher_manager.remove_fetcher_for_partitions(set(partition_state))
            for topic_partition, partition_state_info in partition_state.items():
                partition = self.get_or_create_partition(topic_partition)
                try:
                    if partition.make_leader(controller_id, partition_state_info, correlation_id):
                        partitions_to_make_leaders.add(partition)
                    else:
                        log.info("Skipped the become-leader state change for partition %s since it is already the "
                                 "leader for the partition.", topic_partition)
                except KafkaStorageException:
                    log.exception("Error while making broker the leader for partition %s", topic_partition)
                    response_map[topic_partition] = Errors.KAFKA_STORAGE_ERROR
            return partitions_to_make_leaders

    def make_followers(self, controller_id: int, epoch: int,
                       partition_state: dict[TopicPartition, LeaderAndIsrPartitionState], correlation_id: int,
                       response_map: dict[TopicPartition, Errors]) -> set[Partition]:
        """Follow these partitions' leaders: mark them followers, stop their fetchers, release waiting requests, and
        fetch from the new leaders (each fetcher first truncates its log to where its leader epoch ends on the
        leader)."""
        for topic_partition in partition_state:
            response_map[topic_partition] = Errors.NONE
        partitions_to_make_follower: set[Partition] = set()
        alive_brokers = {b.id: b for b in self.metadata_cache.get_alive_brokers()}
        for topic_partition, partition_state_info in partition_state.items():
            partition = self.get_or_create_partition(topic_partition)
            try:
                new_leader_broker_id = partition_state_info.leader
                if new_leader_broker_id in alive_brokers:
                    if partition.make_follower(controller_id, partition_state_info, correlation_id):
                        partitions_to_make_follower.add(partition)
                    else:
                        log.info("Skipped the become-follower state change for partition %s since the new leader "
                                 "%d is the same as the old leader", topic_partition, new_leader_broker_id)
                else:
                    log.error("Received LeaderAndIsrRequest with correlation id %d from controller %d epoch %d for "
                              "partition %s but cannot become follower since the new leader %d is unavailable.",
                              correlation_id, controller_id, epoch, topic_partition, new_leader_broker_id)
                    # The local replica still exists, so its high watermark is checkpointed.
                    partition.get_or_create_replica(is_new=partition_state_info.is_new)
            except KafkaStorageException:
                log.exception("Error while making broker the follower for partition %s", topic_partition)
                response_map[topic_partition] = Errors.KAFKA_STORAGE_ERROR

        self.replica_fetcher_manager.remove_fetcher_for_partitions(
            {p.topic_partition for p in partitions_to_make_follower})
        for partition in partitions_to_make_follower:
            self.try_complete_delayed_produce(partition.topic_partition)
            self.try_complete_delayed_fetch(partition.topic_partition)

        if self.is_shutting_down.get():
            log.debug("Skipped the adding-fetcher step of the become-follower state change since the broker is "
                      "shutting down")
        else:
            listener = self.config.inter_broker_listener_name
            partitions_to_make_follower_with_leader_and_offset = {}
            for partition in partitions_to_make_follower:
                leader = alive_brokers[partition.leader_replica_id_opt]
                host, port = leader.endpoints[listener]
                partitions_to_make_follower_with_leader_and_offset[partition.topic_partition] = \
                    BrokerAndInitialOffset(BrokerEndPoint(leader.id, host, port),
                                           partition.get_replica().log_end_offset)
            self.replica_fetcher_manager.add_fetcher_for_partitions(
                partitions_to_make_follower_with_leader_and_offset)
        return partitions_to_make_follower

    def maybe_shrink_isr(self) -> None:
        """The `isr-expiration` task: every partition this broker leads drops followers that fell behind."""
        for partition in list(self.all_partitions.values()):
            partition.maybe_shrink_isr(self.config.replica_lag_time_max_ms)

    def update_follower_log_read_results(
            self, replica_id: int, read_results: list[tuple[TopicPartition, LogReadResult]],
    ) -> list[tuple[TopicPartition, LogReadResult]]:
        """A follower's fetch tells the leader where the follower is: its LEO, when it was last caught up."""
        log.debug("Recording follower broker %d log end offsets: %s", replica_id,
                  [(str(tp), r.fetch_offset) for tp, r in read_results])
        updated = []
        for topic_partition, read_result in read_results:
            partition = self.get_partition(topic_partition)
            if partition is not None:
                replica = partition.get_replica(replica_id)
                if replica is not None:
                    partition.update_replica_log_read_result(replica, read_result)
                else:
                    log.warning("Leader %d failed to record follower %d's position %d since the replica is not "
                                "recognized to be one of the assigned replicas %s for partition %s. Empty records "
                                "will be returned for this partition.", self.local_broker_id, replica_id,
                                read_result.fetch_offset, sorted(partition.assigned_replica_map), topic_partition)
                    read_result = read_result.with_empty_fetch_info()
            else:
                log.warning("While recording the replica LEO, the partition %s hasn't been created.", topic_partition)
            updated.append((topic_partition, read_result))
        return updated

    # -- produce --------------------------------------------------------------------------------------------------

    @step("NW.rm.append")
    def append_records(self, timeout: int, required_acks: int, internal_topics_allowed: bool, is_from_client: bool,
                       entries_per_partition: dict[TopicPartition, bytes],
                       response_callback: Callable[[dict[TopicPartition, PartitionResponse]], None]) -> None:
        if self.is_valid_required_acks(required_acks):
            local_produce_results = self.append_to_local_log(internal_topics_allowed, is_from_client,
                                                             entries_per_partition, required_acks)
            produce_status = {
                tp: ProducePartitionStatus(result.last_offset + 1, PartitionResponse(
                    result.error, result.first_offset, result.log_append_time, result.log_start_offset))
                for tp, result in local_produce_results.items()}
            if self.delayed_produce_required(required_acks, entries_per_partition, local_produce_results):
                delayed_produce = DelayedProduce(timeout, required_acks, produce_status, self, response_callback)
                self.delayed_produce_purgatory.try_complete_else_watch(delayed_produce,
                                                                       list(entries_per_partition))
            else:
                response_callback({tp: status.response_status for tp, status in produce_status.items()})
        else:
            # Kafka validates acks here rather than in the request parser, so every partition gets the error.
            response_callback({tp: PartitionResponse(Errors.INVALID_REQUIRED_ACKS)
                               for tp in entries_per_partition})

    @staticmethod
    def is_valid_required_acks(required_acks: int) -> bool:
        return required_acks in (-1, 0, 1)

    @staticmethod
    def delayed_produce_required(required_acks: int, entries_per_partition: dict[TopicPartition, bytes],
                                 local_produce_results: dict[TopicPartition, LogAppendResult]) -> bool:
        return (required_acks == -1 and len(entries_per_partition) > 0
                and sum(1 for r in local_produce_results.values() if r.exception is not None)
                < len(entries_per_partition))

    def append_to_local_log(self, internal_topics_allowed: bool, is_from_client: bool,
                            entries_per_partition: dict[TopicPartition, bytes],
                            required_acks: int) -> dict[TopicPartition, LogAppendResult]:
        results = {}
        for topic_partition, records in entries_per_partition.items():
            try:
                if topic_partition.topic in INTERNAL_TOPICS and not internal_topics_allowed:
                    raise InvalidTopicException(f"Cannot append to internal topic {topic_partition.topic}")
                partition = self.get_partition(topic_partition)
                if partition is None:
                    raise UnknownTopicOrPartitionException(
                        f"Partition {topic_partition} doesn't exist on {self.local_broker_id}")
                info = partition.append_records_to_leader(records, is_from_client, required_acks)
                self.broker_topic_stats.topic_stats(topic_partition.topic).mark("BytesInPerSec", len(records))
                self.broker_topic_stats.all_topics_stats.mark("BytesInPerSec", len(records))
                self.broker_topic_stats.topic_stats(topic_partition.topic).mark("MessagesInPerSec",
                                                                                 info.num_messages)
                self.broker_topic_stats.all_topics_stats.mark("MessagesInPerSec", info.num_messages)
                results[topic_partition] = LogAppendResult(info.first_offset, info.last_offset, info.log_append_time,
                                                           info.log_start_offset)
            except Exception as e:
                if not isinstance(e, KafkaStorageException | NotLeaderForPartitionException |
                                  UnknownTopicOrPartitionException | InvalidTopicException) \
                        and Errors.for_exception(e) == Errors.UNKNOWN_SERVER_ERROR:
                    log.exception("Error processing append operation on partition %s", topic_partition)
                self.broker_topic_stats.topic_stats(topic_partition.topic).mark("FailedProduceRequestsPerSec")
                results[topic_partition] = LogAppendResult(-1, -1, -1, -1, e)
        return results

    # -- DeleteRecords, AlterReplicaLogDirs, DescribeLogDirs -----------------------------------------------------

    def delete_records_on_local_log(self, offset_per_partition: dict[TopicPartition, int]
                                    ) -> dict[TopicPartition, LogDeleteRecordsResult]:
        """Move each leader's log start offset up to the requested offset (-1: the high watermark)."""
        results = {}
        for topic_partition, requested_offset in offset_per_partition.items():
            if topic_partition.topic in INTERNAL_TOPICS:
                results[topic_partition] = LogDeleteRecordsResult(-1, INVALID_LOW_WATERMARK, InvalidTopicException(
                    f"Cannot delete records of internal topic {topic_partition.topic}"))
                continue
            try:
                partition = self.get_partition(topic_partition)
                if partition is None:
                    raise UnknownTopicOrPartitionException(
                        f"Partition {topic_partition} doesn't exist on {self.local_broker_id}")
                if requested_offset == HIGH_WATERMARK_OFFSET:
                    leader_replica = partition.leader_replica_if_local()
                    if leader_replica is None:
                        raise NotLeaderForPartitionException(
                            f"Leader not local for partition {topic_partition} on broker {self.local_broker_id}")
                    converted_offset = leader_replica.high_watermark
                else:
                    converted_offset = requested_offset
                if converted_offset < 0:
                    raise OffsetOutOfRangeException(
                        f"The offset {converted_offset} for partition {topic_partition} is not valid")
                low_watermark = partition.delete_records_on_leader(converted_offset)
                results[topic_partition] = LogDeleteRecordsResult(converted_offset, low_watermark)
            except (UnknownTopicOrPartitionException, NotLeaderForPartitionException, OffsetOutOfRangeException,
                    PolicyViolationException, KafkaStorageException, NotEnoughReplicasException) as e:
                results[topic_partition] = LogDeleteRecordsResult(-1, INVALID_LOW_WATERMARK, e)
            except Exception as e:
                log.exception("Error processing delete records operation on partition %s", topic_partition)
                results[topic_partition] = LogDeleteRecordsResult(-1, INVALID_LOW_WATERMARK, e)
        return results

    @staticmethod
    def delayed_delete_records_required(local_delete_records_results: dict[TopicPartition, LogDeleteRecordsResult]
                                        ) -> bool:
        """Wait when some partition's delete succeeded locally but a follower still holds records below it."""
        return any(r.exception is None and r.low_watermark < r.requested_offset
                   for r in local_delete_records_results.values())

    def alter_replica_log_dirs(self, partition_dirs: dict[TopicPartition, str]) -> dict[TopicPartition, Errors]:
        """1.0.2 only places replicas that do not exist yet: the directory is remembered for the log's creation
        (answered REPLICA_NOT_AVAILABLE); a replica that exists stays where it is (answered NONE)."""
        results = {}
        for topic_partition, destination_dir in partition_dirs.items():
            try:
                if not self.log_manager.is_log_dir_online(destination_dir):
                    raise KafkaStorageException(f"Log directory {destination_dir} is offline")
                if self.get_replica(topic_partition) is None:
                    self.log_manager.update_preferred_log_dir(topic_partition, destination_dir)
                    raise ReplicaNotAvailableException(
                        f"Replica {self.local_broker_id} is not available for partition {topic_partition}")
                # moving an existing replica between directories came with KIP-113's second half (Kafka 1.1)
                results[topic_partition] = Errors.NONE
            except (LogDirNotFoundException, ReplicaNotAvailableException, KafkaStorageException) as e:
                results[topic_partition] = Errors.for_exception(e)
            except Exception as e:
                log.exception("Error while changing replica dir for partition %s", topic_partition)
                results[topic_partition] = Errors.for_exception(e)
        return results

    def describe_log_dirs(self, partitions: set[TopicPartition]) -> dict[str, LogDirInfo]:
        """Every configured log directory: its error, and the size and lag of the queried partitions' logs in it."""
        logs_by_dir: dict[str, list] = {}
        for partition_log in self.log_manager.all_logs():
            logs_by_dir.setdefault(str(Path(partition_log.dir).parent.absolute()), []).append(partition_log)
        results = {}
        for log_dir in dict.fromkeys(self.config.log_dirs):
            absolute_path = str(Path(log_dir).absolute())
            try:
                if not self.log_manager.is_log_dir_online(absolute_path):
                    raise KafkaStorageException(f"Log directory {absolute_path} is offline")
                replica_infos = {
                    partition_log.topic_partition: ReplicaInfo(partition_log.size,
                                                               self.get_log_end_offset_lag(
                                                                   partition_log.topic_partition), False)
                    for partition_log in logs_by_dir.get(absolute_path, [])
                    if partition_log.topic_partition in partitions}
                results[absolute_path] = LogDirInfo(Errors.NONE, replica_infos)
            except KafkaStorageException:
                results[absolute_path] = LogDirInfo(Errors.KAFKA_STORAGE_ERROR, {})
            except Exception as e:
                log.exception("Error while describing replica in dir %s", absolute_path)
                results[absolute_path] = LogDirInfo(Errors.for_exception(e), {})
        return results

    def get_log_end_offset_lag(self, topic_partition: TopicPartition) -> int:
        """How far the log end is below the high watermark; a replica's high watermark never passes its log end,
        so this is 0 for every replica here (the figure was meant for 1.1's future replicas)."""
        replica = self.get_replica(topic_partition)
        if replica is None or replica.log is None:
            return INVALID_OFFSET_LAG
        return max(replica.high_watermark - replica.log.log_end_offset, 0)

    def delete_records(self, timeout: int, offset_per_partition: dict[TopicPartition, int],
                       response_callback: Callable[[dict[TopicPartition, DeleteRecordsPartitionResponse]], None]
                       ) -> None:
        """DeleteRecords: the leaders' log start offsets move now; the answer waits until the followers' have too."""
        local_delete_records_results = self.delete_records_on_local_log(offset_per_partition)
        delete_records_status = {
            tp: DeleteRecordsPartitionStatus(result.requested_offset,
                                             DeleteRecordsPartitionResponse(result.low_watermark, result.error))
            for tp, result in local_delete_records_results.items()}
        if self.delayed_delete_records_required(local_delete_records_results):
            delayed_delete_records = DelayedDeleteRecords(timeout, delete_records_status, self, response_callback)
            self.delayed_delete_records_purgatory.try_complete_else_watch(delayed_delete_records,
                                                                          list(offset_per_partition))
        else:
            response_callback({tp: status.response_status for tp, status in delete_records_status.items()})

    # -- fetch ----------------------------------------------------------------------------------------------------

    def fetch_messages(self, timeout: int, replica_id: int, fetch_min_bytes: int, fetch_max_bytes: int,
                       hard_max_bytes_limit: bool, fetch_infos: dict[TopicPartition, PartitionFetchInfo],
                       response_callback: Callable[[list[tuple[TopicPartition, LogReadResult]]], None],
                       isolation_level: IsolationLevel = IsolationLevel.READ_UNCOMMITTED) -> None:
        is_from_follower = is_valid_broker_id(replica_id)
        fetch_metadata = FetchMetadata(
            fetch_min_bytes, fetch_max_bytes, hard_max_bytes_limit,
            fetch_only_leader=replica_id != DEBUGGING_CONSUMER_ID,
            fetch_only_committed=not is_valid_broker_id(replica_id), is_from_follower=is_from_follower,
            replica_id=replica_id, fetch_partition_status=fetch_infos)
        log_read_results = self.read_from_local_log(fetch_metadata, isolation_level)
        if is_from_follower:
            log_read_results = self.update_follower_log_read_results(replica_id, log_read_results)
        bytes_readable = sum(records_size(r.records) for _, r in log_read_results)
        error_reading_data = any(r.error != Errors.NONE for _, r in log_read_results)
        if timeout <= 0 or not fetch_infos or bytes_readable >= fetch_min_bytes or error_reading_data:
            response_callback(log_read_results)
        else:
            delayed_fetch = DelayedFetch(timeout, fetch_metadata, self, response_callback, isolation_level)
            self.delayed_fetch_purgatory.try_complete_else_watch(delayed_fetch, list(fetch_infos))

    def read_from_local_log(self, fetch_metadata: FetchMetadata,
                            isolation_level: IsolationLevel = IsolationLevel.READ_UNCOMMITTED,
                            ) -> list[tuple[TopicPartition, LogReadResult]]:
        limit_bytes = fetch_metadata.fetch_max_bytes
        min_one_message = not fetch_metadata.hard_max_bytes_limit
        results = []
        for topic_partition, fetch_info in fetch_metadata.fetch_partition_status.items():
            result = self._read(topic_partition, fetch_info, fetch_metadata, limit_bytes, min_one_message,
                                isolation_level)
            read_size = records_size(result.records)
            if read_size:
                min_one_message = False  # only the first partition with data may exceed the limits
            limit_bytes = max(0, limit_bytes - read_size)
            results.append((topic_partition, result))
        return results

    def _read(self, topic_partition: TopicPartition, fetch_info: PartitionFetchInfo, fetch_metadata: FetchMetadata,
              limit_bytes: int, min_one_message: bool,
              isolation_level: IsolationLevel = IsolationLevel.READ_UNCOMMITTED) -> LogReadResult:
        try:
            partition = self.get_partition(topic_partition)
            if partition is None:
                raise UnknownTopicOrPartitionException(
                    f"Partition {topic_partition} doesn't exist on {self.local_broker_id}")
            replica = (partition.leader_replica_if_local() if fetch_metadata.fetch_only_leader
                       else partition.get_replica())
            if replica is None or replica.log is None:
                raise NotLeaderForPartitionException(
                    f"Leader not local for partition {topic_partition} on broker {self.local_broker_id}")
            partition_log = replica.log
            initial_high_watermark = replica.high_watermark
            last_stable_offset = (replica.last_stable_offset if isolation_level is IsolationLevel.READ_COMMITTED
                                  else None)
            # Consumers stop at the high watermark, read_committed ones at the last stable offset; followers at
            # the log end.
            if fetch_metadata.fetch_only_committed:
                max_offset = last_stable_offset if last_stable_offset is not None else initial_high_watermark
            else:
                max_offset = None
            # The end offset before the read decides whether a follower is caught up: one taken after it could
            # include an append racing with the read, and a follower would never look in sync.
            initial_log_end_offset = partition_log.log_end_offset
            initial_log_start_offset = partition_log.log_start_offset
            fetch_time_ms = _milliseconds()
            adjusted_max_bytes = min(fetch_info.max_bytes, limit_bytes)
            fetch = partition_log.read_fetch_data_info(fetch_info.fetch_offset, adjusted_max_bytes,
                                                       max_offset=max_offset, min_one_message=min_one_message,
                                                       isolation_level=isolation_level)
            if not fetch_metadata.hard_max_bytes_limit and fetch.first_entry_incomplete:
                # Fetch v3+: a batch cut short is sent as nothing; the consumer asks again with more room.
                records, aborted_transactions = b"", None
            else:
                # the slice of the log itself: the Fetch response sends it from the file (sendfile), unread
                records, aborted_transactions = fetch.records or b"", fetch.aborted_transactions
            self.broker_topic_stats.topic_stats(topic_partition.topic).mark("BytesOutPerSec", records_size(records))
            return LogReadResult(records, initial_high_watermark, initial_log_start_offset, initial_log_end_offset,
                                 fetch_info.fetch_offset, fetch_info.log_start_offset, fetch_time_ms,
                                 fetch_info.max_bytes, last_stable_offset=last_stable_offset,
                                 aborted_transactions=aborted_transactions)
        except (UnknownTopicOrPartitionException, NotLeaderForPartitionException, KafkaStorageException,
                OffsetOutOfRangeException) as e:
            return LogReadResult(error=Errors.for_exception(e), exception=e, fetch_offset=fetch_info.fetch_offset)
        except Exception as e:
            log.exception("Error processing fetch operation on partition %s, offset %d", topic_partition,
                          fetch_info.fetch_offset)
            return LogReadResult(error=Errors.for_exception(e), exception=e, fetch_offset=fetch_info.fetch_offset)

    # -- background tasks -----------------------------------------------------------------------------------------

    def checkpoint_high_watermarks(self) -> None:
        by_dir: dict[Path, dict[TopicPartition, int]] = {d: {} for d in self.high_watermark_checkpoints}
        for topic_partition, partition in list(self.all_partitions.items()):
            replica = partition.get_replica()
            if replica is not None and replica.log is not None:
                by_dir.setdefault(Path(replica.log.dir).parent.absolute(), {})[topic_partition] = \
                    replica.high_watermark
        for d, hws in by_dir.items():
            if d in self.high_watermark_checkpoints:
                self.high_watermark_checkpoints[d].write(hws)

    def create_replica_fetcher_manager(self) -> ReplicaFetcherManager:
        return ReplicaFetcherManager(self.config, self)

    def last_offset_for_leader_epoch(self, requested_epoch_info: dict[TopicPartition, int]
                                     ) -> dict[TopicPartition, EpochEndOffset]:
        """OffsetsForLeaderEpoch: each partition's leader answers where the epoch ends; a partition this broker does
        not host at all is unknown to it."""
        result = {}
        for tp, leader_epoch in requested_epoch_info.items():
            partition = self.get_partition(tp)
            if partition is not None:
                result[tp] = partition.last_offset_for_leader_epoch(leader_epoch)
            else:
                result[tp] = EpochEndOffset(Errors.UNKNOWN_TOPIC_OR_PARTITION, UNDEFINED_EPOCH_OFFSET)
        return result

    def shutdown(self, checkpoint_hw: bool = True) -> None:
        log.info("Shutting down")
        self.replica_fetcher_manager.shutdown()
        self.delayed_fetch_purgatory.shutdown()
        self.delayed_produce_purgatory.shutdown()
        self.delayed_delete_records_purgatory.shutdown()
        if checkpoint_hw:
            self.checkpoint_high_watermarks()
        if self._owns_zk_utils and self.zk_utils is not None:
            self.zk_utils.close()
        log.info("Shut down completely")


def _milliseconds() -> int:
    return int(time.time() * 1000)
