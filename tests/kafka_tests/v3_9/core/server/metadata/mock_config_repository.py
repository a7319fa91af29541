"""Port of core/src/test/scala/kafka/server/metadata/MockConfigRepository.scala (Kafka 3.9): a ConfigRepository
holding configs set by the test."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

TOPIC = "TOPIC"  # ConfigResource.Type.TOPIC
BROKER = "BROKER"


class MockConfigRepository:
    """Configs by ConfigResource, here a (type, name) pair."""

    def __init__(self) -> None:
        self.configs: dict[tuple[str, str], dict[str, Any]] = {}
        self._lock = threading.Lock()

    @staticmethod
    def for_topic(topic: str, key_or_properties: str | Mapping[str, Any], value: str | None = None
                  ) -> MockConfigRepository:
        properties = {key_or_properties: value} if isinstance(key_or_properties, str) else dict(key_or_properties)
        repository = MockConfigRepository()
        repository.configs[(TOPIC, topic)] = properties
        return repository

    def config(self, config_resource: tuple[str, str]) -> dict[str, Any]:
        with self._lock:
            return dict(self.configs.get(config_resource, {}))

    def topic_config(self, topic_name: str) -> dict[str, Any]:
        return self.config((TOPIC, topic_name))

    def broker_config(self, broker_id: int) -> dict[str, Any]:
        return self.config((BROKER, str(broker_id)))

    def set_config(self, config_resource: tuple[str, str], key: str, value: str | None) -> None:
        with self._lock:
            new_properties = dict(self.configs.get(config_resource, {}))
            if value is None:
                new_properties.pop(key, None)
            else:
                new_properties[key] = value
            self.configs[config_resource] = new_properties

    def set_topic_config(self, topic_name: str, key: str, value: str | None) -> None:
        self.set_config((TOPIC, topic_name), key, value)
