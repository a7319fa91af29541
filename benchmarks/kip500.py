"""The KIP-500 experiment on this machine: controller failover and metadata loading, ZooKeeper mode against KRaft.

KIP-500 replaced ZooKeeper with a Raft quorum of controllers. It claimed that a controller failover and the loading of
the metadata would stop growing with the partition count: a ZooKeeper-mode controller that takes over must first read
every topic and partition from ZooKeeper, while a KRaft standby controller already holds the metadata in memory
(it replays the metadata log as it is committed), so taking over is nearly instant.

For each mode and each partition count, the script starts a fresh traced cluster with the cluster runner, creates one
topic with that many partitions, replication factor 3, waits until every partition is led, then kills the active
controller with SIGKILL, round after round. After the cluster is stopped it reads the run's spans back and measures,
from the kill (wall clock taken here with `time.time_ns()`, the clock of the span timestamps):

- ZooKeeper mode (Kafka 1.0.2, 3 brokers, one of them the controller): the rounds of
  `benchmarks/controller_failover.py`, whose functions this script reuses. A working controller: the end of the new
  controller's `onControllerFailover`. Every partition led again: the end of the last `ReplicaManager.makeLeaders`
  that gives a partition the dead broker led a live leader. Loading the metadata: `initializeControllerContext`
  (CT.failover.05, every topic and partition state read from ZooKeeper), and all of `onControllerFailover`.
- KRaft mode (Kafka 3.9, 3 controllers and 3 brokers): detection is a follower's fetch timeout (its first transition
  to Candidate), then the election (the winner's transition to Leader), the commit of its LeaderChange record, the
  QuorumController's `claim` and `completeActivation`: a working controller at the end of `completeActivation`. The
  standby's "loading" is claim -> completeActivation. Partition leaders live on the brokers and do not move when a
  controller dies: the script counts the partitions whose leader moved to another broker after the kill (spans),
  and asks the brokers in turn for the partitions without a live leader while the failover runs (Metadata
  requests); both should be 0. The killed controller is then started again: a cold start that loads the metadata
  from its log (restart -> its QuorumController has replayed every record committed before the restart). With
  `--broker-rounds`, it also kills the broker that leads the most partitions: detection is
  `broker.session.timeout.ms` (the fence, KR.fence), then the leadership changes committed and applied on the
  surviving brokers (the last `makeLeaders`).

    python benchmarks/kip500.py --partitions 10,100,1000,5000 --rounds 3 --broker-rounds 2 --chart docs/img/kip-500.png

10,000 partitions at replication factor 3 need about 30,000 open files on each broker (the port keeps a segment's
log, offset index and time index open); this machine's hard limit is 20,000, so the default stops at 5,000.

The default settings are each version's own: `zookeeper.session.timeout.ms=6000` (Kafka 1.0.2) and 3.9's
`controller.quorum.fetch.timeout.ms=2000`, `controller.quorum.election.timeout.ms=1000` and
`broker.session.timeout.ms=9000`. `--override k=v` adds a setting for every node of both modes.

Each run directory keeps what only the script knows (kill and restart times, the partitions each killed broker led):
`controller-failover.json` (ZooKeeper mode) or `kip500.json` (KRaft), so `--report RUN_DIR...` reads finished runs
back. The figures go to a JSON file (`--json`) and a chart (`--chart`, PNG and SVG); `--chart-only JSON` redraws the
chart from such a file.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from confluent_kafka.admin import AdminClient, NewTopic
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

if __package__ in (None, ""):  # run as a script: make the `benchmarks` directory importable as a package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import controller_failover as zk  # noqa: E402
from kafka_edu.cluster_runner.runner import ClusterRunner  # noqa: E402
from kafka_edu.tracing.query import SpanRecord, Spans, parse_traces_line  # noqa: E402
from kafka_edu.v1_0_2.core.network.blocking_channel import BlockingChannel  # noqa: E402
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys  # noqa: E402
from kafka_edu.v3_9.clients.common.protocol.builder import build  # noqa: E402

console = Console() if sys.stdout.isatty() else Console(width=200)  # a log file gets whole tables
TOPIC = zk.TOPIC
CONTROLLERS = 3
BROKERS = 3
BROKER_IDS = tuple(range(CONTROLLERS + 1, CONTROLLERS + 1 + BROKERS))  # the runner numbers brokers after controllers
RF = 3
RECORD = "kip500.json"
MAX_PARTITIONS_PER_CREATE = 9_999  # 3.9 writes a CreateTopics atomically, at most 10,000 records (TopicRecord too)

ROLE_CHANGE = "raft.role.change"
CLAIM = "QuorumController.claim"
ACTIVATION = "QuorumController.completeActivation"
QC_COMMIT = "QuorumController.QuorumMetaLogListener.handleCommit"
WRITE_EVENT = "QuorumController.ControllerWriteEvent.run"
MAKE_LEADERS = "ReplicaManager.makeLeaders"
APPLY_DELTA = "ReplicaManager.applyDelta"
# What the KRaft analysis reads: only the lines of the span files that hold one of these are parsed.
KRAFT_NEEDLES = (ROLE_CHANGE.encode(), CLAIM.encode(), ACTIVATION.encode(), QC_COMMIT.encode(), b"KR.replay",
                 b"KR.fence", MAKE_LEADERS.encode(), APPLY_DELTA.encode(), b"Kafka.main", b"KafkaRaftClient.initialize",
                 WRITE_EVENT.encode())
ZK_NEEDLES = (b"KafkaController.", b"CT.event", b"CT.failover", b"CT.topic", b"partition.state.change",
              b"ReplicaManager.make", b"KafkaApis.handleLeaderAndIsrRequest")


def ms(later: int | None, earlier: int | None) -> float | None:
    return None if later is None or earlier is None else (later - earlier) / 1e6


def read_spans(run_dir: Path, needles: Iterable[bytes]) -> Spans:
    """The spans of a run's span files on the lines that contain one of `needles` (a line is one exported batch):
    a 10,000-partition run writes far more than the few spans the analysis needs."""
    needles = tuple(needles)
    spans: list[SpanRecord] = []
    for path in sorted(run_dir.glob("*.jsonl")):
        if path.name.endswith(".starts.jsonl"):
            continue
        with open(path, "rb") as f:
            for line in f:
                if line.endswith(b"\n") and any(n in line for n in needles):
                    spans += parse_traces_line(line.decode("utf-8", errors="replace"))
    return Spans(spans)


# -- KRaft: what the script records while the cluster runs ------------------------------------------------------------

@dataclass
class KraftKill:
    """One kill -9 as the script saw it; the spans fill in the rest."""
    round_no: int
    kind: str  # "controller" (the Raft leader) or "broker"
    node: int
    kill_ns: int
    load: float  # the machine's 1-minute load average at the kill (the CPUs are shared)
    moved: list[str] = field(default_factory=list)  # a killed broker's partitions it led ("topic-partition")
    leaderless_max: int = -1  # the most partitions a live broker's Metadata showed without a live leader meanwhile
    metadata_polls: int = 0
    restart_ns: int | None = None  # when the killed node was started again
    target_offset: int | None = None  # the last committed offset with a span before the restart


@dataclass
class KraftRun:
    partitions: int
    run_dir: Path
    create_s: float  # create_topics() until every partition led by a broker, as the brokers' spans show
    kills: list[KraftKill] = field(default_factory=list)


def save_kraft_run(run: KraftRun) -> None:
    record = {"partitions": run.partitions, "create_s": run.create_s, "kills": [asdict(k) for k in run.kills]}
    (run.run_dir / RECORD).write_text(json.dumps(record, indent=1) + "\n")


def load_kraft_run(run_dir: Path) -> KraftRun:
    record = json.loads((run_dir / RECORD).read_text())
    return KraftRun(record["partitions"], run_dir, record["create_s"], [KraftKill(**k) for k in record["kills"]])


# -- KRaft: the cluster while it runs ---------------------------------------------------------------------------------

def metadata_leaders(port: int, topics: list[str]) -> dict[str, tuple[int, list[int], list[int]]]:
    """A broker's Metadata answer: "topic-partition" -> (leader, ISR, replicas)."""
    channel = BlockingChannel("127.0.0.1", port, 30, "kip500-bench")
    try:
        response = channel.send_and_receive(ApiKeys.METADATA, 9, build(
            ApiKeys.METADATA.request_schema(9), topics=[dict(name=t) for t in topics],
            allow_auto_topic_creation=False, include_cluster_authorized_operations=False,
            include_topic_authorized_operations=False))
    finally:
        channel.disconnect()
    return {f"{t.name}-{p.partition_index}": (int(p.leader_id), [int(r) for r in p.isr_nodes],
                                              [int(r) for r in p.replica_nodes])
            for t in response.topics for p in t.partitions}


