"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/FetchIsolation.java (Kafka 3.9): how far up
the log a fetch may read: the log end (replicas), the high watermark, or the last stable offset (read_committed)."""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

from kafka_edu.v1_0_2.clients.common.requests.isolation_level import IsolationLevel

if TYPE_CHECKING:
    from kafka_edu.v3_9.clients.common.requests.fetch_request import FetchRequest


class FetchIsolation(enum.Enum):
    LOG_END = "LOG_END"
    HIGH_WATERMARK = "HIGH_WATERMARK"
    TXN_COMMITTED = "TXN_COMMITTED"

    @staticmethod
    def of(request_or_replica_id: FetchRequest | int,
           isolation_level: IsolationLevel | None = None) -> FetchIsolation:
        """of(FetchRequest) and of(replicaId, isolationLevel)."""
        from kafka_edu.v3_9.clients.common.requests.fetch_request import FetchRequest
        if isinstance(request_or_replica_id, FetchRequest):
            replica_id = request_or_replica_id.replica_id()
            isolation_level = request_or_replica_id.isolation_level()
        else:
            replica_id = request_or_replica_id
        if not FetchRequest.is_consumer(replica_id):
            return FetchIsolation.LOG_END
        if isolation_level is IsolationLevel.READ_COMMITTED:
            return FetchIsolation.TXN_COMMITTED
        return FetchIsolation.HIGH_WATERMARK
