"""Our own code, not a Kafka port: the cluster runner, ZooKeeper and N brokers as separate OS processes on loopback,
in one run directory."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from kafka_edu.cluster_runner.processes import free_port, process_alive, signal_process, stop_process, wait_exit
from kafka_edu.cluster_runner.run_directory import DEFAULT_TRACES_DIR, RunDirectory, now_iso
from kafka_edu.server.broker_metadata_checkpoint import load_props
from kafka_edu.tracing.query import read_span_file_from
from kafka_edu.zk.zookeeper_server import ZooKeeperServer, is_ok

BASE_CONFIG = Path(__file__).resolve().parents[2] / "config" / "server.properties"
NOT_RUNNING = "NotRunning"


class ClusterError(RuntimeError):
    pass


class ClusterRunner:
    """Starts, inspects and stops the processes of one run, recording them in the run's manifest."""

    def __init__(self, run: RunDirectory) -> None:
        self.run = run
        # broker id -> (pid, offset read up to in its span file, last BrokerState seen): each check reads only what
        # the broker wrote since the last one, so its cost does not grow with the run's traces
        self._state_tails: dict[int, tuple[int, int, str]] = {}

    # -- bringing a cluster up ------------------------------------------------------------------------------------

    @classmethod
    def up(cls, brokers: int = 3, traces_dir: Path = DEFAULT_TRACES_DIR, zookeeper_connect: str | None = None,
           overrides: list[str] | None = None, timeout_s: float = 90.0) -> ClusterRunner:
        run = RunDirectory.create(traces_dir)
        runner = cls(run)
        manifest: dict[str, Any] = {
            "run_id": run.run_id, "mode": "zk", "run_dir": str(run.path), "started_at": now_iso(), "stopped_at": None,
            "zookeeper_connect": zookeeper_connect, "bootstrap_servers": "", "processes": [],
            "overrides": list(overrides or []), "dropped_spans": {}}
        run.write_manifest(manifest)
        try:
            if zookeeper_connect is None:
                runner.start_zookeeper()
            for broker_id in range(brokers):
                runner.add_broker(broker_id)
            for broker_id in range(brokers):
                runner.wait_for_state(broker_id, "RunningAsBroker", timeout_s)
        except BaseException:
            runner.down()
            raise
        return runner

    @classmethod
    def open(cls, run_dir: Path | None = None, traces_dir: Path = DEFAULT_TRACES_DIR, *,
             changes: bool = False) -> ClusterRunner:
        """The run at `run_dir`, or the one a command means when it names none (see RunDirectory.newest)."""
        return cls(RunDirectory.open(run_dir) if run_dir else RunDirectory.newest(traces_dir, changes=changes))

    def start_zookeeper(self) -> None:
        port = free_port()
        zookeeper = ZooKeeperServer(self.run.path / "zookeeper", port, log_file=self.run.path / "zookeeper.log")
        pid = zookeeper.start(new_session=True)
        zookeeper.wait_ready()
        manifest = self.run.read_manifest()
        manifest["zookeeper_connect"] = zookeeper.connect_string
        manifest["processes"].append({"role": "zookeeper", "id": 0, "pid": pid, "port": port,
                                      "log": str(zookeeper.log_file), "state": "running"})
        self.run.write_manifest(manifest)

    def add_broker(self, broker_id: int) -> None:
        port = free_port()
        manifest = self.run.read_manifest()
        config = self.write_broker_config(broker_id, port, manifest["zookeeper_connect"], manifest["overrides"])
        entry = {"role": "broker", "id": broker_id, "pid": None, "port": port, "config": str(config),
                 "log": str(self.run.path / f"broker-{broker_id}.log"), "state": "Starting"}
        manifest["processes"].append(entry)
        manifest["bootstrap_servers"] = ",".join(f"127.0.0.1:{p['port']}" for p in manifest["processes"]
                                                 if p["role"] == "broker")
        self.run.write_manifest(manifest)
        self.start(broker_id)

    def write_broker_config(self, broker_id: int, port: int, zookeeper_connect: str, overrides: list[str]) -> Path:
        """Each broker gets its own server.properties, as an operator would write it."""
        props = load_props(BASE_CONFIG)
        props.update({"broker.id": str(broker_id), "listeners": f"PLAINTEXT://127.0.0.1:{port}",
                      "log.dirs": str(self.run.path / f"broker-{broker_id}" / "logs"),
                      "zookeeper.connect": zookeeper_connect})
        for override in overrides:
            key, _, value = override.partition("=")
            props[key.strip()] = value.strip()
        path = self.run.path / f"broker-{broker_id}.properties"
        path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
        return path

    # -- one broker -----------------------------------------------------------------------------------------------

    def broker_entry(self, broker_id: int, manifest: dict[str, Any] | None = None) -> dict[str, Any]:
        manifest = manifest or self.run.read_manifest()
        for entry in manifest["processes"]:
            if entry["role"] == "broker" and entry["id"] == broker_id:
                return entry
        raise ClusterError(f"no broker {broker_id} in run {self.run.run_id}")

    def _update_entry(self, broker_id: int, **changes: Any) -> None:
        manifest = self.run.read_manifest()
        self.broker_entry(broker_id, manifest).update(changes)
        self.run.write_manifest(manifest)

    def start(self, broker_id: int) -> int:
        entry = self.broker_entry(broker_id)
        if entry["pid"] and process_alive(entry["pid"]):
            raise ClusterError(f"broker {broker_id} is already running (pid {entry['pid']})")
        span_file = self.span_file(broker_id)
        span_offset = span_file.stat().st_size if span_file.exists() else 0  # where this process's spans begin
        with open(entry["log"], "ab") as log:
            process = subprocess.Popen([sys.executable, "-m", "kafka_edu.cli", "server-start", entry["config"]],
                                       stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       env=self.run.environment(), start_new_session=True)
        self._update_entry(broker_id, pid=process.pid, state="Starting", span_offset=span_offset)
        return process.pid

    def stop(self, broker_id: int, timeout_s: float = 60.0) -> None:
        """Controlled stop: SIGTERM runs KafkaServer.shutdown in the broker."""
        entry = self.broker_entry(broker_id)
        if entry["pid"]:
            stop_process(entry["pid"], timeout_s)
        self._update_entry(broker_id, state=NOT_RUNNING)

    def kill(self, broker_id: int) -> None:
        entry = self.broker_entry(broker_id)
        if entry["pid"]:
            signal_process(entry["pid"], signal.SIGKILL)
            deadline = time.monotonic() + 10
            while process_alive(entry["pid"]) and time.monotonic() < deadline:
                time.sleep(0.02)
        self._update_entry(broker_id, state="killed")

    def pause(self, broker_id: int) -> None:
        """SIGSTOP: the broker freezes, as in a long GC pause; its ZooKeeper session will expire."""
        entry = self.broker_entry(broker_id)
        if entry["pid"]:
            signal_process(entry["pid"], signal.SIGSTOP)
        self._update_entry(broker_id, state="paused")

    def resume(self, broker_id: int) -> None:
        entry = self.broker_entry(broker_id)
        if entry["pid"]:
            signal_process(entry["pid"], signal.SIGCONT)
        self._update_entry(broker_id, state="resumed")

    def span_file(self, broker_id: int) -> Path:
        """The broker's lifecycle span file (request-path spans go to segments of their own)."""
        return self.run.path / f"broker-{broker_id}.jsonl"

    def broker_state(self, broker_id: int) -> str:
        """The broker's BrokerState as its own trace tells it: the spans its current process wrote, read from where
        that process began and, on the next call, from where the last call stopped."""
        entry = self.broker_entry(broker_id)
        pid = entry["pid"]
        if not pid or not process_alive(pid):
            return NOT_RUNNING
        known_pid, offset, state = self._state_tails.get(broker_id, (None, 0, "Starting"))
        if known_pid != pid:
            offset, state = entry.get("span_offset", 0), "Starting"
        offset, changes = read_span_file_from(self.span_file(broker_id), offset)
        for s in changes:
            if s.name == "BrokerState.newState" and s.resource.get("process.pid") == pid:
                state = s.attributes["kafka.broker.state.to"]
        self._state_tails[broker_id] = (pid, offset, state)
        return state

    def wait_for_state(self, broker_id: int, state: str, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        entry = self.broker_entry(broker_id)
        while time.monotonic() < deadline:
            if self.broker_state(broker_id) == state:
                self._update_entry(broker_id, state=state)
                return
            if not process_alive(entry["pid"]):
                tail = Path(entry["log"]).read_text(errors="replace").strip().splitlines()[-3:]
                raise ClusterError(f"broker {broker_id} exited before reaching {state}: " + " | ".join(tail))
            time.sleep(0.1)
        raise ClusterError(f"broker {broker_id} did not reach {state} within {timeout_s} s; see {entry['log']}")

    # -- the whole cluster ----------------------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        manifest = self.run.read_manifest()
        for entry in manifest["processes"]:
            if entry["role"] == "broker" and entry.get("state") != "paused":
                entry["state"] = self.broker_state(entry["id"])
            else:
                host, _, port = (manifest["zookeeper_connect"] or ":").rpartition(":")
                entry["state"] = "running" if entry["pid"] and process_alive(entry["pid"]) and is_ok(host, int(port)) \
                    else "stopped"
        return manifest

    def down(self) -> None:
        manifest = self.run.read_manifest()
        brokers = [p for p in manifest["processes"] if p["role"] == "broker" and p["pid"]]
        for entry in brokers:  # all at once: each broker's shutdown is independent
            signal_process(entry["pid"], signal.SIGTERM)
        for entry in brokers:
            if not wait_exit(entry["pid"], 60):
                signal_process(entry["pid"], signal.SIGKILL)
                wait_exit(entry["pid"], 5)
            entry["state"] = NOT_RUNNING
        for entry in manifest["processes"]:
            if entry["role"] == "zookeeper" and entry["pid"]:
                stop_process(entry["pid"], 10)
                entry["state"] = "stopped"
        manifest["stopped_at"] = now_iso()
        exits = self.run.exit_records()
        manifest["dropped_spans"] = {name: record["dropped_spans"] for name, record in exits.items()}
        manifest["span_files"] = {name: record["span_files"] for name, record in exits.items()
                                  if "span_files" in record}
        self.run.write_manifest(manifest)
