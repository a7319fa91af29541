"""Lesson 1, a broker's life (seed 000, Kafka 1.0.2's kafka.Kafka and kafka.server.KafkaServer): from Kafka.main to
RunningAsBroker step by step, what a clean stop leaves on disk, what kill -9 costs at the next start, and why a
restart right after a kill is refused.

Read top to bottom: each step's checks come just before the step that uses them.
"""

from __future__ import annotations

from pathlib import Path

from kafka_edu.lessons import Command, Evidence, Lesson, Predict, Result, Step
from kafka_edu.lessons.actions import cluster, cluster_line
from kafka_edu.lessons.traces import (
    at,
    between,
    broker_of,
    controller,
    on_broker,
    ref,
    shutdowns,
    started_after,
    startups,
    states_in,
    took,
    topic_created,
)

TOPIC = "life"
RECORDS = 1000
# Longer than 1.0.2's 6000 ms default: a session may expire a third of the timeout early (the client pings every
# third), and a restarted broker must reach its registration before that, even on a busy machine (step 7).
SESSION_TIMEOUT_MS = 15000
CLEAN_SHUTDOWN_FILE = ".kafka_cleanshutdown"  # Log.CleanShutdownFile

INTRO = """
A Kafka broker is one long `main`: it parses its properties, builds a `KafkaServer`, starts every component in a
fixed order, and then waits on a latch until something calls `shutdown`. This lesson follows one broker through that
life, twice over: a clean stop and restart, then a `kill -9` and restart, and finally a restart that comes too soon.

The source is `core/src/main/scala/kafka/Kafka.scala` and `core/src/main/scala/kafka/server/KafkaServer.scala`
(Kafka 1.0.2); the port is `kafka_edu/v1_0_2/core/kafka.py` and `kafka_edu/v1_0_2/core/server/kafka_server.py`,
one `step(...)` per FIDELITY
row. Seed 000 describes the same class from an older Kafka; where they differ, the lesson says so.
"""

SETUP = f"""
The lesson starts ZooKeeper and two brokers: one of them will be the controller, and the other is the broker this
lesson stops, kills and restarts. Two settings are spelled out: `zookeeper.session.timeout.ms={SESSION_TIMEOUT_MS}`
(1.0.2's default is 6000; longer here, so that a restart right after a kill is refused every time, even on a busy
machine) and `controlled.shutdown.retry.backoff.ms=500` (only so that the cluster stops quickly at the end).
"""


# -- 1. From Kafka.main to RunningAsBroker ---------------------------------------------------------------------------

STARTUP_STEPS = [f"LC.startup.{i:02d}" for i in range(1, 25)]
RACE = {"a": "LC.startup.08", "b": "LC.startup.04", "c": "LC.startup.10", "d": "LC.startup.12"}


def slowest_of_four(ev: Evidence) -> str:
    trace = ev.spans.where(trace_id=startups(ev.spans, ev.facts["broker"])[0].trace_id)
    took_ms = {letter: sum(s.duration_ms for s in trace.where(step=step)) for letter, step in RACE.items()}
    return max(took_ms, key=took_ms.get)


