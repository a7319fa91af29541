"""Describers for the TX spans: exactly-once transactions (KIP-98, Kafka 1.0.2; see kafka_edu/tracing/attributes.py).

Two sections: the coordinator's side (TransactionCoordinator, TransactionStateManager, the marker channel, the group
coordinator's transactional offsets) and the partition leaders' side (WriteTxnMarkers: the control batch each leader
appends, the last stable offset it moves to, and the aborted-transaction index).
"""

from __future__ import annotations

from typing import Any

from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan

from kafka_edu.tracing.attributes import Scope, end, parent, start
from kafka_edu.tracing.requests import remote_span_context

# -- the coordinator's side ------------------------------------------------------------------------------------------


# -- the partition leaders' side: KafkaApis.handleWriteTxnMarkersRequest (TX.write) ----------------------------------
#
# The span of each partition leader's handling is a child of the coordinator's send, through the traceparent its
# WriteTxnMarkers header carried (v1): one transaction is one trace, from the producer's requests to every marker.
# Without one (a v0 request, an untraced sender) it stays in the request's own trace.


@parent("TX.write")
def _marker_sender(s: Scope) -> Any:
    context = remote_span_context(getattr(s["request"], "traceparent", None))
    return NonRecordingSpan(context) if context is not None else trace.get_current_span()


def _marker_partitions(markers: Any) -> list[Any]:
    from kafka_edu.log.log import TopicPartition
    return [TopicPartition(topic.name, partition) for marker in markers for topic in marker.topics
            for partition in topic.partition_indexes]


@start("TX.write")
def _markers(s: Scope) -> dict[str, Any]:
    markers = s["request"].body.markers
    return {"kafka.txn.markers": len(markers),
            "kafka.producer.ids": [m.producer_id for m in markers],
            "kafka.producer.epochs": [m.producer_epoch for m in markers],
            "kafka.txn.results": ["COMMIT" if m.transaction_result else "ABORT" for m in markers],
            "kafka.txn.coordinator.epochs": [m.coordinator_epoch for m in markers],
            "kafka.txn.partitions": [str(tp) for tp in _marker_partitions(markers)]}


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
            written.append(f"{tp} leo={log.log_end_offset} lso={replica.last_stable_offset} "
                           f"hw={replica.high_watermark}")
            if not marker.transaction_result:
                entries = log.active_segment.txn_index.all_aborted_txns()
                if entries and entries[-1].producer_id == marker.producer_id:
                    last = entries[-1]
                    aborts_indexed.append(f"{tp} producer={last.producer_id} first={last.first_offset} "
                                          f"marker={last.last_offset} lso={last.last_stable_offset}")
    return {"kafka.txn.partitions.written": written, "kafka.txn.aborts.indexed": aborts_indexed}
