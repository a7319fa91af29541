"""Markers set OpenTelemetry's current context straight on its ContextVar (kafka_edu/tracing/step.py): what they
set is what the API reads, what the API sets is what they read, and a token that cannot be reset is logged as the
API logs it. The API's own path, for another runtime context, gives the same spans."""

from __future__ import annotations

import contextvars
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry import context as otel_context
from opentelemetry import trace

from kafka_edu.tracing import setup_tracing, step
from kafka_edu.tracing.provider import Tracing

step_module = sys.modules["kafka_edu.tracing.step"]


class _Config:
    zk_connect = "127.0.0.1:2181"  # what the two steps' describers read
    log_dirs = ("/tmp/kafka-logs",)


class _Startup:
    """Two nested FIDELITY steps, each noting the span current inside it."""

    config = _Config()

    def __init__(self) -> None:
        self.seen: dict[str, Any] = {}

    @step("LC.startup.04")
    def init_zk(self) -> None:
        self.seen["outer"] = trace.get_current_span()
        self.startup_log_manager()
        self.seen["outer after"] = trace.get_current_span()

    @step("LC.startup.08")
    def startup_log_manager(self) -> None:
        self.seen["inner"] = trace.get_current_span()


@pytest.fixture
def tracing() -> Iterator[Tracing]:
    tracing = setup_tracing("broker-0", "run-1", mode="zk")
    yield tracing
    tracing.shutdown()


def _by_name(tracing: Tracing) -> dict[str, Any]:
    return {s.name: s for s in tracing.memory.get_finished_spans()}


def _check_nesting(tracing: Tracing, startup: _Startup, api_parent: Any) -> None:
    spans = _by_name(tracing)
    outer, inner = spans["KafkaServer.initZk"], spans["LogManager.startup"]
    assert startup.seen["outer"] is startup.seen["outer after"]
    assert startup.seen["outer"].get_span_context() == outer.context
    assert startup.seen["inner"].get_span_context() == inner.context
    assert inner.parent == outer.context
    assert outer.parent == api_parent.get_span_context()
    assert trace.get_current_span() is api_parent  # each marker reset what it set


def test_a_marker_s_span_is_current_for_the_api_and_the_api_s_span_is_a_marker_s_parent(tracing: Tracing) -> None:
    assert step_module._CURRENT is not None  # the ContextVar path is the one under test
    startup = _Startup()
    with tracing.tracer.start_as_current_span("KafkaServer.startup") as api_parent:
        startup.init_zk()
        _check_nesting(tracing, startup, api_parent)


def test_through_the_api_the_spans_are_the_same(tracing: Tracing, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(step_module, "_CURRENT", None)  # as with a runtime context other than the ContextVar one
    startup = _Startup()
    with tracing.tracer.start_as_current_span("KafkaServer.startup") as api_parent:
        startup.init_zk()
        _check_nesting(tracing, startup, api_parent)


def test_a_token_from_another_context_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    token = contextvars.copy_context().run(otel_context.attach, otel_context.get_current())
    with caplog.at_level("ERROR", logger="opentelemetry.context"):
        step_module._detach(token)
    assert [r.getMessage() for r in caplog.records] == ["Failed to detach context"]


def test_a_non_span_value_under_the_span_key_reads_as_no_span() -> None:
    token = otel_context.attach(otel_context.set_value(step_module._SPAN_KEY, "not a span"))
    try:
        assert step_module._current_span() is trace.INVALID_SPAN
        assert trace.get_current_span() is trace.INVALID_SPAN  # as the API reads it
    finally:
        otel_context.detach(token)
