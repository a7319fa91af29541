"""Lesson 4, replication (Kafka 1.0.2's kafka.cluster.Partition, ReplicaManager and the replica fetchers): what
acks=all waits for, how a leader drops a stalled follower from the ISR, what min.insync.replicas then refuses, and
how the follower earns its place back.

Read top to bottom: each step's checks come just before the step that uses them.
"""

from __future__ import annotations

from kafka_edu.lessons import Command, Evidence, Lesson, Predict, Result, Step
from kafka_edu.lessons.actions import cluster, cluster_line
from kafka_edu.lessons.traces import (
    at,
    between,
    broker_of,
    clock,
    controller,
    events,
    on_broker,
    ref,
    started_after,
    took,
    topic_created,
)
from kafka_edu.tracing.query import SpanRecord, Spans

TOPIC = "ledger"
PARTITIONS = 3
MIN_ISR = 2
LAG_MS = 3000

INTRO = """
A partition's leader keeps a list of the replicas that are keeping up with it, the in-sync replicas (ISR). That list
decides two things: when a write with `acks=all` counts as done, and who may become leader if this one dies. In this
lesson you write with `acks=all`, freeze a follower, watch the leader take it out of the ISR, see a write refused
because too few replicas are left, and let the follower back in.

The source is `core/src/main/scala/kafka/cluster/Partition.scala`, `kafka/server/ReplicaManager.scala` and
`ReplicaFetcherThread.scala` (Kafka 1.0.2); the port is `kafka_edu/v1_0_2/core/cluster/partition.py`,
`kafka_edu/v1_0_2/core/server/replica_manager.py` and `replica_fetcher_thread.py`.
"""

SETUP = f"""
The lesson starts ZooKeeper and three brokers with `min.insync.replicas={MIN_ISR}` (an acks=all write needs two
copies), `replica.lag.time.max.ms={LAG_MS}` (Kafka's default is 10000; shorter, so the lesson does not keep you
waiting), `zookeeper.session.timeout.ms=30000` (a frozen broker keeps its ZooKeeper registration while you work, so
what you see is the leader's doing, not the controller's), and `auto.leader.rebalance.enable=false`.
"""


def partition_replicas(spans: Spans, topic: str) -> dict[int, tuple[int | None, list[int]]]:
    """Partition -> (its first leader, its replicas), from the controller's state changes when the topic was made."""
    made = topic_created(spans, topic)
    if not made:
        return {}
    caused = spans.with_linked_traces(made[-1].trace_id)
    replicas: dict[int, list[int]] = {}
    for _, e in events(caused, "replica.state.change"):
        if e.attributes.get("kafka.topic") == topic and e.attributes.get("to") == "NewReplica":
            replicas.setdefault(e.attributes["kafka.partition"], []).append(e.attributes["kafka.replica"])
    leaders = {e.attributes["kafka.partition"]: e.attributes.get("kafka.leader")
               for _, e in events(caused, "partition.state.change")
               if e.attributes.get("kafka.topic") == topic and e.attributes.get("to") == "OnlinePartition"}
    return {p: (leaders.get(p), sorted(r)) for p, r in sorted(replicas.items())}


def isr_changes(spans: Spans, topic: str, partition: int, since_ns: int) -> list[tuple[SpanRecord, list, list]]:
    """(span, ISR before, ISR after) for each ISR change the leader wrote for the partition since `since_ns`."""
    return [(s, e.attributes.get("kafka.isr.from", []), e.attributes.get("kafka.isr.to", []))
            for s, e in events(started_after(spans.where(name="Partition.updateIsr"), since_ns), "isr.change")
            if s.attributes.get("kafka.topic") == topic and s.attributes.get("kafka.partition") == partition]


# -- 1. A topic whose followers we can freeze ---------------------------------------------------------------------

