"""Port of core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala (Kafka 1.0.2).

Kafka mocks the ReplicaManager and ZkUtils with EasyMock (nice mocks) and runs both purgatories on a MockTimer with
their reapers off. Here `_ReplicaManagerStandIn` plays the ReplicaManager: told (as the test's `expect(...)` does) to
answer the next appendRecords(internalTopicsAllowed = true, isFromClient = false) by calling its callback with
NONE for the group's __consumer_offsets partition, and what getMagic returns; an appendRecords nobody told it about
does nothing, as on a nice mock; `reset()` is EasyMock.reset. `_ZkUtilsStandIn` gives the ZkUtils mock's one
answer: __consumer_offsets has two partitions, so some are not this coordinator's. The purgatories run on
tests.kafka_tests.mock_timer.MockTimer (reapers off), whose clock is the coordinator's. Kafka's `Future`s and
`Await.result` are concurrent.futures' (every callback here runs in the test's thread, so a `result(timeout)` that
times out means the answer was never given). Kafka's tests assert no metric here: every case is ported whole.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeoutError
from typing import Any

import pytest

from kafka_edu.v1_0_2.clients.common.record.file_records import MAGIC_VALUE_V2, NO_TIMESTAMP
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v1_0_2.core.coordinator.group.group_coordinator import (
    DEAD_GROUP,
    NO_PROTOCOL,
    GroupCoordinator,
    JoinGroupResult,
)
from kafka_edu.v1_0_2.core.coordinator.group.group_metadata import AwaitingSync, GroupOverview
from kafka_edu.v1_0_2.core.coordinator.group.group_metadata_manager import GROUP_METADATA_TOPIC_NAME
from kafka_edu.v1_0_2.core.coordinator.group.offset_and_metadata import OffsetAndMetadata
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.server.delayed_operation import DelayedOperationPurgatory
from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
from kafka_edu.v1_0_2.core.server.replica_manager import PartitionResponse
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from tests.kafka_tests.mock_timer import MockTimer
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import create_broker_config

KAFKA = kafka_test_class(
    "1.0.2", "core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala",
    cases=[
        "testOffsetsRetentionMsIntegerOverflow", "testJoinGroupWrongCoordinator", "testJoinGroupSessionTimeoutTooSmall",
        "testJoinGroupSessionTimeoutTooLarge", "testJoinGroupUnknownConsumerNewGroup", "testInvalidGroupId",
        "testValidJoinGroup", "testJoinGroupInconsistentProtocolType", "testJoinGroupWithEmptyProtocolType",
        "testJoinGroupWithEmptyGroupProtocol", "testJoinGroupInconsistentGroupProtocol",
        "testJoinGroupUnknownConsumerExistingGroup", "testHeartbeatWrongCoordinator", "testHeartbeatUnknownGroup",
        "testHeartbeatUnknownConsumerExistingGroup", "testHeartbeatRebalanceInProgress",
        "testHeartbeatIllegalGeneration", "testValidHeartbeat", "testSessionTimeout", "testHeartbeatMaintainsSession",
        "testCommitMaintainsSession", "testSessionTimeoutDuringRebalance", "testRebalanceCompletesBeforeMemberJoins",
        "testSyncGroupEmptyAssignment", "testSyncGroupNotCoordinator", "testSyncGroupFromUnknownGroup",
        "testSyncGroupFromUnknownMember", "testSyncGroupFromIllegalGeneration",
        "testJoinGroupFromUnchangedFollowerDoesNotRebalance", "testJoinGroupFromUnchangedLeaderShouldRebalance",
        "testLeaderFailureInSyncGroup", "testSyncGroupFollowerAfterLeader", "testSyncGroupLeaderAfterFollower",
        "testCommitOffsetFromUnknownGroup", "testCommitOffsetWithDefaultGeneration",
        "testCommitOffsetsAfterGroupIsEmpty", "testFetchOffsets", "testBasicFetchTxnOffsets",
        "testFetchTxnOffsetsWithAbort", "testFetchTxnOffsetsIgnoreSpuriousCommit",
        "testFetchTxnOffsetsOneProducerMultipleGroups", "testFetchTxnOffsetsMultipleProducersOneGroup",
        "testFetchOffsetForUnknownPartition", "testFetchOffsetNotCoordinatorForGroup", "testFetchAllOffsets",
        "testCommitOffsetInAwaitingSync", "testHeartbeatDuringRebalanceCausesRebalanceInProgress",
        "testGenerationIdIncrementsOnRebalance", "testLeaveGroupWrongCoordinator", "testLeaveGroupUnknownGroup",
        "testLeaveGroupUnknownConsumerExistingGroup", "testValidLeaveGroup", "testListGroupsIncludesStableGroups",
        "testListGroupsIncludesRebalancingGroups", "testDescribeGroupWrongCoordinator",
        "testDescribeGroupInactiveGroup", "testDescribeGroupStable", "testDescribeGroupRebalancing",
        "shouldDelayInitialRebalanceByGroupInitialRebalanceDelayOnEmptyGroup",
        "shouldResetRebalanceDelayWhenNewMemberJoinsGroupInInitialRebalance",
        "shouldDelayRebalanceUptoRebalanceTimeout",
    ],
)

CLIENT_ID = "consumer-test"
CLIENT_HOST = "localhost"
CONSUMER_MIN_SESSION_TIMEOUT = 10
CONSUMER_MAX_SESSION_TIMEOUT = 1000
DEFAULT_REBALANCE_TIMEOUT = 500
DEFAULT_SESSION_TIMEOUT = 500
GROUP_INITIAL_REBALANCE_DELAY = 50

GROUP_ID = "groupId"
PROTOCOL_TYPE = "consumer"
MEMBER_ID = "memberId"
METADATA = b""
PROTOCOLS = [("range", METADATA)]
OTHER_GROUP_ID = "otherGroup"  # its hash lands on the other of the two __consumer_offsets partitions

UNKNOWN_MEMBER_ID = ""  # JoinGroupRequest.UNKNOWN_MEMBER_ID
DEFAULT_MEMBER_ID = ""  # OffsetCommitRequest.DEFAULT_MEMBER_ID
DEFAULT_GENERATION_ID = -1  # OffsetCommitRequest.DEFAULT_GENERATION_ID
INVALID_OFFSET = -1  # OffsetFetchResponse.INVALID_OFFSET
MAGIC_VALUE_V1 = 1  # RecordBatch.MAGIC_VALUE_V1


class _ZkUtilsStandIn:
    """The nice ZkUtils mock, told getTopicPartitionCount(__consumer_offsets) -> Some(2)."""

    def get_topic_partition_count(self, topic: str) -> int | None:
        return 2 if topic == GROUP_METADATA_TOPIC_NAME else None


class _ReplicaManagerStandIn:
    """The nice ReplicaManager mock: each `expect_append_records(tp)` answers one appendRecords call; `magic` is
    getMagic's answer (EasyMock's `andReturn(...).anyTimes()`), None when not told."""

    def __init__(self) -> None:
        self._append_answers: list[TopicPartition] = []
        self.magic: int | None = None

    def reset(self) -> None:
        self._append_answers.clear()
        self.magic = None

    def expect_append_records(self, partition: TopicPartition) -> None:
        self._append_answers.append(partition)

    def append_records(self, timeout: int, required_acks: int, internal_topics_allowed: bool, is_from_client: bool,
                       entries_per_partition: dict[TopicPartition, Any],
                       response_callback: Callable[[dict[TopicPartition, PartitionResponse]], None],
                       *args: Any, **kwargs: Any) -> None:
        if internal_topics_allowed is True and is_from_client is False and self._append_answers:
            partition = self._append_answers.pop(0)
            response_callback({partition: PartitionResponse(Errors.NONE, 0, NO_TIMESTAMP, 0)})

    def get_magic(self, topic_partition: TopicPartition) -> int | None:
        return self.magic


def _await(future: Future, millis: int) -> Any:
    """Await.result(future, millis): a TimeoutError when no answer came."""
    try:
        return future.result(timeout=millis / 1000)
    except FutureTimeoutError:
        raise TimeoutError(f"no answer within {millis} ms") from None


class _Context:
    """setUp: the coordinator over the stand-in, its purgatories on the MockTimer, the group's partition owned."""

    def __init__(self) -> None:
        props = create_broker_config(0, "")
        props["group.min.session.timeout.ms"] = str(CONSUMER_MIN_SESSION_TIMEOUT)
        props["group.max.session.timeout.ms"] = str(CONSUMER_MAX_SESSION_TIMEOUT)
        props["group.initial.rebalance.delay.ms"] = str(GROUP_INITIAL_REBALANCE_DELAY)
        self.replica_manager = _ReplicaManagerStandIn()
        self.timer = MockTimer()
        config = KafkaConfig.from_props(props)
        heartbeat_purgatory = DelayedOperationPurgatory("Heartbeat", config.broker_id, timeout_timer=self.timer,
                                                        reaper_enabled=False)
        join_purgatory = DelayedOperationPurgatory("Rebalance", config.broker_id, timeout_timer=self.timer,
                                                   reaper_enabled=False)
        self.group_coordinator = GroupCoordinator.apply(config, self.replica_manager,
                                                        time_ms=self.timer.time.milliseconds,
                                                        zk_utils=_ZkUtilsStandIn(),
                                                        heartbeat_purgatory=heartbeat_purgatory,
                                                        join_purgatory=join_purgatory)
        self.group_coordinator.startup(False)
        self.group_partition_id = self.group_coordinator.partition_for(GROUP_ID)
        self.group_coordinator.group_manager.add_partition_ownership(self.group_partition_id)

    def tear_down(self) -> None:
        self.replica_manager.reset()
        self.group_coordinator.shutdown()

    # -- Kafka's private helpers ----------------------------------------------------------------------------------

    def send_join_group(self, group_id: str, member_id: str, protocol_type: str, protocols: list[tuple[str, bytes]],
                        rebalance_timeout: int = DEFAULT_REBALANCE_TIMEOUT,
                        session_timeout: int = DEFAULT_SESSION_TIMEOUT) -> Future:
        future: Future = Future()
        self.group_coordinator.handle_join_group(group_id, member_id, "clientId", "clientHost", rebalance_timeout,
                                                 session_timeout, protocol_type, protocols, future.set_result)
        return future

    def send_sync_group_leader(self, group_id: str, generation: int, leader_id: str,
                               assignment: dict[str, bytes]) -> Future:
        future: Future = Future()
        self.replica_manager.expect_append_records(TopicPartition(GROUP_METADATA_TOPIC_NAME, self.group_partition_id))
        self.replica_manager.magic = MAGIC_VALUE_V1
        self.group_coordinator.handle_sync_group(group_id, generation, leader_id, assignment,
                                                 lambda a, e: future.set_result((a, e)))
        return future

    def send_sync_group_follower(self, group_id: str, generation: int, member_id: str) -> Future:
        future: Future = Future()
        self.group_coordinator.handle_sync_group(group_id, generation, member_id, {},
                                                 lambda a, e: future.set_result((a, e)))
        return future

    def join_group(self, group_id: str, member_id: str, protocol_type: str, protocols: list[tuple[str, bytes]],
                   session_timeout: int = DEFAULT_SESSION_TIMEOUT,
                   rebalance_timeout: int = DEFAULT_REBALANCE_TIMEOUT) -> JoinGroupResult:
        future = self.send_join_group(group_id, member_id, protocol_type, protocols, rebalance_timeout,
                                      session_timeout)
        self.timer.advance_clock(GROUP_INITIAL_REBALANCE_DELAY + 1)
        return _await(future, rebalance_timeout + 100)

    def sync_group_follower(self, group_id: str, generation_id: int, member_id: str,
                            session_timeout: int = DEFAULT_SESSION_TIMEOUT) -> tuple[bytes, Errors]:
        return _await(self.send_sync_group_follower(group_id, generation_id, member_id), session_timeout + 100)

    def sync_group_leader(self, group_id: str, generation_id: int, member_id: str, assignment: dict[str, bytes],
                          session_timeout: int = DEFAULT_SESSION_TIMEOUT) -> tuple[bytes, Errors]:
        return _await(self.send_sync_group_leader(group_id, generation_id, member_id, assignment),
                      session_timeout + 100)

    def heartbeat(self, group_id: str, consumer_id: str, generation_id: int) -> Errors:
        future: Future = Future()
        self.group_coordinator.handle_heartbeat(group_id, consumer_id, generation_id, future.set_result)
        return _await(future, 40)

    def commit_offsets(self, group_id: str, consumer_id: str, generation_id: int,
                       offsets: dict[TopicPartition, OffsetAndMetadata]) -> dict[TopicPartition, Errors]:
        future: Future = Future()
        self.replica_manager.expect_append_records(TopicPartition(GROUP_METADATA_TOPIC_NAME, self.group_partition_id))
        self.replica_manager.magic = MAGIC_VALUE_V1
        self.group_coordinator.handle_commit_offsets(group_id, consumer_id, generation_id, offsets,
                                                     future.set_result)
        return _await(future, 40)

    def commit_transactional_offsets(self, group_id: str, producer_id: int, producer_epoch: int,
                                     offsets: dict[TopicPartition, OffsetAndMetadata]
                                     ) -> dict[TopicPartition, Errors]:
        future: Future = Future()
        self.replica_manager.expect_append_records(
            TopicPartition(GROUP_METADATA_TOPIC_NAME, self.group_coordinator.partition_for(group_id)))
        self.replica_manager.magic = MAGIC_VALUE_V2
        self.group_coordinator.handle_txn_commit_offsets(group_id, producer_id, producer_epoch, offsets,
                                                         future.set_result)
        result = _await(future, 40)
        self.replica_manager.reset()
        return result

    def leave_group(self, group_id: str, consumer_id: str) -> Errors:
        future: Future = Future()
        self.replica_manager.magic = MAGIC_VALUE_V1
        self.group_coordinator.handle_leave_group(group_id, consumer_id, future.set_result)
        return _await(future, 40)

    def handle_txn_completion(self, producer_id: int, offsets_partitions: list[TopicPartition],
                              transaction_result: TransactionResult) -> None:
        is_commit = transaction_result == TransactionResult.COMMIT
        self.group_coordinator.group_manager.handle_txn_completion(
            producer_id, {tp.partition for tp in offsets_partitions}, is_commit)

    def fetch_offsets(self, group_id: str, partitions: list[TopicPartition] | None = None
                      ) -> tuple[Errors, dict[TopicPartition, Any]]:
        return self.group_coordinator.handle_fetch_offsets(group_id, partitions)


