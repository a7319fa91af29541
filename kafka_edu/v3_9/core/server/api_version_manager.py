"""Port of core/src/main/scala/kafka/server/ApiVersionManager.scala (Kafka 3.9).

Which APIs, at which versions, a listener serves: its network threads close a connection that sends anything else,
and its ApiVersions answer lists exactly this. Each SocketServer has its own, so a process serving two kinds of
listener (a combined KRaft node: the controller's listener and the broker's) answers each as its kind.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys, api_version_entries


class ListenerType(enum.Enum):
    """ApiMessageType.ListenerType: the kinds of listener an API can be in scope for."""

    ZK_BROKER = "zkBroker"
    BROKER = "broker"
    CONTROLLER = "controller"


class ApiVersionManager:
    """The APIs a listener type serves, each with the versions it accepts."""

    def __init__(self, listener_type: ListenerType, enabled_apis: Mapping[ApiKeys, tuple[int, int]]) -> None:
        self.listener_type = listener_type
        self.enabled_apis: dict[ApiKeys, tuple[int, int]] = dict(enabled_apis)

    def is_api_enabled(self, api_key: ApiKeys, api_version: int) -> bool:
        versions = self.enabled_apis.get(api_key)
        return versions is not None and versions[0] <= api_version <= versions[1]

    def api_version_entries(self, response_version: int) -> tuple[Any, ...]:
        """The `api_keys` of this listener's ApiVersionsResponse, in that response's version."""
        return api_version_entries(response_version, self.enabled_apis)


class SimpleApiVersionManager(ApiVersionManager):
    """A fixed set: what a controller listener serves, with the feature ranges it supports (3.9 gives a controller
    BrokerFeatures.defaultSupportedFeatures; a leader adding a voter reads its kraft.version range there)."""

    def __init__(self, listener_type: ListenerType, enabled_apis: Mapping[ApiKeys, tuple[int, int]],
                 supported_features: Mapping[str, Any] | None = None) -> None:
        super().__init__(listener_type, enabled_apis)
        if supported_features is None:
            from kafka_edu.v3_9.core.server.broker_features import default_supported_features
            supported_features = default_supported_features(False)
        self.supported_features: dict[str, Any] = dict(supported_features)

    def supported_feature_entries(self) -> list[dict[str, Any]]:
        """The ApiVersionsResponse `supported_features`, one entry per feature."""
        return [dict(name=name, min_version=r.min(), max_version=r.max())
                for name, r in self.supported_features.items()]


class DefaultApiVersionManager(ApiVersionManager):
    """A broker's (3.9 also folds in the versions the active controller accepts for the APIs a broker forwards:
    this port forwards CreateTopics and DeleteTopics re-built at a version the controller takes, so the broker's own
    ranges stand)."""


# What a KRaft broker's listeners serve (3.9's ApiMessageType listeners = broker) at 3.9's version ranges, within what
# this port's KafkaApis (kafka_edu/v3_9/core/server/kafka_apis.py) handles: every API at 3.9's full range.
BROKER_SUPPORTED_VERSIONS: dict[ApiKeys, tuple[int, int]] = {
    ApiKeys.PRODUCE: (0, 11),
    ApiKeys.FETCH: (0, 17),
    ApiKeys.LIST_OFFSETS: (0, 9),
    ApiKeys.METADATA: (0, 12),
    ApiKeys.OFFSET_COMMIT: (0, 9),
    ApiKeys.OFFSET_FETCH: (0, 9),
    ApiKeys.FIND_COORDINATOR: (0, 6),
    ApiKeys.JOIN_GROUP: (0, 9),
    ApiKeys.HEARTBEAT: (0, 4),
    ApiKeys.LEAVE_GROUP: (0, 5),
    ApiKeys.SYNC_GROUP: (0, 5),
    ApiKeys.DESCRIBE_GROUPS: (0, 5),
    ApiKeys.LIST_GROUPS: (0, 5),
    ApiKeys.SASL_HANDSHAKE: (0, 1),
    ApiKeys.API_VERSIONS: (0, 4),
    ApiKeys.CREATE_TOPICS: (0, 7),
    ApiKeys.DELETE_TOPICS: (0, 6),
    ApiKeys.DELETE_RECORDS: (0, 2),
    ApiKeys.INIT_PRODUCER_ID: (0, 5),
    ApiKeys.OFFSET_FOR_LEADER_EPOCH: (0, 4),
    ApiKeys.ADD_PARTITIONS_TO_TXN: (0, 5),
    ApiKeys.ADD_OFFSETS_TO_TXN: (0, 4),
    ApiKeys.END_TXN: (0, 4),
    ApiKeys.WRITE_TXN_MARKERS: (0, 1),
    ApiKeys.TXN_OFFSET_COMMIT: (0, 4),
    ApiKeys.DESCRIBE_ACLS: (0, 3),  # part B
    ApiKeys.CREATE_ACLS: (0, 3),  # part B
    ApiKeys.DELETE_ACLS: (0, 3),  # part B
    ApiKeys.DESCRIBE_CONFIGS: (0, 4),
    ApiKeys.ALTER_CONFIGS: (0, 2),  # part A
    ApiKeys.INCREMENTAL_ALTER_CONFIGS: (0, 1),  # part A
    ApiKeys.DESCRIBE_CLIENT_QUOTAS: (0, 1),  # part A
    ApiKeys.ALTER_CLIENT_QUOTAS: (0, 1),  # part A
    ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS: (0, 0),  # part A
    ApiKeys.ALTER_USER_SCRAM_CREDENTIALS: (0, 0),  # part A
    ApiKeys.UPDATE_FEATURES: (0, 1),  # part A
    ApiKeys.ALTER_REPLICA_LOG_DIRS: (0, 2),
    ApiKeys.DESCRIBE_LOG_DIRS: (0, 4),
    ApiKeys.SASL_AUTHENTICATE: (0, 2),
    ApiKeys.CREATE_PARTITIONS: (0, 3),
    ApiKeys.DELETE_GROUPS: (0, 2),
    ApiKeys.ELECT_LEADERS: (0, 2),  # part C
    ApiKeys.ALTER_PARTITION_REASSIGNMENTS: (0, 0),  # part C
    ApiKeys.LIST_PARTITION_REASSIGNMENTS: (0, 0),  # part C
    ApiKeys.OFFSET_DELETE: (0, 0),
    ApiKeys.DESCRIBE_CLUSTER: (0, 1),
    ApiKeys.DESCRIBE_PRODUCERS: (0, 0),  # part C
    ApiKeys.UNREGISTER_BROKER: (0, 0),  # part C
    ApiKeys.DESCRIBE_TRANSACTIONS: (0, 0),
    ApiKeys.LIST_TRANSACTIONS: (0, 1),
    ApiKeys.DESCRIBE_QUORUM: (0, 2),  # forwarded to the active controller
    ApiKeys.DESCRIBE_TOPIC_PARTITIONS: (0, 0),
    ApiKeys.CONSUMER_GROUP_HEARTBEAT: (0, 0),  # KIP-848: UNSUPPORTED_VERSION unless the consumer protocol is on
    ApiKeys.CONSUMER_GROUP_DESCRIBE: (0, 0),
    ApiKeys.ADD_RAFT_VOTER: (0, 0),  # KIP-853: forwarded to the active controller, the quorum's leader
    ApiKeys.REMOVE_RAFT_VOTER: (0, 0),  # KIP-853: forwarded likewise (UpdateRaftVoter is the controllers' own)
}


def broker_listener_api_version_manager(
        enabled_apis: Mapping[ApiKeys, tuple[int, int]] | None = None) -> DefaultApiVersionManager:
    """ApiVersionManager.apply for a KRaft broker (ListenerType.BROKER): BROKER_SUPPORTED_VERSIONS unless told
    otherwise."""
    return DefaultApiVersionManager(ListenerType.BROKER,
                                    BROKER_SUPPORTED_VERSIONS if enabled_apis is None else enabled_apis)
