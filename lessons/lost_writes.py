"""Lesson: lost writes (issue 26). Jepsen's 2013 Kafka experiment on Kafka 1.0.2's rules: a leader cut off first from
its followers, then from ZooKeeper; an out-of-sync follower elected uncleanly; the old leader truncating its log when
it comes back. Two topics side by side under the same cuts, one with the unsafe settings and one with the safe ones,
and the nemesis's history checker (kafka_edu/nemesis/checker.py) judging what each producer was told.

Our own code, not a Kafka port. Read top to bottom: each step's checks come just before the step that uses them.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient, NewTopic

from kafka_edu.lessons import Command, Do, Evidence, Lesson, Predict, Result, Step
from kafka_edu.lessons.runner import LessonFailed, LessonRun
from kafka_edu.lessons.traces import at, between, broker_of, clock, controller, events, on_broker, started_after
from kafka_edu.nemesis.checker import Verdict, check
from kafka_edu.nemesis.history import History
from kafka_edu.nemesis.workload import Workload, WorkloadSettings
from kafka_edu.tracing.query import SpanRecord, Spans

UNSAFE = "ledger-unsafe"
SAFE = "ledger-safe"
TOPICS = {UNSAFE: {"min.insync.replicas": "1", "unclean.leader.election.enable": "true"},
          SAFE: {"min.insync.replicas": "2", "unclean.leader.election.enable": "false"}}
ACKS = {UNSAFE: "1", SAFE: "all"}
SESSION_MS = 3000
LAG_MS = 1500
RATE = 20  # records a second, to each topic

INTRO = """
In 2013 Kyle Kingsbury's Jepsen cut a Kafka leader off from the rest of its cluster and counted the acknowledged
writes that were gone afterwards. This lesson repeats the experiment on Kafka 1.0.2's rules, with two topics side by
side under the same cuts: `ledger-unsafe` (producer `acks=1`, `min.insync.replicas=1`,
`unclean.leader.election.enable=true`) and `ledger-safe` (producer `acks=all`, `min.insync.replicas=2`, clean
elections only). A producer writes to each all along and writes down what the broker answered; at the end the
nemesis's history checker (`kafka_edu/nemesis/checker.py`) reads both topics back and says which acknowledged
records are missing.

The Kafka code is `kafka/cluster/Partition.scala` (the ISR), `kafka/controller/PartitionLeaderSelector.scala` (the
unclean election) and `kafka/server/ReplicaFetcherThread.scala` (the truncation); the port is
`kafka_edu/v1_0_2/core/cluster/partition.py`, `core/controller/partition_leader_selector.py` and
`core/server/replica_fetcher_thread.py`.
"""

SETUP = f"""
The lesson needs root: each process of its cluster (ZooKeeper and three brokers) runs in a network namespace of its
own (`cluster up --netns`), so that links between them can be cut. It sets `zookeeper.session.timeout.ms={SESSION_MS}`
and `replica.lag.time.max.ms={LAG_MS}` (Kafka's defaults are 6000 and 10000; shorter, so that the lesson takes
under a minute) and `auto.leader.rebalance.enable=false` (so that only the faults move leaders).
"""

_RUNNING: dict[str, dict[str, tuple[Workload, History]]] = {}  # run dir -> topic -> its writer, while it writes


def history_dir(run_dir: str) -> Path:
    return Path(run_dir) / "lesson-lost-writes"


def others(ev: Evidence, leader: int) -> list[int]:
    return [b for b in ev.facts["broker_ids"] if b != leader]


# -- 1. Two ledgers, one leader ----------------------------------------------------------------------------------

def pick_leader(ev: Evidence) -> dict[str, Any] | None:
    """A leader that is not the controller, so that cutting it off does not also move the controller."""
    won = controller(ev.spans)
    if won is None:
        return None
    ctrl = broker_of(won)
    leader = next(b for b in ev.facts["broker_ids"] if b != ctrl)
    followers = [b for b in ev.facts["broker_ids"] if b != leader]
    return {"controller": ctrl, "leader": leader, "followers": ",".join(map(str, followers)),
            "replicas": ",".join(map(str, [leader, *followers]))}


def create_topics(run: LessonRun) -> None:
    replicas = [int(b) for b in run.facts["replicas"].split(",")]
    admin = AdminClient({"bootstrap.servers": run.facts["bootstrap"]})
    # one partition placed by hand (librdkafka wants the partition count beside an assignment)
    futures = admin.create_topics([NewTopic(topic, 1, replica_assignment=[replicas], config=dict(configs))
                                   for topic, configs in TOPICS.items()], request_timeout=30)
    for topic, future in futures.items():
        try:
            future.result(30)
        except KafkaException as e:
            raise LessonFailed(f"creating topic {topic} failed: {e}") from e


def leader_epoch_of(spans: Spans, topic: str, broker: int, since_ns: int = 0) -> list[SpanRecord]:
    name = f"{topic}-0"
    return [s for s in started_after(on_broker(spans.where(name="ReplicaManager.makeLeaders"), broker), since_ns)
            if name in s.attributes.get("kafka.partitions", [])]


def topics_led(ev: Evidence) -> Result:
    leader = ev.facts["leader"]
    made = {topic: leader_epoch_of(ev.spans, topic, leader) for topic in TOPICS}
    missing = [topic for topic, spans in made.items() if not spans]
    if missing:
        return Result.failed(expected=f"broker {leader} leading partition 0 of {' and '.join(TOPICS)}",
                             seen=f"no `ReplicaManager.makeLeaders` for {', '.join(missing)} yet",
                             hint="the lesson creates them itself; press Enter again in a moment")
    explain = f"""
