"""Port of core/src/test/scala/unit/kafka/cluster/PartitionTest.scala (Kafka 3.9).

AbstractPartitionTest's world is `partition_test_utils.AbstractPartitionTest` (the `ctx` fixture). The KRaft path is
what is ported: makeLeader / makeFollower take the LeaderAndIsrPartitionState ReplicaManager.applyDelta builds from
the metadata image. ZooKeeper-only cases (ZkMetadataCache, ZkAlterPartitionManager) are not applicable; metrics
(Yammer gauges) are not ported. Mockito mocks of KRaftMetadataCache are MagicMocks with that spec.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from unittest.mock import MagicMock

import pytest

from kafka_edu.v1_0_2.clients.common.errors import (
    ApiException,
    InvalidTxnStateException,
    OffsetOutOfRangeException,
    UnexpectedAppendOffsetException,
)
from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.errors.fenced_leader_epoch_exception import FencedLeaderEpochException
from kafka_edu.v3_9.clients.common.errors.inconsistent_topic_id_exception import InconsistentTopicIdException
from kafka_edu.v3_9.clients.common.errors.not_leader_or_follower_exception import NotLeaderOrFollowerException
from kafka_edu.v3_9.clients.common.errors.offset_not_available_exception import OffsetNotAvailableException
from kafka_edu.v3_9.clients.common.errors.unknown_leader_epoch_exception import UnknownLeaderEpochException
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record_batch import NO_TIMESTAMP
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from kafka_edu.v3_9.clients.common.requests.fetch_request import PartitionData
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.uuid import DirectoryId, Uuid
from kafka_edu.v3_9.core.cluster.partition import (
    EARLIEST_LOCAL_TIMESTAMP,
    EARLIEST_TIMESTAMP,
    LATEST_TIMESTAMP,
    IsolationLevel,
    LeaderAndIsrPartitionState,
    Partition,
    PendingShrinkIsr,
    SimpleAssignmentState,
)
from kafka_edu.v3_9.core.cluster.replica import UNKNOWN_OFFSET, Replica
from kafka_edu.v3_9.core.log.unified_log import UnifiedLog
from kafka_edu.v3_9.core.server.alter_partition_manager import DefaultAlterPartitionManager
from kafka_edu.v3_9.core.server.metadata.kraft_metadata_cache import KRaftMetadataCache
from kafka_edu.v3_9.core.server.node_to_controller_channel_manager import ClientResponse
from kafka_edu.v3_9.metadata.metadata.partition_registration import LeaderRecoveryState
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from kafka_edu.v3_9.storage.storage.internals.log.append_origin import AppendOrigin
from kafka_edu.v3_9.storage.storage.internals.log.fetch_isolation import FetchIsolation
from kafka_edu.v3_9.storage.storage.internals.log.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.storage.storage.internals.log.log_read_info import LogReadInfo
from kafka_edu.v3_9.storage.storage.internals.log.log_start_offset_increment_reason import (
    LogStartOffsetIncrementReason,
)
from kafka_edu.v3_9.storage.storage.internals.log.verification_guard import VerificationGuard
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import wait_until_true
from tests.kafka_tests.v3_9.core.cluster.partition_test_utils import (
    BROKER_ID,
    INT_MAX,
    REMOTE_REPLICA_ID,
    AbstractPartitionTest,
    MockPartitionListener,
    consumer_fetch_params,
    default_broker_epoch,
    follower_fetch_params,
)

CASES = [
    "testLastFetchedOffsetValidation", "testMakeLeaderUpdatesEpochCache", "testMaybeReplaceCurrentWithFutureReplica",
    "testReplicaFetchToFollower", "testFetchFromUnrecognizedFollower", "testMakeFollowerWithWithFollowerAppendRecords",
    "testMaybeReplaceCurrentWithFutureReplicaDifferentBaseOffsets", "testFetchOffsetSnapshotEpochValidationForLeader",
    "testFetchOffsetSnapshotEpochValidationForFollower", "testOffsetForLeaderEpochValidationForLeader",
    "testOffsetForLeaderEpochValidationForFollower", "testLeaderEpochValidationOnLeader",
    "testLeaderEpochValidationOnFollower", "testFetchOffsetForTimestampEpochValidationForLeader",
    "testFetchOffsetForTimestampEpochValidationForFollower", "testFetchLatestOffsetIncludesLeaderEpoch",
    "testMonotonicOffsetsAfterLeaderChange", "testAppendRecordsAsFollowerBelowLogStartOffset",
    "testListOffsetIsolationLevels", "testGetReplica", "testAppendRecordsToFollowerWithNoReplicaThrowsException",
    "testMakeFollowerWithNoLeaderIdChange", "testFollowerDoesNotJoinISRUntilCaughtUpToOffsetWithinCurrentLeaderEpoch",
    "testAtMinIsr", "testIsUnderMinIsr", "testUpdateFollowerFetchState", "testIsReplicaIsrEligibleWithEmptyReplicaMap",
    "testInvalidAlterPartitionRequestsAreNotRetried", "testIsrExpansion", "testIsrNotExpandedIfUpdateFails",
    "testHighWatermarkIncreasesWithFencedOrShutdownFollower", "testIsrNotExpandedIfReplicaIsFencedOrShutdown",
    "testIsrCanExpandedIfBrokerEpochsMatchWithKraftMetadataCache", "testFenceFollowerFetchWithStaleBrokerEpoch",
    "testIsrNotExpandedIfReplicaIsInControlledShutdown", "testRetryShrinkIsr", "testMaybeShrinkIsr",
    "testHighWatermarkAdvanceShouldNotAdvanceWhenUnderMinISR", "testAlterIsrLeaderAndIsrRace",
    "testShouldNotShrinkIsrIfPreviousFetchIsCaughtUp", "testShouldNotShrinkIsrIfFollowerCaughtUpToLogEnd",
    "testIsrNotShrunkIfUpdateFails", "testAlterIsrNewLeaderElected", "testAlterIsrUnknownTopic",
    "testAlterIsrInvalidVersion", "testAlterIsrUnexpectedError", "testPartitionShouldRetryAlterPartitionRequest",
    "testSingleInFlightAlterIsr", "testZkIsrManagerAsyncCallback", "testUseCheckpointToInitializeHighWatermark",
    "testTopicIdAndPartitionMetadataFileForLeader", "testTopicIdAndPartitionMetadataFileForFollower",
    "testAddAndRemoveMetrics", "testUnderReplicatedPartitionsCorrectSemantics", "testUpdateAssignmentAndIsr",
    "testLogConfigNotDirty", "testLogConfigDirtyAsTopicUpdated", "testLogConfigDirtyAsBrokerUpdated",
    "testDoNotResetReplicaStateIfLeaderEpochIsNotBumped", "testDoNotUpdateEpochStartOffsetIfLeaderEpochIsNotBumped",
    "testIgnoreLeaderPartitionStateChangeWithOlderPartitionEpoch",
    "testIgnoreFollowerPartitionStateChangeWithOlderPartitionEpoch", "testFollowerShouldNotHaveAnyRemoteReplicaStates",
    "testAddAndRemoveListeners", "testAddListenerFailsWhenPartitionIsDeleted",
    "testPartitionListenerWhenLogOffsetsChanged", "testPartitionListenerWhenPartitionFailed",
    "testPartitionListenerWhenPartitionIsDeleted", "testPartitionListenerWhenCurrentIsReplacedWithFutureLog",
    "testMaybeStartTransactionVerification", "makeLeaderInvokesgetOrCreateLog_OnOnlineLogDir",
    "makeFollowerInvokesgetOrCreateLog_OnOnlineLogDir", "makeLeaderInvokesgetOrCreateLog_WhenNoLogDirOffline",
    "makeFollowerInvokesgetOrCreateLog_WhenNoLogDirOffline",
    "makeLeaderInvokesgetOrCreateLog_WhenTargetDirIsUnassigned",
    "makeFollowerInvokesgetOrCreateLog_WhenTargetDirIsUnassigned",
]

NOT_APPLICABLE = {
    "testZkIsrManagerAsyncCallback": "ZooKeeper mode: ZkAlterPartitionManager writing the partition znode",
    "testAddAndRemoveMetrics": "metrics: the partition's Yammer gauges are not ported",
}

NOT_PORTED: dict[str, str] = {}

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/cluster/PartitionTest.scala",
    cases=CASES, not_applicable=NOT_APPLICABLE, not_ported=NOT_PORTED,
)


class Ctx(AbstractPartitionTest):
    """PartitionTest's private helpers over AbstractPartitionTest's fields."""

    def create_records(self, records: list[SimpleRecord], base_offset: int,
                       partition_leader_epoch: int = 0) -> MemoryRecords:
        builder = MemoryRecords.builder(1024 * 64, timestamp_type=TimestampType.LOG_APPEND_TIME,
                                        base_offset=base_offset, log_append_time=self.time.milliseconds(),
                                        partition_leader_epoch=partition_leader_epoch)
        for record in records:
            builder.append(record)
        return builder.build()

    @staticmethod
    def create_idempotent_records(records: list[SimpleRecord], base_offset: int, base_sequence: int = 0,
                                  producer_id: int = 1) -> MemoryRecords:
        return MemoryRecords.with_idempotent_records(Compression.NONE, producer_id, 0, base_sequence, *records,
                                                     initial_offset=base_offset)

    @staticmethod
    def create_transactional_records(records: list[SimpleRecord], base_offset: int, base_sequence: int = 0,
                                     producer_id: int = 1) -> MemoryRecords:
        return MemoryRecords.with_transactional_records(Compression.NONE, producer_id, 0, base_sequence, *records,
                                                        initial_offset=base_offset)

    def make_leader(self, topic_id: Uuid | None, controller_epoch: int, leader_epoch: int, isr: list[int],
                    replicas: list[int], partition_epoch: int, is_new: bool,
                    partition: Partition | None = None) -> bool:
        partition = self.partition if partition is None else partition
        partition.create_log_if_not_exists(is_new, False, self.offset_checkpoints, topic_id)
        new_leader = partition.make_leader(LeaderAndIsrPartitionState(
            controller_epoch=controller_epoch, leader=self.broker_id, leader_epoch=leader_epoch, isr=list(isr),
            partition_epoch=partition_epoch, replicas=list(replicas), is_new=is_new), self.offset_checkpoints, topic_id)
        assert partition.is_leader()
        assert not partition.partition_state.is_inflight
        assert partition.topic_id() == topic_id
        assert partition.get_leader_epoch() == leader_epoch
        assert partition.partition_state.isr == set(isr)
        assert partition.partition_state.maximal_isr == set(isr)
        assert partition.get_partition_epoch() == partition_epoch
        return new_leader

    @staticmethod
    def seed_log_data(log: UnifiedLog, num_records: int, leader_epoch: int) -> None:
        for i in range(num_records):
            records = MemoryRecords.with_records(Compression.NONE, SimpleRecord(key=f"k{i}".encode(),
                                                                                value=f"v{i}".encode()),
                                                 partition_leader_epoch=leader_epoch)
            log.append_as_leader(records, leader_epoch)

    @staticmethod
    def assert_replica_state(partition: Partition, replica_id: int, last_caught_up_time_ms: int, log_end_offset: int,
                             log_start_offset: int, broker_epoch: int | None = None) -> None:
        replica = partition.get_replica(replica_id)
        assert replica is not None, f"Replica {replica_id} not found."
        state = replica.state_snapshot
        assert state.last_caught_up_time_ms == last_caught_up_time_ms, "Unexpected Last Caught Up Time"
        assert state.log_end_offset == log_end_offset, "Unexpected Log End Offset"
        assert state.log_start_offset == log_start_offset, "Unexpected Log Start Offset"
        if broker_epoch is not None:
            assert state.broker_epoch == broker_epoch, "brokerEpochs mismatch"

    def fetch_consumer(self, partition: Partition, fetch_offset: int, leader_epoch: int | None,
                       client_metadata: Any, max_bytes: int = INT_MAX, last_fetched_epoch: int | None = None,
                       fetch_time_ms: int | None = None,
                       isolation: FetchIsolation = FetchIsolation.HIGH_WATERMARK) -> LogReadInfo:
        fetch_params = consumer_fetch_params(max_bytes=max_bytes, client_metadata=client_metadata,
                                             isolation=isolation)
        fetch_partition_data = PartitionData(uuid.UUID(int=0), fetch_offset, -1, max_bytes, leader_epoch,
                                             last_fetched_epoch)
        return partition.fetch_records(fetch_params, fetch_partition_data,
                                       self.time.milliseconds() if fetch_time_ms is None else fetch_time_ms,
                                       max_bytes, min_one_message=True, update_fetch_state=False)

    def fetch_follower(self, partition: Partition, replica_id: int, fetch_offset: int, log_start_offset: int = 0,
                       max_bytes: int = INT_MAX, leader_epoch: int | None = None,
                       last_fetched_epoch: int | None = None, fetch_time_ms: int | None = None,
                       replica_epoch: int | None = None) -> LogReadInfo:
        fetch_params = follower_fetch_params(replica_id, max_bytes=max_bytes,
                                             replica_epoch=(default_broker_epoch(replica_id) if replica_epoch is None
                                                            else replica_epoch))
        fetch_partition_data = PartitionData(uuid.UUID(int=0), fetch_offset, log_start_offset, max_bytes,
                                             leader_epoch, last_fetched_epoch)
        return partition.fetch_records(fetch_params, fetch_partition_data,
                                       self.time.milliseconds() if fetch_time_ms is None else fetch_time_ms,
                                       max_bytes, min_one_message=True, update_fetch_state=True)


def kraft_metadata_cache(alive_broker_epochs: dict[int, int] | None = None) -> MagicMock:
    """`mock(classOf[KRaftMetadataCache])` with `getAliveBrokerEpoch` stubbed (addBrokerEpochToMockMetadataCache)."""
    cache = MagicMock(spec=KRaftMetadataCache)
    epochs = dict(alive_broker_epochs or {})
    cache.alive_broker_epochs = epochs
    cache.get_alive_broker_epoch.side_effect = lambda broker_id: epochs.get(broker_id)
    cache.is_broker_fenced.return_value = False
    cache.is_broker_shutting_down.return_value = False
    return cache


def add_broker_epoch_to_mock_metadata_cache(cache: MagicMock, brokers: list[int]) -> None:
    for broker in brokers:
        cache.alive_broker_epochs[broker] = default_broker_epoch(broker)


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[Ctx]:
    context = Ctx(tmp_path)
    yield context
    context.tear_down()


def records(*simple_records: SimpleRecord) -> MemoryRecords:
    """TestUtils.records: one batch at offset 0."""
    return MemoryRecords.with_records(Compression.NONE, *simple_records)


def kv(key: str, value: str, timestamp: int = NO_TIMESTAMP) -> SimpleRecord:
    return SimpleRecord(key=key.encode(), value=value.encode(), timestamp=timestamp)


def error_of(call: Callable[[], Any]) -> Errors:
    try:
        call()
        return Errors.NONE
    except Exception as e:  # noqa: BLE001 - Errors.forException of whatever came
        return Errors.for_exception(e)


# ---- the cases, in Kafka's order ----


def test_last_fetched_offset_validation(ctx: Ctx) -> None:
    log = ctx.log_manager.get_or_create_log(ctx.topic_partition, topic_id=None)

    def append(leader_epoch: int, count: int) -> None:
        recs = [SimpleRecord(value=f"{i}".encode()) for i in range(1, count + 1)]
        log.append_as_leader(MemoryRecords.with_records(Compression.NONE, *recs, partition_leader_epoch=leader_epoch),
                             leader_epoch)

    append(0, 2)  # 0
    append(3, 3)  # 2
    append(3, 3)  # 5
    append(4, 5)  # 8
    append(7, 1)  # 13
    append(9, 3)  # 14
    assert log.log_end_offset() == 17

    leader_epoch = 10
    log_start_offset = 0
    partition = ctx.setup_partition_with_mocks(leader_epoch, is_leader=True)

    def read(last_fetched_epoch: int, fetch_offset: int) -> LogReadInfo:
        return ctx.fetch_follower(partition, REMOTE_REPLICA_ID, fetch_offset, log_start_offset,
                                  leader_epoch=leader_epoch, last_fetched_epoch=last_fetched_epoch)

    def assert_divergence(epoch: int, end_offset: int, read_info: LogReadInfo) -> None:
        assert read_info.diverging_epoch is not None
        assert (read_info.diverging_epoch.epoch, read_info.diverging_epoch.end_offset) == (epoch, end_offset)
        assert read_info.fetched_data.records.size_in_bytes() == 0

    def assert_no_divergence(read_info: LogReadInfo) -> None:
        assert read_info.diverging_epoch is None

    assert_divergence(0, 2, read(2, 5))
    assert_divergence(0, 2, read(0, 4))
    assert_divergence(4, 13, read(6, 6))
    assert_divergence(4, 13, read(5, 9))
    assert_divergence(10, 17, read(10, 18))
    assert_no_divergence(read(0, 2))
    assert_no_divergence(read(7, 14))
    assert_no_divergence(read(9, 17))
    assert_no_divergence(read(10, 17))

    # an epoch newer than the leader's is out of range
    with pytest.raises(OffsetOutOfRangeException):
        read(11, 5)

    # the log start offset into the middle of epoch 3
    log.update_high_watermark(log.log_end_offset())
    log.maybe_increment_log_start_offset(5, LogStartOffsetIncrementReason.ClientRecordDeletion)

    assert_divergence(2, 5, read(2, 8))
    assert_no_divergence(read(0, 5))
    assert_no_divergence(read(3, 5))

    with pytest.raises(OffsetOutOfRangeException):
        read(0, 0)

    # below the log start offset: out of range, diverging or not
    log.maybe_increment_log_start_offset(10, LogStartOffsetIncrementReason.ClientRecordDeletion)
    with pytest.raises(OffsetOutOfRangeException):
        read(5, 6)
    with pytest.raises(OffsetOutOfRangeException):
        read(3, 6)


def test_make_leader_updates_epoch_cache(ctx: Ctx) -> None:
    leader_epoch = 8
    log = ctx.log_manager.get_or_create_log(ctx.topic_partition, topic_id=None)
    log.append_as_leader(MemoryRecords.with_records(Compression.NONE, kv("k1", "v1"), kv("k2", "v2"),
                                                    partition_leader_epoch=0), 0)
    log.append_as_leader(MemoryRecords.with_records(Compression.NONE, kv("k3", "v3"), kv("k4", "v4"),
                                                    partition_leader_epoch=5), 5)
    assert log.log_end_offset() == 4

    partition = ctx.setup_partition_with_mocks(leader_epoch, is_leader=True)
    assert partition.leader_log_if_local().log_end_offset() == 4

    epoch_end_offset = partition.last_offset_for_leader_epoch(leader_epoch, leader_epoch, fetch_only_from_leader=True)
    assert epoch_end_offset.end_offset == 4
    assert epoch_end_offset.leader_epoch == leader_epoch


def test_maybe_replace_current_with_future_replica(ctx: Ctx) -> None:
    # removeFutureLocalReplica and maybeReplaceCurrentWithFutureReplica may run concurrently
    latch = threading.Event()
    partition = ctx.partition
    ctx.log_manager.maybe_update_preferred_log_dir(ctx.topic_partition, str(ctx.log_dir1.absolute()))
    partition.create_log_if_not_exists(True, False, ctx.offset_checkpoints, None)
    ctx.log_manager.maybe_update_preferred_log_dir(ctx.topic_partition, str(ctx.log_dir2.absolute()))
    partition.maybe_create_future_replica(str(ctx.log_dir2.absolute()), ctx.offset_checkpoints)

    def run1() -> None:
        latch.wait()
        partition.remove_future_local_replica()

    def run2() -> None:
        latch.wait()
        partition.maybe_replace_current_with_future_replica()

    thread1 = threading.Thread(target=run1)
    thread2 = threading.Thread(target=run2)
    thread1.start()
    thread2.start()
    latch.set()
    thread1.join()
    thread2.join()
    assert partition.future_log is None


def test_replica_fetch_to_follower(ctx: Ctx) -> None:
    follower_id = BROKER_ID + 1
    leader_id = BROKER_ID + 2
    replicas = [BROKER_ID, follower_id, leader_id]
    leader_epoch = 8
    assert ctx.partition.make_follower(LeaderAndIsrPartitionState(
        controller_epoch=3, leader=leader_id, leader_epoch=leader_epoch, isr=replicas, partition_epoch=1,
        replicas=replicas, is_new=True), ctx.offset_checkpoints, None)

    def assert_fetch_from_replica_fails(expected: type[Exception], epoch: int | None) -> None:
        with pytest.raises(expected):
            ctx.fetch_follower(ctx.partition, follower_id, 0, leader_epoch=epoch)

    assert_fetch_from_replica_fails(NotLeaderOrFollowerException, None)
    assert_fetch_from_replica_fails(NotLeaderOrFollowerException, leader_epoch)
    assert_fetch_from_replica_fails(UnknownLeaderEpochException, leader_epoch + 1)
    assert_fetch_from_replica_fails(FencedLeaderEpochException, leader_epoch - 1)


def test_fetch_from_unrecognized_follower(ctx: Ctx) -> None:
    leader = BROKER_ID
    valid_replica = BROKER_ID + 1
    adding_replica1 = BROKER_ID + 2
    adding_replica2 = BROKER_ID + 3
    replicas = [leader, valid_replica]
    isr = [leader, valid_replica]
    leader_epoch = 8
    partition_epoch = 1
    partition = ctx.partition
    assert partition.make_leader(LeaderAndIsrPartitionState(
        controller_epoch=3, leader=leader, leader_epoch=leader_epoch, isr=isr, partition_epoch=partition_epoch,
        replicas=replicas, is_new=True), ctx.offset_checkpoints, None)

    with pytest.raises(UnknownLeaderEpochException):
        ctx.fetch_follower(partition, adding_replica1, 0, leader_epoch=leader_epoch)
    assert partition.get_replica(adding_replica1) is None

    with pytest.raises(NotLeaderOrFollowerException):
        ctx.fetch_follower(partition, adding_replica2, 0, leader_epoch=None)
    assert partition.get_replica(adding_replica2) is None

    # the replicas come with a reassignment
    new_replicas = [leader, valid_replica, adding_replica1, adding_replica2]
    assert not partition.make_leader(LeaderAndIsrPartitionState(
        controller_epoch=3, leader=leader, leader_epoch=leader_epoch, isr=isr, partition_epoch=partition_epoch + 1,
        replicas=new_replicas, adding_replicas=[adding_replica1, adding_replica2], is_new=True),
        ctx.offset_checkpoints, None)

    # now their fetches are allowed
    assert ctx.fetch_follower(partition, adding_replica1, 0, leader_epoch=leader_epoch).log_end_offset == 0
    assert partition.get_replica(adding_replica1).state_snapshot.log_end_offset == 0
    assert ctx.fetch_follower(partition, adding_replica2, 0, leader_epoch=None).log_end_offset == 0
    assert partition.get_replica(adding_replica2).state_snapshot.log_end_offset == 0


def test_make_follower_with_with_follower_append_records(ctx: Ctx) -> None:
    # makeFollower and a follower append may run concurrently: the append blocks inside the log until released
    append_semaphore = threading.Semaphore(0)
    waiting = threading.Event()
    partition = ctx.partition
    partition.create_log_if_not_exists(True, False, ctx.offset_checkpoints, None)
    log = partition.log
    original_append_as_follower = log.append_as_follower

    def slow_append_as_follower(records: MemoryRecords) -> Any:
        waiting.set()
        append_semaphore.acquire()
        return original_append_as_follower(records)

    log.append_as_follower = slow_append_as_follower  # type: ignore[method-assign]

    def append() -> None:
        recs = ctx.create_records([kv("k1", "v1"), kv("k2", "v2")], base_offset=0)
        partition.append_records_to_follower_or_future_replica(recs, is_future=False)

    append_thread = threading.Thread(target=append)
    append_thread.start()
    wait_until_true(waiting.is_set, "follower log append is not called.")

    partition_state = LeaderAndIsrPartitionState(controller_epoch=0, leader=2, leader_epoch=1,
                                                 isr=[0, 1, 2, BROKER_ID], partition_epoch=1,
                                                 replicas=[0, 1, 2, BROKER_ID], is_new=False)
    assert partition.make_follower(partition_state, ctx.offset_checkpoints, None)

    append_semaphore.release()
    append_thread.join()

    assert partition.local_log_or_exception().log_end_offset() == 2
    assert partition.leader_replica_id_opt == 2


def test_maybe_replace_current_with_future_replica_different_base_offsets(ctx: Ctx) -> None:
    partition = ctx.partition
    ctx.log_manager.maybe_update_preferred_log_dir(ctx.topic_partition, str(ctx.log_dir1.absolute()))
    partition.create_log_if_not_exists(True, False, ctx.offset_checkpoints, None)
    ctx.log_manager.maybe_update_preferred_log_dir(ctx.topic_partition, str(ctx.log_dir2.absolute()))
    partition.maybe_create_future_replica(str(ctx.log_dir2.absolute()), ctx.offset_checkpoints)

    # duplicate keys in the current log, rolled at offset 6
    current_log = partition.log
    current_log.append_as_leader(MemoryRecords.with_records(
        Compression.NONE, kv("k1", "v1"), kv("k1", "v2"), kv("k1", "v3"), kv("k2", "v4"), kv("k2", "v5"),
        kv("k2", "v6"), partition_leader_epoch=0), 0)
    current_log.roll()
    current_log.append_as_leader(MemoryRecords.with_records(Compression.NONE, kv("k3", "v7"), kv("k4", "v8"),
                                                            partition_leader_epoch=0), 0)

    # the future log as if compacted, not rolled
    builder = MemoryRecords.builder(1024, timestamp_type=TimestampType.CREATE_TIME, base_offset=0,
                                    log_append_time=NO_TIMESTAMP, partition_leader_epoch=0)
    builder.append_with_offset(2, NO_TIMESTAMP, b"k1", b"v3")
    builder.append_with_offset(5, NO_TIMESTAMP, b"k2", b"v6")
    builder.append_with_offset(6, NO_TIMESTAMP, b"k3", b"v7")
    builder.append_with_offset(7, NO_TIMESTAMP, b"k4", b"v8")
    partition.future_local_log_or_exception().append_as_follower(builder.build())

    assert partition.maybe_replace_current_with_future_replica()


def test_fetch_offset_snapshot_epoch_validation_for_leader(ctx: Ctx) -> None:
    leader_epoch = 5
    partition = ctx.setup_partition_with_mocks(leader_epoch, is_leader=True)

    def assert_snapshot_error(expected_error: Errors, current_leader_epoch: int | None) -> None:
        assert error_of(lambda: partition.fetch_offset_snapshot(current_leader_epoch, True)) == expected_error

    assert_snapshot_error(Errors.FENCED_LEADER_EPOCH, leader_epoch - 1)
    assert_snapshot_error(Errors.UNKNOWN_LEADER_EPOCH, leader_epoch + 1)
    assert_snapshot_error(Errors.NONE, leader_epoch)
    assert_snapshot_error(Errors.NONE, None)


def test_fetch_offset_snapshot_epoch_validation_for_follower(ctx: Ctx) -> None:
    leader_epoch = 5
    partition = ctx.setup_partition_with_mocks(leader_epoch, is_leader=False)

    def assert_snapshot_error(expected_error: Errors, current_leader_epoch: int | None, only_leader: bool) -> None:
        assert error_of(lambda: partition.fetch_offset_snapshot(current_leader_epoch, only_leader)) == expected_error

    assert_snapshot_error(Errors.NONE, leader_epoch, False)
    assert_snapshot_error(Errors.NONE, None, False)
    assert_snapshot_error(Errors.FENCED_LEADER_EPOCH, leader_epoch - 1, False)
    assert_snapshot_error(Errors.UNKNOWN_LEADER_EPOCH, leader_epoch + 1, False)

    assert_snapshot_error(Errors.NOT_LEADER_OR_FOLLOWER, leader_epoch, True)
    assert_snapshot_error(Errors.NOT_LEADER_OR_FOLLOWER, None, True)
    assert_snapshot_error(Errors.FENCED_LEADER_EPOCH, leader_epoch - 1, True)
    assert_snapshot_error(Errors.UNKNOWN_LEADER_EPOCH, leader_epoch + 1, True)


def test_offset_for_leader_epoch_validation_for_leader(ctx: Ctx) -> None:
    leader_epoch = 5
    partition = ctx.setup_partition_with_mocks(leader_epoch, is_leader=True)

    def assert_last_offset_for_leader_error(error: Errors, current_leader_epoch: int | None) -> None:
        end_offset = partition.last_offset_for_leader_epoch(current_leader_epoch, 0, fetch_only_from_leader=True)
        assert end_offset.error_code == error.code

    assert_last_offset_for_leader_error(Errors.NONE, None)
    assert_last_offset_for_leader_error(Errors.NONE, leader_epoch)
    assert_last_offset_for_leader_error(Errors.FENCED_LEADER_EPOCH, leader_epoch - 1)
    assert_last_offset_for_leader_error(Errors.UNKNOWN_LEADER_EPOCH, leader_epoch + 1)


def test_offset_for_leader_epoch_validation_for_follower(ctx: Ctx) -> None:
    leader_epoch = 5
    partition = ctx.setup_partition_with_mocks(leader_epoch, is_leader=False)

    def assert_last_offset_for_leader_error(error: Errors, current_leader_epoch: int | None,
                                            only_leader: bool) -> None:
        end_offset = partition.last_offset_for_leader_epoch(current_leader_epoch, 0, only_leader)
        assert end_offset.error_code == error.code

    assert_last_offset_for_leader_error(Errors.NONE, None, False)
    assert_last_offset_for_leader_error(Errors.NONE, leader_epoch, False)
    assert_last_offset_for_leader_error(Errors.FENCED_LEADER_EPOCH, leader_epoch - 1, False)
    assert_last_offset_for_leader_error(Errors.UNKNOWN_LEADER_EPOCH, leader_epoch + 1, False)

    assert_last_offset_for_leader_error(Errors.NOT_LEADER_OR_FOLLOWER, None, True)
    assert_last_offset_for_leader_error(Errors.NOT_LEADER_OR_FOLLOWER, leader_epoch, True)
    assert_last_offset_for_leader_error(Errors.FENCED_LEADER_EPOCH, leader_epoch - 1, True)
    assert_last_offset_for_leader_error(Errors.UNKNOWN_LEADER_EPOCH, leader_epoch + 1, True)


def test_leader_epoch_validation_on_leader(ctx: Ctx) -> None:
    leader_epoch = 5
    partition = ctx.setup_partition_with_mocks(leader_epoch, is_leader=True)

    def send_fetch(epoch: int | None) -> LogReadInfo:
        return ctx.fetch_follower(partition, REMOTE_REPLICA_ID, 0, leader_epoch=epoch)

    assert send_fetch(None).log_end_offset == 0
    assert send_fetch(leader_epoch).log_end_offset == 0
    with pytest.raises(FencedLeaderEpochException):
        send_fetch(leader_epoch - 1)
    with pytest.raises(UnknownLeaderEpochException):
        send_fetch(leader_epoch + 1)


def test_leader_epoch_validation_on_follower(ctx: Ctx) -> None:
    leader_epoch = 5
    partition = ctx.setup_partition_with_mocks(leader_epoch, is_leader=False)

    def send_fetch(epoch: int | None, client_metadata: Any) -> LogReadInfo:
        return ctx.fetch_consumer(partition, 0, epoch, client_metadata)

    # a consumer may fetch from a follower only with client metadata (KIP-392)
    with pytest.raises(NotLeaderOrFollowerException):
        send_fetch(None, None)
    with pytest.raises(NotLeaderOrFollowerException):
        send_fetch(leader_epoch, None)
    with pytest.raises(FencedLeaderEpochException):
        send_fetch(leader_epoch - 1, None)
    with pytest.raises(UnknownLeaderEpochException):
        send_fetch(leader_epoch + 1, None)

    # DefaultClientMetadata("rack", "clientId", loopback, ANONYMOUS, "PLAINTEXT")
    client_metadata = ("rack", "clientId", "127.0.0.1", "User:ANONYMOUS", "PLAINTEXT")
    assert send_fetch(None, client_metadata).log_end_offset == 0
    assert send_fetch(leader_epoch, client_metadata).log_end_offset == 0
    with pytest.raises(FencedLeaderEpochException):
        send_fetch(leader_epoch - 1, client_metadata)
    with pytest.raises(UnknownLeaderEpochException):
        send_fetch(leader_epoch + 1, client_metadata)


def test_fetch_offset_for_timestamp_epoch_validation_for_leader(ctx: Ctx) -> None:
    leader_epoch = 5
    partition = ctx.setup_partition_with_mocks(leader_epoch, is_leader=True)

    def assert_fetch_offset_error(error: Errors, current_leader_epoch: int | None) -> None:
        assert error_of(lambda: partition.fetch_offset_for_timestamp(0, None, current_leader_epoch, True)) == error

    assert_fetch_offset_error(Errors.NONE, None)
    assert_fetch_offset_error(Errors.NONE, leader_epoch)
    assert_fetch_offset_error(Errors.FENCED_LEADER_EPOCH, leader_epoch - 1)
    assert_fetch_offset_error(Errors.UNKNOWN_LEADER_EPOCH, leader_epoch + 1)


def test_fetch_offset_for_timestamp_epoch_validation_for_follower(ctx: Ctx) -> None:
    leader_epoch = 5
    partition = ctx.setup_partition_with_mocks(leader_epoch, is_leader=False)

    def assert_fetch_offset_error(error: Errors, current_leader_epoch: int | None, only_leader: bool) -> None:
        assert error_of(lambda: partition.fetch_offset_for_timestamp(0, None, current_leader_epoch,
                                                                     only_leader)) == error

    assert_fetch_offset_error(Errors.NONE, None, False)
    assert_fetch_offset_error(Errors.NONE, leader_epoch, False)
    assert_fetch_offset_error(Errors.FENCED_LEADER_EPOCH, leader_epoch - 1, False)
    assert_fetch_offset_error(Errors.UNKNOWN_LEADER_EPOCH, leader_epoch + 1, False)

    assert_fetch_offset_error(Errors.NOT_LEADER_OR_FOLLOWER, None, True)
    assert_fetch_offset_error(Errors.NOT_LEADER_OR_FOLLOWER, leader_epoch, True)
    assert_fetch_offset_error(Errors.FENCED_LEADER_EPOCH, leader_epoch - 1, True)
    assert_fetch_offset_error(Errors.UNKNOWN_LEADER_EPOCH, leader_epoch + 1, True)


def test_fetch_latest_offset_includes_leader_epoch(ctx: Ctx) -> None:
    leader_epoch = 5
    partition = ctx.setup_partition_with_mocks(leader_epoch, is_leader=True)
    timestamp_and_offset = partition.fetch_offset_for_timestamp(LATEST_TIMESTAMP, None, None, True)
    assert timestamp_and_offset is not None
    assert timestamp_and_offset.leader_epoch == leader_epoch


def test_monotonic_offsets_after_leader_change(ctx: Ctx) -> None:
    # KIP-207: no ListOffsets answer until the new leader's HW reached the start of its epoch
    leader = BROKER_ID
    follower1 = BROKER_ID + 1
    follower2 = BROKER_ID + 2
    replicas = [leader, follower1, follower2]
    isr = [leader, follower2]
    leader_epoch = 8
    batch1 = records(kv("k1", "v1", 10), kv("k2", "v2", 11))
    batch2 = records(kv("k3", "v1"), kv("k4", "v2", 20), kv("k5", "v3", 21))
    partition = ctx.partition

    leader_state = LeaderAndIsrPartitionState(controller_epoch=3, leader=leader, leader_epoch=leader_epoch, isr=isr,
                                              partition_epoch=1, replicas=replicas, is_new=True)
    assert partition.make_leader(leader_state, ctx.offset_checkpoints, None), \
        "Expected first makeLeader() to return 'leader changed'"
    assert partition.get_leader_epoch() == leader_epoch, "Current leader epoch"
    assert partition.partition_state.isr == {leader, follower2}, "ISR"

    partition.append_records_to_leader(batch1, AppendOrigin.CLIENT, 0)
    partition.append_records_to_leader(batch2, AppendOrigin.CLIENT, 0)
    assert partition.local_log_or_exception().high_watermark() == \
        partition.local_log_or_exception().log_start_offset, "Expected leader's HW not move"

    def fetch_offsets_for_timestamp(timestamp: int, isolation: int | None) -> Any:
        try:
            return partition.fetch_offset_for_timestamp(timestamp, isolation, partition.get_leader_epoch(), True)
        except ApiException as e:
            return e

    # the followers move the HW, below the LEO
    ctx.fetch_follower(partition, follower1, 0)
    ctx.fetch_follower(partition, follower1, 2)
    ctx.fetch_follower(partition, follower2, 0)
    ctx.fetch_follower(partition, follower2, 2)

    # the ISR change (follower1 joins) succeeds
    ctx.alter_partition_manager.complete_isr_update(2)

    # five records on the leader, two fetched
    assert partition.local_log_or_exception().high_watermark() == 2

    assert fetch_offsets_for_timestamp(LATEST_TIMESTAMP, None).offset == 5  # the LEO
    assert fetch_offsets_for_timestamp(LATEST_TIMESTAMP, IsolationLevel.READ_UNCOMMITTED).offset == 2  # the HW
    # beyond the HW by timestamp: nothing
    assert fetch_offsets_for_timestamp(30, IsolationLevel.READ_UNCOMMITTED) is None

    # follower, then leader again: the epoch starts at 5, above the HW (the faulty state)
    assert partition.make_follower(LeaderAndIsrPartitionState(
        controller_epoch=3, leader=follower2, leader_epoch=leader_epoch + 1, isr=isr, partition_epoch=4,
        replicas=replicas, is_new=False), ctx.offset_checkpoints, None)
    assert partition.make_leader(LeaderAndIsrPartitionState(
        controller_epoch=3, leader=leader, leader_epoch=leader_epoch + 2, isr=isr, partition_epoch=5,
        replicas=replicas, is_new=False), ctx.offset_checkpoints, None)

    assert isinstance(fetch_offsets_for_timestamp(LATEST_TIMESTAMP, IsolationLevel.READ_UNCOMMITTED),
                      OffsetNotAvailableException)
    # not from a client: no check
    assert fetch_offsets_for_timestamp(LATEST_TIMESTAMP, None).offset == 5
    # the earliest timestamps: no check
    assert fetch_offsets_for_timestamp(EARLIEST_TIMESTAMP, IsolationLevel.READ_UNCOMMITTED).offset == 0
    assert fetch_offsets_for_timestamp(EARLIEST_LOCAL_TIMESTAMP, IsolationLevel.READ_UNCOMMITTED).offset == 0
    # a timestamp below the HW is fine
    found = fetch_offsets_for_timestamp(11, IsolationLevel.READ_UNCOMMITTED)
    assert (found.offset, found.timestamp) == (1, 11)
    # beyond the HW: an error now
    assert isinstance(fetch_offsets_for_timestamp(100, IsolationLevel.READ_UNCOMMITTED), OffsetNotAvailableException)

    # the followers fetch up to 5: the HW moves to the epoch start
    ctx.fetch_follower(partition, follower1, 5)
    ctx.fetch_follower(partition, follower2, 5)
    ctx.alter_partition_manager.complete_isr_update(6)

    assert fetch_offsets_for_timestamp(LATEST_TIMESTAMP, IsolationLevel.READ_UNCOMMITTED).offset == 5
    assert fetch_offsets_for_timestamp(100, IsolationLevel.READ_UNCOMMITTED) is None


def test_append_records_as_follower_below_log_start_offset(ctx: Ctx) -> None:
    partition = ctx.partition
    partition.create_log_if_not_exists(False, False, ctx.offset_checkpoints, None)
    log = partition.local_log_or_exception()

    initial_log_start_offset = 5
    partition.truncate_fully_and_start_at(initial_log_start_offset, is_future=False)
    assert log.log_end_offset() == initial_log_start_offset
    assert log.log_start_offset == initial_log_start_offset

    # records that do not contain the log start offset are refused, even on an empty log
    with pytest.raises(UnexpectedAppendOffsetException):
        partition.append_records_to_follower_or_future_replica(ctx.create_records([kv("k1", "v1")], 3), False)
    assert log.log_end_offset() == initial_log_start_offset, "Log end offset should not change after failure"

    # records containing it start the empty log at their first offset
    new_log_start_offset = 4
    partition.append_records_to_follower_or_future_replica(
        ctx.create_records([kv("k1", "v1"), kv("k2", "v2"), kv("k3", "v3")], new_log_start_offset), False)
    assert log.log_end_offset() == 7
    assert log.log_start_offset == new_log_start_offset

    partition.append_records_to_follower_or_future_replica(ctx.create_records([kv("k1", "v1")], 7), False)
    assert log.log_end_offset() == 8
    assert log.log_start_offset == new_log_start_offset

    # below the log start on a non-empty log: refused
    with pytest.raises(UnexpectedAppendOffsetException):
        partition.append_records_to_follower_or_future_replica(
            ctx.create_records([kv("k1", "v1"), kv("k2", "v2")], 3), False)
    assert log.log_end_offset() == 8

    partition.append_records_to_follower_or_future_replica(ctx.create_records([kv("k1", "v1")], 8), False)
    assert log.log_end_offset() == 9
    assert log.log_start_offset == new_log_start_offset


def test_list_offset_isolation_levels(ctx: Ctx) -> None:
    leader_epoch = 5
    replicas = [BROKER_ID, BROKER_ID + 1]
    partition = ctx.partition
    partition.create_log_if_not_exists(False, False, ctx.offset_checkpoints, None)
    assert partition.make_leader(LeaderAndIsrPartitionState(
        controller_epoch=0, leader=BROKER_ID, leader_epoch=leader_epoch, isr=replicas, partition_epoch=1,
        replicas=replicas, is_new=True), ctx.offset_checkpoints, None), "Expected become leader transition to succeed"
    assert partition.get_leader_epoch() == leader_epoch

    recs = ctx.create_transactional_records([kv("k1", "v1"), kv("k2", "v2"), kv("k3", "v3")], 0, producer_id=2)
    verification_guard = partition.maybe_start_transaction_verification(2, 0, 0)
    partition.append_records_to_leader(recs, AppendOrigin.CLIENT, 0, None, verification_guard)

    def fetch_offset(isolation_level: int | None, timestamp: int) -> Any:
        res = partition.fetch_offset_for_timestamp(timestamp, isolation_level, None, True)
        assert res is not None
        return res

    assert fetch_offset(None, LATEST_TIMESTAMP).offset == 3
    assert fetch_offset(IsolationLevel.READ_UNCOMMITTED, LATEST_TIMESTAMP).offset == 0
    assert fetch_offset(IsolationLevel.READ_COMMITTED, LATEST_TIMESTAMP).offset == 0

    partition.log.update_high_watermark(1)

    assert fetch_offset(None, LATEST_TIMESTAMP).offset == 3
    assert fetch_offset(IsolationLevel.READ_UNCOMMITTED, LATEST_TIMESTAMP).offset == 1
    assert fetch_offset(IsolationLevel.READ_COMMITTED, LATEST_TIMESTAMP).offset == 0

    for level in (None, IsolationLevel.READ_UNCOMMITTED, IsolationLevel.READ_COMMITTED):
        assert fetch_offset(level, EARLIEST_TIMESTAMP).offset == 0
    for level in (None, IsolationLevel.READ_UNCOMMITTED, IsolationLevel.READ_COMMITTED):
        assert fetch_offset(level, EARLIEST_LOCAL_TIMESTAMP).offset == 0


def test_get_replica(ctx: Ctx) -> None:
    assert ctx.partition.log is None
    with pytest.raises(NotLeaderOrFollowerException):
        ctx.partition.local_log_or_exception()


def test_append_records_to_follower_with_no_replica_throws_exception(ctx: Ctx) -> None:
    with pytest.raises(NotLeaderOrFollowerException):
        ctx.partition.append_records_to_follower_or_future_replica(ctx.create_records([kv("k1", "v1")], 0), False)


def test_make_follower_with_no_leader_id_change(ctx: Ctx) -> None:
    replicas = [0, 1, 2, BROKER_ID]
    partition = ctx.partition
    partition.make_follower(LeaderAndIsrPartitionState(controller_epoch=0, leader=1, leader_epoch=1, isr=replicas,
                                                       partition_epoch=1, replicas=replicas, is_new=False),
                            ctx.offset_checkpoints, None)
    # same leader, a newer epoch: the become-follower steps run
    assert partition.make_follower(LeaderAndIsrPartitionState(
        controller_epoch=0, leader=1, leader_epoch=4, isr=replicas, partition_epoch=1, replicas=replicas,
        is_new=False), ctx.offset_checkpoints, None)
    # same leader and epoch: skipped
    assert not partition.make_follower(LeaderAndIsrPartitionState(
        controller_epoch=0, leader=1, leader_epoch=4, isr=replicas, partition_epoch=1, replicas=replicas),
        ctx.offset_checkpoints, None)


def test_follower_does_not_join_isr_until_caught_up_to_offset_within_current_leader_epoch(ctx: Ctx) -> None:
    leader = BROKER_ID
    follower1 = BROKER_ID + 1
    follower2 = BROKER_ID + 2
    replicas = [leader, follower1, follower2]
    isr = [leader, follower2]
    leader_epoch = 8
    batch1 = records(kv("k1", "v1"), kv("k2", "v2"))
    batch2 = records(kv("k3", "v1"), kv("k4", "v2"), kv("k5", "v3"))
    batch3 = records(kv("k6", "v1"), kv("k7", "v2"))
    partition = ctx.partition

    assert partition.make_leader(LeaderAndIsrPartitionState(
        controller_epoch=3, leader=leader, leader_epoch=leader_epoch, isr=isr, partition_epoch=1, replicas=replicas,
        is_new=True), ctx.offset_checkpoints, None), "Expected first makeLeader() to return 'leader changed'"
    assert partition.get_leader_epoch() == leader_epoch
    assert partition.partition_state.isr == {leader, follower2}

    last_offset_of_first_batch = partition.append_records_to_leader(batch1, AppendOrigin.CLIENT, 0).last_offset
    partition.append_records_to_leader(batch2, AppendOrigin.CLIENT, 0)
    assert partition.log.high_watermark() == partition.local_log_or_exception().log_start_offset

    # the ISR follower moves the HW, below the LEO
    ctx.fetch_follower(partition, follower2, 0)
    ctx.fetch_follower(partition, follower2, last_offset_of_first_batch)
    assert partition.log.high_watermark() == last_offset_of_first_batch, "Expected leader's HW"

    # follower, then leader again, with nothing appended between
    partition.make_follower(LeaderAndIsrPartitionState(
        controller_epoch=3, leader=follower2, leader_epoch=leader_epoch + 1, isr=isr, partition_epoch=1,
        replicas=replicas, is_new=False), ctx.offset_checkpoints, None)
    assert partition.make_leader(LeaderAndIsrPartitionState(
        controller_epoch=3, leader=leader, leader_epoch=leader_epoch + 2, isr=isr, partition_epoch=1,
        replicas=replicas, is_new=False), ctx.offset_checkpoints, None), \
        "Expected makeLeader() to return 'leader changed' after makeFollower()"
    current_leader_epoch_start_offset = partition.local_log_or_exception().log_end_offset()

    partition.append_records_to_leader(batch3, AppendOrigin.CLIENT, 0)

    # a follower below the epoch's start offset does not join
    ctx.fetch_follower(partition, follower1, 0)
    ctx.fetch_follower(partition, follower1, last_offset_of_first_batch)
    assert partition.partition_state.isr == {leader, follower2}

    # at the epoch's start offset it does
    ctx.fetch_follower(partition, follower1, current_leader_epoch_start_offset)

    # pending: only the maximal ISR has it
    assert partition.partition_state.isr == {leader, follower2}
    assert partition.partition_state.maximal_isr == {leader, follower1, follower2}
    assert set(ctx.alter_partition_manager.isr_updates[0].leader_and_isr.isr) == {leader, follower1, follower2}


def test_at_min_isr(ctx: Ctx) -> None:
    # three replicas, an ISR of the leader alone, min ISR 1: at min ISR
    leader = BROKER_ID
    replicas = [leader, BROKER_ID + 1, BROKER_ID + 2]
    assert not ctx.partition.is_at_min_isr()
    ctx.partition.make_leader(LeaderAndIsrPartitionState(
        controller_epoch=3, leader=leader, leader_epoch=8, isr=[leader], partition_epoch=1, replicas=replicas,
        is_new=True), ctx.offset_checkpoints, None)
    assert ctx.partition.is_at_min_isr()


def test_is_under_min_isr(ctx: Ctx) -> None:
    ctx.config_repository.set_topic_config(ctx.topic_partition.topic, "min.insync.replicas", "2")
    partition = ctx.partition = ctx.new_partition()
    partition.create_log_if_not_exists(False, False, ctx.offset_checkpoints, None)
    partition.make_leader(LeaderAndIsrPartitionState(
        controller_epoch=0, leader=BROKER_ID, leader_epoch=0, isr=[BROKER_ID, BROKER_ID + 1],
        replicas=[BROKER_ID, BROKER_ID + 1], partition_epoch=1, is_new=True), ctx.offset_checkpoints, None)
    assert not partition.is_under_min_isr()

    partition.make_leader(LeaderAndIsrPartitionState(
        controller_epoch=0, leader=BROKER_ID, leader_epoch=1, isr=[BROKER_ID], partition_epoch=2,
        replicas=[BROKER_ID, BROKER_ID + 1], is_new=False), ctx.offset_checkpoints, None)
    assert partition.is_under_min_isr()


def _leader_with_seeded_log(ctx: Ctx, num_records: int, isr: list[int], partition: Partition | None = None,
                            leader_epoch: int = 5, seed_epoch: int = 4) -> Partition:
    """The common start of the ISR cases: a seeded log, then leader of [broker, remote] with `isr`."""
    partition = ctx.partition if partition is None else partition
    log = ctx.log_manager.get_or_create_log(ctx.topic_partition, topic_id=None)
    ctx.seed_log_data(log, num_records, seed_epoch)
    partition.create_log_if_not_exists(False, False, ctx.offset_checkpoints, None)
    assert partition.make_leader(LeaderAndIsrPartitionState(
        controller_epoch=0, leader=BROKER_ID, leader_epoch=leader_epoch, isr=isr, partition_epoch=1,
        replicas=[BROKER_ID, REMOTE_REPLICA_ID], is_new=True), ctx.offset_checkpoints, None), \
        "Expected become leader transition to succeed"
    return partition


def test_update_follower_fetch_state(ctx: Ctx) -> None:
    remote_broker_id = BROKER_ID + 1
    initialize_time_ms = ctx.time.milliseconds()
    partition = _leader_with_seeded_log(ctx, 6, [BROKER_ID, remote_broker_id])

    ctx.assert_replica_state(partition, remote_broker_id, initialize_time_ms, UNKNOWN_OFFSET, UNKNOWN_OFFSET)

    ctx.time.sleep(500)
    ctx.fetch_follower(partition, remote_broker_id, 3)
    ctx.assert_replica_state(partition, remote_broker_id, initialize_time_ms, 3, 0)

    ctx.time.sleep(500)
    ctx.fetch_follower(partition, remote_broker_id, 6)
    ctx.assert_replica_state(partition, remote_broker_id, ctx.time.milliseconds(), 6, 0)


def test_is_replica_isr_eligible_with_empty_replica_map(ctx: Ctx) -> None:
    mock_metadata_cache = kraft_metadata_cache()
    remote_broker_id = BROKER_ID + 1
    add_broker_epoch_to_mock_metadata_cache(mock_metadata_cache, [BROKER_ID, remote_broker_id])
    partition = ctx.new_partition(metadata_cache=mock_metadata_cache)
    initialize_time_ms = ctx.time.milliseconds()
    _leader_with_seeded_log(ctx, 6, [BROKER_ID], partition)

    # what Kafka's spy answers the fetch with: the topic is deleted meanwhile, then the follower's state comes
    def fetch_while_deleted() -> None:
        partition.delete()
        replica = Replica(remote_broker_id, ctx.topic_partition, mock_metadata_cache)
        partition.update_follower_fetch_state(replica, LogOffsetMetadata(0), 0, initialize_time_ms, 0,
                                              default_broker_epoch(remote_broker_id))

    fetch_while_deleted()  # does not throw


def test_invalid_alter_partition_requests_are_not_retried(ctx: Ctx) -> None:
    remote_broker_id = BROKER_ID + 1
    partition = _leader_with_seeded_log(ctx, 10, [BROKER_ID])
    assert partition.partition_state.isr == {BROKER_ID}
    ctx.assert_replica_state(partition, remote_broker_id, 0, UNKNOWN_OFFSET, UNKNOWN_OFFSET)

    ctx.fetch_follower(partition, remote_broker_id, 10)

    # the ISR is unchanged and the expansion is pending
    assert partition.in_sync_replica_ids() == {BROKER_ID}
    assert partition.partition_state.maximal_isr == {BROKER_ID, remote_broker_id}
    assert len(ctx.alter_partition_manager.isr_updates) == 1
    assert set(ctx.alter_partition_manager.isr_updates[0].leader_and_isr.isr) == {BROKER_ID, remote_broker_id}

    ctx.alter_partition_manager.fail_isr_update(Errors.INVALID_REQUEST)

    # no change, no retry
    assert partition.in_sync_replica_ids() == {BROKER_ID}
    assert partition.partition_state.maximal_isr == {BROKER_ID, remote_broker_id}
    assert len(ctx.alter_partition_manager.isr_updates) == 0
    listener = ctx.alter_partition_listener
    assert (listener.expands, listener.shrinks, listener.failures) == (0, 0, 1)


def test_isr_expansion(ctx: Ctx) -> None:
    remote_broker_id = BROKER_ID + 1
    partition = _leader_with_seeded_log(ctx, 10, [BROKER_ID])
    assert partition.partition_state.isr == {BROKER_ID}
    ctx.assert_replica_state(partition, remote_broker_id, 0, UNKNOWN_OFFSET, UNKNOWN_OFFSET)

    ctx.fetch_follower(partition, remote_broker_id, 3)
    assert partition.partition_state.isr == {BROKER_ID}
    ctx.assert_replica_state(partition, remote_broker_id, 0, 3, 0)

    ctx.fetch_follower(partition, remote_broker_id, 10)
    assert len(ctx.alter_partition_manager.isr_updates) == 1
    isr_item = ctx.alter_partition_manager.isr_updates[0]
    assert isr_item.leader_and_isr.isr == [BROKER_ID, remote_broker_id]
    for broker_state in isr_item.leader_and_isr.isr_with_broker_epoch:
        # not a KRaft metadata cache: no broker epochs
        assert broker_state.broker_epoch == -1
    assert partition.partition_state.isr == {BROKER_ID}
    assert partition.partition_state.maximal_isr == {BROKER_ID, remote_broker_id}
    ctx.assert_replica_state(partition, remote_broker_id, ctx.time.milliseconds(), 10, 0)

    ctx.alter_partition_manager.complete_isr_update(2)
    assert partition.partition_state.isr == {BROKER_ID, remote_broker_id}
    listener = ctx.alter_partition_listener
    assert (listener.expands, listener.shrinks, listener.failures) == (1, 0, 0)


def test_isr_not_expanded_if_update_fails(ctx: Ctx) -> None:
    remote_broker_id = BROKER_ID + 1
    partition = _leader_with_seeded_log(ctx, 10, [BROKER_ID])
    ctx.assert_replica_state(partition, remote_broker_id, 0, UNKNOWN_OFFSET, UNKNOWN_OFFSET)

    ctx.fetch_follower(partition, remote_broker_id, 10)

    # the follower's state moved, the ISR did not
    assert partition.in_sync_replica_ids() == {BROKER_ID}
    assert partition.partition_state.maximal_isr == {BROKER_ID, remote_broker_id}
    assert len(ctx.alter_partition_manager.isr_updates) == 1
    ctx.assert_replica_state(partition, remote_broker_id, ctx.time.milliseconds(), 10, 0)

    ctx.alter_partition_manager.fail_isr_update(Errors.INVALID_UPDATE_VERSION)

    # no change, no retry
    assert partition.in_sync_replica_ids() == {BROKER_ID}
    assert partition.partition_state.maximal_isr == {BROKER_ID, remote_broker_id}
    assert len(ctx.alter_partition_manager.isr_updates) == 0
    listener = ctx.alter_partition_listener
    assert (listener.expands, listener.shrinks, listener.failures) == (0, 0, 1)


def _kraft_leader(ctx: Ctx, metadata_cache: MagicMock, replicas: list[int], isr: list[int],
                  is_new: bool = True) -> tuple[Partition, UnifiedLog]:
    """A seeded log (10 records, epoch 4) and a partition on a KRaft metadata cache, leader at epoch 5."""
    log = ctx.log_manager.get_or_create_log(ctx.topic_partition, topic_id=None)
    ctx.seed_log_data(log, 10, 4)
    partition = ctx.new_partition(metadata_cache=metadata_cache)
    partition.create_log_if_not_exists(False, False, ctx.offset_checkpoints, None)
    assert partition.make_leader(LeaderAndIsrPartitionState(
        controller_epoch=0, leader=BROKER_ID, leader_epoch=5, isr=isr, partition_epoch=1, replicas=replicas,
        is_new=is_new), ctx.offset_checkpoints, None), "Expected become leader transition to succeed"
    assert partition.partition_state.isr == set(isr)
    assert partition.partition_state.maximal_isr == set(isr)
    return partition, log


@pytest.mark.parametrize("broker_state", ["fenced", "shutdown", "unfenced"])
def test_high_watermark_increases_with_fenced_or_shutdown_follower(ctx: Ctx, broker_state: str) -> None:
    remote_broker_id = BROKER_ID + 1
    replicas = [BROKER_ID, remote_broker_id]
    shrinked_isr = {BROKER_ID}
    metadata_cache = kraft_metadata_cache()
    add_broker_epoch_to_mock_metadata_cache(metadata_cache, replicas)
    partition, log = _kraft_leader(ctx, metadata_cache, replicas, replicas, is_new=False)

    # the follower catches up to the log end
    ctx.fetch_follower(partition, remote_broker_id, log.log_end_offset())
    ctx.assert_replica_state(partition, remote_broker_id, ctx.time.milliseconds(), log.log_end_offset(), 0)
    assert partition.local_log_or_exception().high_watermark() == log.log_end_offset()

    if broker_state == "fenced":
        metadata_cache.is_broker_fenced.side_effect = lambda broker_id: broker_id == remote_broker_id
    elif broker_state == "shutdown":
        metadata_cache.is_broker_shutting_down.side_effect = lambda broker_id: broker_id == remote_broker_id

    ctx.seed_log_data(log, 10, 5)

    # the controller shrinks the ISR
    assert not partition.make_leader(LeaderAndIsrPartitionState(
        controller_epoch=0, leader=BROKER_ID, leader_epoch=5, isr=sorted(shrinked_isr), partition_epoch=2,
        replicas=replicas, is_new=False), ctx.offset_checkpoints, None), "Expected to stay leader"

    assert partition.is_leader()
    assert partition.partition_state.isr == shrinked_isr
    assert partition.partition_state.maximal_isr == shrinked_isr
    assert partition.get_out_of_sync_replicas(partition.replica_lag_time_max_ms) == set()

    # a fenced or shutting-down follower does not hold the HW back; a caught-up eligible one does
    expected = 10 if broker_state == "unfenced" else 20
    assert partition.local_log_or_exception().high_watermark() == expected


@pytest.mark.parametrize("quorum", ["kraft"])  # the "zk" value (ZkMetadataCache.hasAliveBroker) is ZooKeeper mode
def test_isr_not_expanded_if_replica_is_fenced_or_shutdown(ctx: Ctx, quorum: str) -> None:
    remote_broker_id = BROKER_ID + 1
    replicas = [BROKER_ID, remote_broker_id]
    isr = {BROKER_ID}
    metadata_cache = kraft_metadata_cache()
    add_broker_epoch_to_mock_metadata_cache(metadata_cache, replicas)
    eligible = {"value": True}
    metadata_cache.is_broker_fenced.side_effect = lambda broker_id: broker_id == remote_broker_id and \
        not eligible["value"]
    partition, log = _kraft_leader(ctx, metadata_cache, replicas, sorted(isr))
    updates = ctx.alter_partition_manager.isr_updates

    ctx.fetch_follower(partition, remote_broker_id, log.log_end_offset())
    ctx.assert_replica_state(partition, remote_broker_id, ctx.time.milliseconds(), log.log_end_offset(), 0)

    # the expansion is proposed
    assert partition.partition_state.isr == isr
    assert partition.partition_state.maximal_isr == set(replicas)
    assert len(updates) == 1

    # the controller refuses it: the broker is fenced
    ctx.alter_partition_manager.fail_isr_update(Errors.INELIGIBLE_REPLICA)
    assert partition.partition_state.isr == isr
    assert partition.partition_state.maximal_isr == isr
    assert not partition.partition_state.is_inflight
    assert len(updates) == 0

    # the leader learns of the fencing: no proposal
    eligible["value"] = False
    ctx.fetch_follower(partition, remote_broker_id, log.log_end_offset())
    assert partition.partition_state.isr == isr
    assert partition.partition_state.maximal_isr == isr
    assert not partition.partition_state.is_inflight
    assert len(updates) == 0

    # unfenced: proposed again, and committed
    eligible["value"] = True
    ctx.fetch_follower(partition, remote_broker_id, log.log_end_offset())
    assert partition.partition_state.isr == isr
    assert partition.partition_state.maximal_isr == set(replicas)
    assert partition.partition_state.is_inflight
    assert len(updates) == 1

    ctx.alter_partition_manager.complete_isr_update(1)
    assert partition.partition_state.isr == set(replicas)
    assert partition.partition_state.maximal_isr == set(replicas)
    assert not partition.partition_state.is_inflight
    assert len(updates) == 0


def test_isr_can_expanded_if_broker_epochs_match_with_kraft_metadata_cache(ctx: Ctx) -> None:
    remote_broker_id1 = BROKER_ID + 1
    remote_broker_id2 = BROKER_ID + 2
    replicas = [BROKER_ID, remote_broker_id1, remote_broker_id2]
    isr = {BROKER_ID, remote_broker_id2}
    metadata_cache = kraft_metadata_cache()
    partition, log = _kraft_leader(ctx, metadata_cache, replicas, sorted(isr))

    add_broker_epoch_to_mock_metadata_cache(metadata_cache, [BROKER_ID, remote_broker_id2])
    # the follower's broker epoch is bumped right after its fetch: the first answer is the old epoch
    wrong_replica_epoch = default_broker_epoch(remote_broker_id1) - 1
    answers = [wrong_replica_epoch, default_broker_epoch(remote_broker_id1)]

    def get_alive_broker_epoch(broker_id: int) -> int | None:
        if broker_id == remote_broker_id1:
            return answers.pop(0) if len(answers) > 1 else answers[0]
        return metadata_cache.alive_broker_epochs.get(broker_id)

    metadata_cache.get_alive_broker_epoch.side_effect = get_alive_broker_epoch
    ctx.fetch_follower(partition, remote_broker_id1, log.log_end_offset(), replica_epoch=wrong_replica_epoch)
    ctx.assert_replica_state(partition, remote_broker_id1, ctx.time.milliseconds(), log.log_end_offset(), 0,
                             broker_epoch=wrong_replica_epoch)

    # not expanded: the epochs differ
    assert partition.partition_state.isr == isr
    assert partition.partition_state.maximal_isr == isr
    assert len(ctx.alter_partition_manager.isr_updates) == 0

    # with the right epoch
    ctx.fetch_follower(partition, remote_broker_id1, log.log_end_offset())
    ctx.assert_replica_state(partition, remote_broker_id1, ctx.time.milliseconds(), log.log_end_offset(), 0)

    assert partition.partition_state.isr == isr
    assert partition.partition_state.maximal_isr == set(replicas)
    assert len(ctx.alter_partition_manager.isr_updates) == 1
    for broker_state in ctx.alter_partition_manager.isr_updates[0].leader_and_isr.isr_with_broker_epoch:
        if broker_state.broker_id == remote_broker_id2:
            # no fetch from it yet: no broker epoch
            assert broker_state.broker_epoch == -1
        else:
            assert broker_state.broker_epoch == default_broker_epoch(broker_state.broker_id)


def test_fence_follower_fetch_with_stale_broker_epoch(ctx: Ctx) -> None:
    remote_broker_id1 = BROKER_ID + 1
    replicas = [BROKER_ID, remote_broker_id1]
    metadata_cache = kraft_metadata_cache()
    add_broker_epoch_to_mock_metadata_cache(metadata_cache, replicas)
    partition, log = _kraft_leader(ctx, metadata_cache, replicas, replicas)

    expected_replica_epoch = default_broker_epoch(remote_broker_id1)
    ctx.fetch_follower(partition, remote_broker_id1, log.log_end_offset(), replica_epoch=expected_replica_epoch)

    # a stale broker epoch may not update the fetch state
    wrong_replica_epoch = default_broker_epoch(remote_broker_id1) - 1
    with pytest.raises(NotLeaderOrFollowerException):
        ctx.fetch_follower(partition, remote_broker_id1, log.log_end_offset(), replica_epoch=wrong_replica_epoch)

    ctx.assert_replica_state(partition, remote_broker_id1, ctx.time.milliseconds(), log.log_end_offset(), 0,
                             broker_epoch=expected_replica_epoch)


def test_isr_not_expanded_if_replica_is_in_controlled_shutdown(ctx: Ctx) -> None:
    remote_broker_id = BROKER_ID + 1
    replicas = [BROKER_ID, remote_broker_id]
    isr = {BROKER_ID}
    metadata_cache = kraft_metadata_cache()
    add_broker_epoch_to_mock_metadata_cache(metadata_cache, replicas)
    partition, log = _kraft_leader(ctx, metadata_cache, replicas, sorted(isr))
    updates = ctx.alter_partition_manager.isr_updates

    ctx.fetch_follower(partition, remote_broker_id, log.log_end_offset())
    ctx.assert_replica_state(partition, remote_broker_id, ctx.time.milliseconds(), log.log_end_offset(), 0)
    assert partition.partition_state.isr == isr
    assert partition.partition_state.maximal_isr == set(replicas)
    assert len(updates) == 1

    # refused: the broker is in controlled shutdown
    ctx.alter_partition_manager.fail_isr_update(Errors.INELIGIBLE_REPLICA)
    assert partition.partition_state.isr == isr
    assert partition.partition_state.maximal_isr == isr
    assert not partition.partition_state.is_inflight
    assert len(updates) == 0

    metadata_cache.is_broker_shutting_down.side_effect = lambda broker_id: broker_id == remote_broker_id
    ctx.fetch_follower(partition, remote_broker_id, log.log_end_offset())
    assert partition.partition_state.isr == isr
    assert partition.partition_state.maximal_isr == isr
    assert not partition.partition_state.is_inflight
    assert len(updates) == 0

    metadata_cache.is_broker_shutting_down.side_effect = lambda broker_id: False
    ctx.fetch_follower(partition, remote_broker_id, log.log_end_offset())
    assert partition.partition_state.isr == isr
    assert partition.partition_state.maximal_isr == set(replicas)
    assert partition.partition_state.is_inflight
    assert len(updates) == 1

    ctx.alter_partition_manager.complete_isr_update(1)
    assert partition.partition_state.isr == set(replicas)
    assert partition.partition_state.maximal_isr == set(replicas)
    assert not partition.partition_state.is_inflight
    assert len(updates) == 0


def test_retry_shrink_isr(ctx: Ctx) -> None:
    log = ctx.log_manager.get_or_create_log(ctx.topic_partition, topic_id=None)
    ctx.seed_log_data(log, 10, 4)
    remote_broker_id = BROKER_ID + 1
    replicas = [BROKER_ID, remote_broker_id]
    topic_id = Uuid.random_uuid()
    partition = ctx.partition
    updates = ctx.alter_partition_manager.isr_updates
    listener = ctx.alter_partition_listener

    assert ctx.make_leader(topic_id, 0, 5, replicas, replicas, 1, True)
    assert partition.local_log_or_exception().high_watermark() == 0

    # long enough for the follower to drop out
    ctx.time.sleep(partition.replica_lag_time_max_ms + 1)
    partition.maybe_shrink_isr()
    assert len(updates) == 1
    assert updates[0].leader_and_isr.isr == [BROKER_ID]
    assert partition.partition_state.isr == set(replicas)
    assert partition.partition_state.maximal_isr == set(replicas)

    # fails, retried at once
    ctx.alter_partition_manager.fail_isr_update(Errors.NETWORK_EXCEPTION)
    assert listener.shrinks == 0
    assert listener.failures == 1
    assert partition.get_partition_epoch() == 1
    assert len(updates) == 1
    assert partition.partition_state.isr == set(replicas)
    assert partition.partition_state.maximal_isr == set(replicas)
    assert partition.local_log_or_exception().high_watermark() == 0

    # the retry succeeds: the HW moves to the LEO
    ctx.alter_partition_manager.complete_isr_update(2)
    assert listener.shrinks == 1
    assert partition.get_partition_epoch() == 2
    assert len(updates) == 0
    assert partition.partition_state.isr == {BROKER_ID}
    assert partition.partition_state.maximal_isr == {BROKER_ID}
    assert partition.local_log_or_exception().high_watermark() == log.log_end_offset()


def test_maybe_shrink_isr(ctx: Ctx) -> None:
    remote_broker_id1 = BROKER_ID + 1
    remote_broker_id2 = BROKER_ID + 2
    replicas = [BROKER_ID, remote_broker_id1, remote_broker_id2]
    initialize_time_ms = ctx.time.milliseconds()
    metadata_cache = kraft_metadata_cache()
    add_broker_epoch_to_mock_metadata_cache(metadata_cache, replicas)
    partition, log = _kraft_leader(ctx, metadata_cache, replicas, replicas)
    updates = ctx.alter_partition_manager.isr_updates
    listener = ctx.alter_partition_listener

    assert partition.local_log_or_exception().high_watermark() == 0
    ctx.fetch_follower(partition, remote_broker_id1, log.log_end_offset())
    ctx.assert_replica_state(partition, remote_broker_id2, initialize_time_ms, UNKNOWN_OFFSET, UNKNOWN_OFFSET)

    # just made leader: the ISR counts as caught up
    partition.maybe_shrink_isr()
    assert len(updates) == 0
    assert partition.partition_state.isr == set(replicas)

    # no fetch for longer than the lag: shrink
    ctx.time.sleep(partition.replica_lag_time_max_ms + 1)
    partition.maybe_shrink_isr()
    assert listener.shrinks == 0
    assert len(updates) == 1
    assert updates[0].leader_and_isr.isr == [BROKER_ID, remote_broker_id1]
    for broker_state in updates[0].leader_and_isr.isr_with_broker_epoch:
        assert broker_state.broker_epoch == default_broker_epoch(broker_state.broker_id)
    assert partition.partition_state.isr == set(replicas)
    assert partition.partition_state.maximal_isr == set(replicas)
    assert partition.local_log_or_exception().high_watermark() == 0

    # committed: the HW moves
    ctx.alter_partition_manager.complete_isr_update(2)
    assert listener.shrinks == 1
    assert partition.get_partition_epoch() == 2
    assert len(updates) == 0
    assert partition.partition_state.isr == {BROKER_ID, remote_broker_id1}
    assert partition.partition_state.maximal_isr == {BROKER_ID, remote_broker_id1}
    assert partition.local_log_or_exception().high_watermark() == log.log_end_offset()


def test_high_watermark_advance_should_not_advance_when_under_min_isr(ctx: Ctx) -> None:

    ctx.config_repository.set_topic_config(ctx.topic_partition.topic, "min.insync.replicas", "3")
    log = ctx.log_manager.get_or_create_log(ctx.topic_partition, topic_id=None)
    ctx.seed_log_data(log, 10, 4)
    remote_broker_id1 = BROKER_ID + 1
    remote_broker_id2 = BROKER_ID + 2
    replicas = [BROKER_ID, remote_broker_id1, remote_broker_id2]
    isr = [BROKER_ID, remote_broker_id1]
    metadata_cache = kraft_metadata_cache()
    add_broker_epoch_to_mock_metadata_cache(metadata_cache, replicas)
    ctx.inter_broker_protocol_version = MetadataVersion.IBP_3_7_IV2
    partition = ctx.new_partition(metadata_cache=metadata_cache)
    partition.create_log_if_not_exists(False, False, ctx.offset_checkpoints, None)
    assert partition.make_leader(LeaderAndIsrPartitionState(
        controller_epoch=0, leader=BROKER_ID, leader_epoch=5, isr=isr, partition_epoch=1, replicas=replicas,
        is_new=True), ctx.offset_checkpoints, None), "Expected become leader transition to succeed"

    assert partition.is_under_min_isr()
    assert partition.local_log_or_exception().high_watermark() == 0

    ctx.fetch_follower(partition, remote_broker_id1, log.log_end_offset())
    assert partition.local_log_or_exception().high_watermark() == 0

    # the maximal ISR reaches min ISR, the committed one does not: no advance
    ctx.fetch_follower(partition, remote_broker_id2, log.log_end_offset())
    assert partition.local_log_or_exception().high_watermark() == 0
    assert len(partition.partition_state.maximal_isr) == 3
    assert len(ctx.alter_partition_manager.isr_updates) == 1

    ctx.alter_partition_manager.complete_isr_update(2)
    assert not partition.is_under_min_isr()
    assert partition.local_log_or_exception().high_watermark() == log.log_end_offset()


def _seeded_leader(ctx: Ctx, isr: list[int], replicas: list[int] | None = None) -> UnifiedLog:
    log = ctx.log_manager.get_or_create_log(ctx.topic_partition, topic_id=None)
    ctx.seed_log_data(log, 10, 4)
    replicas = [BROKER_ID, REMOTE_REPLICA_ID] if replicas is None else replicas
    assert ctx.make_leader(None, 0, 5, isr, replicas, 1, True)
    return log


def test_alter_isr_leader_and_isr_race(ctx: Ctx) -> None:
    remote_broker_id = BROKER_ID + 1
    replicas = [BROKER_ID, remote_broker_id]
    initialize_time_ms = ctx.time.milliseconds()
    _seeded_leader(ctx, replicas)
    partition = ctx.partition
    assert partition.local_log_or_exception().high_watermark() == 0
    ctx.assert_replica_state(partition, remote_broker_id, initialize_time_ms, UNKNOWN_OFFSET, UNKNOWN_OFFSET)

    ctx.time.sleep(partition.replica_lag_time_max_ms + 1)
    partition.maybe_shrink_isr()
    assert partition.partition_state.is_inflight

    # new metadata resets the ISR state
    assert not ctx.make_leader(None, 0, 5, replicas, replicas, 2, False)
    assert partition.local_log_or_exception().high_watermark() == 0
    assert not partition.partition_state.is_inflight, "ISR should be committed and not inflight"

    # the earlier request is still in flight: no new one
    ctx.time.sleep(partition.replica_lag_time_max_ms + 1)
    partition.maybe_shrink_isr()
    assert not partition.partition_state.is_inflight, "ISR should still be committed and not inflight"

    # its answer arrives (ignored); now changes may be proposed again
    ctx.alter_partition_manager.complete_isr_update(10)
    partition.maybe_shrink_isr()
    assert partition.partition_state.is_inflight, "ISR should be pending a shrink"


def test_should_not_shrink_isr_if_previous_fetch_is_caught_up(ctx: Ctx) -> None:
    remote_broker_id = BROKER_ID + 1
    replicas = [BROKER_ID, remote_broker_id]
    initialize_time_ms = ctx.time.milliseconds()
    log = _seeded_leader(ctx, replicas)
    partition = ctx.partition
    assert partition.local_log_or_exception().high_watermark() == 0
    ctx.assert_replica_state(partition, remote_broker_id, initialize_time_ms, UNKNOWN_OFFSET, UNKNOWN_OFFSET)

    # a first fetch a little later, not at the log end yet
    ctx.time.sleep(5000)
    first_fetch_time_ms = ctx.time.milliseconds()
    ctx.fetch_follower(partition, remote_broker_id, 5, fetch_time_ms=first_fetch_time_ms)
    ctx.assert_replica_state(partition, remote_broker_id, initialize_time_ms, 5, 0)
    assert partition.local_log_or_exception().high_watermark() == 5

    # new data; the follower reaches the old end, more than the max lag after the start
    ctx.time.sleep(5001)
    ctx.seed_log_data(log, 5, 5)
    ctx.fetch_follower(partition, remote_broker_id, 10, fetch_time_ms=ctx.time.milliseconds())
    ctx.assert_replica_state(partition, remote_broker_id, first_fetch_time_ms, 10, 0)
    assert partition.local_log_or_exception().high_watermark() == 10

    # it had caught up with the leader as of its first fetch: no shrink
    partition.maybe_shrink_isr()
    assert partition.partition_state.isr == set(replicas)
    assert len(ctx.alter_partition_manager.isr_updates) == 0


def test_should_not_shrink_isr_if_follower_caught_up_to_log_end(ctx: Ctx) -> None:
    remote_broker_id = BROKER_ID + 1
    replicas = [BROKER_ID, remote_broker_id]
    initialize_time_ms = ctx.time.milliseconds()
    _seeded_leader(ctx, replicas)
    partition = ctx.partition
    assert partition.local_log_or_exception().high_watermark() == 0
    ctx.assert_replica_state(partition, remote_broker_id, initialize_time_ms, UNKNOWN_OFFSET, UNKNOWN_OFFSET)

    ctx.fetch_follower(partition, remote_broker_id, 10)
    ctx.assert_replica_state(partition, remote_broker_id, ctx.time.milliseconds(), 10, 0)
    assert partition.local_log_or_exception().high_watermark() == 10

    ctx.time.sleep(30001)
    # at the leader's log end: no shrink, however long ago
    partition.maybe_shrink_isr()
    assert partition.partition_state.isr == set(replicas)
    assert len(ctx.alter_partition_manager.isr_updates) == 0


def test_isr_not_shrunk_if_update_fails(ctx: Ctx) -> None:
    remote_broker_id = BROKER_ID + 1
    replicas = [BROKER_ID, remote_broker_id]
    initialize_time_ms = ctx.time.milliseconds()
    _seeded_leader(ctx, replicas)
    partition = ctx.partition
    assert partition.local_log_or_exception().high_watermark() == 0
    ctx.assert_replica_state(partition, remote_broker_id, initialize_time_ms, UNKNOWN_OFFSET, UNKNOWN_OFFSET)

    ctx.time.sleep(30001)
    partition.maybe_shrink_isr()
    assert partition.in_sync_replica_ids() == set(replicas)
    assert len(ctx.alter_partition_manager.isr_updates) == 1
    assert partition.local_log_or_exception().high_watermark() == 0

    ctx.alter_partition_manager.fail_isr_update(Errors.INVALID_UPDATE_VERSION)

    # still pending, until new metadata comes
    assert isinstance(partition.partition_state, PendingShrinkIsr)
    assert partition.in_sync_replica_ids() == set(replicas)
    assert len(ctx.alter_partition_manager.isr_updates) == 0
    assert partition.local_log_or_exception().high_watermark() == 0


def _handle_alter_isr_failure(ctx: Ctx, error: Errors, callback: Callable[[int, int, Partition], None]) -> None:
    remote_broker_id = BROKER_ID + 1
    _seeded_leader(ctx, [BROKER_ID])
    partition = ctx.partition
    assert partition.local_log_or_exception().high_watermark() == 10
    ctx.assert_replica_state(partition, remote_broker_id, 0, UNKNOWN_OFFSET, UNKNOWN_OFFSET)

    # an expansion is tried
    first_fetch_time_ms = ctx.time.milliseconds()
    ctx.fetch_follower(partition, remote_broker_id, 10, fetch_time_ms=first_fetch_time_ms)
    assert partition.in_sync_replica_ids() == {BROKER_ID}
    assert partition.partition_state.maximal_isr == {BROKER_ID, remote_broker_id}
    assert len(ctx.alter_partition_manager.isr_updates) == 1
    ctx.assert_replica_state(partition, remote_broker_id, first_fetch_time_ms, 10, 0)

    ctx.alter_partition_manager.fail_isr_update(error)
    callback(BROKER_ID, remote_broker_id, partition)


def _assert_pending_without_retry(ctx: Ctx) -> Callable[[int, int, Partition], None]:
    def check(broker_id: int, remote_broker_id: int, partition: Partition) -> None:
        assert partition.partition_state.isr == {broker_id}
        assert partition.partition_state.maximal_isr == {broker_id, remote_broker_id}
        assert len(ctx.alter_partition_manager.isr_updates) == 0
    return check


def test_alter_isr_new_leader_elected(ctx: Ctx) -> None:
    _handle_alter_isr_failure(ctx, Errors.NEW_LEADER_ELECTED, _assert_pending_without_retry(ctx))


def test_alter_isr_unknown_topic(ctx: Ctx) -> None:
    _handle_alter_isr_failure(ctx, Errors.UNKNOWN_TOPIC_OR_PARTITION, _assert_pending_without_retry(ctx))


def test_alter_isr_invalid_version(ctx: Ctx) -> None:
    _handle_alter_isr_failure(ctx, Errors.INVALID_UPDATE_VERSION, _assert_pending_without_retry(ctx))


def test_alter_isr_unexpected_error(ctx: Ctx) -> None:
    def check(broker_id: int, remote_broker_id: int, partition: Partition) -> None:
        # retried
        assert partition.partition_state.isr == {broker_id}
        assert partition.partition_state.maximal_isr == {broker_id, remote_broker_id}
        assert len(ctx.alter_partition_manager.isr_updates) == 1

    _handle_alter_isr_failure(ctx, Errors.UNKNOWN_SERVER_ERROR, check)


def _create_client_response_with_alter_partition_response(topic_partition: TopicPartition, partition_error_code: int,
                                                           isr: list[int] | None = None, leader_epoch: int = 0,
                                                           partition_epoch: int = 0) -> ClientResponse:
    """The answer by topic name, as an AlterPartition of version 0 or 1 has it."""
    response = build(ApiKeys.ALTER_PARTITION.response_schema(1), throttle_time=0, error_code=0, topics=[{
        "topic_name": topic_partition.topic, "partitions": [{
            "partition_index": topic_partition.partition, "leader_id": 0, "isr": tuple(isr or ()),
            "leader_epoch": leader_epoch,
            "partition_epoch": partition_epoch, "error_code": partition_error_code}]}])
    return ClientResponse(ApiKeys.ALTER_PARTITION, None, response_body=response)


def test_partition_should_retry_alter_partition_request(ctx: Ctx) -> None:
    # the first answer fails the partition with a retriable error (the partition resubmits), the second commits
    leader_epoch = 5
    follower1, follower2, follower3 = BROKER_ID + 1, BROKER_ID + 2, BROKER_ID + 3
    replicas = [BROKER_ID, follower1, follower2, follower3]
    isr = [BROKER_ID, follower1, follower2]
    partition_epoch = 1
    answers = [
        _create_client_response_with_alter_partition_response(ctx.topic_partition, Errors.UNKNOWN_SERVER_ERROR.code),
        _create_client_response_with_alter_partition_response(
            ctx.topic_partition, Errors.NONE.code, [BROKER_ID, follower1, follower2, follower3], leader_epoch,
            partition_epoch + 1),
    ]
    mock_channel_manager = MagicMock()
    mock_channel_manager.send_request.side_effect = lambda request, handler: handler.on_complete(
        answers[mock_channel_manager.send_request.call_count - 1])
    alter_partition_manager = DefaultAlterPartitionManager(
        mock_channel_manager, MagicMock(), ctx.time, BROKER_ID, lambda: 0, lambda: MetadataVersion.IBP_3_0_IV0)
    ctx.partition = ctx.new_partition(alter_partition_manager=alter_partition_manager)
    log = ctx.log_manager.get_or_create_log(ctx.topic_partition, topic_id=None)
    ctx.seed_log_data(log, 10, 4)

    assert ctx.make_leader(None, 0, leader_epoch, isr, replicas, partition_epoch, True)
    partition = ctx.partition
    assert partition.local_log_or_exception().high_watermark() == 0

    ctx.fetch_follower(partition, follower3, 10)

    assert partition.partition_state.isr == {BROKER_ID, follower1, follower2, follower3}
    assert partition.get_partition_epoch() == partition_epoch + 1
    assert mock_channel_manager.send_request.call_count == 2
    assert not partition.partition_state.is_inflight


def test_single_in_flight_alter_isr(ctx: Ctx) -> None:
    follower1, follower2, follower3 = BROKER_ID + 1, BROKER_ID + 2, BROKER_ID + 3
    replicas = [BROKER_ID, follower1, follower2, follower3]
    isr = [BROKER_ID, follower1, follower2]
    _seeded_leader(ctx, isr, replicas)
    partition = ctx.partition
    assert partition.local_log_or_exception().high_watermark() == 0

    ctx.fetch_follower(partition, follower3, 10)
    assert partition.partition_state.isr == set(isr)
    assert partition.partition_state.maximal_isr == set(replicas)
    assert len(ctx.alter_partition_manager.isr_updates) == 1

    # one change at a time: nothing more while it is in flight
    ctx.time.sleep(partition.replica_lag_time_max_ms + 1)
    partition.maybe_shrink_isr()
    assert len(ctx.alter_partition_manager.isr_updates) == 1


def test_use_checkpoint_to_initialize_high_watermark(ctx: Ctx) -> None:
    log = ctx.log_manager.get_or_create_log(ctx.topic_partition, topic_id=None)
    ctx.seed_log_data(log, 6, 5)
    ctx.offset_checkpoints.checkpoints[(str(ctx.log_dir1.absolute()), ctx.topic_partition)] = 4
    # Kafka's test relies on the log landing in its first log dir
    assert log.parent_dir() == str(ctx.log_dir1.absolute())

    replicas = [BROKER_ID, BROKER_ID + 1]
    ctx.partition.make_leader(LeaderAndIsrPartitionState(
        controller_epoch=3, leader=BROKER_ID, leader_epoch=6, isr=replicas, partition_epoch=1, replicas=replicas,
        is_new=False), ctx.offset_checkpoints, None)
    assert ctx.partition.local_log_or_exception().high_watermark() == 4


def _check_topic_id(expected_topic_id: Uuid, partition: Partition) -> None:
    assert partition.topic_id() == expected_topic_id
    assert partition.log is not None
    log = partition.log
    assert log.topic_id() == expected_topic_id
    assert log.partition_metadata_file.exists()
    assert log.partition_metadata_file.read().topic_id == expected_topic_id


def _topic_id_and_partition_metadata_file(ctx: Ctx, as_leader: bool) -> None:
    topic_id = Uuid.random_uuid()
    replicas = [BROKER_ID, BROKER_ID + 1]
    state = LeaderAndIsrPartitionState(controller_epoch=3, leader=BROKER_ID, leader_epoch=5, isr=replicas,
                                       partition_epoch=1, replicas=replicas, is_new=False)

    def change(partition: Partition, the_topic_id: Uuid | None) -> bool:
        if as_leader:
            return partition.make_leader(state, ctx.offset_checkpoints, the_topic_id)
        return partition.make_follower(state, ctx.offset_checkpoints, the_topic_id)

    change(ctx.partition, topic_id)
    _check_topic_id(topic_id, ctx.partition)

    # a new Partition object for the same partition: no log yet, but the id comes from the log manager
    partition2 = ctx.new_partition()
    assert partition2.topic_id() == topic_id
    assert partition2.log is None

    # another topic id does not overwrite the log's
    with pytest.raises(InconsistentTopicIdException):
        change(partition2, Uuid.random_uuid())

    # no topic id: the original log
    change(partition2, None)
    _check_topic_id(topic_id, partition2)


def test_topic_id_and_partition_metadata_file_for_leader(ctx: Ctx) -> None:
    _topic_id_and_partition_metadata_file(ctx, as_leader=True)


def test_topic_id_and_partition_metadata_file_for_follower(ctx: Ctx) -> None:
    _topic_id_and_partition_metadata_file(ctx, as_leader=False)


def test_under_replicated_partitions_correct_semantics(ctx: Ctx) -> None:
    replicas = [BROKER_ID, BROKER_ID + 1, BROKER_ID + 2]
    leader_state = LeaderAndIsrPartitionState(controller_epoch=3, leader=BROKER_ID, leader_epoch=6,
                                              isr=[BROKER_ID, BROKER_ID + 1], partition_epoch=1, replicas=replicas,
                                              is_new=False)
    ctx.partition.make_leader(leader_state, ctx.offset_checkpoints, None)
    assert ctx.partition.is_under_replicated()

    leader_state.isr = list(replicas)
    ctx.partition.make_leader(leader_state, ctx.offset_checkpoints, None)
    assert not ctx.partition.is_under_replicated()


def test_update_assignment_and_isr(ctx: Ctx) -> None:
    from kafka_edu.v3_9.clients.common.utils.time import SYSTEM
    from kafka_edu.v3_9.core.cluster.partition import OngoingReassignmentState

    partition = Partition(TopicPartition("test", 1), 1000, ctx.inter_broker_protocol_version, 0,
                          lambda: default_broker_epoch(0), SYSTEM, MagicMock(), MagicMock(), MagicMock(), MagicMock(),
                          MagicMock())
    replicas = [0, 1, 2, 3]
    followers = [1, 2, 3]
    isr = {0, 1, 2, 3}
    adding = [4, 5]
    removing = [1, 2]

    # a reassignment in progress
    partition.update_assignment_and_isr(replicas, True, isr, adding, removing, LeaderRecoveryState.RECOVERED)
    assert isinstance(partition.assignment_state, OngoingReassignmentState), \
        "The assignmentState is not OngoingReassignmentState"
    assert list(partition.assignment_state.replicas) == replicas
    assert partition.partition_state.isr == isr
    assert list(partition.assignment_state.adding_replicas) == adding
    assert list(partition.assignment_state.removing_replicas) == removing
    assert [r.broker_id for r in partition.remote_replicas()] == followers

    # a simple assignment
    replicas2 = [0, 3, 4, 5]
    partition.update_assignment_and_isr(replicas2, True, {0, 3, 4, 5}, [], [], LeaderRecoveryState.RECOVERED)
    assert isinstance(partition.assignment_state, SimpleAssignmentState), \
        "The assignmentState is not SimpleAssignmentState"
    assert list(partition.assignment_state.replicas) == replicas2
    assert partition.partition_state.isr == {0, 3, 4, 5}
    assert [r.broker_id for r in partition.remote_replicas()] == [3, 4, 5]

    # a follower keeps no replica states
    replicas3 = [1, 2, 3, 4]
    partition.update_assignment_and_isr(replicas3, False, set(), [], [], LeaderRecoveryState.RECOVERED)
    assert isinstance(partition.assignment_state, SimpleAssignmentState)
    assert list(partition.assignment_state.replicas) == replicas3
    assert partition.partition_state.isr == set()
    assert partition.remote_replicas() == []


class _CountingConfigRepository:
    """`spy(configRepository)`: counts topicConfig calls."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.topic_config_calls: list[str] = []

    def topic_config(self, topic_name: str) -> Any:
        self.topic_config_calls.append(topic_name)
        return self._inner.topic_config(topic_name)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _SpyLogManager:
    """`spy(logManager)`: records initializingLog / finishedInitializingLog; `on_initializing` stands for doAnswer."""

    def __init__(self, inner: Any, on_initializing: Callable[[TopicPartition], None] | None = None) -> None:
        self._inner = inner
        self._on_initializing = on_initializing
        self.initializing: list[TopicPartition] = []
        self.finished: list[TopicPartition] = []

    def initializing_log(self, topic_partition: TopicPartition) -> None:
        self.initializing.append(topic_partition)
        (self._on_initializing or self._inner.initializing_log)(topic_partition)

    def finished_initializing_log(self, topic_partition: TopicPartition, maybe_log: Any) -> None:
        self.finished.append(topic_partition)
        self._inner.finished_initializing_log(topic_partition, maybe_log)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _log_config_case(ctx: Ctx, update: str | None, start: bool) -> int:
    """The three log-config cases: returns how often the topic config was read while creating the log."""
    from kafka_edu.v3_9.storage.storage.internals.log.cleaner_config import CleanerConfig
    from tests.kafka_tests.v3_9.core.log.log_test_utils import create_log_manager

    ctx.log_manager.shutdown()
    spy_config_repository = _CountingConfigRepository(ctx.config_repository)
    ctx.log_manager = log_manager = create_log_manager([ctx.log_dir1, ctx.log_dir2], ctx.log_config,
                                                       spy_config_repository, CleanerConfig(False), ctx.time)
    if start:
        log_manager.startup(set())
    spy_config_repository.topic_config_calls.clear()

    def on_initializing(topic_partition: TopicPartition) -> None:
        log_manager.initializing_log(topic_partition)
        if update == "topic":
            log_manager.topic_config_updated(topic_partition.topic)
        elif update == "broker":
            log_manager.broker_config_updated()

    spy_log_manager = _SpyLogManager(log_manager, on_initializing if update else None)
    partition = Partition(ctx.topic_partition, 30000, ctx.inter_broker_protocol_version, BROKER_ID,
                          lambda: default_broker_epoch(BROKER_ID), ctx.time, ctx.alter_partition_listener,
                          ctx.delayed_operations, ctx.metadata_cache, spy_log_manager, ctx.alter_partition_manager)
    partition.create_log(True, False, ctx.offset_checkpoints, None, None)

    assert spy_log_manager.initializing == [ctx.topic_partition]
    assert spy_log_manager.finished == [ctx.topic_partition]
    return spy_config_repository.topic_config_calls.count(ctx.topic_partition.topic)


