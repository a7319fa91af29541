"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/LogConfig.java (Kafka 3.9), the part the
controller uses: every topic config's definition (name, type, default, validator) and LogConfig.validate.

The Log of this port still reads its topic configs with 1.0.2's LogConfig (kafka_edu/v1_0_2/core/log/log_config.py);
this is what a 3.9 controller accepts in a CreateTopics and reports back as the topic's effective configs. Tiered
storage is not built, so a topic asking for remote storage is refused as 3.9 refuses it on a broker whose
remote.log.storage.system.enable is false.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from kafka_edu.v1_0_2.clients.common.config.config_def import (
    ConfigDef,
    ConfigException,
    Range,
    Type,
    ValidList,
    ValidString,
)
from kafka_edu.v1_0_2.clients.common.errors import InvalidConfigurationException
from kafka_edu.v3_9.clients.common.record.record_version import RecordVersion
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion

LONG_MAX = 2**63 - 1
RECORD_OVERHEAD_V0 = 14  # LegacyRecord.RECORD_OVERHEAD_V0
LOG_OVERHEAD = 12  # Records.LOG_OVERHEAD

DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024 + LOG_OVERHEAD
DEFAULT_SEGMENT_BYTES = 1024 * 1024 * 1024
DEFAULT_SEGMENT_MS = 24 * 7 * 60 * 60 * 1000
DEFAULT_SEGMENT_JITTER_MS = 0
DEFAULT_RETENTION_MS = 24 * 7 * 60 * 60 * 1000
DEFAULT_DELETE_RETENTION_MS = 24 * 60 * 60 * 1000
DEFAULT_MIN_COMPACTION_LAG_MS = 0
DEFAULT_MAX_COMPACTION_LAG_MS = LONG_MAX
DEFAULT_MIN_CLEANABLE_DIRTY_RATIO = 0.5
DEFAULT_UNCLEAN_LEADER_ELECTION_ENABLE = False
DEFAULT_COMPRESSION_TYPE = "producer"
DEFAULT_PREALLOCATE = False
DEFAULT_MESSAGE_FORMAT_VERSION = "3.0-IV1"  # ServerLogConfigs.LOG_MESSAGE_FORMAT_VERSION_DEFAULT
DEFAULT_REMOTE_STORAGE_ENABLE = False
DEFAULT_LOCAL_RETENTION_BYTES = -2  # derived from retention.bytes
DEFAULT_LOCAL_RETENTION_MS = -2  # derived from retention.ms

CONFIGS_WITH_NO_SERVER_DEFAULTS = frozenset({
    "remote.storage.enable", "remote.log.delete.on.disable", "remote.log.copy.disable",
    "leader.replication.throttled.replicas", "follower.replication.throttled.replicas"})

_BROKER_COMPRESSION_TYPES = ("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")  # BrokerCompressionType


def _gzip_level_validator(name: str, value: Any) -> None:
    """GzipCompression.LevelValidator: Deflater.DEFAULT_COMPRESSION (-1), or 1 to 9."""
    if value == -1 or 1 <= value <= 9:
        return
    raise ConfigException(name, value, "Value must be between 1 and 9")


def _metadata_version_validator(name: str, value: Any) -> None:
    """MetadataVersionValidator: any version string MetadataVersion knows."""
    try:
        MetadataVersion.from_version_string(value)
    except Exception as e:
        raise ConfigException(name, value, str(e)) from None


def _throttled_replica_list_validator(name: str, value: Any) -> None:
    """ThrottledReplicaListValidator: '*', or partitionId:brokerId pairs."""
    def is_pair(item: str) -> bool:
        parts = [p.strip() for p in item.split(":")]
        return len(parts) == 2 and all(p.isdigit() for p in parts)

    items = [str(v).strip() for v in value]
    if not (items == ["*"] or all(is_pair(item) for item in items)):
        raise ConfigException(name, value, "must be the literal '*' or a list of replicas in the following format: "
                                           "[partitionId]:[brokerId],[partitionId]:[brokerId],...")


