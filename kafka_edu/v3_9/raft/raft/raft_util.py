"""Port of raft/src/main/java/org/apache/kafka/raft/RaftUtil.java (Kafka 3.9): the single-partition requests and
responses of the raft RPCs, as kio objects.

A replica sends Vote, BeginQuorumEpoch, EndQuorumEpoch and FetchSnapshot at v1 and Fetch at v17, with no directory
ids (static voters). It answers each request at the version it came in: `build` keeps the fields that version has.
"""

from __future__ import annotations

import uuid as _uuid
from typing import Any

from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.raft.raft.endpoints import Endpoints
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey

VOTE_VERSION = 1
BEGIN_QUORUM_EPOCH_VERSION = 1
END_QUORUM_EPOCH_VERSION = 1
FETCH_SNAPSHOT_VERSION = 1
FETCH_VERSION = 17
# KIP-853: the leader asks a new voter its kraft.version range with ApiVersions before adding it
API_VERSIONS_VERSION = 3
ADD_RAFT_VOTER_VERSION = 0
REMOVE_RAFT_VOTER_VERSION = 0
UPDATE_RAFT_VOTER_VERSION = 0
# what each request type is sent as
REQUEST_VERSIONS = {ApiKeys.VOTE: VOTE_VERSION, ApiKeys.BEGIN_QUORUM_EPOCH: BEGIN_QUORUM_EPOCH_VERSION,
                    ApiKeys.END_QUORUM_EPOCH: END_QUORUM_EPOCH_VERSION, ApiKeys.FETCH_SNAPSHOT: FETCH_SNAPSHOT_VERSION,
                    ApiKeys.FETCH: FETCH_VERSION, ApiKeys.API_VERSIONS: API_VERSIONS_VERSION,
                    ApiKeys.ADD_RAFT_VOTER: ADD_RAFT_VOTER_VERSION,
                    ApiKeys.REMOVE_RAFT_VOTER: REMOVE_RAFT_VOTER_VERSION,
                    ApiKeys.UPDATE_RAFT_VOTER: UPDATE_RAFT_VOTER_VERSION}


def kio_uuid(value: Uuid | None) -> _uuid.UUID | None:
    return None if value is None else _uuid.UUID(bytes=value.to_bytes())


def from_kio_uuid(value: _uuid.UUID | None) -> Uuid | None:
    return None if value is None or value.int == 0 else Uuid.from_bytes(value.bytes)


def _request(api: ApiKeys, **values: Any) -> Any:
    return build(api.request_schema(REQUEST_VERSIONS[api]), **values)


def _response(api: ApiKeys, api_version: int, **values: Any) -> Any:
    return build(api.response_schema(api_version), **values)


def error_response(api: ApiKeys, error: Errors, api_version: int | None = None) -> Any:
    """A response carrying only a top-level error (what a request that failed on the wire gets)."""
    version = REQUEST_VERSIONS.get(api, api.latest_version) if api_version is None else api_version
    values: dict[str, Any] = {"error_code": error, "topics": [], "responses": [], "throttle_time": 0,
                              "error_message": None, "nodes": [], "api_keys": [],
                              "current_leader": {"leader_id": -1, "leader_epoch": -1, "host": "", "port": 0}}
    return _response(api, version, **values)


def has_valid_topic_partition(data: Any, topic_partition: Any, topic_id: Uuid | None = None) -> bool:
    """Exactly one topic with one partition, and it is ours (by name, or by id for Fetch v13+)."""
    topics = getattr(data, "topics", None)
    if topics is None:
        topics = getattr(data, "responses", None)
    if topics is None or len(topics) != 1:
        return False
    topic = topics[0]
    partitions = topic.partitions
    if len(partitions) != 1:
        return False
    partition = partitions[0]
    index = next(getattr(partition, name) for name in ("partition_index", "partition", "index")
                 if hasattr(partition, name))
    if hasattr(topic, "topic_id") and topic_id is not None:
        name_matches = from_kio_uuid(topic.topic_id) == topic_id
    else:
        name = next(getattr(topic, n) for n in ("topic_name", "topic", "name") if hasattr(topic, n))
        name_matches = name == topic_partition.topic
    return name_matches and index == topic_partition.partition


