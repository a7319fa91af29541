"""Lesson 3, the controller (seed 001, Kafka 1.0.2's kafka.controller): how one broker of three becomes the
controller, what it does on taking office, what a kill -9 of it costs, and how a clean stop moves leadership away
before a broker goes.

Read top to bottom: each step's checks come just before the step that uses them.
"""

from __future__ import annotations

from kafka_edu.lessons import Command, Evidence, Lesson, Predict, Result, Step
from kafka_edu.lessons.actions import cluster, cluster_line
from kafka_edu.lessons.traces import (
    at,
    became_leader,
    between,
    broker_of,
    clock,
    controller,
    event_root,
    events,
    leaders,
    on_broker,
    partition_list,
    ref,
    shutdowns,
    split_partition,
    started_after,
    startups,
    states_in,
    took,
    topic_created,
)

TOPIC = "lesson"
PARTITIONS = 6
REPLICATION_FACTOR = 3

INTRO = """
Every broker carries a `KafkaController`, but only one of them is *active* at a time: the broker whose name is in
the ephemeral ZooKeeper znode `/controller`. That broker decides who leads each partition, writes the decision to
ZooKeeper and tells the other brokers. In this lesson you watch the election happen, read the controller's first
minutes step by step, kill it, and then stop another broker cleanly to compare the two.

The source is `core/src/main/scala/kafka/controller/KafkaController.scala` (Kafka 1.0.2); the port is
`kafka_edu/v1_0_2/core/controller/kafka_controller.py`, and every step below names the span to look for.
"""

SETUP = """
The lesson starts ZooKeeper and three brokers with three settings spelled out:
`zookeeper.session.timeout.ms=6000` (1.0.2's default, so that the numbers you see compare with a stock broker),
`auto.leader.rebalance.enable=false` (leaders stay where failures put them, so each step starts from the last), and
`controlled.shutdown.retry.backoff.ms=500` (only so that the cluster stops quickly at the end).
"""


# -- 1. The race for /controller ---------------------------------------------------------------------------------

def one_broker_won(ev: Evidence) -> Result:
    elects = ev.spans.where(step="CT.elect")
    winner = controller(ev.spans)
    if winner is None:
        return Result.failed(
            expected="one broker's `KafkaController.elect` with kafka.controller.won = true",
            seen=f"{len(elects)} election(s) in the traces, none won yet",
            hint="The brokers elect a controller as they start; wait a moment and press Enter.")
    epoch = winner.attributes["kafka.controller.epoch"]
    rivals = [s for s in elects if s.attributes.get("kafka.controller.epoch") == epoch
              and s.attributes.get("kafka.controller.won") is True and s is not winner]
    if rivals:
        return Result.failed(
            expected=f"exactly one winner at controller epoch {epoch}",
            seen=f"{len(rivals) + 1} brokers won epoch {epoch}: {', '.join(ref(s) for s in [winner, *rivals])}",
            hint="Two winners of one epoch would be a bug in the port; please report it with the run directory.",
            wait=False)
    electing = {broker_of(s) for s in elects}
    missing = [b for b in ev.facts["broker_ids"] if b not in electing]
    if missing:
        return Result.failed(
            expected=f"a `KafkaController.elect` span on every broker ({ev.facts['broker_ids']})",
            seen=f"none yet on broker(s) {missing}",
            hint="Each broker elects as soon as its controller-event thread takes Startup; press Enter again.")
    first_round = [min(on_broker(elects, b), key=lambda s: s.start_ns) for b in ev.facts["broker_ids"]]
    losers = [s for s in first_round if s.attributes.get("kafka.controller.won") is False]
    spread = max(s.start_ns for s in first_round) - min(s.start_ns for s in first_round)
    won_by = broker_of(winner)
    lines = [f"Broker {won_by} won: its `KafkaController.elect` created `/controller` and went straight on to "
             f"`onControllerFailover`, which made the controller epoch {epoch} ({at(winner)}, "
             f"{took(winner.duration_ms)} including the failover)."]
    for s in losers:
        lines.append(f"Broker {broker_of(s)}'s `elect` took {took(s.duration_ms)} and found broker "
                     f"{s.attributes.get('kafka.controller.id')} already in `/controller` (`kafka.controller.won` = "
                     f"false, {at(s)}).")
    lines.append(f"The first elections of the {len(first_round)} brokers started within {took(spread / 1e6)} of each "
                 "other; ZooKeeper, not the brokers, decided the order.")
    return Result.passed("\n\n".join(lines), controller=won_by, epoch=epoch)


