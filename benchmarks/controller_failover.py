"""How long does leadership take to come back after the active controller is killed with kill -9?

For each partition count, starts a fresh traced 3-broker cluster (ZooKeeper mode) with the cluster runner, creates
one topic with that many partitions and replication factor 3, waits until every partition has a leader and a full
ISR, then, round after round: reads `/controller`, kills that broker with SIGKILL, waits until every partition it led
is led by a live broker, restarts it and waits until the cluster has settled again (all partitions led, every ISR
full). After the cluster is stopped it reads the run's spans back and splits each failover into:

- detection: the kill (wall clock taken by this script with `time.time_ns()`, the clock of the span timestamps) to
  the start of the `Reelect` controller event on the broker that wins the election. ZooKeeper removes the dead
  broker's ephemeral `/controller` and `/brokers/ids/<id>` only when its session expires, so this is about
  `zookeeper.session.timeout.ms`;
- election + failover: from there to the start of the leader elections: `KafkaController.elect` (CT.elect) and the
  steps of `KafkaController.onControllerFailover` before the elections (CT.failover.01-08);
- leader moves: from the start of the span that carries the new controller's first OfflinePartition ->
  OnlinePartition `partition.state.change` for a partition the dead broker led, to the end of the last
  `ReplicaManager.makeLeaders` on a surviving broker that covers such a partition. That end is when the last of
  those partitions is led by a live broker. The dead broker's `/brokers/ids` znode goes with `/controller`, so the
  elections run inside CT.failover.09 (`PartitionStateMachine.triggerOnlinePartitionStateChange`, or
  `PartitionStateMachine.startup` itself at older commits), not in a BrokerChange event. Leader moves split into
  the state machine (up to the last of those state changes, ZooKeeper writes included) and LeaderAndIsr delivery
  and handling.

Before each kill after the first, the script also waits for the new controller's first auto leader rebalance
check (5 s after its failover), so that no leadership moves while the next controller is killed.

    python benchmarks/controller_failover.py --partitions 10,100,1000 --rounds 3 --tmp

`--override k=v` adds broker settings (default `zookeeper.session.timeout.ms=6000`, Kafka 1.0.2's default). Each run
directory keeps what only the script knows (kill times, the partitions each killed broker led) in
`controller-failover.json`, so `--report RUN_DIR...` can read finished runs back without running them again.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from confluent_kafka.admin import AdminClient, NewTopic
from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from kafka_edu.cluster_runner.processes import process_alive
from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.tracing.query import SpanRecord, Spans, load_run, parse_traces_line

console = Console()
BROKERS = 3
RUNNING = "RunningAsBroker"
TOPIC = "failover-bench"
DEFAULT_OVERRIDES = ["zookeeper.session.timeout.ms=6000"]
# Spans are on disk within 250 ms of their end (TRACING.md); wait a little more before reading them back.
FLUSH_S = 0.5


# -- ZooKeeper: the cluster as the controller records it ------------------------------------------------------------

@dataclass
class PartitionLeadership:
    leader: int
    isr: list[int]
    replicas: list[int]


def controller_id(zk: KazooClient) -> int:
    """The broker `/controller` names, or -1 while there is none."""
    try:
        data, _ = zk.get("/controller")
    except NoNodeError:  # none, or deleted between two reads (the session that held it just expired)
        return -1
    return int(json.loads(data)["brokerid"])


def live_broker_ids(zk: KazooClient) -> set[int]:
    return {int(child) for child in zk.get_children("/brokers/ids")}


def leadership(zk: KazooClient, topic: str) -> dict[int, PartitionLeadership]:
    """Every partition of `topic` with a state znode: its leader, ISR and assigned replicas (asynchronous reads)."""
    if not zk.exists(f"/brokers/topics/{topic}"):
        return {}
    data, _ = zk.get(f"/brokers/topics/{topic}")
    assignment = {int(p): list(r) for p, r in json.loads(data)["partitions"].items()}
    reads = {p: zk.get_async(f"/brokers/topics/{topic}/partitions/{p}/state") for p in assignment}
    result = {}
    for partition, read in reads.items():
        try:
            state, _ = read.get(timeout=30)
        except Exception:  # not created yet (NoNodeError), or still being written
            continue
        state_json = json.loads(state)
        result[partition] = PartitionLeadership(int(state_json["leader"]), list(state_json["isr"]),
                                                assignment[partition])
    return result


def settled(zk: KazooClient, topic: str, partitions: int, brokers: set[int]) -> bool:
    """All brokers registered, every partition led by one of them, every ISR the full replica set."""
    if live_broker_ids(zk) != brokers:
        return False
    states = leadership(zk, topic)
    return len(states) == partitions and all(s.leader in brokers and sorted(s.isr) == sorted(s.replicas)
                                             for s in states.values())


def leaders_moved(zk: KazooClient, topic: str, moved: set[str], live: set[int]) -> bool:
    """Every partition in `moved` ("topic-partition") has a live leader in its state znode."""
    now = leadership(zk, topic)
    return all((state := now.get(int(tp.rsplit("-", 1)[1]))) is not None and state.leader in live for tp in moved)


def wait_until(condition: Callable[[], bool], timeout_s: float, what: str, poll_s: float = 0.2) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {timeout_s:.0f} s")
        time.sleep(poll_s)


# -- following span files while the cluster runs ----------------------------------------------------------------------

class SpanTail:
    """The spans appended to one process's span files since the last call (complete lines only), without rereading
    them: its lifecycle file `<instance>.jsonl` and its request-path segments `<instance>.requests-NNNNNN.jsonl`
    (kafka_edu/tracing/writer.py), where a broker's handling of the controller's LeaderAndIsr goes."""

    def __init__(self, path: Path, from_start: bool = False) -> None:
        self.path = path
        self.offsets: dict[Path, int] = {} if from_start else {p: p.stat().st_size for p in self.files()}

    def files(self) -> list[Path]:
        segments = sorted(self.path.parent.glob(f"{self.path.stem}.requests-*.jsonl"))
        return [p for p in (self.path, *segments) if p.exists()]

    def skip_to_end(self) -> None:
        """Forget what is there now: the next call returns only what comes after."""
        self.offsets = {p: p.stat().st_size for p in self.files()}

    def new_spans(self, *containing: bytes) -> Iterator[SpanRecord]:
        """New spans of the lines that contain one of `containing` (only those lines are parsed: the script shares
        the CPUs it measures with the brokers)."""
        for path in self.files():
            offset = self.offsets.get(path, 0)  # a segment that appeared since: from its start
            try:
                with open(path, "rb") as f:
                    f.seek(offset)
                    chunk = f.read()
            except FileNotFoundError:  # the oldest segment went with the budget
                continue
            complete = chunk[:chunk.rfind(b"\n") + 1]
            self.offsets[path] = offset + len(complete)
            for line in complete.splitlines():
                if any(needle in line for needle in containing):
                    yield from parse_traces_line(line.decode("utf-8"))


def wait_for_running(runner: ClusterRunner, broker_id: int, pid: int, tail: SpanTail, timeout_s: float) -> None:
    """Like ClusterRunner.wait_for_state, but reads only what the broker's span file gained (it grows large here)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for s in tail.new_spans(b"BrokerState.newState"):
            if s.name == "BrokerState.newState" and s.resource.get("process.pid") == pid \
                    and s.attributes.get("kafka.broker.state.to") == RUNNING:
                return
        if not process_alive(pid):
            raise RuntimeError(f"broker {broker_id} exited while starting; see {runner.broker_entry(broker_id)['log']}")
        time.sleep(0.25)
    raise TimeoutError(f"broker {broker_id} did not reach {RUNNING} within {timeout_s:.0f} s")


