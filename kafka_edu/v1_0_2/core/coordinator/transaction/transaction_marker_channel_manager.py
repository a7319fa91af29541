"""Port of core/src/main/scala/kafka/coordinator/transaction/TransactionMarkerChannelManager.scala (Kafka 1.0.2; read:
a 1.0.x copy with the unknown-broker queue and the log-append retry queue), with the thread it runs on,
core/src/main/scala/kafka/common/InterBrokerSendThread.scala (1.0.2).

The network part of 1.0.2's NetworkClient is kafka-edu's BlockingChannel, one per destination broker: the send thread
sends each WriteTxnMarkers request and waits for its answer before the next. WriteTxnMarkers goes out at version 0,
1.0.2's only one; its header carries the traceparent of the send in the client id (codec.py), so each partition
leader's handling joins the transaction's trace.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from itertools import groupby
from typing import TYPE_CHECKING, Any, Protocol

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v1_0_2.core.coordinator.transaction.delayed_txn_marker import DelayedTxnMarker
from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_marker_request_completion_handler import (
    TransactionMarkerRequestCompletionHandler,
)
from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_metadata import TransactionMetadata, TxnTransitMetadata
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.network.blocking_channel import BlockingChannel
from kafka_edu.v1_0_2.core.server.metadata_cache import NO_NODE
from kafka_edu.v1_0_2.core.utils.shutdownable_thread import ShutdownableThread
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.core.server.node_to_controller_channel_manager import ClientResponse
from kafka_edu.v3_9.raft.raft.voter_set import Node

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_state_manager import TransactionStateManager
    from kafka_edu.v1_0_2.core.server.delayed_operation import DelayedOperationPurgatory
    from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
    from kafka_edu.v1_0_2.core.server.metadata_cache import MetadataCache

log = logging.getLogger("kafka.coordinator.transaction.TransactionMarkerChannelManager")

# 1.0.2's only version; its header carries the traceparent of the send in the client id.
WRITE_TXN_MARKERS_VERSION = 0
RECONNECT_BACKOFF_MS = 50  # reconnect.backoff.ms's default: a node that refused us is not tried again before this
RETRY_POLL_MS = 100  # how soon the send thread looks again while a log append waits to be retried


@dataclass(frozen=True)
class TxnMarkerEntry:
    """WriteTxnMarkersRequest.TxnMarkerEntry: one transaction's marker, for some partitions of one leader."""

    producer_id: int
    producer_epoch: int
    coordinator_epoch: int
    transaction_result: TransactionResult
    partitions: tuple[TopicPartition, ...]


@dataclass(frozen=True)
class TxnIdAndMarkerEntry:
    txn_id: str
    txn_marker_entry: TxnMarkerEntry


@dataclass(frozen=True)
class TxnLogAppend:
    transactional_id: str
    coordinator_epoch: int
    txn_metadata: TransactionMetadata
    new_metadata: TxnTransitMetadata


class RequestCompletionHandler(Protocol):
    def on_complete(self, response: ClientResponse) -> None: ...


@dataclass(frozen=True)
class RequestAndCompletionHandler:
    """kafka.common.RequestAndCompletionHandler: where to send which markers, and who reads the answer."""

    destination: Node
    markers: tuple[TxnIdAndMarkerEntry, ...]
    handler: RequestCompletionHandler


def write_txn_markers_request(markers: list[TxnMarkerEntry]) -> Any:
    """WriteTxnMarkersRequest.Builder(markers): the request body, at WRITE_TXN_MARKERS_VERSION."""
    schema = ApiKeys.WRITE_TXN_MARKERS.request_schema(WRITE_TXN_MARKERS_VERSION)
    return build(schema, markers=[dict(
        producer_id=marker.producer_id, producer_epoch=marker.producer_epoch,
        transaction_result=marker.transaction_result.id, coordinator_epoch=marker.coordinator_epoch,
        topics=[dict(name=topic, partition_indexes=[tp.partition for tp in tps])
                for topic, tps in groupby(sorted(marker.partitions), key=lambda tp: tp.topic)])
        for marker in markers])


