"""Lesson 6, Raft inside Kafka (seed 002; Kafka 3.9's org.apache.kafka.raft): three KRaft controllers elect a
leader, replicate the metadata log by pulling it, commit by majority, fail over after a kill -9, take the old leader
back, and lose their leader for nothing when a voter sleeps past its fetch timeout (3.9 has no pre-vote).

Read top to bottom: each step's checks come just before the step that uses them.
"""

from __future__ import annotations

import re

from kafka_edu.lessons import Command, Evidence, Lesson, Predict, Result, Step
from kafka_edu.lessons.actions import cluster_line, controller
from kafka_edu.lessons.traces import (
    RoleChange,
    activation,
    at,
    between,
    clock,
    node_of,
    raft_leader,
    raft_leaders,
    ref,
    role_changes,
    took,
    votes_for,
)
from kafka_edu.tracing.query import SpanRecord, Spans

FETCH_TIMEOUT_S = 2.0  # controller.quorum.fetch.timeout.ms, 3.9's default
PAUSE_S = 4  # twice the fetch timeout

INTRO = """
In KRaft mode (Kafka 3.x) there is no ZooKeeper: a few nodes are *controllers*, they keep the cluster's metadata in
a replicated log, `__cluster_metadata`, and they agree on it with Raft. One of them is the Raft *leader*, and that
one is the active controller; the others replicate its log and stand by.

This lesson starts three controllers and reads their traces: the first election, how the log is copied and when a
record counts as committed, a `kill -9` of the leader, the old leader coming back, and a voter that sleeps through
its own timeout. The source is `raft/src/main/java/org/apache/kafka/raft/KafkaRaftClient.java` (Kafka 3.9); the port
is `kafka_edu/v3_9/raft/raft/kafka_raft_client.py`, and every step names the spans to look for
(`kafka-edu tui --run` shows
the roles live in its Quorum pane).
"""

SETUP = """
The lesson starts three KRaft controllers (node ids 1, 2 and 3, each formatted with `kafka-edu storage format`) and
no brokers, with 3.9's defaults: `controller.quorum.election.timeout.ms=1000`,
`controller.quorum.fetch.timeout.ms=2000`, `controller.quorum.election.backoff.max.ms=1000`, and a NoOp record every
`metadata.max.idle.interval.ms=500`.
"""


def _reason(change: RoleChange) -> str:
    """Why the poll phase that made this change did it (`kafka.raft.poll.reason`), if it said."""
    return str(change.span.attributes.get("kafka.raft.poll.reason", "")) or f"in `{change.span.name}`"


def _vote_lines(spans: Spans, candidate: int, epoch: int) -> list[str]:
    lines = []
    for v in votes_for(spans, candidate, epoch):
        granted = v.attributes.get("kafka.raft.vote.granted") is True
        reason = str(v.attributes.get("kafka.raft.vote.reason", "?")).removeprefix("granted: ")
        lines.append(f"  - controller {node_of(v)} {'granted' if granted else 'refused'} ({at(v)}): {reason}")
    return lines


def _candidacies(spans: Spans, after_ns: int, up_to_epoch: int) -> list[RoleChange]:
    return [c for c in role_changes(spans, after_ns=after_ns) if c.role_to == "Candidate" and c.epoch <= up_to_epoch]


# -- 1. The first election -----------------------------------------------------------------------------------------

