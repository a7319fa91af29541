"""Port of metadata/src/main/resources/common/metadata/AbortTransactionRecord.json (Kafka 3.9)."""

from dataclasses import dataclass, field
from typing import ClassVar

from kio.static.constants import EntityType
from kio.static.primitive import i16


@dataclass(frozen=True, slots=True, kw_only=True)
class AbortTransactionRecord:
    """Discards the open metadata transaction (a new active controller finding one left half-written)."""

    __type__: ClassVar = EntityType.data
    __version__: ClassVar[i16] = i16(0)
    __flexible__: ClassVar[bool] = True
    __api_key__: ClassVar[i16] = i16(25)
    reason: str | None = field(metadata={"kafka_type": "string", "tag": 0}, default=None)
