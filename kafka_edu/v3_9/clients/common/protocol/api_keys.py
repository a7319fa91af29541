"""The APIs this broker speaks and their kio 0.5.0 schema versions: org.apache.kafka.common.protocol.ApiKeys (3.9)."""

from __future__ import annotations

import enum
import functools
import importlib
from collections.abc import Iterable, Mapping
from typing import Any

from kio.index import load_request_schema, load_response_schema
from kio.schema.index import api_key_map, schema_name_map

_UNKNOWN: Any = object()


class ApiKeys(enum.IntEnum):
    """One member per API; the value is the wire api key. `supported` is what the broker advertises."""

    id: int
    api_name: str
    oldest_version: int
    latest_version: int
    supported: tuple[int, int]
    _first_flexible: int | None

    def __new__(cls, api_key: int, api_name: str) -> ApiKeys:
        member = int.__new__(cls, api_key)
        member._value_ = api_key
        member.id = api_key
        member.api_name = api_name
        versions = sorted(schema_name_map[api_key_map[api_key]])
        member.oldest_version, member.latest_version = versions[0], versions[-1]
        member.supported = (versions[0], versions[-1])
        member._first_flexible = _UNKNOWN  # found on first use: loading every schema here cost each process ~1 s
        return member

    PRODUCE = 0, "Produce"
    FETCH = 1, "Fetch"
    LIST_OFFSETS = 2, "ListOffsets"
    METADATA = 3, "Metadata"
    LEADER_AND_ISR = 4, "LeaderAndIsr"
    STOP_REPLICA = 5, "StopReplica"
    UPDATE_METADATA = 6, "UpdateMetadata"
    CONTROLLED_SHUTDOWN = 7, "ControlledShutdown"
    OFFSET_COMMIT = 8, "OffsetCommit"
    OFFSET_FETCH = 9, "OffsetFetch"
    FIND_COORDINATOR = 10, "FindCoordinator"
    JOIN_GROUP = 11, "JoinGroup"
    HEARTBEAT = 12, "Heartbeat"
    LEAVE_GROUP = 13, "LeaveGroup"
    SYNC_GROUP = 14, "SyncGroup"
    DESCRIBE_GROUPS = 15, "DescribeGroups"
    LIST_GROUPS = 16, "ListGroups"
    SASL_HANDSHAKE = 17, "SaslHandshake"
    API_VERSIONS = 18, "ApiVersions"
    CREATE_TOPICS = 19, "CreateTopics"
    DELETE_TOPICS = 20, "DeleteTopics"
    DELETE_RECORDS = 21, "DeleteRecords"
    INIT_PRODUCER_ID = 22, "InitProducerId"
    OFFSET_FOR_LEADER_EPOCH = 23, "OffsetForLeaderEpoch"
    ADD_PARTITIONS_TO_TXN = 24, "AddPartitionsToTxn"
    ADD_OFFSETS_TO_TXN = 25, "AddOffsetsToTxn"
    END_TXN = 26, "EndTxn"
    WRITE_TXN_MARKERS = 27, "WriteTxnMarkers"
    TXN_OFFSET_COMMIT = 28, "TxnOffsetCommit"
    DESCRIBE_ACLS = 29, "DescribeAcls"
    CREATE_ACLS = 30, "CreateAcls"
    DELETE_ACLS = 31, "DeleteAcls"
    DESCRIBE_CONFIGS = 32, "DescribeConfigs"
    ALTER_CONFIGS = 33, "AlterConfigs"
    ALTER_REPLICA_LOG_DIRS = 34, "AlterReplicaLogDirs"
    DESCRIBE_LOG_DIRS = 35, "DescribeLogDirs"
    SASL_AUTHENTICATE = 36, "SaslAuthenticate"
    CREATE_PARTITIONS = 37, "CreatePartitions"
    DELETE_GROUPS = 42, "DeleteGroups"
    ELECT_LEADERS = 43, "ElectLeaders"
    INCREMENTAL_ALTER_CONFIGS = 44, "IncrementalAlterConfigs"
    ALTER_PARTITION_REASSIGNMENTS = 45, "AlterPartitionReassignments"
    LIST_PARTITION_REASSIGNMENTS = 46, "ListPartitionReassignments"
    OFFSET_DELETE = 47, "OffsetDelete"
    DESCRIBE_CLIENT_QUOTAS = 48, "DescribeClientQuotas"
    ALTER_CLIENT_QUOTAS = 49, "AlterClientQuotas"
    DESCRIBE_USER_SCRAM_CREDENTIALS = 50, "DescribeUserScramCredentials"
    ALTER_USER_SCRAM_CREDENTIALS = 51, "AlterUserScramCredentials"
    # KRaft (Kafka 3.9): the Raft RPCs and the controller's APIs. The ZooKeeper broker advertises none of them
    # (KafkaApis.SUPPORTED_VERSIONS lists what it serves); ControllerApis serves them on the CONTROLLER listener.
    VOTE = 52, "Vote"
    BEGIN_QUORUM_EPOCH = 53, "BeginQuorumEpoch"
    END_QUORUM_EPOCH = 54, "EndQuorumEpoch"
    DESCRIBE_QUORUM = 55, "DescribeQuorum"
    ALTER_PARTITION = 56, "AlterPartition"
    UPDATE_FEATURES = 57, "UpdateFeatures"
    ENVELOPE = 58, "Envelope"
    FETCH_SNAPSHOT = 59, "FetchSnapshot"
    DESCRIBE_CLUSTER = 60, "DescribeCluster"
    DESCRIBE_PRODUCERS = 61, "DescribeProducers"
    BROKER_REGISTRATION = 62, "BrokerRegistration"
    BROKER_HEARTBEAT = 63, "BrokerHeartbeat"
    UNREGISTER_BROKER = 64, "UnregisterBroker"
    DESCRIBE_TRANSACTIONS = 65, "DescribeTransactions"
    LIST_TRANSACTIONS = 66, "ListTransactions"
    ALLOCATE_PRODUCER_IDS = 67, "AllocateProducerIds"
    CONSUMER_GROUP_HEARTBEAT = 68, "ConsumerGroupHeartbeat"  # KIP-848
    CONSUMER_GROUP_DESCRIBE = 69, "ConsumerGroupDescribe"
    CONTROLLER_REGISTRATION = 70, "ControllerRegistration"
    DESCRIBE_TOPIC_PARTITIONS = 75, "DescribeTopicPartitions"
    # KIP-853 (Kafka 3.9): controller membership changes, served by the raft client of the KRaft leader
    ADD_RAFT_VOTER = 80, "AddRaftVoter"
    REMOVE_RAFT_VOTER = 81, "RemoveRaftVoter"
    UPDATE_RAFT_VOTER = 82, "UpdateRaftVoter"

    @classmethod
    def for_key(cls, api_key: int) -> ApiKeys:
        """Raises ValueError for a key this broker does not implement (Kafka: IllegalArgumentException)."""
        return cls(api_key)

    @classmethod
    def has_key(cls, api_key: int) -> bool:
        return api_key in cls._value2member_map_

    def set_supported(self, min_version: int, max_version: int) -> None:
        """Narrow the advertised range; it must stay inside what kio has schemas for."""
        if not self.oldest_version <= min_version <= max_version <= self.latest_version:
            raise ValueError(f"{self.api_name}: [{min_version}, {max_version}] is outside kio's "
                             f"[{self.oldest_version}, {self.latest_version}]")
        self.supported = (min_version, max_version)

    def reset_supported(self) -> None:
        self.supported = (self.oldest_version, self.latest_version)

    def has_schema(self, version: int) -> bool:
        return self.oldest_version <= version <= self.latest_version

    def is_supported(self, version: int) -> bool:
        return self.supported[0] <= version <= self.supported[1]

    @property
    def first_flexible_version(self) -> int | None:
        if self._first_flexible is _UNKNOWN:
            self._first_flexible = _first_flexible_version(self.id, self.oldest_version, self.latest_version)
        return self._first_flexible

    def is_flexible(self, version: int) -> bool:
        return self.first_flexible_version is not None and version >= self.first_flexible_version

    def request_header_version(self, version: int) -> int:
        """Header v0 only for ControlledShutdown v0 (it predates client ids), v2 once flexible, else v1."""
        if self is ApiKeys.CONTROLLED_SHUTDOWN and version == 0:
            return 0
        return 2 if self.is_flexible(version) else 1

    def response_header_version(self, version: int) -> int:
        """ApiVersions answers with header v0 at every version, so a client can always read the error code."""
        if self is ApiKeys.API_VERSIONS:
            return 0
        return 1 if self.is_flexible(version) else 0

    def request_schema(self, version: int) -> type[Any]:
        return _request_schema(self.id, version)

    def response_schema(self, version: int) -> type[Any]:
        return _response_schema(self.id, version)


