"""Port of server/src/main/java/org/apache/kafka/server/config/ServerConfigs.java (Kafka 3.9): the broker's general
configs (ids, threads, request limits, compression, authorizer, rack, controlled shutdown, fetch sessions)."""

from __future__ import annotations

from kafka_edu.v3_9.clients.common.config.config_def import ConfigDef, NonNullValidator, Range, Type, Validator
from kafka_edu.v3_9.server_common.server.config.server_topic_config_synonyms import server_synonym
from kafka_edu.v3_9.storage.storage.internals.log import log_config

RESERVED_BROKER_MAX_ID_CONFIG = "reserved.broker.max.id"
RESERVED_BROKER_MAX_ID_DEFAULT = 1000

BROKER_ID_GENERATION_ENABLE_CONFIG = "broker.id.generation.enable"
BROKER_ID_GENERATION_ENABLE_DEFAULT = True

BROKER_ID_CONFIG = "broker.id"
BROKER_ID_DEFAULT = -1

MESSAGE_MAX_BYTES_CONFIG = server_synonym("max.message.bytes")

NUM_IO_THREADS_CONFIG = "num.io.threads"
NUM_IO_THREADS_DEFAULT = 8

BACKGROUND_THREADS_CONFIG = "background.threads"
BACKGROUND_THREADS_DEFAULT = 10

NUM_REPLICA_ALTER_LOG_DIRS_THREADS_CONFIG = "num.replica.alter.log.dirs.threads"

REQUEST_TIMEOUT_MS_CONFIG = "request.timeout.ms"
REQUEST_TIMEOUT_MS_DEFAULT = 30000
SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG = "socket.connection.setup.timeout.ms"
DEFAULT_SOCKET_CONNECTION_SETUP_TIMEOUT_MS = 10 * 1000
SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG = "socket.connection.setup.timeout.max.ms"
SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS = 30 * 1000

DELETE_TOPIC_ENABLE_CONFIG = "delete.topic.enable"
DELETE_TOPIC_ENABLE_DEFAULT = True

COMPRESSION_TYPE_CONFIG = server_synonym("compression.type")
COMPRESSION_GZIP_LEVEL_CONFIG = server_synonym("compression.gzip.level")
COMPRESSION_LZ4_LEVEL_CONFIG = server_synonym("compression.lz4.level")
COMPRESSION_ZSTD_LEVEL_CONFIG = server_synonym("compression.zstd.level")

BROKER_RACK_CONFIG = "broker.rack"

CONTROLLED_SHUTDOWN_MAX_RETRIES_CONFIG = "controlled.shutdown.max.retries"
CONTROLLED_SHUTDOWN_MAX_RETRIES_DEFAULT = 3
CONTROLLED_SHUTDOWN_RETRY_BACKOFF_MS_CONFIG = "controlled.shutdown.retry.backoff.ms"
CONTROLLED_SHUTDOWN_RETRY_BACKOFF_MS_DEFAULT = 5000
CONTROLLED_SHUTDOWN_ENABLE_CONFIG = "controlled.shutdown.enable"
CONTROLLED_SHUTDOWN_ENABLE_DEFAULT = True

MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS_CONFIG = "max.incremental.fetch.session.cache.slots"
MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS_DEFAULT = 1000
FETCH_MAX_BYTES_CONFIG = "fetch.max.bytes"
FETCH_MAX_BYTES_DEFAULT = 55 * 1024 * 1024

MAX_REQUEST_PARTITION_SIZE_LIMIT_CONFIG = "max.request.partition.size.limit"
MAX_REQUEST_PARTITION_SIZE_LIMIT_DEFAULT = 2000

UNSTABLE_API_VERSIONS_ENABLE_CONFIG = "unstable.api.versions.enable"
UNSTABLE_FEATURE_VERSIONS_ENABLE_CONFIG = "unstable.feature.versions.enable"

AUTHORIZER_CLASS_NAME_CONFIG = "authorizer.class.name"
AUTHORIZER_CLASS_NAME_DEFAULT = ""

EARLY_START_LISTENERS_CONFIG = "early.start.listeners"