race = Step(
    title="Three brokers, one /controller",
    about=("KafkaController.startup", "KafkaController.Startup", "KafkaController.elect"),
    text="""
While each broker starts, `KafkaServer.startup` calls `KafkaController.startup` (LC.startup.12). That call does
almost nothing by itself: it puts a `Startup` event on the `ControllerEventManager`'s queue and starts the single
`controller-event-thread`. Everything the controller does happens on that thread, one event at a time (CT.event).

`Startup.process` (CT.startup.2) registers two ZooKeeper listeners, one for the broker's session expiring and one on
`/controller` (a change of its data becomes a `ControllerChange` event, its deletion a `Reelect` event), and then
calls `KafkaController.elect` (CT.elect). `elect` reads `/controller`; if it names a broker, there is nothing to do.
If not, it tries to create `/controller` as an **ephemeral** znode holding its broker id. ZooKeeper lets exactly
one create succeed; a broker that loses gets `NodeExists`, reads the winner's id and stops there.

The lesson has started the cluster: look at what the three elections left in the traces.
""",
    predict=Predict(
        question="The three brokers started within a second of each other. How many of them ran "
                 "`KafkaController.elect`?",
        choices={"a": "one: the first broker to start; the others saw /controller and never called elect",
                 "b": "all three: each one tries, and ZooKeeper lets one create /controller",
                 "c": "none: ZooKeeper itself appoints the controller"},
        answer="b",
        why="""
Every broker runs `elect`, because every broker's controller-event thread takes a `Startup` event. The losers'
`elect` spans are short: a read of `/controller` (or a failed create) and a return. They stay ready, though: the
listener each of them put on `/controller` is how they will hear that the controller is gone.
"""),
    check=one_broker_won,
    wait_s=20,
)


# -- 2. onControllerFailover, one step at a time -----------------------------------------------------------------

FAILOVER_STEPS = ["CT.failover.01", "CT.failover.02", "CT.failover.03", "CT.failover.04", "CT.failover.05",
                  "CT.failover.06", "CT.failover.07", "CT.failover.08", "CT.failover.09", "CT.failover.10",
                  "CT.failover.11", "CT.failover.12", "CT.failover.13", "CT.failover.14"]


def failover_in_order(ev: Evidence) -> Result:
    winner = controller(ev.spans)
    trace = ev.spans.where(trace_id=winner.trace_id)
    steps = trace.where(step="CT.failover")
    seen = steps.steps()
    if "CT.failover.14" not in seen:
        return Result.failed(expected="`onControllerFailover` finished, CT.failover.01 to .14 in one trace",
                             seen=f"so far: {', '.join(seen) or 'no failover step'}",
                             hint="The failover runs right after the election; press Enter again in a moment.")
    # CT.failover.10 (one partition listener per topic) is absent when there are no topics yet.
    expected = [s for s in FAILOVER_STEPS if s != "CT.failover.10" or "CT.failover.10" in seen]
    if seen != expected:
        return Result.failed(expected=f"the steps in 1.0.2's order: {', '.join(expected)}",
                             seen=f"{', '.join(seen)}", hint="Report this run: the port has left 1.0.2's order.",
                             wait=False)
    failover = trace.where(name="KafkaController.onControllerFailover").first()
    read = steps.where(step="CT.failover.01").first().attributes
    wrote = steps.where(step="CT.failover.02").first().attributes
    watches = steps.where(step="CT.failover.04")
    context = steps.where(step="CT.failover.05").first()
    rows = ["| step | span | took |", "|---|---|---:|"]
    for step in expected:
        spans = list(steps.where(step=step))
        name = f"`{spans[0].name}`" if len(spans) == 1 else f"{len(spans)} × `register*Listener`"
        rows.append(f"| {step} | {name} | {took(sum(s.duration_ms for s in spans))} |")
    slowest = max(steps, key=lambda s: s.duration_ms)
    known = context.attributes.get("kafka.brokers.live", [])
    later = [b for b in ev.facts["broker_ids"] if b not in known]
    late = (f"- Broker(s) {later} were not in `/brokers/ids` yet: a broker starts its controller (LC.startup.12) "
            f"before it registers itself (LC.startup.20), so they arrived afterwards as `BrokerChange` events.\n"
            if later else "")
    explain = f"""
Broker {broker_of(failover)}'s `onControllerFailover` ({at(failover)}) took {took(failover.duration_ms)}:

{chr(10).join(rows)}

- It read `/controller_epoch` as {read.get('kafka.controller.epoch')} (zkVersion
  {read.get('kafka.controller.epoch_zk_version')}) and wrote {wrote.get('kafka.controller.epoch')} only if the
  zkVersion was still {read.get('kafka.controller.epoch_zk_version')} (it became
  {wrote.get('kafka.controller.epoch_zk_version')}): two brokers that both think they won cannot both write an epoch.
- The {len(watches)} watches (CT.failover.04) were in place {between(watches.last().end_ns, context.start_ns)} before
  `initializeControllerContext` (CT.failover.05) read {len(context.attributes.get('kafka.brokers.live', []))} live
  brokers and {len(context.attributes.get('kafka.topics', []))} topic(s).
{late}- UpdateMetadata went out (CT.failover.07) before either state machine started (08, 09).
- The slowest step was `{slowest.name}` ({slowest.step}, {took(slowest.duration_ms)}).
"""
    return Result.passed(explain)


