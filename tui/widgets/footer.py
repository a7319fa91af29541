"""The key bar under the panes: Textual's Footer, fitted to the terminal's width.

Textual's own Footer lays its keys out in one row and lets the row run on under the command palette's key, which is
docked at the right: at 80 columns a live run's ten keys did not fit, and the bar read `P ▏^p paletter` (Produce cut,
the palette's label run into what was under it). This one leaves out the keys least needed at a glance until the rest
fit whole, in their usual order: first the command palette's, then breakpoints, search, produce and topic, and so on
(`KEEP_ORDER`). `?` stays whatever the width: its help lists every key, and every key works whether shown or not.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual import events
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Footer

PALETTE = "command_palette"
# Most needed first: the help (it lists the rest), quitting, what a lesson or a paused broker waits for, then the
# keys that act on the node under the cursor, then the rest. A key left out still works; `?` lists it.
KEEP_ORDER = ("help", "quit", "lesson_do", "lesson_focus", "continue_paused", "next_step", "kill", "stop", "restart",
              "pause", "next_view", "follow_link", "create_topic", "produce", "search", "breakpoint", PALETTE)


def key_width(key: Widget, compact: bool = True) -> int:
    """Columns a FooterKey takes in a compact footer: its key, a space and its description, a margin after it (the
    palette's key a border at its left too); a little more than it takes in a footer that is not compact."""
    description = getattr(key, "description", "")
    width = len(getattr(key, "key_display", "")) + (1 + len(description) if description else 0)
    return width + 1 + (0 if compact else 2) + (1 if getattr(key, "action", "") == PALETTE else 0)


def fitted(keys: list[Widget], width: int, compact: bool = True) -> list[Widget]:
    """`keys` in their order, without the least needed ones (KEEP_ORDER, from its end) until they fit `width`."""
    kept = list(keys)

    def rank(key: Widget) -> int:
        action = getattr(key, "action", "")
        return KEEP_ORDER.index(action) if action in KEEP_ORDER else len(KEEP_ORDER) - 1

    while len(kept) > 1 and sum(key_width(k, compact) for k in kept) > width:
        kept.remove(max(kept, key=rank))
    return kept


class KeyBar(Footer):
    """A Footer whose keys always fit its width, each label whole (see the module's docstring)."""

    def compose(self) -> ComposeResult:
        widgets: Iterable[Widget] = list(super().compose())
        if any(getattr(w, "action", None) is None for w in widgets):  # a key group: laid out as Textual does
            yield from widgets
            return
        width = self.size.width or self.app.size.width
        yield from fitted(list(widgets), width, self.compact)

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != getattr(self, "_fitted_width", None):
            self._fitted_width = event.size.width
            self.call_after_refresh(self.recompose)
