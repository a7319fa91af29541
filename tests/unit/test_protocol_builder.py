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


def _kio_message_classes() -> list[type]:
    import dataclasses
    import importlib
    import pkgutil

    import kio.schema
    classes = []
    for module_info in pkgutil.walk_packages(kio.schema.__path__, "kio.schema."):
        if module_info.name.rsplit(".", 1)[-1] not in ("request", "response", "data"):
            continue
        module = importlib.import_module(module_info.name)
        classes += [v for v in vars(module).values()
                    if isinstance(v, type) and dataclasses.is_dataclass(v) and v.__module__ == module.__name__]
    return classes


def test_values_converts_only_the_fields_its_plan_marks_and_no_plain_field_holds_a_message_or_a_timedelta() -> None:
    """`values` leaves a field its plan calls plain as it is: that is right only if no kio class types such a field
    as a nested message, a tuple of them or a timedelta."""
    import dataclasses
    import typing

    classes = _kio_message_classes()
    assert len(classes) > 1500
    for cls in classes:
        hints = typing.get_type_hints(cls)
        for name, kind, _ in _plan(cls):
            if kind != "plain":
                continue
            hint = hints[name]
            assert "timedelta" not in repr(hint), (cls, name)
            assert not dataclasses.is_dataclass(hint), (cls, name)
            assert not any(dataclasses.is_dataclass(arg) for arg in typing.get_args(hint)), (cls, name)


def test_values_keeps_empty_and_missing_nested_values_as_they_are() -> None:
    response = build(FetchResponseV16, **{**_fetch_values(), "node_endpoints": (), "throttle_time": 0})
    plain = values(response)
    assert plain["node_endpoints"] == ()
    assert plain["throttle_time"] == 0
    assert plain["responses"][0]["partitions"][0]["aborted_transactions"] is None
    assert build(FetchResponseV16, **plain) == response
