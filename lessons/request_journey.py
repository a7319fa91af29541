"""Lesson 2, a request's journey (seed 003, Kafka 1.0.2's kafka.network and the request path into the log): the
Acceptor and the Processor that owns a connection, one produce request from its bytes to `Log.append` and back,
Kafka's own request metrics read off that request, and why a connection has one request in flight at a time.

Read top to bottom: each step's checks come just before the step that uses them.
"""

from __future__ import annotations

from kafka_edu.lessons import Command, Do, Evidence, Lesson, Predict, Result, Step
from kafka_edu.lessons.traces import at, ref, started_after, took
from kafka_edu.lessons.wire import pipelined_behind_long_poll
from kafka_edu.tracing.query import SpanRecord, Spans

TOPIC = "journey"
METRICS = [("queue", "kafka.request.queue_time_ms", "RequestQueueTimeMs",
            "waiting in the RequestChannel's request queue for a free handler"),
           ("local", "kafka.request.local_time_ms", "LocalTimeMs", "in the handler thread, in KafkaApis"),
           ("remote", "kafka.request.remote_time_ms", "RemoteTimeMs", "in purgatory, waiting for other replicas"),
           ("throttle", "kafka.request.throttle_time_ms", "ThrottleTimeMs", "held back by a quota"),
           ("response queue", "kafka.request.response_queue_time_ms", "ResponseQueueTimeMs",
            "in the processor's response queue"),
           ("response send", "kafka.request.response_send_time_ms", "ResponseSendTimeMs",
            "being written to the socket")]

INTRO = """
Every request a Kafka broker serves travels the same way: bytes arrive on a connection that an `Acceptor` handed to
a `Processor` (a network thread); the processor cuts them into a request and puts it on the `RequestChannel`; one of
the `KafkaRequestHandler` threads takes it and runs `KafkaApis`; the response goes back through the channel to the
same processor, which writes it out. In this lesson you send requests with real tools and read their journey in the
traces, with the numbers Kafka itself keeps about every request.

The source is `core/src/main/scala/kafka/network/SocketServer.scala`, `RequestChannel.scala`,
`kafka/server/KafkaRequestHandler.scala` and `KafkaApis.scala` (Kafka 1.0.2); the port is
`kafka_edu/v1_0_2/core/network/socket_server.py` and `request_channel.py`,
`kafka_edu/v1_0_2/core/server/kafka_request_handler.py` and
`kafka_apis.py`. Seed 003 reads Kafka 0.10.0.1; the design it describes is 1.0.2's too, and the lesson says where
the two differ.
"""

SETUP = """
The lesson starts ZooKeeper and one broker with Kafka's defaults: `num.network.threads=3` processors,
`num.io.threads=8` request handlers, `queued.max.requests=500`.
"""


def root_of(spans: Spans, span: SpanRecord) -> SpanRecord | None:
    roots = spans.where(trace_id=span.trace_id, name="RequestChannel.Request")
    return roots.first() if len(roots) else None


def thread_of(spans: Spans, root: SpanRecord, step: str) -> str:
    found = spans.where(trace_id=root.trace_id, step=step)
    return found.first().attributes.get("thread.name", "?") if len(found) else "?"


# -- 1. A connection and the threads that serve it ------------------------------------------------------------------

