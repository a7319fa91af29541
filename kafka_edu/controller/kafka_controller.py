"""Port of core/src/main/scala/kafka/controller/KafkaController.scala (Kafka 1.0.2): election, failover, leadership.

Every broker runs a KafkaController; the one whose ephemeral `/controller` znode exists is the active controller.
It bumps `/controller_epoch`, reads the cluster into the ControllerContext, and from then on decides who leads each
partition: the partition and replica state machines elect leaders when brokers and topics come and go, write the
choice to ZooKeeper and send it to the brokers (LeaderAndIsr, UpdateMetadata, StopReplica) over the channel manager.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from typing import Any

from kazoo.exceptions import NodeExistsError, NoNodeError

from kafka_edu.common.errors import (
    BrokerNotAvailableException,
    ControllerMovedException,
    IllegalStateException,
    KafkaException,
    StateChangeFailedException,
    ZkNodeExistsException,
)
from kafka_edu.controller.controller_channel_manager import ControllerBrokerRequestBatch, ControllerChannelManager
from kafka_edu.controller.controller_context import (
    ControllerContext,
    LeaderAndIsr,
    LeaderIsrAndControllerEpoch,
    get_all_brokers_in_cluster,
    get_all_topics,
    get_partition_leader_and_isr_for_topics,
    get_replica_assignment_for_topics,
    get_topic_partition_leader_and_isr_path,
)
from kafka_edu.controller.controller_event_manager import ControllerEvent, ControllerEventManager
from kafka_edu.controller.controller_state import ControllerState
from kafka_edu.controller.partition_leader_selector import (
    ControlledShutdownLeaderSelector,
    OfflinePartitionLeaderSelector,
)
from kafka_edu.controller.partition_state_machine import PartitionState, PartitionStateMachine
from kafka_edu.controller.replica_state_machine import PartitionAndReplica, ReplicaState, ReplicaStateMachine
from kafka_edu.controller.topic_deletion_manager import TopicDeletionManager
from kafka_edu.controller.zk_subscriptions import ZkSubscriptions
from kafka_edu.log.log import TopicPartition
from kafka_edu.protocol.api_keys import ApiKeys
from kafka_edu.protocol.errors import Errors
from kafka_edu.server.kafka_config import KafkaConfig
from kafka_edu.tracing import event, set_attributes, span, step
from kafka_edu.utils.kafka_logging import Logging
from kafka_edu.utils.log_dir_utils import delete_log_dir_events
from kafka_edu.utils.zk_utils import (
    BROKER_IDS_PATH,
    BROKER_TOPICS_PATH,
    CONTROLLER_EPOCH_PATH,
    CONTROLLER_PATH,
    DELETE_TOPICS_PATH,
    ZkStateListener,
    ZkUtils,
)

INITIAL_CONTROLLER_EPOCH = 1
# LeaderAndIsr.NoLeader: the state znode's leader while a partition has none.
NO_LEADER = -1
INITIAL_CONTROLLER_EPOCH_ZK_VERSION = 1

_log = Logging("kafka.controller.KafkaController")


def parse_controller_id(controller_info_string: str) -> int:
    """KafkaController.parseControllerId: the `brokerid` of `/controller`'s JSON, or the bare id of old brokers."""
    try:
        return int(json.loads(controller_info_string)["brokerid"])
    except (ValueError, KeyError, TypeError):
        _log.warning("Failed to parse the controller info as json. Probably this controller is still using the old "
                     "format [%s] to store the broker id in zookeeper", controller_info_string)
        try:
            return int(controller_info_string)
        except ValueError as t:
            raise KafkaException(f"Failed to parse the controller info: {controller_info_string}. This is neither "
                                 "the new or the old format.") from t


def controller_zk_data(broker_id: int, timestamp: int) -> str:
    """ZkUtils.controllerZkData: what the elected broker writes into `/controller`."""
    return json.dumps({"version": 1, "brokerid": broker_id, "timestamp": str(timestamp)}, separators=(",", ":"))