def replicas_known(ev: Evidence) -> Result:
    won = controller(ev.spans)
    placed = partition_replicas(ev.spans, TOPIC)
    if not placed:
        return Result.failed(expected=f"topic `{TOPIC}` created: a TopicChange event on the controller",
                             seen="no TopicChange has named it", hint="run the command above")
    if len(placed) != PARTITIONS or any(len(r) != 2 for _, r in placed.values()):
        return Result.failed(expected=f"{PARTITIONS} partitions of 2 replicas each",
                             seen=", ".join(f"{TOPIC}-{p}: replicas {r}" for p, (_, r) in placed.items()),
                             hint=f"delete it (`kafka-edu topics --delete --topic {TOPIC} --bootstrap-server "
                                  "{bootstrap}`) and run the command above again", wait=False)
    ctrl = broker_of(won)
    chosen = next(((p, leader, r) for p, (leader, r) in placed.items() if ctrl not in r), None)
    if chosen is None or chosen[1] is None:
        return Result.failed(expected=f"a partition of `{TOPIC}` whose replicas leave out the controller",
                             seen=", ".join(f"{TOPIC}-{p}: replicas {r}" for p, (_, r) in placed.items()),
                             hint="Press Enter again in a moment.")
    partition, leader, replicas = chosen
    follower = next(b for b in replicas if b != leader)
    rows = "\n".join(f"- `{TOPIC}-{p}`: replicas {r}, leader broker {leader_}" + (" ← this lesson's" if p == partition
                                                                                 else "")
                     for p, (leader_, r) in placed.items())
    explain = f"""
The controller (broker {ctrl}) placed the replicas and picked each first leader:

{rows}

Each partition starts with all its replicas in the ISR. The rest of the lesson works on `{TOPIC}-{partition}`: its
leader is broker {leader}, its follower broker {follower}, and the controller, broker {ctrl}, is not one of them, so
freezing the follower will not also freeze the controller.
"""
    return Result.passed(explain, partition=partition, leader=leader, follower=follower, controller=ctrl)


topic = Step(
    title="Three partitions, two replicas each",
    about=("Partition.makeLeader", "Partition.makeFollower", "ReplicaFetcherThread"),
    text=f"""
Create `{TOPIC}` with {PARTITIONS} partitions and two replicas each. For every partition the controller sends
LeaderAndIsr: on the leader, `Partition.makeLeader` sets the ISR to all replicas; on the follower,
`Partition.makeFollower` truncates its log to the high watermark and starts a `ReplicaFetcherThread` that fetches
from the leader, over and over, like a consumer with a broker's id.
""",
    action=Command(f"kafka-edu topics --create --topic {TOPIC} --partitions {PARTITIONS} --replication-factor 2 "
                   "--bootstrap-server {bootstrap}"),
    check=replicas_known,
    wait_s=30,
)


# -- 2. acks=all ------------------------------------------------------------------------------------------------------

def acks_all_waited(ev: Evidence) -> Result:
    since, partition, leader, follower = (ev.facts[k] for k in ("action_ns", "partition", "leader", "follower"))
    appends = [s for s in started_after(ev.spans.where(step="NW.log.append"), since)
               if s.attributes.get("kafka.topic") == TOPIC and s.attributes.get("kafka.partition") == partition]
    if not appends:
        return Result.failed(expected=f"an acks=all produce appended to `{TOPIC}-{partition}` on broker {leader}",
                             seen="none since this step began", hint="run the kcat command above")
    append = appends[-1]
    roots = ev.spans.where(trace_id=append.trace_id, name="RequestChannel.Request")
    produce = ev.spans.where(trace_id=append.trace_id, step="NW.apis.produce")
    if not len(roots) or not len(produce):
        return Result.failed(expected="the whole produce request in the traces", seen="only part of it yet",
                             hint="Press Enter again in a moment.")
    root, acks = roots.first(), produce.first().attributes.get("kafka.produce.acks")
    if acks != -1:
        return Result.failed(expected="a produce with acks=all (-1)", seen=f"acks={acks}",
                             hint="run the command as printed, with -X acks=all", wait=False)
    answered = ev.spans.where(trace_id=root.trace_id, step="NW.channel.resp")
    remote_ms = root.attributes.get("kafka.request.remote_time_ms", 0)
    answered_by = answered.first().attributes.get("thread.name", "?") if len(answered) else "?"
    fetched = [s for s in on_broker(ev.spans.where(name="AbstractFetcherThread.processFetchRequest"), follower)
               if append.start_ns <= s.start_ns <= root.end_ns]
    copied = (f"The follower, broker {follower}, fetched the record and wrote it to its own log at "
              f"+{(fetched[0].start_ns - root.start_ns) / 1e6:.1f} ms (`AbstractFetcherThread.processFetchRequest`, "
              f"{at(fetched[0])}, thread `{fetched[0].attributes.get('thread.name')}`). " if fetched else "")
    explain = f"""
Your produce ({ref(root)}) was appended by the leader at offset {append.attributes.get('kafka.offset.first')}
(+{(append.start_ns - root.start_ns) / 1e6:.1f} ms), and then waited {took(remote_ms)} in the produce purgatory
(Kafka's RemoteTimeMs): `ReplicaManager.appendRecords` had parked it as a `DelayedProduce`, which completes only once
the high watermark passes the record.

{copied}The follower's next Fetch started from the new offset; handling it told the leader that broker {follower}
had the record, the high watermark moved, and the waiting produce was answered: `RequestChannel.sendResponse` ran on
`{answered_by}` at +{(answered.first().start_ns - root.start_ns) / 1e6:.1f} ms, the thread that was handling the
follower's Fetch, not the one that took your produce.
""" if len(answered) else ""
    return Result.passed(explain.strip() or f"Your produce ({ref(root)}) was answered.")


