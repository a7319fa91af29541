"""Port of server-common/src/main/java/org/apache/kafka/server/config/ServerTopicConfigSynonyms.java (Kafka 3.9),
with ConfigSynonym.java: for each topic config, the broker configs that give its default, in order of precedence."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

log = logging.getLogger(__name__)

LOG_PREFIX = "log."
LOG_CLEANER_PREFIX = LOG_PREFIX + "cleaner."


def _value_to_int(value: str | None, default_value: int, what: str) -> int:
    if value is None or not value.strip():
        return default_value
    try:
        return int(value.strip())
    except ValueError:
        log.error("%s failed: unable to parse '%s' as an integer.", what, value.strip())
        return default_value


def hours_to_milliseconds(value: str) -> str:
    return str(_value_to_int(value, 0, "hoursToMilliseconds") * 3_600_000)


def minutes_to_milliseconds(value: str) -> str:
    return str(_value_to_int(value, 0, "minutesToMilliseconds") * 60_000)


def _identity(value: str) -> str:
    return value


@dataclass(frozen=True)
class ConfigSynonym:
    """A broker config standing in for a topic config, and how its value converts (hours to ms, say)."""

    name: str
    converter: Callable[[str], str] = field(default=_identity, compare=False)


def _same_name(name: str) -> tuple[str, list[ConfigSynonym]]:
    return name, [ConfigSynonym(name)]


def _same_name_with_log_prefix(name: str) -> tuple[str, list[ConfigSynonym]]:
    return name, [ConfigSynonym(LOG_PREFIX + name)]


def _same_name_with_log_cleaner_prefix(name: str) -> tuple[str, list[ConfigSynonym]]:
    return name, [ConfigSynonym(LOG_CLEANER_PREFIX + name)]


def _single_with_log_prefix(topic_config_name: str, broker_config_name: str) -> tuple[str, list[ConfigSynonym]]:
    return topic_config_name, [ConfigSynonym(LOG_PREFIX + broker_config_name)]


def _single_with_log_cleaner_prefix(topic_config_name: str,
                                    broker_config_name: str) -> tuple[str, list[ConfigSynonym]]:
    return topic_config_name, [ConfigSynonym(LOG_CLEANER_PREFIX + broker_config_name)]


def _list_with_log_prefix(topic_config_name: str, *synonyms: ConfigSynonym) -> tuple[str, list[ConfigSynonym]]:
    return topic_config_name, [ConfigSynonym(LOG_PREFIX + s.name, s.converter) for s in synonyms]


def _single(topic_config_name: str, broker_config_name: str) -> tuple[str, list[ConfigSynonym]]:
    return topic_config_name, [ConfigSynonym(broker_config_name)]


ALL_TOPIC_CONFIG_SYNONYMS: dict[str, list[ConfigSynonym]] = dict([
    _same_name_with_log_prefix("segment.bytes"),
    _list_with_log_prefix("segment.ms", ConfigSynonym("roll.ms"), ConfigSynonym("roll.hours", hours_to_milliseconds)),
    _list_with_log_prefix("segment.jitter.ms", ConfigSynonym("roll.jitter.ms"),
                          ConfigSynonym("roll.jitter.hours", hours_to_milliseconds)),
    _single_with_log_prefix("segment.index.bytes", "index.size.max.bytes"),
    _single_with_log_prefix("flush.messages", "flush.interval.messages"),
    _list_with_log_prefix("flush.ms", ConfigSynonym("flush.interval.ms"), ConfigSynonym("flush.scheduler.interval.ms")),
    _same_name_with_log_prefix("retention.bytes"),
    _list_with_log_prefix("retention.ms", ConfigSynonym("retention.ms"),
                          ConfigSynonym("retention.minutes", minutes_to_milliseconds),
                          ConfigSynonym("retention.hours", hours_to_milliseconds)),
    _single("max.message.bytes", "message.max.bytes"),
    _same_name_with_log_prefix("index.interval.bytes"),
    _same_name_with_log_cleaner_prefix("delete.retention.ms"),
    _same_name_with_log_cleaner_prefix("min.compaction.lag.ms"),
    _same_name_with_log_cleaner_prefix("max.compaction.lag.ms"),
    _single_with_log_prefix("file.delete.delay.ms", "segment.delete.delay.ms"),
    _single_with_log_cleaner_prefix("min.cleanable.dirty.ratio", "min.cleanable.ratio"),
    _same_name_with_log_prefix("cleanup.policy"),
    _same_name("unclean.leader.election.enable"),
    _same_name("min.insync.replicas"),
    _same_name("compression.type"),
    _same_name("compression.gzip.level"),
    _same_name("compression.lz4.level"),
    _same_name("compression.zstd.level"),
    _same_name_with_log_prefix("preallocate"),
    _same_name_with_log_prefix("message.format.version"),
    _same_name_with_log_prefix("message.timestamp.type"),
    _same_name_with_log_prefix("message.timestamp.difference.max.ms"),
    _same_name_with_log_prefix("message.timestamp.before.max.ms"),
    _same_name_with_log_prefix("message.timestamp.after.max.ms"),
    _same_name_with_log_prefix("message.downconversion.enable"),
    _same_name_with_log_prefix("local.retention.ms"),
    _same_name_with_log_prefix("local.retention.bytes"),
])

TOPIC_CONFIG_SYNONYMS: dict[str, str] = {name: synonyms[0].name for name, synonyms in ALL_TOPIC_CONFIG_SYNONYMS.items()}


def server_synonym(topic_config_name: str) -> str:
    synonym = TOPIC_CONFIG_SYNONYMS.get(topic_config_name)
    if synonym is None:
        raise KeyError(f"No server synonym found for {topic_config_name}")
    return synonym
