"""Port of core/src/main/scala/kafka/server/KafkaServer.scala (Kafka 1.0.2)."""

from __future__ import annotations

import importlib
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from kafka_edu.tracing import event, note, step
from kafka_edu.v1_0_2.clients.common.errors import (
    GenerateBrokerIdException,
    IllegalStateException,
    InconsistentBrokerIdException,
    KafkaException,
)
from kafka_edu.v1_0_2.clients.common.requests.api_versions_response import ApiVersionsResponse
from kafka_edu.v1_0_2.core.controller.controller_context import create_broker
from kafka_edu.v1_0_2.core.controller.kafka_controller import KafkaController
from kafka_edu.v1_0_2.core.coordinator.group.group_coordinator import GroupCoordinator
from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_coordinator import TransactionCoordinator
from kafka_edu.v1_0_2.core.log.log_config import LogConfig
from kafka_edu.v1_0_2.core.log.log_manager import LogManager, cleaner_config_of
from kafka_edu.v1_0_2.core.network.blocking_channel import BlockingChannel
from kafka_edu.v1_0_2.core.network.socket_server import SocketServer
from kafka_edu.v1_0_2.core.security.credential_provider import CredentialProvider
from kafka_edu.v1_0_2.core.server.admin_manager import AdminManager
from kafka_edu.v1_0_2.core.server.broker_metadata_checkpoint import BrokerMetadata, BrokerMetadataCheckpoint
from kafka_edu.v1_0_2.core.server.broker_states import BrokerState, BrokerStates
from kafka_edu.v1_0_2.core.server.broker_topic_stats import BrokerTopicStats
from kafka_edu.v1_0_2.core.server.dynamic_config_manager import (
    DynamicConfigManager,
    TopicConfigHandler,
    UserConfigHandler,
)
from kafka_edu.v1_0_2.core.server.kafka_apis import KafkaApis, api_versions_response
from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
from kafka_edu.v1_0_2.core.server.kafka_healthcheck import KafkaHealthcheck
from kafka_edu.v1_0_2.core.server.kafka_request_handler import KafkaRequestHandlerPool
from kafka_edu.v1_0_2.core.server.log_dir_failure_channel import LogDirFailureChannel
from kafka_edu.v1_0_2.core.server.metadata_cache import MetadataCache
from kafka_edu.v1_0_2.core.server.replica_manager import ReplicaManager
from kafka_edu.v1_0_2.core.utils.concurrent import AtomicBoolean, CountDownLatch
from kafka_edu.v1_0_2.core.utils.core_utils import generate_uuid_as_base64, swallow
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v1_0_2.core.utils.kafka_scheduler import KafkaScheduler
from kafka_edu.v1_0_2.core.utils.zk_utils import ZkUtils
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors

# What 1.0.2 sends (inter.broker.protocol.version 0.9.0 and later); its header (v1) carries the traceparent in the
# client id (codec.py).
CONTROLLED_SHUTDOWN_VERSION = 1
KAFKA_AUTHORIZERS = {
    "kafka.security.auth.SimpleAclAuthorizer":
        "kafka_edu.v1_0_2.core.security.auth.simple_acl_authorizer.SimpleAclAuthorizer"}


class SecurityException(Exception):
    """java.lang.SecurityException."""


