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

from kafka_edu.tracing import span, step
from kafka_edu.v1_0_2.clients.common.errors import (
    BrokerNotAvailableException,
    ControllerMovedException,
    IllegalStateException,
    KafkaException,
    StateChangeFailedException,
    ZkNodeExistsException,
)
from kafka_edu.v1_0_2.core.admin.preferred_replica_leader_election_command import parse_preferred_replica_election_data
from kafka_edu.v1_0_2.core.api.leader_and_isr import LeaderAndIsr
from kafka_edu.v1_0_2.core.controller.controller_channel_manager import (
    ControllerBrokerRequestBatch,
    ControllerChannelManager,
)
from kafka_edu.v1_0_2.core.controller.controller_context import (
    ControllerContext,
    LeaderIsrAndControllerEpoch,
    ReassignedPartitionsContext,
    get_all_brokers_in_cluster,
    get_all_topics,
    get_partition_leader_and_isr_for_topics,
    get_replica_assignment_for_topics,
    replica_assignment_zk_data,
)
from kafka_edu.v1_0_2.core.controller.controller_event_manager import ControllerEvent, ControllerEventManager
from kafka_edu.v1_0_2.core.controller.controller_state import ControllerState
from kafka_edu.v1_0_2.core.controller.partition_leader_selector import (
    ControlledShutdownLeaderSelector,
    OfflinePartitionLeaderSelector,
    PreferredReplicaPartitionLeaderSelector,
    ReassignedPartitionLeaderSelector,
)
from kafka_edu.v1_0_2.core.controller.partition_state_machine import PartitionState, PartitionStateMachine
from kafka_edu.v1_0_2.core.controller.replica_state_machine import (
    PartitionAndReplica,
    ReplicaState,
    ReplicaStateMachine,
)
from kafka_edu.v1_0_2.core.controller.topic_deletion_manager import TopicDeletionManager
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v1_0_2.core.utils.kafka_scheduler import KafkaScheduler
from kafka_edu.v1_0_2.core.utils.log_dir_utils import delete_log_dir_events, get_broker_id_from_log_dir_event
from kafka_edu.v1_0_2.core.utils.replication_utils import update_leader_and_isr
from kafka_edu.v1_0_2.core.utils.zk_subscriptions import ZkSubscriptions
from kafka_edu.v1_0_2.core.utils.zk_utils import (
    BROKER_IDS_PATH,
    BROKER_TOPICS_PATH,
    CONTROLLER_EPOCH_PATH,
    CONTROLLER_PATH,
    DELETE_TOPICS_PATH,
    ISR_CHANGE_NOTIFICATION_PATH,
    LOG_DIR_EVENT_NOTIFICATION_PATH,
    PREFERRED_REPLICA_LEADER_ELECTION_PATH,
    REASSIGN_PARTITIONS_PATH,
    ZkStateListener,
    ZkUtils,
    get_topic_partition_leader_and_isr_path,
)
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors

