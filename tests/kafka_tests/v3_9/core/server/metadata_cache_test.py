"""Port of core/src/test/scala/unit/kafka/server/MetadataCacheTest.scala (Kafka 3.9).

Kafka runs the parametrized cases over ZkMetadataCache and KRaftMetadataCache; the port runs the KRaft variant only
(3.9's ZooKeeper-mode cache is not ported: the port's ZooKeeper mode is 1.0.2's), so a case that exists only for
ZkMetadataCache is not applicable.

`update_cache` is Kafka's `MetadataCacheTest.updateCache` for a KRaft cache: the UpdateMetadataRequest a case builds
(its live brokers, partition states and topic ids) becomes RegisterBrokerRecords, TopicRecords and PartitionRecords
replayed on the cache's image with no brokers. The request is held in small dataclasses named after
UpdateMetadataRequestData's (3.9's UpdateMetadataRequest is not ported: a KRaft broker never gets one).

The port's cache answers in the shapes the port's KafkaApis reads (it serves both modes): getTopicMetadata is a
map from topic to its partitions' PartitionMetadata (error, partition, leader, leader_epoch, replicas, isr,
offline_replicas) rather than MetadataResponseTopics, whose error code the cache always sets to NONE: where Kafka
asserts the topic's name, error code and id, the port asserts the topic is in the map and its id through
`get_topic_id`. getTopicMetadataForDescribeTopicResponse answers DescribeTopicPartitionsResponseData as a dict with
the message's field names.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field

import pytest

from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.core.server.metadata.kraft_metadata_cache import KRaftMetadataCache
from kafka_edu.v3_9.metadata.common.metadata import (
    BrokerEndpoint,
    BrokerRegistrationChangeRecord,
    PartitionRecord,
    RegisterBrokerRecord,
    RemoveTopicRecord,
    TopicRecord,
)
from kafka_edu.v3_9.metadata.image.cluster_image import ClusterImage
from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.metadata.image.metadata_provenance import MetadataProvenance
from kafka_edu.v3_9.metadata.metadata.broker_registration import LOST_DIR, MIGRATING_DIR, UNASSIGNED_DIR
from kafka_edu.v3_9.metadata.metadata.partition_registration import LeaderRecoveryState
from tests.kafka_tests.referee import kafka_test_class

_ZK_ONLY = "ZkMetadataCache only (3.9's ZooKeeper-mode cache is not ported: the port's ZooKeeper mode is 1.0.2)"

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/server/MetadataCacheTest.scala",
    cases=[
        "getTopicMetadataNonExistingTopics",
        "getTopicMetadata",
        "getTopicMetadataPartitionLeaderNotAvailable",
        "getTopicMetadataPartitionListenerNotAvailableOnLeader",
        "getTopicMetadataReplicaNotAvailable",
        "getTopicMetadataIsrNotAvailable",
        "getTopicMetadataWithNonSupportedSecurityProtocol",
        "getAliveBrokersShouldNotBeMutatedByUpdateCache",
        "testGetClusterMetadataWithOfflineReplicas",
        "testIsBrokerFenced",
        "testGetAliveBrokersWithBrokerFenced",
        "testIsBrokerInControlledShutdown",
        "testGetLiveBrokerEpoch",
        "testGetTopicMetadataForDescribeTopicPartitionsResponse",
        "testGetPartitionInfo",
        "testHandleFullUpdateMetadataRequestInZkMigration",
        "testGetOfflineReplicasConsidersDirAssignment",
        "testCreateDeletionEntries",
        "transformUMRWithNoChanges",
        "transformUMRWithMissingBar",
        "transformUMRWithRecreatedBar",
        "transformUMRWithBuggySnapshot",
        "testUpdateZkMetadataCacheViaHybridUMR",
        "testUpdateZkMetadataCacheWithRecreatedTopic",
    ],
    not_applicable={
        "testGetClusterMetadataWithOfflineReplicas": _ZK_ONLY + "; Kafka runs it on zkCacheProvider alone",
        "testHandleFullUpdateMetadataRequestInZkMigration": _ZK_ONLY + "; ZooKeeper migration is not built",
        "testCreateDeletionEntries": _ZK_ONLY + ": ZkMetadataCache.createDeletionEntries",
        "transformUMRWithNoChanges": _ZK_ONLY + ": ZkMetadataCache.transformKRaftControllerFullMetadataRequest",
        "transformUMRWithMissingBar": _ZK_ONLY + ": ZkMetadataCache.transformKRaftControllerFullMetadataRequest",
        "transformUMRWithRecreatedBar": _ZK_ONLY + ": ZkMetadataCache.transformKRaftControllerFullMetadataRequest",
        "transformUMRWithBuggySnapshot": _ZK_ONLY + ": ZkMetadataCache.transformKRaftControllerFullMetadataRequest",
        "testUpdateZkMetadataCacheViaHybridUMR": _ZK_ONLY + "; ZooKeeper migration (hybrid UMR) is not built",
        "testUpdateZkMetadataCacheWithRecreatedTopic": _ZK_ONLY + "; ZooKeeper migration (hybrid UMR) is not built",
    },
)

PLAINTEXT, SSL = 0, 1  # SecurityProtocol ids; ListenerName.forSecurityProtocol names the listener after the protocol
LISTENER = {PLAINTEXT: "PLAINTEXT", SSL: "SSL"}
ZERO_UUID = uuid.UUID(int=0)  # Uuid.ZERO_UUID as the records carry it
NO_PARTITION_LEADER_EPOCH = -1  # RecordBatch.NO_PARTITION_LEADER_EPOCH
LEADER_DURING_DELETE = -2  # LeaderAndIsr.LeaderDuringDelete
BROKER_EPOCH = 0


def _uuid(text: str) -> uuid.UUID:
    """Uuid.fromString, as the uuid.UUID the records hold."""
    return uuid.UUID(bytes=Uuid.from_string(text).to_bytes())


def _random_uuid() -> uuid.UUID:
    return uuid.UUID(bytes=Uuid.random_uuid().to_bytes())


# UpdateMetadataRequestData's messages, as far as updateCache reads them


@dataclass
class UpdateMetadataEndpoint:
    host: str
    port: int
    security_protocol: int
    listener: str


@dataclass
class UpdateMetadataBroker:
    id: int
    endpoints: list[UpdateMetadataEndpoint]
    rack: str | None = None


@dataclass
class UpdateMetadataPartitionState:
    topic_name: str
    partition_index: int
    controller_epoch: int
    leader: int
    leader_epoch: int
    isr: list[int]
    zk_version: int
    replicas: list[int]
    offline_replicas: list[int] = field(default_factory=list)


def register_broker_record(broker_id: int, *, broker_epoch: int = 0, incarnation_id: uuid.UUID = ZERO_UUID,
                           end_points: Iterable[BrokerEndpoint] = (), rack: str | None = None, fenced: bool = True,
                           in_controlled_shutdown: bool = False,
                           log_dirs: Iterable[uuid.UUID] = ()) -> RegisterBrokerRecord:
    """new RegisterBrokerRecord() with the setters a case calls; the rest keep the message's defaults."""
    return RegisterBrokerRecord(broker_id=broker_id, incarnation_id=incarnation_id, broker_epoch=broker_epoch,
                                end_points=tuple(end_points), features=(), rack=rack, fenced=fenced,
                                in_controlled_shutdown=in_controlled_shutdown, log_dirs=tuple(log_dirs))


