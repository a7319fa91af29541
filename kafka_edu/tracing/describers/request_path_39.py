"""Describers for Kafka 3.9's request path and storage on a KRaft broker (FIDELITY RQ; see kafka_edu/tracing/
attributes.py).

A client request is one trace, as in NW (request_path.py): its root (RequestChannel.Request) opens at the processor's
RQ.net.5 and ends when its response has gone (requests.completes_request on 3.9's `update_request_metrics`); the
handler's RQ.net.7 is its child, KafkaApis.handle (NW.apis.1) and everything the API does below that. Produce reads
RQ.produce.1 > .2 > .3 > .4 > .5 > (.6, .7); fetch reads RQ.fetch.1 > .2, .3 > .4.

Across threads and traces:
- a delayed produce or fetch (RQ.produce.8, RQ.fetch.5) is tried first inside the RQ.produce.3 / RQ.fetch.3 that
  created it: that span is remembered on the operation, and every later try (on another request's handler thread,
  a fetcher thread, the reaper) is its child, linked to the span that triggered it; a delayed fetch's read again in
  `onComplete` (RQ.fetch.4) runs inside the try that completed it, or, once it expired, on the purgatory's timer
  thread outside any trace: then it is the creator's child too (the origin is kept on the operation's FetchParams);
- a callback request (RQ.net.7 running a CallbackRequest) stays in its original request's trace;
- a follower's fetch round (RQ.follower.1) is a trace of its own; the leader's RQ.fetch.1, in its request's trace,
  links it through the request's `traceparent` (the follower's endpoint sends `current_traceparent()` in the header);
- an ISR change (RQ.isr) is a trace of its own, linked to the fetch or shrink task that proposed it;
- a log load (RQ.load.2) runs on a recovery thread, inside RQ.load.1 (the pool's jobs carry the caller's context).

Nothing here imports the port: the objects are read through the names the port gives them.
"""

from __future__ import annotations

import functools
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, Span, SpanContext

from kafka_edu.tracing.attributes import (
    NEW_TRACE,
    Scope,
    caller_link,
    end,
    links,
    own_trace,
    parent,
    retro,
    safe,
    start,
    when,
)
from kafka_edu.tracing.describers import request_path as _nw
from kafka_edu.tracing.requests import remote_span_context, request_root

CLUSTER_METADATA_TOPIC = "__cluster_metadata"
_MAX_NAMES = 100  # partitions listed on a span; the counts are always there
# where a delayed operation was created: the span its first try ran in (kept on the operation, as requests.py keeps a
# request's root on the request)
_ORIGIN = "_kafka_edu_origin"


def is_3_9_request(request: Any) -> bool:
    """3.9's RequestChannel.Request keeps its header in a RequestContext; 1.0.2's carries the fields itself."""
    return hasattr(request, "context") and hasattr(request, "header")


def request_attributes(request: Any) -> dict[str, Any]:
    """What the root span of a 3.9 client request says about it (RequestChannel.Request)."""
    header, context = request.header, request.context
    attributes = {
        "kafka.api.key": int(header.api_key), "kafka.api.name": header.api_key.api_name,
        "kafka.api.version": header.api_version, "kafka.correlation_id": header.correlation_id,
        "kafka.client.id": header.client_id or "", "kafka.connection.id": context.connection_id,
        "kafka.processor.id": request.processor, "kafka.request.bytes": request.size_in_bytes(),
        "kafka.listener": context.listener_name.value(),
    }
    if request.traceparent:
        attributes["kafka.traceparent"] = request.traceparent
    return attributes


def _ms(duration: Any) -> int:
    """A kio duration field (a timedelta) in ms."""
    return int(duration.total_seconds() * 1000) if hasattr(duration, "total_seconds") else int(duration)


def _tp(topic_partition: Any) -> dict[str, Any]:
    return {"kafka.topic": topic_partition.topic, "kafka.partition": topic_partition.partition}


