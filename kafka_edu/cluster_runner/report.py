"""Our own code, not a Kafka port: Rich summaries of a run for the terminal, each broker's startup step by step and
the processes' status."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from kafka_edu.tracing.query import Spans, load_run

console = Console()
BAR_WIDTH = 30


def startup_traces(spans: Spans) -> dict[str, Spans]:
    """The newest startup trace of every broker instance."""
    traces = {}
    for root in spans.where(step="LC.main.4"):
        traces[root.instance] = spans.where(trace_id=root.trace_id)
    return traces


def print_startup_summary(run_dir: Path) -> None:
    spans = load_run(run_dir)
    for instance, trace in sorted(startup_traces(spans).items()):
        root = trace.where(step="LC.main.4").first()
        total_ms = root.duration_ms
        table = Table(title=f"{instance}: KafkaServer.startup in {total_ms:.0f} ms", title_justify="left")
        table.add_column("step")
        table.add_column("span")
        table.add_column("ms", justify="right")
        table.add_column("share of startup")
        for s in trace.children_of(root):
            if not s.step:
                continue
            share = s.duration_ms / total_ms if total_ms else 0
            bar = "█" * max(1, round(share * BAR_WIDTH)) if share >= 0.005 else "·"
            style = "red" if s.is_error else None
            to_state = s.attributes.get("kafka.broker.state.to")
            name = f"{s.name} → {to_state}" if to_state else s.name
            table.add_row(s.step, name, f"{s.duration_ms:.1f}", f"{bar} {share:.0%}", style=style)
        console.print(table)


def print_status(manifest: dict[str, Any]) -> None:
    table = Table(title=f"run {manifest['run_id']} ({manifest['mode']})", title_justify="left")
    for column in ("role", "id", "pid", "port", "state", "log"):
        table.add_column(column)
    for p in manifest["processes"]:
        state = p["state"]
        style = "green" if state in ("RunningAsBroker", "RUNNING", "running", "Leader", "Follower") else "yellow"
        if p["role"] == "controller" and p.get("epoch", -1) >= 0:
            state = f"{state}, epoch {p['epoch']}"  # a Raft role means little without its epoch
        role, port = p["role"], str(p["port"])
        if p.get("combined"):  # process.roles=broker,controller: both ports, controller's first
            role, port = "controller+broker", f"{p['port']}, {p['broker_port']}"
        table.add_row(role, str(p["id"]), str(p["pid"]), port, f"[{style}]{state}[/]", p["log"])
    console.print(table)
    if manifest["mode"] == "kraft":
        console.print(f"bootstrap controllers: {manifest.get('bootstrap_controllers', '')}   "
                      f"cluster id: {manifest.get('cluster_id', '')}")
        if manifest.get("bootstrap_servers"):
            console.print(f"bootstrap servers: {manifest['bootstrap_servers']}")
    else:
        console.print(f"bootstrap servers: {manifest['bootstrap_servers']}   "
                      f"zookeeper: {manifest['zookeeper_connect']}")