class TxnMarkerQueue:
    """The markers waiting for one destination broker, kept per `__transaction_state` partition so that an
    emigration can drop its own."""

    def __init__(self, destination: Node) -> None:
        self.destination = destination
        self._lock = threading.Lock()
        self.markers_per_txn_topic_partition: dict[int, deque[TxnIdAndMarkerEntry]] = {}

    def remove_markers_for_txn_topic_partition(self, partition: int) -> deque[TxnIdAndMarkerEntry] | None:
        with self._lock:
            return self.markers_per_txn_topic_partition.pop(partition, None)

    def maybe_update_node(self, node: Node) -> None:
        self.destination = node

    def add_markers(self, txn_topic_partition: int, txn_id_and_marker: TxnIdAndMarkerEntry) -> None:
        with self._lock:
            self.markers_per_txn_topic_partition.setdefault(txn_topic_partition, deque()).append(txn_id_and_marker)

    def drain_to(self, entries: list[TxnIdAndMarkerEntry]) -> None:
        """forEachTxnTopicPartition { queue.drainTo(entries) }."""
        with self._lock:
            for queue in self.markers_per_txn_topic_partition.values():
                entries.extend(queue)
                queue.clear()

    @property
    def node(self) -> Node:
        return self.destination

    def total_num_markers(self, txn_topic_partition: int | None = None) -> int:
        with self._lock:
            if txn_topic_partition is not None:
                return len(self.markers_per_txn_topic_partition.get(txn_topic_partition, ()))
            return sum(len(queue) for queue in self.markers_per_txn_topic_partition.values())


class InterBrokerSendThread(ShutdownableThread):
    """Asks its generator for requests, sends each to its destination and hands the answer (or the lost connection)
    to the request's completion handler; then sleeps until woken up (`wakeup`)."""

    logger_name = "kafka.common.InterBrokerSendThread"

    def __init__(self, name: str, request_generator: Callable[[], list[RequestAndCompletionHandler]],
                 network_client_factory: Callable[[Node], Any], has_pending_work: Callable[[], bool]) -> None:
        super().__init__(name)
        self.daemon = True  # unlike Kafka's, as the port's other broker threads: a failed shutdown keeps no process up
        self.request_generator = request_generator
        self.network_client_factory = network_client_factory
        self.has_pending_work = has_pending_work
        self._wakeup = threading.Condition()
        self._woken = False
        self._clients: dict[int, tuple[Node, Any]] = {}
        self._reconnect_after_ms: dict[int, float] = {}

    def shutdown(self) -> None:
        self.initiate_shutdown()
        # wake the thread up in case it waits in poll
        self.wakeup()
        self.await_shutdown()

    def do_work(self) -> None:
        poll_timeout_ms: float | None = None  # Long.MaxValue: until woken
        for request in self.request_generator():
            destination = request.destination
            delay = self._connection_delay_ms(destination)
            if delay <= 0:
                response = self.send_request(request)
            else:
                response = ClientResponse(ApiKeys.WRITE_TXN_MARKERS, destination.id_string(), disconnected=True)
                poll_timeout_ms = delay if poll_timeout_ms is None else min(poll_timeout_ms, delay)
            request.handler.on_complete(response)
        if self.has_pending_work():
            poll_timeout_ms = RETRY_POLL_MS if poll_timeout_ms is None else min(poll_timeout_ms, RETRY_POLL_MS)
        self._poll(poll_timeout_ms)

    def send_request(self, request: RequestAndCompletionHandler) -> ClientResponse:
        """One WriteTxnMarkers exchange with one partition leader: its response, or a lost connection."""
        destination = request.destination
        client = self._client(destination)
        markers = [entry.txn_marker_entry for entry in request.markers]
        try:
            body = client.send_and_receive(ApiKeys.WRITE_TXN_MARKERS, WRITE_TXN_MARKERS_VERSION,
                                           write_txn_markers_request(markers))
        except OSError as e:  # refused, reset, or no answer within the request timeout
            log.info("Disconnected from node %s while sending WriteTxnMarkers: %s", destination, e)
            self._disconnect(destination.id)
            return ClientResponse(ApiKeys.WRITE_TXN_MARKERS, destination.id_string(), disconnected=True)
        return ClientResponse(ApiKeys.WRITE_TXN_MARKERS, destination.id_string(), response_body=body)

    def _client(self, destination: Node) -> Any:
        node_and_client = self._clients.get(destination.id)
        if node_and_client is not None and node_and_client[0] != destination:
            self._disconnect(destination.id)  # the broker came back at another address
            node_and_client = None
        if node_and_client is None:
            node_and_client = (destination, self.network_client_factory(destination))
            self._clients[destination.id] = node_and_client
        return node_and_client[1]

    def _disconnect(self, broker_id: int) -> None:
        node_and_client = self._clients.pop(broker_id, None)
        if node_and_client is not None:
            try:
                node_and_client[1].disconnect()
            except Exception:
                log.exception("Error disconnecting from broker %d", broker_id)
        self._reconnect_after_ms[broker_id] = time.monotonic() * 1000 + RECONNECT_BACKOFF_MS

    def _connection_delay_ms(self, destination: Node) -> float:
        return self._reconnect_after_ms.get(destination.id, 0) - time.monotonic() * 1000

    def _poll(self, timeout_ms: float | None) -> None:
        with self._wakeup:
            if not self._woken and self.is_running.get():
                self._wakeup.wait(None if timeout_ms is None else timeout_ms / 1000)
            self._woken = False

    def wakeup(self) -> None:
        with self._wakeup:
            self._woken = True
            self._wakeup.notify_all()

    def interrupt(self) -> None:
        self.wakeup()

    def close_clients(self) -> None:
        for broker_id in list(self._clients):
            self._disconnect(broker_id)


