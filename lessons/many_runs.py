"""Lesson 5, many runs (kafka_edu.mining): one failover is an anecdote. Record the same failover in three runs, read
each from its traces, then let the Spark jobs of `kafka-edu mine` read them all at once and say what varies and what
does not.

Read top to bottom: each step's checks come just before the step that uses them.
"""

from __future__ import annotations

import csv
import statistics
import time
from pathlib import Path
from typing import Any

from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.lessons import Command, Do, Evidence, Lesson, Predict, Result, Step
from kafka_edu.lessons.runner import LessonRun, SpanReader
from kafka_edu.lessons.traces import broker_of, controller, events, took
from kafka_edu.tracing.query import Spans, load_run

RUNS = 3
TOPIC = "many"
OVERRIDES = ("zookeeper.session.timeout.ms=6000", "auto.leader.rebalance.enable=false",
             "controlled.shutdown.retry.backoff.ms=500")

INTRO = """
Every lesson so far read one run. But a number from one run, "the failover took 5.4 s", invites the next question:
is that always so? This lesson records the same failover three times, in three runs, reads each one from its own
traces, and then runs two of the Spark jobs of `kafka-edu mine` over all three: the failover timeline and the
startup profile. You will see which parts of Kafka's behaviour are set by configuration, and which by chance.

The jobs are in `kafka_edu/mining/` (`failover_timeline.py`, `startup_profile.py`); `docs/mining.md` describes them.
They need PySpark and Java (`pip install 'kafka-edu[mining]'`), and each takes half a minute or so to start Spark.
"""

SETUP = """
The lesson starts ZooKeeper and three brokers with `zookeeper.session.timeout.ms=6000` (1.0.2's default),
`auto.leader.rebalance.enable=false` and `controlled.shutdown.retry.backoff.ms=500`, and starts two more clusters
like it later on.
"""


# -- 1. Three failovers -------------------------------------------------------------------------------------------

def failover(runner: ClusterRunner, run: LessonRun) -> dict[str, Any]:
    """Create the topic, kill -9 the controller, and wait until every partition it led is led again."""
    run.run_command(f"kafka-edu topics --create --topic {TOPIC} --partitions 6 --replication-factor 3 "
                    f"--bootstrap-server {runner.run.read_manifest()['bootstrap_servers']}")
    reader = SpanReader(runner.run.path)
    deadline = time.monotonic() + 60
    while (timing(reader.spans(), killed_ns=None) or {}).get("ready") is not True:
        if time.monotonic() > deadline:
            raise RuntimeError(f"run {runner.run.run_id}: no controller with leaders to move")
        time.sleep(0.25)
    old = broker_of(controller(reader.spans()))
    killed_ns = time.time_ns()
    runner.kill(old)
    while (timing(reader.spans(), killed_ns) or {}).get("led_again_ms") is None:
        if time.monotonic() > deadline + 60:
            raise RuntimeError(f"run {runner.run.run_id}: the failover did not finish")
        time.sleep(0.25)
    return {"run_id": runner.run.run_id, "killed_ns": killed_ns, "old": old}


def timing(spans: Spans, killed_ns: int | None) -> dict[str, Any] | None:
    """One failover read from one run's spans, with the mining job's definitions: the loss is the first Reelect
    after the kill, and the partitions are led again at the end of the last makeLeaders that moves one of the old
    controller's. Without `killed_ns`: whether the run is ready to be killed (a controller leading partitions)."""
    if killed_ns is None:
        won = controller(spans)
        led = [s for s in spans.where(name="ReplicaManager.makeLeaders")
               if won is not None and broker_of(s) == broker_of(won)
               and any(p.startswith(f"{TOPIC}-") for p in s.attributes.get("kafka.partitions", []))]
        return {"ready": bool(led)}
    reelects = [s for s in spans.where(step="CT.event", kafka__controller__event="Reelect") if s.start_ns >= killed_ns]
    won = [s for s in spans.where(step="CT.elect") if s.start_ns >= killed_ns
           and s.attributes.get("kafka.controller.won") is True]
    if not reelects or not won:
        return None
    loss = reelects[0]
    moved = {(e.attributes["kafka.topic"], e.attributes["kafka.partition"])
             for _, e in events(spans.with_linked_traces(won[0].trace_id), "partition.state.change")
             if e.attributes.get("from") == "OfflinePartition" and e.attributes.get("to") == "OnlinePartition"}
    ends = []
    for topic, partition in moved:
        leads = [s.end_ns for s in spans.where(name="ReplicaManager.makeLeaders") if s.start_ns > loss.start_ns
                 and f"{topic}-{partition}" in s.attributes.get("kafka.partitions", [])]
        if not leads:
            return None
        ends.append(min(leads))
    return {"detection_ms": (loss.start_ns - killed_ns) / 1e6,
            "elected_ms": (won[0].start_ns - loss.start_ns) / 1e6,
            "led_again_ms": (max(ends) - loss.start_ns) / 1e6 if ends else None, "moved": len(moved)}


