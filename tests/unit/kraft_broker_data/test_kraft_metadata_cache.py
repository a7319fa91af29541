"""KRaftMetadataCache (Kafka 3.9): a MetadataImage built from the controller's records answers a broker's queries; a
fenced broker is not alive; and a partition's registration becomes the state ReplicaManager.applyDelta hands to
Partition.makeLeader / makeFollower. (KafkaApis answering Metadata from this cache: KafkaApisTest, ported under
tests/kafka_tests/v3_9/core/server/kafka_apis_test.py, runs on a KRaftMetadataCache.)"""

from __future__ import annotations

import uuid

from kafka_edu.v1_0_2.core.server.metadata_cache import Broker
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.server.metadata.kraft_metadata_cache import NO_NODE, ZERO_UUID, KRaftMetadataCache
from kafka_edu.v3_9.core.server.replica_manager import to_leader_and_isr_partition_state
from kafka_edu.v3_9.metadata.common.metadata import (
    ApiMessageAndVersion,
    BrokerRegistrationChangeRecord,
    PartitionRecord,
)
from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.metadata.image.metadata_provenance import MetadataProvenance
from kafka_edu.v3_9.raft.raft.voter_set import Node
from tests.unit.image.records import (
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

GHOST = uuid.UUID(int=0xC3)


def image_of(*records: ApiMessageAndVersion, base: MetadataImage = MetadataImage.EMPTY) -> MetadataImage:
    delta = MetadataDelta.Builder().set_image(base).build()
    for record in records:
        delta.replay(record.message)
    return delta.apply(MetadataProvenance(len(records), 1, 1_000))


def led_by(topic_id: uuid.UUID, partition_id: int, leader: int, replicas: tuple[int, ...]) -> ApiMessageAndVersion:
    return ApiMessageAndVersion(PartitionRecord(partition_id=partition_id, topic_id=topic_id, replicas=replicas,
                                                isr=replicas, leader=leader, leader_epoch=0, partition_epoch=0), 1)


def cluster() -> MetadataImage:
    """Brokers 1 and 2 unfenced, broker 3 registered but fenced, broker 9 never registered."""
    return image_of(
        feature_level(), register_broker(1, 10), register_broker(2, 11), register_broker(3, 12), unfence(1, 10),
        unfence(2, 11),
        topic("orders", ORDERS), partition(ORDERS, 0, (1, 2)), partition(ORDERS, 1, (2, 3)),
        config("orders", "retention.ms", "3600000"),
        topic("payments", PAYMENTS), led_by(PAYMENTS, 0, 9, (9, 1)))


def test_topics_partitions_and_configs_come_from_the_image() -> None:
    cache = KRaftMetadataCache(1, cluster_id="c1")
    assert cache.get_all_topics() == set() and not cache.contains("orders")  # empty until the first image
    cache.set_image(cluster())
    assert cache.get_all_topics() == {"orders", "payments"}
    assert cache.contains("orders") and cache.contains(TopicPartition("orders", 1))
    assert not cache.contains(TopicPartition("orders", 2)) and not cache.contains("nope")
    assert cache.get_topic_partitions("orders") == {TopicPartition("orders", 0), TopicPartition("orders", 1)}
    assert cache.num_partitions("orders") == 2 and cache.num_partitions("nope") is None
    assert cache.get_topic_id("orders") == ORDERS and cache.get_topic_id("nope") == ZERO_UUID
    assert cache.get_topic_name(PAYMENTS) == "payments" and cache.get_topic_name(GHOST) is None
    assert cache.topic_names_to_ids() == {"orders": ORDERS, "payments": PAYMENTS}
    assert cache.topic_config("orders") == {"retention.ms": "3600000"} and cache.topic_config("payments") == {}
    assert cache.get_cluster_id() == "c1"

    state = cache.get_partition_info("orders", 1)
    assert (state.leader, state.leader_epoch, state.isr, state.replicas, state.zk_version) == (2, 0, [2, 3],
                                                                                                [2, 3], 0)
    assert cache.get_partition_info("orders", 7) is None and cache.get_partition_info("nope", 0) is None


def test_only_unfenced_brokers_are_alive() -> None:
    cache = KRaftMetadataCache(1)
    cache.set_image(cluster())
    assert cache.get_alive_brokers() == [Broker(1, {"PLAINTEXT": ("127.0.0.1", 9093)}),
                                         Broker(2, {"PLAINTEXT": ("127.0.0.1", 9094)})]
    assert cache.has_alive_broker(2) and cache.is_broker_alive(2)
    assert not cache.has_alive_broker(3) and cache.is_broker_fenced(3)
    assert not cache.has_alive_broker(9) and not cache.is_broker_fenced(9)  # unknown is not fenced either
    assert cache.get_alive_broker_epoch(2) == 11 and cache.get_alive_broker_epoch(3) is None
    assert cache.get_alive_broker_nodes("PLAINTEXT") == [Node(1, "127.0.0.1", 9093), Node(2, "127.0.0.1", 9094)]
    assert cache.get_alive_broker_node(2, "PLAINTEXT") == Node(2, "127.0.0.1", 9094)
    assert cache.get_alive_broker_node(3, "PLAINTEXT") is None  # registered but fenced: not alive
    assert cache.get_alive_broker_node(1, "SSL") is None

    # a broker in controlled shutdown is still alive, but may not join an ISR
    cache.set_image(image_of(ApiMessageAndVersion(BrokerRegistrationChangeRecord(
        broker_id=2, broker_epoch=11, in_controlled_shutdown=1), 1), base=cache.current_image()))
    assert cache.has_alive_broker(2) and cache.is_broker_shutting_down(2) and not cache.is_broker_shutting_down(1)


def test_the_controller_id_clients_see_is_a_random_alive_broker() -> None:
    cache = KRaftMetadataCache(1)
    assert cache.get_controller_id() is None
    cache.set_image(cluster())
    # KIP-590: clients cannot reach the controllers, so any alive broker (never the fenced 3) stands in
    assert {cache.get_controller_id() for _ in range(50)} == {1, 2}


def test_topic_metadata_reports_leaders_offline_replicas_and_kafkas_errors() -> None:
    cache = KRaftMetadataCache(1)
    cache.set_image(cluster())
    metadata = cache.get_topic_metadata({"orders", "payments", "nope"}, "PLAINTEXT")
    assert set(metadata) == {"orders", "payments"}
    p0, p1 = metadata["orders"]
    assert (p0.error, p0.partition, p0.leader, p0.replicas, p0.isr, p0.offline_replicas) == (
        Errors.NONE, 0, 1, [1, 2], [1, 2], [])
    # broker 3 is fenced: offline, but still listed unless the request asks to filter (Metadata v0)
    assert (p1.error, p1.leader, p1.replicas, p1.offline_replicas) == (Errors.NONE, 2, [2, 3], [3])
    [ghost_led] = metadata["payments"]
    assert (ghost_led.error, ghost_led.leader, ghost_led.offline_replicas) == (Errors.LEADER_NOT_AVAILABLE, -1, [9])

    filtered = cache.get_topic_metadata({"orders"}, "PLAINTEXT", error_unavailable_endpoints=True)["orders"][1]
    assert (filtered.error, filtered.replicas, filtered.isr) == (Errors.REPLICA_NOT_AVAILABLE, [2], [2])

    # a leader without the listener: LEADER_NOT_AVAILABLE, or LISTENER_NOT_FOUND for Metadata v6+
    assert cache.get_topic_metadata({"orders"}, "SSL")["orders"][0].error == Errors.LEADER_NOT_AVAILABLE
    assert cache.get_topic_metadata({"orders"}, "SSL", error_unavailable_listeners=True)["orders"][0].error == \
        Errors.LISTENER_NOT_FOUND
    assert cache.get_partition_leader_endpoint("orders", 0, "PLAINTEXT") == Node(1, "127.0.0.1", 9093)
    assert cache.get_partition_leader_endpoint("orders", 0, "SSL") == NO_NODE
    assert cache.get_partition_leader_endpoint("payments", 0, "PLAINTEXT") == NO_NODE
    assert cache.get_partition_leader_endpoint("orders", 9, "PLAINTEXT") is None


def test_each_new_image_replaces_the_answers_whole() -> None:
    cache = KRaftMetadataCache(1)
    first = cluster()
    cache.set_image(first)
    second = image_of(change_leader(ORDERS, 0, 2, (2,)), remove_topic(PAYMENTS), base=first)
    cache.set_image(second)
    assert cache.current_image() is second and cache.get_all_topics() == {"orders"}
    state = cache.get_partition_info("orders", 0)
    assert (state.leader, state.leader_epoch, state.isr, state.zk_version) == (2, 1, [2], 1)


def test_a_registration_becomes_the_state_a_partition_applies() -> None:
    """PartitionRegistration.toLeaderAndIsrPartitionState: no controller epoch in KRaft; the partition epoch, the
    reassignment and the leader recovery state travel with it."""
    registration = image_of(feature_level(), topic("orders", ORDERS), partition(ORDERS, 0, (1, 2)),
                            change_leader(ORDERS, 0, 2, (2,))).topics.get_partition(ORDERS, 0)
    state = to_leader_and_isr_partition_state(registration, TopicPartition("orders", 0), is_new=True)
    assert (state.topic_name, state.partition_index, state.leader, state.leader_epoch, state.isr, state.replicas,
            state.partition_epoch, state.is_new, state.controller_epoch) == ("orders", 0, 2, 1, [2], [1, 2], 1, True,
                                                                             -1)
    assert (state.adding_replicas, state.removing_replicas, state.leader_recovery_state) == ([], [], 0)
