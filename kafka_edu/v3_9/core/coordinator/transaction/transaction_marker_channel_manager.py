"""Port of core/src/main/scala/kafka/coordinator/transaction/TransactionMarkerChannelManager.scala (Kafka 3.9).

The manager is an InterBrokerSendThread (the port's, in core/server/add_partitions_to_txn_manager.py): one
WriteTxnMarkers request per destination broker per round, carrying every marker queued for it. The clients' classes
it builds requests with, WriteTxnMarkersRequest.TxnMarkerEntry and WriteTxnMarkersRequest.Builder, have no port in
the 3.9 tree yet and are kept here (the request body is kio's). The UnknownDestinationQueueSize and
LogAppendRetryQueueSize gauges are not registered: the 3.9 tree has no metrics registry.

`apply` builds the NetworkClient of the port, a BlockingChannel per node; tests hand the constructor their own.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v1_0_2.core.network.blocking_channel import BlockingChannel
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.coordinator.transaction.transaction_marker_request_completion_handler import (
    TransactionMarkerRequestCompletionHandler,
)
from kafka_edu.v3_9.core.coordinator.transaction.transaction_metadata import TransactionMetadata, TxnTransitMetadata
from kafka_edu.v3_9.core.coordinator.transaction.transaction_state_manager import TransactionStateManager
from kafka_edu.v3_9.core.server.add_partitions_to_txn_manager import (
    InterBrokerSendThread,
    NetworkClient,
    RequestAndCompletionHandler,
)
from kafka_edu.v3_9.core.server.metadata.kraft_metadata_cache import NO_NODE
from kafka_edu.v3_9.core.server.request_local import RequestLocal
from kafka_edu.v3_9.raft.raft.voter_set import Node
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion

UNKNOWN_DESTINATION_QUEUE_SIZE_METRIC_NAME = "UnknownDestinationQueueSize"
LOG_APPEND_RETRY_QUEUE_SIZE_METRIC_NAME = "LogAppendRetryQueueSize"
METRIC_NAMES = frozenset({UNKNOWN_DESTINATION_QUEUE_SIZE_METRIC_NAME, LOG_APPEND_RETRY_QUEUE_SIZE_METRIC_NAME})



# -- clients: WriteTxnMarkersRequest.TxnMarkerEntry and Builder --------------------------------------------------------

@dataclass(frozen=True)
class TxnMarkerEntry:
    """One transaction's marker, for some partitions led by one broker."""

    producer_id: int
    producer_epoch: int
    coordinator_epoch: int
    transaction_result: TransactionResult
    partitions: tuple[TopicPartition, ...]

    def __str__(self) -> str:
        return (f"TxnMarkerEntry{{producerId={self.producer_id}, producerEpoch={self.producer_epoch}, "
                f"coordinatorEpoch={self.coordinator_epoch}, result={self.transaction_result.name}, "
                f"partitions={list(self.partitions)}}}")


def write_txn_markers_request_version(metadata_version: MetadataVersion) -> int:
    """MetadataVersion.writeTxnMarkersRequestVersion: v1 (flexible) from 2.8."""
    return 1 if metadata_version.is_at_least(MetadataVersion.IBP_2_8_IV0) else 0


@dataclass(frozen=True)
class WriteTxnMarkersRequestBuilder:
    """WriteTxnMarkersRequest.Builder(version, markers): the request goes at exactly that version."""

    version: int
    markers: tuple[TxnMarkerEntry, ...]
    api_key: ApiKeys = ApiKeys.WRITE_TXN_MARKERS

    @property
    def oldest_allowed_version(self) -> int:
        return self.version

    @property
    def latest_allowed_version(self) -> int:
        return self.version

    def build(self, version: int | None = None) -> Any:
        version = self.version if version is None else version
        markers = []
        for marker in self.markers:
            # topics in the order their first partition comes, as Kafka's grouping keeps it
            topics: dict[str, list[int]] = {}
            for tp in marker.partitions:
                topics.setdefault(str(tp.topic), []).append(tp.partition)
            markers.append(dict(producer_id=marker.producer_id, producer_epoch=marker.producer_epoch,
                                transaction_result=marker.transaction_result.id,
                                coordinator_epoch=marker.coordinator_epoch,
                                topics=[dict(name=name, partition_indexes=partitions)
                                        for name, partitions in topics.items()]))
        return build(self.api_key.request_schema(version), markers=markers)


