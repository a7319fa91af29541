"""Describers for the TX spans: exactly-once transactions (KIP-98, Kafka 1.0.2; see kafka_edu/tracing/attributes.py).

Two sections: the coordinator's side (TransactionCoordinator, TransactionStateManager, the marker channel, the group
coordinator's transactional offsets) and the partition leaders' side (WriteTxnMarkers: the control batch each leader
appends, the last stable offset it moves to, and the aborted-transaction index).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from kio.schema.errors import ErrorCode
from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, Span, SpanContext

from kafka_edu.tracing import attributes as _attributes
from kafka_edu.tracing.attributes import (
    NEW_TRACE,
    Scope,
    caller_link,
    end,
    links,
    on_event,
    own_trace,
    parent,
    start,
    when,
)
from kafka_edu.tracing.requests import remote_span_context

# -- the coordinator's side ------------------------------------------------------------------------------------------
#
# One transaction is one trace. The AddPartitionsToTxn (or AddOffsetsToTxn) that opens a transaction starts it: its
# TX.add span is the root, linked to the request it serves. Every later step of that transaction hangs under it,
# linked to whatever caused it: the next TX.add, TX.end (EndTxn, or the abort of a fenced or timed-out producer),
# TX.markers, each WriteTxnMarkers exchange (whose traceparent makes the partition leaders' TX.write its children),
# TX.complete; and TX.offsets when the group coordinator runs in the same broker (otherwise the TxnOffsetCommit stays
# in its request's trace). A transaction this broker did not see open (it became coordinator mid-way) continues in
# a trace that starts where this broker first acts on it.
#
# A state change (TX.state) is a short trace of its own, `TransactionMetadata.completeTransitionTo`, linked to the
# transaction's trace and to the span whose write made it durable: a transition is adopted when its
# `__transaction_state` record is acknowledged, on whichever thread completes that write.

_MEMORY = 1024


class _Anchor:
    """Where a transaction's later steps hang: its producer id, the span, and whether the transaction is still open
    (once its completion is written, only that write's retries and its state change still refer to it)."""

    __slots__ = ("producer_id", "context", "open")

    def __init__(self, producer_id: int, context: SpanContext) -> None:
        self.producer_id, self.context, self.open = producer_id, context, True


_anchors: OrderedDict[str, _Anchor] = OrderedDict()  # transactional id -> its transaction's anchor
_anchors_by_producer: OrderedDict[int, _Anchor] = OrderedDict()  # the same, for the group coordinator's side
_anchor_lock = threading.Lock()


def _remember_anchor(transactional_id: str, producer_id: int, context: SpanContext) -> None:
    anchor = _Anchor(producer_id, context)
    with _anchor_lock:
        _anchors[transactional_id] = anchor
        _anchors.move_to_end(transactional_id)
        _anchors_by_producer[producer_id] = anchor
        _anchors_by_producer.move_to_end(producer_id)
        while len(_anchors) > _MEMORY:
            _anchors.popitem(last=False)
        while len(_anchors_by_producer) > _MEMORY:
            _anchors_by_producer.popitem(last=False)


def _anchor(transactional_id: str | None, producer_id: int | None = None,
            closed_too: bool = False) -> SpanContext | None:
    """The open transaction's anchor (or a completed one's, with `closed_too`) for this id and producer id."""
    with _anchor_lock:
        entry = _anchors.get(transactional_id) if transactional_id else None
    if entry is None or (producer_id is not None and entry.producer_id != producer_id) \
            or not (entry.open or closed_too):
        return None
    return entry.context


def _close_anchor(transactional_id: str) -> None:
    with _anchor_lock:
        entry = _anchors.get(transactional_id)
        if entry is not None:
            entry.open = False


def _as_usual() -> Span:
    """The parent a span would have anyway: the current span, or none (a root)."""
    current = trace.get_current_span()
    return current if current.get_span_context().is_valid else NEW_TRACE


def _under(context: SpanContext | None) -> Span:
    return NonRecordingSpan(context) if context is not None else _as_usual()


def _link_if_elsewhere(parent_of: Callable[[Scope], Span]) -> Callable[[Scope], list[SpanContext]]:
    """A links describer: the span running at the call, when the step's span is not its child (it went into the
    transaction's trace, or a trace of its own)."""
    def describe(s: Scope) -> list[SpanContext]:
        caller = caller_link()
        if caller and parent_of(s).get_span_context() != caller[0]:
            return caller
        return []
    return describe


def _current_context() -> SpanContext:
    return trace.get_current_span().get_span_context()


def _is_root() -> bool:
    """At an end describer: the span ending is the root of its trace."""
    current = trace.get_current_span()
    return current.get_span_context().is_valid and getattr(current, "parent", True) is None


def _metadata(s: Scope, transactional_id: str | None) -> Any:
    """The coordinator's cached metadata of the transactional id, or None (not ours, loading, unknown)."""
    manager = s["self"].txn_manager
    if manager is None or not transactional_id:
        return None
    error, epoch_and_metadata = manager.get_transaction_state(transactional_id)
    return epoch_and_metadata.transaction_metadata if error is None and epoch_and_metadata is not None else None


def _names(topic_partitions: Any) -> list[str]:
    return [str(tp) for tp in sorted(topic_partitions)]


def _in(state: Any, *names: str) -> bool:
    """A TransactionState is one of these (each state is one object, named after Kafka's)."""
    return state is not None and state.name in names


def _error_name(code: int) -> str:
    """An error code's name in Kafka's Errors (kio's ErrorCode has the same names); an unknown code reads as
    UNKNOWN_SERVER_ERROR, as Errors.forCode reads it."""
    known = ErrorCode._value2member_map_.get(code)
    return known.name.upper() if known is not None else "UNKNOWN_SERVER_ERROR"


# TX.init: InitProducerId with a transactional id (an idempotent producer's gets no span)

@when("TX.init")
def _transactional(s: Scope) -> bool:
    return s["transactional_id"] is not None


@start("TX.init")
def _init(s: Scope) -> dict[str, Any]:
    return {"kafka.transactional.id": s["transactional_id"], "kafka.txn.timeout.ms": s["transaction_timeout_ms"]}


@end("TX.init")
def _initialized(s: Scope) -> dict[str, Any]:
    metadata = _metadata(s, s["transactional_id"])
    if metadata is None:
        return {}
    # the epoch it was given, or (while its write is acknowledged) the one it is being given
    return {"kafka.producer.id": metadata.producer_id, "kafka.producer.epoch": metadata.producer_epoch,
            "kafka.txn.state": metadata.state.name,
            "kafka.txn.pending.state": metadata.pending_state.name if metadata.pending_state else ""}


# TX.add: the first partitions of a transaction start its trace; more partitions join it

def _opens_transaction(s: Scope, metadata: Any) -> bool:
    return _in(metadata.state, "Empty", "CompleteCommit", "CompleteAbort")


def _valid_add(s: Scope, metadata: Any) -> bool:
    return (metadata is not None and metadata.producer_id == s["producer_id"]
            and metadata.producer_epoch == s["producer_epoch"] and metadata.pending_state is None)


@parent("TX.add")
@_attributes.safe(_as_usual)
def _add_parent(s: Scope) -> Span:
    metadata = _metadata(s, s["transactional_id"])
    if not _valid_add(s, metadata):
        return _as_usual()  # refused: it stays in its request's trace
    if _opens_transaction(s, metadata):
        return own_trace()
    if _in(metadata.state, "Ongoing"):
        context = _anchor(s["transactional_id"], s["producer_id"])
        return NonRecordingSpan(context) if context is not None else own_trace()
    return _as_usual()


links("TX.add")(_link_if_elsewhere(_add_parent))


@start("TX.add")
def _add(s: Scope) -> dict[str, Any]:
    return {"kafka.transactional.id": s["transactional_id"] or "", "kafka.producer.id": s["producer_id"],
            "kafka.producer.epoch": s["producer_epoch"], "kafka.txn.partitions": _names(s["partitions"])}


@end("TX.add")
def _added(s: Scope) -> dict[str, Any]:
    metadata = _metadata(s, s["transactional_id"])
    if _is_root() and metadata is not None:  # this TX.add opened the transaction: its trace is the transaction's
        _remember_anchor(s["transactional_id"], s["producer_id"], _current_context())
    return {"kafka.txn.state": metadata.state.name} if metadata is not None else {}


# TX.end: EndTxn, or the abort a fence (TX.init) or a timeout (TX.expire) starts

def _ends_transaction(s: Scope, metadata: Any) -> bool:
    """It will decide the open transaction (a retry against a decided one stays in its request's trace)."""
    return (metadata is not None and metadata.producer_id == s["producer_id"]
            and s["producer_epoch"] >= metadata.producer_epoch and _in(metadata.state, "Ongoing"))


@parent("TX.end")
@_attributes.safe(_as_usual)
def _end_parent(s: Scope) -> Span:
    metadata = _metadata(s, s["transactional_id"])
    if not _ends_transaction(s, metadata):
        return _as_usual()
    context = _anchor(s["transactional_id"], s["producer_id"])
    if context is not None:
        return NonRecordingSpan(context)
    current = trace.get_current_span()
    if getattr(current, "attributes", {}).get("kafka.step") in ("TX.init", "TX.expire"):
        return current  # the abort of a fence or a timeout, in that story's trace
    return own_trace()


links("TX.end")(_link_if_elsewhere(_end_parent))


@start("TX.end")
def _end(s: Scope) -> dict[str, Any]:
    return {"kafka.transactional.id": s["transactional_id"] or "", "kafka.producer.id": s["producer_id"],
            "kafka.producer.epoch": s["producer_epoch"], "kafka.txn.result": s["txn_marker_result"].name}


@end("TX.end")
def _ended(s: Scope) -> dict[str, Any]:
    metadata = _metadata(s, s["transactional_id"])
    if metadata is None:
        return {}
    prepared = ("PrepareCommit", "PrepareAbort")
    if _anchor(s["transactional_id"], s["producer_id"]) is None and metadata.producer_id == s["producer_id"] \
            and (_in(metadata.state, *prepared) or _in(metadata.pending_state, *prepared)):
        _remember_anchor(s["transactional_id"], s["producer_id"], _current_context())
    return {"kafka.txn.state": metadata.state.name, "kafka.txn.partitions": _names(metadata.topic_partitions)}


# TX.markers: queue the markers for each partition's leader

# (1.0.2's addTxnMarkersToSend names the transactional id, 3.9's does not: both read it off the metadata)

@parent("TX.markers")
@_attributes.safe(_as_usual)
def _markers_parent(s: Scope) -> Span:
    return _under(_anchor(s["txn_metadata"].transactional_id, s["txn_metadata"].producer_id))


links("TX.markers")(_link_if_elsewhere(_markers_parent))


@start("TX.markers")
def _markers_queued(s: Scope) -> dict[str, Any]:
    metadata = s["txn_metadata"]
    return {"kafka.transactional.id": metadata.transactional_id, "kafka.producer.id": metadata.producer_id,
            "kafka.producer.epoch": metadata.producer_epoch, "kafka.txn.result": s["txn_result"].name,
            "kafka.txn.coordinator.epoch": s["coordinator_epoch"],
            "kafka.txn.partitions": _names(metadata.topic_partitions)}


@end("TX.markers")
def _markers_anchor(s: Scope) -> dict[str, Any]:
    transactional_id, producer_id = s["txn_metadata"].transactional_id, s["txn_metadata"].producer_id
    if _anchor(transactional_id, producer_id) is None:  # e.g. a prepared transaction found by a load
        _remember_anchor(transactional_id, producer_id, _current_context())
    return {}


@parent("InterBrokerSendThread.doWork#send")
@_attributes.safe(_as_usual)
def _send_parent(s: Scope) -> Span:
    markers = s["request"].markers
    first = markers[0] if markers else None
    return _under(_anchor(first.txn_id, first.txn_marker_entry.producer_id) if first else None)


@links("InterBrokerSendThread.doWork#send")
def _other_transactions(s: Scope) -> list[SpanContext]:
    """One request carries the markers of every transaction queued for that broker: the others' traces."""
    contexts = [_anchor(m.txn_id, m.txn_marker_entry.producer_id) for m in s["request"].markers[1:]]
    return [c for c in contexts if c is not None]


@start("InterBrokerSendThread.doWork#send")
def _send(s: Scope) -> dict[str, Any]:
    destination, markers = s["request"].destination, s["request"].markers
    return {"kafka.broker.id": destination.id, "kafka.api.name": "WriteTxnMarkers",
            "kafka.transactional.ids": [m.txn_id for m in markers],
            "kafka.txn.partitions": _names(tp for m in markers for tp in m.txn_marker_entry.partitions)}


@end("InterBrokerSendThread.doWork#send")
def _sent(s: Scope) -> dict[str, Any]:
    response = s["result"]
    if response is None or response.disconnected:
        return {"kafka.disconnected": True}
    # WriteTxnMarkersResponse.errors: producer id -> each partition's error code
    errors = {marker.producer_id: {(topic.name, p.partition_index): p.error_code for topic in marker.topics
                                   for p in topic.partitions} for marker in response.response_body.markers}
    return {"kafka.txn.partition.errors": [f"{topic}-{partition}={_error_name(code)}"
                                           for codes in errors.values()
                                           for (topic, partition), code in sorted(codes.items())]}


# TX.complete: the write of CompleteCommit or CompleteAbort (appendTransactionToLog's other writes get no span)

@when("TX.complete")
def _completes(s: Scope) -> bool:
    return _in(s["new_metadata"].txn_state, "CompleteCommit", "CompleteAbort")


@parent("TX.complete")
@_attributes.safe(_as_usual)
def _complete_parent(s: Scope) -> Span:
    return _under(_anchor(s["transactional_id"], s["new_metadata"].producer_id, closed_too=True))


links("TX.complete")(_link_if_elsewhere(_complete_parent))


@start("TX.complete")
def _complete(s: Scope) -> dict[str, Any]:
    _close_anchor(s["transactional_id"])  # the transaction is decided and marked: nothing more joins it
    new_metadata = s["new_metadata"]
    return {"kafka.transactional.id": s["transactional_id"], "kafka.producer.id": new_metadata.producer_id,
            "kafka.producer.epoch": new_metadata.producer_epoch, "kafka.txn.state": new_metadata.txn_state.name,
            "kafka.txn.coordinator.epoch": s["coordinator_epoch"]}


# TX.expire: one timed-out transaction (TransactionalIdAndProducerIdEpoch, handed as `txn`), aborted

@parent("TX.expire")
@_attributes.safe(_as_usual)
def _expire_parent(s: Scope) -> Span:
    txn = s["txn"]
    context = _anchor(txn.transactional_id, txn.producer_id)
    return NonRecordingSpan(context) if context is not None else own_trace()


links("TX.expire")(_link_if_elsewhere(_expire_parent))


@start("TX.expire")
def _expire(s: Scope) -> dict[str, Any]:
    txn = s["txn"]
    return {"kafka.transactional.id": txn.transactional_id, "kafka.producer.id": txn.producer_id,
            "kafka.producer.epoch": txn.producer_epoch}


# TX.offsets: the group coordinator's TxnOffsetCommit

@parent("TX.offsets")
@_attributes.safe(_as_usual)
def _offsets_parent(s: Scope) -> Span:
    with _anchor_lock:
        anchor = _anchors_by_producer.get(s["producer_id"])
    return _under(anchor.context if anchor is not None and anchor.open else None)


links("TX.offsets")(_link_if_elsewhere(_offsets_parent))


@start("TX.offsets")
def _offsets(s: Scope) -> dict[str, Any]:
    return {"kafka.group.id": s["group_id"] or "", "kafka.producer.id": s["producer_id"],
            "kafka.producer.epoch": s["producer_epoch"],
            "kafka.offsets": [f"{tp}={offset.offset}" for tp, offset in sorted(s["offset_metadata"].items())]}


# TX.state: each adopted transition, in a short trace of its own

@parent("TransactionMetadata.completeTransitionTo")
@_attributes.safe(_as_usual)
def _transition_parent(s: Scope) -> Span:
    return own_trace()


@links("TransactionMetadata.completeTransitionTo")
def _transition_causes(s: Scope) -> list[SpanContext]:
    metadata = s["self"]
    context = _anchor(metadata.transactional_id, s["transit_metadata"].producer_id, closed_too=True)
    return caller_link() + ([context] if context is not None else [])


@start("TransactionMetadata.completeTransitionTo")
def _transition(s: Scope) -> dict[str, Any]:
    metadata, transit = s["self"], s["transit_metadata"]
    return {"kafka.transactional.id": metadata.transactional_id, "kafka.producer.id": transit.producer_id,
            "kafka.producer.epoch": transit.producer_epoch, "kafka.txn.state": transit.txn_state.name}


@on_event("txn.state.change")
def _state_change(s: Scope) -> dict[str, Any]:
    metadata, transit = s["self"], s["transit_metadata"]  # before the state is set
    return {"kafka.transactional.id": metadata.transactional_id, "kafka.txn.state.from": metadata.state.name,
            "kafka.txn.state.to": transit.txn_state.name, "kafka.producer.id": transit.producer_id,
            "kafka.producer.epoch": transit.producer_epoch,
            "kafka.txn.partitions": _names(transit.topic_partitions)}


# The load of a __transaction_state partition this broker now leads (a trace of its own, linked to the LeaderAndIsr)

@start("TransactionStateManager.loadTransactionsForTxnTopicPartition#loadTransactions")
def _load(s: Scope) -> dict[str, Any]:
    topic_partition = s["topic_partition"]
    return {"kafka.topic": topic_partition.topic, "kafka.partition": topic_partition.partition,
            "kafka.txn.coordinator.epoch": s["partition_and_leader_epoch"].coordinator_epoch}


@links("TransactionStateManager.loadTransactionsForTxnTopicPartition#loadTransactions")
def _load_cause(s: Scope) -> list[SpanContext]:
    from kafka_edu.tracing.describers.replication import changed_by
    context = changed_by(s["topic_partition"])
    return [context] if context is not None else []


@end("TransactionStateManager.loadTransactionsForTxnTopicPartition#loadTransactions")
def _loaded(s: Scope) -> dict[str, Any]:
    entry = s["self"].transaction_metadata_cache.get(s["topic_partition"].partition)
    return {"kafka.txn.ids.loaded": len(entry.metadata_per_transactional_id) if entry is not None else 0}



# -- the partition leaders' side: KafkaApis.handleWriteTxnMarkersRequest (TX.write) ----------------------------------
#
# The span of each partition leader's handling is a child of the coordinator's send, through the traceparent its
# WriteTxnMarkers header carried (v0, in the client id's suffix): one transaction is one trace, from the producer's
# requests to every marker. Without one (an untraced sender, a coordinator that is not kafka-edu) it stays in the
# request's own trace.


@parent("TX.write")
def _marker_sender(s: Scope) -> Any:
    context = remote_span_context(getattr(s["request"], "traceparent", None))
    return NonRecordingSpan(context) if context is not None else trace.get_current_span()


def _marker_partitions(markers: Any) -> list[tuple[str, int]]:
    """Each marker's partitions, as (topic, partition): a TopicPartition is that tuple (a NamedTuple)."""
    return [(topic.name, partition) for marker in markers for topic in marker.topics
            for partition in topic.partition_indexes]


def _tp_name(topic_partition: tuple[str, int]) -> str:
    return "{}-{}".format(*topic_partition)


@start("TX.write")
def _markers(s: Scope) -> dict[str, Any]:
    markers = s["request"].body.markers
    return {"kafka.txn.markers": len(markers),
            "kafka.producer.ids": [m.producer_id for m in markers],
            "kafka.producer.epochs": [m.producer_epoch for m in markers],
            "kafka.txn.results": ["COMMIT" if m.transaction_result else "ABORT" for m in markers],
            "kafka.txn.coordinator.epochs": [m.coordinator_epoch for m in markers],
            "kafka.txn.partitions": [_tp_name(tp) for tp in _marker_partitions(markers)]}


@end("TX.write")
def _markers_written(s: Scope) -> dict[str, Any]:
    """Where each partition led here stands after the appends: its log end, last stable offset and high watermark,
    and whether an aborted transaction of the marker's producer is now the last entry of its transaction index."""
    replica_manager = s["self"].replica_manager
    written, aborts_indexed = [], []
    for marker in s["request"].body.markers:
        for tp in _marker_partitions([marker]):
            partition = replica_manager.get_partition(tp)
            replica = partition.leader_replica_if_local() if partition is not None else None
            if replica is None or replica.log is None:
                continue
            log = replica.log
            written.append(f"{_tp_name(tp)} leo={log.log_end_offset} lso={replica.last_stable_offset} "
                           f"hw={replica.high_watermark}")
            if not marker.transaction_result:
                entries = log.active_segment.txn_index.all_aborted_txns()
                if entries and entries[-1].producer_id == marker.producer_id:
                    last = entries[-1]
                    aborts_indexed.append(f"{_tp_name(tp)} producer={last.producer_id} first={last.first_offset} "
                                          f"marker={last.last_offset} lso={last.last_stable_offset}")
    return {"kafka.txn.partitions.written": written, "kafka.txn.aborts.indexed": aborts_indexed}