def _names(topic_partitions: Any) -> list[str]:
    return sorted(str(tp) for tp in topic_partitions)[:_MAX_NAMES]


# -- SocketServer, Acceptor, Processor (RQ.net.1 .. RQ.net.6) -------------------------------------------------------

@start("RQ.net.1")
def _socket_server(s: Scope) -> dict[str, Any]:
    config, manager = s["config"], s["api_version_manager"]
    listener_type = manager.listener_type.name if manager is not None else "BROKER"
    return {"kafka.node.id": config.broker_id, "kafka.listener.type": listener_type,
            "kafka.num.network.threads": config.num_network_threads,
            "kafka.queued.max.requests": config.queued_max_requests}


@end("RQ.net.1")
def _socket_server_built(s: Scope) -> dict[str, Any]:
    acceptors = s["self"].data_plane_acceptors.values()
    return {"kafka.listeners": sorted(str(a.end_point.listener_name) for a in acceptors),
            "kafka.processors": sum(len(a.processors) for a in acceptors),
            # a port is bound now only when it was 0 (to learn it)
            "kafka.listeners.bound": sorted(str(a.end_point.listener_name) for a in acceptors
                                            if a.server_channel is not None)}


@start("RQ.net.2")
def _enable_request_processing(s: Scope) -> dict[str, Any]:
    acceptors = s["self"].data_plane_acceptors.values()
    return {"kafka.listeners": sorted(str(a.end_point.listener_name) for a in acceptors),
            "kafka.authorizer.futures": len(s["authorizer_futures"])}


# An accepted connection's span, by its channel, until its processor registers it (NW.processor.1 links to it).
_accepted: dict[int, tuple[Any, SpanContext]] = {}
_MAX_ACCEPTED = 10_000


@start("RQ.net.3")
def _accept(s: Scope) -> dict[str, Any]:
    acceptor, channel = s["self"], s["channel"]
    remote = channel.get_remote_address()
    return {"kafka.listener": acceptor.listener_name.value(),
            "kafka.client.address": f"{remote[0]}:{remote[1]}" if remote else ""}


@end("RQ.net.3")
def _accepted_channel(s: Scope) -> dict[str, Any]:
    channel = s["channel"]
    _accepted[id(channel)] = (channel, trace.get_current_span().get_span_context())
    while len(_accepted) > _MAX_ACCEPTED:
        del _accepted[next(iter(_accepted))]
    return {}


def accept_span_of(channel: Any) -> SpanContext | None:
    """The RQ.net.3 span that accepted `channel`, once (for the processor that registers it)."""
    accepted = _accepted.pop(id(channel), None)
    return accepted[1] if accepted is not None and accepted[0] is channel else None


@when("RQ.net.4")
def _has_new_responses(s: Scope) -> bool:
    return s["self"].response_queue_size() > 0


@start("RQ.net.4")
def _new_responses(s: Scope) -> dict[str, Any]:
    return {"kafka.processor.id": s["self"].id, "kafka.responses": s["self"].response_queue_size()}


@parent("RQ.net.5")
@safe(None)
def _received_request(s: Scope) -> Any:
    return request_root(s["request"])


@start("RQ.net.5")
def _receiving_processor(s: Scope) -> dict[str, Any]:
    return {"kafka.processor.id": s["self"].id, "kafka.listener": s["self"].listener_name.value()}


@start("RQ.net.6")
def _close_excess_connections(s: Scope) -> dict[str, Any]:
    processor = s["self"]
    return {"kafka.processor.id": processor.id, "kafka.listener": processor.listener_name.value()}


# -- KafkaRequestHandler (RQ.net.7) ------------------------------------------------------------------------------------

def _is_callback(request: Any) -> bool:
    return hasattr(request, "original_request")  # a CallbackRequest