def _topic_validator(topic_config: str) -> Validator | None:
    """The topic config's own validator: one rule for the broker default and the topic."""
    return log_config.CONFIG.config_keys[topic_config].validator


CONFIG_DEF = (
    ConfigDef()
    # general
    .define(BROKER_ID_GENERATION_ENABLE_CONFIG, Type.BOOLEAN, BROKER_ID_GENERATION_ENABLE_DEFAULT)
    .define(RESERVED_BROKER_MAX_ID_CONFIG, Type.INT, RESERVED_BROKER_MAX_ID_DEFAULT, Range.at_least(0))
    .define(BROKER_ID_CONFIG, Type.INT, BROKER_ID_DEFAULT)
    .define(MESSAGE_MAX_BYTES_CONFIG, Type.INT, log_config.DEFAULT_MAX_MESSAGE_BYTES, Range.at_least(0))
    .define(NUM_IO_THREADS_CONFIG, Type.INT, NUM_IO_THREADS_DEFAULT, Range.at_least(1))
    .define(NUM_REPLICA_ALTER_LOG_DIRS_THREADS_CONFIG, Type.INT, None)
    .define(BACKGROUND_THREADS_CONFIG, Type.INT, BACKGROUND_THREADS_DEFAULT, Range.at_least(1))
    .define(REQUEST_TIMEOUT_MS_CONFIG, Type.INT, REQUEST_TIMEOUT_MS_DEFAULT)
    .define(SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG, Type.LONG, DEFAULT_SOCKET_CONNECTION_SETUP_TIMEOUT_MS)
    .define(SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, Type.LONG, SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS)
    # authorizer
    .define(AUTHORIZER_CLASS_NAME_CONFIG, Type.STRING, AUTHORIZER_CLASS_NAME_DEFAULT, NonNullValidator())
    .define(EARLY_START_LISTENERS_CONFIG, Type.STRING, None)
    # rack
    .define(BROKER_RACK_CONFIG, Type.STRING, None)
    # controlled shutdown
    .define(CONTROLLED_SHUTDOWN_MAX_RETRIES_CONFIG, Type.INT, CONTROLLED_SHUTDOWN_MAX_RETRIES_DEFAULT)
    .define(CONTROLLED_SHUTDOWN_RETRY_BACKOFF_MS_CONFIG, Type.LONG, CONTROLLED_SHUTDOWN_RETRY_BACKOFF_MS_DEFAULT)
    .define(CONTROLLED_SHUTDOWN_ENABLE_CONFIG, Type.BOOLEAN, CONTROLLED_SHUTDOWN_ENABLE_DEFAULT)
    .define(DELETE_TOPIC_ENABLE_CONFIG, Type.BOOLEAN, DELETE_TOPIC_ENABLE_DEFAULT)
    .define(COMPRESSION_TYPE_CONFIG, Type.STRING, log_config.DEFAULT_COMPRESSION_TYPE,
            _topic_validator("compression.type"))
    .define(COMPRESSION_GZIP_LEVEL_CONFIG, Type.INT, -1, _topic_validator("compression.gzip.level"))
    .define(COMPRESSION_LZ4_LEVEL_CONFIG, Type.INT, 9, _topic_validator("compression.lz4.level"))
    .define(COMPRESSION_ZSTD_LEVEL_CONFIG, Type.INT, 3, _topic_validator("compression.zstd.level"))
    # fetch sessions
    .define(MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS_CONFIG, Type.INT,
            MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS_DEFAULT, Range.at_least(0))
    .define(FETCH_MAX_BYTES_CONFIG, Type.INT, FETCH_MAX_BYTES_DEFAULT, Range.at_least(1024))
    .define(MAX_REQUEST_PARTITION_SIZE_LIMIT_CONFIG, Type.INT, MAX_REQUEST_PARTITION_SIZE_LIMIT_DEFAULT,
            Range.at_least(1))
    # internal
    .define_internal(UNSTABLE_API_VERSIONS_ENABLE_CONFIG, Type.BOOLEAN, False)
    .define_internal(UNSTABLE_FEATURE_VERSIONS_ENABLE_CONFIG, Type.BOOLEAN, False)
)