def started_step_by_step(ev: Evidence) -> Result:
    won = controller(ev.spans)
    if won is None:
        return Result.failed(expected="a controller elected among the brokers", seen="no election won yet",
                             hint="The brokers are still starting; press Enter again.")
    ctrl = broker_of(won)
    broker = min(b for b in ev.facts["broker_ids"] if b != ctrl)
    first = startups(ev.spans, broker)
    if not first or "LC.startup.24" not in ev.spans.where(trace_id=first[0].trace_id).steps():
        return Result.failed(expected=f"broker {broker}'s `KafkaServer.startup` trace, LC.startup.01 to .24",
                             seen="not complete yet", hint="Press Enter again in a moment.")
    root = first[0]
    trace = ev.spans.where(trace_id=root.trace_id)
    seen = [s for s in trace.steps() if s.startswith("LC.startup.")]
    if seen != STARTUP_STEPS:
        return Result.failed(expected=f"the 24 startup steps in 1.0.2's order: {', '.join(STARTUP_STEPS)}",
                             seen=", ".join(seen), hint="Report this run: the port has left 1.0.2's order.",
                             wait=False)
    states = states_in(ev.spans, root.trace_id)
    main = [s for s in on_broker(ev.spans.where(name="Kafka.main"), broker)
            if s.resource.get("process.pid") == root.resource.get("process.pid")]
    rows = ["| step | span | took | share |", "|---|---|---:|---:|"]
    for step in STARTUP_STEPS:
        s = trace.where(step=step).first()
        rows.append(f"| {step} | `{s.name}` | {took(s.duration_ms)} | {s.duration_ms / root.duration_ms:.0%} |")
    top = sorted((trace.where(step=step).first() for step in STARTUP_STEPS), key=lambda s: -s.duration_ms)[:3]
    load = trace.where(name="LogManager.loadLogs")
    log_dirs = load.first().attributes.get("kafka.log.dirs", []) if len(load) else []
    before = (f"Before it, `Kafka.main` ({at(main[0])}) parsed the properties (LC.main.1), built the server "
              "(LC.main.2) and registered the shutdown hook (the `shutdown.hook.registered` event, LC.main.3): a "
              "separate, short trace. ") if main else ""
    fresh = ("A brand-new log directory has no clean-shutdown marker either, so even this first start passed "
             "through RecoveringFromUncleanShutdown, with nothing to recover. "
             if "RecoveringFromUncleanShutdown" in states else "")
    explain = f"""
{before}Broker {broker}'s `KafkaServer.startup` ({at(root)}) took {took(root.duration_ms)}, through the states
{' → '.join(states)}:

{chr(10).join(rows)}

{fresh}The three slowest steps were {', '.join(f"`{s.name}` ({took(s.duration_ms)})" for s in top)}. Steps that talk to
ZooKeeper (`initZk`, the cluster id, the transaction coordinator's block of producer ids, the registration) cost round
trips; most of the others only build objects and start threads. Broker {ctrl} won
the controller election meanwhile (its `KafkaController.startup`, LC.startup.12, is where that began), so the rest
of this lesson works on broker {broker}.

`KafkaServer.awaitShutdown` (LC.main.5) has not ended: it is the main thread waiting on the shutdown latch, and it
ends when the broker stops.
"""
    return Result.passed(explain, broker=broker, controller=ctrl, log_dir=log_dirs[0] if log_dirs else "",
                         first_startup_ms=round(root.duration_ms))


startup = Step(
    title="From Kafka.main to RunningAsBroker",
    about=("Kafka.main", "KafkaServerStartable.fromProps", "KafkaServer.startup"),
    text="""
`kafka-server-start.sh` runs `Kafka.main`: `getPropsFromArgs` reads `server.properties` and any `--override`
(LC.main.1), `KafkaServerStartable.fromProps` builds the config and the `KafkaServer` (LC.main.2), a JVM shutdown
hook is registered so that SIGTERM runs `shutdown` (LC.main.3), and then `KafkaServer.startup` (LC.main.4) and
`awaitShutdown` (LC.main.5).

`KafkaServer.startup` is a straight list: a guard (no start while shutting down, no second start), BrokerState
Starting, the scheduler, ZooKeeper (`initZk`), the cluster id, the broker id and `meta.properties`, metrics, then the
components in dependency order: `LogManager`, `MetadataCache`, `SocketServer`, `ReplicaManager`, `KafkaController`,
`AdminManager`, `GroupCoordinator`, `TransactionCoordinator`, the authorizer, `KafkaApis`, the request handler pool,
`DynamicConfigManager`, and `KafkaHealthcheck`, which registers the broker under `/brokers/ids`. Only then do the
socket server's processors start reading requests, and the state becomes RunningAsBroker.

Seed 000 lists twenty steps from an older Kafka. 1.0.2 has more: `AdminManager` and `TransactionCoordinator` (0.11's
transactions), `checkpointBrokerId` after registration, and a socket server that binds its port early but starts
its processors last (`startup(startupProcessors = false)`, then `startProcessors`), so that no request is read
before every component it could reach exists.

The lesson has started the cluster; look at one broker's startup.
""",
    predict=Predict(
        question="Of these four steps, which took longest in this broker's startup?",
        choices={"a": "`LogManager.startup` (loading the logs)", "b": "`KafkaServer.initZk` (connecting to ZooKeeper)",
                 "c": "`SocketServer.startup` (binding the port)",
                 "d": "`KafkaController.startup` (joining the controller election)"},
        answer=slowest_of_four,
        why="""
On a fresh broker there are no logs to load, binding a port is one system call, and `KafkaController.startup` only
queues an event (the election runs on the controller's own thread, in a trace of its own). Opening a ZooKeeper
session and creating the common paths (`ZkUtils.setupCommonPaths`) is several network round trips, so `initZk`
usually wins; on a broker with many partitions, `LogManager` would.
"""),
    check=started_step_by_step,
    wait_s=20,
)