def record_runs(run: LessonRun) -> None:
    """The failover in this lesson's own run, then in two more runs started and stopped here."""
    traces = run.runner.run.path.parent
    recorded = [failover(run.runner, run)]
    run.terminal.say(f"  run 1 of {RUNS}: {recorded[-1]['run_id']}, broker {recorded[-1]['old']} killed", "dim")
    for number in range(2, RUNS + 1):
        extra = ClusterRunner.up(3, traces, None, list(OVERRIDES))
        try:
            recorded.append(failover(extra, run))
        finally:
            extra.down()
        run.terminal.say(f"  run {number} of {RUNS}: {recorded[-1]['run_id']}, broker {recorded[-1]['old']} killed",
                         "dim")
    run.facts.update({"recorded": recorded, "run_ids": " ".join(r["run_id"] for r in recorded),
                      "traces": str(traces), "mining_out": f"{run.runner.run.path}-mining"})


def read_each(ev: Evidence) -> dict[str, dict[str, Any]]:
    """Each recorded run's failover, read from its own span files."""
    read = {}
    for recorded in ev.facts.get("recorded", []):
        spans = ev.spans if recorded["run_id"] == Path(ev.facts["run_dir"]).name else \
            load_run(Path(ev.facts["traces"]) / recorded["run_id"])
        read[recorded["run_id"]] = timing(spans, recorded["killed_ns"])
    return read


def spread(values: list[float]) -> float:
    return max(values) - min(values) if values else 0.0


def most_variable(ev: Evidence) -> str:
    read = [t for t in read_each(ev).values() if t]
    parts = {"a": spread([t["detection_ms"] for t in read]), "b": spread([t["elected_ms"] for t in read]),
             "c": spread([t["led_again_ms"] or 0 for t in read])}
    return max(parts, key=parts.get)


def three_failovers(ev: Evidence) -> Result:
    recorded = ev.facts.get("recorded", [])
    if len(recorded) < RUNS:
        return Result.failed(expected=f"{RUNS} runs, each with a failover", seen=f"{len(recorded)} recorded",
                             hint="the lesson records them itself; run the lesson again", wait=False)
    read = read_each(ev)
    missing = [run_id for run_id, t in read.items() if not t or t["led_again_ms"] is None]
    if missing:
        return Result.failed(expected="a complete failover in each run's traces", seen=f"incomplete in {missing}",
                             hint="Press Enter again in a moment.")
    rows = ["| run | kill → loss (ZooKeeper) | loss → elected | loss → led again | partitions moved |",
            "|---|---:|---:|---:|---:|"]
    for run_id, t in read.items():
        rows.append(f"| `{run_id}` | {took(t['detection_ms'])} | {took(t['elected_ms'])} | "
                    f"{took(t['led_again_ms'])} | {t['moved']} |")
    detections = [t["detection_ms"] for t in read.values()]
    rest = [t["led_again_ms"] for t in read.values()]
    explain = f"""
Each run's own traces, read the way lesson `controller` reads one:

{chr(10).join(rows)}

Detection ranged from {took(min(detections))} to {took(max(detections))}, a spread of {took(spread(detections))}:
the session timeout is 6 s, but the dead broker's last heartbeat could have been up to a third of it before the kill,
and ZooKeeper expires sessions on its ticks. Everything after the loss took {took(min(rest))} to {took(max(rest))}:
work on the controller's thread and a LeaderAndIsr round trip, small next to the wait.
"""
    return Result.passed(explain)