@when("RQ.net.7")
def _handles_something(s: Scope) -> bool:
    """A request or a callback: not a timeout (None), nor a stray WakeupRequest."""
    request = s["request"]
    return request is not None and (_is_callback(request) or is_3_9_request(request))


@parent("RQ.net.7")
@safe(None)
def _handled_request(s: Scope) -> Any:
    """A request: its root. A callback: the RQ.produce.2 that went asynchronous in its request's trace (the
    verification it waited for), else that root."""
    request = s["request"]
    if not _is_callback(request):
        return request_root(request)
    root = request_root(request.original_request)
    if root is None:
        return None
    verifying = _verifying.get(root.get_span_context().trace_id)
    return NonRecordingSpan(verifying) if verifying is not None else root


@start("RQ.net.7")
def _handler(s: Scope) -> dict[str, Any]:
    return {"kafka.handler.id": s["self"].id, "kafka.handler.callback": _is_callback(s["request"])}


# -- the produce path (RQ.produce.1 .. RQ.produce.8) -------------------------------------------------------------------

@start("RQ.produce.1")
def _produce(s: Scope) -> dict[str, Any]:
    request = s["request"]
    body = request.body()
    return {"kafka.produce.acks": int(body.acks), "kafka.produce.timeout_ms": _ms(body.timeout),
            "kafka.transactional.id": getattr(body, "transactional_id", None) or "",
            "kafka.produce.partitions": sum(len(t.partition_data) for t in body.topic_data)}


@start("RQ.produce.2")
def _handle_produce_append(s: Scope) -> dict[str, Any]:
    entries = s["entries_per_partition"]
    return {"kafka.produce.acks": s["required_acks"], "kafka.transactional.id": s["transactional_id"] or "",
            "kafka.partitions": _names(entries), "kafka.partitions.count": len(entries)}


# RQ.produce.2 by its request's trace: the parent of the callbacks its verification resumes in (RQ.net.7). Most
# produces never go asynchronous; the oldest entries go past a bound.
_verifying: dict[int, SpanContext] = {}
_MAX_VERIFYING = 1000


@end("RQ.produce.2")
def _remember_verification(s: Scope) -> dict[str, Any]:
    if s["transactional_id"] is not None:  # only a transactional produce is verified
        context = trace.get_current_span().get_span_context()
        _verifying[context.trace_id] = context
        while len(_verifying) > _MAX_VERIFYING:
            del _verifying[next(iter(_verifying))]
    return {}


@start("RQ.produce.3")
def _append_records(s: Scope) -> dict[str, Any]:
    entries = s["entries_per_partition"]
    return {"kafka.produce.acks": s["required_acks"], "kafka.produce.timeout_ms": s["timeout"],
            "kafka.append.origin": str(s["origin"].name), "kafka.partitions": _names(entries),
            "kafka.records.bytes": sum(records.size_in_bytes() for records in entries.values())}


@start("RQ.produce.4")
def _append_to_leader(s: Scope) -> dict[str, Any]:
    partition = s["self"]
    return {**_tp(partition.topic_partition), "kafka.produce.acks": s["required_acks"],
            "kafka.records.bytes": s["records"].size_in_bytes()}


@end("RQ.produce.4")
def _appended_to_leader(s: Scope) -> dict[str, Any]:
    info = s["result"]
    if info is None:
        return {}
    return {"kafka.offset.first": info.first_offset, "kafka.offset.last": info.last_offset,
            "kafka.leader.hw.change": str(info.leader_hw_change.name),
            "kafka.high_watermark": s["self"].log.high_watermark() if s["self"].log is not None else -1}


@when("RQ.produce.5")
def _a_leaders_append(s: Scope) -> bool:
    """A produce's append on the leader (appendAsLeader assigns the offsets). The metadata log's appends are
    KafkaMetadataLog's spans (KR); a follower's (appendAsFollower) belong to its fetch round, RQ.follower.1."""
    return s["validate_and_assign_offsets"] and s["self"].topic_partition().topic != CLUSTER_METADATA_TOPIC


