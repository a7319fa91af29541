"""Our own test code, not a Kafka port: bad Produce and Fetch requests get 3.9's error codes from the 3.9 KafkaApis.

KafkaApisTest (ported in tests/kafka_tests/v3_9/core/server/kafka_apis_test.py) mocks the ReplicaManager, so it does
not see what a real partition answers. Here the request path is real from KafkaApis.handle down: 3.9's ReplicaManager
over a real LogManager (this broker leads foo-0 at leader epoch 5), the real FetchManager with its session cache and a
KRaftMetadataCache built from metadata records. Each case is a kind of bad input from the brief's list that Kafka's
test lacks: unknown topics and topic ids, stale and future leader epochs, unknown sessions and wrong session epochs,
refused records (INVALID_RECORD, CORRUPT_MESSAGE), missing authorization; and the broker keeps answering afterwards.
Produce carries no topic ids (before v13, which 3.9 does not have) nor leader epochs: a produce to a partition this
broker does not lead gets NOT_LEADER_OR_FOLLOWER instead.

The transaction APIs and OffsetDelete get the same: unknown topics and partitions, internal topics, missing
authorization at each level, a client sending the brokers' AddPartitionsToTxn v4+, versions past 3.9's; and one
transaction runs on the real transaction coordinator (3.9's, as the KRaft broker wires it) with stale epochs and
unknown ids.
"""

from __future__ import annotations

import datetime
import struct
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import KafkaPrincipal
from kafka_edu.v3_9.clients.common.compress.compression import NONE as COMPRESSION_NONE
from kafka_edu.v3_9.clients.common.memory import memory_pool as memory_pools
from kafka_edu.v3_9.clients.common.network.client_information import ClientInformation
from kafka_edu.v3_9.clients.common.network.listener_name import ListenerName
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.codec import encode_request
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.requests.fetch_metadata import FetchMetadata
from kafka_edu.v3_9.clients.common.requests.fetch_request import Builder as FetchRequestBuilder
from kafka_edu.v3_9.clients.common.requests.fetch_request import PartitionData
from kafka_edu.v3_9.clients.common.requests.request_context import RequestContext
from kafka_edu.v3_9.clients.common.requests.request_header import RequestHeader
from kafka_edu.v3_9.clients.common.security.auth.security_protocol import SecurityProtocol
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.network.request_channel import Request
from kafka_edu.v3_9.core.server.fetch_session import FetchManager, FetchSessionCacheShard
from kafka_edu.v3_9.core.server.kafka_apis import KafkaApis
from kafka_edu.v3_9.core.server.metadata.kraft_metadata_cache import KRaftMetadataCache
from kafka_edu.v3_9.metadata.common.metadata import PartitionRecord, TopicRecord
from tests.kafka_tests.v3_9.core.server.kafka_apis_test import (
    ALLOWED,
    CLIENT_ID,
    DENIED,
    PLAINTEXT,
    Authorizer,
    Env,
    build_request,
    register_broker,
    verify_no_throttling,
)
from tests.kafka_tests.v3_9.core.server.replica_manager_test import become_leader, setup_replica_manager

FOO = "foo"
FOO_ID = uuid.uuid4()
LEADER_EPOCH = 5
BROKER_ID = 0


class World(Env):
    """KafkaApisTest's world with the real ReplicaManager, FetchManager and metadata in place of the mocks."""

    def __init__(self, tmp_path: Path) -> None:
        super().__init__()
        self.rm_world = setup_replica_manager(tmp_path, broker_id=BROKER_ID)
        self.replica_manager = self.rm_world.replica_manager
        self.metadata_cache = KRaftMetadataCache(BROKER_ID)
        self.fetch_manager = FetchManager(self.time, FetchSessionCacheShard(1000, 120000))
        self.replay([register_broker(BROKER_ID, [(PLAINTEXT, "broker0", 9092)]),
                     register_broker(1, [(PLAINTEXT, "broker1", 9092)]),
                     TopicRecord(name=FOO, topic_id=FOO_ID),
                     PartitionRecord(partition_id=0, topic_id=FOO_ID, replicas=(0, 1), isr=(0,), removing_replicas=(),
                                     adding_replicas=(), leader=0, leader_epoch=LEADER_EPOCH, partition_epoch=0),
                     PartitionRecord(partition_id=1, topic_id=FOO_ID, replicas=(1, 0), isr=(1,), removing_replicas=(),
                                     adding_replicas=(), leader=1, leader_epoch=LEADER_EPOCH, partition_epoch=0)])
        self.rm_world.metadata_cache.contained.add(TopicPartition(FOO, 1))
        # this broker leads foo-0 (and follows nothing: foo-1 is not hosted here)
        become_leader(self.rm_world, TopicPartition(FOO, 0), FOO_ID, LEADER_EPOCH, [BROKER_ID])

    def kafka_apis(self, authorizer: Any = None) -> KafkaApis:
        return self.create_kafka_apis(authorizer=authorizer, overrides={"node.id": BROKER_ID,
                                                                        "controller.quorum.voters": "3@localhost:9093"})


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = World(tmp_path)
    yield w
    w.replica_manager.shutdown(checkpoint_hw=False)


def batch(*values: bytes) -> bytes:
    return bytes(MemoryRecords.with_records(COMPRESSION_NONE, *(SimpleRecord(v) for v in values)).buffer())


def produce(world: World, partitions: dict[TopicPartition, bytes], version: int = 9, acks: int = -1,
            authorizer: Any = None, transactional_id: str | None = None) -> Any:
    by_topic: dict[str, list[dict[str, Any]]] = {}
    for tp, records in partitions.items():
        by_topic.setdefault(tp.topic, []).append(dict(index=tp.partition, records=records))
    request = build_request(ApiKeys.PRODUCE, version, transactional_id=transactional_id, acks=acks, timeout=1000,
                            topic_data=[dict(name=name, partition_data=p) for name, p in by_topic.items()])
    world.kafka_apis(authorizer).handle(request, None)
    return request


def produce_errors(world: World, request: Any) -> dict[TopicPartition, int]:
    response = verify_no_throttling(world, request)
    return {TopicPartition(t.name, p.index): p.error_code for t in response.responses for p in t.partition_responses}


def fetch(world: World, partitions: dict[TopicPartition, PartitionData], version: int = 15, replica_id: int = -1,
          metadata: FetchMetadata | None = None, authorizer: Any = None) -> Any:
    builder = FetchRequestBuilder(version, version, replica_id, -1 if replica_id < 0 else 1, 0, 0, partitions)
    if metadata is not None:
        builder.metadata(metadata)
    body = builder.build(version).to_kio()
    buffer = encode_request(ApiKeys.FETCH, version, 0, CLIENT_ID, body)
    context = RequestContext(RequestHeader.parse(buffer), "1", "127.0.0.1", None, KafkaPrincipal("User", "Alice"),
                             ListenerName(PLAINTEXT), SecurityProtocol.SSL, ClientInformation.EMPTY, False)
    request = Request(1, context, 0, memory_pools.NONE, buffer, None)
    world.kafka_apis(authorizer).handle(request, None)
    return verify_no_throttling(world, request)


