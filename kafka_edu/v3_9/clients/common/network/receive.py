"""Port of clients/src/main/java/org/apache/kafka/common/network/Receive.java (Kafka 3.9): bytes coming in from a
channel, read as far as they have arrived on each call."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Receive(Protocol):
    def source(self) -> str:
        """The connection id the bytes come from."""
        ...

    def complete(self) -> bool:
        ...

    def read_from(self, channel: Any) -> int:
        """Read from a ScatteringByteChannel (anything with read(ByteBuffer) -> int); the bytes read."""
        ...

    def required_memory_amount_known(self) -> bool:
        ...

    def memory_allocated(self) -> bool:
        ...

    def close(self) -> None:
        ...
