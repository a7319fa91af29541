"""Step-through of KafkaServer.startup on a restarting broker of a real 3-broker cluster, driven by tui/control.py."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient

from kafka_edu.cluster_runner.processes import process_alive
from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.tracing.query import load_run
from tests.integration.helpers import wait_until
from tui.control import ClusterControl, Paused

OVERRIDES = ["zookeeper.session.timeout.ms=6000", "controlled.shutdown.retry.backoff.ms=200",
             "num.network.threads=1", "background.threads=2"]


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[ClusterRunner]:
    runner = ClusterRunner.up(3, traces_dir=tmp_path / "traces", overrides=OVERRIDES, timeout_s=90)
    try:
        yield runner
    finally:
        (runner.run.path / "breakpoints.json").unlink(missing_ok=True)  # releases any broker left paused
        runner.down()
        assert not any(p["pid"] and process_alive(p["pid"]) for p in runner.run.read_manifest()["processes"])


def starts_since(run_dir: Path, instance: str, since_ns: int) -> list[str]:
    """Steps of `instance` whose span started at or after since_ns, from its span-start file."""
    steps = []
    for line in (run_dir / f"{instance}.starts.jsonl").read_text().splitlines():
        record = json.loads(line)
        if int(record["startTimeUnixNano"]) >= since_ns and "kafka.step" in record["attributes"]:
            steps.append(record["attributes"]["kafka.step"])
    return steps


def paused_at(control: ClusterControl, instance: str, step_id: str) -> Paused | None:
    return next((p for p in control.paused() if p.instance == instance and p.step == step_id), None)


def test_step_through_a_restarting_brokers_startup(cluster):
    run_dir = cluster.run.path
    control = ClusterControl(run_dir)
    with pytest.raises(ValueError):
        control.set_breakpoint("LC.startup.99")
    control.set_breakpoint("LC.startup.08")

    old_pid = cluster.broker_entry(1)["pid"]
    control.stop(1)
    wait_until(lambda: not control.stopping(1), 90, "broker 1 to stop")
    assert not process_alive(old_pid) and cluster.broker_entry(1)["state"] == "NotRunning"

    restarted_ns = time.time_ns()
    control.start(1)
    paused = wait_until(lambda: paused_at(control, "broker-1", "LC.startup.08"), 60, "broker 1 to pause at 08")
    new_pid = cluster.broker_entry(1)["pid"]
    assert paused == Paused("broker-1", 1, "LC.startup.08", "LogManager.startup", paused.since_ns, new_pid,
                            "MainThread")
    assert cluster.broker_state(1) == "Starting"
    # starts reach the file in batches, a few times a second
    wait_until(lambda: "LC.startup.07" in starts_since(run_dir, "broker-1", restarted_ns), 5, "07's start on disk")
    assert "LC.startup.08" not in starts_since(run_dir, "broker-1", restarted_ns)  # blocked before its span opened
    assert [p.instance for p in control.paused()] == ["broker-1"]  # the running brokers do not start up again

    # "next" runs into LogManager.startup and stops at the next step the process reaches: the log cleaner's startup,
    # which LogManager.startup calls (log.cleaner.enable is true by default)
    next_step = "CL.startup"
    control.step_next("broker-1")
    wait_until(lambda: paused_at(control, "broker-1", next_step), 30, f"broker 1 to pause at {next_step}")
    wait_until(lambda: "LC.startup.08" in starts_since(run_dir, "broker-1", restarted_ns), 5, "08's start on disk")
    assert cluster.broker_state(1) == "Starting"

    control.continue_("broker-1")
    wait_until(lambda: cluster.broker_state(1) == "RunningAsBroker", 60, "broker 1 to run")
    assert control.paused() == []
    control.clear_breakpoint("LC.startup.08")
    assert control.breakpoints() == set()

    # the LogManager.startup span measures the step itself, not the time it waited at the breakpoint
    (log_manager,) = [s for s in load_run(run_dir)
                      if s.step == "LC.startup.08" and s.resource["process.pid"] == new_pid]
    assert log_manager.start_ns >= paused.since_ns

    # the other actions of the TUI, on the same cluster, once every broker knows broker 1 is back (CreateTopics
    # assigns replicas to the brokers in the controller's metadata cache)
    def every_broker_sees_three() -> bool:
        return all(len(AdminClient({"bootstrap.servers": f"127.0.0.1:{p['port']}"}).list_topics(timeout=5).brokers)
                   == 3 for p in cluster.run.read_manifest()["processes"] if p["role"] == "broker")
    wait_until(every_broker_sees_three, 30, "every broker's metadata to list three brokers")
    control.create_topic("tui-burst", 3, 3)
    assert control.produce_burst("tui-burst", 300) == 300

