"""`kafka-edu mine ...`: the command line of the trace-mining jobs (wired into `kafka_edu.cli`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from kafka_edu.mining.session import MiningError

JOBS = {
    "startup-profile": "which startup step dominates, per FIDELITY step: count, p50, p95, max, share",
    "request-breakdown": "where requests spend their time, per API key and version",
    "failover-timeline": "each controller change (ZooKeeper or KRaft): loss, election, failover done, led again",
    "dependencies": "who calls whom: clients, controller and brokers, ZooKeeper; calls and errors",
    "critical-path": "per trace kind, the spans on the critical path and their share",
    "raft-elections": "KRaft runs: each Raft election, its votes granted and refused (why), time to leader",
    "regressions": "steps whose duration departs from a baseline run (median absolute deviation)",
}


def add_parser(sub: argparse._SubParsersAction) -> None:
    mine = sub.add_parser("mine", help="Spark jobs over recorded runs: compact | " + " | ".join(JOBS))
    jobs = mine.add_subparsers(dest="job", required=True)
    compact = jobs.add_parser("compact", help="OTLP JSON Lines -> Parquet, one span a row, partitioned by run")
    compact.add_argument("--traces", default="traces", help="a run directory or a folder of them (default: traces)")
    compact.add_argument("--out", default="traces/_parquet", help="Parquet store (default: traces/_parquet)")
    compact.add_argument("--runs", nargs="+", help="run ids or folder names (globs allowed); default: all")
    compact.add_argument("--master", help="Spark master URL, e.g. spark://host:7077 (default: local[*])")
    for name, help_text in JOBS.items():
        job = jobs.add_parser(name, help=help_text)
        job.add_argument("--traces", default="traces", help="a run directory or a folder of them (default: traces)")
        job.add_argument("--runs", nargs="+", help="run ids or folder names (globs allowed); default: all")
        job.add_argument("--master", help="Spark master URL, e.g. spark://host:7077 (default: local[*])")
        job.add_argument("--out", default="traces/_mining", help="where the CSV and chart go (default: traces/_mining)")
        job.add_argument("--from", dest="source", choices=["auto", "json", "parquet"], default="auto",
                         help="read the JSON Lines or the compacted Parquet (auto: Parquet when every run is in it)")
        job.add_argument("--parquet", default="traces/_parquet", help="Parquet store (default: traces/_parquet)")
        if name == "regressions":
            job.add_argument("--baseline", required=True, help="the baseline run (id or folder name)")
            job.add_argument("--threshold", type=float, default=3.5, help="robust z-score cut-off (default 3.5)")
            job.add_argument("--min-change-ms", type=float, default=1.0,
                             help="ignore changes of the median smaller than this (default 1 ms)")


def run(options: argparse.Namespace, spark=None) -> int:
    """Run one `mine` verb; 0 on success, 2 on unusable input, 1 on any other failure."""
    console, errors = Console(), Console(stderr=True, soft_wrap=True)  # soft: paths stay copyable
    if not console.is_terminal:  # piped or captured: whole rows rather than tables squeezed into 80 columns
        console = Console(width=200)
    traces = Path(options.traces)
    if not traces.is_dir():  # before starting a JVM for nothing
        errors.print(f"[red]kafka-edu mine: trace directory {traces} does not exist[/]")
        return 2
    try:
        import pyspark  # noqa: F401

        from kafka_edu.mining.session import spark_errors, spark_session
    except ImportError:
        errors.print("[red]kafka-edu mine needs PySpark: pip install 'kafka-edu[mining]'[/]")
        return 1

    own_session = spark is None
    try:
        with spark_errors():
            spark = spark or spark_session(options.master)
            if options.job == "compact":
                _compact(spark, options, traces, console)
            else:
                _job(spark, options, traces, console)
        return 0
    except MiningError as e:
        errors.print(f"[red]kafka-edu mine {options.job}: {e}[/]")
        return e.exit_code
    finally:
        if own_session and spark is not None:
            spark.stop()


def _compact(spark, options: argparse.Namespace, traces: Path, console: Console) -> None:
    from kafka_edu.mining.compact import compact
    from kafka_edu.mining.session import spark_progress

    out = Path(options.out)
    with spark_progress(spark, "compact"):
        result = compact(spark, traces, out, options.runs)
    for run_id in result.written:
        console.print(f"compacted {run_id}: {result.report.spans.get(run_id, 0)} spans")
    if result.skipped_done:
        console.print(f"already compacted, skipped: {', '.join(result.skipped_done)}")
    if result.skipped_running:
        console.print(f"[yellow]still running (no stopped_at in the manifest), skipped: "
                      f"{', '.join(result.skipped_running)}[/]")
    for line in result.report.lines()[1:]:
        console.print(f"[yellow]{line}[/]")
    console.print(f"Parquet store: {out}")


def _job(spark, options: argparse.Namespace, traces: Path, console: Console) -> None:
    from kafka_edu.mining.output import print_result, write_outputs
    from kafka_edu.mining.session import spark_progress
    from kafka_edu.mining.source import discover_runs, load_spans, select_runs

    runs = options.runs
    if options.job == "regressions":
        found, _ = discover_runs(traces)
        baseline = select_runs(found, [options.baseline])
        if len(baseline) != 1:
            raise MiningError(f"--baseline {options.baseline} names {len(baseline)} runs, not one", exit_code=2)
        candidates = [r.run_id for r in (select_runs(found, runs) if runs else found)
                      if r.run_id != baseline[0].run_id]
        runs = [baseline[0].run_id] + candidates
    with spark_progress(spark, options.job):
        loaded = load_spans(spark, traces, runs, options.source, Path(options.parquet))
        try:
            result = compute(spark, options, loaded)
        finally:
            loaded.release()
    print_result(result, loaded.report, console)
    for path in write_outputs(result, Path(options.out)):
        console.print(f"[dim]wrote {path}[/]")


def compute(spark, options: argparse.Namespace, loaded):  # -> JobResult
    """Run the job `options.job` on loaded spans (regressions also reads `baseline`, `threshold`, `min_change_ms`)."""
    spans = loaded.spans
    if options.job == "startup-profile":
        from kafka_edu.mining.startup_profile import startup_profile
        return startup_profile(spans)
    if options.job == "request-breakdown":
        from kafka_edu.mining.request_breakdown import request_breakdown
        return request_breakdown(spans)
    if options.job == "failover-timeline":
        from kafka_edu.mining.failover_timeline import failover_timeline
        from kafka_edu.mining.raft_elections import run_faults
        return failover_timeline(spark, spans, run_faults(loaded.runs))
    if options.job == "dependencies":
        from kafka_edu.mining.dependencies import dependencies
        return dependencies(spans)
    if options.job == "raft-elections":
        from kafka_edu.mining.raft_elections import raft_elections, run_faults
        return raft_elections(spans, run_faults(loaded.runs))
    if options.job == "critical-path":
        from kafka_edu.mining.critical_path import critical_paths
        return critical_paths(spark, spans)
    from kafka_edu.mining.regressions import regressions
    from kafka_edu.mining.source import select_runs

    baseline = select_runs(loaded.runs, [options.baseline])[0].run_id
    return regressions(spans, baseline, [r.run_id for r in loaded.runs if r.run_id != baseline], options.threshold,
                       options.min_change_ms)