@pytest.fixture
def ctx() -> Iterator[_Context]:
    context = _Context()
    yield context
    context.tear_down()


def _offset(partition_data: dict[TopicPartition, Any], tp: TopicPartition) -> int | None:
    """partitionData.get(tp).map(_.offset)"""
    data = partition_data.get(tp)
    return None if data is None else data.offset


def _verify_delayed_task_not_completed(future: Future) -> None:
    with pytest.raises(TimeoutError):
        _await(future, 1)


def _stable_single_member(ctx: _Context, **join: int) -> JoinGroupResult:
    """Join alone and sync as leader (Kafka repeats these lines in most cases)."""
    join_result = ctx.join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS, **join)
    assert join_result.error == Errors.NONE
    ctx.replica_manager.reset()
    _, sync_error = ctx.sync_group_leader(GROUP_ID, join_result.generation_id, join_result.member_id,
                                          {join_result.member_id: b""})
    assert sync_error == Errors.NONE
    return join_result


# -- cases --------------------------------------------------------------------------------------------------------

def test_offsets_retention_ms_integer_overflow() -> None:
    props = create_broker_config(0, "")
    props["offsets.retention.minutes"] = str(2**31 - 1)
    config = KafkaConfig.from_props(props)
    offset_config = GroupCoordinator.offset_config_from(config)
    assert offset_config.offsets_retention_ms == (2**31 - 1) * 60 * 1000


