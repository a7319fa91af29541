"""Lesson 7, growing the quorum (KIP-853; Kafka 3.9's KafkaRaftClient, AddVoterHandler, RemoveVoterHandler and
KRaftControlRecordStateMachine): three KRaft controllers formatted as a dynamic quorum take a fourth, which catches up
as an observer before the leader makes it a voter, and then lose their leader, which removes itself and resigns.

Every step reads the FIDELITY KV spans: one membership change is one trace on the active controller (KV.add ->
KV.apiv -> KV.voters -> KV.commit), and each node's KV.voters says when it applied the VotersRecord.

Read top to bottom: each step's checks come just before the step that uses them.
"""

from __future__ import annotations

from kafka_edu.lessons import Command, Evidence, Lesson, Predict, Result, Step
from kafka_edu.lessons.traces import at, between, node_of, raft_leader, raft_leaders, ref, role_changes, took
from kafka_edu.tracing.query import SpanRecord, Spans

INTRO = """
Lesson `raft` ran a quorum whose voters were written in every controller's properties
(`controller.quorum.voters`): to change them you would stop everything and edit every file. Kafka 3.9 (KIP-853)
keeps the set of voters in the metadata log itself, as a `VotersRecord`, so the quorum can grow and shrink while it
runs, one voter at a time, with the AddRaftVoter and RemoveRaftVoter requests (`kafka-metadata-quorum
add-controller` and `remove-controller`).

This lesson starts three controllers formatted as a *dynamic* quorum, adds a fourth, and removes the leader. The
sources are `raft/src/main/java/org/apache/kafka/raft/KafkaRaftClient.java` and its `internals/AddVoterHandler.java`,
`RemoveVoterHandler.java` and `KRaftControlRecordStateMachine.java` (Kafka 3.9); the ports are under
`kafka_edu/v3_9/raft/raft/`. The spans to look for carry the FIDELITY rows KV.format to KV.epoch.
"""

SETUP = """
The lesson starts three KRaft controllers (node ids 1 to 3) and no brokers, as `kafka-edu cluster up --mode kraft
--dynamic-quorum` does: each is formatted with `kafka-edu storage format --initial-controllers
1@127.0.0.1:PORT:DIRECTORY_ID,...`, and none has `controller.quorum.voters`; they find each other through
`controller.quorum.bootstrap.servers`. 3.9's defaults otherwise (`controller.quorum.fetch.timeout.ms=2000`).
"""


def _kv(spans: Spans, step: str) -> list[SpanRecord]:
    return sorted(spans.where(step=step), key=lambda s: s.start_ns)


def _ids(span: SpanRecord, key: str) -> list[int]:
    return [int(v) for v in span.attributes.get(key, [])]


# -- 1. Where the voters come from ---------------------------------------------------------------------------------

