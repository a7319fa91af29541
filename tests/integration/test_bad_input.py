"""Bad configuration and bad surroundings: one line naming Kafka's exception, exit 1, nothing half-done."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kafka_edu.cluster_runner.processes import free_port
from tests.integration.helpers import meta_broker_id


def server_start(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kafka_edu.cli", "server-start", *args], capture_output=True,
                          text=True, timeout=60, cwd=cwd, env={"KAFKA_EDU_RUN_DIR": str(cwd / "run"),
                                                               "PATH": "/usr/bin:/bin"})


def one_error_line(result: subprocess.CompletedProcess) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def write_props(path: Path, **props: str) -> Path:
    path.write_text("".join(f"{k.replace('_', '.')}={v}\n" for k, v in props.items()))
    return path


@pytest.mark.parametrize(("props", "expected"), [
    ({"zookeeper_connect": "127.0.0.1:1", "no_such_property": "1"},
     "ConfigException: Unknown configuration 'no.such.property'"),
    ({"zookeeper_connect": "127.0.0.1:1", "num_io_threads": "eight"},
     "ConfigException: Invalid value eight for configuration num.io.threads"),
    ({"zookeeper_connect": "127.0.0.1:1", "num_io_threads": "0"},
     "ConfigException: Invalid value 0 for configuration num.io.threads"),
    ({"broker_id": "0"}, 'ConfigException: Missing required configuration "zookeeper.connect"'),
])
def test_bad_properties_are_refused_before_anything_starts(tmp_path, props, expected):
    result = server_start(str(write_props(tmp_path / "server.properties", **props)), cwd=tmp_path)
    assert result.returncode == 1
    assert expected in one_error_line(result)


def test_missing_config_file(tmp_path):
    result = server_start(str(tmp_path / "nope.properties"), cwd=tmp_path)
    assert result.returncode == 1
    assert "ConfigException: Cannot read" in one_error_line(result)


def test_override_without_a_value(tmp_path):
    config = write_props(tmp_path / "server.properties", zookeeper_connect="127.0.0.1:1")
    result = server_start(str(config), "--override", "broker.id", cwd=tmp_path)
    assert result.returncode == 1
    assert "Invalid command line properties: broker.id" in one_error_line(result)


def test_unreachable_zookeeper_fails_after_the_connection_timeout(tmp_path):
    config = write_props(tmp_path / "server.properties", broker_id="0", zookeeper_connect=f"127.0.0.1:{free_port()}",
                         zookeeper_connection_timeout_ms="1500", listeners=f"PLAINTEXT://127.0.0.1:{free_port()}",
                         log_dirs=str(tmp_path / "logs"))
    result = server_start(str(config), cwd=tmp_path)
    assert result.returncode == 1
    assert "ZkTimeoutException: Unable to connect to zookeeper server" in one_error_line(result)
    assert "with timeout of 1500 ms" in result.stderr


def test_log_dir_that_is_a_file(tmp_path, zookeeper):
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("I am not a directory\n")
    config = write_props(tmp_path / "server.properties", broker_id="0", zookeeper_connect=zookeeper.connect,
                         listeners=f"PLAINTEXT://127.0.0.1:{free_port()}", log_dirs=str(not_a_dir))
    result = server_start(str(config), cwd=tmp_path)
    assert result.returncode == 1
    assert "KafkaException: Shutdown broker because none of the specified log dirs" in one_error_line(result)
    assert zookeeper.client.get_children("/brokers/ids") == []
    assert not_a_dir.read_text() == "I am not a directory\n"


def test_listener_port_already_in_use(tmp_path, zookeeper, brokers):
    first = brokers("first", broker_id="1").start().wait_running()
    taken = first.props["listeners"]
    config = write_props(tmp_path / "server.properties", broker_id="2", zookeeper_connect=zookeeper.connect,
                         listeners=taken, log_dirs=str(tmp_path / "second-logs"))
    result = server_start(str(config), cwd=tmp_path)
    assert result.returncode == 1
    assert "Socket server failed to bind to 127.0.0.1" in one_error_line(result)
    assert zookeeper.client.get_children("/brokers/ids") == ["1"]
    assert meta_broker_id(tmp_path / "second-logs") is None  # the id is only checkpointed once registered
