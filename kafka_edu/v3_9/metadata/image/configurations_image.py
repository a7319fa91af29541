"""Port of metadata/src/main/java/org/apache/kafka/image/ConfigurationsImage.java (Kafka 3.9)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import ClassVar

from kafka_edu.v3_9.metadata.controller.configuration_control_manager import ConfigResource
from kafka_edu.v3_9.metadata.image.configuration_image import ConfigurationImage
from kafka_edu.v3_9.metadata.image.writer.image_writer import ImageWriter
from kafka_edu.v3_9.metadata.image.writer.image_writer_options import ImageWriterOptions


@dataclass(frozen=True)
class ConfigurationsImage:
    """Every resource's dynamic configs, by ConfigResource (type, name)."""

    EMPTY: ClassVar[ConfigurationsImage]

    data: Mapping[ConfigResource, ConfigurationImage] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "data", MappingProxyType(dict(self.data)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ConfigurationsImage) and dict(self.data) == dict(other.data)

    def __hash__(self) -> int:
        return hash(frozenset(self.data))

    def is_empty(self) -> bool:
        return not self.data

    def resource_data(self) -> Mapping[ConfigResource, ConfigurationImage]:
        return self.data

    def config_properties(self, config_resource: ConfigResource) -> dict[str, str]:
        configuration_image = self.data.get(config_resource)
        return {} if configuration_image is None else configuration_image.to_properties()

    def config_map_for_resource(self, config_resource: ConfigResource) -> dict[str, str]:
        return self.config_properties(config_resource)

    def write(self, writer: ImageWriter, options: ImageWriterOptions) -> None:
        for configuration_image in self.data.values():
            configuration_image.write(writer, options)

    def __str__(self) -> str:
        return f"ConfigurationsImage(resources={list(self.data)})"


ConfigurationsImage.EMPTY = ConfigurationsImage({})
