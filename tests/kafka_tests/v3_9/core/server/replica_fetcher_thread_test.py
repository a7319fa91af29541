"""Port of core/src/test/scala/unit/kafka/server/ReplicaFetcherThreadTest.scala (Kafka 3.9).

Mockito's mocks are unittest.mock.Mock objects carrying Mockito's defaults where the thread reads them (0 for a log's
offsets, false for the quota's checks, None for an unstubbed Option); `verify(x, times(n)).truncateTo(..)` reads
`truncate_to.call_args_list`. Kafka's ZkMetadataCache set up for the thread is not read by ReplicaFetcherThread and is
left out. A test whose thread waits out its fetch back-off (no partition to fetch) runs with a short
replica.fetch.backoff.ms so that it takes milliseconds, not seconds.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping
from typing import Any
from unittest import mock

import pytest
from kio.schema.errors import ErrorCode

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, IllegalStateException
from kafka_edu.v3_9.clients.clients.fetch_session_handler import FetchSessionHandler
from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record_batch import NO_TIMESTAMP
from kafka_edu.v3_9.clients.common.record.record_validation_stats import RecordValidationStats
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.requests.fetch_request import PartitionData as FetchRequestPartitionData
from kafka_edu.v3_9.clients.common.requests.fetch_response import EpochEndOffset as DivergingEpoch
from kafka_edu.v3_9.clients.common.requests.fetch_response import FetchResponse, partition_data
from kafka_edu.v3_9.clients.common.topic_id_partition import TopicIdPartition
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM
from kafka_edu.v3_9.core.cluster.broker_end_point import BrokerEndPoint
from kafka_edu.v3_9.core.server.abstract_fetcher_manager import FailedPartitions, InitialFetchState
from kafka_edu.v3_9.core.server.abstract_fetcher_thread import Fetching, PartitionFetchState, Truncating
from kafka_edu.v3_9.core.server.broker_blocking_sender import BlockingSend
from kafka_edu.v3_9.core.server.kafka_config import KafkaConfig
from kafka_edu.v3_9.core.server.leader_end_point import EpochData, EpochEndOffset
from kafka_edu.v3_9.core.server.remote_leader_end_point import UNBOUNDED_QUOTA, RemoteLeaderEndPoint
from kafka_edu.v3_9.core.server.replica_fetcher_thread import ReplicaFetcherThread
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from kafka_edu.v3_9.server_common.server.common.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.storage.storage.internals.log.log_append_info import LogAppendInfo
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import create_broker_config
from tests.kafka_tests.v3_9.core.server.epoch.util.mock_blocking_sender import MockBlockingSender

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/server/ReplicaFetcherThreadTest.scala",
    cases=["shouldSendLatestRequestVersionsByDefault", "testFetchLeaderEpochRequestIfLastEpochDefinedForSomePartitions",
           "shouldHandleExceptionFromBlockingSend",
           "shouldFetchLeaderEpochOnFirstFetchOnlyIfLeaderEpochKnownToBothIbp26",
           "shouldNotFetchLeaderEpochOnFirstFetchWithTruncateOnFetch",
           "shouldTruncateToOffsetSpecifiedInEpochOffsetResponse",
           "shouldTruncateToOffsetSpecifiedInEpochOffsetResponseIfFollowerHasNoMoreEpochs",
           "shouldFetchLeaderEpochSecondTimeIfLeaderRepliesWithEpochNotKnownToFollower",
           "shouldTruncateIfLeaderRepliesWithDivergingEpochNotKnownToFollower",
           "testTruncateOnFetchDoesNotUpdateHighWatermark", "testLagIsUpdatedWhenNoRecords",
           "shouldUseLeaderEndOffsetIfInterBrokerVersionBelow20",
           "shouldTruncateToInitialFetchOffsetIfLeaderReturnsUndefinedOffset",
           "shouldPollIndefinitelyIfLeaderReturnsAnyException", "shouldMovePartitionsOutOfTruncatingLogState",
           "shouldFilterPartitionsMadeLeaderDuringLeaderEpochRequest",
           "shouldCatchExceptionFromBlockingSendWhenShuttingDownReplicaFetcherThread",
           "shouldUpdateReassignmentBytesInMetrics",
           "shouldNotUpdateReassignmentBytesInMetricsWhenNoReassignmentsInProgress", "testBuildFetch",
           "testLocalFetchCompletionIfHighWatermarkUpdated"],
    not_applicable={
        "shouldUpdateReassignmentBytesInMetrics": "metrics: asserts only BrokerTopicStats' ReassignmentBytesInPerSec "
                                                  "and ReplicationBytesInPerSec meters, not ported in the 3.9 tree",
        "shouldNotUpdateReassignmentBytesInMetricsWhenNoReassignmentsInProgress":
            "metrics: asserts only BrokerTopicStats' ReassignmentBytesInPerSec and ReplicationBytesInPerSec meters, "
            "not ported in the 3.9 tree",
    },
)

UNDEFINED_EPOCH = -1
UNDEFINED_EPOCH_OFFSET = -1

t1p0 = TopicPartition("topic1", 0)
t1p1 = TopicPartition("topic1", 1)
t2p1 = TopicPartition("topic2", 1)

topic_id1 = uuid.uuid4()
topic_id2 = uuid.uuid4()
topic_ids = {"topic1": topic_id1, "topic2": topic_id2}

broker_end_point = BrokerEndPoint(0, "localhost", 1000)


@pytest.fixture
def failed_partitions() -> FailedPartitions:
    return FailedPartitions()


def initial_fetch_state(topic_id: uuid.UUID | None, fetch_offset: int, leader_epoch: int = 1) -> InitialFetchState:
    return InitialFetchState(topic_id=topic_id, leader=BrokerEndPoint(0, "localhost", 9092),
                             current_leader_epoch=leader_epoch, init_offset=fetch_offset)


def kafka_config(ibp: MetadataVersion | str | None = None, **overrides: str) -> KafkaConfig:
    props = create_broker_config(1, "localhost:1234")
    if ibp is not None:
        props["inter.broker.protocol.version"] = ibp if isinstance(ibp, str) else ibp.version()
    props.update({k.replace("_", "."): v for k, v in overrides.items()})
    return KafkaConfig(props, do_log=False)


def kafka_config_no_truncate_on_fetch(**overrides: str) -> KafkaConfig:
    return kafka_config(MetadataVersion.IBP_2_6_IV0, **overrides)


def create_replica_fetcher_thread(name: str, fetcher_id: int, broker_config: KafkaConfig,
                                  failed_partitions: FailedPartitions, replica_mgr: Any, quota: Any,
                                  leader_endpoint_blocking_send: BlockingSend) -> ReplicaFetcherThread:
    log_prefix = (f"[ReplicaFetcher replicaId={broker_config.broker_id}, "
                  f"leaderId={leader_endpoint_blocking_send.broker_end_point().id}, fetcherId={fetcher_id}] ")
    fetch_session_handler = FetchSessionHandler(log_prefix, leader_endpoint_blocking_send.broker_end_point().id)
    leader = RemoteLeaderEndPoint(log_prefix, leader_endpoint_blocking_send, fetch_session_handler, broker_config,
                                  replica_mgr, quota, lambda: broker_config.inter_broker_protocol_version, lambda: 1)
    return ReplicaFetcherThread(name, leader, broker_config, failed_partitions, replica_mgr, quota, log_prefix,
                                lambda: broker_config.inter_broker_protocol_version)


# -- Mockito's mocks ----------------------------------------------------------------------------------------------


def mock_quota() -> mock.Mock:
    """mock(ReplicationQuotaManager): never throttled."""
    quota = mock.Mock()
    quota.is_throttled.return_value = False
    quota.is_quota_exceeded.return_value = False
    return quota


def mock_log() -> mock.Mock:
    """mock(UnifiedLog) with Mockito's defaults: offsets 0, no epoch, no new high watermark."""
    log = mock.Mock()
    log.log_start_offset = 0
    log.log_end_offset.return_value = 0
    log.high_watermark.return_value = 0
    log.latest_epoch.return_value = None
    log.end_offset_for_epoch.return_value = None
    log.maybe_update_high_watermark.return_value = None
    return log


