"""Port of clients/src/main/java/org/apache/kafka/common/requests/TransactionResult.java (Kafka 1.0.2)."""

from __future__ import annotations

import enum


class TransactionResult(enum.Enum):
    """How a transaction ended, as EndTxn and WriteTxnMarkers carry it: a boolean, true for COMMIT."""

    ABORT = False
    COMMIT = True

    @property
    def id(self) -> bool:
        return self.value

    @staticmethod
    def for_id(id: bool) -> TransactionResult:
        return TransactionResult.COMMIT if id else TransactionResult.ABORT
