"""Port of clients/.../record/CompressionType.java (Kafka 1.0.2, plus ZSTD from 2.1), codecs from cramjam."""

from __future__ import annotations

import enum
import struct

import cramjam

from kafka_edu.v1_0_2.clients.common.errors import InvalidRecordException, UnsupportedCompressionTypeException

# The stream header Java's SnappyOutputStream (xerial snappy-java) writes: marker, "SNAPPY", NUL, version, compat.
XERIAL_MAGIC = b"\x82SNAPPY\x00"
XERIAL_HEADER = XERIAL_MAGIC + struct.pack(">ii", 1, 1)
XERIAL_BLOCK_SIZE = 32 * 1024


def _snappy_decompress(data: bytes) -> bytes:
    """SnappyInputStream: a xerial stream (what Java producers write) or one raw block (what librdkafka writes)."""
    if not data.startswith(XERIAL_MAGIC):
        return bytes(cramjam.snappy.decompress_raw(data))
    out = bytearray()
    position = len(XERIAL_HEADER)
    while position < len(data):
        if position + 4 > len(data):
            raise InvalidRecordException("Truncated snappy block length in xerial stream")
        (block_size,) = struct.unpack_from(">i", data, position)
        position += 4
        if block_size < 0 or position + block_size > len(data):
            raise InvalidRecordException(f"Snappy block of {block_size} bytes overruns the xerial stream")
        out += bytes(cramjam.snappy.decompress_raw(data[position : position + block_size]))
        position += block_size
    return bytes(out)


def _snappy_compress(data: bytes) -> bytes:
    """SnappyOutputStream: the xerial header, then 32 KiB blocks each prefixed by its compressed length."""
    out = bytearray(XERIAL_HEADER)
    for start in range(0, len(data), XERIAL_BLOCK_SIZE):
        block = bytes(cramjam.snappy.compress_raw(data[start : start + XERIAL_BLOCK_SIZE]))
        out += struct.pack(">i", len(block)) + block
    return bytes(out)


class CompressionType(enum.Enum):
    """The codec in the low three bits of a batch's attributes; `name_` is the value compression.type takes."""

    NONE = 0, "none"
    GZIP = 1, "gzip"
    SNAPPY = 2, "snappy"
    LZ4 = 3, "lz4"
    ZSTD = 4, "zstd"

    def __init__(self, id: int, name_: str) -> None:
        self.id = id
        self.name_ = name_

    def wrap_for_input(self, data: bytes | memoryview) -> bytes:
        """Decompress a batch's records section; a codec failure means the batch is corrupt."""
        raw = bytes(data)
        try:
            if self is CompressionType.NONE:
                return raw
            if self is CompressionType.GZIP:
                return bytes(cramjam.gzip.decompress(raw))
            if self is CompressionType.SNAPPY:
                return _snappy_decompress(raw)
            if self is CompressionType.LZ4:
                return bytes(cramjam.lz4.decompress(raw))  # the LZ4 frame format, as KafkaLZ4BlockInputStream reads
            return bytes(cramjam.zstd.decompress(raw))
        except cramjam.DecompressionError as e:
            raise InvalidRecordException(f"Failed to decompress {self.name_} record batch: {e}") from e

    def wrap_for_output(self, data: bytes) -> bytes:
        """Compress a records section the way the Java producer would."""
        if self is CompressionType.NONE:
            return data
        if self is CompressionType.GZIP:
            return bytes(cramjam.gzip.compress(data))
        if self is CompressionType.SNAPPY:
            return _snappy_compress(data)
        if self is CompressionType.LZ4:
            return bytes(cramjam.lz4.compress(data))
        return bytes(cramjam.zstd.compress(data))

    @classmethod
    def for_id(cls, id: int) -> CompressionType:
        for codec in cls:
            if codec.id == id:
                return codec
        raise UnsupportedCompressionTypeException(f"Unknown compression type id: {id}")

    @classmethod
    def for_name(cls, name: str) -> CompressionType:
        for codec in cls:
            if codec.name_ == name:
                return codec
        raise ValueError(f"Unknown compression name: {name}")