def first_leader_elected(ev: Evidence) -> Result:
    voters = ev.facts["controller_ids"]
    leaders = raft_leaders(ev.spans)
    if not leaders:
        standing = _candidacies(ev.spans, 0, 1 << 30)
        return Result.failed(
            expected="one controller's move to Leader (a `raft.role.change` event, KR.role)",
            seen=f"{len(standing)} candidacy(ies) so far and no leader",
            hint="The controllers elect one as they start; press Enter again in a moment.")
    changes = role_changes(ev.spans)

    def missing_for(leader: RoleChange) -> list[int]:
        followers = {c.node for c in changes if c.role_to == "Follower" and c.epoch == leader.epoch}
        return [n for n in voters if n != leader.node and n not in followers]

    # The first leader all the others followed. On a loaded machine a first leader can lose its epoch before its
    # BeginQuorumEpoch reaches them (their election timeout runs out first); the next epoch's leader is then the one.
    first = next((leader for leader in leaders if not missing_for(leader)), leaders[-1])
    missing = missing_for(first)
    if missing:
        return Result.failed(
            expected=f"the other controllers following controller {first.node} in epoch {first.epoch}",
            seen=f"controller(s) {missing} not following yet",
            hint="A voter follows once the leader's BeginQuorumEpoch reaches it; press Enter again.")
    candidacies = _candidacies(ev.spans, 0, first.epoch)
    won = next((c for c in candidacies if c.node == first.node and c.epoch == first.epoch), None)
    if won is None:
        return Result.failed(expected=f"controller {first.node}'s candidacy in epoch {first.epoch}",
                             seen="its move to Leader, but no move to Candidate before it",
                             hint="Report this run: a voter of three cannot lead without standing.", wait=False)
    timeout = re.search(r"\((\d+) ms\)", _reason(won))
    write = ev.spans.where(trace_id=won.span.trace_id, name="FileQuorumStateStore.writeElectionState")
    write = [s for s in write if node_of(s) == first.node]
    rivals = [c for c in candidacies if c is not won]
    how = "stood first" if all(c.at_ns > won.at_ns for c in rivals) else f"won epoch {won.epoch}"
    lines = [f"Controller {first.node} {how}: its `{won.span.name.rpartition('.')[2]}` found "
             + (f"its election timeout ({timeout.group(1)} ms, drawn at random between 1000 and 2000) over with no "
                "leader known" if timeout else _reason(won))
             + f", and it became a Candidate in epoch {won.epoch}, voting for itself ({at(won.span)}). Before it "
             f"asked anyone, `quorum-state` held its vote: `{won.quorum_state}`"
             + (f" (written and fsynced in {took(write[0].duration_ms)})." if write else ".")]
    for c in rivals:
        lines.append(f"Controller {c.node} stood too, in epoch {c.epoch} ({_reason(c)}):\n"
                     + "\n".join(_vote_lines(ev.spans, c.node, c.epoch)))
    votes = _vote_lines(ev.spans, first.node, first.epoch)
    lines.append("Its Vote requests (`maybeSendVoteRequests`, KR.vote) were answered:\n" + "\n".join(votes))
    begins = [s for s in ev.spans.where(name="KafkaRaftClient.handleBeginQuorumEpochRequest")
              if s.attributes.get("kafka.raft.request.leader_epoch") == first.epoch]
    lines.append(f"A majority of three is two votes, its own included: controller {first.node} became Leader "
                 f"{between(won.at_ns, first.at_ns)} after standing ({ref(first.span)}), wrote a LeaderChange record "
                 "to open its epoch, and sent BeginQuorumEpoch to the others"
                 + (f" (handled on {', '.join(sorted(s.instance for s in begins))})" if begins else "")
                 + ". A voter that grants a vote writes it to its own `quorum-state` first, so that a restart cannot "
                 "make it vote twice in one epoch.")
    deposed = [leader for leader in leaders if leader.epoch < first.epoch]
    if deposed:
        lines.append("Before that, " + ", ".join(f"controller {d.node} led epoch {d.epoch}" for d in deposed)
                     + " and lost it before every voter followed: a voter whose election timeout ran out before the "
                     "leader's BeginQuorumEpoch reached it stood for the next epoch (a busy machine does that).")
    return Result.passed("\n\n".join(lines), leader=first.node, epoch=first.epoch)


election = Step(
    title="Three voters, one leader",
    about=("KafkaRaftClient.pollUnattached", "KafkaRaftClient.maybeSendVoteRequests",
           "KafkaRaftClient.handleVoteRequest", "KafkaRaftClient.handleVoteResponse"),
    text="""
Each controller runs a `KafkaRaftClient` on its own thread (`KafkaRaftClientDriver.doWork` calls `poll()` in a loop).
A voter is in one of five states: **Unattached** (no leader known; it may have voted), **Candidate**, **Leader**,
**Follower** and **Resigned** (a leader stepping down). Seed 002 recalls Raft's three roles; 3.9 adds the other two,
and keeps a vote as part of the Unattached state rather than as a state of its own.

A voter that knows no leader waits for its *election timeout*, `controller.quorum.election.timeout.ms` plus a random
extra of up to as much again. The first whose timer runs out (`pollUnattached`) becomes a Candidate in the next
*epoch* (Raft's term), votes for itself, writes that vote to its `quorum-state` file, and asks the others with Vote
requests (`KafkaRaftClient.maybeSendVoteRequests`, KR.vote). Each voter answers in `handleVoteRequest`: it grants at
most one vote per epoch, and only to a candidate whose log is at least as long as its own. The candidate counts the
answers in `handleVoteResponse`; a majority makes it the leader, which announces itself with BeginQuorumEpoch
(KR.begin).
""",
    predict=Predict(
        question="The three controllers started together, with no leader. Which one stands for election first?",
        choices={"a": "controller 1: the lowest node id goes first",
                 "b": "the one whose randomized election timeout runs out first",
                 "c": "all three at once, and the highest node id wins the tie"},
        answer="b",
        why="""
Nothing ranks the voters: the random part of the election timeout decides who asks first, and the spread makes it
likely that the first candidate collects its votes before anyone else's timer runs out. When two timers do run out
together, the vote splits, each candidate votes for itself, and both try again after a random backoff.
"""),
    check=first_leader_elected,
    wait_s=20,
)