def fetch_errors(response: Any) -> dict[tuple[Any, int], int]:
    return {(t.topic if hasattr(t, "topic") else t.topic_id, p.partition_index): p.error_code
            for t in response.responses for p in t.partitions}


def partition_data(current_leader_epoch: int | None = LEADER_EPOCH, topic_id: uuid.UUID = FOO_ID,
                   fetch_offset: int = 0) -> PartitionData:
    return PartitionData(topic_id, fetch_offset, -1, 1024 * 1024, current_leader_epoch)


# -- Produce --------------------------------------------------------------------------------------------------------


def test_produce_appends_to_the_leader(world: World) -> None:
    request = produce(world, {TopicPartition(FOO, 0): batch(b"a", b"b")})
    response = verify_no_throttling(world, request)
    partition = response.responses[0].partition_responses[0]
    assert (partition.error_code, partition.base_offset) == (Errors.NONE, 0)


def test_produce_to_an_unknown_topic(world: World) -> None:
    request = produce(world, {TopicPartition("bar", 0): batch(b"a"), TopicPartition(FOO, 7): batch(b"a")})
    assert produce_errors(world, request) == {TopicPartition("bar", 0): Errors.UNKNOWN_TOPIC_OR_PARTITION,
                                              TopicPartition(FOO, 7): Errors.UNKNOWN_TOPIC_OR_PARTITION}


def test_produce_to_a_partition_this_broker_does_not_lead(world: World) -> None:
    request = produce(world, {TopicPartition(FOO, 1): batch(b"a")}, version=10)
    response = verify_no_throttling(world, request)
    partition = response.responses[0].partition_responses[0]
    assert partition.error_code == Errors.NOT_LEADER_OR_FOLLOWER
    # KIP-951: the response names the leader the metadata knows
    assert (partition.current_leader.leader_id, partition.current_leader.leader_epoch) == (1, LEADER_EPOCH)
    assert [(n.node_id, n.host) for n in response.node_endpoints] == [(1, "broker1")]


def test_produce_refuses_a_batch_of_an_old_format_from_v3(world: World) -> None:
    v1_records = bytes(MemoryRecords.with_records(COMPRESSION_NONE, SimpleRecord(b"a"), magic=1).buffer())
    request = produce(world, {TopicPartition(FOO, 0): v1_records})
    assert produce_errors(world, request) == {TopicPartition(FOO, 0): Errors.INVALID_RECORD}


def test_produce_refuses_two_batches_or_none(world: World) -> None:
    request = produce(world, {TopicPartition(FOO, 0): batch(b"a") + batch(b"b")})
    assert produce_errors(world, request) == {TopicPartition(FOO, 0): Errors.INVALID_RECORD}
    world.request_channel.sent.clear()
    request = produce(world, {TopicPartition(FOO, 0): b""})
    assert produce_errors(world, request) == {TopicPartition(FOO, 0): Errors.INVALID_RECORD}


def test_produce_refuses_a_corrupt_batch(world: World) -> None:
    corrupt = bytearray(batch(b"hello"))
    corrupt[-1] ^= 0xFF  # the CRC no longer matches
    request = produce(world, {TopicPartition(FOO, 0): bytes(corrupt)})
    assert produce_errors(world, request) == {TopicPartition(FOO, 0): Errors.CORRUPT_MESSAGE}
    # nothing was appended, and the broker keeps serving
    world.request_channel.sent.clear()
    request = produce(world, {TopicPartition(FOO, 0): batch(b"ok")})
    response = verify_no_throttling(world, request)
    assert response.responses[0].partition_responses[0].base_offset == 0


def test_produce_refuses_a_truncated_batch(world: World) -> None:
    truncated = batch(b"hello")
    # a batch whose length field claims more bytes than were sent
    truncated = truncated[:8] + struct.pack(">i", len(truncated) + 100) + truncated[12:]
    request = produce(world, {TopicPartition(FOO, 0): truncated})
    assert produce_errors(world, request)[TopicPartition(FOO, 0)] in (Errors.CORRUPT_MESSAGE, Errors.INVALID_RECORD)


def test_produce_without_write_on_the_topic(world: World) -> None:
    authorizer = Authorizer().allow("WRITE", "TOPIC", FOO, DENIED)
    request = produce(world, {TopicPartition(FOO, 0): batch(b"a")}, authorizer=authorizer)
    assert produce_errors(world, request) == {TopicPartition(FOO, 0): Errors.TOPIC_AUTHORIZATION_FAILED}


def test_transactional_produce_without_write_on_the_transactional_id(world: World) -> None:
    txn_batch = bytes(MemoryRecords.with_transactional_records(COMPRESSION_NONE, 7, 0, 0, SimpleRecord(b"a")).buffer())
    authorizer = Authorizer().allow("WRITE", "TRANSACTIONAL_ID", "txn", DENIED)
    request = produce(world, {TopicPartition(FOO, 0): txn_batch}, authorizer=authorizer, transactional_id="txn")
    assert produce_errors(world, request) == {TopicPartition(FOO, 0): Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED}


def test_acks_0_produce_with_an_error_closes_the_connection(world: World) -> None:
    request = produce(world, {TopicPartition("bar", 0): batch(b"a")}, acks=0)
    assert world.request_channel.closed == [request]
    assert not world.request_channel.sent
    request = produce(world, {TopicPartition(FOO, 0): batch(b"a")}, acks=0)
    assert world.request_channel.no_op == [request]


# -- Fetch ----------------------------------------------------------------------------------------------------------


def test_fetch_reads_what_was_produced(world: World) -> None:
    produce(world, {TopicPartition(FOO, 0): batch(b"a", b"b")})
    response = fetch(world, {TopicPartition(FOO, 0): partition_data()})
    partition = response.responses[0].partitions[0]
    assert (partition.error_code, partition.high_watermark) == (Errors.NONE, 2)
    assert len(partition.records) > 0


def test_fetch_of_an_unknown_topic(world: World) -> None:
    response = fetch(world, {TopicPartition("bar", 0): partition_data(topic_id=uuid.UUID(int=0))}, version=12)
    assert fetch_errors(response) == {("bar", 0): Errors.UNKNOWN_TOPIC_OR_PARTITION}


def test_fetch_of_an_unknown_topic_id(world: World) -> None:
    unknown = uuid.uuid4()
    response = fetch(world, {TopicPartition("bar", 0): partition_data(topic_id=unknown)})
    assert fetch_errors(response) == {(unknown, 0): Errors.UNKNOWN_TOPIC_ID}


def test_fetch_with_a_stale_leader_epoch(world: World) -> None:
    response = fetch(world, {TopicPartition(FOO, 0): partition_data(LEADER_EPOCH - 1)})
    assert fetch_errors(response) == {(FOO_ID, 0): Errors.FENCED_LEADER_EPOCH}


def test_fetch_with_a_future_leader_epoch(world: World) -> None:
    response = fetch(world, {TopicPartition(FOO, 0): partition_data(LEADER_EPOCH + 1)})
    assert fetch_errors(response) == {(FOO_ID, 0): Errors.UNKNOWN_LEADER_EPOCH}


