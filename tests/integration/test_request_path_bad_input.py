"""Bad input on the request path: each gets Kafka's answer, and the broker keeps serving every other connection."""

from __future__ import annotations

import dataclasses
import datetime
import random
import socket
import struct
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from kafka.protocol.old.api_versions import ApiVersionsResponse_v0
from kafka_wire import ConnectionClosed, WireConnection, address_of, frame, with_api_key, with_version
from kio.serial._introspect import (
    EntityField,
    EntityTupleField,
    PrimitiveTupleField,
    classify_field,
    get_schema_field_type,
    is_optional,
)

from kafka_edu.v1_0_2.clients.common.record.file_records import build_batch
from kafka_edu.v1_0_2.core.server import kafka_apis
from kafka_edu.v3_9.clients.common.protocol import ApiKeys, Errors, decode_request, decode_response, encode_request
from kafka_edu.v3_9.clients.common.protocol.builder import build
from tests.integration.helpers import wait_until

MAX_REQUEST_BYTES = 65536
MESSAGE_MAX_BYTES = 1024
ILLEGAL_TOPIC_NAMES = ["", ".", "..", "a" * 250, "a/b", "../../etc", "a b", "tópico"]
# what this file's broker advertises: a ZooKeeper-mode broker with kafka.edu.advertised.api.versions=latest
SUPPORTED_VERSIONS = kafka_apis.SUPPORTED_VERSIONS
BATCH_CRC_OFFSET = 17  # baseOffset(8) batchLength(4) partitionLeaderEpoch(4) magic(1), then the CRC(4)


# -- requests ----------------------------------------------------------------------------------------------------------

def api_versions_v3() -> Any:
    return build(ApiKeys.API_VERSIONS.request_schema(3), client_software_name="kafka-wire",
                 client_software_version="1.0")


def metadata_v4(*topics: str, auto_create: bool) -> Any:
    return build(ApiKeys.METADATA.request_schema(4), topics=[dict(name=t) for t in topics],
                 allow_auto_topic_creation=auto_create)


def metadata_v12(*topics: str) -> Any:
    return build(ApiKeys.METADATA.request_schema(12), topics=[dict(topic_id=uuid.UUID(int=0), name=t) for t in topics],
                 allow_auto_topic_creation=False, include_topic_authorized_operations=False)


def produce_v3(data: dict[tuple[str, int], bytes], acks: int = 1) -> Any:
    topics: dict[str, list[dict[str, Any]]] = {}
    for (topic, partition), records in data.items():
        topics.setdefault(topic, []).append(dict(index=partition, records=records))
    return build(ApiKeys.PRODUCE.request_schema(3), transactional_id=None, acks=acks, timeout=30000,
                 topic_data=[dict(name=t, partition_data=p) for t, p in topics.items()])


def create_topics_v2(*topics: str, partitions: int = 1) -> Any:
    return build(ApiKeys.CREATE_TOPICS.request_schema(2), timeout=30000, validate_only=False, topics=[
        dict(name=t, num_partitions=partitions, replication_factor=1, assignments=[], configs=[]) for t in topics])


def topic_errors(response: Any) -> dict[str, Errors]:
    """Metadata and CreateTopics answers: the error per topic name."""
    return {t.name: Errors.for_code(t.error_code) for t in response.topics}


def produce(conn: WireConnection, data: dict[tuple[str, int], bytes], acks: int = 1) -> dict[tuple[str, int], Any]:
    """Produce v3 and return (error, base offset) per partition."""
    response = conn.request(ApiKeys.PRODUCE, 3, produce_v3(data, acks))
    return {(t.name, p.index): (Errors.for_code(p.error_code), p.base_offset)
            for t in response.responses for p in t.partition_responses}


def create_topic(conn: WireConnection, topic: str, partitions: int = 1) -> None:
    response = conn.request(ApiKeys.CREATE_TOPICS, 2, create_topics_v2(topic, partitions=partitions))
    assert topic_errors(response) == {topic: Errors.NONE}

    def leaders() -> bool:
        (meta,) = conn.request(ApiKeys.METADATA, 4, metadata_v4(topic, auto_create=False)).topics
        return Errors.for_code(meta.error_code) is Errors.NONE and \
            sorted((p.partition_index, p.leader_id) for p in meta.partitions) == [(p, 0) for p in range(partitions)]
    wait_until(leaders, 30, f"{topic} to have a leader for each of its {partitions} partitions")


