"""Port of core/src/main/scala/kafka/cluster/Partition.scala (Kafka 3.9): one partition on this broker: its log, its
leader or follower role from the metadata, the followers' positions, the ISR (changed through AlterPartition,
KIP-497) and the high watermark."""

from __future__ import annotations

import contextlib
import logging
import threading
import uuid as _py_uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from kio.schema.alter_partition.v3.request import BrokerState
from kio.schema.fetch.v16.response import EpochEndOffset as FetchEpochEndOffset
from kio.schema.offset_for_leader_epoch.v4.response import EpochEndOffset
from kio.static.primitive import i32, i64

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import (
    ApiException,
    IllegalStateException,
    KafkaStorageException,
    NotEnoughReplicasException,
    OffsetOutOfRangeException,
    PolicyViolationException,
    UnexpectedAppendOffsetException,
)
from kafka_edu.v3_9.clients.common.errors.fenced_leader_epoch_exception import FencedLeaderEpochException
from kafka_edu.v3_9.clients.common.errors.not_leader_or_follower_exception import NotLeaderOrFollowerException
from kafka_edu.v3_9.clients.common.errors.offset_not_available_exception import OffsetNotAvailableException
from kafka_edu.v3_9.clients.common.errors.unknown_leader_epoch_exception import UnknownLeaderEpochException
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.file_records import TimestampAndOffset
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record_batch import NO_TIMESTAMP
from kafka_edu.v3_9.clients.common.requests.fetch_request import PartitionData
from kafka_edu.v3_9.clients.common.topic_id_partition import TopicIdPartition
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.clients.common.uuid import ZERO_UUID, DirectoryId, Uuid
from kafka_edu.v3_9.core.api.leader_and_isr import INITIAL_LEADER_EPOCH, INITIAL_PARTITION_EPOCH, LeaderAndIsr
from kafka_edu.v3_9.core.cluster.replica import Replica
from kafka_edu.v3_9.core.log.unified_log import UnifiedLog
from kafka_edu.v3_9.core.server.alter_partition_manager import error_of
from kafka_edu.v3_9.core.server.delayed_operation_key import TopicPartitionOperationKey
from kafka_edu.v3_9.metadata.metadata.partition_registration import LeaderRecoveryState
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from kafka_edu.v3_9.storage.storage.internals.log.append_origin import AppendOrigin
from kafka_edu.v3_9.storage.storage.internals.log.fetch_data_info import FetchDataInfo
from kafka_edu.v3_9.storage.storage.internals.log.fetch_isolation import FetchIsolation
from kafka_edu.v3_9.storage.storage.internals.log.fetch_params import FetchParams
from kafka_edu.v3_9.storage.storage.internals.log.leader_hw_change import LeaderHwChange
from kafka_edu.v3_9.storage.storage.internals.log.log_append_info import LogAppendInfo
from kafka_edu.v3_9.storage.storage.internals.log.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.storage.storage.internals.log.log_offset_snapshot import LogOffsetSnapshot
from kafka_edu.v3_9.storage.storage.internals.log.log_offsets_listener import LogOffsetsListener
from kafka_edu.v3_9.storage.storage.internals.log.log_read_info import LogReadInfo
from kafka_edu.v3_9.storage.storage.internals.log.log_start_offset_increment_reason import (
    LogStartOffsetIncrementReason,
)
from kafka_edu.v3_9.storage.storage.internals.log.verification_guard import VerificationGuard

log = logging.getLogger("kafka.cluster.Partition")
state_change_logger = logging.getLogger("state.change.logger")

# KafkaController.InitialControllerEpoch
INITIAL_CONTROLLER_EPOCH = 0
# OffsetsForLeaderEpochResponse
UNDEFINED_EPOCH = -1
UNDEFINED_EPOCH_OFFSET = -1
# ListOffsetsRequest
LATEST_TIMESTAMP = -1
EARLIEST_TIMESTAMP = -2
EARLIEST_LOCAL_TIMESTAMP = -4
# DeleteRecordsRequest.HIGH_WATERMARK
HIGH_WATERMARK = -1


class IsolationLevel:
    """org.apache.kafka.common.IsolationLevel's two values, as ListOffsets names them."""

    READ_UNCOMMITTED = 0
    READ_COMMITTED = 1