def test_log_config_not_dirty(ctx: Ctx) -> None:
    # fetched once
    assert _log_config_case(ctx, None, start=False) == 1


def test_log_config_dirty_as_topic_updated(ctx: Ctx) -> None:
    # fetched again once the log is initialised
    assert _log_config_case(ctx, "topic", start=False) == 2


def test_log_config_dirty_as_broker_updated(ctx: Ctx) -> None:
    assert _log_config_case(ctx, "broker", start=True) == 2


def test_do_not_reset_replica_state_if_leader_epoch_is_not_bumped(ctx: Ctx) -> None:
    leader_id = BROKER_ID
    follower_id = BROKER_ID + 1
    replicas = [leader_id, follower_id]
    leader_epoch = 8
    topic_id = Uuid.random_uuid()
    partition = ctx.partition

    assert partition.make_leader(LeaderAndIsrPartitionState(
        controller_epoch=3, leader=leader_id, leader_epoch=leader_epoch, isr=[leader_id], partition_epoch=1,
        replicas=replicas, is_new=True), ctx.offset_checkpoints, topic_id)
    assert partition.get_partition_epoch() == 1
    assert partition.get_leader_epoch() == leader_epoch
    assert partition.partition_state.isr == {leader_id}

    # outside the ISR: unknown offsets
    ctx.assert_replica_state(partition, follower_id, 0, UNKNOWN_OFFSET, UNKNOWN_OFFSET)

    ctx.fetch_follower(partition, follower_id, 0)
    ctx.assert_replica_state(partition, follower_id, ctx.time.milliseconds(), 0, 0)

    # same leader epoch, newer partition epoch (a reassignment adds replicas without bumping the leader epoch)
    assert not partition.make_leader(LeaderAndIsrPartitionState(
        controller_epoch=3, leader=leader_id, leader_epoch=leader_epoch, isr=[leader_id], partition_epoch=2,
        replicas=replicas, is_new=False), ctx.offset_checkpoints, topic_id)
    assert partition.get_partition_epoch() == 2
    assert partition.get_leader_epoch() == leader_epoch
    assert partition.partition_state.isr == {leader_id}

    # not reset
    ctx.assert_replica_state(partition, follower_id, ctx.time.milliseconds(), 0, 0)


