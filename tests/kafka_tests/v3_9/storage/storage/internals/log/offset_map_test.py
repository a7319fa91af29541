"""Port of storage/src/test/java/org/apache/kafka/storage/internals/log/OffsetMapTest.java (Kafka 3.9)."""

from __future__ import annotations

import pytest

from kafka_edu.v3_9.storage.storage.internals.log.skimpy_offset_map import SkimpyOffsetMap
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "storage/src/test/java/org/apache/kafka/storage/internals/log/OffsetMapTest.java",
    cases=["testBasicValidation", "testClear", "testGetWhenFull", "testUpdateLatestOffset", "testLatestOffset",
           "testUtilization"],
)

MEMORY_SIZE = 4096


def key(key: int) -> bytes:
    return str(key).encode()


def _fill(map: SkimpyOffsetMap) -> int:
    i = 37
    while map.size() < map.slots():
        map.put(key(i), i)
        i += 1
    return i


@pytest.mark.parametrize("items", [10, 100, 1000, 5000])
def test_basic_validation(items: int) -> None:
    map = SkimpyOffsetMap(items * 48)
    for i in range(items):
        map.put(key(i), i)
    for i in range(items):
        assert map.get(key(i)) == i


def test_clear() -> None:
    map = SkimpyOffsetMap(MEMORY_SIZE)
    for i in range(10):
        map.put(key(i), i)
    for i in range(10):
        assert map.get(key(i)) == i
    map.clear()
    for i in range(10):
        assert map.get(key(i)) == -1


def test_get_when_full() -> None:
    map = SkimpyOffsetMap(MEMORY_SIZE)
    i = _fill(map)
    assert map.get(key(i)) == -1
    assert map.get(key(i - 1)) == i - 1


def test_update_latest_offset() -> None:
    map = SkimpyOffsetMap(MEMORY_SIZE)
    i = _fill(map)
    last_offsets = 40
    assert map.get(key(i - 1)) == i - 1
    map.update_latest_offset(last_offsets)
    assert map.get(key(last_offsets)) == last_offsets


def test_latest_offset() -> None:
    map = SkimpyOffsetMap(MEMORY_SIZE)
    i = _fill(map)
    assert map.latest_offset() == i - 1


def test_utilization() -> None:
    map = SkimpyOffsetMap(MEMORY_SIZE)
    i = 37
    assert map.utilization() == 0.0
    while map.size() < map.slots():
        map.put(key(i), i)
        assert map.utilization() == map.size() / map.slots()
        i += 1
