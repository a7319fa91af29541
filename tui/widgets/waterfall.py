"""The Waterfall pane: one trace as an indented tree with bars on a shared time axis (Jaeger's trace page).

Critical-path sections are drawn bright, errors red, running spans grow until they end, lost spans (their process
died) are dashed, span events are ◆ marks on the bar. Spans whose parent never arrived hang under "orphans".
"""

from __future__ import annotations

import time
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.message import Message

from kafka_edu.tracing.query import SpanRecord
from tui.critical_path import Section, critical_path
from tui.store import ORPHANS, SpanStore, Trace
from tui.widgets.format import duration
from tui.widgets.rows import RowsView

WaterfallRow = tuple[int, str]  # (depth, span id or ORPHANS)

SPINNER = "◐◓◑◒"
NAME = Style()
CRITICAL_NAME = Style(bold=True)
ERROR_NAME = Style(color="red", bold=True)
RUNNING_NAME = Style(color="green")
LOST_NAME = Style(color="red", dim=True, italic=True)
MATCH = Style(underline=True)
DIM = Style(dim=True)
BAR = Style(color="dodger_blue2")
CRITICAL_BAR = Style(color="orange1")
ERROR_BAR = Style(color="red")
RUNNING_BAR = Style(color="green")
LOST_BAR = Style(color="red", dim=True)
EVENT = Style(color="bright_white", bold=True)