class KafkaController:
    """One broker's controller module: always running its event thread, active only while it owns `/controller`."""

    def __init__(self, config: KafkaConfig, zk_utils: ZkUtils) -> None:
        self.config = config
        self.zk_utils = zk_utils
        self.log = Logging("kafka.controller.KafkaController", f"[Controller id={config.broker_id}] ")
        self.controller_context = ControllerContext(zk_utils)
        self.event_manager = ControllerEventManager(lambda _: self.update_metrics())
        self.zk_subscriptions = ZkSubscriptions(zk_utils.zk_client)
        # Started in initializeControllerContext, shut down with the context at resignation.
        self.controller_channel_manager: ControllerChannelManager | None = None

        self.topic_deletion_manager = TopicDeletionManager(self, self.event_manager)
        self.offline_partition_selector = OfflinePartitionLeaderSelector(self.controller_context, config)
        self.controlled_shutdown_partition_leader_selector = ControlledShutdownLeaderSelector(self.controller_context)
        self.broker_request_batch = ControllerBrokerRequestBatch(self)
        self.replica_state_machine = ReplicaStateMachine(self)
        self.partition_state_machine = PartitionStateMachine(self)

        self.broker_change_listener = BrokerChangeListener(self, self.event_manager)
        self.topic_change_listener = TopicChangeListener(self, self.event_manager)
        self.topic_deletion_listener = TopicDeletionListener(self, self.event_manager)
        self.partition_modifications_listeners: dict[str, PartitionModificationsListener] = {}

        # The broker id in /controller as this broker last saw it (-1: none); written only by the event thread.
        self.active_controller_id = -1
        # Kafka's GlobalTopicCount / GlobalPartitionCount gauges: non-zero only on the active controller.
        self.global_topic_count = 0
        self.global_partition_count = 0

    @property
    def epoch(self) -> int:
        return self.controller_context.epoch

    @property
    def state(self) -> ControllerState:
        return self.event_manager.state

    @property
    def is_active(self) -> bool:
        return self.active_controller_id == self.config.broker_id

    # -- lifecycle ------------------------------------------------------------------------------------------------

    def startup(self) -> None:
        """Not an election yet: queue Startup, which runs on the event thread once it starts."""
        with step("CT.startup.1"):
            self.event_manager.put(Startup(self))
            self.event_manager.start()

    def shutdown(self) -> None:
        self.event_manager.close()
        self.on_controller_resignation()

    def shutdown_broker(self, id_: int, controlled_shutdown_callback: Callable[[Any], None]) -> None:
        """A broker asks to shut down: queue ControlledShutdown; the callback gets the partitions it still leads, or
        the exception that stopped the controller."""
        self.event_manager.put(ControlledShutdown(self, id_, controlled_shutdown_callback))

    # -- failover and resignation ---------------------------------------------------------------------------------

    @span("KafkaController.onControllerFailover")
    def on_controller_failover(self) -> None:
        """Become the controller: a new epoch, watches first, then the cluster as ZooKeeper has it now.

        Any failure here reaches `elect`, which gives the controllership up again.
        """
        self.log.info("Starting become controller state transition")
        with step("CT.failover.01"):
            self.read_controller_epoch_from_zookeeper()
        with step("CT.failover.02"):
            self.increment_controller_epoch()
        with step("CT.failover.03"):
            set_attributes({"kafka.zk.deleted": delete_log_dir_events(self.zk_utils)})

        # Watches go in before the reads, so no change between reading and watching is missed. The reassignment,
        # ISR-change, preferred-election and log-dir listeners come with the features they drive.
        with span("KafkaController.registerTopicChangeListener", {"kafka.step": "CT.failover.04"}):
            self.register_topic_change_listener()
        with span("KafkaController.registerTopicDeletionListener", {"kafka.step": "CT.failover.04"}):
            self.register_topic_deletion_listener()
        with span("KafkaController.registerBrokerChangeListener", {"kafka.step": "CT.failover.04"}):
            self.register_broker_change_listener()

        with step("CT.failover.05"):
            self.initialize_controller_context()

        with step("CT.failover.06"):
            topics_to_be_deleted, topics_ineligible_for_deletion = self.fetch_topic_deletions_in_progress()
            self.log.info("Initializing topic deletion manager")
            self.topic_deletion_manager.init(topics_to_be_deleted, topics_ineligible_for_deletion)

        # Brokers learn the live brokers and the leaders as recorded before the state machines change anything, so
        # that the LeaderAndIsr that follows finds them able to reach the leaders.
        with step("CT.failover.07"):
            self.send_update_metadata_request(self.controller_context.live_or_shutting_down_broker_ids)

        with step("CT.failover.08"):
            self.replica_state_machine.startup()
        with step("CT.failover.09"):
            self.partition_state_machine.startup()

        for topic in sorted(self.controller_context.all_topics):
            with step("CT.failover.10", {"kafka.topic": topic}):
                self.register_partition_modifications_listener(topic)
        self.log.info("Ready to serve as the new controller with epoch %d", self.epoch)
        # 1.0.2 resumes partition reassignments here (CT.failover.11): not ported.
        with step("CT.failover.12"):
            self.topic_deletion_manager.try_topic_deletion()
        # Pending preferred replica elections (CT.failover.13) and the scheduler (CT.failover.14): not ported.

    def on_controller_resignation(self) -> None:
        """Stop acting as the controller: drop the watches the failover set and forget the cluster."""
        with step("CT.resign", {"kafka.controller.epoch": self.epoch}):
            self.log.debug("Resigning")
            # 1.0.2 first drops the ISR-change, reassignment, preferred-election and log-dir listeners and stops the
            # controller scheduler: none of those exist here.
            self.topic_deletion_manager.reset()
            self.global_topic_count = 0
            self.global_partition_count = 0
            self.partition_state_machine.shutdown()
            self.deregister_topic_change_listener()
            for topic in list(self.partition_modifications_listeners):
                self.deregister_partition_modifications_listener(topic)
            self.deregister_topic_deletion_listener()
            self.replica_state_machine.shutdown()
            self.deregister_broker_change_listener()
            self.reset_controller_context()
            self.log.info("Resigned")

    def read_controller_epoch_from_zookeeper(self) -> None:
        if self.zk_utils.path_exists(CONTROLLER_EPOCH_PATH):
            epoch_data, stat = self.zk_utils.read_data_maybe_null(CONTROLLER_EPOCH_PATH)
            self.controller_context.epoch = int(epoch_data)
            self.controller_context.epoch_zk_version = stat.version
            self.log.info("Initialized controller epoch to %d and zk version %d", self.controller_context.epoch,
                          self.controller_context.epoch_zk_version)
        set_attributes({"kafka.controller.epoch": self.controller_context.epoch,
                        "kafka.controller.epoch_zk_version": self.controller_context.epoch_zk_version})

    def increment_controller_epoch(self) -> None:
        """Write epoch + 1 only if `/controller_epoch` is still at the version read: a compare-and-set in ZooKeeper.

        As in 1.0.2, a lost compare-and-set is raised and caught here (only logged); losing the race to create the
        first epoch is raised to `elect`.
        """
        context = self.controller_context
        try:
            new_controller_epoch = context.epoch + 1
            update_succeeded, new_version = self.zk_utils.conditional_update_persistent_path(
                CONTROLLER_EPOCH_PATH, str(new_controller_epoch), context.epoch_zk_version)
            if not update_succeeded and not self.zk_utils.path_exists(CONTROLLER_EPOCH_PATH):
                raise NoNodeError(CONTROLLER_EPOCH_PATH)
            if not update_succeeded:
                raise ControllerMovedException("Controller moved to another broker. Aborting controller startup "
                                               "procedure")
            context.epoch_zk_version = new_version
            context.epoch = new_controller_epoch
        except NoNodeError:
            # No epoch yet: this is the first controller. Another broker may create it first.
            try:
                self.zk_utils.zk_client.create(CONTROLLER_EPOCH_PATH, str(INITIAL_CONTROLLER_EPOCH).encode())
                context.epoch = INITIAL_CONTROLLER_EPOCH
                # 1.0.2 records version 1 though the new znode is at 0; the next failover reads the real one.
                context.epoch_zk_version = INITIAL_CONTROLLER_EPOCH_ZK_VERSION
            except NodeExistsError:
                raise ControllerMovedException("Controller moved to another broker. Aborting controller startup "
                                               "procedure") from None
            except Exception as oe:
                self._error_while_incrementing(oe)
        except Exception as oe:
            self._error_while_incrementing(oe)
        self.log.info("Incremented epoch to %d", context.epoch)
        set_attributes({"kafka.controller.epoch": context.epoch,
                        "kafka.controller.epoch_zk_version": context.epoch_zk_version})

    def _error_while_incrementing(self, e: Exception) -> None:
        self.log.error("Error while incrementing controller epoch", exc_info=e)
        event(None, "exception", {"exception.type": type(e).__name__, "exception.message": str(e)})

    def initialize_controller_context(self) -> None:
        context = self.controller_context
        context.live_brokers = get_all_brokers_in_cluster(self.zk_utils)
        context.all_topics = set(get_all_topics(self.zk_utils))
        context.partition_replica_assignment = get_replica_assignment_for_topics(self.zk_utils, context.all_topics)
        context.partition_leadership_info = {}
        context.shutting_down_broker_ids = set()
        self.update_leader_and_isr_cache()
        self.start_channel_manager()
        # 1.0.2 reads pending partition reassignments here: not ported.
        self.log.info("Currently active brokers in the cluster: %s", sorted(context.live_broker_ids))
        self.log.info("Currently shutting brokers in the cluster: %s", sorted(context.shutting_down_broker_ids))
        self.log.info("Current list of topics in the cluster: %s", sorted(context.all_topics))
        set_attributes({"kafka.brokers.live": sorted(context.live_broker_ids),
                        "kafka.topics": sorted(context.all_topics),
                        "kafka.partitions": len(context.partition_replica_assignment),
                        "kafka.partitions.with_leader_and_isr": len(context.partition_leadership_info)})

    def update_leader_and_isr_cache(self, partitions: set[TopicPartition] | None = None) -> None:
        if partitions is None:
            partitions = set(self.controller_context.partition_replica_assignment)
        leader_and_isr_info = get_partition_leader_and_isr_for_topics(self.zk_utils, partitions)
        self.controller_context.partition_leadership_info.update(leader_and_isr_info)

    def start_channel_manager(self) -> None:
        self.controller_channel_manager = ControllerChannelManager(self.controller_context, self.config)
        self.controller_channel_manager.startup()

    def fetch_topic_deletions_in_progress(self) -> tuple[set[str], set[str]]:
        """Topics queued under `/admin/delete_topics`, and those of them with a replica on a dead broker."""
        context = self.controller_context
        topics_to_be_deleted = set(self.zk_utils.get_children(DELETE_TOPICS_PATH))
        topics_with_offline_replicas = {tp.topic for tp, replicas in context.partition_replica_assignment.items()
                                        if any(r not in context.live_broker_ids for r in replicas)}
        self.log.info("List of topics to be deleted: %s", ",".join(sorted(topics_to_be_deleted)))
        self.log.info("List of topics ineligible for deletion: %s", ",".join(sorted(topics_with_offline_replicas)))
        return topics_to_be_deleted, topics_with_offline_replicas

    def reset_controller_context(self) -> None:
        if self.controller_channel_manager is not None:
            self.controller_channel_manager.shutdown()
            self.controller_channel_manager = None
        context = self.controller_context
        context.shutting_down_broker_ids.clear()
        context.epoch = 0
        context.epoch_zk_version = 0
        context.all_topics = set()
        context.partition_replica_assignment.clear()
        context.partition_leadership_info.clear()
        context.live_brokers = []

    def update_metrics(self) -> None:
        """The event manager's eventProcessedListener: refresh the gauges after every event."""
        active = self.is_active
        self.global_topic_count = len(self.controller_context.all_topics) if active else 0
        self.global_partition_count = len(self.controller_context.partition_leadership_info) if active else 0

    # -- talking to brokers ---------------------------------------------------------------------------------------

    def send_request(self, broker_id: int, api_key: ApiKeys, api_version: int, body: object,
                     callback: Callable[[object], None] | None = None) -> None:
        if self.controller_channel_manager is not None:
            self.controller_channel_manager.send_request(broker_id, api_key, api_version, body, callback)

    def send_update_metadata_request(self, brokers: Iterable[int],
                                     partitions: set[TopicPartition] | None = None) -> None:
        """Every given broker learns the live brokers and the given partitions' state (all partitions if none)."""
        try:
            self.broker_request_batch.new_batch()
            self.broker_request_batch.add_update_metadata_request_for_brokers(brokers, partitions or set())
            self.broker_request_batch.send_requests_to_brokers(self.epoch)
        except IllegalStateException as e:
            self.handle_illegal_state(e)

    def handle_illegal_state(self, e: IllegalStateException) -> None:
        """A batch left in an impossible state: give the controllership to someone with a clean slate."""
        self.broker_request_batch.clear()
        self.log.error("Forcing the controller to resign", exc_info=e)
        self.trigger_controller_move()
        raise e

    # -- leadership in ZooKeeper --------------------------------------------------------------------------------------

    def update_leader_and_isr(self, topic_partition: TopicPartition, leader_and_isr: LeaderAndIsr,
                              expected_zk_version: int) -> tuple[bool, int]:
        """ReplicationUtils.updateLeaderAndIsr: compare-and-set the partition's state znode with our epoch."""
        path = get_topic_partition_leader_and_isr_path(topic_partition.topic, topic_partition.partition)
        return self.zk_utils.conditional_update_persistent_path(path, leader_and_isr.to_json(self.epoch),
                                                                expected_zk_version)

    def remove_replica_from_isr(self, topic: str, partition: int,
                                replica_id: int) -> LeaderIsrAndControllerEpoch | None:
        """Take a dead replica out of the ISR (and the leadership, if it led), retrying on a lost compare-and-set.

        The last ISR member stays when unclean election is off, so that it can lead again when it comes back.
        """
        topic_partition = TopicPartition(topic, partition)
        final_leader_isr_and_controller_epoch: LeaderIsrAndControllerEpoch | None = None
        zk_write_complete_or_unnecessary = False
        while not zk_write_complete_or_unnecessary:
            leader_isr_and_epoch = get_partition_leader_and_isr_for_topics(self.zk_utils, [topic_partition]).get(
                topic_partition)
            if leader_isr_and_epoch is None:
                self.log.warning("Cannot remove replica %d from ISR of %s - leaderAndIsr is empty.", replica_id,
                                 topic_partition)
                break
            leader_and_isr = leader_isr_and_epoch.leader_and_isr
            if leader_isr_and_epoch.controller_epoch > self.epoch:
                raise StateChangeFailedException(
                    f"Leader and isr path written by another controller. This probably means the current controller "
                    f"with epoch {self.epoch} went through a soft failure and another controller was elected with "
                    f"epoch {leader_isr_and_epoch.controller_epoch}. Aborting state change by this controller")
            if replica_id in leader_and_isr.isr:
                new_leader = NO_LEADER if replica_id == leader_and_isr.leader else leader_and_isr.leader
                new_isr = [b for b in leader_and_isr.isr if b != replica_id]
                if not new_isr and not self.offline_partition_selector.unclean_leader_election_enable(topic):
                    self.log.info("Retaining last ISR %d of partition %s since unclean leader election is disabled",
                                  replica_id, topic_partition)
                    new_isr = list(leader_and_isr.isr)
                new_leader_and_isr = leader_and_isr.new_leader_and_isr(new_leader, new_isr)
                update_succeeded, new_version = self.update_leader_and_isr(topic_partition, new_leader_and_isr,
                                                                           leader_and_isr.zk_version)
                leader_with_new_version = LeaderAndIsr(new_leader_and_isr.leader, new_leader_and_isr.leader_epoch,
                                                       new_leader_and_isr.isr, new_version)
                final_leader_isr_and_controller_epoch = LeaderIsrAndControllerEpoch(leader_with_new_version,
                                                                                    self.epoch)
                self.controller_context.partition_leadership_info[topic_partition] = \
                    final_leader_isr_and_controller_epoch
                if update_succeeded:
                    self.log.info("New leader and ISR for partition %s is %s", topic_partition,
                                  leader_with_new_version)
                zk_write_complete_or_unnecessary = update_succeeded
            else:
                self.log.warning("Cannot remove replica %d from ISR of partition %s since it is not in the ISR. "
                                 "Leader = %d ; ISR = %s", replica_id, topic_partition, leader_and_isr.leader,
                                 leader_and_isr.isr)
                final_leader_isr_and_controller_epoch = LeaderIsrAndControllerEpoch(leader_and_isr, self.epoch)
                self.controller_context.partition_leadership_info[topic_partition] = \
                    final_leader_isr_and_controller_epoch
                zk_write_complete_or_unnecessary = True
        return final_leader_isr_and_controller_epoch

    # -- brokers and topics come and go -----------------------------------------------------------------------------

    def on_broker_startup(self, new_brokers: list[int]) -> None:
        """Everyone learns of the new brokers; their replicas go Online and leaderless partitions get a leader."""
        context = self.controller_context
        self.log.info("New broker startup callback for %s", ",".join(map(str, new_brokers)))
        self.send_update_metadata_request(context.live_or_shutting_down_broker_ids)
        all_replicas_on_new_brokers = self.replicas_on_brokers(set(new_brokers))
        self.replica_state_machine.handle_state_changes(all_replicas_on_new_brokers, ReplicaState.OnlineReplica)
        self.partition_state_machine.trigger_online_partition_state_change()
        replicas_for_topics_to_be_deleted = {r for r in all_replicas_on_new_brokers
                                             if self.topic_deletion_manager.is_topic_queued_up_for_deletion(r.topic)}
        if replicas_for_topics_to_be_deleted:
            self.log.info("Some replicas %s for topics scheduled for deletion %s are on the newly restarted brokers "
                          "%s. Signaling restart of topic deletion for these topics", replicas_for_topics_to_be_deleted,
                          sorted({r.topic for r in replicas_for_topics_to_be_deleted}), new_brokers)
            self.topic_deletion_manager.resume_deletion_for_topics({r.topic for r in replicas_for_topics_to_be_deleted})

    def on_broker_failure(self, dead_brokers: list[int]) -> None:
        context = self.controller_context
        self.log.info("Broker failure callback for %s", ",".join(map(str, dead_brokers)))
        dead_brokers_that_were_shutting_down = [b for b in dead_brokers if b in context.shutting_down_broker_ids]
        context.shutting_down_broker_ids -= set(dead_brokers)
        self.log.info("Removed %s from list of shutting down brokers.", dead_brokers_that_were_shutting_down)
        self.on_replicas_become_offline(self.replicas_on_brokers(set(dead_brokers)))

    def on_replicas_become_offline(self, new_offline_replicas: set[PartitionAndReplica]) -> None:
        """Partitions that lost their leader elect another (OfflinePartitionLeaderSelector); the replicas go Offline."""
        context = self.controller_context
        deletion = self.topic_deletion_manager
        new_offline_replicas_for_deletion = {r for r in new_offline_replicas
                                             if deletion.is_topic_queued_up_for_deletion(r.topic)}
        new_offline_replicas_not_for_deletion = new_offline_replicas - new_offline_replicas_for_deletion
        partitions_without_leader = {tp for tp, info in context.partition_leadership_info.items()
                                     if info.leader_and_isr.leader not in context.live_broker_ids
                                     and not deletion.is_topic_queued_up_for_deletion(tp.topic)}
        self.partition_state_machine.handle_state_changes(partitions_without_leader, PartitionState.OfflinePartition)
        self.partition_state_machine.trigger_online_partition_state_change()
        self.replica_state_machine.handle_state_changes(new_offline_replicas_not_for_deletion,
                                                        ReplicaState.OfflineReplica)
        if new_offline_replicas_for_deletion:
            deletion.fail_replica_deletion(new_offline_replicas_for_deletion)
        # With no election, nobody has heard of the offline replicas yet.
        if not partitions_without_leader:
            self.send_update_metadata_request(context.live_or_shutting_down_broker_ids)

    def on_new_topic_creation(self, topics: set[str], new_partitions: set[TopicPartition]) -> None:
        self.log.info("New topic creation callback for %s", ",".join(map(str, sorted(new_partitions))))
        for topic in sorted(topics):
            self.register_partition_modifications_listener(topic)
        self.on_new_partition_creation(new_partitions)

    def on_new_partition_creation(self, new_partitions: set[TopicPartition]) -> None:
        """New → Online for partitions and replicas: the first live assigned replica leads, the live ones are ISR."""
        self.log.info("New partition creation callback for %s", ",".join(map(str, sorted(new_partitions))))
        self.partition_state_machine.handle_state_changes(new_partitions, PartitionState.NewPartition)
        self.replica_state_machine.handle_state_changes(self.replicas_for_partition(new_partitions),
                                                        ReplicaState.NewReplica)
        self.partition_state_machine.handle_state_changes(new_partitions, PartitionState.OnlinePartition,
                                                          self.offline_partition_selector)
        self.replica_state_machine.handle_state_changes(self.replicas_for_partition(new_partitions),
                                                        ReplicaState.OnlineReplica)

    def replicas_on_brokers(self, broker_ids: set[int]) -> set[PartitionAndReplica]:
        """ControllerContext.replicasOnBrokers."""
        return {PartitionAndReplica(tp.topic, tp.partition, r)
                for tp, replicas in self.controller_context.partition_replica_assignment.items()
                for r in replicas if r in broker_ids}

    def replicas_for_partition(self, partitions: set[TopicPartition]) -> set[PartitionAndReplica]:
        """ControllerContext.replicasForPartition."""
        assignment = self.controller_context.partition_replica_assignment
        return {PartitionAndReplica(tp.topic, tp.partition, r) for tp in partitions for r in assignment.get(tp, [])}

    def topic_deletion_stop_replica_result(self, response: object, replica_id: int) -> ControllerEvent:
        return TopicDeletionStopReplicaResult(self, response, replica_id)

    # -- election -------------------------------------------------------------------------------------------------

    def get_controller_id(self) -> int:
        return self.zk_utils.get_controller_id()

    def elect(self) -> None:
        """Try to become the controller by creating the ephemeral `/controller`; ZooKeeper lets exactly one win."""
        with step("CT.elect") as s:
            timestamp = int(time.time() * 1000)
            elect_string = controller_zk_data(self.config.broker_id, timestamp)

            self.active_controller_id = self.get_controller_id()
            # Startup and a deletion watch can both lead here: if a controller exists, leave it be.
            if self.active_controller_id != -1:
                self.log.debug("Broker %d has been elected as the controller, so stopping the election process.",
                               self.active_controller_id)
                s.set_attributes({"kafka.controller.id": self.active_controller_id, "kafka.controller.won": False})
                return

            try:
                # ZKCheckedEphemeral: the znode may already be ours if a create was retried after a lost connection.
                self.zk_utils._create_checked_ephemeral(CONTROLLER_PATH, elect_string)
                self.log.info("%d successfully elected as the controller", self.config.broker_id)
                self.active_controller_id = self.config.broker_id
                s.set_attributes({"kafka.controller.id": self.active_controller_id, "kafka.controller.won": True})
                self.on_controller_failover()
                s.set_attributes({"kafka.controller.epoch": self.epoch})
            except ZkNodeExistsException:
                # Someone else created it first.
                self.active_controller_id = self.get_controller_id()
                s.set_attributes({"kafka.controller.id": self.active_controller_id, "kafka.controller.won": False})
                if self.active_controller_id != -1:
                    self.log.debug("Broker %d was elected as controller instead of broker %d",
                                   self.active_controller_id, self.config.broker_id)
                else:
                    self.log.warning("A controller has been elected but just resigned, this will result in another "
                                     "round of election")
            except Exception as e2:
                self.log.error("Error while electing or becoming controller on broker %d", self.config.broker_id,
                               exc_info=e2)
                event(None, "exception", {"exception.type": type(e2).__name__, "exception.message": str(e2)})
                self.trigger_controller_move()

    @span("KafkaController.triggerControllerMove")
    def trigger_controller_move(self) -> None:
        """Give the controllership up: resign, and delete `/controller` so every broker elects again."""
        self.on_controller_resignation()
        self.active_controller_id = -1
        self.zk_utils.delete_path_recursive(CONTROLLER_PATH)

    # -- ZooKeeper listeners --------------------------------------------------------------------------------------

    def register_session_expiration_listener(self) -> None:
        self.zk_utils.subscribe_state_changes(SessionExpirationListener(self, self.event_manager))

    def register_controller_change_listener(self) -> None:
        self.zk_subscriptions.subscribe_data_changes(CONTROLLER_PATH,
                                                     ControllerChangeListener(self, self.event_manager))

    def register_broker_change_listener(self) -> None:
        self.zk_subscriptions.subscribe_child_changes(BROKER_IDS_PATH, self.broker_change_listener)

    def deregister_broker_change_listener(self) -> None:
        self.zk_subscriptions.unsubscribe_child_changes(BROKER_IDS_PATH, self.broker_change_listener)

    def register_topic_change_listener(self) -> None:
        self.zk_subscriptions.subscribe_child_changes(BROKER_TOPICS_PATH, self.topic_change_listener)

    def deregister_topic_change_listener(self) -> None:
        self.zk_subscriptions.unsubscribe_child_changes(BROKER_TOPICS_PATH, self.topic_change_listener)

    def register_topic_deletion_listener(self) -> None:
        self.zk_subscriptions.subscribe_child_changes(DELETE_TOPICS_PATH, self.topic_deletion_listener)

    def deregister_topic_deletion_listener(self) -> None:
        self.zk_subscriptions.unsubscribe_child_changes(DELETE_TOPICS_PATH, self.topic_deletion_listener)

    def register_partition_modifications_listener(self, topic: str) -> None:
        if topic in self.partition_modifications_listeners:
            return
        listener = PartitionModificationsListener(self, self.event_manager, topic)
        self.partition_modifications_listeners[topic] = listener
        self.zk_subscriptions.subscribe_data_changes(f"{BROKER_TOPICS_PATH}/{topic}", listener)

    def deregister_partition_modifications_listener(self, topic: str) -> None:
        listener = self.partition_modifications_listeners.pop(topic, None)
        if listener is not None:
            self.zk_subscriptions.unsubscribe_data_changes(f"{BROKER_TOPICS_PATH}/{topic}", listener)


