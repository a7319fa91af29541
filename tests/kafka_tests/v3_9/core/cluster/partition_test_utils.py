"""Port of core/src/test/scala/unit/kafka/cluster/AbstractPartitionTest.scala (Kafka 3.9), with PartitionTest's
companion object (MockPartitionListener, the fetch-params builders) and TestUtils.MockAlterPartitionManager: the
world a partition test runs in.

Mockito's mocks become small stand-ins: the OffsetCheckpoints answers None for every partition, the
DelayedOperations counts `check_and_complete_all` and has no delayed deletes, the metadata cache is a MagicMock
(with the KRaftMetadataCache spec where a case mocks that class).
"""

from __future__ import annotations

import random
from concurrent.futures import Future
from pathlib import Path
from typing import Any
from unittest.mock import MagicMock

from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.topic_id_partition import TopicIdPartition
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.api.leader_and_isr import LeaderAndIsr
from kafka_edu.v3_9.core.cluster.partition import (
    AlterPartitionListener,
    DelayedOperations,
    LeaderAndIsrPartitionState,
    Partition,
    PartitionListener,
)
from kafka_edu.v3_9.core.server.alter_partition_manager import (
    AlterPartitionError,
    AlterPartitionItem,
    AlterPartitionManager,
)
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from kafka_edu.v3_9.server_common.server.util.mock_time import MockTime
from kafka_edu.v3_9.storage.storage.internals.log.cleaner_config import CleanerConfig
from kafka_edu.v3_9.storage.storage.internals.log.fetch_isolation import FetchIsolation
from kafka_edu.v3_9.storage.storage.internals.log.fetch_params import CONSUMER_REPLICA_ID, FetchParams
from kafka_edu.v3_9.storage.storage.internals.log.log_config import LogConfig
from tests.kafka_tests.v3_9.core.log.log_test_utils import create_log_manager
from tests.kafka_tests.v3_9.core.server.metadata.mock_config_repository import MockConfigRepository

BROKER_ID = 101
REMOTE_REPLICA_ID = BROKER_ID + 1
REPLICA_LAG_TIME_MAX_MS_DEFAULT = 30000  # ReplicationConfigs.REPLICA_LAG_TIME_MAX_MS_DEFAULT
FETCH_LATEST_VERSION = 17  # ApiKeys.FETCH.latestVersion
INT_MAX = 2**31 - 1


def default_broker_epoch(broker_id: int) -> int:
    return broker_id + 1000


# -- TestUtils.MockAlterPartitionManager ------------------------------------------------------------------------------


class MockAlterPartitionManager(AlterPartitionManager):
    """One change in flight at a time; the test completes or fails it."""

    def __init__(self) -> None:
        self.isr_updates: list[AlterPartitionItem] = []
        self.in_flight = False

    def submit(self, topic_id_partition: TopicIdPartition, leader_and_isr: LeaderAndIsr,
               controller_epoch: int) -> Future[LeaderAndIsr]:
        future: Future[LeaderAndIsr] = Future()
        if not self.in_flight:
            self.in_flight = True
            self.isr_updates.append(AlterPartitionItem(topic_id_partition, leader_and_isr, future, controller_epoch))
        else:
            future.set_exception(AlterPartitionError(
                Errors.OPERATION_NOT_ATTEMPTED,
                f"Failed to enqueue AlterIsr request for {topic_id_partition} since there is already an inflight "
                "request"))
        return future

    def complete_isr_update(self, new_partition_epoch: int) -> None:
        assert self.in_flight, "Expected an in-flight ISR update, but there was none"
        self.in_flight = False
        item = self.isr_updates.pop(0)
        item.future.set_result(item.leader_and_isr.with_partition_epoch(new_partition_epoch))

    def fail_isr_update(self, error: Errors) -> None:
        assert self.in_flight, "Expected an in-flight ISR update, but there was none"
        self.in_flight = False
        item = self.isr_updates.pop(0)
        item.future.set_exception(AlterPartitionError(error))


# -- AbstractPartitionTest's mocks -----------------------------------------------------------------------------------


class MockAlterPartitionListener(AlterPartitionListener):
    def __init__(self) -> None:
        self.expands = 0
        self.shrinks = 0
        self.failures = 0

    def mark_isr_expand(self) -> None:
        self.expands += 1

    def mark_isr_shrink(self) -> None:
        self.shrinks += 1

    def mark_failed(self) -> None:
        self.failures += 1

    def reset(self) -> None:
        self.expands = self.shrinks = self.failures = 0


class MockDelayedOperations(DelayedOperations):
    """`mock(classOf[DelayedOperations])`: counts completions, no delayed deletes."""

    def __init__(self, topic_partition: TopicPartition) -> None:
        super().__init__(topic_partition, None, None, None)
        self.check_and_complete_all_calls = 0
        self.num_delayed_delete_value = 0

    def check_and_complete_all(self) -> None:
        self.check_and_complete_all_calls += 1

    @property
    def num_delayed_delete(self) -> int:  # type: ignore[override]
        return self.num_delayed_delete_value


class NoOffsetCheckpoints:
    """`offsetCheckpoints.fetch(anyString, topicPartition)` returns None."""

    def __init__(self) -> None:
        self.checkpoints: dict[tuple[str, TopicPartition], int] = {}

    def fetch(self, log_dir: str, topic_partition: TopicPartition) -> int | None:
        return self.checkpoints.get((log_dir, topic_partition))