acks_all = Step(
    title="What acks=all waits for",
    about=("ReplicaManager.appendRecords", "DelayedProduce", "Partition.maybeIncrementLeaderHW"),
    text="""
A produce with `acks=all` (-1) is appended to the leader's log like any other, but `ReplicaManager.appendRecords`
does not answer it yet: it parks a `DelayedProduce` in the produce purgatory, keyed by the partition. Followers
fetch; each fetch tells the leader how far that follower's log goes, and `Partition.maybeIncrementLeaderHW` moves
the high watermark to the smallest log end among the ISR. When the high watermark passes the record, the delayed
produce completes, and only then does the client hear back.

Write one record with acks=all to partition {partition}, whose leader is broker {leader}.
""",
    predict=Predict(
        question="With acks=all, when does the leader answer your produce?",
        choices={"a": "as soon as the record is in its own log",
                 "b": "once every replica in the ISR has the record: the high watermark has passed it",
                 "c": "once every replica has flushed the record to disk"},
        answer="b",
        why="""
acks=all means "in the log of every replica in the ISR", which the leader learns from the followers' fetches. It says
nothing about disks: Kafka 1.0.2 leaves flushing to the operating system, and relies on copies on several machines
instead.
"""),
    action=Command(f'echo "first entry" | kcat -P -b {{bootstrap}} -t {TOPIC} -p {{partition}} -X acks=all'),
    check=acks_all_waited,
    wait_s=30,
)


# -- 3. A follower stops fetching ------------------------------------------------------------------------------------