def test_do_not_update_epoch_start_offset_if_leader_epoch_is_not_bumped(ctx: Ctx) -> None:
    from kafka_edu.v3_9.storage.storage.internals.log.epoch_entry import EpochEntry

    leader_id = BROKER_ID
    replicas = [leader_id, BROKER_ID + 1]
    leader_epoch = 8
    topic_id = Uuid.random_uuid()
    partition = ctx.partition

    assert partition.make_leader(LeaderAndIsrPartitionState(
        controller_epoch=3, leader=leader_id, leader_epoch=leader_epoch, isr=[leader_id], partition_epoch=1,
        replicas=replicas, is_new=True), ctx.offset_checkpoints, topic_id)
    assert partition.get_partition_epoch() == 1
    assert partition.get_leader_epoch() == leader_epoch
    assert partition.partition_state.isr == {leader_id}
    assert partition.leader_epoch_start_offset_opt == 0

    leader_log = partition.local_log_or_exception()
    assert leader_log.leader_epoch_cache.latest_entry() == EpochEntry(leader_epoch, 0)

    leader_log.append_as_leader(MemoryRecords.with_records(Compression.NONE, kv("k1", "v1"), kv("k1", "v1"),
                                                           partition_leader_epoch=0), leader_epoch)

    assert not partition.make_leader(LeaderAndIsrPartitionState(
        controller_epoch=3, leader=leader_id, leader_epoch=leader_epoch, isr=[leader_id], partition_epoch=2,
        replicas=replicas, is_new=False), ctx.offset_checkpoints, topic_id)
    assert partition.get_partition_epoch() == 2
    assert partition.get_leader_epoch() == leader_epoch
    assert partition.partition_state.isr == {leader_id}
    assert partition.leader_epoch_start_offset_opt == 0
    assert leader_log.leader_epoch_cache.latest_entry() == EpochEntry(leader_epoch, 0)


