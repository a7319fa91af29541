"""Our own code, not a Kafka port: one nemesis run, start to verdict.

A cluster (the run named, or one started here with the settings' broker overrides), a replicated topic, the workload
(workload.py) under the seeded fault schedule (schedule.py), then every fault undone and the cluster whole again,
the read-back, and the verdict (checker.py) with the brokers' trace ids around each anomaly (traces.py). The run's
files go to `<run dir>/nemesis-<time>/`: `history.jsonl`, `verdict.json`, `timeline.png`; the verdict is also the
`Nemesis.check` span (FIDELITY NF.check) in the run's `runner.jsonl`.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from confluent_kafka.admin import AdminClient, NewTopic

from kafka_edu.cluster_runner.run_directory import DEFAULT_TRACES_DIR
from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.nemesis.checker import Verdict, check
from kafka_edu.nemesis.history import HISTORY_FILE, History
from kafka_edu.nemesis.schedule import Fault, make_schedule
from kafka_edu.nemesis.timeline import draw_timeline
from kafka_edu.nemesis.traces import attach_trace_ids
from kafka_edu.nemesis.workload import Workload, WorkloadSettings

RECOVERY_TIMEOUT_S = 90.0
PARTITION_NEEDS = "fault kind 'partition' needs a run started with cluster up --netns (as root)"


@dataclass(frozen=True)
class Preset:
    """What `--settings` stands for: broker overrides, the topic's configs and the producer's defaults."""

    overrides: tuple[str, ...]
    topic_configs: dict[str, str]
    acks: str
    idempotence: bool


# Both presets give a cluster started here three replicas of its internal topics (the shipped configs have one), so
# that a fault on one broker stops neither the consumer group nor the transactions.
_INTERNAL_TOPICS = ("offsets.topic.replication.factor=3", "transaction.state.log.replication.factor=3")
SETTINGS = {
    # nothing acknowledged may be lost: every acknowledged record is on two replicas, and only an in-sync replica
    # may lead
    "safe": Preset((*_INTERNAL_TOPICS, "transaction.state.log.min.isr=2", "min.insync.replicas=2",
                    "unclean.leader.election.enable=false"),
                   {"min.insync.replicas": "2", "unclean.leader.election.enable": "false"}, "all", True),
    # a leader's own log is enough to acknowledge, and an out-of-sync replica may become leader: writes get lost
    "unsafe": Preset((*_INTERNAL_TOPICS, "transaction.state.log.min.isr=1", "min.insync.replicas=1",
                      "unclean.leader.election.enable=true"),
                     {"min.insync.replicas": "1", "unclean.leader.election.enable": "true"}, "1", False),
}


class NemesisError(Exception):
    """A request the nemesis refuses (its message is the one line to print)."""


@dataclass
class NemesisOptions:
    mode: str | None = None  # None: the run's own mode, or "zk" for a new cluster
    duration_s: float = 60.0
    rate: float = 100.0
    acks: str | None = None  # None: the preset's
    idempotence: bool | None = None
    transactions: bool = False
    faults: list[str] = field(default_factory=lambda: ["kill", "pause"])
    seed: int = 1
    settings: str = "safe"
    run_dir: Path | None = None
    traces_dir: Path = DEFAULT_TRACES_DIR
    partitions: int = 3
    interval_s: float = 8.0  # between faults
    fault_s: float = 6.0  # how long a fault lasts
    progress_s: float = 5.0


@dataclass
class NemesisResult:
    verdict: Verdict
    out_dir: Path
    trace_id: str
    workload_errors: list[str]


def producer_settings(options: NemesisOptions) -> tuple[str, bool]:
    """The producer's acks and idempotence: the preset's unless given; contradictions refused."""
    if options.settings not in SETTINGS:
        raise NemesisError(f"unknown --settings {options.settings!r}: choose safe or unsafe")
    preset = SETTINGS[options.settings]
    acks = preset.acks if options.acks is None else options.acks
    if acks not in ("all", "1", "0"):
        raise NemesisError(f"--acks {acks!r}: choose all, 1 or 0")
    idempotence = preset.idempotence if options.idempotence is None else options.idempotence
    if options.acks is not None and options.idempotence is None and acks != "all":
        idempotence = False  # asking for acks=1 on the safe preset means without idempotence (it needs acks=all)
    if options.transactions and options.idempotence is False:
        raise NemesisError("--transactions needs idempotence: drop --no-idempotence")
    if options.transactions:
        idempotence = True
    if idempotence and acks != "all":
        raise NemesisError(f"--acks {acks} with idempotence: an idempotent producer needs --acks all "
                           "(or add --no-idempotence)")
    return acks, idempotence


def check_options(options: NemesisOptions) -> None:
    if options.duration_s <= 0 or options.rate <= 0:
        raise NemesisError("--duration and --rate must be positive")
    if options.mode not in (None, "zk", "kraft"):
        raise NemesisError(f"--mode {options.mode!r}: choose zk or kraft")
    producer_settings(options)


def open_cluster(options: NemesisOptions) -> tuple[ClusterRunner, bool]:
    """The runner of `--run`, or a new cluster with the preset's overrides; True when this run started it."""
    if options.run_dir is not None:
        runner = ClusterRunner.open(options.run_dir)
        mode = runner.run.read_manifest()["mode"]
        if options.mode is not None and options.mode != mode:
            raise NemesisError(f"--mode {options.mode} but run {runner.run.path} is a {mode} cluster")
        if "partition" in options.faults and not _can_partition(runner):
            raise NemesisError(PARTITION_NEEDS)
        return runner, False
    mode = options.mode or "zk"
    extra: dict[str, Any] = {}
    if "partition" in options.faults:  # check_options made sure the runner can
        extra["netns"] = True
    # in KRaft mode the controllers take them too: a controller decides whether an election may be unclean
    overrides = list(SETTINGS[options.settings].overrides)
    return ClusterRunner.up(3, options.traces_dir, overrides=overrides, mode=mode, **extra), True


