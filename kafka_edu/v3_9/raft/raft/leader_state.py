"""Port of raft/src/main/java/org/apache/kafka/raft/LeaderState.java (Kafka 3.9).

The leader of an epoch: what each voter and observer has fetched, the high watermark a majority has reached,
check-quorum (resign if a majority stops fetching) and the BeginQuorumEpoch timer. With KIP-853 (kraft.version 1) it
also holds the one voter change in progress (an AddRaftVoter or RemoveRaftVoter waiting for its VotersRecord to
commit), appends the VotersRecords, and moves replicas between voters and observers as the latest voter set changes.
"""

from __future__ import annotations

import functools
import logging
from typing import Any

from kio.schema.k_raft_version_record.v0.data import KRaftVersionRecord
from kio.schema.leader_change_message.v0.data import LeaderChangeMessage, Voter

from kafka_edu.tracing.step import step
from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, IllegalStateException
from kafka_edu.v1_0_2.clients.common.record.compression_type import CompressionType
from kafka_edu.v1_0_2.clients.common.record.default_record import NO_SEQUENCE
from kafka_edu.v1_0_2.clients.common.record.file_records import NO_PRODUCER_EPOCH, NO_PRODUCER_ID, TimestampType
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import MemoryRecordsBuilder
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordUtils
from kafka_edu.v3_9.clients.common.utils.timer import LONG_MAX, Timer
from kafka_edu.v3_9.raft.raft import raft_util
from kafka_edu.v3_9.raft.raft.election_state import ElectionState
from kafka_edu.v3_9.raft.raft.endpoints import Endpoints
from kafka_edu.v3_9.raft.raft.epoch_state import EpochState
from kafka_edu.v3_9.raft.raft.internals.batch_accumulator import BatchAccumulator
from kafka_edu.v3_9.raft.raft.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey
from kafka_edu.v3_9.raft.raft.voter_set import VoterNode, VoterSet
from kafka_edu.v3_9.server_common.server.common.k_raft_version import FEATURE_NAME, KRaftVersion

log = logging.getLogger("org.apache.kafka.raft.LeaderState")

OBSERVER_SESSION_TIMEOUT_MS = 300_000
AN_HOUR_MS = 3_600_000
CHECK_QUORUM_TIMEOUT_FACTOR = 1.5


@functools.total_ordering
class ReplicaState:
    """What the leader knows of one replica: how far it has fetched, when, and whether it acknowledged us."""

    def __init__(self, replica_key: ReplicaKey, has_acknowledged_leader: bool, listeners: Endpoints) -> None:
        self.replica_key = replica_key
        self.listeners = listeners
        self.end_offset: LogOffsetMetadata | None = None
        self.last_fetch_timestamp = -1
        self.last_fetch_leader_log_end_offset = -1
        self.last_caught_up_timestamp = -1
        self.has_acknowledged_leader = has_acknowledged_leader

    def set_replica_key(self, replica_key: ReplicaKey) -> None:
        """A voter's key from the voter set replaces the one its fetches gave; never for another id or another
        directory."""
        if self.replica_key.id != replica_key.id:
            raise IllegalArgumentException(
                f"Attempting to update the replica key {self.replica_key} with a different replica id {replica_key}")
        if self.replica_key.directory_id is not None and self.replica_key != replica_key:
            raise IllegalArgumentException(
                f"Attempting to update an already set directory id {self.replica_key} with a different directory id "
                f"{replica_key}")
        self.replica_key = replica_key

    def update_listeners(self, listeners: Endpoints) -> None:
        self.listeners = listeners

    def clear_listeners(self) -> None:
        self.update_listeners(Endpoints.empty())

    def matches_key(self, replica_key: ReplicaKey) -> bool:
        if self.replica_key.id != replica_key.id:
            return False
        if self.replica_key.directory_id is not None:
            return self.replica_key.directory_id == replica_key.directory_id
        return True  # no directory id: the ids alone decide

    def update_leader_end_offset(self, end_offset_metadata: LogOffsetMetadata) -> None:
        # the leader's own entry: only its end offset matters
        self.end_offset = end_offset_metadata

    def update_follower_state(self, current_time_ms: int, fetch_offset_metadata: LogOffsetMetadata,
                              leader_end_offset: LogOffsetMetadata | None) -> None:
        # caught-up time first, using the previous fetch time when this fetch reached the previous leader end
        if leader_end_offset is not None:
            if fetch_offset_metadata.offset >= leader_end_offset.offset:
                self.last_caught_up_timestamp = max(self.last_caught_up_timestamp, current_time_ms)
            elif (self.last_fetch_leader_log_end_offset > 0
                  and fetch_offset_metadata.offset >= self.last_fetch_leader_log_end_offset):
                self.last_caught_up_timestamp = max(self.last_caught_up_timestamp, self.last_fetch_timestamp)
            self.last_fetch_leader_log_end_offset = leader_end_offset.offset
        self.last_fetch_timestamp = max(self.last_fetch_timestamp, current_time_ms)
        self.end_offset = fetch_offset_metadata
        self.has_acknowledged_leader = True

    def _sort_key(self) -> tuple:
        # descending end offset, replicas with none last, then by key
        if self.end_offset is None:
            return (1, 0, self.replica_key.id)
        return (0, -self.end_offset.offset, self.replica_key.id)

    def __lt__(self, other: ReplicaState) -> bool:
        return self._sort_key() < other._sort_key()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ReplicaState) and self._sort_key() == other._sort_key()

    def __hash__(self) -> int:
        return hash(self.replica_key)

    def __repr__(self) -> str:
        end = self.end_offset.offset if self.end_offset is not None else None
        return (f"ReplicaState(replicaKey={self.replica_key}, endOffset={end}, "
                f"lastFetchTimestamp={self.last_fetch_timestamp}, "
                f"lastCaughtUpTimestamp={self.last_caught_up_timestamp}, "
                f"hasAcknowledgedLeader={self.has_acknowledged_leader})")


