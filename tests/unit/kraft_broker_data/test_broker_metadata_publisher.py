"""BrokerMetadataPublisher (Kafka 3.9): installed on a real MetadataLoader, it gets nothing while the loader catches
up, then the whole image once, which starts the managers; the group coordinator (through its adapter) is elected
for the __consumer_offsets partitions this broker comes to lead, loading each once, and resigns those it stops
leading; a deleted topic's committed offsets go."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kafka_edu.v1_0_2.clients.common.errors import TimeoutException
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.server.replica_manager import HIGH_WATERMARK_FILENAME
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_runtime import CoordinatorState
from kafka_edu.v3_9.metadata.common.metadata import ApiMessageAndVersion, PartitionChangeRecord
from kafka_edu.v3_9.metadata.image.loader.metadata_loader import MetadataLoader
from kafka_edu.v3_9.raft.raft.batch import Batch
from kafka_edu.v3_9.raft.raft.batch_reader import CloseListener
from kafka_edu.v3_9.raft.raft.internals.memory_batch_reader import MemoryBatchReader
from tests.integration.helpers import wait_until
from tests.unit.image.records import (
    ORDERS,
    change_leader,
    feature_level,
    no_op,
    partition,
    register_broker,
    remove_topic,
    topic,
    unfence,
)
from tests.unit.kraft_broker_data.local_broker import LocalBroker

OFFSETS = uuid.UUID(int=0x0FF)
TIMEOUT = 10.0


class _Closes(CloseListener):
    def on_close(self, closeable: Any) -> None:
        pass


class RaftLog:
    """Hands the loader committed batches at consecutive offsets, as the raft client does."""

    def __init__(self, loader: MetadataLoader) -> None:
        self.loader = loader
        self.next_offset = 0
        self.high_watermark: int | None = None

    def commit(self, *records: ApiMessageAndVersion) -> None:
        batch = Batch.data(self.next_offset, 1, 1_000 + self.next_offset, 50 * len(records), list(records))
        self.next_offset += len(records)
        self.loader.handle_commit(MemoryBatchReader.of([batch], _Closes()))


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[LocalBroker]:
    made = LocalBroker(tmp_path)
    yield made
    made.close()


class Spy:
    """Records the calls to one method of an object and passes them on."""

    def __init__(self, owner: Any, method: str) -> None:
        self.calls: list[tuple] = []
        original = getattr(owner, method)

        def spy(*args: Any) -> Any:
            self.calls.append(args)
            return original(*args)
        setattr(owner, method, spy)


class OwnedPartitions:
    """Which __consumer_offsets partitions 3.9's coordinator runtime has loaded and serves (ACTIVE)."""

    def __init__(self, broker: LocalBroker) -> None:
        self.runtime = broker.group_coordinator._runtime

    def is_partition_owned(self, partition: int) -> bool:
        context = self.runtime._coordinators.get(TopicPartition("__consumer_offsets", partition))
        return context is not None and context.state is CoordinatorState.ACTIVE


class LoadedPartitions(Spy):
    """The partitions the runtime's loader was asked to load, as (partition,) tuples."""

    def __init__(self, broker: LocalBroker) -> None:
        super().__init__(broker.group_coordinator._runtime._loader, "load")

    def __iter__(self) -> Iterator[tuple[int]]:
        return iter([(tp.partition,) for tp, _ in self.calls])


def cluster() -> list[ApiMessageAndVersion]:
    return [feature_level(), register_broker(1, 10), register_broker(2, 11), unfence(1, 10), unfence(2, 11)]


def offsets_topic(leaders: tuple[int, ...]) -> list[ApiMessageAndVersion]:
    """__consumer_offsets with one partition per entry, led by that broker, on brokers 1 and 2."""
    return [topic("__consumer_offsets", OFFSETS)] + [
        partition(OFFSETS, p, (leader, 3 - leader)) for p, leader in enumerate(leaders)]


def test_nothing_is_applied_until_the_loader_has_caught_up_then_the_managers_start_once(broker: LocalBroker
                                                                                         ) -> None:
    initializations = Spy(broker.publisher, "initialize_managers")
    holder: dict[str, RaftLog] = {}
    loader = (MetadataLoader.Builder().set_node_id(1).set_thread_name_prefix("broker-1-")
              .set_high_water_mark_accessor(lambda: holder["log"].high_watermark).build())
    raft_log = holder["log"] = RaftLog(loader)
    try:
        loader.install_publishers([broker.publisher]).result(TIMEOUT)
        raft_log.commit(*cluster())  # offsets 0-4; the high watermark is not known yet
        raft_log.high_watermark = 9
        raft_log.commit(topic("orders", ORDERS), partition(ORDERS, 0, (1, 2)))  # 5-6: still behind offset 8
        loader.wait_for_all_events_to_be_handled()
        assert initializations.calls == [] and not broker.publisher.first_publish_future.done()
        assert broker.replica_manager.all_partitions == {} and broker.metadata_cache.get_all_topics() == set()
        assert not broker.group_coordinator._is_active

        raft_log.commit(partition(ORDERS, 1, (2, 1)), no_op())  # 7-8: caught up
        broker.publisher.first_publish_future.result(TIMEOUT)
        [(first_image,)] = initializations.calls
        assert first_image.offset() == 8 and broker.group_coordinator._is_active
        assert broker.metadata_cache.get_all_topics() == {"orders"}
        assert sorted(map(str, broker.replica_manager.all_partitions)) == ["orders-0", "orders-1"]
        # the high watermark checkpoints started, now that the partitions exist
        wait_until(lambda: (broker.log_dir / HIGH_WATERMARK_FILENAME).exists(), TIMEOUT, "the first HW checkpoint")

        raft_log.commit(change_leader(ORDERS, 1, 1, (1, 2)))
        wait_until(lambda: broker.replica_manager.online_partition(TopicPartition("orders", 1)).is_leader(),
                   TIMEOUT, "the next delta applied")
        assert len(initializations.calls) == 1
    finally:
        loader.close()


