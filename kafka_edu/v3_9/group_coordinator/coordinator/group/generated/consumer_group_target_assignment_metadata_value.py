"""Port of group-coordinator/src/main/resources/common/message/ConsumerGroupTargetAssignmentMetadataValue.json (Kafka
3.9).

A kio-style frozen dataclass, as the other records of this package. Its only version is 0, flexible.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from kio.static.constants import EntityType
from kio.static.primitive import i16


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsumerGroupTargetAssignmentMetadataValue:
    """The epoch of a consumer group's target assignment."""

    __type__: ClassVar = EntityType.data
    __version__: ClassVar[i16] = i16(0)
    __flexible__: ClassVar[bool] = True
    assignment_epoch: int = field(metadata={"kafka_type": "int32"}, default=0)
