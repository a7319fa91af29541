"""Port of raft/src/test/java/org/apache/kafka/raft/QuorumStateTest.java (Kafka 3.9).

Every case of Kafka's class is parametrized over KRaftVersion. The port supports static voters only: kraft.version 1
(KIP-853 dynamic voters) is not built (docs/kraft.md), so each case runs with kraft.version 0 alone, and the helpers
keep their kraft.version 1 branches only where Kafka has them (persisted voters and voted keys).

Differences of form only:

- Kafka mocks KRaftControlRecordStateMachine (the last voter set, its offset and kraft.version); the port's
  QuorumState takes the voter set and kraft.version themselves, which is what those three answers give it.
- The BatchAccumulator is a unittest.mock stand-in, as Mockito's mock is in Kafka.
- MockQuorumStateStore, MockableRandom and VoterSetTest's builders are ported in quorum_state_test_helpers.py.
- OptionalInt and Optional are `None` or a value; IllegalStateException and IllegalArgumentException are the
  port's exceptions of those names.
"""

from __future__ import annotations

from unittest import mock

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.raft.raft.election_state import ElectionState
from kafka_edu.v3_9.raft.raft.endpoints import Endpoints
from kafka_edu.v3_9.raft.raft.internals.batch_accumulator import BatchAccumulator
from kafka_edu.v3_9.raft.raft.leader_and_epoch import LeaderAndEpoch
from kafka_edu.v3_9.raft.raft.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.raft.quorum_state import QuorumState
from kafka_edu.v3_9.raft.raft.quorum_state_store import QuorumStateStore
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey
from kafka_edu.v3_9.raft.raft.voter_set import VoterSet
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.raft.raft.quorum_state_test_helpers import (
    DEFAULT_LISTENER_NAME,
    MockableRandom,
    MockQuorumStateStore,
    voter_map,
    voter_node,
    voter_set,
    voter_set_of_keys,
)

KAFKA = kafka_test_class(
    "3.9", "raft/src/test/java/org/apache/kafka/raft/QuorumStateTest.java",
    cases=[
        "testInitializePrimordialEpoch",
        "testInitializeAsUnattached",
        "testInitializeAsFollower",
        "testInitializeAsUnattachedWhenMissingEndpoints",
        "testInitializeAsVoted",
        "testInitializeAsResignedCandidate",
        "testInitializeAsResignedLeader",
        "testCandidateToCandidate",
        "testCandidateToResigned",
        "testCandidateToLeader",
        "testCandidateToLeaderWithoutGrantedVote",
        "testCandidateToFollower",
        "testCandidateToUnattached",
        "testCandidateToUnattachedVoted",
        "testCandidateToAnyStateLowerEpoch",
        "testLeaderToLeader",
        "testLeaderToResigned",
        "testLeaderToCandidate",
        "testLeaderToFollower",
        "testLeaderToUnattached",
        "testLeaderToUnattachedVoted",
        "testLeaderToAnyStateLowerEpoch",
        "testCannotFollowOrVoteForSelf",
        "testUnattachedToLeaderOrResigned",
        "testUnattachedVotedSameEpoch",
        "testUnattachedVotedHigherEpoch",
        "testUnattachedToCandidate",
        "testUnattachedToUnattached",
        "testUnattachedToFollowerSameEpoch",
        "testUnattachedToFollowerHigherEpoch",
        "testUnattachedToAnyStateLowerEpoch",
        "testUnattachedVotedToInvalidLeaderOrResigned",
        "testUnattachedVotedToCandidate",
        "testObserverFromUnattachedVotedToCandidate",
        "testUnattachedVotedToUnattachedVotedSameEpoch",
        "testUnattachedVotedToFollowerSameEpoch",
        "testUnattachedVotedToFollowerHigherEpoch",
        "testUnattachedVotedToUnattachedSameEpoch",
        "testUnattachedVotedToUnattachedHigherEpoch",
        "testUnattachedVotedToAnyStateLowerEpoch",
        "testAllStatesToUnattachedFailInSameEpoch",
        "testFollowerToFollowerSameEpoch",
        "testFollowerToFollowerSameEpochAndMoreEndpoints",
        "testFollowerToFollowerHigherEpoch",
        "testFollowerToLeaderOrResigned",
        "testFollowerToCandidate",
        "testFollowerToUnattachedSameEpoch",
        "testFollowerToUnattachedHigherEpoch",
        "testFollowerToUnattachedVotedSameEpoch",
        "testFollowerToUnattachedVotedHigherEpoch",
        "testFollowerToAnyStateLowerEpoch",
        "testCanBecomeFollowerOfNonVoter",
        "testObserverCannotBecomeCandidateOrLeader",
        "testObserverWithIdCanVote",
        "testObserverFollowerToUnattached",
        "testObserverUnattachedToFollower",
        "testInitializeWithCorruptedStore",
        "testHasRemoteLeader",
        "testHighWatermarkRetained",
        "testInitializeWithEmptyLocalId",
        "testNoLocalIdInitializationFailsIfElectionStateHasVotedCandidate",
    ],
)

# @EnumSource(KRaftVersion.class) is KRAFT_VERSION_0 and KRAFT_VERSION_1; the port has static voters only, so the
# kraft.version 1 run of each case is not applicable (KIP-853 dynamic voters are not built: docs/kraft.md).
KRAFT_VERSIONS = [0]
LONG_MAX = 2**63 - 1


