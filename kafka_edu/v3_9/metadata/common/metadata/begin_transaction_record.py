"""Port of metadata/src/main/resources/common/metadata/BeginTransactionRecord.json (Kafka 3.9)."""

from dataclasses import dataclass, field
from typing import ClassVar

from kio.static.constants import EntityType
from kio.static.primitive import i16


@dataclass(frozen=True, slots=True, kw_only=True)
class BeginTransactionRecord:
    """Opens a metadata transaction: the records up to EndTransactionRecord apply together or not at all."""

    __type__: ClassVar = EntityType.data
    __version__: ClassVar[i16] = i16(0)
    __flexible__: ClassVar[bool] = True
    __api_key__: ClassVar[i16] = i16(23)
    name: str | None = field(metadata={"kafka_type": "string", "tag": 0}, default=None)
    """What the transaction is for, e.g. "Bootstrap records"."""
