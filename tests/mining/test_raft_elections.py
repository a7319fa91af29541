"""`kafka-edu mine raft-elections`: the KRaft sample's elections checked against plain Python over the same spans, and
the outcomes a three-voter sample does not show (a lost same-epoch race, a vote known only from the candidate's side,
an unfinished candidacy) on synthetic spans."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from kafka_edu.tracing.query import Spans
from tests.mining.helpers import KRAFT, SAMPLES


def _role_changes(spans: Spans) -> list[tuple[int, str, dict[str, Any]]]:
    return sorted((e.time_ns, s.instance, e.attributes) for s in spans for e in s.events
                  if e.name == "raft.role.change")


def _faults() -> list[dict[str, Any]]:
    return json.loads((KRAFT / "manifest.json").read_text())["faults"]


def test_every_candidacy_with_its_votes_and_time_to_leader(kraft_loaded, kraft_spans: Spans) -> None:
    from kafka_edu.mining.raft_elections import raft_elections, run_faults

    result = raft_elections(kraft_loaded.spans, run_faults(kraft_loaded.runs))
    changes = _role_changes(kraft_spans)
    candidacies = {}
    for t, instance, a in changes:
        if a["kafka.raft.role.to"] == "Candidate":
            candidacies.setdefault((instance, a["kafka.raft.epoch"]), t)
    leaders = {}
    for t, instance, a in changes:
        if a["kafka.raft.role.to"] == "Leader":
            leaders.setdefault(a["kafka.raft.epoch"], (instance, t))
    rows = {(r["candidate"], r["epoch"]): r for r in result.rows}
    assert set(rows) == set(candidacies)
    assert [(r["candidate"], r["epoch"]) for r in result.rows] == sorted(candidacies, key=candidacies.get)
    votes = [s for s in kraft_spans.where(name="KafkaRaftClient.handleVoteRequest")]
    for (candidate, epoch), started in candidacies.items():
        row = rows[(candidate, epoch)]
        node = int(candidate.rsplit("-", 1)[1])
        answers = [v for v in votes if v.attributes["kafka.raft.vote.candidate_id"] == node
                   and v.attributes["kafka.raft.vote.candidate_epoch"] == epoch]
        granted = sorted(v.instance for v in answers if v.attributes["kafka.raft.vote.granted"])
        assert (row["granted_by"].split(", ") if row["granted_by"] else []) == granted
        for v in answers:
            if not v.attributes["kafka.raft.vote.granted"]:
                assert f"{v.instance}: {v.attributes['kafka.raft.vote.reason']}" in row["refused_by"]
        if leaders.get(epoch, (None,))[0] == candidate:
            assert row["outcome"] == "leader"
            assert row["to_leader_ms"] == pytest.approx((leaders[epoch][1] - started) / 1e6)
            assert 0 < row["to_leader_ms"] < 1_000  # a vote round on loopback, fsyncs included
        else:
            assert row["to_leader_ms"] is None and row["outcome"] != "leader"
        winner = min((e for e in leaders if e >= epoch), default=None)
        assert row["winner"] == (f"{leaders[winner][0]} (epoch {winner})" if winner is not None else None)


def test_the_sample_story_kill_9_then_a_paused_voter(kraft_loaded) -> None:
    """What a learner should read in the table: the start-up election, the split vote after the leader's kill -9,
    the woken voter's candidacies refused for its stale log, and the election that ends it."""
    from kafka_edu.mining.raft_elections import raft_elections

    rows = raft_elections(kraft_loaded.spans).rows
    killed, _start, paused, _resume = _faults()
    assert (killed["fault"], paused["fault"]) == ("kill -9", "pause")
    first = rows[0]
    assert first["epoch"] == 1 and first["trigger"] == "election timeout" and first["outcome"] == "leader"
    assert first["candidate"] == f"controller-{killed['node']}" and first["granted"] == 2
    after_kill = [r for r in rows if killed["time_ns"] < r["start_ns"] < paused["time_ns"]]
    assert after_kill[0]["trigger"] == "fetch timeout" and after_kill[0]["epoch"] == 2
    assert all(r["candidate"] != f"controller-{killed['node']}" for r in after_kill)
    assert sum(r["outcome"] == "leader" for r in after_kill) == 1
    sleeper = [r for r in rows
               if r["candidate"] == f"controller-{paused['node']}" and r["start_ns"] > paused["time_ns"]]
    assert sleeper and sleeper[0]["trigger"] == "fetch timeout"
    assert sleeper[0]["outcome"] == "lost: refused by a majority" and sleeper[0]["refused"] == 2
    for r in sleeper:
        assert r["outcome"] in ("lost: refused by a majority",) or r["outcome"].startswith("superseded by epoch")
        assert r["granted_by"] == "" and "log behind" in r["refused_by"]
    last = rows[-1]
    assert last["outcome"] == "leader" and last["epoch"] > sleeper[-1]["epoch"]
    assert all(r["winner"] == f"{last['candidate']} (epoch {last['epoch']})" for r in sleeper)