def connection_served(ev: Evidence) -> Result:
    since = ev.facts["action_ns"]
    creates = [r for r in started_after(ev.spans.where(name="RequestChannel.Request"), since)
               if r.attributes.get("kafka.api.name") == "CreateTopics"]
    if not creates:
        return Result.failed(expected=f"a CreateTopics request for `{TOPIC}` in the broker's traces",
                             seen="no CreateTopics request since this step began",
                             hint="run the command above; if request tracing is off (KAFKA_EDU_TRACING=off), "
                                  "unset it and start the lesson again")
    create = creates[-1]
    connection = create.attributes.get("kafka.connection.id", "")
    remote = (connection.split("-") + [""])[1]  # Kafka's connection id: local-remote-index
    accepts = [s for s in ev.spans.where(step="NW.acceptor.1") if s.attributes.get("kafka.client.address") == remote]
    on_connection = [r for r in ev.spans.where(name="RequestChannel.Request")
                     if r.attributes.get("kafka.connection.id") == connection]
    rows = ["| request | network thread (Processor) | I/O thread (KafkaRequestHandler) | took |", "|---|---|---|---:|"]
    for r in on_connection:
        rows.append(f"| {r.attributes.get('kafka.api.name')} v{r.attributes.get('kafka.api.version')} | "
                    f"{thread_of(ev.spans, r, 'NW.processor.4')} | {thread_of(ev.spans, r, 'NW.handler.1')} | "
                    f"{took(r.duration_ms)} |")
    accepted = (f"The `Acceptor` ({at(accepts[0])}, thread `{accepts[0].attributes.get('thread.name')}`) accepted it "
                f"from {remote} and handed it to processor {accepts[0].attributes.get('kafka.processor.id')}; "
                "the processors take new connections in turn. "
                if accepts else "The connection's `Acceptor.accept` span is not in the traces. ")
    explain = f"""
Your tool's CreateTopics went over connection `{connection}` (the broker's address, the client's, and the
processor's running count of connections, which tells apart two that reuse a port). {accepted}
From then on that processor owned the connection: it registered it with its selector
(`Processor.configureNewConnections`, NW.processor.1) and every request on it was read by the same network thread.

{chr(10).join(rows)}

Each request crossed exactly two threads, the connection's processor and whichever handler took it from the shared
request queue, and came back to the same processor with its response. The CreateTopics took
{took(create.duration_ms)}: {took(create.attributes.get('kafka.request.remote_time_ms', 0))} of it in purgatory
(`DelayedCreateTopics`), until the topic's partitions had leaders.
"""
    return Result.passed(explain)


connection = Step(
    title="A connection, a processor, a handler",
    about=("Acceptor.accept", "Processor.configureNewConnections", "KafkaRequestHandler.run"),
    text="""
`SocketServer` runs one `Acceptor` thread per listener and `num.network.threads` `Processor` threads. The acceptor
only accepts: `Acceptor.accept` (NW.acceptor.1) checks the per-IP connection quota, configures the socket and
hands it to the next processor in turn. The processor picks it up in `Processor.configureNewConnections`
(NW.processor.1) and owns it until it closes: every byte in or out of that connection goes through that one
network thread.

What the processor reads becomes a `RequestChannel.Request` on the channel's single request queue, where any of the
`num.io.threads` handler threads (`KafkaRequestHandler.run`, NW.handler.1) can take it.

Create the topic this lesson writes to, with kafka-edu's own kafka-topics (it talks Kafka's protocol like any client).
""",
    predict=Predict(
        question="Your tool opens one connection and sends a few requests over it. How many broker threads work on "
                 "each request?",
        choices={"a": "one: the thread that owns the connection does everything",
                 "b": "two: the connection's network thread (Processor) and a request handler thread",
                 "c": "three: the Acceptor, a Processor and a handler, for every request"},
        answer="b",
        why="""
The acceptor touches a connection once, when it arrives. After that each request is read and answered by the
connection's processor and handled by one handler thread: network work and request work never share a thread, so a
slow request (a disk write, a wait in purgatory) never stops a network thread from serving its other connections.
"""),
    action=Command(f"kafka-edu topics --create --topic {TOPIC} --partitions 1 --replication-factor 1 "
                   "--bootstrap-server {bootstrap}"),
    check=connection_served,
    wait_s=30,
)


# -- 2. One produce, step by step -------------------------------------------------------------------------------------

def produce_followed(ev: Evidence) -> Result:
    since = ev.facts["action_ns"]
    appends = [s for s in started_after(ev.spans.where(step="NW.log.append"), since)
               if s.attributes.get("kafka.topic") == TOPIC]
    root = root_of(ev.spans, appends[-1]) if appends else None
    if root is None:
        return Result.failed(expected=f"a Produce request whose `Log.append` wrote to `{TOPIC}`",
                             seen="none since this step began", hint="run the kcat command above")
    trace = ev.spans.where(trace_id=root.trace_id)
    append = trace.where(step="NW.log.append").first()
    rows = ["| at | span | thread | took |", "|---:|---|---|---:|"]
    for s in trace:
        rows.append(f"| +{(s.start_ns - root.start_ns) / 1e6:.2f} ms | `{s.name}` | "
                    f"{s.attributes.get('thread.name', '')} | {took(s.duration_ms)} |")
    produce = trace.where(step="NW.apis.produce")
    acks = produce.first().attributes.get("kafka.produce.acks") if len(produce) else "?"
    explain = f"""
Your record's request ({ref(root)}), correlation id {root.attributes.get('kafka.correlation_id')} from client
`{root.attributes.get('kafka.client.id')}`, took {took(root.duration_ms)} from the moment its processor had it to
the last byte of the answer:

{chr(10).join(rows)}

`Log.append` gave the record offset {append.attributes.get('kafka.offset.first')} in `{TOPIC}-0`
({append.attributes.get('kafka.records.bytes')} bytes of batch). kcat asked for acks={acks}; with a single replica
the `DelayedProduce` that acks=-1 needs is satisfied at once, so the handler answered itself
(`RequestChannel.sendResponse` on the handler's thread) instead of leaving it to a purgatory reaper.
"""
    return Result.passed(explain, produce_trace=root.trace_id,
                         next_offset=int(append.attributes.get("kafka.offset.last", 0)) + 1)


