"""The Log pane: state changes across the cluster in time order (broker states, controllers, partition leaders)."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style

from tui.cluster import ClusterModel, LogEntry
from tui.widgets.format import clock, short_instance
from tui.widgets.rows import RowsView

LEVELS = {"info": Style(), "controller": Style(color="bright_yellow"), "leader": Style(color="cyan"),
          "warning": Style(color="red", bold=True)}


class LogPane(RowsView[LogEntry]):
    """Follows the newest entry unless the cursor was moved up to read older ones."""

    def __init__(self, model: ClusterModel, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.model = model
        self._length = -1

    def rebuild(self) -> None:
        if self._length == len(self.model.log) and self.rows and self.rows[-1] is self.model.log[-1]:
            return
        following = not self.rows or self.cursor >= len(self.rows) - 1
        self._length = len(self.model.log)
        self.set_rows(list(self.model.log), keep_cursor_on=None if following else self.current)
        if following:
            self.action_jump(-1)

    def render_row(self, row: LogEntry, width: int, base: Style) -> list[Segment]:
        return [Segment(f"{clock(row.time_ns)} ", Style(dim=True)),
                Segment(f"{short_instance(row.instance):<3} ", Style(dim=True)),
                Segment(row.text, LEVELS.get(row.level, Style()))]
