"""Lesson 11, a rebalance without stopping (Kafka 3.9's group coordinator, GroupCoordinatorService on its
CoordinatorRuntime): two consumer groups read the same topic side by side, group A with the classic protocol
(JoinGroup and SyncGroup, librdkafka's eager `range` assignor) and group B with KIP-848's consumer protocol
(ConsumerGroupHeartbeat, the assignment computed by the coordinator). A third member joins each, then one member of
each is killed with SIGKILL; the members' own records say who stopped consuming and for how long.

The members are real consumer processes (`kafka_edu.cluster_runner.group_member`): what they print (assigned,
revoked, each record received, with its wall-clock time) is not in the traces, so the lesson writes it to
`members.ndjson` in the run directory, one JSON object a line with the member's group, and the checks read it there
beside the coordinator's spans (GC rows).

Read top to bottom: each step's checks come just before the step that uses them.
"""

from __future__ import annotations

import atexit
import gzip
import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kafka_edu.lessons import Command, Do, Evidence, Lesson, Predict, Result, Step
from kafka_edu.lessons.traces import at, between, events, took
from kafka_edu.tracing.query import SpanRecord

if TYPE_CHECKING:
    from kafka_edu.cluster_runner.group_member import MemberProcess
    from kafka_edu.lessons.runner import LessonRun

TOPIC = "payments"
PARTITIONS = 6
SESSION_MS = 6000
HEARTBEAT_MS = 1000
PRODUCE_EVERY_S = 0.2  # one record to each partition this often: 30 records a second
EVENTS = "members.ndjson"
GROUPS = {"A": "classic", "B": "consumer"}
OVERRIDES = ("offsets.topic.num.partitions=1", "group.initial.rebalance.delay.ms=0",
             f"broker:group.consumer.session.timeout.ms={SESSION_MS}",
             f"broker:group.consumer.min.session.timeout.ms={SESSION_MS}",
             f"broker:group.consumer.heartbeat.interval.ms={HEARTBEAT_MS}",
             f"broker:group.consumer.min.heartbeat.interval.ms={HEARTBEAT_MS}")

INTRO = """
A consumer group shares a topic's partitions among its members; when a member comes or goes, the partitions are
shared out again: a *rebalance*. With the classic protocol the members themselves agree on the new assignment
(JoinGroup, then SyncGroup, the group's leader computing it), and with an eager assignor each member first gives up
**everything** it owns. KIP-848 (the `consumer` protocol, early access in Kafka 3.9) moves the work to the group
coordinator: each member only heartbeats (ConsumerGroupHeartbeat), the coordinator computes a target assignment and
walks every member towards it, taking a partition away from one member before handing it to another.

This lesson runs both side by side on one topic and lets the members' own records say who stops consuming, and for
how long. The sources are `group-coordinator/src/main/java/org/apache/kafka/coordinator/group/GroupMetadataManager.java`
(`classicGroupJoin`, `classicGroupSync`, `consumerGroupHeartbeat`) and its `modern/` package (Kafka 3.9); the ports
are under `kafka_edu/v3_9/group_coordinator/coordinator/group/`. The spans carry the FIDELITY rows GC.join, GC.sync
and GC.classic (classic), GC.hb, GC.target, GC.reconcile and GC.fence (KIP-848), and the group epoch's bumps
(GC.epoch).
"""

SETUP = f"""
The lesson starts one KRaft controller (node 1) and two brokers (nodes 2 and 3) whose group coordinators serve both
protocols (`group.coordinator.rebalance.protocols=classic,consumer`), with short timers so that the lesson takes
seconds, not minutes: `group.consumer.session.timeout.ms={SESSION_MS}` and
`group.consumer.heartbeat.interval.ms={HEARTBEAT_MS}` (3.9's defaults are 45000 and 5000, and its minimums the same,
so the lesson lowers
`group.consumer.min.session.timeout.ms` and `group.consumer.min.heartbeat.interval.ms` too); the classic members ask
for a session of {SESSION_MS} ms (3.9's `group.min.session.timeout.ms` allows 6000) and heartbeat every
{HEARTBEAT_MS} ms. `group.initial.rebalance.delay.ms=0`, so a new classic group does not wait 3 s for more members,
and `offsets.topic.num.partitions=1`, so both groups have the same coordinator: the broker that leads
`__consumer_offsets-0`. The topic's partitions are spread over both brokers.

The members are confluent-kafka consumers of Kafka 3.9's era (librdkafka 2.8, which speaks ConsumerGroupHeartbeat
version 0), one process each; the lesson itself produces one record to each of the {PARTITIONS} partitions of
`{TOPIC}` every {int(PRODUCE_EVERY_S * 1000)} ms, and writes what each member reports to `members.ndjson` in the run
directory.
"""


# -- the members, the producer and their log (the lesson's own, not Kafka's) ----------------------------------------

