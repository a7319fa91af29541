"""Describers for the GC spans: Kafka 3.9's group coordinator on a KRaft broker (see kafka_edu/tracing/attributes.py).

Traces:
- GC.build in the broker's startup (KR.broker); GC.startup in the first metadata publish.
- An election (GC.elect, in the publish that made it) schedules the load; GC.load runs on the loader's own thread, a
  trace of its own.
- A group request: GC.write (the event queued on the runtime) → the event's turn on a processor thread
  (`CoordinatorWriteEvent.run`, which continues the trace it was queued in) → its operation row (GC.hb → GC.target →
  GC.reconcile, GC.fence, GC.join, GC.sync, GC.classic, GC.commit) → GC.append → GC.replay per record. A timer's write
  (a session timeout's GC.fence, GC.expire) is a turn that starts a trace of its own. GC.fetch and GC.describe are
  reads. A TxnOffsetCommit is TX39.txoffsets, whose verification (TX39.vsend) comes first; its write is queued when
  the verification answers.
- GC.hwm, in the HighWatermarkUpdate event after a commit, is a trace of its own linked to the turns of the writes it
  completes. GC.state (`coordinator.state.change`) is an event on the span current at the transition, or on a short
  span of its own in the runtime's internal events; GC.epoch (`group.epoch.bump`) is an event on the GC.replay of the
  ConsumerGroupMetadata record that moves the epoch, with the reason the turn's operation and records give.
- A KIP-848 rebalance spans heartbeat rounds, one trace each, tied by links: a GC.target links to the span whose
  ConsumerGroupMetadata record bumped the epoch it assigns for (a GC.fence of a leave or a session timeout, a GC.hb),
  and a GC.reconcile to the GC.target that computed the target it moves towards, each when that was another trace.

Attributes come from the traced call's arguments, its result, `self`, and the values a marker hands over.
"""

from __future__ import annotations

import sys
import threading
import weakref
from collections import OrderedDict
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Span, SpanContext

from kafka_edu.tracing.attributes import NEW_TRACE, Scope, end, links, on_event, own_trace, parent, retro, safe, start

GROUP_METADATA_TOPIC = "__consumer_offsets"
# Ported modules a describer uses once the coordinator has loaded them (tracing imports no ported module)
_CONSUMER_PROTOCOL = "kafka_edu.v3_9.clients.clients.consumer.internals.consumer_protocol"
_MEMBER_STATE = "kafka_edu.v3_9.group_coordinator.coordinator.group.modern.member_state"


def _error_name(error: Any) -> str:
    return str(getattr(error, "name", error)).upper()


def _response(result: Any) -> Any:
    """A CoordinatorResult's response, or the value itself."""
    response = getattr(result, "response", None)
    return response() if callable(response) else result


def _field(value: Any, name: str, default: Any = None) -> Any:
    if isinstance(value, dict):
        return value.get(name, default)
    return getattr(value, name, default)


class _Turn(threading.local):
    """What the current turn on this thread did so far, for the reason a `group.epoch.bump` gives: the operation
    row it runs (a leave, a fence, a load) and the record types its append replayed before the epoch record."""

    def __init__(self) -> None:
        self.operation: str | None = None
        self.replayed: list[str] = []
        # (group id, epoch) -> the span that wrote the epoch record / computed the target of that epoch, kept until
        # the turn replays the record (a write that is never applied bumps nothing)
        self.bumps: dict[tuple[str, int], SpanContext] = {}
        self.targets: dict[tuple[str, int], SpanContext] = {}

    def reset(self, operation: str | None = None) -> None:
        self.operation, self.replayed, self.bumps, self.targets = operation, [], {}, {}


_turn = _Turn()


