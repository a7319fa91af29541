"""`kafka-edu mine startup-profile`: which step of `KafkaServer.startup` dominates a broker's start, and how much
it varies across runs and brokers.

A startup is a trace rooted at `KafkaServer.startup` (LC.main.4); its FIDELITY steps are the spans with a
`LC.startup.*` step id. Per step: how many times it ran, p50 / p95 / max of its duration, and its share of all
startup time (its summed duration over the summed duration of every startup); heaviest first. What the steps do
not cover is the time between them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from kafka_edu.mining import charts
from kafka_edu.mining.output import Col, JobResult

STARTUP_ROOT_STEP = "LC.main.4"
STARTUP_STEP_PREFIX = "LC.startup."


def startup_profile(spans: DataFrame) -> JobResult:
    roots = (spans.where((F.col("step") == STARTUP_ROOT_STEP) & (F.col("parent_span_id") == ""))
             .select("run_id", "trace_id", "service_instance", "duration_ns"))
    totals = roots.agg(F.count("*").alias("startups"), F.sum("duration_ns").alias("total_ns"),
                       F.countDistinct("run_id").alias("runs"),
                       F.percentile(F.col("duration_ns") / 1e6, 0.5).alias("p50_ms")).first()
    steps = (spans.where(F.col("step").startswith(STARTUP_STEP_PREFIX))
             .join(roots.select("run_id", "trace_id"), ["run_id", "trace_id"]))
    ms = F.col("duration_ns") / 1e6
    rows = (steps.groupBy("step")
            .agg(F.array_join(F.array_sort(F.collect_set("name")), " / ").alias("span"),
                 F.count("*").alias("count"),
                 F.percentile(ms, 0.5).alias("p50_ms"), F.percentile(ms, 0.95).alias("p95_ms"),
                 F.max(ms).alias("max_ms"), F.sum("duration_ns").alias("sum_ns"))
            .collect())
    total_ns = totals["total_ns"] or 0
    result_rows: list[dict[str, Any]] = [
        row.asDict() | {"share_pct": 100.0 * row["sum_ns"] / total_ns if total_ns else None} for row in rows]
    result_rows.sort(key=lambda r: (-(r["sum_ns"] or 0), r["step"]))
    for row in result_rows:
        del row["sum_ns"]
    notes = []
    if totals["startups"]:
        covered = sum(r["share_pct"] or 0 for r in result_rows)
        notes.append(f"{totals['startups']} startups in {totals['runs']} run(s), KafkaServer.startup p50 "
                     f"{totals['p50_ms']:.1f} ms; the steps cover {covered:.0f}% of startup time, the rest is "
                     "between them")
    else:
        notes.append("no KafkaServer.startup trace (LC.main.4) in the chosen runs")
    return JobResult(
        job="startup-profile", title="Startup profile: FIDELITY steps of KafkaServer.startup, heaviest first",
        columns=[Col("step", "step"), Col("span", "span"), Col("count", "count", "{:d}"),
                 Col("p50_ms", "p50 ms", "{:.2f}"), Col("p95_ms", "p95 ms", "{:.2f}"),
                 Col("max_ms", "max ms", "{:.2f}"), Col("share_pct", "share %", "{:.1f}")],
        rows=result_rows, notes=notes, chart=_chart)


def _chart(rows: list[dict[str, Any]], stem: Path) -> list[Path]:
    shown = rows[:15][::-1]  # heaviest at the top
    fig, ax = charts.figure(8, 0.35 * len(shown) + 1.2)
    labels = [f"{r['step']}  {charts.short(r['span'], 34)}" for r in shown]
    y = range(len(shown))
    ax.barh(y, [r["p50_ms"] for r in shown], color=charts.PALETTE[0], label="p50")
    ax.errorbar([r["p95_ms"] for r in shown], y, fmt="|", color=charts.PALETTE[1], markersize=10, label="p95")
    ax.plot([r["max_ms"] for r in shown], y, "x", color=charts.PALETTE[2], label="max")
    for i, r in zip(y, shown, strict=True):
        ax.annotate(f"{r['share_pct']:.0f}%", (r["max_ms"], i), xytext=(6, -3), textcoords="offset points",
                    color="#555555")
    ax.set_yticks(list(y), labels)
    ax.set_xscale("symlog", linthresh=1.0)
    ax.set_xlabel("duration (ms, symlog); label: share of startup time")
    ax.set_title("Startup steps: p50 bar, p95 tick, max cross")
    ax.legend(loc="lower right")
    return charts.save(fig, stem)
