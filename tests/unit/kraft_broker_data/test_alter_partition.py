"""AlterPartitionManager and the KRaft partition's ISR changes (Kafka 3.9): one pending change per partition, one
request in flight, changes made meanwhile batched into the next request, retries after errors; a leader adopts an
ISR only once the controller committed it; and, end to end in-process, a shrink the real QuorumController commits
comes back to the broker through its metadata."""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from kio.schema.alter_partition.v3 import response as apr
from kio.static.primitive import i32, i32Timedelta

from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.codec import encode_request
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.topic_id_partition import TopicIdPartition
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.core.api.leader_and_isr import LeaderAndIsr
from kafka_edu.v3_9.core.cluster.partition import Partition
from kafka_edu.v3_9.core.server.alter_partition_manager import DefaultAlterPartitionManager, error_of
from kafka_edu.v3_9.metadata.common.metadata import ApiMessageAndVersion, BrokerRegistrationChangeRecord
from kafka_edu.v3_9.metadata.controller.controller_request_context import ANONYMOUS_CONTEXT
from kafka_edu.v3_9.metadata.image.loader.metadata_loader import MetadataLoader
from kafka_edu.v3_9.metadata.metadata.partition_registration import LeaderRecoveryState
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from kafka_edu.v3_9.server_common.server.util.kafka_scheduler import KafkaScheduler
from tests.integration.helpers import wait_until
from tests.unit.controller_kraft.kraft_local_log_manager import LocalLogManager
from tests.unit.controller_kraft.test_kraft_quorum_controller import (
    Cluster,
    create_topics_request,
    register_and_unfence,
)
from tests.unit.controller_kraft.test_kraft_quorum_controller import topic as creatable_topic
from tests.unit.image.records import ORDERS, change_leader, feature_level, partition, register_broker, topic, unfence
from tests.unit.kraft_broker_data.local_broker import LocalBroker, RecordingSender, SenderChannel, follower_fetch

TIMEOUT = 10.0
TOPIC_A = uuid.UUID(int=0xA)
TOPIC_B = uuid.UUID(int=0xB)
ORDERS_0 = TopicPartition("orders", 0)


def tip(topic_id: uuid.UUID, name: str, partition_id: int) -> TopicIdPartition:
    return TopicIdPartition(topic_id, TopicPartition(name, partition_id))


def answer(request: Any, error: Errors = Errors.NONE, partition_errors: dict[tuple[uuid.UUID, int], Errors]
           | None = None, leave_out: set[tuple[uuid.UUID, int]] | None = None) -> Any:
    """The controller's answer to `request`: each partition's proposed ISR committed at the next partition epoch,
    except those given an error or left out."""
    partition_errors, leave_out = partition_errors or {}, leave_out or set()
    topics = []
    for topic_data in request.topics:
        partitions = []
        for p in topic_data.partitions:
            key = (topic_data.topic_id, p.partition_index)
            if key in leave_out:
                continue
            partition_error = partition_errors.get(key, Errors.NONE)
            partitions.append(apr.PartitionData(
                partition_index=p.partition_index, error_code=partition_error, leader_id=i32(request.broker_id),
                leader_epoch=p.leader_epoch, isr=tuple(b.broker_id for b in p.new_isr_with_epochs),
                partition_epoch=i32(p.partition_epoch + 1)))
        topics.append(apr.TopicData(topic_id=topic_data.topic_id, partitions=tuple(partitions)))
    return apr.AlterPartitionResponse(throttle_time=i32Timedelta.parse(datetime.timedelta(0)), error_code=error,
                                      topics=tuple(topics))


def leader_and_isr(leader: int, leader_epoch: int, isr: list[int], partition_epoch: int) -> LeaderAndIsr:
    return LeaderAndIsr.apply(leader, leader_epoch, isr, LeaderRecoveryState.RECOVERED, partition_epoch)


def manager_on(sender: RecordingSender, scheduler: KafkaScheduler) -> DefaultAlterPartitionManager:
    return DefaultAlterPartitionManager(SenderChannel(sender), scheduler, SYSTEM, 1, lambda: 42,
                                        lambda: MetadataVersion.latest_production())


