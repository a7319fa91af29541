"""Tests for kafka_edu.v3_9.clients.common.protocol: ApiKeys, Errors and the request/response codec, checked against
kafka-python."""

from __future__ import annotations

import datetime
import struct
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kafka.protocol.metadata import ApiVersionsRequest as KpApiVersionsRequest
from kafka.protocol.metadata import ApiVersionsResponse as KpApiVersionsResponse
from kafka.protocol.metadata import MetadataRequest as KpMetadataRequest
from kafka.protocol.metadata import MetadataResponse as KpMetadataResponse
from kio.schema.api_versions.v3.response import ApiVersionsResponse
from kio.schema.controlled_shutdown.v0.request import ControlledShutdownRequest as ControlledShutdownV0
from kio.schema.controlled_shutdown.v1.request import ControlledShutdownRequest as ControlledShutdownV1
from kio.schema.controlled_shutdown.v3.request import ControlledShutdownRequest as ControlledShutdownV3
from kio.schema.metadata.v0.request import MetadataRequest as MetadataV0
from kio.schema.metadata.v0.request import MetadataRequestTopic as TopicV0
from kio.schema.metadata.v12 import response as metadata_v12
from kio.schema.metadata.v12.request import MetadataRequest as MetadataV12
from kio.schema.metadata.v12.request import MetadataRequestTopic as TopicV12
from kio.schema.produce.v9.request import PartitionProduceData, ProduceRequest, TopicProduceData
from kio.static.primitive import Records, i32Timedelta

from kafka_edu.v3_9.clients.common.protocol import (
    CLIENT_ID_TRACEPARENT_MARKER,
    TRACEPARENT_TAG,
    ApiKeys,
    Errors,
    InvalidRequestError,
    UnknownApiKeyError,
    UnsupportedVersionError,
    api_version_entries,
    api_versions_unsupported_response,
    decode_request,
    decode_response,
    encode_request,
    encode_response,
)

TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
CODEC_ERRORS = (InvalidRequestError, UnknownApiKeyError, UnsupportedVersionError)


@pytest.fixture(autouse=True)
def every_kio_version_supported():
    """The codec is tested over kio's whole range; a test that narrows ApiKeys.supported has it undone."""
    saved = {api: api.supported for api in ApiKeys}
    for api in ApiKeys:
        api.reset_supported()
    yield
    for api, supported in saved.items():
        api.supported = supported
ZERO_MS = i32Timedelta.parse(datetime.timedelta(0))
st.register_type_strategy(Records, st.binary(max_size=64))


def _produce_v9() -> ProduceRequest:
    data = TopicProduceData(name="orders", partition_data=(PartitionProduceData(index=0, records=b"\x00batch"),))
    return ProduceRequest(transactional_id=None, acks=-1, timeout=i32Timedelta.parse(datetime.timedelta(seconds=30)),
                          topic_data=(data,))


SEEDS = {
    "metadata-v0": (3, 0, MetadataV0(topics=(TopicV0(name="a"), TopicV0(name="b")))),
    "metadata-v12": (3, 12, MetadataV12(topics=(TopicV12(topic_id=uuid.uuid4(), name="t"),),
                                        allow_auto_topic_creation=True, include_topic_authorized_operations=False)),
    "controlled-shutdown-v0": (7, 0, ControlledShutdownV0(broker_id=2)),
    "controlled-shutdown-v3": (7, 3, ControlledShutdownV3(broker_id=2, broker_epoch=17)),
    "produce-v9": (0, 9, _produce_v9()),
}


def _frames() -> list[bytes]:
    frames = [encode_request(k, v, 11, "seed", body) for k, v, body in SEEDS.values()]
    frames.append(encode_request(3, 12, 12, "seed", SEEDS["metadata-v12"][2], traceparent=TRACEPARENT))
    kp = KpApiVersionsRequest(version=3, client_software_name="kafka-python", client_software_version="3.0")
    kp.with_header(correlation_id=13, client_id="kp")
    return [*frames, kp.encode(header=True)]


FRAMES = _frames()


# --- ApiKeys and Errors ---------------------------------------------------------------------------------------------