# -- one cluster, one partition count ---------------------------------------------------------------------------------

@dataclass
class Kill:
    """One round as the script saw it; the spans fill in the rest."""
    round_no: int
    controller: int
    kill_ns: int
    moved: set[str]  # "topic-partition" of every partition the killed broker led
    load: float = float("nan")  # the machine's 1-minute load average at the kill (the CPUs are shared)


@dataclass
class ClusterRun:
    partitions: int
    run_dir: Path
    create_s: float  # create_topics() until every partition led with a full ISR, as ZooKeeper shows it
    kills: list[Kill] = field(default_factory=list)


RECORD = "controller-failover.json"


def save_run(run: ClusterRun) -> None:
    """What only this script knows (kill times, the partitions each killed broker led), kept in the run directory."""
    record = {"partitions": run.partitions, "create_s": run.create_s,
              "kills": [{"round_no": k.round_no, "controller": k.controller, "kill_ns": k.kill_ns,
                         "moved": sorted(k.moved), "load": k.load} for k in run.kills]}
    (run.run_dir / RECORD).write_text(json.dumps(record, indent=1) + "\n")


def load_saved_run(run_dir: Path) -> ClusterRun:
    record = json.loads((run_dir / RECORD).read_text())
    return ClusterRun(record["partitions"], run_dir, record["create_s"],
                      [Kill(k["round_no"], k["controller"], k["kill_ns"], set(k["moved"]), k.get("load", float("nan")))
                       for k in record["kills"]])