def sent_partitions(request: Any) -> list[tuple[uuid.UUID, int, tuple[int, ...]]]:
    return [(t.topic_id, p.partition_index, tuple(b.broker_id for b in p.new_isr_with_epochs))
            for t in request.topics for p in t.partitions]


@pytest.fixture
def scheduler() -> Iterator[KafkaScheduler]:
    made = KafkaScheduler(1, thread_name_prefix="alter-partition-test-")
    made.startup()
    yield made
    made.shutdown()


# -- the manager ------------------------------------------------------------------------------------------------------

def test_changes_submitted_while_a_request_is_in_flight_go_together_in_the_next(scheduler: KafkaScheduler) -> None:
    sender = RecordingSender()
    manager = manager_on(sender, scheduler)
    a0 = manager.submit(tip(TOPIC_A, "a", 0), leader_and_isr(1, 3, [1], 7), -1)
    assert len(sender.sent) == 1
    request, on_complete = sender.sent[0]
    assert (request.broker_id, request.broker_epoch) == (1, 42)
    [data] = request.topics[0].partitions
    assert (request.topics[0].topic_id, data.partition_index, data.leader_epoch, data.partition_epoch) == (
        TOPIC_A, 0, 3, 7)
    assert [(b.broker_id, b.broker_epoch) for b in data.new_isr_with_epochs] == [(1, -1)]
    encode_request(ApiKeys.ALTER_PARTITION, 3, 1, "broker-1", request)  # what the channel will put on the wire

    # one request in flight: the next changes wait, and a second change of a pending partition is refused
    a1 = manager.submit(tip(TOPIC_A, "a", 1), leader_and_isr(1, 0, [1, 2], 0), -1)
    b0 = manager.submit(tip(TOPIC_B, "b", 0), leader_and_isr(1, 0, [1], 4), -1)
    again = manager.submit(tip(TOPIC_A, "a", 0), leader_and_isr(1, 3, [1, 2], 7), -1)
    assert len(sender.sent) == 1
    assert error_of(again.exception(0)) == Errors.OPERATION_NOT_ATTEMPTED

    on_complete(answer(request))
    assert a0.result(0) == leader_and_isr(1, 3, [1], 8)
    assert len(sender.sent) == 2  # sent at once, both together
    second, on_second = sender.sent[1]
    assert sorted(sent_partitions(second)) == [(TOPIC_A, 1, (1, 2)), (TOPIC_B, 0, (1,))]
    assert not a1.done() and not b0.done()
    on_second(answer(second, partition_errors={(TOPIC_B, 0): Errors.FENCED_LEADER_EPOCH}))
    assert a1.result(0).isr == [1, 2] and error_of(b0.exception(0)) == Errors.FENCED_LEADER_EPOCH
    assert manager.unsent_isr_updates == {} and not manager.inflight_request.get()


def test_a_top_level_error_or_no_answer_sends_the_same_changes_again(scheduler: KafkaScheduler) -> None:
    sender = RecordingSender()
    manager = manager_on(sender, scheduler)
    future = manager.submit(tip(TOPIC_A, "a", 0), leader_and_isr(1, 0, [1], 0), -1)
    sender.sent[0][1](answer(sender.sent[0][0], error=Errors.NOT_CONTROLLER))
    wait_until(lambda: len(sender.sent) == 2, TIMEOUT, "the retry after a top-level error")
    assert not future.done() and sent_partitions(sender.sent[1][0]) == [(TOPIC_A, 0, (1,))]

    sender.sent[1][1](ConnectionError("unsupported version"))  # the controller did not take this version
    wait_until(lambda: len(sender.sent) == 3, TIMEOUT, "the retry after a version mismatch")
    assert not future.done()
    sender.sent[2][1](answer(sender.sent[2][0]))
    assert future.result(0).partition_epoch == 1


