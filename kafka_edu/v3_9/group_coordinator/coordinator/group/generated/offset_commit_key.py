"""Port of group-coordinator/src/main/resources/common/message/OffsetCommitKey.json (Kafka 3.9).

A kio-style frozen dataclass, as the other records of this package, with every version of the JSON: versions 0 and
1 have the same layout (1.0.2 already wrote both) and are the record types 0 and 1 of __consumer_offsets. Not
flexible. message_codec reads and writes it at a version.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from kio.static.constants import EntityType


@dataclass(frozen=True, slots=True, kw_only=True)
class OffsetCommitKey:
    """The key of a committed offset: the group and the partition it was committed for."""

    __type__: ClassVar = EntityType.data
    __valid_versions__: ClassVar[str] = "0-1"
    __flexible_versions__: ClassVar[str] = "none"
    group: str = field(metadata={"kafka_type": "string", "versions": "0-1"}, default="")
    topic: str = field(metadata={"kafka_type": "string", "versions": "0-1"}, default="")
    partition: int = field(metadata={"kafka_type": "int32", "versions": "0-1"}, default=0)
