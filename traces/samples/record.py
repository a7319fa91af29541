"""Record the committed sample runs the TUI tests, docs and trace-mining jobs read.

    /work/venv/bin/python traces/samples/record.py [failover|produce ...]

Each scenario runs a real cluster in a scratch directory and copies only the span files, span-start files, exit
records and manifest into `traces/samples/<scenario>/` (no broker data, no logs), so a sample stays small.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from confluent_kafka import Producer

from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.tracing.provider import TRACING_ENV
from kafka_edu.tracing.query import load_run
from kafka_edu.v1_0_2.core.admin.topic_command import TopicService

SAMPLES = Path(__file__).resolve().parent
KEPT = ("*.jsonl", "*.exit.json", "manifest.json")


def produce(bootstrap: str, topic: str, count: int) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    for i in range(count):
        producer.produce(topic, key=str(i).encode(), value=f"message {i}".encode())
    if producer.flush(30):
        raise RuntimeError("messages left unacknowledged")


def controller(run_dir: Path) -> tuple[int, int]:
    """(broker id, epoch) of the newest election won."""
    won = load_run(run_dir).where(name="KafkaController.elect", kafka__controller__won=True)
    latest = max(won, key=lambda s: s.attributes["kafka.controller.epoch"])
    return latest.attributes["kafka.broker.id"], latest.attributes["kafka.controller.epoch"]


def wait(condition: Callable[[], object], what: str, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        time.sleep(0.2)


def failover(runner: ClusterRunner) -> None:
    """Three brokers, a replicated topic, a few messages; kill -9 the controller, restart it, stop."""
    bootstrap = runner.run.read_manifest()["bootstrap_servers"]
    TopicService(bootstrap).create_topic("demo", 3, 3, {})
    produce(bootstrap, "demo", 20)
    old_id, old_epoch = controller(runner.run.path)
    runner.kill(old_id)
    wait(lambda: controller(runner.run.path)[1] > old_epoch, "a new controller")
    runner.start(old_id)  # its span file continues with a new process: a restart mid-file
    runner.wait_for_state(old_id, "RunningAsBroker", 60)


def produce_scenario(runner: ClusterRunner) -> None:
    """One broker with the request path traced: create a topic, produce a few messages."""
    bootstrap = runner.run.read_manifest()["bootstrap_servers"]
    TopicService(bootstrap).create_topic("demo", 1, 1, {})
    produce(bootstrap, "demo", 5)


# scenario -> (brokers, request path traced, what to do)
SCENARIOS: dict[str, tuple[int, bool, Callable[[ClusterRunner], None]]] = {
    "failover": (3, False, failover),
    "produce": (1, True, produce_scenario),
}


def record(name: str) -> Path:
    brokers, request_path, scenario = SCENARIOS[name]
    os.environ[TRACING_ENV] = "on" if request_path else "off"
    with tempfile.TemporaryDirectory() as scratch:
        runner = ClusterRunner.up(brokers, Path(scratch))
        try:
            scenario(runner)
        finally:
            runner.down()
        target = SAMPLES / name
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir()
        for pattern in KEPT:
            for path in runner.run.path.glob(pattern):
                shutil.copy(path, target / path.name)
        manifest = json.loads((target / "manifest.json").read_text())
        manifest["run_dir"] = f"traces/samples/{name}"  # the scratch path means nothing once copied
        (target / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return target


if __name__ == "__main__":
    for scenario_name in sys.argv[1:] or list(SCENARIOS):
        path = record(scenario_name)
        size = sum(p.stat().st_size for p in path.iterdir())
        print(f"{scenario_name}: {path} ({size // 1024} KB)")