CONFIG = (ConfigDef()
          .define("segment.bytes", Type.INT, DEFAULT_SEGMENT_BYTES, Range.at_least(RECORD_OVERHEAD_V0))
          .define("segment.ms", Type.LONG, DEFAULT_SEGMENT_MS, Range.at_least(1))
          .define("segment.jitter.ms", Type.LONG, DEFAULT_SEGMENT_JITTER_MS, Range.at_least(0))
          .define("segment.index.bytes", Type.INT, 10 * 1024 * 1024, Range.at_least(4))
          .define("flush.messages", Type.LONG, LONG_MAX, Range.at_least(1))
          .define("flush.ms", Type.LONG, LONG_MAX, Range.at_least(0))
          .define("retention.bytes", Type.LONG, -1)  # may be negative: no size limit
          .define("retention.ms", Type.LONG, DEFAULT_RETENTION_MS, Range.at_least(-1))
          .define("max.message.bytes", Type.INT, DEFAULT_MAX_MESSAGE_BYTES, Range.at_least(0))
          .define("index.interval.bytes", Type.INT, 4096, Range.at_least(0))
          .define("delete.retention.ms", Type.LONG, DEFAULT_DELETE_RETENTION_MS, Range.at_least(0))
          .define("min.compaction.lag.ms", Type.LONG, DEFAULT_MIN_COMPACTION_LAG_MS, Range.at_least(0))
          .define("max.compaction.lag.ms", Type.LONG, DEFAULT_MAX_COMPACTION_LAG_MS, Range.at_least(1))
          .define("file.delete.delay.ms", Type.LONG, 60000, Range.at_least(0))
          .define("min.cleanable.dirty.ratio", Type.DOUBLE, DEFAULT_MIN_CLEANABLE_DIRTY_RATIO, Range.between(0, 1))
          .define("cleanup.policy", Type.LIST, "delete", ValidList.in_("compact", "delete"))
          .define("unclean.leader.election.enable", Type.BOOLEAN, DEFAULT_UNCLEAN_LEADER_ELECTION_ENABLE)
          .define("min.insync.replicas", Type.INT, 1, Range.at_least(1))
          .define("compression.type", Type.STRING, DEFAULT_COMPRESSION_TYPE,
                  ValidString.in_(*_BROKER_COMPRESSION_TYPES))
          .define("compression.gzip.level", Type.INT, -1, _gzip_level_validator)
          .define("compression.lz4.level", Type.INT, 9, Range.between(1, 17))
          .define("compression.zstd.level", Type.INT, 3, Range.between(-131072, 22))
          .define("preallocate", Type.BOOLEAN, DEFAULT_PREALLOCATE)
          .define("message.format.version", Type.STRING, DEFAULT_MESSAGE_FORMAT_VERSION, _metadata_version_validator)
          .define("message.timestamp.type", Type.STRING, "CreateTime", ValidString.in_("CreateTime", "LogAppendTime"))
          .define("message.timestamp.difference.max.ms", Type.LONG, LONG_MAX, Range.at_least(0))
          .define("message.timestamp.before.max.ms", Type.LONG, LONG_MAX, Range.at_least(0))
          .define("message.timestamp.after.max.ms", Type.LONG, LONG_MAX, Range.at_least(0))
          .define("leader.replication.throttled.replicas", Type.LIST, "", _throttled_replica_list_validator)
          .define("follower.replication.throttled.replicas", Type.LIST, "", _throttled_replica_list_validator)
          .define("message.downconversion.enable", Type.BOOLEAN, True)
          .define("remote.storage.enable", Type.BOOLEAN, DEFAULT_REMOTE_STORAGE_ENABLE)
          .define("local.retention.ms", Type.LONG, DEFAULT_LOCAL_RETENTION_MS, Range.at_least(-2))
          .define("local.retention.bytes", Type.LONG, DEFAULT_LOCAL_RETENTION_BYTES, Range.at_least(-2))
          .define("remote.log.copy.disable", Type.BOOLEAN, False)
          .define("remote.log.delete.on.disable", Type.BOOLEAN, False))