def mock_partition(log: mock.Mock) -> mock.Mock:
    partition = mock.Mock()
    partition.local_log_or_exception.return_value = log
    partition.append_records_to_follower_or_future_replica.return_value = None
    partition.is_reassigning.return_value = False
    partition.is_adding_local_replica.return_value = False
    return partition


def returns(*values: Any) -> Callable[..., Any]:
    """`thenReturn(a).thenReturn(b)...`: each call the next value, the last one from then on."""
    remaining = list(values)

    def answer(*_: Any) -> Any:
        return remaining.pop(0) if len(remaining) > 1 else remaining[0]
    return answer


def end_offsets_for_epochs(offsets: Mapping[int, OffsetAndEpoch | None]) -> Callable[[int], OffsetAndEpoch | None]:
    """`when(log.endOffsetForEpoch(n)).thenReturn(..)` for each n; other epochs None."""
    return lambda epoch: offsets.get(epoch)


def stub(partition: mock.Mock, replica_manager: mock.Mock, log: mock.Mock, any_local_log: bool = False) -> None:
    """The test class's stub(): t1p0, t1p1 and t2p1 have `log` and `partition` (`any_local_log`: every partition's
    local log is `log`, as `localLogOrException(any)`)."""
    partitions = (t1p0, t1p1, t2p1)
    replica_manager.local_log_or_exception.side_effect = \
        lambda tp: log if any_local_log or tp in partitions else None
    replica_manager.get_partition_or_exception.side_effect = lambda tp: partition if tp in partitions else None


def mock_replica_manager() -> mock.Mock:
    return mock.Mock()


def new_offset_for_leader_partition_result(tp: TopicPartition, error_or_epoch: Errors | int, leader_epoch: int,
                                           end_offset: int | None = None) -> EpochEndOffset:
    """Both overloads: (tp, leaderEpoch, endOffset) and (tp, error, leaderEpoch, endOffset)."""
    if end_offset is None:
        error, leader_epoch, end_offset = Errors.NONE, error_or_epoch, leader_epoch
    else:
        error = error_or_epoch
    return EpochEndOffset(partition=tp.partition, error_code=ErrorCode(error.code), leader_epoch=leader_epoch,
                          end_offset=end_offset)


def truncated_offsets(partition: mock.Mock) -> list[int]:
    return [c.args[0] for c in partition.truncate_to.call_args_list]


def assert_partition_states(fetcher: ReplicaFetcherThread, should_be_ready_for_fetch: bool,
                            should_be_truncating_log: bool, should_be_delayed: bool,
                            partitions: Iterable[TopicPartition] = (t1p0, t1p1, t2p1)) -> None:
    for tp in partitions:
        fetch_state = fetcher.fetch_state(tp)
        assert fetch_state is not None
        assert fetch_state.is_ready_for_fetch == should_be_ready_for_fetch, \
            f"Partition {tp} should{'' if should_be_ready_for_fetch else ' NOT'} be ready for fetching"
        assert fetch_state.is_truncating == should_be_truncating_log, \
            f"Partition {tp} should{'' if should_be_truncating_log else ' NOT'} be truncating its log"
        assert fetch_state.is_delayed == should_be_delayed, \
            f"Partition {tp} should{'' if should_be_delayed else ' NOT'} be delayed"


# -- the cases ----------------------------------------------------------------------------------------------------


def test_should_send_latest_request_versions_by_default() -> None:
    # the unstable versions too
    testing_version = MetadataVersion.latest_testing()
    assert ApiKeys.FETCH.latest_version == testing_version.fetch_request_version()
    assert ApiKeys.OFFSET_FOR_LEADER_EPOCH.latest_version == testing_version.offset_for_leader_epoch_request_version()
    assert ApiKeys.LIST_OFFSETS.latest_version == testing_version.list_offset_request_version()