def _can_partition(runner: ClusterRunner) -> bool:
    """Whether the run's processes live in network namespaces of their own (cluster up --netns)."""
    return bool(runner.run.read_manifest().get("network"))


def broker_ids(runner: ClusterRunner) -> list[int]:
    return [p["id"] for p in runner.run.read_manifest()["processes"] if p["role"] == "broker" or p.get("combined")]


def create_topic(bootstrap: str, topic: str, partitions: int, configs: dict[str, str], timeout_s: float = 60) -> None:
    """The workload's topic, three replicas a partition, once every partition has a leader."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics([NewTopic(topic, partitions, 3, config=configs)], request_timeout=30)
    futures[topic].result(timeout_s)
    wait_for_partitions(admin, topic, timeout_s, full_isr=False)


def wait_for_partitions(admin: AdminClient, topic: str, timeout_s: float, full_isr: bool) -> bool:
    """Until every partition of `topic` has a leader (and, with `full_isr`, all its replicas in sync)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            metadata = admin.list_topics(topic, timeout=5).topics.get(topic)
        except Exception:  # a broker restarting: ask again
            metadata = None
        if metadata is not None and metadata.error is None and metadata.partitions and all(
                p.leader >= 0 and (not full_isr or set(p.isrs) >= set(p.replicas))
                for p in metadata.partitions.values()):
            return True
        time.sleep(0.5)
    return False


