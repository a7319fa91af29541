"""The Detail pane on a KRaft broker's request path (FIDELITY RQ): each step's explanation, and `z` to read it whole."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from kafka_edu.tracing.query import SpanRecord
from kafka_edu.tracing.steps import KAFKA_3_9, STEPS
from tests.tui.helpers import opened, plain, wait_for
from tui.explanations import ROWS
from tui.widgets.detail import describe

RQ_STEPS = sorted(step for step in STEPS if step.startswith("RQ."))


def rq_span(step: str) -> SpanRecord:
    spec = STEPS[step]
    return SpanRecord(trace_id="t" * 32, span_id="s" * 16, parent_id="", name=spec.span_name, start_ns=1_000,
                      end_ns=2_001_000, attributes={"kafka.step": step, "kafka.origin.version": KAFKA_3_9,
                                                    "kafka.origin.symbol": spec.span_name,
                                                    "kafka.origin.file": spec.origin_file},
                      resource={"service.instance.id": "broker-2"})


@pytest.mark.parametrize("step", RQ_STEPS)
def test_an_rq_span_shows_its_explanation_and_what_1_0_2_did(step: str) -> None:
    shown = " ".join(plain(describe(rq_span(step), lost=False, trace_start_ns=0), width=78).split())
    assert f"FIDELITY {step} {STEPS[step].span_name}" in shown
    assert "no explanation for this step yet" not in shown
    assert " ".join(ROWS[step].why.split()) in shown
    assert "1.0.2" in ROWS[step].why  # each RQ row says what Kafka 1.0.2 had at that step


def test_z_maximizes_the_detail_pane_and_restores_it(produce: Path) -> None:
    """At 80x24 the Detail pane has four lines: `z` must work on it as on the other panes."""
    async def scenario() -> None:
        async with opened(produce, size=(80, 24)) as (app, pilot):
            app.detail.focus()
            await pilot.press("z")
            await wait_for(pilot, lambda: app.screen.maximized is app.detail, what="the Detail pane maximized")
            await pilot.press("z")
            await wait_for(pilot, lambda: app.screen.maximized is None, what="the Detail pane restored")

    asyncio.run(scenario())