INITIAL_CONTROLLER_EPOCH = 1
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
        self.state_change_logger = Logging("state.change.logger", f"[Controller id={config.broker_id}] ")
        self.controller_context = ControllerContext(zk_utils)
        self.event_manager = ControllerEventManager(lambda _: self.update_metrics())
        self.zk_subscriptions = ZkSubscriptions(zk_utils.zk_client)
        # Its own scheduler, so the rebalance task starts and stops with the controllership, not with the broker.
        self.kafka_scheduler = KafkaScheduler(1)
        # Started in initializeControllerContext, shut down with the context at resignation.
        self.controller_channel_manager: ControllerChannelManager | None = None

        self.topic_deletion_manager = TopicDeletionManager(self, self.event_manager)
        self.offline_partition_selector = OfflinePartitionLeaderSelector(self.controller_context, config)
        self.reassigned_partition_leader_selector = ReassignedPartitionLeaderSelector(self.controller_context)
        self.preferred_replica_partition_leader_selector = PreferredReplicaPartitionLeaderSelector(
            self.controller_context)
        self.controlled_shutdown_partition_leader_selector = ControlledShutdownLeaderSelector(self.controller_context)
        self.broker_request_batch = ControllerBrokerRequestBatch(self)
        self.replica_state_machine = ReplicaStateMachine(self)
        self.partition_state_machine = PartitionStateMachine(self)

        self.broker_change_listener = BrokerChangeListener(self, self.event_manager)
        self.topic_change_listener = TopicChangeListener(self, self.event_manager)
        self.topic_deletion_listener = TopicDeletionListener(self, self.event_manager)
        self.partition_modifications_listeners: dict[str, PartitionModificationsListener] = {}
        self.partition_reassignment_listener = PartitionReassignmentListener(self, self.event_manager)
        self.preferred_replica_election_listener = PreferredReplicaElectionListener(self, self.event_manager)
        self.isr_change_notification_listener = IsrChangeNotificationListener(self, self.event_manager)
        self.log_dir_event_notification_listener = LogDirEventNotificationListener(self, self.event_manager)

        # The broker id in /controller as this broker last saw it (-1: none); written only by the event thread.
        self.active_controller_id = -1
        # Kafka's controller gauges: non-zero only on the active controller.
        self.offline_partition_count = 0
        self.preferred_replica_imbalance_count = 0
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

    @step("CT.startup.1")
    def startup(self) -> None:
        """Not an election yet: queue Startup, which runs on the event thread once it starts."""
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

    def on_controller_failover(self) -> None:
        """Become the controller: a new epoch, watches first, then the cluster as ZooKeeper has it now.

        Any failure here reaches `elect`, which gives the controllership up again.
        """
        self.log.info("Starting become controller state transition")
        self.read_controller_epoch_from_zookeeper()
        self.increment_controller_epoch()
        with step("CT.failover.03", self, path=LOG_DIR_EVENT_NOTIFICATION_PATH):
            delete_log_dir_events(self.zk_utils)

        # Watches go in before the reads, so no change between reading and watching is missed.
        self.register_partition_reassignment_listener()
        self.register_isr_change_notification_listener()
        self.register_preferred_replica_election_listener()
        self.register_topic_change_listener()
        self.register_topic_deletion_listener()
        self.register_broker_change_listener()
        self.register_log_dir_event_notification_listener()

        self.initialize_controller_context()
        topics_to_be_deleted, topics_ineligible_for_deletion = self.fetch_topic_deletions_in_progress()
        self.log.info("Initializing topic deletion manager")
        self.topic_deletion_manager.init(topics_to_be_deleted, topics_ineligible_for_deletion)

        # Brokers learn the live brokers and the leaders as recorded before the state machines change anything, so
        # that the LeaderAndIsr that follows finds them able to reach the leaders.
        with step("CT.failover.07"):
            self.send_update_metadata_request(self.controller_context.live_or_shutting_down_broker_ids)

        self.replica_state_machine.startup()
        self.partition_state_machine.startup()

        for topic in sorted(self.controller_context.all_topics):
            with step("CT.failover.10", topic=topic):
                self.register_partition_modifications_listener(topic)
        self.log.info("Ready to serve as the new controller with epoch %d", self.epoch)
        self.maybe_trigger_partition_reassignment()
        self.topic_deletion_manager.try_topic_deletion()
        pending_preferred_replica_elections = self.fetch_pending_preferred_replica_elections()
        self.on_preferred_replica_election(pending_preferred_replica_elections)  # CT.failover.13 when called here
        with step("CT.failover.14", self):
            self.log.info("Starting the controller scheduler")
            self.kafka_scheduler.startup()
            if self.config.auto_leader_rebalance_enable:
                self.schedule_auto_leader_rebalance_task(delay_ms=5000)

    def schedule_auto_leader_rebalance_task(self, delay_ms: float) -> None:
        self.kafka_scheduler.schedule("auto-leader-rebalance-task",
                                      lambda: self.event_manager.put(AutoPreferredReplicaLeaderElection(self)),
                                      delay=delay_ms)

    @step("CT.resign")
    def on_controller_resignation(self) -> None:
        """Stop acting as the controller: drop the watches the failover set and forget the cluster."""
        self.log.debug("Resigning")
        self.deregister_isr_change_notification_listener()
        self.deregister_partition_reassignment_listener()
        self.deregister_preferred_replica_election_listener()
        self.deregister_log_dir_event_notification_listener()
        self.topic_deletion_manager.reset()
        # The rebalance task must not put events after the controllership is gone.
        self.kafka_scheduler.shutdown()
        self.offline_partition_count = 0
        self.preferred_replica_imbalance_count = 0
        self.global_topic_count = 0
        self.global_partition_count = 0
        self.deregister_partition_reassignment_isr_change_listeners()
        self.partition_state_machine.shutdown()
        self.deregister_topic_change_listener()
        for topic in list(self.partition_modifications_listeners):
            self.deregister_partition_modifications_listener(topic)
        self.deregister_topic_deletion_listener()
        self.replica_state_machine.shutdown()
        self.deregister_broker_change_listener()
        self.reset_controller_context()
        self.log.info("Resigned")

    @step("CT.failover.01")
    def read_controller_epoch_from_zookeeper(self) -> None:
        if self.zk_utils.path_exists(CONTROLLER_EPOCH_PATH):
            epoch_data, stat = self.zk_utils.read_data_maybe_null(CONTROLLER_EPOCH_PATH)
            self.controller_context.epoch = int(epoch_data)
            self.controller_context.epoch_zk_version = stat.version
            self.log.info("Initialized controller epoch to %d and zk version %d", self.controller_context.epoch,
                          self.controller_context.epoch_zk_version)

    @step("CT.failover.02")
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
                self.log.error("Error while incrementing controller epoch", exc_info=oe)
        except Exception as oe:
            self.log.error("Error while incrementing controller epoch", exc_info=oe)
        self.log.info("Incremented epoch to %d", context.epoch)

    @step("CT.failover.05")
    def initialize_controller_context(self) -> None:
        context = self.controller_context
        context.live_brokers = get_all_brokers_in_cluster(self.zk_utils)
        context.all_topics = set(get_all_topics(self.zk_utils))
        context.partition_replica_assignment = get_replica_assignment_for_topics(self.zk_utils, context.all_topics)
        context.partition_leadership_info = {}
        context.shutting_down_broker_ids = set()
        self.update_leader_and_isr_cache()
        self.start_channel_manager()
        self.initialize_partition_reassignment()
        self.log.info("Currently active brokers in the cluster: %s", sorted(context.live_broker_ids))
        self.log.info("Currently shutting brokers in the cluster: %s", sorted(context.shutting_down_broker_ids))
        self.log.info("Current list of topics in the cluster: %s", sorted(context.all_topics))

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
                                        if any(not context.is_replica_online(r, tp) for r in replicas)}
        topics_for_which_partition_reassignment_is_in_progress = {tp.topic for tp in
                                                                  context.partitions_being_reassigned}
        topics_ineligible_for_deletion = topics_with_offline_replicas | \
            topics_for_which_partition_reassignment_is_in_progress
        self.log.info("List of topics to be deleted: %s", ",".join(sorted(topics_to_be_deleted)))
        self.log.info("List of topics ineligible for deletion: %s", ",".join(sorted(topics_ineligible_for_deletion)))
        return topics_to_be_deleted, topics_ineligible_for_deletion

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
        context.partitions_being_reassigned.clear()
        context.live_brokers = []

    def update_metrics(self) -> None:
        """The event manager's eventProcessedListener: refresh the gauges after every event."""
        active = self.is_active
        context = self.controller_context
        deletion = self.topic_deletion_manager
        self.offline_partition_count = sum(
            1 for tp, info in context.partition_leadership_info.items()
            if info.leader_and_isr.leader not in context.live_or_shutting_down_broker_ids
            and not deletion.is_topic_queued_up_for_deletion(tp.topic)) if active else 0
        self.preferred_replica_imbalance_count = sum(
            1 for tp, replicas in context.partition_replica_assignment.items()
            if tp in context.partition_leadership_info
            and context.partition_leadership_info[tp].leader_and_isr.leader != replicas[0]
            and not deletion.is_topic_queued_up_for_deletion(tp.topic)) if active else 0
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
                new_leader = LeaderAndIsr.NoLeader if replica_id == leader_and_isr.leader else leader_and_isr.leader
                new_isr = [b for b in leader_and_isr.isr if b != replica_id]
                if not new_isr and not self.offline_partition_selector.unclean_leader_election_enable(topic):
                    self.log.info("Retaining last ISR %d of partition %s since unclean leader election is disabled",
                                  replica_id, topic_partition)
                    new_isr = list(leader_and_isr.isr)
                new_leader_and_isr = leader_and_isr.new_leader_and_isr(new_leader, new_isr)
                update_succeeded, new_version = update_leader_and_isr(self.zk_utils, topic, partition,
                                                                      new_leader_and_isr, self.epoch,
                                                                      leader_and_isr.zk_version)
                leader_with_new_version = new_leader_and_isr.with_zk_version(new_version)
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
        for broker_id in new_brokers:
            context.replicas_on_offline_dirs.pop(broker_id, None)
        self.send_update_metadata_request(context.live_or_shutting_down_broker_ids)
        all_replicas_on_new_brokers = self.replicas_on_brokers(set(new_brokers))
        self.replica_state_machine.handle_state_changes(all_replicas_on_new_brokers, ReplicaState.OnlineReplica)
        self.partition_state_machine.trigger_online_partition_state_change()
        new_brokers_set = set(new_brokers)
        partitions_with_replicas_on_new_brokers = {
            tp: reassignment for tp, reassignment in context.partitions_being_reassigned.items()
            if new_brokers_set & set(reassignment.new_replicas)}
        for tp, reassignment in partitions_with_replicas_on_new_brokers.items():
            self.on_partition_reassignment(tp, reassignment)
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
        for broker_id in dead_brokers:
            context.replicas_on_offline_dirs.pop(broker_id, None)
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
                                     if not context.is_replica_online(info.leader_and_isr.leader, tp)
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

    def on_broker_log_dir_failure(self, broker_ids: list[int]) -> None:
        """A broker reported a failed log dir: LeaderAndIsr to all its replicas makes it say which it still hosts."""
        self.replica_state_machine.handle_state_changes(self.replicas_on_brokers(set(broker_ids)),
                                                        ReplicaState.OnlineReplica)

    # -- partition reassignment ------------------------------------------------------------------------------------
    # RAR: the reassigned replicas, OAR: the original ones. The assignment znode holds OAR + RAR until the new
    # replicas are in sync, and only then RAR: OAR survives a controller crash in the middle.

    def on_partition_reassignment(self, topic_partition: TopicPartition,
                                  reassigned_partition_context: ReassignedPartitionsContext) -> None:
        context = self.controller_context
        reassigned_replicas = reassigned_partition_context.new_replicas
        if not self.are_replicas_in_isr(topic_partition.topic, topic_partition.partition, reassigned_replicas):
            self.log.info("New replicas %s for partition %s being reassigned not yet caught up with the leader",
                          ",".join(map(str, reassigned_replicas)), topic_partition)
            current = context.partition_replica_assignment[topic_partition]
            new_replicas_not_in_old_replica_list = set(reassigned_replicas) - set(current)
            new_and_old_replicas = list(dict.fromkeys([*current, *reassigned_replicas]))
            self.update_assigned_replicas_for_partition(topic_partition, new_and_old_replicas)
            self.update_leader_epoch_and_send_request(
                topic_partition, context.partition_replica_assignment[topic_partition], new_and_old_replicas)
            self.start_new_replicas_for_reassigned_partition(topic_partition, new_replicas_not_in_old_replica_list)
            self.log.info("Waiting for new replicas %s for partition %s being reassigned to catch up with the leader",
                          ",".join(map(str, reassigned_replicas)), topic_partition)
        else:
            old_replicas = set(context.partition_replica_assignment[topic_partition]) - set(reassigned_replicas)
            for replica in reassigned_replicas:
                self.replica_state_machine.handle_state_changes(
                    {PartitionAndReplica(topic_partition.topic, topic_partition.partition, replica)},
                    ReplicaState.OnlineReplica)
            self.move_reassigned_partition_leader_if_required(topic_partition, reassigned_partition_context)
            self.stop_old_replicas_of_reassigned_partition(topic_partition, old_replicas)
            self.update_assigned_replicas_for_partition(topic_partition, reassigned_replicas)
            self.remove_partition_from_reassigned_partitions(topic_partition)
            self.log.info("Removed partition %s from the list of reassigned partitions in zookeeper",
                          topic_partition)
            context.partitions_being_reassigned.pop(topic_partition, None)
            self.send_update_metadata_request(context.live_or_shutting_down_broker_ids, {topic_partition})
            # A deletion that waited for this reassignment may go on now.
            self.topic_deletion_manager.resume_deletion_for_topics({topic_partition.topic})

    def watch_isr_changes_for_reassigned_partition(self, topic: str, partition: int,
                                                   reassigned_partition_context: ReassignedPartitionsContext) -> None:
        listener = PartitionReassignmentIsrChangeListener(self, self.event_manager, topic, partition,
                                                          set(reassigned_partition_context.new_replicas))
        reassigned_partition_context.isr_change_listener = listener
        self.zk_subscriptions.subscribe_data_changes(get_topic_partition_leader_and_isr_path(topic, partition),
                                                     listener)

    def initiate_reassign_replicas_for_topic_partition(
            self, topic_partition: TopicPartition, reassigned_partition_context: ReassignedPartitionsContext) -> None:
        new_replicas = reassigned_partition_context.new_replicas
        try:
            assigned_replicas = self.controller_context.partition_replica_assignment.get(topic_partition)
            if assigned_replicas is None:
                raise KafkaException(f"Attempt to reassign partition {topic_partition} that doesn't exist")
            if assigned_replicas == new_replicas:
                raise KafkaException(f"Partition {topic_partition} to be reassigned is already assigned to replicas "
                                     f"{','.join(map(str, new_replicas))}. Ignoring request for partition "
                                     "reassignment")
            self.log.info("Handling reassignment of partition %s to new replicas %s", topic_partition,
                          ",".join(map(str, new_replicas)))
            # The watch first: the new replicas may join the ISR before this event ends.
            self.watch_isr_changes_for_reassigned_partition(topic_partition.topic, topic_partition.partition,
                                                            reassigned_partition_context)
            self.controller_context.partitions_being_reassigned[topic_partition] = reassigned_partition_context
            self.topic_deletion_manager.mark_topic_ineligible_for_deletion({topic_partition.topic})
            self.on_partition_reassignment(topic_partition, reassigned_partition_context)
        except Exception as e:
            self.log.error("Error completing reassignment of partition %s", topic_partition, exc_info=e)
            # Unblock the admin tool: the znode no longer lists this partition.
            self.remove_partition_from_reassigned_partitions(topic_partition)

    def initialize_partition_reassignment(self) -> None:
        """Reassignments left in `/admin/reassign_partitions` by a previous controller: finished ones are dropped."""
        context = self.controller_context
        partitions_being_reassigned = self.zk_utils.get_partitions_being_reassigned()
        reassigned_partitions = {tp for tp, new_replicas in partitions_being_reassigned.items()
                                 if context.partition_replica_assignment.get(tp) in (None, new_replicas)}
        for tp in reassigned_partitions:
            self.remove_partition_from_reassigned_partitions(tp)
        partitions_to_reassign = {tp: ReassignedPartitionsContext(list(new_replicas))
                                  for tp, new_replicas in partitions_being_reassigned.items()
                                  if tp not in reassigned_partitions}
        context.partitions_being_reassigned.update(partitions_to_reassign)
        self.log.info("Partitions being reassigned: %s", partitions_being_reassigned)
        self.log.info("Partitions already reassigned: %s", sorted(reassigned_partitions))
        self.log.info("Resuming reassignment of partitions: %s", partitions_to_reassign)

    @step("CT.failover.11")
    def maybe_trigger_partition_reassignment(self) -> None:
        for tp, reassignment in list(self.controller_context.partitions_being_reassigned.items()):
            self.initiate_reassign_replicas_for_topic_partition(tp, reassignment)

    def are_replicas_in_isr(self, topic: str, partition: int, replicas: list[int]) -> bool:
        tp = TopicPartition(topic, partition)
        leader_isr = get_partition_leader_and_isr_for_topics(self.zk_utils, [tp]).get(tp)
        return leader_isr is not None and all(r in leader_isr.leader_and_isr.isr for r in replicas)

    def move_reassigned_partition_leader_if_required(
            self, topic_partition: TopicPartition, reassigned_partition_context: ReassignedPartitionsContext) -> None:
        context = self.controller_context
        reassigned_replicas = reassigned_partition_context.new_replicas
        current_leader = context.partition_leadership_info[topic_partition].leader_and_isr.leader
        # The LeaderAndIsr below carries only RAR, so the leader will not let old replicas back into the ISR.
        old_and_new_replicas = context.partition_replica_assignment[topic_partition]
        context.partition_replica_assignment[topic_partition] = list(reassigned_replicas)
        if current_leader not in reassigned_replicas:
            self.log.info("Leader %d for partition %s being reassigned, is not in the new list of replicas %s. "
                          "Re-electing leader", current_leader, topic_partition,
                          ",".join(map(str, reassigned_replicas)))
            self.partition_state_machine.handle_state_changes({topic_partition}, PartitionState.OnlinePartition,
                                                              self.reassigned_partition_leader_selector)
        elif context.is_replica_online(current_leader, topic_partition):
            self.log.info("Leader %d for partition %s being reassigned, is already in the new list of replicas %s and "
                          "is alive", current_leader, topic_partition, ",".join(map(str, reassigned_replicas)))
            self.update_leader_epoch_and_send_request(topic_partition, old_and_new_replicas, reassigned_replicas)
        else:
            self.log.info("Leader %d for partition %s being reassigned, is already in the new list of replicas %s but "
                          "is dead", current_leader, topic_partition, ",".join(map(str, reassigned_replicas)))
            self.partition_state_machine.handle_state_changes({topic_partition}, PartitionState.OnlinePartition,
                                                              self.reassigned_partition_leader_selector)

    def stop_old_replicas_of_reassigned_partition(self, topic_partition: TopicPartition,
                                                  old_replicas: set[int]) -> None:
        """Out of the ISR, stopped, deleted from disk, forgotten: Offline → DeletionStarted → Successful → gone."""
        replicas_to_be_deleted = {PartitionAndReplica(topic_partition.topic, topic_partition.partition, r)
                                  for r in old_replicas}
        for target_state in (ReplicaState.OfflineReplica, ReplicaState.ReplicaDeletionStarted,
                             ReplicaState.ReplicaDeletionSuccessful, ReplicaState.NonExistentReplica):
            self.replica_state_machine.handle_state_changes(replicas_to_be_deleted, target_state)

    def update_assigned_replicas_for_partition(self, topic_partition: TopicPartition, replicas: list[int]) -> None:
        """Write the topic's assignment znode with this partition's new replicas, then the context."""
        context = self.controller_context
        partitions_and_replicas_for_this_topic = {tp.partition: list(r) for tp, r in
                                                  context.partition_replica_assignment.items()
                                                  if tp.topic == topic_partition.topic}
        partitions_and_replicas_for_this_topic[topic_partition.partition] = list(replicas)
        zk_path = f"{BROKER_TOPICS_PATH}/{topic_partition.topic}"
        json_partition_map = replica_assignment_zk_data(partitions_and_replicas_for_this_topic)
        try:
            self.zk_utils.zk_client.set(zk_path, json_partition_map.encode())
        except NoNodeError:
            raise IllegalStateException(f"Topic {topic_partition.topic} doesn't exist") from None
        self.log.debug("Updated path %s with %s for replica assignment", zk_path, json_partition_map)
        self.log.info("Updated assigned replicas for partition %s being reassigned to %s ", topic_partition,
                      ",".join(map(str, replicas)))
        context.partition_replica_assignment[topic_partition] = list(replicas)

    def start_new_replicas_for_reassigned_partition(self, topic_partition: TopicPartition,
                                                    new_replicas: set[int]) -> None:
        for replica in sorted(new_replicas):
            self.replica_state_machine.handle_state_changes(
                {PartitionAndReplica(topic_partition.topic, topic_partition.partition, replica)},
                ReplicaState.NewReplica)

    def update_leader_epoch_and_send_request(self, topic_partition: TopicPartition,
                                             replicas_to_receive_request: list[int],
                                             new_assigned_replicas: list[int]) -> None:
        updated = self.update_leader_epoch(topic_partition.topic, topic_partition.partition)
        if updated is None:
            self.state_change_logger.error("Failed to send LeaderAndIsr request with new assigned replica list %s to "
                                           "leader for partition being reassigned %s",
                                           ",".join(map(str, new_assigned_replicas)), topic_partition)
            return
        try:
            self.broker_request_batch.new_batch()
            self.broker_request_batch.add_leader_and_isr_request_for_brokers(
                replicas_to_receive_request, topic_partition.topic, topic_partition.partition, updated,
                list(new_assigned_replicas))
            self.broker_request_batch.send_requests_to_brokers(self.epoch)
        except IllegalStateException as e:
            self.handle_illegal_state(e)

    def update_leader_epoch(self, topic: str, partition: int) -> LeaderIsrAndControllerEpoch | None:
        """Bump only the leader epoch (compare-and-set, retried), so brokers accept the new replica list."""
        topic_partition = TopicPartition(topic, partition)
        final: LeaderIsrAndControllerEpoch | None = None
        zk_write_complete_or_unnecessary = False
        while not zk_write_complete_or_unnecessary:
            leader_isr_and_epoch = get_partition_leader_and_isr_for_topics(self.zk_utils, [topic_partition]).get(
                topic_partition)
            if leader_isr_and_epoch is None:
                raise IllegalStateException(f"Cannot update leader epoch for partition {topic_partition} as "
                                            "leaderAndIsr path is empty. This could mean we somehow tried to reassign "
                                            "a partition that doesn't exist")
            if leader_isr_and_epoch.controller_epoch > self.epoch:
                raise StateChangeFailedException(
                    f"Leader and isr path written by another controller. This probably means the current controller "
                    f"with epoch {self.epoch} went through a soft failure and another controller was elected with "
                    f"epoch {leader_isr_and_epoch.controller_epoch}. Aborting state change by this controller")
            leader_and_isr = leader_isr_and_epoch.leader_and_isr
            new_leader_and_isr = leader_and_isr.new_epoch_and_zk_version()
            update_succeeded, new_version = update_leader_and_isr(self.zk_utils, topic, partition, new_leader_and_isr,
                                                                  self.epoch, leader_and_isr.zk_version)
            leader_with_new_version = new_leader_and_isr.with_zk_version(new_version)
            final = LeaderIsrAndControllerEpoch(leader_with_new_version, self.epoch)
            if update_succeeded:
                self.log.info("Updated leader epoch for partition %s to %d", topic_partition,
                              leader_with_new_version.leader_epoch)
            zk_write_complete_or_unnecessary = update_succeeded
        return final

    def remove_partition_from_reassigned_partitions(self, topic_partition: TopicPartition) -> None:
        context = self.controller_context
        reassignment = context.partitions_being_reassigned.get(topic_partition)
        if reassignment is not None and reassignment.isr_change_listener is not None:
            self.zk_subscriptions.unsubscribe_data_changes(
                get_topic_partition_leader_and_isr_path(topic_partition.topic, topic_partition.partition),
                reassignment.isr_change_listener)
        partitions_being_reassigned = self.zk_utils.get_partitions_being_reassigned()
        partitions_being_reassigned.pop(topic_partition, None)
        self.zk_utils.update_partition_reassignment_data(partitions_being_reassigned)
        context.partitions_being_reassigned.pop(topic_partition, None)

    def deregister_partition_reassignment_isr_change_listeners(self) -> None:
        for tp, reassignment in self.controller_context.partitions_being_reassigned.items():
            if reassignment.isr_change_listener is not None:
                self.zk_subscriptions.unsubscribe_data_changes(
                    get_topic_partition_leader_and_isr_path(tp.topic, tp.partition), reassignment.isr_change_listener)

    # -- preferred replica election -------------------------------------------------------------------------------

    @span("KafkaController.onPreferredReplicaElection")  # CT.failover.13 when onControllerFailover calls it
    def on_preferred_replica_election(self, partitions: set[TopicPartition],
                                      is_triggered_by_auto_rebalance: bool = False) -> None:
        self.log.info("Starting preferred replica leader election for partitions %s",
                      ",".join(map(str, sorted(partitions))))
        try:
            self.partition_state_machine.handle_state_changes(partitions, PartitionState.OnlinePartition,
                                                              self.preferred_replica_partition_leader_selector)
        except Exception as e:
            self.log.error("Error completing preferred replica leader election for partitions %s",
                           ",".join(map(str, sorted(partitions))), exc_info=e)
        finally:
            self.remove_partitions_from_preferred_replica_election(partitions, is_triggered_by_auto_rebalance)

    def fetch_pending_preferred_replica_elections(self) -> set[TopicPartition]:
        """Elections a previous controller left in `/admin/preferred_replica_election`, minus finished or deleted."""
        context = self.controller_context
        partitions_undergoing = self.zk_utils.get_partitions_undergoing_preferred_replica_election()
        completed = set()
        for tp in partitions_undergoing:
            replicas = context.partition_replica_assignment.get(tp)
            leadership = context.partition_leadership_info.get(tp)
            if replicas is None or (leadership is not None and leadership.leader_and_isr.leader == replicas[0]):
                completed.add(tp)
        ignoring_topic_deletion = partitions_undergoing - completed
        skipped_for_deletion = {tp for tp in ignoring_topic_deletion
                                if self.topic_deletion_manager.is_topic_queued_up_for_deletion(tp.topic)}
        pending = ignoring_topic_deletion - skipped_for_deletion
        self.log.info("Partitions undergoing preferred replica election: %s", ",".join(map(str, sorted(
            partitions_undergoing))))
        self.log.info("Partitions that completed preferred replica election: %s", ",".join(map(str, sorted(
            completed))))
        self.log.info("Skipping preferred replica election for partitions due to topic deletion: %s",
                      ",".join(map(str, sorted(skipped_for_deletion))))
        self.log.info("Resuming preferred replica election for partitions: %s", ",".join(map(str, sorted(pending))))
        return pending

    def remove_partitions_from_preferred_replica_election(self, partitions_to_be_removed: set[TopicPartition],
                                                          is_triggered_by_auto_rebalance: bool) -> None:
        context = self.controller_context
        for partition in sorted(partitions_to_be_removed):
            leadership = context.partition_leadership_info.get(partition)
            replicas = context.partition_replica_assignment.get(partition)
            # 1.0.2 looks these up unguarded and fails on an unknown partition, leaving the admin znode behind.
            if leadership is None or not replicas:
                self.log.warning("Partition %s failed to complete preferred replica leader election. It does not "
                                 "exist", partition)
            elif leadership.leader_and_isr.leader == replicas[0]:
                self.log.info("Partition %s completed preferred replica leader election. New leader is %d",
                              partition, replicas[0])
            else:
                self.log.warning("Partition %s failed to complete preferred replica leader election. Leader is %d",
                                 partition, leadership.leader_and_isr.leader)
        if not is_triggered_by_auto_rebalance:
            self.zk_utils.delete_path_recursive(PREFERRED_REPLICA_LEADER_ELECTION_PATH)

    def check_and_trigger_auto_leader_rebalance(self) -> None:
        """For each broker whose share of partitions led by someone else exceeds leader.imbalance.per.broker.percentage,
        hand those partitions back to it."""
        context = self.controller_context
        deletion = self.topic_deletion_manager
        preferred_replicas_for_topics_by_brokers: dict[int, dict[TopicPartition, list[int]]] = {}
        for tp, assigned_replicas in context.partition_replica_assignment.items():
            if not deletion.is_topic_queued_up_for_deletion(tp.topic):
                preferred_replicas_for_topics_by_brokers.setdefault(assigned_replicas[0], {})[tp] = assigned_replicas
        for leader_broker, topic_and_partitions_for_broker in sorted(preferred_replicas_for_topics_by_brokers.items()):
            topics_not_in_preferred_replica = [
                tp for tp in sorted(topic_and_partitions_for_broker)
                if tp in context.partition_leadership_info
                and context.partition_leadership_info[tp].leader_and_isr.leader != leader_broker]
            imbalance_ratio = len(topics_not_in_preferred_replica) / len(topic_and_partitions_for_broker)
            self.log.debug("Leader imbalance ratio for broker %d is %s", leader_broker, imbalance_ratio)
            if imbalance_ratio > self.config.leader_imbalance_per_broker_percentage / 100:
                for tp in topics_not_in_preferred_replica:
                    if context.is_replica_online(leader_broker, tp) and not context.partitions_being_reassigned \
                            and not deletion.is_topic_queued_up_for_deletion(tp.topic) \
                            and tp.topic in context.all_topics:
                        self.on_preferred_replica_election({tp}, is_triggered_by_auto_rebalance=True)

    def replicas_on_brokers(self, broker_ids: set[int]) -> set[PartitionAndReplica]:
        """ControllerContext.replicasOnBrokers."""
        return {PartitionAndReplica(tp.topic, tp.partition, r)
                for tp, replicas in self.controller_context.partition_replica_assignment.items()
                for r in replicas if r in broker_ids}

    def replicas_for_partition(self, partitions: set[TopicPartition]) -> set[PartitionAndReplica]:
        """ControllerContext.replicasForPartition."""
        assignment = self.controller_context.partition_replica_assignment
        return {PartitionAndReplica(tp.topic, tp.partition, r) for tp in partitions for r in assignment.get(tp, [])}

    def topic_deletion_stop_replica_response_received(self, response: object, replica_id: int) -> ControllerEvent:
        return TopicDeletionStopReplicaResponseReceived(self, response, replica_id)

    def leader_and_isr_response_received(self, response: object, broker_id: int) -> ControllerEvent:
        return LeaderAndIsrResponseReceived(self, response, broker_id)

    # -- election -------------------------------------------------------------------------------------------------

    def get_controller_id(self) -> int:
        return self.zk_utils.get_controller_id()

    @step("CT.elect")
    def elect(self) -> None:
        """Try to become the controller by creating the ephemeral `/controller`; ZooKeeper lets exactly one win."""
        timestamp = int(time.time() * 1000)
        elect_string = controller_zk_data(self.config.broker_id, timestamp)

        self.active_controller_id = self.get_controller_id()
        # Startup and a deletion watch can both lead here: if a controller exists, leave it be.
        if self.active_controller_id != -1:
            self.log.debug("Broker %d has been elected as the controller, so stopping the election process.",
                           self.active_controller_id)
            return

        try:
            # ZKCheckedEphemeral: the znode may already be ours if a create was retried after a lost connection.
            self.zk_utils._create_checked_ephemeral(CONTROLLER_PATH, elect_string)
            self.log.info("%d successfully elected as the controller", self.config.broker_id)
            self.active_controller_id = self.config.broker_id
            self.on_controller_failover()
        except ZkNodeExistsException:
            # Someone else created it first.
            self.active_controller_id = self.get_controller_id()
            if self.active_controller_id != -1:
                self.log.debug("Broker %d was elected as controller instead of broker %d",
                               self.active_controller_id, self.config.broker_id)
            else:
                self.log.warning("A controller has been elected but just resigned, this will result in another "
                                 "round of election")
        except Exception as e2:
            self.log.error("Error while electing or becoming controller on broker %d", self.config.broker_id,
                           exc_info=e2)
            self.trigger_controller_move()

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

    @step("CT.failover.04")
    def register_broker_change_listener(self) -> None:
        self.zk_subscriptions.subscribe_child_changes(BROKER_IDS_PATH, self.broker_change_listener)

    def deregister_broker_change_listener(self) -> None:
        self.zk_subscriptions.unsubscribe_child_changes(BROKER_IDS_PATH, self.broker_change_listener)

    @step("CT.failover.04")
    def register_topic_change_listener(self) -> None:
        self.zk_subscriptions.subscribe_child_changes(BROKER_TOPICS_PATH, self.topic_change_listener)

    def deregister_topic_change_listener(self) -> None:
        self.zk_subscriptions.unsubscribe_child_changes(BROKER_TOPICS_PATH, self.topic_change_listener)

    @step("CT.failover.04")
    def register_topic_deletion_listener(self) -> None:
        self.zk_subscriptions.subscribe_child_changes(DELETE_TOPICS_PATH, self.topic_deletion_listener)

    def deregister_topic_deletion_listener(self) -> None:
        self.zk_subscriptions.unsubscribe_child_changes(DELETE_TOPICS_PATH, self.topic_deletion_listener)

    @step("CT.failover.04")
    def register_partition_reassignment_listener(self) -> None:
        self.zk_subscriptions.subscribe_data_changes(REASSIGN_PARTITIONS_PATH, self.partition_reassignment_listener)

    def deregister_partition_reassignment_listener(self) -> None:
        self.zk_subscriptions.unsubscribe_data_changes(REASSIGN_PARTITIONS_PATH, self.partition_reassignment_listener)

    @step("CT.failover.04")
    def register_isr_change_notification_listener(self) -> None:
        self.log.debug("Registering IsrChangeNotificationListener")
        self.zk_subscriptions.subscribe_child_changes(ISR_CHANGE_NOTIFICATION_PATH,
                                                      self.isr_change_notification_listener)

    def deregister_isr_change_notification_listener(self) -> None:
        self.log.debug("De-registering IsrChangeNotificationListener")
        self.zk_subscriptions.unsubscribe_child_changes(ISR_CHANGE_NOTIFICATION_PATH,
                                                        self.isr_change_notification_listener)

    @step("CT.failover.04")
    def register_preferred_replica_election_listener(self) -> None:
        self.zk_subscriptions.subscribe_data_changes(PREFERRED_REPLICA_LEADER_ELECTION_PATH,
                                                     self.preferred_replica_election_listener)

    def deregister_preferred_replica_election_listener(self) -> None:
        self.zk_subscriptions.unsubscribe_data_changes(PREFERRED_REPLICA_LEADER_ELECTION_PATH,
                                                       self.preferred_replica_election_listener)

    @step("CT.failover.04")
    def register_log_dir_event_notification_listener(self) -> None:
        self.log.debug("Registering logDirEventNotificationListener")
        self.zk_subscriptions.subscribe_child_changes(LOG_DIR_EVENT_NOTIFICATION_PATH,
                                                      self.log_dir_event_notification_listener)

    def deregister_log_dir_event_notification_listener(self) -> None:
        self.log.debug("De-registering logDirEventNotificationListener")
        self.zk_subscriptions.unsubscribe_child_changes(LOG_DIR_EVENT_NOTIFICATION_PATH,
                                                        self.log_dir_event_notification_listener)

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

