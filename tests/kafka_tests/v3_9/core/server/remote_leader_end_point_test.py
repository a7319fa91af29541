"""Port of core/src/test/scala/kafka/server/RemoteLeaderEndPointTest.scala (Kafka 3.9).

Mockito's mocks of ReplicaManager and UnifiedLog are unittest.mock.Mock; kio's ListOffsetsPartitionResponse needs its
partition index and error code given (Kafka's setters start from 0 and NONE).
"""

from __future__ import annotations

import uuid
from unittest import mock

import pytest
from kio.schema.errors import ErrorCode
from kio.schema.list_offsets.v9.response import ListOffsetsPartitionResponse

from kafka_edu.v3_9.clients.clients.fetch_session_handler import FetchSessionHandler
from kafka_edu.v3_9.clients.common.errors.fenced_leader_epoch_exception import FencedLeaderEpochException
from kafka_edu.v3_9.clients.common.errors.unknown_leader_epoch_exception import UnknownLeaderEpochException
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.core.cluster.broker_end_point import BrokerEndPoint
from kafka_edu.v3_9.core.server.abstract_fetcher_thread import Fetching, PartitionFetchState
from kafka_edu.v3_9.core.server.kafka_config import KafkaConfig
from kafka_edu.v3_9.core.server.leader_end_point import EpochData, EpochEndOffset
from kafka_edu.v3_9.core.server.remote_leader_end_point import UNBOUNDED_QUOTA, RemoteLeaderEndPoint
from kafka_edu.v3_9.server_common.server.common.metadata_version import MINIMUM_KRAFT_VERSION
from kafka_edu.v3_9.server_common.server.common.offset_and_epoch import OffsetAndEpoch
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import create_broker_config
from tests.kafka_tests.v3_9.core.server.epoch.util.mock_blocking_sender import MockBlockingSender

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/kafka/server/RemoteLeaderEndPointTest.scala",
    cases=["testFetchLatestOffset", "testFetchEarliestOffset", "testFetchEarliestLocalOffset",
           "testFetchEpochEndOffsets", "testThrowsFencedLeaderEpochException",
           "testThrowsUnknownLeaderEpochException", "testBrokerEpochSupplier"],
)

TOPIC_PARTITION = TopicPartition("test", 0)
CURRENT_LEADER_EPOCH = 10
LOG_START_OFFSET = 20
LOCAL_LOG_START_OFFSET = 100
LOG_END_OFFSET = 300


class Context:
    """The test class's fields and setUp."""

    def __init__(self) -> None:
        self.replica_manager = mock.Mock()
        self.current_broker_epoch = 1
        time = MockTime()
        log_prefix = "remote-leader-endpoint"
        source_broker = BrokerEndPoint(0, "localhost", 9092)
        props = create_broker_config(source_broker.id, "localhost:2181", port=source_broker.port)
        fetch_session_handler = FetchSessionHandler(log_prefix, source_broker.id)
        config = KafkaConfig(props, do_log=False)
        self.blocking_send = MockBlockingSender(offsets={}, source_broker=source_broker, time=time)
        self.end_point = RemoteLeaderEndPoint(log_prefix, self.blocking_send, fetch_session_handler, config,
                                              self.replica_manager, UNBOUNDED_QUOTA, lambda: MINIMUM_KRAFT_VERSION,
                                              lambda: self.current_broker_epoch)


@pytest.fixture
def ctx() -> Context:
    return Context()


def list_offsets_partition(leader_epoch: int = -1, offset: int = -1,
                           error: Errors = Errors.NONE) -> ListOffsetsPartitionResponse:
    return ListOffsetsPartitionResponse(partition_index=0, error_code=ErrorCode(error.code), leader_epoch=leader_epoch,
                                        offset=offset)


def test_fetch_latest_offset(ctx: Context) -> None:
    ctx.blocking_send.set_list_offsets_data_for_next_response(
        {TOPIC_PARTITION: list_offsets_partition(leader_epoch=7, offset=LOG_END_OFFSET)})
    assert ctx.end_point.fetch_latest_offset(TOPIC_PARTITION, CURRENT_LEADER_EPOCH) == OffsetAndEpoch(LOG_END_OFFSET, 7)


