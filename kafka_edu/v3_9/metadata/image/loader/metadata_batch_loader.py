"""Port of metadata/src/main/java/org/apache/kafka/image/loader/MetadataBatchLoader.java (Kafka 3.9)."""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any

from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.metadata.common.metadata.metadata_record_type import MetadataRecordType
from kafka_edu.v3_9.metadata.image.loader.log_delta_manifest import LogDeltaManifest
from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.metadata.image.metadata_provenance import MetadataProvenance
from kafka_edu.v3_9.raft.raft.batch import Batch
from kafka_edu.v3_9.raft.raft.leader_and_epoch import LeaderAndEpoch
from kafka_edu.v3_9.server_common.server.common.api_message_and_version import ApiMessageAndVersion

MetadataUpdater = Callable[[MetadataDelta, MetadataImage, LogDeltaManifest], None]


class TransactionState(enum.Enum):
    NO_TRANSACTION = "NO_TRANSACTION"
    STARTED_TRANSACTION = "STARTED_TRANSACTION"
    CONTINUED_TRANSACTION = "CONTINUED_TRANSACTION"
    ENDED_TRANSACTION = "ENDED_TRANSACTION"
    ABORTED_TRANSACTION = "ABORTED_TRANSACTION"


class MetadataBatchLoader:
    """Folds committed batches into one MetadataDelta and hands it on (`callback`) when a commit is done.

    The batches of one handleCommit make one delta, so publishers see fewer, larger updates. A metadata transaction
    (KIP-866: BeginTransactionRecord ... EndTransactionRecord) is published whole or, if aborted, not at all.
    """

    def __init__(self, log_context: str, time_ns: Callable[[], int], fault_handler: Any,
                 callback: MetadataUpdater) -> None:
        self.log = Logging("org.apache.kafka.image.loader.MetadataBatchLoader", log_context)
        self.time_ns = time_ns
        self.fault_handler = fault_handler
        self.callback = callback
        self.reset_to_image(MetadataImage.EMPTY)
        self._has_seen_record = False

    def has_seen_record(self) -> bool:
        """True once a record (not a transaction marker) was loaded, or an image was published."""
        return self._has_seen_record

    def reset_to_image(self, image: MetadataImage) -> None:
        """Start again from `image`, dropping anything not yet flushed: after a publish, or a snapshot load."""
        self.image = image
        self._has_seen_record = True
        self.delta = MetadataDelta.Builder().set_image(image).build()
        self.transaction_state = TransactionState.NO_TRANSACTION
        self.last_offset = image.provenance.last_contained_offset
        self.last_epoch = image.provenance.last_contained_epoch
        self.last_contained_log_time_ms = image.provenance.last_contained_log_time_ms
        self.num_bytes = 0
        self.num_batches = 0
        self.total_batch_elapsed_ns = 0

    def load_batch(self, batch: Batch[ApiMessageAndVersion], leader_and_epoch: LeaderAndEpoch) -> int:
        """Replay one batch into the delta; returns the nanoseconds spent on this commit's batches so far.

        A batch that starts a transaction first publishes what came before it, so the transaction is a delta of its
        own.
        """
        start_ns = self.time_ns()
        index_within_batch = 0
        self.last_contained_log_time_ms = batch.append_timestamp
        self.last_epoch = batch.epoch
        for record in batch.records:
            try:
                self._replay(record)
            except Exception as e:
                self.fault_handler.handle_fault(f"Error loading metadata log record from offset "
                                                f"{batch.base_offset + index_within_batch}", e)
            # a transaction starts: publish what was loaded before it, unless it is the first thing loaded
            if (self.transaction_state is TransactionState.STARTED_TRANSACTION
                    and (index_within_batch > 0 or self.num_batches > 0)):
                provenance = MetadataProvenance(self.last_offset, self.last_epoch, self.last_contained_log_time_ms)
                manifest = (LogDeltaManifest.new_builder()
                            .provenance(provenance)
                            .leader_and_epoch(leader_and_epoch)
                            .num_batches(self.num_batches)  # zero when no batch was read before
                            .elapsed_ns(self.total_batch_elapsed_ns)
                            .num_bytes(self.num_bytes)
                            .build())
                self.log.debug("handleCommit: Generated a metadata delta between %d and %d from %d batch(es) in "
                               "%d us.", self.image.offset(), provenance.last_contained_offset, manifest.num_batches,
                               manifest.elapsed_ns // 1000)
                self._apply_delta_and_update(self.delta, manifest)
                self.transaction_state = TransactionState.STARTED_TRANSACTION
            self.last_offset = batch.base_offset + index_within_batch
            index_within_batch += 1
        elapsed_ns = self.time_ns() - start_ns
        # the bytes count in the last delta of the batch or transaction
        self.last_offset = batch.last_offset
        self.num_bytes += batch.size_in_bytes
        self.num_batches += 1
        self.total_batch_elapsed_ns += elapsed_ns
        return self.total_batch_elapsed_ns

    def maybe_flush_batches(self, leader_and_epoch: LeaderAndEpoch) -> None:
        """Hand on what was loaded, unless a transaction is still open."""
        provenance = MetadataProvenance(self.last_offset, self.last_epoch, self.last_contained_log_time_ms)
        manifest = (LogDeltaManifest.new_builder()
                    .provenance(provenance)
                    .leader_and_epoch(leader_and_epoch)
                    .num_batches(self.num_batches)
                    .elapsed_ns(self.total_batch_elapsed_ns)
                    .num_bytes(self.num_bytes)
                    .build())
        state = self.transaction_state
        if state in (TransactionState.STARTED_TRANSACTION, TransactionState.CONTINUED_TRANSACTION):
            self.log.debug("handleCommit: not publishing since a transaction starting at %d is still in progress. "
                           "%d batch(es) processed so far.", self.image.offset(), self.num_batches)
        elif state is TransactionState.ABORTED_TRANSACTION:
            self.log.debug("handleCommit: publishing empty delta between %d and %d from %d batch(es) since a "
                           "transaction was aborted", self.image.offset(), provenance.last_contained_offset,
                           manifest.num_batches)
            self._apply_delta_and_update(MetadataDelta.Builder().set_image(self.image).build(), manifest)
        else:  # ENDED_TRANSACTION, NO_TRANSACTION
            self.log.debug("handleCommit: Generated a metadata delta between %d and %d from %d batch(es) in %d us.",
                           self.image.offset(), provenance.last_contained_offset, manifest.num_batches,
                           manifest.elapsed_ns // 1000)
            self._apply_delta_and_update(self.delta, manifest)

    def _replay(self, record: ApiMessageAndVersion) -> None:
        record_type = MetadataRecordType.for_message(record.message)
        state = self.transaction_state
        in_transaction = state in (TransactionState.STARTED_TRANSACTION, TransactionState.CONTINUED_TRANSACTION)
        if record_type is MetadataRecordType.BEGIN_TRANSACTION_RECORD:
            if in_transaction:
                raise RuntimeError("Encountered BeginTransactionRecord while already in a transaction")
            self.transaction_state = TransactionState.STARTED_TRANSACTION
        elif record_type is MetadataRecordType.END_TRANSACTION_RECORD:
            if not in_transaction:
                raise RuntimeError("Encountered EndTransactionRecord without having seen a BeginTransactionRecord")
            self.transaction_state = TransactionState.ENDED_TRANSACTION
        elif record_type is MetadataRecordType.ABORT_TRANSACTION_RECORD:
            if not in_transaction:
                raise RuntimeError("Encountered AbortTransactionRecord without having seen a BeginTransactionRecord")
            self.transaction_state = TransactionState.ABORTED_TRANSACTION
        else:
            if state is TransactionState.STARTED_TRANSACTION:
                self.transaction_state = TransactionState.CONTINUED_TRANSACTION
            elif state in (TransactionState.ENDED_TRANSACTION, TransactionState.ABORTED_TRANSACTION):
                self.transaction_state = TransactionState.NO_TRANSACTION
            self._has_seen_record = True
            self.delta.replay(record.message)

    def _apply_delta_and_update(self, delta: MetadataDelta, manifest: LogDeltaManifest) -> None:
        try:
            self.image = delta.apply(manifest.provenance())
        except Exception as e:
            self.fault_handler.handle_fault(f"Error generating new metadata image from metadata delta between offset "
                                            f"{self.image.offset()} and {manifest.provenance().last_contained_offset}",
                                            e)
        # published or not, the batch loader goes on from the image the MetadataLoader knows
        self.callback(delta, self.image, manifest)
        self.reset_to_image(self.image)
