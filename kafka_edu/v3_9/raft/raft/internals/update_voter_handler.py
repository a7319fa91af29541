"""Port of raft/src/main/java/org/apache/kafka/raft/internals/UpdateVoterHandler.java (Kafka 3.9).

How the leader takes a voter's new listeners or kraft.version range (UpdateRaftVoter, KIP-853): the usual checks,
the range must include the finalized kraft.version and the listeners the default one; then a VotersRecord with the
voter updated, and an answer at once (it does not wait for the commit).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kafka_edu.tracing.step import step
from kafka_edu.v3_9.clients.common.feature.supported_version_range import SupportedVersionRange
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.raft.raft import raft_util
from kafka_edu.v3_9.raft.raft.endpoints import Endpoints
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from kafka_edu.v3_9.raft.raft.internals.k_raft_control_record_state_machine import KRaftControlRecordStateMachine
from kafka_edu.v3_9.raft.raft.leader_and_epoch import LeaderAndEpoch
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey
from kafka_edu.v3_9.raft.raft.voter_set import VoterNode
from kafka_edu.v3_9.server_common.server.common.k_raft_version import KRaftVersion


class UpdateVoterHandler:
    def __init__(self, local_id: int | None, partition_state: KRaftControlRecordStateMachine,
                 default_listener_name: str, time_ms: Callable[[], int], request_timeout_ms: int) -> None:
        self._local_id = local_id
        self._partition_state = partition_state
        self._default_listener_name = default_listener_name
        self._time_ms = time_ms
        self._request_timeout_ms = request_timeout_ms

    @step("KV.update")
    def handle_update_voter_request(self, leader_state: Any, request_listener_name: str, voter_key: ReplicaKey,
                                    voter_endpoints: Endpoints, supported_kraft_versions: Any,
                                    current_time_ms: int) -> CompletableFuture[Any]:
        """`supported_kraft_versions`: the request's KRaftVersionFeature."""
        def response(error: Errors) -> CompletableFuture[Any]:
            # every answer names this leader, at the address of the listener the request came in on
            return CompletableFuture.completed_future(raft_util.update_voter_response(
                error, request_listener_name, LeaderAndEpoch(self._local_id, leader_state.epoch()),
                leader_state.leader_endpoints()))

        if leader_state.is_operation_pending(current_time_ms):
            return response(Errors.REQUEST_TIMED_OUT)
        high_watermark_metadata = leader_state.high_watermark()
        if high_watermark_metadata is None:
            return response(Errors.REQUEST_TIMED_OUT)
        high_watermark = high_watermark_metadata.offset
        # kraft.version 0 (KAFKA-16538, after 3.9) is refused
        kraft_version = self._partition_state.last_kraft_version()
        if not kraft_version.is_reconfig_supported():
            return response(Errors.UNSUPPORTED_VERSION)
        voters_entry = self._partition_state.last_voter_set_entry()
        if voters_entry is None or voters_entry.offset >= high_watermark:
            return response(Errors.REQUEST_TIMED_OUT)
        if not self._valid_version_range(kraft_version, supported_kraft_versions):
            return response(Errors.INVALID_REQUEST)
        if voter_endpoints.address(self._default_listener_name) is None:
            return response(Errors.INVALID_REQUEST)
        updated_voters = voters_entry.value.update_voter(VoterNode.of(
            voter_key, voter_endpoints,
            SupportedVersionRange(int(supported_kraft_versions.min_supported_version),
                                  int(supported_kraft_versions.max_supported_version))))
        if updated_voters is None:
            return response(Errors.VOTER_NOT_FOUND)
        leader_state.append_voters_record(updated_voters, current_time_ms)
        # answered now, not when the record commits
        return response(Errors.NONE)

    @staticmethod
    def _valid_version_range(finalized_version: KRaftVersion, supported_kraft_versions: Any) -> bool:
        return (supported_kraft_versions.min_supported_version <= finalized_version.feature_level()
                and supported_kraft_versions.max_supported_version >= finalized_version.feature_level())
