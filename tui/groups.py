"""Our own code, not a Kafka port: the consumer groups a KRaft run's group coordinators served, as the TUI shows them.

Two sources:
- the trace (finished and live runs alike): Kafka 3.9's group coordinator's spans (FIDELITY GC, described in
  kafka_edu/tracing/describers/group_coordinator_39.py) name the group, the member and its epoch on every heartbeat
  (GC.hb, with the group's epoch and state after it), JoinGroup / SyncGroup (GC.join: the generation, the state and
  the member id the coordinator made; GC.sync: the member's decoded assignment), a classic heartbeat, LeaveGroup or
  session expiry (GC.classic: `kafka.classic.operation`, `kafka.members.removed`), a fencing (GC.fence), the target
  assignment (GC.target) and a member's reconciliation (GC.reconcile, with its group), and the `group.epoch.bump`
  event names a group's new epoch. What a span does not carry stays unknown (—) rather than guessed;
- while the run is live and the Groups view is shown, each running broker is asked what it coordinates: ListGroups,
  then ConsumerGroupDescribe (KIP-848 groups: epochs, members, their assignment and target) or DescribeGroups
  (classic: generation, members, the assignment SyncGroup gave them). Such a group is marked *live*, and its answer
  wins over the trace's picture of it while it is fresh.

`GroupsPoller.poll` does the network work on a worker thread; `GroupsModel` is filed on the UI thread.
"""

from __future__ import annotations

import re
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafka_edu.cluster_runner.processes import process_alive
from kafka_edu.cluster_runner.run_directory import JsonFileWatch
from kafka_edu.tracing.query import SpanRecord
from kafka_edu.v1_0_2.core.network.blocking_channel import BlockingChannel
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from tui.node_processes import node_id_of
from tui.store import TUI_POLL_CLIENT_ID

CONSUMER = "consumer"
CLASSIC = "classic"
EPOCH_EVENT = "group.epoch.bump"
STATE_EVENT = "coordinator.state.change"
TRACE_MEMORY = 4096  # traces whose GC facts are kept while the rest of the trace (its root) may still arrive
ASK_TIMEOUT_S = 1.0  # a paused broker accepts the connection and never answers: give up on it soon
LIST_GROUPS_VERSION = 5
DESCRIBE_GROUPS_VERSION = 5
CONSUMER_GROUP_DESCRIBE_VERSION = 0
_UUID_START = re.compile(r"(?<=-)[0-9a-f]{8}-[0-9a-f]{4}-")  # a classic member id's uuid, after its client id
LEAVE_EPOCHS = (-1, -2)  # a KIP-848 heartbeat with these epochs leaves the group (-2: a static member, for now)
# The GC steps whose spans name a group, and the protocol each speaks
CONSUMER_STEPS = ("GC.hb", "GC.target", "GC.reconcile", "GC.fence")
CLASSIC_STEPS = ("GC.join", "GC.sync", "GC.classic")


def _first(attributes: dict[str, Any], *names: str, default: Any = None) -> Any:
    """The first of `names` the span has: a describer may name a thing in more than one way."""
    for name in names:
        if name in attributes and attributes[name] is not None:
            return attributes[name]
    return default


def _partitions(value: Any) -> tuple[str, ...] | None:
    """`topic-p` names, sorted by topic then partition number; None when the span says nothing."""
    if value is None:
        return None
    items = [value] if isinstance(value, str) else list(value)
    return tuple(sorted((str(item) for item in items if str(item)), key=_partition_key))


def _partition_key(name: str) -> tuple[str, int]:
    topic, _, partition = name.rpartition("-")
    return (topic, int(partition)) if partition.isdigit() else (name, -1)


