"""Describers for KIP-853's controller membership changes (FIDELITY KV, Kafka 3.9; see attributes.py).

A membership change is one trace on the active controller, though its steps run in different polls of the raft
thread: the request's handling (KV.add, KV.remove) is the root (or the child of the sender's span, when the request
carried a traceparent); the ApiVersions answer of the new voter (KV.apiv), the leader's append of the VotersRecord
(KV.voters) and the answer at commit (KV.commit) are its children. What ties them together is remembered here: the
span of the pending add or remove by leader state, and the offset of the VotersRecord it appended by the control
record state machine that will read it back.

KV.voters is traced only when an update of the state machine reads a VotersRecord (or a snapshot): on the leader and
on every follower and observer, each at the moment it appended the record, which is when the set takes effect there.
KV.observe is traced when an observer starts following a leader in an epoch and when it first catches up with the
high watermark it was told: two spans per observer and epoch, never one per fetch.
"""

from __future__ import annotations

import base64
import threading
from collections import OrderedDict
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, SpanContext

from kafka_edu.tracing import attributes as _attributes
from kafka_edu.tracing.attributes import NEW_TRACE, Scope, end, links, own_trace, parent, start, when
from kafka_edu.tracing.describers import kraft_raft
from kafka_edu.tracing.requests import remote_span_context

_MEMORY = 64
_lock = threading.Lock()
# id(leader state) -> (leader state, handler state, span context of the request that made it)
_adds: OrderedDict[int, tuple[Any, Any, SpanContext]] = OrderedDict()
_removes: OrderedDict[int, tuple[Any, Any, SpanContext]] = OrderedDict()
# id(control record state machine) -> (state machine, {offset of a VotersRecord not yet read back: its change's span})
_records: OrderedDict[int, tuple[Any, dict[int, SpanContext]]] = OrderedDict()
# id(raft client) -> (epoch, leader id, caught up) of its last traced observer poll
_observed: dict[int, tuple[int, int, bool]] = {}


def _remember(table: OrderedDict, key: int, value: Any) -> None:
    with _lock:
        table[key] = value
        while len(table) > _MEMORY:
            table.popitem(last=False)


def _current_context() -> SpanContext:
    return trace.get_current_span().get_span_context()


def _change_parent(table: OrderedDict, leader_state: Any, handler_state: Any) -> Any:
    """The span of the request that started `handler_state`, or a trace of its own when it is unknown."""
    with _lock:
        entry = table.get(id(leader_state))
    if entry is not None and entry[1] is handler_state:
        return NonRecordingSpan(entry[2])
    return own_trace()


def _request_parent(request_metadata: Any) -> Any:
    context = remote_span_context(getattr(request_metadata, "traceparent", None))
    return NonRecordingSpan(context) if context is not None else own_trace()


def _error_name(code: Any) -> str:
    name = getattr(code, "name", None)  # the port's responses carry Errors members
    return str(name).upper() if name is not None else str(code)


def _answer(future: Any) -> dict[str, Any]:
    """A voter RPC's answer, when its future is complete."""
    if future is None or not future.done():
        return {"kafka.raft.voters.answered": False}
    response = future.result()
    attributes = {"kafka.raft.voters.answered": True, "kafka.error": _error_name(response.error_code)}
    if getattr(response, "error_message", None):  # UpdateRaftVoterResponse has none
        attributes["kafka.error_message"] = str(response.error_message)
    return attributes


def _voters(voter_set: Any) -> list[str]:
    """`id:directory-id` for each voter, by id."""
    return [f"{key.id}:{key.directory_id}" for key in sorted(voter_set.voter_keys(), key=lambda k: k.id)]


def _endpoints(voter_set: Any) -> list[str]:
    """`id@host:port` for each voter, by id: its first listener's address (the one its VotersRecord entry lists
    first); a voter with none known is left out."""
    endpoints = []
    for voter_id in sorted(voter_set.voter_ids()):
        address = next(iter(voter_set.listeners(voter_id).endpoints.values()), None)
        if address is not None:
            endpoints.append(f"{voter_id}@{address[0]}:{address[1]}")
    return endpoints


def _voter_ids(voter_set: Any) -> list[int]:
    return sorted(voter_set.voter_ids())


def _record_pending(partition_state: Any, offset: int) -> None:
    """The VotersRecord at `offset` belongs to the current span's change: its read-back (KV.voters) joins it."""
    with _lock:
        entry = _records.get(id(partition_state))
        if entry is None or entry[0] is not partition_state:
            entry = (partition_state, {})
            _records[id(partition_state)] = entry
            while len(_records) > _MEMORY:
                _records.popitem(last=False)
        entry[1][offset] = _current_context()


