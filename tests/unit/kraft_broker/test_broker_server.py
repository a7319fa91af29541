"""BrokerServer (Kafka 3.9) pieces that need no quorum: what it registers (listeners with the bound port, the log
dirs' directory ids), and how a combined node splits its listeners and APIs between its controller's and its
broker's SocketServer (3.9's, each with its ApiVersionManager)."""

from __future__ import annotations

import socket
from pathlib import Path
from types import SimpleNamespace

import pytest

from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.codec import UnsupportedVersionError, decode_request, encode_request
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.core.network.socket_server import SocketServer
from kafka_edu.v3_9.core.server.api_version_manager import ApiVersionManager, broker_listener_api_version_manager
from kafka_edu.v3_9.core.server.broker_server import BrokerServer
from kafka_edu.v3_9.core.server.controller_apis import controller_api_version_manager
from kafka_edu.v3_9.metadata.metadata.broker_state import BrokerState

BROKER = {"process.roles": "broker", "node.id": "4", "controller.quorum.voters": "1@127.0.0.1:9093",
          "controller.listener.names": "CONTROLLER"}


def broker(tmp_path: Path, **props: str) -> BrokerServer:
    config = KafkaConfig.from_props({**BROKER, "listeners": "PLAINTEXT://127.0.0.1:9092",
                                     "log.dirs": str(tmp_path / "logs"), **props})
    dir_ids = {str(tmp_path / "logs"): Uuid.from_string("ybdzUKmYSLK6oiIpI6CPlw"),
               str(tmp_path / "metadata"): Uuid.from_string("ad5FLIeCTnaQdai5vOjeng")}
    ensemble = SimpleNamespace(
        cluster_id=lambda: "kafka-edu-test-cluster",
        log_dir_props=lambda: {d: SimpleNamespace(directory_id=i) for d, i in dir_ids.items()})
    shared = SimpleNamespace(shared_server_config=config, meta_props_ensemble=ensemble,
                             cluster_id=ensemble.cluster_id)
    return BrokerServer(shared)


def test_a_broker_registers_its_advertised_listeners_with_the_port_it_bound(tmp_path):
    server = broker(tmp_path, listeners="PLAINTEXT://:0")
    server.socket_server = SimpleNamespace(bound_port=lambda name: {"PLAINTEXT": 40123}[name])
    assert server.broker_registration_listeners() == [
        {"name": "PLAINTEXT", "host": socket.getfqdn(), "port": 40123, "security_protocol": 0}]
    assert server.broker_state == BrokerState.NOT_RUNNING and server.cluster_id == "kafka-edu-test-cluster"


def test_the_registered_log_dirs_are_the_directory_ids_of_log_dirs_only(tmp_path):
    server = broker(tmp_path, **{"metadata.log.dir": str(tmp_path / "metadata")})
    assert server.directory_ids() == {Uuid.from_string("ybdzUKmYSLK6oiIpI6CPlw")}


def listeners_of(config: KafkaConfig, api_version_manager: ApiVersionManager) -> list[str]:
    """The listeners a SocketServer of this kind binds on this node (then closes them)."""
    server = SocketServer(config, api_version_manager=api_version_manager)
    try:
        return [end_point.listener_name for end_point in server.data_plane_acceptors]
    finally:
        server.shutdown()


def test_a_combined_node_splits_its_listeners_and_api_versions_between_controller_and_broker(tmp_path):
    # the node's config, as the controller's and the broker's SocketServers read it (BrokerServer's node_config)
    config = KafkaConfig.from_props({**BROKER, "process.roles": "broker,controller", "node.id": "1",
                                     "controller.quorum.voters": "1@127.0.0.1:9093",
                                     "listeners": "PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0",
                                     "log.dirs": str(tmp_path / "logs")})
    assert config.is_kraft_combined_mode
    controller_versions, broker_versions = controller_api_version_manager(), broker_listener_api_version_manager()
    assert listeners_of(config, controller_versions) == ["CONTROLLER"]
    assert listeners_of(config, broker_versions) == ["PLAINTEXT"]
    # the controller listener votes and takes heartbeats, never produce; the broker listener the other way round
    assert controller_versions.is_api_enabled(ApiKeys.VOTE, 0)
    assert not controller_versions.is_api_enabled(ApiKeys.PRODUCE, 3)
    assert broker_versions.is_api_enabled(ApiKeys.PRODUCE, 3)
    assert not broker_versions.is_api_enabled(ApiKeys.VOTE, 0)
    assert not broker_versions.is_api_enabled(ApiKeys.LEADER_AND_ISR, 1)  # ZooKeeper mode only
    # Fetch on both, at 3.9's versions: the voters' Raft fetches, and the followers' and consumers' fetches
    assert controller_versions.is_api_enabled(ApiKeys.FETCH, 17) and broker_versions.is_api_enabled(ApiKeys.FETCH, 17)
    assert broker_versions.is_api_enabled(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, 0)
    assert not controller_versions.is_api_enabled(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, 0)
    produce = encode_request(ApiKeys.PRODUCE, 3, 7, "c", build(ApiKeys.PRODUCE.request_schema(3), acks=1,
                                                              timeout=1000, topic_data=[], transactional_id=None))
    with pytest.raises(UnsupportedVersionError):
        decode_request(produce, controller_versions.is_api_enabled)
    assert decode_request(produce, broker_versions.is_api_enabled).api_key == ApiKeys.PRODUCE
