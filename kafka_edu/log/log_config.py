"""Port of core/src/main/scala/kafka/log/LogConfig.scala (Kafka 1.0.2), limited to what a Log reads."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

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
}

# String-valued topic properties -> (field, allowed values); cleanup.policy is a comma-separated list of them.
_STRING_PROPS: dict[str, tuple[str, tuple[str, ...]]] = {
    "cleanup.policy": ("cleanup_policy", ("delete", "compact")),
    "compression.type": ("compression_type", ("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")),
    "message.timestamp.type": ("message_timestamp_type", ("CreateTime", "LogAppendTime")),
}


class ConfigException(ValueError):
    """org.apache.kafka.common.config.ConfigException: a property value is out of range or not a number."""


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

    @property
    def compact(self) -> bool:
        return "compact" in self.cleanup_policy.split(",")

    @property
    def delete(self) -> bool:
        return "delete" in self.cleanup_policy.split(",")

    @classmethod
    def from_props(cls, props: Mapping[str, Any], defaults: LogConfig | None = None) -> LogConfig:
        """Build from Kafka topic property names ("segment.bytes": "1048576"); unknown names are ignored."""
        values: dict[str, int | str] = {}
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

    def random_segment_jitter(self) -> int:
        if self.segment_jitter_ms == 0:
            return 0
        return random.randrange(2**31) % min(self.segment_jitter_ms, self.segment_ms)


def unclean_leader_election_enable(topic_config: Mapping[str, str], broker_default: bool) -> bool:
    """LogConfig.uncleanLeaderElectionEnable: the topic's override if it has one, else the broker's default."""
    override = topic_config.get("unclean.leader.election.enable")
    return broker_default if override is None else override.lower() == "true"
