"""Lesson 9, ZooKeeper or KRaft (KIP-500's argument, run small enough for a class): a ZooKeeper-mode cluster
(Kafka 1.0.2) and a KRaft cluster (Kafka 3.9) side by side, the same topic on each, the controller of each killed
with kill -9 at the same moment, and the two failovers compared from their own traces: how long until a working
controller, and what each new controller had to load first.

`benchmarks/kip500.py` runs the full experiment (many rounds, many partitions); this lesson runs one round of it and
reads it the way lessons `controller` and `raft` read theirs.

Read top to bottom: each step's checks come just before the step that uses them.
"""

from __future__ import annotations

from kafka_edu.lessons import Command, Do, Evidence, Lesson, Predict, Result, Step
from kafka_edu.lessons.actions import cluster_line
from kafka_edu.lessons.runner import LessonRun
from kafka_edu.lessons.traces import (
    activation,
    at,
    between,
    broker_of,
    clock,
    controller,
    elections_won,
    event_root,
    leaders,
    node_of,
    raft_leader,
    raft_leaders,
    ref,
    role_changes,
    took,
)
from kafka_edu.tracing.query import SpanRecord, Spans

TOPIC = "kip500"
PARTITIONS = 20
REPLICATION_FACTOR = 2
ZK_BROKERS = 2
ZK_OVERRIDES = ("zookeeper.session.timeout.ms=6000", "auto.leader.rebalance.enable=false",
                "controlled.shutdown.retry.backoff.ms=500")

INTRO = """
KIP-500 replaced ZooKeeper with a Raft quorum of controllers, and argued that this makes a controller failover both
quicker to start and cheaper to finish: quicker, because a dead controller is noticed by its peers' fetch timeout
instead of a ZooKeeper session timeout; cheaper, because the new controller already holds the metadata instead of
reading it all from ZooKeeper. This lesson tests both claims on your machine: two small clusters, one of each kind,
the same topic on both, and one `kill -9` of each controller.

The ZooKeeper side is Kafka 1.0.2's `KafkaController` (lesson `controller`), the KRaft side Kafka 3.9's
`KafkaRaftClient` and `QuorumController` (lessons `raft` and `metadata-journey`).
"""

SETUP = f"""
The lesson starts the KRaft cluster first: three controllers (node ids 1 to 3) and two brokers (4 and 5), with 3.9's
defaults (`controller.quorum.fetch.timeout.ms=2000`). In step 1 it starts the ZooKeeper-mode cluster beside it:
ZooKeeper and {ZK_BROKERS} brokers (ids 0 and 1) with `zookeeper.session.timeout.ms=6000` (1.0.2's default),
`auto.leader.rebalance.enable=false` and `controlled.shutdown.retry.backoff.ms=500` (as in lesson `controller`).
Both clusters are stopped at the end.
"""


# -- 1. Two clusters, one topic each -------------------------------------------------------------------------------

def start_zookeeper_cluster(run: LessonRun) -> None:
    """The ZooKeeper-mode cluster beside the lesson's own, and the same topic on both."""
    with run.terminal.waiting(f"Starting ZooKeeper and {ZK_BROKERS} brokers..."):
        run.start_cluster("zk", ZK_BROKERS, overrides=ZK_OVERRIDES)
    with run.terminal.waiting(f"Creating {TOPIC} on both clusters..."):
        for bootstrap in (run.facts["zk_bootstrap"], run.facts["bootstrap"]):
            run.run_command(f"kafka-edu topics --create --topic {TOPIC} --partitions {PARTITIONS} "
                            f"--replication-factor {REPLICATION_FACTOR} --bootstrap-server {bootstrap}")


def _topic_write(spans: Spans) -> SpanRecord | None:
    """The KRaft controller's write event that created the topic (its records' offsets)."""
    writes = [s for s in spans.where(name="QuorumController.ControllerWriteEvent.run")
              if s.attributes.get("kafka.controller.event") == "createTopics"
              and "TopicRecord" in s.attributes.get("kafka.metadata.record.types", [])]
    return writes[-1] if writes else None


