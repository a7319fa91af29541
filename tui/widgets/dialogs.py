"""Modal screens: the key help (`?`) and the create-topic dialog (`c`)."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

KEYS: list[tuple[str, str]] = [
    ("j / k, ↓ / ↑", "move in the focused pane (PgUp/PgDn, g/G: page, first, last)"),
    ("Tab / Shift+Tab", "next / previous pane: Cluster, Traces, Waterfall, Detail, Log"),
    ("Enter", "fold or unfold a trace group (Traces) or a span's children (Waterfall)"),
    ("[ / ]", "collapse all / expand all"),
    ("/", "search: filter traces by span name, step id, instance, API or event (Esc clears)"),
    ("z", "maximize the focused pane, or restore it"),
    ("S", "save a screenshot (SVG) into the run directory"),
    ("?", "this help"),
    ("q", "quit (a cluster the TUI started is stopped)"),
    ("", ""),
    ("live cluster only", "the broker under the Cluster pane's cursor:"),
    ("x", "kill -9 the broker (no shutdown: watch the controller notice)"),
    ("s", "controlled stop (SIGTERM: KafkaServer.shutdown with controlled shutdown)"),
    ("r", "restart: stop it if running, then start it"),
    ("p", "pause / resume (SIGSTOP / SIGCONT, like a long GC pause)"),
    ("c", "create a topic (dialog) — or, while a broker is paused at a breakpoint, continue it"),
    ("P", "produce a burst of 1,000 messages with a real client into the newest topic"),
    ("b", "set or clear a breakpoint on the selected span's step (FIDELITY id)"),
    ("n", "while paused at a breakpoint: run to the next step"),
]


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,question_mark", "dismiss", "Close")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Vertical { width: auto; max-width: 100; height: auto; max-height: 90%;
                            border: round $accent; background: $surface; padding: 0 1; }
    """

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold cyan", no_wrap=True)
        table.add_column()
        for key, what in KEYS:
            table.add_row(key, what)
        with Vertical() as box:
            box.border_title = "kafka-edu tui · keys"
            yield Static(table)

    def action_dismiss(self) -> None:
        self.dismiss(None)


class CreateTopicScreen(ModalScreen[tuple[str, int, int] | None]):
    """Name, partitions, replication factor; Enter in any field creates."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    CreateTopicScreen { align: center middle; }
    CreateTopicScreen > Grid { grid-size: 2; grid-columns: 20 30; grid-rows: 3; width: auto; height: auto;
                               border: round $accent; background: $surface; padding: 0 1; }
    CreateTopicScreen Label { padding: 1 0; }
    CreateTopicScreen #error { column-span: 2; color: $error; height: 1; }
    """

    def __init__(self, brokers: int) -> None:
        super().__init__()
        self.brokers = max(brokers, 1)

    def compose(self) -> ComposeResult:
        with Grid() as grid:
            grid.border_title = "create topic"
            yield Label("name")
            yield Input("demo", id="name")
            yield Label("partitions")
            yield Input("3", id="partitions", type="integer")
            yield Label("replication factor")
            yield Input(str(min(3, self.brokers)), id="replication", type="integer")
            yield Button("Create", variant="primary", id="create")
            yield Button("Cancel", id="cancel")
            yield Label("", id="error")

    def on_input_submitted(self) -> None:
        self._submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "create":
            self._submit()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def _submit(self) -> None:
        name = self.query_one("#name", Input).value.strip()
        try:
            partitions = int(self.query_one("#partitions", Input).value)
            replication = int(self.query_one("#replication", Input).value)
        except ValueError:
            partitions = replication = 0
        if not name or partitions < 1 or replication < 1:
            self.query_one("#error", Label).update("a name, and partitions and replication factor of at least 1")
            return
        self.dismiss((name, partitions, replication))
