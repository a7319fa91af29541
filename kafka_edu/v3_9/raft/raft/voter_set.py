"""Port of raft/src/main/java/org/apache/kafka/raft/VoterSet.java (Kafka 3.9).

The set of voters of the KRaft partition: each voter's key, listeners and supported kraft.version range. With static
voters (`controller.quorum.voters`, kraft.version 0) it is fixed at startup and no voter has a directory id; with
KIP-853 it is read from the VotersRecords in the log and snapshots (KRaftControlRecordStateMachine).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from kio.schema.types import BrokerId
from kio.schema.voters_record.v0.data import KRaftVersionFeature, Voter, VotersRecord
from kio.static.primitive import i16

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.feature.supported_version_range import SupportedVersionRange
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


def _static_voter_kraft_versions() -> SupportedVersionRange:
    # what fromInetSocketAddresses gives a statically configured voter: kraft.version 0 only
    return SupportedVersionRange(0, 0)


@dataclass(frozen=True)
class VoterNode:
    """VoterSet.VoterNode: one voter. The port lets the supported range default to a static voter's."""

    voter_key: ReplicaKey
    listeners: Endpoints
    supported_kraft_version: SupportedVersionRange = field(default_factory=_static_voter_kraft_versions)

    def is_voter(self, replica_key: ReplicaKey) -> bool:
        """A voter with no directory id (configured statically) matches any replica with its node id."""
        if self.voter_key.id != replica_key.id:
            return False
        if self.voter_key.directory_id is not None:
            return self.voter_key.directory_id == replica_key.directory_id
        return True

    def address(self, listener: str) -> InetSocketAddress | None:
        return self.listeners.address(listener)

    def __str__(self) -> str:
        return (f"VoterNode(voterKey={self.voter_key}, listeners={self.listeners}, "
                f"supportedKRaftVersion={self.supported_kraft_version})")

    @staticmethod
    def of(voter_key: ReplicaKey, listeners: Endpoints, supported_kraft_version: SupportedVersionRange) -> VoterNode:
        return VoterNode(voter_key, listeners, supported_kraft_version)


