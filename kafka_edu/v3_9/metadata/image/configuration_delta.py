"""Port of metadata/src/main/java/org/apache/kafka/image/ConfigurationDelta.java (Kafka 3.9)."""

from __future__ import annotations

from typing import Any

from kafka_edu.v3_9.metadata.image.configuration_image import ConfigurationImage


class ConfigurationDelta:
    """Configs of one resource set or deleted since `image` (None: deleted)."""

    def __init__(self, image: ConfigurationImage) -> None:
        self.image = image
        self._changes: dict[str, str | None] = {}

    def finish_snapshot(self) -> None:
        for key in self.image.data:
            if key not in self._changes:
                self._changes[key] = None

    def replay(self, record: Any) -> None:
        self._changes[record.name] = record.value

    def delete_all(self) -> None:
        self._changes.clear()
        for key in self.image.data:
            self._changes[key] = None

    def apply(self) -> ConfigurationImage:
        new_data: dict[str, str] = {}
        for key, value in self.image.data.items():
            if key not in self._changes:
                new_data[key] = value
            elif self._changes[key] is not None:
                new_data[key] = self._changes[key]  # type: ignore[assignment]
        for key, change in self._changes.items():
            if key not in new_data and change is not None:
                new_data[key] = change
        return ConfigurationImage(self.image.resource, new_data)

    def __str__(self) -> str:
        # values left out: a config may be a secret
        return f"ConfigurationDelta(changedKeys={list(self._changes)})"