class LeaderState(EpochState):
    def __init__(self, current_time_ms: int, local_replica_key: ReplicaKey, epoch: int, epoch_start_offset: int,
                 voter_set_at_epoch_start: VoterSet, granting_voters: set[int], accumulator: BatchAccumulator,
                 local_listeners: Endpoints, fetch_timeout_ms: int, kraft_version_at_epoch_start: int = 0,
                 offset_of_voters_at_epoch_start: int | None = None) -> None:
        """`offset_of_voters_at_epoch_start`: where the voter set was read (-1 for a bootstrap checkpoint), None for
        static voters."""
        self.local_replica_key = local_replica_key
        self._epoch = epoch
        self._epoch_start_offset = epoch_start_offset
        self._local_listeners = local_listeners
        self._voter_set_at_epoch_start = voter_set_at_epoch_start
        self._kraft_version_at_epoch_start = KRaftVersion.from_feature_level(int(kraft_version_at_epoch_start))
        self._offset_of_voters_at_epoch_start = offset_of_voters_at_epoch_start
        # the voter change in progress: at most one AddRaftVoter or RemoveRaftVoter at a time
        self._add_voter_handler_state: Any = None
        self._remove_voter_handler_state: Any = None
        self.voter_states: dict[int, ReplicaState] = {}
        for voter_node in voter_set_at_epoch_start.voter_nodes_all():
            has_acknowledged_leader = voter_node.is_voter(local_replica_key)
            self.voter_states[voter_node.voter_key.id] = ReplicaState(voter_node.voter_key, has_acknowledged_leader,
                                                                      voter_node.listeners)
        self.observer_states_map: dict[ReplicaKey, ReplicaState] = {}
        self._granting_voters = frozenset(granting_voters)
        self._high_watermark: LogOffsetMetadata | None = None
        self._accumulator = accumulator
        # the voters that fetched during the current check-quorum interval
        self.fetched_voters: set[int] = set()
        # 1.5 x fetch timeout: a little slack for the network and the disk
        self.check_quorum_timeout_ms = int(fetch_timeout_ms * CHECK_QUORUM_TIMEOUT_FACTOR)
        self._check_quorum_timer = Timer(current_time_ms, self.check_quorum_timeout_ms)
        self._begin_quorum_epoch_timeout_ms = fetch_timeout_ms // 2
        self._begin_quorum_epoch_timer = Timer(current_time_ms, 0)
        self._resign_requested = False  # set from other threads (RaftClient.resign)

    def time_until_begin_quorum_epoch_timer_expires(self, current_time_ms: int) -> int:
        self._begin_quorum_epoch_timer.update(current_time_ms)
        return self._begin_quorum_epoch_timer.remaining_ms()

    def reset_begin_quorum_epoch_timer(self, current_time_ms: int) -> None:
        self._begin_quorum_epoch_timer.update(current_time_ms)
        self._begin_quorum_epoch_timer.reset(self._begin_quorum_epoch_timeout_ms)

    def time_until_check_quorum_expires(self, current_time_ms: int) -> int:
        """0 once a majority of voters has not fetched for 1.5 x fetch timeout: this leader must step down."""
        if len(self.voter_states) == 1:
            return LONG_MAX  # a quorum of one never loses itself
        self._check_quorum_timer.update(current_time_ms)
        remaining_ms = self._check_quorum_timer.remaining_ms()
        if remaining_ms == 0:
            log.info("Did not receive fetch request from the majority of the voters within %dms. Current fetched "
                     "voters are %s, and voters are %s", self.check_quorum_timeout_ms, sorted(self.fetched_voters),
                     [str(v.replica_key) for v in self.voter_states.values()])
        return remaining_ms

    def update_check_quorum_for_following_voter(self, replica_key: ReplicaKey, current_time_ms: int) -> None:
        self._update_fetched_voters(replica_key)
        # the leader counts towards the majority without fetching
        majority = len(self.voter_states) // 2 + 1
        if self.local_replica_key.id in self.voter_states:
            majority -= 1
        if len(self.fetched_voters) >= majority:
            self.fetched_voters.clear()
            self._check_quorum_timer.update(current_time_ms)
            self._check_quorum_timer.reset(self.check_quorum_timeout_ms)

    def _update_fetched_voters(self, replica_key: ReplicaKey) -> None:
        if replica_key.id == self.local_replica_key.id:
            raise IllegalArgumentException("Received a FETCH/FETCH_SNAPSHOT request from the leader itself.")
        state = self.voter_states.get(replica_key.id)
        if state is not None and state.matches_key(replica_key):
            self.fetched_voters.add(replica_key.id)

    def accumulator(self) -> BatchAccumulator:
        return self._accumulator

    def add_voter_handler_state(self) -> Any:
        """The AddVoterHandlerState of the AddRaftVoter in progress, or None."""
        return self._add_voter_handler_state

    def reset_add_voter_handler_state(self, error: Errors, message: str | None, state: Any) -> None:
        """Answer the pending AddRaftVoter (if any) with `error`, and make `state` the pending one."""
        if self._add_voter_handler_state is not None:
            self._add_voter_handler_state.future().complete(raft_util.add_voter_response(error, message))
        self._add_voter_handler_state = state

    def remove_voter_handler_state(self) -> Any:
        return self._remove_voter_handler_state

    def reset_remove_voter_handler_state(self, error: Errors, message: str | None, state: Any) -> None:
        if self._remove_voter_handler_state is not None:
            self._remove_voter_handler_state.future().complete(raft_util.remove_voter_response(error, message))
        self._remove_voter_handler_state = state

    def maybe_expire_pending_operation(self, current_time_ms: int) -> int:
        """Time out a voter change that ran past its deadline; the time until the next one would."""
        add_state = self._add_voter_handler_state
        if add_state is not None and add_state.time_until_operation_expiration(current_time_ms) == 0:
            self.reset_add_voter_handler_state(Errors.REQUEST_TIMED_OUT, None, None)
        remove_state = self._remove_voter_handler_state
        if remove_state is not None and remove_state.time_until_operation_expiration(current_time_ms) == 0:
            self.reset_remove_voter_handler_state(Errors.REQUEST_TIMED_OUT, None, None)
        # read them again: either may have been cleared
        add_state = self._add_voter_handler_state
        remove_state = self._remove_voter_handler_state
        return min(add_state.time_until_operation_expiration(current_time_ms) if add_state is not None else LONG_MAX,
                   remove_state.time_until_operation_expiration(current_time_ms) if remove_state is not None
                   else LONG_MAX)

    def is_operation_pending(self, current_time_ms: int) -> bool:
        self.maybe_expire_pending_operation(current_time_ms)
        return self._add_voter_handler_state is not None or self._remove_voter_handler_state is not None

    @step("KV.epoch")
    def append_start_of_epoch_control_records(self, local_voter_node: VoterNode, current_time_ms: int) -> None:
        """A LeaderChangeMessage control batch opens the epoch: the high watermark can only move past this epoch's
        start once a record of the epoch is committed, so the leader writes one at once. At kraft.version 1 the
        same batch carries the KRaftVersionRecord and the VotersRecord when the leader's own entry must change or no
        voter set was ever written to the log (one read from the bootstrap checkpoint)."""
        if self.local_replica_key != local_voter_node.voter_key:
            raise IllegalArgumentException(
                f"Replica key {local_voter_node.voter_key} didn't match the local key {self.local_replica_key}")
        if self._local_listeners != local_voter_node.listeners:
            raise IllegalArgumentException(
                f"Listeners {local_voter_node.listeners} didn't match the local listeners {self._local_listeners}")
        voters = tuple(Voter(voter_id=voter_id) for voter_id in self.voter_states)
        granting_voters = tuple(Voter(voter_id=voter_id) for voter_id in self._granting_voters)
        leader_change_message = LeaderChangeMessage(version=0, leader_id=self.election().leader_id_or_throw(),
                                                    voters=voters, granting_voters=granting_voters)

        def build(base_offset: int, epoch: int) -> Any:
            builder = MemoryRecordsBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, base_offset,
                                           current_time_ms, NO_PRODUCER_ID, NO_PRODUCER_EPOCH, NO_SEQUENCE, False,
                                           epoch, is_control_batch=True)
            builder.append_leader_change_message(current_time_ms, leader_change_message)
            if self._kraft_version_at_epoch_start.is_reconfig_supported():
                offset = self._offset_of_voters_at_epoch_start
                if offset is None:
                    raise IllegalStateException(
                        f"The {FEATURE_NAME} is {self._kraft_version_at_epoch_start} but there is no voter set in "
                        f"the log or checkpoint {self._voter_set_at_epoch_start}")
                if offset == -1 or self._voter_set_at_epoch_start.voter_node_needs_update(local_voter_node):
                    updated_voter_set = self._voter_set_at_epoch_start.update_voter(local_voter_node)
                    if updated_voter_set is None:
                        raise IllegalStateException(f"Update expected for leader node {local_voter_node} and voter "
                                                    f"set {self._voter_set_at_epoch_start}")
                    builder.append_kraft_version_message(current_time_ms, KRaftVersionRecord(
                        version=self._kraft_version_at_epoch_start.kraft_version_record_version(),
                        k_raft_version=self._kraft_version_at_epoch_start.feature_level()))
                    builder.append_voters_message(current_time_ms, updated_voter_set.to_voters_record(
                        self._kraft_version_at_epoch_start.voters_record_version()))
            return builder.build()
        self._accumulator.append_control_messages(build)

    def append_voters_record(self, voters: VoterSet, current_time_ms: int) -> int:
        """The new voter set, in a control batch of its own; its offset. It takes effect once appended."""
        voters_record = voters.to_voters_record(ControlRecordUtils.KRAFT_VOTERS_CURRENT_VERSION)
        return self._accumulator.append_voters_record(voters_record, current_time_ms)

    def is_replica_caught_up(self, replica_key: ReplicaKey, current_time_ms: int) -> bool:
        """Good enough to become a voter: an observer that reached the leader's end and fetched in the last hour."""
        state = self.observer_states_map.get(replica_key)
        return (state is not None and state.last_caught_up_timestamp > 0 and state.last_fetch_timestamp > 0
                and state.last_fetch_timestamp > current_time_ms - AN_HOUR_MS)

    def is_resign_requested(self) -> bool:
        return self._resign_requested

    def request_resign(self) -> None:
        self._resign_requested = True

    def high_watermark(self) -> LogOffsetMetadata | None:
        return self._high_watermark

    def election(self) -> ElectionState:
        return ElectionState.with_elected_leader(self._epoch, self.local_replica_key.id, self.voter_states.keys())

    def epoch(self) -> int:
        return self._epoch

    def leader_endpoints(self) -> Endpoints:
        return self._local_listeners

    def observer_states(self, current_time_ms: int) -> dict[ReplicaKey, ReplicaState]:
        self._clear_inactive_observers(current_time_ms)
        return self.observer_states_map

    def granting_voters(self) -> frozenset[int]:
        return self._granting_voters

    def non_acknowledging_voters(self) -> set[ReplicaKey]:
        return {state.replica_key for state in self.voter_states.values() if not state.has_acknowledged_leader}

    def followers_by_descending_fetch_offset(self) -> list[ReplicaState]:
        return sorted(self.voter_states.values())

    def _maybe_update_high_watermark(self) -> bool:
        # the largest offset a majority of voters has (the leader counts)
        followers_by_descending_fetch_offset = self.followers_by_descending_fetch_offset()
        index_of_hw = len(self.voter_states) // 2
        high_watermark_update = followers_by_descending_fetch_offset[index_of_hw].end_offset
        if high_watermark_update is None:
            return False
        # A new leader may only expose records of older epochs once one record of its own epoch is committed:
        # then every future leader has that record, and with it everything before it.
        high_watermark_update_offset = high_watermark_update.offset
        if high_watermark_update_offset <= self._epoch_start_offset:
            return False
        if self._high_watermark is not None:
            current = self._high_watermark
            if (high_watermark_update_offset > current.offset
                    or (high_watermark_update_offset == current.offset
                        and high_watermark_update.metadata != current.metadata)):
                old = self._high_watermark
                self._high_watermark = high_watermark_update
                self._log_high_watermark_update(old, high_watermark_update, index_of_hw,
                                                followers_by_descending_fetch_offset)
                return True
            if high_watermark_update_offset < current.offset:
                log.info("The latest computed high watermark %d is smaller than the current value %d, which should "
                         "only happen when voter set membership changes. If the voter set has not changed this "
                         "suggests that one of the voters has lost committed data. Full voter replication state: %s",
                         high_watermark_update_offset, current.offset, list(self.voter_states.values()))
            return False
        self._high_watermark = high_watermark_update
        self._log_high_watermark_update(None, high_watermark_update, index_of_hw, followers_by_descending_fetch_offset)
        return True

    def _log_high_watermark_update(self, old: LogOffsetMetadata | None, new: LogOffsetMetadata, index_of_hw: int,
                                   followers: list[ReplicaState]) -> None:
        if old is not None:
            log.debug("High watermark set to %s from %s based on indexOfHw %d and voters %s", new, old, index_of_hw,
                      followers)
        else:
            log.info("High watermark set to %s for the first time for epoch %d based on indexOfHw %d and voters %s",
                     new, self._epoch, index_of_hw, followers)

    def update_local_state(self, end_offset_metadata: LogOffsetMetadata, last_voter_set: VoterSet) -> bool:
        """The leader's own log end moved; True if the high watermark moved with it."""
        state = self._get_or_create_replica_state(self.local_replica_key)
        if state.end_offset is not None and state.end_offset.offset > end_offset_metadata.offset:
            raise IllegalStateException(
                f"Detected non-monotonic update of local end offset: {state.end_offset.offset} -> "
                f"{end_offset_metadata.offset}")
        state.update_leader_end_offset(end_offset_metadata)
        self._update_voter_and_observer_states(last_voter_set)
        return self._maybe_update_high_watermark()

    def update_replica_state(self, replica_key: ReplicaKey, current_time_ms: int,
                             fetch_offset_metadata: LogOffsetMetadata) -> bool:
        """A replica fetched from `fetch_offset_metadata`: it has everything below. True if the high watermark
        moved (only a voter's fetch can move it)."""
        if replica_key.id < 0:
            return False  # not a replica (a consumer)
        if replica_key.id == self.local_replica_key.id:
            raise IllegalStateException(f"Remote replica ID {replica_key} matches the local leader ID")
        state = self._get_or_create_replica_state(replica_key)
        if state.end_offset is not None and state.end_offset.offset > fetch_offset_metadata.offset:
            log.warning("Detected non-monotonic update of fetch offset from nodeId %s: %d -> %d", state.replica_key,
                        state.end_offset.offset, fetch_offset_metadata.offset)
        leader_end_offset = self._get_or_create_replica_state(self.local_replica_key).end_offset
        state.update_follower_state(current_time_ms, fetch_offset_metadata, leader_end_offset)
        self.update_check_quorum_for_following_voter(replica_key, current_time_ms)
        return self._is_voter(state.replica_key) and self._maybe_update_high_watermark()

    def non_leader_voters_by_descending_fetch_offset(self) -> list[ReplicaKey]:
        """The preferred successors a resigning leader names: the most caught up first."""
        return [state.replica_key for state in self.followers_by_descending_fetch_offset()
                if not state.matches_key(self.local_replica_key)]

    def add_acknowledgement_from(self, remote_node_id: int) -> None:
        self._ensure_valid_voter(remote_node_id).has_acknowledged_leader = True

    def _ensure_valid_voter(self, remote_node_id: int) -> ReplicaState:
        state = self.voter_states.get(remote_node_id)
        if state is None:
            raise IllegalArgumentException(f"Unexpected acknowledgement from non-voter {remote_node_id}")
        return state

    def epoch_start_offset(self) -> int:
        return self._epoch_start_offset

    def _get_or_create_replica_state(self, replica_key: ReplicaKey) -> ReplicaState:
        state = self.voter_states.get(replica_key.id)
        if state is None or not state.matches_key(replica_key):
            # not a voter: an observer (a broker, or a replica with another directory id)
            return self.observer_states_map.setdefault(replica_key, ReplicaState(replica_key, False,
                                                                                 Endpoints.empty()))
        return state

    def get_replica_state(self, replica_key: ReplicaKey) -> ReplicaState | None:
        state = self.voter_states.get(replica_key.id)
        if state is None or not state.matches_key(replica_key):
            state = self.observer_states_map.get(replica_key)
        return state

    def _clear_inactive_observers(self, current_time_ms: int) -> None:
        for key in [key for key, state in self.observer_states_map.items()
                    if current_time_ms - state.last_fetch_timestamp >= OBSERVER_SESSION_TIMEOUT_MS
                    and key != self.local_replica_key]:
            del self.observer_states_map[key]

    def _is_voter(self, remote_replica_key: ReplicaKey) -> bool:
        state = self.voter_states.get(remote_replica_key.id)
        return state is not None and state.matches_key(remote_replica_key)

    def _update_voter_and_observer_states(self, last_voter_set: VoterSet) -> None:
        """The voters are the latest voter set's: a replica added leaves the observers with what it fetched, one
        removed becomes an observer (and loses its listeners)."""
        new_voter_states: dict[int, ReplicaState] = {}
        old_voter_states = dict(self.voter_states)
        for voter_node in last_voter_set.voter_nodes_all():
            state = self.get_replica_state(voter_node.voter_key)
            if state is None:
                state = ReplicaState(voter_node.voter_key, False, voter_node.listeners)
            old_voter_states.pop(voter_node.voter_key.id, None)
            self.observer_states_map.pop(voter_node.voter_key, None)
            state.set_replica_key(voter_node.voter_key)
            state.update_listeners(voter_node.listeners)
            new_voter_states[state.replica_key.id] = state
        self.voter_states = new_voter_states
        for replica_state in old_voter_states.values():
            replica_state.clear_listeners()
            self.observer_states_map.setdefault(replica_state.replica_key, replica_state)

    def can_grant_vote(self, candidate_key: ReplicaKey, is_log_up_to_date: bool) -> bool:
        log.debug("Rejecting vote request from candidate (%s) since we are already leader in epoch %d",
                  candidate_key, self._epoch)
        return False

    def name(self) -> str:
        return "Leader"

    def close(self) -> None:
        # a voter change in progress cannot finish under another leader
        self.reset_add_voter_handler_state(Errors.NOT_LEADER_OR_FOLLOWER, None, None)
        self.reset_remove_voter_handler_state(Errors.NOT_LEADER_OR_FOLLOWER, None, None)
        self._accumulator.close()

    def __str__(self) -> str:
        return (f"Leader(localReplicaKey={self.local_replica_key}, epoch={self._epoch}, "
                f"epochStartOffset={self._epoch_start_offset}, highWatermark={self._high_watermark}, "
                f"voterStates={list(self.voter_states.values())})")


