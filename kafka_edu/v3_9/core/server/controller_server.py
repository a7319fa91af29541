"""Port of core/src/main/scala/kafka/server/ControllerServer.scala (Kafka 3.9): a KRaft controller's components, started
in 3.9's order."""

from __future__ import annotations

import enum
import logging
import threading
from typing import Any

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.core.utils.core_utils import swallow
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM, Time
from kafka_edu.v3_9.clients.server.authorizer.authorizer_server_info import AuthorizerServerInfo
from kafka_edu.v3_9.core.network.socket_server import DATA_PLANE_METRIC_PREFIX, DATA_PLANE_THREAD_PREFIX, SocketServer
from kafka_edu.v3_9.core.server.controller_apis import ControllerApis, controller_api_version_manager
from kafka_edu.v3_9.core.server.kafka_request_handler import KafkaRequestHandlerPool
from kafka_edu.v3_9.core.server.metadata.acl_publisher import AclPublisher
from kafka_edu.v3_9.core.server.shared_server import SharedServer
from kafka_edu.v3_9.metadata.controller.quorum_controller import QuorumController
from kafka_edu.v3_9.metadata.metadata.authorizer.cluster_metadata_authorizer import ClusterMetadataAuthorizer
from kafka_edu.v3_9.metadata.metadata.bootstrap.bootstrap_directory import BootstrapMetadata
from kafka_edu.v3_9.raft.raft.endpoints import Endpoints
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from kafka_edu.v3_9.server.security.authorizer.authorizer_utils import create_new_authorizer
from kafka_edu.v3_9.server_common.server.util.future_utils import Deadline, wait_with_logging

log = logging.getLogger("kafka.server.ControllerServer")


class ProcessStatus(enum.Enum):
    SHUTDOWN = "SHUTDOWN"
    STARTING = "STARTING"
    STARTED = "STARTED"
    SHUTTING_DOWN = "SHUTTING_DOWN"