def test_join_group_wrong_coordinator(ctx: _Context) -> None:
    result = ctx.join_group(OTHER_GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS)
    assert result.error == Errors.NOT_COORDINATOR


def test_join_group_session_timeout_too_small(ctx: _Context) -> None:
    result = ctx.join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS,
                            session_timeout=CONSUMER_MIN_SESSION_TIMEOUT - 1)
    assert result.error == Errors.INVALID_SESSION_TIMEOUT


def test_join_group_session_timeout_too_large(ctx: _Context) -> None:
    result = ctx.join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS,
                            session_timeout=CONSUMER_MAX_SESSION_TIMEOUT + 1)
    assert result.error == Errors.INVALID_SESSION_TIMEOUT


def test_join_group_unknown_consumer_new_group(ctx: _Context) -> None:
    result = ctx.join_group(GROUP_ID, MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS)
    assert result.error == Errors.UNKNOWN_MEMBER_ID


def test_invalid_group_id(ctx: _Context) -> None:
    result = ctx.join_group("", UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS)
    assert result.error == Errors.INVALID_GROUP_ID


def test_valid_join_group(ctx: _Context) -> None:
    result = ctx.join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS)
    assert result.error == Errors.NONE


def test_join_group_inconsistent_protocol_type(ctx: _Context) -> None:
    result = ctx.join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS)
    assert result.error == Errors.NONE
    ctx.replica_manager.reset()
    other = _await(ctx.send_join_group(GROUP_ID, UNKNOWN_MEMBER_ID, "connect", PROTOCOLS), 1)
    assert other.error == Errors.INCONSISTENT_GROUP_PROTOCOL


def test_join_group_with_empty_protocol_type(ctx: _Context) -> None:
    result = ctx.join_group(GROUP_ID, UNKNOWN_MEMBER_ID, "", PROTOCOLS)
    assert result.error == Errors.INCONSISTENT_GROUP_PROTOCOL


def test_join_group_with_empty_group_protocol(ctx: _Context) -> None:
    result = ctx.join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, [])
    assert result.error == Errors.INCONSISTENT_GROUP_PROTOCOL


def test_join_group_inconsistent_group_protocol(ctx: _Context) -> None:
    join_future = ctx.send_join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, [("range", METADATA)])
    ctx.replica_manager.reset()
    other = ctx.join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, [("roundrobin", METADATA)])
    result = _await(join_future, 1)
    assert result.error == Errors.NONE
    assert other.error == Errors.INCONSISTENT_GROUP_PROTOCOL