def follower_dropped(ev: Evidence) -> Result:
    since, partition, leader, follower = (ev.facts[k] for k in ("action_ns", "partition", "leader", "follower"))
    frozen = [p for p in ev.pauses_since(since) if p.broker_id == follower and not p.resumed]
    if not frozen:
        others = [p for p in ev.pauses_since(since) if not p.resumed]
        if others:
            return Result.failed(expected=f"broker {follower}, the follower of `{TOPIC}-{partition}`, paused",
                                 seen=f"broker {others[-1].broker_id} was paused instead",
                                 hint=f"resume it ({cluster_line('resume', others[-1].broker_id, ev.facts)}), then "
                                      f"run {cluster_line('pause', follower, ev.facts)}", wait=False)
        return Result.failed(expected=f"broker {follower} paused (SIGSTOP)", seen="no broker has been paused",
                             hint=f"run {cluster_line('pause', follower, ev.facts)}", wait=False)
    pause = frozen[-1]
    shrunk = [(s, before, after) for s, before, after in isr_changes(ev.spans, TOPIC, partition, pause.at_ns)
              if follower in before and follower not in after]
    if not shrunk:
        return Result.failed(expected=f"the leader, broker {leader}, to shrink the ISR of `{TOPIC}-{partition}`",
                             seen=f"broker {follower} froze at {clock(pause.at_ns)}; no shrink yet",
                             hint=f"the leader waits replica.lag.time.max.ms ({LAG_MS} ms) and checks every half of "
                                  "it; press Enter again in a few seconds")
    update, before, after = shrunk[0]
    shrink = ev.spans.where(trace_id=update.trace_id, name="Partition.maybeShrinkIsr")
    notified = [s for s in started_after(on_broker(ev.spans.where(name="ReplicaManager.maybePropagateIsrChanges"),
                                                   leader), update.start_ns)
                if f"{TOPIC}-{partition}" in s.attributes.get("kafka.partitions", [])]
    told = (f" The change then reached the controller: `ReplicaManager.maybePropagateIsrChanges` ({at(notified[0])}) "
            f"wrote `{notified[0].attributes.get('kafka.zk.path')}` {between(update.start_ns, notified[0].start_ns)} "
            "later (the leader batches these), and the controller's `IsrChangeNotification` event sent every broker "
            "an UpdateMetadata with the new ISR." if notified else "")
    explain = f"""
Broker {follower} froze at the moment the lesson saw it stop. Its `ReplicaFetcherThread` stopped asking, so the
leader's record of when the follower was last caught up stopped moving.

{between(pause.at_ns, update.start_ns)} later, the leader's ISR-expiration task found it behind for more than
`replica.lag.time.max.ms` ({LAG_MS} ms): `Partition.maybeShrinkIsr` ({at(shrink.first()) if len(shrink) else
at(update)}) took the ISR from {before} to {after}, and `Partition.updateIsr` wrote it to the partition's state znode
with a conditional update (the `isr.change` event, zkVersion {update.attributes.get('kafka.zk.version')} → the next).
{told}

ZooKeeper, meanwhile, noticed nothing: the frozen broker's session (30 s here) has not expired, so as far as the
controller knows it is alive. Staying in the ISR takes more than being alive.
"""
    return Result.passed(explain, paused_at_ns=pause.at_ns, shrunk_at_ns=update.start_ns)


freeze = Step(
    title="A follower stops fetching",
    about=("Partition.maybeShrinkIsr", "Partition.updateIsr", "ReplicaManager.maybePropagateIsrChanges"),
    text=f"""
Freeze the follower, broker {{follower}}, with SIGSTOP (`kafka-edu cluster pause`; the TUI's `p`): the process stops
dead, as in a long garbage-collection pause, but its sockets stay open and nothing tells anyone it is gone.

The leader runs an ISR-expiration task every `replica.lag.time.max.ms / 2`. For each partition it leads,
`Partition.maybeShrinkIsr` drops the followers that have not been fully caught up for `replica.lag.time.max.ms`
({LAG_MS} ms here); `Partition.updateIsr` writes the new ISR to ZooKeeper, and
`ReplicaManager.maybePropagateIsrChanges` tells the controller, in batches.
""",
    predict=Predict(
        question="How long after the freeze does the leader drop broker {follower} from the ISR?",
        choices={"a": "at once: the leader notices the missing fetch",
                 "b": f"about replica.lag.time.max.ms ({LAG_MS / 1000:g} s), plus up to half of it until the next "
                      "check",
                 "c": "only once ZooKeeper expires the frozen broker's session (30 s)"},
        answer="b",
        why="""
The leader does not track fetches one by one: it remembers when each follower was last fully caught up and checks
periodically. A follower is out once that moment is older than `replica.lag.time.max.ms`; slow or stuck, it is the
same rule (Kafka 0.9 replaced the older rule that also counted messages behind, KIP-16).
"""),
    action=cluster("pause", "follower"),
    check=follower_dropped,
    wait_s=30,
)


# -- 4. Below min.insync.replicas -------------------------------------------------------------------------------------

