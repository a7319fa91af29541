"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/modern/TopicIdsTest.java (Kafka 3.9).

Topic ids are uuid.UUID (Uuid.randomUuid() -> uuid.uuid4()); Java's NullPointerException is a TypeError.
"""

from __future__ import annotations

import uuid

import pytest

from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.topic_ids import TopicIds
from kafka_edu.v3_9.metadata.image.topics_image import TopicsImage
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.metadata_image_builder import MetadataImageBuilder

KAFKA = kafka_test_class(
    "3.9", "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/modern/TopicIdsTest.java",
    cases=["testTopicNamesCannotBeNull", "testTopicsImageCannotBeNull", "testSize", "testIsEmpty", "testContains",
           "testContainsAll", "testContainsAllOneTopicConversionFails", "testIterator",
           "testIteratorOneTopicConversionFails", "testEquals"],
)


def test_topic_names_cannot_be_null() -> None:
    with pytest.raises(TypeError):
        TopicIds(None, TopicsImage.EMPTY)  # type: ignore[arg-type]


def test_topics_image_cannot_be_null() -> None:
    with pytest.raises(TypeError):
        TopicIds(set(), None)  # type: ignore[arg-type]


def test_size() -> None:
    topic_names = {"foo", "bar", "baz"}
    topic_ids = TopicIds(topic_names, TopicsImage.EMPTY)
    assert topic_ids.size() == len(topic_names)


def test_is_empty() -> None:
    topic_names: set[str] = set()
    topic_ids = TopicIds(topic_names, TopicsImage.EMPTY)
    assert topic_ids.size() == len(topic_names)


def test_contains() -> None:
    foo_uuid, bar_uuid, baz_uuid, qux_uuid = uuid.uuid4(), uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    topics_image = (MetadataImageBuilder()
                    .add_topic(foo_uuid, "foo", 3)
                    .add_topic(bar_uuid, "bar", 3)
                    .add_topic(baz_uuid, "qux", 3)
                    .build()
                    .topics)

    topic_ids = TopicIds({"foo", "bar", "baz"}, topics_image)

    assert topic_ids.contains(foo_uuid)
    assert topic_ids.contains(bar_uuid)
    assert not topic_ids.contains(baz_uuid)
    assert not topic_ids.contains(qux_uuid)


def test_contains_all() -> None:
    foo_uuid, bar_uuid, baz_uuid, qux_uuid = uuid.uuid4(), uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    topics_image = (MetadataImageBuilder()
                    .add_topic(foo_uuid, "foo", 3)
                    .add_topic(bar_uuid, "bar", 3)
                    .add_topic(baz_uuid, "baz", 3)
                    .add_topic(qux_uuid, "qux", 3)
                    .build()
                    .topics)

    topic_ids = TopicIds({"foo", "bar", "baz", "qux"}, topics_image)

    assert topic_ids.contains(foo_uuid)
    assert topic_ids.contains(bar_uuid)
    assert topic_ids.contains(baz_uuid)
    assert topic_ids.contains(qux_uuid)
    assert topic_ids.contains_all({foo_uuid, bar_uuid, baz_uuid, qux_uuid})


def test_contains_all_one_topic_conversion_fails() -> None:
    # 'qux' is a name only: the image has no topic of that name
    foo_uuid, bar_uuid, baz_uuid, qux_uuid = uuid.uuid4(), uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    topics_image = (MetadataImageBuilder()
                    .add_topic(foo_uuid, "foo", 3)
                    .add_topic(bar_uuid, "bar", 3)
                    .add_topic(baz_uuid, "baz", 3)
                    .build()
                    .topics)

    topic_ids = TopicIds({"foo", "bar", "baz", "qux"}, topics_image)

    assert topic_ids.contains(foo_uuid)
    assert topic_ids.contains(bar_uuid)
    assert topic_ids.contains(baz_uuid)
    assert topic_ids.contains_all({foo_uuid, bar_uuid, baz_uuid})
    assert not topic_ids.contains_all({foo_uuid, bar_uuid, baz_uuid, qux_uuid})


def test_iterator() -> None:
    foo_uuid, bar_uuid, baz_uuid, qux_uuid = uuid.uuid4(), uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    topics_image = (MetadataImageBuilder()
                    .add_topic(foo_uuid, "foo", 3)
                    .add_topic(bar_uuid, "bar", 3)
                    .add_topic(baz_uuid, "baz", 3)
                    .add_topic(qux_uuid, "qux", 3)
                    .build()
                    .topics)

    topic_ids = TopicIds({"foo", "bar", "baz", "qux"}, topics_image)
    expected_ids = {foo_uuid, bar_uuid, baz_uuid, qux_uuid}
    actual_ids = set(topic_ids)

    assert actual_ids == expected_ids


def test_iterator_one_topic_conversion_fails() -> None:
    # 'qux' is in the image but not subscribed; 'quux' is subscribed but not in the image
    foo_uuid, bar_uuid, baz_uuid, qux = uuid.uuid4(), uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    topics_image = (MetadataImageBuilder()
                    .add_topic(foo_uuid, "foo", 3)
                    .add_topic(bar_uuid, "bar", 3)
                    .add_topic(baz_uuid, "baz", 3)
                    .add_topic(qux, "qux", 3)
                    .build()
                    .topics)

    topic_ids = TopicIds({"foo", "bar", "baz", "quux"}, topics_image)
    expected_ids = {foo_uuid, bar_uuid, baz_uuid}
    actual_ids = set(topic_ids)

    assert actual_ids == expected_ids


def test_equals() -> None:
    topic_id = uuid.uuid4()
    topic_ids1 = TopicIds({"topic"}, MetadataImageBuilder().add_topic(topic_id, "topicId", 3).build().topics)
    topic_ids2 = TopicIds({"topic"}, MetadataImageBuilder().add_topic(topic_id, "topicId", 3).build().topics)

    assert topic_ids1 == topic_ids2
