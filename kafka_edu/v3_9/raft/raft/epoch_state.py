"""Port of raft/src/main/java/org/apache/kafka/raft/EpochState.java (Kafka 3.9)."""

from __future__ import annotations

from abc import ABC, abstractmethod

from kafka_edu.v3_9.raft.raft.election_state import ElectionState
from kafka_edu.v3_9.raft.raft.endpoints import Endpoints
from kafka_edu.v3_9.raft.raft.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey


class EpochState(ABC):
    """One role of the replica within one epoch."""

    def high_watermark(self) -> LogOffsetMetadata | None:
        return None

    @abstractmethod
    def can_grant_vote(self, candidate_key: ReplicaKey, is_log_up_to_date: bool) -> bool:
        """Whether this replica, in this role, would vote for `candidate_key` in this epoch."""

    @abstractmethod
    def election(self) -> ElectionState:
        """What this role writes to `quorum-state`."""

    @abstractmethod
    def epoch(self) -> int: ...

    @abstractmethod
    def leader_endpoints(self) -> Endpoints: ...

    @abstractmethod
    def name(self) -> str: ...

    def close(self) -> None:  # noqa: B027 (a role holding nothing closes as a no-op)
        """Release what the role holds (a leader's accumulator, a follower's partial snapshot)."""
