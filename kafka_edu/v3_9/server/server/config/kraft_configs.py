"""Port of server/src/main/java/org/apache/kafka/server/config/KRaftConfigs.java (Kafka 3.9): process roles, node id,
controller listeners, the metadata log and snapshots, broker registration and heartbeats, ZK migration flags."""

from __future__ import annotations

from kafka_edu.v3_9.clients.common.config.config_def import ConfigDef, Range, Type, ValidList
from kafka_edu.v3_9.clients.common.config.internals.broker_security_configs import DEFAULT_SASL_MECHANISM
from kafka_edu.v3_9.storage.storage.internals.log import log_config

LOG_OVERHEAD = 12  # Records.LOG_OVERHEAD

PROCESS_ROLES_CONFIG = "process.roles"

INITIAL_BROKER_REGISTRATION_TIMEOUT_MS_CONFIG = "initial.broker.registration.timeout.ms"
INITIAL_BROKER_REGISTRATION_TIMEOUT_MS_DEFAULT = 60000
BROKER_HEARTBEAT_INTERVAL_MS_CONFIG = "broker.heartbeat.interval.ms"
BROKER_HEARTBEAT_INTERVAL_MS_DEFAULT = 2000
BROKER_SESSION_TIMEOUT_MS_CONFIG = "broker.session.timeout.ms"
BROKER_SESSION_TIMEOUT_MS_DEFAULT = 9000

NODE_ID_CONFIG = "node.id"
EMPTY_NODE_ID = -1

METADATA_LOG_DIR_CONFIG = "metadata.log.dir"
METADATA_SNAPSHOT_MAX_INTERVAL_MS_CONFIG = "metadata.log.max.snapshot.interval.ms"
METADATA_SNAPSHOT_MAX_INTERVAL_MS_DEFAULT = 60 * 60 * 1000
METADATA_SNAPSHOT_MAX_NEW_RECORD_BYTES_CONFIG = "metadata.log.max.record.bytes.between.snapshots"
METADATA_SNAPSHOT_MAX_NEW_RECORD_BYTES = 20 * 1024 * 1024

CONTROLLER_LISTENER_NAMES_CONFIG = "controller.listener.names"
SASL_MECHANISM_CONTROLLER_PROTOCOL_CONFIG = "sasl.mechanism.controller.protocol"

METADATA_LOG_SEGMENT_MIN_BYTES_CONFIG = "metadata.log.segment.min.bytes"
METADATA_LOG_SEGMENT_BYTES_CONFIG = "metadata.log.segment.bytes"
METADATA_LOG_SEGMENT_MILLIS_CONFIG = "metadata.log.segment.ms"
METADATA_MAX_RETENTION_BYTES_CONFIG = "metadata.max.retention.bytes"
METADATA_MAX_RETENTION_BYTES_DEFAULT = 100 * 1024 * 1024
METADATA_MAX_RETENTION_MILLIS_CONFIG = "metadata.max.retention.ms"
METADATA_MAX_IDLE_INTERVAL_MS_CONFIG = "metadata.max.idle.interval.ms"
METADATA_MAX_IDLE_INTERVAL_MS_DEFAULT = 500
SERVER_MAX_STARTUP_TIME_MS_CONFIG = "server.max.startup.time.ms"
SERVER_MAX_STARTUP_TIME_MS_DEFAULT = 2**63 - 1

MIGRATION_ENABLED_CONFIG = "zookeeper.metadata.migration.enable"
MIGRATION_METADATA_MIN_BATCH_SIZE_CONFIG = "zookeeper.metadata.migration.min.batch.size"
MIGRATION_METADATA_MIN_BATCH_SIZE_DEFAULT = 200

ELR_ENABLED_CONFIG = "eligible.leader.replicas.enable"

CONFIG_DEF = (
    ConfigDef()
    .define(METADATA_SNAPSHOT_MAX_NEW_RECORD_BYTES_CONFIG, Type.LONG, METADATA_SNAPSHOT_MAX_NEW_RECORD_BYTES,
            Range.at_least(1))
    .define(METADATA_SNAPSHOT_MAX_INTERVAL_MS_CONFIG, Type.LONG, METADATA_SNAPSHOT_MAX_INTERVAL_MS_DEFAULT,
            Range.at_least(0))
    .define(PROCESS_ROLES_CONFIG, Type.LIST, [], ValidList.in_("broker", "controller"))
    .define(NODE_ID_CONFIG, Type.INT, EMPTY_NODE_ID)
    .define(INITIAL_BROKER_REGISTRATION_TIMEOUT_MS_CONFIG, Type.INT, INITIAL_BROKER_REGISTRATION_TIMEOUT_MS_DEFAULT)
    .define(BROKER_HEARTBEAT_INTERVAL_MS_CONFIG, Type.INT, BROKER_HEARTBEAT_INTERVAL_MS_DEFAULT)
    .define(BROKER_SESSION_TIMEOUT_MS_CONFIG, Type.INT, BROKER_SESSION_TIMEOUT_MS_DEFAULT)
    .define(CONTROLLER_LISTENER_NAMES_CONFIG, Type.STRING, None)
    .define(SASL_MECHANISM_CONTROLLER_PROTOCOL_CONFIG, Type.STRING, DEFAULT_SASL_MECHANISM)
    .define(METADATA_LOG_DIR_CONFIG, Type.STRING, None)
    .define(METADATA_LOG_SEGMENT_BYTES_CONFIG, Type.INT, log_config.DEFAULT_SEGMENT_BYTES, Range.at_least(LOG_OVERHEAD))
    .define_internal(METADATA_LOG_SEGMENT_MIN_BYTES_CONFIG, Type.INT, 8 * 1024 * 1024, Range.at_least(LOG_OVERHEAD))
    .define(METADATA_LOG_SEGMENT_MILLIS_CONFIG, Type.LONG, log_config.DEFAULT_SEGMENT_MS)
    .define(METADATA_MAX_RETENTION_BYTES_CONFIG, Type.LONG, METADATA_MAX_RETENTION_BYTES_DEFAULT)
    .define(METADATA_MAX_RETENTION_MILLIS_CONFIG, Type.LONG, log_config.DEFAULT_RETENTION_MS)
    .define(METADATA_MAX_IDLE_INTERVAL_MS_CONFIG, Type.INT, METADATA_MAX_IDLE_INTERVAL_MS_DEFAULT, Range.at_least(0))
    .define_internal(SERVER_MAX_STARTUP_TIME_MS_CONFIG, Type.LONG, SERVER_MAX_STARTUP_TIME_MS_DEFAULT,
                     Range.at_least(0))
    .define(MIGRATION_ENABLED_CONFIG, Type.BOOLEAN, False)
    .define(ELR_ENABLED_CONFIG, Type.BOOLEAN, False)
    .define_internal(MIGRATION_METADATA_MIN_BATCH_SIZE_CONFIG, Type.INT, MIGRATION_METADATA_MIN_BATCH_SIZE_DEFAULT,
                     Range.at_least(1))
)
