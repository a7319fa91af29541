"""How long does a kafka-edu broker take to start, and where does the time go?

Starts a traced cluster with the cluster runner, restarts broker 0 a number of times (controlled stop, start, wait
for RunningAsBroker), stops everything, then reads the run's spans back and prints:

- process start to RunningAsBroker: from the start of each broker process's `Kafka.main` span to the end of the
  `BrokerState.newState` span that moved the same process (same `process.pid`) to RunningAsBroker;
- the per-step breakdown: the median duration of every LC step directly under `KafkaServer.startup`.

    python benchmarks/broker_startup.py --rounds 5
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.tracing.query import Spans, load_run

console = Console()
RUNNING = "RunningAsBroker"


@dataclass
class StepTiming:
    step: str
    span_name: str
    durations_ms: list[float]

    @property
    def median_ms(self) -> float:
        return statistics.median(self.durations_ms)


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile: the smallest value with at least `fraction` of the values at or below it."""
    ordered = sorted(values)
    rank = max(1, math.ceil(len(ordered) * fraction))
    return ordered[rank - 1]


def time_to_running(spans: Spans) -> dict[int, float]:
    """Milliseconds from each broker process's `Kafka.main` start to its transition to RunningAsBroker, by pid."""
    main_start = {s.resource.get("process.pid"): s.start_ns for s in spans.where(name="Kafka.main")}
    running_end: dict[int, int] = {}
    for s in spans.where(name="BrokerState.newState", kafka__broker__state__to=RUNNING):
        pid = s.resource.get("process.pid")
        running_end.setdefault(pid, s.end_ns)
    return {pid: (running_end[pid] - start) / 1e6 for pid, start in main_start.items() if pid in running_end}


def startup_steps(spans: Spans) -> list[StepTiming]:
    """Every LC step directly under a `KafkaServer.startup` span, with its durations across all startups."""
    timings: dict[str, StepTiming] = {}
    for root in spans.where(name="KafkaServer.startup"):
        for child in spans.children_of(root):
            if child.step is None:
                continue
            timing = timings.setdefault(child.step, StepTiming(child.step, child.name, []))
            timing.durations_ms.append(child.duration_ms)
    return sorted(timings.values(), key=lambda t: t.median_ms, reverse=True)


def run_cluster(brokers: int, rounds: int, traces_dir: Path) -> tuple[Path, list[float]]:
    """Bring the cluster up, restart broker 0 `rounds` times, bring it down.

    Returns the run directory and, per round, the wall-clock ms from `runner.start(0)` until the runner saw
    RunningAsBroker (interpreter start and imports included, and up to one 100 ms polling interval).
    """
    restarts_ms: list[float] = []
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console) as progress:
        task = progress.add_task(f"starting ZooKeeper and {brokers} broker(s)", total=rounds + 2)
        runner = ClusterRunner.up(brokers, traces_dir)
        try:
            progress.advance(task)
            for round_no in range(1, rounds + 1):
                progress.update(task, description=f"round {round_no}/{rounds}: stopping broker 0")
                runner.stop(0)
                progress.update(task, description=f"round {round_no}/{rounds}: starting broker 0")
                started = time.monotonic()
                runner.start(0)
                runner.wait_for_state(0, RUNNING, 90)
                restarts_ms.append((time.monotonic() - started) * 1000)
                progress.advance(task)
        finally:
            progress.update(task, description="stopping the cluster")
            runner.down()
            progress.advance(task)
    return runner.run.path, restarts_ms


def print_report(run_dir: Path, brokers: int, rounds: int, restarts_ms: list[float]) -> None:
    spans = load_run(run_dir)
    to_running = time_to_running(spans)
    if not to_running:
        raise SystemExit(f"no broker reached {RUNNING} in {run_dir}")
    values = list(to_running.values())

    summary = Table(title=f"{brokers} broker(s), {rounds} restart rounds of broker 0", title_justify="left")
    summary.add_column("measure")
    summary.add_column("n", justify="right")
    for column in ("median ms", "p90 ms", "min ms", "max ms"):
        summary.add_column(column, justify="right")
    rows = [(f"Kafka.main start to {RUNNING} (traces)", values)]
    if restarts_ms:
        rows.append((f"runner.start(0) to {RUNNING} seen (wall clock)", restarts_ms))
    for label, measured in rows:
        summary.add_row(label, str(len(measured)), *(f"{v:.1f}" for v in (
            statistics.median(measured), percentile(measured, 0.9), min(measured), max(measured))))
    console.print(summary)

    steps = startup_steps(spans)
    startup_medians = statistics.median(s.duration_ms for s in spans.where(name="KafkaServer.startup"))
    breakdown = Table(title=f"KafkaServer.startup, median {startup_medians:.1f} ms: its steps, slowest first",
                      title_justify="left")
    breakdown.add_column("step")
    breakdown.add_column("span")
    breakdown.add_column("median ms", justify="right")
    breakdown.add_column("share", justify="right")
    for timing in steps:
        share = timing.median_ms / startup_medians if startup_medians else 0.0
        breakdown.add_row(timing.step, timing.span_name, f"{timing.median_ms:.2f}", f"{share:.1%}")
    console.print(breakdown)
    console.print(f"run directory: {run_dir}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Measure kafka-edu broker startup from its own traces.")
    parser.add_argument("--brokers", type=int, default=1, help="brokers in the cluster (default 1)")
    parser.add_argument("--rounds", type=int, default=5, help="stop/start rounds of broker 0 (default 5)")
    parser.add_argument("--traces", default="traces", help="where the run directory goes (default traces/)")
    parser.add_argument("--tmp", action="store_true", help="write the run into a temporary directory, then delete it")
    options = parser.parse_args(argv)
    if options.brokers < 1 or options.rounds < 0:
        parser.error("--brokers must be at least 1 and --rounds at least 0")

    if options.tmp:
        with tempfile.TemporaryDirectory(prefix="kafka-edu-bench-") as tmp:
            run_dir, restarts_ms = run_cluster(options.brokers, options.rounds, Path(tmp))
            print_report(run_dir, options.brokers, options.rounds, restarts_ms)
    else:
        run_dir, restarts_ms = run_cluster(options.brokers, options.rounds, Path(options.traces))
        print_report(run_dir, options.brokers, options.rounds, restarts_ms)
    return 0


if __name__ == "__main__":
    sys.exit(main())