Both topics have one partition on all three brokers, replicas [{ev.facts['replicas']}]: the first replica, broker
{leader}, became the leader of each ({at(made[UNSAFE][0])}; {at(made[SAFE][0])}), and brokers {ev.facts['followers']}
its followers. The controller is broker {ev.facts['controller']}, which the lesson kept out of the leader's seat so
that cutting the leader off does not also move the controller.
"""
    return Result.passed(explain)


topics = Step(
    title="Two ledgers, one leader",
    about=("AdminManager.createTopics", "ReplicaManager.makeLeaders"),
    text=f"""
The lesson creates two topics with the same replicas, in the same order, so that the same broker, {{leader}}, leads
both: `{UNSAFE}` with `min.insync.replicas=1` and `unclean.leader.election.enable=true`, and `{SAFE}` with
`min.insync.replicas=2` and `unclean.leader.election.enable=false` (topic configs, which override the brokers').
The controller's broker takes the CreateTopics request (`AdminManager.createTopics` writes the assignment to
ZooKeeper), and the controller tells broker {{leader}} to lead both (`ReplicaManager.makeLeaders`).
""",
    prepare=pick_leader,
    action=Do(text="creates both topics with replicas [{replicas}] (the Admin API's CreateTopics, with an explicit "
                   "replica assignment)", perform=create_topics),
    check=topics_led,
    wait_s=30,
)


# -- 2. Writers ----------------------------------------------------------------------------------------------------

def start_writers(run: LessonRun) -> None:
    run_dir = run.facts["run_dir"]
    history_dir(run_dir).mkdir(exist_ok=True)
    running = {}
    for topic in TOPICS:
        history = History(history_dir(run_dir) / f"{topic}.history.jsonl")
        settings = WorkloadSettings(bootstrap=run.facts["bootstrap"], topic=topic, partitions=1, rate=RATE,
                                    acks=ACKS[topic], idempotence=topic == SAFE, transactions=False, seed=1,
                                    producers=1, consumers=0, message_timeout_ms=20_000)
        workload = Workload(settings, history)
        workload.start()
        running[topic] = (workload, history)
    _RUNNING[run_dir] = running


def appends_since(spans: Spans, topic: str, broker: int, since_ns: int) -> list[SpanRecord]:
    return [s for s in started_after(on_broker(spans.where(step="NW.log.append"), broker), since_ns)
            if s.attributes.get("kafka.topic") == topic]


def writers_writing(ev: Evidence) -> Result:
    since, leader = ev.facts["action_ns"], ev.facts["leader"]
    written = {topic: appends_since(ev.spans, topic, leader, since) for topic in TOPICS}
    missing = [topic for topic, spans in written.items() if not spans]
    if missing:
        return Result.failed(expected=f"records appended to {' and '.join(missing)} on broker {leader}",
                             seen="none yet", hint="the producers are starting; press Enter again in a moment")
    explain = f"""