failover = Step(
    title="onControllerFailover, one step at a time",
    about=("KafkaController.onControllerFailover", "KafkaController.incrementControllerEpoch",
           "KafkaController.initializeControllerContext"),
    text="""
Winning `elect` is only the start. The winner calls `KafkaController.onControllerFailover`, which in 1.0.2 is a
fixed sequence, one span per FIDELITY row:

1. `readControllerEpochFromZookeeper` reads `/controller_epoch`, and `incrementControllerEpoch` writes it back plus
   one, only if its zkVersion has not changed meanwhile (CT.failover.01, .02);
2. delete stale log-dir events (.03) and register the controller's seven ZooKeeper watches: reassignments, ISR
   changes, preferred elections, topic changes, topic deletions, broker changes, log-dir events (.04);
3. `initializeControllerContext` reads the whole cluster into the `ControllerContext` and starts a request-send
   thread per broker (.05); topic deletions resume (.06); every broker gets an UpdateMetadata with the live brokers
   (.07);
4. start the replica state machine and the partition state machine (.08, .09): partitions whose leader is dead get
   a new one here;
5. watch each topic's partition count (.10), resume reassignments (.11) and deletions (.12), run pending preferred
   elections (.13), and start the controller's scheduler (.14).

Seed 001 quotes the method's doc comment, which still lists "register controller epoch changed listener" as the
first step. The 1.0.2 code does not register one, and the trace has no such span: trust the code over the comment.
""",
    predict=Predict(
        question="Which comes first: registering the watches (CT.failover.04) or reading the cluster from ZooKeeper "
                 "into the context (CT.failover.05)?",
        choices={"a": "the watches: a change made between the read and the watch would otherwise go unseen",
                 "b": "the read: there is nothing to watch until the context exists",
                 "c": "neither: both happen in one ZooKeeper multi-operation"},
        answer="a",
        why="""
A watch only reports changes made after it is set. Reading first would leave a window in which a broker could
register or a topic appear without the new controller ever hearing of it. Watching first means anything that
happens during the read also arrives as an event, queued behind the failover.
"""),
    check=failover_in_order,
    wait_s=20,
)


# -- 3. A topic, and who picks its leaders ---------------------------------------------------------------------

def topic_leaders_chosen(ev: Evidence) -> Result:
    ctrl = ev.facts["controller"]
    changes = topic_created(ev.spans, TOPIC)
    if not changes:
        events_seen = sorted({s.attributes.get("kafka.controller.event") for s in ev.since(ev.facts["action_ns"])
                              .where(step="CT.event")} - {None})
        return Result.failed(
            expected=f"a TopicChange event on the controller (broker {ctrl}) that names the new topic `{TOPIC}`",
            seen="no TopicChange has named it yet" + (f"; events since: {', '.join(events_seen)}" if events_seen
                                                      else ""),
            hint=f"create it with the command above ({PARTITIONS} partitions, replication factor "
                 f"{REPLICATION_FACTOR}); creating takes a second or two.")
    change = changes[-1]
    caused = ev.spans.with_linked_traces(change.trace_id)
    online = {(e.attributes["kafka.partition"]): e.attributes.get("kafka.leader")
              for _, e in events(caused, "partition.state.change")
              if e.attributes.get("kafka.topic") == TOPIC and e.attributes.get("to") == "OnlinePartition"}
    replicas: dict[int, set[int]] = {}
    for _, e in events(caused, "replica.state.change"):
        if e.attributes.get("kafka.topic") == TOPIC and e.attributes.get("to") == "NewReplica":
            replicas.setdefault(e.attributes["kafka.partition"], set()).add(e.attributes["kafka.replica"])
    shape = {len(r) for r in replicas.values()}
    if replicas and (len(replicas) != PARTITIONS or shape != {REPLICATION_FACTOR}):
        return Result.failed(
            expected=f"`{TOPIC}` with {PARTITIONS} partitions of {REPLICATION_FACTOR} replicas each",
            seen=f"{len(replicas)} partition(s) of {'/'.join(map(str, sorted(shape)))} replica(s)",
            hint=f"delete it (`kafka-edu topics --delete --topic {TOPIC} --bootstrap-server {{bootstrap}}`) and create "
                 "it again with the command above.", wait=False)
    if len(online) < PARTITIONS:
        return Result.failed(expected=f"all {PARTITIONS} partitions of `{TOPIC}` OnlinePartition",
                             seen=f"{len(online)} so far", hint="The controller is still at it; press Enter again.")
    request = next((s for link_trace, link_span in change.links
                    for s in ev.spans.where(trace_id=link_trace) if s.span_id == link_span), None)
    root = ev.spans.where(trace_id=request.trace_id, name="RequestChannel.Request").first() if request else None
    via = (f"Your CreateTopics request reached broker {broker_of(root)} ({ref(root)}); it wrote the assignment to "
           f"`/brokers/topics/{TOPIC}` and answered after {took(root.attributes.get('kafka.request.total_time_ms', 0))}"
           f", {took(root.attributes.get('kafka.request.remote_time_ms', 0))} of it waiting for the leaders to exist."
           ) if root else "The CreateTopics request's trace was not found (sampled away)."
    explain = f"""
{via}

The znode fired a watch on the controller, broker {broker_of(change)}: its `TopicChange` event
(`KafkaController.TopicChange.process`, {at(change)}, {took(change.duration_ms)}) is linked to that request.
`onNewPartitionCreation` moved {len(online)} partitions NonExistent → New → Online and
{sum(len(r) for r in replicas.values())} replicas New → Online, each as a `partition.state.change` or
`replica.state.change` event. A new partition's leader is the first live broker of its assignment:

{chr(10).join(f"- {TOPIC}-{p} → broker {leader} (replicas {sorted(replicas.get(p, []))})" for p, leader in
              sorted(online.items()))}

Then one LeaderAndIsr per broker (CT.channel) told each broker what it leads and what it follows.
"""
    return Result.passed(explain)


