"""Our own code, not a Kafka port: the questions lessons ask of a run's spans, and how they quote the answers.

Checks name spans the way a learner finds them again in the TUI: the span name, its FIDELITY step, the broker and
the first eight digits of the trace id (`ref`). Times come out in the unit a person reads (`took`). KRaft runs (Kafka
3.9) are read by node id, role change and metadata-log offset (`node_of`, `role_changes`, `covering`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

from kafka_edu.tracing.query import SpanEvent, SpanRecord, Spans


def took(ms: float) -> str:
    """79 ms, 4.5 ms, 0.31 ms, 5.08 s."""
    if ms >= 1000:
        return f"{ms / 1000:.2f} s"
    if ms >= 10:
        return f"{ms:.0f} ms"
    if ms >= 1:
        return f"{ms:.1f} ms"
    return f"{ms:.2f} ms"


def between(start_ns: int, end_ns: int) -> str:
    return took((end_ns - start_ns) / 1e6)


def clock(at_ns: int) -> str:
    """Wall-clock time to the millisecond, as the brokers' logs print it."""
    return time.strftime("%H:%M:%S", time.localtime(at_ns / 1e9)) + f".{at_ns // 1_000_000 % 1000:03d}"


def ref(span: SpanRecord) -> str:
    """`KafkaController.elect` (CT.elect) on broker-1, trace 1a2b3c4d: enough to find it in the TUI (`/` filters)."""
    step = f" ({span.step})" if span.step else ""
    return f"`{span.name}`{step} on {span.instance}, trace `{span.trace_id[:8]}`"


def at(span: SpanRecord) -> str:
    """CT.elect on broker-1, trace 1a2b3c4d: `ref` without the name, for text that has just said it."""
    step = f"{span.step} " if span.step else ""
    return f"{step}on {span.instance}, trace `{span.trace_id[:8]}`"


def broker_of(span: SpanRecord) -> int | None:
    """The broker a span ran on."""
    broker = span.attributes.get("kafka.broker.id")
    if isinstance(broker, int):
        return broker
    instance = span.instance
    return int(instance.removeprefix("broker-")) if instance.removeprefix("broker-").isdigit() else None


def on_broker(spans: Iterable[SpanRecord], broker_id: int) -> list[SpanRecord]:
    return [s for s in spans if s.instance == f"broker-{broker_id}"]


def started_after(spans: Iterable[SpanRecord], at_ns: int) -> list[SpanRecord]:
    return [s for s in spans if s.start_ns >= at_ns]


def events(spans: Iterable[SpanRecord], name: str) -> list[tuple[SpanRecord, SpanEvent]]:
    """(span, event) for every span event of that name, in time order."""
    return sorted(((s, e) for s in spans for e in s.events if e.name == name), key=lambda pair: pair[1].time_ns)


# -- the controller ------------------------------------------------------------------------------------------------

def elections_won(spans: Spans) -> list[SpanRecord]:
    """Every `KafkaController.elect` that created /controller, by controller epoch."""
    won = [s for s in spans.where(step="CT.elect") if s.attributes.get("kafka.controller.won") is True]
    return sorted(won, key=lambda s: (s.attributes.get("kafka.controller.epoch", 0), s.start_ns))


def controller(spans: Spans) -> SpanRecord | None:
    """The election of the controller now in office (the highest epoch won), or None before any."""
    won = elections_won(spans)
    return won[-1] if won else None


def topic_created(spans: Spans, topic: str) -> list[SpanRecord]:
    """The controller's `TopicChange` events (CT.topic) that found `topic` new, oldest first."""
    return [s for s in spans.where(step="CT.topic") if topic in s.attributes.get("kafka.topics.new", [])]


def event_root(spans: Spans, span: SpanRecord) -> SpanRecord | None:
    """The controller event (`ControllerEventManager.process`, CT.event) a span ran in."""
    roots = spans.where(trace_id=span.trace_id, step="CT.event")
    return roots.first() if len(roots) else None


# -- partitions ----------------------------------------------------------------------------------------------------

def split_partition(name: str) -> tuple[str, int]:
    """"lesson-3" -> ("lesson", 3); topic names may hold dashes themselves."""
    topic, _, partition = name.rpartition("-")
    return topic, int(partition)


def leaders(spans: Spans, topic: str) -> dict[int, int]:
    """Partition -> the broker that last became its leader (`ReplicaManager.makeLeaders`, as each broker applies the
    controller's LeaderAndIsr)."""
    led: dict[int, tuple[int, int]] = {}
    for s in spans.where(name="ReplicaManager.makeLeaders"):
        broker = broker_of(s)
        for name in s.attributes.get("kafka.partitions", []):
            t, partition = split_partition(name)
            if t == topic and broker is not None and s.end_ns >= led.get(partition, (0, 0))[0]:
                led[partition] = (s.end_ns, broker)
    return {p: broker for p, (_, broker) in sorted(led.items())}


def became_leader(spans: Spans, topic: str, partition: int, after_ns: int) -> SpanRecord | None:
    """The first `ReplicaManager.makeLeaders` for that partition that started after `after_ns`."""
    name = f"{topic}-{partition}"
    found = [s for s in spans.where(name="ReplicaManager.makeLeaders")
             if s.start_ns >= after_ns and name in s.attributes.get("kafka.partitions", [])]
    return found[0] if found else None


