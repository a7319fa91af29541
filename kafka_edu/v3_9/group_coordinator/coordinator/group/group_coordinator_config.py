"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/GroupCoordinatorConfig.java (Kafka 3.9):
the classic, consumer (KIP-848) and share group settings, offset management, and their cross checks."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.config.config_def import (
    AbstractConfig,
    CaseInsensitiveValidString,
    ConfigDef,
    Range,
    Type,
    ValidList,
)
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType

INT_MAX = 2**31 - 1

# Group.GroupType and ConsumerGroupMigrationPolicy as their toString prints them
GROUP_TYPES = ("classic", "consumer", "share")
CONSUMER_GROUP_MIGRATION_POLICIES = ("bidirectional", "upgrade", "downgrade", "disabled")

GROUP_MIN_SESSION_TIMEOUT_MS_CONFIG = "group.min.session.timeout.ms"
GROUP_MIN_SESSION_TIMEOUT_MS_DEFAULT = 6000
GROUP_MAX_SESSION_TIMEOUT_MS_CONFIG = "group.max.session.timeout.ms"
GROUP_MAX_SESSION_TIMEOUT_MS_DEFAULT = 1800000
GROUP_INITIAL_REBALANCE_DELAY_MS_CONFIG = "group.initial.rebalance.delay.ms"
GROUP_INITIAL_REBALANCE_DELAY_MS_DEFAULT = 3000
GROUP_MAX_SIZE_CONFIG = "group.max.size"
GROUP_MAX_SIZE_DEFAULT = INT_MAX

NEW_GROUP_COORDINATOR_ENABLE_CONFIG = "group.coordinator.new.enable"
NEW_GROUP_COORDINATOR_ENABLE_DEFAULT = False
GROUP_COORDINATOR_REBALANCE_PROTOCOLS_CONFIG = "group.coordinator.rebalance.protocols"
GROUP_COORDINATOR_REBALANCE_PROTOCOLS_DEFAULT = ["classic"]
GROUP_COORDINATOR_APPEND_LINGER_MS_CONFIG = "group.coordinator.append.linger.ms"
GROUP_COORDINATOR_APPEND_LINGER_MS_DEFAULT = 10
GROUP_COORDINATOR_NUM_THREADS_CONFIG = "group.coordinator.threads"
GROUP_COORDINATOR_NUM_THREADS_DEFAULT = 1

CONSUMER_GROUP_SESSION_TIMEOUT_MS_CONFIG = "group.consumer.session.timeout.ms"
CONSUMER_GROUP_SESSION_TIMEOUT_MS_DEFAULT = 45000
CONSUMER_GROUP_MIN_SESSION_TIMEOUT_MS_CONFIG = "group.consumer.min.session.timeout.ms"
CONSUMER_GROUP_MIN_SESSION_TIMEOUT_MS_DEFAULT = 45000
CONSUMER_GROUP_MAX_SESSION_TIMEOUT_MS_CONFIG = "group.consumer.max.session.timeout.ms"
CONSUMER_GROUP_MAX_SESSION_TIMEOUT_MS_DEFAULT = 60000
CONSUMER_GROUP_HEARTBEAT_INTERVAL_MS_CONFIG = "group.consumer.heartbeat.interval.ms"
CONSUMER_GROUP_HEARTBEAT_INTERVAL_MS_DEFAULT = 5000
CONSUMER_GROUP_MIN_HEARTBEAT_INTERVAL_MS_CONFIG = "group.consumer.min.heartbeat.interval.ms"
CONSUMER_GROUP_MIN_HEARTBEAT_INTERVAL_MS_DEFAULT = 5000
CONSUMER_GROUP_MAX_HEARTBEAT_INTERVAL_MS_CONFIG = "group.consumer.max.heartbeat.interval.ms"
CONSUMER_GROUP_MAX_HEARTBEAT_INTERVAL_MS_DEFAULT = 15000
CONSUMER_GROUP_MAX_SIZE_CONFIG = "group.consumer.max.size"
CONSUMER_GROUP_MAX_SIZE_DEFAULT = INT_MAX
CONSUMER_GROUP_ASSIGNORS_CONFIG = "group.consumer.assignors"
CONSUMER_GROUP_ASSIGNORS_DEFAULT = ["org.apache.kafka.coordinator.group.assignor.UniformAssignor",
                                    "org.apache.kafka.coordinator.group.assignor.RangeAssignor"]
