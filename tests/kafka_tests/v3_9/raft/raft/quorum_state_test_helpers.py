"""Port of the raft test helpers QuorumStateTest uses (Kafka 3.9): raft/src/test/java/org/apache/kafka/raft/
MockQuorumStateStore.java, MockableRandom.java and the static builders of VoterSetTest.java."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.raft.raft.election_state import ElectionState
from kafka_edu.v3_9.raft.raft.endpoints import Endpoints
from kafka_edu.v3_9.raft.raft.quorum_state_store import QuorumStateStore
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey
from kafka_edu.v3_9.raft.raft.voter_set import VoterNode, VoterSet

DEFAULT_LISTENER_NAME = "LISTENER"  # VoterSetTest.DEFAULT_LISTENER_NAME: ListenerName.normalised("LISTENER")


def quorum_state_version(kraft_version: int) -> int:
    """KRaftVersion.quorumStateVersion(): kraft.version 0 writes quorum-state v0, kraft.version 1 writes v1."""
    return 0 if kraft_version == 0 else 1


class MockQuorumStateStore(QuorumStateStore):
    """Keeps the QuorumStateData a write would put in the file, and reads it back through ElectionState."""

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


class MockableRandom(random.Random):
    """A seeded Random whose bounded draws a test can fix. The port draws with `randrange(bound)` where Kafka calls
    `nextInt(bound)`, so that is the call mocked here."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self._next_int_function: Callable[[int], int | None] = lambda bound: None

    def mock_next_int(self, *args: int) -> None:
        """mockNextInt(returnValue), or mockNextInt(expectedBound, returnValue)."""
        if len(args) == 1:
            (return_value,) = args
            self._next_int_function = lambda bound: return_value
        else:
            expected_bound, return_value = args
            self._next_int_function = lambda bound: return_value if bound == expected_bound else None

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:  # type: ignore[override]
        if stop is not None or step != 1:
            return super().randrange(start, stop, step)
        drawn = super().randrange(start)  # Java's orElse(super.nextInt(bound)) always draws
        mocked = self._next_int_function(start)
        return drawn if mocked is None else mocked


def voter_node(replica_key: ReplicaKey) -> VoterNode:
    """VoterSetTest.voterNode(ReplicaKey): one listener, localhost:9990 + id."""
    return VoterNode(replica_key, Endpoints.from_inet_socket_addresses(
        {DEFAULT_LISTENER_NAME: ("localhost", 9990 + replica_key.id)}))


def voter_node_of_id(voter_id: int, with_directory_id: bool) -> VoterNode:
    """VoterSetTest.voterNode(int, boolean)."""
    return voter_node(ReplicaKey.of(voter_id, Uuid.random_uuid() if with_directory_id else ReplicaKey.NO_DIRECTORY_ID))


def voter_map(replicas: Iterable[int], with_directory_id: bool) -> dict[int, VoterNode]:
    """VoterSetTest.voterMap(IntStream, boolean)."""
    return {voter_id: voter_node_of_id(voter_id, with_directory_id) for voter_id in replicas}


def voter_map_of_keys(replicas: Iterable[ReplicaKey]) -> dict[int, VoterNode]:
    """VoterSetTest.voterMap(Stream<ReplicaKey>)."""
    return {key.id: voter_node(key) for key in replicas}


def voter_set(voters: Mapping[int, VoterNode]) -> VoterSet:
    """VoterSetTest.voterSet(Map): VoterSet.fromMap."""
    return VoterSet(voters)


def voter_set_of_keys(voter_keys: Iterable[ReplicaKey]) -> VoterSet:
    """VoterSetTest.voterSet(Stream<ReplicaKey>)."""
    return voter_set(voter_map_of_keys(voter_keys))
