"""Port of core/src/test/scala/unit/kafka/server/KafkaConfigTest.scala (Kafka 3.9).

Kafka's Properties are dicts of strings; `KafkaConfig.fromProps(props)` is `kafka_config.from_props(props)`. Scala
`val`s of KafkaConfig are attributes in the port, its `def`s methods. Many cases build their config with 3.9's
`TestUtils.createBrokerConfig(0, MockZkConnect)`, a ZooKeeper-mode config; the port's KafkaConfig validates it as
3.9 does (ZooKeeper branch of validateValues included), so those cases run as Kafka wrote them. The cases that
test ZooKeeper-mode behaviour itself (broker id generation, ZooKeeper migration, the ZooKeeper-era IBP and control
plane listener) are not applicable: the port's 3.9 broker runs KRaft only.
"""

from __future__ import annotations

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.config.config_def import ConfigException
from kafka_edu.v3_9.clients.common.network.listener_name import ListenerName
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.security.auth.security_protocol import SecurityProtocol
from kafka_edu.v3_9.core.cluster.end_point import EndPoint
from kafka_edu.v3_9.core.server import kafka_config
from kafka_edu.v3_9.core.server.kafka_config import GroupType, KafkaConfig
from kafka_edu.v3_9.core.utils import core_utils
from kafka_edu.v3_9.group_coordinator.coordinator.group import group_coordinator_config as gcc
from kafka_edu.v3_9.raft.raft import quorum_config
from kafka_edu.v3_9.raft.raft.quorum_config import QuorumConfig
from kafka_edu.v3_9.server.network import socket_server_configs as ssc
from kafka_edu.v3_9.server.server.config import kraft_configs as krc
from kafka_edu.v3_9.server.server.config import replication_configs as rc
from kafka_edu.v3_9.server.server.config import server_configs as sc
from kafka_edu.v3_9.server.server.config import share_group_config as sgc
from kafka_edu.v3_9.server.server.config import zk_configs as zkc
from kafka_edu.v3_9.server_common.server.common.metadata_version import MINIMUM_KRAFT_VERSION
from kafka_edu.v3_9.server_common.server.config import server_log_configs as slc
from kafka_edu.v3_9.server_common.server.config.server_topic_config_synonyms import TOPIC_CONFIG_SYNONYMS
from kafka_edu.v3_9.storage.server.log.remote.storage import remote_log_manager_config as rlmc
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import MOCK_ZK_CONNECT, RANDOM_PORT, temp_dir

ZK_MODE = "ZooKeeper mode: the port's 3.9 broker runs KRaft only (KafkaConfig's ZooKeeper branch is ported, but "\
          "ZooKeeper-mode behaviour is not this port's to referee)"
MIGRATION = "ZooKeeper to KRaft migration: not ported (the port's 3.9 broker runs KRaft only)"

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/server/KafkaConfigTest.scala",
    cases=[
        "testLogRetentionTimeHoursProvided",
        "testLogRetentionTimeMinutesProvided",
        "testLogRetentionTimeMsProvided",
        "testLogRetentionTimeNoConfigProvided",
        "testLogRetentionTimeBothMinutesAndHoursProvided",
        "testLogRetentionTimeBothMinutesAndMsProvided",
        "testLogRetentionUnlimited",
        "testLogRetentionValid",
        "testAdvertiseDefaults",
        "testAdvertiseConfigured",
        "testDuplicateListeners",
        "testIPv4AndIPv6SamePortListeners",
        "testControlPlaneListenerName",
        "testControllerListenerNames",
        "testControlPlaneListenerNameNotAllowedWithKRaft",
        "testControllerListenerDefinedForKRaftController",
        "testControllerListenerDefinedForKRaftBroker",
        "testEffectAdvertiseControllerListenerForControllerWithAdvertisement",
        "testEffectAdvertiseControllerListenerForControllerWithoutAdvertisement",
        "testEffectAdvertiseControllerListenerForControllerWithMixedAdvertisement",
        "testPortInQuorumVotersNotRequiredToMatchFirstControllerListenerPortForThisKRaftController",
        "testSeparateControllerListenerDefinedForKRaftBrokerController",
        "testControllerListenerNameMapsToPlaintextByDefaultForKRaft",
        "testMultipleControllerListenerNamesMapToPlaintextByDefaultForKRaft",
        "testControllerListenerNameDoesNotMapToPlaintextByDefaultForNonKRaft",
        "testBadListenerProtocol",
        "testListenerNamesWithAdvertisedListenerUnset",
        "testListenerAndAdvertisedListenerNames",
        "testListenerNameMissingFromListenerSecurityProtocolMap",
        "testInterBrokerListenerNameMissingFromListenerSecurityProtocolMap",
        "testInterBrokerListenerNameAndSecurityProtocolSet",
        "testCaseInsensitiveListenerProtocol",
        "testListenerDefaults",
        "testVersionConfiguration",
        "testUncleanLeaderElectionDefault",
        "testUncleanElectionDisabled",
        "testUncleanElectionEnabled",
        "testUncleanElectionInvalid",
        "testLogRollTimeMsProvided",
        "testLogRollTimeBothMsAndHoursProvided",
        "testLogRollTimeNoConfigProvided",
        "testDefaultCompressionType",
        "testValidCompressionType",
        "testInvalidCompressionType",
        "testInvalidGzipCompressionLevel",
        "testInvalidLz4CompressionLevel",
        "testInvalidZstdCompressionLevel",
        "testInvalidInterBrokerSecurityProtocol",
        "testEqualAdvertisedListenersProtocol",
        "testInvalidAdvertisedListenersProtocol",
        "testInterBrokerVersionMessageFormatCompatibility",
        "testFromPropsInvalid",
        "testDynamicLogConfigs",
        "testSpecificProperties",
        "testNonroutableAdvertisedListeners",
        "testMaxConnectionsPerIpProp",
        "testDistinctControllerAndAdvertisedListenersAllowedForKRaftBroker",
        "testControllerListenersCanBeAdvertisedForKRaftCombined",
        "testAdvertisedListenersAllowedForKRaftControllerOnlyRole",
        "testControllerQuorumVoterStringsToNodes",
        "testInvalidQuorumVoterConfig",
        "testValidEmptyQuorumVotersParsing",
        "testValidQuorumVotersParsingWithIpAddress",
        "testValidQuorumVotersParsingWithMultipleHost",
        "testParseQuorumBootstrapServers",
        "testAcceptsLargeNodeIdForRaftBasedCase",
        "testRejectsNegativeNodeIdForRaftBasedBrokerCaseWithAutoGenEnabled",
        "testRejectsNegativeNodeIdForRaftBasedControllerCaseWithAutoGenEnabled",
        "testRejectsNegativeNodeIdForRaftBasedCaseWithAutoGenDisabled",
        "testRejectsLargeNodeIdForZkBasedCaseWithAutoGenEnabled",
        "testAcceptsNegativeOneNodeIdForZkBasedCaseWithAutoGenEnabled",
        "testRejectsNegativeTwoNodeIdForZkBasedCaseWithAutoGenEnabled",
        "testAcceptsLargeNodeIdForZkBasedCaseWithAutoGenDisabled",
        "testRejectsNegativeNodeIdForZkBasedCaseWithAutoGenDisabled",
        "testZookeeperConnectRequiredIfEmptyProcessRoles",
        "testZookeeperConnectNotRequiredIfNonEmptyProcessRoles",
        "testCustomMetadataLogDir",
        "testDefaultMetadataLogDir",
        "testPopulateSynonymsOnEmptyMap",
        "testPopulateSynonymsOnMapWithoutNodeId",
        "testPopulateSynonymsOnMapWithoutBrokerId",
        "testNodeIdMustNotBeDifferentThanBrokerId",
        "testNodeIdOrBrokerIdMustBeSetWithKraft",
        "testNodeIdIsInferredByBrokerIdWithKraft",
        "testBrokerIdIsInferredByNodeIdWithKraft",
        "testSaslJwksEndpointRetryDefaults",
        "testInvalidAuthorizerClassName",
        "testInvalidSecurityInterBrokerProtocol",
        "testEarlyStartListenersDefault",
        "testEarlyStartListeners",
        "testEarlyStartListenersMustBeListeners",
        "testIgnoreUserInterBrokerProtocolVersionKRaft",
        "testInvalidInterBrokerProtocolVersionKRaft",
        "testDefaultInterBrokerProtocolVersionKRaft",
        "testMetadataMaxSnapshotInterval",
        "testMigrationEnabledZkMode",
        "testMigrationCannotBeEnabledWithJBOD",
        "testMigrationCannotBeEnabledWithBrokerIdGeneration",
        "testMigrationEnabledKRaftMode",
        "testConsumerGroupSessionTimeoutValidation",
        "testConsumerGroupHeartbeatIntervalValidation",
        "testGroupCoordinatorRebalanceProtocols",
        "testConsumerGroupMigrationPolicy",
        "testSingleLogDirectoryWithRemoteLogStorage",
        "testShareGroupSessionTimeoutValidation",
        "testShareGroupHeartbeatIntervalValidation",
        "testShareGroupRecordLockDurationValidation",
    ],
    not_applicable={
        "testControlPlaneListenerName": ZK_MODE + "; KRaft refuses control.plane.listener.name",
        "testControllerListenerNameDoesNotMapToPlaintextByDefaultForNonKRaft": ZK_MODE,
        "testVersionConfiguration": ZK_MODE + "; in KRaft the static IBP is pinned to 3.0-IV1",
        "testInterBrokerVersionMessageFormatCompatibility": ZK_MODE + "; in KRaft the static IBP is pinned",
        "testRejectsLargeNodeIdForZkBasedCaseWithAutoGenEnabled": ZK_MODE + " (broker id generation)",
        "testAcceptsNegativeOneNodeIdForZkBasedCaseWithAutoGenEnabled": ZK_MODE + " (broker id generation)",
        "testRejectsNegativeTwoNodeIdForZkBasedCaseWithAutoGenEnabled": ZK_MODE + " (broker id generation)",
        "testAcceptsLargeNodeIdForZkBasedCaseWithAutoGenDisabled": ZK_MODE + " (broker id generation)",
        "testRejectsNegativeNodeIdForZkBasedCaseWithAutoGenDisabled": ZK_MODE + " (broker id generation)",
        "testZookeeperConnectRequiredIfEmptyProcessRoles": ZK_MODE,
        "testMigrationEnabledZkMode": MIGRATION,
        "testMigrationCannotBeEnabledWithJBOD": MIGRATION,
        "testMigrationCannotBeEnabledWithBrokerIdGeneration": MIGRATION,
        "testMigrationEnabledKRaftMode": MIGRATION,
    },
)


# --- helpers ----------------------------------------------------------------------------------------------------------

