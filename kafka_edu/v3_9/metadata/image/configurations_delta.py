"""Port of metadata/src/main/java/org/apache/kafka/image/ConfigurationsDelta.java (Kafka 3.9)."""

from __future__ import annotations

from typing import Any

from kafka_edu.v3_9.metadata.controller.configuration_control_manager import ConfigResource, ConfigResourceType
from kafka_edu.v3_9.metadata.image.configuration_delta import ConfigurationDelta
from kafka_edu.v3_9.metadata.image.configuration_image import ConfigurationImage
from kafka_edu.v3_9.metadata.image.configurations_image import ConfigurationsImage
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion


class ConfigurationsDelta:
    """Config changes since `image`, one ConfigurationDelta per resource touched."""

    def __init__(self, image: ConfigurationsImage) -> None:
        self.image = image
        self._changes: dict[ConfigResource, ConfigurationDelta] = {}

    def changes(self) -> dict[ConfigResource, ConfigurationDelta]:
        return self._changes

    def finish_snapshot(self) -> None:
        for resource, config_image in self.image.resource_data().items():
            config_delta = self._changes.setdefault(resource, ConfigurationDelta(config_image))
            config_delta.finish_snapshot()

    def handle_metadata_version_change(self, new_version: MetadataVersion) -> None:
        pass  # nothing in the configurations image depends on it

    def replay(self, record: Any) -> None:
        resource: ConfigResource = (ConfigResourceType(record.resource_type), record.resource_name)
        config_image = self.image.resource_data().get(resource)
        if config_image is None:
            config_image = ConfigurationImage(resource, {})
        delta = self._changes.setdefault(resource, ConfigurationDelta(config_image))
        delta.replay(record)

    def replay_remove_topic(self, record: Any, topic_name: str) -> None:
        """A deleted topic's configs go with it."""
        resource: ConfigResource = (ConfigResourceType.TOPIC, topic_name)
        config_image = self.image.resource_data().get(resource)
        if config_image is not None:
            delta = self._changes.setdefault(resource, ConfigurationDelta(config_image))
            delta.delete_all()

    def apply(self) -> ConfigurationsImage:
        new_data: dict[ConfigResource, ConfigurationImage] = {}
        for resource, config_image in self.image.resource_data().items():
            delta = self._changes.get(resource)
            if delta is None:
                new_data[resource] = config_image
            else:
                new_image = delta.apply()
                if not new_image.is_empty():
                    new_data[resource] = new_image
        for resource, delta in self._changes.items():
            if resource not in new_data:
                new_image = delta.apply()
                if not new_image.is_empty():
                    new_data[resource] = new_image
        return ConfigurationsImage(new_data)

    def __str__(self) -> str:
        return f"ConfigurationsDelta(changes={self._changes})"