def update_cache(cache: KRaftMetadataCache, brokers: Iterable[UpdateMetadataBroker],
                 partition_states: Iterable[UpdateMetadataPartitionState], topic_ids: dict[str, uuid.UUID],
                 records: Iterable[object] = ()) -> None:
    """MetadataCacheTest.updateCache for a KRaftMetadataCache. The request names every broker but maybe not every
    partition, so the delta starts from the current image without its brokers."""
    image = cache.current_image()
    partial_image = MetadataImage(MetadataProvenance(100, 10, 1000), image.features, ClusterImage.EMPTY,
                                  image.topics, image.configs, image.producer_ids)
    delta = MetadataDelta.Builder().set_image(partial_image).build()

    def to_record(broker: UpdateMetadataBroker) -> RegisterBrokerRecord:
        endpoints = [BrokerEndpoint(name=e.listener, host=e.host, port=e.port, security_protocol=e.security_protocol)
                     for e in broker.endpoints]
        # the request lacks some registration fields: keep the previous registration's, if any
        prev_broker = image.cluster.broker(broker.id)
        if prev_broker is None:
            epoch, incarnation_id, fenced = 0, ZERO_UUID, False
        else:
            epoch, incarnation_id, fenced = prev_broker.epoch, prev_broker.incarnation_id, prev_broker.fenced
        return register_broker_record(broker.id, broker_epoch=epoch, incarnation_id=incarnation_id,
                                      end_points=endpoints, rack=broker.rack, fenced=fenced)

    for broker_info in brokers:
        delta.replay(to_record(broker_info))

    # UpdateMetadataRequest.Builder groups the partition states by topic, with the topic's id or ZERO_UUID
    topic_states: dict[str, list[UpdateMetadataPartitionState]] = {}
    for state in partition_states:
        topic_states.setdefault(state.topic_name, []).append(state)
    for topic_name, partitions in topic_states.items():
        topic_id = topic_ids.get(topic_name, ZERO_UUID)
        delta.replay(TopicRecord(name=topic_name, topic_id=topic_id))
        for partition in partitions:
            if partition.leader == LEADER_DURING_DELETE:
                delta.replay(RemoveTopicRecord(topic_id=topic_id))
            else:
                delta.replay(PartitionRecord(
                    partition_id=partition.partition_index, topic_id=topic_id, replicas=tuple(partition.replicas),
                    isr=tuple(partition.isr), removing_replicas=(), adding_replicas=(), leader=partition.leader,
                    leader_epoch=partition.leader_epoch, partition_epoch=partition.zk_version))
    for record in records:
        delta.replay(record)
    cache.set_image(delta.apply(MetadataProvenance(100, 10, 1000)))


