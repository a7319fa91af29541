"""Port of clients/src/main/java/org/apache/kafka/common/memory/MemoryPool.java (Kafka 3.9): where a receive gets
the buffer for a request once its size is known; NONE allocates every time and never refuses."""

from __future__ import annotations

import sys
from typing import Protocol, runtime_checkable

from kafka_edu.v3_9.clients.common.network.java_nio import ByteBuffer

LONG_MAX_VALUE = sys.maxsize  # Long.MAX_VALUE


@runtime_checkable
class MemoryPool(Protocol):
    """A pool of memory for buffers: try_allocate returns None when the pool is out of memory."""

    def try_allocate(self, size_bytes: int) -> ByteBuffer | None: ...

    def release(self, previously_allocated: ByteBuffer) -> None: ...

    def size(self) -> int: ...

    def available_memory(self) -> int: ...

    def is_out_of_memory(self) -> bool: ...


class _NoMemoryPool:
    """MemoryPool.NONE: plain allocation, no accounting."""

    def try_allocate(self, size_bytes: int) -> ByteBuffer:
        return ByteBuffer.allocate(size_bytes)

    def release(self, previously_allocated: ByteBuffer) -> None:
        pass

    def size(self) -> int:
        return LONG_MAX_VALUE

    def available_memory(self) -> int:
        return LONG_MAX_VALUE

    def is_out_of_memory(self) -> bool:
        return False

    def __str__(self) -> str:
        return "NONE"


NONE: MemoryPool = _NoMemoryPool()