def test_fetch_earliest_offset(ctx: Context) -> None:
    ctx.blocking_send.set_list_offsets_data_for_next_response(
        {TOPIC_PARTITION: list_offsets_partition(leader_epoch=5, offset=LOG_START_OFFSET)})
    assert ctx.end_point.fetch_earliest_offset(TOPIC_PARTITION, CURRENT_LEADER_EPOCH) == \
        OffsetAndEpoch(LOG_START_OFFSET, 5)


def test_fetch_earliest_local_offset(ctx: Context) -> None:
    ctx.blocking_send.set_list_offsets_data_for_next_response(
        {TOPIC_PARTITION: list_offsets_partition(leader_epoch=6, offset=LOCAL_LOG_START_OFFSET)})
    assert ctx.end_point.fetch_earliest_local_offset(TOPIC_PARTITION, CURRENT_LEADER_EPOCH) == \
        OffsetAndEpoch(LOCAL_LOG_START_OFFSET, 6)


def test_fetch_epoch_end_offsets(ctx: Context) -> None:
    expected = {TOPIC_PARTITION: EpochEndOffset(partition=TOPIC_PARTITION.partition, error_code=ErrorCode.none,
                                                leader_epoch=0, end_offset=LOG_END_OFFSET)}
    ctx.blocking_send.set_offsets_for_next_response(expected)
    result = ctx.end_point.fetch_epoch_end_offsets(
        {TOPIC_PARTITION: EpochData(partition=TOPIC_PARTITION.partition, leader_epoch=CURRENT_LEADER_EPOCH)})
    assert result == expected


def test_throws_fenced_leader_epoch_exception(ctx: Context) -> None:
    ctx.blocking_send.set_list_offsets_data_for_next_response(
        {TOPIC_PARTITION: list_offsets_partition(error=Errors.FENCED_LEADER_EPOCH)})
    with pytest.raises(FencedLeaderEpochException):
        ctx.end_point.fetch_earliest_local_offset(TOPIC_PARTITION, CURRENT_LEADER_EPOCH - 1)
    with pytest.raises(FencedLeaderEpochException):
        ctx.end_point.fetch_earliest_offset(TOPIC_PARTITION, CURRENT_LEADER_EPOCH - 1)
    with pytest.raises(FencedLeaderEpochException):
        ctx.end_point.fetch_latest_offset(TOPIC_PARTITION, CURRENT_LEADER_EPOCH - 1)


def test_throws_unknown_leader_epoch_exception(ctx: Context) -> None:
    ctx.blocking_send.set_list_offsets_data_for_next_response(
        {TOPIC_PARTITION: list_offsets_partition(error=Errors.UNKNOWN_LEADER_EPOCH)})
    with pytest.raises(UnknownLeaderEpochException):
        ctx.end_point.fetch_earliest_local_offset(TOPIC_PARTITION, CURRENT_LEADER_EPOCH + 1)
    with pytest.raises(UnknownLeaderEpochException):
        ctx.end_point.fetch_earliest_offset(TOPIC_PARTITION, CURRENT_LEADER_EPOCH + 1)
    with pytest.raises(UnknownLeaderEpochException):
        ctx.end_point.fetch_latest_offset(TOPIC_PARTITION, CURRENT_LEADER_EPOCH + 1)


@pytest.mark.parametrize("version", range(ApiKeys.FETCH.oldest_version, ApiKeys.FETCH.latest_version + 1))
def test_broker_epoch_supplier(ctx: Context, version: int) -> None:
    tp = TopicPartition("topic1", 0)
    topic_id1 = uuid.uuid4()
    log = mock.Mock()
    partition_map = {tp: PartitionFetchState(topic_id1, 150, None, 0, None, state=Fetching, last_fetched_epoch=None)}
    ctx.replica_manager.local_log_or_exception.side_effect = lambda p: log if p == tp else None
    log.log_start_offset = 1

    fetch_request_opt, partitions_with_error = ctx.end_point.build_fetch(partition_map)
    assert not partitions_with_error
    assert fetch_request_opt.fetch_request.build(version).replica_epoch() == (-1 if version < 15 else 1)

    ctx.current_broker_epoch = 2
    new_fetch_request_opt, new_partitions_with_error = ctx.end_point.build_fetch(partition_map)
    assert not new_partitions_with_error
    assert new_fetch_request_opt.fetch_request.build(version).replica_epoch() == (-1 if version < 15 else 2)