@pytest.fixture
def cache() -> KRaftMetadataCache:
    """cacheProvider's KRaft cache: MetadataCache.kRaftMetadataCache(1, ...)."""
    return KRaftMetadataCache(1)


def _endpoint(host: str, port: int, security_protocol: int) -> UpdateMetadataEndpoint:
    return UpdateMetadataEndpoint(host, port, security_protocol, LISTENER[security_protocol])


def test_get_topic_metadata_non_existing_topics(cache: KRaftMetadataCache) -> None:
    topic_metadata = cache.get_topic_metadata({"topic"}, LISTENER[PLAINTEXT])
    assert not topic_metadata


def test_get_topic_metadata(cache: KRaftMetadataCache) -> None:
    topic0, topic1 = "topic-0", "topic-1"
    zk_version, controller_epoch = 3, 1

    def endpoints(broker_id: int) -> list[UpdateMetadataEndpoint]:
        host = f"foo-{broker_id}"
        return [_endpoint(host, 9092, PLAINTEXT), _endpoint(host, 9093, SSL)]

    brokers = [UpdateMetadataBroker(broker_id, endpoints(broker_id), "rack1") for broker_id in range(5)]
    partition_states = [
        UpdateMetadataPartitionState(topic0, 0, controller_epoch, leader=0, leader_epoch=0, isr=[0, 1, 3],
                                     zk_version=zk_version, replicas=[0, 1, 3]),
        UpdateMetadataPartitionState(topic0, 1, controller_epoch, leader=1, leader_epoch=1, isr=[1, 0],
                                     zk_version=zk_version, replicas=[1, 2, 0, 4]),
        UpdateMetadataPartitionState(topic1, 0, controller_epoch, leader=2, leader_epoch=2, isr=[2, 1],
                                     zk_version=zk_version, replicas=[2, 1, 3]),
    ]
    topic_ids = {topic0: _random_uuid(), topic1: _random_uuid()}
    update_cache(cache, brokers, partition_states, topic_ids)

    def check_topic_metadata(topic: str, listener_name: str) -> None:
        topic_metadatas = cache.get_topic_metadata({topic}, listener_name)
        assert len(topic_metadatas) == 1
        assert topic in topic_metadatas
        assert cache.get_topic_id(topic) == topic_ids[topic]

        topic_partition_states = [ps for ps in partition_states if ps.topic_name == topic]
        partition_metadatas = sorted(topic_metadatas[topic], key=lambda p: p.partition)
        assert len(partition_metadatas) == len(topic_partition_states), f"Unexpected partition count for topic {topic}"
        for partition_id, partition_metadata in enumerate(partition_metadatas):
            assert partition_metadata.error == Errors.NONE
            assert partition_metadata.partition == partition_id
            partition_state = next(ps for ps in topic_partition_states if ps.partition_index == partition_id)
            assert partition_metadata.leader == partition_state.leader
            assert partition_metadata.leader_epoch == partition_state.leader_epoch
            assert partition_metadata.isr == partition_state.isr
            assert partition_metadata.replicas == partition_state.replicas

    for security_protocol in (PLAINTEXT, SSL):
        check_topic_metadata(topic0, LISTENER[security_protocol])
        check_topic_metadata(topic1, LISTENER[security_protocol])