def test_api_keys_table() -> None:
    # issue 24 adds APIs as they are ported: the table holds these at least, in api key order
    ids = [a.id for a in ApiKeys]
    assert ids == sorted(ids)
    assert {*range(38), 42, 52, 53, 54, 55, 56, 58, 59, 60, 62, 63, 64, 67, 70, 75} <= set(ids)
    assert {43, 45, 46, 61} <= set(ids)  # part C: ElectLeaders, Alter/ListPartitionReassignments, DescribeProducers
    assert ApiKeys.for_key(3) is ApiKeys.METADATA and ApiKeys.METADATA.api_name == "Metadata"
    assert (ApiKeys.FETCH.latest_version, ApiKeys.FETCH.first_flexible_version) == (17, 12)
    assert ApiKeys.LEADER_AND_ISR.first_flexible_version == 4
    assert ApiKeys.CONTROLLED_SHUTDOWN.request_header_version(0) == 0
    assert ApiKeys.CONTROLLED_SHUTDOWN.request_header_version(1) == 1
    assert ApiKeys.METADATA.request_header_version(9) == 2 and ApiKeys.METADATA.response_header_version(9) == 1
    assert ApiKeys.API_VERSIONS.response_header_version(3) == 0
    with pytest.raises(ValueError):
        ApiKeys.for_key(41)


def test_supported_ranges_drive_api_versions_entries() -> None:
    try:
        ApiKeys.METADATA.set_supported(0, 9)
        entries = {e.api_key: (e.min_version, e.max_version) for e in api_version_entries(3)}
        assert entries[3] == (0, 9) and entries[18] == (0, 4) and len(entries) == len(ApiKeys)
        with pytest.raises(ValueError):
            ApiKeys.METADATA.set_supported(0, 13)
    finally:
        ApiKeys.METADATA.reset_supported()


def test_errors() -> None:
    assert (Errors.NONE, Errors.OFFSET_OUT_OF_RANGE, Errors.CORRUPT_MESSAGE) == (0, 1, 2)
    assert Errors.UNKNOWN_TOPIC_OR_PARTITION.exception_name == "UnknownTopicOrPartitionException"
    assert Errors.CORRUPT_MESSAGE.exception_name == "CorruptRecordException"
    assert Errors.NONE.exception_name is None
    assert Errors.PRODUCER_FENCED == 90 and Errors.UNSUPPORTED_VERSION == 35
    assert Errors.NOT_LEADER_OR_FOLLOWER.retriable and not Errors.INVALID_REQUEST.retriable
    assert Errors.for_code(30000) is Errors.UNKNOWN_SERVER_ERROR
    assert all(code in Errors._value2member_map_ for code in range(-1, 91))


# --- round trips ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", SEEDS)
def test_request_round_trip(name: str) -> None:
    api_key, version, body = SEEDS[name]
    decoded = decode_request(encode_request(api_key, version, 99, "client-1", body))
    assert (decoded.api_key, decoded.api_version, decoded.correlation_id, decoded.body) == (api_key, version, 99, body)
    assert decoded.client_id == ("" if (api_key, version) == (7, 0) else "client-1")
    assert decoded.traceparent is None


@pytest.mark.parametrize(("api", "version"), [
    (ApiKeys.FETCH, 4), (ApiKeys.FETCH, 15), (ApiKeys.LIST_OFFSETS, 7), (ApiKeys.LEADER_AND_ISR, 1),
    (ApiKeys.LEADER_AND_ISR, 7), (ApiKeys.UPDATE_METADATA, 8), (ApiKeys.STOP_REPLICA, 3), (ApiKeys.JOIN_GROUP, 9),
    (ApiKeys.OFFSET_COMMIT, 2), (ApiKeys.CREATE_TOPICS, 7), (ApiKeys.DESCRIBE_CONFIGS, 4), (ApiKeys.API_VERSIONS, 3),
])
def test_generated_round_trip(api: ApiKeys, version: int) -> None:
    @settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(request=st.from_type(api.request_schema(version)), response=st.from_type(api.response_schema(version)))
    def check(request: object, response: object) -> None:
        assert decode_request(encode_request(api, version, 5, None, request)).body == request
        assert decode_response(api, version, encode_response(api, version, 5, response)).body == response

    check()


def test_traceparent_rides_in_a_flexible_header() -> None:
    _, _, body = SEEDS["controlled-shutdown-v3"]
    frame = encode_request(7, 3, 1, "controller", body, traceparent=TRACEPARENT)
    decoded = decode_request(frame)
    assert decoded.traceparent == TRACEPARENT and decoded.client_id == "controller"
    assert decoded.header_tagged_fields == {TRACEPARENT_TAG: TRACEPARENT.encode()}
    # the client id goes out unchanged: the tagged field alone carries the traceparent
    assert frame[8:20] == struct.pack(">h", 10) + b"controller" and CLIENT_ID_TRACEPARENT_MARKER.encode() not in frame
    with pytest.raises(ValueError):  # explicit tagged fields still need a flexible header
        encode_request(7, 1, 1, "controller", ControlledShutdownV1(broker_id=2), tagged_fields={1: b"x"})