def test_fetch_leader_epoch_request_if_last_epoch_defined_for_some_partitions(
        failed_partitions: FailedPartitions) -> None:
    config = kafka_config_no_truncate_on_fetch()
    quota = mock_quota()
    log = mock_log()
    partition = mock_partition(log)
    replica_manager = mock_replica_manager()

    leader_epoch = 5
    log.log_end_offset.return_value = 0
    log.high_watermark.return_value = 0
    log.latest_epoch.side_effect = returns(leader_epoch, leader_epoch, None)  # t2p1 has no epochs
    log.end_offset_for_epoch.side_effect = end_offsets_for_epochs({leader_epoch: OffsetAndEpoch(0, leader_epoch)})
    stub(partition, replica_manager, log)

    offsets = {t1p0: new_offset_for_leader_partition_result(t1p0, leader_epoch, 1),
               t1p1: new_offset_for_leader_partition_result(t1p1, leader_epoch, 1)}
    mock_network = MockBlockingSender(offsets, broker_end_point, SYSTEM)
    thread = create_replica_fetcher_thread("bob", 0, config, failed_partitions, replica_manager, quota, mock_network)

    # topic1 has epochs, topic2 has not
    thread.add_partitions({t1p0: initial_fetch_state(topic_id1, 0), t1p1: initial_fetch_state(topic_id2, 0),
                           t2p1: initial_fetch_state(topic_id2, 0)})

    assert_partition_states(thread, should_be_ready_for_fetch=False, should_be_truncating_log=True,
                            should_be_delayed=False)
    # loop 1
    thread.do_work()
    assert mock_network.epoch_fetch_count == 1
    assert mock_network.fetch_count == 1
    assert_partition_states(thread, should_be_ready_for_fetch=True, should_be_truncating_log=False,
                            should_be_delayed=False)

    # loop 2: no epochs fetched
    thread.do_work()
    assert mock_network.epoch_fetch_count == 1
    assert mock_network.fetch_count == 2
    assert_partition_states(thread, should_be_ready_for_fetch=True, should_be_truncating_log=False,
                            should_be_delayed=False)

    # loop 3: no epochs fetched
    thread.do_work()
    assert mock_network.epoch_fetch_count == 1
    assert mock_network.fetch_count == 3
    assert_partition_states(thread, should_be_ready_for_fetch=True, should_be_truncating_log=False,
                            should_be_delayed=False)

    # truncated once per partition, over three loops
    assert partition.truncate_to.call_count == 3


def test_should_handle_exception_from_blocking_send(failed_partitions: FailedPartitions) -> None:
    config = kafka_config()
    mock_blocking_send = mock.Mock(spec=BlockingSend)
    mock_blocking_send.broker_end_point.return_value = broker_end_point
    mock_blocking_send.send_request.side_effect = TypeError("null")  # Java's NullPointerException

    replica_manager = mock_replica_manager()
    thread = create_replica_fetcher_thread("bob", 0, config, failed_partitions, replica_manager, None,
                                           mock_blocking_send)

    result = thread.leader.fetch_epoch_end_offsets({
        t1p0: EpochData(partition=t1p0.partition, leader_epoch=0),
        t1p1: EpochData(partition=t1p1.partition, leader_epoch=0)})

    expected = {
        t1p0: new_offset_for_leader_partition_result(t1p0, Errors.UNKNOWN_SERVER_ERROR, UNDEFINED_EPOCH,
                                                     UNDEFINED_EPOCH_OFFSET),
        t1p1: new_offset_for_leader_partition_result(t1p1, Errors.UNKNOWN_SERVER_ERROR, UNDEFINED_EPOCH,
                                                     UNDEFINED_EPOCH_OFFSET)}
    assert result == expected, "results from leader epoch request should have undefined offset"
    mock_blocking_send.send_request.assert_called_once()


def test_should_fetch_leader_epoch_on_first_fetch_only_if_leader_epoch_known_to_both_ibp26(
        failed_partitions: FailedPartitions) -> None:
    verify_fetch_leader_epoch_on_first_fetch(MetadataVersion.IBP_2_6_IV0, failed_partitions)


def test_should_not_fetch_leader_epoch_on_first_fetch_with_truncate_on_fetch(
        failed_partitions: FailedPartitions) -> None:
    verify_fetch_leader_epoch_on_first_fetch(MetadataVersion.latest_testing(), failed_partitions, epoch_fetch_count=0)


def verify_fetch_leader_epoch_on_first_fetch(ibp: MetadataVersion, failed_partitions: FailedPartitions,
                                             epoch_fetch_count: int = 1) -> None:
    config = kafka_config(ibp)
    log = mock_log()
    partition = mock_partition(log)
    replica_manager = mock_replica_manager()

    leader_epoch = 5
    log.high_watermark.return_value = 0
    log.latest_epoch.return_value = leader_epoch
    log.end_offset_for_epoch.side_effect = end_offsets_for_epochs({leader_epoch: OffsetAndEpoch(0, leader_epoch)})
    stub(partition, replica_manager, log)

    offsets = {t1p0: new_offset_for_leader_partition_result(t1p0, leader_epoch, 1),
               t1p1: new_offset_for_leader_partition_result(t1p1, leader_epoch, 1)}
    mock_network = MockBlockingSender(offsets, broker_end_point, SYSTEM)
    thread = create_replica_fetcher_thread("bob", 0, config, failed_partitions, replica_manager, UNBOUNDED_QUOTA,
                                           mock_network)
    thread.add_partitions({t1p0: initial_fetch_state(topic_id1, 0), t1p1: initial_fetch_state(topic_id1, 0)})

    # loop 1
    thread.do_work()
    assert mock_network.epoch_fetch_count == epoch_fetch_count
    assert mock_network.fetch_count == 1

    # loop 2: no epochs fetched
    thread.do_work()
    assert mock_network.epoch_fetch_count == epoch_fetch_count
    assert mock_network.fetch_count == 2

    # loop 3: no epochs fetched
    thread.do_work()
    assert mock_network.epoch_fetch_count == epoch_fetch_count
    assert mock_network.fetch_count == 3