@when("RQ.produce.7")
def _inside_a_leaders_append(s: Scope) -> bool:
    """LocalLog.append nested in RQ.produce.5; a follower's or the metadata log's has no span of its own."""
    return getattr(trace.get_current_span(), "name", None) == "UnifiedLog.append"


@start("RQ.produce.5")
def _log_append(s: Scope) -> dict[str, Any]:
    log = s["self"]
    return {**_tp(log.topic_partition()), "kafka.append.origin": str(s["origin"].name),
            "kafka.append.assign_offsets": s["validate_and_assign_offsets"], "kafka.leader.epoch": s["leader_epoch"],
            "kafka.records.bytes": s["records"].size_in_bytes(), "kafka.log.end_offset.before": log.log_end_offset()}


@end("RQ.produce.5")
def _log_appended(s: Scope) -> dict[str, Any]:
    info, log = s["result"], s["self"]
    attributes = {"kafka.log.end_offset": log.log_end_offset(), "kafka.high_watermark": log.high_watermark()}
    if info is not None:
        attributes.update({"kafka.offset.first": info.first_offset, "kafka.offset.last": info.last_offset,
                           "kafka.records.count": info.num_messages()})
    return attributes


@start("RQ.produce.6")
def _validate(s: Scope) -> dict[str, Any]:
    validator = s["self"]
    return {**_tp(validator.topic_partition), "kafka.offset.first": s["offset_counter"].value,
            "kafka.compression.source": str(validator.source_compression_type.name),
            "kafka.compacted": validator.compacted_topic, "kafka.timestamp.type": str(validator.timestamp_type),
            "kafka.leader.epoch": validator.partition_leader_epoch}


@end("RQ.produce.6")
def _validated(s: Scope) -> dict[str, Any]:
    result = s["result"]
    if result is None:
        return {}
    return {"kafka.offset.next": s["offset_counter"].value, "kafka.timestamp.max": result.max_timestamp_ms,
            "kafka.records.size_changed": result.message_size_maybe_changed}


@start("RQ.produce.7")
def _local_append(s: Scope) -> dict[str, Any]:
    local_log = s["self"]
    return {**_tp(local_log.topic_partition), "kafka.offset.last": s["last_offset"],
            "kafka.records.bytes": s["records"].size_in_bytes(),
            "kafka.log.segment": local_log.segments.active_segment().base_offset()}


@end("RQ.produce.7")
def _local_appended(s: Scope) -> dict[str, Any]:
    return {"kafka.log.end_offset": s["self"].log_end_offset()}


# -- delayed operations (RQ.produce.8, RQ.fetch.5): each try in the trace that created the operation ----------------

def _origin_of(operation: Any) -> Span:
    """The span the operation's first try ran in (its creator's RQ.produce.3 / RQ.fetch.3), remembered then."""
    origin = operation.__dict__.get(_ORIGIN)
    if origin is not None:
        return origin
    context = trace.get_current_span().get_span_context()
    if not context.is_valid:
        return own_trace()  # made outside any trace: each try is a trace of its own
    origin = NonRecordingSpan(context)
    operation.__dict__[_ORIGIN] = origin
    return origin


def _trigger_of(operation: Any) -> list[SpanContext]:
    """The span that made this try happen, when it is another trace's (an append, a fetcher, the reaper's none)."""
    origin = operation.__dict__.get(_ORIGIN)
    current = trace.get_current_span().get_span_context()
    if origin is None or not current.is_valid or not current.trace_flags.sampled:
        return []
    return [current] if current.trace_id != origin.get_span_context().trace_id else []


@parent("RQ.produce.8")
@safe(own_trace)
def _delayed_origin(s: Scope) -> Span:
    return _origin_of(s["self"])