def run_partition_count(partitions: int, rounds: int, traces_dir: Path, overrides: list[str], session_timeout_ms: int,
                        progress: Progress, task: Any) -> ClusterRun:
    describe = f"[{partitions} partitions]"
    progress.update(task, description=f"{describe} starting ZooKeeper and {BROKERS} brokers")
    runner = ClusterRunner.up(BROKERS, traces_dir, overrides=overrides)
    brokers = set(range(BROKERS))
    zk: KazooClient | None = None
    try:
        manifest = runner.run.read_manifest()
        zk = KazooClient(hosts=manifest["zookeeper_connect"])
        zk.start(timeout=30)
        tails = {b: SpanTail(runner.run.path / f"broker-{b}.jsonl") for b in brokers}

        progress.update(task, description=f"{describe} creating the topic (RF={BROKERS})")
        started = time.monotonic()
        admin = AdminClient({"bootstrap.servers": manifest["bootstrap_servers"]})
        futures = admin.create_topics([NewTopic(TOPIC, partitions, BROKERS)], operation_timeout=600,
                                      request_timeout=660)
        futures[TOPIC].result(700)
        del admin, futures  # closes the client: it would log every broker we kill
        wait_until(lambda: settled(zk, TOPIC, partitions, brokers), 600, f"{partitions} partitions led with full ISR",
                   0.5)
        run = ClusterRun(partitions, runner.run.path, time.monotonic() - started)
        save_run(run)
        progress.advance(task)

        for round_no in range(1, rounds + 1):
            time.sleep(1.0)  # let the controller's queue and the brokers go quiet before the kill
            victim = controller_id(zk)
            states = leadership(zk, TOPIC)
            moved = {f"{TOPIC}-{p}" for p, s in states.items() if s.leader == victim}
            progress.update(task, description=f"{describe} round {round_no}/{rounds}: kill -9 controller "
                                              f"(broker {victim}, leads {len(moved)})")
            load = os.getloadavg()[0]
            kill_ns = time.time_ns()
            runner.kill(victim)
            survivors = brokers - {victim}
            rebalance_tails = {b: SpanTail(tails[b].path) for b in survivors}
            # Nothing can happen before the session expires: watch `/controller` only, then the survivors' spans.
            wait_until(lambda v=victim: controller_id(zk) not in (-1, v), session_timeout_ms / 1000 + 120,
                       "a new controller", 0.1)
            progress.update(task, description=f"{describe} round {round_no}/{rounds}: broker {controller_id(zk)} "
                                              f"took over; waiting for {len(moved)} new leaders")
            wait_for_leadership_spans(tails, survivors, kill_ns, moved, 600)
            if not leaders_moved(zk, TOPIC, moved, survivors):
                raise RuntimeError(f"round {round_no}: the traces show new leaders that ZooKeeper does not")
            run.kills.append(Kill(round_no, victim, kill_ns, moved, load))
            save_run(run)
            progress.advance(task)

            if round_no < rounds:
                progress.update(task, description=f"{describe} round {round_no}/{rounds}: restarting broker {victim}")
                tails[victim] = SpanTail(tails[victim].path)
                pid = runner.start(victim)
                wait_for_running(runner, victim, pid, tails[victim], 300)
                progress.update(task, description=f"{describe} round {round_no}/{rounds}: waiting for the new "
                                                  "controller's first leader-balance check")
                wait_for_first_rebalance_check(rebalance_tails[controller_id(zk)], kill_ns, 120)
                progress.update(task, description=f"{describe} round {round_no}/{rounds}: waiting for full ISRs")
                wait_until(lambda: settled(zk, TOPIC, partitions, brokers), 600, "cluster settled after restart", 0.5)
    finally:
        progress.update(task, description=f"{describe} stopping the cluster")
        if zk is not None:
            zk.stop()
            zk.close()
        runner.down()
    return run