def batch_of_size(size: int) -> bytes:
    """A valid one-record batch of exactly `size` bytes (above 300 bytes the record's varint sizes stay fixed)."""
    value_size = size - len(build_batch([b"x" * 300])) + 300
    batch = build_batch([b"x" * value_size])
    assert len(batch) == size
    return batch


# -- the broker and its checks -----------------------------------------------------------------------------------------

@pytest.fixture
def broker(brokers):
    # the newest versions the port implements (Metadata v12, flexible headers), not 1.0.2's (test_api_versions.py)
    return brokers("b0", broker_id="0", socket_request_max_bytes=str(MAX_REQUEST_BYTES),
                   message_max_bytes=str(MESSAGE_MAX_BYTES), kafka_edu_advertised_api_versions="latest"
                   ).start().wait_running().wait_for_controller()


@pytest.fixture
def address(broker) -> tuple[str, int]:
    return address_of(broker.props["listeners"])


@pytest.fixture
def bystander(address):
    """A client connected before the bad input arrives, which must go on being served after it."""
    with WireConnection(address) as conn:
        assert conn.request(ApiKeys.API_VERSIONS, 3, api_versions_v3()).error_code == 0
        yield conn


def assert_still_serving(broker, *open_connections: WireConnection) -> None:
    """The process is up, connections opened before still get answers, and a fresh connection is served."""
    assert broker.process.poll() is None, broker.stderr()
    for conn in open_connections:
        assert conn.request(ApiKeys.API_VERSIONS, 3, api_versions_v3()).error_code == 0
    host, port = address_of(broker.props["listeners"])
    with WireConnection((host, port)) as fresh:
        versions = fresh.request(ApiKeys.API_VERSIONS, 0, build(ApiKeys.API_VERSIONS.request_schema(0)))
        assert versions.error_code == 0
        assert {v.api_key for v in versions.api_keys} == {int(api) for api in SUPPORTED_VERSIONS}
        metadata = fresh.request(ApiKeys.METADATA, 1, ApiKeys.METADATA.request_schema(1)(topics=None))
        assert [(b.node_id, b.host, b.port) for b in metadata.brokers] == [(0, host, port)]


def assert_closed_without_answer(conn: WireConnection) -> None:
    assert conn.is_closed_by_peer(), "the broker kept the connection open"


# -- frame sizes -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("size", [MAX_REQUEST_BYTES + 1, 2**31 - 1, -1, -(2**31)],
                         ids=["max+1", "int-max", "minus-one", "int-min"])
def test_a_frame_size_above_the_maximum_or_negative_closes_the_connection(broker, address, bystander, size):
    with WireConnection(address) as conn:
        conn.send_raw(struct.pack(">i", size))  # the size alone: the broker refuses it before any body arrives
        assert_closed_without_answer(conn)
    assert_still_serving(broker, bystander)


def test_a_frame_of_exactly_the_maximum_size_is_served(broker, address, bystander):
    with WireConnection(address) as conn:
        # Metadata (no auto-creation) for long unknown names, the last one sized so the frame is exactly the maximum.
        names = ["x" * 30000, "y" * 30000]
        base = len(conn.encode(ApiKeys.METADATA, 4, metadata_v4(*names, "z", auto_create=False)))
        names.append("z" * (1 + MAX_REQUEST_BYTES - base))
        payload = conn.encode(ApiKeys.METADATA, 4, metadata_v4(*names, auto_create=False))
        assert len(payload) == MAX_REQUEST_BYTES
        conn.send_frame(payload)
        response = conn.read_response(ApiKeys.METADATA, 4)
        assert response.correlation_id == struct.unpack_from(">i", payload, 4)[0]
        assert topic_errors(response.body) == {name: Errors.UNKNOWN_TOPIC_OR_PARTITION for name in names}
    assert_still_serving(broker, bystander)


# -- requests that do not parse ----------------------------------------------------------------------------------------

def _truncated_metadata(conn: WireConnection) -> bytes:
    return conn.encode(ApiKeys.METADATA, 4, metadata_v4("orders", "payments", auto_create=False))[:-5]


def _header_only_half(conn: WireConnection) -> bytes:
    return conn.encode(ApiKeys.METADATA, 4, metadata_v4("orders", auto_create=False))[:6]


def _array_longer_than_its_items(conn: WireConnection) -> bytes:
    payload = conn.encode(ApiKeys.METADATA, 4, metadata_v4("orders", auto_create=False))
    count_at = len(payload) - (4 + 2 + len("orders") + 1)
    return payload[:count_at] + struct.pack(">i", 1000) + payload[count_at + 4:]


