"""Port of core/src/main/scala/kafka/controller/PartitionStateMachine.scala (Kafka 1.0.2).

Each partition is NonExistent, New, Online (has a live leader) or Offline. Moving a partition to Online elects its
leader: for a new partition the first live assigned replica, otherwise whoever the given selector picks. The choice
is written to the partition's state znode with the controller epoch, then sent to the replicas as LeaderAndIsr.
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING

from kafka_edu.tracing import event, step
from kafka_edu.v1_0_2.clients.common.errors import (
    IllegalStateException,
    LeaderElectionNotNeededException,
    NoReplicaOnlineException,
    StateChangeFailedException,
    ZkNodeExistsException,
)
from kafka_edu.v1_0_2.core.api.leader_and_isr import LeaderAndIsr
from kafka_edu.v1_0_2.core.controller.controller_channel_manager import ControllerBrokerRequestBatch
from kafka_edu.v1_0_2.core.controller.controller_context import (
    LeaderIsrAndControllerEpoch,
    get_partition_leader_and_isr_for_topics,
)
from kafka_edu.v1_0_2.core.controller.partition_leader_selector import PartitionLeaderSelector
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v1_0_2.core.utils.replication_utils import update_leader_and_isr
from kafka_edu.v1_0_2.core.utils.zk_utils import get_topic_partition_leader_and_isr_path, leader_and_isr_zk_data

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.controller.kafka_controller import KafkaController


class PartitionState(Enum):
    NewPartition = 0
    OnlinePartition = 1
    OfflinePartition = 2
    NonExistentPartition = 3

    @property
    def valid_previous_states(self) -> set[PartitionState]:
        return _VALID_PREVIOUS_STATES[self]


_VALID_PREVIOUS_STATES = {
    PartitionState.NewPartition: {PartitionState.NonExistentPartition},
    PartitionState.OnlinePartition: {PartitionState.NewPartition, PartitionState.OnlinePartition,
                                     PartitionState.OfflinePartition},
    PartitionState.OfflinePartition: {PartitionState.NewPartition, PartitionState.OnlinePartition,
                                      PartitionState.OfflinePartition},
    PartitionState.NonExistentPartition: {PartitionState.OfflinePartition},
}


class PartitionStateMachine:
    """The partitions' states, kept only on the active controller (started at failover, cleared at resignation)."""

    def __init__(self, controller: KafkaController) -> None:
        self.controller = controller
        self.controller_context = controller.controller_context
        self.controller_id = controller.config.broker_id
        self.zk_utils = controller.zk_utils
        self.partition_state: dict[TopicPartition, PartitionState] = {}
        self.broker_request_batch = ControllerBrokerRequestBatch(controller)
        self.log = Logging("kafka.controller.PartitionStateMachine",
                           f"[PartitionStateMachine controllerId={self.controller_id}] ")
        self.state_change_logger = Logging("state.change.logger", f"[Controller id={self.controller_id}] ")

    @step("CT.failover.09")
    def startup(self) -> None:
        self.initialize_partition_state()
        self.trigger_online_partition_state_change()
        self.log.info("Started partition state machine with initial state -> %s",
                      {str(tp): s.name for tp, s in self.partition_state.items()})

    def shutdown(self) -> None:
        self.partition_state.clear()
        self.log.info("Stopped partition state machine")

    # Its own trace, linked to the caller, like handleStateChanges: elections come after the failover steps.
    def trigger_online_partition_state_change(self) -> None:
        """Every New or Offline partition not queued for deletion gets a leader, in one batch of requests."""
        try:
            self.broker_request_batch.new_batch()
            for topic_partition, partition_state in list(self.partition_state.items()):
                if self.controller.topic_deletion_manager.is_topic_queued_up_for_deletion(topic_partition.topic):
                    continue
                if partition_state in (PartitionState.OfflinePartition, PartitionState.NewPartition):
                    self.handle_state_change(topic_partition, PartitionState.OnlinePartition,
                                             self.controller.offline_partition_selector)
            self.broker_request_batch.send_requests_to_brokers(self.controller.epoch)
        except Exception as e:
            self.log.error("Error while moving some partitions to the online state", exc_info=e)
            self.broker_request_batch.clear()

    def partitions_in_state(self, state: PartitionState) -> set[TopicPartition]:
        return {tp for tp, s in self.partition_state.items() if s == state}

    # Its own trace, linked to the controller event: FIDELITY orders CT.psm after the failover steps.
    def handle_state_changes(self, partitions: set[TopicPartition], target_state: PartitionState,
                             leader_selector: PartitionLeaderSelector | None = None) -> None:
        if not partitions:
            return
        self.log.info("Invoking state change to %s for partitions %s", target_state.name,
                      ",".join(map(str, sorted(partitions))))
        try:
            self.broker_request_batch.new_batch()
            for topic_partition in sorted(partitions):
                self.handle_state_change(topic_partition, target_state, leader_selector)
            self.broker_request_batch.send_requests_to_brokers(self.controller.epoch)
        except Exception as e:
            self.log.error("Error while moving some partitions to %s state", target_state.name, exc_info=e)
            self.broker_request_batch.clear()

    def handle_state_change(self, topic_partition: TopicPartition, target_state: PartitionState,
                            leader_selector: PartitionLeaderSelector | None) -> None:
        """One partition's transition; a failure is logged to the state change log and leaves its state as it was."""
        curr_state = self.partition_state.setdefault(topic_partition, PartitionState.NonExistentPartition)
        try:
            self.assert_valid_transition(topic_partition, target_state)
            if target_state == PartitionState.OnlinePartition:
                if curr_state == PartitionState.NewPartition:
                    self.initialize_leader_and_isr_for_partition(topic_partition)
                else:
                    # Offline, or Online with a leader that has to change.
                    assert leader_selector is not None
                    self.elect_leader_for_partition(topic_partition, leader_selector)
            self.partition_state[topic_partition] = target_state
            event("CT.psm", self, topic_partition=topic_partition, curr_state=curr_state, target_state=target_state)
        except Exception as t:
            self.state_change_logger.error("Initiated state change for partition %s from %s to %s failed",
                                           topic_partition, curr_state.name, target_state.name, exc_info=t)

    def initialize_partition_state(self) -> None:
        """At failover: Online if the recorded leader is alive, Offline if not, New if no leader was ever chosen."""
        context = self.controller_context
        for topic_partition in context.partition_replica_assignment:
            current_leader_isr_and_epoch = context.partition_leadership_info.get(topic_partition)
            if current_leader_isr_and_epoch is None:
                self.partition_state[topic_partition] = PartitionState.NewPartition
            elif current_leader_isr_and_epoch.leader_and_isr.leader in context.live_broker_ids:
                self.partition_state[topic_partition] = PartitionState.OnlinePartition
            else:
                self.partition_state[topic_partition] = PartitionState.OfflinePartition

    def assert_valid_transition(self, topic_partition: TopicPartition, target_state: PartitionState) -> None:
        current = self.partition_state[topic_partition]
        if current not in target_state.valid_previous_states:
            raise IllegalStateException(
                f"Partition {topic_partition} should be in the "
                f"{','.join(s.name for s in target_state.valid_previous_states)} states before moving to "
                f"{target_state.name} state. Instead it is in {current.name} state")

    def initialize_leader_and_isr_for_partition(self, topic_partition: TopicPartition) -> None:
        """A new partition: its first live assigned replica leads at epoch 0, the live replicas are the ISR."""
        context = self.controller_context
        replica_assignment = list(context.partition_replica_assignment[topic_partition])
        live_assigned_replicas = [r for r in replica_assignment if r in context.live_broker_ids]
        if not live_assigned_replicas:
            fail_msg = (f"Controller {self.controller_id} epoch {self.controller.epoch} encountered error during state "
                        f"change of partition {topic_partition} from New to Online, assigned replicas are "
                        f"[{','.join(map(str, replica_assignment))}], live brokers are "
                        f"[{sorted(context.live_broker_ids)}]. No assigned replica is alive.")
            self.state_change_logger.error(fail_msg)
            raise StateChangeFailedException(fail_msg)
        leader_and_isr = LeaderAndIsr.initial(live_assigned_replicas[0], live_assigned_replicas)
        leader_isr_and_controller_epoch = LeaderIsrAndControllerEpoch(leader_and_isr, self.controller.epoch)
        try:
            self.zk_utils.create_persistent_path(
                get_topic_partition_leader_and_isr_path(topic_partition.topic, topic_partition.partition),
                leader_and_isr_zk_data(leader_and_isr, self.controller.epoch))
        except ZkNodeExistsException:
            existing = get_partition_leader_and_isr_for_topics(self.zk_utils, [topic_partition])[topic_partition]
            raise StateChangeFailedException(
                f"Encountered error while changing partition {topic_partition}'s state from New to Online since "
                f"LeaderAndIsr path already exists with value {existing.leader_and_isr} and controller epoch "
                f"{existing.controller_epoch}") from None
        context.partition_leadership_info[topic_partition] = leader_isr_and_controller_epoch
        self.broker_request_batch.add_leader_and_isr_request_for_brokers(
            live_assigned_replicas, topic_partition.topic, topic_partition.partition, leader_isr_and_controller_epoch,
            replica_assignment, is_new=True)

    def elect_leader_for_partition(self, topic_partition: TopicPartition,
                                   leader_selector: PartitionLeaderSelector) -> None:
        """Ask the selector, then compare-and-set the state znode; a lost race (ISR changed) reads and tries again."""
        context = self.controller_context
        try:
            zookeeper_path_update_succeeded = False
            new_leader_and_isr: LeaderAndIsr | None = None
            replicas_for_this_partition: list[int] = []
            while not zookeeper_path_update_succeeded:
                current_leader_isr_and_epoch = self.get_leader_isr_and_epoch_or_throw_exception(topic_partition)
                current_leader_and_isr = current_leader_isr_and_epoch.leader_and_isr
                controller_epoch = current_leader_isr_and_epoch.controller_epoch
                if controller_epoch > self.controller.epoch:
                    raise StateChangeFailedException(
                        f"aborted leader election for partition {topic_partition} since the LeaderAndIsr path was "
                        f"already written by another controller. This probably means that the current controller "
                        f"{self.controller_id} went through a soft failure and another controller was elected with "
                        f"epoch {controller_epoch}.")
                leader_and_isr, replicas = leader_selector.select_leader(topic_partition, current_leader_and_isr)
                update_succeeded, new_version = update_leader_and_isr(
                    self.zk_utils, topic_partition.topic, topic_partition.partition, leader_and_isr,
                    self.controller.epoch, current_leader_and_isr.zk_version)
                new_leader_and_isr = leader_and_isr.with_zk_version(new_version)
                zookeeper_path_update_succeeded = update_succeeded
                replicas_for_this_partition = replicas
            assert new_leader_and_isr is not None
            new_leader_isr_and_controller_epoch = LeaderIsrAndControllerEpoch(new_leader_and_isr,
                                                                              self.controller.epoch)
            context.partition_leadership_info[topic_partition] = new_leader_isr_and_controller_epoch
            self.state_change_logger.debug("Elected leader %d for Offline partition %s", new_leader_and_isr.leader,
                                           topic_partition)
            replicas = context.partition_replica_assignment[topic_partition]
            self.broker_request_batch.add_leader_and_isr_request_for_brokers(
                replicas_for_this_partition, topic_partition.topic, topic_partition.partition,
                new_leader_isr_and_controller_epoch, replicas)
        except LeaderElectionNotNeededException:
            pass  # already led as the selector would choose: the partition simply stays Online
        except (NoReplicaOnlineException, StateChangeFailedException):
            raise
        except Exception as e:
            raise StateChangeFailedException(f"Error while electing leader for partition {topic_partition} due to: "
                                             f"{e}") from e

    def get_leader_isr_and_epoch_or_throw_exception(
            self, topic_partition: TopicPartition) -> LeaderIsrAndControllerEpoch:
        found = get_partition_leader_and_isr_for_topics(self.zk_utils, [topic_partition]).get(topic_partition)
        if found is None:
            raise StateChangeFailedException(f"LeaderAndIsr information doesn't exist for partition {topic_partition} "
                                             f"in {self.partition_state.get(topic_partition)} state")
        return found
