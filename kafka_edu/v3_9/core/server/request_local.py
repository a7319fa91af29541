"""Port of core/src/main/scala/kafka/server/RequestLocal.scala (Kafka 3.9): what a request may use without locks
because one handler thread handles it (a buffer supplier that caches its buffer for the thread)."""

from __future__ import annotations

from dataclasses import dataclass

from kafka_edu.v3_9.clients.common.utils.buffer_supplier import BufferSupplier


@dataclass(frozen=True)
class RequestLocal:
    buffer_supplier: BufferSupplier

    @staticmethod
    def with_thread_confined_caching() -> RequestLocal:
        """Confine the instance returned to a single thread."""
        return RequestLocal(BufferSupplier.create())

    def close(self) -> None:
        self.buffer_supplier.close()


RequestLocal.NO_CACHING = RequestLocal(BufferSupplier.NO_CACHING)  # type: ignore[attr-defined]