CONSUMER_GROUP_MIGRATION_POLICY_CONFIG = "group.consumer.migration.policy"
CONSUMER_GROUP_MIGRATION_POLICY_DEFAULT = "disabled"

SHARE_GROUP_MAX_SIZE_CONFIG = "group.share.max.size"
SHARE_GROUP_MAX_SIZE_DEFAULT = 200
SHARE_GROUP_SESSION_TIMEOUT_MS_CONFIG = "group.share.session.timeout.ms"
SHARE_GROUP_SESSION_TIMEOUT_MS_DEFAULT = 45000
SHARE_GROUP_MIN_SESSION_TIMEOUT_MS_CONFIG = "group.share.min.session.timeout.ms"
SHARE_GROUP_MIN_SESSION_TIMEOUT_MS_DEFAULT = 45000
SHARE_GROUP_MAX_SESSION_TIMEOUT_MS_CONFIG = "group.share.max.session.timeout.ms"
SHARE_GROUP_MAX_SESSION_TIMEOUT_MS_DEFAULT = 60000
SHARE_GROUP_HEARTBEAT_INTERVAL_MS_CONFIG = "group.share.heartbeat.interval.ms"
SHARE_GROUP_HEARTBEAT_INTERVAL_MS_DEFAULT = 5000
SHARE_GROUP_MIN_HEARTBEAT_INTERVAL_MS_CONFIG = "group.share.min.heartbeat.interval.ms"
SHARE_GROUP_MIN_HEARTBEAT_INTERVAL_MS_DEFAULT = 5000
SHARE_GROUP_MAX_HEARTBEAT_INTERVAL_MS_CONFIG = "group.share.max.heartbeat.interval.ms"
SHARE_GROUP_MAX_HEARTBEAT_INTERVAL_MS_DEFAULT = 15000

OFFSET_METADATA_MAX_SIZE_CONFIG = "offset.metadata.max.bytes"
OFFSET_METADATA_MAX_SIZE_DEFAULT = 4096
OFFSETS_LOAD_BUFFER_SIZE_CONFIG = "offsets.load.buffer.size"
OFFSETS_LOAD_BUFFER_SIZE_DEFAULT = 5 * 1024 * 1024
OFFSETS_RETENTION_MINUTES_CONFIG = "offsets.retention.minutes"
OFFSETS_RETENTION_MINUTES_DEFAULT = 7 * 24 * 60
OFFSETS_RETENTION_CHECK_INTERVAL_MS_CONFIG = "offsets.retention.check.interval.ms"
OFFSETS_RETENTION_CHECK_INTERVAL_MS_DEFAULT = 600000
OFFSETS_TOPIC_PARTITIONS_CONFIG = "offsets.topic.num.partitions"
OFFSETS_TOPIC_PARTITIONS_DEFAULT = 50
OFFSETS_TOPIC_SEGMENT_BYTES_CONFIG = "offsets.topic.segment.bytes"
OFFSETS_TOPIC_SEGMENT_BYTES_DEFAULT = 100 * 1024 * 1024
OFFSETS_TOPIC_REPLICATION_FACTOR_CONFIG = "offsets.topic.replication.factor"
OFFSETS_TOPIC_REPLICATION_FACTOR_DEFAULT = 3
OFFSETS_TOPIC_COMPRESSION_CODEC_CONFIG = "offsets.topic.compression.codec"
OFFSETS_TOPIC_COMPRESSION_CODEC_DEFAULT = CompressionType.NONE
OFFSET_COMMIT_TIMEOUT_MS_CONFIG = "offsets.commit.timeout.ms"
OFFSET_COMMIT_TIMEOUT_MS_DEFAULT = 5000
OFFSET_COMMIT_REQUIRED_ACKS_CONFIG = "offsets.commit.required.acks"  # deprecated since 3.8
OFFSET_COMMIT_REQUIRED_ACKS_DEFAULT = -1

