"""Port of core/src/main/scala/kafka/server/KafkaConfig.scala (Kafka 3.9): the broker's and controller's
configuration, parsed from the server module's ConfigDef, its typed accessors, and validateValues (process roles,
node id, the controller quorum, listeners and advertised listeners, the inter-broker listener).

Not ported: DynamicBrokerConfig (reconfiguration; the current-config hook it uses is here), the ZooKeeper client's
TLS system properties (no JVM here: the zookeeper.ssl.* values are the configured ones), creating an authorizer.
Tiered storage is not ported: its keys (RemoteLogManagerConfig) are read, nothing acts on them.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from enum import Enum
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.config.config_def import ConfigException, ConfigKey, Password, Type
from kafka_edu.v3_9.clients.common.config.internals import broker_security_configs as bsc
from kafka_edu.v3_9.clients.common.network.listener_name import ListenerName
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from kafka_edu.v3_9.clients.common.security.auth.security_protocol import SecurityProtocol
from kafka_edu.v3_9.core.cluster.end_point import EndPoint, parse_listener_name
from kafka_edu.v3_9.core.utils import core_utils
from kafka_edu.v3_9.group_coordinator.coordinator.group import group_coordinator_config as gcc
from kafka_edu.v3_9.group_coordinator.coordinator.group.group_coordinator_config import GroupCoordinatorConfig
from kafka_edu.v3_9.raft.raft import quorum_config
from kafka_edu.v3_9.raft.raft.quorum_config import QuorumConfig
from kafka_edu.v3_9.server.network import socket_server_configs as ssc
from kafka_edu.v3_9.server.server.config import delegation_token_manager_configs as dtc
from kafka_edu.v3_9.server.server.config import kraft_configs as krc
from kafka_edu.v3_9.server.server.config import replication_configs as rc
from kafka_edu.v3_9.server.server.config import server_configs as sc
from kafka_edu.v3_9.server.server.config import zk_configs as zkc
from kafka_edu.v3_9.server.server.config.abstract_kafka_config import CONFIG_DEF, AbstractKafkaConfig
from kafka_edu.v3_9.server.server.config.share_group_config import ShareGroupConfig
from kafka_edu.v3_9.server.server.metrics import metric_configs as mc
from kafka_edu.v3_9.server_common.security import password_encoder_configs as pec
from kafka_edu.v3_9.server_common.server.common.metadata_version import MINIMUM_KRAFT_VERSION, MetadataVersion
from kafka_edu.v3_9.server_common.server.config import quota_configs as qc
from kafka_edu.v3_9.server_common.server.config import server_log_configs as slc
from kafka_edu.v3_9.server_common.server.util.csv import parse_csv_list, parse_csv_map
from kafka_edu.v3_9.storage.server.log.remote.storage.remote_log_manager_config import RemoteLogManagerConfig
from kafka_edu.v3_9.storage.storage.internals.log import cleaner_config as cc
from kafka_edu.v3_9.storage.storage.internals.log import log_config
from kafka_edu.v3_9.transaction_coordinator.coordinator.transaction import transaction_log_configs as tlc
from kafka_edu.v3_9.transaction_coordinator.coordinator.transaction import transaction_state_manager_configs as tsc

log = logging.getLogger(__name__)

LONG_MAX = 2**63 - 1


class ProcessRole(Enum):
    """org.apache.kafka.server.ProcessRole."""

    BrokerRole = "broker"
    ControllerRole = "controller"

    def __str__(self) -> str:
        return self.value


class GroupType(Enum):
    """org.apache.kafka.coordinator.group.Group.GroupType (toString: the lower-case name)."""

    CLASSIC = "classic"
    CONSUMER = "consumer"
    SHARE = "share"

    def __str__(self) -> str:
        return self.value


def _require(requirement: bool, message: str) -> None:
    """Scala's Predef.require."""
    if not requirement:
        raise IllegalArgumentException(f"requirement failed: {message}")


def _java_set(values: Any) -> str:
    """How a Scala Set prints: Set(1, 2)."""
    return "Set(" + ", ".join(str(v) for v in values) + ")"


def _java_list(values: Any) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def _valid_host_pattern(address: str) -> bool:
    """Utils.validHostPattern."""
    return quorum_config._valid_host_pattern(address)


# --- the companion object -------------------------------------------------------------------------------------------

config_def = CONFIG_DEF


def config_names() -> list[str]:
    return sorted(config_def.names())


def default_values() -> dict[str, Any]:
    return config_def.default_values()


def config_keys() -> dict[str, ConfigKey]:
    return dict(config_def.config_keys)


def from_props(props: Mapping[str, Any], overrides: Mapping[str, Any] | None = None,
               do_log: bool = True) -> KafkaConfig:
    """fromProps(props) / fromProps(defaults, overrides): the overrides win."""
    merged = dict(props)
    if overrides is not None:
        merged.update(overrides)
    return KafkaConfig(merged, do_log)


def _type_of(name: str) -> Type | None:
    key = config_def.config_keys.get(name)
    return key.type if key is not None else None


def config_type(config_name: str) -> Type | None:
    """The type of a broker config (listener-prefixed synonyms need DynamicBrokerConfig, not ported)."""
    return _type_of(config_name)


def maybe_sensitive(config_type_: Type | None) -> bool:
    # a config whose type is unknown is treated as a secret, to be safe
    return config_type_ is None or config_type_ is Type.PASSWORD


def loggable_value(resource_type: str, name: str, value: str) -> str:
    """resource_type: ConfigResource.Type's name (BROKER, TOPIC, BROKER_LOGGER, CLIENT_METRICS)."""
    if resource_type == "BROKER":
        sensitive = maybe_sensitive(config_type(name))
    elif resource_type == "TOPIC":
        key = log_config.CONFIG.config_keys.get(name)
        sensitive = maybe_sensitive(key.type if key is not None else None)
    elif resource_type in ("BROKER_LOGGER", "CLIENT_METRICS"):
        sensitive = False
    else:
        sensitive = True
    return Password.HIDDEN if sensitive else value


def populate_synonyms(input_: Mapping[Any, Any]) -> dict[Any, Any]:
    """A copy in which broker.id and node.id stand for each other when only one is set."""
    output = dict(input_)
    broker_id = output.get(sc.BROKER_ID_CONFIG)
    node_id = output.get(krc.NODE_ID_CONFIG)
    if broker_id is None and node_id is not None:
        output[sc.BROKER_ID_CONFIG] = node_id
    elif broker_id is not None and node_id is None:
        output[krc.NODE_ID_CONFIG] = broker_id
    return output


# --- the class ------------------------------------------------------------------------------------------------------

