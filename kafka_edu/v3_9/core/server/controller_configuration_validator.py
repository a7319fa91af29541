"""Port of core/src/main/scala/kafka/server/ControllerConfigurationValidator.scala (Kafka 3.9): what the controller
checks before it writes ConfigRecords (for a new topic's configs, among others).

Client-metrics resources are not built, so they are refused as an unknown resource type would be.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import InvalidConfigurationException, InvalidRequestException
from kafka_edu.v3_9.clients.common.internals import topic as Topic
from kafka_edu.v3_9.metadata.controller.configuration_control_manager import ConfigResourceType
from kafka_edu.v3_9.metadata.controller.configuration_validator import ConfigurationValidator
from kafka_edu.v3_9.storage.storage.internals.log import log_config as LogConfig


class ControllerConfigurationValidator(ConfigurationValidator):
    def __init__(self, log_config_map: Mapping[str, Any] | None = None,
                 is_remote_storage_system_enabled: bool = False) -> None:
        """`log_config_map`: KafkaConfig.extractLogConfigMap, the broker's value of each topic config; by default
        every topic config's default, as a broker that sets none of its log.* configs has them."""
        self._log_config_map = dict(log_config_map) if log_config_map is not None else {
            name: key.default_value for name, key in LogConfig.CONFIG.config_keys.items()}
        self._is_remote_storage_system_enabled = is_remote_storage_system_enabled

    @staticmethod
    def _validate_topic_name(name: str) -> None:
        if not name:
            raise InvalidRequestException("Default topic resources are not allowed.")
        Topic.validate(name)

    @staticmethod
    def _validate_broker_name(name: str) -> None:
        if name:
            try:
                broker_id = int(name, 10)
            except ValueError:
                raise InvalidRequestException("Unable to parse broker name as a base 10 number.") from None
            if broker_id < 0:
                raise InvalidRequestException("Invalid negative broker ID.")

    @staticmethod
    def _throw_exception_for_unknown_resource_type(resource: Any) -> None:
        raise InvalidRequestException(f"Unknown resource type {ConfigResourceType(resource[0]).name}")

    def validate_resource(self, resource: Any) -> None:
        resource_type, name = resource
        if resource_type == ConfigResourceType.TOPIC:
            self._validate_topic_name(name)
        elif resource_type == ConfigResourceType.BROKER:
            self._validate_broker_name(name)
        else:
            self._throw_exception_for_unknown_resource_type(resource)

    def validate(self, resource: Any, new_configs: Mapping[str, str | None],
                 existing_configs: Mapping[str, str]) -> None:
        resource_type, name = resource
        if resource_type == ConfigResourceType.TOPIC:
            self._validate_topic_name(name)
            properties = {}
            null_topic_configs = []
            for key, value in new_configs.items():
                if value is None:
                    null_topic_configs.append(key)
                else:
                    properties[key] = value
            if null_topic_configs:
                raise InvalidConfigurationException("Null value not supported for topic configs: "
                                                    + ",".join(null_topic_configs))
            LogConfig.validate(existing_configs, properties, self._log_config_map,
                               self._is_remote_storage_system_enabled)
        elif resource_type == ConfigResourceType.BROKER:
            self._validate_broker_name(name)
        else:
            self._throw_exception_for_unknown_resource_type(resource)
