"""Fixtures for the TUI's tests: the committed sample runs (the helpers they share are in helpers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parents[2] / "traces" / "samples"


@pytest.fixture
def failover() -> Path:
    """Three brokers, a topic, kill -9 of the controller, its restart, a controlled stop of all (request path off)."""
    return SAMPLES / "failover"


@pytest.fixture
def produce() -> Path:
    """One broker, a topic, five messages produced, with request-path spans."""
    return SAMPLES / "produce"