def _negative_string_length(conn: WireConnection) -> bytes:
    payload = conn.encode(ApiKeys.METADATA, 4, metadata_v4("orders", auto_create=False))
    name_at = len(payload) - (2 + len("orders") + 1)
    return payload[:name_at] + struct.pack(">h", -5) + payload[name_at + 2:]


def _garbled_body(conn: WireConnection) -> bytes:
    header = conn.encode(ApiKeys.PRODUCE, 3, produce_v3({("orders", 0): build_batch([b"v"])}))[:8 + 2 + 10]
    return header + random.Random(7).randbytes(200)


@pytest.mark.parametrize("make_payload", [
    _truncated_metadata, _header_only_half, _array_longer_than_its_items, _negative_string_length, _garbled_body,
    lambda conn: b""],
    ids=["truncated-body", "truncated-header", "array-count-too-big", "negative-string-length", "garbled-body",
         "empty-frame"])
def test_a_truncated_or_garbled_request_closes_the_connection(broker, address, bystander, make_payload):
    with WireConnection(address) as conn:
        conn.send_frame(make_payload(conn))
        assert_closed_without_answer(conn)
    assert_still_serving(broker, bystander)


def test_bytes_after_a_complete_request_body_are_ignored(broker, address, bystander):
    # Kafka parses a request with its schema (Schema.read in 1.0.2) and never looks at what is left in the frame:
    # the request is answered. Only a body that ends early, or whose fields cannot be read, closes the connection.
    with WireConnection(address) as conn:
        payload = conn.encode(ApiKeys.API_VERSIONS, 0, build(ApiKeys.API_VERSIONS.request_schema(0)))
        conn.send_frame(payload + b"\x00\x01trailing")
        response = conn.read_response(ApiKeys.API_VERSIONS, 0)
        assert response.correlation_id == struct.unpack_from(">i", payload, 4)[0]
        assert response.body.error_code == 0
    assert_still_serving(broker, bystander)


# -- api keys and versions ---------------------------------------------------------------------------------------------

UNADVERTISED_APIS = [api for api in ApiKeys if api not in SUPPORTED_VERSIONS]
_ZERO = {"int8": 0, "int16": 0, "int32": 0, "int64": 0, "uint16": 0, "uint32": 0, "float64": 0.0, "bool": False,
         "string": "", "bytes": b"", "records": b"", "uuid": uuid.UUID(int=0), "timedelta_i32": datetime.timedelta(0),
         "timedelta_i64": datetime.timedelta(0), "datetime_i64": datetime.datetime.fromtimestamp(0, datetime.UTC)}


def minimal_body(schema: type[Any]) -> Any:
    """A well-formed request body of any API: every required field zero, empty or null."""
    values = {}
    for f in dataclasses.fields(schema):
        if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING:
            continue
        kind = classify_field(f)
        if isinstance(kind, EntityTupleField | PrimitiveTupleField):
            values[f.name] = ()
        elif isinstance(kind, EntityField):
            values[f.name] = minimal_body(kind.type_)
        elif is_optional(f):
            values[f.name] = None
        else:
            zero = _ZERO[get_schema_field_type(f)]
            values[f.name] = kind.type_.parse(zero) if hasattr(kind.type_, "parse") else zero
    return schema(**values)


def test_an_unknown_or_unadvertised_api_key_closes_the_connection(broker, address, bystander):
    unknown = [with_api_key(encode_request(ApiKeys.METADATA, 4, 1, "kafka-wire", metadata_v4("t", auto_create=False)),
                            key) for key in (999, -1, 32767)]
    # Well-formed requests of real Kafka APIs (JoinGroup while it was not ported, LeaderAndIsr, ...) that this
    # broker does not advertise in ApiVersions: the request parses, and the connection is closed all the same.
    unadvertised = []
    for api in UNADVERTISED_APIS:
        payload = encode_request(api, api.oldest_version, 1, "kafka-wire",
                                 minimal_body(api.request_schema(api.oldest_version)))
        assert decode_request(payload).api_key is api
        unadvertised.append(payload)
    for payload in unknown + unadvertised:
        with WireConnection(address) as conn:
            conn.send_frame(payload)
            assert conn.is_closed_by_peer(), f"api key {struct.unpack_from('>h', payload)[0]} was not refused"
    assert_still_serving(broker, bystander)