# -- 2. Something for the logs to hold -------------------------------------------------------------------------------

def records_written(ev: Evidence) -> Result:
    broker = ev.facts["broker"]
    created = topic_created(ev.spans, TOPIC)
    if not created:
        return Result.failed(expected=f"topic `{TOPIC}` created (a TopicChange event on the controller)",
                             seen="no TopicChange has named it", hint="run both commands above, joined by &&")
    appends = [s for s in ev.spans.where(step="NW.log.append") if s.attributes.get("kafka.topic") == TOPIC]
    records = sum(s.attributes["kafka.offset.last"] - s.attributes["kafka.offset.first"] + 1 for s in appends
                  if "kafka.offset.last" in s.attributes)
    if records < RECORDS:
        return Result.failed(expected=f"{RECORDS} records appended to `{TOPIC}`",
                             seen=f"{records} in the traces", hint="run the kcat part of the command again")
    requests = {s.trace_id for s in appends}
    partitions = sorted({s.attributes["kafka.partition"] for s in appends})
    log_dir = Path(ev.facts["log_dir"])
    on_disk = sorted(p.name for p in log_dir.glob(f"{TOPIC}-*")) if log_dir.name else []
    explain = f"""
kcat's {records} records arrived in {len(requests)} produce request(s); `Log.append` (NW.log.append) gave them
offsets in partitions {partitions} on their leaders, and the followers fetched copies.

Broker {broker} holds a replica of every partition in `{log_dir}`: {', '.join(on_disk) or 'no directory yet'}. Each
is a directory with a segment (`00000000000000000000.log`), its offset and time indexes, and a
`leader-epoch-checkpoint`; beside them, `recovery-point-offset-checkpoint` says up to which offset each log is known
to be flushed to disk. That is what the next steps are about.
"""
    return Result.passed(explain)


records = Step(
    title="Something for the logs to hold",
    about=("Log.append",),
    text=f"""
A broker with no data has nothing to recover, so give it some: create a topic `{TOPIC}` with four partitions, each
on both brokers, and write {RECORDS} records to it with kcat, a real Kafka client (keyed `1:1`, `2:2`, ... so that
they spread over the partitions). Each produce request ends in
`Log.append` on the partition's leader (lesson `request-journey` follows one all the way).
""",
    action=Command(f"kafka-edu topics --create --topic {TOPIC} --partitions 4 --replication-factor 2 "
                   f"--bootstrap-server {{bootstrap}} && seq 1 {RECORDS} | sed 's/.*/&:&/' | "
                   f"kcat -P -K: -b {{bootstrap}} -t {TOPIC}"),
    check=records_written,
    wait_s=30,
)