class VoterSet:
    """Immutable: the changes (add, remove, update) return a new VoterSet, or None when they do not apply."""

    def __init__(self, voters: Mapping[int, VoterNode]) -> None:
        self._voters = dict(voters)

    def voter_nodes(self, voter_ids: Iterable[int] | None = None,
                    listener: str | None = None) -> set[Node] | set[VoterNode]:
        """voterNodes(voterIds, listenerName): each voter's Node on `listener`, IllegalArgumentException if one is
        missing. Called with no arguments it is Java's voterNodes(): every VoterNode."""
        if voter_ids is None:
            return set(self._voters.values())
        nodes = set()
        for voter_id in voter_ids:
            node = self.voter_node(voter_id, listener or "")
            if node is None:
                raise IllegalArgumentException(
                    f"Unable to find endpoint for voter {voter_id} and listener {listener} in {self._voters_str()}")
            nodes.add(node)
        return nodes

    def voter_node(self, voter_id: int, listener: str) -> Node | None:
        node = self._voters.get(voter_id)
        address = node.address(listener) if node is not None else None
        return Node(voter_id, address[0], address[1]) if address is not None else None

    def voter_node_needs_update(self, updated_voter_node: VoterNode) -> bool:
        """True if the node is a voter here and differs from the voter this set holds."""
        node = self._voters.get(updated_voter_node.voter_key.id)
        return node is not None and node.is_voter(updated_voter_node.voter_key) and node != updated_voter_node

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
        """Port-only: voterNodes() in voter id order, for callers that want a stable iteration order."""
        return [self._voters[voter_id] for voter_id in sorted(self._voters)]

    def listeners(self, voter_id: int) -> Endpoints:
        node = self._voters.get(voter_id)
        return node.listeners if node is not None else Endpoints.empty()

    def add_voter(self, voter: VoterNode) -> VoterSet | None:
        """A new set with `voter`, or None if its id is already a voter."""
        if voter.voter_key.id in self._voters:
            return None
        new_voters = dict(self._voters)
        new_voters[voter.voter_key.id] = voter
        return VoterSet(new_voters)

    def remove_voter(self, voter_key: ReplicaKey) -> VoterSet | None:
        """A new set without the voter, or None if the key (id and directory id) does not match or it is the last
        voter."""
        old_voter = self._voters.get(voter_key.id)
        if old_voter is not None and old_voter.voter_key == voter_key and len(self._voters) > 1:
            new_voters = dict(self._voters)
            del new_voters[voter_key.id]
            return VoterSet(new_voters)
        return None

    def update_voter(self, voter: VoterNode) -> VoterSet | None:
        old_voter = self._voters.get(voter.voter_key.id)
        if old_voter is not None and old_voter.is_voter(voter.voter_key):
            new_voters = dict(self._voters)
            new_voters[voter.voter_key.id] = voter
            return VoterSet(new_voters)
        return None

    def to_voters_record(self, version: int) -> VotersRecord:
        def voter_convertor(voter: VoterNode) -> Voter:
            directory_id = voter.voter_key.directory_id
            return Voter(
                voter_id=BrokerId(voter.voter_key.id),
                # a voter without a directory id is written with the zero uuid, as Java does
                voter_directory_id=(uuid.UUID(int=0) if directory_id is None
                                    else uuid.UUID(bytes=directory_id.to_bytes())),
                endpoints=tuple(voter.listeners.voters_record_endpoints()),
                k_raft_version_feature=KRaftVersionFeature(
                    min_supported_version=i16(voter.supported_kraft_version.min()),
                    max_supported_version=i16(voter.supported_kraft_version.max())))

        return VotersRecord(version=i16(version), voters=tuple(voter_convertor(v) for v in self._voters.values()))

    def has_overlapping_majority(self, that: VoterSet) -> bool:
        """True if every majority of this set shares a voter with every majority of `that`: at most one voter was
        added and at most one removed between them."""
        this_replica_keys = self.voter_keys()
        that_replica_keys = that.voter_keys()
        if len(this_replica_keys - that_replica_keys) > 1:
            return False
        return len(that_replica_keys - this_replica_keys) <= 1

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, VoterSet):
            return False
        return self._voters == other._voters

    def __hash__(self) -> int:
        return hash(frozenset(self._voters.items()))

    def _voters_str(self) -> str:
        return "{" + ", ".join(f"{voter_id}={node}" for voter_id, node in self._voters.items()) + "}"

    def __str__(self) -> str:
        return f"VoterSet(voters={self._voters_str()})"

    __repr__ = __str__

    def __len__(self) -> int:
        return len(self._voters)

    @staticmethod
    def empty() -> VoterSet:
        return _EMPTY

    @staticmethod
    def from_voters_record(voters: VotersRecord) -> VoterSet:
        voter_nodes = {}
        for voter in voters.voters:
            voter_nodes[int(voter.voter_id)] = VoterNode(
                ReplicaKey.of(int(voter.voter_id), voter.voter_directory_id),
                Endpoints.from_voters_record_endpoints(voter.endpoints),
                SupportedVersionRange(int(voter.k_raft_version_feature.min_supported_version),
                                      int(voter.k_raft_version_feature.max_supported_version)))
        return VoterSet(voter_nodes)

    @staticmethod
    def from_inet_socket_addresses(listener: str, voters: Mapping[int, InetSocketAddress]) -> VoterSet:
        return VoterSet({voter_id: VoterNode(ReplicaKey.of(voter_id, None),
                                             Endpoints.from_inet_socket_addresses({listener: address}),
                                             SupportedVersionRange(0, 0))
                         for voter_id, address in voters.items()})

    @staticmethod
    def from_map(voters: Mapping[int, VoterNode]) -> VoterSet:
        return VoterSet(dict(voters))


_EMPTY = VoterSet({})
