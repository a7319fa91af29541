"""Port of group-coordinator/src/main/resources/common/message/OffsetCommitValue.json (Kafka 3.9).

A kio-style frozen dataclass, as the other records of this package, with every version of the JSON (0-4, flexible
from 4): version 0 is (offset, metadata, commitTimestamp); 1 adds expireTimestamp (what 1.0.2 writes); 2 drops it
again; 3 adds leaderEpoch after the offset; 4 is 3 made flexible. The fields a version has not got are ignorable:
written at that version they are left out, read back they hold their defaults. message_codec reads and writes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from kio.static.constants import EntityType


@dataclass(frozen=True, slots=True, kw_only=True)
class OffsetCommitValue:
    """A committed offset (the value of an OffsetCommitKey)."""

    __type__: ClassVar = EntityType.data
    __valid_versions__: ClassVar[str] = "0-4"
    __flexible_versions__: ClassVar[str] = "4+"
    offset: int = field(metadata={"kafka_type": "int64", "versions": "0+"}, default=0)
    leader_epoch: int = field(metadata={"kafka_type": "int32", "versions": "3+", "ignorable": True}, default=-1)
    metadata: str = field(metadata={"kafka_type": "string", "versions": "0+"}, default="")
    commit_timestamp: int = field(metadata={"kafka_type": "int64", "versions": "0+"}, default=0)
    expire_timestamp: int = field(metadata={"kafka_type": "int64", "versions": "1", "ignorable": True}, default=-1)
