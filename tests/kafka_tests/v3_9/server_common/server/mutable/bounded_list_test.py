"""Port of server-common/src/test/java/org/apache/kafka/server/mutable/BoundedListTest.java (Kafka 3.9).

The port's BoundedList is a Python list: add(index, e) is insert, addAll(index, c) a slice assignment, remove(int)
`del`, toArray `list()`, listIterator(i) an iterator over the list from i. A sublist is a slice, a copy rather than
Java's unmodifiable view: testSubList checks that changing it leaves the list as it was.
"""

from __future__ import annotations

import pytest

from kafka_edu.v3_9.server_common.server.mutable.bounded_list import BoundedList, BoundedListTooLongException
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "server-common/src/test/java/org/apache/kafka/server/mutable/BoundedListTest.java",
    cases=["testMaxLengthMustNotBeZero", "testMaxLengthMustNotBeNegative", "testInitialCapacityMustNotBeZero",
           "testInitialCapacityMustNotBeNegative", "testAddingToBoundedList", "testHashCodeAndEqualsForNonEmptyList",
           "testSet", "testRemove", "testClear", "testGet", "testToArray", "testAddAll", "testIterator",
           "testIteratorIsImmutable", "testSubList"],
    not_applicable={"testIteratorIsImmutable": "a Python iterator has no remove: nothing to refuse"},
)


def test_max_length_must_not_be_zero() -> None:
    with pytest.raises(ValueError) as e:
        BoundedList.new_array_backed(0)
    assert str(e.value) == "Invalid non-positive maxLength of 0"
    with pytest.raises(ValueError) as e:
        BoundedList.new_array_backed(0, 100)
    assert str(e.value) == "Invalid non-positive maxLength of 0"


def test_max_length_must_not_be_negative() -> None:
    with pytest.raises(ValueError) as e:
        BoundedList.new_array_backed(-123)
    assert str(e.value) == "Invalid non-positive maxLength of -123"
    with pytest.raises(ValueError) as e:
        BoundedList.new_array_backed(-123, 100)
    assert str(e.value) == "Invalid non-positive maxLength of -123"


def test_initial_capacity_must_not_be_zero() -> None:
    with pytest.raises(ValueError) as e:
        BoundedList.new_array_backed(100, 0)
    assert str(e.value) == "Invalid non-positive initialCapacity of 0"


def test_initial_capacity_must_not_be_negative() -> None:
    with pytest.raises(ValueError) as e:
        BoundedList.new_array_backed(100, -123)
    assert str(e.value) == "Invalid non-positive initialCapacity of -123"


def test_adding_to_bounded_list() -> None:
    bounded = BoundedList.new_array_backed(2)
    assert len(bounded) == 0
    assert not bounded
    bounded.append(456)
    assert 456 in bounded
    assert len(bounded) == 1
    assert bounded
    bounded.append(789)
    with pytest.raises(BoundedListTooLongException) as e:
        bounded.append(912)
    assert str(e.value) == "Cannot add another element to the list because it would exceed the maximum length of 2"
    with pytest.raises(BoundedListTooLongException) as e:
        bounded.insert(0, 912)
    assert str(e.value) == "Cannot add another element to the list because it would exceed the maximum length of 2"


def test_hash_code_and_equals_for_non_empty_list() -> None:
    bounded = BoundedList.new_array_backed(7)
    other = [1, 2, 3, 4, 5, 6, 7]
    bounded.extend(other)
    assert bounded == other
    # Python lists have no hash code; equal lists are equal in every element, which is what Java's hash follows
    assert list(bounded) == other


def test_set() -> None:
    bounded = BoundedList.new_array_backed(3)
    bounded.append(1)
    bounded.append(200)
    bounded.append(3)
    assert bounded == [1, 200, 3]
    bounded[0] = 100
    bounded[1] = 200
    bounded[2] = 300
    assert bounded == [100, 200, 300]


def test_remove() -> None:
    bounded = BoundedList.new_array_backed(3)
    bounded.append("a")
    bounded.append("a")
    bounded.append("c")
    assert bounded.index("a") == 0
    assert len(bounded) - 1 - bounded[::-1].index("a") == 1
    bounded.remove("a")
    assert bounded == ["a", "c"]
    del bounded[0]
    assert bounded == ["c"]


def test_clear() -> None:
    bounded = BoundedList.new_array_backed(3)
    bounded.append("a")
    bounded.append("a")
    bounded.append("c")
    bounded.clear()
    assert bounded == []
    assert not bounded


def test_get() -> None:
    bounded = BoundedList.new_array_backed(3)
    bounded.append(1)
    bounded.append(2)
    bounded.append(3)
    assert bounded[0] == 1
    assert bounded[1] == 2
    assert bounded[2] == 3


def test_to_array() -> None:
    bounded = BoundedList.new_array_backed(3)
    bounded.append(1)
    bounded.append(2)
    bounded.append(3)
    assert list(bounded) == [1, 2, 3]
    assert tuple(bounded) == (1, 2, 3)


def test_add_all() -> None:
    bounded = BoundedList.new_array_backed(5)
    bounded.append("a")
    bounded.append("b")
    bounded.append("c")
    with pytest.raises(BoundedListTooLongException) as e:
        bounded.extend(["d", "e", "f"])
    assert str(e.value) == "Cannot add another 3 element(s) to the list because it would exceed the maximum length of 5"
    with pytest.raises(BoundedListTooLongException) as e:
        bounded[0:0] = ["d", "e", "f"]
    assert str(e.value) == "Cannot add another 3 element(s) to the list because it would exceed the maximum length of 5"
    bounded.extend(["d", "e"])
    assert bounded == ["a", "b", "c", "d", "e"]


def test_iterator() -> None:
    bounded = BoundedList.new_array_backed(3)
    bounded.append(1)
    bounded.append(2)
    bounded.append(3)
    assert next(iter(bounded)) == 1
    assert next(iter(bounded[2:])) == 3
    assert next(iter(bounded[3:]), None) is None


def test_sub_list() -> None:
    bounded = BoundedList.new_array_backed(3)
    bounded.append(1)
    bounded.append(2)
    bounded.append(3)
    assert bounded[1:2] == [2]
    sub = bounded[1:2]
    sub.remove(2)
    assert bounded == [1, 2, 3]