def test_fetch_from_a_partition_this_broker_does_not_lead(world: World) -> None:
    response = fetch(world, {TopicPartition(FOO, 1): partition_data()}, version=16)
    partition = response.responses[0].partitions[0]
    assert partition.error_code == Errors.NOT_LEADER_OR_FOLLOWER
    assert (partition.current_leader.leader_id, partition.current_leader.leader_epoch) == (1, LEADER_EPOCH)


def test_fetch_with_an_unknown_session(world: World) -> None:
    response = fetch(world, {TopicPartition(FOO, 0): partition_data()}, metadata=FetchMetadata(12345, 1))
    assert response.error_code == Errors.FETCH_SESSION_ID_NOT_FOUND
    assert not response.responses


def test_fetch_with_a_wrong_session_epoch(world: World) -> None:
    # a full fetch (epoch 0) opens a session
    created = fetch(world, {TopicPartition(FOO, 0): partition_data()}, metadata=FetchMetadata(0, 0))
    assert created.error_code == Errors.NONE and created.session_id > 0
    world.request_channel.sent.clear()
    response = fetch(world, {}, metadata=FetchMetadata(created.session_id, 5))
    assert response.error_code == Errors.INVALID_FETCH_SESSION_EPOCH
    # the right epoch continues the session
    world.request_channel.sent.clear()
    response = fetch(world, {}, metadata=FetchMetadata(created.session_id, 1))
    assert (response.error_code, response.session_id) == (Errors.NONE, created.session_id)


def test_fetch_without_read_on_the_topic(world: World) -> None:
    authorizer = Authorizer().allow("READ", "TOPIC", FOO, DENIED)
    response = fetch(world, {TopicPartition(FOO, 0): partition_data()}, authorizer=authorizer)
    assert fetch_errors(response) == {(FOO_ID, 0): Errors.TOPIC_AUTHORIZATION_FAILED}


def test_follower_fetch_without_cluster_action(world: World) -> None:
    authorizer = Authorizer().allow("CLUSTER_ACTION", "CLUSTER", "kafka-cluster", DENIED)
    response = fetch(world, {TopicPartition(FOO, 0): partition_data()}, replica_id=1, authorizer=authorizer)
    assert fetch_errors(response) == {(FOO_ID, 0): Errors.TOPIC_AUTHORIZATION_FAILED}
    world.request_channel.sent.clear()
    authorizer = Authorizer().allow("CLUSTER_ACTION", "CLUSTER", "kafka-cluster", ALLOWED)
    response = fetch(world, {TopicPartition(FOO, 0): partition_data()}, replica_id=1, authorizer=authorizer)
    # allowed, the fetch reaches the partition (which does not count broker 1 among its replicas)
    assert fetch_errors(response)[(FOO_ID, 0)] != Errors.TOPIC_AUTHORIZATION_FAILED


# -- dispatch -------------------------------------------------------------------------------------------------------


def test_a_disabled_api_gets_an_error_response(world: World) -> None:
    # LeaderAndIsr is not served on a KRaft broker's listener: 3.9 answers its IllegalStateException
    request = build_request(ApiKeys.LEADER_AND_ISR, 7, controller_id=1, controller_epoch=1, broker_epoch=1,
                            topic_states=[], live_leaders=[], type=0, is_k_raft_controller=False)
    world.kafka_apis().handle(request, None)
    response = verify_no_throttling(world, request)
    assert response.error_code == Errors.UNKNOWN_SERVER_ERROR


# -- the other handlers on the same partition -------------------------------------------------------------------------


def test_list_offsets_with_stale_and_future_leader_epochs(world: World) -> None:
    produce(world, {TopicPartition(FOO, 0): batch(b"a", b"b")})

    def list_offsets(epoch: int) -> Any:
        request = build_request(ApiKeys.LIST_OFFSETS, 9, replica_id=-1, isolation_level=0, topics=[
            dict(name=FOO, partitions=[dict(partition_index=0, timestamp=-1, current_leader_epoch=epoch)])])
        world.kafka_apis().handle(request, None)
        return verify_no_throttling(world, request).topics[0].partitions[0]

    assert (list_offsets(LEADER_EPOCH).error_code, list_offsets(LEADER_EPOCH).offset) == (Errors.NONE, 2)
    assert list_offsets(LEADER_EPOCH - 1).error_code == Errors.FENCED_LEADER_EPOCH
    assert list_offsets(LEADER_EPOCH + 1).error_code == Errors.UNKNOWN_LEADER_EPOCH


def test_offset_for_leader_epoch_with_stale_and_unknown_partitions(world: World) -> None:
    produce(world, {TopicPartition(FOO, 0): batch(b"a", b"b")})
    request = build_request(ApiKeys.OFFSET_FOR_LEADER_EPOCH, 4, replica_id=-1, topics=[
        dict(topic=FOO, partitions=[dict(partition=0, current_leader_epoch=LEADER_EPOCH, leader_epoch=LEADER_EPOCH),
                                    dict(partition=1, current_leader_epoch=LEADER_EPOCH, leader_epoch=LEADER_EPOCH)]),
        dict(topic="bar", partitions=[dict(partition=0, current_leader_epoch=1, leader_epoch=1)])])
    world.kafka_apis().handle(request, None)
    response = verify_no_throttling(world, request)
    answers = {(t.topic, p.partition): (p.error_code, p.end_offset) for t in response.topics for p in t.partitions}
    assert answers == {(FOO, 0): (Errors.NONE, 2), (FOO, 1): (Errors.NOT_LEADER_OR_FOLLOWER, -1),
                       ("bar", 0): (Errors.UNKNOWN_TOPIC_OR_PARTITION, -1)}
    world.request_channel.sent.clear()
    request = build_request(ApiKeys.OFFSET_FOR_LEADER_EPOCH, 4, replica_id=-1, topics=[
        dict(topic=FOO, partitions=[dict(partition=0, current_leader_epoch=LEADER_EPOCH - 1, leader_epoch=1)])])
    world.kafka_apis().handle(request, None)
    assert verify_no_throttling(world, request).topics[0].partitions[0].error_code == Errors.FENCED_LEADER_EPOCH


def test_delete_records_of_unknown_and_unauthorized_topics(world: World) -> None:
    produce(world, {TopicPartition(FOO, 0): batch(b"a", b"b", b"c")})
    request = build_request(ApiKeys.DELETE_RECORDS, 2, timeout=1000, topics=[
        dict(name=FOO, partitions=[dict(partition_index=0, offset=2)]),
        dict(name="bar", partitions=[dict(partition_index=0, offset=1)])])
    world.kafka_apis().handle(request, None)
    response = verify_no_throttling(world, request)
    answers = {(t.name, p.partition_index): (p.error_code, p.low_watermark) for t in response.topics
               for p in t.partitions}
    assert answers == {(FOO, 0): (Errors.NONE, 2), ("bar", 0): (Errors.UNKNOWN_TOPIC_OR_PARTITION, -1)}
    world.request_channel.sent.clear()
    request = build_request(ApiKeys.DELETE_RECORDS, 2, timeout=1000, topics=[
        dict(name=FOO, partitions=[dict(partition_index=0, offset=3)])])
    world.kafka_apis(Authorizer().allow("DELETE", "TOPIC", FOO, DENIED)).handle(request, None)
    assert verify_no_throttling(world, request).topics[0].partitions[0].error_code == \
        Errors.TOPIC_AUTHORIZATION_FAILED


