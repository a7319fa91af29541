"""Port of clients/src/main/java/org/apache/kafka/common/requests/FetchResponse.java (Kafka 1.0.2): the response
written as a Send without copying the log (toSend, addResponseData, addTopicData, addPartitionData), and the
AbortedTransaction the broker builds from its transaction index.

Kafka 1.0.2 builds the response Struct and writes its parts piecewise: the bytes up to each partition's records
go into a ByteBufferSend, the records become a RecordsSend, and a MultiSend sends them in order. The broker here
serves Fetch v4 to v12 (v12 is a flexible version: compact arrays and strings, tagged fields), so the writing
follows each version's layout directly rather than through a Struct; the bytes are those the 3.9 codec's
encode_response writes for the same body (tests/unit/test_fetch_response_send.py). Kafka makes one ByteBufferSend
per struct part; here the bytes between two records sends are gathered into one, so that a response of many
partitions costs as many socket writes as it has non-empty records and no more.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from kafka_edu.v1_0_2.clients.common.network.byte_buffer_send import ByteBufferSend
from kafka_edu.v1_0_2.clients.common.network.multi_send import MultiSend
from kafka_edu.v1_0_2.clients.common.network.send import Send
from kafka_edu.v1_0_2.clients.common.requests.records_send import RecordsSend

INVALID_HIGHWATERMARK = -1
INVALID_LAST_STABLE_OFFSET = -1
INVALID_LOG_START_OFFSET = -1
INVALID_PREFERRED_REPLICA_ID = -1

FIRST_FLEXIBLE_VERSION = 12  # compact arrays, compact strings and records, tagged fields (KIP-482)

_INT16 = struct.Struct(">h")
_INT32 = struct.Struct(">i")
_INT64 = struct.Struct(">q")
_PARTITION_HEADER = struct.Struct(">ihq")  # partition, error code, high watermark
_ABORTED_TRANSACTION = struct.Struct(">qq")
_NO_TAGGED_FIELDS = b"\x00"


class AbortedTransaction(NamedTuple):
    """An aborted transaction a read_committed consumer must skip: its producer's records from `first_offset` up to
    the ABORT marker it will meet in the data."""

    producer_id: int
    first_offset: int


@dataclass
class PartitionData:
    """FetchResponse.PartitionData. `records` is a FileRecords slice of the log (sent with sendfile), MemoryRecords,
    bytes, or None (null on the wire)."""

    error: int
    high_watermark: int
    last_stable_offset: int
    log_start_offset: int
    aborted_transactions: Sequence[Any] | None
    records: Any
    preferred_read_replica: int = INVALID_PREFERRED_REPLICA_ID  # v11+; a ZooKeeper-mode broker names none


class FetchResponse:
    """The partitions' data in the order they are sent; partitions of one topic that follow each other are sent
    under one topic entry (FetchRequest.TopicAndPartitionData.batchByTopic)."""

    def __init__(self, response_data: Mapping[Any, PartitionData] | Iterable[tuple[Any, PartitionData]],
                 throttle_time_ms: int = 0, error: int = 0, session_id: int = 0) -> None:
        items = response_data.items() if isinstance(response_data, Mapping) else response_data
        self.response_data: list[tuple[Any, PartitionData]] = list(items)
        self.throttle_time_ms = throttle_time_ms
        self.error = error  # v7+
        self.session_id = session_id  # v7+

    def to_send(self, dest: str, correlation_id: int, api_version: int) -> Send:
        """The size, the response header and the body, with each partition's records as a Send of their own."""
        writer = _SendWriter(dest)
        header = writer.pending  # the first bytes sent: the size is filled in once the rest is known
        header += _INT32.pack(0)
        header += _INT32.pack(correlation_id)
        if api_version >= FIRST_FLEXIBLE_VERSION:
            header += _NO_TAGGED_FIELDS  # response header v1
        self.add_response_data(writer, api_version)
        send = writer.build()
        _INT32.pack_into(header, 0, send.size() - 4)
        return send

    def add_response_data(self, writer: _SendWriter, api_version: int) -> None:
        flexible = api_version >= FIRST_FLEXIBLE_VERSION
        topics = batch_by_topic(self.response_data)
        buffer = writer.pending
        if api_version >= 1:
            buffer += _INT32.pack(self.throttle_time_ms)
        if api_version >= 7:
            buffer += _INT16.pack(self.error)
            buffer += _INT32.pack(self.session_id)
        _write_array_length(buffer, len(topics), flexible)
        for topic, partitions in topics:
            add_topic_data(writer, topic, partitions, api_version)
        if flexible:
            writer.pending += _NO_TAGGED_FIELDS