def _verify_topic_metadata_partition_leader_or_endpoint_not_available(
        cache: KRaftMetadataCache, metadata_cache_broker_id: int, brokers: list[UpdateMetadataBroker],
        listener_name: str, leader: int, expected_error: Errors, error_unavailable_listeners: bool) -> None:
    topic = "topic"
    partition_states = [UpdateMetadataPartitionState(topic, 0, controller_epoch=1, leader=leader, leader_epoch=1,
                                                     isr=[0], zk_version=3, replicas=[0])]
    update_cache(cache, brokers, partition_states, {})

    topic_metadatas = cache.get_topic_metadata({topic}, listener_name,
                                               error_unavailable_listeners=error_unavailable_listeners)
    assert len(topic_metadatas) == 1
    partition_metadatas = topic_metadatas[topic]
    assert len(partition_metadatas) == 1
    partition_metadata = partition_metadatas[0]
    assert partition_metadata.partition == 0
    assert partition_metadata.error == expected_error
    assert partition_metadata.isr
    assert partition_metadata.replicas == [0]


def test_get_topic_metadata_partition_leader_not_available(cache: KRaftMetadataCache) -> None:
    listener_name = LISTENER[PLAINTEXT]
    brokers = [UpdateMetadataBroker(0, [_endpoint("foo", 9092, PLAINTEXT)])]
    # leader 1 is not registered: LEADER_NOT_AVAILABLE whatever the metadata version
    _verify_topic_metadata_partition_leader_or_endpoint_not_available(
        cache, 0, brokers, listener_name, leader=1, expected_error=Errors.LEADER_NOT_AVAILABLE,
        error_unavailable_listeners=False)
    _verify_topic_metadata_partition_leader_or_endpoint_not_available(
        cache, 0, brokers, listener_name, leader=1, expected_error=Errors.LEADER_NOT_AVAILABLE,
        error_unavailable_listeners=True)


def test_get_topic_metadata_partition_listener_not_available_on_leader(cache: KRaftMetadataCache) -> None:
    broker0_endpoints = [_endpoint("host0", 9092, PLAINTEXT), _endpoint("host0", 9093, SSL)]
    broker1_endpoints = [_endpoint("host1", 9092, PLAINTEXT)]
    brokers = [UpdateMetadataBroker(0, broker0_endpoints), UpdateMetadataBroker(1, broker1_endpoints)]
    # the leader is registered without the listener: LISTENER_NOT_FOUND for new versions, LEADER_NOT_AVAILABLE for old
    _verify_topic_metadata_partition_leader_or_endpoint_not_available(
        cache, 0, brokers, LISTENER[SSL], leader=1, expected_error=Errors.LISTENER_NOT_FOUND,
        error_unavailable_listeners=True)
    _verify_topic_metadata_partition_leader_or_endpoint_not_available(
        cache, 0, brokers, LISTENER[SSL], leader=1, expected_error=Errors.LEADER_NOT_AVAILABLE,
        error_unavailable_listeners=False)


