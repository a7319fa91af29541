"""Port of raft/src/main/java/org/apache/kafka/raft/internals/AddVoterHandler.java (Kafka 3.9).

How the leader adds a voter (AddRaftVoter, KIP-853):

1. refuse at once if another voter change is pending, the leader has no high watermark yet (it has not committed
   its epoch, so older leaders' voter changes may be in flight), kraft.version is 0, the latest VotersRecord is not
   committed, or the id is a voter already;
2. send ApiVersions to the new voter, to learn the kraft.version range it supports;
3. on the answer: it must support the finalized kraft.version and be caught up (an observer that fetched the end of
   the log in the last hour); then append a VotersRecord with it added;
4. answer the request once the high watermark passes that record.

One change at a time, each a single voter: any majority of the old set overlaps any majority of the new.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from kafka_edu.tracing.step import step
from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, IllegalStateException
from kafka_edu.v3_9.clients.common.feature.supported_version_range import SupportedVersionRange
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.utils.timer import Timer
from kafka_edu.v3_9.raft.raft import raft_util
from kafka_edu.v3_9.raft.raft.endpoints import Endpoints
from kafka_edu.v3_9.raft.raft.internals.add_voter_handler_state import AddVoterHandlerState
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from kafka_edu.v3_9.raft.raft.internals.k_raft_control_record_state_machine import KRaftControlRecordStateMachine
from kafka_edu.v3_9.raft.raft.internals.request_sender import RequestSender
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey
from kafka_edu.v3_9.raft.raft.voter_set import Node, VoterNode
from kafka_edu.v3_9.server_common.server.common.k_raft_version import FEATURE_NAME, KRaftVersion

log = logging.getLogger("org.apache.kafka.raft.internals.AddVoterHandler")


class AddVoterHandler:
    def __init__(self, partition_state: KRaftControlRecordStateMachine, request_sender: RequestSender,
                 time_ms: Callable[[], int], log_context: Any = None) -> None:
        self._partition_state = partition_state
        self._request_sender = request_sender
        self._time_ms = time_ms

    def handle_add_voter_request(self, leader_state: Any, voter_key: ReplicaKey, voter_endpoints: Endpoints,
                                 current_time_ms: int) -> CompletableFuture[Any]:
        if leader_state.is_operation_pending(current_time_ms):
            return CompletableFuture.completed_future(raft_util.add_voter_response(
                Errors.REQUEST_TIMED_OUT,
                "Request timed out waiting for leader to handle previous voter change request"))
        high_watermark_metadata = leader_state.high_watermark()
        if high_watermark_metadata is None:
            return CompletableFuture.completed_future(raft_util.add_voter_response(
                Errors.REQUEST_TIMED_OUT,
                "Request timed out waiting for leader to establish HWM and fence previous voter changes"))
        high_watermark = high_watermark_metadata.offset
        kraft_version = self._partition_state.last_kraft_version()
        if not kraft_version.is_reconfig_supported():
            return CompletableFuture.completed_future(raft_util.add_voter_response(
                Errors.UNSUPPORTED_VERSION,
                f"Cluster doesn't support adding voter because the {kraft_version.feature_name()} feature is "
                f"{kraft_version.feature_level()}"))
        voters_entry = self._partition_state.last_voter_set_entry()
        if voters_entry is None or voters_entry.offset >= high_watermark:
            return CompletableFuture.completed_future(raft_util.add_voter_response(
                Errors.REQUEST_TIMED_OUT,
                f"Request timed out waiting for voters to commit the latest voter change at "
                f"{voters_entry.offset if voters_entry is not None else None} with HWM {high_watermark}"))
        voters = voters_entry.value
        if voter_key.id in voters.voter_ids():
            return CompletableFuture.completed_future(raft_util.add_voter_response(
                Errors.DUPLICATE_VOTER,
                f"The voter id for {voter_key} is already part of the set of voters "
                f"{[str(key) for key in voters.voter_keys()]}."))
        address = voter_endpoints.address(self._request_sender.listener_name())
        if address is None:
            raise IllegalArgumentException(f"Provided listeners {voter_endpoints} do not contain a listener for "
                                           f"{self._request_sender.listener_name()}")
        timeout = self._request_sender.send(Node(voter_key.id, address[0], address[1]),
                                            self._build_api_versions_request, current_time_ms)
        if timeout is None:
            return CompletableFuture.completed_future(raft_util.add_voter_response(
                Errors.REQUEST_TIMED_OUT, f"New voter {voter_key} is not ready to receive requests"))
        state = AddVoterHandlerState(voter_key, voter_endpoints, Timer(self._time_ms(), timeout))
        leader_state.reset_add_voter_handler_state(Errors.UNKNOWN_SERVER_ERROR, None, state)
        return state.future()

    @step("KV.apiv")
    def handle_api_versions_response(self, leader_state: Any, source: Node, error: Errors,
                                     supported_kraft_versions: Any, current_time_ms: int) -> bool:
        """`supported_kraft_versions`: the answer's kraft.version SupportedFeatureKey, or None."""
        current: AddVoterHandlerState | None = leader_state.add_voter_handler_state()
        if current is None:
            return True  # no add in progress: a late answer
        if not current.expecting_api_response(source.id):
            log.info("API_VERSIONS response is not expected from %s: voterKey is %s, lastOffset is %s", source,
                     current.voter_key(), current.last_offset())
            return True
        if error is not Errors.NONE:
            log.info("Aborting add voter operation for %s at %s since API_VERSIONS returned an error %s",
                     current.voter_key(), current.voter_endpoints(), error.name)
            leader_state.reset_add_voter_handler_state(
                Errors.REQUEST_TIMED_OUT,
                f"Aborted add voter operation for since API_VERSIONS returned an error {error.name}", None)
            return False
        kraft_version = self._partition_state.last_kraft_version()
        if not self._valid_version_range(kraft_version, supported_kraft_versions):
            log.info("Aborting add voter operation for %s at %s since kraft.version range %s doesn't support "
                     "reconfiguration", current.voter_key(), current.voter_endpoints(), supported_kraft_versions)
            range_str = (f"(min: {supported_kraft_versions.min_version}, max: {supported_kraft_versions.max_version}"
                         if supported_kraft_versions is not None else "(min: 0, max: 0)")
            leader_state.reset_add_voter_handler_state(
                Errors.INVALID_REQUEST,
                f"Aborted add voter operation for {current.voter_key()} since the {FEATURE_NAME} range {range_str} "
                f"doesn't support the finalized version {kraft_version.feature_level()}", None)
            return True
        if not leader_state.is_replica_caught_up(current.voter_key(), current_time_ms):
            log.info("Aborting add voter operation for %s at %s since it is lagging behind: %s", current.voter_key(),
                     current.voter_endpoints(), leader_state.get_replica_state(current.voter_key()))
            leader_state.reset_add_voter_handler_state(
                Errors.REQUEST_TIMED_OUT,
                f"Aborted add voter operation for {current.voter_key()} since it is lagging behind", None)
            return True
        new_voters = self._partition_state.last_voter_set().add_voter(VoterNode.of(
            current.voter_key(), current.voter_endpoints(),
            SupportedVersionRange(int(supported_kraft_versions.min_version),
                                  int(supported_kraft_versions.max_version))))
        if new_voters is None:
            raise IllegalStateException(f"Unable to add {current.voter_key()} to the set of voters "
                                        f"{self._partition_state.last_voter_set()}")
        current.set_last_offset(leader_state.append_voters_record(new_voters, current_time_ms))
        return True

    @step("KV.commit")
    def high_watermark_updated(self, leader_state: Any) -> None:
        current: AddVoterHandlerState | None = leader_state.add_voter_handler_state()
        high_watermark = leader_state.high_watermark()
        if current is None or high_watermark is None:
            return
        last_offset = current.last_offset()
        if last_offset is not None and high_watermark.offset > last_offset:
            # the VotersRecord with the new voter is committed: the request is done
            leader_state.reset_add_voter_handler_state(Errors.NONE, None, None)

    def _build_api_versions_request(self) -> Any:
        return raft_util.api_versions_request()

    @staticmethod
    def _valid_version_range(finalized_version: KRaftVersion, supported_kraft_versions: Any) -> bool:
        return (supported_kraft_versions is not None
                and supported_kraft_versions.min_version <= finalized_version.feature_level()
                and supported_kraft_versions.max_version >= finalized_version.feature_level())
