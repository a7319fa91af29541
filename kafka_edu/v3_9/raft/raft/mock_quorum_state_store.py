"""Port of raft/src/test/java/org/apache/kafka/raft/MockQuorumStateStore.java (Kafka 3.9): a quorum-state store in
memory. It keeps the QuorumStateData a write would put in the file and reads it back through ElectionState, so a
test sees what a restart would."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kafka_edu.v3_9.raft.raft.election_state import ElectionState
from kafka_edu.v3_9.raft.raft.quorum_state_store import QuorumStateStore


def quorum_state_version(kraft_version: int) -> int:
    """KRaftVersion.quorumStateVersion(): kraft.version 0 writes quorum-state v0, kraft.version 1 writes v1."""
    return 0 if kraft_version == 0 else 1


class MockQuorumStateStore(QuorumStateStore):
    def __init__(self) -> None:
        self._current: dict[str, Any] | None = None

    def read_election_state(self) -> ElectionState | None:
        return None if self._current is None else ElectionState.from_quorum_state_data(self._current)

    def write_election_state(self, latest: ElectionState, kraft_version: int) -> None:
        self._current = latest.to_quorum_state_data(quorum_state_version(kraft_version))

    def path(self) -> Path:
        return Path("mock-file")

    def clear(self) -> None:
        self._current = None