Both producers are writing, about {RATE} records a second each, and broker {leader} appends them
(`Log.append`: {at(written[UNSAFE][0])}; {at(written[SAFE][0])}). Each record's value is its own id, and every send,
answer and error goes into the histories in `{{run_dir}}/lesson-lost-writes/`.
"""
    return Result.passed(explain)


writers = Step(
    title="Two producers",
    about=("KafkaApis.handleProduceRequest", "Log.append"),
    text=f"""
The lesson starts one producer for each topic (the nemesis's workload: confluent-kafka, each record's value a
unique id): `acks=1` to `{UNSAFE}`, where the leader answers as soon as the record is in its own log, and `acks=all`
with idempotence to `{SAFE}`, where it answers once every replica in the ISR has it. On the leader, each batch goes
through `KafkaApis.handleProduceRequest` to `Log.append`.
""",
    action=Do(text="starts both producers", perform=start_writers),
    check=writers_writing,
    wait_s=20,
)


# -- 3. The leader cut off from its followers -------------------------------------------------------------------

def isr_shrinks(spans: Spans, topic: str, since_ns: int) -> list[tuple[SpanRecord, list, list]]:
    return [(s, e.attributes.get("kafka.isr.from", []), e.attributes.get("kafka.isr.to", []))
            for s, e in events(started_after(spans.where(name="Partition.updateIsr"), since_ns), "isr.change")
            if s.attributes.get("kafka.topic") == topic and len(e.attributes.get("kafka.isr.to", [])) == 1]


def cut_events(ev: Evidence, since_ns: int, name: str = "Runner.partition") -> list[SpanRecord]:
    """The runner's cuts (NF.cut, event `network.partition`) or heals (`Runner.heal`, NF.heal) since `since_ns`."""
    return started_after(ev.spans.where(name=name), since_ns)


def isr_is_leader_alone(ev: Evidence) -> Result:
    since, leader = ev.facts["action_ns"], ev.facts["leader"]
    cuts = cut_events(ev, since)
    if not cuts:
        return Result.failed(expected=f"broker {leader} cut off from brokers {ev.facts['followers']}",
                             seen="no cut since this step began",
                             hint="run the `cluster partition --split` command above", wait=False)
    shrunk = {topic: isr_shrinks(ev.spans, topic, cuts[0].start_ns) for topic in TOPICS}
    missing = [topic for topic, found in shrunk.items() if not found]
    if missing:
        return Result.failed(expected=f"broker {leader} to shrink the ISR of {', '.join(missing)} to itself",
                             seen=f"the cut at {clock(cuts[0].start_ns)}; no shrink yet",
                             hint=f"the leader waits replica.lag.time.max.ms ({LAG_MS} ms); press Enter again")
    unsafe, safe = shrunk[UNSAFE][0], shrunk[SAFE][0]
    explain = f"""
The cut ({at(cuts[0])}) left broker {leader} running and still connected to ZooKeeper and to the clients, but its
followers' fetches no longer reached it. {between(cuts[0].start_ns, unsafe[0].start_ns)} later its ISR-expiration
task found them behind for more than `replica.lag.time.max.ms` and `Partition.updateIsr` wrote the ISR of
`{UNSAFE}-0` from {unsafe[1]} to {unsafe[2]} ({at(unsafe[0])}), and that of `{SAFE}-0` from {safe[1]} to
{safe[2]} ({at(safe[0])}).

From here on the two ledgers part ways. `{UNSAFE}` takes every `acks=1` write into broker {leader}'s log alone and
acknowledges it. `{SAFE}` refuses: an ISR of one is below `min.insync.replicas=2`, so
`Partition.appendRecordsToLeader` answers NOT_ENOUGH_REPLICAS, and the producer keeps retrying.
"""
    return Result.passed(explain, split_ns=cuts[0].start_ns, shrunk_ns=unsafe[0].start_ns)


