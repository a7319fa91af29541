"""Port of core/src/main/scala/kafka/controller/PartitionLeaderSelector.scala (Kafka 1.0.2): who leads next.

A selector gets a partition and its current leader and ISR and answers the new leader and ISR plus the replicas
that must hear of it. The partition state machine writes the answer to ZooKeeper and sends it.
"""

from __future__ import annotations

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import (
    LeaderElectionNotNeededException,
    NoReplicaOnlineException,
    StateChangeFailedException,
)
from kafka_edu.v1_0_2.core.api.leader_and_isr import LeaderAndIsr
from kafka_edu.v1_0_2.core.controller.controller_context import ControllerContext
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.log.log_config import unclean_leader_election_enable
from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging


class PartitionLeaderSelector:
    """The new leader and ISR of a partition, and the replicas that must hear of it. Each selector's `selectLeader`
    is a CT.select span named after it."""

    def select_leader(self, topic_partition: TopicPartition,
                      current_leader_and_isr: LeaderAndIsr) -> tuple[LeaderAndIsr, list[int]]:
        raise NotImplementedError


class OfflinePartitionLeaderSelector(PartitionLeaderSelector):
    """The first live replica of the ISR leads; with no live ISR replica, the first live assigned replica may lead
    only if unclean leader election is enabled for the topic (it may lose acknowledged records)."""

    def __init__(self, controller_context: ControllerContext, config: KafkaConfig) -> None:
        self.controller_context = controller_context
        self.config = config
        self.log = Logging("kafka.controller.OfflinePartitionLeaderSelector",
                           "[OfflinePartitionLeaderSelector]: ")

    @step("CT.select")
    def select_leader(self, topic_partition: TopicPartition,
                      current_leader_and_isr: LeaderAndIsr) -> tuple[LeaderAndIsr, list[int]]:
        context = self.controller_context
        assigned_replicas = context.partition_replica_assignment.get(topic_partition)
        if assigned_replicas is None:
            raise NoReplicaOnlineException(f"Partition {topic_partition} doesn't have replicas assigned to it")
        live_broker_ids = context.live_broker_ids
        live_assigned_replicas = [r for r in assigned_replicas if r in live_broker_ids]
        live_brokers_in_isr = [r for r in current_leader_and_isr.isr if r in live_broker_ids]
        if not live_brokers_in_isr:
            if not self.unclean_leader_election_enable(topic_partition.topic):
                raise NoReplicaOnlineException(
                    f"No replica in ISR for partition {topic_partition} is alive. Live brokers are: "
                    f"[{sorted(live_broker_ids)}], ISR brokers are: [{','.join(map(str, current_leader_and_isr.isr))}]")
            self.log.debug("No broker in ISR is alive for %s. Pick the leader from the alive assigned replicas: %s",
                           topic_partition, live_assigned_replicas)
            if not live_assigned_replicas:
                raise NoReplicaOnlineException(
                    f"No replica for partition {topic_partition} is alive. Live brokers are: "
                    f"[{sorted(live_broker_ids)}]. Assigned replicas are: [{assigned_replicas}].")
            new_leader = live_assigned_replicas[0]
            self.log.warning("No broker in ISR is alive for %s. Elect leader %d from live brokers %s. There's "
                             "potential data loss.", topic_partition, new_leader, live_assigned_replicas)
            new_leader_and_isr = current_leader_and_isr.new_leader_and_isr(new_leader, [new_leader])
        else:
            live_replicas_in_isr = [r for r in live_assigned_replicas if r in live_brokers_in_isr]
            new_leader = live_replicas_in_isr[0]
            self.log.debug("Some broker in ISR is alive for %s. Select %d from ISR %s to be the leader.",
                           topic_partition, new_leader, live_brokers_in_isr)
            new_leader_and_isr = current_leader_and_isr.new_leader_and_isr(new_leader, live_brokers_in_isr)
        self.log.info("Selected new leader and ISR %s for offline partition %s", new_leader_and_isr, topic_partition)
        return new_leader_and_isr, live_assigned_replicas

    def unclean_leader_election_enable(self, topic: str) -> bool:
        return unclean_leader_election_enable(self.controller_context.zk_utils.fetch_entity_config("topics", topic),
                                              self.config.unclean_leader_election_enable)


