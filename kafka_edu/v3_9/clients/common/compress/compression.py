"""Port of clients/src/main/java/org/apache/kafka/common/compress/Compression.java (Kafka 3.9): a codec with its
level, as a producer or a topic configures it, and the factory that builds one per CompressionType.

Kafka wraps streams; here a whole records section is compressed or decompressed in one call: `wrap_for_output`
takes the uncompressed bytes and returns what goes into the batch, `wrap_for_input` the reverse.
"""

from __future__ import annotations

from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType

Buffer = bytes | bytearray | memoryview


class Compression:
    """The interface every codec implements."""

    def type(self) -> CompressionType:
        raise NotImplementedError

    def wrap_for_output(self, data: Buffer, message_version: int) -> bytes:
        raise NotImplementedError

    def wrap_for_input(self, buffer: Buffer, message_version: int, decompression_buffer_supplier: Any = None) -> bytes:
        raise NotImplementedError

    def decompression_output_size(self) -> int:
        raise NotImplementedError("Size of decompression buffer is not defined for this compression "
                                  f"type={self.type().name_}")

    @staticmethod
    def of(compression: str | CompressionType) -> Any:
        """The builder for a codec, by CompressionType or by its configured name."""
        compression_type = CompressionType.for_name(compression) if isinstance(compression, str) else compression
        if compression_type is CompressionType.NONE:
            return Compression.none()
        if compression_type is CompressionType.GZIP:
            return Compression.gzip()
        if compression_type is CompressionType.SNAPPY:
            return Compression.snappy()
        if compression_type is CompressionType.LZ4:
            return Compression.lz4()
        if compression_type is CompressionType.ZSTD:
            return Compression.zstd()
        raise IllegalArgumentException(f"Unknown compression type: {compression_type.name_}")

    # The builders import their codec lazily: each codec module imports this base class.
    @staticmethod
    def none() -> Any:
        from kafka_edu.v3_9.clients.common.compress.no_compression import NoCompression
        return NoCompression.Builder()

    @staticmethod
    def gzip() -> Any:
        from kafka_edu.v3_9.clients.common.compress.gzip_compression import GzipCompression
        return GzipCompression.Builder()

    @staticmethod
    def snappy() -> Any:
        from kafka_edu.v3_9.clients.common.compress.snappy_compression import SnappyCompression
        return SnappyCompression.Builder()

    @staticmethod
    def lz4() -> Any:
        from kafka_edu.v3_9.clients.common.compress.lz4_compression import Lz4Compression
        return Lz4Compression.Builder()

    @staticmethod
    def zstd() -> Any:
        from kafka_edu.v3_9.clients.common.compress.zstd_compression import ZstdCompression
        return ZstdCompression.Builder()


def _none() -> Compression:
    from kafka_edu.v3_9.clients.common.compress.no_compression import NoCompression
    return NoCompression.Builder().build()


# Compression.NONE: the one uncompressed codec.
NONE: Compression = _none()
Compression.NONE = NONE  # type: ignore[attr-defined]