def bootstrapped(ev: Evidence) -> Result:
    voters = ev.facts["controller_ids"]
    formats = _kv(ev.spans, "KV.format")
    if len({s.instance for s in formats}) < len(voters):
        return Result.failed(expected=f"a bootstrap checkpoint written for each of controllers {voters} (KV.format)",
                             seen=f"{len(formats)} written", hint="The cluster formats its controllers as it starts; "
                                                                  "press Enter again.", wait=False)
    inits = [s for s in _kv(ev.spans, "KV.init") if node_of(s) in voters]
    leader = raft_leader(ev.spans)
    epoch_starts = [s for s in _kv(ev.spans, "KV.epoch") if leader is not None and node_of(s) == leader.node]
    if len({node_of(s) for s in inits}) < len(voters) or leader is None or not epoch_starts:
        return Result.failed(expected="the three controllers started (KV.init) and a leader's epoch begun (KV.epoch)",
                             seen=f"{len(inits)} start-up(s), leader {leader.node if leader else 'none yet'}",
                             hint="Press Enter again in a moment.")
    f = formats[0].attributes
    first = epoch_starts[0].attributes
    written = [s for s in _kv(ev.spans, "KV.voters") if node_of(s) == leader.node
               and s.attributes.get("kafka.raft.voters.offset", -2) >= 0]
    lines = [f"`kafka-edu storage format` wrote {len(formats)} checkpoints ({ref(formats[0])} and the others): in "
             f"each, `{f.get('kafka.raft.checkpoint.directory', '?')}/__cluster_metadata-0/"
             "00000000000000000000-0000000000.checkpoint` holds a KRaftVersionRecord "
             f"(kraft.version {f.get('kafka.raft.kraft_version')}) and a VotersRecord naming "
             + ", ".join(f"`{k}`" for k in f.get("kafka.raft.voters.keys", []))
             + ": node id, host and port of the CONTROLLER listener, and the *directory id* of the node's metadata "
             "log directory, the same one its `meta.properties` got.",
             "Each controller's `KafkaRaftClient.initialize` (KV.init) read it back before anything else: "
             + "; ".join(f"controller {node_of(s)} found voters {_ids(s, 'kafka.raft.voters')} at offset "
                         f"{s.attributes.get('kafka.raft.voters.offset')} (the checkpoint's), and is "
                         f"{'a voter' if s.attributes.get('kafka.raft.is_voter') else 'an observer'}" for s in inits)
             + ". A node is a voter only while its (node id, directory id) pair is in the latest set: a wiped and "
             "reformatted disk gets a new directory id, and with it no vote it might have given before.",
             f"The checkpoint is never replicated, so controller {leader.node}, elected in epoch {leader.epoch}, "
             f"wrote the set into the log itself when its epoch began ({ref(epoch_starts[0])}): "
             f"{first.get('kafka.raft.epoch.reason')}"
             + (f"; the VotersRecord landed at offset {written[0].attributes['kafka.raft.voters.offset']}." if written
                else ".")]
    return Result.passed("\n\n".join(lines), leader=leader.node, epoch=leader.epoch)


bootstrap = Step(
    title="The voters are in a checkpoint, then in the log",
    about=("Formatter.writeDynamicQuorumSnapshot", "KafkaRaftClient.initialize",
           "LeaderState.appendStartOfEpochControlRecords"),
    text="""
With `--initial-controllers`, `kafka-storage format` (`Formatter.writeDynamicQuorumSnapshot`, KV.format) writes a
*bootstrap checkpoint* into each controller's metadata log directory: a snapshot at offset 0 that holds no metadata,
only two control records, the finalized `kraft.version` (1: reconfiguration supported) and the initial voter set.
On start-up `KafkaRaftClient.initialize` (KV.init) has `KRaftControlRecordStateMachine` read the latest snapshot and
the log for those records, and keeps the voter set by offset. The first leader copies the set into the log with the
records that open its epoch (`LeaderState.appendStartOfEpochControlRecords`, KV.epoch).
""",
    predict=Predict(
        question="None of the three controllers has `controller.quorum.voters` in its properties. How does each one "
                 "know who may vote?",
        choices={"a": "it reads the voter set from a checkpoint `kafka-storage format` wrote into its metadata log "
                      "directory",
                 "b": "it asks the first bootstrap server for the list",
                 "c": "every controller that connects to another becomes a voter"},
        answer="a",
        why="""
The voter set is data, not configuration: formatting writes it, the log carries every later change, and each node
works it out from what it has on disk. `controller.quorum.bootstrap.servers` only says where to send the first
Fetch; it gives nobody a vote.
"""),
    check=bootstrapped,
    wait_s=30,
)


# -- 2. A fourth controller, first an observer ---------------------------------------------------------------------

def new_controller(ev: Evidence) -> int | None:
    """The node id of the controller added since the step began: the voter of the first AddRaftVoter."""
    adds = [s for s in ev.since(ev.facts["action_ns"]).where(step="KV.add")]
    return int(adds[0].attributes["kafka.raft.voter.id"]) if adds else None


