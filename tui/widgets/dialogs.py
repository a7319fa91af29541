"""Modal screens: the key help (`?`) and the create-topic dialog (`c`)."""

from __future__ import annotations

import textwrap
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

# Every key, grouped as a learner meets them. A test checks that each binding of the app and its panes is here.
KEY_GROUPS: list[tuple[str, list[tuple[str, str]]]] = [
    ("moving around", [
        ("j / k, ↓ / ↑", "move in the focused pane"),
        ("PgDn / PgUp", "a page down / up"),
        ("g / G, Home / End", "first / last row"),
        ("Tab / Shift+Tab", "next / previous pane: Cluster (or Quorum), Traces, Waterfall, Detail, Log"),
        ("Enter", "fold or unfold a trace group (Traces) or a span's children (Waterfall)"),
        ("[ / ]", "collapse all / expand all"),
        ("z", "maximize the focused pane, or restore it (handy at 80×24)"),
        ("v", "KRaft: the Metadata log, Groups or Voters pane under Quorum, in turn"),
        ("o", "follow the selected span's link into the linked trace (again: the next link)"),
    ]),
    ("search and filter", [
        ("/", "filter traces by span name, step id, instance, API or event (Enter keeps, Esc clears)"),
        ("f", "show / fold background traffic: replica fetches, processor loops, followers' Fetch requests, KRaft's "
              "NoOps and idle turns, the TUI's own polls"),
    ]),
    ("cluster actions · live cluster only, on the node under the Cluster (KRaft: Quorum) pane's cursor", [
        ("x", "kill -9 the node: no shutdown runs; watch the controller notice (KRaft: fence a broker once its "
              "session times out, elect a new leader)"),
        ("s", "controlled stop (SIGTERM: KafkaServer.shutdown, controlled shutdown first)"),
        ("r", "restart: stop it if it runs, then start a new process"),
        ("p / i", "pause / resume (SIGSTOP / SIGCONT, a GC pause); i: isolate / heal (--netns)"),
        ("c", "create a topic (a dialog); while a broker is paused, c continues it instead"),
        ("P", "produce a burst of 1,000 records with a real client into the newest topic"),
    ]),
    ("breakpoints · live cluster only", [
        ("b", "set or clear a breakpoint on the selected span's FIDELITY step (Waterfall)"),
        ("n", "while a broker is paused at a breakpoint: run to its next step"),
        ("c", "while a broker is paused at a breakpoint: continue it"),
    ]),
    ("other", [
        ("l / d", "a lesson (--lesson NAME): l to its input, Esc back; d lets the lesson act for you"),
        ("S", "save a screenshot (SVG) into the run directory"),
        ("Ctrl+P", "command palette"),
        ("?", "this help: every key, in the key bar or not (Esc, q or ? closes it)"),
        ("q", "quit (a cluster the TUI started is stopped)"),
    ]),
]


HELP_WIDTH = 96  # the widest the key list gets; narrower terminals wrap each description under itself
KEY_WIDTH = max(len(key) for _, keys in KEY_GROUPS for key, _ in keys)


def help_text(width: int = HELP_WIDTH) -> Text:
    """The keys in two columns, a heading over each group, each description wrapped under itself in `width`."""
    width = max(min(width, HELP_WIDTH), KEY_WIDTH + 22)
    text = Text()
    for number, (group, keys) in enumerate(KEY_GROUPS):
        if number:
            text.append("\n")
        text.append("\n".join(textwrap.wrap(group, width)) + "\n", style="bold underline")
        for key, what in keys:
            lines = textwrap.wrap(what, width - KEY_WIDTH - 2) or [""]
            text.append(f"{key:<{KEY_WIDTH}}  ", style="bold cyan")
            text.append(lines[0] + "\n")
            for line in lines[1:]:
                text.append(" " * (KEY_WIDTH + 2) + line + "\n")
    text.rstrip()
    return text


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "dismiss", "Close"),
        Binding("j", "scroll(1)", "Down", show=False),
        Binding("k", "scroll(-1)", "Up", show=False),
        Binding("g", "scroll(-1000)", "Top", show=False),
        Binding("G", "scroll(1000)", "Bottom", show=False),
    ]
    # The box takes the key list's width and scrolls when the terminal is too short for it. The list is plain Text
    # laid out here: a Rich Table in an auto-width box measures 0 wide, and the box drew empty.
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: auto; height: auto; max-height: 100%;
                                  border: round $accent; background: $surface; padding: 0 1; }
    HelpScreen #help-keys { width: auto; }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll() as box:
            box.border_title = "kafka-edu tui · keys"
            box.border_subtitle = "Esc closes"
            yield Static(help_text(), id="help-keys")

    def on_resize(self) -> None:
        self.query_one("#help-keys", Static).update(help_text(self.size.width - 6))  # border, padding, scrollbar

    def action_scroll(self, lines: int) -> None:
        """j / k, g / G scroll as the arrows, Home / End do (the list scrolls only in a terminal too short for it)."""
        self.query_one(VerticalScroll).scroll_relative(y=lines, animate=False)

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