def test_should_truncate_to_offset_specified_in_epoch_offset_response(failed_partitions: FailedPartitions) -> None:
    config = kafka_config_no_truncate_on_fetch()
    quota = mock_quota()
    log = mock_log()
    partition = mock_partition(log)
    replica_manager = mock_replica_manager()

    leader_epoch = 5
    initial_leo = 200
    log.high_watermark.return_value = initial_leo - 1
    log.latest_epoch.return_value = leader_epoch
    log.end_offset_for_epoch.side_effect = end_offsets_for_epochs(
        {leader_epoch: OffsetAndEpoch(initial_leo, leader_epoch)})
    log.log_end_offset.return_value = initial_leo
    stub(partition, replica_manager, log, any_local_log=True)

    # the leader's end offsets, to truncate to
    offsets_reply = {t1p0: new_offset_for_leader_partition_result(t1p0, leader_epoch, 156),
                     t2p1: new_offset_for_leader_partition_result(t2p1, leader_epoch, 172)}
    mock_network = MockBlockingSender(offsets_reply, broker_end_point, SYSTEM)
    thread = create_replica_fetcher_thread("bob", 0, config, failed_partitions, replica_manager, quota, mock_network)
    thread.add_partitions({t1p0: initial_fetch_state(topic_id1, 0), t2p1: initial_fetch_state(topic_id2, 0)})

    thread.do_work()

    # truncated to the offsets in the response
    assert partition.truncate_to.call_count == 2
    assert 156 in truncated_offsets(partition), \
        f"Expected {t1p0} to truncate to offset 156 (truncation offsets: {truncated_offsets(partition)})"
    assert 172 in truncated_offsets(partition), \
        f"Expected {t2p1} to truncate to offset 172 (truncation offsets: {truncated_offsets(partition)})"


def test_should_truncate_to_offset_specified_in_epoch_offset_response_if_follower_has_no_more_epochs(
        failed_partitions: FailedPartitions) -> None:
    config = kafka_config_no_truncate_on_fetch()
    quota = mock_quota()
    log = mock_log()
    partition = mock_partition(log)
    replica_manager = mock_replica_manager()

    leader_epoch_at_follower = 5
    leader_epoch_at_leader = 4
    initial_leo = 200
    log.high_watermark.return_value = initial_leo - 3
    log.latest_epoch.return_value = leader_epoch_at_follower
    log.end_offset_for_epoch.side_effect = end_offsets_for_epochs({leader_epoch_at_leader: None})
    log.log_end_offset.return_value = initial_leo
    stub(partition, replica_manager, log, any_local_log=True)

    offsets_reply = {t1p0: new_offset_for_leader_partition_result(t1p0, leader_epoch_at_leader, 156),
                     t2p1: new_offset_for_leader_partition_result(t2p1, leader_epoch_at_leader, 202)}
    mock_network = MockBlockingSender(offsets_reply, broker_end_point, SYSTEM)
    thread = create_replica_fetcher_thread("bob", 0, config, failed_partitions, replica_manager, quota, mock_network)
    thread.add_partitions({t1p0: initial_fetch_state(topic_id1, 0), t2p1: initial_fetch_state(topic_id2, 0)})

    thread.do_work()

    assert partition.truncate_to.call_count == 2
    assert 156 in truncated_offsets(partition), \
        f"Expected {t1p0} to truncate to offset 156 (truncation offsets: {truncated_offsets(partition)})"
    assert initial_leo in truncated_offsets(partition), \
        f"Expected {t2p1} to truncate to offset {initial_leo} (truncation offsets: {truncated_offsets(partition)})"


def test_should_fetch_leader_epoch_second_time_if_leader_replies_with_epoch_not_known_to_follower(
        failed_partitions: FailedPartitions) -> None:
    config = kafka_config_no_truncate_on_fetch()
    quota = mock_quota()
    log = mock_log()
    partition = mock_partition(log)
    replica_manager = mock_replica_manager()

    initial_leo = 200
    log.high_watermark.return_value = initial_leo - 2
    log.latest_epoch.return_value = 5
    log.end_offset_for_epoch.side_effect = end_offsets_for_epochs({4: OffsetAndEpoch(120, 3),
                                                                   3: OffsetAndEpoch(120, 3)})
    log.log_end_offset.return_value = initial_leo
    stub(partition, replica_manager, log, any_local_log=True)

    offsets = {t1p0: new_offset_for_leader_partition_result(t1p0, 4, 155),
               t1p1: new_offset_for_leader_partition_result(t1p1, 4, 143)}
    mock_network = MockBlockingSender(offsets, broker_end_point, SYSTEM)
    thread = create_replica_fetcher_thread("bob", 0, config, failed_partitions, replica_manager, quota, mock_network)
    thread.add_partitions({t1p0: initial_fetch_state(topic_id1, 0), t1p1: initial_fetch_state(topic_id1, 0)})

    # loop 1: both partitions need another leader epoch request
    thread.do_work()
    assert mock_network.epoch_fetch_count == 1
    assert mock_network.fetch_count == 0

    # loop 2: the second request, since the leader answered epoch 4 and the follower knows only epoch 3
    next_offsets = {t1p0: new_offset_for_leader_partition_result(t1p0, 3, 101),
                    t1p1: new_offset_for_leader_partition_result(t1p1, 3, 102)}
    mock_network.set_offsets_for_next_response(next_offsets)

    thread.do_work()
    assert mock_network.epoch_fetch_count == 2
    assert mock_network.fetch_count == 1
    assert mock_network.last_used_offset_for_leader_epoch_version >= 3, "OffsetsForLeaderEpochRequest version."

    # loop 3: no epochs fetched
    thread.do_work()
    assert mock_network.epoch_fetch_count == 2
    assert mock_network.fetch_count == 2

    assert partition.truncate_to.call_count == 4
    # truncated to the offsets of the second response
    assert 102 in truncated_offsets(partition), \
        f"Expected {t1p1} to truncate to offset 102 (truncation offsets: {truncated_offsets(partition)})"
    assert 101 in truncated_offsets(partition), \
        f"Expected {t1p0} to truncate to offset 101 (truncation offsets: {truncated_offsets(partition)})"


