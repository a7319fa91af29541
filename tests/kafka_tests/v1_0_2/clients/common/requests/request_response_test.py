"""Port of clients/src/test/java/org/apache/kafka/common/requests/RequestResponseTest.java (Kafka 1.0.2): the
FetchResponse cases and the error responses. The 1.0.2 tree has a FetchResponse of its own (written as a Send, its
records sent from the log) and the getErrorResponse of every request class (kafka_apis.get_error_response); every
other request and response is encoded and parsed by the 3.9 codec, which its own tests cover. So testSerialization
keeps its checkErrorResponse part (for every version the broker serves, not only 1.0.2's), and its checkRequest and
checkResponse parts are the codec's.

Kafka's createXRequest helpers are one here, `create_request`: every list of the request holds one entry and every
field a value, unless the case says otherwise."""

from __future__ import annotations

import dataclasses
import datetime
import os
import uuid
from pathlib import Path
from typing import Any

import pytest
from kio.serial._introspect import (
    EntityField,
    EntityTupleField,
    PrimitiveTupleField,
    classify_field,
    get_schema_field_type,
)

from kafka_edu.v1_0_2.clients.common.errors import (
    InvalidTopicException,
    NotCoordinatorException,
    NotEnoughReplicasException,
    SecurityDisabledException,
    UnknownServerException,
)
from kafka_edu.v1_0_2.clients.common.record.file_records import FileRecords, MemoryRecords, build_batch
from kafka_edu.v1_0_2.clients.common.requests.fetch_response import (
    INVALID_LAST_STABLE_OFFSET,
    INVALID_LOG_START_OFFSET,
    AbortedTransaction,
    FetchResponse,
    PartitionData,
)
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.network.request_channel import Request
from kafka_edu.v1_0_2.core.server.kafka_apis import KAFKA_1_0_2_VERSIONS, SUPPORTED_VERSIONS, get_error_response
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.codec import (
    decode_request,
    decode_response,
    encode_request,
    encode_response,
)
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from tests.kafka_tests.referee import kafka_test_class

_CODEC = ("the 1.0.2 tree has no request or response class of its own for this: it is encoded and parsed by the "
          "3.9 codec (kafka_edu/v3_9/clients/common/protocol/codec.py), tested with the 3.9 port")

KAFKA = kafka_test_class(
    "1.0.2", "clients/src/test/java/org/apache/kafka/common/requests/RequestResponseTest.java",
    cases=["testSerialization", "testResponseHeader", "cannotUseFindCoordinatorV0ToFindTransactionCoordinator",
           "produceRequestToStringTest", "produceRequestGetErrorResponseTest", "produceResponseV5Test",
           "produceResponseVersionTest", "fetchResponseVersionTest", "testFetchResponseV4",
           "verifyFetchResponseFullWrite", "testControlledShutdownResponse",
           "testCreateTopicRequestV0FailsIfValidateOnly", "testFetchRequestMaxBytesOldVersions",
           "testFetchRequestIsolationLevel", "testJoinGroupRequestVersion0RebalanceTimeout",
           "testOffsetFetchRequestBuilderToString"],
    not_applicable={case: _CODEC for case in [
        "testResponseHeader", "cannotUseFindCoordinatorV0ToFindTransactionCoordinator",
        "produceRequestToStringTest", "produceResponseV5Test",
        "produceResponseVersionTest", "testControlledShutdownResponse", "testCreateTopicRequestV0FailsIfValidateOnly",
        "testFetchRequestMaxBytesOldVersions", "testFetchRequestIsolationLevel",
        "testJoinGroupRequestVersion0RebalanceTimeout", "testOffsetFetchRequestBuilderToString"]},
)


class ByteBufferChannel:
    """The test channel Kafka writes a Send to: it takes everything it is given."""

    def __init__(self) -> None:
        self.buffer = bytearray()

    def write(self, buffers: Any) -> int:
        before = len(self.buffer)
        for b in buffers:
            self.buffer += b
        return len(self.buffer) - before


def written(send: Any) -> bytes:
    channel = ByteBufferChannel()
    while not send.completed():
        send.write_to(channel)
    assert len(channel.buffer) == send.size()
    return bytes(channel.buffer)


def parse(frame: bytes, version: int) -> Any:
    """FetchResponse.parse of the size-delimited frame a Send wrote."""
    size = int.from_bytes(frame[:4], "big", signed=True)
    assert size == len(frame) - 4
    return decode_response(ApiKeys.FETCH, version, frame[4:])


def response_data(decoded: Any) -> dict[TopicPartition, PartitionData]:
    return {TopicPartition(t.topic, p.partition_index): PartitionData(
        Errors(p.error_code), p.high_watermark, getattr(p, "last_stable_offset", INVALID_LAST_STABLE_OFFSET),
        getattr(p, "log_start_offset", INVALID_LOG_START_OFFSET),
        None if getattr(p, "aborted_transactions", None) is None else [
            AbortedTransaction(a.producer_id, a.first_offset) for a in p.aborted_transactions],
        bytes(p.records) if p.records is not None else None)
        for t in decoded.body.responses for p in t.partitions}


