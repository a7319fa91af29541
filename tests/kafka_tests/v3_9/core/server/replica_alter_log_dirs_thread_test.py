"""Port of core/src/test/scala/unit/kafka/server/ReplicaAlterLogDirsThreadTest.scala (Kafka 3.9).

Mockito's mocks are unittest.mock.Mock objects carrying Mockito's defaults where the thread reads them (0 for a log's
offsets, None for an unstubbed Option, false for the quota); `when(x.f(args)).thenReturn(..)` for given arguments is a
side effect answering those arguments (other arguments get Mockito's null: None). Kafka's ZkMetadataCache and the
`metadataCache`, `onlinePartition` and `logManager` stubs are not read by the thread or LocalLeaderEndPoint and are
left out. A test whose thread waits out its fetch back-off runs with a short replica.fetch.backoff.ms so that it takes
milliseconds, not seconds.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from typing import Any
from unittest import mock

import pytest

from kafka_edu.v1_0_2.clients.common.errors import KafkaStorageException
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.requests.fetch_request import FUTURE_LOCAL_REPLICA_ID
from kafka_edu.v3_9.clients.common.requests.fetch_request import PartitionData as FetchRequestPartitionData
from kafka_edu.v3_9.clients.common.topic_id_partition import TopicIdPartition
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.core.cluster.broker_end_point import BrokerEndPoint
from kafka_edu.v3_9.core.server.abstract_fetcher_manager import FailedPartitions, InitialFetchState
from kafka_edu.v3_9.core.server.abstract_fetcher_thread import Fetching, PartitionFetchState, Truncating
from kafka_edu.v3_9.core.server.kafka_config import KafkaConfig
from kafka_edu.v3_9.core.server.leader_end_point import EpochData, EpochEndOffset
from kafka_edu.v3_9.core.server.local_leader_end_point import LocalLeaderEndPoint
from kafka_edu.v3_9.core.server.remote_leader_end_point import UNBOUNDED_QUOTA
from kafka_edu.v3_9.core.server.replica_alter_log_dirs_thread import (
    PromotionState,
    ReassignmentState,
    ReplicaAlterLogDirsThread,
)
from kafka_edu.v3_9.core.utils.delayed_item import DelayedItem
from kafka_edu.v3_9.server_common.server.common.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.server_common.server.common.topic_id_partition import TopicIdPartition as ServerTopicIdPartition
from kafka_edu.v3_9.server_common.server.storage.log.fetch_partition_data import FetchPartitionData
from kafka_edu.v3_9.storage.storage.internals.log.fetch_isolation import FetchIsolation
from kafka_edu.v3_9.storage.storage.internals.log.fetch_params import FetchParams
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import create_broker_config

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/server/ReplicaAlterLogDirsThreadTest.scala",
    cases=["shouldNotAddPartitionIfFutureLogIsNotDefined", "shouldUpdateLeaderEpochAfterFencedEpochError",
           "shouldReplaceCurrentLogDirWhenCaughtUp",
           "shouldReplaceCurrentLogDirWhenCaughtUpWithAfterAssignmentRequestHasBeenCompleted",
           "shouldRevertAnyScheduledAssignmentRequestIfAssignmentIsCancelled",
           "shouldRevertReassignmentsForIncompleteFutureReplicaPromotions", "issuesEpochRequestFromLocalReplica",
           "fetchEpochsFromLeaderShouldHandleExceptionFromGetLocalReplica", "shouldTruncateToReplicaOffset",
           "shouldTruncateToEndOffsetOfLargestCommonEpoch",
           "shouldTruncateToInitialFetchOffsetIfReplicaReturnsUndefinedOffset",
           "shouldPollIndefinitelyIfReplicaNotAvailable", "shouldFetchLeaderEpochOnFirstFetchOnly",
           "shouldFetchOneReplicaAtATime", "shouldFetchNonDelayedAndNonTruncatingReplicas"],
)

t1p0 = TopicPartition("topic1", 0)
t1p1 = TopicPartition("topic1", 1)
topic_id = uuid.uuid4()
topic_names = {topic_id: "topic1"}
tid1p0 = TopicIdPartition(topic_id, t1p0)

end_point = BrokerEndPoint(0, "localhost", 1000)


@pytest.fixture
def failed_partitions() -> FailedPartitions:
    return FailedPartitions()


def initial_fetch_state(fetch_offset: int, leader_epoch: int = 1) -> InitialFetchState:
    return InitialFetchState(topic_id=topic_id, leader=BrokerEndPoint(0, "localhost", 9092),
                             current_leader_epoch=leader_epoch, init_offset=fetch_offset)


def kafka_config(**overrides: str) -> KafkaConfig:
    props = create_broker_config(1, "localhost:1234")
    props.update({k.replace("_", "."): v for k, v in overrides.items()})
    return KafkaConfig(props, do_log=False)


# -- Mockito's mocks ----------------------------------------------------------------------------------------------


def mock_quota() -> mock.Mock:
    """mock(ReplicationQuotaManager): never over the quota."""
    quota = mock.Mock()
    quota.is_quota_exceeded.return_value = False
    quota.is_throttled.return_value = False
    return quota


def mock_log() -> mock.Mock:
    """mock(UnifiedLog) with Mockito's defaults: offsets 0, no epoch."""
    log = mock.Mock()
    log.log_start_offset = 0
    log.log_end_offset.return_value = 0
    log.latest_epoch.return_value = None
    log.end_offset_for_epoch.return_value = None
    return log