def test_api_versions_newer_than_the_broker_gets_unsupported_version_in_a_v0_body(broker, address, bystander):
    with WireConnection(address) as conn:
        payload = with_version(conn.encode(ApiKeys.API_VERSIONS, 3, api_versions_v3()), 99)
        conn.send_frame(payload)
        response = conn.read_frame()

        kafka_python = ApiVersionsResponse_v0.decode(response, header=True)
        assert kafka_python.header.correlation_id == struct.unpack_from(">i", payload, 4)[0]
        assert kafka_python.error_code == Errors.UNSUPPORTED_VERSION.value == 35
        expected = sorted((int(api), low, high) for api, (low, high) in SUPPORTED_VERSIONS.items())
        assert sorted(tuple(entry) for entry in kafka_python.api_keys) == expected
        ours = decode_response(ApiKeys.API_VERSIONS, 0, response).body
        assert sorted((e.api_key, e.min_version, e.max_version) for e in ours.api_keys) == expected

        # The client downgrades on the same connection, as librdkafka does, and is served.
        assert conn.request(ApiKeys.API_VERSIONS, 3, api_versions_v3()).error_code == 0
    assert_still_serving(broker, bystander)


@pytest.mark.parametrize(("api_key", "version", "make_payload"), [
    (ApiKeys.METADATA, 99, lambda conn: with_version(conn.encode(ApiKeys.METADATA, 12, metadata_v12("t")), 99)),
    (ApiKeys.PRODUCE, 99, lambda conn: with_version(conn.encode(ApiKeys.PRODUCE, 3, produce_v3({})), 99)),
    (ApiKeys.FETCH, 3, lambda conn: conn.encode(ApiKeys.FETCH, 3, build(
        ApiKeys.FETCH.request_schema(3), replica_id=-1, max_wait=100, min_bytes=1, max_bytes=1024,
        topics=[dict(topic="t", partitions=[dict(partition=0, fetch_offset=0, partition_max_bytes=1024)])]))),
], ids=["metadata-v99", "produce-v99", "fetch-v3-below-the-advertised-range"])
def test_an_unsupported_version_of_another_api_closes_the_connection(broker, address, bystander, api_key, version,
                                                                      make_payload):
    low, high = SUPPORTED_VERSIONS[api_key]
    assert not low <= version <= high
    with WireConnection(address) as conn:
        conn.send_frame(make_payload(conn))
        assert_closed_without_answer(conn)
    assert_still_serving(broker, bystander)


@pytest.mark.parametrize(("api_key", "version", "body"), [
    (ApiKeys.FETCH, 4, dict(replica_id=-1, max_wait=0, min_bytes=0, max_bytes=1024, topics=[
        dict(topic="t", partitions=[dict(partition=0, fetch_offset=0, partition_max_bytes=1024)])])),
    (ApiKeys.LIST_OFFSETS, 2, dict(replica_id=-1, topics=[dict(name="t", partitions=[
        dict(partition_index=0, timestamp=-1)])])),
], ids=["fetch-v4", "list-offsets-v2"])
def test_an_unknown_isolation_level_fails_the_parse_and_closes_the_connection(broker, address, bystander, api_key,
                                                                              version, body):
    # 1.0.2's FetchRequest and ListOffsetRequest read IsolationLevel.forId while they parse: no handler sees it
    with WireConnection(address) as conn:
        conn.send_frame(conn.encode(api_key, version, build(api_key.request_schema(version), isolation_level=7,
                                                            **body)))
        assert_closed_without_answer(conn)
    assert_still_serving(broker, bystander)


# -- requests a handler fails on -------------------------------------------------------------------------------------

def test_a_request_its_handler_fails_on_gets_the_error_response_and_the_connection_serves_on(broker, address,
                                                                                          bystander):
    # The port's Metadata handler does not know topic ids (v10+): a topic named by id alone beside one named by name
    # makes it raise. KafkaApis.handle answers what a handler raises with the request's error response
    # (handleError), UNKNOWN_SERVER_ERROR for each topic, and the connection is not closed.
    request = build(ApiKeys.METADATA.request_schema(12), allow_auto_topic_creation=False,
                    include_topic_authorized_operations=False,
                    topics=[dict(topic_id=uuid.UUID(int=7), name=None), dict(topic_id=uuid.UUID(int=0), name="named")])
    with WireConnection(address) as conn:
        response = conn.request(ApiKeys.METADATA, 12, request)
        assert [(t.name, Errors.for_code(t.error_code)) for t in response.topics] == [
            (None, Errors.UNKNOWN_SERVER_ERROR), ("named", Errors.UNKNOWN_SERVER_ERROR)]
        assert (response.brokers, response.controller_id) == ((), -1)
        assert conn.request(ApiKeys.API_VERSIONS, 3, api_versions_v3()).error_code == 0  # the same connection
    assert "Error when handling request: clientId=kafka-wire" in broker.log_file.read_text(errors="replace")
    assert_still_serving(broker, bystander)


