"""ClusterRunner.wait_for_brokers_to_see_each_other: `up` returns once every running broker's Metadata lists the
running brokers, and a broker killed or paused meanwhile (from the TUI, while `up` still waits) is not waited for."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kafka_edu.cluster_runner import runner as runner_module
from kafka_edu.cluster_runner.run_directory import RunDirectory
from kafka_edu.cluster_runner.runner import ClusterError, ClusterRunner


def dead_pid() -> int:
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    return done.pid


def run_with(tmp_path: Path, brokers: list[dict]) -> ClusterRunner:
    run = RunDirectory.create(tmp_path / "traces")
    run.write_manifest({"run_id": run.run_id, "mode": "kraft", "processes": [
        {"role": "broker", "id": b["id"], "pid": b["pid"], "port": b["port"], "state": b["state"]} for b in brokers]})
    return ClusterRunner(run)


@pytest.fixture
def listed(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """What each address's Metadata answer lists, as the test sets it."""
    answers: dict[str, int] = {}
    monkeypatch.setattr(runner_module, "_brokers_listed", lambda address: answers.get(address, -1))
    return answers


def test_a_broker_killed_while_up_waits_is_not_waited_for(tmp_path: Path, listed: dict[str, int]) -> None:
    runner = run_with(tmp_path, [{"id": 4, "pid": os.getpid(), "port": 9004, "state": "RUNNING"},
                                 {"id": 5, "pid": dead_pid(), "port": 9005, "state": "killed"},
                                 {"id": 6, "pid": os.getpid(), "port": 9006, "state": "paused"}])
    listed["127.0.0.1:9004"] = 1  # the one broker still running lists itself
    runner.wait_for_brokers_to_see_each_other(timeout_s=5)


def test_up_waits_until_every_running_broker_lists_them_all(tmp_path: Path, listed: dict[str, int]) -> None:
    pid = os.getpid()
    runner = run_with(tmp_path, [{"id": 4, "pid": pid, "port": 9004, "state": "RUNNING"},
                                 {"id": 5, "pid": pid, "port": 9005, "state": "RUNNING"}])
    listed.update({"127.0.0.1:9004": 2, "127.0.0.1:9005": 1})  # 5 has not yet heard that 4 is unfenced
    with pytest.raises(ClusterError, match=r"127.0.0.1:9005 did not list all 2 running brokers"):
        runner.wait_for_brokers_to_see_each_other(timeout_s=0.3)
    listed["127.0.0.1:9005"] = 2
    runner.wait_for_brokers_to_see_each_other(timeout_s=5)