def test_ignore_leader_partition_state_change_with_older_partition_epoch(ctx: Ctx) -> None:
    leader_id = BROKER_ID
    leader_epoch = 8
    topic_id = Uuid.random_uuid()
    partition = ctx.partition
    assert partition.make_leader(LeaderAndIsrPartitionState(
        controller_epoch=3, leader=leader_id, leader_epoch=leader_epoch, isr=[leader_id], partition_epoch=1,
        replicas=[leader_id], is_new=True), ctx.offset_checkpoints, topic_id)
    assert partition.get_partition_epoch() == 1
    assert partition.get_leader_epoch() == leader_epoch

    # an older partition epoch: ignored
    assert not partition.make_leader(LeaderAndIsrPartitionState(
        controller_epoch=3, leader=leader_id, leader_epoch=leader_epoch, isr=[leader_id], partition_epoch=0,
        replicas=[leader_id], is_new=False), ctx.offset_checkpoints, topic_id)
    assert partition.get_partition_epoch() == 1
    assert partition.get_leader_epoch() == leader_epoch


def test_ignore_follower_partition_state_change_with_older_partition_epoch(ctx: Ctx) -> None:
    leader_id = BROKER_ID
    follower_id = BROKER_ID + 1
    replicas = [leader_id, follower_id]
    leader_epoch = 8
    topic_id = Uuid.random_uuid()
    partition = ctx.partition
    state = LeaderAndIsrPartitionState(controller_epoch=3, leader=follower_id, leader_epoch=leader_epoch,
                                       isr=[leader_id, follower_id], partition_epoch=1, replicas=replicas,
                                       is_new=True)
    assert partition.make_follower(state, ctx.offset_checkpoints, topic_id)
    assert partition.get_partition_epoch() == 1
    assert partition.get_leader_epoch() == leader_epoch

    assert not partition.make_follower(state, ctx.offset_checkpoints, topic_id)
    assert partition.get_partition_epoch() == 1
    assert partition.get_leader_epoch() == leader_epoch


