"""Port of metadata/src/main/resources/common/metadata/ProducerIdsRecord.json (Kafka 3.9)."""

from dataclasses import dataclass, field
from typing import ClassVar

from kio.schema.types import BrokerId
from kio.static.constants import EntityType
from kio.static.primitive import i16, i64


@dataclass(frozen=True, slots=True, kw_only=True)
class ProducerIdsRecord:
    """A block of producer ids handed to a broker (AllocateProducerIds); the next block starts at next_producer_id."""

    __type__: ClassVar = EntityType.data
    __version__: ClassVar[i16] = i16(0)
    __flexible__: ClassVar[bool] = True
    __api_key__: ClassVar[i16] = i16(15)
    broker_id: BrokerId = field(metadata={"kafka_type": "int32"})
    broker_epoch: i64 = field(metadata={"kafka_type": "int64"}, default=i64(-1))
    next_producer_id: i64 = field(metadata={"kafka_type": "int64"})