def compact_partitions(partitions: Iterable[str]) -> str:
    """`demo-0, demo-1, demo-2, other-4` as `demo 0-2 · other 4`: a row has room for a topic's name once."""
    by_topic: dict[str, list[int]] = {}
    for name in partitions:
        topic, number = _partition_key(name)
        by_topic.setdefault(topic, [])
        if number >= 0:
            by_topic[topic].append(number)
    parts = []
    for topic, numbers in by_topic.items():
        ranges: list[str] = []
        numbers = sorted(set(numbers))
        start = previous = None
        for number in [*numbers, None]:
            if number is not None and previous is not None and number == previous + 1:
                previous = number
                continue
            if start is not None:
                ranges.append(str(start) if start == previous else f"{start}-{previous}")
            start = previous = number
        parts.append(f"{topic} {','.join(ranges)}" if ranges else topic)
    return " · ".join(parts)


# -- the model --------------------------------------------------------------------------------------------------

@dataclass
class MemberView:
    member_id: str
    client_id: str = ""
    epoch: int | None = None  # KIP-848: the member epoch; classic: the generation it joined
    assigned: tuple[str, ...] | None = None  # None: not known (the spans do not say)
    target: tuple[str, ...] | None = None
    revoking: tuple[str, ...] | None = None  # partitions pending revocation: it still owns them, must give them up
    state: str = ""  # KIP-848 member state (STABLE, UNREVOKED_PARTITIONS, UNRELEASED_PARTITIONS), when known
    instance_id: str | None = None
    last_ns: int = 0

    @property
    def short_id(self) -> str:
        """Its first 8 characters; a classic member's id is `<client id>-<uuid>`, so there the uuid's."""
        found = _UUID_START.search(self.member_id)
        start = found.start() if found is not None else 0
        return self.member_id[start:start + 8] if self.member_id else "(none)"

    @property
    def pending(self) -> tuple[str, ...]:
        """Partitions of its target it does not own yet (another member still holds them, or not reconciled)."""
        if self.target is None or self.assigned is None:
            return ()
        return tuple(p for p in self.target if p not in self.assigned)

    @property
    def to_revoke(self) -> tuple[str, ...]:
        """Partitions it owns that its target no longer has: the span's word if it gave one, else the difference."""
        if self.revoking is not None:
            return self.revoking
        if self.target is None or self.assigned is None:
            return ()
        return tuple(p for p in self.assigned if p not in self.target)


@dataclass
class GroupView:
    group_id: str
    protocol: str = CONSUMER  # consumer (KIP-848) | classic
    state: str = ""
    epoch: int | None = None  # the group epoch (consumer) or generation (classic)
    assignment_epoch: int | None = None  # consumer: the epoch of the target assignment
    assignor: str = ""
    coordinator: int | None = None  # the broker whose coordinator served it last
    members: dict[str, MemberView] = field(default_factory=dict)
    last_ns: int = 0
    live_at: float | None = None  # wall time of the live answer this view is (None: from the trace)
    committed: int = 0  # offset commits traced (GC.commit)

    def member(self, member_id: str) -> MemberView:
        if member_id not in self.members:
            self.members[member_id] = MemberView(member_id)
        return self.members[member_id]

    @property
    def epoch_label(self) -> str:
        return "generation" if self.protocol == CLASSIC else "epoch"


@dataclass
class GroupsBatch:
    """What one poll found: each running broker's groups, described (wall time `at`), or why not."""

    groups: list[GroupView] = field(default_factory=list)
    asked: list[int] = field(default_factory=list)  # the brokers that answered
    errors: dict[int, str] = field(default_factory=dict)
    at: float = 0.0


@dataclass
class TraceFacts:
    """What the spans of one trace (a heartbeat's, a JoinGroup's) have said so far: a reconciliation names the member
    but not the group, the heartbeat the group, the request's root span the client."""

    group: str | None = None
    client: str | None = None
    members: set[str] = field(default_factory=set)
    waiting: list[SpanRecord] = field(default_factory=list)  # spans to file once the group is known


