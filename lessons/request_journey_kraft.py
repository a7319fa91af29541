"""Lesson 8, a request's journey on Kafka 3.9 (FIDELITY RQ; Kafka 3.9's kafka.network, KafkaApis, ReplicaManager,
Partition, UnifiedLog, LocalLog, LogValidator, FetchManager and the replica fetcher, on a KRaft broker): one idempotent
acks=all produce from the connection to the log and back, the follower whose fetches complete it, a consumer's fetch
session (KIP-227), and what changed since lesson `request-journey`'s Kafka 1.0.2, row by row.

Read top to bottom: each step's checks come just before the step that uses them.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

from kafka_edu.lessons import Command, Evidence, Lesson, Predict, Result, Step
from kafka_edu.lessons.traces import at, node_of, ref, started_after, took
from kafka_edu.tracing.query import SpanRecord, Spans

TOPIC = "receipts"
PARTITION = f"{TOPIC}-0"
CONSUMER_TIMEOUT_MS = 3000

INTRO = """
Lesson `request-journey` followed one produce through a Kafka 1.0.2 broker. A KRaft broker runs Kafka 3.9's request
path, and this lesson follows the same kind of journey there, further: an idempotent producer's `acks=all` record
from the socket to the segment file, the follower whose fetches let the leader answer, and a consumer reading it
back over an incremental fetch session. At the end, each step is set against the 1.0.2 step it replaces.