def _pending_in(partition_state: Any, first: int, last: int) -> SpanContext | None:
    with _lock:
        entry = _records.get(id(partition_state))
        if entry is None or entry[0] is not partition_state:
            return None
        for offset in [o for o in entry[1] if o < first]:
            del entry[1][offset]  # read back already (or truncated away)
        return next((context for offset, context in entry[1].items() if first <= offset < last), None)


# -- KV.format ---------------------------------------------------------------------------------------------------------

@start("KV.format")
def _format(s: Scope) -> dict[str, Any]:
    voters = s["initial_controllers"].voters()
    return {"kafka.raft.kraft_version": int(s["kraft_version"]),
            "kafka.raft.checkpoint.directory": str(s["write_log_dir"]),
            "kafka.raft.checkpoint.records": ["KRaftVersionRecord", "VotersRecord"],
            "kafka.raft.voters": sorted(voters),
            "kafka.raft.voters.keys": [f"{v.node_id}@{v.host}:{v.port}:{v.directory_id}"
                                       for _, v in sorted(voters.items())],
            "kafka.listener": str(s["controller_listener_name"])}


# -- KV.init: the raft client's own story (kraft_raft's parent and link), told with the voter set it read ---------

parent("KV.init")(kraft_raft._raft_story_begins)
links("KV.init")(kraft_raft._started_by)


@end("KV.init")
def _initialized(s: Scope) -> dict[str, Any]:
    client = s["self"]
    attributes = kraft_raft._phase_done(s)
    partition_state = client.partition_state
    voters = partition_state.last_voter_set()
    attributes.update({"kafka.raft.kraft_version": partition_state.last_kraft_version().feature_level(),
                       "kafka.raft.voters": _voter_ids(voters), "kafka.raft.voters.keys": _voters(voters),
                       "kafka.raft.voters.endpoints": _endpoints(voters),
                       "kafka.raft.voters.offset": _offset_or_none(partition_state.last_voter_set_offset()),
                       "kafka.raft.voters.static": bool(s["voter_addresses"]),
                       "kafka.raft.is_voter": client.quorum.is_voter(),
                       "kafka.raft.bootstrap_servers": [str(n) for n in client.request_manager._bootstrap_servers]})
    return attributes


def _offset_or_none(offset: int | None) -> int:
    return offset if offset is not None else -2  # -1 is the bootstrap checkpoint's offset; -2: no voter set read


# -- KV.observe ----------------------------------------------------------------------------------------------------

@when("KV.observe")
@_attributes.safe(False)
def _observer_news(s: Scope) -> bool:
    client, state = s["self"], s["state"]
    high_watermark = state.high_watermark()
    caught_up = high_watermark is not None and client.log.end_offset().offset >= high_watermark.offset > 0
    key = (state.epoch(), state.leader_id(), caught_up)
    last = _observed.get(id(client))
    if last == key or (last is not None and last[:2] == key[:2] and last[2]):
        return False  # the same leader, and nothing new (catching up counts once)
    _observed[id(client)] = key
    return True


@start("KV.observe")
def _observing(s: Scope) -> dict[str, Any]:
    client, state = s["self"], s["state"]
    high_watermark = state.high_watermark()
    caught_up = _observed.get(id(client), (0, 0, False))[2]
    return {**kraft_raft._node(client), "kafka.raft.is_voter": False,
            "kafka.raft.directory_id": str(client.quorum.local_replica_key_or_throw().directory_id),
            "kafka.raft.fetch.leader_id": state.leader_id(),
            "kafka.raft.log_end_offset": client.log.end_offset().offset,
            "kafka.raft.high_watermark": high_watermark.offset if high_watermark is not None else -1,
            "kafka.raft.observe.reason": ("caught up with the leader's high watermark" if caught_up
                                          else f"following leader {state.leader_id()} in epoch {state.epoch()}")}


# -- KV.add and KV.apiv ----------------------------------------------------------------------------------------------

@parent("KV.add", "KV.remove")
@_attributes.safe(own_trace)
def _voter_request_sender(s: Scope) -> Any:
    return _request_parent(s["request_metadata"])


@start("KV.add", "KV.remove")
def _voter_request(s: Scope) -> dict[str, Any]:
    client, data = s["self"], s["request_metadata"].data
    attributes = {**kraft_raft._node(client), "kafka.raft.voter.id": int(data.voter_id),
                  "kafka.raft.voter.directory_id": _directory_id(data.voter_directory_id),
                  "kafka.raft.voters.before": _voter_ids(client.voters)}
    for listener in getattr(data, "listeners", ()) or ():
        attributes[f"kafka.raft.voter.listener.{listener.name}"] = f"{listener.host}:{int(listener.port)}"
    return attributes


