"""BrokerServer (Kafka 3.9) pieces that need no quorum: what it registers (listeners with the bound port, the log
dirs' directory ids), the metadata log kept apart from the partition logs, and combined mode refused clearly."""

from __future__ import annotations

import socket
from pathlib import Path
from types import SimpleNamespace

import pytest

from kafka_edu.common.errors import KafkaException
from kafka_edu.common.uuid import Uuid
from kafka_edu.metadata.broker_state import BrokerState
from kafka_edu.server.broker_server import BrokerServer
from kafka_edu.server.kafka_config import KafkaConfig
from kafka_edu.server.kafka_raft_server import KafkaRaftServer

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


def test_the_metadata_log_must_be_apart_from_the_partition_logs(tmp_path):
    with pytest.raises(KafkaException, match="metadata.log.dir .* is one of log.dirs"):
        broker(tmp_path).check_metadata_log_dir_apart()  # metadata.log.dir defaults to the first log dir
    broker(tmp_path, **{"metadata.log.dir": str(tmp_path / "metadata")}).check_metadata_log_dir_apart()


def test_combined_mode_is_refused_with_one_clear_line(tmp_path):
    config = KafkaConfig.from_props({**BROKER, "process.roles": "broker,controller", "node.id": "1",
                                     "listeners": "PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093",
                                     "log.dirs": str(tmp_path / "logs")})
    with pytest.raises(KafkaException, match=r"combined mode\) is not built yet"):
        KafkaRaftServer(config)
