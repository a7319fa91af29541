"""Port of core/src/main/scala/kafka/log/LogConfig.scala (Kafka 1.0.2), limited to what a Log reads."""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kafka_edu.v1_0_2.clients.common.config.config_def import ConfigDef, Range, Type, ValidList, ValidString
from kafka_edu.v1_0_2.clients.common.config.config_def import ConfigException as CommonConfigException
from kafka_edu.v1_0_2.clients.common.errors import InvalidConfigurationException

LONG_MAX = 2**63 - 1
_WEEK_MS = 7 * 24 * 60 * 60 * 1000

# Topic-level property name -> (field, smallest legal value or None); the names are TopicConfig's.
_PROPS: dict[str, tuple[str, int | None]] = {
    "segment.bytes": ("segment_bytes", 14),  # at least one legacy record overhead
    "segment.ms": ("segment_ms", 1),
    "segment.jitter.ms": ("segment_jitter_ms", 0),
    "segment.index.bytes": ("segment_index_bytes", 0),
    "index.interval.bytes": ("index_interval_bytes", 0),
    "flush.messages": ("flush_interval_messages", 0),
    "flush.ms": ("flush_ms", 0),
    "retention.bytes": ("retention_bytes", None),  # -1 means unlimited
    "retention.ms": ("retention_ms", None),
    "max.message.bytes": ("max_message_bytes", 0),
    "file.delete.delay.ms": ("file_delete_delay_ms", 0),
    "message.timestamp.difference.max.ms": ("message_timestamp_difference_max_ms", 0),
    "min.insync.replicas": ("min_in_sync_replicas", 1),
    "delete.retention.ms": ("delete_retention_ms", 0),
    "min.compaction.lag.ms": ("compaction_lag_ms", 0),
}

# Double-valued topic properties -> (field, smallest, largest legal value).
_DOUBLE_PROPS: dict[str, tuple[str, float, float]] = {
    "min.cleanable.dirty.ratio": ("min_cleanable_ratio", 0.0, 1.0),
}

# String-valued topic properties -> (field, allowed values); cleanup.policy is a comma-separated list of them.
_STRING_PROPS: dict[str, tuple[str, tuple[str, ...]]] = {
    "cleanup.policy": ("cleanup_policy", ("delete", "compact")),
    "compression.type": ("compression_type", ("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")),
    "message.timestamp.type": ("message_timestamp_type", ("CreateTime", "LogAppendTime")),
}


class ConfigException(ValueError):
    """org.apache.kafka.common.config.ConfigException: a property value is out of range or not a number."""


_MESSAGE_FORMAT_VERSIONS = ("0.8.0", "0.8.1", "0.8.2", "0.9.0", "0.10.0", "0.10.0-IV0", "0.10.0-IV1", "0.10.1",
                            "0.10.1-IV0", "0.10.1-IV1", "0.10.1-IV2", "0.10.2", "0.10.2-IV0", "0.11.0", "0.11.0-IV0",
                            "0.11.0-IV1", "0.11.0-IV2", "1.0", "1.0-IV0")
_THROTTLED_REPLICA = re.compile(r"\d+\s*:\s*\d+")


def _api_version_validator(name: str, value: Any) -> None:
    """ApiVersionValidator: a message format version 1.0.2 knows (a fourth version field is ignored)."""
    if ".".join(str(value).split(".")[:3]) not in _MESSAGE_FORMAT_VERSIONS:
        raise CommonConfigException(name, value, f"Version `{value}` is not a valid version")


def _throttled_replica_list_validator(name: str, value: Any) -> None:
    """ThrottledReplicaListValidator: '*', or partitionId:brokerId pairs."""
    if not (list(value) == ["*"] or all(_THROTTLED_REPLICA.fullmatch(str(v).strip()) for v in value)):
        raise CommonConfigException(name, value, "must be the literal '*' or a list of replicas in the following "
                                                  "format: [partitionId],[brokerId]:[partitionId],[brokerId]:...")


