"""Port of core/src/test/scala/unit/kafka/server/AbstractFetcherThreadTest.scala (Kafka 3.9).

The class's fields `truncateOnFetch`, `version` and `topicIds` are the `cfg` fixture, so that
AbstractFetcherThreadWithIbp26Test (abstract_fetcher_thread_with_ibp26_test.py) reruns these functions with its own.
Kafka's anonymous subclasses of MockLeaderEndPoint and MockFetcherThread are local subclasses; Uuid.randomUuid() is a
random uuid.UUID (the port's topic ids are kio's); `assumeTrue` is pytest.skip.
"""

from __future__ import annotations

import struct
import time
import uuid
from collections.abc import Mapping, Set
from dataclasses import dataclass

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException, KafkaException
from kafka_edu.v3_9.clients.common.errors.fenced_leader_epoch_exception import FencedLeaderEpochException
from kafka_edu.v3_9.clients.common.errors.unknown_leader_epoch_exception import UnknownLeaderEpochException
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.requests.fetch_response import partition_data
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.server.abstract_fetcher_manager import FailedPartitions
from kafka_edu.v3_9.core.server.abstract_fetcher_thread import (
    Fetching,
    OffsetTruncationState,
    PartitionFetchState,
    Truncating,
)
from kafka_edu.v3_9.core.server.leader_end_point import EpochEndOffset
from kafka_edu.v3_9.metadata.controller.controller_exceptions import UnknownTopicIdException
from kafka_edu.v3_9.server_common.server.common.offset_and_epoch import OffsetAndEpoch
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import wait_until_true
from tests.kafka_tests.v3_9.core.server.fetcher_thread_test_utils import initial_fetch_state, mk_batch
from tests.kafka_tests.v3_9.core.server.mock_fetcher_thread import MockFetcherThread
from tests.kafka_tests.v3_9.core.server.mock_leader_end_point import MockLeaderEndPoint, PartitionState
from tests.kafka_tests.v3_9.core.server.mock_tier_state_machine import MockTierStateMachine

METRICS = "metrics: the port's fetcher keeps its lag and rates without a metrics registry, so there is none to check"

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/server/AbstractFetcherThreadTest.scala",
    cases=[
        "testMetricsRemovedOnShutdown", "testConsumerLagRemovedWithPartition", "testSimpleFetch", "testDelay",
        "testPartitionsInError", "testFencedTruncation", "testFencedFetch", "testUnknownLeaderEpochInTruncation",
        "testUnknownLeaderEpochWhileFetching", "testTruncation",
        "testTruncateToHighWatermarkIfLeaderEpochRequestNotSupported",
        "testTruncateToHighWatermarkIfLeaderEpochInfoNotAvailable",
        "testTruncateToHighWatermarkDuringRemovePartitions", "testTruncationSkippedIfNoEpochChange",
        "testTruncationOnFetchSkippedIfPartitionRemoved", "testFollowerFetchOutOfRangeHigh",
        "testFencedOffsetResetAfterOutOfRange", "testFollowerFetchOutOfRangeLow",
        "testRetryAfterUnknownLeaderEpochInLatestOffsetFetch", "testCorruptMessage",
        "testLeaderEpochChangeDuringFencedFetchEpochsFromLeader",
        "testLeaderEpochChangeDuringSuccessfulFetchEpochsFromLeader",
        "testTruncateToEpochEndOffsetsDuringRemovePartitions",
        "testTruncationThrowsExceptionIfLeaderReturnsPartitionsNotRequestedInFetchEpochs",
        "testFetcherThreadHandlingPartitionFailureDuringAppending",
        "testFetcherThreadHandlingPartitionFailureDuringTruncation", "testDivergingEpochs",
        "testTruncateOnFetchDoesNotProcessPartitionData", "testMaybeUpdateTopicIds",
    ],
    not_applicable={
        "testMetricsRemovedOnShutdown": METRICS,
        "testConsumerLagRemovedWithPartition": METRICS,
    },
)


@dataclass(frozen=True)
class Config:
    truncate_on_fetch: bool
    version: int
    topic_ids: Mapping[str, uuid.UUID]


@pytest.fixture
def cfg() -> Config:
    return Config(truncate_on_fetch=True, version=ApiKeys.FETCH.latest_version,
                  topic_ids={"topic1": uuid.uuid4(), "topic2": uuid.uuid4()})


@pytest.fixture
def failed_partitions() -> FailedPartitions:
    return FailedPartitions()


PARTITION1 = TopicPartition("topic1", 0)
PARTITION2 = TopicPartition("topic2", 0)


def _leader(cfg: Config, cls: type[MockLeaderEndPoint] = MockLeaderEndPoint) -> MockLeaderEndPoint:
    return cls(truncate_on_fetch=cfg.truncate_on_fetch, version=cfg.version)


def _fetcher(leader: MockLeaderEndPoint, cls: type[MockFetcherThread] = MockFetcherThread,
             **kwargs: object) -> MockFetcherThread:
    return cls(leader, MockTierStateMachine(leader), **kwargs)  # type: ignore[arg-type]


def _reconcile(fetcher: MockFetcherThread, partition: TopicPartition) -> None:
    def step() -> bool:
        fetcher.do_work()
        return fetcher.replica_partition_state(partition).log == \
            fetcher.mock_leader.leader_partition_state(partition).log
    wait_until_true(step, "Failed to reconcile leader and follower logs", pause_ms=0)


def _ab() -> tuple[SimpleRecord, SimpleRecord]:
    return SimpleRecord(b"a"), SimpleRecord(b"b")