topic = Step(
    title="A topic: the controller picks the leaders",
    about=("KafkaController.TopicChange", "KafkaController.onNewPartitionCreation", "PartitionStateMachine"),
    text=f"""
To see the controller work you need partitions. Creating a topic is a request any broker can take
(`KafkaApis.handleCreateTopicsRequest`), but that broker does not decide anything: `AdminManager` only writes the
replica assignment under `/brokers/topics/<name>` in ZooKeeper. The `KafkaController` watches `/brokers/topics`;
the new child becomes a `TopicChange` event (CT.topic), and `onNewTopicCreation` → `onNewPartitionCreation` walks
every new partition through the `PartitionStateMachine` (NonExistent → New → Online) and every replica through the
`ReplicaStateMachine`.

Create a topic `{TOPIC}` with {PARTITIONS} partitions, each on all three brokers.
""",
    predict=Predict(
        question="Your request goes to one broker. Which broker chooses each partition's leader?",
        choices={"a": "the broker that received the CreateTopics request",
                 "b": "the controller, once ZooKeeper tells it about the new topic",
                 "c": "each partition's replicas, by voting among themselves"},
        answer="b",
        why="""
Leadership is always the controller's decision in ZooKeeper mode. The broker that took your request only wrote a
znode and waited; the controller heard of it through its watch, picked the leaders, wrote each partition's state
znode, and sent LeaderAndIsr to the brokers.
"""),
    action=Command(f"kafka-edu topics --create --topic {TOPIC} --partitions {PARTITIONS} "
                   f"--replication-factor {REPLICATION_FACTOR} --bootstrap-server {{bootstrap}}",
                   tui=f"press c and create `{TOPIC}` with {PARTITIONS} partitions, replication factor "
                       f"{REPLICATION_FACTOR}"),
    check=topic_leaders_chosen,
    wait_s=30,
)


# -- 4. kill -9 the controller --------------------------------------------------------------------------------------