def _directory_id(value: Any) -> str:
    """A request's directory id (a uuid.UUID) as Kafka prints it, in base64, as the voter set shows it."""
    raw = getattr(value, "bytes", None)  # Kafka's Uuid.toString: URL-safe base64, no padding
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode() if raw is not None else str(value)


@end("KV.add")
def _add_request_answer(s: Scope) -> dict[str, Any]:
    client, future = s["self"], s["result"]
    attributes = _answer(future)
    leader_state = client.quorum.maybe_leader_state()
    pending = leader_state.add_voter_handler_state() if leader_state is not None else None
    if pending is not None and pending.future() is future:
        _remember(_adds, id(leader_state), (leader_state, pending, _current_context()))
        attributes["kafka.raft.voters.next"] = "ApiVersions sent to the new voter"
    return attributes


@when("KV.apiv")
@_attributes.safe(False)
def _expected_api_versions(s: Scope) -> bool:
    pending = s["leader_state"].add_voter_handler_state()
    return pending is not None and pending.expecting_api_response(s["source"].id)


@parent("KV.apiv")
@_attributes.safe(own_trace)
def _api_versions_add(s: Scope) -> Any:
    leader_state = s["leader_state"]
    return _change_parent(_adds, leader_state, leader_state.add_voter_handler_state())


@start("KV.apiv")
def _api_versions(s: Scope) -> dict[str, Any]:
    handler, leader_state = s["self"], s["leader_state"]
    pending = leader_state.add_voter_handler_state()
    supported = s["supported_kraft_versions"]
    replica = leader_state.get_replica_state(pending.voter_key())
    now = s["current_time_ms"]
    attributes = {"kafka.raft.epoch": leader_state.epoch(), "kafka.raft.voter.id": pending.voter_key().id,
                  "kafka.error": _error_name(s["error"]),
                  "kafka.raft.kraft_version": handler._partition_state.last_kraft_version().feature_level(),
                  "kafka.raft.voter.kraft_version.min": int(supported.min_version) if supported is not None else -1,
                  "kafka.raft.voter.kraft_version.max": int(supported.max_version) if supported is not None else -1,
                  "kafka.raft.voter.caught_up": leader_state.is_replica_caught_up(pending.voter_key(), now)}
    if replica is not None:
        attributes.update({"kafka.raft.voter.end_offset": replica.end_offset.offset if replica.end_offset else -1,
                           "kafka.raft.voter.last_caught_up_ms_ago": now - replica.last_caught_up_timestamp
                           if replica.last_caught_up_timestamp > 0 else -1,
                           "kafka.raft.voter.last_fetch_ms_ago": now - replica.last_fetch_timestamp
                           if replica.last_fetch_timestamp > 0 else -1})
    return attributes


@end("KV.apiv")
def _api_versions_done(s: Scope) -> dict[str, Any]:
    handler, leader_state = s["self"], s["leader_state"]
    with _lock:
        entry = _adds.get(id(leader_state))
    pending = entry[1] if entry is not None else None
    if pending is not None and leader_state.add_voter_handler_state() is pending and pending.last_offset() is not None:
        _record_pending(handler._partition_state, pending.last_offset())
        return {"kafka.raft.voters_record.offset": pending.last_offset(),
                "kafka.raft.voters.after": _voter_ids(handler._partition_state.last_voter_set())
                + [pending.voter_key().id]}
    return _answer(pending.future()) if pending is not None else {}


# -- KV.remove -------------------------------------------------------------------------------------------------------

@end("KV.remove")
def _remove_request_answer(s: Scope) -> dict[str, Any]:
    client, future = s["self"], s["result"]
    attributes = _answer(future)
    leader_state = client.quorum.maybe_leader_state()
    pending = leader_state.remove_voter_handler_state() if leader_state is not None else None
    if pending is not None and pending.future() is future:
        _remember(_removes, id(leader_state), (leader_state, pending, _current_context()))
        _record_pending(client.partition_state, pending.last_offset())
        attributes["kafka.raft.voters_record.offset"] = pending.last_offset()
    return attributes


# -- KV.voters ---------------------------------------------------------------------------------------------------------

@parent("KV.voters")
@_attributes.safe(own_trace)
def _voters_change(s: Scope) -> Any:
    machine = s["self"]
    context = _pending_in(machine, max(machine._next_offset, 0), machine._log.end_offset().offset)
    if context is not None:
        return NonRecordingSpan(context)  # the leader reading back the record a change appended
    current = trace.get_current_span()
    return current if current.get_span_context().is_valid else NEW_TRACE


