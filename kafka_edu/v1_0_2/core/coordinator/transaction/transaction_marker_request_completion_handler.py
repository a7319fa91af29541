"""Port of core/src/main/scala/kafka/coordinator/transaction/TransactionMarkerRequestCompletionHandler.scala
(Kafka 1.0.2; read: the 0.11 copy and a later one, for the checks of the cached state 1.0 added)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.core.server.node_to_controller_channel_manager import ClientResponse

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_marker_channel_manager import (
        TransactionMarkerChannelManager,
        TxnIdAndMarkerEntry,
        TxnMarkerEntry,
    )
    from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_state_manager import (
        CoordinatorEpochAndTxnMetadata,
        TransactionStateManager,
    )

log = logging.getLogger("kafka.coordinator.transaction.TransactionMarkerRequestCompletionHandler")

# The leader cannot ever write these: a bug somewhere.
_FATAL = (Errors.CORRUPT_MESSAGE, Errors.MESSAGE_TOO_LARGE, Errors.RECORD_LIST_TOO_LARGE, Errors.INVALID_REQUIRED_ACKS)
# The leader moved, or is short of replicas: send again, to whoever leads now.
_RETRIABLE = (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.NOT_LEADER_OR_FOLLOWER, Errors.NOT_ENOUGH_REPLICAS,
              Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND, Errors.REQUEST_TIMED_OUT)
# A newer producer epoch or coordinator epoch took over: this transaction's markers are moot.
_FENCED = (Errors.INVALID_PRODUCER_EPOCH, Errors.TRANSACTION_COORDINATOR_FENCED)


def write_txn_markers_errors(response_body: Any) -> dict[int, dict[TopicPartition, Errors]]:
    """WriteTxnMarkersResponse.errors: producer id -> each partition's error."""
    return {marker.producer_id: {TopicPartition(topic.name, p.partition_index): Errors.for_code(p.error_code)
                                 for topic in marker.topics for p in topic.partitions}
            for marker in response_body.markers}


