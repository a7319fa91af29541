"""The 1.0.2 broker's Fetch response as a Send (kafka_edu/v1_0_2/clients/common/requests/fetch_response.py): the
bytes it writes are those encode_response writes for the same body, for every Fetch version the broker serves, with
FileRecords slices sent by sendfile, and the network Sends it is made of (ByteBufferSend, NetworkSend, MultiSend,
RecordsSend) written through partial writes."""

from __future__ import annotations

import os
import socket
import struct
import threading
from pathlib import Path
from typing import Any

import pytest

from kafka_edu.v1_0_2.clients.common.errors import KafkaException
from kafka_edu.v1_0_2.clients.common.network.byte_buffer_send import ByteBufferSend
from kafka_edu.v1_0_2.clients.common.network.multi_send import MultiSend
from kafka_edu.v1_0_2.clients.common.network.network_send import NetworkSend
from kafka_edu.v1_0_2.clients.common.network.plaintext_transport_layer import PlaintextTransportLayer
from kafka_edu.v1_0_2.clients.common.network.selector import KafkaChannel
from kafka_edu.v1_0_2.clients.common.record.file_records import FileRecords, MemoryRecords
from kafka_edu.v1_0_2.clients.common.requests.fetch_response import (
    INVALID_LAST_STABLE_OFFSET,
    AbortedTransaction,
    FetchResponse,
    PartitionData,
)
from kafka_edu.v1_0_2.clients.common.requests.records_send import RecordsSend
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.server.kafka_apis import SUPPORTED_VERSIONS
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.codec import encode_response
from kafka_edu.v3_9.clients.common.protocol.errors import Errors

FETCH_VERSIONS = range(SUPPORTED_VERSIONS[ApiKeys.FETCH][0], SUPPORTED_VERSIONS[ApiKeys.FETCH][1] + 1)


class BufferChannel:
    """A channel a Send writes to that takes at most `per_call` bytes a call (None: everything), so that sends
    are written in pieces as a busy socket takes them."""

    def __init__(self, per_call: int | None = None) -> None:
        self.per_call = per_call
        self.data = bytearray()
        self.transfers = 0

    def _room(self, wanted: int) -> int:
        return wanted if self.per_call is None else min(wanted, self.per_call)

    def write(self, buffers: Any) -> int:
        taken = 0
        for buffer in buffers:
            room = self._room(taken + len(buffer)) - taken
            if room <= 0:
                break
            self.data += bytes(buffer[:room])
            taken += min(room, len(buffer))
        return taken

    def transfer_from(self, fd: int, position: int, count: int) -> int:
        self.transfers += 1
        chunk = os.pread(fd, self._room(count), position)
        self.data += chunk
        return len(chunk)