def new_controller_after_kill(ev: Evidence) -> Result:
    old, epoch, since = ev.facts["controller"], ev.facts["epoch"], ev.facts["action_ns"]
    kill_command = cluster_line("kill", old, ev.facts)
    exits = ev.exits_since(since)
    killed = [e for e in exits if e.broker_id == old]
    if not exits:
        running = ", ".join(f"{b} (pid {pid})" for b, pid in sorted(ev.alive.items()) if pid)
        return Result.failed(
            expected=f"broker {old}'s process gone, then a new controller at epoch {epoch + 1}",
            seen=f"every broker is still running: {running}",
            hint=f"run {kill_command}: broker {old} is the controller", wait=False)
    if not killed:
        other = exits[-1].broker_id
        return Result.failed(
            expected=f"the controller, broker {old}, killed",
            seen=f"broker {other} was killed, and the controller is still broker {old} at epoch {epoch}: /controller "
                 f"moves only when the controller itself goes (broker {old} will hear of broker {other}'s death as "
                 f"a BrokerChange event once its session expires)",
            hint=f"start broker {other} again ({cluster_line('start', other, ev.facts)}), "
                 f"then run {kill_command}", wait=False)
    kill = killed[-1]
    won = [s for s in ev.spans.where(step="CT.elect") if s.start_ns >= kill.at_ns
           and s.attributes.get("kafka.controller.won") is True]
    if not won:
        return Result.failed(
            expected=f"a `KafkaController.elect` with won = true at epoch {epoch + 1} on a surviving broker",
            seen=f"broker {old}'s process ended at {clock(kill.at_ns)}; no election has been won since",
            hint=f"ZooKeeper keeps a silent session for up to zookeeper.session.timeout.ms "
                 f"({ev.facts['session_timeout_s']:g} s here); wait a few seconds and press Enter.")
    elect = won[0]
    new, new_epoch = broker_of(elect), elect.attributes.get("kafka.controller.epoch")
    trace = ev.spans.where(trace_id=elect.trace_id)
    if "CT.failover.14" not in trace.steps():
        return Result.failed(expected=f"broker {new}'s failover finished (CT.failover.14)",
                             seen="the failover is still running", hint="Press Enter again in a moment.")
    root = event_root(ev.spans, elect) or elect
    reelect = trace.where(step="CT.reelect")
    woke = (f"broker {new}'s `KafkaController.Reelect.process` ({at(reelect.first())}) began "
            f"{between(kill.at_ns, reelect.first().start_ns)} after the kill") if len(reelect) else \
        f"broker {new}'s `{root.attributes.get('kafka.controller.event')}` event ({ref(root)}) began"
    failover_span = trace.where(name="KafkaController.onControllerFailover").first()
    caused = ev.spans.with_linked_traces(elect.trace_id)
    moved = {(e.attributes["kafka.topic"], e.attributes["kafka.partition"]): e.attributes.get("kafka.leader")
             for _, e in events(caused, "partition.state.change")
             if e.attributes.get("from") == "OfflinePartition" and e.attributes.get("to") == "OnlinePartition"}
    served = {tp: became_leader(ev.spans, tp[0], tp[1], kill.at_ns) for tp in moved}
    waiting = [tp for tp, s in served.items() if s is None]
    if waiting:
        return Result.failed(expected="every partition broker {old} led served by its new leader",
                             seen=f"not yet for {partition_list(waiting)}",
                             hint="LeaderAndIsr is on its way; press Enter again.")
    end = max([s.end_ns for s in served.values()], default=failover_span.end_ns)
    others = [s for s in ev.spans.where(step="CT.elect") if s.start_ns >= kill.at_ns and s is not elect
              and s.start_ns < end]
    lines = [
        f"The lesson saw broker {old}'s process end at {clock(kill.at_ns)}. For the next "
        f"**{between(kill.at_ns, root.start_ns)}** nothing happened: ZooKeeper kept broker {old}'s session, and with "
        f"it the ephemeral `/controller`, until it had heard nothing from it for the session timeout "
        f"({ev.facts['session_timeout_s']:g} s).",
        f"When the session expired, `/controller` was deleted, and the watch put "
        f"`{root.attributes.get('kafka.controller.event')}` on the survivors' queues: {woke}.",
        f"Broker {new}'s `elect` won epoch {new_epoch}"
        + "".join(f"; broker {broker_of(s)}'s found broker {s.attributes.get('kafka.controller.id')} already there"
                  for s in others if s.attributes.get("kafka.controller.won") is False)
        + f". Its `onControllerFailover` took {took(failover_span.duration_ms)}.",
    ]
    if moved:
        lines.append(
            f"`PartitionStateMachine.startup` (CT.failover.09) found {len(moved)} partition(s) without a live leader "
            "(OfflinePartition) and gave each the first live replica of its ISR (`OfflinePartitionLeaderSelector`): "
            + ", ".join(f"{t}-{p} → broker {leader}" for (t, p), leader in sorted(moved.items()))
            + ". The last new leader was serving (`ReplicaManager.makeLeaders`, "
            + at(max(served.values(), key=lambda s: s.end_ns)) + f") {between(kill.at_ns, end)} after the kill.")
    lines.append(f"So the failover took **{between(kill.at_ns, end)}**, and "
                 f"**{between(kill.at_ns, root.start_ns)}** of it was ZooKeeper noticing the dead session.")
    return Result.passed("\n\n".join(lines), controller=new, epoch=new_epoch, old_controller=old,
                         failover_s=round((end - kill.at_ns) / 1e9, 2),
                         detection_s=round((root.start_ns - kill.at_ns) / 1e9, 2))


kill = Step(
    title="kill -9 the controller",
    about=("KafkaController.Reelect", "KafkaController.elect", "KafkaController.onControllerFailover",
           "OfflinePartitionLeaderSelector.selectLeader"),
    text="""
Broker {controller} is the controller now. Kill it without warning: no shutdown code runs, its sockets simply
close. The other brokers' `KafkaController`s are idle but listening: the listener on `/controller` that each
registered in `Startup` turns a deletion of the znode into a `Reelect` event (CT.reelect), which resigns if needed
and calls `elect` again. Whoever wins runs the whole `onControllerFailover` you just read, with a higher epoch, and
this time `PartitionStateMachine.startup` has real work: the partitions the dead broker led need new leaders, and
`OfflinePartitionLeaderSelector.selectLeader` (CT.select) picks each one from the live replicas in its ISR.
""",
    predict=Predict(
        question="How long after `kill -9` does another broker become controller?",
        choices={"a": "well under a second: the dead broker's TCP connections close at once",
                 "b": "about zookeeper.session.timeout.ms (6 s here): ZooKeeper must first give up on the session",
                 "c": "never, until broker {controller} is restarted"},
        answer="b",
        why="""
`/controller` is ephemeral: it lives exactly as long as the ZooKeeper session that created it. A process killed
with SIGKILL cannot close its session, so ZooKeeper keeps it until the session timeout passes without a heartbeat.
That wait dominates the failover; the election and the failover itself take milliseconds. Kafka 1.1 made the
failover part faster still (ZooKeeper calls became asynchronous and batched, KAFKA-5642), but the wait for the
session stays the same in every ZooKeeper-mode Kafka.
"""),
    action=cluster("kill", "controller"),
    check=new_controller_after_kill,
    wait_s=30,
)