class TransactionMarkerChannelManager:
    """Queues each transaction's markers per partition leader, sends them as WriteTxnMarkers from its thread, and
    completes the transaction (its CompleteCommit/CompleteAbort write) once every partition has its marker."""

    def __init__(self, config: KafkaConfig, metadata_cache: MetadataCache, txn_state_manager: TransactionStateManager,
                 txn_marker_purgatory: DelayedOperationPurgatory,
                 network_client_factory: Callable[[Node], Any] | None = None) -> None:
        self.config = config
        self.metadata_cache = metadata_cache
        self.txn_state_manager = txn_state_manager
        self.txn_marker_purgatory = txn_marker_purgatory
        self.markers_queue_per_broker: dict[int, TxnMarkerQueue] = {}
        self._queues_lock = threading.Lock()
        # Markers whose partition has a leader that is not alive: looked up again on each pass of the send thread.
        self.markers_queue_for_unknown_broker = TxnMarkerQueue(NO_NODE)
        self.inter_broker_listener_name = config.inter_broker_listener_name
        self.txn_log_append_retry_queue: deque[TxnLogAppend] = deque()
        client_id = f"broker-{config.broker_id}-txn-marker-sender"
        self.network_client_factory = network_client_factory or (lambda node: BlockingChannel(
            node.host, node.port, config.request_timeout_ms / 1000, client_id=client_id))
        self.txn_marker_send_thread = InterBrokerSendThread(
            f"TxnMarkerSenderThread-{config.broker_id}", self.drain_queued_transaction_markers,
            self.network_client_factory, self._has_pending_work)

    def start(self) -> None:
        self.txn_marker_send_thread.start()

    def shutdown(self) -> None:
        self.txn_marker_send_thread.shutdown()
        self.txn_marker_send_thread.close_clients()
        self.txn_marker_purgatory.shutdown()
        with self._queues_lock:
            self.markers_queue_per_broker.clear()

    def queue_for_broker(self, broker_id: int) -> TxnMarkerQueue | None:
        with self._queues_lock:
            return self.markers_queue_per_broker.get(broker_id)

    @property
    def queue_for_unknown_broker(self) -> TxnMarkerQueue:
        return self.markers_queue_for_unknown_broker

    def _has_pending_work(self) -> bool:
        return bool(self.txn_log_append_retry_queue) or self.markers_queue_for_unknown_broker.total_num_markers() > 0

    def add_markers_for_broker(self, broker: Node, txn_topic_partition: int,
                               txn_id_and_marker: TxnIdAndMarkerEntry) -> None:
        # Not synchronized with the node's update: a race only costs a retry.
        with self._queues_lock:
            broker_request_queue = self.markers_queue_per_broker.setdefault(broker.id, TxnMarkerQueue(broker))
        broker_request_queue.maybe_update_node(broker)
        broker_request_queue.add_markers(txn_topic_partition, txn_id_and_marker)
        log.debug("Added marker %s for transactional id %s to destination broker %d",
                  txn_id_and_marker.txn_marker_entry, txn_id_and_marker.txn_id, broker.id)

    def retry_log_appends(self) -> None:
        txn_log_append_retries = []
        while self.txn_log_append_retry_queue:
            txn_log_append_retries.append(self.txn_log_append_retry_queue.popleft())
        if txn_log_append_retries:
            log.debug("retrying: %d transaction log appends", len(txn_log_append_retries))
        for txn_log_append in txn_log_append_retries:
            self._try_append_to_log(txn_log_append)

    def drain_queued_transaction_markers(self) -> list[RequestAndCompletionHandler]:
        """The send thread's request generator: one WriteTxnMarkers per destination broker with markers queued."""
        self.retry_log_appends()
        unknown: list[TxnIdAndMarkerEntry] = []
        self.markers_queue_for_unknown_broker.drain_to(unknown)
        for txn_id_and_marker in unknown:
            marker = txn_id_and_marker.txn_marker_entry
            self.add_txn_markers_to_broker_queue(txn_id_and_marker.txn_id, marker.producer_id, marker.producer_epoch,
                                                 marker.transaction_result, marker.coordinator_epoch,
                                                 set(marker.partitions))
        with self._queues_lock:
            queues = list(self.markers_queue_per_broker.values())
        requests = []
        for broker_request_queue in queues:
            entries: list[TxnIdAndMarkerEntry] = []
            broker_request_queue.drain_to(entries)
            if entries:
                node = broker_request_queue.node
                handler = TransactionMarkerRequestCompletionHandler(node.id, self.txn_state_manager, self, entries)
                requests.append(RequestAndCompletionHandler(node, tuple(entries), handler))
        return requests

    @step("TX.markers")
    def add_txn_markers_to_send(self, transactional_id: str, coordinator_epoch: int, txn_result: TransactionResult,
                                txn_metadata: TransactionMetadata, new_metadata: TxnTransitMetadata) -> None:
        """Queue the transaction's markers for its partitions' leaders; once all are written, complete it."""

        def append_to_log_callback(error: Errors) -> None:
            if error != Errors.NONE:
                raise IllegalStateException(f"Unexpected error {error.exception_name} before appending to txn log "
                                            f"for {transactional_id}")
            log.debug("Completed sending transaction markers for %s as %s", transactional_id, txn_result.name)
            state_error, epoch_and_metadata = self.txn_state_manager.get_transaction_state(transactional_id)
            if state_error == Errors.NOT_COORDINATOR:
                log.info("I am no longer the coordinator for %s with coordinator epoch %d; cancel appending %s to "
                         "transaction log", transactional_id, coordinator_epoch, new_metadata)
            elif state_error == Errors.COORDINATOR_LOAD_IN_PROGRESS:
                log.info("I am loading the transaction partition that contains %s while my current coordinator epoch "
                         "is %d; so cancel appending %s to transaction log since the loading process will continue "
                         "the left work", transactional_id, coordinator_epoch, new_metadata)
            elif state_error is not None:
                raise IllegalStateException(f"Unhandled error {state_error.name} when fetching current transaction "
                                            "state")
            elif epoch_and_metadata is None:
                raise IllegalStateException(f"The coordinator still owns the transaction partition for "
                                            f"{transactional_id}, but there is no metadata in the cache; this is not "
                                            "expected")
            elif epoch_and_metadata.coordinator_epoch == coordinator_epoch:
                log.debug("Sending %s's transaction markers for %s with coordinator epoch %d succeeded, trying to "
                          "append complete transaction log now", transactional_id, txn_metadata, coordinator_epoch)
                self._try_append_to_log(TxnLogAppend(transactional_id, coordinator_epoch, txn_metadata, new_metadata))
            else:
                log.info("The cached metadata %s has changed to %s after completed sending the markers with "
                         "coordinator epoch %d; abort transiting the metadata to %s as it may have been updated by "
                         "another process", txn_metadata, epoch_and_metadata, coordinator_epoch, new_metadata)

        delayed_txn_marker = DelayedTxnMarker(txn_metadata, append_to_log_callback)
        self.txn_marker_purgatory.try_complete_else_watch(delayed_txn_marker, [transactional_id])
        with txn_metadata.in_lock():
            producer_id, producer_epoch = txn_metadata.producer_id, txn_metadata.producer_epoch
            topic_partitions = set(txn_metadata.topic_partitions)
        self.add_txn_markers_to_broker_queue(transactional_id, producer_id, producer_epoch, txn_result,
                                             coordinator_epoch, topic_partitions)

    def _try_append_to_log(self, txn_log_append: TxnLogAppend) -> None:
        def append_callback(error: Errors) -> None:
            if error == Errors.NONE:
                log.debug("Completed transaction for %s with coordinator epoch %d, final state after commit: %s",
                          txn_log_append.transactional_id, txn_log_append.coordinator_epoch,
                          txn_log_append.txn_metadata.state)
            elif error == Errors.NOT_COORDINATOR:
                log.info("No longer the coordinator for transactionalId: %s while trying to append to transaction "
                         "log, skip writing to transaction log", txn_log_append.transactional_id)
            elif error == Errors.COORDINATOR_NOT_AVAILABLE:
                log.warning("Failed updating transaction state for %s when appending to transaction log due to %s. "
                            "retrying", txn_log_append.transactional_id, error.exception_name)
                self.txn_log_append_retry_queue.append(txn_log_append)
                self.txn_marker_send_thread.wakeup()
            elif error == Errors.COORDINATOR_LOAD_IN_PROGRESS:
                log.info("Coordinator is loading the partition %d and hence cannot complete append of %s; skip "
                         "writing to transaction log as the loading process should complete it",
                         self.txn_state_manager.partition_for(txn_log_append.transactional_id), txn_log_append)
            else:
                raise IllegalStateException(f"Unexpected error {error.exception_name} while appending to "
                                            f"transaction log for {txn_log_append.transactional_id}")

        self.txn_state_manager.append_transaction_to_log(
            txn_log_append.transactional_id, txn_log_append.coordinator_epoch, txn_log_append.new_metadata,
            append_callback, lambda error: error == Errors.COORDINATOR_NOT_AVAILABLE)

    def add_txn_markers_to_broker_queue(self, transactional_id: str, producer_id: int, producer_epoch: int,
                                        result: TransactionResult, coordinator_epoch: int,
                                        topic_partitions: set[TopicPartition]) -> None:
        txn_topic_partition = self.txn_state_manager.partition_for(transactional_id)
        partitions_by_destination: dict[Node | None, list[TopicPartition]] = {}
        for topic_partition in sorted(topic_partitions):
            broker = self.metadata_cache.get_partition_leader_endpoint(
                topic_partition.topic, topic_partition.partition, self.inter_broker_listener_name)
            partitions_by_destination.setdefault(broker, []).append(topic_partition)

        for broker, partitions in partitions_by_destination.items():
            if broker is not None:
                marker = TxnMarkerEntry(producer_id, producer_epoch, coordinator_epoch, result, tuple(partitions))
                txn_id_and_marker = TxnIdAndMarkerEntry(transactional_id, marker)
                if broker == NO_NODE:
                    # The leader is known but not alive: the send thread looks it up again later.
                    self.markers_queue_for_unknown_broker.add_markers(txn_topic_partition, txn_id_and_marker)
                else:
                    self.add_markers_for_broker(broker, txn_topic_partition, txn_id_and_marker)
                continue
            # No such partition any more: it was most likely deleted, so it needs no marker.
            error, epoch_and_metadata = self.txn_state_manager.get_transaction_state(transactional_id)
            if error is not None:
                log.info("Encountered %s trying to fetch transaction metadata for %s with coordinator epoch %d; "
                         "cancel sending markers to its partition leaders", error.name, transactional_id,
                         coordinator_epoch)
                self.remove_markers_for_txn_id(transactional_id)
            elif epoch_and_metadata is None:
                raise IllegalStateException(f"The coordinator still owns the transaction partition for "
                                            f"{transactional_id}, but there is no metadata in the cache; this is not "
                                            "expected")
            elif epoch_and_metadata.coordinator_epoch != coordinator_epoch:
                log.info("The cached metadata has changed to %s (old coordinator epoch is %d) since preparing to "
                         "send markers; cancel sending markers to its partition leaders", epoch_and_metadata,
                         coordinator_epoch)
                self.remove_markers_for_txn_id(transactional_id)
            else:
                log.info("Couldn't find leader endpoint for partitions %s while trying to send transaction markers "
                         "for %s, these partitions are likely deleted already and hence can be skipped",
                         partitions, transactional_id)
                txn_metadata = epoch_and_metadata.transaction_metadata
                with txn_metadata.in_lock():
                    for topic_partition in partitions:
                        txn_metadata.remove_partition(topic_partition)
                self.complete_send_markers_for_txn_id(transactional_id)
        self.txn_marker_send_thread.wakeup()

    def remove_markers_for_txn_topic_partition(self, txn_topic_partition_id: int) -> None:
        """The `__transaction_state` partition emigrated: forget its queued markers and their waiting completions."""
        queue = self.markers_queue_for_unknown_broker.remove_markers_for_txn_topic_partition(txn_topic_partition_id)
        for entry in queue or ():
            self.remove_markers_for_txn_id(entry.txn_id)
        with self._queues_lock:
            broker_queues = list(self.markers_queue_per_broker.values())
        for broker_queue in broker_queues:
            for entry in broker_queue.remove_markers_for_txn_topic_partition(txn_topic_partition_id) or ():
                self.remove_markers_for_txn_id(entry.txn_id)

    def remove_markers_for_txn_id(self, transactional_id: str) -> None:
        # The queue was drained by the send thread already; only the waiting completion is left to cancel.
        self.txn_marker_purgatory.cancel_for_key(transactional_id)

    def complete_send_markers_for_txn_id(self, transactional_id: str) -> None:
        self.txn_marker_purgatory.check_and_complete(transactional_id)