def test_simple_fetch(cfg: Config) -> None:
    partition = TopicPartition("topic", 0)
    fetcher = _fetcher(_leader(cfg))

    fetcher.set_replica_state(partition, PartitionState.of(leader_epoch=0))
    fetcher.add_partitions({partition: initial_fetch_state(cfg.topic_ids.get(partition.topic), 0, leader_epoch=0)})

    batch = mk_batch(0, 0, *_ab())
    leader_state = PartitionState.of([batch], leader_epoch=0, high_watermark=2)
    fetcher.mock_leader.set_leader_state(partition, leader_state)
    fetcher.mock_leader.set_replica_partition_state_callback(fetcher.replica_partition_state)

    fetcher.do_work()

    replica_state = fetcher.replica_partition_state(partition)
    assert replica_state.log_end_offset == 2
    assert replica_state.high_watermark == 2


def test_delay(cfg: Config) -> None:
    partition = TopicPartition("topic", 0)
    fetch_back_off_ms = 250

    class Leader(MockLeaderEndPoint):
        def fetch(self, fetch_request):  # type: ignore[no-untyped-def]
            raise UnknownTopicIdException("Topic ID was unknown as expected for this test")

    fetcher = _fetcher(_leader(cfg, Leader), fetch_back_off_ms=fetch_back_off_ms)

    fetcher.set_replica_state(partition, PartitionState.of(leader_epoch=0))
    fetcher.add_partitions({partition: initial_fetch_state(uuid.uuid4(), 0, leader_epoch=0)})

    batch = mk_batch(0, 0, *_ab())
    leader_state = PartitionState.of([batch], leader_epoch=0, high_watermark=2)
    fetcher.mock_leader.set_leader_state(partition, leader_state)
    fetcher.mock_leader.set_replica_partition_state_callback(fetcher.replica_partition_state)

    # the first round puts every partition in error
    time_before_first = time.monotonic() * 1000
    fetcher.do_work()
    first_work_duration = time.monotonic() * 1000 - time_before_first

    # the second pauses for fetch_back_off_ms: every partition is delayed
    time_before_second = time.monotonic() * 1000
    fetcher.do_work()
    second_work_duration = time.monotonic() * 1000 - time_before_second

    assert first_work_duration < second_work_duration
    assert fetch_back_off_ms <= second_work_duration, \
        f"secondWorkDuration: {second_work_duration} was not greater than or equal to fetchBackOffMs: " \
        f"{fetch_back_off_ms}"


def test_partitions_in_error(cfg: Config) -> None:
    partition1 = TopicPartition("topic1", 0)
    partition2 = TopicPartition("topic2", 0)
    partition3 = TopicPartition("topic3", 0)
    fetch_back_off_ms = 250

    class Leader(MockLeaderEndPoint):
        def fetch(self, fetch_request):  # type: ignore[no-untyped-def]
            return {partition1: partition_data(error_code=Errors.UNKNOWN_TOPIC_ID),
                    partition2: partition_data(error_code=Errors.INCONSISTENT_TOPIC_ID),
                    partition3: partition_data(error_code=Errors.NONE)}

    fetcher = _fetcher(_leader(cfg, Leader), fetch_back_off_ms=fetch_back_off_ms)

    for partition in (partition1, partition2, partition3):
        fetcher.set_replica_state(partition, PartitionState.of(leader_epoch=0))
        fetcher.add_partitions({partition: initial_fetch_state(uuid.uuid4(), 0, leader_epoch=0)})

    batch = mk_batch(0, 0, *_ab())
    leader_state = PartitionState.of([batch], leader_epoch=0, high_watermark=2)
    for partition in (partition1, partition2, partition3):
        fetcher.mock_leader.set_leader_state(partition, leader_state)
    fetcher.mock_leader.set_replica_partition_state_callback(fetcher.replica_partition_state)

    fetcher.do_work()

    partition1_fetch_state = fetcher.fetch_state(partition1)
    partition2_fetch_state = fetcher.fetch_state(partition2)
    partition3_fetch_state = fetcher.fetch_state(partition3)
    assert partition1_fetch_state is not None
    assert partition2_fetch_state is not None
    assert partition3_fetch_state is not None

    # only the partitions with errors are delayed
    assert partition1_fetch_state.is_delayed
    assert partition2_fetch_state.is_delayed
    assert not partition3_fetch_state.is_delayed


def test_fenced_truncation(cfg: Config, failed_partitions: FailedPartitions) -> None:
    partition = TopicPartition("topic", 0)
    fetcher = _fetcher(_leader(cfg), failed_partitions=failed_partitions)

    fetcher.set_replica_state(partition, PartitionState.of(leader_epoch=0))
    fetcher.add_partitions({partition: initial_fetch_state(cfg.topic_ids.get(partition.topic), 0, leader_epoch=0)})

    batch = mk_batch(0, 1, *_ab())
    leader_state = PartitionState.of([batch], leader_epoch=1, high_watermark=2)
    fetcher.mock_leader.set_leader_state(partition, leader_state)
    fetcher.mock_leader.set_replica_partition_state_callback(fetcher.replica_partition_state)

    fetcher.do_work()

    # no progress
    replica_state = fetcher.replica_partition_state(partition)
    assert replica_state.log_end_offset == 0
    assert replica_state.high_watermark == 0

    # fenced: no longer tracked, and marked failed
    assert fetcher.fetch_state(partition) is None
    assert failed_partitions.contains(partition)


def test_fenced_fetch(cfg: Config, failed_partitions: FailedPartitions) -> None:
    partition = TopicPartition("topic", 0)
    fetcher = _fetcher(_leader(cfg), failed_partitions=failed_partitions)

    replica_state = PartitionState.of(leader_epoch=0)
    fetcher.set_replica_state(partition, replica_state)
    fetcher.add_partitions({partition: initial_fetch_state(cfg.topic_ids.get(partition.topic), 0, leader_epoch=0)})

    batch = mk_batch(0, 0, *_ab())
    leader_state = PartitionState.of([batch], leader_epoch=0, high_watermark=2)
    fetcher.mock_leader.set_leader_state(partition, leader_state)
    fetcher.mock_leader.set_replica_partition_state_callback(fetcher.replica_partition_state)

    fetcher.do_work()

    # caught up
    assert replica_state.log_end_offset == 2

    # the leader's epoch moves on
    fetcher.mock_leader.leader_partition_state(partition).leader_epoch += 1

    fetcher.do_work()

    assert fetcher.fetch_state(partition) is None
    assert failed_partitions.contains(partition)


