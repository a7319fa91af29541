"""Port of server/src/main/java/org/apache/kafka/server/config/ShareGroupConfig.java (Kafka 3.9): the KIP-932 share
group settings (an early-access feature in 3.9, off by default) and their cross checks."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.config.config_def import AbstractConfig, ConfigDef, Range, Type

SHARE_GROUP_ENABLE_CONFIG = "group.share.enable"
SHARE_GROUP_ENABLE_DEFAULT = False
SHARE_GROUP_PARTITION_MAX_RECORD_LOCKS_CONFIG = "group.share.partition.max.record.locks"
SHARE_GROUP_PARTITION_MAX_RECORD_LOCKS_DEFAULT = 200
SHARE_GROUP_DELIVERY_COUNT_LIMIT_CONFIG = "group.share.delivery.count.limit"
SHARE_GROUP_DELIVERY_COUNT_LIMIT_DEFAULT = 5
SHARE_GROUP_MAX_GROUPS_CONFIG = "group.share.max.groups"
SHARE_GROUP_MAX_GROUPS_DEFAULT = 10
SHARE_GROUP_RECORD_LOCK_DURATION_MS_CONFIG = "group.share.record.lock.duration.ms"
SHARE_GROUP_RECORD_LOCK_DURATION_MS_DEFAULT = 30000
SHARE_GROUP_MIN_RECORD_LOCK_DURATION_MS_CONFIG = "group.share.min.record.lock.duration.ms"
SHARE_GROUP_MIN_RECORD_LOCK_DURATION_MS_DEFAULT = 15000
SHARE_GROUP_MAX_RECORD_LOCK_DURATION_MS_CONFIG = "group.share.max.record.lock.duration.ms"
SHARE_GROUP_MAX_RECORD_LOCK_DURATION_MS_DEFAULT = 60000

CONFIG_DEF = (
    ConfigDef()
    .define_internal(SHARE_GROUP_ENABLE_CONFIG, Type.BOOLEAN, SHARE_GROUP_ENABLE_DEFAULT)
    .define(SHARE_GROUP_DELIVERY_COUNT_LIMIT_CONFIG, Type.INT, SHARE_GROUP_DELIVERY_COUNT_LIMIT_DEFAULT,
            Range.between(2, 10))
    .define(SHARE_GROUP_RECORD_LOCK_DURATION_MS_CONFIG, Type.INT, SHARE_GROUP_RECORD_LOCK_DURATION_MS_DEFAULT,
            Range.between(1000, 60000))
    .define(SHARE_GROUP_MIN_RECORD_LOCK_DURATION_MS_CONFIG, Type.INT, SHARE_GROUP_MIN_RECORD_LOCK_DURATION_MS_DEFAULT,
            Range.between(1000, 30000))
    .define(SHARE_GROUP_MAX_RECORD_LOCK_DURATION_MS_CONFIG, Type.INT, SHARE_GROUP_MAX_RECORD_LOCK_DURATION_MS_DEFAULT,
            Range.between(30000, 3600000))
    .define(SHARE_GROUP_MAX_GROUPS_CONFIG, Type.SHORT, SHARE_GROUP_MAX_GROUPS_DEFAULT, Range.between(1, 100))
    .define(SHARE_GROUP_PARTITION_MAX_RECORD_LOCKS_CONFIG, Type.INT, SHARE_GROUP_PARTITION_MAX_RECORD_LOCKS_DEFAULT,
            Range.between(100, 10000))
)


def _require(requirement: bool, message: str) -> None:
    """Utils.require: an IllegalArgumentException with the message as it is."""
    if not requirement:
        raise IllegalArgumentException(message)


class ShareGroupConfig:
    def __init__(self, config: AbstractConfig) -> None:
        self._is_share_group_enabled: bool = config.get_boolean(SHARE_GROUP_ENABLE_CONFIG)
        self._share_group_partition_max_record_locks: int = config.get_int(
            SHARE_GROUP_PARTITION_MAX_RECORD_LOCKS_CONFIG)
        self._share_group_delivery_count_limit: int = config.get_int(SHARE_GROUP_DELIVERY_COUNT_LIMIT_CONFIG)
        self._share_group_max_groups: int = config.get_short(SHARE_GROUP_MAX_GROUPS_CONFIG)
        self._share_group_record_lock_duration_ms: int = config.get_int(SHARE_GROUP_RECORD_LOCK_DURATION_MS_CONFIG)
        self._share_group_max_record_lock_duration_ms: int = config.get_int(
            SHARE_GROUP_MAX_RECORD_LOCK_DURATION_MS_CONFIG)
        self._share_group_min_record_lock_duration_ms: int = config.get_int(
            SHARE_GROUP_MIN_RECORD_LOCK_DURATION_MS_CONFIG)
        self._validate()

    def is_share_group_enabled(self) -> bool:
        return self._is_share_group_enabled

    def share_group_partition_max_record_locks(self) -> int:
        return self._share_group_partition_max_record_locks

    def share_group_delivery_count_limit(self) -> int:
        return self._share_group_delivery_count_limit

    def share_group_max_groups(self) -> int:
        return self._share_group_max_groups

    def share_group_record_lock_duration_ms(self) -> int:
        return self._share_group_record_lock_duration_ms

    def share_group_max_record_lock_duration_ms(self) -> int:
        return self._share_group_max_record_lock_duration_ms

    def share_group_min_record_lock_duration_ms(self) -> int:
        return self._share_group_min_record_lock_duration_ms

    def _validate(self) -> None:
        _require(self._share_group_record_lock_duration_ms >= self._share_group_min_record_lock_duration_ms,
                 f"{SHARE_GROUP_RECORD_LOCK_DURATION_MS_CONFIG} must be greater than or equals to "
                 f"{SHARE_GROUP_MIN_RECORD_LOCK_DURATION_MS_CONFIG}")
        _require(self._share_group_max_record_lock_duration_ms >= self._share_group_record_lock_duration_ms,
                 f"{SHARE_GROUP_MAX_RECORD_LOCK_DURATION_MS_CONFIG} must be greater than or equals to "
                 f"{SHARE_GROUP_RECORD_LOCK_DURATION_MS_CONFIG}")