class Stream:
    """The lesson's producer thread, its member processes and the log of what they report, for one run directory."""

    def __init__(self, run_dir: Path, bootstrap: str) -> None:
        self.bootstrap = bootstrap
        self.members: dict[str, MemberProcess] = {}
        self._lock = threading.Lock()
        # a run directory the lesson is run on again (`--run`) starts a new log: its checks read member names
        self._log = open(run_dir / EVENTS, "w", encoding="utf-8")  # noqa: SIM115 (closed in stop)
        self._stop = threading.Event()
        self._producer = threading.Thread(target=self._produce, name="lesson-producer", daemon=True)
        self._producer.start()

    def write(self, event: dict[str, Any]) -> None:
        with self._lock:
            if not self._log.closed:
                self._log.write(json.dumps(event, separators=(",", ":")) + "\n")
                self._log.flush()

    def _produce(self) -> None:
        from confluent_kafka import Producer
        producer = Producer({"bootstrap.servers": self.bootstrap, "linger.ms": 5, "client.id": "lesson-producer"})
        while not self._stop.wait(PRODUCE_EVERY_S):
            for partition in range(PARTITIONS):
                producer.produce(TOPIC, value=b"payment", partition=partition)
            producer.poll(0)
        producer.flush(5)

    def start(self, name: str, group: str) -> None:
        from kafka_edu.cluster_runner.group_member import MemberProcess
        protocol = GROUPS[group]

        def logged(event: dict[str, Any]) -> None:
            kept = {k: v for k, v in event.items() if k != "offset"}  # the offsets would only make the log longer
            self.write({**kept, "group": group, "protocol": protocol})

        member = MemberProcess(self.bootstrap, group, TOPIC, name, protocol=protocol,
                               assignor="range" if protocol == "classic" else None, session_timeout_ms=SESSION_MS,
                               on_event=logged)
        self.members[name] = member
        self.write({"t": time.time_ns(), "event": "started", "member": name, "group": group, "protocol": protocol,
                    "pid": member.process.pid})
        threading.Thread(target=self._watch, args=(member, group, protocol), name=f"lesson-watch-{name}",
                         daemon=True).start()

    def _watch(self, member: MemberProcess, group: str, protocol: str) -> None:
        """The moment the member's process ends, however it ended (a `kill -9` in another terminal too)."""
        code = member.process.wait()
        self.write({"t": time.time_ns(), "event": "exited", "member": member.name, "group": group,
                    "protocol": protocol, "returncode": code})

    def stop(self) -> None:
        """Members leave (SIGTERM, all at once), then the producer stops."""
        for member in self.members.values():
            if member.alive():
                member.process.terminate()
        for member in self.members.values():
            member.close(20)
        self._stop.set()
        self._producer.join(10)
        with self._lock:
            self._log.close()


_STREAMS: dict[str, Stream] = {}


def _stop_all() -> None:
    """At exit, whatever step the lesson stopped at: no member process outlives it."""
    for stream in list(_STREAMS.values()):
        for member in stream.members.values():
            member.kill()
    _STREAMS.clear()


atexit.register(_stop_all)


# -- reading the members' log ---------------------------------------------------------------------------------------

_parsed: dict[Path, tuple[int, list[dict[str, Any]]]] = {}


def member_events(ev: Evidence) -> list[dict[str, Any]]:
    """Every event the members reported, in time order: `members.ndjson` in the run directory (gzipped in a recorded
    sample)."""
    run_dir = Path(ev.facts["run_dir"])
    for path in (run_dir / EVENTS, run_dir / f"{EVENTS}.gz"):
        if path.exists():
            break
    else:
        return []
    size = path.stat().st_size
    cached = _parsed.get(path)
    if cached is None or cached[0] != size:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as f:
            events = [json.loads(line) for line in f if line.endswith("\n")]
        _parsed[path] = cached = (size, sorted(events, key=lambda e: e["t"]))
    return cached[1]


@dataclass
class Member:
    """One member as its events tell it: its rebalance callbacks and its records' times by partition."""

    name: str
    group: str
    pid: int = 0
    exited_ns: int | None = None
    changes: list[tuple[int, str, frozenset[int]]] = field(default_factory=list)  # (t, event, partitions)
    records: list[tuple[int, int]] = field(default_factory=list)  # (t, partition)


def owners(members: dict[str, Member], at_ns: int) -> dict[int, tuple[str, int]]:
    """partition -> (member, time) of the last record consumed at or before `at_ns`. Who consumes a partition is what
    the lesson measures, so it is also how it tells who owns one, whatever the style of the member's callbacks
    (librdkafka 2.8 under the consumer protocol calls them eagerly or incrementally depending on its settings)."""
    last: dict[int, tuple[str, int]] = {}
    for m in members.values():
        for t, partition in m.records:
            if t <= at_ns and t >= last.get(partition, ("", 0))[1]:
                last[partition] = (m.name, t)
    return last


def owned_at(members: dict[str, Member], at_ns: int) -> dict[str, frozenset[int]]:
    by_member: dict[str, set[int]] = {name: set() for name in members}
    for partition, (name, _) in owners(members, at_ns).items():
        by_member[name].add(partition)
    return {name: frozenset(ps) for name, ps in by_member.items()}


def members_of(ev: Evidence, group: str) -> dict[str, Member]:
    members: dict[str, Member] = {}
    for e in member_events(ev):
        if e.get("group") != group:
            continue
        member = members.setdefault(e["member"], Member(e["member"], group))
        kind = e["event"]
        if kind == "started":
            member.pid = e["pid"]
        elif kind == "exited":
            member.exited_ns = e["t"]
        elif kind in ("assigned", "revoked", "lost"):
            member.changes.append((e["t"], kind, frozenset(e["partitions"])))
        elif kind == "record":
            member.records.append((e["t"], e["partition"]))
    return members


