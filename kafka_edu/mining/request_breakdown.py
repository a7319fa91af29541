"""`kafka-edu mine request-breakdown`: where a request spends its time, per API key and version.

Every client request is a trace rooted at `RequestChannel.Request`, which carries Kafka's request metrics as
`RequestChannel.Request.updateRequestMetrics` computes them: time in the request queue, in the handler (local),
waiting in purgatory (remote, e.g. acks=all), throttled, in the response queue, being sent, and the total. Per
API key and version: count and p50 / p95 / p99 of each; the chart stacks the p50 of the parts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from kafka_edu.mining import charts
from kafka_edu.mining.output import Col, JobResult

REQUEST_ROOT = "RequestChannel.Request"
# column prefix -> (attribute, label); the parts in the order a request goes through them, then the total
METRICS = {
    "queue": ("kafka.request.queue_time_ms", "request queue"),
    "local": ("kafka.request.local_time_ms", "local (handler)"),
    "remote": ("kafka.request.remote_time_ms", "remote (purgatory)"),
    "throttle": ("kafka.request.throttle_time_ms", "throttle"),
    "response_queue": ("kafka.request.response_queue_time_ms", "response queue"),
    "send": ("kafka.request.response_send_time_ms", "response send"),
    "total": ("kafka.request.total_time_ms", "total"),
}
PERCENTILES = (50, 95, 99)


def request_breakdown(spans: DataFrame) -> JobResult:
    requests = (spans.where((F.col("name") == REQUEST_ROOT) & (F.col("parent_span_id") == "")
                            & F.col("api_key").isNotNull())
                .select("api_key", "api_version", F.col("attributes")["kafka.api.name"].alias("api"),
                        *[F.col("attributes")[attr].cast("double").alias(key) for key, (attr, _) in METRICS.items()]))
    aggregates = [F.count("*").alias("count")]
    for key in METRICS:
        aggregates += [F.percentile(key, p / 100).alias(f"{key}_p{p}") for p in PERCENTILES]
    rows = [r.asDict() for r in requests.groupBy("api_key", "api", "api_version").agg(*aggregates).collect()]
    rows.sort(key=lambda r: (-(r["total_p50"] or 0), r["api_key"], r["api_version"]))
    columns = [Col("api_key", "key", "{:d}"), Col("api", "API"), Col("api_version", "v", "{:d}"),
               Col("count", "count", "{:d}")]
    for key, (_, label) in METRICS.items():
        columns += [Col(f"{key}_p{p}", f"{label} p{p} ms", "{:.2f}") for p in PERCENTILES]
    shown = ["api_key", "api", "api_version", "count"] + [f"{key}_p50" for key in METRICS] + ["total_p95", "total_p99"]
    notes = [] if rows else ["no RequestChannel.Request span: record with request-path tracing on"]
    return JobResult(job="request-breakdown", title="Request time breakdown per API (ms), slowest total p50 first",
                     columns=columns, rows=rows, notes=notes, chart=_chart, table_columns=shown)


def _chart(rows: list[dict[str, Any]], stem: Path) -> list[Path]:
    shown = rows[::-1]
    fig, ax = charts.figure(8, 0.4 * len(shown) + 1.4)
    y = list(range(len(shown)))
    left = [0.0] * len(shown)
    parts = [key for key in METRICS if key != "total"]
    for color, key in zip(charts.PALETTE, parts, strict=False):
        widths = [r[f"{key}_p50"] or 0.0 for r in shown]
        ax.barh(y, widths, left=left, color=color, label=METRICS[key][1])
        left = [a + b for a, b in zip(left, widths, strict=True)]
    ax.plot([r["total_p50"] for r in shown], y, "k|", markersize=14, label="total p50")
    ax.set_yticks(y, [f"{r['api']} v{r['api_version']} (n={r['count']})" for r in shown])
    ax.set_xlabel("ms (p50 of each part, stacked; medians need not add up to the total's median)")
    ax.set_title("Where requests spend their time")
    ax.legend(loc="lower right", fontsize=7)
    return charts.save(fig, stem)
