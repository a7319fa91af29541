"""Lesson 7, a metadata change's journey (seed 002; Kafka 3.9's ControllerApis, QuorumController, KafkaEventQueue,
KafkaRaftClient and the brokers' MetadataLoader): one CreateTopics from the client to the broker, forwarded to the
active controller, turned into records on its event queue, written to the metadata log, committed by a majority,
and applied by every node.

The spans of one change live in several traces on several nodes; they are joined by the metadata-log offsets the
controller wrote (`kafka.raft.offset.first/last`), as `kafka_edu.lessons.traces.covering` does.

Read top to bottom: each step's checks come just before the step that uses them.
"""

from __future__ import annotations

from kafka_edu.lessons import Command, Evidence, Lesson, Predict, Result, Step
from kafka_edu.lessons.traces import at, between, node_of, ref, took
from kafka_edu.lessons.traces import covering as _covering
from kafka_edu.tracing.query import SpanRecord, Spans

TOPIC = "journey"
PARTITIONS = 3
REPLICATION_FACTOR = 2

INTRO = """
In ZooKeeper mode a new topic is a znode that the controller hears about through a watch (lesson `controller`). In
KRaft mode it is a handful of records in the metadata log, and every node, controller or broker, learns of it by
reading that log. This lesson follows one CreateTopics request all the way: the broker that receives it, the active
controller's event queue, the records it writes, the moment a majority makes them committed, and each node applying
them.

The sources are `core/src/main/scala/kafka/server/ControllerApis.scala`,
`metadata/src/main/java/org/apache/kafka/controller/QuorumController.java` and
`server-common/src/main/java/org/apache/kafka/queue/KafkaEventQueue.java` (Kafka 3.9); the ports are
`kafka_edu/v3_9/core/server/controller_apis.py`, `kafka_edu/v3_9/metadata/controller/quorum_controller.py` and
`kafka_edu/v3_9/server_common/queue/kafka_event_queue.py`.
"""

SETUP = """
The lesson starts three KRaft controllers (node ids 1 to 3) and two KRaft brokers (node ids 4 and 5), with 3.9's
defaults; among them `controller.quorum.append.linger.ms=25` (how long the leader gathers records before it writes a
batch) and the 500 ms a follower's empty Fetch waits at the leader.
"""


def _on(spans: list[SpanRecord], node: int) -> list[SpanRecord]:
    return [s for s in spans if node_of(s) == node]


def covering(ev: Evidence, name: str) -> list[SpanRecord]:
    """The spans of that name that touched this change's records, in time order."""
    return _covering(ev.spans, name, ev.facts["first_offset"], ev.facts["last_offset"])


# -- 1. The request, forwarded ---------------------------------------------------------------------------------------