def test_join_group_unknown_consumer_existing_group(ctx: _Context) -> None:
    result = ctx.join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS)
    assert result.error == Errors.NONE
    ctx.replica_manager.reset()
    other = _await(ctx.send_join_group(GROUP_ID, "memberId", PROTOCOL_TYPE, PROTOCOLS), 1)
    assert other.error == Errors.UNKNOWN_MEMBER_ID


def test_heartbeat_wrong_coordinator(ctx: _Context) -> None:
    assert ctx.heartbeat(OTHER_GROUP_ID, MEMBER_ID, -1) == Errors.NOT_COORDINATOR


def test_heartbeat_unknown_group(ctx: _Context) -> None:
    assert ctx.heartbeat(GROUP_ID, MEMBER_ID, -1) == Errors.UNKNOWN_MEMBER_ID


def test_heartbeat_unknown_consumer_existing_group(ctx: _Context) -> None:
    _stable_single_member(ctx)
    ctx.replica_manager.reset()
    assert ctx.heartbeat(GROUP_ID, "memberId", 1) == Errors.UNKNOWN_MEMBER_ID


def test_heartbeat_rebalance_in_progress(ctx: _Context) -> None:
    result = ctx.join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS)
    assert result.error == Errors.NONE
    ctx.replica_manager.reset()
    assert ctx.heartbeat(GROUP_ID, result.member_id, 2) == Errors.REBALANCE_IN_PROGRESS


def test_heartbeat_illegal_generation(ctx: _Context) -> None:
    result = _stable_single_member(ctx)
    ctx.replica_manager.reset()
    assert ctx.heartbeat(GROUP_ID, result.member_id, 2) == Errors.ILLEGAL_GENERATION


def test_valid_heartbeat(ctx: _Context) -> None:
    result = _stable_single_member(ctx)
    ctx.replica_manager.reset()
    assert ctx.heartbeat(GROUP_ID, result.member_id, 1) == Errors.NONE


def test_session_timeout(ctx: _Context) -> None:
    result = _stable_single_member(ctx)
    ctx.replica_manager.reset()
    ctx.replica_manager.magic = MAGIC_VALUE_V1
    ctx.timer.advance_clock(DEFAULT_SESSION_TIMEOUT + 100)
    ctx.replica_manager.reset()
    assert ctx.heartbeat(GROUP_ID, result.member_id, 1) == Errors.UNKNOWN_MEMBER_ID


def test_heartbeat_maintains_session(ctx: _Context) -> None:
    session_timeout = 1000
    result = _stable_single_member(ctx, rebalance_timeout=session_timeout, session_timeout=session_timeout)
    ctx.timer.advance_clock(session_timeout // 2)
    ctx.replica_manager.reset()
    assert ctx.heartbeat(GROUP_ID, result.member_id, 1) == Errors.NONE
    ctx.timer.advance_clock(session_timeout // 2 + 100)
    ctx.replica_manager.reset()
    assert ctx.heartbeat(GROUP_ID, result.member_id, 1) == Errors.NONE


def test_commit_maintains_session(ctx: _Context) -> None:
    session_timeout = 1000
    tp = TopicPartition("topic", 0)
    offset = OffsetAndMetadata(0)
    result = _stable_single_member(ctx, rebalance_timeout=session_timeout, session_timeout=session_timeout)
    ctx.timer.advance_clock(session_timeout // 2)
    ctx.replica_manager.reset()
    commit_result = ctx.commit_offsets(GROUP_ID, result.member_id, result.generation_id, {tp: offset})
    assert commit_result[tp] == Errors.NONE
    ctx.timer.advance_clock(session_timeout // 2 + 100)
    ctx.replica_manager.reset()
    assert ctx.heartbeat(GROUP_ID, result.member_id, 1) == Errors.NONE


def test_session_timeout_during_rebalance(ctx: _Context) -> None:
    first = ctx.join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS, rebalance_timeout=2000,
                           session_timeout=1000)
    assert first.leader_id == first.member_id
    assert first.error == Errors.NONE
    ctx.replica_manager.reset()
    assert ctx.sync_group_leader(GROUP_ID, first.generation_id, first.member_id, {first.member_id: b""})[1] \
        == Errors.NONE

    ctx.replica_manager.reset()
    other_join_future = ctx.send_join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS)
    ctx.timer.advance_clock(500)
    ctx.replica_manager.reset()
    assert ctx.heartbeat(GROUP_ID, first.member_id, first.generation_id) == Errors.REBALANCE_IN_PROGRESS

    # the first member's session runs out: it falls out of the group
    ctx.timer.advance_clock(1100)
    ctx.replica_manager.reset()
    assert ctx.heartbeat(GROUP_ID, first.member_id, first.generation_id) == Errors.UNKNOWN_MEMBER_ID

    # and the rebalance completes with the new member alone
    other = _await(other_join_future, DEFAULT_SESSION_TIMEOUT + 100)
    assert other.error == Errors.NONE


def test_rebalance_completes_before_member_joins(ctx: _Context) -> None:
    first = ctx.join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS, rebalance_timeout=1200,
                           session_timeout=1000)
    assert first.leader_id == first.member_id
    assert first.error == Errors.NONE
    ctx.replica_manager.reset()
    assert ctx.sync_group_leader(GROUP_ID, first.generation_id, first.member_id, {first.member_id: b""})[1] \
        == Errors.NONE

    ctx.replica_manager.reset()
    other_join_future = ctx.send_join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS)
    # heartbeats keep the first member alive while the rebalance goes on
    ctx.timer.advance_clock(500)
    ctx.replica_manager.reset()
    assert ctx.heartbeat(GROUP_ID, first.member_id, first.generation_id) == Errors.REBALANCE_IN_PROGRESS
    ctx.timer.advance_clock(500)
    ctx.replica_manager.reset()
    assert ctx.heartbeat(GROUP_ID, first.member_id, first.generation_id) == Errors.REBALANCE_IN_PROGRESS

    # the rebalance times out: the member that did not rejoin is dropped, the new one completes alone
    ctx.timer.advance_clock(500)
    other = _await(other_join_future, DEFAULT_SESSION_TIMEOUT + 100)
    assert other.error == Errors.NONE


def test_sync_group_empty_assignment(ctx: _Context) -> None:
    result = ctx.join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS)
    assert result.error == Errors.NONE
    ctx.replica_manager.reset()
    assignment, error = ctx.sync_group_leader(GROUP_ID, result.generation_id, result.member_id, {})
    assert error == Errors.NONE
    assert len(assignment) == 0
    ctx.replica_manager.reset()
    assert ctx.heartbeat(GROUP_ID, result.member_id, 1) == Errors.NONE