def wait_for_first_rebalance_check(tail: SpanTail, kill_ns: int, timeout_s: float) -> None:
    """Until the new controller's first auto leader rebalance check (5 s after its failover, as in 1.0.2) has run.

    It moves leadership back to preferred replicas; killing the controller while it does would change which
    partitions the kill takes away. Returns at once when the failover shows auto rebalance off (CT.failover.14) or
    shows no CT.failover.14 at all (a commit without it)."""
    deadline = time.monotonic() + timeout_s
    rebalance_step_seen = False  # CT.failover.14 ends (and is exported) before its parent onControllerFailover
    while time.monotonic() < deadline:
        for s in tail.new_spans(b"CT.failover.14", b"AutoPreferredReplicaLeaderElection", b"onControllerFailover"):
            if s.start_ns < kill_ns:
                continue
            if s.step == "CT.failover.14":
                if not s.attributes.get("kafka.auto_leader_rebalance"):
                    return
                rebalance_step_seen = True
            elif s.attributes.get("kafka.controller.event") == "AutoPreferredReplicaLeaderElection":
                return
            elif s.name == "KafkaController.onControllerFailover" and not rebalance_step_seen:
                return
        time.sleep(0.25)
    raise TimeoutError(f"no auto leader rebalance check within {timeout_s:.0f} s of the failover")


def wait_for_leadership_spans(tails: dict[int, SpanTail], survivors: set[int], kill_ns: int, moved: set[str],
                              timeout_s: float) -> None:
    """Until the survivors' traces hold a `ReplicaManager.makeLeaders` after the kill for every moved partition."""
    missing = set(moved)
    deadline = time.monotonic() + timeout_s
    while missing:
        for broker_id in survivors:
            for s in tails[broker_id].new_spans(b"ReplicaManager.makeLeaders"):
                if s.name == "ReplicaManager.makeLeaders" and s.start_ns >= kill_ns:
                    missing -= set(s.attributes.get("kafka.partitions") or [])
        if time.monotonic() > deadline:
            raise TimeoutError(f"no makeLeaders span for {len(missing)} moved partitions within {timeout_s:.0f} s")
        time.sleep(0.5)
    time.sleep(FLUSH_S)


# -- reading a failover back from the spans ---------------------------------------------------------------------------

@dataclass
class Failover:
    partitions: int
    round_no: int
    killed: int
    new_controller: int
    epoch: int
    moved: int
    moved_by_events: int  # Offline -> Online state changes the new controller recorded for those partitions
    moved_in: str  # the span the leader elections ran under
    detection_ms: float
    election_failover_ms: float
    state_machine_ms: float
    delivery_ms: float
    failover_done_ms: float  # kill -> end of onControllerFailover
    load: float
    failover_steps_ms: dict[str, float]

    @property
    def leader_moves_ms(self) -> float:
        return self.state_machine_ms + self.delivery_ms

    @property
    def total_ms(self) -> float:
        return self.detection_ms + self.election_failover_ms + self.leader_moves_ms


def trace_root(spans: Spans, s: SpanRecord) -> SpanRecord:
    by_id = {x.span_id: x for x in spans.where(trace_id=s.trace_id)}
    while s.parent_id in by_id:
        s = by_id[s.parent_id]
    return s


