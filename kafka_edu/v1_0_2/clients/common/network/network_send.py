"""Port of clients/src/main/java/org/apache/kafka/common/network/NetworkSend.java (Kafka 1.0.2)."""

from __future__ import annotations

import struct

from kafka_edu.v1_0_2.clients.common.network.byte_buffer_send import ByteBufferSend

_SIZE = struct.Struct(">i")


class NetworkSend(ByteBufferSend):
    """A size-delimited send: the 4-byte big-endian size N, then the N bytes of the buffer."""

    def __init__(self, destination: str, buffer: bytes | bytearray | memoryview) -> None:
        super().__init__(destination, *size_delimit(buffer))


def size_delimit(buffer: bytes | bytearray | memoryview) -> tuple[bytes, bytes | bytearray | memoryview]:
    return _SIZE.pack(len(buffer)), buffer