def request_forwarded(ev: Evidence) -> Result:
    since = ev.facts["action_ns"]
    received = [s for s in ev.since(since).where(name="RequestChannel.Request")
                if s.instance.startswith("broker-") and s.attributes.get("kafka.api.name") == "CreateTopics"]
    if not received:
        return Result.failed(expected="a CreateTopics request received by one of the brokers",
                             seen="none since this step began", hint="run the command above")
    request = received[-1]
    broker = node_of(request)
    trace = ev.spans.where(trace_id=request.trace_id)
    sends = [s for s in trace.where(name="InterBrokerSendThread.sendRequests")
             if s.attributes.get("kafka.api.name") == "CreateTopics"]
    if not sends:
        return Result.failed(expected=f"broker {broker} forwarding the request to the active controller",
                             seen="its request is still in progress", hint="Press Enter again in a moment.")
    send = sends[-1]  # the last try: a send refused with NOT_CONTROLLER is retried to the new leader
    errors = [e for e in send.attributes.get("kafka.response.errors", []) if e != "NONE"]
    if errors:
        return Result.failed(
            expected=f"the controller creating `{TOPIC}`", seen=f"the controller answered {', '.join(errors)}",
            hint=(f"the topic exists already: delete it (`kafka-edu topics --delete --topic {TOPIC} "
                  "--bootstrap-server {bootstrap}`), then run the command above again")
            if "TOPIC_ALREADY_EXISTS" in errors else "run the command above as printed", wait=False)
    controller = send.attributes.get("kafka.controller.id")
    forwarded = [s for s in ev.spans.where(name="RequestChannel.Request")
                 if s.instance == f"controller-{controller}" and s.attributes.get("kafka.api.name") == "CreateTopics"
                 and s.attributes.get("kafka.client.id") == str(broker) and send.start_ns <= s.start_ns <= send.end_ns]
    if not forwarded:  # the answer came from another controller than the one the last try was sent to
        forwarded = [s for s in ev.spans.where(name="RequestChannel.Request") if s.instance.startswith("controller-")
                     and s.attributes.get("kafka.api.name") == "CreateTopics"
                     and s.attributes.get("kafka.client.id") == str(broker) and request.start_ns <= s.start_ns
                     <= request.end_ns]
        controller = node_of(forwarded[-1]) if forwarded else controller
    writes = [w for f in forwarded for w in ev.spans.where(trace_id=f.trace_id,
                                                            name="QuorumController.ControllerWriteEvent.run")
              if "kafka.raft.offset.first" in w.attributes]
    if not forwarded or not writes:
        return Result.failed(expected=f"controller {controller}'s CreateTopics and its write event",
                             seen="not in the traces yet", hint="Press Enter again in a moment.")
    on_controller, write = forwarded[0], writes[0]
    a = request.attributes
    explain = f"""
Your client sent CreateTopics to broker {broker} ({ref(request)}). A KRaft broker decides no metadata: its
`KafkaApis` handed the request to the `ForwardingManager`, whose channel to the active controller
(`NodeToControllerChannelManager`) sent it on ({ref(send)}, {took(send.duration_ms)}). The broker knew which
controller to ask from the metadata log it follows: the Raft leader, controller {controller}.

Controller {controller} received it like any request, from client id `{broker}` ({ref(on_controller)}), and
`ControllerApis.handle` (KR.apis) passed it to `QuorumController.createTopics` (KR.qc). The answer came back
{took(on_controller.duration_ms)} later. Broker {broker} answered your client after
{took(a.get('kafka.request.total_time_ms', request.duration_ms))} in all,
{took(a.get('kafka.request.remote_time_ms', 0))} of it waiting for the controller.
"""
    return Result.passed(explain, broker=broker, controller=controller,
                         first_offset=write.attributes["kafka.raft.offset.first"],
                         last_offset=write.attributes["kafka.raft.offset.last"], write_trace=write.trace_id,
                         controller_request=on_controller.trace_id)


forward = Step(
    title="A request the broker forwards",
    about=("KafkaApis.handleCreateTopicsRequest", "ForwardingManager.forwardRequest", "ControllerApis.handle",
           "QuorumController.createTopics"),
    text=f"""
Create a topic `{TOPIC}` with {PARTITIONS} partitions of {REPLICATION_FACTOR} replicas. Your client, like every
Kafka client, talks to brokers only; in KRaft mode the controllers listen on a listener of their own
(`CONTROLLER`) that clients never see. The check will show which of these your request passed through, and on
which node: `KafkaApis.handleCreateTopicsRequest`, `ForwardingManager.forwardRequest`, `ControllerApis.handle`
(KR.apis), `QuorumController.createTopics` (KR.qc).
""",
    predict=Predict(
        question="Your request reaches one of the two brokers. What does that broker do with it?",
        choices={"a": "creates the topic itself and tells the controller afterwards",
                 "b": "forwards it to the active controller and waits for the controller's answer",
                 "c": "writes the topic to ZooKeeper, as in lesson controller"},
        answer="b",
        why="""
Only the active controller changes metadata. A broker that receives a request to change it forwards the request
(3.9 wraps it in an Envelope request; the port re-sends it at a version the controller speaks) and relays the
answer. There is no ZooKeeper to write to.
"""),
    action=Command(f"kafka-edu topics --create --topic {TOPIC} --partitions {PARTITIONS} "
                   f"--replication-factor {REPLICATION_FACTOR} --bootstrap-server {{bootstrap}}"),
    check=request_forwarded,
    wait_s=20,
)


