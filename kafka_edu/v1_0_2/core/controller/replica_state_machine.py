"""Port of core/src/main/scala/kafka/controller/ReplicaStateMachine.scala (Kafka 1.0.2).

Each replica (a partition on one broker) is New, Online, Offline, or on its way out during topic deletion
(ReplicaDeletionStarted / Successful / Ineligible, then NonExistent). Online sends the replica its partition's
LeaderAndIsr; Offline stops it and takes it out of the ISR; ReplicaDeletionStarted sends StopReplica with delete.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

from kafka_edu.tracing import event, step
from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException, StateChangeFailedException
from kafka_edu.v1_0_2.core.controller.controller_channel_manager import ControllerBrokerRequestBatch
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v1_0_2.core.utils.replication_utils import get_leader_isr_and_epoch_for_partition

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.controller.kafka_controller import KafkaController


@dataclass(frozen=True, order=True)
class PartitionAndReplica:
    topic: str
    partition: int
    replica: int

    @property
    def topic_partition(self) -> TopicPartition:
        return TopicPartition(self.topic, self.partition)


class ReplicaState(Enum):
    NewReplica = 1
    OnlineReplica = 2
    OfflineReplica = 3
    ReplicaDeletionStarted = 4
    ReplicaDeletionSuccessful = 5
    ReplicaDeletionIneligible = 6
    NonExistentReplica = 7

    @property
    def valid_previous_states(self) -> set[ReplicaState]:
        return _VALID_PREVIOUS_STATES[self]


_VALID_PREVIOUS_STATES = {
    ReplicaState.NewReplica: {ReplicaState.NonExistentReplica},
    ReplicaState.OnlineReplica: {ReplicaState.NewReplica, ReplicaState.OnlineReplica, ReplicaState.OfflineReplica,
                                 ReplicaState.ReplicaDeletionIneligible},
    ReplicaState.OfflineReplica: {ReplicaState.NewReplica, ReplicaState.OnlineReplica, ReplicaState.OfflineReplica,
                                  ReplicaState.ReplicaDeletionIneligible},
    ReplicaState.ReplicaDeletionStarted: {ReplicaState.OfflineReplica},
    ReplicaState.ReplicaDeletionSuccessful: {ReplicaState.ReplicaDeletionStarted},
    ReplicaState.ReplicaDeletionIneligible: {ReplicaState.OfflineReplica, ReplicaState.ReplicaDeletionStarted},
    ReplicaState.NonExistentReplica: {ReplicaState.ReplicaDeletionSuccessful},
}

StopReplicaResponseCallback = Callable[[Any], None]


class ReplicaStateMachine:
    """The replicas' states, kept only on the active controller (started at failover, cleared at resignation)."""

    def __init__(self, controller: KafkaController) -> None:
        self.controller = controller
        self.controller_context = controller.controller_context
        self.controller_id = controller.config.broker_id
        self.zk_utils = controller.zk_utils
        self.replica_state: dict[PartitionAndReplica, ReplicaState] = {}
        self.broker_request_batch = ControllerBrokerRequestBatch(controller)
        self.log = Logging("kafka.controller.ReplicaStateMachine",
                           f"[ReplicaStateMachine controllerId={self.controller_id}] ")
        self.state_change_logger = Logging("state.change.logger", f"[Controller id={self.controller_id}] ")

    @step("CT.failover.08")
    def startup(self) -> None:
        self.initialize_replica_state()
        self.handle_state_changes(self.all_live_replicas(), ReplicaState.OnlineReplica)
        self.log.info("Started replica state machine with initial state -> %s", len(self.replica_state))

    def shutdown(self) -> None:
        self.replica_state.clear()
        self.log.info("Stopped replica state machine")

    def all_live_replicas(self) -> set[PartitionAndReplica]:
        """ControllerContext.allLiveReplicas: every assigned replica on a live broker."""
        context = self.controller_context
        return {PartitionAndReplica(tp.topic, tp.partition, r) for tp, replicas in
                context.partition_replica_assignment.items() for r in replicas if r in context.live_broker_ids}

    # Its own trace, linked to the controller event: FIDELITY orders CT.rsm after the failover steps.
    def handle_state_changes(self, replicas: Collection[PartitionAndReplica], target_state: ReplicaState,
                             stop_replica_response_callback: StopReplicaResponseCallback | None = None) -> None:
        replicas = sorted(replicas)
        if not replicas:
            return
        self.log.info("Invoking state change to %s for replicas %s", target_state.name,
                      ",".join(f"[Topic={r.topic},Partition={r.partition},Replica={r.replica}]" for r in replicas))
        try:
            self.broker_request_batch.new_batch()
            for replica in replicas:
                self.handle_state_change(replica, target_state, stop_replica_response_callback)
            self.broker_request_batch.send_requests_to_brokers(self.controller.epoch)
        except Exception as e:
            self.log.error("Error while moving some replicas to %s state", target_state.name, exc_info=e)
            self.broker_request_batch.clear()

    def handle_state_change(self, partition_and_replica: PartitionAndReplica, target_state: ReplicaState,
                            stop_replica_response_callback: StopReplicaResponseCallback | None) -> None:
        topic, partition, replica_id = (partition_and_replica.topic, partition_and_replica.partition,
                                        partition_and_replica.replica)
        topic_partition = partition_and_replica.topic_partition
        context = self.controller_context
        batch = self.broker_request_batch
        curr_state = self.replica_state.setdefault(partition_and_replica, ReplicaState.NonExistentReplica)

        def log_state_change() -> None:
            self.state_change_logger.debug("Changed state of replica %d for partition %s from %s to %s", replica_id,
                                           topic_partition, curr_state.name, target_state.name)
            event("CT.rsm", replica=partition_and_replica, curr_state=curr_state, target_state=target_state)

        try:
            replica_assignment = context.partition_replica_assignment.get(topic_partition, [])
            self.assert_valid_transition(partition_and_replica, target_state)
            if target_state == ReplicaState.NewReplica:
                # The replica starts as a follower of the partition's current leader, if it has one yet.
                leader_isr_and_controller_epoch = get_leader_isr_and_epoch_for_partition(self.zk_utils, topic,
                                                                                         partition)
                if leader_isr_and_controller_epoch is not None:
                    if leader_isr_and_controller_epoch.leader_and_isr.leader == replica_id:
                        raise StateChangeFailedException(f"Replica {replica_id} for partition {topic_partition} cannot "
                                                         "be moved to NewReplica state as it is being requested to "
                                                         "become leader")
                    batch.add_leader_and_isr_request_for_brokers([replica_id], topic, partition,
                                                                 leader_isr_and_controller_epoch, replica_assignment,
                                                                 is_new=True)
                self.replica_state[partition_and_replica] = ReplicaState.NewReplica
                log_state_change()
            elif target_state == ReplicaState.ReplicaDeletionStarted:
                self.replica_state[partition_and_replica] = ReplicaState.ReplicaDeletionStarted
                batch.add_stop_replica_request_for_brokers([replica_id], topic, partition, delete_partition=True,
                                                           callback=stop_replica_response_callback)
                log_state_change()
            elif target_state in (ReplicaState.ReplicaDeletionIneligible, ReplicaState.ReplicaDeletionSuccessful):
                self.replica_state[partition_and_replica] = target_state
                log_state_change()
            elif target_state == ReplicaState.NonExistentReplica:
                context.partition_replica_assignment[topic_partition] = [r for r in replica_assignment
                                                                         if r != replica_id]
                del self.replica_state[partition_and_replica]
                log_state_change()
            elif target_state == ReplicaState.OnlineReplica:
                if curr_state == ReplicaState.NewReplica:
                    if replica_id not in replica_assignment:
                        context.partition_replica_assignment[topic_partition] = [*replica_assignment, replica_id]
                    log_state_change()
                else:
                    # Only a partition that ever had a leader has a log on the replica to follow with.
                    leader_isr_and_controller_epoch = context.partition_leadership_info.get(topic_partition)
                    if leader_isr_and_controller_epoch is not None:
                        batch.add_leader_and_isr_request_for_brokers([replica_id], topic, partition,
                                                                     leader_isr_and_controller_epoch,
                                                                     replica_assignment)
                        self.replica_state[partition_and_replica] = ReplicaState.OnlineReplica
                        log_state_change()
                self.replica_state[partition_and_replica] = ReplicaState.OnlineReplica
            elif target_state == ReplicaState.OfflineReplica:
                # The replica stops fetching; the controller takes it out of the ISR right away.
                batch.add_stop_replica_request_for_brokers([replica_id], topic, partition, delete_partition=False)
                leader_and_isr_is_empty = True
                if topic_partition in context.partition_leadership_info:
                    updated = self.controller.remove_replica_from_isr(topic, partition, replica_id)
                    if updated is not None:
                        current_assigned_replicas = context.partition_replica_assignment[topic_partition]
                        if not self.controller.topic_deletion_manager.is_partition_to_be_deleted(topic_partition):
                            batch.add_leader_and_isr_request_for_brokers(
                                [r for r in current_assigned_replicas if r != replica_id], topic, partition, updated,
                                replica_assignment)
                        self.replica_state[partition_and_replica] = ReplicaState.OfflineReplica
                        log_state_change()
                        leader_and_isr_is_empty = False
                if leader_and_isr_is_empty and \
                        not self.controller.topic_deletion_manager.is_partition_to_be_deleted(topic_partition):
                    raise StateChangeFailedException(f"Failed to change state of replica {replica_id} for partition "
                                                     f"{topic_partition} since the leader and isr path in zookeeper "
                                                     "is empty")
        except Exception as t:
            self.state_change_logger.error("Initiated state change of replica %d for partition %s from %s to %s "
                                           "failed", replica_id, topic_partition, curr_state.name, target_state.name,
                                           exc_info=t)

    def assert_valid_transition(self, partition_and_replica: PartitionAndReplica, target_state: ReplicaState) -> None:
        current = self.replica_state[partition_and_replica]
        if current not in target_state.valid_previous_states:
            raise IllegalStateException(
                f"Replica {partition_and_replica} should be in the "
                f"{','.join(s.name for s in target_state.valid_previous_states)} states before moving to "
                f"{target_state.name} state. Instead it is in {current.name} state")

    def initialize_replica_state(self) -> None:
        """At failover: replicas on live brokers are Online; the others cannot be deleted for now."""
        context = self.controller_context
        for topic_partition, assigned_replicas in context.partition_replica_assignment.items():
            for replica_id in assigned_replicas:
                partition_and_replica = PartitionAndReplica(topic_partition.topic, topic_partition.partition,
                                                            replica_id)
                if replica_id in context.live_broker_ids:
                    self.replica_state[partition_and_replica] = ReplicaState.OnlineReplica
                else:
                    self.replica_state[partition_and_replica] = ReplicaState.ReplicaDeletionIneligible

    def replicas_in_state(self, topic: str, state: ReplicaState) -> set[PartitionAndReplica]:
        return {r for r, s in self.replica_state.items() if r.topic == topic and s == state}

    def is_any_replica_in_state(self, topic: str, state: ReplicaState) -> bool:
        return any(r.topic == topic and s == state for r, s in self.replica_state.items())

    def are_all_replicas_for_topic_deleted(self, topic: str) -> bool:
        replicas = [s for r, s in self.replica_state.items() if r.topic == topic]
        self.log.debug("Are all replicas for topic %s deleted %s", topic, replicas)
        return all(s == ReplicaState.ReplicaDeletionSuccessful for s in replicas)

    def is_at_least_one_replica_in_deletion_started_state(self, topic: str) -> bool:
        return self.is_any_replica_in_state(topic, ReplicaState.ReplicaDeletionStarted)