def observed_then_added(ev: Evidence) -> Result:
    since = ev.facts["action_ns"]
    added = new_controller(ev)
    if added is None:
        return Result.failed(expected="an AddRaftVoter handled by the leader (KV.add)",
                             seen="none since this step began",
                             hint="run the command above: it starts a controller and has the leader add it")
    observing = [s for s in ev.since(since).where(step="KV.observe") if node_of(s) == added]
    init = [s for s in ev.since(since).where(step="KV.init") if node_of(s) == added]
    if not observing or not init:
        return Result.failed(expected=f"controller {added}'s start-up (KV.init) and its polls as an observer "
                                      "(KV.observe)",
                             seen=f"{len(init)} start-up(s), {len(observing)} observer poll(s)",
                             hint="Press Enter again in a moment.")
    a = init[0].attributes
    caught = [s for s in observing if "caught up" in str(s.attributes.get("kafka.raft.observe.reason"))]
    adds = sorted((s for s in ev.since(since).where(step="KV.add") if s.attributes.get("kafka.raft.voter.id")
                   == added), key=lambda s: s.start_ns)
    refused = [s for s in adds if s.attributes.get("kafka.raft.voters.answered") is True]
    lines = [f"Controller {added} was formatted with `--no-initial-controllers`: no checkpoint. Its "
             f"`initialize` ({ref(init[0])}) found voters {_ids(init[0], 'kafka.raft.voters')} and kraft.version "
             f"{a.get('kafka.raft.kraft_version')}, so it started as an **observer**, with only its bootstrap "
             f"servers {a.get('kafka.raft.bootstrap_servers')} to ask.",
             f"Its first Fetch went to a bootstrap server, whose answer named the leader; then it followed controller "
             f"{observing[0].attributes.get('kafka.raft.fetch.leader_id')} like a broker does ({ref(observing[0])}), "
             f"its Fetch carrying its directory id `{observing[0].attributes.get('kafka.raft.directory_id')}`."]
    if caught:
        c = caught[0]
        lines.append(f"It caught up with the leader's high watermark ({c.attributes.get('kafka.raft.high_watermark')})"
                     f" {between(init[0].start_ns, c.start_ns)} after it started ({at(c)}). On the way it read the "
                     "log's VotersRecord: its own KV.voters spans show the set it learned, which did not include it.")
    reasons = {"NOT_LEADER_OR_FOLLOWER": "sent to a controller that was not the leader, which answered at once "
                                         "with the leader it knew",
               "REQUEST_TIMED_OUT": "the leader adds only an observer that has reached the end of its log, or "
                                    "one change at a time"}
    for error in sorted({str(s.attributes.get("kafka.error")) for s in refused}):
        count = sum(1 for s in refused if s.attributes.get("kafka.error") == error)
        lines.append(f"{count} AddRaftVoter(s) were refused with {error}: "
                     f"{reasons.get(error, 'see the span for the message')}; the tool asked again.")
    return Result.passed("\n\n".join(lines), added=added)


observe = Step(
    title="A new controller starts as an observer",
    about=("KafkaRaftClient.pollFollowerAsObserver", "KafkaRaftClient.handleAddVoterRequest"),
    text="""
Add a controller. The command does what an operator does: it writes the new controller's properties (its
`controller.quorum.bootstrap.servers` names the three), formats its directory with `--no-initial-controllers`,
starts it, and once it follows the leader runs `kafka-metadata-quorum add-controller`, which sends AddRaftVoter.

Until the leader adds it, the new node is an **observer**: it fetches the log as brokers do
(`KafkaRaftClient.pollFollowerAsObserver`, KV.observe), but no majority counts it and it cannot vote. The leader
keeps track of each observer's progress from its Fetch requests. `KafkaRaftClient.handleAddVoterRequest` (KV.add)
refuses an observer that has not caught up.
""",
    predict=Predict(
        question="The new controller has just started. Whom does it fetch the metadata log from first?",
        choices={"a": "from one of its bootstrap servers, which tells it who the leader is; then from the leader",
                 "b": "from all three controllers at once, keeping the longest answer",
                 "c": "from nobody: it waits until the leader has added it"},
        answer="a",
        why="""
An observer knows no voter at first, only the bootstrap servers. Any of them answers a Fetch with the current leader
and epoch (or with records, if it is the leader), and from then on the observer follows that leader. It must be
caught up before it can be added: a voter that joined far behind would slow down every commit.
"""),
    action=Command("kafka-edu cluster add-controller --run {run_dir}",
                   tui="run the command in another terminal: the TUI has no key for it"),
    check=observed_then_added,
    wait_s=60,
)