@parent("RQ.fetch.5")
@safe(own_trace)
def _delayed_fetch_origin(s: Scope) -> Span:
    """As a delayed produce's; the origin is also kept on the operation's FetchParams, the one object its
    `onComplete` hands to the read again (RQ.fetch.4), so that read finds its trace on the timer thread too."""
    delayed = s["self"]
    origin = _origin_of(delayed)
    if origin.get_span_context().is_valid:
        delayed.params.__dict__[_ORIGIN] = origin  # FetchParams is a frozen dataclass: not through setattr
    return origin


@links("RQ.produce.8", "RQ.fetch.5")
def _delayed_trigger(s: Scope) -> list[SpanContext]:
    return _trigger_of(s["self"])


@start("RQ.produce.8")
def _delayed_produce(s: Scope) -> dict[str, Any]:
    status = s["self"].produce_metadata.produce_status
    return {"kafka.produce.acks": s["self"].produce_metadata.produce_required_acks,
            "kafka.partitions": _names(status),
            "kafka.partitions.pending": _names(tp for tp, st in status.items() if st.acks_pending)}


@end("RQ.produce.8")
def _delayed_produce_tried(s: Scope) -> dict[str, Any]:
    status = s["self"].produce_metadata.produce_status
    return {"kafka.delayed.completed": bool(s["result"]),
            "kafka.partitions.pending": _names(tp for tp, st in status.items() if st.acks_pending),
            "kafka.partitions.errors": sorted(f"{tp}:{st.response_status.error.name}" for tp, st in status.items()
                                              if not st.acks_pending)[:_MAX_NAMES]}


@start("RQ.fetch.5")
def _delayed_fetch(s: Scope) -> dict[str, Any]:
    delayed = s["self"]
    return {**_fetch_params(delayed.params),
            "kafka.partitions": _names(tp.topic_partition for tp, _ in delayed.fetch_partition_status)}


@end("RQ.fetch.5")
def _delayed_fetch_tried(s: Scope) -> dict[str, Any]:
    return {"kafka.delayed.completed": bool(s["result"])}


# -- the fetch path (RQ.fetch.1 .. RQ.fetch.4) -------------------------------------------------------------------------

def _fetch_params(params: Any) -> dict[str, Any]:
    return {"kafka.fetch.replica_id": params.replica_id, "kafka.fetch.from_follower": params.is_from_follower(),
            "kafka.fetch.max_wait_ms": params.max_wait_ms, "kafka.fetch.min_bytes": params.min_bytes,
            "kafka.fetch.max_bytes": params.max_bytes, "kafka.fetch.isolation": str(params.isolation.name)}


def _replica_id(body: Any) -> int:
    """FetchRequest.replicaId: in ReplicaState from v15 (KIP-903), a field of its own before."""
    replica_state = getattr(body, "replica_state", None)
    return int(replica_state.replica_id) if replica_state is not None else int(getattr(body, "replica_id", -1))


@links("RQ.fetch.1")
def _fetch_sender(s: Scope) -> list[SpanContext]:
    """A follower's fetch links the follower's fetch round (RQ.follower.1) its traceparent names; the fetch itself
    stays in its request's trace, one trace per client request (TRACING.md: a receiver names the sender's span as
    parent or link; a parent would put the leader's fetch steps inside the follower's round, out of FIDELITY's
    order)."""
    request = s["request"]
    sender = remote_span_context(request.traceparent)
    return [sender] if sender is not None and _replica_id(request.body()) >= 0 else []


@start("RQ.fetch.1")
def _fetch_request(s: Scope) -> dict[str, Any]:
    body = s["request"].body()
    return {"kafka.fetch.replica_id": _replica_id(body),
            "kafka.fetch.session.id": int(getattr(body, "session_id", 0)),
            "kafka.fetch.session.epoch": int(getattr(body, "session_epoch", -1)),
            "kafka.fetch.max_wait_ms": _ms(body.max_wait), "kafka.fetch.min_bytes": int(body.min_bytes),
            "kafka.partitions.count": sum(len(t.partitions) for t in body.topics)}


