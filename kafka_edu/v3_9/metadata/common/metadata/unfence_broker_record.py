"""Port of metadata/src/main/resources/common/metadata/UnfenceBrokerRecord.json (Kafka 3.9)."""

from dataclasses import dataclass, field
from typing import ClassVar

from kio.schema.types import BrokerId
from kio.static.constants import EntityType
from kio.static.primitive import i16, i64


@dataclass(frozen=True, slots=True, kw_only=True)
class UnfenceBrokerRecord:
    """Unfence a broker; written only below metadata.version 3.3-IV2 (BrokerRegistrationChangeRecord since)."""

    __type__: ClassVar = EntityType.data
    __version__: ClassVar[i16] = i16(0)
    __flexible__: ClassVar[bool] = True
    __api_key__: ClassVar[i16] = i16(8)
    id: BrokerId = field(metadata={"kafka_type": "int32"})
    epoch: i64 = field(metadata={"kafka_type": "int64"})