# -- 2. One thread, one queue: the write event ----------------------------------------------------------------------

def written_on_the_queue(ev: Evidence) -> Result:
    trace = ev.spans.where(trace_id=ev.facts["write_trace"])
    enqueue = [s for s in trace.where(name="KafkaEventQueue.enqueue") if s.attributes.get("kafka.queue.event")
               == "createTopics"]
    runs = [s for s in trace.where(name="KafkaEventQueue.EventHandler.handleEvents")
            if s.attributes.get("kafka.queue.event") == "createTopics"]
    write = trace.where(name="QuorumController.ControllerWriteEvent.run").first()
    replays = [s for s in trace.where(name="QuorumController.replay") if s.attributes.get("kafka.controller.role")
               == "active"]
    if not enqueue or not runs or not replays:
        return Result.failed(expected="the createTopics event's enqueue, its run and the replay of its records",
                             seen=f"in trace `{ev.facts['write_trace'][:8]}`: "
                                  f"{', '.join(dict.fromkeys(s.name for s in trace)) or 'nothing'}",
                             hint="Press Enter again in a moment.")
    enqueue, run, replay = enqueue[0], runs[0], replays[0]
    a, w = enqueue.attributes, write.attributes
    types = ", ".join(w.get("kafka.metadata.record.types", []))
    explain = f"""
`QuorumController.createTopics` did not touch the controller's state: it wrapped the work in a
`ControllerWriteEvent` and appended it to the controller's `KafkaEventQueue` ({ref(enqueue)}), behind
{a.get('kafka.queue.size', 0)} other event(s), with a deadline {took(a.get('kafka.queue.deadline.ms', 0))} away (the
request's timeout: an event still queued then fails with a TimeoutException instead of running).

The queue's single thread took it {took(run.attributes.get('kafka.queue.time.ms', 0))} later ({at(run)}) and ran it
({ref(write)}, {took(write.duration_ms)}): the `ReplicationControlManager` checked the name, placed the replicas on
the unfenced brokers, and produced {w.get('kafka.metadata.records')} records: {types}. They got metadata-log offsets
{w.get('kafka.raft.offset.first')} to {w.get('kafka.raft.offset.last')}, and the event's future was parked until
the log's high watermark passes offset {w.get('kafka.controller.wait.offset')}.

Then, still before any other node had the records, the controller **replayed** them into its own managers
(`QuorumController.replay`, {at(replay)}, role `active`): the next event on the queue already sees the topic, so a
second CreateTopics for `{TOPIC}` would be refused even before this one is committed.
"""
    return Result.passed(explain)


queue = Step(
    title="One thread, one queue: the write event",
    about=("QuorumController.appendWriteEvent", "KafkaEventQueue.enqueue", "QuorumController.ControllerWriteEvent",
           "QuorumController.replay"),
    text="""
Everything the active controller does runs on one thread, the `KafkaEventQueue`'s (KR.queue), one event at a
time: requests, timers, the Raft client's callbacks. So the controller's state needs no locks, and the order of
events is the order of the metadata log. A change is a *write event* (`QuorumController.appendWriteEvent` puts a
`ControllerWriteEvent` on the queue with `KafkaEventQueue.enqueue`): it generates records and a result, hands the
records to the Raft client, and answers only once they are committed. At some point the controller also applies the
records to its own managers (`QuorumController.replay`): the question is when.

No action here: the check reads the trace of the request you just sent, on controller {controller}.
""",
    predict=Predict(
        question="When does the active controller apply the new TopicRecord to its own in-memory state?",
        choices={"a": "only once the record is committed (a majority of controllers have it)",
                 "b": "at once, in the write event, before anything is committed",
                 "c": "never: controllers store records, only brokers apply them"},
        answer="b",
        why="""
The active controller replays its own records immediately, so that the events after this one see the change. Its
managers keep their state in *timeline* structures with a snapshot per written offset: if it loses leadership before
the records are committed, `renounce` reverts them to the last committed offset, and the parked requests fail with
NOT_CONTROLLER.
"""),
    check=written_on_the_queue,
    wait_s=10,
)