def acks_all_refused(ev: Evidence) -> Result:
    since, partition, leader, follower = (ev.facts[k] for k in ("action_ns", "partition", "leader", "follower"))
    roots = [r for r in started_after(on_broker(ev.spans.where(name="RequestChannel.Request"), leader), since)
             if r.attributes.get("kafka.api.name") == "Produce"]
    produced = []
    for root in roots:
        trace = ev.spans.where(trace_id=root.trace_id)
        acks = trace.where(step="NW.apis.produce")
        if len(acks):
            produced.append((root, acks.first().attributes.get("kafka.produce.acks"),
                             trace.where(step="NW.log.append")))
    refused = [(r, a) for r, a, appended in produced if a == -1 and not len(appended)]
    accepted_all = [(r, a) for r, a, appended in produced if a == -1 and len(appended)]
    accepted_one = [(r, ap) for r, a, ap in produced if a == 1 and len(ap)]
    if accepted_all and not refused:
        return Result.failed(expected="the acks=all produce refused",
                             seen=f"it was written ({ref(accepted_all[-1][0])}): the ISR had two replicas again",
                             hint=f"pause broker {follower} again ({cluster_line('pause', follower, ev.facts)}), "
                                  "wait for the shrink, and run the commands again", wait=False)
    if not refused or not accepted_one:
        return Result.failed(expected="an acks=all produce refused and an acks=1 produce written",
                             seen=f"{len(refused)} refused, {len(accepted_one)} written with acks=1 so far",
                             hint="run both commands above (the first one is meant to fail)")
    shrunk = isr_changes(ev.spans, TOPIC, partition, ev.facts.get("paused_at_ns", 0))
    isr = shrunk[-1][2] if shrunk else [leader]
    written = accepted_one[-1][1].first()
    explain = f"""
{len(refused)} acks=all produce request(s) reached the leader ({ref(refused[0][0])}), and none of their traces has a
`Log.append`: `Partition.appendRecordsToLeader` compared the ISR, {isr}, with `min.insync.replicas` ({MIN_ISR}),
refused before writing anything, and the client got NOT_ENOUGH_REPLICAS (error 19). Refusing up front is the point:
the record is not in the log, so no one can ever read a write that was not acknowledged.

The acks=1 produce ({ref(accepted_one[-1][0])}) was written at offset {written.attributes.get('kafka.offset.first')}
and acknowledged at once: `min.insync.replicas` only binds acks=all. That record has one copy until the follower
returns; if broker {leader} died now, it could be lost.
"""
    return Result.passed(explain)


refuse = Step(
    title="Below min.insync.replicas",
    about=("Partition.appendRecordsToLeader", "NotEnoughReplicasException"),
    text=f"""
The ISR of partition {{partition}} is the leader alone now, and the brokers run with
`min.insync.replicas={MIN_ISR}`. Before it appends an acks=all batch, `Partition.appendRecordsToLeader` checks the
size of the ISR against that minimum and throws `NotEnoughReplicasException` when it is smaller.

Send one record with acks=all (kcat is told not to retry, so that you see the error at once), then one with acks=1.
The first command is meant to fail.
""",
    predict=Predict(
        question=f"The ISR is the leader alone and min.insync.replicas is {MIN_ISR}. What happens to the acks=all "
                 "produce?",
        choices={"a": "it is written and waits in purgatory until the follower is back",
                 "b": "it is refused before being written: NOT_ENOUGH_REPLICAS",
                 "c": "it is written and acknowledged: one copy is better than none"},
        answer="b",
        why=f"""
With `min.insync.replicas={MIN_ISR}` an acknowledged acks=all write is always on at least {MIN_ISR} brokers. When the
ISR cannot promise that, the leader says so immediately rather than writing a record it may later have to disown.
(There is a second, rarer error, NOT_ENOUGH_REPLICAS_AFTER_APPEND, for an ISR that shrank while the write waited in
purgatory.)
"""),
    action=Command(f'echo "second entry" | kcat -P -b {{bootstrap}} -t {TOPIC} -p {{partition}} -X acks=all '
                   f'-X retries=0; echo "third entry" | kcat -P -b {{bootstrap}} -t {TOPIC} -p {{partition}} '
                   "-X acks=1", may_fail=True),
    check=acks_all_refused,
    wait_s=30,
)


# -- 5. Back in the ISR --------------------------------------------------------------------------------------------