# -- events (case classes inside KafkaController in 1.0.2) -------------------------------------------------------

class Startup(ControllerEvent):
    def __init__(self, controller: KafkaController) -> None:
        self.controller = controller

    @property
    def state(self) -> ControllerState:
        return ControllerState.ControllerChange

    def process(self) -> None:
        with step("CT.startup.2"):
            self.controller.register_session_expiration_listener()
            self.controller.register_controller_change_listener()
            self.controller.elect()


class ControllerChange(ControllerEvent):
    """`/controller` now names `new_controller_id`: if that is no longer us, resign."""

    def __init__(self, controller: KafkaController, new_controller_id: int) -> None:
        self.controller = controller
        self.new_controller_id = new_controller_id

    @property
    def state(self) -> ControllerState:
        return ControllerState.ControllerChange

    def process(self) -> None:
        c = self.controller
        with step("CT.change", {"kafka.controller.id": self.new_controller_id}):
            was_active_before_change = c.is_active
            c.active_controller_id = self.new_controller_id
            if was_active_before_change and not c.is_active:
                c.on_controller_resignation()


class Reelect(ControllerEvent):
    """`/controller` was deleted, or our session was replaced: resign if we lost it, then run for election."""

    def __init__(self, controller: KafkaController) -> None:
        self.controller = controller

    @property
    def state(self) -> ControllerState:
        return ControllerState.ControllerChange

    def process(self) -> None:
        c = self.controller
        with step("CT.reelect"):
            was_active_before_change = c.is_active
            c.active_controller_id = c.get_controller_id()
            set_attributes({"kafka.controller.id": c.active_controller_id})
            if was_active_before_change and not c.is_active:
                c.on_controller_resignation()
            c.elect()