# -- 2. Pull replication and the high watermark --------------------------------------------------------------------

def _hw_spans(spans: Spans, leader: int, epoch: int) -> list[SpanRecord]:
    return [s for s in spans.where(name="KafkaRaftClient.handleFetchRequest") if node_of(s) == leader
            and s.attributes.get("kafka.raft.epoch") == epoch and "kafka.raft.hw.sorted_offsets" in s.attributes]


def current_leader(ev: Evidence) -> dict | None:
    """The leader and epoch as the traces say now: what a step about the leader names (an election may have happened
    since the last step, on a busy machine)."""
    leader = raft_leader(ev.spans)
    return {"leader": leader.node, "epoch": leader.epoch} if leader is not None else None


def majority_high_watermark(ev: Evidence) -> Result:
    leader, epoch, since = ev.facts["leader"], ev.facts["epoch"], ev.facts["action_ns"]
    # the TUI's Quorum pane asks too, twice a second: its polls are not the learner's command
    asked = [s for s in ev.since(since).where(name="RequestChannel.Request")
             if s.attributes.get("kafka.api.name") == "DescribeQuorum" and s.instance.startswith("controller-")
             and s.attributes.get("kafka.client.id") != "kafka-edu-tui-poll"]  # tui.store.TUI_POLL_CLIENT_ID
    if not asked:
        return Result.failed(
            expected=f"a DescribeQuorum request to the controllers (the leader is controller {leader})",
            seen="none since this step began",
            hint="run the command above: `describe --replication` asks the leader how far each replica has got")
    answered = [s for s in asked if node_of(s) == leader]
    fetches = _hw_spans(ev.spans, leader, epoch)
    if not fetches:
        return Result.failed(expected=f"Fetch requests handled by controller {leader} in epoch {epoch}",
                             seen="none traced yet", hint="Followers fetch all the time; press Enter again.")
    behind = [s for s in fetches if len(set(s.attributes["kafka.raft.hw.sorted_offsets"])) > 1
              and s.attributes.get("kafka.raft.high_watermark") == s.attributes.get("kafka.raft.hw.candidate")]
    shown = (behind or fetches)[-1]
    a = shown.attributes
    voters, offsets, index = a["kafka.raft.hw.sorted_voters"], a["kafka.raft.hw.sorted_offsets"], \
        a["kafka.raft.hw.majority_index"]
    appends = [s for s in ev.spans.where(name="KafkaMetadataLog.appendAsLeader") if node_of(s) == leader]
    followers = sorted({node_of(s) for s in ev.spans.where(name="KafkaMetadataLog.appendAsFollower")} - {None})
    laggard = (f"; the leader did not wait for controller {voters[-1]}, which had only reached {offsets[-1]}"
               if offsets[-1] < a["kafka.raft.hw.candidate"] else "")
    explain = f"""
You wrote nothing, yet the log grew: controller {leader} appended {len(appends)} batch(es)
(`KafkaMetadataLog.appendAsLeader`), most of them a `NoOpRecord` the active controller writes every 500 ms so that
the high watermark keeps moving on an idle cluster, and {len(followers)} node(s) ({', '.join(map(str, followers))})
appended them as followers (`appendAsFollower`).

Nobody pushed them: each follower sends Fetch with the offset it wants next, which tells the leader how far its log
reaches. In {ref(shown)}, controller {a.get('kafka.raft.fetch.replica_id')} fetched from offset
{a.get('kafka.raft.fetch.offset')}. The leader sorted the voters' log end offsets, highest first: {offsets} (voters
{voters}), and took the one at index {index} (three voters: 3 // 2): **{a['kafka.raft.hw.candidate']}**, an offset
that two logs of three reach{laggard}. The high watermark became {a.get('kafka.raft.high_watermark')}: every record
below it is committed, and only committed records are handed to the listeners (`handleCommit`).

One more rule: this epoch began at offset {a['kafka.raft.hw.epoch_start_offset']}, where the leader wrote its
LeaderChange record, and the high watermark could not move until that record of its own epoch was on a majority.
Your `describe --replication` was answered by {'the leader' if answered else f'controller {node_of(asked[-1])}'}
({ref((answered or asked)[-1])}) from the same per-replica offsets.
"""
    return Result.passed(explain)


