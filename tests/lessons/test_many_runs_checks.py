"""Lesson `many-runs`: each check, fed what the lesson recorded and a mining job's output where the expected thing
did not happen, says what it expected, what it saw, and what to do."""

from __future__ import annotations

from pathlib import Path

from lessons import many_runs as lesson
from tests.lessons.helpers import FakeRun, ns

RUN_IDS = ["20260101-000000-aaaa", "20260101-000100-bbbb", "20260101-000200-cccc"]


def facts(tmp_path: Path, runs: int = 3) -> dict:
    return {"recorded": [{"run_id": r, "killed_ns": ns(1000), "old": 1} for r in RUN_IDS[:runs]],
            "run_ids": " ".join(RUN_IDS[:runs]), "traces": str(tmp_path), "mining_out": str(tmp_path / "mining"),
            "run_dir": str(tmp_path / RUN_IDS[0])}


def test_fewer_runs_than_promised_are_reported(tmp_path):
    result = lesson.three_failovers(FakeRun().evidence(**facts(tmp_path, runs=2)))
    assert not result.ok and not result.wait and "2 recorded" in result.seen


def test_a_run_without_a_complete_failover_is_named(tmp_path):
    result = lesson.three_failovers(FakeRun().evidence(**facts(tmp_path)))
    assert not result.ok and result.wait and RUN_IDS[0] in result.seen


def test_no_timeline_yet_gets_the_mine_command(tmp_path):
    result = lesson.mined_timeline(FakeRun().evidence(**facts(tmp_path)))
    assert not result.ok and not result.wait and "failover-timeline.csv" in result.expected
    assert "PySpark" in result.hint


def test_a_timeline_without_every_run_says_which_is_missing(tmp_path):
    (tmp_path / "mining").mkdir()
    (tmp_path / "mining" / "failover-timeline.csv").write_text(
        "run_id,epoch,previous,controller,cause,loss_seen_by,last_seen_ms,elected_ms,failover_done_ms,led_again_ms,"
        "partitions_moved,leaderless_ms\n"
        f"{RUN_IDS[0]},2,broker-1,broker-0,session lost: /controller deleted,broker-0,6000,10,100,90,2,6090\n")
    result = lesson.mined_timeline(FakeRun().evidence(**facts(tmp_path)))
    assert not result.ok and not result.wait
    assert RUN_IDS[1] in result.seen and RUN_IDS[0] not in result.seen and "--runs" in result.hint


def test_a_startup_profile_missing_steps_is_reported(tmp_path):
    result = lesson.mined_startups(FakeRun().evidence(**facts(tmp_path)))
    assert not result.ok and "no such file" in result.seen
    (tmp_path / "mining").mkdir()
    (tmp_path / "mining" / "startup-profile.csv").write_text(
        "step,span,count,p50_ms,p95_ms,max_ms,share_pct\nLC.startup.04,KafkaServer.initZk,9,100,200,300,50\n")
    result = lesson.mined_startups(FakeRun().evidence(**facts(tmp_path)))
    assert not result.ok and not result.wait and "LC.startup.01" in result.seen