produce = Step(
    title="One produce, step by step",
    about=("Processor.processCompletedReceives", "KafkaApis.handleProduceRequest", "ReplicaManager.appendRecords",
           "Log.append", "RequestChannel.sendResponse"),
    text="""
Send one record with kcat and follow it. On the network thread, `Processor.processCompletedReceives` (NW.processor.4)
parses the request header, builds the `RequestChannel.Request` and puts it on the request queue. On a handler
thread, `KafkaApis.handle` (NW.apis.1) dispatches by API key to `KafkaApis.handleProduceRequest` (NW.apis.produce),
which calls `ReplicaManager.appendRecords` (NW.rm.append), which calls `Log.append` (NW.log.append) on the partition's
leader log: validate the batch, assign offsets, write it to the active segment. The answer goes back with
`RequestChannel.sendResponse` (NW.channel.resp) to the response queue of the processor that owns the connection.

The root span of the trace, `RequestChannel.Request`, lasts from the receive to the end of the send; its children
say which thread did what.
""",
    predict=Predict(
        question="Which thread writes your record into the partition's log file?",
        choices={"a": "the network thread (Processor) that read the request",
                 "b": "a request handler thread (KafkaRequestHandler)",
                 "c": "a background thread that flushes the log later"},
        answer="b",
        why="""
`Log.append` runs on the handler thread, inside the request. The write goes to the page cache at once; flushing to
disk is a separate matter (`log.flush.interval.*`, or the operating system), which is why Kafka relies on
replication rather than fsync for durability.
"""),
    action=Command(f'echo "hello, kafka" | kcat -P -b {{bootstrap}} -t {TOPIC} -p 0'),
    check=produce_followed,
    wait_s=30,
)


# -- 3. Kafka's request metrics -------------------------------------------------------------------------------------

def largest_part(ev: Evidence) -> str:
    root = ev.spans.where(trace_id=ev.facts["produce_trace"], name="RequestChannel.Request").first()
    parts = {"a": root.attributes.get("kafka.request.queue_time_ms", 0),
             "b": root.attributes.get("kafka.request.local_time_ms", 0),
             "c": root.attributes.get("kafka.request.remote_time_ms", 0),
             "d": root.attributes.get("kafka.request.response_queue_time_ms", 0)
             + root.attributes.get("kafka.request.response_send_time_ms", 0)}
    return max(parts, key=parts.get)


