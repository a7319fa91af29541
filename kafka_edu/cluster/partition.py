"""Port of core/src/main/scala/kafka/cluster/Partition.scala (Kafka 1.0.2): one partition's replicas, leader, ISR
and high watermark, as this broker sees them."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kafka_edu.common.errors import (
    NotEnoughReplicasException,
    NotLeaderForPartitionException,
)
from kafka_edu.log.log import Log, LogAppendInfo, TopicPartition
from kafka_edu.protocol.errors import Errors
from kafka_edu.tracing import step

if TYPE_CHECKING:
    from kafka_edu.server.replica_manager import ReplicaManager

log = logging.getLogger("kafka.cluster.Partition")


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


@dataclass
class Replica:
    """kafka.cluster.Replica: a broker's copy of the partition; the local one has the log."""

    broker_id: int
    log: Log | None = None
    log_end_offset: int = 0
    last_caught_up_time_ms: int = 0


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
        self.controller_epoch = 0
        self.leader_replica_id_opt: int | None = None
        self.in_sync_replicas: set[int] = set()
        self.high_watermark = 0

    # -- replicas -------------------------------------------------------------------------------------------------

    def get_or_create_replica(self, replica_id: int, is_new: bool = False) -> Replica:
        replica = self.assigned_replica_map.get(replica_id)
        if replica is None:
            if replica_id == self.local_broker_id:
                config = self.log_manager.topic_configs.get(self.topic, self.log_manager.default_config)
                partition_log = self.log_manager.get_or_create_log(self.topic_partition, config, is_new)
                replica = Replica(replica_id, partition_log, partition_log.log_end_offset)
                checkpointed_hw = self.replica_manager.checkpointed_high_watermark(self.topic_partition)
                self.high_watermark = min(checkpointed_hw, partition_log.log_end_offset)
            else:
                replica = Replica(replica_id)
            self.assigned_replica_map[replica_id] = replica
        return replica

    def get_replica(self, replica_id: int | None = None) -> Replica | None:
        return self.assigned_replica_map.get(self.local_broker_id if replica_id is None else replica_id)

    def leader_replica_if_local(self) -> Replica | None:
        return self.get_replica() if self.leader_replica_id_opt == self.local_broker_id else None

    def local_log(self) -> Log | None:
        replica = self.get_replica()
        return replica.log if replica else None

    # -- leadership -----------------------------------------------------------------------------------------------

    def make_leader(self, controller_id: int, partition_state: LeaderAndIsrPartitionState) -> bool:
        """Become (or stay) the leader; True when leadership changed hands."""
        with self.leader_isr_update_lock:
            self.controller_epoch = partition_state.controller_epoch
            for replica_id in partition_state.replicas:
                self.get_or_create_replica(replica_id, partition_state.is_new)
            for replica_id in list(self.assigned_replica_map):
                if replica_id not in partition_state.replicas:
                    del self.assigned_replica_map[replica_id]
            self.in_sync_replicas = set(partition_state.isr)
            self.leader_epoch = partition_state.leader_epoch
            self.zk_version = partition_state.zk_version
            is_new_leader = self.leader_replica_id_opt != self.local_broker_id
            self.leader_replica_id_opt = self.local_broker_id
            self.maybe_increment_leader_hw()
            return is_new_leader

    # -- the write path -------------------------------------------------------------------------------------------

    def append_records_to_leader(self, records: bytes, is_from_client: bool, required_acks: int) -> LogAppendInfo:
        with self.leader_isr_update_lock:
            leader_replica = self.leader_replica_if_local()
            if leader_replica is None:
                raise NotLeaderForPartitionException(
                    f"Leader not local for partition {self.topic_partition} on broker {self.local_broker_id}")
            min_isr = leader_replica.log.config.min_in_sync_replicas
            # Refuse before writing: an acks=all write the ISR cannot carry would only time out later.
            if len(self.in_sync_replicas) < min_isr and required_acks == -1:
                raise NotEnoughReplicasException(
                    f"Number of insync replicas for partition {self.topic_partition} is [{len(self.in_sync_replicas)}],"
                    f" below required minimum [{min_isr}]")
            with step("NW.log.append", {"kafka.topic": self.topic, "kafka.partition": self.partition_id,
                                        "kafka.records.bytes": len(records)}) as s:
                info = leader_replica.log.append_as_leader(records, leader_epoch=self.leader_epoch,
                                                           is_from_client=is_from_client)
                s.set_attributes({"kafka.offset.first": info.first_offset, "kafka.offset.last": info.last_offset})
            leader_replica.log_end_offset = leader_replica.log.log_end_offset
            self.maybe_increment_leader_hw()
        self.replica_manager.try_complete_delayed_fetch(self.topic_partition)
        return info

    def maybe_increment_leader_hw(self) -> bool:
        """The high watermark is the smallest log end offset among the in-sync replicas."""
        leader = self.leader_replica_if_local()
        if leader is None:
            return False
        leos = [leader.log.log_end_offset if rid == self.local_broker_id
                else self.assigned_replica_map[rid].log_end_offset
                for rid in self.in_sync_replicas if rid in self.assigned_replica_map]
        new_hw = min(leos) if leos else leader.log.log_end_offset
        if new_hw > self.high_watermark:
            self.high_watermark = new_hw
            leader.log.on_high_watermark_incremented(new_hw)  # retention may only delete below it
            return True
        return False

    def check_enough_replicas_reach_offset(self, required_offset: int) -> tuple[bool, Errors]:
        """For acks=all: has every in-sync replica got the data up to `required_offset`?"""
        leader = self.leader_replica_if_local()
        if leader is None:
            return False, Errors.NOT_LEADER_OR_FOLLOWER
        min_isr = leader.log.config.min_in_sync_replicas
        if self.high_watermark >= required_offset:
            if min_isr <= len(self.in_sync_replicas):
                return True, Errors.NONE
            return True, Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND
        return False, Errors.NONE