# -- the manager ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PendingCompleteTxn:
    """A transaction whose markers are out: once all are written, its completion is appended to the log."""

    transactional_id: str
    coordinator_epoch: int
    txn_metadata: TransactionMetadata
    new_metadata: TxnTransitMetadata

    def __str__(self) -> str:
        return (f"PendingCompleteTxn(transactionalId={self.transactional_id}, "
                f"coordinatorEpoch={self.coordinator_epoch}, txnMetadata={self.txn_metadata}, "
                f"newMetadata={self.new_metadata})")


@dataclass(frozen=True)
class PendingCompleteTxnAndMarkerEntry:
    pending_complete_txn: PendingCompleteTxn
    txn_marker_entry: TxnMarkerEntry


class _BlockingQueue:
    """LinkedBlockingQueue as the manager uses it: add, size and drainTo, safe across threads."""

    def __init__(self) -> None:
        self._items: collections.deque[Any] = collections.deque()
        self._lock = threading.Lock()

    def add(self, item: Any) -> None:
        with self._lock:
            self._items.append(item)

    def size(self) -> int:
        with self._lock:
            return len(self._items)

    def is_empty(self) -> bool:
        return self.size() == 0

    def drain_to(self, out: list[Any]) -> None:
        with self._lock:
            out.extend(self._items)
            self._items.clear()

    def __iter__(self) -> Any:
        with self._lock:
            return iter(list(self._items))


class TxnMarkerQueue:
    """The markers waiting for one destination broker, per `__transaction_state` partition (so that a partition's
    markers can be dropped when it emigrates)."""

    def __init__(self, destination: Node) -> None:
        self.destination = destination
        self.log = Logging("kafka.coordinator.transaction.TxnMarkerQueue")
        self._markers_per_txn_topic_partition: dict[int, _BlockingQueue] = {}
        self._lock = threading.Lock()

    def remove_markers_for_txn_topic_partition(self, partition: int) -> _BlockingQueue | None:
        with self._lock:
            return self._markers_per_txn_topic_partition.pop(partition, None)

    def add_markers(self, txn_topic_partition: int,
                    pending_complete_txn_and_marker: PendingCompleteTxnAndMarkerEntry) -> None:
        with self._lock:
            queue = self._markers_per_txn_topic_partition.get(txn_topic_partition)
            if queue is None:
                self.log.info("Creating new marker queue for txn partition %s to destination broker %s",
                              txn_topic_partition, self.destination.id)
                queue = self._markers_per_txn_topic_partition[txn_topic_partition] = _BlockingQueue()
        queue.add(pending_complete_txn_and_marker)
        with self._lock:
            current = self._markers_per_txn_topic_partition.get(txn_topic_partition)
        if current is not queue:
            # the queue was removed meanwhile: the entry may be orphaned until the markers are sent again
            self.log.warning("Added %s to dead queue for txn partition %s to destination broker %s",
                             pending_complete_txn_and_marker, txn_topic_partition, self.destination.id)

    def for_each_txn_topic_partition(self, f: Callable[[int, _BlockingQueue], Any]) -> None:
        with self._lock:
            entries = list(self._markers_per_txn_topic_partition.items())
        for partition, queue in entries:
            if not queue.is_empty():
                f(partition, queue)

    def total_num_markers(self, txn_topic_partition: int | None = None) -> int:
        with self._lock:
            if txn_topic_partition is None:
                return sum(q.size() for q in self._markers_per_txn_topic_partition.values())
            queue = self._markers_per_txn_topic_partition.get(txn_topic_partition)
            return 0 if queue is None else queue.size()