@start("KV.voters")
def _voters_before(s: Scope) -> dict[str, Any]:
    machine = s["self"]
    return {"kafka.raft.voters.before": _voter_ids(machine.last_voter_set()),
            "kafka.raft.voters.offset.before": _offset_or_none(machine.last_voter_set_offset()),
            "kafka.raft.next_offset": machine._next_offset,
            "kafka.raft.log_end_offset": machine._log.end_offset().offset}


@end("KV.voters")
def _voters_after(s: Scope) -> dict[str, Any]:
    machine = s["self"]
    voters = machine.last_voter_set()
    return {"kafka.raft.voters": _voter_ids(voters), "kafka.raft.voters.keys": _voters(voters),
            "kafka.raft.voters.endpoints": _endpoints(voters),
            "kafka.raft.voters.offset": _offset_or_none(machine.last_voter_set_offset()),
            "kafka.raft.kraft_version": machine.last_kraft_version().feature_level(),
            "kafka.raft.high_watermark": machine._log.high_watermark().offset}


# -- KV.commit -----------------------------------------------------------------------------------------------------

def _pending_change(s: Scope) -> tuple[Any, OrderedDict]:
    """The handler state KV.commit is about: an add's or a remove's, by the handler the span is on."""
    leader_state = s["leader_state"]
    if type(s["self"]).__name__ == "RemoveVoterHandler":
        return leader_state.remove_voter_handler_state(), _removes
    return leader_state.add_voter_handler_state(), _adds


@when("KV.commit")
@_attributes.safe(False)
def _commits(s: Scope) -> bool:
    pending, _ = _pending_change(s)
    high_watermark = s["leader_state"].high_watermark()
    return (pending is not None and high_watermark is not None and pending.last_offset() is not None
            and high_watermark.offset > pending.last_offset())


@parent("KV.commit")
@_attributes.safe(own_trace)
def _commit_change(s: Scope) -> Any:
    pending, table = _pending_change(s)
    return _change_parent(table, s["leader_state"], pending)


@start("KV.commit")
def _committing(s: Scope) -> dict[str, Any]:
    pending, table = _pending_change(s)
    leader_state = s["leader_state"]
    return {"kafka.raft.epoch": leader_state.epoch(), "kafka.raft.high_watermark": leader_state.high_watermark().offset,
            "kafka.raft.voters_record.offset": pending.last_offset(),
            "kafka.raft.voters.change": "remove" if table is _removes else "add"}


@end("KV.commit")
def _committed(s: Scope) -> dict[str, Any]:
    leader_state = s["leader_state"]
    _, table = _pending_change(s)
    with _lock:
        entry = table.pop(id(leader_state), None)
    attributes = _answer(entry[1].future()) if entry is not None else {}
    attributes["kafka.raft.resign_requested"] = leader_state.is_resign_requested()
    return attributes


# -- KV.update and KV.epoch ----------------------------------------------------------------------------------------

@parent("KV.update")
@_attributes.safe(own_trace)
def _update_own_trace(s: Scope) -> Any:
    return own_trace()


@start("KV.update")
def _update_request(s: Scope) -> dict[str, Any]:
    supported, endpoints = s["supported_kraft_versions"], s["voter_endpoints"]
    return {"kafka.raft.epoch": s["leader_state"].epoch(), "kafka.raft.voter.id": s["voter_key"].id,
            "kafka.raft.voter.directory_id": str(s["voter_key"].directory_id),
            "kafka.raft.voter.listeners": str(endpoints),
            "kafka.raft.voter.kraft_version.min": int(supported.min_supported_version),
            "kafka.raft.voter.kraft_version.max": int(supported.max_supported_version)}


@end("KV.update")
def _update_answer(s: Scope) -> dict[str, Any]:
    return _answer(s["result"])


@when("KV.epoch")
@_attributes.safe(False)
def _reconfigurable(s: Scope) -> bool:
    return s["self"]._kraft_version_at_epoch_start.is_reconfig_supported()


@start("KV.epoch")
def _epoch_start(s: Scope) -> dict[str, Any]:
    leader_state, node = s["self"], s["local_voter_node"]
    at_start = leader_state._offset_of_voters_at_epoch_start
    writes = at_start == -1 or leader_state._voter_set_at_epoch_start.voter_node_needs_update(node)
    return {"kafka.raft.epoch": leader_state.epoch(), "kafka.node.id": node.voter_key.id,
            "kafka.raft.voters": _voter_ids(leader_state._voter_set_at_epoch_start),
            "kafka.raft.voters.offset": _offset_or_none(at_start),
            "kafka.raft.epoch.writes_voters_record": bool(writes),
            "kafka.raft.epoch.reason": ("the voter set came only from the bootstrap checkpoint" if at_start == -1
                                        else "the leader's own entry changed" if writes else "no VotersRecord needed")}
