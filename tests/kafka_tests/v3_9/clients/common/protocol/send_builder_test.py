"""Port of clients/src/test/java/org/apache/kafka/common/protocol/SendBuilderTest.java (Kafka 3.9).

Difference of form: Kafka's SendBuilder(size) is given the message size up front; here it gathers bytes as they come,
so the constructor takes none."""

from __future__ import annotations

from kafka_edu.v3_9.clients.common.compress.compression import NONE
from kafka_edu.v3_9.clients.common.network.java_nio import ByteBuffer
from kafka_edu.v3_9.clients.common.protocol.send_builder import SendBuilder
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.clients.common.record.multi_records_send_test import ByteBufferChannel

KAFKA = kafka_test_class(
    "3.9", "clients/src/test/java/org/apache/kafka/common/protocol/SendBuilderTest.java",
    cases=["testZeroCopyByteBuffer", "testWriteByteBufferRespectsPosition", "testZeroCopyRecords",
           "testZeroCopyUnalignedRecords"],
    not_ported={"testZeroCopyUnalignedRecords": "UnalignedMemoryRecords (the raft snapshot reader's unaligned "
                                                "chunks) is not ported"},
)


def to_buffer(send) -> ByteBuffer:
    """TestUtils.toBuffer: everything the send writes."""
    channel = ByteBufferChannel(send.size())
    while not send.completed():
        send.write_to(channel)
    channel.close()
    return channel.buffer()


def test_zero_copy_byte_buffer() -> None:
    data = bytearray(b"foo")
    zero_copy_buffer = ByteBuffer.wrap(data)
    builder = SendBuilder()
    builder.write_int(5)
    builder.write_byte_buffer(zero_copy_buffer)
    builder.write_int(15)
    send = builder.build()

    # the original buffer is overwritten: the send must show the new bytes, as it holds no copy
    zero_copy_buffer.rewind()
    zero_copy_buffer.put(b"bar")
    zero_copy_buffer.rewind()

    buffer = to_buffer(send)
    assert buffer.remaining() == 8 + len(data)
    assert buffer.get_int() == 5
    assert get_string(buffer, len(data)) == "bar"
    assert buffer.get_int() == 15


def test_write_byte_buffer_respects_position() -> None:
    data = bytearray(b"yolo")
    assert len(data) == 4
    buffer = ByteBuffer.wrap(data)
    builder = SendBuilder()
    buffer.limit(2)
    builder.write_byte_buffer(buffer)
    assert buffer.position() == 0
    buffer.limit(4)
    buffer.position(2)
    builder.write_byte_buffer(buffer)
    assert buffer.position() == 2
    send = builder.build()
    assert get_string(to_buffer(send), 4) == "yolo"


def test_zero_copy_records() -> None:
    buffer = bytearray(128)
    records = create_records(buffer, b"foo")
    builder = SendBuilder()
    builder.write_int(5)
    builder.write_records(records)
    builder.write_int(15)
    send = builder.build()

    # the records' buffer is overwritten: the send must carry the new records
    overwritten_records = create_records(buffer, b"bar")

    read_buffer = to_buffer(send)
    assert read_buffer.get_int() == 5
    assert get_records(read_buffer, records.size_in_bytes()) == overwritten_records
    assert read_buffer.get_int() == 15


def get_string(buffer: ByteBuffer, size: int) -> str:
    view = buffer.remaining_view()[:size]
    buffer.position(buffer.position() + size)
    return bytes(view).decode()


def get_records(buffer: ByteBuffer, size: int) -> MemoryRecords:
    view = bytes(buffer.remaining_view()[:size])
    buffer.position(buffer.position() + size)
    return MemoryRecords.readable_records(bytearray(view))


def create_records(buffer: bytearray, value: bytes) -> MemoryRecords:
    """A one-record batch written into `buffer` from its start, as MemoryRecords.builder(buffer, ...) does."""
    records = MemoryRecords.with_records(NONE, SimpleRecord(value, timestamp=0),
                                         timestamp_type=TimestampType.CREATE_TIME)
    data = bytes(records.buffer())
    buffer[:len(data)] = data
    return MemoryRecords.readable_records(memoryview(buffer)[:len(data)])


