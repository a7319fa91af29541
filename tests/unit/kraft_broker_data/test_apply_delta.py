"""ReplicaManager.applyDelta (Kafka 3.9) as the KRaft broker runs it, with real logs in tmp_path: a delta that makes
this broker lead a partition creates its log and leads it; one that makes it follow starts a fetcher toward the
leader's endpoint in the image; a removed topic stops and deletes its replicas; other brokers' partitions are never
touched; and a partition led from the metadata takes acks=all produce that a follower's fetch completes, and answers
OffsetsForLeaderEpoch from the epochs its log recorded."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kio.schema.offset_for_leader_epoch.v4.request import OffsetForLeaderPartition, OffsetForLeaderTopic
from kio.static.primitive import i32

from kafka_edu.v3_9.clients.common.compress import compression
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.core.cluster.broker_end_point import BrokerEndPoint
from kafka_edu.v3_9.core.cluster.partition import Partition
from kafka_edu.v3_9.core.server.replica_manager import HostedPartition
from kafka_edu.v3_9.metadata.common.metadata import (
    ApiMessageAndVersion,
    BrokerEndpoint,
    PartitionChangeRecord,
    RegisterBrokerRecord,
)
from kafka_edu.v3_9.storage.storage.internals.log.epoch_entry import EpochEntry
from tests.kafka_tests.v3_9.core.server.replica_manager_test import append_records, send_producer_append
from tests.unit.image.records import (
    DIRECTORY,
    ORDERS,
    PAYMENTS,
    change_leader,
    config,
    feature_level,
    partition,
    register_broker,
    remove_topic,
    topic,
    unfence,
)
from tests.unit.kraft_broker_data.local_broker import LocalBroker, follower_fetch

ORDERS_0, ORDERS_1 = TopicPartition("orders", 0), TopicPartition("orders", 1)
PAYMENTS_0 = TopicPartition("payments", 0)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[LocalBroker]:
    made = LocalBroker(tmp_path)
    yield made
    made.close()


@pytest.fixture
def leader_port() -> Iterator[socket.socket]:
    """Broker 2's PLAINTEXT endpoint: a socket that only accepts, so a fetcher's connection can be seen."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(10)
    yield server
    server.close()


def register_at(broker_id: int, epoch: int, port: int) -> ApiMessageAndVersion:
    record = register_broker(broker_id, epoch).message
    return ApiMessageAndVersion(RegisterBrokerRecord(
        broker_id=broker_id, incarnation_id=record.incarnation_id, broker_epoch=epoch,
        end_points=(BrokerEndpoint(name="PLAINTEXT", host="127.0.0.1", port=port, security_protocol=0),),
        features=record.features, rack=None, fenced=True, log_dirs=(DIRECTORY,)), 3)


def two_brokers(port_of_2: int) -> list[ApiMessageAndVersion]:
    return [feature_level(), register_broker(1, 10), register_at(2, 11, port_of_2), unfence(1, 10), unfence(2, 11)]


def online(broker: LocalBroker, tp: TopicPartition) -> Partition | None:
    return broker.replica_manager.online_partition(tp)


def fetchers(broker: LocalBroker) -> dict[TopicPartition, BrokerEndPoint]:
    """Each fetched partition and the leader it is fetched from."""
    return {tp: fetcher.leader.broker_end_point() for fetcher in broker.replica_manager.replica_fetcher_manager
            .fetcher_thread_map.values() for tp in fetcher.partitions}


def test_a_delta_that_makes_this_broker_leader_creates_the_log_and_leads(broker: LocalBroker,
                                                                        leader_port: socket.socket) -> None:
    broker.publish(*two_brokers(leader_port.getsockname()[1]), topic("orders", ORDERS),
                   config("orders", "retention.ms", "3600000"), partition(ORDERS, 0, (1, 2)))
    partition_0 = online(broker, ORDERS_0)
    assert partition_0.is_leader() and partition_0.topic_id() == Uuid.from_bytes(ORDERS.bytes)
    assert partition_0.in_sync_replica_ids() == {1, 2}
    assert (partition_0.get_leader_epoch(), partition_0.get_partition_epoch()) == (0, 0)
    assert (broker.log_dir / "orders-0").is_dir()
    assert partition_0.log.config().retention_ms == 3_600_000  # the topic's config from the image
    assert ORDERS_0 not in fetchers(broker)

    # an ISR change the controller committed (a partition epoch, not a leader epoch): the leader takes it
    broker.publish(ApiMessageAndVersion(PartitionChangeRecord(partition_id=0, topic_id=ORDERS, isr=(1,)), 1))
    assert online(broker, ORDERS_0) is partition_0
    assert (partition_0.in_sync_replica_ids(), partition_0.get_leader_epoch(), partition_0.get_partition_epoch()) \
        == ({1}, 0, 1)


