"""Our own test code, not a Kafka port: what the trace-mining tests share, the committed sample runs they read and
the percentile their checks compute on the Python side."""

from __future__ import annotations

import math
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[2] / "traces" / "samples"
FAILOVER = SAMPLES / "mining-failover"
BASELINE = SAMPLES / "mining-baseline"
RUNS = ["mining-failover", "mining-baseline"]
KRAFT = SAMPLES / "mining-kraft"  # three controllers (Kafka 3.9): kill -9 of the leader, then a paused voter


def percentile(values: list[float], p: float) -> float:
    """Linear interpolation between closest ranks (numpy's default, Spark's `percentile`)."""
    xs = sorted(values)
    k = (len(xs) - 1) * p
    lo, hi = math.floor(k), math.ceil(k)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)
