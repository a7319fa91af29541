"""Three raft voters as real processes on 127.0.0.1, each with its span files: kill -9 the leader and a new one is
elected in a later epoch, nothing committed is lost, and the first election is one trace across three files.

Run as `python -m tests.integration.test_raft_processes node ...`, this file is also the voter process: a
KafkaRaftManager behind the test CONTROLLER server of tests/unit/raft/raft_cluster.py, tracing to the run directory,
which writes what it knows to status-<id>.json and, whenever it becomes leader, appends one record naming itself.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kafka_edu.cluster_runner.processes import free_port
from tests.integration.helpers import wait_until

REPO = Path(__file__).resolve().parents[2]


class VoterProcess:
    def __init__(self, node_id: int, voters: str, port: int, root: Path) -> None:
        self.node_id, self.voters, self.port, self.root = node_id, voters, port, root
        self.process: subprocess.Popen | None = None

    def start(self) -> VoterProcess:
        log = open(self.root / f"voter-{self.node_id}.log", "ab")  # noqa: SIM115 (kept by the process)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.integration.test_raft_processes", "node", str(self.node_id), self.voters,
             str(self.port), str(self.root / f"voter-{self.node_id}"), str(self.root / "run")],
            cwd=REPO, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "KAFKA_EDU_TRACING_STRICT": "1"})
        return self

    def status(self) -> dict[str, Any] | None:
        try:
            return json.loads((self.root / "run" / f"status-{self.node_id}.json").read_text())
        except (OSError, ValueError):
            return None

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        if self.alive():
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)


@pytest.fixture
def voters(tmp_path: Path) -> Iterator[list[VoterProcess]]:
    (tmp_path / "run").mkdir()
    ports = [free_port() for _ in range(3)]
    spec = ",".join(f"{i}@127.0.0.1:{port}" for i, port in enumerate(ports))
    processes = [VoterProcess(i, spec, port, tmp_path).start() for i, port in enumerate(ports)]
    try:
        yield processes
    finally:
        for p in processes:
            p.kill()


def stable_leader(voters: list[VoterProcess]) -> tuple[int, int] | None:
    """(leader, epoch) once every live voter agrees on it and the leader's record of that epoch is committed."""
    statuses = [v.status() for v in voters if v.alive()]
    if not statuses or any(s is None for s in statuses):
        return None
    views = {(s["leader"], s["epoch"]) for s in statuses}
    if len(views) != 1:
        return None
    leader, epoch = views.pop()
    marker = f"leader-{leader}-epoch-{epoch}"
    if leader < 0 or not all(marker in s["records"] for s in statuses):
        return None
    return leader, epoch


def spans_of(run: Path) -> list[dict[str, Any]]:
    spans = []
    for file in run.glob("controller-*.jsonl"):
        if ".starts." in file.name:
            continue
        for line in file.read_text().splitlines():
            if not line.strip():
                continue
            for resource_spans in json.loads(line).get("resourceSpans", []):
                instance = next(a["value"]["stringValue"] for a in resource_spans["resource"]["attributes"]
                                if a["key"] == "service.instance.id")
                for scope_spans in resource_spans.get("scopeSpans", []):
                    for span in scope_spans.get("spans", []):
                        span["instance"] = instance
                        spans.append(span)
    return spans


def test_kill_the_leader_and_a_later_epoch_has_a_new_one_with_nothing_committed_lost(
        voters: list[VoterProcess], tmp_path: Path) -> None:
    leader, epoch = wait_until(lambda: stable_leader(voters), 60, "a leader every voter follows")
    first_record = f"leader-{leader}-epoch-{epoch}"
    voters[leader].kill()
    new_leader, new_epoch = wait_until(lambda: (found := stable_leader(voters)) and found[0] != leader and found, 60,
                                       "a new leader after the kill")
    assert new_leader != leader and new_epoch > epoch
    for voter in voters:
        if voter.alive():
            records = voter.status()["records"]
            assert first_record in records and f"leader-{new_leader}-epoch-{new_epoch}" in records
            assert records.index(first_record) < records.index(f"leader-{new_leader}-epoch-{new_epoch}")

    # the first election in the span files: the winner's vote round, and the others' handling of it as its children
    run = tmp_path / "run"

    def vote_round() -> dict[str, Any] | None:
        return next((s for s in spans_of(run) if s["name"] == "KafkaRaftClient.maybeSendVoteRequests"
                     and s["instance"] == f"controller-{leader}"
                     and _attr(s, "kafka.raft.vote.candidate_epoch") == epoch), None)

    sent = wait_until(vote_round, 10, "the winner's vote round on disk")
    handled = [s for s in spans_of(run) if s["name"] == "KafkaRaftClient.handleVoteRequest"
               and s["parentSpanId"] == sent["spanId"]]
    assert handled and all(s["traceId"] == sent["traceId"] and s["instance"] != f"controller-{leader}"
                           for s in handled)
    assert all(_attr(s, "kafka.raft.vote.reason") for s in handled)


def _attr(span: dict[str, Any], key: str) -> Any:
    for a in span.get("attributes", []):
        if a["key"] == key:
            value = a["value"]
            return int(value["intValue"]) if "intValue" in value else next(iter(value.values()))
    return None


# -- the voter process --------------------------------------------------------------------------------------------

def _node_main(node_id: int, voters: str, port: int, log_dir: Path, run_dir: Path) -> None:
    from kafka_edu.tracing import setup_tracing
    from kafka_edu.v1_0_2.core.utils.kafka_logging import configure_logging
    from kafka_edu.v3_9.raft.raft.errors import NotLeaderException
    from tests.unit.raft.raft_cluster import RaftNode

    configure_logging()
    setup_tracing(f"controller-{node_id}", "raft-processes", mode="kraft", run_dir=run_dir)
    node = RaftNode(node_id, voters, port, log_dir, **{"controller.quorum.election.timeout.ms": 500,
                                                       "controller.quorum.fetch.timeout.ms": 1000}).start()
    status_file = run_dir / f"status-{node_id}.json"
    appended: set[int] = set()
    while True:  # this process's own loop, not a test's wait: it reports what it knows, 20 times a second
        leader_and_epoch = node.client.leader_and_epoch()
        if (leader_and_epoch.leader_id == node_id and leader_and_epoch.epoch not in appended
                and node.client.high_watermark() is not None):
            try:
                node.append([f"leader-{node_id}-epoch-{leader_and_epoch.epoch}"])
                appended.add(leader_and_epoch.epoch)
            except NotLeaderException:
                pass
        status = {"leader": leader_and_epoch.leader_id if leader_and_epoch.leader_id is not None else -1,
                  "epoch": leader_and_epoch.epoch, "role": node.role(), "records": node.listener.records()}
        temp = status_file.with_suffix(".tmp")
        temp.write_text(json.dumps(status))
        os.replace(temp, status_file)
        time.sleep(0.05)


if __name__ == "__main__" and len(sys.argv) == 7 and sys.argv[1] == "node":
    _node_main(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), Path(sys.argv[5]), Path(sys.argv[6]))