def _create_broker_config(node_id: int, zk_connect: str | None, port: int = RANDOM_PORT,
                          log_dir_count: int = 1) -> dict[str, str]:
    """3.9's TestUtils.createBrokerConfig with a PLAINTEXT listener: a KRaft broker when zk_connect is None."""
    listeners = f"PLAINTEXT://localhost:{port}"
    props = {sc.UNSTABLE_FEATURE_VERSIONS_ENABLE_CONFIG: "true", sc.UNSTABLE_API_VERSIONS_ENABLE_CONFIG: "true"}
    if zk_connect is None:
        props[krc.SERVER_MAX_STARTUP_TIME_MS_CONFIG] = str(10 * 60 * 1000)
        props[krc.NODE_ID_CONFIG] = str(node_id)
        props[sc.BROKER_ID_CONFIG] = str(node_id)
        props[ssc.ADVERTISED_LISTENERS_CONFIG] = listeners
        props[ssc.LISTENERS_CONFIG] = listeners
        props[krc.CONTROLLER_LISTENER_NAMES_CONFIG] = "CONTROLLER"
        props[ssc.LISTENER_SECURITY_PROTOCOL_MAP_CONFIG] = "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"
    else:
        if node_id >= 0:
            props[sc.BROKER_ID_CONFIG] = str(node_id)
        props[ssc.LISTENERS_CONFIG] = listeners
    if log_dir_count > 1:
        props[slc.LOG_DIRS_CONFIG] = ",".join(str(temp_dir()) for _ in range(log_dir_count))
    else:
        props[slc.LOG_DIR_CONFIG] = str(temp_dir())
    if zk_connect is None:
        props[krc.PROCESS_ROLES_CONFIG] = "broker"
        props[quorum_config.QUORUM_VOTERS_CONFIG] = "1000@localhost:0"  # a placeholder, as in Kafka's tests
    else:
        props[zkc.ZK_CONNECT_CONFIG] = zk_connect
        props[zkc.ZK_CONNECTION_TIMEOUT_MS_CONFIG] = "10000"
    props[rc.REPLICA_SOCKET_TIMEOUT_MS_CONFIG] = "1500"
    props[rc.CONTROLLER_SOCKET_TIMEOUT_MS_CONFIG] = "1500"
    props[sc.CONTROLLED_SHUTDOWN_ENABLE_CONFIG] = "true"
    props[sc.DELETE_TOPIC_ENABLE_CONFIG] = "true"
    props[slc.LOG_DELETE_DELAY_MS_CONFIG] = "1000"
    props[sc.CONTROLLED_SHUTDOWN_RETRY_BACKOFF_MS_CONFIG] = "100"
    props["log.cleaner.dedupe.buffer.size"] = "2097152"
    props[gcc.OFFSETS_TOPIC_REPLICATION_FACTOR_CONFIG] = "1"
    props[slc.LOG_INITIAL_TASK_DELAY_MS_CONFIG] = "100"
    props.setdefault(gcc.OFFSETS_TOPIC_PARTITIONS_CONFIG, "5")
    props.setdefault(gcc.GROUP_INITIAL_REBALANCE_DELAY_MS_CONFIG, "0")
    props[ssc.NUM_NETWORK_THREADS_CONFIG] = "2"
    props[sc.BACKGROUND_THREADS_CONFIG] = "2"
    return props


def _zk_config(port: int = 8181) -> dict[str, str]:
    return _create_broker_config(0, MOCK_ZK_CONNECT, port=port)


def _assert_bad_config_containing_message(props: dict[str, str], expected: str) -> None:
    """TestUtils.assertBadConfigContainingMessage."""
    with pytest.raises((ConfigException, IllegalArgumentException)) as caught:
        kafka_config.from_props(props)
    assert expected in str(caught.value), f'"{caught.value}" doesn\'t contain "{expected}"'


def _is_valid_kafka_config(props: dict[str, str]) -> bool:
    try:
        kafka_config.from_props(props)
        return True
    except (IllegalArgumentException, ConfigException):
        return False


def _kraft_props() -> dict[str, str]:
    return {krc.PROCESS_ROLES_CONFIG: "broker", krc.CONTROLLER_LISTENER_NAMES_CONFIG: "CONTROLLER",
            krc.NODE_ID_CONFIG: "3", quorum_config.QUORUM_VOTERS_CONFIG: "1@localhost:9093"}


def _listener_list_to_end_points(listener_list: str) -> list[EndPoint]:
    return core_utils.listener_list_to_end_points(listener_list, ssc.DEFAULT_NAME_TO_SECURITY_PROTO)


# --- log retention and roll -------------------------------------------------------------------------------------------

def test_log_retention_time_hours_provided():
    props = _zk_config()
    props[slc.LOG_RETENTION_TIME_HOURS_CONFIG] = "1"
    assert kafka_config.from_props(props).log_retention_time_millis() == 60 * 60 * 1000


def test_log_retention_time_minutes_provided():
    props = _zk_config()
    props[slc.LOG_RETENTION_TIME_MINUTES_CONFIG] = "30"
    assert kafka_config.from_props(props).log_retention_time_millis() == 30 * 60 * 1000


def test_log_retention_time_ms_provided():
    props = _zk_config()
    props[slc.LOG_RETENTION_TIME_MILLIS_CONFIG] = "1800000"
    assert kafka_config.from_props(props).log_retention_time_millis() == 30 * 60 * 1000


def test_log_retention_time_no_config_provided():
    assert kafka_config.from_props(_zk_config()).log_retention_time_millis() == 24 * 7 * 60 * 60 * 1000


def test_log_retention_time_both_minutes_and_hours_provided():
    props = _zk_config()
    props[slc.LOG_RETENTION_TIME_MINUTES_CONFIG] = "30"
    props[slc.LOG_RETENTION_TIME_HOURS_CONFIG] = "1"
    assert kafka_config.from_props(props).log_retention_time_millis() == 30 * 60 * 1000


def test_log_retention_time_both_minutes_and_ms_provided():
    props = _zk_config()
    props[slc.LOG_RETENTION_TIME_MILLIS_CONFIG] = "1800000"
    props[slc.LOG_RETENTION_TIME_MINUTES_CONFIG] = "10"
    assert kafka_config.from_props(props).log_retention_time_millis() == 30 * 60 * 1000


def test_log_retention_unlimited():
    props1, props2, props3, props4, props5 = (_zk_config() for _ in range(5))
    props1["log.retention.ms"] = "-1"
    props2["log.retention.minutes"] = "-1"
    props3["log.retention.hours"] = "-1"
    assert kafka_config.from_props(props1).log_retention_time_millis() == -1, "Should be -1"
    assert kafka_config.from_props(props2).log_retention_time_millis() == -1, "Should be -1"
    assert kafka_config.from_props(props3).log_retention_time_millis() == -1, "Should be -1"

    props4["log.retention.ms"] = "-1"
    props4["log.retention.minutes"] = "30"
    assert kafka_config.from_props(props4).log_retention_time_millis() == -1, "Should be -1"

    props5["log.retention.ms"] = "0"
    with pytest.raises(IllegalArgumentException):
        kafka_config.from_props(props5)


def test_log_retention_valid():
    props1, props2, props3 = (_zk_config() for _ in range(3))
    props1["log.retention.ms"] = "0"
    props2["log.retention.minutes"] = "0"
    props3["log.retention.hours"] = "0"
    for props in (props1, props2, props3):
        with pytest.raises(IllegalArgumentException):
            kafka_config.from_props(props)


# --- listeners --------------------------------------------------------------------------------------------------------

def test_advertise_defaults():
    port, host_name = 9999, "fake-host"
    props = {sc.BROKER_ID_CONFIG: "1", zkc.ZK_CONNECT_CONFIG: "localhost:2181",
             ssc.LISTENERS_CONFIG: f"PLAINTEXT://{host_name}:{port}"}
    endpoints = kafka_config.from_props(props).effective_advertised_broker_listeners()
    assert len(endpoints) == 1
    endpoint = next(e for e in endpoints if e.security_protocol is SecurityProtocol.PLAINTEXT)
    assert endpoint.host == host_name
    assert endpoint.port == port


def test_advertise_configured():
    props = _create_broker_config(0, MOCK_ZK_CONNECT)
    props[ssc.ADVERTISED_LISTENERS_CONFIG] = "PLAINTEXT://routable-host:1234"
    endpoints = kafka_config.from_props(props).effective_advertised_broker_listeners()
    endpoint = next(e for e in endpoints if e.security_protocol is SecurityProtocol.PLAINTEXT)
    assert endpoint.host == "routable-host"
    assert endpoint.port == 1234


def test_duplicate_listeners():
    props = {sc.BROKER_ID_CONFIG: "1", zkc.ZK_CONNECT_CONFIG: "localhost:2181"}

    # listeners with duplicate port
    props[ssc.LISTENERS_CONFIG] = "PLAINTEXT://localhost:9091,SSL://localhost:9091"
    _assert_bad_config_containing_message(props, "Each listener must have a different port")

    # listeners with duplicate name
    props[ssc.LISTENERS_CONFIG] = "PLAINTEXT://localhost:9091,PLAINTEXT://localhost:9092"
    _assert_bad_config_containing_message(props, "Each listener must have a different name")

    # advertised listeners can have duplicate ports
    props[ssc.LISTENER_SECURITY_PROTOCOL_MAP_CONFIG] = "HOST:SASL_SSL,LB:SASL_SSL"
    props[rc.INTER_BROKER_LISTENER_NAME_CONFIG] = "HOST"
    props[ssc.LISTENERS_CONFIG] = "HOST://localhost:9091,LB://localhost:9092"
    props[ssc.ADVERTISED_LISTENERS_CONFIG] = "HOST://localhost:9091,LB://localhost:9091"
    kafka_config.from_props(props)

    # but not duplicate names
    props[ssc.ADVERTISED_LISTENERS_CONFIG] = "HOST://localhost:9091,HOST://localhost:9091"
    _assert_bad_config_containing_message(props, "Each listener must have a different name")


def test_i_pv4_and_i_pv6_same_port_listeners():
    props = {sc.BROKER_ID_CONFIG: "1", zkc.ZK_CONNECT_CONFIG: "localhost:2181"}
    ipv4_and_ipv6 = "If you have two listeners on the same port then one needs to be IPv4 and the other IPv6"
    for listeners, message in [
        ("PLAINTEXT://[::1]:9092,SSL://[::1]:9092", ipv4_and_ipv6),
        ("PLAINTEXT://127.0.0.1:9092,SSL://127.0.0.1:9092", ipv4_and_ipv6),
        ("SSL://[::1]:9096,PLAINTEXT://127.0.0.1:9096,SASL_SSL://:9096", ipv4_and_ipv6),
        ("PLAINTEXT://127.0.0.1:9092,PLAINTEXT://127.0.0.1:9092", "Each listener must have a different name"),
        ("PLAINTEXT://127.0.0.1:9092,SSL://127.0.0.1:9092,SASL_SSL://127.0.0.1:9092",
         "Each listener must have a different port"),
        ("PLAINTEXT://apache.org:9092,SSL://[::1]:9092", "Each listener must have a different port"),
        ("PLAINTEXT://apache.org:9092,SSL://127.0.0.1:9092", "Each listener must have a different port"),
    ]:
        props[ssc.LISTENERS_CONFIG] = listeners
        with pytest.raises(IllegalArgumentException) as caught:
            kafka_config.from_props(props)
        assert message in str(caught.value), listeners

    # happy cases
    for listeners in ["PLAINTEXT://127.0.0.1:9092,SSL://[::1]:9092",
                      "PLAINTEXT://[::1]:9093,SSL://127.0.0.1:9093",
                      "PLAINTEXT://127.0.0.1:9094,SSL://[::1]:9094,SASL_SSL://127.0.0.1:9095,SASL_PLAINTEXT://[::1]:9095",
                      "PLAINTEXT://[::1]:9096,SSL://127.0.0.1:9096,SASL_SSL://[::1]:9097,SASL_PLAINTEXT://127.0.0.1:9097"]:
        props[ssc.LISTENERS_CONFIG] = listeners
        assert _is_valid_kafka_config(props), listeners


def test_controller_listener_names():
    props = {krc.PROCESS_ROLES_CONFIG: "broker,controller",
             ssc.LISTENERS_CONFIG: "PLAINTEXT://localhost:0,CONTROLLER://localhost:5000",
             krc.CONTROLLER_LISTENER_NAMES_CONFIG: "CONTROLLER",
             krc.NODE_ID_CONFIG: "2",
             quorum_config.QUORUM_VOTERS_CONFIG: "2@localhost:5000",
             ssc.LISTENER_SECURITY_PROTOCOL_MAP_CONFIG: "PLAINTEXT:PLAINTEXT,CONTROLLER:SASL_SSL"}
    controller_endpoints = kafka_config.from_props(props).controller_listeners()
    assert len(controller_endpoints) == 1
    controller_endpoint = controller_endpoints[0]
    assert controller_endpoint.host == "localhost"
    assert controller_endpoint.port == 5000
    assert controller_endpoint.security_protocol is SecurityProtocol.SASL_SSL