@dataclass
class Settled:
    """A group whose expected members each consume an equal share of the partitions, every partition's latest record
    coming after `since` from one of them; `at_ns` is when the last of them started consuming its share."""

    ok: bool
    owned: dict[str, frozenset[int]]
    at_ns: int = 0
    waiting: str = ""


def settled(members: dict[str, Member], expected: set[str], since: int) -> Settled:
    live = {name for name, m in members.items() if m.exited_ns is None}
    last = owners(members, 2**63)
    owned = {name: ps for name, ps in owned_at(members, 2**63).items() if name in expected or ps}
    if live != expected:
        return Settled(False, owned, waiting=f"members {sorted(live)} running, {sorted(expected)} expected")
    stale = sorted(p for p in range(PARTITIONS) if p not in last or last[p][1] < since or last[p][0] not in expected)
    share = PARTITIONS // len(expected)
    if stale or any(len(owned.get(name, ())) != share for name in expected):
        return Settled(False, owned, waiting="consuming: " + _owned_text(owned)
                       + (f"; partitions {stale} not consumed by them since the step began" if stale else ""))
    # when each member began consuming its share: its first record of each partition after the last handover
    began = []
    for name in expected:
        for partition in owned[name]:
            times = sorted((t, m.name) for m in members.values() for t, p in m.records if p == partition)
            handover = max((t for t, who in times if who != name), default=0)
            began.append(next(t for t, who in times if who == name and t > max(handover, since - 1)))
    return Settled(True, owned, at_ns=max(began))


def _owned_text(owned: dict[str, frozenset[int]]) -> str:
    return ", ".join(f"{name} {sorted(ps)}" for name, ps in sorted(owned.items()))


def longest_gap(times: list[int], start: int, end: int) -> tuple[int, int]:
    """The longest wait between two consecutive times that overlaps [start, end] (the record before `start` counts),
    as (from, to); (0, 0) without two times."""
    best = (0, 0)
    for before, after in zip(times, times[1:], strict=False):
        if after < start or before > end:
            continue
        if after - before > best[1] - best[0]:
            best = (before, after)
    return best


def member_pause_ms(member: Member, start: int, end: int) -> float:
    gap = longest_gap([t for t, _ in member.records], start, end)
    return (gap[1] - gap[0]) / 1e6


def stopped_ms(member: Member, start: int, end: int) -> float | None:
    """How long the member consumed nothing because of a rebalance: from its first revocation in [start, end] to its
    first record after the assignment that followed (None: it revoked nothing)."""
    revoked = next((t for t, kind, _ in member.changes if kind in ("revoked", "lost") and start <= t <= end), None)
    if revoked is None:
        return None
    assigned = next((t for t, kind, _ in member.changes if kind == "assigned" and t >= revoked), None)
    first = next((t for t, _ in member.records if assigned is not None and t > assigned), None)
    return (first - revoked) / 1e6 if first is not None else None


def partition_pause(members: dict[str, Member], partition: int, start: int, end: int) -> tuple[float, str, str]:
    """A partition's longest wait for a record over [start, end], whoever consumed it: (ms, from member, to member)."""
    times = sorted((t, m.name) for m in members.values() for t, p in m.records if p == partition)
    best = (0.0, "", "")
    for (before, old), (after, new) in zip(times, times[1:], strict=False):
        if after < start or before > end:
            continue
        if (after - before) / 1e6 > best[0]:
            best = ((after - before) / 1e6, old, new)
    return best


def _gc(ev: Evidence, step: str, group: str, since: int, until: int | None = None) -> list[SpanRecord]:
    return sorted((s for s in ev.spans.where(step=step) if s.attributes.get("kafka.group.id") == group
                   and s.start_ns >= since and (until is None or s.start_ns <= until)), key=lambda s: s.start_ns)


def _names(spans: list[SpanRecord]) -> list[str]:
    """The classic members named in spans: a classic member id starts with the client id (`a1-...`)."""
    return sorted({str(s.attributes.get("kafka.member.id", "")).split("-")[0] for s in spans} - {""})


def _epochs(spans: list[SpanRecord]) -> dict[str, list[int]]:
    """KIP-848 member id -> the distinct member epochs its heartbeats were answered with, in order."""
    epochs: dict[str, list[int]] = {}
    for s in spans:
        epoch = s.attributes.get("kafka.member.epoch")
        if isinstance(epoch, int) and epoch >= 0:
            seen = epochs.setdefault(str(s.attributes.get("kafka.member.id")), [])
            if not seen or seen[-1] != epoch:
                seen.append(epoch)
    return epochs