class _Rebalances:
    """Process-wide and bounded: per (group id, epoch), the span whose record bumped the group epoch and the GC.target
    that computed the target assignment of that epoch, for the later heartbeats' spans (other traces) to link to."""

    _MAX = 4096

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._bumps: OrderedDict[tuple[str, int], SpanContext] = OrderedDict()
        self._targets: OrderedDict[tuple[str, int], SpanContext] = OrderedDict()

    @staticmethod
    def _put(into: OrderedDict[tuple[str, int], SpanContext], key: tuple[str, int], context: SpanContext) -> None:
        into[key] = context
        into.move_to_end(key)
        while len(into) > _Rebalances._MAX:
            into.popitem(last=False)

    def bumped(self, key: tuple[str, int], context: SpanContext) -> None:
        with self._lock:
            self._put(self._bumps, key, context)

    def targeted(self, key: tuple[str, int], context: SpanContext) -> None:
        with self._lock:
            self._put(self._targets, key, context)

    def bump(self, key: tuple[str, int]) -> SpanContext | None:
        with self._lock:
            return self._bumps.get(key)

    def target(self, key: tuple[str, int]) -> SpanContext | None:
        with self._lock:
            return self._targets.get(key)

    def forget(self, group_id: str) -> None:
        """A deleted group: one of the same id starts again at epoch 1, and must not link to the old one's spans."""
        with self._lock:
            for into in (self._bumps, self._targets):
                for key in [k for k in into if k[0] == group_id]:
                    del into[key]


_rebalances = _Rebalances()


def _current_context() -> SpanContext | None:
    context = trace.get_current_span().get_span_context()
    return context if context.is_valid and context.trace_flags.sampled else None


def _remember_bumps(records: Any) -> None:
    """At the end of the operation that wrote them (its span current): the epochs its ConsumerGroupMetadata records
    carry. The innermost operation keeps it: a leave's GC.fence, not the GC.hb around it."""
    context = _current_context()
    if context is None:
        return
    for record in records or ():
        key, value = record.key(), record.value()
        if key.version == 3 and value is not None:
            _turn.bumps.setdefault((_group_of(key), value.message.epoch), context)


def _group_of(key: Any) -> str:
    return getattr(key.message, "group", None) or getattr(key.message, "group_id", "")


def _link_elsewhere(context: SpanContext | None) -> list[SpanContext]:
    """The span to link to, unless it is in the trace being extended (a link to one's own trace says nothing)."""
    if context is None:
        return []
    current = trace.get_current_span().get_span_context()
    return [] if current.is_valid and current.trace_id == context.trace_id else [context]


# -- the service's lifecycle and partitions ---------------------------------------------------------------------

@start("GC.build")
def _build(s: Scope) -> dict[str, Any]:
    config = s["config"].group_coordinator_config()
    return {"kafka.group.coordinator.threads": config.num_threads(),
            "kafka.offsets.load.buffer.size": config.offsets_load_buffer_size()}


@end("GC.startup")
def _started(s: Scope) -> dict[str, Any]:
    return {"kafka.group.coordinator.partitions": s["self"]._num_partitions}


@start("GC.elect")
def _elect(s: Scope) -> dict[str, Any]:
    return {"kafka.topic.partition": f"{GROUP_METADATA_TOPIC}-{s['group_metadata_partition_index']}",
            "kafka.leader.epoch": s["group_metadata_partition_leader_epoch"]}


@start("GC.resign")
def _resign(s: Scope) -> dict[str, Any]:
    epoch = s["group_metadata_partition_leader_epoch"]
    return {"kafka.topic.partition": f"{GROUP_METADATA_TOPIC}-{s['group_metadata_partition_index']}",
            "kafka.leader.epoch": -1 if epoch is None else epoch}


@start("GC.load")
def _load(s: Scope) -> dict[str, Any]:
    _turn.reset("load")
    return {"kafka.topic.partition": str(s["tp"])}


@end("GC.load")
def _loaded(s: Scope) -> dict[str, Any]:
    _turn.operation = None
    future = s["future"]
    if not future.done():
        return {}
    if future.exception() is not None:
        return {"kafka.load.error": type(future.exception()).__name__}
    summary = future.result()
    return {"kafka.load.records": summary.num_records(), "kafka.load.bytes": summary.num_bytes()}


# -- writes and the operations they run ---------------------------------------------------------------------------

@start("GC.write")
def _write(s: Scope) -> dict[str, Any]:
    return {"kafka.coordinator.operation": s["name"], "kafka.topic.partition": str(s["tp"])}


@start("GC.hb")
def _heartbeat(s: Scope) -> dict[str, Any]:
    request = s["request"]
    if request.member_epoch in (-1, -2):  # a leave: the reason of the epoch bump it writes
        _turn.operation = "leave"
    return {"kafka.group.id": request.group_id, "kafka.member.id": request.member_id,
            "kafka.member.epoch.request": request.member_epoch}