def _check_unavailable_endpoints(cache: KRaftMetadataCache, replicas: list[int], isr: list[int], rack: str | None,
                                 ) -> None:
    """getTopicMetadataReplicaNotAvailable and getTopicMetadataIsrNotAvailable: broker 1 is not registered."""
    topic = "topic"
    listener_name = LISTENER[PLAINTEXT]
    brokers = [UpdateMetadataBroker(0, [_endpoint("foo", 9092, PLAINTEXT)], rack)]
    partition_states = [UpdateMetadataPartitionState(topic, 0, controller_epoch=1, leader=0, leader_epoch=0,
                                                     isr=isr, zk_version=3, replicas=replicas)]
    update_cache(cache, brokers, partition_states, {})

    # errorUnavailableEndpoints = false
    topic_metadatas = cache.get_topic_metadata({topic}, listener_name, error_unavailable_endpoints=False)
    assert len(topic_metadatas) == 1
    partition_metadatas = topic_metadatas[topic]
    assert len(partition_metadatas) == 1
    partition_metadata = partition_metadatas[0]
    assert partition_metadata.partition == 0
    assert partition_metadata.error == Errors.NONE
    assert set(partition_metadata.replicas) == set(replicas)
    assert set(partition_metadata.isr) == set(isr)

    # errorUnavailableEndpoints = true
    topic_metadatas_with_error = cache.get_topic_metadata({topic}, listener_name, error_unavailable_endpoints=True)
    assert len(topic_metadatas_with_error) == 1
    partition_metadatas_with_error = topic_metadatas_with_error[topic]
    assert len(partition_metadatas_with_error) == 1
    partition_metadata_with_error = partition_metadatas_with_error[0]
    assert partition_metadata_with_error.partition == 0
    assert partition_metadata_with_error.error == Errors.REPLICA_NOT_AVAILABLE
    assert set(partition_metadata_with_error.replicas) == {0}
    assert set(partition_metadata_with_error.isr) == {0}


def test_get_topic_metadata_replica_not_available(cache: KRaftMetadataCache) -> None:
    _check_unavailable_endpoints(cache, replicas=[0, 1], isr=[0], rack=None)


def test_get_topic_metadata_isr_not_available(cache: KRaftMetadataCache) -> None:
    _check_unavailable_endpoints(cache, replicas=[0], isr=[0, 1], rack="rack1")


def test_get_topic_metadata_with_non_supported_security_protocol(cache: KRaftMetadataCache) -> None:
    topic = "topic"
    brokers = [UpdateMetadataBroker(0, [_endpoint("foo", 9092, PLAINTEXT)], "")]
    partition_states = [UpdateMetadataPartitionState(topic, 0, controller_epoch=1, leader=0, leader_epoch=0,
                                                     isr=[0, 1], zk_version=3, replicas=[0])]
    update_cache(cache, brokers, partition_states, {})

    topic_metadata = cache.get_topic_metadata({topic}, LISTENER[SSL])
    assert len(topic_metadata) == 1
    assert len(topic_metadata[topic]) == 1
    assert topic_metadata[topic][0].leader == NO_PARTITION_LEADER_EPOCH


def test_get_alive_brokers_should_not_be_mutated_by_update_cache(cache: KRaftMetadataCache) -> None:
    topic = "topic"

    def update(broker_ids: Iterable[int]) -> None:
        brokers = [UpdateMetadataBroker(broker_id, [_endpoint("foo", 9092, PLAINTEXT)], "")
                   for broker_id in broker_ids]
        partition_states = [UpdateMetadataPartitionState(topic, 0, controller_epoch=1, leader=0, leader_epoch=0,
                                                         isr=[0, 1], zk_version=3, replicas=[0])]
        update_cache(cache, brokers, partition_states, {})

    initial_broker_ids = range(3)
    update(initial_broker_ids)
    alive_brokers_from_cache = cache.get_alive_brokers()
    update(range(4))  # must not change alive_brokers_from_cache
    assert {b.id for b in alive_brokers_from_cache} == set(initial_broker_ids)


