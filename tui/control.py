"""What the TUI does to a running cluster: step-through breakpoints, process faults, a topic, a burst of records.

Breakpoints go through `<run>/breakpoints.json` and `<instance>.paused.json` (kafka_edu/tracing/breakpoints.py);
process actions go through the cluster runner, so the manifest stays the one record of the run.
Calls that talk to the cluster (create_topic, produce_burst) block for up to seconds: run them in a worker.
"""

from __future__ import annotations

import contextlib
import fcntl
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from confluent_kafka import Producer

from kafka_edu.cluster_runner.processes import process_alive, signal_process
from kafka_edu.cluster_runner.runner import NOT_RUNNING, ClusterError, ClusterRunner
from kafka_edu.tracing.breakpoints import (
    CONTINUE,
    CONTROL_FILE,
    NEXT,
    PAUSED_SUFFIX,
    read_control,
    read_paused_record,
    write_json_atomically,
)
from kafka_edu.tracing.steps import STEPS
from kafka_edu.v1_0_2.core.admin.topic_command import TopicService

STOP_TIMEOUT_S = 60.0  # as `cluster stop`: SIGKILL after this long, not counting time paused at a breakpoint
PRODUCE_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Paused:
    """A process blocked before a step, as its `<instance>.paused.json` says."""

    instance: str
    broker_id: int | None
    step: str
    span_name: str
    since_ns: int
    pid: int
    thread: str = ""