def _standby_replays(spans: Spans, node: int, first: int, last: int) -> list[SpanRecord]:
    return [s for s in spans.where(name="QuorumController.replay") if node_of(s) == node
            and s.attributes.get("kafka.controller.role") == "standby"
            and s.attributes.get("kafka.raft.offset.first", -1) <= last
            and s.attributes.get("kafka.raft.offset.last", -1) >= first]


def both_ready(ev: Evidence) -> Result:
    zk = ev.runs.get("zk")
    if zk is None:
        return Result.failed(expected="a ZooKeeper-mode cluster beside this one", seen="none was started",
                             hint="The lesson starts it itself in this step; run the lesson again.", wait=False)
    won = controller(zk)
    zk_leaders = leaders(zk, TOPIC)
    kraft = raft_leader(ev.spans)
    write = _topic_write(ev.spans)
    published = {node_of(s) for s in ev.spans.where(name="BrokerMetadataPublisher.onMetadataUpdate")
                 if TOPIC in s.attributes.get("kafka.metadata.topics.created", [])}
    waiting = []
    if won is None:
        waiting.append("no ZooKeeper-mode controller elected")
    if len(zk_leaders) < PARTITIONS:
        waiting.append(f"{len(zk_leaders)} of {PARTITIONS} ZooKeeper-mode partitions led")
    if kraft is None or write is None:
        waiting.append("no KRaft leader or no createTopics write event")
    if set(ev.facts["broker_ids"]) - published:
        waiting.append(f"KRaft broker(s) {sorted(set(ev.facts['broker_ids']) - published)} not published yet")
    if waiting:
        return Result.failed(expected=f"both clusters with a controller and topic `{TOPIC}` ({PARTITIONS} partitions)",
                             seen="; ".join(waiting), hint="Press Enter again in a moment.")
    zk_controller, zk_epoch = broker_of(won), won.attributes.get("kafka.controller.epoch")
    first, last = write.attributes["kafka.raft.offset.first"], write.attributes["kafka.raft.offset.last"]
    standbys = [n for n in ev.facts["controller_ids"] if n != kraft.node]
    replayed = {n: _standby_replays(ev.spans, n, first, last) for n in standbys}
    explain = f"""
**ZooKeeper mode:** broker {zk_controller} holds `/controller`, epoch {zk_epoch} ({ref(won)}). The assignment of
`{TOPIC}`'s {PARTITIONS} partitions lives in ZooKeeper: `/brokers/topics/{TOPIC}`, and a state znode (leader, ISR,
epochs) per partition. Broker(s) {', '.join(str(b) for b in ev.facts['zk_broker_ids'] if b != zk_controller)} keep
a metadata cache for clients, but their `KafkaController` holds nothing: only the active controller loads the
controller context.

**KRaft:** controller {kraft.node} leads epoch {kraft.epoch} ({ref(kraft.span)}). The same assignment is
{write.attributes.get('kafka.metadata.records')} records at offsets {first}-{last} of the metadata log
({', '.join(write.attributes.get('kafka.metadata.record.types', []))}), and the standby controllers have applied them
already: {'; '.join(f"controller {n}: {at(r[0])}" if r else f"controller {n}: not yet" for n, r in replayed.items())}.
"""
    return Result.passed(explain, zk_controller=zk_controller, zk_epoch=zk_epoch, kraft_leader=kraft.node,
                         kraft_epoch=kraft.epoch, topic_first=first, topic_last=last)