def mock_partition() -> mock.Mock:
    partition = mock.Mock()
    partition.append_records_to_follower_or_future_replica.return_value = None
    return partition


def returns(*values: Any) -> Callable[..., Any]:
    """`thenReturn(a).thenReturn(b)...`: each call the next value, the last one from then on."""
    remaining = list(values)

    def answer(*_: Any, **__: Any) -> Any:
        return remaining.pop(0) if len(remaining) > 1 else remaining[0]
    return answer


def when_last_offset_for_leader_epoch(partition: mock.Mock,
                                      answers: dict[tuple[int | None, int], EpochEndOffset | Callable[[], Any]]
                                      ) -> None:
    """`when(partition.lastOffsetForLeaderEpoch(current, epoch, fetchOnlyFromLeader = false)).thenReturn(..)` per
    (current, epoch); a callable answer is called (for `thenReturn(a).thenReturn(b)`)."""
    def answer(current_leader_epoch: int | None, leader_epoch: int, fetch_only_from_leader: bool) -> Any:
        if fetch_only_from_leader:
            return None
        result = answers.get((current_leader_epoch, leader_epoch))
        return result() if callable(result) else result
    partition.last_offset_for_leader_epoch.side_effect = answer


def epoch_end_offset(partition_id: int, leader_epoch: int, end_offset: int,
                     error: Errors = Errors.NONE) -> EpochEndOffset:
    return EpochEndOffset(partition=partition_id, error_code=error, leader_epoch=leader_epoch, end_offset=end_offset)


def fetch_partition_data(error: Errors, high_watermark: int, log_start_offset: int) -> FetchPartitionData:
    return FetchPartitionData(error, high_watermark, log_start_offset, MemoryRecords.EMPTY, None, None, None, None,
                              False)


def mock_fetch_from_current_log(topic_id_partition: TopicIdPartition, request_data: FetchRequestPartitionData,
                                config: KafkaConfig, replica_manager: mock.Mock,
                                response_data: FetchPartitionData) -> None:
    """fetchMessages answers `response_data` to exactly the future replica's fetch of `request_data`."""
    expected_fetch_params = FetchParams(ApiKeys.FETCH.latest_version, FUTURE_LOCAL_REPLICA_ID, -1, 0, 0,
                                        config.replica_fetch_response_max_bytes, FetchIsolation.LOG_END, None)

    def answer(params: FetchParams, fetch_infos: Sequence[tuple[TopicIdPartition, FetchRequestPartitionData]],
               quota: Any, response_callback: Callable[[list[tuple[TopicIdPartition, FetchPartitionData]]], None]
               ) -> None:
        if params == expected_fetch_params and list(fetch_infos) == [(topic_id_partition, request_data)] \
                and quota is UNBOUNDED_QUOTA:
            response_callback([(topic_id_partition, response_data)])
    replica_manager.fetch_messages.side_effect = answer


def stub(log_t1p0: Any, log_t1p1: Any, future_log: mock.Mock, partition: mock.Mock,
         replica_manager: mock.Mock) -> None:
    local_logs = {t1p0: log_t1p0, t1p1: log_t1p1}
    replica_manager.local_log.side_effect = local_logs.get
    replica_manager.local_log_or_exception.side_effect = local_logs.get
    replica_manager.future_local_log_or_exception.side_effect = \
        lambda tp: future_log if tp in (t1p0, t1p1) else None
    replica_manager.future_log_exists.side_effect = lambda tp: tp in (t1p0, t1p1)
    replica_manager.online_partition.side_effect = lambda tp: partition if tp in (t1p0, t1p1) else None


def stub_with_fetch_messages(log_t1p0: Any, log_t1p1: Any, future_log: mock.Mock, partition: mock.Mock,
                             replica_manager: mock.Mock) -> None:
    """stub(), and fetchMessages answers every fetch with no partition data."""
    stub(log_t1p0, log_t1p1, future_log, partition, replica_manager)
    replica_manager.fetch_messages.side_effect = \
        lambda params, fetch_infos, quota, response_callback: response_callback([])


def stub_future_log(replica_manager: mock.Mock, future_log: mock.Mock, partition: mock.Mock) -> None:
    """t1p0 alone: its future log and partition."""
    replica_manager.future_local_log_or_exception.side_effect = lambda tp: future_log if tp == t1p0 else None
    replica_manager.future_log_exists.side_effect = lambda tp: tp == t1p0
    replica_manager.get_partition_or_exception.side_effect = lambda tp: partition if tp == t1p0 else None