def _client_id_on_the_wire(frame: bytes) -> str:
    """A header v1's client id as Kafka reads it: after api key, version and correlation id, an int16-length string."""
    (length,) = struct.unpack_from(">h", frame, 8)
    return frame[10:10 + length].decode()


def test_traceparent_rides_in_the_client_id_of_a_v1_header() -> None:
    body = ControlledShutdownV1(broker_id=2)
    frame = encode_request(7, 1, 1, "controller-1", body, traceparent=TRACEPARENT)
    # the version stays 1 and the header v1: the traceparent is a suffix of the client id that Kafka reads as is
    assert struct.unpack_from(">hh", frame) == (7, 1)
    assert _client_id_on_the_wire(frame) == f"controller-1;kafka-edu.traceparent={TRACEPARENT}"
    decoded = decode_request(frame)
    assert (decoded.api_version, decoded.header_version) == (1, 1)
    assert (decoded.client_id, decoded.traceparent, decoded.body) == ("controller-1", TRACEPARENT, body)
    assert decoded.header_tagged_fields == {}
    # a null client id carries the suffix alone and reads back as "", as null does
    decoded = decode_request(encode_request(7, 1, 1, None, body, traceparent=TRACEPARENT))
    assert (decoded.client_id, decoded.traceparent) == ("", TRACEPARENT)
    # without a traceparent nothing is added
    frame = encode_request(7, 1, 1, "controller-1", body)
    assert _client_id_on_the_wire(frame) == "controller-1" and decode_request(frame).traceparent is None
    # an unsupported version still reports the plain client id and the traceparent
    frame = encode_request(3, 0, 4, "app", SEEDS["metadata-v0"][2], traceparent=TRACEPARENT)
    ApiKeys.METADATA.set_supported(1, 12)
    with pytest.raises(UnsupportedVersionError) as info:
        decode_request(frame)
    assert (info.value.client_id, info.value.traceparent) == ("app", TRACEPARENT)


def test_a_v0_header_has_no_room_for_a_traceparent() -> None:
    body = SEEDS["controlled-shutdown-v0"][2]
    frame = encode_request(7, 0, 1, "controller", body, traceparent=TRACEPARENT)
    assert frame == encode_request(7, 0, 1, "controller", body)
    assert decode_request(frame).traceparent is None


@pytest.mark.parametrize("client_id", [
    # real client ids that merely contain similar text
    "traceparent=" + TRACEPARENT,
    "app;traceparent=" + TRACEPARENT,
    "app kafka-edu.traceparent=" + TRACEPARENT,
    f"app;kafka-edu.traceparent={TRACEPARENT};more",
    f"app;kafka-edu.traceparent={TRACEPARENT} ",
    "app;KAFKA-EDU.TRACEPARENT=" + TRACEPARENT,
    # malformed suffixes: they stay part of the client id
    "app;kafka-edu.traceparent=",
    "app;kafka-edu.traceparent=garbage",
    "app;kafka-edu.traceparent=" + TRACEPARENT[:-1],
    "app;kafka-edu.traceparent=" + TRACEPARENT.upper(),
    "app;kafka-edu.traceparent=01" + TRACEPARENT[2:],
    "app;kafka-edu.traceparent=00-" + "0" * 32 + TRACEPARENT[35:],
    "app;kafka-edu.traceparent=" + TRACEPARENT[:36] + "0" * 16 + "-01",
])
def test_a_client_id_without_a_well_formed_suffix_is_left_alone(client_id: str) -> None:
    decoded = decode_request(encode_request(3, 0, 1, client_id, SEEDS["metadata-v0"][2]))
    assert (decoded.client_id, decoded.traceparent) == (client_id, None)


def test_only_the_last_well_formed_suffix_is_taken() -> None:
    client_id = f"app;kafka-edu.traceparent={TRACEPARENT}"  # a client id that happens to end in a suffix
    unsampled = TRACEPARENT[:-2] + "00"
    decoded = decode_request(encode_request(3, 0, 1, client_id, SEEDS["metadata-v0"][2], traceparent=unsampled))
    assert (decoded.client_id, decoded.traceparent) == (client_id, unsampled)