def test_should_truncate_if_leader_replies_with_diverging_epoch_not_known_to_follower(
        failed_partitions: FailedPartitions) -> None:
    config = kafka_config()
    quota = mock_quota()
    log = mock_log()
    partition = mock_partition(log)
    replica_manager = mock_replica_manager()

    initial_leo = 200
    latest_log_epoch: list[int | None] = [5]

    log.high_watermark.return_value = 115
    log.latest_epoch.side_effect = lambda: latest_log_epoch[0]
    log.end_offset_for_epoch.side_effect = end_offsets_for_epochs({4: OffsetAndEpoch(149, 4),
                                                                   3: OffsetAndEpoch(129, 2),
                                                                   2: OffsetAndEpoch(119, 1)})
    log.log_end_offset.return_value = initial_leo
    stub(partition, replica_manager, log, any_local_log=True)

    mock_network = MockBlockingSender({}, broker_end_point, SYSTEM)
    log_prefix = f"[ReplicaFetcher replicaId={config.broker_id}, leaderId={broker_end_point.id}, fetcherId=0] "
    fetch_session_handler = FetchSessionHandler(log_prefix, broker_end_point.id)
    leader = RemoteLeaderEndPoint(log_prefix, mock_network, fetch_session_handler, config, replica_manager, quota,
                                  lambda: config.inter_broker_protocol_version, lambda: 1)

    class NoProcessingThread(ReplicaFetcherThread):
        def process_partition_data(self, topic_partition: TopicPartition, fetch_offset: int,
                                   partition_data: Any) -> LogAppendInfo | None:
            return None

    thread = NoProcessingThread("bob", leader, config, failed_partitions, replica_manager, quota, log_prefix,
                                lambda: config.inter_broker_protocol_version)
    thread.add_partitions({t1p0: initial_fetch_state(topic_id1, initial_leo),
                           t1p1: initial_fetch_state(topic_id1, initial_leo)})
    partitions = {t1p0, t1p1}

    # loop 1: no epoch request, a fetch (truncation follows from diverging epochs in its response)
    thread.do_work()
    assert mock_network.epoch_fetch_count == 0
    assert mock_network.fetch_count == 1
    for tp in partitions:
        assert thread.fetch_state(tp).state == Fetching

    def diverging(partition_index: int, epoch: int, end_offset: int) -> Any:
        return partition_data(partition_index=partition_index, last_stable_offset=0, log_start_offset=0,
                              diverging_epoch=DivergingEpoch(epoch=epoch, end_offset=end_offset))

    # loop 2: truncate from the diverging epochs and keep fetching
    mock_network.set_fetch_partition_data_for_next_response({t1p0: diverging(t1p0.partition, 4, 140),
                                                             t1p1: diverging(t1p1.partition, 4, 141)})
    mock_network.set_ids_for_next_response(topic_ids)
    latest_log_epoch[0] = 4
    thread.do_work()
    assert mock_network.epoch_fetch_count == 0
    assert mock_network.fetch_count == 2
    assert partition.truncate_to.call_count == 2
    assert 140 in truncated_offsets(partition), \
        f"Expected {t1p0} to truncate to offset 140 (truncation offsets: {truncated_offsets(partition)})"
    assert 141 in truncated_offsets(partition), \
        f"Expected {t1p1} to truncate to offset 141 (truncation offsets: {truncated_offsets(partition)})"
    for tp in partitions:
        assert thread.fetch_state(tp).state == Fetching

    # loop 3: the diverging epoch is unknown to the follower, so truncation is not complete: truncate, stay Fetching
    mock_network.set_fetch_partition_data_for_next_response({t1p0: diverging(t1p0.partition, 3, 130),
                                                             t1p1: diverging(t1p1.partition, 3, 131)})
    mock_network.set_ids_for_next_response(topic_ids)
    thread.do_work()
    assert mock_network.epoch_fetch_count == 0
    assert mock_network.fetch_count == 3
    assert partition.truncate_to.call_count == 4
    assert 129 in truncated_offsets(partition), \
        f"Expected to truncate to offset 129 (truncation offsets: {truncated_offsets(partition)})"
    for tp in partitions:
        assert thread.fetch_state(tp).state == Fetching

    # loop 4: as loop 3, and the last fetched epoch cannot be read from the log either
    mock_network.set_fetch_partition_data_for_next_response({t1p0: diverging(t1p0.partition, 2, 120),
                                                             t1p1: diverging(t1p1.partition, 2, 121)})
    mock_network.set_ids_for_next_response(topic_ids)
    latest_log_epoch[0] = None
    thread.do_work()
    assert mock_network.epoch_fetch_count == 0
    assert mock_network.fetch_count == 4
    assert partition.truncate_to.call_count == 6
    assert 119 in truncated_offsets(partition), \
        f"Expected to truncate to offset 119 (truncation offsets: {truncated_offsets(partition)})"
    for tp in partitions:
        assert thread.fetch_state(tp).state == Fetching


def test_truncate_on_fetch_does_not_update_high_watermark(failed_partitions: FailedPartitions) -> None:
    config = kafka_config()
    quota = mock_quota()
    log = mock_log()
    partition = mock_partition(log)
    replica_manager = mock_replica_manager()

    log_end_offset = 150
    high_watermark = 130
    log.high_watermark.return_value = high_watermark
    log.latest_epoch.return_value = 5
    log.end_offset_for_epoch.side_effect = end_offsets_for_epochs({4: OffsetAndEpoch(149, 4)})
    log.log_end_offset.return_value = log_end_offset
    replica_manager.local_log_or_exception.side_effect = lambda tp: log if tp == t1p0 else None
    replica_manager.get_partition_or_exception.side_effect = lambda tp: partition if tp == t1p0 else None
    partition.append_records_to_follower_or_future_replica.return_value = None

    log_prefix = f"[ReplicaFetcher replicaId={config.broker_id}, leaderId={broker_end_point.id}, fetcherId=0] "
    mock_network = MockBlockingSender({}, broker_end_point, SYSTEM)
    leader = RemoteLeaderEndPoint(log_prefix, mock_network, FetchSessionHandler(log_prefix, broker_end_point.id),
                                  config, replica_manager, quota, lambda: config.inter_broker_protocol_version,
                                  lambda: 1)
    thread = ReplicaFetcherThread("fetcher-thread", leader, config, failed_partitions, replica_manager, quota,
                                  log_prefix, lambda: config.inter_broker_protocol_version)
    thread.add_partitions({t1p0: initial_fetch_state(topic_id1, log_end_offset)})

    # the leader's high watermark is higher
    mock_network.set_fetch_partition_data_for_next_response({
        t1p0: partition_data(partition_index=t1p0.partition, last_stable_offset=0, log_start_offset=0,
                             high_watermark=160, diverging_epoch=DivergingEpoch(epoch=4, end_offset=140))})
    mock_network.set_ids_for_next_response(topic_ids)

    # the fetch truncates the log but leaves the high watermark alone
    thread.do_work()

    assert mock_network.fetch_count == 1
    partition.truncate_to.assert_called_once_with(140, is_future=False)
    log.maybe_update_high_watermark.assert_not_called()


