"""Port of clients/src/main/java/org/apache/kafka/common/compress/Lz4Compression.java (Kafka 3.9): LZ4 frames as
Kafka's own block streams write and read them (magic v0 with the old broken descriptor checksum)."""

from __future__ import annotations

from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.compress.compression import Buffer, Compression
from kafka_edu.v3_9.clients.common.compress.lz4_block_input_stream import Lz4BlockInputStream
from kafka_edu.v3_9.clients.common.compress.lz4_block_output_stream import Lz4BlockOutputStream
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType

MAGIC_VALUE_V0 = 0


class Lz4Compression(Compression):
    def __init__(self, level: int) -> None:
        self.level = level

    def type(self) -> CompressionType:
        return CompressionType.LZ4

    def wrap_for_output(self, data: Buffer, message_version: int) -> bytes:
        return Lz4BlockOutputStream(self.level, message_version == MAGIC_VALUE_V0).compress(data)

    def wrap_for_input(self, buffer: Buffer, message_version: int, decompression_buffer_supplier: Any = None) -> bytes:
        return Lz4BlockInputStream(buffer, message_version == MAGIC_VALUE_V0).read_all()

    def decompression_output_size(self) -> int:
        return 2 * 1024

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Lz4Compression) and self.level == other.level

    def __hash__(self) -> int:
        return hash((Lz4Compression, self.level))

    class Builder:
        def __init__(self) -> None:
            self._level = CompressionType.LZ4.default_level()

        def level(self, level: int) -> Lz4Compression.Builder:
            lz4 = CompressionType.LZ4
            if level < lz4.min_level() or lz4.max_level() < level:
                raise IllegalArgumentException(f"lz4 doesn't support given compression level: {level}")
            self._level = level
            return self

        def build(self) -> Lz4Compression:
            return Lz4Compression(self._level)