def test_sync_group_not_coordinator(ctx: _Context) -> None:
    assert ctx.sync_group_follower(OTHER_GROUP_ID, 1, MEMBER_ID)[1] == Errors.NOT_COORDINATOR


def test_sync_group_from_unknown_group(ctx: _Context) -> None:
    assert ctx.sync_group_follower(GROUP_ID, 1, MEMBER_ID)[1] == Errors.UNKNOWN_MEMBER_ID


def test_sync_group_from_unknown_member(ctx: _Context) -> None:
    result = _stable_single_member(ctx)
    ctx.replica_manager.reset()
    assert ctx.sync_group_follower(GROUP_ID, result.generation_id, "blah")[1] == Errors.UNKNOWN_MEMBER_ID


def test_sync_group_from_illegal_generation(ctx: _Context) -> None:
    result = ctx.join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS)
    assert result.error == Errors.NONE
    ctx.replica_manager.reset()
    sync_result = ctx.sync_group_leader(GROUP_ID, result.generation_id + 1, result.member_id,
                                        {result.member_id: b""})
    assert sync_result[1] == Errors.ILLEGAL_GENERATION


def _two_member_group(ctx: _Context) -> tuple[str, JoinGroupResult, JoinGroupResult]:
    """A group of two: the first member joins and syncs alone (two cannot join at once), then both join."""
    first = ctx.join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS)
    first_member_id = first.member_id
    assert first.leader_id == first_member_id
    assert first.error == Errors.NONE
    ctx.replica_manager.reset()
    assert ctx.sync_group_leader(GROUP_ID, first.generation_id, first_member_id, {first_member_id: b""})[1] \
        == Errors.NONE

    ctx.replica_manager.reset()
    other_join_future = ctx.send_join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS)
    ctx.replica_manager.reset()
    join_future = ctx.send_join_group(GROUP_ID, first_member_id, PROTOCOL_TYPE, PROTOCOLS)
    join_result = _await(join_future, DEFAULT_SESSION_TIMEOUT + 100)
    other_join_result = _await(other_join_future, DEFAULT_SESSION_TIMEOUT + 100)
    assert join_result.error == Errors.NONE
    assert other_join_result.error == Errors.NONE
    assert join_result.generation_id == other_join_result.generation_id
    assert join_result.leader_id == first_member_id
    assert other_join_result.leader_id == first_member_id
    return first_member_id, join_result, other_join_result


def test_join_group_from_unchanged_follower_does_not_rebalance(ctx: _Context) -> None:
    _, join_result, other_join_result = _two_member_group(ctx)
    next_generation_id = join_result.generation_id
    # the follower's protocols did not change: no rebalance
    ctx.replica_manager.reset()
    follower = _await(ctx.send_join_group(GROUP_ID, other_join_result.member_id, PROTOCOL_TYPE, PROTOCOLS), 1)
    assert follower.error == Errors.NONE
    assert follower.generation_id == next_generation_id


def test_join_group_from_unchanged_leader_should_rebalance(ctx: _Context) -> None:
    first = _stable_single_member(ctx)
    # the leader's JoinGroup forces a rebalance (it may push new assignments when its metadata changed)
    ctx.replica_manager.reset()
    second = _await(ctx.send_join_group(GROUP_ID, first.member_id, PROTOCOL_TYPE, PROTOCOLS), 1)
    assert second.error == Errors.NONE
    assert second.generation_id != first.generation_id


def test_leader_failure_in_sync_group(ctx: _Context) -> None:
    _, join_result, other_join_result = _two_member_group(ctx)
    next_generation_id = join_result.generation_id
    # the leader never syncs: the follower is told to rejoin
    ctx.replica_manager.reset()
    follower_sync_future = ctx.send_sync_group_follower(GROUP_ID, next_generation_id, other_join_result.member_id)
    ctx.timer.advance_clock(DEFAULT_SESSION_TIMEOUT + 100)
    follower_sync = _await(follower_sync_future, DEFAULT_SESSION_TIMEOUT + 100)
    assert follower_sync[1] == Errors.REBALANCE_IN_PROGRESS


def test_sync_group_follower_after_leader(ctx: _Context) -> None:
    first_member_id, join_result, other_join_result = _two_member_group(ctx)
    next_generation_id = join_result.generation_id
    leader_id = first_member_id
    leader_assignment = bytes([0])
    follower_id = other_join_result.member_id
    follower_assignment = bytes([1])

    ctx.replica_manager.reset()
    leader_sync = ctx.sync_group_leader(GROUP_ID, next_generation_id, leader_id,
                                        {leader_id: leader_assignment, follower_id: follower_assignment})
    assert leader_sync[1] == Errors.NONE
    assert leader_sync[0] == leader_assignment

    ctx.replica_manager.reset()
    follower_sync = ctx.sync_group_follower(GROUP_ID, next_generation_id, other_join_result.member_id)
    assert follower_sync[1] == Errors.NONE
    assert follower_sync[0] == follower_assignment


def test_sync_group_leader_after_follower(ctx: _Context) -> None:
    first_member_id, join_result, other_join_result = _two_member_group(ctx)
    next_generation_id = join_result.generation_id
    leader_id = join_result.leader_id
    leader_assignment = bytes([0])
    follower_id = other_join_result.member_id
    follower_assignment = bytes([1])

    ctx.replica_manager.reset()
    follower_sync_future = ctx.send_sync_group_follower(GROUP_ID, next_generation_id, follower_id)
    ctx.replica_manager.reset()
    leader_sync = ctx.sync_group_leader(GROUP_ID, next_generation_id, leader_id,
                                        {leader_id: leader_assignment, follower_id: follower_assignment})
    assert leader_sync[1] == Errors.NONE
    assert leader_sync[0] == leader_assignment

    follower_sync = _await(follower_sync_future, DEFAULT_SESSION_TIMEOUT + 100)
    assert follower_sync[1] == Errors.NONE
    assert follower_sync[0] == follower_assignment