class KafkaServer:
    """The lifecycle of one broker: `startup` brings every component up in order, `shutdown` takes them down."""

    def __init__(self, config: KafkaConfig) -> None:
        self.config = config
        self.log = Logging("kafka.server.KafkaServer")
        self.startup_complete = AtomicBoolean(False)
        self.is_shutting_down = AtomicBoolean(False)
        self.is_starting_up = AtomicBoolean(False)
        self.shutdown_latch = CountDownLatch(1)

        self.broker_state = BrokerState()
        self.kafka_scheduler = KafkaScheduler(config.background_threads)
        self.zk_utils: ZkUtils | None = None
        self.log_dir_failure_channel: LogDirFailureChannel | None = None
        self.log_manager: LogManager | None = None
        self.metadata_cache: MetadataCache | None = None
        self.credential_provider: CredentialProvider | None = None
        self.socket_server: SocketServer | None = None
        self.api_versions: ApiVersionsResponse | None = None  # what the listeners serve, at which versions
        self.authorizer: Any = None
        self.dynamic_config_manager: DynamicConfigManager | None = None
        self.kafka_healthcheck: KafkaHealthcheck | None = None
        self.replica_manager: ReplicaManager | None = None
        self.kafka_controller: KafkaController | None = None
        self.admin_manager: AdminManager | None = None
        self.transaction_coordinator: TransactionCoordinator | None = None
        self.group_coordinator: GroupCoordinator | None = None
        self.apis: KafkaApis | None = None
        self.request_handler_pool: KafkaRequestHandlerPool | None = None
        self.broker_topic_stats: BrokerTopicStats | None = None

        self.broker_meta_props_file = "meta.properties"
        self.broker_metadata_checkpoints = {
            log_dir: BrokerMetadataCheckpoint(Path(log_dir) / self.broker_meta_props_file)
            for log_dir in config.log_dirs}
        self.cluster_id: str | None = None

    # -- startup --------------------------------------------------------------------------------------------------

    def startup(self) -> None:
        with step("LC.main.4", root=True):
            try:
                self.log.info("starting")
                with step("LC.startup.01"):
                    if self.is_shutting_down.get():
                        raise IllegalStateException("Kafka server is still shutting down, cannot re-start!")
                    if self.startup_complete.get():
                        return
                    can_startup = self.is_starting_up.compare_and_set(False, True)
                if can_startup:
                    self.broker_state.new_state(BrokerStates.Starting)

                    with step("LC.startup.03", self):
                        self.kafka_scheduler.startup()

                    with step("LC.startup.04", self):
                        self.zk_utils = self.init_zk()

                    with step("LC.startup.05", self):
                        self.cluster_id = self.get_or_generate_cluster_id(self.zk_utils)
                    self.log.info("Cluster ID = %s", self.cluster_id)

                    broker_id, initial_offline_dirs = self.get_broker_id_and_offline_dirs()
                    self.config.broker_id = broker_id
                    self.log.log_ident = f"[KafkaServer id={broker_id}] "

                    with step("LC.startup.07"):
                        # No metrics reporters here (Kafka's are JMX); the stats and the failure channel are real.
                        self.broker_topic_stats = BrokerTopicStats()
                        self.log_dir_failure_channel = LogDirFailureChannel(len(self.config.log_dirs))

                    with step("LC.startup.08", self):
                        self.log_manager = self.create_log_manager(initial_offline_dirs)
                        self.log_manager.startup()

                    with step("LC.startup.09"):
                        self.metadata_cache = MetadataCache(self.config.broker_id)
                        # SCRAM credentials: filled from /config/users once the config manager starts
                        self.credential_provider = CredentialProvider(self.config.sasl_enabled_mechanisms)

                    # Acceptors bind now so the bound ports are known; processors wait until the end of startup.
                    with step("LC.startup.10", self):
                        self.api_versions = api_versions_response(
                            self.config.get_string("kafka.edu.advertised.api.versions"))
                        self.socket_server = SocketServer(self.config, self.api_versions, self.credential_provider)
                        self.socket_server.startup(startup_processors=False)

                    with step("LC.startup.11"):
                        self.replica_manager = self.create_replica_manager()
                        self.replica_manager.startup()

                    with step("LC.startup.12"):
                        self.kafka_controller = KafkaController(self.config, self.zk_utils)
                        self.kafka_controller.startup()

                    with step("LC.startup.13"):
                        self.admin_manager = AdminManager(self.config, self.metadata_cache, self.zk_utils)

                    with step("LC.startup.14"):
                        self.group_coordinator = GroupCoordinator.apply(self.config, self.replica_manager,
                                                                        self.kafka_scheduler, zk_utils=self.zk_utils)
                        self.group_coordinator.startup()

                    with step("LC.startup.15"):
                        self.transaction_coordinator = TransactionCoordinator.apply(
                            self.config, self.replica_manager,
                            KafkaScheduler(threads=1, thread_name_prefix="transaction-log-manager-"), self.zk_utils,
                            self.metadata_cache)
                        self.transaction_coordinator.startup()

                    with step("LC.startup.16", self):
                        self.authorizer = self.create_authorizer()

                    with step("LC.startup.17"):
                        self.apis = KafkaApis(self.socket_server.request_channel, self.replica_manager,
                                              self.admin_manager, self.group_coordinator,
                                              self.transaction_coordinator, self.config.broker_id,
                                              self.config, self.metadata_cache, self.kafka_controller,
                                              self.cluster_id, copy_kafka_config_to_log(self.config),
                                              api_versions=self.api_versions,
                                              authorizer=self.authorizer)

                    with step("LC.startup.18", self):
                        self.request_handler_pool = KafkaRequestHandlerPool(
                            self.config.broker_id, self.socket_server.request_channel, self.apis,
                            self.config.num_io_threads)

                    with step("LC.startup.19"):
                        self.dynamic_config_manager = DynamicConfigManager(
                            self.zk_utils, {"topics": TopicConfigHandler(self.apply_topic_config),
                                            "users": UserConfigHandler(self.credential_provider)})
                        self.dynamic_config_manager.startup()

                    # Tell everyone we are alive: listeners with port 0 are registered with the port actually bound.
                    listeners = [e if e.port != 0 else _with_port(e, self.socket_server.bound_port(e.listener_name))
                                 for e in self.config.advertised_listeners]
                    with step("LC.startup.20", listeners=listeners):
                        self.kafka_healthcheck = KafkaHealthcheck(self.config.broker_id, listeners, self.zk_utils,
                                                                  self.config.rack)
                        self.kafka_healthcheck.startup()

                    # Only once the id is registered is it safe to make it permanent on disk.
                    self.checkpoint_broker_id(self.config.broker_id)

                    with step("LC.startup.22"):
                        self.socket_server.start_processors()

                    self.broker_state.new_state(BrokerStates.RunningAsBroker)

                    with step("LC.startup.24"):
                        self.shutdown_latch = CountDownLatch(1)
                        self.startup_complete.set(True)
                        self.is_starting_up.set(False)
                    self.log.info("started")
            except BaseException as e:
                self.log.critical("Fatal error during KafkaServer startup. Prepare to shutdown: %s: %s",
                                  type(e).__name__, e)
                event("LC.startup.err", e=e)
                self.is_starting_up.set(False)
                self.shutdown()
                raise

    def init_zk(self) -> ZkUtils:
        self.log.info("Connecting to zookeeper on %s", self.config.zk_connect)
        zk_connect = self.config.zk_connect
        chroot_index = zk_connect.find("/")
        chroot = zk_connect[chroot_index:] if chroot_index > 0 else None
        if self.config.zk_enable_secure_acls:
            # There is no JAAS login here, so secure ACLs can never be verified.
            raise SecurityException("zookeeper.set.acl is true, but the verification of the JAAS login file failed.")
        if chroot is not None:
            zk_client_for_chroot_creation = ZkUtils.with_metrics(zk_connect[:chroot_index],
                                                                 self.config.zk_session_timeout_ms,
                                                                 self.config.zk_connection_timeout_ms)
            zk_client_for_chroot_creation.make_sure_persistent_path_exists(chroot)
            self.log.info("Created zookeeper path %s", chroot)
            zk_client_for_chroot_creation.close()
        zk_utils = ZkUtils.with_metrics(zk_connect, self.config.zk_session_timeout_ms,
                                        self.config.zk_connection_timeout_ms)
        zk_utils.setup_common_paths()
        return zk_utils

    def get_or_generate_cluster_id(self, zk_utils: ZkUtils) -> str:
        return zk_utils.get_cluster_id() or zk_utils.create_or_get_cluster_id(generate_uuid_as_base64())

    @step("LC.startup.06")
    def get_broker_id_and_offline_dirs(self) -> tuple[int, list[str]]:
        """The broker id from config, meta.properties or ZooKeeper, checked for agreement; and unreadable dirs."""
        broker_id = self.config.broker_id
        broker_id_set: set[int] = set()
        offline_dirs: list[str] = []
        for log_dir in self.config.log_dirs:
            try:
                broker_metadata = self.broker_metadata_checkpoints[log_dir].read()
                if broker_metadata is not None:
                    broker_id_set.add(broker_metadata.broker_id)
            except OSError as e:
                offline_dirs.append(log_dir)
                self.log.error("Fail to read %s under log directory %s: %s", self.broker_meta_props_file, log_dir, e)

        if len(broker_id_set) > 1:
            raise InconsistentBrokerIdException(
                "Failed to match broker.id across log.dirs. This could happen if multiple brokers shared a log "
                f"directory (log.dirs) or partial data was manually copied from another broker. Found "
                f"{sorted(broker_id_set)}")
        elif broker_id >= 0 and len(broker_id_set) == 1 and next(iter(broker_id_set)) != broker_id:
            raise InconsistentBrokerIdException(
                f"Configured broker.id {broker_id} doesn't match stored broker.id {next(iter(broker_id_set))} in "
                "meta.properties. If you moved your data, make sure your configured broker.id matches. If you intend "
                "to create a new broker, you should remove all data in your data directories (log.dirs).")
        elif not broker_id_set and broker_id < 0 and self.config.broker_id_generation_enable:
            broker_id = self.generate_broker_id()
        elif len(broker_id_set) == 1:
            broker_id = next(iter(broker_id_set))

        return broker_id, offline_dirs

    def generate_broker_id(self) -> int:
        try:
            return self.zk_utils.get_broker_sequence_id(self.config.max_reserved_broker_id)
        except Exception as e:
            self.log.error("Failed to generate broker.id due to %s", e)
            raise GenerateBrokerIdException("Failed to generate broker.id") from e

    @step("LC.startup.21")
    def checkpoint_broker_id(self, broker_id: int) -> None:
        log_dirs_without_meta_props = [
            log_dir for log_dir in self.config.log_dirs
            if self.log_manager.is_log_dir_online(log_dir) and self.broker_metadata_checkpoints[log_dir].read() is None]
        for log_dir in log_dirs_without_meta_props:
            self.broker_metadata_checkpoints[log_dir].write(BrokerMetadata(broker_id))

    def create_replica_manager(self) -> ReplicaManager:
        return ReplicaManager(self.config, self.kafka_scheduler, self.log_manager, self.is_shutting_down,
                              self.metadata_cache, self.log_dir_failure_channel, self.broker_topic_stats,
                              zk_utils=self.zk_utils)

    def create_log_manager(self, initial_offline_dirs: list[str]) -> LogManager:
        """LogManager.apply: the default log config from the broker's, each topic's overrides from ZooKeeper."""
        default_config = LogConfig.from_props(copy_kafka_config_to_log(self.config))
        topic_configs = {topic: LogConfig.from_props({**copy_kafka_config_to_log(self.config), **overrides})
                         for topic, overrides in self.fetch_all_topic_configs().items()}
        return LogManager(
            log_dirs=[Path(d) for d in self.config.log_dirs], initial_offline_dirs=[Path(d) for d in
                                                                                    initial_offline_dirs],
            topic_configs=topic_configs, default_config=default_config,
            io_threads=self.config.num_recovery_threads_per_data_dir,
            flush_check_ms=self.config.log_flush_scheduler_interval_ms,
            flush_recovery_offset_checkpoint_ms=self.config.log_flush_offset_checkpoint_interval_ms,
            flush_start_offset_checkpoint_ms=self.config.log_flush_start_offset_checkpoint_interval_ms,
            retention_check_ms=self.config.log_cleanup_interval_ms, scheduler=self.kafka_scheduler,
            broker_state=self.broker_state, log_dir_failure_channel=self.log_dir_failure_channel,
            cleaner_config=cleaner_config_of(self.config))

    def fetch_all_topic_configs(self) -> dict[str, dict[str, str]]:
        manager = DynamicConfigManager(self.zk_utils, {})
        return {topic: manager.fetch_entity_config("topics", topic)
                for topic in self.zk_utils.get_children("/config/topics")}

    def apply_topic_config(self, topic: str, overrides: dict[str, str]) -> None:
        """TopicConfigHandler: new overrides from ZooKeeper replace the config of that topic's logs."""
        config = LogConfig.from_props({**copy_kafka_config_to_log(self.config), **overrides})
        self.log_manager.topic_configs[topic] = config
        for (log_topic, _), log in list(self.log_manager.logs.items()):
            if log_topic == topic:
                log.config = config

    def create_authorizer(self) -> Any:
        """`authorizer.class.name` names a Python class here (module.Class), configured with the raw properties;
        Kafka's own class name stands for its port."""
        name = self.config.authorizer_class_name
        if not name:
            return None
        name = KAFKA_AUTHORIZERS.get(name, name)
        module_name, _, class_name = name.rpartition(".")
        try:
            authorizer = getattr(importlib.import_module(module_name), class_name)()
        except (ImportError, AttributeError, ValueError) as e:
            raise KafkaException(f"Class {name} cannot be found") from e
        authorizer.configure(self.config.originals())
        return authorizer

    # -- shutdown -------------------------------------------------------------------------------------------------

    def shutdown(self) -> None:
        try:
            self.log.info("shutting down")
            with step("LC.shutdown.01"):
                if self.is_starting_up.get():
                    raise IllegalStateException("Kafka server is still starting up, cannot shut down!")
                # The latch is checked first: it is updated last, so a concurrent call cannot shut down twice.
                proceed = self.shutdown_latch.count > 0 and self.is_shutting_down.compare_and_set(False, True)
            if proceed:
                with swallow(self.log):
                    self.controlled_shutdown()
                self.broker_state.new_state(BrokerStates.BrokerShuttingDown)
                if self.kafka_healthcheck is not None:
                    with swallow(self.log), step("LC.shutdown.04"):
                        self.kafka_healthcheck.shutdown()
                # Stop taking connections and requests now; the socket server itself closes near the end.
                if self.socket_server is not None:
                    with swallow(self.log), step("LC.shutdown.05"):
                        self.socket_server.stop_processing_requests()
                if self.request_handler_pool is not None:
                    with swallow(self.log), step("LC.shutdown.06"):
                        self.request_handler_pool.shutdown()
                with swallow(self.log), step("LC.shutdown.07"):
                    self.kafka_scheduler.shutdown()
                if self.apis is not None:
                    with swallow(self.log), step("LC.shutdown.08"):
                        self.apis.close()
                if self.authorizer is not None:
                    with swallow(self.log), step("LC.shutdown.09"):
                        self.authorizer.close()
                if self.admin_manager is not None:
                    with swallow(self.log), step("LC.shutdown.10"):
                        self.admin_manager.shutdown()
                if self.transaction_coordinator is not None:
                    with swallow(self.log), step("LC.shutdown.11"):
                        self.transaction_coordinator.shutdown()
                if self.group_coordinator is not None:
                    with swallow(self.log), step("LC.shutdown.12"):
                        self.group_coordinator.shutdown()
                if self.replica_manager is not None:
                    with swallow(self.log), step("LC.shutdown.13"):
                        self.replica_manager.shutdown()
                if self.log_manager is not None:
                    with swallow(self.log), step("LC.shutdown.14"):
                        self.log_manager.shutdown()
                if self.kafka_controller is not None:
                    with swallow(self.log), step("LC.shutdown.15"):
                        self.kafka_controller.shutdown()
                if self.zk_utils is not None:
                    with swallow(self.log), step("LC.shutdown.16"):
                        self.zk_utils.close()
                if self.socket_server is not None:
                    with swallow(self.log), step("LC.shutdown.18"):
                        self.socket_server.shutdown()
                if self.broker_topic_stats is not None:
                    with swallow(self.log), step("LC.shutdown.19"):
                        self.broker_topic_stats.close()
                self.broker_state.new_state(BrokerStates.NotRunning)
                with step("LC.shutdown.21"):
                    self.startup_complete.set(False)
                    self.is_shutting_down.set(False)
                    self.shutdown_latch.count_down()
                self.log.info("shut down completed")
        except BaseException as e:
            self.log.critical("Fatal error during KafkaServer shutdown: %s: %s", type(e).__name__, e)
            self.is_shutting_down.set(False)
            raise

    def controlled_shutdown(self) -> None:
        """Ask the controller to move leadership off this broker before it stops: PendingControlledShutdown, then
        ControlledShutdown requests to whoever `/controller` names, retried with a backoff; on failure, go on anyway."""
        if not (self.startup_complete.get() and self.config.controlled_shutdown_enable):
            return
        with step("LC.shutdown.02", self):
            self.log.info("Starting controlled shutdown")
            self.broker_state.new_state(BrokerStates.PendingControlledShutdown)
            shutdown_succeeded = self.do_controlled_shutdown(self.config.controlled_shutdown_max_retries)
            note(shutdown_succeeded=shutdown_succeeded)
            if not shutdown_succeeded:
                self.log.warning("Proceeding to do an unclean shutdown as all the controlled shutdown attempts failed")

    def do_controlled_shutdown(self, retries: int) -> bool:
        """The retry loop of 1.0.2's doControlledShutdown, over one blocking connection at a time."""
        client = _ControlledShutdownClient(self.config)
        try:
            shutdown_succeeded = False
            remaining_retries = retries
            prev_controller: Any = None
            io_exception = False
            while not shutdown_succeeded and remaining_retries > 0:
                remaining_retries -= 1
                # The controller as ZooKeeper has it now: it may have moved since the last attempt.
                controller_id = self.zk_utils.get_controller_id()
                info = self.zk_utils.get_broker_info(controller_id) if controller_id >= 0 else None
                if info is not None:
                    broker = create_broker(controller_id, info)
                    if io_exception or prev_controller is None or broker != prev_controller:
                        io_exception = False
                        client.close()
                        prev_controller = broker
                if prev_controller is not None:
                    try:
                        response = client.send(prev_controller, self.config.broker_id)
                        remaining = [f"{p.topic_name}-{p.partition_index}" for p in response.remaining_partitions]
                        if response.error_code == Errors.NONE and not remaining:
                            shutdown_succeeded = True
                            self.log.info("Controlled shutdown succeeded")
                        else:
                            self.log.info("Remaining partitions to move: %s", ",".join(remaining))
                            self.log.info("Error code from controller: %d", int(response.error_code))
                    except OSError as ioe:
                        io_exception = True
                        self.log.warning("Error during controlled shutdown, possibly because leader movement took "
                                         "longer than the configured controller.socket.timeout.ms and/or "
                                         "request.timeout.ms: %s", ioe)
                if not shutdown_succeeded:
                    time.sleep(self.config.controlled_shutdown_retry_backoff_ms / 1000)
                    self.log.warning("Retrying controlled shutdown after the previous attempt failed...")
            return shutdown_succeeded
        finally:
            client.close()

    @step("LC.main.5", root=True)
    def await_shutdown(self) -> None:
        # Waits of a second, repeated: Python runs a signal's handler only when the main thread is between waits,
        # and an unbounded wait may never return for a signal the kernel delivered to another thread.
        while not self.shutdown_latch.await_(1.0):
            pass

    def bound_port(self, listener_name: str = "PLAINTEXT") -> int:
        return self.socket_server.bound_port(listener_name)


