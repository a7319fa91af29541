"""Port of raft/src/main/java/org/apache/kafka/raft/DynamicVoters.java (Kafka 3.9): the KIP-853 initial voter set
given to `kafka-storage format`, a comma-separated list of DynamicVoter strings."""

from __future__ import annotations

from collections.abc import Iterable

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.raft.raft.dynamic_voter import DynamicVoter
from kafka_edu.v3_9.raft.raft.voter_set import VoterNode, VoterSet


class DynamicVoters:
    @staticmethod
    def parse(input: str) -> DynamicVoters:
        input = input.strip()
        voters = [DynamicVoter.parse(voter_string) for voter_string in input.split(",") if voter_string]
        return DynamicVoters(voters)

    def __init__(self, voters: Iterable[DynamicVoter]) -> None:
        voters = list(voters)
        if not voters:
            raise IllegalArgumentException("No voters given.")
        voters_map: dict[int, DynamicVoter] = {}
        for voter in voters:
            if voter.node_id in voters_map:
                raise IllegalArgumentException(f"Node id {voter.node_id} was specified more than once.")
            voters_map[voter.node_id] = voter
        # Kafka's NavigableMap: iterated in node id order
        self._voters = dict(sorted(voters_map.items()))

    def voters(self) -> dict[int, DynamicVoter]:
        return dict(self._voters)

    def to_voter_set(self, controller_listener_name: str) -> VoterSet:
        voter_set_map: dict[int, VoterNode] = {}
        for voter in self._voters.values():
            voter_set_map[voter.node_id] = voter.to_voter_node(controller_listener_name)
        return VoterSet.from_map(voter_set_map)

    def __eq__(self, other: object) -> bool:
        return type(other) is DynamicVoters and self._voters == other._voters

    def __hash__(self) -> int:
        return hash(tuple(self._voters.items()))

    def __str__(self) -> str:
        return ",".join(str(voter) for voter in self._voters.values())

    __repr__ = __str__