def test_lag_is_updated_when_no_records(failed_partitions: FailedPartitions) -> None:
    config = kafka_config()
    quota = mock_quota()
    log = mock_log()
    partition = mock_partition(log)
    replica_manager = mock_replica_manager()
    last_fetched_epoch = 2

    log.high_watermark.return_value = 0
    log.latest_epoch.return_value = last_fetched_epoch
    log.end_offset_for_epoch.side_effect = end_offsets_for_epochs({0: OffsetAndEpoch(0, 0)})
    log.log_end_offset.return_value = 0
    log.maybe_update_high_watermark.side_effect = lambda hw: None
    replica_manager.local_log_or_exception.side_effect = lambda tp: log if tp == t1p0 else None
    replica_manager.get_partition_or_exception.side_effect = lambda tp: partition if tp == t1p0 else None
    partition.append_records_to_follower_or_future_replica.return_value = LogAppendInfo(
        -1, 0, None, NO_TIMESTAMP, -1, NO_TIMESTAMP, -1, RecordValidationStats.EMPTY, CompressionType.NONE,
        -1,  # no records
        -1)

    log_prefix = f"[ReplicaFetcher replicaId={config.broker_id}, leaderId={broker_end_point.id}, fetcherId=0] "
    mock_network = MockBlockingSender({}, broker_end_point, SYSTEM)
    leader = RemoteLeaderEndPoint(log_prefix, mock_network, FetchSessionHandler(log_prefix, broker_end_point.id),
                                  config, replica_manager, quota, lambda: config.inter_broker_protocol_version,
                                  lambda: 1)
    thread = ReplicaFetcherThread("fetcher-thread", leader, config, failed_partitions, replica_manager, quota,
                                  log_prefix, lambda: config.inter_broker_protocol_version)
    thread.add_partitions({t1p0: initial_fetch_state(topic_id1, 0)})

    # no lag when the fetch state is created
    assert thread.fetch_state(t1p0).lag is None

    mock_network.set_fetch_partition_data_for_next_response({
        t1p0: partition_data(partition_index=t1p0.partition, last_stable_offset=0, log_start_offset=0,
                             high_watermark=0, records=MemoryRecords.EMPTY)})  # no records
    mock_network.set_ids_for_next_response(topic_ids)

    thread.do_work()
    assert mock_network.fetch_count == 1

    # the lag is now 0
    assert thread.fetch_state(t1p0).lag == 0
    assert thread.fetch_state(t1p0).last_fetched_epoch == last_fetched_epoch


def test_should_use_leader_end_offset_if_inter_broker_version_below20(failed_partitions: FailedPartitions) -> None:
    config = kafka_config("0.11.0")
    quota = mock_quota()
    log = mock_log()
    partition = mock_partition(log)
    replica_manager = mock_replica_manager()

    initial_leo = 200
    log.high_watermark.return_value = initial_leo - 2
    log.latest_epoch.return_value = 5
    log.end_offset_for_epoch.side_effect = end_offsets_for_epochs({4: OffsetAndEpoch(120, 3),
                                                                   3: OffsetAndEpoch(120, 3)})
    log.log_end_offset.return_value = initial_leo
    stub(partition, replica_manager, log, any_local_log=True)

    # undefined epochs in the response, as from an older protocol version
    offsets = {t1p0: new_offset_for_leader_partition_result(t1p0, UNDEFINED_EPOCH, 155),
               t1p1: new_offset_for_leader_partition_result(t1p1, UNDEFINED_EPOCH, 143)}
    mock_network = MockBlockingSender(offsets, broker_end_point, SYSTEM)
    thread = create_replica_fetcher_thread("bob", 0, config, failed_partitions, replica_manager, quota, mock_network)
    thread.add_partitions({t1p0: initial_fetch_state(topic_id1, 0), t1p1: initial_fetch_state(topic_id1, 0)})

    # loop 1: both partitions truncate to the leader's offset though they know no leader epoch
    thread.do_work()
    assert mock_network.epoch_fetch_count == 1
    assert mock_network.fetch_count == 1
    assert mock_network.last_used_offset_for_leader_epoch_version == 0, "OffsetsForLeaderEpochRequest version."

    # loop 2: no epochs fetched
    thread.do_work()
    assert mock_network.epoch_fetch_count == 1
    assert mock_network.fetch_count == 2

    # truncated to the offsets of the first response
    assert partition.truncate_to.call_count == 2
    assert 155 in truncated_offsets(partition), \
        f"Expected {t1p0} to truncate to offset 155 (truncation offsets: {truncated_offsets(partition)})"
    assert 143 in truncated_offsets(partition), \
        f"Expected {t1p1} to truncate to offset 143 (truncation offsets: {truncated_offsets(partition)})"


def test_should_truncate_to_initial_fetch_offset_if_leader_returns_undefined_offset(
        failed_partitions: FailedPartitions) -> None:
    config = kafka_config_no_truncate_on_fetch()
    quota = mock_quota()
    log = mock_log()
    partition = mock_partition(log)
    replica_manager = mock_replica_manager()

    initial_fetch_offset = 100
    log.high_watermark.return_value = initial_fetch_offset
    log.latest_epoch.return_value = 5
    stub(partition, replica_manager, log)

    offsets_reply = {t1p0: new_offset_for_leader_partition_result(t1p0, UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET)}
    mock_network = MockBlockingSender(offsets_reply, broker_end_point, SYSTEM)
    thread = create_replica_fetcher_thread("bob", 0, config, failed_partitions, replica_manager, quota, mock_network)
    thread.add_partitions({t1p0: initial_fetch_state(topic_id1, initial_fetch_offset)})

    thread.do_work()

    # truncated to the initial fetch offset
    partition.truncate_to.assert_called_once()
    assert truncated_offsets(partition)[-1] == initial_fetch_offset