def test_control_plane_listener_name_not_allowed_with_k_raft():
    props = {krc.PROCESS_ROLES_CONFIG: "broker,controller",
             ssc.LISTENERS_CONFIG: "PLAINTEXT://localhost:9092,SSL://localhost:9093",
             krc.CONTROLLER_LISTENER_NAMES_CONFIG: "SSL",
             krc.NODE_ID_CONFIG: "2",
             quorum_config.QUORUM_VOTERS_CONFIG: "2@localhost:9093",
             ssc.CONTROL_PLANE_LISTENER_NAME_CONFIG: "SSL"}
    assert not _is_valid_kafka_config(props)
    _assert_bad_config_containing_message(props, "control.plane.listener.name is not supported in KRaft mode.")

    del props[ssc.CONTROL_PLANE_LISTENER_NAME_CONFIG]
    kafka_config.from_props(props)


def test_controller_listener_defined_for_k_raft_controller():
    props = {krc.PROCESS_ROLES_CONFIG: "controller",
             ssc.LISTENERS_CONFIG: "SSL://localhost:9093",
             krc.NODE_ID_CONFIG: "2",
             quorum_config.QUORUM_VOTERS_CONFIG: "2@localhost:9093"}
    _assert_bad_config_containing_message(props, "The listeners config must only contain KRaft controller listeners "
                                                 "from controller.listener.names when process.roles=controller")

    props[krc.CONTROLLER_LISTENER_NAMES_CONFIG] = "SSL"
    kafka_config.from_props(props)

    # redirecting via listener.security.protocol.map is acceptable
    props[ssc.LISTENER_SECURITY_PROTOCOL_MAP_CONFIG] = "CONTROLLER:SSL"
    props[ssc.LISTENERS_CONFIG] = "CONTROLLER://localhost:9093"
    props[krc.CONTROLLER_LISTENER_NAMES_CONFIG] = "CONTROLLER"
    kafka_config.from_props(props)


def test_controller_listener_defined_for_k_raft_broker():
    props = {krc.PROCESS_ROLES_CONFIG: "broker", krc.NODE_ID_CONFIG: "1",
             quorum_config.QUORUM_VOTERS_CONFIG: "2@localhost:9093"}
    assert not _is_valid_kafka_config(props)
    _assert_bad_config_containing_message(props, "controller.listener.names must contain at least one value when "
                                                 "running KRaft with just the broker role")

    props[krc.CONTROLLER_LISTENER_NAMES_CONFIG] = "SSL"
    kafka_config.from_props(props)

    # redirecting via listener.security.protocol.map is acceptable
    props[ssc.LISTENER_SECURITY_PROTOCOL_MAP_CONFIG] = "PLAINTEXT:PLAINTEXT,CONTROLLER:SSL"
    props[krc.CONTROLLER_LISTENER_NAMES_CONFIG] = "CONTROLLER"
    kafka_config.from_props(props)


def _controller_props(listeners: str, controller_listener_names: str) -> dict[str, str]:
    return {krc.PROCESS_ROLES_CONFIG: "controller", ssc.LISTENERS_CONFIG: listeners, krc.NODE_ID_CONFIG: "2",
            quorum_config.QUORUM_VOTERS_CONFIG: "2@localhost:9093",
            krc.CONTROLLER_LISTENER_NAMES_CONFIG: controller_listener_names}


def test_effect_advertise_controller_listener_for_controller_with_advertisement():
    props = _controller_props("CONTROLLER://localhost:9093", "CONTROLLER")
    props[ssc.ADVERTISED_LISTENERS_CONFIG] = "CONTROLLER://lb1.example.com:9000"
    config = kafka_config.from_props(props)
    assert config.effective_advertised_controller_listeners() == [
        EndPoint("lb1.example.com", 9000, ListenerName.normalised("CONTROLLER"), SecurityProtocol.PLAINTEXT)]


def test_effect_advertise_controller_listener_for_controller_without_advertisement():
    config = kafka_config.from_props(_controller_props("CONTROLLER://localhost:9093", "CONTROLLER"))
    assert config.effective_advertised_controller_listeners() == [
        EndPoint("localhost", 9093, ListenerName.normalised("CONTROLLER"), SecurityProtocol.PLAINTEXT)]


def test_effect_advertise_controller_listener_for_controller_with_mixed_advertisement():
    props = _controller_props("CONTROLLER://localhost:9093,CONTROLLER_NEW://localhost:9094",
                              "CONTROLLER,CONTROLLER_NEW")
    props[ssc.ADVERTISED_LISTENERS_CONFIG] = "CONTROLLER://lb1.example.com:9000"
    config = kafka_config.from_props(props)
    assert config.effective_advertised_controller_listeners() == [
        EndPoint("lb1.example.com", 9000, ListenerName.normalised("CONTROLLER"), SecurityProtocol.PLAINTEXT),
        EndPoint("localhost", 9094, ListenerName.normalised("CONTROLLER_NEW"), SecurityProtocol.PLAINTEXT)]


def test_port_in_quorum_voters_not_required_to_match_first_controller_listener_port_for_this_k_raft_controller():
    props = {krc.PROCESS_ROLES_CONFIG: "controller,broker",
             ssc.LISTENERS_CONFIG: "PLAINTEXT://localhost:9092,SSL://localhost:9093,SASL_SSL://localhost:9094",
             krc.NODE_ID_CONFIG: "2",
             quorum_config.QUORUM_VOTERS_CONFIG: "2@localhost:9093,3@anotherhost:9094",
             krc.CONTROLLER_LISTENER_NAMES_CONFIG: "SSL,SASL_SSL"}
    kafka_config.from_props(props)

    # the voters' ports are what clients use; they need not match the listeners' ports
    props[ssc.LISTENERS_CONFIG] = "PLAINTEXT://localhost:9092,SSL://localhost:5555,SASL_SSL://localhost:9094"
    kafka_config.from_props(props)
    props[ssc.LISTENERS_CONFIG] = "PLAINTEXT://localhost:9092,SSL://localhost:9093,SASL_SSL://localhost:5555"
    kafka_config.from_props(props)
    props[ssc.LISTENERS_CONFIG] = "PLAINTEXT://localhost:9092,SSL://localhost:9093,SASL_SSL://localhost:9094"
    props[quorum_config.QUORUM_VOTERS_CONFIG] = "2@localhost:5555,3@anotherhost:9094"
    kafka_config.from_props(props)
    props[quorum_config.QUORUM_VOTERS_CONFIG] = "2@localhost:9093,3@anotherhost:5555"
    kafka_config.from_props(props)


def test_separate_controller_listener_defined_for_k_raft_broker_controller():
    props = {krc.PROCESS_ROLES_CONFIG: "broker,controller",
             ssc.LISTENERS_CONFIG: "SSL://localhost:9093",
             krc.CONTROLLER_LISTENER_NAMES_CONFIG: "SSL",
             krc.NODE_ID_CONFIG: "2",
             quorum_config.QUORUM_VOTERS_CONFIG: "2@localhost:9093"}
    assert not _is_valid_kafka_config(props)
    _assert_bad_config_containing_message(props, "There must be at least one broker advertised listener. Perhaps all "
                                                 "listeners appear in controller.listener.names?")

    props[ssc.LISTENERS_CONFIG] = "PLAINTEXT://localhost:9092,SSL://localhost:9093"
    kafka_config.from_props(props)

    # redirecting via listener.security.protocol.map is acceptable
    props[ssc.LISTENERS_CONFIG] = "PLAINTEXT://localhost:9092,CONTROLLER://localhost:9093"
    props[ssc.LISTENER_SECURITY_PROTOCOL_MAP_CONFIG] = "PLAINTEXT:PLAINTEXT,CONTROLLER:SSL"
    props[krc.CONTROLLER_LISTENER_NAMES_CONFIG] = "CONTROLLER"
    kafka_config.from_props(props)


def test_controller_listener_name_maps_to_plaintext_by_default_for_k_raft():
    props = {krc.PROCESS_ROLES_CONFIG: "broker", krc.CONTROLLER_LISTENER_NAMES_CONFIG: "CONTROLLER",
             krc.NODE_ID_CONFIG: "1", quorum_config.QUORUM_VOTERS_CONFIG: "2@localhost:9093"}
    controller_listener_name = ListenerName("CONTROLLER")
    assert (kafka_config.from_props(props).effective_listener_security_protocol_map().get(controller_listener_name)
            is SecurityProtocol.PLAINTEXT)
    # not mapped to PLAINTEXT when there is an SSL or SASL controller listener
    props[krc.CONTROLLER_LISTENER_NAMES_CONFIG] = "CONTROLLER,SSL"
    not_found = ("Controller listener with name CONTROLLER defined in controller.listener.names not found in "
                 "listener.security.protocol.map")
    _assert_bad_config_containing_message(props, not_found)
    # nor when there is an SSL or SASL listener
    props[krc.CONTROLLER_LISTENER_NAMES_CONFIG] = "CONTROLLER"
    props[ssc.LISTENERS_CONFIG] = "SSL://localhost:9092"
    _assert_bad_config_containing_message(props, not_found)
    del props[ssc.LISTENERS_CONFIG]
    # nor when it is mapped explicitly otherwise
    props[ssc.LISTENER_SECURITY_PROTOCOL_MAP_CONFIG] = "PLAINTEXT:PLAINTEXT,CONTROLLER:SSL"
    assert (kafka_config.from_props(props).effective_listener_security_protocol_map().get(controller_listener_name)
            is SecurityProtocol.SSL)
    # nor when anything at all is given: the mapping is part of the default value only
    props[ssc.LISTENER_SECURITY_PROTOCOL_MAP_CONFIG] = "PLAINTEXT:PLAINTEXT"
    _assert_bad_config_containing_message(props, not_found)
    # a non-PLAINTEXT protocol by default when nothing is given
    del props[ssc.LISTENER_SECURITY_PROTOCOL_MAP_CONFIG]
    props[krc.CONTROLLER_LISTENER_NAMES_CONFIG] = "SSL"
    assert (kafka_config.from_props(props).effective_listener_security_protocol_map().get(ListenerName("SSL"))
            is SecurityProtocol.SSL)


def test_multiple_controller_listener_names_map_to_plaintext_by_default_for_k_raft():
    props = {krc.PROCESS_ROLES_CONFIG: "controller",
             ssc.LISTENERS_CONFIG: "CONTROLLER1://localhost:9092,CONTROLLER2://localhost:9093",
             krc.CONTROLLER_LISTENER_NAMES_CONFIG: "CONTROLLER1,CONTROLLER2",
             krc.NODE_ID_CONFIG: "1",
             quorum_config.QUORUM_VOTERS_CONFIG: "1@localhost:9092"}
    assert (kafka_config.from_props(props).effective_listener_security_protocol_map().get(ListenerName("CONTROLLER1"))
            is SecurityProtocol.PLAINTEXT)
    assert (kafka_config.from_props(props).effective_listener_security_protocol_map().get(ListenerName("CONTROLLER2"))
            is SecurityProtocol.PLAINTEXT)


def test_bad_listener_protocol():
    props = {sc.BROKER_ID_CONFIG: "1", zkc.ZK_CONNECT_CONFIG: "localhost:2181",
             ssc.LISTENERS_CONFIG: "BAD://localhost:9091"}
    assert not _is_valid_kafka_config(props)