def new_thread(config: KafkaConfig, failed_partitions: FailedPartitions, replica_manager: Any, quota: Any,
               name: str = "alter-logs-dirs-thread", broker_topic_stats: Any = None,
               fetch_back_off_ms: int | None = None, directory_event_handler: Any = None
               ) -> ReplicaAlterLogDirsThread:
    leader = LocalLeaderEndPoint(end_point, config, replica_manager, quota)
    back_off = config.replica_fetch_backoff_ms if fetch_back_off_ms is None else fetch_back_off_ms
    return ReplicaAlterLogDirsThread(name, leader, failed_partitions, replica_manager, quota, broker_topic_stats,
                                     back_off, directory_event_handler)


def truncated_offsets(partition: mock.Mock) -> list[int]:
    return [c.args[0] if c.args else c.kwargs["offset"] for c in partition.truncate_to.call_args_list]


def truncated_futures(partition: mock.Mock) -> list[bool]:
    return [c.kwargs.get("is_future", c.args[1] if len(c.args) > 1 else None)
            for c in partition.truncate_to.call_args_list]


def caught_up_world(config: KafkaConfig, leader_epoch: int) -> tuple[mock.Mock, mock.Mock, mock.Mock, mock.Mock]:
    """The stubs the promotion tests share: a future log at 0 with no epoch, the partition caught up (0 in
    OffsetsForLeaderEpoch) and replaceable, and a fetch that answers no data at the leader epoch."""
    partition = mock_partition()
    replica_manager = mock.Mock()
    quota_manager = mock_quota()
    future_log = mock_log()

    partition.partition_id = 0
    stub_future_log(replica_manager, future_log, partition)
    when_last_offset_for_leader_epoch(partition, {(None, leader_epoch): epoch_end_offset(0, leader_epoch, 0)})
    partition.future_local_log_or_exception.return_value = future_log
    partition.maybe_replace_current_with_future_replica.return_value = True

    request_data = FetchRequestPartitionData(topic_id, 0, 0, config.replica_fetch_max_bytes, leader_epoch)
    mock_fetch_from_current_log(tid1p0, request_data, config, replica_manager,
                                fetch_partition_data(Errors.NONE, 0, 0))
    return partition, replica_manager, quota_manager, future_log


# -- the cases ----------------------------------------------------------------------------------------------------


def test_should_not_add_partition_if_future_log_is_not_defined(failed_partitions: FailedPartitions) -> None:
    config = kafka_config()
    replica_manager = mock.Mock()
    quota_manager = mock_quota()
    replica_manager.future_log_exists.side_effect = lambda tp: False if tp == t1p0 else None

    thread = new_thread(config, failed_partitions, replica_manager, quota_manager)

    added_partitions = thread.add_partitions({t1p0: initial_fetch_state(0)})
    assert added_partitions == set()
    assert thread.partition_count == 0
    assert thread.fetch_state(t1p0) is None


def test_should_update_leader_epoch_after_fenced_epoch_error(failed_partitions: FailedPartitions) -> None:
    config = kafka_config()
    leader_epoch = 5
    partition, replica_manager, quota_manager, _ = caught_up_world(config, leader_epoch)
    partition.log_directory_id.return_value = Uuid.from_string("gOZOXHnkR9eiA1W9ZuLk8A")

    fenced_request_data = FetchRequestPartitionData(topic_id, 0, 0, config.replica_fetch_max_bytes,
                                                    leader_epoch - 1)
    mock_fetch_from_current_log(tid1p0, fenced_request_data, config, replica_manager,
                                fetch_partition_data(Errors.FENCED_LEADER_EPOCH, -1, -1))

    thread = new_thread(config, failed_partitions, replica_manager, quota_manager, name="alter-log-dirs-thread")

    # added first with an older epoch: the fetch is fenced
    thread.add_partitions({t1p0: initial_fetch_state(0, leader_epoch - 1)})
    assert thread.fetch_state(t1p0) is not None
    assert thread.partition_count == 1

    thread.do_work()

    assert failed_partitions.contains(t1p0)
    assert thread.fetch_state(t1p0) is None
    assert thread.partition_count == 0

    # with the new epoch it goes on
    thread.add_partitions({t1p0: initial_fetch_state(0, leader_epoch)})
    fetch_state = thread.fetch_state(t1p0)
    assert fetch_state is not None and fetch_state.current_leader_epoch == leader_epoch
    assert thread.partition_count == 1

    request_data = FetchRequestPartitionData(topic_id, 0, 0, config.replica_fetch_max_bytes, leader_epoch)
    mock_fetch_from_current_log(tid1p0, request_data, config, replica_manager,
                                fetch_partition_data(Errors.NONE, 0, 0))

    thread.do_work()

    assert not failed_partitions.contains(t1p0)
    assert thread.fetch_state(t1p0) is None
    assert thread.partition_count == 0