def test_describe_log_dirs_needs_describe_on_the_cluster(world: World) -> None:
    request = build_request(ApiKeys.DESCRIBE_LOG_DIRS, 4, topics=None)
    world.kafka_apis().handle(request, None)
    response = verify_no_throttling(world, request)
    assert response.error_code == Errors.NONE
    assert any(t.name == FOO for r in response.results for t in r.topics)
    world.request_channel.sent.clear()
    world.kafka_apis(Authorizer().allow("DESCRIBE", "CLUSTER", "kafka-cluster", DENIED)).handle(request, None)
    response = verify_no_throttling(world, request)
    assert (response.error_code, response.results) == (Errors.CLUSTER_AUTHORIZATION_FAILED, ())


def test_api_versions_with_a_malformed_client_software_name(world: World) -> None:
    request = build_request(ApiKeys.API_VERSIONS, 3, client_software_name="bad name!", client_software_version="1")
    world.kafka_apis().handle(request, None)
    assert verify_no_throttling(world, request).error_code == Errors.INVALID_REQUEST
    world.request_channel.sent.clear()
    request = build_request(ApiKeys.API_VERSIONS, 4, client_software_name="kcat", client_software_version="1.7")
    world.kafka_apis().handle(request, None)
    response = verify_no_throttling(world, request)
    assert response.error_code == Errors.NONE
    assert {k.api_key: (k.min_version, k.max_version) for k in response.api_keys}[ApiKeys.FETCH] == (0, 17)


def test_metadata_names_the_leader_and_the_cluster(world: World) -> None:
    request = build_request(ApiKeys.METADATA, 12, topics=[dict(name=FOO, topic_id=uuid.UUID(int=0))],
                            allow_auto_topic_creation=False, include_topic_authorized_operations=False)
    world.kafka_apis().handle(request, None)
    response = verify_no_throttling(world, request)
    (topic,) = response.topics
    assert (topic.name, topic.topic_id, topic.error_code) == (FOO, FOO_ID, Errors.NONE)
    assert {(p.partition_index, p.leader_id, p.leader_epoch) for p in topic.partitions} == {
        (0, 0, LEADER_EPOCH), (1, 1, LEADER_EPOCH)}
    assert response.cluster_id == "clusterId" and response.controller_id in (0, 1)


def test_describe_topic_partitions_of_known_and_unknown_topics(world: World) -> None:
    request = build_request(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, 0, topics=[dict(name=FOO), dict(name="bar")],
                            response_partition_limit=2000, cursor=None)
    world.kafka_apis().handle(request, None)
    response = verify_no_throttling(world, request)
    answers = {t.name: (t.error_code, len(t.partitions)) for t in response.topics}
    assert answers == {FOO: (Errors.NONE, 2), "bar": (Errors.UNKNOWN_TOPIC_OR_PARTITION, 0)}


class _ChannelManager:
    """NodeToControllerChannelManager's send_request, the answer decided by the case."""

    def __init__(self) -> None:
        self.sent: list[tuple[Any, Any]] = []

    def send_request(self, request: Any, handler: Any) -> None:
        self.sent.append((request, handler))


def test_forwarded_create_topics_answered_by_the_controller_or_timed_out(world: World) -> None:
    from kafka_edu.v3_9.clients.common.protocol.builder import build
    from kafka_edu.v3_9.core.server.forwarding_manager import ForwardingManagerImpl
    from kafka_edu.v3_9.core.server.node_to_controller_channel_manager import ClientResponse

    channel = _ChannelManager()
    world.forwarding_manager = ForwardingManagerImpl(channel)  # type: ignore[assignment]
    request = build_request(ApiKeys.CREATE_TOPICS, 7, topics=[dict(name="new", num_partitions=1,
                                                                   replication_factor=1, assignments=[],
                                                                   configs=[])], timeout=1000)
    world.kafka_apis().handle(request, None)
    (controller_request, handler), = channel.sent
    assert controller_request.api is ApiKeys.CREATE_TOPICS
    answer = build(ApiKeys.CREATE_TOPICS.response_schema(7), throttle_time=0, topics=[
        dict(name="new", topic_id=FOO_ID, error_code=Errors.NONE, error_message=None, num_partitions=1,
             replication_factor=1, configs=[])])
    handler.on_complete(ClientResponse(ApiKeys.CREATE_TOPICS, "controller", response_body=answer))
    assert verify_no_throttling(world, request).topics[0].topic_id == FOO_ID

    # the controller never got it: the client's error response says so
    world.request_channel.sent.clear()
    request = build_request(ApiKeys.CREATE_TOPICS, 7, topics=[dict(name="late", num_partitions=1,
                                                                   replication_factor=1, assignments=[],
                                                                   configs=[])], timeout=1000)
    world.kafka_apis().handle(request, None)
    channel.sent[-1][1].on_timeout()
    assert verify_no_throttling(world, request).topics[0].error_code == Errors.REQUEST_TIMED_OUT


@pytest.mark.parametrize(("version", "magic"), [(0, 0), (1, 0), (2, 1), (3, 1), (4, 2)])
def test_old_fetch_versions_read_down_converted_records(world: World, version: int, magic: int) -> None:
    produce(world, {TopicPartition(FOO, 0): batch(b"a", b"b")})
    response = fetch(world, {TopicPartition(FOO, 0): partition_data(None, uuid.UUID(int=0))}, version=version)
    partition = response.responses[0].partitions[0]
    assert partition.error_code == Errors.NONE
    batches = list(MemoryRecords.readable_records(partition.records).batches())
    assert {b.magic() for b in batches} == {magic}
    assert [r.value() for b in batches for r in b] == [b"a", b"b"]


def test_api_versions_of_a_version_this_broker_does_not_know(world: World) -> None:
    frame = bytearray(encode_request(ApiKeys.API_VERSIONS, 4, 7, CLIENT_ID, ApiKeys.API_VERSIONS.request_schema(4)(
        client_software_name="kcat", client_software_version="1")))
    frame[2:4] = struct.pack(">h", 99)  # a future version
    context = RequestContext(RequestHeader.parse(bytes(frame)), "1", "127.0.0.1", None, KafkaPrincipal("User", "A"),
                             ListenerName(PLAINTEXT), SecurityProtocol.SSL, ClientInformation.EMPTY, False)
    request = Request(1, context, 0, memory_pools.NONE, bytes(frame), None)
    world.kafka_apis().handle(request, None)
    response = verify_no_throttling(world, request)  # read at v0
    assert response.error_code == Errors.UNSUPPORTED_VERSION
    assert [(k.api_key, k.min_version, k.max_version) for k in response.api_keys] == [
        (ApiKeys.API_VERSIONS, 0, ApiKeys.API_VERSIONS.latest_version)]


@pytest.mark.parametrize(("version", "endpoint_type", "error"), [
    (1, 2, Errors.MISMATCHED_ENDPOINT_TYPE), (1, 0, Errors.UNSUPPORTED_ENDPOINT_TYPE), (1, 1, Errors.NONE)])
