"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/modern/AssignmentTest.java (Kafka 3.9).

AssignmentTestUtil's helpers come from its port, assignment_test_util; topic ids are uuid.UUID
(Uuid.randomUuid() -> uuid.uuid4()). Java's NullPointerException is a TypeError.
"""

from __future__ import annotations

import uuid

import pytest

from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_target_assignment_member_value import (  # noqa: E501
    ConsumerGroupTargetAssignmentMemberValue,
    TopicPartition,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.assignment import Assignment
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.assignment_test_util import (
    mk_assignment,
    mk_topic_assignment,
)

KAFKA = kafka_test_class(
    "3.9", "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/modern/AssignmentTest.java",
    cases=["testPartitionsCannotBeNull", "testAttributes", "testFromTargetAssignmentRecord", "testEquals"],
)


def test_partitions_cannot_be_null() -> None:
    with pytest.raises(TypeError):
        Assignment(None)  # type: ignore[arg-type]


def test_attributes() -> None:
    partitions = mk_assignment(mk_topic_assignment(uuid.uuid4(), 1, 2, 3))
    assignment = Assignment(partitions)
    assert assignment.partitions() == partitions


def test_from_target_assignment_record() -> None:
    topic_id1 = uuid.uuid4()
    topic_id2 = uuid.uuid4()

    partitions = [
        TopicPartition(topic_id=topic_id1, partitions=[1, 2, 3]),
        TopicPartition(topic_id=topic_id2, partitions=[4, 5, 6]),
    ]

    record = ConsumerGroupTargetAssignmentMemberValue(topic_partitions=partitions)

    assignment = Assignment.from_record(record)

    assert assignment.partitions() == mk_assignment(
        mk_topic_assignment(topic_id1, 1, 2, 3),
        mk_topic_assignment(topic_id2, 4, 5, 6),
    )


def test_equals() -> None:
    partitions = mk_assignment(mk_topic_assignment(uuid.uuid4(), 1, 2, 3))

    assert Assignment(partitions) == Assignment(partitions)
