"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/ProducerStateEntry.java (Kafka 3.9): what the
log knows of one producer id: its epoch, its coordinator's epoch, its open transaction and its last few batches."""

from __future__ import annotations

from collections import deque
from collections.abc import Collection

from kafka_edu.v3_9.clients.common.record.record_batch import NO_PRODUCER_EPOCH, NO_SEQUENCE, NO_TIMESTAMP, RecordBatch
from kafka_edu.v3_9.storage.storage.internals.log.batch_metadata import BatchMetadata

# how many of a producer's last batches are kept to detect duplicates (the producer has at most 5 in flight)
NUM_BATCHES_TO_RETAIN = 5


class ProducerStateEntry:
    """batch_metadata runs from the lowest sequence (head) to the highest (tail); at capacity the head goes."""

    NUM_BATCHES_TO_RETAIN = NUM_BATCHES_TO_RETAIN

    @staticmethod
    def empty(producer_id: int) -> ProducerStateEntry:
        return ProducerStateEntry(producer_id, NO_PRODUCER_EPOCH, -1, NO_TIMESTAMP, None, None)

    def __init__(self, producer_id: int, producer_epoch: int, coordinator_epoch: int, last_timestamp: int,
                 current_txn_first_offset: int | None, first_batch_metadata: BatchMetadata | None) -> None:
        self._producer_id = producer_id
        self._batch_metadata: deque[BatchMetadata] = deque()
        self._producer_epoch = producer_epoch
        self._coordinator_epoch = coordinator_epoch
        self._last_timestamp = last_timestamp
        self._current_txn_first_offset = current_txn_first_offset
        if first_batch_metadata is not None:
            self._batch_metadata.append(first_batch_metadata)

    def first_seq(self) -> int:
        return NO_SEQUENCE if self.is_empty() else self._batch_metadata[0].first_seq()

    def last_seq(self) -> int:
        return NO_SEQUENCE if self.is_empty() else self._batch_metadata[-1].last_seq

    def first_data_offset(self) -> int:
        return -1 if self.is_empty() else self._batch_metadata[0].first_offset()

    def last_data_offset(self) -> int:
        return -1 if self.is_empty() else self._batch_metadata[-1].last_offset

    def last_offset_delta(self) -> int:
        return 0 if self.is_empty() else self._batch_metadata[-1].offset_delta

    def is_empty(self) -> bool:
        return not self._batch_metadata

    def with_producer_id_and_batch_metadata(self, producer_id: int,
                                            batch_metadata: BatchMetadata | None) -> ProducerStateEntry:
        """A new entry with this one's epochs, timestamp and open transaction, and the given id and batch."""
        return ProducerStateEntry(producer_id, self.producer_epoch(), self._coordinator_epoch, self._last_timestamp,
                                  self._current_txn_first_offset, batch_metadata)

    def add_batch(self, producer_epoch: int, last_seq: int, last_offset: int, offset_delta: int,
                  timestamp: int) -> None:
        self.maybe_update_producer_epoch(producer_epoch)
        self._add_batch_metadata(BatchMetadata(last_seq, last_offset, offset_delta, timestamp))
        self._last_timestamp = timestamp

    def maybe_update_producer_epoch(self, producer_epoch: int) -> bool:
        # a new epoch restarts sequences, so the batches of the old one can no longer be duplicates
        if self._producer_epoch != producer_epoch:
            self._batch_metadata.clear()
            self._producer_epoch = producer_epoch
            return True
        return False

    def _add_batch_metadata(self, batch: BatchMetadata) -> None:
        if len(self._batch_metadata) == NUM_BATCHES_TO_RETAIN:
            self._batch_metadata.popleft()
        self._batch_metadata.append(batch)

    def update(self, next_entry_or_producer_epoch: ProducerStateEntry | int, coordinator_epoch: int | None = None,
               last_timestamp: int | None = None) -> None:
        """Kafka's update(ProducerStateEntry) and update(producerEpoch, coordinatorEpoch, lastTimestamp)."""
        if isinstance(next_entry_or_producer_epoch, ProducerStateEntry):
            next_entry = next_entry_or_producer_epoch
            self._update(next_entry._producer_epoch, next_entry._coordinator_epoch, next_entry._last_timestamp,
                         next_entry._batch_metadata, next_entry._current_txn_first_offset)
        else:
            if coordinator_epoch is None or last_timestamp is None:
                raise TypeError("update(producer_epoch, coordinator_epoch, last_timestamp)")
            self._update(next_entry_or_producer_epoch, coordinator_epoch, last_timestamp, deque(), None)

    def _update(self, producer_epoch: int, coordinator_epoch: int, last_timestamp: int,
                batch_metadata: deque[BatchMetadata], current_txn_first_offset: int | None) -> None:
        self.maybe_update_producer_epoch(producer_epoch)
        # drains the other entry's batches, as Kafka's removeFirst loop does
        while batch_metadata:
            self._add_batch_metadata(batch_metadata.popleft())
        self._coordinator_epoch = coordinator_epoch
        self._current_txn_first_offset = current_txn_first_offset
        self._last_timestamp = last_timestamp

    def set_current_txn_first_offset(self, first_offset: int) -> None:
        self._current_txn_first_offset = first_offset

    def find_duplicate_batch(self, batch: RecordBatch) -> BatchMetadata | None:
        if batch.producer_epoch() != self._producer_epoch:
            return None
        return self.batch_with_sequence_range(batch.base_sequence(), batch.last_sequence())

    def batch_with_sequence_range(self, first_seq: int, last_seq: int) -> BatchMetadata | None:
        """The cached batch with exactly this sequence range, if any."""
        for metadata in self._batch_metadata:
            if first_seq == metadata.first_seq() and last_seq == metadata.last_seq:
                return metadata
        return None

    def batch_metadata(self) -> Collection[BatchMetadata]:
        return tuple(self._batch_metadata)

    def producer_epoch(self) -> int:
        return self._producer_epoch

    def producer_id(self) -> int:
        return self._producer_id

    def coordinator_epoch(self) -> int:
        return self._coordinator_epoch

    def last_timestamp(self) -> int:
        return self._last_timestamp

    def current_txn_first_offset(self) -> int | None:
        return self._current_txn_first_offset

    def __str__(self) -> str:
        return (f"ProducerStateEntry(producerId={self._producer_id}, producerEpoch={self._producer_epoch}, "
                f"currentTxnFirstOffset={self._current_txn_first_offset}, "
                f"coordinatorEpoch={self._coordinator_epoch}, lastTimestamp={self._last_timestamp}, "
                f"batchMetadata={list(self._batch_metadata)})")

    __repr__ = __str__