class ClusterControl:
    """The TUI's handle on one run directory."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = Path(run_dir).absolute()
        self.runner = ClusterRunner.open(self.run_dir)
        self._manifest_lock = threading.Lock()  # the runner's manifest updates are read-modify-write
        self._stoppers: dict[int, threading.Thread] = {}

    # -- breakpoints ----------------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _control(self) -> Iterator[dict[str, Any]]:
        """breakpoints.json for a read-modify-write, locked against other controllers of the run."""
        with open(self.run_dir / ".breakpoints.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            data = read_control(self.run_dir) or {}
            data.setdefault("steps", [])
            data.setdefault("commands", {})
            yield data
            write_json_atomically(self.run_dir / CONTROL_FILE, data)

    def set_breakpoint(self, step_id: str) -> None:
        if step_id not in STEPS:
            raise ValueError(f"unknown step {step_id!r}: not a FIDELITY row")
        with self._control() as data:
            data["steps"] = sorted(set(data["steps"]) | {step_id})

    def clear_breakpoint(self, step_id: str) -> None:
        if step_id not in STEPS:
            raise ValueError(f"unknown step {step_id!r}: not a FIDELITY row")
        with self._control() as data:
            data["steps"] = sorted(set(data["steps"]) - {step_id})

    def breakpoints(self) -> set[str]:
        return set((read_control(self.run_dir) or {}).get("steps") or [])

    def paused(self) -> list[Paused]:
        """Processes blocked at a step now; files left by a process that died (kill -9) are ignored."""
        found = []
        for path in sorted(self.run_dir.glob(f"*{PAUSED_SUFFIX}")):
            record = read_paused_record(path)
            try:
                paused = Paused(instance=str(record["instance"]), broker_id=record.get("broker_id"),
                                step=str(record["step"]), span_name=str(record["span_name"]),
                                since_ns=int(record["since_ns"]), pid=int(record["pid"]),
                                thread=str(record.get("thread", "")))
            except (KeyError, TypeError, ValueError):
                continue  # not (yet) a whole record
            if process_alive(paused.pid):
                found.append(paused)
        return found

    def step_next(self, instance: str) -> None:
        """Run the step `instance` is paused at and pause at its next step (on a running process: at its next step)."""
        self._command(instance, NEXT)

    def continue_(self, instance: str) -> None:
        """Run until the next breakpoint."""
        self._command(instance, CONTINUE)

    def _command(self, instance: str, action: str) -> None:
        with self._control() as data:
            seq = int((data["commands"].get(instance) or {}).get("seq", 0)) + 1
            data["commands"][instance] = {"seq": seq, "action": action}

    # -- processes: a broker's, or on a KRaft run a controller's, by node id (the runner's verbs take either) --------

    def kill(self, broker_id: int) -> None:
        """SIGKILL, as `cluster kill`; a paused file the broker leaves behind is removed."""
        pid = self._pid(broker_id)
        with self._manifest_lock:
            self.runner.kill(broker_id)
        self._remove_paused_files_of(pid)

    def stop(self, broker_id: int) -> None:
        """Controlled shutdown: SIGTERM now; a thread waits for the exit and records it. Returns at once."""
        pid = self._pid(broker_id)
        if pid is None or not process_alive(pid):
            with self._manifest_lock:
                self.runner._update_entry(broker_id, state=NOT_RUNNING)
            return
        if broker_id in self._stoppers and self._stoppers[broker_id].is_alive():
            return  # already stopping
        signal_process(pid, signal.SIGTERM)
        signal_process(pid, signal.SIGCONT)  # a SIGSTOPped broker must run to shut down
        thread = threading.Thread(target=self._await_stop, args=(broker_id, pid), name=f"stop-node-{broker_id}",
                                  daemon=True)
        self._stoppers[broker_id] = thread
        thread.start()

    def _await_stop(self, broker_id: int, pid: int) -> None:
        deadline = time.monotonic() + STOP_TIMEOUT_S
        while process_alive(pid):
            if any(p.pid == pid for p in self.paused()):
                deadline = time.monotonic() + STOP_TIMEOUT_S  # the user is stepping through its shutdown
            elif time.monotonic() > deadline:
                signal_process(pid, signal.SIGKILL)
            time.sleep(0.1)
        self._remove_paused_files_of(pid)
        with self._manifest_lock:
            self.runner._update_entry(broker_id, state=NOT_RUNNING)

    def stopping(self, broker_id: int) -> bool:
        """True while a stop() of this broker waits for its process to exit."""
        thread = self._stoppers.get(broker_id)
        return thread is not None and thread.is_alive()

    def start(self, broker_id: int) -> None:
        """A new broker process with the same config and log dirs, as `cluster start`."""
        thread = self._stoppers.get(broker_id)
        if thread is not None and thread.is_alive():
            pid = self._pid(broker_id)
            if pid is not None and process_alive(pid):
                raise ClusterError(f"node {broker_id} is still stopping (pid {pid})")
            thread.join()  # the process is gone: its stopper only has the manifest left to write
        with self._manifest_lock:
            self.runner.start(broker_id)

    def pause(self, broker_id: int) -> None:
        """SIGSTOP, as a long GC pause."""
        with self._manifest_lock:
            self.runner.pause(broker_id)

    def resume(self, broker_id: int) -> None:
        with self._manifest_lock:
            self.runner.resume(broker_id)

    # -- network partitions (a run started with `cluster up --netns`) -------------------------------------------------

    def has_network(self) -> bool:
        """Whether the run's processes have namespaces of their own, so that links can be cut."""
        with self._manifest_lock:
            return bool(self.runner.run.read_manifest().get("network"))

    def isolate_or_heal(self, node_id: int) -> str:
        """`cluster partition --isolate N`, or, if N is isolated already, `cluster heal` of that cut."""
        with self._manifest_lock:
            cuts = self.runner.run.read_manifest()["network"]["cuts"]
            mine = [c["id"] for c in cuts if c["kind"] == "isolate" and c["from"] == [str(node_id)]]
            if mine:
                self.runner.heal(mine)
                return f"healed cut {', '.join(map(str, mine))}"
            return f"cut {self.runner.isolate(str(node_id))['id']}"

    def _pid(self, broker_id: int) -> int | None:
        with self._manifest_lock:
            return self.runner.broker_entry(broker_id).get("pid")

    def _remove_paused_files_of(self, pid: int | None) -> None:
        for path in self.run_dir.glob(f"*{PAUSED_SUFFIX}"):
            if pid is not None and read_paused_record(path).get("pid") == pid:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()

    # -- clients --------------------------------------------------------------------------------------------------

    def bootstrap_servers(self) -> str:
        with self._manifest_lock:
            return self.runner.run.read_manifest()["bootstrap_servers"]

    def create_topic(self, name: str, partitions: int, replication_factor: int) -> None:
        """CreateTopics through confluent-kafka's AdminClient; raises KafkaException with Kafka's error."""
        TopicService(self.bootstrap_servers()).create_topic(name, partitions, replication_factor, {})

    def produce_burst(self, topic: str, count: int = 1000) -> int:
        """`count` records with a real producer, acks=all; returns how many the brokers acknowledged."""
        acked = 0

        def delivered(err: Any, _msg: Any) -> None:
            nonlocal acked
            if err is None:
                acked += 1

        producer = Producer({"bootstrap.servers": self.bootstrap_servers(), "acks": "all",
                             "client.id": "kafka-edu-tui", "message.timeout.ms": int(PRODUCE_TIMEOUT_S * 1000)})
        for i in range(count):
            while True:
                try:
                    producer.produce(topic, key=str(i).encode(), value=f"record-{i}".encode(), on_delivery=delivered)
                    break
                except BufferError:
                    producer.poll(0.1)  # the local queue is full: let deliveries drain it
            producer.poll(0)
        producer.flush(PRODUCE_TIMEOUT_S)
        return acked

