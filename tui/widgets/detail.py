"""The Detail pane: the selected span's FIDELITY row with a paragraph on the Kafka step, its links to spans of other
traces (`o` follows them), where the original lives in Kafka, the ported Python from the step's own line
(`code.line.number`), then its attributes and events."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from kafka_edu.tracing.query import SpanRecord
from tui.explanations import explain
from tui.source import source_lines, step_line
from tui.widgets.format import clock, duration

# Finds a linked span by its trace and span ids, or None when the store does not hold it.
FindSpan = Callable[[str, str], SpanRecord | None]
LINES_BEFORE = 1  # the excerpt starts just above the step's own line...
LINES_AFTER = 10  # ...and shows the code it runs
# Shown in their own sections, so the attribute table does not repeat them.
SECTIONED = {"kafka.step", "kafka.origin.file", "kafka.origin.symbol", "kafka.origin.version", "code.file.path",
             "code.line.number", "code.function.name"}


def source_excerpt(path: str, line: int, marker: str = "", function: str = "") -> tuple[Syntax, int] | None:
    """A repo file from just above the step's own line to a few lines after it, that line highlighted, and the line
    (it differs from the recorded `line` when the file has changed since the run: tui.source finds the step again)."""
    lines = source_lines(path)
    if not lines or not 1 <= line <= len(lines):
        return None
    line = step_line(lines, line, marker, function) if marker else line
    first = max(line - LINES_BEFORE, 1)
    while first < line and not lines[first - 1].strip():  # a blank line above says nothing
        first += 1
    last = min(line + LINES_AFTER, len(lines))
    syntax = Syntax("\n".join(lines[first - 1:last]), "python", line_numbers=True, start_line=first,
                    highlight_lines={line}, theme="ansi_dark", word_wrap=False)
    return syntax, line


def describe(span: SpanRecord, lost: bool, trace_start_ns: int, find: FindSpan | None = None) -> RenderableType:
    """Everything the pane says about one span; `find` looks its links up."""
    parts: list[RenderableType] = []
    status = (Text("never ended: its process died", style="red") if lost else
              Text(f"running since {clock(span.start_ns)}", style="green") if not span.end_ns else
              Text(f"{duration(span.end_ns - span.start_ns)}", style="bold"))
    if span.is_error:
        status.append(f"  ERROR {span.attributes.get('exception.type') or _exception_type(span) or ''}",
                      style="bold red")
    parts.append(Text.assemble((span.name, "bold"), "  ", (span.instance, "cyan"), "  ", status,
                               f"  +{duration(span.start_ns - trace_start_ns)}"))
    row = explain(span.step)
    if span.step:
        heading = Text.assemble(("FIDELITY ", "dim"), (span.step, "bold magenta"))
        if row is not None:
            heading.append(f"  {row.span}")
            parts.append(heading)
            if row.what:
                parts.append(Text(row.what, style="italic"))
            parts.append(Text(row.why))
        else:
            parts.append(heading.append("  (no explanation for this step yet)", style="dim"))
    parts.extend(_links(span, find))
    parts.extend(_code(span))
    attributes = Table.grid(padding=(0, 1))
    attributes.add_column(style="dim", no_wrap=True)
    attributes.add_column()
    for key, value in sorted(span.attributes.items()):
        if key not in SECTIONED:
            attributes.add_row(key, _short(value))
    if attributes.row_count:
        parts.append(Text("attributes", style="bold underline"))
        parts.append(attributes)
    if span.events:
        events = Table.grid(padding=(0, 1))
        for event in span.events:
            details = ", ".join(f"{k}={_short(v)}" for k, v in event.attributes.items() if k != "exception.stacktrace")
            events.add_row(Text(f"+{duration(event.time_ns - span.start_ns)}", style="dim"),
                           Text(event.name, style="red" if event.name == "exception" else "bold"), details)
        parts.append(Text("events", style="bold underline"))
        parts.append(events)
    return Group(*parts)


def _links(span: SpanRecord, find: FindSpan | None) -> list[RenderableType]:
    """The spans this one links to (whoever enqueued its event, the writes it completes, the target a reconciliation
    moves towards), each as the waterfall would name it, or by its ids while its trace is not held. Above the code:
    a link is where the story goes on, and `o` goes there."""
    if not span.links:
        return []
    heading = Text.assemble(("links", "bold underline"),
                            ("  o: to the linked span" + ", again: the next" * (len(span.links) > 1), "dim"))
    parts: list[RenderableType] = [heading]
    for number, (trace_id, span_id) in enumerate(span.links, 1):
        linked = find(trace_id, span_id) if find is not None else None
        line = Text(f"{number} ", style="dim")
        if linked is None:
            parts.append(line.append_text(Text.assemble(f"trace {trace_id[:8]}… span {span_id[:8]}…  ",
                                                        ("not loaded", "dim"))))
            continue
        offset = linked.start_ns - span.start_ns
        if linked.step:
            line.append(linked.step, style="bold magenta").append(" ")
        parts.append(line.append_text(Text.assemble(
            (linked.name, "bold"), "  ", (linked.instance, "cyan"), "  ", clock(linked.start_ns),
            (f"  ({duration(abs(offset))} {'after' if offset >= 0 else 'before'} this span)", "dim"))))
    return parts


def links_found(span: SpanRecord | None, find: FindSpan | None) -> int:
    """How many of the span's linked spans the store holds: when that changes, the pane redraws its links."""
    if span is None or find is None:
        return 0
    return sum(find(trace_id, span_id) is not None for trace_id, span_id in span.links)