def topic_names(partitions: int) -> dict[str, int]:
    """The topic(s) to create: one, unless it is larger than one CreateTopics may create in 3.9."""
    if partitions <= MAX_PARTITIONS_PER_CREATE:
        return {TOPIC: partitions}
    count = -(-partitions // MAX_PARTITIONS_PER_CREATE)
    sizes = [partitions // count + (1 if i < partitions % count else 0) for i in range(count)]
    return {f"{TOPIC}-{i}": size for i, size in enumerate(sizes)}


def leadership_tails(runner: ClusterRunner) -> dict[int, zk.SpanTail]:
    return {b: zk.SpanTail(runner.span_file(b)) for b in BROKER_IDS}


def wait_for_led(tails: dict[int, zk.SpanTail], wanted: set[str], since_ns: int, timeout_s: float) -> None:
    """Until the brokers' makeLeaders spans after `since_ns` cover every partition in `wanted`."""
    missing = set(wanted)
    deadline = time.monotonic() + timeout_s
    while missing:
        for tail in tails.values():
            for s in tail.new_spans(MAKE_LEADERS.encode()):
                if s.name == MAKE_LEADERS and s.start_ns >= since_ns:
                    missing -= set(s.attributes.get("kafka.partitions") or [])
        if not missing:
            break
        if time.monotonic() > deadline:
            raise TimeoutError(f"{len(missing)} partitions not made leader within {timeout_s:.0f} s")
        time.sleep(0.25)


def committed_offset(tails: dict[int, zk.SpanTail], known: int) -> int:
    """The highest offset the controllers' QuorumController handleCommit spans reached (commits of NoOps only have
    no span)."""
    for tail in tails.values():
        for s in tail.new_spans(QC_COMMIT.encode()):
            if s.name == QC_COMMIT:
                known = max(known, int(s.attributes.get("kafka.raft.offset.last", -1)))
    return known


def run_kraft(partitions: int, rounds: int, broker_rounds: int, traces_dir: Path, overrides: list[str],
              progress: Progress, task: Any) -> KraftRun:
    describe = f"[KRaft, {partitions} partitions]"
    progress.update(task, description=f"{describe} starting {CONTROLLERS} controllers and {BROKERS} brokers")
    runner = ClusterRunner.up(BROKERS, traces_dir, mode="kraft", controllers=CONTROLLERS, overrides=overrides,
                              timeout_s=180)
    try:
        manifest = runner.run.read_manifest()
        ports = {b: runner.entry(b)["port"] for b in BROKER_IDS}
        controller_tails = {c: zk.SpanTail(runner.span_file(c)) for c in range(1, CONTROLLERS + 1)}
        controller_tails_for_offsets = {c: zk.SpanTail(runner.span_file(c), from_start=True) for c in controller_tails}
        topics = topic_names(partitions)
        everything = {f"{t}-{p}" for t, n in topics.items() for p in range(n)}

        progress.update(task, description=f"{describe} creating {len(topics)} topic(s), RF={RF}")
        tails = leadership_tails(runner)
        created_ns = time.time_ns()
        started = time.monotonic()
        admin = AdminClient({"bootstrap.servers": manifest["bootstrap_servers"]})
        futures = admin.create_topics([NewTopic(t, n, RF) for t, n in topics.items()], operation_timeout=1800,
                                      request_timeout=1860)
        for future in futures.values():
            future.result(1900)
        del admin, futures  # closes the client: it would log every broker we kill
        wait_for_led(tails, everything, created_ns, 3600)
        run = KraftRun(partitions, runner.run.path, time.monotonic() - started)
        zk.wait_until(lambda: all(len(metadata_leaders(port, list(topics))) == partitions for port in ports.values()),
                      600, "every broker's metadata lists every partition", 0.5)
        save_kraft_run(run)
        progress.advance(task)
        target = committed_offset(controller_tails_for_offsets, -1)

        for round_no in range(1, rounds + 1):
            time.sleep(1.0)  # let the queues go quiet before the kill
            victim = runner.wait_for_quorum(120)
            target = committed_offset(controller_tails_for_offsets, target)
            progress.update(task, description=f"{describe} round {round_no}/{rounds}: kill -9 controller {victim} "
                                              "(the Raft leader)")
            for tail in controller_tails.values():
                tail.skip_to_end()
            kill = KraftKill(round_no, "controller", victim, time.time_ns(), os.getloadavg()[0])
            runner.kill(victim)
            deadline = time.monotonic() + 300
            activated = False
            while not activated:  # until a new active controller, asking the brokers in turn who leads meanwhile
                asked = time.monotonic()
                leaders = metadata_leaders(ports[BROKER_IDS[kill.metadata_polls % BROKERS]], list(topics))
                took = time.monotonic() - asked
                kill.metadata_polls += 1
                kill.leaderless_max = max(kill.leaderless_max, partitions - len(leaders),
                                          sum(1 for leader, _, _ in leaders.values() if leader not in BROKER_IDS))
                for c, tail in controller_tails.items():
                    if c != victim and any(s.name == ACTIVATION and s.start_ns > kill.kill_ns
                                           for s in tail.new_spans(ACTIVATION.encode())):
                        activated = True
                if time.monotonic() > deadline:
                    raise TimeoutError(f"round {round_no}: no controller activated within 300 s of the kill")
                # A Metadata answer for thousands of partitions costs a broker real time: keep to ~1/10 of one.
                time.sleep(max(0.5, 10 * took))
            new_leader = runner.wait_for_quorum(120)
            progress.update(task, description=f"{describe} round {round_no}/{rounds}: controller {new_leader} "
                                              f"active; restarting controller {victim}")
            time.sleep(1.0)
            kill.target_offset = committed_offset(controller_tails_for_offsets, target)
            restart_tail = zk.SpanTail(runner.span_file(victim))
            kill.restart_ns = time.time_ns()
            runner.start(victim)
            wait_for_replay(restart_tail, kill.target_offset, kill.restart_ns, 600)
            runner.wait_for_quorum(120)
            run.kills.append(kill)
            save_kraft_run(run)
            progress.advance(task)

        for round_no in range(1, broker_rounds + 1):
            time.sleep(1.0)
            leaders = metadata_leaders(ports[BROKER_IDS[0]], list(topics))
            zk.wait_until(lambda: all(sorted(isr) == sorted(replicas) for _, isr, replicas in
                                      metadata_leaders(ports[BROKER_IDS[0]], list(topics)).values()),
                          900, "every ISR full before the broker kill", 0.5)
            led_by = {b: sorted(tp for tp, (leader, _, _) in leaders.items() if leader == b) for b in BROKER_IDS}
            victim = max(BROKER_IDS, key=lambda b: len(led_by[b]))
            progress.update(task, description=f"{describe} broker round {round_no}/{broker_rounds}: kill -9 broker "
                                              f"{victim} (leads {len(led_by[victim])})")
            tails = leadership_tails(runner)
            kill = KraftKill(round_no, "broker", victim, time.time_ns(), os.getloadavg()[0], moved=led_by[victim])
            runner.kill(victim)
            survivors = {b: t for b, t in tails.items() if b != victim}
            wait_for_led(survivors, set(kill.moved), kill.kill_ns, 900)
            alive_port = ports[next(iter(survivors))]
            now = metadata_leaders(alive_port, list(topics))
            kill.leaderless_max = sum(1 for tp in kill.moved if now[tp][0] not in survivors)
            run.kills.append(kill)
            save_kraft_run(run)
            progress.advance(task)
            if round_no < broker_rounds:
                progress.update(task, description=f"{describe} broker round {round_no}/{broker_rounds}: restarting "
                                                  f"broker {victim}")
                kill.restart_ns = time.time_ns()
                runner.start(victim)
                runner.wait_for_state(victim, "RUNNING", 900)
                save_kraft_run(run)
    finally:
        progress.update(task, description=f"{describe} stopping the cluster")
        runner.down()
    return run


def wait_for_replay(tail: zk.SpanTail, target: int, since_ns: int, timeout_s: float) -> None:
    """Until a restarted controller's QuorumController has replayed the log up to `target`."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for s in tail.new_spans(QC_COMMIT.encode()):
            if s.name == QC_COMMIT and s.start_ns >= since_ns and \
                    int(s.attributes.get("kafka.raft.offset.last", -1)) >= target:
                return
        time.sleep(0.25)
    raise TimeoutError(f"the restarted controller did not replay up to offset {target} within {timeout_s:.0f} s")


# -- KRaft: reading a failover back from the spans --------------------------------------------------------------------

@dataclass
class RoleChange:
    time_ns: int
    instance: str
    from_role: str
    to_role: str
    epoch: int


def role_changes(spans: Spans) -> list[RoleChange]:
    """Every `raft.role.change` event, in time order."""
    changes = [RoleChange(e.time_ns, s.instance, str(e.attributes.get("kafka.raft.role.from")),
                          str(e.attributes.get("kafka.raft.role.to")), int(e.attributes.get("kafka.raft.epoch", -1)))
               for s in spans for e in s.events if e.name == ROLE_CHANGE]
    return sorted(changes, key=lambda c: c.time_ns)


@dataclass
class ColdLoad:
    """A controller started again after its kill, loading the metadata from its own log (and the leader)."""
    target_offset: int  # the last offset committed with a span before the restart
    main_ms: float | None  # restart -> Kafka.main starts (the interpreter and the imports)
    log_open_ms: float | None  # restart -> KafkaRaftClient.initialize ends (the metadata log and quorum-state read)
    follower_ms: float | None  # restart -> it follows the leader
    loaded_ms: float | None  # restart -> its QuorumController has replayed up to target_offset
    main_to_loaded_ms: float | None  # Kafka.main starts -> replayed: the load without the interpreter's start
    replay_ms: float  # of which replaying the records (the KR.replay spans)
    records: int  # records in the batches replayed up to the target that are not NoOps only (those have no span)


@dataclass
class KraftControllerFailover:
    partitions: int
    round_no: int
    killed: str
    new_controller: str
    epoch: int
    candidacies: int  # transitions to Candidate between the kill and the leader
    detection_ms: float  # kill -> the first candidacy (a follower's fetch timeout)
    elected_ms: float  # kill -> the winner is Leader
    claim_ms: float  # kill -> QuorumController.claim (after its LeaderChange record is committed)
    working_ms: float  # kill -> completeActivation ends: the new controller writes
    activation_ms: float  # claim -> completeActivation ends: the standby's "loading"
    leaders_moved: int  # partitions made leader by another broker between the kill and the restart (expected: 0)
    leaders_reapplied: int  # partitions their own leader applied again meanwhile (an ISR change, not a move)
    leaderless_max: int  # as a broker's Metadata showed while the failover ran (-1: not asked)
    load: float
    cold: ColdLoad | None

    @property
    def after_detection_ms(self) -> float:
        return self.working_ms - self.detection_ms


@dataclass
class KraftBrokerFailover:
    partitions: int
    round_no: int
    killed: str
    moved: int
    detection_ms: float  # kill -> the controller fences the broker (broker.session.timeout.ms without a heartbeat)
    fence_ms: float  # the fence event: the broker fenced, its leaderships moved (records generated)
    commit_ms: float | None  # the fence's end -> the active controller sees its records committed (Raft replication)
    publish_ms: float  # from there (or the fence's end) -> the first surviving broker applies a metadata delta
    leaders_ms: float  # from there to the end of the last makeLeaders of a moved partition
    led_again_ms: float  # kill -> every partition the broker led has a live leader again
    load: float


def leader_changes(spans: Spans, since_ns: int, until_ns: int) -> tuple[set[str], set[str]]:
    """The partitions a broker was made leader of between `since_ns` and `until_ns`: those whose leader moved to
    another broker, and those their own leader applied again (3.9's applyDelta runs makeLeaders for every change to
    a partition the broker leads, an ISR change included)."""
    leader: dict[str, str] = {}
    moved: set[str] = set()
    reapplied: set[str] = set()
    for s in sorted(spans.where(name=MAKE_LEADERS), key=lambda s: s.start_ns):
        if not s.instance.startswith("broker-") or s.start_ns >= until_ns:
            continue
        for tp in s.attributes.get("kafka.partitions") or []:
            if s.start_ns > since_ns:
                (reapplied if leader.get(tp) in (None, s.instance) else moved).add(tp)
            leader[tp] = s.instance
    return moved, reapplied - moved


def analyse_kraft_controller_kill(spans: Spans, partitions: int, kill: KraftKill, until_ns: int,
                                  changes: list[RoleChange] | None = None) -> KraftControllerFailover:
    """One controller kill, from the spans between the kill and `until_ns` (the next round's kill)."""
    changes = role_changes(spans) if changes is None else changes
    killed = f"controller-{kill.node}"
    after = [c for c in changes if kill.kill_ns < c.time_ns < until_ns and c.instance != killed]
    win = next((c for c in after if c.to_role == "Leader"), None)
    if win is None:
        raise LookupError(f"round {kill.round_no}: no Raft leader after the kill of {killed}")
    candidacies = [c for c in after if c.to_role == "Candidate" and c.time_ns <= win.time_ns]
    first_sign = candidacies[0].time_ns if candidacies else win.time_ns
    claim = next((s for s in spans.where(name=CLAIM, instance=win.instance)
                  if s.start_ns >= win.time_ns and int(s.attributes.get("kafka.raft.epoch", -1)) == win.epoch), None)
    if claim is None:
        raise LookupError(f"round {kill.round_no}: {win.instance} never claimed epoch {win.epoch}")
    activation = next((s for s in spans.where(name=ACTIVATION, instance=win.instance) if s.start_ns >= claim.start_ns),
                      None)
    if activation is None:
        raise LookupError(f"round {kill.round_no}: {win.instance} claimed epoch {win.epoch} but never activated")
    window_end = kill.restart_ns or until_ns
    moved, reapplied = leader_changes(spans, kill.kill_ns, window_end)
    cold = None
    if kill.restart_ns is not None:
        cold = analyse_cold_load(spans, killed, kill.restart_ns, until_ns, changes, kill.target_offset)
    return KraftControllerFailover(
        partitions=partitions, round_no=kill.round_no, killed=killed, new_controller=win.instance, epoch=win.epoch,
        candidacies=len(candidacies), detection_ms=ms(first_sign, kill.kill_ns),
        elected_ms=ms(win.time_ns, kill.kill_ns),
        claim_ms=ms(claim.start_ns, kill.kill_ns), working_ms=ms(activation.end_ns, kill.kill_ns),
        activation_ms=ms(activation.end_ns, claim.start_ns), leaders_moved=len(moved),
        leaders_reapplied=len(reapplied),
        leaderless_max=kill.leaderless_max, load=kill.load, cold=cold)


def analyse_cold_load(spans: Spans, instance: str, restart_ns: int, until_ns: int, changes: list[RoleChange],
                      target: int | None = None) -> ColdLoad:
    """A controller's start after its kill: how long until its QuorumController holds what was committed before.

    `target` defaults to the highest offset any controller's QuorumController handleCommit span reached before the
    restart (commits of NoOps only have no span)."""
    if target is None:
        target = max((int(s.attributes.get("kafka.raft.offset.last", -1)) for s in spans.where(name=QC_COMMIT)
                      if s.end_ns < restart_ns), default=-1)
    mine = Spans(s for s in spans if s.instance == instance and restart_ns <= s.start_ns < until_ns)
    main = next((s.start_ns for s in mine.where(name="Kafka.main")), None)
    opened = next((s.end_ns for s in mine.where(name="KafkaRaftClient.initialize")), None)
    follower = next((c.time_ns for c in changes if c.instance == instance and c.to_role == "Follower"
                     and restart_ns <= c.time_ns < until_ns), None)
    loaded = next((s for s in mine.where(name=QC_COMMIT)
                   if int(s.attributes.get("kafka.raft.offset.last", -1)) >= target), None)
    replays = [s for s in mine.where(step="KR.replay") if loaded is None or s.start_ns <= loaded.end_ns]
    return ColdLoad(
        target_offset=target, main_ms=ms(main, restart_ns), log_open_ms=ms(opened, restart_ns),
        follower_ms=ms(follower, restart_ns), loaded_ms=ms(loaded.end_ns if loaded else None, restart_ns),
        main_to_loaded_ms=ms(loaded.end_ns if loaded else None, main),
        replay_ms=sum(s.duration_ms for s in replays),
        records=sum(int(s.attributes.get("kafka.raft.offset.last", 0))
                    - int(s.attributes.get("kafka.raft.offset.first", 0)) + 1 for s in replays))


def analyse_kraft_broker_kill(spans: Spans, partitions: int, kill: KraftKill, until_ns: int) -> KraftBrokerFailover:
    """One broker kill: the fence on the active controller, then the moved partitions' new leaders taking over."""
    killed = f"broker-{kill.node}"
    fence = next((s for s in spans.where(step="KR.fence") if s.start_ns > kill.kill_ns and s.start_ns < until_ns
                  and s.attributes.get("kafka.broker.id") == kill.node), None)
    if fence is None:
        raise LookupError(f"broker round {kill.round_no}: {killed} was never fenced")
    write = next((s for s in spans.where(name=WRITE_EVENT, instance=fence.instance) if s.span_id == fence.parent_id
                  and s.trace_id == fence.trace_id), None)
    written = int(write.attributes.get("kafka.raft.offset.last", -1)) if write is not None else None
    commit = None if written is None else next(
        (s for s in spans.where(name=QC_COMMIT, instance=fence.instance) if s.start_ns >= fence.end_ns
         and int(s.attributes.get("kafka.raft.offset.last", -1)) >= written), None)
    committed_ns = commit.end_ns if commit is not None else None
    # the first surviving broker to apply the fence's records (an earlier delta may be an unrelated ISR change)
    applied = next((s for s in spans.where(name=APPLY_DELTA) if fence.end_ns <= s.start_ns < until_ns
                    and s.instance != killed
                    and int(s.attributes.get("kafka.metadata.image.offset", -1)) >= (written or -1)), None)
    led_end, covered = 0, set()
    moved = set(kill.moved)
    for s in spans.where(name=MAKE_LEADERS):
        if s.start_ns <= kill.kill_ns or s.start_ns >= until_ns or s.instance == killed:
            continue
        ours = (moved - covered) & set(s.attributes.get("kafka.partitions") or [])
        if ours:
            covered |= ours
            led_end = max(led_end, s.end_ns)
    if covered != moved:
        raise LookupError(f"broker round {kill.round_no}: {len(moved - covered)} moved partitions never made leader")
    start_of_leaders = applied.start_ns if applied is not None else fence.end_ns
    return KraftBrokerFailover(
        partitions=partitions, round_no=kill.round_no, killed=killed, moved=len(moved),
        detection_ms=ms(fence.start_ns, kill.kill_ns), fence_ms=fence.duration_ms,
        commit_ms=ms(committed_ns, fence.end_ns), publish_ms=ms(start_of_leaders, committed_ns or fence.end_ns),
        leaders_ms=ms(led_end or start_of_leaders, start_of_leaders),
        led_again_ms=ms(led_end or start_of_leaders, kill.kill_ns), load=kill.load)


@dataclass
class KraftCreation:
    create_s: float
    brokers_apply_ms: dict[str, float]  # per broker: the applyDelta that made it lead and follow the new partitions


def analyse_kraft_creation(spans: Spans, run: KraftRun) -> KraftCreation:
    first_kill = run.kills[0].kill_ns if run.kills else 2**63
    applied: dict[str, float] = {}
    for s in spans.where(name=APPLY_DELTA):
        if s.end_ns < first_kill and int(s.attributes.get("kafka.partitions.changed.count", 0)) > 0:
            applied[s.instance] = applied.get(s.instance, 0.0) + s.duration_ms
    return KraftCreation(run.create_s, applied)


# -- ZooKeeper mode: the figures of controller_failover's analysis ----------------------------------------------------

def zk_figures(f: zk.Failover) -> dict[str, Any]:
    steps = f.failover_steps_ms
    return {"partitions": f.partitions, "round_no": f.round_no, "killed": f"broker-{f.killed}",
            "new_controller": f"broker-{f.new_controller}", "moved": f.moved, "detection_ms": f.detection_ms,
            "working_ms": f.failover_done_ms, "led_again_ms": f.total_ms,
            "after_detection_ms": f.failover_done_ms - f.detection_ms,
            "context_ms": steps.get("CT.failover.05"), "failover_ms": sum(steps.values()),
            "election_failover_ms": f.election_failover_ms, "leader_moves_ms": f.leader_moves_ms, "load": f.load,
            "failover_steps_ms": steps}


def kraft_controller_figures(f: KraftControllerFailover) -> dict[str, Any]:
    out = asdict(f)
    out["after_detection_ms"] = f.after_detection_ms
    return out


# -- the report ---------------------------------------------------------------------------------------------------

def median(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def spread(values: Iterable[float | None]) -> tuple[float, float] | None:
    present = [v for v in values if v is not None]
    return (min(present), max(present)) if present else None


def fmt(value: float | None, digits: int = 0) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def summarise(results: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """Per partition count, the medians (and min..max) of every figure the chart and the table show."""
    rows: dict[int, dict[str, Any]] = {}
    for count in results["partitions"]:
        key = str(count)
        z = results["zk"].get(key, {}).get("rounds", [])
        kc = results["kraft"].get(key, {}).get("controller_rounds", [])
        kb = results["kraft"].get(key, {}).get("broker_rounds", [])

        def both(rounds: list[dict[str, Any]], name: str) -> tuple[float | None, tuple[float, float] | None]:
            values = [r.get(name) for r in rounds]
            return median(values), spread(values)

        cold = [r["cold"] for r in kc if r.get("cold")]
        rows[count] = {
            "zk_rounds": len(z), "kraft_rounds": len(kc), "kraft_broker_rounds": len(kb),
            "zk_detection": both(z, "detection_ms"), "zk_working": both(z, "working_ms"),
            "zk_after_detection": both(z, "after_detection_ms"), "zk_led_again": both(z, "led_again_ms"),
            "zk_context": both(z, "context_ms"), "zk_failover": both(z, "failover_ms"),
            "zk_moved": median([r["moved"] for r in z]),
            "kraft_detection": both(kc, "detection_ms"), "kraft_working": both(kc, "working_ms"),
            "kraft_after_detection": both(kc, "after_detection_ms"), "kraft_activation": both(kc, "activation_ms"),
            "kraft_leaders_moved": max((r["leaders_moved"] for r in kc), default=None),
            "kraft_leaderless_max": max((r["leaderless_max"] for r in kc), default=None),
            "kraft_cold_loaded": both(cold, "loaded_ms"), "kraft_cold_replay": both(cold, "replay_ms"),
            "kraft_cold_main_to_loaded": both(cold, "main_to_loaded_ms"), "kraft_cold_main": both(cold, "main_ms"),
            "kraft_cold_records": median([c["records"] for c in cold]),
            "kraft_broker_led_again": both(kb, "led_again_ms"), "kraft_broker_detection": both(kb, "detection_ms"),
            "kraft_broker_moved": median([r["moved"] for r in kb]),
            "zk_create_s": results["zk"].get(key, {}).get("create_s"),
            "kraft_create_s": results["kraft"].get(key, {}).get("create_s"),
        }
    return rows


def print_report(results: dict[str, Any]) -> None:
    rows = summarise(results)
    head = Table(title="kill -9 of the active controller: ms from the kill (medians)", title_justify="left")
    for column in ("partitions", "ZK rounds", "ZK working controller", "ZK after detection", "ZK all led again",
                   "KRaft rounds", "KRaft working controller", "KRaft after detection",
                   "KRaft partitions leaderless", "KRaft broker kill: all led again"):
        head.add_column(column, justify="right")
    for count, r in rows.items():
        head.add_row(f"{count:,}", str(r["zk_rounds"]), fmt(r["zk_working"][0]), fmt(r["zk_after_detection"][0]),
                     fmt(r["zk_led_again"][0]), str(r["kraft_rounds"]), fmt(r["kraft_working"][0]),
                     fmt(r["kraft_after_detection"][0]),
                     "–" if r["kraft_leaderless_max"] is None else str(max(r["kraft_leaderless_max"],
                                                                           r["kraft_leaders_moved"] or 0)),
                     fmt(r["kraft_broker_led_again"][0]))
    console.print(head)

    load = Table(title="loading the metadata: ms (medians)", title_justify="left")
    for column in ("partitions", "ZK initializeControllerContext", "ZK onControllerFailover",
                   "KRaft claim → completeActivation", "KRaft cold start → Kafka.main", "Kafka.main → log replayed",
                   "of which replay", "records replayed", "ZK create (s)", "KRaft create (s)"):
        load.add_column(column, justify="right")
    for count, r in rows.items():
        load.add_row(f"{count:,}", fmt(r["zk_context"][0], 1), fmt(r["zk_failover"][0], 1),
                     fmt(r["kraft_activation"][0], 2), fmt(r["kraft_cold_main"][0]),
                     fmt(r["kraft_cold_main_to_loaded"][0]), fmt(r["kraft_cold_replay"][0], 1),
                     fmt(r["kraft_cold_records"]), fmt(r["zk_create_s"], 1), fmt(r["kraft_create_s"], 1))
    console.print(load)

    each = Table(title="each KRaft controller round (ms from the kill; cold restart: ms from the start)",
                 title_justify="left")
    for column in ("partitions", "round", "killed", "new", "candidacies", "candidate", "leader", "claim",
                   "activated", "leaders moved", "(re-applied)", "leaderless seen", "restart → main", "→ log open",
                   "→ follower", "→ replayed", "load"):
        each.add_column(column, justify="right")
    for count in results["partitions"]:
        for f in results["kraft"].get(str(count), {}).get("controller_rounds", []):
            c = f.get("cold") or {}
            each.add_row(f"{count:,}", str(f["round_no"]), f["killed"], f["new_controller"], str(f["candidacies"]),
                         fmt(f["detection_ms"]), fmt(f["elected_ms"]), fmt(f["claim_ms"]), fmt(f["working_ms"]),
                         str(f["leaders_moved"]), str(f["leaders_reapplied"]), str(f["leaderless_max"]),
                         fmt(c.get("main_ms")), fmt(c.get("log_open_ms")), fmt(c.get("follower_ms")),
                         fmt(c.get("loaded_ms")), f"{f['load']:.1f}")
    console.print(each)

    zk_each = Table(title="each ZooKeeper-mode round (ms from the kill)", title_justify="left")
    for column in ("partitions", "round", "killed", "new", "moved", "detection", "failover done",
                   "initializeControllerContext", "all led again", "load"):
        zk_each.add_column(column, justify="right")
    for count in results["partitions"]:
        for f in results["zk"].get(str(count), {}).get("rounds", []):
            zk_each.add_row(f"{count:,}", str(f["round_no"]), f["killed"], f["new_controller"], str(f["moved"]),
                            fmt(f["detection_ms"]), fmt(f["working_ms"]), fmt(f["context_ms"], 1),
                            fmt(f["led_again_ms"]), f"{f['load']:.1f}")
    console.print(zk_each)

    broker = Table(title="each KRaft broker round (ms from the kill)", title_justify="left")
    for column in ("partitions", "round", "killed", "moved", "fenced", "fence event", "committed", "applied",
                   "leaders", "all led again", "load"):
        broker.add_column(column, justify="right")
    for count in results["partitions"]:
        for f in results["kraft"].get(str(count), {}).get("broker_rounds", []):
            broker.add_row(f"{count:,}", str(f["round_no"]), f["killed"], str(f["moved"]), fmt(f["detection_ms"]),
                           fmt(f["fence_ms"], 1), fmt(f.get("commit_ms")), fmt(f["publish_ms"]), fmt(f["leaders_ms"]),
                           fmt(f["led_again_ms"]), f"{f['load']:.1f}")
    console.print(broker)
    for line in results.get("notes", []):
        console.print(line, highlight=False)
    console.print(f"command: {results['command']}", highlight=False)


# -- the chart ----------------------------------------------------------------------------------------------------

# The timeouts that detect a dead node, each version's default: the chart draws them, detection is most of a failover.
DEFAULT_TIMEOUTS_MS = {"zookeeper.session.timeout.ms": 6000, "controller.quorum.fetch.timeout.ms": 2000,
                       "broker.session.timeout.ms": 9000}


def timeouts(zk_overrides: list[str], kraft_overrides: list[str]) -> dict[str, int]:
    found = dict(DEFAULT_TIMEOUTS_MS)
    for override in zk_overrides + kraft_overrides:
        key, _, value = override.partition("=")
        if key.strip() in found:
            found[key.strip()] = int(value)
    return found


def draw_chart(results: dict[str, Any], stem: Path) -> list[Path]:
    """Two panels over the partition count (log scale): the failover after a kill -9, and loading the metadata."""
    from kafka_edu.mining import charts  # matplotlib, headless; only when a chart is drawn

    rows = summarise(results)
    counts = sorted(rows)
    fig, (failover, loading) = charts.plt.subplots(1, 2, figsize=(11, 6.2), layout="constrained")

    def line(ax: Any, key: str, label: str, color: str, marker: str, style: str = "-", scale: float = 1.0,
             hollow: bool = False) -> None:
        """Medians with min..max bars, in ms / `scale`."""
        points = [(c, *rows[c][key]) for c in counts if rows[c][key][0] is not None]
        if not points:
            return
        ys = [m / scale for _, m, _ in points]
        low = [y - lo / scale for y, (_, _, (lo, _)) in zip(ys, points, strict=True)]
        high = [hi / scale - y for y, (_, _, (_, hi)) in zip(ys, points, strict=True)]
        ax.errorbar([c for c, _, _ in points], ys, yerr=[low, high], label=label, color=color, marker=marker,
                    linestyle=style, capsize=3, markersize=9 if hollow else 6,
                    markerfacecolor="none" if hollow else color, zorder=3 if hollow else 2)

    p = charts.PALETTE
    line(failover, "zk_working", "ZooKeeper: controller working (onControllerFailover ends)", p[1], "o", scale=1000)
    line(failover, "zk_led_again", "ZooKeeper: every partition led again", p[2], "D", ":", scale=1000, hollow=True)
    line(failover, "kraft_broker_led_again", "KRaft, broker kill: every partition led again", p[4], "D", "--",
         scale=1000)
    line(failover, "kraft_working", "KRaft: controller working (completeActivation ends)", p[0], "o", scale=1000)
    for (name, value), color in zip((results.get("timeouts_ms") or DEFAULT_TIMEOUTS_MS).items(),
                                    (p[1], p[0], p[4]), strict=True):
        failover.axhline(value / 1000, color=color, linewidth=0.8, linestyle=(0, (1, 3)), zorder=1)
        failover.annotate(f"{name} = {value / 1000:g} s", (0.0, value / 1000), xycoords=("axes fraction", "data"),
                          xytext=(4, 2), textcoords="offset points", ha="left", fontsize=6.5, color=color)
    failover.set_xscale("log")
    failover.set_xlabel("partitions (RF 3)")
    failover.set_ylabel("seconds after the kill -9 (median; bars: min–max)")
    failover.set_title("Failover after kill -9")
    failover.set_ylim(bottom=0)
    failover.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=1)
    failover.grid(True, which="major", alpha=0.3)

    line(loading, "zk_failover", "ZooKeeper: onControllerFailover (all steps)", p[1], "o")
    line(loading, "zk_context", "ZooKeeper: initializeControllerContext (reads ZooKeeper)", p[2], "s")
    line(loading, "kraft_cold_main_to_loaded", "KRaft: controller cold start (Kafka.main) → log replayed", p[4],
         "^", "--")
    line(loading, "kraft_cold_replay", "KRaft: of which replaying the records", p[3], "v", ":")
    line(loading, "kraft_activation", "KRaft: standby claim → completeActivation", p[0], "o")
    loading.set_xscale("log")
    loading.set_yscale("log")
    loading.set_xlabel("partitions (RF 3)")
    loading.set_ylabel("milliseconds (median; bars: min–max)")
    loading.set_title("A new controller getting the metadata")
    loading.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=1)
    loading.grid(True, which="major", alpha=0.3)
    for ax in (failover, loading):
        ax.set_xticks(counts, [f"{c:,}" for c in counts])
        ax.xaxis.set_minor_locator(charts.plt.NullLocator())
    fig.suptitle("KIP-500 on one 2-core machine: ZooKeeper mode (Kafka 1.0.2 port) vs KRaft (Kafka 3.9 port)")
    return charts.save(fig, stem)


# -- running it ---------------------------------------------------------------------------------------------------

def analyse(zk_runs: list[zk.ClusterRun], kraft_runs: list[KraftRun], counts: list[int],
            command: str) -> dict[str, Any]:
    results: dict[str, Any] = {"command": command, "partitions": counts, "zk": {}, "kraft": {}, "notes": []}
    for run in zk_runs:
        with console.status(f"reading the spans of the ZooKeeper-mode {run.partitions}-partition run"):
            spans = read_spans(run.run_dir, ZK_NEEDLES)
            ends = [k.kill_ns for k in run.kills[1:]] + [2**63]
            failovers = [zk.analyse_kill(spans, run.partitions, k, end) for k, end in zip(run.kills, ends, strict=True)]
            creation = zk.analyse_creation(spans, run)
        results["zk"][str(run.partitions)] = {
            "run_dir": str(run.run_dir), "create_s": run.create_s, "rounds": [zk_figures(f) for f in failovers],
            "topic_change_ms": creation.topic_change_ms}
    for run in kraft_runs:
        with console.status(f"reading the spans of the KRaft {run.partitions}-partition run"):
            spans = read_spans(run.run_dir, KRAFT_NEEDLES)
            changes = role_changes(spans)
            ends = [k.kill_ns for k in run.kills[1:]] + [2**63]
            controller_rounds, broker_rounds = [], []
            for kill, end in zip(run.kills, ends, strict=True):
                if kill.kind == "controller":
                    controller_rounds.append(kraft_controller_figures(
                        analyse_kraft_controller_kill(spans, run.partitions, kill, end, changes)))
                else:
                    broker_rounds.append(asdict(analyse_kraft_broker_kill(spans, run.partitions, kill, end)))
            creation = analyse_kraft_creation(spans, run)
        results["kraft"][str(run.partitions)] = {
            "run_dir": str(run.run_dir), "create_s": run.create_s, "controller_rounds": controller_rounds,
            "broker_rounds": broker_rounds, "brokers_apply_ms": creation.brokers_apply_ms}
    return results


def machine() -> dict[str, Any]:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=Path(__file__).resolve().parents[1]).stdout.strip()
    return {"commit": commit, "cpus": os.cpu_count(), "python": sys.version.split()[0],
            "uptime": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The KIP-500 experiment: controller failover and metadata loading, "
                                                 "ZooKeeper mode against KRaft, from kafka-edu's traces.")
    parser.add_argument("--partitions", default="10,100,1000,5000",
                        help="comma-separated partition counts (default 10,100,1000,5000: see docs/kip-500.md for why "
                             "not 10,000 on this machine)")
    parser.add_argument("--modes", default="zk,kraft", help="zk, kraft or both (default)")
    parser.add_argument("--rounds", type=int, default=3, help="controller kills per mode and partition count")
    parser.add_argument("--broker-rounds", type=int, default=1,
                        help="KRaft broker kills per partition count, after the controller rounds (default 1)")
    parser.add_argument("--override", action="append", default=[], metavar="K=V",
                        help="a setting for every node of both modes")
    parser.add_argument("--traces", default="traces", help="where the run directories go (default traces/)")
    parser.add_argument("--tmp", action="store_true", help="write the runs into a temporary directory, then delete it")
    parser.add_argument("--json", type=Path, default=Path("kip500.json"), help="the figures (default kip500.json)")
    parser.add_argument("--chart", type=Path, default=None, help="draw the chart to this PNG (and an SVG beside it)")
    parser.add_argument("--report", nargs="+", type=Path, metavar="RUN_DIR",
                        help="only read back run directories this script wrote earlier, and print the report")
    parser.add_argument("--chart-only", type=Path, metavar="JSON", help="only redraw the chart from a figures file")
    options = parser.parse_args(argv)
    command = "python benchmarks/kip500.py " + " ".join(argv if argv is not None else sys.argv[1:])

    if options.chart_only:
        results = json.loads(options.chart_only.read_text())
        results["partitions"] = [int(c) for c in results["partitions"]]
        print_report(results)
        for path in draw_chart(results, (options.chart or options.chart_only).with_suffix("")):
            console.print(f"chart: {path}")
        return 0

    counts = [int(p) for p in options.partitions.split(",") if p.strip()]
    modes = [m.strip() for m in options.modes.split(",") if m.strip()]
    if options.rounds < 1 or not counts or min(counts) < 1 or not set(modes) <= {"zk", "kraft"}:
        parser.error("--rounds and every partition count must be at least 1; --modes takes zk and kraft")
    zk_overrides = list(zk.DEFAULT_OVERRIDES) + options.override
    session_timeout_ms = next((int(o.partition("=")[2]) for o in reversed(zk_overrides)
                               if o.partition("=")[0].strip() == "zookeeper.session.timeout.ms"), 6000)

    def finish(zk_runs: list[zk.ClusterRun], kraft_runs: list[KraftRun], before: dict[str, Any]) -> None:
        found = sorted({r.partitions for r in zk_runs} | {r.partitions for r in kraft_runs})
        results = analyse(zk_runs, kraft_runs, found, command)
        results["machine"] = before | {"uptime_after": machine()["uptime"]}
        results["settings"] = {"zk_overrides": zk_overrides, "kraft_overrides": options.override}
        results["timeouts_ms"] = timeouts(zk_overrides, options.override)
        options.json.write_text(json.dumps(results, indent=1) + "\n")
        print_report(results)
        console.print(f"figures: {options.json}", highlight=False)
        if options.chart:
            for path in draw_chart(results, options.chart.with_suffix("")):
                console.print(f"chart: {path}", highlight=False)

    if options.report:
        zk_runs = [zk.load_saved_run(d) for d in options.report if (d / zk.RECORD).exists()]
        kraft_runs = [load_kraft_run(d) for d in options.report if (d / RECORD).exists()]
        finish(zk_runs, kraft_runs, machine())
        return 0

    # A SIGTERM (timeout, kill) stops the clusters like Ctrl-C does, through the runners' `finally`.
    # Request-path spans (a broker's LeaderAndIsr handling among them) stay within a budget a process, oldest segments
    # deleted first: large partition counts' fetches would push out the spans the analysis reads at the end.
    os.environ.setdefault("KAFKA_EDU_TRACE_BUDGET_MB", "4096")
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))

    def measure(traces_dir: Path) -> None:
        before = machine()
        console.print(f"machine: {before['uptime']}", highlight=False)
        zk_runs: list[zk.ClusterRun] = []
        kraft_runs: list[KraftRun] = []
        steps = len(counts) * (("zk" in modes) * (options.rounds + 1)
                               + ("kraft" in modes) * (1 + options.rounds + options.broker_rounds))
        with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=console) as progress:
            task = progress.add_task("starting", total=steps)
            for partitions in counts:
                if "zk" in modes:
                    started = time.monotonic()
                    zk_runs.append(zk.run_partition_count(partitions, options.rounds, traces_dir, zk_overrides,
                                                          session_timeout_ms, progress, task))
                    console.print(f"ZooKeeper mode, {partitions:,} partitions: created in "
                                  f"{zk_runs[-1].create_s:.1f} s, {time.monotonic() - started:.0f} s in all; "
                                  f"load {os.getloadavg()[0]:.1f}",
                                  highlight=False)
                if "kraft" in modes:
                    started = time.monotonic()
                    kraft_runs.append(run_kraft(partitions, options.rounds, options.broker_rounds, traces_dir,
                                                options.override, progress, task))
                    console.print(f"KRaft, {partitions:,} partitions: created in {kraft_runs[-1].create_s:.1f} s, "
                                  f"{time.monotonic() - started:.0f} s in all; load {os.getloadavg()[0]:.1f}",
                                  highlight=False)
        finish(zk_runs, kraft_runs, before)

    if options.tmp:
        with tempfile.TemporaryDirectory(prefix="kafka-edu-kip500-") as tmp:
            measure(Path(tmp))
    else:
        measure(Path(options.traces))
    return 0


if __name__ == "__main__":
    sys.exit(main())