def test_describe_cluster_of_the_wrong_endpoint_type(world: World, version: int, endpoint_type: int,
                                                     error: Errors) -> None:
    request = build_request(ApiKeys.DESCRIBE_CLUSTER, version, include_cluster_authorized_operations=False,
                            endpoint_type=endpoint_type)
    world.kafka_apis().handle(request, None)
    response = verify_no_throttling(world, request)
    assert response.error_code == error
    if error == Errors.NONE:
        assert {b.broker_id for b in response.brokers} == {0, 1} and response.controller_id in (0, 1)


@pytest.mark.parametrize("version", range(0, 5))
def test_offset_for_leader_epoch_at_every_version(world: World, version: int) -> None:
    produce(world, {TopicPartition(FOO, 0): batch(b"a", b"b")})
    request = build_request(ApiKeys.OFFSET_FOR_LEADER_EPOCH, version, replica_id=-1, topics=[
        dict(topic=FOO, partitions=[dict(partition=0, current_leader_epoch=LEADER_EPOCH, leader_epoch=LEADER_EPOCH)])])
    world.kafka_apis().handle(request, None)
    partition = verify_no_throttling(world, request).topics[0].partitions[0]
    assert (partition.error_code, partition.end_offset) == (Errors.NONE, 2)


# -- transactions and OffsetDelete --------------------------------------------------------------------------------


def send(world: World, api: ApiKeys, version: int, authorizer: Any = None, **fields: Any) -> Any:
    request = build_request(api, version, **fields)
    world.kafka_apis(authorizer).handle(request, None)
    return verify_no_throttling(world, request)


def add_partitions_errors(response: Any) -> dict[TopicPartition, int]:
    """The one transaction's partition errors, whichever version answered."""
    topic_results = (response.results_by_topic_v3_and_below if hasattr(response, "results_by_topic_v3_and_below")
                     else response.results_by_transaction[0].topic_results)
    return {TopicPartition(t.name, p.partition_index): p.partition_error_code
            for t in topic_results for p in t.results_by_partition}


def add_partitions_v3(world: World, partitions: list[TopicPartition], authorizer: Any = None) -> Any:
    by_topic: dict[str, list[int]] = {}
    for tp in partitions:
        by_topic.setdefault(tp.topic, []).append(tp.partition)
    return send(world, ApiKeys.ADD_PARTITIONS_TO_TXN, 3, authorizer, v3_and_below_transactional_id="t",
                v3_and_below_producer_id=1, v3_and_below_producer_epoch=0,
                v3_and_below_topics=[dict(name=name, partitions=p) for name, p in by_topic.items()])


def test_add_partitions_to_txn_of_unknown_topics_fails_the_whole_transaction(world: World) -> None:
    response = add_partitions_v3(world, [TopicPartition(FOO, 0), TopicPartition(FOO, 7), TopicPartition("bar", 0)])
    assert add_partitions_errors(response) == {TopicPartition(FOO, 0): Errors.OPERATION_NOT_ATTEMPTED,
                                               TopicPartition(FOO, 7): Errors.UNKNOWN_TOPIC_OR_PARTITION,
                                               TopicPartition("bar", 0): Errors.UNKNOWN_TOPIC_OR_PARTITION}
    world.txn_coordinator.handle_add_partitions_to_transaction.assert_not_called()


def test_a_producer_cannot_add_an_internal_topic_to_its_transaction(world: World) -> None:
    # no authorizer at all: an internal topic is still never authorized for a producer's transaction
    offsets_0 = TopicPartition("__consumer_offsets", 0)
    response = add_partitions_v3(world, [offsets_0, TopicPartition(FOO, 0)])
    assert add_partitions_errors(response) == {offsets_0: Errors.TOPIC_AUTHORIZATION_FAILED,
                                               TopicPartition(FOO, 0): Errors.OPERATION_NOT_ATTEMPTED}
    world.txn_coordinator.handle_add_partitions_to_transaction.assert_not_called()


def test_add_partitions_to_txn_without_write_on_the_topic_or_the_transactional_id(world: World) -> None:
    authorizer = Authorizer().allow("WRITE", "TRANSACTIONAL_ID", "t").allow("WRITE", "TOPIC", FOO, DENIED)
    response = add_partitions_v3(world, [TopicPartition(FOO, 0)], authorizer)
    assert add_partitions_errors(response) == {TopicPartition(FOO, 0): Errors.TOPIC_AUTHORIZATION_FAILED}
    world.request_channel.sent.clear()
    # the transactional id is checked first: the topic is not even asked about
    authorizer = Authorizer().allow("WRITE", "TRANSACTIONAL_ID", "t", DENIED)
    response = add_partitions_v3(world, [TopicPartition(FOO, 0)], authorizer)
    assert add_partitions_errors(response) == {TopicPartition(FOO, 0): Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED}
    world.txn_coordinator.handle_add_partitions_to_transaction.assert_not_called()


def test_a_client_without_cluster_action_cannot_send_add_partitions_to_txn_v4(world: World) -> None:
    authorizer = Authorizer().allow("CLUSTER_ACTION", "CLUSTER", "kafka-cluster", DENIED)
    response = send(world, ApiKeys.ADD_PARTITIONS_TO_TXN, 5, authorizer, transactions=[
        dict(transactional_id="t", producer_id=1, producer_epoch=0, verify_only=True,
             topics=[dict(name=FOO, partitions=(0,))])])
    assert (response.error_code, response.results_by_transaction) == (Errors.CLUSTER_AUTHORIZATION_FAILED, ())
    world.txn_coordinator.handle_verify_partitions_in_transaction.assert_not_called()


def test_add_offsets_to_txn_checks_the_transactional_id_then_the_group(world: World) -> None:
    fields = dict(transactional_id="t", producer_id=1, producer_epoch=0, group_id="g")
    world.group_coordinator.partition_for.return_value = 0
    denied_txn = Authorizer().allow("WRITE", "TRANSACTIONAL_ID", "t", DENIED)
    assert send(world, ApiKeys.ADD_OFFSETS_TO_TXN, 4, denied_txn, **fields).error_code == \
        Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
    world.request_channel.sent.clear()
    denied_group = Authorizer().allow("WRITE", "TRANSACTIONAL_ID", "t").allow("READ", "GROUP", "g", DENIED)
    assert send(world, ApiKeys.ADD_OFFSETS_TO_TXN, 4, denied_group, **fields).error_code == \
        Errors.GROUP_AUTHORIZATION_FAILED
    world.txn_coordinator.handle_add_partitions_to_transaction.assert_not_called()


def test_end_txn_without_write_on_the_transactional_id(world: World) -> None:
    authorizer = Authorizer().allow("WRITE", "TRANSACTIONAL_ID", "t", DENIED)
    response = send(world, ApiKeys.END_TXN, 4, authorizer, transactional_id="t", producer_id=1, producer_epoch=0,
                    committed=False)
    assert response.error_code == Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
    world.txn_coordinator.handle_end_transaction.assert_not_called()


