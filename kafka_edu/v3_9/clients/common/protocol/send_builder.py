"""Port of clients/src/main/java/org/apache/kafka/common/protocol/SendBuilder.java (Kafka 3.9): a response written
as a Send without copying its records: the bytes around them are gathered in a buffer, each MemoryRecords' buffer is
added as it is, and a FileRecords becomes a Send of its own that sendfile writes from the log segment.

Kafka's generated message classes call writeRecords for a records field. Here kio writes the message: it asks a
field value for its length and hands it to `write`, so a records field carries a `RecordsField`, which `write`
recognises and passes to `write_records`. Kafka sizes the message first and allocates its buffer once; here the
4-byte size is written as a placeholder and filled in by `build`.
"""

from __future__ import annotations

import struct
from collections import deque
from typing import Any

from kio.serial import entity_writer
from kio.serial.writers import write_unsigned_varint

from kafka_edu.v3_9.clients.common.network.byte_buffer_send import ByteBufferSend
from kafka_edu.v3_9.clients.common.network.java_nio import ByteBuffer
from kafka_edu.v3_9.clients.common.network.send import Send
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.codec import check_body
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.multi_records_send import MultiRecordsSend

_INT = struct.Struct(">i")


class RecordsField:
    """A records field's value as kio sees it: a length for the size prefix, the records for `write_records`."""

    __slots__ = ("records",)

    def __init__(self, records: Any) -> None:
        self.records = records

    def __len__(self) -> int:
        return self.records.size_in_bytes()

    def __bytes__(self) -> bytes:
        """The records' bytes, for an encoder that is not a SendBuilder (a file slice is read now)."""
        records = self.records
        if isinstance(records, MemoryRecords):
            return bytes(records.buffer())
        out = bytearray(records.size_in_bytes())
        if out:
            records.read_into(out, 0)
        return bytes(out)


class SendBuilder:
    def __init__(self) -> None:
        self._buffer = bytearray()
        self._sends: deque[Send] = deque()
        self._size_of_sends = 0
        self._buffers: list[ByteBuffer] = []
        self._size_of_buffers = 0

    # -- Writable ----------------------------------------------------------------------------------------------------

    def write(self, data: Any) -> int:
        """What kio calls for every field: bytes are gathered; a RecordsField goes to write_records."""
        if type(data) is RecordsField:
            self.write_records(data.records)
            return len(data)
        self._buffer += data
        return len(data)

    def write_int(self, value: int) -> None:
        self._buffer += _INT.pack(value)

    def write_byte_buffer(self, buf: ByteBuffer) -> None:
        self._flush_pending_buffer()
        self._add_buffer(ByteBuffer(buf.remaining_view()))  # type: ignore[arg-type] - a view, not a copy

    def write_records(self, records: Any) -> None:
        if isinstance(records, MemoryRecords):
            self._flush_pending_buffer()
            self._add_buffer(ByteBuffer(records.buffer()))  # type: ignore[arg-type] - the records' own bytes
        else:
            self._flush_pending_send()
            self._add_send(records.to_send())

    # -- building ----------------------------------------------------------------------------------------------------

    def _add_buffer(self, buffer: ByteBuffer) -> None:
        self._buffers.append(buffer)
        self._size_of_buffers += buffer.remaining()

    def _add_send(self, send: Send) -> None:
        self._sends.append(send)
        self._size_of_sends += send.size()

    def _clear_buffers(self) -> None:
        self._buffers.clear()
        self._size_of_buffers = 0

    def _flush_pending_send(self) -> None:
        self._flush_pending_buffer()
        if self._buffers:
            self._add_send(ByteBufferSend(*self._buffers, size=self._size_of_buffers))
            self._clear_buffers()

    def _flush_pending_buffer(self) -> None:
        if self._buffer:
            self._add_buffer(ByteBuffer(self._buffer))
            self._buffer = bytearray()

    def build(self) -> Send:
        self._flush_pending_send()
        if len(self._sends) == 1:
            return self._sends.popleft()
        return MultiRecordsSend(self._sends, self._size_of_sends)

    @staticmethod
    def build_response_send(api_key: int | ApiKeys, api_version: int, correlation_id: int, body: Any) -> Send:
        """A response's Send: its size, the response header and the body, records as they are."""
        api = api_key if isinstance(api_key, ApiKeys) else ApiKeys.for_key(api_key)
        check_body(body, api, api_version, "response")
        builder = SendBuilder()
        head = builder._buffer  # the first bytes sent; gathered in place until a records field or the end
        builder.write_int(0)  # the size, once it is known
        builder.write_int(correlation_id)
        if api.response_header_version(api_version) >= 1:
            write_unsigned_varint(builder, 0)  # no tagged fields in the header
        entity_writer(type(body))(builder, body)
        send = builder.build()
        _INT.pack_into(head, 0, send.size() - 4)
        return send