class BrokerChange(ControllerEvent):
    """The children of `/brokers/ids` changed: new brokers get a channel and their replicas, dead ones lose theirs."""

    def __init__(self, controller: KafkaController, current_broker_list: list[str]) -> None:
        self.controller = controller
        self.current_broker_list = current_broker_list

    @property
    def state(self) -> ControllerState:
        return ControllerState.BrokerChange

    def process(self) -> None:
        c = self.controller
        if not c.is_active:
            return
        with step("CT.broker"):
            context = c.controller_context
            # Read the list again rather than trusting the event's: later changes get handled in this one event.
            cur_brokers = get_all_brokers_in_cluster(c.zk_utils)
            cur_broker_ids = {b.id for b in cur_brokers}
            live_or_shutting_down_broker_ids = context.live_or_shutting_down_broker_ids
            new_broker_ids = cur_broker_ids - live_or_shutting_down_broker_ids
            dead_broker_ids = live_or_shutting_down_broker_ids - cur_broker_ids
            new_brokers = [b for b in cur_brokers if b.id in new_broker_ids]
            context.live_brokers = cur_brokers
            c.log.info("Newly added brokers: %s, deleted brokers: %s, all live brokers: %s",
                       ",".join(map(str, sorted(new_broker_ids))), ",".join(map(str, sorted(dead_broker_ids))),
                       ",".join(map(str, sorted(cur_broker_ids))))
            set_attributes({"kafka.brokers.new": sorted(new_broker_ids), "kafka.brokers.dead": sorted(dead_broker_ids),
                            "kafka.brokers.live": sorted(cur_broker_ids)})
            assert c.controller_channel_manager is not None
            for broker in new_brokers:
                c.controller_channel_manager.add_broker(broker)
            for broker_id in dead_broker_ids:
                c.controller_channel_manager.remove_broker(broker_id)
            if new_broker_ids:
                with span("KafkaController.onBrokerStartup", {"kafka.brokers": sorted(new_broker_ids)}):
                    c.on_broker_startup(sorted(new_broker_ids))
            if dead_broker_ids:
                with span("KafkaController.onBrokerFailure", {"kafka.brokers": sorted(dead_broker_ids)}):
                    c.on_broker_failure(sorted(dead_broker_ids))


