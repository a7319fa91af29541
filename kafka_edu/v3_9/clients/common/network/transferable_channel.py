"""Port of clients/src/main/java/org/apache/kafka/common/network/TransferableChannel.java (Kafka 3.9): a gathering
channel a Send writes to, which may hold bytes of its own back (an SSL layer's encrypted buffer)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, runtime_checkable

from kafka_edu.v3_9.clients.common.network.java_nio import ByteBuffer


@runtime_checkable
class TransferableChannel(Protocol):
    def write(self, srcs: ByteBuffer | Iterable[ByteBuffer]) -> int:
        """GatheringByteChannel.write: what the channel takes now from the buffers, in order."""
        ...

    def has_pending_writes(self) -> bool:
        """Bytes are still held in the channel's own buffers after a write."""
        ...

    def transfer_from(self, file_channel: Any, position: int, count: int) -> int:
        """Copy `count` bytes of a file from `position` straight to the channel (sendfile)."""
        ...
