"""Port of core/src/test/scala/unit/kafka/cluster/ReplicaTest.scala (Kafka 3.9).

Mockito's KRaftMetadataCache mock is a MagicMock with that spec (so the Replica sees a KRaft cache); the ZooKeeper
cache of the parameterized case is a plain mock, which the Replica treats as "not KRaft", as it does ZkMetadataCache.
"""

from __future__ import annotations

from unittest.mock import MagicMock

import pytest

from kafka_edu.v3_9.clients.common.errors.not_leader_or_follower_exception import NotLeaderOrFollowerException
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.cluster.replica import UNKNOWN_OFFSET, Replica
from kafka_edu.v3_9.core.server.metadata.kraft_metadata_cache import KRaftMetadataCache
from kafka_edu.v3_9.server_common.server.util.mock_time import MockTime
from kafka_edu.v3_9.storage.storage.internals.log.log_offset_metadata import LogOffsetMetadata
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/cluster/ReplicaTest.scala",
    cases=["testInitialState", "testUpdateFetchState", "testResetReplicaStateWhenLeaderIsReelectedAndReplicaIsInSync",
           "testResetReplicaStateWhenLeaderIsReelectedAndReplicaIsNotInSync",
           "testResetReplicaStateWhenNewLeaderIsElectedAndReplicaIsInSync",
           "testResetReplicaStateWhenNewLeaderIsElectedAndReplicaIsNotInSync",
           "testIsCaughtUpWhenReplicaIsCaughtUpToLogEnd", "testIsCaughtUpWhenReplicaIsNotCaughtUpToLogEnd",
           "testFenceStaleUpdates"],
)

BROKER_ID = 0
PARTITION = TopicPartition("foo", 0)
REPLICA_LAG_TIME_MAX_MS = 30000


def _kraft_cache(alive_broker_epoch: int) -> MagicMock:
    cache = MagicMock(spec=KRaftMetadataCache)
    cache.get_alive_broker_epoch.side_effect = lambda broker_id: alive_broker_epoch if broker_id == BROKER_ID else None
    return cache


class Ctx:
    def __init__(self) -> None:
        self.time = MockTime()
        self.replica = Replica(BROKER_ID, PARTITION, _kraft_cache(1))

    def assert_replica_state(self, log_start_offset: int, log_end_offset: int, last_caught_up_time_ms: int,
                             last_fetch_leader_log_end_offset: int, last_fetch_time_ms: int,
                             broker_epoch: int | None = 1) -> None:
        state = self.replica.state_snapshot
        assert state.log_start_offset == log_start_offset, "Unexpected Log Start Offset"
        assert state.log_end_offset == log_end_offset, "Unexpected Log End Offset"
        assert state.last_caught_up_time_ms == last_caught_up_time_ms, "Unexpected Last Caught Up Time"
        assert state.last_fetch_leader_log_end_offset == last_fetch_leader_log_end_offset, \
            "Unexpected Last Fetch Leader Log End Offset"
        assert state.last_fetch_time_ms == last_fetch_time_ms, "Unexpected Last Fetch Time"
        assert state.broker_epoch == broker_epoch, "Broker Epoch Mismatch"

    def update_fetch_state(self, follower_fetch_offset: int, follower_start_offset: int,
                           leader_end_offset: int) -> int:
        current_time_ms = self.time.milliseconds()
        self.replica.update_fetch_state_or_throw(LogOffsetMetadata(follower_fetch_offset), follower_start_offset,
                                                 current_time_ms, leader_end_offset, 1)
        return current_time_ms

    def reset_replica_state(self, leader_end_offset: int, is_new_leader: bool, is_follower_in_sync: bool) -> int:
        current_time_ms = self.time.milliseconds()
        self.replica.reset_replica_state(current_time_ms, leader_end_offset, is_new_leader, is_follower_in_sync)
        return current_time_ms

    def is_caught_up(self, leader_end_offset: int) -> bool:
        return self.replica.state_snapshot.is_caught_up(leader_end_offset, self.time.milliseconds(),
                                                        REPLICA_LAG_TIME_MAX_MS)


@pytest.fixture
def ctx() -> Ctx:
    return Ctx()


