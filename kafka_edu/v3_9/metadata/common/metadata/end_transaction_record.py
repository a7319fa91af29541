"""Port of metadata/src/main/resources/common/metadata/EndTransactionRecord.json (Kafka 3.9)."""

from dataclasses import dataclass
from typing import ClassVar

from kio.static.constants import EntityType
from kio.static.primitive import i16


@dataclass(frozen=True, slots=True, kw_only=True)
class EndTransactionRecord:
    """Closes the metadata transaction BeginTransactionRecord opened."""

    __type__: ClassVar = EntityType.data
    __version__: ClassVar[i16] = i16(0)
    __flexible__: ClassVar[bool] = True
    __api_key__: ClassVar[i16] = i16(24)