@dataclass
class GroupsModel:
    traced: dict[str, GroupView] = field(default_factory=dict)
    live: dict[str, GroupView] = field(default_factory=dict)  # the last poll's answer, by group
    live_at: float | None = None
    live_errors: dict[int, str] = field(default_factory=dict)
    coordinators: dict[str, tuple[int | None, str, int]] = field(default_factory=dict)  # tp -> (broker, state, epoch)
    version: int = 0
    add_log: Callable[[int, str, str, str], None] | None = None  # (time_ns, instance, text, level) to the Log pane
    _traces: OrderedDict[str, TraceFacts] = field(default_factory=OrderedDict)  # the newest TRACE_MEMORY traces
    _gone: set[str] = field(default_factory=set)  # members that left or were fenced

    # -- facts ------------------------------------------------------------------------------------------------------

    def observe_ended(self, spans: list[SpanRecord]) -> None:
        changed = False
        for span in sorted(spans, key=lambda s: s.end_ns):  # a trace's root (the request, its client id) ends last
            for event in span.events:
                if event.name == EPOCH_EVENT:
                    changed |= self._epoch_bump(span, event.time_ns, event.attributes)
                elif event.name == STATE_EVENT:
                    changed |= self._coordinator_state(span, event.attributes)
            step = span.step
            if step is not None and step.startswith("GC."):
                changed |= self._span(span, step)
            elif span.trace_id in self._traces and isinstance(span.attributes.get("kafka.client.id"), str):
                changed |= self._client(self._traces[span.trace_id], span.attributes["kafka.client.id"])
        if changed:
            self.version += 1

    def _facts(self, trace_id: str) -> TraceFacts:
        facts = self._traces.get(trace_id)
        if facts is None:
            facts = self._traces[trace_id] = TraceFacts()
            while len(self._traces) > TRACE_MEMORY:
                self._traces.popitem(last=False)
        return facts

    def _client(self, facts: TraceFacts, client_id: str) -> bool:
        """The request's client id (its root span's), for the members its trace names."""
        facts.client = client_id
        group = self.traced.get(facts.group) if facts.group is not None else None
        if group is None:
            return False
        for member_id in facts.members:
            if member_id in group.members:
                group.members[member_id].client_id = client_id
        return bool(facts.members)

    def _group(self, group_id: str, protocol: str, span: SpanRecord) -> GroupView:
        group = self.traced.get(group_id)
        if group is None:
            group = self.traced[group_id] = GroupView(group_id, protocol)
            self._log(span.end_ns, span.instance, f"group {group_id} ({protocol}) first seen on "
                      f"{span.instance}", "info")
        group.protocol = protocol
        group.coordinator = node_id_of(span.instance, "broker") or group.coordinator
        group.last_ns = max(group.last_ns, span.end_ns)
        return group

    def _span(self, span: SpanRecord, step: str) -> bool:
        a = span.attributes
        facts = self._facts(span.trace_id)
        group_id = _first(a, "kafka.group.id")
        if isinstance(group_id, str) and group_id:
            facts.group = group_id
        if step == "GC.reconcile" and facts.group is None:
            facts.waiting.append(span)  # the heartbeat that names the group ends after it (it is its parent)
            return False
        group_id = facts.group
        if group_id is None or (step not in CONSUMER_STEPS and step not in CLASSIC_STEPS and step != "GC.commit"):
            return False
        if step == "GC.commit":
            group = self.traced.get(group_id)
            if group is not None:
                group.committed += 1
            return group is not None
        group = self._group(group_id, CONSUMER if step in CONSUMER_STEPS else CLASSIC, span)
        self._group_facts(group, step, a)
        if step == "GC.target":
            self._targets(group, a, span.end_ns)
        waiting, facts.waiting = facts.waiting, []
        for earlier in waiting:  # they ended first: filed first
            self._member(group, facts, earlier, earlier.step or "")
        self._member(group, facts, span, step)
        return True

    def _group_facts(self, group: GroupView, step: str, a: dict[str, Any]) -> None:
        state = _first(a, "kafka.group.state")
        if isinstance(state, str) and state:
            group.state = state
        # a classic group's generation; a consumer group's epoch (a fence names the one before its bump, which the
        # `group.epoch.bump` event gives)
        epoch = _first(a, "kafka.group.generation") if group.protocol == CLASSIC else \
            None if step == "GC.fence" else _first(a, "kafka.group.epoch")
        if isinstance(epoch, int) and epoch >= 0 and (group.epoch is None or epoch >= group.epoch
                                                      or group.protocol == CLASSIC):
            group.epoch = epoch
        if step == "GC.target":
            target = _first(a, "kafka.target.epoch")
            if isinstance(target, int) and target >= 0:
                group.assignment_epoch = target
        assignor = _first(a, "kafka.assignor")
        if isinstance(assignor, str):
            group.assignor = assignor

    def _member(self, group: GroupView, facts: TraceFacts, span: SpanRecord, step: str) -> None:
        a = span.attributes
        removed = _first(a, "kafka.members.removed", default=()) if step == "GC.classic" else ()
        if removed:  # a LeaveGroup, or a classic member's session expiring
            expired = _first(a, "kafka.classic.operation") == "expire"
            for member_id in removed:
                gone = group.members.pop(str(member_id), None)
                if gone is not None:
                    how = "expired (session timeout)" if expired else "left (LeaveGroup)"
                    self._log(span.end_ns, span.instance, f"group {group.group_id}: member {gone.short_id} {how}",
                              "warning" if expired else "info")
                self._gone.add(str(member_id))
            return
        member_id = _first(a, "kafka.member.id")
        if not isinstance(member_id, str) or not member_id:
            return  # a member joining without an id: its reconciliation, in the same trace, names it
        if step == "GC.fence" or (step == "GC.hb" and _first(a, "kafka.member.epoch.request") in LEAVE_EPOCHS
                                  and _first(a, "kafka.member.epoch", default=-1) in LEAVE_EPOCHS):
            gone = group.members.pop(member_id, None)
            if gone is not None:
                how = "fenced (GC.fence)" if step == "GC.fence" else "left"
                self._log(span.end_ns, span.instance, f"group {group.group_id}: member {gone.short_id} {how}",
                          "warning" if step == "GC.fence" else "info")
            self._gone.add(member_id)
            return
        if step not in ("GC.reconcile", "GC.join") and member_id not in group.members:
            return  # only a reconciliation (or JoinGroup) makes a member; a refused or late heartbeat does not
        if member_id in self._gone and step != "GC.join":
            return  # a late span of a member that has left
        member = group.member(member_id)
        facts.members.add(member_id)
        if facts.client is not None:
            member.client_id = facts.client
        if span.end_ns < member.last_ns:
            return  # an older fact than the one it has
        member.last_ns = span.end_ns
        client_id = _first(a, "kafka.client.id")
        if isinstance(client_id, str) and client_id:
            member.client_id = client_id
        member_epoch = _first(a, "kafka.member.epoch.next", "kafka.member.epoch", "kafka.group.generation")
        if isinstance(member_epoch, int) and member_epoch >= 0:
            member.epoch = member_epoch
        member_state = _first(a, "kafka.member.state.next", "kafka.member.state")
        if isinstance(member_state, str) and member_state:
            member.state = member_state
        assigned = _partitions(_first(a, "kafka.assignment.partitions.next", "kafka.assignment.partitions"))
        if assigned is not None:
            member.assigned = assigned
        revoking = _partitions(_first(a, "kafka.partitions.pending.revocation"))
        if revoking is not None:
            member.revoking = revoking
        if group.epoch is None or (member.epoch is not None and member.epoch > group.epoch
                                   and group.protocol == CONSUMER):
            group.epoch = member.epoch  # no group epoch traced: a member's epoch is at most the group's

    def _targets(self, group: GroupView, a: dict[str, Any], time_ns: int) -> None:
        """GC.target's new target assignment, one `member: topic-p, topic-p` string per member."""
        for item in _first(a, "kafka.target.assignment", default=()) or ():
            member_id, _, partitions = str(item).partition(":")
            member_id = member_id.strip()
            if member_id and member_id not in self._gone:
                member = group.member(member_id)
                member.target = _partitions([p.strip() for p in partitions.split(",") if p.strip()])

    def _epoch_bump(self, span: SpanRecord, time_ns: int, a: dict[str, Any]) -> bool:
        group_id = _first(a, "kafka.group.id", "group")
        to = _first(a, "kafka.group.epoch.to", "kafka.group.epoch", "to")
        if not isinstance(group_id, str) or not isinstance(to, int):
            return False
        group = self._group(group_id, CONSUMER, span)
        if group.epoch is None or to >= group.epoch:
            group.epoch = to
        old = _first(a, "kafka.group.epoch.from", "from", default="?")
        reason = _first(a, "kafka.reason", "kafka.group.epoch.reason", "reason")
        self._log(time_ns, span.instance, f"group {group_id}: epoch {old} → {to}" + (f" ({reason})" if reason else ""),
                  "info")
        return True

    def _coordinator_state(self, span: SpanRecord, a: dict[str, Any]) -> bool:
        tp = _first(a, "kafka.topic.partition", "tp")
        to = _first(a, "kafka.coordinator.state.to", "to")
        if not isinstance(tp, str) or to is None:
            return False
        epoch = _first(a, "kafka.leader.epoch", "kafka.coordinator.epoch", "epoch", default=-1)
        self.coordinators[tp] = (node_id_of(span.instance, "broker"), str(to), int(epoch) if isinstance(epoch, int)
                                 else -1)
        return True

    def observe_poll(self, batch: GroupsBatch) -> None:
        self.live = {group.group_id: group for group in batch.groups}
        self.live_at = batch.at
        self.live_errors = dict(batch.errors)
        self.version += 1

    def clear_live(self) -> None:
        """The run stopped, or the view was left: the trace's picture again."""
        if self.live or self.live_at is not None:
            self.live, self.live_at, self.live_errors = {}, None, {}
            self.version += 1

    # -- what the pane asks -----------------------------------------------------------------------------------------

    def groups(self) -> list[GroupView]:
        """Every group, by id: the live answer's where there is one, else the trace's."""
        ids = sorted(set(self.traced) | set(self.live))
        return [self.live.get(group_id) or self.traced[group_id] for group_id in ids]

    def _log(self, time_ns: int, instance: str, text: str, level: str) -> None:
        if self.add_log is not None:
            self.add_log(time_ns, instance, text, level)