class ControlledShutdown(ControllerEvent):
    """A broker about to stop: its led partitions get another leader, it leaves the ISR of the others; the callback
    gets the replicated partitions it still leads (or the exception)."""

    def __init__(self, controller: KafkaController, id_: int,
                 controlled_shutdown_callback: Callable[[Any], None]) -> None:
        self.controller = controller
        self.id = id_
        self.controlled_shutdown_callback = controlled_shutdown_callback

    @property
    def state(self) -> ControllerState:
        return ControllerState.ControlledShutdown

    def process(self) -> None:
        with step("CT.shutdown", {"kafka.shutdown.broker.id": self.id}) as s:
            try:
                result: Any = self.do_controlled_shutdown(self.id)
                s.set_attributes({"kafka.partitions.remaining": [str(tp) for tp in sorted(result)]})
            except Exception as e:
                event(None, "exception", {"exception.type": type(e).__name__, "exception.message": str(e)})
                result = e
        self.controlled_shutdown_callback(result)

    def do_controlled_shutdown(self, id_: int) -> set[TopicPartition]:
        c = self.controller
        if not c.is_active:
            raise ControllerMovedException("Controller moved to another broker. Aborting controlled shutdown")
        c.log.info("Shutting down broker %d", id_)
        context = c.controller_context
        if id_ not in context.live_or_shutting_down_broker_ids:
            raise BrokerNotAvailableException(f"Broker id {id_} does not exist.")
        context.shutting_down_broker_ids.add(id_)
        c.log.debug("All shutting down brokers: %s", ",".join(map(str, sorted(context.shutting_down_broker_ids))))
        c.log.debug("Live brokers: %s", ",".join(map(str, sorted(context.live_broker_ids))))

        partitions_to_act_on = {tp for tp in context.partitions_on_broker(id_)
                                if len(context.partition_replica_assignment[tp]) > 1
                                and tp in context.partition_leadership_info}
        partitions_led_by_broker = {tp for tp in partitions_to_act_on
                                    if context.partition_leadership_info[tp].leader_and_isr.leader == id_}
        partitions_followed_by_broker = partitions_to_act_on - partitions_led_by_broker
        set_attributes({"kafka.partitions.led": [str(tp) for tp in sorted(partitions_led_by_broker)],
                        "kafka.partitions.followed": [str(tp) for tp in sorted(partitions_followed_by_broker)]})
        c.partition_state_machine.handle_state_changes(partitions_led_by_broker, PartitionState.OnlinePartition,
                                                       c.controlled_shutdown_partition_leader_selector)
        try:
            c.broker_request_batch.new_batch()
            for tp in sorted(partitions_followed_by_broker):
                c.broker_request_batch.add_stop_replica_request_for_brokers([id_], tp.topic, tp.partition,
                                                                            delete_partition=False)
            c.broker_request_batch.send_requests_to_brokers(c.epoch)
        except IllegalStateException as e:
            c.handle_illegal_state(e)
        # A follower leaves the ISR in ZooKeeper, and the leader hears of it.
        c.replica_state_machine.handle_state_changes(
            {PartitionAndReplica(tp.topic, tp.partition, id_) for tp in partitions_followed_by_broker},
            ReplicaState.OfflineReplica)
        return {tp for tp, info in context.partition_leadership_info.items()
                if info.leader_and_isr.leader == id_ and len(context.partition_replica_assignment.get(tp, [])) > 1}