def analyse_kill(spans: Spans, partitions: int, kill: Kill, until_ns: int) -> Failover:
    """One round, from the spans between its kill and `until_ns` (the next round's kill)."""
    survivors = {f"broker-{b}" for b in range(BROKERS) if b != kill.controller}
    after = Spans(s for s in spans if s.end_ns >= kill.kill_ns and s.start_ns < until_ns and s.instance in survivors)
    elect = next((s for s in after.where(name="KafkaController.elect")
                  if s.attributes.get("kafka.controller.won") is True), None)
    if elect is None:
        raise LookupError(f"round {kill.round_no}: no won KafkaController.elect after the kill")
    winner = elect.instance
    epoch = int(elect.attributes.get("kafka.controller.epoch", -1))
    event_root = trace_root(spans, elect)  # ControllerEventManager.process of the Reelect event
    failover = next(s for s in spans.where(trace_id=elect.trace_id, name="KafkaController.onControllerFailover"))
    steps = {s.step: s.duration_ms for s in spans.children_of(failover) if s.step}

    # The leader elections: Offline -> Online state changes of the moved partitions on the new controller.
    moves: list[tuple[int, SpanRecord]] = []
    for s in after.where(instance=winner):
        for e in s.events:
            if e.name == "partition.state.change" and kill.kill_ns <= e.time_ns < until_ns \
                    and e.attributes.get("to") == "OnlinePartition" and e.attributes.get("from") == "OfflinePartition" \
                    and f"{e.attributes.get('kafka.topic')}-{e.attributes.get('kafka.partition')}" in kill.moved:
                moves.append((e.time_ns, s))
    if kill.moved and not moves:
        raise LookupError(f"round {kill.round_no}: no Offline -> Online partition.state.change on {winner}")
    if moves:
        moves.sort(key=lambda m: m[0])
        election_span = moves[0][1]
        moves_start, last_online = election_span.start_ns, moves[-1][0]
    else:  # the dead controller led nothing: no leader moves, the failover still runs to its elections step
        election_span = next(s for s in spans.children_of(failover) if s.step == "CT.failover.09")
        moves_start = last_online = election_span.start_ns

    # The moved partitions' new leaders taking over: for each, the first makeLeaders of the new controller epoch
    # that names it (later ones belong to whatever happened next, e.g. the controlled shutdowns of `down()`).
    led_end = 0
    covered: set[str] = set()
    for s in after.where(name="ReplicaManager.makeLeaders"):
        if int(s.attributes.get("kafka.controller.epoch", -1)) != epoch:
            continue
        ours = (kill.moved - covered) & set(s.attributes.get("kafka.partitions") or [])
        if ours:
            covered |= ours
            led_end = max(led_end, s.end_ns)
    if covered != kill.moved:
        raise LookupError(f"round {kill.round_no}: {len(kill.moved - covered)} moved partitions never made leader")
    led_end = led_end or last_online

    return Failover(
        partitions=partitions, round_no=kill.round_no, killed=kill.controller,
        new_controller=int(winner.removeprefix("broker-")), epoch=epoch, moved=len(kill.moved),
        moved_by_events=len(moves), moved_in=election_span.name,
        detection_ms=(event_root.start_ns - kill.kill_ns) / 1e6,
        election_failover_ms=(moves_start - event_root.start_ns) / 1e6,
        state_machine_ms=(last_online - moves_start) / 1e6,
        delivery_ms=(led_end - last_online) / 1e6,
        failover_done_ms=(failover.end_ns - kill.kill_ns) / 1e6, load=kill.load, failover_steps_ms=steps)


@dataclass
class Creation:
    """Where the topic creation's time went, from the spans."""
    topic_change_ms: float  # the controller's TopicChange event (CT.topic): state machines + ZooKeeper writes
    leader_and_isr_ms: dict[str, float]  # per broker: sum of handleLeaderAndIsrRequest until the first kill
    make_leaders_ms: float
    make_followers_ms: float