def _ns(ms: float) -> str:
    return str(int(1e15 + ms * 1e6))


def _span(instance: str, name: str, start_ms: float, end_ms: float, trace: str, span: str, parent: str = "",
          attributes: dict[str, Any] | None = None, events: list[tuple[float, dict[str, Any]]] = ()) -> dict:
    def kv(values: dict[str, Any]) -> list[dict]:
        return [{"key": k, "value": {"boolValue": v} if isinstance(v, bool) else
                 {"intValue": str(v)} if isinstance(v, int) else {"stringValue": str(v)}} for k, v in values.items()]
    return {"instance": instance, "span": {
        "traceId": trace * 32, "spanId": span * 16, "parentSpanId": parent * 16 if parent else "", "name": name,
        "kind": 1, "startTimeUnixNano": _ns(start_ms), "endTimeUnixNano": _ns(end_ms),
        "attributes": kv({"kafka.node.id": int(instance.rsplit("-", 1)[1])} | (attributes or {})),
        "events": [{"timeUnixNano": _ns(t), "name": "raft.role.change", "attributes": kv(a)}
                   for t, a in events],
        "status": {}}}


def _change(from_role: str, to_role: str, epoch: int, leader: int = -1) -> dict[str, Any]:
    return {"kafka.raft.role.from": from_role, "kafka.raft.role.to": to_role, "kafka.raft.epoch": epoch,
            "kafka.raft.leader.id": leader, "kafka.raft.voted.id": -1}


def _vote(voter: int, candidate: int, epoch: int, granted: bool, reason: str) -> dict[str, Any]:
    return {"kafka.raft.vote.candidate_id": candidate, "kafka.raft.vote.candidate_epoch": epoch,
            "kafka.raft.vote.granted": granted, "kafka.raft.vote.reason": reason}


def _write_run(path: Path, spans: list[dict]) -> None:
    path.mkdir(parents=True)
    by_instance: dict[str, list[dict]] = {}
    for s in spans:
        by_instance.setdefault(s["instance"], []).append(s["span"])
    for instance, items in by_instance.items():
        resource = {"attributes": [{"key": "service.instance.id", "value": {"stringValue": instance}}]}
        line = {"resourceSpans": [{"resource": resource, "scopeSpans": [{"scope": {"name": "t"}, "spans": items}]}]}
        (path / f"{instance}.jsonl").write_text(json.dumps(line) + "\n")
    (path / "manifest.json").write_text(json.dumps({"run_id": path.name, "mode": "kraft", "stopped_at": "x"}))


@pytest.fixture(scope="module")
def five_voters(tmp_path_factory) -> Path:
    """Five voters. Epoch 1: controllers 1 and 5 stand at once; 1 wins (2 and 3 grant), 5 gets 4's vote only and
    follows 1. Epoch 2: 4 times out and stands; only its own records of the answers exist (2 grants, 3 refuses), then
    its process stops."""
    c = "controller-"
    spans = [
        _span(c + "1", "KafkaRaftClient.pollUnattached", 0, 2, "a", "1",
              attributes={"kafka.raft.poll.reason": "election timeout (1000 ms) without a leader, become candidate"},
              events=[(1, _change("Unattached", "Candidate", 1))]),
        _span(c + "5", "KafkaRaftClient.pollUnattached", 0.5, 2, "b", "2",
              attributes={"kafka.raft.poll.reason": "election timeout (900 ms) without a leader, become candidate"},
              events=[(1.5, _change("Unattached", "Candidate", 1))]),
        _span(c + "2", "KafkaRaftClient.handleVoteRequest", 4, 6, "a", "3", "1",
              _vote(2, 1, 1, True, "granted: candidate's log is at least ours")),
        _span(c + "3", "KafkaRaftClient.handleVoteRequest", 4, 7, "a", "4", "1",
              _vote(3, 1, 1, True, "granted: candidate's log is at least ours")),
        _span(c + "4", "KafkaRaftClient.handleVoteRequest", 4, 5, "a", "5", "1",
              _vote(4, 1, 1, False, "already voted for 5 in epoch 1")),
        _span(c + "4", "KafkaRaftClient.handleVoteRequest", 3, 3.5, "b", "6", "2",
              _vote(4, 5, 1, True, "granted: candidate's log is at least ours")),
        _span(c + "2", "KafkaRaftClient.handleVoteRequest", 4.5, 5, "b", "7", "2",
              _vote(2, 5, 1, False, "already voted for 1 in epoch 1")),
        _span(c + "1", "KafkaRaftClient.handleVoteResponse", 8, 9, "a", "8", "1",
              {"kafka.raft.epoch": 1, "kafka.raft.vote.voter_id": 3, "kafka.raft.vote.granted": True,
               "kafka.raft.votes.majority": 3}, [(8.5, _change("Candidate", "Leader", 1, 1))]),
        _span(c + "5", "KafkaRaftClient.handleBeginQuorumEpochRequest", 10, 11, "a", "9", "1",
              events=[(10.5, _change("Candidate", "Follower", 1, 1))]),
        _span(c + "4", "KafkaRaftClient.pollFollower", 1000, 1002, "c", "a",
              attributes={"kafka.raft.poll.reason": "fetch timeout: no successful Fetch from leader 1 in time, "
                                                    "become candidate"},
              events=[(1001, _change("Follower", "Candidate", 2))]),
        _span(c + "4", "KafkaRaftClient.handleVoteResponse", 1010, 1011, "c", "b", "a",
              {"kafka.raft.epoch": 2, "kafka.raft.vote.voter_id": 2, "kafka.raft.vote.granted": True}),
        _span(c + "4", "KafkaRaftClient.handleVoteResponse", 1012, 1013, "c", "d", "a",
              {"kafka.raft.epoch": 2, "kafka.raft.vote.voter_id": 3, "kafka.raft.vote.granted": False}),
    ]
    root = tmp_path_factory.mktemp("raft")
    _write_run(root / "five-voters", spans)
    return root