@start("RQ.fetch.2")
def _new_context(s: Scope) -> dict[str, Any]:
    metadata = s["req_metadata"]
    return {"kafka.fetch.session.id": metadata.session_id, "kafka.fetch.session.epoch": metadata.epoch,
            "kafka.fetch.from_follower": s["is_follower"], "kafka.partitions.count": len(s["fetch_data"]),
            "kafka.partitions.forgotten": len(s["to_forget"])}


@end("RQ.fetch.2")
def _context(s: Scope) -> dict[str, Any]:
    context = s["result"]
    if context is None:
        return {}
    attributes: dict[str, Any] = {"kafka.fetch.context": type(context).__name__}
    error = getattr(context, "error", None)  # SessionErrorContext
    if error is not None:
        attributes["kafka.error"] = error.name
    return attributes


@start("RQ.fetch.3")
def _fetch_messages(s: Scope) -> dict[str, Any]:
    fetch_infos = s["fetch_infos"]
    return {**_fetch_params(s["params"]), "kafka.partitions": _names(tp.topic_partition for tp, _ in fetch_infos),
            "kafka.partitions.count": len(fetch_infos)}


def _current_or_new_trace() -> Span:
    """The current span (the default parent), or a new trace's where none is current."""
    current = trace.get_current_span()
    return current if current.get_span_context().is_valid else NEW_TRACE


@parent("RQ.fetch.4")
@safe(_current_or_new_trace)
def _fetch_records_parent(s: Scope) -> Span:
    """A read inside the step that called it, except a delayed fetch's read again (`DelayedFetch.onComplete`) that
    runs outside the trace of the fetch that created the operation: on expiry, the purgatory's timer thread runs it in
    no trace at all. It belongs to that fetch's trace (FIDELITY RQ: a delayed fetch's `onComplete` stays in the trace
    of the request that created it), under the RQ.fetch.3 its tries are children of (RQ.fetch.5)."""
    origin = s["fetch_params"].__dict__.get(_ORIGIN)
    current = _current_or_new_trace()
    if origin is None or current.get_span_context().trace_id == origin.get_span_context().trace_id:
        return current
    return origin


@start("RQ.fetch.4")
def _fetch_records(s: Scope) -> dict[str, Any]:
    data = s["fetch_partition_data"]
    attributes = {**_tp(s["self"].topic_partition), **_fetch_params(s["fetch_params"]),
                  "kafka.fetch.offset": data.fetch_offset}
    if data.current_leader_epoch is not None:
        attributes["kafka.leader.epoch.current"] = data.current_leader_epoch
    if data.last_fetched_epoch is not None:
        attributes["kafka.leader.epoch.last_fetched"] = data.last_fetched_epoch
    return attributes


@end("RQ.fetch.4")
def _fetched_records(s: Scope) -> dict[str, Any]:
    info = s["result"]
    if info is None:
        return {}
    attributes = {"kafka.high_watermark": info.high_watermark, "kafka.log.end_offset": info.log_end_offset,
                  "kafka.log.start_offset": info.log_start_offset, "kafka.last_stable_offset": info.last_stable_offset,
                  "kafka.records.bytes": info.fetched_data.records.size_in_bytes()}
    if info.diverging_epoch is not None:
        attributes["kafka.diverging.epoch"] = int(info.diverging_epoch.epoch)
        attributes["kafka.diverging.end_offset"] = int(info.diverging_epoch.end_offset)
    return attributes


# -- the follower (RQ.follower.1, RQ.follower.2) -----------------------------------------------------------------------

@start("RQ.follower.1")
def _fetch_round(s: Scope) -> dict[str, Any]:
    fetcher = s["self"]
    return {"kafka.fetcher": fetcher.name, "kafka.fetcher.source.broker": fetcher.leader.broker_end_point().id,
            "kafka.partitions": _names(s["session_partitions"]),
            "kafka.partitions.count": len(s["session_partitions"])}


