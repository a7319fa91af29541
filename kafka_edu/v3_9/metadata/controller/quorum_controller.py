"""Port of metadata/src/main/java/org/apache/kafka/controller/QuorumController.java (Kafka 3.9).

The controller is one thread (its KafkaEventQueue) and a set of control managers whose state lives in timeline
structures. Every operation is an event: a read event answers from memory; a write event generates records,
replays them at once on the active controller (before they are committed), hands them to the raft client, and
parks its future in the DeferredEventQueue until the high watermark passes its last offset. Standbys replay the
same records as they are committed. Losing the leadership reverts every manager to the last committed offset.

Ported: the write path, the raft listener (commit, snapshot load, leader change), claim / completeActivation /
renounce, NoOpRecord on idle, the deferred fencing of stale brokers, and createTopics, deleteTopics,
registerBroker, processBrokerHeartbeat, alterPartition, findTopicIds, findTopicNames, allocateProducerIds,
createPartitions, incrementalAlterConfigs, legacyAlterConfigs, alterClientQuotas, alterUserScramCredentials,
updateFeatures, describeConfigs, finalizedFeatures, and the periodic preferred-leader balancing. Left out: ACLs,
delegation tokens, ElectLeaders, reassignments, ZooKeeper migration,
metrics. The periodic NoOp write is scheduled as 3.6 did it (a self-rescheduling deferred event); 3.9 moved it into
a PeriodicTaskControlManager with the same effect.
"""

from __future__ import annotations

import datetime
import enum
import logging
import random
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Generic, TypeVar

from kio.schema.alter_partition.v3.response import AlterPartitionResponse
from kio.schema.alter_partition_reassignments.v0.response import AlterPartitionReassignmentsResponse
from kio.schema.create_topics.v7.response import CreateTopicsResponse
from kio.schema.elect_leaders.v2.response import ElectLeadersResponse
from kio.schema.list_partition_reassignments.v0.response import ListPartitionReassignmentsResponse
from kio.static.primitive import i32Timedelta

from kafka_edu.tracing.step import note, span, step
from kafka_edu.v1_0_2.clients.common.errors import (
    ApiException,
    IllegalStateException,
    InvalidRequestException,
    NotControllerException,
    UnknownTopicOrPartitionException,
)
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.server.policy.alter_config_policy import AlterConfigPolicy
from kafka_edu.v3_9.clients.server.policy.create_topic_policy import CreateTopicPolicy
from kafka_edu.v3_9.metadata.common.metadata import ApiMessageAndVersion, NoOpRecord
from kafka_edu.v3_9.metadata.controller import activation_records_generator
from kafka_edu.v3_9.metadata.controller.acl_control_manager import AclControlManager
from kafka_edu.v3_9.metadata.controller.broker_heartbeat_manager import LONG_MAX
from kafka_edu.v3_9.metadata.controller.client_quota_control_manager import ClientQuotaControlManager
from kafka_edu.v3_9.metadata.controller.cluster_control_manager import DEFAULT_SESSION_TIMEOUT_NS, ClusterControlManager
from kafka_edu.v3_9.metadata.controller.configuration_control_manager import (
    ConfigResourceType,
    ConfigurationControlManager,
)
from kafka_edu.v3_9.metadata.controller.configuration_validator import ConfigurationValidator
from kafka_edu.v3_9.metadata.controller.controller_exceptions import (
    BrokerIdNotRegisteredException,
    EventHandlerExceptionInfo,
    StaleBrokerEpochException,
    is_timeout_exception,
    new_wrong_controller_exception,
)
from kafka_edu.v3_9.metadata.controller.controller_request_context import ControllerRequestContext
from kafka_edu.v3_9.metadata.controller.controller_result import ControllerResult, ControllerResultAndOffset
from kafka_edu.v3_9.metadata.controller.feature_control_manager import (
    FeatureControlManager,
    UpgradeType,
    is_no_op_record_supported,
)
from kafka_edu.v3_9.metadata.controller.offset_control_manager import OffsetControlManager
from kafka_edu.v3_9.metadata.controller.producer_id_control_manager import ProducerIdControlManager
from kafka_edu.v3_9.metadata.controller.quorum_features import QuorumFeatures, default_feature_map
from kafka_edu.v3_9.metadata.controller.replication_control_manager import ApiError, ReplicationControlManager
from kafka_edu.v3_9.metadata.controller.scram_control_manager import ScramControlManager
from kafka_edu.v3_9.metadata.metadata.broker_registration import BrokerHeartbeatReply, BrokerRegistrationReply
from kafka_edu.v3_9.metadata.metadata.kafka_config_schema import KafkaConfigSchema
from kafka_edu.v3_9.metadata.metadata.placement.replica_placer import ReplicaPlacer
from kafka_edu.v3_9.metadata.metadata.placement.striped_replica_placer import StripedReplicaPlacer
from kafka_edu.v3_9.metadata.metadata.version_range import VersionRange
from kafka_edu.v3_9.raft.raft.raft_client import RaftClient
from kafka_edu.v3_9.server_common.deferred.deferred_event import DeferredEvent
from kafka_edu.v3_9.server_common.deferred.deferred_event_queue import DeferredEventQueue
from kafka_edu.v3_9.server_common.queue.event_queue import EarliestDeadlineFunction, Event
from kafka_edu.v3_9.server_common.queue.kafka_event_queue import SYSTEM_TIME, KafkaEventQueue, Time
from kafka_edu.v3_9.server_common.server.common.metadata_version import MINIMUM_KRAFT_VERSION
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import LATEST_EPOCH, SnapshotRegistry

T = TypeVar("T")

MAX_RECORDS_PER_BATCH = 10000  # the most records the controller writes in one batch
MAX_RECORDS_PER_USER_OP = MAX_RECORDS_PER_BATCH
MAYBE_FENCE_REPLICAS = "maybeFenceReplicas"
MAYBE_BALANCE_PARTITION_LEADERS = "maybeBalancePartitionLeaders"
MAYBE_ELECT_UNCLEAN_LEADERS = "maybeElectUncleanLeaders"  # part C
UNCLEAN_LEADER_ELECTION_CHECK_INTERVAL_NS = 300_000 * 1_000_000  # unclean.leader.election.interval.ms (3.9: 5 min)
WRITE_NO_OP_RECORD = "writeNoOpRecord"


class FaultHandler:
    """server-common's FaultHandler: told of a fault, returns the exception for the caller to raise."""

    def __init__(self, name: str = "fault", on_fault: Callable[[str, BaseException | None], None] | None = None
                 ) -> None:
        self.name = name
        self.on_fault = on_fault
        self.log = logging.getLogger("org.apache.kafka.server.fault.LoggingFaultHandler")

    def handle_fault(self, failure_message: str, cause: BaseException | None = None) -> RuntimeError:
        self.log.error("Encountered %s fault: %s", self.name, failure_message, exc_info=cause)
        if self.on_fault is not None:
            self.on_fault(failure_message, cause)
        error = RuntimeError(failure_message)
        error.__cause__ = cause
        return error


class ImbalanceSchedule(enum.Enum):
    SCHEDULED = "SCHEDULED"  # a balancing event is in the queue
    DEFERRED = "DEFERRED"  # the next one waits leader.imbalance.check.interval
    IMMEDIATELY = "IMMEDIATELY"  # the last one had more to do: the next one runs at once


class ControllerOperationFlag(enum.Enum):
    DOES_NOT_UPDATE_QUEUE_TIME = "DOES_NOT_UPDATE_QUEUE_TIME"  # deferred events: their wait is not queue time
    RUNS_IN_PREMIGRATION = "RUNS_IN_PREMIGRATION"


