"""How long the trace-mining jobs take on large synthetic span sets, from JSON Lines and from Parquet, and how Spark's
per-step percentiles compare with DuckDB's on the same Parquet.

    /work/venv/bin/python benchmarks/mining.py                      # 1 M and 10 M spans on local[2]
    /work/venv/bin/python benchmarks/mining.py --spans 1000000 3000000 --master local[2]

For each size: synthetic runs shaped like `traces/samples/mining-failover` (kafka_edu.mining.synthetic), compacted
to Parquet (timed), then every job timed end to end as `kafka-edu mine` runs it (load, input accounting, job),
once with `--from json` and once with `--from parquet`; last, per-step count / p50 / p95 / max by Spark and by
DuckDB over the same Parquet files, with their ratio. Generated data is kept in --work for reruns (~1.2 GB per
million spans).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

import duckdb
from pyspark.sql import functions as F
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kafka_edu.mining.cli import JOBS, compute  # noqa: E402
from kafka_edu.mining.compact import compact  # noqa: E402
from kafka_edu.mining.session import spark_session  # noqa: E402
from kafka_edu.mining.source import PARQUET_DIR, load_spans  # noqa: E402
from kafka_edu.mining.synthetic import generate  # noqa: E402

SAMPLE = Path(__file__).resolve().parents[1] / "traces" / "samples" / "mining-failover"
console = Console()


def _timed(action) -> tuple[float, object]:
    start = time.perf_counter()
    value = action()
    return time.perf_counter() - start, value


def _job_seconds(spark, traces: Path, job: str, source: str) -> float:
    def run() -> None:
        loaded = load_spans(spark, traces, None, source)
        try:
            options = argparse.Namespace(job=job, baseline="synthetic-0000", threshold=3.5, min_change_ms=1.0)
            compute(spark, options, loaded)
        finally:
            loaded.release()
    return _timed(run)[0]


def _spark_percentiles(spark, parquet: Path) -> list:
    spans = spark.read.parquet(str(parquet))
    ns = F.col("duration_ns")
    return (spans.where(F.col("step").isNotNull()).groupBy("step")
            .agg(F.count("*"), F.percentile(ns, 0.5), F.percentile(ns, 0.95), F.max(ns)).collect())


def _duckdb_percentiles(parquet: Path) -> list:
    with duckdb.connect() as db:
        db.execute("SET threads TO 2")  # the same two cores Spark gets
        return db.execute(
            "SELECT step, count(*), quantile_cont(duration_ns, 0.5), quantile_cont(duration_ns, 0.95), "
            "max(duration_ns) FROM read_parquet(?, hive_partitioning = true) WHERE step IS NOT NULL GROUP BY step",
            [str(parquet / "run_id=*" / "*.parquet")]).fetchall()


def bench(spark, size: int, work: Path) -> tuple[Table, Table]:
    traces = work / f"{size}"
    if not (traces / ".complete").exists():
        shutil.rmtree(traces, ignore_errors=True)
        # at least four runs, so regressions has a baseline and runs to compare
        seconds, _ = _timed(lambda: generate(SAMPLE, traces, size, spans_per_run=min(250_000, size // 4)))
        (traces / ".complete").write_text(f"{seconds:.1f}\n")
        console.print(f"generated {size:,} spans in {seconds:.1f} s")
    parquet = traces / PARQUET_DIR
    shutil.rmtree(parquet, ignore_errors=True)
    compact_s, result = _timed(lambda: compact(spark, traces, parquet))
    spans = result.report.total_spans
    jobs = Table(title=f"{spans:,} spans: seconds per job on {spark.sparkContext.master}")
    for header in ("job", "from JSON", "from Parquet", "JSON / Parquet"):
        jobs.add_column(header, justify="left" if header == "job" else "right")
    jobs.add_row("compact (JSON -> Parquet)", f"{compact_s:.1f}", "", "")
    for job in JOBS:
        json_s = _job_seconds(spark, traces, job, "json")
        parquet_s = _job_seconds(spark, traces, job, "parquet")
        jobs.add_row(job, f"{json_s:.1f}", f"{parquet_s:.1f}", f"{json_s / parquet_s:.1f}x")
        console.print(f"[dim]{size:,} {job}: json {json_s:.1f} s, parquet {parquet_s:.1f} s[/]")
    spark_s, spark_rows = _timed(lambda: _spark_percentiles(spark, parquet))
    duck_s, duck_rows = _timed(lambda: _duckdb_percentiles(parquet))
    assert sorted(r[0] for r in spark_rows) == sorted(r[0] for r in duck_rows)
    duck = {r[0]: r for r in duck_rows}
    agree = all(r[1] == duck[r[0]][1] and abs(r[2] - duck[r[0]][2]) <= 1 and r[4] == duck[r[0]][4]
                for r in spark_rows)
    steps = Table(title=f"{spans:,} spans: per-step count, p50, p95, max over the same Parquet")
    for header in ("engine", "seconds", "steps", "Spark / DuckDB", "same numbers"):
        steps.add_column(header)
    steps.add_row("Spark", f"{spark_s:.2f}", str(len(spark_rows)), f"{spark_s / duck_s:.1f}x", "yes" if agree else "NO")
    steps.add_row("DuckDB", f"{duck_s:.2f}", str(len(duck_rows)), "", "")
    return jobs, steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--work", type=Path, default=Path("/tmp/kafka-edu-mining-bench"))
    options = parser.parse_args()
    spark = spark_session(options.master, app_name="kafka-edu-mining-bench")
    try:
        for size in options.spans:
            for table in bench(spark, size, options.work):
                console.print(table)
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
