"""Port of core/src/main/scala/kafka/coordinator/transaction/TransactionMarkerRequestCompletionHandler.scala (Kafka
3.9).

The response body is kio's WriteTxnMarkersResponse; `errors_by_producer_id` is WriteTxnMarkersResponse's
errorsByProducerId over it. The Scala `Either` of TransactionStateManager.getTransactionState is the port's
`(error, value)` pair.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.clients.client_response import ClientResponse
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition

if TYPE_CHECKING:
    from kafka_edu.v3_9.core.coordinator.transaction.transaction_marker_channel_manager import (
        PendingCompleteTxnAndMarkerEntry,
        TransactionMarkerChannelManager,
    )
    from kafka_edu.v3_9.core.coordinator.transaction.transaction_state_manager import TransactionStateManager


def errors_by_producer_id(response_body: Any) -> dict[int, dict[TopicPartition, Errors]]:
    """WriteTxnMarkersResponse.errorsByProducerId: producer id -> each partition's error."""
    return {marker.producer_id: {TopicPartition(topic.name, p.partition_index): Errors.for_code(p.error_code)
                                 for topic in marker.topics for p in topic.partitions}
            for marker in response_body.markers}


class TransactionMarkerRequestCompletionHandler:
    """Reads one WriteTxnMarkers answer: a partition whose marker is written leaves its transaction's waiting set;
    the others are queued again (for whoever leads them now), or dropped once fenced."""

    def __init__(self, broker_id: int, txn_state_manager: TransactionStateManager,
                 txn_marker_channel_manager: TransactionMarkerChannelManager,
                 pending_complete_txn_and_marker_entries: list[PendingCompleteTxnAndMarkerEntry]) -> None:
        self.broker_id = broker_id
        self.txn_state_manager = txn_state_manager
        self.txn_marker_channel_manager = txn_marker_channel_manager
        self.pending_complete_txn_and_marker_entries = pending_complete_txn_and_marker_entries
        self.log = Logging("kafka.coordinator.transaction.TransactionMarkerRequestCompletionHandler",
                           f"[Transaction Marker Request Completion Handler {broker_id}]: ")

    def on_complete(self, response: ClientResponse) -> None:
        request_header = response.request_header()
        correlation_id = None if request_header is None else request_header.correlation_id
        if response.was_disconnected():
            self.log.debug("Cancelled request with header %s due to node %s being disconnected", request_header,
                           response.destination())
            for pending_complete_txn_and_marker in self.pending_complete_txn_and_marker_entries:
                pending_complete_txn = pending_complete_txn_and_marker.pending_complete_txn
                transactional_id = pending_complete_txn.transactional_id
                txn_marker = pending_complete_txn_and_marker.txn_marker_entry
                error, epoch_and_metadata = self.txn_state_manager.get_transaction_state(transactional_id)
                if error == Errors.NOT_COORDINATOR:
                    self.log.info("I am no longer the coordinator for %s; cancel sending transaction markers %s to "
                                  "the brokers", transactional_id, txn_marker)
                    self.txn_marker_channel_manager.remove_markers_for_txn(pending_complete_txn)
                elif error == Errors.COORDINATOR_LOAD_IN_PROGRESS:
                    self.log.info("I am loading the transaction partition that contains %s which means the current "
                                  "markers have to be obsoleted; cancel sending transaction markers %s to the brokers",
                                  transactional_id, txn_marker)
                    self.txn_marker_channel_manager.remove_markers_for_txn(pending_complete_txn)
                elif error is not None:
                    raise IllegalStateException(f"Unhandled error {error} when fetching current transaction state")
                elif epoch_and_metadata is None:
                    raise IllegalStateException("The coordinator still owns the transaction partition for "
                                                f"{transactional_id}, but there is no metadata in the cache; this is "
                                                "not expected")
                elif epoch_and_metadata.coordinator_epoch != txn_marker.coordinator_epoch:
                    # a newer coordinator epoch owns the transaction now
                    self.log.info("Transaction coordinator epoch for %s has changed from %s to %s; cancel sending "
                                  "transaction markers %s to the brokers", transactional_id,
                                  txn_marker.coordinator_epoch, epoch_and_metadata.coordinator_epoch, txn_marker)
                    self.txn_marker_channel_manager.remove_markers_for_txn(pending_complete_txn)
                else:
                    # queued again: the partitions may have new leaders by now
                    self.log.debug("Re-enqueuing %s transaction markers for transactional id %s under coordinator "
                                   "epoch %s", txn_marker.transaction_result, transactional_id,
                                   txn_marker.coordinator_epoch)
                    self.txn_marker_channel_manager.add_txn_markers_to_broker_queue(
                        txn_marker.producer_id, txn_marker.producer_epoch, txn_marker.transaction_result,
                        pending_complete_txn, set(txn_marker.partitions))
            return

        self.log.debug("Received WriteTxnMarker response %s from node %s with correlation id %s", response,
                       response.destination(), correlation_id)
        response_errors = errors_by_producer_id(response.response_body)
        for pending_complete_txn_and_marker in self.pending_complete_txn_and_marker_entries:
            pending_complete_txn = pending_complete_txn_and_marker.pending_complete_txn
            transactional_id = pending_complete_txn.transactional_id
            txn_marker = pending_complete_txn_and_marker.txn_marker_entry
            errors = response_errors.get(txn_marker.producer_id)
            if errors is None:
                raise IllegalStateException("WriteTxnMarkerResponse does not contain expected error map for producer "
                                            f"id {txn_marker.producer_id}")

            error, epoch_and_metadata = self.txn_state_manager.get_transaction_state(transactional_id)
            if error == Errors.NOT_COORDINATOR:
                self.log.info("I am no longer the coordinator for %s; cancel sending transaction markers %s to the "
                              "brokers", transactional_id, txn_marker)
                self.txn_marker_channel_manager.remove_markers_for_txn(pending_complete_txn)
                continue
            if error == Errors.COORDINATOR_LOAD_IN_PROGRESS:
                self.log.info("I am loading the transaction partition that contains %s which means the current "
                              "markers have to be obsoleted; cancel sending transaction markers %s to the brokers",
                              transactional_id, txn_marker)
                self.txn_marker_channel_manager.remove_markers_for_txn(pending_complete_txn)
                continue
            if error is not None:
                raise IllegalStateException(f"Unhandled error {error} when fetching current transaction state")
            if epoch_and_metadata is None:
                raise IllegalStateException(f"The coordinator still owns the transaction partition for "
                                            f"{transactional_id}, but there is no metadata in the cache; this is not "
                                            "expected")

            txn_metadata = epoch_and_metadata.transaction_metadata
            retry_partitions: set[TopicPartition] = set()
            abort_sending = False
            if epoch_and_metadata.coordinator_epoch != txn_marker.coordinator_epoch:
                self.log.info("Transaction coordinator epoch for %s has changed from %s to %s; cancel sending "
                              "transaction markers %s to the brokers", transactional_id,
                              txn_marker.coordinator_epoch, epoch_and_metadata.coordinator_epoch, txn_marker)
                self.txn_marker_channel_manager.remove_markers_for_txn(pending_complete_txn)
                abort_sending = True
            else:
                with txn_metadata.in_lock():
                    for topic_partition, partition_error in errors.items():
                        if partition_error == Errors.NONE:
                            txn_metadata.remove_partition(topic_partition)
                        elif partition_error in (Errors.CORRUPT_MESSAGE, Errors.MESSAGE_TOO_LARGE,
                                                 Errors.RECORD_LIST_TOO_LARGE, Errors.INVALID_REQUIRED_ACKS):
                            # a leader can never answer these to a marker: a bug somewhere
                            raise IllegalStateException(f"Received fatal error {partition_error.exception_name} while "
                                                        f"sending txn marker for {transactional_id}")
                        elif partition_error in (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.NOT_LEADER_OR_FOLLOWER,
                                                 Errors.NOT_ENOUGH_REPLICAS, Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
                                                 Errors.REQUEST_TIMED_OUT, Errors.KAFKA_STORAGE_ERROR):
                            self.log.info("Sending %s's transaction marker for partition %s has failed with error %s, "
                                          "retrying with current coordinator epoch %s", transactional_id,
                                          topic_partition, partition_error.exception_name,
                                          epoch_and_metadata.coordinator_epoch)
                            retry_partitions.add(topic_partition)
                        elif partition_error in (Errors.INVALID_PRODUCER_EPOCH, Errors.TRANSACTION_COORDINATOR_FENCED):
                            # a newer producer or coordinator took over: these markers are moot
                            self.log.info("Sending %s's transaction marker for partition %s has permanently failed "
                                          "with error %s with the current coordinator epoch %s; cancel sending any "
                                          "more transaction markers %s to the brokers", transactional_id,
                                          topic_partition, partition_error.exception_name,
                                          epoch_and_metadata.coordinator_epoch, txn_marker)
                            self.txn_marker_channel_manager.remove_markers_for_txn(pending_complete_txn)
                            abort_sending = True
                        elif partition_error in (Errors.UNSUPPORTED_FOR_MESSAGE_FORMAT, Errors.UNSUPPORTED_VERSION):
                            # the producer could not have written to this partition: nothing to mark
                            self.log.info("Sending %s's transaction marker from partition %s has failed with  %s. "
                                          "This partition will be removed from the set of partitions waiting for "
                                          "completion", transactional_id, topic_partition, partition_error.name)
                            txn_metadata.remove_partition(topic_partition)
                        else:
                            raise IllegalStateException(f"Unexpected error {partition_error.exception_name} while "
                                                        f"sending txn marker for {transactional_id}")

            if not abort_sending:
                if retry_partitions:
                    self.log.debug("Re-enqueuing %s transaction markers for transactional id %s under coordinator "
                                   "epoch %s", txn_marker.transaction_result, transactional_id,
                                   txn_marker.coordinator_epoch)
                    self.txn_marker_channel_manager.add_txn_markers_to_broker_queue(
                        txn_marker.producer_id, txn_marker.producer_epoch, txn_marker.transaction_result,
                        pending_complete_txn, retry_partitions)
                else:
                    self.txn_marker_channel_manager.maybe_write_txn_completion(transactional_id)
