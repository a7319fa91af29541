"""Port of clients/src/main/java/org/apache/kafka/common/network/ByteBufferSend.java (Kafka 3.9): a Send of byte
buffers, written with one gathering write per call; `size_prefixed` frames a payload with its 4-byte size."""

from __future__ import annotations

from kafka_edu.v3_9.clients.common.network.java_nio import ByteBuffer, EOFException
from kafka_edu.v3_9.clients.common.network.transferable_channel import TransferableChannel


class ByteBufferSend:
    def __init__(self, *buffers: ByteBuffer, size: int | None = None) -> None:
        """ByteBufferSend(buffers...) counts what the buffers hold; ByteBufferSend(buffers, size) is told."""
        self.buffers = list(buffers)
        self._remaining = sum(buffer.remaining() for buffer in buffers) if size is None else size
        self._size = self._remaining
        self._pending = False

    def completed(self) -> bool:
        return self._remaining <= 0 and not self._pending

    def size(self) -> int:
        return self._size

    def write_to(self, channel: TransferableChannel) -> int:
        written = channel.write(self.buffers)
        if written < 0:
            raise EOFException("Wrote negative bytes to channel. This shouldn't happen.")
        self._remaining -= written
        self._pending = channel.has_pending_writes()
        return written

    def remaining(self) -> int:
        return self._remaining

    def __str__(self) -> str:
        return f"ByteBufferSend(, size={self._size}, remaining={self._remaining}, pending={self._pending})"

    @staticmethod
    def size_prefixed(buffer: ByteBuffer) -> ByteBufferSend:
        size_buffer = ByteBuffer.allocate(4)
        size_buffer.put_int_at(0, buffer.remaining())
        return ByteBufferSend(size_buffer, buffer)