class _ReentrantReadWriteLock:
    """java.util.concurrent.locks.ReentrantReadWriteLock as Partition uses it: many readers or one writer, both
    reentrant; the writer may also read (maybeReplaceCurrentWithFutureReplica nests write locks)."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._readers: dict[int, int] = {}
        self._writer: int | None = None
        self._writer_holds = 0

    @contextlib.contextmanager
    def read_lock(self) -> Iterator[None]:
        me = threading.get_ident()
        with self._cond:
            while self._writer is not None and self._writer != me:
                self._cond.wait()
            self._readers[me] = self._readers.get(me, 0) + 1
        try:
            yield
        finally:
            with self._cond:
                holds = self._readers[me] - 1
                if holds:
                    self._readers[me] = holds
                else:
                    del self._readers[me]
                    self._cond.notify_all()

    @contextlib.contextmanager
    def write_lock(self) -> Iterator[None]:
        me = threading.get_ident()
        with self._cond:
            while (self._writer is not None and self._writer != me) or any(t != me for t in self._readers):
                self._cond.wait()
            self._writer = me
            self._writer_holds += 1
        try:
            yield
        finally:
            with self._cond:
                self._writer_holds -= 1
                if not self._writer_holds:
                    self._writer = None
                    self._cond.notify_all()


def _exception(error: Errors, message: str | None = None) -> Exception:
    """Errors.exception(message) for the errors a partition raises."""
    classes: dict[Errors, type[Exception]] = {
        Errors.NOT_LEADER_OR_FOLLOWER: NotLeaderOrFollowerException,
        Errors.FENCED_LEADER_EPOCH: FencedLeaderEpochException,
        Errors.UNKNOWN_LEADER_EPOCH: UnknownLeaderEpochException,
        Errors.OFFSET_NOT_AVAILABLE: OffsetNotAvailableException,
        Errors.OFFSET_OUT_OF_RANGE: OffsetOutOfRangeException,
        Errors.KAFKA_STORAGE_ERROR: KafkaStorageException,
    }
    klass = classes.get(error)
    if klass is None:
        return ApiException(message or error.name)
    return klass(message) if message is not None else klass()


# -- the message and result types Partition is called with ---------------------------------------------------------


@dataclass
class LeaderAndIsrPartitionState:
    """LeaderAndIsrRequestData.LeaderAndIsrPartitionState (3.9's fields): what ReplicaManager.applyDelta builds
    from a PartitionRegistration (`toLeaderAndIsrPartitionState`) for makeLeader / makeFollower."""

    topic_name: str = ""
    partition_index: int = 0
    controller_epoch: int = 0
    leader: int = 0
    leader_epoch: int = 0
    isr: list[int] = field(default_factory=list)
    partition_epoch: int = 0
    replicas: list[int] = field(default_factory=list)
    adding_replicas: list[int] = field(default_factory=list)
    removing_replicas: list[int] = field(default_factory=list)
    is_new: bool = False
    leader_recovery_state: int = int(LeaderRecoveryState.RECOVERED)


@dataclass(frozen=True)
class LogDeleteRecordsResult:
    """kafka.server.LogDeleteRecordsResult (ReplicaManager.scala)."""

    requested_offset: int
    low_watermark: int
    exception: BaseException | None = None


# -- listeners and the purgatories ----------------------------------------------------------------------------------


class PartitionListener:
    """Told of the partition's high watermark, and of its failure or deletion; the default methods do nothing."""

    def on_high_watermark_updated(self, partition: TopicPartition, offset: int) -> None:
        pass

    def on_failed(self, partition: TopicPartition) -> None:
        pass

    def on_deleted(self, partition: TopicPartition) -> None:
        pass


class AlterPartitionListener:
    """Counts the outcomes of ISR changes (ReplicaManager's IsrExpandsPerSec, IsrShrinksPerSec, FailedIsrUpdates)."""

    def mark_isr_expand(self) -> None:
        raise NotImplementedError

    def mark_isr_shrink(self) -> None:
        raise NotImplementedError

    def mark_failed(self) -> None:
        raise NotImplementedError


class DelayedOperations:
    """The purgatories whose operations a change of this partition may complete."""

    def __init__(self, topic_partition: TopicPartition, produce: Any, fetch: Any, delete_records: Any) -> None:
        self.topic_partition = topic_partition
        self.produce = produce
        self.fetch = fetch
        self.delete_records = delete_records

    def check_and_complete_all(self) -> None:
        request_key = TopicPartitionOperationKey.apply(self.topic_partition)
        self.fetch.check_and_complete(request_key)
        self.produce.check_and_complete(request_key)
        self.delete_records.check_and_complete(request_key)

    @property
    def num_delayed_delete(self) -> int:
        return self.delete_records.num_delayed


# -- assignment and partition states ------------------------------------------------------------------------------


@dataclass(frozen=True)
class AssignmentState:
    replicas: tuple[int, ...]

    @property
    def replication_factor(self) -> int:
        return len(self.replicas)

    def is_adding_replica(self, broker_id: int) -> bool:
        return False


@dataclass(frozen=True)
class OngoingReassignmentState(AssignmentState):
    """A reassignment in progress: `replicas` holds the old and the new replicas."""

    adding_replicas: tuple[int, ...] = ()
    removing_replicas: tuple[int, ...] = ()

    def __init__(self, adding_replicas: Sequence[int], removing_replicas: Sequence[int],
                 replicas: Sequence[int]) -> None:
        object.__setattr__(self, "replicas", tuple(replicas))
        object.__setattr__(self, "adding_replicas", tuple(adding_replicas))
        object.__setattr__(self, "removing_replicas", tuple(removing_replicas))

    @property
    def replication_factor(self) -> int:
        # the original replicas' count, while the new ones catch up
        return len([r for r in self.replicas if r not in self.adding_replicas])

    def is_adding_replica(self, replica_id: int) -> bool:
        return replica_id in self.adding_replicas


@dataclass(frozen=True)
class SimpleAssignmentState(AssignmentState):
    def __init__(self, replicas: Sequence[int]) -> None:
        object.__setattr__(self, "replicas", tuple(replicas))


class PartitionState:
    """The ISR as the leader uses it. `isr` is the last committed ISR; `maximal_isr` adds a replica whose addition
    is in flight, so the high watermark waits for it at once (KIP-497)."""

    isr: frozenset[int]
    maximal_isr: frozenset[int]
    leader_recovery_state: LeaderRecoveryState
    is_inflight: bool


@dataclass(frozen=True)
class CommittedPartitionState(PartitionState):
    isr: frozenset[int]
    leader_recovery_state: LeaderRecoveryState

    @property
    def maximal_isr(self) -> frozenset[int]:  # type: ignore[override]
        return self.isr

    @property
    def is_inflight(self) -> bool:  # type: ignore[override]
        return False

    def __str__(self) -> str:
        return f"CommittedPartitionState(isr={set(self.isr)}, leaderRecoveryState={self.leader_recovery_state.name})"


class PendingPartitionChange(PartitionState):
    """An ISR change sent to the controller and not answered yet. Compared by identity: an answer is for this very
    proposal."""

    last_committed_state: CommittedPartitionState
    sent_leader_and_isr: LeaderAndIsr
    leader_recovery_state = LeaderRecoveryState.RECOVERED

    @property
    def isr(self) -> frozenset[int]:  # type: ignore[override]
        return self.last_committed_state.isr

    @property
    def is_inflight(self) -> bool:  # type: ignore[override]
        return True

    def notify_listener(self, alter_partition_listener: AlterPartitionListener) -> None:
        raise NotImplementedError


class PendingExpandIsr(PendingPartitionChange):
    def __init__(self, new_in_sync_replica_id: int, sent_leader_and_isr: LeaderAndIsr,
                 last_committed_state: CommittedPartitionState) -> None:
        self.new_in_sync_replica_id = new_in_sync_replica_id
        self.sent_leader_and_isr = sent_leader_and_isr
        self.last_committed_state = last_committed_state

    @property
    def maximal_isr(self) -> frozenset[int]:  # type: ignore[override]
        return self.isr | {self.new_in_sync_replica_id}

    def notify_listener(self, alter_partition_listener: AlterPartitionListener) -> None:
        alter_partition_listener.mark_isr_expand()

    def __str__(self) -> str:
        return (f"PendingExpandIsr(newInSyncReplicaId={self.new_in_sync_replica_id}, "
                f"sentLeaderAndIsr={self.sent_leader_and_isr}, leaderRecoveryState={self.leader_recovery_state.name}, "
                f"lastCommittedState={self.last_committed_state})")


class PendingShrinkIsr(PendingPartitionChange):
    def __init__(self, out_of_sync_replica_ids: Iterable[int], sent_leader_and_isr: LeaderAndIsr,
                 last_committed_state: CommittedPartitionState) -> None:
        self.out_of_sync_replica_ids = frozenset(out_of_sync_replica_ids)
        self.sent_leader_and_isr = sent_leader_and_isr
        self.last_committed_state = last_committed_state

    @property
    def maximal_isr(self) -> frozenset[int]:  # type: ignore[override]
        # the replicas being removed still count until the controller agrees
        return self.isr

    def notify_listener(self, alter_partition_listener: AlterPartitionListener) -> None:
        alter_partition_listener.mark_isr_shrink()

    def __str__(self) -> str:
        return (f"PendingShrinkIsr(outOfSyncReplicaIds={set(self.out_of_sync_replica_ids)}, "
                f"sentLeaderAndIsr={self.sent_leader_and_isr}, leaderRecoveryState={self.leader_recovery_state.name}, "
                f"lastCommittedState={self.last_committed_state})")


# -- the partition --------------------------------------------------------------------------------------------------


class _ReplicaManagerIsrListener(AlterPartitionListener):
    """The companion's listener: it marks ReplicaManager's IsrExpandsPerSec, IsrShrinksPerSec and
    FailedIsrUpdatesPerSec meters, which are not ported (no metrics registry), so the marks record nothing."""

    def mark_isr_expand(self) -> None:
        pass

    def mark_isr_shrink(self) -> None:
        pass

    def mark_failed(self) -> None:
        pass


class _ListenersBridge(LogOffsetsListener):
    def __init__(self, partition: Partition) -> None:
        self._partition = partition

    def on_high_watermark_updated(self, offset: int) -> None:
        for listener in list(self._partition._listeners):
            listener.on_high_watermark_updated(self._partition.topic_partition, offset)


class Partition:
    """Data structure for one partition on this broker: a leader holds the followers' states and moves the high
    watermark; `leader_isr_update_lock` is taken for reading by appends and reads, for writing by role changes."""

    def __init__(self, topic_partition: TopicPartition, replica_lag_time_max_ms: int,
                 inter_broker_protocol_version: MetadataVersion, local_broker_id: int,
                 local_broker_epoch_supplier: Callable[[], int], time: Time,
                 alter_partition_listener: AlterPartitionListener, delayed_operations: DelayedOperations,
                 metadata_cache: Any, log_manager: Any, alter_isr_manager: Any,
                 topic_id: Uuid | None = None) -> None:
        self.topic_partition = topic_partition
        self.replica_lag_time_max_ms = replica_lag_time_max_ms
        self._inter_broker_protocol_version = inter_broker_protocol_version
        self._local_broker_id = local_broker_id
        self._local_broker_epoch_supplier = local_broker_epoch_supplier
        self._time = time
        self._alter_partition_listener = alter_partition_listener
        self._delayed_operations = delayed_operations
        self._metadata_cache = metadata_cache
        self._log_manager = log_manager
        self._alter_isr_manager = alter_isr_manager
        self._topic_id = topic_id

        self._remote_replicas_map: dict[int, Replica] = {}
        # appends and reads take it for reading; role and ISR changes for writing
        self.leader_isr_update_lock = _ReentrantReadWriteLock()
        # a follower append and the swap to the future log exclude each other
        self._future_log_lock = threading.RLock()
        self._partition_epoch = INITIAL_PARTITION_EPOCH
        self._leader_epoch = INITIAL_LEADER_EPOCH - 1
        # the leader's LEO when it became leader of the current epoch; a follower joins the ISR only past it
        self.leader_epoch_start_offset_opt: int | None = None
        self.leader_replica_id_opt: int | None = None
        self.partition_state: PartitionState = CommittedPartitionState(frozenset(), LeaderRecoveryState.RECOVERED)
        self.assignment_state: AssignmentState = SimpleAssignmentState(())

        self.log: UnifiedLog | None = None
        # a log being moved to another log dir of this broker
        self.future_log: UnifiedLog | None = None

        self._listeners: list[PartitionListener] = []
        self._log_offsets_listener = _ListenersBridge(self)
        # epoch of the controller that last changed the leader (none in KRaft: -1 from the image)
        self._controller_epoch = INITIAL_CONTROLLER_EPOCH
        self._log_ident = f"[Partition {topic_partition} broker={local_broker_id}] "
        # the partition's gauges (UnderReplicated, InSyncReplicasCount, UnderMinIsr, AtMinIsr, ReplicasCount,
        # LastStableOffsetLag) are not ported

    @staticmethod
    def apply(topic_partition: TopicPartition, time: Time, replica_manager: Any,
              topic_id: Uuid | None = None) -> Partition:
        """The companion's `apply`: a partition wired to the replica manager's purgatories and ISR meters."""
        delayed_operations = DelayedOperations(topic_partition, replica_manager.delayed_produce_purgatory,
                                               replica_manager.delayed_fetch_purgatory,
                                               replica_manager.delayed_delete_records_purgatory)
        return Partition(topic_partition,
                         replica_lag_time_max_ms=replica_manager.config.replica_lag_time_max_ms,
                         inter_broker_protocol_version=replica_manager.metadata_cache.metadata_version(),
                         local_broker_id=replica_manager.config.broker_id,
                         local_broker_epoch_supplier=replica_manager.broker_epoch_supplier,
                         time=time, alter_partition_listener=_ReplicaManagerIsrListener(),
                         delayed_operations=delayed_operations, metadata_cache=replica_manager.metadata_cache,
                         log_manager=replica_manager.log_manager,
                         alter_isr_manager=replica_manager.alter_partition_manager, topic_id=topic_id)

    @property
    def topic(self) -> str:
        return self.topic_partition.topic

    @property
    def partition_id(self) -> int:
        return self.topic_partition.partition

    def has_late_transaction(self, current_time_ms: int) -> bool:
        leader_log = self.leader_log_if_local()
        return leader_log is not None and leader_log.has_late_transaction(current_time_ms)

    def is_under_replicated(self) -> bool:
        return self.is_leader() and (self.assignment_state.replication_factor - len(self.partition_state.isr)) > 0

    def is_under_min_isr(self) -> bool:
        leader_log = self.leader_log_if_local()
        return (leader_log is not None and len(self.partition_state.isr) < self._effective_min_isr(leader_log)
                and self.is_leader())

    def _effective_min_isr(self, leader_log: UnifiedLog) -> int:
        # a partition with fewer replicas than min.insync.replicas can still take acks=all writes
        return min(leader_log.config().min_in_sync_replicas, len(self._remote_replicas_map) + 1)

    def is_at_min_isr(self) -> bool:
        leader_log = self.leader_log_if_local()
        return leader_log is not None and len(self.partition_state.isr) == self._effective_min_isr(leader_log)

    def is_reassigning(self) -> bool:
        return isinstance(self.assignment_state, OngoingReassignmentState)

    def is_adding_local_replica(self) -> bool:
        return self.assignment_state.is_adding_replica(self._local_broker_id)

    def is_adding_replica(self, replica_id: int) -> bool:
        return self.assignment_state.is_adding_replica(replica_id)

    def producer_id_count(self) -> int:
        return self.log.producer_id_count() if self.log is not None else 0

    def remove_expired_producers(self, current_time_ms: int) -> None:
        if self.log is not None:
            self.log.remove_expired_producers(current_time_ms)

    def in_sync_replica_ids(self) -> frozenset[int]:
        return self.partition_state.isr

    def maybe_add_listener(self, listener: PartitionListener) -> bool:
        """Adds the listener unless the partition has no log (deleted or failed): then False."""
        with self.leader_isr_update_lock.read_lock():
            if self.log is not None:
                self._listeners.append(listener)
                return True
            return False

    def remove_listener(self, listener: PartitionListener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def maybe_create_future_replica(self, log_dir: str, high_watermark_checkpoints: Any,
                                    topic_id: Uuid | None = None) -> bool:
        """Create the future log in `log_dir` for a move between log dirs; False if the log is there already or the
        future log exists."""
        topic_id = self.topic_id() if topic_id is None else topic_id
        with self.leader_isr_update_lock.write_lock():
            current_log_dir = self.local_log_or_exception().parent_dir()
            if current_log_dir == log_dir:
                log.info("%sCurrent log directory %s is same as requested log dir %s. Skipping future replica "
                         "creation.", self._log_ident, current_log_dir, log_dir)
                return False
            if self.future_log is not None:
                future_log_dir = self.future_log.parent_dir()
                if future_log_dir != log_dir:
                    raise IllegalStateException(f"The future log dir {future_log_dir} of {self.topic_partition} is "
                                                f"different from the requested log dir {log_dir}")
                return False
            self.create_log_if_not_exists(is_new=False, is_future_replica=True,
                                          offset_checkpoints=high_watermark_checkpoints, topic_id=topic_id)
            return True

    def create_log_if_not_exists(self, is_new: bool, is_future_replica: bool, offset_checkpoints: Any,
                                 topic_id: Uuid | None, target_log_directory_id: Uuid | None = None) -> None:
        def maybe_create(log_opt: UnifiedLog | None) -> UnifiedLog:
            if log_opt is not None:
                if log_opt.topic_id() is None and topic_id is not None:
                    log_opt.assign_topic_id(topic_id)
                return log_opt
            return self.create_log(is_new, is_future_replica, offset_checkpoints, topic_id, target_log_directory_id)

        if is_future_replica:
            self.future_log = maybe_create(self.future_log)
        else:
            self.log = maybe_create(self.log)

    def create_log(self, is_new: bool, is_future_replica: bool, offset_checkpoints: Any, topic_id: Uuid | None,
                   target_log_directory_id: Uuid | None) -> UnifiedLog:
        def update_high_watermark(the_log: UnifiedLog) -> None:
            checkpoint_high_watermark = offset_checkpoints.fetch(the_log.parent_dir(), self.topic_partition)
            if checkpoint_high_watermark is None:
                log.info("%sNo checkpointed highwatermark is found for partition %s", self._log_ident,
                         self.topic_partition)
                checkpoint_high_watermark = 0
            initial_high_watermark = the_log.update_high_watermark(checkpoint_high_watermark)
            log.info("%sLog loaded for partition %s with initial high watermark %s", self._log_ident,
                     self.topic_partition, initial_high_watermark)

        self._log_manager.initializing_log(self.topic_partition)
        maybe_log: UnifiedLog | None = None
        try:
            the_log = self._log_manager.get_or_create_log(self.topic_partition, is_new, is_future_replica, topic_id,
                                                          target_log_directory_id)
            if not is_future_replica:
                the_log.set_log_offsets_listener(self._log_offsets_listener)
            maybe_log = the_log
            update_high_watermark(the_log)
            return the_log
        finally:
            self._log_manager.finished_initializing_log(self.topic_partition, maybe_log)

    def get_replica(self, replica_id: int) -> Replica | None:
        return self._remote_replicas_map.get(replica_id)

    def _check_current_leader_epoch(self, remote_leader_epoch_opt: int | None) -> Errors:
        if remote_leader_epoch_opt is None:
            return Errors.NONE
        local_leader_epoch = self._leader_epoch
        if local_leader_epoch > remote_leader_epoch_opt:
            return Errors.FENCED_LEADER_EPOCH
        if local_leader_epoch < remote_leader_epoch_opt:
            return Errors.UNKNOWN_LEADER_EPOCH
        return Errors.NONE

    def _get_local_log(self, current_leader_epoch: int | None, require_leader: bool) -> UnifiedLog | Errors:
        """Scala's Either: the log, or the error why it may not be used."""
        error = self._check_current_leader_epoch(current_leader_epoch)
        if error != Errors.NONE:
            return error
        if require_leader and not self.is_leader():
            return Errors.NOT_LEADER_OR_FOLLOWER
        if self.log is not None:
            return self.log
        return Errors.NOT_LEADER_OR_FOLLOWER

    def local_log_or_exception(self) -> UnifiedLog:
        if self.log is None:
            raise NotLeaderOrFollowerException(f"Log for partition {self.topic_partition} is not available on "
                                               f"broker {self._local_broker_id}")
        return self.log

    def future_local_log_or_exception(self) -> UnifiedLog:
        if self.future_log is None:
            raise NotLeaderOrFollowerException(f"Future log for partition {self.topic_partition} is not available "
                                               f"on broker {self._local_broker_id}")
        return self.future_log

    def leader_log_if_local(self) -> UnifiedLog | None:
        return self.log if self.is_leader() else None

    def is_leader(self) -> bool:
        return self.leader_replica_id_opt == self._local_broker_id

    def leader_id_if_local(self) -> int | None:
        return self.leader_replica_id_opt if self.leader_replica_id_opt == self._local_broker_id else None

    def local_log_with_epoch_or_throw(self, current_leader_epoch: int | None, require_leader: bool) -> UnifiedLog:
        """The local log, after the epoch check (KIP-320); FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH or
        NOT_LEADER_OR_FOLLOWER raised otherwise."""
        result = self._get_local_log(current_leader_epoch, require_leader)
        if isinstance(result, Errors):
            raise _exception(result, f"Failed to find {'leader' if require_leader else ''} log for partition "
                                     f"{self.topic_partition} with leader epoch {current_leader_epoch}. The current "
                                     f"leader is {self.leader_replica_id_opt} and the current epoch "
                                     f"{self._leader_epoch}")
        return result

    def set_log(self, the_log: UnifiedLog, is_future_log: bool) -> None:
        if is_future_log:
            self.future_log = the_log
        else:
            the_log.set_log_offsets_listener(self._log_offsets_listener)
            self.log = the_log

    def topic_id(self) -> Uuid | None:
        if self._topic_id is None or self._topic_id == ZERO_UUID:
            the_log = self.log if self.log is not None else self._log_manager.get_log(self.topic_partition)
            self._topic_id = the_log.topic_id() if the_log is not None else None
        return self._topic_id

    def remote_replicas(self) -> list[Replica]:
        return list(self._remote_replicas_map.values())

    def future_replica_dir_changed(self, new_destination_dir: str) -> bool:
        with self.leader_isr_update_lock.read_lock():
            return self.future_log is not None and self.future_log.parent_dir() != new_destination_dir

    def remove_future_local_replica(self, delete_from_log_dir: bool = True) -> None:
        with self.leader_isr_update_lock.write_lock():
            self.future_log = None
            if delete_from_log_dir:
                self._log_manager.async_delete(self.topic_partition, is_future=True)

    def maybe_start_transaction_verification(self, producer_id: int, sequence: int, epoch: int) -> VerificationGuard:
        """A guard for a transactional append (KIP-890), from the leader's log."""
        leader_log = self.leader_log_if_local()
        if leader_log is None:
            raise NotLeaderOrFollowerException()
        return leader_log.maybe_start_transaction_verification(producer_id, sequence, epoch)

    def maybe_replace_current_with_future_replica(self) -> bool:
        """Swap in the future log once it has caught up with the current one."""
        def replace(future_partition_log: UnifiedLog) -> None:
            self._log_manager.replace_current_with_future_log(self.topic_partition)
            future_partition_log.set_log_offsets_listener(self._log_offsets_listener)
            self.log = self.future_log
            self.remove_future_local_replica(False)

        return self.run_callback_if_future_replica_caught_up(replace)

    def run_callback_if_future_replica_caught_up(self, callback: Callable[[UnifiedLog], None]) -> bool:
        # checked without the write lock first, so that appends are not blocked while it is not caught up
        with self._future_log_lock:
            local_replica_leo = self.local_log_or_exception().log_end_offset()
            if self.future_log is None or self.future_log.log_end_offset() != local_replica_leo:
                return False
            with self.leader_isr_update_lock.write_lock():
                future_partition_log = self.future_log
                if future_partition_log is None:
                    return False
                if self.log is not None and self.log.log_end_offset() == future_partition_log.log_end_offset():
                    callback(future_partition_log)
                    return True
                return False

    def future_replica_directory_id(self) -> Uuid | None:
        if self.future_log is None:
            return None
        return self._log_manager.directory_id(str(self.future_log.dir().parent))

    def log_directory_id(self) -> Uuid | None:
        if self.log is None:
            return None
        return self._log_manager.directory_id(str(self.log.dir().parent))

    def delete(self) -> None:
        """Forget the partition's state (the log itself is deleted by LogManager); listeners hear of it."""
        with self.leader_isr_update_lock.write_lock():
            self._clear()
            for listener in list(self._listeners):
                listener.on_deleted(self.topic_partition)
            self._listeners.clear()

    def mark_offline(self) -> None:
        """The log dir failed: forget the state; listeners hear of it."""
        with self.leader_isr_update_lock.write_lock():
            self._clear()
            for listener in list(self._listeners):
                listener.on_failed(self.topic_partition)
            self._listeners.clear()

    def _clear(self) -> None:
        self._remote_replicas_map.clear()
        self.assignment_state = SimpleAssignmentState(())
        self.log = None
        self.future_log = None
        self.partition_state = CommittedPartitionState(frozenset(), LeaderRecoveryState.RECOVERED)
        self.leader_replica_id_opt = None
        self.leader_epoch_start_offset_opt = None

    def get_leader_epoch(self) -> int:
        return self._leader_epoch

    def get_partition_epoch(self) -> int:
        return self._partition_epoch

    def make_leader(self, partition_state: LeaderAndIsrPartitionState, high_watermark_checkpoints: Any,
                    topic_id: Uuid | None, target_directory_id: Uuid | None = None) -> bool:
        """Become (or stay) leader. A new leader epoch starts at the log end offset and resets the followers'
        states. Returns whether this broker was not the leader before; False, and nothing changed, for a state
        older than the partition epoch already applied."""
        with self.leader_isr_update_lock.write_lock():
            if partition_state.partition_epoch < self._partition_epoch:
                state_change_logger.info(
                    "Skipped the become-leader state change for %s with topic id %s and partition state %s since "
                    "the leader is already at a newer partition epoch %s.", self.topic_partition, topic_id,
                    partition_state, self._partition_epoch)
                return False

            self._controller_epoch = partition_state.controller_epoch

            current_time_ms = self._time.milliseconds()
            is_new_leader = not self.is_leader()
            is_new_leader_epoch = partition_state.leader_epoch > self._leader_epoch
            replicas = list(partition_state.replicas)
            isr = frozenset(partition_state.isr)
            adding_replicas = list(partition_state.adding_replicas)
            removing_replicas = list(partition_state.removing_replicas)

            if partition_state.leader_recovery_state == LeaderRecoveryState.RECOVERING:
                state_change_logger.info("The topic partition %s was marked as RECOVERING. Marking the topic "
                                         "partition as RECOVERED.", self.topic_partition)

            # the leader always holds a recovered log
            self.update_assignment_and_isr(replicas=replicas, is_leader=True, isr=isr,
                                           adding_replicas=adding_replicas, removing_replicas=removing_replicas,
                                           leader_recovery_state=LeaderRecoveryState.RECOVERED)

            # (3.9 also skips the change on a ZooKeeperClientException here: ZooKeeper mode, not ported)
            self._create_log_in_assigned_directory_id(partition_state, high_watermark_checkpoints, topic_id,
                                                      target_directory_id)

            leader_log = self.local_log_or_exception()

            if is_new_leader_epoch:
                leader_epoch_start_offset = leader_log.log_end_offset()
                state_change_logger.info(
                    "Leader %s with topic id %s starts at leader epoch %s from offset %s with partition epoch %s, "
                    "high watermark %s, ISR %s, adding replicas %s and removing replicas %s %s. Previous leader %s "
                    "and previous leader epoch was %s.", self.topic_partition, topic_id, partition_state.leader_epoch,
                    leader_epoch_start_offset, partition_state.partition_epoch, leader_log.high_watermark(),
                    sorted(isr), adding_replicas, removing_replicas,
                    "(under-min-isr)" if self.is_under_min_isr() else "", self.leader_replica_id_opt,
                    self._leader_epoch)

                # the epoch cache knows where this epoch starts before any append of it
                leader_log.maybe_assign_epoch_start_offset(partition_state.leader_epoch, leader_epoch_start_offset)

                # followers must fetch again before they count toward the HW or may rejoin the ISR
                for replica in self.remote_replicas():
                    replica.reset_replica_state(current_time_ms=current_time_ms,
                                                leader_end_offset=leader_epoch_start_offset,
                                                is_new_leader=is_new_leader,
                                                is_follower_in_sync=replica.broker_id in partition_state.isr)

                self._leader_epoch = partition_state.leader_epoch
                self.leader_epoch_start_offset_opt = leader_epoch_start_offset
            else:
                state_change_logger.info(
                    "Skipped the become-leader state change for %s with topic id %s and partition state %s since it "
                    "is already the leader with leader epoch %s. Current high watermark %s, ISR %s, adding replicas "
                    "%s and removing replicas %s.", self.topic_partition, topic_id, partition_state,
                    self._leader_epoch, leader_log.high_watermark(), sorted(isr), adding_replicas, removing_replicas)

            self._partition_epoch = partition_state.partition_epoch
            self.leader_replica_id_opt = self._local_broker_id

            # the HW may move at once, e.g. when the ISR shrank to the leader alone
            leader_hw_incremented = self._maybe_increment_leader_hw(leader_log, current_time_ms=current_time_ms)

        if leader_hw_incremented:
            self._try_complete_delayed_requests()

        return is_new_leader

    def make_follower(self, partition_state: LeaderAndIsrPartitionState, high_watermark_checkpoints: Any,
                      topic_id: Uuid | None, target_log_directory_id: Uuid | None = None) -> bool:
        """Become a follower of `partition_state.leader`. Returns whether the leader epoch is new (the fetcher
        must then start over); False for a state older than the partition epoch already applied."""
        with self.leader_isr_update_lock.write_lock():
            if partition_state.partition_epoch < self._partition_epoch:
                state_change_logger.info(
                    "Skipped the become-follower state change for %s with topic id %s and partition state %s since "
                    "the follower is already at a newer partition epoch %s.", self.topic_partition, topic_id,
                    partition_state, self._partition_epoch)
                return False

            self._controller_epoch = partition_state.controller_epoch

            is_new_leader_epoch = partition_state.leader_epoch > self._leader_epoch
            # -1 (no leader) is kept as it is, as Scala's Option(partitionState.leader) does
            self.leader_replica_id_opt = partition_state.leader
            self._leader_epoch = partition_state.leader_epoch
            self.leader_epoch_start_offset_opt = None
            self._partition_epoch = partition_state.partition_epoch

            self.update_assignment_and_isr(replicas=list(partition_state.replicas), is_leader=False, isr=frozenset(),
                                           adding_replicas=list(partition_state.adding_replicas),
                                           removing_replicas=list(partition_state.removing_replicas),
                                           leader_recovery_state=LeaderRecoveryState(
                                               partition_state.leader_recovery_state))

            self._create_log_in_assigned_directory_id(partition_state, high_watermark_checkpoints, topic_id,
                                                      target_log_directory_id)

            follower_log = self.local_log_or_exception()
            if is_new_leader_epoch:
                state_change_logger.info(
                    "Follower %s starts at leader epoch %s from offset %s with partition epoch %s and high watermark "
                    "%s. Current leader is %s.", self.topic_partition, partition_state.leader_epoch,
                    follower_log.log_end_offset(), partition_state.partition_epoch, follower_log.high_watermark(),
                    partition_state.leader)
            else:
                state_change_logger.info(
                    "Skipped the become-follower state change for %s with topic id %s and partition state %s since "
                    "it is already a follower with leader epoch %s.", self.topic_partition, topic_id,
                    partition_state, self._leader_epoch)

            return is_new_leader_epoch

    def _create_log_in_assigned_directory_id(self, partition_state: LeaderAndIsrPartitionState,
                                             high_watermark_checkpoints: Any, topic_id: Uuid | None,
                                             target_log_directory_id: Uuid | None) -> None:
        if target_log_directory_id is not None:
            # with an offline dir the log may exist there: creating another would fork the partition
            if (self._log_manager.online_log_dir_id(target_log_directory_id)
                    or not self._log_manager.has_offline_log_dirs()
                    or target_log_directory_id == DirectoryId.UNASSIGNED):
                self.create_log_if_not_exists(partition_state.is_new, False, high_watermark_checkpoints, topic_id,
                                              target_log_directory_id)
            else:
                log.warning("%sSkipping creation of log because there are potentially offline log directories and "
                            "log may already exist there. directoryId=%s, topicId=%s, targetLogDirectoryId=%s",
                            self._log_ident, target_log_directory_id, topic_id, target_log_directory_id)
        else:
            self.create_log_if_not_exists(partition_state.is_new, False, high_watermark_checkpoints, topic_id)

    def update_follower_fetch_state(self, replica: Replica, follower_fetch_offset_metadata: LogOffsetMetadata,
                                    follower_start_offset: int, follower_fetch_time_ms: int, leader_end_offset: int,
                                    broker_epoch: int) -> None:
        """A follower fetched: record its position, then maybe add it to the ISR and move the HW; delayed
        produce, fetch and delete-records operations are tried when the HW or low watermark moved."""
        # the low watermark only matters to delayed DeleteRecords
        old_leader_lw = self.low_watermark_if_leader() if self._delayed_operations.num_delayed_delete > 0 else -1
        prev_follower_end_offset = replica.state_snapshot.log_end_offset

        with self.leader_isr_update_lock.read_lock():
            replica.update_fetch_state_or_throw(follower_fetch_offset_metadata, follower_start_offset,
                                                follower_fetch_time_ms, leader_end_offset, broker_epoch)

        new_leader_lw = self.low_watermark_if_leader() if self._delayed_operations.num_delayed_delete > 0 else -1
        leader_lw_incremented = new_leader_lw > old_leader_lw

        self._maybe_expand_isr(replica)

        leader_hw_incremented = False
        if prev_follower_end_offset != replica.state_snapshot.log_end_offset:
            with self.leader_isr_update_lock.read_lock():
                leader_log = self.leader_log_if_local()
                leader_hw_incremented = leader_log is not None and self._maybe_increment_leader_hw(
                    leader_log, follower_fetch_time_ms)

        if leader_lw_incremented or leader_hw_incremented:
            self._try_complete_delayed_requests()

        log.debug("%sRecorded replica %s log end offset (LEO) position %s and log start offset %s.", self._log_ident,
                  replica.broker_id, follower_fetch_offset_metadata.message_offset, follower_start_offset)

    def update_assignment_and_isr(self, replicas: Sequence[int], is_leader: bool, isr: Iterable[int],
                                  adding_replicas: Sequence[int], removing_replicas: Sequence[int],
                                  leader_recovery_state: LeaderRecoveryState) -> None:
        """The replica set, the reassignment and the committed ISR. A leader keeps a state per follower (new ones
        added, gone ones dropped); a follower keeps none."""
        if is_leader:
            followers = [r for r in replicas if r != self._local_broker_id]
            removed_replicas = [r for r in self._remote_replicas_map if r not in followers]
            for follower_id in followers:
                self._remote_replicas_map.setdefault(
                    follower_id, Replica(follower_id, self.topic_partition, self._metadata_cache))
            for removed in removed_replicas:
                self._remote_replicas_map.pop(removed, None)
        else:
            self._remote_replicas_map.clear()

        if adding_replicas or removing_replicas:
            self.assignment_state = OngoingReassignmentState(adding_replicas, removing_replicas, replicas)
        else:
            self.assignment_state = SimpleAssignmentState(replicas)
        self.partition_state = CommittedPartitionState(frozenset(isr), leader_recovery_state)

    def _maybe_expand_isr(self, follower_replica: Replica) -> None:
        """Propose adding a follower that has caught up; checked under the read lock first, then again under the
        write lock before the state changes."""
        needs_isr_update = False
        if not self.partition_state.is_inflight and self._can_add_replica_to_isr(follower_replica.broker_id):
            with self.leader_isr_update_lock.read_lock():
                needs_isr_update = self._needs_expand_isr(follower_replica)
        if needs_isr_update:
            alter_isr_update_opt: PendingPartitionChange | None = None
            with self.leader_isr_update_lock.write_lock():
                current_state = self.partition_state
                if isinstance(current_state, CommittedPartitionState) and self._needs_expand_isr(follower_replica):
                    alter_isr_update_opt = self._prepare_isr_expand(current_state, follower_replica.broker_id)
            if alter_isr_update_opt is not None:
                self._submit_alter_partition(alter_isr_update_opt)

    def _needs_expand_isr(self, follower_replica: Replica) -> bool:
        return self._can_add_replica_to_isr(follower_replica.broker_id) and self._is_follower_in_sync(
            follower_replica)

    def _can_add_replica_to_isr(self, follower_replica_id: int) -> bool:
        current = self.partition_state
        return (not current.is_inflight and follower_replica_id not in current.isr
                and self._is_replica_isr_eligible(follower_replica_id))

    def _is_follower_in_sync(self, follower_replica: Replica) -> bool:
        # at or past the HW, and past the start of the leader's epoch: else it may miss records of this epoch
        leader_log = self.leader_log_if_local()
        if leader_log is None:
            return False
        follower_end_offset = follower_replica.state_snapshot.log_end_offset
        return (follower_end_offset >= leader_log.high_watermark()
                and self.leader_epoch_start_offset_opt is not None
                and follower_end_offset >= self.leader_epoch_start_offset_opt)

    def _is_replica_isr_eligible(self, follower_replica_id: int) -> bool:
        """On KRaft: not fenced, not in controlled shutdown, and fetching with the broker epoch the metadata has."""
        from kafka_edu.v3_9.core.server.metadata.kraft_metadata_cache import KRaftMetadataCache

        if isinstance(self._metadata_cache, KRaftMetadataCache):
            may_be_replica = self.get_replica(follower_replica_id)
            if may_be_replica is None:
                log.warning("%sThe replica state of replica ID:[%s] doesn't exist in the leader node. It might "
                            "because the topic is already deleted.", self._log_ident, follower_replica_id)
                return False
            stored_broker_epoch = may_be_replica.state_snapshot.broker_epoch
            cached_broker_epoch = self._metadata_cache.get_alive_broker_epoch(follower_replica_id)
            return (not self._metadata_cache.is_broker_fenced(follower_replica_id)
                    and not self._metadata_cache.is_broker_shutting_down(follower_replica_id)
                    and self._is_broker_epoch_isr_eligible(stored_broker_epoch, cached_broker_epoch))
        # (3.9's ZkMetadataCache case, hasAliveBroker, is ZooKeeper mode: not ported)
        return True

    @staticmethod
    def _is_broker_epoch_isr_eligible(stored_broker_epoch: int | None, cached_broker_epoch: int | None) -> bool:
        # -1: a follower that sent no broker epoch (an older Fetch version)
        return (stored_broker_epoch is not None and cached_broker_epoch is not None
                and (stored_broker_epoch == -1 or stored_broker_epoch == cached_broker_epoch))

    def check_enough_replicas_reach_offset(self, required_offset: int) -> tuple[bool, Errors]:
        """For a delayed acks=all produce: done once the HW reached `required_offset`; NOT_ENOUGH_REPLICAS_AFTER_APPEND
        when the maximal ISR is then below min ISR."""
        leader_log = self.leader_log_if_local()
        if leader_log is None:
            return False, Errors.NOT_LEADER_OR_FOLLOWER
        cur_maximal_isr = self.partition_state.maximal_isr
        min_isr = self._effective_min_isr(leader_log)
        if leader_log.high_watermark() >= required_offset:
            # the HW only moves with enough replicas, but the ISR may have shrunk since
            if min_isr <= len(cur_maximal_isr):
                return True, Errors.NONE
            return True, Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND
        return False, Errors.NONE

    def _maybe_increment_leader_hw(self, leader_log: UnifiedLog, current_time_ms: int | None = None) -> bool:
        """HW = the smallest LEO among the maximal ISR and the followers that are caught up and eligible to join it;
        never moved while under min ISR. Called with the leader-ISR lock held (read or write)."""
        if current_time_ms is None:
            current_time_ms = self._time.milliseconds()
        if self.is_under_min_isr():
            log.debug("%sNot increasing HWM because partition is under min ISR(ISR=%s", self._log_ident,
                      set(self.partition_state.isr))
            return False
        leader_log_end_offset = leader_log.log_end_offset_metadata()
        new_high_watermark = leader_log_end_offset
        for replica in list(self._remote_replicas_map.values()):
            replica_state = replica.state_snapshot
            # a caught-up, eligible follower outside the ISR holds the HW back too: it is about to join
            if (replica_state.log_end_offset_metadata.message_offset < new_high_watermark.message_offset
                    and (replica.broker_id in self.partition_state.maximal_isr
                         or (replica_state.is_caught_up(leader_log_end_offset.message_offset, current_time_ms,
                                                        self.replica_lag_time_max_ms)
                             and self._is_replica_isr_eligible(replica.broker_id)))):
                new_high_watermark = replica_state.log_end_offset_metadata

        old_high_watermark = leader_log.maybe_increment_high_watermark(new_high_watermark)
        if old_high_watermark is not None:
            log.debug("%sHigh watermark updated from %s to %s", self._log_ident, old_high_watermark,
                      new_high_watermark)
            return True
        log.debug("%sSkipping update high watermark since new hw %s is not larger than old value.", self._log_ident,
                  new_high_watermark)
        return False

    def low_watermark_if_leader(self) -> int:
        """The smallest log start offset among the live replicas (and the future log): what DeleteRecords waits
        for."""
        if not self.is_leader():
            raise NotLeaderOrFollowerException(f"Leader not local for partition {self.topic_partition} on broker "
                                               f"{self._local_broker_id}")
        # only live brokers count: a dead one would hold the low watermark back forever
        low_water_mark = self.local_log_or_exception().log_start_offset
        for replica in self.remote_replicas():
            log_start_offset = replica.state_snapshot.log_start_offset
            if self._metadata_cache.has_alive_broker(replica.broker_id) and log_start_offset < low_water_mark:
                low_water_mark = log_start_offset
        if self.future_log is not None:
            return min(low_water_mark, self.future_log.log_start_offset)
        return low_water_mark

    def _try_complete_delayed_requests(self) -> None:
        self._delayed_operations.check_and_complete_all()

    def maybe_shrink_isr(self) -> None:
        """The isr-expiration task: propose removing followers that have not caught up within the lag time."""
        def needs_isr_update() -> bool:
            if self.partition_state.is_inflight:
                return False
            with self.leader_isr_update_lock.read_lock():
                return self._needs_shrink_isr()

        if needs_isr_update():
            alter_isr_update_opt: PendingPartitionChange | None = None
            with self.leader_isr_update_lock.write_lock():
                leader_log = self.leader_log_if_local()
                if leader_log is not None:
                    out_of_sync_replica_ids = self.get_out_of_sync_replicas(self.replica_lag_time_max_ms)
                    current_state = self.partition_state
                    if isinstance(current_state, CommittedPartitionState) and out_of_sync_replica_ids:
                        out_of_sync_replica_log = []
                        for replica_id in out_of_sync_replica_ids:
                            replica = self.get_replica(replica_id)
                            end_offset = replica.state_snapshot.log_end_offset if replica else "unknown"
                            caught_up = replica.state_snapshot.last_caught_up_time_ms if replica else "unknown"
                            out_of_sync_replica_log.append(f"(brokerId: {replica_id}, endOffset: {end_offset}, "
                                                           f"lastCaughtUpTimeMs: {caught_up})")
                        log.info("%sShrinking ISR from %s to %s. Leader: (highWatermark: %s, endOffset: %s). Out of "
                                 "sync replicas: %s.", self._log_ident, sorted(current_state.isr),
                                 sorted(current_state.isr - out_of_sync_replica_ids), leader_log.high_watermark(),
                                 leader_log.log_end_offset(), " ".join(out_of_sync_replica_log))
                        alter_isr_update_opt = self._prepare_isr_shrink(current_state, out_of_sync_replica_ids)
            if alter_isr_update_opt is not None:
                self._submit_alter_partition(alter_isr_update_opt)

    def _needs_shrink_isr(self) -> bool:
        return self.leader_log_if_local() is not None and bool(
            self.get_out_of_sync_replicas(self.replica_lag_time_max_ms))

    def _is_follower_out_of_sync(self, replica_id: int, leader_end_offset: int, current_time_ms: int,
                                 max_lag_ms: int) -> bool:
        follower_replica = self.get_replica(replica_id)
        if follower_replica is None:
            return True
        return not follower_replica.state_snapshot.is_caught_up(leader_end_offset, current_time_ms, max_lag_ms)

    def get_out_of_sync_replicas(self, max_lag_ms: int) -> frozenset[int]:
        """ISR members (not the leader) that neither reached the leader's LEO nor caught up within `max_lag_ms`.
        A follower stuck or fetching too slowly both end here; empty while a change is in flight."""
        current = self.partition_state
        if current.is_inflight:
            return frozenset()
        candidate_replica_ids = current.isr - {self._local_broker_id}
        current_time_ms = self._time.milliseconds()
        leader_end_offset = self.local_log_or_exception().log_end_offset()
        return frozenset(r for r in candidate_replica_ids
                         if self._is_follower_out_of_sync(r, leader_end_offset, current_time_ms, max_lag_ms))

    def _do_append_records_to_follower_or_future_replica(self, records: MemoryRecords,
                                                         is_future: bool) -> LogAppendInfo | None:
        if is_future:
            # the read lock keeps the future log from being swapped in meanwhile
            with self.leader_isr_update_lock.read_lock():
                return self.future_log.append_as_follower(records) if self.future_log is not None else None
        # the future-log lock keeps the current log from being replaced meanwhile
        with self._future_log_lock:
            return self.local_log_or_exception().append_as_follower(records)

    def append_records_to_follower_or_future_replica(self, records: MemoryRecords,
                                                     is_future: bool) -> LogAppendInfo | None:
        try:
            return self._do_append_records_to_follower_or_future_replica(records, is_future)
        except UnexpectedAppendOffsetException as e:
            the_log = self.future_local_log_or_exception() if is_future else self.local_log_or_exception()
            log_end_offset = the_log.log_end_offset()
            # an empty log starting past the leader's first batch: start it at that batch (the leader's log start
            # offset lies inside the batch)
            if (log_end_offset == the_log.log_start_offset and e.first_offset < log_end_offset
                    and e.last_offset >= log_end_offset):
                replica_name = "future replica" if is_future else "follower"
                log.info("%sUnexpected offset in append to %s. First offset %s is less than log start offset %s. "
                         "Since this is the first record to be appended to the %s's log, will start the log from "
                         "offset %s.", self._log_ident, self.topic_partition, e.first_offset,
                         the_log.log_start_offset, replica_name, e.first_offset)
                self.truncate_fully_and_start_at(e.first_offset, is_future)
                return self._do_append_records_to_follower_or_future_replica(records, is_future)
            raise

    @step("RQ.produce.4")
    def append_records_to_leader(self, records: MemoryRecords, origin: AppendOrigin, required_acks: int,
                                 request_local: Any = None,
                                 verification_guard: VerificationGuard = VerificationGuard.SENTINEL) -> LogAppendInfo:
        """Append on the leader under the read lock: NOT_LEADER_OR_FOLLOWER if not leader, NOT_ENOUGH_REPLICAS for
        acks=-1 below min ISR; then try to move the HW. The result says whether it moved (INCREASED or SAME) so
        that the caller completes delayed requests outside the lock."""
        with self.leader_isr_update_lock.read_lock():
            leader_log = self.leader_log_if_local()
            if leader_log is None:
                raise NotLeaderOrFollowerException(f"Leader not local for partition {self.topic_partition} on "
                                                   f"broker {self._local_broker_id}")
            min_isr = self._effective_min_isr(leader_log)
            in_sync_size = len(self.partition_state.isr)

            # acks=all needs min ISR before the append; others do not wait
            if in_sync_size < min_isr and required_acks == -1:
                raise NotEnoughReplicasException(
                    f"The size of the current ISR {set(self.partition_state.isr)} is insufficient to satisfy the "
                    f"min.isr requirement of {min_isr} for partition {self.topic_partition}")

            info = leader_log.append_as_leader(records, self._leader_epoch, origin,
                                               self._inter_broker_protocol_version, request_local, verification_guard)

            # a single-replica ISR moves the HW at once
            leader_hw_incremented = self._maybe_increment_leader_hw(leader_log)

        return info.copy(LeaderHwChange.INCREASED if leader_hw_incremented else LeaderHwChange.SAME)

    @step("RQ.fetch.4")
    def fetch_records(self, fetch_params: FetchParams, fetch_partition_data: PartitionData, fetch_time_ms: int,
                      max_bytes: int, min_one_message: bool, update_fetch_state: bool) -> LogReadInfo:
        """Read for a fetch. A follower's read also records its position (unless it must truncate first: a
        diverging epoch), which may grow the ISR and move the HW."""
        def read_from_local_log(local_log: UnifiedLog) -> LogReadInfo:
            return self._read_records(local_log, fetch_partition_data.last_fetched_epoch,
                                      fetch_partition_data.fetch_offset, fetch_partition_data.current_leader_epoch,
                                      max_bytes, fetch_params.isolation, min_one_message)

        if fetch_params.is_from_follower():
            # the read and the follower check under the lock, the state update after it
            with self.leader_isr_update_lock.read_lock():
                local_log = self.local_log_with_epoch_or_throw(fetch_partition_data.current_leader_epoch,
                                                               fetch_params.fetch_only_leader())
                replica = self._follower_replica_or_throw(fetch_params.replica_id, fetch_partition_data)
                log_read_info = read_from_local_log(local_log)

            if update_fetch_state and log_read_info.diverging_epoch is None:
                self.update_follower_fetch_state(replica,
                                                 follower_fetch_offset_metadata=(
                                                     log_read_info.fetched_data.fetch_offset_metadata),
                                                 follower_start_offset=fetch_partition_data.log_start_offset,
                                                 follower_fetch_time_ms=fetch_time_ms,
                                                 leader_end_offset=log_read_info.log_end_offset,
                                                 broker_epoch=fetch_params.replica_epoch)
            return log_read_info

        with self.leader_isr_update_lock.read_lock():
            local_log = self.local_log_with_epoch_or_throw(fetch_partition_data.current_leader_epoch,
                                                           fetch_params.fetch_only_leader())
            return read_from_local_log(local_log)

    def _follower_replica_or_throw(self, replica_id: int, fetch_partition_data: PartitionData) -> Replica:
        replica = self.get_replica(replica_id)
        if replica is not None:
            return replica
        log.debug("%sLeader %s failed to record follower %s's position %s, and last sent high watermark since the "
                  "replica is not recognized to be one of the assigned replicas %s for leader epoch %s with "
                  "partition epoch %s", self._log_ident, self._local_broker_id, replica_id,
                  fetch_partition_data.fetch_offset, list(self.assignment_state.replicas), self._leader_epoch,
                  self._partition_epoch)
        # with an epoch the follower may know of a newer assignment than the leader
        error = (Errors.UNKNOWN_LEADER_EPOCH if fetch_partition_data.current_leader_epoch is not None
                 else Errors.NOT_LEADER_OR_FOLLOWER)
        raise _exception(error, f"Replica {replica_id} is not recognized as a valid replica of "
                                f"{self.topic_partition} in leader epoch {self._leader_epoch} with partition epoch "
                                f"{self._partition_epoch}")

    def _read_records(self, local_log: UnifiedLog, last_fetched_epoch: int | None, fetch_offset: int,
                      current_leader_epoch: int | None, max_bytes: int, fetch_isolation: FetchIsolation,
                      min_one_message: bool) -> LogReadInfo:
        # the offsets are taken before the read: an append meanwhile must not keep a follower out of the ISR
        initial_high_watermark = local_log.high_watermark()
        initial_log_start_offset = local_log.log_start_offset
        initial_log_end_offset = local_log.log_end_offset()
        initial_last_stable_offset = local_log.last_stable_offset()

        if last_fetched_epoch is not None:
            epoch_end_offset = self.last_offset_for_leader_epoch(current_leader_epoch, last_fetched_epoch,
                                                                 fetch_only_from_leader=False)
            error = Errors.for_code(epoch_end_offset.error_code)
            if error != Errors.NONE:
                raise _exception(error)

            if epoch_end_offset.end_offset == UNDEFINED_EPOCH_OFFSET or \
                    epoch_end_offset.leader_epoch == UNDEFINED_EPOCH:
                raise OffsetOutOfRangeException("Could not determine the end offset of the last fetched epoch "
                                                f"{last_fetched_epoch} from the request")

            # checked before divergence: a follower below the log start must reset, not truncate
            if fetch_offset < initial_log_start_offset:
                raise OffsetOutOfRangeException(f"Received request for offset {fetch_offset} for partition "
                                                f"{self.topic_partition}, but we only have log segments in the range "
                                                f"{initial_log_start_offset} to {initial_log_end_offset}.")

            if epoch_end_offset.leader_epoch < last_fetched_epoch or epoch_end_offset.end_offset < fetch_offset:
                diverging_epoch = FetchEpochEndOffset(epoch=i32(epoch_end_offset.leader_epoch),
                                                      end_offset=i64(epoch_end_offset.end_offset))
                return LogReadInfo(FetchDataInfo.empty(fetch_offset), diverging_epoch, initial_high_watermark,
                                   initial_log_start_offset, initial_log_end_offset, initial_last_stable_offset)

        fetched_data = local_log.read(fetch_offset, max_bytes, fetch_isolation, min_one_message)
        return LogReadInfo(fetched_data, None, initial_high_watermark, initial_log_start_offset,
                           initial_log_end_offset, initial_last_stable_offset)

    def fetch_offset_for_timestamp(self, timestamp: int, isolation_level: int | None,
                                   current_leader_epoch: int | None, fetch_only_from_leader: bool,
                                   remote_log_manager: Any = None) -> TimestampAndOffset | None:
        """ListOffsets on this partition. With an isolation level (v2+), a leader whose HW has not reached the
        start of its epoch answers OFFSET_NOT_AVAILABLE: the HW of the previous leader may be ahead of it."""
        with self.leader_isr_update_lock.read_lock():
            local_log = self.local_log_with_epoch_or_throw(current_leader_epoch, fetch_only_from_leader)

            if isolation_level == IsolationLevel.READ_COMMITTED:
                last_fetchable_offset = local_log.last_stable_offset()
            elif isolation_level == IsolationLevel.READ_UNCOMMITTED:
                last_fetchable_offset = local_log.high_watermark()
            else:
                last_fetchable_offset = local_log.log_end_offset()

            epoch_log_string = (f"epoch {current_leader_epoch}" if current_leader_epoch is not None
                                else "unknown epoch")

            maybe_offsets_error: Exception | None = None
            epoch_start = self.leader_epoch_start_offset_opt
            if epoch_start is not None and isolation_level is not None and epoch_start > local_log.high_watermark():
                maybe_offsets_error = OffsetNotAvailableException(
                    f"Failed to fetch offsets for partition {self.topic_partition} with leader {epoch_log_string} as "
                    f"this partition's high watermark ({local_log.high_watermark()}) is lagging behind the start "
                    f"offset from the beginning of this epoch ({epoch_start}).")

            def get_offset_by_timestamp() -> TimestampAndOffset | None:
                the_log = self._log_manager.get_log(self.topic_partition)
                return the_log.fetch_offset_by_timestamp(timestamp, remote_log_manager) if the_log else None

            if timestamp == LATEST_TIMESTAMP:
                if maybe_offsets_error is not None:
                    raise maybe_offsets_error
                return TimestampAndOffset(NO_TIMESTAMP, last_fetchable_offset, self._leader_epoch)
            if timestamp in (EARLIEST_TIMESTAMP, EARLIEST_LOCAL_TIMESTAMP):
                return get_offset_by_timestamp()
            found = get_offset_by_timestamp()
            if found is not None and found.offset < last_fetchable_offset:
                return found
            if maybe_offsets_error is not None:
                raise maybe_offsets_error
            return None

    def active_producer_state(self) -> Any:
        """DescribeProducers' partition answer."""
        from kio.schema.describe_producers.v0.response import PartitionResponse

        if self.log is None:
            return PartitionResponse(partition_index=i32(self.topic_partition.partition),
                                     error_code=Errors.NOT_LEADER_OR_FOLLOWER, error_message=None,
                                     active_producers=())
        return PartitionResponse(partition_index=i32(self.topic_partition.partition), error_code=Errors.NONE,
                                 error_message=None, active_producers=tuple(self.log.active_producers()))

    def fetch_offset_snapshot(self, current_leader_epoch: int | None,
                              fetch_only_from_leader: bool) -> LogOffsetSnapshot:
        with self.leader_isr_update_lock.read_lock():
            local_log = self.local_log_with_epoch_or_throw(current_leader_epoch, fetch_only_from_leader)
            return local_log.fetch_offset_snapshot()

    def legacy_fetch_offsets_for_timestamp(self, timestamp: int, max_num_offsets: int, is_from_consumer: bool,
                                           fetch_only_from_leader: bool) -> list[int]:
        """ListOffsets v0; a consumer sees nothing past the HW."""
        with self.leader_isr_update_lock.read_lock():
            local_log = self.local_log_with_epoch_or_throw(None, fetch_only_from_leader)
            all_offsets = local_log.legacy_fetch_offsets_before(timestamp, max_num_offsets)
            if not is_from_consumer:
                return all_offsets
            hw = local_log.high_watermark()
            if any(o > hw for o in all_offsets):
                rest = list(all_offsets)
                while rest and rest[0] > hw:
                    rest.pop(0)
                return [hw] + rest
            return all_offsets

    def log_start_offset(self) -> int:
        with self.leader_isr_update_lock.read_lock():
            leader_log = self.leader_log_if_local()
            return leader_log.log_start_offset if leader_log is not None else -1

    def delete_records_on_leader(self, offset: int) -> LogDeleteRecordsResult:
        """DeleteRecords: move the log start offset (-1: to the HW) on a deletable (cleanup.policy=delete) log."""
        with self.leader_isr_update_lock.read_lock():
            leader_log = self.leader_log_if_local()
            if leader_log is None:
                raise NotLeaderOrFollowerException(f"Leader not local for partition {self.topic_partition} on "
                                                   f"broker {self._local_broker_id}")
            if not leader_log.config().delete:
                raise PolicyViolationException(f"Records of partition {self.topic_partition} can not be deleted due "
                                               "to the configured policy")
            converted_offset = leader_log.high_watermark() if offset == HIGH_WATERMARK else offset
            if converted_offset < 0:
                raise OffsetOutOfRangeException(f"The offset {converted_offset} for partition "
                                                f"{self.topic_partition} is not valid")
            leader_log.maybe_increment_log_start_offset(converted_offset,
                                                        LogStartOffsetIncrementReason.ClientRecordDeletion)
            return LogDeleteRecordsResult(requested_offset=converted_offset,
                                          low_watermark=self.low_watermark_if_leader())

    def truncate_to(self, offset: int, is_future: bool) -> None:
        """The read lock keeps the log from being swapped (future log) meanwhile."""
        with self.leader_isr_update_lock.read_lock():
            self._log_manager.truncate_to({self.topic_partition: offset}, is_future=is_future)

    def truncate_fully_and_start_at(self, new_offset: int, is_future: bool,
                                    log_start_offset_opt: int | None = None) -> None:
        with self.leader_isr_update_lock.read_lock():
            self._log_manager.truncate_fully_and_start_at(self.topic_partition, new_offset, is_future,
                                                          log_start_offset_opt)

    def last_offset_for_leader_epoch(self, current_leader_epoch: int | None, leader_epoch: int,
                                     fetch_only_from_leader: bool) -> EpochEndOffset:
        """OffsetsForLeaderEpoch: the end offset of `leader_epoch` in the local log (the largest epoch not above
        it, and its end), or an error code."""
        with self.leader_isr_update_lock.read_lock():
            local_log_or_error = self._get_local_log(current_leader_epoch, fetch_only_from_leader)
            if isinstance(local_log_or_error, Errors):
                return EpochEndOffset(partition=i32(self.partition_id), error_code=local_log_or_error)
            epoch_and_offset = local_log_or_error.end_offset_for_epoch(leader_epoch)
            if epoch_and_offset is None:
                return EpochEndOffset(partition=i32(self.partition_id), error_code=Errors.NONE)
            return EpochEndOffset(partition=i32(self.partition_id), error_code=Errors.NONE,
                                  leader_epoch=i32(epoch_and_offset.leader_epoch),
                                  end_offset=i64(epoch_and_offset.offset))

    def _prepare_isr_expand(self, current_state: CommittedPartitionState,
                            new_in_sync_replica_id: int) -> PendingExpandIsr:
        # the ISR sent is the committed one plus the new replica, each with its broker epoch (KIP-903)
        isr_to_send = sorted(self.partition_state.isr | {new_in_sync_replica_id})
        isr_with_broker_epoch = self._add_broker_epoch_to_isr(isr_to_send)
        new_leader_and_isr = LeaderAndIsr(self._local_broker_id, self._leader_epoch,
                                          self.partition_state.leader_recovery_state, isr_with_broker_epoch,
                                          self._partition_epoch)
        updated_state = PendingExpandIsr(new_in_sync_replica_id, new_leader_and_isr, current_state)
        self.partition_state = updated_state
        return updated_state

    def _prepare_isr_shrink(self, current_state: CommittedPartitionState,
                            out_of_sync_replica_ids: frozenset[int]) -> PendingShrinkIsr:
        # the HW keeps counting the out-of-sync replicas until the controller agrees (maximal ISR)
        isr_to_send = sorted(self.partition_state.isr - out_of_sync_replica_ids)
        isr_with_broker_epoch = self._add_broker_epoch_to_isr(isr_to_send)
        new_leader_and_isr = LeaderAndIsr(self._local_broker_id, self._leader_epoch,
                                          self.partition_state.leader_recovery_state, isr_with_broker_epoch,
                                          self._partition_epoch)
        updated_state = PendingShrinkIsr(out_of_sync_replica_ids, new_leader_and_isr, current_state)
        self.partition_state = updated_state
        return updated_state

    def _add_broker_epoch_to_isr(self, isr: list[int]) -> tuple[BrokerState, ...]:
        from kafka_edu.v3_9.core.server.metadata.kraft_metadata_cache import KRaftMetadataCache

        states = []
        for broker_id in isr:
            if not isinstance(self._metadata_cache, KRaftMetadataCache):
                broker_epoch = -1
            elif broker_id == self._local_broker_id:
                broker_epoch = self._local_broker_epoch_supplier()
            else:
                replica = self._remote_replicas_map.get(broker_id)
                stored = replica.state_snapshot.broker_epoch if replica is not None else None
                broker_epoch = -1 if stored is None else stored
            states.append(BrokerState(broker_id=i32(broker_id), broker_epoch=i64(broker_epoch)))
        return tuple(states)

    @step("RQ.isr")
    def _submit_alter_partition(self, proposed_isr_state: PendingPartitionChange) -> Future[LeaderAndIsr]:
        """Send the change; its answer is applied only if the partition is still in exactly this pending state."""
        log.debug("%sSubmitting ISR state change %s", self._log_ident, proposed_isr_state)
        topic_id = self.topic_id()
        future = self._alter_isr_manager.submit(
            TopicIdPartition(_py_uuid.UUID(bytes=(topic_id or ZERO_UUID).to_bytes()), self.topic_partition),
            proposed_isr_state.sent_leader_and_isr, self._controller_epoch)

        def when_complete(done: Future[LeaderAndIsr]) -> None:
            hw_incremented = False
            should_retry = False
            exception = done.exception()
            with self.leader_isr_update_lock.write_lock():
                if self.partition_state is not proposed_isr_state:
                    # new metadata, or another change, came first
                    log.debug("%sIgnoring failed ISR update to %s since we have already updated state to %s",
                              self._log_ident, proposed_isr_state, self.partition_state)
                elif exception is None:
                    hw_incremented = self._handle_alter_partition_update(proposed_isr_state, done.result())
                else:
                    should_retry = self._handle_alter_partition_error(proposed_isr_state, error_of(exception))
            if hw_incremented:
                self._try_complete_delayed_requests()
            # outside the lock: the retry may complete at once
            if should_retry:
                self._submit_alter_partition(proposed_isr_state)

        future.add_done_callback(when_complete)
        return future

    def _handle_alter_partition_error(self, proposed_isr_state: PendingPartitionChange, error: Errors) -> bool:
        """Returns whether to send the same change again."""
        self._alter_partition_listener.mark_failed()
        if error in (Errors.OPERATION_NOT_ATTEMPTED, Errors.INELIGIBLE_REPLICA):
            # not applied: back to the committed state, so that the change may be tried again
            self.partition_state = proposed_isr_state.last_committed_state
            log.info("%sFailed to alter partition to %s since the controller rejected the request with %s. "
                     "Partition state has been reset to the latest committed state %s.", self._log_ident,
                     proposed_isr_state, error.name, self.partition_state)
            return False
        if error in (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.UNKNOWN_TOPIC_ID, Errors.FENCED_LEADER_EPOCH,
                     Errors.INVALID_UPDATE_VERSION, Errors.INVALID_REQUEST, Errors.NEW_LEADER_ELECTED):
            # the state stays pending until the metadata brings the partition's real state
            log.debug("%sFailed to alter partition to %s with %s. Partition state may be out of sync, awaiting "
                      "new the latest metadata.", self._log_ident, proposed_isr_state, error.name)
            return False
        log.warning("%sFailed to update ISR to %s due to unexpected %s. Retrying.", self._log_ident,
                    proposed_isr_state, error.name)
        return True

    def _handle_alter_partition_update(self, proposed_isr_state: PendingPartitionChange,
                                       leader_and_isr: LeaderAndIsr) -> bool:
        """The controller committed a state: adopt its ISR and partition epoch, unless stale. Returns whether the
        HW moved."""
        if leader_and_isr.leader_epoch != self._leader_epoch:
            log.debug("%sIgnoring new ISR %s since we have a stale leader epoch %s.", self._log_ident,
                      leader_and_isr, self._leader_epoch)
            self._alter_partition_listener.mark_failed()
            return False
        if leader_and_isr.partition_epoch < self._partition_epoch:
            log.debug("%sIgnoring new ISR %s since we have a newer version %s.", self._log_ident, leader_and_isr,
                      self._partition_epoch)
            self._alter_partition_listener.mark_failed()
            return False
        # Either the controller committed the proposal at a newer partition epoch, or it had nothing to change (the
        # same epoch): both leave the pending state, so that later changes go out.
        self.partition_state = CommittedPartitionState(frozenset(leader_and_isr.isr),
                                                       leader_and_isr.leader_recovery_state)
        self._partition_epoch = leader_and_isr.partition_epoch
        log.info("%sISR updated to %s %s and version updated to %s", self._log_ident,
                 ",".join(str(r) for r in sorted(self.partition_state.isr)),
                 "(under-min-isr)" if self.is_under_min_isr() else "", self._partition_epoch)

        proposed_isr_state.notify_listener(self._alter_partition_listener)

        # a shrink may let the HW move
        leader_log = self.leader_log_if_local()
        return leader_log is not None and self._maybe_increment_leader_hw(leader_log)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Partition) and self.partition_id == other.partition_id and self.topic == other.topic

    def __hash__(self) -> int:
        return 31 + hash(self.topic) + 17 * self.partition_id

    def __str__(self) -> str:
        parts = [f"Topic: {self.topic}", f"Partition: {self.partition_id}", f"Leader: {self.leader_replica_id_opt}",
                 f"Replicas: {','.join(map(str, self.assignment_state.replicas))}",
                 f"ISR: {','.join(map(str, sorted(self.partition_state.isr)))}"]
        if isinstance(self.assignment_state, OngoingReassignmentState):
            parts.append(f"AddingReplicas: {','.join(map(str, self.assignment_state.adding_replicas))}")
            parts.append(f"RemovingReplicas: {','.join(map(str, self.assignment_state.removing_replicas))}")
        parts.append(f"LeaderRecoveryState: {self.partition_state.leader_recovery_state.name}")
        return "; ".join(parts)