# -- 3. A clean stop -------------------------------------------------------------------------------------------------

def stopped_cleanly(ev: Evidence) -> Result:
    broker, since = ev.facts["broker"], ev.facts["action_ns"]
    stop = cluster_line("stop", broker, ev.facts)
    stopped = started_after(shutdowns(ev.spans, broker), since)
    if not stopped:
        killed = [e for e in ev.exits_since(since) if e.broker_id == broker]
        if killed:
            return Result.failed(
                expected=f"a `KafkaServer.shutdown` trace from broker {broker}",
                seen=f"broker {broker}'s process ended without one: it was killed, so no shutdown code ran",
                hint=f"start it again ({cluster_line('start', broker, ev.facts)}), then run "
                     f"{stop}", wait=False)
        return Result.failed(expected=f"a `KafkaServer.shutdown` trace from broker {broker}",
                             seen="none yet", hint=f"run {stop}", wait=not ev.alive.get(broker))
    root = stopped[-1]
    trace = ev.spans.where(trace_id=root.trace_id)
    steps = [s for s in trace.steps() if s.startswith("LC.shutdown.")]
    if "LC.shutdown.21" not in steps:
        return Result.failed(expected="the shutdown complete (LC.shutdown.21)", seen=f"so far: {', '.join(steps)}",
                             hint="Press Enter again in a moment.")
    if steps != sorted(steps):
        return Result.failed(expected="the shutdown steps in 1.0.2's order", seen=", ".join(steps),
                             hint="Report this run: the port has left 1.0.2's order.", wait=False)
    rows = ["| step | span | took |", "|---|---|---:|"]
    for step in steps:
        s = trace.where(step=step).first()
        rows.append(f"| {step} | `{s.name}`"
                    + (f" → {s.attributes.get('kafka.broker.state.to')}" if s.name == "BrokerState.newState" else "")
                    + f" | {took(s.duration_ms)} |")
    errors = [s for s in trace if s.is_error]
    marker = Path(ev.facts["log_dir"]) / CLEAN_SHUTDOWN_FILE
    on_disk = (f"`{marker}` is there now." if marker.exists() else
               f"(`{marker}` is not there: has the broker been started again already?)")
    explain = f"""
Broker {broker}'s `KafkaServer.shutdown` ({at(root)}) took {took(root.duration_ms)}:

{chr(10).join(rows)}

{('Every step ended without an error.' if not errors else
  f"{len(errors)} span(s) recorded an error and the sequence went on: {', '.join(ref(s) for s in errors)}.")}
`LogManager.shutdown` (LC.shutdown.14) flushed every log, wrote the recovery-point and log-start checkpoints, and
only then created the clean-shutdown marker in each log directory: {on_disk}
"""
    return Result.passed(explain, clean_stop_ms=round(root.duration_ms), clean_stop_steps=steps)


clean_stop = Step(
    title="A clean stop, in order",
    about=("KafkaServer.shutdown", "CoreUtils.swallow", "LogManager.shutdown"),
    text="""
SIGTERM runs the shutdown hook, which calls `KafkaServer.shutdown`. In 1.0.2 it runs in this order: the guard (no
shutdown while still starting up), `controlledShutdown` (lesson `controller` shows what the controller does with
it), BrokerShuttingDown, `KafkaHealthcheck.shutdown`, `SocketServer.stopProcessingRequests`, the request handlers,
the scheduler, `KafkaApis`, the authorizer, `AdminManager`, the transaction and group coordinators,
`ReplicaManager`, `LogManager`, `KafkaController`, ZooKeeper, and the `SocketServer` itself near the very end
(a controlled-shutdown answer may still need it), then NotRunning and the latch.

Each component's stop is wrapped in `CoreUtils.swallow`: if it throws, the error is logged (and recorded on its
span) and the next one runs anyway. A shutdown that gave up halfway would leave the logs unflushed and without their
marker, and the next start would have to recover them; one broken component must not cost the others their clean
stop.

Seed 000 shows an older `shutdown`: the socket server first, no health-check deregistration, no transaction
coordinator. 1.0.2 stops taking requests early but closes the socket server last.

Stop broker {broker} cleanly.
""",
    predict=Predict(
        question="`ReplicaManager.shutdown` throws an exception halfway through the sequence. What happens next?",
        choices={"a": "the shutdown stops there and the broker hangs until it is killed",
                 "b": "the error is logged and recorded, and `LogManager.shutdown` and the rest still run",
                 "c": "the broker exits at once with status 1"},
        answer="b",
        why="""
That is what `swallow` is for: every component gets its chance to stop, in order, whatever happened to the one
before it. The trace of a shutdown where something failed shows that span in red (status ERROR, with an
`exception` event) and the following steps as usual.
"""),
    action=cluster("stop", "broker"),
    check=stopped_cleanly,
    wait_s=60,
)


