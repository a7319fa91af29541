"""Port of raft/src/main/java/org/apache/kafka/raft/VoterSet.java (Kafka 3.9), the part static voters use.

KIP-853 builds the voter set from VotersRecords in the log; with `controller.quorum.voters` it is fixed at startup
and every voter key has no directory id.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kafka_edu.v3_9.raft.raft.endpoints import Endpoints, InetSocketAddress
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey


@dataclass(frozen=True)
class Node:
    """org.apache.kafka.common.Node: where to send a request."""

    id: int
    host: str
    port: int
    rack: str | None = None

    def id_string(self) -> str:
        return str(self.id)

    def __str__(self) -> str:
        return f"{self.host}:{self.port} (id: {self.id})"


@dataclass(frozen=True)
class VoterNode:
    voter_key: ReplicaKey
    listeners: Endpoints

    def is_voter(self, replica_key: ReplicaKey) -> bool:
        if self.voter_key.id != replica_key.id:
            return False
        return self.voter_key.directory_id is None or self.voter_key.directory_id == replica_key.directory_id


class VoterSet:
    """The voters of the quorum, each with its listeners."""

    def __init__(self, voters: Mapping[int, VoterNode]) -> None:
        self._voters = dict(voters)

    @staticmethod
    def from_inet_socket_addresses(listener: str, voters: Mapping[int, InetSocketAddress]) -> VoterSet:
        return VoterSet({voter_id: VoterNode(ReplicaKey(voter_id), Endpoints({listener: address}))
                         for voter_id, address in voters.items()})

    @staticmethod
    def empty() -> VoterSet:
        return VoterSet({})

    def voter_node(self, voter_id: int, listener: str) -> Node | None:
        node = self._voters.get(voter_id)
        address = node.listeners.address(listener) if node is not None else None
        return Node(voter_id, *address) if address is not None else None

    def voter_nodes(self, voter_ids: Iterable[int], listener: str) -> set[Node]:
        nodes = set()
        for voter_id in voter_ids:
            node = self.voter_node(voter_id, listener)
            if node is None:
                raise ValueError(f"Unable to find endpoint for voter {voter_id} and listener {listener} in {self}")
            nodes.add(node)
        return nodes

    def listeners(self, voter_id: int) -> Endpoints:
        node = self._voters.get(voter_id)
        return node.listeners if node is not None else Endpoints.empty()

    def is_voter(self, replica_key: ReplicaKey) -> bool:
        node = self._voters.get(replica_key.id)
        return node is not None and node.is_voter(replica_key)

    def is_only_voter(self, replica_key: ReplicaKey) -> bool:
        return len(self._voters) == 1 and self.is_voter(replica_key)

    def voter_ids(self) -> set[int]:
        return set(self._voters)

    def voter_keys(self) -> set[ReplicaKey]:
        return {node.voter_key for node in self._voters.values()}

    def voter_nodes_all(self) -> list[VoterNode]:
        """voterNodes(): every voter with its listeners, by id."""
        return [self._voters[voter_id] for voter_id in sorted(self._voters)]

    def __len__(self) -> int:
        return len(self._voters)

    def __str__(self) -> str:
        return f"VoterSet(voters={ {i: str(n.listeners) for i, n in self._voters.items()} })"