# -- asking the brokers (live runs) -----------------------------------------------------------------------------

class GroupsPoller:
    """Sockets, on a worker thread: each running broker's ListGroups, then a describe of each of its groups."""

    def __init__(self, run_dir: Path, send: Callable[[tuple[str, int], ApiKeys, int, Any], Any] | None = None) -> None:
        self.run_dir = Path(run_dir)
        self.send = send or _send
        self._manifest = JsonFileWatch(self.run_dir / "manifest.json")
        self.manifest: dict[str, Any] = {}

    def brokers(self) -> list[dict[str, Any]]:
        """The run's brokers that can answer: running, not paused, with a port."""
        return [p for p in self.manifest.get("processes", []) if p.get("role") == "broker" and p.get("port")
                and p.get("state") != "paused" and process_alive(p.get("pid"))]

    def poll(self) -> GroupsBatch:
        manifest = self._manifest.read_if_changed()
        if manifest is not None:
            self.manifest = manifest
        batch = GroupsBatch(at=time.time())
        if self.manifest.get("stopped_at"):
            return batch
        for broker in self.brokers():
            address = (broker.get("address", "127.0.0.1"), int(broker["port"]))  # its own on a --netns run
            try:
                batch.groups += self._ask(address, broker["id"], batch.at)
                batch.asked.append(broker["id"])
            except Exception as e:  # a broker starting, stopping or gone: the others still answer
                batch.errors[broker["id"]] = str(e) or type(e).__name__
        return batch

    def _ask(self, address: tuple[str, int], broker: int, at: float) -> list[GroupView]:
        listed = self.send(address, ApiKeys.LIST_GROUPS, LIST_GROUPS_VERSION,
                           build(ApiKeys.LIST_GROUPS.request_schema(LIST_GROUPS_VERSION)))
        consumer = [g.group_id for g in listed.groups if getattr(g, "group_type", "") == CONSUMER]
        classic = [g.group_id for g in listed.groups if getattr(g, "group_type", "") != CONSUMER]
        found: list[GroupView] = []
        if consumer:
            body = build(ApiKeys.CONSUMER_GROUP_DESCRIBE.request_schema(CONSUMER_GROUP_DESCRIBE_VERSION),
                         group_ids=consumer, include_authorized_operations=False)
            answer = self.send(address, ApiKeys.CONSUMER_GROUP_DESCRIBE, CONSUMER_GROUP_DESCRIBE_VERSION, body)
            found += [consumer_group_view(g, broker, at) for g in answer.groups if not g.error_code]
        if classic:
            body = build(ApiKeys.DESCRIBE_GROUPS.request_schema(DESCRIBE_GROUPS_VERSION), groups=classic,
                         include_authorized_operations=False)
            answer = self.send(address, ApiKeys.DESCRIBE_GROUPS, DESCRIBE_GROUPS_VERSION, body)
            found += [classic_group_view(g, broker, at) for g in answer.groups if not g.error_code]
        return found