# -- 4. Start after a clean stop --------------------------------------------------------------------------------------

def load_of(ev: Evidence, root) -> tuple[list[str], float, int]:
    """The states of a startup trace, and how long `LogManager.loadLogs` took and how many logs it loaded."""
    load = ev.spans.where(trace_id=root.trace_id, name="LogManager.loadLogs")
    ms = load.first().duration_ms if len(load) else 0.0
    count = load.first().attributes.get("kafka.log.count", 0) if len(load) else 0
    return states_in(ev.spans, root.trace_id), ms, count


def restarted(ev: Evidence, *, recovered: bool) -> Result:
    broker, since = ev.facts["broker"], ev.facts["action_ns"]
    start = cluster_line("start", broker, ev.facts)
    attempts = started_after(startups(ev.spans, broker), since)
    if not attempts:
        return Result.failed(expected=f"a new `KafkaServer.startup` trace from broker {broker}",
                             seen=f"broker {broker} is {'starting' if ev.alive.get(broker) else 'not running'}",
                             hint=f"run {start}", wait=bool(ev.alive.get(broker)))
    root = attempts[-1]
    fatal = [e for e in root.events if e.name == "startup.fatal"]
    if fatal:
        return Result.failed(
            expected=f"broker {broker} RunningAsBroker",
            seen=f"its startup failed: {fatal[0].attributes.get('exception.message', '')[:120]}",
            hint=f"ZooKeeper still held the killed process's session; wait a few seconds, then run {start} again",
            wait=False)
    states, load_ms, count = load_of(ev, root)
    if "RunningAsBroker" not in states:
        return Result.failed(expected=f"broker {broker} RunningAsBroker", seen=f"states so far: {states}",
                             hint="It is still starting; press Enter again.")
    was_recovered = "RecoveringFromUncleanShutdown" in states
    if was_recovered != recovered:
        return Result.failed(
            expected="a startup " + ("through" if recovered else "without") + " RecoveringFromUncleanShutdown",
            seen=" → ".join(states),
            hint="this step follows the one before it: " + ("kill -9, then start" if recovered else
                                                              "a clean stop, then start"), wait=False)
    marker = Path(ev.facts["log_dir"]) / CLEAN_SHUTDOWN_FILE
    if recovered:
        found = ("found no clean-shutdown marker, so each log checked its segments from its recovery point on "
                 "(RecoveringFromUncleanShutdown) before the broker went on.")
    else:
        found = ("found the clean-shutdown marker, so each log could trust its segments as they stood. The marker is "
                 f"deleted once the logs are loaded ({'yet it is still there' if marker.exists() else 'it is gone'}),"
                 " so that a crash from now on is not mistaken for a clean stop.")
    explain = (f"Broker {broker} started again ({at(root)}, {took(root.duration_ms)}): {' → '.join(states)}. "
               f"`LogManager.loadLogs` loaded {count} logs in {took(load_ms)} and {found}")
    return Result.passed(explain, **{("recovered_load_ms" if recovered else "clean_load_ms"): round(load_ms, 1)})


