"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/VerificationStateEntry.java (Kafka 3.9): the
verification state of one producer id between "the coordinator says the transaction is ongoing" and the append,
which keeps a transaction from hanging when its marker races the data."""

from __future__ import annotations

from kafka_edu.v3_9.storage.storage.internals.log.verification_guard import VerificationGuard


class VerificationStateEntry:
    """Also keeps the lowest sequence seen, so a higher sequence cannot be written while a lower one is retried."""

    def __init__(self, timestamp: int, sequence: int, epoch: int) -> None:
        self._timestamp = timestamp
        self._verification_guard = VerificationGuard()
        self._lowest_sequence = sequence
        self._epoch = epoch

    def timestamp(self) -> int:
        return self._timestamp

    def verification_guard(self) -> VerificationGuard:
        return self._verification_guard

    def lowest_sequence(self) -> int:
        return self._lowest_sequence

    def epoch(self) -> int:
        return self._epoch

    def maybe_update_lowest_sequence_and_epoch(self, incoming_sequence: int, incoming_epoch: int) -> None:
        """Lower the sequence for a lower one in the same epoch; a bumped epoch resets both, since sequences
        restart with a new epoch."""
        if incoming_epoch == self._epoch and incoming_sequence < self._lowest_sequence:
            self._lowest_sequence = incoming_sequence
        if incoming_epoch > self._epoch:
            self._epoch = incoming_epoch
            self._lowest_sequence = incoming_sequence