@end("GC.hb")
def _heartbeat_answered(s: Scope) -> dict[str, Any]:
    result = s["result"]
    if hasattr(result, "records"):
        _remember_bumps(result.records())
    response = _response(result)
    if response is None:
        return {}
    attributes: dict[str, Any] = {"kafka.member.epoch": _field(response, "member_epoch", -1),
                                  "kafka.assignment.sent": _field(response, "assignment") is not None}
    try:
        group = s["self"].consumer_group(s["request"].group_id)
    except Exception:  # no such group (any more), or a classic one
        group = None
    epoch, state = _consumer_group_after(group, result.records() if hasattr(result, "records") else [])
    attributes.update({"kafka.group.epoch": epoch, "kafka.group.state": state})
    return attributes


def _consumer_group_after(group: Any, records: list[Any]) -> tuple[int, str]:
    """The group's epoch and state once the heartbeat's records are replayed (the runtime replays them after the
    call returns): the group as it is, with the records' epochs and members applied, and the state then follows
    ConsumerGroup.maybeUpdateGroupState's rule."""
    epoch = group.group_epoch() if group is not None else 0
    target = group.assignment_epoch() if group is not None else 0
    members: dict[str, tuple[int, str]] = {} if group is None else {
        member_id: (member.member_epoch(), _state_name(member.state()))
        for member_id, member in group.members().items()}
    for record in records:
        key, value = record.key(), record.value()
        message = value.message if value is not None else None
        if key.version == 3 and message is not None:
            epoch = message.epoch
        elif key.version == 6 and message is not None:
            target = message.assignment_epoch
        elif key.version == 5:
            if message is None:
                members.pop(key.message.member_id, None)
            else:
                members.setdefault(key.message.member_id, (0, "STABLE"))  # a new member: epoch 0, stable
        elif key.version == 8 and message is not None and key.message.member_id in members:
            members[key.message.member_id] = (message.member_epoch, _member_state_name(message.state))
    if not members:
        return epoch, "Empty"
    if epoch > target:
        return epoch, "Assigning"
    if any(state != "STABLE" or member_epoch != target for member_epoch, state in members.values()):
        return epoch, "Reconciling"
    return epoch, "Stable"


def _state_name(state: Any) -> str:
    return str(getattr(state, "name", state))


def _member_state_name(value: int) -> str:
    """A ConsumerGroupCurrentMemberAssignment record's state byte by MemberState's name (the module the coordinator
    loaded: tracing imports no ported module)."""
    states = sys.modules.get(_MEMBER_STATE)
    return states.MemberState.from_value(value).name if states is not None else str(value)


@start("GC.join", "GC.sync", "GC.classic")
def _classic(s: Scope) -> dict[str, Any]:
    request = s.get("request")
    if request is None:  # a session's expiry: the timer hands over the group and the member
        _classic_turn.before = _classic_members(s["self"], s["group_id"])
        return {"kafka.group.id": s["group_id"], "kafka.member.id": s["member_id"],
                "kafka.classic.operation": "expire"}
    attributes = {"kafka.group.id": request.group_id}
    kind = type(request).__name__
    if kind == "LeaveGroupRequest":  # it names its members (v3+), not one
        attributes["kafka.classic.operation"] = "leave"
        return attributes
    attributes["kafka.member.id"] = request.member_id
    if kind == "HeartbeatRequest":
        attributes["kafka.classic.operation"] = "heartbeat"
    return attributes


class _ClassicTurn(threading.local):
    """The members of a classic group when an expiry started, for the ones it removed."""

    def __init__(self) -> None:
        self.before: set[str] = set()


_classic_turn = _ClassicTurn()


def _classic_group(manager: Any, group_id: str) -> Any:
    try:
        return manager.group(group_id)
    except Exception:  # deleted, or never there
        return None


def _classic_members(manager: Any, group_id: str) -> set[str]:
    group = _classic_group(manager, group_id)
    if group is None or not hasattr(group, "all_members"):
        return set()
    return {member.member_id() for member in group.all_members()} | set(getattr(group, "_pending_join_members", ()))


def _group_facts(group: Any) -> dict[str, Any]:
    """A group's generation (classic) or epoch (consumer) and state, as they are now."""
    if group is None:
        return {}
    if hasattr(group, "generation_id"):
        return {"kafka.group.generation": group.generation_id(), "kafka.group.state": group.state_as_string()}
    return {"kafka.group.epoch": group.group_epoch(), "kafka.group.state": group.state_as_string()}


