"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/TxnIndexSearchResult.java (Kafka 3.9): the
aborted transactions a fetch range overlaps in one segment, and whether the search may stop at that segment."""

from __future__ import annotations

from collections.abc import Iterable

from kafka_edu.v3_9.storage.storage.internals.log.aborted_txn import AbortedTxn


class TxnIndexSearchResult:
    def __init__(self, aborted_transactions: Iterable[AbortedTxn], is_complete: bool) -> None:
        self.aborted_transactions: tuple[AbortedTxn, ...] = tuple(aborted_transactions)
        self.is_complete = is_complete
