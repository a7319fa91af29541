"""Port of clients/src/main/java/org/apache/kafka/common/compress/ZstdCompression.java (Kafka 3.9): zstd at a level
(cramjam's codec)."""

from __future__ import annotations

from typing import Any

import cramjam

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, KafkaException
from kafka_edu.v3_9.clients.common.compress.compression import Buffer, Compression
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType


class ZstdCompression(Compression):
    def __init__(self, level: int) -> None:
        self.level = level

    def type(self) -> CompressionType:
        return CompressionType.ZSTD

    def wrap_for_output(self, data: Buffer, message_version: int) -> bytes:
        return bytes(cramjam.zstd.compress(bytes(data), level=self.level))

    def wrap_for_input(self, buffer: Buffer, message_version: int, decompression_buffer_supplier: Any = None) -> bytes:
        try:
            return bytes(cramjam.zstd.decompress(bytes(buffer)))
        except cramjam.DecompressionError as e:
            raise KafkaException(f"Failed to decompress zstd record stream: {e}") from e

    def decompression_output_size(self) -> int:
        return 16 * 1024

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ZstdCompression) and self.level == other.level

    def __hash__(self) -> int:
        return hash((ZstdCompression, self.level))

    class Builder:
        def __init__(self) -> None:
            self._level = CompressionType.ZSTD.default_level()

        def level(self, level: int) -> ZstdCompression.Builder:
            zstd = CompressionType.ZSTD
            if level < zstd.min_level() or zstd.max_level() < level:
                raise IllegalArgumentException(f"zstd doesn't support given compression level: {level}")
            self._level = level
            return self

        def build(self) -> ZstdCompression:
            return ZstdCompression(self._level)