def config_def_copy() -> ConfigDef:
    """LogConfig.configDefCopy: the definitions, for a KafkaConfigSchema."""
    copy = ConfigDef()
    copy.config_keys = dict(CONFIG.config_keys)
    return copy


def config_names() -> list[str]:
    return sorted(CONFIG.names())


def validate_names(props: Mapping[str, Any]) -> None:
    names = CONFIG.names()
    for name in props:
        if name not in names:
            raise InvalidConfigurationException(f"Unknown topic config name: {name}")


def validate_values(props: Mapping[str, Any]) -> None:
    """The checks across configs, on parsed values (every topic config present)."""
    min_compaction_lag = props["min.compaction.lag.ms"]
    max_compaction_lag = props["max.compaction.lag.ms"]
    if min_compaction_lag > max_compaction_lag:
        raise InvalidConfigurationException(f"conflict topic config setting min.compaction.lag.ms "
                                            f"({min_compaction_lag}) > max.compaction.lag.ms ({max_compaction_lag})")


def validate_remote_storage_only_if_system_enabled(props: Mapping[str, Any],
                                                   is_remote_log_storage_system_enabled: bool,
                                                   is_receiving_config_from_store: bool) -> None:
    if props["remote.storage.enable"] and not is_remote_log_storage_system_enabled:
        if is_receiving_config_from_store:
            raise ConfigException("You have to delete all topics with the property remote.storage.enable=true "
                                  "before disabling tiered storage cluster-wide")
        raise ConfigException("Tiered Storage functionality is disabled in the broker. Topic cannot be configured "
                              "with remote log storage.")


def validate(existing_configs: Mapping[str, str], props: Mapping[str, Any],
             configured_props: Mapping[str, Any] | None = None,
             is_remote_log_storage_system_enabled: bool = False) -> None:
    """The names, then each value (ConfigDef.parse: common.config's ConfigException when one is bad), then the checks
    across values. With the broker's log configs (`configured_props`), the topic's values override them and the
    remote-storage checks run; the rest of those checks need tiered storage, which is not built."""
    validate_names(props)
    if not configured_props:
        validate_values(CONFIG.parse(props))
        return
    value_maps = CONFIG.parse({**configured_props, **props})
    validate_values(value_maps)
    if value_maps["remote.storage.enable"]:
        validate_remote_storage_only_if_system_enabled(value_maps, is_remote_log_storage_system_enabled, False)