replication = Step(
    title="Followers pull; a majority commits",
    about=("KafkaRaftClient.handleFetchRequest", "KafkaRaftClient.maybeSendFetchOrFetchSnapshot",
           "LeaderState.maybeUpdateHighWatermark", "KafkaMetadataLog.appendAsFollower"),
    text="""
Raft as the paper describes it has the leader push entries to its followers. KRaft turns that around, the way Kafka
replicates partitions: followers send Fetch requests to the leader (`KafkaRaftClient.maybeSendFetchOrFetchSnapshot`,
KR.fetch) with the offset they need next, and the leader's `handleFetchRequest` answers with records, or holds the
request for up to 500 ms when it has none (a long poll). The follower writes what it gets with
`KafkaMetadataLog.appendAsFollower`. Brokers fetch the same log as *observers*: they get the records but have no
vote.

The leader keeps each voter's log end offset, as the Fetch requests report it, and after every Fetch recomputes the
**high watermark** (`LeaderState.maybeUpdateHighWatermark`): the highest offset that a majority of voters have.
Ask the leader for the numbers it keeps:
""",
    predict=Predict(
        question="The leader appends a record. When is that record committed, below the high watermark?",
        choices={"a": "as soon as it is in the leader's log and fsynced",
                 "b": "once two of the three voters have it, the leader included",
                 "c": "once all three voters have it"},
        answer="b",
        why="""
A majority is enough, and it is what makes a commit safe: any two majorities of three share a voter, so whoever
wins the next election has every committed record (a voter refuses a candidate whose log is shorter than its own).
Waiting for all three would stop the quorum whenever one voter is down.
"""),
    prepare=current_leader,
    action=Command("kafka-edu metadata-quorum --bootstrap-controller {bootstrap_controllers} describe --replication"),
    check=majority_high_watermark,
    wait_s=8,
)


# -- 3. kill -9 the leader -------------------------------------------------------------------------------------------

def new_leader_after_kill(ev: Evidence) -> Result:
    old, epoch, since = ev.facts["leader"], ev.facts["epoch"], ev.facts["action_ns"]
    kill_command = cluster_line("kill", old, ev.facts)
    exits = ev.exits_since(since)
    killed = [e for e in exits if e.broker_id == old]
    if not exits:
        running = ", ".join(f"{n} (pid {pid})" for n, pid in sorted(ev.alive.items()) if pid)
        return Result.failed(expected=f"controller {old}'s process gone, then a leader in an epoch above {epoch}",
                             seen=f"every controller is still running: {running}",
                             hint=f"run {kill_command}: controller {old} is the leader", wait=False)
    if not killed:
        other = exits[-1].broker_id
        return Result.failed(
            expected=f"the leader, controller {old}, killed",
            seen=f"controller {other} was killed instead, and controller {old} still leads epoch {epoch}: with two "
                 "voters of three left, the leader still has its majority",
            hint=f"start it again ({cluster_line('start', other, ev.facts)}), then run {kill_command}", wait=False)
    kill = killed[-1]
    timeouts = sorted((s for s in ev.spans.where(name="KafkaRaftClient.pollFollower")
                       if s.start_ns >= kill.at_ns and node_of(s) != old), key=lambda s: s.start_ns)
    leaders = [c for c in raft_leaders(ev.spans, after_ns=kill.at_ns) if c.epoch > epoch]
    standing = [c for c in role_changes(ev.spans, after_ns=kill.at_ns) if c.role_to == "Candidate"]
    if not leaders:
        return Result.failed(
            expected=f"a new leader in an epoch above {epoch}",
            seen=f"controller {old}'s process ended at {clock(kill.at_ns)}; since then {len(timeouts)} fetch "
                 f"timeout(s) and {len(standing)} candidacy(ies), no leader yet",
            hint=f"A follower waits controller.quorum.fetch.timeout.ms ({FETCH_TIMEOUT_S:g} s) before it gives up on "
                 "the leader; press Enter in a moment.")
    new = leaders[0]
    active = activation(ev.spans, new.node, new.at_ns)
    if active is None:
        return Result.failed(expected=f"controller {new.node}'s QuorumController active (`completeActivation`)",
                             seen=f"it leads epoch {new.epoch}, not yet active", hint="Press Enter again.")
    candidacies = [c for c in standing if c.epoch <= new.epoch]
    lines = [f"The lesson saw controller {old}'s process end at {clock(kill.at_ns)}. Nobody noticed at once: a "
             "follower does not watch its connection to the leader, it counts the leader alive while its Fetch "
             f"requests get answers, and gives up after {FETCH_TIMEOUT_S:g} s without one."]
    lines.append("Fetch timeouts (`pollFollower`): " + ", ".join(
        f"controller {node_of(s)} +{between(kill.at_ns, s.start_ns)}" for s in timeouts) + ".")
    for c in candidacies:
        votes = _vote_lines(ev.spans, c.node, c.epoch)
        lines.append(f"Controller {c.node} stood in epoch {c.epoch}, +{between(kill.at_ns, c.at_ns)} "
                     f"({_reason(c)})" + (":\n" + "\n".join(votes) if votes else "."))
    split = len({c.node for c in candidacies}) > 1
    if split:
        lines.append("The vote split: both survivors had their timers started by the same last answers from the "
                     "dead leader, so the timers ran out together; each voted for itself and refused the other. A "
                     "candidate whose election timed out backs off for a random time of up to "
                     "`controller.quorum.election.backoff.max.ms` and stands again in the next epoch.")
    lines.append(f"Controller {new.node} became leader of epoch {new.epoch} +{between(kill.at_ns, new.at_ns)} "
                 f"({ref(new.span)}), and its QuorumController was active +{between(kill.at_ns, active.end_ns)} "
                 f"(`completeActivation`, {at(active)}): it claimed the epoch and wrote on, with nothing to read "
                 "first, since as a standby it had applied every committed record already.")
    first = timeouts[0].start_ns if timeouts else new.at_ns
    early = (f" (less than {FETCH_TIMEOUT_S:g} s: each timer counts from the last answer its follower had, which "
             "came before the kill)" if first - kill.at_ns < FETCH_TIMEOUT_S * 1e9 else "")
    lines.append(f"So **{between(kill.at_ns, active.end_ns)}** from the kill to a working controller, "
                 f"{between(kill.at_ns, first)} of it waiting for a fetch timeout{early}.")
    return Result.passed("\n\n".join(lines), old_leader=old, old_epoch=epoch, leader=new.node, epoch=new.epoch,
                         failover_s=round((active.end_ns - kill.at_ns) / 1e9, 2),
                         detection_s=round((first - kill.at_ns) / 1e9, 2), split_vote=split)


