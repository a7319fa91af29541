"""Fixtures for integration tests: a real ZooKeeper and real broker processes on loopback, always cleaned up."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from kazoo.client import KazooClient

from kafka_edu.cluster_runner.processes import free_port, stop_process
from kafka_edu.cluster_runner.run_directory import RUN_DIR_ENV, RUN_ID_ENV
from kafka_edu.server.broker_metadata_checkpoint import load_props
from kafka_edu.tracing.query import Spans, load_run
from kafka_edu.zk.zookeeper_server import ZooKeeperServer

REPO = Path(__file__).resolve().parents[1]


def wait_until(condition: Callable[[], object], timeout_s: float = 30.0, what: str = "condition") -> object:
    """Poll `condition` until it is truthy; fail the test at the deadline."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


def meta_broker_id(log_dir: Path) -> int | None:
    meta = log_dir / "meta.properties"
    return int(load_props(meta)["broker.id"]) if meta.exists() else None


class ZooKeeper:
    def __init__(self, server: ZooKeeperServer) -> None:
        self.server = server
        self.connect = server.connect_string
        self.client = KazooClient(hosts=self.connect)
        self.client.start(timeout=15)

    def exists(self, path: str) -> bool:
        return self.client.exists(path) is not None


@pytest.fixture
def zookeeper(tmp_path: Path) -> Iterator[ZooKeeper]:
    server = ZooKeeperServer(tmp_path / "zookeeper", free_port())
    server.start()
    try:
        server.wait_ready()
        zk = ZooKeeper(server)
        yield zk
        zk.client.stop()
        zk.client.close()
    finally:
        server.stop()


class Broker:
    """One `kafka-edu server-start` process with its own properties file, in a test's run directory."""

    def __init__(self, run_dir: Path, name: str, props: dict[str, str]) -> None:
        self.run_dir = run_dir
        self.name = name
        self.props = props
        self.config = run_dir / f"{name}.properties"
        self.log_file = run_dir / f"{name}.log"
        self.process: subprocess.Popen | None = None

    def start(self) -> Broker:
        self.config.write_text("".join(f"{k}={v}\n" for k, v in self.props.items()))
        env = {**os.environ, RUN_DIR_ENV: str(self.run_dir), RUN_ID_ENV: self.run_dir.name}
        with open(self.log_file, "ab") as log:
            self.process = subprocess.Popen([sys.executable, "-m", "kafka_edu.cli", "server-start", str(self.config)],
                                            stdout=log, stderr=subprocess.PIPE, env=env, cwd=REPO)
        return self

    @property
    def pid(self) -> int:
        return self.process.pid

    def spans(self) -> Spans:
        return Spans(s for s in load_run(self.run_dir) if s.resource.get("process.pid") == self.pid)

    def state(self) -> str | None:
        states = [s.attributes["kafka.broker.state.to"] for s in self.spans().where(name="BrokerState.newState")]
        return states[-1] if states else None

    def wait_running(self, timeout_s: float = 60.0) -> Broker:
        def running() -> bool:
            if self.process.poll() is not None:
                raise AssertionError(f"{self.name} exited with {self.process.returncode}: {self.stderr()}")
            return self.state() == "RunningAsBroker"
        wait_until(running, timeout_s, f"{self.name} to reach RunningAsBroker")
        return self

    def wait_for_controller(self, timeout_s: float = 30.0) -> Broker:
        """Until the controller's UpdateMetadata has reached this broker, so that its Metadata answers name the
        controller (which CreateTopics/DeleteTopics need) and its live brokers."""
        wait_until(lambda: self.spans().where(name="KafkaApis.handleUpdateMetadataRequest"), timeout_s,
                   f"{self.name} to hear from the controller")
        return self

    def wait_exit(self, timeout_s: float = 60.0) -> int:
        try:
            return self.process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"{self.name} did not exit within {timeout_s} s") from None

    def stderr(self) -> str:
        return self.process.stderr.read().decode(errors="replace") if self.process.poll() is not None else ""

    def terminate(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        return self.wait_exit()

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()

    def cleanup(self) -> None:
        if self.process is not None and self.process.poll() is None:
            stop_process(self.process.pid, 20)
            self.process.wait()
        if self.process is not None and self.process.stderr:
            self.process.stderr.close()


@pytest.fixture
def brokers(tmp_path: Path, zookeeper: ZooKeeper) -> Iterator[Callable[..., Broker]]:
    """Factory: `brokers(name, **props)` builds a broker whose properties default to a small loopback config."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    made: list[Broker] = []

    def make(name: str = "broker", log_dirs: list[Path] | None = None, **props: str) -> Broker:
        base = {
            "listeners": f"PLAINTEXT://127.0.0.1:{free_port()}",
            "log.dirs": ",".join(str(d) for d in (log_dirs or [tmp_path / f"{name}-logs"])),
            "zookeeper.connect": zookeeper.connect,
            "zookeeper.session.timeout.ms": "6000",
            "num.network.threads": "1",
            "background.threads": "2",
            "offsets.topic.replication.factor": "1",  # as config/server.properties ships it: one broker suffices
            "offsets.topic.num.partitions": "6",
            # Kafka's 5 s backoff makes the last broker of a replicated cluster wait 3 × 5 s at teardown: its
            # partitions have nowhere to go, so every ControlledShutdown attempt answers them as remaining.
            "controlled.shutdown.retry.backoff.ms": "200",
        }
        base.update({k.replace("_", "."): v for k, v in props.items()})
        broker = Broker(run_dir, name, {k: v for k, v in base.items() if v is not None})
        made.append(broker)
        return broker

    yield make
    for broker in made:
        broker.cleanup()