def follower_back(ev: Evidence) -> Result:
    since, partition, leader, follower = (ev.facts[k] for k in ("action_ns", "partition", "leader", "follower"))
    resumed = [p for p in ev.pauses_since(since) if p.broker_id == follower and p.resumed]
    if not resumed:
        return Result.failed(expected=f"broker {follower} resumed (SIGCONT)", seen="it is still frozen",
                             hint=f"run {cluster_line('resume', follower, ev.facts)}", wait=False)
    back = resumed[-1]
    # The lesson's watch sees a resume up to 50 ms late, and the follower may be back in sync within that time.
    expanded = [(s, before, after) for s, before, after in isr_changes(ev.spans, TOPIC, partition, since)
                if follower in after and follower not in before]
    if not expanded:
        return Result.failed(expected=f"the leader to put broker {follower} back into the ISR",
                             seen=f"not yet (it resumed at {clock(back.at_ns)})",
                             hint="it must first fetch up to the high watermark; press Enter again in a moment")
    update, before, after = expanded[0]
    expand = ev.spans.where(trace_id=update.trace_id, name="Partition.maybeExpandIsr")
    fetches = [s for s in on_broker(ev.spans.where(name="AbstractFetcherThread.processFetchRequest"), follower)
               if since <= s.start_ns <= update.end_ns]
    out_for = ev.facts.get("shrunk_at_ns")
    when = (f"{between(back.at_ns, update.start_ns)} after the lesson saw it continue" if update.start_ns > back.at_ns
            else "before the lesson's watch, which looks every 50 ms, had even seen it continue")
    explain = f"""
Broker {follower} carried on where it froze. Its fetcher's next Fetch{' (' + at(fetches[0]) + ')' if fetches else ''}
asked the leader for what it had missed, among it the acks=1 record of the last step, and as the leader recorded
that fetch (`Partition.updateReplicaLogReadResult`), `Partition.maybeExpandIsr`
({at(expand.first()) if len(expand) else at(update)}) saw the follower's log end reach the high watermark and took
the ISR from {before} to {after}, {when}.
{f"Broker {follower} was out of the ISR for {between(out_for, update.start_ns)}. " if out_for else ""}
The leader, not the controller, decides who is in sync; the controller only hears of it afterwards, through
`/isr_change_notification`. With two replicas in the ISR again, acks=all writes are accepted.
"""
    return Result.passed(explain)


rejoin = Step(
    title="Back in the ISR",
    about=("Partition.maybeExpandIsr", "Partition.updateReplicaLogReadResult"),
    text="""
Resume broker {follower}. Nothing announces its return: its `ReplicaFetcherThread` simply sends its next Fetch. The
leader handles every follower fetch through `Partition.updateReplicaLogReadResult`, which calls
`Partition.maybeExpandIsr`: a follower not in the ISR whose log end offset has reached the high watermark is put
back, and the ISR is written to ZooKeeper again.
""",
    predict=Predict(
        question="What puts broker {follower} back into the ISR?",
        choices={"a": "the controller, when it sees the broker is alive again",
                 "b": "the leader, when a fetch from the follower reaches the high watermark",
                 "c": "the follower itself, by registering in ZooKeeper again"},
        answer="b",
        why="""
The ISR is the leader's judgement, made from the fetches it serves; it writes the result to the partition's state
znode so that the controller can pick a new leader from it if this one dies. A follower has to earn its way back by
catching up.
"""),
    action=cluster("resume", "follower"),
    check=follower_back,
    wait_s=45,
)


LESSON = Lesson(
    name="replication",
    title="Replication: the ISR, acks=all and min.insync.replicas",
    summary="acks=all with min.insync.replicas, NOT_ENOUGH_REPLICAS, a follower leaving and rejoining the ISR",
    minutes=15,
    intro=INTRO,
    setup=SETUP,
    brokers=3,
    overrides=(f"min.insync.replicas={MIN_ISR}", f"replica.lag.time.max.ms={LAG_MS}",
               "zookeeper.session.timeout.ms=30000", "auto.leader.rebalance.enable=false",
               "controlled.shutdown.retry.backoff.ms=500"),
    steps=[topic, acks_all, freeze, refuse, rejoin],
    outro="""
You have seen the ISR from the leader's side: acks=all waits for it, a stalled follower leaves it after
`replica.lag.time.max.ms`, `min.insync.replicas` refuses writes it cannot cover, and a follower returns by catching
up. Lesson `controller` shows what happens when the leader itself dies: the controller picks the new leader from
this ISR. `kafka-edu tui --run {run_dir}` replays this run.
""",
)