class TopicChange(ControllerEvent):
    """The children of `/brokers/topics` changed: new topics' partitions get leaders (onNewTopicCreation)."""

    def __init__(self, controller: KafkaController, topics: set[str]) -> None:
        self.controller = controller
        self.topics = topics

    @property
    def state(self) -> ControllerState:
        return ControllerState.TopicChange

    def process(self) -> None:
        c = self.controller
        if not c.is_active:
            return
        with step("CT.topic"):
            context = c.controller_context
            current_children = set(get_all_topics(c.zk_utils))
            new_topics = current_children - context.all_topics
            deleted_topics = context.all_topics - current_children
            context.all_topics = current_children

            added_partition_replica_assignment = get_replica_assignment_for_topics(c.zk_utils, new_topics)
            context.partition_replica_assignment = {tp: replicas for tp, replicas
                                                    in context.partition_replica_assignment.items()
                                                    if tp.topic not in deleted_topics}
            context.partition_replica_assignment.update(added_partition_replica_assignment)
            c.log.info("New topics: [%s], deleted topics: [%s], new partition replica assignment [%s]",
                       sorted(new_topics), sorted(deleted_topics), added_partition_replica_assignment)
            set_attributes({"kafka.topics.new": sorted(new_topics), "kafka.topics.deleted": sorted(deleted_topics)})
            if new_topics:
                with span("KafkaController.onNewTopicCreation", {"kafka.topics": sorted(new_topics)}):
                    c.on_new_topic_creation(new_topics, set(added_partition_replica_assignment))