def _extra_rows(ev: Evidence, group: str, since: int, until: int) -> str:
    """What the coordinator did inside those heartbeats and timers, where this build traces it: the group epoch's
    bumps (GC.epoch), the target (GC.target), the members left with partitions to give up (GC.reconcile)."""
    said = []
    bumps = [(span, e) for span, e in events(ev.spans, "group.epoch.bump")
             if e.attributes.get("kafka.group.id") == group and since <= e.time_ns <= until]
    if bumps:
        said.append("the group epoch went " + ", ".join(
            f"{e.attributes.get('kafka.group.epoch.from')} → {e.attributes.get('kafka.group.epoch.to')} "
            f"({e.attributes.get('kafka.reason')})" for _, e in bumps))
    targets = _gc(ev, "GC.target", group, since, until)
    if targets:
        t = targets[-1].attributes
        said.append(f"`TargetAssignmentBuilder.build` ({at(targets[-1])}) made target epoch "
                    f"{t.get('kafka.target.epoch')} with the `{t.get('kafka.assignor')}` assignor")
    members = {s.attributes.get("kafka.member.id") for s in _gc(ev, "GC.hb", group, since, until)}
    pending = [s for s in ev.spans.where(step="GC.reconcile") if since <= s.start_ns <= until
               and s.attributes.get("kafka.member.id") in members
               and s.attributes.get("kafka.partitions.pending.revocation")]
    if pending:
        said.append(f"{len(pending)} `CurrentAssignmentBuilder.build` (GC.reconcile) left a member with partitions to "
                    "give up first (" + "; ".join(sorted({", ".join(s.attributes["kafka.partitions.pending.revocation"])
                                                         for s in pending})) + ")")
    return (" In the coordinator: " + "; ".join(said) + ".") if said else ""


# -- 1. Two groups on one topic --------------------------------------------------------------------------------------

def start_groups(run: LessonRun) -> None:
    with run.terminal.waiting(f"Creating {TOPIC} with {PARTITIONS} partitions..."):
        run.run_command(f"kafka-edu topics --create --topic {TOPIC} --partitions {PARTITIONS} --replication-factor 1 "
                        f"--bootstrap-server {run.facts['bootstrap']}")
    stream = Stream(Path(run.facts["run_dir"]), run.facts["bootstrap"])
    _STREAMS[run.facts["run_dir"]] = stream
    for name, group in (("a1", "A"), ("a2", "A"), ("b1", "B"), ("b2", "B")):
        stream.start(name, group)


def both_consuming(ev: Evidence) -> Result:
    since = ev.facts["action_ns"]
    a, b = members_of(ev, "A"), members_of(ev, "B")
    if not a and not b:
        return Result.failed(expected="members a1, a2 (group A) and b1, b2 (group B) reporting to members.ndjson",
                             seen="no member has reported yet", hint="The lesson starts them; press Enter again.")
    state = {"A": settled(a, {"a1", "a2"}, since), "B": settled(b, {"b1", "b2"}, since)}
    for group, s in state.items():
        if not s.ok:
            return Result.failed(expected=f"group {group}'s two members sharing the {PARTITIONS} partitions and "
                                          "consuming them", seen=s.waiting, hint="Press Enter again in a moment.")
    end = max(s.at_ns for s in state.values())
    joins, syncs = _gc(ev, "GC.join", "A", since, end), _gc(ev, "GC.sync", "A", since, end)
    hbs = _gc(ev, "GC.hb", "B", since, end)
    epochs = _epochs(hbs)
    anonymous = sum(1 for j in joins if not j.attributes.get("kafka.member.id"))
    lines = [f"Group A (classic): {_owned_text(state['A'].owned)}, by the partitions each consumes. The coordinator "
             f"took {len(joins)} JoinGroup (GC.join) and {len(syncs)} SyncGroup (GC.sync) from "
             f"{', '.join(_names(joins + syncs))}"
             + (f"; {anonymous} of those JoinGroup came without a member id, and were answered MEMBER_ID_REQUIRED "
                "with one the coordinator made up (the client id and a UUID, `a1-...`), which the member joined with "
                "again" if anonymous else "")
             + ". `range` gives each member a block of consecutive partitions.",
             f"Group B (KIP-848): {_owned_text(state['B'].owned)}. {len(hbs)} ConsumerGroupHeartbeat (GC.hb) so far, "
             f"answered with member epochs {sorted({e for es in epochs.values() for e in es})}: the group epoch goes "
             "up whenever a member joins or leaves, and a member's epoch catches up with it once the member holds "
             "exactly what the target assignment gives it.",
             f"The producer writes a batch every {int(PRODUCE_EVERY_S * 1000)} ms, so a member waits up to about that "
             "long between two records without any rebalance. That is the yardstick for the pauses to come."]
    return Result.passed("\n\n".join(lines), settled_ns=end)


start = Step(
    title="Two groups, one topic",
    about=("GroupMetadataManager.classicGroupJoin", "GroupMetadataManager.classicGroupSync",
           "GroupMetadataManager.consumerGroupHeartbeat"),
    text=f"""
The lesson creates `{TOPIC}` with {PARTITIONS} partitions, starts producing to every partition, and starts two
members in each group: a1 and a2 in group A with `group.protocol=classic` and `partition.assignment.strategy=range`,
b1 and b2 in group B with `group.protocol=consumer` and `group.remote.assignor=uniform` (the coordinator's assignor
that does the sharing, its default).

In group A every member sends JoinGroup (`GroupMetadataManager.classicGroupJoin`, GC.join); when all have joined,
the coordinator names one member the leader and hands it the member list; the leader computes the assignment and
sends it in its SyncGroup (`classicGroupSync`, GC.sync), which answers every member with its share. In group B a
member only heartbeats (`consumerGroupHeartbeat`, GC.hb): the answer carries its member epoch and, when it changed,
its assignment.
""",
    action=Do(f"creates `{TOPIC}`, starts producing, and starts members a1, a2 (group A) and b1, b2 (group B).",
              start_groups),
    check=both_consuming,
    wait_s=40,
)