# -- 3. Into the log, and committed ----------------------------------------------------------------------------------

def committed_by_majority(ev: Evidence) -> Result:
    controller, first, last = ev.facts["controller"], ev.facts["first_offset"], ev.facts["last_offset"]
    write = ev.spans.where(trace_id=ev.facts["write_trace"], name="QuorumController.ControllerWriteEvent.run").first()
    appended = _on(covering(ev, "KafkaMetadataLog.appendAsLeader"), controller)
    followers = [s for s in covering(ev, "KafkaMetadataLog.appendAsFollower") if node_of(s) != controller]
    commits = _on(covering(ev, "QuorumController.QuorumMetaLogListener.handleCommit"), controller)
    if not appended or not commits:
        return Result.failed(expected=f"offsets {first}-{last} appended by controller {controller} and committed",
                             seen=f"{len(appended)} append(s), {len(commits)} commit(s) so far",
                             hint="Press Enter again in a moment.")
    append, commit = appended[0], commits[0]
    moved = [s for s in ev.spans.where(name="KafkaRaftClient.handleFetchRequest") if node_of(s) == controller
             and s.start_ns >= append.start_ns and (s.attributes.get("kafka.raft.high_watermark") or -1) > last]
    response = ev.spans.where(trace_id=ev.facts["controller_request"], name="RequestChannel.Request").first()
    voters = sorted({node_of(s) for s in followers if s.instance.startswith("controller-")} | {controller})
    observers = sorted({node_of(s) for s in followers if s.instance.startswith("broker-")})
    happened = [(append.start_ns, f"controller {controller}", f"`appendAsLeader`: offsets {first}-{last} written to "
                 f"its log, in the batch of its next `pollLeader` ({at(append)})")]
    for node in sorted({node_of(s) for s in followers}):
        s = min((f for f in followers if node_of(f) == node), key=lambda f: f.start_ns)
        kind = "voter" if s.instance.startswith("controller-") else "observer"
        happened.append((s.start_ns, s.instance, f"`appendAsFollower` ({kind}): the records came in a Fetch answer"))
    if moved:
        a = moved[0].attributes
        happened.append((moved[0].start_ns, f"controller {controller}",
                         f"a Fetch from controller {a.get('kafka.raft.fetch.replica_id')} reported offset "
                         f"{a.get('kafka.raft.fetch.offset')}: sorted end offsets "
                         f"{a.get('kafka.raft.hw.sorted_offsets')}, the high watermark moved to "
                         f"{a.get('kafka.raft.high_watermark')}: **committed**"))
    happened.append((commit.start_ns, f"controller {controller}", "the QuorumController's `handleCommit`: the parked "
                     f"event's future completes ({at(commit)})"))
    happened.append((response.end_ns, f"controller {controller}",
                     f"the answer to broker {ev.facts['broker']}'s CreateTopics sent"))
    rows = ["| after the write event | on | what |", "|---:|---|---|"]
    rows += [f"| +{between(write.end_ns, t)} | {where} | {what} |" for t, where, what in sorted(happened)]
    unknown = ""
    if moved:  # a voter that had the records but had not said so yet: the leader knows only what Fetches report
        a = moved[0].attributes
        behind = [v for v, o in zip(a.get("kafka.raft.hw.sorted_voters", []), a.get("kafka.raft.hw.sorted_offsets", []),
                                    strict=False) if o <= last]
        early = [v for v in behind if any(node_of(f) == v and f.start_ns < moved[0].start_ns for f in followers)]
        if early:
            unknown = (f" Controller {early[0]} had appended them before the commit too, but the leader did not know "
                       "it yet: it learns how far a follower got only from that follower's next Fetch, so it counted "
                       "two voters, not three.")
    explain = f"""
From the end of the write event on controller {controller}:

{chr(10).join(rows)}

The leader waited for its linger time before writing (it gathers the records of several events into one batch),
then had to wait for a follower to fetch them: its Fetch said how far its log reached, and the records counted as
committed once two voters of three had them.{unknown} The voters that wrote them: controllers
{', '.join(map(str, voters))}; the brokers {', '.join(map(str, observers)) or '(none yet)'} fetched them too, as
observers, which the high watermark does not wait for.
"""
    return Result.passed(explain, committed_ns=(moved[0].end_ns if moved else commit.start_ns))