def test_commit_offset_from_unknown_group(ctx: _Context) -> None:
    tp = TopicPartition("topic", 0)
    result = ctx.commit_offsets(GROUP_ID, MEMBER_ID, 1, {tp: OffsetAndMetadata(0)})
    assert result[tp] == Errors.ILLEGAL_GENERATION


def test_commit_offset_with_default_generation(ctx: _Context) -> None:
    tp = TopicPartition("topic", 0)
    result = ctx.commit_offsets(GROUP_ID, DEFAULT_MEMBER_ID, DEFAULT_GENERATION_ID, {tp: OffsetAndMetadata(0)})
    assert result[tp] == Errors.NONE


def test_commit_offsets_after_group_is_empty(ctx: _Context) -> None:
    # the reset-offsets tool commits for a group once its members are gone
    result = ctx.join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS)
    assert result.error == Errors.NONE
    ctx.replica_manager.reset()
    assert ctx.leave_group(GROUP_ID, result.member_id) == Errors.NONE

    ctx.replica_manager.reset()
    tp = TopicPartition("topic", 0)
    commit_result = ctx.commit_offsets(GROUP_ID, DEFAULT_MEMBER_ID, DEFAULT_GENERATION_ID,
                                       {tp: OffsetAndMetadata(0)})
    assert commit_result[tp] == Errors.NONE
    error, partition_data = ctx.fetch_offsets(GROUP_ID, [tp])
    assert error == Errors.NONE
    assert _offset(partition_data, tp) == 0


def test_fetch_offsets(ctx: _Context) -> None:
    tp = TopicPartition("topic", 0)
    commit_result = ctx.commit_offsets(GROUP_ID, DEFAULT_MEMBER_ID, DEFAULT_GENERATION_ID,
                                       {tp: OffsetAndMetadata(0)})
    assert commit_result[tp] == Errors.NONE
    error, partition_data = ctx.fetch_offsets(GROUP_ID, [tp])
    assert error == Errors.NONE
    assert _offset(partition_data, tp) == 0


def test_basic_fetch_txn_offsets(ctx: _Context) -> None:
    tp = TopicPartition("topic", 0)
    producer_id, producer_epoch = 1000, 2
    assert ctx.commit_transactional_offsets(GROUP_ID, producer_id, producer_epoch,
                                            {tp: OffsetAndMetadata(0)})[tp] == Errors.NONE
    error, partition_data = ctx.fetch_offsets(GROUP_ID, [tp])
    # not materialized yet
    assert error == Errors.NONE
    assert _offset(partition_data, tp) == INVALID_OFFSET

    offsets_topic = TopicPartition(GROUP_METADATA_TOPIC_NAME, ctx.group_partition_id)
    ctx.handle_txn_completion(producer_id, [offsets_topic], TransactionResult.COMMIT)
    error, partition_data = ctx.fetch_offsets(GROUP_ID, [tp])
    assert error == Errors.NONE
    assert _offset(partition_data, tp) == 0


def test_fetch_txn_offsets_with_abort(ctx: _Context) -> None:
    tp = TopicPartition("topic", 0)
    producer_id, producer_epoch = 1000, 2
    assert ctx.commit_transactional_offsets(GROUP_ID, producer_id, producer_epoch,
                                            {tp: OffsetAndMetadata(0)})[tp] == Errors.NONE
    error, partition_data = ctx.fetch_offsets(GROUP_ID, [tp])
    assert error == Errors.NONE
    assert _offset(partition_data, tp) == INVALID_OFFSET

    offsets_topic = TopicPartition(GROUP_METADATA_TOPIC_NAME, ctx.group_partition_id)
    ctx.handle_txn_completion(producer_id, [offsets_topic], TransactionResult.ABORT)
    error, partition_data = ctx.fetch_offsets(GROUP_ID, [tp])
    assert error == Errors.NONE
    assert _offset(partition_data, tp) == INVALID_OFFSET


def test_fetch_txn_offsets_ignore_spurious_commit(ctx: _Context) -> None:
    tp = TopicPartition("topic", 0)
    producer_id, producer_epoch = 1000, 2
    assert ctx.commit_transactional_offsets(GROUP_ID, producer_id, producer_epoch,
                                            {tp: OffsetAndMetadata(0)})[tp] == Errors.NONE
    error, partition_data = ctx.fetch_offsets(GROUP_ID, [tp])
    assert error == Errors.NONE
    assert _offset(partition_data, tp) == INVALID_OFFSET

    offsets_topic = TopicPartition(GROUP_METADATA_TOPIC_NAME, ctx.group_partition_id)
    ctx.handle_txn_completion(producer_id, [offsets_topic], TransactionResult.ABORT)
    error, partition_data = ctx.fetch_offsets(GROUP_ID, [tp])
    assert error == Errors.NONE
    assert _offset(partition_data, tp) == INVALID_OFFSET

    # a commit marker after the abort changes nothing
    ctx.handle_txn_completion(producer_id, [offsets_topic], TransactionResult.COMMIT)
    error, partition_data = ctx.fetch_offsets(GROUP_ID, [tp])
    assert error == Errors.NONE
    assert _offset(partition_data, tp) == INVALID_OFFSET