def test_unknown_leader_epoch_in_truncation(cfg: Config, failed_partitions: FailedPartitions) -> None:
    partition = TopicPartition("topic", 0)
    fetcher = _fetcher(_leader(cfg), failed_partitions=failed_partitions)

    # the replica's leader epoch is ahead of the leader's
    replica_state = PartitionState.of(leader_epoch=1)
    fetcher.set_replica_state(partition, replica_state)
    fetcher.add_partitions({partition: initial_fetch_state(cfg.topic_ids.get(partition.topic), 0, leader_epoch=1)},
                           force_truncation=True)

    batch = mk_batch(0, 0, SimpleRecord(b"a"))
    leader_state = PartitionState.of([batch], leader_epoch=0, high_watermark=2)
    fetcher.mock_leader.set_leader_state(partition, leader_state)
    fetcher.mock_leader.set_replica_partition_state_callback(fetcher.replica_partition_state)

    fetcher.do_work()

    # nothing fetched, still truncating
    assert replica_state.log_end_offset == 0
    assert fetcher.fetch_state(partition).state == Truncating

    fetcher.mock_leader.leader_partition_state(partition).leader_epoch += 1

    # now it can make progress
    fetcher.do_work()

    assert replica_state.log_end_offset == 1
    assert fetcher.fetch_state(partition).state == Fetching


def test_unknown_leader_epoch_while_fetching(cfg: Config) -> None:
    partition = TopicPartition("topic", 0)
    fetcher = _fetcher(_leader(cfg))

    # contrived: the leader checks the follower's epoch when it answers for the truncation offset, so this cannot
    # really happen while Fetching
    replica_state = PartitionState.of(leader_epoch=1)
    fetcher.set_replica_state(partition, replica_state)
    fetcher.add_partitions({partition: initial_fetch_state(cfg.topic_ids.get(partition.topic), 0, leader_epoch=1)})

    leader_state = PartitionState.of([mk_batch(0, 0, SimpleRecord(b"a")), mk_batch(1, 0, SimpleRecord(b"b"))],
                                     leader_epoch=1, high_watermark=2)
    fetcher.mock_leader.set_leader_state(partition, leader_state)
    fetcher.mock_leader.set_replica_partition_state_callback(fetcher.replica_partition_state)

    fetcher.do_work()

    # one batch fetched, out of truncation
    assert replica_state.log_end_offset == 1
    assert fetcher.fetch_state(partition).state == Fetching

    # the leader epoch somehow goes back
    fetcher.mock_leader.leader_partition_state(partition).leader_epoch = 0

    # stuck at the current offset
    fetcher.do_work()
    assert replica_state.log_end_offset == 1
    assert fetcher.fetch_state(partition).state == Fetching

    # back at the right epoch, fetching goes on
    fetcher.mock_leader.leader_partition_state(partition).leader_epoch = 1
    fetcher.do_work()
    assert replica_state.log_end_offset == 2
    assert fetcher.fetch_state(partition).state == Fetching


def test_truncation(cfg: Config) -> None:
    partition = TopicPartition("topic", 0)
    fetcher = _fetcher(_leader(cfg))

    replica_log = [mk_batch(0, 0, SimpleRecord(b"a")), mk_batch(1, 2, SimpleRecord(b"b")),
                   mk_batch(2, 4, SimpleRecord(b"c"))]
    replica_state = PartitionState.of(replica_log, leader_epoch=5, high_watermark=0)
    fetcher.set_replica_state(partition, replica_state)
    fetcher.add_partitions({partition: initial_fetch_state(cfg.topic_ids.get(partition.topic), 3, leader_epoch=5)})

    leader_log = [mk_batch(0, 1, SimpleRecord(b"a")), mk_batch(1, 3, SimpleRecord(b"b")),
                  mk_batch(2, 5, SimpleRecord(b"c"))]
    leader_state = PartitionState.of(leader_log, leader_epoch=5, high_watermark=2)
    fetcher.mock_leader.set_leader_state(partition, leader_state)
    fetcher.mock_leader.set_replica_partition_state_callback(fetcher.replica_partition_state)

    _reconcile(fetcher, partition)

    assert replica_state.log_start_offset == leader_state.log_start_offset
    assert replica_state.log_end_offset == leader_state.log_end_offset
    assert replica_state.high_watermark == leader_state.high_watermark


def _replica_log_0_2_4() -> list:
    return [mk_batch(0, 0, SimpleRecord(b"a")), mk_batch(1, 2, SimpleRecord(b"b")),
            mk_batch(2, 4, SimpleRecord(b"c"))]


def test_truncate_to_high_watermark_if_leader_epoch_request_not_supported(cfg: Config) -> None:
    high_watermark = 2
    partition = TopicPartition("topic", 0)

    class Leader(MockLeaderEndPoint):
        def fetch_epoch_end_offsets(self, partitions):  # type: ignore[no-untyped-def]
            raise NotImplementedError  # UnsupportedOperationException

        @property
        def is_truncation_on_fetch_supported(self) -> bool:
            return False

    class Fetcher(MockFetcherThread):
        def truncate(self, topic_partition: TopicPartition, truncation_state: OffsetTruncationState) -> None:
            assert truncation_state.offset == high_watermark
            assert truncation_state.truncation_completed
            super().truncate(topic_partition, truncation_state)

        @property
        def is_offset_for_leader_epoch_supported(self) -> bool:
            return False

    fetcher = _fetcher(_leader(cfg, Leader), Fetcher)

    replica_state = PartitionState.of(_replica_log_0_2_4(), leader_epoch=5, high_watermark=high_watermark)
    fetcher.set_replica_state(partition, replica_state)
    fetcher.add_partitions({partition: initial_fetch_state(cfg.topic_ids.get(partition.topic), high_watermark,
                                                           leader_epoch=5)})
    fetcher.mock_leader.set_replica_partition_state_callback(fetcher.replica_partition_state)

    fetcher.do_work()

    assert replica_state.log_end_offset == high_watermark
    assert fetcher.fetch_state(partition).fetch_offset == high_watermark
    assert fetcher.fetch_state(partition).is_ready_for_fetch


