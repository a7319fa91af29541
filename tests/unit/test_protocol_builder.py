"""`build` and `values` (kafka_edu/v3_9/clients/common/protocol/builder.py): a kio message of any version from plain
values and back, with each class's fields looked at once."""

from __future__ import annotations

import datetime

from kio.schema.fetch.v4.response import FetchResponse as FetchResponseV4
from kio.schema.fetch.v16.response import FetchResponse as FetchResponseV16
from kio.schema.produce.v9.request import ProduceRequest

from kafka_edu.v3_9.clients.common.protocol.builder import _plan, build, values


def _fetch_values() -> dict:
    return {"throttle_time": 25, "error_code": 0, "session_id": 7, "node_endpoints": [],
            "responses": [{"topic": "t", "topic_id": None,
                           "partitions": [{"partition_index": 0, "error_code": 0, "high_watermark": 10,
                                           "last_stable_offset": 10, "log_start_offset": 0,
                                           "aborted_transactions": None, "preferred_read_replica": -1,
                                           "records": b"x"}]}]}


def test_nested_dicts_become_the_versions_classes_and_milliseconds_a_timedelta() -> None:
    response = build(FetchResponseV16, **_fetch_values())
    assert response.throttle_time == datetime.timedelta(milliseconds=25)
    [topic] = response.responses
    assert type(topic).__module__ == "kio.schema.fetch.v16.response"
    [partition] = topic.partitions
    assert (partition.partition_index, partition.high_watermark, partition.records) == (0, 10, b"x")


def test_fields_a_version_lacks_are_dropped() -> None:
    response = build(FetchResponseV4, **_fetch_values())  # v4 has no session id, no topic id, no log start offset
    assert not hasattr(response, "session_id")
    [partition] = response.responses[0].partitions
    assert not hasattr(partition, "log_start_offset")
    assert partition.last_stable_offset == 10


def test_values_is_the_inverse_of_build() -> None:
    response = build(FetchResponseV16, **_fetch_values())
    plain = values(response)
    assert plain["throttle_time"] == 25
    assert plain["responses"][0]["partitions"][0]["high_watermark"] == 10
    assert build(FetchResponseV16, **plain) == response


def test_objects_already_built_and_none_pass_through() -> None:
    timeout = datetime.timedelta(milliseconds=1500)
    request = build(ProduceRequest, transactional_id=None, acks=1, timeout=timeout, topic_data=())
    assert request.timeout is timeout
    assert request.transactional_id is None


def test_a_class_is_looked_at_once() -> None:
    assert _plan(FetchResponseV16) is _plan(FetchResponseV16)
    kinds = {name: kind for name, kind, _ in _plan(FetchResponseV16)}
    assert (kinds["throttle_time"], kinds["responses"], kinds["session_id"]) == ("millis", "entities", "plain")