class KafkaControllerEvent(ControllerEvent):
    """An event of this controller: in 1.0.2 the events are inner classes of KafkaController and see it directly."""

    def __init__(self, controller: KafkaController) -> None:
        self.controller = controller


class Startup(KafkaControllerEvent):
    state = ControllerState.ControllerChange

    @step("CT.startup.2")
    def process(self) -> None:
        self.controller.register_session_expiration_listener()
        self.controller.register_controller_change_listener()
        self.controller.elect()


class ControllerChange(KafkaControllerEvent):
    """`/controller` now names `new_controller_id`: if that is no longer us, resign."""

    state = ControllerState.ControllerChange

    def __init__(self, controller: KafkaController, new_controller_id: int) -> None:
        super().__init__(controller)
        self.new_controller_id = new_controller_id

    @step("CT.change")
    def process(self) -> None:
        c = self.controller
        was_active_before_change = c.is_active
        c.active_controller_id = self.new_controller_id
        if was_active_before_change and not c.is_active:
            c.on_controller_resignation()


class Reelect(KafkaControllerEvent):
    """`/controller` was deleted, or our session was replaced: resign if we lost it, then run for election."""

    state = ControllerState.ControllerChange

    @step("CT.reelect")
    def process(self) -> None:
        c = self.controller
        was_active_before_change = c.is_active
        c.active_controller_id = c.get_controller_id()
        if was_active_before_change and not c.is_active:
            c.on_controller_resignation()
        c.elect()


