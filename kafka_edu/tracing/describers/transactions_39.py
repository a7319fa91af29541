"""Describers for the TX39 spans: what Kafka 3.9 adds to transactions on a KRaft broker (see
kafka_edu/tracing/attributes.py, and transactions.py for the TX rows, which 3.9's coordinator carries too: their
describers read argument names both versions share).

Traces:
- InitProducerId: TX39.init → TX.init (both on 3.9's handleInitProducerId: the KIP-360 story and the TX row) →
  TX39.pid, in the request's trace; the AllocateProducerIds a missing block sends is answered on the active
  controller, where TX39.pidctl runs in the controller's write event (linked to the broker's exchange through its
  request).
- A transactional produce: TX39.verify (ReplicaManager, on the partition leader, inside RQ.produce.2) → TX39.vsend
  (the check queued for the coordinator's node); the coordinator's TX39.vcheck joins the producer's trace through
  the traceparent its AddPartitionsToTxn request carried (the request's own trace links to it); TX39.guard, back on
  the leader, runs inside the append the verification's callback resumes (RQ.produce.5). A TxnOffsetCommit to the
  old group coordinator takes the same path for its `__consumer_offsets` partition.
- TX39.elect: the metadata publisher's change of the `__transaction_state` partitions this broker leads, a trace of
  its own linked to the publish (KR.publish) that made it.
- TX39.markers: inside TX.markers (addTxnMarkersToSend), the markers grouped by each partition's leader as the KRaft
  metadata cache knows it; again on the send thread for markers whose leader had no endpoint yet.

Attributes come from the traced call's arguments, its result and `self` (the coordinator's, log's or manager's state
as the call reads it); nothing reads a method's locals.
"""

from __future__ import annotations

import sys
from typing import Any

from kio.schema.errors import ErrorCode
from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, Span, SpanContext

from kafka_edu.tracing.attributes import Scope, caller_link, end, links, own_trace, parent, safe, start, when
from kafka_edu.tracing.requests import remote_span_context

TRANSACTION_STATE_TOPIC = "__transaction_state"
_MAX_NAMES = 100  # partitions listed on a span


def _names(topic_partitions: Any) -> list[str]:
    return sorted(f"{tp[0]}-{tp[1]}" for tp in topic_partitions)[:_MAX_NAMES]


def _as_usual() -> Span:
    """The span the call would have as parent anyway: the current one."""
    return trace.get_current_span()


def _error_name(error: Any) -> str:
    """An Errors member (the port's) or an error code, by Kafka's name."""
    if hasattr(error, "name"):
        return str(error.name).upper()
    known = ErrorCode._value2member_map_.get(int(error))
    return known.name.upper() if known is not None else "UNKNOWN_SERVER_ERROR"


# -- TX39.init: 3.9's handleInitProducerId (the KIP-360 checks) -----------------------------------------------------

@when("TX39.init")
def _transactional(s: Scope) -> bool:
    return s["transactional_id"] is not None


def _pair(producer_id_and_epoch: Any) -> tuple[int, int] | None:
    """The expected (producer id, epoch) of InitProducerId v3+: a ProducerIdAndEpoch, or the pair KafkaApis read."""
    if producer_id_and_epoch is None:
        return None
    if hasattr(producer_id_and_epoch, "producer_id"):
        return producer_id_and_epoch.producer_id, producer_id_and_epoch.epoch
    return tuple(producer_id_and_epoch)


def _txn_metadata(coordinator: Any, transactional_id: str | None) -> Any:
    """The coordinator's cached metadata of a transactional id, or None (not ours, loading, unknown)."""
    manager = coordinator.txn_manager
    if manager is None or not transactional_id:
        return None
    error, epoch_and_metadata = manager.get_transaction_state(transactional_id)
    return epoch_and_metadata.transaction_metadata if error is None and epoch_and_metadata is not None else None


@start("TX39.init")
def _init(s: Scope) -> dict[str, Any]:
    attributes = {"kafka.transactional.id": s["transactional_id"],
                  "kafka.txn.timeout.ms": s["transaction_timeout_ms"]}
    expected = _pair(s["expected_producer_id_and_epoch"])
    if expected is not None:
        attributes["kafka.producer.id.expected"], attributes["kafka.producer.epoch.expected"] = expected
    return attributes