# -- 5. The old controller comes back --------------------------------------------------------------------------------

def old_controller_rejoined(ev: Evidence) -> Result:
    old, ctrl, since = ev.facts["old_controller"], ev.facts["controller"], ev.facts["action_ns"]
    start_command = cluster_line("start", old, ev.facts)
    restarts = started_after(startups(ev.spans, old), since)
    if not restarts:
        if ev.alive.get(old):
            return Result.failed(expected=f"a new `KafkaServer.startup` trace from broker {old}",
                                 seen="its process runs but has not traced its startup yet",
                                 hint="Press Enter again in a moment.")
        return Result.failed(expected=f"broker {old} started again, with a new `KafkaServer.startup` trace",
                             seen=f"broker {old} is not running", hint=f"run {start_command}", wait=False)
    startup = restarts[-1]
    states = states_in(ev.spans, startup.trace_id)
    if "RunningAsBroker" not in states:
        return Result.failed(expected=f"broker {old} RunningAsBroker", seen=f"its states so far: {states}",
                             hint="It is still starting; press Enter again.")
    down = [b for b, pid in sorted(ev.alive.items()) if not pid]
    if down:
        return Result.failed(expected="all brokers running before the next step",
                             seen=f"broker(s) {down} not running",
                             hint=" and ".join(cluster_line("start", b, ev.facts)
                                               for b in down), wait=False)
    elects = started_after(on_broker(ev.spans.where(step="CT.elect"), old), startup.start_ns)
    joined = [s for s in started_after(on_broker(ev.spans.where(step="CT.broker"), ctrl), startup.start_ns)
              if old in s.attributes.get("kafka.brokers.new", [])]
    if not elects or not joined:
        return Result.failed(expected=f"broker {old}'s `elect` and a BrokerChange on controller {ctrl} naming it",
                             seen=f"{len(elects)} election(s), {len(joined)} BrokerChange(s) so far",
                             hint="Press Enter again in a moment.")
    elect = elects[0]
    if elect.attributes.get("kafka.controller.won") is True:
        return Result.failed(expected=f"broker {old} to lose: broker {ctrl} holds /controller",
                             seen=f"broker {old} won epoch {elect.attributes.get('kafka.controller.epoch')}",
                             hint="The controller changed again; this lesson expects the other controller to be "
                                  "alive. Run the lesson again from the start.", wait=False)
    led = [p for p, b in leaders(ev.spans, TOPIC).items() if b == old]
    explain = f"""
Broker {old} started again ({ref(startup)}, {took(startup.duration_ms)}), through {' → '.join(states)}:
`kill -9` left no clean-shutdown marker, so `LogManager` recovered its logs first (lesson `broker-life` looks at that).

Its `KafkaController.startup` queued `Startup` exactly as the first time, and its `elect` ({at(elect)}) read
`/controller`, found broker {elect.attributes.get('kafka.controller.id')} and returned after
{took(elect.duration_ms)}. Being controller once earns nothing: whoever holds `/controller` keeps it.

Its registration under `/brokers/ids` fired `BrokerChange` on controller {ctrl} ({at(joined[0])}, new =
{joined[0].attributes.get('kafka.brokers.new')}), and `onBrokerStartup` sent it UpdateMetadata and LeaderAndIsr for
its replicas. It now follows its partitions and leads {len(led)} of them: leadership only returns with a preferred
replica election, and automatic rebalancing is off in this lesson.
"""
    return Result.passed(explain)


restart = Step(
    title="The old controller comes back",
    about=("KafkaController.elect", "KafkaController.BrokerChange", "KafkaController.onBrokerStartup"),
    text="""
Start broker {old_controller} again. It goes through `KafkaServer.startup` like any broker, so its `KafkaController`
gets a `Startup` event and calls `elect` once more. Meanwhile the controller, broker {controller}, has a watch on
`/brokers/ids`: when the restarted broker registers there (`KafkaHealthcheck.startup`, LC.startup.20), the watch
becomes a `BrokerChange` event (CT.broker), and `onBrokerStartup` brings the broker's replicas online.
""",
    predict=Predict(
        question="Broker {old_controller} restarts. Does it become the controller again?",
        choices={"a": "yes: it was the controller before, so it takes the role back",
                 "b": "no: its `elect` finds broker {controller} in /controller and stops",
                 "c": "yes: the epoch it stored on disk is what decides"},
        answer="b",
        why="""
There is no priority and no memory in the election: the epoch lives in ZooKeeper (`/controller_epoch`), not on the
broker's disk, and `elect` only ever creates `/controller` when nobody holds it. A controller keeps its office
until its session ends or it resigns.
"""),
    action=cluster("start", "old_controller"),
    check=old_controller_rejoined,
    wait_s=45,
)