class TransactionMarkerChannelManager(InterBrokerSendThread):
    """Sends the markers of completed transactions to the partitions' leaders, then has the transaction's completion
    appended to `__transaction_state`; a completion the log refused for now is retried on the next round."""

    def __init__(self, config: Any, metadata_cache: Any, network_client: Callable[[Node], NetworkClient],
                 txn_state_manager: TransactionStateManager, time: Any) -> None:
        super().__init__(f"TxnMarkerSenderThread-{config.broker_id}", network_client, config.request_timeout_ms,
                         time)
        self.config = config
        self.metadata_cache = metadata_cache
        self.txn_state_manager = txn_state_manager
        self.log = Logging("kafka.coordinator.transaction.TransactionMarkerChannelManager",
                           f"[Transaction Marker Channel Manager {config.broker_id}]: ")
        self.inter_broker_listener_name: str = config.inter_broker_listener_name().value()
        self._markers_queue_per_broker: dict[int, TxnMarkerQueue] = {}
        self._markers_queue_per_broker_lock = threading.Lock()
        self._markers_queue_for_unknown_broker = TxnMarkerQueue(NO_NODE)
        self._txn_log_append_retry_queue = _BlockingQueue()
        self._transactions_with_pending_markers: dict[str, PendingCompleteTxn] = {}
        self._pending_lock = threading.Lock()

    @staticmethod
    def apply(config: Any, metrics: Any, metadata_cache: Any, txn_state_manager: TransactionStateManager, time: Any,
              log_context: Any = None) -> TransactionMarkerChannelManager:
        """The broker's manager: a blocking connection per destination broker, with the inter-broker timeout."""
        def network_client(node: Node) -> NetworkClient:
            return BlockingChannel(node.host, node.port, config.request_timeout_ms / 1000,
                                   client_id=f"broker-{config.broker_id}-txn-marker-sender")
        return TransactionMarkerChannelManager(config, metadata_cache, network_client, txn_state_manager, time)

    def shutdown(self) -> None:
        try:
            super().shutdown()
            with self._markers_queue_per_broker_lock:
                self._markers_queue_per_broker.clear()
        finally:
            self._remove_metrics()

    def _remove_metrics(self) -> None:
        # no gauges were registered (no metrics registry in the 3.9 tree)
        pass

    def queue_for_broker(self, broker_id: int) -> TxnMarkerQueue | None:
        with self._markers_queue_per_broker_lock:
            return self._markers_queue_per_broker.get(broker_id)

    @property
    def queue_for_unknown_broker(self) -> TxnMarkerQueue:
        return self._markers_queue_for_unknown_broker

    def add_markers_for_broker(self, broker: Node, txn_topic_partition: int,
                               pending_complete_txn_and_marker: PendingCompleteTxnAndMarkerEntry) -> None:
        broker_id = broker.id
        # the destination node is updated without the enqueue: a race only means one more retry
        with self._markers_queue_per_broker_lock:
            broker_request_queue = self._markers_queue_per_broker.get(broker_id)
            if broker_request_queue is None:
                self.log.info("Creating new marker queue map to destination broker %s", broker_id)
                broker_request_queue = self._markers_queue_per_broker[broker_id] = TxnMarkerQueue(broker)
        broker_request_queue.destination = broker
        broker_request_queue.add_markers(txn_topic_partition, pending_complete_txn_and_marker)
        self.log.debug("Added marker %s for transactional id %s to destination broker %s",
                       pending_complete_txn_and_marker.txn_marker_entry,
                       pending_complete_txn_and_marker.pending_complete_txn.transactional_id, broker_id)

    def _retry_log_appends(self) -> None:
        txn_log_append_retries: list[PendingCompleteTxn] = []
        self._txn_log_append_retry_queue.drain_to(txn_log_append_retries)
        for txn_log_append in txn_log_append_retries:
            self.log.debug("Retry appending %s transaction log", txn_log_append)
            self._try_append_to_log(txn_log_append)

    def generate_requests(self) -> list[RequestAndCompletionHandler]:
        self._retry_log_appends()
        pending_entries: list[PendingCompleteTxnAndMarkerEntry] = []
        self._markers_queue_for_unknown_broker.for_each_txn_topic_partition(lambda _, q: q.drain_to(pending_entries))
        for pending_complete_txn_and_marker in pending_entries:
            marker = pending_complete_txn_and_marker.txn_marker_entry
            self.add_txn_markers_to_broker_queue(marker.producer_id, marker.producer_epoch,
                                                 marker.transaction_result,
                                                 pending_complete_txn_and_marker.pending_complete_txn,
                                                 set(marker.partitions))

        current_time_ms = self.time.milliseconds()
        with self._markers_queue_per_broker_lock:
            broker_queues = list(self._markers_queue_per_broker.values())
        requests = []
        for broker_request_queue in broker_queues:
            entries: list[PendingCompleteTxnAndMarkerEntry] = []
            broker_request_queue.for_each_txn_topic_partition(lambda _, q, entries=entries: q.drain_to(entries))
            if not entries:
                continue
            node = broker_request_queue.destination
            markers_to_send = tuple(e.txn_marker_entry for e in entries)
            request_completion_handler = TransactionMarkerRequestCompletionHandler(node.id, self.txn_state_manager,
                                                                                   self, entries)
            request = WriteTxnMarkersRequestBuilder(
                write_txn_markers_request_version(self.metadata_cache.metadata_version()), markers_to_send)
            requests.append(RequestAndCompletionHandler(current_time_ms, node, request, request_completion_handler))
        return requests

    def _write_txn_completion(self, pending_complete_txn: PendingCompleteTxn) -> None:
        transactional_id = pending_complete_txn.transactional_id
        txn_metadata = pending_complete_txn.txn_metadata
        new_metadata = pending_complete_txn.new_metadata
        coordinator_epoch = pending_complete_txn.coordinator_epoch
        self.log.debug("Completed sending transaction markers for %s; begin transition to %s", transactional_id,
                       new_metadata.txn_state)

        error, epoch_and_metadata = self.txn_state_manager.get_transaction_state(transactional_id)
        if error == Errors.NOT_COORDINATOR:
            self.log.info("No longer the coordinator for %s with coordinator epoch %s; cancel appending %s to "
                          "transaction log", transactional_id, coordinator_epoch, new_metadata)
        elif error == Errors.COORDINATOR_LOAD_IN_PROGRESS:
            self.log.info("Loading the transaction partition that contains %s while my current coordinator epoch is "
                          "%s; so cancel appending %s to transaction log since the loading process will continue the "
                          "remaining work", transactional_id, coordinator_epoch, new_metadata)
        elif error is not None:
            raise IllegalStateException(f"Unhandled error {error} when fetching current transaction state")
        elif epoch_and_metadata is not None:
            if epoch_and_metadata.coordinator_epoch == coordinator_epoch:
                self.log.debug("Sending %s's transaction markers for %s with coordinator epoch %s succeeded, trying "
                               "to append complete transaction log now", transactional_id, txn_metadata,
                               coordinator_epoch)
                self._try_append_to_log(PendingCompleteTxn(transactional_id, coordinator_epoch, txn_metadata,
                                                           new_metadata))
            else:
                self.log.info("The cached metadata %s has changed to %s after completed sending the markers with "
                              "coordinator epoch %s; abort transiting the metadata to %s as it may have been updated "
                              "by another process", txn_metadata, epoch_and_metadata, coordinator_epoch, new_metadata)
        else:
            error_msg = (f"The coordinator still owns the transaction partition for {transactional_id}, but there is "
                         "no metadata in the cache; this is not expected")
            self.log.critical(error_msg)
            raise IllegalStateException(error_msg)

    @step("TX.markers")
    def add_txn_markers_to_send(self, coordinator_epoch: int, txn_result: TransactionResult,
                                txn_metadata: TransactionMetadata, new_metadata: TxnTransitMetadata) -> None:
        transactional_id = txn_metadata.transactional_id
        pending_complete_txn = PendingCompleteTxn(transactional_id, coordinator_epoch, txn_metadata, new_metadata)
        with self._pending_lock:
            prev = self._transactions_with_pending_markers.get(transactional_id)
            self._transactions_with_pending_markers[transactional_id] = pending_complete_txn
        if prev is not None:
            self.log.info("Replaced an existing pending complete txn %s with %s while adding markers to send.", prev,
                          pending_complete_txn)
        self.add_txn_markers_to_broker_queue(txn_metadata.producer_id, txn_metadata.producer_epoch, txn_result,
                                             pending_complete_txn, set(txn_metadata.topic_partitions))
        self.maybe_write_txn_completion(transactional_id)

    @property
    def num_txns_with_pending_markers(self) -> int:
        with self._pending_lock:
            return len(self._transactions_with_pending_markers)

    def _has_pending_markers_to_write(self, txn_metadata: TransactionMetadata) -> bool:
        with txn_metadata.in_lock():
            return bool(txn_metadata.topic_partitions)

    def _remove_pending(self, transactional_id: str, pending_complete_txn: PendingCompleteTxn) -> bool:
        """ConcurrentHashMap.remove(key, value): only if it is still that very entry."""
        with self._pending_lock:
            if self._transactions_with_pending_markers.get(transactional_id) == pending_complete_txn:
                del self._transactions_with_pending_markers[transactional_id]
                return True
            return False

    def maybe_write_txn_completion(self, transactional_id: str) -> None:
        with self._pending_lock:
            pending_complete_txn = self._transactions_with_pending_markers.get(transactional_id)
        if pending_complete_txn is not None:
            if (not self._has_pending_markers_to_write(pending_complete_txn.txn_metadata)
                    and self._remove_pending(transactional_id, pending_complete_txn)):
                self._write_txn_completion(pending_complete_txn)

    def _try_append_to_log(self, txn_log_append: PendingCompleteTxn) -> None:
        def append_callback(error: Errors) -> None:
            if error == Errors.NONE:
                self.log.debug("Completed transaction for %s with coordinator epoch %s, final state after commit: %s",
                               txn_log_append.transactional_id, txn_log_append.coordinator_epoch,
                               txn_log_append.txn_metadata.state)
            elif error == Errors.NOT_COORDINATOR:
                self.log.info("No longer the coordinator for transactionalId: %s while trying to append to "
                              "transaction log, skip writing to transaction log", txn_log_append.transactional_id)
            elif error == Errors.COORDINATOR_NOT_AVAILABLE:
                self.log.info("Not available to append %s: possible causes include %s, %s, %s and %s; retry "
                              "appending", txn_log_append, Errors.UNKNOWN_TOPIC_OR_PARTITION,
                              Errors.NOT_ENOUGH_REPLICAS, Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
                              Errors.REQUEST_TIMED_OUT)
                # the next round of the send thread tries again
                self._txn_log_append_retry_queue.add(txn_log_append)
            elif error == Errors.COORDINATOR_LOAD_IN_PROGRESS:
                self.log.info("Coordinator is loading the partition %s and hence cannot complete append of %s; skip "
                              "writing to transaction log as the loading process should complete it",
                              self.txn_state_manager.partition_for(txn_log_append.transactional_id), txn_log_append)
            else:
                error_msg = (f"Unexpected error {error.exception_name} while appending to transaction log for "
                             f"{txn_log_append.transactional_id}")
                self.log.critical(error_msg)
                raise IllegalStateException(error_msg)

        self.txn_state_manager.append_transaction_to_log(
            txn_log_append.transactional_id, txn_log_append.coordinator_epoch, txn_log_append.new_metadata,
            append_callback, lambda e: e == Errors.COORDINATOR_NOT_AVAILABLE,
            RequestLocal.NO_CACHING)  # type: ignore[attr-defined]

    @step("TX39.markers")
    def add_txn_markers_to_broker_queue(self, producer_id: int, producer_epoch: int, result: TransactionResult,
                                        pending_complete_txn: PendingCompleteTxn,
                                        topic_partitions: Iterable[TopicPartition]) -> None:
        txn_topic_partition = self.txn_state_manager.partition_for(pending_complete_txn.transactional_id)
        partitions_by_destination: dict[Node | None, set[TopicPartition]] = {}
        for topic_partition in topic_partitions:
            leader = self.metadata_cache.get_partition_leader_endpoint(topic_partition.topic,
                                                                       topic_partition.partition,
                                                                       self.inter_broker_listener_name)
            partitions_by_destination.setdefault(leader, set()).add(topic_partition)

        coordinator_epoch = pending_complete_txn.coordinator_epoch
        for broker, partitions in partitions_by_destination.items():
            if broker is not None:
                marker = TxnMarkerEntry(producer_id, producer_epoch, coordinator_epoch, result,
                                        tuple(sorted(partitions, key=lambda tp: (str(tp.topic), tp.partition))))
                pending_complete_txn_and_marker = PendingCompleteTxnAndMarkerEntry(pending_complete_txn, marker)
                if broker == NO_NODE:
                    # the leader exists but has no endpoint here yet: the send thread looks again later
                    self._markers_queue_for_unknown_broker.add_markers(txn_topic_partition,
                                                                       pending_complete_txn_and_marker)
                else:
                    self.add_markers_for_broker(broker, txn_topic_partition, pending_complete_txn_and_marker)
                continue

            transactional_id = pending_complete_txn.transactional_id
            error, epoch_and_metadata = self.txn_state_manager.get_transaction_state(transactional_id)
            if error is not None:
                self.log.info("Encountered %s trying to fetch transaction metadata for %s with coordinator epoch %s; "
                              "cancel sending markers to its partition leaders", error, transactional_id,
                              coordinator_epoch)
                self._remove_pending(transactional_id, pending_complete_txn)
            elif epoch_and_metadata is not None:
                if epoch_and_metadata.coordinator_epoch != coordinator_epoch:
                    self.log.info("The cached metadata has changed to %s (old coordinator epoch is %s) since "
                                  "preparing to send markers; cancel sending markers to its partition leaders",
                                  epoch_and_metadata, coordinator_epoch)
                    self._remove_pending(transactional_id, pending_complete_txn)
                else:
                    # no leader at all: the partitions were most likely deleted, and need no marker
                    self.log.info("Couldn't find leader endpoint for partitions %s while trying to send transaction "
                                  "markers for %s, these partitions are likely deleted already and hence can be "
                                  "skipped", partitions, transactional_id)
                    txn_metadata = epoch_and_metadata.transaction_metadata
                    with txn_metadata.in_lock():
                        for topic_partition in partitions:
                            txn_metadata.remove_partition(topic_partition)
                    self.maybe_write_txn_completion(transactional_id)
            else:
                error_msg = (f"The coordinator still owns the transaction partition for {transactional_id}, but there "
                             "is no metadata in the cache; this is not expected")
                self.log.critical(error_msg)
                raise IllegalStateException(error_msg)

        self.wakeup()

    def remove_markers_for_txn_topic_partition(self, txn_topic_partition_id: int) -> None:
        queue = self._markers_queue_for_unknown_broker.remove_markers_for_txn_topic_partition(txn_topic_partition_id)
        if queue is not None:
            for entry in queue:
                self.log.info("Removing %s for txn partition %s to destination broker -1", entry,
                              txn_topic_partition_id)
                self.remove_markers_for_txn(entry.pending_complete_txn)

        with self._markers_queue_per_broker_lock:
            broker_queues = list(self._markers_queue_per_broker.items())
        for broker_id, broker_queue in broker_queues:
            queue = broker_queue.remove_markers_for_txn_topic_partition(txn_topic_partition_id)
            if queue is not None:
                for entry in queue:
                    self.log.info("Removing %s for txn partition %s to destination broker %s", entry,
                                  txn_topic_partition_id, broker_id)
                    self.remove_markers_for_txn(entry.pending_complete_txn)

    def remove_markers_for_txn(self, pending_complete_txn: PendingCompleteTxn) -> None:
        transactional_id = pending_complete_txn.transactional_id
        removed = self._remove_pending(transactional_id, pending_complete_txn)
        if not removed:
            with self._pending_lock:
                current = self._transactions_with_pending_markers.get(transactional_id)
            if current is not None:
                self.log.info("Failed to remove pending marker entry %s trying to remove %s", current,
                              pending_complete_txn)
