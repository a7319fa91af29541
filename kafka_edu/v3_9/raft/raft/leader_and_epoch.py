"""Port of raft/src/main/java/org/apache/kafka/raft/LeaderAndEpoch.java (Kafka 3.9)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar


@dataclass(frozen=True)
class LeaderAndEpoch:
    """The leader of an epoch as this replica knows it; `leader_id` None while the epoch has no known leader."""

    leader_id: int | None
    epoch: int

    UNKNOWN: ClassVar[LeaderAndEpoch]

    def is_leader(self, node_id: int) -> bool:
        return self.leader_id is not None and self.leader_id == node_id

    def __str__(self) -> str:
        return f"LeaderAndEpoch(leaderId={self.leader_id if self.leader_id is not None else 'empty'}, " \
               f"epoch={self.epoch})"


LeaderAndEpoch.UNKNOWN = LeaderAndEpoch(None, 0)