@start("RQ.follower.2")
def _truncate_on_fetch_response(s: Scope) -> dict[str, Any]:
    epoch_end_offsets = s["epoch_end_offsets"]
    return {"kafka.partitions": _names(epoch_end_offsets),
            "kafka.diverging": sorted(f"{tp}:{int(e.leader_epoch)}@{int(e.end_offset)}"
                                      for tp, e in epoch_end_offsets.items())[:_MAX_NAMES]}


@end("RQ.follower.2")
def _truncated_on_fetch_response(s: Scope) -> dict[str, Any]:
    """Where each partition was cut to: the offset it fetches from next (KIP-279's min of the two end offsets)."""
    fetcher = s["self"]
    states = [(str(tp), fetcher.fetch_state(tp)) for tp in s["epoch_end_offsets"]]
    return {"kafka.truncation.offsets": [int(state.fetch_offset) for _, state in sorted(states, key=lambda x: x[0])
                                         if state is not None][:_MAX_NAMES]}


# -- the ISR, through the controller (RQ.isr) --------------------------------------------------------------------------

@parent("RQ.isr")
@safe(own_trace)
def _isr_own_trace(s: Scope) -> Span:
    return own_trace()


@links("RQ.isr")
def _isr_cause(s: Scope) -> list[SpanContext]:
    return caller_link()


@start("RQ.isr")
def _submit_alter_partition(s: Scope) -> dict[str, Any]:
    partition, proposed = s["self"], s["proposed_isr_state"]
    sent = proposed.sent_leader_and_isr
    return {**_tp(partition.topic_partition), "kafka.isr.from": sorted(proposed.last_committed_state.isr),
            "kafka.isr.to": sorted(sent.isr), "kafka.isr.maximal": sorted(proposed.maximal_isr),
            "kafka.isr.change": "expand" if hasattr(proposed, "new_in_sync_replica_id") else "shrink",
            "kafka.leader.epoch": sent.leader_epoch,
            # 3.9 LeaderAndIsr; 1.0.2 kept the partition epoch as zk_version
            "kafka.partition.epoch": getattr(sent, "partition_epoch", getattr(sent, "zk_version", -1))}


# -- loading the logs (RQ.load.1, RQ.load.2) -------------------------------------------------------------------------

@start("RQ.load.1")
def _load_logs(s: Scope) -> dict[str, Any]:
    return {"kafka.log.dirs": [str(d) for d in s["self"].live_log_dirs()]}


@end("RQ.load.1")
def _logs_loaded(s: Scope) -> dict[str, Any]:
    return {"kafka.log.count": len(s["self"].all_logs())}


@start("RQ.load.2")
def _load_log(s: Scope) -> dict[str, Any]:
    loader = s["self"]
    return {"kafka.log.dir": loader.log_ident.removeprefix("[LogLoader ").rstrip("] "),
            "kafka.log.recovery_point": loader._recovery_point_checkpoint,
            "kafka.log.clean_shutdown": loader._had_clean_shutdown}


@end("RQ.load.2")
def _log_loaded(s: Scope) -> dict[str, Any]:
    offsets = s["result"]
    if offsets is None:
        return {}
    return {"kafka.log.start_offset": offsets.log_start_offset, "kafka.log.recovery_point": offsets.recovery_point,
            "kafka.log.end_offset": offsets.next_offset_metadata.message_offset}


# -- the NW rows 3.9's network threads carry over (FIDELITY RQ's preamble) ---------------------------------------------
# Same ids and span names as 1.0.2's, so one describer per row: these take a 3.9 Processor, Acceptor or Response and
# hand anything else to the 1.0.2 describer in request_path.py.