def analyse_creation(spans: Spans, run: ClusterRun) -> Creation:
    first_kill = run.kills[0].kill_ns if run.kills else 2**63
    before = Spans(s for s in spans if s.end_ns < first_kill)
    topic_change = before.where(step="CT.topic")
    handled: dict[str, float] = {}
    for s in before.where(name="KafkaApis.handleLeaderAndIsrRequest"):
        handled[s.instance] = handled.get(s.instance, 0.0) + s.duration_ms
    return Creation(sum(s.duration_ms for s in topic_change), handled,
                    sum(s.duration_ms for s in before.where(name="ReplicaManager.makeLeaders")),
                    sum(s.duration_ms for s in before.where(name="ReplicaManager.makeFollowers")))


# -- report -------------------------------------------------------------------------------------------------------

def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


CHART_WIDTH = 60
CHART_PARTS = (("detection", "█", "blue"), ("election+failover", "▒", "yellow"), ("leader moves", "░", "red"))


def chart_lines(rows: list[tuple[str, list[float]]], markup: bool = True) -> list[str]:
    """Stacked horizontal bars, one per row of (label, [detection, election+failover, leader moves]) in ms, on a
    common scale; each part has its own character so the chart reads without colour too."""
    scale = CHART_WIDTH / max(sum(parts) for _, parts in rows)
    lines = []
    for label, parts in rows:
        bar = ""
        for value, (_, char, colour) in zip(parts, CHART_PARTS, strict=True):
            cells = char * max(1 if value > 0 else 0, round(value * scale))
            bar += f"[{colour}]{cells}[/{colour}]" if markup else cells
        lines.append(f"{label:>16} {bar} {sum(parts) / 1000:.1f} s")
    lines.append(" " * 17 + "   ".join(f"{char} {name}" for name, char, _ in CHART_PARTS) + "   (medians)")
    return lines