class PartitionModifications(ControllerEvent):
    """A topic's assignment znode changed: partitions added to it are created like a new topic's."""

    def __init__(self, controller: KafkaController, topic: str) -> None:
        self.controller = controller
        self.topic = topic

    @property
    def state(self) -> ControllerState:
        return ControllerState.TopicChange

    def process(self) -> None:
        c = self.controller
        if not c.is_active:
            return
        context = c.controller_context
        partition_replica_assignment = get_replica_assignment_for_topics(c.zk_utils, [self.topic])
        partitions_to_be_added = {tp: replicas for tp, replicas in partition_replica_assignment.items()
                                  if tp not in context.partition_replica_assignment}
        if c.topic_deletion_manager.is_topic_queued_up_for_deletion(self.topic):
            c.log.error("Skipping adding partitions %s for topic %s since it is currently being deleted",
                        sorted(p.partition for p in partitions_to_be_added), self.topic)
        elif partitions_to_be_added:
            c.log.info("New partitions to be added %s", partitions_to_be_added)
            context.partition_replica_assignment.update(partitions_to_be_added)
            with span("KafkaController.onNewPartitionCreation", {"kafka.topic": self.topic}):
                c.on_new_partition_creation(set(partitions_to_be_added))


class TopicDeletion(ControllerEvent):
    """Children of `/admin/delete_topics`: topics that exist are queued for deletion, the others' markers removed."""

    def __init__(self, controller: KafkaController, topics_to_be_deleted: set[str]) -> None:
        self.controller = controller
        self.topics_to_be_deleted = topics_to_be_deleted

    @property
    def state(self) -> ControllerState:
        return ControllerState.TopicDeletion

    def process(self) -> None:
        c = self.controller
        if not c.is_active:
            return
        c.log.debug("Delete topics listener fired for topics %s to be deleted", sorted(self.topics_to_be_deleted))
        non_existent_topics = self.topics_to_be_deleted - c.controller_context.all_topics
        if non_existent_topics:
            c.log.warning("Ignoring request to delete non-existing topics %s", ",".join(sorted(non_existent_topics)))
            for topic in non_existent_topics:
                c.zk_utils.delete_path_recursive(f"{DELETE_TOPICS_PATH}/{topic}")
        topics_to_be_deleted = self.topics_to_be_deleted - non_existent_topics
        if c.config.delete_topic_enable:
            if topics_to_be_deleted:
                c.log.info("Starting topic deletion for topics %s", ",".join(sorted(topics_to_be_deleted)))
                c.topic_deletion_manager.enqueue_topics_for_deletion(topics_to_be_deleted)
        else:
            for topic in topics_to_be_deleted:
                c.log.info("Removing %s/%s since delete topic is disabled", DELETE_TOPICS_PATH, topic)
                c.zk_utils.delete_path_recursive(f"{DELETE_TOPICS_PATH}/{topic}")