class ControllerServer:
    """The CONTROLLER listener's SocketServer, the QuorumController on the shared Raft client, ControllerApis and
    its handler threads. `config` is the node's config, which this SocketServer reads too (1.0.2's KafkaConfig with
    3.9's KRaft keys, as BrokerServer's `node_config`); a combined node's broker has a SocketServer of its own."""

    def __init__(self, shared_server: SharedServer, bootstrap_metadata: BootstrapMetadata,
                 time: Time = SYSTEM) -> None:
        self.shared_server = shared_server
        self.config = shared_server.shared_server_config
        self.time = time
        self.bootstrap_metadata = bootstrap_metadata
        self.lock = threading.Lock()
        self.status = ProcessStatus.SHUTDOWN
        self.shutdown_latch = threading.Event()
        self.socket_server: SocketServer | None = None
        self.controller: Any = None
        self.controller_apis: ControllerApis | None = None
        self.controller_apis_handler_pool: KafkaRequestHandlerPool | None = None
        self.authorizer: Any | None = None

    def maybe_change_status(self, from_status: ProcessStatus, to_status: ProcessStatus) -> bool:
        with self.lock:
            if self.status != from_status:
                return False
            self.status = to_status
            if to_status == ProcessStatus.SHUTDOWN:
                self.shutdown_latch.set()
            return True

    def _controller_listener_endpoints(self) -> Endpoints:
        """ListenerInfo of the advertised controller listeners, an ephemeral port (0) replaced by the bound one: the
        endpoints this controller gives as a voter (KIP-853)."""
        addresses = {}
        endpoints = self.config.effective_advertised_controller_listeners  # a property on the server's KafkaConfig
        for endpoint in (endpoints() if callable(endpoints) else endpoints):
            name = endpoint.listener_name if isinstance(endpoint.listener_name, str) else endpoint.listener_name.value()
            port = endpoint.port or self.socket_server.bound_port(name)
            addresses[name] = (endpoint.host or "localhost", port)
        return Endpoints.from_inet_socket_addresses(addresses)

    @step("KR.controller")
    def startup(self) -> None:
        if not self.maybe_change_status(ProcessStatus.SHUTDOWN, ProcessStatus.STARTING):
            return
        startup_deadline = Deadline.from_delay(self.config.server_max_startup_time_ms)
        try:
            log.info("Starting controller")
            self.api_version_manager = controller_api_version_manager()
            # The CONTROLLER listeners' acceptors and processors, not started: nothing listens (and the other voters'
            # Raft clients retry) until enable_request_processing, at the end.
            self.socket_server = SocketServer(self.config, None, self.time, None, self.api_version_manager)
            # Create and configure the authorizer, if one is configured.
            self.authorizer = create_new_authorizer(self.config)
            if self.authorizer is not None:
                self.authorizer.configure(self.config.originals())
            self.shared_server.start_for_controller(self._controller_listener_endpoints())
            raft_manager = self.shared_server.raft_manager
            assert raft_manager is not None
            leader_imbalance_check_interval_ns = (
                self.config.leader_imbalance_check_interval_seconds * 1_000_000_000
                if self.config.auto_leader_rebalance_enable else None)
            self.controller = (QuorumController.Builder(self.config.node_id, self.shared_server.cluster_id())
                               .set_thread_name_prefix(f"quorum-controller-{self.config.node_id}-")
                               .set_raft_client(raft_manager.client)
                               .set_default_replication_factor(self.config.default_replication_factor)
                               .set_default_num_partitions(self.config.num_partitions)
                               .set_session_timeout_ns(self.config.broker_session_timeout_ms * 1_000_000)
                               .set_leader_imbalance_check_interval_ns(leader_imbalance_check_interval_ns)
                               .set_max_idle_interval_ns(self.config.metadata_max_idle_interval_ns)
                               .set_static_config(self.config.originals())
                               .set_bootstrap_metadata(self.bootstrap_metadata)
                               .build())
            # With a ClusterMetadataAuthorizer, ACL changes are controller writes.
            if isinstance(self.authorizer, ClusterMetadataAuthorizer):
                self.authorizer.set_acl_mutator(self.controller)
            self.controller_apis = ControllerApis(self.socket_server.data_plane_request_channel, self.controller,
                                                  raft_manager, self.config, self.shared_server.cluster_id(),
                                                  self.api_version_manager, authorizer=self.authorizer,
                                                  time=self.time)
            self.controller_apis_handler_pool = KafkaRequestHandlerPool(
                self.config.node_id, self.socket_server.data_plane_request_channel, self.controller_apis, self.time,
                self.config.num_io_threads, f"{DATA_PLANE_METRIC_PREFIX}RequestHandlerAvgIdlePercent",
                DATA_PLANE_THREAD_PREFIX, "controller")

            # The image's ACLs into the authorizer; its first publish completes the authorizer's initial load.
            loader = self.shared_server.loader
            assert loader is not None
            loader.install_publishers([AclPublisher(self.config.node_id,
                                                    self.shared_server.metadata_publishing_fault_handler(),
                                                    "controller", self.authorizer)]).result()
            # Enable the controller endpoints. The CONTROLLER listener starts early (before the ACLs are loaded):
            # the Raft quorum that loads them needs it; only super users are served until the load completes.
            authorizer_futures = self._authorizer_futures()
            socket_server_future = self.socket_server.enable_request_processing(authorizer_futures)
            wait_with_logging(log, "", "all of the SocketServer Acceptors to be started", socket_server_future,
                              startup_deadline)
            for future in authorizer_futures.values():
                wait_with_logging(log, "", "all of the authorizer futures to be completed", future,
                                  startup_deadline)
            self.maybe_change_status(ProcessStatus.STARTING, ProcessStatus.STARTED)
        except BaseException:
            self.maybe_change_status(ProcessStatus.STARTING, ProcessStatus.STARTED)
            log.exception("Fatal error during controller startup. Prepare to shutdown")
            self.shutdown()
            raise

    def _authorizer_futures(self) -> dict[Any, CompletableFuture[None]]:
        """EndpointReadyFutures: per endpoint, the authorizer's start future (none without an authorizer)."""
        if self.authorizer is None:
            return {}
        assert self.socket_server is not None
        endpoints = [acceptor.end_point for acceptor in self.socket_server.data_plane_acceptors.values()]
        early_start_listeners = getattr(self.config, "early_start_listeners", None) or {
            ep.listener_name for ep in endpoints}
        return self.authorizer.start(AuthorizerServerInfo(self.shared_server.cluster_id(), self.config.node_id,
                                                          endpoints, None, early_start_listeners))

    def shutdown(self) -> None:
        if not self.maybe_change_status(ProcessStatus.STARTED, ProcessStatus.SHUTTING_DOWN):
            return
        log.info("shutting down")
        self.shared_server.ensure_not_raft_leader()
        if self.socket_server is not None:
            with swallow(log):
                self.socket_server.stop_processing_requests()
        if self.controller is not None:
            self.controller.begin_shutdown()
        if self.socket_server is not None:
            with swallow(log):
                self.socket_server.shutdown()
        if self.controller_apis_handler_pool is not None:
            with swallow(log):
                self.controller_apis_handler_pool.shutdown()
        if self.controller_apis is not None:
            with swallow(log):
                self.controller_apis.close()
        if self.controller is not None:
            self.controller.close()
        if self.authorizer is not None:
            with swallow(log):
                self.authorizer.close()
        self.shared_server.stop_for_controller()
        self.maybe_change_status(ProcessStatus.SHUTTING_DOWN, ProcessStatus.SHUTDOWN)

    def await_shutdown(self) -> None:
        # Bounded waits: Python runs a signal handler only between them (see KafkaServer.await_shutdown).
        while not self.shutdown_latch.wait(1.0):
            pass