def test_follower_should_not_have_any_remote_replica_states(ctx: Ctx) -> None:
    local_replica = BROKER_ID
    remote_replica1 = BROKER_ID + 1
    remote_replica2 = BROKER_ID + 2
    replicas = [local_replica, remote_replica1, remote_replica2]
    topic_id = Uuid.random_uuid()
    partition = ctx.partition

    assert partition.make_leader(LeaderAndIsrPartitionState(
        controller_epoch=3, leader=local_replica, leader_epoch=1, isr=replicas, partition_epoch=1,
        replicas=replicas, is_new=True), ctx.offset_checkpoints, topic_id)
    assert partition.get_partition_epoch() == 1
    assert partition.get_leader_epoch() == 1
    assert partition.leader_replica_id_opt == local_replica
    assert partition.partition_state.isr == set(replicas)
    assert [r.broker_id for r in partition.remote_replicas()] == [remote_replica1, remote_replica2]
    assert list(partition.assignment_state.replicas) == replicas

    assert partition.make_follower(LeaderAndIsrPartitionState(
        controller_epoch=3, leader=remote_replica1, leader_epoch=2, isr=replicas, partition_epoch=2,
        replicas=replicas, is_new=False), ctx.offset_checkpoints, topic_id)
    assert partition.get_partition_epoch() == 2
    assert partition.get_leader_epoch() == 2
    assert partition.leader_replica_id_opt == remote_replica1
    assert partition.partition_state.isr == set()
    assert partition.remote_replicas() == []
    assert list(partition.assignment_state.replicas) == replicas