class QuorumStateTestContext:
    """The fields and private builders of Kafka's QuorumStateTest, one per case as JUnit makes one per method."""

    def __init__(self) -> None:
        self.local_id = 0
        self.local_directory_id = Uuid.random_uuid()
        self.local_voter_key = ReplicaKey.of(self.local_id, self.local_directory_id)
        self.log_end_epoch = 0
        self.store = MockQuorumStateStore()
        self.time = MockTime()
        self.election_timeout_ms = 5000
        self.fetch_timeout_ms = 10000
        self.random = MockableRandom(1)
        self.accumulator = mock.Mock(spec=BatchAccumulator)

    def build_quorum_state(self, local_id: int | None, voters: VoterSet, kraft_version: int) -> QuorumState:
        return QuorumState(
            local_id,
            self.local_directory_id,
            voters,
            voters.listeners(local_id) if local_id is not None else Endpoints.empty(),
            self.election_timeout_ms,
            self.fetch_timeout_ms,
            self.store,
            self.time.milliseconds,
            self.random,
            kraft_version,
        )

    def initialize_empty_state(self, voters: VoterSet, kraft_version: int) -> QuorumState:
        state = self.build_quorum_state(self.local_id, voters, kraft_version)
        self.store.write_election_state(ElectionState.with_unknown_leader(0, voters.voter_ids()), kraft_version)
        state.initialize(OffsetAndEpoch(0, self.log_end_epoch))
        return state

    @staticmethod
    def persisted_voters(voters: set[int], kraft_version: int) -> set[int]:
        if kraft_version == 1:
            return set()
        return voters

    @staticmethod
    def persisted_voted_key(replica_key: ReplicaKey, kraft_version: int) -> ReplicaKey:
        if kraft_version == 1:
            return replica_key
        return ReplicaKey.of(replica_key.id, ReplicaKey.NO_DIRECTORY_ID)

    def local_standalone_voter_set(self) -> VoterSet:
        return voter_set({self.local_id: voter_node(self.local_voter_key)})

    def local_with_remote_voter_set(self, remote_ids: list[int], kraft_version: int) -> VoterSet:
        with_directory_id = kraft_version > 0
        return self.local_with_remote_voter_keys([self.replica_key(i, with_directory_id) for i in remote_ids],
                                                 kraft_version)

    def local_with_remote_voter_keys(self, remote_keys: list[ReplicaKey], kraft_version: int) -> VoterSet:
        with_directory_id = kraft_version > 0
        actual_local_voter = (self.local_voter_key if with_directory_id
                              else ReplicaKey.of(self.local_voter_key.id, ReplicaKey.NO_DIRECTORY_ID))
        return voter_set_of_keys([actual_local_voter, *remote_keys])

    def with_remote_voter_set(self, remote_ids: list[int], kraft_version: int) -> VoterSet:
        with_directory_id = kraft_version > 0
        return voter_set_of_keys([self.replica_key(i, with_directory_id) for i in remote_ids])

    @staticmethod
    def replica_key(replica_id: int, with_directory_id: bool) -> ReplicaKey:
        directory_id = Uuid.random_uuid() if with_directory_id else ReplicaKey.NO_DIRECTORY_ID
        return ReplicaKey.of(replica_id, directory_id)


@pytest.fixture
def t() -> QuorumStateTestContext:
    return QuorumStateTestContext()


def _random_key(replica_id: int) -> ReplicaKey:
    return ReplicaKey.of(replica_id, Uuid.random_uuid())


def _no_dir(replica_id: int) -> ReplicaKey:
    return ReplicaKey.of(replica_id, ReplicaKey.NO_DIRECTORY_ID)


parametrize_kraft_version = pytest.mark.parametrize("kraft_version", KRAFT_VERSIONS)


@parametrize_kraft_version
def test_initialize_primordial_epoch(t: QuorumStateTestContext, kraft_version: int) -> None:
    voters = t.local_standalone_voter_set()
    assert t.store.read_election_state() is None

    state = t.initialize_empty_state(voters, kraft_version)
    assert state.is_unattached()
    assert state.epoch() == 0
    state.transition_to_candidate()
    candidate_state = state.candidate_state_or_throw()
    assert candidate_state.is_vote_granted()
    assert candidate_state.epoch() == 1


@parametrize_kraft_version
def test_initialize_as_unattached(t: QuorumStateTestContext, kraft_version: int) -> None:
    node1, node2, epoch = 1, 2, 5
    voters = t.local_with_remote_voter_set([node1, node2], kraft_version)
    t.store.write_election_state(ElectionState.with_unknown_leader(epoch, voters.voter_ids()), kraft_version)

    jitter_ms = 2500
    t.random.mock_next_int(jitter_ms)

    state = t.build_quorum_state(t.local_id, voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, 0))

    assert state.is_unattached_not_voted()
    unattached_state = state.unattached_state_or_throw()
    assert unattached_state.epoch() == epoch
    assert unattached_state.remaining_election_time_ms(t.time.milliseconds()) == t.election_timeout_ms + jitter_ms


