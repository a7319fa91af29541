"""A virtualized list: only the rows on screen are rendered, so 100,000 rows scroll as fast as ten."""

from __future__ import annotations

from typing import ClassVar, Generic, TypeVar

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

RowT = TypeVar("RowT")
ELLIPSIS = Style(dim=True)


class RowsView(ScrollView, Generic[RowT], can_focus=True):
    """Rows of one kind, a cursor, and the line API (`render_line`) doing the drawing."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j,down", "cursor(1)", "Down", show=False),
        Binding("k,up", "cursor(-1)", "Up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("home,g", "jump(0)", "First", show=False),
        Binding("end,G", "jump(-1)", "Last", show=False),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"rows--cursor"}
    DEFAULT_CSS = """
    RowsView > .rows--cursor { background: $accent 30%; }
    RowsView:focus > .rows--cursor { background: $accent 60%; }
    """

    cursor: reactive[int] = reactive(0, always_update=True, repaint=False)

    class Highlighted(Message):
        """The cursor moved to another row."""

        def __init__(self, view: RowsView, index: int) -> None:
            super().__init__()
            self.view = view
            self.index = index

        @property
        def control(self) -> RowsView:
            return self.view

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.rows: list[RowT] = []
        self.moved_by_user = False  # the cursor was moved by a key or a click, not only by the app

    def set_rows(self, rows: list[RowT], keep_cursor_on: RowT | None = None) -> None:
        """Replace the rows; the cursor stays on `keep_cursor_on` if it is still there."""
        before = self.current
        self.rows = rows
        self.virtual_size = Size(self.size.width, len(rows))
        index = self.cursor
        if keep_cursor_on is not None:
            try:
                index = rows.index(keep_cursor_on)
            except ValueError:
                pass
        index = min(index, max(len(rows) - 1, 0))
        self._move(index, announce=not rows or rows[index] != before)
        self.refresh()

    @property
    def current(self) -> RowT | None:
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None

    def action_cursor(self, delta: int) -> None:
        self._user_move(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        self._user_move(self.cursor + direction * max(self.scrollable_content_region.height - 1, 1))

    def action_jump(self, index: int) -> None:
        self._user_move(index if index >= 0 else len(self.rows) - 1)

    def _user_move(self, index: int) -> None:
        self.moved_by_user = True
        self._move(index)

    def _move(self, index: int, announce: bool = True) -> None:
        if not self.rows:
            self.cursor = 0
            return
        index = max(0, min(index, len(self.rows) - 1))
        changed = index != self.cursor
        self.cursor = index
        self.scroll_to_region_row(index)
        self.refresh()
        if changed or announce:
            self.post_message(self.Highlighted(self, index))

    def scroll_to_region_row(self, index: int) -> None:
        """Scroll just enough to show row `index`; before the first layout, on_resize does it. `force`: rows added
        just now may not have brought their scrollbar yet, and without one Textual ignores the scroll."""
        height = self.scrollable_content_region.height
        if not height:
            return
        if index < self.scroll_y:
            self.scroll_to(y=index, animate=False, force=True)
        elif index >= self.scroll_y + height:
            self.scroll_to(y=index - height + 1, animate=False, force=True)

    def on_click(self, event) -> None:
        self._user_move(int(self.scroll_y) + event.y)

    def on_resize(self) -> None:
        self.virtual_size = Size(self.size.width, len(self.rows))
        self.scroll_to_region_row(self.cursor)

    def render_line(self, y: int) -> Strip:
        index = int(self.scroll_y) + y
        width = self.scrollable_content_region.width
        if index >= len(self.rows):
            return Strip.blank(width, self.rich_style)
        base = self.rich_style
        if index == self.cursor:
            base = base + self.get_component_rich_style("rows--cursor")
        segments = self.render_row(self.rows[index], width, base)
        length = sum(s.cell_length for s in segments)
        strip = Strip(Segment.apply_style(segments, base), length)
        if length > width > 1:  # a row longer than the pane says so: its last cell is an ellipsis, not a cut word
            strip = Strip.join([strip.crop(0, width - 1), Strip([Segment("…", base + ELLIPSIS)], 1)])
        return strip.adjust_cell_length(width, base)

    def render_row(self, row: RowT, width: int, base: Style) -> list[Segment]:
        """The segments of one row; subclasses draw their kind of row."""
        return [Segment(str(row))]