@end("TX39.init")
def _initialized(s: Scope) -> dict[str, Any]:
    metadata = _txn_metadata(s["self"], s["transactional_id"])
    if metadata is None:
        return {}
    return {"kafka.producer.id": metadata.producer_id, "kafka.producer.epoch": metadata.producer_epoch,
            "kafka.txn.state": metadata.state.name,
            "kafka.txn.pending.state": metadata.pending_state.name if metadata.pending_state else ""}


# -- TX39.pid: a producer id from the broker's block (RPCProducerIdManager) -----------------------------------------

def _block(block: Any) -> str:
    return f"[{block.first_producer_id()}, {block.last_producer_id()}]" if block.size() > 0 else "none"


@start("TX39.pid")
def _pid(s: Scope) -> dict[str, Any]:
    manager = s["self"]
    return {"kafka.broker.id": manager.broker_id, "kafka.producer.id.block": _block(manager.current_producer_id_block)}


@end("TX39.pid")
def _pid_given(s: Scope) -> dict[str, Any]:
    manager = s["self"]
    attributes: dict[str, Any] = {"kafka.producer.id.block.requested": manager.request_in_flight}
    if s["result"] is not None:
        attributes["kafka.producer.id"] = s["result"]
    return attributes


# -- TX39.pidctl: the active controller hands out the next block (ProducerIdControlManager) ------------------------

@start("TX39.pidctl")
def _pidctl(s: Scope) -> dict[str, Any]:
    return {"kafka.broker.id": s["broker_id"], "kafka.broker.epoch": s["broker_epoch"]}


@end("TX39.pidctl")
def _pidctl_block(s: Scope) -> dict[str, Any]:
    result = s["result"]
    if result is None or result.response is None:
        return {}
    block = result.response
    return {"kafka.producer.id.block.first": block.first_producer_id(), "kafka.producer.id.block.size": block.size(),
            "kafka.producer.id.next": block.next_block_first_id(), "kafka.records": len(result.records)}


# -- TX39.verify: the leader starts verification for the partitions without an ongoing transaction -----------------

@when("TX39.verify")
@safe(False)
def _verifies(s: Scope) -> bool:
    replica_manager = s["self"]
    return (s["transactional_id"] is not None and replica_manager.add_partitions_to_txn_manager is not None
            and replica_manager.config.transaction_partition_verification_enable())


@start("TX39.verify")
def _verify(s: Scope) -> dict[str, Any]:
    replica_manager, producer_id = s["self"], s["producer_id"]
    partitions = list(s["topic_partition_batch_info"])
    ongoing = []
    for tp in partitions:
        log = replica_manager.local_log(tp)
        if log is not None and log.has_ongoing_transaction(producer_id):
            ongoing.append(tp)
    return {"kafka.transactional.id": s["transactional_id"], "kafka.producer.id": producer_id,
            "kafka.producer.epoch": s["producer_epoch"], "kafka.txn.partitions": _names(partitions),
            # these need no verification: the producer's transaction already wrote to them
            "kafka.txn.partitions.ongoing": _names(ongoing)}


# -- TX39.vsend: the check queued for the coordinator's node (AddPartitionsToTxnManager) ---------------------------

@start("TX39.vsend")
def _vsend(s: Scope) -> dict[str, Any]:
    manager, transactional_id = s["self"], s["transactional_id"]
    coordinator = manager._get_transaction_coordinator(manager.partition_for(transactional_id))
    attributes = {"kafka.transactional.id": transactional_id, "kafka.producer.id": s["producer_id"],
                  "kafka.producer.epoch": s["producer_epoch"], "kafka.txn.partitions": _names(s["topic_partitions"]),
                  "kafka.txn.coordinator.id": coordinator.id if coordinator is not None else -1}
    if coordinator is None:
        attributes["kafka.txn.verify.error"] = "COORDINATOR_NOT_AVAILABLE"
    return attributes


# -- TX39.txoffsets: a TxnOffsetCommit on the new group coordinator (GroupCoordinatorService) ----------------------