split = Step(
    title="The leader cut off from its followers",
    about=("Partition.maybeShrinkIsr", "Partition.updateIsr", "Partition.appendRecordsToLeader"),
    text=f"""
Cut broker {{leader}} off from the other two brokers, both ways. It keeps its ZooKeeper session and its clients:
only the followers' fetches stop reaching it. As in lesson `replication`, the leader drops followers that have not
caught up for `replica.lag.time.max.ms` ({LAG_MS} ms here) from the ISR (`Partition.maybeShrinkIsr`), and writes
the new ISR to ZooKeeper (`Partition.updateIsr`). What it then does with a write depends on the ISR's size:
`Partition.appendRecordsToLeader` compares it with `min.insync.replicas` for `acks=all`.
""",
    predict=Predict(
        question="Once the ISR is the leader alone, what happens to the writes?",
        choices={"a": "both topics go on acknowledging writes",
                 "b": f"`{UNSAFE}` acknowledges each write with one copy; `{SAFE}` refuses them "
                      "(NOT_ENOUGH_REPLICAS)",
                 "c": "both refuse: the leader knows it is cut off"},
        answer="b",
        why="""
A leader does not know why its followers went quiet; it only sees that they stopped fetching. With
`min.insync.replicas=1` one copy is enough to say yes; with `min.insync.replicas=2` and `acks=all`, the leader
refuses a write it cannot put on two brokers.
"""),
    action=Command("kafka-edu cluster partition --split {leader} {followers} --run {run_dir}"),
    check=isr_is_leader_alone,
    wait_s=20,
)


# -- 4. ... and from ZooKeeper ---------------------------------------------------------------------------------------

def selections(spans: Spans, topic: str, since_ns: int) -> list[SpanRecord]:
    return [s for s in started_after(spans.where(name="OfflinePartitionLeaderSelector.selectLeader"), since_ns)
            if s.attributes.get("kafka.topic") == topic]


def unclean_election(ev: Evidence) -> Result:
    since, leader = ev.facts["action_ns"], ev.facts["leader"]
    cuts = cut_events(ev, since)
    if not cuts:
        return Result.failed(expected=f"broker {leader} cut off from ZooKeeper",
                             seen="no cut since this step began",
                             hint="run the `cluster partition --from-zookeeper` command above", wait=False)
    new_leaders = {topic: [s for b in others(ev, leader) for s in leader_epoch_of(ev.spans, topic, b, cuts[0].start_ns)]
                   for topic in TOPICS}
    chosen = selections(ev.spans, UNSAFE, cuts[0].start_ns)
    refused = selections(ev.spans, SAFE, cuts[0].start_ns)
    if not new_leaders[UNSAFE]:
        return Result.failed(expected=f"a new leader for `{UNSAFE}-0` among brokers {ev.facts['followers']}",
                             seen=f"the cut at {clock(cuts[0].start_ns)}; no new leader yet",
                             hint=f"ZooKeeper first waits out broker {leader}'s session "
                                  f"({SESSION_MS} ms); press Enter again")
    if new_leaders[SAFE]:
        return Result.failed(expected=f"`{SAFE}-0` left without a leader",
                             seen=f"broker {broker_of(new_leaders[SAFE][0])} became its leader",
                             hint="was unclean.leader.election.enable changed on the topic?", wait=False)
    made = new_leaders[UNSAFE][0]
    new = broker_of(made)
    select = f" (`OfflinePartitionLeaderSelector.selectLeader`, {at(chosen[0])})" if chosen else ""
    none = (f" For `{SAFE}-0` the same selector ({at(refused[0])}) found no live ISR member and, with unclean "
            "elections off, raised `NoReplicaOnlineException`: the partition stays offline, its ISR still "
            f"[{leader}], waiting for broker {leader} to come back." if refused else
            f" `{SAFE}-0` got no leader: with unclean elections off, its only ISR member, broker {leader}, must come "
            "back first.")
    explain = f"""
ZooKeeper heard nothing from broker {leader} for its session timeout, expired the session and with it
`/brokers/ids/{leader}`; the controller's `BrokerChange` event ran `onBrokerFailure`. For `{UNSAFE}-0` no replica of
the ISR [{leader}] was alive, so the controller picked the first live replica, broker {new}{select}: an unclean
election, of a follower that stopped copying at the first cut. Broker {new} became leader ({at(made)}),
{between(cuts[0].start_ns, made.start_ns)} after the cut.{none}

Broker {leader} has not heard any of this. It still thinks it leads both partitions, and the producers on the host
still reach it: every `acks=1` write it takes now is acknowledged by a leader that has been replaced.
"""
    return Result.passed(explain, new_leader=new, zk_cut_ns=cuts[0].start_ns, elected_ns=made.start_ns)


