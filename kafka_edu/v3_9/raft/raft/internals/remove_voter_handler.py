"""Port of raft/src/main/java/org/apache/kafka/raft/internals/RemoveVoterHandler.java (Kafka 3.9).

How the leader removes a voter (RemoveRaftVoter, KIP-853): the same checks as an add (no other change pending, a
high watermark, kraft.version 1, the latest VotersRecord committed), then a VotersRecord without the voter, and the
answer once it commits. A leader that removed itself resigns then, so the remaining voters elect one of theirs.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from kafka_edu.tracing.step import span
from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.utils.timer import Timer
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.raft.raft import raft_util
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from kafka_edu.v3_9.raft.raft.internals.k_raft_control_record_state_machine import KRaftControlRecordStateMachine
from kafka_edu.v3_9.raft.raft.internals.remove_voter_handler_state import RemoveVoterHandlerState
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey

log = logging.getLogger("org.apache.kafka.raft.internals.RemoveVoterHandler")


class RemoveVoterHandler:
    def __init__(self, node_id: int | None, node_directory_id: Uuid | None,
                 partition_state: KRaftControlRecordStateMachine, time_ms: Callable[[], int],
                 request_timeout_ms: int, log_context: Any = None) -> None:
        self._local_replica_key = ReplicaKey.of(node_id, node_directory_id) if node_id is not None else None
        self._partition_state = partition_state
        self._time_ms = time_ms
        self._request_timeout_ms = request_timeout_ms

    def handle_remove_voter_request(self, leader_state: Any, voter_key: ReplicaKey,
                                    current_time_ms: int) -> CompletableFuture[Any]:
        if leader_state.is_operation_pending(current_time_ms):
            return CompletableFuture.completed_future(raft_util.remove_voter_response(
                Errors.REQUEST_TIMED_OUT,
                "Request timed out waiting for leader to handle previous voter change request"))
        high_watermark_metadata = leader_state.high_watermark()
        if high_watermark_metadata is None:
            return CompletableFuture.completed_future(raft_util.remove_voter_response(
                Errors.REQUEST_TIMED_OUT,
                "Request timed out waiting for leader to establish HWM and fence previous voter changes"))
        high_watermark = high_watermark_metadata.offset
        kraft_version = self._partition_state.last_kraft_version()
        if not kraft_version.is_reconfig_supported():
            return CompletableFuture.completed_future(raft_util.remove_voter_response(
                Errors.UNSUPPORTED_VERSION,
                f"Cluster doesn't support removing voter because the {kraft_version.feature_name()} feature is "
                f"{kraft_version.feature_level()}"))
        voters_entry = self._partition_state.last_voter_set_entry()
        if voters_entry is None or voters_entry.offset >= high_watermark:
            return CompletableFuture.completed_future(raft_util.remove_voter_response(
                Errors.REQUEST_TIMED_OUT,
                f"Request timed out waiting for voters to commit the latest voter change at "
                f"{voters_entry.offset if voters_entry is not None else None} with HWM {high_watermark}"))
        new_voters = voters_entry.value.remove_voter(voter_key)
        if new_voters is None:
            return CompletableFuture.completed_future(raft_util.remove_voter_response(
                Errors.VOTER_NOT_FOUND,
                f"Cannot remove voter {voter_key} from the set of voters "
                f"{[str(key) for key in voters_entry.value.voter_keys()]}"))
        state = RemoveVoterHandlerState(leader_state.append_voters_record(new_voters, current_time_ms),
                                        Timer(self._time_ms(), self._request_timeout_ms))
        leader_state.reset_remove_voter_handler_state(Errors.UNKNOWN_SERVER_ERROR, None, state)
        return state.future()

    @span("RemoveVoterHandler.highWatermarkUpdated")
    def high_watermark_updated(self, leader_state: Any) -> None:
        current: RemoveVoterHandlerState | None = leader_state.remove_voter_handler_state()
        high_watermark = leader_state.high_watermark()
        if current is None or high_watermark is None or high_watermark.offset <= current.last_offset():
            return
        # the VotersRecord without the voter is committed: the request is done
        leader_state.reset_remove_voter_handler_state(Errors.NONE, None, None)
        voters = self._partition_state.last_voter_set()
        if self._local_replica_key is None:
            raise IllegalStateException(f"Leaders mush have an id and directory id {self._local_replica_key}")
        if not voters.is_voter(self._local_replica_key):
            log.info("Leader is not in the committed voter set %s resign from epoch %d",
                     [str(key) for key in voters.voter_keys()], leader_state.epoch())
            leader_state.request_resign()
