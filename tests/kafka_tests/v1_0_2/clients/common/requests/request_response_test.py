"""Port of clients/src/test/java/org/apache/kafka/common/requests/RequestResponseTest.java (Kafka 1.0.2): the
FetchResponse cases. The 1.0.2 tree has a FetchResponse of its own (written as a Send, its records sent from the
log); every other request and response is encoded and parsed by the 3.9 codec, which its own tests cover."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from kafka_edu.v1_0_2.clients.common.record.file_records import FileRecords, MemoryRecords
from kafka_edu.v1_0_2.clients.common.requests.fetch_response import (
    INVALID_LAST_STABLE_OFFSET,
    INVALID_LOG_START_OFFSET,
    AbortedTransaction,
    FetchResponse,
    PartitionData,
)
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.codec import decode_response
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
        "testSerialization", "testResponseHeader", "cannotUseFindCoordinatorV0ToFindTransactionCoordinator",
        "produceRequestToStringTest", "produceRequestGetErrorResponseTest", "produceResponseV5Test",
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