def test_initial_state(ctx: Ctx) -> None:
    ctx.assert_replica_state(UNKNOWN_OFFSET, UNKNOWN_OFFSET, 0, 0, 0, broker_epoch=None)


def test_update_fetch_state(ctx: Ctx) -> None:
    fetch_time_ms1 = ctx.update_fetch_state(5, 1, 10)
    ctx.assert_replica_state(1, 5, 0, 10, fetch_time_ms1)

    fetch_time_ms2 = ctx.update_fetch_state(10, 2, 15)
    ctx.assert_replica_state(2, 10, fetch_time_ms1, 15, fetch_time_ms2)

    fetch_time_ms3 = ctx.update_fetch_state(15, 3, 15)
    ctx.assert_replica_state(3, 15, fetch_time_ms3, 15, fetch_time_ms3)


def test_reset_replica_state_when_leader_is_reelected_and_replica_is_in_sync(ctx: Ctx) -> None:
    ctx.update_fetch_state(10, 1, 10)
    reset_time_ms1 = ctx.reset_replica_state(11, is_new_leader=False, is_follower_in_sync=True)
    ctx.assert_replica_state(1, 10, reset_time_ms1, 11, reset_time_ms1)


def test_reset_replica_state_when_leader_is_reelected_and_replica_is_not_in_sync(ctx: Ctx) -> None:
    ctx.update_fetch_state(10, 1, 10)
    ctx.reset_replica_state(11, is_new_leader=False, is_follower_in_sync=False)
    ctx.assert_replica_state(1, 10, 0, 11, 0)


def test_reset_replica_state_when_new_leader_is_elected_and_replica_is_in_sync(ctx: Ctx) -> None:
    ctx.update_fetch_state(10, 1, 10)
    reset_time_ms1 = ctx.reset_replica_state(11, is_new_leader=True, is_follower_in_sync=True)
    ctx.assert_replica_state(UNKNOWN_OFFSET, UNKNOWN_OFFSET, reset_time_ms1, UNKNOWN_OFFSET, 0, broker_epoch=None)


def test_reset_replica_state_when_new_leader_is_elected_and_replica_is_not_in_sync(ctx: Ctx) -> None:
    ctx.update_fetch_state(10, 1, 10)
    ctx.reset_replica_state(11, is_new_leader=True, is_follower_in_sync=False)
    ctx.assert_replica_state(UNKNOWN_OFFSET, UNKNOWN_OFFSET, 0, UNKNOWN_OFFSET, 0, broker_epoch=None)


def test_is_caught_up_when_replica_is_caught_up_to_log_end(ctx: Ctx) -> None:
    assert not ctx.is_caught_up(10)
    ctx.update_fetch_state(10, 1, 10)
    assert ctx.is_caught_up(10)
    ctx.time.sleep(REPLICA_LAG_TIME_MAX_MS + 1)
    assert ctx.is_caught_up(10)


def test_is_caught_up_when_replica_is_not_caught_up_to_log_end(ctx: Ctx) -> None:
    assert not ctx.is_caught_up(10)
    ctx.update_fetch_state(5, 1, 10)
    assert not ctx.is_caught_up(10)
    ctx.update_fetch_state(10, 1, 15)
    assert ctx.is_caught_up(16)
    ctx.time.sleep(REPLICA_LAG_TIME_MAX_MS + 1)
    assert not ctx.is_caught_up(16)


@pytest.mark.parametrize("is_kraft", [True, False])
def test_fence_stale_updates(is_kraft: bool) -> None:
    metadata_cache = _kraft_cache(2) if is_kraft else MagicMock()
    replica = Replica(BROKER_ID, PARTITION, metadata_cache)
    replica.update_fetch_state_or_throw(LogOffsetMetadata(5), 1, 1, 10, 2)
    if is_kraft:
        with pytest.raises(NotLeaderOrFollowerException):
            replica.update_fetch_state_or_throw(LogOffsetMetadata(5), 2, 3, 10, 1)
    else:
        # no fencing outside KRaft
        replica.update_fetch_state_or_throw(LogOffsetMetadata(5), 2, 3, 10, 1)
    replica.update_fetch_state_or_throw(LogOffsetMetadata(5), 2, 4, 10, -1)