def test_truncate_to_high_watermark_if_leader_epoch_info_not_available(cfg: Config) -> None:
    high_watermark = 2
    partition = TopicPartition("topic", 0)

    class Leader(MockLeaderEndPoint):
        def fetch_epoch_end_offsets(self, partitions):  # type: ignore[no-untyped-def]
            raise NotImplementedError  # UnsupportedOperationException

    class Fetcher(MockFetcherThread):
        def truncate(self, topic_partition: TopicPartition, truncation_state: OffsetTruncationState) -> None:
            assert truncation_state.offset == high_watermark
            assert truncation_state.truncation_completed
            super().truncate(topic_partition, truncation_state)

        def latest_epoch(self, topic_partition: TopicPartition) -> int | None:
            return None

    fetcher = _fetcher(_leader(cfg, Leader), Fetcher)

    replica_state = PartitionState.of(_replica_log_0_2_4(), leader_epoch=5, high_watermark=high_watermark)
    fetcher.set_replica_state(partition, replica_state)
    fetcher.add_partitions({partition: initial_fetch_state(cfg.topic_ids.get(partition.topic), high_watermark,
                                                           leader_epoch=5)})
    fetcher.mock_leader.set_replica_partition_state_callback(fetcher.replica_partition_state)

    fetcher.do_work()

    assert replica_state.log_end_offset == high_watermark
    assert fetcher.fetch_state(partition).fetch_offset == high_watermark
    assert fetcher.fetch_state(partition).is_ready_for_fetch


def test_truncate_to_high_watermark_during_remove_partitions(cfg: Config) -> None:
    high_watermark = 2
    partition = TopicPartition("topic", 0)

    class Fetcher(MockFetcherThread):
        def truncate_to_high_watermark(self, partitions: Set[TopicPartition]) -> None:
            self.remove_partitions({partition})
            super().truncate_to_high_watermark(partitions)

        def latest_epoch(self, topic_partition: TopicPartition) -> int | None:
            return None

    fetcher = _fetcher(_leader(cfg), Fetcher)

    replica_log = _replica_log_0_2_4()
    replica_state = PartitionState.of(replica_log, leader_epoch=5, high_watermark=high_watermark)
    fetcher.set_replica_state(partition, replica_state)
    fetcher.add_partitions({partition: initial_fetch_state(cfg.topic_ids.get(partition.topic), high_watermark,
                                                           leader_epoch=5)})
    fetcher.mock_leader.set_replica_partition_state_callback(fetcher.replica_partition_state)

    fetcher.do_work()

    assert replica_state.log_end_offset == replica_log[-1].next_offset()
    assert fetcher.fetch_state(partition) is None


def test_truncation_skipped_if_no_epoch_change(cfg: Config) -> None:
    partition = TopicPartition("topic", 0)
    truncations = 0

    class Fetcher(MockFetcherThread):
        def truncate(self, topic_partition: TopicPartition, truncation_state: OffsetTruncationState) -> None:
            nonlocal truncations
            truncations += 1
            super().truncate(topic_partition, truncation_state)

    fetcher = _fetcher(_leader(cfg), Fetcher)

    replica_state = PartitionState.of(leader_epoch=5)
    fetcher.set_replica_state(partition, replica_state)
    fetcher.add_partitions({partition: initial_fetch_state(cfg.topic_ids.get(partition.topic), 0, leader_epoch=5)},
                           force_truncation=True)

    leader_log = [mk_batch(0, 1, SimpleRecord(b"a")), mk_batch(1, 3, SimpleRecord(b"b")),
                  mk_batch(2, 5, SimpleRecord(b"c"))]
    leader_state = PartitionState.of(leader_log, leader_epoch=5, high_watermark=2)
    fetcher.mock_leader.set_leader_state(partition, leader_state)
    fetcher.mock_leader.set_replica_partition_state_callback(fetcher.replica_partition_state)

    # one round of truncation
    fetcher.do_work()

    # the mock fetches one batch at a time
    assert replica_state.log_end_offset == 1
    assert truncations == 1

    # added again with the same epoch
    fetcher.add_partitions({partition: initial_fetch_state(cfg.topic_ids.get(partition.topic), 3, leader_epoch=5)})

    # no truncation this time
    fetcher.do_work()

    assert truncations == 1
    assert replica_state.log_end_offset == 2


def test_truncation_on_fetch_skipped_if_partition_removed(cfg: Config) -> None:
    if not cfg.truncate_on_fetch:
        pytest.skip("assumeTrue(truncateOnFetch)")
    partition = TopicPartition("topic", 0)
    truncations = 0

    class Fetcher(MockFetcherThread):
        def truncate(self, topic_partition: TopicPartition, truncation_state: OffsetTruncationState) -> None:
            nonlocal truncations
            truncations += 1
            super().truncate(topic_partition, truncation_state)

    fetcher = _fetcher(_leader(cfg), Fetcher)
    replica_state = PartitionState.of(_replica_log_0_2_4(), leader_epoch=5, high_watermark=2)
    fetcher.set_replica_state(partition, replica_state)

    # a partition the thread owns is truncated on the fetch response's diverging epoch
    fetcher.add_partitions({partition: initial_fetch_state(uuid.uuid4(), 6, leader_epoch=4)})
    end_offset = EpochEndOffset(partition=partition.partition, error_code=Errors.NONE, leader_epoch=4, end_offset=3)
    fetcher.truncate_on_fetch_response({partition: end_offset})
    assert truncations == 1

    # a partition removed from the thread is not
    offsets = fetcher.remove_partitions({partition})
    assert set(offsets) == {partition}
    assert offsets[partition].fetch_offset == 3
    new_end_offset = EpochEndOffset(partition=partition.partition, error_code=Errors.NONE, leader_epoch=4,
                                    end_offset=2)
    fetcher.truncate_on_fetch_response({partition: new_end_offset})
    assert truncations == 1