# -- 2. A third member joins each group -------------------------------------------------------------------------------

def add_third(run: LessonRun) -> None:
    stream = _STREAMS[run.facts["run_dir"]]
    stream.start("a3", "A")
    stream.start("b3", "B")


def third_joined(ev: Evidence) -> Result:
    since = ev.facts["action_ns"]
    a, b = members_of(ev, "A"), members_of(ev, "B")
    state = {"A": settled(a, {"a1", "a2", "a3"}, since), "B": settled(b, {"b1", "b2", "b3"}, since)}
    for group, s in state.items():
        if not s.ok:
            return Result.failed(expected=f"group {group}'s three members sharing the {PARTITIONS} partitions and "
                                          "consuming them", seen=s.waiting, hint="Press Enter again in a moment.")
    end = max(s.at_ns for s in state.values())
    before = {"A": owned_at(a, since), "B": owned_at(b, since)}
    # group A: eager, so each old member gave everything back before its new share
    gave_back = {n: [ps for t, kind, ps in a[n].changes if t >= since and kind == "revoked"] for n in ("a1", "a2")}
    if not all(before["A"][n] and any(before["A"][n] <= ps for ps in gave_back[n]) for n in gave_back):
        return Result.failed(expected="a1 and a2 each revoked everything they owned (eager)",
                             seen="; ".join(f"{n} owned {sorted(before['A'][n])}, revoked "
                                            f"{[sorted(ps) for ps in gave_back[n]]}" for n in gave_back),
                             hint="Report this run: an eager member revokes all its partitions first.", wait=False)
    # group B: what an old member keeps is never taken from it
    kept = {n: before["B"][n] & state["B"].owned[n] for n in ("b1", "b2")}
    dropped = {n: [sorted(ps) for t, kind, ps in b[n].changes if t >= since and kind != "assigned"
                   and kept[n] & ps] for n in kept}
    if not all(kept.values()) or any(dropped.values()):
        return Result.failed(expected="b1 and b2 keep part of their partitions throughout, without a revocation",
                             seen="; ".join(f"{n} kept {sorted(kept[n])}, changes {dropped[n]}" for n in kept),
                             hint="Report this run: KIP-848 only moves what the new member gets.", wait=False)
    kept_a = {n: before["A"][n] & state["A"].owned[n] for n in ("a1", "a2")}
    stopped = {n: stopped_ms(a[n], since, end) for n in ("a1", "a2")}
    pauses = {n: member_pause_ms(m, since, end) for ms in (a, b) for n, m in ms.items() if n[1] != "3"}
    got_back = ", ".join(f"{n} {sorted(kept_a[n])}" for n in sorted(kept_a) if kept_a[n]) or "none"
    moved = {p: partition_pause(b, p, since, end) for p in range(PARTITIONS)
             if not any(p in kept[n] for n in kept)}
    joins, syncs = _gc(ev, "GC.join", "A", since, end), _gc(ev, "GC.sync", "A", since, end)
    rounds = (f"from the first JoinGroup to the last SyncGroup {took((syncs[-1].end_ns - joins[0].start_ns) / 1e6)}"
              if joins and syncs else "")
    hbs = _gc(ev, "GC.hb", "B", since, end)
    epochs = _epochs(hbs)
    new_ids = [mid for mid in epochs if any(s.attributes.get("kafka.member.id") == mid
                                            and s.attributes.get("kafka.member.epoch.request") == 0 for s in hbs)]
    gave = "; ".join(f"{n} gave back {sorted(before['A'][n])}" for n in ("a1", "a2"))
    lines = [f"**Group A (classic, eager).** a3's JoinGroup put the group into a rebalance; a1 and a2 learned it "
             f"from their next heartbeat (GC.classic answers REBALANCE_IN_PROGRESS), **revoked everything** ({gave}) "
             "and joined again: "
             f"{len(joins)} JoinGroup and {len(syncs)} SyncGroup from {', '.join(_names(joins + syncs))}"
             + (f", {rounds}" if rounds else "") + f". Now: {_owned_text(state['A'].owned)}.",
             "Until its heartbeat brought the news each went on consuming; from its revocation to its first record "
             "after the new assignment it consumed nothing: "
             + ", ".join(f"{n} **{took(ms)}**" for n, ms in sorted(stopped.items()) if ms is not None)
             + f" (longest waits between two records: a1 {took(pauses['a1'])}, a2 {took(pauses['a2'])}). Even the "
             f"partitions they got back ({got_back}) stopped: they were revoked with the rest and handed out again.",
             "**Group B (KIP-848).** b3's first heartbeat (epoch 0) raised the group epoch; the coordinator computed "
             "a new target assignment and told b1 and b2 in their next heartbeats to give up what b3 was to get. They "
             f"kept {', '.join(f'{n} {sorted(kept[n])}' for n in kept)}, never revoked, and went on consuming: "
             f"longest waits between two records b1 **{took(pauses['b1'])}**, b2 **{took(pauses['b2'])}** (a batch "
             f"comes every {int(PRODUCE_EVERY_S * 1000)} ms). Only the partitions "
             "that moved waited, from their old owner's last record to b3's first: "
             + ", ".join(f"{p} ({old} → {new}) **{took(ms)}**" for p, (ms, old, new) in sorted(moved.items()))
             + f". b3 could take them only once their owner had let go and b3 heartbeated again (every "
             f"{HEARTBEAT_MS} ms here). {len(hbs)} heartbeats (GC.hb) carried it"
             + (f"; b3's were answered with member epoch {' then '.join(map(str, epochs[new_ids[0]]))}"
                if new_ids else "")
             + "." + _extra_rows(ev, "B", since, end)]
    return Result.passed("\n\n".join(lines), join_pause_a=round(max(ms or 0 for ms in stopped.values())),
                         join_pause_b=round(max(pauses["b1"], pauses["b2"])),
                         join_moved_b=round(max((ms for ms, _, _ in moved.values()), default=0)))