# -- Vote ------------------------------------------------------------------------------------------------------------

def singleton_vote_request(topic_partition: Any, cluster_id: str, candidate_epoch: int, candidate_key: ReplicaKey,
                           voter_key: ReplicaKey, last_epoch: int, last_epoch_end_offset: int) -> Any:
    return _request(ApiKeys.VOTE, cluster_id=cluster_id, voter_id=voter_key.id, topics=[{
        "topic_name": topic_partition.topic, "partitions": [{
            "partition_index": topic_partition.partition, "candidate_epoch": candidate_epoch,
            "candidate_id": candidate_key.id, "candidate_directory_id": kio_uuid(candidate_key.directory_id),
            "voter_directory_id": kio_uuid(voter_key.directory_id), "last_offset_epoch": last_epoch,
            "last_offset": last_epoch_end_offset}]}])


def singleton_vote_response(listener_name: str, api_version: int, top_level_error: Errors, topic_partition: Any,
                            partition_level_error: Errors, leader_epoch: int, leader_id: int, vote_granted: bool,
                            endpoints: Endpoints) -> Any:
    return _response(ApiKeys.VOTE, api_version, error_code=top_level_error, topics=[{
        "topic_name": topic_partition.topic, "partitions": [{
            "partition_index": topic_partition.partition, "error_code": partition_level_error,
            "leader_id": leader_id, "leader_epoch": leader_epoch, "vote_granted": vote_granted}]}],
        node_endpoints=endpoints.to_node_endpoints(leader_id, listener_name) if leader_id >= 0 else [])


# -- BeginQuorumEpoch ------------------------------------------------------------------------------------------------

def singleton_begin_quorum_epoch_request(topic_partition: Any, cluster_id: str, leader_epoch: int, leader_id: int,
                                         leader_endpoints: Endpoints, voter_key: ReplicaKey) -> Any:
    return _request(ApiKeys.BEGIN_QUORUM_EPOCH, cluster_id=cluster_id, voter_id=voter_key.id, topics=[{
        "topic_name": topic_partition.topic, "partitions": [{
            "partition_index": topic_partition.partition, "voter_directory_id": kio_uuid(voter_key.directory_id),
            "leader_id": leader_id, "leader_epoch": leader_epoch}]}],
        leader_endpoints=leader_endpoints.to_leader_endpoints())


def singleton_begin_quorum_epoch_response(listener_name: str, api_version: int, top_level_error: Errors,
                                          topic_partition: Any, partition_level_error: Errors, leader_epoch: int,
                                          leader_id: int, endpoints: Endpoints) -> Any:
    return _response(ApiKeys.BEGIN_QUORUM_EPOCH, api_version, error_code=top_level_error, topics=[{
        "topic_name": topic_partition.topic, "partitions": [{
            "partition_index": topic_partition.partition, "error_code": partition_level_error,
            "leader_id": leader_id, "leader_epoch": leader_epoch}]}],
        node_endpoints=endpoints.to_node_endpoints(leader_id, listener_name) if leader_id >= 0 else [])


# -- EndQuorumEpoch --------------------------------------------------------------------------------------------------

def singleton_end_quorum_epoch_request(topic_partition: Any, cluster_id: str, leader_epoch: int, leader_id: int,
                                       preferred_replica_keys: list[ReplicaKey]) -> Any:
    return _request(ApiKeys.END_QUORUM_EPOCH, cluster_id=cluster_id, topics=[{
        "topic_name": topic_partition.topic, "partitions": [{
            "partition_index": topic_partition.partition, "leader_id": leader_id, "leader_epoch": leader_epoch,
            "preferred_candidates": [{"candidate_id": key.id, "candidate_directory_id": kio_uuid(key.directory_id)}
                                     for key in preferred_replica_keys]}]}],
        leader_endpoints=[])