class TransactionMarkerRequestCompletionHandler:
    """Reads one WriteTxnMarkers answer: each partition with its marker written leaves the transaction's waiting set;
    the others are queued again (to the partition's leader of the moment), or given up when fenced."""

    def __init__(self, broker_id: int, txn_state_manager: TransactionStateManager,
                 txn_marker_channel_manager: TransactionMarkerChannelManager,
                 txn_id_and_marker_entries: list[TxnIdAndMarkerEntry]) -> None:
        self.broker_id = broker_id
        self.txn_state_manager = txn_state_manager
        self.txn_marker_channel_manager = txn_marker_channel_manager
        self.txn_id_and_marker_entries = txn_id_and_marker_entries

    def on_complete(self, response: ClientResponse) -> None:
        if response.was_disconnected():
            log.debug("Cancelled request to node %s due to node being disconnected", response.destination)
            for txn_id_and_marker in self.txn_id_and_marker_entries:
                transactional_id = txn_id_and_marker.txn_id
                txn_marker = txn_id_and_marker.txn_marker_entry
                error, epoch_and_metadata = self.txn_state_manager.get_transaction_state(transactional_id)
                if not self._still_coordinating(transactional_id, txn_marker, error, epoch_and_metadata):
                    continue
                # Queue again: the partitions may have new leaders by now.
                log.debug("Re-enqueuing %s transaction markers for transactional id %s under coordinator epoch %d",
                          txn_marker.transaction_result.name, transactional_id, txn_marker.coordinator_epoch)
                self.txn_marker_channel_manager.add_txn_markers_to_broker_queue(
                    transactional_id, txn_marker.producer_id, txn_marker.producer_epoch,
                    txn_marker.transaction_result, txn_marker.coordinator_epoch, set(txn_marker.partitions))
            return

        log.debug("Received WriteTxnMarker response from node %s", response.destination)
        response_errors = write_txn_markers_errors(response.response_body)
        for txn_id_and_marker in self.txn_id_and_marker_entries:
            transactional_id = txn_id_and_marker.txn_id
            txn_marker = txn_id_and_marker.txn_marker_entry
            errors = response_errors.get(txn_marker.producer_id)
            if errors is None:
                raise IllegalStateException("WriteTxnMarkerResponse does not contain expected error map for producer "
                                            f"id {txn_marker.producer_id}")
            error, epoch_and_metadata = self.txn_state_manager.get_transaction_state(transactional_id)
            if not self._still_coordinating(transactional_id, txn_marker, error, epoch_and_metadata):
                continue
            txn_metadata = epoch_and_metadata.transaction_metadata
            retry_partitions: set[TopicPartition] = set()
            abort_sending = False
            with txn_metadata.in_lock():
                for topic_partition, partition_error in errors.items():
                    if partition_error == Errors.NONE:
                        txn_metadata.remove_partition(topic_partition)
                    elif partition_error in _FATAL:
                        raise IllegalStateException(f"Received fatal error {partition_error.exception_name} while "
                                                    f"sending txn marker for {transactional_id}")
                    elif partition_error in _RETRIABLE:
                        log.info("Sending %s's transaction marker for partition %s has failed with error %s, "
                                 "retrying with current coordinator epoch %d", transactional_id, topic_partition,
                                 partition_error.exception_name, epoch_and_metadata.coordinator_epoch)
                        retry_partitions.add(topic_partition)
                    elif partition_error in _FENCED:
                        log.info("Sending %s's transaction marker for partition %s has permanently failed with error "
                                 "%s with the current coordinator epoch %d; cancel sending any more transaction "
                                 "markers %s to the brokers", transactional_id, topic_partition,
                                 partition_error.exception_name, epoch_and_metadata.coordinator_epoch, txn_marker)
                        self.txn_marker_channel_manager.remove_markers_for_txn_id(transactional_id)
                        abort_sending = True
                    elif partition_error == Errors.UNSUPPORTED_FOR_MESSAGE_FORMAT:
                        # The producer could not have written to a partition this old: nothing to mark there.
                        log.info("Sending %s's transaction marker from partition %s has failed with %s. This "
                                 "partition will be removed from the set of partitions waiting for completion",
                                 transactional_id, topic_partition, partition_error.name)
                        txn_metadata.remove_partition(topic_partition)
                    else:
                        raise IllegalStateException(f"Unexpected error {partition_error.exception_name} while "
                                                    f"sending txn marker for {transactional_id}")
            if abort_sending:
                continue
            if retry_partitions:
                log.debug("Re-enqueuing %s transaction markers for transactional id %s under coordinator epoch %d",
                          txn_marker.transaction_result.name, transactional_id, txn_marker.coordinator_epoch)
                self.txn_marker_channel_manager.add_txn_markers_to_broker_queue(
                    transactional_id, txn_marker.producer_id, txn_marker.producer_epoch,
                    txn_marker.transaction_result, txn_marker.coordinator_epoch, retry_partitions)
            else:
                self.txn_marker_channel_manager.complete_send_markers_for_txn_id(transactional_id)

    def _still_coordinating(self, transactional_id: str, txn_marker: TxnMarkerEntry, error: Errors | None,
                            epoch_and_metadata: CoordinatorEpochAndTxnMetadata | None) -> bool:
        """Whether this coordinator, in the markers' coordinator epoch, still owns the transaction; if not, its
        markers are dropped (the new coordinator finishes the transaction)."""
        if error == Errors.NOT_COORDINATOR:
            log.info("I am no longer the coordinator for %s; cancel sending transaction markers %s to the brokers",
                     transactional_id, txn_marker)
        elif error == Errors.COORDINATOR_LOAD_IN_PROGRESS:
            log.info("I am loading the transaction partition that contains %s which means the current markers have "
                     "to be obsoleted; cancel sending transaction markers %s to the brokers", transactional_id,
                     txn_marker)
        elif error is not None:
            raise IllegalStateException(f"Unhandled error {error.name} when fetching current transaction state")
        elif epoch_and_metadata is None:
            raise IllegalStateException(f"The coordinator still owns the transaction partition for {transactional_id}, "
                                        "but there is no metadata in the cache; this is not expected")
        elif epoch_and_metadata.coordinator_epoch != txn_marker.coordinator_epoch:
            log.info("Transaction coordinator epoch for %s has changed from %d to %d; cancel sending transaction "
                     "markers %s to the brokers", transactional_id, txn_marker.coordinator_epoch,
                     epoch_and_metadata.coordinator_epoch, txn_marker)
        else:
            return True
        self.txn_marker_channel_manager.remove_markers_for_txn_id(transactional_id)
        return False