join = Step(
    title="A third member joins each group",
    about=("GroupMetadataManager.classicGroupJoin", "GroupMetadataManager.consumerGroupHeartbeat",
           "TargetAssignmentBuilder.build", "CurrentAssignmentBuilder.build"),
    text="""
The lesson starts a3 in group A and b3 in group B. Six partitions among three members: two each.

Group A's new member sends JoinGroup (`GroupMetadataManager.classicGroupJoin`, GC.join): the coordinator moves the
group to PreparingRebalance and answers the others' heartbeats (GC.classic) with REBALANCE_IN_PROGRESS, so they join
again; with an eager assignor a member revokes all its partitions before it rejoins. Group B's new member heartbeats
with member epoch 0 (`consumerGroupHeartbeat`, GC.hb): the coordinator bumps the group epoch,
`TargetAssignmentBuilder.build` (GC.target) computes the new target, and `CurrentAssignmentBuilder.build`
(GC.reconcile) moves each member towards it at each of its heartbeats: first the owners are asked to release what b3
is to get (they go on consuming what they keep), then b3 is given it.
""",
    predict=Predict(
        question="While each group takes in its third member, who stops consuming?",
        choices={"a": "in both groups every member, until the new assignment is in place",
                 "b": "in group A every member; in group B only the partitions that move to b3, the others keep "
                      "flowing",
                 "c": "in both groups only the partitions that move to the new member"},
        answer="b",
        why="""
The classic protocol with an eager assignor is stop-the-world: every member gives back everything, and nobody
consumes until SyncGroup hands out the new assignment. A cooperative assignor (`cooperative-sticky`) would make the
classic members revoke only what moves, at the cost of a second JoinGroup round. KIP-848 is incremental by design:
the coordinator knows who owns what and takes away only what the new member needs. The moved partitions wait until
their old owner has let go and the new one heartbeats, so with long heartbeat intervals that wait can be longer than
a quick classic rebalance; what it does not do is stop the others.
"""),
    action=Do("starts a3 (group A) and b3 (group B).", add_third),
    check=third_joined,
    wait_s=40,
)


# -- 3. kill -9 one member of each group ------------------------------------------------------------------------------

def pick_victims(ev: Evidence) -> dict | None:
    a, b = members_of(ev, "A"), members_of(ev, "B")
    if "a1" not in a or "b1" not in b or not a["a1"].pid or not b["b1"].pid:
        return None
    return {"victim_a_pid": a["a1"].pid, "victim_b_pid": b["b1"].pid,
            "victim_a_owned": sorted(owned_at(a, time.time_ns())["a1"]),
            "victim_b_owned": sorted(owned_at(b, time.time_ns())["b1"])}