def test_is_broker_fenced() -> None:
    metadata_cache = KRaftMetadataCache(0)
    delta = MetadataDelta.Builder().build()
    delta.replay(register_broker_record(0, fenced=False))
    metadata_cache.set_image(delta.apply(MetadataProvenance.EMPTY))
    assert not metadata_cache.is_broker_fenced(0)

    delta.replay(BrokerRegistrationChangeRecord(broker_id=0, broker_epoch=0, fenced=1))
    metadata_cache.set_image(delta.apply(MetadataProvenance.EMPTY))
    assert metadata_cache.is_broker_fenced(0)


def test_get_alive_brokers_with_broker_fenced() -> None:
    metadata_cache = KRaftMetadataCache(0)
    listener_name = "listener"
    endpoints = [BrokerEndpoint(name=listener_name, host="foo", port=123, security_protocol=0)]
    delta = MetadataDelta.Builder().build()
    delta.replay(register_broker_record(0, fenced=False, end_points=endpoints))
    delta.replay(register_broker_record(1, fenced=False, end_points=endpoints))
    delta.replay(BrokerRegistrationChangeRecord(broker_id=1, broker_epoch=0, fenced=1))
    metadata_image = delta.apply(MetadataProvenance.EMPTY)

    metadata_cache.set_image(metadata_image)
    assert not metadata_cache.is_broker_fenced(0)
    assert metadata_cache.is_broker_fenced(1)

    alive_brokers = {b.id for b in metadata_cache.get_alive_brokers()}
    for broker_id, registration in metadata_image.cluster.brokers.items():
        assert (broker_id in alive_brokers) == (not registration.fenced)
        assert (metadata_cache.get_alive_broker_node(broker_id, listener_name) is not None) == \
            (broker_id in alive_brokers)


def test_is_broker_in_controlled_shutdown() -> None:
    metadata_cache = KRaftMetadataCache(0)
    delta = MetadataDelta.Builder().build()
    delta.replay(register_broker_record(0, in_controlled_shutdown=False))
    metadata_cache.set_image(delta.apply(MetadataProvenance.EMPTY))
    assert not metadata_cache.is_broker_shutting_down(0)

    delta.replay(BrokerRegistrationChangeRecord(broker_id=0, broker_epoch=0, in_controlled_shutdown=1))
    metadata_cache.set_image(delta.apply(MetadataProvenance.EMPTY))
    assert metadata_cache.is_broker_shutting_down(0)


def test_get_live_broker_epoch() -> None:
    metadata_cache = KRaftMetadataCache(0)
    delta = MetadataDelta.Builder().build()
    delta.replay(register_broker_record(0, broker_epoch=100, fenced=False))
    delta.replay(register_broker_record(1, broker_epoch=101, fenced=True))
    metadata_cache.set_image(delta.apply(MetadataProvenance.EMPTY))

    epoch0 = metadata_cache.get_alive_broker_epoch(0)
    epoch1 = metadata_cache.get_alive_broker_epoch(1)
    assert (-1 if epoch0 is None else epoch0) == 100
    assert (-1 if epoch1 is None else epoch1) == -1