def test_should_poll_indefinitely_if_leader_returns_any_exception(failed_partitions: FailedPartitions) -> None:
    config = kafka_config_no_truncate_on_fetch(replica_fetch_backoff_ms="10")
    quota = mock_quota()
    log = mock_log()
    partition = mock_partition(log)
    replica_manager = mock_replica_manager()

    leader_epoch = 5
    high_water_mark = 100
    initial_leo = 300
    log.high_watermark.return_value = high_water_mark
    log.latest_epoch.return_value = leader_epoch
    # for the last reply, EpochEndOffset(5, 156)
    log.end_offset_for_epoch.side_effect = end_offsets_for_epochs(
        {leader_epoch: OffsetAndEpoch(initial_leo, leader_epoch)})
    log.log_end_offset.return_value = initial_leo
    stub(partition, replica_manager, log, any_local_log=True)

    offsets_reply = {
        t1p0: new_offset_for_leader_partition_result(t1p0, Errors.NOT_LEADER_OR_FOLLOWER, UNDEFINED_EPOCH,
                                                     UNDEFINED_EPOCH_OFFSET),
        t1p1: new_offset_for_leader_partition_result(t1p1, Errors.UNKNOWN_SERVER_ERROR, UNDEFINED_EPOCH,
                                                     UNDEFINED_EPOCH_OFFSET)}
    mock_network = MockBlockingSender(offsets_reply, broker_end_point, SYSTEM)
    thread = create_replica_fetcher_thread("bob", 0, config, failed_partitions, replica_manager, quota, mock_network)
    thread.add_partitions({t1p0: initial_fetch_state(topic_id1, 0), t1p1: initial_fetch_state(topic_id1, 0)})

    for _ in range(4):
        thread.do_work()

    # no truncation while there is no leader
    partition.truncate_to.assert_not_called()

    # a new leader answers
    offsets_reply[t1p0] = new_offset_for_leader_partition_result(t1p0, leader_epoch, 156)

    thread.do_work()

    # now the partition is truncated, to offset 156
    partition.truncate_to.assert_called_once()
    assert truncated_offsets(partition)[-1] == 156


def test_should_move_partitions_out_of_truncating_log_state(failed_partitions: FailedPartitions) -> None:
    config = kafka_config_no_truncate_on_fetch()
    quota = mock_quota()
    log = mock_log()
    partition = mock_partition(log)
    replica_manager = mock_replica_manager()

    leader_epoch = 4
    log.high_watermark.return_value = 0
    log.latest_epoch.return_value = leader_epoch
    log.end_offset_for_epoch.side_effect = end_offsets_for_epochs({leader_epoch: OffsetAndEpoch(0, leader_epoch)})
    stub(partition, replica_manager, log)

    offsets_reply = {t1p0: new_offset_for_leader_partition_result(t1p0, leader_epoch, 1),
                     t1p1: new_offset_for_leader_partition_result(t1p1, leader_epoch, 1)}
    mock_network = MockBlockingSender(offsets_reply, broker_end_point, SYSTEM)
    thread = create_replica_fetcher_thread("bob", 0, config, failed_partitions, replica_manager, quota, mock_network)

    thread.add_partitions({t1p0: initial_fetch_state(topic_id1, 0), t1p1: initial_fetch_state(topic_id1, 0)})

    # every partition starts Truncating
    assert thread.fetch_state(t1p0).state == Truncating
    assert thread.fetch_state(t1p1).state == Truncating

    thread.do_work()

    # none is Truncating any more
    assert thread.fetch_state(t1p0).state == Fetching
    assert thread.fetch_state(t1p1).state == Fetching
    assert partition.truncate_to.call_args_list == [mock.call(0, is_future=False)] * 2


def test_should_filter_partitions_made_leader_during_leader_epoch_request(
        failed_partitions: FailedPartitions) -> None:
    config = kafka_config_no_truncate_on_fetch()
    initial_leo = 100
    quota = mock_quota()
    log = mock_log()
    partition = mock_partition(log)
    replica_manager = mock_replica_manager()

    log.high_watermark.return_value = initial_leo - 2
    log.latest_epoch.return_value = 5
    log.end_offset_for_epoch.side_effect = end_offsets_for_epochs({5: OffsetAndEpoch(initial_leo, 5)})
    log.log_end_offset.return_value = initial_leo
    stub(partition, replica_manager, log, any_local_log=True)

    offsets_reply = {t1p0: new_offset_for_leader_partition_result(t1p0, 5, 52),
                     t1p1: new_offset_for_leader_partition_result(t1p1, 5, 49)}
    mock_network = MockBlockingSender(offsets_reply, broker_end_point, SYSTEM)
    thread = create_replica_fetcher_thread("bob", 0, config, failed_partitions, replica_manager, quota, mock_network)

    thread.add_partitions({t1p0: initial_fetch_state(topic_id1, 0), t1p1: initial_fetch_state(topic_id1, 0)})

    # a leader change while the epoch request is out: one partition leaves the thread (the mock's callback)
    partition_that_became_leader = t1p0
    mock_network.set_epoch_request_callback(lambda: thread.remove_partitions({partition_that_became_leader}))

    thread.do_work()

    # the partition that became leader is not truncated: exactly one partition is
    partition.truncate_to.assert_called_once()
    assert truncated_offsets(partition)[-1] == 49


def test_should_catch_exception_from_blocking_send_when_shutting_down_replica_fetcher_thread(
        failed_partitions: FailedPartitions) -> None:
    config = kafka_config(replica_fetch_backoff_ms="10")

    mock_blocking_send = mock.Mock(spec=BlockingSend)
    mock_blocking_send.broker_end_point.return_value = broker_end_point
    mock_blocking_send.initiate_close.side_effect = IllegalArgumentException()
    mock_blocking_send.close.side_effect = IllegalStateException()

    replica_manager = mock_replica_manager()
    thread = create_replica_fetcher_thread("bob", 0, config, failed_partitions, replica_manager, None,
                                           mock_blocking_send)
    thread.start()

    # 1) initiate_close's error during initiate_shutdown is not propagated, 2) close is called even so,
    # 3) close's error during await_shutdown is not propagated
    thread.initiate_shutdown()
    thread.await_shutdown()
    mock_blocking_send.initiate_close.assert_called_once()
    mock_blocking_send.close.assert_called_once()


