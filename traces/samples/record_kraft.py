"""Record the KRaft sample run the trace-mining jobs, their tests and docs read (`traces/samples/mining-kraft/`).

    .venv/bin/python traces/samples/record_kraft.py

Three controllers (Kafka 3.9, no brokers). Once they agree on a leader: kill -9 of the leader; the two others elect
a new one; the killed voter is started again and catches up. Then a voter that is not the leader is paused (SIGSTOP)
for longer than its fetch timeout and resumed: in 3.9 (no pre-vote) it wakes up as a candidate in a higher epoch,
deposes the healthy leader, cannot win with its stale log, and another voter is elected. Whether the sleeper wakes
to its timer or to a queued Fetch answer first is a race, so the pause is tried up to three times. Then the cluster
is stopped.

The request path is not traced (`KAFKA_EDU_TRACING=off`, as for `record.py`'s failover sample): the Raft spans,
the election traces among them, are lifecycle spans and stay. As `record.py` does for the ZooKeeper samples, only
the span files, exit records and manifest are kept (no metadata logs, no process logs, no span-start files).
The manifest also gets `faults`: each fault done, on which node and when (wall clock, ns), which the traces cannot
say (a kill -9 leaves no span); `kafka-edu mine failover-timeline` and `raft-elections` show them.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.tracing.provider import TRACING_ENV
from kafka_edu.tracing.query import load_run

SAMPLES = Path(__file__).resolve().parent
NAME = "mining-kraft"
KEPT = ("*.jsonl", "*.exit.json", "manifest.json")
SKIPPED = ".starts.jsonl"
FETCH_TIMEOUT_MS = 2000  # 3.9's default controller.quorum.fetch.timeout.ms
ELECTION_DEADLINE_S = 30


def wait(condition: Callable[[], object], what: str, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        time.sleep(0.2)


def role_changes(run_dir: Path) -> list[tuple[str, str, int]]:
    """(node, role to, epoch) of every raft.role.change so far."""
    return [(s.instance, e.attributes["kafka.raft.role.to"], e.attributes["kafka.raft.epoch"])
            for s in load_run(run_dir) for e in s.events if e.name == "raft.role.change"]


def kill_the_leader(runner: ClusterRunner, faults: list[dict[str, Any]]) -> None:
    leader = runner.wait_for_quorum(ELECTION_DEADLINE_S)
    epoch = runner.entry(leader)["epoch"]
    time.sleep(1.5)  # a few idle NoOp commits first, so the followers' fetches say the leader was alive
    faults.append({"fault": "kill -9", "node": leader, "role": "Leader", "epoch": epoch, "time_ns": time.time_ns()})
    runner.kill(leader)
    new_leader = runner.wait_for_quorum(ELECTION_DEADLINE_S)
    assert new_leader != leader and runner.entry(new_leader)["epoch"] > epoch
    faults.append({"fault": "start", "node": leader, "time_ns": time.time_ns()})
    runner.start(leader)
    wait(lambda: runner.raft_state(leader)[0] == "Follower", "the killed voter to follow again", ELECTION_DEADLINE_S)
    runner.wait_for_quorum(ELECTION_DEADLINE_S)


def pause_a_voter(runner: ClusterRunner, faults: list[dict[str, Any]]) -> None:
    for _attempt in range(3):
        leader = runner.wait_for_quorum(ELECTION_DEADLINE_S)
        epoch = runner.entry(leader)["epoch"]
        sleeper = next(n for n in (1, 2, 3) if n != leader)
        faults.append({"fault": "pause", "node": sleeper, "role": "Follower", "epoch": epoch,
                       "time_ns": time.time_ns()})
        runner.pause(sleeper)
        time.sleep((FETCH_TIMEOUT_MS + 1500) / 1000)  # the fault itself: a pause longer than the fetch timeout
        faults.append({"fault": "resume", "node": sleeper, "time_ns": time.time_ns()})
        runner.resume(sleeper)
        runner._update_entry(sleeper, state="Follower")
        deadline = time.monotonic() + FETCH_TIMEOUT_MS / 1000 + 3
        while time.monotonic() < deadline and not [c for c in role_changes(runner.run.path) if c[2] > epoch]:
            time.sleep(0.2)
        runner.wait_for_quorum(ELECTION_DEADLINE_S)
        later = [c for c in role_changes(runner.run.path) if c[2] > epoch]
        if any(node == f"controller-{sleeper}" and to == "Candidate" for node, to, _ in later):
            return
    raise RuntimeError("in three pauses past the fetch timeout the sleeping voter never woke up as a candidate")


def record() -> Path:
    faults: list[dict[str, Any]] = []
    os.environ[TRACING_ENV] = "off"  # the Raft spans stay; the request path of every Raft RPC would be 15 MB
    with tempfile.TemporaryDirectory() as scratch:
        runner = ClusterRunner.up(0, Path(scratch), mode="kraft", controllers=3, timeout_s=60)
        try:
            kill_the_leader(runner, faults)
            pause_a_voter(runner, faults)
            time.sleep(1.0)
        finally:
            for entry in runner.run.read_manifest()["processes"]:  # a voter left paused would not stop
                if entry.get("pid") and entry.get("state") == "paused":
                    os.kill(entry["pid"], signal.SIGCONT)
            runner.down()
        target = SAMPLES / NAME
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir()
        for pattern in KEPT:
            for path in runner.run.path.glob(pattern):
                if not path.name.endswith(SKIPPED):
                    shutil.copy(path, target / path.name)
        manifest = json.loads((target / "manifest.json").read_text())
        manifest["run_dir"] = f"traces/samples/{NAME}"  # the scratch path means nothing once copied
        manifest["faults"] = faults
        (target / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return target


if __name__ == "__main__":
    path = record()
    size = sum(p.stat().st_size for p in path.iterdir())
    print(f"{NAME}: {path} ({size // 1024} KB)")