class LogConfig:
    """LogConfig(props): a topic's log configs, parsed (defaults filled in). Added for the 3.9 segment port with the
    fields a segment and its log read; LocalLog and UnifiedLog added the message format, compression, timestamp
    and remote-log fields (RemoteLogConfig's are plain fields here)."""

    def __init__(self, props: Mapping[str, Any], overridden_configs: frozenset[str] = frozenset()) -> None:
        self.props = dict(props)
        self.overridden_configs = overridden_configs
        values = CONFIG.parse(props)
        self.segment_size: int = values["segment.bytes"]
        self.segment_ms: int = values["segment.ms"]
        self.segment_jitter_ms: int = values["segment.jitter.ms"]
        self.max_index_size: int = values["segment.index.bytes"]
        self.flush_interval: int = values["flush.messages"]
        self.flush_ms: int = values["flush.ms"]
        self.retention_size: int = values["retention.bytes"]
        self.retention_ms: int = values["retention.ms"]
        self._max_message_size: int = values["max.message.bytes"]
        self.index_interval: int = values["index.interval.bytes"]
        self.file_delete_delay_ms: int = values["file.delete.delay.ms"]
        self.delete_retention_ms: int = values["delete.retention.ms"]
        self.compaction_lag_ms: int = values["min.compaction.lag.ms"]
        self.max_compaction_lag_ms: int = values["max.compaction.lag.ms"]
        self.min_cleanable_ratio: float = values["min.cleanable.dirty.ratio"]
        policies = [c.lower() for c in values["cleanup.policy"]]
        self.compact = "compact" in policies
        self.delete = "delete" in policies
        self.unclean_leader_election_enable: bool = values["unclean.leader.election.enable"]
        self.min_in_sync_replicas: int = values["min.insync.replicas"]
        self.preallocate: bool = values["preallocate"]
        self.message_down_conversion_enable: bool = values["message.downconversion.enable"]
        # added for the 3.9 UnifiedLog port: what an append and retention read
        self.compression_type: str = values["compression.type"]
        self.compression = self._get_compression(values)
        self.message_timestamp_type = TimestampType.for_name(values["message.timestamp.type"])
        self.message_timestamp_difference_max_ms: int = values["message.timestamp.difference.max.ms"]
        # before/after fall back to the deprecated difference config while they keep their default
        before = values["message.timestamp.before.max.ms"]
        after = values["message.timestamp.after.max.ms"]
        self.message_timestamp_before_max_ms: int = (before if before != LONG_MAX
                                                     else self.message_timestamp_difference_max_ms)
        self.message_timestamp_after_max_ms: int = (after if after != LONG_MAX
                                                    else self.message_timestamp_difference_max_ms)
        self._remote_storage_enable: bool = values["remote.storage.enable"]
        self._remote_log_copy_disable: bool = values["remote.log.copy.disable"]
        self._local_retention_ms: int = values["local.retention.ms"]
        self._local_retention_bytes: int = values["local.retention.bytes"]
        self.message_format_version = MetadataVersion.from_version_string(values["message.format.version"])

    def max_message_size(self) -> int:
        return self._max_message_size

    @staticmethod
    def _get_compression(values: Mapping[str, Any]) -> Any:
        """LogConfig.getCompression: the topic's codec with its level; None for `producer` (keep the producer's)."""
        from kafka_edu.v3_9.clients.common.compress.compression import Compression
        compression_type = values["compression.type"]
        if compression_type == "gzip":
            return Compression.gzip().level(values["compression.gzip.level"]).build()
        if compression_type == "lz4":
            return Compression.lz4().level(values["compression.lz4.level"]).build()
        if compression_type == "zstd":
            return Compression.zstd().level(values["compression.zstd.level"]).build()
        if compression_type == "snappy":
            return Compression.snappy().build()
        if compression_type == "uncompressed":
            return Compression.NONE
        return None

    def remote_storage_enable(self) -> bool:
        return self._remote_storage_enable

    def remote_log_copy_disable(self) -> bool:
        return self._remote_log_copy_disable

    def local_retention_ms(self) -> int:
        return self.retention_ms if self._local_retention_ms == DEFAULT_LOCAL_RETENTION_MS else self._local_retention_ms

    def local_retention_bytes(self) -> int:
        return (self.retention_size if self._local_retention_bytes == DEFAULT_LOCAL_RETENTION_BYTES
                else self._local_retention_bytes)

    def record_version(self) -> RecordVersion:
        return self.message_format_version.highest_supported_record_version()

    def init_file_size(self) -> int:
        """The size a new segment file is created with: the whole segment when preallocating."""
        if self.preallocate:
            return self.segment_size
        return 0

    def random_segment_jitter(self) -> int:
        """A random jitter below min(segment.jitter.ms, segment.ms), so that segments do not all roll at once."""
        if self.segment_jitter_ms == 0:
            return 0
        return random.randrange(2**31) % min(self.segment_jitter_ms, self.segment_ms)

    def max_segment_ms(self) -> int:
        if self.compact and self.max_compaction_lag_ms > 0:
            return min(self.max_compaction_lag_ms, self.segment_ms)
        return self.segment_ms