def test_fetch_txn_offsets_one_producer_multiple_groups(ctx: _Context) -> None:
    # one producer, two groups on different offsets partitions, a marker for one partition only
    partitions = [TopicPartition("topic1", 0), TopicPartition("topic2", 0)]
    offsets = [OffsetAndMetadata(10), OffsetAndMetadata(15)]
    producer_id, producer_epoch = 1000, 3
    group_ids = [GROUP_ID, OTHER_GROUP_ID]
    offset_topic_partitions = [
        TopicPartition(GROUP_METADATA_TOPIC_NAME, ctx.group_coordinator.partition_for(GROUP_ID)),
        TopicPartition(GROUP_METADATA_TOPIC_NAME, ctx.group_coordinator.partition_for(OTHER_GROUP_ID))]
    ctx.group_coordinator.group_manager.add_partition_ownership(offset_topic_partitions[1].partition)
    assert offset_topic_partitions[0] != offset_topic_partitions[1]

    result0 = ctx.commit_transactional_offsets(GROUP_ID, producer_id, producer_epoch, {partitions[0]: offsets[0]})
    assert result0[partitions[0]] == Errors.NONE
    result1 = ctx.commit_transactional_offsets(OTHER_GROUP_ID, producer_id, producer_epoch,
                                               {partitions[1]: offsets[1]})
    assert result1[partitions[1]] == Errors.NONE

    # a marker for one offsets partition: only its group's offsets count
    ctx.handle_txn_completion(producer_id, [offset_topic_partitions[0]], TransactionResult.COMMIT)
    fetched = [ctx.fetch_offsets(group_id, partitions) for group_id in group_ids]
    assert len(fetched) == 2
    assert [error for error, _ in fetched] == [Errors.NONE, Errors.NONE]
    partition_data = [data for _, data in fetched]
    assert _offset(partition_data[0], partitions[0]) == offsets[0].offset
    assert _offset(partition_data[0], partitions[1]) == INVALID_OFFSET
    assert _offset(partition_data[1], partitions[0]) == INVALID_OFFSET
    assert _offset(partition_data[1], partitions[1]) == INVALID_OFFSET

    # then the other marker
    ctx.handle_txn_completion(producer_id, [offset_topic_partitions[1]], TransactionResult.COMMIT)
    partition_data = [ctx.fetch_offsets(group_id, partitions)[1] for group_id in group_ids]
    assert _offset(partition_data[0], partitions[0]) == offsets[0].offset
    assert _offset(partition_data[0], partitions[1]) == INVALID_OFFSET
    assert _offset(partition_data[1], partitions[0]) == INVALID_OFFSET
    assert _offset(partition_data[1], partitions[1]) == offsets[1].offset


def test_fetch_txn_offsets_multiple_producers_one_group(ctx: _Context) -> None:
    # one group, two producers committing different partitions: each counts with its own producer's marker
    partitions = [TopicPartition("topic1", 0), TopicPartition("topic2", 0)]
    offsets = [OffsetAndMetadata(10), OffsetAndMetadata(15)]
    producer_ids = [1000, 1005]
    producer_epochs = [3, 4]
    offset_topic_partition = TopicPartition(GROUP_METADATA_TOPIC_NAME, ctx.group_coordinator.partition_for(GROUP_ID))

    result0 = ctx.commit_transactional_offsets(GROUP_ID, producer_ids[0], producer_epochs[0],
                                               {partitions[0]: offsets[0]})
    assert result0[partitions[0]] == Errors.NONE
    result1 = ctx.commit_transactional_offsets(GROUP_ID, producer_ids[1], producer_epochs[1],
                                               {partitions[1]: offsets[1]})
    assert result1[partitions[1]] == Errors.NONE

    ctx.handle_txn_completion(producer_ids[0], [offset_topic_partition], TransactionResult.COMMIT)
    error, partition_data = ctx.fetch_offsets(GROUP_ID, partitions)
    assert error == Errors.NONE
    assert _offset(partition_data, partitions[0]) == offsets[0].offset
    assert _offset(partition_data, partitions[1]) == INVALID_OFFSET

    ctx.handle_txn_completion(producer_ids[1], [offset_topic_partition], TransactionResult.COMMIT)
    error, partition_data = ctx.fetch_offsets(GROUP_ID, partitions)
    assert error == Errors.NONE
    assert _offset(partition_data, partitions[0]) == offsets[0].offset
    assert _offset(partition_data, partitions[1]) == offsets[1].offset


def test_fetch_offset_for_unknown_partition(ctx: _Context) -> None:
    tp = TopicPartition("topic", 0)
    error, partition_data = ctx.fetch_offsets(GROUP_ID, [tp])
    assert error == Errors.NONE
    assert _offset(partition_data, tp) == INVALID_OFFSET


def test_fetch_offset_not_coordinator_for_group(ctx: _Context) -> None:
    tp = TopicPartition("topic", 0)
    error, partition_data = ctx.fetch_offsets(OTHER_GROUP_ID, [tp])
    assert error == Errors.NOT_COORDINATOR
    assert len(partition_data) == 0


def test_fetch_all_offsets(ctx: _Context) -> None:
    tp1, tp2, tp3 = TopicPartition("topic", 0), TopicPartition("topic", 1), TopicPartition("other-topic", 0)
    offset1, offset2, offset3 = OffsetAndMetadata(15), OffsetAndMetadata(16), OffsetAndMetadata(17)
    assert ctx.fetch_offsets(GROUP_ID) == (Errors.NONE, {})

    commit_result = ctx.commit_offsets(GROUP_ID, DEFAULT_MEMBER_ID, DEFAULT_GENERATION_ID,
                                       {tp1: offset1, tp2: offset2, tp3: offset3})
    assert commit_result[tp1] == Errors.NONE
    assert commit_result[tp2] == Errors.NONE
    assert commit_result[tp3] == Errors.NONE

    error, partition_data = ctx.fetch_offsets(GROUP_ID)
    assert error == Errors.NONE
    assert len(partition_data) == 3
    assert all(data.error == Errors.NONE for data in partition_data.values())
    assert _offset(partition_data, tp1) == offset1.offset
    assert _offset(partition_data, tp2) == offset2.offset
    assert _offset(partition_data, tp3) == offset3.offset


def test_commit_offset_in_awaiting_sync(ctx: _Context) -> None:
    tp = TopicPartition("topic", 0)
    result = ctx.join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS)
    assert result.error == Errors.NONE
    ctx.replica_manager.reset()
    commit_result = ctx.commit_offsets(GROUP_ID, result.member_id, result.generation_id, {tp: OffsetAndMetadata(0)})
    assert commit_result[tp] == Errors.REBALANCE_IN_PROGRESS


def test_heartbeat_during_rebalance_causes_rebalance_in_progress(ctx: _Context) -> None:
    result = ctx.join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS)
    assert result.error == Errors.NONE
    # a new consumer joins: a rebalance starts
    ctx.replica_manager.reset()
    ctx.send_join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS)
    ctx.replica_manager.reset()
    assert ctx.heartbeat(GROUP_ID, result.member_id, result.generation_id) == Errors.REBALANCE_IN_PROGRESS


def test_generation_id_increments_on_rebalance(ctx: _Context) -> None:
    result = ctx.join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS)
    assert result.generation_id == 1
    assert result.error == Errors.NONE
    ctx.replica_manager.reset()
    assert ctx.sync_group_leader(GROUP_ID, result.generation_id, result.member_id, {result.member_id: b""})[1] \
        == Errors.NONE
    ctx.replica_manager.reset()
    other = _await(ctx.send_join_group(GROUP_ID, result.member_id, PROTOCOL_TYPE, PROTOCOLS), 1)
    assert other.generation_id == 2
    assert other.error == Errors.NONE


