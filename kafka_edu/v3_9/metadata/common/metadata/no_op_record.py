"""Port of metadata/src/main/resources/common/metadata/NoOpRecord.json (Kafka 3.9)."""

from dataclasses import dataclass
from typing import ClassVar

from kio.static.constants import EntityType
from kio.static.primitive import i16


@dataclass(frozen=True, slots=True, kw_only=True)
class NoOpRecord:
    """Empty: the active controller appends one every metadata.max.idle.interval.ms so the high watermark moves."""

    __type__: ClassVar = EntityType.data
    __version__: ClassVar[i16] = i16(0)
    __flexible__: ClassVar[bool] = True
    __api_key__: ClassVar[i16] = i16(20)
