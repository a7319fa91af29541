"""Our own code, not a Kafka port: `kafka-edu raft-sim`, Kafka's raft event simulation (RaftEventSimulationTest's
classes, kafka_edu/v3_9/raft/raft/raft_event_simulation.py) run as a traced run.

A quorum of KafkaRaftClients in this one process, on one simulated clock (a MockTime), over a network that loses
each message with a probability (`--drop`): one seeded Random decides every delay, loss and election timeout, so a
seed replays the same run. After every event the simulation's invariants are checked; every progress report (and
at the end) every running node's committed data is compared with the others'.

Its spans are written like a real run's: a run directory `traces/<run-id>/` with a manifest, and one span file per
simulated node under the name a KRaft cluster gives the process (`controller-1`, ...; an observer is a
`broker-<id>`), each node's spans timed on the simulated clock. The tracing of each node is chosen while that
node's code runs (kafka_edu.tracing.provider.using), and a request carries its sender's trace context to its
receiver as a real channel's request header does.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafka_edu.cluster_runner.run_directory import DEFAULT_TRACES_DIR, RunDirectory, now_iso
from kafka_edu.tracing.clock import SpanClock
from kafka_edu.tracing.provider import Tracing, node_tracing, using
from kafka_edu.tracing.step import current_traceparent
from kafka_edu.v3_9.raft.raft.raft_event_simulation import (
    DEFAULT_INVARIANTS,
    Cluster,
    ConsistentCommittedData,
    InvariantViolation,
    MessageRouter,
    RandomDrop,
    SequentialAppendAction,
    SimulationHooks,
    schedule_polling,
    scheduler_with_default_invariants,
)

FIRST_NODE_ID = 1  # as `kafka-edu cluster up --mode kraft` numbers its controllers
CHECKS = [invariant.__name__ for invariant in DEFAULT_INVARIANTS] + [ConsistentCommittedData.__name__]


class TracedNodes(SimulationHooks):
    """Each node's work inside its own Tracing; a request sent carries the sender's current span."""

    def __init__(self, tracings: dict[int, Tracing]) -> None:
        self.tracings = tracings

    @contextmanager
    def node_scope(self, node_id: int) -> Iterator[Any]:
        with using(self.tracings[node_id]) as tracing:
            yield tracing

    def traceparent(self) -> str | None:
        return current_traceparent()


class LeaderChanges:
    """Watches, after every event, which leader the running nodes know for the latest epoch (not an invariant)."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.elected: dict[int, int] = {}  # epoch -> leader

    def verify(self) -> None:
        for node in self.cluster.running():
            quorum = node.client.quorum
            leader = quorum.leader_id()
            if leader is not None and quorum.epoch() not in self.elected:
                self.elected[quorum.epoch()] = leader

    def count(self) -> int:
        return max(len(self.elected) - 1, 0)


@dataclass
class RaftSimResult:
    seed: int
    steps_run: int
    simulated_ms: int
    leader_changes: int
    elected: dict[int, int]
    committed_offset: int
    nodes: list[str]
    verdicts: dict[str, str]
    failure: str | None = None
    failed_step: int | None = None
    dropped_messages: int = 0
    run_dir: Path | None = None
    dropped_spans: dict[str, int] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        return 0 if self.failure is None else 1

    def invariants_line(self) -> str:
        return "invariants: " + ", ".join(f"{name} {verdict}" for name, verdict in self.verdicts.items())


def instance_id(node_id: int, voters: int) -> str:
    """The name a KRaft run gives the node's process: a voter is a controller, an observer a broker."""
    return f"controller-{node_id}" if node_id < FIRST_NODE_ID + voters else f"broker-{node_id}"


