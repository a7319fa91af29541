"""Port of core/src/main/scala/kafka/controller/KafkaController.scala (Kafka 1.0.2): election and failover.

Every broker runs a KafkaController; the one whose ephemeral `/controller` znode exists is the active controller.
This part elects it, bumps `/controller_epoch`, reads the cluster into the ControllerContext and follows broker and
topic changes. Sending LeaderAndIsr/UpdateMetadata (channel manager, state machines) comes later; until then the
brokers' leadership is PreferredReplicaLeadership's.
"""

from __future__ import annotations

import json
import time

from kazoo.exceptions import NodeExistsError, NoNodeError

from kafka_edu.common.errors import ControllerMovedException, KafkaException, ZkNodeExistsException
from kafka_edu.controller.controller_context import (
    ControllerContext,
    get_all_brokers_in_cluster,
    get_all_topics,
    get_partition_leader_and_isr_for_topics,
    get_replica_assignment_for_topics,
)
from kafka_edu.controller.controller_event_manager import ControllerEvent, ControllerEventManager
from kafka_edu.controller.controller_state import ControllerState
from kafka_edu.controller.zk_subscriptions import ZkSubscriptions
from kafka_edu.log.log import TopicPartition
from kafka_edu.server.kafka_config import KafkaConfig
from kafka_edu.tracing import event, set_attributes, span, step
from kafka_edu.utils.kafka_logging import Logging
from kafka_edu.utils.log_dir_utils import delete_log_dir_events
from kafka_edu.utils.zk_utils import (
    BROKER_IDS_PATH,
    BROKER_TOPICS_PATH,
    CONTROLLER_EPOCH_PATH,
    CONTROLLER_PATH,
    ZkStateListener,
    ZkUtils,
)

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
        self.controller_context = ControllerContext(zk_utils)
        self.event_manager = ControllerEventManager(lambda _: self.update_metrics())
        self.zk_subscriptions = ZkSubscriptions(zk_utils.zk_client)

        self.broker_change_listener = BrokerChangeListener(self, self.event_manager)
        self.topic_change_listener = TopicChangeListener(self, self.event_manager)

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
        # ISR-change, preferred-election, topic-deletion and log-dir listeners come with the features they drive.
        with span("KafkaController.registerTopicChangeListener", {"kafka.step": "CT.failover.04"}):
            self.register_topic_change_listener()
        with span("KafkaController.registerBrokerChangeListener", {"kafka.step": "CT.failover.04"}):
            self.register_broker_change_listener()

        with step("CT.failover.05"):
            self.initialize_controller_context()
        self.log.info("Ready to serve as the new controller with epoch %d", self.epoch)

    def on_controller_resignation(self) -> None:
        """Stop acting as the controller: drop the watches the failover set and forget the cluster."""
        with step("CT.resign", {"kafka.controller.epoch": self.epoch}):
            self.log.debug("Resigning")
            # 1.0.2 first drops the ISR-change, reassignment, preferred-election and log-dir listeners, resets the
            # topic deletion manager and stops the controller scheduler: none of those exist here yet.
            self.global_topic_count = 0
            self.global_partition_count = 0
            self.deregister_topic_change_listener()
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
        # 1.0.2 starts the ControllerChannelManager and reads pending reassignments here; both come later.
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

    def reset_controller_context(self) -> None:
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
    """The children of `/brokers/ids` changed. For now only the context follows; CT.broker comes later."""

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
        context = c.controller_context
        # Read the list again rather than trusting the event's: later changes get handled in this one event.
        cur_brokers = get_all_brokers_in_cluster(c.zk_utils)
        cur_broker_ids = {b.id for b in cur_brokers}
        live_or_shutting_down_broker_ids = context.live_or_shutting_down_broker_ids
        new_broker_ids = cur_broker_ids - live_or_shutting_down_broker_ids
        dead_broker_ids = live_or_shutting_down_broker_ids - cur_broker_ids
        context.live_brokers = cur_brokers
        c.log.info("Newly added brokers: %s, deleted brokers: %s, all live brokers: %s",
                   ",".join(map(str, sorted(new_broker_ids))), ",".join(map(str, sorted(dead_broker_ids))),
                   ",".join(map(str, sorted(cur_broker_ids))))
        set_attributes({"kafka.brokers.new": sorted(new_broker_ids), "kafka.brokers.dead": sorted(dead_broker_ids),
                        "kafka.brokers.live": sorted(cur_broker_ids)})
        # Next: the channel manager adds/removes brokers, then onBrokerStartup / onBrokerFailure (CT.broker).


class TopicChange(ControllerEvent):
    """The children of `/brokers/topics` changed. For now only the context follows; CT.topic comes later."""

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
        context = c.controller_context
        new_topics = self.topics - context.all_topics
        deleted_topics = context.all_topics - self.topics
        context.all_topics = set(self.topics)

        added_partition_replica_assignment = get_replica_assignment_for_topics(c.zk_utils, new_topics)
        context.partition_replica_assignment = {tp: replicas for tp, replicas
                                                in context.partition_replica_assignment.items()
                                                if tp.topic not in deleted_topics}
        context.partition_replica_assignment.update(added_partition_replica_assignment)
        c.log.info("New topics: [%s], deleted topics: [%s], new partition replica assignment [%s]",
                   sorted(new_topics), sorted(deleted_topics), added_partition_replica_assignment)
        set_attributes({"kafka.topics.new": sorted(new_topics), "kafka.topics.deleted": sorted(deleted_topics)})
        # Next: onNewTopicCreation for the new topics (CT.topic).


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
