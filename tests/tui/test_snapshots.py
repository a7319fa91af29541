"""Snapshots of the main screens: Textual's own SVG export compared with the stored one, byte for byte.

This is what pytest-textual-snapshot does; that plugin pins syrupy 4.8, which requires pytest < 9, so the project
(on pytest 9) compares the same SVGs itself. A mismatch or a missing snapshot fails the test and leaves
`<name>.actual.svg` beside where the snapshot belongs, to look at; `KAFKA_EDU_UPDATE_SNAPSHOTS=1 pytest
tests/tui/test_snapshots.py` writes the screens as the new snapshots.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from tests.tui.helpers import opened, wait_for
from tui.app import KafkaEduApp

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
UPDATE = os.environ.get("KAFKA_EDU_UPDATE_SNAPSHOTS") == "1"


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> None:
    """Span times are shown as local clock times: pin the zone so the screens do not depend on the machine's."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def snapshot(run_dir: Path, name: str, size: tuple[int, int],
             steps: Callable[[KafkaEduApp, Pilot], Awaitable[None]] | None = None) -> None:
    async def scenario() -> str:
        async with opened(run_dir, size=size) as (app, pilot):
            app.query_one(Input).cursor_blink = False
            if steps is not None:
                await steps(app, pilot)
            await pilot.pause()
            return app.export_screenshot()

    svg = asyncio.run(scenario())
    expected = SNAPSHOTS / f"{name}.svg"
    actual = SNAPSHOTS / f"{name}.actual.svg"
    if UPDATE:
        SNAPSHOTS.mkdir(exist_ok=True)
        expected.write_text(svg)
        actual.unlink(missing_ok=True)
        return
    if not expected.exists():
        SNAPSHOTS.mkdir(exist_ok=True)
        actual.write_text(svg)
        pytest.fail(f"no {name} snapshot: look at {actual}, then accept it with KAFKA_EDU_UPDATE_SNAPSHOTS=1")
    if svg != expected.read_text():
        actual.write_text(svg)
        pytest.fail(f"the {name} screen changed: compare {actual} with {expected}")
    actual.unlink(missing_ok=True)


def test_main_screen_on_a_broker_startup(failover: Path) -> None:
    snapshot(failover, "main_120x40", (120, 40))


def test_main_screen_at_80x24(failover: Path) -> None:
    snapshot(failover, "main_80x24", (80, 24))


def test_search_for_a_controller_reelection(failover: Path) -> None:
    async def steps(app: KafkaEduApp, pilot: Pilot) -> None:
        await pilot.press("slash", *"reelect", "enter")
        await wait_for(pilot, lambda: app.traces.needle == "reelect")
        app.waterfall.focus()
        await pilot.press("j", "j")

    snapshot(failover, "search_reelect", (120, 40), steps)


def test_request_trace_with_detail_and_source(produce: Path) -> None:
    async def steps(app: KafkaEduApp, pilot: Pilot) -> None:
        await pilot.press("slash", *"request produce", "enter")
        await wait_for(pilot, lambda: app.waterfall.trace is not None
                       and app.waterfall.trace.root.attributes.get("kafka.api.name") == "Produce")
        app.waterfall.focus()
        row = next(i for i, (_, span_id) in enumerate(app.waterfall.rows)
                   if app.waterfall.trace.spans[span_id].name == "Log.append")
        app.waterfall.action_jump(row)

    snapshot(produce, "produce_request_detail", (140, 48), steps)


def test_help_screen(produce: Path) -> None:
    async def steps(app: KafkaEduApp, pilot: Pilot) -> None:
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "HelpScreen")

    snapshot(produce, "help", (120, 40), steps)
