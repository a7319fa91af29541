"""Port of clients/src/main/java/org/apache/kafka/common/record/CompressionType.java (Kafka 3.9): the codec ids of
the batch attributes and each codec's compression levels; the codecs themselves live in common/compress."""

from __future__ import annotations

import enum

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException

# Deflater.BEST_SPEED, BEST_COMPRESSION and DEFAULT_COMPRESSION.
_GZIP_LEVELS = (1, 9, -1)
_LZ4_LEVELS = (1, 17, 9)
_ZSTD_LEVELS = (-131072, 22, 3)


class CompressionType(enum.Enum):
    """`name_` is Kafka's `name`, the value compression.type takes (Enum already owns `name`)."""

    NONE = 0, "none", 1.0
    GZIP = 1, "gzip", 1.0
    SNAPPY = 2, "snappy", 1.0
    LZ4 = 3, "lz4", 1.0
    ZSTD = 4, "zstd", 1.0

    def __init__(self, id: int, name_: str, rate: float) -> None:
        self.id = id
        self.name_ = name_
        self.rate = rate

    @staticmethod
    def for_id(id: int) -> CompressionType:
        for codec in CompressionType:
            if codec.id == id:
                return codec
        raise IllegalArgumentException(f"Unknown compression type id: {id}")

    @staticmethod
    def for_name(name: str) -> CompressionType:
        for codec in CompressionType:
            if codec.name_ == name:
                return codec
        raise IllegalArgumentException(f"Unknown compression name: {name}")

    def _levels(self) -> tuple[int, int, int]:
        levels = {CompressionType.GZIP: _GZIP_LEVELS, CompressionType.LZ4: _LZ4_LEVELS,
                  CompressionType.ZSTD: _ZSTD_LEVELS}.get(self)
        if levels is None:
            raise NotImplementedError(f"Compression levels are not defined for this compression type: {self.name_}")
        return levels

    def default_level(self) -> int:
        return self._levels()[2]

    def max_level(self) -> int:
        return self._levels()[1]

    def min_level(self) -> int:
        return self._levels()[0]

    def __str__(self) -> str:
        return self.name_
