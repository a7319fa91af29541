"""Port of clients/src/main/java/org/apache/kafka/common/compress/Lz4BlockInputStream.java (Kafka 3.9): reads an
LZ4 frame of independent blocks (cramjam decompresses each block); a bad frame is Kafka's IOException, surfaced as
KafkaException like the record iterators do."""

from __future__ import annotations

import struct

import cramjam

from kafka_edu.v1_0_2.clients.common.errors import KafkaException
from kafka_edu.v3_9.clients.common.compress.lz4_block_output_stream import (
    BD,
    FLG,
    LZ4_FRAME_INCOMPRESSIBLE_MASK,
    MAGIC,
    xxhash32,
)

PREMATURE_EOS = "Stream ended prematurely"
NOT_SUPPORTED = "Stream unsupported (invalid magic bytes)"
BLOCK_HASH_MISMATCH = "Block checksum mismatch"
DESCRIPTOR_HASH_MISMATCH = "Stream frame descriptor corrupted"
_U32_LE = struct.Struct("<I")


class Lz4BlockInputStream:
    def __init__(self, buffer: bytes | bytearray | memoryview, ignore_flag_descriptor_checksum: bool = False) -> None:
        self.input = bytes(buffer)
        self.ignore_flag_descriptor_checksum = ignore_flag_descriptor_checksum
        self.position = 0
        self.finished = False
        self._read_header()

    def _fail(self, message: str) -> KafkaException:
        return KafkaException(f"Failed to decompress lz4 record stream: {message}")

    def _read_header(self) -> None:
        data = self.input
        if len(data) < 6:
            raise self._fail(PREMATURE_EOS)
        if _U32_LE.unpack_from(data, 0)[0] != MAGIC:
            raise self._fail(NOT_SUPPORTED)
        mark = 4
        try:
            self.flg = FLG.from_byte(data[4])
            self.max_block_size = BD.from_byte(data[5]).get_block_maximum_size()
        except RuntimeError as e:
            raise self._fail(str(e)) from e
        position = 6
        if self.flg.is_content_size_set():
            if len(data) - position < 8:
                raise self._fail(PREMATURE_EOS)
            position += 8
        if position >= len(data):
            raise self._fail(PREMATURE_EOS)
        if not self.ignore_flag_descriptor_checksum:
            hash_ = xxhash32(data[mark:position])
            if data[position] != (hash_ >> 8) & 0xFF:
                raise self._fail(DESCRIPTOR_HASH_MISMATCH)
        self.position = position + 1

    def _read_block(self, out: bytearray) -> None:
        data = self.input
        if len(data) - self.position < 4:
            raise self._fail(PREMATURE_EOS)
        block_size = _U32_LE.unpack_from(data, self.position)[0]
        self.position += 4
        compressed = (block_size & LZ4_FRAME_INCOMPRESSIBLE_MASK) == 0
        block_size &= ~LZ4_FRAME_INCOMPRESSIBLE_MASK
        if block_size == 0:
            self.finished = True
            if self.flg.is_content_checksum_set():
                self.position += 4
            return
        if block_size > self.max_block_size:
            raise self._fail(f"Block size {block_size} exceeded max: {self.max_block_size}")
        if len(data) - self.position < block_size:
            raise self._fail(PREMATURE_EOS)
        block = data[self.position:self.position + block_size]
        if compressed:
            try:
                decompressed = bytearray(self.max_block_size)
                size = cramjam.lz4.decompress_block_into(block, decompressed)
                out += memoryview(decompressed)[:size]
            except cramjam.DecompressionError as e:
                raise self._fail(str(e)) from e
        else:
            out += block
        self.position += block_size
        if self.flg.is_block_checksum_set():
            if len(data) - self.position < 4 or xxhash32(block) != _U32_LE.unpack_from(data, self.position)[0]:
                raise self._fail(BLOCK_HASH_MISMATCH)
            self.position += 4

    def read_all(self) -> bytes:
        out = bytearray()
        while not self.finished:
            self._read_block(out)
        return bytes(out)