def test_fetch_response_version_test() -> None:
    records = MemoryRecords(bytes(10))
    data = {TopicPartition("test", 0): PartitionData(Errors.NONE, 1000000, INVALID_LAST_STABLE_OFFSET, 0, None,
                                                     records)}
    v0_response = FetchResponse(data, 0)
    v1_response = FetchResponse(data, 10)
    assert v0_response.throttle_time_ms == 0
    assert v1_response.throttle_time_ms == 10
    v0 = parse(written(v0_response.to_send("1", 3, 0)), 0)
    v1 = parse(written(v1_response.to_send("1", 3, 1)), 1)
    assert not hasattr(v0.body, "throttle_time")  # schema version 0 has no throttle time
    assert v1.body.throttle_time.total_seconds() * 1000 == 10
    # v0 and v1 carry no last stable offset or log start offset: what they have matches
    for decoded in (v0, v1):
        [(tp, partition)] = response_data(decoded).items()
        assert tp == TopicPartition("test", 0)
        assert (partition.error, partition.high_watermark, partition.records) == (Errors.NONE, 1000000, bytes(10))
    assert [(tp, p) for tp, p in v0_response.response_data] == list(data.items())


def test_fetch_response_v4() -> None:
    records = MemoryRecords(bytes(10))
    aborted_transactions = [AbortedTransaction(10, 100), AbortedTransaction(15, 50)]
    data = {
        TopicPartition("bar", 0): PartitionData(Errors.NONE, 100000, INVALID_LAST_STABLE_OFFSET,
                                                INVALID_LOG_START_OFFSET, aborted_transactions, records),
        TopicPartition("bar", 1): PartitionData(Errors.NONE, 900000, 5, INVALID_LOG_START_OFFSET, None, records),
        TopicPartition("foo", 0): PartitionData(Errors.NONE, 70000, 6, INVALID_LOG_START_OFFSET, [], records),
    }
    deserialized = parse(written(FetchResponse(data, 10).to_send("1", 7, 4)), 4)
    expected = {tp: PartitionData(p.error, p.high_watermark, p.last_stable_offset, p.log_start_offset,
                                  p.aborted_transactions, bytes(p.records.buffer)) for tp, p in data.items()}
    assert response_data(deserialized) == expected


def test_verify_fetch_response_full_write(tmp_path: Path) -> None:
    fetch_response, log = create_fetch_response(tmp_path)
    try:
        api_version = 6  # the newest Fetch version of Kafka 1.0.2
        correlation_id = 15
        send = fetch_response.to_send("1", correlation_id, api_version)
        frame = written(send)
        size = int.from_bytes(frame[:4], "big", signed=True)
        assert size > 0
        response = parse(frame, api_version)
        assert response.correlation_id == correlation_id
        assert response_data(response) == {
            tp: PartitionData(p.error, p.high_watermark, p.last_stable_offset, p.log_start_offset,
                              p.aborted_transactions,
                              p.records.to_bytes() if isinstance(p.records, FileRecords) else bytes(p.records))
            for tp, p in fetch_response.response_data}
        assert response.body.throttle_time.total_seconds() * 1000 == 25
        assert size == len(frame) - 4
    finally:
        log.close()


def create_fetch_response(tmp_path: Path) -> tuple[FetchResponse, FileRecords]:
    """Kafka's createFetchResponse, the first partition's records a slice of a log file (the broker's case)."""
    log = FileRecords.open(tmp_path / "00000000000000000000.log")
    log.append(MemoryRecords(os.urandom(80)))
    data = {
        TopicPartition("test", 0): PartitionData(Errors.NONE, 1000000, INVALID_LAST_STABLE_OFFSET, 0, None,
                                                 log.read(0, 80)),
        TopicPartition("test", 1): PartitionData(Errors.NONE, 1000000, INVALID_LAST_STABLE_OFFSET, 0,
                                                 [AbortedTransaction(234, 999)], b""),
    }
    return FetchResponse(data, 25), log


# -- the error responses (getErrorResponse) ------------------------------------------------------------------------

_FILL = {"int8": 1, "int16": 1, "int32": 1, "int64": 1, "uint16": 1, "uint32": 1, "float64": 1.0, "bool": False,
         "string": "t", "bytes": b"", "uuid": uuid.UUID(int=1), "timedelta_i32": datetime.timedelta(seconds=1),
         "timedelta_i64": datetime.timedelta(seconds=1),
         "datetime_i64": datetime.datetime.fromtimestamp(0, datetime.UTC)}