def test_the_group_coordinator_loads_the_offsets_partitions_this_broker_leads_once(broker: LocalBroker) -> None:
    manager = OwnedPartitions(broker)
    elections = Spy(broker.group_coordinator, "on_election")
    resignations = Spy(broker.group_coordinator, "on_resignation")
    loads = LoadedPartitions(broker)
    broker.publish(*cluster(), *offsets_topic((1, 2, 1)))
    wait_until(lambda: manager.is_partition_owned(0) and manager.is_partition_owned(2), TIMEOUT, "groups loaded")
    assert sorted(elections.calls) == [(0, 0), (2, 0)] and sorted(loads) == [(0,), (2,)]
    assert resignations.calls == [(1, 0)] and not manager.is_partition_owned(1)  # it follows 1: nothing to own

    # an ISR change on a partition it leads is a "leader" change in 3.9's LocalReplicaChanges, but no election
    broker.publish(ApiMessageAndVersion(PartitionChangeRecord(partition_id=0, topic_id=OFFSETS, isr=(1,)), 1))
    assert sorted(elections.calls) == [(0, 0), (2, 0)] and sorted(loads) == [(0,), (2,)]

    # leadership of 0 moves away (epoch 1), 1 comes here (epoch 1)
    broker.publish(change_leader(OFFSETS, 0, 2, (2, 1)), change_leader(OFFSETS, 1, 1, (1, 2)))
    wait_until(lambda: manager.is_partition_owned(1) and not manager.is_partition_owned(0), TIMEOUT, "moved")
    assert resignations.calls[1:] == [(0, 1)] and sorted(elections.calls) == [(0, 0), (1, 1), (2, 0)]
    assert sorted(loads) == [(0,), (1,), (2,)]

    # a follower's ISR change: 3.9 tells the coordinator to resign again (it owns nothing there, nothing changes)
    broker.publish(ApiMessageAndVersion(PartitionChangeRecord(partition_id=0, topic_id=OFFSETS, isr=(2,)), 1))
    assert resignations.calls[2:] == [(0, 1)] and len(elections.calls) == 3
    assert [p for p in range(3) if manager.is_partition_owned(p)] == [1, 2]


def test_a_deleted_topic_resigns_its_partitions_and_drops_its_offsets(broker: LocalBroker) -> None:
    manager = OwnedPartitions(broker)
    deleted = Spy(broker.group_coordinator, "on_partitions_deleted")
    broker.publish(*cluster(), *offsets_topic((1, 2)), topic("orders", ORDERS), partition(ORDERS, 0, (2, 1)))
    wait_until(lambda: manager.is_partition_owned(0), TIMEOUT, "groups loaded")

    broker.publish(remove_topic(ORDERS))
    assert [sorted(map(str, partitions)) for (partitions,) in deleted.calls] == [["orders-0"]]

    resignations = Spy(broker.group_coordinator, "on_resignation")
    broker.publish(remove_topic(OFFSETS))
    assert resignations.calls == [(0, 0)]  # only the partition it led
    # 3.9's runtime unloads only on a newer epoch: the deleted topic's epoch is the loaded one, so it stays
    broker.group_coordinator._runtime._processor  # noqa: B018 - the unload (if any) is an event on it
    assert manager.is_partition_owned(0)
    assert sorted(map(str, deleted.calls[-1][0])) == ["__consumer_offsets-0", "__consumer_offsets-1"]


def test_a_broker_that_leads_nothing_publishes_without_touching_a_partition(broker: LocalBroker) -> None:
    elections = Spy(broker.group_coordinator, "on_election")
    broker.publish(feature_level(), register_broker(2, 11), register_broker(3, 12), unfence(2, 11), unfence(3, 12),
                   topic("__consumer_offsets", OFFSETS), partition(OFFSETS, 0, (2, 3)),
                   topic("orders", ORDERS), partition(ORDERS, 0, (3, 2)))
    assert broker.publisher.first_publish_future.done() and broker.group_coordinator._is_active
    assert broker.metadata_cache.get_all_topics() == {"__consumer_offsets", "orders"}
    assert broker.replica_manager.all_partitions == {} and elections.calls == []
    assert not any(broker.log_dir.glob("*-0"))


def test_a_failure_to_start_the_managers_fails_the_first_publish(broker: LocalBroker) -> None:
    def fail(*args: Any, **kwargs: Any) -> None:
        raise OSError("disk gone")
    broker.log_manager.startup = fail
    broker.publish(*cluster())
    assert isinstance(broker.publisher.first_publish_future.exception(TIMEOUT), RuntimeError)
    assert not broker.publisher.first_publish


def test_closing_before_the_first_publish_fails_its_future(broker: LocalBroker) -> None:
    broker.publisher.close()
    assert isinstance(broker.publisher.first_publish_future.exception(TIMEOUT), TimeoutException)
