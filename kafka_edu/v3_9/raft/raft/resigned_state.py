"""Port of raft/src/main/java/org/apache/kafka/raft/ResignedState.java (Kafka 3.9).

A leader that gave up its epoch (a graceful shutdown, `resign`, or check-quorum). It keeps asking the other voters,
with EndQuorumEpoch, to elect a successor sooner. Not written to `quorum-state`: a leader that restarts comes back
Resigned anyway.
"""

from __future__ import annotations

import logging

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.utils.timer import Timer
from kafka_edu.v3_9.raft.raft.election_state import ElectionState
from kafka_edu.v3_9.raft.raft.endpoints import Endpoints
from kafka_edu.v3_9.raft.raft.epoch_state import EpochState
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey

log = logging.getLogger("org.apache.kafka.raft.ResignedState")


class ResignedState(EpochState):
    def __init__(self, current_time_ms: int, local_id: int, epoch: int, voters: set[int], election_timeout_ms: int,
                 preferred_successors: list[ReplicaKey], endpoints: Endpoints) -> None:
        self._local_id = local_id
        self._epoch = epoch
        self.voters = set(voters)
        self._unacked_voters = set(voters)
        self._unacked_voters.discard(local_id)
        self._election_timeout_ms = election_timeout_ms
        self._election_timer = Timer(current_time_ms, election_timeout_ms)
        self._preferred_successors = list(preferred_successors)
        self._endpoints = endpoints

    def election(self) -> ElectionState:
        return ElectionState.with_elected_leader(self._epoch, self._local_id, self.voters)

    def epoch(self) -> int:
        return self._epoch

    def leader_endpoints(self) -> Endpoints:
        return self._endpoints

    def unacked_voters(self) -> set[int]:
        """The voters that have not answered our EndQuorumEpoch yet."""
        return self._unacked_voters

    def acknowledge_resignation(self, voter_id: int) -> None:
        if voter_id not in self.voters:
            raise IllegalArgumentException(
                f"Attempt to acknowledge delivery of `EndQuorumEpoch` by a non-voter {voter_id}")
        self._unacked_voters.discard(voter_id)

    def has_election_timeout_expired(self, current_time_ms: int) -> bool:
        self._election_timer.update(current_time_ms)
        return self._election_timer.is_expired()

    def remaining_election_time_ms(self, current_time_ms: int) -> int:
        self._election_timer.update(current_time_ms)
        return self._election_timer.remaining_ms()

    def preferred_successors(self) -> list[ReplicaKey]:
        return self._preferred_successors

    def can_grant_vote(self, candidate_key: ReplicaKey, is_log_up_to_date: bool) -> bool:
        log.debug("Rejecting vote request from candidate (%s) since we have resigned as candidate/leader in epoch %d",
                  candidate_key, self._epoch)
        return False

    def name(self) -> str:
        return "Resigned"

    def __str__(self) -> str:
        return (f"ResignedState(localId={self._local_id}, epoch={self._epoch}, voters={sorted(self.voters)}, "
                f"electionTimeoutMs={self._election_timeout_ms}, unackedVoters={sorted(self._unacked_voters)}, "
                f"preferredSuccessors={[str(k) for k in self._preferred_successors]})")