ready = Step(
    title="Two clusters, one topic each",
    about=("KafkaController.elect", "KafkaController.initializeControllerContext", "QuorumController.replay"),
    text=f"""
The lesson's own cluster, the KRaft one, is running. Now it starts a ZooKeeper-mode cluster beside it and creates
the same topic on both: `{TOPIC}`, {PARTITIONS} partitions of {REPLICATION_FACTOR} replicas. Where does each cluster
keep that topic's assignment, and who has it in memory? In ZooKeeper mode, the broker whose `KafkaController.elect`
won read the cluster with `KafkaController.initializeControllerContext` when it took office; in KRaft,
`QuorumController.replay` is what applies a metadata record to a controller's state.
""",
    predict=Predict(
        question="In which cluster does a controller that is *not* active already hold the topic's partition "
                 "assignment in memory?",
        choices={"a": "in both: every controller candidate keeps a copy",
                 "b": "only in the KRaft cluster: its standby controllers replay every committed record",
                 "c": "only in the ZooKeeper-mode cluster: every broker caches it for its controller"},
        answer="b",
        why="""
In ZooKeeper mode the controller is just whichever broker won `/controller`; the others' `KafkaController`s are idle
and hold no controller context (their metadata cache serves clients, not a controller). In KRaft the standbys are
the voters of the metadata log, and they replay each record as it is committed, exactly as the active controller did.
"""),
    action=Do(f"starts ZooKeeper and {ZK_BROKERS} Kafka 1.0.2 brokers beside the KRaft cluster, and creates topic "
              f"`{TOPIC}` on both (half a minute or so).", start_zookeeper_cluster),
    check=both_ready,
    wait_s=30,
)


# -- 2. kill -9 both controllers -------------------------------------------------------------------------------------

def _zk_failover(ev: Evidence, killed_ns: int) -> dict | None:
    """The ZooKeeper-mode failover after the kill: the event that noticed, the election won, the failover span."""
    zk = ev.runs["zk"]
    won = [s for s in elections_won(zk) if s.start_ns >= killed_ns
           and (s.attributes.get("kafka.controller.epoch") or 0) > ev.facts["zk_epoch"]]
    if not won:
        return None
    elect = won[0]
    trace = zk.where(trace_id=elect.trace_id)
    failover = trace.where(name="KafkaController.onControllerFailover")
    if "CT.failover.14" not in trace.steps() or not len(failover):
        return None
    root = event_root(zk, elect) or elect
    return {"elect": elect, "noticed": root, "failover": failover.first(), "new": broker_of(elect),
            "epoch": elect.attributes.get("kafka.controller.epoch")}


def _kraft_failover(ev: Evidence, killed_ns: int) -> dict | None:
    new = [c for c in raft_leaders(ev.spans, after_ns=killed_ns) if c.epoch > ev.facts["kraft_epoch"]]
    if not new:
        return None
    active = activation(ev.spans, new[0].node, new[0].at_ns)
    if active is None:
        return None
    timeouts = sorted((s for s in ev.spans.where(name="KafkaRaftClient.pollFollower") if s.start_ns >= killed_ns),
                      key=lambda s: s.start_ns)
    claims = [s for s in ev.spans.where(name="QuorumController.claim") if node_of(s) == new[0].node
              and s.start_ns >= new[0].at_ns]
    standing = {c.node for c in role_changes(ev.spans, after_ns=killed_ns) if c.role_to == "Candidate"
                and c.epoch == ev.facts["kraft_epoch"] + 1}
    return {"leader": new[0], "activation": active, "noticed": timeouts[0] if timeouts else new[0].span,
            "claim": claims[0] if claims else active, "new": new[0].node, "epoch": new[0].epoch,
            "split": len(standing) > 1}


