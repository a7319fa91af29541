"""Port of clients/src/main/java/org/apache/kafka/common/compress/NoCompression.java (Kafka 3.9): records as they
are."""

from __future__ import annotations

from typing import Any

from kafka_edu.v3_9.clients.common.compress.compression import Buffer, Compression
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType


class NoCompression(Compression):
    def type(self) -> CompressionType:
        return CompressionType.NONE

    def wrap_for_output(self, data: Buffer, message_version: int) -> bytes:
        return bytes(data)

    def wrap_for_input(self, buffer: Buffer, message_version: int, decompression_buffer_supplier: Any = None) -> bytes:
        return bytes(buffer)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NoCompression)

    def __hash__(self) -> int:
        return hash(NoCompression)

    class Builder:
        def build(self) -> NoCompression:
            return NoCompression()