def test_follower_fetch_out_of_range_high(cfg: Config) -> None:
    partition = TopicPartition("topic", 0)
    fetcher = _fetcher(_leader(cfg))

    replica_state = PartitionState.of(_replica_log_0_2_4(), leader_epoch=4, high_watermark=0)
    fetcher.set_replica_state(partition, replica_state)
    fetcher.add_partitions({partition: initial_fetch_state(cfg.topic_ids.get(partition.topic), 3, leader_epoch=4)})

    leader_state = PartitionState.of(_replica_log_0_2_4(), leader_epoch=4, high_watermark=2)
    fetcher.mock_leader.set_leader_state(partition, leader_state)
    fetcher.mock_leader.set_replica_partition_state_callback(fetcher.replica_partition_state)

    # initial truncation; the log end offset is updated
    fetcher.do_work()
    assert replica_state.log_end_offset == 3
    assert fetcher.fetch_state(partition).state == Fetching

    # the leader's log changes without a truncation phase
    leader_state.log.clear()
    leader_state.log_end_offset = 0
    leader_state.log_start_offset = 0
    leader_state.high_watermark = 0

    fetcher.do_work()

    assert replica_state.log_end_offset == 0
    assert replica_state.log_start_offset == 0
    assert replica_state.high_watermark == 0


def test_fenced_offset_reset_after_out_of_range(cfg: Config, failed_partitions: FailedPartitions) -> None:
    partition = TopicPartition("topic", 0)
    fetched_earliest_offset = False

    class Leader(MockLeaderEndPoint):
        def fetch_earliest_offset(self, topic_partition: TopicPartition, leader_epoch: int) -> OffsetAndEpoch:
            nonlocal fetched_earliest_offset
            fetched_earliest_offset = True
            raise FencedLeaderEpochException(f"Epoch {leader_epoch} is fenced")

        def fetch_earliest_local_offset(self, topic_partition: TopicPartition, leader_epoch: int) -> OffsetAndEpoch:
            nonlocal fetched_earliest_offset
            fetched_earliest_offset = True
            raise FencedLeaderEpochException(f"Epoch {leader_epoch} is fenced")

    fetcher = _fetcher(_leader(cfg, Leader), failed_partitions=failed_partitions)

    replica_state = PartitionState.of([], leader_epoch=4, high_watermark=0)
    fetcher.set_replica_state(partition, replica_state)
    fetcher.add_partitions({partition: initial_fetch_state(cfg.topic_ids.get(partition.topic), 0, leader_epoch=4)})

    leader_log = [mk_batch(1, 2, SimpleRecord(b"b")), mk_batch(2, 4, SimpleRecord(b"c"))]
    leader_state = PartitionState.of(leader_log, leader_epoch=4, high_watermark=2)
    fetcher.mock_leader.set_leader_state(partition, leader_state)
    fetcher.mock_leader.set_replica_partition_state_callback(fetcher.replica_partition_state)

    # out of range, then fenced: the partition is removed and marked failed
    fetcher.do_work()
    assert replica_state.log_end_offset == 0
    assert fetched_earliest_offset
    assert fetcher.fetch_state(partition) is None
    assert failed_partitions.contains(partition)


def test_follower_fetch_out_of_range_low(cfg: Config, failed_partitions: FailedPartitions) -> None:
    partition = TopicPartition("topic", 0)
    fetcher = _fetcher(_leader(cfg), failed_partitions=failed_partitions)

    # the follower starts behind the leader's log start offset
    replica_state = PartitionState.of([mk_batch(0, 0, SimpleRecord(b"a"))], leader_epoch=0, high_watermark=0)
    fetcher.set_replica_state(partition, replica_state)
    fetcher.add_partitions({partition: initial_fetch_state(cfg.topic_ids.get(partition.topic), 3, leader_epoch=0)})

    leader_state = PartitionState.of([mk_batch(2, 4, SimpleRecord(b"c"))], leader_epoch=0, high_watermark=2)
    fetcher.mock_leader.set_leader_state(partition, leader_state)
    fetcher.mock_leader.set_replica_partition_state_callback(fetcher.replica_partition_state)

    # initial truncation; the log start offset is updated
    fetcher.do_work()
    if cfg.truncate_on_fetch:
        # the first round truncated on the diverging epoch
        fetcher.do_work()
    assert fetcher.fetch_state(partition).state == Fetching
    assert replica_state.log_start_offset == 2
    assert replica_state.log == []

    _reconcile(fetcher, partition)

    assert replica_state.log_start_offset == leader_state.log_start_offset
    assert replica_state.log_end_offset == leader_state.log_end_offset
    assert replica_state.high_watermark == leader_state.high_watermark