def test_a_partition_missing_from_the_answer_stays_pending_and_goes_again(scheduler: KafkaScheduler) -> None:
    sender = RecordingSender()
    manager = manager_on(sender, scheduler)
    first = manager.submit(tip(TOPIC_A, "a", 0), leader_and_isr(1, 0, [1], 0), -1)
    second = manager.submit(tip(TOPIC_A, "a", 1), leader_and_isr(1, 0, [1], 0), -1)
    assert sent_partitions(sender.sent[0][0]) == [(TOPIC_A, 0, (1,))]
    sender.sent[0][1](answer(sender.sent[0][0]))
    request = sender.sent[1][0]
    sender.sent[1][1](answer(request, leave_out={(TOPIC_A, 1)}))  # nothing came back for a-1
    assert first.done() and not second.done()
    assert sent_partitions(sender.sent[2][0]) == [(TOPIC_A, 1, (1,))]


# -- the partition: an ISR is adopted only once committed -------------------------------------------------------------

@pytest.fixture
def broker(tmp_path: Path) -> Iterator[LocalBroker]:
    """Broker 1 in its incarnation 77, on a clock the test moves (the ISR expiry is a matter of lag time)."""
    made = LocalBroker(tmp_path, broker_epoch=77, time=MockTime())
    yield made
    made.close()


def lead_orders_0(broker: LocalBroker) -> Partition:
    broker.publish(feature_level(), register_broker(1, 10), register_broker(2, 11), unfence(1, 10), unfence(2, 11),
                   topic("orders", ORDERS), partition(ORDERS, 0, (1, 2)))
    return broker.replica_manager.online_partition(ORDERS_0)


def shrink_proposed(broker: LocalBroker, partition: Partition, count: int = 1) -> Any:
    """Let broker 2 lag past replica.lag.time.max.ms and run the ISR expiry check: the leader sends its `count`th
    AlterPartition request."""
    broker.time.sleep(broker.config.replica_lag_time_max_ms + 1)
    partition.maybe_shrink_isr()
    assert len(broker.sender.sent) == count
    return broker.sender.sent[count - 1]


def test_a_shrink_is_proposed_to_the_controller_and_adopted_when_committed(broker: LocalBroker) -> None:
    partition = lead_orders_0(broker)
    request, on_complete = shrink_proposed(broker, partition)
    assert sent_partitions(request) == [(ORDERS, 0, (1,))]
    assert [(b.broker_id, b.broker_epoch) for b in request.topics[0].partitions[0].new_isr_with_epochs] == [(1, 77)]
    # until the controller answers: the committed ISR stands, and nothing more is proposed
    assert partition.in_sync_replica_ids() == {1, 2} and partition.partition_state.is_inflight
    partition.maybe_shrink_isr()
    assert len(broker.sender.sent) == 1

    on_complete(answer(request))
    assert (partition.in_sync_replica_ids(), partition.get_partition_epoch()) == ({1}, 1)
    assert not partition.partition_state.is_inflight

    # the follower catches up again (fetching as the image knows it, epoch 11): it is proposed back into the ISR
    assert follower_fetch(broker, ORDERS_0, ORDERS, partition.log.log_end_offset(), replica_id=2,
                          broker_epoch=11).error == Errors.NONE
    request, on_complete = broker.sender.sent[1]
    assert sent_partitions(request) == [(ORDERS, 0, (1, 2))] and request.topics[0].partitions[0].partition_epoch == 1
    assert [(b.broker_id, b.broker_epoch) for b in request.topics[0].partitions[0].new_isr_with_epochs] == [
        (1, 77), (2, 11)]
    on_complete(answer(request))
    assert (partition.in_sync_replica_ids(), partition.get_partition_epoch()) == ({1, 2}, 2)


def test_a_rejected_change_falls_back_to_the_committed_isr(broker: LocalBroker) -> None:
    partition = lead_orders_0(broker)
    request, on_complete = shrink_proposed(broker, partition)
    on_complete(answer(request, partition_errors={(ORDERS, 0): Errors.INELIGIBLE_REPLICA}))
    assert (partition.in_sync_replica_ids(), partition.get_partition_epoch()) == ({1, 2}, 0)
    assert not partition.partition_state.is_inflight
    shrink_proposed(broker, partition, count=2)  # free to propose again