def test_listener_names_with_advertised_listener_unset():
    props = {sc.BROKER_ID_CONFIG: "1", zkc.ZK_CONNECT_CONFIG: "localhost:2181",
             ssc.LISTENERS_CONFIG: "CLIENT://localhost:9091,REPLICATION://localhost:9092,INTERNAL://localhost:9093",
             ssc.LISTENER_SECURITY_PROTOCOL_MAP_CONFIG: "CLIENT:SSL,REPLICATION:SSL,INTERNAL:PLAINTEXT",
             rc.INTER_BROKER_LISTENER_NAME_CONFIG: "REPLICATION"}
    config = kafka_config.from_props(props)
    expected_listeners = [
        EndPoint("localhost", 9091, ListenerName("CLIENT"), SecurityProtocol.SSL),
        EndPoint("localhost", 9092, ListenerName("REPLICATION"), SecurityProtocol.SSL),
        EndPoint("localhost", 9093, ListenerName("INTERNAL"), SecurityProtocol.PLAINTEXT)]
    assert config.listeners() == expected_listeners
    assert config.effective_advertised_broker_listeners() == expected_listeners
    assert config.effective_listener_security_protocol_map() == {
        ListenerName("CLIENT"): SecurityProtocol.SSL,
        ListenerName("REPLICATION"): SecurityProtocol.SSL,
        ListenerName("INTERNAL"): SecurityProtocol.PLAINTEXT}


def test_listener_and_advertised_listener_names():
    props = {sc.BROKER_ID_CONFIG: "1", zkc.ZK_CONNECT_CONFIG: "localhost:2181",
             ssc.LISTENERS_CONFIG: "EXTERNAL://localhost:9091,INTERNAL://localhost:9093",
             ssc.ADVERTISED_LISTENERS_CONFIG: "EXTERNAL://lb1.example.com:9000,INTERNAL://host1:9093",
             ssc.LISTENER_SECURITY_PROTOCOL_MAP_CONFIG: "EXTERNAL:SSL,INTERNAL:PLAINTEXT",
             rc.INTER_BROKER_LISTENER_NAME_CONFIG: "INTERNAL"}
    config = kafka_config.from_props(props)
    assert config.listeners() == [
        EndPoint("localhost", 9091, ListenerName("EXTERNAL"), SecurityProtocol.SSL),
        EndPoint("localhost", 9093, ListenerName("INTERNAL"), SecurityProtocol.PLAINTEXT)]
    assert config.effective_advertised_broker_listeners() == [
        EndPoint("lb1.example.com", 9000, ListenerName("EXTERNAL"), SecurityProtocol.SSL),
        EndPoint("host1", 9093, ListenerName("INTERNAL"), SecurityProtocol.PLAINTEXT)]
    assert config.effective_listener_security_protocol_map() == {
        ListenerName("EXTERNAL"): SecurityProtocol.SSL, ListenerName("INTERNAL"): SecurityProtocol.PLAINTEXT}


def test_listener_name_missing_from_listener_security_protocol_map():
    props = {sc.BROKER_ID_CONFIG: "1", zkc.ZK_CONNECT_CONFIG: "localhost:2181",
             ssc.LISTENERS_CONFIG: "SSL://localhost:9091,REPLICATION://localhost:9092",
             rc.INTER_BROKER_LISTENER_NAME_CONFIG: "SSL"}
    assert not _is_valid_kafka_config(props)


def test_inter_broker_listener_name_missing_from_listener_security_protocol_map():
    props = {sc.BROKER_ID_CONFIG: "1", zkc.ZK_CONNECT_CONFIG: "localhost:2181",
             ssc.LISTENERS_CONFIG: "SSL://localhost:9091", rc.INTER_BROKER_LISTENER_NAME_CONFIG: "REPLICATION"}
    assert not _is_valid_kafka_config(props)


def test_inter_broker_listener_name_and_security_protocol_set():
    props = {sc.BROKER_ID_CONFIG: "1", zkc.ZK_CONNECT_CONFIG: "localhost:2181",
             ssc.LISTENERS_CONFIG: "SSL://localhost:9091", rc.INTER_BROKER_LISTENER_NAME_CONFIG: "SSL",
             rc.INTER_BROKER_SECURITY_PROTOCOL_CONFIG: "SSL"}
    assert not _is_valid_kafka_config(props)


def test_case_insensitive_listener_protocol():
    props = {sc.BROKER_ID_CONFIG: "1", zkc.ZK_CONNECT_CONFIG: "localhost:2181",
             ssc.LISTENERS_CONFIG: "plaintext://localhost:9091,SsL://localhost:9092"}
    config = kafka_config.from_props(props)
    by_name = {ep.listener_name.value(): ep.connection_string() for ep in config.listeners()}
    assert by_name.get("SSL") == "SSL://localhost:9092"
    assert by_name.get("PLAINTEXT") == "PLAINTEXT://localhost:9091"


def test_listener_defaults():
    props = {sc.BROKER_ID_CONFIG: "1", zkc.ZK_CONNECT_CONFIG: "localhost:2181"}
    conf = kafka_config.from_props(props)
    assert conf.listeners() == _listener_list_to_end_points("PLAINTEXT://:9092")
    assert next(ep for ep in conf.listeners() if ep.security_protocol is SecurityProtocol.PLAINTEXT).host is None
    assert conf.effective_advertised_broker_listeners() == _listener_list_to_end_points("PLAINTEXT://:9092")


# --- unclean election, roll time, compression -------------------------------------------------------------------------

def test_unclean_leader_election_default():
    assert kafka_config.from_props(_zk_config()).unclean_leader_election_enable() is False


def test_unclean_election_disabled():
    props = _zk_config()
    props[rc.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG] = "false"
    assert kafka_config.from_props(props).unclean_leader_election_enable() is False


def test_unclean_election_enabled():
    props = _zk_config()
    props[rc.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG] = "true"
    assert kafka_config.from_props(props).unclean_leader_election_enable() is True


def test_unclean_election_invalid():
    props = _zk_config()
    props[rc.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG] = "invalid"
    with pytest.raises(ConfigException):
        kafka_config.from_props(props)


def test_log_roll_time_ms_provided():
    props = _zk_config()
    props[slc.LOG_ROLL_TIME_MILLIS_CONFIG] = "1800000"
    assert kafka_config.from_props(props).log_roll_time_millis() == 30 * 60 * 1000


def test_log_roll_time_both_ms_and_hours_provided():
    props = _zk_config()
    props[slc.LOG_ROLL_TIME_MILLIS_CONFIG] = "1800000"
    props[slc.LOG_ROLL_TIME_HOURS_CONFIG] = "1"
    assert kafka_config.from_props(props).log_roll_time_millis() == 30 * 60 * 1000


def test_log_roll_time_no_config_provided():
    assert kafka_config.from_props(_zk_config()).log_roll_time_millis() == 24 * 7 * 60 * 60 * 1000


def test_default_compression_type():
    assert kafka_config.from_props(_zk_config()).compression_type() == "producer"


def test_valid_compression_type():
    props = _zk_config()
    props["compression.type"] = "gzip"
    assert kafka_config.from_props(props).compression_type() == "gzip"


def test_invalid_compression_type():
    props = _zk_config()
    props[sc.COMPRESSION_TYPE_CONFIG] = "abc"
    with pytest.raises(ConfigException):
        kafka_config.from_props(props)


def test_invalid_gzip_compression_level():
    _assert_invalid_compression_level(CompressionType.GZIP, sc.COMPRESSION_GZIP_LEVEL_CONFIG)


def test_invalid_lz4_compression_level():
    _assert_invalid_compression_level(CompressionType.LZ4, sc.COMPRESSION_LZ4_LEVEL_CONFIG)


def test_invalid_zstd_compression_level():
    _assert_invalid_compression_level(CompressionType.ZSTD, sc.COMPRESSION_ZSTD_LEVEL_CONFIG)


def _assert_invalid_compression_level(codec: CompressionType, level_config: str) -> None:
    props = _zk_config()
    props[sc.COMPRESSION_TYPE_CONFIG] = str(codec)
    props[level_config] = str(codec.max_level() + 1)
    with pytest.raises(ConfigException):
        kafka_config.from_props(props)


def test_invalid_inter_broker_security_protocol():
    props = _zk_config()
    props[ssc.LISTENERS_CONFIG] = "SSL://localhost:0"
    props[rc.INTER_BROKER_SECURITY_PROTOCOL_CONFIG] = SecurityProtocol.PLAINTEXT.name
    with pytest.raises(IllegalArgumentException):
        kafka_config.from_props(props)


def test_equal_advertised_listeners_protocol():
    props = _zk_config()
    props[ssc.LISTENERS_CONFIG] = "PLAINTEXT://localhost:9092,SSL://localhost:9093"
    props[ssc.ADVERTISED_LISTENERS_CONFIG] = "PLAINTEXT://localhost:9092,SSL://localhost:9093"
    kafka_config.from_props(props)


def test_invalid_advertised_listeners_protocol():
    props = _zk_config()
    props[ssc.LISTENERS_CONFIG] = "TRACE://localhost:9091,SSL://localhost:9093"
    props[ssc.ADVERTISED_LISTENERS_CONFIG] = "PLAINTEXT://localhost:9092"
    _assert_bad_config_containing_message(props, "No security protocol defined for listener TRACE")

    props[ssc.LISTENER_SECURITY_PROTOCOL_MAP_CONFIG] = "PLAINTEXT:PLAINTEXT,TRACE:PLAINTEXT,SSL:SSL"
    _assert_bad_config_containing_message(props, "advertised.listeners listener names must be equal to or a subset "
                                                 "of the ones defined in listeners")


# --- every config refuses a bad value ---------------------------------------------------------------------------------

