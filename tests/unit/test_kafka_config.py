"""KafkaConfig reads a broker's properties the way Kafka 1.0.2 does (plus: unknown keys are refused)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafka_edu.v1_0_2.core.server.kafka_config import (
    ConfigException,
    EndPoint,
    IllegalArgumentException,
    KafkaConfig,
    KafkaException,
)

SERVER_PROPERTIES = Path(__file__).resolve().parents[2] / "config" / "server.properties"


def config(**props: str) -> KafkaConfig:
    """A config from keyword props ("num_io_threads" -> "num.io.threads") with zookeeper.connect filled in."""
    raw = {"zookeeper.connect": "127.0.0.1:2181"}
    raw.update({k.replace("_", "."): v for k, v in props.items()})
    return KafkaConfig.from_props(raw, do_log=False)


def load_properties(path: Path) -> dict[str, str]:
    props = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "!")):
            key, _, value = line.partition("=")
            props[key.strip()] = value.strip()
    return props


def test_defaults_match_kafka_1_0_2() -> None:
    c = config()
    assert c.broker_id == -1 and c.broker_id_generation_enable and c.max_reserved_broker_id == 1000
    assert c.zk_session_timeout_ms == 6000 and c.zk_connection_timeout_ms == 6000 and not c.zk_enable_secure_acls
    assert (c.num_network_threads, c.num_io_threads, c.background_threads, c.queued_max_requests) == (3, 8, 10, 500)
    assert c.message_max_bytes == 1000012
    assert c.socket_send_buffer_bytes == c.socket_receive_buffer_bytes == 102400
    assert c.socket_request_max_bytes == 104857600
    assert c.max_connections_per_ip == 2**31 - 1 and c.max_connections_per_ip_overrides == {}
    assert c.connections_max_idle_ms == 600000
    assert c.log_dirs == ["/tmp/kafka-logs"]
    assert c.log_segment_bytes == 1073741824
    assert c.log_roll_time_millis == 168 * 3600 * 1000
    assert c.log_retention_time_millis == 168 * 3600 * 1000 and c.log_retention_bytes == -1
    assert c.log_cleanup_interval_ms == 300000
    assert c.log_flush_interval_messages == 2**63 - 1
    assert c.log_flush_interval_ms == c.log_flush_scheduler_interval_ms == 2**63 - 1
    assert c.log_flush_offset_checkpoint_interval_ms == 60000 and c.log_delete_delay_ms == 60000
    assert (c.log_index_size_max_bytes, c.log_index_interval_bytes) == (10485760, 4096)
    assert c.num_partitions == 1 and c.default_replication_factor == 1 and c.auto_create_topics_enable
    assert c.delete_topic_enable and not c.unclean_leader_election_enable and c.auto_leader_rebalance_enable
    assert c.controlled_shutdown_enable and c.controlled_shutdown_max_retries == 3
    assert c.controlled_shutdown_retry_backoff_ms == 5000
    assert c.controller_socket_timeout_ms == c.request_timeout_ms == 30000
    assert c.replica_lag_time_max_ms == 10000 and c.min_in_sync_replicas == 1
    assert c.offsets_topic_partitions == 50 and c.offsets_topic_replication_factor == 3
    assert c.group_initial_rebalance_delay_ms == 3000
    assert (c.group_min_session_timeout_ms, c.group_max_session_timeout_ms) == (6000, 300000)
    assert c.transaction_state_log_num_partitions == 50 and c.transaction_state_log_min_isr == 2
    assert c.inter_broker_protocol_version == c.log_message_format_version == "1.0-IV0"
    assert c.metric_reporter_classes == [] and c.metric_num_samples == 2 and c.metric_sample_window_ms == 30000
    assert c.authorizer_class_name == "" and c.rack is None
    assert c.log_cleanup_policy == ["delete"]
    assert c.values()["listener.security.protocol.map"] == (
        "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL")


def test_shipped_server_properties_parse() -> None:
    props = load_properties(SERVER_PROPERTIES)
    c = KafkaConfig.from_props(props, do_log=False)
    assert c.originals() == props
    assert c.broker_id == 0 and c.zk_connect == "127.0.0.1:2181" and c.zk_connection_timeout_ms == 6000
    assert [ep.connection_string() for ep in c.listeners] == ["PLAINTEXT://127.0.0.1:9092"]
    assert c.advertised_listeners == c.listeners
    assert c.log_dirs == ["/tmp/kafka-edu-logs"] and c.group_initial_rebalance_delay_ms == 0
    assert c.offsets_topic_replication_factor == 1 and c.transaction_state_log_replication_factor == 1


def test_values_are_trimmed_and_typed() -> None:
    c = config(num_io_threads=" 4 ", auto_create_topics_enable=" FALSE", log_dirs=" /a , /b,, /c ")
    assert c.num_io_threads == 4 and c.auto_create_topics_enable is False
    assert c.log_dirs == ["/a", "/b", "/c"]


@pytest.mark.parametrize(("key", "value", "message"), [
    ("num.io.threads", "eight", "Invalid value eight for configuration num.io.threads: Not a number of type INT"),
    ("num.io.threads", "3000000000", "Invalid value 3000000000 for configuration num.io.threads"),
    ("auto.create.topics.enable", "yes",
     "Invalid value yes for configuration auto.create.topics.enable: Expected value to be either true or false"),
    ("num.io.threads", "0", "Invalid value 0 for configuration num.io.threads: Value must be at least 1"),
    ("offsets.topic.replication.factor", "40000",
     "Invalid value 40000 for configuration offsets.topic.replication.factor: Not a number of type SHORT"),
    ("log.cleanup.policy", "delete,shred", "Invalid value shred for configuration log.cleanup.policy: String must"),
    ("log.message.timestamp.type", "Now", "Invalid value Now for configuration log.message.timestamp.type"),
])
def test_bad_values_name_the_key(key: str, value: str, message: str) -> None:
    with pytest.raises(ConfigException, match="^" + message.replace("(", r"\(")):
        KafkaConfig.from_props({"zookeeper.connect": "zk:2181", key: value}, do_log=False)


def test_non_string_values_report_their_type() -> None:
    with pytest.raises(ConfigException, match="Expected value to be a 32-bit integer, but it was a float"):
        KafkaConfig.from_props({"zookeeper.connect": "zk:2181", "num.io.threads": 1.5}, do_log=False)


def test_missing_zookeeper_connect_is_fatal() -> None:
    with pytest.raises(ConfigException) as e:
        KafkaConfig.from_props({"broker.id": "1"}, do_log=False)
    assert str(e.value) == 'Missing required configuration "zookeeper.connect" which has no default value.'


def test_unknown_key_is_refused() -> None:
    with pytest.raises(ConfigException, match="^Unknown configuration 'num.io.thread'$"):
        config(num_io_thread="8")


def test_listeners_default_to_plaintext_on_all_interfaces_port_9092() -> None:
    c = config()
    assert c.listeners == [EndPoint(None, 9092, "PLAINTEXT", "PLAINTEXT")]
    assert c.listeners[0].connection_string() == "PLAINTEXT://:9092"
    assert c.advertised_listeners == c.listeners
    assert (c.inter_broker_listener_name, c.inter_broker_security_protocol) == ("PLAINTEXT", "PLAINTEXT")


def test_deprecated_host_and_port_build_the_listener() -> None:
    c = config(host_name="127.0.0.1", port="9093")
    assert [ep.connection_string() for ep in c.listeners] == ["PLAINTEXT://127.0.0.1:9093"]
    c = config(listeners="PLAINTEXT://127.0.0.1:9092", advertised_port="19092")
    assert [ep.connection_string() for ep in c.advertised_listeners] == ["PLAINTEXT://:19092"]


def test_advertised_listeners_fall_back_to_listeners_and_may_differ() -> None:
    c = config(listeners="plaintext://127.0.0.1:9092")
    assert c.advertised_listeners == c.listeners == [EndPoint("127.0.0.1", 9092, "PLAINTEXT", "PLAINTEXT")]
    c = config(listeners="PLAINTEXT://0.0.0.0:9092", advertised_listeners="PLAINTEXT://broker1:9092")
    assert c.advertised_listeners[0].host == "broker1"


def test_advertising_the_meta_address_is_rejected() -> None:
    with pytest.raises(IllegalArgumentException, match="cannot use the nonroutable meta-address 0.0.0.0"):
        config(listeners="PLAINTEXT://0.0.0.0:9092")  # binding everywhere needs an explicit advertised address
    with pytest.raises(IllegalArgumentException, match="cannot use the nonroutable meta-address 0.0.0.0"):
        config(listeners="PLAINTEXT://0.0.0.0:9092", advertised_listeners="PLAINTEXT://0.0.0.0:9092")


@pytest.mark.parametrize(("props", "message"), [
    ({"listeners": "PLAINTEXT://:9092,PLAINTEXT://:9093"}, "Each listener must have a different name"),
    ({"listeners": "PLAINTEXT://:9092,SSL://:9092"}, "Each listener must have a different port"),
    ({"listeners": "CLIENT://:9092"}, "No security protocol defined for listener CLIENT"),
    ({"listeners": "PLAINTEXT:/9092"}, "Unable to parse PLAINTEXT:/9092 to a broker endpoint"),
    ({"listeners": "PLAINTEXT://:9092", "advertised.listeners": "PLAINTEXT://h:9092,SSL://h:9093"},
     "must be equal to or a subset"),
])
def test_listener_errors(props: dict[str, str], message: str) -> None:
    with pytest.raises(IllegalArgumentException, match=message):
        KafkaConfig.from_props({"zookeeper.connect": "zk:2181", **props}, do_log=False)


def test_custom_listener_names_need_the_protocol_map() -> None:
    c = config(listeners="CLIENT://:9092,REPLICATION://:9093", inter_broker_listener_name="replication",
               listener_security_protocol_map="CLIENT:PLAINTEXT,REPLICATION:PLAINTEXT")
    assert [ep.listener_name for ep in c.listeners] == ["CLIENT", "REPLICATION"]
    assert (c.inter_broker_listener_name, c.inter_broker_security_protocol) == ("REPLICATION", "PLAINTEXT")
    with pytest.raises(ConfigException, match="Invalid security protocol `FOO` defined in listener.security"):
        config(listener_security_protocol_map="PLAINTEXT:FOO")


def test_end_point_parsing() -> None:
    ep = EndPoint.create_end_point("PLAINTEXT://[::1]:9092", None)
    assert ep == EndPoint("::1", 9092, "PLAINTEXT", "PLAINTEXT")
    assert ep.connection_string() == "PLAINTEXT://[::1]:9092"
    with pytest.raises(KafkaException):
        EndPoint.create_end_point("localhost:9092")


def test_log_dirs_win_over_log_dir() -> None:
    assert config(log_dir="/one").log_dirs == ["/one"]
    assert config(log_dir="/one", log_dirs="/two,/three").log_dirs == ["/two", "/three"]


def test_retention_ms_over_minutes_over_hours() -> None:
    assert config(log_retention_hours="1").log_retention_time_millis == 3600000
    assert config(log_retention_hours="1", log_retention_minutes="2").log_retention_time_millis == 120000
    assert config(log_retention_hours="1", log_retention_minutes="2",
                  log_retention_ms="5").log_retention_time_millis == 5
    assert config(log_retention_ms="-7").log_retention_time_millis == -1
    with pytest.raises(IllegalArgumentException, match="log.retention.ms must be unlimited"):
        config(log_retention_ms="0")


def test_derived_fallbacks() -> None:
    c = config(zookeeper_session_timeout_ms="9000", log_flush_scheduler_interval_ms="1000", log_roll_ms="50")
    assert c.zk_connection_timeout_ms == 9000 and c.log_flush_interval_ms == 1000 and c.log_roll_time_millis == 50
    assert config(max_connections_per_ip_overrides="10.0.0.1:5, host:7").max_connections_per_ip_overrides == {
        "10.0.0.1": 5, "host": 7}


def test_broker_id_is_bounded_and_mutable() -> None:
    with pytest.raises(IllegalArgumentException, match="broker.id must be equal or greater than -1"):
        config(broker_id="1001")
    c = config()
    c.broker_id = 1001  # KafkaServer assigns a generated id after startup
    assert c.broker_id == 1001


def test_message_format_cannot_outrun_the_inter_broker_protocol() -> None:
    c = config(inter_broker_protocol_version="0.10.0", log_message_format_version="0.10.0")
    assert c.inter_broker_protocol_version == c.log_message_format_version == "0.10.0-IV1"
    assert c.inter_broker_protocol_version_string == "0.10.0"
    with pytest.raises(IllegalArgumentException, match="can only be used when inter.broker.protocol.version"):
        config(inter_broker_protocol_version="0.10.2", log_message_format_version="1.0")
    with pytest.raises(IllegalArgumentException, match="Version `9.9` is not a valid version"):
        config(inter_broker_protocol_version="9.9")
