"""Lesson `rebalance-without-stopping`: each check, fed a run in which its change has not happened yet, says what it
expected and waits; fed a made-up run in which KIP-848 took a kept partition away, it says so and stops; fed the
recorded run (traces/samples/lesson-rebalance-without-stopping), read as it stood at the end of each step, it passes
with that run's own numbers, the ones the recording handed to the next steps."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from kafka_edu.lessons import Evidence
from kafka_edu.lessons.diagram import load_recorded
from kafka_edu.tracing.query import Spans
from lessons import rebalance_without_stopping as lesson

SAMPLE = Path(__file__).resolve().parents[2] / "traces" / "samples" / "lesson-rebalance-without-stopping"
MS = 1_000_000
T0 = 1_700_000_000_000_000_000


def write_events(run_dir: Path, events: list[dict[str, Any]]) -> None:
    with open(run_dir / lesson.EVENTS, "w", encoding="utf-8") as f:
        f.writelines(json.dumps(e) + "\n" for e in events)


def ev(run_dir: Path, **facts: Any) -> Evidence:
    return Evidence(spans=Spans([]), facts={"run_dir": str(run_dir), "action_ns": T0, **facts})


def member(name: str, group: str, at_ms: float, pid: int = 100) -> list[dict[str, Any]]:
    protocol = lesson.GROUPS[group]
    return [{"t": T0 + int(at_ms * MS), "event": "started", "member": name, "group": group, "protocol": protocol,
             "pid": pid},
            {"t": T0 + int(at_ms * MS) + 1, "event": "ready", "member": name, "group": group, "protocol": protocol}]


def change(name: str, group: str, at_ms: float, kind: str, partitions: list[int]) -> dict[str, Any]:
    return {"t": T0 + int(at_ms * MS), "event": kind, "member": name, "group": group,
            "protocol": lesson.GROUPS[group], "partitions": partitions}


def records(name: str, group: str, partitions: list[int], from_ms: float, to_ms: float,
            every_ms: float = 200) -> list[dict[str, Any]]:
    out, at = [], from_ms
    while at <= to_ms:
        out += [{"t": T0 + int(at * MS) + p, "event": "record", "member": name, "group": group,
                 "protocol": lesson.GROUPS[group], "partition": p} for p in partitions]
        at += every_ms
    return out


def test_nothing_reported_yet_is_waited_for(tmp_path):
    empty = ev(tmp_path, victim_a_pid=1, victim_b_pid=2)
    first = lesson.both_consuming(empty)
    assert not first.ok and first.wait and "no member has reported yet" in first.seen
    joined = lesson.third_joined(empty)
    assert not joined.ok and joined.wait and "three members" in joined.expected
    killed = lesson.victims_replaced(empty)
    assert not killed.ok and killed.wait and "0 of them ended" in killed.seen
    left = lesson.all_left(empty)
    assert not left.ok and left.wait and "LeaveGroup" in left.expected


def test_a_group_still_sharing_out_is_waited_for_then_explained(tmp_path):
    events = (member("a1", "A", 0) + member("a2", "A", 0) + member("b1", "B", 0) + member("b2", "B", 0)
              + records("b1", "B", [0, 1, 2, 3, 4, 5], 100, 900))
    write_events(tmp_path, events)
    waiting = lesson.both_consuming(ev(tmp_path))
    assert not waiting.ok and waiting.wait and "group A" in waiting.expected
    events += (records("a1", "A", [0, 1, 2], 100, 1500) + records("a2", "A", [3, 4, 5], 100, 1500)
               + records("b1", "B", [3, 4, 5], 1000, 1500) + records("b2", "B", [0, 1, 2], 1000, 1500))
    write_events(tmp_path, events)
    done = lesson.both_consuming(ev(tmp_path))
    assert done.ok, done.message()
    assert "a1 [0, 1, 2], a2 [3, 4, 5]" in done.explain and "b1 [3, 4, 5], b2 [0, 1, 2]" in done.explain


def test_a_kip848_member_losing_a_partition_it_kept_is_reported_not_waited_for(tmp_path):
    events = (member("a1", "A", 0) + member("a2", "A", 0) + member("b1", "B", 0) + member("b2", "B", 0)
              + records("a1", "A", [0, 1, 2], 0, 900) + records("a2", "A", [3, 4, 5], 0, 900)
              + records("b1", "B", [0, 1, 2], 0, 900) + records("b2", "B", [3, 4, 5], 0, 900)
              + member("a3", "A", 1000) + member("b3", "B", 1000)
              + [change("a1", "A", 1100, "revoked", [0, 1, 2]), change("a2", "A", 1100, "revoked", [3, 4, 5]),
                 change("a1", "A", 1300, "assigned", [0, 1]), change("a2", "A", 1300, "assigned", [2, 3]),
                 change("a3", "A", 1300, "assigned", [4, 5]),
                 change("b1", "B", 1100, "revoked", [0, 1, 2])]  # an eager revocation: not what KIP-848 does
              + records("a1", "A", [0, 1], 1400, 2000) + records("a2", "A", [2, 3], 1400, 2000)
              + records("a3", "A", [4, 5], 1400, 2000)
              + records("b1", "B", [0, 1], 1500, 2000) + records("b2", "B", [3, 4], 1000, 2000)
              + records("b3", "B", [2, 5], 1600, 2000))
    write_events(tmp_path, events)
    result = lesson.third_joined(ev(tmp_path, action_ns=T0 + 1000 * MS))
    assert not result.ok and not result.wait
    assert "b1 kept [0, 1]" in result.seen and "Report this run" in result.hint
    # the classic side of the same run is what an eager assignor does: everything revoked, then a share back
    a = lesson.members_of(ev(tmp_path), "A")
    assert lesson.stopped_ms(a["a1"], T0 + 1000 * MS, T0 + 2000 * MS) == pytest.approx(300, abs=1)


def test_the_members_log_reads_who_consumes_what(tmp_path):
    write_events(tmp_path, member("b1", "B", 0) + records("b1", "B", [0, 1], 0, 400)
                 + records("b2", "B", [1], 900, 1000))
    b = lesson.members_of(ev(tmp_path), "B")
    assert lesson.owned_at(b, T0 + 450 * MS) == {"b1": {0, 1}, "b2": frozenset()}
    assert lesson.owned_at(b, T0 + 1000 * MS) == {"b1": {0}, "b2": {1}}
    assert lesson.partition_pause(b, 1, T0, T0 + 1000 * MS) == (pytest.approx(500, abs=1), "b1", "b2")


@pytest.mark.skipif(not (SAMPLE / "lesson.json").exists(), reason="no recorded run")
def test_the_recorded_run_passes_every_check_with_its_own_numbers(tmp_path):
    recorded = load_recorded(SAMPLE)
    steps = recorded.lesson["steps"]
    with gzip.open(SAMPLE / f"{lesson.EVENTS}.gz", "rt", encoding="utf-8") as f:
        events = [json.loads(line) for line in f]
    checks = [lesson.both_consuming, lesson.third_joined, lesson.victims_replaced, lesson.all_left]
    results = []
    for index, (step, check) in enumerate(zip(steps, checks, strict=True)):
        # the run as it stood when the step ended: its members' log and spans cut there
        as_of = tmp_path / f"step-{index}"
        as_of.mkdir()
        write_events(as_of, [e for e in events if e["t"] <= step["ended_ns"]])
        spans = Spans(s for s in recorded.spans if s.start_ns <= step["ended_ns"])
        facts = {**step["facts"], "action_ns": step["action_ns"], "run_dir": str(as_of)}
        result = check(Evidence(spans=spans, facts=facts))
        assert result.ok, (step["title"], result.message())
        results.append(result)
        # what the check hands on is what the recording handed to the next step
        later = steps[index + 1]["facts"] if index + 1 < len(steps) else recorded.lesson["facts"]
        assert {k: later[k] for k in result.facts} == result.facts
    joined, killed = results[1].explain, results[2].explain
    assert "**revoked everything**" in joined and "never revoked, and went on consuming" in joined
    assert f"{lesson.HEARTBEAT_MS} ms here" in joined
    assert "waited the session timeout out" in killed and "never revoked" in killed
    # the dead members' partitions waited about a session timeout; the classic survivors stopped, KIP-848's did not
    last = recorded.lesson["facts"]
    assert lesson.SESSION_MS * 0.8 < last["kill_wait_a"] < lesson.SESSION_MS * 2
    assert lesson.SESSION_MS * 0.8 < last["kill_wait_b"] < lesson.SESSION_MS * 2
    assert "no session timeout to wait for" in results[3].explain
    assert [s["answer"] for s in steps] == [None, "b", "a", None]