# Kafka's match in testFromPropsInvalid: the values each config must refuse (None: not checked, a free string); any
# config not named here must refuse "not_a_number" and "-1". RemoteLogManagerConfig's rows are not here: tiered
# storage is not ported, so those names are not in the port's configNames.
_NOT_CHECKED = None
_INVALID_VALUES: dict[str, tuple[object, ...] | None] = {
    "zookeeper.connect": _NOT_CHECKED,
    "zookeeper.session.timeout.ms": ("not_a_number",),
    "zookeeper.connection.timeout.ms": ("not_a_number",),
    "zookeeper.set.acl": ("not_a_boolean",),
    "zookeeper.max.in.flight.requests": ("not_a_number", "0"),
    "zookeeper.ssl.client.enable": ("not_a_boolean",),
    "zookeeper.clientCnxnSocket": _NOT_CHECKED,
    "zookeeper.ssl.keystore.location": _NOT_CHECKED,
    "zookeeper.ssl.keystore.password": _NOT_CHECKED,
    "zookeeper.ssl.keystore.type": _NOT_CHECKED,
    "zookeeper.ssl.truststore.location": _NOT_CHECKED,
    "zookeeper.ssl.truststore.password": _NOT_CHECKED,
    "zookeeper.ssl.truststore.type": _NOT_CHECKED,
    "zookeeper.ssl.protocol": _NOT_CHECKED,
    "zookeeper.ssl.enabled.protocols": _NOT_CHECKED,
    "zookeeper.ssl.cipher.suites": _NOT_CHECKED,
    "zookeeper.ssl.endpoint.identification.algorithm": _NOT_CHECKED,
    "zookeeper.ssl.crl.enable": ("not_a_boolean",),
    "zookeeper.ssl.ocsp.enable": ("not_a_boolean",),
    "broker.id": ("not_a_number",),
    "num.io.threads": ("not_a_number", "0"),
    "background.threads": ("not_a_number", "0"),
    "num.replica.alter.log.dirs.threads": ("not_a_number",),
    "request.timeout.ms": ("not_a_number",),
    "socket.connection.setup.timeout.ms": ("not_a_number",),
    "socket.connection.setup.timeout.max.ms": ("not_a_number",),
    "process.roles": _NOT_CHECKED,
    "initial.broker.registration.timeout.ms": ("not_a_number",),
    "broker.heartbeat.interval.ms": ("not_a_number",),
    "broker.session.timeout.ms": ("not_a_number",),
    "node.id": ("not_a_number",),
    "metadata.log.dir": _NOT_CHECKED,
    "metadata.log.segment.bytes": ("not_a_number",),
    "metadata.log.segment.ms": ("not_a_number",),
    "metadata.max.retention.bytes": ("not_a_number",),
    "metadata.max.retention.ms": ("not_a_number",),
    "controller.listener.names": _NOT_CHECKED,
    "metadata.max.idle.interval.ms": ("not_a_number",),
    "authorizer.class.name": _NOT_CHECKED,
    "create.topic.policy.class.name": _NOT_CHECKED,
    "socket.send.buffer.bytes": ("not_a_number",),
    "socket.receive.buffer.bytes": ("not_a_number",),
    "socket.listen.backlog.size": ("not_a_number",),
    "max.connections.per.ip.overrides": ("127.0.0.1:not_a_number",),
    "connections.max.idle.ms": ("not_a_number",),
    "connection.failed.authentication.delay.ms": ("not_a_number", "-1"),
    "queued.max.requests": ("not_a_number", "0"),
    "queued.max.request.bytes": ("not_a_number",),
    "num.network.threads": ("not_a_number", "0"),
    "num.partitions": ("not_a_number", "0"),
    "log.dirs": _NOT_CHECKED,
    "log.dir": _NOT_CHECKED,
    "log.segment.bytes": ("not_a_number", 12 - 1),  # Records.LOG_OVERHEAD - 1
    "log.roll.ms": ("not_a_number", "0"),
    "log.roll.hours": ("not_a_number", "0"),
    "log.retention.ms": ("not_a_number", "0"),
    "log.retention.minutes": ("not_a_number", "0"),
    "log.retention.hours": ("not_a_number", "0"),
    "log.retention.bytes": ("not_a_number",),
    "log.retention.check.interval.ms": ("not_a_number", "0"),
    "log.cleanup.policy": ("unknown_policy", "0"),
    "log.cleaner.io.max.bytes.per.second": ("not_a_number",),
    "log.cleaner.dedupe.buffer.size": ("not_a_number", "1024"),
    "log.cleaner.io.buffer.load.factor": ("not_a_number",),
    "log.cleaner.enable": ("not_a_boolean",),
    "log.cleaner.delete.retention.ms": ("not_a_number",),
    "log.cleaner.min.compaction.lag.ms": ("not_a_number",),
    "log.cleaner.max.compaction.lag.ms": ("not_a_number",),
    "log.cleaner.min.cleanable.ratio": ("not_a_number",),
    "log.index.size.max.bytes": ("not_a_number", "3"),
    "log.flush.interval.messages": ("not_a_number", "0"),
    "log.flush.scheduler.interval.ms": ("not_a_number",),
    "log.flush.interval.ms": ("not_a_number",),
    "log.message.timestamp.difference.max.ms": ("not_a_number",),
    "log.message.timestamp.before.max.ms": ("not_a_number",),
    "log.message.timestamp.after.max.ms": ("not_a_number",),
    "log.flush.start.offset.checkpoint.interval.ms": ("not_a_number",),
    "num.recovery.threads.per.data.dir": ("not_a_number", "0"),
    "auto.create.topics.enable": ("not_a_boolean", "0"),
    "min.insync.replicas": ("not_a_number", "0"),
    "controller.socket.timeout.ms": ("not_a_number",),
    "default.replication.factor": ("not_a_number",),
    "replica.lag.time.max.ms": ("not_a_number",),
    "replica.socket.timeout.ms": ("not_a_number", "-2"),
    "replica.socket.receive.buffer.bytes": ("not_a_number",),
    "replica.fetch.max.bytes": ("not_a_number",),
    "replica.fetch.wait.max.ms": ("not_a_number",),
    "replica.fetch.min.bytes": ("not_a_number",),
    "replica.fetch.response.max.bytes": ("not_a_number",),
    "replica.selector.class": _NOT_CHECKED,
    "num.replica.fetchers": ("not_a_number",),
    "replica.high.watermark.checkpoint.interval.ms": ("not_a_number",),
    "fetch.purgatory.purge.interval.requests": ("not_a_number",),
    "producer.purgatory.purge.interval.requests": ("not_a_number",),
    "delete.records.purgatory.purge.interval.requests": ("not_a_number",),
    "auto.leader.rebalance.enable": ("not_a_boolean", "0"),
    "leader.imbalance.per.broker.percentage": ("not_a_number",),
    "leader.imbalance.check.interval.seconds": ("not_a_number",),
    "unclean.leader.election.enable": ("not_a_boolean", "0"),
    "controlled.shutdown.max.retries": ("not_a_number",),
    "controlled.shutdown.retry.backoff.ms": ("not_a_number",),
    "controlled.shutdown.enable": ("not_a_boolean", "0"),
    "group.min.session.timeout.ms": ("not_a_number",),
    "group.max.session.timeout.ms": ("not_a_number",),
    "group.initial.rebalance.delay.ms": ("not_a_number",),
    "group.max.size": ("not_a_number", "0", "-1"),
    "offset.metadata.max.bytes": ("not_a_number",),
    "offsets.load.buffer.size": ("not_a_number", "0"),
    "offsets.topic.replication.factor": ("not_a_number", "0"),
    "offsets.topic.num.partitions": ("not_a_number", "0"),
    "offsets.topic.segment.bytes": ("not_a_number", "0"),
    "offsets.topic.compression.codec": ("not_a_number", "-1"),
    "offsets.retention.minutes": ("not_a_number", "0"),
    "offsets.retention.check.interval.ms": ("not_a_number", "0"),
    "offsets.commit.timeout.ms": ("not_a_number", "0"),
    "offsets.commit.required.acks": ("not_a_number", "-2"),
    "transactional.id.expiration.ms": ("not_a_number", "0", "-2"),
    "transaction.max.timeout.ms": ("not_a_number", "0", "-2"),
    "transaction.state.log.min.isr": ("not_a_number", "0", "-2"),
    "transaction.state.log.load.buffer.size": ("not_a_number", "0", "-2"),
    "transaction.state.log.num.partitions": ("not_a_number", "0", "-2"),
    "transaction.state.log.segment.bytes": ("not_a_number", "0", "-2"),
    "transaction.state.log.replication.factor": ("not_a_number", "0", "-2"),
    "quota.window.size.seconds": ("not_a_number", "0"),
    "delete.topic.enable": ("not_a_boolean", "0"),
    "metrics.num.samples": ("not_a_number", "-1", "0"),
    "metrics.sample.window.ms": ("not_a_number", "-1", "0"),
    "metric.reporters": _NOT_CHECKED,
    "metrics.recording.level": _NOT_CHECKED,
    "broker.rack": _NOT_CHECKED,
    "compression.gzip.level": ("not_a_number", "0"),
    "compression.lz4.level": ("not_a_number", "0"),
    "compression.zstd.level": ("not_a_number", CompressionType.ZSTD.max_level() + 1),
    # SSL
    "principal.builder.class": _NOT_CHECKED,
    "connections.max.reauth.ms": _NOT_CHECKED,
    "ssl.protocol": _NOT_CHECKED,
    "ssl.provider": _NOT_CHECKED,
    "ssl.enabled.protocols": _NOT_CHECKED,
    "ssl.keystore.type": _NOT_CHECKED,
    "ssl.keystore.location": _NOT_CHECKED,
    "ssl.keystore.password": _NOT_CHECKED,
    "ssl.key.password": _NOT_CHECKED,
    "ssl.keystore.certificate.chain": _NOT_CHECKED,
    "ssl.keystore.key": _NOT_CHECKED,
    "ssl.truststore.type": _NOT_CHECKED,
    "ssl.truststore.password": _NOT_CHECKED,
    "ssl.truststore.location": _NOT_CHECKED,
    "ssl.truststore.certificates": _NOT_CHECKED,
    "ssl.keymanager.algorithm": _NOT_CHECKED,
    "ssl.trustmanager.algorithm": _NOT_CHECKED,
    "ssl.client.auth": _NOT_CHECKED,
    "ssl.endpoint.identification.algorithm": _NOT_CHECKED,
    "ssl.secure.random.implementation": _NOT_CHECKED,
    "ssl.cipher.suites": _NOT_CHECKED,
    "ssl.principal.mapping.rules": _NOT_CHECKED,
    # SASL
    "sasl.mechanism.controller.protocol": _NOT_CHECKED,
    "sasl.mechanism.inter.broker.protocol": _NOT_CHECKED,
    "sasl.enabled.mechanisms": _NOT_CHECKED,
    "sasl.client.callback.handler.class": _NOT_CHECKED,
    "sasl.server.callback.handler.class": _NOT_CHECKED,
    "sasl.login.class": _NOT_CHECKED,
    "sasl.login.callback.handler.class": _NOT_CHECKED,
    "sasl.kerberos.service.name": _NOT_CHECKED,
    "sasl.kerberos.kinit.cmd": _NOT_CHECKED,
    "sasl.kerberos.ticket.renew.window.factor": _NOT_CHECKED,
    "sasl.kerberos.ticket.renew.jitter": _NOT_CHECKED,
    "sasl.kerberos.min.time.before.relogin": _NOT_CHECKED,
    "sasl.kerberos.principal.to.local.rules": _NOT_CHECKED,
    "sasl.jaas.config": _NOT_CHECKED,
    "sasl.login.refresh.window.factor": _NOT_CHECKED,
    "sasl.login.refresh.window.jitter": _NOT_CHECKED,
    "sasl.login.refresh.min.period.seconds": _NOT_CHECKED,
    "sasl.login.refresh.buffer.seconds": _NOT_CHECKED,
    "sasl.login.connect.timeout.ms": _NOT_CHECKED,
    "sasl.login.read.timeout.ms": _NOT_CHECKED,
    "sasl.login.retry.backoff.max.ms": _NOT_CHECKED,
    "sasl.login.retry.backoff.ms": _NOT_CHECKED,
    "sasl.oauthbearer.scope.claim.name": _NOT_CHECKED,
    "sasl.oauthbearer.sub.claim.name": _NOT_CHECKED,
    "sasl.oauthbearer.token.endpoint.url": _NOT_CHECKED,
    "sasl.oauthbearer.jwks.endpoint.url": _NOT_CHECKED,
    "sasl.oauthbearer.jwks.endpoint.refresh.ms": _NOT_CHECKED,
    "sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms": _NOT_CHECKED,
    "sasl.oauthbearer.jwks.endpoint.retry.backoff.ms": _NOT_CHECKED,
    "sasl.oauthbearer.clock.skew.seconds": _NOT_CHECKED,
    "sasl.oauthbearer.expected.audience": _NOT_CHECKED,
    "sasl.oauthbearer.expected.issuer": _NOT_CHECKED,
    "security.providers": _NOT_CHECKED,
    # password encoder
    "password.encoder.secret": _NOT_CHECKED,
    "password.encoder.old.secret": _NOT_CHECKED,
    "password.encoder.keyfactory.algorithm": _NOT_CHECKED,
    "password.encoder.cipher.algorithm": _NOT_CHECKED,
    "password.encoder.key.length": ("not_a_number", "-1", "0"),
    "password.encoder.iterations": ("not_a_number", "-1", "0"),
    # delegation tokens
    "delegation.token.master.key": _NOT_CHECKED,
    "delegation.token.secret.key": _NOT_CHECKED,
    "delegation.token.max.lifetime.ms": ("not_a_number", "0"),
    "delegation.token.expiry.time.ms": ("not_a_number", "0"),
    "delegation.token.expiry.check.interval.ms": ("not_a_number", "0"),
    # Yammer metrics reporters
    "kafka.metrics.reporters": _NOT_CHECKED,
    "kafka.metrics.polling.interval.secs": _NOT_CHECKED,
    "sasl.server.max.receive.size": ("not_a_number",),
    # Raft quorum
    "controller.quorum.voters": _NOT_CHECKED,
    "controller.quorum.bootstrap.servers": _NOT_CHECKED,
    "controller.quorum.election.timeout.ms": ("not_a_number",),
    "controller.quorum.fetch.timeout.ms": ("not_a_number",),
    "controller.quorum.election.backoff.max.ms": ("not_a_number",),
    "controller.quorum.append.linger.ms": ("not_a_number",),
    "controller.quorum.request.timeout.ms": ("not_a_number",),
    "controller.quorum.retry.backoff.ms": ("not_a_number",),
    # new group coordinator
    "group.coordinator.new.enable": _NOT_CHECKED,
    "group.coordinator.threads": ("not_a_number", 0, -1),
    # consumer groups
    "group.consumer.session.timeout.ms": ("not_a_number", 0, -1),
    "group.consumer.min.session.timeout.ms": ("not_a_number", 0, -1),
    "group.consumer.max.session.timeout.ms": ("not_a_number", 0, -1),
    "group.consumer.heartbeat.interval.ms": ("not_a_number", 0, -1),
    "group.consumer.min.heartbeat.interval.ms": ("not_a_number", 0, -1),
    "group.consumer.max.heartbeat.interval.ms": ("not_a_number", 0, -1),
    "group.consumer.max.size": ("not_a_number", 0, -1),
    "group.consumer.assignors": _NOT_CHECKED,
    # share groups
    "group.share.session.timeout.ms": ("not_a_number", 0, -1),
    "group.share.min.session.timeout.ms": ("not_a_number", 0, -1),
    "group.share.max.session.timeout.ms": ("not_a_number", 0, -1),
    "group.share.heartbeat.interval.ms": ("not_a_number", 0, -1),
    "group.share.min.heartbeat.interval.ms": ("not_a_number", 0, -1),
    "group.share.max.heartbeat.interval.ms": ("not_a_number", 0, -1),
    "group.share.delivery.count.limit": ("not_a_number", 0, -1),
    "group.share.record.lock.duration.ms": ("not_a_number", 0, -1),
    "group.share.min.record.lock.duration.ms": ("not_a_number", 0, -1),
    "group.share.max.record.lock.duration.ms": ("not_a_number", 0, -1),
    "group.share.partition.max.record.locks": ("not_a_number", 0, -1),
    "group.share.max.groups": ("not_a_number", 0, -1),
    "group.share.max.size": ("not_a_number", 0, -1),
    # remote log manager (tiered storage: its keys are read, nothing acts on them)
    "remote.log.storage.system.enable": ("not_a_boolean",),
    "remote.log.storage.manager.class.name": _NOT_CHECKED,
    "remote.log.storage.manager.class.path": _NOT_CHECKED,
    "remote.log.storage.manager.impl.prefix": _NOT_CHECKED,
    "remote.log.metadata.manager.class.name": _NOT_CHECKED,
    "remote.log.metadata.manager.class.path": _NOT_CHECKED,
    "remote.log.metadata.manager.impl.prefix": _NOT_CHECKED,
    "remote.log.metadata.manager.listener.name": _NOT_CHECKED,
    "remote.log.index.file.cache.total.size.bytes": ("not_a_number", 0, -1),
    "remote.log.manager.thread.pool.size": ("not_a_number", 0, -1),
    "remote.log.manager.copier.thread.pool.size": ("not_a_number", 0, -2),
    "remote.log.manager.expiration.thread.pool.size": ("not_a_number", 0, -2),
    "remote.log.manager.task.interval.ms": ("not_a_number", 0, -1),
    "remote.log.manager.task.retry.backoff.ms": ("not_a_number", 0, -1),
    "remote.log.manager.task.retry.backoff.max.ms": ("not_a_number", 0, -1),
    "remote.log.manager.task.retry.jitter": ("not_a_number", -1, 0.51),
    "remote.log.reader.threads": ("not_a_number", 0, -1),
    "remote.log.reader.max.pending.tasks": ("not_a_number", 0, -1),
    "log.local.retention.ms": ("not_a_number", -3),
    "log.local.retention.bytes": ("not_a_number", -3),
}