def test_retry_after_unknown_leader_epoch_in_latest_offset_fetch(cfg: Config) -> None:
    partition = TopicPartition("topic", 0)

    class Leader(MockLeaderEndPoint):
        tries = 0

        def fetch_latest_offset(self, topic_partition: TopicPartition, leader_epoch: int) -> OffsetAndEpoch:
            tries, self.tries = self.tries, self.tries + 1
            if tries == 0:
                raise UnknownLeaderEpochException("Unexpected leader epoch")
            return super().fetch_latest_offset(topic_partition, leader_epoch)

    fetcher = _fetcher(_leader(cfg, Leader))

    # the follower starts behind the leader's log start offset
    replica_state = PartitionState.of([mk_batch(0, 0, SimpleRecord(b"a"))], leader_epoch=0, high_watermark=0)
    fetcher.set_replica_state(partition, replica_state)
    fetcher.add_partitions({partition: initial_fetch_state(cfg.topic_ids.get(partition.topic), 3, leader_epoch=0)})

    leader_state = PartitionState.of([mk_batch(2, 4, SimpleRecord(b"c"))], leader_epoch=0, high_watermark=2)
    fetcher.mock_leader.set_leader_state(partition, leader_state)
    fetcher.mock_leader.set_replica_partition_state_callback(fetcher.replica_partition_state)

    # initial truncation and the first error response
    fetcher.do_work()
    assert fetcher.fetch_state(partition).state == Fetching

    _reconcile(fetcher, partition)

    assert replica_state.log_start_offset == leader_state.log_start_offset
    assert replica_state.log_end_offset == leader_state.log_end_offset
    assert replica_state.high_watermark == leader_state.high_watermark


def test_corrupt_message(cfg: Config) -> None:
    partition = TopicPartition("topic", 0)

    class Leader(MockLeaderEndPoint):
        fetched_once = False

        def fetch(self, fetch_request):  # type: ignore[no-untyped-def]
            fetched_data = super().fetch(fetch_request)
            if not self.fetched_once:
                buffer = next(iter(fetched_data.values())).records.buffer()
                for index, mask in ((15, 23422), (30, 93242)):
                    struct.pack_into(">i", buffer, index, struct.unpack_from(">i", buffer, index)[0] ^ mask)
                self.fetched_once = True
            return fetched_data

    fetcher = _fetcher(_leader(cfg, Leader))

    fetcher.set_replica_state(partition, PartitionState.of(leader_epoch=0))
    fetcher.add_partitions({partition: initial_fetch_state(cfg.topic_ids.get(partition.topic), 0, leader_epoch=0)})
    fetcher.mock_leader.set_replica_partition_state_callback(fetcher.replica_partition_state)

    batch = mk_batch(0, 0, *_ab())
    leader_state = PartitionState.of([batch], leader_epoch=0, high_watermark=2)
    fetcher.mock_leader.set_leader_state(partition, leader_state)

    fetcher.do_work()  # fails on the corrupt record
    fetcher.do_work()  # succeeds

    replica_state = fetcher.replica_partition_state(partition)
    assert replica_state.log_end_offset == 2


def test_leader_epoch_change_during_fenced_fetch_epochs_from_leader(cfg: Config) -> None:
    # The leader is on the new epoch when the OffsetsForLeaderEpoch of the old one arrives, so it answers fenced;
    # the answer is ignored as the follower's epoch changed meanwhile, and the next round truncates and fetches.
    _test_leader_epoch_change_during_fetch_epochs_from_leader(cfg, leader_epoch_on_leader=1)


def test_leader_epoch_change_during_successful_fetch_epochs_from_leader(cfg: Config) -> None:
    # The leader is still on the old epoch and answers; the answer is ignored as the follower's epoch changed
    # meanwhile, and once the leader is on the new epoch too the follower truncates and fetches.
    _test_leader_epoch_change_during_fetch_epochs_from_leader(cfg, leader_epoch_on_leader=0)


def _test_leader_epoch_change_during_fetch_epochs_from_leader(cfg: Config, leader_epoch_on_leader: int) -> None:
    partition = TopicPartition("topic", 1)
    initial_leader_epoch_on_follower = 0
    next_leader_epoch_on_follower = initial_leader_epoch_on_follower + 1

    class Leader(MockLeaderEndPoint):
        fetch_epochs_from_leader_once = False

        def fetch_epoch_end_offsets(self, partitions):  # type: ignore[no-untyped-def]
            fetched_epochs = super().fetch_epoch_end_offsets(partitions)
            if not self.fetch_epochs_from_leader_once:
                self.response_callback()
                self.fetch_epochs_from_leader_once = True
            return fetched_epochs

    fetcher = _fetcher(_leader(cfg, Leader))

    def change_leader_epoch_while_fetch_epoch() -> None:
        fetcher.remove_partitions({partition})
        fetcher.set_replica_state(partition, PartitionState.of(leader_epoch=next_leader_epoch_on_follower))
        fetcher.add_partitions({partition: initial_fetch_state(cfg.topic_ids.get(partition.topic), 0,
                                                               leader_epoch=next_leader_epoch_on_follower)},
                               force_truncation=True)

    fetcher.set_replica_state(partition, PartitionState.of(leader_epoch=initial_leader_epoch_on_follower))
    fetcher.add_partitions({partition: initial_fetch_state(cfg.topic_ids.get(partition.topic), 0,
                                                           leader_epoch=initial_leader_epoch_on_follower)},
                           force_truncation=True)

    leader_log = [mk_batch(0, initial_leader_epoch_on_follower, SimpleRecord(b"c"))]
    leader_state = PartitionState.of(leader_log, leader_epoch_on_leader, high_watermark=0)
    fetcher.mock_leader.set_leader_state(partition, leader_state)
    fetcher.mock_leader.set_response_callback(change_leader_epoch_while_fetch_epoch)
    fetcher.mock_leader.set_replica_partition_state_callback(fetcher.replica_partition_state)

    # first round of truncation
    fetcher.do_work()

    # the epochs' answer is ignored: the partition is truncating again, on the new epoch
    assert fetcher.fetch_state(partition).state == Truncating
    assert fetcher.fetch_state(partition).current_leader_epoch == next_leader_epoch_on_follower

    if leader_epoch_on_leader < next_leader_epoch_on_follower:
        fetcher.mock_leader.set_leader_state(
            partition, PartitionState.of(leader_log, next_leader_epoch_on_follower, high_watermark=0))

    # now it truncates and fetches
    fetcher.do_work()
    assert fetcher.replica_partition_state(partition).log == fetcher.mock_leader.leader_partition_state(partition).log


