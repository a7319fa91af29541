"""Port of raft/src/main/java/org/apache/kafka/raft/internals/AddVoterHandlerState.java (Kafka 3.9).

The AddRaftVoter the leader is working on: first waiting for the new voter's ApiVersions answer, then (once the
VotersRecord is appended, `last_offset` set) for that record to commit.
"""

from __future__ import annotations

from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v3_9.clients.common.utils.timer import Timer
from kafka_edu.v3_9.raft.raft.endpoints import Endpoints
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey


class AddVoterHandlerState:
    def __init__(self, voter_key: ReplicaKey, voter_endpoints: Endpoints, timeout: Timer) -> None:
        self._voter_key = voter_key
        self._voter_endpoints = voter_endpoints
        self._timeout = timeout
        self._future: CompletableFuture[Any] = CompletableFuture()
        self._last_offset: int | None = None

    def time_until_operation_expiration(self, current_time_ms: int) -> int:
        self._timeout.update(current_time_ms)
        return self._timeout.remaining_ms()

    def expecting_api_response(self, replica_id: int) -> bool:
        # only before the record is appended, and only from the replica being added
        return self._last_offset is None and replica_id == self._voter_key.id

    def set_last_offset(self, last_offset: int) -> None:
        if self._last_offset is not None:
            raise IllegalStateException(
                f"Cannot override last offset to {last_offset} for adding voter {self._voter_key} because it is "
                f"already set to {self._last_offset}")
        self._last_offset = last_offset

    def voter_key(self) -> ReplicaKey:
        return self._voter_key

    def voter_endpoints(self) -> Endpoints:
        return self._voter_endpoints

    def last_offset(self) -> int | None:
        return self._last_offset

    def future(self) -> CompletableFuture[Any]:
        return self._future
