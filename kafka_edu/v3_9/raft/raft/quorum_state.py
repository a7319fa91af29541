"""Port of raft/src/main/java/org/apache/kafka/raft/QuorumState.java (Kafka 3.9).

The replica's role in the current epoch, and the only place it changes. The transitions:

    Unattached (voted or not) -> Unattached (higher epoch, or a vote granted), Candidate (election timeout),
                                 Follower (a leader learned)
    Candidate  -> Unattached (higher epoch), Candidate (election lost or timed out: epoch + 1), Leader (majority)
    Leader     -> Unattached (higher epoch), Resigned (shutdown, resign, check-quorum)
    Follower   -> Unattached (higher epoch), Candidate (fetch timeout), Follower (leader of a higher epoch)
    Resigned   -> Unattached (higher epoch), Candidate (election timeout), Follower (a leader learned)

Observers (not in the voter set) only move between Unattached and Follower. Every transition but the one to Resigned
is durable: `quorum-state` is rewritten (and fsynced) before the role changes in memory, so a replica never acts on a
vote or a leadership that a crash could make it forget.
"""

from __future__ import annotations

import logging
import random as _random
from collections.abc import Callable
from typing import Any

from kafka_edu.tracing.step import event
from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, IllegalStateException
from kafka_edu.v3_9.clients.common.feature.supported_version_range import SupportedVersionRange
from kafka_edu.v3_9.clients.common.utils.timer import LONG_MAX
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.raft.raft.candidate_state import CandidateState
from kafka_edu.v3_9.raft.raft.election_state import ElectionState
from kafka_edu.v3_9.raft.raft.endpoints import Endpoints
from kafka_edu.v3_9.raft.raft.epoch_state import EpochState
from kafka_edu.v3_9.raft.raft.follower_state import FollowerState
from kafka_edu.v3_9.raft.raft.leader_and_epoch import LeaderAndEpoch
from kafka_edu.v3_9.raft.raft.leader_state import LeaderState
from kafka_edu.v3_9.raft.raft.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.raft.quorum_state_store import QuorumStateStore
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey
from kafka_edu.v3_9.raft.raft.resigned_state import ResignedState
from kafka_edu.v3_9.raft.raft.unattached_state import UnattachedState
from kafka_edu.v3_9.raft.raft.voter_set import VoterNode, VoterSet
from kafka_edu.v3_9.server_common.server.common.k_raft_version import KRaftVersion

log = logging.getLogger("org.apache.kafka.raft.QuorumState")


class _FixedPartitionState:
    """The part of KRaftControlRecordStateMachine QuorumState reads, over one voter set that never changes: what a
    QuorumState built on a bare VoterSet sees (Kafka's QuorumStateTest mocks the state machine the same way)."""

    def __init__(self, voters: VoterSet, kraft_version: int) -> None:
        self._voters = voters
        self._kraft_version = KRaftVersion.from_feature_level(int(kraft_version))

    def last_voter_set(self) -> VoterSet:
        return self._voters

    def last_voter_set_offset(self) -> int | None:
        # a kraft.version 1 voter set of a test stands for one read from a bootstrap checkpoint
        return -1 if self._kraft_version.is_reconfig_supported() else None

    def last_kraft_version(self) -> KRaftVersion:
        return self._kraft_version


