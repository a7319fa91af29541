"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/ProducerStateManagerConfig.java (Kafka 3.9):
the two producer-state settings a broker can change at runtime."""

from __future__ import annotations


class ProducerStateManagerConfig:
    """Mutable (Kafka's fields are volatile): a dynamic config update reaches every partition's manager at once."""

    def __init__(self, producer_id_expiration_ms: int, transaction_verification_enabled: bool) -> None:
        self._producer_id_expiration_ms = producer_id_expiration_ms
        self._transaction_verification_enabled = transaction_verification_enabled

    def set_producer_id_expiration_ms(self, producer_id_expiration_ms: int) -> None:
        self._producer_id_expiration_ms = producer_id_expiration_ms

    def set_transaction_verification_enabled(self, transaction_verification_enabled: bool) -> None:
        self._transaction_verification_enabled = transaction_verification_enabled

    def producer_id_expiration_ms(self) -> int:
        return self._producer_id_expiration_ms

    def transaction_verification_enabled(self) -> bool:
        return self._transaction_verification_enabled