def test_should_replace_current_log_dir_when_caught_up(failed_partitions: FailedPartitions) -> None:
    config = kafka_config()
    leader_epoch = 5
    partition, replica_manager, quota_manager, _ = caught_up_world(config, leader_epoch)
    partition.log_directory_id.return_value = Uuid.from_string("PGLOjDjKQaCOXFOtxymIig")

    thread = new_thread(config, failed_partitions, replica_manager, quota_manager)

    thread.add_partitions({t1p0: initial_fetch_state(0, leader_epoch)})
    assert thread.fetch_state(t1p0) is not None
    assert thread.partition_count == 1

    thread.do_work()

    assert thread.fetch_state(t1p0) is None
    assert thread.partition_count == 0


def update_reassignment_state(thread: ReplicaAlterLogDirsThread, partition_id: int,
                              new_state: ReassignmentState) -> None:
    topic_name = topic_names.get(topic_id)
    if topic_name is not None:
        thread.update_reassignment_state(TopicPartition(topic_name, partition_id), new_state)


def test_should_replace_current_log_dir_when_caught_up_with_after_assignment_request_has_been_completed(
        failed_partitions: FailedPartitions) -> None:
    config = kafka_config()
    partition_id = 0
    leader_epoch = 5
    partition, replica_manager, quota_manager, _ = caught_up_world(config, leader_epoch)
    directory_event_handler = mock.Mock()
    current_directory_id = Uuid.from_string("EzI9SqkFQKW1iFc1ZwP9SQ")

    partition.topic_id.return_value = topic_id
    partition.future_replica_directory_id.return_value = Uuid.random_uuid()
    partition.run_callback_if_future_replica_caught_up.return_value = True
    partition.log_directory_id.return_value = current_directory_id

    thread = new_thread(config, failed_partitions, replica_manager, quota_manager,
                        directory_event_handler=directory_event_handler)

    thread.add_partitions({t1p0: initial_fetch_state(0, leader_epoch)})

    assert thread.fetch_state(t1p0) is not None
    assert thread.partition_count == 1

    # no promotion while no assignment was asked for
    thread.do_work()
    assert thread.fetch_state(t1p0) is not None
    assert thread.partition_count == 1

    update_reassignment_state(thread, partition_id, ReassignmentState.QUEUED)

    # no promotion while the assignment request is queued
    thread.do_work()
    assert thread.fetch_state(t1p0) is not None
    assert thread.partition_count == 1
    update_reassignment_state(thread, partition_id, ReassignmentState.ACCEPTED)

    # promotion once the controller accepted the assignment
    thread.do_work()
    assert thread.fetch_state(t1p0) is None
    assert thread.partition_count == 0
    assert directory_event_handler.mock_calls == []


def test_should_revert_any_scheduled_assignment_request_if_assignment_is_cancelled(
        failed_partitions: FailedPartitions) -> None:
    config = kafka_config()
    partition_id = 0
    leader_epoch = 5
    partition, replica_manager, quota_manager, _ = caught_up_world(config, leader_epoch)
    directory_event_handler = mock.Mock()

    partition.topic_id.return_value = topic_id
    partition.future_replica_directory_id.return_value = Uuid.random_uuid()
    log_directory_id = Uuid.random_uuid()
    partition.log_directory_id.return_value = log_directory_id
    partition.run_callback_if_future_replica_caught_up.return_value = True

    thread = new_thread(config, failed_partitions, replica_manager, quota_manager,
                        directory_event_handler=directory_event_handler)

    thread.add_partitions({t1p0: initial_fetch_state(0, leader_epoch)})

    assert thread.fetch_state(t1p0) is not None
    assert thread.partition_count == 1

    # no promotion while no assignment was asked for
    thread.do_work()
    assert thread.fetch_state(t1p0) is not None
    assert thread.partition_count == 1

    update_reassignment_state(thread, partition_id, ReassignmentState.QUEUED)

    # the move is cancelled: the assignment is reverted and the request state dropped
    thread.remove_partitions({t1p0})
    assert thread.fetch_state(t1p0) is None
    assert thread.partition_count == 0
    directory_event_handler.handle_assignment.assert_called_once()
    topic_id_partition, log_id, reason, _ = directory_event_handler.handle_assignment.call_args.args
    assert reason == "Reverting reassignment for canceled future replica"
    assert topic_id_partition == ServerTopicIdPartition(topic_id, t1p0.partition)
    assert log_id == log_directory_id


