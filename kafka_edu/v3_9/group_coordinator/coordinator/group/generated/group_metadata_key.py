"""Port of group-coordinator/src/main/resources/common/message/GroupMetadataKey.json (Kafka 3.9).

A kio-style frozen dataclass, as the other records of this package. Its only version is 2, the record type of a
classic group's metadata in __consumer_offsets. Not flexible.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from kio.static.constants import EntityType


@dataclass(frozen=True, slots=True, kw_only=True)
class GroupMetadataKey:
    """The key of a classic group's metadata record."""

    __type__: ClassVar = EntityType.data
    __valid_versions__: ClassVar[str] = "2"
    __flexible_versions__: ClassVar[str] = "none"
    group: str = field(metadata={"kafka_type": "string", "versions": "2"}, default="")
