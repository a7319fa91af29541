"""Port of core/src/test/scala/unit/kafka/log/OffsetMapTest.scala (Kafka 1.0.2)."""

from __future__ import annotations

from kafka_edu.v1_0_2.core.log.offset_map import SkimpyOffsetMap
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "1.0.2", "core/src/test/scala/unit/kafka/log/OffsetMapTest.scala",
    cases=["testBasicValidation", "testClear", "testGetWhenFull"],
)


def key(k: int) -> bytes:
    return str(k).encode()


def validate_map(items: int, load_factor: float = 0.5) -> SkimpyOffsetMap:
    offset_map = SkimpyOffsetMap(int(items / load_factor * 24))
    for i in range(items):
        offset_map.put(key(i), i)
    for i in range(items):
        assert offset_map.get(key(i)) == i
    return offset_map


def test_basic_validation() -> None:
    validate_map(10)
    validate_map(100)
    validate_map(1000)
    validate_map(5000)


def test_clear() -> None:
    offset_map = SkimpyOffsetMap(4000)
    for i in range(10):
        offset_map.put(key(i), i)
    for i in range(10):
        assert offset_map.get(key(i)) == i
    offset_map.clear()
    for i in range(10):
        assert offset_map.get(key(i)) == -1


def test_get_when_full() -> None:
    offset_map = SkimpyOffsetMap(4096)
    i = 37  # any value would do
    while offset_map.size < offset_map.slots:
        offset_map.put(key(i), i)
        i += 1
    assert offset_map.get(key(i)) == -1
    assert offset_map.get(key(i - 1)) == i - 1