record = Step(
    title="The same failover, three times",
    about=("KafkaController.Reelect", "KafkaController.onControllerFailover", "ReplicaManager.makeLeaders"),
    text="""
The lesson now does, three times over, what lesson `controller` had you do once: a topic with 6 partitions on all
three brokers, then `kill -9` of the controller, then the wait until ZooKeeper lets its session go
(`KafkaController.Reelect`), the new controller's `KafkaController.onControllerFailover`, and the last
`ReplicaManager.makeLeaders` that gives the dead broker's partitions new leaders. The first failover happens in this
lesson's cluster; for the other two the lesson starts a fresh cluster, and stops it afterwards. This takes about a
minute.
""",
    predict=Predict(
        question="Same settings, same machine, three runs. Which part of the failover will vary most between them?",
        choices={"a": "the time until ZooKeeper notices the dead controller",
                 "b": "the election, once the loss is noticed",
                 "c": "the leader moves, from the loss to every partition led again"},
        answer=most_variable,
        why="""
The wait for ZooKeeper is long *and* uneven: it depends on where in its heartbeat cycle the broker died. The rest is
a few hundred milliseconds of work whose variation is that of a busy machine. To shorten failovers, the knob is the
session timeout, and making it short makes every GC pause a failover; KRaft (seed 002) replaced this trade-off with
heartbeats to the controller quorum.
"""),
    action=Do("records the failover in three runs (about a minute).", record_runs),
    check=three_failovers,
    wait_s=30,
)


# -- 2. The failover timeline over all three ------------------------------------------------------------------------

def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def mined_timeline(ev: Evidence) -> Result:
    out = Path(ev.facts["mining_out"]) / "failover-timeline.csv"
    if not out.exists():
        return Result.failed(expected=f"the job's table in `{out}`", seen="no such file yet",
                             hint="run the command above (it needs PySpark and Java; Spark takes a while to start)",
                             wait=False)
    rows = [r for r in read_csv(out) if r["cause"].startswith("session lost")]
    by_run = {r["run_id"]: r for r in rows}
    read = read_each(ev)
    missing = [run_id for run_id in read if run_id not in by_run]
    if missing:
        return Result.failed(expected=f"one 'session lost' failover per recorded run ({len(read)})",
                             seen=f"none for {missing} in `{out}`",
                             hint="run the command as printed: --runs names the three runs", wait=False)
    table = ["| run | last seen before loss | elected | led again | the lesson's own reading |",
             "|---|---:|---:|---:|---|"]
    differences = []
    for run_id, t in read.items():
        r = by_run[run_id]
        mined = float(r["led_again_ms"]) if r["led_again_ms"] else None
        differences.append(abs((mined or 0) - t["led_again_ms"]))
        table.append(f"| `{run_id}` | {took(float(r['last_seen_ms']))} | +{took(float(r['elected_ms']))} | "
                     f"+{took(mined or 0)} | led again +{took(t['led_again_ms'])} |")
    last_seen = [float(by_run[run_id]["last_seen_ms"]) for run_id in read]
    agree = max(differences) < 1.0
    explain = f"""
`kafka-edu mine failover-timeline` read the span files of the three runs with Spark and found their controller
changes (its CSV: `{out}`):

{chr(10).join(table)}

{'Its "led again" agrees with the lesson reading each run on its own, to the millisecond: the same spans, the same '
 'definition (from the first `Reelect` to the end of the last `makeLeaders` that moves a partition of the lost '
 'broker).' if agree else f'Its "led again" differs from the lesson reading each run on its own by up to '
 f'{took(max(differences))}: the job and the lesson define the moment of loss a little differently.'}

"Last seen before loss" is the job's own measure of detection: from the old controller's last span to the loss. Its
median here is {took(statistics.median(last_seen))}: the time ZooKeeper took to give up on the session, plus however
long the idle broker had gone without writing a span before it died. A job over ten or a hundred runs answers the
question this lesson started with, without anyone reading a trace.
"""
    return Result.passed(explain)


timeline = Step(
    title="The failover timeline, over all three",
    about=("KafkaController.elect", "KafkaController.onControllerFailover"),
    text="""
`kafka-edu mine failover-timeline` is a PySpark job (`kafka_edu/mining/failover_timeline.py`) over any number of run
directories. It reads the OTLP span files with an explicit schema, keeps the few spans that matter
(`KafkaController.elect`, the controller events, `KafkaController.onControllerFailover`, `makeLeaders`), and for
every election won after the first assembles the same timeline you read by hand in lesson `controller`.

Run it over the three runs.
""",
    predict=Predict(
        question="In the job's table, what will 'last seen before loss' be close to?",
        choices={"a": "zero: the controller dies at the moment of the loss",
                 "b": "the ZooKeeper session timeout: the wait between the death and the loss",
                 "c": "the time the new controller's failover takes"},
        answer="b",
        why="""
The loss is when the `/controller` znode disappears, and a killed broker's znode disappears only when ZooKeeper
expires its session. The job cannot see the kill itself (no process writes a span as it dies), so it measures from
the last sign of life in the dead broker's traces.
"""),
    action=Command("kafka-edu mine failover-timeline --traces {traces} --runs {run_ids} --out {mining_out}"),
    check=mined_timeline,
    wait_s=10,
)