zookeeper_cut = Step(
    title="... and from ZooKeeper",
    about=("KafkaController.onBrokerFailure", "OfflinePartitionLeaderSelector.selectLeader"),
    text="""
Now cut broker {leader} off from ZooKeeper too. Its session expires after `zookeeper.session.timeout.ms`, and the
controller treats it as dead (`KafkaController.onBrokerFailure`): every partition it led needs a new leader.
`OfflinePartitionLeaderSelector.selectLeader` picks one from the live members of the ISR; if there are none, it picks
any live replica, but only when the topic allows an unclean election.
""",
    predict=Predict(
        question="What does the controller do with each partition?",
        choices={"a": "both get a follower as their new leader",
                 "b": f"`{UNSAFE}` gets a follower as leader (an unclean election); `{SAFE}` has no leader",
                 "c": "neither gets a leader: the ISR is broker {leader} alone"},
        answer="b",
        why="""
The ISR is the list of replicas allowed to lead. When none of them is alive, a topic with unclean elections picks
availability: a follower that is missing records leads, and those records are gone from the partition's future. A
topic without them waits for an ISR member: unavailable, but nothing is lost.
"""),
    action=Command("kafka-edu cluster partition --from-zookeeper {leader} --run {run_dir}"),
    check=unclean_election,
    wait_s=30,
)


# -- 5. Heal ---------------------------------------------------------------------------------------------------------

def truncations(spans: Spans, topic: str, broker: int, since_ns: int) -> list[tuple[SpanRecord, Any]]:
    """(span, `log.truncate` event) for each cut a follower's fetcher made to the partition's log (LE.truncate)."""
    return [(s, e) for s, e in events(started_after(on_broker(spans.where(step="LE.truncate"), broker), since_ns),
                                      "log.truncate") if e.attributes.get("kafka.topic") == topic]


