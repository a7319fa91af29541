"""Our own code, not a Kafka port: the nemesis's fault schedule, drawn from a seed so that a run can be repeated.

A schedule is a list of faults, one at a time: each starts `interval` seconds after the previous one ended (give or
take a third, by the seed), lasts `duration` seconds (likewise), hits one broker, and is undone before the next:
a killed broker is started again, a paused one resumed, a partition healed. The last fault ends before the run's
quiet tail (`quiet` seconds at the end with no fault), so the workload sees the cluster whole again before it stops.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

FAULT_KINDS = ("kill", "pause", "partition")


@dataclass(frozen=True)
class Fault:
    at_s: float  # seconds after the workload started
    kind: str  # one of FAULT_KINDS
    node: int
    duration_s: float

    @property
    def end_s(self) -> float:
        return self.at_s + self.duration_s

    def describe(self) -> str:
        verb = {"kill": "kill -9", "pause": "pause (SIGSTOP)", "partition": "isolate"}[self.kind]
        return f"{verb} broker {self.node} at {self.at_s:.1f} s for {self.duration_s:.1f} s"


def parse_faults(text: str) -> list[str]:
    """`kill,pause,partition` -> the kinds; an unknown or empty one is refused with a one-line error."""
    kinds = [k.strip() for k in text.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in FAULT_KINDS]
    if unknown:
        raise ValueError(f"unknown fault kind {unknown[0]!r}: choose from {', '.join(FAULT_KINDS)} or 'none'")
    return kinds


def make_schedule(seed: int, kinds: list[str], nodes: list[int], duration_s: float, *, interval_s: float = 8.0,
                  fault_s: float = 6.0, start_s: float = 4.0, quiet_s: float = 5.0) -> list[Fault]:
    """The faults of a run of `duration_s` seconds; the same arguments give the same schedule."""
    if not kinds or not nodes:
        return []
    rng = random.Random(seed)
    faults: list[Fault] = []
    at = start_s
    while True:
        length = fault_s * rng.uniform(0.67, 1.33)
        if at + length > duration_s - quiet_s:
            return faults
        faults.append(Fault(round(at, 3), rng.choice(kinds), rng.choice(nodes), round(length, 3)))
        at += length + interval_s * rng.uniform(0.67, 1.33)
