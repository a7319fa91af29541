"""Port of core/src/main/scala/kafka/server/BrokerServer.scala (Kafka 3.9): a broker on the KRaft quorum.

`startup` follows 3.9's order as far as kafka-edu's KRaft broker goes: the shared Raft client (an observer on a
broker-only node), the scheduler, the channel to the active controller, the SocketServer bound but not yet reading,
the BrokerLifecycleManager registering the broker, then three waits: for the controller to say the broker has caught
up with the metadata log (STARTING -> RECOVERY), for the logs to be loaded and recovered, and for the controller to
unfence the broker (RECOVERY -> RUNNING). Only then does the SocketServer process requests.

The data plane is 3.9's, wired as 3.9 wires it: the KRaft metadata cache, 3.9's LogManager (built here, started at
the first metadata publish), the ForwardingManager (CreateTopics, DeleteTopics and CreatePartitions go on to the
active controller), the DefaultAlterPartitionManager on a channel of its own, the ReplicaManager with its replica
fetchers and alter-log-dirs threads, the FetchManager's session cache, 3.9's SocketServer, KafkaRequestHandlerPool
and KafkaApis, and the BrokerMetadataPublisher, which starts the managers on the first publish.

The coordinators are 3.9's own: the group coordinator is 3.9's GroupCoordinatorService on its CoordinatorRuntime
(createGroupCoordinator), the transaction coordinator 3.9's TransactionCoordinator. 3.9 builds the service only when
the consumer protocol (or the internal new-coordinator flag) is on, and its Scala GroupCoordinator behind
GroupCoordinatorAdapter otherwise; kafka-edu has no port of that Scala coordinator, so the service is built always
(kafka-edu's KRaft clusters turn the consumer protocol on, see docs/kraft.md).
One seam remains: the node's configuration object is 1.0.2's KafkaConfig with 3.9's KRaft keys (`node_config`: the
shared server, the controller channels and the SocketServer read it), while the log, replica and request layers read
3.9's KafkaConfig built from the same properties (`config`).
Not here: the dynamic config, quota, SCRAM, token and ACL publishers, and the BrokerRegistrationTracker.
"""

from __future__ import annotations

import enum
import logging
import os
import socket
import threading
import time
from typing import Any