def txn_offset_commit_errors(response: Any) -> dict[TopicPartition, int]:
    return {TopicPartition(t.name, p.partition_index): p.error_code for t in response.topics for p in t.partitions}


def test_txn_offset_commit_of_unknown_topics_and_partitions(world: World) -> None:
    world.group_coordinator = _GroupCoordinator()
    fields = dict(transactional_id="t", group_id="g", producer_id=1, producer_epoch=0, topics=[
        dict(name=name, partitions=[dict(partition_index=p, committed_offset=1, committed_metadata="")
                                    for p in partitions]) for name, partitions in ((FOO, (0, 7)), ("bar", (0,)))])
    response = send(world, ApiKeys.TXN_OFFSET_COMMIT, 0, **fields)
    assert txn_offset_commit_errors(response) == {TopicPartition(FOO, 0): Errors.NONE,
                                                  TopicPartition(FOO, 7): Errors.UNKNOWN_TOPIC_OR_PARTITION,
                                                  TopicPartition("bar", 0): Errors.UNKNOWN_TOPIC_OR_PARTITION}
    # without Read on the group, every partition says so
    world.request_channel.sent.clear()
    authorizer = Authorizer().allow("WRITE", "TRANSACTIONAL_ID", "t").allow("READ", "GROUP", "g", DENIED)
    response = send(world, ApiKeys.TXN_OFFSET_COMMIT, 0, authorizer, **fields)
    assert set(txn_offset_commit_errors(response).values()) == {Errors.GROUP_AUTHORIZATION_FAILED}


def test_offset_delete_of_unknown_and_unauthorized_topics(world: World) -> None:
    world.group_coordinator = _GroupCoordinator()
    topics = [dict(name=name, partitions=[dict(partition_index=p) for p in partitions])
              for name, partitions in ((FOO, (0, 7)), ("bar", (0,)), ("baz", (0,)))]
    authorizer = Authorizer(default=ALLOWED).allow("READ", "TOPIC", "baz", DENIED)
    response = send(world, ApiKeys.OFFSET_DELETE, 0, authorizer, group_id="g", topics=topics)
    assert response.error_code == Errors.NONE
    assert txn_offset_commit_errors(response) == {TopicPartition(FOO, 0): Errors.NONE,
                                                  TopicPartition(FOO, 7): Errors.UNKNOWN_TOPIC_OR_PARTITION,
                                                  TopicPartition("bar", 0): Errors.UNKNOWN_TOPIC_OR_PARTITION,
                                                  TopicPartition("baz", 0): Errors.TOPIC_AUTHORIZATION_FAILED}
    # without Delete on the group: one top-level error, no partitions
    world.request_channel.sent.clear()
    authorizer = Authorizer().allow("DELETE", "GROUP", "g", DENIED)
    response = send(world, ApiKeys.OFFSET_DELETE, 0, authorizer, group_id="g", topics=topics)
    assert (response.error_code, response.topics) == (Errors.GROUP_AUTHORIZATION_FAILED, ())


def test_list_transactions_v0_has_no_duration_filter(world: World) -> None:
    _answer_transactions(world)
    response = send(world, ApiKeys.LIST_TRANSACTIONS, 0, state_filters=("Ongoing",), producer_id_filters=(7,))
    assert response.error_code == Errors.NONE
    world.txn_coordinator.handle_list_transactions.assert_called_once_with({7}, {"Ongoing"}, -1)


def _answered(world: World, request: Any) -> Any:
    """The response, once the coordinator's log append has completed (it may answer on another thread)."""
    import time
    deadline = time.monotonic() + 10
    while not any(req is request for req, _ in world.request_channel.sent):
        assert time.monotonic() < deadline, "no response"
        time.sleep(0.01)
    return verify_no_throttling(world, request)


def test_a_transaction_with_stale_epochs_and_unknown_ids_on_the_real_coordinator(world: World,
                                                                                 tmp_path: Path) -> None:
    from tests.unit.v3_9.test_kraft_coordinator_bridge import _drain, _lead_locally, _transaction_coordinator
    coordinators = setup_replica_manager(tmp_path / "coordinators", broker_id=BROKER_ID)
    _lead_locally(coordinators.replica_manager, ["__transaction_state"])
    txn_coordinator = _transaction_coordinator(coordinators.replica_manager)
    world.txn_coordinator = txn_coordinator
    try:
        txn_coordinator.on_election(0, 0)
        _drain(txn_coordinator.scheduler)

        def call(api: ApiKeys, version: int, **fields: Any) -> Any:
            request = build_request(api, version, **fields)
            world.kafka_apis().handle(request, None)
            return _answered(world, request)

        init = call(ApiKeys.INIT_PRODUCER_ID, 4, transactional_id="t", transaction_timeout=60000, producer_id=-1,
                    producer_epoch=-1)
        assert (init.error_code, init.producer_epoch) == (Errors.NONE, 0)
        producer_id = init.producer_id

        def add_partitions(version: int, transactional_id: str, epoch: int) -> dict[TopicPartition, int]:
            return add_partitions_errors(call(
                ApiKeys.ADD_PARTITIONS_TO_TXN, version, v3_and_below_transactional_id=transactional_id,
                v3_and_below_producer_id=producer_id, v3_and_below_producer_epoch=epoch,
                v3_and_below_topics=[dict(name=FOO, partitions=(0,))]))

        foo_0 = TopicPartition(FOO, 0)
        assert add_partitions(3, "t", 0) == {foo_0: Errors.NONE}
        # a stale epoch is fenced, in the words the client's version knows
        assert add_partitions(1, "t", 5) == {foo_0: Errors.INVALID_PRODUCER_EPOCH}
        assert add_partitions(3, "t", 5) == {foo_0: Errors.PRODUCER_FENCED}
        # a transactional id the coordinator has never seen
        assert add_partitions(3, "nobody", 0) == {foo_0: Errors.INVALID_PRODUCER_ID_MAPPING}

        # a broker verifying (v4+): foo-0 is in the transaction, foo-1 is not
        verified = call(ApiKeys.ADD_PARTITIONS_TO_TXN, 5, transactions=[dict(
            transactional_id="t", producer_id=producer_id, producer_epoch=0, verify_only=True,
            topics=[dict(name=FOO, partitions=(0, 1))])])
        assert add_partitions_errors(verified) == {foo_0: Errors.NONE,
                                                   TopicPartition(FOO, 1): Errors.TRANSACTION_ABORTABLE}

        described = call(ApiKeys.DESCRIBE_TRANSACTIONS, 0, transactional_ids=("t", "nobody"))
        states = {s.transactional_id: s for s in described.transaction_states}
        assert (states["t"].error_code, states["t"].transaction_state, states["t"].producer_id) == (
            Errors.NONE, "Ongoing", producer_id)
        assert [(t.topic, t.partitions) for t in states["t"].topics] == [(FOO, (0,))]
        assert states["nobody"].error_code == Errors.TRANSACTIONAL_ID_NOT_FOUND

        listed = call(ApiKeys.LIST_TRANSACTIONS, 1, state_filters=("Ongoing", "Bogus"), producer_id_filters=(),
                      duration_filter=-1)
        assert (listed.error_code, listed.unknown_state_filters) == (Errors.NONE, ("Bogus",))
        assert [(s.transactional_id, s.transaction_state) for s in listed.transaction_states] == [("t", "Ongoing")]

        def end_txn(version: int, epoch: int) -> int:
            return call(ApiKeys.END_TXN, version, transactional_id="t", producer_id=producer_id,
                        producer_epoch=epoch, committed=True).error_code

        # an epoch that is not the producer's, newer as much as older, is fenced and changes nothing
        assert end_txn(1, 5) == Errors.INVALID_PRODUCER_EPOCH
        assert end_txn(4, 5) == Errors.PRODUCER_FENCED
        assert not txn_coordinator.txn_marker_channel_manager.markers
        assert end_txn(4, 0) == Errors.NONE
        assert txn_coordinator.txn_marker_channel_manager.markers == [("t", TransactionResult.COMMIT)]
    finally:
        txn_coordinator.shutdown()
        coordinators.replica_manager.shutdown(checkpoint_hw=False)


