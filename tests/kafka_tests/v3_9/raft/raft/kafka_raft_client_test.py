"""Port of raft/src/test/java/org/apache/kafka/raft/KafkaRaftClientTest.java (Kafka 3.9).

One KafkaRaftClient on the raft test doubles (MockLog, MockNetworkChannel, MockMessageQueue, MockQuorumStateStore,
MockExpirationService, MockTime), driven through RaftClientTestContext (raft_client_test_context.py beside this
file).

kafka-edu's raft is kraft.version 0 (static voters). Kafka runs nearly every case twice, `withKip853Rpc` false and
true; the `true` variant sends directory ids and KIP-853's RPC versions, which the port's static voters do not have:
each case runs its `false` variant only (the DescribeQuorum cases' `false, false` row of three). The case of KIP-853
only (a bootstrap snapshot with a voter set) is not applicable; bootstrap servers go to the client's
`bootstrap_servers` argument. Requests and responses are the kio objects at the versions the port speaks (Vote,
BeginQuorumEpoch, EndQuorumEpoch v1, Fetch v17, without directory ids), with no wire round trip. Left out of the
ported cases: the raft metrics' assertions (the port registers no metrics), the memory pool's (the port allocates no
buffers from a pool: the AccumulatorCleared cases keep their election assertions only), and DescribeQuorum's
partition error message (the port's Errors carry no message texts). The cases Kafka runs with `withKip853Rpc(true)`
only but that test what static voters have too (a leader's extra endpoints in BeginQuorumEpoch, the voter key of
Vote and BeginQuorumEpoch v1) run without directory ids.
"""

from __future__ import annotations

import random

import pytest

from kafka_edu.v1_0_2.clients.common.errors import RecordBatchTooLargeException
from kafka_edu.v1_0_2.clients.common.record.file_records import MemoryRecords
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.uuid import ZERO_UUID
from kafka_edu.v3_9.raft.raft.errors import NotLeaderException
from kafka_edu.v3_9.raft.raft.kafka_raft_client import MAX_BATCH_SIZE_BYTES
from kafka_edu.v3_9.raft.raft.leader_and_epoch import LeaderAndEpoch
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.raft.raft.raft_client_test_context import (
    DEFAULT_ELECTION_TIMEOUT_MS,
    Builder,
    RaftClientTestContext,
    replica_key,
    wait_for_condition,
)

KAFKA = kafka_test_class(
    "3.9", "raft/src/test/java/org/apache/kafka/raft/KafkaRaftClientTest.java",
    cases=[
        "testNodeDirectoryId", "testInitializeSingleMemberQuorum",
        "testInitializeAsLeaderFromStateStoreSingleMemberQuorum",
        "testRejectVotesFromSameEpochAfterResigningLeadership",
        "testRejectVotesFromSameEpochAfterResigningCandidacy",
        "testGrantVotesFromHigherEpochAfterResigningLeadership",
        "testGrantVotesFromHigherEpochAfterResigningCandidacy", "testGrantVotesWhenShuttingDown",
        "testInitializeAsResignedAndBecomeCandidate", "testInitializeAsResignedLeaderFromStateStore",
        "testAppendFailedWithNotLeaderException", "testAppendFailedWithBufferAllocationException",
        "testAppendFailedWithFencedEpoch", "testAppendFailedWithRecordBatchTooLargeException",
        "testEndQuorumEpochRetriesWhileResigned", "testResignWillCompleteFetchPurgatory",
        "testResignInOlderEpochIgnored", "testHandleBeginQuorumEpochAfterUserInitiatedResign",
        "testBeginQuorumEpochHeartbeat", "testLeaderShouldResignLeadershipIfNotGetFetchRequestFromMajorityVoters",
        "testLeaderShouldNotResignLeadershipIfOnlyOneVoters", "testElectionTimeoutAfterUserInitiatedResign",
        "testCannotResignWithLargerEpochThanCurrentEpoch", "testCannotResignIfNotLeader",
        "testCannotResignIfObserver", "testInitializeAsCandidateFromStateStore",
        "testInitializeAsCandidateAndBecomeLeader", "testInitializeAsCandidateAndBecomeLeaderQuorumOfThree",
        "testHandleBeginQuorumRequest", "testHandleBeginQuorumRequestMoreEndpoints", "testHandleBeginQuorumResponse",
        "testEndQuorumIgnoredAsCandidateIfOlderEpoch", "testEndQuorumIgnoredAsLeaderIfOlderEpoch",
        "testEndQuorumStartsNewElectionImmediatelyIfFollowerUnattached",
        "testAccumulatorClearedAfterBecomingFollower", "testAccumulatorClearedAfterBecomingVoted",
        "testAccumulatorClearedAfterBecomingUnattached", "testChannelWokenUpIfLingerTimeoutReachedWithoutAppend",
        "testChannelWokenUpIfLingerTimeoutReachedDuringAppend", "testHandleEndQuorumRequest",
        "testHandleEndQuorumRequestWithLowerPriorityToBecomeLeader", "testVoteRequestTimeout",
        "testHandleValidVoteRequestAsFollower", "testHandleVoteRequestAsFollowerWithElectedLeader",
        "testHandleVoteRequestAsFollowerWithVotedCandidate", "testHandleInvalidVoteRequestWithOlderEpoch",
        "testHandleVoteRequestAsObserver", "testLeaderIgnoreVoteRequestOnSameEpoch",
        "testListenerCommitCallbackAfterLeaderWrite", "testLeaderImmediatelySendsDivergingEpoch",
        "testCandidateIgnoreVoteRequestOnSameEpoch", "testRetryElection", "testInitializeAsFollowerEmptyLog",
        "testInitializeAsFollowerNonEmptyLog", "testVoterBecomeCandidateAfterFetchTimeout",
        "testFollowerAsObserverDoesNotBecomeCandidateAfterFetchTimeout",
        "testUnattachedAsObserverDoesNotBecomeCandidateAfterElectionTimeout",
        "testInitializeObserverNoPreviousState", "testObserverQuorumDiscoveryFailure",
        "testObserverSendDiscoveryFetchAfterFetchTimeout", "testObserverHandleRetryFetchtToBootstrapServer",
        "testObserverHandleRetryFetchToLeader", "testInvalidFetchRequest",
        "testLeaderStateUpdateWithDifferentFetchRequestVersions", "testFetchRequestClusterIdValidation",
        "testVoteRequestClusterIdValidation", "testInvalidVoterReplicaVoteRequest",
        "testInvalidVoterReplicaBeginQuorumEpochRequest", "testBeginQuorumEpochRequestClusterIdValidation",
        "testEndQuorumEpochRequestClusterIdValidation", "testLeaderAcceptVoteFromObserver", "testInvalidVoteRequest",
        "testPurgatoryFetchTimeout", "testPurgatoryFetchSatisfiedByWrite",
        "testPurgatoryFetchCompletedByFollowerTransition", "testFetchResponseIgnoredAfterBecomingCandidate",
        "testFetchResponseIgnoredAfterBecomingFollowerOfDifferentLeader",
        "testVoteResponseIgnoredAfterBecomingFollower", "testObserverLeaderRediscoveryAfterBrokerNotAvailableError",
        "testObserverLeaderRediscoveryAfterRequestTimeout", "testLeaderGracefulShutdown",
        "testEndQuorumEpochSentBasedOnFetchOffset", "testDescribeQuorumNonLeader",
        "testDescribeQuorumWithOnlyStaticVoters", "testDescribeQuorumWithFollowers",
        "testDescribeQuorumWithObserver", "testDescribeQuorumNonMonotonicFollowerFetch",
        "testStaticVotersIgnoredWithBootstrapSnapshot", "testLeaderGracefulShutdownTimeout",
        "testFollowerGracefulShutdown", "testObserverGracefulShutdown", "testGracefulShutdownSingleMemberQuorum",
        "testFollowerReplication", "testObserverReplication", "testEmptyRecordSetInFetchResponse",
        "testFetchShouldBeTreatedAsLeaderAcknowledgement", "testLeaderAppendSingleMemberQuorum",
        "testFollowerLogReconciliation", "testMetrics", "testClusterAuthorizationFailedInFetch",
        "testClusterAuthorizationFailedInBeginQuorumEpoch", "testClusterAuthorizationFailedInVote",
        "testClusterAuthorizationFailedInEndQuorumEpoch",
        "testHandleLeaderChangeFiresAfterListenerReachesEpochStartOffsetOnEmptyLog",
        "testHandleLeaderChangeFiresAfterListenerReachesEpochStartOffset", "testLateRegisteredListenerCatchesUp",
        "testReregistrationChangesListenerContext",
        "testHandleCommitCallbackFiresAfterFollowerHighWatermarkAdvances",
        "testHandleCommitCallbackFiresInVotedState", "testHandleCommitCallbackFiresInCandidateState",
        "testHandleLeaderChangeFiresAfterUnattachedRegistration",
        "testHandleLeaderChangeFiresAfterFollowerRegistration", "testHandleLeaderChangeFiresAfterResignRegistration",
        "testObserverFetchWithNoLocalId",
    ],
    not_applicable={
        "testAppendFailedWithBufferAllocationException": "a Mockito MemoryPool failing to allocate: the port "
                                                         "allocates from no memory pool",
        "testStaticVotersIgnoredWithBootstrapSnapshot": "KIP-853: a bootstrap snapshot with a voter set (kraft.version "
                                                        "1) is not built in kafka-edu",
        "testMetrics": "raft metrics: the port registers no metrics",
    },
)

KIP853 = pytest.mark.parametrize("with_kip853_rpc", [False])


def random_replica_id() -> int:
    return random.randrange(1025)


def test_node_directory_id() -> None:
    local_id = random_replica_id()
    with pytest.raises(ValueError):
        Builder(local_id, local_directory_id=ZERO_UUID).build()


