"""Port of server-common/src/main/java/org/apache/kafka/server/config/QuotaConfigs.java (Kafka 3.9), the broker part:
the sample windows of the client, replication, alter-log-dirs and controller quotas."""

from __future__ import annotations

from kafka_edu.v3_9.clients.common.config.config_def import ConfigDef, Range, Type

NUM_QUOTA_SAMPLES_CONFIG = "quota.window.num"
NUM_CONTROLLER_QUOTA_SAMPLES_CONFIG = "controller.quota.window.num"
NUM_REPLICATION_QUOTA_SAMPLES_CONFIG = "replication.quota.window.num"
NUM_ALTER_LOG_DIRS_REPLICATION_QUOTA_SAMPLES_CONFIG = "alter.log.dirs.replication.quota.window.num"
NUM_QUOTA_SAMPLES_DEFAULT = 11

QUOTA_WINDOW_SIZE_SECONDS_CONFIG = "quota.window.size.seconds"
CONTROLLER_QUOTA_WINDOW_SIZE_SECONDS_CONFIG = "controller.quota.window.size.seconds"
REPLICATION_QUOTA_WINDOW_SIZE_SECONDS_CONFIG = "replication.quota.window.size.seconds"
ALTER_LOG_DIRS_REPLICATION_QUOTA_WINDOW_SIZE_SECONDS_CONFIG = "alter.log.dirs.replication.quota.window.size.seconds"
QUOTA_WINDOW_SIZE_SECONDS_DEFAULT = 1

CLIENT_QUOTA_CALLBACK_CLASS_CONFIG = "client.quota.callback.class"

LEADER_REPLICATION_THROTTLED_REPLICAS_CONFIG = "leader.replication.throttled.replicas"
FOLLOWER_REPLICATION_THROTTLED_REPLICAS_CONFIG = "follower.replication.throttled.replicas"
LEADER_REPLICATION_THROTTLED_RATE_CONFIG = "leader.replication.throttled.rate"
FOLLOWER_REPLICATION_THROTTLED_RATE_CONFIG = "follower.replication.throttled.rate"
REPLICA_ALTER_LOG_DIRS_IO_MAX_BYTES_PER_SECOND_CONFIG = "replica.alter.log.dirs.io.max.bytes.per.second"
QUOTA_BYTES_PER_SECOND_DEFAULT = 2**63 - 1

CONFIG_DEF = (
    ConfigDef()
    .define(NUM_QUOTA_SAMPLES_CONFIG, Type.INT, NUM_QUOTA_SAMPLES_DEFAULT, Range.at_least(1))
    .define(NUM_REPLICATION_QUOTA_SAMPLES_CONFIG, Type.INT, NUM_QUOTA_SAMPLES_DEFAULT, Range.at_least(1))
    .define(NUM_ALTER_LOG_DIRS_REPLICATION_QUOTA_SAMPLES_CONFIG, Type.INT, NUM_QUOTA_SAMPLES_DEFAULT, Range.at_least(1))
    .define(NUM_CONTROLLER_QUOTA_SAMPLES_CONFIG, Type.INT, NUM_QUOTA_SAMPLES_DEFAULT, Range.at_least(1))
    .define(QUOTA_WINDOW_SIZE_SECONDS_CONFIG, Type.INT, QUOTA_WINDOW_SIZE_SECONDS_DEFAULT, Range.at_least(1))
    .define(REPLICATION_QUOTA_WINDOW_SIZE_SECONDS_CONFIG, Type.INT, QUOTA_WINDOW_SIZE_SECONDS_DEFAULT,
            Range.at_least(1))
    .define(ALTER_LOG_DIRS_REPLICATION_QUOTA_WINDOW_SIZE_SECONDS_CONFIG, Type.INT, QUOTA_WINDOW_SIZE_SECONDS_DEFAULT,
            Range.at_least(1))
    .define(CONTROLLER_QUOTA_WINDOW_SIZE_SECONDS_CONFIG, Type.INT, QUOTA_WINDOW_SIZE_SECONDS_DEFAULT, Range.at_least(1))
    .define(CLIENT_QUOTA_CALLBACK_CLASS_CONFIG, Type.CLASS, None)
)

# The quota keys an entity may carry (QuotaConfigs' client/user and IP config defs, what AlterClientQuotas accepts)
PRODUCER_BYTE_RATE_OVERRIDE_CONFIG = "producer_byte_rate"
CONSUMER_BYTE_RATE_OVERRIDE_CONFIG = "consumer_byte_rate"
REQUEST_PERCENTAGE_OVERRIDE_CONFIG = "request_percentage"
CONTROLLER_MUTATION_RATE_OVERRIDE_CONFIG = "controller_mutation_rate"
IP_CONNECTION_RATE_OVERRIDE_CONFIG = "connection_creation_rate"
IP_CONNECTION_RATE_DEFAULT = 2**31 - 1
USER_AND_CLIENT_QUOTA_NAMES = frozenset({PRODUCER_BYTE_RATE_OVERRIDE_CONFIG, CONSUMER_BYTE_RATE_OVERRIDE_CONFIG,
                                         REQUEST_PERCENTAGE_OVERRIDE_CONFIG,
                                         CONTROLLER_MUTATION_RATE_OVERRIDE_CONFIG})


def _build_user_client_quota_config_def(config_def: ConfigDef) -> ConfigDef:
    return (config_def
            .define(PRODUCER_BYTE_RATE_OVERRIDE_CONFIG, Type.LONG, 2**63 - 1)
            .define(CONSUMER_BYTE_RATE_OVERRIDE_CONFIG, Type.LONG, 2**63 - 1)
            .define(REQUEST_PERCENTAGE_OVERRIDE_CONFIG, Type.DOUBLE, float(2**31 - 1))
            .define(CONTROLLER_MUTATION_RATE_OVERRIDE_CONFIG, Type.DOUBLE, float(2**31 - 1)))


def user_and_client_quota_configs() -> ConfigDef:
    return _build_user_client_quota_config_def(ConfigDef())


def scram_mechanisms_plus_user_and_client_quota_configs() -> ConfigDef:
    config_def = ConfigDef()
    for mechanism_name in ("SCRAM-SHA-256", "SCRAM-SHA-512"):  # ScramMechanism.mechanismNames
        config_def.define(mechanism_name, Type.STRING, None)
    return _build_user_client_quota_config_def(config_def)


def ip_configs() -> ConfigDef:
    return ConfigDef().define(IP_CONNECTION_RATE_OVERRIDE_CONFIG, Type.INT, IP_CONNECTION_RATE_DEFAULT,
                              Range.at_least(0))


def is_client_or_user_quota_config(name: str) -> bool:
    return name in USER_AND_CLIENT_QUOTA_NAMES