def test_should_revert_reassignments_for_incomplete_future_replica_promotions(
        failed_partitions: FailedPartitions) -> None:
    replica_manager = mock.Mock()
    directory_event_handler = mock.Mock()
    quota_manager = mock_quota()
    config = kafka_config()
    thread = new_thread(config, failed_partitions, replica_manager, quota_manager, broker_topic_stats=mock.Mock(),
                        fetch_back_off_ms=0, directory_event_handler=directory_event_handler)

    tp = [TopicPartition("t", i) for i in range(4)]
    tips = [ServerTopicIdPartition(topic_id, i) for i in range(4)]
    dir_ids = [Uuid.from_string(f"TESTBROKER0000DIR{i}AAAA") for i in range(4)]
    for p in tp:
        thread.promotion_states[p] = PromotionState(ReassignmentState.NONE, topic_id, dir_ids[p.partition])
    thread.update_reassignment_state(tp[0], ReassignmentState.NONE)
    thread.update_reassignment_state(tp[1], ReassignmentState.QUEUED)
    thread.update_reassignment_state(tp[2], ReassignmentState.ACCEPTED)
    thread.update_reassignment_state(tp[3], ReassignmentState.EFFECTIVE)

    thread.remove_partitions(set(tp))

    calls = [c.args[:3] for c in directory_event_handler.handle_assignment.call_args_list]
    reason = "Reverting reassignment for canceled future replica"
    assert sorted(calls, key=lambda c: c[0].partition_id) == [(tips[1], dir_ids[1], reason),
                                                              (tips[2], dir_ids[2], reason)]
    assert len(directory_event_handler.mock_calls) == 2


def test_issues_epoch_request_from_local_replica(failed_partitions: FailedPartitions) -> None:
    config = kafka_config()

    partition_t1p0 = mock_partition()
    partition_t1p1 = mock_partition()
    replica_manager = mock.Mock()

    partition_t1p0_id = 0
    partition_t1p1_id = 1
    leader_epoch_t1p0 = 2
    leader_epoch_t1p1 = 5
    leo_t1p0 = 13
    leo_t1p1 = 232

    partition_t1p0.partition_id = partition_t1p1_id  # (Kafka stubs t1p0's id twice)

    partitions = {t1p0: partition_t1p0, t1p1: partition_t1p1}
    replica_manager.get_partition_or_exception.side_effect = partitions.get
    when_last_offset_for_leader_epoch(partition_t1p0, {
        (None, leader_epoch_t1p0): epoch_end_offset(partition_t1p0_id, leader_epoch_t1p0, leo_t1p0)})
    when_last_offset_for_leader_epoch(partition_t1p1, {
        (None, leader_epoch_t1p1): epoch_end_offset(partition_t1p1_id, leader_epoch_t1p1, leo_t1p1)})

    thread = new_thread(config, failed_partitions, replica_manager, None, name="alter-logs-dirs-thread-test1")

    result = thread.leader.fetch_epoch_end_offsets({
        t1p0: EpochData(partition=t1p0.partition, leader_epoch=leader_epoch_t1p0),
        t1p1: EpochData(partition=t1p1.partition, leader_epoch=leader_epoch_t1p1)})

    expected = {t1p0: epoch_end_offset(t1p0.partition, leader_epoch_t1p0, leo_t1p0),
                t1p1: epoch_end_offset(t1p1.partition, leader_epoch_t1p1, leo_t1p1)}

    assert result == expected, "results from leader epoch request should have offset from local replica"


def test_fetch_epochs_from_leader_should_handle_exception_from_get_local_replica(
        failed_partitions: FailedPartitions) -> None:
    config = kafka_config()

    partition_t1p0 = mock_partition()
    replica_manager = mock.Mock()

    partition_id = 0
    leader_epoch = 2
    leo = 13

    partition_t1p0.partition_id = partition_id

    def get_partition_or_exception(tp: TopicPartition) -> Any:
        if tp == t1p1:
            raise KafkaStorageException()
        return partition_t1p0 if tp == t1p0 else None
    replica_manager.get_partition_or_exception.side_effect = get_partition_or_exception
    when_last_offset_for_leader_epoch(partition_t1p0, {
        (None, leader_epoch): epoch_end_offset(partition_id, leader_epoch, leo)})

    thread = new_thread(config, failed_partitions, replica_manager, None, name="alter-logs-dirs-thread-test1")

    result = thread.leader.fetch_epoch_end_offsets({
        t1p0: EpochData(partition=t1p0.partition, leader_epoch=leader_epoch),
        t1p1: EpochData(partition=t1p1.partition, leader_epoch=leader_epoch)})

    expected = {t1p0: epoch_end_offset(t1p0.partition, leader_epoch, leo),
                t1p1: EpochEndOffset(partition=t1p1.partition, error_code=Errors.KAFKA_STORAGE_ERROR)}

    assert result == expected