class _ControlledShutdownClient:
    """A blocking connection to the current controller, reopened when the controller changes."""

    def __init__(self, config: KafkaConfig) -> None:
        self.config = config
        self.channel: BlockingChannel | None = None

    def send(self, controller: Any, broker_id: int) -> Any:
        if self.channel is None:
            host, port = controller.endpoints[self.config.inter_broker_listener_name]
            self.channel = BlockingChannel(host, port, self.config.controller_socket_timeout_ms / 1000,
                                           str(broker_id))
        body = build(ApiKeys.CONTROLLED_SHUTDOWN.request_schema(CONTROLLED_SHUTDOWN_VERSION), broker_id=broker_id)
        return self.channel.send_and_receive(ApiKeys.CONTROLLED_SHUTDOWN, CONTROLLED_SHUTDOWN_VERSION, body)

    def close(self) -> None:
        if self.channel is not None:
            self.channel.disconnect()
            self.channel = None


def _with_port(end_point: Any, port: int) -> Any:
    return replace(end_point, port=port)


def copy_kafka_config_to_log(config: KafkaConfig) -> dict[str, Any]:
    """The broker-wide `log.*` settings under their topic-level names: the defaults every log starts from."""
    return {
        "segment.bytes": config.log_segment_bytes,
        "segment.ms": config.log_roll_time_millis,
        "segment.index.bytes": config.log_index_size_max_bytes,
        "flush.messages": config.log_flush_interval_messages,
        "flush.ms": config.log_flush_interval_ms,
        "retention.bytes": config.log_retention_bytes,
        "retention.ms": config.log_retention_time_millis,
        "max.message.bytes": config.message_max_bytes,
        "index.interval.bytes": config.log_index_interval_bytes,
        "file.delete.delay.ms": config.log_delete_delay_ms,
        "cleanup.policy": ",".join(config.log_cleanup_policy),
        "min.insync.replicas": config.min_in_sync_replicas,
        "compression.type": config.compression_type,
        "message.timestamp.type": config.log_message_timestamp_type,
        "message.timestamp.difference.max.ms": config.log_message_timestamp_difference_max_ms,
        "delete.retention.ms": config.log_cleaner_delete_retention_ms,
        "min.compaction.lag.ms": config.log_cleaner_min_compaction_lag_ms,
        "min.cleanable.dirty.ratio": config.log_cleaner_min_clean_ratio,
    }