def test_build_fetch(failed_partitions: FailedPartitions) -> None:
    tid1p0 = TopicIdPartition(topic_id1, t1p0)
    tid1p1 = TopicIdPartition(topic_id1, t1p1)
    tid2p1 = TopicIdPartition(topic_id2, t2p1)

    config = kafka_config()
    replica_manager = mock_replica_manager()
    mock_blocking_send = mock.Mock(spec=BlockingSend)
    replica_quota = mock_quota()
    log = mock_log()

    mock_blocking_send.broker_end_point.return_value = broker_end_point
    replica_manager.local_log_or_exception.return_value = log
    log.log_start_offset = 0

    log_prefix = f"[ReplicaFetcher replicaId={config.broker_id}, leaderId={broker_end_point.id}, fetcherId=0] "
    fetch_session_handler = FetchSessionHandler(log_prefix, broker_end_point.id)
    leader = RemoteLeaderEndPoint(log_prefix, mock_blocking_send, fetch_session_handler, config, replica_manager,
                                  replica_quota, lambda: config.inter_broker_protocol_version, lambda: 1)
    thread = ReplicaFetcherThread("bob", leader, config, failed_partitions, replica_manager, replica_quota,
                                  log_prefix, lambda: config.inter_broker_protocol_version)

    leader_epoch = 1

    partition_map = {
        t1p0: PartitionFetchState(topic_id1, 150, None, leader_epoch, None, state=Fetching, last_fetched_epoch=None),
        t1p1: PartitionFetchState(topic_id1, 155, None, leader_epoch, None, state=Fetching, last_fetched_epoch=None),
        t2p1: PartitionFetchState(topic_id2, 160, None, leader_epoch, None, state=Fetching, last_fetched_epoch=None)}

    fetch_request_opt, _ = thread.leader.build_fetch(partition_map)

    assert fetch_request_opt is not None
    fetch_request_builder = fetch_request_opt.fetch_request

    partition_data_map = {tp: FetchRequestPartitionData(state.topic_id, state.fetch_offset, 0,
                                                        config.replica_fetch_max_bytes, state.current_leader_epoch,
                                                        None)
                          for tp, state in partition_map.items()}

    assert dict(fetch_request_builder.fetch_data()) == partition_data_map
    assert len(fetch_request_builder.replaced()) == 0
    assert len(fetch_request_builder.removed()) == 0

    response_data = {tid1p0: partition_data(), tid1p1: partition_data(), tid2p1: partition_data()}
    fetch_response = FetchResponse.of(Errors.NONE, 0, 123, response_data)

    leader.fetch_session_handler.handle_response(fetch_response, ApiKeys.FETCH.latest_version)

    # t1p0 removed, t2p1 with a new id, t1p1 as it was
    new_topic_id = uuid.uuid4()
    partition_map2 = {
        t1p1: PartitionFetchState(topic_id1, 155, None, leader_epoch, None, state=Fetching, last_fetched_epoch=None),
        t2p1: PartitionFetchState(new_topic_id, 160, None, leader_epoch, None, state=Fetching,
                                  last_fetched_epoch=None)}
    fetch_request_opt2, _ = thread.leader.build_fetch(partition_map2)

    # t1p1 did not change: it is not sent
    partition_data_map2 = {tp: FetchRequestPartitionData(state.topic_id, state.fetch_offset, 0,
                                                         config.replica_fetch_max_bytes, state.current_leader_epoch,
                                                         None)
                           for tp, state in list(partition_map2.items())[1:]}

    assert fetch_request_opt2 is not None
    fetch_request_builder2 = fetch_request_opt2.fetch_request
    assert dict(fetch_request_builder2.fetch_data()) == partition_data_map2
    assert fetch_request_builder2.replaced() == [tid2p1]
    assert fetch_request_builder2.removed() == [tid1p0]


@pytest.mark.parametrize("high_watermark_updated", [True, False])
def test_local_fetch_completion_if_high_watermark_updated(failed_partitions: FailedPartitions,
                                                          high_watermark_updated: bool) -> None:
    config = kafka_config(replica_fetch_backoff_ms="10")
    high_watermark_received_from_leader = 100

    mock_blocking_send = mock.Mock(spec=BlockingSend)
    mock_blocking_send.broker_end_point.return_value = broker_end_point

    maybe_new_high_watermark = high_watermark_received_from_leader if high_watermark_updated else None
    log = mock_log()
    log.maybe_update_high_watermark.side_effect = \
        lambda hw: maybe_new_high_watermark if hw == high_watermark_received_from_leader else None

    append_info = mock.Mock(spec=LogAppendInfo)

    partition = mock_partition(log)
    partition.append_records_to_follower_or_future_replica.return_value = append_info

    # the argument as it was at the call (the thread clears its buffer after)
    complete_delayed_fetch_requests_argument: list[TopicPartition] = []
    replica_manager = mock_replica_manager()
    replica_manager.get_partition_or_exception.return_value = partition
    replica_manager.complete_delayed_fetch_requests.side_effect = \
        lambda partitions: complete_delayed_fetch_requests_argument.extend(partitions)

    replica_quota = mock_quota()

    thread = create_replica_fetcher_thread(name="replica-fetcher", fetcher_id=0, broker_config=config,
                                           failed_partitions=failed_partitions, replica_mgr=replica_manager,
                                           quota=replica_quota, leader_endpoint_blocking_send=mock_blocking_send)

    tp0 = TopicPartition("testTopic", 0)
    tp1 = TopicPartition("testTopic", 1)
    records = MemoryRecords.with_records(Compression.NONE, SimpleRecord(b"foo", timestamp=1000))

    thread.process_partition_data(tp0, 0, partition_data(partition_index=0, records=records,
                                                         high_watermark=high_watermark_received_from_leader))
    thread.process_partition_data(tp1, 0, partition_data(partition_index=1, records=records,
                                                         high_watermark=high_watermark_received_from_leader))
    replica_manager.complete_delayed_fetch_requests.assert_not_called()

    thread.do_work()
    if high_watermark_updated:
        assert complete_delayed_fetch_requests_argument == [tp0, tp1]
        replica_manager.complete_delayed_fetch_requests.assert_called_once()
    else:
        replica_manager.complete_delayed_fetch_requests.assert_not_called()
    assert thread.partitions_with_new_high_watermark == []