@parametrize_kraft_version
def test_initialize_as_follower(t: QuorumStateTestContext, kraft_version: int) -> None:
    node1, node2, epoch = 1, 2, 5
    voters = t.local_with_remote_voter_set([node1, node2], kraft_version)
    t.store.write_election_state(ElectionState.with_elected_leader(epoch, node1, voters.voter_ids()), kraft_version)

    state = t.build_quorum_state(t.local_id, voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    assert state.is_follower()
    assert state.epoch() == epoch

    follower_state = state.follower_state_or_throw()
    assert follower_state.epoch() == epoch
    assert follower_state.leader_id() == node1
    assert follower_state.remaining_fetch_time_ms(t.time.milliseconds()) == t.fetch_timeout_ms


@parametrize_kraft_version
def test_initialize_as_unattached_when_missing_endpoints(t: QuorumStateTestContext, kraft_version: int) -> None:
    node1, node2, leader, epoch = 1, 2, 3, 5
    voters = t.local_with_remote_voter_set([node1, node2], kraft_version)
    t.store.write_election_state(ElectionState.with_elected_leader(epoch, leader, voters.voter_ids()), kraft_version)

    state = t.build_quorum_state(t.local_id, voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    assert state.is_unattached()
    assert state.epoch() == epoch

    unattached_state = state.unattached_state_or_throw()
    assert unattached_state.epoch() == epoch


@parametrize_kraft_version
def test_initialize_as_voted(t: QuorumStateTestContext, kraft_version: int) -> None:
    node_key1 = _random_key(1)
    node_key2 = _random_key(2)

    epoch = 5
    voters = voter_set_of_keys([t.local_voter_key, node_key1, node_key2])
    t.store.write_election_state(ElectionState.with_voted_candidate(epoch, node_key1, voters.voter_ids()),
                                 kraft_version)

    jitter_ms = 2500
    t.random.mock_next_int(jitter_ms)

    state = t.build_quorum_state(t.local_id, voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    assert state.is_unattached_and_voted()
    assert state.epoch() == epoch

    voted_state = state.unattached_state_or_throw()
    assert voted_state.epoch() == epoch
    assert voted_state.voted_key() == t.persisted_voted_key(node_key1, kraft_version)

    assert voted_state.remaining_election_time_ms(t.time.milliseconds()) == t.election_timeout_ms + jitter_ms


@parametrize_kraft_version
def test_initialize_as_resigned_candidate(t: QuorumStateTestContext, kraft_version: int) -> None:
    with_directory_id = kraft_version > 0
    node1 = t.replica_key(1, with_directory_id)
    node2 = t.replica_key(2, with_directory_id)
    epoch = 5
    voters = t.local_with_remote_voter_keys([node1, node2], kraft_version)
    election = ElectionState.with_voted_candidate(epoch, t.local_voter_key, voters.voter_ids())
    t.store.write_election_state(election, kraft_version)

    jitter_ms = 2500
    t.random.mock_next_int(jitter_ms)

    state = t.build_quorum_state(t.local_id, voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    assert state.is_candidate()
    assert state.epoch() == epoch

    candidate_state = state.candidate_state_or_throw()
    assert candidate_state.epoch() == epoch
    assert candidate_state.election() == ElectionState.with_voted_candidate(epoch, t.local_voter_key,
                                                                            voters.voter_ids())
    assert candidate_state.unrecorded_voters() == {node1, node2}
    assert candidate_state.granting_voters() == {t.local_id}
    assert candidate_state.rejecting_voters() == set()
    assert candidate_state.remaining_election_time_ms(t.time.milliseconds()) == t.election_timeout_ms + jitter_ms


@parametrize_kraft_version
def test_initialize_as_resigned_leader(t: QuorumStateTestContext, kraft_version: int) -> None:
    node1, node2, epoch = 1, 2, 5
    voters = t.local_with_remote_voter_set([node1, node2], kraft_version)
    election = ElectionState.with_elected_leader(epoch, t.local_id, voters.voter_ids())
    t.store.write_election_state(election, kraft_version)

    jitter_ms = 2500
    t.random.mock_next_int(jitter_ms)

    state = t.build_quorum_state(t.local_id, voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    assert not state.is_leader()
    assert state.epoch() == epoch

    resigned_state = state.resigned_state_or_throw()
    assert resigned_state.epoch() == epoch
    assert resigned_state.election() == election
    assert resigned_state.unacked_voters() == {node1, node2}
    assert resigned_state.remaining_election_time_ms(t.time.milliseconds()) == t.election_timeout_ms + jitter_ms


@parametrize_kraft_version
def test_candidate_to_candidate(t: QuorumStateTestContext, kraft_version: int) -> None:
    node1, node2 = 1, 2
    voters = t.local_with_remote_voter_set([node1, node2], kraft_version)
    assert t.store.read_election_state() is None

    state = t.initialize_empty_state(voters, kraft_version)
    state.transition_to_candidate()
    assert state.is_candidate()
    assert state.epoch() == 1

    candidate1 = state.candidate_state_or_throw()
    candidate1.record_rejected_vote(node2)

    backoff_ms = 500
    candidate1.start_backing_off(t.time.milliseconds(), backoff_ms)
    assert candidate1.is_backing_off()
    assert not candidate1.is_backoff_complete(t.time.milliseconds())

    t.time.sleep(backoff_ms - 1)
    assert candidate1.is_backing_off()
    assert not candidate1.is_backoff_complete(t.time.milliseconds())

    t.time.sleep(1)
    assert candidate1.is_backing_off()
    assert candidate1.is_backoff_complete(t.time.milliseconds())

    jitter_ms = 2500
    t.random.mock_next_int(jitter_ms)

    state.transition_to_candidate()
    assert state.is_candidate()
    candidate2 = state.candidate_state_or_throw()
    assert state.epoch() == 2
    assert candidate2.granting_voters() == {t.local_id}
    assert candidate2.rejecting_voters() == set()
    assert candidate2.remaining_election_time_ms(t.time.milliseconds()) == t.election_timeout_ms + jitter_ms


@parametrize_kraft_version
def test_candidate_to_resigned(t: QuorumStateTestContext, kraft_version: int) -> None:
    node1, node2 = 1, 2
    voters = t.local_with_remote_voter_set([node1, node2], kraft_version)
    assert t.store.read_election_state() is None

    state = t.initialize_empty_state(voters, kraft_version)
    state.transition_to_candidate()
    assert state.is_candidate()
    assert state.epoch() == 1

    with pytest.raises(IllegalStateException):
        state.transition_to_resigned([])
    assert state.is_candidate()


@parametrize_kraft_version
def test_candidate_to_leader(t: QuorumStateTestContext, kraft_version: int) -> None:
    voters = t.local_standalone_voter_set()
    assert t.store.read_election_state() is None

    state = t.initialize_empty_state(voters, kraft_version)
    state.transition_to_candidate()
    assert state.is_candidate()
    assert state.epoch() == 1

    state.transition_to_leader(0, t.accumulator)
    leader_state = state.leader_state_or_throw()
    assert state.is_leader()
    assert leader_state.epoch() == 1
    assert leader_state.high_watermark() is None


@parametrize_kraft_version
def test_candidate_to_leader_without_granted_vote(t: QuorumStateTestContext, kraft_version: int) -> None:
    other_node_id = 1
    voters = t.local_with_remote_voter_set([other_node_id], kraft_version)
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_candidate()
    assert not state.candidate_state_or_throw().is_vote_granted()
    with pytest.raises(IllegalStateException):
        state.transition_to_leader(0, t.accumulator)
    state.candidate_state_or_throw().record_granted_vote(other_node_id)
    assert state.candidate_state_or_throw().is_vote_granted()
    state.transition_to_leader(0, t.accumulator)
    assert state.is_leader()


@parametrize_kraft_version
def test_candidate_to_follower(t: QuorumStateTestContext, kraft_version: int) -> None:
    other_node_id = 1

    voters = t.local_with_remote_voter_set([other_node_id], kraft_version)
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_candidate()

    state.transition_to_follower(5, other_node_id, voters.listeners(other_node_id))
    assert state.epoch() == 5
    assert state.leader_id() == other_node_id
    assert t.store.read_election_state() == ElectionState.with_elected_leader(
        5, other_node_id, t.persisted_voters(voters.voter_ids(), kraft_version))


@parametrize_kraft_version
def test_candidate_to_unattached(t: QuorumStateTestContext, kraft_version: int) -> None:
    other_node_id = 1
    voters = t.local_with_remote_voter_set([other_node_id], kraft_version)
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_candidate()

    state.transition_to_unattached(5)
    assert state.epoch() == 5
    assert state.leader_id() is None
    assert t.store.read_election_state() == ElectionState.with_unknown_leader(
        5, t.persisted_voters(voters.voter_ids(), kraft_version))


@parametrize_kraft_version
def test_candidate_to_unattached_voted(t: QuorumStateTestContext, kraft_version: int) -> None:
    other_node_key = _random_key(1)
    voters = voter_set_of_keys([t.local_voter_key, other_node_key])
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_candidate()

    state.transition_to_unattached_voted_state(5, other_node_key)
    assert state.epoch() == 5
    assert state.leader_id() is None

    voted_state = state.unattached_state_or_throw()
    assert voted_state.voted_key() == other_node_key

    assert t.store.read_election_state() == ElectionState.with_voted_candidate(
        5, t.persisted_voted_key(other_node_key, kraft_version),
        t.persisted_voters(voters.voter_ids(), kraft_version))


@parametrize_kraft_version
def test_candidate_to_any_state_lower_epoch(t: QuorumStateTestContext, kraft_version: int) -> None:
    other_node_key = _random_key(1)
    voters = voter_set_of_keys([t.local_voter_key, other_node_key])
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_unattached(5)
    state.transition_to_candidate()
    with pytest.raises(IllegalStateException):
        state.transition_to_unattached(4)
    with pytest.raises(IllegalStateException):
        state.transition_to_unattached_voted_state(4, other_node_key)
    with pytest.raises(IllegalStateException):
        state.transition_to_follower(4, other_node_key.id, voters.listeners(other_node_key.id))
    assert state.epoch() == 6
    assert t.store.read_election_state() == ElectionState.with_voted_candidate(
        6, t.persisted_voted_key(t.local_voter_key, kraft_version),
        t.persisted_voters(voters.voter_ids(), kraft_version))


@parametrize_kraft_version
def test_leader_to_leader(t: QuorumStateTestContext, kraft_version: int) -> None:
    voters = t.local_standalone_voter_set()
    assert t.store.read_election_state() is None

    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_candidate()
    state.transition_to_leader(0, t.accumulator)
    assert state.is_leader()
    assert state.epoch() == 1

    with pytest.raises(IllegalStateException):
        state.transition_to_leader(0, t.accumulator)
    assert state.is_leader()
    assert state.epoch() == 1


@parametrize_kraft_version
def test_leader_to_resigned(t: QuorumStateTestContext, kraft_version: int) -> None:
    voters = t.local_standalone_voter_set()
    assert t.store.read_election_state() is None

    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_candidate()
    state.transition_to_leader(0, t.accumulator)
    assert state.is_leader()
    assert state.epoch() == 1

    state.transition_to_resigned([t.local_voter_key])
    assert state.is_resigned()
    resigned_state = state.resigned_state_or_throw()
    assert resigned_state.election() == ElectionState.with_elected_leader(1, t.local_id, voters.voter_ids())
    assert resigned_state.epoch() == 1
    assert resigned_state.unacked_voters() == set()


@parametrize_kraft_version
def test_leader_to_candidate(t: QuorumStateTestContext, kraft_version: int) -> None:
    voters = t.local_standalone_voter_set()
    assert t.store.read_election_state() is None

    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_candidate()
    state.transition_to_leader(0, t.accumulator)
    assert state.is_leader()
    assert state.epoch() == 1

    with pytest.raises(IllegalStateException):
        state.transition_to_candidate()
    assert state.is_leader()
    assert state.epoch() == 1


@parametrize_kraft_version
def test_leader_to_follower(t: QuorumStateTestContext, kraft_version: int) -> None:
    other_node_id = 1
    voters = t.local_with_remote_voter_set([other_node_id], kraft_version)

    state = t.initialize_empty_state(voters, kraft_version)

    state.transition_to_candidate()
    state.candidate_state_or_throw().record_granted_vote(other_node_id)
    state.transition_to_leader(0, t.accumulator)
    state.transition_to_follower(5, other_node_id, voters.listeners(other_node_id))

    assert state.epoch() == 5
    assert state.leader_id() == other_node_id
    assert t.store.read_election_state() == ElectionState.with_elected_leader(
        5, other_node_id, t.persisted_voters(voters.voter_ids(), kraft_version))


@parametrize_kraft_version
def test_leader_to_unattached(t: QuorumStateTestContext, kraft_version: int) -> None:
    other_node_id = 1
    voters = t.local_with_remote_voter_set([other_node_id], kraft_version)
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_candidate()
    state.candidate_state_or_throw().record_granted_vote(other_node_id)
    state.transition_to_leader(0, t.accumulator)
    state.transition_to_unattached(5)
    assert state.epoch() == 5
    assert state.leader_id() is None
    assert t.store.read_election_state() == ElectionState.with_unknown_leader(
        5, t.persisted_voters(voters.voter_ids(), kraft_version))


@parametrize_kraft_version
def test_leader_to_unattached_voted(t: QuorumStateTestContext, kraft_version: int) -> None:
    other_node_key = _random_key(1)
    voters = voter_set_of_keys([t.local_voter_key, other_node_key])
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_candidate()
    state.candidate_state_or_throw().record_granted_vote(other_node_key.id)
    state.transition_to_leader(0, t.accumulator)
    state.transition_to_unattached_voted_state(5, other_node_key)

    assert state.epoch() == 5
    assert state.leader_id() is None

    voted_state = state.unattached_state_or_throw()
    assert voted_state.voted_key() == other_node_key

    assert t.store.read_election_state() == ElectionState.with_voted_candidate(
        5, t.persisted_voted_key(other_node_key, kraft_version),
        t.persisted_voters(voters.voter_ids(), kraft_version))


@parametrize_kraft_version
def test_leader_to_any_state_lower_epoch(t: QuorumStateTestContext, kraft_version: int) -> None:
    other_node_key = _random_key(1)
    voters = voter_set_of_keys([t.local_voter_key, other_node_key])
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_unattached(5)
    state.transition_to_candidate()
    state.candidate_state_or_throw().record_granted_vote(other_node_key.id)
    state.transition_to_leader(0, t.accumulator)
    with pytest.raises(IllegalStateException):
        state.transition_to_unattached(4)
    with pytest.raises(IllegalStateException):
        state.transition_to_unattached_voted_state(4, other_node_key)
    with pytest.raises(IllegalStateException):
        state.transition_to_follower(4, other_node_key.id, voters.listeners(other_node_key.id))
    assert state.epoch() == 6
    assert t.store.read_election_state() == ElectionState.with_elected_leader(
        6, t.local_id, t.persisted_voters(voters.voter_ids(), kraft_version))


@parametrize_kraft_version
def test_cannot_follow_or_vote_for_self(t: QuorumStateTestContext, kraft_version: int) -> None:
    voters = t.local_standalone_voter_set()
    assert t.store.read_election_state() is None
    state = t.initialize_empty_state(voters, kraft_version)

    with pytest.raises(IllegalStateException):
        state.transition_to_follower(0, t.local_id, voters.listeners(t.local_id))
    with pytest.raises(IllegalStateException):
        state.transition_to_unattached_voted_state(0, t.local_voter_key)


@parametrize_kraft_version
def test_unattached_to_leader_or_resigned(t: QuorumStateTestContext, kraft_version: int) -> None:
    leader_key = _random_key(1)
    epoch = 5
    voters = voter_set_of_keys([t.local_voter_key, leader_key])
    t.store.write_election_state(ElectionState.with_voted_candidate(epoch, leader_key, voters.voter_ids()),
                                 kraft_version)
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    assert state.is_unattached()
    with pytest.raises(IllegalStateException):
        state.transition_to_leader(0, t.accumulator)
    with pytest.raises(IllegalStateException):
        state.transition_to_resigned([])


@parametrize_kraft_version
def test_unattached_voted_same_epoch(t: QuorumStateTestContext, kraft_version: int) -> None:
    other_node_key = _random_key(1)
    voters = voter_set_of_keys([t.local_voter_key, other_node_key])
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_unattached(5)

    jitter_ms = 2500
    t.random.mock_next_int(t.election_timeout_ms, jitter_ms)
    state.transition_to_unattached_voted_state(5, other_node_key)

    voted_state = state.unattached_state_or_throw()
    assert voted_state.epoch() == 5
    assert voted_state.voted_key() == other_node_key

    assert t.store.read_election_state() == ElectionState.with_voted_candidate(
        5, t.persisted_voted_key(other_node_key, kraft_version),
        t.persisted_voters(voters.voter_ids(), kraft_version))

    # voting for a candidate restarts the election timer
    assert voted_state.remaining_election_time_ms(t.time.milliseconds()) == t.election_timeout_ms + jitter_ms


@parametrize_kraft_version
def test_unattached_voted_higher_epoch(t: QuorumStateTestContext, kraft_version: int) -> None:
    other_node_key = _random_key(1)
    voters = voter_set_of_keys([t.local_voter_key, other_node_key])
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_unattached(5)
    assert state.is_unattached_not_voted()

    state.transition_to_unattached_voted_state(8, other_node_key)
    assert state.is_unattached_and_voted()

    voted_state = state.unattached_state_or_throw()
    assert voted_state.epoch() == 8
    assert voted_state.voted_key() == other_node_key

    assert t.store.read_election_state() == ElectionState.with_voted_candidate(
        8, t.persisted_voted_key(other_node_key, kraft_version),
        t.persisted_voters(voters.voter_ids(), kraft_version))


@parametrize_kraft_version
def test_unattached_to_candidate(t: QuorumStateTestContext, kraft_version: int) -> None:
    other_node_key = _random_key(1)
    voters = voter_set_of_keys([t.local_voter_key, other_node_key])
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_unattached(5)

    jitter_ms = 2500
    t.random.mock_next_int(t.election_timeout_ms, jitter_ms)
    state.transition_to_candidate()

    assert state.is_candidate()
    candidate_state = state.candidate_state_or_throw()
    assert candidate_state.epoch() == 6
    assert candidate_state.remaining_election_time_ms(t.time.milliseconds()) == t.election_timeout_ms + jitter_ms


@parametrize_kraft_version
def test_unattached_to_unattached(t: QuorumStateTestContext, kraft_version: int) -> None:
    other_node_key = _random_key(1)
    voters = voter_set_of_keys([t.local_voter_key, other_node_key])
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_unattached(5)
    assert state.is_unattached_not_voted()

    remaining_election_time_ms = state.unattached_state_or_throw().remaining_election_time_ms(t.time.milliseconds())
    t.time.sleep(1000)

    state.transition_to_unattached(6)
    assert state.is_unattached_not_voted()
    unattached_state = state.unattached_state_or_throw()
    assert unattached_state.epoch() == 6

    # the election timer keeps running across the epoch change
    assert unattached_state.remaining_election_time_ms(t.time.milliseconds()) == remaining_election_time_ms - 1000


@parametrize_kraft_version
def test_unattached_to_follower_same_epoch(t: QuorumStateTestContext, kraft_version: int) -> None:
    other_node_key = _random_key(1)
    voters = voter_set_of_keys([t.local_voter_key, other_node_key])
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_unattached(5)

    state.transition_to_follower(5, other_node_key.id, voters.listeners(other_node_key.id))
    assert state.is_follower()
    follower_state = state.follower_state_or_throw()
    assert follower_state.epoch() == 5
    assert follower_state.leader_endpoints() == voters.listeners(other_node_key.id)
    assert follower_state.remaining_fetch_time_ms(t.time.milliseconds()) == t.fetch_timeout_ms


@parametrize_kraft_version
def test_unattached_to_follower_higher_epoch(t: QuorumStateTestContext, kraft_version: int) -> None:
    other_node_key = _random_key(1)
    voters = voter_set_of_keys([t.local_voter_key, other_node_key])
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_unattached(5)

    state.transition_to_follower(8, other_node_key.id, voters.listeners(other_node_key.id))
    assert state.is_follower()
    follower_state = state.follower_state_or_throw()
    assert follower_state.epoch() == 8
    assert follower_state.leader_endpoints() == voters.listeners(other_node_key.id)
    assert follower_state.remaining_fetch_time_ms(t.time.milliseconds()) == t.fetch_timeout_ms


@parametrize_kraft_version
def test_unattached_to_any_state_lower_epoch(t: QuorumStateTestContext, kraft_version: int) -> None:
    other_node_key = _random_key(1)
    voters = voter_set_of_keys([t.local_voter_key, other_node_key])
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_unattached(5)
    with pytest.raises(IllegalStateException):
        state.transition_to_unattached(4)
    with pytest.raises(IllegalStateException):
        state.transition_to_unattached_voted_state(4, other_node_key)
    with pytest.raises(IllegalStateException):
        state.transition_to_follower(4, other_node_key.id, voters.listeners(other_node_key.id))
    assert state.epoch() == 5
    assert t.store.read_election_state() == ElectionState.with_unknown_leader(
        5, t.persisted_voters(voters.voter_ids(), kraft_version))


@parametrize_kraft_version
def test_unattached_voted_to_invalid_leader_or_resigned(t: QuorumStateTestContext, kraft_version: int) -> None:
    node1, node2 = 1, 2
    voters = t.local_with_remote_voter_set([node1, node2], kraft_version)
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_unattached_voted_state(5, _no_dir(node1))
    with pytest.raises(IllegalStateException):
        state.transition_to_leader(0, t.accumulator)
    with pytest.raises(IllegalStateException):
        state.transition_to_resigned([])


@parametrize_kraft_version
def test_unattached_voted_to_candidate(t: QuorumStateTestContext, kraft_version: int) -> None:
    node1, node2 = 1, 2
    voters = t.local_with_remote_voter_set([node1, node2], kraft_version)
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_unattached_voted_state(5, _no_dir(node1))

    jitter_ms = 2500
    t.random.mock_next_int(t.election_timeout_ms, jitter_ms)
    state.transition_to_candidate()
    assert state.is_candidate()
    candidate_state = state.candidate_state_or_throw()
    assert candidate_state.epoch() == 6
    assert candidate_state.remaining_election_time_ms(t.time.milliseconds()) == t.election_timeout_ms + jitter_ms


@parametrize_kraft_version
def test_observer_from_unattached_voted_to_candidate(t: QuorumStateTestContext, kraft_version: int) -> None:
    voter1, voter2 = 1, 2
    voters = t.with_remote_voter_set([voter1, voter2], kraft_version)
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_unattached_voted_state(5, _no_dir(voter1))

    with pytest.raises(IllegalStateException):
        state.transition_to_candidate()
    assert state.is_unattached()


@parametrize_kraft_version
def test_unattached_voted_to_unattached_voted_same_epoch(t: QuorumStateTestContext, kraft_version: int) -> None:
    node1, node2 = 1, 2
    voters = t.local_with_remote_voter_set([node1, node2], kraft_version)
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_unattached(5)
    state.transition_to_unattached_voted_state(8, _random_key(node1))
    with pytest.raises(IllegalStateException):
        state.transition_to_unattached_voted_state(8, _no_dir(node1))
    with pytest.raises(IllegalStateException):
        state.transition_to_unattached_voted_state(8, _no_dir(node2))


@parametrize_kraft_version
def test_unattached_voted_to_follower_same_epoch(t: QuorumStateTestContext, kraft_version: int) -> None:
    node1, node2 = 1, 2
    voters = t.local_with_remote_voter_set([node1, node2], kraft_version)
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_unattached_voted_state(5, _no_dir(node1))
    state.transition_to_follower(5, node2, voters.listeners(node2))

    follower_state = state.follower_state_or_throw()
    assert follower_state.epoch() == 5
    assert follower_state.leader_endpoints() == voters.listeners(node2)
    assert t.store.read_election_state() == ElectionState.with_elected_leader(
        5, node2, t.persisted_voters(voters.voter_ids(), kraft_version))


@parametrize_kraft_version
def test_unattached_voted_to_follower_higher_epoch(t: QuorumStateTestContext, kraft_version: int) -> None:
    node1, node2 = 1, 2
    voters = t.local_with_remote_voter_set([node1, node2], kraft_version)
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_unattached_voted_state(5, _no_dir(node1))
    state.transition_to_follower(8, node2, voters.listeners(node2))

    follower_state = state.follower_state_or_throw()
    assert follower_state.epoch() == 8
    assert follower_state.leader_endpoints() == voters.listeners(node2)
    assert t.store.read_election_state() == ElectionState.with_elected_leader(
        8, node2, t.persisted_voters(voters.voter_ids(), kraft_version))


@parametrize_kraft_version
def test_unattached_voted_to_unattached_same_epoch(t: QuorumStateTestContext, kraft_version: int) -> None:
    node1, node2 = 1, 2
    voters = t.local_with_remote_voter_set([node1, node2], kraft_version)
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_unattached_voted_state(5, _no_dir(node1))
    with pytest.raises(IllegalStateException):
        state.transition_to_unattached(5)


@parametrize_kraft_version
def test_unattached_voted_to_unattached_higher_epoch(t: QuorumStateTestContext, kraft_version: int) -> None:
    other_node_id = 1
    voters = t.local_with_remote_voter_set([other_node_id], kraft_version)
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_unattached_voted_state(5, _no_dir(other_node_id))

    remaining_election_time_ms = state.unattached_state_or_throw().remaining_election_time_ms(t.time.milliseconds())
    t.time.sleep(1000)

    state.transition_to_unattached(6)
    unattached_state = state.unattached_state_or_throw()
    assert unattached_state.epoch() == 6

    # the election timer keeps running across the epoch change
    assert unattached_state.remaining_election_time_ms(t.time.milliseconds()) == remaining_election_time_ms - 1000


@parametrize_kraft_version
def test_unattached_voted_to_any_state_lower_epoch(t: QuorumStateTestContext, kraft_version: int) -> None:
    other_node_key = _random_key(1)
    voters = voter_set_of_keys([t.local_voter_key, other_node_key])
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_unattached_voted_state(5, other_node_key)
    with pytest.raises(IllegalStateException):
        state.transition_to_unattached(4)
    with pytest.raises(IllegalStateException):
        state.transition_to_unattached_voted_state(4, other_node_key)
    with pytest.raises(IllegalStateException):
        state.transition_to_follower(4, other_node_key.id, voters.listeners(other_node_key.id))
    assert state.epoch() == 5
    assert t.store.read_election_state() == ElectionState.with_voted_candidate(
        5, t.persisted_voted_key(other_node_key, kraft_version),
        t.persisted_voters(voters.voter_ids(), kraft_version))


@parametrize_kraft_version
def test_all_states_to_unattached_fail_in_same_epoch(t: QuorumStateTestContext, kraft_version: int) -> None:
    voter1 = _random_key(1)
    voter2 = _random_key(2)
    voters = voter_set_of_keys([t.local_voter_key, voter1, voter2])
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))

    # from unattached
    state.unattached_state_or_throw()
    state.transition_to_unattached_voted_state(5, voter1)
    # one vote an epoch, whoever asks
    with pytest.raises(IllegalStateException):
        state.transition_to_unattached_voted_state(5, voter1)
    with pytest.raises(IllegalStateException):
        state.transition_to_unattached_voted_state(5, voter2)
    # a later epoch takes a new vote, for either
    state.transition_to_unattached_voted_state(10, voter1)
    state.transition_to_unattached_voted_state(15, voter2)

    # from follower
    state.transition_to_follower(20, voter1.id, voters.listeners(voter1.id))
    with pytest.raises(IllegalStateException):
        state.transition_to_unattached_voted_state(state.epoch(), voter1)
    state.transition_to_unattached_voted_state(state.epoch() + 1, voter1)

    # from candidate
    state.transition_to_candidate()
    with pytest.raises(IllegalStateException):
        state.transition_to_unattached_voted_state(state.epoch(), voter1)
    state.transition_to_unattached_voted_state(state.epoch() + 1, voter1)

    # from leader
    state.transition_to_candidate()
    state.candidate_state_or_throw().record_granted_vote(voter1.id)
    state.transition_to_leader(0, t.accumulator)
    with pytest.raises(IllegalStateException):
        state.transition_to_unattached_voted_state(state.epoch(), voter1)
    state.transition_to_unattached_voted_state(state.epoch() + 1, voter1)


@parametrize_kraft_version
def test_follower_to_follower_same_epoch(t: QuorumStateTestContext, kraft_version: int) -> None:
    node1, node2 = 1, 2
    voters = t.local_with_remote_voter_set([node1, node2], kraft_version)
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_follower(8, node2, voters.listeners(node2))
    with pytest.raises(IllegalStateException):
        state.transition_to_follower(8, node1, voters.listeners(node1))
    with pytest.raises(IllegalStateException):
        state.transition_to_follower(8, node2, voters.listeners(node2))

    follower_state = state.follower_state_or_throw()
    assert follower_state.epoch() == 8
    assert follower_state.leader_endpoints() == voters.listeners(node2)
    assert t.store.read_election_state() == ElectionState.with_elected_leader(
        8, node2, t.persisted_voters(voters.voter_ids(), kraft_version))


@parametrize_kraft_version
def test_follower_to_follower_same_epoch_and_more_endpoints(t: QuorumStateTestContext, kraft_version: int) -> None:
    node1, node2 = 1, 2
    voters = t.local_with_remote_voter_set([node1, node2], kraft_version)
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_follower(8, node2, voters.listeners(node2))

    new_node2_endpoints = Endpoints.from_inet_socket_addresses({
        DEFAULT_LISTENER_NAME: ("localhost", 9990 + node2),
        "ANOTHER_LISTENER": ("localhost", 8990 + node2),
    })

    state.transition_to_follower(8, node2, new_node2_endpoints)


@parametrize_kraft_version
def test_follower_to_follower_higher_epoch(t: QuorumStateTestContext, kraft_version: int) -> None:
    node1, node2 = 1, 2
    voters = t.local_with_remote_voter_set([node1, node2], kraft_version)
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_follower(8, node2, voters.listeners(node2))
    state.transition_to_follower(9, node1, voters.listeners(node1))

    follower_state = state.follower_state_or_throw()
    assert follower_state.epoch() == 9
    assert follower_state.leader_endpoints() == voters.listeners(node1)
    assert t.store.read_election_state() == ElectionState.with_elected_leader(
        9, node1, t.persisted_voters(voters.voter_ids(), kraft_version))


@parametrize_kraft_version
def test_follower_to_leader_or_resigned(t: QuorumStateTestContext, kraft_version: int) -> None:
    node1, node2 = 1, 2
    voters = t.local_with_remote_voter_set([node1, node2], kraft_version)
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_follower(8, node2, voters.listeners(node2))
    with pytest.raises(IllegalStateException):
        state.transition_to_leader(0, t.accumulator)
    with pytest.raises(IllegalStateException):
        state.transition_to_resigned([])


@parametrize_kraft_version
def test_follower_to_candidate(t: QuorumStateTestContext, kraft_version: int) -> None:
    node1, node2 = 1, 2
    voters = t.local_with_remote_voter_set([node1, node2], kraft_version)
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_follower(8, node2, voters.listeners(node2))

    jitter_ms = 2500
    t.random.mock_next_int(t.election_timeout_ms, jitter_ms)
    state.transition_to_candidate()
    assert state.is_candidate()
    candidate_state = state.candidate_state_or_throw()
    assert candidate_state.epoch() == 9
    assert candidate_state.remaining_election_time_ms(t.time.milliseconds()) == t.election_timeout_ms + jitter_ms


@parametrize_kraft_version
def test_follower_to_unattached_same_epoch(t: QuorumStateTestContext, kraft_version: int) -> None:
    node1, node2 = 1, 2
    voters = t.local_with_remote_voter_set([node1, node2], kraft_version)
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_follower(8, node2, voters.listeners(node2))
    with pytest.raises(IllegalStateException):
        state.transition_to_unattached(8)


@parametrize_kraft_version
def test_follower_to_unattached_higher_epoch(t: QuorumStateTestContext, kraft_version: int) -> None:
    node1, node2 = 1, 2
    voters = t.local_with_remote_voter_set([node1, node2], kraft_version)
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_follower(8, node2, voters.listeners(node2))

    jitter_ms = 2500
    t.random.mock_next_int(t.election_timeout_ms, jitter_ms)
    state.transition_to_unattached(9)
    assert state.is_unattached()
    unattached_state = state.unattached_state_or_throw()
    assert unattached_state.epoch() == 9
    assert unattached_state.remaining_election_time_ms(t.time.milliseconds()) == t.election_timeout_ms + jitter_ms


@parametrize_kraft_version
def test_follower_to_unattached_voted_same_epoch(t: QuorumStateTestContext, kraft_version: int) -> None:
    node1, node2 = 1, 2
    voters = t.local_with_remote_voter_set([node1, node2], kraft_version)
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_follower(8, node2, voters.listeners(node2))

    with pytest.raises(IllegalStateException):
        state.transition_to_unattached_voted_state(8, _no_dir(node1))
    with pytest.raises(IllegalStateException):
        state.transition_to_unattached_voted_state(8, _no_dir(t.local_id))
    with pytest.raises(IllegalStateException):
        state.transition_to_unattached_voted_state(8, _no_dir(node2))


@parametrize_kraft_version
def test_follower_to_unattached_voted_higher_epoch(t: QuorumStateTestContext, kraft_version: int) -> None:
    node_key1 = _random_key(1)
    node_key2 = _random_key(2)

    voters = voter_set_of_keys([t.local_voter_key, node_key1, node_key2])
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_follower(8, node_key2.id, voters.listeners(node_key2.id))

    jitter_ms = 2500
    t.random.mock_next_int(t.election_timeout_ms, jitter_ms)

    state.transition_to_unattached_voted_state(9, node_key1)
    assert state.is_unattached_and_voted()

    voted_state = state.unattached_state_or_throw()
    assert voted_state.epoch() == 9
    assert voted_state.voted_key() == node_key1

    assert voted_state.remaining_election_time_ms(t.time.milliseconds()) == t.election_timeout_ms + jitter_ms


@parametrize_kraft_version
def test_follower_to_any_state_lower_epoch(t: QuorumStateTestContext, kraft_version: int) -> None:
    other_node_id = 1
    voters = t.local_with_remote_voter_set([other_node_id], kraft_version)
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    state.transition_to_follower(5, other_node_id, voters.listeners(other_node_id))
    with pytest.raises(IllegalStateException):
        state.transition_to_unattached(4)
    with pytest.raises(IllegalStateException):
        state.transition_to_unattached_voted_state(4, _no_dir(other_node_id))
    with pytest.raises(IllegalStateException):
        state.transition_to_follower(4, other_node_id, voters.listeners(other_node_id))
    assert state.epoch() == 5
    assert t.store.read_election_state() == ElectionState.with_elected_leader(
        5, other_node_id, t.persisted_voters(voters.voter_ids(), kraft_version))


@parametrize_kraft_version
def test_can_become_follower_of_non_voter(t: QuorumStateTestContext, kraft_version: int) -> None:
    other_node_id = 1
    non_voter_key = _random_key(2)
    voters = t.local_with_remote_voter_set([other_node_id], kraft_version)
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))

    # a vote for the non-voter first
    state.transition_to_unattached_voted_state(4, non_voter_key)
    assert state.is_unattached_and_voted()

    voted_state = state.unattached_state_or_throw()
    assert voted_state.epoch() == 4
    assert voted_state.voted_key() == non_voter_key

    # then follow it
    state.transition_to_follower(
        4, non_voter_key.id,
        Endpoints.from_inet_socket_addresses({DEFAULT_LISTENER_NAME: ("non-voter-host", 1234)}))
    assert state.leader_and_epoch() == LeaderAndEpoch(non_voter_key.id, 4)


@parametrize_kraft_version
def test_observer_cannot_become_candidate_or_leader(t: QuorumStateTestContext, kraft_version: int) -> None:
    with_directory_id = kraft_version > 0
    other_node_id = 1
    voters = voter_set(voter_map([other_node_id], with_directory_id))
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    assert state.is_observer()
    with pytest.raises(IllegalStateException):
        state.transition_to_candidate()
    with pytest.raises(IllegalStateException):
        state.transition_to_leader(0, t.accumulator)


@parametrize_kraft_version
def test_observer_with_id_can_vote(t: QuorumStateTestContext, kraft_version: int) -> None:
    other_node_key = _random_key(1)
    voters = voter_set_of_keys([other_node_key])

    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    assert state.is_observer()

    state.transition_to_unattached_voted_state(5, other_node_key)
    assert state.is_unattached_and_voted()

    voted_state = state.unattached_state_or_throw()
    assert voted_state.epoch() == 5
    assert voted_state.voted_key() == other_node_key


@parametrize_kraft_version
def test_observer_follower_to_unattached(t: QuorumStateTestContext, kraft_version: int) -> None:
    with_directory_id = kraft_version > 0
    node1, node2 = 1, 2
    voters = voter_set(voter_map([node1, node2], with_directory_id))
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    assert state.is_observer()

    state.transition_to_follower(2, node1, voters.listeners(node1))
    state.transition_to_unattached(3)
    assert state.is_unattached()
    unattached_state = state.unattached_state_or_throw()
    assert unattached_state.epoch() == 3

    # an observer waits, unattached, for as long as it takes to find the leader
    assert unattached_state.election_timeout_ms() == LONG_MAX


@parametrize_kraft_version
def test_observer_unattached_to_follower(t: QuorumStateTestContext, kraft_version: int) -> None:
    with_directory_id = kraft_version > 0
    node1, node2 = 1, 2
    voters = voter_set(voter_map([node1, node2], with_directory_id))
    state = t.initialize_empty_state(voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, t.log_end_epoch))
    assert state.is_observer()

    state.transition_to_unattached(2)
    state.transition_to_follower(3, node1, voters.listeners(node1))
    assert state.is_follower()
    follower_state = state.follower_state_or_throw()
    assert follower_state.epoch() == 3
    assert follower_state.leader_endpoints() == voters.listeners(node1)
    assert follower_state.remaining_fetch_time_ms(t.time.milliseconds()) == t.fetch_timeout_ms


