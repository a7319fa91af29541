"""`kafka-edu mine regressions`: which steps got slower (or faster) in the chosen runs than in a baseline run.

Per FIDELITY step (step id and span name), the baseline run gives the median duration and its spread, the median
absolute deviation (MAD, scaled by 1.4826 to estimate a standard deviation). The chosen runs' durations, pooled,
give a median too. A step is flagged when its median moved by more than `threshold` robust deviations (the
modified z-score; 3.5 is Iglewicz and Hoaglin's cut-off) and by at least `min_change_ms`. The spread is taken as
at least 10% of the baseline median, since a step with one or identical baseline samples has none: with a single
sample, a median must move by more than 35% to be flagged.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from kafka_edu.mining import charts
from kafka_edu.mining.output import Col, JobResult
from kafka_edu.mining.session import MiningError

MAD_SCALE = 1.4826  # MAD * 1.4826 estimates the standard deviation of normally distributed data
DEFAULT_THRESHOLD = 3.5
DEFAULT_MIN_CHANGE_MS = 1.0
# A baseline with one sample, or identical ones, has no spread: 10% of its median is the least spread assumed.
NOISE_FLOOR = 0.10


def robust_scale(mad_ms: float, baseline_median_ms: float) -> float:
    scale = MAD_SCALE * mad_ms
    return max(scale, NOISE_FLOOR * baseline_median_ms, 1e-6)


def regressions(spans: DataFrame, baseline: str, candidates: list[str], threshold: float = DEFAULT_THRESHOLD,
                min_change_ms: float = DEFAULT_MIN_CHANGE_MS) -> JobResult:
    if not candidates:
        raise MiningError("regressions needs runs to compare with the baseline (--runs)", exit_code=2)
    steps = (spans.where(F.col("step").isNotNull())
             .select("run_id", "step", "name", (F.col("duration_ns") / 1e6).alias("ms")))
    base = steps.where(F.col("run_id") == baseline)
    medians = base.groupBy("step", "name").agg(F.percentile("ms", 0.5).alias("baseline_ms"),
                                               F.count("*").alias("baseline_n"))
    mad = (base.join(medians, ["step", "name"])
           .groupBy("step", "name").agg(F.percentile(F.abs(F.col("ms") - F.col("baseline_ms")), 0.5).alias("mad_ms")))
    chosen = (steps.where(F.col("run_id").isin(candidates)).groupBy("step", "name")
              .agg(F.percentile("ms", 0.5).alias("median_ms"), F.count("*").alias("n")))
    compared = medians.join(mad, ["step", "name"]).join(chosen, ["step", "name"]).collect()
    rows: list[dict[str, Any]] = []
    for r in compared:
        change = r["median_ms"] - r["baseline_ms"]
        z = change / robust_scale(r["mad_ms"], r["baseline_ms"])
        flagged = abs(z) > threshold and abs(change) >= min_change_ms
        rows.append(r.asDict() | {
            "change_ms": change, "ratio": r["median_ms"] / r["baseline_ms"] if r["baseline_ms"] else None,
            "robust_z": z, "verdict": ("slower" if change > 0 else "faster") if flagged else ""})
    rows.sort(key=lambda r: (r["verdict"] == "", -abs(r["robust_z"]), r["step"], r["name"]))
    flagged_count = sum(1 for r in rows if r["verdict"])
    notes = [f"baseline {baseline} vs {', '.join(candidates)}: {len(rows)} steps in both, {flagged_count} flagged "
             f"(|robust z| > {threshold} and |change| >= {min_change_ms} ms); the table lists the flagged ones, "
             "the CSV all"]
    columns = [Col("step", "step"), Col("name", "span"), Col("baseline_n", "base n", "{:d}"),
               Col("baseline_ms", "base median ms", "{:.2f}"), Col("mad_ms", "base MAD ms", "{:.2f}"),
               Col("n", "n", "{:d}"), Col("median_ms", "median ms", "{:.2f}"), Col("change_ms", "change ms", "{:+.2f}"),
               Col("ratio", "ratio", "{:.2f}"), Col("robust_z", "robust z", "{:+.1f}"), Col("verdict", "verdict")]
    return JobResult(job="regressions", title=f"Steps that moved against baseline run {baseline}", columns=columns,
                     rows=rows, notes=notes, chart=_chart, table_rows=lambda r: bool(r["verdict"]))


def _chart(rows: list[dict[str, Any]], stem: Path) -> list[Path]:
    shown = [r for r in rows if r["ratio"]][:20][::-1]
    fig, ax = charts.figure(8, 0.32 * len(shown) + 1.4)
    y = list(range(len(shown)))
    ax.barh(y, [math.log2(r["ratio"]) for r in shown],
            color=[charts.PALETTE[2] if r["verdict"] == "slower" else charts.PALETTE[4] if r["verdict"]
                   else "#bbbbbb" for r in shown])
    ax.set_yticks(y, [f"{r['step']} {charts.short(r['name'], 36)}" for r in shown])
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel("log2(median / baseline median): red slower, green faster, grey within the threshold")
    ax.set_title("Step durations against the baseline (largest robust change first)")
    return charts.save(fig, stem)