def both_failed_over(ev: Evidence) -> Result:
    since, zk_old, kraft_old = ev.facts["action_ns"], ev.facts["zk_controller"], ev.facts["kraft_leader"]
    zk_line = cluster_line("kill", zk_old, {"run_dir": ev.facts["zk_run_dir"]})
    kraft_line = cluster_line("kill", kraft_old, ev.facts)
    zk_exits, kraft_exits = ev.exits_since(since, run="zk"), ev.exits_since(since)
    zk_killed = [e for e in zk_exits if e.broker_id == zk_old]
    kraft_killed = [e for e in kraft_exits if e.broker_id == kraft_old]
    wrong = [f"ZooKeeper-mode broker {e.broker_id}" for e in zk_exits if e.broker_id != zk_old] + \
        [f"KRaft node {e.broker_id}" for e in kraft_exits if e.broker_id != kraft_old]
    if wrong:
        return Result.failed(expected=f"the two controllers killed: broker {zk_old} (ZooKeeper mode) and controller "
                                      f"{kraft_old} (KRaft)", seen=f"{', '.join(wrong)} killed instead",
                             hint="That is another experiment; run the lesson again for a clean comparison.",
                             wait=False)
    if not zk_killed or not kraft_killed:
        missing = [line for line, killed in ((zk_line, zk_killed), (kraft_line, kraft_killed)) if not killed]
        return Result.failed(expected=f"broker {zk_old} (ZooKeeper mode) and controller {kraft_old} (KRaft) killed",
                             seen="still running: " + " and ".join(
                                 name for name, killed in ((f"broker {zk_old}", zk_killed),
                                                           (f"controller {kraft_old}", kraft_killed)) if not killed),
                             hint="run " + " and ".join(missing), wait=False)
    zk_kill, kraft_kill = zk_killed[-1].at_ns, kraft_killed[-1].at_ns
    zk, kraft = _zk_failover(ev, zk_kill), _kraft_failover(ev, kraft_kill)
    if zk is None or kraft is None:
        return Result.failed(
            expected="a working controller again in both clusters",
            seen=f"ZooKeeper mode: {'done' if zk else 'not yet'}; KRaft: {'done' if kraft else 'not yet'}",
            hint="ZooKeeper keeps a dead broker's session for up to zookeeper.session.timeout.ms (6 s); press Enter "
                 "in a moment.")
    zk_done, kraft_done = zk["failover"].end_ns, kraft["activation"].end_ns
    split = (": the vote split, both survivors stood at once, and a backoff and a second round followed (lesson `raft`)"
             if kraft["split"] else "")
    rows = ["| | ZooKeeper mode (Kafka 1.0.2) | KRaft (Kafka 3.9) |", "|---|---|---|",
            f"| killed | broker {zk_old} at {clock(zk_kill)} | controller {kraft_old} at {clock(kraft_kill)} |",
            f"| noticed | +{between(zk_kill, zk['noticed'].start_ns)}: the session expired, `/controller` went, "
            f"`{zk['noticed'].attributes.get('kafka.controller.event', 'Reelect')}` | "
            f"+{between(kraft_kill, kraft['noticed'].start_ns)}: a follower's fetch timeout (`pollFollower`) |",
            f"| elected | +{between(zk_kill, zk['elect'].start_ns)}: broker {zk['new']} created `/controller`, epoch "
            f"{zk['epoch']} | +{between(kraft_kill, kraft['leader'].at_ns)}: controller {kraft['new']} Leader of "
            f"epoch {kraft['epoch']} |",
            f"| working | **+{between(zk_kill, zk_done)}**: `onControllerFailover` done | "
            f"**+{between(kraft_kill, kraft_done)}**: `completeActivation` done |"]
    faster = "KRaft" if kraft_done - kraft_kill < zk_done - zk_kill else "ZooKeeper mode"
    explain = f"""
{chr(10).join(rows)}

{faster} had a working controller first. Most of each failover is waiting to notice: ZooKeeper expires a silent
session {ev.facts['zk_session_timeout_s']:g} s after its last heartbeat (on its next tick), the KRaft followers give a
silent leader 2 s from their last answered Fetch. Once noticed, the ZooKeeper-mode election and failover took
{between(zk['noticed'].start_ns, zk_done)}, the KRaft election and activation
{between(kraft['noticed'].start_ns, kraft_done)}{split}.
"""
    return Result.passed(explain, zk_failover_s=round((zk_done - zk_kill) / 1e9, 2),
                         kraft_failover_s=round((kraft_done - kraft_kill) / 1e9, 2), zk_new=zk["new"],
                         zk_new_trace=zk["elect"].trace_id, kraft_new=kraft["new"], kraft_killed_ns=kraft_kill)


