"""Port of core/src/main/scala/kafka/cluster/Partition.scala and Replica.scala (Kafka 1.0.2): one partition's
replicas, leader, ISR and high watermark, as this broker sees them."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kafka_edu.tracing import event, note, span, step
from kafka_edu.v1_0_2.clients.common.errors import (
    KafkaException,
    NotEnoughReplicasException,
    NotLeaderForPartitionException,
    OffsetOutOfRangeException,
    PolicyViolationException,
    ReplicaNotAvailableException,
)
from kafka_edu.v1_0_2.clients.common.requests.epoch_end_offset import UNDEFINED_EPOCH_OFFSET, EpochEndOffset
from kafka_edu.v1_0_2.core.api.leader_and_isr import LeaderAndIsr
from kafka_edu.v1_0_2.core.log.log import Log, LogAppendInfo, TopicPartition
from kafka_edu.v1_0_2.core.log.log_config import LogConfig
from kafka_edu.v1_0_2.core.utils.replication_utils import update_leader_and_isr
from kafka_edu.v3_9.clients.common.protocol.errors import Errors

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.server.epoch.leader_epoch_file_cache import LeaderEpochFileCache
    from kafka_edu.v1_0_2.core.server.replica_manager import LogReadResult, ReplicaManager

log = logging.getLogger("kafka.cluster.Partition")

INITIAL_CONTROLLER_EPOCH = 1
UNKNOWN_OFFSET = -1


def _milliseconds() -> int:
    return int(time.time() * 1000)


@dataclass
class LeaderAndIsrPartitionState:
    """What the controller decides for a partition (LeaderAndIsrRequest.PartitionState)."""

    controller_epoch: int
    leader: int
    leader_epoch: int
    isr: list[int]
    zk_version: int
    replicas: list[int]
    is_new: bool = False


class Replica:
    """kafka.cluster.Replica: a broker's copy of the partition. The local one has the log and the high watermark;
    a remote one is what the leader learns of a follower from its fetches."""

    def __init__(self, broker_id: int, topic_partition: TopicPartition, initial_high_watermark_value: int = 0,
                 log: Log | None = None) -> None:
        self.broker_id = broker_id
        self.topic_partition = topic_partition
        self.log = log
        self._high_watermark = initial_high_watermark_value
        self._log_end_offset = UNKNOWN_OFFSET
        self._log_start_offset = UNKNOWN_OFFSET
        self.last_fetch_leader_log_end_offset = 0
        self.last_fetch_time_ms = 0
        self._last_caught_up_time_ms = 0

    def is_local(self) -> bool:
        return self.log is not None

    @property
    def epochs(self) -> LeaderEpochFileCache | None:
        """The leader epochs of the local replica's log; None for a remote replica."""
        return self.log.leader_epoch_cache if self.log is not None else None

    @property
    def last_caught_up_time_ms(self) -> int:
        return self._last_caught_up_time_ms

    @property
    def log_end_offset(self) -> int:
        return self.log.log_end_offset if self.log is not None else self._log_end_offset

    @property
    def log_start_offset(self) -> int:
        return self.log.log_start_offset if self.log is not None else self._log_start_offset

    @property
    def high_watermark(self) -> int:
        return self._high_watermark

    @high_watermark.setter
    def high_watermark(self, new_high_watermark: int) -> None:
        if self.log is None:
            raise RuntimeError(f"Should not set high watermark on partition {self.topic_partition}'s non-local "
                               f"replica {self.broker_id}")
        self._high_watermark = new_high_watermark
        self.log.on_high_watermark_incremented(new_high_watermark)  # retention may only delete below it

    @property
    def last_stable_offset(self) -> int:
        """The first offset not yet decided: below it every transaction has its marker, replicated. Never past the
        high watermark; equal to it in a log without open transactions."""
        if self.log is None:
            raise KafkaException(f"Cannot fetch last stable offset on non-local replica {self}")
        first_unstable_offset = self.log.first_unstable_offset
        if first_unstable_offset is not None and first_unstable_offset.message_offset < self._high_watermark:
            return first_unstable_offset.message_offset
        return self._high_watermark

    def maybe_increment_log_start_offset(self, offset: int) -> None:
        if self.log is not None and offset > self.log.log_start_offset:
            self.log.maybe_increment_log_start_offset(min(offset, self._high_watermark))

    def update_log_read_result(self, log_read_result: LogReadResult) -> None:
        """A follower's fetch tells the leader its position: caught up if it read to the leader's end offset then,
        or to the end offset of its previous fetch."""
        fetch_offset = log_read_result.fetch_offset
        if fetch_offset >= log_read_result.leader_log_end_offset:
            self._last_caught_up_time_ms = max(self._last_caught_up_time_ms, log_read_result.fetch_time_ms)
        elif fetch_offset >= self.last_fetch_leader_log_end_offset:
            self._last_caught_up_time_ms = max(self._last_caught_up_time_ms, self.last_fetch_time_ms)
        self._log_start_offset = log_read_result.follower_log_start_offset
        self._log_end_offset = fetch_offset
        self.last_fetch_leader_log_end_offset = log_read_result.leader_log_end_offset
        self.last_fetch_time_ms = log_read_result.fetch_time_ms

    def reset_last_caught_up_time(self, cur_leader_log_end_offset: int, cur_time_ms: int,
                                  last_caught_up_time_ms: int) -> None:
        self.last_fetch_leader_log_end_offset = cur_leader_log_end_offset
        self.last_fetch_time_ms = cur_time_ms
        self._last_caught_up_time_ms = last_caught_up_time_ms

    def __repr__(self) -> str:
        return (f"Replica(replicaId={self.broker_id}, topic={self.topic_partition.topic}, "
                f"partition={self.topic_partition.partition}, isLocal={self.is_local()}, "
                f"lastCaughtUpTimeMs={self._last_caught_up_time_ms})")