class BrokerChange(KafkaControllerEvent):
    """The children of `/brokers/ids` changed: new brokers get a channel and their replicas, dead ones lose theirs."""

    state = ControllerState.BrokerChange

    def __init__(self, controller: KafkaController, current_broker_list: list[str]) -> None:
        super().__init__(controller)
        self.current_broker_list = current_broker_list

    def process(self) -> None:
        c = self.controller
        if not c.is_active:
            return
        context = c.controller_context
        # Read the list again rather than trusting the event's: later changes get handled in this one event.
        cur_brokers = get_all_brokers_in_cluster(c.zk_utils)
        cur_broker_ids = {b.id for b in cur_brokers}
        live_or_shutting_down_broker_ids = context.live_or_shutting_down_broker_ids
        new_broker_ids = cur_broker_ids - live_or_shutting_down_broker_ids
        dead_broker_ids = live_or_shutting_down_broker_ids - cur_broker_ids
        with step("CT.broker", self, live=cur_broker_ids, new=new_broker_ids, dead=dead_broker_ids):
            new_brokers = [b for b in cur_brokers if b.id in new_broker_ids]
            context.live_brokers = cur_brokers
            c.log.info("Newly added brokers: %s, deleted brokers: %s, all live brokers: %s",
                       ",".join(map(str, sorted(new_broker_ids))), ",".join(map(str, sorted(dead_broker_ids))),
                       ",".join(map(str, sorted(cur_broker_ids))))
            assert c.controller_channel_manager is not None
            for broker in new_brokers:
                c.controller_channel_manager.add_broker(broker)
            for broker_id in dead_broker_ids:
                c.controller_channel_manager.remove_broker(broker_id)
            if new_broker_ids:
                c.on_broker_startup(sorted(new_broker_ids))
            if dead_broker_ids:
                c.on_broker_failure(sorted(dead_broker_ids))