# Added for the 3.9 KafkaConfig port: the broker's log configs (LogConfig.SERVER_CONFIG_DEF), and when the deprecated
# message format config still counts.
def _server_config_def() -> ConfigDef:
    from kafka_edu.v3_9.server_common.server.config import server_log_configs as s
    hours = 60 * 60 * 1000
    validator = CONFIG.config_keys  # the topic configs' validators serve their broker synonyms too
    return (ConfigDef()
            .define(s.NUM_PARTITIONS_CONFIG, Type.INT, s.NUM_PARTITIONS_DEFAULT, Range.at_least(1))
            .define(s.LOG_DIR_CONFIG, Type.STRING, s.LOG_DIR_DEFAULT)
            .define(s.LOG_DIRS_CONFIG, Type.STRING, None)
            .define(s.LOG_SEGMENT_BYTES_CONFIG, Type.INT, DEFAULT_SEGMENT_BYTES, Range.at_least(RECORD_OVERHEAD_V0))
            .define(s.LOG_ROLL_TIME_MILLIS_CONFIG, Type.LONG, None)
            .define(s.LOG_ROLL_TIME_HOURS_CONFIG, Type.INT, DEFAULT_SEGMENT_MS // hours, Range.at_least(1))
            .define(s.LOG_ROLL_TIME_JITTER_MILLIS_CONFIG, Type.LONG, None)
            .define(s.LOG_ROLL_TIME_JITTER_HOURS_CONFIG, Type.INT, DEFAULT_SEGMENT_JITTER_MS // hours,
                    Range.at_least(0))
            .define(s.LOG_RETENTION_TIME_MILLIS_CONFIG, Type.LONG, None)
            .define(s.LOG_RETENTION_TIME_MINUTES_CONFIG, Type.INT, None)
            .define(s.LOG_RETENTION_TIME_HOURS_CONFIG, Type.INT, DEFAULT_RETENTION_MS // hours)
            .define(s.LOG_RETENTION_BYTES_CONFIG, Type.LONG, s.LOG_RETENTION_BYTES_DEFAULT)
            .define(s.LOG_CLEANUP_INTERVAL_MS_CONFIG, Type.LONG, s.LOG_CLEANUP_INTERVAL_MS_DEFAULT, Range.at_least(1))
            .define(s.LOG_CLEANUP_POLICY_CONFIG, Type.LIST, s.LOG_CLEANUP_POLICY_DEFAULT,
                    ValidList.in_("compact", "delete"))
            .define(s.LOG_INDEX_SIZE_MAX_BYTES_CONFIG, Type.INT, s.LOG_INDEX_SIZE_MAX_BYTES_DEFAULT, Range.at_least(4))
            .define(s.LOG_INDEX_INTERVAL_BYTES_CONFIG, Type.INT, s.LOG_INDEX_INTERVAL_BYTES_DEFAULT, Range.at_least(0))
            .define(s.LOG_FLUSH_INTERVAL_MESSAGES_CONFIG, Type.LONG, s.LOG_FLUSH_INTERVAL_MESSAGES_DEFAULT,
                    Range.at_least(1))
            .define(s.LOG_DELETE_DELAY_MS_CONFIG, Type.LONG, s.LOG_DELETE_DELAY_MS_DEFAULT, Range.at_least(0))
            .define(s.LOG_FLUSH_SCHEDULER_INTERVAL_MS_CONFIG, Type.LONG, s.LOG_FLUSH_SCHEDULER_INTERVAL_MS_DEFAULT)
            .define(s.LOG_FLUSH_INTERVAL_MS_CONFIG, Type.LONG, None)
            .define(s.LOG_FLUSH_OFFSET_CHECKPOINT_INTERVAL_MS_CONFIG, Type.INT,
                    s.LOG_FLUSH_OFFSET_CHECKPOINT_INTERVAL_MS_DEFAULT, Range.at_least(0))
            .define(s.LOG_FLUSH_START_OFFSET_CHECKPOINT_INTERVAL_MS_CONFIG, Type.INT,
                    s.LOG_FLUSH_START_OFFSET_CHECKPOINT_INTERVAL_MS_DEFAULT, Range.at_least(0))
            .define(s.LOG_PRE_ALLOCATE_CONFIG, Type.BOOLEAN, DEFAULT_PREALLOCATE)
            .define(s.NUM_RECOVERY_THREADS_PER_DATA_DIR_CONFIG, Type.INT, s.NUM_RECOVERY_THREADS_PER_DATA_DIR_DEFAULT,
                    Range.at_least(1))
            .define(s.AUTO_CREATE_TOPICS_ENABLE_CONFIG, Type.BOOLEAN, s.AUTO_CREATE_TOPICS_ENABLE_DEFAULT)
            .define(s.MIN_IN_SYNC_REPLICAS_CONFIG, Type.INT, s.MIN_IN_SYNC_REPLICAS_DEFAULT, Range.at_least(1))
            .define(s.LOG_MESSAGE_FORMAT_VERSION_CONFIG, Type.STRING, s.LOG_MESSAGE_FORMAT_VERSION_DEFAULT,
                    _metadata_version_validator)
            .define(s.LOG_MESSAGE_TIMESTAMP_TYPE_CONFIG, Type.STRING, s.LOG_MESSAGE_TIMESTAMP_TYPE_DEFAULT,
                    validator["message.timestamp.type"].validator)
            .define(s.LOG_MESSAGE_TIMESTAMP_DIFFERENCE_MAX_MS_CONFIG, Type.LONG,
                    s.LOG_MESSAGE_TIMESTAMP_DIFFERENCE_MAX_MS_DEFAULT, Range.at_least(0))
            .define(s.LOG_MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG, Type.LONG,
                    s.LOG_MESSAGE_TIMESTAMP_BEFORE_MAX_MS_DEFAULT, Range.at_least(0))
            .define(s.LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG, Type.LONG,
                    s.LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS_DEFAULT, Range.at_least(0))
            .define(s.CREATE_TOPIC_POLICY_CLASS_NAME_CONFIG, Type.CLASS, None)
            .define(s.ALTER_CONFIG_POLICY_CLASS_NAME_CONFIG, Type.CLASS, None)
            .define(s.LOG_MESSAGE_DOWNCONVERSION_ENABLE_CONFIG, Type.BOOLEAN,
                    s.LOG_MESSAGE_DOWNCONVERSION_ENABLE_DEFAULT)
            .define(s.LOG_DIR_FAILURE_TIMEOUT_MS_CONFIG, Type.LONG, s.LOG_DIR_FAILURE_TIMEOUT_MS_DEFAULT,
                    Range.at_least(1))
            .define(s.LOG_INITIAL_TASK_DELAY_MS_CONFIG, Type.LONG, s.LOG_INITIAL_TASK_DELAY_MS_DEFAULT,
                    Range.at_least(0)))


SERVER_CONFIG_DEF = _server_config_def()


def should_ignore_message_format_version(inter_broker_protocol_version: MetadataVersion) -> bool:
    """From 3.0 on, log.message.format.version / message.format.version are ignored."""
    return inter_broker_protocol_version.is_at_least(MetadataVersion.IBP_3_0_IV1)


class MessageFormatVersion:
    """LogConfig.MessageFormatVersion: a (deprecated) message format version next to the inter-broker protocol."""

    def __init__(self, message_format_version_string: str, inter_broker_protocol_version_string: str) -> None:
        self.message_format_version_string = message_format_version_string
        self.inter_broker_protocol_version_string = inter_broker_protocol_version_string
        self.message_format_version = MetadataVersion.from_version_string(message_format_version_string)
        self.inter_broker_protocol_version = MetadataVersion.from_version_string(inter_broker_protocol_version_string)

    def should_ignore(self) -> bool:
        return should_ignore_message_format_version(self.inter_broker_protocol_version)

    def should_warn(self) -> bool:
        return (self.inter_broker_protocol_version.is_at_least(MetadataVersion.IBP_3_0_IV1)
                and self.message_format_version.highest_supported_record_version().precedes(RecordVersion.V2))
