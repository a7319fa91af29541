"""The argument checks of `cluster up --dynamic-quorum`, `cluster add-controller` and `cluster remove-controller ID`
(kafka_edu/cli.py, ClusterRunner), and the properties files the runner writes for a dynamic quorum: no process is
started here."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafka_edu import cli
from kafka_edu.cluster_runner.run_directory import RunDirectory
from kafka_edu.cluster_runner.runner import ClusterError, ClusterRunner, check_up_arguments
from kafka_edu.v1_0_2.core.server.broker_metadata_checkpoint import load_props
from kafka_edu.v3_9.core.server.controller_apis import controller_api_version_manager


def kraft_run(tmp_path: Path, dynamic: bool) -> ClusterRunner:
    run = RunDirectory.create(tmp_path / "traces")
    manifest = {"run_id": run.run_id, "mode": "kraft", "run_dir": str(run.path), "overrides": [], "processes": [
        {"role": "controller", "id": 1, "pid": None, "port": 9093, "config": str(run.path / "c1.properties"),
         "log": str(run.path / "controller-1.log"), "state": "NotRunning"},
        {"role": "broker", "id": 2, "pid": None, "port": 9092, "config": str(run.path / "b2.properties"),
         "log": str(run.path / "broker-2.log"), "state": "NotRunning"}],
        "bootstrap_controllers": "127.0.0.1:9093", "bootstrap_servers": "127.0.0.1:9092", "cluster_id": "x"}
    if dynamic:
        manifest.update(dynamic_quorum=True, controller_quorum_bootstrap_servers="127.0.0.1:9093")
    else:
        manifest["controller_quorum_voters"] = "1@127.0.0.1:9093"
    run.write_manifest(manifest)
    return ClusterRunner(run)


def test_a_dynamic_quorum_needs_kraft_mode() -> None:
    check_up_arguments("kraft", 3, False, True)
    check_up_arguments("zk", 3, False, False)
    with pytest.raises(ClusterError, match="use mode kraft"):
        check_up_arguments("zk", 3, False, True)
    with pytest.raises(ClusterError, match="at least one controller"):
        check_up_arguments("kraft", 0, False, True)


def test_up_refuses_before_it_creates_a_run(tmp_path: Path) -> None:
    with pytest.raises(ClusterError):
        ClusterRunner.up(1, tmp_path / "traces", mode="zk", dynamic_quorum=True)
    assert not (tmp_path / "traces").exists()


def test_cli_up_with_dynamic_quorum_needs_kraft(tmp_path: Path) -> None:
    assert cli.main(["cluster", "up", "--dynamic-quorum", "--traces", str(tmp_path / "traces")]) == 2
    assert not (tmp_path / "traces").exists()


def test_cli_add_controller_takes_no_id_and_remove_controller_needs_one(tmp_path: Path) -> None:
    runner = kraft_run(tmp_path, dynamic=True)
    assert cli.main(["cluster", "add-controller", "7", "--run", str(runner.run.path)]) == 2
    assert cli.main(["cluster", "remove-controller", "--run", str(runner.run.path)]) == 2


def test_a_static_run_cannot_grow_or_shrink(tmp_path: Path) -> None:
    runner = kraft_run(tmp_path, dynamic=False)
    with pytest.raises(ClusterError, match="no dynamic controller quorum"):
        runner.add_controller(1)
    with pytest.raises(ClusterError, match="no dynamic controller quorum"):
        runner.remove_controller(1, 1)
    assert cli.main(["cluster", "remove-controller", "1", "--run", str(runner.run.path)]) == 1


def test_remove_controller_refuses_a_broker_and_an_unknown_node(tmp_path: Path) -> None:
    runner = kraft_run(tmp_path, dynamic=True)
    with pytest.raises(ClusterError, match="is a broker, not a controller"):
        runner.remove_controller(2, 1)
    with pytest.raises(ClusterError, match="no broker or controller 9"):
        runner.remove_controller(9, 1)


def test_dynamic_configs_name_bootstrap_servers_instead_of_voters(tmp_path: Path) -> None:
    runner = kraft_run(tmp_path, dynamic=True)
    controller = load_props(runner.write_controller_config(4, 9400, "", [], bootstrap_servers="127.0.0.1:9093"))
    assert "controller.quorum.voters" not in controller
    assert controller["controller.quorum.bootstrap.servers"] == "127.0.0.1:9093"
    assert controller["advertised.listeners"] == "CONTROLLER://127.0.0.1:9400"  # what it is added as a voter with
    broker = load_props(runner.write_kraft_broker_config(5, 9500, "", [], "127.0.0.1:9093"))
    assert "controller.quorum.voters" not in broker
    assert broker["controller.quorum.bootstrap.servers"] == "127.0.0.1:9093"


def test_static_configs_are_as_before(tmp_path: Path) -> None:
    runner = kraft_run(tmp_path, dynamic=False)
    controller = load_props(runner.write_controller_config(1, 9093, "1@127.0.0.1:9093", []))
    assert controller["controller.quorum.voters"] == "1@127.0.0.1:9093"
    assert "controller.quorum.bootstrap.servers" not in controller
    broker = load_props(runner.write_kraft_broker_config(2, 9092, "1@127.0.0.1:9093", []))
    assert broker["controller.quorum.voters"] == "1@127.0.0.1:9093"
    assert "controller.quorum.bootstrap.servers" not in broker


def test_a_controller_advertises_its_supported_kraft_versions() -> None:
    entries = {e["name"]: (e["min_version"], e["max_version"])
               for e in controller_api_version_manager().supported_feature_entries()}
    assert entries == {"metadata.version": (1, 21), "kraft.version": (0, 1)}


def test_metadata_quorum_add_controller_needs_the_controller_config() -> None:
    assert cli.main(["metadata-quorum", "--bootstrap-controller", "127.0.0.1:1", "add-controller"]) == 1
    assert cli.main(["metadata-quorum", "--bootstrap-controller", "127.0.0.1:1", "add-controller",
                     "--config", "/nonexistent/controller.properties"]) == 1
    assert cli.main(["metadata-quorum", "--bootstrap-controller", "127.0.0.1:1", "remove-controller",
                     "--controller-id", "-1", "--controller-directory-id", "_KWDkTahTVaiVVVTaugNew"]) == 1
