"""KafkaConfig in KRaft mode (Kafka 3.9): process.roles, node.id, the quorum, controller listeners and 3.9's checks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kafka_edu.v1_0_2.core.server.broker_metadata_checkpoint import load_props
from kafka_edu.v1_0_2.core.server.kafka_config import (
    ConfigException,
    EndPoint,
    IllegalArgumentException,
    KafkaConfig,
    ProcessRole,
)
from kafka_edu.v3_9.raft.raft.quorum_config import QuorumConfig

CONFIG_DIR = Path(__file__).resolve().parents[2] / "config" / "kraft"

COMBINED = {
    "process.roles": "broker,controller",
    "node.id": "1",
    "controller.quorum.voters": "1@127.0.0.1:9093",
    "controller.listener.names": "CONTROLLER",
    "listeners": "PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093",
    "log.dirs": "/tmp/kafka-edu-kraft-test",
}
BROKER = {**COMBINED, "process.roles": "broker", "node.id": "2", "listeners": "PLAINTEXT://127.0.0.1:9094"}
CONTROLLER = {**COMBINED, "process.roles": "controller", "listeners": "CONTROLLER://127.0.0.1:9093"}


def kraft(base: dict[str, str], **changes: str | None) -> KafkaConfig:
    """`base` with keyword changes ("node_id" -> "node.id"); None removes a key."""
    props = dict(base)
    for key, value in changes.items():
        name = key.replace("_", ".")
        if value is None:
            props.pop(name, None)
        else:
            props[name] = value
    return KafkaConfig.from_props(props, do_log=False)


def test_a_combined_node_reads_its_roles_id_quorum_and_listeners() -> None:
    c = kraft(COMBINED)
    assert c.process_roles == {ProcessRole.BROKER_ROLE, ProcessRole.CONTROLLER_ROLE}
    assert not c.requires_zookeeper and c.uses_self_managed_quorum and c.is_kraft_combined_mode
    assert c.zk_connect is None
    assert c.node_id == c.broker_id == 1  # broker.id follows node.id in KRaft mode
    assert c.metadata_log_dir == "/tmp/kafka-edu-kraft-test"  # the first log dir by default
    assert c.controller_listener_names == ["CONTROLLER"]
    assert c.controller_listeners == [EndPoint("127.0.0.1", 9093, "CONTROLLER", "PLAINTEXT")]
    assert c.data_plane_listeners == [EndPoint("127.0.0.1", 9092, "PLAINTEXT", "PLAINTEXT")]
    assert c.effective_advertised_broker_listeners == c.data_plane_listeners
    assert c.effective_advertised_controller_listeners == c.controller_listeners
    # the default map gains CONTROLLER -> PLAINTEXT, as 3.9's effectiveListenerSecurityProtocolMap adds it
    assert c.listener_security_protocol_map["CONTROLLER"] == "PLAINTEXT"
    assert QuorumConfig.parse_voter_connections(c.quorum_config.voters()) == {1: ("127.0.0.1", 9093)}


def test_kraft_defaults_match_kafka_3_9() -> None:
    c = kraft(COMBINED)
    q = c.quorum_config
    assert (q.election_timeout_ms(), q.fetch_timeout_ms(), q.election_backoff_max_ms()) == (1000, 2000, 1000)
    assert (q.append_linger_ms(), q.request_timeout_ms(), q.retry_backoff_ms()) == (25, 2000, 20)
    assert q.bootstrap_servers() == []
    assert (c.broker_session_timeout_ms, c.broker_heartbeat_interval_ms) == (9000, 2000)
    assert c.initial_registration_timeout_ms == 60000
    assert c.metadata_max_idle_interval_ns == 500_000_000
    assert c.metadata_snapshot_max_new_record_bytes == 20 * 1024 * 1024
    assert c.metadata_snapshot_max_interval_ms == 3600 * 1000
    assert c.metadata_log_segment_bytes == 1024 ** 3 and c.metadata_log_segment_min_bytes == 8 * 1024 * 1024
    assert c.metadata_retention_millis == c.metadata_log_segment_millis == 7 * 24 * 3600 * 1000
    assert c.metadata_retention_bytes == 100 * 1024 * 1024
    assert not c.unstable_feature_versions_enabled


def test_overrides_and_the_metadata_log_dir() -> None:
    c = kraft(COMBINED, metadata_log_dir="/tmp/meta", controller_quorum_fetch_timeout_ms="4000",
              metadata_max_idle_interval_ms="0", broker_session_timeout_ms="6000")
    assert c.metadata_log_dir == "/tmp/meta"
    assert c.quorum_config.fetch_timeout_ms() == 4000
    assert c.metadata_max_idle_interval_ns is None  # 0: the active controller writes no NoOp records
    assert c.broker_session_timeout_ms == 6000


def test_broker_only_and_controller_only_nodes() -> None:
    b = kraft(BROKER)
    assert b.process_roles == {ProcessRole.BROKER_ROLE} and not b.is_kraft_combined_mode
    assert b.controller_listeners == [] and b.node_id == 2
    c = kraft(CONTROLLER)
    assert c.process_roles == {ProcessRole.CONTROLLER_ROLE}
    assert c.effective_advertised_broker_listeners == []


def test_zookeeper_mode_is_unchanged_without_process_roles() -> None:
    c = KafkaConfig.from_props({"zookeeper.connect": "127.0.0.1:2181", "broker.id": "3"}, do_log=False)
    assert c.requires_zookeeper and c.process_roles == frozenset()
    assert c.broker_id == c.node_id == 3
    assert c.listener_security_protocol_map == {sp: sp for sp in ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")}
    with pytest.raises(ConfigException, match='^Missing required configuration "zookeeper.connect"'):
        KafkaConfig.from_props({"broker.id": "3"}, do_log=False)


@pytest.mark.parametrize(("base", "changes", "error", "message"), [
    (COMBINED, {"node_id": None}, ConfigException,
     "Missing configuration `node.id` which is required when `process.roles` is defined (i.e. when running in "
     "KRaft mode)."),
    (COMBINED, {"broker_id": "7"}, ConfigException, "You must set `node.id` to the same value as `broker.id`."),
    (COMBINED, {"process_roles": "broker,broker"}, ConfigException,
     "Duplicate role names found in `process.roles`: ArrayBuffer(broker, broker)"),
    (COMBINED, {"process_roles": "observer"}, ConfigException,
     "Invalid value observer for configuration process.roles: String must be one of: broker, controller"),
    (COMBINED, {"node_id": "2"}, IllegalArgumentException,
     "requirement failed: If process.roles contains the 'controller' role, the node id 2 must be included in the "
     "set of voters controller.quorum.voters=Set(1)"),
    (CONTROLLER, {"node_id": "2"}, IllegalArgumentException,
     "requirement failed: If process.roles contains the 'controller' role, the node id 2 must be included in the "
     "set of voters controller.quorum.voters=Set(1)"),
    (COMBINED, {"controller_quorum_voters": None}, ConfigException,
     "If using process.roles, either controller.quorum.bootstrap.servers must contain the set of bootstrap "
     "controllers or controller.quorum.voters must contain a parseable set of controllers."),
    (COMBINED, {"controller_listener_names": None, "listeners": "PLAINTEXT://127.0.0.1:9092"},
     IllegalArgumentException,
     "requirement failed: controller.listener.names must contain at least one value appearing in the 'listeners' "
     "configuration when running the KRaft controller role"),
    (COMBINED, {"controller_listener_names": "CONTROLLER,OTHER"}, IllegalArgumentException,
     "requirement failed: controller.listener.names must only contain values appearing in the 'listeners' "
     "configuration when running the KRaft controller role"),
    (CONTROLLER, {"listeners": "CONTROLLER://127.0.0.1:9093,PLAINTEXT://127.0.0.1:9092"},
     IllegalArgumentException,
     "requirement failed: The listeners config must only contain KRaft controller listeners from "
     "controller.listener.names when process.roles=controller"),
    (BROKER, {"node_id": "1"}, IllegalArgumentException,
     "requirement failed: If process.roles contains just the 'broker' role, the node id 1 must not be included in "
     "the set of voters controller.quorum.voters=Set(1)"),
    (BROKER, {"controller_listener_names": None}, IllegalArgumentException,
     "requirement failed: controller.listener.names must contain at least one value when running KRaft with just "
     "the broker role"),
    (BROKER, {"listeners": "PLAINTEXT://127.0.0.1:9094,CONTROLLER://127.0.0.1:9095"}, IllegalArgumentException,
     "requirement failed: controller.listener.names must not contain a value appearing in the 'listeners' "
     "configuration when running KRaft with just the broker role"),
    (BROKER, {"listener_security_protocol_map": "PLAINTEXT:PLAINTEXT"}, ConfigException,
     "Controller listener with name CONTROLLER defined in controller.listener.names not found in "
     "listener.security.protocol.map  (an explicit security mapping for each controller listener is required if "
     "listener.security.protocol.map is non-empty, or if there are security protocols other than PLAINTEXT in use)"),
    (COMBINED, {"listeners": "CONTROLLER://127.0.0.1:9093"}, IllegalArgumentException,
     "requirement failed: There must be at least one broker advertised listener. Perhaps all listeners appear in "
     "controller.listener.names?"),
    (COMBINED, {"listeners": "PLAINTEXT://0.0.0.0:9092,CONTROLLER://127.0.0.1:9093"}, IllegalArgumentException,
     "requirement failed: advertised.listeners cannot use the nonroutable meta-address 0.0.0.0. Use a routable IP "
     "address."),
    (COMBINED, {"controller_quorum_voters": "1127.0.0.1:9093"}, ConfigException,
     "Invalid configuration value for controller.quorum.voters. Each entry should be in the form "
     "`{id}@{host}:{port}`."),
    (COMBINED, {"controller_quorum_voters": "one@127.0.0.1:9093"}, ConfigException,
     "Failed to parse voter ID as an integer from one"),
    (COMBINED, {"controller_quorum_voters": "1@127.0.0.1"}, ConfigException,
     "Failed to parse host name from entry 1@127.0.0.1 for the configuration controller.quorum.voters. Each entry "
     "should be in the form `{id}@{host}:{port}`."),
    ({"zookeeper.connect": "127.0.0.1:2181"}, {"controller_listener_names": "CONTROLLER"}, IllegalArgumentException,
     "requirement failed: controller.listener.names must be empty when not running in KRaft mode: [CONTROLLER]"),
])
def test_3_9_validation_messages(base: dict[str, str], changes: dict[str, str | None], error: type[Exception],
                                 message: str) -> None:
    with pytest.raises(error, match="^" + re.escape(message) + "$"):
        kraft(base, **changes)


def test_inter_broker_protocol_version_is_a_kraft_release_hint_in_kraft_mode() -> None:
    assert kraft(COMBINED, inter_broker_protocol_version="3.7").inter_broker_protocol_version == "1.0-IV0"
    with pytest.raises(ConfigException, match=r"^A non-KRaft version 2.8 given for inter.broker.protocol.version. "
                                              r"The minimum version is 3.0-IV1$"):
        kraft(COMBINED, inter_broker_protocol_version="2.8")


def test_voter_connections_keep_the_order_given_and_refuse_the_meta_address_only_for_connecting() -> None:
    voters = ["3@127.0.0.1:9095", "1@localhost:9093", "2@[::1]:9094"]
    assert QuorumConfig.parse_voter_connections(voters) == {3: ("127.0.0.1", 9095), 1: ("localhost", 9093),
                                                            2: ("::1", 9094)}
    assert list(QuorumConfig.parse_voter_connections(voters)) == [3, 1, 2]
    assert QuorumConfig.parse_voter_ids(["1@0.0.0.0:9093"]) == {1}  # a config check may name the meta-address
    with pytest.raises(ConfigException, match=r"^Host string \(0.0.0.0\) is not routeable$"):
        QuorumConfig.parse_voter_connections(["1@0.0.0.0:9093"])


def test_a_zookeeper_connect_string_is_not_needed_and_unknown_keys_are_still_refused() -> None:
    with pytest.raises(ConfigException, match="^Unknown configuration 'controller.quorum.voter'$"):
        kraft(COMBINED, controller_quorum_voter="1@127.0.0.1:9093")


@pytest.mark.parametrize("name", ["server.properties", "controller.properties", "broker.properties"])
def test_shipped_kraft_properties_parse(name: str) -> None:
    c = KafkaConfig.from_props(load_props(CONFIG_DIR / name), do_log=False)
    assert c.uses_self_managed_quorum
    assert all(d.startswith("/tmp/kafka-edu-kraft-") for d in c.log_dirs)
    assert all(ep.host == "127.0.0.1" for ep in c.listeners)
