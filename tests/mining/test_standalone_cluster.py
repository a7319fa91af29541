"""The same job on a real Spark standalone cluster: a master and a worker from the pyspark installation on
loopback, always stopped afterwards."""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_edu.cluster_runner.processes import free_port
from tests.mining.helpers import BASELINE, SAMPLES


def _start(args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen:
    with open(log, "wb") as out:
        return subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)  # its own session: the JVM and anything it started
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


@pytest.fixture
def standalone_master(tmp_path: Path) -> Iterator[str]:
    from pyspark.find_spark_home import _find_spark_home

    spark_home = _find_spark_home()
    spark_class = str(Path(spark_home) / "bin" / "spark-class")
    env = os.environ | {"SPARK_HOME": spark_home, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_LOG_DIR": str(tmp_path),
                        "PYSPARK_PYTHON": sys.executable}
    port = free_port()
    master_url = f"spark://127.0.0.1:{port}"
    processes = []
    try:
        processes.append(_start([spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                 "--port", str(port), "--webui-port", str(free_port())], tmp_path / "master.log", env))
        processes.append(_start([spark_class, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                                 "--port", str(free_port()), "--webui-port", str(free_port()), "--cores", "2",
                                 "--memory", "2g", "--work-dir", str(tmp_path / "work"), master_url],
                                tmp_path / "worker.log", env))
        deadline = time.monotonic() + 120
        while "Successfully registered with master" not in (tmp_path / "worker.log").read_text(errors="replace"):
            if time.monotonic() > deadline or any(p.poll() is not None for p in processes):
                pytest.fail("the standalone worker did not register:\n" + (tmp_path / "worker.log").read_text())
            time.sleep(0.5)
        yield master_url
    finally:
        for process in reversed(processes):
            _stop(process)


@pytest.mark.slow
def test_a_job_runs_unchanged_on_a_standalone_cluster(standalone_master: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    env = os.environ | {"SPARK_LOCAL_IP": "127.0.0.1", "COLUMNS": "200"}
    result = subprocess.run([sys.executable, "-m", "kafka_edu.cli", "mine", "startup-profile", "--master",
                             standalone_master, "--traces", str(SAMPLES), "--runs", BASELINE.name, "--out", str(out)],
                            capture_output=True, text=True, timeout=600, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Startup profile" in result.stdout
    with open(out / "startup-profile.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 24 and all(row["count"] == "1" for row in rows)  # one broker, every LC.startup step once