# -- 6. Controlled shutdown: leadership moves first -------------------------------------------------------------

def pick_broker_to_stop(ev: Evidence) -> dict | None:
    """The broker, other than the controller, that leads the most partitions of the topic."""
    ctrl = ev.facts["controller"]
    led: dict[int, list[int]] = {}
    for partition, broker in leaders(ev.spans, TOPIC).items():
        if broker != ctrl and ev.alive.get(broker):
            led.setdefault(broker, []).append(partition)
    if not led:
        return None
    victim = max(sorted(led), key=lambda b: len(led[b]))
    return {"victim": victim, "victim_led": partition_list((TOPIC, p) for p in led[victim]),
            "victim_count": len(led[victim])}


def leadership_moved_first(ev: Evidence) -> Result:
    victim, ctrl, since = ev.facts["victim"], ev.facts["controller"], ev.facts["action_ns"]
    stop_command = cluster_line("stop", victim, ev.facts)
    stopped = started_after(shutdowns(ev.spans, victim), since)
    if not stopped:
        others = [s for s in ev.since(since).where(name="KafkaServer.shutdown") if broker_of(s) != victim]
        victim_exit = [e for e in ev.exits_since(since) if e.broker_id == victim]
        if others:
            other = broker_of(others[-1])
            return Result.failed(
                expected=f"broker {victim} stopped, the broker that leads {ev.facts['victim_led']}",
                seen=f"broker {other} was stopped instead",
                hint=f"start it again ({cluster_line('start', other, ev.facts)}), then run "
                     f"{stop_command}", wait=False)
        if victim_exit:
            return Result.failed(
                expected=f"a `KafkaServer.shutdown` trace from broker {victim} (SIGTERM)",
                seen=f"broker {victim}'s process ended without one: it was killed, so no shutdown code ran",
                hint=f"start it again ({cluster_line('start', victim, ev.facts)}), then stop it "
                     f"with {stop_command}", wait=False)
        pending = [s for s in on_broker(ev.since(since).where(name="BrokerState.newState"), victim)
                   if s.attributes.get("kafka.broker.state.to") == "PendingControlledShutdown"]
        return Result.failed(expected=f"a `KafkaServer.shutdown` trace from broker {victim}",
                             seen=f"broker {victim} is shutting down" if pending else f"broker {victim} is still "
                             "running, with no shutdown in its traces", hint=f"run {stop_command}",
                             wait=bool(pending) or not ev.alive.get(victim))
    shutdown = stopped[-1]
    trace = ev.spans.where(trace_id=shutdown.trace_id)
    asked = trace.where(step="LC.shutdown.02")
    shutting_down = trace.where(step="LC.shutdown.03")
    decided = [s for s in started_after(on_broker(ev.spans.where(step="CT.shutdown"), ctrl), since)
               if s.attributes.get("kafka.shutdown.broker.id") == victim]
    if not len(asked) or not len(shutting_down) or not decided:
        return Result.failed(expected=f"broker {victim}'s controlled shutdown (LC.shutdown.02) and the controller's "
                                      "ControlledShutdown event (CT.shutdown)",
                             seen=f"steps so far: {', '.join(trace.steps())}", hint="Press Enter again in a moment.")
    asked, shutting_down, decision = asked.first(), shutting_down.first(), decided[0]
    if asked.attributes.get("kafka.controlled_shutdown.succeeded") is not True:
        return Result.failed(expected="the controller to answer with no partitions remaining",
                             seen=f"the controlled shutdown failed ({ref(asked)})",
                             hint="Every broker was running before you stopped this one? Run the lesson again.",
                             wait=False)
    moved_out = [split_partition(p) for p in decision.attributes.get("kafka.partitions.led", [])]
    caused = ev.spans.with_linked_traces(decision.trace_id)
    selected = {(s.attributes["kafka.topic"], s.attributes["kafka.partition"]): s.attributes.get("kafka.leader")
                for s in caused.where(name="ControlledShutdownLeaderSelector.selectLeader")}
    applied = {tp: became_leader(ev.spans, tp[0], tp[1], since) for tp in selected}
    pending = [tp for tp, s in applied.items() if s is None]
    if pending:
        return Result.failed(expected="the new leaders to apply the move",
                             seen=f"not yet for {partition_list(pending)}", hint="Press Enter again in a moment.")
    last_applied = max((s.end_ns for s in applied.values()), default=decision.end_ns)
    gap = (shutting_down.start_ns - last_applied) / 1e6
    applied_when = (f"{took(gap)} before broker {victim} entered BrokerShuttingDown" if gap >= 0
                    else f"{took(-gap)} after broker {victim} entered BrokerShuttingDown (1.0.2's controller answers "
                         "once it has decided and queued LeaderAndIsr, without waiting for the brokers to apply it)")
    followed = decision.attributes.get("kafka.partitions.followed", [])
    explain = f"""
`KafkaServer.shutdown` on broker {victim} ({at(shutdown)}) began with `controlledShutdown` (LC.shutdown.02): the
broker went to PendingControlledShutdown and asked controller {ctrl} to move its leadership
({took(asked.duration_ms)} in all).

The controller's `ControlledShutdown` event (`KafkaController.ControlledShutdown.process`, {at(decision)},
{took(decision.duration_ms)}) gave each partition broker {victim} led to another replica still in
its ISR (`ControlledShutdownLeaderSelector`): {', '.join(f"{t}-{p} → broker {b}" for (t, p), b in
sorted(selected.items())) or 'none'}, and took broker {victim} out of the ISR of the {len(followed)} partition(s) it
only followed. It answered with no partitions remaining.

Only then did broker {victim} go to BrokerShuttingDown (LC.shutdown.03, {between(decision.end_ns,
shutting_down.start_ns)} after the controller's decision) and stop its components. The new leaders applied the move
{applied_when}. {len(moved_out)} partition(s) changed leader with no session timeout in between; the kill in
step 4 left partitions leaderless for {ev.facts.get('failover_s', '?')} s.
"""
    return Result.passed(explain)