kill = Step(
    title="kill -9 the leader",
    about=("KafkaRaftClient.pollFollower", "KafkaRaftClient.pollCandidate", "QuorumController.claim",
           "QuorumController.completeActivation"),
    text="""
Controller {leader} leads epoch {epoch}. Kill it without warning. The others find out the only way a follower can:
its Fetch requests stop being answered. After `controller.quorum.fetch.timeout.ms` without a successful Fetch,
`KafkaRaftClient.pollFollower` turns the follower into a Candidate in the next epoch, and the election of step 1
runs again, without the dead voter (a candidate that gets no majority waits out a backoff in `pollCandidate`, then
stands again). The winner's `QuorumController` then *claims* the epoch (`claim`) and becomes the active controller
(`completeActivation`).
""",
    predict=Predict(
        question="How long after the kill does a new leader take over?",
        choices={"a": "well under a second: the followers' connections to the dead leader close at once",
                 "b": "about the fetch timeout (2 s), plus the election, more if the vote splits",
                 "c": "about 9 s, broker.session.timeout.ms"},
        answer="b",
        why="""
A closed connection is not evidence of a dead leader (the network can drop connections), so Raft relies on a timer:
no answer for the fetch timeout means no leader. The timeout is fixed, not random, so two followers that heard the
leader last at the same moment time out together, and a split vote is common after a kill. The broker session
timeout is another timer: it is how the active controller decides that a *broker* is gone.
"""),
    prepare=current_leader,
    action=controller("kill", "leader"),
    check=new_leader_after_kill,
    wait_s=30,
)


# -- 4. The old leader comes back ------------------------------------------------------------------------------------