# LogConfig.configDef (1.0.2): every topic-level config, its type, 1.0.2's default and its validator.
CONFIG_DEF = (ConfigDef()
              .define("segment.bytes", Type.INT, 1024 * 1024 * 1024, Range.at_least(14))
              .define("segment.ms", Type.LONG, _WEEK_MS, Range.at_least(1))
              .define("segment.jitter.ms", Type.LONG, 0, Range.at_least(0))
              .define("segment.index.bytes", Type.INT, 10 * 1024 * 1024, Range.at_least(0))
              .define("flush.messages", Type.LONG, LONG_MAX, Range.at_least(0))
              .define("flush.ms", Type.LONG, LONG_MAX, Range.at_least(0))
              .define("retention.bytes", Type.LONG, -1)  # negative: no size limit
              .define("retention.ms", Type.LONG, _WEEK_MS)  # negative: no time limit
              .define("max.message.bytes", Type.INT, 1000012, Range.at_least(0))
              .define("index.interval.bytes", Type.INT, 4096, Range.at_least(0))
              .define("delete.retention.ms", Type.LONG, 24 * 60 * 60 * 1000, Range.at_least(0))
              .define("min.compaction.lag.ms", Type.LONG, 0, Range.at_least(0))
              .define("file.delete.delay.ms", Type.LONG, 60000, Range.at_least(0))
              .define("min.cleanable.dirty.ratio", Type.DOUBLE, 0.5, Range.between(0, 1))
              .define("cleanup.policy", Type.LIST, "delete", ValidList.in_("compact", "delete"))
              .define("unclean.leader.election.enable", Type.BOOLEAN, False)
              .define("min.insync.replicas", Type.INT, 1, Range.at_least(1))
              .define("compression.type", Type.STRING, "producer",
                      ValidString.in_("uncompressed", "snappy", "lz4", "gzip", "producer"))
              .define("preallocate", Type.BOOLEAN, False)
              .define("message.format.version", Type.STRING, "1.0", _api_version_validator)
              .define("message.timestamp.type", Type.STRING, "CreateTime",
                      ValidString.in_("CreateTime", "LogAppendTime"))
              .define("message.timestamp.difference.max.ms", Type.LONG, LONG_MAX, Range.at_least(0))
              .define("leader.replication.throttled.replicas", Type.LIST, "", _throttled_replica_list_validator)
              .define("follower.replication.throttled.replicas", Type.LIST, "", _throttled_replica_list_validator))