class ControlledShutdown(KafkaControllerEvent):
    """A broker about to stop: its led partitions get another leader, it leaves the ISR of the others; the callback
    gets the replicated partitions it still leads (or the exception)."""

    state = ControllerState.ControlledShutdown

    def __init__(self, controller: KafkaController, id_: int,
                 controlled_shutdown_callback: Callable[[Any], None]) -> None:
        super().__init__(controller)
        self.id = id_
        self.controlled_shutdown_callback = controlled_shutdown_callback

    def process(self) -> None:
        try:  # 1.0.2's Try { doControlledShutdown(id) }: the partitions, or the failure
            result: Any = self.do_controlled_shutdown(self.id)
        except Exception as e:
            result = e
        self.controlled_shutdown_callback(result)

    @step("CT.shutdown")
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


class TopicChange(KafkaControllerEvent):
    """The children of `/brokers/topics` changed: new topics' partitions get leaders (onNewTopicCreation)."""

    state = ControllerState.TopicChange

    def __init__(self, controller: KafkaController, topics: set[str]) -> None:
        super().__init__(controller)
        self.topics = topics

    def process(self) -> None:
        c = self.controller
        if not c.is_active:
            return
        context = c.controller_context
        current_children = set(get_all_topics(c.zk_utils))
        new_topics = current_children - context.all_topics
        deleted_topics = context.all_topics - current_children
        with step("CT.topic", self, path=BROKER_TOPICS_PATH, new=new_topics, deleted=deleted_topics):
            context.all_topics = current_children

            added_partition_replica_assignment = get_replica_assignment_for_topics(c.zk_utils, new_topics)
            context.partition_replica_assignment = {tp: replicas for tp, replicas
                                                    in context.partition_replica_assignment.items()
                                                    if tp.topic not in deleted_topics}
            context.partition_replica_assignment.update(added_partition_replica_assignment)
            c.log.info("New topics: [%s], deleted topics: [%s], new partition replica assignment [%s]",
                       sorted(new_topics), sorted(deleted_topics), added_partition_replica_assignment)
            if new_topics:
                c.on_new_topic_creation(new_topics, set(added_partition_replica_assignment))