class Waterfall(RowsView[WaterfallRow]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "toggle", "Fold", show=False),
        Binding("right_square_bracket", "fold_all(False)", "Expand all", show=False),
        Binding("left_square_bracket", "fold_all(True)", "Collapse all", show=False),
    ]

    class SpanSelected(Message):
        def __init__(self, span: SpanRecord | None) -> None:
            super().__init__()
            self.span = span

    def __init__(self, store: SpanStore, *, live: bool, id: str | None = None) -> None:
        super().__init__(id=id)
        self.store = store
        self.live = live  # running spans grow with the wall clock; in a replay they end where the run ended
        self.trace_id: str | None = None
        self.collapsed: set[str] = set()
        self.needle = ""
        self.critical: dict[str, list[Section]] = {}
        self.child_spans: dict[str, list[SpanRecord]] = {}
        self._version = -1
        self._frame = 0

    @property
    def trace(self) -> Trace | None:
        return self.store.traces.get(self.trace_id) if self.trace_id else None

    def show(self, trace_id: str | None) -> None:
        if trace_id != self.trace_id:
            self.trace_id, self.collapsed, self.cursor = trace_id, set(), 0
            self.scroll_to(y=0, animate=False)
            self.rebuild(force=True)
            self.post_message(self.SpanSelected(self.current_span))

    @property
    def current_span(self) -> SpanRecord | None:
        trace, row = self.trace, self.current
        return trace.spans.get(row[1]) if trace and row else None

    def now_ns(self, trace: Trace) -> int:
        end = trace.end_ns
        return max(time.time_ns(), end) if self.live and trace.running else end

    def rebuild(self, force: bool = False) -> None:
        trace = self.trace
        if trace is None:
            self.child_spans, self.critical = {}, {}
            self.border_title = "Waterfall"
            self.set_rows([])
            return
        if not force and trace.version == self._version and not trace.running:
            return
        self._version = trace.version
        spans = sorted(trace.spans.values(), key=lambda s: s.start_ns)
        self.child_spans = {}
        orphans = []
        for span in spans:
            if span.parent_id and span.parent_id in trace.spans:
                self.child_spans.setdefault(span.parent_id, []).append(span)
            elif span.parent_id:
                orphans.append(span)
        roots = [s for s in spans if not s.parent_id]
        self.critical = {}
        for root in roots:
            for section in critical_path(spans, root.span_id, self.now_ns(trace)):
                self.critical.setdefault(section.span_id, []).append(section)
        rows: list[WaterfallRow] = []
        for root in roots:
            self._flatten(root, 0, rows)
        if orphans:
            rows.append((0, ORPHANS))
            if ORPHANS not in self.collapsed:
                for orphan in orphans:
                    self._flatten(orphan, 1, rows)
        self.set_rows(rows, keep_cursor_on=self.current)
        root = trace.root
        self.border_title = f"Waterfall · {root.name if root else '?'} · {duration(self.now_ns(trace) - self.t0)}"
        self.border_subtitle = f"{len(trace.spans)} spans" + (f" · {len(orphans)} orphans" if orphans else "") + \
            (f" · {trace.errors} errors" if trace.errors else "")

    def _flatten(self, span: SpanRecord, depth: int, rows: list[WaterfallRow]) -> None:
        stack = [(span, depth)]
        while stack:  # iterative: a deep trace must not hit Python's recursion limit
            current, level = stack.pop()
            rows.append((level, current.span_id))
            if current.span_id not in self.collapsed:
                stack.extend((child, level + 1) for child in reversed(self.child_spans.get(current.span_id, [])))

    @property
    def t0(self) -> int:
        trace = self.trace
        return min((s.start_ns for s in trace.spans.values()), default=0) if trace else 0

    def tick(self) -> None:
        """Animate running spans: called by the app's timer."""
        trace = self.trace
        if trace is not None and trace.running:
            self._frame += 1
            self.rebuild(force=True)

    def action_toggle(self) -> None:
        row = self.current
        if row is not None and (row[1] == ORPHANS or row[1] in self.child_spans):
            self.collapsed ^= {row[1]}
            self.rebuild(force=True)

    def action_fold_all(self, collapse: bool) -> None:
        self.collapsed = (set(self.child_spans) | {ORPHANS}) if collapse else set()
        self.rebuild(force=True)

    def on_rows_view_highlighted(self, event: RowsView.Highlighted) -> None:
        event.stop()
        self.post_message(self.SpanSelected(self.current_span))

    # -- drawing -----------------------------------------------------------------------------------------------------

    def render_row(self, row: WaterfallRow, width: int, base: Style) -> list[Segment]:
        trace = self.trace
        depth, span_id = row
        name_width = max(min(width * 2 // 5, 60), 16)
        duration_width = 11
        bar_width = max(width - name_width - duration_width - 2, 4)
        if trace is None:
            return []
        if span_id == ORPHANS:
            marker = "▸" if ORPHANS in self.collapsed else "▾"
            return [Segment(f"{marker} orphans: spans whose parent never arrived", ERROR_NAME)]
        span = trace.spans.get(span_id)
        if span is None:
            return []
        lost = self.store.is_lost(span)
        fold = ("▸ " if span_id in self.collapsed else "▾ ") if span_id in self.child_spans else "  "
        indent = "  " * min(depth, 12)
        name_style = (LOST_NAME if lost else ERROR_NAME if span.is_error else RUNNING_NAME if not span.end_ns
                      else CRITICAL_NAME if span_id in self.critical else NAME)
        label = f"{indent}{fold}{span.name}"
        if len(label) > name_width:
            label = label[: name_width - 1] + "…"
        name = [Segment(f"{label:<{name_width}} ", name_style)]
        if self.needle and (self.needle in span.name.lower() or self.needle in (span.step or "").lower()):
            # a match underlines the name only, not the indent and padding around it (a rule across the pane)
            lead = min(len(indent) + len(fold), len(label))
            name = [Segment(label[:lead], name_style), Segment(label[lead:], name_style + MATCH),
                    Segment(" " * (name_width - len(label) + 1), name_style)]
        t0, t1 = self.t0, self.now_ns(trace)
        if lost:
            tail = "never ended"
        elif not span.end_ns:
            tail = f"{SPINNER[self._frame % len(SPINNER)]} {duration(t1 - span.start_ns)}"
        else:
            tail = duration(span.end_ns - span.start_ns)
        return [*name, *self._bar(span, lost, t0, t1, bar_width),
                Segment(f" {tail:>{duration_width}}", DIM if span.end_ns else name_style)]

    def _bar(self, span: SpanRecord, lost: bool, t0: int, t1: int, width: int) -> list[Segment]:
        """One cell per `width`th of the trace's time; the critical sections of this span in the path colour."""
        scale = max(t1 - t0, 1) / width
        end = span.end_ns or t1
        first = min(int((span.start_ns - t0) / scale), width - 1)
        last = max(min(int((end - t0) / scale), width - 1), first)
        style = LOST_BAR if lost else ERROR_BAR if span.is_error else RUNNING_BAR if not span.end_ns else BAR
        glyph = "╌" if lost else "█"
        sections = self.critical.get(span.span_id, [])
        events = {min(int((e.time_ns - t0) / scale), width - 1) for e in span.events}
        cells: list[tuple[str, Style]] = []
        for cell in range(width):
            if cell in events and first <= cell <= last:
                cells.append(("◆", EVENT))
            elif first <= cell <= last:
                lo, hi = t0 + cell * scale, t0 + (cell + 1) * scale
                on_path = not span.is_error and any(s.start_ns < hi and s.end_ns > lo for s in sections)
                cells.append((glyph, CRITICAL_BAR if on_path else style))
            else:
                cells.append(("·" if cell % 10 == 0 else " ", DIM))
        segments: list[Segment] = []
        for char, cell_style in cells:  # runs of one style become one segment
            if segments and segments[-1].style is cell_style:
                segments[-1] = Segment(segments[-1].text + char, cell_style)
            else:
                segments.append(Segment(char, cell_style))
        return segments