def test_an_answer_the_metadata_overtook_is_ignored(broker: LocalBroker) -> None:
    partition = lead_orders_0(broker)
    request, on_complete = shrink_proposed(broker, partition)
    # the controller moved on first (a new leader epoch, here on this broker again): the metadata wins
    broker.publish(change_leader(ORDERS, 0, 1, (1, 2)))
    assert partition.get_leader_epoch() == 1 and not partition.partition_state.is_inflight
    on_complete(answer(request))
    assert (partition.in_sync_replica_ids(), partition.get_partition_epoch()) == ({1, 2}, 1)


@pytest.mark.parametrize("change", [dict(fenced=1), dict(in_controlled_shutdown=1)], ids=["fenced", "shutting-down"])
def test_a_fenced_or_shutting_down_follower_is_not_proposed_into_the_isr(broker: LocalBroker,
                                                                         change: dict[str, int]) -> None:
    partition = lead_orders_0(broker)
    request, on_complete = shrink_proposed(broker, partition)
    on_complete(answer(request))
    broker.publish(ApiMessageAndVersion(BrokerRegistrationChangeRecord(broker_id=2, broker_epoch=11, **change), 1))
    follower_fetch(broker, ORDERS_0, ORDERS, partition.log.log_end_offset(), replica_id=2, broker_epoch=11)
    assert len(broker.sender.sent) == 1 and partition.in_sync_replica_ids() == {1}


# -- end to end, in-process: the real QuorumController commits the shrink, the broker's metadata brings it back ----

def test_a_shrink_committed_by_the_quorum_controller_reaches_the_broker_through_its_metadata(tmp_path: Path) -> None:
    cluster = Cluster(session_timeout_ms=60_000)
    loader = None
    broker = None
    try:
        controller = cluster.activate(0)
        epochs = register_and_unfence(cluster, controller, [1, 2])
        requests: list[Any] = []

        def to_controller(request: Any, on_complete: Any) -> None:
            requests.append(request)

            def answered(done: Future) -> None:
                on_complete(done.exception() if done.exception() is not None else done.result())
            controller.alter_partition(ANONYMOUS_CONTEXT, request).add_done_callback(answered)

        broker = LocalBroker(tmp_path, sender=to_controller, broker_epoch=epochs[1], time=MockTime())
        loader = (MetadataLoader.Builder().set_node_id(1).set_thread_name_prefix("broker-1-")
                  .set_high_water_mark_accessor(lambda: cluster.shared.high_watermark).build())
        loader.install_publishers([broker.publisher]).result(TIMEOUT)
        LocalLogManager(1, cluster.shared).register(loader)
        controller.create_topics(ANONYMOUS_CONTEXT, create_topics_request(
            creatable_topic("orders", assignments={0: [1, 2]}))).result(TIMEOUT)
        wait_until(lambda: broker.replica_manager.online_partition(ORDERS_0) is not None
                   and broker.replica_manager.online_partition(ORDERS_0).is_leader(),
                   TIMEOUT, "broker 1 leading orders-0")
        partition = broker.replica_manager.online_partition(ORDERS_0)
        topic_id = controller.replication_control.get_topic_id("orders")
        assert partition.topic_id() == Uuid.from_bytes(topic_id.bytes) and partition.in_sync_replica_ids() == {1, 2}

        # broker 2 never fetches: past the lag time the leader shrinks the ISR, through the controller
        broker.time.sleep(broker.config.replica_lag_time_max_ms + 1)
        partition.maybe_shrink_isr()
        wait_until(lambda: partition.in_sync_replica_ids() == {1}, TIMEOUT, "the ISR shrunk")
        assert sent_partitions(requests[0]) == [(topic_id, 0, (1,))]
        committed = controller.replication_control.get_partition(topic_id, 0)
        assert (committed.isr, committed.partition_epoch) == ((1,), 1)
        wait_until(lambda: broker.metadata_cache.get_partition_info("orders", 0).isr == [1], TIMEOUT,
                   "the PartitionChangeRecord published to the broker")
        assert partition.get_partition_epoch() == 1 and not partition.partition_state.is_inflight
    finally:
        if loader is not None:
            loader.close()
        if broker is not None:
            broker.close()
        cluster.close()