def print_report(runs: list[ClusterRun], failovers: dict[int, list[Failover]], creations: dict[int, Creation],
                 session_timeout_ms: int, command: str) -> None:
    summary = Table(title=f"controller failover after kill -9, {BROKERS} brokers, RF={BROKERS}, "
                          f"zookeeper.session.timeout.ms={session_timeout_ms} (medians, ms)", title_justify="left")
    for column in ("partitions", "rounds", "median total", "detection", "election+failover", "leader moves",
                   "partitions moved"):
        summary.add_column(column, justify="right")
    for run in runs:
        fs = failovers[run.partitions]
        summary.add_row(str(run.partitions), str(len(fs)), f"{median([f.total_ms for f in fs]):,.0f}",
                        f"{median([f.detection_ms for f in fs]):,.0f}",
                        f"{median([f.election_failover_ms for f in fs]):,.0f}",
                        f"{median([f.leader_moves_ms for f in fs]):,.0f}",
                        f"{median([float(f.moved) for f in fs]):,.0f}")
    console.print(summary)
    console.print("\n".join(chart_lines([
        (f"{run.partitions} partitions", [median([f.detection_ms for f in failovers[run.partitions]]),
                                          median([f.election_failover_ms for f in failovers[run.partitions]]),
                                          median([f.leader_moves_ms for f in failovers[run.partitions]])])
        for run in runs])), highlight=False)

    rounds = Table(title="each round (ms from the kill unless a duration)", title_justify="left")
    for column in ("partitions", "round", "killed", "new ctrl", "moved", "detection", "election+failover",
                   "state machine", "LeaderAndIsr", "total", "failover done", "load", "elections in"):
        rounds.add_column(column, justify="left" if column == "elections in" else "right")
    for run in runs:
        for f in failovers[run.partitions]:
            rounds.add_row(str(f.partitions), str(f.round_no), str(f.killed), str(f.new_controller),
                           f"{f.moved} ({f.moved_by_events})",
                           *(f"{v:,.0f}" for v in (f.detection_ms, f.election_failover_ms, f.state_machine_ms,
                                                   f.delivery_ms, f.total_ms, f.failover_done_ms)),
                           f"{f.load:.1f}", f.moved_in)
    console.print(rounds)

    step_ids = sorted({s for fs in failovers.values() for f in fs for s in f.failover_steps_ms})
    steps = Table(title="KafkaController.onControllerFailover steps (median ms)", title_justify="left")
    steps.add_column("step")
    for run in runs:
        steps.add_column(f"{run.partitions} partitions", justify="right")
    for step_id in step_ids:
        medians = (median([f.failover_steps_ms[step_id] for f in failovers[run.partitions]
                           if step_id in f.failover_steps_ms]) for run in runs)
        steps.add_row(step_id, *(f"{m:,.1f}" for m in medians))
    console.print(steps)

    creation = Table(title="topic creation (RF=3)", title_justify="left")
    for column in ("partitions", "create → all led, full ISR (s)", "TopicChange event (ms)",
                   "LeaderAndIsr handling per broker (ms)", "makeLeaders Σ (ms)", "makeFollowers Σ (ms)"):
        creation.add_column(column, justify="right")
    for run in runs:
        c = creations[run.partitions]
        creation.add_row(str(run.partitions), f"{run.create_s:.1f}", f"{c.topic_change_ms:,.0f}",
                         " / ".join(f"{v:,.0f}" for _, v in sorted(c.leader_and_isr_ms.items())),
                         f"{c.make_leaders_ms:,.0f}", f"{c.make_followers_ms:,.0f}")
    console.print(creation)
    for run in runs:
        console.print(f"{run.partitions} partitions: run directory {run.run_dir}")
    console.print(f"command: {command}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Measure controller failover after kill -9 from kafka-edu's traces.")
    parser.add_argument("--partitions", default="10,100,1000", help="comma-separated partition counts")
    parser.add_argument("--rounds", type=int, default=3, help="controller kills per partition count (default 3)")
    parser.add_argument("--override", action="append", default=None, metavar="K=V",
                        help="broker setting for every broker (default zookeeper.session.timeout.ms=6000)")
    parser.add_argument("--traces", default="traces", help="where the run directories go (default traces/)")
    parser.add_argument("--tmp", action="store_true", help="write the runs into a temporary directory, then delete it")
    parser.add_argument("--report", nargs="+", type=Path, metavar="RUN_DIR",
                        help="only read back run directories this script wrote earlier, and print the report")
    options = parser.parse_args(argv)
    counts = [int(p) for p in options.partitions.split(",") if p.strip()]
    if options.rounds < 1 or not counts or min(counts) < 1:
        parser.error("--rounds and every partition count must be at least 1")
    overrides = options.override or list(DEFAULT_OVERRIDES)
    session_timeout_ms = next((int(o.partition("=")[2]) for o in overrides
                               if o.partition("=")[0].strip() == "zookeeper.session.timeout.ms"), 6000)
    command = "python benchmarks/controller_failover.py " + " ".join(argv if argv is not None else sys.argv[1:])

    def report(runs: list[ClusterRun]) -> None:
        failovers, creations = {}, {}
        for run in runs:
            with console.status(f"reading the spans of the {run.partitions}-partition run"):
                spans = load_run(run.run_dir)
                ends = [k.kill_ns for k in run.kills[1:]] + [2**63]
                failovers[run.partitions] = [analyse_kill(spans, run.partitions, k, end)
                                             for k, end in zip(run.kills, ends, strict=True)]
                creations[run.partitions] = analyse_creation(spans, run)
        print_report(runs, failovers, creations, session_timeout_ms, command)

    def measure(traces_dir: Path) -> None:
        runs: list[ClusterRun] = []
        with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=console) as progress:
            task = progress.add_task("starting", total=len(counts) * (options.rounds + 1))
            for partitions in counts:
                runs.append(run_partition_count(partitions, options.rounds, traces_dir, overrides,
                                                session_timeout_ms, progress, task))
        report(runs)

    if options.report:
        report([load_saved_run(run_dir) for run_dir in options.report])
    elif options.tmp:
        with tempfile.TemporaryDirectory(prefix="kafka-edu-failover-") as tmp:
            measure(Path(tmp))
    else:
        measure(Path(options.traces))
    return 0


if __name__ == "__main__":
    sys.exit(main())
