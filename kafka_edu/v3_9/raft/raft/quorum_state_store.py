"""Port of raft/src/main/java/org/apache/kafka/raft/QuorumStateStore.java (Kafka 3.9)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path

from kafka_edu.v3_9.raft.raft.election_state import ElectionState


class QuorumStateStore(ABC):
    """Where a replica keeps its election state across restarts."""

    @abstractmethod
    def read_election_state(self) -> ElectionState | None:
        """The stored state, None if nothing is stored yet."""

    @abstractmethod
    def write_election_state(self, latest: ElectionState, kraft_version: int) -> None:
        """Store `latest` durably before returning."""

    @abstractmethod
    def path(self) -> Path: ...

    @abstractmethod
    def clear(self) -> None: ...