def current_controllers(ev: Evidence) -> dict | None:
    """Each cluster's controller as its traces say now (an election may have happened since step 1)."""
    won, leader = controller(ev.runs.get("zk", Spans([]))), raft_leader(ev.spans)
    if won is None or leader is None:
        return None
    return {"zk_controller": broker_of(won), "zk_epoch": won.attributes.get("kafka.controller.epoch"),
            "kraft_leader": leader.node, "kraft_epoch": leader.epoch}


def faster_cluster(ev: Evidence) -> str:
    zk, kraft = ev.facts.get("zk_failover_s"), ev.facts.get("kraft_failover_s")
    if zk is None or kraft is None:
        return "b"
    return "b" if kraft < zk else "a"


kill = Step(
    title="kill -9 both controllers",
    about=("KafkaController.Reelect", "KafkaController.onControllerFailover", "KafkaRaftClient.pollFollower",
           "QuorumController.completeActivation"),
    text="""
Kill broker {zk_controller} of the ZooKeeper-mode cluster (its controller) and controller {kraft_leader} of the KRaft
cluster (its active controller), one right after the other. In ZooKeeper mode, `/controller` is an ephemeral znode:
it goes when ZooKeeper expires the dead broker's session, the survivor's watch turns that into a
`KafkaController.Reelect` event, and the winner of the election runs `KafkaController.onControllerFailover`
(lesson `controller`). In KRaft, a follower's `KafkaRaftClient.pollFollower` notices that its Fetch requests went
unanswered for the fetch timeout, the voters elect a new leader, and its `QuorumController.completeActivation`
makes it the active controller (lesson `raft`).
""",
    predict=Predict(
        question="Both controllers die within a second of each other. Which cluster has a working controller again "
                 "first?",
        choices={"a": "the ZooKeeper-mode cluster: ZooKeeper sees the broker's connection close at once",
                 "b": "the KRaft cluster: a 2 s fetch timeout against a 6 s session timeout",
                 "c": "neither: both wait for the same kind of timeout, of the same length"},
        answer=faster_cluster,
        why="""
Both detect death by silence, and the timeouts differ: ZooKeeper waits out the session timeout (6 s by default in
1.0.2, and a dead client's last heartbeat may have been up to a third of it earlier), a KRaft follower the fetch
timeout (2 s by default). Neither can be set very low without mistaking a long GC pause for a death: that trade-off
is the same in both worlds.
"""),
    prepare=current_controllers,
    action=Command("kafka-edu cluster kill {zk_controller} --run {zk_run_dir} && "
                   "kafka-edu cluster kill {kraft_leader} --run {run_dir}"),
    check=both_failed_over,
    wait_s=30,
)


# -- 3. What each new controller had to load -------------------------------------------------------------------------