def _send(address: tuple[str, int], api: ApiKeys, version: int, body: Any) -> Any:
    """One request on a connection of its own; the TUI's polling client id, so these traces fold as background."""
    channel = BlockingChannel(address[0], address[1], ASK_TIMEOUT_S, TUI_POLL_CLIENT_ID)
    try:
        return channel.send_and_receive(api, version, body)
    finally:
        channel.disconnect()


def _assignment(assignment: Any) -> tuple[str, ...]:
    return _partitions([f"{tp.topic_name}-{p}" for tp in assignment.topic_partitions for p in tp.partitions]) or ()


def consumer_group_view(described: Any, broker: int, at: float) -> GroupView:
    """A ConsumerGroupDescribe answer's group."""
    group = GroupView(described.group_id, CONSUMER, described.group_state, int(described.group_epoch),
                      int(described.assignment_epoch), described.assignor_name, broker, live_at=at)
    for m in described.members:
        member = group.member(m.member_id)
        member.client_id, member.epoch, member.instance_id = m.client_id, int(m.member_epoch), m.instance_id
        member.assigned, member.target = _assignment(m.assignment), _assignment(m.target_assignment)
    return group


def classic_group_view(described: Any, broker: int, at: float) -> GroupView:
    """A DescribeGroups answer's group; its members' assignment decoded as ConsumerProtocol's (a consumer group's)."""
    from kafka_edu.v3_9.clients.clients.consumer.internals.consumer_protocol import deserialize_assignment
    from kafka_edu.v3_9.clients.common.network.java_nio import ByteBuffer
    group = GroupView(described.group_id, CLASSIC, described.group_state, None, None, described.protocol_data,
                      broker, live_at=at)
    for m in described.members:
        member = group.member(m.member_id)
        member.client_id, member.instance_id = m.client_id, m.group_instance_id
        if m.member_assignment and described.protocol_type == "consumer":
            try:
                decoded = deserialize_assignment(ByteBuffer.wrap(m.member_assignment))
                member.assigned = _partitions([f"{tp.topic}-{tp.partition}" for tp in decoded.partitions()])
            except Exception:  # an assignment this reader cannot decode: unknown, not an error
                member.assigned = None
        else:
            member.assigned = ()
    return group
