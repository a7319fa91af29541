"""Port of core/src/test/scala/unit/kafka/server/AbstractFetcherManagerTest.scala (Kafka 3.9).

Mockito's mocks of AbstractFetcherThread are unittest.mock.Mock(spec=...): `when(..).thenReturn(a).thenReturn(b)`
is a side_effect list, `verify` an assert_called. Uuid.randomUuid() is a random uuid.UUID (kio's topic ids).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any
from unittest import mock

from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.cluster.broker_end_point import BrokerEndPoint
from kafka_edu.v3_9.core.server.abstract_fetcher_manager import (
    AbstractFetcherManager,
    FailedPartitions,
    InitialFetchState,
)
from kafka_edu.v3_9.core.server.abstract_fetcher_thread import (
    AbstractFetcherThread,
    OffsetTruncationState,
    PartitionFetchState,
    ResultWithPartitions,
    Truncating,
)
from kafka_edu.v3_9.core.server.leader_end_point import LeaderEndPoint
from kafka_edu.v3_9.server_common.server.common.offset_and_epoch import OffsetAndEpoch
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/server/AbstractFetcherManagerTest.scala",
    cases=["testAddAndRemovePartition", "testMetricFailedPartitionCount", "testDeadThreadCountMetric",
           "testMaybeUpdateTopicIds", "testExpandThreadPool", "testShrinkThreadPool"],
    not_applicable={
        "testMetricFailedPartitionCount": "metrics: the port has no metrics registry to read the FailedPartitionsCount "
                                          "gauge from (its value, failed_partitions.size(), is kept)",
    },
)


class _Manager(AbstractFetcherManager[AbstractFetcherThread]):
    def __init__(self, fetcher: Any, num_fetchers: int = 2) -> None:
        super().__init__("fetcher-manager", "fetcher-manager", num_fetchers)
        self._fetcher = fetcher

    def create_fetcher_thread(self, fetcher_id: int, source_broker: BrokerEndPoint) -> Any:
        return self._fetcher


def _mock_fetcher() -> mock.Mock:
    fetcher = mock.Mock(spec=AbstractFetcherThread)
    fetcher.leader = MockLeaderEndPoint(BrokerEndPoint(0, "localhost", 9092))
    return fetcher


def test_add_and_remove_partition() -> None:
    fetcher = _mock_fetcher()
    fetcher_manager = _Manager(fetcher)

    fetch_offset = 10
    leader_epoch = 15
    tp = TopicPartition("topic", 0)
    topic_id = uuid.uuid4()
    initial_fetch_state = InitialFetchState(topic_id=topic_id, leader=BrokerEndPoint(0, "localhost", 9092),
                                            current_leader_epoch=leader_epoch, init_offset=fetch_offset)

    fetcher.add_partitions.return_value = {tp}
    fetcher.fetch_state.side_effect = [
        PartitionFetchState(topic_id, fetch_offset, None, leader_epoch, state=Truncating, last_fetched_epoch=None),
        None]
    fetcher.remove_partitions.return_value = {}

    fetcher_manager.add_fetcher_for_partitions({tp: initial_fetch_state})
    assert fetcher_manager.get_fetcher(tp) is fetcher

    fetcher_manager.remove_fetcher_for_partitions({tp})
    assert fetcher_manager.get_fetcher(tp) is None

    fetcher.start.assert_called_once_with()


def test_dead_thread_count_metric() -> None:
    fetcher = _mock_fetcher()
    fetcher_manager = _Manager(fetcher)

    tp = TopicPartition("topic", 0)
    initial_fetch_state = InitialFetchState(topic_id=uuid.uuid4(), leader=BrokerEndPoint(0, "localhost", 9092),
                                            current_leader_epoch=15, init_offset=10)

    fetcher.add_partitions.return_value = {tp}
    fetcher.is_thread_failed = True

    fetcher_manager.add_fetcher_for_partitions({tp: initial_fetch_state})

    assert fetcher_manager.dead_thread_count == 1
    fetcher.start.assert_called_once_with()

    fetcher.is_thread_failed = False
    assert fetcher_manager.dead_thread_count == 0


def test_maybe_update_topic_ids() -> None:
    fetcher = _mock_fetcher()
    fetcher_manager = _Manager(fetcher)

    fetch_offset = 10
    leader_epoch = 15
    tp1 = TopicPartition("topic1", 0)
    tp2 = TopicPartition("topic2", 0)
    unknown_tp = TopicPartition("topic2", 1)
    topic_id1 = uuid.uuid4()
    topic_id2 = uuid.uuid4()

    # no topic id at first
    initial_fetch_state1 = InitialFetchState(topic_id=None, leader=BrokerEndPoint(0, "localhost", 9092),
                                             current_leader_epoch=leader_epoch, init_offset=fetch_offset)
    # a partition on another leader
    initial_fetch_state2 = InitialFetchState(topic_id=None, leader=BrokerEndPoint(1, "localhost", 9092),
                                             current_leader_epoch=leader_epoch, init_offset=fetch_offset)

    def fetch_state_of(tp1_states: list, tp2_states: list) -> Any:
        answers = {tp1: iter(tp1_states), tp2: iter(tp2_states)}

        def fetch_state(tp: TopicPartition) -> PartitionFetchState | None:
            return next(answers[tp]) if tp in answers else None  # unknown_tp: None
        return fetch_state

    def state(topic_id: uuid.UUID | None) -> PartitionFetchState:
        return PartitionFetchState(topic_id, fetch_offset, None, leader_epoch, state=Truncating,
                                   last_fetched_epoch=None)

    fetcher.add_partitions.side_effect = lambda states: set(states)
    fetcher.fetch_state.side_effect = fetch_state_of([state(None), state(topic_id1)],
                                                     [state(None), state(topic_id2)])

    topic_ids = {tp1.topic: topic_id1, tp2.topic: topic_id2}
    topic_ids_of = topic_ids.get

    def verify_fetch_state(fetch_state: PartitionFetchState | None, expected_topic_id: uuid.UUID | None) -> None:
        assert fetch_state is not None
        assert fetch_state.topic_id == expected_topic_id

    fetcher_manager.add_fetcher_for_partitions({tp1: initial_fetch_state1, tp2: initial_fetch_state2})
    verify_fetch_state(fetcher.fetch_state(tp1), None)
    verify_fetch_state(fetcher.fetch_state(tp2), None)

    partitions_to_update = {tp1: initial_fetch_state1.leader.id, tp2: initial_fetch_state2.leader.id}
    fetcher_manager.maybe_update_topic_ids(partitions_to_update, topic_ids_of)
    verify_fetch_state(fetcher.fetch_state(tp1), topic_id1)
    verify_fetch_state(fetcher.fetch_state(tp2), topic_id2)

    # a fetcher that does not exist, and a partition that does not
    invalid_partitions_to_update = {tp1: 2, unknown_tp: initial_fetch_state1.leader.id}
    fetcher_manager.maybe_update_topic_ids(invalid_partitions_to_update, topic_ids_of)
    assert fetcher.fetch_state(unknown_tp) is None

    fetcher.maybe_update_topic_ids.assert_any_call({unknown_tp}, topic_ids_of)
    fetcher.maybe_update_topic_ids.assert_any_call({tp1}, topic_ids_of)
    fetcher.maybe_update_topic_ids.assert_any_call({tp2}, topic_ids_of)
    # Mockito's verify(..) means exactly once each
    calls = [c.args[0] for c in fetcher.maybe_update_topic_ids.call_args_list]
    assert sorted(map(sorted, calls)) == sorted([[unknown_tp], [tp1], [tp2]])


def test_expand_thread_pool() -> None:
    _test_resize_thread_pool(10, 50)


def test_shrink_thread_pool() -> None:
    _test_resize_thread_pool(50, 10)


def _test_resize_thread_pool(current_fetcher_size: int, new_fetcher_size: int, broker_num: int = 6) -> None:
    fetching_topic_partitions = _make_topic_partition(10, 100)
    failed_topic_partitions = _make_topic_partition(2, 5, "topic_failed")

    class Manager(AbstractFetcherManager[AbstractFetcherThread]):
        def create_fetcher_thread(self, fetcher_id: int, source_broker: BrokerEndPoint) -> AbstractFetcherThread:
            return TestResizeFetcherThread(source_broker, self.failed_partitions,
                                           MockResizeFetcherTierStateMachine())

    fetcher_manager = Manager("fetcher-manager", "fetcher-manager", current_fetcher_size)
    try:
        initial_states = {}
        for tp in fetching_topic_partitions:
            broker_id = _get_broker_id(tp, broker_num)
            initial_states[tp] = InitialFetchState(None, BrokerEndPoint(broker_id, f"kafka-host-{broker_id}", 9092),
                                                   0, 0)
        fetcher_manager.add_fetcher_for_partitions(initial_states)

        # some of them failed, within the resizing's scope
        for tp in list(fetching_topic_partitions)[:20]:
            fetcher_manager.add_failed_partition(tp)
        # and failed partitions outside it
        for tp in failed_topic_partitions:
            fetcher_manager.add_failed_partition(tp)

        fetcher_manager.resize_thread_pool(new_fetcher_size)

        owned_partitions: set[TopicPartition] = set()
        for broker_id_and_fetcher_id, fetcher_thread in fetcher_manager.fetcher_thread_map.items():
            fetcher_id = broker_id_and_fetcher_id.fetcher_id
            broker_id = broker_id_and_fetcher_id.broker_id
            for tp in fetcher_thread.partitions:
                owned_partitions.add(tp)
                assert fetcher_manager.get_fetcher_id(tp) == fetcher_id
                assert _get_broker_id(tp, broker_num) == broker_id
        # every partition is owned by a fetcher thread
        assert owned_partitions == fetching_topic_partitions

        # only the failed partitions outside the resizing stay failed
        assert fetcher_manager.failed_partitions.partitions() == failed_topic_partitions
    finally:
        fetcher_manager.close_all_fetchers()


def _make_topic_partition(topic_num: int, partition_num: int, topic_prefix: str = "topic_") -> set[TopicPartition]:
    return {TopicPartition(f"{topic_prefix}{i}", j) for i in range(topic_num) for j in range(partition_num)}


def _int32(n: int) -> int:
    n &= 0xFFFFFFFF
    return n - (1 << 32) if n >= 1 << 31 else n


def _topic_partition_hash_code(tp: TopicPartition) -> int:
    """TopicPartition.hashCode: 31 * (31 + partition) + topic.hashCode(), in int arithmetic."""
    h = 0
    for unit in tp.topic.encode("utf-16-be").hex(" ", 2).split():
        h = _int32(31 * h + int(unit, 16))
    return _int32(31 * (31 + tp.partition) + h)


def _get_broker_id(tp: TopicPartition, broker_num: int) -> int:
    hash_code = _topic_partition_hash_code(tp)
    return (0 if hash_code == -(1 << 31) else abs(hash_code)) % broker_num  # Utils.abs


class MockLeaderEndPoint(LeaderEndPoint):
    def __init__(self, source_broker: BrokerEndPoint) -> None:
        self._source_broker = source_broker

    def initiate_close(self) -> None:
        pass

    def close(self) -> None:
        pass

    def broker_end_point(self) -> BrokerEndPoint:
        return self._source_broker

    def fetch(self, fetch_request: Any) -> Mapping[TopicPartition, Any]:
        return {}

    def fetch_earliest_offset(self, topic_partition: TopicPartition, current_leader_epoch: int) -> OffsetAndEpoch:
        return OffsetAndEpoch(1, 0)

    def fetch_latest_offset(self, topic_partition: TopicPartition, current_leader_epoch: int) -> OffsetAndEpoch:
        return OffsetAndEpoch(1, 0)

    def fetch_epoch_end_offsets(self, partitions: Mapping[TopicPartition, Any]) -> Mapping[TopicPartition, Any]:
        return {}

    def build_fetch(self, partition_map: Mapping[TopicPartition, PartitionFetchState]) -> ResultWithPartitions:
        return ResultWithPartitions(None, set())

    @property
    def is_truncation_on_fetch_supported(self) -> bool:
        return False

    def fetch_earliest_local_offset(self, topic_partition: TopicPartition,
                                    current_leader_epoch: int) -> OffsetAndEpoch:
        return OffsetAndEpoch(1, 0)


class MockResizeFetcherTierStateMachine:
    """Tiered storage is not ported: no TierStateMachine to extend."""

    def start(self, topic_partition: TopicPartition, current_fetch_state: PartitionFetchState,
              fetch_partition_data: Any) -> PartitionFetchState:
        raise NotImplementedError("Materializing tier state is not supported in this test.")


class TestResizeFetcherThread(AbstractFetcherThread):
    __test__ = False  # not a pytest class

    def __init__(self, source_broker: BrokerEndPoint, failed_partitions: FailedPartitions,
                 fetch_tier_state_machine: Any) -> None:
        # Kafka's back-off is 0 ms: its idle threads spin, which hundreds of JVM threads can afford; hundreds of
        # Python threads spinning on the GIL starve the test, so here they wait (woken by shutdown), which the test
        # does not observe
        super().__init__("test-resize-fetcher", "mock-fetcher", MockLeaderEndPoint(source_broker), failed_partitions,
                         fetch_tier_state_machine, fetch_back_off_ms=1000)

    def process_partition_data(self, topic_partition: TopicPartition, fetch_offset: int, partition_data: Any) -> None:
        return None

    def truncate(self, topic_partition: TopicPartition, truncation_state: OffsetTruncationState) -> None:
        pass

    def truncate_fully_and_start_at(self, topic_partition: TopicPartition, offset: int) -> None:
        pass

    def latest_epoch(self, topic_partition: TopicPartition) -> int | None:
        return 0

    def log_start_offset(self, topic_partition: TopicPartition) -> int:
        return 1

    def log_end_offset(self, topic_partition: TopicPartition) -> int:
        return 1

    def end_offset_for_epoch(self, topic_partition: TopicPartition, epoch: int) -> OffsetAndEpoch | None:
        return OffsetAndEpoch(1, 0)

    @property
    def is_offset_for_leader_epoch_supported(self) -> bool:
        return False
