"""Port of raft/src/main/java/org/apache/kafka/raft/ValidOffsetAndEpoch.java (Kafka 3.9)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch


class Kind(enum.Enum):
    DIVERGING = "DIVERGING"
    SNAPSHOT = "SNAPSHOT"
    VALID = "VALID"


@dataclass(frozen=True)
class ValidOffsetAndEpoch:
    """What the leader's log says of a follower's (fetch offset, last fetched epoch)."""

    kind: Kind
    offset_and_epoch: OffsetAndEpoch

    @staticmethod
    def diverging(offset_and_epoch: OffsetAndEpoch) -> ValidOffsetAndEpoch:
        return ValidOffsetAndEpoch(Kind.DIVERGING, offset_and_epoch)

    @staticmethod
    def snapshot(offset_and_epoch: OffsetAndEpoch) -> ValidOffsetAndEpoch:
        return ValidOffsetAndEpoch(Kind.SNAPSHOT, offset_and_epoch)

    @staticmethod
    def valid(offset_and_epoch: OffsetAndEpoch | None = None) -> ValidOffsetAndEpoch:
        return ValidOffsetAndEpoch(Kind.VALID, offset_and_epoch or OffsetAndEpoch(-1, -1))