def test_alter_configs_of_a_resource_type_it_does_not_know_fails_the_whole_request(broker, address, bystander):
    # 1.0.2's handler throws InvalidRequestException while it sorts the resources; handleError gives every resource
    # the error, the topic's too
    resources = [dict(resource_type=2, resource_name="some-topic", configs=[dict(name="retention.ms", value="1")]),
                 dict(resource_type=3, resource_name="some-group", configs=[])]
    with WireConnection(address) as conn:
        response = conn.request(ApiKeys.ALTER_CONFIGS, 0, build(ApiKeys.ALTER_CONFIGS.request_schema(0),
                                                                validate_only=False, resources=resources))
        assert [(r.resource_type, r.resource_name, Errors.for_code(r.error_code), r.error_message)
                for r in response.responses] == [
            (2, "some-topic", Errors.INVALID_REQUEST, "Unexpected resource type 3"),
            (3, "some-group", Errors.INVALID_REQUEST, "Unexpected resource type 3")]
    assert_still_serving(broker, bystander)


# -- illegal topic names -----------------------------------------------------------------------------------------------

def directories(path: Path) -> set[str]:
    return {p.name for p in path.iterdir() if p.is_dir()}


def test_illegal_topic_names_are_refused_by_metadata_create_topics_and_produce(broker, address, bystander, zookeeper):
    log_dir = Path(broker.props["log.dirs"])
    outside_before, inside_before = directories(log_dir.parent), directories(log_dir)
    legal = "legal-topic"
    with WireConnection(address) as conn:
        auto_created = conn.request(ApiKeys.METADATA, 4, metadata_v4(*ILLEGAL_TOPIC_NAMES, legal, auto_create=True))
        assert topic_errors(auto_created) == {**{name: Errors.INVALID_TOPIC_EXCEPTION for name in ILLEGAL_TOPIC_NAMES},
                                              legal: Errors.LEADER_NOT_AVAILABLE}

        created = conn.request(ApiKeys.CREATE_TOPICS, 2, create_topics_v2(*ILLEGAL_TOPIC_NAMES, "legal-created"))
        assert topic_errors(created) == {**{name: Errors.INVALID_TOPIC_EXCEPTION for name in ILLEGAL_TOPIC_NAMES},
                                         "legal-created": Errors.NONE}

        wait_until(lambda: all(Errors.for_code(t.error_code) is Errors.NONE and t.partitions for t in conn.request(
            ApiKeys.METADATA, 4, metadata_v4(legal, "legal-created", auto_create=False)).topics), 30,
            "the legal topics to get a leader")
        produced = produce(conn, {(name, 0): build_batch([b"v"]) for name in [*ILLEGAL_TOPIC_NAMES, legal]})
        assert produced == {**{(name, 0): (Errors.INVALID_TOPIC_EXCEPTION, -1) for name in ILLEGAL_TOPIC_NAMES},
                            (legal, 0): (Errors.NONE, 0)}

    assert set(zookeeper.client.get_children("/brokers/topics")) == {legal, "legal-created"}
    assert set(zookeeper.client.get_children("/config/topics")) == {legal, "legal-created"}
    assert directories(log_dir.parent) == outside_before
    assert directories(log_dir) - inside_before == {f"{legal}-0", "legal-created-0"}
    assert not (log_dir.parent.parent / "etc-0").exists() and not (log_dir / "a").exists()
    assert_still_serving(broker, bystander)


# -- bad batches and acks ----------------------------------------------------------------------------------------------

def test_a_batch_with_a_corrupt_crc_is_refused_for_its_partition_only(broker, address, bystander):
    with WireConnection(address) as conn:
        create_topic(conn, "crc", partitions=2)
        corrupt = bytearray(build_batch([b"first", b"second"]))
        corrupt[BATCH_CRC_OFFSET + 4 + 10] ^= 0x01  # a byte the CRC covers: the batch's first timestamp
        assert produce(conn, {("crc", 0): bytes(corrupt), ("crc", 1): build_batch([b"ok"])}) == {
            ("crc", 0): (Errors.CORRUPT_MESSAGE, -1), ("crc", 1): (Errors.NONE, 0)}
        # Nothing of the corrupt batch was appended: partition 0 still starts at offset 0.
        assert produce(conn, {("crc", 0): build_batch([b"after"])}) == {("crc", 0): (Errors.NONE, 0)}
    assert_still_serving(broker, bystander)


