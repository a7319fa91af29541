"""Port of clients/src/main/java/org/apache/kafka/common/network/Send.java (Kafka 3.9): bytes on their way out to a
channel, written as far as the socket takes them on each call."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from kafka_edu.v3_9.clients.common.network.transferable_channel import TransferableChannel


@runtime_checkable
class Send(Protocol):
    def completed(self) -> bool:
        """Everything has been written."""
        ...

    def write_to(self, channel: TransferableChannel) -> int:
        """Write what the channel takes now; the number of bytes written (OSError on failure)."""
        ...

    def size(self) -> int:
        """The whole size of the send, in bytes."""
        ...