class QuorumState:
    def __init__(self, local_id: int | None, local_directory_id: Uuid | None, voters: Any,
                 local_listeners: Endpoints, election_timeout_ms: int, fetch_timeout_ms: int,
                 store: QuorumStateStore, time_ms: Callable[[], int], random: _random.Random,
                 kraft_version: int = 0, local_supported_kraft_version: SupportedVersionRange | None = None) -> None:
        """`voters` is the KRaftControlRecordStateMachine (Kafka's `partitionState`): every role change reads its
        latest voter set and kraft.version. A bare VoterSet (with `kraft_version`) stands for a fixed one."""
        self._local_id = local_id
        self._local_directory_id = local_directory_id
        self._partition_state = (_FixedPartitionState(voters, kraft_version) if isinstance(voters, VoterSet)
                                 else voters)
        self._local_listeners = local_listeners
        self._local_supported_kraft_version = (local_supported_kraft_version if local_supported_kraft_version
                                               is not None else SupportedVersionRange(0, 1))
        self._election_timeout_ms = election_timeout_ms
        self._fetch_timeout_ms = fetch_timeout_ms
        self.store = store
        self._time_ms = time_ms
        self._random = random
        self.state: EpochState | None = None

    @property
    def voters(self) -> VoterSet:
        """The latest voter set (partitionState.lastVoterSet()): it changes as VotersRecords are read."""
        return self._partition_state.last_voter_set()

    @property
    def _kraft_version(self) -> int:
        return self._partition_state.last_kraft_version()

    def _read_election_state(self) -> ElectionState:
        election = self.store.read_election_state()
        return election if election is not None else ElectionState.with_unknown_leader(0, self.voters.voter_ids())

    def initialize(self, log_end_offset_and_epoch: OffsetAndEpoch) -> None:
        """Start in the role `quorum-state` recorded (a leader comes back Resigned), or Unattached in the log's
        epoch if the file is behind the log."""
        election = self._read_election_state()
        now = self._time_ms()
        voter_ids = self.voters.voter_ids()
        if election.has_voted() and self._local_id is None:
            raise IllegalStateException(
                f"Initialized quorum state ({election}) with a voted candidate but without a local id")
        if election.epoch < log_end_offset_and_epoch.epoch:
            log.warning("Epoch from quorum store file (%s) is %d, which is smaller than last written epoch %d in the "
                        "log", self.store.path(), election.epoch, log_end_offset_and_epoch.epoch)
            initial_state: EpochState = UnattachedState(now, log_end_offset_and_epoch.epoch, None, None, voter_ids,
                                                        None, self._random_election_timeout_ms())
        elif self._local_id is not None and election.is_leader(self._local_id):
            # A leader that restarts cannot lead the same epoch again (unflushed records may be lost, and it must not
            # vote for another leader in it): it starts Resigned.
            initial_state = ResignedState(now, self._local_id, election.epoch, voter_ids,
                                          self._random_election_timeout_ms(), [], self._local_listeners)
        elif self._local_id is not None and election.is_voted_candidate(
                ReplicaKey.of(self._local_id, self._local_directory_id)):
            initial_state = CandidateState(now, self._local_id, self._local_directory_id, election.epoch, self.voters,
                                           None, 1, self._random_election_timeout_ms())
        elif election.has_voted():
            initial_state = UnattachedState(now, election.epoch, None, election.voted_key_or_throw(), voter_ids,
                                            None, self._random_election_timeout_ms())
        elif election.has_leader():
            leader_endpoints = self.voters.listeners(election.leader_id_or_throw())
            if leader_endpoints.is_empty():
                log.info("The leader in election state %s is not a member of the latest voter set %s; transitioning "
                         "to unattached instead of follower because the leader's endpoints are not known",
                         election, self.voters)
                # the leader stays known by id: the state refuses votes in its epoch, as a follower would
                initial_state = UnattachedState(now, election.epoch, election.leader_id_or_throw(), None, voter_ids,
                                                None, self._random_election_timeout_ms())
            else:
                initial_state = FollowerState(now, election.epoch, election.leader_id_or_throw(), leader_endpoints,
                                              voter_ids, None, self._fetch_timeout_ms)
        else:
            initial_state = UnattachedState(now, election.epoch, None, None, voter_ids, None,
                                            self._random_election_timeout_ms())
        self._durable_transition_to(initial_state)

    def local_voter_node_or_throw(self) -> VoterNode:
        """This replica as a voter would be: its key, its listeners and the kraft.versions it supports."""
        return VoterNode.of(self.local_replica_key_or_throw(), self._local_listeners,
                            self._local_supported_kraft_version)

    def is_only_voter(self) -> bool:
        return self._local_id is not None and self.voters.is_only_voter(
            ReplicaKey.of(self._local_id, self._local_directory_id))

    def local_id_or_sentinel(self) -> int:
        return self._local_id if self._local_id is not None else -1

    def local_id_or_throw(self) -> int:
        if self._local_id is None:
            raise IllegalStateException("Required local id is not present")
        return self._local_id

    def local_id(self) -> int | None:
        return self._local_id

    def local_directory_id(self) -> Uuid | None:
        return self._local_directory_id

    def local_replica_key_or_throw(self) -> ReplicaKey:
        return ReplicaKey.of(self.local_id_or_throw(), self._local_directory_id)

    def local_listeners(self) -> Endpoints:
        return self._local_listeners

    def epoch(self) -> int:
        return self.state.epoch()

    def leader_id_or_sentinel(self) -> int:
        return self.state.election().leader_id_or_sentinel()

    def high_watermark(self) -> LogOffsetMetadata | None:
        return self.state.high_watermark()

    def leader_id(self) -> int | None:
        return self.state.election().optional_leader_id()

    def voted_key(self) -> ReplicaKey | None:
        return self.state.election().optional_voted_key()

    def has_leader(self) -> bool:
        return self.leader_id() is not None

    def has_remote_leader(self) -> bool:
        return self.has_leader() and self.leader_id_or_sentinel() != self.local_id_or_sentinel()

    def leader_endpoints(self) -> Endpoints:
        return self.state.leader_endpoints()

    def is_voter(self, node_key: ReplicaKey | None = None) -> bool:
        """This replica (no argument) or `node_key` is one of the voters."""
        if node_key is not None:
            return self.voters.is_voter(node_key)
        if self._local_id is None:
            return False
        return self.voters.is_voter(ReplicaKey.of(self._local_id, self._local_directory_id))

    def is_observer(self) -> bool:
        return not self.is_voter()

    def transition_to_resigned(self, preferred_successors: list[ReplicaKey]) -> None:
        if not self.is_leader():
            raise IllegalStateException(f"Invalid transition to Resigned state from {self.state}")
        # a soft state: not persisted, since a leader always restarts as Resigned anyway
        self._memory_transition_to(ResignedState(self._time_ms(), self.local_id_or_throw(), self.state.epoch(),
                                                 self.voters.voter_ids(), self._random_election_timeout_ms(),
                                                 preferred_successors, self._local_listeners))

    def transition_to_unattached(self, epoch: int) -> None:
        """A higher epoch whose leader is not known yet."""
        current_epoch = self.state.epoch()
        if epoch <= current_epoch:
            raise IllegalStateException(
                f"Cannot transition to Unattached with epoch= {epoch} from current state {self.state}")
        now = self._time_ms()
        if self.is_observer():
            election_timeout_ms = LONG_MAX
        elif self.is_candidate():
            election_timeout_ms = self.candidate_state_or_throw().remaining_election_time_ms(now)
        elif self.is_unattached():
            election_timeout_ms = self.unattached_state_or_throw().remaining_election_time_ms(now)
        else:
            election_timeout_ms = self._random_election_timeout_ms()
        self._durable_transition_to(UnattachedState(now, epoch, None, None, self.voters.voter_ids(),
                                                    self.state.high_watermark(), election_timeout_ms))

    def transition_to_unattached_voted_state(self, epoch: int, candidate_key: ReplicaKey) -> None:
        """Grant a vote: stay Unattached in `epoch`, remembering the candidate (and on disk before answering)."""
        current_epoch = self.state.epoch()
        if self._local_id is not None and candidate_key.id == self._local_id:
            raise IllegalStateException(
                f"Cannot transition to Voted for {candidate_key} and epoch {epoch} since it matches "
                "the local broker.id")
        if self._local_id is None:
            raise IllegalStateException("Cannot transition to voted without a replica id")
        if epoch < current_epoch:
            raise IllegalStateException(
                f"Cannot transition to Voted for {candidate_key} and epoch {epoch} since the current "
                f"epoch {current_epoch} is larger")
        if epoch == current_epoch and not self.is_unattached_not_voted():
            raise IllegalStateException(
                f"Cannot transition to Voted for {candidate_key} and epoch {epoch} from the current "
                f"state {self.state}")
        # the election timer restarts: a candidate we voted for is as likely to win as we would be
        self._durable_transition_to(UnattachedState(self._time_ms(), epoch, None, candidate_key,
                                                    self.voters.voter_ids(), self.state.high_watermark(),
                                                    self._random_election_timeout_ms()))

    def transition_to_follower(self, epoch: int, leader_id: int, endpoints: Endpoints) -> None:
        """Follow the leader of `epoch` and fetch from it."""
        current_epoch = self.state.epoch()
        if endpoints.is_empty():
            raise IllegalArgumentException(
                f"Cannot transition to Follower with leader {leader_id} and epoch {epoch} without a "
                "leader endpoint")
        if self._local_id is not None and leader_id == self._local_id:
            raise IllegalStateException(
                f"Cannot transition to Follower with leader {leader_id} and epoch {epoch} since it "
                f"matches the local node.id {self._local_id}")
        if epoch < current_epoch:
            raise IllegalStateException(
                f"Cannot transition to Follower with leader {leader_id} and epoch {epoch} since the "
                f"current epoch {current_epoch} is larger")
        if epoch == current_epoch:
            if self.is_follower() and self.state.leader_endpoints().size() >= endpoints.size():
                raise IllegalStateException(f"Cannot transition to Follower with leader {leader_id}, epoch {epoch} and "
                                   f"endpoints {endpoints} from state {self.state}")
            if self.is_leader():
                raise IllegalStateException(
                    f"Cannot transition to Follower with leader {leader_id} and epoch {epoch} from "
                    f"state {self.state}")
        self._durable_transition_to(FollowerState(self._time_ms(), epoch, leader_id, endpoints,
                                                  self.voters.voter_ids(), self.state.high_watermark(),
                                                  self._fetch_timeout_ms))

    def transition_to_candidate(self) -> None:
        """A new election: epoch + 1, a vote for ourselves (on disk first), a fresh random election timeout."""
        if self.is_observer():
            raise IllegalStateException(
                f"Cannot transition to Candidate since the local id ({self._local_id}) and directory "
                f"id ({self._local_directory_id}) is not one of the voters {self.voters}")
        if self.is_leader():
            raise IllegalStateException(
                f"Cannot transition to Candidate since the local broker.id={self._local_id} since "
                f"this node is already a Leader with state {self.state}")
        retries = self.candidate_state_or_throw().retries() + 1 if self.is_candidate() else 1
        new_epoch = self.epoch() + 1
        election_timeout_ms = self._random_election_timeout_ms()
        self._durable_transition_to(CandidateState(self._time_ms(), self.local_id_or_throw(),
                                                   self._local_directory_id, new_epoch, self.voters,
                                                   self.state.high_watermark(), retries, election_timeout_ms))

    def transition_to_leader(self, epoch_start_offset: int, accumulator: Any) -> LeaderState:
        if self.is_observer():
            raise IllegalStateException(
                f"Cannot transition to Leader since the local id ({self._local_id}) and directory id "
                f"({self._local_directory_id}) is not one of the voters {self.voters}")
        if not self.is_candidate():
            raise IllegalStateException(f"Cannot transition to Leader from current state {self.state}")
        candidate_state = self.candidate_state_or_throw()
        if not candidate_state.is_vote_granted():
            raise IllegalStateException("Cannot become leader without majority votes granted")
        # The new leader does not keep the high watermark it knew: it only exposes one again once a majority has
        # reached the start of its epoch, so the high watermark it publishes never goes back.
        state = LeaderState(self._time_ms(), ReplicaKey.of(self.local_id_or_throw(), self._local_directory_id),
                            self.epoch(), epoch_start_offset, self.voters, candidate_state.granting_voters(),
                            accumulator, self._local_listeners, self._fetch_timeout_ms, self._kraft_version,
                            self._partition_state.last_voter_set_offset())
        self._durable_transition_to(state)
        return state

    def _durable_transition_to(self, new_state: EpochState) -> None:
        log.info("Attempting durable transition to %s from %s", new_state, self.state)
        self.store.write_election_state(new_state.election(), self._kraft_version)
        self._memory_transition_to(new_state)

    def _memory_transition_to(self, new_state: EpochState) -> None:
        if self.state is not None:
            try:
                self.state.close()
            except OSError as e:
                raise RuntimeError(f"Failed to transition from {self.state.name()} to {new_state.name()}") from e
        from_state = self.state
        self.state = new_state
        event("KR.role", self, from_state=from_state)
        log.info("Completed transition to %s from %s", new_state, from_state)

    def _random_election_timeout_ms(self) -> int:
        if self._election_timeout_ms == 0:
            return 0
        return self._election_timeout_ms + self._random.randrange(self._election_timeout_ms)

    def can_grant_vote(self, candidate_key: ReplicaKey, is_log_up_to_date: bool) -> bool:
        return self.state.can_grant_vote(candidate_key, is_log_up_to_date)

    def follower_state_or_throw(self) -> FollowerState:
        if isinstance(self.state, FollowerState):
            return self.state
        raise IllegalStateException(f"Expected to be Follower, but the current state is {self.state}")

    def maybe_unattached_state(self) -> UnattachedState | None:
        state = self.state
        return state if isinstance(state, UnattachedState) else None

    def unattached_state_or_throw(self) -> UnattachedState:
        state = self.maybe_unattached_state()
        if state is None:
            raise IllegalStateException(f"Expected to be Unattached, but current state is {self.state}")
        return state

    def leader_state_or_throw(self) -> LeaderState:
        state = self.maybe_leader_state()
        if state is None:
            raise IllegalStateException(f"Expected to be Leader, but current state is {self.state}")
        return state

    def maybe_leader_state(self) -> LeaderState | None:
        state = self.state
        return state if isinstance(state, LeaderState) else None

    def resigned_state_or_throw(self) -> ResignedState:
        if isinstance(self.state, ResignedState):
            return self.state
        raise IllegalStateException(f"Expected to be Resigned, but current state is {self.state}")

    def candidate_state_or_throw(self) -> CandidateState:
        if isinstance(self.state, CandidateState):
            return self.state
        raise IllegalStateException(f"Expected to be Candidate, but current state is {self.state}")

    def leader_and_epoch(self) -> LeaderAndEpoch:
        election = self.state.election()
        return LeaderAndEpoch(election.optional_leader_id(), election.epoch)

    def is_follower(self) -> bool:
        return isinstance(self.state, FollowerState)

    def is_unattached(self) -> bool:
        return isinstance(self.state, UnattachedState)

    def is_unattached_not_voted(self) -> bool:
        state = self.maybe_unattached_state()
        return state is not None and state.voted_key() is None

    def is_unattached_and_voted(self) -> bool:
        state = self.maybe_unattached_state()
        return state is not None and state.voted_key() is not None

    def is_leader(self) -> bool:
        return isinstance(self.state, LeaderState)

    def is_resigned(self) -> bool:
        return isinstance(self.state, ResignedState)

    def is_candidate(self) -> bool:
        return isinstance(self.state, CandidateState)