class ControllerWriteOperation(Generic[T]):
    """What a write event does: generate the records and the reply (without changing hard state: the records
    change it when they are replayed), then learn the offset its last record got."""

    def __init__(self, generate: Callable[[], ControllerResult[T]],
                 process_batch_end_offset: Callable[[int], None] | None = None) -> None:
        self._generate = generate
        self._process_batch_end_offset = process_batch_end_offset

    def generate_records_and_result(self) -> ControllerResult[T]:
        return self._generate()

    def process_batch_end_offset(self, offset: int) -> None:
        if self._process_batch_end_offset is not None:
            self._process_batch_end_offset(offset)


class QuorumController:
    """The KRaft controller: active when this node leads the metadata log's raft quorum, a hot standby else."""

    class Builder:
        def __init__(self, node_id: int, cluster_id: str) -> None:
            self.node_id = node_id
            self.cluster_id = cluster_id
            self.non_fatal_fault_handler: FaultHandler | None = None
            self.fatal_fault_handler: FaultHandler | None = None
            self.time: Time = SYSTEM_TIME
            self.thread_name_prefix: str | None = None
            self.raft_client: RaftClient | None = None
            self.default_replication_factor = 3
            self.default_num_partitions = 1
            self.replica_placer: ReplicaPlacer = StripedReplicaPlacer(random.Random())
            self.max_idle_interval_ns: int | None = None
            self.session_timeout_ns = DEFAULT_SESSION_TIMEOUT_NS
            self.bootstrap_metadata: Any = None
            self.max_records_per_batch = MAX_RECORDS_PER_BATCH
            self.leader_imbalance_check_interval_ns: int | None = None
            # None: the ones ControllerServer passes (ConfigurationControlManager's defaults in this port).
            self.config_schema: KafkaConfigSchema | None = None
            self.configuration_validator: ConfigurationValidator | None = None
            self.static_config: dict[str, Any] = {}
            self.create_topic_policy: CreateTopicPolicy | None = None
            self.alter_config_policy: AlterConfigPolicy | None = None

        def set_non_fatal_fault_handler(self, handler: FaultHandler) -> QuorumController.Builder:
            self.non_fatal_fault_handler = handler
            return self

        def set_fatal_fault_handler(self, handler: FaultHandler) -> QuorumController.Builder:
            self.fatal_fault_handler = handler
            return self

        def set_time(self, time: Time) -> QuorumController.Builder:
            self.time = time
            return self

        def set_thread_name_prefix(self, prefix: str) -> QuorumController.Builder:
            self.thread_name_prefix = prefix
            return self

        def set_raft_client(self, raft_client: RaftClient) -> QuorumController.Builder:
            self.raft_client = raft_client
            return self

        def set_default_replication_factor(self, value: int) -> QuorumController.Builder:
            self.default_replication_factor = value
            return self

        def set_default_num_partitions(self, value: int) -> QuorumController.Builder:
            self.default_num_partitions = value
            return self

        def set_replica_placer(self, replica_placer: ReplicaPlacer) -> QuorumController.Builder:
            self.replica_placer = replica_placer
            return self

        def set_max_idle_interval_ns(self, value: int | None) -> QuorumController.Builder:
            self.max_idle_interval_ns = value
            return self

        def set_session_timeout_ns(self, value: int) -> QuorumController.Builder:
            self.session_timeout_ns = value
            return self

        def set_bootstrap_metadata(self, bootstrap_metadata: Any) -> QuorumController.Builder:
            self.bootstrap_metadata = bootstrap_metadata
            return self

        def set_max_records_per_batch(self, value: int) -> QuorumController.Builder:
            self.max_records_per_batch = value
            return self

        def set_leader_imbalance_check_interval_ns(self, value: int | None) -> QuorumController.Builder:
            """How often to look for partitions to give back to their preferred leader (None: never)."""
            self.leader_imbalance_check_interval_ns = value
            return self

        def set_config_schema(self, config_schema: KafkaConfigSchema) -> QuorumController.Builder:
            self.config_schema = config_schema
            return self

        def set_configuration_validator(self, validator: ConfigurationValidator) -> QuorumController.Builder:
            self.configuration_validator = validator
            return self

        def set_static_config(self, static_config: dict[str, Any]) -> QuorumController.Builder:
            self.static_config = dict(static_config)
            return self

        def set_create_topic_policy(self, create_topic_policy: CreateTopicPolicy | None) -> QuorumController.Builder:
            self.create_topic_policy = create_topic_policy
            return self

        def set_alter_config_policy(self, alter_config_policy: AlterConfigPolicy | None) -> QuorumController.Builder:
            self.alter_config_policy = alter_config_policy
            return self

        def build(self) -> QuorumController:
            if self.raft_client is None:
                raise RuntimeError("IllegalStateException: You must set a raft client.")
            if self.bootstrap_metadata is None:
                raise RuntimeError("IllegalStateException: You must specify an initial metadata.version using the "
                                   "kafka-storage tool.")
            fatal = self.fatal_fault_handler or FaultHandler("fatal controller")
            non_fatal = self.non_fatal_fault_handler or FaultHandler("controller")
            prefix = self.thread_name_prefix or f"quorum-controller-{self.node_id}-"
            log_context = f"[QuorumController id={self.node_id}] "
            queue = KafkaEventQueue(self.time, log_context, prefix)
            try:
                return QuorumController(non_fatal, fatal, log_context, self.node_id, self.cluster_id, queue,
                                        self.time, self.raft_client, self.default_replication_factor,
                                        self.default_num_partitions, self.replica_placer, self.max_idle_interval_ns,
                                        self.session_timeout_ns, self.bootstrap_metadata, self.max_records_per_batch,
                                        self.config_schema, self.configuration_validator, self.static_config,
                                        self.create_topic_policy, self.alter_config_policy,
                                        self.leader_imbalance_check_interval_ns)
            except Exception:
                queue.close()
                raise

    # -- events ---------------------------------------------------------------------------------------------------

    class ControllerEvent(Event):
        """An internal event: raft callbacks and other state changes."""

        def __init__(self, controller: QuorumController, name: str, handler: Callable[[], None]) -> None:
            self.controller = controller
            self.name = name
            self.handler = handler
            self.event_created_time_ns = controller.time.nanoseconds()
            self.start_processing_time_ns: int | None = None

        def run(self) -> None:
            self.start_processing_time_ns = self.controller.time.nanoseconds()
            self.controller.log.debug("Executing %s.", self)
            self.handler()
            self.controller._handle_event_end(self.name, self.start_processing_time_ns)

        def handle_exception(self, exception: BaseException) -> None:
            self.controller._handle_event_exception(self.name, self.start_processing_time_ns, exception)

        def __str__(self) -> str:
            return self.name

    class ControllerReadEvent(Event, Generic[T]):
        """An event that answers from the in-memory state."""

        def __init__(self, controller: QuorumController, name: str, handler: Callable[[], T]) -> None:
            self.controller = controller
            self.name = name
            self.future: Future[T] = Future()
            self.handler = handler
            self.start_processing_time_ns: int | None = None

        def run(self) -> None:
            self.start_processing_time_ns = self.controller.time.nanoseconds()
            value = self.handler()
            self.controller._handle_event_end(self.name, self.start_processing_time_ns)
            self.future.set_result(value)

        def handle_exception(self, exception: BaseException) -> None:
            self.future.set_exception(
                self.controller._handle_event_exception(self.name, self.start_processing_time_ns, exception))

        def __str__(self) -> str:
            return f"{self.name}({id(self)})"

    class ControllerWriteEvent(Event, DeferredEvent, Generic[T]):
        """An event that changes the state: its records go to the log, its future completes when they commit."""

        def __init__(self, controller: QuorumController, name: str, op: ControllerWriteOperation[T],
                     flags: set[ControllerOperationFlag] | None = None) -> None:
            self.controller = controller
            self.name = name
            self.future: Future[T] = Future()
            self.op = op
            self.flags = flags or set()
            self.event_created_time_ns = controller.time.nanoseconds()
            self.start_processing_time_ns: int | None = None
            self.result_and_offset: ControllerResultAndOffset[T] | None = None

        @span("QuorumController.ControllerWriteEvent.run")
        def run(self) -> None:
            c = self.controller
            self.start_processing_time_ns = c.time.nanoseconds()
            controller_epoch = c.cur_claim_epoch
            if not QuorumController._is_active_controller(controller_epoch):
                raise new_wrong_controller_exception(c._latest_controller())
            result = self.op.generate_records_and_result()
            if not result.records:
                self.op.process_batch_end_offset(c.offset_control.next_write_offset() - 1)
                # A write that wrote nothing is a read of possibly uncommitted state: it completes when what it
                # read is committed (now, if nothing is pending).
                max_offset = c.deferred_event_queue.highest_pending_offset()
                if max_offset is None:
                    self.result_and_offset = ControllerResultAndOffset.of(-1, result)
                    c.log.debug("Completing read-only operation %s immediately because the purgatory is empty.",
                                self)
                    self.complete(None)
                else:
                    self.result_and_offset = ControllerResultAndOffset.of(max_offset, result)
                    c.log.debug("Read-only operation %s will be completed when the log reaches offset %d", self,
                                max_offset)
            else:
                # Replay on the active controller, then hand the records to the raft layer to commit.
                offset = c._append_records(result, controller_epoch)
                self.op.process_batch_end_offset(offset)
                self.result_and_offset = ControllerResultAndOffset.of(offset, result)
                c.log.debug("Read-write operation %s will be completed when the log reaches offset %d.", self,
                            offset)
            # After every write, a leader rebalance if some partition's leader is not its preferred one.
            c.maybe_schedule_next_balance_partition_leaders()
            # And an unclean election if some partition has no leader.
            c.maybe_schedule_next_elect_unclean_leaders()
            if not self.future.done():
                c.deferred_event_queue.add(self.result_and_offset.offset, self)

        def handle_exception(self, exception: BaseException) -> None:
            self.complete(exception)

        def complete(self, exception: BaseException | None) -> None:
            if self.future.done():
                return
            if exception is None:
                self.controller._handle_event_end(self.name, self.start_processing_time_ns)
                self.future.set_result(self.result_and_offset.response())
            else:
                self.future.set_exception(self.controller._handle_event_exception(
                    self.name, self.start_processing_time_ns, exception))

        def __str__(self) -> str:
            return f"{self.name}({id(self)})"

    class ConfigResourceExistenceChecker:
        """Does the resource a config change names exist? A broker (or the cluster default, ''), a topic."""

        def __init__(self, controller: QuorumController) -> None:
            self.controller = controller

        def __call__(self, config_resource: Any) -> None:
            self.accept(config_resource)

        def accept(self, config_resource: Any) -> None:
            resource_type, name = config_resource
            if resource_type == ConfigResourceType.BROKER_LOGGER:
                return  # always allowed
            if resource_type == ConfigResourceType.BROKER:
                if name == "":
                    return  # the cluster's configs
                try:
                    node_id = int(name)
                except ValueError:
                    raise InvalidRequestException(f"Invalid broker name {name}") from None
                # Kafka also accepts a controller's id (featureControl.isControllerId, KIP-919): not ported.
                if not self.controller.cluster_control.broker_registrations().contains_key(node_id):
                    raise BrokerIdNotRegisteredException(f"No node with id {node_id} found.")
            elif resource_type == ConfigResourceType.TOPIC:
                if self.controller.replication_control.get_topic_id(name) is None:
                    raise UnknownTopicOrPartitionException(f"The topic '{name}' does not exist.")

    class ClusterSupportDescriber:
        """part A: what the brokers' registrations say they support (ClusterControlManager's brokerSupportedFeatures);
        None for the controllers: the port has no controller registrations (KIP-919)."""

        def __init__(self, controller: QuorumController) -> None:
            self.controller = controller

        def broker_supported(self) -> list[tuple[int, dict[str, VersionRange]]]:
            return [(broker_id, {name: VersionRange.of(low, high)
                                 for name, (low, high) in registration.supported_features.items()})
                    for broker_id, registration in self.controller.cluster_control.broker_registrations().entry_set()]

        def controller_supported(self) -> None:
            return None

    class QuorumMetaLogListener(RaftClient.Listener):
        """The raft client's callbacks (on its thread), each turned into an event on the controller's queue."""

        def __init__(self, controller: QuorumController) -> None:
            self.controller = controller

        def handle_commit(self, reader: Any) -> None:
            c = self.controller

            def handle_commit_event() -> None:
                try:
                    is_active = c._is_active()
                    for batch in reader:
                        with span("QuorumController.QuorumMetaLogListener.handleCommit", self, batch=batch):
                            offset, epoch = batch.last_offset, batch.epoch
                            if is_active:
                                # The active controller replayed these when it wrote them.
                                c.log.debug("Completing purgatory items up to offset %d and epoch %d.", offset,
                                            epoch)
                                c.offset_control.handle_commit_batch(batch)
                                c.deferred_event_queue.complete_up_to(c.offset_control.last_stable_offset())
                            else:
                                c.log.debug("Replaying commits from the active node up to offset %d and epoch %d.",
                                            offset, epoch)
                                c._replay_batch(batch.records, batch.base_offset, "standby")
                                c.offset_control.handle_commit_batch(batch)
                finally:
                    reader.close()

            self._append_raft_event(f"handleCommit[baseOffset={reader.base_offset()}]", handle_commit_event)

        def handle_load_snapshot(self, reader: Any) -> None:
            c = self.controller

            def handle_load_snapshot_event() -> None:
                try:
                    snapshot_id = reader.snapshot_id()
                    if c._is_active():
                        raise c.fatal_fault_handler.handle_fault(
                            f"Asked to load snapshot {snapshot_id}, but we are the active controller at epoch "
                            f"{c.cur_claim_epoch}")
                    c.offset_control.begin_load_snapshot(snapshot_id)
                    for batch in reader:
                        for message in batch.records:
                            try:
                                c.replay(message.message, snapshot_id, reader.last_contained_log_offset())
                            except Exception as e:
                                raise c.fatal_fault_handler.handle_fault(
                                    f"Unable to apply {type(message.message).__name__} record from snapshot "
                                    f"{snapshot_id} on standby controller", e) from e
                    c.offset_control.end_load_snapshot(reader.last_contained_log_timestamp())
                finally:
                    reader.close()

            self._append_raft_event("handleLoadSnapshot", handle_load_snapshot_event)

        def handle_leader_change(self, new_leader: Any) -> None:
            c = self.controller

            def handle_leader_change_event() -> None:
                with span("QuorumController.QuorumMetaLogListener.handleLeaderChange", self, new_leader=new_leader):
                    new_leader_name = str(new_leader.leader_id) if new_leader.leader_id is not None else "(none)"
                    if c._is_active():
                        if new_leader.is_leader(c.node_id):
                            c.log.warning("We were the leader in epoch %d, and are still the leader in the new "
                                          "epoch %d.", c.cur_claim_epoch, new_leader.epoch)
                            c.cur_claim_epoch = new_leader.epoch
                        else:
                            c.log.warning("Renouncing the leadership due to a metadata log event. We were the "
                                          "leader at epoch %d, but in the new epoch %d, the leader is %s. Reverting "
                                          "to last stable offset %d.", c.cur_claim_epoch, new_leader.epoch,
                                          new_leader_name, c.offset_control.last_stable_offset())
                            c.renounce()
                    elif new_leader.is_leader(c.node_id):
                        new_next_write_offset = c.raft_client.log_end_offset()
                        c.log.info("Becoming the active controller at epoch %d, next write offset %d.",
                                   new_leader.epoch, new_next_write_offset)
                        c.claim(new_leader.epoch, new_next_write_offset)
                    else:
                        c.log.info("In the new epoch %d, the leader is %s.", new_leader.epoch, new_leader_name)

            self._append_raft_event(f"handleLeaderChange[{new_leader.epoch}]", handle_leader_change_event)

        def begin_shutdown(self) -> None:
            self.controller.queue.begin_shutdown("MetaLogManager.Listener")

        def _append_raft_event(self, name: str, runnable: Callable[[], None]) -> None:
            c = self.controller

            def guarded() -> None:
                if self is not c.meta_log_listener:
                    c.log.debug("Ignoring %s raft event from an old registration", name)
                else:
                    runnable()

            c.append_control_event(name, guarded)

    # -- construction ---------------------------------------------------------------------------------------------

    def __init__(self, non_fatal_fault_handler: FaultHandler, fatal_fault_handler: FaultHandler, log_context: str,
                 node_id: int, cluster_id: str, queue: KafkaEventQueue, time: Time, raft_client: RaftClient,
                 default_replication_factor: int, default_num_partitions: int, replica_placer: ReplicaPlacer,
                 max_idle_interval_ns: int | None, session_timeout_ns: int, bootstrap_metadata: Any,
                 max_records_per_batch: int, config_schema: KafkaConfigSchema | None = None,
                 configuration_validator: ConfigurationValidator | None = None,
                 static_config: dict[str, Any] | None = None, create_topic_policy: CreateTopicPolicy | None = None,
                 alter_config_policy: AlterConfigPolicy | None = None,
                 leader_imbalance_check_interval_ns: int | None = None) -> None:
        self.non_fatal_fault_handler = non_fatal_fault_handler
        self.fatal_fault_handler = fatal_fault_handler
        self.log = logging.LoggerAdapter(logging.getLogger("org.apache.kafka.controller.QuorumController"),
                                         {"log_context": log_context})
        self.log_context = log_context
        self.node_id = node_id
        self._cluster_id = cluster_id
        self.queue = queue
        self.time = time
        self.snapshot_registry = SnapshotRegistry(log_context)
        self.deferred_event_queue = DeferredEventQueue(log_context)
        self.offset_control = OffsetControlManager(self.snapshot_registry, log_context)
        self.resource_exists = QuorumController.ConfigResourceExistenceChecker(self)
        self.configuration_control = ConfigurationControlManager(
            self.snapshot_registry, log_context, config_schema=config_schema, validator=configuration_validator,
            static_config=static_config, node_id=node_id, existence_checker=self.resource_exists,
            alter_config_policy=alter_config_policy)
        # A log without a metadata.version is treated as the oldest KRaft version until one is replayed.
        self.feature_control = FeatureControlManager(
            self.snapshot_registry, MINIMUM_KRAFT_VERSION, log_context,
            # part A: ControllerServer's QuorumFeatures (production features only)
            quorum_features=QuorumFeatures(node_id, default_feature_map(False), [node_id]),
            cluster_support_describer=QuorumController.ClusterSupportDescriber(self))
        self.cluster_control = ClusterControlManager(self.snapshot_registry, cluster_id, self.feature_control,
                                                     replica_placer, session_timeout_ns, time.nanoseconds,
                                                     log_context)
        self.producer_id_control_manager = ProducerIdControlManager(self.cluster_control, self.snapshot_registry,
                                                                    log_context)
        self.acl_control_manager = AclControlManager(self.snapshot_registry, log_context)
        self.client_quota_control_manager = ClientQuotaControlManager(self.snapshot_registry, log_context)  # part A
        self.scram_control_manager = ScramControlManager(self.snapshot_registry, log_context)  # part A
        self.replication_control = ReplicationControlManager(self.snapshot_registry, self.cluster_control,
                                                             self.configuration_control, self.feature_control,
                                                             default_replication_factor, default_num_partitions,
                                                             log_context, create_topic_policy)
        self.max_idle_interval_ns = max_idle_interval_ns
        self.leader_imbalance_check_interval_ns = leader_imbalance_check_interval_ns
        self.imbalanced_scheduled = ImbalanceSchedule.DEFERRED
        # part C: the periodic unclean elections (unclean.leader.election.interval.ms, 3.9's default)
        self.unclean_leader_election_check_interval_ns = UNCLEAN_LEADER_ELECTION_CHECK_INTERVAL_NS
        self.unclean_scheduled = ImbalanceSchedule.DEFERRED
        self.raft_client = raft_client
        self.bootstrap_metadata = bootstrap_metadata
        self.max_records_per_batch = max_records_per_batch
        self.meta_log_listener = QuorumController.QuorumMetaLogListener(self)
        # The epoch this controller leads, or -1 on a standby; written on the controller thread only.
        self.cur_claim_epoch = -1
        self.no_op_record_scheduled = False
        self.log_replay_tracker_empty = True  # LogReplayTracker: nothing replayed yet (a new cluster's log)
        self.log.info("%sCreating new QuorumController with clusterId %s.", log_context, cluster_id)
        self.raft_client.register(self.meta_log_listener)

    # -- the event helpers ----------------------------------------------------------------------------------------

    def _latest_controller(self) -> int | None:
        return self.raft_client.leader_and_epoch().leader_id

    def _handle_event_end(self, name: str, start_processing_time_ns: int | None) -> None:
        if start_processing_time_ns is not None:
            delta_us = (self.time.nanoseconds() - start_processing_time_ns) // 1000
            self.log.debug("%sProcessed %s in %d us", self.log_context, name, delta_us)

    def _handle_event_exception(self, name: str, start_processing_time_ns: int | None,
                                exception: BaseException) -> BaseException:
        delta_us = None
        if start_processing_time_ns is not None:
            delta_us = (self.time.nanoseconds() - start_processing_time_ns) // 1000
        info = EventHandlerExceptionInfo.from_internal(exception, self._latest_controller)
        epoch = self.cur_claim_epoch if self.cur_claim_epoch != -1 else self.offset_control.last_committed_epoch()
        failure_message = info.failure_message(epoch, delta_us, self._is_active(),
                                               self.offset_control.last_committed_offset())
        if info.is_fault:
            self.non_fatal_fault_handler.handle_fault(f"{name}: {failure_message}", exception)
        else:
            self.log.info("%s%s: %s", self.log_context, name, failure_message)
        if info.causes_failover and self._is_active():
            self.renounce()
        return info.effective_external_exception()

    def append_control_event(self, name: str, handler: Callable[[], None]) -> None:
        self.queue.append(QuorumController.ControllerEvent(self, name, handler))

    def append_read_event(self, name: str, deadline_ns: int | None, handler: Callable[[], T]) -> Future[T]:
        event = QuorumController.ControllerReadEvent(self, name, handler)
        if deadline_ns is not None:
            self.queue.append_with_deadline(deadline_ns, event)
        else:
            self.queue.append(event)
        return event.future

    def append_write_event(self, name: str, deadline_ns: int | None, op: ControllerWriteOperation[T] | Callable,
                           flags: set[ControllerOperationFlag] | None = None) -> Future[T]:
        if not isinstance(op, ControllerWriteOperation):
            op = ControllerWriteOperation(op)
        event = QuorumController.ControllerWriteEvent(self, name, op, flags)
        if deadline_ns is not None:
            self.queue.append_with_deadline(deadline_ns, event)
        else:
            self.queue.append(event)
        return event.future

    def _append_records(self, result: ControllerResult, controller_epoch: int) -> int:
        return QuorumController.append_records(self.log, result, self.max_records_per_batch,
                                               lambda records: self._append_batch(records, controller_epoch))

    @staticmethod
    def append_records(log: Any, result: ControllerResult, max_records_per_batch: int,
                       appender: Callable[[list[ApiMessageAndVersion]], int]) -> int:
        """appendRecords: each batch (all of an atomic result, else up to max_records_per_batch) goes to
        `appender`, which prepares it with the raft client, replays it, and schedules it; returns the last batch's
        last offset."""
        records = result.records
        try:
            if result.is_atomic:
                if len(records) > max_records_per_batch:
                    raise IllegalStateException(f"Attempted to atomically commit {len(records)} records, but "
                                                f"maxRecordsPerBatch is {max_records_per_batch}")
                offset = appender(records)
                log.debug("Atomically appended %d record(s) ending with offset %d.", len(records), offset)
                return offset
            offset = -1
            for start_index in range(0, len(records), max_records_per_batch):
                offset = appender(records[start_index:start_index + max_records_per_batch])
            return offset
        except ApiException as e:
            # An ApiException from the raft layer is not the caller's error: make it an unexpected one.
            raise RuntimeError(str(e)) from e

    def _append_batch(self, records: list[ApiMessageAndVersion], controller_epoch: int) -> int:
        last_offset = self.raft_client.prepare_append(controller_epoch, records)
        base_offset = last_offset - len(records) + 1
        # Replayed before commit: the next event must see this one's effects; a renounce reverts them.
        self._replay_batch(records, base_offset, "active")
        self.raft_client.schedule_prepared_append()
        self.offset_control.handle_schedule_append(last_offset)
        return last_offset

    @step("KR.replay")
    def _replay_batch(self, records: list[ApiMessageAndVersion], base_offset: int, role: str) -> None:
        for record_index, message in enumerate(records):
            record_offset = base_offset + record_index
            try:
                self.replay(message.message, None, record_offset)
            except Exception as e:
                raise self.fatal_fault_handler.handle_fault(
                    f"Unable to apply {type(message.message).__name__} record at offset {record_offset} on "
                    f"{role} controller, from the batch with baseOffset {base_offset}", e) from e

    # -- leadership -----------------------------------------------------------------------------------------------

    def _is_active(self) -> bool:
        return QuorumController._is_active_controller(self.cur_claim_epoch)

    @staticmethod
    def _is_active_controller(claim_epoch: int) -> bool:
        return claim_epoch != -1

    @span("QuorumController.claim")
    def claim(self, epoch: int, new_next_write_offset: int) -> None:
        try:
            if self.cur_claim_epoch != -1:
                raise RuntimeError("Cannot claim leadership because we are already the active controller.")
            self.cur_claim_epoch = epoch
            self.offset_control.activate(new_next_write_offset)
            self.cluster_control.activate()
            # First in the queue, and the only event that is ever prepended: nothing may write before it.
            activation_event = QuorumController.ControllerWriteEvent(
                self, f"completeActivation[{epoch}]",
                ControllerWriteOperation(self.complete_activation, self._after_activation),
                {ControllerOperationFlag.DOES_NOT_UPDATE_QUEUE_TIME, ControllerOperationFlag.RUNS_IN_PREMIGRATION})
            self.queue.prepend(activation_event)
        except Exception as e:
            self.fatal_fault_handler.handle_fault("exception while claiming leadership", e)

    @span("QuorumController.completeActivation")
    def complete_activation(self) -> ControllerResult[None]:
        try:
            return activation_records_generator.generate(
                lambda message: self.log.info("%s%s", self.log_context, message), self.log_replay_tracker_empty,
                self.offset_control.transaction_start_offset(), self.bootstrap_metadata, self.feature_control)
        except Exception as e:
            raise self.fatal_fault_handler.handle_fault("exception while completing controller activation",
                                                        e) from e

    def _after_activation(self, offset: int) -> None:
        # The activation records are replayed by now: metadata.version is known, periodic writes can start.
        self.maybe_schedule_next_balance_partition_leaders()
        self.maybe_schedule_next_elect_unclean_leaders()
        self.maybe_schedule_next_write_no_op_record()
        self.reschedule_maybe_fence_stale_brokers()

    @span("QuorumController.renounce")
    def renounce(self) -> None:
        try:
            if self.cur_claim_epoch == -1:
                raise RuntimeError("Cannot renounce leadership because we are not the current leader.")
            self.raft_client.resign(self.cur_claim_epoch)
            self.cur_claim_epoch = -1
            self.deferred_event_queue.fail_all(new_wrong_controller_exception(None))
            self.offset_control.deactivate()
            self.cluster_control.deactivate()
            self.cancel_maybe_fence_replicas()
            self.cancel_maybe_balance_partition_leaders()
            self.cancel_maybe_next_elect_unclean_leaders()
            self.cancel_next_write_no_op_record()
        except Exception as e:
            self.fatal_fault_handler.handle_fault("exception while renouncing leadership", e)

    def _schedule_deferred_write_event(self, name: str, deadline_ns: int, op: ControllerWriteOperation,
                                       flags: set[ControllerOperationFlag]) -> None:
        if ControllerOperationFlag.DOES_NOT_UPDATE_QUEUE_TIME not in flags:
            raise RuntimeError("deferred events should not update the queue time.")
        event = QuorumController.ControllerWriteEvent(self, name, op, flags)
        self.queue.schedule_deferred(name, EarliestDeadlineFunction(deadline_ns), event)

        def on_done(future: Future) -> None:
            e = future.exception()
            if e is None:
                return
            if is_timeout_exception(e):
                self.log.error("%sCancelling deferred write event %s because the event queue is now closed.",
                               self.log_context, name)
            elif isinstance(e, NotControllerException):
                self.log.debug("%sCancelling deferred write event %s because this controller is no longer active.",
                               self.log_context, name)
            elif type(e).__name__ != "RejectedExecutionException":
                self.log.error("%sUnexpected exception while executing deferred write event %s. Rescheduling for a "
                               "minute from now.", self.log_context, name, exc_info=e)
                self._schedule_deferred_write_event(name, deadline_ns + 60_000_000_000, op, flags)

        event.future.add_done_callback(on_done)

    def reschedule_maybe_fence_stale_brokers(self) -> None:
        """(Re)arm the deferred fencing event for when the longest-silent unfenced broker's session ends."""
        next_check_time_ns = self.cluster_control.heartbeat_manager().next_check_time_ns()
        if next_check_time_ns == LONG_MAX:
            self.cancel_maybe_fence_replicas()
            return

        def maybe_fence_stale_brokers() -> ControllerResult[None]:
            with step("KR.fence", self):
                result = self.replication_control.maybe_fence_one_stale_broker()
                note(result=result)
                # Several brokers may be stale at once: the next one is fenced by the next event, at once.
                self.reschedule_maybe_fence_stale_brokers()
            return result

        self._schedule_deferred_write_event(
            MAYBE_FENCE_REPLICAS, next_check_time_ns, ControllerWriteOperation(maybe_fence_stale_brokers),
            {ControllerOperationFlag.DOES_NOT_UPDATE_QUEUE_TIME, ControllerOperationFlag.RUNS_IN_PREMIGRATION})

    def cancel_maybe_fence_replicas(self) -> None:
        self.queue.cancel_deferred(MAYBE_FENCE_REPLICAS)

    def maybe_schedule_next_balance_partition_leaders(self) -> None:
        """Arm the balancing event when some partition's leader is not its preferred replica: after the check
        interval, or 10 ms from now if the last event left elections undone."""
        if (self.imbalanced_scheduled is ImbalanceSchedule.SCHEDULED or self.leader_imbalance_check_interval_ns is None
                or not self.replication_control.are_partition_leaders_imbalanced()):
            return
        self.log.debug("%sScheduling write event for %s because scheduled (%s), checkIntervalNs (%s) and "
                       "isImbalanced (%s)", self.log_context, MAYBE_BALANCE_PARTITION_LEADERS,
                       self.imbalanced_scheduled, self.leader_imbalance_check_interval_ns,
                       self.replication_control.are_partition_leaders_imbalanced())

        def maybe_balance_partition_leaders() -> ControllerResult[bool]:
            start_time_ns = self.time.nanoseconds()
            result = self.replication_control.maybe_balance_partition_leaders()
            self.log.info("%smaybeBalancePartitionLeaders: generated %d records in %d microseconds.%s",
                          self.log_context, len(result.records), (self.time.nanoseconds() - start_time_ns) // 1000,
                          " Rescheduling immediately." if result.response else "")
            # The write event reschedules itself once its records are applied (maybe_schedule_next_... above).
            self.imbalanced_scheduled = ImbalanceSchedule.IMMEDIATELY if result.response \
                else ImbalanceSchedule.DEFERRED
            return result

        event = QuorumController.ControllerWriteEvent(
            self, MAYBE_BALANCE_PARTITION_LEADERS, ControllerWriteOperation(maybe_balance_partition_leaders),
            {ControllerOperationFlag.DOES_NOT_UPDATE_QUEUE_TIME})
        delay_ns = self.time.nanoseconds()
        if self.imbalanced_scheduled is ImbalanceSchedule.DEFERRED:
            delay_ns += self.leader_imbalance_check_interval_ns
        else:
            # Deferred events run before queued ones: a small delay keeps an immediate one from starving them.
            delay_ns += 10_000_000
        self.queue.schedule_deferred(MAYBE_BALANCE_PARTITION_LEADERS, EarliestDeadlineFunction(delay_ns), event)
        self.imbalanced_scheduled = ImbalanceSchedule.SCHEDULED

    def cancel_maybe_balance_partition_leaders(self) -> None:
        self.imbalanced_scheduled = ImbalanceSchedule.DEFERRED
        self.queue.cancel_deferred(MAYBE_BALANCE_PARTITION_LEADERS)

    # part C (issue 24): the periodic unclean elections of leaderless partitions
    def maybe_schedule_next_elect_unclean_leaders(self) -> None:
        """Arm the unclean-election event when some partition has no leader: after the check interval, or 10 ms
        from now if the last event left elections undone. Only topics that allow unclean elections get one."""
        if self.unclean_scheduled is ImbalanceSchedule.SCHEDULED or \
                not self.replication_control.are_some_partitions_leaderless():
            return
        self.log.debug("%sScheduling write event for %s because scheduled (%s), and areSomePartitionsLeaderless "
                       "(%s)", self.log_context, MAYBE_ELECT_UNCLEAN_LEADERS, self.unclean_scheduled,
                       self.replication_control.are_some_partitions_leaderless())

        def maybe_elect_unclean_leaders() -> ControllerResult[bool]:
            start_time_ns = self.time.nanoseconds()
            result = self.replication_control.maybe_elect_unclean_leaders()
            self.log.info("%smaybeElectUncleanLeaders: generated %d records in %d microseconds.%s",
                          self.log_context, len(result.records), (self.time.nanoseconds() - start_time_ns) // 1000,
                          " Rescheduling immediately." if result.response else "")
            self.unclean_scheduled = ImbalanceSchedule.IMMEDIATELY if result.response \
                else ImbalanceSchedule.DEFERRED
            return result

        event = QuorumController.ControllerWriteEvent(
            self, MAYBE_ELECT_UNCLEAN_LEADERS, ControllerWriteOperation(maybe_elect_unclean_leaders),
            {ControllerOperationFlag.DOES_NOT_UPDATE_QUEUE_TIME})
        delay_ns = self.time.nanoseconds()
        if self.unclean_scheduled is ImbalanceSchedule.DEFERRED:
            delay_ns += self.unclean_leader_election_check_interval_ns
        else:
            delay_ns += 10_000_000  # as for the balancing event: do not starve the queued events
        self.queue.schedule_deferred(MAYBE_ELECT_UNCLEAN_LEADERS, EarliestDeadlineFunction(delay_ns), event)
        self.unclean_scheduled = ImbalanceSchedule.SCHEDULED

    def cancel_maybe_next_elect_unclean_leaders(self) -> None:
        self.unclean_scheduled = ImbalanceSchedule.DEFERRED
        self.queue.cancel_deferred(MAYBE_ELECT_UNCLEAN_LEADERS)

    def maybe_schedule_next_write_no_op_record(self) -> None:
        """A NoOpRecord every metadata.max.idle.interval.ms: the log and its high watermark move even when idle,
        so every node can tell it is caught up."""
        if (not self.no_op_record_scheduled and self.max_idle_interval_ns is not None
                and is_no_op_record_supported(self.feature_control.metadata_version())):
            self.log.debug("%sScheduling write event for %s because maxIdleIntervalNs (%d) and metadataVersion "
                           "(%s)", self.log_context, WRITE_NO_OP_RECORD, self.max_idle_interval_ns,
                           self.feature_control.metadata_version())

            def write_no_op_record() -> ControllerResult[None]:
                self.no_op_record_scheduled = False
                self.maybe_schedule_next_write_no_op_record()
                return ControllerResult.of([ApiMessageAndVersion(NoOpRecord(), 0)], None)

            event = QuorumController.ControllerWriteEvent(
                self, WRITE_NO_OP_RECORD, ControllerWriteOperation(write_no_op_record),
                {ControllerOperationFlag.DOES_NOT_UPDATE_QUEUE_TIME, ControllerOperationFlag.RUNS_IN_PREMIGRATION})
            delay_ns = self.time.nanoseconds() + self.max_idle_interval_ns
            self.queue.schedule_deferred(WRITE_NO_OP_RECORD, EarliestDeadlineFunction(delay_ns), event)
            self.no_op_record_scheduled = True

    def cancel_next_write_no_op_record(self) -> None:
        self.no_op_record_scheduled = False
        self.queue.cancel_deferred(WRITE_NO_OP_RECORD)

    def _handle_feature_control_change(self) -> None:
        if self._is_active():
            if is_no_op_record_supported(self.feature_control.metadata_version()):
                self.maybe_schedule_next_write_no_op_record()
            else:
                self.cancel_next_write_no_op_record()

    # -- replay ---------------------------------------------------------------------------------------------------

    def replay(self, message: Any, snapshot_id: Any, offset: int) -> None:
        """Apply one metadata record to the manager that owns its state."""
        self.log_replay_tracker_empty = False
        kind = type(message).__name__
        if kind == "RegisterBrokerRecord":
            self.cluster_control.replay_register_broker(message, offset)
        elif kind == "UnregisterBrokerRecord":
            self.cluster_control.replay_unregister_broker(message)
        elif kind == "TopicRecord":
            self.replication_control.replay_topic(message)
        elif kind == "PartitionRecord":
            self.replication_control.replay_partition(message)
        elif kind == "ConfigRecord":
            self.configuration_control.replay(message)
        elif kind == "PartitionChangeRecord":
            self.replication_control.replay_partition_change(message)
        elif kind == "FenceBrokerRecord":
            self.cluster_control.replay_fence_broker(message)
        elif kind == "UnfenceBrokerRecord":
            self.cluster_control.replay_unfence_broker(message)
        elif kind == "RemoveTopicRecord":
            self.replication_control.replay_remove_topic(message)
        elif kind == "FeatureLevelRecord":
            self.feature_control.replay(message)
            self._handle_feature_control_change()
        elif kind == "BrokerRegistrationChangeRecord":
            self.cluster_control.replay_broker_registration_change(message)
        elif kind == "NoOpRecord":
            pass  # nothing to apply: it only moves the log forward
        elif kind == "BeginTransactionRecord":
            self.offset_control.replay_begin_transaction(message, offset)
        elif kind == "EndTransactionRecord":
            self.offset_control.replay_end_transaction(message, offset)
        elif kind == "AbortTransactionRecord":
            self.offset_control.replay_abort_transaction(message, offset)
        elif kind == "ProducerIdsRecord":
            self.producer_id_control_manager.replay(message)
        elif kind == "AccessControlEntryRecord":
            self.acl_control_manager.replay(message)
        elif kind == "RemoveAccessControlEntryRecord":
            self.acl_control_manager.replay_remove(message)
        elif kind == "ClientQuotaRecord":  # part A
            self.client_quota_control_manager.replay(message)
        elif kind == "UserScramCredentialRecord":  # part A
            self.scram_control_manager.replay(message)
        elif kind == "RemoveUserScramCredentialRecord":  # part A
            self.scram_control_manager.replay_remove(message)
        else:
            raise RuntimeError(f"Unhandled record type {kind}")

    # -- the Controller API ---------------------------------------------------------------------------------------

    @span("QuorumController.alterPartition")
    def alter_partition(self, context: ControllerRequestContext, request: Any) -> Future:
        if not request.topics:
            return _completed(AlterPartitionResponse(throttle_time=i32Timedelta.parse(datetime.timedelta(0)),
                                                     error_code=Errors.NONE, topics=()))
        return self.append_write_event("alterPartition", context.deadline_ns,
                                       lambda: self.replication_control.alter_partition(context, request))

    @step("KR.qc")
    def create_topics(self, context: ControllerRequestContext, request: Any,
                      describable: set[str] | None = None) -> Future:
        """CreateTopics: resolves to the CreateTopicsResponse data once the topics' records are committed."""
        if not request.topics:
            return _completed(CreateTopicsResponse(throttle_time=i32Timedelta.parse(datetime.timedelta(0)), topics=()))
        return self.append_write_event("createTopics", context.deadline_ns,
                                       lambda: self.replication_control.create_topics(context, request,
                                                                                      describable))

    @span("QuorumController.createPartitions")
    def create_partitions(self, context: ControllerRequestContext, topics: list[Any],
                          validate_only: bool) -> Future:
        """CreatePartitions: resolves to one result per topic once the new PartitionRecords are committed (at once,
        with nothing written, when `validate_only`)."""
        if not topics:
            return _completed([])

        def generate() -> ControllerResult[list[Any]]:
            result = self.replication_control.create_partitions(context, topics)
            if validate_only:
                self.log.debug("Validate-only CreatePartitions result(s): %s", result.response)
                return result.without_records()
            self.log.debug("CreatePartitions result(s): %s", result.response)
            return result

        return self.append_write_event("createPartitions", context.deadline_ns, generate)

    # -- part C (issue 24): elections and reassignments -----------------------------------------------------------

    def elect_leaders(self, context: ControllerRequestContext, request: Any) -> Future:
        """ElectLeaders: resolves to the ElectLeadersResponse data once the leader changes are committed. No
        partitions named (None) means every partition; an empty list means nothing to do."""
        if request.topic_partitions is not None and not request.topic_partitions:
            return _completed(ElectLeadersResponse(throttle_time=i32Timedelta.parse(datetime.timedelta(0)),
                                                   error_code=Errors.NONE, replica_election_results=()))
        return self.append_write_event("electLeaders", context.deadline_ns,
                                       lambda: self.replication_control.elect_leaders(request))

    def alter_partition_reassignments(self, context: ControllerRequestContext, request: Any) -> Future:
        if not request.topics:
            return _completed(AlterPartitionReassignmentsResponse(
                throttle_time=i32Timedelta.parse(datetime.timedelta(0)), error_code=Errors.NONE, error_message=None,
                responses=()))
        return self.append_write_event("alterPartitionReassignments", context.deadline_ns,
                                       lambda: self.replication_control.alter_partition_reassignments(request))

    def list_partition_reassignments(self, context: ControllerRequestContext, request: Any) -> Future:
        if request.topics is not None and not request.topics:
            return _completed(ListPartitionReassignmentsResponse(
                throttle_time=i32Timedelta.parse(datetime.timedelta(0)), error_code=Errors.NONE, error_message=None,
                topics=()))
        return self.append_read_event("listPartitionReassignments", context.deadline_ns,
                                      lambda: self.replication_control.list_partition_reassignments(
                                          request.topics, self.offset_control.last_stable_offset()))

    def unregister_broker(self, context: ControllerRequestContext, broker_id: int) -> Future[None]:
        """UnregisterBroker: the broker leaves every ISR and leadership, then its registration goes."""
        return self.append_write_event("unregisterBroker", context.deadline_ns,
                                       lambda: self.replication_control.unregister_broker(broker_id),
                                       {ControllerOperationFlag.RUNS_IN_PREMIGRATION})

    def find_topic_names(self, context: ControllerRequestContext, ids: list[Any]) -> Future:
        if not ids:
            return _completed({})
        return self.append_read_event("findTopicNames", context.deadline_ns,
                                      lambda: self.replication_control.find_topic_names(
                                          self.offset_control.last_stable_offset(), ids))

    def describe_configs(self, context: ControllerRequestContext, resources: dict[Any, list[str]]) -> Future:
        """DescribeConfigs: {resource: its committed configs (those named, or all) | ApiError}."""
        return self.append_read_event("describeConfigs", context.deadline_ns,
                                      lambda: self.configuration_control.describe_configs(
                                          self.offset_control.last_stable_offset(), resources))

    def finalized_features(self, context: ControllerRequestContext) -> Future[dict[str, int]]:
        return self.append_read_event("getFinalizedFeatures", context.deadline_ns,
                                      lambda: self.feature_control.finalized_features(
                                          self.offset_control.last_stable_offset()))

    def incremental_alter_configs(self, context: ControllerRequestContext, config_changes: dict[Any, dict[str, Any]],
                                  validate_only: bool) -> Future:
        """IncrementalAlterConfigs: {resource: ApiError} once the ConfigRecords are committed."""
        if not config_changes:
            return _completed({})

        def generate() -> ControllerResult:
            result = self.configuration_control.incremental_alter_configs(config_changes, False)
            return result.without_records() if validate_only else result

        return self.append_write_event("incrementalAlterConfigs", context.deadline_ns, generate)

    # -- part A (issue 24): legacy AlterConfigs -------------------------------------------------------------------

    def legacy_alter_configs(self, context: ControllerRequestContext, new_configs: dict[Any, dict[str, str]],
                             validate_only: bool) -> Future:
        """AlterConfigs: each resource's configs replaced by those given; {resource: ApiError} once committed."""
        if not new_configs:
            return _completed({})

        def generate() -> ControllerResult:
            result = self.configuration_control.legacy_alter_configs(new_configs, False)
            return result.without_records() if validate_only else result

        return self.append_write_event("legacyAlterConfigs", context.deadline_ns, generate)

    def alter_client_quotas(self, context: ControllerRequestContext, quota_alterations: list[Any],
                            validate_only: bool) -> Future:
        """AlterClientQuotas: {ClientQuotaEntity: ApiError} once the ClientQuotaRecords are committed."""
        if not quota_alterations:
            return _completed({})

        def generate() -> ControllerResult:
            result = self.client_quota_control_manager.alter_client_quotas(quota_alterations)
            return result.without_records() if validate_only else result

        return self.append_write_event("alterClientQuotas", context.deadline_ns, generate)

    def update_features(self, context: ControllerRequestContext, request: Any) -> Future:
        """UpdateFeatures: the UpdateFeaturesResponse data ({results: [...]}) once the FeatureLevelRecords commit."""
        def generate() -> ControllerResult:
            updates: dict[str, int] = {}
            upgrade_types: dict[str, UpgradeType] = {}
            for feature_update in request.feature_updates:
                # a v0 request has no UpgradeType: 3.9 reads the field's default, UPGRADE
                upgrade_types[feature_update.feature] = UpgradeType.from_code(
                    getattr(feature_update, "upgrade_type", UpgradeType.UPGRADE))
                updates[feature_update.feature] = feature_update.max_version_level
            # a v0 request has no ValidateOnly either: the field's default, false (found by the fuzz test)
            return self.feature_control.update_features(updates, upgrade_types,
                                                        getattr(request, "validate_only", False))

        result: Future = Future()

        def then_apply(done: Future) -> None:
            if done.exception() is not None:
                result.set_exception(done.exception())
            else:
                result.set_result(dict(results=[dict(feature=name, error_code=error.error,
                                                     error_message=error.message)
                                                for name, error in done.result().items()]))
        self.append_write_event("updateFeatures", context.deadline_ns, generate).add_done_callback(then_apply)
        return result

    def alter_user_scram_credentials(self, context: ControllerRequestContext, request: Any) -> Future:
        """AlterUserScramCredentials: the response data ({results: [...]}) once the credential records commit."""
        if not request.deletions and not request.upsertions:
            return _completed(dict(results=[]))
        return self.append_write_event("alterUserScramCredentials", context.deadline_ns,
                                       lambda: self.scram_control_manager.alter_credentials(
                                           request, self.feature_control.metadata_version()))

    def find_topic_ids(self, context: ControllerRequestContext, names: list[str]) -> Future:
        if not names:
            return _completed({})
        return self.append_read_event("findTopicIds", context.deadline_ns,
                                      lambda: self.replication_control.find_topic_ids(
                                          self.offset_control.last_stable_offset(), names))

    @span("QuorumController.deleteTopics")
    def delete_topics(self, context: ControllerRequestContext, ids: list[Any]) -> Future[dict[Any, ApiError]]:
        """DeleteTopics by topic id: resolves to {topic id: ApiError} (ControllerApis maps names to ids first)."""
        if not ids:
            return _completed({})
        return self.append_write_event("deleteTopics", context.deadline_ns,
                                       lambda: self.replication_control.delete_topics(context, ids))

    @span("QuorumController.processBrokerHeartbeat")
    def process_broker_heartbeat(self, context: ControllerRequestContext,
                                 request: Any) -> Future[BrokerHeartbeatReply]:
        broker_id = request.broker_id
        in_controlled_shutdown = [False]

        def generate() -> ControllerResult[BrokerHeartbeatReply]:
            # The registration's offset may be an older incarnation's: the broker epoch check below catches it.
            offset_for_register_broker_record = self.cluster_control.register_broker_record_offset(broker_id)
            if offset_for_register_broker_record is None:
                raise StaleBrokerEpochException(f"Receive a heartbeat from broker {broker_id} before registration")
            result = self.replication_control.process_broker_heartbeat(request, offset_for_register_broker_record)
            in_controlled_shutdown[0] = result.response.in_controlled_shutdown
            self.reschedule_maybe_fence_stale_brokers()
            return result

        def process_batch_end_offset(offset: int) -> None:
            if in_controlled_shutdown[0]:
                self.cluster_control.heartbeat_manager().maybe_update_controlled_shutdown_offset(broker_id, offset)

        future = self.append_write_event("processBrokerHeartbeat", context.deadline_ns,
                                         ControllerWriteOperation(generate, process_batch_end_offset),
                                         {ControllerOperationFlag.RUNS_IN_PREMIGRATION})

        def on_done(f: Future) -> None:
            if is_timeout_exception(f.exception()):
                # Timed out in our queue: the broker is alive all the same.
                self.append_control_event("processExpiredBrokerHeartbeat",
                                          lambda: self.replication_control.process_expired_broker_heartbeat(request))

        future.add_done_callback(on_done)
        return future

    @span("QuorumController.allocateProducerIds")
    def allocate_producer_ids(self, context: ControllerRequestContext, request: Any) -> Future:
        """AllocateProducerIds: resolves to the broker's next block of producer ids once its record is committed."""
        return self.append_write_event("allocateProducerIds", context.deadline_ns,
                                       lambda: self.producer_id_control_manager.generate_next_producer_id(
                                           request.broker_id, request.broker_epoch))

    @span("QuorumController.registerBroker")
    def register_broker(self, context: ControllerRequestContext, request: Any) -> Future[BrokerRegistrationReply]:
        """BrokerRegistration: resolves to the broker's new epoch, the offset of its RegisterBrokerRecord."""

        def generate() -> ControllerResult[BrokerRegistrationReply]:
            result = self.cluster_control.register_broker(request, self.offset_control.next_write_offset(),
                                                          self.feature_control.finalized_features(LATEST_EPOCH))
            self.reschedule_maybe_fence_stale_brokers()
            return result

        return self.append_write_event("registerBroker", context.deadline_ns, generate,
                                       {ControllerOperationFlag.RUNS_IN_PREMIGRATION})

    # -- part B (issue 24): ACLs; the QuorumController is the AclMutator of its node's StandardAuthorizer ----------

    def create_acls(self, context: ControllerRequestContext, acl_bindings: list[Any]) -> Future:
        """CreateAcls: one AclCreateResult per binding once the AccessControlEntryRecords are committed."""
        return self.append_write_event("createAcls", context.deadline_ns,
                                       lambda: self.acl_control_manager.create_acls(acl_bindings))

    def delete_acls(self, context: ControllerRequestContext, filters: list[Any]) -> Future:
        """DeleteAcls: one AclDeleteResult per filter once the RemoveAccessControlEntryRecords are committed."""
        return self.append_write_event("deleteAcls", context.deadline_ns,
                                       lambda: self.acl_control_manager.delete_acls(filters))

    # -- lifecycle ------------------------------------------------------------------------------------------------

    def cluster_id(self) -> str:
        return self._cluster_id

    def is_active(self) -> bool:
        return self._is_active()

    def begin_shutdown(self) -> None:
        self.queue.begin_shutdown("QuorumController#beginShutdown")

    def close(self) -> None:
        self.queue.close()

    def wait_for_readiness(self, timeout_s: float | None = None) -> None:
        """For tests and callers that must not race the controller thread: returns once every event queued
        before it has run."""
        future: Future[None] = Future()
        self.append_control_event("waitForReadiness", lambda: future.set_result(None))
        future.result(timeout_s)


def _completed(value: Any) -> Future:
    future: Future = Future()
    future.set_result(value)
    return future


