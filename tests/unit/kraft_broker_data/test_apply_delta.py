"""ReplicaManager.applyDelta (Kafka 3.9) over the 1.0.2 ReplicaManager, with real logs in tmp_path: a delta that
makes this broker lead a partition creates its log and leads it; one that makes it follow starts a fetcher toward
the leader's endpoint in the image; a removed topic stops and deletes its replicas; other brokers' partitions are
never touched."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.server.abstract_fetcher_thread import BrokerEndPoint
from kafka_edu.v1_0_2.core.server.replica_manager import LogReadResult
from kafka_edu.v3_9.metadata.common.metadata import (
    ApiMessageAndVersion,
    BrokerEndpoint,
    PartitionChangeRecord,
    RegisterBrokerRecord,
)
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
from tests.unit.kraft_broker_data.local_broker import LocalBroker

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


def fetchers(broker: LocalBroker) -> dict[TopicPartition, BrokerEndPoint]:
    """Each fetched partition and the leader it is fetched from."""
    return {tp: fetcher.source_broker for fetcher in broker.replica_manager.replica_fetcher_manager
            .fetcher_thread_map.values() for tp in fetcher.partition_states}


def test_a_delta_that_makes_this_broker_leader_creates_the_log_and_leads(broker: LocalBroker,
                                                                        leader_port: socket.socket) -> None:
    broker.publish(*two_brokers(leader_port.getsockname()[1]), topic("orders", ORDERS),
                   config("orders", "retention.ms", "3600000"), partition(ORDERS, 0, (1, 2)))
    partition_0 = broker.replica_manager.get_partition(ORDERS_0)
    assert partition_0.leader_replica_if_local() is not None and partition_0.topic_id == ORDERS
    assert partition_0.in_sync_replicas == {1, 2} and partition_0.leader_epoch == 0 and partition_0.zk_version == 0
    assert (broker.log_dir / "orders-0").is_dir()
    assert partition_0.local_log().config.retention_ms == 3_600_000  # the topic's config from the image
    assert ORDERS_0 not in fetchers(broker)

    # an ISR change the controller committed (a partition epoch, not a leader epoch): the leader takes it
    broker.publish(ApiMessageAndVersion(PartitionChangeRecord(partition_id=0, topic_id=ORDERS, isr=(1,)), 1))
    assert broker.replica_manager.get_partition(ORDERS_0) is partition_0
    assert (partition_0.in_sync_replicas, partition_0.leader_epoch, partition_0.zk_version) == ({1}, 0, 1)


def test_a_delta_that_makes_this_broker_follower_fetches_from_the_leaders_endpoint(
        broker: LocalBroker, leader_port: socket.socket) -> None:
    port = leader_port.getsockname()[1]
    broker.publish(*two_brokers(port), topic("orders", ORDERS), partition(ORDERS, 1, (2, 1)))
    partition_1 = broker.replica_manager.get_partition(ORDERS_1)
    assert partition_1.leader_replica_id_opt == 2 and partition_1.leader_replica_if_local() is None
    assert (broker.log_dir / "orders-1").is_dir()  # the follower's log exists before it has fetched anything
    assert fetchers(broker) == {ORDERS_1: BrokerEndPoint(2, "127.0.0.1", port)}
    connection, _ = leader_port.accept()  # the fetcher connects to broker 2 as the image has it
    connection.close()

    # leadership moves here: the fetcher stops and this broker leads at the new epoch
    broker.publish(change_leader(ORDERS, 1, 1, (1, 2)))
    assert partition_1.leader_replica_if_local() is not None and partition_1.leader_epoch == 1
    assert fetchers(broker) == {}
    # and back to broker 2: fetching again
    broker.publish(change_leader(ORDERS, 1, 2, (2, 1)))
    assert partition_1.leader_replica_if_local() is None and fetchers(broker) == {
        ORDERS_1: BrokerEndPoint(2, "127.0.0.1", port)}


def test_a_follower_whose_leader_is_gone_keeps_its_log_and_fetches_nothing(broker: LocalBroker) -> None:
    # broker 2 registered but fenced: not alive, so no fetcher; the log is still created (its HW is checkpointed)
    broker.publish(feature_level(), register_broker(1, 10), register_broker(2, 11), unfence(1, 10),
                   topic("orders", ORDERS), partition(ORDERS, 1, (2, 1)))
    assert broker.replica_manager.get_partition(ORDERS_1).get_replica() is not None
    assert fetchers(broker) == {}


def test_a_removed_topic_stops_and_deletes_the_replica(broker: LocalBroker, leader_port: socket.socket) -> None:
    broker.publish(*two_brokers(leader_port.getsockname()[1]), topic("orders", ORDERS),
                   partition(ORDERS, 0, (1, 2)), partition(ORDERS, 1, (2, 1)))
    assert ORDERS_1 in fetchers(broker)
    broker.publish(remove_topic(ORDERS))
    assert broker.replica_manager.get_partition(ORDERS_0) is None
    assert broker.replica_manager.get_partition(ORDERS_1) is None
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
    assert broker.replica_manager.get_partition(ORDERS_0) is None
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
    partition_0 = broker.replica_manager.get_partition(ORDERS_0)
    assert partition_0.leader_replica_id_opt == 2 and fetchers(broker) == {}
    assert broker.log_manager.get_log(ORDERS_0) is not None  # stopped, not deleted


def test_a_fetch_from_a_follower_after_the_first_publish_moves_the_high_watermark(broker: LocalBroker,
                                                                                  leader_port: socket.socket) -> None:
    """The 1.0.2 read path is unchanged on a partition applyDelta made: a follower's fetch position counts."""
    broker.publish(*two_brokers(leader_port.getsockname()[1]), topic("orders", ORDERS), partition(ORDERS, 0, (1, 2)))
    partition_0 = broker.replica_manager.get_partition(ORDERS_0)
    assert partition_0.high_watermark == 0
    follower = partition_0.get_replica(2)
    partition_0.update_replica_log_read_result(follower, LogReadResult(fetch_offset=0, leader_log_end_offset=0,
                                                                       fetch_time_ms=1))
    assert follower.log_end_offset == 0 and broker.sender.sent == []  # already in the ISR: nothing to propose
