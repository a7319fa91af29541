"""Our own tests: the nemesis's seeded fault schedule."""

from __future__ import annotations

import pytest

from kafka_edu.nemesis.schedule import make_schedule, parse_faults


def test_the_same_seed_gives_the_same_schedule_and_another_seed_another():
    one = make_schedule(7, ["kill", "pause"], [0, 1, 2], 120)
    assert one == make_schedule(7, ["kill", "pause"], [0, 1, 2], 120)
    assert one != make_schedule(8, ["kill", "pause"], [0, 1, 2], 120)


def test_faults_do_not_overlap_and_end_before_the_quiet_tail():
    faults = make_schedule(3, ["kill", "pause", "partition"], [4, 5, 6], 60, quiet_s=5)
    assert len(faults) >= 3
    assert all(a.end_s < b.at_s for a, b in zip(faults, faults[1:], strict=False))
    assert faults[-1].end_s <= 55
    assert {f.node for f in faults} <= {4, 5, 6} and {f.kind for f in faults} <= {"kill", "pause", "partition"}


def test_no_kinds_or_too_short_a_run_gives_no_faults():
    assert make_schedule(1, [], [0], 60) == []
    assert make_schedule(1, ["kill"], [0], 8) == []


def test_an_unknown_fault_kind_is_refused():
    assert parse_faults("kill, pause") == ["kill", "pause"]
    with pytest.raises(ValueError, match="unknown fault kind 'reboot'"):
        parse_faults("kill,reboot")
