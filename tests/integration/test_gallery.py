"""Our own tests, not a Kafka port: the gallery (kafka_edu/gallery/, docs/gallery.md). Each scenario replayed on a
fresh netns cluster must find its moment in the run's own traces; the CLI refuses bad input in one line.

Needs root and `ip netns` for the scenarios (skipped otherwise); the CLI checks run anywhere. Each scenario starts
and stops a cluster of its own, 25 to 45 s on the busy 2-core CI machine; jepsen-2013, with its two workloads and
read-backs, and kip-279-divergence, which plays its story on a 1.0.2 cluster and then on a 3.9 one, take a minute or
more and are `long_run`: `pytest -m long_run tests/integration/test_gallery.py`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kafka_edu.cli import main as cli_main
from kafka_edu.cluster_runner import network as net
from kafka_edu.gallery import (
    broker_session,
    jepsen_2013,
    kip_279_divergence,
    kraft_check_quorum,
    kraft_no_prevote,
    zombie_controller,
)
from kafka_edu.gallery.common import netns_missing

needs_netns = pytest.mark.skipif(netns_missing() is not None, reason=netns_missing() or "")


def assert_gone(run_dir: Path) -> None:
    """Nothing of the run outlives it: no namespace of its tag."""
    tag = json.loads((run_dir / "manifest.json").read_text())["network"]["tag"]
    assert not [ns for ns in net.list_namespaces() if ns.startswith(f"{net.NETNS_PREFIX}{tag}-")]


@pytest.mark.long_run
@needs_netns
def test_jepsen_2013_unclean_election_loses_acks1_writes_and_safe_settings_lose_none(tmp_path: Path) -> None:
    report = jepsen_2013.run(tmp_path / "traces", out=lambda _line: None)
    assert report.ok, report.text()
    (unclean, *rest) = report.moments
    assert unclean["step"] == "CT.select" and unclean["value"] is True
    assert unclean["instance"] == f"broker-{report.facts['controller']}"
    assert report.facts["lost_unsafe"] > 0 and report.facts["lost_safe"] == 0
    assert report.facts["acknowledged"]["safe"] > 0
    assert len(unclean["trace_id"]) == 32
    truncated = [m for m in rest if m["step"] == "LE.truncate"]
    assert truncated and truncated[0]["instance"] == f"broker-{report.facts['leader']}"
    assert (report.run_dir / "gallery" / "history-unsafe.jsonl").exists()
    assert_gone(report.run_dir)


@needs_netns
def test_zombie_controller_orders_are_refused_by_controller_epoch(tmp_path: Path) -> None:
    report = zombie_controller.run(tmp_path / "traces", out=lambda _line: None)
    assert report.ok, report.text()
    fence, resign = report.moments
    facts = report.facts
    assert fence["step"] == "CT.fence" and fence["value"] == facts["epoch"] < facts["new_epoch"]
    assert fence["instance"] != f"broker-{facts['old']}" and facts["new"] != facts["old"]
    assert resign["step"] == "CT.resign" and resign["instance"] == f"broker-{facts['old']}"
    assert resign["start_ns"] > fence["start_ns"]  # refused while the zombie still held on; it resigns after
    assert_gone(report.run_dir)


@needs_netns
def test_a_broker_cut_from_zookeeper_loses_its_leaderships_and_registers_again(tmp_path: Path) -> None:
    report = broker_session.run(tmp_path / "traces", out=lambda _line: None)
    assert report.ok, report.text()
    facts = report.facts
    dead, select, again, alive = report.moments
    assert dead["value"] == [facts["broker"]] and dead["instance"] == f"broker-{facts['controller']}"
    assert select["value"] == facts["leader_after"] != facts["broker"] == facts["leader_before"]
    assert facts["epoch_after"] > facts["epoch_before"]
    assert again["instance"] == f"broker-{facts['broker']}" and alive["value"] == [facts["broker"]]
    assert dead["start_ns"] <= select["start_ns"] < again["start_ns"] <= alive["start_ns"]
    assert_gone(report.run_dir)


@pytest.mark.long_run
@needs_netns
def test_two_quick_leader_changes_leave_1_0_2_replicas_diverged_and_3_9_replicas_agreeing(tmp_path: Path) -> None:
    report = kip_279_divergence.run(tmp_path / "traces", out=lambda _line: None)
    assert report.ok, report.text()
    answered, kept, truncated = report.moments
    old, new = report.facts["zk"], report.facts["kraft"]
    n = kip_279_divergence.PREFIX
    for story in (old, new):
        assert story["epochs"]["E1"] < story["epochs"]["E2"] < story["epochs"]["E3"]
        assert story["offsets"]["A"] == story["offsets"]["B"] == n and story["offsets"]["A2"] == n + 1

    # 1.0.2: asked where epoch E2 ends, A names the start of its own E3 (N+1), B's log end offset: B cuts nothing
    assert answered["step"] == "LE.apis" and answered["instance"] == f"broker-{old['a']}"
    assert answered["value"] == [n + 1] and old["answer"]["asked_epochs"] == [old["epochs"]["E2"]]
    assert kept["step"] == "LE.truncate" and kept["instance"] == f"broker-{old['b']}" and kept["value"] == [n + 1]
    assert old["answer"]["by"] == "log end offset"
    a, b = ({o: (e, v) for o, e, v in old["logs"][str(x)]} for x in (old["a"], old["b"]))
    assert a[n][0] == old["epochs"]["E1"] and b[n][0] == old["epochs"]["E2"] and a[n][1] != b[n][1]
    assert [a[o] for o in range(n)] + [a[n + 1]] == [b[o] for o in range(n)] + [b[n + 1]]  # the rest agrees

    # 3.9: A answers B's Fetch with the diverging epoch E1 ending at N+1; B cuts back to N, where its own E1 ends
    assert truncated["step"] == "RQ.follower.2" and truncated["instance"] == f"broker-{new['b']}"
    assert truncated["value"] == [n] and new["answer"]["diverging"] == [f"{kip_279_divergence.TOPIC}-0:"
                                                                        f"{new['epochs']['E1']}@{n + 1}"]
    assert new["logs"][str(new["a"])] == new["logs"][str(new["b"])] and len(new["logs"][str(new["a"])]) == n + 2
    assert new["logs"][str(new["b"])][n][1] == new["epochs"]["E1"]
    assert_gone(report.run_dir)
    assert_gone(report.runs["kraft"])


@needs_netns
def test_a_raft_leader_cut_from_the_other_voters_resigns_by_check_quorum(tmp_path: Path) -> None:
    report = kraft_check_quorum.run(tmp_path / "traces", out=lambda _line: None)
    assert report.ok, report.text()
    check, role = report.moments
    facts = report.facts
    assert check["step"] == "KR.poll" and check["value"].startswith("resign: check-quorum expired")
    assert check["instance"] == role["instance"] == f"controller-{facts['leader']}" and role["value"] == "Resigned"
    assert facts["new"] != facts["leader"] and facts["new_epoch"] > facts["epoch"]
    assert set(facts["epochs"].values()) == {facts["epochs"][facts["healed_leader"]]}
    assert_gone(report.run_dir)


@needs_netns
def test_a_voter_back_from_a_partition_deposes_a_healthy_raft_leader(tmp_path: Path) -> None:
    report = kraft_no_prevote.run(tmp_path / "traces", out=lambda _line: None)
    assert report.ok, report.text()
    (deposed,) = report.moments
    facts = report.facts
    assert deposed["step"] == "KR.role" and deposed["instance"] == f"controller-{facts['leader']}"
    assert facts["voter_epoch"] >= facts["epoch"] + kraft_no_prevote.EPOCHS_AHEAD
    assert facts["deposed_epoch"] > facts["epoch"] and facts["new_epoch"] >= facts["deposed_epoch"]
    assert_gone(report.run_dir)


def test_gallery_cli_lists_and_refuses_in_one_line(capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    assert cli_main(["gallery", "list"]) == 0
    listed = capsys.readouterr().out
    assert jepsen_2013.NAME in listed and kip_279_divergence.NAME in listed
    assert cli_main(["gallery", "run", "no-such"]) == 2
    out = capsys.readouterr().out
    assert "no scenario 'no-such'" in out and len(out.strip().splitlines()) == 1
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert cli_main(["gallery", "run", jepsen_2013.NAME]) == 2
    out = capsys.readouterr().out
    assert "needs root" in out and len(out.strip().splitlines()) == 1
