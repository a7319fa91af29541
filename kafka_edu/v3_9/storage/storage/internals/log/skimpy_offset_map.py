"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/SkimpyOffsetMap.java (Kafka 3.9): an
OffsetMap as an open-addressing hash table in one fixed buffer that stores each key's digest (MD5), not the key."""

from __future__ import annotations

import hashlib
import struct

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.storage.storage.internals.log.offset_map import OffsetMap

_INT_MIN = -(2**31)


def _to_int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - 2**32 if value >= 2**31 else value


def _abs(n: int) -> int:
    """Utils.abs: Integer.MIN_VALUE maps to 0."""
    return 0 if n == _INT_MIN else abs(n)


class SkimpyOffsetMap(OffsetMap):
    """`memory` bytes of (digest, offset) entries; a lookup probes from the slot the digest's first bytes name, then
    the next 4-byte windows of the digest, then linearly. An all-zero entry is an empty slot."""

    def __init__(self, memory: int, hash_algorithm: str = "MD5") -> None:
        self._bytes = bytearray(memory)
        self._hash_algorithm = hash_algorithm.lower().replace("-", "")
        self._hash_size = hashlib.new(self._hash_algorithm).digest_size
        self.bytes_per_entry = self._hash_size + 8
        self._slots = memory // self.bytes_per_entry
        self._entries = 0
        self._lookups = 0
        self._probes = 0
        self._last_offset = -1

    def slots(self) -> int:
        return self._slots

    def get(self, key: bytes) -> int:
        self._lookups += 1
        hash1 = self._hash(key)
        attempt = 0
        # a full map would probe forever: after the digest windows, at most one linear pass over the slots
        max_attempts = self._slots + self._hash_size - 4
        while True:
            if attempt >= max_attempts:
                return -1
            pos = self._position_of(hash1, attempt)
            if self._is_empty(pos):
                return -1
            hash2 = bytes(self._bytes[pos:pos + self._hash_size])
            attempt += 1
            if hash1 == hash2:
                return struct.unpack_from(">q", self._bytes, pos + self._hash_size)[0]

    def put(self, key: bytes, offset: int) -> None:
        if self._entries >= self._slots:
            raise IllegalArgumentException(f"Attempted to add a new entry to a full offset map, entries: "
                                           f"{self._entries}, slots: {self._slots}")
        self._lookups += 1
        hash1 = self._hash(key)
        attempt = 0
        pos = self._position_of(hash1, attempt)
        while not self._is_empty(pos):
            if bytes(self._bytes[pos:pos + self._hash_size]) == hash1:
                # the key is there: a newer offset, the size stays
                struct.pack_into(">q", self._bytes, pos + self._hash_size, offset)
                self._last_offset = offset
                return
            attempt += 1
            pos = self._position_of(hash1, attempt)
        self._bytes[pos:pos + self._hash_size] = hash1
        struct.pack_into(">q", self._bytes, pos + self._hash_size, offset)
        self._last_offset = offset
        self._entries += 1

    def update_latest_offset(self, offset: int) -> None:
        self._last_offset = offset

    def clear(self) -> None:
        self._entries = 0
        self._lookups = 0
        self._probes = 0
        self._last_offset = -1
        self._bytes[:] = bytes(len(self._bytes))

    def size(self) -> int:
        return self._entries

    def latest_offset(self) -> int:
        return self._last_offset

    def collision_rate(self) -> float:
        return (self._probes - self._lookups) / self._lookups

    def _is_empty(self, position: int) -> bool:
        return not any(self._bytes[position:position + 24])

    def _position_of(self, hash: bytes, attempt: int) -> int:
        window = min(attempt, self._hash_size - 4)
        probe = _to_int32(struct.unpack_from(">i", hash, window)[0] + max(0, attempt - self._hash_size + 4))
        slot = _abs(probe) % self._slots
        self._probes += 1
        return slot * self.bytes_per_entry

    def _hash(self, key: bytes) -> bytes:
        return hashlib.new(self._hash_algorithm, bytes(key)).digest()