def old_leader_rejoined(ev: Evidence) -> Result:
    old, old_epoch, since = ev.facts["old_leader"], ev.facts["old_epoch"], ev.facts["action_ns"]
    starts = [s for s in ev.since(since).where(name="KafkaRaftServer.startup") if node_of(s) == old]
    if not starts:
        if ev.alive.get(old):
            return Result.failed(expected=f"a new `KafkaRaftServer.startup` trace from controller {old}",
                                 seen="its process runs but has not traced its startup yet",
                                 hint="Press Enter again in a moment.")
        return Result.failed(expected=f"controller {old} started again", seen=f"controller {old} is not running",
                             hint=f"run {cluster_line('start', old, ev.facts)}", wait=False)
    changes = role_changes(ev.spans, node=old, after_ns=starts[-1].start_ns)
    leader = raft_leader(ev.spans)
    following = [c for c in changes if c.role_to in ("Follower", "Leader") and c.epoch > old_epoch]
    if not following or leader is None or leader.epoch > following[-1].epoch:
        path = " → ".join(f"{c.role_to} ({c.epoch})" for c in changes) or "none yet"
        return Result.failed(expected=f"controller {old} following the leader of an epoch above {old_epoch}",
                             seen=f"its roles since it started (epoch in brackets): {path}",
                             hint="It hears of the new leader from the leader's BeginQuorumEpoch or from the answers "
                                  "to its own EndQuorumEpoch; press Enter again.")
    joined = following[-1]
    first = changes[0]
    path = " → ".join(f"**{c.role_to}** in epoch {c.epoch}" for c in changes)
    truncated = [s for s in ev.since(since).where(name="ReplicatedLog.truncateToEndOffset") if node_of(s) == old]
    appended = [s for s in ev.since(since).where(name="KafkaMetadataLog.appendAsFollower") if node_of(s) == old]
    lines = [f"Controller {old} started again ({ref(starts[-1])}, {took(starts[-1].duration_ms)}). "
             f"`KafkaRaftClient.initialize` read its `quorum-state`, which said it led epoch {old_epoch}, and it came "
             f"back as **{first.role_to}** in epoch {first.epoch} ({ref(first.span)}): a restarted leader never "
             "resumes leading, since it cannot know what the others did while it was gone.",
             f"Its roles since: {path}. It followed controller {joined.leader} in epoch {joined.epoch} "
             f"{between(starts[-1].start_ns, joined.at_ns)} after its startup began ({ref(joined.span)})."]
    if appended:
        firsts = [s.attributes.get("kafka.raft.offset.first", 0) for s in appended]
        lasts = [s.attributes.get("kafka.raft.offset.last", 0) for s in appended]
        lines.append(f"It caught up by fetching like any follower: {len(appended)} batch(es), offsets {min(firsts)} to "
                     f"{max(lasts)}, appended as follower.")
    if truncated:
        t = truncated[0].attributes
        lines.append(f"Its log had records beyond what the quorum kept: the leader answered its Fetch with a "
                     f"diverging epoch, and it truncated from offset {t.get('kafka.raft.log_end_offset.before')} to "
                     f"{t.get('kafka.raft.truncation_offset')} ({ref(truncated[0])}): they had never been committed.")
    return Result.passed("\n\n".join(lines), leader=leader.node, epoch=leader.epoch)


def came_back_as(ev: Evidence) -> str:
    changes = role_changes(ev.spans, node=ev.facts["old_leader"], after_ns=ev.facts["action_ns"])
    if changes and changes[0].role_to == "Leader":
        return "a"
    return "c" if any(c.role_to == "Candidate" for c in changes) else "b"


restart = Step(
    title="The old leader comes back",
    about=("KafkaRaftClient.initialize", "QuorumState.initialize", "KafkaRaftClient.handleBeginQuorumEpochRequest"),
    text="""
Start controller {old_leader} again. Its `quorum-state` file still says that it is the leader of epoch
{old_epoch}: it was killed before it could write anything else. `KafkaRaftClient.initialize` reads that file and
the log, and `QuorumState.initialize` decides the state it starts in. The current leader's BeginQuorumEpoch
requests, handled in `handleBeginQuorumEpochRequest`, tell it who leads now.
""",
    predict=Predict(
        question="Controller {old_leader} restarts with `quorum-state` saying it leads epoch {old_epoch}. What does "
                 "it become first?",
        choices={"a": "the leader of epoch {old_epoch} again: the file says so",
                 "b": "Resigned in epoch {old_epoch}, then a follower of the leader of epoch {epoch} once it "
                      "hears of it",
                 "c": "a candidate in a new epoch, to take the leadership back"},
        answer=came_back_as,
        why="""
A leader's authority lasts only while a majority follows it, and a restarted process cannot know whether they still
do: the others may have elected someone in a later epoch (they did). So 3.9 starts a former leader as Resigned,
sending EndQuorumEpoch for its old epoch. It learns the current epoch and leader from the answers, which name them,
or from the leader's BeginQuorumEpoch, sent to every voter each half fetch timeout, and follows. Had it heard of no
leader before its election timeout, it would have stood as a candidate instead.
"""),
    action=controller("start", "old_leader"),
    check=old_leader_rejoined,
    wait_s=45,
)


# -- 5. A voter that sleeps ------------------------------------------------------------------------------------------

def pick_sleeper(ev: Evidence) -> dict | None:
    """A running follower of the current leader."""
    leader = raft_leader(ev.spans)
    if leader is None:
        return None
    followers = [n for n in ev.facts["controller_ids"] if n != leader.node and ev.alive.get(n)]
    if not followers:
        return None
    return {"sleeper": followers[0], "leader": leader.node, "epoch": leader.epoch}


