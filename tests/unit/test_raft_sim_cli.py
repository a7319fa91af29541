"""Our own test code, not a Kafka port: `kafka-edu raft-sim`, Kafka's raft simulation as a traced run.

A short run (2000 steps: long enough for a first election on the simulated clock, which times out after 1 s) exits 0
with every invariant OK; its run directory has one span file per node, named as a KRaft run names its controllers,
that the trace contract accepts for the raft rows the simulation runs and the TUI's reader takes; the same seed gives
the same run twice; an invariant that fails makes the command say at which step and exit 1.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kafka_edu import cli
from kafka_edu.v3_9.raft.raft import raft_event_simulation as sim

REPO = Path(__file__).resolve().parents[2]
CHECK_TRACE = REPO.parent / "shared" / "acceptance" / "check_trace.py"
# the FIDELITY rows a raft quorum on its own runs (KR.driver is KafkaRaftClientDriver's thread: the simulation polls
# the clients itself, as Kafka's test does; the rest of KR is the controller and broker around the quorum)
RAFT_ROWS = ["KR.poll", "KR.role", "KR.vote", "KR.begin", "KR.fetch", "KR.listener"]
SEED, STEPS = 7, 2000


def raft_sim(traces: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kafka_edu.cli", "raft-sim", "--seed", str(SEED), "--voters", "3",
                           "--drop", "0.05", "--steps", str(STEPS), "--traces", str(traces), *args],
                          capture_output=True, text=True, timeout=300, cwd=REPO)


def summary(output: str) -> list[str]:
    return [line for line in output.splitlines() if not line.startswith("run directory:")]


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess, Path]:
    traces = tmp_path_factory.mktemp("traces")
    done = raft_sim(traces)
    runs = sorted(traces.iterdir())
    assert len(runs) == 1, (done.stdout, done.stderr)
    return done, runs[0]


def test_a_short_run_elects_a_leader_and_keeps_every_invariant(first_run) -> None:
    done, run_dir = first_run
    assert done.returncode == 0, done.stdout + done.stderr
    invariants = next(line for line in done.stdout.splitlines() if line.startswith("invariants: "))
    for name in ["MonotonicHighWatermark", "MonotonicEpoch", "MajorityReachedHighWatermark", "SingleLeader",
                 "SnapshotAtLogStart", "LeaderNeverLoadSnapshot", "ConsistentCommittedData"]:
        assert f"{name} OK" in invariants
    assert f"raft-sim seed {SEED}: {STEPS} steps" in done.stdout
    assert "leader by epoch: 1: " in done.stdout  # an election on the simulated clock
    assert f"run directory: {run_dir}" in done.stdout


def test_the_run_directory_is_a_kraft_run_with_one_span_file_per_node(first_run) -> None:
    _, run_dir = first_run
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["mode"] == "kraft" and manifest["stopped_at"]
    assert [(p["role"], p["id"]) for p in manifest["processes"]] == [("controller", 1), ("controller", 2),
                                                                    ("controller", 3)]
    assert manifest["dropped_spans"] == {"controller-1": 0, "controller-2": 0, "controller-3": 0}
    assert manifest["faults"][0]["kind"] == "drop"
    for node_id in (1, 2, 3):
        assert (run_dir / f"controller-{node_id}.jsonl").stat().st_size > 0

    from tui.reader import RunReader
    batch = RunReader(run_dir).poll()
    assert not batch.problems
    assert {span.instance for span in batch.ended} == {"controller-1", "controller-2", "controller-3"}
    # timed on the simulated clock: the spans cover about as long as the run simulated (2000 steps ≈ 1.4 s)
    starts = [span.start_ns for span in batch.ended]
    assert 0.5e9 < max(starts) - min(starts) < 5e9
    # a request's handling is the child of its sending, on the other node
    by_id = {span.span_id: span for span in batch.ended}
    assert any(span.parent_id in by_id and by_id[span.parent_id].instance != span.instance for span in batch.ended)


@pytest.mark.skipif(not CHECK_TRACE.exists(), reason="shared/acceptance/check_trace.py is not in this checkout")
def test_its_spans_pass_the_trace_contract_for_the_raft_rows(first_run) -> None:
    _, run_dir = first_run
    requires = [arg for row in RAFT_ROWS for arg in ("--require", row)]
    checked = subprocess.run([sys.executable, str(CHECK_TRACE), str(run_dir), *requires], capture_output=True,
                             text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "trace contract: OK" in checked.stdout


def test_the_same_seed_gives_the_same_run(first_run, tmp_path: Path) -> None:
    done, _ = first_run
    again = raft_sim(tmp_path)
    assert again.returncode == done.returncode
    assert summary(again.stdout) == summary(done.stdout)


def test_a_violated_invariant_names_the_step_and_fails_the_command(monkeypatch, capsys) -> None:
    checks = iter(range(1_000_000))

    def broken(self) -> None:
        if next(checks) == 299:
            raise AssertionError("two leaders in epoch 1 (injected)")

    monkeypatch.setattr(sim.SingleLeader, "verify", broken)
    code = cli.main(["raft-sim", "--seed", "1", "--steps", "1000", "--no-trace"])
    out = capsys.readouterr().out
    assert code == 1
    assert "SingleLeader VIOLATED at step 300" in out
    assert "FAILED at step 300: SingleLeader: two leaders in epoch 1 (injected)" in out
    assert "MonotonicEpoch OK until step 300" in out


def test_help_says_what_it_runs(capsys) -> None:
    with pytest.raises(SystemExit):
        cli.main(["raft-sim", "--help"])
    out = capsys.readouterr().out
    for option in ("--seed", "--voters", "--observers", "--drop", "--steps", "--no-trace"):
        assert option in out
    assert "RaftEventSimulationTest" in out