GROUP_COORDINATOR_CONFIG_DEF = (
    ConfigDef()
    .define(GROUP_MIN_SESSION_TIMEOUT_MS_CONFIG, Type.INT, GROUP_MIN_SESSION_TIMEOUT_MS_DEFAULT)
    .define(GROUP_MAX_SESSION_TIMEOUT_MS_CONFIG, Type.INT, GROUP_MAX_SESSION_TIMEOUT_MS_DEFAULT)
    .define(GROUP_INITIAL_REBALANCE_DELAY_MS_CONFIG, Type.INT, GROUP_INITIAL_REBALANCE_DELAY_MS_DEFAULT)
    .define(GROUP_MAX_SIZE_CONFIG, Type.INT, GROUP_MAX_SIZE_DEFAULT, Range.at_least(1))
)

NEW_GROUP_CONFIG_DEF = (
    ConfigDef()
    .define(GROUP_COORDINATOR_REBALANCE_PROTOCOLS_CONFIG, Type.LIST, GROUP_COORDINATOR_REBALANCE_PROTOCOLS_DEFAULT,
            ValidList.in_(*GROUP_TYPES))
    .define(GROUP_COORDINATOR_NUM_THREADS_CONFIG, Type.INT, GROUP_COORDINATOR_NUM_THREADS_DEFAULT, Range.at_least(1))
    .define(GROUP_COORDINATOR_APPEND_LINGER_MS_CONFIG, Type.INT, GROUP_COORDINATOR_APPEND_LINGER_MS_DEFAULT,
            Range.at_least(0))
    .define_internal(NEW_GROUP_COORDINATOR_ENABLE_CONFIG, Type.BOOLEAN, NEW_GROUP_COORDINATOR_ENABLE_DEFAULT)
)

OFFSET_MANAGEMENT_CONFIG_DEF = (
    ConfigDef()
    .define(OFFSET_METADATA_MAX_SIZE_CONFIG, Type.INT, OFFSET_METADATA_MAX_SIZE_DEFAULT)
    .define(OFFSETS_LOAD_BUFFER_SIZE_CONFIG, Type.INT, OFFSETS_LOAD_BUFFER_SIZE_DEFAULT, Range.at_least(1))
    .define(OFFSETS_TOPIC_REPLICATION_FACTOR_CONFIG, Type.SHORT, OFFSETS_TOPIC_REPLICATION_FACTOR_DEFAULT,
            Range.at_least(1))
    .define(OFFSETS_TOPIC_PARTITIONS_CONFIG, Type.INT, OFFSETS_TOPIC_PARTITIONS_DEFAULT, Range.at_least(1))
    .define(OFFSETS_TOPIC_SEGMENT_BYTES_CONFIG, Type.INT, OFFSETS_TOPIC_SEGMENT_BYTES_DEFAULT, Range.at_least(1))
    .define(OFFSETS_TOPIC_COMPRESSION_CODEC_CONFIG, Type.INT, OFFSETS_TOPIC_COMPRESSION_CODEC_DEFAULT.id)
    .define(OFFSETS_RETENTION_MINUTES_CONFIG, Type.INT, OFFSETS_RETENTION_MINUTES_DEFAULT, Range.at_least(1))
    .define(OFFSETS_RETENTION_CHECK_INTERVAL_MS_CONFIG, Type.LONG, OFFSETS_RETENTION_CHECK_INTERVAL_MS_DEFAULT,
            Range.at_least(1))
    .define(OFFSET_COMMIT_TIMEOUT_MS_CONFIG, Type.INT, OFFSET_COMMIT_TIMEOUT_MS_DEFAULT, Range.at_least(1))
    .define(OFFSET_COMMIT_REQUIRED_ACKS_CONFIG, Type.SHORT, OFFSET_COMMIT_REQUIRED_ACKS_DEFAULT)
)