def test_should_truncate_to_replica_offset(failed_partitions: FailedPartitions) -> None:
    config = kafka_config()
    quota_manager = mock_quota()
    log_t1p0 = mock_log()
    log_t1p1 = mock_log()
    # one future log for both partitions: the stubs answer the same for both
    future_log_t1p0 = mock_log()
    future_log_t1p1 = mock_log()
    partition_t1p0 = mock_partition()
    partition_t1p1 = mock_partition()
    replica_manager = mock.Mock()

    partition_t1p0_id = 0
    partition_t1p1_id = 1
    leader_epoch = 2
    future_replica_leo = 191
    replica_t1p0_leo = 190
    replica_t1p1_leo = 192

    partition_t1p0.partition_id = partition_t1p0_id
    partition_t1p1.partition_id = partition_t1p1_id

    future_log_t1p0.log_end_offset.return_value = future_replica_leo
    future_log_t1p1.log_end_offset.return_value = future_replica_leo

    future_log_t1p0.latest_epoch.return_value = leader_epoch
    future_log_t1p0.end_offset_for_epoch.side_effect = \
        lambda epoch: OffsetAndEpoch(future_replica_leo, leader_epoch) if epoch == leader_epoch else None
    when_last_offset_for_leader_epoch(partition_t1p0, {
        (1, leader_epoch): epoch_end_offset(partition_t1p0_id, leader_epoch, replica_t1p0_leo)})

    future_log_t1p1.latest_epoch.return_value = leader_epoch
    future_log_t1p1.end_offset_for_epoch.side_effect = \
        lambda epoch: OffsetAndEpoch(future_replica_leo, leader_epoch) if epoch == leader_epoch else None
    when_last_offset_for_leader_epoch(partition_t1p1, {
        (1, leader_epoch): epoch_end_offset(partition_t1p1_id, leader_epoch, replica_t1p1_leo)})
    partition_t1p0.log_directory_id.return_value = Uuid.from_string("Jsg8ufNCQYONNquPt7VYpA")
    partition_t1p1.log_directory_id.return_value = Uuid.from_string("D2Yf6FtNROGVKoIZadSFIg")

    stub_with_fetch_messages(log_t1p0, log_t1p1, future_log_t1p0, partition_t1p0, replica_manager)
    partitions = {t1p0: partition_t1p0, t1p1: partition_t1p1}
    future_logs = {t1p0: future_log_t1p0, t1p1: future_log_t1p1}
    replica_manager.get_partition_or_exception.side_effect = partitions.get
    replica_manager.future_local_log_or_exception.side_effect = future_logs.get

    thread = new_thread(config, failed_partitions, replica_manager, quota_manager,
                        name="alter-logs-dirs-thread-test1")
    thread.add_partitions({t1p0: initial_fetch_state(0), t1p1: initial_fetch_state(0)})

    thread.do_work()

    # truncated to the offsets in the response
    assert truncated_offsets(partition_t1p0) == [replica_t1p0_leo]
    assert truncated_offsets(partition_t1p1) == [future_replica_leo]


def test_should_truncate_to_end_offset_of_largest_common_epoch(failed_partitions: FailedPartitions) -> None:
    config = kafka_config()
    quota_manager = mock_quota()
    log = mock_log()
    future_log = mock_log()
    partition = mock_partition()
    replica_manager = mock.Mock()

    partition_id = 0
    leader_epoch = 5
    future_replica_leo = 195
    replica_leo = 200
    replica_epoch_end_offset = 190
    future_replica_epoch_end_offset = 191

    partition.partition_id = partition_id

    future_log.log_end_offset.return_value = future_replica_leo
    future_log.latest_epoch.side_effect = returns(leader_epoch, leader_epoch - 2)

    when_last_offset_for_leader_epoch(partition, {
        # the current log truncated and took new offsets in a new leader epoch
        (1, leader_epoch): epoch_end_offset(partition_id, leader_epoch - 1, replica_leo),
        # the current log knows the smaller epoch the future log answers with
        (1, leader_epoch - 2): epoch_end_offset(partition_id, leader_epoch - 2, replica_epoch_end_offset)})
    # the future log does not know that epoch: it answers a smaller one
    future_log.end_offset_for_epoch.side_effect = {
        leader_epoch - 1: OffsetAndEpoch(future_replica_leo, leader_epoch - 2),
        leader_epoch - 2: OffsetAndEpoch(future_replica_epoch_end_offset, leader_epoch - 2)}.get
    partition.log_directory_id.return_value = Uuid.from_string("n6WOe2zPScqZLIreCWN6Ug")

    stub_with_fetch_messages(log, None, future_log, partition, replica_manager)
    replica_manager.get_partition_or_exception.side_effect = lambda tp: partition if tp == t1p0 else None

    thread = new_thread(config, failed_partitions, replica_manager, quota_manager,
                        name="alter-logs-dirs-thread-test1")
    thread.add_partitions({t1p0: initial_fetch_state(0)})

    # the first round asks OffsetsForLeaderEpoch again
    thread.do_work()
    # the second truncates
    thread.do_work()

    assert partition.truncate_to.call_count == 2
    assert truncated_futures(partition) == [True, True]
    assert replica_epoch_end_offset in truncated_offsets(partition), \
        f"Expected offset {replica_epoch_end_offset} in captured truncation offsets {truncated_offsets(partition)}"