def restarted_clean(ev: Evidence) -> Result:
    return restarted(ev, recovered=False)


restart_clean = Step(
    title="Start again after a clean stop",
    about=("LogManager.loadLogs", "BrokerState.newState"),
    text="""
`LogManager.startup` (LC.startup.08) begins by loading every log it finds (`LogManager.loadLogs`). For each log
directory it first looks for the clean-shutdown marker; if it is missing, the broker's state becomes
RecoveringFromUncleanShutdown (`BrokerState.newState`, value 2) and each log re-reads its segments from its recovery
point, rebuilding indexes and cutting off a torn last batch.

Start broker {broker} again.
""",
    predict=Predict(
        question="Which states will broker {broker}'s new startup trace show?",
        choices={"a": "Starting → RunningAsBroker", "b": "Starting → RecoveringFromUncleanShutdown → RunningAsBroker",
                 "c": "RunningAsBroker at once: it remembers its last state"},
        answer="a",
        why="""
The marker written by `LogManager.shutdown` vouches for every log in its directory, so there is nothing to recover.
The state is never remembered across runs: every start begins at NotRunning → Starting.
"""),
    action=cluster("start", "broker"),
    check=restarted_clean,
    wait_s=45,
)


# -- 5. kill -9 ------------------------------------------------------------------------------------------------------

def killed(ev: Evidence) -> Result:
    broker, ctrl, since = ev.facts["broker"], ev.facts["controller"], ev.facts["action_ns"]
    kill_command = cluster_line("kill", broker, ev.facts)
    if started_after(shutdowns(ev.spans, broker), since):
        return Result.failed(
            expected=f"broker {broker} killed: no shutdown code at all",
            seen=f"broker {broker} ran `KafkaServer.shutdown`: it was stopped, not killed",
            hint=f"start it again ({cluster_line('start', broker, ev.facts)}), then run "
                 f"{kill_command}", wait=False)
    exits = [e for e in ev.exits_since(since) if e.broker_id == broker]
    if not exits:
        return Result.failed(expected=f"broker {broker}'s process gone", seen=f"broker {broker} is still running",
                             hint=f"run {kill_command}", wait=False)
    death = exits[-1]
    noticed = [s for s in on_broker(ev.spans.where(step="CT.broker"), ctrl)
               if s.start_ns >= death.at_ns and broker in s.attributes.get("kafka.brokers.dead", [])]
    if not noticed:
        return Result.failed(expected=f"controller {ctrl} to notice: a BrokerChange naming broker {broker} dead",
                             seen=f"none yet; the process died at {death.at_ns}",
                             hint=f"ZooKeeper waits up to zookeeper.session.timeout.ms "
                                  f"({ev.facts['session_timeout_s']:g} s) for a silent session; press Enter again.")
    change = noticed[0]
    marker = Path(ev.facts["log_dir"]) / CLEAN_SHUTDOWN_FILE
    on_disk = "none in the log directory" if not marker.exists() else "yet one is there: left by an earlier stop?"
    explain = f"""
Broker {broker}'s process ended, and its traces simply stop: no `KafkaServer.shutdown`, no `LogManager.shutdown`,
no marker ({on_disk}).

For {between(death.at_ns, change.start_ns)} nothing else happened. ZooKeeper kept the dead broker's session, and
with it the ephemeral `/brokers/ids/{broker}`, until the session timeout passed without a heartbeat. Then the
controller's watch on `/brokers/ids` fired: `BrokerChange` ({at(change)}) found broker {broker} dead and ran
`onBrokerFailure`, which moved its leadership to broker {ctrl}.
"""
    return Result.passed(explain, kill_noticed_s=round((change.start_ns - death.at_ns) / 1e9, 2))