@end("GC.join")
def _joined(s: Scope) -> dict[str, Any]:
    request, future = s["request"], s["response_future"]
    group = _classic_group(s["self"], request.group_id)
    attributes = _group_facts(group)
    if not request.member_id:  # the id the coordinator made for it: in its answer, or on the member parked in a join
        members = group.all_members() if hasattr(group, "all_members") else ()  # a consumer group's: in its answer
        member_id = future.result().member_id if future.done() else next(
            (m.member_id() for m in members if getattr(m, "_awaiting_join_future", None) is future), "")
        if member_id:
            attributes["kafka.member.id"] = member_id
    return attributes


def _decoded_assignment(assignment: bytes | None) -> list[str] | None:
    """A ConsumerProtocol assignment's partitions as `topic-p`; None when there is none or it is not one."""
    protocol = sys.modules.get(_CONSUMER_PROTOCOL)  # loaded by the classic group, which reads subscriptions with it
    if not assignment or protocol is None:
        return None
    try:
        decoded = protocol.deserialize_assignment(protocol.ByteBuffer.wrap(bytes(assignment)))
    except Exception:  # another protocol type's assignment
        return None
    return sorted(f"{tp.topic}-{tp.partition}" for tp in decoded.partitions())[:100]


@end("GC.sync")
def _synced(s: Scope) -> dict[str, Any]:
    """The member's assignment: its answer's when it came at once; the leader's, from the assignments it sent (its
    answer waits for their write); a follower parked until the leader's SyncGroup has none yet."""
    request, future = s["request"], s["response_future"]
    group = _classic_group(s["self"], request.group_id)
    attributes = _group_facts(group)
    assignment = None
    if future.done() and _error_name(future.result().error_code) == "NONE":
        assignment = future.result().assignment
    else:
        assignment = next((a.assignment for a in request.assignments or () if a.member_id == request.member_id), None)
    partitions = _decoded_assignment(assignment)
    if partitions is not None:
        attributes["kafka.assignment.partitions"] = partitions
    return attributes


@end("GC.classic")
def _classic_done(s: Scope) -> dict[str, Any]:
    request = s.get("request")
    if hasattr(s.get("result"), "records"):  # a classic member leaving a consumer group bumps its epoch
        _remember_bumps(s["result"].records())
    group_id = request.group_id if request is not None else s["group_id"]
    group = _classic_group(s["self"], group_id)
    attributes = _group_facts(group)
    if request is None:
        after = _classic_members(s["self"], group_id)
        attributes["kafka.members.removed"] = sorted(_classic_turn.before - after)
    elif type(request).__name__ == "LeaveGroupRequest":
        response = _response(s["result"])
        attributes["kafka.members.removed"] = sorted(
            m.member_id or m.group_instance_id or "" for m in (_field(response, "members") or ())
            if _error_name(m.error_code) == "NONE")
    else:
        attributes["kafka.members.removed"] = []
    return attributes


@start("GC.commit")
def _commit(s: Scope) -> dict[str, Any]:
    request = s["request"]
    return {"kafka.group.id": request.group_id,
            "kafka.partitions": sorted(f"{t.name}-{p.partition_index}" for t in request.topics
                                       for p in t.partitions)[:100]}


@start("GC.fetch")
def _fetch(s: Scope) -> dict[str, Any]:
    return {"kafka.group.id": s["request"].group_id, "kafka.last.committed.offset": s["last_committed_offset"]}


@start("GC.describe")
def _describe(s: Scope) -> dict[str, Any]:
    return {"kafka.group.ids": [g for g in s["group_ids"] if g is not None][:100]}


# -- a write's turn on a processor thread, what it appends and replays, and the high watermark completing it --------

_RUN = "CoordinatorRuntime.CoordinatorWriteEvent.run"
_MAX_LINKS = 32
# The key's version names a record's type (GroupCoordinatorShard.replay).
_RECORD_TYPES = {0: "OffsetCommit", 1: "OffsetCommit", 2: "GroupMetadata", 3: "ConsumerGroupMetadata",
                 4: "ConsumerGroupPartitionMetadata", 5: "ConsumerGroupMemberMetadata",
                 6: "ConsumerGroupTargetAssignmentMetadata", 7: "ConsumerGroupTargetAssignmentMember",
                 8: "ConsumerGroupCurrentMemberAssignment"}
