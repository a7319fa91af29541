"""Our own test code, not a Kafka port: several nodes traced in one process (kafka-edu raft-sim), each with its own
Tracing made current while its code runs, and span times read from a clock the process drives."""

from __future__ import annotations

import pytest

from kafka_edu.tracing import attributes, provider
from kafka_edu.tracing.clock import SpanClock
from kafka_edu.tracing.step import event, span


def test_the_span_clock_never_repeats_and_never_goes_back() -> None:
    now = [5_000]
    clock = SpanClock(lambda: now[0])
    assert [clock(), clock(), clock()] == [5_000, 5_001, 5_002]
    now[0] = 4_000  # a source going back is held at the last reading
    assert clock() == 5_003
    now[0] = 9_000
    assert clock() == 9_000


@pytest.fixture
def no_process_tracing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(provider, "_current", None)  # restored after the test
    # the spans below are opened without the objects their describers read: the attributes go, the spans stay
    monkeypatch.setattr(attributes, "STRICT", False)


def test_a_span_goes_to_the_tracing_current_where_it_runs_timed_by_its_clock(no_process_tracing) -> None:
    now = [1_000_000_000]
    clock = SpanClock(lambda: now[0])
    one = provider.node_tracing("controller-1", "run", "kraft", None, clock)
    two = provider.node_tracing("controller-2", "run", "kraft", None, clock)
    assert provider.current_tracing() is None
    with provider.using(one):
        assert provider.current_tracing() is one
        with span("KafkaRaftClient.createSnapshot", root=True):
            now[0] += 3_000_000
            event("raft.vote.granted")
        with provider.using(two):
            with span("KafkaRaftClient.createSnapshot", root=True):
                pass
        assert provider.current_tracing() is one
    assert provider.current_tracing() is None
    with span("KafkaRaftClient.createSnapshot", root=True):  # no tracing current: nothing recorded
        pass

    [lead] = one.memory.get_finished_spans()
    [follow] = two.memory.get_finished_spans()
    assert lead.resource.attributes["service.instance.id"] == "controller-1"
    assert follow.resource.attributes["service.instance.id"] == "controller-2"
    assert lead.start_time == 1_000_000_000 and lead.end_time > 1_003_000_000
    assert lead.events[0].timestamp == 1_003_000_000
    assert lead.start_time < lead.events[0].timestamp < lead.end_time <= follow.start_time