def batch_by_topic(response_data: Iterable[tuple[Any, PartitionData]]) -> list[tuple[str, list[tuple[int,
                                                                                                     PartitionData]]]]:
    """Consecutive partitions of the same topic, grouped: [(topic, [(partition, data), ...]), ...]."""
    topics: list[tuple[str, list[tuple[int, PartitionData]]]] = []
    for topic_partition, data in response_data:
        if not topics or topics[-1][0] != topic_partition.topic:
            topics.append((topic_partition.topic, []))
        topics[-1][1].append((topic_partition.partition, data))
    return topics


def add_topic_data(writer: _SendWriter, topic: str, partitions: list[tuple[int, PartitionData]],
                   api_version: int) -> None:
    flexible = api_version >= FIRST_FLEXIBLE_VERSION
    buffer = writer.pending
    name = topic.encode()
    if flexible:
        _write_unsigned_varint(buffer, len(name) + 1)
    else:
        buffer += _INT16.pack(len(name))
    buffer += name
    _write_array_length(buffer, len(partitions), flexible)
    for partition, data in partitions:
        add_partition_data(writer, partition, data, api_version)
    if flexible:
        writer.pending += _NO_TAGGED_FIELDS


def add_partition_data(writer: _SendWriter, partition: int, data: PartitionData, api_version: int) -> None:
    """The partition header and the records' size as bytes, then the records as they are."""
    flexible = api_version >= FIRST_FLEXIBLE_VERSION
    buffer = writer.pending
    buffer += _PARTITION_HEADER.pack(partition, int(data.error), data.high_watermark)
    if api_version >= 4:
        buffer += _INT64.pack(data.last_stable_offset)
    if api_version >= 5:
        buffer += _INT64.pack(data.log_start_offset)
    if api_version >= 4:
        aborted = data.aborted_transactions
        if aborted is None:
            buffer += b"\x00" if flexible else _INT32.pack(-1)
        else:
            _write_array_length(buffer, len(aborted), flexible)
            for transaction in aborted:
                buffer += _ABORTED_TRANSACTION.pack(transaction.producer_id, transaction.first_offset)
                if flexible:
                    buffer += _NO_TAGGED_FIELDS
    if api_version >= 11:
        buffer += _INT32.pack(data.preferred_read_replica)
    records = data.records
    if records is None:
        buffer += b"\x00" if flexible else _INT32.pack(-1)
    else:
        size = len(records) if isinstance(records, (bytes, bytearray, memoryview)) else records.size_in_bytes()
        if flexible:
            _write_unsigned_varint(buffer, size + 1)
        else:
            buffer += _INT32.pack(size)
        if size:
            writer.write_records(records)
    if flexible:
        writer.pending += _NO_TAGGED_FIELDS  # no diverging epoch, current leader or snapshot id


class _SendWriter:
    """The sends of one response being built: bytes gather in `pending` until records that write themselves
    (FileRecords) need a RecordsSend of their own."""

    def __init__(self, dest: str) -> None:
        self.dest = dest
        self.pending = bytearray()
        self._buffers: list[bytes | bytearray | memoryview] = []
        self.sends: list[Send] = []

    def write_records(self, records: Any) -> None:
        if isinstance(records, (bytes, bytearray, memoryview)):
            self._flush_pending()
            self._buffers.append(records)  # gathered with the bytes around it, not copied
            return
        buffer = getattr(records, "buffer", None)
        if isinstance(buffer, (bytes, bytearray)):  # MemoryRecords: its buffer as it is
            self._flush_pending()
            self._buffers.append(buffer)
            return
        self._flush_buffers()
        self.sends.append(RecordsSend(self.dest, records))

    def _flush_pending(self) -> None:
        if self.pending:
            self._buffers.append(self.pending)
            self.pending = bytearray()

    def _flush_buffers(self) -> None:
        self._flush_pending()
        if self._buffers:
            self.sends.append(ByteBufferSend(self.dest, *self._buffers))
            self._buffers = []

    def build(self) -> Send:
        self._flush_buffers()
        if len(self.sends) == 1:
            return self.sends[0]
        return MultiSend(self.dest, self.sends)


def _write_array_length(buffer: bytearray, length: int, flexible: bool) -> None:
    if flexible:
        _write_unsigned_varint(buffer, length + 1)
    else:
        buffer += _INT32.pack(length)


def _write_unsigned_varint(buffer: bytearray, value: int) -> None:
    while value & ~0x7F:
        buffer.append((value & 0x7F) | 0x80)
        value >>= 7
    buffer.append(value)