def old_leader_truncated(ev: Evidence) -> Result:
    since, leader = ev.facts["action_ns"], ev.facts["leader"]
    heals = cut_events(ev, since, "Runner.heal")
    if not heals:
        return Result.failed(expected="the cuts healed", seen="no heal since this step began",
                             hint="run `cluster heal` above", wait=False)
    cut = [(s, e) for s, e in truncations(ev.spans, UNSAFE, leader, heals[0].start_ns)
           if e.attributes.get("kafka.records.lost", 0) > 0]
    back = leader_epoch_of(ev.spans, SAFE, leader, heals[0].start_ns)
    if not cut:
        return Result.failed(expected=f"broker {leader} to truncate its log of `{UNSAFE}-0` as a follower",
                             seen="no truncation that removed records yet",
                             hint="it must first notice its session expired and register again; press Enter again")
    if not back:
        return Result.failed(expected=f"broker {leader} leading `{SAFE}-0` again", seen="not yet",
                             hint="press Enter again in a moment")
    span, event = cut[0]
    a = event.attributes
    offset, end, lost = a.get("kafka.offset"), a.get("kafka.log_end_offset"), a.get("kafka.records.lost")
    requests = [s for s in on_broker(ev.spans.where(step="LE.request"), leader)
                if s.trace_id == span.trace_id or abs(s.start_ns - span.start_ns) < 1_000_000_000]
    asked = (f" (`AbstractFetcherThread.maybeTruncate`, {at(requests[0])}: end offsets "
             f"{requests[0].attributes.get('kafka.leader.epoch.end_offsets')})" if requests else "")
    explain = f"""
Healed, broker {leader} learned that its ZooKeeper session had expired, and registered again; the controller's
`BrokerChange` made it a follower of `{UNSAFE}-0` under broker {ev.facts['new_leader']}, and leader of `{SAFE}-0`
once more (it is the only ISR member there: {at(back[0])}).

As a follower, its fetcher first asked the new leader (`OffsetsForLeaderEpoch`) where the last epoch broker {leader}
led ended{asked}, and cut its own log back to that offset: `ReplicaFetcherThread.maybeTruncate` ({at(span)}, event
`log.truncate`, by {a.get('kafka.truncation.by')}) took it from log end {end} down to {offset}: **{lost} records**
thrown away. Kafka 1.0.2 says so only in its log (`Truncating to offset {offset}`). Those records were acknowledged
to the producer, and they are now on no broker.
"""
    return Result.passed(explain, truncated=lost, truncated_from=offset, truncated_to=end)


heal = Step(
    title="Heal",
    about=("KafkaController.onBrokerStartup", "ReplicaFetcherThread.maybeTruncate", "Log.truncateTo"),
    text="""
Heal both cuts. Broker {leader} reconnects to ZooKeeper, finds its session expired and registers again; the
controller (`KafkaController.onBrokerStartup`) tells it who leads each partition now. Where another broker leads, it
becomes a follower, and a follower's first job is to make its log agree with the leader's:
`ReplicaFetcherThread.maybeTruncate` asks the leader where the follower's last epoch ended and cuts the log there
(`Log.truncateTo`).
""",
    predict=Predict(
        question="What happens to the records broker {leader} acknowledged on `ledger-unsafe` after the first cut?",
        choices={"a": "it hands them to the new leader, which appends them",
                 "b": "it truncates them from its own log: they are gone",
                 "c": "they stay in its log beside the new leader's records"},
        answer="b",
        why="""
Replication in Kafka goes one way, from the leader to the followers. The new leader's log is the partition's log;
a follower whose log goes further than the leader's for the same epoch cuts it back (KIP-101's leader epochs make
the cut point exact; they do not bring the records back).
"""),
    action=Command("kafka-edu cluster heal --run {run_dir}"),
    check=old_leader_truncated,
    wait_s=45,
)


# -- 6. The verdict ------------------------------------------------------------------------------------------------

