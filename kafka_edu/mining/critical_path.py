"""`kafka-edu mine critical-path`: per kind of trace, which spans are on the critical path and what share of the
trace's time they hold: the work that, made faster, makes the whole procedure faster.

The path is Jaeger's (kafka_edu/tracing/critical_path.py, shared with the TUI). Each trace is walked in a Spark
task (traces grouped by run and trace id); the sections are summed per trace kind (root span name, with the
controller event or the API for those roots).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from kafka_edu.mining import charts
from kafka_edu.mining.output import Col, JobResult
from kafka_edu.tracing.critical_path import critical_path

TABLE_SPANS_PER_KIND = 5


class PathSpan(NamedTuple):
    span_id: str
    parent_id: str
    name: str
    start: int
    end: int
    detail: str | None  # the controller event or API of a root that has one


def trace_kind(root: PathSpan) -> str:
    return f"{root.name}[{root.detail}]" if root.detail else root.name


def _trace_sections(spans: Iterable[PathSpan]) -> Iterator[tuple[str, str, int, int, int]]:
    """(kind, span name, section ns, root duration ns, 1 if it is the root's row) for one trace; nothing when
    the trace has no single root (a process died before the root ended)."""
    by_id = {s.span_id: s for s in spans}
    true_roots = [s for s in by_id.values() if not s.parent_id]
    if len(true_roots) != 1:
        yield ("(incomplete trace)", "", 0, 0, 1)
        return
    root = true_roots[0]
    kind = trace_kind(root)
    sums: dict[str, int] = defaultdict(int)
    for section in critical_path(((s.span_id, s.parent_id, s.start, s.end) for s in by_id.values()), root.span_id):
        sums[by_id[section.span_id].name] += section.end_ns - section.start_ns
    yield (kind, "", 0, root.end - root.start, 1)
    for name, section in sums.items():
        yield (kind, name, section, 0, 0)


def critical_paths(spark: SparkSession, spans: DataFrame) -> JobResult:
    detail = F.when(F.col("parent_span_id") == "",
                    F.coalesce(F.col("attributes")["kafka.controller.event"], F.col("attributes")["kafka.api.name"]))
    rows = spans.select(F.concat_ws("/", "run_id", "trace_id").alias("key"), "span_id", "parent_span_id", "name",
                        "start_ns", "end_ns", detail.alias("detail"))
    sections = (rows.rdd
                .map(lambda r: (r["key"], PathSpan(r["span_id"], r["parent_span_id"], r["name"], r["start_ns"],
                                                   r["end_ns"], r["detail"])))
                .groupByKey()
                .flatMap(lambda kv: _trace_sections(kv[1])))
    frame = spark.createDataFrame(sections, "kind string, span string, section_ns long, root_ns long, is_root int")
    kinds = (frame.where("is_root = 1").groupBy("kind")
             .agg(F.count("*").alias("traces"), F.sum("root_ns").alias("kind_ns")))
    on_path = (frame.where("is_root = 0").groupBy("kind", "span")
               .agg(F.sum("section_ns").alias("path_ns"), F.count("*").alias("traces_on_path")))
    joined = on_path.join(kinds, "kind").collect()
    incomplete = next((r["traces"] for r in kinds.where(F.col("kind") == "(incomplete trace)").collect()), 0)
    result: list[dict[str, Any]] = []
    for r in joined:
        result.append({
            "kind": r["kind"], "traces": r["traces"], "mean_trace_ms": r["kind_ns"] / r["traces"] / 1e6,
            "span": r["span"], "share_pct": 100.0 * r["path_ns"] / r["kind_ns"] if r["kind_ns"] else None,
            "mean_on_path_ms": r["path_ns"] / r["traces"] / 1e6, "traces_on_path": r["traces_on_path"],
            "kind_ns": r["kind_ns"]})
    result.sort(key=lambda r: (-r["kind_ns"], r["kind"], -(r["share_pct"] or 0), r["span"]))
    ranked: dict[str, int] = defaultdict(int)
    for r in result:
        ranked[r["kind"]] += 1
        r["rank"] = ranked[r["kind"]]
        del r["kind_ns"]
    single = {kind for kind, count in ranked.items() if count == 1}
    notes = [f"the table shows the top {TABLE_SPANS_PER_KIND} spans of each kind whose path has more than its root "
             f"({len(single)} single-span kinds left out); the CSV has them all"]
    if incomplete:
        notes.append(f"{incomplete} trace(s) without a single root (a process died before the root ended) skipped")
    columns = [Col("kind", "trace kind"), Col("traces", "traces", "{:d}"), Col("mean_trace_ms", "trace ms", "{:.2f}"),
               Col("rank", "#", "{:d}"), Col("span", "span on the critical path"),
               Col("share_pct", "share %", "{:.1f}"), Col("mean_on_path_ms", "ms per trace", "{:.3f}"),
               Col("traces_on_path", "in traces", "{:d}")]
    return JobResult(job="critical-path", title="Critical path per trace kind (heaviest kinds first)",
                     columns=columns, rows=result, notes=notes, chart=_chart,
                     table_rows=lambda r: r["rank"] <= TABLE_SPANS_PER_KIND and r["kind"] not in single)


def _chart(rows: list[dict[str, Any]], stem: Path) -> list[Path]:
    kinds: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        kinds.setdefault(r["kind"], []).append(r)
    # A kind whose only span is its root says nothing about paths: the chart keeps the ten heaviest others.
    shown = [(kind, spans) for kind, spans in kinds.items() if len(spans) > 1][:10]
    fig, ax = charts.figure(10, 0.55 * len(shown) + 1.4)
    shades = ["#1f4e79", "#2e75b6", "#5b9bd5", "#9dc3e6", "#c5dcef"]
    for y, (_, spans) in enumerate(reversed(shown)):
        left = 0.0
        for shade, r in zip(shades, spans, strict=False):
            ax.barh(y, r["share_pct"], left=left, color=shade, edgecolor="white", linewidth=0.5)
            if r["share_pct"] >= 9:
                ax.text(left + r["share_pct"] / 2, y, charts.short(r["span"].split(".", 1)[-1], 22), ha="center",
                        va="center", fontsize=6, color="white" if shade in shades[:3] else "black")
            left += r["share_pct"]
        ax.barh(y, max(0.0, 100 - left), left=left, color="#e5e5e5")
    ax.set_yticks(range(len(shown)), [f"{charts.short(kind, 50)} ({spans[0]['mean_trace_ms']:.1f} ms)"
                                      for kind, spans in reversed(shown)])
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of the trace's time on the critical path (%), top five spans darkest first; grey: the rest")
    ax.set_title("Critical path per trace kind (mean trace duration in brackets)")
    return charts.save(fig, stem)