controlled = Step(
    title="A clean stop moves leadership first",
    about=("KafkaServer.controlledShutdown", "KafkaController.ControlledShutdown",
           "ControlledShutdownLeaderSelector.selectLeader"),
    text="""
A SIGTERM runs `KafkaServer.shutdown`, and its first real step is `KafkaServer.controlledShutdown`
(LC.shutdown.02): the broker switches to PendingControlledShutdown and sends a ControlledShutdown request to the
broker named in `/controller`, retrying up to `controlled.shutdown.max.retries` times. On the controller the request
becomes a `KafkaController.ControlledShutdown` event (CT.shutdown): for every partition the broker leads,
`ControlledShutdownLeaderSelector.selectLeader` picks another replica from the ISR; for every partition it only
follows, the replica goes OfflineReplica and leaves the ISR. The answer lists the partitions that could not be
moved; only when none remain does the broker carry on with BrokerShuttingDown and the rest of its shutdown.

Broker {victim} leads {victim_led}. Stop it cleanly.
""",
    prepare=pick_broker_to_stop,
    predict=Predict(
        question="Broker {victim} leads {victim_count} partition(s). You stop it with SIGTERM. When do they get a "
                 "new leader?",
        choices={"a": "after zookeeper.session.timeout.ms, as with the kill",
                 "b": "before the broker starts shutting its components down: it asks the controller first",
                 "c": "only when broker {victim} comes back"},
        answer="b",
        why="""
A clean stop does not wait for ZooKeeper to notice anything: the broker tells the controller itself, and the
controller moves leadership while the broker can still serve. That is why operators stop brokers with SIGTERM and
why `controlled.shutdown.enable` defaults to true. (In later versions the request also carries the broker's epoch,
KIP-380, so a controller can ignore a request from an earlier incarnation of the same broker.)
"""),
    action=cluster("stop", "victim"),
    check=leadership_moved_first,
    wait_s=45,
)


LESSON = Lesson(
    name="controller",
    title="The controller: one broker in charge",
    summary="the /controller race, onControllerFailover step by step, kill -9 of the controller and a new epoch, "
            "controlled shutdown moving leadership away first",
    minutes=20,
    seed="001",
    intro=INTRO,
    setup=SETUP,
    brokers=3,
    overrides=("zookeeper.session.timeout.ms=6000", "auto.leader.rebalance.enable=false",
               "controlled.shutdown.retry.backoff.ms=500"),
    steps=[race, failover, topic, kill, restart, controlled],
    outro="""
You have seen the controller's whole life in ZooKeeper mode: won by an ephemeral znode, started by a fixed
failover sequence, lost only when its ZooKeeper session ends, and asked politely to move leadership by a broker that
stops cleanly. The failover in step 4 took {failover_s} s, of which {detection_s} s was the session timeout.

To go further: `kafka-edu tui --run {run_dir}` replays this run; `kafka-edu mine failover-timeline` measures
failovers over many runs; lesson `replication` follows a partition's ISR as replicas leave and return. KRaft
(Kafka 3.x, seed 002) replaces all of this with a Raft quorum of controllers, and Kafka 4 removes ZooKeeper mode.
""",
)