def partition_list(partitions: Iterable[tuple[str, int]]) -> str:
    return ", ".join(f"{t}-{p}" for t, p in sorted(partitions)) or "none"


# -- a broker's lifecycle ------------------------------------------------------------------------------------------

def startups(spans: Spans, broker_id: int) -> list[SpanRecord]:
    """The broker's `KafkaServer.startup` root spans (LC.main.4), oldest first."""
    return [s for s in spans.where(step="LC.main.4") if s.instance == f"broker-{broker_id}"]


def shutdowns(spans: Spans, broker_id: int) -> list[SpanRecord]:
    return [s for s in spans.where(name="KafkaServer.shutdown") if s.instance == f"broker-{broker_id}"]


def states_in(spans: Spans, trace_id: str) -> list[str]:
    """The BrokerState names a startup or shutdown trace went through."""
    return [s.attributes["kafka.broker.state.to"] for s in spans.where(trace_id=trace_id, name="BrokerState.newState")]


# -- a KRaft quorum (Kafka 3.9) ------------------------------------------------------------------------------------

def node_of(span: SpanRecord) -> int | None:
    """The KRaft node a span ran on (`controller-1`, `broker-4`: node ids are one space in a KRaft cluster)."""
    node = span.attributes.get("kafka.node.id")
    if isinstance(node, int) and node >= 0:
        return node
    _, _, suffix = span.instance.rpartition("-")
    return int(suffix) if suffix.isdigit() else None


@dataclass(frozen=True)
class RoleChange:
    """One `raft.role.change` event (KR.role): a node's Raft role moving, in an epoch, inside `span`; `quorum_state`
    is what its `quorum-state` file held once the change was made durable ("" for Resigned, never written)."""

    span: SpanRecord
    at_ns: int
    node: int | None
    role_from: str
    role_to: str
    epoch: int
    leader: int
    voted: int
    quorum_state: str


def role_changes(spans: Iterable[SpanRecord], node: int | None = None, after_ns: int = 0) -> list[RoleChange]:
    """Every Raft role change (of one node, if given) at or after `after_ns`, in time order."""
    out = []
    for span, e in events(spans, "raft.role.change"):
        a = e.attributes
        change = RoleChange(span, e.time_ns, node_of(span), str(a.get("kafka.raft.role.from")),
                            str(a.get("kafka.raft.role.to")), int(a.get("kafka.raft.epoch", -1)),
                            int(a.get("kafka.raft.leader.id", -1)), int(a.get("kafka.raft.voted.id", -1)),
                            str(a.get("kafka.raft.quorum_state", "")))
        if change.at_ns >= after_ns and (node is None or change.node == node):
            out.append(change)
    return out


def raft_leaders(spans: Iterable[SpanRecord], after_ns: int = 0) -> list[RoleChange]:
    """Each epoch's leader (its transition to Leader), lowest epoch first."""
    first: dict[int, RoleChange] = {}
    for change in role_changes(spans, after_ns=after_ns):
        if change.role_to == "Leader":
            first.setdefault(change.epoch, change)
    return [first[epoch] for epoch in sorted(first)]


def raft_leader(spans: Iterable[SpanRecord]) -> RoleChange | None:
    """The leader of the highest epoch that had one: the active controller now, unless it has died since."""
    leaders = raft_leaders(spans)
    return leaders[-1] if leaders else None


def votes_for(spans: Spans, candidate: int, epoch: int) -> list[SpanRecord]:
    """The voters' `KafkaRaftClient.handleVoteRequest` spans (KR.vote) answering one candidacy, in time order; each
    says `kafka.raft.vote.granted` and why (`kafka.raft.vote.reason`)."""
    return sorted((s for s in spans.where(name="KafkaRaftClient.handleVoteRequest")
                   if s.attributes.get("kafka.raft.vote.candidate_id") == candidate
                   and s.attributes.get("kafka.raft.vote.candidate_epoch") == epoch), key=lambda s: s.start_ns)


def activation(spans: Spans, node: int, after_ns: int = 0) -> SpanRecord | None:
    """The first `QuorumController.completeActivation` on controller `node` after `after_ns`: from its end, the new
    active controller writes."""
    found = [s for s in spans.where(name="QuorumController.completeActivation")
             if node_of(s) == node and s.start_ns >= after_ns]
    return min(found, key=lambda s: s.start_ns) if found else None


def covering(spans: Iterable[SpanRecord], name: str, first: int, last: int) -> list[SpanRecord]:
    """The spans of that name whose metadata-log offsets (`kafka.raft.offset.first/last`) overlap [first, last]: how
    a record is followed from the write that made it to every node that applied it, in time order."""
    found = []
    for s in spans:
        if s.name != name:
            continue
        lo, hi = s.attributes.get("kafka.raft.offset.first"), s.attributes.get("kafka.raft.offset.last")
        if isinstance(lo, int) and isinstance(hi, int) and lo <= last and hi >= first:
            found.append(s)
    return sorted(found, key=lambda s: s.start_ns)
