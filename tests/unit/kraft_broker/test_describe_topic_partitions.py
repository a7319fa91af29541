"""DescribeTopicPartitions on a KRaft broker (Kafka 3.9, KIP-966's paging): DescribeTopicPartitionsRequestHandler
over the KRaftMetadataCache of an image made from 3.9's records."""

from __future__ import annotations

import uuid
from types import SimpleNamespace

import pytest

from kafka_edu.v1_0_2.clients.common.errors import InvalidRequestException
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.core.server.handlers.describe_topic_partitions_request_handler import (
    DescribeTopicPartitionsRequestHandler,
)
from kafka_edu.v3_9.core.server.metadata.kraft_metadata_cache import KRaftMetadataCache
from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.metadata.image.metadata_provenance import MetadataProvenance
from tests.unit.image.records import feature_level, partition, register_broker, topic, unfence

A, B = uuid.UUID(int=0xA), uuid.UUID(int=0xB)


@pytest.fixture
def handler() -> DescribeTopicPartitionsRequestHandler:
    records = [feature_level(), register_broker(1, 10), unfence(1, 10), register_broker(2, 11),
               topic("page-a", A), *(partition(A, p, (1, 2)) for p in range(3)),
               topic("page-b", B), *(partition(B, p, (2,)) for p in range(2))]
    delta = MetadataDelta.Builder().set_image(MetadataImage.EMPTY).build()
    for record in records:
        delta.replay(record.message)
    cache = KRaftMetadataCache(1)
    cache.set_image(delta.apply(MetadataProvenance(20, 1, 0)))
    return DescribeTopicPartitionsRequestHandler(cache, None)


def ask(handler: DescribeTopicPartitionsRequestHandler, topics: list[str], limit: int,
        cursor: tuple[str, int] | None = None) -> dict:
    body = SimpleNamespace(topics=[SimpleNamespace(name=t) for t in topics], response_partition_limit=limit,
                           cursor=None if cursor is None else SimpleNamespace(topic_name=cursor[0],
                                                                              partition_index=cursor[1]))
    return handler.handle_describe_topic_partitions_request(SimpleNamespace(body=body, listener_name="PLAINTEXT"))


def pages(response: dict) -> list[tuple[str, list[int]]]:
    return [(t["name"], [p["partition_index"] for p in t["partitions"]]) for t in response["topics"]]


def test_topics_come_in_name_order_a_page_at_a_time_with_a_cursor_to_the_next(handler) -> None:
    first = ask(handler, ["page-b", "page-a", "missing"], 3)
    assert pages(first) == [("missing", []), ("page-a", [0, 1, 2])]
    assert first["topics"][0]["error_code"] == Errors.UNKNOWN_TOPIC_OR_PARTITION
    assert first["next_cursor"] == {"topic_name": "page-b", "partition_index": 0}  # full at a topic boundary
    second = ask(handler, ["page-b", "page-a", "missing"], 3, ("page-b", 0))
    assert pages(second) == [("page-b", [0, 1])] and second["next_cursor"] is None

    middle = ask(handler, [], 2, ("page-a", 1))  # no topics: all of them, from the cursor on
    assert pages(middle) == [("page-a", [1, 2])]
    assert middle["next_cursor"] == {"topic_name": "page-b", "partition_index": 0}
    split = ask(handler, [], 1, ("page-a", 1))
    assert pages(split) == [("page-a", [1])] and split["next_cursor"] == {"topic_name": "page-a",
                                                                         "partition_index": 2}


def test_a_partition_on_a_fenced_broker_is_offline_and_an_invalid_name_gets_its_own_error(handler) -> None:
    [b] = ask(handler, ["page-b"], 10)["topics"]
    assert [(p["leader_id"], p["offline_replicas"]) for p in b["partitions"]] == [(2, [2]), (2, [2])]
    [bad] = ask(handler, ["bad/name"], 10)["topics"]
    assert bad["error_code"] == Errors.INVALID_TOPIC_EXCEPTION


def test_a_cursor_outside_the_topics_asked_for_is_an_invalid_request(handler) -> None:
    with pytest.raises(InvalidRequestException, match="should contain the cursor topic"):
        ask(handler, ["page-a"], 10, ("page-b", 0))