kill = Step(
    title="kill -9",
    about=("KafkaController.onBrokerFailure", "KafkaHealthcheck"),
    text="""
Now kill broker {broker} without warning. SIGKILL cannot be caught: the shutdown hook never runs, nothing is
flushed or closed, no marker is written. The broker's ZooKeeper session is not closed either; its registration
`/brokers/ids/{broker}` (an ephemeral znode written by `KafkaHealthcheck`) stays until ZooKeeper gives up on the
session. The controller's `KafkaController.onBrokerFailure` is what finally reacts.
""",
    predict=Predict(
        question="After the kill, when does the controller (broker {controller}) learn that broker {broker} is gone?",
        choices={"a": "at once: the dead process's TCP connections close",
                 "b": "when ZooKeeper expires the dead session, up to zookeeper.session.timeout.ms "
                      "({session_timeout_s:g} s here)",
                 "c": "only when a client reports an error"},
        answer="b",
        why="""
In ZooKeeper mode a broker is alive exactly as long as its ephemeral znode. Only ZooKeeper decides when a silent
session is over, and it waits for the session timeout; the controller learns of it through its watch.
"""),
    action=cluster("kill", "broker"),
    check=killed,
    wait_s=30,
)


# -- 6. Start again after the kill ------------------------------------------------------------------------------------

def restarted_recovered(ev: Evidence) -> Result:
    result = restarted(ev, recovered=True)
    if result.ok and "clean_load_ms" in ev.facts:
        result.explain += (f" Loading took {took(result.facts['recovered_load_ms'])} against "
                           f"{took(ev.facts['clean_load_ms'])} after the clean stop, for the same logs.")
    return result


restart_recovered = Step(
    title="Start again after the kill",
    about=("LogManager.loadLogs", "BrokerState.newState"),
    text="""
ZooKeeper has let go of the dead session, so broker {broker} may register again. Start it, and watch
`LogManager.loadLogs` and the `BrokerState.newState` spans of its startup trace.
""",
    predict=Predict(
        question="Which states will this startup trace show?",
        choices={"a": "Starting → RunningAsBroker", "b": "Starting → RecoveringFromUncleanShutdown → RunningAsBroker",
                 "c": "Starting, and then a refusal to start"},
        answer="b",
        why="""
No marker, no trust: every log is checked from its recovery point. With a few records that is quick; with
gigabytes of unflushed segments it is what makes a crashed broker slow to come back, and why Kafka 1.0.2 runs it on
`num.recovery.threads.per.data.dir` threads per directory.
"""),
    action=cluster("start", "broker"),
    check=restarted_recovered,
    wait_s=45,
)


# -- 7. Too soon -----------------------------------------------------------------------------------------------------

def refused(ev: Evidence) -> Result:
    broker, since = ev.facts["broker"], ev.facts["action_ns"]
    attempts = started_after(startups(ev.spans, broker), since)
    failed = [s for s in attempts if any(e.name == "startup.fatal" for e in s.events)]
    if not failed:
        ok = [s for s in attempts if "RunningAsBroker" in states_in(ev.spans, s.trace_id)]
        return Result.failed(
            expected=f"a startup of broker {broker} refused right after a kill",
            seen=(f"broker {broker} started fine ({at(ok[-1])}): was the kill more than a session timeout earlier?"
                  if ok else "no new startup yet"),
            hint=f"run both commands on one line, so that the start follows the kill at once: "
                 f"`kafka-edu cluster kill {broker} --run {ev.facts['run_dir']}; kafka-edu cluster start {broker} "
                 f"--run {ev.facts['run_dir']}`", wait=not ok)
    root = failed[-1]
    trace = ev.spans.where(trace_id=root.trace_id)
    fatal = next(e for e in root.events if e.name == "startup.fatal")
    failing = [s for s in trace.where(step="LC.startup") if s.is_error]
    inner = trace.where(name="KafkaServer.shutdown")
    ran = [s for s in trace.steps() if s.startswith("LC.shutdown.")]
    skipped = [s for s in ev.facts.get("clean_stop_steps", []) if s not in ran]
    message = fatal.attributes.get("exception.message", "").split(". ")[0]
    states = states_in(ev.spans, root.trace_id)
    explain = f"""
The new process got as far as {', '.join(f"`{s.name}` ({s.step})" for s in failing) or 'registration'}, {between(
        root.start_ns, failing[0].start_ns if failing else root.end_ns)} into its startup ({at(root)}), and failed
with `{fatal.attributes.get('exception.type')}`: "{message}".

`/brokers/ids/{broker}` still belonged to the killed process's session, and a broker id can be registered only
once. `KafkaServer.startup`'s catch (LC.startup.err, the `startup.fatal` event) logged it as fatal, cleared
`isStartingUp`, called `shutdown()` and rethrew, and `Kafka.main` exited with status 1.

That `shutdown()` is in the same trace ({at(inner.first()) if len(inner) else 'not found'}): {len(ran)} steps, the
clean stop's of step 3 {('without ' + ', '.join(skipped)) if skipped else 'all over again'}. There was no controlled
shutdown (LC.shutdown.02 runs only once startup has completed), and each component that existed was stopped in the
usual order, each inside its own `swallow`.

Look at the states too: {' → '.join(states)}. The refused process had already recovered the logs before it reached
registration, and its `LogManager.shutdown` wrote a fresh clean-shutdown marker: start broker {broker} once the old
session has expired, and it will not recover a second time.
"""
    return Result.passed(explain)


