"""Port of clients/src/test/java/org/apache/kafka/common/record/MultiRecordsSendTest.java (Kafka 3.9)."""

from __future__ import annotations

import os
from collections.abc import Iterable

from kafka_edu.v3_9.clients.common.network.byte_buffer_send import ByteBufferSend
from kafka_edu.v3_9.clients.common.network.java_nio import ByteBuffer
from kafka_edu.v3_9.clients.common.record.multi_records_send import MultiRecordsSend
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "clients/src/test/java/org/apache/kafka/common/record/MultiRecordsSendTest.java",
    cases=["testSendsFreedAfterWriting"],
)


class ByteBufferChannel:
    """org.apache.kafka.common.requests.ByteBufferChannel: a TransferableChannel writing into a buffer of `size`."""

    def __init__(self, size: int) -> None:
        self._buffer = ByteBuffer.allocate(size)
        self._closed = False

    def write(self, srcs: ByteBuffer | Iterable[ByteBuffer]) -> int:
        written = 0
        for src in [srcs] if isinstance(srcs, ByteBuffer) else srcs:
            view = src.remaining_view()
            self._buffer.put(bytes(view))
            src.position(src.position() + len(view))
            written += len(view)
        return written

    def has_pending_writes(self) -> bool:
        return False

    def transfer_from(self, file_channel, position: int, count: int) -> int:
        data = file_channel.read(count, position)
        self._buffer.put(data)
        return len(data)

    def close(self) -> None:
        self._buffer.flip()
        self._closed = True

    def buffer(self) -> ByteBuffer:
        return self._buffer


class NonOverflowingByteBufferChannel(ByteBufferChannel):
    """Refuses what does not fit once full, so that each send of the queue lands in a channel of its own."""

    def write(self, srcs: ByteBuffer | Iterable[ByteBuffer]) -> int:
        if not self.buffer().has_remaining():
            return 0
        return super().write(srcs)


def test_sends_freed_after_writing() -> None:
    num_chunks = 4
    chunk_size = 32
    total_size = num_chunks * chunk_size
    chunks = [os.urandom(chunk_size) for _ in range(num_chunks)]
    send = MultiRecordsSend([ByteBufferSend(ByteBuffer.wrap(chunk)) for chunk in chunks])
    assert send.size() == total_size

    for i in range(num_chunks):
        assert send.num_resident_sends() == num_chunks - i
        out = NonOverflowingByteBufferChannel(chunk_size)
        send.write_to(out)
        out.close()
        assert bytes(out.buffer().remaining_view()) == chunks[i]

    assert send.num_resident_sends() == 0
    assert send.completed()