def stop_and_judge(run: LessonRun) -> None:
    running = _RUNNING.pop(run.facts["run_dir"], {})
    threads = [threading.Thread(target=workload.stop, kwargs={"drain_s": 0}) for workload, _ in running.values()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for topic, (workload, history) in running.items():
        workload.read_back(timeout_s=30)
        history.close()
        verdict: Verdict = check(history.events)
        lost = [a for a in verdict.anomalies if a.kind == "lost"]
        key = topic.removeprefix("ledger-")
        run.facts.update({f"{key}_acknowledged": verdict.acknowledged, f"{key}_read": verdict.read,
                          f"{key}_indeterminate": verdict.indeterminate, f"{key}_lost": len(lost),
                          f"{key}_lost_offsets": sorted(o for a in lost for o in a.offsets),
                          f"{key}_valid": verdict.valid, f"{key}_counts": verdict.counts})


def verdict_given(ev: Evidence) -> Result:
    f = ev.facts
    if "unsafe_lost" not in f or "safe_lost" not in f:
        return Result.failed(expected="both histories judged", seen="no verdict yet",
                             hint="the lesson stops the producers and reads both topics back", wait=False)
    if f["safe_lost"]:
        return Result.failed(expected=f"no acknowledged write lost on `{SAFE}`",
                             seen=f"{f['safe_lost']} lost: {f['safe_counts']}",
                             hint="this would be a bug in the port; keep the run directory", wait=False)
    if not f["unsafe_lost"]:
        return Result.failed(expected=f"acknowledged writes lost on `{UNSAFE}`",
                             seen=f"none lost of {f['unsafe_acknowledged']} acknowledged",
                             hint="did the producer write to the old leader between the cuts?", wait=False)
    offsets = f["unsafe_lost_offsets"]
    unanswered = (f"{f['safe_indeterminate']} indeterminate: sends that ended without an answer to trust, timed out "
                  "while the leader refused them or the partition had no leader; such a record may or may not be in "
                  "the log, so neither outcome is an anomaly" if f["safe_indeterminate"] else
                  "every send was answered in the end: the producer retried the refused ones until the partition, "
                  "healed, could take them")
    explain = f"""
The checker's verdict on `{UNSAFE}`: **{f['unsafe_lost']} acknowledged records lost** of
{f['unsafe_acknowledged']} acknowledged ({f['unsafe_read']} read back, {f['unsafe_indeterminate']} indeterminate),
at offsets {offsets[0]} to {offsets[-1]} as broker {f['leader']} had numbered them: inside the range it truncated,
from offset {f.get('truncated_from')} up to its log end {f.get('truncated_to')} (the new leader has written other
records at those offsets since).

On `{SAFE}`: **none lost** of {f['safe_acknowledged']} acknowledged ({unanswered}). While the ISR was broker
{f['leader']} alone, it acknowledged nothing; while it was cut off from ZooKeeper, the partition had no leader. The
safe settings paid in availability for what the unsafe ones lost.
"""
    return Result.passed(explain)


verdict = Step(
    title="The verdict",
    about=("Nemesis.check",),
    text="""
The lesson stops both producers, reads both topics from offset 0 to their ends, and hands each history to the
checker, the one `kafka-edu nemesis` runs for its verdict (`Nemesis.check`): a record is lost when the broker
answered it with an offset and the read-back does not have it.
""",
    predict=Predict(
        question="Which topic lost acknowledged writes?",
        choices={"a": "`ledger-unsafe` only", "b": "both", "c": "neither: every write is on a disk somewhere"},
        answer="a",
        why="""
`acks=1` let a leader acknowledge what only it had; the ISR shrinking to that leader let it go on; the unclean
election crowned a follower that never had the records; the truncation removed the last copy. Take away any one
link (`acks=all` with `min.insync.replicas=2`, or clean elections only) and the chain breaks.
"""),
    action=Do(text="stops the producers, reads both topics back and runs the checker", perform=stop_and_judge),
    check=verdict_given,
    wait_s=5,
)


LESSON = Lesson(
    name="lost-writes",
    title="Lost writes: a leader cut off, an unclean election, a truncated log",
    summary="Jepsen 2013 on 1.0.2: acks=1, ISR of one and unclean election lose acknowledged writes; safe settings do "
            "not",
    minutes=10,
    intro=INTRO,
    setup=SETUP,
    brokers=3,
    netns=True,
    overrides=(f"zookeeper.session.timeout.ms={SESSION_MS}", f"replica.lag.time.max.ms={LAG_MS}",
               "auto.leader.rebalance.enable=false", "controlled.shutdown.retry.backoff.ms=500"),
    steps=[topics, writers, split, zookeeper_cut, heal, verdict],
    outro="""
Kafka did what its settings said. `acks=1` and unclean elections trade acknowledged writes for availability; `acks=all`,
`min.insync.replicas=2` and clean elections trade availability for them. Since Kafka 0.11 unclean elections are off
by default. The histories are in `{run_dir}/lesson-lost-writes/`; `kafka-edu tui --run {run_dir}` replays the run.
""",
)