def test_get_topic_metadata_for_describe_topic_partitions_response() -> None:
    metadata_cache = KRaftMetadataCache(0)
    listener_name = LISTENER[PLAINTEXT]
    topic0, topic1 = "test0", "test1"
    topic_ids = {topic0: _random_uuid(), topic1: _random_uuid()}

    def partition_record(topic: str, partition_id: int, replicas: list[int], leader: int, isr: list[int],
                         elr: list[int], last_known_elr: list[int], leader_epoch: int,
                         partition_epoch: int) -> PartitionRecord:
        return PartitionRecord(topic_id=topic_ids[topic], partition_id=partition_id, replicas=tuple(replicas),
                               leader=leader, isr=tuple(isr), eligible_leader_replicas=tuple(elr),
                               last_known_elr=tuple(last_known_elr), leader_epoch=leader_epoch,
                               partition_epoch=partition_epoch,
                               leader_recovery_state=LeaderRecoveryState.RECOVERED.value)

    partition_map = {
        (topic0, 0): partition_record(topic0, 0, [0, 1, 2], 0, [0], [1], [2], 0, 1),
        (topic0, 2): partition_record(topic0, 2, [0, 2, 3], 3, [3], [2], [0], 1, 2),
        (topic0, 1): partition_record(topic0, 1, [0, 1, 3], 0, [0], [1], [3], 0, 2),
        (topic1, 0): partition_record(topic1, 0, [0, 1, 2], 2, [2], [1], [0], 10, 11),
    }
    brokers = [UpdateMetadataBroker(broker_id, [_endpoint(f"foo{broker_id}", 9092 + broker_id, PLAINTEXT)])
               for broker_id in range(4)]
    record_seq: list[object] = [TopicRecord(name=topic0, topic_id=topic_ids[topic0]),
                                TopicRecord(name=topic1, topic_id=topic_ids[topic1])]
    record_seq += list(partition_map.values())
    update_cache(metadata_cache, brokers, [], topic_ids, record_seq)

    def check_topic_metadata(topic: str, partition_ids: set[int], partitions: list[dict]) -> None:
        for partition in partitions:
            partition_id = partition["partition_index"]
            assert partition_id in partition_ids
            expected_partition = partition_map[(topic, partition_id)]
            assert partition["error_code"] == 0
            assert partition["leader_epoch"] == expected_partition.leader_epoch
            assert partition["partition_index"] == expected_partition.partition_id
            assert partition["eligible_leader_replicas"] == list(expected_partition.eligible_leader_replicas)
            assert partition["isr_nodes"] == list(expected_partition.isr)
            assert partition["last_known_elr"] == list(expected_partition.last_known_elr)
            assert partition["leader_id"] == expected_partition.leader

    def describe(topics: list[str], start_index, maximum: int) -> dict:  # noqa: ANN001
        return metadata_cache.get_topic_metadata_for_describe_topic_response(
            iter(topics), listener_name, start_index, maximum, False)

    # basic
    result = describe([topic0, topic1], lambda _: 0, 10)["topics"]
    assert len(result) == 2
    result_topic = result[0]
    assert result_topic["name"] == topic0
    assert result_topic["error_code"] == 0
    assert result_topic["topic_id"] == topic_ids[topic0]
    assert len(result_topic["partitions"]) == 3
    check_topic_metadata(topic0, {0, 1, 2}, result_topic["partitions"])

    result_topic = result[1]
    assert result_topic["name"] == topic1
    assert result_topic["error_code"] == 0
    assert result_topic["topic_id"] == topic_ids[topic1]
    assert len(result_topic["partitions"]) == 1
    check_topic_metadata(topic1, {0}, result_topic["partitions"])

    # quota reached
    response = describe([topic0, topic1], lambda _: 0, 2)
    result = response["topics"]
    assert len(result) == 1
    result_topic = result[0]
    assert result_topic["name"] == topic0
    assert result_topic["error_code"] == 0
    assert result_topic["topic_id"] == topic_ids[topic0]
    assert len(result_topic["partitions"]) == 2
    check_topic_metadata(topic0, {0, 1}, result_topic["partitions"])
    assert response["next_cursor"]["topic_name"] == topic0
    assert response["next_cursor"]["partition_index"] == 2

    # with a start index
    result = describe([topic0], lambda t: 1 if t == topic0 else 0, 10)["topics"]
    assert len(result) == 1
    result_topic = result[0]
    assert result_topic["name"] == topic0
    assert result_topic["error_code"] == 0
    assert result_topic["topic_id"] == topic_ids[topic0]
    assert len(result_topic["partitions"]) == 2
    check_topic_metadata(topic0, {1, 2}, result_topic["partitions"])

    # with a start index, and the quota reached
    response = describe([topic0, topic1], lambda t: 2 if t == topic0 else 0, 1)
    result = response["topics"]
    assert len(result) == 1
    result_topic = result[0]
    assert result_topic["name"] == topic0
    assert result_topic["error_code"] == 0
    assert result_topic["topic_id"] == topic_ids[topic0]
    assert len(result_topic["partitions"]) == 1
    check_topic_metadata(topic0, {2}, result_topic["partitions"])
    assert response["next_cursor"]["topic_name"] == topic1
    assert response["next_cursor"]["partition_index"] == 0

    # the first topic does not exist
    result = describe(["Non-exist", topic0], lambda t: 1 if t == "Non-exist" else 0, 1)["topics"]
    assert len(result) == 2
    result_topic = result[0]
    assert result_topic["name"] == "Non-exist"
    assert result_topic["error_code"] == 3

    result_topic = result[1]
    assert result_topic["name"] == topic0
    assert result_topic["error_code"] == 0
    assert result_topic["topic_id"] == topic_ids[topic0]
    assert len(result_topic["partitions"]) == 1
    check_topic_metadata(topic0, {0}, result_topic["partitions"])