def metrics_add_up(ev: Evidence) -> Result:
    roots = ev.spans.where(trace_id=ev.facts["produce_trace"], name="RequestChannel.Request")
    if not len(roots):
        return Result.failed(expected="the produce request of the last step", seen="not in the traces",
                             hint="run the lesson again from the start", wait=False)
    root = roots.first()
    values = [(label, root.attributes.get(key), name, meaning) for label, key, name, meaning in METRICS]
    missing = [name for _, value, name, _ in values if value is None]
    if missing:
        return Result.failed(expected="the request metrics on the root span", seen=f"missing: {', '.join(missing)}",
                             hint="Report this run: the root span lacks Kafka's request metrics.", wait=False)
    total = root.attributes.get("kafka.request.total_time_ms", 0.0)
    parts = sum(value for _, value, _, _ in values)
    if parts < total - max(0.01, total * 0.01):
        return Result.failed(expected=f"the parts to cover the total, {total:.3f} ms",
                             seen=f"they add up to {parts:.3f} ms: time is missing",
                             hint="Report this run: the request metrics are not computed as Kafka does.", wait=False)
    overlap = parts - total
    sums = (f"The parts add up to {parts:.3f} ms, {overlap:.3f} ms more than the total. That is 1.0.2's arithmetic, "
            "not an error: the handler stamps *local complete* when `KafkaApis.handle` returns, after it has already "
            "queued the response, so the local time overlaps the response queue time, and the remote time, which "
            "would come out negative, is clamped to 0."
            if overlap > max(0.01, total * 0.01) else f"The parts add up to the total ({parts:.3f} ms).")
    rows = ["| part | Kafka's metric | this request | where the time went |", "|---|---|---:|---|"]
    rows += [f"| {label} | `{name}` | {value:.3f} ms | {meaning} |" for label, value, name, meaning in values]
    rows.append(f"| **total** | `TotalTimeMs` | **{total:.3f} ms** | from receive to the end of the send |")
    explain = f"""
`RequestChannel.Request.updateRequestMetrics` split your produce's {took(total)} into Kafka's request metrics,
from five time stamps taken as the request passed each hand-over (dequeued by a handler, handler done, response
complete, response dequeued by the processor, send complete):

{chr(10).join(rows)}

{sums}

A broker publishes each as a histogram per request type (`kafka.network:type=RequestMetrics,name=LocalTimeMs,
request=Produce`, and so on); here they are attributes of the root span. Seed 003's 0.10 code stamps these moments
in whole milliseconds; 1.0.2 keeps nanoseconds and reports fractions of a millisecond, which is why parts well under
a millisecond still show.
"""
    return Result.passed(explain)


metrics = Step(
    title="Kafka's request metrics, read off your produce",
    about=("RequestChannel.Request", "RequestChannel.Request.updateRequestMetrics"),
    text="""
Kafka measures every request it serves, and an operator's first question about a slow produce is which of these
numbers is large. `RequestChannel.Request` stamps the time as the request moves from queue to handler to purgatory to
response queue to socket, and `updateRequestMetrics` turns the stamps into six parts and a total.

No action this time: the lesson reads the produce request you just sent.
""",
    predict=Predict(
        question="Where did your produce spend most of its time on the broker?",
        choices={"a": "in the request queue, waiting for a handler", "b": "in the handler, running KafkaApis",
                 "c": "in purgatory, waiting for replicas", "d": "on the way back: the response queue and the send"},
        answer=largest_part,
        why="""
On an idle broker with one replica little waits: the queue is empty and purgatory is skipped, so the handler's
work (validating and appending one small batch) and the hand-overs between threads around it make up the total.
Under load the queue time grows first (every handler busy); with acks=all and slow followers, the
remote time; with slow clients or full sockets, the response send time.
"""),
    check=metrics_add_up,
    wait_s=10,
)


# -- 4. One request in flight per connection ----------------------------------------------------------------------

def pipeline(run) -> None:
    answered = pipelined_behind_long_poll(run.facts["bootstrap"], TOPIC, 0, run.facts.get("next_offset", 1))
    run.facts.update({k: round(v, 1) for k, v in answered.items()})
    run.terminal.say(f"  answered after: ApiVersions alone {answered['alone_ms']:.0f} ms, Fetch "
                     f"{answered['fetch_ms']:.0f} ms, ApiVersions behind the Fetch {answered['pipelined_ms']:.0f} ms",
                     "dim")


