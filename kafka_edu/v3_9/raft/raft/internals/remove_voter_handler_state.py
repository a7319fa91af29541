"""Port of raft/src/main/java/org/apache/kafka/raft/internals/RemoveVoterHandlerState.java (Kafka 3.9).

The RemoveRaftVoter the leader is working on: its VotersRecord is appended at `last_offset`, waiting to commit.
"""

from __future__ import annotations

from typing import Any

from kafka_edu.v3_9.clients.common.utils.timer import Timer
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture


class RemoveVoterHandlerState:
    def __init__(self, last_offset: int, timeout: Timer) -> None:
        self._last_offset = last_offset
        self._timeout = timeout
        self._future: CompletableFuture[Any] = CompletableFuture()

    def time_until_operation_expiration(self, current_time_ms: int) -> int:
        self._timeout.update(current_time_ms)
        return self._timeout.remaining_ms()

    def future(self) -> CompletableFuture[Any]:
        return self._future

    def last_offset(self) -> int:
        return self._last_offset
