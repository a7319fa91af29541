"""Port of clients/src/main/java/org/apache/kafka/common/compress/SnappyCompression.java (Kafka 3.9): snappy in the
xerial stream framing Java's SnappyOutputStream writes."""

from __future__ import annotations

from typing import Any

import cramjam

from kafka_edu.v1_0_2.clients.common.errors import InvalidRecordException, KafkaException
from kafka_edu.v1_0_2.clients.common.record.compression_type import _snappy_compress, _snappy_decompress
from kafka_edu.v3_9.clients.common.compress.compression import Buffer, Compression
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType


class SnappyCompression(Compression):
    def type(self) -> CompressionType:
        return CompressionType.SNAPPY

    def wrap_for_output(self, data: Buffer, message_version: int) -> bytes:
        return _snappy_compress(bytes(data))

    def wrap_for_input(self, buffer: Buffer, message_version: int, decompression_buffer_supplier: Any = None) -> bytes:
        try:
            return _snappy_decompress(bytes(buffer))
        except (InvalidRecordException, cramjam.DecompressionError) as e:
            # A bad stream is Kafka's IOException from SnappyInputStream.
            raise KafkaException(f"Failed to decompress snappy record stream: {e}") from e

    def decompression_output_size(self) -> int:
        return 2 * 1024

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SnappyCompression)

    def __hash__(self) -> int:
        return hash(SnappyCompression)

    class Builder:
        def build(self) -> SnappyCompression:
            return SnappyCompression()