def test_a_delta_that_makes_this_broker_follower_fetches_from_the_leaders_endpoint(
        broker: LocalBroker, leader_port: socket.socket) -> None:
    port = leader_port.getsockname()[1]
    broker.publish(*two_brokers(port), topic("orders", ORDERS), partition(ORDERS, 1, (2, 1)))
    partition_1 = online(broker, ORDERS_1)
    assert partition_1.leader_replica_id_opt == 2 and not partition_1.is_leader()
    assert (broker.log_dir / "orders-1").is_dir()  # the follower's log exists before it has fetched anything
    assert fetchers(broker) == {ORDERS_1: BrokerEndPoint(2, "127.0.0.1", port)}
    connection, _ = leader_port.accept()  # the fetcher connects to broker 2 as the image has it
    connection.close()

    # leadership moves here: the fetcher stops and this broker leads at the new epoch
    broker.publish(change_leader(ORDERS, 1, 1, (1, 2)))
    assert partition_1.is_leader() and partition_1.get_leader_epoch() == 1
    assert fetchers(broker) == {}
    # and back to broker 2: fetching again
    broker.publish(change_leader(ORDERS, 1, 2, (2, 1)))
    assert not partition_1.is_leader() and fetchers(broker) == {ORDERS_1: BrokerEndPoint(2, "127.0.0.1", port)}


def test_a_follower_whose_leader_is_gone_keeps_its_log_and_fetches_nothing(broker: LocalBroker) -> None:
    # broker 2 is not registered: the image has no endpoint for it, so no fetcher; the log is still created
    broker.publish(feature_level(), register_broker(1, 10), unfence(1, 10),
                   topic("orders", ORDERS), partition(ORDERS, 1, (2, 1)))
    assert online(broker, ORDERS_1).log is not None
    assert fetchers(broker) == {}


def test_a_removed_topic_stops_and_deletes_the_replica(broker: LocalBroker, leader_port: socket.socket) -> None:
    broker.publish(*two_brokers(leader_port.getsockname()[1]), topic("orders", ORDERS),
                   partition(ORDERS, 0, (1, 2)), partition(ORDERS, 1, (2, 1)))
    assert ORDERS_1 in fetchers(broker)
    broker.publish(remove_topic(ORDERS))
    assert broker.replica_manager.get_partition(ORDERS_0) is HostedPartition.NONE
    assert broker.replica_manager.get_partition(ORDERS_1) is HostedPartition.NONE
    assert fetchers(broker) == {}
    assert broker.log_manager.get_log(ORDERS_0) is None and broker.log_manager.get_log(ORDERS_1) is None
    # renamed `<tp>.<uuid>-delete` at once, removed from disk after file.delete.delay.ms
    assert not (broker.log_dir / "orders-0").exists() and not (broker.log_dir / "orders-1").exists()
    assert sorted(d.name.split(".")[0] for d in broker.log_dir.iterdir() if d.name.endswith("-delete")) == [
        "orders-0", "orders-1"]


def test_a_replica_moved_off_this_broker_is_deleted(broker: LocalBroker, leader_port: socket.socket) -> None:
    broker.publish(*two_brokers(leader_port.getsockname()[1]), topic("orders", ORDERS), partition(ORDERS, 0, (1, 2)))
    broker.publish(ApiMessageAndVersion(PartitionChangeRecord(partition_id=0, topic_id=ORDERS, replicas=(2,),
                                                              isr=(2,), leader=2), 1))
    assert broker.replica_manager.get_partition(ORDERS_0) is HostedPartition.NONE
    assert broker.log_manager.get_log(ORDERS_0) is None


def test_partitions_of_other_brokers_are_never_touched(broker: LocalBroker, leader_port: socket.socket) -> None:
    broker.publish(*two_brokers(leader_port.getsockname()[1]), register_broker(3, 12), unfence(3, 12),
                   topic("payments", PAYMENTS), partition(PAYMENTS, 0, (2, 3)))
    broker.publish(change_leader(PAYMENTS, 0, 3, (3,)))
    broker.publish(remove_topic(PAYMENTS))
    assert broker.replica_manager.all_partitions == {} and fetchers(broker) == {}
    assert not any(d.name.startswith("payments") for d in broker.log_dir.iterdir())
    assert broker.image.topics.get_topic("payments") is None and broker.metadata_cache.get_all_topics() == set()


def test_in_controlled_shutdown_a_follower_out_of_the_isr_stops_fetching(broker: LocalBroker,
                                                                         leader_port: socket.socket) -> None:
    broker.publish(*two_brokers(leader_port.getsockname()[1]), topic("orders", ORDERS), partition(ORDERS, 0, (1, 2)))
    broker.replica_manager.begin_controlled_shutdown()
    # the controller moves leadership away and drops this broker from the ISR (ControlledShutdown in KRaft)
    broker.publish(change_leader(ORDERS, 0, 2, (2,)))
    partition_0 = online(broker, ORDERS_0)
    assert partition_0.leader_replica_id_opt == 2 and fetchers(broker) == {}
    assert broker.log_manager.get_log(ORDERS_0) is not None  # stopped, not deleted