class PartitionModifications(KafkaControllerEvent):
    """A topic's assignment znode changed: partitions added to it are created like a new topic's."""

    state = ControllerState.TopicChange

    def __init__(self, controller: KafkaController, topic: str) -> None:
        super().__init__(controller)
        self.topic = topic

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
            c.on_new_partition_creation(set(partitions_to_be_added))


class TopicDeletion(KafkaControllerEvent):
    """Children of `/admin/delete_topics`: topics that exist are queued for deletion, the others' markers removed."""

    state = ControllerState.TopicDeletion

    def __init__(self, controller: KafkaController, topics_to_be_deleted: set[str]) -> None:
        super().__init__(controller)
        self.topics_to_be_deleted = topics_to_be_deleted

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
                topics_being_reassigned = {tp.topic for tp in c.controller_context.partitions_being_reassigned}
                c.topic_deletion_manager.mark_topic_ineligible_for_deletion(topics_to_be_deleted
                                                                            & topics_being_reassigned)
                c.topic_deletion_manager.enqueue_topics_for_deletion(topics_to_be_deleted)
        else:
            for topic in topics_to_be_deleted:
                c.log.info("Removing %s/%s since delete topic is disabled", DELETE_TOPICS_PATH, topic)
                c.zk_utils.delete_path_recursive(f"{DELETE_TOPICS_PATH}/{topic}")