# Each write event's turn (its span's context), for the GC.hwm that completes it to link to.
_runs: weakref.WeakKeyDictionary[Any, SpanContext] = weakref.WeakKeyDictionary()
_runs_lock = threading.Lock()


def _enqueuer(event: Any) -> Span:
    """The span current where the write event was created: the GC.write that queued it, or none (a timer's)."""
    return event.enqueued_in.run(trace.get_current_span)


@parent(_RUN)
@safe(own_trace)
def _run_parent(s: Scope) -> Span:
    enqueued = _enqueuer(s["self"])
    return enqueued if enqueued.get_span_context().is_valid else NEW_TRACE


@start(_RUN)
def _run(s: Scope) -> dict[str, Any]:
    event = s["self"]
    _turn.reset()
    attributes: dict[str, Any] = {"kafka.coordinator.operation": event.name, "kafka.topic.partition": str(event.tp)}
    if event.transactional_id is not None:
        attributes.update({"kafka.transactional.id": event.transactional_id, "kafka.producer.id": event.producer_id,
                           "kafka.producer.epoch": event.producer_epoch})
    return attributes


@end(_RUN)
def _ran(s: Scope) -> dict[str, Any]:
    event = s["self"]
    with _runs_lock:
        _runs[event] = trace.get_current_span().get_span_context()
    _turn.reset()
    return {"kafka.write.completed": event.future.done()}


@start("GC.append")
def _append(s: Scope) -> dict[str, Any]:
    _turn.replayed = []
    records = s["records"]
    attributes: dict[str, Any] = {"kafka.topic.partition": str(s["self"].tp), "kafka.records.count": len(records),
                                  "kafka.records.replay": bool(s["replay"]),
                                  "kafka.records.atomic": bool(s["is_atomic"])}
    if s["producer_id"] != -1:
        attributes.update({"kafka.producer.id": s["producer_id"], "kafka.producer.epoch": s["producer_epoch"]})
    if records:
        attributes["kafka.record.types"] = sorted({_RECORD_TYPES.get(r.key().version, str(r.key().version))
                                                   for r in records})
    return attributes


@end("GC.append")
def _appended(s: Scope) -> dict[str, Any]:
    context = s["self"]
    if context.coordinator is None:  # unloaded meanwhile (a failed flush reloads the partition)
        return {}
    batch = context.current_batch
    attributes: dict[str, Any] = {"kafka.last.written.offset": context.coordinator.last_written_offset(),
                                  "kafka.batch.open": batch is not None,
                                  "kafka.deferred.events": len(context.deferred_event_queue)}
    if batch is not None:
        attributes["kafka.batch.next.offset"] = batch.next_offset
    return attributes


@start("GC.replay")
def _replay(s: Scope) -> dict[str, Any]:
    record = s["record"]
    key, value = record.key(), record.value()
    kind = _RECORD_TYPES.get(key.version, str(key.version))
    _turn.replayed.append(kind if value is not None else f"{kind} tombstone")
    _replayed_rebalance(key, value)
    attributes: dict[str, Any] = {"kafka.offset": s["offset"], "kafka.record.type": kind,
                                  "kafka.record.tombstone": value is None}
    group_id = getattr(key.message, "group", None) or getattr(key.message, "group_id", None)
    if group_id is not None:
        attributes["kafka.group.id"] = group_id
    member_id = getattr(key.message, "member_id", None)
    if member_id:
        attributes["kafka.member.id"] = member_id
    if key.version in (0, 1):
        attributes["kafka.topic.partition"] = f"{key.message.topic}-{key.message.partition}"
        if value is not None:
            attributes["kafka.committed.offset"] = value.message.offset
    if s["producer_id"] != -1:
        attributes["kafka.producer.id"] = s["producer_id"]
    return attributes


def _replayed_rebalance(key: Any, value: Any) -> None:
    """The turn's epoch and target records, once applied, make their spans the ones later heartbeats link to; a
    deleted group's are forgotten."""
    if key.version == 3 and value is None:
        _rebalances.forget(_group_of(key))
    elif key.version == 3:
        epoch_key = (_group_of(key), value.message.epoch)
        if epoch_key in _turn.bumps:
            _rebalances.bumped(epoch_key, _turn.bumps[epoch_key])
    elif key.version == 6 and value is not None:
        target_key = (_group_of(key), value.message.assignment_epoch)
        if target_key in _turn.targets:
            _rebalances.targeted(target_key, _turn.targets[target_key])


