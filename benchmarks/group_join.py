"""How long the first JoinGroup of a lone consumer takes, against `group.initial.rebalance.delay.ms`.

Kafka delays the first rebalance of a new group (InitialDelayedJoin) so that members starting together land in one
generation; a single consumer should be assigned its partitions after that delay plus a little protocol time.

    python benchmarks/group_join.py [--rounds 5] [--delay-ms 3000]

Prints, per round, the wall time from `subscribe()` to the first non-empty assignment, and the coordinator's own
view from the trace: the JoinGroup request's time in the broker (`kafka.request.total_time_ms`).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from confluent_kafka import Consumer, Producer
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.tracing.query import load_run

console = Console()


def first_assignment_seconds(bootstrap: str, topic: str) -> float:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"join-{uuid.uuid4().hex[:8]}",
                         "auto.offset.reset": "earliest"})
    started = time.monotonic()
    consumer.subscribe([topic])
    try:
        while not consumer.assignment():
            consumer.poll(0.05)
            if time.monotonic() - started > 60:
                raise TimeoutError("no assignment within 60 s")
        return time.monotonic() - started
    finally:
        consumer.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--delay-ms", type=int, default=3000, help="group.initial.rebalance.delay.ms (Kafka: 3000)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        runner = ClusterRunner.up(1, Path(tmp), overrides=[f"group.initial.rebalance.delay.ms={options.delay_ms}"])
        try:
            bootstrap = runner.run.read_manifest()["bootstrap_servers"]
            topic = "join-bench"
            producer = Producer({"bootstrap.servers": bootstrap})
            producer.produce(topic, b"x")
            producer.flush(30)
            first_assignment_seconds(bootstrap, topic)  # warm-up: creates __consumer_offsets
            results = []
            with Progress(console=console) as progress:
                task = progress.add_task("first joins", total=options.rounds)
                for _ in range(options.rounds):
                    results.append(first_assignment_seconds(bootstrap, topic))
                    progress.advance(task)
        finally:
            runner.down()
        joins = [s.attributes.get("kafka.request.total_time_ms", 0.0)
                 for s in load_run(runner.run.path).where(name="RequestChannel.Request")
                 if s.attributes.get("kafka.api.name") == "JoinGroup"]
    table = Table(title=f"first join of a lone consumer, group.initial.rebalance.delay.ms={options.delay_ms}")
    for column in ("measure", "median", "min", "max"):
        table.add_column(column, justify="right" if column != "measure" else "left")
    table.add_row("subscribe → assignment (s)", f"{statistics.median(results):.3f}", f"{min(results):.3f}",
                  f"{max(results):.3f}")
    if joins:
        table.add_row("JoinGroup in the broker (ms)", f"{statistics.median(joins):.0f}", f"{min(joins):.0f}",
                      f"{max(joins):.0f}")
    console.print(table)
    bound = options.delay_ms / 1000 + 1
    console.print(f"target: within delay + 1 s = {bound:.1f} s; median is "
                  f"{'within' if statistics.median(results) <= bound else 'OVER'} it")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
