"""Port of clients/src/main/java/org/apache/kafka/common/compress/Lz4BlockOutputStream.java (Kafka 3.9): an LZ4
frame of independent 64 KiB blocks, no checksums, the way Kafka's Java clients write it (cramjam compresses each
block)."""

from __future__ import annotations

import struct

import cramjam

MAGIC = 0x184D2204
LZ4_FRAME_INCOMPRESSIBLE_MASK = 0x80000000
BLOCKSIZE_64KB = 4
_U32_LE = struct.Struct("<I")

_P1, _P2, _P3, _P4, _P5 = 2654435761, 2246822519, 3266489917, 668265263, 374761393
_M32 = 0xFFFFFFFF


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _M32


def xxhash32(data: bytes | bytearray | memoryview, seed: int = 0) -> int:
    """XXHash32, the frame descriptor's and blocks' checksum (lz4-java's XXHashFactory)."""
    data = bytes(data)
    n = len(data)
    i = 0
    if n >= 16:
        v1 = (seed + _P1 + _P2) & _M32
        v2 = (seed + _P2) & _M32
        v3 = seed & _M32
        v4 = (seed - _P1) & _M32
        while i <= n - 16:
            a, b, c, d = struct.unpack_from("<IIII", data, i)
            v1 = (_rotl((v1 + a * _P2) & _M32, 13) * _P1) & _M32
            v2 = (_rotl((v2 + b * _P2) & _M32, 13) * _P1) & _M32
            v3 = (_rotl((v3 + c * _P2) & _M32, 13) * _P1) & _M32
            v4 = (_rotl((v4 + d * _P2) & _M32, 13) * _P1) & _M32
            i += 16
        h = (_rotl(v1, 1) + _rotl(v2, 7) + _rotl(v3, 12) + _rotl(v4, 18)) & _M32
    else:
        h = (seed + _P5) & _M32
    h = (h + n) & _M32
    while i + 4 <= n:
        h = (h + _U32_LE.unpack_from(data, i)[0] * _P3) & _M32
        h = (_rotl(h, 17) * _P4) & _M32
        i += 4
    while i < n:
        h = (h + data[i] * _P5) & _M32
        h = (_rotl(h, 11) * _P1) & _M32
        i += 1
    h ^= h >> 15
    h = (h * _P2) & _M32
    h ^= h >> 13
    h = (h * _P3) & _M32
    h ^= h >> 16
    return h


class FLG:
    """The frame descriptor's flag byte; Kafka supports version 1 with independent blocks only."""

    VERSION = 1

    def __init__(self, block_checksum: bool = False, *, reserved: int = 0, content_checksum: int = 0,
                 content_size: int = 0, block_independence: int = 1, version: int = VERSION) -> None:
        self.reserved = reserved
        self.content_checksum = content_checksum
        self.content_size = content_size
        self.block_checksum = 1 if block_checksum else 0
        self.block_independence = block_independence
        self.version = version
        self._validate()

    @staticmethod
    def from_byte(flg: int) -> FLG:
        return FLG(bool((flg >> 4) & 1), reserved=flg & 3, content_checksum=(flg >> 2) & 1,
                   content_size=(flg >> 3) & 1, block_independence=(flg >> 5) & 1, version=(flg >> 6) & 3)

    def to_byte(self) -> int:
        return ((self.reserved & 3) | ((self.content_checksum & 1) << 2) | ((self.content_size & 1) << 3)
                | ((self.block_checksum & 1) << 4) | ((self.block_independence & 1) << 5) | ((self.version & 3) << 6))

    def _validate(self) -> None:
        if self.reserved != 0:
            raise RuntimeError("Reserved bits must be 0")
        if self.block_independence != 1:
            raise RuntimeError("Dependent block stream is unsupported")
        if self.version != FLG.VERSION:
            raise RuntimeError(f"Version {self.version} is unsupported")

    def is_content_checksum_set(self) -> bool:
        return self.content_checksum == 1

    def is_content_size_set(self) -> bool:
        return self.content_size == 1

    def is_block_checksum_set(self) -> bool:
        return self.block_checksum == 1


class BD:
    """The frame descriptor's block-size byte."""

    def __init__(self, block_size_value: int = BLOCKSIZE_64KB, reserved2: int = 0, reserved3: int = 0) -> None:
        if reserved2 != 0 or reserved3 != 0:
            raise RuntimeError("Reserved fields must be 0")
        if block_size_value < 4 or block_size_value > 7:
            raise RuntimeError("Block size value must be between 4 and 7")
        self.block_size_value = block_size_value

    @staticmethod
    def from_byte(bd: int) -> BD:
        return BD((bd >> 4) & 7, bd & 15, (bd >> 7) & 1)

    def get_block_maximum_size(self) -> int:
        return 1 << ((2 * self.block_size_value) + 8)

    def to_byte(self) -> int:
        return (self.block_size_value & 7) << 4


class Lz4BlockOutputStream:
    """Writes one whole frame at once: header, 64 KiB blocks (stored raw when LZ4 does not shrink them), end mark."""

    def __init__(self, level: int, use_broken_flag_descriptor_checksum: bool = False,
                 block_checksum: bool = False) -> None:
        self.level = level
        self.use_broken_flag_descriptor_checksum = use_broken_flag_descriptor_checksum
        self.bd = BD(BLOCKSIZE_64KB)
        self.flg = FLG(block_checksum)
        self.max_block_size = self.bd.get_block_maximum_size()

    def _write_header(self, out: bytearray) -> None:
        out += _U32_LE.pack(MAGIC)
        out.append(self.flg.to_byte())
        out.append(self.bd.to_byte())
        # Magic v0 clients hashed the magic too; their readers expect that.
        descriptor = out[-6:] if self.use_broken_flag_descriptor_checksum else out[-2:]
        out.append((xxhash32(descriptor) >> 8) & 0xFF)

    def _write_block(self, block: bytes, out: bytearray) -> None:
        # Kafka uses the fast compressor at the default level and the high compressor otherwise.
        if self.level == 9:
            compressed = bytes(cramjam.lz4.compress_block(block, store_size=False))
        else:
            compressed = bytes(cramjam.lz4.compress_block(block, mode="high_compression", compression=self.level,
                                                          store_size=False))
        if len(compressed) >= len(block):
            out += _U32_LE.pack(len(block) | LZ4_FRAME_INCOMPRESSIBLE_MASK)
            to_write = block
        else:
            out += _U32_LE.pack(len(compressed))
            to_write = compressed
        out += to_write
        if self.flg.is_block_checksum_set():
            out += _U32_LE.pack(xxhash32(to_write))

    def compress(self, data: bytes | bytearray | memoryview) -> bytes:
        out = bytearray()
        self._write_header(out)
        data = bytes(data)
        for start in range(0, len(data), self.max_block_size):
            self._write_block(data[start:start + self.max_block_size], out)
        out += _U32_LE.pack(0)  # end mark
        return bytes(out)
