"""Port of metadata/src/main/java/org/apache/kafka/image/ConfigurationImage.java (Kafka 3.9)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from kafka_edu.v3_9.metadata.common.metadata import ConfigRecord
from kafka_edu.v3_9.metadata.controller.configuration_control_manager import ConfigResource
from kafka_edu.v3_9.metadata.image.writer.image_writer import ImageWriter
from kafka_edu.v3_9.metadata.image.writer.image_writer_options import ImageWriterOptions


@dataclass(frozen=True)
class ConfigurationImage:
    """The dynamic configs of one resource (a topic, a broker, or the cluster-wide broker default)."""

    resource: ConfigResource
    data: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "data", MappingProxyType(dict(self.data)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ConfigurationImage) and dict(self.data) == dict(other.data)

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.data.items())))

    def is_empty(self) -> bool:
        return not self.data

    def to_properties(self) -> dict[str, str]:
        return dict(self.data)

    def write(self, writer: ImageWriter, options: ImageWriterOptions) -> None:
        resource_type, resource_name = self.resource
        for name, value in self.data.items():
            writer.write(0, ConfigRecord(resource_type=int(resource_type), resource_name=resource_name, name=name,
                                         value=value))

    def __str__(self) -> str:
        # values left out: a config may be a secret
        return f"ConfigurationImage(resource={self.resource}, keys={sorted(self.data)})"