def _leader_of_two(ctx: Ctx) -> Partition:
    partition = ctx.partition
    partition.create_log_if_not_exists(False, False, ctx.offset_checkpoints, None)
    partition.make_leader(LeaderAndIsrPartitionState(
        controller_epoch=0, leader=BROKER_ID, leader_epoch=0, isr=[BROKER_ID, BROKER_ID + 1],
        replicas=[BROKER_ID, BROKER_ID + 1], partition_epoch=1, is_new=True), ctx.offset_checkpoints, None)
    return partition


def test_add_and_remove_listeners(ctx: Ctx) -> None:
    partition = _leader_of_two(ctx)
    listener1 = MockPartitionListener()
    listener2 = MockPartitionListener()

    assert partition.maybe_add_listener(listener1)
    listener1.verify()

    partition.append_records_to_leader(records(kv("k1", "v1")), AppendOrigin.CLIENT, 0)
    listener1.verify()
    listener2.verify()

    assert partition.maybe_add_listener(listener2)
    listener2.verify()

    partition.append_records_to_leader(records(kv("k2", "v2")), AppendOrigin.CLIENT, 0)
    ctx.fetch_follower(partition, BROKER_ID + 1, partition.local_log_or_exception().log_end_offset())
    listener1.verify(expected_high_watermark=partition.local_log_or_exception().log_end_offset())
    listener2.verify(expected_high_watermark=partition.local_log_or_exception().log_end_offset())

    partition.remove_listener(listener1)
    partition.append_records_to_leader(records(kv("k3", "v3")), AppendOrigin.CLIENT, 0)
    ctx.fetch_follower(partition, BROKER_ID + 1, partition.local_log_or_exception().log_end_offset())
    listener1.verify()
    listener2.verify(expected_high_watermark=partition.local_log_or_exception().log_end_offset())


