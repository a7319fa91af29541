"""The Detail pane: the selected span's attributes and events, its FIDELITY row with a paragraph on the Kafka step,
where the original lives in Kafka, and the ported Python around `code.line.number`."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from kafka_edu.tracing.query import SpanRecord
from tui.explanations import explain
from tui.widgets.format import clock, duration

REPO = Path(__file__).resolve().parents[2]
CONTEXT_LINES = 6
# Shown in their own sections, so the attribute table does not repeat them.
SECTIONED = {"kafka.step", "kafka.origin.file", "kafka.origin.symbol", "kafka.origin.version", "code.file.path",
             "code.line.number", "code.function.name"}


@lru_cache(maxsize=64)
def _source_lines(path: str) -> tuple[str, ...] | None:
    file = (REPO / path).resolve()
    if REPO not in file.parents or not file.is_file():
        return None  # only the repository's own files, whatever a span claims
    return tuple(file.read_text(encoding="utf-8", errors="replace").splitlines())


def source_excerpt(path: str, line: int) -> Syntax | None:
    """The lines around `line` of a repo file, that line highlighted."""
    lines = _source_lines(path)
    if not lines or not 1 <= line <= len(lines):
        return None
    first = max(line - CONTEXT_LINES, 1)
    last = min(line + CONTEXT_LINES, len(lines))
    return Syntax("\n".join(lines[first - 1:last]), "python", line_numbers=True, start_line=first,
                  highlight_lines={line}, theme="ansi_dark", word_wrap=False)


def describe(span: SpanRecord, lost: bool, trace_start_ns: int) -> RenderableType:
    """Everything the pane says about one span."""
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
    attrs = span.attributes
    if attrs.get("kafka.origin.file"):
        parts.append(Text.assemble(("Kafka ", "bold underline"), (str(attrs.get("kafka.origin.version", "")), "dim"),
                                   "  ", str(attrs.get("kafka.origin.symbol", "")), "\n",
                                   (str(attrs["kafka.origin.file"]), "dim")))
    path, line = attrs.get("code.file.path"), attrs.get("code.line.number")
    if isinstance(path, str) and isinstance(line, int):
        parts.append(Text.assemble(("Python port ", "bold underline"), f"{path}:{line}  ",
                                   (str(attrs.get("code.function.name", "")), "dim")))
        excerpt = source_excerpt(path, line)
        parts.append(excerpt if excerpt is not None else Text("(source not found in this checkout)", style="dim"))
    return Group(*parts)


def _exception_type(span: SpanRecord) -> str | None:
    return next((e.attributes.get("exception.type") for e in span.events if e.name == "exception"), None)


def _short(value: object, limit: int = 200) -> str:
    text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
    return text if len(text) <= limit else text[:limit] + "…"


class DetailPane(VerticalScroll, can_focus=True):
    DEFAULT_CSS = "DetailPane > Static { width: 1fr; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.span: SpanRecord | None = None  # what the pane shows now

    def compose(self):
        yield Static(Text("Select a span in the waterfall.", style="dim"), id="detail-body")

    def show(self, span: SpanRecord | None, lost: bool = False, trace_start_ns: int = 0) -> None:
        self.span = span
        body = self.query_one("#detail-body", Static)
        if span is None:
            body.update(Text("Select a span in the waterfall.", style="dim"))
            self.border_title = "Detail"
            return
        self.border_title = f"Detail · {span.step or span.name}"
        body.update(describe(span, lost, trace_start_ns))
