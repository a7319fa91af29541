"""Fixtures for the trace-mining tests: one local Spark session for all of them, and the committed sample runs."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_edu.tracing.query import Spans, load_run

SAMPLES = Path(__file__).resolve().parents[2] / "traces" / "samples"
FAILOVER = SAMPLES / "mining-failover"
BASELINE = SAMPLES / "mining-baseline"
RUNS = ["mining-failover", "mining-baseline"]


@pytest.fixture(scope="session")
def spark() -> Iterator[object]:
    from kafka_edu.mining.session import spark_session
    session = spark_session("local[2]", app_name="kafka-edu-mining-tests")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def loaded(spark):
    """Both mining samples read once from their JSON Lines (the jobs' input in most tests)."""
    from kafka_edu.mining.source import load_spans
    result = load_spans(spark, SAMPLES, RUNS, source="json")
    yield result
    result.release()


@pytest.fixture(scope="session")
def python_spans() -> dict[str, Spans]:
    """The same runs read by the plain-Python query helper: the independent side of every comparison."""
    return {path.name: load_run(path) for path in (FAILOVER, BASELINE)}


def percentile(values: list[float], p: float) -> float:
    """Linear interpolation between closest ranks (numpy's default, Spark's `percentile`)."""
    xs = sorted(values)
    k = (len(xs) - 1) * p
    lo, hi = math.floor(k), math.ceil(k)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)
