"""Test helpers of Kafka 3.9's group coordinator tests: TestUtil.requestContext
(group-coordinator/src/test/java/org/apache/kafka/coordinator/group/TestUtil.java) and
GroupCoordinatorConfigTest.createGroupCoordinatorConfig (GroupCoordinatorConfigTest.java).

The port's ApiKeys has not got the KIP-848 and KIP-932 APIs (ConsumerGroupHeartbeat, ConsumerGroupDescribe,
ShareGroupHeartbeat): `request_context(None)` stands for their contexts, a context whose header names no API.
"""

from __future__ import annotations

from unittest import mock

from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import ANONYMOUS
from kafka_edu.v3_9.clients.common.config.config_def import AbstractConfig, merge_configs
from kafka_edu.v3_9.clients.common.network.client_information import ClientInformation
from kafka_edu.v3_9.clients.common.network.listener_name import ListenerName
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.requests.request_context import RequestContext
from kafka_edu.v3_9.clients.common.requests.request_header import RequestHeader
from kafka_edu.v3_9.clients.common.security.auth.security_protocol import SecurityProtocol
from kafka_edu.v3_9.group_coordinator.coordinator.group import group_coordinator_config as gcc
from kafka_edu.v3_9.group_coordinator.coordinator.group.group_coordinator_config import GroupCoordinatorConfig

INT_MAX = 2**31 - 1


def request_context(api_key: ApiKeys | None) -> RequestContext:
    if api_key is None:
        return mock.Mock(spec=RequestContext)
    return RequestContext(RequestHeader(api_key, api_key.latest_version, "client", 0), "1", "127.0.0.1", 0,
                          ANONYMOUS, ListenerName.for_security_protocol(SecurityProtocol.PLAINTEXT),
                          SecurityProtocol.PLAINTEXT, ClientInformation.EMPTY, False)


def create_group_coordinator_config(offset_metadata_max_size: int, offsets_retention_check_interval_ms: int,
                                    offsets_retention_minutes: int) -> GroupCoordinatorConfig:
    configs = {
        gcc.GROUP_COORDINATOR_NUM_THREADS_CONFIG: 1,
        gcc.GROUP_COORDINATOR_APPEND_LINGER_MS_CONFIG: 10,
        gcc.CONSUMER_GROUP_SESSION_TIMEOUT_MS_CONFIG: 45,
        gcc.CONSUMER_GROUP_MIN_SESSION_TIMEOUT_MS_CONFIG: 45,
        gcc.CONSUMER_GROUP_HEARTBEAT_INTERVAL_MS_CONFIG: 5,
        gcc.CONSUMER_GROUP_MIN_HEARTBEAT_INTERVAL_MS_CONFIG: 5,
        gcc.CONSUMER_GROUP_MAX_SIZE_CONFIG: INT_MAX,
        gcc.CONSUMER_GROUP_ASSIGNORS_CONFIG: "org.apache.kafka.coordinator.group.assignor.RangeAssignor",
        gcc.OFFSETS_TOPIC_SEGMENT_BYTES_CONFIG: 1000,
        gcc.OFFSET_METADATA_MAX_SIZE_CONFIG: offset_metadata_max_size,
        gcc.GROUP_MAX_SIZE_CONFIG: INT_MAX,
        gcc.GROUP_INITIAL_REBALANCE_DELAY_MS_CONFIG: 3000,
        gcc.GROUP_MIN_SESSION_TIMEOUT_MS_CONFIG: 120,
        gcc.GROUP_MAX_SESSION_TIMEOUT_MS_CONFIG: 10 * 5 * 1000,
        gcc.OFFSETS_RETENTION_CHECK_INTERVAL_MS_CONFIG: offsets_retention_check_interval_ms,
        gcc.OFFSETS_RETENTION_MINUTES_CONFIG: offsets_retention_minutes,
        gcc.OFFSET_COMMIT_TIMEOUT_MS_CONFIG: 5000,
        gcc.CONSUMER_GROUP_MIGRATION_POLICY_CONFIG: "DISABLED",
        gcc.OFFSETS_TOPIC_COMPRESSION_CODEC_CONFIG: 0,  # CompressionType.NONE.id
        gcc.SHARE_GROUP_SESSION_TIMEOUT_MS_CONFIG: 45,
        gcc.SHARE_GROUP_MIN_SESSION_TIMEOUT_MS_CONFIG: 45,
        gcc.SHARE_GROUP_HEARTBEAT_INTERVAL_MS_CONFIG: 5,
        gcc.SHARE_GROUP_MIN_HEARTBEAT_INTERVAL_MS_CONFIG: 5,
        gcc.SHARE_GROUP_MAX_SIZE_CONFIG: 1000,
    }
    config_defs = [gcc.GROUP_COORDINATOR_CONFIG_DEF, gcc.NEW_GROUP_CONFIG_DEF, gcc.OFFSET_MANAGEMENT_CONFIG_DEF,
                   gcc.CONSUMER_GROUP_CONFIG_DEF, gcc.SHARE_GROUP_CONFIG_DEF]
    return GroupCoordinatorConfig(AbstractConfig(merge_configs(config_defs), configs, False))
