"""A span's end attributes (kafka_edu/tracing/provider.py `set_span_attributes`, which step.py uses) are stored as
OpenTelemetry's `set_attributes` stores them: the same values in the same order after its checks, whether the fast
path (plain values, room for all of them) or OpenTelemetry's own checks store them."""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry.sdk.trace import SpanLimits

from kafka_edu.tracing import provider

START = {"kafka.step": "RQ.produce.4", "kafka.topic": "t", "kafka.partition": 0}
END_CASES = {
    "plain": {"kafka.offset.first": 0, "kafka.offset.last": 9, "kafka.ratio": 0.5, "kafka.flag": False},
    "set again": {"kafka.topic": "u", "kafka.offset.last": 9},  # a key set again moves to the end
    "list": {"kafka.partitions": ["t-0", "t-1"], "kafka.n": 2},
    "none": {"kafka.leader": None, "kafka.n": 1},
}


def _attributes_after(tracing: provider.Tracing, end: dict[str, Any], fast: bool) -> list[tuple[str, Any]]:
    span = tracing.start_span("Partition.appendRecordsToLeader", attributes=dict(START))
    if fast:
        provider.set_span_attributes(span, end)
    else:
        span.set_attributes(end)
    span.end()
    return list(span.attributes.items())


@pytest.mark.parametrize("case", list(END_CASES))
def test_end_attributes_are_what_set_attributes_stores(case: str) -> None:
    tracing = provider.node_tracing("end-attributes-test", "run", "kraft")
    assert _attributes_after(tracing, END_CASES[case], True) == _attributes_after(tracing, END_CASES[case], False)


def test_a_full_span_pushes_out_its_oldest_attribute_as_set_attributes_does() -> None:
    tracing = provider.node_tracing("end-attributes-test", "run", "kraft")
    end = {"kafka.offset.first": 0, "kafka.offset.last": 9}
    limited = provider.Tracing(tracing.provider, tracing.process_attributes, None, tracing.memory, None, True,
                               span_limits=SpanLimits(max_span_attributes=4))
    assert _attributes_after(limited, end, True) == _attributes_after(limited, end, False)
    assert [key for key, _ in _attributes_after(limited, end, True)] == [
        "kafka.topic", "kafka.partition", "kafka.offset.first", "kafka.offset.last"]


def test_an_ended_span_keeps_its_attributes() -> None:
    tracing = provider.node_tracing("end-attributes-test", "run", "kraft")
    span = tracing.start_span("Partition.appendRecordsToLeader", attributes=dict(START))
    span.end()
    provider.set_span_attributes(span, {"kafka.late": 1})
    assert "kafka.late" not in span.attributes