def test_add_listener_fails_when_partition_is_deleted(ctx: Ctx) -> None:
    partition = _leader_of_two(ctx)
    partition.delete()
    assert not partition.maybe_add_listener(MockPartitionListener())


def test_partition_listener_when_log_offsets_changed(ctx: Ctx) -> None:
    partition = _leader_of_two(ctx)
    listener = MockPartitionListener()
    assert partition.maybe_add_listener(listener)
    listener.verify()

    partition.append_records_to_leader(records(kv("k1", "v1")), AppendOrigin.CLIENT, 0)
    listener.verify()

    ctx.fetch_follower(partition, BROKER_ID + 1, partition.local_log_or_exception().log_end_offset())
    listener.verify(expected_high_watermark=partition.local_log_or_exception().log_end_offset())

    partition.truncate_fully_and_start_at(0, False)
    listener.verify(expected_high_watermark=0)


def test_partition_listener_when_partition_failed(ctx: Ctx) -> None:
    partition = _leader_of_two(ctx)
    listener = MockPartitionListener()
    assert partition.maybe_add_listener(listener)
    listener.verify()
    partition.mark_offline()
    listener.verify(expected_failed=True)


def test_partition_listener_when_partition_is_deleted(ctx: Ctx) -> None:
    partition = _leader_of_two(ctx)
    listener = MockPartitionListener()
    assert partition.maybe_add_listener(listener)
    listener.verify()
    partition.delete()
    listener.verify(expected_deleted=True)