# -- 3. The startup profile ----------------------------------------------------------------------------------------

CANDIDATES = {"a": "LC.startup.04", "b": "LC.startup.08", "c": "LC.startup.15", "d": "LC.startup.18"}


def startup_rows(ev: Evidence) -> dict[str, dict[str, str]]:
    out = Path(ev.facts["mining_out"]) / "startup-profile.csv"
    return {r["step"]: r for r in read_csv(out)} if out.exists() else {}


def heaviest_candidate(ev: Evidence) -> str:
    rows = startup_rows(ev)
    return max(CANDIDATES, key=lambda letter: float(rows.get(CANDIDATES[letter], {}).get("share_pct") or 0))


def mined_startups(ev: Evidence) -> Result:
    rows = startup_rows(ev)
    if not rows:
        return Result.failed(expected=f"the job's table in `{ev.facts['mining_out']}/startup-profile.csv`",
                             seen="no such file yet", hint="run the command above", wait=False)
    steps = [f"LC.startup.{i:02d}" for i in range(1, 25)]
    absent = [s for s in steps if s not in rows]
    if absent:
        return Result.failed(expected="all 24 startup steps in the profile", seen=f"missing: {', '.join(absent)}",
                             hint="run the command as printed: --runs names the three runs", wait=False)
    ordered = sorted(rows.values(), key=lambda r: -float(r["share_pct"] or 0))
    lines = ["| step | span | startups | p50 | p95 | max | share |", "|---|---|---:|---:|---:|---:|---:|"]
    for r in ordered[:6]:
        lines.append(f"| {r['step']} | `{r['span']}` | {r['count']} | {took(float(r['p50_ms']))} | "
                     f"{took(float(r['p95_ms']))} | {took(float(r['max_ms']))} | {float(r['share_pct']):.0f}% |")
    uneven = max(ordered[:6], key=lambda r: float(r["p95_ms"]) / max(float(r["p50_ms"]), 0.001))
    explain = f"""
`kafka-edu mine startup-profile` over the same runs: {rows['LC.startup.01']['count']} broker startups, the six
heaviest steps:

{chr(10).join(lines)}

The most uneven of these is `{uneven['span']}`: its p95 is {float(uneven['p95_ms']) / max(float(uneven['p50_ms']),
0.001):.1f} times its p50. One run's startup table (lesson `broker-life`) shows one draw from these distributions;
the profile shows the distributions.
"""
    return Result.passed(explain)


startups = Step(
    title="Which startup step dominates, across all of them",
    about=("KafkaServer.startup",),
    text="""
Every run also holds every broker's `KafkaServer.startup` trace, with its 24 FIDELITY steps. `kafka-edu mine
startup-profile` gathers them from all the runs it reads and gives, per step, how often it ran, its p50, p95 and
maximum duration, and its share of all startup time.
""",
    predict=Predict(
        question="Across all the startups in the three runs, which of these steps takes the largest share?",
        choices={"a": "`KafkaServer.initZk`", "b": "`LogManager.startup`", "c": "`TransactionCoordinator.startup`",
                 "d": "`KafkaRequestHandlerPool.<init>` (starting the handler threads)"},
        answer=heaviest_candidate,
        why="""
Brokers that start together queue on the same ZooKeeper, so the steps that talk to it are both heavy and uneven;
steps that only start threads depend on how busy the machine is. Neither shows in a single startup table, and both
show in the percentiles.
"""),
    action=Command("kafka-edu mine startup-profile --traces {traces} --runs {run_ids} --out {mining_out}"),
    check=mined_startups,
    wait_s=10,
)


LESSON = Lesson(
    name="many-runs",
    title="Many runs: what varies and what does not",
    summary="the same failover in three runs, then kafka-edu mine (failover timeline, startup profile) over all of "
            "them",
    minutes=10,
    intro=INTRO,
    setup=SETUP,
    brokers=3,
    overrides=OVERRIDES,
    steps=[record, timeline, startups],
    outro="""
Three runs are a start; the jobs read any number, locally or on a Spark cluster (`--master spark://...`), and
`kafka-edu mine regressions` compares a run against a baseline step by step. The charts the jobs drew are next to
their tables in `{mining_out}`.
""",
)