def one_in_flight(ev: Evidence) -> Result:
    since = ev.facts["action_ns"]
    roots = started_after(ev.spans.where(name="RequestChannel.Request"), since)
    pipelined = [r for r in roots if r.attributes.get("kafka.client.id") == "lesson-pipelined"]
    alone = [r for r in roots if r.attributes.get("kafka.client.id") == "lesson-alone"]
    fetch = [r for r in pipelined if r.attributes.get("kafka.api.name") == "Fetch"]
    behind = [r for r in pipelined if r.attributes.get("kafka.api.name") == "ApiVersions"]
    if not (fetch and behind and alone):
        return Result.failed(expected="three requests from the lesson: a Fetch and an ApiVersions on one connection, "
                                      "an ApiVersions on another",
                             seen=f"{len(fetch)} Fetch, {len(behind) + len(alone)} ApiVersions so far",
                             hint="Press Enter again in a moment.")
    fetch, behind, alone = fetch[0], behind[0], alone[0]
    sends = [s for s in ev.spans.where(step="NW.processor.5") if fetch.end_ns - 5_000_000 <= s.start_ns
             <= behind.start_ns]
    if behind.start_ns < fetch.end_ns - 5_000_000:
        return Result.failed(expected="the second request on the connection read only after the first was answered",
                             seen=f"its receive began {took((fetch.end_ns - behind.start_ns) / 1e6)} before the "
                                  "Fetch's answer was sent", hint="Report this run: the processor did not mute.",
                             wait=False)
    reaper = ev.spans.where(trace_id=fetch.trace_id, step="NW.channel.resp")
    answered_by = reaper.first().attributes.get("thread.name", "?") if len(reaper) else "?"
    explain = f"""
The lesson wrote both requests on one connection in one go, and at the same moment an ApiVersions on a second
connection.

- The Fetch ({ref(fetch)}) asked for offset {ev.facts.get('next_offset', 1)} of `{TOPIC}-0`, which does not exist
  yet, and waited: {took(fetch.attributes.get('kafka.request.remote_time_ms', 0))} of remote time in the fetch
  purgatory, until its `max_wait` ran out and `{answered_by}` answered it.
- The ApiVersions alone ({at(alone)}) was answered in {took(alone.duration_ms)}; the client had it after
  {ev.facts.get('alone_ms', '?')} ms.
- The ApiVersions behind the Fetch had been on the broker's socket all along, but its `RequestChannel.Request`
  ({at(behind)}) only began {took((behind.start_ns - fetch.start_ns) / 1e6)} after the Fetch's, once the Fetch's
  response was sent{' (`Processor.processCompletedSends`, ' + at(sends[0]) + ')' if sends else ''}.
  The client had its answer after {ev.facts.get('pipelined_ms', '?')} ms.

After reading a request, `processCompletedReceives` **mutes** the connection: its processor stops reading from it.
`processCompletedSends` unmutes it once the response is out. So a connection has at most one request in the broker
at a time, and responses come back in the order the requests were sent, without any sequencing code in
`KafkaApis`. Clients that want more in flight (librdkafka, the Java producer's `max.in.flight.requests.per.connection`)
keep the extra requests queued in the socket, where they wait exactly as this one did.
"""
    return Result.passed(explain)


in_flight = Step(
    title="One request in flight per connection",
    about=("Processor.processCompletedReceives", "Processor.processCompletedSends", "Selector.mute"),
    text="""
A client may write a second request before the first is answered. What does the broker do with it? The answer is in
the `Processor`: after `processCompletedReceives` hands a request to the channel it calls `Selector.mute` on that
connection, and only `processCompletedSends`, once the response has gone out, unmutes it.

Ordinary clients never show this, so the lesson does it with raw sockets: on one connection a Fetch that will wait
up to a second for data that does not come (a long poll), immediately followed by an ApiVersions; and on a second
connection, an ApiVersions alone.
""",
    predict=Predict(
        question="When does the broker answer the ApiVersions written right behind the waiting Fetch?",
        choices={"a": "at once: plenty of handler threads are idle",
                 "b": "only after the Fetch has been answered: the connection is muted while a request is in flight",
                 "c": "never: the broker closes a connection that pipelines requests"},
        answer="b",
        why="""
Muting is how 1.0.2 keeps each connection's requests in order with many handler threads: the next request is not
even read until the previous response is written. A slow request therefore delays everything behind it on the same
connection, which is why consumers and producers keep separate connections per broker, and why a long-poll Fetch
never holds up another client.
"""),
    action=Do("writes a Fetch and an ApiVersions on one connection, and an ApiVersions on another.", pipeline),
    check=one_in_flight,
    wait_s=20,
)


LESSON = Lesson(
    name="request-journey",
    title="A request's journey through the broker",
    summary="Acceptor, Processor, RequestChannel, handler, KafkaApis, Log.append and the response; Kafka's request "
            "metrics read off one real produce; one in-flight request per connection",
    minutes=15,
    seed="003",
    intro=INTRO,
    setup=SETUP,
    brokers=1,
    steps=[connection, produce, metrics, in_flight],
    outro="""
You have followed requests through the broker's three kinds of threads and read Kafka's own measurements off one of
them. To see the same under load, run `kafka-edu tui --run {run_dir}` and produce a burst (`P`), or mine many runs
with `kafka-edu mine request-breakdown`. Lesson `controller` shows the requests that do not come from clients:
LeaderAndIsr and UpdateMetadata from the controller.
""",
)