def preferred_candidates(partition_request: Any) -> list[ReplicaKey]:
    """EndQuorumEpochRequest.preferredCandidates: v1's candidates, or v0's bare successor ids."""
    if hasattr(partition_request, "preferred_candidates"):
        return [ReplicaKey.of(c.candidate_id, c.candidate_directory_id)
                for c in partition_request.preferred_candidates]
    return [ReplicaKey(int(i)) for i in partition_request.preferred_successors]


def singleton_end_quorum_epoch_response(listener_name: str, api_version: int, top_level_error: Errors,
                                        topic_partition: Any, partition_level_error: Errors, leader_epoch: int,
                                        leader_id: int, endpoints: Endpoints) -> Any:
    return _response(ApiKeys.END_QUORUM_EPOCH, api_version, error_code=top_level_error, topics=[{
        "topic_name": topic_partition.topic, "partitions": [{
            "partition_index": topic_partition.partition, "error_code": partition_level_error,
            "leader_id": leader_id, "leader_epoch": leader_epoch}]}],
        node_endpoints=endpoints.to_node_endpoints(leader_id, listener_name) if leader_id >= 0 else [])


# -- Fetch -----------------------------------------------------------------------------------------------------------

def singleton_fetch_request(topic_partition: Any, topic_id: Uuid, cluster_id: str, current_leader_epoch: int,
                            last_fetched_epoch: int, fetch_offset: int, replica_id: int,
                            replica_directory_id: Uuid | None, max_bytes: int, max_wait_ms: int) -> Any:
    return _request(ApiKeys.FETCH, cluster_id=cluster_id, replica_state={"replica_id": replica_id},
                    max_wait=max_wait_ms, min_bytes=0, max_bytes=max_bytes, topics=[{
                        "topic_id": kio_uuid(topic_id), "partitions": [{
                            "partition": topic_partition.partition, "current_leader_epoch": current_leader_epoch,
                            "fetch_offset": fetch_offset, "last_fetched_epoch": last_fetched_epoch,
                            "partition_max_bytes": 0, "replica_directory_id": kio_uuid(replica_directory_id)}]}],
                    forgotten_topics_data=[])


def fetch_replica_id(request: Any) -> int:
    """FetchRequest.replicaId: v15+ carry it in ReplicaState, older versions at the top."""
    if hasattr(request, "replica_state"):
        return int(request.replica_state.replica_id)
    return int(getattr(request, "replica_id", -1))


def fetch_max_wait_ms(request: Any) -> int:
    max_wait = request.max_wait
    return int(max_wait.total_seconds() * 1000) if hasattr(max_wait, "total_seconds") else int(max_wait)


def singleton_fetch_response(listener_name: str, api_version: int, topic_partition: Any, topic_id: Uuid,
                             top_level_error: Errors, leader_id: int, leader_endpoints: Endpoints,
                             partition_error: Errors, high_watermark: int, log_start_offset: int, leader_epoch: int,
                             records: bytes, diverging_epoch: OffsetAndEpoch | None = None,
                             snapshot_id: OffsetAndEpoch | None = None) -> Any:
    partition: dict[str, Any] = {
        "partition_index": topic_partition.partition, "error_code": partition_error,
        "high_watermark": high_watermark, "last_stable_offset": -1, "log_start_offset": log_start_offset,
        "current_leader": {"leader_id": leader_id, "leader_epoch": leader_epoch}, "aborted_transactions": None,
        "preferred_read_replica": -1, "records": records}
    if diverging_epoch is not None:
        partition["diverging_epoch"] = {"epoch": diverging_epoch.epoch, "end_offset": diverging_epoch.offset}
    if snapshot_id is not None:
        partition["snapshot_id"] = {"epoch": snapshot_id.epoch, "end_offset": snapshot_id.offset}
    return _response(ApiKeys.FETCH, api_version, throttle_time=0, error_code=top_level_error, session_id=0,
                     responses=[{"topic": topic_partition.topic, "topic_id": kio_uuid(topic_id),
                                 "partitions": [partition]}],
                     node_endpoints=leader_endpoints.to_node_endpoints(leader_id, listener_name)
                     if leader_id >= 0 else [])


