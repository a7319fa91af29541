"""Our own test code, not a Kafka port: the helpers the TUI's tests share, for copying a sample run and waiting for
the app without sleeping blindly."""

from __future__ import annotations

import io
import shutil
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from rich.console import Console
from textual.pilot import Pilot

from tui.app import KafkaEduApp
from tui.widgets.rows import RowsView


def copy_run(sample: Path, target: Path) -> Path:
    """A writable copy of a sample, for tests that damage it."""
    shutil.copytree(sample, target)
    return target


async def wait_for(pilot: Pilot, condition: Callable[[], object], timeout_s: float = 10.0, what: str = "") -> None:
    """Let the app run until `condition` holds."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or condition}")
        await pilot.pause(0.02)


def row_texts(view: RowsView) -> list[str]:
    """What a virtualized pane shows, line by line."""
    return [view.render_line(y).text.rstrip() for y in range(view.scrollable_content_region.height)]


def screen_lines(app: KafkaEduApp) -> list[str]:
    """What the terminal shows now, line by line, modal screens included."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def plain(renderable: object, width: int = 120) -> str:
    console = Console(width=width, file=io.StringIO())
    console.print(renderable)
    return console.file.getvalue()


@asynccontextmanager
async def opened(run_dir: Path, size: tuple[int, int] = (120, 40), **options: object
                 ) -> AsyncIterator[tuple[KafkaEduApp, Pilot]]:
    """The app on a finished run, once it has read every file and shows a first trace."""
    app = KafkaEduApp(run_dir, watch=False, **options)
    async with app.run_test(size=size) as pilot:
        def settled() -> bool:
            log = app.log_pane
            return (app.loaded.is_set() and app.waterfall.trace_id is not None and len(log.rows) == len(app.model.log)
                    and log.cursor == max(len(log.rows) - 1, 0) and log.scroll_y == log.max_scroll_y)

        await wait_for(pilot, settled, what="the run to load and every pane to catch up")
        await pilot.pause()
        yield app, pilot