class ReassignedPartitionLeaderSelector(PartitionLeaderSelector):
    """A partition whose leader is not among its reassigned replicas: the first live reassigned replica in the ISR
    leads; the ISR stays as it is until the old replicas are taken out."""

    def __init__(self, controller_context: ControllerContext) -> None:
        self.controller_context = controller_context

    @step("CT.select")
    def select_leader(self, topic_partition: TopicPartition,
                      current_leader_and_isr: LeaderAndIsr) -> tuple[LeaderAndIsr, list[int]]:
        context = self.controller_context
        reassigned_in_sync_replicas = context.partitions_being_reassigned[topic_partition].new_replicas
        alive_reassigned_in_sync_replicas = [r for r in reassigned_in_sync_replicas
                                             if context.is_replica_online(r, topic_partition)
                                             and r in current_leader_and_isr.isr]
        if alive_reassigned_in_sync_replicas:
            return (current_leader_and_isr.new_leader(alive_reassigned_in_sync_replicas[0]),
                    reassigned_in_sync_replicas)
        if not reassigned_in_sync_replicas:
            raise NoReplicaOnlineException(f"List of reassigned replicas for partition {topic_partition} is empty. "
                                           f"Current leader and ISR: [{current_leader_and_isr}]")
        raise NoReplicaOnlineException(f"None of the reassigned replicas for partition {topic_partition} are in-sync "
                                       f"with the leader. Current leader and ISR: [{current_leader_and_isr}]")


class PreferredReplicaPartitionLeaderSelector(PartitionLeaderSelector):
    """The first assigned replica (the preferred one) takes the leadership back, if it is alive and in the ISR."""

    def __init__(self, controller_context: ControllerContext) -> None:
        self.controller_context = controller_context
        self.log = Logging("kafka.controller.PreferredReplicaPartitionLeaderSelector",
                           "[PreferredReplicaPartitionLeaderSelector]: ")

    @step("CT.select")
    def select_leader(self, topic_partition: TopicPartition,
                      current_leader_and_isr: LeaderAndIsr) -> tuple[LeaderAndIsr, list[int]]:
        context = self.controller_context
        assigned_replicas = context.partition_replica_assignment[topic_partition]
        preferred_replica = assigned_replicas[0]
        current_leader = context.partition_leadership_info[topic_partition].leader_and_isr.leader
        if current_leader == preferred_replica:
            raise LeaderElectionNotNeededException(f"Preferred replica {preferred_replica} is already the current "
                                                   f"leader for partition {topic_partition}")
        self.log.info("Current leader %d for partition %s is not the preferred replica. Triggering preferred replica "
                      "leader election", current_leader, topic_partition)
        if context.is_replica_online(preferred_replica, topic_partition) and \
                preferred_replica in current_leader_and_isr.isr:
            return current_leader_and_isr.new_leader(preferred_replica), assigned_replicas
        raise StateChangeFailedException(f"Preferred replica {preferred_replica} for partition {topic_partition} is "
                                         f"either not alive or not in the isr. Current leader and ISR: "
                                         f"[{current_leader_and_isr}]")


class ControlledShutdownLeaderSelector(PartitionLeaderSelector):
    """Moves leadership off brokers in controlled shutdown: the first live assigned replica left in the ISR."""

    def __init__(self, controller_context: ControllerContext) -> None:
        self.controller_context = controller_context
        self.log = Logging("kafka.controller.ControlledShutdownLeaderSelector",
                           "[ControlledShutdownLeaderSelector]: ")

    @step("CT.select")
    def select_leader(self, topic_partition: TopicPartition,
                      current_leader_and_isr: LeaderAndIsr) -> tuple[LeaderAndIsr, list[int]]:
        context = self.controller_context
        current_isr = current_leader_and_isr.isr
        assigned_replicas = context.partition_replica_assignment[topic_partition]
        live_or_shutting_down_broker_ids = context.live_or_shutting_down_broker_ids
        live_assigned_replicas = [r for r in assigned_replicas if r in live_or_shutting_down_broker_ids]
        new_isr = [b for b in current_isr if b not in context.shutting_down_broker_ids]
        new_leader = next((r for r in live_assigned_replicas if r in new_isr), None)
        if new_leader is None:
            raise StateChangeFailedException(
                f"No other replicas in ISR {','.join(map(str, current_isr))} for {topic_partition} besides shutting "
                f"down brokers {','.join(map(str, sorted(context.shutting_down_broker_ids)))}")
        self.log.debug("Partition %s : current leader = %d, new leader = %d", topic_partition,
                       current_leader_and_isr.leader, new_leader)
        return current_leader_and_isr.new_leader_and_isr(new_leader, new_isr), live_assigned_replicas
