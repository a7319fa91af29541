"""The KR acceptance on real processes: `check_trace.py --require KR` passes on a KRaft run (three controllers, three
brokers) in which the active controller and a broker are killed with -9. Every KR row has its span or event, and each
trace runs its steps in FIDELITY's order: a server's startup holds no Raft role change and no event queue's work, an
election holds no listener's reaction to it (the QuorumController's is a trace of its own, linked to the election),
a broker's fencing is the active controller's deferred event."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.tracing.query import Spans, load_run
from tests.integration.helpers import REPO, wait_until

CHECK_TRACE = REPO.parent / "shared" / "acceptance" / "check_trace.py"
SESSION_TIMEOUT_MS = 4000
OVERRIDES = [f"broker.session.timeout.ms={SESSION_TIMEOUT_MS}", "broker.heartbeat.interval.ms=1000"]
ELECTION_DEADLINE_S = 40  # the fetch timeout (2 s), a split vote or two, and a loaded machine
_ENQUEUE = "KafkaEventQueue.enqueue"


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[ClusterRunner]:
    runner = ClusterRunner.up(3, tmp_path / "traces", mode="kraft", controllers=3, timeout_s=120, overrides=OVERRIDES)
    try:
        yield runner
    finally:
        if runner.run.read_manifest().get("stopped_at") is None:
            runner.down()


def check_trace(run_dir: Path, *required: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(CHECK_TRACE), str(run_dir),
                           *[arg for row in required for arg in ("--require", row)]],
                          capture_output=True, text=True, timeout=300)


def fenced_by(spans: Spans, controller_id: int, broker_id: int) -> bool:
    return any(s.attributes.get("kafka.broker.id") == broker_id
               for s in spans.where(step="KR.fence", instance=f"controller-{controller_id}"))


@pytest.mark.skipif(not CHECK_TRACE.exists(), reason="shared/acceptance/check_trace.py is not in this checkout")
def test_check_trace_requires_kr_on_a_run_with_a_controller_failover_and_a_broker_killed(
        cluster: ClusterRunner) -> None:
    runner = cluster
    leader = runner.wait_for_quorum(30)
    epoch = runner.entry(leader)["epoch"]

    # kill -9 of the active controller: the other two elect a new one in a later epoch
    runner.kill(leader)
    new_leader = runner.wait_for_quorum(ELECTION_DEADLINE_S)
    new_epoch = runner.entry(new_leader)["epoch"]
    assert new_leader != leader and new_epoch > epoch

    # kill -9 of a broker: the new active controller fences it after the session timeout (KR.fence)
    broker = 6
    runner.kill(broker)
    wait_until(lambda: fenced_by(load_run(runner.run.path), new_leader, broker), SESSION_TIMEOUT_MS / 1000 + 30,
               f"broker {broker} fenced by controller {new_leader}")
    runner.down()

    done = check_trace(runner.run.path, "KR", "KR.fence")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().endswith("trace contract: OK")

    # Where the stories split. The new leader's election is one trace with no queue work in it...
    spans = load_run(runner.run.path)
    candidacy = next(s for s in spans.where(instance=f"controller-{new_leader}")
                     if any(e.name == "raft.role.change" and e.attributes["kafka.raft.role.to"] == "Candidate"
                            and e.attributes["kafka.raft.epoch"] == new_epoch for e in s.events))
    election = spans.where(trace_id=candidacy.trace_id)
    assert "KafkaRaftClient.maybeSendVoteRequests" in {s.name for s in election}
    assert not election.where(step="KR.queue")
    # ...and its QuorumController's reaction (claim, then activation) is a trace of its own, linked to its election
    election_spans = {(s.trace_id, s.span_id) for s in spans if any(
        e.name == "raft.role.change" and e.attributes["kafka.raft.epoch"] == new_epoch for e in s.events)}
    told = [s for s in spans.where(name=_ENQUEUE, instance=f"controller-{new_leader}")
            if s.attributes["kafka.queue.event"] == f"handleLeaderChange[{new_epoch}]"]
    assert told and all(not s.parent_id for s in told)
    assert any(set(s.links) & election_spans for s in told)
    claims = spans.where(name="QuorumController.claim", instance=f"controller-{new_leader}")
    assert {c.trace_id for c in claims} & {s.trace_id for s in told}
    # A broker's startup holds its lifecycle, not the Raft client's role change nor its queues' events: those are
    # traces of their own, linked to it.
    for broker_id in (4, 5, 6):
        startup = spans.where(step="KR.broker", instance=f"broker-{broker_id}").first()
        in_startup = spans.where(trace_id=startup.trace_id)
        assert not in_startup.where(step="KR.queue") and not in_startup.with_event("raft.role.change")
        registration = spans.where(name="BrokerLifecycleManager.sendBrokerRegistration",
                                   instance=f"broker-{broker_id}").first()
        started = spans.where(trace_id=registration.trace_id, name=_ENQUEUE).first()
        assert (startup.trace_id, startup.span_id) in started.links
