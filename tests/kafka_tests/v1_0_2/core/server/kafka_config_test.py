"""Port of core/src/test/scala/unit/kafka/server/KafkaConfigTest.scala (Kafka 1.0.2).

The port's KafkaConfig is 1.0.2's with Kafka 3.9's KRaft configs beside it; every case here runs a ZooKeeper-mode
config (no `process.roles`), as 1.0.2's did. How the port spells Kafka's objects: an EndPoint's listener name and
security protocol are upper-case strings, an ApiVersion is its canonical version string ("0.8.2", "1.0-IV0"), and
`offsets.topic.compression.codec` is kept as the codec's id (SnappyCompressionCodec is id 2, "snappy").

testFromPropsInvalid walks the port's config names, which hold more than 1.0.2's: the KRaft and quorum names get
the rules Kafka 3.9's KafkaConfigTest gives them; the names the port adds of its own (SimpleAclAuthorizer's settings,
the JAAS file, `kafka.edu.advertised.api.versions`) are outside Kafka's table and skipped. Left out of it: the
invalid values of `alter.config.policy.class.name` (1.0.2 refuses them by failing to load a JVM class of that name;
the port keeps CLASS values as names and loads nothing).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from kafka_edu.v1_0_2.core.server.kafka_config import (
    COMPRESSION_CODECS,
    DEFAULT_SECURITY_PROTOCOL_MAP,
    LATEST_API_VERSION,
    ConfigException,
    EndPoint,
    IllegalArgumentException,
    KafkaConfig,
    api_version_at_least,
    listener_list_to_end_points,
)
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import MOCK_ZK_CONNECT, create_broker_config

KAFKA = kafka_test_class(
    "1.0.2", "core/src/test/scala/unit/kafka/server/KafkaConfigTest.scala",
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
        "testAdvertisePortDefault",
        "testAdvertiseHostNameDefault",
        "testDuplicateListeners",
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
        "testInvalidInterBrokerSecurityProtocol",
        "testEqualAdvertisedListenersProtocol",
        "testInvalidAdvertisedListenersProtocol",
        "testInterBrokerVersionMessageFormatCompatibility",
        "testFromPropsInvalid",
        "testSpecificProperties",
        "testNonroutableAdvertisedListeners",
    ],
)

MIN_MESSAGE_OVERHEAD = 14  # kafka.message.Message.MinMessageOverhead
SNAPPY_COMPRESSION_CODEC = 2  # SnappyCompressionCodec.codec

# kafka.api.ApiVersion.allVersions (1.0.2): (ApiVersion.version as Kafka spells it, the version's canonical name in
# the port, its message format version)
ALL_API_VERSIONS = [
    ("0.8.0.X", "0.8.0", 0), ("0.8.1.X", "0.8.1", 0), ("0.8.2.X", "0.8.2", 0), ("0.9.0.X", "0.9.0", 0),
    ("0.10.0-IV0", "0.10.0-IV0", 1), ("0.10.0-IV1", "0.10.0-IV1", 1), ("0.10.1-IV0", "0.10.1-IV0", 1),
    ("0.10.1-IV1", "0.10.1-IV1", 1), ("0.10.1-IV2", "0.10.1-IV2", 1), ("0.10.2-IV0", "0.10.2-IV0", 1),
    ("0.11.0-IV0", "0.11.0-IV0", 2), ("0.11.0-IV1", "0.11.0-IV1", 2), ("0.11.0-IV2", "0.11.0-IV2", 2),
    ("1.0-IV0", "1.0-IV0", 2),
]
KAFKA_0_8_2 = "0.8.2"


def _broker_config() -> dict[str, str]:
    """TestUtils.createBrokerConfig(0, TestUtils.MockZkConnect, port = 8181)"""
    return create_broker_config(0, MOCK_ZK_CONNECT, port=8181)


def _from_props(props: dict[str, str]) -> KafkaConfig:
    return KafkaConfig.from_props(props, do_log=False)


def _is_valid_kafka_config(props: dict[str, str]) -> bool:
    try:
        _from_props(props)
        return True
    except (IllegalArgumentException, ConfigException):
        return False


def _listener_list_to_end_points(listener_list: str,
                                 security_protocol_map: dict[str, str] = DEFAULT_SECURITY_PROTOCOL_MAP
                                 ) -> list[EndPoint]:
    return listener_list_to_end_points(listener_list, security_protocol_map)


def _assert_property_invalid(valid_required_props: Callable[[], dict[str, str]], name: str,
                             *values: object) -> None:
    for value in values:
        props = valid_required_props()
        props[name] = str(value)
        with pytest.raises(Exception):  # noqa: B017 - Kafka intercepts any Exception here
            _from_props(props)


def test_log_retention_time_hours_provided() -> None:
    props = _broker_config()
    props["log.retention.hours"] = "1"
    assert _from_props(props).log_retention_time_millis == 60 * 60 * 1000


def test_log_retention_time_minutes_provided() -> None:
    props = _broker_config()
    props["log.retention.minutes"] = "30"
    assert _from_props(props).log_retention_time_millis == 30 * 60 * 1000


def test_log_retention_time_ms_provided() -> None:
    props = _broker_config()
    props["log.retention.ms"] = "1800000"
    assert _from_props(props).log_retention_time_millis == 30 * 60 * 1000


def test_log_retention_time_no_config_provided() -> None:
    assert _from_props(_broker_config()).log_retention_time_millis == 24 * 7 * 60 * 60 * 1000


def test_log_retention_time_both_minutes_and_hours_provided() -> None:
    props = _broker_config()
    props["log.retention.minutes"] = "30"
    props["log.retention.hours"] = "1"
    assert _from_props(props).log_retention_time_millis == 30 * 60 * 1000


def test_log_retention_time_both_minutes_and_ms_provided() -> None:
    props = _broker_config()
    props["log.retention.ms"] = "1800000"
    props["log.retention.minutes"] = "10"
    assert _from_props(props).log_retention_time_millis == 30 * 60 * 1000


def test_log_retention_unlimited() -> None:
    props1, props2, props3, props4, props5 = (_broker_config() for _ in range(5))
    props1["log.retention.ms"] = "-1"
    props2["log.retention.minutes"] = "-1"
    props3["log.retention.hours"] = "-1"
    for props in (props1, props2, props3):
        assert _from_props(props).log_retention_time_millis == -1, "Should be -1"

    props4["log.retention.ms"] = "-1"
    props4["log.retention.minutes"] = "30"
    assert _from_props(props4).log_retention_time_millis == -1, "Should be -1"

    props5["log.retention.ms"] = "0"
    with pytest.raises(IllegalArgumentException):
        _from_props(props5)


def test_log_retention_valid() -> None:
    for name in ("log.retention.ms", "log.retention.minutes", "log.retention.hours"):
        props = _broker_config()
        props[name] = "0"
        with pytest.raises(IllegalArgumentException):
            _from_props(props)


def _plaintext_advertised_endpoint(config: KafkaConfig) -> EndPoint:
    return next(ep for ep in config.advertised_listeners if ep.security_protocol == "PLAINTEXT")


def test_advertise_defaults() -> None:
    port, host_name = "9999", "fake-host"
    props = create_broker_config(0, MOCK_ZK_CONNECT)
    del props["listeners"]
    props["host.name"] = host_name
    props["port"] = port
    endpoint = _plaintext_advertised_endpoint(_from_props(props))
    assert endpoint.host == host_name
    assert endpoint.port == int(port)


def test_advertise_configured() -> None:
    advertised_host_name, advertised_port = "routable-host", "1234"
    props = create_broker_config(0, MOCK_ZK_CONNECT)
    props["advertised.host.name"] = advertised_host_name
    props["advertised.port"] = advertised_port
    endpoint = _plaintext_advertised_endpoint(_from_props(props))
    assert endpoint.host == advertised_host_name
    assert endpoint.port == int(advertised_port)


def test_advertise_port_default() -> None:
    advertised_host_name, port = "routable-host", "9999"
    props = create_broker_config(0, MOCK_ZK_CONNECT)
    props["advertised.host.name"] = advertised_host_name
    props["port"] = port
    endpoint = _plaintext_advertised_endpoint(_from_props(props))
    assert endpoint.host == advertised_host_name
    assert endpoint.port == int(port)


def test_advertise_host_name_default() -> None:
    host_name, advertised_port = "routable-host", "9999"
    props = create_broker_config(0, MOCK_ZK_CONNECT)
    props["host.name"] = host_name
    props["advertised.port"] = advertised_port
    endpoint = _plaintext_advertised_endpoint(_from_props(props))
    assert endpoint.host == host_name
    assert endpoint.port == int(advertised_port)


def _base_props() -> dict[str, str]:
    return {"broker.id": "1", "zookeeper.connect": "localhost:2181"}


def test_duplicate_listeners() -> None:
    props = _base_props()
    # the same port twice
    props["listeners"] = "PLAINTEXT://localhost:9091,TRACE://localhost:9091"
    assert not _is_valid_kafka_config(props)
    # the same protocol twice
    props["listeners"] = "PLAINTEXT://localhost:9091,PLAINTEXT://localhost:9092"
    assert not _is_valid_kafka_config(props)
    # advertised listeners on the same port twice
    props["advertised.listeners"] = "PLAINTEXT://localhost:9091,TRACE://localhost:9091"
    assert not _is_valid_kafka_config(props)


def test_bad_listener_protocol() -> None:
    props = _base_props()
    props["listeners"] = "BAD://localhost:9091"
    assert not _is_valid_kafka_config(props)


def test_listener_names_with_advertised_listener_unset() -> None:
    props = _base_props()
    props["listeners"] = "CLIENT://localhost:9091,REPLICATION://localhost:9092,INTERNAL://localhost:9093"
    props["listener.security.protocol.map"] = "CLIENT:SSL,REPLICATION:SSL,INTERNAL:PLAINTEXT"
    props["inter.broker.listener.name"] = "REPLICATION"
    config = _from_props(props)
    expected_listeners = [
        EndPoint("localhost", 9091, "CLIENT", "SSL"),
        EndPoint("localhost", 9092, "REPLICATION", "SSL"),
        EndPoint("localhost", 9093, "INTERNAL", "PLAINTEXT"),
    ]
    assert config.listeners == expected_listeners
    assert config.advertised_listeners == expected_listeners
    assert config.listener_security_protocol_map == {"CLIENT": "SSL", "REPLICATION": "SSL", "INTERNAL": "PLAINTEXT"}


def test_listener_and_advertised_listener_names() -> None:
    props = _base_props()
    props["listeners"] = "EXTERNAL://localhost:9091,INTERNAL://localhost:9093"
    props["advertised.listeners"] = "EXTERNAL://lb1.example.com:9000,INTERNAL://host1:9093"
    props["listener.security.protocol.map"] = "EXTERNAL:SSL,INTERNAL:PLAINTEXT"
    props["inter.broker.listener.name"] = "INTERNAL"
    config = _from_props(props)
    assert config.listeners == [
        EndPoint("localhost", 9091, "EXTERNAL", "SSL"),
        EndPoint("localhost", 9093, "INTERNAL", "PLAINTEXT"),
    ]
    assert config.advertised_listeners == [
        EndPoint("lb1.example.com", 9000, "EXTERNAL", "SSL"),
        EndPoint("host1", 9093, "INTERNAL", "PLAINTEXT"),
    ]
    assert config.listener_security_protocol_map == {"EXTERNAL": "SSL", "INTERNAL": "PLAINTEXT"}


def test_listener_name_missing_from_listener_security_protocol_map() -> None:
    props = _base_props()
    props["listeners"] = "SSL://localhost:9091,REPLICATION://localhost:9092"
    props["inter.broker.listener.name"] = "SSL"
    assert not _is_valid_kafka_config(props)


def test_inter_broker_listener_name_missing_from_listener_security_protocol_map() -> None:
    props = _base_props()
    props["listeners"] = "SSL://localhost:9091"
    props["inter.broker.listener.name"] = "REPLICATION"
    assert not _is_valid_kafka_config(props)


def test_inter_broker_listener_name_and_security_protocol_set() -> None:
    props = _base_props()
    props["listeners"] = "SSL://localhost:9091"
    props["inter.broker.listener.name"] = "SSL"
    props["security.inter.broker.protocol"] = "SSL"
    assert not _is_valid_kafka_config(props)


def test_case_insensitive_listener_protocol() -> None:
    props = _base_props()
    props["listeners"] = "plaintext://localhost:9091,SsL://localhost:9092"
    config = _from_props(props)

    def connection_string(name: str) -> str | None:
        return next((ep.connection_string() for ep in config.listeners if ep.listener_name == name), None)

    assert connection_string("SSL") == "SSL://localhost:9092"
    assert connection_string("PLAINTEXT") == "PLAINTEXT://localhost:9091"


def test_listener_defaults() -> None:
    props = _base_props()
    # host and port, no listeners
    props["host.name"] = "myhost"
    props["port"] = "1111"
    conf = _from_props(props)
    assert conf.listeners == _listener_list_to_end_points("PLAINTEXT://myhost:1111")

    # no host
    del props["host.name"]
    conf2 = _from_props(props)
    assert conf2.listeners == _listener_list_to_end_points("PLAINTEXT://:1111")
    assert conf2.advertised_listeners == _listener_list_to_end_points("PLAINTEXT://:1111")
    assert next(ep for ep in conf2.listeners if ep.security_protocol == "PLAINTEXT").host is None

    # advertised host and port, no advertised listeners
    props["advertised.host.name"] = "otherhost"
    props["advertised.port"] = "2222"
    conf3 = _from_props(props)
    assert conf3.advertised_listeners == _listener_list_to_end_points("PLAINTEXT://otherhost:2222")


def test_version_configuration() -> None:
    props = _base_props()
    conf = _from_props(props)
    assert conf.inter_broker_protocol_version == LATEST_API_VERSION

    props["inter.broker.protocol.version"] = "0.8.2.0"
    props["log.message.format.version"] = "0.8.2.0"  # else the config is invalid
    conf2 = _from_props(props)
    assert conf2.inter_broker_protocol_version == KAFKA_0_8_2

    # 0.8.2.0 and 0.8.2.1 are the same version
    props["inter.broker.protocol.version"] = "0.8.2.1"
    props["log.message.format.version"] = "0.8.2.1"
    conf3 = _from_props(props)
    assert conf3.inter_broker_protocol_version == KAFKA_0_8_2

    # the latest is newer than 0.8.2
    assert api_version_at_least(LATEST_API_VERSION, conf3.inter_broker_protocol_version)


def test_unclean_leader_election_default() -> None:
    assert _from_props(_broker_config()).unclean_leader_election_enable is False


def test_unclean_election_disabled() -> None:
    props = _broker_config()
    props["unclean.leader.election.enable"] = "false"
    assert _from_props(props).unclean_leader_election_enable is False


def test_unclean_election_enabled() -> None:
    props = _broker_config()
    props["unclean.leader.election.enable"] = "true"
    assert _from_props(props).unclean_leader_election_enable is True


def test_unclean_election_invalid() -> None:
    props = _broker_config()
    props["unclean.leader.election.enable"] = "invalid"
    with pytest.raises(ConfigException):
        _from_props(props)


def test_log_roll_time_ms_provided() -> None:
    props = _broker_config()
    props["log.roll.ms"] = "1800000"
    assert _from_props(props).log_roll_time_millis == 30 * 60 * 1000


def test_log_roll_time_both_ms_and_hours_provided() -> None:
    props = _broker_config()
    props["log.roll.ms"] = "1800000"
    props["log.roll.hours"] = "1"
    assert _from_props(props).log_roll_time_millis == 30 * 60 * 1000


def test_log_roll_time_no_config_provided() -> None:
    assert _from_props(_broker_config()).log_roll_time_millis == 24 * 7 * 60 * 60 * 1000


def test_default_compression_type() -> None:
    assert _from_props(_broker_config()).compression_type == "producer"


def test_valid_compression_type() -> None:
    props = _broker_config()
    props["compression.type"] = "gzip"
    assert _from_props(props).compression_type == "gzip"


def test_invalid_compression_type() -> None:
    props = _broker_config()
    props["compression.type"] = "abc"
    with pytest.raises(IllegalArgumentException):
        _from_props(props)


def test_invalid_inter_broker_security_protocol() -> None:
    props = _broker_config()
    props["listeners"] = "SSL://localhost:0"
    props["security.inter.broker.protocol"] = "PLAINTEXT"
    with pytest.raises(IllegalArgumentException):
        _from_props(props)


def test_equal_advertised_listeners_protocol() -> None:
    props = _broker_config()
    props["listeners"] = "PLAINTEXT://localhost:9092,SSL://localhost:9093"
    props["advertised.listeners"] = "PLAINTEXT://localhost:9092,SSL://localhost:9093"
    _from_props(props)


def test_invalid_advertised_listeners_protocol() -> None:
    props = _broker_config()
    props["listeners"] = "TRACE://localhost:9091,SSL://localhost:9093"
    props["advertised.listeners"] = "PLAINTEXT://localhost:9092"
    with pytest.raises(IllegalArgumentException):
        _from_props(props)


def test_inter_broker_version_message_format_compatibility() -> None:
    def build_config(inter_broker_protocol: str, message_format: str) -> KafkaConfig:
        props = _broker_config()
        props["inter.broker.protocol.version"] = inter_broker_protocol
        props["log.message.format.version"] = message_format
        return _from_props(props)

    for inter_broker_version, inter_broker_name, inter_broker_format in ALL_API_VERSIONS:
        for message_format_version, message_format_name, message_format in ALL_API_VERSIONS:
            if inter_broker_format >= message_format:
                config = build_config(inter_broker_version, message_format_version)
                assert config.log_message_format_version == message_format_name
                assert config.inter_broker_protocol_version == inter_broker_name
            else:
                with pytest.raises(IllegalArgumentException):
                    build_config(inter_broker_version, message_format_version)


NOT_A_NUMBER = "not_a_number"
NOT_A_BOOLEAN = "not_a_boolean"
IGNORE = None

# testFromPropsInvalid's table: a config name -> the values Kafka 1.0.2 expects refused (IGNORE: none). Names not
# listed get the last rule of Kafka's match: "not_a_number" and "-1".
FROM_PROPS_INVALID: dict[str, tuple[object, ...] | None] = {
    "zookeeper.connect": IGNORE,
    "zookeeper.session.timeout.ms": (NOT_A_NUMBER,),
    "zookeeper.connection.timeout.ms": (NOT_A_NUMBER,),
    "zookeeper.sync.time.ms": (NOT_A_NUMBER,),
    "zookeeper.set.acl": (NOT_A_BOOLEAN,),

    "broker.id": (NOT_A_NUMBER,),
    "num.network.threads": (NOT_A_NUMBER, "0"),
    "num.io.threads": (NOT_A_NUMBER, "0"),
    "background.threads": (NOT_A_NUMBER, "0"),
    "queued.max.requests": (NOT_A_NUMBER, "0"),
    "queued.max.request.bytes": (NOT_A_NUMBER,),
    "request.timeout.ms": (NOT_A_NUMBER,),

    "authorizer.class.name": IGNORE,
    "create.topic.policy.class.name": IGNORE,

    "port": (NOT_A_NUMBER,),
    "host.name": IGNORE,
    "advertised.host.name": IGNORE,
    "advertised.port": (NOT_A_NUMBER,),
    "socket.send.buffer.bytes": (NOT_A_NUMBER,),
    "socket.receive.buffer.bytes": (NOT_A_NUMBER,),
    "max.connections.per.ip.overrides": ("127.0.0.1:not_a_number",),
    "connections.max.idle.ms": (NOT_A_NUMBER,),

    "num.partitions": (NOT_A_NUMBER, "0"),
    "log.dirs": IGNORE,
    "log.dir": IGNORE,
    "log.segment.bytes": (NOT_A_NUMBER, MIN_MESSAGE_OVERHEAD - 1),

    "log.roll.ms": (NOT_A_NUMBER, "0"),
    "log.roll.hours": (NOT_A_NUMBER, "0"),

    "log.retention.ms": (NOT_A_NUMBER, "0"),
    "log.retention.minutes": (NOT_A_NUMBER, "0"),
    "log.retention.hours": (NOT_A_NUMBER, "0"),

    "log.retention.bytes": (NOT_A_NUMBER,),
    "log.retention.check.interval.ms": (NOT_A_NUMBER, "0"),
    "log.cleanup.policy": ("unknown_policy", "0"),
    "log.cleaner.io.max.bytes.per.second": (NOT_A_NUMBER,),
    "log.cleaner.dedupe.buffer.size": (NOT_A_NUMBER, "1024"),
    "log.cleaner.io.buffer.load.factor": (NOT_A_NUMBER,),
    "log.cleaner.enable": (NOT_A_BOOLEAN,),
    "log.cleaner.delete.retention.ms": (NOT_A_NUMBER,),
    "log.cleaner.min.compaction.lag.ms": (NOT_A_NUMBER,),
    "log.cleaner.min.cleanable.ratio": (NOT_A_NUMBER,),
    "log.index.size.max.bytes": (NOT_A_NUMBER, "3"),
    "log.flush.interval.messages": (NOT_A_NUMBER, "0"),
    "log.flush.scheduler.interval.ms": (NOT_A_NUMBER,),
    "log.flush.interval.ms": (NOT_A_NUMBER,),
    "log.message.timestamp.difference.max.ms": (NOT_A_NUMBER,),
    "log.flush.start.offset.checkpoint.interval.ms": (NOT_A_NUMBER,),
    "num.recovery.threads.per.data.dir": (NOT_A_NUMBER, "0"),
    "auto.create.topics.enable": (NOT_A_BOOLEAN, "0"),
    "min.insync.replicas": (NOT_A_NUMBER, "0"),
    "controller.socket.timeout.ms": (NOT_A_NUMBER,),
    "default.replication.factor": (NOT_A_NUMBER,),
    "replica.lag.time.max.ms": (NOT_A_NUMBER,),
    "replica.socket.timeout.ms": (NOT_A_NUMBER, "-2"),
    "replica.socket.receive.buffer.bytes": (NOT_A_NUMBER,),
    "replica.fetch.max.bytes": (NOT_A_NUMBER,),
    "replica.fetch.wait.max.ms": (NOT_A_NUMBER,),
    "replica.fetch.min.bytes": (NOT_A_NUMBER,),
    "replica.fetch.response.max.bytes": (NOT_A_NUMBER,),
    "num.replica.fetchers": (NOT_A_NUMBER,),
    "replica.high.watermark.checkpoint.interval.ms": (NOT_A_NUMBER,),
    "fetch.purgatory.purge.interval.requests": (NOT_A_NUMBER,),
    "producer.purgatory.purge.interval.requests": (NOT_A_NUMBER,),
    "delete.records.purgatory.purge.interval.requests": (NOT_A_NUMBER,),
    "auto.leader.rebalance.enable": (NOT_A_BOOLEAN, "0"),
    "leader.imbalance.per.broker.percentage": (NOT_A_NUMBER,),
    "leader.imbalance.check.interval.seconds": (NOT_A_NUMBER,),
    "unclean.leader.election.enable": (NOT_A_BOOLEAN, "0"),
    "controlled.shutdown.max.retries": (NOT_A_NUMBER,),
    "controlled.shutdown.retry.backoff.ms": (NOT_A_NUMBER,),
    "controlled.shutdown.enable": (NOT_A_BOOLEAN, "0"),
    "group.min.session.timeout.ms": (NOT_A_NUMBER,),
    "group.max.session.timeout.ms": (NOT_A_NUMBER,),
    "group.initial.rebalance.delay.ms": (NOT_A_NUMBER,),
    "offset.metadata.max.bytes": (NOT_A_NUMBER,),
    "offsets.load.buffer.size": (NOT_A_NUMBER, "0"),
    "offsets.topic.replication.factor": (NOT_A_NUMBER, "0"),
    "offsets.topic.num.partitions": (NOT_A_NUMBER, "0"),
    "offsets.topic.segment.bytes": (NOT_A_NUMBER, "0"),
    "offsets.topic.compression.codec": (NOT_A_NUMBER, "-1"),
    "offsets.retention.minutes": (NOT_A_NUMBER, "0"),
    "offsets.retention.check.interval.ms": (NOT_A_NUMBER, "0"),
    "offsets.commit.timeout.ms": (NOT_A_NUMBER, "0"),
    "offsets.commit.required.acks": (NOT_A_NUMBER, "-2"),
    "transactional.id.expiration.ms": (NOT_A_NUMBER, "0", "-2"),
    "transaction.max.timeout.ms": (NOT_A_NUMBER, "0", "-2"),
    "transaction.state.log.min.isr": (NOT_A_NUMBER, "0", "-2"),
    "transaction.state.log.load.buffer.size": (NOT_A_NUMBER, "0", "-2"),
    "transaction.state.log.num.partitions": (NOT_A_NUMBER, "0", "-2"),
    "transaction.state.log.segment.bytes": (NOT_A_NUMBER, "0", "-2"),
    "transaction.state.log.replication.factor": (NOT_A_NUMBER, "0", "-2"),
    "quota.producer.default": (NOT_A_NUMBER, "0"),
    "quota.consumer.default": (NOT_A_NUMBER, "0"),
    "quota.window.num": (NOT_A_NUMBER, "0"),
    "quota.window.size.seconds": (NOT_A_NUMBER, "0"),
    "delete.topic.enable": (NOT_A_BOOLEAN, "0"),

    "metrics.num.samples": (NOT_A_NUMBER, "-1", "0"),
    "metrics.sample.window.ms": (NOT_A_NUMBER, "-1", "0"),
    "metric.reporters": IGNORE,
    "metrics.recording.level": IGNORE,
    "broker.rack": IGNORE,
    # SSL
    "principal.builder.class": IGNORE,
    "ssl.protocol": IGNORE,
    "ssl.provider": IGNORE,
    "ssl.enabled.protocols": IGNORE,
    "ssl.keystore.type": IGNORE,
    "ssl.keystore.location": IGNORE,
    "ssl.keystore.password": IGNORE,
    "ssl.key.password": IGNORE,
    "ssl.truststore.type": IGNORE,
    "ssl.truststore.password": IGNORE,
    "ssl.truststore.location": IGNORE,
    "ssl.keymanager.algorithm": IGNORE,
    "ssl.trustmanager.algorithm": IGNORE,
    "ssl.client.auth": IGNORE,
    "ssl.endpoint.identification.algorithm": IGNORE,
    "ssl.secure.random.implementation": IGNORE,
    "ssl.cipher.suites": IGNORE,
    # SASL
    "sasl.mechanism.inter.broker.protocol": IGNORE,
    "sasl.enabled.mechanisms": IGNORE,
    "sasl.kerberos.service.name": IGNORE,
    "sasl.kerberos.kinit.cmd": IGNORE,
    "sasl.kerberos.ticket.renew.window.factor": IGNORE,
    "sasl.kerberos.ticket.renew.jitter": IGNORE,
    "sasl.kerberos.min.time.before.relogin": IGNORE,
    "sasl.kerberos.principal.to.local.rules": IGNORE,

    # Left out: 1.0.2 refuses these values by failing to load the JVM class; the port loads no class.
    "alter.config.policy.class.name": IGNORE,
}

# The KRaft and quorum names the port carries from Kafka 3.9, with the rules 3.9's KafkaConfigTest.testFromPropsInvalid
# gives them (names it does not list get its last rule, "not_a_number" and "-1", as 1.0.2's).
FROM_PROPS_INVALID_KRAFT: dict[str, tuple[object, ...] | None] = {
    "process.roles": IGNORE,
    "initial.broker.registration.timeout.ms": (NOT_A_NUMBER,),
    "broker.heartbeat.interval.ms": (NOT_A_NUMBER,),
    "broker.session.timeout.ms": (NOT_A_NUMBER,),
    "node.id": (NOT_A_NUMBER,),
    "metadata.log.dir": IGNORE,
    "metadata.log.segment.bytes": (NOT_A_NUMBER,),
    "metadata.log.segment.ms": (NOT_A_NUMBER,),
    "metadata.max.retention.bytes": (NOT_A_NUMBER,),
    "metadata.max.retention.ms": (NOT_A_NUMBER,),
    "controller.listener.names": IGNORE,
    "metadata.max.idle.interval.ms": (NOT_A_NUMBER,),
    "controller.quorum.voters": IGNORE,
    "controller.quorum.bootstrap.servers": IGNORE,
    "controller.quorum.election.timeout.ms": (NOT_A_NUMBER,),
    "controller.quorum.fetch.timeout.ms": (NOT_A_NUMBER,),
    "controller.quorum.election.backoff.max.ms": (NOT_A_NUMBER,),
    "controller.quorum.append.linger.ms": (NOT_A_NUMBER,),
    "controller.quorum.request.timeout.ms": (NOT_A_NUMBER,),
    "controller.quorum.retry.backoff.ms": (NOT_A_NUMBER,),
    "metadata.log.segment.min.bytes": (NOT_A_NUMBER, "-1"),
    "metadata.log.max.record.bytes.between.snapshots": (NOT_A_NUMBER, "-1"),
    "metadata.log.max.snapshot.interval.ms": (NOT_A_NUMBER, "-1"),
    "server.max.startup.time.ms": (NOT_A_NUMBER, "-1"),
    "unstable.feature.versions.enable": (NOT_A_NUMBER, "-1"),
}

# Names the port adds of its own, which neither Kafka's table knows.
PORT_OWN_NAMES = frozenset({
    "super.users", "allow.everyone.if.no.acl.found", "authorizer.zookeeper.url",
    "authorizer.zookeeper.connection.timeout.ms", "authorizer.zookeeper.session.timeout.ms",
    "java.security.auth.login.config", "kafka.edu.advertised.api.versions",
})


def test_from_props_invalid() -> None:
    def get_base_properties() -> dict[str, str]:
        return {"zookeeper.connect": "127.0.0.1:2181"}

    # the base must be valid: it runs every check
    _from_props(get_base_properties())

    accepted = []
    for name in KafkaConfig.config_names():
        if name in PORT_OWN_NAMES:
            continue
        table = FROM_PROPS_INVALID_KRAFT if name in FROM_PROPS_INVALID_KRAFT else FROM_PROPS_INVALID
        values = table.get(name, (NOT_A_NUMBER, "-1"))
        for value in values or ():
            try:
                _assert_property_invalid(get_base_properties, name, value)
            except pytest.fail.Exception:
                accepted.append(f"{name}={value}")
    assert accepted == [], f"accepted as valid: {accepted}"


def test_specific_properties() -> None:
    defaults = {
        "zookeeper.connect": "127.0.0.1:2181",
        "zookeeper.session.timeout.ms": "1234",  # for zkConnectionTimeoutMs
        "broker.id.generation.enable": "false",
        "reserved.broker.max.id": "1",
        "broker.id": "1",
        "host.name": "127.0.0.1",
        "port": "1122",
        "max.connections.per.ip.overrides": "127.0.0.1:2, 127.0.0.2:3",
        "log.dir": "/tmp1,/tmp2",
        "log.roll.hours": "12",
        "log.roll.jitter.hours": "11",
        "log.retention.hours": "10",
        "log.flush.scheduler.interval.ms": "123",  # for logFlushIntervalMs
        "offsets.topic.compression.codec": str(SNAPPY_COMPRESSION_CODEC),
        "metrics.recording.level": "DEBUG",  # Sensor.RecordingLevel.DEBUG
    }
    config = _from_props(defaults)
    assert config.zk_connect == "127.0.0.1:2181"
    assert config.zk_connection_timeout_ms == 1234
    assert config.broker_id_generation_enable is False
    assert config.max_reserved_broker_id == 1
    assert config.broker_id == 1
    assert config.host_name == "127.0.0.1"
    assert config.advertised_port == 1122
    assert config.advertised_host_name == "127.0.0.1"
    assert config.max_connections_per_ip_overrides == {"127.0.0.1": 2, "127.0.0.2": 3}
    assert config.log_dirs == ["/tmp1", "/tmp2"]
    assert config.log_roll_time_millis == 12 * 60 * 1000 * 60
    assert config.log_roll_time_jitter_millis == 11 * 60 * 1000 * 60
    assert config.log_retention_time_millis == 10 * 60 * 1000 * 60
    assert config.log_flush_interval_ms == 123
    assert config.offsets_topic_compression_codec == SNAPPY_COMPRESSION_CODEC
    assert COMPRESSION_CODECS[config.offsets_topic_compression_codec] == "snappy"
    assert config.metric_recording_level == "DEBUG"


def test_nonroutable_advertised_listeners() -> None:
    props = {"zookeeper.connect": "127.0.0.1:2181", "listeners": "PLAINTEXT://0.0.0.0:9092"}
    assert not _is_valid_kafka_config(props)