def victims_replaced(ev: Evidence) -> Result:
    since = ev.facts["action_ns"]
    a, b = members_of(ev, "A"), members_of(ev, "B")
    victims = {"A": a.get("a1"), "B": b.get("b1")}
    dead = {g: m.exited_ns for g, m in victims.items() if m is not None and m.exited_ns and m.exited_ns >= since}
    if len(dead) < 2:
        return Result.failed(expected="a1 (pid {victim_a_pid}) and b1 (pid {victim_b_pid}) ended",
                             seen=f"{len(dead)} of them ended", hint="run the command above")
    state = {"A": settled(a, {"a2", "a3"}, dead["A"]), "B": settled(b, {"b2", "b3"}, dead["B"])}
    for group, s in state.items():
        if not s.ok:
            return Result.failed(expected=f"group {group}'s two survivors sharing the {PARTITIONS} partitions and "
                                          f"consuming them, once the session timeout ({SESSION_MS} ms) has passed",
                                 seen=s.waiting, hint="Press Enter again in a moment.")
    end = max(s.at_ns for s in state.values())
    before = {g: {n: ps for n, ps in owned_at(ms, dead[g]).items() if ms[n].exited_ns is None}
              for g, ms in (("A", a), ("B", b))}
    orphaned = {"A": owned_at(a, dead["A"])["a1"], "B": owned_at(b, dead["B"])["b1"]}
    waits = {g: {p: partition_pause(ms, p, dead[g] - 1, end) for p in orphaned[g]}
             for g, ms in (("A", a), ("B", b))}
    pauses = {n: member_pause_ms(m, dead[g], end) for g, ms in (("A", a), ("B", b)) for n, m in ms.items()
              if m.exited_ns is None}
    revoked_a = {n: any(t >= dead["A"] and kind == "revoked" and before["A"][n] <= ps
                        for t, kind, ps in a[n].changes) for n in before["A"]}
    stopped = {n: stopped_ms(a[n], dead["A"], end) for n in before["A"]}
    kept_b = {n: before["B"][n] & state["B"].owned[n] for n in before["B"]}
    taken_b = {n: [sorted(ps) for t, kind, ps in b[n].changes if t >= dead["B"] and kind != "assigned"
                   and kept_b[n] & ps] for n in kept_b}
    if any(taken_b.values()) or not all(kept_b.values()):
        return Result.failed(expected="b2 and b3 keep what they owned while b1's partitions move to them",
                             seen="; ".join(f"{n} kept {sorted(kept_b[n])}, lost {taken_b[n]}" for n in kept_b),
                             hint="Report this run: KIP-848 only moves the dead member's partitions.", wait=False)
    waited = {g: min(ms for ms, _, _ in w.values()) for g, w in waits.items()}
    if min(waited.values()) < SESSION_MS / 2:
        return Result.failed(expected=f"the dead members' partitions unconsumed for about the session timeout "
                                      f"({SESSION_MS} ms)", seen=f"{waited}",
                             hint="Report this run: the coordinator cannot know of a SIGKILL before the session "
                                  "ends.", wait=False)
    joins = _gc(ev, "GC.join", "A", dead["A"], end)
    fences = _gc(ev, "GC.fence", "B", dead["B"], end)
    hbs = _gc(ev, "GC.hb", "B", dead["B"], end)
    epochs = _epochs(hbs)
    lines = [f"a1 and b1 died with SIGKILL: no LeaveGroup, no last heartbeat. The coordinator learns of it only when "
             f"their session timer ({SESSION_MS} ms, re-armed by every heartbeat) fires.",
             "**Group A.** a1's partitions "
             + ", ".join(f"{p} ({took(ms)})" for p, (ms, _, _) in sorted(waits["A"].items()))
             + " waited the session timeout out; then the expired member was removed and the group rebalanced: "
             + ", ".join(f"{n} {'revoked everything' if revoked_a[n] else 'joined again'}" for n in sorted(revoked_a))
             + f", {len(joins)} JoinGroup (GC.join) after the death. So the survivors stopped too, from their "
             "revocation to their first record after the new assignment: "
             + ", ".join(f"{n} **{took(ms)}**" for n, ms in sorted(stopped.items()) if ms is not None)
             + f". Now: {_owned_text(state['A'].owned)}.",
             "**Group B.** b1's partitions "
             + ", ".join(f"{p} ({took(ms)})" for p, (ms, _, _) in sorted(waits["B"].items()))
             + " waited just as long: the coordinator's session timer, last re-armed by b1's last heartbeat before "
             "the kill, fenced b1"
             + (f" {between(dead['B'], fences[0].start_ns)} after the kill (`consumerGroupFenceMember`, "
                f"{at(fences[0])})" if fences else "")
             + ": its assignment and membership removed, the group epoch raised. The new target gave its partitions "
             "to the survivors, who kept "
             + ", ".join(f"{n} {sorted(kept_b[n])}" for n in sorted(kept_b))
             + " throughout, never revoked: longest waits between two records "
             + ", ".join(f"{n} **{took(pauses[n])}**" for n in sorted(before["B"]))
             + f". {len(hbs)} heartbeats (GC.hb) since the death, answered with member epochs "
             f"{sorted({e for es in epochs.values() for e in es})}." + _extra_rows(ev, "B", dead["B"], end)
             + f" Now: {_owned_text(state['B'].owned)}."]
    return Result.passed("\n\n".join(lines), kill_wait_a=round(waited["A"]), kill_wait_b=round(waited["B"]),
                         kill_pause_a=round(max(ms or 0 for ms in stopped.values())),
                         kill_pause_b=round(max(pauses[n] for n in before["B"])))


kill = Step(
    title="kill -9 one member of each group",
    about=("GroupMetadataManager.classicGroupHeartbeat", "GroupMetadataManager.consumerGroupFenceMember"),
    text="""
Kill a1 (it consumes partitions {victim_a_owned}) and b1 (partitions {victim_b_owned}) with SIGKILL: their processes
end without a word to the coordinator. Each member has a session timer on the coordinator, re-armed by each of its
heartbeats (`GroupMetadataManager.classicGroupHeartbeat`, GC.classic, for a classic member; GC.hb for a KIP-848
one); when it fires, a classic member is removed and its group rebalances, and a KIP-848 member is fenced
(`consumerGroupFenceMember`, GC.fence): its partitions go back into the target assignment.
""",
    prepare=pick_victims,
    predict=Predict(
        question="a1 and b1 are killed. What happens to the partitions they owned, and to the other members?",
        choices={"a": "in both groups they wait out the session timeout; then group A stops everyone for a "
                      "rebalance, while group B hands only the dead member's partitions to the others",
                 "b": "the coordinator notices the dead processes at once and moves their partitions within a "
                      "heartbeat, in both groups",
                 "c": "group B moves them at once; group A waits for the session timeout"},
        answer="a",
        why="""
A coordinator knows a member only by its requests: a dead one and a slow one look the same until the session timer
fires, under either protocol. What differs is afterwards: the classic group's rebalance revokes everything from the
survivors again, while KIP-848 only gives the orphaned partitions out. A clean shutdown would not wait at all: the
member leaves (LeaveGroup, or a heartbeat with member epoch -1) and its partitions move at once.
"""),
    action=Command("kill -9 {victim_a_pid} {victim_b_pid}", tui="run the command in another terminal"),
    check=victims_replaced,
    wait_s=40,
)


