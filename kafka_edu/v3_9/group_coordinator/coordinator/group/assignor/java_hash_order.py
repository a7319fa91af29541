"""Our own code, not a Kafka port: java.util.HashSet's iteration order, which Kafka's assignors depend on.

The uniform assignors walk HashSets of topic ids and of topic-id partitions, and their answer (which member gets
which partition when several choices are equally good) follows that walk. A HashSet iterates its table's buckets in
index order, each bucket in insertion order; a bucket is the element's hashCode, spread (h ^ h >>> 16), masked by
the table's size, a power of two that doubles when the set grows past 3/4 of it and never shrinks. JavaHashSet
keeps its elements in a dict (insertion order) and the table size, and sorts by bucket when iterated, so a port
walks its elements as Kafka would, whatever Python's own hash of them. (Buckets that Java turns into trees, eight
colliding elements in a table of 64 or more, are not modelled: their order is taken as insertion order.)
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, MutableSet
from typing import Any, TypeVar

from kafka_edu.v3_9.clients.common.utils.utils import java_string_hash_code
from kafka_edu.v3_9.server_common.server.common.topic_id_partition import TopicIdPartition

T = TypeVar("T")
DEFAULT_INITIAL_CAPACITY = 16
LOAD_FACTOR = 0.75
MAXIMUM_CAPACITY = 1 << 30


def _int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= (1 << 31) else value


def java_hash_code(value: Any) -> int:
    """The hashCode Java gives the values the assignors put in hash sets (as a signed 32-bit int)."""
    if isinstance(value, bool):
        return 1231 if value else 1237
    if isinstance(value, int):  # Integer.hashCode
        return _int32(value)
    if isinstance(value, str):
        return java_string_hash_code(value)
    if isinstance(value, uuid.UUID):  # Uuid.hashCode: the two halves xor-ed, folded to 32 bits
        msb, lsb = value.int >> 64, value.int & ((1 << 64) - 1)
        xor = (msb ^ lsb) & ((1 << 64) - 1)
        return _int32((xor >> 32) ^ xor)
    if isinstance(value, TopicIdPartition):  # Objects.hash(topicId, partitionId)
        return _int32(31 * (31 + java_hash_code(value.topic_id)) + java_hash_code(value.partition_id))
    raise TypeError(f"no Java hashCode known for {type(value).__name__}")


def table_size_for(capacity: int) -> int:
    """HashMap.tableSizeFor: the smallest power of two at least capacity."""
    size = 1
    while size < capacity and size < MAXIMUM_CAPACITY:
        size <<= 1
    return size


def _bucket(value: Any, table_size: int) -> int:
    h = java_hash_code(value) & 0xFFFFFFFF
    return (h ^ (h >> 16)) & (table_size - 1)


class JavaHashSet(MutableSet[T]):
    """A set that iterates in java.util.HashSet's order.

    `JavaHashSet()` is `new HashSet<>()`; `JavaHashSet(items)` is `new HashSet<>(collection)`, whose table is sized
    for the collection up front (which can differ from adding the same items one by one)."""

    def __init__(self, items: Iterable[T] | None = None, initial_capacity: int | None = None) -> None:
        self._items: dict[T, None] = {}
        self._order: list[T] | None = None
        if items is not None:
            items = list(items)
            if initial_capacity is None:
                initial_capacity = max(int(len(items) / LOAD_FACTOR) + 1, DEFAULT_INITIAL_CAPACITY)
        self._table_size = table_size_for(initial_capacity or DEFAULT_INITIAL_CAPACITY)
        for item in items or ():
            self.add(item)

    def add(self, value: T) -> None:
        if value in self._items:
            return
        self._items[value] = None
        self._order = None
        if len(self._items) > int(self._table_size * LOAD_FACTOR) and self._table_size < MAXIMUM_CAPACITY:
            self._table_size <<= 1

    def discard(self, value: T) -> None:
        if value in self._items:
            del self._items[value]
            self._order = None

    def __contains__(self, value: object) -> bool:
        return value in self._items

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[T]:
        if self._order is None:
            size = self._table_size
            self._order = sorted(self._items, key=lambda item: _bucket(item, size))  # stable: insertion order
        return iter(list(self._order))

    def __repr__(self) -> str:
        return "{" + ", ".join(str(item) for item in self) + "}"


def java_hash_map_order(keys: Iterable[T]) -> list[T]:
    """The order `new HashMap<>()` given these keys by put, one by one, iterates them in."""
    puts: JavaHashSet[T] = JavaHashSet()
    for key in keys:
        puts.add(key)
    return list(puts)
