"""Port of core/src/main/scala/kafka/log/OffsetMap.scala (Kafka 1.0.2): the log cleaner's key -> latest offset map,
an open-addressing hash table over one fixed buffer that stores a digest of each key (MD5) instead of the key."""

from __future__ import annotations

import hashlib
import struct
from abc import ABC, abstractmethod

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException

_INT_MIN = -(2**31)


def _to_int32(value: int) -> int:
    """Java int arithmetic: wrap to 32 bits, signed."""
    value &= 0xFFFFFFFF
    return value - 2**32 if value >= 2**31 else value


def _abs(n: int) -> int:
    """Utils.abs: Math.abs, except that Integer.MIN_VALUE maps to 0 (its absolute value is no int)."""
    return 0 if n == _INT_MIN else abs(n)


class OffsetMap(ABC):
    """The map's interface (the trait OffsetMap)."""

    @property
    @abstractmethod
    def slots(self) -> int: ...

    @abstractmethod
    def put(self, key: bytes, offset: int) -> None: ...

    @abstractmethod
    def get(self, key: bytes) -> int: ...

    @abstractmethod
    def update_latest_offset(self, offset: int) -> None: ...

    @abstractmethod
    def clear(self) -> None: ...

    @property
    @abstractmethod
    def size(self) -> int: ...

    @property
    def utilization(self) -> float:
        return self.size / self.slots

    @property
    @abstractmethod
    def latest_offset(self) -> int: ...


class SkimpyOffsetMap(OffsetMap):
    """`memory` bytes of (digest, offset) entries; a lookup probes from the slot the digest's first bytes name.

    Not thread-safe: each cleaner thread has its own.
    """

    def __init__(self, memory: int, hash_algorithm: str = "MD5") -> None:
        self.memory = memory
        self.hash_algorithm = hash_algorithm
        try:
            self._hash_size = hashlib.new(hash_algorithm.lower().replace("-", "")).digest_size
        except ValueError as e:
            raise IllegalArgumentException(f"{hash_algorithm} MessageDigest not available") from e
        self._bytes = bytearray(memory)
        self._entries = 0
        self._lookups = 0
        self._probes = 0
        self._last_offset = -1
        self.bytes_per_entry = self._hash_size + 8
        self._slots = memory // self.bytes_per_entry

    @property
    def slots(self) -> int:
        return self._slots

    def put(self, key: bytes, offset: int) -> None:
        """Record `offset` as the latest for `key`, overwriting the entry of an equal digest."""
        if self._entries >= self._slots:
            raise IllegalArgumentException("requirement failed: Attempt to add a new entry to a full offset map.")
        self._lookups += 1
        hash1 = self._hash(key)
        attempt = 0
        pos = self._position_of(hash1, attempt)
        while not self._is_empty(pos):
            if self._bytes[pos:pos + self._hash_size] == hash1:
                struct.pack_into(">q", self._bytes, pos + self._hash_size, offset)
                self._last_offset = offset
                return
            attempt += 1
            pos = self._position_of(hash1, attempt)
        self._bytes[pos:pos + self._hash_size] = hash1
        struct.pack_into(">q", self._bytes, pos + self._hash_size, offset)
        self._last_offset = offset
        self._entries += 1

    def _is_empty(self, position: int) -> bool:
        # Kafka reads three longs: the whole entry of a 16-byte digest.
        return not any(self._bytes[position:position + 24])

    def get(self, key: bytes) -> int:
        """The offset stored for `key`'s digest, or -1."""
        self._lookups += 1
        hash1 = self._hash(key)
        attempt = 0
        max_attempts = self._slots + self._hash_size - 4
        while True:
            if attempt >= max_attempts:
                return -1
            pos = self._position_of(hash1, attempt)
            if self._is_empty(pos):
                return -1
            hash2 = self._bytes[pos:pos + self._hash_size]
            attempt += 1
            if hash1 == hash2:
                return struct.unpack_from(">q", self._bytes, pos + self._hash_size)[0]

    def clear(self) -> None:
        """Forget every entry. A new zeroed buffer is the same as Kafka's fill with zeros (and leaves its pages to
        the OS until used)."""
        self._entries = 0
        self._lookups = 0
        self._probes = 0
        self._last_offset = -1
        self._bytes = bytearray(self.memory)

    @property
    def size(self) -> int:
        return self._entries

    @property
    def collision_rate(self) -> float:
        return (self._probes - self._lookups) / self._lookups

    @property
    def latest_offset(self) -> int:
        return self._last_offset

    def update_latest_offset(self, offset: int) -> None:
        self._last_offset = offset

    def _position_of(self, hash_: bytes, attempt: int) -> int:
        """The entry position of probe `attempt`: an int read further into the digest each attempt, then + 1."""
        read = struct.unpack_from(">i", hash_, min(attempt, self._hash_size - 4))[0]
        probe = _to_int32(read + max(0, attempt - self._hash_size + 4))
        slot = _abs(probe) % self._slots
        self._probes += 1
        return slot * self.bytes_per_entry

    def _hash(self, key: bytes) -> bytes:
        return hashlib.new(self.hash_algorithm.lower().replace("-", ""), bytes(key)).digest()