@pytest.mark.parametrize(("api", "versions"), [
    (ApiKeys.ADD_PARTITIONS_TO_TXN, (0, 5)), (ApiKeys.ADD_OFFSETS_TO_TXN, (0, 4)), (ApiKeys.END_TXN, (0, 4)),
    (ApiKeys.TXN_OFFSET_COMMIT, (0, 4)), (ApiKeys.OFFSET_DELETE, (0, 0)), (ApiKeys.DESCRIBE_TRANSACTIONS, (0, 0)),
    (ApiKeys.LIST_TRANSACTIONS, (0, 1))])
def test_transaction_apis_are_served_at_3_9_versions_only(world: World, api: ApiKeys,
                                                          versions: tuple[int, int]) -> None:
    response = send(world, ApiKeys.API_VERSIONS, 3, client_software_name="kcat", client_software_version="1")
    assert {k.api_key: (k.min_version, k.max_version) for k in response.api_keys}[api] == versions
    # a version past 3.9's is not enabled: the socket server refuses it before KafkaApis sees it
    manager = world.kafka_apis().api_version_manager
    assert manager.is_api_enabled(api, versions[1]) and not manager.is_api_enabled(api, versions[1] + 1)


# -- every version of every API served here is answered -----------------------------------------------------------

_FIELDS: dict[ApiKeys, dict[str, Any]] = {
    ApiKeys.PRODUCE: dict(transactional_id=None, acks=1, timeout=1000, topic_data=[
        dict(name=FOO, partition_data=[dict(index=0, records=batch(b"x"))])]),
    ApiKeys.LIST_OFFSETS: dict(replica_id=-1, isolation_level=0, topics=[dict(name=FOO, partitions=[
        dict(partition_index=0, current_leader_epoch=-1, timestamp=-1, max_num_offsets=1)])]),
    ApiKeys.METADATA: dict(topics=[dict(name=FOO, topic_id=uuid.UUID(int=0))], allow_auto_topic_creation=False),
    ApiKeys.OFFSET_COMMIT: dict(group_id="g", generation_id_or_member_epoch=-1, member_id="", retention_time=-1,
                                group_instance_id=None, topics=[dict(name=FOO, partitions=[
                                    dict(partition_index=0, committed_offset=1, committed_leader_epoch=-1,
                                         commit_timestamp=-1, committed_metadata="")])]),
    ApiKeys.OFFSET_FETCH: dict(group_id="g", topics=[dict(name=FOO, partition_indexes=(0,))], groups=[
        dict(group_id="g", member_id=None, member_epoch=-1, topics=[dict(name=FOO, partition_indexes=(0,))])]),
    ApiKeys.FIND_COORDINATOR: dict(key="g", key_type=0, coordinator_keys=("g",)),
    ApiKeys.JOIN_GROUP: dict(group_id="g", session_timeout=10000, rebalance_timeout=10000, member_id="",
                             group_instance_id=None, protocol_type="consumer",
                             protocols=[dict(name="range", metadata=b"")], reason=None),
    ApiKeys.HEARTBEAT: dict(group_id="g", generation_id=1, member_id="m", group_instance_id=None),
    ApiKeys.LEAVE_GROUP: dict(group_id="g", member_id="m", members=[dict(member_id="m", group_instance_id=None,
                                                                         reason=None)]),
    ApiKeys.SYNC_GROUP: dict(group_id="g", generation_id=1, member_id="m", group_instance_id=None,
                             protocol_type="consumer", protocol_name="range", assignments=[]),
    ApiKeys.DESCRIBE_GROUPS: dict(groups=("g",), include_authorized_operations=True),
    ApiKeys.LIST_GROUPS: dict(states_filter=(), types_filter=()),
    ApiKeys.DELETE_GROUPS: dict(groups_names=("g",)),
    ApiKeys.SASL_HANDSHAKE: dict(mechanism="PLAIN"),
    ApiKeys.SASL_AUTHENTICATE: dict(auth_bytes=b""),
    ApiKeys.API_VERSIONS: dict(client_software_name="kcat", client_software_version="1"),
    ApiKeys.DELETE_RECORDS: dict(timeout=1000, topics=[dict(name=FOO, partitions=[
        dict(partition_index=0, offset=0)])]),
    ApiKeys.INIT_PRODUCER_ID: dict(transactional_id=None, transaction_timeout=1000, producer_id=-1,
                                   producer_epoch=-1),
    ApiKeys.OFFSET_FOR_LEADER_EPOCH: dict(replica_id=-1, topics=[dict(topic=FOO, partitions=[
        dict(partition=0, current_leader_epoch=-1, leader_epoch=LEADER_EPOCH)])]),
    ApiKeys.WRITE_TXN_MARKERS: dict(markers=[dict(producer_id=1, producer_epoch=0, transaction_result=False,
                                                  coordinator_epoch=0, topics=[dict(name=FOO,
                                                                                   partition_indexes=(0,))])]),
    ApiKeys.DESCRIBE_LOG_DIRS: dict(topics=None),
    ApiKeys.DESCRIBE_CLUSTER: dict(include_cluster_authorized_operations=True, endpoint_type=1),
    ApiKeys.DESCRIBE_TOPIC_PARTITIONS: dict(topics=[dict(name=FOO)], response_partition_limit=10, cursor=None),
    # v0-v3 name one transaction in the v3_and_below fields, v4+ a batch (build keeps what the version has)
    ApiKeys.ADD_PARTITIONS_TO_TXN: dict(
        v3_and_below_transactional_id="t", v3_and_below_producer_id=1, v3_and_below_producer_epoch=0,
        v3_and_below_topics=[dict(name=FOO, partitions=(0,))],
        transactions=[dict(transactional_id="t", producer_id=1, producer_epoch=0, verify_only=True,
                           topics=[dict(name=FOO, partitions=(0,))])]),
    ApiKeys.ADD_OFFSETS_TO_TXN: dict(transactional_id="t", producer_id=1, producer_epoch=0, group_id="g"),
    ApiKeys.END_TXN: dict(transactional_id="t", producer_id=1, producer_epoch=0, committed=True),
    ApiKeys.TXN_OFFSET_COMMIT: dict(transactional_id="t", group_id="g", producer_id=1, producer_epoch=0,
                                    generation_id=-1, member_id="", group_instance_id=None, topics=[
                                        dict(name=FOO, partitions=[dict(partition_index=0, committed_offset=1,
                                                                        committed_leader_epoch=-1,
                                                                        committed_metadata="")])]),
    ApiKeys.OFFSET_DELETE: dict(group_id="g", topics=[dict(name=FOO, partitions=[dict(partition_index=0)])]),
    ApiKeys.DESCRIBE_TRANSACTIONS: dict(transactional_ids=("t",)),
    ApiKeys.LIST_TRANSACTIONS: dict(state_filters=("Ongoing",), producer_id_filters=(1,), duration_filter=-1),
}


