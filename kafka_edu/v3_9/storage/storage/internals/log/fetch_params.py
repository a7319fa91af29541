"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/FetchParams.java (Kafka 3.9): who fetches
(follower, future replica or consumer), how long and how much it waits for, and up to which offset it may read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kafka_edu.v3_9.storage.storage.internals.log.fetch_isolation import FetchIsolation

CONSUMER_REPLICA_ID = -1  # FetchRequest.CONSUMER_REPLICA_ID
FUTURE_LOCAL_REPLICA_ID = -3  # FetchRequest.FUTURE_LOCAL_REPLICA_ID


@dataclass(frozen=True)
class FetchParams:
    request_version: int
    replica_id: int
    replica_epoch: int
    max_wait_ms: int
    min_bytes: int
    max_bytes: int
    isolation: FetchIsolation
    client_metadata: Any | None = None  # Optional<ClientMetadata>

    def is_from_follower(self) -> bool:
        return self.replica_id >= 0  # FetchRequest.isValidBrokerId

    def is_from_future(self) -> bool:
        return self.replica_id == FUTURE_LOCAL_REPLICA_ID

    def is_from_consumer(self) -> bool:
        return self.replica_id < 0 and self.replica_id != FUTURE_LOCAL_REPLICA_ID  # FetchRequest.isConsumer

    def fetch_only_leader(self) -> bool:
        return self.is_from_follower() or (self.is_from_consumer() and self.client_metadata is None)

    def hard_max_bytes_limit(self) -> bool:
        return self.request_version <= 2