def test_a_batch_above_message_max_bytes_is_refused_with_message_too_large(broker, address, bystander):
    with WireConnection(address) as conn:
        create_topic(conn, "large")
        assert produce(conn, {("large", 0): batch_of_size(MESSAGE_MAX_BYTES + 1)}) == {
            ("large", 0): (Errors.MESSAGE_TOO_LARGE, -1)}
        assert produce(conn, {("large", 0): batch_of_size(MESSAGE_MAX_BYTES)}) == {("large", 0): (Errors.NONE, 0)}
    assert_still_serving(broker, bystander)


def test_acks_outside_minus_one_zero_one_is_refused_for_every_partition(broker, address, bystander):
    with WireConnection(address) as conn:
        create_topic(conn, "acks", partitions=2)
        for acks in (2, -5, 32767, -2):
            assert produce(conn, {("acks", 0): build_batch([b"v"]), ("acks", 1): build_batch([b"v"])}, acks) == {
                ("acks", 0): (Errors.INVALID_REQUIRED_ACKS, -1), ("acks", 1): (Errors.INVALID_REQUIRED_ACKS, -1)}, acks
        # None of them was appended.
        assert produce(conn, {("acks", 0): build_batch([b"v"])}, acks=-1) == {("acks", 0): (Errors.NONE, 0)}
    assert_still_serving(broker, bystander)


# -- connections per IP ------------------------------------------------------------------------------------------------

def served(address: tuple[str, int]) -> bool:
    """A fresh connection gets an ApiVersions answer (False if the broker closes it: no slot free yet)."""
    try:
        with WireConnection(address) as conn:
            return conn.request(ApiKeys.API_VERSIONS, 3, api_versions_v3()).error_code == 0
    except ConnectionClosed:
        return False


def reset(conn: WireConnection) -> None:
    """Close with a TCP reset (SO_LINGER 0), as a crashed or killed client does."""
    conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.close()


@pytest.fixture
def limited_broker(brokers):
    """Three connections for the test: the fourth slot is the controller's own connection to this broker, open once
    its first UpdateMetadata has arrived."""
    return brokers("b0", broker_id="0", max_connections_per_ip="4", kafka_edu_advertised_api_versions="latest"
                   ).start().wait_running().wait_for_controller()


def test_a_connection_beyond_max_connections_per_ip_is_closed_at_once(limited_broker):
    address = address_of(limited_broker.props["listeners"])
    first_three = [WireConnection(address) for _ in range(3)]
    try:
        for conn in first_three:  # each is answered, so each has been accepted and counted
            assert conn.request(ApiKeys.API_VERSIONS, 3, api_versions_v3()).error_code == 0
        with WireConnection(address) as fourth:
            assert_closed_without_answer(fourth)
        for conn in first_three:
            assert conn.request(ApiKeys.METADATA, 4, metadata_v4(auto_create=False)).brokers

        rejected = wait_until(lambda: limited_broker.spans().where(name="Acceptor.accept").with_event(
            "connection.rejected").spans, 30, "the rejection to be traced")
        (event,) = [e for e in rejected[0].events if e.name == "connection.rejected"]
        assert event.attributes["kafka.client.ip"] == "127.0.0.1"
        assert event.attributes["kafka.connections.max"] == 4
        assert len(rejected) == 1

        first_three.pop().close()  # a slot frees once the broker has seen the close
        wait_until(lambda: served(address), 30, "a fresh connection to be accepted after one closed")
        assert_still_serving(limited_broker, *first_three)
    finally:
        for conn in first_three:
            conn.close()


def test_connections_closed_by_a_reset_give_their_slot_back(limited_broker):
    address = address_of(limited_broker.props["listeners"])
    conns = [WireConnection(address) for _ in range(3)]
    for conn in conns:
        assert conn.request(ApiKeys.API_VERSIONS, 3, api_versions_v3()).error_code == 0
    for conn in conns:
        reset(conn)
    # Kafka 1.0.2 counts a closed connection down by the address in its connection id, whatever the socket's state:
    # the three slots come back once the broker has seen the resets.
    wait_until(lambda: served(address), 15, "a fresh connection to be accepted after the others were reset")
    assert_still_serving(limited_broker)


# -- live fuzz ---------------------------------------------------------------------------------------------------------

FUZZ_MAX_REQUEST_BYTES = 1 << 20
FUZZ_CONNECTIONS = 2500


