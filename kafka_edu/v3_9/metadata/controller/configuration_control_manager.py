"""Port of metadata/src/main/java/org/apache/kafka/controller/ConfigurationControlManager.java (Kafka 3.9), the
part topic creation uses: dynamic configs per resource, set by ConfigRecords.

Validation against KafkaConfigSchema, alter-config policies and the broker-logger resources are left out.
"""

from __future__ import annotations

import enum
import logging
from typing import Any

from kafka_edu.v3_9.metadata.common.metadata import ApiMessageAndVersion, ConfigRecord
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import LATEST_EPOCH, SnapshotRegistry
from kafka_edu.v3_9.server_common.timeline.timeline_hash_map import TimelineHashMap

log = logging.getLogger(__name__)


class ConfigResourceType(enum.IntEnum):
    """org.apache.kafka.common.config.ConfigResource.Type: the ids ConfigRecord.resourceType carries."""

    BROKER_LOGGER = 8
    BROKER = 4
    TOPIC = 2
    UNKNOWN = 0
    CLIENT_METRICS = 16
    GROUP = 32


ConfigResource = tuple[ConfigResourceType, str]


class ConfigurationControlManager:
    def __init__(self, snapshot_registry: SnapshotRegistry, log_context: str = "") -> None:
        self._log_prefix = log_context
        self._snapshot_registry = snapshot_registry
        self._config_data: TimelineHashMap[ConfigResource, TimelineHashMap[str, str]] = \
            TimelineHashMap(snapshot_registry)

    def incremental_alter_config(self, config_resource: ConfigResource, key_to_ops: dict[str, tuple[str, str | None]],
                                 new_topic: bool, records_out: list[Any]) -> None:
        """Records for SET/DELETE operations on one resource (topic creation passes its configs as SETs)."""

        for key, (op, value) in key_to_ops.items():
            if op == "SET":
                new_value = value
            elif op == "DELETE":
                new_value = None
            else:
                raise ValueError(f"Unsupported config operation {op}")
            current = None if new_topic else self.get_config_value(config_resource, key)
            if new_value != current or new_topic:
                records_out.append(ApiMessageAndVersion(ConfigRecord(
                    resource_type=int(config_resource[0]), resource_name=config_resource[1], name=key,
                    value=new_value), 0))

    def replay(self, record: Any) -> None:
        """ConfigRecord: set one config of one resource, or remove it (null value)."""
        resource: ConfigResource = (ConfigResourceType(record.resource_type), record.resource_name)
        configs = self._config_data.get(resource)
        if configs is None:
            configs = TimelineHashMap(self._snapshot_registry)
        if record.value is None:
            configs.remove(record.name)
        else:
            configs.put(record.name, record.value)
        if configs.is_empty():
            self._config_data.remove(resource)
        else:
            self._config_data.put(resource, configs)
        log.info("%sReplayed ConfigRecord for %s which set configuration %s to %s", self._log_prefix, resource,
                 record.name, record.value)

    def get_configs(self, config_resource: ConfigResource, epoch: int = LATEST_EPOCH) -> dict[str, str]:
        configs = self._config_data.get(config_resource, epoch) if epoch != LATEST_EPOCH else \
            self._config_data.get(config_resource)
        return {} if configs is None else dict(configs.entry_set(epoch))

    def get_config_value(self, config_resource: ConfigResource, key: str) -> str | None:
        configs = self._config_data.get(config_resource)
        return None if configs is None else configs.get(key)

    def delete_topic_configs(self, name: str) -> None:
        """A topic's configs go with it (RemoveTopicRecord)."""
        self._config_data.remove((ConfigResourceType.TOPIC, name))