def fetch_error_response(api_version: int, error: Errors) -> Any:
    return _response(ApiKeys.FETCH, api_version, throttle_time=0, error_code=error, session_id=0, responses=[])


# -- FetchSnapshot ---------------------------------------------------------------------------------------------------

def singleton_fetch_snapshot_request(cluster_id: str, replica_key: ReplicaKey, topic_partition: Any, epoch: int,
                                     snapshot_id: OffsetAndEpoch, max_bytes: int, position: int) -> Any:
    return _request(ApiKeys.FETCH_SNAPSHOT, cluster_id=cluster_id, replica_id=replica_key.id, max_bytes=max_bytes,
                    topics=[{"name": topic_partition.topic, "partitions": [{
                        "partition": topic_partition.partition, "current_leader_epoch": epoch,
                        "snapshot_id": {"end_offset": snapshot_id.offset, "epoch": snapshot_id.epoch},
                        "position": position, "replica_directory_id": kio_uuid(replica_key.directory_id)}]}])


def singleton_fetch_snapshot_response(listener_name: str, api_version: int, topic_partition: Any, leader_id: int,
                                      leader_epoch: int, endpoints: Endpoints, error: Errors,
                                      snapshot_id: OffsetAndEpoch | None = None, size: int = -1, position: int = -1,
                                      unaligned_records: bytes = b"") -> Any:
    snapshot = snapshot_id or OffsetAndEpoch(-1, -1)
    return _response(ApiKeys.FETCH_SNAPSHOT, api_version, throttle_time=0, error_code=Errors.NONE, topics=[{
        "name": topic_partition.topic, "partitions": [{
            "index": topic_partition.partition, "error_code": error,
            "snapshot_id": {"end_offset": snapshot.offset, "epoch": snapshot.epoch},
            "current_leader": {"leader_id": leader_id, "leader_epoch": leader_epoch},
            "size": size, "position": position, "unaligned_records": unaligned_records}]}],
        node_endpoints=endpoints.to_node_endpoints(leader_id, listener_name) if leader_id >= 0 else [])


# -- DescribeQuorum --------------------------------------------------------------------------------------------------

def singleton_describe_quorum_response(api_version: int, topic_partition: Any, leader_id: int, leader_epoch: int,
                                       high_watermark: int, voters: list[Any], observers: list[Any],
                                       current_time_ms: int) -> Any:
    def replica(state: Any) -> dict[str, Any]:
        end_offset = state.end_offset.offset if state.end_offset is not None else -1
        if state.replica_key.id == leader_id:
            # the leader is always caught up with itself
            last_fetch_timestamp = last_caught_up_timestamp = current_time_ms
        else:
            last_fetch_timestamp, last_caught_up_timestamp = state.last_fetch_timestamp, state.last_caught_up_timestamp
        return {"replica_id": state.replica_key.id, "replica_directory_id": kio_uuid(state.replica_key.directory_id),
                "log_end_offset": end_offset, "last_fetch_timestamp": last_fetch_timestamp,
                "last_caught_up_timestamp": last_caught_up_timestamp}

    nodes = [{"node_id": state.replica_key.id,
              "listeners": [{"name": name, "host": host, "port": port}
                            for name, (host, port) in state.listeners.endpoints.items()]}
             for state in voters]
    return _response(ApiKeys.DESCRIBE_QUORUM, api_version, error_code=Errors.NONE, error_message=None, topics=[{
        "topic_name": topic_partition.topic, "partitions": [{
            "partition_index": topic_partition.partition, "error_code": Errors.NONE, "error_message": None,
            "leader_id": leader_id, "leader_epoch": leader_epoch, "high_watermark": high_watermark,
            "current_voters": [replica(s) for s in voters], "observers": [replica(s) for s in observers]}]}],
        nodes=nodes)