def _filled(schema: type[Any], fields: dict[str, Any]) -> Any:
    values = dict(fields)
    for f in dataclasses.fields(schema):
        kind = classify_field(f)
        defaulted = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        if f.name in values or defaulted and not isinstance(kind, EntityTupleField | PrimitiveTupleField):
            continue
        if isinstance(kind, EntityTupleField):
            values[f.name] = (_filled(kind.type_, {}),)
        elif isinstance(kind, EntityField):
            values[f.name] = _filled(kind.type_, {})
        elif get_schema_field_type(f) == "records":
            values[f.name] = build_batch([b"v"])
        else:
            value = _FILL[get_schema_field_type(f)]
            value = kind.type_.parse(value) if hasattr(kind.type_, "parse") else value
            values[f.name] = (value,) if isinstance(kind, PrimitiveTupleField) else value
    return schema(**values)


def create_request(api: ApiKeys, version: int, **fields: Any) -> Request:
    """A request as the SocketServer hands it to KafkaApis (encoded by a client, parsed off the wire). Top-level
    `fields` replace the filled-in values (a kio object or a value of the field's type)."""
    body = _filled(api.request_schema(version), fields)
    decoded = decode_request(encode_request(api, version, 11, "client-1", body))
    return Request(0, "127.0.0.1:9092-127.0.0.1:50000-0", decoded.api_key, decoded.api_version,
                   decoded.correlation_id, decoded.client_id, decoded.body, decoded.size, "PLAINTEXT", "PLAINTEXT")


def serialized(request: Request, response: Any) -> bytes:
    """The response body's bytes as the broker sends them, after the response header."""
    if response is None:
        raise AssertionError("no response")
    if hasattr(response, "to_send"):  # a FetchResponse writes itself
        header = 4 + 4 + (1 if ApiKeys.FETCH.response_header_version(request.api_version) >= 1 else 0)
        return written(response.to_send("1", request.correlation_id, request.api_version))[header:]
    return encode_response(request.api_key, request.api_version, request.correlation_id, response)[
        4 + (1 if request.api_key.response_header_version(request.api_version) >= 1 else 0):]


def check_error_response(request: Request, e: BaseException) -> Any:
    """checkErrorResponse: the error response serializes, parses back at the request's version, and serializes to
    the same bytes again. Returns it parsed."""
    response = get_error_response(request, 0, e)
    body = serialized(request, response)
    header = encode_response(request.api_key, request.api_version, request.correlation_id,
                             decode_response(request.api_key, request.api_version,
                                             _with_header(request, body)).body)
    again = header[4 + (1 if request.api_key.response_header_version(request.api_version) >= 1 else 0):]
    assert again == body
    return decode_response(request.api_key, request.api_version, _with_header(request, body)).body


def _with_header(request: Request, body: bytes) -> bytes:
    tagged = b"\x00" if request.api_key.response_header_version(request.api_version) >= 1 else b""
    return request.correlation_id.to_bytes(4, "big", signed=True) + tagged + body


_ERROR_RESPONSE_CASES = [(api, version, {}, UnknownServerException())
                         for api, (low, high) in SUPPORTED_VERSIONS.items() for version in range(low, high + 1)] + [
    # the cases Kafka checks with another exception than UnknownServerException
    (ApiKeys.OFFSET_FETCH, 2, dict(topics=None), NotCoordinatorException("Not Coordinator")),  # forAllPartitions
    (ApiKeys.DESCRIBE_ACLS, 0, {}, SecurityDisabledException("Security is not enabled.")),
    (ApiKeys.CREATE_ACLS, 0, {}, SecurityDisabledException("Security is not enabled.")),
    (ApiKeys.DELETE_ACLS, 0, {}, SecurityDisabledException("Security is not enabled.")),
    (ApiKeys.CREATE_PARTITIONS, 0, {}, InvalidTopicException()),
]


@pytest.mark.parametrize(("api", "version", "fields", "e"), _ERROR_RESPONSE_CASES,
                         ids=[f"{api.api_name}-v{version}-{type(e).__name__}" for api, version, _, e in
                              _ERROR_RESPONSE_CASES])
def test_serialization(api: ApiKeys, version: int, fields: dict[str, Any], e: BaseException) -> None:
    response = check_error_response(create_request(api, version, **fields), e)
    if fields:  # OffsetFetch for all partitions: the error at the top, no partition to name
        assert (response.error_code, response.topics) == (Errors.NOT_COORDINATOR, ())


def test_produce_request_get_error_response_test() -> None:
    # 1.0.2 then clears the request's records and asks again: the port's request keeps its records (no
    # clearPartitionRecords), so that half has nothing to check
    request = create_request(ApiKeys.PRODUCE, KAFKA_1_0_2_VERSIONS[ApiKeys.PRODUCE][1])
    partitions = {TopicPartition(t.name, p.index) for t in request.body.topic_data for p in t.partition_data}
    error_response = check_error_response(request, NotEnoughReplicasException())
    assert {TopicPartition(t.name, p.index) for t in error_response.responses for p in t.partition_responses} == \
        partitions
    partition_response = error_response.responses[0].partition_responses[0]
    assert partition_response.error_code == Errors.NOT_ENOUGH_REPLICAS
    assert partition_response.base_offset == -1  # ProduceResponse.INVALID_OFFSET
    assert partition_response.log_append_time is None  # RecordBatch.NO_TIMESTAMP (-1) on the wire