def run_raft_sim(seed: int, voters: int = 3, observers: int = 0, drop: float = 0.0, steps: int = 10_000,
                 traces_dir: Path = DEFAULT_TRACES_DIR, trace: bool = True,
                 progress: Callable[[str], None] | None = None, progress_every: int = 1000) -> RaftSimResult:
    """Run the simulation for `steps` events; `progress` is told how it goes every `progress_every` events."""
    cluster_random = random.Random(seed)
    tracings: dict[int, Tracing] = {}
    run: RunDirectory | None = None
    hooks: SimulationHooks | None = None
    node_ids = list(range(FIRST_NODE_ID, FIRST_NODE_ID + voters + observers))
    if trace:
        run = RunDirectory.create(traces_dir)
        hooks = TracedNodes(tracings)
    cluster = Cluster(voters, observers, cluster_random, first_node_id=FIRST_NODE_ID, hooks=hooks)
    if run is not None:
        clock = SpanClock(lambda: cluster.time.milliseconds() * 1_000_000)
        for node_id in node_ids:
            tracings[node_id] = node_tracing(instance_id(node_id, voters), run.run_id, "kraft", run.path, clock)
        run.write_manifest(_manifest(run, cluster, seed, voters, observers, drop, steps, node_ids))
    router = MessageRouter(cluster)
    drops = [RandomDrop(cluster_random, drop) for _ in node_ids]
    if drop > 0:
        for node_id, network_filter in zip(node_ids, drops, strict=True):
            router.filter(node_id, network_filter)
    scheduler = scheduler_with_default_invariants(cluster)
    leader_changes = LeaderChanges(cluster)
    scheduler.add_invariant(leader_changes)
    started_ms = cluster.time.milliseconds()

    verdicts = dict.fromkeys(CHECKS, "OK")
    failure = failed_step = None
    try:
        cluster.start_all()
        schedule_polling(scheduler, cluster, 3, 5)
        scheduler.schedule(router.deliver_all, 0, 2, 1)
        scheduler.schedule(SequentialAppendAction(cluster), 0, 2, 3)
        while scheduler.events_run < steps:
            target = min(steps, scheduler.events_run + max(progress_every, 1))
            try:
                scheduler.run_until(lambda target=target: scheduler.events_run >= target)
            except InvariantViolation as e:
                verdicts[e.invariant] = f"VIOLATED at step {e.event}"
                failure, failed_step = f"{e.invariant}: {e.message}", e.event
                break
            except AssertionError as e:  # a validation at the end of a stretch: the committed data
                verdicts[ConsistentCommittedData.__name__] = f"VIOLATED at step {scheduler.events_run}"
                failure, failed_step = f"{ConsistentCommittedData.__name__}: {e}", scheduler.events_run
                break
            except RuntimeError as e:  # a node's poll raised: Kafka's test fails the same way
                cause = e.__cause__ if e.__cause__ is not None else e
                failure, failed_step = f"{e}: {type(cause).__name__}: {cause}", scheduler.events_run
                break
            if progress is not None:
                progress(_progress_line(scheduler.events_run, steps, cluster, leader_changes, started_ms))
    finally:
        if failure is not None:
            for name, verdict in verdicts.items():
                if verdict == "OK":
                    verdicts[name] = f"OK until step {failed_step}"
        dropped_spans = {}
        for node_id, tracing in tracings.items():
            tracing.shutdown()
            dropped_spans[instance_id(node_id, voters)] = tracing.stats().get("dropped_spans", 0)
        result = RaftSimResult(
            seed=seed, steps_run=scheduler.events_run, simulated_ms=cluster.time.milliseconds() - started_ms,
            leader_changes=leader_changes.count(), elected=dict(leader_changes.elected),
            committed_offset=cluster.max_high_watermark_reached(), nodes=[repr(n) for n in cluster.running()],
            verdicts=verdicts, failure=failure, failed_step=failed_step,
            dropped_messages=sum(d.dropped for d in drops), run_dir=run.path if run is not None else None,
            dropped_spans=dropped_spans)
        if run is not None:
            manifest = run.read_manifest()
            manifest.update(stopped_at=now_iso(), dropped_spans=dropped_spans,
                            simulation={**manifest["simulation"], **_summary(result)})
            for process in manifest["processes"]:
                process["state"] = "stopped"
            if drop > 0:
                manifest["faults"][0]["until"] = _epoch_iso(cluster.time.milliseconds())
            run.write_manifest(manifest)
    return result


def _manifest(run: RunDirectory, cluster: Cluster, seed: int, voters: int, observers: int, drop: float, steps: int,
              node_ids: list[int]) -> dict[str, Any]:
    processes = [{"role": "controller" if node_id in cluster.voters else "broker", "id": node_id, "pid": os.getpid(),
                  "port": None, "log": None, "state": "simulated", "instance": instance_id(node_id, voters)}
                 for node_id in node_ids]
    manifest: dict[str, Any] = {
        "run_id": run.run_id, "mode": "kraft", "run_dir": str(run.path), "started_at": now_iso(), "stopped_at": None,
        "bootstrap_servers": "", "cluster_id": cluster.cluster_id, "processes": processes, "dropped_spans": {},
        "simulation": {"kind": "raft-sim", "seed": seed, "voters": voters, "observers": observers, "drop": drop,
                       "steps": steps, "clock": "simulated (MockTime), started at the wall clock"},
        "faults": []}
    if drop > 0:
        manifest["faults"].append({"at": _epoch_iso(cluster.time.milliseconds()), "kind": "drop",
                                   "nodes": node_ids, "until": None, "probability": drop})
    return manifest


def _epoch_iso(ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(ms / 1000))


def _summary(result: RaftSimResult) -> dict[str, Any]:
    return {"steps_run": result.steps_run, "simulated_ms": result.simulated_ms,
            "leader_changes": result.leader_changes, "committed_offset": result.committed_offset,
            "verdicts": result.verdicts, "failure": result.failure, "failed_step": result.failed_step,
            "dropped_messages": result.dropped_messages}


def _progress_line(step: int, steps: int, cluster: Cluster, leader_changes: LeaderChanges, started_ms: int) -> str:
    leader = cluster.latest_leader()
    epoch = max((node.client.quorum.epoch() for node in cluster.running()), default=0)
    return (f"step {step}/{steps} · simulated {(cluster.time.milliseconds() - started_ms) / 1000:.1f} s · "
            f"leader {leader if leader is not None else 'none'} (epoch {epoch}) · "
            f"leader changes {leader_changes.count()} · committed offset {cluster.max_high_watermark_reached()}")


def summary_lines(result: RaftSimResult) -> list[str]:
    elected = ", ".join(f"{epoch}: {leader}" for epoch, leader in sorted(result.elected.items())) or "none"
    lines = [f"raft-sim seed {result.seed}: {result.steps_run} steps, {result.simulated_ms / 1000:.1f} s simulated",
             f"leader changes: {result.leader_changes} (leader by epoch: {elected})",
             f"committed offset (highest high watermark): {result.committed_offset}",
             f"messages dropped: {result.dropped_messages}",
             "nodes: " + ", ".join(result.nodes),
             result.invariants_line()]
    if result.failure is not None:
        lines.append(f"FAILED at step {result.failed_step}: {result.failure}")
    if result.run_dir is not None:
        lines.append(f"run directory: {result.run_dir}")
    return lines