class KafkaConfig(AbstractKafkaConfig):
    """A broker's (or controller's) configuration; building one validates it, as Kafka's constructor does."""

    def __init__(self, props: Mapping[Any, Any], do_log: bool = True) -> None:
        self.props = populate_synonyms(props)
        # the config in force, a newer one once DynamicBrokerConfig updates it (cached to read it without a lock)
        self._current_config: KafkaConfig = self
        super().__init__(config_def, self.props, do_log)
        self.process_roles: set[ProcessRole] = self._parse_process_roles()

        # ZooKeeper (defined and validated; the port's 3.9 broker is KRaft only)
        self.zk_connect: str | None = self.get_string(zkc.ZK_CONNECT_CONFIG)
        self.zk_session_timeout_ms: int = self.get_int(zkc.ZK_SESSION_TIMEOUT_MS_CONFIG)
        connection_timeout = self.get_int(zkc.ZK_CONNECTION_TIMEOUT_MS_CONFIG)
        self.zk_connection_timeout_ms: int = (connection_timeout if connection_timeout is not None
                                              else self.zk_session_timeout_ms)
        self.zk_enable_secure_acls: bool = self.get_boolean(zkc.ZK_ENABLE_SECURE_ACLS_CONFIG)
        self.zk_max_in_flight_requests: int = self.get_int(zkc.ZK_MAX_IN_FLIGHT_REQUESTS_CONFIG)

        self._remote_log_manager_config = RemoteLogManagerConfig(self)
        self._group_coordinator_config = GroupCoordinatorConfig(self)
        self._share_group_config = ShareGroupConfig(self)

        self.zk_ssl_client_enable: bool = self.get_boolean(zkc.ZK_SSL_CLIENT_ENABLE_CONFIG)
        self.zk_client_cnxn_socket_class_name: str | None = self.get_string(zkc.ZK_CLIENT_CNXN_SOCKET_CONFIG)
        self.zk_ssl_key_store_location: str | None = self.get_string(zkc.ZK_SSL_KEY_STORE_LOCATION_CONFIG)
        self.zk_ssl_key_store_password: Password | None = self.get_password(zkc.ZK_SSL_KEY_STORE_PASSWORD_CONFIG)
        self.zk_ssl_key_store_type: str | None = self.get_string(zkc.ZK_SSL_KEY_STORE_TYPE_CONFIG)
        self.zk_ssl_trust_store_location: str | None = self.get_string(zkc.ZK_SSL_TRUST_STORE_LOCATION_CONFIG)
        self.zk_ssl_trust_store_password: Password | None = self.get_password(zkc.ZK_SSL_TRUST_STORE_PASSWORD_CONFIG)
        self.zk_ssl_trust_store_type: str | None = self.get_string(zkc.ZK_SSL_TRUST_STORE_TYPE_CONFIG)
        self.zk_ssl_protocol: str = self.get_string(zkc.ZK_SSL_PROTOCOL_CONFIG)
        self.zk_ssl_enabled_protocols: list[str] | None = self.get_list(zkc.ZK_SSL_ENABLED_PROTOCOLS_CONFIG)
        self.zk_ssl_cipher_suites: list[str] | None = self.get_list(zkc.ZK_SSL_CIPHER_SUITES_CONFIG)
        self.zk_ssl_endpoint_identification_algorithm: str = self.get_string(
            zkc.ZK_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG)
        self.zk_ssl_crl_enable: bool = self.get_boolean(zkc.ZK_SSL_CRL_ENABLE_CONFIG)
        self.zk_ssl_ocsp_enable: bool = self.get_boolean(zkc.ZK_SSL_OCSP_ENABLE_CONFIG)

        # general
        self.broker_id_generation_enable: bool = self.get_boolean(sc.BROKER_ID_GENERATION_ENABLE_CONFIG)
        self.max_reserved_broker_id: int = self.get_int(sc.RESERVED_BROKER_MAX_ID_CONFIG)
        self._broker_id: int = self.get_int(sc.BROKER_ID_CONFIG)
        self._node_id: int = self.get_int(krc.NODE_ID_CONFIG)
        self.initial_registration_timeout_ms: int = self.get_int(krc.INITIAL_BROKER_REGISTRATION_TIMEOUT_MS_CONFIG)
        self.broker_heartbeat_interval_ms: int = self.get_int(krc.BROKER_HEARTBEAT_INTERVAL_MS_CONFIG)
        self.broker_session_timeout_ms: int = self.get_int(krc.BROKER_SESSION_TIMEOUT_MS_CONFIG)

        self.migration_enabled: bool = self.get_boolean(krc.MIGRATION_ENABLED_CONFIG)
        self.migration_metadata_min_batch_size: int = self.get_int(krc.MIGRATION_METADATA_MIN_BATCH_SIZE_CONFIG)
        self.elr_enabled: bool = self.get_boolean(krc.ELR_ENABLED_CONFIG)
        self.server_max_startup_time_ms: int = self.get_long(krc.SERVER_MAX_STARTUP_TIME_MS_CONFIG)

        self.request_timeout_ms: int = self.get_int(sc.REQUEST_TIMEOUT_MS_CONFIG)
        self.connection_setup_timeout_ms: int = self.get_long(sc.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG)
        self.connection_setup_timeout_max_ms: int = self.get_long(sc.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG)

        # metadata
        self.metadata_snapshot_max_new_record_bytes: int = self.get_long(
            krc.METADATA_SNAPSHOT_MAX_NEW_RECORD_BYTES_CONFIG)
        self.metadata_snapshot_max_interval_ms: int = self.get_long(krc.METADATA_SNAPSHOT_MAX_INTERVAL_MS_CONFIG)
        idle_ns = self.get_int(krc.METADATA_MAX_IDLE_INTERVAL_MS_CONFIG) * 1_000_000
        self.metadata_max_idle_interval_ns: int | None = idle_ns if idle_ns > 0 else None

        self.early_start_listeners: set[ListenerName] = self._early_start_listeners()

        # socket server
        self.socket_send_buffer_bytes: int = self.get_int(ssc.SOCKET_SEND_BUFFER_BYTES_CONFIG)
        self.socket_receive_buffer_bytes: int = self.get_int(ssc.SOCKET_RECEIVE_BUFFER_BYTES_CONFIG)
        self.socket_request_max_bytes: int = self.get_int(ssc.SOCKET_REQUEST_MAX_BYTES_CONFIG)
        self.socket_listen_backlog_size: int = self.get_int(ssc.SOCKET_LISTEN_BACKLOG_SIZE_CONFIG)
        self.max_connections_per_ip: int = self.get_int(ssc.MAX_CONNECTIONS_PER_IP_CONFIG)
        self.max_connections_per_ip_overrides: dict[str, int] = {
            k: self._to_int(v) for k, v in self._get_map(
                ssc.MAX_CONNECTIONS_PER_IP_OVERRIDES_CONFIG,
                self.get_string(ssc.MAX_CONNECTIONS_PER_IP_OVERRIDES_CONFIG)).items()}
        self.connections_max_idle_ms: int = self.get_long(ssc.CONNECTIONS_MAX_IDLE_MS_CONFIG)
        self.failed_authentication_delay_ms: int = self.get_int(ssc.FAILED_AUTHENTICATION_DELAY_MS_CONFIG)
        self.queued_max_requests: int = self.get_int(ssc.QUEUED_MAX_REQUESTS_CONFIG)
        self.queued_max_bytes: int = self.get_long(ssc.QUEUED_MAX_BYTES_CONFIG)

        # rack
        self.rack: str | None = self.get_string(sc.BROKER_RACK_CONFIG)
        self.replica_selector_class_name: str | None = self.get_string(rc.REPLICA_SELECTOR_CLASS_CONFIG)

        # log
        self.auto_create_topics_enable: bool = self.get_boolean(slc.AUTO_CREATE_TOPICS_ENABLE_CONFIG)
        self.num_partitions: int = self.get_int(slc.NUM_PARTITIONS_CONFIG)
        log_dirs = self.get_string(slc.LOG_DIRS_CONFIG)
        self.log_dirs: list[str] = parse_csv_list(log_dirs if log_dirs is not None
                                                  else self.get_string(slc.LOG_DIR_CONFIG))
        self.log_cleaner_threads: int = self.get_int(cc.LOG_CLEANER_THREADS_PROP)
        self.log_flush_scheduler_interval_ms: int = self.get_long(slc.LOG_FLUSH_SCHEDULER_INTERVAL_MS_CONFIG)
        self.log_flush_offset_checkpoint_interval_ms: int = self.get_int(
            slc.LOG_FLUSH_OFFSET_CHECKPOINT_INTERVAL_MS_CONFIG)
        self.log_flush_start_offset_checkpoint_interval_ms: int = self.get_int(
            slc.LOG_FLUSH_START_OFFSET_CHECKPOINT_INTERVAL_MS_CONFIG)
        self.log_cleanup_interval_ms: int = self.get_long(slc.LOG_CLEANUP_INTERVAL_MS_CONFIG)
        self.log_cleaner_dedupe_buffer_size: int = self.get_long(cc.LOG_CLEANER_DEDUPE_BUFFER_SIZE_PROP)
        self.log_cleaner_dedupe_buffer_load_factor: float = self.get_double(
            cc.LOG_CLEANER_DEDUPE_BUFFER_LOAD_FACTOR_PROP)
        self.log_cleaner_io_buffer_size: int = self.get_int(cc.LOG_CLEANER_IO_BUFFER_SIZE_PROP)
        self.log_cleaner_io_max_bytes_per_second: float = self.get_double(cc.LOG_CLEANER_IO_MAX_BYTES_PER_SECOND_PROP)
        self.log_cleaner_backoff_ms: int = self.get_long(cc.LOG_CLEANER_BACKOFF_MS_PROP)
        self.log_cleaner_enable: bool = self.get_boolean(cc.LOG_CLEANER_ENABLE_PROP)
        # the string as given: MetadataVersion.from_version_string may pick a slightly different version
        self._log_message_format_version_string: str = self.get_string(slc.LOG_MESSAGE_FORMAT_VERSION_CONFIG)

        # replication
        self.controller_socket_timeout_ms: int = self.get_int(rc.CONTROLLER_SOCKET_TIMEOUT_MS_CONFIG)
        self.default_replication_factor: int = self.get_int(rc.DEFAULT_REPLICATION_FACTOR_CONFIG)
        self.replica_lag_time_max_ms: int = self.get_long(rc.REPLICA_LAG_TIME_MAX_MS_CONFIG)
        self.replica_socket_timeout_ms: int = self.get_int(rc.REPLICA_SOCKET_TIMEOUT_MS_CONFIG)
        self.replica_socket_receive_buffer_bytes: int = self.get_int(rc.REPLICA_SOCKET_RECEIVE_BUFFER_BYTES_CONFIG)
        self.replica_fetch_max_bytes: int = self.get_int(rc.REPLICA_FETCH_MAX_BYTES_CONFIG)
        self.replica_fetch_wait_max_ms: int = self.get_int(rc.REPLICA_FETCH_WAIT_MAX_MS_CONFIG)
        self.replica_fetch_min_bytes: int = self.get_int(rc.REPLICA_FETCH_MIN_BYTES_CONFIG)
        self.replica_fetch_response_max_bytes: int = self.get_int(rc.REPLICA_FETCH_RESPONSE_MAX_BYTES_CONFIG)
        self.replica_fetch_backoff_ms: int = self.get_int(rc.REPLICA_FETCH_BACKOFF_MS_CONFIG)
        self.replica_high_watermark_checkpoint_interval_ms: int = self.get_long(
            rc.REPLICA_HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS_CONFIG)
        self.fetch_purgatory_purge_interval_requests: int = self.get_int(
            rc.FETCH_PURGATORY_PURGE_INTERVAL_REQUESTS_CONFIG)
        self.producer_purgatory_purge_interval_requests: int = self.get_int(
            rc.PRODUCER_PURGATORY_PURGE_INTERVAL_REQUESTS_CONFIG)
        self.delete_records_purgatory_purge_interval_requests: int = self.get_int(
            rc.DELETE_RECORDS_PURGATORY_PURGE_INTERVAL_REQUESTS_CONFIG)
        self.auto_leader_rebalance_enable: bool = self.get_boolean(rc.AUTO_LEADER_REBALANCE_ENABLE_CONFIG)
        self.leader_imbalance_per_broker_percentage: int = self.get_int(
            rc.LEADER_IMBALANCE_PER_BROKER_PERCENTAGE_CONFIG)
        self.leader_imbalance_check_interval_seconds: int = self.get_long(
            rc.LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS_CONFIG)
        self.unclean_leader_election_check_interval_ms: int = self.get_long(
            rc.UNCLEAN_LEADER_ELECTION_INTERVAL_MS_CONFIG)

        self.inter_broker_protocol_version_string: str = self.get_string(rc.INTER_BROKER_PROTOCOL_VERSION_CONFIG)
        self.inter_broker_protocol_version: MetadataVersion = self._inter_broker_protocol_version()

        # controlled shutdown
        self.controlled_shutdown_max_retries: int = self.get_int(sc.CONTROLLED_SHUTDOWN_MAX_RETRIES_CONFIG)
        self.controlled_shutdown_retry_backoff_ms: int = self.get_long(sc.CONTROLLED_SHUTDOWN_RETRY_BACKOFF_MS_CONFIG)
        self.controlled_shutdown_enable: bool = self.get_boolean(sc.CONTROLLED_SHUTDOWN_ENABLE_CONFIG)

        # group coordinator (KIP-848)
        self.group_coordinator_rebalance_protocols: set[GroupType] = self._group_coordinator_rebalance_protocols()
        # the new coordinator runs when its internal flag is set, or the consumer protocol is enabled
        self.is_new_group_coordinator_enabled: bool = (
            self.get_boolean(gcc.NEW_GROUP_COORDINATOR_ENABLE_CONFIG)
            or GroupType.CONSUMER in self.group_coordinator_rebalance_protocols)

        # transactions
        self.transactional_id_expiration_ms: int = self.get_int(tsc.TRANSACTIONAL_ID_EXPIRATION_MS_CONFIG)
        self.transaction_max_timeout_ms: int = self.get_int(tsc.TRANSACTIONS_MAX_TIMEOUT_MS_CONFIG)
        self.transaction_topic_min_isr: int = self.get_int(tlc.TRANSACTIONS_TOPIC_MIN_ISR_CONFIG)
        self.transactions_load_buffer_size: int = self.get_int(tlc.TRANSACTIONS_LOAD_BUFFER_SIZE_CONFIG)
        self.transaction_topic_replication_factor: int = self.get_short(
            tlc.TRANSACTIONS_TOPIC_REPLICATION_FACTOR_CONFIG)
        self.transaction_topic_partitions: int = self.get_int(tlc.TRANSACTIONS_TOPIC_PARTITIONS_CONFIG)
        self.transaction_topic_segment_bytes: int = self.get_int(tlc.TRANSACTIONS_TOPIC_SEGMENT_BYTES_CONFIG)
        self.transaction_abort_timed_out_transaction_cleanup_interval_ms: int = self.get_int(
            tsc.TRANSACTIONS_ABORT_TIMED_OUT_TRANSACTION_CLEANUP_INTERVAL_MS_CONFIG)
        self.transaction_remove_expired_transactional_id_cleanup_interval_ms: int = self.get_int(
            tsc.TRANSACTIONS_REMOVE_EXPIRED_TRANSACTIONAL_ID_CLEANUP_INTERVAL_MS_CONFIG)
        self.producer_id_expiration_check_interval_ms: int = self.get_int(
            tlc.PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_CONFIG)

        # metrics
        self.metric_num_samples: int = self.get_int(mc.METRIC_NUM_SAMPLES_CONFIG)
        self.metric_sample_window_ms: int = self.get_long(mc.METRIC_SAMPLE_WINDOW_MS_CONFIG)
        self.metric_recording_level: str = self.get_string(mc.METRIC_RECORDING_LEVEL_CONFIG)
        self.client_telemetry_max_bytes: int = self.get_int(mc.CLIENT_TELEMETRY_MAX_BYTES_CONFIG)

        # SASL: the base values only; a listener's own are read with values_with_prefix_override
        self.sasl_inter_broker_handshake_request_enable: bool = (
            self.inter_broker_protocol_version.is_sasl_inter_broker_handshake_request_enabled())

        # delegation tokens
        secret = self.get_password(dtc.DELEGATION_TOKEN_SECRET_KEY_CONFIG)
        self.delegation_token_secret_key: Password | None = (
            secret if secret is not None else self.get_password(dtc.DELEGATION_TOKEN_SECRET_KEY_ALIAS_CONFIG))
        self.token_auth_enabled: bool = (self.delegation_token_secret_key is not None
                                         and bool(self.delegation_token_secret_key.value()))
        self.delegation_token_max_life_ms: int = self.get_long(dtc.DELEGATION_TOKEN_MAX_LIFETIME_CONFIG)
        self.delegation_token_expiry_time_ms: int = self.get_long(dtc.DELEGATION_TOKEN_EXPIRY_TIME_MS_CONFIG)
        self.delegation_token_expiry_check_interval_ms: int = self.get_long(
            dtc.DELEGATION_TOKEN_EXPIRY_CHECK_INTERVAL_MS_CONFIG)

        # quotas
        self.num_quota_samples: int = self.get_int(qc.NUM_QUOTA_SAMPLES_CONFIG)
        self.quota_window_size_seconds: int = self.get_int(qc.QUOTA_WINDOW_SIZE_SECONDS_CONFIG)
        self.num_replication_quota_samples: int = self.get_int(qc.NUM_REPLICATION_QUOTA_SAMPLES_CONFIG)
        self.replication_quota_window_size_seconds: int = self.get_int(qc.REPLICATION_QUOTA_WINDOW_SIZE_SECONDS_CONFIG)
        self.num_alter_log_dirs_replication_quota_samples: int = self.get_int(
            qc.NUM_ALTER_LOG_DIRS_REPLICATION_QUOTA_SAMPLES_CONFIG)
        self.alter_log_dirs_replication_quota_window_size_seconds: int = self.get_int(
            qc.ALTER_LOG_DIRS_REPLICATION_QUOTA_WINDOW_SIZE_SECONDS_CONFIG)
        self.num_controller_quota_samples: int = self.get_int(qc.NUM_CONTROLLER_QUOTA_SAMPLES_CONFIG)
        self.controller_quota_window_size_seconds: int = self.get_int(qc.CONTROLLER_QUOTA_WINDOW_SIZE_SECONDS_CONFIG)

        # fetch and request limits
        self.max_incremental_fetch_session_cache_slots: int = self.get_int(
            sc.MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS_CONFIG)
        self.fetch_max_bytes: int = self.get_int(sc.FETCH_MAX_BYTES_CONFIG)
        self.max_request_partition_size_limit: int = self.get_int(sc.MAX_REQUEST_PARTITION_SIZE_LIMIT_CONFIG)

        self.delete_topic_enable: bool = self.get_boolean(sc.DELETE_TOPIC_ENABLE_CONFIG)

        # Raft quorum
        self.quorum_voters: list[str] = self.get_list(quorum_config.QUORUM_VOTERS_CONFIG)
        self.quorum_bootstrap_servers: list[str] = self.get_list(quorum_config.QUORUM_BOOTSTRAP_SERVERS_CONFIG)
        self.quorum_election_timeout_ms: int = self.get_int(quorum_config.QUORUM_ELECTION_TIMEOUT_MS_CONFIG)
        self.quorum_fetch_timeout_ms: int = self.get_int(quorum_config.QUORUM_FETCH_TIMEOUT_MS_CONFIG)
        self.quorum_election_backoff_ms: int = self.get_int(quorum_config.QUORUM_ELECTION_BACKOFF_MAX_MS_CONFIG)
        self.quorum_linger_ms: int = self.get_int(quorum_config.QUORUM_LINGER_MS_CONFIG)
        self.quorum_request_timeout_ms: int = self.get_int(quorum_config.QUORUM_REQUEST_TIMEOUT_MS_CONFIG)
        self.quorum_retry_backoff_ms: int = self.get_int(quorum_config.QUORUM_RETRY_BACKOFF_MS_CONFIG)

        # internal
        self.unstable_api_versions_enabled: bool = self.get_boolean(sc.UNSTABLE_API_VERSIONS_ENABLE_CONFIG)
        self.unstable_feature_versions_enabled: bool = self.get_boolean(sc.UNSTABLE_FEATURE_VERSIONS_ENABLE_CONFIG)

        self._validate_values()

    # --- the current config -----------------------------------------------------------------------------------------

    def update_current_config(self, new_config: KafkaConfig) -> None:
        self._current_config = new_config

    def originals(self) -> dict[str, Any]:
        return super().originals() if self._current_config is self else self._current_config.originals()

    def values(self) -> dict[str, Any]:
        return super().values() if self._current_config is self else self._current_config.values()

    def originals_with_prefix(self, prefix: str, strip: bool = True) -> dict[str, Any]:
        if self._current_config is self:
            return super().originals_with_prefix(prefix, strip)
        return self._current_config.originals_with_prefix(prefix, strip)

    def values_with_prefix_override(self, prefix: str) -> dict[str, Any]:
        if self._current_config is self:
            return super().values_with_prefix_override(prefix)
        return self._current_config.values_with_prefix_override(prefix)

    def get(self, key: str) -> Any:
        return super().get(key) if self._current_config is self else self._current_config.get(key)

    def originals_from_this_config(self) -> dict[str, Any]:
        """What DynamicBrokerConfig compares against: this config's own values, not the current one's."""
        return super().originals()

    def values_from_this_config(self) -> dict[str, Any]:
        return super().values()

    def values_from_this_config_with_prefix_override(self, prefix: str) -> dict[str, Any]:
        return super().values_with_prefix_override(prefix)

    # --- general ----------------------------------------------------------------------------------------------------

    def remote_log_manager_config(self) -> RemoteLogManagerConfig:
        return self._remote_log_manager_config

    def group_coordinator_config(self) -> GroupCoordinatorConfig:
        return self._group_coordinator_config

    def share_group_config(self) -> ShareGroupConfig:
        return self._share_group_config

    @property
    def broker_id(self) -> int:
        return self._broker_id

    @property
    def node_id(self) -> int:
        return self._node_id

    def requires_zookeeper(self) -> bool:
        return not self.process_roles

    def uses_self_managed_quorum(self) -> bool:
        return bool(self.process_roles)

    def _parse_process_roles(self) -> set[ProcessRole]:
        roles = []
        for role in self.get_list(krc.PROCESS_ROLES_CONFIG):
            if role == "broker":
                roles.append(ProcessRole.BrokerRole)
            elif role == "controller":
                roles.append(ProcessRole.ControllerRole)
            else:
                raise ConfigException(f"Unknown process role '{role}' (only 'broker' and 'controller' are allowed "
                                      "roles)")
        distinct_roles = set(roles)
        if len(distinct_roles) != len(roles):
            raise ConfigException(f"Duplicate role names found in `{krc.PROCESS_ROLES_CONFIG}`: "
                                  f"ArrayBuffer({', '.join(str(r) for r in roles)})")
        return distinct_roles

    def is_kraft_combined_mode(self) -> bool:
        return self.process_roles == {ProcessRole.BrokerRole, ProcessRole.ControllerRole}

    def metadata_log_dir(self) -> str:
        directory = self.get_string(krc.METADATA_LOG_DIR_CONFIG)
        return directory if directory is not None else self.log_dirs[0]

    def metadata_log_segment_bytes(self) -> int:
        return self.get_int(krc.METADATA_LOG_SEGMENT_BYTES_CONFIG)

    def metadata_log_segment_millis(self) -> int:
        return self.get_long(krc.METADATA_LOG_SEGMENT_MILLIS_CONFIG)

    def metadata_retention_bytes(self) -> int:
        return self.get_long(krc.METADATA_MAX_RETENTION_BYTES_CONFIG)

    def metadata_retention_millis(self) -> int:
        return self.get_long(krc.METADATA_MAX_RETENTION_MILLIS_CONFIG)

    def metadata_node_id_config(self) -> int:
        return self.get_int(krc.NODE_ID_CONFIG)

    def metadata_log_segment_min_bytes(self) -> int:
        return self.get_int(krc.METADATA_LOG_SEGMENT_MIN_BYTES_CONFIG)

    def background_threads(self) -> int:
        return self.get_int(sc.BACKGROUND_THREADS_CONFIG)

    def num_io_threads(self) -> int:
        return self.get_int(sc.NUM_IO_THREADS_CONFIG)

    def message_max_bytes(self) -> int:
        return self.get_int(sc.MESSAGE_MAX_BYTES_CONFIG)

    def get_num_replica_alter_log_dirs_threads(self) -> int:
        num_threads = self.get_int(sc.NUM_REPLICA_ALTER_LOG_DIRS_THREADS_CONFIG)
        return num_threads if num_threads is not None else len(self.log_dirs)

    # --- authorizer -------------------------------------------------------------------------------------------------

    def authorizer_class_name(self) -> str | None:
        """createNewAuthorizer's input: the class name, or None (no authorizer) when empty."""
        class_name = self.get_string(sc.AUTHORIZER_CLASS_NAME_CONFIG)
        return class_name or None

    def _early_start_listeners(self) -> set[ListenerName]:
        listeners_set = {ep.listener_name for ep in self.listeners()}
        controller_listeners_set = {ep.listener_name for ep in self.controller_listeners()}
        value = self.get_string(sc.EARLY_START_LISTENERS_CONFIG)
        if value is None:
            return controller_listeners_set
        result = set()
        for name in (s.strip() for s in value.split(",")):
            if not name:
                continue
            listener_name = ListenerName(name)
            if listener_name not in listeners_set and listener_name not in controller_listeners_set:
                raise ConfigException(f"{sc.EARLY_START_LISTENERS_CONFIG} contains listener "
                                      f"{listener_name.value()}, but this is not contained in "
                                      f"{ssc.LISTENERS_CONFIG} or {krc.CONTROLLER_LISTENER_NAMES_CONFIG}")
            result.add(listener_name)
        return result

    # --- socket server ----------------------------------------------------------------------------------------------

    def max_connections(self) -> int:
        return self.get_int(ssc.MAX_CONNECTIONS_CONFIG)

    def max_connection_creation_rate(self) -> int:
        return self.get_int(ssc.MAX_CONNECTION_CREATION_RATE_CONFIG)

    def num_network_threads(self) -> int:
        return self.get_int(ssc.NUM_NETWORK_THREADS_CONFIG)

    @staticmethod
    def _to_int(value: str) -> int:
        """String.toInt."""
        try:
            return int(value)
        except ValueError:
            raise IllegalArgumentException(f'For input string: "{value}"') from None

    # --- log --------------------------------------------------------------------------------------------------------

    def log_segment_bytes(self) -> int:
        return self.get_int(slc.LOG_SEGMENT_BYTES_CONFIG)

    def log_flush_interval_messages(self) -> int:
        return self.get_long(slc.LOG_FLUSH_INTERVAL_MESSAGES_CONFIG)

    def num_recovery_threads_per_data_dir(self) -> int:
        return self.get_int(slc.NUM_RECOVERY_THREADS_PER_DATA_DIR_CONFIG)

    def log_cleanup_policy(self) -> list[str]:
        return self.get_list(slc.LOG_CLEANUP_POLICY_CONFIG)

    def log_retention_bytes(self) -> int:
        return self.get_long(slc.LOG_RETENTION_BYTES_CONFIG)

    def log_cleaner_delete_retention_ms(self) -> int:
        return self.get_long(cc.LOG_CLEANER_DELETE_RETENTION_MS_PROP)

    def log_cleaner_min_compaction_lag_ms(self) -> int:
        return self.get_long(cc.LOG_CLEANER_MIN_COMPACTION_LAG_MS_PROP)

    def log_cleaner_max_compaction_lag_ms(self) -> int:
        return self.get_long(cc.LOG_CLEANER_MAX_COMPACTION_LAG_MS_PROP)

    def log_cleaner_min_clean_ratio(self) -> float:
        return self.get_double(cc.LOG_CLEANER_MIN_CLEAN_RATIO_PROP)

    def log_index_size_max_bytes(self) -> int:
        return self.get_int(slc.LOG_INDEX_SIZE_MAX_BYTES_CONFIG)

    def log_index_interval_bytes(self) -> int:
        return self.get_int(slc.LOG_INDEX_INTERVAL_BYTES_CONFIG)

    def log_delete_delay_ms(self) -> int:
        return self.get_long(slc.LOG_DELETE_DELAY_MS_CONFIG)

    def log_roll_time_millis(self) -> int:
        millis = self.get_long(slc.LOG_ROLL_TIME_MILLIS_CONFIG)
        return millis if millis is not None else 60 * 60 * 1000 * self.get_int(slc.LOG_ROLL_TIME_HOURS_CONFIG)

    def log_roll_time_jitter_millis(self) -> int:
        millis = self.get_long(slc.LOG_ROLL_TIME_JITTER_MILLIS_CONFIG)
        return millis if millis is not None else 60 * 60 * 1000 * self.get_int(slc.LOG_ROLL_TIME_JITTER_HOURS_CONFIG)

    def log_flush_interval_ms(self) -> int:
        millis = self.get_long(slc.LOG_FLUSH_INTERVAL_MS_CONFIG)
        return millis if millis is not None else self.get_long(slc.LOG_FLUSH_SCHEDULER_INTERVAL_MS_CONFIG)

    def min_in_sync_replicas(self) -> int:
        return self.get_int(slc.MIN_IN_SYNC_REPLICAS_CONFIG)

    def log_pre_allocate_enable(self) -> bool:
        return self.get_boolean(slc.LOG_PRE_ALLOCATE_CONFIG)

    def log_initial_task_delay_ms(self) -> int:
        delay = self.get_long(slc.LOG_INITIAL_TASK_DELAY_MS_CONFIG)
        return delay if delay is not None else slc.LOG_INITIAL_TASK_DELAY_MS_DEFAULT

    def log_message_format_version(self) -> MetadataVersion:
        """Deprecated since 3.0: from IBP 3.0 on the default, whatever is configured."""
        if log_config.should_ignore_message_format_version(self.inter_broker_protocol_version):
            return MetadataVersion.from_version_string(slc.LOG_MESSAGE_FORMAT_VERSION_DEFAULT)
        return MetadataVersion.from_version_string(self._log_message_format_version_string)

    def log_message_timestamp_type(self) -> TimestampType:
        return TimestampType.for_name(self.get_string(slc.LOG_MESSAGE_TIMESTAMP_TYPE_CONFIG))

    def log_message_timestamp_difference_max_ms(self) -> int:
        return self.get_long(slc.LOG_MESSAGE_TIMESTAMP_DIFFERENCE_MAX_MS_CONFIG)

    def log_message_timestamp_before_max_ms(self) -> int:
        # while the deprecated difference config lives, it stands in for a before.max.ms left at its default
        before = self.get_long(slc.LOG_MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG)
        if before != slc.LOG_MESSAGE_TIMESTAMP_DIFFERENCE_MAX_MS_DEFAULT:
            return before
        return self.log_message_timestamp_difference_max_ms()

    def log_message_timestamp_after_max_ms(self) -> int:
        after = self.get_long(slc.LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG)
        if after != LONG_MAX:
            return after
        return self.log_message_timestamp_difference_max_ms()

    def log_message_down_conversion_enable(self) -> bool:
        return self.get_boolean(slc.LOG_MESSAGE_DOWNCONVERSION_ENABLE_CONFIG)

    def log_dir_failure_timeout_ms(self) -> int:
        return self.get_long(slc.LOG_DIR_FAILURE_TIMEOUT_MS_CONFIG)

    # --- replication ------------------------------------------------------------------------------------------------

    def num_replica_fetchers(self) -> int:
        return self.get_int(rc.NUM_REPLICA_FETCHERS_CONFIG)

    def unclean_leader_election_enable(self) -> bool:
        return self.get_boolean(rc.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG)

    def _inter_broker_protocol_version(self) -> MetadataVersion:
        if not self.process_roles:
            return MetadataVersion.from_version_string(self.inter_broker_protocol_version_string)
        if rc.INTER_BROKER_PROTOCOL_VERSION_CONFIG in self._originals:
            configured_version = MetadataVersion.from_version_string(self.inter_broker_protocol_version_string)
            if not configured_version.is_kraft_supported():
                raise ConfigException(f"A non-KRaft version {self.inter_broker_protocol_version_string} given for "
                                      f"{rc.INTER_BROKER_PROTOCOL_VERSION_CONFIG}. The minimum version is "
                                      f"{MINIMUM_KRAFT_VERSION}")
            log.warning("%s is deprecated in KRaft mode as of 3.3 and will only be read when first upgrading from a "
                        "KRaft prior to 3.3. See kafka-storage.sh help for details on setting the metadata.version "
                        "for a new KRaft cluster.", rc.INTER_BROKER_PROTOCOL_VERSION_CONFIG)
        # pinned in KRaft mode, so no broker component reads the static IBP by mistake
        return MINIMUM_KRAFT_VERSION

    # --- features and groups ----------------------------------------------------------------------------------------

    def is_feature_versioning_supported(self) -> bool:
        return self.inter_broker_protocol_version.is_feature_versioning_supported()

    def _group_coordinator_rebalance_protocols(self) -> set[GroupType]:
        protocols = {GroupType[p.upper()] for p in self.get_list(gcc.GROUP_COORDINATOR_REBALANCE_PROTOCOLS_CONFIG)}
        if GroupType.CLASSIC not in protocols:
            raise ConfigException(f"Disabling the '{GroupType.CLASSIC}' protocol is not supported.")
        if GroupType.CONSUMER in protocols:
            if not self.process_roles:
                raise ConfigException(f"The new '{GroupType.CONSUMER}' rebalance protocol is only supported in KRaft "
                                      "cluster.")
            log.warning("The new '%s' rebalance protocol is enabled along with the new group coordinator. This is "
                        "part of the preview of KIP-848 and MUST NOT be used in production.", GroupType.CONSUMER)
        return protocols

    # --- transactions -----------------------------------------------------------------------------------------------

    def transaction_partition_verification_enable(self) -> bool:
        return self.get_boolean(tlc.TRANSACTION_PARTITION_VERIFICATION_ENABLE_CONFIG)

    def producer_id_expiration_ms(self) -> int:
        return self.get_int(tlc.PRODUCER_ID_EXPIRATION_MS_CONFIG)

    # --- SSL / SASL -------------------------------------------------------------------------------------------------

    def _sasl_enabled_mechanisms(self, listener_name: ListenerName) -> set[str]:
        value = self.values_with_prefix_override(listener_name.config_prefix()).get(bsc.SASL_ENABLED_MECHANISMS_CONFIG)
        return set(value) if value is not None else set()

    def inter_broker_listener_name(self) -> ListenerName:
        return self._get_inter_broker_listener_name_and_security_protocol()[0]

    def inter_broker_security_protocol(self) -> SecurityProtocol:
        return self._get_inter_broker_listener_name_and_security_protocol()[1]

    def control_plane_listener_name(self) -> ListenerName | None:
        pair = self._get_control_plane_listener_name_and_security_protocol()
        return pair[0] if pair is not None else None

    def control_plane_security_protocol(self) -> SecurityProtocol | None:
        pair = self._get_control_plane_listener_name_and_security_protocol()
        return pair[1] if pair is not None else None

    def sasl_mechanism_inter_broker_protocol(self) -> str:
        return self.get_string(bsc.SASL_MECHANISM_INTER_BROKER_PROTOCOL_CONFIG)

    # --- password encoder -------------------------------------------------------------------------------------------

    def password_encoder_secret(self) -> Password | None:
        return self.get_password(pec.PASSWORD_ENCODER_SECRET_CONFIG)

    def password_encoder_old_secret(self) -> Password | None:
        return self.get_password(pec.PASSWORD_ENCODER_OLD_SECRET_CONFIG)

    def password_encoder_cipher_algorithm(self) -> str:
        return self.get_string(pec.PASSWORD_ENCODER_CIPHER_ALGORITHM_CONFIG)

    def password_encoder_key_factory_algorithm(self) -> str | None:
        return self.get_string(pec.PASSWORD_ENCODER_KEYFACTORY_ALGORITHM_CONFIG)

    def password_encoder_key_length(self) -> int:
        return self.get_int(pec.PASSWORD_ENCODER_KEY_LENGTH_CONFIG)

    def password_encoder_iterations(self) -> int:
        return self.get_int(pec.PASSWORD_ENCODER_ITERATIONS_CONFIG)

    # --- compression ------------------------------------------------------------------------------------------------

    def compression_type(self) -> str:
        return self.get_string(sc.COMPRESSION_TYPE_CONFIG)

    def gzip_compression_level(self) -> int:
        return self.get_int(sc.COMPRESSION_GZIP_LEVEL_CONFIG)

    def lz4_compression_level(self) -> int:
        return self.get_int(sc.COMPRESSION_LZ4_LEVEL_CONFIG)

    def zstd_compression_level(self) -> int:
        return self.get_int(sc.COMPRESSION_ZSTD_LEVEL_CONFIG)

    # --- listeners --------------------------------------------------------------------------------------------------

    def log_retention_time_millis(self) -> int:
        millis_in_minute = 60 * 1000
        millis_in_hour = 60 * millis_in_minute
        millis = self.get_long(slc.LOG_RETENTION_TIME_MILLIS_CONFIG)
        if millis is None:
            minutes = self.get_int(slc.LOG_RETENTION_TIME_MINUTES_CONFIG)
            if minutes is not None:
                millis = millis_in_minute * minutes
            else:
                millis = self.get_int(slc.LOG_RETENTION_TIME_HOURS_CONFIG) * millis_in_hour
        return -1 if millis < 0 else millis

    @staticmethod
    def _get_map(prop_name: str, prop_value: str | None) -> dict[str, str]:
        try:
            return parse_csv_map(prop_value)
        except Exception as e:
            raise IllegalArgumentException(f"Error parsing configuration property '{prop_name}': {e}") from e

    def listeners(self) -> list[EndPoint]:
        return core_utils.listener_list_to_end_points(self.get_string(ssc.LISTENERS_CONFIG),
                                                      self.effective_listener_security_protocol_map())

    def controller_listener_names(self) -> list[str]:
        value = self.get_string(krc.CONTROLLER_LISTENER_NAMES_CONFIG) or ""
        if not value:
            return []
        return _java_split(value, ",")

    def controller_listeners(self) -> list[EndPoint]:
        names = self.controller_listener_names()
        return [ep for ep in self.listeners() if ep.listener_name.value() in names]

    def sasl_mechanism_controller_protocol(self) -> str:
        return self.get_string(krc.SASL_MECHANISM_CONTROLLER_PROTOCOL_CONFIG)

    def control_plane_listener(self) -> EndPoint | None:
        listener_name = self.control_plane_listener_name()
        if listener_name is None:
            return None
        return [ep for ep in self.listeners() if ep.listener_name.value() == listener_name.value()][0]

    def data_plane_listeners(self) -> list[EndPoint]:
        control_plane = self.get_string(ssc.CONTROL_PLANE_LISTENER_NAME_CONFIG)
        names = self.controller_listener_names()
        return [ep for ep in self.listeners()
                if not (ep.listener_name.value() == control_plane or ep.listener_name.value() in names)]

    def effective_advertised_controller_listeners(self) -> list[EndPoint]:
        names = self.controller_listener_names()
        controller_advertised_listeners = [ep for ep in self._advertised_listeners()
                                           if ep.listener_name.value() in names]
        controller_listeners_value = self.controller_listeners()
        result = []
        for name in names:
            wanted = ListenerName.normalised(name)
            found = next((ep for ep in controller_advertised_listeners if ep.listener_name == wanted), None)
            if found is None:
                found = next((ep for ep in controller_listeners_value if ep.listener_name == wanted), None)
            if found is not None:
                result.append(found)
        return result

    def effective_advertised_broker_listeners(self) -> list[EndPoint]:
        names = self.controller_listener_names()
        result = []
        for ep in self._advertised_listeners():
            if ep.listener_name.value() not in names:
                result.append(ep)
            elif self.migration_enabled:
                # KAFKA-17788: during ZK migration the control plane listener stays a broker listener
                control_plane = self.control_plane_listener()
                if control_plane is not None and ep.listener_name.value() == control_plane.listener_name.value():
                    result.append(ep)
        return result

    def _advertised_listeners(self) -> list[EndPoint]:
        """advertised.listeners when set, else listeners."""
        advertised_listeners_prop = self.get_string(ssc.ADVERTISED_LISTENERS_CONFIG)
        if advertised_listeners_prop is not None:
            return core_utils.listener_list_to_end_points(advertised_listeners_prop,
                                                          self.effective_listener_security_protocol_map(),
                                                          require_distinct_ports=False)
        return self.listeners()

    def _get_inter_broker_listener_name_and_security_protocol(self) -> tuple[ListenerName, SecurityProtocol]:
        name = self.get_string(rc.INTER_BROKER_LISTENER_NAME_CONFIG)
        if name is not None:
            if rc.INTER_BROKER_SECURITY_PROTOCOL_CONFIG in self._originals:
                raise ConfigException(f"Only one of {rc.INTER_BROKER_LISTENER_NAME_CONFIG} and "
                                      f"{rc.INTER_BROKER_SECURITY_PROTOCOL_CONFIG} should be set.")
            listener_name = ListenerName.normalised(name)
            security_protocol = self.effective_listener_security_protocol_map().get(listener_name)
            if security_protocol is None:
                raise ConfigException(f"Listener with name {listener_name.value()} defined in "
                                      f"{rc.INTER_BROKER_LISTENER_NAME_CONFIG} not found in "
                                      f"{ssc.LISTENER_SECURITY_PROTOCOL_MAP_CONFIG}.")
            return listener_name, security_protocol
        security_protocol = self._get_security_protocol(self.get_string(rc.INTER_BROKER_SECURITY_PROTOCOL_CONFIG),
                                                        rc.INTER_BROKER_SECURITY_PROTOCOL_CONFIG)
        return ListenerName.for_security_protocol(security_protocol), security_protocol

    def _get_control_plane_listener_name_and_security_protocol(self) -> tuple[ListenerName, SecurityProtocol] | None:
        name = self.get_string(ssc.CONTROL_PLANE_LISTENER_NAME_CONFIG)
        if name is None:
            return None
        listener_name = ListenerName.normalised(name)
        security_protocol = self.effective_listener_security_protocol_map().get(listener_name)
        if security_protocol is None:
            raise ConfigException(f"Listener with {listener_name.value()} defined in "
                                  f"{ssc.CONTROL_PLANE_LISTENER_NAME_CONFIG} not found in "
                                  f"{ssc.LISTENER_SECURITY_PROTOCOL_MAP_CONFIG}.")
        return listener_name, security_protocol

    @staticmethod
    def _get_security_protocol(protocol_name: str, config_name: str) -> SecurityProtocol:
        try:
            return SecurityProtocol.for_name(protocol_name)
        except IllegalArgumentException:
            raise ConfigException(f"Invalid security protocol `{protocol_name}` defined in {config_name}") from None

    def effective_listener_security_protocol_map(self) -> dict[ListenerName, SecurityProtocol]:
        map_value = {
            ListenerName.normalised(listener_name):
                self._get_security_protocol(protocol_name, ssc.LISTENER_SECURITY_PROTOCOL_MAP_CONFIG)
            for listener_name, protocol_name in self._get_map(
                ssc.LISTENER_SECURITY_PROTOCOL_MAP_CONFIG,
                self.get_string(ssc.LISTENER_SECURITY_PROTOCOL_MAP_CONFIG)).items()}
        if self.uses_self_managed_quorum() and ssc.LISTENER_SECURITY_PROTOCOL_MAP_CONFIG not in self._originals:
            # KRaft with the default map: controller listeners get PLAINTEXT, unless SSL or SASL is in use anywhere
            def is_ssl_or_sasl(name: str) -> bool:
                return name in (SecurityProtocol.SSL.name, SecurityProtocol.SASL_SSL.name,
                                SecurityProtocol.SASL_PLAINTEXT.name)

            controller_names = self.controller_listener_names()
            if (any(is_ssl_or_sasl(n) for n in controller_names)
                    or any(is_ssl_or_sasl(parse_listener_name(v))
                           for v in parse_csv_list(self.get_string(ssc.LISTENERS_CONFIG)))):
                return map_value
            return {**map_value, **{ListenerName(n): SecurityProtocol.PLAINTEXT for n in controller_names
                                    if n != SecurityProtocol.PLAINTEXT.name}}
        return map_value

    def uses_topic_id(self) -> bool:
        """Every KRaft cluster uses topic ids, and ZooKeeper clusters from IBP 2.8."""
        return self.uses_self_managed_quorum() or self.inter_broker_protocol_version.is_topic_ids_supported()

    # --- validation -------------------------------------------------------------------------------------------------

    def _validate_values(self) -> None:
        if self.node_id != self.broker_id:
            raise ConfigException(f"You must set `{krc.NODE_ID_CONFIG}` to the same value as "
                                  f"`{sc.BROKER_ID_CONFIG}`.")
        if self.requires_zookeeper():
            if self.zk_connect is None:
                raise ConfigException(f"Missing required configuration `{zkc.ZK_CONNECT_CONFIG}` which has no "
                                      "default value.")
            if self.broker_id_generation_enable:
                if self.migration_enabled:
                    _require(self.broker_id >= 0, "broker.id generation is incompatible with ZooKeeper migration. "
                                                  "Please stop using it before enabling migration (set broker.id to "
                                                  "a value greater or equal to 0).")
                _require(-1 <= self.broker_id <= self.max_reserved_broker_id,
                         "broker.id must be greater than or equal to -1 and not greater than reserved.broker.max.id")
            else:
                _require(self.broker_id >= 0, "broker.id must be greater than or equal to 0")
        else:
            # KRaft
            if self.node_id < 0:
                raise ConfigException(f"Missing configuration `{krc.NODE_ID_CONFIG}` which is required when "
                                      "`process.roles` is defined (i.e. when running in KRaft mode).")
            if self.migration_enabled and self.zk_connect is None:
                raise ConfigException(f"If using `{krc.MIGRATION_ENABLED_CONFIG}` in KRaft mode, "
                                      f"`{zkc.ZK_CONNECT_CONFIG}` must also be set.")
        _require(self.log_roll_time_millis() >= 1, "log.roll.ms must be greater than or equal to 1")
        _require(self.log_roll_time_jitter_millis() >= 0, "log.roll.jitter.ms must be greater than or equal to 0")
        _require(self.log_retention_time_millis() >= 1 or self.log_retention_time_millis() == -1,
                 "log.retention.ms must be unlimited (-1) or, greater than or equal to 1")
        _require(bool(self.log_dirs), "At least one log directory must be defined via log.dirs or log.dir.")
        _require(_java_long_div(self.log_cleaner_dedupe_buffer_size, self.log_cleaner_threads) > 1024 * 1024,
                 "log.cleaner.dedupe.buffer.size must be at least 1MB per cleaner thread.")
        _require(self.replica_fetch_wait_max_ms <= self.replica_socket_timeout_ms,
                 "replica.socket.timeout.ms should always be at least replica.fetch.wait.max.ms to prevent "
                 "unnecessary socket timeouts")
        _require(self.replica_fetch_wait_max_ms <= self.replica_lag_time_max_ms,
                 "replica.fetch.wait.max.ms should always be less than or equal to replica.lag.time.max.ms to "
                 "prevent frequent changes in ISR")

        advertised_broker_listener_names = {ep.listener_name for ep in self.effective_advertised_broker_listeners()}

        # KRaft
        voter_ids = QuorumConfig.parse_voter_ids(self.quorum_voters)
        controller_listener_names = self.controller_listener_names()

        def validate_quorum_voters_and_quorum_bootstrap_server_for_kraft() -> None:
            if not voter_ids and not self.quorum_bootstrap_servers:
                raise ConfigException(f"If using {krc.PROCESS_ROLES_CONFIG}, either "
                                      f"{quorum_config.QUORUM_BOOTSTRAP_SERVERS_CONFIG} must contain the set of "
                                      f"bootstrap controllers or {quorum_config.QUORUM_VOTERS_CONFIG} must contain a "
                                      "parseable set of controllers.")

        def validate_quorum_voters_and_quorum_bootstrap_server_for_migration() -> None:
            if not voter_ids and not self.quorum_bootstrap_servers:
                raise ConfigException(f"If using {krc.MIGRATION_ENABLED_CONFIG}, either "
                                      f"{quorum_config.QUORUM_BOOTSTRAP_SERVERS_CONFIG} must contain the set of "
                                      f"bootstrap controllers or {quorum_config.QUORUM_VOTERS_CONFIG} must contain a "
                                      "parseable set of controllers.")

        def validate_control_plane_listener_empty_for_kraft() -> None:
            _require(self.control_plane_listener_name() is None,
                     f"{ssc.CONTROL_PLANE_LISTENER_NAME_CONFIG} is not supported in KRaft mode.")

        def validate_controller_quorum_voters_must_contain_node_id_for_kraft_controller() -> None:
            _require(not voter_ids or self.node_id in voter_ids,
                     f"If {krc.PROCESS_ROLES_CONFIG} contains the 'controller' role, the node id {self.node_id} must "
                     f"be included in the set of voters {quorum_config.QUORUM_VOTERS_CONFIG}={_java_set(voter_ids)}")

        def validate_advertised_controller_listeners_non_empty_for_kraft_controller() -> None:
            _require(bool(self.effective_advertised_controller_listeners()),
                     f"{krc.CONTROLLER_LISTENER_NAMES_CONFIG} must contain at least one value appearing in the "
                     f"'{ssc.LISTENERS_CONFIG}' configuration when running the KRaft controller role")

        def validate_controller_listener_names_must_appear_in_listeners_for_kraft_controller() -> None:
            listener_name_values = {ep.listener_name.value() for ep in self.listeners()}
            _require(all(cln in listener_name_values for cln in controller_listener_names),
                     f"{krc.CONTROLLER_LISTENER_NAMES_CONFIG} must only contain values appearing in the "
                     f"'{ssc.LISTENERS_CONFIG}' configuration when running the KRaft controller role")

        def validate_advertised_broker_listeners_non_empty_for_broker() -> None:
            hint = (f" Perhaps all listeners appear in {krc.CONTROLLER_LISTENER_NAMES_CONFIG}?"
                    if ProcessRole.BrokerRole in self.process_roles else "")
            _require(bool(advertised_broker_listener_names),
                     "There must be at least one broker advertised listener." + hint)

        if self.process_roles == {ProcessRole.BrokerRole}:
            # KRaft broker only
            validate_quorum_voters_and_quorum_bootstrap_server_for_kraft()
            validate_control_plane_listener_empty_for_kraft()
            _require(self.node_id not in voter_ids,
                     f"If {krc.PROCESS_ROLES_CONFIG} contains just the 'broker' role, the node id {self.node_id} "
                     f"must not be included in the set of voters {quorum_config.QUORUM_VOTERS_CONFIG}="
                     f"{_java_set(voter_ids)}")
            _require(bool(controller_listener_names),
                     f"{krc.CONTROLLER_LISTENER_NAMES_CONFIG} must contain at least one value when running KRaft "
                     "with just the broker role")
            _require(not self.controller_listeners(),
                     f"{krc.CONTROLLER_LISTENER_NAMES_CONFIG} must not contain a value appearing in the "
                     f"'{ssc.LISTENERS_CONFIG}' configuration when running KRaft with just the broker role")
            protocol_map = self.effective_listener_security_protocol_map()
            for name in controller_listener_names:
                listener_name = ListenerName.normalised(name)
                if listener_name not in protocol_map:
                    raise ConfigException(
                        f"Controller listener with name {listener_name.value()} defined in "
                        f"{krc.CONTROLLER_LISTENER_NAMES_CONFIG} not found in "
                        f"{ssc.LISTENER_SECURITY_PROTOCOL_MAP_CONFIG}  (an explicit security mapping for each "
                        f"controller listener is required if {ssc.LISTENER_SECURITY_PROTOCOL_MAP_CONFIG} is "
                        "non-empty, or if there are security protocols other than PLAINTEXT in use)")
            if len(controller_listener_names) > 1:
                log.warning("%s has multiple entries; only the first will be used since %s=broker: %s",
                            krc.CONTROLLER_LISTENER_NAMES_CONFIG, krc.PROCESS_ROLES_CONFIG,
                            _java_list(controller_listener_names))
        elif self.process_roles == {ProcessRole.ControllerRole}:
            # KRaft controller only
            validate_quorum_voters_and_quorum_bootstrap_server_for_kraft()
            validate_control_plane_listener_empty_for_kraft()
            # its listeners must all be controller listeners
            _require(len(self.effective_advertised_controller_listeners()) == len(self.listeners()),
                     f"The {ssc.LISTENERS_CONFIG} config must only contain KRaft controller listeners from "
                     f"{krc.CONTROLLER_LISTENER_NAMES_CONFIG} when {krc.PROCESS_ROLES_CONFIG}=controller")
            validate_controller_quorum_voters_must_contain_node_id_for_kraft_controller()
            validate_advertised_controller_listeners_non_empty_for_kraft_controller()
            validate_controller_listener_names_must_appear_in_listeners_for_kraft_controller()
        elif self.is_kraft_combined_mode():
            # KRaft broker and controller in one process
            validate_quorum_voters_and_quorum_bootstrap_server_for_kraft()
            validate_control_plane_listener_empty_for_kraft()
            validate_controller_quorum_voters_must_contain_node_id_for_kraft_controller()
            validate_advertised_controller_listeners_non_empty_for_kraft_controller()
            validate_controller_listener_names_must_appear_in_listeners_for_kraft_controller()
        else:
            # ZooKeeper
            if self.migration_enabled:
                _require(self.broker_id >= 0, "broker.id generation is incompatible with ZooKeeper migration. Please "
                                              "stop using it before enabling migration (set broker.id to a value "
                                              "greater or equal to 0).")
                validate_quorum_voters_and_quorum_bootstrap_server_for_migration()
                _require(bool(controller_listener_names),
                         f"{krc.CONTROLLER_LISTENER_NAMES_CONFIG} must not be empty when running in ZooKeeper "
                         f"migration mode: {_java_list(controller_listener_names)}")
                _require(self.inter_broker_protocol_version.is_migration_supported(),
                         "Cannot enable ZooKeeper migration without setting "
                         f"'{rc.INTER_BROKER_PROTOCOL_VERSION_CONFIG}' to 3.4 or higher")
                if len(self.log_dirs) > 1:
                    _require(self.inter_broker_protocol_version.is_directory_assignment_supported(),
                             "Cannot enable ZooKeeper migration with multiple log directories (aka JBOD) without "
                             f"setting '{rc.INTER_BROKER_PROTOCOL_VERSION_CONFIG}' to "
                             f"{MetadataVersion.IBP_3_7_IV2} or higher")
            else:
                # controller listener names belong to KRaft only
                _require(not controller_listener_names,
                         f"{krc.CONTROLLER_LISTENER_NAMES_CONFIG} must be empty when not running in KRaft mode: "
                         f"{_java_list(controller_listener_names)}")

        listener_names = {ep.listener_name for ep in self.listeners()}
        if not self.process_roles or ProcessRole.BrokerRole in self.process_roles:
            # every broker: ZooKeeper, KRaft broker only, KRaft combined
            validate_advertised_broker_listeners_non_empty_for_broker()
            advertised_names = ",".join(n.value() for n in advertised_broker_listener_names)
            _require(self.inter_broker_listener_name() in advertised_broker_listener_names,
                     f"{rc.INTER_BROKER_LISTENER_NAME_CONFIG} must be a listener name defined in "
                     f"{ssc.ADVERTISED_LISTENERS_CONFIG}. The valid options based on currently configured listeners "
                     f"are {advertised_names}")
            _require(advertised_broker_listener_names <= listener_names,
                     f"{ssc.ADVERTISED_LISTENERS_CONFIG} listener names must be equal to or a subset of the ones "
                     f"defined in {ssc.LISTENERS_CONFIG}. Found {advertised_names}. The valid options based on the "
                     f"current configuration are {','.join(n.value() for n in listener_names)}")

        _require(not any(ep.host == "0.0.0.0" for ep in self.effective_advertised_broker_listeners()),
                 f"{ssc.ADVERTISED_LISTENERS_CONFIG} cannot use the nonroutable meta-address 0.0.0.0. "
                 "Use a routable IP address.")
        _require(not any(ep.host == "0.0.0.0" for ep in self.effective_advertised_controller_listeners()),
                 f"{ssc.ADVERTISED_LISTENERS_CONFIG} cannot use the nonroutable meta-address 0.0.0.0. "
                 "Use a routable IP address.")

        control_plane_listener_name = self.control_plane_listener_name()
        if control_plane_listener_name is not None:
            _require(control_plane_listener_name in advertised_broker_listener_names,
                     f"{ssc.CONTROL_PLANE_LISTENER_NAME_CONFIG} must be a listener name defined in "
                     f"{ssc.ADVERTISED_LISTENERS_CONFIG}. The valid options based on currently configured listeners "
                     f"are {','.join(n.value() for n in advertised_broker_listener_names)}")
            # the control plane needs a listener of its own
            _require(control_plane_listener_name.value() != self.inter_broker_listener_name().value(),
                     f"{ssc.CONTROL_PLANE_LISTENER_NAME_CONFIG}, when defined, should have a different value from the "
                     "inter broker listener name. Currently they both have the value "
                     f"{control_plane_listener_name}")

        message_format_version = log_config.MessageFormatVersion(self._log_message_format_version_string,
                                                                 self.inter_broker_protocol_version_string)
        if message_format_version.should_warn():
            log.warning(self._create_broker_warning_message())

        record_version = self.log_message_format_version().highest_supported_record_version()
        _require(self.inter_broker_protocol_version.highest_supported_record_version().value >= record_version.value,
                 f"log.message.format.version {self._log_message_format_version_string} can only be used when "
                 "inter.broker.protocol.version is set to version "
                 f"{MetadataVersion.min_supported_for(record_version).short_version()} or higher")

        if self._group_coordinator_config.offset_topic_compression_type() is CompressionType.ZSTD:
            _require(self.inter_broker_protocol_version.highest_supported_record_version().value
                     >= MetadataVersion.IBP_2_1_IV0.highest_supported_record_version().value,
                     "offsets.topic.compression.codec zstd can only be used when inter.broker.protocol.version is "
                     f"set to version {MetadataVersion.IBP_2_1_IV0.short_version()} or higher")

        inter_broker_uses_sasl = self.inter_broker_security_protocol() in (SecurityProtocol.SASL_PLAINTEXT,
                                                                           SecurityProtocol.SASL_SSL)
        _require(not inter_broker_uses_sasl or self.sasl_inter_broker_handshake_request_enable
                 or self.sasl_mechanism_inter_broker_protocol() == bsc.GSSAPI_MECHANISM,
                 "Only GSSAPI mechanism is supported for inter-broker communication with SASL when "
                 f"inter.broker.protocol.version is set to {self.inter_broker_protocol_version_string}")
        _require(not inter_broker_uses_sasl
                 or self.sasl_mechanism_inter_broker_protocol() in self._sasl_enabled_mechanisms(
                     self.inter_broker_listener_name()),
                 f"{bsc.SASL_MECHANISM_INTER_BROKER_PROTOCOL_CONFIG} must be included in "
                 f"{bsc.SASL_ENABLED_MECHANISMS_CONFIG} when SASL is used for inter-broker communication")
        _require(self.queued_max_bytes <= 0 or self.queued_max_bytes >= self.socket_request_max_bytes,
                 f"{ssc.QUEUED_MAX_BYTES_CONFIG} must be larger or equal to {ssc.SOCKET_REQUEST_MAX_BYTES_CONFIG}")

        if self.max_connections_per_ip == 0:
            _require(bool(self.max_connections_per_ip_overrides),
                     f"{ssc.MAX_CONNECTIONS_PER_IP_CONFIG} can be set to zero only if "
                     f"{ssc.MAX_CONNECTIONS_PER_IP_OVERRIDES_CONFIG} property is set.")

        invalid_addresses = [a for a in self.max_connections_per_ip_overrides if not _valid_host_pattern(a)]
        if invalid_addresses:
            raise IllegalArgumentException(f"{ssc.MAX_CONNECTIONS_PER_IP_OVERRIDES_CONFIG} contains invalid "
                                           f"addresses : {','.join(invalid_addresses)}")

        if self.connections_max_idle_ms >= 0:
            _require(self.failed_authentication_delay_ms < self.connections_max_idle_ms,
                     f"{ssc.FAILED_AUTHENTICATION_DELAY_MS_CONFIG}={self.failed_authentication_delay_ms} should "
                     f"always be less than {ssc.CONNECTIONS_MAX_IDLE_MS_CONFIG}={self.connections_max_idle_ms} to "
                     "prevent failed authentication responses from timing out")

        principal_builder_class = self.get_class(bsc.PRINCIPAL_BUILDER_CLASS_CONFIG)
        _require(principal_builder_class is not None, f"{bsc.PRINCIPAL_BUILDER_CLASS_CONFIG} must be non-null")
        # KafkaPrincipalSerde: no JVM class to inspect; Kafka's own builder is the one this port knows
        _require(principal_builder_class == bsc.PRINCIPAL_BUILDER_CLASS_DEFAULT,
                 f"{bsc.PRINCIPAL_BUILDER_CLASS_CONFIG} must implement KafkaPrincipalSerde")

        if gcc.OFFSET_COMMIT_REQUIRED_ACKS_CONFIG in self._originals:
            log.warning("%s is deprecated and it will be removed in Apache Kafka 4.0.",
                        gcc.OFFSET_COMMIT_REQUIRED_ACKS_CONFIG)

    def validate_with_metadata_version(self, metadata_version: MetadataVersion) -> None:
        """Checks a new metadata.version (read from a FeatureLevelRecord) brings: JBOD needs 3.7-IV2."""
        if ProcessRole.BrokerRole in self.process_roles and len(self.log_dirs) > 1:
            _require(metadata_version.is_directory_assignment_supported(),
                     "Multiple log directories (aka JBOD) are not supported in the current MetadataVersion "
                     f"{metadata_version}. Need {MetadataVersion.IBP_3_7_IV2} or higher")

    def extract_log_config_map(self) -> dict[str, Any]:
        """The broker's defaults for the topic configs, under the topic configs' names."""
        return {
            "segment.bytes": self.log_segment_bytes(),
            "segment.ms": self.log_roll_time_millis(),
            "segment.jitter.ms": self.log_roll_time_jitter_millis(),
            "segment.index.bytes": self.log_index_size_max_bytes(),
            "flush.messages": self.log_flush_interval_messages(),
            "flush.ms": self.log_flush_interval_ms(),
            "retention.bytes": self.log_retention_bytes(),
            "retention.ms": self.log_retention_time_millis(),
            "max.message.bytes": self.message_max_bytes(),
            "index.interval.bytes": self.log_index_interval_bytes(),
            "delete.retention.ms": self.log_cleaner_delete_retention_ms(),
            "min.compaction.lag.ms": self.log_cleaner_min_compaction_lag_ms(),
            "max.compaction.lag.ms": self.log_cleaner_max_compaction_lag_ms(),
            "file.delete.delay.ms": self.log_delete_delay_ms(),
            "min.cleanable.dirty.ratio": self.log_cleaner_min_clean_ratio(),
            "cleanup.policy": self.log_cleanup_policy(),
            "min.insync.replicas": self.min_in_sync_replicas(),
            "compression.type": self.compression_type(),
            "compression.gzip.level": self.gzip_compression_level(),
            "compression.lz4.level": self.lz4_compression_level(),
            "compression.zstd.level": self.zstd_compression_level(),
            "unclean.leader.election.enable": self.unclean_leader_election_enable(),
            "preallocate": self.log_pre_allocate_enable(),
            "message.format.version": self.log_message_format_version().version(),
            "message.timestamp.type": self.log_message_timestamp_type().name_,
            "message.timestamp.difference.max.ms": self.log_message_timestamp_difference_max_ms(),
            "message.timestamp.before.max.ms": self.log_message_timestamp_before_max_ms(),
            "message.timestamp.after.max.ms": self.log_message_timestamp_after_max_ms(),
            "message.downconversion.enable": self.log_message_down_conversion_enable(),
            "local.retention.ms": self._remote_log_manager_config.log_local_retention_ms(),
            "local.retention.bytes": self._remote_log_manager_config.log_local_retention_bytes(),
        }

    def _create_broker_warning_message(self) -> str:
        return (f"Broker configuration {slc.LOG_MESSAGE_FORMAT_VERSION_CONFIG} with value "
                f"{self._log_message_format_version_string} is ignored because the inter-broker protocol version "
                f"`{self.inter_broker_protocol_version_string}` is greater or equal than 3.0. This configuration is "
                "deprecated and it will be removed in Apache Kafka 4.0.")


def _java_split(value: str, separator: str) -> list[str]:
    """String.split: trailing empty strings dropped."""
    parts = value.split(separator)
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def _java_long_div(a: int, b: int) -> int:
    """Java's long division: it truncates toward zero, and dividing by zero is an ArithmeticException."""
    if b == 0:
        raise ArithmeticError("/ by zero")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q
