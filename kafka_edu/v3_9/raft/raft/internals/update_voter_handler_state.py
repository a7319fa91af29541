"""Port of raft/src/main/java/org/apache/kafka/raft/internals/UpdateVoterHandlerState.java (Kafka 3.9).

3.9's UpdateVoterHandler answers at once and never builds one; the class is kept as Kafka has it.
"""

from __future__ import annotations

from typing import Any

from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.utils.timer import Timer
from kafka_edu.v3_9.raft.raft import raft_util
from kafka_edu.v3_9.raft.raft.endpoints import Endpoints
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from kafka_edu.v3_9.raft.raft.leader_and_epoch import LeaderAndEpoch


class UpdateVoterHandlerState:
    def __init__(self, last_offset: int, request_listener_name: str, timeout: Timer) -> None:
        self._last_offset = last_offset
        self._request_listener_name = request_listener_name
        self._timeout = timeout
        self._future: CompletableFuture[Any] = CompletableFuture()

    def time_until_operation_expiration(self, current_time_ms: int) -> int:
        self._timeout.update(current_time_ms)
        return self._timeout.remaining_ms()

    def future(self) -> CompletableFuture[Any]:
        return self._future

    def complete_future(self, error: Errors, leader_and_epoch: LeaderAndEpoch, leader_endpoints: Endpoints) -> None:
        self._future.complete(raft_util.update_voter_response(error, self._request_listener_name, leader_and_epoch,
                                                              leader_endpoints))

    def last_offset(self) -> int:
        return self._last_offset