def what_was_loaded(ev: Evidence) -> Result:
    zk = ev.runs["zk"]
    trace = zk.where(trace_id=ev.facts["zk_new_trace"])
    failover = trace.where(name="KafkaController.onControllerFailover").first()
    context = trace.where(step="CT.failover.05")
    if not len(context):
        return Result.failed(expected="the new ZooKeeper-mode controller's `initializeControllerContext`",
                             seen="not in its failover trace", hint="Report this run: CT.failover.05 is missing.",
                             wait=False)
    context = context.first()
    c = context.attributes
    new, killed = ev.facts["kraft_new"], ev.facts["kraft_killed_ns"]
    claim = [s for s in ev.spans.where(name="QuorumController.claim") if node_of(s) == new and s.start_ns >= killed]
    active = activation(ev.spans, new, killed)
    if not claim or active is None:
        return Result.failed(expected=f"controller {new}'s claim and activation", seen="not in the traces",
                             hint="Press Enter again in a moment.")
    first, last = ev.facts["topic_first"], ev.facts["topic_last"]
    before = [s for s in ev.spans.where(name="QuorumController.replay") if node_of(s) == new
              and s.attributes.get("kafka.controller.role") == "standby" and s.start_ns < killed]
    topic = _standby_replays(ev.spans, new, first, last)
    highest = max((s.attributes.get("kafka.raft.offset.last", -1) for s in before), default=-1)
    written = active.attributes.get("kafka.metadata.record.types", [])
    explain = f"""
**ZooKeeper mode:** broker {ev.facts['zk_new']}'s `onControllerFailover` took {took(failover.duration_ms)}
({ref(failover)}). Its `initializeControllerContext` (CT.failover.05, {took(context.duration_ms)}) read from
ZooKeeper the live brokers {c.get('kafka.brokers.live')}, {len(c.get('kafka.topics', []))} topic(s),
{c.get('kafka.partitions')} partition assignments and {c.get('kafka.partitions.with_leader_and_isr')} partition
states, one znode read after another: only then could it act. The cost grows with the cluster: the ZooKeeper-mode
benchmark (`docs/controller-failover-benchmark.md`) measured election plus failover at a median of 64, 199 and
1,437 ms for 10, 100 and 1,000 partitions.

**KRaft:** controller {new} went from `claim` to the end of `completeActivation` in
{between(claim[0].start_ns, active.end_ns)} ({ref(active)}), writing {', '.join(written) or 'no records'}
(`kafka.controller.log_was_empty` = {active.attributes.get('kafka.controller.log_was_empty')}). It read nothing: as a
standby it had replayed every committed batch, up to offset {highest} ({len(before)} of them held more than NoOps, and
are traced), `{TOPIC}`'s among them ({at(topic[0]) if topic else 'not traced'}). Its state was the old leader's, up to
the last committed record.

That is KIP-500's second claim: the failover's cost no longer depends on how much metadata there is. Its first claim
is step 2's table ({ev.facts['kraft_failover_s']} s against {ev.facts['zk_failover_s']} s here).
"""
    return Result.passed(explain)


load = Step(
    title="What each new controller had to load",
    about=("KafkaController.initializeControllerContext", "QuorumController.claim",
           "QuorumController.completeActivation"),
    text="""
Noticing is only half of a failover; the new controller must also know the cluster before it can decide anything.
Broker {zk_new} became the ZooKeeper-mode controller with an empty `ControllerContext`, which
`KafkaController.initializeControllerContext` fills from ZooKeeper. Controller {kraft_new} became the KRaft leader
after the whole lesson as a standby: `QuorumController.claim` takes the epoch and `completeActivation` writes what a
new active controller must write first. No action here: the check reads both failovers.
""",
    predict=Predict(
        question="How much metadata did the new KRaft controller read before it could act?",
        choices={"a": "all of it, from the other controllers, as initializeControllerContext reads ZooKeeper",
                 "b": "none: it had replayed every committed record while it was a standby",
                 "c": "the records written since the last snapshot, from its disk"},
        answer="b",
        why="""
A standby's `QuorumController` applies each committed batch in `handleCommit`, so its managers are always at the
high watermark it knows. `claim` only switches it to active and `completeActivation` writes nothing on a log that is
not empty. A snapshot matters when a controller *restarts* (it loads the latest one, then the log after it), not
when it takes over.
"""),
    check=what_was_loaded,
    wait_s=10,
)


LESSON = Lesson(
    name="zk-or-kraft",
    title="ZooKeeper or KRaft",
    summary="KIP-500's experiment, small: a ZooKeeper-mode cluster and a KRaft cluster with the same topic, kill -9 "
            "of each controller, the time to a working controller and what each new controller had to load, read "
            "from both runs' traces",
    minutes=10,
    intro=INTRO,
    setup=SETUP,
    mode="kraft",
    controllers=3,
    brokers=2,
    steps=[ready, kill, load],
    outro="""
One round is an anecdote: counted from the kill, a ZooKeeper session ends anywhere between about two thirds of its
timeout and a little more than all of it, depending on when its last heartbeat was, and a KRaft vote may split.
`kafka-edu mine failover-timeline` reads the controller changes of many runs of either kind with Spark
(`docs/mining.md`), and `benchmarks/kip500.py` runs the full experiment, with more partitions and more rounds.

This lesson's runs: the KRaft one in `{run_dir}`, the ZooKeeper-mode one in `{zk_run_dir}`.
""",
)