def test_get_partition_info(cache: KRaftMetadataCache) -> None:
    topic, partition_index = "topic", 0
    controller_epoch, leader, leader_epoch, zk_version = 1, 0, 0, 3
    isr = [2, 3, 0]
    replicas = [2, 3, 0, 1, 4]
    offline_replicas = [0]
    partition_states = [UpdateMetadataPartitionState(topic, partition_index, controller_epoch, leader, leader_epoch,
                                                     isr, zk_version, replicas, offline_replicas)]
    brokers = [UpdateMetadataBroker(0, [_endpoint("foo", 9092, PLAINTEXT)], "rack1")]
    update_cache(cache, brokers, partition_states, {})

    partition_state = cache.get_partition_info(topic, partition_index)
    assert partition_state is not None
    assert partition_state.topic_name == topic
    assert partition_state.partition_index == partition_index
    assert partition_state.controller_epoch == -1  # a KRaft cache keeps no controller epoch
    assert partition_state.leader == leader
    assert partition_state.leader_epoch == leader_epoch
    assert partition_state.isr == isr
    assert partition_state.zk_version == zk_version
    assert partition_state.replicas == replicas
    # offline replicas: asserted for the ZooKeeper cache only


def test_get_offline_replicas_considers_dir_assignment() -> None:
    @dataclass
    class Broker:
        id: int
        dirs: list[uuid.UUID]

    @dataclass
    class Partition:
        id: int
        replicas: list[int]
        dirs: list[uuid.UUID]

    def offline_partitions(brokers: list[Broker], partitions: list[Partition]) -> dict[int, list[int]]:
        delta = MetadataDelta.Builder().build()
        for broker in brokers:
            delta.replay(register_broker_record(
                broker.id, fenced=False, log_dirs=broker.dirs,
                end_points=[BrokerEndpoint(name="PLAINTEXT", host=f"broker-{broker.id}", port=9093,
                                           security_protocol=PLAINTEXT)]))
        topic_id = _uuid("95OVr1IPRYGrcNCLlpImCA")
        delta.replay(TopicRecord(topic_id=topic_id, name="foo"))
        for partition in partitions:
            delta.replay(PartitionRecord(topic_id=topic_id, partition_id=partition.id,
                                         replicas=tuple(partition.replicas), directories=tuple(partition.dirs),
                                         leader=partition.replicas[0], isr=tuple(partition.replicas)))
        cache = KRaftMetadataCache(1)
        cache.set_image(delta.apply(MetadataProvenance.EMPTY))
        topic_metadata = cache.get_topic_metadata({"foo"}, "PLAINTEXT")["foo"]
        return {p.partition: p.offline_replicas for p in topic_metadata}

    brokers = [Broker(0, [_uuid("broker1logdirjEo71BG0w")]), Broker(1, [_uuid("broker2logdirRmQQgLxgw")])]
    partitions = [
        Partition(0, [0, 1], [_uuid("broker1logdirjEo71BG0w"), LOST_DIR]),
        Partition(1, [0, 1], [_uuid("unknownlogdirjEo71BG0w"), UNASSIGNED_DIR]),
        Partition(2, [0, 1], [MIGRATING_DIR, _uuid("broker2logdirRmQQgLxgw")]),
    ]
    assert offline_partitions(brokers, partitions) == {0: [1], 1: [0], 2: []}
