"""Port of group-coordinator/src/main/resources/common/message/ConsumerGroupPartitionMetadataKey.json (Kafka 3.9).

A kio-style frozen dataclass, as the other records of this package. Keys are not flexible; their version is the record
type stored in __consumer_offsets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from kio.static.constants import EntityType
from kio.static.primitive import i16


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsumerGroupPartitionMetadataKey:
    """The key of a consumer group's subscription metadata record."""

    __type__: ClassVar = EntityType.data
    __version__: ClassVar[i16] = i16(4)
    __flexible__: ClassVar[bool] = False
    group_id: str = field(metadata={"kafka_type": "string"}, default="")