class LeaderAndIsrResponseReceived(KafkaControllerEvent):
    """A broker answered LeaderAndIsr: replicas it reports KAFKA_STORAGE_ERROR for are on a failed log dir and go
    offline (a new leader if they led)."""

    state = ControllerState.LeaderAndIsrResponseReceived

    def __init__(self, controller: KafkaController, leader_and_isr_response: object, broker_id: int) -> None:
        super().__init__(controller)
        self.leader_and_isr_response = leader_and_isr_response
        self.broker_id = broker_id

    def process(self) -> None:
        c = self.controller
        response: Any = self.leader_and_isr_response
        if response.error_code != Errors.NONE:
            c.state_change_logger.error("Received error in LeaderAndIsr response %s from broker %d", response,
                                        self.broker_id)
            return
        errors = {TopicPartition(e.topic_name, e.partition_index): e.error_code for e in response.partition_errors}
        offline_replicas = {tp for tp, error in errors.items() if error == Errors.KAFKA_STORAGE_ERROR}
        online_replicas = {tp for tp, error in errors.items() if error == Errors.NONE}
        context = c.controller_context
        previous_offline_replicas = context.replicas_on_offline_dirs.get(self.broker_id, set())
        current_offline_replicas = (previous_offline_replicas - online_replicas) | offline_replicas
        context.replicas_on_offline_dirs[self.broker_id] = current_offline_replicas
        new_offline_replicas = current_offline_replicas - previous_offline_replicas
        if new_offline_replicas:
            c.state_change_logger.info("Mark replicas %s on broker %d as offline",
                                       ",".join(map(str, sorted(new_offline_replicas))), self.broker_id)
            c.on_replicas_become_offline({PartitionAndReplica(tp.topic, tp.partition, self.broker_id)
                                          for tp in new_offline_replicas})


class TopicDeletionStopReplicaResponseReceived(KafkaControllerEvent):
    """A broker answered StopReplica with delete: its replicas are deleted, or failed to be."""

    state = ControllerState.TopicDeletion

    def __init__(self, controller: KafkaController, stop_replica_response: object, replica_id: int) -> None:
        super().__init__(controller)
        self.stop_replica_response = stop_replica_response
        self.replica_id = replica_id

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


class PartitionReassignment(KafkaControllerEvent):
    """`/admin/reassign_partitions` changed: start the partitions not already being reassigned.

    The znode is read afresh: every finished partition rewrites it, so many of these events may be queued.
    """

    state = ControllerState.PartitionReassignment

    def process(self) -> None:
        c = self.controller
        if not c.is_active:
            return
        partition_reassignment = c.zk_utils.get_partitions_being_reassigned()
        partitions_to_be_reassigned = {tp: replicas for tp, replicas in partition_reassignment.items()
                                       if tp not in c.controller_context.partitions_being_reassigned}
        for tp, new_replicas in sorted(partitions_to_be_reassigned.items()):
            if c.topic_deletion_manager.is_topic_queued_up_for_deletion(tp.topic):
                c.log.error("Skipping reassignment of partition %s since it is currently being deleted", tp)
                c.remove_partition_from_reassigned_partitions(tp)
            else:
                c.initiate_reassign_replicas_for_topic_partition(tp, ReassignedPartitionsContext(list(new_replicas)))


class PartitionReassignmentIsrChange(KafkaControllerEvent):
    """The state znode of a partition being reassigned changed: once every new replica is in the ISR, finish."""

    state = ControllerState.PartitionReassignment

    def __init__(self, controller: KafkaController, topic_partition: TopicPartition,
                 reassigned_replicas: set[int]) -> None:
        super().__init__(controller)
        self.topic_partition = topic_partition
        self.reassigned_replicas = reassigned_replicas

    def process(self) -> None:
        c = self.controller
        if not c.is_active:
            return
        tp = self.topic_partition
        reassigned_partition_context = c.controller_context.partitions_being_reassigned.get(tp)
        if reassigned_partition_context is None:
            return
        leader_and_isr = c.zk_utils.get_leader_and_isr_for_partition(tp.topic, tp.partition)
        if leader_and_isr is None:
            c.log.error("Error handling reassignment of partition %s to replicas %s as it was never created", tp,
                        ",".join(map(str, sorted(self.reassigned_replicas))))
            return
        caught_up_replicas = self.reassigned_replicas & set(leader_and_isr.isr)
        if caught_up_replicas == self.reassigned_replicas:
            c.log.info("%d/%d replicas have caught up with the leader for partition %s being reassigned.Resuming "
                       "partition reassignment", len(caught_up_replicas), len(self.reassigned_replicas), tp)
            c.on_partition_reassignment(tp, reassigned_partition_context)
        else:
            c.log.info("%d/%d replicas have caught up with the leader for partition %s being reassigned.Replica(s) %s "
                       "still need to catch up", len(caught_up_replicas), len(self.reassigned_replicas), tp,
                       ",".join(map(str, sorted(self.reassigned_replicas - set(leader_and_isr.isr)))))