def fuzz_seeds() -> list[bytes]:
    """Valid size-stripped requests to mutate. None of them names the producer's topic."""
    def encode(api_key: int, version: int, body: Any, correlation_id: int) -> bytes:
        return encode_request(api_key, version, correlation_id, "fuzz", body)

    batch = build_batch([b"fuzz-value-1", b"fuzz-value-2"], keys=[b"k1", b"k2"])
    return [
        encode(ApiKeys.API_VERSIONS, 0, build(ApiKeys.API_VERSIONS.request_schema(0)), 1),
        encode(ApiKeys.API_VERSIONS, 3, api_versions_v3(), 2),
        encode(ApiKeys.METADATA, 1, build(ApiKeys.METADATA.request_schema(1), topics=[dict(name="fuzz-meta")]), 3),
        encode(ApiKeys.METADATA, 4, metadata_v4("fuzz-meta", "fuzz-other", auto_create=True), 4),
        encode(ApiKeys.METADATA, 12, metadata_v12("fuzz-meta"), 5),
        encode(ApiKeys.PRODUCE, 3, produce_v3({("fuzz-target", 0): batch}, acks=1), 6),
        encode(ApiKeys.PRODUCE, 3, produce_v3({("fuzz-target", 0): batch}, acks=-1), 7),
        encode(ApiKeys.PRODUCE, 9, build(ApiKeys.PRODUCE.request_schema(9), transactional_id=None, acks=1,
                                         timeout=5000, topic_data=[dict(name="fuzz-target", partition_data=[
                                             dict(index=0, records=batch)])]), 8),
    ]


def mutate(rng: random.Random, seed: bytes) -> tuple[bytes, bool]:
    """One fuzz frame, size prefix included, and whether its size prefix delimits it (so answers can be matched)."""
    data = bytearray(seed)
    kind = rng.randrange(8)
    if kind == 0:  # bit flips
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif kind == 1:  # truncated, with a size prefix that agrees
        del data[rng.randrange(len(data)):]
    elif kind == 2:  # truncated, with the size prefix of the whole request: the broker waits for the rest
        return frame(bytes(data))[:rng.randrange(4, len(data) + 4)], False
    elif kind == 3:  # a random size prefix within the maximum in front of the request
        return struct.pack(">i", rng.randint(0, FUZZ_MAX_REQUEST_BYTES)) + bytes(data), False
    elif kind == 4:  # another api key and version
        data[:4] = struct.pack(">hh", rng.choice([rng.randint(-3, 70), 999, 32767, -32768]),
                               rng.choice([rng.randint(-2, 16), 99, 32767, -1]))
    elif kind == 5:  # a byte run inserted, removed or duplicated
        at = rng.randrange(len(data))
        choice = rng.randrange(3)
        if choice == 0:
            data[at:at] = rng.randbytes(rng.randint(1, 16))
        elif choice == 1:
            del data[at:at + rng.randint(1, 16)]
        else:
            data[at:at] = data[at:at + rng.randint(1, 16)]
    elif kind == 6:  # an int16/int32 field overwritten with an extreme value
        at = rng.randrange(len(data))
        data[at:at + 4] = struct.pack(">i", rng.choice([-1, 0, 1, 2**31 - 1, -(2**31), 0x7FFF]))
    else:  # random bytes behind a valid header prefix
        data[8:] = rng.randbytes(rng.randint(0, 300))
    return frame(bytes(data)), True


SENTINEL_CORRELATION_ID = 2**31 - 1


def fuzz_connection(address: tuple[str, int], frames: list[tuple[bytes, bool]]) -> tuple[str, int]:
    """Send the frames and read what comes back. Returns how it ended and how many responses came back.

    While every frame is delimited, a valid ApiVersions request follows them: the connection has served all it
    will once that is answered, or once the broker closes it. A frame that is not delimited (the broker waits for
    the rest of it) is followed by a half-close instead: Kafka closes a connection at EOF, answering nothing more
    (the requests it staged are still handled; their responses go to a closing channel and are dropped)."""
    delimited = all(d for _, d in frames)
    sentinel = frame(encode_request(ApiKeys.API_VERSIONS, 0, SENTINEL_CORRELATION_ID, "fuzz",
                                    build(ApiKeys.API_VERSIONS.request_schema(0))))
    sent_ids = [struct.unpack_from(">i", f, 8)[0] for f, _ in frames if len(f) >= 12] + [SENTINEL_CORRELATION_ID]
    with socket.create_connection(address, timeout=10) as sock:
        try:
            sock.sendall(b"".join(f for f, _ in frames) + (sentinel if delimited else b""))
            if not delimited:
                sock.shutdown(socket.SHUT_WR)
        except (BrokenPipeError, ConnectionResetError):
            return "reset", 0
        received = bytearray()
        try:
            while not (delimited and _answers_sentinel(received)) and (chunk := sock.recv(65536)):
                received += chunk
        except ConnectionResetError:
            return "reset", 0  # the broker closed with bytes of ours still unread
        except TimeoutError:
            return "hung", 0
    # Whatever the broker sent is whole frames; while our frames are delimited, each echoes one of our correlation
    # ids, in order.
    responses = 0
    position = 0
    while position < len(received):
        assert len(received) - position >= 8, f"torn response frame in {bytes(received)!r}"
        (size,) = struct.unpack_from(">i", received, position)
        assert 4 <= size <= len(received) - position - 4, f"torn response frame in {bytes(received)!r}"
        if delimited:
            (correlation_id,) = struct.unpack_from(">i", received, position + 4)
            assert correlation_id in sent_ids, (correlation_id, sent_ids)
            sent_ids = sent_ids[sent_ids.index(correlation_id) + 1:]
        responses += 1
        position += 4 + size
    return "closed", responses