def test_a_suffix_that_would_not_fit_or_not_read_back_is_not_sent() -> None:
    long_id = "x" * 0x7FF0
    frame = encode_request(3, 0, 1, long_id, SEEDS["metadata-v0"][2], traceparent=TRACEPARENT)
    assert (decode_request(frame).client_id, decode_request(frame).traceparent) == (long_id, None)
    frame = encode_request(3, 0, 1, "app", SEEDS["metadata-v0"][2], traceparent="not-a-traceparent")
    assert (decode_request(frame).client_id, decode_request(frame).traceparent) == ("app", None)


def test_unknown_body_tag_is_skipped() -> None:
    frame = encode_request(7, 3, 1, "c", SEEDS["controlled-shutdown-v3"][2])
    assert frame.endswith(b"\x00")  # empty body tag section
    frame = frame[:-1] + b"\x01\x63\x02hi"  # one unknown tag 99 of 2 bytes
    assert decode_request(frame).body == SEEDS["controlled-shutdown-v3"][2]


def test_api_versions_response_header_is_v0_even_when_flexible() -> None:
    body = ApiVersionsResponse(error_code=Errors.NONE, api_keys=api_version_entries(3), throttle_time=ZERO_MS)
    frame = encode_response(18, 3, 77, body)
    assert frame[:4] == struct.pack(">i", 77) and frame[4:6] == b"\x00\x00"  # the error code follows directly
    metadata = metadata_v12.MetadataResponse(throttle_time=ZERO_MS, brokers=(), cluster_id="c", controller_id=1,
                                             topics=())
    assert encode_response(3, 12, 77, metadata)[4] == 0  # header v1: an empty tag section after the id


# --- errors --------------------------------------------------------------------------------------------------------

def test_unsupported_version() -> None:
    frame = encode_request(3, 12, 21, "c", SEEDS["metadata-v12"][2], traceparent=TRACEPARENT)
    try:
        ApiKeys.METADATA.set_supported(0, 9)
        with pytest.raises(UnsupportedVersionError) as info:
            decode_request(frame)
    finally:
        ApiKeys.METADATA.reset_supported()
    assert (info.value.api_key, info.value.api_version, info.value.correlation_id) == (3, 12, 21)
    assert info.value.traceparent == TRACEPARENT


def test_api_versions_from_the_future_gets_unsupported_version() -> None:
    frame = struct.pack(">hhih", 18, 9, 31, 2) + b"kp" + b"\x00" + b"\x07garbage"  # v9 body is never read
    with pytest.raises(UnsupportedVersionError) as info:
        decode_request(frame)
    assert (info.value.api_key, info.value.api_version, info.value.correlation_id) == (18, 9, 31)
    answer = api_versions_unsupported_response(31, [(18, 0, 4)])
    assert answer == struct.pack(">ihihhh", 31, 35, 1, 18, 0, 4)
    parsed = KpApiVersionsResponse.decode(answer, version=3, header=True)  # it falls back to v0 on an error
    assert parsed.error_code == 35 and [(a.api_key, a.max_version) for a in parsed.api_keys] == [(18, 4)]


def test_unknown_api_key_and_malformed_frames() -> None:
    with pytest.raises(UnknownApiKeyError) as info:
        decode_request(struct.pack(">hhih", 41, 1, 5, -1))
    assert info.value.correlation_id == 5
    good = FRAMES[1]
    for bad in (b"", b"\x00\x03", good[:-1], good[:9]):
        with pytest.raises(InvalidRequestError):
            decode_request(bad)
    # Kafka's parser reads the fields it knows and ignores trailing bytes; so do we
    assert decode_request(good + b"\x00").body == decode_request(good).body
    # a negative string length inside an array must not walk backwards through the frame
    frame = struct.pack(">hhih", 3, 0, 1, -1) + struct.pack(">ih", 2_000_000_000, -7)
    with pytest.raises(InvalidRequestError):
        decode_request(frame)


@settings(max_examples=400, deadline=None, database=None)
@given(st.binary(max_size=96))
def test_fuzz_random_bytes(frame: bytes) -> None:
    try:
        decode_request(frame)
    except CODEC_ERRORS:
        pass