commit = Step(
    title="Into the metadata log, and committed",
    about=("KafkaRaftClient.pollLeader", "KafkaMetadataLog.appendAsLeader", "KafkaRaftClient.handleFetchRequest",
           "QuorumController.QuorumMetaLogListener.handleCommit"),
    text="""
The write event handed its records to the Raft client (`prepareAppend`); the client's own thread writes them to
the metadata log (`KafkaRaftClient.pollLeader` → `KafkaMetadataLog.appendAsLeader`), the followers fetch them, and
the leader's `KafkaRaftClient.handleFetchRequest` moves the high watermark past them once a majority has them (lesson
`raft`). Then the Raft client calls the controller's listener, `QuorumController.QuorumMetaLogListener.handleCommit`,
which completes the parked event's future, and `ControllerApis` sends the answer.
""",
    predict=Predict(
        question="How many of the three controllers must have written the records to their log before your client "
                 "gets its answer?",
        choices={"a": "one: the active controller",
                 "b": "two: a majority of the voters",
                 "c": "all three, and both brokers as well"},
        answer="b",
        why="""
The answer waits for the commit, and the commit for a majority of the voters: two of three. The third controller and
the brokers may still be fetching when your client hears "created"; they will have the records soon, but nothing
waited for them.
"""),
    check=committed_by_majority,
    wait_s=15,
)


# -- 4. Every node applies it ----------------------------------------------------------------------------------------

def _broker_publish(ev: Evidence, broker: int) -> tuple[SpanRecord, Spans] | None:
    for load in _on(covering(ev, "MetadataLoader.handleCommit"), broker):
        trace = ev.spans.where(trace_id=load.trace_id)
        published = [s for s in trace.where(name="BrokerMetadataPublisher.onMetadataUpdate")
                     if TOPIC in s.attributes.get("kafka.metadata.topics.created", [])]
        if published:
            return load, trace
    return None


def applied_everywhere(ev: Evidence) -> Result:
    controller, committed_ns = ev.facts["controller"], ev.facts["committed_ns"]
    standbys = [n for n in ev.facts["controller_ids"] if n != controller]
    replays = {n: [s for s in _on(covering(ev, "QuorumController.replay"), n)
                   if s.attributes.get("kafka.controller.role") == "standby"] for n in standbys}
    published = {b: _broker_publish(ev, b) for b in ev.facts["broker_ids"]}
    missing = [f"controller {n}" for n, found in replays.items() if not found and ev.alive.get(n)]
    missing += [f"broker {b}" for b, found in published.items() if found is None and ev.alive.get(b)]
    if missing:
        return Result.failed(expected=f"every running node applying offsets {ev.facts['first_offset']}-"
                                      f"{ev.facts['last_offset']}", seen=f"not yet: {', '.join(missing)}",
                             hint="Each node applies the records once it learns the new high watermark, with its "
                                  "next Fetch answer; press Enter again.")
    applied: list[tuple[int, str]] = []  # (when, its row), to list in time order
    for n, found in sorted(replays.items()):
        if found:
            types = ", ".join(found[0].attributes.get("kafka.metadata.record.types", []))
            at_ns = found[0].start_ns
            applied.append((at_ns, f"| controller {n} (standby) | +{between(committed_ns, at_ns)} | replayed {types} "
                                   f"(trace `{found[0].trace_id[:8]}`) |"))
    led: dict[int, list[str]] = {}
    for b, found in sorted(published.items()):
        if found is None:
            continue
        load, trace = found
        delta = trace.where(name="ReplicaManager.applyDelta").first() if len(
            trace.where(name="ReplicaManager.applyDelta")) else None
        leads = delta.attributes.get("kafka.partitions.leader", []) if delta is not None else []
        follows = delta.attributes.get("kafka.partitions.follower", []) if delta is not None else []
        led[b] = [p for p in leads if p.startswith(f"{TOPIC}-")]
        applied.append((load.start_ns, f"| broker {b} | +{between(committed_ns, load.start_ns)} | published: leads "
                        f"{', '.join(leads) or 'nothing'}, follows {', '.join(follows) or 'nothing'} "
                        f"(trace `{load.trace_id[:8]}`) |"))
    rows = ["| node | applied, after the commit | what it did |", "|---|---:|---|"]
    rows += [row for _, row in sorted(applied)]
    explain = f"""
No controller told anyone anything. Each node read the records from the metadata log it replicates, and applied them
once its high watermark passed them:

{chr(10).join(rows)}

A standby controller's `QuorumController.replay` (KR.replay, role `standby`) applies exactly what the active one
applied, so each holds the whole metadata in memory and could take over without reading anything (lesson
`zk-or-kraft` measures what that is worth). A broker's trace reads `MetadataLoader.handleCommit` →
`BrokerMetadataPublisher.onMetadataUpdate` → `ReplicaManager.applyDelta` → `makeLeaders` / `makeFollowers`: the
records become a `MetadataDelta`, a new `MetadataImage` goes to the metadata cache, and the replica manager runs the
same code a 1.0.2 broker runs on a LeaderAndIsr request.

The gaps after the commit are mostly waiting: a node learns the new high watermark from the leader's answer to its
next Fetch, and a Fetch that finds nothing new waits at the leader for up to 500 ms.
"""
    return Result.passed(explain, led=" ".join(f"{b}:{','.join(p)}" for b, p in led.items()))


