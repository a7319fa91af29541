"""Port of server-common/src/main/java/org/apache/kafka/server/common/OffsetAndEpoch.java (Kafka 3.9): an offset and a
leader epoch, as a follower's fetcher and the leader endpoint exchange them (raft has its own OffsetAndEpoch)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OffsetAndEpoch:
    offset: int
    leader_epoch: int

    def __str__(self) -> str:
        return f"(offset={self.offset}, leaderEpoch={self.leader_epoch})"
