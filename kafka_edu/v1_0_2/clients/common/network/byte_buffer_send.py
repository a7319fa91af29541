"""Port of clients/src/main/java/org/apache/kafka/common/network/ByteBufferSend.java (Kafka 1.0.2)."""

from __future__ import annotations

from typing import Any

from kafka_edu.v1_0_2.clients.common.network.send import Send
from kafka_edu.v1_0_2.clients.common.network.transport_layers import has_pending_writes


class ByteBufferSend(Send):
    """A send of one or more buffers, written in order (a gathering write where the channel can)."""

    def __init__(self, destination: str, *buffers: bytes | bytearray | memoryview) -> None:
        self._destination = destination
        # the views still to write; the first one is cut as the channel takes its bytes (a ByteBuffer's position)
        self.buffers = [memoryview(b).cast("B") for b in buffers if len(b)]
        self._remaining = sum(len(b) for b in self.buffers)
        self._size = self._remaining
        self._pending = False

    def destination(self) -> str:
        return self._destination

    def completed(self) -> bool:
        return self._remaining <= 0 and not self._pending

    def size(self) -> int:
        return self._size

    def write_to(self, channel: Any) -> int:
        written = channel.write(self.buffers) if self.buffers else 0
        if written < 0:
            raise EOFError("Wrote negative bytes to channel. This shouldn't happen.")
        self._remaining -= written
        self._advance(written)
        self._pending = has_pending_writes(channel)
        return written

    def _advance(self, written: int) -> None:
        buffers = self.buffers
        while written and buffers:
            first = buffers[0]
            if written >= len(first):
                written -= len(first)
                del buffers[0]
            else:
                buffers[0] = first[written:]
                written = 0