class IsrChangeNotification(KafkaControllerEvent):
    """Leaders wrote `/isr_change_notification/isr_change_<seq>`: refresh those partitions and tell every broker."""

    state = ControllerState.IsrChange

    def __init__(self, controller: KafkaController, sequence_numbers: list[str]) -> None:
        super().__init__(controller)
        self.sequence_numbers = sequence_numbers

    def process(self) -> None:
        c = self.controller
        if not c.is_active:
            return
        try:
            topic_and_partitions = {tp for x in self.sequence_numbers for tp in self.get_topic_and_partition(x)}
            if topic_and_partitions:
                c.update_leader_and_isr_cache(topic_and_partitions)
                self.process_update_notifications(topic_and_partitions)
        finally:
            for x in self.sequence_numbers:
                c.zk_utils.delete_path_recursive(f"{ISR_CHANGE_NOTIFICATION_PATH}/{x}")

    def process_update_notifications(self, topic_and_partitions: set[TopicPartition]) -> None:
        live_brokers = self.controller.controller_context.live_or_shutting_down_broker_ids
        self.controller.log.debug("Sending MetadataRequest to Brokers:%s for TopicAndPartitions:%s",
                                  sorted(live_brokers), sorted(topic_and_partitions))
        self.controller.send_update_metadata_request(live_brokers, topic_and_partitions)

    def get_topic_and_partition(self, child: str) -> set[TopicPartition]:
        change_znode = f"{ISR_CHANGE_NOTIFICATION_PATH}/{child}"
        json_data, _ = self.controller.zk_utils.read_data_maybe_null(change_znode)
        if json_data is None:
            return set()
        try:
            isr_changes = json.loads(json_data)
            return {TopicPartition(p["topic"], int(p["partition"])) for p in isr_changes["partitions"]}
        except (ValueError, KeyError, TypeError):
            self.controller.log.error("Invalid topic and partition JSON in ZK. ZK notification node: %s, JSON: %s",
                                      change_znode, json_data)
            return set()


class LogDirEventNotification(KafkaControllerEvent):
    """Brokers reported failed log dirs: ask them, with LeaderAndIsr, which of their replicas are still there."""

    state = ControllerState.LogDirChange

    def __init__(self, controller: KafkaController, sequence_numbers: list[str]) -> None:
        super().__init__(controller)
        self.sequence_numbers = sequence_numbers

    def process(self) -> None:
        c = self.controller
        try:
            broker_ids = [b for x in self.sequence_numbers
                          if (b := get_broker_id_from_log_dir_event(c.zk_utils, x)) is not None]
            c.on_broker_log_dir_failure(broker_ids)
        finally:
            for x in self.sequence_numbers:
                c.zk_utils.delete_path_recursive(f"{LOG_DIR_EVENT_NOTIFICATION_PATH}/{x}")


class PreferredReplicaLeaderElection(KafkaControllerEvent):
    """`/admin/preferred_replica_election` was written: move those partitions' leadership to their first replica."""

    state = ControllerState.ManualLeaderBalance

    def __init__(self, controller: KafkaController, partitions: set[TopicPartition]) -> None:
        super().__init__(controller)
        self.partitions = partitions

    def process(self) -> None:
        c = self.controller
        if not c.is_active:
            return
        partitions_for_topics_to_be_deleted = {tp for tp in self.partitions
                                               if c.topic_deletion_manager.is_topic_queued_up_for_deletion(tp.topic)}
        if partitions_for_topics_to_be_deleted:
            c.log.error("Skipping preferred replica election for partitions %s since the respective topics are being "
                        "deleted", sorted(partitions_for_topics_to_be_deleted))
        c.on_preferred_replica_election(self.partitions - partitions_for_topics_to_be_deleted)


class AutoPreferredReplicaLeaderElection(KafkaControllerEvent):
    """The scheduler's periodic check for leader imbalance; it schedules the next check whatever happens."""

    state = ControllerState.AutoLeaderBalance

    def process(self) -> None:
        c = self.controller
        if not c.is_active:
            return
        try:
            c.check_and_trigger_auto_leader_rebalance()
        finally:
            c.schedule_auto_leader_rebalance_task(delay_ms=c.config.leader_imbalance_check_interval_seconds * 1000)


# -- listeners: ZooKeeper callbacks only put events on the queue -------------------------------------------------

class ControllerListener:
    """What every listener holds: the controller whose events it makes, and the queue it puts them on."""

    def __init__(self, controller: KafkaController, event_manager: ControllerEventManager) -> None:
        self.controller = controller
        self.event_manager = event_manager


class BrokerChangeListener(ControllerListener):
    def handle_child_change(self, parent_path: str, current_childs: list[str]) -> None:
        self.event_manager.put(BrokerChange(self.controller, current_childs))


class TopicChangeListener(ControllerListener):
    def handle_child_change(self, parent_path: str, current_childs: list[str]) -> None:
        self.event_manager.put(TopicChange(self.controller, set(current_childs)))


class TopicDeletionListener(ControllerListener):
    def handle_child_change(self, parent_path: str, current_childs: list[str]) -> None:
        self.event_manager.put(TopicDeletion(self.controller, set(current_childs)))


class PartitionModificationsListener(ControllerListener):
    def __init__(self, controller: KafkaController, event_manager: ControllerEventManager, topic: str) -> None:
        super().__init__(controller, event_manager)
        self.topic = topic

    def handle_data_change(self, data_path: str, data: str) -> None:
        self.event_manager.put(PartitionModifications(self.controller, self.topic))

    def handle_data_deleted(self, data_path: str) -> None:
        pass


class PartitionReassignmentListener(ControllerListener):
    def handle_data_change(self, data_path: str, data: str) -> None:
        self.event_manager.put(PartitionReassignment(self.controller))

    def handle_data_deleted(self, data_path: str) -> None:
        pass


class PartitionReassignmentIsrChangeListener(ControllerListener):
    def __init__(self, controller: KafkaController, event_manager: ControllerEventManager, topic: str,
                 partition: int, reassigned_replicas: set[int]) -> None:
        super().__init__(controller, event_manager)
        self.topic_partition = TopicPartition(topic, partition)
        self.reassigned_replicas = reassigned_replicas

    def handle_data_change(self, data_path: str, data: str) -> None:
        self.event_manager.put(PartitionReassignmentIsrChange(self.controller, self.topic_partition,
                                                              self.reassigned_replicas))

    def handle_data_deleted(self, data_path: str) -> None:
        pass


class IsrChangeNotificationListener(ControllerListener):
    def handle_child_change(self, parent_path: str, current_childs: list[str]) -> None:
        self.event_manager.put(IsrChangeNotification(self.controller, list(current_childs)))


class LogDirEventNotificationListener(ControllerListener):
    def handle_child_change(self, parent_path: str, current_childs: list[str]) -> None:
        self.event_manager.put(LogDirEventNotification(self.controller, list(current_childs)))


class PreferredReplicaElectionListener(ControllerListener):
    def handle_data_change(self, data_path: str, data: str) -> None:
        try:
            partitions = parse_preferred_replica_election_data(data)
        except Exception as e:
            # In 1.0.2 the parse error escapes into ZkClient's event thread, which logs it and goes on.
            self.controller.log.error("Error handling data change of %s: %s", data_path, e)
            return
        self.event_manager.put(PreferredReplicaLeaderElection(self.controller, partitions))

    def handle_data_deleted(self, data_path: str) -> None:
        pass


class ControllerChangeListener(ControllerListener):
    def handle_data_change(self, data_path: str, data: str) -> None:
        self.event_manager.put(ControllerChange(self.controller, parse_controller_id(data)))

    def handle_data_deleted(self, data_path: str) -> None:
        self.event_manager.put(Reelect(self.controller))


class SessionExpirationListener(ControllerListener, ZkStateListener):
    """A new session replaced an expired one: our `/controller`, if we had it, is gone; elect again."""

    def handle_new_session(self) -> None:
        self.event_manager.put(Reelect(self.controller))

    def handle_session_establishment_error(self, error: Exception) -> None:
        pass  # KafkaHealthcheck's listener reports it
