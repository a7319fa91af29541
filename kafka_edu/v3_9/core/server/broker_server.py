"""Port of core/src/main/scala/kafka/server/BrokerServer.scala (Kafka 3.9): a broker on the KRaft quorum.

`startup` follows 3.9's order as far as kafka-edu's KRaft broker goes: the shared Raft client (an observer on a
broker-only node), the scheduler, the channel to the active controller, the SocketServer bound but not yet reading,
the BrokerLifecycleManager registering the broker, then three waits: for the controller to say the broker has caught
up with the metadata log (STARTING -> RECOVERY), for the logs to be loaded and recovered, and for the controller to
unfence the broker (RECOVERY -> RUNNING). Only then does the SocketServer process requests.

The data plane is wired as 3.9 wires it: the KRaft metadata cache, the ForwardingManager (CreateTopics and
DeleteTopics go on to the active controller, without an Envelope), the AlterPartitionManager on a channel of its
own, the KRaft ReplicaManager, the group coordinator, the transaction coordinator (its producer ids from the controller,
by AllocateProducerIds), KafkaApis on KRaft metadata and the BrokerMetadataPublisher, which starts the managers on
the first publish. Not here: the dynamic config, quota, SCRAM, token and ACL publishers, and the
BrokerRegistrationTracker.
"""

from __future__ import annotations

import enum
import logging
import os
import socket
import threading
import time
from pathlib import Path
from typing import Any

from kafka_edu.tracing import span, step
from kafka_edu.v1_0_2.core.coordinator.group.group_coordinator import GroupCoordinator
from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_coordinator import TransactionCoordinator
from kafka_edu.v1_0_2.core.log.log_config import LogConfig
from kafka_edu.v1_0_2.core.log.log_manager import LogManager
from kafka_edu.v1_0_2.core.network.socket_server import SocketServer
from kafka_edu.v1_0_2.core.server.broker_topic_stats import BrokerTopicStats
from kafka_edu.v1_0_2.core.server.kafka_apis import KafkaApis, broker_api_version_manager
from kafka_edu.v1_0_2.core.server.kafka_config import SECURITY_PROTOCOLS
from kafka_edu.v1_0_2.core.server.kafka_request_handler import KafkaRequestHandlerPool
from kafka_edu.v1_0_2.core.server.kafka_server import copy_kafka_config_to_log
from kafka_edu.v1_0_2.core.server.log_dir_failure_channel import LogDirFailureChannel
from kafka_edu.v1_0_2.core.utils.concurrent import AtomicBoolean
from kafka_edu.v1_0_2.core.utils.core_utils import swallow
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v1_0_2.core.utils.kafka_scheduler import KafkaScheduler
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.core.coordinator.transaction.rpc_producer_id_manager import RPCProducerIdManager
from kafka_edu.v3_9.core.server.alter_partition_manager import AlterPartitionManager
from kafka_edu.v3_9.core.server.auto_topic_creation_manager import DefaultAutoTopicCreationManager
from kafka_edu.v3_9.core.server.broker_lifecycle_manager import BrokerLifecycleManager
from kafka_edu.v3_9.core.server.forwarding_manager import ForwardingManagerImpl
from kafka_edu.v3_9.core.server.kraft_replica_manager_bridge import KRaftReplicaManager
from kafka_edu.v3_9.core.server.metadata.broker_metadata_publisher import BrokerMetadataPublisher
from kafka_edu.v3_9.core.server.metadata.kraft_metadata_cache import KRaftMetadataCache
from kafka_edu.v3_9.core.server.node_to_controller_channel_manager import (
    ClientResponse,
    ControllerRequest,
    NodeToControllerChannelManagerImpl,
    RaftControllerNodeProvider,
)
from kafka_edu.v3_9.core.server.shared_server import SharedServer
from kafka_edu.v3_9.metadata.metadata.broker_state import BrokerState
from kafka_edu.v3_9.server_common.server.util.future_utils import Deadline, wait_with_logging

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


class _NoBrokerState:
    """What 1.0.2's LogManager is handed for the broker state it updates while it recovers logs. In 3.9 the
    LogManager has no broker state: the BrokerLifecycleManager owns it (RECOVERY covers the log loading)."""

    current_state = None

    def new_state(self, _state: Any) -> None:
        return None