def _latest_ns(spans: Spans) -> int:
    """The run's clock as its spans tell it: the end of the newest one (an idle quorum still writes a few a second)."""
    return max((s.end_ns for s in spans), default=0)


def sleeper_woke(ev: Evidence) -> Result:
    sleeper, leader, epoch, since = ev.facts["sleeper"], ev.facts["leader"], ev.facts["epoch"], ev.facts["action_ns"]
    pauses = ev.pauses_since(since)
    mine = [p for p in pauses if p.broker_id == sleeper]
    others = [p for p in pauses if p.broker_id != sleeper and not p.resumed]
    if others and not mine:
        other = others[0].broker_id
        return Result.failed(
            expected=f"controller {sleeper} paused, a follower",
            seen=f"controller {other} was paused instead" + (" (the leader)" if other == leader else ""),
            hint=f"resume it ({cluster_line('resume', other, ev.facts)}), then run the command above", wait=False)
    stopped = [p for p in mine if not p.resumed]
    resumed = [p for p in mine if p.resumed]
    if not stopped:
        return Result.failed(expected=f"controller {sleeper} paused (SIGSTOP) for longer than the fetch timeout, then "
                                      "resumed", seen="no pause", hint="run the command above", wait=False)
    if not resumed:
        return Result.failed(expected=f"controller {sleeper} resumed", seen=f"paused since {clock(stopped[0].at_ns)}",
                             hint=f"after {PAUSE_S} s, run {cluster_line('resume', sleeper, ev.facts)}")
    asleep_ns = resumed[0].at_ns - stopped[0].at_ns
    if asleep_ns < FETCH_TIMEOUT_S * 1e9:
        return Result.failed(expected=f"a pause longer than the fetch timeout ({FETCH_TIMEOUT_S:g} s)",
                             seen=f"controller {sleeper} slept {took(asleep_ns / 1e6)}",
                             hint="run the command above as printed: it sleeps for four seconds", wait=False)
    woke = resumed[0].at_ns
    stood = [c for c in role_changes(ev.spans, node=sleeper, after_ns=stopped[0].at_ns) if c.role_to == "Candidate"]
    if not stood:
        fetched = [s for s in ev.spans.where(name="KafkaRaftClient.handleFetchResponse")
                   if node_of(s) == sleeper and s.start_ns >= woke]
        if _latest_ns(ev.spans) - woke < (FETCH_TIMEOUT_S + 1) * 1e9 or not fetched:
            return Result.failed(expected=f"controller {sleeper}'s first move after it woke up",
                                 seen=f"resumed at {clock(woke)}, nothing since",
                                 hint="Press Enter again in a moment.")
        return Result.passed(f"""
Controller {sleeper} slept {took(asleep_ns / 1e6)}, and woke up following controller {leader} as before: the answer to
the Fetch it had sent just before it froze was waiting in its socket, and handling it ({ref(fetched[0])}) reset the
fetch timer before `pollFollower` looked at it. Whether the timer or the answer comes first is a race between the
client's threads. Run the command again to see the other outcome, the one 3.9 is known for.
""")
    first = stood[0]
    later = [c for c in raft_leaders(ev.spans, after_ns=first.at_ns) if c.epoch >= first.epoch]
    if not later:
        return Result.failed(expected="a leader elected again after the sleeper's candidacy",
                             seen=f"controller {sleeper} stood in epoch {first.epoch}; no leader since",
                             hint="Press Enter again in a moment.")
    new = later[0]
    deposed = next((c for c in role_changes(ev.spans, node=leader, after_ns=first.at_ns) if c.role_from == "Leader"),
                   None)
    tries = [c for c in stood if c.epoch < new.epoch]
    when = ("the moment it resumed" if first.at_ns - woke < 100_000_000
            else f"{between(woke, first.at_ns)} after it resumed")
    lines = [f"Controller {sleeper} slept {took(asleep_ns / 1e6)}. When it woke up, its fetch timer had run out long "
             f"before, and `pollFollower` made it a Candidate in epoch {first.epoch}, {when} ({ref(first.span)})."]
    if deposed is not None:
        renounced = [s for s in ev.spans.where(name="QuorumController.renounce")
                     if node_of(s) == leader and s.start_ns >= deposed.at_ns]
        lines.append(f"Its Vote request carried epoch {first.epoch}, higher than the leader's {epoch}, and a higher "
                     f"epoch wins over everything: controller {leader}, a healthy leader, moved to "
                     f"**{deposed.role_to}** in epoch {deposed.epoch} ({at(deposed.span)})"
                     + (f", and its QuorumController renounced ({at(renounced[0])}): it dropped what it had written "
                        "but not yet committed." if renounced else "."))
    lines.append("Yet nobody voted for the sleeper: its log had stopped growing while it slept."
                 + "".join("\n" + line for line in _vote_lines(ev.spans, sleeper, first.epoch)))
    if len(tries) > 1:
        lines.append(f"It stood {len(tries)} times, in epochs {tries[0].epoch} to {tries[-1].epoch}, refused each "
                     "time, each epoch a step up for every voter.")
    outage = between(deposed.at_ns, new.at_ns) if deposed is not None else "?"
    lines.append(f"Controller {new.node} was elected in epoch {new.epoch} ({at(new.span)}): the quorum had no leader "
                 f"for **{outage}**, because one voter took a nap. Kafka 4.0 adds *pre-vote* (KIP-996): a voter first "
                 "asks whether it could win, without raising any epoch, and the others say no while they still hear "
                 "from their leader.")
    no_leader_s = round((new.at_ns - deposed.at_ns) / 1e9, 2) if deposed is not None else None
    return Result.passed("\n\n".join(lines), no_leader_s=no_leader_s)


