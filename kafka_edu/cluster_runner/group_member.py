"""Our own code, not a Kafka port: a consumer-group member as a real OS process, for the tests and lessons that
watch a group rebalance (a member that joins, leaves, or is killed with SIGKILL).

A member is a confluent-kafka consumer of Kafka 3.9's era. The client pinned for the rest of kafka-edu (librdkafka
2.16) speaks KIP-848's ConsumerGroupHeartbeat only at version 1, which came with Kafka 4.0; a 3.9 broker serves
version 0, and librdkafka 2.4 to 2.11 speak that (the early-access releases of KIP-848). So members run
`confluent-kafka==ERA_CONFLUENT_KAFKA` from a directory of its own inside the virtualenv (`./run` installs it;
`ensure_era_client` does on first use otherwise), put first on the member process's PYTHONPATH.

A member prints one JSON object a line on stdout, each with `t` (time.time_ns()) and `event`:
`ready`, `assigned`/`revoked`/`lost` (with `partitions`, in callback order), `record` (`partition`, `offset`),
`error` (`error`), `closed`. SIGTERM makes it close (leave the group); SIGKILL leaves its partitions to the session
timeout.

    python -m kafka_edu.cluster_runner.group_member --bootstrap HOST:PORT --group G --topic T --name a \\
        --protocol consumer|classic [--assignor cooperative-sticky] [--session-timeout-ms 6000]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ERA_CONFLUENT_KAFKA = "2.8.2"  # librdkafka 2.8.0: ConsumerGroupHeartbeat v0


def era_client_dir() -> Path:
    return Path(sys.prefix) / "era" / f"confluent-kafka-{ERA_CONFLUENT_KAFKA}"


def ensure_era_client() -> Path:
    """The era client's directory, installed with pip the first time (a wheel of a few MB from PyPI)."""
    target = era_client_dir()
    if (target / "confluent_kafka").is_dir():
        return target
    print(f"installing confluent-kafka=={ERA_CONFLUENT_KAFKA} (Kafka 3.9's era) into {target}", file=sys.stderr)
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--target", str(target),
                           f"confluent-kafka=={ERA_CONFLUENT_KAFKA}"], check=False)
    if done.returncode != 0:
        raise RuntimeError(f"could not install confluent-kafka=={ERA_CONFLUENT_KAFKA} into {target} (pip exited "
                           f"{done.returncode}); it needs PyPI, or run: {sys.executable} -m pip install --target "
                           f"{target} confluent-kafka=={ERA_CONFLUENT_KAFKA}")
    return target


class MemberProcess:
    """One member process and everything it printed, read on a thread of its own."""

    def __init__(self, bootstrap: str, group: str, topic: str, name: str, protocol: str = "consumer",
                 assignor: str | None = None, session_timeout_ms: int = 6000,
                 on_event: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.name = name
        self.protocol = protocol
        self.events: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._on_event = on_event
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ensure_era_client()), env.get("PYTHONPATH")) if p)
        command = [sys.executable, "-m", "kafka_edu.cluster_runner.group_member", "--bootstrap", bootstrap,
                   "--group", group, "--topic", topic, "--name", name, "--protocol", protocol,
                   "--session-timeout-ms", str(session_timeout_ms)]
        if assignor:
            command += ["--assignor", assignor]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                                        text=True, bufsize=1)
        self._reader = threading.Thread(target=self._read, name=f"member-{name}-stdout", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            event["member"] = self.name
            with self._lock:
                self.events.append(event)
            if self._on_event is not None:
                self._on_event(event)

    def snapshot(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self.events)

    def owned(self) -> set[int]:
        """The partitions it owns now, by its callbacks."""
        owned: set[int] = set()
        for event in self.snapshot():
            if event["event"] == "assigned":
                owned |= set(event["partitions"])
            elif event["event"] in ("revoked", "lost"):
                owned -= set(event["partitions"])
        return owned

    def records(self) -> int:
        return sum(1 for event in self.snapshot() if event["event"] == "record")

    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self, timeout_s: float = 60) -> None:
        """SIGTERM: the member leaves the group (its partitions revoked) and exits."""
        if self.alive():
            self.process.send_signal(signal.SIGTERM)
        self._wait(timeout_s)

    def kill(self) -> None:
        """SIGKILL: the coordinator learns of it only when its session times out."""
        if self.alive():
            self.process.kill()
        self._wait(10)

    def _wait(self, timeout_s: float) -> None:
        try:
            self.process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        self._reader.join(10)


def _emit(event: str, **fields: Any) -> None:
    print(json.dumps({"t": time.time_ns(), "event": event, **fields}), flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kafka_edu.cluster_runner.group_member",
                                     description="One consumer-group member as a process; prints its events as "
                                                 "JSON lines (see the module's docstring).")
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--group", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--name", required=True, help="its client.id")
    parser.add_argument("--protocol", choices=["consumer", "classic"], default="consumer",
                        help="consumer: KIP-848, the assignment computed by the coordinator; classic: JoinGroup and "
                             "SyncGroup, the assignment computed by the group's leader")
    parser.add_argument("--assignor", default=None,
                        help="classic: partition.assignment.strategy (librdkafka's default is range,roundrobin); "
                             "consumer: the coordinator's assignor, group.remote.assignor (uniform, the default, or "
                             "range)")
    parser.add_argument("--session-timeout-ms", type=int, default=6000, help="classic only (KIP-848's is the "
                        "broker's group.consumer.session.timeout.ms)")
    options = parser.parse_args(argv)

    from confluent_kafka import Consumer  # the era client, first on PYTHONPATH

    config: dict[str, Any] = {"bootstrap.servers": options.bootstrap, "group.id": options.group,
                              "client.id": options.name, "group.protocol": options.protocol,
                              "auto.offset.reset": "earliest", "enable.auto.commit": True,
                              "auto.commit.interval.ms": 500}
    if options.protocol == "consumer":
        # Naming the remote assignor makes librdkafka hand the callbacks incremental changes (what was added, what
        # was taken away); without it, it keeps the eager callbacks of the classic range assignor, each assign
        # the whole new assignment and no revoke, which `owned()` would misread.
        config["group.remote.assignor"] = options.assignor or "uniform"
    if options.protocol == "classic":
        config["session.timeout.ms"] = options.session_timeout_ms
        config["heartbeat.interval.ms"] = max(100, options.session_timeout_ms // 6)
        if options.assignor:
            config["partition.assignment.strategy"] = options.assignor
    consumer = Consumer(config)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())

    def on_assign(_: Any, partitions: list[Any]) -> None:
        _emit("assigned", partitions=sorted(p.partition for p in partitions))

    def on_revoke(_: Any, partitions: list[Any]) -> None:
        _emit("revoked", partitions=sorted(p.partition for p in partitions))

    def on_lost(_: Any, partitions: list[Any]) -> None:
        _emit("lost", partitions=sorted(p.partition for p in partitions))

    consumer.subscribe([options.topic], on_assign=on_assign, on_revoke=on_revoke, on_lost=on_lost)
    _emit("ready", protocol=options.protocol)
    while not stop.is_set():
        message = consumer.poll(0.1)
        if message is None:
            continue
        if message.error() is not None:
            _emit("error", error=str(message.error()))
        else:
            _emit("record", partition=message.partition(), offset=message.offset())
    consumer.close()  # leaves the group: on_revoke runs first
    _emit("closed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
