"""Port of metadata/src/main/resources/common/metadata/FeatureLevelRecord.json (Kafka 3.9)."""

from dataclasses import dataclass, field
from typing import ClassVar

from kio.static.constants import EntityType
from kio.static.primitive import i16


@dataclass(frozen=True, slots=True, kw_only=True)
class FeatureLevelRecord:
    """A finalized feature level, e.g. metadata.version = 21 (3.9-IV0); level 0 removes the feature.

    It stays at version 0 for good: a log or snapshot opens with it, and every reader must be able to read it.
    """

    __type__: ClassVar = EntityType.data
    __version__: ClassVar[i16] = i16(0)
    __flexible__: ClassVar[bool] = True
    __api_key__: ClassVar[i16] = i16(12)
    name: str = field(metadata={"kafka_type": "string"})
    feature_level: i16 = field(metadata={"kafka_type": "int16"})