The sources (Kafka 3.9.0) are `core/src/main/scala/kafka/network/SocketServer.scala`,
`kafka/server/KafkaRequestHandler.scala`, `KafkaApis.scala`, `ReplicaManager.scala`, `DelayedProduce.scala`,
`FetchSession.scala`, `AbstractFetcherThread.scala`, `kafka/cluster/Partition.scala`, `kafka/log/UnifiedLog.scala`,
`LocalLog.scala` and `storage/src/main/java/org/apache/kafka/storage/internals/log/LogValidator.java`; the ports are
`kafka_edu/v3_9/core/network/socket_server.py`, `kafka_edu/v3_9/core/server/kafka_request_handler.py`,
`kafka_apis.py`, `replica_manager.py`, `delayed_produce.py`, `fetch_session.py`, `abstract_fetcher_thread.py`,
`kafka_edu/v3_9/core/cluster/partition.py`, `kafka_edu/v3_9/core/log/unified_log.py`, `local_log.py` and
`kafka_edu/v3_9/storage/storage/internals/log/log_validator.py`. `docs/produce-side-by-side.md` sets a recorded
produce on both versions next to each other.
"""

SETUP = """
The lesson starts three KRaft controllers (node ids 1 to 3) and two KRaft brokers (node ids 4 and 5) with Kafka
3.9's defaults: per broker `num.network.threads=3` processors, `num.io.threads=8` request handlers,
`queued.max.requests=500`, `replica.fetch.wait.max.ms=500` (how long a follower's empty fetch waits at the leader).
This lesson is about the brokers; lessons `raft` and `metadata-journey` are about the controllers.
"""


# -- reading a request's trace ----------------------------------------------------------------------------------------

def root_of(spans: Spans, trace_id: str) -> SpanRecord | None:
    """The client request a trace is: its `RequestChannel.Request` root."""
    roots = spans.where(trace_id=trace_id, name="RequestChannel.Request")
    return roots.first() if len(roots) else None


def one(spans: Spans, trace_id: str, step: str) -> SpanRecord | None:
    found = spans.where(trace_id=trace_id, step=step)
    return found.first() if len(found) else None


def thread(span: SpanRecord | None) -> str:
    return span.attributes.get("thread.name", "?") if span is not None else "?"


def plus(span: SpanRecord, root: SpanRecord) -> str:
    """When a span started, counted from its request's root."""
    return f"+{(span.start_ns - root.start_ns) / 1e6:.2f} ms"


def linked_traces(span: SpanRecord) -> list[str]:
    return [trace_id for trace_id, _ in span.links]


def kafka_python(ev: Evidence) -> dict[str, Any]:
    """How the learner's shell finds kafka-python's console tools, installed beside `kafka-edu`, which may not be on
    the PATH (the lesson runner finds them either way)."""
    ours = Path(sys.executable).parent / "kafka-python"
    if not ours.exists():
        return {"kafka_python": "kafka-python"}
    found = shutil.which("kafka-python")
    if found and Path(found).resolve() == ours.resolve():
        return {"kafka_python": "kafka-python"}
    try:
        return {"kafka_python": str(ours.relative_to(Path.cwd()))}
    except ValueError:
        return {"kafka_python": str(ours)}


# -- 1. A partition with a leader and a follower ------------------------------------------------------------------

def leader_and_follower(ev: Evidence) -> Result:
    since = ev.facts["action_ns"]
    deltas = started_after(ev.spans.where(name="ReplicaManager.applyDelta"), since)
    leads = [s for s in deltas if PARTITION in s.attributes.get("kafka.partitions.leader", [])]
    follows = [s for s in deltas if PARTITION in s.attributes.get("kafka.partitions.follower", [])]
    if not leads:
        return Result.failed(expected=f"a broker making itself leader of `{PARTITION}` (`ReplicaManager.applyDelta`)",
                             seen="no broker has applied such a change since this step began",
                             hint="run the command above; if it says the topic exists, this run has it already: "
                                  "start the lesson again on a new cluster")
    leader = node_of(leads[0])  # the topic's first leader: the change this step's command made
    follows = [s for s in follows if node_of(s) != leader]
    if not follows:
        return Result.failed(expected=f"the other broker following `{PARTITION}`",
                             seen=f"broker {leader} leads it; no broker follows it yet",
                             hint="Press Enter again in a moment; if the topic was created with one replica, start "
                                  "the lesson again and create it as printed (`--replication-factor 2`).")
    follower = node_of(follows[0])
    rounds = [s for s in started_after(ev.spans.where(step="RQ.follower.1"), follows[0].start_ns)
              if node_of(s) == follower and PARTITION in s.attributes.get("kafka.partitions", [])]
    if not rounds:
        return Result.failed(expected=f"broker {follower}'s replica fetcher fetching `{PARTITION}` from broker "
                                      f"{leader}", seen="no fetch round for it yet",
                             hint="Press Enter again in a moment.")
    r = rounds[0]
    explain = f"""
Both brokers read the new topic from the metadata log (lesson `metadata-journey`) and applied it with
`ReplicaManager.applyDelta`: broker {leader} made itself **leader** of `{PARTITION}` ({at(leads[0])}), broker
{follower} made itself a **follower** ({at(follows[0])}) and added the partition to a `ReplicaFetcherThread` that
fetches from broker {leader}.

That thread is already at work: its first fetch round, `AbstractFetcherThread.processFetchRequest` ({at(r)},
thread `{thread(r)}`), began {took((r.start_ns - follows[0].start_ns) / 1e6)} after the change was
applied. From now on it fetches over and over; a fetch that finds nothing new waits at the leader for up to 500 ms.
"""
    return Result.passed(explain, leader=leader, follower=follower)


topic = Step(
    title="A partition with a leader and a follower",
    about=("ReplicaManager.applyDelta", "AbstractFetcherThread.processFetchRequest"),
    text=f"""
Create `{TOPIC}`, one partition with two replicas. On a KRaft broker no LeaderAndIsr request arrives: each broker
applies the topic's records from the metadata log with `ReplicaManager.applyDelta`, and the one that finds itself a
follower starts fetching from the leader. Its fetch rounds, `AbstractFetcherThread.processFetchRequest`
(RQ.follower.1), are what will complete the produce of the next steps.
""",
    action=Command(f"kafka-edu topics --create --topic {TOPIC} --partitions 1 --replication-factor 2 "
                   "--bootstrap-server {bootstrap}"),
    check=leader_and_follower,
    wait_s=30,
)


# -- 2. The connection, the network thread and the handler ----------------------------------------------------------

def produce_arrived(ev: Evidence) -> Result:
    since, leader = ev.facts["action_ns"], ev.facts["leader"]
    appends = [s for s in started_after(ev.spans.where(step="RQ.produce.4"), since)
               if s.attributes.get("kafka.topic") == TOPIC]
    if not appends:
        return Result.failed(expected=f"an idempotent acks=all Produce to `{PARTITION}` on broker {leader}",
                             seen="none since this step began", hint="run the kcat command above")
    root = root_of(ev.spans, appends[-1].trace_id)
    produce = one(ev.spans, appends[-1].trace_id, "RQ.produce.1")
    if root is None or produce is None:
        return Result.failed(expected="the whole Produce request in the traces", seen="only part of it yet",
                             hint="Press Enter again in a moment.")
    acks = produce.attributes.get("kafka.produce.acks")
    if acks != -1:
        return Result.failed(expected="a Produce with acks=all (-1)", seen=f"acks={acks}",
                             hint="run the command as printed, with -X acks=all", wait=False)
    client = root.attributes.get("kafka.client.id", "")
    inits = [r for r in started_after(ev.spans.where(name="RequestChannel.Request"), since)
             if r.attributes.get("kafka.api.name") == "InitProducerId" and r.attributes.get("kafka.client.id") == client
             and r.start_ns < root.start_ns]
    if not inits:
        return Result.failed(expected="an InitProducerId from your producer before its Produce: an idempotent producer "
                                      "asks for a producer id first",
                             seen=f"client `{client}` sent its Produce without one", wait=False,
                             hint="run the command as printed, with -X enable.idempotence=true")
    a = root.attributes
    connection = a.get("kafka.connection.id", "")
    remote = (connection.split("-") + ["", ""])[1]  # Kafka's connection id: local-remote-index
    accepts = [s for s in ev.spans.where(step="RQ.net.3", instance=root.instance)
               if s.attributes.get("kafka.client.address") == remote and s.start_ns <= root.start_ns]
    accept = accepts[-1] if accepts else None
    registered = [s for s in ev.spans.where(step="NW.processor.1", instance=root.instance)
                  if accept is not None and (accept.trace_id, accept.span_id) in s.links]
    on_connection = [r for r in ev.spans.where(name="RequestChannel.Request", instance=root.instance)
                     if r.attributes.get("kafka.connection.id") == connection and r.start_ns <= root.start_ns]
    rows = ["| request | network thread (RQ.net.5) | handler thread (RQ.net.7) | took |", "|---|---|---|---:|"]
    for r in on_connection:
        rows.append(f"| {r.attributes.get('kafka.api.name')} v{r.attributes.get('kafka.api.version')} | "
                    f"`{thread(one(ev.spans, r.trace_id, 'RQ.net.5'))}` | "
                    f"`{thread(one(ev.spans, r.trace_id, 'RQ.net.7'))}` | {took(r.duration_ms)} |")
    if accept is not None:
        owner = (f"; processor {registered[0].attributes.get('kafka.processor.id')} took it over in "
                 f"`Processor.configureNewConnections` ({at(registered[0])}, which links the accept)"
                 if registered else "")
        accepted = (f"The `Acceptor` of listener `{accept.attributes.get('kafka.listener')}` accepted it from "
                    f"{remote} (`Acceptor.accept`, {at(accept)}, thread `{thread(accept)}`){owner}.")
    else:
        accepted = "Its `Acceptor.accept` span is not in this run's traces (the connection is older than the run?)."
    sends = [s for r in inits for s in ev.spans.where(trace_id=r.trace_id, name="InterBrokerSendThread.sendRequests")]
    allocated = [s for s in sends if s.attributes.get("kafka.api.name") == "AllocateProducerIds"]
    asked = node_of(inits[-1])
    where = (f"broker {asked}, the leader" if asked == leader else
             f"broker {asked}, not the leader: an idempotent producer's id is good for every partition, so any "
             "broker may hand one out")
    ids = (f" Broker {node_of(allocated[0])} had no block of producer ids yet: it asked the active controller for one "
           f"(`AllocateProducerIds`, {at(allocated[0])}), since on KRaft the controller hands out producer ids in "
           "blocks, recorded in the metadata log (KIP-730)." if allocated else "")
    times = "twice" if len(inits) == 2 else f"{len(inits)} times"
    retried = (f" kcat sent InitProducerId {times}: while a broker waits for its block it answers "
               "COORDINATOR_LOAD_IN_PROGRESS, a retriable error (the `Failed to acquire idempotence PID ... retrying` "
               "line kcat may have printed), and the producer asks again." if len(inits) > 1 else "")
    explain = f"""
Your producer, client `{client}`, sent its Produce ({ref(root)}) on connection `{connection}`. {accepted}
Every request on that connection was read by that processor's network thread and handled by whichever handler
thread took it from the shared request queue:

{chr(10).join(rows)}

Before its Produce, the idempotent producer asked for a producer id and epoch with **InitProducerId**, sent to
{where} ({at(inits[-1])}).{ids}{retried} With its id and epoch it numbers its batches per partition (sequence 0
for the first), so that the leader can recognise a batch it retries after a lost answer and not write it twice
(KIP-98).
"""
    return Result.passed(explain, produce_trace=root.trace_id, client=client)


connection = Step(
    title="The connection, the network thread, the handler",
    about=("Acceptor.accept", "Processor.processCompletedReceives", "KafkaRequestHandler.run"),
    text="""
Send one record with kcat, as an **idempotent** producer with `acks=all`. Its requests take the road lesson
`request-journey` showed for 1.0.2, with 3.9's steps: the listener's `Acceptor.accept` (RQ.net.3) hands the new
connection to a `Processor` (a network thread), which owns it from then on; for each request,
`Processor.processCompletedReceives` (RQ.net.5) parses the header, checks that this listener enables the API and
version, builds the request and puts it on the one shared request queue; a `KafkaRequestHandler.run` (RQ.net.7)
thread takes it and runs `KafkaApis.handle`.

Partition 0's leader is broker {leader}; kcat finds that out itself from its Metadata request. The first time
an idempotent producer starts on a new cluster, kcat may print `Failed to acquire idempotence PID ... Coordinator load
in progress: retrying`: the check shows why.
""",
    predict=Predict(
        question="An idempotent producer needs something from the broker before its first Produce. What?",
        choices={"a": "nothing: it numbers its batches itself, from 0",
                 "b": "a producer id and epoch (InitProducerId), to stamp on every batch",
                 "c": "a lock on the partition, so that no other producer writes at the same time"},
        answer="b",
        why="""
The sequence numbers mean something only per producer: the leader remembers, for each producer id, the last
batches it appended, and compares a new batch's sequence with them. So the producer first gets an id (and an epoch,
which a newer instance with the same id would bump). On a KRaft cluster the ids come from the controller in blocks.
"""),
    action=Command(f'echo "one receipt" | kcat -P -b {{bootstrap}} -t {TOPIC} -p 0 -X enable.idempotence=true '
                   "-X acks=all"),
    check=produce_arrived,
    wait_s=30,
)


# -- 3. Down to the log ------------------------------------------------------------------------------------------------

PRODUCE_ROWS = [("RQ.produce.1", "NW.apis.1"), ("RQ.produce.2", "RQ.produce.1"), ("RQ.produce.3", "RQ.produce.2"),
                ("RQ.produce.4", "RQ.produce.3"), ("RQ.produce.5", "RQ.produce.4"), ("RQ.produce.6", "RQ.produce.5"),
                ("RQ.produce.7", "RQ.produce.5")]  # (row, the row it runs inside)


def hw_moved_at_append(ev: Evidence) -> str:
    leader_append = one(ev.spans, ev.facts["produce_trace"], "RQ.produce.4")
    return "a" if leader_append is not None and leader_append.attributes.get("kafka.leader.hw.change") == \
        "INCREASED" else "b"


def down_to_the_log(ev: Evidence) -> Result:
    trace_id = ev.facts["produce_trace"]
    trace = ev.spans.where(trace_id=trace_id)
    found = {step: one(ev.spans, trace_id, step) for step in ("NW.apis.1", *(row for row, _ in PRODUCE_ROWS))}
    missing = [step for step, span in found.items() if span is None]
    if missing:
        return Result.failed(expected="RQ.produce.1 to RQ.produce.7 in your produce's trace",
                             seen=f"missing: {', '.join(missing)}",
                             hint="Press Enter again in a moment; if they stay missing, report this run.")
    names = {s.span_id: s.step or s.name for s in trace}
    misplaced = [f"{row} inside {names.get(found[row].parent_id, 'nothing')}" for row, inside in PRODUCE_ROWS
                 if found[row].parent_id != found[inside].span_id]
    if misplaced:
        return Result.failed(expected="each step inside the one that calls it, as in Kafka's code",
                             seen="; ".join(misplaced), hint="Report this run: the trace is not nested as the code "
                                                            "calls.", wait=False)
    root = root_of(ev.spans, trace_id)
    produce, verify, append, leader, log, validate, local = (found[row] for row, _ in PRODUCE_ROWS)
    rows = ["| at | span | step | took |", "|---:|---|---|---:|"]
    shown = ("RQ.net.5", "RQ.net.7", "NW.apis.1", *(row for row, _ in PRODUCE_ROWS))
    for s in sorted((s for s in trace if s.step in shown), key=lambda s: s.start_ns):
        rows.append(f"| {plus(s, root)} | `{s.name}` | {s.step} | {took(s.duration_ms)} |")
    la, va, ga = log.attributes, validate.attributes, leader.attributes
    receive = one(ev.spans, trace_id, "RQ.net.5")
    handler = one(ev.spans, trace_id, "RQ.net.7")
    waited = (f" The root starts when the processor's selector has read the whole request: the "
              f"{took((receive.start_ns - root.start_ns) / 1e6)} "
              "before `processCompletedReceives` is the rest of that poll, and the "
              f"{took((handler.start_ns - receive.end_ns) / 1e6)} between it and `KafkaRequestHandler.run` the request "
              "queue." if receive is not None and handler is not None else "")
    transactional = verify.attributes.get("kafka.transactional.id") or ""
    explain = f"""
Once the network thread had parsed it (RQ.net.5), all of it ran on one handler thread, `{thread(produce)}`, inside
`KafkaApis.handle` (counted from the request's root, `RequestChannel.Request`).{waited}

{chr(10).join(rows)}

- `ReplicaManager.handleProduceAppend` (RQ.produce.2) had nothing to verify: the producer is idempotent,
  {'transactional id `' + transactional + '`' if transactional else 'not transactional'}, so no question went to a
  transaction coordinator (KIP-890 verifies only transactional batches).
- `UnifiedLog.append` (RQ.produce.5) gave your batch offset {la.get('kafka.offset.first')}
  ({la.get('kafka.records.count')} record, {la.get('kafka.records.bytes')} bytes): the log end offset went from
  {la.get('kafka.log.end_offset.before')} to {la.get('kafka.log.end_offset')}.
- Inside it, `LogValidator.validateMessagesAndAssignOffsets` (RQ.produce.6) checked the batch (compression
  {va.get('kafka.compression.source')}, {va.get('kafka.timestamp.type')} timestamps) and stamped it with the leader
  epoch {va.get('kafka.leader.epoch')} and its offsets; `LocalLog.append` (RQ.produce.7) wrote it to the active
  segment, the one that starts at offset {local.attributes.get('kafka.log.segment')}.
- `Partition.appendRecordsToLeader` (RQ.produce.4) reported the high watermark **{ga.get('kafka.leader.hw.change')}**
  and left it at {ga.get('kafka.high_watermark')}: the record is in the leader's log, and not yet committed.
"""
    return Result.passed(explain, appended_offset=la.get("kafka.offset.last"))


log = Step(
    title="acks=all, down to the log",
    about=("KafkaApis.handleProduceRequest", "ReplicaManager.handleProduceAppend", "ReplicaManager.appendRecords",
           "Partition.appendRecordsToLeader", "UnifiedLog.append", "LogValidator.validateMessagesAndAssignOffsets",
           "LocalLog.append"),
    text="""
Follow your produce down the handler thread. `KafkaApis.handleProduceRequest` (RQ.produce.1) checks the request (a
v3+ Produce carries exactly one batch per partition, in the v2 format) and calls
`ReplicaManager.handleProduceAppend` (RQ.produce.2), which first has transactional batches verified with their
coordinator (new in 3.9, KIP-890) and then calls `ReplicaManager.appendRecords` (RQ.produce.3). For each partition,
`Partition.appendRecordsToLeader` (RQ.produce.4) checks that this broker still leads it and that acks=all has enough
in-sync replicas, then `UnifiedLog.append` (RQ.produce.5) takes the log's lock, validates the batch and gives it
offsets (`LogValidator.validateMessagesAndAssignOffsets`, RQ.produce.6), checks the producer's sequence, and
`LocalLog.append` (RQ.produce.7) writes it to the active segment. In 1.0.2 a single `Log.append` did the work of
the last three, calling the validator and the segment itself.

No action: the check reads the trace of the produce you just sent.
""",
    predict=Predict(
        question="`UnifiedLog.append` has written your record. Where is the partition's high watermark now?",
        choices={"a": "past your record: it is in the leader's log, so it is committed",
                 "b": "where it was: the follower does not have the record yet",
                 "c": "there is no high watermark on a KRaft broker; the metadata log's commit replaces it"},
        answer=hw_moved_at_append,
        why="""
The high watermark is the smallest log end offset among the in-sync replicas (in 3.9 the *maximal* ISR, which
already counts a replica whose addition is pending, KIP-497). The follower is in the ISR and has not fetched the
record yet, so the high watermark cannot move. Consumers read only below it, and acks=all waits for it.
"""),
    check=down_to_the_log,
    wait_s=15,
)


# -- 4. The delayed produce and the follower ------------------------------------------------------------------------

def completed_by(ev: Evidence) -> str:
    tries = ev.spans.where(trace_id=ev.facts["produce_trace"], step="RQ.produce.8")
    done = [s for s in tries if s.attributes.get("kafka.delayed.completed")]
    if not done:
        return "a"
    fetches = [s for t in linked_traces(done[0]) for s in ev.spans.where(trace_id=t, step="RQ.fetch.1")]
    if fetches:
        return "b"
    return "c" if "ExpirationReaper" in thread(done[0]) else "a"


def follower_completes(ev: Evidence) -> Result:
    trace_id, leader, follower = ev.facts["produce_trace"], ev.facts["leader"], ev.facts["follower"]
    root = root_of(ev.spans, trace_id)
    tries = sorted(ev.spans.where(trace_id=trace_id, step="RQ.produce.8"), key=lambda s: s.start_ns)
    if root is None or not tries:
        return Result.failed(expected="`DelayedProduce.tryComplete` (RQ.produce.8) in your produce's trace",
                             seen="no try of a delayed produce in it", wait=False,
                             hint="the producer must ask for acks=all: run the lesson again and the command as "
                                  "printed")
    done = [s for s in tries if s.attributes.get("kafka.delayed.completed")]
    if not done:
        return Result.failed(expected="the delayed produce completed", seen=f"{len(tries)} tries, none completed",
                             hint="Press Enter again in a moment.")
    complete = done[0]
    errors = [e for e in complete.attributes.get("kafka.partitions.errors", []) if not e.endswith(":NONE")]
    if errors:
        return Result.failed(expected=f"the produce to `{PARTITION}` acknowledged", seen=f"it ended with {errors}",
                             hint=f"was broker {follower} paused or stopped? Let it run and start the lesson again.",
                             wait=False)
    fetch = next((s for t in linked_traces(complete) for s in ev.spans.where(trace_id=t, step="RQ.fetch.1")), None)
    if fetch is None or fetch.attributes.get("kafka.fetch.replica_id") != follower:
        seen = (f"a Fetch from replica {fetch.attributes.get('kafka.fetch.replica_id')}" if fetch is not None
                else f"a try on thread `{thread(complete)}` that links no Fetch")
        if fetch is None and complete.links:  # the Fetch that triggered it is still being written
            return Result.failed(expected=f"the Fetch that completed your produce, from broker {follower}",
                                 seen=f"the completing try links trace `{complete.links[0][0][:8]}`, not in the "
                                      "traces yet", hint="Press Enter again in a moment.")
        return Result.failed(expected=f"the completing try triggered by broker {follower}'s Fetch", seen=seen,
                             hint="Report this run if the follower was running all along.", wait=False)
    rounds = [s for t in linked_traces(fetch) for s in ev.spans.where(trace_id=t, step="RQ.follower.1")]
    if not rounds:
        return Result.failed(expected=f"broker {follower}'s fetch round (RQ.follower.1) that sent that Fetch",
                             seen=f"the leader's `KafkaApis.handleFetchRequest` ({at(fetch)}) links none",
                             hint="Press Enter again in a moment: the follower writes its round when it ends.")
    next_round = rounds[0]
    offset = ev.facts.get("appended_offset", 0)
    carried = [s for s in ev.spans.where(step="RQ.fetch.4", instance=fetch.instance)
               if s.attributes.get("kafka.fetch.replica_id") == follower and s.attributes.get("kafka.topic") == TOPIC
               and s.attributes.get("kafka.records.bytes", 0) > 0 and s.attributes.get("kafka.fetch.offset", -1)
               <= offset and s.end_ns >= root.start_ns]
    fetched_at = one(ev.spans, fetch.trace_id, "RQ.fetch.4")
    sent = one(ev.spans, trace_id, "NW.channel.resp")
    rows = ["| at | where | what |", "|---:|---|---|"]
    append = one(ev.spans, trace_id, "RQ.produce.5")
    if append is not None:
        rows.append(f"| {plus(append, root)} | broker {leader}, `{thread(append)}` | your batch appended at offset "
                    f"{offset}; the high watermark stays |")
    waiting = [t for t in tries if not t.attributes.get("kafka.delayed.completed")]
    for t in waiting:
        rows.append(f"| {plus(t, root)} | broker {leader}, `{thread(t)}` | `DelayedProduce.tryComplete`: not yet "
                    "(pending: " + ", ".join(t.attributes.get("kafka.partitions.pending", [])) + ")" + " |")
    if carried:
        c = carried[0]
        woken = [s for s in ev.spans.where(trace_id=c.trace_id, step="RQ.fetch.5")
                 if trace_id in linked_traces(s) and s.attributes.get("kafka.delayed.completed")]
        how = (f"parked Fetch, woken by your append (`DelayedFetch.tryComplete` at {plus(woken[0], root)}, from "
               "the action queue at the end of your produce's `KafkaApis.handle`),"
               if woken else "Fetch")
        rows.append(f"| {plus(c, root)} | broker {leader}, `{thread(c)}` | broker {follower}'s {how} reads "
                    f"{c.attributes.get('kafka.records.bytes')} bytes from offset "
                    f"{c.attributes.get('kafka.fetch.offset')} (trace `{c.trace_id[:8]}`) |")
    rows.append(f"| {plus(next_round, root)} | broker {follower}, `{thread(next_round)}` | having appended them, its "
                f"next fetch round (RQ.follower.1, trace `{next_round.trace_id[:8]}`) asks from offset "
                f"{fetched_at.attributes.get('kafka.fetch.offset') if fetched_at else '?'} |")
    if fetched_at is not None:
        rows.append(f"| {plus(fetched_at, root)} | broker {leader}, `{thread(fetched_at)}` | `Partition.fetchRecords` "
                    "for that Fetch: the follower's new position moves the high watermark |")
    rows.append(f"| {plus(complete, root)} | broker {leader}, `{thread(complete)}` | `DelayedProduce.tryComplete`: "
                "**done**, in your produce's trace, linked to that Fetch |")
    if sent is not None:
        rows.append(f"| {plus(sent, root)} | broker {leader}, `{thread(sent)}` | the answer goes to the processor: "
                    "`RequestChannel.sendResponse` |")
    early = len(waiting)
    twice = (f"The {early} early tries are `tryCompleteElseWatch`'s: one before the operation is put on its "
             "partition's watch list and one after, so that a high watermark that moves in between is not missed."
             if early > 1 else "")
    explain = f"""
Your produce waited {took(root.attributes.get('kafka.request.remote_time_ms', 0))} in the produce purgatory (Kafka's
RemoteTimeMs, out of {took(root.attributes.get('kafka.request.total_time_ms', root.duration_ms))} in all):

{chr(10).join(rows)}

{twice}

So the record went from the leader to the follower in one fetch, and the *next* fetch told the leader so: a
follower says how far it has got only by asking for the offset after it. Handling that Fetch
({at(fetch)}), the leader updated the follower's state, raised the high watermark past your record and tried the
partition's delayed operations at once, on that fetch's handler thread. The completing try stays in your produce's
trace and links the fetch that caused it; the fetch links the follower's round through the `traceparent` the
follower sent in its request header.
"""
    return Result.passed(explain)


delayed = Step(
    title="The delayed produce and the follower",
    about=("DelayedProduce.tryComplete", "AbstractFetcherThread.processFetchRequest", "KafkaApis.handleFetchRequest",
           "Partition.fetchRecords"),
    text="""
With acks=all, `ReplicaManager.appendRecords` does not answer after the leader's append. It creates a
`DelayedProduce` and tries it at once (`DelayedProduce.tryComplete`, RQ.produce.8): done only when the high
watermark has passed the batch. Not yet, so the request is parked in the produce purgatory, watched by its
partition, and the handler thread moves on to other requests.

On the follower, a `ReplicaFetcherThread` runs fetch rounds (`AbstractFetcherThread.processFetchRequest`,
RQ.follower.1), each one a Fetch to the leader. The leader handles it like a consumer's
(`KafkaApis.handleFetchRequest`, RQ.fetch.1), and in `Partition.fetchRecords` (RQ.fetch.4) it also records how far
that follower's log reaches. No action: the check follows your produce until it is answered.
""",
    predict=Predict(
        question="Which thread finally completes your parked produce and queues its answer?",
        choices={"a": "the handler thread that took the produce, once it has waited",
                 "b": "a handler thread handling the follower's next Fetch",
                 "c": "the purgatory's reaper thread, which checks parked requests every so often"},
        answer=completed_by,
        why="""
Nothing polls a parked request. It is tried again only when something happens to its partition: here, the Fetch in
which the follower reported the record as written. The handler thread serving that Fetch moves the high watermark
and completes the produce then and there. The reaper only expires requests whose timeout (30 s for kcat) ran out.
"""),
    check=follower_completes,
    wait_s=20,
)


# -- 5. A consumer's fetch session (KIP-227) -------------------------------------------------------------------------

def consumer_fetches(ev: Evidence) -> list[tuple[SpanRecord, SpanRecord | None, SpanRecord | None]]:
    """(RQ.fetch.1, RQ.fetch.2, RQ.fetch.4) of every consumer Fetch of the partition since the step began."""
    found = []
    for fetch in started_after(ev.spans.where(step="RQ.fetch.1"), ev.facts["action_ns"]):
        if fetch.attributes.get("kafka.fetch.replica_id", -1) >= 0:
            continue  # a follower's
        reads = [s for s in ev.spans.where(trace_id=fetch.trace_id, step="RQ.fetch.4")
                 if s.attributes.get("kafka.topic") == TOPIC]
        if reads:
            found.append((fetch, one(ev.spans, fetch.trace_id, "RQ.fetch.2"), reads[0]))
    return sorted(found, key=lambda f: f[0].start_ns)


def fetch_session(ev: Evidence) -> Result:
    fetches = consumer_fetches(ev)
    if not fetches:
        return Result.failed(expected=f"a consumer's Fetch of `{PARTITION}` on broker {ev.facts['leader']}",
                             seen="none since this step began", hint="run the kafka-python command above")
    full = [f for f in fetches if f[0].attributes.get("kafka.fetch.session.epoch") == 0]
    if not full:
        epochs = sorted({f[0].attributes.get("kafka.fetch.session.epoch") for f in fetches})
        return Result.failed(expected="a full Fetch (session epoch 0) that asks for a session",
                             seen=f"{len(fetches)} Fetch(es) with session epoch {epochs}" + (
                                 ": sessionless, the client does not use sessions (librdkafka, and so kcat, "
                                 "never does)" if epochs == [-1] else ""),
                             hint="run the kafka-python command above: its consumer uses fetch sessions", wait=False)
    first = full[0]
    after = [f for f in fetches if f[0].start_ns > first[0].start_ns and f[1] is not None
             and f[1].attributes.get("kafka.fetch.context") == "IncrementalFetchContext"]
    if len(after) < 2:
        return Result.failed(expected="incremental Fetches in the session the full Fetch opened",
                             seen=f"{len(after)} so far", hint="Press Enter again in a moment.")
    session = after[0][0].attributes.get("kafka.fetch.session.id")
    same = [f for f in after if f[0].attributes.get("kafka.fetch.session.id") == session]
    epochs = [f[0].attributes.get("kafka.fetch.session.epoch") for f in same]
    if epochs != list(range(1, len(epochs) + 1)):
        return Result.failed(expected=f"session {session}'s epochs counting up from 1, one per Fetch",
                             seen=f"epochs {epochs}", hint="Report this run.", wait=False)
    context = first[1].attributes.get("kafka.fetch.context") if first[1] is not None else "?"
    rows = ["| Fetch | session id | epoch | context (RQ.fetch.2) | partitions named | request bytes | offset → records "
            "(RQ.fetch.4) | waited |", "|---|---:|---:|---|---:|---:|---|---:|"]
    for fetch, new_context, got in [first, *same][:8]:
        root = root_of(ev.spans, fetch.trace_id)
        a, g, r = fetch.attributes, got.attributes, (root.attributes if root is not None else {})
        rows.append(f"| `{fetch.trace_id[:8]}` v{r.get('kafka.api.version', '?')} | "
                    f"{a.get('kafka.fetch.session.id')} | {a.get('kafka.fetch.session.epoch')} | "
                    f"{new_context.attributes.get('kafka.fetch.context') if new_context else '?'} | "
                    f"{a.get('kafka.partitions.count')} | {r.get('kafka.request.bytes', '?')} | "
                    f"{g.get('kafka.fetch.offset')} → {g.get('kafka.records.bytes')} bytes | "
                    f"{took(r.get('kafka.request.remote_time_ms', 0))} |")
    more = f" ({len(same) - 7} more after these)" if len(same) > 7 else ""
    read = first[2].attributes
    quiet = [f for f in same if f[0].attributes.get("kafka.partitions.count") == 0]
    moved = [f for f in same if f[0].attributes.get("kafka.partitions.count")]
    first_bytes = (root_of(ev.spans, first[0].trace_id) or first[0]).attributes.get("kafka.request.bytes", "?")
    quiet_bytes = (root_of(ev.spans, quiet[0][0].trace_id) or quiet[0][0]).attributes.get("kafka.request.bytes", "?") \
        if quiet else first_bytes
    named = (f"{len(moved)} of them named the partition again, because its fetch position had moved since the last "
             "request (from offset 0 to 1 once your record was read); " if moved else "")
    explain = f"""
The consumer's Fetches to broker {ev.facts['leader']}, in order{more}:

{chr(10).join(rows)}

- The first one named session 0 with epoch 0: "start a session". `FetchManager.newContext` (RQ.fetch.2) gave it a
  `{context}`, which answers every partition asked for and, when the answer is built, creates a session in the
  broker's cache. The answer carried the new id, {session}, as only the next request shows.
- `ReplicaManager.fetchMessages` (RQ.fetch.3) read with isolation `{first[2].attributes.get('kafka.fetch.isolation')}`:
  a consumer sees records only below the high watermark ({read.get('kafka.high_watermark')}), where acks=all had
  waited for it to be. `Partition.fetchRecords` (RQ.fetch.4) returned {read.get('kafka.records.bytes')} bytes from
  offset {read.get('kafka.fetch.offset')}: your record.
- Every Fetch after it named session {session} and an epoch one higher than the last
  ({', '.join(map(str, epochs[:7]))}{', ...' if len(epochs) > 7 else ''}). The broker checks the epoch (a stale or
  repeated one is INVALID_FETCH_SESSION_EPOCH) and builds an `IncrementalFetchContext`. {named}{len(quiet)} named
  **no partition at all**: nothing had changed, so the session stood for the whole list, and the request shrank from
  {first_bytes} to {quiet_bytes} bytes.
- With nothing new to read, each incremental Fetch waited up to its 500 ms in the fetch purgatory
  (`DelayedFetch`), and its answer, which lists only partitions with news, was empty.
"""
    return Result.passed(explain, session_id=session, full_fetch_trace=first[0].trace_id)


session = Step(
    title="A consumer and its fetch session",
    about=("KafkaApis.handleFetchRequest", "FetchManager.newContext", "ReplicaManager.fetchMessages",
           "Partition.fetchRecords"),
    prepare=kafka_python,
    text=f"""
Read the record back with kafka-python's console consumer (`kafka-python`, installed beside `kafka-edu`), which
reads `{TOPIC}` from the start and stops after {CONSUMER_TIMEOUT_MS / 1000:g} s without news.

A consumer fetches over and over, and in 1.0.2 every Fetch named every partition with its offset. Since Kafka 1.1
(KIP-227, Fetch v7) a client can open a **fetch session**: `KafkaApis.handleFetchRequest` (RQ.fetch.1) asks
`FetchManager.newContext` (RQ.fetch.2) what kind of fetch this is, and a full one creates a session. Then
`ReplicaManager.fetchMessages` (RQ.fetch.3) reads each partition through `Partition.fetchRecords` (RQ.fetch.4). The
followers' fetchers use sessions too. kcat cannot show this: librdkafka does not use sessions.
""",
    predict=Predict(
        question="The consumer's Fetches after the first: what do they send the broker?",
        choices={"a": "the whole list of partitions and offsets again, as in 1.0.2",
                 "b": "the session's id and the next epoch, and only the partitions whose fetch position changed",
                 "c": "nothing at all: the broker pushes new records down the connection"},
        answer="b",
        why="""
The session lives in the broker (`FetchSessionCache`), and the epoch keeps client and broker in step: a lost or
repeated request shows up as a wrong epoch instead of a silently wrong partition list. With one partition the saving
is small; a follower that replicates thousands of partitions from one leader saves most of each request, and most of
each answer, which only holds partitions with news.
"""),
    action=Command(f"{{kafka_python}} consumer -b {{bootstrap}} -t {TOPIC} -C auto_offset_reset=earliest "
                   f"-C consumer_timeout_ms={CONSUMER_TIMEOUT_MS}"),
    check=fetch_session,
    wait_s=20,
)


# -- 6. What changed since 1.0.2 ---------------------------------------------------------------------------------------

# (1.0.2's step as lesson request-journey shows it, 3.9's row, what changed): FIDELITY's RQ rows say what each replaces
CHANGES = [
    ("`Acceptor.accept` (NW.acceptor.1)", "RQ.net.3",
     "same step and name; `ConnectionQuotas` now also waits under broker-wide `max.connections` and a connection-rate "
     "quota, and a processor's queue of new connections is bounded (20)"),
    ("`Processor.processCompletedReceives` (NW.processor.4)", "RQ.net.5",
     "refuses an API or version the listener does not enable (closing the connection); builds a `RequestContext`; "
     "notes the client's software name and version from ApiVersions (KIP-511)"),
    ("`KafkaRequestHandler.run` (NW.handler.1)", "RQ.net.7",
     "also runs *callback requests*: the rest of an earlier request that waited for something asynchronous"),
    ("`KafkaApis.handleProduceRequest` (NW.apis.produce)", "RQ.produce.1",
     "errors per record (KIP-467, Produce v8+), the current leader added to NOT_LEADER_OR_FOLLOWER (KIP-951, v10+)"),
    ("none", "RQ.produce.2",
     "new: transactional batches verified with their coordinator before the append (KIP-890)"),
    ("`ReplicaManager.appendRecords` (NW.rm.append)", "RQ.produce.3",
     "purgatory checks after an append are queued and run at the end of `KafkaApis.handle`, holding no lock"),
    ("`Partition.appendRecordsToLeader` (no span in 1.0.2's port)", "RQ.produce.4",
     "reports whether the high watermark moved instead of completing delayed requests itself; the high watermark "
     "counts the maximal ISR (KIP-497) and stops under `min.insync.replicas`"),
    ("`Log.append` (NW.log.append)", "RQ.produce.5",
     "`Log` split into `UnifiedLog` (offsets, producer state, epochs) and `LocalLog` (segments); the producer's "
     "sequence is checked after the segment roll"),
    ("`LogValidator.validateMessagesAndAssignOffsets`, inside `Log.append`", "RQ.produce.6",
     "same name, now Java in `storage/`; CreateTime bounded separately into the past and the future"),
    ("`LogSegment.append`, inside `Log.append`", "RQ.produce.7",
     "the segment append behind `LocalLog`; the offset index is keyed by a batch's last offset, not its first"),
    ("`DelayedProduce.tryComplete` (not in lesson 2: one replica)", "RQ.produce.8",
     "same name; the try that completes it stays in the produce's trace and links what triggered it"),
    ("`KafkaApis.handleFetchRequest`", "RQ.fetch.1",
     "sessions, topic ids (KIP-516, v13+), current-leader hints (KIP-951)"),
    ("none", "RQ.fetch.2", "new: fetch sessions (KIP-227, Fetch v7)"),
    ("`ReplicaManager.fetchMessages`", "RQ.fetch.3",
     "`FetchParams`; a preferred read replica when `replica.selector.class` is set; a diverging epoch answers at once"),
    ("`Log.read`, from `readFromLocalLog`", "RQ.fetch.4",
     "leader-epoch fencing of the request (KIP-320, Fetch v9+), diverging epochs (Fetch v12), the follower's state "
     "updated right here"),
    ("`AbstractFetcherThread.processFetchRequest`", "RQ.follower.1",
     "same name; the follower fetches in a session, with the leader epoch and its broker epoch (KIP-903)"),
]


def rows_seen(ev: Evidence) -> dict[str, SpanRecord]:
    """One span of each RQ row, from this lesson's produce, the follower and the consumer."""
    seen: dict[str, SpanRecord] = {}
    produce, full = ev.facts["produce_trace"], ev.facts["full_fetch_trace"]
    for s in [*ev.spans.where(trace_id=produce), *ev.spans.where(trace_id=full)]:
        if s.step:
            seen.setdefault(s.step, s)
    root = root_of(ev.spans, produce)
    if root is not None:
        remote = (root.attributes.get("kafka.connection.id", "").split("-") + ["", ""])[1]
        for s in ev.spans.where(step="RQ.net.3", instance=root.instance):
            if s.attributes.get("kafka.client.address") == remote:
                seen.setdefault("RQ.net.3", s)
    for s in ev.spans.where(step="RQ.follower.1"):
        if node_of(s) == ev.facts["follower"] and PARTITION in s.attributes.get("kafka.partitions", []):
            seen.setdefault("RQ.follower.1", s)
            break
    return seen


def what_changed(ev: Evidence) -> Result:
    seen = rows_seen(ev)
    missing = [row for _, row, _ in CHANGES if row not in seen]
    if missing:
        return Result.failed(expected="every RQ row of this lesson in its traces",
                             seen=f"not found: {', '.join(missing)}",
                             hint="Press Enter again in a moment; if they stay missing, report this run.")
    table = ["| 1.0.2 (lesson `request-journey`) | 3.9 on your KRaft broker | took here | what changed |",
             "|---|---|---:|---|"]
    for before, row, change in CHANGES:
        s = seen[row]
        table.append(f"| {before} | `{s.name}` ({row}) | {took(s.duration_ms)} | {change} |")
    same = [step for step in ("NW.apis.1", "NW.channel.resp") if step in seen]
    explain = f"""
Every 3.9 step of this lesson, with one span of each from your run:

{chr(10).join(table)}

{', '.join(same) or 'NW.apis.1 and NW.channel.resp'} kept their 1.0.2 IDs and names (`KafkaApis.handle`,
`RequestChannel.sendResponse`): the dispatch and the hand-back to the processor are the same machine. What did not
show here: `Partition.submitAlterPartition` (RQ.isr) replaces 1.0.2's `Partition.updateIsr`, a ZooKeeper write, with
an AlterPartition request to the active controller (KIP-497), and runs only when the ISR changes.
"""
    return Result.passed(explain)


changes = Step(
    title="What changed since 1.0.2, row by row",
    about=("ReplicaManager.handleProduceAppend", "FetchManager.newContext", "UnifiedLog.append", "LocalLog.append"),
    text="""
Lesson `request-journey` showed a produce on Kafka 1.0.2 with FIDELITY's NW rows; this lesson used the RQ rows, and
each RQ row says which 1.0.2 step it replaces. Among this lesson's steps were `ReplicaManager.handleProduceAppend`,
`FetchManager.newContext`, `UnifiedLog.append` and `LocalLog.append`. Most RQ rows kept their place and their name
and gained what eight years of KIPs added; some were renamed or split out of a larger 1.0.2 step; two have no 1.0.2
counterpart at all. `docs/produce-side-by-side.md` puts one recorded produce on each version side by side, with the
reasons for each change.

No action: the check finds one span of each row in this lesson's traces.
""",
    predict=Predict(
        question="Which two of this lesson's 3.9 steps have no 1.0.2 counterpart at all?",
        choices={"a": "`ReplicaManager.handleProduceAppend` and `FetchManager.newContext`",
                 "b": "`LogValidator.validateMessagesAndAssignOffsets` and `LocalLog.append`",
                 "c": "`DelayedProduce.tryComplete` and `Partition.appendRecordsToLeader`"},
        answer="a",
        why="""
1.0.2 had no transaction verification (KIP-890 came in 3.6) and no fetch sessions (KIP-227 came in 1.1), so
neither step had anywhere to be. The validator kept its name, the segment append now sits behind `LocalLog`, and
the delayed produce and the leader append existed in 1.0.2 under the same names.
"""),
    check=what_changed,
    wait_s=10,
)


LESSON = Lesson(
    name="request-journey-kraft",
    title="A request's journey on a KRaft broker",
    summary="Kafka 3.9's request path: an idempotent acks=all produce from the socket to UnifiedLog, LogValidator and "
            "LocalLog, the DelayedProduce a follower's fetch completes, a consumer's KIP-227 fetch session, and what "
            "changed since 1.0.2, row by row",
    minutes=15,
    seed="003",
    intro=INTRO,
    setup=SETUP,
    mode="kraft",
    controllers=3,
    brokers=2,
    steps=[topic, connection, log, delayed, session, changes],
    outro="""
One record, two brokers, two clients: a connection owned by one network thread, a handler thread down through five
layers to a segment file, a parked request completed by a follower's fetch, and a consumer that names its partitions
once. To walk this run's traces in the TUI, `kafka-edu tui --run {run_dir}`; to compare it with 1.0.2 span by span, read
`docs/produce-side-by-side.md`. Lesson `zk-or-kraft` compares the two modes where they differ most: the controller.
""",
)
