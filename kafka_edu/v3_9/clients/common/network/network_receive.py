"""Port of clients/src/main/java/org/apache/kafka/common/network/NetworkReceive.java (Kafka 3.9): one size-prefixed
frame read off a channel: first the 4-byte size, then a buffer of that size from the memory pool, filled as bytes
arrive. A pool out of memory leaves the buffer unallocated, and the channel mutes itself until memory is back."""

from __future__ import annotations

import logging
from typing import Any

from kafka_edu.v3_9.clients.common.memory import memory_pool
from kafka_edu.v3_9.clients.common.memory.memory_pool import MemoryPool
from kafka_edu.v3_9.clients.common.network.invalid_receive_exception import InvalidReceiveException
from kafka_edu.v3_9.clients.common.network.java_nio import ByteBuffer, EOFException

UNKNOWN_SOURCE = ""
UNLIMITED = -1
log = logging.getLogger("org.apache.kafka.common.network.NetworkReceive")
_EMPTY_BUFFER = ByteBuffer.allocate(0)


class NetworkReceive:
    UNKNOWN_SOURCE = UNKNOWN_SOURCE
    UNLIMITED = UNLIMITED

    def __init__(self, max_size: int = UNLIMITED, source: str = UNKNOWN_SOURCE,
                 memory_pool: MemoryPool = memory_pool.NONE, buffer: ByteBuffer | None = None) -> None:
        """Kafka's constructors: (maxSize, source[, memoryPool]), (source), (), and (source, buffer) for a frame
        that has already been read."""
        self._source = source
        self._size = ByteBuffer.allocate(4)
        self._buffer = buffer
        self._max_size = max_size
        self._memory_pool = memory_pool
        self._requested_buffer_size = -1

    def source(self) -> str:
        return self._source

    def complete(self) -> bool:
        return not self._size.has_remaining() and self._buffer is not None and not self._buffer.has_remaining()

    def read_from(self, channel: Any) -> int:
        read = 0
        if self._size.has_remaining():
            bytes_read = channel.read(self._size)
            if bytes_read < 0:
                raise EOFException()
            read += bytes_read
            if not self._size.has_remaining():
                self._size.rewind()
                receive_size = self._size.get_int()
                if receive_size < 0:
                    raise InvalidReceiveException(f"Invalid receive (size = {receive_size})")
                if self._max_size != UNLIMITED and receive_size > self._max_size:
                    raise InvalidReceiveException(f"Invalid receive (size = {receive_size} larger than "
                                                  f"{self._max_size})")
                self._requested_buffer_size = receive_size  # 0 is a valid size (SASL tokens)
                if receive_size == 0:
                    self._buffer = _EMPTY_BUFFER
        if self._buffer is None and self._requested_buffer_size != -1:
            # the size is known, the buffer not yet: ask the pool (again)
            self._buffer = self._memory_pool.try_allocate(self._requested_buffer_size)
            if self._buffer is None:
                log.debug("Broker low on memory - could not allocate buffer of size %d for source %s",
                          self._requested_buffer_size, self._source)
        if self._buffer is not None:
            bytes_read = channel.read(self._buffer)
            if bytes_read < 0:
                raise EOFException()
            read += bytes_read
        return read

    def required_memory_amount_known(self) -> bool:
        return self._requested_buffer_size != -1

    def memory_allocated(self) -> bool:
        return self._buffer is not None

    def close(self) -> None:
        if self._buffer is not None and self._buffer is not _EMPTY_BUFFER:
            self._memory_pool.release(self._buffer)
            self._buffer = None

    def payload(self) -> ByteBuffer | None:
        return self._buffer

    def bytes_read(self) -> int:
        if self._buffer is None:
            return self._size.position()
        return self._buffer.position() + self._size.position()

    def size(self) -> int:
        return self.payload().limit() + self._size.limit()