# -- 3. The VotersRecord: appended, then committed -----------------------------------------------------------------

def _change(ev: Evidence, root_step: str, voter: int) -> list[SpanRecord] | None:
    """The spans of the successful change of `voter` on the leader that handled it, in start order."""
    for root in sorted(ev.spans.where(step=root_step), key=lambda s: -s.start_ns):
        if root.attributes.get("kafka.raft.voter.id") != voter:
            continue
        spans = sorted((s for s in ev.spans if s.trace_id == root.trace_id and (s.step or "").startswith("KV.")
                        and s.instance == root.instance), key=lambda s: s.start_ns)
        if spans and spans[-1].step == "KV.commit":
            return spans
    return None


def _applied_line(span: SpanRecord, leader_span: SpanRecord) -> str:
    """One node's application of the VotersRecord, timed from the leader's."""
    hw = span.attributes.get("kafka.raft.high_watermark")
    if span is leader_span:
        return f"  - {span.instance} (the leader): at its append, its high watermark still {hw}"
    if span.start_ns >= leader_span.start_ns:
        when = f"{between(leader_span.start_ns, span.start_ns)} after the leader"
    else:  # clocks of different processes: a follower may seem to apply it before the leader's span began
        when = "with the leader"
    return f"  - {span.instance}: {when}, its high watermark still {hw}"


def appended_then_committed(ev: Evidence) -> Result:
    added = ev.facts["added"]
    spans = _change(ev, "KV.add", added)
    if spans is None:
        return Result.failed(expected=f"the AddRaftVoter of controller {added} answered at commit (KV.commit)",
                             seen="its trace has no KV.commit yet", hint="Press Enter again in a moment.")
    steps = [s.step for s in spans]
    if steps != ["KV.add", "KV.apiv", "KV.voters", "KV.commit"]:
        return Result.failed(expected="KV.add, KV.apiv, KV.voters, KV.commit in one trace on the leader",
                             seen=f"{steps}", hint="Report this run: the trace is out of order.", wait=False)
    add, apiv, voters, commit = spans
    offset = apiv.attributes["kafka.raft.voters_record.offset"]
    applied = sorted((s for s in ev.spans.where(step="KV.voters") if s.attributes.get("kafka.raft.voters.offset")
                      == offset and s.attributes.get("kafka.raft.voters.offset.before") != offset),
                     key=lambda s: s.start_ns)
    a = apiv.attributes
    lines = [f"Controller {node_of(add)}, the leader, handled the AddRaftVoter ({ref(add)}): no other change "
             f"pending, its high watermark past the last VotersRecord, kraft.version 1, and {added} not a voter yet. "
             f"It did not answer: it sent ApiVersions to controller {added} and kept the request pending.",
             f"The answer came {between(add.start_ns, apiv.start_ns)} later ({at(apiv)}): controller {added} "
             f"supports kraft.version {a.get('kafka.raft.voter.kraft_version.min')} to "
             f"{a.get('kafka.raft.voter.kraft_version.max')}, and had caught up (last fetched "
             f"{a.get('kafka.raft.voter.last_fetch_ms_ago')} ms before, at offset "
             f"{a.get('kafka.raft.voter.end_offset')}). The leader appended a VotersRecord with "
             f"{_ids(apiv, 'kafka.raft.voters.after')} at offset **{offset}**.",
             "Each node applied it when it **appended** it, not when it was committed (KV.voters, "
             "`KRaftControlRecordStateMachine.updateState`):\n"
             + "\n".join(_applied_line(s, voters) for s in applied),
             f"The leader counted the high watermark over four voters from that moment: with four, a majority is "
             f"three. The high watermark passed offset {offset} {between(voters.start_ns, commit.start_ns)} after "
             f"the append, and `AddVoterHandler.highWatermarkUpdated` answered the request "
             f"{commit.attributes.get('kafka.error')} ({at(commit)}), "
             f"{took((commit.end_ns - add.start_ns) / 1e6)} after it arrived: one trace, four steps."]
    return Result.passed("\n\n".join(lines), offset=offset)


