"""Port of raft/src/main/java/org/apache/kafka/raft/FollowerState.java (Kafka 3.9)."""

from __future__ import annotations

import logging
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.utils.timer import Timer
from kafka_edu.v3_9.raft.raft.election_state import ElectionState
from kafka_edu.v3_9.raft.raft.endpoints import Endpoints
from kafka_edu.v3_9.raft.raft.epoch_state import EpochState
from kafka_edu.v3_9.raft.raft.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey
from kafka_edu.v3_9.raft.raft.voter_set import Node

log = logging.getLogger("org.apache.kafka.raft.FollowerState")


class FollowerState(EpochState):
    """A replica that knows the epoch's leader and fetches from it; its fetch timer running out starts an election."""

    def __init__(self, current_time_ms: int, epoch: int, leader_id: int, endpoints: Endpoints, voters: set[int],
                 high_watermark: LogOffsetMetadata | None, fetch_timeout_ms: int) -> None:
        self._fetch_timeout_ms = fetch_timeout_ms
        self._epoch = epoch
        self._leader_id = leader_id
        self._endpoints = endpoints
        self.voters = set(voters)
        self._fetch_timer = Timer(current_time_ms, fetch_timeout_ms)
        # how often a voter checks that the leader's voter set has its current listeners (KIP-853 UpdateRaftVoter)
        self._update_voter_period_timer = Timer(current_time_ms, self._update_voter_period_ms())
        self._high_watermark = high_watermark
        self._fetching_snapshot: Any = None  # a RawSnapshotWriter while a FetchSnapshot is in progress

    def election(self) -> ElectionState:
        return ElectionState.with_elected_leader(self._epoch, self._leader_id, self.voters)

    def epoch(self) -> int:
        return self._epoch

    def leader_endpoints(self) -> Endpoints:
        return self._endpoints

    def name(self) -> str:
        return "Follower"

    def remaining_fetch_time_ms(self, current_time_ms: int) -> int:
        self._fetch_timer.update(current_time_ms)
        return self._fetch_timer.remaining_ms()

    def leader_id(self) -> int:
        return self._leader_id

    def leader_node(self, listener: str) -> Node:
        address = self._endpoints.address(listener)
        if address is None:
            raise RuntimeError(f"Unknown endpoint for leader {self._leader_id} and listener {listener}, known "
                               f"endpoints are {self._endpoints}")
        return Node(self._leader_id, *address)

    def has_fetch_timeout_expired(self, current_time_ms: int) -> bool:
        self._fetch_timer.update(current_time_ms)
        return self._fetch_timer.is_expired()

    def reset_fetch_timeout_for_successful_fetch(self, current_time_ms: int) -> None:
        self.override_fetch_timeout(current_time_ms, self._fetch_timeout_ms)

    def override_fetch_timeout(self, current_time_ms: int, timeout_ms: int) -> None:
        self._fetch_timer.update(current_time_ms)
        self._fetch_timer.reset(timeout_ms)

    def _update_voter_period_ms(self) -> int:
        # a few rounds of Fetch first
        return self._fetch_timeout_ms * 3

    def has_update_voter_period_expired(self, current_time_ms: int) -> bool:
        self._update_voter_period_timer.update(current_time_ms)
        return self._update_voter_period_timer.is_expired()

    def remaining_update_voter_period_ms(self, current_time_ms: int) -> int:
        self._update_voter_period_timer.update(current_time_ms)
        return self._update_voter_period_timer.remaining_ms()

    def reset_update_voter_period(self, current_time_ms: int) -> None:
        self._update_voter_period_timer.update(current_time_ms)
        self._update_voter_period_timer.reset(self._update_voter_period_ms())

    def update_high_watermark(self, new_high_watermark: int | None) -> bool:
        """Take the leader's high watermark (capped at our log end by the caller); it never moves back."""
        if new_high_watermark is None and self._high_watermark is not None:
            raise IllegalArgumentException(
                f"Attempt to overwrite current high watermark {self._high_watermark} with unknown value")
        if self._high_watermark is not None:
            previous = self._high_watermark.offset
            if new_high_watermark < 0:
                raise IllegalArgumentException(f"Illegal negative ({new_high_watermark}) high watermark update")
            if previous > new_high_watermark:
                raise IllegalArgumentException(
                    f"Non-monotonic update of high watermark from {previous} to {new_high_watermark}")
            if previous == new_high_watermark:
                return False
        self._high_watermark = LogOffsetMetadata(new_high_watermark) if new_high_watermark is not None else None
        return True

    def high_watermark(self) -> LogOffsetMetadata | None:
        return self._high_watermark

    def fetching_snapshot(self) -> Any:
        return self._fetching_snapshot

    def set_fetching_snapshot(self, new_snapshot: Any) -> None:
        if self._fetching_snapshot is not None:
            self._fetching_snapshot.close()
        self._fetching_snapshot = new_snapshot

    def can_grant_vote(self, candidate_key: ReplicaKey, is_log_up_to_date: bool) -> bool:
        log.debug("Rejecting vote request from candidate (%s) since we already have a leader %d in epoch %d",
                  candidate_key, self._leader_id, self._epoch)
        return False

    def __str__(self) -> str:
        return (f"FollowerState(fetchTimeoutMs={self._fetch_timeout_ms}, epoch={self._epoch}, "
                f"leader={self._leader_id}, endpoints={self._endpoints}, voters={sorted(self.voters)}, "
                f"highWatermark={self._high_watermark}, fetchingSnapshot={self._fetching_snapshot})")

    def close(self) -> None:
        if self._fetching_snapshot is not None:
            self._fetching_snapshot.close()