def test_should_truncate_to_initial_fetch_offset_if_replica_returns_undefined_offset(
        failed_partitions: FailedPartitions) -> None:
    config = kafka_config()
    quota_manager = mock_quota()
    log = mock_log()
    future_log = mock_log()
    partition = mock_partition()
    replica_manager = mock.Mock()

    initial_fetch_offset = 100

    replica_manager.get_partition_or_exception.side_effect = lambda tp: partition if tp == t1p0 else None
    partition.log_directory_id.return_value = Uuid.from_string("b2e1ihvGQiu6A504oKoddQ")

    # a brand-new future replica: no leader epochs recorded
    future_log.latest_epoch.return_value = None

    stub_with_fetch_messages(log, None, future_log, partition, replica_manager)

    thread = new_thread(config, failed_partitions, replica_manager, quota_manager,
                        name="alter-logs-dirs-thread-test1")
    thread.add_partitions({t1p0: initial_fetch_state(initial_fetch_offset)})

    thread.do_work()

    # truncated to the initial fetch offset
    assert truncated_futures(partition) == [True]
    assert truncated_offsets(partition) == [initial_fetch_offset], \
        "Expected future replica to truncate to initial fetch offset if replica returns UNDEFINED_EPOCH_OFFSET"


def test_should_poll_indefinitely_if_replica_not_available(failed_partitions: FailedPartitions) -> None:
    config = kafka_config(replica_fetch_backoff_ms="10")
    quota_manager = mock_quota()
    log = mock_log()
    future_log = mock_log()
    partition = mock_partition()
    replica_manager = mock.Mock()

    partition_id = 0
    future_replica_leader_epoch = 1
    future_replica_leo = 290
    replica_leo = 300

    partition.partition_id = partition_id
    partition.log_directory_id.return_value = Uuid.from_string("wO7bUpvcSZC0QKEK6P6AiA")

    replica_manager.get_partition_or_exception.side_effect = lambda tp: partition if tp == t1p0 else None

    replica_manager.future_local_log_or_exception.side_effect = lambda tp: future_log if tp == t1p0 else None
    replica_manager.future_log_exists.side_effect = lambda tp: tp == t1p0
    future_log.log_end_offset.return_value = future_replica_leo
    future_log.latest_epoch.return_value = future_replica_leader_epoch
    future_log.end_offset_for_epoch.side_effect = \
        lambda epoch: OffsetAndEpoch(future_replica_leo, future_replica_leader_epoch) \
        if epoch == future_replica_leader_epoch else None
    replica_manager.local_log.side_effect = lambda tp: log if tp == t1p0 else None

    # OffsetsForLeaderEpoch answers REPLICA_NOT_AVAILABLE three times, then the end offset
    not_available = EpochEndOffset(partition=partition_id, error_code=Errors.REPLICA_NOT_AVAILABLE)
    answers = returns(not_available, not_available, not_available,
                      epoch_end_offset(partition_id, future_replica_leader_epoch, replica_leo))
    when_last_offset_for_leader_epoch(partition, {(1, future_replica_leader_epoch): answers})

    replica_manager.fetch_messages.side_effect = \
        lambda params, fetch_infos, quota, response_callback: response_callback([])

    thread = new_thread(config, failed_partitions, replica_manager, quota_manager,
                        name="alter-logs-dirs-thread-test1")
    thread.add_partitions({t1p0: initial_fetch_state(0)})

    # as many rounds as the replica is not available
    for _ in range(3):
        thread.do_work()

    # nothing happened while the replica was not available
    partition.truncate_to.assert_not_called()

    # the next round gets the replica
    thread.do_work()

    # and truncates (to the future replica's LEO)
    assert truncated_futures(partition) == [True]
    assert truncated_offsets(partition) == [future_replica_leo]


def test_should_fetch_leader_epoch_on_first_fetch_only(failed_partitions: FailedPartitions) -> None:
    config = kafka_config()
    quota_manager = mock_quota()
    log = mock_log()
    future_log = mock_log()
    partition = mock_partition()
    replica_manager = mock.Mock()

    partition_id = 0
    leader_epoch = 5
    future_replica_leo = 190
    replica_leo = 213

    partition.partition_id = partition_id
    partition.log_directory_id.return_value = Uuid.from_string("dybMM9CpRP2s6HSslW4NHg")

    replica_manager.get_partition_or_exception.side_effect = lambda tp: partition if tp == t1p0 else None
    when_last_offset_for_leader_epoch(partition, {(1, leader_epoch): epoch_end_offset(partition_id, leader_epoch,
                                                                                      replica_leo)})

    future_log.latest_epoch.return_value = leader_epoch
    future_log.log_end_offset.return_value = future_replica_leo
    future_log.end_offset_for_epoch.side_effect = \
        lambda epoch: OffsetAndEpoch(future_replica_leo, leader_epoch) if epoch == leader_epoch else None
    stub_with_fetch_messages(log, None, future_log, partition, replica_manager)

    thread = new_thread(config, failed_partitions, replica_manager, quota_manager,
                        name="alter-logs-dirs-thread-test1")
    thread.add_partitions({t1p0: initial_fetch_state(0)})

    # a few rounds
    for _ in range(4):
        thread.do_work()

    # OffsetsForLeaderEpoch and truncation exactly once
    partition.last_offset_for_leader_epoch.assert_called_once_with(current_leader_epoch=1, leader_epoch=leader_epoch,
                                                                   fetch_only_from_leader=False)
    partition.truncate_to.assert_called_once_with(future_replica_leo, is_future=True)