def _answers_sentinel(received: bytearray) -> bool:
    """The last whole response frame received answers the sentinel (responses come in request order)."""
    position, last = 0, None
    while len(received) - position >= 8:
        (size,) = struct.unpack_from(">i", received, position)
        if size < 4 or len(received) - position - 4 < size:
            break
        (last,) = struct.unpack_from(">i", received, position + 4)
        position += 4 + size
    return last == SENTINEL_CORRELATION_ID


@pytest.mark.slow
def test_live_fuzz_of_request_frames_while_an_idempotent_producer_keeps_producing(brokers):
    broker = brokers("b0", broker_id="0", socket_request_max_bytes=str(FUZZ_MAX_REQUEST_BYTES),
                     kafka_edu_advertised_api_versions="latest").start()
    broker.wait_running().wait_for_controller()
    address = address_of(broker.props["listeners"])
    bootstrap = broker.props["listeners"].removeprefix("PLAINTEXT://")
    topic = "produced-under-fuzz"
    with WireConnection(address) as conn:
        create_topic(conn, topic)

    acked: list[bytes] = []
    errors: list[object] = []
    produced_count: list[int] = []
    stop = threading.Event()

    def on_delivery(err: object, message: Any) -> None:
        if err is not None:
            errors.append(err)
        else:
            acked.append(message.value())

    def keep_producing() -> None:
        producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True,
                             "linger.ms": 5})
        i = 0
        while not stop.is_set():
            try:
                producer.produce(topic, value=f"record-{i}".encode(), on_delivery=on_delivery)
                i += 1
            except BufferError:  # the local queue is full: let deliveries drain it
                pass
            producer.poll(0.001)
        remaining = producer.flush(30)
        if remaining:
            errors.append(f"{remaining} records not delivered within 30 s of the flush")
        produced_count.append(i)

    producing = threading.Thread(target=keep_producing, name="producer")
    producing.start()
    rng = random.Random(20240611)
    seeds = fuzz_seeds()
    cases = [[mutate(rng, rng.choice(seeds)) for _ in range(rng.choice([1, 1, 1, 2, 3]))]
             for _ in range(FUZZ_CONNECTIONS)]
    try:
        with ThreadPoolExecutor(4) as pool:
            outcomes = list(pool.map(lambda frames: fuzz_connection(address, frames), cases))
    finally:
        stop.set()
        producing.join(60)
    assert not producing.is_alive()

    frames_sent = sum(len(c) for c in cases)
    endings = {kind: sum(1 for k, _ in outcomes if k == kind) for kind in ("closed", "reset", "hung")}
    answered = sum(n for _, n in outcomes)
    assert frames_sent >= 3000 and answered > 100, (frames_sent, answered, endings)
    assert endings["hung"] == 0, endings  # a half-closed connection is always closed by the broker in the end

    assert broker.process.poll() is None, broker.stderr()
    broker_log = broker.log_file.read_text(errors="replace")
    assert "got uncaught exception" not in broker_log and "Error when handling request" not in broker_log
    assert errors == []
    assert produced_count and len(acked) == produced_count[0] > 0
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "fuzz-check", "enable.auto.commit": False})
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        read: list[tuple[int, bytes]] = []

        def read_back() -> bool:
            for message in consumer.consume(1000, 0.5):
                assert message.error() is None, message.error()
                read.append((message.offset(), message.value()))
            return len(read) >= len(acked)
        wait_until(read_back, 60, f"{len(acked)} records read back")
    finally:
        consumer.close()
    assert [offset for offset, _ in read] == list(range(len(acked)))
    assert [value for _, value in read] == [f"record-{i}".encode() for i in range(len(acked))]
    assert_still_serving(broker)