# -- 4. Clean up ------------------------------------------------------------------------------------------------------

def stop_members(run: LessonRun) -> None:
    stream = _STREAMS.pop(run.facts["run_dir"], None)
    if stream is not None:
        with run.terminal.waiting("Stopping the members and the producer..."):
            stream.stop()


def all_left(ev: Evidence) -> Result:
    since = ev.facts["action_ns"]
    live = [m.name for g in GROUPS for m in members_of(ev, g).values() if m.exited_ns is None]
    if live:
        return Result.failed(expected="every member stopped", seen=f"{live} still running",
                             hint="Press Enter again in a moment.")
    leaves = [s for s in ev.spans.where(step="GC.hb") if s.start_ns >= since
              and s.attributes.get("kafka.member.epoch.request") == -1]
    left = [s for s in ev.spans.where(name="RequestChannel.Request") if s.start_ns >= since
            and s.attributes.get("kafka.api.name") == "LeaveGroup"]
    if len(leaves) < 2 or len(left) < 2:
        return Result.failed(expected="b2 and b3 leaving with a heartbeat at member epoch -1 (GC.hb), a2 and a3 with "
                                      "a LeaveGroup", seen=f"{len(leaves)} and {len(left)}",
                             hint="Press Enter again in a moment.")
    fenced = [s for s in ev.spans.where(step="GC.fence") if s.start_ns >= since]
    return Result.passed(
        "The four survivors closed: b2 and b3 sent a ConsumerGroupHeartbeat with member epoch -1 (GC.hb"
        + (f", each leave a GC.fence like b1's expiry: {len(fenced)} of them" if fenced else "")
        + f"), a2 and a3 a LeaveGroup ({len(left)}); no session timeout to wait for this time.\n\nThis run's "
        f"numbers: a third member stopped group A's old members for up to **{took(ev.facts['join_pause_a'])}** and "
        "left group B's old members consuming, their longest wait between two records at most "
        f"**{took(ev.facts['join_pause_b'])}** (the partitions that moved waited up to "
        f"**{took(ev.facts['join_moved_b'])}**); a SIGKILL left the dead members' partitions unconsumed for "
        f"**{took(ev.facts['kill_wait_a'])}** (A) and **{took(ev.facts['kill_wait_b'])}** (B), and then stopped A's "
        f"survivors for up to **{took(ev.facts['kill_pause_a'])}**, while B's waited at most "
        f"**{took(ev.facts['kill_pause_b'])}** between two records.")


leave = Step(
    title="Everyone leaves",
    about=("GroupMetadataManager.classicGroupLeave", "GroupMetadataManager.consumerGroupHeartbeat"),
    text="""
The lesson stops the remaining members with SIGTERM: each closes its consumer, which leaves the group (group A:
LeaveGroup, `GroupMetadataManager.classicGroupLeave`; group B: a heartbeat with member epoch -1,
`consumerGroupHeartbeat`, which fences the member at once), and stops the producer.
""",
    action=Do("stops the members (a clean leave) and the producer.", stop_members),
    check=all_left,
    wait_s=30,
)


LESSON = Lesson(
    name="rebalance-without-stopping",
    title="A rebalance without stopping",
    summary="Kafka 3.9's group coordinator with both protocols side by side on one topic: a classic group (JoinGroup "
            "and SyncGroup, an eager assignor) and a KIP-848 group (ConsumerGroupHeartbeat), a member added and one "
            "killed with SIGKILL, and from the members' own records who stopped consuming and for how long",
    minutes=10,
    intro=INTRO,
    setup=SETUP,
    mode="kraft",
    controllers=1,
    brokers=2,
    overrides=OVERRIDES,
    steps=[start, join, kill, leave],
    outro="""
Two protocols on one coordinator: the classic one lets the members agree on the assignment, so a change means a new
generation that every member joins, and with an eager assignor every member stops; KIP-848 keeps the assignment on
the coordinator and changes it one member at a time, so only the partitions that move wait. Neither can tell a dead
member from a slow one before its session timeout.

What 3.9 does not do: KIP-848 is early access in 3.9 (generally available in 4.0, whose brokers serve it by
default); 3.9 answers only version 0 of ConsumerGroupHeartbeat, which only clients of its era speak; and a group
cannot switch protocol unless `group.consumer.migration.policy` allows it. `kafka-edu tui --run {run_dir}` replays
this run; `members.ndjson` there holds every member's records.
""",
)