@dataclass(frozen=True)
class LogConfig:
    """Per-log settings; each field notes the Scala name used in Log.scala."""

    segment_bytes: int = 1024 * 1024 * 1024  # segmentSize: roll when the active segment would pass this
    segment_ms: int = _WEEK_MS  # segmentMs: roll when the segment's first timestamp is this old
    segment_jitter_ms: int = 0  # segmentJitterMs: spreads time-based rolls of many logs
    segment_index_bytes: int = 10 * 1024 * 1024  # maxIndexSize: pre-allocated size of each index file
    index_interval_bytes: int = 4096  # indexInterval: bytes of batches between two offset index entries
    flush_interval_messages: int = LONG_MAX  # flushInterval: fsync after this many unflushed messages
    flush_ms: int = LONG_MAX  # flushMs: fsync when the log has been unflushed this long (LogManager's job)
    retention_bytes: int = -1  # retentionSize
    retention_ms: int = _WEEK_MS  # retentionMs
    max_message_bytes: int = 1000012  # maxMessageSize: largest batch accepted
    file_delete_delay_ms: int = 60000  # fileDeleteDelayMs: wait between renaming to .deleted and deleting
    cleanup_policy: str = "delete"  # compact / delete: "delete" enables retention, "compact" requires keys
    compression_type: str = "producer"  # compressionType: "producer" keeps the producer's codec (and bytes)
    message_timestamp_type: str = "CreateTime"  # messageTimestampType: CreateTime or LogAppendTime
    message_timestamp_difference_max_ms: int = LONG_MAX  # messageTimestampDifferenceMaxMs (CreateTime only)
    min_in_sync_replicas: int = 1  # minInSyncReplicas: read by Partition for acks=all
    delete_retention_ms: int = 24 * 60 * 60 * 1000  # deleteRetentionMs: how long the cleaner keeps a tombstone
    compaction_lag_ms: int = 0  # compactionLagMs (min.compaction.lag.ms): records this young are not compacted
    min_cleanable_ratio: float = 0.5  # minCleanableRatio (min.cleanable.dirty.ratio): dirty share to clean a log

    @property
    def compact(self) -> bool:
        return "compact" in self.cleanup_policy.split(",")

    @property
    def delete(self) -> bool:
        return "delete" in self.cleanup_policy.split(",")

    @classmethod
    def from_props(cls, props: Mapping[str, Any], defaults: LogConfig | None = None) -> LogConfig:
        """Build from Kafka topic property names ("segment.bytes": "1048576"); unknown names are ignored."""
        values: dict[str, int | float | str] = {}
        for name, raw in props.items():
            if name in _STRING_PROPS:
                field, allowed = _STRING_PROPS[name]
                text = str(raw).strip()
                items = [item.strip() for item in text.split(",")] if name == "cleanup.policy" else [text]
                if not items or any(item not in allowed for item in items):
                    raise ConfigException(f"Invalid value {raw} for configuration {name}: String must be one of: "
                                          f"{', '.join(allowed)}")
                values[field] = ",".join(items)
                continue
            if name in _DOUBLE_PROPS:
                field, lowest, highest = _DOUBLE_PROPS[name]
                try:
                    ratio = float(raw)
                except (TypeError, ValueError):
                    raise ConfigException(f"Invalid value {raw} for configuration {name}: not a number") from None
                if not lowest <= ratio <= highest:
                    raise ConfigException(f"Invalid value {ratio} for configuration {name}: Value must be between "
                                          f"{lowest} and {highest}")
                values[field] = ratio
                continue
            if name not in _PROPS:
                continue
            field, at_least = _PROPS[name]
            try:
                value = int(raw)
            except (TypeError, ValueError):
                raise ConfigException(f"Invalid value {raw} for configuration {name}: not a number") from None
            if at_least is not None and value < at_least:
                raise ConfigException(f"Invalid value {value} for configuration {name}: must be at least {at_least}")
            values[field] = value
        return dataclasses.replace(defaults or cls(), **values)

    @staticmethod
    def config_names() -> list[str]:
        return sorted(CONFIG_DEF.names())

    @staticmethod
    def validate_names(props: Mapping[str, Any]) -> None:
        """An unknown topic config name is the client's error (INVALID_CONFIG), before any value is parsed."""
        names = CONFIG_DEF.names()
        for name in props:
            if name not in names:
                raise InvalidConfigurationException(f"Unknown topic config name: {name}")

    @staticmethod
    def validate(props: Mapping[str, Any]) -> None:
        """LogConfig.validate: the names, then ConfigDef.parse (a bad value raises common.config_def's
        ConfigException, which is no ApiException)."""
        LogConfig.validate_names(props)
        CONFIG_DEF.parse(props)

    def random_segment_jitter(self) -> int:
        if self.segment_jitter_ms == 0:
            return 0
        return random.randrange(2**31) % min(self.segment_jitter_ms, self.segment_ms)


def unclean_leader_election_enable(topic_config: Mapping[str, str], broker_default: bool) -> bool:
    """LogConfig.uncleanLeaderElectionEnable: the topic's override if it has one, else the broker's default."""
    override = topic_config.get("unclean.leader.election.enable")
    return broker_default if override is None else override.lower() == "true"