from kafka_edu.tracing import span, step
from kafka_edu.v1_0_2.core.server.kafka_config import SECURITY_PROTOCOLS
from kafka_edu.v1_0_2.core.utils.core_utils import swallow
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.clients.server.authorizer.authorizer_server_info import AuthorizerServerInfo
from kafka_edu.v3_9.core.coordinator.group.coordinator_loader_impl import CoordinatorLoaderImpl
from kafka_edu.v3_9.core.coordinator.group.coordinator_partition_writer import CoordinatorPartitionWriter
from kafka_edu.v3_9.core.coordinator.transaction.rpc_producer_id_manager import RPCProducerIdManager
from kafka_edu.v3_9.core.coordinator.transaction.transaction_coordinator import TransactionCoordinator
from kafka_edu.v3_9.core.log import log_manager as log_manager_module
from kafka_edu.v3_9.core.log.log_manager import LogManager
from kafka_edu.v3_9.core.network.socket_server import DATA_PLANE_METRIC_PREFIX, DATA_PLANE_THREAD_PREFIX, SocketServer
from kafka_edu.v3_9.core.server import kafka_config as kafka_config_39
from kafka_edu.v3_9.core.server.add_partitions_to_txn_manager import AddPartitionsToTxnManager
from kafka_edu.v3_9.core.server.alter_partition_manager import AlterPartitionManager, DefaultAlterPartitionManager
from kafka_edu.v3_9.core.server.api_version_manager import broker_listener_api_version_manager
from kafka_edu.v3_9.core.server.auto_topic_creation_manager import DefaultAutoTopicCreationManager
from kafka_edu.v3_9.core.server.broker_lifecycle_manager import BrokerLifecycleManager
from kafka_edu.v3_9.core.server.fetch_session import FetchManager, FetchSessionCache, FetchSessionCacheShard
from kafka_edu.v3_9.core.server.forwarding_manager import ForwardingManagerImpl
from kafka_edu.v3_9.core.server.kafka_apis import KafkaApis
from kafka_edu.v3_9.core.server.kafka_request_handler import KafkaRequestHandlerPool
from kafka_edu.v3_9.core.server.metadata.acl_publisher import AclPublisher
from kafka_edu.v3_9.core.server.metadata.broker_metadata_publisher import BrokerMetadataPublisher
from kafka_edu.v3_9.core.server.metadata.kraft_metadata_cache import KRaftMetadataCache
from kafka_edu.v3_9.core.server.node_to_controller_channel_manager import (
    NodeToControllerChannelManagerImpl,
    RaftControllerNodeProvider,
)
from kafka_edu.v3_9.core.server.remote_leader_end_point import UNBOUNDED_QUOTA
from kafka_edu.v3_9.core.server.replica_manager import ReplicaManager
from kafka_edu.v3_9.core.server.shared_server import SharedServer
from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record_serde import CoordinatorRecordSerde
from kafka_edu.v3_9.group_coordinator.coordinator.group.group_coordinator_config import (
    NEW_GROUP_COORDINATOR_ENABLE_CONFIG,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.group_coordinator_service import GroupCoordinatorService
from kafka_edu.v3_9.group_coordinator.coordinator.group.metrics.coordinator_runtime_metrics import (
    CoordinatorRuntimeMetrics,
)
from kafka_edu.v3_9.metadata.metadata.broker_state import BrokerState
from kafka_edu.v3_9.server.security.authorizer.authorizer_utils import create_new_authorizer
from kafka_edu.v3_9.server_common.server.util.future_utils import Deadline, wait_with_logging
from kafka_edu.v3_9.server_common.server.util.kafka_scheduler import KafkaScheduler
from kafka_edu.v3_9.server_common.server.util.timer.system_timer import SystemTimer
from kafka_edu.v3_9.server_common.server.util.timer.system_timer_reaper import SystemTimerReaper
from kafka_edu.v3_9.storage.storage.internals.log.log_dir_failure_channel import LogDirFailureChannel

log = logging.getLogger("kafka.server.BrokerServer")

# metadata.version levels a 3.9 broker supports: 3.0-IV1 (the first KRaft one) to 3.9-IV0
METADATA_VERSION_FEATURE = "metadata.version"
MINIMUM_KRAFT_METADATA_VERSION = 1
LATEST_PRODUCTION_METADATA_VERSION = 21
SHUTDOWN_TIMEOUT_MS = 5 * 60 * 1000  # KafkaBroker.shutdown()'s default
ALTER_PARTITION_VERSION = 3  # AlterPartition with topic ids, what AlterPartitionManager builds
NO_RETRY_TIMEOUT_MS = 2**63 - 1  # Long.MaxValue: AlterPartition is retried until answered


class ProcessStatus(enum.Enum):
    SHUTDOWN = "SHUTDOWN"
    STARTING = "STARTING"
    STARTED = "STARTED"
    SHUTTING_DOWN = "SHUTTING_DOWN"


NUM_FETCH_SESSION_CACHE_SHARDS = 8  # BrokerServer's NumFetchSessionCacheShards
MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS = 120000  # KafkaServer.MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS
INT_MAX = 2**31 - 1


class BrokerServer:
    """A broker in KRaft mode, built around the node's SharedServer."""

    def __init__(self, shared_server: SharedServer) -> None:
        self.shared_server = shared_server
        self.node_config = shared_server.shared_server_config
        """The node's configuration as the shared server, the Raft client, the controller channels and the
        SocketServer read it (1.0.2's KafkaConfig with 3.9's KRaft keys, until the node moves onto 3.9's)."""
        # 3.9's new group coordinator is the only one kafka-edu has (its Scala one is not ported): the broker runs
        # as a 3.9 broker with the internal group.coordinator.new.enable on, whatever the rebalance protocols
        self.config = kafka_config_39.from_props(
            {**self.node_config.originals(), NEW_GROUP_COORDINATOR_ENABLE_CONFIG: "true"}, do_log=False)
        """3.9's KafkaConfig from the same properties: what the log, replica and request layers read."""
        self.log = Logging("kafka.server.BrokerServer", f"[BrokerServer id={self.config.node_id}] ")
        self.lifecycle_manager: BrokerLifecycleManager | None = None
        self.is_shutting_down = threading.Event()
        self.lock = threading.Lock()
        self.await_shutdown_cond = threading.Condition(self.lock)
        self.status = ProcessStatus.SHUTDOWN
        self.data_plane_request_processor: KafkaApis | None = None
        self.socket_server: SocketServer | None = None
        self.data_plane_request_handler_pool: KafkaRequestHandlerPool | None = None
        self.log_dir_failure_channel: LogDirFailureChannel | None = None
        self.log_manager: LogManager | None = None
        self.client_to_controller_channel_manager: NodeToControllerChannelManagerImpl | None = None
        self.kafka_scheduler: KafkaScheduler | None = None
        self.metadata_cache: KRaftMetadataCache | None = None
        self.forwarding_manager: ForwardingManagerImpl | None = None
        self.auto_topic_creation_manager: DefaultAutoTopicCreationManager | None = None
        self.alter_partition_channel_manager: NodeToControllerChannelManagerImpl | None = None
        self.alter_partition_manager: AlterPartitionManager | None = None
        self.replica_manager: ReplicaManager | None = None
        self.group_coordinator: GroupCoordinatorService | None = None
        self.transaction_coordinator: TransactionCoordinator | None = None
        self.broker_metadata_publisher: BrokerMetadataPublisher | None = None
        self.metadata_publishers: list[Any] = []
        self.authorizer: Any | None = None
        self.cluster_id: str = shared_server.cluster_id()

    @property
    def raft_manager(self) -> Any:
        return self.shared_server.raft_manager

    @property
    def broker_state(self) -> BrokerState:
        return self.lifecycle_manager.state if self.lifecycle_manager is not None else BrokerState.NOT_RUNNING

    def maybe_change_status(self, from_status: ProcessStatus, to_status: ProcessStatus) -> bool:
        with self.lock:
            if self.status != from_status:
                return False
            self.log.info("Transition from %s to %s", self.status.name, to_status.name)
            self.status = to_status
            if to_status == ProcessStatus.SHUTTING_DOWN:
                self.is_shutting_down.set()
            elif to_status == ProcessStatus.SHUTDOWN:
                self.is_shutting_down.clear()
                self.await_shutdown_cond.notify_all()
            return True

    @step("KR.broker")
    def startup(self) -> None:
        if not self.maybe_change_status(ProcessStatus.SHUTDOWN, ProcessStatus.STARTING):
            return
        startup_deadline = Deadline.from_delay(self.node_config.server_max_startup_time_ms)
        config, node_config = self.config, self.node_config
        try:
            self.shared_server.start_for_broker()

            self.log.info("Starting broker")

            # start scheduler
            self.kafka_scheduler = KafkaScheduler(config.background_threads())
            self.kafka_scheduler.startup()

            self.log_dir_failure_channel = LogDirFailureChannel(len(config.log_dirs))

            # features() reads kraft.version from the Raft client, which keeps it (KIP-853), not the image
            self.metadata_cache = KRaftMetadataCache(config.node_id, self.cluster_id,
                                                     self.raft_manager.client.kraft_version)

            # Built now, started at the first metadata publish: recovering logs after an unclean shutdown waits
            # until the topic configs are known.
            self.log_manager = log_manager_module.apply(
                config, self.shared_server.meta_props_ensemble.error_log_dirs(), self.metadata_cache,
                self.kafka_scheduler, SYSTEM, None, self.log_dir_failure_channel, keep_partition_metadata_file=True)

            self.lifecycle_manager = BrokerLifecycleManager(node_config, thread_name_prefix=f"broker-{config.node_id}-",
                                                            is_zk_broker=False, log_dirs=self.directory_ids())

            wait_with_logging(self.log, "", "controller quorum voters future",
                              self.raft_manager.controller_quorum_voters_future, startup_deadline)
            controller_node_provider = RaftControllerNodeProvider.apply(self.raft_manager, node_config)

            self.client_to_controller_channel_manager = NodeToControllerChannelManagerImpl(
                controller_node_provider, node_config, "forwarding", f"broker-{config.node_id}-",
                retry_timeout_ms=60000)
            self.client_to_controller_channel_manager.start()
            self.forwarding_manager = ForwardingManagerImpl(self.client_to_controller_channel_manager)

            self.api_version_manager = broker_listener_api_version_manager()

            # The acceptors' ports are bound now (an ephemeral one has to be known to register); nothing is read
            # from a socket until enable_request_processing, at the end.
            self.socket_server = SocketServer(node_config, api_version_manager=self.api_version_manager)

            listener_info = self.broker_registration_listeners()

            self.alter_partition_channel_manager = NodeToControllerChannelManagerImpl(
                controller_node_provider, node_config, "alter-partition", f"broker-{config.node_id}-",
                retry_timeout_ms=NO_RETRY_TIMEOUT_MS)
            lifecycle_manager = self.lifecycle_manager
            self.alter_partition_manager = DefaultAlterPartitionManager(
                self.alter_partition_channel_manager, self.kafka_scheduler, SYSTEM, config.node_id,
                lambda: lifecycle_manager.broker_epoch, self.metadata_cache.metadata_version)
            self.alter_partition_manager.start()  # starts its channel

            # Transaction verification (KIP-890): the ReplicaManager starts and stops it. The transaction
            # coordinator is built further down, hence the lambda.
            add_partitions_to_txn_manager = AddPartitionsToTxnManager(
                config, None, self.metadata_cache,
                lambda transactional_id: self.transaction_coordinator.partition_for(transactional_id), SYSTEM)

            self.replica_manager = ReplicaManager(
                config=config, time=SYSTEM, scheduler=self.kafka_scheduler, log_manager=self.log_manager,
                metadata_cache=self.metadata_cache, log_dir_failure_channel=self.log_dir_failure_channel,
                alter_partition_manager=self.alter_partition_manager, is_shutting_down=self.is_shutting_down,
                broker_epoch_supplier=lambda: lifecycle_manager.broker_epoch,
                add_partitions_to_txn_manager=add_partitions_to_txn_manager)
            self.replica_manager.replica_fetcher_manager = self.replica_manager.create_replica_fetcher_manager(
                None, SYSTEM, None, UNBOUNDED_QUOTA)
            self.replica_manager.replica_alter_log_dirs_manager = \
                self.replica_manager.create_replica_alter_log_dirs_manager(UNBOUNDED_QUOTA, None)

            # Built now, started at the first metadata publish, after the ReplicaManager.
            self.group_coordinator = self.create_group_coordinator()

            client_channel = self.client_to_controller_channel_manager

            def producer_id_manager_supplier() -> RPCProducerIdManager:
                # ProducerIdManager.rpc: id blocks from the active controller
                return RPCProducerIdManager(config.node_id, lambda: lifecycle_manager.broker_epoch, client_channel)

            # Built now, started with the other managers at the first metadata publish (after the ReplicaManager),
            # on a one-thread scheduler of its own for the loads of __transaction_state.
            self.transaction_coordinator = TransactionCoordinator.apply(
                config, self.replica_manager, KafkaScheduler(1, True, "transaction-log-manager-"),
                producer_id_manager_supplier, None, self.metadata_cache, SYSTEM)
            self.auto_topic_creation_manager = DefaultAutoTopicCreationManager(
                node_config, self.client_to_controller_channel_manager,
                self.group_coordinator.group_metadata_topic_configs,
                self.transaction_coordinator.transaction_topic_configs)

            # KAFKA-14392: a heartbeat that waits longer than half a session is not worth sending any more
            broker_lifecycle_channel_manager = NodeToControllerChannelManagerImpl(
                controller_node_provider, node_config, "heartbeat", f"broker-{config.node_id}-",
                retry_timeout_ms=node_config.broker_session_timeout_ms // 2)
            loader = self.shared_server.loader
            self.lifecycle_manager.start(
                lambda: loader.last_applied_offset(),
                broker_lifecycle_channel_manager,
                self.cluster_id,
                listener_info,
                {METADATA_VERSION_FEATURE: (MINIMUM_KRAFT_METADATA_VERSION, LATEST_PRODUCTION_METADATA_VERSION)},
                self.log_manager.read_broker_epoch_from_clean_shutdown_files())

            # The FetchSessionCache in shards, each owning a range of session ids.
            session_id_range = INT_MAX // NUM_FETCH_SESSION_CACHE_SHARDS
            fetch_session_cache_shards = [
                FetchSessionCacheShard(config.max_incremental_fetch_session_cache_slots
                                       // NUM_FETCH_SESSION_CACHE_SHARDS,
                                       MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS, session_id_range, shard_num)
                for shard_num in range(NUM_FETCH_SESSION_CACHE_SHARDS)]
            fetch_manager = FetchManager(SYSTEM, FetchSessionCache(fetch_session_cache_shards))

            # Create and initialize an authorizer if one is configured.
            self.authorizer = create_new_authorizer(config)
            if self.authorizer is not None:
                self.authorizer.configure(config.originals())

            self.data_plane_request_processor = KafkaApis(
                request_channel=self.socket_server.data_plane_request_channel,
                forwarding_manager=self.forwarding_manager,
                replica_manager=self.replica_manager,
                group_coordinator=self.group_coordinator,
                txn_coordinator=self.transaction_coordinator,
                auto_topic_creation_manager=self.auto_topic_creation_manager,
                broker_id=config.node_id,
                config=config,
                metadata_cache=self.metadata_cache,
                authorizer=self.authorizer,
                fetch_manager=fetch_manager,
                cluster_id=self.cluster_id,
                api_version_manager=self.api_version_manager)
            self.data_plane_request_handler_pool = KafkaRequestHandlerPool(
                config.node_id, self.socket_server.data_plane_request_channel, self.data_plane_request_processor,
                SYSTEM, config.num_io_threads(), f"{DATA_PLANE_METRIC_PREFIX}RequestHandlerAvgIdlePercent",
                DATA_PLANE_THREAD_PREFIX)

            self.broker_metadata_publisher = BrokerMetadataPublisher(
                config, self.metadata_cache, self.log_manager, self.replica_manager, self.group_coordinator,
                self.transaction_coordinator)
            self.metadata_publishers.append(self.broker_metadata_publisher)
            # The image's ACLs into the authorizer; its first publish opens the listeners waiting for them.
            self.metadata_publishers.append(AclPublisher(config.node_id,
                                                         self.shared_server.metadata_publishing_fault_handler(),
                                                         "broker", self.authorizer))
            wait_with_logging(self.log, "", "the broker metadata publishers to be installed",
                              loader.install_publishers(self.metadata_publishers), startup_deadline)

            # The controller says we have caught up once our metadata offset reaches our RegisterBrokerRecord.
            wait_with_logging(self.log, "", "the controller to acknowledge that we are caught up",
                              self.lifecycle_manager.initial_catch_up_future, startup_deadline)

            # RECOVERY: the first publish starts the log manager, the replica manager and the coordinators.
            wait_with_logging(self.log, "", "the initial broker metadata update to be published",
                              self.broker_metadata_publisher.first_publish_future, startup_deadline)

            # Ready: ask to be unfenced; RECOVERY -> RUNNING once the controller does it.
            wait_with_logging(self.log, "", "the broker to be unfenced",
                              self.lifecycle_manager.set_ready_to_unfence(), startup_deadline)

            # Enable inbound TCP connections. Each acceptor starts once its authorizer future is complete (the
            # StandardAuthorizer's: once the AclPublisher has loaded the ACLs).
            authorizer_futures = self._authorizer_futures()
            socket_server_future = self.socket_server.enable_request_processing(authorizer_futures)
            for future in authorizer_futures.values():
                wait_with_logging(self.log, "", "all of the authorizer futures to be completed", future,
                                  startup_deadline)
            wait_with_logging(self.log, "", "all of the SocketServer Acceptors to be started",
                              socket_server_future, startup_deadline)

            self.maybe_change_status(ProcessStatus.STARTING, ProcessStatus.STARTED)
        except BaseException:
            self.maybe_change_status(ProcessStatus.STARTING, ProcessStatus.STARTED)
            self.log.critical("Fatal error during broker startup. Prepare to shutdown", exc_info=True)
            self.shutdown()
            raise

    def create_group_coordinator(self) -> GroupCoordinatorService:
        return create_group_coordinator(self.config, self.replica_manager)

    def _authorizer_futures(self) -> dict[Any, Any]:
        """EndpointReadyFutures: per endpoint, the authorizer's start future (none without an authorizer)."""
        if self.authorizer is None:
            return {}
        endpoints = [acceptor.end_point for acceptor in self.socket_server.data_plane_acceptors.values()]
        return self.authorizer.start(AuthorizerServerInfo(self.cluster_id, self.config.node_id, endpoints, None,
                                                          self.config.early_start_listeners))

    def directory_ids(self) -> set[Uuid]:
        """LogManager.directoryIdsSet: the directory.id of each online log dir, from its meta.properties."""
        props = self.shared_server.meta_props_ensemble.log_dir_props()
        log_dirs = {os.path.normpath(os.path.abspath(d)) for d in self.config.log_dirs}
        return {p.directory_id for d, p in props.items()
                if os.path.normpath(os.path.abspath(d)) in log_dirs and p.directory_id is not None}

    def broker_registration_listeners(self) -> list[dict[str, Any]]:
        """ListenerInfo.toBrokerRegistrationRequest: the advertised broker listeners, a wildcard host replaced by
        this host's name and port 0 by the port bound."""
        listeners = []
        for ep in self.node_config.effective_advertised_broker_listeners:
            host = ep.host if ep.host and ep.host != "0.0.0.0" else socket.getfqdn()
            port = ep.port if ep.port != 0 else self.socket_server.bound_port(ep.listener_name)
            listeners.append({"name": ep.listener_name, "host": host, "port": port,
                              "security_protocol": SECURITY_PROTOCOLS.index(ep.security_protocol)})
        return listeners

    @span("BrokerServer.shutdown")
    def shutdown(self, timeout_ms: int = SHUTDOWN_TIMEOUT_MS) -> None:
        if not self.maybe_change_status(ProcessStatus.STARTED, ProcessStatus.SHUTTING_DOWN):
            return
        try:
            deadline_ms = _now_ms() + timeout_ms
            self.log.info("shutting down")

            if self.config.controlled_shutdown_enable and self.lifecycle_manager is not None:
                if self.replica_manager is not None:
                    self.replica_manager.begin_controlled_shutdown()
                self.lifecycle_manager.begin_controlled_shutdown()
                try:
                    controlled_shutdown_timeout_ms = deadline_ms - _now_ms()
                    self.lifecycle_manager.controlled_shutdown_future.result(
                        max(0, controlled_shutdown_timeout_ms) / 1000)
                except TimeoutError:
                    self.log.error("Timed out waiting for the controller to approve controlled shutdown")
                except BaseException as e:
                    self.log.error("Got unexpected exception waiting for controlled shutdown future", exc_info=e)
            if self.lifecycle_manager is not None:
                self.lifecycle_manager.begin_shutdown()
            # Stop accepting connections and requests; the SocketServer itself goes near the end.
            if self.socket_server is not None:
                with swallow(log):
                    self.socket_server.stop_processing_requests()
            for publisher in self.metadata_publishers:
                self.shared_server.loader.remove_and_close_publisher(publisher).result()
            self.metadata_publishers.clear()
            if self.data_plane_request_handler_pool is not None:
                with swallow(log):
                    self.data_plane_request_handler_pool.shutdown()
            if self.data_plane_request_processor is not None:
                with swallow(log):
                    self.data_plane_request_processor.close()
            if self.authorizer is not None:
                with swallow(log):
                    self.authorizer.close()

            # The scheduler goes first: its tasks (retention, flushes) must not touch logs being closed.
            if self.kafka_scheduler is not None:
                with swallow(log):
                    self.kafka_scheduler.shutdown()

            if self.group_coordinator is not None:
                with swallow(log):
                    self.group_coordinator.shutdown()
            if self.transaction_coordinator is not None:
                with swallow(log):
                    self.transaction_coordinator.shutdown()
            if self.replica_manager is not None:
                with swallow(log):
                    self.replica_manager.shutdown()
            if self.alter_partition_manager is not None:
                with swallow(log):
                    self.alter_partition_manager.shutdown()
            if self.forwarding_manager is not None:
                with swallow(log):
                    self.forwarding_manager.close()

            if self.client_to_controller_channel_manager is not None:
                with swallow(log):
                    self.client_to_controller_channel_manager.shutdown()

            if self.log_manager is not None:
                broker_epoch = self.lifecycle_manager.broker_epoch if self.lifecycle_manager is not None else -1
                with swallow(log):
                    self.log_manager.shutdown(broker_epoch)

            if self.socket_server is not None:
                with swallow(log):
                    self.socket_server.shutdown()

            self.is_shutting_down.clear()

            if self.lifecycle_manager is not None:
                with swallow(log):
                    self.lifecycle_manager.close()
            self.shared_server.stop_for_broker()
            self.log.info("shut down completed")
        except BaseException:
            self.log.critical("Fatal error during broker shutdown.", exc_info=True)
            raise
        finally:
            self.maybe_change_status(ProcessStatus.SHUTTING_DOWN, ProcessStatus.SHUTDOWN)

    def is_shutdown(self) -> bool:
        return self.status in (ProcessStatus.SHUTDOWN, ProcessStatus.SHUTTING_DOWN)

    def await_shutdown(self) -> None:
        # Bounded waits: Python runs a signal handler only between them (see KafkaServer.await_shutdown).
        with self.lock:
            while self.status != ProcessStatus.SHUTDOWN:
                self.await_shutdown_cond.wait(1.0)

    def bound_port(self, listener_name: str) -> int:
        return self.socket_server.bound_port(listener_name)


@step("GC.build")
def create_group_coordinator(config: Any, replica_manager: Any, time: Any = SYSTEM) -> GroupCoordinatorService:
    """3.9's BrokerServer.createGroupCoordinator, its new-coordinator branch: the service on a runtime that loads
    partitions with CoordinatorLoaderImpl and writes through CoordinatorPartitionWriter, both on the ReplicaManager.
    System time, as 3.9 hard-codes it (tests may hand another)."""
    serde = CoordinatorRecordSerde()
    timer = SystemTimerReaper("group-coordinator-reaper", SystemTimer("group-coordinator"))
    loader = CoordinatorLoaderImpl(time, replica_manager, serde,
                                   config.group_coordinator_config().offsets_load_buffer_size())
    writer = CoordinatorPartitionWriter(replica_manager)
    return (GroupCoordinatorService.Builder(config.node_id, config.group_coordinator_config())
            .with_time(time)
            .with_timer(timer)
            .with_loader(loader)
            .with_writer(writer)
            .with_coordinator_runtime_metrics(_NoOpRuntimeMetrics())
            .with_group_coordinator_metrics(_NoOpGroupCoordinatorMetrics())
            .build())


class _NoOpRuntimeMetrics(CoordinatorRuntimeMetrics):
    """Stands in for 3.9's GroupCoordinatorRuntimeMetrics: the port keeps no metrics registry."""

    def record_partition_state_change(self, old_state: Any, new_state: Any) -> None:
        pass

    def record_partition_load_sensor(self, start_time_ms: int, end_time_ms: int) -> None:
        pass

    def record_event_queue_time(self, duration_ms: int) -> None:
        pass

    def record_event_queue_processing_time(self, duration_ms: int) -> None:
        pass

    def record_thread_idle_time(self, idle_time_ms: int) -> None:
        pass

    def register_event_queue_size_gauge(self, size_supplier: Any) -> None:
        pass

    def close(self) -> None:
        pass


class _NoOpGroupCoordinatorMetrics:
    """Stands in for 3.9's GroupCoordinatorMetrics (no registry): no shards, nothing recorded."""

    def activate_metrics_shard(self, shard: Any) -> None:
        pass

    def deactivate_metrics_shard(self, shard: Any) -> None:
        pass

    def on_update_last_committed_offset(self, tp: Any, offset: int) -> None:
        pass

    def close(self) -> None:
        pass


def _now_ms() -> int:
    return time.monotonic_ns() // 1_000_000