def _get(value: Any, name: str) -> Any:
    """A field of a request part, whether built as a message or handed over as a dict."""
    return value.get(name) if isinstance(value, dict) else getattr(value, name)


@start("TX39.txoffsets")
def _txoffsets(s: Scope) -> dict[str, Any]:
    request, service = s["request"], s["self"]
    attributes: dict[str, Any] = {
        "kafka.group.id": request.group_id, "kafka.transactional.id": request.transactional_id,
        "kafka.producer.id": request.producer_id, "kafka.producer.epoch": request.producer_epoch,
        "kafka.generation.id": request.generation_id, "kafka.member.id": request.member_id,
        "kafka.txn.offsets": sorted(f"{_get(t, 'name')}-{_get(p, 'partition_index')}@{_get(p, 'committed_offset')}"
                                    for t in request.topics for p in _get(t, "partitions"))[:_MAX_NAMES]}
    if service._is_active and request.group_id:
        attributes["kafka.topic.partition"] = str(service._topic_partition_for(request.group_id))
    return attributes


# -- TX39.vcheck: the coordinator answers a verify-only AddPartitionsToTxn -----------------------------------------

def _handled_request() -> Any:
    """The request this handler thread runs (KafkaRequestHandler's threadCurrentRequest), None off a handler."""
    handler = sys.modules.get("kafka_edu.v3_9.core.server.kafka_request_handler")
    return handler._thread_current_request() if handler is not None else None


@parent("TX39.vcheck")
@safe(_as_usual)
def _vcheck_parent(s: Scope) -> Span:
    """The verifying leader's span, when the AddPartitionsToTxn request carried its traceparent and this is the
    transaction that traceparent belongs to (the request's first); else the request's own trace."""
    request = _handled_request()
    sender = remote_span_context(getattr(request, "traceparent", None)) if request is not None else None
    if sender is None:
        return _as_usual()
    transactions = getattr(request.body(), "transactions", None) or ()
    if not transactions or transactions[0].transactional_id != s["transactional_id"]:
        return _as_usual()
    return NonRecordingSpan(sender)


@links("TX39.vcheck")
def _vcheck_links(s: Scope) -> list[SpanContext]:
    """The coordinator's handling of the request, when the check went into the producer's trace."""
    caller = caller_link()
    if caller and _vcheck_parent(s).get_span_context() != caller[0]:
        return caller
    return []


@start("TX39.vcheck")
def _vcheck(s: Scope) -> dict[str, Any]:
    partitions = [(tp[0], tp[1]) for tp in s["partitions"]]
    return {"kafka.transactional.id": s["transactional_id"] or "", "kafka.producer.id": s["producer_id"],
            "kafka.producer.epoch": s["producer_epoch"], "kafka.txn.partitions": _names(partitions)}


@end("TX39.vcheck")
def _vchecked(s: Scope) -> dict[str, Any]:
    """The coordinator's answer (AddPartitionsToTxnResponse.resultForTransaction's fields, noted by the call): the
    partitions it did not pass, by their error; the check writes nothing."""
    result = s.get("result")
    if result is None:
        return {}
    errors = sorted((f"{topic['name']}-{p['partition_index']}", _error_name(p["partition_error_code"]))
                    for topic in result["topic_results"] for p in topic["results_by_partition"])
    return {"kafka.txn.partition.errors": [f"{name}={error}" for name, error in errors if error != "NONE"][
        :_MAX_NAMES]}


# -- TX39.guard: the leader's append checks a transaction's first batch against its VerificationGuard -------------

def _guarded_batches(records: Any) -> list[Any]:
    return [batch for batch in records.batches()
            if batch.has_producer_id() and batch.is_transactional() and not batch.is_control_batch()]


@when("TX39.guard")
@safe(False)
def _guards(s: Scope) -> bool:
    """A client's or a coordinator's transactional data: what the check applies to (not markers, not replication)."""
    return s["origin"].name in ("CLIENT", "COORDINATOR") and bool(_guarded_batches(s["records"]))