class FaultRunner:
    """Plays a schedule against the runner in a thread of its own, recording each fault's start and end."""

    def __init__(self, runner: ClusterRunner, schedule: list[Fault], history: History) -> None:
        self.runner = runner
        self.schedule = schedule
        self.history = history
        self.done: list[Fault] = []
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._play, name="nemesis-faults", daemon=True)
        self._started = 0.0

    def start(self) -> None:
        self._started = time.monotonic()
        self._thread.start()

    def request_stop(self) -> None:
        """No new fault; the one under way is undone at once."""
        self._stop.set()

    def stop(self) -> None:
        """`request_stop`, and wait for the fault under way to be undone."""
        self._stop.set()
        self._thread.join(RECOVERY_TIMEOUT_S + 30)

    def _play(self) -> None:
        for fault in self.schedule:
            if self._stop.wait(max(0.0, self._started + fault.at_s - time.monotonic())):
                return
            try:
                self._inject(fault)
            except Exception as e:  # the run goes on; the report says which fault could not be done
                self.errors.append(f"{fault.describe()}: {type(e).__name__}: {e}")

    def _inject(self, fault: Fault) -> None:
        cut = None
        if fault.kind == "partition":
            cut = self.runner.isolate(str(fault.node))
        else:
            {"kill": self.runner.kill, "pause": self.runner.pause}[fault.kind](fault.node)
        self.history.record("fault", kind=fault.kind, node=fault.node, phase="start")
        self._stop.wait(fault.duration_s)  # cut short when the run stops: a fault never outlives the workload
        if fault.kind == "kill":  # a kill shorter than the session timeout: the restart waits for the old session
            self.runner.start(fault.node, after_old_registration=True)
        elif fault.kind == "pause":
            self.runner.resume(fault.node)
        elif cut is not None:
            self.runner.heal([cut["id"]])
        self.history.record("fault", kind=fault.kind, node=fault.node, phase="end")
        self.done.append(fault)
        if fault.kind == "kill":  # the next fault finds the broker back
            self.runner.wait_for_state(fault.node, "RunningAsBroker", RECOVERY_TIMEOUT_S)


def make_whole(runner: ClusterRunner, bootstrap: str, topic: str) -> bool:
    """Every broker running and in every ISR again; False if the ISRs did not fill up in time (the read-back still
    reads from the leaders)."""
    if _can_partition(runner) and runner.run.read_manifest()["network"].get("cuts"):
        runner.heal()
    for node in broker_ids(runner):
        entry = runner.entry(node)
        if entry.get("state") == "paused":
            runner.resume(node)
        elif runner.broker_state(node) == "NotRunning":
            runner.start(node, after_old_registration=True)
    for node in broker_ids(runner):
        runner.wait_for_state(node, "RunningAsBroker", RECOVERY_TIMEOUT_S)
    runner.wait_for_brokers_to_see_each_other(RECOVERY_TIMEOUT_S)
    return wait_for_partitions(AdminClient({"bootstrap.servers": bootstrap}), topic, RECOVERY_TIMEOUT_S, True)


def run_nemesis(options: NemesisOptions, out: Callable[[str], None] = print) -> NemesisResult:
    check_options(options)
    acks, idempotence = producer_settings(options)
    out(f"nemesis: {'using run ' + str(options.run_dir) if options.run_dir else 'starting a cluster'} "
        f"({options.settings} settings)...")
    runner, started_here = open_cluster(options)
    try:
        return _run(runner, options, acks, idempotence, out)
    finally:
        if started_here:
            out("nemesis: stopping the cluster it started")
            for entry in runner.run.read_manifest()["processes"]:  # a stopped process would not hear SIGTERM
                if entry.get("state") == "paused":
                    runner.resume(entry["id"])
            runner.down()


