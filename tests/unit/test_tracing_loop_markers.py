"""Markers on a method of `self` alone, asked on every turn of a processor's loop: a `when` that says no makes no
span and the method still runs; one that says yes makes the span the general path makes; a retro marker records a
span only for a turn that did work. Checked on a stand-in for 3.9's Processor, with spans made in memory."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.trace import StatusCode

from kafka_edu.tracing import setup_tracing, step
from kafka_edu.tracing.provider import TRACING_ENV, Tracing
from kafka_edu.tracing.requests import UNSAMPLED


class _Selector:
    def __init__(self) -> None:
        self.sends: list[str] = []
        self.receives: dict[str, str] = {}
        self.gone: dict[str, str] = {}

    def completed_sends(self) -> list[str]:
        return self.sends

    def completed_receives(self) -> Any:
        return self.receives.values()

    def disconnected(self) -> dict[str, str]:
        return self.gone


class _Processor:
    """What the NW.processor describers read of 3.9's Processor (its `enqueue_response` marks it as 3.9's)."""

    id = 7

    def __init__(self) -> None:
        self.selector = _Selector()
        self.turns = 0
        self.fail = False

    def enqueue_response(self, response: Any) -> None:
        raise NotImplementedError

    @step("NW.processor.5")
    def process_completed_sends(self) -> int:
        self.turns += 1
        self.current = trace.get_current_span()  # what the steps under this one would see as their parent
        if self.fail:
            raise RuntimeError("send callback failed")
        done = len(self.selector.sends)
        self.selector.sends.clear()
        return done

    @step("NW.processor.3")
    def poll(self) -> None:
        self.turns += 1


@pytest.fixture
def tracing() -> Iterator[Tracing]:
    tracing = setup_tracing("broker-0", "run-1", mode="kraft")
    yield tracing
    tracing.shutdown()


def _spans(tracing: Tracing, name: str) -> list[Any]:
    return [s for s in tracing.memory.get_finished_spans() if s.name == name]


def test_a_when_that_says_no_makes_no_span_and_the_method_still_runs(tracing: Tracing) -> None:
    processor = _Processor()
    assert processor.process_completed_sends() == 0
    assert processor.turns == 1
    assert _spans(tracing, "Processor.processCompletedSends") == []


def test_a_when_that_says_yes_makes_the_steps_span_with_its_start_attributes(tracing: Tracing) -> None:
    processor = _Processor()
    processor.selector.sends.extend(["a", "b"])
    assert processor.process_completed_sends() == 2
    [span] = _spans(tracing, "Processor.processCompletedSends")
    assert span.attributes["kafka.step"] == "NW.processor.5"
    assert span.attributes["kafka.sends"] == 2
    assert span.attributes["kafka.processor.id"] == 7
    assert span.attributes["code.function.name"] == "_Processor.process_completed_sends"


def test_a_failing_turn_ends_its_span_with_the_error_and_raises_it(tracing: Tracing) -> None:
    processor = _Processor()
    processor.selector.sends.append("a")
    processor.fail = True
    with pytest.raises(RuntimeError, match="send callback failed"):
        processor.process_completed_sends()
    [span] = _spans(tracing, "Processor.processCompletedSends")
    assert span.status.status_code is StatusCode.ERROR
    assert [e.name for e in span.events] == ["exception"]


def test_without_tracing_the_method_runs_untraced() -> None:
    processor = _Processor()
    processor.selector.sends.append("a")
    assert processor.process_completed_sends() == 1
    assert processor.turns == 1


def test_a_retro_poll_is_a_span_only_when_the_turn_completed_something(tracing: Tracing) -> None:
    processor = _Processor()
    processor.poll()
    assert _spans(tracing, "Processor.poll") == []
    processor.selector.receives["c1"] = "request"
    processor.selector.sends.append("c2")
    processor.poll()
    [span] = _spans(tracing, "Processor.poll")
    assert span.attributes["kafka.step"] == "NW.processor.3"
    assert (span.attributes["kafka.receives"], span.attributes["kafka.sends"],
            span.attributes["kafka.disconnected"]) == (1, 1, 0)
    assert processor.turns == 2


def test_with_request_tracing_off_a_loop_root_still_tells_the_steps_under_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # asked first, a `when` that says no skips everything; but with request-path tracing off a loop phase that is a
    # request root runs under the unsampled parent whatever its `when` says, so that the steps it calls trace nothing
    monkeypatch.setenv(TRACING_ENV, "off")
    tracing = setup_tracing("broker-0", "run-1", mode="kraft")
    try:
        processor = _Processor()
        assert processor.process_completed_sends() == 0
        assert processor.current is UNSAMPLED
        assert not trace.get_current_span().get_span_context().is_valid  # detached again after the turn
        assert tracing.memory.get_finished_spans() == ()
    finally:
        tracing.shutdown()


def test_a_when_that_says_no_leaves_the_current_span_as_it_was(tracing: Tracing) -> None:
    processor = _Processor()
    processor.process_completed_sends()
    assert not processor.current.get_span_context().is_valid