@start("GC.hwm")
def _hwm(s: Scope) -> dict[str, Any]:
    context = s["context"]
    return {"kafka.topic.partition": str(s["tp"]), "kafka.high.watermark": s["offset"],
            "kafka.last.committed.offset": context.coordinator.last_committed_offset(),
            "kafka.deferred.events": len(context.deferred_event_queue)}


def _parked_up_to(queue: Any, offset: int) -> list[Any]:
    """The events the queue completes at `offset`, oldest first (its pending map is in offset order)."""
    parked: list[Any] = []
    for at, events in list(queue._pending.items()):
        if at > offset:
            break
        parked.extend(events)
    return parked


@links("GC.hwm")
def _completes(s: Scope) -> list[SpanContext]:
    """The writes this high watermark completes: each one's turn on the processor thread (or the GC.write that
    queued it), so a learner goes from a parked response to the commit that sent it."""
    contexts: list[SpanContext] = []
    for event in _parked_up_to(s["context"].deferred_event_queue, s["offset"])[:_MAX_LINKS]:
        with _runs_lock:
            context = _runs.get(event) if _is_weakrefable(event) else None
        if context is None and hasattr(event, "enqueued_in"):
            context = _enqueuer(event).get_span_context()
        if context is not None and context.is_valid and context.trace_flags.sampled:
            contexts.append(context)
    return contexts


def _is_weakrefable(value: Any) -> bool:
    try:
        weakref.ref(value)
    except TypeError:
        return False
    return True


@end("GC.hwm")
def _hwm_done(s: Scope) -> dict[str, Any]:
    return {"kafka.deferred.events.left": len(s["context"].deferred_event_queue)}


# -- KIP-848: the target assignment, a member's reconciliation, a fence ------------------------------------------

# Topic names by id, as the last target assignment's image gave them: a reconciliation's builder has no image.
_topic_names: dict[Any, str] = {}


def _topic_name(topics_image: Any, topic_id: Any) -> str:
    topic = topics_image.get_topic(topic_id) if topics_image is not None else None
    if topic is not None:
        _topic_names[topic_id] = topic.name
        return topic.name
    return _topic_names.get(topic_id, str(topic_id))


def _partitions(assignment: Any, topics_image: Any = None) -> list[str]:
    """A member's partitions as `topic-p` (the topic's name when known, else its id), sorted."""
    return sorted(f"{_topic_name(topics_image, topic_id)}-{p}" for topic_id, partitions in assignment.items()
                  for p in partitions)[:100]


@start("GC.target")
def _target(s: Scope) -> dict[str, Any]:
    builder = s["self"]
    return {"kafka.group.id": builder._group_id, "kafka.target.epoch": builder._group_epoch,
            "kafka.assignor": builder._assignor.name(), "kafka.group.members": len(builder._members),
            "kafka.members.updated": sorted(builder._updated_members)[:100]}


@links("GC.target")
def _target_cause(s: Scope) -> list[SpanContext]:
    """The span whose record bumped the epoch this target is for, when another heartbeat round wrote it (a leave's
    or a session timeout's GC.fence); a heartbeat that bumps the epoch computes the target in its own trace."""
    builder = s["self"]
    return _link_elsewhere(_rebalances.bump((builder._group_id, builder._group_epoch)))


@end("GC.target")
def _targeted(s: Scope) -> dict[str, Any]:
    result = s["result"]
    if result is None:
        return {}
    context = _current_context()
    if context is not None:
        _turn.targets[(s["self"]._group_id, s["self"]._group_epoch)] = context
    topics_image = s["self"]._topics_image
    return {"kafka.records.count": len(result.records()),
            "kafka.target.assignment": [f"{member_id}: {', '.join(_partitions(assignment.partitions(), topics_image))}"
                                        for member_id, assignment in sorted(result.target_assignment().items())
                                        ][:100]}