def test_truncate_to_epoch_end_offsets_during_remove_partitions(cfg: Config) -> None:
    partition = TopicPartition("topic", 0)
    leader_epoch_on_leader = 0
    initial_leader_epoch_on_follower = 0
    next_leader_epoch_on_follower = initial_leader_epoch_on_follower + 1

    class Leader(MockLeaderEndPoint):
        def fetch_epoch_end_offsets(self, partitions):  # type: ignore[no-untyped-def]
            fetched_epochs = super().fetch_epoch_end_offsets(partitions)
            self.response_callback()
            return fetched_epochs

    fetcher = _fetcher(_leader(cfg, Leader))

    def change_leader_epoch_during_fetch_epoch() -> None:
        # the epoch changes while the epochs are fetched, and the manager removes the partition meanwhile
        fetcher.remove_partitions({partition})
        fetcher.set_replica_state(partition, PartitionState.of(leader_epoch=next_leader_epoch_on_follower))

    fetcher.set_replica_state(partition, PartitionState.of(leader_epoch=initial_leader_epoch_on_follower))
    fetcher.add_partitions({partition: initial_fetch_state(cfg.topic_ids.get(partition.topic), 0,
                                                           leader_epoch=initial_leader_epoch_on_follower)})

    leader_log = [mk_batch(0, initial_leader_epoch_on_follower, SimpleRecord(b"c"))]
    leader_state = PartitionState.of(leader_log, leader_epoch_on_leader, high_watermark=0)
    fetcher.mock_leader.set_leader_state(partition, leader_state)
    fetcher.mock_leader.set_response_callback(change_leader_epoch_during_fetch_epoch)
    fetcher.mock_leader.set_replica_partition_state_callback(fetcher.replica_partition_state)

    # first round
    fetcher.do_work()

    # removed before the answers were checked against the epoch: not Truncating, not there at all
    assert fetcher.fetch_state(partition) is None

    fetcher.mock_leader.set_leader_state(
        partition, PartitionState.of(leader_log, next_leader_epoch_on_follower, high_watermark=0))

    # the fetcher carries on
    fetcher.do_work()
    assert fetcher.replica_partition_state(partition).log == []


def test_truncation_throws_exception_if_leader_returns_partitions_not_requested_in_fetch_epochs(
        cfg: Config) -> None:
    partition = TopicPartition("topic", 0)

    class Leader(MockLeaderEndPoint):
        def fetch_epoch_end_offsets(self, partitions):  # type: ignore[no-untyped-def]
            unrequested_tp = TopicPartition("topic2", 0)
            return {**super().fetch_epoch_end_offsets(partitions),
                    unrequested_tp: EpochEndOffset(partition=unrequested_tp.partition, error_code=Errors.NONE,
                                                   leader_epoch=0, end_offset=0)}

    fetcher = _fetcher(_leader(cfg, Leader))

    fetcher.set_replica_state(partition, PartitionState.of(leader_epoch=0))
    fetcher.add_partitions({partition: initial_fetch_state(cfg.topic_ids.get(partition.topic), 0, leader_epoch=0)},
                           force_truncation=True)
    fetcher.mock_leader.set_leader_state(partition, PartitionState.of(leader_epoch=0))
    fetcher.mock_leader.set_replica_partition_state_callback(fetcher.replica_partition_state)

    # the first round of truncation throws
    with pytest.raises(IllegalStateException):
        fetcher.do_work()


def test_fetcher_thread_handling_partition_failure_during_appending(cfg: Config,
                                                                     failed_partitions: FailedPartitions) -> None:
    class Fetcher(MockFetcherThread):
        def process_partition_data(self, topic_partition, fetch_offset, partition_data):  # type: ignore[no-untyped-def]
            if topic_partition == PARTITION1:
                raise KafkaException()
            return super().process_partition_data(topic_partition, fetch_offset, partition_data)

    fetcher = _fetcher(_leader(cfg), Fetcher, failed_partitions=failed_partitions)
    _verify_fetcher_thread_handling_partition_failure(cfg, fetcher, failed_partitions)


def test_fetcher_thread_handling_partition_failure_during_truncation(cfg: Config,
                                                                      failed_partitions: FailedPartitions) -> None:
    class Fetcher(MockFetcherThread):
        def truncate(self, topic_partition: TopicPartition, truncation_state: OffsetTruncationState) -> None:
            if topic_partition == PARTITION1:
                raise Exception()
            super().truncate(topic_partition, truncation_state)

    fetcher = _fetcher(_leader(cfg), Fetcher, failed_partitions=failed_partitions)
    _verify_fetcher_thread_handling_partition_failure(cfg, fetcher, failed_partitions)


def _verify_fetcher_thread_handling_partition_failure(cfg: Config, fetcher: MockFetcherThread,
                                                      failed_partitions: FailedPartitions) -> None:
    fetcher.set_replica_state(PARTITION1, PartitionState.of(leader_epoch=0))
    fetcher.add_partitions({PARTITION1: initial_fetch_state(cfg.topic_ids.get(PARTITION1.topic), 0, leader_epoch=0)},
                           force_truncation=True)
    fetcher.mock_leader.set_leader_state(PARTITION1, PartitionState.of(leader_epoch=0))

    fetcher.set_replica_state(PARTITION2, PartitionState.of(leader_epoch=0))
    fetcher.add_partitions({PARTITION2: initial_fetch_state(cfg.topic_ids.get(PARTITION2.topic), 0, leader_epoch=0)},
                           force_truncation=True)
    fetcher.mock_leader.set_leader_state(PARTITION2, PartitionState.of(leader_epoch=0))
    fetcher.mock_leader.set_replica_partition_state_callback(fetcher.replica_partition_state)

    # partition1 fails
    fetcher.do_work()

    # partition1 is marked failed
    assert failed_partitions.contains(PARTITION1)
    assert fetcher.fetch_state(PARTITION1) is None

    # the other partitions go on
    fetcher.do_work()
    assert fetcher.fetch_state(PARTITION2).state == Fetching
    assert not failed_partitions.contains(PARTITION2)

    # a leader change
    fetcher.remove_partitions({PARTITION1})
    failed_partitions.remove_all({PARTITION1})
    fetcher.add_partitions({PARTITION1: initial_fetch_state(cfg.topic_ids.get(PARTITION1.topic), 0, leader_epoch=1)},
                           force_truncation=True)

    # partition1 is back
    assert fetcher.fetch_state(PARTITION1).state == Truncating
    assert not failed_partitions.contains(PARTITION1)