def describe_quorum_partition_error_response(api_version: int, topic_partition: Any, error: Errors) -> Any:
    return _response(ApiKeys.DESCRIBE_QUORUM, api_version, error_code=Errors.NONE, error_message=None, topics=[{
        "topic_name": topic_partition.topic, "partitions": [{
            # DescribeQuorumResponse.singletonErrorResponse sets only the index and error: the rest keep their
            # defaults (0)
            "partition_index": topic_partition.partition, "error_code": error, "error_message": error.name,
            "leader_id": 0, "leader_epoch": 0, "high_watermark": 0, "current_voters": [], "observers": []}]}],
        nodes=[])


# -- ApiVersions, AddRaftVoter, RemoveRaftVoter, UpdateRaftVoter (KIP-853) --------------------------------------------

def api_versions_request() -> Any:
    """What ApiVersionsRequest.Builder() builds: no API of interest, only the answer's supported features."""
    return _request(ApiKeys.API_VERSIONS, client_software_name="kafka-edu", client_software_version="3.9.0")


def add_voter_request(cluster_id: str | None, timeout_ms: int, voter: ReplicaKey, listeners: Endpoints) -> Any:
    return _request(ApiKeys.ADD_RAFT_VOTER, cluster_id=cluster_id, timeout=timeout_ms, voter_id=voter.id,
                    voter_directory_id=kio_uuid(voter.directory_id) or _uuid.UUID(int=0),
                    listeners=listeners.to_add_voter_request())


def add_voter_response(error: Errors, error_message: str | None) -> Any:
    # without a message of its own the response carries the error's (Java: error.message())
    return _response(ApiKeys.ADD_RAFT_VOTER, ADD_RAFT_VOTER_VERSION, throttle_time=0, error_code=error,
                     error_message=error_message if error_message is not None else error.name)


def remove_voter_request(cluster_id: str | None, voter: ReplicaKey) -> Any:
    return _request(ApiKeys.REMOVE_RAFT_VOTER, cluster_id=cluster_id, voter_id=voter.id,
                    voter_directory_id=kio_uuid(voter.directory_id) or _uuid.UUID(int=0))


def remove_voter_response(error: Errors, error_message: str | None) -> Any:
    return _response(ApiKeys.REMOVE_RAFT_VOTER, REMOVE_RAFT_VOTER_VERSION, throttle_time=0, error_code=error,
                     error_message=error_message if error_message is not None else error.name)


def update_voter_request(cluster_id: str | None, voter: ReplicaKey, epoch: int, supported_versions: Any,
                         endpoints: Endpoints) -> Any:
    return _request(ApiKeys.UPDATE_RAFT_VOTER, cluster_id=cluster_id, current_leader_epoch=epoch, voter_id=voter.id,
                    voter_directory_id=kio_uuid(voter.directory_id) or _uuid.UUID(int=0),
                    listeners=endpoints.to_update_voter_request(), k_raft_version_feature={
                        "min_supported_version": supported_versions.min(),
                        "max_supported_version": supported_versions.max()})


def update_voter_response(error: Errors, listener_name: str, leader_and_epoch: Any, endpoints: Endpoints) -> Any:
    """The current leader goes back with the response; its address only when it has one on `listener_name`."""
    current_leader: dict[str, Any] = {
        "leader_id": leader_and_epoch.leader_id if leader_and_epoch.leader_id is not None else -1,
        "leader_epoch": leader_and_epoch.epoch, "host": "", "port": -1}
    address = endpoints.address(listener_name)
    if address is not None:
        current_leader["host"], current_leader["port"] = address
    return _response(ApiKeys.UPDATE_RAFT_VOTER, UPDATE_RAFT_VOTER_VERSION, throttle_time=0, error_code=error,
                     current_leader=current_leader)


def _request_voter_key(request: Any) -> ReplicaKey | None:
    if request.voter_id < 0:
        return None
    return ReplicaKey.of(int(request.voter_id), from_kio_uuid(request.voter_directory_id))


def add_voter_request_voter_key(request: Any) -> ReplicaKey | None:
    return _request_voter_key(request)


def remove_voter_request_voter_key(request: Any) -> ReplicaKey | None:
    return _request_voter_key(request)


def update_voter_request_voter_key(request: Any) -> ReplicaKey | None:
    return _request_voter_key(request)