class _ThrowingQuorumStateStore(MockQuorumStateStore):
    """Mockito.doThrow(UncheckedIOException.class).when(stateStore).readElectionState()."""

    def read_election_state(self) -> ElectionState | None:
        raise OSError("UncheckedIOException")


@parametrize_kraft_version
def test_initialize_with_corrupted_store(t: QuorumStateTestContext, kraft_version: int) -> None:
    # Kafka builds this throwing store but hands the QuorumState the test's own (empty) store, as here
    state_store: QuorumStateStore = _ThrowingQuorumStateStore()
    assert state_store is not t.store

    state = t.build_quorum_state(t.local_id, t.local_standalone_voter_set(), kraft_version)

    epoch = 2
    state.initialize(OffsetAndEpoch(0, epoch))
    assert state.epoch() == epoch
    assert state.is_unattached()
    assert not state.has_leader()


@parametrize_kraft_version
def test_has_remote_leader(t: QuorumStateTestContext, kraft_version: int) -> None:
    other_node_key = _random_key(1)
    voters = voter_set_of_keys([t.local_voter_key, other_node_key])

    state = t.initialize_empty_state(voters, kraft_version)
    assert not state.has_remote_leader()

    state.transition_to_candidate()
    assert not state.has_remote_leader()

    state.candidate_state_or_throw().record_granted_vote(other_node_key.id)
    state.transition_to_leader(0, t.accumulator)
    assert not state.has_remote_leader()

    state.transition_to_unattached(state.epoch() + 1)
    assert not state.has_remote_leader()

    state.transition_to_unattached_voted_state(state.epoch() + 1, other_node_key)
    assert not state.has_remote_leader()

    state.transition_to_follower(state.epoch() + 1, other_node_key.id, voters.listeners(other_node_key.id))
    assert state.has_remote_leader()


