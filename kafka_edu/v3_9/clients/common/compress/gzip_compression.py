"""Port of clients/src/main/java/org/apache/kafka/common/compress/GzipCompression.java (Kafka 3.9): gzip at a
Deflater level (cramjam's codec)."""

from __future__ import annotations

from typing import Any

import cramjam

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, KafkaException
from kafka_edu.v3_9.clients.common.compress.compression import Buffer, Compression
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType

# Deflater.DEFAULT_COMPRESSION means zlib's own default, level 6.
_ZLIB_DEFAULT_LEVEL = 6


class GzipCompression(Compression):
    def __init__(self, level: int) -> None:
        self.level = level

    def type(self) -> CompressionType:
        return CompressionType.GZIP

    def wrap_for_output(self, data: Buffer, message_version: int) -> bytes:
        level = _ZLIB_DEFAULT_LEVEL if self.level == CompressionType.GZIP.default_level() else self.level
        return bytes(cramjam.gzip.compress(bytes(data), level=level))

    def wrap_for_input(self, buffer: Buffer, message_version: int, decompression_buffer_supplier: Any = None) -> bytes:
        try:
            return bytes(cramjam.gzip.decompress(bytes(buffer)))
        except cramjam.DecompressionError as e:
            raise KafkaException(f"Failed to decompress gzip record stream: {e}") from e

    def decompression_output_size(self) -> int:
        return 16 * 1024

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GzipCompression) and self.level == other.level

    def __hash__(self) -> int:
        return hash((GzipCompression, self.level))

    class Builder:
        def __init__(self) -> None:
            self._level = CompressionType.GZIP.default_level()

        def level(self, level: int) -> GzipCompression.Builder:
            gzip = CompressionType.GZIP
            if (level < gzip.min_level() or gzip.max_level() < level) and level != gzip.default_level():
                raise IllegalArgumentException(f"gzip doesn't support given compression level: {level}")
            self._level = level
            return self

        def build(self) -> GzipCompression:
            return GzipCompression(self._level)
