"""Lesson `growing-the-quorum`: each check, fed a run in which its change has not happened yet, says what it expected
and waits; fed the recorded run (traces/samples/lesson-growing-the-quorum), it explains it with that run's numbers,
and the questions whose answer is the run's get the answer KIP-853 gives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kafka_edu.lessons import Evidence
from kafka_edu.lessons.diagram import load_recorded
from kafka_edu.tracing.query import Spans
from lessons import growing_the_quorum as lesson

SAMPLE = Path(__file__).resolve().parents[2] / "traces" / "samples" / "lesson-growing-the-quorum"
FACTS: dict[str, Any] = {"controller_ids": [1, 2, 3], "action_ns": 0, "leader": 2, "epoch": 1, "added": 4}


def test_nothing_traced_yet_is_waited_for_or_explained():
    empty = Evidence(spans=Spans([]), facts=FACTS)
    first = lesson.bootstrapped(empty)
    assert not first.ok and "KV.format" in first.expected and "0 written" in first.seen
    added = lesson.observed_then_added(empty)
    assert not added.ok and added.wait and "KV.add" in added.expected
    committed = lesson.appended_then_committed(empty)
    assert not committed.ok and committed.wait and "KV.commit" in committed.expected
    removed = lesson.leader_removed(empty)
    assert not removed.ok and removed.wait and "KV.remove" in removed.expected


@pytest.mark.skipif(not (SAMPLE / "lesson.json").exists(), reason="no recorded run")
def test_the_recorded_run_passes_every_check_with_its_own_numbers():
    recorded = load_recorded(SAMPLE)
    steps = recorded.lesson["steps"]
    checks = [lesson.bootstrapped, lesson.observed_then_added, lesson.appended_then_committed, lesson.leader_removed]
    results = []
    for step, check in zip(steps, checks, strict=True):
        facts = {**step["facts"], "action_ns": step["action_ns"]}
        result = check(Evidence(spans=recorded.spans, facts=facts))
        assert result.ok, (step["title"], result.message())
        results.append(result)
    offset = results[2].facts["offset"]
    assert f"at offset **{offset}**" in results[2].explain and "one trace, four steps" in results[2].explain
    assert "(the leader)" in results[2].explain
    assert "resign" in results[3].explain
    # the answers the trace gives: applied on append, resign only after commit
    assert lesson.counted_when(Evidence(spans=recorded.spans, facts=steps[2]["facts"])) == "a"
    assert lesson.resigned_when(Evidence(spans=recorded.spans, facts=steps[3]["facts"])) == "b"
