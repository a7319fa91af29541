"""The throughput benchmark's method (benchmarks/throughput.py), without a broker: the interleaved schedule (every
target once per workload per repetition, in an order rotated each repetition), medians with their min-max, ratios
paired by repetition, and issue 23's targets read from them. Synthetic measurements; no figures are asserted."""

from __future__ import annotations

from collections import Counter

import pytest

from benchmarks import throughput
from benchmarks.throughput import (
    CHECKS,
    Measurement,
    Summary,
    Workload,
    all_targets,
    paired_ratios,
    print_report,
    rates,
    ratio_summary,
    rotated,
    schedule,
    summarize,
    verdict,
    workloads_for,
)

TARGETS = ["zk-traced", "zk-untraced", "kraft-traced", "kraft-untraced", "tansu"]


def test_each_target_takes_each_place_once_in_as_many_repetitions_as_targets() -> None:
    orders = [rotated(TARGETS, r) for r in range(len(TARGETS))]
    assert orders[0] == TARGETS
    assert orders[1] == [*TARGETS[1:], TARGETS[0]]
    for order in orders:
        assert sorted(order) == sorted(TARGETS)
    for place in range(len(TARGETS)):
        assert sorted(order[place] for order in orders) == sorted(TARGETS)
    assert rotated(TARGETS, len(TARGETS)) == TARGETS
    assert rotated([], 3) == []


def test_a_repetition_runs_every_workload_on_every_target_before_the_next_starts() -> None:
    workloads = workloads_for({100: 10, 1024: 5}, {1024: 3})
    plan = schedule(TARGETS, workloads, 5)
    assert len(plan) == 5 * len(workloads) * len(TARGETS)
    assert Counter((w, t) for _, w, t in plan) == {(w, t): 5 for w in workloads for t in TARGETS}
    assert [r for r, _, _ in plan] == sorted(r for r, _, _ in plan)  # repetitions do not overlap
    for r in range(5):
        phases = [(w, t) for rep, w, t in plan if rep == r]
        assert len(phases) == len(workloads) * len(TARGETS)
        for w in workloads:  # within a workload, the targets in this repetition's rotated order
            assert [t for pw, t in phases if pw == w] == rotated(TARGETS, r)
        for t in TARGETS:  # a target consumes a size's topic after producing it
            mine = [w for w, pt in phases if pt == t]
            for size in (100, 1024):
                produced = mine.index(Workload(size, "1", "produce", 10 if size == 100 else 5))
                consumed = next(i for i, w in enumerate(mine) if w.size == size and w.direction == "consume")
                assert produced < consumed


def test_workloads_per_size_produce_acks_1_then_acks_all_then_consume_its_passes() -> None:
    workloads = workloads_for({100: 10, 1024: 5}, {1024: 3})
    assert [w.label for w in workloads] == ["produce 100 B acks=1", "produce 100 B acks=all", "consume 100 B",
                                           "produce 1 KiB acks=1", "produce 1 KiB acks=all", "consume 1 KiB x3"]
    assert [w.records_per_phase for w in workloads] == [10, 10, 10, 5, 5, 15]


def test_summary_is_the_median_with_its_min_and_max() -> None:
    assert summarize([]) is None
    s = summarize([3.0, 1.0, 2.0, 10.0, 2.5])
    assert s == Summary(2.5, 1.0, 10.0, 5)
    assert s.spread_pct == pytest.approx(360.0)
    assert summarize([1.0, 2.0, 4.0, 5.0]) == Summary(3.0, 1.0, 5.0, 4)  # an even count: the middle two's mean
    assert Summary(0.0, 0.0, 0.0, 1).spread_pct == 0.0


def test_ratios_pair_phases_of_the_same_repetition() -> None:
    traced = {0: 80.0, 1: 90.0, 2: 50.0, 4: 70.0}
    untraced = {0: 100.0, 1: 100.0, 2: 100.0, 3: 100.0, 4: 0.0}
    # repetition 3 has no traced phase and repetition 4 a zero denominator: both are left out
    assert paired_ratios(traced, untraced) == [0.8, 0.9, 0.5]
    assert paired_ratios({}, untraced) == []


def test_verdict_against_a_target() -> None:
    assert verdict(None, 0.8) == "no data"
    assert verdict(Summary(0.9, 0.8, 1.0, 5), 0.8) == "yes, every repetition"
    assert verdict(Summary(0.85, 0.7, 1.0, 5), 0.8) == "yes, median"
    assert verdict(Summary(0.79, 0.7, 0.9, 5), 0.8) == "no"


def measurements_for(workload: Workload, per_target: dict[str, list[float]]) -> list[Measurement]:
    """Phases of `workload` that took the given seconds, repetition by repetition."""
    return [Measurement(name, workload, r, workload.records_per_phase, seconds)
            for name, times in per_target.items() for r, seconds in enumerate(times)]


def test_rates_leave_out_phases_that_missed_records() -> None:
    w = Workload(1024, "1", "produce", 1000)
    ms = measurements_for(w, {"a": [1.0, 2.0]})
    ms.append(Measurement("a", w, 2, 10, 0.001, failed=990, note="timed out"))
    assert rates(ms, "a", w) == {0: 1000.0, 1: 500.0}
    assert rates(ms, "b", w) == {}


def test_issue_23_targets_from_paired_ratios_and_the_report() -> None:
    produce = Workload(1024, "1", "produce", 1000)
    consume = Workload(1024, "-", "consume", 1000, 3)
    names = {t.key: t.name for t in all_targets()}
    seconds = {names["zk-traced"]: [1.0, 1.0, 1.0, 1.0, 1.0], names["zk-untraced"]: [0.9, 0.9, 0.85, 0.9, 0.9],
               names["kraft-traced"]: [2.0, 2.0, 2.0, 2.0, 2.0], names["kraft-untraced"]: [1.0, 1.0, 1.0, 1.0, 1.0],
               names["tansu"]: [0.5, 0.5, 0.5, 0.5, 0.5]}
    ms = measurements_for(produce, seconds) + measurements_for(consume, seconds)
    zk = ratio_summary(ms, names, "zk-traced", "zk-untraced", produce)
    assert zk is not None and zk.n == 5
    assert (zk.median, zk.low, zk.high) == pytest.approx((0.9, 0.85, 0.9))
    assert ratio_summary(ms, names, "kraft-traced", "kraft-untraced", produce).median == pytest.approx(0.5)
    assert ratio_summary(ms, names, "zk-traced", "tansu", consume).median == pytest.approx(0.5)
    assert ratio_summary(ms, {"zk-traced": names["zk-traced"]}, "zk-traced", "tansu", consume) is None
    assert len(CHECKS) == 8  # per broker: traced/untraced and traced/tansu, produce and consume of 1 KiB

    with throughput.console.capture() as captured:
        print_report(all_targets(), [produce, consume], ms, 5)
    report = captured.get()
    assert "ZK traced / untraced, produce 1 KiB acks=1" in report
    assert "0.90x (0.85-0.90)" in report  # ZK traced/untraced produce: median (min-max)
    assert "yes, every repetition" in report  # ZK traced/untraced, 0.85 at worst against 0.8
    assert "no" in report.split()  # KRaft traced/untraced at 0.5