def tcp_pair() -> tuple[socket.socket, socket.socket]:
    """Two ends of a loopback TCP connection (a KafkaChannel wants a peer address)."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        ours = socket.create_connection(server.getsockname())
        theirs, _ = server.accept()
    return ours, theirs


def write_fully(send: Any, channel: BufferChannel) -> bytes:
    while not send.completed():
        send.write_to(channel)
    return bytes(channel.data)


@pytest.fixture
def segment(tmp_path: Path) -> Any:
    records = FileRecords.open(tmp_path / "00000000000000000000.log")
    records.append(MemoryRecords(bytes(range(256)) * 40))  # 10240 bytes; the codec needs no valid batches
    yield records
    records.close()


def partitions(segment: FileRecords) -> list[tuple[TopicPartition, PartitionData]]:
    """What the 1.0.2 broker sends: records from the log, an error with no records, nothing to read, a
    read_committed read with aborted transactions (and one with none), a second topic."""
    none = Errors.NONE
    return [
        (TopicPartition("topic-a", 0), PartitionData(none, 120, 100, 0, None, segment.read(100, 4000))),
        (TopicPartition("topic-a", 3), PartitionData(Errors.NOT_LEADER_OR_FOLLOWER, -1, INVALID_LAST_STABLE_OFFSET,
                                                     -1, None, b"")),
        (TopicPartition("topic-a", 1), PartitionData(none, 50, 50, 7, None, segment.read(10240, 100))),
        (TopicPartition("topic-a", 2), PartitionData(none, 900, 880, 0, [AbortedTransaction(3, 40),
                                                                         AbortedTransaction(9, 55)],
                                                     segment.read(0, 10240))),
        (TopicPartition("topic-b", 0), PartitionData(none, 5, 5, 0, [], segment.read(5000, 1))),
        (TopicPartition("topic-b", 1), PartitionData(Errors.OFFSET_OUT_OF_RANGE, -1, INVALID_LAST_STABLE_OFFSET, -1,
                                                     None, b"")),
        (TopicPartition("\u00e9t\u00e9", 0), PartitionData(none, 1, 1, 0, None, b"\x01\x02\x03")),
    ]


def encoded(version: int, correlation_id: int, data: list[tuple[TopicPartition, PartitionData]],
            error: Errors = Errors.NONE) -> bytes:
    """The response as encode_response writes it (what the broker sent before), with its size prefix."""
    responses: dict[str, list[dict[str, Any]]] = {}
    for tp, p in data:
        records = p.records if isinstance(p.records, (bytes, type(None))) else p.records.to_bytes()
        aborted = None if p.aborted_transactions is None else [
            dict(producer_id=t.producer_id, first_offset=t.first_offset) for t in p.aborted_transactions]
        responses.setdefault(tp.topic, []).append(dict(
            partition_index=tp.partition, preferred_read_replica=-1, error_code=p.error,
            high_watermark=p.high_watermark, last_stable_offset=p.last_stable_offset,
            log_start_offset=p.log_start_offset, aborted_transactions=aborted, records=records))
    body = build(ApiKeys.FETCH.response_schema(version), throttle_time=0, error_code=error, session_id=0,
                 responses=[dict(topic=t, partitions=ps) for t, ps in responses.items()])
    payload = encode_response(ApiKeys.FETCH, version, correlation_id, body)
    return struct.pack(">i", len(payload)) + payload


@pytest.mark.parametrize("version", FETCH_VERSIONS)
@pytest.mark.parametrize("per_call", [None, 1, 7, 4096])
def test_send_writes_the_bytes_encode_response_writes(segment: FileRecords, version: int,
                                                      per_call: int | None) -> None:
    data = partitions(segment)
    send = FetchResponse(data).to_send("conn", 2**31 - 5, version)
    expected = encoded(version, 2**31 - 5, data)
    channel = BufferChannel(per_call)
    assert send.size() == len(expected)
    assert write_fully(send, channel) == expected
    assert channel.transfers >= 3  # the log slices went by transfer_from, not through a buffer


@pytest.mark.parametrize("version", FETCH_VERSIONS)
def test_empty_and_error_responses(version: int) -> None:
    assert write_fully(FetchResponse([]).to_send("c", 1, version), BufferChannel()) == encoded(version, 1, [])
    if version >= 7:  # the top-level error (an incremental fetch session the broker does not keep)
        send = FetchResponse([], error=Errors.FETCH_SESSION_ID_NOT_FOUND).to_send("c", 1, version)
        assert write_fully(send, BufferChannel(3)) == encoded(version, 1, [], Errors.FETCH_SESSION_ID_NOT_FOUND)
    only_errors = [(TopicPartition("t", i), PartitionData(Errors.UNKNOWN_TOPIC_OR_PARTITION, -1, -1, -1, None, b""))
                   for i in range(3)]
    send = FetchResponse(only_errors).to_send("c", 9, version)
    assert isinstance(send, ByteBufferSend)  # no records of a file: the whole response is one buffer send
    assert write_fully(send, BufferChannel()) == encoded(version, 9, only_errors)


@pytest.mark.parametrize("version", [4, 6, 11, 12])
def test_many_topics_and_large_varints(segment: FileRecords, version: int) -> None:
    data = [(TopicPartition(f"topic-{i // 70}" + "x" * 130, i % 70),
             PartitionData(Errors.NONE, i, i, 0, [AbortedTransaction(i, i)] * (i % 3), segment.read(i, 200)))
            for i in range(300)]
    assert write_fully(FetchResponse(data).to_send("c", 3, version), BufferChannel(1000)) == encoded(version, 3, data)


def test_over_a_socket_with_sendfile(segment: FileRecords) -> None:
    data = partitions(segment)
    expected = encoded(6, 42, data)
    ours, theirs = tcp_pair()
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    ours.setblocking(False)
    received = bytearray()

    def read() -> None:
        while len(received) < len(expected):
            chunk = theirs.recv(65536)
            if not chunk:
                return
            received.extend(chunk)

    reader = threading.Thread(target=read)
    reader.start()
    try:
        channel = KafkaChannel("c", ours, 1 << 20)
        channel.set_send(FetchResponse(data).to_send("c", 42, 6))
        while not channel.write():
            pass
        reader.join(10)
        assert bytes(received) == expected
    finally:
        ours.close()
        theirs.close()


def test_channel_takes_bytes_and_sends() -> None:
    ours, theirs = tcp_pair()
    try:
        channel = KafkaChannel("c", ours, 1 << 20)
        assert channel.write()  # nothing to write
        channel.set_send(b"payload")
        with pytest.raises(Exception, match="prior send operation still in progress"):
            channel.set_send(b"again")
        assert channel.write()
        channel.set_send(NetworkSend("c", b"framed"))
        assert channel.write()
        assert theirs.recv(100) == b"\x00\x00\x00\x07payload\x00\x00\x00\x06framed"
    finally:
        ours.close()
        theirs.close()


def test_byte_buffer_send_partial_writes() -> None:
    send = ByteBufferSend("d", b"abc", b"", bytearray(b"defgh"), memoryview(b"ij"))
    assert send.size() == 10 and send.destination() == "d"
    channel = BufferChannel(3)
    written = []
    while not send.completed():
        written.append(send.write_to(channel))
    assert written == [3, 3, 3, 1]
    assert bytes(channel.data) == b"abcdefghij"


def test_network_send_is_size_delimited() -> None:
    send = NetworkSend("d", b"12345")
    assert send.size() == 9
    assert write_fully(send, BufferChannel(2)) == b"\x00\x00\x00\x0512345"


def test_multi_send_writes_each_send_in_order() -> None:
    sends = [ByteBufferSend("d", b"ab"), NetworkSend("d", b""), ByteBufferSend("d", b"cdef")]
    send = MultiSend("d", sends)
    assert send.size() == 10
    channel = BufferChannel(3)
    assert send.write_to(channel) == 5  # "ab", then 3 of the 4 size bytes: it stops at a send not written whole
    assert write_fully(send, channel) == b"ab\x00\x00\x00\x00cdef"
    with pytest.raises(KafkaException):
        send.write_to(channel)


def test_records_send_of_memory_records_and_file_records(segment: FileRecords) -> None:
    memory = RecordsSend("d", MemoryRecords(b"0123456789"))
    assert write_fully(memory, BufferChannel(4)) == b"0123456789"
    sliced = segment.read(300, 1000)
    assert write_fully(RecordsSend("d", sliced), BufferChannel(333)) == sliced.to_bytes()
    # without transfer_from the slice is read and written
    plain = BufferChannel(500)
    plain.transfer_from = None  # type: ignore[assignment]
    assert write_fully(RecordsSend("d", sliced), plain) == sliced.to_bytes()


def test_file_records_write_to_fails_once_the_file_is_truncated_or_closed(tmp_path: Path) -> None:
    records = FileRecords.open(tmp_path / "0.log")
    records.append(MemoryRecords(b"x" * 100))
    sliced = records.read(0, 100)
    records.truncate_to(50)
    with pytest.raises(KafkaException, match="truncated during write"):
        sliced.write_to(BufferChannel(), 0, 100)
    records.close()
    with pytest.raises(OSError, match="ClosedChannelException"):
        sliced.write_to(BufferChannel(), 0, 10)


def test_plaintext_transport_layer_writes_and_transfers(segment: FileRecords) -> None:
    ours, theirs = socket.socketpair()
    try:
        transport = PlaintextTransportLayer(ours)
        assert transport.write([b"ab", memoryview(b"cd")]) == 4
        assert transport.transfer_from(segment.fd, 1, 3) == 3
        assert not transport.has_pending_writes()
        assert theirs.recv(100) == b"abcd\x01\x02\x03"
    finally:
        ours.close()
        theirs.close()


@pytest.mark.parametrize("version", range(0, FETCH_VERSIONS.start))
def test_versions_older_than_the_broker_serves(segment: FileRecords, version: int) -> None:
    data = partitions(segment)
    assert write_fully(FetchResponse(data).to_send("c", 5, version), BufferChannel(999)) == encoded(version, 5, data)