def _first_flexible_version(api_key: int, oldest: int, latest: int) -> int | None:
    """A version once flexible stays flexible in every later one: bisect, loading a few schemas, not all."""
    if not _request_schema(api_key, latest).__flexible__:
        return None
    lo, hi = oldest, latest  # hi is flexible
    while lo < hi:
        mid = (lo + hi) // 2
        if _request_schema(api_key, mid).__flexible__:
            hi = mid
        else:
            lo = mid + 1
    return hi


@functools.cache
def _request_schema(api_key: int, version: int) -> type[Any]:
    return load_request_schema(api_key, version)


@functools.cache
def _response_schema(api_key: int, version: int) -> type[Any]:
    return load_response_schema(api_key, version)


def supported_versions(apis: Iterable[ApiKeys] = ApiKeys) -> list[tuple[int, int, int]]:
    """(api_key, min_version, max_version) for each API, from the supported ranges."""
    return [(api.id, *api.supported) for api in apis]


def api_version_entries(response_version: int = 3,
                        apis: Iterable[ApiKeys] | Mapping[ApiKeys, tuple[int, int]] = ApiKeys) -> tuple[Any, ...]:
    """The `api_keys` of an ApiVersionsResponse of the given version, built with kio's ApiVersion of that version:
    for `apis` given as {api: (min, max)}, those ranges; else each api's supported range."""
    entry = _api_version_entry_type(response_version)
    ranges = ([(api.id, lo, hi) for api, (lo, hi) in apis.items()] if isinstance(apis, Mapping)
              else supported_versions(apis))
    return tuple(entry(api_key=k, min_version=lo, max_version=hi) for k, lo, hi in ranges)


@functools.cache
def _api_version_entry_type(response_version: int) -> type[Any]:
    module = ApiKeys.API_VERSIONS.response_schema(response_version).__module__
    return importlib.import_module(module).ApiVersion