def test_outcomes_a_three_voter_sample_does_not_show(spark, five_voters: Path) -> None:
    from kafka_edu.mining.raft_elections import UNKNOWN_REASON, raft_elections
    from kafka_edu.mining.source import load_spans

    loaded = load_spans(spark, five_voters, source="json")
    try:
        rows = {(r["candidate"], r["epoch"]): r for r in raft_elections(loaded.spans).rows}
    finally:
        loaded.release()
    assert list(rows) == [("controller-1", 1), ("controller-5", 1), ("controller-4", 2)]
    won, lost, unfinished = rows.values()
    assert won["outcome"] == "leader" and won["to_leader_ms"] == pytest.approx(7.5)
    assert won["granted_by"] == "controller-2, controller-3" and won["granted"] == 2
    assert won["refused_by"] == "controller-4: already voted for 5 in epoch 1"
    assert won["trigger"] == "election timeout" and won["start_s"] == pytest.approx(0.001)
    assert lost["outcome"] == "lost: controller-1 leads epoch 1" and lost["to_leader_ms"] is None
    assert lost["granted_by"] == "controller-4" and lost["refused_by"] == "controller-2: already voted for 1 in epoch 1"
    assert lost["winner"] == "controller-1 (epoch 1)"
    assert unfinished["outcome"] == "unresolved" and unfinished["winner"] is None
    assert unfinished["granted_by"] == "controller-2" and unfinished["trigger"] == "fetch timeout"
    assert unfinished["refused_by"] == f"controller-3: {UNKNOWN_REASON}"


def test_zookeeper_runs_have_no_elections(loaded) -> None:
    from kafka_edu.mining.raft_elections import raft_elections

    result = raft_elections(loaded.spans)
    assert result.rows == [] and any("KRaft" in note for note in result.notes)


def test_command_prints_the_table_and_writes_csv_and_chart(spark, tmp_path: Path, capsys, monkeypatch) -> None:
    from kafka_edu.cli import build_parser
    from kafka_edu.mining.cli import run

    monkeypatch.setenv("COLUMNS", "250")
    out = tmp_path / "out"
    options = build_parser().parse_args(["mine", "raft-elections", "--traces", str(SAMPLES), "--runs", KRAFT.name,
                                         "--out", str(out)])
    assert run(options, spark) == 0
    printed = capsys.readouterr().out
    assert "Raft elections" in printed and "lost: refused by a majority" in printed
    assert "controller-2, controller-3: log behind" in printed or "controller-1, controller-3: log behind" in printed
    with open(out / "raft-elections.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert rows[0]["epoch"] == "1" and rows[0]["outcome"] == "leader" and float(rows[0]["to_leader_ms"]) > 0
    assert {"run_id", "candidate", "trigger_detail", "granted_by", "refused_by", "winner", "trace_id"} <= set(rows[0])
    assert (out / "raft-elections.png").read_bytes().startswith(b"\x89PNG")
    assert "kill -9" in (out / "raft-elections.svg").read_text()  # the manifest's faults on the chart