too_soon = Step(
    title="Too soon: kill -9 and start at once",
    about=("KafkaServer.startup", "KafkaHealthcheck.startup", "KafkaServer.shutdown"),
    text="""
One more time, but impatiently: kill broker {broker} and start it again immediately, before ZooKeeper has expired the
dead session. The second command is expected to fail; the interesting part is how, and what the trace of the
failed start shows about `KafkaServer.startup`'s error handling, `KafkaHealthcheck.startup` and the
`KafkaServer.shutdown` that follows.
""",
    predict=Predict(
        question="What does the immediate restart do?",
        choices={"a": "it starts, recovers its logs and runs",
                 "b": "it is refused: /brokers/ids/{broker} still belongs to the dead process's session",
                 "c": "it starts and replaces the old registration"},
        answer="b",
        why="""
The registration is an ephemeral znode tied to a session, and ZooKeeper has not yet decided that the old session is
dead. Kafka's message says as much: it cannot tell a duplicate broker id from a restart faster than the ZooKeeper
timeout. (From Kafka 2.2 a broker's registration also carries an epoch, KIP-380, so that stale requests from a
broker's previous life can be told apart; the refusal itself stays.)
"""),
    action=Command("kafka-edu cluster kill {broker} --run {run_dir}; kafka-edu cluster start {broker} --run {run_dir}",
                   may_fail=True),
    check=refused,
    wait_s=30,
)


LESSON = Lesson(
    name="broker-life",
    title="A broker's life: start, stop, crash",
    summary="Kafka.main to RunningAsBroker step by step, the clean-shutdown marker, kill -9 and "
            "RecoveringFromUncleanShutdown, the shutdown order and why each step is swallowed",
    minutes=15,
    seed="000",
    intro=INTRO,
    setup=SETUP,
    brokers=2,
    overrides=(f"zookeeper.session.timeout.ms={SESSION_TIMEOUT_MS}", "controlled.shutdown.retry.backoff.ms=500"),
    steps=[startup, records, clean_stop, restart_clean, kill, restart_recovered, too_soon],
    outro="""
You have followed one broker through `Kafka.main`, a full `KafkaServer.startup`, a clean `shutdown` that left its
marker, a crash that left none, and a restart the ZooKeeper session refused. Broker {broker} is down now; the lesson
stops the rest.

Next: lesson `request-journey` follows one produce request through the threads you saw start here, and lesson
`controller` looks at what the controller did while broker {broker} was away. `kafka-edu tui --run {run_dir}` replays
this run.
""",
)