@KIP853
def test_initialize_single_member_quorum(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    context = Builder(local_id, {local_id}).with_kip853_rpc(with_kip853_rpc).build()
    context.assert_elected_leader(1, local_id)
    assert context.client.log_end_offset() == context.log.end_offset().offset


@KIP853
def test_initialize_as_leader_from_state_store_single_member_quorum(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    initial_epoch = 2
    context = (Builder(local_id, {local_id}).with_kip853_rpc(with_kip853_rpc)
               .with_elected_leader(initial_epoch, local_id).build())
    context.poll_until(lambda: context.log.end_offset().offset == 1)
    assert context.log.end_offset().offset == 1
    assert context.log.last_fetched_epoch() == initial_epoch + 1
    assert context.current_leader_and_epoch() == LeaderAndEpoch(local_id, initial_epoch + 1)
    context.assert_elected_leader(initial_epoch + 1, local_id)


def _mock_timeout(r) -> None:  # noqa: ANN001
    r.mock_next_int(DEFAULT_ELECTION_TIMEOUT_MS, 0)


@KIP853
def test_reject_votes_from_same_epoch_after_resigning_leadership(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    remote_key = replica_key(local_id + 1, with_kip853_rpc)
    epoch = 2
    context = (Builder(local_id, {local_id, remote_key.id}).update_random(_mock_timeout)
               .with_elected_leader(epoch, local_id).with_kip853_rpc(with_kip853_rpc).build())
    assert context.log.end_offset().offset == 0
    context.assert_elected_leader(epoch, local_id)
    # leader of epoch 2 once: no vote for anyone else in that epoch, however caught up
    context.deliver_request(context.vote_request(epoch, remote_key, context.log.last_fetched_epoch(),
                                                 context.log.end_offset().offset))
    context.poll_until_response()
    context.assert_sent_vote_response(Errors.NONE, epoch, local_id, False)


@KIP853
def test_reject_votes_from_same_epoch_after_resigning_candidacy(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    remote_key = replica_key(local_id + 1, with_kip853_rpc)
    epoch = 2
    context = (Builder(local_id, {local_id, remote_key.id}).update_random(_mock_timeout)
               .with_voted_candidate(epoch, ReplicaKey.of(local_id, ReplicaKey.NO_DIRECTORY_ID))
               .with_kip853_rpc(with_kip853_rpc).build())
    assert context.log.end_offset().offset == 0
    context.assert_voted_candidate(epoch, local_id)
    context.deliver_request(context.vote_request(epoch, remote_key, context.log.last_fetched_epoch(),
                                                 context.log.end_offset().offset))
    context.poll_until_response()
    context.assert_sent_vote_response(Errors.NONE, epoch, None, False)


@KIP853
def test_grant_votes_from_higher_epoch_after_resigning_leadership(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    remote_key = replica_key(local_id + 1, with_kip853_rpc)
    epoch = 2
    context = (Builder(local_id, {local_id, remote_key.id}).update_random(_mock_timeout)
               .with_elected_leader(epoch, local_id).with_kip853_rpc(with_kip853_rpc).build())
    # restarted as a leader: Resigned
    assert context.client.quorum.is_resigned()
    assert context.log.end_offset().offset == 0
    context.assert_elected_leader(epoch, local_id)
    context.deliver_request(context.vote_request(epoch + 1, remote_key, context.log.last_fetched_epoch(),
                                                 context.log.end_offset().offset))
    context.client.poll()
    # unattached in the new epoch, then the vote granted
    assert context.client.quorum.is_unattached_and_voted()
    context.assert_voted_candidate(epoch + 1, remote_key.id)
    context.assert_sent_vote_response(Errors.NONE, epoch + 1, None, True)


@KIP853
def test_grant_votes_from_higher_epoch_after_resigning_candidacy(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    remote_key = replica_key(local_id + 1, with_kip853_rpc)
    epoch = 2
    context = (Builder(local_id, {local_id, remote_key.id}).update_random(_mock_timeout)
               .with_voted_candidate(epoch, ReplicaKey.of(local_id, ReplicaKey.NO_DIRECTORY_ID))
               .with_kip853_rpc(with_kip853_rpc).build())
    assert context.client.quorum.is_candidate()
    assert context.log.end_offset().offset == 0
    context.assert_voted_candidate(epoch, local_id)
    context.deliver_request(context.vote_request(epoch + 1, remote_key, context.log.last_fetched_epoch(),
                                                 context.log.end_offset().offset))
    context.client.poll()
    assert context.client.quorum.is_unattached_and_voted()
    context.assert_voted_candidate(epoch + 1, remote_key.id)
    context.assert_sent_vote_response(Errors.NONE, epoch + 1, None, True)


@KIP853
def test_grant_votes_when_shutting_down(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    remote_key = replica_key(local_id + 1, with_kip853_rpc)
    context = Builder(local_id, {local_id, remote_key.id}).with_kip853_rpc(with_kip853_rpc).build()
    context.become_leader()
    epoch = context.current_epoch()
    context.client.shutdown(1000)
    assert context.client.is_shutting_down()
    context.deliver_request(context.vote_request(epoch + 1, remote_key, context.log.last_fetched_epoch(),
                                                 context.log.end_offset().offset))
    context.client.poll()
    assert context.client.quorum.is_unattached_and_voted()
    context.assert_voted_candidate(epoch + 1, remote_key.id)
    context.assert_sent_vote_response(Errors.NONE, epoch + 1, None, True)


@KIP853
def test_initialize_as_resigned_and_become_candidate(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    epoch = 2
    context = (Builder(local_id, {local_id, local_id + 1}).update_random(_mock_timeout)
               .with_elected_leader(epoch, local_id).with_kip853_rpc(with_kip853_rpc).build())
    assert context.client.quorum.is_resigned()
    assert context.log.end_offset().offset == 0
    context.assert_elected_leader(epoch, local_id)
    context.time.sleep(context.election_timeout_ms())
    context.client.poll()
    assert context.client.quorum.is_candidate()
    context.assert_voted_candidate(epoch + 1, local_id)


@KIP853
def test_initialize_as_resigned_leader_from_state_store(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    remote_id = local_id + 1
    epoch = 2
    context = (Builder(local_id, {local_id, remote_id}).update_random(_mock_timeout)
               .with_kip853_rpc(with_kip853_rpc).with_elected_leader(epoch, local_id).build())
    # still elected, but Resigned: no writes
    assert context.log.end_offset().offset == 0
    context.assert_elected_leader(epoch, local_id)
    context.client.poll()
    with pytest.raises(NotLeaderException):
        context.client.prepare_append(epoch, ["a", "b"])
    context.poll_until_request()
    request = context.assert_sent_end_quorum_epoch_request(epoch, remote_id)
    context.deliver_response(request.correlation_id, request.destination,
                             context.end_epoch_response(epoch, local_id))
    context.client.poll()
    context.time.sleep(context.election_timeout_ms())
    context.poll_until_request()
    context.assert_voted_candidate(epoch + 1, local_id)
    context.assert_sent_vote_request(epoch + 1, 0, 0, 1)


@KIP853
def test_append_failed_with_not_leader_exception(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    epoch = 2
    context = (Builder(local_id, {local_id, local_id + 1}).with_unknown_leader(epoch)
               .with_kip853_rpc(with_kip853_rpc).build())
    with pytest.raises(NotLeaderException):
        context.client.prepare_append(epoch, ["a", "b"])


@KIP853
def test_append_failed_with_fenced_epoch(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    context = Builder(local_id, {local_id, local_id + 1}).with_kip853_rpc(with_kip853_rpc).build()
    context.become_leader()
    assert context.current_leader() == local_id
    epoch = context.current_epoch()
    with pytest.raises(ValueError):  # IllegalArgumentException on a higher epoch
        context.client.prepare_append(epoch + 1, ["a"])
    with pytest.raises(NotLeaderException):  # on a smaller one
        context.client.prepare_append(epoch - 1, ["a"])


@KIP853
def test_append_failed_with_record_batch_too_large_exception(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    context = Builder(local_id, {local_id, local_id + 1}).with_kip853_rpc(with_kip853_rpc).build()
    context.become_leader()
    assert context.current_leader() == local_id
    epoch = context.current_epoch()
    size = MAX_BATCH_SIZE_BYTES // 8 + 1  # 8: the estimated least size of a record
    with pytest.raises(RecordBatchTooLargeException):
        context.client.prepare_append(epoch, ["a"] * size)


@KIP853
def test_end_quorum_epoch_retries_while_resigned(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    voter1, voter2 = local_id + 1, local_id + 2
    epoch = 19
    # a request timeout below the election timeout: still Resigned when the retry is due
    context = (Builder(local_id, {local_id, voter1, voter2}).with_election_timeout_ms(10000)
               .with_request_timeout_ms(5000).with_elected_leader(epoch, local_id)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.poll_until_request()
    requests = context.collect_end_quorum_requests(epoch, {voter1, voter2}, None)
    assert len(requests) == 2
    end_epoch_outbound = requests[0]
    context.deliver_response(end_epoch_outbound.correlation_id, end_epoch_outbound.destination,
                             context.end_epoch_response(epoch, local_id))
    context.client.poll()
    assert context.channel.drain_send_queue() == []
    non_responded_id = requests[1].destination.id
    context.time.sleep(6000)
    context.poll_until_request()
    retries = context.collect_end_quorum_requests(epoch, {non_responded_id}, None)
    assert len(retries) == 1


@KIP853
def test_resign_will_complete_fetch_purgatory(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    context = Builder(local_id, {local_id, other_node_key.id}).with_kip853_rpc(with_kip853_rpc).build()
    context.become_leader()
    assert context.current_leader() == local_id
    epoch = context.current_epoch()
    context.deliver_request(context.fetch_request(epoch, other_node_key, context.log.end_offset().offset, epoch, 1000))
    context.client.poll()
    # records appended, yet the parked fetch will fail
    context.log.append_as_leader(context.build_batch(context.log.end_offset().offset, epoch, ["raft"]), epoch)
    # resigning fails every parked fetch
    context.client.shutdown(1000)
    context.client.poll()
    context.assert_sent_fetch_partition_response(Errors.NOT_LEADER_OR_FOLLOWER, epoch, local_id)
    context.assert_resigned_leader(epoch, local_id)
    context.time.sleep(1000)
    context.client.poll()
    assert not context.client.is_running()
    assert not context.client.is_shutting_down()


@KIP853
def test_resign_in_older_epoch_ignored(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    context = Builder(local_id, {local_id, local_id + 1}).with_kip853_rpc(with_kip853_rpc).build()
    context.become_leader()
    assert context.current_leader() == local_id
    current_epoch = context.current_epoch()
    context.client.resign(current_epoch - 1)
    context.client.poll()
    # still leader past the election timeout
    context.time.sleep(context.election_timeout_ms() * 2)
    context.client.poll()
    context.assert_elected_leader(current_epoch, local_id)


@KIP853
def test_handle_begin_quorum_epoch_after_user_initiated_resign(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    remote_id1, remote_id2 = local_id + 1, local_id + 2
    context = Builder(local_id, {local_id, remote_id1, remote_id2}).with_kip853_rpc(with_kip853_rpc).build()
    context.become_leader()
    assert context.current_leader() == local_id
    resigned_epoch = context.current_epoch()
    context.client.resign(resigned_epoch)
    context.poll_until(context.client.quorum.is_resigned)
    context.deliver_request(context.begin_epoch_request(resigned_epoch + 1, remote_id1))
    context.poll_until_response()
    context.assert_sent_begin_quorum_epoch_response(Errors.NONE)
    context.assert_elected_leader(resigned_epoch + 1, remote_id1)
    assert context.listener.current_leader_and_epoch() == LeaderAndEpoch(remote_id1, resigned_epoch + 1)


@KIP853
def test_begin_quorum_epoch_heartbeat(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    remote_id1, remote_id2 = local_id + 1, local_id + 2
    context = Builder(local_id, {local_id, remote_id1, remote_id2}).with_kip853_rpc(with_kip853_rpc).build()
    context.become_leader()
    epoch = context.current_epoch()
    assert context.current_leader() == local_id
    # BeginQuorumEpoch again every beginQuorumEpochTimeoutMs
    context.time.sleep(context.begin_quorum_epoch_timeout_ms)
    context.client.poll()
    context.assert_sent_begin_quorum_epoch_request(epoch, {remote_id1, remote_id2})
    partial_delay = context.begin_quorum_epoch_timeout_ms // 2
    context.time.sleep(partial_delay)
    context.client.poll()
    context.assert_sent_begin_quorum_epoch_request(epoch, set())
    context.time.sleep(context.begin_quorum_epoch_timeout_ms - partial_delay)
    context.client.poll()
    context.assert_sent_begin_quorum_epoch_request(epoch, {remote_id1, remote_id2})


@KIP853
def test_leader_should_resign_leadership_if_not_get_fetch_request_from_majority_voters(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    remote_key1 = replica_key(local_id + 1, with_kip853_rpc)
    remote_key2 = replica_key(local_id + 2, with_kip853_rpc)
    observer_key3 = replica_key(local_id + 3, with_kip853_rpc)
    context = (Builder(local_id, {local_id, remote_key1.id, remote_key2.id}).with_kip853_rpc(with_kip853_rpc)
               .build())
    resign_leadership_timeout = context.check_quorum_timeout_ms
    context.become_leader()
    epoch = context.current_epoch()
    assert context.current_leader() == local_id
    context.time.sleep(resign_leadership_timeout // 2)
    context.client.poll()
    assert not context.client.quorum.is_resigned()
    # a voter's Fetch resets the check-quorum timer
    context.deliver_request(context.fetch_request(epoch, remote_key1, 0, 0, 0))
    context.poll_until_request()
    context.time.sleep(resign_leadership_timeout // 2)
    context.client.poll()
    assert not context.client.quorum.is_resigned()
    context.deliver_request(context.fetch_request(epoch, remote_key2, 0, 0, 0))
    context.poll_until_request()
    context.time.sleep(resign_leadership_timeout // 2)
    context.client.poll()
    assert not context.client.quorum.is_resigned()
    # an observer's does not
    context.deliver_request(context.fetch_request(epoch, observer_key3, 0, 0, 0))
    context.poll_until_request()
    context.time.sleep(resign_leadership_timeout // 2)
    context.client.poll()
    assert context.client.quorum.is_resigned()
    context.assert_resigned_leader(epoch, local_id)


@KIP853
def test_leader_should_not_resign_leadership_if_only_one_voters(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    context = Builder(local_id, {local_id}).with_kip853_rpc(with_kip853_rpc).build()
    assert context.current_leader() == local_id
    context.time.sleep(context.check_quorum_timeout_ms)
    context.client.poll()
    assert not context.client.quorum.is_resigned()


@KIP853
def test_election_timeout_after_user_initiated_resign(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_id = local_id + 1
    context = Builder(local_id, {local_id, other_node_id}).with_kip853_rpc(with_kip853_rpc).build()
    context.become_leader()
    assert context.current_leader() == local_id
    resigned_epoch = context.current_epoch()
    context.client.resign(resigned_epoch)
    context.poll_until(context.client.quorum.is_resigned)
    context.poll_until_request()
    request = context.assert_sent_end_quorum_epoch_request(resigned_epoch, other_node_id)
    context.deliver_response(request.correlation_id, request.destination,
                             context.end_epoch_response(resigned_epoch, local_id))
    context.client.poll()
    # acknowledged: no EndQuorumEpoch again
    context.time.sleep(context.retry_backoff_ms)
    context.client.poll()
    assert not context.channel.has_sent_requests()
    # a Fetch while Resigned: NOT_LEADER_OR_FOLLOWER
    observer = replica_key(-1, with_kip853_rpc)
    context.deliver_request(context.fetch_request(1, observer, 0, 0, 0))
    context.poll_until_response()
    context.assert_sent_fetch_partition_response(Errors.NOT_LEADER_OR_FOLLOWER, resigned_epoch, local_id)
    # the election timer: a candidate
    context.time.sleep(2 * context.election_timeout_ms())
    context.poll_until(context.client.quorum.is_candidate)
    assert context.current_epoch() == resigned_epoch + 1
    assert context.listener.current_leader_and_epoch() == LeaderAndEpoch(None, resigned_epoch + 1)


@KIP853
def test_cannot_resign_with_larger_epoch_than_current_epoch(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    context = Builder(local_id, {local_id, local_id + 1}).with_kip853_rpc(with_kip853_rpc).build()
    context.become_leader()
    with pytest.raises(ValueError):
        context.client.resign(context.current_epoch() + 1)


@KIP853
def test_cannot_resign_if_not_leader(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_id = local_id + 1
    leader_epoch = 2
    context = (Builder(local_id, {local_id, other_node_id}).with_elected_leader(leader_epoch, other_node_id)
               .with_kip853_rpc(with_kip853_rpc).build())
    assert context.current_leader() == other_node_id
    with pytest.raises(ValueError):
        context.client.resign(leader_epoch)


@KIP853
def test_cannot_resign_if_observer(with_kip853_rpc: bool) -> None:
    leader_id = random_replica_id()
    other_node_id = random_replica_id() + 1
    epoch = 5
    voters = {leader_id, other_node_id}
    context = Builder(None, voters).with_kip853_rpc(with_kip853_rpc).build()
    context.poll_until_request()
    fetch_request = context.assert_sent_fetch_request()
    assert fetch_request.destination.id in voters
    context.assert_fetch_request_data(fetch_request, 0, 0, 0)
    context.deliver_response(fetch_request.correlation_id, fetch_request.destination,
                             context.fetch_response(epoch, leader_id, b"", 0, Errors.FENCED_LEADER_EPOCH))
    context.client.poll()
    context.assert_elected_leader(epoch, leader_id)
    with pytest.raises(RuntimeError):  # IllegalStateException
        context.client.resign(epoch)


@KIP853
def test_initialize_as_candidate_from_state_store(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    # three voters: a majority of two
    context = (Builder(local_id, {local_id, local_id + 1, local_id + 2})
               .with_voted_candidate(2, ReplicaKey.of(local_id, ReplicaKey.NO_DIRECTORY_ID))
               .with_kip853_rpc(with_kip853_rpc).build())
    context.assert_voted_candidate(2, local_id)
    assert context.log.end_offset().offset == 0
    # the election goes on after the restart
    context.poll_until_request()
    assert len(context.collect_vote_requests(2, 0, 0)) == 2


def _first_record_of_log(context: RaftClientTestContext):  # noqa: ANN202
    from kafka_edu.v3_9.raft.raft.isolation import Isolation
    records = context.log.read(0, Isolation.UNCOMMITTED).records
    batch = next(MemoryRecords(records).batches())
    return batch, next(batch.records())


@KIP853
def test_initialize_as_candidate_and_become_leader(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_id = local_id + 1
    context = Builder(local_id, {local_id, other_node_id}).with_kip853_rpc(with_kip853_rpc).build()
    context.assert_unknown_leader(0)
    context.time.sleep(2 * context.election_timeout_ms())
    context.poll_until_request()
    context.assert_voted_candidate(1, local_id)
    request = context.assert_sent_vote_request(1, 0, 0, 1)
    context.deliver_response(request.correlation_id, request.destination, context.vote_response(True, None, 1))
    # leader once the vote is in
    context.poll_until(lambda: context.log.end_offset().offset == 1)
    context.assert_elected_leader(1, local_id)
    election_timestamp = context.time.milliseconds()
    # the LeaderChange record
    assert context.log.end_offset().offset == 1
    assert context.log.first_unflushed_offset() == 1
    context.client.poll()
    context.assert_sent_begin_quorum_epoch_request(1, {other_node_id})
    batch, record = _first_record_of_log(context)
    assert batch.is_control_batch
    assert record.timestamp == election_timestamp
    RaftClientTestContext.verify_leader_change_message(local_id, [local_id, other_node_id],
                                                       [other_node_id, local_id], record.key, record.value)


@KIP853
def test_initialize_as_candidate_and_become_leader_quorum_of_three(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    first_node_id, second_node_id = local_id + 1, local_id + 2
    context = (Builder(local_id, {local_id, first_node_id, second_node_id}).with_kip853_rpc(with_kip853_rpc)
               .build())
    context.assert_unknown_leader(0)
    context.time.sleep(2 * context.election_timeout_ms())
    context.poll_until_request()
    context.assert_voted_candidate(1, local_id)
    request = context.assert_sent_vote_request(1, 0, 0, 2)
    context.deliver_response(request.correlation_id, request.destination, context.vote_response(True, None, 1))
    voter_id = request.data.voter_id
    assert voter_id != local_id
    context.poll_until(lambda: context.log.end_offset().offset == 1)
    context.assert_elected_leader(1, local_id)
    election_timestamp = context.time.milliseconds()
    assert context.log.end_offset().offset == 1
    assert context.log.first_unflushed_offset() == 1
    context.client.poll()
    context.assert_sent_begin_quorum_epoch_request(1, {first_node_id, second_node_id})
    batch, record = _first_record_of_log(context)
    assert batch.is_control_batch
    assert record.timestamp == election_timestamp
    RaftClientTestContext.verify_leader_change_message(local_id, [local_id, first_node_id, second_node_id],
                                                       [voter_id, local_id], record.key, record.value)


@KIP853
def test_handle_begin_quorum_request(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    voted_candidate_epoch = 2
    context = (Builder(local_id, {local_id, other_node_key.id})
               .with_voted_candidate(voted_candidate_epoch, other_node_key).with_kip853_rpc(with_kip853_rpc).build())
    context.deliver_request(context.begin_epoch_request(voted_candidate_epoch, other_node_key.id))
    context.poll_until_response()
    context.assert_elected_leader(voted_candidate_epoch, other_node_key.id)
    context.assert_sent_begin_quorum_epoch_response(Errors.NONE, voted_candidate_epoch, other_node_key.id)


@KIP853
def test_handle_begin_quorum_response(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_id = local_id + 1
    leader_epoch = 2
    context = (Builder(local_id, {local_id, other_node_id}).with_elected_leader(leader_epoch, local_id)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.deliver_request(context.begin_epoch_request(leader_epoch + 1, other_node_id))
    context.poll_until_response()
    context.assert_elected_leader(leader_epoch + 1, other_node_id)


@KIP853
def test_end_quorum_ignored_as_candidate_if_older_epoch(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_id = local_id + 1
    epoch = 5
    jitter_ms = 85
    context = (Builder(local_id, {local_id, other_node_id}).update_random(lambda r: r.mock_next_int(jitter_ms))
               .with_unknown_leader(epoch - 1).with_kip853_rpc(with_kip853_rpc).build())
    # long enough to be a candidate
    context.time.sleep(context.election_timeout_ms() + jitter_ms)
    context.client.poll()
    context.assert_voted_candidate(epoch, local_id)
    context.deliver_request(context.end_epoch_request(epoch - 2, other_node_id, [context.local_replica_key()]))
    context.client.poll()
    context.assert_sent_end_quorum_epoch_response(Errors.FENCED_LEADER_EPOCH, epoch, None)
    # a candidate until the election timeout
    context.time.sleep(context.election_timeout_ms() + jitter_ms - 1)
    context.client.poll()
    context.assert_voted_candidate(epoch, local_id)
    # the backoff
    context.time.sleep(1)
    context.client.poll()
    context.assert_voted_candidate(epoch, local_id)
    # then a candidate again
    context.time.sleep(context.election_backoff_max_ms)
    context.client.poll()
    context.assert_voted_candidate(epoch + 1, local_id)


@KIP853
def test_end_quorum_ignored_as_leader_if_older_epoch(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    voter2 = local_id + 1
    voter3 = replica_key(local_id + 2, with_kip853_rpc)
    context = Builder(local_id, {local_id, voter2, voter3.id}).with_unknown_leader(6).build()
    context.become_leader()
    epoch = context.current_epoch()
    # an EndQuorumEpoch of an earlier epoch
    context.deliver_request(context.end_epoch_request(epoch - 2, voter2, [context.local_replica_key(), voter3]))
    context.poll_until_response()
    context.assert_sent_end_quorum_epoch_response(Errors.FENCED_LEADER_EPOCH, epoch, local_id)
    # still leader while the fetch timeout has not expired
    context.time.sleep(context.fetch_timeout_ms - 1)
    context.client.poll()
    context.assert_elected_leader(epoch, local_id)


@KIP853
def test_end_quorum_starts_new_election_immediately_if_follower_unattached(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    voter2 = local_id + 1
    voter3 = replica_key(local_id + 2, with_kip853_rpc)
    epoch = 2
    context = (Builder(local_id, {local_id, voter2, voter3.id}).with_unknown_leader(epoch)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.deliver_request(context.end_epoch_request(epoch, voter2, [context.local_replica_key(), voter3]))
    context.poll_until_response()
    context.assert_sent_end_quorum_epoch_response(Errors.NONE, epoch, voter2)
    # a candidate at once
    context.client.poll()
    context.assert_voted_candidate(epoch + 1, local_id)


@KIP853
def test_accumulator_cleared_after_becoming_follower(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_id = local_id + 1
    context = (Builder(local_id, {local_id, other_node_id}).with_append_linger_ms(50)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.become_leader()
    assert context.current_leader() == local_id
    epoch = context.current_epoch()
    assert context.client.prepare_append(epoch, ["a"]) == 1
    context.client.schedule_prepared_append()
    context.deliver_request(context.begin_epoch_request(epoch + 1, other_node_id))
    context.poll_until_response()
    context.assert_elected_leader(epoch + 1, other_node_id)


@KIP853
def test_accumulator_cleared_after_becoming_voted(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    context = (Builder(local_id, {local_id, other_node_key.id}).with_append_linger_ms(50)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.become_leader()
    assert context.current_leader() == local_id
    epoch = context.current_epoch()
    assert context.client.prepare_append(epoch, ["a"]) == 1
    context.client.schedule_prepared_append()
    context.deliver_request(context.vote_request(epoch + 1, other_node_key, epoch, context.log.end_offset().offset))
    context.poll_until_response()
    context.assert_voted_candidate(epoch + 1, other_node_key.id)


@KIP853
def test_accumulator_cleared_after_becoming_unattached(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    context = (Builder(local_id, {local_id, other_node_key.id}).with_append_linger_ms(50)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.become_leader()
    assert context.current_leader() == local_id
    epoch = context.current_epoch()
    assert context.client.prepare_append(epoch, ["a"]) == 1
    context.client.schedule_prepared_append()
    context.deliver_request(context.vote_request(epoch + 1, other_node_key, epoch, 0))
    context.poll_until_response()
    context.assert_unknown_leader(epoch + 1)


@KIP853
def test_channel_woken_up_if_linger_timeout_reached_without_append(with_kip853_rpc: bool) -> None:
    # the poll timeout counts the linger of a pending append
    local_id = random_replica_id()
    linger_ms = 50
    context = (Builder(local_id, {local_id, local_id + 1}).with_append_linger_ms(linger_ms)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.become_leader()
    assert context.current_leader() == local_id
    assert context.log.end_offset().offset == 1
    epoch = context.current_epoch()
    assert context.client.prepare_append(epoch, ["a"]) == 1
    context.client.schedule_prepared_append()
    assert context.message_queue.wakeup_requested()
    context.client.poll()
    assert context.message_queue.last_poll_timeout_ms() == linger_ms
    context.time.sleep(20)
    context.client.poll()
    assert context.message_queue.last_poll_timeout_ms() == 30
    context.time.sleep(30)
    context.client.poll()
    assert context.log.end_offset().offset == 2


@KIP853
def test_channel_woken_up_if_linger_timeout_reached_during_append(with_kip853_rpc: bool) -> None:
    # an append after the linger expired wakes the client at once
    local_id = random_replica_id()
    linger_ms = 50
    context = (Builder(local_id, {local_id, local_id + 1}).with_append_linger_ms(linger_ms)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.become_leader()
    assert context.current_leader() == local_id
    assert context.log.end_offset().offset == 1
    epoch = context.current_epoch()
    assert context.client.prepare_append(epoch, ["a"]) == 1
    context.client.schedule_prepared_append()
    assert context.message_queue.wakeup_requested()
    context.client.poll()
    assert not context.message_queue.wakeup_requested()
    assert context.message_queue.last_poll_timeout_ms() == linger_ms
    context.time.sleep(linger_ms)
    assert context.client.prepare_append(epoch, ["b"]) == 2
    context.client.schedule_prepared_append()
    assert context.message_queue.wakeup_requested()
    context.client.poll()
    assert context.log.end_offset().offset == 3


@KIP853
def test_handle_end_quorum_request(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    old_leader_id = random_replica_id() + 1
    if old_leader_id == local_id:
        old_leader_id += 1
    leader_epoch = 2
    context = (Builder(local_id, {local_id, old_leader_id}).with_elected_leader(leader_epoch, old_leader_id)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.deliver_request(context.end_epoch_request(leader_epoch, old_leader_id, [context.local_replica_key()]))
    context.poll_until_response()
    context.assert_sent_end_quorum_epoch_response(Errors.NONE, leader_epoch, old_leader_id)
    context.client.poll()
    context.assert_voted_candidate(leader_epoch + 1, local_id)


@KIP853
def test_handle_end_quorum_request_with_lower_priority_to_become_leader(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    old_leader_key = replica_key(local_id + 1, with_kip853_rpc)
    leader_epoch = 2
    preferred_next_leader = replica_key(local_id + 2, with_kip853_rpc)
    context = (Builder(local_id, {local_id, old_leader_key.id, preferred_next_leader.id})
               .with_elected_leader(leader_epoch, old_leader_key.id).with_kip853_rpc(with_kip853_rpc).build())
    context.deliver_request(context.end_epoch_request(leader_epoch, old_leader_key.id,
                                                      [preferred_next_leader, context.local_replica_key()]))
    context.poll_until_response()
    context.assert_sent_end_quorum_epoch_response(Errors.NONE, leader_epoch, old_leader_key.id)
    # no election within one retry backoff
    context.time.sleep(1)
    context.poll_until_request()
    context.assert_sent_fetch_request(leader_epoch, 0, 0)
    context.time.sleep(context.retry_backoff_ms)
    context.poll_until_request()
    assert len(context.collect_vote_requests(leader_epoch + 1, 0, 0)) == 2
    # it voted for itself already
    context.assert_voted_candidate(leader_epoch + 1, local_id)


@KIP853
def test_vote_request_timeout(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    epoch = 1
    context = Builder(local_id, {local_id, local_id + 1}).with_kip853_rpc(with_kip853_rpc).build()
    context.assert_unknown_leader(0)
    context.time.sleep(2 * context.election_timeout_ms())
    context.poll_until_request()
    context.assert_voted_candidate(epoch, local_id)
    request = context.assert_sent_vote_request(epoch, 0, 0, 1)
    context.time.sleep(context.request_timeout_ms())
    context.client.poll()
    retry_request = context.assert_sent_vote_request(epoch, 0, 0, 1)
    # the timed-out request's late response is ignored
    context.deliver_response(request.correlation_id, request.destination, context.vote_response(True, None, 1))
    context.client.poll()
    context.assert_voted_candidate(epoch, local_id)
    # the retry's makes us leader
    context.deliver_response(retry_request.correlation_id, retry_request.destination,
                             context.vote_response(True, None, 1))
    context.client.poll()
    context.assert_elected_leader(epoch, local_id)


@KIP853
def test_handle_valid_vote_request_as_follower(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    epoch = 2
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    context = (Builder(local_id, {local_id, other_node_key.id}).with_unknown_leader(epoch)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.deliver_request(context.vote_request(epoch, other_node_key, epoch - 1, 1))
    context.poll_until_response()
    context.assert_sent_vote_response(Errors.NONE, epoch, None, True)
    context.assert_voted_candidate(epoch, other_node_key.id)


@KIP853
def test_handle_vote_request_as_follower_with_elected_leader(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    epoch = 2
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    elected_leader_id = local_id + 2
    context = (Builder(local_id, {local_id, other_node_key.id, elected_leader_id})
               .with_elected_leader(epoch, elected_leader_id).with_kip853_rpc(with_kip853_rpc).build())
    context.deliver_request(context.vote_request(epoch, other_node_key, epoch - 1, 1))
    context.poll_until_response()
    context.assert_sent_vote_response(Errors.NONE, epoch, elected_leader_id, False)
    context.assert_elected_leader(epoch, elected_leader_id)


@KIP853
def test_handle_vote_request_as_follower_with_voted_candidate(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    epoch = 2
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    voted_candidate_key = replica_key(local_id + 2, with_kip853_rpc)
    context = (Builder(local_id, {local_id, other_node_key.id, voted_candidate_key.id})
               .with_voted_candidate(epoch, voted_candidate_key).with_kip853_rpc(with_kip853_rpc).build())
    context.deliver_request(context.vote_request(epoch, other_node_key, epoch - 1, 1))
    context.poll_until_response()
    context.assert_sent_vote_response(Errors.NONE, epoch, None, False)
    context.assert_voted_candidate(epoch, voted_candidate_key.id)


@KIP853
def test_handle_invalid_vote_request_with_older_epoch(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    epoch = 2
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    context = (Builder(local_id, {local_id, other_node_key.id}).with_unknown_leader(epoch)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.deliver_request(context.vote_request(epoch - 1, other_node_key, epoch - 2, 1))
    context.poll_until_response()
    context.assert_sent_vote_response(Errors.FENCED_LEADER_EPOCH, epoch, None, False)
    context.assert_unknown_leader(epoch)


@KIP853
def test_handle_vote_request_as_observer(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    epoch = 2
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    context = (Builder(local_id, {other_node_key.id, local_id + 2}).with_unknown_leader(epoch)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.deliver_request(context.vote_request(epoch + 1, other_node_key, epoch, 1))
    context.poll_until_response()
    context.assert_sent_vote_response(Errors.NONE, epoch + 1, None, True)
    context.assert_voted_candidate(epoch + 1, other_node_key.id)


@KIP853
def test_leader_ignore_vote_request_on_same_epoch(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    context = (Builder(local_id, {local_id, other_node_key.id}).with_unknown_leader(2)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.become_leader()
    leader_epoch = context.current_epoch()
    context.deliver_request(context.vote_request(leader_epoch, other_node_key, leader_epoch - 1, 1))
    context.client.poll()
    context.assert_sent_vote_response(Errors.NONE, leader_epoch, local_id, False)
    context.assert_elected_leader(leader_epoch, local_id)


@KIP853
def test_listener_commit_callback_after_leader_write(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    context = (Builder(local_id, {local_id, other_node_key.id}).with_unknown_leader(4)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.become_leader()
    epoch = context.current_epoch()
    # no high watermark yet
    context.client.poll()
    assert context.client.high_watermark() is None
    assert context.log.end_offset().offset == 1
    # the follower's Fetch sets the high watermark (offset 0 is the LeaderChange record)
    context.deliver_request(context.fetch_request(epoch, other_node_key, 1, epoch, 0))
    context.poll_until_response()
    context.assert_sent_fetch_partition_response(Errors.NONE, epoch, local_id)
    assert context.client.high_watermark() == 1
    records = ["a", "b", "c"]
    offset = context.client.prepare_append(epoch, records)
    context.client.schedule_prepared_append()
    context.client.poll()
    assert context.listener.last_commit_offset() == 0
    context.deliver_request(context.fetch_request(epoch, other_node_key, 1, epoch, 500))
    context.poll_until_response()
    context.assert_sent_fetch_partition_response(Errors.NONE, epoch, local_id)
    assert context.client.high_watermark() == 1
    assert context.listener.last_commit_offset() == 0
    # a Fetch from offset 4 commits the batch
    context.deliver_request(context.fetch_request(epoch, other_node_key, 4, epoch, 500))
    context.poll_until(lambda: context.client.high_watermark() == 4)
    assert context.listener.commit_with_last_offset(offset) == records


@KIP853
def test_leader_immediately_sends_diverging_epoch(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    context = (Builder(local_id, {local_id, other_node_key.id}).with_unknown_leader(5)
               .with_kip853_rpc(with_kip853_rpc).append_to_log(1, ["a", "b", "c"]).append_to_log(3, ["d", "e", "f"])
               .append_to_log(5, ["g", "h", "i"]).build())
    context.become_leader()
    epoch = context.current_epoch()
    # a Fetch at an end offset and epoch that diverged
    context.deliver_request(context.fetch_request(epoch, other_node_key, 6, 2, 500))
    context.client.poll()
    # answered at once, with the diverging epoch
    partition_response = context.assert_sent_fetch_partition_response()
    assert Errors.for_code(partition_response.error_code) is Errors.NONE
    assert partition_response.current_leader.leader_epoch == epoch
    assert partition_response.current_leader.leader_id == local_id
    assert partition_response.diverging_epoch.epoch == 1
    assert partition_response.diverging_epoch.end_offset == 3


@KIP853
def test_candidate_ignore_vote_request_on_same_epoch(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    leader_epoch = 2
    context = (Builder(local_id, {local_id, other_node_key.id})
               .with_voted_candidate(leader_epoch, ReplicaKey.of(local_id, ReplicaKey.NO_DIRECTORY_ID))
               .with_kip853_rpc(with_kip853_rpc).build())
    context.poll_until_request()
    context.deliver_request(context.vote_request(leader_epoch, other_node_key, leader_epoch - 1, 1))
    context.client.poll()
    context.assert_sent_vote_response(Errors.NONE, leader_epoch, None, False)
    context.assert_voted_candidate(leader_epoch, local_id)


@KIP853
def test_retry_election(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    epoch = 1
    exponential_factor = 85  # large enough for the jitter to bound the backoff
    context = (Builder(local_id, {local_id, local_id + 1}).update_random(lambda r: r.mock_next_int(exponential_factor))
               .with_kip853_rpc(with_kip853_rpc).build())
    context.assert_unknown_leader(0)
    context.time.sleep(2 * context.election_timeout_ms())
    context.poll_until_request()
    context.assert_voted_candidate(epoch, local_id)
    # two voters: one rejection means a new election
    request = context.assert_sent_vote_request(epoch, 0, 0, 1)
    context.deliver_response(request.correlation_id, request.destination, context.vote_response(False, None, 1))
    context.client.poll()
    # rejected, yet we remember our vote
    context.assert_voted_candidate(epoch, local_id)
    # the backoff's jitter before a new epoch
    context.time.sleep(context.election_backoff_max_ms - 1)
    context.client.poll()
    context.assert_voted_candidate(epoch, local_id)
    context.time.sleep(1)
    context.client.poll()
    context.poll_until_request()
    context.assert_voted_candidate(epoch + 1, local_id)
    context.assert_sent_vote_request(epoch + 1, 0, 0, 1)


@KIP853
def test_initialize_as_follower_empty_log(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_id = local_id + 1
    epoch = 5
    context = (Builder(local_id, {local_id, other_node_id}).with_elected_leader(epoch, other_node_id)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.assert_elected_leader(epoch, other_node_id)
    context.poll_until_request()
    context.assert_sent_fetch_request(epoch, 0, 0)


@KIP853
def test_initialize_as_follower_non_empty_log(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_id = local_id + 1
    epoch, last_epoch = 5, 3
    context = (Builder(local_id, {local_id, other_node_id}).with_elected_leader(epoch, other_node_id)
               .append_to_log(last_epoch, ["foo"]).with_kip853_rpc(with_kip853_rpc).build())
    context.assert_elected_leader(epoch, other_node_id)
    context.poll_until_request()
    context.assert_sent_fetch_request(epoch, 1, last_epoch)


@KIP853
def test_voter_become_candidate_after_fetch_timeout(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_id = local_id + 1
    epoch, last_epoch = 5, 3
    context = (Builder(local_id, {local_id, other_node_id}).with_elected_leader(epoch, other_node_id)
               .append_to_log(last_epoch, ["foo"]).with_kip853_rpc(with_kip853_rpc).build())
    context.assert_elected_leader(epoch, other_node_id)
    context.poll_until_request()
    context.assert_sent_fetch_request(epoch, 1, last_epoch)
    context.time.sleep(context.fetch_timeout_ms)
    context.poll_until_request()
    context.assert_sent_vote_request(epoch + 1, last_epoch, 1, 1)
    context.assert_voted_candidate(epoch + 1, local_id)


@KIP853
def test_follower_as_observer_does_not_become_candidate_after_fetch_timeout(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_id = local_id + 1
    epoch, last_epoch = 5, 3
    context = (Builder(local_id, {other_node_id}).with_elected_leader(epoch, other_node_id)
               .append_to_log(last_epoch, ["foo"]).with_kip853_rpc(with_kip853_rpc).build())
    context.assert_elected_leader(epoch, other_node_id)
    context.poll_until_request()
    context.assert_sent_fetch_request(epoch, 1, last_epoch)
    context.time.sleep(context.fetch_timeout_ms)
    context.poll_until_request()
    assert context.client.quorum.is_follower()
    # a Vote moves it to Unattached
    context.deliver_request(context.vote_request(epoch + 1, replica_key(other_node_id, with_kip853_rpc), epoch, 1))
    context.poll_until_response()
    context.assert_sent_vote_response(Errors.NONE, epoch + 1, None, True)
    assert context.client.quorum.is_unattached()


@KIP853
def test_unattached_as_observer_does_not_become_candidate_after_election_timeout(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_id = local_id + 1
    epoch = 5
    context = Builder(local_id, {other_node_id}).with_unknown_leader(epoch).with_kip853_rpc(with_kip853_rpc).build()
    context.poll_until_request()
    context.assert_sent_fetch_request(epoch, 0, 0)
    assert context.client.quorum.is_unattached()
    context.time.sleep(context.election_timeout_ms() * 2)
    context.poll_until_request()
    assert context.client.quorum.is_unattached()
    context.assert_sent_fetch_request(epoch, 0, 0)
    # no Vote sent
    assert len(context.channel.drain_send_queue()) == 0
    context.deliver_request(context.vote_request(epoch + 1, replica_key(other_node_id, with_kip853_rpc), epoch, 0))
    context.poll_until_response()
    # an observer may vote
    context.assert_sent_vote_response(Errors.NONE, epoch + 1, None, True)
    context.time.sleep(context.election_timeout_ms() * 2)
    context.poll_until_request()
    # but never becomes a candidate
    assert context.client.quorum.is_unattached()
    context.assert_sent_fetch_request(epoch + 1, 0, 0)
    assert len(context.channel.drain_send_queue()) == 0


@KIP853
def test_initialize_observer_no_previous_state(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    leader_id, other_node_id = local_id + 1, local_id + 2
    epoch = 5
    voters = {leader_id, other_node_id}
    context = Builder(local_id, voters).with_kip853_rpc(with_kip853_rpc).build()
    context.poll_until_request()
    fetch_request = context.assert_sent_fetch_request()
    assert fetch_request.destination.id in voters
    context.assert_fetch_request_data(fetch_request, 0, 0, 0)
    context.deliver_response(fetch_request.correlation_id, fetch_request.destination,
                             context.fetch_response(epoch, leader_id, b"", 0, Errors.FENCED_LEADER_EPOCH))
    context.client.poll()
    context.assert_elected_leader(epoch, leader_id)


@KIP853
def test_invalid_fetch_request(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    context = (Builder(local_id, {local_id, other_node_key.id}).with_unknown_leader(4)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.become_leader()
    epoch = context.current_epoch()
    for fetch_epoch, fetch_offset, last_fetched_epoch, max_wait, error in [
            (epoch, -5, 0, 0, Errors.INVALID_REQUEST), (epoch, 0, -1, 0, Errors.INVALID_REQUEST),
            (epoch, 0, epoch + 1, 0, Errors.INVALID_REQUEST), (epoch + 1, 0, 0, 0, Errors.UNKNOWN_LEADER_EPOCH),
            (epoch, 0, 0, -1, Errors.INVALID_REQUEST)]:
        context.deliver_request(context.fetch_request(fetch_epoch, other_node_key, fetch_offset, last_fetched_epoch,
                                                      max_wait))
        context.poll_until_response()
        context.assert_sent_fetch_partition_response(error, epoch, local_id)


@pytest.mark.parametrize("version", [13, 14, 15, 16, 17])
def test_leader_state_update_with_different_fetch_request_versions(version: int) -> None:
    from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
    from kafka_edu.v3_9.clients.common.protocol.builder import build
    from kafka_edu.v3_9.raft.raft import raft_util
    from kafka_edu.v3_9.raft.raft.kafka_raft_client import MAX_FETCH_SIZE_BYTES
    local_id = random_replica_id()
    other_node_id = local_id + 1
    epoch = 5
    context = RaftClientTestContext.initialize_as_leader(local_id, {local_id, other_node_id}, epoch)
    context.client.poll()
    assert context.client.high_watermark() is None
    assert context.log.end_offset().offset == 1
    # a follower's Fetch at `version`: the replica id at the top before v15, in ReplicaState from v15
    replica_fields = ({"replica_id": other_node_id} if version < 15
                      else {"replica_id": -1, "replica_state": {"replica_id": other_node_id}})
    request = build(ApiKeys.FETCH.request_schema(version), cluster_id=context.cluster_id, max_wait=0, min_bytes=0,
                    max_bytes=MAX_FETCH_SIZE_BYTES, **replica_fields, topics=[{
                        "topic_id": raft_util.kio_uuid(context.metadata_topic_id), "partitions": [{
                            "partition": 0, "current_leader_epoch": epoch, "fetch_offset": 1,
                            "last_fetched_epoch": epoch, "partition_max_bytes": 0}]}],
                    forgotten_topics_data=[])
    assert raft_util.fetch_replica_id(request) == other_node_id
    context.deliver_request(request, version)
    context.poll_until_response()
    context.assert_sent_fetch_partition_response(Errors.NONE, epoch, local_id)
    assert context.client.high_watermark() == 1


@KIP853
def test_fetch_request_cluster_id_validation(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    context = (Builder(local_id, {local_id, other_node_key.id}).with_unknown_leader(4)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.become_leader()
    epoch = context.current_epoch()
    # a valid cluster id is accepted
    context.deliver_request(context.fetch_request(epoch, other_node_key, -5, 0, 0))
    context.poll_until_response()
    context.assert_sent_fetch_partition_response(Errors.INVALID_REQUEST, epoch, local_id)
    # so is none
    context.deliver_request(context.fetch_request(epoch, other_node_key, -5, 0, 0, cluster_id=None))
    context.poll_until_response()
    context.assert_sent_fetch_partition_response(Errors.INVALID_REQUEST, epoch, local_id)
    # an empty or another one is rejected
    for cluster_id in ("", "invalid-uuid"):
        context.deliver_request(context.fetch_request(epoch, other_node_key, -5, 0, 0, cluster_id=cluster_id))
        context.poll_until_response()
        context.assert_sent_fetch_partition_response(Errors.INCONSISTENT_CLUSTER_ID)


@KIP853
def test_vote_request_cluster_id_validation(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    context = Builder(local_id, {local_id, other_node_key.id}).with_kip853_rpc(with_kip853_rpc).build()
    context.become_leader()
    epoch = context.current_epoch()
    context.deliver_request(context.vote_request(epoch, other_node_key, 0, 0))
    context.poll_until_response()
    context.assert_sent_vote_response(Errors.NONE, epoch, local_id, False)
    context.deliver_request(context.vote_request(epoch, other_node_key, 0, 0, cluster_id=None))
    context.poll_until_response()
    context.assert_sent_vote_response(Errors.NONE, epoch, local_id, False)
    for cluster_id in ("", "invalid-uuid"):
        context.deliver_request(context.vote_request(epoch, other_node_key, 0, 0, cluster_id=cluster_id))
        context.poll_until_response()
        context.assert_sent_vote_response(Errors.INCONSISTENT_CLUSTER_ID)


def test_invalid_voter_replica_vote_request() -> None:
    from kafka_edu.v3_9.clients.common.uuid import Uuid
    local_id = random_replica_id()
    other_node_key = replica_key(local_id + 1, False)
    context = Builder(local_id, {local_id, other_node_key.id}).build()
    context.become_leader()
    epoch = context.current_epoch()
    # a wrong voter id is rejected
    context.deliver_request(context.vote_request(epoch + 1, other_node_key, epoch, 100,
                                                 voter_key=ReplicaKey.of(10, Uuid.random_uuid())))
    context.poll_until_response()
    context.assert_sent_vote_response(Errors.INVALID_VOTER_KEY, epoch + 1, None, False)
    # so is a wrong voter directory id
    context.deliver_request(context.vote_request(epoch + 2, other_node_key, epoch, 100,
                                                 voter_key=ReplicaKey.of(0, Uuid.random_uuid())))
    context.poll_until_response()
    context.assert_sent_vote_response(Errors.INVALID_VOTER_KEY, epoch + 2, None, False)


def test_invalid_voter_replica_begin_quorum_epoch_request() -> None:
    from kafka_edu.v3_9.clients.common.uuid import Uuid
    local_id = random_replica_id()
    voter2, voter3 = local_id + 1, local_id + 2
    epoch = 5
    context = Builder(local_id, {local_id, voter2, voter3}).with_unknown_leader(epoch - 1).build()
    context.assert_unknown_leader(epoch - 1)
    # voter3, the leader, names the wrong voter id
    context.deliver_request(context.begin_epoch_request(epoch, voter3, voter_key=ReplicaKey.of(10, Uuid.random_uuid())))
    context.poll_until_response()
    context.assert_sent_begin_quorum_epoch_response(Errors.INVALID_VOTER_KEY, epoch, voter3)
    context.assert_elected_leader(epoch, voter3)
    # the wrong directory id
    context.deliver_request(context.begin_epoch_request(epoch, voter3,
                                                        voter_key=ReplicaKey.of(local_id, Uuid.random_uuid())))
    context.poll_until_response()
    context.assert_sent_begin_quorum_epoch_response(Errors.INVALID_VOTER_KEY, epoch, voter3)
    context.assert_elected_leader(epoch, voter3)
    # our own key
    context.deliver_request(context.begin_epoch_request(epoch, voter3, voter_key=context.local_replica_key()))
    context.poll_until_response()
    context.assert_sent_begin_quorum_epoch_response(Errors.NONE, epoch, voter3)


@KIP853
def test_begin_quorum_epoch_request_cluster_id_validation(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    context = (Builder(local_id, {local_id, local_id + 1}).with_unknown_leader(4)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.become_leader()
    epoch = context.current_epoch()
    context.deliver_request(context.begin_epoch_request(epoch, local_id, cluster_id=context.cluster_id))
    context.poll_until_response()
    context.assert_sent_begin_quorum_epoch_response(Errors.NONE, epoch, local_id)
    context.deliver_request(context.begin_epoch_request(epoch, local_id))
    context.poll_until_response()
    context.assert_sent_begin_quorum_epoch_response(Errors.NONE, epoch, local_id)
    for cluster_id in ("", "invalid-uuid"):
        context.deliver_request(context.begin_epoch_request(epoch, local_id, cluster_id=cluster_id))
        context.poll_until_response()
        context.assert_sent_begin_quorum_epoch_response(Errors.INCONSISTENT_CLUSTER_ID)


@KIP853
def test_end_quorum_epoch_request_cluster_id_validation(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    context = (Builder(local_id, {local_id, other_node_key.id}).with_unknown_leader(4)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.become_leader()
    epoch = context.current_epoch()
    context.deliver_request(context.end_epoch_request(epoch, local_id, [other_node_key]))
    context.poll_until_response()
    context.assert_sent_end_quorum_epoch_response(Errors.NONE, epoch, local_id)
    context.deliver_request(context.end_epoch_request(epoch, local_id, [other_node_key], cluster_id=None))
    context.poll_until_response()
    context.assert_sent_end_quorum_epoch_response(Errors.NONE, epoch, local_id)
    for cluster_id in ("", "invalid-uuid"):
        context.deliver_request(context.end_epoch_request(epoch, local_id, [other_node_key], cluster_id=cluster_id))
        context.poll_until_response()
        context.assert_sent_end_quorum_epoch_response(Errors.INCONSISTENT_CLUSTER_ID)


@KIP853
def test_leader_accept_vote_from_observer(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    context = (Builder(local_id, {local_id, local_id + 1}).with_unknown_leader(4)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.become_leader()
    epoch = context.current_epoch()
    observer_key = replica_key(local_id + 2, with_kip853_rpc)
    context.deliver_request(context.vote_request(epoch - 1, observer_key, 0, 0))
    context.client.poll()
    context.assert_sent_vote_response(Errors.FENCED_LEADER_EPOCH, epoch, local_id, False)
    context.deliver_request(context.vote_request(epoch, observer_key, 0, 0))
    context.client.poll()
    context.assert_sent_vote_response(Errors.NONE, epoch, local_id, False)


@KIP853
def test_invalid_vote_request(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    epoch = 5
    context = (Builder(local_id, {local_id, other_node_key.id}).with_elected_leader(epoch, other_node_key.id)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.assert_elected_leader(epoch, other_node_key.id)
    for last_epoch, last_offset in [(0, -5), (-1, 0), (epoch + 1, 0)]:
        context.deliver_request(context.vote_request(epoch + 1, other_node_key, last_epoch, last_offset))
        context.poll_until_response()
        context.assert_sent_vote_response(Errors.INVALID_REQUEST, epoch, other_node_key.id, False)
        context.assert_elected_leader(epoch, other_node_key.id)


@KIP853
def test_purgatory_fetch_timeout(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    context = (Builder(local_id, {local_id, other_node_key.id}).with_unknown_leader(4)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.become_leader()
    epoch = context.current_epoch()
    # a Fetch that cannot be answered yet
    max_wait_time_ms = 500
    context.deliver_request(context.fetch_request(epoch, other_node_key, 1, epoch, max_wait_time_ms))
    context.client.poll()
    assert len(context.channel.drain_send_queue()) == 0
    # at the max wait: an empty answer
    context.time.sleep(max_wait_time_ms)
    context.client.poll()
    fetched_records = context.assert_sent_fetch_partition_response(Errors.NONE, epoch, local_id)
    assert len(fetched_records) == 0


@KIP853
def test_purgatory_fetch_satisfied_by_write(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    context = (Builder(local_id, {local_id, other_node_key.id}).with_unknown_leader(4)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.become_leader()
    epoch = context.current_epoch()
    context.deliver_request(context.fetch_request(epoch, other_node_key, 1, epoch, 500))
    context.client.poll()
    assert len(context.channel.drain_send_queue()) == 0
    # records that answer the parked Fetch
    append_records = ["a", "b", "c"]
    context.client.prepare_append(epoch, append_records)
    context.client.schedule_prepared_append()
    context.client.poll()
    fetched_records = context.assert_sent_fetch_partition_response(Errors.NONE, epoch, local_id)
    RaftClientTestContext.assert_matching_records(append_records, fetched_records)


@KIP853
def test_purgatory_fetch_completed_by_follower_transition(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    voter_key2 = replica_key(local_id + 1, with_kip853_rpc)
    voter3 = local_id + 2
    context = (Builder(local_id, {local_id, voter_key2.id, voter3}).with_unknown_leader(4)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.become_leader()
    epoch = context.current_epoch()
    context.deliver_request(context.fetch_request(epoch, voter_key2, 1, epoch, 500))
    context.client.poll()
    from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
    assert all(msg.api_key() != ApiKeys.FETCH for msg in context.channel.drain_send_queue())
    # a BeginQuorumEpoch from the other voter: a follower now
    context.deliver_request(context.begin_epoch_request(epoch + 1, voter3))
    context.poll_until_response()
    context.assert_elected_leader(epoch + 1, voter3)
    context.assert_sent_begin_quorum_epoch_response(Errors.NONE, epoch + 1, voter3)
    # the parked Fetch fails at once
    fetched_records = context.assert_sent_fetch_partition_response(Errors.NOT_LEADER_OR_FOLLOWER, epoch + 1, voter3)
    assert len(fetched_records) == 0


@KIP853
def test_fetch_response_ignored_after_becoming_candidate(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_id = local_id + 1
    epoch = 5
    context = (Builder(local_id, {local_id, other_node_id}).with_elected_leader(epoch, other_node_id)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.assert_elected_leader(epoch, other_node_id)
    # a Fetch in flight to the leader
    context.poll_until_request()
    fetch_request = context.assert_sent_fetch_request(epoch, 0, 0)
    # the fetch timeout: a candidate
    context.time.sleep(context.fetch_timeout_ms)
    context.client.poll()
    context.assert_voted_candidate(epoch + 1, local_id)
    # the old leader's answer is ignored
    records = context.build_batch(0, 3, ["a", "b"])
    context.deliver_response(fetch_request.correlation_id, fetch_request.destination,
                             context.fetch_response(epoch, other_node_id, records, 0, Errors.NONE))
    context.client.poll()
    assert context.log.end_offset().offset == 0
    context.assert_voted_candidate(epoch + 1, local_id)


@KIP853
def test_fetch_response_ignored_after_becoming_follower_of_different_leader(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    voter2, voter3 = local_id + 1, local_id + 2
    epoch = 5
    context = (Builder(local_id, {local_id, voter2, voter3}).with_elected_leader(epoch, voter2)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.assert_elected_leader(epoch, voter2)
    context.poll_until_request()
    fetch_request = context.assert_sent_fetch_request(epoch, 0, 0)
    # voter3 begins a new epoch
    context.deliver_request(context.begin_epoch_request(epoch + 1, voter3))
    context.client.poll()
    context.assert_elected_leader(epoch + 1, voter3)
    # the old leader's answer is ignored
    records = context.build_batch(0, 3, ["a", "b"])
    context.deliver_response(fetch_request.correlation_id, fetch_request.destination,
                             context.fetch_response(epoch, voter2, records, 0, Errors.NONE))
    context.client.poll()
    assert context.log.end_offset().offset == 0
    context.assert_elected_leader(epoch + 1, voter3)


@KIP853
def test_vote_response_ignored_after_becoming_follower(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    voter2, voter3 = local_id + 1, local_id + 2
    epoch = 5
    context = (Builder(local_id, {local_id, voter2, voter3}).with_unknown_leader(epoch - 1)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.assert_unknown_leader(epoch - 1)
    context.time.sleep(context.election_timeout_ms() * 2)
    # the Vote requests in flight
    context.poll_until_request()
    context.assert_voted_candidate(epoch, local_id)
    vote_requests = context.collect_vote_requests(epoch, 0, 0)
    assert len(vote_requests) == 2
    # meanwhile a BeginQuorumEpoch of the same epoch
    context.deliver_request(context.begin_epoch_request(epoch, voter3))
    context.client.poll()
    context.assert_elected_leader(epoch, voter3)
    # the votes come back, and are ignored
    context.deliver_response(vote_requests[0].correlation_id, vote_requests[0].destination,
                             context.vote_response(False, None, epoch))
    context.deliver_response(vote_requests[1].correlation_id, vote_requests[1].destination,
                             context.vote_response(False, voter3, epoch))
    context.client.poll()
    context.assert_elected_leader(epoch, voter3)


@KIP853
def test_leader_graceful_shutdown(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    context = Builder(local_id, {local_id, other_node_key.id}).with_kip853_rpc(with_kip853_rpc).build()
    context.become_leader()
    epoch = context.current_epoch()
    shutdown_future = context.client.shutdown(5000)
    # running until EndQuorumEpoch is sent
    assert context.client.is_shutting_down()
    assert context.client.is_running()
    assert not shutdown_future.done()
    context.poll_until_request()
    assert context.client.is_shutting_down()
    assert context.client.is_running()
    context.assert_sent_end_quorum_epoch_request(1, other_node_key.id)
    # votes are still answered, to help elect the successor
    context.deliver_request(context.vote_request(epoch + 1, other_node_key, epoch, 1))
    context.client.poll()
    context.assert_sent_vote_response(Errors.NONE, epoch + 1, None, True)
    # done once a new leader is elected
    context.deliver_request(context.begin_epoch_request(2, other_node_key.id))

    def stopped() -> bool:
        context.client.poll()
        return not context.client.is_running()
    wait_for_condition(stopped, 5000, "Client failed to shutdown before expiration of timeout")
    assert not context.client.is_shutting_down()
    assert shutdown_future.done()
    assert shutdown_future.result() is None


@KIP853
def test_end_quorum_epoch_sent_based_on_fetch_offset(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    close_follower = replica_key(local_id + 2, with_kip853_rpc)
    lagging_follower = replica_key(local_id + 1, with_kip853_rpc)
    context = (Builder(local_id, {local_id, close_follower.id, lagging_follower.id})
               .with_kip853_rpc(with_kip853_rpc).build())
    context.become_leader()
    epoch = context.current_epoch()
    # the lagging follower fetches first
    context.deliver_request(context.fetch_request(1, lagging_follower, 1, epoch, 0))
    context.poll_until_response()
    context.assert_sent_fetch_partition_response(1, epoch)
    # records for the close follower to get further
    context.client.prepare_append(epoch, ["foo", "bar"])
    context.client.schedule_prepared_append()
    context.client.poll()
    context.deliver_request(context.fetch_request(epoch, close_follower, 3, epoch, 0))
    context.poll_until_response()
    context.assert_sent_fetch_partition_response(3, epoch)
    context.client.shutdown(context.election_timeout_ms() * 2)
    assert context.client.is_running()
    context.poll_until_request()
    assert context.client.is_running()
    context.collect_end_quorum_requests(
        epoch, {close_follower.id, lagging_follower.id},
        [replica_key(close_follower.id, False), replica_key(lagging_follower.id, False)])


@KIP853
def test_describe_quorum_non_leader(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    voter2 = replica_key(local_id + 1, with_kip853_rpc)
    voter3 = replica_key(local_id + 2, with_kip853_rpc)
    epoch = 2
    context = Builder(local_id, {local_id, voter2.id, voter3.id}).with_unknown_leader(epoch).build()
    context.deliver_request(context.describe_quorum_request())
    context.poll_until_response()
    response_data = context.collect_describe_quorum_response()
    assert Errors.for_code(response_data.error_code) is Errors.NONE
    assert (getattr(response_data, "error_message", None) or "") == ""
    assert len(response_data.topics) == 1
    topic_data = response_data.topics[0]
    assert topic_data.topic_name == context.metadata_partition.topic
    assert len(topic_data.partitions) == 1
    partition_data = topic_data.partitions[0]
    assert partition_data.partition_index == context.metadata_partition.partition
    assert Errors.for_code(partition_data.error_code) is Errors.NOT_LEADER_OR_FOLLOWER


def _replica_state(replica_id: int, log_end_offset: int, last_fetch_timestamp: int,
                   last_caught_up_timestamp: int) -> dict:
    return {"replica_id": replica_id, "log_end_offset": log_end_offset, "last_fetch_timestamp": last_fetch_timestamp,
            "last_caught_up_timestamp": last_caught_up_timestamp}


@KIP853
def test_describe_quorum_with_only_static_voters(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    follower1 = replica_key(local_id + 1, True)
    context = Builder(local_id, {local_id, follower1.id}).with_kip853_rpc(with_kip853_rpc).build()
    context.become_leader()
    epoch = context.current_epoch()
    # no directory ids in the answer
    context.deliver_request(context.describe_quorum_request())
    context.poll_until_response()
    now = context.time.milliseconds()
    context.assert_sent_describe_quorum_response(local_id, epoch, -1, [
        _replica_state(local_id, 1, now, now), _replica_state(follower1.id, -1, -1, -1)], [])


@pytest.mark.parametrize(("with_kip853_rpc", "with_bootstrap_snapshot"), [(False, False)])
def test_describe_quorum_with_followers(with_kip853_rpc: bool, with_bootstrap_snapshot: bool) -> None:
    local_id = random_replica_id()
    follower_id1, follower_id2 = local_id + 1, local_id + 2
    follower1 = ReplicaKey.of(follower_id1, ReplicaKey.NO_DIRECTORY_ID)
    follower2 = ReplicaKey.of(follower_id2, ReplicaKey.NO_DIRECTORY_ID)
    context = Builder(local_id, {local_id, follower_id1, follower_id2}).with_kip853_rpc(with_kip853_rpc).build()
    context.become_leader()
    epoch = context.current_epoch()
    # before any Fetch
    context.deliver_request(context.describe_quorum_request())
    context.poll_until_response()
    now = context.time.milliseconds()
    expected = [_replica_state(local_id, 1, now, now), _replica_state(follower_id1, -1, -1, -1),
                _replica_state(follower_id2, -1, -1, -1)]
    context.assert_sent_describe_quorum_response(local_id, epoch, -1, expected, [])
    context.time.sleep(100)
    fetch_offset = 1
    follower_fetch_time1 = context.time.milliseconds()
    context.deliver_request(context.fetch_request(1, follower1, fetch_offset, epoch, 0))
    context.poll_until_response()
    expected_hw = fetch_offset
    context.assert_sent_fetch_partition_response(expected_hw, epoch)
    records = ["foo", "bar"]
    next_fetch_offset = fetch_offset + len(records)
    context.client.prepare_append(epoch, records)
    context.client.schedule_prepared_append()
    context.client.poll()
    context.time.sleep(100)
    context.deliver_request(context.describe_quorum_request())
    context.poll_until_response()
    now = context.time.milliseconds()
    expected[0].update(log_end_offset=next_fetch_offset, last_fetch_timestamp=now, last_caught_up_timestamp=now)
    expected[1].update(log_end_offset=fetch_offset, last_fetch_timestamp=follower_fetch_time1,
                       last_caught_up_timestamp=follower_fetch_time1)
    context.assert_sent_describe_quorum_response(local_id, epoch, expected_hw, expected, [])
    # follower2 catches up
    context.time.sleep(100)
    follower_fetch_time2 = context.time.milliseconds()
    context.deliver_request(context.fetch_request(epoch, follower2, next_fetch_offset, epoch, 0))
    context.poll_until_response()
    expected_hw = next_fetch_offset
    context.assert_sent_fetch_partition_response(expected_hw, epoch)
    context.time.sleep(100)
    context.deliver_request(context.describe_quorum_request())
    context.poll_until_response()
    now = context.time.milliseconds()
    expected[0].update(last_fetch_timestamp=now, last_caught_up_timestamp=now)
    expected[2].update(log_end_offset=next_fetch_offset, last_fetch_timestamp=follower_fetch_time2,
                       last_caught_up_timestamp=follower_fetch_time2)
    context.assert_sent_describe_quorum_response(local_id, epoch, expected_hw, expected, [])
    # an error once the leader has lost its leadership
    context.time.sleep(context.check_quorum_timeout_ms)
    context.deliver_request(context.describe_quorum_request())
    context.poll_until_response()
    context.assert_sent_describe_quorum_response(0, 0, 0, [], [], error=Errors.NOT_LEADER_OR_FOLLOWER)


@pytest.mark.parametrize(("with_kip853_rpc", "with_bootstrap_snapshot"), [(False, False)])
def test_describe_quorum_with_observer(with_kip853_rpc: bool, with_bootstrap_snapshot: bool) -> None:
    from kafka_edu.v3_9.raft.raft.leader_state import OBSERVER_SESSION_TIMEOUT_MS
    local_id = random_replica_id()
    follower_id = local_id + 1
    follower = ReplicaKey.of(follower_id, ReplicaKey.NO_DIRECTORY_ID)
    context = Builder(local_id, {local_id, follower_id}).with_kip853_rpc(with_kip853_rpc).build()
    context.become_leader()
    epoch = context.current_epoch()
    # a high watermark past its initial value
    context.time.sleep(100)
    fetch_offset = 1
    follower_fetch_time = context.time.milliseconds()
    context.deliver_request(context.fetch_request(1, follower, fetch_offset, epoch, 0))
    context.poll_until_response()
    expected_hw = fetch_offset
    context.assert_sent_fetch_partition_response(expected_hw, epoch)
    # an observer
    observer = replica_key(local_id + 2, with_kip853_rpc)
    context.time.sleep(100)
    observer_fetch_time = context.time.milliseconds()
    context.deliver_request(context.fetch_request(epoch, observer, 0, 0, 0))
    context.poll_until_response()
    context.assert_sent_fetch_partition_response(expected_hw, epoch)
    context.time.sleep(100)
    context.deliver_request(context.describe_quorum_request())
    context.poll_until_response()
    now = context.time.milliseconds()
    # the leader's end offset is not updated yet (records appended straight to the log)
    expected_voters = [_replica_state(local_id, fetch_offset, now, now),
                       _replica_state(follower.id, fetch_offset, follower_fetch_time, follower_fetch_time)]
    expected_observers = [_replica_state(observer.id, 0, observer_fetch_time, -1)]
    context.assert_sent_describe_quorum_response(local_id, epoch, expected_hw, expected_voters, expected_observers)
    # the observer fetches again
    context.time.sleep(100)
    observer_fetch_time = context.time.milliseconds()
    context.deliver_request(context.fetch_request(epoch, observer, fetch_offset, epoch, 0))
    context.poll_until_response()
    context.assert_sent_fetch_partition_response(expected_hw, epoch)
    context.time.sleep(100)
    context.deliver_request(context.describe_quorum_request())
    context.poll_until_response()
    now = context.time.milliseconds()
    expected_voters[0].update(last_fetch_timestamp=now, last_caught_up_timestamp=now)
    expected_observers[0].update(log_end_offset=fetch_offset, last_fetch_timestamp=observer_fetch_time,
                                 last_caught_up_timestamp=observer_fetch_time)
    context.assert_sent_describe_quorum_response(local_id, epoch, expected_hw, expected_voters, expected_observers)
    # the observer falls behind
    context.time.sleep(100)
    records = ["foo", "bar"]
    context.client.prepare_append(epoch, records)
    context.client.schedule_prepared_append()
    context.client.poll()
    context.deliver_request(context.describe_quorum_request())
    context.poll_until_response()
    now = context.time.milliseconds()
    expected_voters[0].update(log_end_offset=fetch_offset + len(records), last_fetch_timestamp=now,
                              last_caught_up_timestamp=now)
    context.assert_sent_describe_quorum_response(local_id, epoch, expected_hw, expected_voters, expected_observers)
    # the observer goes once inactive long enough
    time_to_sleep = OBSERVER_SESSION_TIMEOUT_MS
    while time_to_sleep > 0:
        # the follower keeps fetching, to keep the leader
        follower_fetch_time = context.time.milliseconds()
        context.deliver_request(context.fetch_request(epoch, follower, fetch_offset, epoch, 0))
        context.poll_until_response()
        context.assert_sent_fetch_partition_response(expected_hw, epoch)
        context.time.sleep(context.check_quorum_timeout_ms - 1)
        time_to_sleep -= context.check_quorum_timeout_ms - 1
    context.deliver_request(context.describe_quorum_request())
    context.poll_until_response()
    now = context.time.milliseconds()
    expected_voters[0].update(last_fetch_timestamp=now, last_caught_up_timestamp=now)
    expected_voters[1].update(last_fetch_timestamp=follower_fetch_time)
    context.assert_sent_describe_quorum_response(local_id, epoch, expected_hw, expected_voters, [])
    # a negative node id changes nothing
    context.deliver_request(context.fetch_request(epoch, ReplicaKey.of(-1, ReplicaKey.NO_DIRECTORY_ID), 0, 0, 0))
    context.poll_until_response()
    context.assert_sent_fetch_partition_response(expected_hw, epoch)
    context.deliver_request(context.describe_quorum_request())
    context.poll_until_response()
    now = context.time.milliseconds()
    expected_voters[0].update(last_fetch_timestamp=now, last_caught_up_timestamp=now)
    context.assert_sent_describe_quorum_response(local_id, epoch, expected_hw, expected_voters, [])


@pytest.mark.parametrize(("with_kip853_rpc", "with_bootstrap_snapshot"), [(False, False)])
def test_describe_quorum_non_monotonic_follower_fetch(with_kip853_rpc: bool, with_bootstrap_snapshot: bool) -> None:
    local_id = random_replica_id()
    follower_id = local_id + 1
    follower = ReplicaKey.of(follower_id, ReplicaKey.NO_DIRECTORY_ID)
    context = Builder(local_id, {local_id, follower_id}).with_kip853_rpc(with_kip853_rpc).build()
    context.become_leader()
    epoch = context.current_epoch()
    context.time.sleep(100)
    batch = ["foo", "bar"]
    context.client.prepare_append(epoch, batch)
    context.client.schedule_prepared_append()
    context.client.poll()
    fetch_offset = 3
    follower_fetch_time = context.time.milliseconds()
    context.deliver_request(context.fetch_request(epoch, follower, fetch_offset, epoch, 0))
    context.poll_until_response()
    expected_hw = fetch_offset
    context.assert_sent_fetch_partition_response(expected_hw, epoch)
    context.time.sleep(100)
    context.deliver_request(context.describe_quorum_request())
    context.poll_until_response()
    now = context.time.milliseconds()
    expected_voters = [_replica_state(local_id, fetch_offset, now, now),
                       _replica_state(follower.id, fetch_offset, follower_fetch_time, follower_fetch_time)]
    context.assert_sent_describe_quorum_response(local_id, epoch, expected_hw, expected_voters, [])
    # the follower lost its disk and fetches from earlier: the high watermark does not go back
    context.time.sleep(100)
    follower_fetch_time = context.time.milliseconds()
    context.deliver_request(context.fetch_request(epoch, follower, fetch_offset - 1, epoch, 0))
    context.poll_until_response()
    context.assert_sent_fetch_partition_response(expected_hw, epoch)
    context.time.sleep(100)
    context.deliver_request(context.describe_quorum_request())
    context.poll_until_response()
    now = context.time.milliseconds()
    expected_voters[0].update(last_fetch_timestamp=now, last_caught_up_timestamp=now)
    expected_voters[1].update(log_end_offset=fetch_offset - len(batch), last_fetch_timestamp=follower_fetch_time)
    context.assert_sent_describe_quorum_response(local_id, epoch, expected_hw, expected_voters, [])


@KIP853
def test_leader_graceful_shutdown_timeout(with_kip853_rpc: bool) -> None:
    from kafka_edu.v1_0_2.clients.common.errors import TimeoutException
    local_id = random_replica_id()
    other_node_id = local_id + 1
    context = (Builder(local_id, {local_id, other_node_id}).with_unknown_leader(1)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.become_leader()
    epoch = context.current_epoch()
    shutdown_timeout_ms = 5000
    shutdown_future = context.client.shutdown(shutdown_timeout_ms)
    assert context.client.is_running()
    assert not shutdown_future.done()
    context.poll_until_request()
    assert context.client.is_running()
    context.assert_sent_end_quorum_epoch_request(epoch, other_node_id)
    # the timeout passes with no sign of a new epoch
    context.time.sleep(shutdown_timeout_ms)
    context.client.poll()
    assert not context.client.is_running()
    assert shutdown_future.is_completed_exceptionally()
    assert isinstance(shutdown_future.exception(), TimeoutException)


@KIP853
def test_follower_graceful_shutdown(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_id = local_id + 1
    epoch = 5
    context = (Builder(local_id, {local_id, other_node_id}).with_elected_leader(epoch, other_node_id)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.assert_elected_leader(epoch, other_node_id)
    context.client.poll()
    shutdown_future = context.client.shutdown(5000)
    assert context.client.is_running()
    assert not shutdown_future.done()
    context.client.poll()
    assert not context.client.is_running()
    assert shutdown_future.done()
    assert shutdown_future.result() is None


@KIP853
def test_observer_graceful_shutdown(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    context = (Builder(local_id, {local_id + 1, local_id + 2}).with_unknown_leader(5)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.client.poll()
    context.assert_unknown_leader(5)
    # an observer stops at once, leader known or not
    shutdown_future = context.client.shutdown(5000)
    assert context.client.is_running()
    assert not shutdown_future.done()
    context.client.poll()
    assert not context.client.is_running()
    assert shutdown_future.done()
    assert shutdown_future.result() is None


@KIP853
def test_graceful_shutdown_single_member_quorum(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    context = Builder(local_id, {local_id}).with_kip853_rpc(with_kip853_rpc).build()
    context.assert_elected_leader(1, local_id)
    context.client.poll()
    assert len(context.channel.drain_send_queue()) == 0
    context.client.shutdown(5000)
    assert context.client.is_running()
    context.client.poll()
    assert not context.client.is_running()


@KIP853
def test_follower_replication(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_id = local_id + 1
    epoch = 5
    context = (Builder(local_id, {local_id, other_node_id}).with_elected_leader(epoch, other_node_id)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.assert_elected_leader(epoch, other_node_id)
    context.poll_until_request()
    fetch_quorum_request = context.assert_sent_fetch_request(epoch, 0, 0)
    records = context.build_batch(0, 3, ["a", "b"])
    context.deliver_response(fetch_quorum_request.correlation_id, fetch_quorum_request.destination,
                             context.fetch_response(epoch, other_node_id, records, 0, Errors.NONE))
    context.client.poll()
    assert context.log.end_offset().offset == 2
    assert context.log.first_unflushed_offset() == 2


@pytest.mark.parametrize(("with_kip853_rpc", "always_flush"), [(False, True), (False, False)])
def test_observer_replication(with_kip853_rpc: bool, always_flush: bool) -> None:
    local_id = random_replica_id()
    other_node_id = local_id + 1
    epoch = 5
    context = (Builder(local_id, {other_node_id}).with_elected_leader(epoch, other_node_id)
               .with_kip853_rpc(with_kip853_rpc).with_always_flush(always_flush).build())
    context.assert_elected_leader(epoch, other_node_id)
    context.poll_until_request()
    fetch_quorum_request = context.assert_sent_fetch_request(epoch, 0, 0)
    records = context.build_batch(0, 3, ["a", "b"])
    context.deliver_response(fetch_quorum_request.correlation_id, fetch_quorum_request.destination,
                             context.fetch_response(epoch, other_node_id, records, 0, Errors.NONE))
    context.client.poll()
    assert context.log.end_offset().offset == 2
    assert context.log.first_unflushed_offset() == (2 if always_flush else 0)


@KIP853
def test_empty_record_set_in_fetch_response(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_id = local_id + 1
    epoch = 5
    context = (Builder(local_id, {local_id, other_node_id}).with_elected_leader(epoch, other_node_id)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.assert_elected_leader(epoch, other_node_id)
    # an empty answer
    context.poll_until_request()
    fetch_quorum_request = context.assert_sent_fetch_request(epoch, 0, 0)
    context.deliver_response(fetch_quorum_request.correlation_id, fetch_quorum_request.destination,
                             context.fetch_response(epoch, other_node_id, b"", 0, Errors.NONE))
    context.client.poll()
    assert context.log.end_offset().offset == 0
    assert context.client.high_watermark() == 0
    # records, the high watermark where it was
    context.poll_until_request()
    records = context.build_batch(0, epoch, ["a", "b"])
    fetch_quorum_request = context.assert_sent_fetch_request(epoch, 0, 0)
    context.deliver_response(fetch_quorum_request.correlation_id, fetch_quorum_request.destination,
                             context.fetch_response(epoch, other_node_id, records, 0, Errors.NONE))
    context.client.poll()
    assert context.log.end_offset().offset == 2
    assert context.client.high_watermark() == 0
    # empty again, but the high watermark moves
    context.poll_until_request()
    fetch_quorum_request = context.assert_sent_fetch_request(epoch, 2, epoch)
    context.deliver_response(fetch_quorum_request.correlation_id, fetch_quorum_request.destination,
                             context.fetch_response(epoch, other_node_id, b"", 2, Errors.NONE))
    context.client.poll()
    assert context.log.end_offset().offset == 2
    assert context.client.high_watermark() == 2


@KIP853
def test_fetch_should_be_treated_as_leader_acknowledgement(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    epoch = 5
    context = (Builder(local_id, {local_id, other_node_key.id}).update_random(_mock_timeout)
               .with_unknown_leader(epoch - 1).with_kip853_rpc(with_kip853_rpc).build())
    context.time.sleep(context.election_timeout_ms())
    context.expect_and_grant_votes(epoch)
    context.poll_until_request()
    # the BeginQuorumEpoch is lost; the other voter finds us with a Fetch
    context.assert_sent_begin_quorum_epoch_request(epoch, {other_node_key.id})
    context.deliver_request(context.fetch_request(epoch, other_node_key, 0, 0, 500))
    context.client.poll()
    # the BeginQuorumEpoch times out, and is not sent again
    context.assert_sent_fetch_partition_response(Errors.NONE, epoch, local_id)
    context.time.sleep(context.request_timeout_ms())
    context.client.poll()
    assert len(context.channel.drain_send_queue()) == 0


@KIP853
def test_leader_append_single_member_quorum(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    context = Builder(local_id, {local_id}).with_kip853_rpc(with_kip853_rpc).build()
    now = context.time.milliseconds()
    context.poll_until(lambda: context.log.end_offset().offset == 1)
    context.assert_elected_leader(1, local_id)
    # the LeaderChange record is written still
    assert context.client.high_watermark() == 1
    append_records = ["a", "b", "c"]
    context.client.poll()
    assert context.client.high_watermark() == 1
    context.client.prepare_append(context.current_epoch(), append_records)
    context.client.schedule_prepared_append()
    context.client.poll()
    assert context.client.high_watermark() == 4
    # read it back, until the leader answers empty
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    batches: list = []
    appended = True
    while appended:
        fetch_offset, last_fetched_epoch = 0, 0
        if batches:
            fetch_offset = batches[-1].last_offset + 1
            last_fetched_epoch = batches[-1].partition_leader_epoch
        context.deliver_request(context.fetch_request(1, other_node_key, fetch_offset, last_fetched_epoch, 0))
        context.poll_until_response()
        fetched_records = context.assert_sent_fetch_partition_response(Errors.NONE, 1, local_id)
        fetched_batch = list(MemoryRecords(fetched_records).batches())
        batches.extend(fetched_batch)
        appended = bool(fetched_batch)
    assert len(batches) == 2
    leader_change_batch = batches[0]
    assert leader_change_batch.is_control_batch
    read_records = list(leader_change_batch.records())
    assert len(read_records) == 1
    record = read_records[0]
    assert record.timestamp == now
    RaftClientTestContext.verify_leader_change_message(local_id, [local_id], [local_id], record.key, record.value)
    batch = batches[1]
    assert batch.partition_leader_epoch == 1
    read_records = list(batch.records())
    assert len(read_records) == 3
    assert [r.value.decode() for r in read_records] == append_records


@KIP853
def test_follower_log_reconciliation(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_id = local_id + 1
    epoch, last_epoch = 5, 3
    context = (Builder(local_id, {local_id, other_node_id}).with_elected_leader(epoch, other_node_id)
               .append_to_log(last_epoch, ["foo", "bar"]).append_to_log(last_epoch, ["baz"])
               .with_kip853_rpc(with_kip853_rpc).build())
    context.assert_elected_leader(epoch, other_node_id)
    assert context.log.end_offset().offset == 3
    context.poll_until_request()
    request = context.assert_sent_fetch_request(epoch, 3, last_epoch)
    context.deliver_response(request.correlation_id, request.destination,
                             context.diverging_fetch_response(epoch, other_node_id, 2, last_epoch, 1))
    # the truncation
    context.client.poll()
    assert context.log.end_offset().offset == 2
    assert context.log.first_unflushed_offset() == 2
    # fetching again
    context.client.poll()
    context.assert_sent_fetch_request(epoch, 2, last_epoch)


def _authorization_failed(api_name: str):  # noqa: ANN202
    """A response of the API carrying only CLUSTER_AUTHORIZATION_FAILED (Kafka's `new XResponseData().setErrorCode`)."""
    from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
    from kafka_edu.v3_9.raft.raft import raft_util
    return raft_util.error_response(ApiKeys[api_name], Errors.CLUSTER_AUTHORIZATION_FAILED)


@KIP853
def test_cluster_authorization_failed_in_fetch(with_kip853_rpc: bool) -> None:
    from kafka_edu.v1_0_2.clients.common.errors import ClusterAuthorizationException
    local_id = random_replica_id()
    other_node_id = local_id + 1
    epoch = 5
    context = (Builder(local_id, {local_id, other_node_id}).with_kip853_rpc(with_kip853_rpc)
               .with_elected_leader(epoch, other_node_id).build())
    context.assert_elected_leader(epoch, other_node_id)
    context.poll_until_request()
    request = context.assert_sent_fetch_request(epoch, 0, 0)
    context.deliver_response(request.correlation_id, request.destination, _authorization_failed("FETCH"))
    with pytest.raises(ClusterAuthorizationException):
        context.client.poll()


@KIP853
def test_cluster_authorization_failed_in_begin_quorum_epoch(with_kip853_rpc: bool) -> None:
    from kafka_edu.v1_0_2.clients.common.errors import ClusterAuthorizationException
    local_id = random_replica_id()
    other_node_id = local_id + 1
    epoch = 5
    context = (Builder(local_id, {local_id, other_node_id}).update_random(_mock_timeout)
               .with_unknown_leader(epoch - 1).with_kip853_rpc(with_kip853_rpc).build())
    context.time.sleep(context.election_timeout_ms())
    context.expect_and_grant_votes(epoch)
    context.poll_until_request()
    requests = context.collect_begin_epoch_requests(epoch)
    assert len(requests) == 1
    request = requests[0]
    assert request.destination.id == other_node_id
    context.deliver_response(request.correlation_id, request.destination, _authorization_failed("BEGIN_QUORUM_EPOCH"))
    with pytest.raises(ClusterAuthorizationException):
        context.client.poll()


@KIP853
def test_cluster_authorization_failed_in_vote(with_kip853_rpc: bool) -> None:
    from kafka_edu.v1_0_2.clients.common.errors import ClusterAuthorizationException
    local_id = random_replica_id()
    epoch = 5
    context = (Builder(local_id, {local_id, local_id + 1}).with_unknown_leader(epoch - 1)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.time.sleep(context.election_timeout_ms() * 2)
    context.poll_until_request()
    context.assert_voted_candidate(epoch, local_id)
    request = context.assert_sent_vote_request(epoch, 0, 0, 1)
    context.deliver_response(request.correlation_id, request.destination, _authorization_failed("VOTE"))
    with pytest.raises(ClusterAuthorizationException):
        context.client.poll()


@KIP853
def test_cluster_authorization_failed_in_end_quorum_epoch(with_kip853_rpc: bool) -> None:
    from kafka_edu.v1_0_2.clients.common.errors import ClusterAuthorizationException
    local_id = random_replica_id()
    other_node_id = local_id + 1
    context = (Builder(local_id, {local_id, other_node_id}).with_unknown_leader(1)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.become_leader()
    epoch = context.current_epoch()
    context.client.shutdown(5000)
    context.poll_until_request()
    request = context.assert_sent_end_quorum_epoch_request(epoch, other_node_id)
    context.deliver_response(request.correlation_id, request.destination, _authorization_failed("END_QUORUM_EPOCH"))
    with pytest.raises(ClusterAuthorizationException):
        context.client.poll()


@KIP853
def test_handle_leader_change_fires_after_listener_reaches_epoch_start_offset_on_empty_log(
        with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    context = Builder(local_id, {local_id, other_node_key.id}).with_kip853_rpc(with_kip853_rpc).build()
    context.become_leader()
    context.client.poll()
    epoch = context.current_epoch()
    # the LeaderChange record
    assert context.log.end_offset().offset == 1
    # no high watermark before the followers fetch: no handleLeaderChange
    assert context.listener.current_claimed_epoch() is None
    assert context.listener.last_commit_offset() is None
    # a Fetch short of the epoch's start: still no high watermark
    context.deliver_request(context.fetch_request(epoch, other_node_key, 0, 0, 0))
    context.client.poll()
    assert context.listener.current_claimed_epoch() is None
    assert context.listener.last_commit_offset() is None
    # past it: committed data (the LeaderChange batch included)
    context.deliver_request(context.fetch_request(epoch, other_node_key, 1, epoch, 0))
    context.client.poll()
    assert context.listener.last_commit_offset() == 0
    # caught up: the leader change fires
    context.client.poll()
    assert context.listener.current_claimed_epoch() == epoch
    assert context.listener.claimed_epoch_start_offset(epoch) == 0


def _three_batches_context(local_id: int, voters: set[int], epoch: int, with_kip853_rpc: bool) -> RaftClientTestContext:
    return (Builder(local_id, voters).append_to_log(1, ["1", "2", "3"]).append_to_log(1, ["4", "5", "6"])
            .append_to_log(2, ["7", "8", "9"]).with_unknown_leader(epoch - 1).with_kip853_rpc(with_kip853_rpc)
            .build())


@KIP853
def test_handle_leader_change_fires_after_listener_reaches_epoch_start_offset(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    epoch = 5
    expected_batches = [["1", "2", "3"], ["4", "5", "6"], ["7", "8", "9"]]
    context = _three_batches_context(local_id, {local_id, other_node_key.id}, epoch, with_kip853_rpc)
    context.become_leader()
    context.client.poll()
    # the 9 records and the LeaderChange record
    assert context.log.end_offset().offset == 10
    assert context.listener.current_claimed_epoch() is None
    assert context.listener.last_commit_offset() is None
    context.deliver_request(context.fetch_request(epoch, other_node_key, 3, 1, 500))
    context.client.poll()
    assert context.listener.current_claimed_epoch() is None
    assert context.listener.last_commit_offset() is None
    context.deliver_request(context.fetch_request(epoch, other_node_key, 10, epoch, 500))

    def caught_up() -> bool:
        index = 0
        for batch in context.listener.committed_batches():
            if index < len(expected_batches):
                assert list(batch.records) == expected_batches[index]
            index += 1
        # the control batch is the last one committed
        assert index == 4
        return context.listener.current_claimed_epoch() is not None
    context.poll_until(caught_up)
    assert context.listener.current_claimed_epoch() == epoch
    # the last committed offset is inclusive: the LeaderChange record
    assert context.listener.last_commit_offset() == 9
    assert context.listener.claimed_epoch_start_offset(epoch) == 9


@KIP853
def test_late_registered_listener_catches_up(with_kip853_rpc: bool) -> None:
    from tests.kafka_tests.v3_9.raft.raft.raft_client_test_context import MockListener
    local_id = random_replica_id()
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    epoch = 5
    context = _three_batches_context(local_id, {local_id, other_node_key.id}, epoch, with_kip853_rpc)
    context.become_leader()
    context.client.poll()
    assert context.log.end_offset().offset == 10
    # the first listener catches up
    context.deliver_request(context.fetch_request(epoch, other_node_key, 10, epoch, 0))
    context.poll_until(lambda: context.listener.current_claimed_epoch() == epoch)
    assert context.client.high_watermark() == 10
    assert context.listener.last_commit_offset() == 9
    assert context.listener.current_claimed_epoch() == epoch
    # handleLeaderChange not fired early
    assert context.listener.claimed_epoch_start_offset(epoch) == 9
    # a second listener catches up to the high watermark
    second_listener = MockListener(local_id)
    context.client.register(second_listener)
    context.poll_until(lambda: second_listener.current_claimed_epoch() == epoch)
    assert second_listener.last_commit_offset() == 9
    assert context.listener.current_claimed_epoch() == epoch
    assert second_listener.claimed_epoch_start_offset(epoch) == 9


@KIP853
def test_reregistration_changes_listener_context(with_kip853_rpc: bool) -> None:
    from tests.kafka_tests.v3_9.raft.raft.raft_client_test_context import MockListener
    local_id = random_replica_id()
    epoch = 5
    context = _three_batches_context(local_id, {local_id, local_id + 1}, epoch, with_kip853_rpc)
    context.become_leader()
    context.client.poll()
    assert context.log.end_offset().offset == 10
    context.advance_local_leader_high_watermark_to_log_end_offset()
    context.poll_until(lambda: context.listener.last_commit_offset() == 9)
    second_listener = MockListener(local_id)
    context.client.register(second_listener)
    context.poll_until(lambda: second_listener.last_commit_offset() == 9)
    context.client.unregister(second_listener)
    # the registered listener hears of the new write...
    assert context.client.prepare_append(epoch, ["a"]) == 10
    context.client.schedule_prepared_append()
    context.client.poll()
    context.advance_local_leader_high_watermark_to_log_end_offset()
    context.poll_until(lambda: context.listener.last_commit_offset() == 10)
    # ...the unregistered one does not
    assert second_listener.last_commit_offset() == 9


@KIP853
def test_handle_commit_callback_fires_after_follower_high_watermark_advances(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    other_node_id = local_id + 1
    epoch = 5
    voters = {local_id, other_node_id}
    context = (Builder(local_id, voters).with_elected_leader(epoch, other_node_id).with_kip853_rpc(with_kip853_rpc)
               .build())
    assert context.client.high_watermark() is None
    context.poll_until_request()
    fetch_request = context.assert_sent_fetch_request()
    assert fetch_request.destination.id in voters
    context.assert_fetch_request_data(fetch_request, epoch, 0, 0)
    # an answer that does not move the high watermark
    records1 = ["a", "b", "c"]
    context.deliver_response(fetch_request.correlation_id, fetch_request.destination,
                             context.fetch_response(epoch, other_node_id, context.build_batch(0, 3, records1), 0,
                                                    Errors.NONE))
    context.client.poll()
    # nothing for the listener
    assert context.client.high_watermark() == 0
    assert context.listener.num_committed_batches() == 0
    assert context.listener.current_claimed_epoch() is None
    context.poll_until_request()
    fetch_request = context.assert_sent_fetch_request()
    assert fetch_request.destination.id in voters
    context.assert_fetch_request_data(fetch_request, epoch, 3, 3)
    # the high watermark now covers the first batch
    context.deliver_response(fetch_request.correlation_id, fetch_request.destination,
                             context.fetch_response(epoch, other_node_id, context.build_batch(3, 3, ["d", "e", "f"]),
                                                    3, Errors.NONE))
    context.client.poll()
    assert context.client.high_watermark() == 3
    assert context.listener.num_committed_batches() == 1
    assert context.listener.last_commit_offset() == 2
    assert list(context.listener.last_commit().records) == records1
    assert context.listener.current_claimed_epoch() is None


def _voted_or_candidate_context(local_id: int, other_id: int, epoch: int,
                                with_kip853_rpc: bool) -> RaftClientTestContext:
    return (Builder(local_id, {local_id, other_id}).append_to_log(2, ["a", "b", "c"])
            .append_to_log(4, ["d", "e", "f"]).append_to_log(4, ["g", "h", "i"]).with_unknown_leader(epoch - 1)
            .with_kip853_rpc(with_kip853_rpc).build())


@KIP853
def test_handle_commit_callback_fires_in_voted_state(with_kip853_rpc: bool) -> None:
    # the state machine catches up during an election, the high watermark being known
    from tests.kafka_tests.v3_9.raft.raft.raft_client_test_context import MockListener
    local_id = random_replica_id()
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    epoch = 7
    context = _voted_or_candidate_context(local_id, other_node_key.id, epoch, with_kip853_rpc)
    # leader, and a Fetch sets the high watermark
    context.become_leader()
    context.deliver_request(context.fetch_request(epoch, other_node_key, 10, epoch, 500))
    context.client.poll()
    assert context.client.high_watermark() == 10
    # a Vote: voted
    candidate_epoch = epoch + 1
    context.deliver_request(context.vote_request(candidate_epoch, other_node_key, epoch, 10))
    context.poll_until_response()
    context.assert_voted_candidate(candidate_epoch, other_node_key.id)
    assert context.client.high_watermark() == 10
    # a new listener catches up meanwhile
    second_listener = MockListener(local_id)
    context.client.register(second_listener)
    context.client.poll()
    context.assert_voted_candidate(candidate_epoch, other_node_key.id)
    # data at 0..8, the LeaderChange control record at 9
    context.poll_until(lambda: second_listener.last_commit_offset() == 9)
    assert second_listener.last_commit_offset() == 9
    assert second_listener.current_claimed_epoch() is None


@KIP853
def test_handle_commit_callback_fires_in_candidate_state(with_kip853_rpc: bool) -> None:
    from tests.kafka_tests.v3_9.raft.raft.raft_client_test_context import MockListener
    local_id = random_replica_id()
    other_node_key = replica_key(local_id + 1, with_kip853_rpc)
    epoch = 7
    context = _voted_or_candidate_context(local_id, other_node_key.id, epoch, with_kip853_rpc)
    context.become_leader()
    assert context.log.end_offset().offset == 10
    context.deliver_request(context.fetch_request(epoch, other_node_key, 10, epoch, 0))
    context.poll_until_response()
    assert context.client.high_watermark() == 10
    context.assert_sent_fetch_partition_response(Errors.NONE, epoch, local_id)
    # a Vote: unattached
    context.deliver_request(context.vote_request(epoch + 1, other_node_key, epoch, 9))
    context.poll_until_response()
    context.assert_unknown_leader(epoch + 1)
    assert context.client.high_watermark() == 10
    # the election timeout: a candidate
    candidate_epoch = epoch + 2
    context.time.sleep(context.election_timeout_ms() * 2)
    context.client.poll()
    context.assert_voted_candidate(candidate_epoch, local_id)
    second_listener = MockListener(local_id)
    context.client.register(second_listener)
    context.client.poll()
    context.assert_voted_candidate(candidate_epoch, local_id)
    context.poll_until(lambda: second_listener.last_commit_offset() == 9)
    assert second_listener.last_commit_offset() == 9
    assert second_listener.current_claimed_epoch() is None


@KIP853
def test_handle_leader_change_fires_after_unattached_registration(with_kip853_rpc: bool) -> None:
    # a listener registered while unattached hears of the epoch, then of the leader
    from tests.kafka_tests.v3_9.raft.raft.raft_client_test_context import MockListener
    local_id = random_replica_id()
    other_node_id = local_id + 1
    epoch = 7
    context = (Builder(local_id, {local_id, other_node_id}).with_unknown_leader(epoch)
               .with_kip853_rpc(with_kip853_rpc).build())
    second_listener = MockListener(local_id)
    context.client.register(second_listener)
    context.client.poll()
    assert second_listener.current_leader_and_epoch() == LeaderAndEpoch(None, epoch)
    context.deliver_request(context.begin_epoch_request(epoch, other_node_id))
    context.poll_until_response()
    assert second_listener.current_leader_and_epoch() == LeaderAndEpoch(other_node_id, epoch)


@KIP853
def test_handle_leader_change_fires_after_follower_registration(with_kip853_rpc: bool) -> None:
    from tests.kafka_tests.v3_9.raft.raft.raft_client_test_context import MockListener
    local_id = random_replica_id()
    other_node_id = local_id + 1
    epoch = 7
    context = (Builder(local_id, {local_id, other_node_id}).with_elected_leader(epoch, other_node_id)
               .with_kip853_rpc(with_kip853_rpc).build())
    second_listener = MockListener(local_id)
    context.client.register(second_listener)
    context.client.poll()
    assert second_listener.current_leader_and_epoch() == LeaderAndEpoch(other_node_id, epoch)


@KIP853
def test_handle_leader_change_fires_after_resign_registration(with_kip853_rpc: bool) -> None:
    # a listener registered while resigned hears nothing
    from tests.kafka_tests.v3_9.raft.raft.raft_client_test_context import MockListener
    local_id = random_replica_id()
    epoch = 7
    context = (Builder(local_id, {local_id, local_id + 1}).with_elected_leader(epoch, local_id)
               .with_kip853_rpc(with_kip853_rpc).build())
    context.client.poll()
    assert context.client.quorum.is_resigned()
    assert context.listener.current_leader_and_epoch() == LeaderAndEpoch.UNKNOWN
    second_listener = MockListener(local_id)
    context.client.register(second_listener)
    context.client.poll()
    assert context.client.quorum.is_resigned()
    assert second_listener.current_leader_and_epoch() == LeaderAndEpoch.UNKNOWN


def test_handle_begin_quorum_request_more_endpoints() -> None:
    from kafka_edu.v3_9.raft.raft.endpoints import Endpoints
    local = replica_key(random_replica_id(), False)
    leader = replica_key(local.id + 1, False)
    leader_epoch = 3
    context = Builder(local.id, {local.id, leader.id}).with_elected_leader(leader_epoch, leader.id).build()
    context.client.poll()
    leader_endpoints = Endpoints.from_inet_socket_addresses({
        "LISTENER": ("localhost", 9990 + leader.id), "ANOTHER_LISTENER": ("localhost", 8990 + leader.id)})
    context.deliver_request(context.begin_epoch_request(leader_epoch, leader.id, leader_endpoints))
    context.poll_until_response()
    context.assert_elected_leader(leader_epoch, leader.id)
    context.assert_sent_begin_quorum_epoch_response(Errors.NONE, leader_epoch, leader.id)


def _bootstrap_servers(voters: set[int]) -> list[tuple[str, int]]:
    from tests.kafka_tests.v3_9.raft.raft.raft_client_test_context import mock_address
    return [mock_address(voter) for voter in sorted(voters)]


@KIP853
def test_observer_quorum_discovery_failure(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    leader_id = local_id + 1
    epoch = 5
    voters = {leader_id}
    context = (Builder(local_id, voters).with_bootstrap_servers(_bootstrap_servers(voters))
               .with_kip853_rpc(with_kip853_rpc).build())
    context.poll_until_request()
    fetch_request = context.assert_sent_fetch_request()
    assert fetch_request.destination.id in context.bootstrap_ids
    context.assert_fetch_request_data(fetch_request, 0, 0, 0)
    context.deliver_response(fetch_request.correlation_id, fetch_request.destination,
                             context.fetch_response(-1, -1, b"", -1, Errors.UNKNOWN_SERVER_ERROR))
    context.client.poll()
    context.time.sleep(context.retry_backoff_ms)
    context.poll_until_request()
    fetch_request = context.assert_sent_fetch_request()
    assert fetch_request.destination.id in context.bootstrap_ids
    context.assert_fetch_request_data(fetch_request, 0, 0, 0)
    context.deliver_response(fetch_request.correlation_id, fetch_request.destination,
                             context.fetch_response(epoch, leader_id, b"", 0, Errors.FENCED_LEADER_EPOCH))
    context.client.poll()
    context.assert_elected_leader(epoch, leader_id)


@KIP853
def test_observer_send_discovery_fetch_after_fetch_timeout(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    leader_id, other_node_id = local_id + 1, local_id + 2
    epoch = 5
    voters = {leader_id, other_node_id}
    context = (Builder(local_id, voters).with_bootstrap_servers(_bootstrap_servers(voters))
               .with_kip853_rpc(with_kip853_rpc).build())
    context.poll_until_request()
    fetch_request = context.assert_sent_fetch_request()
    assert fetch_request.destination.id in context.bootstrap_ids
    context.assert_fetch_request_data(fetch_request, 0, 0, 0)
    context.deliver_response(fetch_request.correlation_id, fetch_request.destination,
                             context.fetch_response(epoch, leader_id, b"", 0, Errors.FENCED_LEADER_EPOCH))
    context.client.poll()
    context.assert_elected_leader(epoch, leader_id)
    context.time.sleep(context.fetch_timeout_ms)
    context.poll_until_request()
    fetch_request = context.assert_sent_fetch_request()
    assert fetch_request.destination.id != leader_id
    assert fetch_request.destination.id in context.bootstrap_ids
    context.assert_fetch_request_data(fetch_request, epoch, 0, 0)


def _discover_leader_through_bootstrap(context: RaftClientTestContext, voters: set[int], leader_id: int,
                                       epoch: int):  # noqa: ANN202
    # a Fetch to a bootstrap server finds the leader
    context.poll_until_request()
    discovery_fetch_request = context.assert_sent_fetch_request()
    assert discovery_fetch_request.destination.id not in voters
    assert discovery_fetch_request.destination.id in context.bootstrap_ids
    context.assert_fetch_request_data(discovery_fetch_request, 0, 0, 0)
    context.deliver_response(discovery_fetch_request.correlation_id, discovery_fetch_request.destination,
                             context.fetch_response(epoch, leader_id, b"", 0, Errors.FENCED_LEADER_EPOCH))
    context.client.poll()
    context.assert_elected_leader(epoch, leader_id)
    # then one to the leader
    context.poll_until_request()
    to_leader_fetch_request = context.assert_sent_fetch_request()
    assert to_leader_fetch_request.destination.id == leader_id
    context.assert_fetch_request_data(to_leader_fetch_request, epoch, 0, 0)
    context.time.sleep(context.request_timeout_ms())
    # timed out: one to a bootstrap server
    context.poll_until_request()
    retry_to_bootstrap_server_fetch_request = context.assert_sent_fetch_request()
    assert retry_to_bootstrap_server_fetch_request.destination.id not in voters
    assert retry_to_bootstrap_server_fetch_request.destination.id in context.bootstrap_ids
    context.assert_fetch_request_data(retry_to_bootstrap_server_fetch_request, epoch, 0, 0)
    return to_leader_fetch_request, retry_to_bootstrap_server_fetch_request


@KIP853
def test_observer_handle_retry_fetcht_to_bootstrap_server(with_kip853_rpc: bool) -> None:
    # a Fetch retried to a bootstrap server after one to the leader
    local_id = random_replica_id()
    leader_id, other_node_id = local_id + 1, local_id + 2
    epoch = 5
    voters = {leader_id, other_node_id}
    context = (Builder(local_id, voters).with_bootstrap_servers(_bootstrap_servers(voters))
               .with_kip853_rpc(with_kip853_rpc).build())
    to_leader, retry_to_bootstrap = _discover_leader_through_bootstrap(context, voters, leader_id, epoch)
    # the leader's late answer
    context.deliver_response(to_leader.correlation_id, to_leader.destination,
                             context.fetch_response(epoch, leader_id, context.build_batch(0, 3, ["a", "b"]), 0,
                                                    Errors.NONE))
    context.client.poll()
    # the same answer from the bootstrap server, as if it were the leader
    context.deliver_response(retry_to_bootstrap.correlation_id, retry_to_bootstrap.destination,
                             context.fetch_response(epoch, leader_id, context.build_batch(0, 3, ["a", "b"]), 0,
                                                    Errors.NONE))
    # the duplicate does not fail the poll
    context.client.poll()


@KIP853
def test_observer_handle_retry_fetch_to_leader(with_kip853_rpc: bool) -> None:
    # a Fetch retried to the leader after one to a bootstrap server
    local_id = random_replica_id()
    leader_id, other_node_id = local_id + 1, local_id + 2
    epoch = 5
    voters = {leader_id, other_node_id}
    context = (Builder(local_id, voters).with_bootstrap_servers(_bootstrap_servers(voters))
               .with_kip853_rpc(with_kip853_rpc).build())
    _discover_leader_through_bootstrap(context, voters, leader_id, epoch)
    # the leader's Fetch timed out, the bootstrap server's is in flight: nothing new is sent
    context.client.poll()
    assert not context.channel.has_sent_requests()


@KIP853
def test_observer_leader_rediscovery_after_broker_not_available_error(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    leader_id, other_node_id = local_id + 1, local_id + 2
    epoch = 5
    voters = {leader_id, other_node_id}
    context = (Builder(local_id, voters).with_bootstrap_servers(_bootstrap_servers(voters))
               .with_kip853_rpc(with_kip853_rpc).build())
    context.discover_leader_as_observer(leader_id, epoch)
    context.poll_until_request()
    fetch_request1 = context.assert_sent_fetch_request()
    assert fetch_request1.destination.id == leader_id
    context.assert_fetch_request_data(fetch_request1, epoch, 0, 0)
    context.deliver_response(fetch_request1.correlation_id, fetch_request1.destination,
                             context.fetch_response(epoch, -1, b"", -1, Errors.BROKER_NOT_AVAILABLE))
    context.poll_until_request()
    # the leader's connection backs off: the Fetch goes to a bootstrap server
    fetch_request2 = context.assert_sent_fetch_request()
    assert fetch_request2.destination.id != leader_id
    assert fetch_request2.destination.id in context.bootstrap_ids
    context.assert_fetch_request_data(fetch_request2, epoch, 0, 0)
    error = Errors.NONE if fetch_request2.destination.id == leader_id else Errors.NOT_LEADER_OR_FOLLOWER
    context.deliver_response(fetch_request2.correlation_id, fetch_request2.destination,
                             context.fetch_response(epoch, leader_id, b"", 0, error))
    context.client.poll()
    context.assert_elected_leader(epoch, leader_id)


@KIP853
def test_observer_leader_rediscovery_after_request_timeout(with_kip853_rpc: bool) -> None:
    local_id = random_replica_id()
    leader_id, other_node_id = local_id + 1, local_id + 2
    epoch = 5
    voters = {leader_id, other_node_id}
    context = (Builder(local_id, voters).with_bootstrap_servers(_bootstrap_servers(voters))
               .with_kip853_rpc(with_kip853_rpc).build())
    context.discover_leader_as_observer(leader_id, epoch)
    context.poll_until_request()
    fetch_request1 = context.assert_sent_fetch_request()
    assert fetch_request1.destination.id == leader_id
    context.assert_fetch_request_data(fetch_request1, epoch, 0, 0)
    context.time.sleep(context.request_timeout_ms())
    context.poll_until_request()
    fetch_request2 = context.assert_sent_fetch_request()
    assert fetch_request2.destination.id != leader_id
    assert fetch_request2.destination.id in context.bootstrap_ids
    context.assert_fetch_request_data(fetch_request2, epoch, 0, 0)
    context.deliver_response(fetch_request2.correlation_id, fetch_request2.destination,
                             context.fetch_response(epoch, leader_id, b"", 0, Errors.FENCED_LEADER_EPOCH))
    context.client.poll()
    context.assert_elected_leader(epoch, leader_id)


@KIP853
def test_observer_fetch_with_no_local_id(with_kip853_rpc: bool) -> None:
    # no local id: an observer (tooling and debugging)
    leader_id = random_replica_id()
    voters = {leader_id, leader_id + 1}
    context = (Builder(None, voters).with_bootstrap_servers(_bootstrap_servers(voters))
               .with_kip853_rpc(with_kip853_rpc).build())
    # the first Fetch finds the leader and epoch
    context.poll_until_request()
    fetch_request1 = context.assert_sent_fetch_request()
    assert fetch_request1.destination.id in context.bootstrap_ids
    context.assert_fetch_request_data(fetch_request1, 0, 0, 0)
    leader_epoch = 5
    context.deliver_response(fetch_request1.correlation_id, fetch_request1.destination,
                             context.fetch_response(5, leader_id, b"", 0, Errors.FENCED_LEADER_EPOCH))
    context.client.poll()
    context.assert_elected_leader(leader_epoch, leader_id)
    # the second goes to the leader
    context.poll_until_request()
    fetch_request2 = context.assert_sent_fetch_request()
    assert fetch_request2.destination.id == leader_id
    context.assert_fetch_request_data(fetch_request2, leader_epoch, 0, 0)
    context.deliver_response(fetch_request2.correlation_id, fetch_request2.destination,
                             context.fetch_response(leader_epoch, leader_id, context.build_batch(0, 3, ["a", "b", "c"]),
                                                    0, Errors.NONE))
    context.client.poll()
    assert context.log.end_offset().offset == 3
    assert context.log.last_fetched_epoch() == 3