CONSUMER_GROUP_CONFIG_DEF = (
    ConfigDef()
    .define(CONSUMER_GROUP_SESSION_TIMEOUT_MS_CONFIG, Type.INT, CONSUMER_GROUP_SESSION_TIMEOUT_MS_DEFAULT,
            Range.at_least(1))
    .define(CONSUMER_GROUP_MIN_SESSION_TIMEOUT_MS_CONFIG, Type.INT, CONSUMER_GROUP_MIN_SESSION_TIMEOUT_MS_DEFAULT,
            Range.at_least(1))
    .define(CONSUMER_GROUP_MAX_SESSION_TIMEOUT_MS_CONFIG, Type.INT, CONSUMER_GROUP_MAX_SESSION_TIMEOUT_MS_DEFAULT,
            Range.at_least(1))
    .define(CONSUMER_GROUP_HEARTBEAT_INTERVAL_MS_CONFIG, Type.INT, CONSUMER_GROUP_HEARTBEAT_INTERVAL_MS_DEFAULT,
            Range.at_least(1))
    .define(CONSUMER_GROUP_MIN_HEARTBEAT_INTERVAL_MS_CONFIG, Type.INT, CONSUMER_GROUP_MIN_HEARTBEAT_INTERVAL_MS_DEFAULT,
            Range.at_least(1))
    .define(CONSUMER_GROUP_MAX_HEARTBEAT_INTERVAL_MS_CONFIG, Type.INT, CONSUMER_GROUP_MAX_HEARTBEAT_INTERVAL_MS_DEFAULT,
            Range.at_least(1))
    .define(CONSUMER_GROUP_MAX_SIZE_CONFIG, Type.INT, CONSUMER_GROUP_MAX_SIZE_DEFAULT, Range.at_least(1))
    .define(CONSUMER_GROUP_ASSIGNORS_CONFIG, Type.LIST, CONSUMER_GROUP_ASSIGNORS_DEFAULT)
    .define_internal(CONSUMER_GROUP_MIGRATION_POLICY_CONFIG, Type.STRING, CONSUMER_GROUP_MIGRATION_POLICY_DEFAULT,
                     CaseInsensitiveValidString.in_(*CONSUMER_GROUP_MIGRATION_POLICIES))
)

SHARE_GROUP_CONFIG_DEF = (
    ConfigDef()
    .define(SHARE_GROUP_SESSION_TIMEOUT_MS_CONFIG, Type.INT, SHARE_GROUP_SESSION_TIMEOUT_MS_DEFAULT, Range.at_least(1))
    .define(SHARE_GROUP_MIN_SESSION_TIMEOUT_MS_CONFIG, Type.INT, SHARE_GROUP_MIN_SESSION_TIMEOUT_MS_DEFAULT,
            Range.at_least(1))
    .define(SHARE_GROUP_MAX_SESSION_TIMEOUT_MS_CONFIG, Type.INT, SHARE_GROUP_MAX_SESSION_TIMEOUT_MS_DEFAULT,
            Range.at_least(1))
    .define(SHARE_GROUP_HEARTBEAT_INTERVAL_MS_CONFIG, Type.INT, SHARE_GROUP_HEARTBEAT_INTERVAL_MS_DEFAULT,
            Range.at_least(1))
    .define(SHARE_GROUP_MIN_HEARTBEAT_INTERVAL_MS_CONFIG, Type.INT, SHARE_GROUP_MIN_HEARTBEAT_INTERVAL_MS_DEFAULT,
            Range.at_least(1))
    .define(SHARE_GROUP_MAX_HEARTBEAT_INTERVAL_MS_CONFIG, Type.INT, SHARE_GROUP_MAX_HEARTBEAT_INTERVAL_MS_DEFAULT,
            Range.at_least(1))
    .define(SHARE_GROUP_MAX_SIZE_CONFIG, Type.SHORT, SHARE_GROUP_MAX_SIZE_DEFAULT, Range.between(10, 1000))
)

CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60 * 1000


def _require(requirement: bool, message: str) -> None:
    """Utils.require."""
    if not requirement:
        raise IllegalArgumentException(message)


class GroupCoordinatorConfig:
    """The group coordinator's settings, read from the broker's config and checked against each other."""

    def __init__(self, config: AbstractConfig) -> None:
        self._num_threads: int = config.get_int(GROUP_COORDINATOR_NUM_THREADS_CONFIG)
        self._append_linger_ms: int = config.get_int(GROUP_COORDINATOR_APPEND_LINGER_MS_CONFIG)
        self._consumer_group_session_timeout_ms: int = config.get_int(CONSUMER_GROUP_SESSION_TIMEOUT_MS_CONFIG)
        self._consumer_group_heartbeat_interval_ms: int = config.get_int(CONSUMER_GROUP_HEARTBEAT_INTERVAL_MS_CONFIG)
        self._consumer_group_max_size: int = config.get_int(CONSUMER_GROUP_MAX_SIZE_CONFIG)
        # class names: the assignors themselves belong to the KIP-848 coordinator, not ported
        self._consumer_group_assignors: list[str] = config.get_list(CONSUMER_GROUP_ASSIGNORS_CONFIG)
        self._offsets_topic_segment_bytes: int = config.get_int(OFFSETS_TOPIC_SEGMENT_BYTES_CONFIG)
        self._offset_metadata_max_size: int = config.get_int(OFFSET_METADATA_MAX_SIZE_CONFIG)
        self._classic_group_max_size: int = config.get_int(GROUP_MAX_SIZE_CONFIG)
        self._classic_group_initial_rebalance_delay_ms: int = config.get_int(GROUP_INITIAL_REBALANCE_DELAY_MS_CONFIG)
        self._classic_group_min_session_timeout_ms: int = config.get_int(GROUP_MIN_SESSION_TIMEOUT_MS_CONFIG)
        self._classic_group_max_session_timeout_ms: int = config.get_int(GROUP_MAX_SESSION_TIMEOUT_MS_CONFIG)
        self._offsets_retention_check_interval_ms: int = config.get_long(OFFSETS_RETENTION_CHECK_INTERVAL_MS_CONFIG)
        self._offsets_retention_ms: int = config.get_int(OFFSETS_RETENTION_MINUTES_CONFIG) * 60 * 1000
        self._offset_commit_timeout_ms: int = config.get_int(OFFSET_COMMIT_TIMEOUT_MS_CONFIG)
        # ConsumerGroupMigrationPolicy.parse: case-insensitive, kept as its (lower-case) name
        self._consumer_group_migration_policy: str = config.get_string(
            CONSUMER_GROUP_MIGRATION_POLICY_CONFIG).lower()
        codec = config.get_int(OFFSETS_TOPIC_COMPRESSION_CODEC_CONFIG)
        self._offset_topic_compression_type: CompressionType | None = (
            CompressionType.for_id(codec) if codec is not None else None)
        self._offsets_load_buffer_size: int = config.get_int(OFFSETS_LOAD_BUFFER_SIZE_CONFIG)
        self._offsets_topic_partitions: int = config.get_int(OFFSETS_TOPIC_PARTITIONS_CONFIG)
        self._offsets_topic_replication_factor: int = config.get_short(OFFSETS_TOPIC_REPLICATION_FACTOR_CONFIG)
        self._offset_commit_required_acks: int = config.get_short(OFFSET_COMMIT_REQUIRED_ACKS_CONFIG)
        self._consumer_group_min_session_timeout_ms: int = config.get_int(CONSUMER_GROUP_MIN_SESSION_TIMEOUT_MS_CONFIG)
        self._consumer_group_max_session_timeout_ms: int = config.get_int(CONSUMER_GROUP_MAX_SESSION_TIMEOUT_MS_CONFIG)
        self._consumer_group_min_heartbeat_interval_ms: int = config.get_int(
            CONSUMER_GROUP_MIN_HEARTBEAT_INTERVAL_MS_CONFIG)
        self._consumer_group_max_heartbeat_interval_ms: int = config.get_int(
            CONSUMER_GROUP_MAX_HEARTBEAT_INTERVAL_MS_CONFIG)
        self._share_group_session_timeout_ms: int = config.get_int(SHARE_GROUP_SESSION_TIMEOUT_MS_CONFIG)
        self._share_group_min_session_timeout_ms: int = config.get_int(SHARE_GROUP_MIN_SESSION_TIMEOUT_MS_CONFIG)
        self._share_group_max_session_timeout_ms: int = config.get_int(SHARE_GROUP_MAX_SESSION_TIMEOUT_MS_CONFIG)
        self._share_group_heartbeat_interval_ms: int = config.get_int(SHARE_GROUP_HEARTBEAT_INTERVAL_MS_CONFIG)
        self._share_group_min_heartbeat_interval_ms: int = config.get_int(SHARE_GROUP_MIN_HEARTBEAT_INTERVAL_MS_CONFIG)
        self._share_group_max_heartbeat_interval_ms: int = config.get_int(SHARE_GROUP_MAX_HEARTBEAT_INTERVAL_MS_CONFIG)
        self._share_group_max_size: int = config.get_short(SHARE_GROUP_MAX_SIZE_CONFIG)

        _require(-1 <= self._offset_commit_required_acks <= self._offsets_topic_replication_factor,
                 f"{OFFSET_COMMIT_REQUIRED_ACKS_CONFIG} must be greater or equal to -1 and less or equal to "
                 f"{OFFSETS_TOPIC_REPLICATION_FACTOR_CONFIG}")
        self._require_ordered(self._consumer_group_min_heartbeat_interval_ms,
                              self._consumer_group_heartbeat_interval_ms,
                              self._consumer_group_max_heartbeat_interval_ms,
                              CONSUMER_GROUP_MIN_HEARTBEAT_INTERVAL_MS_CONFIG,
                              CONSUMER_GROUP_HEARTBEAT_INTERVAL_MS_CONFIG,
                              CONSUMER_GROUP_MAX_HEARTBEAT_INTERVAL_MS_CONFIG)
        self._require_ordered(self._consumer_group_min_session_timeout_ms, self._consumer_group_session_timeout_ms,
                              self._consumer_group_max_session_timeout_ms, CONSUMER_GROUP_MIN_SESSION_TIMEOUT_MS_CONFIG,
                              CONSUMER_GROUP_SESSION_TIMEOUT_MS_CONFIG, CONSUMER_GROUP_MAX_SESSION_TIMEOUT_MS_CONFIG)
        self._require_ordered(self._share_group_min_heartbeat_interval_ms, self._share_group_heartbeat_interval_ms,
                              self._share_group_max_heartbeat_interval_ms, SHARE_GROUP_MIN_HEARTBEAT_INTERVAL_MS_CONFIG,
                              SHARE_GROUP_HEARTBEAT_INTERVAL_MS_CONFIG, SHARE_GROUP_MAX_HEARTBEAT_INTERVAL_MS_CONFIG)
        self._require_ordered(self._share_group_min_session_timeout_ms, self._share_group_session_timeout_ms,
                              self._share_group_max_session_timeout_ms, SHARE_GROUP_MIN_SESSION_TIMEOUT_MS_CONFIG,
                              SHARE_GROUP_SESSION_TIMEOUT_MS_CONFIG, SHARE_GROUP_MAX_SESSION_TIMEOUT_MS_CONFIG)

    @staticmethod
    def _require_ordered(min_value: int, value: int, max_value: int, min_name: str, name: str, max_name: str) -> None:
        """Kafka's three requires per setting, in its order: max >= min, value >= min, value <= max."""
        _require(max_value >= min_value, f"{max_name} must be greater than or equals to {min_name}")
        _require(value >= min_value, f"{name} must be greater than or equals to {min_name}")
        _require(value <= max_value, f"{name} must be less than or equals to {max_name}")

    def num_threads(self) -> int:
        return self._num_threads

    def append_linger_ms(self) -> int:
        return self._append_linger_ms

    def consumer_group_session_timeout_ms(self) -> int:
        return self._consumer_group_session_timeout_ms

    def consumer_group_heartbeat_interval_ms(self) -> int:
        return self._consumer_group_heartbeat_interval_ms

    def consumer_group_max_size(self) -> int:
        return self._consumer_group_max_size

    def consumer_group_assignors(self) -> list[str]:
        return self._consumer_group_assignors

    def offsets_topic_segment_bytes(self) -> int:
        return self._offsets_topic_segment_bytes

    def offset_metadata_max_size(self) -> int:
        return self._offset_metadata_max_size

    def classic_group_max_size(self) -> int:
        return self._classic_group_max_size

    def classic_group_initial_rebalance_delay_ms(self) -> int:
        return self._classic_group_initial_rebalance_delay_ms

    def classic_group_min_session_timeout_ms(self) -> int:
        return self._classic_group_min_session_timeout_ms

    def classic_group_max_session_timeout_ms(self) -> int:
        return self._classic_group_max_session_timeout_ms

    def offsets_retention_check_interval_ms(self) -> int:
        return self._offsets_retention_check_interval_ms

    def offsets_retention_ms(self) -> int:
        return self._offsets_retention_ms

    def offset_commit_timeout_ms(self) -> int:
        return self._offset_commit_timeout_ms

    def consumer_group_migration_policy(self) -> str:
        return self._consumer_group_migration_policy

    def offset_topic_compression_type(self) -> CompressionType | None:
        return self._offset_topic_compression_type

    def offsets_load_buffer_size(self) -> int:
        return self._offsets_load_buffer_size

    def offsets_topic_partitions(self) -> int:
        return self._offsets_topic_partitions

    def offsets_topic_replication_factor(self) -> int:
        return self._offsets_topic_replication_factor

    def offset_commit_required_acks(self) -> int:
        return self._offset_commit_required_acks

    def consumer_group_min_session_timeout_ms(self) -> int:
        return self._consumer_group_min_session_timeout_ms

    def consumer_group_max_session_timeout_ms(self) -> int:
        return self._consumer_group_max_session_timeout_ms

    def consumer_group_min_heartbeat_interval_ms(self) -> int:
        return self._consumer_group_min_heartbeat_interval_ms

    def consumer_group_max_heartbeat_interval_ms(self) -> int:
        return self._consumer_group_max_heartbeat_interval_ms

    def share_group_session_timeout_ms(self) -> int:
        return self._share_group_session_timeout_ms

    def share_group_min_session_timeout_ms(self) -> int:
        return self._share_group_min_session_timeout_ms

    def share_group_max_session_timeout_ms(self) -> int:
        return self._share_group_max_session_timeout_ms

    def share_group_heartbeat_interval_ms(self) -> int:
        return self._share_group_heartbeat_interval_ms

    def share_group_min_heartbeat_interval_ms(self) -> int:
        return self._share_group_min_heartbeat_interval_ms

    def share_group_max_heartbeat_interval_ms(self) -> int:
        return self._share_group_max_heartbeat_interval_ms

    def share_group_max_size(self) -> int:
        return self._share_group_max_size

    def classic_group_new_member_join_timeout_ms(self) -> int:
        return CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS
