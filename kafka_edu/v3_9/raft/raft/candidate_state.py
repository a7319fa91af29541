"""Port of raft/src/main/java/org/apache/kafka/raft/CandidateState.java (Kafka 3.9)."""

from __future__ import annotations

import enum
import logging

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.utils.timer import Timer
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.raft.raft.election_state import ElectionState
from kafka_edu.v3_9.raft.raft.endpoints import Endpoints
from kafka_edu.v3_9.raft.raft.epoch_state import EpochState
from kafka_edu.v3_9.raft.raft.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey
from kafka_edu.v3_9.raft.raft.voter_set import VoterSet

log = logging.getLogger("org.apache.kafka.raft.CandidateState")


class State(enum.Enum):
    UNRECORDED = "UNRECORDED"
    GRANTED = "GRANTED"
    REJECTED = "REJECTED"


class VoterState:
    def __init__(self, replica_key: ReplicaKey) -> None:
        self.replica_key = replica_key
        self.state = State.UNRECORDED

    def __repr__(self) -> str:
        return f"VoterState(replicaKey={self.replica_key}, state={self.state.value})"


class CandidateState(EpochState):
    """A voter asking for votes in a new epoch; it voted for itself, so `quorum-state` names it as the voted id."""

    def __init__(self, current_time_ms: int, local_id: int, local_directory_id: Uuid | None, epoch: int,
                 voters: VoterSet, high_watermark: LogOffsetMetadata | None, retries: int,
                 election_timeout_ms: int) -> None:
        if not voters.is_voter(ReplicaKey.of(local_id, local_directory_id)):
            raise IllegalArgumentException(
                f"Local replica ({local_id}, {local_directory_id}) must be in the set of voters {voters}")
        self._local_id = local_id
        self._local_directory_id = local_directory_id
        self._epoch = epoch
        self._high_watermark = high_watermark
        self._retries = retries
        self._is_backing_off = False
        self._election_timeout_ms = election_timeout_ms
        self._election_timer = Timer(current_time_ms, election_timeout_ms)
        self._backoff_timer = Timer(current_time_ms, 0)
        self.vote_states: dict[int, VoterState] = {key.id: VoterState(key) for key in voters.voter_keys()}
        self.vote_states[local_id].state = State.GRANTED

    def local_id(self) -> int:
        return self._local_id

    def majority_size(self) -> int:
        return len(self.vote_states) // 2 + 1

    def _num_granted(self) -> int:
        return sum(1 for v in self.vote_states.values() if v.state is State.GRANTED)

    def _num_unrecorded(self) -> int:
        return sum(1 for v in self.vote_states.values() if v.state is State.UNRECORDED)

    def is_backing_off(self) -> bool:
        return self._is_backing_off

    def retries(self) -> int:
        return self._retries

    def is_vote_granted(self) -> bool:
        """A majority granted: this candidate wins."""
        return self._num_granted() >= self.majority_size()

    def is_vote_rejected(self) -> bool:
        """Too many refused for a majority to remain possible."""
        return self._num_granted() + self._num_unrecorded() < self.majority_size()

    def record_granted_vote(self, remote_node_id: int) -> bool:
        state = self.vote_states.get(remote_node_id)
        if state is None:
            raise IllegalArgumentException(f"Attempt to grant vote to non-voter {remote_node_id}")
        if state.state is State.REJECTED:
            raise IllegalArgumentException(
                f"Attempt to grant vote from node {remote_node_id} which previously rejected our request")
        was_unrecorded = state.state is State.UNRECORDED
        state.state = State.GRANTED
        return was_unrecorded

    def record_rejected_vote(self, remote_node_id: int) -> bool:
        state = self.vote_states.get(remote_node_id)
        if state is None:
            raise IllegalArgumentException(f"Attempt to reject vote to non-voter {remote_node_id}")
        if state.state is State.GRANTED:
            raise IllegalArgumentException(
                f"Attempt to reject vote from node {remote_node_id} which previously granted our request")
        was_unrecorded = state.state is State.UNRECORDED
        state.state = State.REJECTED
        return was_unrecorded

    def start_backing_off(self, current_time_ms: int, backoff_duration_ms: int) -> None:
        self._backoff_timer.update(current_time_ms)
        self._backoff_timer.reset(backoff_duration_ms)
        self._is_backing_off = True

    def unrecorded_voters(self) -> set[ReplicaKey]:
        return self._voters_in_state(State.UNRECORDED)

    def granting_voters(self) -> set[int]:
        return {key.id for key in self._voters_in_state(State.GRANTED)}

    def rejecting_voters(self) -> set[int]:
        return {key.id for key in self._voters_in_state(State.REJECTED)}

    def _voters_in_state(self, state: State) -> set[ReplicaKey]:
        return {v.replica_key for v in self.vote_states.values() if v.state is state}

    def has_election_timeout_expired(self, current_time_ms: int) -> bool:
        self._election_timer.update(current_time_ms)
        return self._election_timer.is_expired()

    def is_backoff_complete(self, current_time_ms: int) -> bool:
        self._backoff_timer.update(current_time_ms)
        return self._backoff_timer.is_expired()

    def remaining_backoff_ms(self, current_time_ms: int) -> int:
        self._backoff_timer.update(current_time_ms)
        return self._backoff_timer.remaining_ms()

    def remaining_election_time_ms(self, current_time_ms: int) -> int:
        self._election_timer.update(current_time_ms)
        return self._election_timer.remaining_ms()

    def election(self) -> ElectionState:
        return ElectionState.with_voted_candidate(self._epoch, ReplicaKey.of(self._local_id, self._local_directory_id),
                                                  self.vote_states.keys())

    def epoch(self) -> int:
        return self._epoch

    def leader_endpoints(self) -> Endpoints:
        return Endpoints.empty()

    def high_watermark(self) -> LogOffsetMetadata | None:
        return self._high_watermark

    def can_grant_vote(self, candidate_key: ReplicaKey, is_log_up_to_date: bool) -> bool:
        # a candidate has voted for itself in this epoch
        log.debug("Rejecting vote request from candidate (%s) since we are already candidate in epoch %d",
                  candidate_key, self._epoch)
        return False

    def name(self) -> str:
        return "Candidate"

    def __str__(self) -> str:
        return (f"Candidate(localId={self._local_id}, localDirectoryId={self._local_directory_id}, "
                f"epoch={self._epoch}, retries={self._retries}, voteStates={list(self.vote_states.values())}, "
                f"highWatermark={self._high_watermark}, electionTimeoutMs={self._election_timeout_ms})")
