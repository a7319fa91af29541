"""The Traces pane: root spans grouped by kind (startup, shutdown, controller event, request by API...), newest
first, filtered by the search; background chatter (tui.store.is_background) folded away unless `f` shows it."""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.message import Message

from tui.store import SpanStore
from tui.widgets.format import clock, duration, short_instance
from tui.widgets.rows import RowsView

GroupRow = tuple[str, str]  # ("group", kind) or ("trace", trace_id)
GROUP, TRACE = "group", "trace"

HEADER = Style(bold=True, color="bright_cyan")
DIM = Style(dim=True)
ERROR = Style(color="red", bold=True)
RUNNING = Style(color="green")
MIN_LABEL = 10  # columns a trace's label keeps before the clock gives up its room
TAIL = len("999.9ms")  # a duration's width, as the rows' layout reckons it


class TraceList(RowsView[GroupRow]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "toggle", "Fold", show=False),
        Binding("right_square_bracket", "fold_all(False)", "Expand all", show=False),
        Binding("left_square_bracket", "fold_all(True)", "Collapse all", show=False),
    ]

    class Selected(Message):
        """The trace under the cursor (None on a group header)."""

        def __init__(self, trace_id: str | None) -> None:
            super().__init__()
            self.trace_id = trace_id

    def __init__(self, store: SpanStore, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.store = store
        self.needle = ""
        self.collapsed: set[str] = set()
        self._version = -1
        self.matching = 0
        self.show_background = False  # `f`: background chatter (tui.store.is_background) is folded away by default
        self.hidden = 0  # background traces left out
        self._counts: dict[str, int] = {}  # kind -> traces its header counts (background left out when hidden)
        self.border_title = "Traces"

    def rebuild(self, force: bool = False) -> None:
        """Recompute the rows from the store when it changed; the cursor stays on its trace."""
        if not force and self._version == self.store.version:
            return
        self._version = self.store.version
        rows: list[GroupRow] = []
        self.matching = self.hidden = 0
        self._counts = {}
        for kind in self.store.kinds():
            trace_ids = self.store.newest_first(kind)
            if not self.show_background:
                shown = [t for t in trace_ids if not self.store.traces[t].folded]
                self.hidden += len(trace_ids) - len(shown)
                trace_ids = shown
            self._counts[kind] = len(trace_ids)
            if self.needle:
                trace_ids = [t for t in trace_ids if self.store.traces[t].matches(self.needle)]
            if not trace_ids:
                continue  # nothing matches, or a group of background traffic only
            self.matching += len(trace_ids)
            rows.append((GROUP, kind))
            if kind not in self.collapsed:
                rows.extend((TRACE, t) for t in trace_ids)
        self.set_rows(rows, keep_cursor_on=self.current)
        self.border_subtitle = f"{self.matching} traces" + (f" matching {self.needle!r}" if self.needle else "")
        self.border_title = self._title()

    def _title(self) -> str:
        """Says how much background traffic is folded away, and the key that shows it; shorter in a narrow pane."""
        if self.show_background:
            titles = ["Traces · background shown (f hides)", "Traces · all (f)"]
        elif self.hidden:
            titles = [f"Traces · {self.hidden:,} background hidden (f shows)", f"Traces · {self.hidden:,} hidden (f)"]
        else:
            return "Traces"
        return next((t for t in titles if len(t) <= self.size.width - 4), titles[-1])

    def on_resize(self) -> None:  # RowsView's on_resize runs too (Textual calls each class's handler)
        self.border_title = self._title()

    def toggle_background(self) -> None:
        self.show_background = not self.show_background
        self.rebuild(force=True)

    def set_filter(self, needle: str) -> None:
        self.needle = needle.lower().strip()
        self.rebuild(force=True)
        if self.current is None or self.current[0] == GROUP:
            first = next((i for i, row in enumerate(self.rows) if row[0] == TRACE), None)
            if first is not None:
                self._move(first)

    def select_trace(self, trace_id: str) -> None:
        if (TRACE, trace_id) in self.rows:
            self._move(self.rows.index((TRACE, trace_id)))

    def action_toggle(self) -> None:
        row = self.current
        if row is not None and row[0] == GROUP:
            self.collapsed ^= {row[1]}
            self.rebuild(force=True)

    def action_fold_all(self, collapse: bool) -> None:
        self.collapsed = set(self.store.groups) if collapse else set()
        self.rebuild(force=True)

    def on_rows_view_highlighted(self, event: RowsView.Highlighted) -> None:
        event.stop()
        row = self.current
        self.post_message(self.Selected(row[1] if row and row[0] == TRACE else None))

    def render_row(self, row: GroupRow, width: int, base: Style) -> list[Segment]:
        kind_or_id = row[1]
        if row[0] == GROUP:
            count = self._counts.get(kind_or_id, 0)
            marker = "▸" if kind_or_id in self.collapsed else "▾"
            return [Segment(f"{marker} {kind_or_id} ", HEADER), Segment(f"({count})", DIM)]
        trace = self.store.traces.get(kind_or_id)
        if trace is None or trace.root is None:
            return [Segment("  (evicted)", DIM)]
        root = trace.root
        label = root.attributes.get("kafka.controller.event") or root.attributes.get("kafka.api.name") or root.name
        if root.instance and root.instance.startswith("broker-") and root.name.startswith("KafkaServer."):
            label = root.name.removeprefix("KafkaServer.")  # the group already says startup or shutdown
        if trace.running:
            lost = any(self.store.is_lost(s) for s in trace.spans.values() if not s.end_ns)
            tail, tail_style = ("never ended", ERROR) if lost else ("running", RUNNING)
        else:
            tail, tail_style = duration(trace.end_ns - trace.start_ns), DIM
        mark = Segment("✗ ", ERROR) if trace.errors else Segment("  ")
        stamp, instance = clock(trace.start_ns)[3:], f"{short_instance(trace.instance):<3} "  # mm:ss.mmm: hours
        # waste room. A narrow pane (the left column at 80 columns) gives the label the clock's room, the
        # milliseconds first, on every row alike (judged with a duration's width); the duration is always whole.
        for left in (f"{stamp} {instance}", f"{stamp[:5]} {instance}", instance):
            if width - 2 - len(left) - 1 - TAIL >= MIN_LABEL:  # mark, clock and instance, label, space, tail
                break
        room = max(width - 2 - len(left) - 1 - len(tail), 1)
        return [mark, Segment(left, DIM), Segment(f"{fit(label, room):<{room}} "), Segment(tail, tail_style)]


def fit(text: str, room: int) -> str:
    """`text` in `room` columns: cut with an ellipsis when it is longer."""
    return text if len(text) <= room else text[:room - 1] + "…"