@start("TX39.guard")
def _guard(s: Scope) -> dict[str, Any]:
    log, request_guard = s["self"], s["request_verification_guard"]
    producer_ids = sorted({batch.producer_id() for batch in _guarded_batches(s["records"])})
    needs_guard = [pid for pid in producer_ids if not log.has_ongoing_transaction(pid)]
    topic_partition = log.topic_partition()
    return {"kafka.topic": topic_partition.topic, "kafka.partition": topic_partition.partition,
            "kafka.append.origin": s["origin"].name, "kafka.producer.ids": producer_ids,
            # a producer's first batch of a transaction here: it must carry the guard verification created
            "kafka.txn.guard.required": bool(needs_guard),
            "kafka.txn.guard.matches": all(log.verification_guard(pid).verify(request_guard) for pid in needs_guard)}


@end("TX39.guard")
def _guarded(s: Scope) -> dict[str, Any]:
    result = s["result"]
    if result is None:  # refused: the span carries the InvalidTxnStateException
        return {}
    return {"kafka.txn.duplicate": result[2] is not None}


# -- TX39.elect: the publisher tells the transaction coordinator which partitions it leads ------------------------

def _led(image: Any, broker_id: int) -> dict[int, int]:
    """The `__transaction_state` partitions `broker_id` leads in `image`, with their leader epochs."""
    topic = image.topics.get_topic(TRANSACTION_STATE_TOPIC) if image is not None else None
    if topic is None:
        return {}
    return {partition_id: partition.leader_epoch for partition_id, partition in topic.partitions.items()
            if partition.leader == broker_id}


def _leadership_changes(s: Scope) -> tuple[dict[int, int], list[int]]:
    """What the update does to this broker's coordinator: partitions elected (with their epochs), partitions left."""
    broker_id = s["self"].broker_id
    before, after = _led(s["delta"].image(), broker_id), _led(s["image"], broker_id)
    elected = {p: epoch for p, epoch in after.items() if before.get(p) != epoch}
    return elected, sorted(p for p in before if p not in after)


@when("TX39.elect")
@safe(False)
def _elects(s: Scope) -> bool:
    if s["topic_name"] != TRANSACTION_STATE_TOPIC:
        return False
    elected, resigned = _leadership_changes(s)
    return bool(elected or resigned)


@parent("TX39.elect")
@safe(own_trace)
def _elect_parent(s: Scope) -> Span:
    return own_trace()


@links("TX39.elect")
def _elect_cause(s: Scope) -> list[SpanContext]:
    return caller_link()


@start("TX39.elect")
def _elect(s: Scope) -> dict[str, Any]:
    elected, resigned = _leadership_changes(s)
    return {"kafka.broker.id": s["self"].broker_id, "kafka.topic": TRANSACTION_STATE_TOPIC,
            "kafka.txn.partitions.elected": [f"{p}@{epoch}" for p, epoch in sorted(elected.items())],
            "kafka.txn.partitions.resigned": resigned}


# -- TX39.markers: the markers of one transaction, grouped by each partition's leader in the KRaft metadata cache -

@start("TX39.markers")
def _markers_by_leader(s: Scope) -> dict[str, Any]:
    manager, pending = s["self"], s["pending_complete_txn"]
    leaders = {}
    for tp in s["topic_partitions"]:
        leader = manager.metadata_cache.get_partition_leader_endpoint(tp.topic, tp.partition,
                                                                      manager.inter_broker_listener_name)
        leaders[f"{tp.topic}-{tp.partition}"] = "none" if leader is None else str(leader.id)
    # (the call's `result` argument is shadowed in a scope by the call's own result: the outcome is the transition's)
    outcome = "COMMIT" if pending.new_metadata.txn_state.name == "CompleteCommit" else "ABORT"
    return {"kafka.transactional.id": pending.transactional_id, "kafka.producer.id": s["producer_id"],
            "kafka.producer.epoch": s["producer_epoch"], "kafka.txn.result": outcome,
            "kafka.txn.coordinator.epoch": pending.coordinator_epoch,
            "kafka.txn.partitions": sorted(leaders)[:_MAX_NAMES],
            # -1: the leader is known but has no endpoint on the inter-broker listener yet (queued for later)
            "kafka.txn.marker.leaders": [f"{name}@{leaders[name]}" for name in sorted(leaders)][:_MAX_NAMES]}