class _GroupCoordinator:
    """The port's GroupCoordinator contract, answering every call at once."""

    def join_group(self, context: Any, request: Any, buffer_supplier: Any = None) -> Any:
        return _done(dict(error_code=Errors.NONE, generation_id=1, protocol_type="consumer", protocol_name="range",
                          leader="m", skip_assignment=False, member_id="m", members=[]))

    def sync_group(self, context: Any, request: Any, buffer_supplier: Any = None) -> Any:
        return _done(dict(error_code=Errors.NONE, protocol_type="consumer", protocol_name="range", assignment=b""))

    def heartbeat(self, context: Any, request: Any) -> Any:
        return _done(dict(error_code=Errors.NONE))

    def leave_group(self, context: Any, request: Any) -> Any:
        return _done(dict(error_code=Errors.NONE, members=[dict(member_id="m", group_instance_id=None,
                                                                error_code=Errors.NONE)]))

    def list_groups(self, context: Any, request: Any) -> Any:
        return _done(dict(error_code=Errors.NONE, groups=[dict(group_id="g", protocol_type="consumer",
                                                               group_state="Stable", group_type="classic")]))

    def describe_groups(self, context: Any, group_ids: list[str]) -> Any:
        return _done([dict(error_code=Errors.NONE, group_id=g, group_state="Stable", protocol_type="consumer",
                           protocol_data="range", members=[]) for g in group_ids])

    def delete_groups(self, context: Any, group_ids: list[str], buffer_supplier: Any = None) -> Any:
        return _done([dict(group_id=g, error_code=Errors.NONE) for g in group_ids])

    def fetch_offsets(self, context: Any, request: Any, require_stable: bool = False) -> Any:
        return _done(dict(group_id=request.group_id, error_code=Errors.NONE, topics=[dict(name=t.name, partitions=[
            dict(partition_index=p, committed_offset=1, committed_leader_epoch=-1, metadata="",
                 error_code=Errors.NONE) for p in t.partition_indexes]) for t in request.topics]))

    def fetch_all_offsets(self, context: Any, request: Any, require_stable: bool = False) -> Any:
        return _done(dict(group_id=request.group_id, error_code=Errors.NONE, topics=[]))

    def commit_offsets(self, context: Any, request: Any, buffer_supplier: Any = None) -> Any:
        return _done(dict(topics=[dict(name=t.name, partitions=[dict(partition_index=p.partition_index,
                                                                     error_code=Errors.NONE)
                                                                for p in t.partitions]) for t in request.topics]))

    commit_transactional_offsets = commit_offsets

    def delete_offsets(self, context: Any, request: Any, buffer_supplier: Any = None) -> Any:
        return _done(dict(error_code=Errors.NONE, topics=[dict(name=t.name, partitions=[
            dict(partition_index=p.partition_index, error_code=Errors.NONE) for p in t.partitions])
            for t in request.topics]))

    def partition_for(self, group_id: str) -> int:
        return 0

    def on_transaction_completed(self, producer_id: int, partitions: Any, result: Any) -> None:
        pass


def _answer_transactions(world: World) -> None:
    """The transaction coordinator's calls answered at once: every partition added or verified, nothing listed."""
    from kafka_edu.v3_9.core.server.kafka_apis import result_for_transaction
    txn_coordinator = world.txn_coordinator
    txn_coordinator.handle_add_partitions_to_transaction.side_effect = (
        lambda tid, pid, epoch, partitions, callback, local=None: callback(Errors.NONE))
    txn_coordinator.handle_verify_partitions_in_transaction.side_effect = (
        lambda tid, pid, epoch, partitions, callback: callback(
            result_for_transaction(tid, {tp: Errors.NONE for tp in partitions})))
    txn_coordinator.handle_end_transaction.side_effect = (
        lambda tid, pid, epoch, result, callback, local=None: callback(Errors.NONE))
    txn_coordinator.handle_describe_transactions.side_effect = lambda tid: dict(
        error_code=Errors.TRANSACTIONAL_ID_NOT_FOUND, transactional_id=tid, transaction_state="",
        transaction_timeout=0, transaction_start_time=_EPOCH, producer_id=-1, producer_epoch=-1, topics=[])
    txn_coordinator.handle_list_transactions.return_value = dict(error_code=Errors.NONE, unknown_state_filters=[],
                                                                 transaction_states=[])


_EPOCH = datetime.datetime.fromtimestamp(0, datetime.UTC)


def _done(value: Any) -> Any:
    from concurrent.futures import Future
    future: Future[Any] = Future()
    future.set_result(value)
    return future


_EVERY_VERSION = [(api, version) for api, (low, high) in __import__(
    "kafka_edu.v3_9.core.server.api_version_manager", fromlist=["BROKER_SUPPORTED_VERSIONS"]
).BROKER_SUPPORTED_VERSIONS.items() if api in _FIELDS for version in range(low, high + 1)]


@pytest.mark.parametrize(("api", "version"), _EVERY_VERSION, ids=[f"{a.name}-v{v}" for a, v in _EVERY_VERSION])
def test_every_version_of_every_api_is_answered(world: World, api: ApiKeys, version: int) -> None:
    world.group_coordinator = _GroupCoordinator()
    world.txn_coordinator.handle_init_producer_id.side_effect = (
        lambda tid, timeout, pid_epoch, callback, local=None: callback(
            type("Result", (), dict(producer_id=1, producer_epoch=0, error=Errors.NONE))()))
    _answer_transactions(world)
    request = build_request(api, version, **_FIELDS[api])
    world.kafka_apis().handle(request, None)
    response = verify_no_throttling(world, request)  # one response, readable at the request's version
    assert response is not None
    assert not world.request_channel.closed


@pytest.mark.parametrize("version", range(0, 18))
def test_every_fetch_version_reads_the_partition(world: World, version: int) -> None:
    produce(world, {TopicPartition(FOO, 0): batch(b"a")})
    epoch = LEADER_EPOCH if version >= 9 else None  # the current leader epoch came with v9
    response = fetch(world, {TopicPartition(FOO, 0): partition_data(epoch, FOO_ID if version >= 13 else
                                                                           uuid.UUID(int=0))}, version=version)
    partition = response.responses[0].partitions[0]
    assert (partition.error_code, partition.high_watermark) == (Errors.NONE, 1)
    assert [r.value() for b in MemoryRecords.readable_records(partition.records).batches() for r in b] == [b"a"]
