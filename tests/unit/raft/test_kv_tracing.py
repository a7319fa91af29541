"""The KV spans (KIP-853, FIDELITY KV) on Kafka's own reconfiguration scenarios: every case of
KafkaRaftClientReconfigTest runs with tracing on and strict describers (a describer that no longer matches the code
fails the case), and an add and a remove are each one trace on the leader, in FIDELITY's order."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kafka_edu.tracing import setup_tracing
from tests.kafka_tests.v3_9.raft.raft import kafka_raft_client_reconfig_test as reconfig

CASES: list[Callable[[], None]] = [f for name, f in inspect.getmembers(reconfig, inspect.isfunction)
                                   if name.startswith("test_") and not inspect.signature(f).parameters]


@pytest.fixture
def tracing() -> Iterator[Any]:
    tracing = setup_tracing("controller-0", "run-1", mode="kraft")
    try:
        yield tracing
    finally:
        tracing.shutdown()


def kv(tracing: Any) -> list[Any]:
    return sorted((s for s in tracing.memory.get_finished_spans()
                   if str(s.attributes.get("kafka.step", "")).startswith("KV.")), key=lambda s: s.start_time)


def change(tracing: Any, root_step: str) -> list[str]:
    spans = kv(tracing)
    root = next(s for s in spans if s.attributes["kafka.step"] == root_step)
    return [s.attributes["kafka.step"] for s in spans if s.context.trace_id == root.context.trace_id]


@pytest.mark.parametrize("case", CASES, ids=lambda f: f.__name__)
def test_every_reconfiguration_case_runs_traced(case: Callable[[], None], tracing: Any) -> None:
    case()
    assert not [s.name for s in kv(tracing) if "kafka.describe.error" in s.attributes]


def test_an_add_is_one_trace_add_apiv_voters_commit(tracing: Any) -> None:
    reconfig.test_add_voter()
    assert change(tracing, "KV.add") == ["KV.add", "KV.apiv", "KV.voters", "KV.commit"]
    commit = next(s for s in kv(tracing) if s.attributes["kafka.step"] == "KV.commit")
    assert commit.attributes["kafka.error"] == "NONE" and commit.attributes["kafka.raft.voters.change"] == "add"


def test_a_remove_of_the_leader_is_one_trace_and_asks_it_to_resign(tracing: Any) -> None:
    reconfig.test_remove_voter_is_leader()
    assert change(tracing, "KV.remove") == ["KV.remove", "KV.voters", "KV.commit"]
    commit = next(s for s in kv(tracing) if s.attributes["kafka.step"] == "KV.commit")
    assert commit.attributes["kafka.raft.resign_requested"] is True