class Partition:
    """Leadership, in-sync replicas and the high watermark of one partition on this broker."""

    def __init__(self, topic: str, partition_id: int, replica_manager: ReplicaManager) -> None:
        self.topic = topic
        self.partition_id = partition_id
        self.topic_partition = TopicPartition(topic, partition_id)
        self.replica_manager = replica_manager
        self.local_broker_id = replica_manager.config.broker_id
        self.log_manager = replica_manager.log_manager
        self.assigned_replica_map: dict[int, Replica] = {}
        self.leader_isr_update_lock = threading.RLock()
        self.zk_version = 0
        self.leader_epoch = -1
        self.leader_replica_id_opt: int | None = None
        self.in_sync_replicas: set[int] = set()
        """Broker ids of the in-sync replicas, the leader included (only meaningful on the leader)."""
        self.controller_epoch = INITIAL_CONTROLLER_EPOCH - 1
        """Epoch of the controller that last changed the leader: written back with every ISR change."""

    # -- replicas -------------------------------------------------------------------------------------------------

    def is_replica_local(self, replica_id: int) -> bool:
        return replica_id == self.local_broker_id

    def get_or_create_replica(self, replica_id: int | None = None, is_new: bool = False) -> Replica:
        replica_id = self.local_broker_id if replica_id is None else replica_id
        replica = self.assigned_replica_map.get(replica_id)
        if replica is None:
            if self.is_replica_local(replica_id):
                config = self.log_config()
                partition_log = self.log_manager.get_or_create_log(self.topic_partition, config, is_new)
                offset = min(self.replica_manager.checkpointed_high_watermark(self.topic_partition),
                             partition_log.log_end_offset)
                replica = Replica(replica_id, self.topic_partition, offset, partition_log)
            else:
                replica = Replica(replica_id, self.topic_partition)
            self.assigned_replica_map[replica_id] = replica
        return replica

    def log_config(self) -> LogConfig:
        """The topic's overrides as ZooKeeper has them now, over the broker's defaults: a topic created with
        `--config` has no change notification yet when its first replica is made here."""
        zk_utils = self.replica_manager.zk_utils
        if zk_utils is None:  # a replica manager without ZooKeeper (unit tests): what the log manager knows
            return self.log_manager.topic_configs.get(self.topic, self.log_manager.default_config)
        overrides = zk_utils.fetch_entity_config("topics", self.topic)
        return LogConfig.from_props(overrides, defaults=self.log_manager.default_config)

    def get_replica(self, replica_id: int | None = None) -> Replica | None:
        return self.assigned_replica_map.get(self.local_broker_id if replica_id is None else replica_id)

    def get_replica_or_exception(self, replica_id: int | None = None) -> Replica:
        replica = self.get_replica(replica_id)
        if replica is None:
            raise ReplicaNotAvailableException(
                f"Replica {self.local_broker_id if replica_id is None else replica_id} is not available for "
                f"partition {self.topic_partition}")
        return replica

    def leader_replica_if_local(self) -> Replica | None:
        return self.get_replica() if self.leader_replica_id_opt == self.local_broker_id else None

    def assigned_replicas(self) -> list[Replica]:
        return list(self.assigned_replica_map.values())

    def remove_replica(self, replica_id: int) -> None:
        self.assigned_replica_map.pop(replica_id, None)

    def local_log(self) -> Log | None:
        replica = self.get_replica()
        return replica.log if replica else None

    @property
    def high_watermark(self) -> int:
        """The local replica's high watermark: on a follower, what the leader last told it."""
        replica = self.get_replica()
        return replica.high_watermark if replica is not None else 0

    def get_leader_epoch(self) -> int:
        return self.leader_epoch

    def is_under_replicated(self) -> bool:
        return self.leader_replica_if_local() is not None and len(self.in_sync_replicas) < len(
            self.assigned_replica_map)

    def is_under_min_isr(self) -> bool:
        leader_replica = self.leader_replica_if_local()
        return leader_replica is not None and len(self.in_sync_replicas) < \
            leader_replica.log.config.min_in_sync_replicas

    def delete(self) -> None:
        with self.leader_isr_update_lock:
            self.assigned_replica_map.clear()
            self.in_sync_replicas = set()
            self.leader_replica_id_opt = None
            self.log_manager.async_delete(self.topic_partition)

    # -- leadership -----------------------------------------------------------------------------------------------

    def make_leader(self, controller_id: int, partition_state: LeaderAndIsrPartitionState,
                    correlation_id: int = -1) -> bool:
        """Become (or stay) the leader; True when leadership changed hands."""
        with self.leader_isr_update_lock:
            all_replicas = list(partition_state.replicas)
            self.controller_epoch = partition_state.controller_epoch
            new_in_sync_replicas = {self.get_or_create_replica(r, partition_state.is_new).broker_id
                                    for r in partition_state.isr}
            for replica_id in [r for r in self.assigned_replica_map if r not in all_replicas]:
                self.remove_replica(replica_id)
            self.in_sync_replicas = new_in_sync_replicas
            leader_replica = self.get_or_create_replica(is_new=partition_state.is_new)
            log.info("%s starts at Leader Epoch %d from offset %d. Previous Leader Epoch was: %d",
                     self.topic_partition, partition_state.leader_epoch, leader_replica.log_end_offset,
                     self.leader_epoch)
            self.leader_epoch = partition_state.leader_epoch
            for replica_id in all_replicas:
                self.get_or_create_replica(replica_id, partition_state.is_new)
            self.zk_version = partition_state.zk_version
            is_new_leader = self.leader_replica_id_opt != self.local_broker_id
            cur_leader_log_end_offset = leader_replica.log_end_offset
            cur_time_ms = _milliseconds()
            # Followers already in sync get until replica.lag.time.max.ms from now to prove it.
            for replica in self.assigned_replicas():
                if replica.broker_id != self.local_broker_id:
                    replica.reset_last_caught_up_time(
                        cur_leader_log_end_offset, cur_time_ms,
                        cur_time_ms if replica.broker_id in self.in_sync_replicas else 0)
            if is_new_leader:
                self.leader_replica_id_opt = self.local_broker_id
                # What followers fetched from an earlier term as leader is unknown until they fetch again.
                for replica in self.assigned_replicas():
                    if replica.broker_id != self.local_broker_id:
                        replica.update_log_read_result(_unknown_log_read_result())
            leader_hw_incremented = self.maybe_increment_leader_hw(leader_replica)
        if leader_hw_incremented:
            self.try_complete_delayed_requests()
        return is_new_leader

    def make_follower(self, controller_id: int, partition_state: LeaderAndIsrPartitionState,
                      correlation_id: int = -1) -> bool:
        """Follow `partition_state.leader`; True when the leader changed."""
        with self.leader_isr_update_lock:
            all_replicas = list(partition_state.replicas)
            new_leader_broker_id = partition_state.leader
            self.controller_epoch = partition_state.controller_epoch
            for replica_id in all_replicas:
                self.get_or_create_replica(replica_id, partition_state.is_new)
            for replica_id in [r for r in self.assigned_replica_map if r not in all_replicas]:
                self.remove_replica(replica_id)
            self.in_sync_replicas = set()
            self.leader_epoch = partition_state.leader_epoch
            self.zk_version = partition_state.zk_version
            if self.leader_replica_id_opt == new_leader_broker_id:
                return False
            self.leader_replica_id_opt = new_leader_broker_id
            return True

    # -- what followers' fetches tell the leader ------------------------------------------------------------------

    def update_replica_log_read_result(self, replica: Replica, log_read_result: LogReadResult) -> bool:
        """Record a follower's fetch position; True if the high or the low watermark moved."""
        # the low watermark only matters while a DeleteRecords waits for it
        delete_records_pending = (self.replica_manager.delayed_delete_records_purgatory.delayed() > 0
                                  and self.leader_replica_if_local() is not None)
        old_leader_lw = self.low_watermark_if_leader() if delete_records_pending else -1
        replica.update_log_read_result(log_read_result)
        new_leader_lw = self.low_watermark_if_leader() if delete_records_pending else -1
        leader_lw_incremented = new_leader_lw > old_leader_lw
        leader_hw_incremented = self.maybe_expand_isr(replica.broker_id, log_read_result)
        if leader_lw_incremented or leader_hw_incremented:
            self.try_complete_delayed_requests()
        log.debug("Recorded replica %d log end offset (LEO) position %d.", replica.broker_id,
                  log_read_result.fetch_offset)
        return leader_lw_incremented or leader_hw_incremented

    def maybe_expand_isr(self, replica_id: int, log_read_result: LogReadResult) -> bool:
        """Add a follower whose log end offset reached the high watermark to the ISR; True if the HW moved."""
        with self.leader_isr_update_lock:
            leader_replica = self.leader_replica_if_local()
            if leader_replica is None:
                return False
            replica = self.get_replica(replica_id)
            if replica_id not in self.in_sync_replicas and replica_id in self.assigned_replica_map \
                    and replica.log_end_offset >= leader_replica.high_watermark:
                new_in_sync_replicas = self.in_sync_replicas | {replica_id}
                with span("Partition.maybeExpandIsr", self, new_isr=new_in_sync_replicas):
                    log.info("Expanding ISR from %s to %s", _ids(self.in_sync_replicas), _ids(new_in_sync_replicas))
                    self.update_isr(new_in_sync_replicas)
            return self.maybe_increment_leader_hw(leader_replica, log_read_result.fetch_time_ms)

    def check_enough_replicas_reach_offset(self, required_offset: int) -> tuple[bool, Errors]:
        """For acks=all: has every in-sync replica got the data up to `required_offset`?"""
        leader_replica = self.leader_replica_if_local()
        if leader_replica is None:
            return False, Errors.NOT_LEADER_OR_FOLLOWER
        cur_in_sync_replicas = set(self.in_sync_replicas)
        min_isr = leader_replica.log.config.min_in_sync_replicas
        if leader_replica.high_watermark >= required_offset:
            # The ISR may have shrunk after the append: the data is safe only as far as the ISR reaches.
            if min_isr <= len(cur_in_sync_replicas):
                return True, Errors.NONE
            return True, Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND
        return False, Errors.NONE

    def maybe_increment_leader_hw(self, leader_replica: Replica | None = None, cur_time: int | None = None) -> bool:
        """The high watermark is the smallest log end offset among replicas in the ISR or caught up recently, so a
        catching-up follower is waited for rather than left behind; it only moves forward."""
        leader_replica = leader_replica or self.leader_replica_if_local()
        if leader_replica is None:
            return False
        cur_time = _milliseconds() if cur_time is None else cur_time
        lag_max_ms = self.replica_manager.config.replica_lag_time_max_ms
        all_log_end_offsets = [r.log_end_offset for r in self.assigned_replicas()
                               if cur_time - r.last_caught_up_time_ms <= lag_max_ms
                               or r.broker_id in self.in_sync_replicas or r is leader_replica]
        new_high_watermark = min(all_log_end_offsets)
        old_high_watermark = leader_replica.high_watermark
        if old_high_watermark < new_high_watermark:
            leader_replica.high_watermark = new_high_watermark
            log.debug("High watermark updated to %d", new_high_watermark)
            return True
        return False

    def try_complete_delayed_requests(self) -> None:
        """Called without the leader/ISR lock: a moved high watermark may complete fetches and acks=all produces."""
        self.replica_manager.try_complete_delayed_fetch(self.topic_partition)
        self.replica_manager.try_complete_delayed_produce(self.topic_partition)
        self.replica_manager.try_complete_delayed_delete_records(self.topic_partition)

    # -- ISR shrink -----------------------------------------------------------------------------------------------

    def maybe_shrink_isr(self, replica_max_lag_time_ms: int) -> None:
        with self.leader_isr_update_lock:
            leader_replica = self.leader_replica_if_local()
            leader_hw_incremented = False
            if leader_replica is not None:
                out_of_sync_replicas = self.get_out_of_sync_replicas(leader_replica, replica_max_lag_time_ms)
                if out_of_sync_replicas:
                    new_in_sync_replicas = self.in_sync_replicas - out_of_sync_replicas
                    assert new_in_sync_replicas, "the leader never leaves its own ISR"
                    with span("Partition.maybeShrinkIsr", self, new_isr=new_in_sync_replicas,
                              max_lag_ms=replica_max_lag_time_ms, root=True):
                        log.info("Shrinking ISR from %s to %s", _ids(self.in_sync_replicas),
                                 _ids(new_in_sync_replicas))
                        self.update_isr(new_in_sync_replicas)
                        leader_hw_incremented = self.maybe_increment_leader_hw(leader_replica)
        if leader_hw_incremented:
            self.try_complete_delayed_requests()

    def get_out_of_sync_replicas(self, leader_replica: Replica, max_lag_ms: int) -> set[int]:
        """Stuck or slow followers alike: not fully caught up at any time in the last `max_lag_ms`."""
        now = _milliseconds()
        candidate_replicas = self.in_sync_replicas - {leader_replica.broker_id}
        lagging_replicas = {r for r in candidate_replicas if r in self.assigned_replica_map
                            and now - self.assigned_replica_map[r].last_caught_up_time_ms > max_lag_ms}
        if lagging_replicas:
            log.debug("Lagging replicas are %s", _ids(lagging_replicas))
        return lagging_replicas

    def update_isr(self, new_isr: set[int]) -> None:
        """Write the new ISR to the partition state znode (compare-and-set on its version), then adopt it."""
        new_leader_and_isr = LeaderAndIsr(self.local_broker_id, self.leader_epoch, sorted(new_isr), self.zk_version)
        with span("Partition.updateIsr", self, new_isr=new_isr):
            update_succeeded, new_version = update_leader_and_isr(
                self.replica_manager.zk_utils, self.topic, self.partition_id, new_leader_and_isr,
                self.controller_epoch, self.zk_version)
            note(update_succeeded=update_succeeded)
            if update_succeeded:
                self.replica_manager.record_isr_change(self.topic_partition)
                event("isr.change", self, new_isr=new_isr, new_version=new_version)
                self.in_sync_replicas = set(new_isr)
                self.zk_version = new_version
            else:
                log.info("Cached zkVersion [%d] not equal to that in zookeeper, skip updating ISR", self.zk_version)

    # -- the write path -------------------------------------------------------------------------------------------

    def append_records_to_leader(self, records: bytes, is_from_client: bool, required_acks: int = 0) -> LogAppendInfo:
        with self.leader_isr_update_lock:
            leader_replica = self.leader_replica_if_local()
            if leader_replica is None:
                raise NotLeaderForPartitionException(
                    f"Leader not local for partition {self.topic_partition} on broker {self.local_broker_id}")
            partition_log = leader_replica.log
            min_isr = partition_log.config.min_in_sync_replicas
            in_sync_size = len(self.in_sync_replicas)
            # Refuse before writing: an acks=all write the ISR cannot carry would only time out later.
            if in_sync_size < min_isr and required_acks == -1:
                raise NotEnoughReplicasException(
                    f"Number of insync replicas for partition {self.topic_partition} is [{in_sync_size}], below "
                    f"required minimum [{min_isr}]")
            with step("NW.log.append", self, records=records):
                info = partition_log.append_as_leader(records, leader_epoch=self.leader_epoch,
                                                      is_from_client=is_from_client)
                note(info=info)
            # Followers waiting in the fetch purgatory have something to read now.
            self.replica_manager.try_complete_delayed_fetch(self.topic_partition)
            leader_hw_incremented = self.maybe_increment_leader_hw(leader_replica)
        if leader_hw_incremented:
            self.try_complete_delayed_requests()
        return info

    # -- DeleteRecords ------------------------------------------------------------------------------------------

    def delete_records_on_leader(self, offset: int) -> int:
        """Raise the leader's log start offset to `offset` (at most the high watermark); the low watermark after."""
        with self.leader_isr_update_lock:
            leader_replica = self.leader_replica_if_local()
            if leader_replica is None:
                raise NotLeaderForPartitionException(
                    f"Leader not local for partition {self.topic_partition} on broker {self.local_broker_id}")
            if not leader_replica.log.config.delete:
                raise PolicyViolationException(f"Records of partition {self.topic_partition} can not be deleted due "
                                               "to the configured policy")
            # Replica.maybeIncrementLogStartOffset on the leader: nothing above the high watermark may go
            if leader_replica.high_watermark < offset:
                raise OffsetOutOfRangeException(f"The specified offset {offset} is higher than the high watermark "
                                                f"{leader_replica.high_watermark} of the partition "
                                                f"{self.topic_partition}")
            leader_replica.log.maybe_increment_log_start_offset(offset)
            return self.low_watermark_if_leader()

    def low_watermark_if_leader(self) -> int:
        """The smallest log start offset among the replicas on live brokers: below it every copy is deleted."""
        if self.leader_replica_if_local() is None:
            raise NotLeaderForPartitionException(
                f"Leader not local for partition {self.topic_partition} on broker {self.local_broker_id}")
        log_start_offsets = [r.log_start_offset for r in self.assigned_replicas()
                             if self.replica_manager.metadata_cache.is_broker_alive(r.broker_id)]
        return min(log_start_offsets, default=0)

    def last_offset_for_leader_epoch(self, leader_epoch: int) -> EpochEndOffset:
        """Where `leader_epoch` ends in the leader's log (OffsetsForLeaderEpoch): only the leader answers."""
        with self.leader_isr_update_lock:
            leader_replica = self.leader_replica_if_local()
            if leader_replica is not None:
                return EpochEndOffset(Errors.NONE, leader_replica.epochs.end_offset_for(leader_epoch))
            return EpochEndOffset(Errors.NOT_LEADER_OR_FOLLOWER, UNDEFINED_EPOCH_OFFSET)

    def __repr__(self) -> str:
        return (f"Topic: {self.topic}; Partition: {self.partition_id}; Leader: {self.leader_replica_id_opt}; "
                f"AssignedReplicas: {_ids(self.assigned_replica_map)}; InSyncReplicas: {_ids(self.in_sync_replicas)}")


def _ids(ids: object) -> str:
    return ",".join(str(i) for i in sorted(ids))  # type: ignore[call-overload]


def _unknown_log_read_result() -> LogReadResult:
    from kafka_edu.v1_0_2.core.server.replica_manager import LogReadResult

    return LogReadResult.unknown()