def test_from_props_invalid():
    def base_properties() -> dict[str, str]:
        return {zkc.ZK_CONNECT_CONFIG: "127.0.0.1:2181"}

    # the basis is valid
    kafka_config.from_props(base_properties())

    for name in kafka_config.config_names():
        values = _INVALID_VALUES.get(name, ("not_a_number", "-1"))
        for value in values or ():
            props = base_properties()
            props[name] = str(value)
            with pytest.raises(Exception):  # noqa: B017  (Kafka asserts classOf[Exception])
                kafka_config.from_props(props)


def _java_string(value: object) -> str:
    """value.toString, as Kafka's test writes a property: booleans in lower case."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def test_dynamic_log_configs():
    props = {zkc.ZK_CONNECT_CONFIG: "127.0.0.1:2181", rlmc.REMOTE_LOG_STORAGE_SYSTEM_ENABLE_PROP: "true"}
    config = kafka_config.from_props(props)

    def assert_dynamic(prop: str, value: object, accessor) -> None:
        initial = accessor()
        props[prop] = _java_string(value)
        config.update_current_config(KafkaConfig(props))
        assert accessor() != initial, prop

    # every log config passes from KafkaConfig to LogConfig dynamically: each is checked with a non-default value
    dynamic = {
        "cleanup.policy": ("compact", lambda: config.log_cleanup_policy()),
        "compression.type": ("lz4", lambda: config.compression_type()),
        "compression.gzip.level": ("5", lambda: config.gzip_compression_level()),
        "compression.lz4.level": ("5", lambda: config.lz4_compression_level()),
        "compression.zstd.level": ("5", lambda: config.zstd_compression_level()),
        "segment.bytes": (10000, lambda: config.log_segment_bytes()),
        "segment.ms": (10001, lambda: config.log_roll_time_millis()),
        "delete.retention.ms": (10002, lambda: config.log_cleaner_delete_retention_ms()),
        "file.delete.delay.ms": (10003, lambda: config.log_delete_delay_ms()),
        "flush.messages": (10004, lambda: config.log_flush_interval_messages()),
        "flush.ms": (10005, lambda: config.log_flush_interval_ms()),
        "max.compaction.lag.ms": (10006, lambda: config.log_cleaner_max_compaction_lag_ms()),
        "index.interval.bytes": (10007, lambda: config.log_index_interval_bytes()),
        "max.message.bytes": (10008, lambda: config.message_max_bytes()),
        "message.downconversion.enable": (False, lambda: config.log_message_down_conversion_enable()),
        "message.timestamp.difference.max.ms": (10009, lambda: config.log_message_timestamp_difference_max_ms()),
        "message.timestamp.before.max.ms": (10015, lambda: config.log_message_timestamp_before_max_ms()),
        "message.timestamp.after.max.ms": (10016, lambda: config.log_message_timestamp_after_max_ms()),
        "message.timestamp.type": ("LogAppendTime", lambda: config.log_message_timestamp_type().name_),
        "min.cleanable.dirty.ratio": (0.01, lambda: config.log_cleaner_min_clean_ratio()),
        "min.compaction.lag.ms": (10010, lambda: config.log_cleaner_min_compaction_lag_ms()),
        "min.insync.replicas": (4, lambda: config.min_in_sync_replicas()),
        "preallocate": (True, lambda: config.log_pre_allocate_enable()),
        "retention.bytes": (10011, lambda: config.log_retention_bytes()),
        "retention.ms": (10012, lambda: config.log_retention_time_millis()),
        "segment.index.bytes": (10013, lambda: config.log_index_size_max_bytes()),
        "segment.jitter.ms": (10014, lambda: config.log_roll_time_jitter_millis()),
        "unclean.leader.election.enable": (True, lambda: config.unclean_leader_election_enable()),
        "local.retention.ms": (10015, lambda: config.remote_log_manager_config().log_local_retention_ms()),
        "local.retention.bytes": (10016, lambda: config.remote_log_manager_config().log_local_retention_bytes()),
    }
    not_dynamic = {"message.format.version",  # not dynamically updatable
                   "follower.replication.throttled.replicas", "leader.replication.throttled.replicas"}  # topic only
    for log_config_name, kafka_config_prop in TOPIC_CONFIG_SYNONYMS.items():
        if log_config_name in not_dynamic:
            continue
        assert log_config_name in dynamic, (
            f"{log_config_name} must be explicitly checked for dynamic updatability. Note that LogConfig(s) require "
            "that KafkaConfig value lookups are dynamic and not static values.")
        value, accessor = dynamic[log_config_name]
        assert_dynamic(kafka_config_prop, value, accessor)


def test_specific_properties():
    defaults = {zkc.ZK_CONNECT_CONFIG: "127.0.0.1:2181",
                zkc.ZK_SESSION_TIMEOUT_MS_CONFIG: "1234",  # for zkConnectionTimeoutMs
                sc.BROKER_ID_GENERATION_ENABLE_CONFIG: "false",
                sc.RESERVED_BROKER_MAX_ID_CONFIG: "1",
                sc.BROKER_ID_CONFIG: "1",
                ssc.LISTENERS_CONFIG: "PLAINTEXT://127.0.0.1:1122",
                ssc.MAX_CONNECTIONS_PER_IP_OVERRIDES_CONFIG: "127.0.0.1:2, 127.0.0.2:3",
                slc.LOG_DIR_CONFIG: "/tmp1,/tmp2",
                slc.LOG_ROLL_TIME_HOURS_CONFIG: "12",
                slc.LOG_ROLL_TIME_JITTER_HOURS_CONFIG: "11",
                slc.LOG_RETENTION_TIME_HOURS_CONFIG: "10",
                slc.LOG_FLUSH_SCHEDULER_INTERVAL_MS_CONFIG: "123",  # for log.flush.interval.ms
                gcc.OFFSETS_TOPIC_COMPRESSION_CODEC_CONFIG: str(CompressionType.SNAPPY.id),
                "metrics.recording.level": "DEBUG"}

    config = kafka_config.from_props(defaults)
    assert config.zk_connect == "127.0.0.1:2181"
    assert config.zk_connection_timeout_ms == 1234
    assert config.broker_id_generation_enable is False
    assert config.max_reserved_broker_id == 1
    assert config.broker_id == 1
    assert [ep.connection_string() for ep in config.effective_advertised_broker_listeners()] == [
        "PLAINTEXT://127.0.0.1:1122"]
    assert config.max_connections_per_ip_overrides == {"127.0.0.1": 2, "127.0.0.2": 3}
    assert config.log_dirs == ["/tmp1", "/tmp2"]
    assert config.log_roll_time_millis() == 12 * 60 * 1000 * 60
    assert config.log_roll_time_jitter_millis() == 11 * 60 * 1000 * 60
    assert config.log_retention_time_millis() == 10 * 60 * 1000 * 60
    assert config.log_flush_interval_ms() == 123
    assert config.group_coordinator_config().offset_topic_compression_type() is CompressionType.SNAPPY
    assert config.metric_recording_level == "DEBUG"
    assert config.token_auth_enabled is False
    assert config.delegation_token_max_life_ms == 7 * 24 * 60 * 60 * 1000
    assert config.delegation_token_expiry_time_ms == 24 * 60 * 60 * 1000
    assert config.delegation_token_expiry_check_interval_ms == 1 * 60 * 1000 * 60

    defaults["delegation.token.secret.key"] = "1234567890"
    assert kafka_config.from_props(defaults).token_auth_enabled is True


def test_nonroutable_advertised_listeners():
    props = {zkc.ZK_CONNECT_CONFIG: "127.0.0.1:2181", ssc.LISTENERS_CONFIG: "PLAINTEXT://0.0.0.0:9092"}
    assert not _is_valid_kafka_config(props)


def test_max_connections_per_ip_prop():
    props = _zk_config()
    props[ssc.MAX_CONNECTIONS_PER_IP_CONFIG] = "0"
    assert not _is_valid_kafka_config(props)
    props[ssc.MAX_CONNECTIONS_PER_IP_OVERRIDES_CONFIG] = "127.0.0.1:100"
    kafka_config.from_props(props)
    props[ssc.MAX_CONNECTIONS_PER_IP_OVERRIDES_CONFIG] = "127.0.0.0#:100"
    assert not _is_valid_kafka_config(props)


# --- KRaft listeners --------------------------------------------------------------------------------------------------

def test_distinct_controller_and_advertised_listeners_allowed_for_k_raft_broker():
    props = {krc.PROCESS_ROLES_CONFIG: "broker",
             ssc.LISTENERS_CONFIG: "PLAINTEXT://A:9092,SSL://B:9093,SASL_SSL://C:9094",
             ssc.ADVERTISED_LISTENERS_CONFIG: "PLAINTEXT://A:9092,SSL://B:9093",  # set explicitly in KRaft
             krc.CONTROLLER_LISTENER_NAMES_CONFIG: "SASL_SSL",
             krc.NODE_ID_CONFIG: "2",
             quorum_config.QUORUM_VOTERS_CONFIG: "3@localhost:9094"}

    # invalid: a listener also appears in the controller listeners
    _assert_bad_config_containing_message(props, "controller.listener.names must not contain a value appearing in the "
                                                 "'listeners' configuration when running KRaft with just the broker "
                                                 "role")

    props[ssc.LISTENERS_CONFIG] = "PLAINTEXT://A:9092,SSL://B:9093"
    kafka_config.from_props(props)

    # also valid with the advertised listeners derived from listeners and controller.listener.names
    del props[ssc.ADVERTISED_LISTENERS_CONFIG]
    kafka_config.from_props(props)


def test_controller_listeners_can_be_advertised_for_k_raft_combined():
    listeners = "PLAINTEXT://A:9092,SSL://B:9093,SASL_SSL://C:9094"
    props = {krc.PROCESS_ROLES_CONFIG: "broker,controller",
             ssc.LISTENERS_CONFIG: listeners,
             ssc.ADVERTISED_LISTENERS_CONFIG: listeners,  # set explicitly in KRaft
             rc.INTER_BROKER_LISTENER_NAME_CONFIG: "SASL_SSL",
             krc.CONTROLLER_LISTENER_NAMES_CONFIG: "PLAINTEXT,SSL",
             krc.NODE_ID_CONFIG: "2",
             quorum_config.QUORUM_VOTERS_CONFIG: "2@localhost:9092"}
    kafka_config.from_props(props)

    del props[ssc.ADVERTISED_LISTENERS_CONFIG]
    kafka_config.from_props(props)


def test_advertised_listeners_allowed_for_k_raft_controller_only_role():
    correct_listeners = "PLAINTEXT://A:9092,SSL://B:9093"
    incorrect_listeners = "PLAINTEXT://A:9092,SSL://B:9093,SASL_SSL://C:9094"
    correct_controller_listener_names = "PLAINTEXT,SSL"
    props = {krc.PROCESS_ROLES_CONFIG: "controller",
             ssc.LISTENERS_CONFIG: correct_listeners,
             ssc.ADVERTISED_LISTENERS_CONFIG: correct_listeners,
             krc.CONTROLLER_LISTENER_NAMES_CONFIG: correct_controller_listener_names,
             krc.NODE_ID_CONFIG: "2",
             quorum_config.QUORUM_VOTERS_CONFIG: "2@localhost:9092"}
    kafka_config.from_props(props)

    # invalid when listeners holds names not in controller.listener.names
    del props[ssc.ADVERTISED_LISTENERS_CONFIG]
    props[ssc.LISTENERS_CONFIG] = incorrect_listeners
    _assert_bad_config_containing_message(props, "The listeners config must only contain KRaft controller listeners "
                                                 "from controller.listener.names when process.roles=controller")

    # invalid when listeners lacks a name of controller.listener.names
    props[ssc.LISTENERS_CONFIG] = correct_listeners
    props[krc.CONTROLLER_LISTENER_NAMES_CONFIG] = correct_controller_listener_names + ",SASL_SSL"
    _assert_bad_config_containing_message(props, "controller.listener.names must only contain values appearing in "
                                                 "the 'listeners' configuration when running the KRaft controller "
                                                 "role")

    props[krc.CONTROLLER_LISTENER_NAMES_CONFIG] = correct_controller_listener_names
    kafka_config.from_props(props)


# --- the quorum -------------------------------------------------------------------------------------------------------

def test_controller_quorum_voter_strings_to_nodes():
    with pytest.raises(ConfigException):
        QuorumConfig.quorum_voter_strings_to_nodes([""])
    assert QuorumConfig.quorum_voter_strings_to_nodes(["3000@example.com:9093"]) == [(3000, "example.com", 9093)]
    assert QuorumConfig.quorum_voter_strings_to_nodes(["3000@example.com:9093", "3001@example.com:9094"]) == [
        (3000, "example.com", 9093), (3001, "example.com", 9094)]


def test_invalid_quorum_voter_config():
    for value in ["1", "1@", "1:", "blah@", "1@kafka1", "1@kafka1:9092,", "1@kafka1:9092,", "1@kafka1:9092,2",
                  "1@kafka1:9092,2@", "1@kafka1:9092,2@blah", "1@kafka1:9092,2@blah,", "1@kafka1:9092:1@kafka2:9092"]:
        props = _create_broker_config(0, MOCK_ZK_CONNECT)
        props[quorum_config.QUORUM_VOTERS_CONFIG] = value
        with pytest.raises(ConfigException):
            kafka_config.from_props(props)


def _assert_valid_quorum_voters(expected_voters: dict[int, tuple[str, int]], value: str) -> None:
    props = _create_broker_config(0, MOCK_ZK_CONNECT)
    props[quorum_config.QUORUM_VOTERS_CONFIG] = value
    addresses = QuorumConfig.parse_voter_connections(kafka_config.from_props(props).quorum_voters)
    assert addresses == expected_voters


def test_valid_empty_quorum_voters_parsing():
    _assert_valid_quorum_voters({}, "")


def test_valid_quorum_voters_parsing_with_ip_address():
    _assert_valid_quorum_voters({1: ("127.0.0.1", 9092)}, "1@127.0.0.1:9092")


def test_valid_quorum_voters_parsing_with_multiple_host():
    _assert_valid_quorum_voters({1: ("kafka1", 9092), 2: ("kafka2", 9092), 3: ("kafka3", 9092)},
                                "1@kafka1:9092,2@kafka2:9092,3@kafka3:9092")


def test_parse_quorum_bootstrap_servers():
    props = _create_broker_config(0, None)
    props[quorum_config.QUORUM_BOOTSTRAP_SERVERS_CONFIG] = "kafka1:9092,kafka2:9092"
    addresses = QuorumConfig.parse_bootstrap_servers(kafka_config.from_props(props).quorum_bootstrap_servers)
    assert addresses == [("kafka1", 9092), ("kafka2", 9092)]


# --- node id ----------------------------------------------------------------------------------------------------------

def test_accepts_large_node_id_for_raft_based_case():
    # KRaft does not generate broker ids, so an id above reserved.broker.max.id (1000) is fine
    props = {krc.PROCESS_ROLES_CONFIG: "broker", ssc.LISTENERS_CONFIG: "PLAINTEXT://localhost:9092",
             krc.CONTROLLER_LISTENER_NAMES_CONFIG: "SSL", quorum_config.QUORUM_VOTERS_CONFIG: "2@localhost:9093",
             krc.NODE_ID_CONFIG: "2000"}
    kafka_config.from_props(props)


def test_rejects_negative_node_id_for_raft_based_broker_case_with_auto_gen_enabled():
    assert not _is_valid_kafka_config({krc.PROCESS_ROLES_CONFIG: "broker"})


def test_rejects_negative_node_id_for_raft_based_controller_case_with_auto_gen_enabled():
    assert not _is_valid_kafka_config({krc.PROCESS_ROLES_CONFIG: "controller"})


def test_rejects_negative_node_id_for_raft_based_case_with_auto_gen_disabled():
    props = {krc.PROCESS_ROLES_CONFIG: "broker", sc.BROKER_ID_GENERATION_ENABLE_CONFIG: "false",
             quorum_config.QUORUM_VOTERS_CONFIG: "2@localhost:9093"}
    assert not _is_valid_kafka_config(props)


def test_zookeeper_connect_not_required_if_non_empty_process_roles():
    props = {krc.PROCESS_ROLES_CONFIG: "broker", ssc.LISTENERS_CONFIG: "PLAINTEXT://127.0.0.1:9092",
             krc.CONTROLLER_LISTENER_NAMES_CONFIG: "SSL", krc.NODE_ID_CONFIG: "1",
             quorum_config.QUORUM_VOTERS_CONFIG: "2@localhost:9093"}
    kafka_config.from_props(props)


def test_custom_metadata_log_dir():
    metadata_dir, data_dir = "/path/to/metadata/dir", "/path/to/data/dir"
    props = {krc.PROCESS_ROLES_CONFIG: "broker", krc.CONTROLLER_LISTENER_NAMES_CONFIG: "SSL",
             krc.METADATA_LOG_DIR_CONFIG: metadata_dir, slc.LOG_DIR_CONFIG: data_dir, krc.NODE_ID_CONFIG: "1",
             quorum_config.QUORUM_VOTERS_CONFIG: "2@localhost:9093"}
    kafka_config.from_props(props)
    config = kafka_config.from_props(props)
    assert config.metadata_log_dir() == metadata_dir
    assert config.log_dirs == [data_dir]


def test_default_metadata_log_dir():
    data_dir1, data_dir2 = "/path/to/data/dir/1", "/path/to/data/dir/2"
    props = {krc.PROCESS_ROLES_CONFIG: "broker", krc.CONTROLLER_LISTENER_NAMES_CONFIG: "SSL",
             slc.LOG_DIR_CONFIG: f"{data_dir1},{data_dir2}", krc.NODE_ID_CONFIG: "1",
             quorum_config.QUORUM_VOTERS_CONFIG: "2@localhost:9093"}
    kafka_config.from_props(props)
    config = kafka_config.from_props(props)
    assert config.metadata_log_dir() == data_dir1
    assert config.log_dirs == [data_dir1, data_dir2]


def test_populate_synonyms_on_empty_map():
    assert kafka_config.populate_synonyms({}) == {}


def test_populate_synonyms_on_map_without_node_id():
    assert kafka_config.populate_synonyms({sc.BROKER_ID_CONFIG: "4"}) == {sc.BROKER_ID_CONFIG: "4",
                                                                         krc.NODE_ID_CONFIG: "4"}


def test_populate_synonyms_on_map_without_broker_id():
    assert kafka_config.populate_synonyms({krc.NODE_ID_CONFIG: "4"}) == {sc.BROKER_ID_CONFIG: "4",
                                                                        krc.NODE_ID_CONFIG: "4"}


def test_node_id_must_not_be_different_than_broker_id():
    props = {sc.BROKER_ID_CONFIG: "1", krc.NODE_ID_CONFIG: "2"}
    with pytest.raises(ConfigException) as caught:
        kafka_config.from_props(props)
    assert str(caught.value) == "You must set `node.id` to the same value as `broker.id`."


def test_node_id_or_broker_id_must_be_set_with_kraft():
    props = {krc.PROCESS_ROLES_CONFIG: "broker", quorum_config.QUORUM_VOTERS_CONFIG: "2@localhost:9093"}
    with pytest.raises(ConfigException) as caught:
        kafka_config.from_props(props)
    assert str(caught.value) == ("Missing configuration `node.id` which is required when `process.roles` is defined "
                                 "(i.e. when running in KRaft mode).")


def test_node_id_is_inferred_by_broker_id_with_kraft():
    props = {krc.PROCESS_ROLES_CONFIG: "broker", krc.CONTROLLER_LISTENER_NAMES_CONFIG: "SSL",
             sc.BROKER_ID_CONFIG: "3", quorum_config.QUORUM_VOTERS_CONFIG: "2@localhost:9093"}
    config = kafka_config.from_props(props)
    assert config.broker_id == 3
    assert config.node_id == 3
    originals = config.originals()
    assert originals.get(sc.BROKER_ID_CONFIG) == "3"
    assert originals.get(krc.NODE_ID_CONFIG) == "3"


def test_broker_id_is_inferred_by_node_id_with_kraft():
    config = kafka_config.from_props(_kraft_props())
    assert config.broker_id == 3
    assert config.node_id == 3
    originals = config.originals()
    assert originals.get(sc.BROKER_ID_CONFIG) == "3"
    assert originals.get(krc.NODE_ID_CONFIG) == "3"


# --- security, early start listeners, IBP -----------------------------------------------------------------------------

def test_sasl_jwks_endpoint_retry_defaults():
    config = kafka_config.from_props({zkc.ZK_CONNECT_CONFIG: "localhost:2181"})
    assert config.get_long("sasl.oauthbearer.jwks.endpoint.retry.backoff.ms") is not None
    assert config.get_long("sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms") is not None


def test_invalid_authorizer_class_name():
    configs: dict[str, str | None] = dict(_zk_config())
    configs[sc.AUTHORIZER_CLASS_NAME_CONFIG] = None
    with pytest.raises(ConfigException) as caught:
        KafkaConfig(configs)
    assert sc.AUTHORIZER_CLASS_NAME_CONFIG in str(caught.value)


def test_invalid_security_inter_broker_protocol():
    props = _zk_config()
    props[rc.INTER_BROKER_SECURITY_PROTOCOL_CONFIG] = "abc"
    with pytest.raises(ConfigException) as caught:
        kafka_config.from_props(props)
    assert rc.INTER_BROKER_SECURITY_PROTOCOL_CONFIG in str(caught.value)


def test_early_start_listeners_default():
    props = {krc.PROCESS_ROLES_CONFIG: "controller", krc.CONTROLLER_LISTENER_NAMES_CONFIG: "CONTROLLER",
             ssc.LISTENERS_CONFIG: "CONTROLLER://:8092", krc.NODE_ID_CONFIG: "1",
             quorum_config.QUORUM_VOTERS_CONFIG: "1@localhost:9093"}
    config = KafkaConfig(props)
    assert {name.value() for name in config.early_start_listeners} == {"CONTROLLER"}


def test_early_start_listeners():
    props = _kraft_props()
    props[sc.EARLY_START_LISTENERS_CONFIG] = "INTERNAL,INTERNAL2"
    props[rc.INTER_BROKER_LISTENER_NAME_CONFIG] = "INTERNAL"
    props[ssc.LISTENER_SECURITY_PROTOCOL_MAP_CONFIG] = "INTERNAL:PLAINTEXT,INTERNAL2:PLAINTEXT,CONTROLLER:PLAINTEXT"
    props[ssc.LISTENERS_CONFIG] = "INTERNAL://127.0.0.1:9092,INTERNAL2://127.0.0.1:9093"
    config = KafkaConfig(props)
    assert config.early_start_listeners == {ListenerName("INTERNAL"), ListenerName("INTERNAL2")}


def test_early_start_listeners_must_be_listeners():
    props = _kraft_props()
    props[sc.EARLY_START_LISTENERS_CONFIG] = "INTERNAL"
    with pytest.raises(ConfigException) as caught:
        KafkaConfig(props)
    assert str(caught.value) == ("early.start.listeners contains listener INTERNAL, but this is not contained in "
                                 "listeners or controller.listener.names")


def test_ignore_user_inter_broker_protocol_version_k_raft():
    for ibp in ["3.0", "3.1", "3.2"]:
        props = _kraft_props()
        props[rc.INTER_BROKER_PROTOCOL_VERSION_CONFIG] = ibp
        assert KafkaConfig(props).inter_broker_protocol_version is MINIMUM_KRAFT_VERSION


def test_invalid_inter_broker_protocol_version_k_raft():
    props = _kraft_props()
    props[rc.INTER_BROKER_PROTOCOL_VERSION_CONFIG] = "2.8"
    with pytest.raises(ConfigException) as caught:
        KafkaConfig(props)
    assert str(caught.value) == ("A non-KRaft version 2.8 given for inter.broker.protocol.version. The minimum "
                                 "version is 3.0-IV1")


def test_default_inter_broker_protocol_version_k_raft():
    assert kafka_config.from_props(_kraft_props()).inter_broker_protocol_version is MINIMUM_KRAFT_VERSION


def test_metadata_max_snapshot_interval():
    props = _kraft_props()
    props[krc.METADATA_SNAPSHOT_MAX_INTERVAL_MS_CONFIG] = "100"
    assert kafka_config.from_props(props).metadata_snapshot_max_interval_ms == 100

    props[krc.METADATA_SNAPSHOT_MAX_INTERVAL_MS_CONFIG] = "-1"
    with pytest.raises(ConfigException) as caught:
        kafka_config.from_props(props)
    assert str(caught.value) == ("Invalid value -1 for configuration metadata.log.max.snapshot.interval.ms: Value "
                                 "must be at least 0")


# --- groups -----------------------------------------------------------------------------------------------------------

def _assert_min_max_validation(min_config: str, max_config: str, config: str) -> None:
    props = _kraft_props()
    # max must be at least min
    props[min_config] = "20"
    props[max_config] = "10"
    with pytest.raises(IllegalArgumentException):
        kafka_config.from_props(props)
    # the value must lie within min..max
    props[min_config] = "10"
    props[max_config] = "20"
    props[config] = "5"
    with pytest.raises(IllegalArgumentException):
        kafka_config.from_props(props)
    props[config] = "25"
    with pytest.raises(IllegalArgumentException):
        kafka_config.from_props(props)


def test_consumer_group_session_timeout_validation():
    _assert_min_max_validation(gcc.CONSUMER_GROUP_MIN_SESSION_TIMEOUT_MS_CONFIG,
                               gcc.CONSUMER_GROUP_MAX_SESSION_TIMEOUT_MS_CONFIG,
                               gcc.CONSUMER_GROUP_SESSION_TIMEOUT_MS_CONFIG)


def test_consumer_group_heartbeat_interval_validation():
    _assert_min_max_validation(gcc.CONSUMER_GROUP_MIN_HEARTBEAT_INTERVAL_MS_CONFIG,
                               gcc.CONSUMER_GROUP_MAX_HEARTBEAT_INTERVAL_MS_CONFIG,
                               gcc.CONSUMER_GROUP_HEARTBEAT_INTERVAL_MS_CONFIG)


def test_group_coordinator_rebalance_protocols():
    props = {gcc.GROUP_COORDINATOR_REBALANCE_PROTOCOLS_CONFIG: "classic,consumer"}
    # consumer cannot be enabled in ZooKeeper mode
    with pytest.raises(ConfigException):
        kafka_config.from_props(props)

    props.update(_kraft_props())

    # only classic and consumer are supported
    props[gcc.GROUP_COORDINATOR_REBALANCE_PROTOCOLS_CONFIG] = "foo"
    with pytest.raises(ConfigException):
        kafka_config.from_props(props)

    # classic cannot be disabled
    props[gcc.GROUP_COORDINATOR_REBALANCE_PROTOCOLS_CONFIG] = "consumer"
    with pytest.raises(ConfigException):
        kafka_config.from_props(props)

    props[gcc.GROUP_COORDINATOR_REBALANCE_PROTOCOLS_CONFIG] = "classic,consumer"
    config = kafka_config.from_props(props)
    assert config.group_coordinator_rebalance_protocols == {GroupType.CLASSIC, GroupType.CONSUMER}
    assert config.is_new_group_coordinator_enabled


def test_consumer_group_migration_policy():
    props = _kraft_props()

    props[gcc.CONSUMER_GROUP_MIGRATION_POLICY_CONFIG] = "foo"
    with pytest.raises(ConfigException):
        kafka_config.from_props(props)

    for policy in gcc.CONSUMER_GROUP_MIGRATION_POLICIES:
        props[gcc.CONSUMER_GROUP_MIGRATION_POLICY_CONFIG] = policy
        assert kafka_config.from_props(props).group_coordinator_config().consumer_group_migration_policy() == policy

    # case-insensitive
    for policy in gcc.CONSUMER_GROUP_MIGRATION_POLICIES:
        props[gcc.CONSUMER_GROUP_MIGRATION_POLICY_CONFIG] = policy.upper()
        assert kafka_config.from_props(props).group_coordinator_config().consumer_group_migration_policy() == policy


def test_single_log_directory_with_remote_log_storage():
    props = _zk_config()
    props[rlmc.REMOTE_LOG_STORAGE_SYSTEM_ENABLE_PROP] = "true"
    props[slc.LOG_DIRS_CONFIG] = "/tmp/a"
    kafka_config.from_props(props)

    props[slc.LOG_DIRS_CONFIG] = "/tmp/a,/tmp/b"
    kafka_config.from_props(props)


def test_share_group_session_timeout_validation():
    _assert_min_max_validation(gcc.SHARE_GROUP_MIN_SESSION_TIMEOUT_MS_CONFIG,
                               gcc.SHARE_GROUP_MAX_SESSION_TIMEOUT_MS_CONFIG,
                               gcc.SHARE_GROUP_SESSION_TIMEOUT_MS_CONFIG)


def test_share_group_heartbeat_interval_validation():
    _assert_min_max_validation(gcc.SHARE_GROUP_MIN_HEARTBEAT_INTERVAL_MS_CONFIG,
                               gcc.SHARE_GROUP_MAX_HEARTBEAT_INTERVAL_MS_CONFIG,
                               gcc.SHARE_GROUP_HEARTBEAT_INTERVAL_MS_CONFIG)


def test_share_group_record_lock_duration_validation():
    props = _kraft_props()

    props[sgc.SHARE_GROUP_MIN_RECORD_LOCK_DURATION_MS_CONFIG] = "10"
    with pytest.raises(ConfigException):
        kafka_config.from_props(props)
    props[sgc.SHARE_GROUP_MAX_RECORD_LOCK_DURATION_MS_CONFIG] = "10000000"
    with pytest.raises(ConfigException):
        kafka_config.from_props(props)

    # the duration must lie within min..max
    props[sgc.SHARE_GROUP_MIN_RECORD_LOCK_DURATION_MS_CONFIG] = "1000"
    props[sgc.SHARE_GROUP_MAX_RECORD_LOCK_DURATION_MS_CONFIG] = "3600000"
    props[sgc.SHARE_GROUP_RECORD_LOCK_DURATION_MS_CONFIG] = "999"
    with pytest.raises(ConfigException):
        kafka_config.from_props(props)
    props[sgc.SHARE_GROUP_RECORD_LOCK_DURATION_MS_CONFIG] = "3600001"
    with pytest.raises(ConfigException):
        kafka_config.from_props(props)
    props[sgc.SHARE_GROUP_RECORD_LOCK_DURATION_MS_CONFIG] = "30000"
    kafka_config.from_props(props)