def _is_3_9(network_object: Any) -> bool:
    """3.9's Processor owns its response queue (`enqueue_response`); 3.9's Response has no `response_action`."""
    return _is_3_9_class(type(network_object))


@functools.cache  # asked on every turn of a processor's loop: once per class
def _is_3_9_class(cls: type) -> bool:
    return hasattr(cls, "enqueue_response") or hasattr(cls, "on_complete")


@when("NW.processor.1")
def _has_new_connections(s: Scope) -> bool:
    processor = s["self"]
    if not _is_3_9(processor):
        return _nw._has_new_connections(s)
    return bool(processor._new_connections.queue)  # as Queue.empty, without its lock: a hint, read every turn


@start("NW.processor.1")
def _new_connections(s: Scope) -> dict[str, Any]:
    processor = s["self"]
    if not _is_3_9(processor):
        return _nw._new_connections(s)
    return {"kafka.processor.id": processor.id, "kafka.connections": processor._new_connections.qsize()}


@links("NW.processor.1")
def _accepts(s: Scope) -> list[Any]:
    processor = s["self"]
    if not _is_3_9(processor):
        return _nw._accepts(s)
    queued = list(processor._new_connections.queue)
    return [c for channel in queued if (c := accept_span_of(channel)) is not None]


@retro("NW.processor.3")
def _polled(s: Scope) -> dict[str, Any] | None:
    processor = s["self"]
    if not _is_3_9(processor):
        return _nw._polled(s)
    selector = processor.selector
    receives, sends, disconnected = selector.completed_receives(), selector.completed_sends(), selector.disconnected()
    if not (receives or sends or disconnected):
        return None  # a poll that found nothing is no span
    return {"kafka.processor.id": processor.id, "kafka.receives": len(receives),
            "kafka.sends": len(sends), "kafka.disconnected": len(disconnected)}


@when("NW.processor.5")
def _has_completed_sends(s: Scope) -> bool:
    processor = s["self"]
    return bool(processor.selector.completed_sends()) if _is_3_9(processor) else _nw._has_completed_sends(s)


@start("NW.processor.5")
def _completed_sends(s: Scope) -> dict[str, Any]:
    processor = s["self"]
    if not _is_3_9(processor):
        return _nw._completed_sends(s)
    return {"kafka.processor.id": processor.id, "kafka.sends": len(processor.selector.completed_sends())}


@when("NW.processor.6")
def _has_disconnected(s: Scope) -> bool:
    processor = s["self"]
    return bool(processor.selector.disconnected()) if _is_3_9(processor) else _nw._has_disconnected(s)


@start("NW.processor.6")
def _disconnected(s: Scope) -> dict[str, Any]:
    processor = s["self"]
    if not _is_3_9(processor):
        return _nw._disconnected(s)
    return {"kafka.processor.id": processor.id, "kafka.disconnected": len(processor.selector.disconnected())}


@parent("NW.channel.resp")
@safe(None)
def _responded_request(s: Scope) -> Any:
    return request_root(s["response"].request)


@start("NW.channel.resp")
def _response_action(s: Scope) -> dict[str, Any]:
    response = s["response"]
    if not _is_3_9(response):
        return _nw._response_action(s)
    # SendResponse -> "Send", NoOpResponse -> "NoOp", CloseConnectionResponse -> "CloseConnection", ...
    return {"kafka.processor.id": response.processor,
            "kafka.response.action": type(response).__name__.removesuffix("Response")}


@start("NW.apis.1")
def _api(s: Scope) -> dict[str, Any]:
    request = s["request"]
    if not is_3_9_request(request):
        return _nw._api(s)
    header = request.header
    return {"kafka.api.key": int(header.api_key), "kafka.api.name": header.api_key.api_name,
            "kafka.api.version": header.api_version}


@end("NW.apis.1")
def _api_outcome(s: Scope) -> dict[str, Any]:
    return _nw._api_outcome(s) if not is_3_9_request(s["request"]) else {}
