"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/modern/AssignmentTest.java (Kafka 3.9).

AssignmentTestUtil's helpers come from its port, assignment_test_util; topic ids are uuid.UUID, drawn from
Uuid.randomUuid(). Java's NullPointerException is a TypeError.
"""

from __future__ import annotations

import uuid

import pytest

from kafka_edu.v3_9.clients.common.uuid import Uuid
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


def random_topic_id() -> uuid.UUID:
    """Uuid.randomUuid() as the uuid.UUID topic ids are carried in."""
    return uuid.UUID(bytes=Uuid.random_uuid().to_bytes())


def test_partitions_cannot_be_null() -> None:
    with pytest.raises(TypeError):
        Assignment(None)  # type: ignore[arg-type]


def test_attributes() -> None:
    partitions = mk_assignment(mk_topic_assignment(random_topic_id(), 1, 2, 3))
    assignment = Assignment(partitions)
    assert assignment.partitions() == partitions


def test_from_target_assignment_record() -> None:
    topic_id1 = random_topic_id()
    topic_id2 = random_topic_id()

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
    partitions = mk_assignment(mk_topic_assignment(random_topic_id(), 1, 2, 3))

    assert Assignment(partitions) == Assignment(partitions)
