"""Port of raft/src/main/java/org/apache/kafka/raft/UnattachedState.java (Kafka 3.9).

A replica that knows an epoch but no leader it can fetch from. Since KAFKA-17067 (3.9) it also holds the vote it
granted in the epoch, if any: there is no separate Voted state. It can know the epoch's leader by id alone, when
`quorum-state` names a leader whose endpoints the voter set does not have: it then refuses votes, as a follower does.
"""

from __future__ import annotations

import logging

from kafka_edu.v3_9.clients.common.utils.timer import Timer
from kafka_edu.v3_9.raft.raft.election_state import ElectionState
from kafka_edu.v3_9.raft.raft.endpoints import Endpoints
from kafka_edu.v3_9.raft.raft.epoch_state import EpochState
from kafka_edu.v3_9.raft.raft.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey

log = logging.getLogger("org.apache.kafka.raft.UnattachedState")


class UnattachedState(EpochState):
    def __init__(self, current_time_ms: int, epoch: int, leader_id: int | None, voted_key: ReplicaKey | None,
                 voters: set[int], high_watermark: LogOffsetMetadata | None, election_timeout_ms: int) -> None:
        self._epoch = epoch
        self._leader_id = leader_id
        self._voted_key = voted_key
        self.voters = set(voters)
        self._high_watermark = high_watermark
        self._election_timeout_ms = election_timeout_ms
        self._election_timer = Timer(current_time_ms, election_timeout_ms)

    def election(self) -> ElectionState:
        if self._voted_key is not None:
            return ElectionState.with_voted_candidate(self._epoch, self._voted_key, self.voters)
        if self._leader_id is not None:
            return ElectionState.with_elected_leader(self._epoch, self._leader_id, self.voters)
        return ElectionState.with_unknown_leader(self._epoch, self.voters)

    def epoch(self) -> int:
        return self._epoch

    def leader_endpoints(self) -> Endpoints:
        return Endpoints.empty()

    def name(self) -> str:
        return "Unattached"

    def voted_key(self) -> ReplicaKey | None:
        return self._voted_key

    def election_timeout_ms(self) -> int:
        return self._election_timeout_ms

    def remaining_election_time_ms(self, current_time_ms: int) -> int:
        self._election_timer.update(current_time_ms)
        return self._election_timer.remaining_ms()

    def has_election_timeout_expired(self, current_time_ms: int) -> bool:
        self._election_timer.update(current_time_ms)
        return self._election_timer.is_expired()

    def high_watermark(self) -> LogOffsetMetadata | None:
        return self._high_watermark

    def can_grant_vote(self, candidate_key: ReplicaKey, is_log_up_to_date: bool) -> bool:
        if self._voted_key is not None:
            if self._voted_key.id == candidate_key.id:
                # the same candidate asking again: the vote stands
                voted_directory = self._voted_key.directory_id
                return voted_directory is None or voted_directory == candidate_key.directory_id
            log.debug("Rejecting vote request from candidate (%s), already have voted for another candidate (%s) in "
                      "epoch %d", candidate_key, self._voted_key, self._epoch)
            return False
        if self._leader_id is not None:
            # a known leader: refuse as a follower would
            log.debug("Rejecting vote request from candidate (%s) since we already have a leader %d in epoch %d",
                      candidate_key, self._leader_id, self._epoch)
            return False
        if not is_log_up_to_date:
            log.debug("Rejecting vote request from candidate (%s) since candidate epoch/offset is not up to date "
                      "with us", candidate_key)
        return is_log_up_to_date

    def __str__(self) -> str:
        return (f"Unattached(epoch={self._epoch}, votedKey={self._voted_key or 'empty'}, voters={sorted(self.voters)}, "
                f"electionTimeoutMs={self._election_timeout_ms}, highWatermark={self._high_watermark})")