def sleeper_outcome(ev: Evidence) -> str:
    stood = [c for c in role_changes(ev.spans, node=ev.facts["sleeper"], after_ns=ev.facts["action_ns"])
             if c.role_to == "Candidate"]
    return "b" if stood else "a"


sleep = Step(
    title="A voter that sleeps through its timeout",
    about=("KafkaRaftClient.pollFollower", "KafkaRaftClient.handleVoteRequest", "QuorumController.renounce"),
    text=f"""
A process can stop without dying: a long garbage-collection pause, a VM descheduled, a laptop lid closed. Freeze
controller {{sleeper}}, a follower of controller {{leader}}, for {PAUSE_S} s (SIGSTOP), twice its fetch timeout, then
let it go on (SIGCONT). The leader stays healthy the whole time, and keeps its majority with the third voter.
Watch three places: the sleeper's `KafkaRaftClient.pollFollower` when it wakes, the others' `handleVoteRequest`,
and the leader's `QuorumController.renounce` if it has to give up.
""",
    prepare=pick_sleeper,
    predict=Predict(
        question=f"Controller {{sleeper}} wakes up after {PAUSE_S} s, long past its fetch timeout. What happens to "
                 "the quorum?",
        choices={"a": "nothing much: the sleeper fetches again and catches up",
                 "b": "the sleeper stands for election in a higher epoch, the healthy leader steps down for it, the "
                      "sleeper loses (its log is behind), and another election follows",
                 "c": "the sleeper becomes leader: its epoch is now the highest"},
        answer=sleeper_outcome,
        why="""
In 3.9 the fetch timer decides alone: a voter whose timer ran out becomes a candidate with a higher epoch, and a
higher epoch makes every voter, the leader too, drop its leader and stand by for the election. The vote itself still
protects the log (a stale candidate cannot win), but the quorum is without a leader until someone else is elected.
Sometimes the sleeper finds an answer to its last Fetch waiting when it wakes, resets its timer, and simply follows
on: the trace says which happened here.
"""),
    action=Command(f"kafka-edu cluster pause {{sleeper}} --run {{run_dir}} && sleep {PAUSE_S} && "
                   "kafka-edu cluster resume {sleeper} --run {run_dir}",
                   tui=f"put the Quorum pane's cursor on c{{sleeper}}, press p, wait {PAUSE_S} s and press p again"),
    check=sleeper_woke,
    wait_s=20,
)


LESSON = Lesson(
    name="raft",
    title="Raft inside Kafka",
    summary="three KRaft controllers: the first election and its votes, pull replication and the majority high "
            "watermark, kill -9 of the leader and a split vote, the old leader coming back, a sleeping voter "
            "deposing a healthy leader (no pre-vote in 3.9)",
    minutes=15,
    seed="002",
    intro=INTRO,
    setup=SETUP,
    mode="kraft",
    controllers=3,
    brokers=0,
    steps=[election, replication, kill, restart, sleep],
    outro="""
Raft is a few timers and one rule about logs. The election timeout (random) starts elections, the fetch timeout
(fixed) ends a leader's reign, and a voter gives its vote only to a log at least as long as its own, which is what
makes a majority's commit safe. The failover in step 3 took {failover_s} s, {detection_s} s of it waiting for a
fetch timeout.

To go further: `kafka-edu tui --run {run_dir}` replays this run (the Quorum pane shows roles, log end offsets and the
metadata log); `kafka-edu mine raft-elections` lists every candidacy and vote of many runs; lesson `metadata-journey`
follows one record from a client to every broker, and `zk-or-kraft` times this failover against ZooKeeper mode's.
""",
)