def test_a_leader_from_the_metadata_acknowledges_acks_all_once_its_follower_fetched(broker: LocalBroker,
                                                                                   leader_port: socket.socket) -> None:
    """The request path of a partition applyDelta made: a produce with acks=all waits in the purgatory until the
    follower of the image, fetching with the broker epoch the image has, fetched past it; then the high watermark
    moves and the produce is answered."""
    broker.publish(*two_brokers(leader_port.getsockname()[1]), topic("orders", ORDERS), partition(ORDERS, 0, (1, 2)))
    partition_0 = online(broker, ORDERS_0)
    produced = send_producer_append(broker.replica_manager, ORDERS_0, 3)
    assert not produced.has_fired and partition_0.log.high_watermark() == 0

    # broker 2 registered with epoch 11: a fetch from an older incarnation of it is refused (KIP-903)
    assert follower_fetch(broker, ORDERS_0, ORDERS, 3, replica_id=2, broker_epoch=10).error == \
        Errors.NOT_LEADER_OR_FOLLOWER
    assert not produced.has_fired

    assert follower_fetch(broker, ORDERS_0, ORDERS, 3, replica_id=2, broker_epoch=11).error == Errors.NONE
    assert produced.assert_fired().error == Errors.NONE
    assert partition_0.log.high_watermark() == 3 and partition_0.in_sync_replica_ids() == {1, 2}
    assert broker.sender.sent == []  # already in the ISR: nothing to propose


def produce(broker: LocalBroker, tp: TopicPartition, *values: bytes) -> Any:
    """A producer's batch with acks=1: answered once the leader appended it."""
    records = MemoryRecords.with_records(compression.NONE, *[SimpleRecord(v) for v in values])
    return append_records(broker.replica_manager, tp, records, required_acks=1).assert_fired()


def end_offsets(broker: LocalBroker, requests: dict[TopicPartition, int]) -> dict[TopicPartition, tuple[Any, ...]]:
    """OffsetsForLeaderEpoch, as a follower sends it (no current leader epoch): each partition's (error, leader
    epoch, end offset) for the epoch asked."""
    topics = [OffsetForLeaderTopic(topic=name, partitions=tuple(
        OffsetForLeaderPartition(partition=i32(tp.partition), current_leader_epoch=i32(-1), leader_epoch=i32(epoch))
        for tp, epoch in requests.items() if tp.topic == name)) for name in dict.fromkeys(tp.topic for tp in requests)]
    return {TopicPartition(str(topic.topic), int(p.partition)): (p.error_code, int(p.leader_epoch), int(p.end_offset))
            for topic in broker.replica_manager.last_offset_for_leader_epoch(topics) for p in topic.partitions}


def test_the_leader_answers_offsets_for_leader_epoch_from_its_log_a_follower_and_a_stranger_with_errors(
        broker: LocalBroker, leader_port: socket.socket) -> None:
    broker.publish(*two_brokers(leader_port.getsockname()[1]), topic("orders", ORDERS), partition(ORDERS, 0, (1, 2)),
                   partition(ORDERS, 1, (2, 1)))
    led = online(broker, ORDERS_0)
    assert produce(broker, ORDERS_0, b"a", b"b").error == Errors.NONE  # leader epoch 0: offsets 0-1
    broker.publish(change_leader(ORDERS, 0, 1, (1,)))  # a new leader epoch, the same leader
    assert produce(broker, ORDERS_0, b"c").error == Errors.NONE  # leader epoch 1: offset 2
    assert led.get_leader_epoch() == 1
    assert led.log.leader_epoch_cache.epoch_entries() == [EpochEntry(0, 0), EpochEntry(1, 2)]

    nope_0 = TopicPartition("nope", 0)
    assert end_offsets(broker, {ORDERS_0: 0, ORDERS_1: 0, nope_0: 0}) == {
        ORDERS_0: (Errors.NONE, 0, 2),  # epoch 0 ends where epoch 1 starts
        ORDERS_1: (Errors.NOT_LEADER_OR_FOLLOWER, -1, -1),
        nope_0: (Errors.UNKNOWN_TOPIC_OR_PARTITION, -1, -1)}
    assert end_offsets(broker, {ORDERS_0: 1}) == {ORDERS_0: (Errors.NONE, 1, 3)}  # the current epoch: the LEO
    assert end_offsets(broker, {ORDERS_0: 6}) == {ORDERS_0: (Errors.NONE, -1, -1)}  # an epoch it never had
