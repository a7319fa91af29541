"""Port of clients/src/test/java/org/apache/kafka/clients/FetchSessionHandlerTest.java (Kafka 3.9).

Uuid.randomUuid() is a random uuid.UUID (the ids kio carries), Uuid.ZERO_UUID is fetch_request.ZERO_UUID; Java's
TreeSet of partitions (sorted by name) is a list sorted the same way.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping

import pytest

from kafka_edu.v3_9.clients.clients.fetch_session_handler import FetchSessionHandler
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.fetch_metadata import INITIAL_EPOCH, INVALID_SESSION_ID, next_epoch
from kafka_edu.v3_9.clients.common.requests.fetch_request import ZERO_UUID, PartitionData
from kafka_edu.v3_9.clients.common.requests.fetch_response import (
    INVALID_HIGH_WATERMARK,
    FetchResponse,
    partition_data,
)
from kafka_edu.v3_9.clients.common.topic_id_partition import TopicIdPartition
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "clients/src/test/java/org/apache/kafka/clients/FetchSessionHandlerTest.java",
    cases=["testFindMissing", "testSessionless", "testIncrementals", "testDoubleBuild",
           "testIncrementalPartitionRemoval", "testTopicIdUsageGrantedOnIdUpgrade", "testIdUsageRevokedOnIdDowngrade",
           "testTopicIdReplaced", "testSessionEpochWhenMixedUsageOfTopicIDs", "testIdUsageWithAllForgottenPartitions",
           "testOkToAddNewIdAfterTopicRemovedFromSession", "testVerifyFullFetchResponsePartitions",
           "testVerifyFullFetchResponsePartitionsWithTopicIds", "testTopLevelErrorResetsMetadata"],
)

LOG_PREFIX = "[FetchSessionHandler]="
LATEST = ApiKeys.FETCH.latest_version


def to_set(*arr: TopicPartition) -> list[TopicPartition]:
    return sorted(set(arr), key=str)


def req_entry(topic: str, topic_id: uuid.UUID, partition: int, fetch_offset: int, log_start_offset: int,
              max_bytes: int) -> tuple[TopicPartition, PartitionData]:
    return TopicPartition(topic, partition), PartitionData(topic_id, fetch_offset, log_start_offset, max_bytes, None)


def req_map(*entries: tuple[TopicPartition, PartitionData]) -> dict[TopicPartition, PartitionData]:
    return dict(entries)


def assert_map_equals(expected: Mapping[TopicPartition, PartitionData],
                      actual: Mapping[TopicPartition, PartitionData]) -> None:
    """In order: same partitions, same data."""
    assert list(expected.items()) == list(actual.items())


def assert_maps_equal(expected: Mapping[TopicPartition, PartitionData],
                      *actuals: Mapping[TopicPartition, PartitionData]) -> None:
    for actual in actuals:
        assert_map_equals(expected, actual)


def assert_list_equals(expected: list[TopicIdPartition], actual: list[TopicIdPartition]) -> None:
    for expected_part in expected:
        assert expected_part in actual, f"Failed to find expected partition {expected_part}"
    for actual_part in actual:
        assert actual_part in expected, f"Found unexpected partition {actual_part}"


def resp_entry(topic: str, partition: int, topic_id: uuid.UUID, high_watermark: int = 0,
               last_stable_offset: int = 0, error: Errors | None = None) -> tuple[TopicIdPartition, object]:
    part = TopicIdPartition(topic_id, TopicPartition(topic, partition))
    if error is not None:
        return part, partition_data(partition_index=partition, error_code=error,
                                    high_watermark=INVALID_HIGH_WATERMARK)
    return part, partition_data(partition_index=partition, high_watermark=high_watermark,
                                last_stable_offset=last_stable_offset, log_start_offset=0)


def resp_map(*entries: tuple[TopicIdPartition, object]) -> dict[TopicIdPartition, object]:
    return dict(entries)


def add_topic_id(topic_ids: dict[str, uuid.UUID], topic_names: dict[uuid.UUID, str], name: str,
                 version: int) -> None:
    if version >= 13:
        topic_id = uuid.uuid4()
        topic_ids[name] = topic_id
        topic_names[topic_id] = name


def new_handler() -> FetchSessionHandler:
    return FetchSessionHandler(LOG_PREFIX, 1)


def test_find_missing() -> None:
    foo0, foo1 = TopicPartition("foo", 0), TopicPartition("foo", 1)
    bar0, bar1 = TopicPartition("bar", 0), TopicPartition("bar", 1)
    baz0, baz1 = TopicPartition("baz", 0), TopicPartition("baz", 1)
    find_missing = FetchSessionHandler.find_missing
    assert to_set() == to_set(*find_missing(to_set(foo0), set(to_set(foo0))))
    assert to_set(foo0) == to_set(*find_missing(to_set(foo0), set(to_set(foo1))))
    assert to_set(foo0, foo1) == to_set(*find_missing(to_set(foo0, foo1), set(to_set(baz0))))
    assert to_set(bar1, foo0, foo1) == to_set(*find_missing(to_set(foo0, foo1, bar0, bar1),
                                                            set(to_set(bar0, baz0, baz1))))
    assert to_set() == to_set(*find_missing(to_set(foo0, foo1, bar0, bar1, baz1),
                                            set(to_set(foo0, foo1, bar0, bar1, baz0, baz1))))


def test_sessionless() -> None:
    topic_ids: dict[str, uuid.UUID] = {}
    topic_names: dict[uuid.UUID, str] = {}
    # older versions without topic ids and newer ones with them
    for version in (12, LATEST):
        handler = new_handler()
        builder = handler.new_builder()
        add_topic_id(topic_ids, topic_names, "foo", version)
        foo_id = topic_ids.get("foo", ZERO_UUID)
        builder.add(TopicPartition("foo", 0), PartitionData(foo_id, 0, 100, 200, None))
        builder.add(TopicPartition("foo", 1), PartitionData(foo_id, 10, 110, 210, None))
        data = builder.build()
        assert_maps_equal(req_map(req_entry("foo", foo_id, 0, 0, 100, 200), req_entry("foo", foo_id, 1, 10, 110, 210)),
                          data.to_send(), data.session_partitions())
        assert data.metadata().session_id == INVALID_SESSION_ID
        assert data.metadata().epoch == INITIAL_EPOCH

        resp = FetchResponse.of(Errors.NONE, 0, INVALID_SESSION_ID,
                                resp_map(resp_entry("foo", 0, foo_id, 0, 0), resp_entry("foo", 1, foo_id, 0, 0)))
        handler.handle_response(resp, version)

        builder2 = handler.new_builder()
        builder2.add(TopicPartition("foo", 0), PartitionData(foo_id, 0, 100, 200, None))
        data2 = builder2.build()
        assert data2.metadata().session_id == INVALID_SESSION_ID
        assert data2.metadata().epoch == INITIAL_EPOCH
        assert_maps_equal(req_map(req_entry("foo", foo_id, 0, 0, 100, 200)), data2.to_send(),
                          data2.session_partitions())


def test_incrementals() -> None:
    topic_ids: dict[str, uuid.UUID] = {}
    topic_names: dict[uuid.UUID, str] = {}
    for version in (12, LATEST):
        handler = new_handler()
        builder = handler.new_builder()
        add_topic_id(topic_ids, topic_names, "foo", version)
        foo_id = topic_ids.get("foo", ZERO_UUID)
        foo0, foo1 = TopicPartition("foo", 0), TopicPartition("foo", 1)
        builder.add(foo0, PartitionData(foo_id, 0, 100, 200, None))
        builder.add(foo1, PartitionData(foo_id, 10, 110, 210, None))
        data = builder.build()
        assert_maps_equal(req_map(req_entry("foo", foo_id, 0, 0, 100, 200), req_entry("foo", foo_id, 1, 10, 110, 210)),
                          data.to_send(), data.session_partitions())
        assert data.metadata().session_id == INVALID_SESSION_ID
        assert data.metadata().epoch == INITIAL_EPOCH

        resp = FetchResponse.of(Errors.NONE, 0, 123,
                                resp_map(resp_entry("foo", 0, foo_id, 10, 20), resp_entry("foo", 1, foo_id, 10, 20)))
        handler.handle_response(resp, version)

        # an incremental request that adds one partition and changes another
        builder2 = handler.new_builder()
        add_topic_id(topic_ids, topic_names, "bar", version)
        bar_id = topic_ids.get("bar", ZERO_UUID)
        bar0 = TopicPartition("bar", 0)
        builder2.add(foo0, PartitionData(foo_id, 0, 100, 200, None))
        builder2.add(foo1, PartitionData(foo_id, 10, 120, 210, None))
        builder2.add(bar0, PartitionData(bar_id, 20, 200, 200, None))
        data2 = builder2.build()
        assert not data2.metadata().is_full()
        assert_map_equals(req_map(req_entry("foo", foo_id, 0, 0, 100, 200), req_entry("foo", foo_id, 1, 10, 120, 210),
                                  req_entry("bar", bar_id, 0, 20, 200, 200)), data2.session_partitions())
        assert_map_equals(req_map(req_entry("bar", bar_id, 0, 20, 200, 200), req_entry("foo", foo_id, 1, 10, 120, 210)),
                          data2.to_send())

        resp2 = FetchResponse.of(Errors.NONE, 0, 123, resp_map(resp_entry("foo", 1, foo_id, 20, 20)))
        handler.handle_response(resp2, version)

        # no request built: an invalid session epoch response makes the next request close the session
        resp3 = FetchResponse.of(Errors.INVALID_FETCH_SESSION_EPOCH, 0, INVALID_SESSION_ID, resp_map())
        handler.handle_response(resp3, version)

        builder4 = handler.new_builder()
        builder4.add(foo0, PartitionData(foo_id, 0, 100, 200, None))
        builder4.add(foo1, PartitionData(foo_id, 10, 120, 210, None))
        builder4.add(bar0, PartitionData(bar_id, 20, 200, 200, None))
        data4 = builder4.build()
        assert data4.metadata().is_full()
        assert data4.metadata().session_id == data2.metadata().session_id
        assert data4.metadata().epoch == INITIAL_EPOCH
        assert_maps_equal(req_map(req_entry("foo", foo_id, 0, 0, 100, 200), req_entry("foo", foo_id, 1, 10, 120, 210),
                                  req_entry("bar", bar_id, 0, 20, 200, 200)),
                          data4.session_partitions(), data4.to_send())


def test_double_build() -> None:
    handler = new_handler()
    builder = handler.new_builder()
    builder.add(TopicPartition("foo", 0), PartitionData(uuid.uuid4(), 0, 100, 200, None))
    builder.build()
    with pytest.raises(Exception):  # noqa: B017 - Kafka asserts only that it throws
        builder.build()


def test_incremental_partition_removal() -> None:
    topic_ids: dict[str, uuid.UUID] = {}
    topic_names: dict[uuid.UUID, str] = {}
    for version in (12, LATEST):
        handler = new_handler()
        builder = handler.new_builder()
        add_topic_id(topic_ids, topic_names, "foo", version)
        add_topic_id(topic_ids, topic_names, "bar", version)
        foo_id = topic_ids.get("foo", ZERO_UUID)
        bar_id = topic_ids.get("bar", ZERO_UUID)
        foo0, foo1, bar0 = TopicPartition("foo", 0), TopicPartition("foo", 1), TopicPartition("bar", 0)
        builder.add(foo0, PartitionData(foo_id, 0, 100, 200, None))
        builder.add(foo1, PartitionData(foo_id, 10, 110, 210, None))
        builder.add(bar0, PartitionData(bar_id, 20, 120, 220, None))
        data = builder.build()
        assert_maps_equal(req_map(req_entry("foo", foo_id, 0, 0, 100, 200), req_entry("foo", foo_id, 1, 10, 110, 210),
                                  req_entry("bar", bar_id, 0, 20, 120, 220)), data.to_send(), data.session_partitions())
        assert data.metadata().is_full()

        resp = FetchResponse.of(Errors.NONE, 0, 123,
                                resp_map(resp_entry("foo", 0, foo_id, 10, 20), resp_entry("foo", 1, foo_id, 10, 20),
                                         resp_entry("bar", 0, bar_id, 10, 20)))
        handler.handle_response(resp, version)

        # an incremental request that removes two partitions
        builder2 = handler.new_builder()
        builder2.add(foo1, PartitionData(foo_id, 10, 110, 210, None))
        data2 = builder2.build()
        assert not data2.metadata().is_full()
        assert data2.metadata().session_id == 123
        assert data2.metadata().epoch == 1
        assert_map_equals(req_map(req_entry("foo", foo_id, 1, 10, 110, 210)), data2.session_partitions())
        assert_map_equals(req_map(), data2.to_send())
        assert_list_equals([TopicIdPartition(foo_id, foo0), TopicIdPartition(bar_id, bar0)], data2.to_forget())

        # FETCH_SESSION_ID_NOT_FOUND closes the session: the next request is a full one establishing a new one
        resp2 = FetchResponse.of(Errors.FETCH_SESSION_ID_NOT_FOUND, 0, INVALID_SESSION_ID, resp_map())
        handler.handle_response(resp2, version)

        builder3 = handler.new_builder()
        builder3.add(foo0, PartitionData(foo_id, 0, 100, 200, None))
        data3 = builder3.build()
        assert data3.metadata().is_full()
        assert data3.metadata().session_id == INVALID_SESSION_ID
        assert data3.metadata().epoch == INITIAL_EPOCH
        assert_maps_equal(req_map(req_entry("foo", foo_id, 0, 0, 100, 200)), data3.session_partitions(),
                          data3.to_send())


def test_topic_id_usage_granted_on_id_upgrade() -> None:
    # an id added to the existing partition (0) or with a new partition (1) in the incremental request
    for partition in (0, 1):
        test_type = "updating a partition" if partition == 0 else "adding a new partition"
        handler = new_handler()
        builder = handler.new_builder()
        builder.add(TopicPartition("foo", 0), PartitionData(ZERO_UUID, 0, 100, 200, None))
        data = builder.build()
        assert_maps_equal(req_map(req_entry("foo", ZERO_UUID, 0, 0, 100, 200)), data.to_send(),
                          data.session_partitions())
        assert data.metadata().is_full()
        assert not data.can_use_topic_ids()

        resp = FetchResponse.of(Errors.NONE, 0, 123, resp_map(resp_entry("foo", 0, ZERO_UUID, 10, 20)))
        handler.handle_response(resp, 12)

        topic_id = uuid.uuid4()
        builder2 = handler.new_builder()
        builder2.add(TopicPartition("foo", partition), PartitionData(topic_id, 10, 110, 210, None))
        data2 = builder2.build()
        # same session, next epoch; topic ids only if the partition was updated (the broker closes the session)
        updated = partition == 0
        assert data2.metadata().session_id == 123, f"Did not use same session when {test_type}"
        assert data2.metadata().epoch == 1, f"Did not have correct epoch when {test_type}"
        assert data2.can_use_topic_ids() == updated


def test_id_usage_revoked_on_id_downgrade() -> None:
    # the id removed from the existing partition (0), or a new partition (1) without one
    for partition in (0, 1):
        test_type = "updating a partition" if partition == 0 else "adding a new partition"
        foo_id = uuid.uuid4()
        handler = new_handler()
        builder = handler.new_builder()
        builder.add(TopicPartition("foo", 0), PartitionData(foo_id, 0, 100, 200, None))
        data = builder.build()
        assert_maps_equal(req_map(req_entry("foo", foo_id, 0, 0, 100, 200)), data.to_send(),
                          data.session_partitions())
        assert data.metadata().is_full()
        assert data.can_use_topic_ids()

        resp = FetchResponse.of(Errors.NONE, 0, 123, resp_map(resp_entry("foo", 0, foo_id, 10, 20)))
        handler.handle_response(resp, LATEST)

        builder2 = handler.new_builder()
        builder2.add(TopicPartition("foo", partition), PartitionData(ZERO_UUID, 10, 110, 210, None))
        data2 = builder2.build()
        assert data2.metadata().session_id == 123, f"Did not use same session when {test_type}"
        assert data2.metadata().epoch == 1, f"Did not have correct epoch when {test_type}"
        assert not data2.can_use_topic_ids()


@pytest.mark.parametrize(("starts_with_topic_ids", "ends_with_topic_ids"),
                         [(True, True), (True, False), (False, True), (False, False)])
def test_topic_id_replaced(starts_with_topic_ids: bool, ends_with_topic_ids: bool) -> None:
    tp = TopicPartition("foo", 0)
    handler = new_handler()
    builder = handler.new_builder()
    topic_id1 = uuid.uuid4() if starts_with_topic_ids else ZERO_UUID
    builder.add(tp, PartitionData(topic_id1, 0, 100, 200, None))
    data = builder.build()
    assert_maps_equal(req_map(req_entry("foo", topic_id1, 0, 0, 100, 200)), data.to_send(), data.session_partitions())
    assert data.metadata().is_full()
    assert data.can_use_topic_ids() == starts_with_topic_ids

    resp = FetchResponse.of(Errors.NONE, 0, 123, resp_map(resp_entry("foo", 0, topic_id1, 10, 20)))
    version = LATEST if starts_with_topic_ids else 12
    handler.handle_response(resp, version)

    # the same data but the topic id
    builder2 = handler.new_builder()
    topic_id2 = uuid.uuid4() if ends_with_topic_ids else ZERO_UUID
    builder2.add(tp, PartitionData(topic_id2, 0, 100, 200, None))
    data2 = builder2.build()

    if starts_with_topic_ids and ends_with_topic_ids:
        # the old id is replaced, the partition sent under the new one
        assert data2.to_replace() == [TopicIdPartition(topic_id1, tp)]
        assert_maps_equal(req_map(req_entry("foo", topic_id2, 0, 0, 100, 200)), data2.to_send(),
                          data2.session_partitions())
        assert handler.session_topic_names() == {topic_id2: tp.topic}
    elif starts_with_topic_ids or ends_with_topic_ids:
        # a switch in id usage: sent, not replaced (the broker closes the session)
        assert data2.to_replace() == []
        assert_maps_equal(req_map(req_entry("foo", topic_id2, 0, 0, 100, 200)), data2.to_send(),
                          data2.session_partitions())
        if ends_with_topic_ids:
            assert handler.session_topic_names() == {topic_id2: tp.topic}
        else:
            assert handler.session_topic_names() == {}
    else:
        # nothing changed: nothing to send or replace
        assert data2.to_replace() == []
        assert data2.to_send() == {}
        assert_maps_equal(req_map(req_entry("foo", topic_id2, 0, 0, 100, 200)), data2.session_partitions())
        assert handler.session_topic_names() == {}

    assert data2.metadata().session_id == 123, "Did not use same session"
    assert data2.metadata().epoch == 1, "Did not have correct epoch"
    assert data2.can_use_topic_ids() == ends_with_topic_ids


@pytest.mark.parametrize("starts_with_topic_ids", [True, False])
def test_session_epoch_when_mixed_usage_of_topic_ids(starts_with_topic_ids: bool) -> None:
    foo_id = uuid.uuid4() if starts_with_topic_ids else ZERO_UUID
    bar_id = ZERO_UUID if starts_with_topic_ids else uuid.uuid4()
    response_version = LATEST if starts_with_topic_ids else 12

    tp0, tp1 = TopicPartition("foo", 0), TopicPartition("bar", 1)

    handler = new_handler()
    builder = handler.new_builder()
    builder.add(tp0, PartitionData(foo_id, 0, 100, 200, None))
    data = builder.build()
    assert_maps_equal(req_map(req_entry("foo", foo_id, 0, 0, 100, 200)), data.to_send(), data.session_partitions())
    assert data.metadata().is_full()
    assert data.can_use_topic_ids() == starts_with_topic_ids

    resp = FetchResponse.of(Errors.NONE, 0, 123, resp_map(resp_entry("foo", 0, foo_id, 10, 20)))
    handler.handle_response(resp, response_version)

    # the first partition again, and one with the opposite id usage
    builder2 = handler.new_builder()
    builder2.add(tp0, PartitionData(foo_id, 10, 110, 210, None))
    builder2.add(tp1, PartitionData(bar_id, 0, 100, 200, None))
    data2 = builder2.build()
    assert data2.metadata().session_id == 123, "Did not use same session"
    assert data2.metadata().epoch == 1, "Did not have final epoch"
    assert not data2.can_use_topic_ids()


@pytest.mark.parametrize("use_topic_ids", [True, False])
def test_id_usage_with_all_forgotten_partitions(use_topic_ids: bool) -> None:
    foo0 = TopicPartition("foo", 0)
    topic_id = uuid.uuid4() if use_topic_ids else ZERO_UUID
    response_version = LATEST if use_topic_ids else 12
    handler = new_handler()

    builder = handler.new_builder()
    builder.add(foo0, PartitionData(topic_id, 0, 100, 200, None))
    data = builder.build()
    assert_maps_equal(req_map(req_entry("foo", topic_id, 0, 0, 100, 200)), data.to_send(), data.session_partitions())
    assert data.metadata().is_full()
    assert data.can_use_topic_ids() == use_topic_ids

    resp = FetchResponse.of(Errors.NONE, 0, 123, resp_map(resp_entry("foo", 0, topic_id, 10, 20)))
    handler.handle_response(resp, response_version)

    # the topic leaves the session
    builder2 = handler.new_builder()
    data2 = builder2.build()
    assert data2.to_forget() == [TopicIdPartition(topic_id, foo0)]
    assert data2.metadata().session_id == 123, f"Did not use same session when useTopicIds was {use_topic_ids}"
    assert data2.metadata().epoch == 1, f"Did not have correct epoch when useTopicIds was {use_topic_ids}"
    assert data2.can_use_topic_ids() == use_topic_ids


def test_ok_to_add_new_id_after_topic_removed_from_session() -> None:
    topic_id = uuid.uuid4()
    handler = new_handler()
    builder = handler.new_builder()
    builder.add(TopicPartition("foo", 0), PartitionData(topic_id, 0, 100, 200, None))
    data = builder.build()
    assert_maps_equal(req_map(req_entry("foo", topic_id, 0, 0, 100, 200)), data.to_send(), data.session_partitions())
    assert data.metadata().is_full()
    assert data.can_use_topic_ids()

    resp = FetchResponse.of(Errors.NONE, 0, 123, resp_map(resp_entry("foo", 0, topic_id, 10, 20)))
    handler.handle_response(resp, LATEST)

    # the partition leaves the session, which the broker keeps open
    builder2 = handler.new_builder()
    data2 = builder2.build()
    assert_maps_equal({}, data2.to_send(), data2.session_partitions())
    resp2 = FetchResponse.of(Errors.NONE, 0, 123, {})
    handler.handle_response(resp2, LATEST)

    # the topic comes back, recreated with a new id
    builder3 = handler.new_builder()
    builder3.add(TopicPartition("foo", 0), PartitionData(uuid.uuid4(), 0, 100, 200, None))
    data3 = builder3.build()
    assert data3.metadata().session_id == 123, "Did not use same session"
    assert data3.metadata().epoch == 2, "Did not have the correct session epoch"
    assert data.can_use_topic_ids()


def test_verify_full_fetch_response_partitions() -> None:
    topic_ids: dict[str, uuid.UUID] = {}
    topic_names: dict[uuid.UUID, str] = {}
    for version in (12, LATEST):
        handler = new_handler()
        add_topic_id(topic_ids, topic_names, "foo", version)
        add_topic_id(topic_ids, topic_names, "bar", version)
        foo_id = topic_ids.get("foo", ZERO_UUID)
        bar_id = topic_ids.get("bar", ZERO_UUID)
        foo0, foo1, bar0 = TopicPartition("foo", 0), TopicPartition("foo", 1), TopicPartition("bar", 0)
        resp1 = FetchResponse.of(Errors.NONE, 0, INVALID_SESSION_ID,
                                 resp_map(resp_entry("foo", 0, foo_id, 10, 20), resp_entry("foo", 1, foo_id, 10, 20),
                                          resp_entry("bar", 0, bar_id, 10, 20)))
        issue = handler.verify_full_fetch_response_partitions(resp1.response_data(topic_names, version).keys(),
                                                              resp1.topic_ids(), version)
        assert "extraPartitions=" in issue
        assert "omittedPartitions=" not in issue
        builder = handler.new_builder()
        builder.add(foo0, PartitionData(foo_id, 0, 100, 200, None))
        builder.add(foo1, PartitionData(foo_id, 10, 110, 210, None))
        builder.add(bar0, PartitionData(bar_id, 20, 120, 220, None))
        builder.build()
        resp2 = FetchResponse.of(Errors.NONE, 0, INVALID_SESSION_ID,
                                 resp_map(resp_entry("foo", 0, foo_id, 10, 20), resp_entry("foo", 1, foo_id, 10, 20),
                                          resp_entry("bar", 0, bar_id, 10, 20)))
        issue2 = handler.verify_full_fetch_response_partitions(resp2.response_data(topic_names, version).keys(),
                                                               resp2.topic_ids(), version)
        assert issue2 is None
        resp3 = FetchResponse.of(Errors.NONE, 0, INVALID_SESSION_ID,
                                 resp_map(resp_entry("foo", 0, foo_id, 10, 20), resp_entry("foo", 1, foo_id, 10, 20)))
        issue3 = handler.verify_full_fetch_response_partitions(resp3.response_data(topic_names, version).keys(),
                                                               resp3.topic_ids(), version)
        assert "extraPartitions=" not in issue3
        assert "omittedPartitions=" in issue3


def test_verify_full_fetch_response_partitions_with_topic_ids() -> None:
    topic_ids: dict[str, uuid.UUID] = {}
    topic_names: dict[uuid.UUID, str] = {}
    handler = new_handler()
    add_topic_id(topic_ids, topic_names, "foo", LATEST)
    add_topic_id(topic_ids, topic_names, "bar", LATEST)
    add_topic_id(topic_ids, topic_names, "extra2", LATEST)
    resp1 = FetchResponse.of(Errors.NONE, 0, INVALID_SESSION_ID,
                             resp_map(resp_entry("foo", 0, topic_ids["foo"], 10, 20),
                                      resp_entry("extra2", 1, topic_ids["extra2"], 10, 20),
                                      resp_entry("bar", 0, topic_ids["bar"], 10, 20)))
    issue = handler.verify_full_fetch_response_partitions(resp1.response_data(topic_names, LATEST).keys(),
                                                          resp1.topic_ids(), LATEST)
    assert "extraPartitions=" in issue
    assert "omittedPartitions=" not in issue
    builder = handler.new_builder()
    builder.add(TopicPartition("foo", 0), PartitionData(topic_ids["foo"], 0, 100, 200, None))
    builder.add(TopicPartition("bar", 0), PartitionData(topic_ids["bar"], 20, 120, 220, None))
    builder.build()
    resp2 = FetchResponse.of(Errors.NONE, 0, INVALID_SESSION_ID,
                             resp_map(resp_entry("foo", 0, topic_ids["foo"], 10, 20),
                                      resp_entry("extra2", 1, topic_ids["extra2"], 10, 20),
                                      resp_entry("bar", 0, topic_ids["bar"], 10, 20)))
    issue2 = handler.verify_full_fetch_response_partitions(resp2.response_data(topic_names, LATEST).keys(),
                                                           resp2.topic_ids(), LATEST)
    assert "extraPartitions=" in issue2
    assert "omittedPartitions=" not in issue2
    resp3 = FetchResponse.of(Errors.NONE, 0, INVALID_SESSION_ID,
                             resp_map(resp_entry("foo", 0, topic_ids["foo"], 10, 20),
                                      resp_entry("bar", 0, topic_ids["bar"], 10, 20)))
    issue3 = handler.verify_full_fetch_response_partitions(resp3.response_data(topic_names, LATEST).keys(),
                                                           resp3.topic_ids(), LATEST)
    assert issue3 is None


def test_top_level_error_resets_metadata() -> None:
    topic_ids: dict[str, uuid.UUID] = {}
    topic_names: dict[uuid.UUID, str] = {}
    handler = new_handler()
    builder = handler.new_builder()
    add_topic_id(topic_ids, topic_names, "foo", LATEST)
    foo_id = topic_ids.get("foo", ZERO_UUID)
    builder.add(TopicPartition("foo", 0), PartitionData(foo_id, 0, 100, 200, None))
    builder.add(TopicPartition("foo", 1), PartitionData(foo_id, 10, 110, 210, None))
    data = builder.build()
    assert data.metadata().session_id == INVALID_SESSION_ID
    assert data.metadata().epoch == INITIAL_EPOCH

    resp = FetchResponse.of(Errors.NONE, 0, 123, resp_map(resp_entry("foo", 0, topic_ids["foo"], 10, 20),
                                                          resp_entry("foo", 1, topic_ids["foo"], 10, 20)))
    handler.handle_response(resp, LATEST)

    # an incremental request adding an id the broker does not know
    builder2 = handler.new_builder()
    add_topic_id(topic_ids, topic_names, "unknown", LATEST)
    builder2.add(TopicPartition("unknown", 0), PartitionData(topic_ids.get("unknown", ZERO_UUID), 0, 100, 200, None))
    data2 = builder2.build()
    assert not data2.metadata().is_full()
    assert data2.metadata().session_id == 123
    assert data2.metadata().epoch == next_epoch(INITIAL_EPOCH)

    # a response with a top-level error
    resp2 = FetchResponse.of(Errors.UNKNOWN_TOPIC_ID, 0, 123,
                             resp_map(resp_entry("unknown", 0, uuid.uuid4(), error=Errors.UNKNOWN_TOPIC_ID)))
    assert not handler.handle_response(resp2, LATEST)

    # the next request starts a new epoch, closing the session
    builder3 = handler.new_builder()
    data3 = builder3.build()
    assert data3.metadata().session_id == 123
    assert data3.metadata().epoch == INITIAL_EPOCH
