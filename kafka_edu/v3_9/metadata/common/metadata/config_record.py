"""Port of metadata/src/main/resources/common/metadata/ConfigRecord.json (Kafka 3.9)."""

from dataclasses import dataclass, field
from typing import ClassVar

from kio.static.constants import EntityType
from kio.static.primitive import i8, i16


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfigRecord:
    """One configuration key set (or, with value None, deleted) on a topic, a broker or the cluster."""

    __type__: ClassVar = EntityType.data
    __version__: ClassVar[i16] = i16(0)
    __flexible__: ClassVar[bool] = True
    __api_key__: ClassVar[i16] = i16(4)
    resource_type: i8 = field(metadata={"kafka_type": "int8"})
    """ConfigResource.Type id: 2 TOPIC, 4 BROKER, 8 BROKER_LOGGER."""
    resource_name: str = field(metadata={"kafka_type": "string"})
    """The topic name, the broker id as text, or "" for the cluster-wide default."""
    name: str = field(metadata={"kafka_type": "string"})
    value: str | None = field(metadata={"kafka_type": "string"})
