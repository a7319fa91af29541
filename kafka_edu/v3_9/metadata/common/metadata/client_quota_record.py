"""Port of metadata/src/main/resources/common/metadata/ClientQuotaRecord.json (Kafka 3.9)."""

from dataclasses import dataclass, field
from typing import ClassVar

from kio.static.constants import EntityType
from kio.static.primitive import f64, i16


@dataclass(frozen=True, slots=True, kw_only=True)
class EntityData:
    __type__: ClassVar = EntityType.nested
    __version__: ClassVar[i16] = i16(0)
    __flexible__: ClassVar[bool] = True
    entity_type: str = field(metadata={"kafka_type": "string"})
    """"user", "client-id" or "ip"."""
    entity_name: str | None = field(metadata={"kafka_type": "string"})
    """None for the default entity of that type."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientQuotaRecord:
    """One quota key of one entity (a user, a client id, both, or an ip) set, or removed."""

    __type__: ClassVar = EntityType.data
    __version__: ClassVar[i16] = i16(0)
    __flexible__: ClassVar[bool] = True
    __api_key__: ClassVar[i16] = i16(14)
    entity: tuple[EntityData, ...]
    key: str = field(metadata={"kafka_type": "string"})
    value: f64 = field(metadata={"kafka_type": "float64"}, default=f64(0.0))
    """Ignored when `remove` is set."""
    remove: bool = field(metadata={"kafka_type": "bool"}, default=False)
