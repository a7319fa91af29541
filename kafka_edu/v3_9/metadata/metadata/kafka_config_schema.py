"""Port of metadata/src/main/java/org/apache/kafka/metadata/KafkaConfigSchema.java (Kafka 3.9), with the ConfigEntry
(clients/src/main/java/org/apache/kafka/clients/admin/ConfigEntry.java) it resolves configs to.

What the controller knows of config keys without depending on core: their types (a LIST may be appended to, a
PASSWORD is sensitive), their defaults, and, for topics, which broker configs stand in for them.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kafka_edu.v1_0_2.clients.common.config.config_def import ConfigDef, ConfigKey, Password, Type
from kafka_edu.v3_9.server_common.server.config.server_topic_config_synonyms import ConfigSynonym


class ConfigSource(enum.IntEnum):
    """ConfigEntry.ConfigSource, numbered as DescribeConfigsResponse.ConfigSource (translateConfigSource) puts it on
    the wire."""

    UNKNOWN = 0
    DYNAMIC_TOPIC_CONFIG = 1
    DYNAMIC_BROKER_CONFIG = 2
    DYNAMIC_DEFAULT_BROKER_CONFIG = 3
    STATIC_BROKER_CONFIG = 4
    DEFAULT_CONFIG = 5
    DYNAMIC_BROKER_LOGGER_CONFIG = 6
    DYNAMIC_CLIENT_METRICS_CONFIG = 7


@dataclass(frozen=True)
class ConfigEntry:
    name: str
    value: str | None
    source: ConfigSource = ConfigSource.UNKNOWN
    is_sensitive: bool = False
    is_read_only: bool = False
    type: Type | None = None


def is_sensitive_type(type_: Type) -> bool:
    return type_ is Type.PASSWORD


def convert_to_string(parsed_value: Any, type_: Type) -> str | None:
    """ConfigDef.convertToString."""
    if parsed_value is None:
        return None
    if type_ is Type.PASSWORD:
        return parsed_value.value() if isinstance(parsed_value, Password) else str(parsed_value)
    if type_ is Type.LIST:
        return ",".join(str(v) for v in parsed_value)
    if type_ is Type.BOOLEAN:
        return "true" if parsed_value else "false"
    return str(parsed_value)


_EMPTY_CONFIG_DEF = ConfigDef()
_TOPIC = 2  # ConfigResource.Type.TOPIC (an int-valued enum in the port, so either form finds the topic ConfigDef)


class KafkaConfigSchema:
    def __init__(self, config_defs: Mapping[Any, ConfigDef],
                 log_config_synonyms: Mapping[str, list[ConfigSynonym]]) -> None:
        """`config_defs` by ConfigResource type (ConfigResourceType.TOPIC, BROKER)."""
        self._config_defs = dict(config_defs)
        self._log_config_synonyms = dict(log_config_synonyms)

    def _config_key(self, resource_type: Any, key: str) -> ConfigKey | None:
        config_def = self._config_defs.get(resource_type)
        return None if config_def is None else config_def.config_keys.get(key)

    def is_splittable(self, resource_type: Any, key: str) -> bool:
        """Only a LIST may be appended to or subtracted from."""
        config_key = self._config_key(resource_type, key)
        return config_key is not None and config_key.type is Type.LIST

    def is_sensitive(self, resource_type: Any, key: str) -> bool:
        """True too when the key is unknown: then nobody can tell."""
        config_key = self._config_key(resource_type, key)
        return config_key is None or is_sensitive_type(config_key.type)

    def get_default(self, resource_type: Any, key: str) -> str | None:
        config_key = self._config_key(resource_type, key)
        if config_key is None or not config_key.has_default():
            return None
        return convert_to_string(config_key.default_value, config_key.type)

    def resolve_effective_topic_configs(self, static_node_config: Mapping[str, Any],
                                        dynamic_cluster_configs: Mapping[str, Any],
                                        dynamic_node_configs: Mapping[str, Any],
                                        dynamic_topic_configs: Mapping[str, Any]) -> dict[str, ConfigEntry]:
        config_def = self._config_defs.get(_TOPIC, _EMPTY_CONFIG_DEF)
        effective_configs = {}
        for config_key in config_def.config_keys.values():
            entry = self._resolve(config_key, static_node_config, dynamic_cluster_configs, dynamic_node_configs,
                                  dynamic_topic_configs)
            effective_configs[entry.name] = entry
        return effective_configs

    def resolve_effective_topic_config(self, key_name: str, static_node_config: Mapping[str, Any],
                                       dynamic_cluster_configs: Mapping[str, Any],
                                       dynamic_node_configs: Mapping[str, Any],
                                       dynamic_topic_configs: Mapping[str, Any]) -> ConfigEntry:
        config_def = self._config_defs.get(_TOPIC, _EMPTY_CONFIG_DEF)
        config_key = config_def.config_keys.get(key_name)
        if config_key is None:
            raise KeyError(f"No topic config {key_name} in the schema")
        return self._resolve(config_key, static_node_config, dynamic_cluster_configs, dynamic_node_configs,
                             dynamic_topic_configs)

    def _resolve(self, config_key: ConfigKey, static_node_config: Mapping[str, Any],
                 dynamic_cluster_configs: Mapping[str, Any], dynamic_node_configs: Mapping[str, Any],
                 dynamic_topic_configs: Mapping[str, Any]) -> ConfigEntry:
        """The topic's own value, else the first broker synonym set dynamically on this node, then cluster-wide,
        then statically; else the topic config's default."""
        if config_key.name in dynamic_topic_configs:
            return _to_config_entry(config_key, dynamic_topic_configs[config_key.name],
                                    ConfigSource.DYNAMIC_TOPIC_CONFIG, _identity)
        synonyms = self._log_config_synonyms.get(config_key.name, [])
        for configs, source in ((dynamic_node_configs, ConfigSource.DYNAMIC_BROKER_CONFIG),
                                (dynamic_cluster_configs, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG),
                                (static_node_config, ConfigSource.STATIC_BROKER_CONFIG)):
            for synonym in synonyms:
                if synonym.name in configs:
                    return _to_config_entry(config_key, configs[synonym.name], source, synonym.converter)
        return _to_config_entry(config_key, config_key.default_value if config_key.has_default() else None,
                                ConfigSource.DEFAULT_CONFIG, _identity)


def _identity(value: str) -> str:
    return value


def _to_config_entry(config_key: ConfigKey, value: Any, source: ConfigSource,
                     converter: Callable[[str], str]) -> ConfigEntry:
    string_value = None
    if value is not None:
        if isinstance(value, str):
            string_value = value
        elif isinstance(value, Password):
            string_value = value.value()  # the real value: only internal callers see it
        else:
            try:
                string_value = convert_to_string(value, config_key.type)
            except Exception as e:
                raise RuntimeError(f"Unable to convert {config_key.name} to string.") from e
    if string_value is not None:
        string_value = converter(string_value)
    return ConfigEntry(config_key.name, string_value, source, is_sensitive_type(config_key.type), False,
                       config_key.type)


EMPTY = KafkaConfigSchema({}, {})