apply = Step(
    title="Every node applies it",
    about=("MetadataLoader.handleCommit", "BrokerMetadataPublisher.onMetadataUpdate", "ReplicaManager.applyDelta",
           "QuorumController.replay"),
    text=f"""
The topic exists once its records are committed, but a broker cannot lead a partition of `{TOPIC}` until it knows
about it. In ZooKeeper mode the controller pushed LeaderAndIsr and UpdateMetadata requests to every broker. KRaft
has no such requests: each broker is a Raft *observer* of the metadata log, and its `MetadataLoader` is a listener
of its Raft client, called with every committed batch (`handleCommit`, KR.publish). The loader hands a delta to
`BrokerMetadataPublisher.onMetadataUpdate`, whose `ReplicaManager.applyDelta` makes the broker lead or follow. The
standby controllers read the same batches and apply them with `QuorumController.replay`.
""",
    predict=Predict(
        question=f"How does broker {{broker}} learn that `{TOPIC}` exists, and which of its partitions to lead?",
        choices={"a": "the active controller sends it LeaderAndIsr and UpdateMetadata requests",
                 "b": "it reads the committed records from the metadata log it fetches, and works it out itself",
                 "c": "from the client, on its next Metadata request"},
        answer="b",
        why="""
The log is the only channel: a broker fetches it like a follower and applies each committed record. The partition
records say who leads, so each broker finds its own partitions in them. A broker that was down catches up the same
way, from the offset it had reached, or from a snapshot when the log has been trimmed.
"""),
    check=applied_everywhere,
    wait_s=20,
)


LESSON = Lesson(
    name="metadata-journey",
    title="A metadata change's journey",
    summary="one CreateTopics in KRaft mode: forwarded by a broker, an event on the active controller's queue, "
            "records replayed before commit, written to the metadata log, committed by a majority, applied by the "
            "standbys and every broker",
    minutes=10,
    seed="002",
    intro=INTRO,
    setup=SETUP,
    mode="kraft",
    controllers=3,
    brokers=2,
    steps=[forward, queue, commit, apply],
    outro="""
One change, five hops: client to broker, broker to the active controller, the controller's queue, the log, and the
log to every node. Only the commit needs a majority; everything else is one node doing its own work, in order.

To go further: `kafka-edu tui --run {run_dir}` shows this run's metadata log in its Quorum pane (Enter on a record
opens the trace that wrote it); `kafka-edu dump-log --cluster-metadata-decoder` prints the records on disk; lesson
`raft` takes the quorum apart, and `zk-or-kraft` compares a controller failover in both modes.
""",
)
