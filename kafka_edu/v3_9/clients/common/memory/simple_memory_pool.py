"""Port of clients/src/main/java/org/apache/kafka/common/memory/SimpleMemoryPool.java (Kafka 3.9): a pool that counts
the bytes it has handed out and refuses a buffer once they reach its size (the broker's queued.max.request.bytes).

The out-of-memory time sensor is left out: the 3.9 tree has no metrics registry."""

from __future__ import annotations

import logging
import threading

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.network.java_nio import ByteBuffer


class SimpleMemoryPool:
    """strict: allocate only when the whole size is available; otherwise whenever any memory is left, so the pool
    may dip below zero by up to one allocation."""

    def __init__(self, size_in_bytes: int, max_single_allocation_bytes: int, strict: bool,
                 oom_period_sensor: object = None) -> None:
        if size_in_bytes <= 0 or max_single_allocation_bytes <= 0 or max_single_allocation_bytes > size_in_bytes:
            raise IllegalArgumentException(
                "must provide a positive size and max single allocation size smaller than size.provided "
                f"{size_in_bytes} and {max_single_allocation_bytes} respectively")
        self.log = logging.getLogger("org.apache.kafka.common.memory.SimpleMemoryPool")
        self.size_bytes = size_in_bytes
        self.strict = strict
        self._available_memory = size_in_bytes
        self._lock = threading.Lock()  # the AtomicLong's compare-and-set
        self.max_single_allocation_size = max_single_allocation_bytes

    def try_allocate(self, size_bytes: int) -> ByteBuffer | None:
        if size_bytes < 1:
            raise IllegalArgumentException(f"requested size {size_bytes}<=0")
        if size_bytes > self.max_single_allocation_size:
            raise IllegalArgumentException(f"requested size {size_bytes} is larger than maxSingleAllocationSize "
                                           f"{self.max_single_allocation_size}")
        threshold = size_bytes if self.strict else 1
        with self._lock:
            success = self._available_memory >= threshold
            if success:
                self._available_memory -= size_bytes
        if not success:
            self.log.debug("refused to allocate buffer of size %d", size_bytes)
            return None
        allocated = ByteBuffer.allocate(size_bytes)
        self.buffer_to_be_returned(allocated)
        return allocated

    def release(self, previously_allocated: ByteBuffer) -> None:
        if previously_allocated is None:
            raise IllegalArgumentException("provided null buffer")
        self.buffer_to_be_released(previously_allocated)
        with self._lock:
            self._available_memory += previously_allocated.capacity()

    def size(self) -> int:
        return self.size_bytes

    def available_memory(self) -> int:
        with self._lock:
            return self._available_memory

    def is_out_of_memory(self) -> bool:
        return self.available_memory() <= 0

    def buffer_to_be_returned(self, just_allocated: ByteBuffer) -> None:
        self.log.debug("allocated buffer of size %d ", just_allocated.capacity())

    def buffer_to_be_released(self, just_released: ByteBuffer) -> None:
        self.log.debug("released buffer of size %d", just_released.capacity())

    def __str__(self) -> str:
        return f"SimpleMemoryPool{{{self.size_bytes - self.available_memory()}/{self.size_bytes} bytes used}}"
