"""Port of raft/src/main/java/org/apache/kafka/raft/ElectionState.java (Kafka 3.9), with the QuorumStateData of
raft/src/main/resources/common/message/QuorumStateData.json that it reads and writes (v0: static voters)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, IllegalStateException
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey


@dataclass(frozen=True)
class ElectionState:
    """What `quorum-state` holds: the epoch, its leader if known, the candidate this replica voted for, the voters."""

    epoch: int
    leader_id: int | None = None
    voted_key: ReplicaKey | None = None
    voters: frozenset[int] = field(default_factory=frozenset)

    def is_leader(self, node_id: int) -> bool:
        if node_id < 0:
            raise IllegalArgumentException(f"Invalid negative nodeId: {node_id}")
        return self.leader_id == node_id

    def is_voted_candidate(self, node_key: ReplicaKey) -> bool:
        """Whether this state records a vote for `node_key` (a directory id, when both have one, must match)."""
        if node_key.id < 0:
            raise IllegalArgumentException(f"Invalid node key {node_key}")
        if self.voted_key is None or self.voted_key.id != node_key.id:
            return False
        if self.voted_key.directory_id is None:
            return True  # a vote recorded without a directory id (v0) names the replica by id alone
        return self.voted_key.directory_id == node_key.directory_id

    def leader_id_or_throw(self) -> int:
        if self.leader_id is None:
            raise IllegalStateException("Attempt to access nil leaderId")
        return self.leader_id

    def leader_id_or_sentinel(self) -> int:
        return self.leader_id if self.leader_id is not None else -1

    def optional_leader_id(self) -> int | None:
        return self.leader_id

    def voted_key_or_throw(self) -> ReplicaKey:
        if self.voted_key is None:
            raise IllegalStateException("Attempt to access nil votedId")
        return self.voted_key

    def optional_voted_key(self) -> ReplicaKey | None:
        return self.voted_key

    def has_leader(self) -> bool:
        return self.leader_id is not None

    def has_voted(self) -> bool:
        return self.voted_key is not None

    def to_quorum_state_data(self, version: int) -> dict[str, Any]:
        """The JSON fields of QuorumStateData at `version`, in the order Kafka's converter writes them."""
        data: dict[str, Any] = {"clusterId": "", "leaderId": self.leader_id_or_sentinel(), "leaderEpoch": self.epoch,
                                "votedId": self.voted_key.id if self.voted_key is not None else -1}
        if version == 0:
            data["appliedOffset"] = 0
            data["currentVoters"] = [{"voterId": voter_id} for voter_id in sorted(self.voters)]
        elif version == 1:
            directory_id = self.voted_key.directory_id if self.voted_key is not None else None
            data["votedDirectoryId"] = str(directory_id or Uuid(0, 0))
        else:
            raise IllegalStateException(f"File quorum state store doesn't handle supported version {version}")
        return data

    @staticmethod
    def from_quorum_state_data(data: dict[str, Any]) -> ElectionState:
        voted_directory_id = data.get("votedDirectoryId")
        directory_id = Uuid.from_string(voted_directory_id) if voted_directory_id else None
        voted_id = int(data.get("votedId", -1))
        leader_id = int(data.get("leaderId", -1))
        voters = data.get("currentVoters") or []
        return ElectionState(int(data.get("leaderEpoch", -1)),
                             None if leader_id == -1 else leader_id,
                             None if voted_id == -1 else ReplicaKey.of(voted_id, directory_id),
                             frozenset(int(v["voterId"]) for v in voters))

    @staticmethod
    def with_voted_candidate(epoch: int, voted_key: ReplicaKey, voters: Iterable[int]) -> ElectionState:
        if voted_key.id < 0:
            raise IllegalArgumentException(f"Illegal voted Id {voted_key.id}")
        return ElectionState(epoch, None, voted_key, frozenset(voters))

    @staticmethod
    def with_elected_leader(epoch: int, leader_id: int, voters: Iterable[int]) -> ElectionState:
        if leader_id < 0:
            raise IllegalArgumentException(f"Illegal leader Id {leader_id}")
        return ElectionState(epoch, leader_id, None, frozenset(voters))

    @staticmethod
    def with_unknown_leader(epoch: int, voters: Iterable[int]) -> ElectionState:
        return ElectionState(epoch, None, None, frozenset(voters))

    def __str__(self) -> str:
        return (f"Election(epoch={self.epoch}, leaderId={self.leader_id if self.leader_id is not None else 'empty'}, "
                f"votedKey={self.voted_key or 'empty'}, voters={sorted(self.voters)})")
