"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/ProducerAppendInfo.java (Kafka 3.9): checks
one producer's batches (epoch, sequence, transaction state) before they are written, and gathers the state they
leave behind and the transactions they start."""

from __future__ import annotations

import logging

from kafka_edu.v1_0_2.clients.common.errors import (
    InvalidProducerEpochException,
    InvalidTxnStateException,
    OutOfOrderSequenceException,
    TransactionCoordinatorFencedException,
)
from kafka_edu.v3_9.clients.common.record import end_transaction_marker
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType
from kafka_edu.v3_9.clients.common.record.end_transaction_marker import EndTransactionMarker
from kafka_edu.v3_9.clients.common.record.record_batch import NO_PRODUCER_EPOCH, NO_SEQUENCE, RecordBatch
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.storage.storage.internals.log.append_origin import AppendOrigin
from kafka_edu.v3_9.storage.storage.internals.log.completed_txn import CompletedTxn
from kafka_edu.v3_9.storage.storage.internals.log.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.storage.storage.internals.log.producer_state_entry import ProducerStateEntry
from kafka_edu.v3_9.storage.storage.internals.log.txn_metadata import TxnMetadata
from kafka_edu.v3_9.storage.storage.internals.log.verification_state_entry import VerificationStateEntry

log = logging.getLogger("org.apache.kafka.storage.internals.log.ProducerAppendInfo")

_INT_MAX = 2**31 - 1


class ProducerAppendInfo:
    """Starts from the producer's state after its last append (current_entry) and validates each new batch against
    the state the previous ones left. How much is checked depends on the origin: a client's append fully, a
    coordinator's only for epochs (offset commits carry no sequences), a replica's hardly at all (the leader did it).
    verification_state_entry is the entry of a transaction verified but not yet appended to, else None."""

    def __init__(self, topic_partition: TopicPartition, producer_id: int, current_entry: ProducerStateEntry,
                 origin: AppendOrigin, verification_state_entry: VerificationStateEntry | None) -> None:
        self._topic_partition = topic_partition
        self._producer_id = producer_id
        self._current_entry = current_entry
        self._origin = origin
        self._verification_state_entry = verification_state_entry
        self._transactions: list[TxnMetadata] = []
        # the state this append leaves: the current epochs and open transaction, but none of the old batches
        self._updated_entry = current_entry.with_producer_id_and_batch_metadata(producer_id, None)

    def producer_id(self) -> int:
        return self._producer_id

    def _maybe_validate_data_batch(self, producer_epoch: int, first_seq: int, offset: int) -> None:
        self._check_producer_epoch(producer_epoch, offset)
        if self._origin == AppendOrigin.CLIENT:
            self._check_sequence(producer_epoch, first_seq, offset)

    def _check_producer_epoch(self, producer_epoch: int, offset: int) -> None:
        if producer_epoch < self._updated_entry.producer_epoch():
            message = (f"Epoch of producer {self._producer_id} at offset {offset} in {self._topic_partition} is "
                       f"{producer_epoch}, which is smaller than the last seen epoch "
                       f"{self._updated_entry.producer_epoch()}")
            if self._origin == AppendOrigin.REPLICATION:
                log.warning(message)
            else:
                # since 2.7 a fenced epoch is InvalidProducerEpoch, which the producer can abort and retry on
                raise InvalidProducerEpochException(message)

    def _check_sequence(self, producer_epoch: int, append_first_seq: int, offset: int) -> None:
        if (self._verification_state_entry is not None
                and append_first_seq > self._verification_state_entry.lowest_sequence()):
            raise OutOfOrderSequenceException(
                f"Out of order sequence number for producer {self._producer_id} at offset {offset} in partition "
                f"{self._topic_partition}: {append_first_seq} (incoming seq. number), "
                f"{self._verification_state_entry.lowest_sequence()} (earliest seen sequence)")
        if producer_epoch != self._updated_entry.producer_epoch():
            if append_first_seq != 0 and self._updated_entry.producer_epoch() != NO_PRODUCER_EPOCH:
                raise OutOfOrderSequenceException(
                    f"Invalid sequence number for new epoch of producer {self._producer_id} at offset {offset} in "
                    f"partition {self._topic_partition}: {producer_epoch} (request epoch), {append_first_seq} "
                    f"(seq. number), {self._updated_entry.producer_epoch()} (current producer epoch)")
        else:
            if not self._updated_entry.is_empty():
                current_last_seq = self._updated_entry.last_seq()
            elif producer_epoch == self._current_entry.producer_epoch():
                current_last_seq = self._current_entry.last_seq()
            else:
                current_last_seq = NO_SEQUENCE

            # with no known epoch (the producer's records were all deleted by retention or DeleteRecords),
            # any sequence is accepted
            if not (self._current_entry.producer_epoch() == NO_PRODUCER_EPOCH
                    or self._in_sequence(current_last_seq, append_first_seq)):
                raise OutOfOrderSequenceException(
                    f"Out of order sequence number for producer {self._producer_id} at offset {offset} in partition "
                    f"{self._topic_partition}: {append_first_seq} (incoming seq. number), {current_last_seq} "
                    "(current end sequence number)")

    @staticmethod
    def _in_sequence(last_seq: int, next_seq: int) -> bool:
        return next_seq == last_seq + 1 or (next_seq == 0 and last_seq == _INT_MAX)

    def append(self, batch: RecordBatch, first_offset_metadata_opt: LogOffsetMetadata | None) -> CompletedTxn | None:
        if batch.is_control_batch():
            record = next(iter(batch), None)
            if record is not None:
                end_txn_marker = end_transaction_marker.deserialize(record)
                return self.append_end_txn_marker(end_txn_marker, batch.producer_epoch(), batch.base_offset(),
                                                  record.timestamp())
            # an empty control batch: the cleaner removed the whole transaction, nothing to record
            return None
        first_offset_metadata = (first_offset_metadata_opt if first_offset_metadata_opt is not None
                                 else LogOffsetMetadata(batch.base_offset()))
        self.append_data_batch(batch.producer_epoch(), batch.base_sequence(), batch.last_sequence(),
                               batch.max_timestamp(), first_offset_metadata, batch.last_offset(),
                               batch.is_transactional())
        return None

    def append_data_batch(self, epoch: int, first_seq: int, last_seq: int, last_timestamp: int,
                          first_offset_metadata: LogOffsetMetadata, last_offset: int, is_transactional: bool) -> None:
        first_offset = first_offset_metadata.message_offset
        self._maybe_validate_data_batch(epoch, first_seq, first_offset)
        self._updated_entry.add_batch(epoch, last_seq, last_offset, last_offset - first_offset, last_timestamp)

        current_txn_first_offset = self._updated_entry.current_txn_first_offset()
        if current_txn_first_offset is not None and not is_transactional:
            # a non-transactional write while this producer has a transaction open
            raise InvalidTxnStateException(
                f"Expected transactional write from producer {self._producer_id} at offset {first_offset_metadata} "
                f"in partition {self._topic_partition}")
        elif current_txn_first_offset is None and is_transactional:
            # the first batch of a new transaction
            self._updated_entry.set_current_txn_first_offset(first_offset)
            self._transactions.append(TxnMetadata(self._producer_id, first_offset_metadata))

    def _check_coordinator_epoch(self, end_txn_marker: EndTransactionMarker, offset: int) -> None:
        if self._updated_entry.coordinator_epoch() > end_txn_marker.coordinator_epoch:
            if self._origin == AppendOrigin.REPLICATION:
                log.info("Detected invalid coordinator epoch for producerId %s at offset %s in partition %s: %s is "
                         "older than previously known coordinator epoch %s", self._producer_id, offset,
                         self._topic_partition, end_txn_marker.coordinator_epoch,
                         self._updated_entry.coordinator_epoch())
            else:
                raise TransactionCoordinatorFencedException(
                    f"Invalid coordinator epoch for producerId {self._producer_id} at offset {offset} in partition "
                    f"{self._topic_partition}: {end_txn_marker.coordinator_epoch} (zombie), "
                    f"{self._updated_entry.coordinator_epoch()} (current)")

    def append_end_txn_marker(self, end_txn_marker: EndTransactionMarker, producer_epoch: int, offset: int,
                              timestamp: int) -> CompletedTxn | None:
        self._check_producer_epoch(producer_epoch, offset)
        self._check_coordinator_epoch(end_txn_marker, offset)

        # a marker that ends no data changes neither the last stable offset nor the transaction index
        current_txn_first_offset = self._updated_entry.current_txn_first_offset()
        completed_txn = (CompletedTxn(self._producer_id, current_txn_first_offset, offset,
                                      end_txn_marker.control_type == ControlRecordType.ABORT)
                         if current_txn_first_offset is not None else None)
        self._updated_entry.update(producer_epoch, end_txn_marker.coordinator_epoch, timestamp)
        return completed_txn

    def to_entry(self) -> ProducerStateEntry:
        return self._updated_entry

    def started_transactions(self) -> list[TxnMetadata]:
        return list(self._transactions)

    def __str__(self) -> str:
        e = self._updated_entry
        return (f"ProducerAppendInfo(producerId={self._producer_id}, producerEpoch={e.producer_epoch()}, "
                f"firstSequence={e.first_seq()}, lastSequence={e.last_seq()}, "
                f"currentTxnFirstOffset={e.current_txn_first_offset()}, coordinatorEpoch={e.coordinator_epoch()}, "
                f"lastTimestamp={e.last_timestamp()}, startedTransactions={self._transactions})")