@start("GC.reconcile")
def _reconcile(s: Scope) -> dict[str, Any]:
    builder = s["self"]
    member = builder._member
    attributes = {"kafka.member.id": member.member_id(), "kafka.member.epoch": member.member_epoch(),
                  "kafka.member.state": str(getattr(member.state(), "name", member.state())),
                  "kafka.target.epoch": builder._target_assignment_epoch,
                  "kafka.assignment.partitions": _partitions(member.assigned_partitions())}
    group_id = _reconcile_group(builder)
    if group_id is not None:
        attributes["kafka.group.id"] = group_id
    return attributes


def _reconcile_group(builder: Any) -> str | None:
    """The member knows no group; the builder's partition epochs are its group's (a bound ModernGroup method)."""
    group = getattr(getattr(builder, "_current_partition_epoch", None), "__self__", None)
    return group.group_id() if group is not None and hasattr(group, "group_id") else None


@links("GC.reconcile")
def _reconcile_towards(s: Scope) -> list[SpanContext]:
    """The GC.target that computed the target this member moves towards, when an earlier heartbeat round (another
    member's join, or the one after a fence) computed it."""
    builder = s["self"]
    group_id = _reconcile_group(builder)
    if group_id is None:
        return []
    return _link_elsewhere(_rebalances.target((group_id, builder._target_assignment_epoch)))


@end("GC.reconcile")
def _reconciled(s: Scope) -> dict[str, Any]:
    member = s["result"]
    if member is None:
        return {}
    return {"kafka.member.epoch.next": member.member_epoch(),
            "kafka.member.state.next": str(getattr(member.state(), "name", member.state())),
            "kafka.assignment.partitions.next": _partitions(member.assigned_partitions()),
            "kafka.partitions.pending.revocation": _partitions(member.partitions_pending_revocation())}


@start("GC.fence")
def _fence(s: Scope) -> dict[str, Any]:
    group, member = s["group"], s["member"]
    if _turn.operation != "leave":
        _turn.operation = "fence"
    return {"kafka.group.id": group.group_id(), "kafka.member.id": member.member_id(),
            "kafka.member.epoch": member.member_epoch(), "kafka.group.epoch": group.group_epoch()}


@end("GC.fence")
def _fenced(s: Scope) -> dict[str, Any]:
    result = s["result"]
    if result is not None:
        _remember_bumps(result.records())
    return {"kafka.records.count": len(result.records())} if result is not None else {}


# -- the expiration timer ---------------------------------------------------------------------------------------

@retro("GC.expire")
def _expired(s: Scope) -> dict[str, Any] | None:
    """Recorded only when the check found something to delete: an idle check every interval is no step."""
    result = s["result"]
    records = result.records() if result is not None else []
    if not records:
        return None
    offsets = [r for r in records if r.key().version in (0, 1)]
    groups = sorted({getattr(r.key().message, "group", None) or getattr(r.key().message, "group_id", "")
                     for r in records})
    return {"kafka.records.count": len(records), "kafka.offsets.expired": len(offsets),
            "kafka.offsets.expired.partitions": sorted(f"{r.key().message.topic}-{r.key().message.partition}"
                                                       for r in offsets)[:100],
            "kafka.group.ids": groups[:100]}


# -- the two events ---------------------------------------------------------------------------------------------

@on_event("coordinator.state.change")
def _state_change(s: Scope) -> dict[str, Any]:
    context, from_state = s["self"], s["from_state"]
    return {"kafka.topic.partition": str(context.tp), "kafka.leader.epoch": context.epoch,
            "kafka.coordinator.state.from": str(from_state), "kafka.coordinator.state.to": str(context.state)}


def _bump_reason() -> str:
    if _turn.operation == "load":
        return "replayed while loading"
    if _turn.operation == "leave":
        return "member left"
    if _turn.operation == "fence":
        return "member fenced"
    if "ConsumerGroupMemberMetadata" in _turn.replayed:
        return "member subscription changed"
    if "ConsumerGroupPartitionMetadata" in _turn.replayed:
        return "subscribed topics' metadata changed"
    return "metadata refresh"


@on_event("group.epoch.bump")
def _epoch_bump(s: Scope) -> dict[str, Any]:
    manager, group_id = s["self"], s["group_id"]
    try:
        before = manager.consumer_group(group_id).group_epoch()
    except Exception:  # a group this record creates (a load, the first member)
        before = 0
    return {"kafka.group.id": group_id, "kafka.group.epoch.from": before, "kafka.group.epoch.to": s["epoch"],
            "kafka.reason": _bump_reason()}