class MockPartitionListener(PartitionListener):
    def __init__(self) -> None:
        self._clear()

    def on_high_watermark_updated(self, partition: TopicPartition, offset: int) -> None:
        self.high_watermark = offset

    def on_failed(self, partition: TopicPartition) -> None:
        self.failed = True

    def on_deleted(self, partition: TopicPartition) -> None:
        self.deleted = True

    def _clear(self) -> None:
        self.high_watermark = -1
        self.failed = False
        self.deleted = False

    def verify(self, expected_high_watermark: int = -1, expected_failed: bool = False,
               expected_deleted: bool = False) -> None:
        """The callbacks since the last verify; -1 means "not called"."""
        assert self.high_watermark == expected_high_watermark, "Unexpected high watermark"
        assert self.failed == expected_failed, "Unexpected failed"
        assert self.deleted == expected_deleted, "Unexpected deleted"
        self._clear()


def follower_fetch_params(replica_id: int, replica_epoch: int = 1, max_wait_ms: int = 0, min_bytes: int = 1,
                          max_bytes: int = INT_MAX) -> FetchParams:
    return FetchParams(FETCH_LATEST_VERSION, replica_id, replica_epoch, max_wait_ms, min_bytes, max_bytes,
                       FetchIsolation.LOG_END, None)


def consumer_fetch_params(max_wait_ms: int = 0, min_bytes: int = 1, max_bytes: int = INT_MAX,
                          client_metadata: Any = None,
                          isolation: FetchIsolation = FetchIsolation.HIGH_WATERMARK) -> FetchParams:
    return FetchParams(FETCH_LATEST_VERSION, CONSUMER_REPLICA_ID, -1, max_wait_ms, min_bytes, max_bytes, isolation,
                       client_metadata)


def create_log_properties(overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    props: dict[str, Any] = {"segment.bytes": 512, "segment.index.bytes": 1000, "retention.ms": 999}
    props.update(overrides or {})
    return props


def random_partition_log_dir(parent_dir: Path) -> Path:
    """TestUtils.randomPartitionLogDir."""
    while True:
        candidate = parent_dir / f"kafka-{random.randint(0, 999999)}"
        if not candidate.exists():
            candidate.mkdir(parents=True)
            return candidate


class AbstractPartitionTest:
    """The fields and `setup` of Kafka's AbstractPartitionTest; `tear_down` shuts the log manager down."""

    broker_id = BROKER_ID
    remote_replica_id = REMOTE_REPLICA_ID
    topic_partition = TopicPartition("test-topic", 0)

    def __init__(self, tmp_dir: Path, inter_broker_protocol_version: MetadataVersion | None = None) -> None:
        self.time = MockTime()
        self.inter_broker_protocol_version = (MetadataVersion.latest_testing() if inter_broker_protocol_version
                                              is None else inter_broker_protocol_version)
        self.delayed_operations = MockDelayedOperations(self.topic_partition)
        self.metadata_cache: Any = MagicMock()
        self.offset_checkpoints = NoOffsetCheckpoints()

        log_props = create_log_properties({})
        self.log_config = LogConfig(log_props)
        self.config_repository = MockConfigRepository.for_topic(self.topic_partition.topic, log_props)

        self.tmp_dir = tmp_dir
        self.log_dir1 = random_partition_log_dir(tmp_dir)
        self.log_dir2 = random_partition_log_dir(tmp_dir)
        self.log_manager = create_log_manager([self.log_dir1, self.log_dir2], self.log_config,
                                              self.config_repository, CleanerConfig(False), self.time,
                                              self.inter_broker_protocol_version,
                                              transaction_verification_enabled=True)
        self.log_manager.startup(set())

        self.alter_partition_manager = MockAlterPartitionManager()
        self.alter_partition_listener = MockAlterPartitionListener()
        self.partition = self.new_partition()

    def new_partition(self, metadata_cache: Any = None, alter_partition_manager: Any = None) -> Partition:
        return Partition(self.topic_partition, replica_lag_time_max_ms=REPLICA_LAG_TIME_MAX_MS_DEFAULT,
                         inter_broker_protocol_version=self.inter_broker_protocol_version,
                         local_broker_id=self.broker_id,
                         local_broker_epoch_supplier=lambda: default_broker_epoch(self.broker_id),
                         time=self.time, alter_partition_listener=self.alter_partition_listener,
                         delayed_operations=self.delayed_operations,
                         metadata_cache=self.metadata_cache if metadata_cache is None else metadata_cache,
                         log_manager=self.log_manager,
                         alter_isr_manager=(self.alter_partition_manager if alter_partition_manager is None
                                            else alter_partition_manager))

    def tear_down(self) -> None:
        self.log_manager.shutdown()

    def setup_partition_with_mocks(self, leader_epoch: int, is_leader: bool) -> Partition:
        partition = self.partition
        partition.create_log_if_not_exists(is_new=False, is_future_replica=False,
                                           offset_checkpoints=self.offset_checkpoints, topic_id=None)
        replicas = [self.broker_id, self.remote_replica_id]
        isr = replicas
        if is_leader:
            assert partition.make_leader(LeaderAndIsrPartitionState(
                controller_epoch=0, leader=self.broker_id, leader_epoch=leader_epoch, isr=list(isr),
                partition_epoch=1, replicas=list(replicas), is_new=True), self.offset_checkpoints, None), \
                "Expected become leader transition to succeed"
            assert partition.get_leader_epoch() == leader_epoch
        else:
            assert partition.make_follower(LeaderAndIsrPartitionState(
                controller_epoch=0, leader=self.remote_replica_id, leader_epoch=leader_epoch, isr=list(isr),
                partition_epoch=1, replicas=list(replicas), is_new=True), self.offset_checkpoints, None), \
                "Expected become follower transition to succeed"
            assert partition.get_leader_epoch() == leader_epoch
            assert partition.leader_log_if_local() is None
        return partition