def counted_when(ev: Evidence) -> str:
    spans = _change(ev, "KV.add", ev.facts["added"])
    if spans is None:
        return "a"
    leader_applied, commit = spans[2], spans[3]
    return "a" if leader_applied.start_ns < commit.start_ns else "b"


commit = Step(
    title="The new set counts once appended",
    about=("AddVoterHandler.handleApiVersionsResponse", "KRaftControlRecordStateMachine.updateState",
           "AddVoterHandler.highWatermarkUpdated"),
    text="""
Read the add's trace on the leader. `AddVoterHandler.handleApiVersionsResponse` (KV.apiv) takes the new voter's
ApiVersions answer: it must support the finalized kraft.version and be caught up, and then the leader appends a
VotersRecord with the old set plus the new voter. `KRaftControlRecordStateMachine.updateState` (KV.voters) reads
the record back from every node's log after its append. `AddVoterHandler.highWatermarkUpdated` (KV.commit) answers
the request once the high watermark passes the record.
""",
    predict=Predict(
        question="When does controller {added} start counting towards the majority that moves the high watermark?",
        choices={"a": "as soon as the leader appends the VotersRecord, before it is committed",
                 "b": "once the VotersRecord is committed by a majority of the old three",
                 "c": "once the tool has received the answer"},
        answer=counted_when,
        why="""
KIP-853 makes a voter set take effect when it is appended, on each node, and undoes it if a truncation removes the
record. That is safe because the set changes by one voter at a time: any majority of the old set and any majority of
the new one have a voter in common, so two leaders cannot be elected in one epoch by the two sets. The record itself
is committed by the new set's majority.
"""),
    check=appended_then_committed,
    wait_s=20,
)


# -- 4. Removing the leader ------------------------------------------------------------------------------------------

def pick_leader(ev: Evidence) -> dict | None:
    leader = raft_leader(ev.spans)
    return {"leader": leader.node, "epoch": leader.epoch} if leader is not None else None


def leader_removed(ev: Evidence) -> Result:
    leader, epoch, since = ev.facts["leader"], ev.facts["epoch"], ev.facts["action_ns"]
    spans = _change(ev, "KV.remove", leader)
    if spans is None or spans[0].start_ns < since:
        return Result.failed(expected=f"a RemoveRaftVoter of controller {leader} answered at commit (KV.remove, "
                                      "KV.commit)", seen="none yet",
                             hint="run the command above, or press Enter again in a moment")
    remove, commit = spans[0], spans[-1]
    applied = [s for s in spans if s.step == "KV.voters"]
    new = [c for c in raft_leaders(ev.spans, after_ns=commit.start_ns) if c.epoch > epoch]
    if not new:
        return Result.failed(expected=f"a leader elected after controller {leader} resigned",
                             seen="no leader since the removal committed", hint="Press Enter again in a moment.")
    resigned = next((c for c in role_changes(ev.spans, node=leader, after_ns=remove.start_ns)
                     if c.role_to == "Resigned"), None)
    lines = [f"Controller {leader} removed itself ({ref(remove)}). `RemoveVoterHandler` does not wait for an "
             "ApiVersions answer: it appended the VotersRecord without the leader at once"
             + (f", and the leader applied it when it appended it: voters {_ids(applied[0], 'kafka.raft.voters')}"
                if applied else "")
             + ". From then on the leader led a quorum it was no longer part of: the high watermark was counted "
               "over the other three only.",
             f"Once the high watermark passed the record, `RemoveVoterHandler.highWatermarkUpdated` answered the "
             f"request and, the leader not being in the committed set, asked to resign "
             f"(kafka.raft.resign_requested={commit.attributes.get('kafka.raft.resign_requested')}, {at(commit)})"
             + (f"; it moved to **Resigned** in epoch {resigned.epoch} ({at(resigned.span)})" if resigned else "")
             + ".",
             f"Controller {new[0].node} was elected in epoch {new[0].epoch} "
             f"{between(commit.start_ns, new[0].at_ns)} after the commit ({at(new[0].span)}). The tool then stopped "
             f"controller {leader}'s process: had it been stopped first, the quorum would have waited for a fetch "
             "timeout before electing anyone."]
    return Result.passed("\n\n".join(lines), new_leader=new[0].node)