@settings(max_examples=600, deadline=None, database=None)
@given(st.sampled_from(FRAMES), st.data())
def test_fuzz_mutated_frames(frame: bytes, data: st.DataObject) -> None:
    mutated = bytearray(frame)
    for _ in range(data.draw(st.integers(1, 4))):
        op = data.draw(st.sampled_from(["flip", "truncate", "append", "byte"]))
        if op == "flip" and mutated:
            i = data.draw(st.integers(0, len(mutated) - 1))
            mutated[i] ^= 1 << data.draw(st.integers(0, 7))
        elif op == "byte" and mutated:
            mutated[data.draw(st.integers(0, len(mutated) - 1))] = data.draw(st.sampled_from([0x00, 0x7F, 0x80, 0xFF]))
        elif op == "truncate":
            del mutated[data.draw(st.integers(0, len(mutated))):]
        else:
            mutated += data.draw(st.binary(min_size=1, max_size=8))
    try:
        decode_request(bytes(mutated))
    except CODEC_ERRORS:
        pass


# --- against a real client -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("version", [0, 1, 4, 9, 12])
def test_kafka_python_metadata_request_decodes(version: int) -> None:
    topics = [KpMetadataRequest.MetadataRequestTopic(name="orders")]
    request = KpMetadataRequest(version=version, topics=topics,
                                **({"allow_auto_topic_creation": False} if version >= 4 else {}))
    request.with_header(correlation_id=1234, client_id="kafka-python-test")
    decoded = decode_request(request.encode(header=True))
    assert (decoded.api_key, decoded.api_version, decoded.correlation_id) == (ApiKeys.METADATA, version, 1234)
    assert decoded.client_id == "kafka-python-test"
    assert [t.name for t in decoded.body.topics] == ["orders"]
    if version >= 4:
        assert decoded.body.allow_auto_topic_creation is False


@pytest.mark.parametrize("version", [0, 3])
def test_kafka_python_api_versions_request_decodes(version: int) -> None:
    fields = {"client_software_name": "kafka-python", "client_software_version": "3.0.12"} if version >= 3 else {}
    request = KpApiVersionsRequest(version=version, **fields)
    request.with_header(correlation_id=8, client_id="kp")
    decoded = decode_request(request.encode(header=True))
    assert (decoded.api_key, decoded.api_version, decoded.correlation_id) == (18, version, 8)
    if version >= 3:
        assert decoded.body.client_software_name == "kafka-python"


def test_kafka_python_reads_our_responses() -> None:
    body = ApiVersionsResponse(error_code=Errors.NONE, api_keys=api_version_entries(3), throttle_time=ZERO_MS)
    parsed = KpApiVersionsResponse.decode(encode_response(18, 3, 55, body), version=3, header=True)
    assert parsed.header.correlation_id == 55 and parsed.error_code == 0
    assert {a.api_key: a.max_version for a in parsed.api_keys}[3] == ApiKeys.METADATA.supported[1]

    partition = metadata_v12.MetadataResponsePartition(error_code=Errors.NONE, partition_index=0, leader_id=1,
                                                       leader_epoch=3, replica_nodes=(1, 2), isr_nodes=(1, 2))
    topic = metadata_v12.MetadataResponseTopic(error_code=Errors.NONE, name="orders", topic_id=uuid.uuid4(),
                                               partitions=(partition,))
    broker = metadata_v12.MetadataResponseBroker(node_id=1, host="127.0.0.1", port=9092)
    metadata = metadata_v12.MetadataResponse(throttle_time=ZERO_MS, brokers=(broker,), cluster_id="edu",
                                             controller_id=1, topics=(topic,))
    parsed = KpMetadataResponse.decode(encode_response(3, 12, 56, metadata), version=12, header=True)
    assert parsed.header.correlation_id == 56 and parsed.cluster_id == "edu"
    assert [(b.node_id, b.host, b.port) for b in parsed.brokers] == [(1, "127.0.0.1", 9092)]
    assert parsed.topics[0].name == "orders" and list(parsed.topics[0].partitions[0].isr_nodes) == [1, 2]


def test_records_are_read_in_place_from_a_writable_frame_and_copied_from_bytes() -> None:
    """A produce request's records from a receive buffer stay a view of it (no copy before validation); from read-only
    bytes they are bytes. Either way they are the bytes that were sent, and writing to the view writes the frame."""
    frame = encode_request(0, 9, 5, "c", _produce_v9())
    received = bytearray(frame)
    in_place = decode_request(received).body.topic_data[0].partition_data[0].records
    copied = decode_request(frame).body.topic_data[0].partition_data[0].records
    assert isinstance(in_place, memoryview) and not in_place.readonly
    assert isinstance(copied, bytes)
    assert bytes(in_place) == copied == b"\x00batch"
    in_place[0] = 0x7F
    assert received[received.index(b"\x7fbatch")] == 0x7F
