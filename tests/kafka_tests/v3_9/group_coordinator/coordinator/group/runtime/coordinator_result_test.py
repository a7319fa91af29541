"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/runtime/CoordinatorResultTest.java
(Kafka 3.9).

Java's NullPointerException from Objects.requireNonNull is a TypeError in the port.
"""

from __future__ import annotations

import pytest

from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_result import CoordinatorResult
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/runtime/CoordinatorResultTest.java",
    cases=["testAttributes", "testRecordsCannotBeNull", "testEquals"],
)


def test_attributes():
    result = CoordinatorResult([], "response")
    assert result.records() == []
    assert result.response() == "response"


def test_records_cannot_be_null():
    with pytest.raises(TypeError):
        CoordinatorResult(None, "response")  # type: ignore[arg-type]


def test_equals():
    result1 = CoordinatorResult([], "response")
    result2 = CoordinatorResult([], "response")
    assert result1 == result2