def test_should_fetch_one_replica_at_a_time(failed_partitions: FailedPartitions) -> None:
    config = kafka_config()
    quota_manager = mock_quota()
    log = mock_log()
    future_log = mock_log()
    partition = mock_partition()
    replica_manager = mock.Mock()

    replica_manager.get_partition_or_exception.side_effect = lambda tp: partition if tp in (t1p0, t1p1) else None
    partition.log_directory_id.return_value = Uuid.from_string("Y0qUL19gSmKAXmohmrUM4g")
    stub(log, None, future_log, partition, replica_manager)

    leader_epoch = 1
    thread = new_thread(config, failed_partitions, replica_manager, quota_manager,
                        name="alter-logs-dirs-thread-test1")
    thread.add_partitions({t1p0: initial_fetch_state(0, leader_epoch), t1p1: initial_fetch_state(0, leader_epoch)})

    fetch_request_opt, partitions_with_error = thread.leader.build_fetch({
        t1p0: PartitionFetchState(topic_id, 150, None, leader_epoch, None, state=Fetching, last_fetched_epoch=None),
        t1p1: PartitionFetchState(topic_id, 160, None, leader_epoch, None, state=Fetching, last_fetched_epoch=None)})

    assert fetch_request_opt is not None
    fetch_request = fetch_request_opt.fetch_request
    assert fetch_request.fetch_data()
    assert not partitions_with_error
    request = fetch_request.build()
    assert request.min_bytes() == 0
    fetch_infos = list(request.fetch_data(topic_names).items())
    assert len(fetch_infos) == 1
    assert fetch_infos[0][0].topic_partition == t1p0, "Expected fetch request for first partition"
    assert fetch_infos[0][1].fetch_offset == 150


def test_should_fetch_non_delayed_and_non_truncating_replicas(failed_partitions: FailedPartitions) -> None:
    config = kafka_config()
    quota_manager = mock_quota()
    log = mock_log()
    future_log = mock_log()
    partition = mock_partition()
    replica_manager = mock.Mock()

    start_offset = 123
    future_log.log_start_offset = start_offset
    replica_manager.get_partition_or_exception.side_effect = lambda tp: partition if tp in (t1p0, t1p1) else None
    partition.log_directory_id.return_value = Uuid.from_string("rtrdy3nsQwO1OQUEUYGxRQ")
    stub(log, None, future_log, partition, replica_manager)

    leader_epoch = 1
    thread = new_thread(config, failed_partitions, replica_manager, quota_manager,
                        name="alter-logs-dirs-thread-test1")
    thread.add_partitions({t1p0: initial_fetch_state(0, leader_epoch), t1p1: initial_fetch_state(0, leader_epoch)})

    # one partition ready, one truncating
    fetch_request_opt, partitions_with_error = thread.leader.build_fetch({
        t1p0: PartitionFetchState(topic_id, 150, None, leader_epoch, state=Fetching, last_fetched_epoch=None),
        t1p1: PartitionFetchState(topic_id, 160, None, leader_epoch, state=Truncating, last_fetched_epoch=None)})

    assert fetch_request_opt is not None
    assert fetch_request_opt.partition_data
    assert not partitions_with_error
    fetch_infos = list(fetch_request_opt.fetch_request.build().fetch_data(topic_names).items())
    assert len(fetch_infos) == 1
    assert fetch_infos[0][0].topic_partition == t1p0, "Expected fetch request for non-truncating partition"
    assert fetch_infos[0][1].fetch_offset == 150

    # one partition ready, one delayed
    fetch_request2_opt, partitions_with_error2 = thread.leader.build_fetch({
        t1p0: PartitionFetchState(topic_id, 140, None, leader_epoch, state=Fetching, last_fetched_epoch=None),
        t1p1: PartitionFetchState(topic_id, 160, None, leader_epoch, delay=DelayedItem(5000), state=Fetching,
                                  last_fetched_epoch=None)})

    assert fetch_request2_opt is not None
    assert fetch_request2_opt.partition_data
    assert not partitions_with_error2
    fetch_infos2 = list(fetch_request2_opt.fetch_request.build().fetch_data(topic_names).items())
    assert len(fetch_infos2) == 1
    assert fetch_infos2[0][0].topic_partition == t1p0, "Expected fetch request for non-delayed partition"
    assert fetch_infos2[0][1].fetch_offset == 140

    # both partitions delayed
    fetch_request3_opt, partitions_with_error3 = thread.leader.build_fetch({
        t1p0: PartitionFetchState(topic_id, 140, None, leader_epoch, delay=DelayedItem(5000), state=Fetching,
                                  last_fetched_epoch=None),
        t1p1: PartitionFetchState(topic_id, 160, None, leader_epoch, delay=DelayedItem(5000), state=Fetching,
                                  last_fetched_epoch=None)})
    assert fetch_request3_opt is None, "Expected no fetch requests since all partitions are delayed"
    assert not partitions_with_error3
