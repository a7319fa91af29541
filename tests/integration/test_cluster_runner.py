"""`kafka-edu cluster ...`: a run directory with ZooKeeper and broker processes, and its manifest."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kafka_edu.cluster_runner.processes import process_alive
from kafka_edu.tracing.query import load_run
from tests.integration.helpers import REPO

STEP_KEYS = ("kafka.origin.file", "kafka.origin.symbol", "kafka.origin.version", "code.function.name",
             "code.file.path", "code.line.number")


def cli(*args: str, traces: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kafka_edu.cli", "cluster", *args, "--traces", str(traces)],
                          capture_output=True, text=True, timeout=180, cwd=REPO)


@pytest.fixture
def cluster(tmp_path):
    traces = tmp_path / "traces"
    up = cli("up", "--brokers", "2", traces=traces)
    run_dirs = list(traces.glob("*/manifest.json"))
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        yield run_dirs[0].parent, traces
    finally:
        if run_dirs:
            cli("down", traces=traces)
            manifest = json.loads(run_dirs[0].read_text())
            assert not any(p["pid"] and process_alive(p["pid"]) for p in manifest["processes"])


def test_cluster_up_status_stop_start_down(cluster):
    run_dir, traces = cluster
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["mode"] == "zk" and manifest["run_id"] == run_dir.name
    brokers = [p for p in manifest["processes"] if p["role"] == "broker"]
    assert [p["state"] for p in brokers] == ["RunningAsBroker", "RunningAsBroker"]
    assert manifest["bootstrap_servers"] == ",".join(f"127.0.0.1:{p['port']}" for p in brokers)
    assert manifest["zookeeper_connect"].startswith("127.0.0.1:")

    status = cli("status", traces=traces)
    assert status.returncode == 0 and status.stdout.count("RunningAsBroker") == 2

    assert cli("stop", "1", traces=traces).returncode == 0
    stopped = json.loads((run_dir / "manifest.json").read_text())
    assert [p["state"] for p in stopped["processes"] if p["role"] == "broker"] == ["RunningAsBroker", "NotRunning"]
    restart = cli("start", "1", traces=traces)
    assert restart.returncode == 0, restart.stdout

    assert cli("down", traces=traces).returncode == 0
    final = json.loads((run_dir / "manifest.json").read_text())
    assert final["stopped_at"] and final["dropped_spans"] == {"broker-0": 0, "broker-1": 0}

    spans = load_run(run_dir)
    for s in spans:
        assert len(s.trace_id) == 32 and len(s.span_id) == 16 and s.end_ns >= s.start_ns
        assert {"service.name", "service.instance.id", "kafka.run.id", "kafka.mode"} <= s.resource.keys()
        assert s.resource["kafka.run.id"] == run_dir.name
        if s.step:
            assert all(k in s.attributes for k in STEP_KEYS), s.name
    ids = {(s.trace_id, s.span_id) for s in spans}
    orphans = [s for s in spans if s.parent_id and (s.trace_id, s.parent_id) not in ids]
    assert not orphans, [(s.name, s.resource["service.instance.id"], s.trace_id, s.parent_id) for s in orphans]
    # broker 1 started twice: two startup traces, and the second one found its clean-shutdown marker
    startups = spans.where(step="LC.main.4", instance="broker-1")
    assert len(startups) == 2
    second_states = [s.attributes["kafka.broker.state.to"]
                     for s in spans.where(name="BrokerState.newState", trace_id=startups.last().trace_id)]
    assert second_states == ["Starting", "RunningAsBroker"]


def test_topics_command_and_pause_resume(cluster):
    run_dir, traces = cluster

    def topics(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "kafka_edu.cli", "topics", *args, "--traces", str(traces)],
                              capture_output=True, text=True, timeout=60, cwd=REPO)

    created = topics("--create", "--topic", "described", "--partitions", "4", "--replication-factor", "1")
    assert created.returncode == 0 and 'Created topic "described".' in created.stdout
    described = topics("--describe", "--topic", "described")
    rows = [line for line in described.stdout.splitlines() if "described" in line]
    assert len(rows) == 4  # one row per partition: leader, replicas, ISR
    assert "described" in topics("--list").stdout.split()
    assert topics("--delete", "--topic", "described").returncode == 0

    pid = json.loads((run_dir / "manifest.json").read_text())["processes"][1]["pid"]
    assert cli("pause", "0", traces=traces).returncode == 0
    assert open(f"/proc/{pid}/stat").read().split()[2] == "T"  # stopped, as in a long GC pause
    assert cli("resume", "0", traces=traces).returncode == 0
    assert open(f"/proc/{pid}/stat").read().split()[2] != "T"


def test_a_restart_reads_only_the_spans_its_new_process_wrote(cluster, monkeypatch):
    """`cluster start` waits for RunningAsBroker by reading the broker's span file from where its new process
    began: what earlier processes traced, however much, is not read again."""
    from kafka_edu.cluster_runner import runner as runner_module
    from kafka_edu.cluster_runner.runner import ClusterRunner

    run_dir, traces = cluster
    assert cli("stop", "1", traces=traces).returncode == 0
    span_file = run_dir / "broker-1.jsonl"
    line = span_file.read_text().splitlines()[0] + "\n"
    with open(span_file, "a") as f:  # an hour of a busy broker's earlier life
        f.write(line * (40_000_000 // len(line)))
    filled = span_file.stat().st_size

    read_bytes = []
    original = runner_module.read_span_file_from

    def counting(path, offset):
        new_offset, spans = original(path, offset)
        read_bytes.append(new_offset - offset)
        return new_offset, spans
    monkeypatch.setattr(runner_module, "read_span_file_from", counting)

    runner = ClusterRunner.open(run_dir)
    runner.start(1)
    runner.wait_for_state(1, "RunningAsBroker", 90)
    assert runner.broker_state(1) == "RunningAsBroker"
    assert filled > 40_000_000 and sum(read_bytes) < 2_000_000  # only the new process's own spans
    assert len(read_bytes) >= 2  # each check went on from where the last one stopped


def test_commands_that_change_a_cluster_refuse_to_guess_between_live_runs(tmp_path):
    import os

    from kafka_edu.cluster_runner.run_directory import AmbiguousRunError, RunDirectory

    traces = tmp_path / "traces"
    for run_id, pid in (("20261124-100000-aaaa", os.getpid()), ("20261124-110000-bbbb", os.getpid()),
                        ("20261124-120000-cccc", None)):
        (traces / run_id).mkdir(parents=True)
        manifest = {"run_id": run_id, "mode": "zk", "stopped_at": None if pid else "2026-11-24T12:30:00",
                    "bootstrap_servers": "127.0.0.1:1", "processes": [{"role": "broker", "id": 0, "pid": pid}]}
        (traces / run_id / "manifest.json").write_text(json.dumps(manifest))
    # the stopped run touched last does not count: the live run started last does
    os.utime(traces / "20261124-100000-aaaa" / "manifest.json")
    assert RunDirectory.newest(traces).run_id == "20261124-110000-bbbb"
    with pytest.raises(AmbiguousRunError, match="(?s)20261124-100000-aaaa.*20261124-110000-bbbb"):
        RunDirectory.newest(traces, changes=True)

    down = cli("down", traces=traces)
    assert down.returncode == 2
    assert "2 runs are live" in down.stdout and "--run" in down.stdout
    assert "20261124-100000-aaaa" in down.stdout and "20261124-110000-bbbb" in down.stdout
    assert cli("kill", "0", traces=traces).returncode == 2


def test_a_broker_killed_and_started_at_once_is_refused_unless_the_runner_waits_out_its_old_registration(tmp_path):
    from kafka_edu.cluster_runner.runner import ClusterError, ClusterRunner

    runner = ClusterRunner.up(1, tmp_path / "traces", timeout_s=90)
    try:
        log = Path(runner.entry(0)["log"])
        # The killed process's /brokers/ids/0 lives until its ZooKeeper session expires, and 1.0.2 exits rather than
        # register over it (what lesson broker-life shows with `cluster kill` and `cluster start` on one line).
        runner.kill(0)
        runner.start(0)
        with pytest.raises(ClusterError, match="faster than the zookeeper timeout"):
            runner.wait_for_state(0, "RunningAsBroker", 60)
        # The nemesis's restarts wait for the old registration to expire first.
        runner.kill(0)
        refused = log.read_text().count("faster than the zookeeper timeout")
        runner.start(0, after_old_registration=True)
        runner.wait_for_state(0, "RunningAsBroker", 60)
        assert log.read_text().count("faster than the zookeeper timeout") == refused
    finally:
        runner.down()
