"""Port of core/src/test/scala/kafka/server/LocalLeaderEndPointTest.scala (Kafka 3.9).

A real ReplicaManager over a real LogManager (replica_manager_test's world). Kafka makes the broker leader, and later
bumps the leader epoch, through a ZooKeeper LeaderAndIsr request (becomeLeaderOrFollower); on the KRaft broker the
partition is made leader as applyDelta does (`Partition.makeLeader`), with the same partition state.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_edu.v3_9.clients.common.compress import compression
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.core.cluster.broker_end_point import BrokerEndPoint
from kafka_edu.v3_9.core.cluster.partition import LeaderAndIsrPartitionState
from kafka_edu.v3_9.core.server.checkpoints.offset_checkpoint_file import LazyOffsetCheckpoints
from kafka_edu.v3_9.core.server.leader_end_point import EpochData, EpochEndOffset
from kafka_edu.v3_9.core.server.local_leader_end_point import LocalLeaderEndPoint
from kafka_edu.v3_9.core.server.remote_leader_end_point import UNBOUNDED_QUOTA
from kafka_edu.v3_9.server_common.server.common.offset_and_epoch import OffsetAndEpoch
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.core.server.replica_manager_test import World, append_records, setup_replica_manager

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/kafka/server/LocalLeaderEndPointTest.scala",
    cases=["testFetchLatestOffset", "testFetchEarliestOffset", "testFetchEarliestLocalOffset",
           "testFetchEpochEndOffsets"],
)

topic_id = uuid.uuid4()
topic = "test"
topic_partition = TopicPartition(topic, 5)
source_broker = BrokerEndPoint(0, "localhost", 9092)


class Setup:
    def __init__(self, w: World) -> None:
        self.w = w
        self.replica_manager = w.replica_manager
        partition = self.replica_manager.create_partition(topic_partition)
        partition.create_log_if_not_exists(
            is_new=False, is_future_replica=False,
            offset_checkpoints=LazyOffsetCheckpoints(self.replica_manager.high_watermark_checkpoints), topic_id=None)
        # this replica is the leader
        self.become_leader(leader_epoch=0)
        self.replica_manager.get_partition_or_exception(topic_partition).local_log_or_exception()
        self.end_point = LocalLeaderEndPoint(source_broker, w.config, self.replica_manager, UNBOUNDED_QUOTA)

    def become_leader(self, leader_epoch: int) -> None:
        """The partition state of Kafka's buildLeaderAndIsrRequest(leaderEpoch), applied as applyDelta does."""
        broker_list = [source_broker.id]
        state = LeaderAndIsrPartitionState(topic_name=topic, partition_index=topic_partition.partition,
                                           controller_epoch=0, leader=source_broker.id, leader_epoch=leader_epoch,
                                           isr=broker_list, partition_epoch=0, replicas=broker_list, is_new=False)
        partition = self.replica_manager.get_partition_or_exception(topic_partition)
        partition.make_leader(state, LazyOffsetCheckpoints(self.replica_manager.high_watermark_checkpoints),
                              Uuid.from_bytes(topic_id.bytes))

    def append_records(self) -> None:
        response = append_records(self.replica_manager, topic_partition, records()).assert_fired()
        assert response.error == Errors.NONE


def records() -> MemoryRecords:
    return MemoryRecords.with_records(compression.NONE, SimpleRecord(b"first message"),
                                      SimpleRecord(b"second message"), SimpleRecord(b"third message"))


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[Setup]:
    w = setup_replica_manager(tmp_path, broker_id=source_broker.id)
    s = Setup(w)
    yield s
    w.replica_manager.shutdown(checkpoint_hw=False)


def test_fetch_latest_offset(setup: Setup) -> None:
    setup.append_records()
    assert setup.end_point.fetch_latest_offset(topic_partition, current_leader_epoch=0) == OffsetAndEpoch(3, 0)
    setup.become_leader(leader_epoch=4)
    setup.append_records()
    assert setup.end_point.fetch_latest_offset(topic_partition, current_leader_epoch=7) == OffsetAndEpoch(6, 4)


def test_fetch_earliest_offset(setup: Setup) -> None:
    setup.append_records()
    assert setup.end_point.fetch_earliest_offset(topic_partition, current_leader_epoch=0) == OffsetAndEpoch(0, 0)

    setup.become_leader(leader_epoch=4)
    setup.append_records()
    setup.replica_manager.delete_records(1000, {topic_partition: 3}, lambda _: None)
    assert setup.end_point.fetch_earliest_offset(topic_partition, current_leader_epoch=7) == OffsetAndEpoch(3, 4)


def test_fetch_earliest_local_offset(setup: Setup) -> None:
    setup.append_records()
    assert setup.end_point.fetch_earliest_local_offset(topic_partition, current_leader_epoch=0) == \
        OffsetAndEpoch(0, 0)

    setup.become_leader(leader_epoch=4)
    setup.append_records()
    log = setup.replica_manager.log_manager.get_log(topic_partition)
    if log is not None:
        log._local_log_start_offset = 3
    assert setup.end_point.fetch_earliest_offset(topic_partition, current_leader_epoch=7) == OffsetAndEpoch(0, 0)
    assert setup.end_point.fetch_earliest_local_offset(topic_partition, current_leader_epoch=7) == \
        OffsetAndEpoch(3, 4)


def test_fetch_epoch_end_offsets(setup: Setup) -> None:
    setup.append_records()

    result = setup.end_point.fetch_epoch_end_offsets({
        topic_partition: EpochData(partition=topic_partition.partition, leader_epoch=0)})
    expected = {topic_partition: EpochEndOffset(partition=topic_partition.partition, error_code=Errors.NONE,
                                                leader_epoch=0, end_offset=3)}
    assert result == expected

    # a new leader epoch and end offset
    setup.become_leader(leader_epoch=4)
    setup.append_records()

    result = setup.end_point.fetch_epoch_end_offsets({
        topic_partition: EpochData(partition=topic_partition.partition, leader_epoch=4)})
    expected = {topic_partition: EpochEndOffset(partition=topic_partition.partition, error_code=Errors.NONE,
                                                leader_epoch=4, end_offset=6)}
    assert result == expected

    # epoch 3 is missing: (leader_epoch=0, end_offset=3)
    result = setup.end_point.fetch_epoch_end_offsets({
        topic_partition: EpochData(partition=topic_partition.partition, leader_epoch=3)})
    expected = {topic_partition: EpochEndOffset(partition=topic_partition.partition, error_code=Errors.NONE,
                                                leader_epoch=0, end_offset=3)}
    assert result == expected

    # epoch 5 is missing: (leader_epoch=-1, end_offset=-1)
    result = setup.end_point.fetch_epoch_end_offsets({
        topic_partition: EpochData(partition=topic_partition.partition, leader_epoch=5)})
    expected = {topic_partition: EpochEndOffset(partition=topic_partition.partition, error_code=Errors.NONE,
                                                leader_epoch=-1, end_offset=-1)}
    assert result == expected