def _code(span: SpanRecord) -> list[RenderableType]:
    """Where the step lives: the Kafka original, and the port's code from the step's own line (right under the
    explanation, so the pane shows it without scrolling)."""
    parts: list[RenderableType] = []
    attrs = span.attributes
    if attrs.get("kafka.origin.file"):
        parts.append(Text.assemble(("Kafka ", "bold underline"), (str(attrs.get("kafka.origin.version", "")), "dim"),
                                   "  ", str(attrs.get("kafka.origin.symbol", "")), "  ",
                                   (str(attrs["kafka.origin.file"]), "dim")))
    path, line = attrs.get("code.file.path"), attrs.get("code.line.number")
    if isinstance(path, str) and isinstance(line, int):
        excerpt = source_excerpt(path, line, span.step or span.name, str(attrs.get("code.function.name", "")))
        shown = excerpt[1] if excerpt is not None else line
        heading = Text.assemble(("Python port ", "bold underline"), f"{path}:{shown}  ",
                                (str(attrs.get("code.function.name", "")), "dim"))
        if shown != line:
            heading.append(f"  (line {line} when recorded)", style="dim")
        parts.append(heading)
        parts.append(excerpt[0] if excerpt is not None else Text("(source not found in this checkout)", style="dim"))
    return parts


def _exception_type(span: SpanRecord) -> str | None:
    return next((e.attributes.get("exception.type") for e in span.events if e.name == "exception"), None)


def _short(value: object, limit: int = 200) -> str:
    text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
    return text if len(text) <= limit else text[:limit] + "…"


class DetailPane(VerticalScroll, can_focus=True):
    DEFAULT_CSS = "DetailPane > Static { width: 1fr; }"
    ALLOW_MAXIMIZE = True  # `z`: Textual's scroll containers refuse it, and at 80x24 this pane needs it most

    def __init__(self, *, id: str | None = None, find: FindSpan | None = None) -> None:
        super().__init__(id=id)
        self.span: SpanRecord | None = None  # what the pane shows now
        self.find = find  # looks the span's links up (SpanStore.find_span)
        self.links_found = 0  # of the span's linked spans, how many it could name when drawn

    def compose(self):
        yield Static(Text("Select a span in the waterfall.", style="dim"), id="detail-body")

    def show(self, span: SpanRecord | None, lost: bool = False, trace_start_ns: int = 0) -> None:
        self.span = span
        self.links_found = links_found(span, self.find)
        found = self.query("#detail-body").results(Static)
        body = next(found, None)
        if body is None:
            return  # the app is closing, and has removed it already (a span selected just before the end)
        if span is None:
            body.update(Text("Select a span in the waterfall.", style="dim"))
            self.border_title = "Detail"
            return
        self.border_title = f"Detail · {span.step or span.name}"
        body.update(describe(span, lost, trace_start_ns, self.find))
