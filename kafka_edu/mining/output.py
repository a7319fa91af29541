"""What every mining job hands back, and how it is shown: a rich table, a CSV and a chart (PNG and SVG)."""

from __future__ import annotations

import csv
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from kafka_edu.mining.source import InputReport


@dataclass(frozen=True)
class Col:
    key: str
    header: str
    fmt: str = ""  # a format spec for numbers ("{:.2f}"); text as is

    def show(self, value: Any) -> str:
        if value is None:
            return "—"
        return self.fmt.format(value) if self.fmt and isinstance(value, int | float) else str(value)


@dataclass
class JobResult:
    """Rows (dicts keyed like `columns`), notes for the reader, and a chart drawn from the rows."""

    job: str
    title: str
    columns: list[Col]
    rows: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)
    chart: Callable[[list[dict[str, Any]], Path], list[Path]] | None = None
    # Which rows the printed table shows (default: all); the CSV always has every row.
    table_rows: Callable[[dict[str, Any]], bool] | None = None
    # Column keys the printed table shows (default: all); the CSV always has every column.
    table_columns: list[str] | None = None


def print_result(result: JobResult, report: InputReport, console: Console) -> None:
    table = Table(title=result.title, title_justify="left")
    columns = [c for c in result.columns if result.table_columns is None or c.key in result.table_columns]
    for col in columns:
        table.add_column(col.header, justify="right" if col.fmt else "left", overflow="fold")
    shown = [r for r in result.rows if result.table_rows is None or result.table_rows(r)]
    for row in shown:
        # cells are data, not markup: `pollLeader[append batches]` keeps its brackets
        table.add_row(*[escape(col.show(row.get(col.key))) for col in columns])
    console.print(table)
    if len(shown) < len(result.rows):
        console.print(f"[dim]… {len(result.rows) - len(shown)} more rows in the CSV[/]")
    for note in result.notes:
        console.print(f"[yellow]note:[/] {note}")
    console.print("[dim]input: " + "; ".join(report.lines()) + "[/]")


def write_outputs(result: JobResult, out: Path) -> list[Path]:
    """`<out>/<job>.csv` and the chart's `<out>/<job>.png` / `.svg`; returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    csv_path = out / f"{result.job}.csv"
    with open(csv_path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow([col.key for col in result.columns])
        for row in result.rows:
            writer.writerow(["" if row.get(col.key) is None else row.get(col.key) for col in result.columns])
    written = [csv_path]
    if result.chart is not None and result.rows:
        written += result.chart(result.rows, out / result.job)
    return written