def test_diverging_epochs(cfg: Config) -> None:
    partition = TopicPartition("topic", 0)
    fetcher = _fetcher(_leader(cfg))

    replica_state = PartitionState.of(_replica_log_0_2_4(), leader_epoch=5, high_watermark=0)
    fetcher.set_replica_state(partition, replica_state)
    fetcher.add_partitions({partition: initial_fetch_state(cfg.topic_ids.get(partition.topic), 3, leader_epoch=5)})
    assert replica_state.log_end_offset == 3
    fetcher.verify_last_fetched_epoch(partition, expected_epoch=4)

    leader_log = [mk_batch(0, 0, SimpleRecord(b"a")), mk_batch(1, 2, SimpleRecord(b"b")),
                  mk_batch(2, 5, SimpleRecord(b"d"))]
    leader_state = PartitionState.of(leader_log, leader_epoch=5, high_watermark=2)
    fetcher.mock_leader.set_leader_state(partition, leader_state)
    fetcher.mock_leader.set_replica_partition_state_callback(fetcher.replica_partition_state)

    fetcher.do_work()
    fetcher.verify_last_fetched_epoch(partition, 2)

    _reconcile(fetcher, partition)
    fetcher.verify_last_fetched_epoch(partition, 5)


def test_truncate_on_fetch_does_not_process_partition_data(cfg: Config) -> None:
    if not cfg.truncate_on_fetch:
        pytest.skip("assumeTrue(truncateOnFetch)")
    partition = TopicPartition("topic", 0)
    truncate_calls = 0
    process_partition_data_calls = 0

    class Fetcher(MockFetcherThread):
        def process_partition_data(self, topic_partition, fetch_offset, partition_data):  # type: ignore[no-untyped-def]
            nonlocal process_partition_data_calls
            process_partition_data_calls += 1
            return super().process_partition_data(topic_partition, fetch_offset, partition_data)

        def truncate(self, topic_partition: TopicPartition, truncation_state: OffsetTruncationState) -> None:
            nonlocal truncate_calls
            truncate_calls += 1
            super().truncate(topic_partition, truncation_state)

    fetcher = _fetcher(_leader(cfg), Fetcher)

    replica_log = [mk_batch(0, 0, SimpleRecord(b"a")), mk_batch(1, 0, SimpleRecord(b"b")),
                   mk_batch(2, 2, SimpleRecord(b"c")), mk_batch(3, 4, SimpleRecord(b"d")),
                   mk_batch(4, 4, SimpleRecord(b"e")), mk_batch(5, 4, SimpleRecord(b"f"))]
    replica_state = PartitionState.of(replica_log, leader_epoch=5, high_watermark=1)
    fetcher.set_replica_state(partition, replica_state)
    fetcher.add_partitions({partition: initial_fetch_state(cfg.topic_ids.get(partition.topic), 3, leader_epoch=5)})
    assert replica_state.log_end_offset == 6
    fetcher.verify_last_fetched_epoch(partition, expected_epoch=4)

    leader_log = [mk_batch(0, 0, SimpleRecord(b"a")), mk_batch(1, 0, SimpleRecord(b"b")),
                  mk_batch(2, 2, SimpleRecord(b"c")), mk_batch(3, 5, SimpleRecord(b"g")),
                  mk_batch(4, 5, SimpleRecord(b"h"))]
    leader_state = PartitionState.of(leader_log, leader_epoch=5, high_watermark=4)
    fetcher.mock_leader.set_leader_state(partition, leader_state)
    fetcher.mock_leader.set_replica_partition_state_callback(fetcher.replica_partition_state)

    # the first fetch truncates the follower's log and does not process the data: the watermarks stay
    fetcher.do_work()

    assert truncate_calls == 1
    assert process_partition_data_calls == 0
    assert replica_state.log_end_offset == 3
    assert replica_state.high_watermark == 1

    # no more truncation; the data is processed and the log end offset and high watermark move
    _reconcile(fetcher, partition)
    fetcher.verify_last_fetched_epoch(partition, 5)

    assert truncate_calls == 1
    assert process_partition_data_calls >= 1
    assert replica_state.log_end_offset == 5
    assert replica_state.high_watermark == 4


def test_maybe_update_topic_ids(cfg: Config) -> None:
    partition = TopicPartition("topic1", 0)
    fetcher = _fetcher(_leader(cfg))

    # no topic ids at first
    fetcher.set_replica_state(partition, PartitionState.of(leader_epoch=0))
    fetcher.add_partitions({partition: initial_fetch_state(None, 0, leader_epoch=0)})

    def verify_fetch_state(fetch_state: PartitionFetchState | None, expected_topic_id: uuid.UUID | None) -> None:
        assert fetch_state is not None
        assert fetch_state.topic_id == expected_topic_id

    verify_fetch_state(fetcher.fetch_state(partition), None)

    # the topic id arrives
    fetcher.maybe_update_topic_ids({partition}, lambda topic_name: cfg.topic_ids.get(topic_name))
    verify_fetch_state(fetcher.fetch_state(partition), cfg.topic_ids.get(partition.topic))

    # a partition the thread does not have is left alone
    unknown_partition = TopicPartition("unknown", 0)
    fetcher.maybe_update_topic_ids({unknown_partition}, lambda topic_name: cfg.topic_ids.get(topic_name))
    assert fetcher.fetch_state(unknown_partition) is None
