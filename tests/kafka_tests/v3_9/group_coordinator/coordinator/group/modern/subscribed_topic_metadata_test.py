"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/modern/SubscribedTopicMetadataTest.java
(Kafka 3.9): it tests SubscribedTopicDescriberImpl. The @BeforeEach is the `state` fixture; Java's
NullPointerException is TypeError."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import pytest

from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.subscribed_topic_describer_impl import (
    SubscribedTopicDescriberImpl,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.topic_metadata import TopicMetadata
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.assignment_test_util import mk_map_of_partition_racks

KAFKA = kafka_test_class(
    "3.9", "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/modern/SubscribedTopicMetadataTest.java",
    cases=[
        "testAttribute",
        "testTopicMetadataCannotBeNull",
        "testNumberOfPartitions",
        "testRacksForPartition",
        "testEquals",
    ],
)


@dataclass
class _State:
    topic_metadata_map: dict[uuid.UUID, TopicMetadata]
    subscribed_topic_metadata: SubscribedTopicDescriberImpl


@pytest.fixture
def state() -> _State:
    topic_metadata_map: dict[uuid.UUID, TopicMetadata] = {}
    for i in range(5):
        topic_id = uuid.uuid4()
        topic_metadata_map[topic_id] = TopicMetadata(topic_id, f"topic{i}", 5, mk_map_of_partition_racks(5))
    return _State(topic_metadata_map, SubscribedTopicDescriberImpl(topic_metadata_map))


def test_attribute(state: _State):
    assert state.subscribed_topic_metadata.topic_metadata() == state.topic_metadata_map


def test_topic_metadata_cannot_be_null():
    with pytest.raises(TypeError):
        SubscribedTopicDescriberImpl(None)  # type: ignore[arg-type]


def test_number_of_partitions(state: _State):
    topic_id = uuid.uuid4()

    # an unknown topic has -1 partitions
    assert state.subscribed_topic_metadata.num_partitions(topic_id) == -1

    state.topic_metadata_map[topic_id] = TopicMetadata(topic_id, "topic6", 3, {})

    assert state.subscribed_topic_metadata.num_partitions(topic_id) == 3


def test_racks_for_partition(state: _State):
    topic_id = uuid.uuid4()

    # unknown topic: no racks
    assert state.subscribed_topic_metadata.racks_for_partition(topic_id, 0) == set()

    partition_racks = mk_map_of_partition_racks(3)
    state.topic_metadata_map[topic_id] = TopicMetadata(topic_id, "topic6", 3, partition_racks)

    # unknown partition: no racks
    assert state.subscribed_topic_metadata.racks_for_partition(topic_id, 4) == set()

    assert state.subscribed_topic_metadata.racks_for_partition(topic_id, 2) == partition_racks[2]

    # a topic without rack information: no racks
    topic_id = uuid.uuid4()
    state.topic_metadata_map[topic_id] = TopicMetadata(topic_id, "topic6", 3, {})

    assert state.subscribed_topic_metadata.racks_for_partition(topic_id, 1) == set()


def test_equals(state: _State):
    assert SubscribedTopicDescriberImpl(state.topic_metadata_map) == state.subscribed_topic_metadata

    topic_metadata_map2: dict[uuid.UUID, TopicMetadata] = {}
    topic_id = uuid.uuid4()
    topic_metadata_map2[topic_id] = TopicMetadata(topic_id, "newTopic", 5, {})
    assert SubscribedTopicDescriberImpl(topic_metadata_map2) != state.subscribed_topic_metadata