class TopicDeletionStopReplicaResult(ControllerEvent):
    """A broker answered StopReplica with delete: its replicas are deleted, or failed to be."""

    def __init__(self, controller: KafkaController, stop_replica_response: object, replica_id: int) -> None:
        self.controller = controller
        self.stop_replica_response = stop_replica_response
        self.replica_id = replica_id

    @property
    def state(self) -> ControllerState:
        return ControllerState.TopicDeletion

    def process(self) -> None:
        c = self.controller
        if not c.is_active:
            return
        response: Any = self.stop_replica_response
        c.log.debug("Delete topic callback invoked for %s", response)
        response_map = {TopicPartition(e.topic_name, e.partition_index): e.error_code
                        for e in response.partition_errors}
        if response.error_code != Errors.NONE:
            partitions_in_error = set(response_map)
        else:
            partitions_in_error = {tp for tp, error in response_map.items() if error != Errors.NONE}
        replicas_in_error = {PartitionAndReplica(tp.topic, tp.partition, self.replica_id) for tp in partitions_in_error}
        c.topic_deletion_manager.fail_replica_deletion(replicas_in_error)
        if len(replicas_in_error) != len(response_map):
            deleted_replicas = set(response_map) - partitions_in_error
            c.topic_deletion_manager.complete_replica_deletion(
                {PartitionAndReplica(tp.topic, tp.partition, self.replica_id) for tp in deleted_replicas})


# -- listeners: ZooKeeper callbacks only put events on the queue -------------------------------------------------

class BrokerChangeListener:
    def __init__(self, controller: KafkaController, event_manager: ControllerEventManager) -> None:
        self.controller = controller
        self.event_manager = event_manager

    def handle_child_change(self, parent_path: str, current_childs: list[str]) -> None:
        self.event_manager.put(BrokerChange(self.controller, current_childs))


class TopicChangeListener:
    def __init__(self, controller: KafkaController, event_manager: ControllerEventManager) -> None:
        self.controller = controller
        self.event_manager = event_manager

    def handle_child_change(self, parent_path: str, current_childs: list[str]) -> None:
        self.event_manager.put(TopicChange(self.controller, set(current_childs)))


class TopicDeletionListener:
    def __init__(self, controller: KafkaController, event_manager: ControllerEventManager) -> None:
        self.controller = controller
        self.event_manager = event_manager

    def handle_child_change(self, parent_path: str, current_childs: list[str]) -> None:
        self.event_manager.put(TopicDeletion(self.controller, set(current_childs)))


class PartitionModificationsListener:
    def __init__(self, controller: KafkaController, event_manager: ControllerEventManager, topic: str) -> None:
        self.controller = controller
        self.event_manager = event_manager
        self.topic = topic

    def handle_data_change(self, data_path: str, data: str) -> None:
        self.event_manager.put(PartitionModifications(self.controller, self.topic))

    def handle_data_deleted(self, data_path: str) -> None:
        pass


class ControllerChangeListener:
    def __init__(self, controller: KafkaController, event_manager: ControllerEventManager) -> None:
        self.controller = controller
        self.event_manager = event_manager

    def handle_data_change(self, data_path: str, data: str) -> None:
        self.event_manager.put(ControllerChange(self.controller, parse_controller_id(data)))

    def handle_data_deleted(self, data_path: str) -> None:
        self.event_manager.put(Reelect(self.controller))


class SessionExpirationListener(ZkStateListener):
    """A new session replaced an expired one: our `/controller`, if we had it, is gone; elect again."""

    def __init__(self, controller: KafkaController, event_manager: ControllerEventManager) -> None:
        self.controller = controller
        self.event_manager = event_manager

    def handle_new_session(self) -> None:
        self.event_manager.put(Reelect(self.controller))

    def handle_session_establishment_error(self, error: Exception) -> None:
        pass  # KafkaHealthcheck's listener reports it
