"""Port of server-common/src/main/java/org/apache/kafka/server/common/serialization/RecordSerde.java (Kafka 3.9)."""

from __future__ import annotations

from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class RecordSerde(Protocol[T]):
    """How the raft client turns the state machine's records into record values and back.

    `serialization_cache` is whatever object the serde wants to keep between `record_size` and `write` for one
    record (Kafka's ObjectSerializationCache); the raft client passes the same object to both and never reads it.
    `out` is a writable binary sink (has `write(bytes)`); `read` gets exactly the `size` bytes of one record value.
    """

    def record_size(self, data: T, serialization_cache: Any) -> int:
        """The size in bytes `write` will produce for `data`."""
        ...

    def write(self, data: T, serialization_cache: Any, out: Any) -> None:
        """Write `data` as one record value."""
        ...

    def read(self, input: bytes | memoryview, size: int) -> T:
        """Read one record value of `size` bytes."""
        ...
