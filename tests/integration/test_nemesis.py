"""Our own tests: `kafka-edu nemesis` on a real cluster in each mode. Brokers are killed and paused under the safe
settings while producers and a consumer group run; afterwards every acknowledged record is read back, once, in order,
and the verdict is valid, written as history, verdict, timeline and the NF.check span.

The checker's ability to fail is shown on synthetic histories (tests/unit/nemesis/); the 10-minute runs per mode
are `long_run` (`pytest -m long_run tests/integration/test_nemesis.py`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kafka_edu.cluster_runner.processes import process_alive
from kafka_edu.cluster_runner.run_directory import RunDirectory
from kafka_edu.nemesis.history import read_history
from kafka_edu.nemesis.nemesis import NemesisOptions, NemesisResult, run_nemesis
from kafka_edu.nemesis.schedule import make_schedule
from kafka_edu.tracing.query import read_span_file

BROKER_IDS = {"zk": [0, 1, 2], "kraft": [4, 5, 6]}  # the node ids ClusterRunner.up gives three brokers
SHORT = {"duration_s": 24.0, "interval_s": 3.0, "fault_s": 4.0}


def seed_with_kill_and_pause(mode: str, duration_s: float, interval_s: float, fault_s: float) -> int:
    """The first seed whose schedule pauses a broker and then kills one (the schedule is a pure function of it).
    The pause first: a fault begins only once the one before is undone, and a killed broker's restart may take
    longer than the rest of a short run on a busy machine."""
    for seed in range(1, 200):
        kinds = [f.kind for f in make_schedule(seed, ["kill", "pause"], BROKER_IDS[mode], duration_s,
                                               interval_s=interval_s, fault_s=fault_s)]
        if "pause" in kinds and "kill" in kinds and kinds.index("pause") < kinds.index("kill"):
            return seed
    raise AssertionError("no seed gives both a kill and a pause")


def run(mode: str, traces: Path, duration_s: float, interval_s: float, fault_s: float) -> NemesisResult:
    seed = seed_with_kill_and_pause(mode, duration_s, interval_s, fault_s)
    options = NemesisOptions(mode=mode, duration_s=duration_s, rate=100, faults=["kill", "pause"], seed=seed,
                             settings="safe", traces_dir=traces, interval_s=interval_s, fault_s=fault_s)
    return run_nemesis(options, out=lambda line: None)


def assert_valid_run(result: NemesisResult) -> None:
    verdict = result.verdict
    assert verdict.valid, [a.describe() for a in verdict.anomalies] + result.workload_errors
    assert set(verdict.counts.values()) == {0}
    assert verdict.acknowledged > 1000 and verdict.read >= verdict.acknowledged
    assert not result.workload_errors

    events = read_history(result.out_dir / "history.jsonl")
    faults = {(e["kind"], e["phase"]) for e in events if e["type"] == "fault"}
    assert {("kill", "start"), ("kill", "end"), ("pause", "start"), ("pause", "end")} <= faults
    assert any(e["type"] == "commit" and e["ok"] for e in events), "the group committed nothing"
    assert json.loads((result.out_dir / "verdict.json").read_text())["valid"] is True
    assert (result.out_dir / "timeline.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    run_dir = result.out_dir.parent
    [check] = [s for s in read_span_file(run_dir / "runner.jsonl") if s.name == "Nemesis.check"]
    assert check.step == "NF.check" and check.trace_id == result.trace_id
    assert check.attributes["kafka.nemesis.lost"] == 0 and check.attributes["kafka.nemesis.valid"] is True
    assert check.attributes["kafka.nemesis.acknowledged"] == verdict.acknowledged
    assert check.resource["service.instance.id"] == "runner"
    # the cluster it started is down again
    manifest = RunDirectory.open(run_dir).read_manifest()
    assert manifest["stopped_at"] and not any(p["pid"] and process_alive(p["pid"]) for p in manifest["processes"])


@pytest.mark.parametrize("mode", ["zk", "kraft"])
def test_kills_and_pauses_under_safe_settings_lose_nothing(mode: str, tmp_path: Path):
    assert_valid_run(run(mode, tmp_path / "traces", **SHORT))


@pytest.mark.long_run
@pytest.mark.parametrize("mode", ["zk", "kraft"])
def test_ten_minutes_of_kills_and_pauses_under_safe_settings_lose_nothing(mode: str, tmp_path: Path):
    assert_valid_run(run(mode, tmp_path / "traces", duration_s=600.0, interval_s=8.0, fault_s=6.0))