def resigned_when(ev: Evidence) -> str:
    spans = _change(ev, "KV.remove", ev.facts["leader"])
    return "b" if spans is not None and spans[-1].attributes.get("kafka.raft.resign_requested") else "a"


remove = Step(
    title="The leader removes itself",
    about=("KafkaRaftClient.handleRemoveVoterRequest", "RemoveVoterHandler.highWatermarkUpdated"),
    text="""
Remove controller {leader}, the leader. `KafkaRaftClient.handleRemoveVoterRequest` (KV.remove) checks what an add
checks, appends a VotersRecord without that voter, and waits; `RemoveVoterHandler.highWatermarkUpdated` (KV.commit)
answers once the record is committed. The command stops the controller's process after the answer.
""",
    prepare=pick_leader,
    predict=Predict(
        question="The leader appends the VotersRecord that removes itself. What does it do next?",
        choices={"a": "it steps down at once: a node outside the set cannot lead",
                 "b": "it goes on leading until the record is committed, then resigns and the others elect a leader",
                 "c": "it goes on leading as a non-voter until it is stopped"},
        answer=resigned_when,
        why="""
Someone has to commit the record that removes the leader, and that is the leader's job: it keeps appending and
counting the new set's majority, without itself. Only once the record is committed does it resign; its
EndQuorumEpoch lets the remaining voters elect one of theirs at once, without waiting for a fetch timeout.
"""),
    action=Command("kafka-edu cluster remove-controller {leader} --run {run_dir}",
                   tui="run the command in another terminal: the TUI has no key for it"),
    check=leader_removed,
    wait_s=60,
)


LESSON = Lesson(
    name="growing-the-quorum",
    title="Growing the quorum",
    summary="KIP-853 in Kafka 3.9: the voter set in a bootstrap checkpoint and then in the log, a new controller "
            "catching up as an observer, AddRaftVoter (ApiVersions, the VotersRecord applied on append, the answer "
            "at commit), and the leader removing itself and resigning",
    minutes=10,
    seed="002",
    intro=INTRO,
    setup=SETUP,
    mode="kraft",
    controllers=3,
    brokers=0,
    dynamic_quorum=True,
    steps=[bootstrap, observe, commit, remove],
    outro="""
A KIP-853 quorum keeps its membership where it keeps everything else: in the replicated log, one VotersRecord per
change, applied by each node when it appends the record. One voter at a time keeps the old and the new majorities
overlapping; the leader's checks (nothing pending, its high watermark past the last change, the new voter caught up)
keep the changes one at a time.

What 3.9 does not do: turn a static quorum (`controller.quorum.voters`) into a dynamic one (KAFKA-16538, Kafka 4.1),
or add a new controller by itself; someone runs `add-controller`. A controller whose address changes is meant to
tell the leader with UpdateRaftVoter (KV.update); 3.9's follower sends it only when its update period ends with no
Fetch in flight, which a long-polling follower seldom has. `kafka-edu tui --run {run_dir}` replays this run; lesson
`metadata-journey` follows an ordinary record through the same log.
""",
)