class BrokerServer:
    """A broker in KRaft mode, built around the node's SharedServer."""

    def __init__(self, shared_server: SharedServer) -> None:
        self.shared_server = shared_server
        self.config = shared_server.shared_server_config
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
        self.broker_topic_stats: BrokerTopicStats | None = None
        self.metadata_cache: KRaftMetadataCache | None = None
        self.forwarding_manager: ForwardingManagerImpl | None = None
        self.auto_topic_creation_manager: DefaultAutoTopicCreationManager | None = None
        self.alter_partition_channel_manager: NodeToControllerChannelManagerImpl | None = None
        self.alter_partition_manager: AlterPartitionManager | None = None
        self.replica_manager: KRaftReplicaManager | None = None
        self.group_coordinator: GroupCoordinator | None = None
        self.transaction_coordinator: TransactionCoordinator | None = None
        self.broker_metadata_publisher: BrokerMetadataPublisher | None = None
        self.metadata_publishers: list[Any] = []
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
        startup_deadline = Deadline.from_delay(self.config.server_max_startup_time_ms)
        config = self.config
        try:
            self.shared_server.start_for_broker()

            self.log.info("Starting broker")

            # start scheduler
            self.kafka_scheduler = KafkaScheduler(config.background_threads)
            self.kafka_scheduler.startup()

            # register broker metrics
            self.broker_topic_stats = BrokerTopicStats()

            self.log_dir_failure_channel = LogDirFailureChannel(len(config.log_dirs))

            self.metadata_cache = KRaftMetadataCache(config.node_id, self.cluster_id)

            # 3.9 builds the LogManager here and starts it on the first publish. 1.0.2's LogManager loads and
            # recovers its logs as it is built, so that happens here, before the broker registers; its background
            # tasks start on the first publish (BrokerMetadataPublisher.initialize_managers).
            self.log_manager = self.create_log_manager()

            self.lifecycle_manager = BrokerLifecycleManager(config, thread_name_prefix=f"broker-{config.node_id}-",
                                                            is_zk_broker=False, log_dirs=self.directory_ids())

            wait_with_logging(self.log, "", "controller quorum voters future",
                              self.raft_manager.controller_quorum_voters_future, startup_deadline)
            controller_node_provider = RaftControllerNodeProvider.apply(self.raft_manager, config)

            self.client_to_controller_channel_manager = NodeToControllerChannelManagerImpl(
                controller_node_provider, config, "forwarding", f"broker-{config.node_id}-", retry_timeout_ms=60000)
            self.client_to_controller_channel_manager.start()
            self.forwarding_manager = ForwardingManagerImpl(self.client_to_controller_channel_manager)

            # Acceptors bind now so the bound ports are known; processors start at the end of startup.
            self.api_version_manager = broker_api_version_manager(kraft=True)
            self.socket_server = SocketServer(config, self.api_version_manager)
            self.socket_server.startup(startup_processors=False)

            listener_info = self.broker_registration_listeners()

            self.alter_partition_channel_manager = NodeToControllerChannelManagerImpl(
                controller_node_provider, config, "alter-partition", f"broker-{config.node_id}-",
                retry_timeout_ms=NO_RETRY_TIMEOUT_MS)
            self.alter_partition_channel_manager.start()
            lifecycle_manager = self.lifecycle_manager
            self.alter_partition_manager = AlterPartitionManager(
                controller_sender(self.alter_partition_channel_manager), self.kafka_scheduler, config.node_id,
                lambda: lifecycle_manager.broker_epoch)
            self.alter_partition_manager.start()

            self.replica_manager = KRaftReplicaManager(
                config, self.kafka_scheduler, self.log_manager, AtomicBoolean(False), self.metadata_cache,
                self.log_dir_failure_channel, self.broker_topic_stats, self.alter_partition_manager)

            # Create group coordinator, but don't start it until we've started replica manager.
            self.group_coordinator = GroupCoordinator.apply(config, self.replica_manager, self.kafka_scheduler)

            client_channel = self.client_to_controller_channel_manager
            # Create the transaction coordinator; the metadata publisher starts it with the other managers.
            self.transaction_coordinator = TransactionCoordinator(config.node_id, None, lambda: RPCProducerIdManager(
                config.node_id, lambda: lifecycle_manager.broker_epoch, client_channel))
            self.auto_topic_creation_manager = DefaultAutoTopicCreationManager(
                config, self.client_to_controller_channel_manager, self.group_coordinator.offsets_topic_configs)

            # KAFKA-14392: a heartbeat that waits longer than half a session is not worth sending any more
            broker_lifecycle_channel_manager = NodeToControllerChannelManagerImpl(
                controller_node_provider, config, "heartbeat", f"broker-{config.node_id}-",
                retry_timeout_ms=config.broker_session_timeout_ms // 2)
            loader = self.shared_server.loader
            self.lifecycle_manager.start(
                lambda: loader.last_applied_offset(),
                broker_lifecycle_channel_manager,
                self.cluster_id,
                listener_info,
                {METADATA_VERSION_FEATURE: (MINIMUM_KRAFT_METADATA_VERSION, LATEST_PRODUCTION_METADATA_VERSION)},
                # 3.9 reads it from the clean-shutdown files, which 1.0.2's LogManager leaves empty
                None)

            # KafkaApis on KRaft metadata: no admin manager or ZooKeeper controller; what needs the controller is
            # forwarded.
            self.data_plane_request_processor = KafkaApis(
                self.socket_server.request_channel, self.replica_manager, None, self.group_coordinator,
                self.transaction_coordinator,
                config.node_id, config, self.metadata_cache, None, self.cluster_id, copy_kafka_config_to_log(config),
                forwarding_manager=self.forwarding_manager,
                auto_topic_creation_manager=self.auto_topic_creation_manager,
                api_version_manager=self.api_version_manager)
            self.data_plane_request_handler_pool = KafkaRequestHandlerPool(
                config.node_id, self.socket_server.request_channel, self.data_plane_request_processor,
                config.num_io_threads)

            self.broker_metadata_publisher = BrokerMetadataPublisher(
                config, self.metadata_cache, self.log_manager, self.replica_manager, self.group_coordinator,
                self.transaction_coordinator)
            self.metadata_publishers.append(self.broker_metadata_publisher)
            wait_with_logging(self.log, "", "the broker metadata publishers to be installed",
                              loader.install_publishers(self.metadata_publishers), startup_deadline)

            # The controller says we have caught up once our metadata offset reaches our RegisterBrokerRecord.
            wait_with_logging(self.log, "", "the controller to acknowledge that we are caught up",
                              self.lifecycle_manager.initial_catch_up_future, startup_deadline)

            # RECOVERY: the first publish starts the log manager, the replica manager and the group coordinator.
            wait_with_logging(self.log, "", "the initial broker metadata update to be published",
                              self.broker_metadata_publisher.first_publish_future, startup_deadline)

            # Ready: ask to be unfenced; RECOVERY -> RUNNING once the controller does it.
            wait_with_logging(self.log, "", "the broker to be unfenced",
                              self.lifecycle_manager.set_ready_to_unfence(), startup_deadline)

            # Enable inbound TCP connections.
            self.socket_server.start_processors()

            self.maybe_change_status(ProcessStatus.STARTING, ProcessStatus.STARTED)
        except BaseException:
            self.maybe_change_status(ProcessStatus.STARTING, ProcessStatus.STARTED)
            self.log.critical("Fatal error during broker startup. Prepare to shutdown", exc_info=True)
            self.shutdown()
            raise

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
        for ep in self.config.effective_advertised_broker_listeners:
            host = ep.host if ep.host and ep.host != "0.0.0.0" else socket.getfqdn()
            port = ep.port if ep.port != 0 else self.socket_server.bound_port(ep.listener_name)
            listeners.append({"name": ep.listener_name, "host": host, "port": port,
                              "security_protocol": SECURITY_PROTOCOLS.index(ep.security_protocol)})
        return listeners

    def create_log_manager(self) -> LogManager:
        """LogManager.apply: the default log config from the broker's; topic configs come from the metadata image
        in 3.9 (next slice), so none yet."""
        config = self.config
        default_config = LogConfig.from_props(copy_kafka_config_to_log(config))
        return LogManager(
            log_dirs=[Path(d) for d in config.log_dirs],
            initial_offline_dirs=[Path(d) for d in self.shared_server.meta_props_ensemble.error_log_dirs()],
            topic_configs={}, default_config=default_config, io_threads=config.num_recovery_threads_per_data_dir,
            flush_check_ms=config.log_flush_scheduler_interval_ms,
            flush_recovery_offset_checkpoint_ms=config.log_flush_offset_checkpoint_interval_ms,
            flush_start_offset_checkpoint_ms=config.log_flush_start_offset_checkpoint_interval_ms,
            retention_check_ms=config.log_cleanup_interval_ms, scheduler=self.kafka_scheduler,
            broker_state=_NoBrokerState(), log_dir_failure_channel=self.log_dir_failure_channel)

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
            if self.alter_partition_channel_manager is not None:
                with swallow(log):
                    self.alter_partition_channel_manager.shutdown()
            if self.forwarding_manager is not None:
                with swallow(log):
                    self.forwarding_manager.close()

            if self.client_to_controller_channel_manager is not None:
                with swallow(log):
                    self.client_to_controller_channel_manager.shutdown()

            # 3.9 also writes the broker epoch into the clean-shutdown files here
            if self.log_manager is not None:
                with swallow(log):
                    self.log_manager.shutdown()

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


def _now_ms() -> int:
    return time.monotonic_ns() // 1_000_000


def controller_sender(channel_manager: NodeToControllerChannelManagerImpl) -> Any:
    """AlterPartitionManager's sender over a channel to the active controller: the decoded response, or the
    exception that stands for no answer (3.9's ControllerRequestCompletionHandler in sendRequest)."""

    def send(request: Any, on_complete: Any) -> None:
        class _Handler:
            def on_complete(self, response: ClientResponse) -> None:
                if response.version_mismatch is not None:
                    on_complete(response.version_mismatch)
                elif response.authentication_exception is not None:
                    on_complete(response.authentication_exception)
                else:
                    on_complete(response.response_body)

            def on_timeout(self) -> None:
                on_complete(TimeoutError("AlterPartition was not sent within the retry timeout"))

        channel_manager.send_request(ControllerRequest(ApiKeys.ALTER_PARTITION, ALTER_PARTITION_VERSION, request),
                                     _Handler())

    return send