def _run(runner: ClusterRunner, options: NemesisOptions, acks: str, idempotence: bool,
         out: Callable[[str], None]) -> NemesisResult:
    manifest = runner.run.read_manifest()
    mode, bootstrap = manifest["mode"], manifest["bootstrap_servers"]
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    out_dir = runner.run.path / f"nemesis-{stamp}"
    out_dir.mkdir()
    topic = f"nemesis-{stamp.lower()}"
    preset = SETTINGS[options.settings]
    create_topic(bootstrap, topic, options.partitions, preset.topic_configs)
    schedule = make_schedule(options.seed, options.faults, broker_ids(runner), options.duration_s,
                             interval_s=options.interval_s, fault_s=options.fault_s)
    history = History(out_dir / HISTORY_FILE)
    history.record("meta", topic=topic, partitions=options.partitions, mode=mode, settings=options.settings,
                   acks=acks, idempotence=idempotence, transactions=options.transactions, rate=options.rate,
                   seed=options.seed, duration_s=options.duration_s, faults=options.faults,
                   schedule=[f.describe() for f in schedule], run_dir=str(runner.run.path))
    out(f"nemesis: topic {topic}, {options.partitions} partitions; acks={acks} idempotence={idempotence}"
        f"{' transactions' if options.transactions else ''}; {len(schedule)} faults (seed {options.seed}); "
        f"files in {out_dir}")
    workload = Workload(WorkloadSettings(bootstrap, topic, options.partitions, options.rate, acks, idempotence,
                                         options.transactions, options.seed), history)
    faults = FaultRunner(runner, schedule, history)
    began = time.monotonic()
    workload.start()
    faults.start()
    try:
        while (elapsed := time.monotonic() - began) < options.duration_s:
            time.sleep(min(options.progress_s, options.duration_s - elapsed))
            out(f"  {time.monotonic() - began:6.1f} s  sent {history.count('send')}  acks {history.count('ack')}  "
                f"failed {history.count('fail')}  reads {history.count('read')}  faults {len(faults.done)}"
                f"/{len(schedule)}")
    finally:
        faults.request_stop()
        out("nemesis: workload stopping (every send answered or timed out)...")
        workload.stop()
        faults.stop()
    out(f"nemesis: {len(faults.done)} of {len(schedule)} faults done; undoing every fault, waiting for the "
        "cluster to be whole...")
    whole = make_whole(runner, bootstrap, topic)
    if not whole:
        out("nemesis: some in-sync replica sets are still short; reading back from the leaders anyway")
    out("nemesis: reading every partition back (read_committed, then read_uncommitted)...")
    workload.read_back()
    history.close()
    return judge(runner, history.events, topic, out_dir, mode, faults.errors + workload.errors, out)


def judge(runner: ClusterRunner, events: list[dict[str, Any]], topic: str, out_dir: Path, mode: str,
          errors: list[str], out: Callable[[str], None]) -> NemesisResult:
    """The verdict on a finished history: trace ids, the NF.check span, verdict.json, the timeline, the report."""
    from kafka_edu.tracing.runner_events import record_nemesis_check, runner_tracing
    check_began = time.time_ns()
    verdict = check(events)
    attach_trace_ids(runner.run.path, topic, verdict.anomalies)
    tracing = runner_tracing(runner.run.path, runner.run.run_id, mode)
    try:
        trace_id = record_nemesis_check(
            tracing, check_began,
            {**verdict.counts, "valid": verdict.valid, "acknowledged": verdict.acknowledged, "read": verdict.read,
             "indeterminate": verdict.indeterminate, "incomplete_partitions": verdict.incomplete_partitions,
             "topic": topic, "history": str(out_dir / HISTORY_FILE)},
            [{"kind": a.kind, "records": a.records, "partition": a.partition, "offsets": a.offsets, "seen_at_ns": a.t,
              "detail": a.detail, "trace_ids": a.trace_ids} for a in verdict.anomalies])
    finally:
        tracing.shutdown()
    (out_dir / "verdict.json").write_text(json.dumps({**verdict.to_json(), "topic": topic, "trace_id": trace_id,
                                                      "errors": errors}, indent=1))
    draw_timeline(events, verdict, out_dir / "timeline.png", f"nemesis {mode} {topic}")
    for line in describe_verdict(verdict, errors):
        out(line)
    out(f"history: {out_dir / HISTORY_FILE}\ntimeline: {out_dir / 'timeline.png'}\n"
        f"Nemesis.check span: trace {trace_id} in {runner.run.path / 'runner.jsonl'}")
    return NemesisResult(verdict, out_dir, trace_id, errors)


def describe_verdict(verdict: Verdict, errors: list[str], shown: int = 20) -> list[str]:
    lines = [f"verdict: {'VALID' if verdict.valid else 'INVALID'}: {verdict.acknowledged} acknowledged, "
             f"{verdict.read} read back, {verdict.indeterminate} indeterminate; "
             + ", ".join(f"{kind} {count}" for kind, count in verdict.counts.items())]
    if verdict.incomplete_partitions:
        lines.append(f"  the read-back did not reach the end of partitions {verdict.incomplete_partitions}")
    for anomaly in verdict.anomalies[:shown]:
        lines.append(f"  {anomaly.describe()}; traces {', '.join(anomaly.trace_ids) or 'none found'}")
    if len(verdict.anomalies) > shown:
        lines.append(f"  ... {len(verdict.anomalies) - shown} more in verdict.json")
    lines += [f"  note: {error}" for error in errors]
    return lines