@parametrize_kraft_version
def test_high_watermark_retained(t: QuorumStateTestContext, kraft_version: int) -> None:
    other_node_key = _random_key(1)
    voters = voter_set_of_keys([t.local_voter_key, other_node_key])

    state = t.initialize_empty_state(voters, kraft_version)
    state.transition_to_follower(5, other_node_key.id, voters.listeners(other_node_key.id))

    follower_state = state.follower_state_or_throw()
    follower_state.update_high_watermark(10)

    high_watermark = LogOffsetMetadata(10)
    assert state.high_watermark() == high_watermark

    state.transition_to_unattached(6)
    assert state.high_watermark() == high_watermark

    state.transition_to_unattached_voted_state(7, other_node_key)
    assert state.high_watermark() == high_watermark

    state.transition_to_candidate()
    assert state.high_watermark() == high_watermark

    candidate_state = state.candidate_state_or_throw()
    candidate_state.record_granted_vote(other_node_key.id)
    assert candidate_state.is_vote_granted()

    state.transition_to_leader(10, t.accumulator)
    assert state.high_watermark() is None


@parametrize_kraft_version
def test_initialize_with_empty_local_id(t: QuorumStateTestContext, kraft_version: int) -> None:
    with_directory_id = kraft_version > 0
    voters = voter_set(voter_map([0, 1], with_directory_id))
    state = t.build_quorum_state(None, voters, kraft_version)
    state.initialize(OffsetAndEpoch(0, 0))

    assert state.is_observer()
    assert not state.is_voter()

    with pytest.raises(IllegalStateException):
        state.transition_to_candidate()
    with pytest.raises(IllegalStateException):
        state.transition_to_unattached_voted_state(1, _no_dir(1))
    with pytest.raises(IllegalStateException):
        state.transition_to_leader(0, t.accumulator)

    state.transition_to_follower(1, 1, voters.listeners(1))
    assert state.is_follower()

    state.transition_to_unattached(2)
    assert state.is_unattached()


@parametrize_kraft_version
def test_no_local_id_initialization_fails_if_election_state_has_voted_candidate(
        t: QuorumStateTestContext, kraft_version: int) -> None:
    with_directory_id = kraft_version > 0
    epoch = 5
    voted_id = 1
    voters = voter_set(voter_map([0, voted_id], with_directory_id))

    t.store.write_election_state(ElectionState.with_voted_candidate(epoch, _no_dir(voted_id), voters.voter_ids()),
                                 kraft_version)

    state2 = t.build_quorum_state(None, voters, kraft_version)
    with pytest.raises(IllegalStateException):
        state2.initialize(OffsetAndEpoch(0, 0))
