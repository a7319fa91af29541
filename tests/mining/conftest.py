"""Fixtures for the trace-mining tests: one local Spark session for all of them, and the committed sample runs."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from kafka_edu.tracing.query import Spans, load_run
from tests.mining.helpers import BASELINE, FAILOVER, KRAFT, RUNS, SAMPLES


@pytest.fixture(scope="session")
def spark() -> Iterator[object]:
    from kafka_edu.mining.session import spark_session
    session = spark_session("local[2]", app_name="kafka-edu-mining-tests")
    yield session
    session.stop()
    # PySpark keeps its JVM until the interpreter exits; the suite's last check would find it and wait on it.
    from pyspark import SparkContext
    gateway = SparkContext._gateway
    if gateway is not None:
        gateway.shutdown()
        proc = getattr(gateway, "proc", None)
        if proc is not None:
            proc.stdin.close()  # spark-submit's launcher ends when its stdin closes
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        SparkContext._gateway = SparkContext._jvm = None


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


@pytest.fixture(scope="session")
def kraft_loaded(spark):
    """The KRaft sample read from its JSON Lines."""
    from kafka_edu.mining.source import load_spans
    result = load_spans(spark, SAMPLES, [KRAFT.name], source="json")
    yield result
    result.release()


@pytest.fixture(scope="session")
def kraft_spans() -> Spans:
    return load_run(KRAFT)
