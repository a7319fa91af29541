"""Port of clients/src/main/java/org/apache/kafka/common/utils/BufferSupplier.java (Kafka 3.9): a source of scratch
buffers that may hand back a released one instead of allocating; a buffer's capacity is its length."""

from __future__ import annotations


class BufferSupplier:
    NO_CACHING: BufferSupplier

    @staticmethod
    def create() -> BufferSupplier:
        return _DefaultSupplier()

    def get(self, capacity: int) -> bytearray:
        raise NotImplementedError

    def release(self, buffer: bytearray) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class _NoCaching(BufferSupplier):
    def get(self, capacity: int) -> bytearray:
        return bytearray(capacity)

    def release(self, buffer: bytearray) -> None:
        pass

    def close(self) -> None:
        pass


class _DefaultSupplier(BufferSupplier):
    """One queue of released buffers per size: callers use a single block size."""

    def __init__(self) -> None:
        self._buffer_map: dict[int, list[bytearray]] = {}

    def get(self, size: int) -> bytearray:
        buffer_queue = self._buffer_map.get(size)
        if not buffer_queue:
            return bytearray(size)
        return buffer_queue.pop(0)

    def release(self, buffer: bytearray) -> None:
        self._buffer_map.setdefault(len(buffer), []).append(buffer)

    def close(self) -> None:
        self._buffer_map.clear()


class GrowableBufferSupplier(BufferSupplier):
    """Keeps the last released buffer and hands it out again while it is large enough."""

    def __init__(self) -> None:
        self._cached_buffer: bytearray | None = None

    def get(self, min_capacity: int) -> bytearray:
        if self._cached_buffer is not None and len(self._cached_buffer) >= min_capacity:
            res = self._cached_buffer
            self._cached_buffer = None
            return res
        self._cached_buffer = None
        return bytearray(min_capacity)

    def release(self, buffer: bytearray) -> None:
        self._cached_buffer = buffer

    def close(self) -> None:
        self._cached_buffer = None


BufferSupplier.NO_CACHING = _NoCaching()