def test_partition_listener_when_current_is_replaced_with_future_log(ctx: Ctx) -> None:
    partition = ctx.partition
    ctx.log_manager.maybe_update_preferred_log_dir(ctx.topic_partition, str(ctx.log_dir1.absolute()))
    partition.create_log_if_not_exists(True, False, ctx.offset_checkpoints, None)
    assert partition.log is not None
    partition.make_leader(LeaderAndIsrPartitionState(
        controller_epoch=0, leader=BROKER_ID, leader_epoch=0, isr=[BROKER_ID, BROKER_ID + 1],
        replicas=[BROKER_ID, BROKER_ID + 1], partition_epoch=1, is_new=True), ctx.offset_checkpoints, None)

    listener = MockPartitionListener()
    assert partition.maybe_add_listener(listener)
    listener.verify()

    recs = records(kv("k1", "v1"), kv("k2", "v2"))
    partition.append_records_to_leader(recs, AppendOrigin.CLIENT, 0)
    listener.verify()

    ctx.log_manager.maybe_update_preferred_log_dir(ctx.topic_partition, str(ctx.log_dir2.absolute()))
    partition.maybe_create_future_replica(str(ctx.log_dir2.absolute()), ctx.offset_checkpoints)
    assert partition.future_log is not None
    future_log = partition.future_log

    partition.append_records_to_follower_or_future_replica(recs, is_future=True)
    listener.verify()

    assert partition.maybe_replace_current_with_future_replica()
    assert partition.log is future_log

    partition.append_records_to_leader(records(kv("k3", "v3")), AppendOrigin.CLIENT, 0)
    ctx.fetch_follower(partition, BROKER_ID + 1, partition.local_log_or_exception().log_end_offset())
    listener.verify(expected_high_watermark=partition.local_log_or_exception().log_end_offset())


def test_maybe_start_transaction_verification(ctx: Ctx) -> None:
    leader_epoch = 5
    replicas = [BROKER_ID, BROKER_ID + 1]
    producer_id = 22
    partition = ctx.partition
    partition.create_log_if_not_exists(False, False, ctx.offset_checkpoints, None)
    assert partition.make_leader(LeaderAndIsrPartitionState(
        controller_epoch=0, leader=BROKER_ID, leader_epoch=leader_epoch, isr=replicas, partition_epoch=1,
        replicas=replicas, is_new=True), ctx.offset_checkpoints, None), "Expected become leader transition to succeed"
    assert partition.get_leader_epoch() == leader_epoch

    idempotent_records = ctx.create_idempotent_records([kv("k1", "v1"), kv("k2", "v2"), kv("k3", "v3")], 0,
                                                       producer_id=producer_id)
    partition.append_records_to_leader(idempotent_records, AppendOrigin.CLIENT, 1)

    def transaction_records() -> MemoryRecords:
        return ctx.create_transactional_records([kv("k1", "v1"), kv("k2", "v2"), kv("k3", "v3")], 0,
                                                base_sequence=3, producer_id=producer_id)

    # no guard: refused
    with pytest.raises(InvalidTxnStateException):
        partition.append_records_to_leader(transaction_records(), AppendOrigin.CLIENT, 1)

    # what ReplicaManager asks first: a real guard
    verification_guard = partition.maybe_start_transaction_verification(producer_id, 3, 0)
    assert verification_guard != VerificationGuard.SENTINEL

    # another guard: refused
    with pytest.raises(InvalidTxnStateException):
        partition.append_records_to_leader(transaction_records(), AppendOrigin.CLIENT, 1, None, VerificationGuard())

    # the same guard while still unverified; the append goes through with it
    verification_guard2 = partition.maybe_start_transaction_verification(producer_id, 3, 0)
    assert verification_guard2 == verification_guard
    partition.append_records_to_leader(transaction_records(), AppendOrigin.CLIENT, 1, None, verification_guard)

    # the transaction is ongoing: no guard needed any more
    verification_guard3 = partition.maybe_start_transaction_verification(producer_id, 3, 0)
    assert verification_guard3 == VerificationGuard.SENTINEL
    partition.append_records_to_leader(transaction_records(), AppendOrigin.CLIENT, 1)


class _GetOrCreateLogSpy(_SpyLogManager):
    """`spy(logManager)` with hasOfflineLogDirs and onlineLogDirId stubbed, recording getOrCreateLog."""

    def __init__(self, inner: Any, has_offline_log_dirs: bool, online_log_dir_id: bool) -> None:
        super().__init__(inner)
        self._has_offline_log_dirs = has_offline_log_dirs
        self._online_log_dir_id = online_log_dir_id
        self.get_or_create_log_calls: list[tuple[Any, ...]] = []

    def has_offline_log_dirs(self) -> bool:
        return self._has_offline_log_dirs

    def online_log_dir_id(self, uuid_: Uuid) -> bool:
        return self._online_log_dir_id

    def get_or_create_log(self, topic_partition: TopicPartition, is_new: bool = False, is_future: bool = False,
                          topic_id: Uuid | None = None, target_log_directory_id: Uuid | None = None) -> UnifiedLog:
        self.get_or_create_log_calls.append((topic_partition, is_new, is_future, topic_id, target_log_directory_id))
        return self._inner.get_or_create_log(topic_partition, is_new, is_future, topic_id, target_log_directory_id)


def _invokes_get_or_create_log(ctx: Ctx, is_new: bool, as_leader: bool, target_directory: Uuid,
                               has_offline_log_dirs: bool, online_log_dir_id: bool) -> None:
    from kafka_edu.v3_9.storage.storage.internals.log.cleaner_config import CleanerConfig
    from tests.kafka_tests.v3_9.core.log.log_test_utils import create_log_manager

    ctx.log_manager.shutdown()
    ctx.log_manager = create_log_manager([ctx.log_dir1, ctx.log_dir2], ctx.log_config,
                                         _CountingConfigRepository(ctx.config_repository), CleanerConfig(False),
                                         ctx.time)
    spy_log_manager = _GetOrCreateLogSpy(ctx.log_manager, has_offline_log_dirs, online_log_dir_id)
    partition = Partition(ctx.topic_partition, 30000, ctx.inter_broker_protocol_version, BROKER_ID,
                          lambda: default_broker_epoch(BROKER_ID), ctx.time, ctx.alter_partition_listener,
                          ctx.delayed_operations, ctx.metadata_cache, spy_log_manager, ctx.alter_partition_manager)
    replicas = [BROKER_ID, BROKER_ID + 1]
    state = LeaderAndIsrPartitionState(controller_epoch=0, leader=BROKER_ID, leader_epoch=1, isr=replicas,
                                       partition_epoch=1, replicas=replicas, is_new=is_new)
    topic_id = Uuid.random_uuid()

    if as_leader:
        res = partition.make_leader(state, ctx.offset_checkpoints, topic_id, target_directory)
    else:
        res = partition.make_follower(state, ctx.offset_checkpoints, topic_id, target_directory)

    assert res
    assert spy_log_manager.get_or_create_log_calls == [
        (ctx.topic_partition, is_new, False, topic_id, target_directory)]


@pytest.mark.parametrize("is_new", [False, True])
def test_make_leader_invokesget_or_create_log_on_online_log_dir(ctx: Ctx, is_new: bool) -> None:
    _invokes_get_or_create_log(ctx, is_new, True, Uuid.random_uuid(), True, True)


@pytest.mark.parametrize("is_new", [False, True])
def test_make_follower_invokesget_or_create_log_on_online_log_dir(ctx: Ctx, is_new: bool) -> None:
    _invokes_get_or_create_log(ctx, is_new, False, Uuid.random_uuid(), True, True)


@pytest.mark.parametrize("is_new", [False, True])
def test_make_leader_invokesget_or_create_log_when_no_log_dir_offline(ctx: Ctx, is_new: bool) -> None:
    _invokes_get_or_create_log(ctx, is_new, True, Uuid.random_uuid(), False, False)


@pytest.mark.parametrize("is_new", [False, True])
def test_make_follower_invokesget_or_create_log_when_no_log_dir_offline(ctx: Ctx, is_new: bool) -> None:
    _invokes_get_or_create_log(ctx, is_new, False, Uuid.random_uuid(), False, False)


@pytest.mark.parametrize("is_new", [False, True])
def test_make_leader_invokesget_or_create_log_when_target_dir_is_unassigned(ctx: Ctx, is_new: bool) -> None:
    _invokes_get_or_create_log(ctx, is_new, True, DirectoryId.UNASSIGNED, True, False)


@pytest.mark.parametrize("is_new", [False, True])
def test_make_follower_invokesget_or_create_log_when_target_dir_is_unassigned(ctx: Ctx, is_new: bool) -> None:
    _invokes_get_or_create_log(ctx, is_new, False, DirectoryId.UNASSIGNED, True, False)
