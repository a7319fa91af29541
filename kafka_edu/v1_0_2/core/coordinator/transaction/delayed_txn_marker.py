"""Port of core/src/main/scala/kafka/coordinator/transaction/DelayedTxnMarker.scala (Kafka 1.0.2)."""

from __future__ import annotations

from collections.abc import Callable

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_metadata import TransactionMetadata
from kafka_edu.v1_0_2.core.server.delayed_operation import DelayedOperation
from kafka_edu.v3_9.clients.common.protocol.errors import Errors

# Never expires: the markers are retried until every partition has its own (or the coordinator moves).
_A_HUNDRED_YEARS_MS = 100 * 365 * 24 * 60 * 60 * 1000


class DelayedTxnMarker(DelayedOperation):
    """Waits until every partition of the transaction has acknowledged its marker, then completes the transaction."""

    def __init__(self, txn_metadata: TransactionMetadata, completion_callback: Callable[[Errors], None]) -> None:
        super().__init__(_A_HUNDRED_YEARS_MS)
        self.txn_metadata = txn_metadata
        self.completion_callback = completion_callback

    def try_complete(self) -> bool:
        # Checked under the metadata's lock, completed outside it: the completion appends to the log.
        with self.txn_metadata.in_lock():
            all_written = not self.txn_metadata.topic_partitions
        return self.force_complete() if all_written else False

    def on_expiration(self) -> None:
        raise IllegalStateException(f"Delayed write txn marker operation for metadata {self.txn_metadata} has timed "
                                    "out, this should never happen.")

    def on_complete(self) -> None:
        self.completion_callback(Errors.NONE)
