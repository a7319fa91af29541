"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/assignor/RangeSetTest.java (Kafka 3.9).

Java's iterator is a Python iterator (exhausted: StopIteration, Java's NoSuchElementException); the mutators'
UnsupportedOperationException is NotImplementedError.
"""

from __future__ import annotations

import pytest

from kafka_edu.v3_9.group_coordinator.coordinator.group.assignor.range_set import RangeSet
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/assignor/RangeSetTest.java",
    cases=[
        "testSize",
        "testIsEmpty",
        "testContains",
        "testIterator",
        "testUnsupportedOperations",
        "testToArray",
        "testToArrayWithArrayParameter",
        "testContainsAll",
        "testToString",
        "testEquals",
        "testHashCode",
    ],
)


def test_size():
    range_set = RangeSet(5, 10)
    assert range_set.size() == 5
    assert len(range_set) == 5


def test_is_empty():
    range_set = RangeSet(5, 5)
    assert range_set.is_empty()


def test_contains():
    range_set = RangeSet(5, 10)
    assert range_set.contains(5)
    assert range_set.contains(9)
    assert not range_set.contains(10)
    assert not range_set.contains(4)
    assert 7 in range_set and 10 not in range_set


def test_iterator():
    range_set = RangeSet(5, 10)
    iterator = range_set.iterator()
    for i in range(5, 10):
        assert next(iterator) == i
    with pytest.raises(StopIteration):
        next(iterator)


def test_unsupported_operations():
    range_set = RangeSet(5, 10)
    with pytest.raises(NotImplementedError):
        range_set.add(5)
    with pytest.raises(NotImplementedError):
        range_set.remove(5)
    with pytest.raises(NotImplementedError):
        range_set.add_all(None)
    with pytest.raises(NotImplementedError):
        range_set.retain_all(None)
    with pytest.raises(NotImplementedError):
        range_set.remove_all(None)
    with pytest.raises(NotImplementedError):
        range_set.clear()


def test_to_array():
    range_set = RangeSet(5, 10)
    assert range_set.to_array() == [5, 6, 7, 8, 9]


def test_to_array_with_array_parameter():
    range_set = RangeSet(5, 10)
    input_array = [None] * 5
    assert range_set.to_array(input_array) == [5, 6, 7, 8, 9]


def test_contains_all():
    range_set = RangeSet(5, 10)
    assert range_set.contains_all({5, 6, 7, 8, 9})
    assert not range_set.contains_all({5, 6, 10})


def test_to_string():
    range_set = RangeSet(5, 8)
    assert str(range_set) == "RangeSet(from=5 (inclusive), to=8 (exclusive))"


def test_equals():
    range_set1 = RangeSet(5, 10)
    range_set2 = RangeSet(5, 10)
    range_set3 = RangeSet(6, 10)
    set_ = {5, 6, 7, 8, 9}
    hash_set = set({6, 7, 8, 9})

    assert range_set1 == range_set2
    assert range_set1 != range_set3
    assert range_set1 == set_
    assert range_set3 == hash_set
    assert range_set1 != object()


def test_hash_code():
    range_set1 = RangeSet(5, 10)
    range_set2 = RangeSet(5, 10)
    range_set3 = RangeSet(6, 10)

    assert hash(range_set1) == hash(range_set2)
    assert hash(range_set1) != hash(range_set3)