def test_leave_group_wrong_coordinator(ctx: _Context) -> None:
    assert ctx.leave_group(OTHER_GROUP_ID, UNKNOWN_MEMBER_ID) == Errors.NOT_COORDINATOR


def test_leave_group_unknown_group(ctx: _Context) -> None:
    assert ctx.leave_group(GROUP_ID, MEMBER_ID) == Errors.UNKNOWN_MEMBER_ID


def test_leave_group_unknown_consumer_existing_group(ctx: _Context) -> None:
    result = ctx.join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS)
    assert result.error == Errors.NONE
    ctx.replica_manager.reset()
    assert ctx.leave_group(GROUP_ID, "consumerId") == Errors.UNKNOWN_MEMBER_ID


def test_valid_leave_group(ctx: _Context) -> None:
    result = ctx.join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS)
    assert result.error == Errors.NONE
    ctx.replica_manager.reset()
    assert ctx.leave_group(GROUP_ID, result.member_id) == Errors.NONE


def test_list_groups_includes_stable_groups(ctx: _Context) -> None:
    _stable_single_member(ctx)
    error, groups = ctx.group_coordinator.handle_list_groups()
    assert error == Errors.NONE
    assert len(groups) == 1
    assert groups[0] == GroupOverview("groupId", "consumer")


def test_list_groups_includes_rebalancing_groups(ctx: _Context) -> None:
    result = ctx.join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS)
    assert result.error == Errors.NONE
    error, groups = ctx.group_coordinator.handle_list_groups()
    assert error == Errors.NONE
    assert len(groups) == 1
    assert groups[0] == GroupOverview("groupId", "consumer")


def test_describe_group_wrong_coordinator(ctx: _Context) -> None:
    ctx.replica_manager.reset()
    error, _ = ctx.group_coordinator.handle_describe_group(OTHER_GROUP_ID)
    assert error == Errors.NOT_COORDINATOR


def test_describe_group_inactive_group(ctx: _Context) -> None:
    ctx.replica_manager.reset()
    error, summary = ctx.group_coordinator.handle_describe_group(GROUP_ID)
    assert error == Errors.NONE
    assert summary == DEAD_GROUP


def test_describe_group_stable(ctx: _Context) -> None:
    result = _stable_single_member(ctx)
    ctx.replica_manager.reset()
    error, summary = ctx.group_coordinator.handle_describe_group(GROUP_ID)
    assert error == Errors.NONE
    assert summary.protocol_type == PROTOCOL_TYPE
    assert summary.protocol == "range"
    assert [member.member_id for member in summary.members] == [result.member_id]


def test_describe_group_rebalancing(ctx: _Context) -> None:
    result = ctx.join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS)
    assert result.error == Errors.NONE
    ctx.replica_manager.reset()
    error, summary = ctx.group_coordinator.handle_describe_group(GROUP_ID)
    assert error == Errors.NONE
    assert summary.protocol_type == PROTOCOL_TYPE
    assert summary.protocol == NO_PROTOCOL
    assert summary.state == str(AwaitingSync)
    assert result.member_id in [member.member_id for member in summary.members]
    assert all(len(member.metadata) == 0 for member in summary.members)
    assert all(len(member.assignment) == 0 for member in summary.members)


def test_should_delay_initial_rebalance_by_group_initial_rebalance_delay_on_empty_group(ctx: _Context) -> None:
    first_join_future = ctx.send_join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS)
    ctx.timer.advance_clock(GROUP_INITIAL_REBALANCE_DELAY // 2)
    _verify_delayed_task_not_completed(first_join_future)
    ctx.timer.advance_clock(GROUP_INITIAL_REBALANCE_DELAY // 2 + 1)
    assert _await(first_join_future, 1).error == Errors.NONE


def test_should_reset_rebalance_delay_when_new_member_joins_group_in_initial_rebalance(ctx: _Context) -> None:
    rebalance_timeout = GROUP_INITIAL_REBALANCE_DELAY * 3
    first_future = ctx.send_join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS, rebalance_timeout)
    ctx.replica_manager.reset()
    ctx.timer.advance_clock(GROUP_INITIAL_REBALANCE_DELAY - 1)
    second_future = ctx.send_join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS, rebalance_timeout)
    ctx.replica_manager.reset()
    ctx.timer.advance_clock(2)

    # past the initial delay: the second member's arrival extended it
    ctx.timer.advance_clock(GROUP_INITIAL_REBALANCE_DELAY // 2 + 1)
    _verify_delayed_task_not_completed(first_future)
    _verify_delayed_task_not_completed(second_future)
    # past the extended delay: both complete
    ctx.timer.advance_clock(GROUP_INITIAL_REBALANCE_DELAY // 2)
    assert _await(first_future, 1).error == Errors.NONE
    assert _await(second_future, 1).error == Errors.NONE


def test_should_delay_rebalance_upto_rebalance_timeout(ctx: _Context) -> None:
    rebalance_timeout = GROUP_INITIAL_REBALANCE_DELAY * 2
    first_future = ctx.send_join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS, rebalance_timeout)
    ctx.replica_manager.reset()
    second_future = ctx.send_join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS, rebalance_timeout)
    ctx.timer.advance_clock(GROUP_INITIAL_REBALANCE_DELAY + 1)
    ctx.replica_manager.reset()
    third_future = ctx.send_join_group(GROUP_ID, UNKNOWN_MEMBER_ID, PROTOCOL_TYPE, PROTOCOLS, rebalance_timeout)
    ctx.timer.advance_clock(GROUP_INITIAL_REBALANCE_DELAY)
    ctx.replica_manager.reset()

    _verify_delayed_task_not_completed(first_future)
    _verify_delayed_task_not_completed(second_future)
    _verify_delayed_task_not_completed(third_future)

    # past the rebalance timeout
    ctx.timer.advance_clock(1)
    assert _await(first_future, 1).error == Errors.NONE
    assert _await(second_future, 1).error == Errors.NONE
    assert _await(third_future, 1).error == Errors.NONE
