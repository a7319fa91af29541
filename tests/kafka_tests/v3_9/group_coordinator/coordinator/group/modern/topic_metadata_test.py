"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/modern/TopicMetadataTest.java (Kafka 3.9).

Java's NullPointerException (Objects.requireNonNull) is TypeError. The record's topic id is kio's uuid.UUID, as in
the port's other generated records.
"""

from __future__ import annotations

import uuid

import pytest

from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_partition_metadata_value import (
    TopicMetadata as TopicMetadataRecord,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.topic_metadata import TopicMetadata
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.assignment_test_util import (
    mk_list_of_partition_racks,
    mk_map_of_partition_racks,
)

KAFKA = kafka_test_class(
    "3.9", "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/modern/TopicMetadataTest.java",
    cases=[
        "testAttributes",
        "testTopicIdAndNameCannotBeNull",
        "testEquals",
        "testFromRecord",
    ],
)


def test_attributes():
    topic_id = uuid.uuid4()
    partition_racks = mk_map_of_partition_racks(15)
    topic_metadata = TopicMetadata(topic_id, "foo", 15, partition_racks)

    assert topic_metadata.id() == topic_id
    assert topic_metadata.name() == "foo"
    assert topic_metadata.num_partitions() == 15
    assert topic_metadata.partition_racks() == partition_racks


def test_topic_id_and_name_cannot_be_null():
    with pytest.raises(TypeError):
        TopicMetadata(uuid.uuid4(), None, 15, {})  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        TopicMetadata(None, "foo", 15, {})  # type: ignore[arg-type]


def test_equals():
    topic_id = uuid.uuid4()
    partition_racks = mk_map_of_partition_racks(15)
    topic_metadata = TopicMetadata(topic_id, "foo", 15, partition_racks)

    assert TopicMetadata(topic_id, "foo", 15, partition_racks) == topic_metadata
    assert TopicMetadata(topic_id, "foo", 5, mk_map_of_partition_racks(5)) != topic_metadata


def test_from_record():
    topic_id = uuid.uuid4()
    topic_name = "foo"

    record = TopicMetadataRecord(topic_id=topic_id, topic_name=topic_name,
                                 num_partitions=15, partition_metadata=mk_list_of_partition_racks(15))

    assert TopicMetadata.from_record(record) == TopicMetadata(topic_id, topic_name, 15, mk_map_of_partition_racks(15))
