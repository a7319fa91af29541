"""KRaft part 1 on real processes: `cluster up --mode kraft` starts three Kafka 3.9 controllers
(KafkaRaftServer with process.roles=controller). They elect one leader per epoch. A broker registration and a topic
are committed through the real ControllerApis; kill -9 of the leader gives a new leader in a later epoch that knows
both; the tools read it; the trace holds the KR rows."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kafka_edu.cluster_runner.processes import free_port
from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.tracing.query import load_run
from kafka_edu.v1_0_2.core.network.blocking_channel import BlockingChannel
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from tests.integration.helpers import REPO, request_to, wait_until

CHECK_TRACE = REPO.parent / "shared" / "acceptance" / "check_trace.py"
FETCH_TIMEOUT_MS = 2000  # 3.9's defaults: the election timeout 1000 ms, its backoff up to 1000 ms
BROKER_SESSION_TIMEOUT_MS = 3000
ELECTION_DEADLINE_S = (FETCH_TIMEOUT_MS + 2 * 1000 + 1000) / 1000 + 10  # a split vote or two, and a loaded machine


@pytest.fixture
def quorum(tmp_path: Path) -> Iterator[ClusterRunner]:
    # a short broker session, so that the broker this test registers and then stops heartbeating is fenced soon
    runner = ClusterRunner.up(0, tmp_path / "traces", mode="kraft", controllers=3, timeout_s=60,
                              overrides=[f"broker.session.timeout.ms={BROKER_SESSION_TIMEOUT_MS}"])
    try:
        yield runner
    finally:
        runner.down()


def send(runner: ClusterRunner, node_id: int, api: ApiKeys, version: int, **fields: Any) -> Any:
    return request_to(runner.entry(node_id)["port"], api, version, timeout_s=15, **fields)


def broker_registration(runner: ClusterRunner, node_id: int, broker_id: int, cluster_id: str) -> Any:
    return send(runner, node_id, ApiKeys.BROKER_REGISTRATION, 4, broker_id=broker_id, cluster_id=cluster_id,
                incarnation_id=uuid.uuid4(), rack=None, is_migrating_zk_broker=False, log_dirs=[uuid.uuid4()],
                previous_broker_epoch=-1,
                listeners=[{"name": "PLAINTEXT", "host": "127.0.0.1", "port": 19092, "security_protocol": 0}],
                features=[{"name": "metadata.version", "min_supported_version": 1, "max_supported_version": 21}])


def register_broker(runner: ClusterRunner, leader: int, broker_id: int, cluster_id: str) -> int:
    """The broker epoch, once the Raft leader's QuorumController has become active (until then it answers
    NOT_CONTROLLER, and a broker tries again, as this does)."""
    response = wait_until(lambda: (r := broker_registration(runner, leader, broker_id, cluster_id)).error_code
                          != Errors.NOT_CONTROLLER and r, 30, f"controller {leader} to be active")
    assert response.error_code == Errors.NONE, response
    return response.broker_epoch


def heartbeat(runner: ClusterRunner, leader: int, broker_id: int, epoch: int, offset: int) -> Any:
    return send(runner, leader, ApiKeys.BROKER_HEARTBEAT, 1, broker_id=broker_id, broker_epoch=epoch,
                current_metadata_offset=offset, want_fence=False, want_shut_down=False, offline_log_dirs=[])


def create_topic(runner: ClusterRunner, node_id: int, name: str) -> Any:
    response = send(runner, node_id, ApiKeys.CREATE_TOPICS, 7, timeout=10_000, validate_only=False,
                    topics=[{"name": name, "num_partitions": 3, "replication_factor": 1, "assignments": [],
                             "configs": []}])
    return response.topics[0]


def metadata_log(runner: ClusterRunner, node_id: int) -> str:
    """What kafka-dump-log prints for a voter's metadata log."""
    segments = sorted((runner.run.path / f"controller-{node_id}" / "logs" / "__cluster_metadata-0").glob("*.log"))
    done = subprocess.run([sys.executable, "-m", "kafka_edu.cli", "dump-log", "--cluster-metadata-decoder",
                           *map(str, segments)], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert done.returncode == 0, done.stderr
    return done.stdout


def leaders_by_epoch(run_dir: Path) -> dict[int, set[str]]:
    leaders: dict[int, set[str]] = defaultdict(set)
    for s in load_run(run_dir):
        for e in s.events:
            if e.name == "raft.role.change" and e.attributes["kafka.raft.role.to"] == "Leader":
                leaders[e.attributes["kafka.raft.epoch"]].add(s.resource["service.instance.id"])
    return leaders


def test_three_controllers_commit_fail_over_and_keep_every_committed_record(quorum: ClusterRunner) -> None:
    runner = quorum
    manifest = runner.run.read_manifest()
    leader = runner.wait_for_quorum(30)
    epoch = runner.entry(leader)["epoch"]

    # A voter that is not the active controller answers NOT_CONTROLLER, and keeps the connection open for more.
    follower = next(p["id"] for p in manifest["processes"] if p["role"] == "controller" and p["id"] != leader)
    channel = BlockingChannel("127.0.0.1", runner.entry(follower)["port"], 15, "kafka-edu-test")
    try:
        for api, version, fields in [
                (ApiKeys.BROKER_REGISTRATION, 4, dict(
                    broker_id=9, cluster_id=manifest["cluster_id"], incarnation_id=uuid.uuid4(), rack=None,
                    is_migrating_zk_broker=False, log_dirs=[uuid.uuid4()], previous_broker_epoch=-1, listeners=[],
                    features=[])),
                (ApiKeys.BROKER_HEARTBEAT, 1, dict(broker_id=9, broker_epoch=0, current_metadata_offset=0,
                                                   want_fence=False, want_shut_down=False, offline_log_dirs=[]))]:
            answer = channel.send_and_receive(api, version, build(api.request_schema(version), **fields))
            assert answer.error_code == Errors.NOT_CONTROLLER, (api, answer)
    finally:
        channel.disconnect()

    # A broker registers (RegisterBrokerRecord, fenced) and is unfenced once its heartbeat says it has caught up
    # with its own registration; then a topic can be placed on it. Each answer comes after the commit.
    broker_epoch = register_broker(runner, leader, 4, manifest["cluster_id"])
    unfenced = wait_until(lambda: not (r := heartbeat(runner, leader, 4, broker_epoch, 10**9)).is_fenced and r,
                          30, "the registered broker to be unfenced")
    assert unfenced.error_code == Errors.NONE
    topic = create_topic(runner, leader, "orders")
    assert topic.error_code == Errors.NONE, topic
    assert create_topic(runner, leader, "orders").error_code == Errors.TOPIC_ALREADY_EXISTS

    # kill -9 of the leader: the survivors elect a new one in a later epoch
    runner.kill(leader)
    killed_at = time.monotonic()
    new_leader = runner.wait_for_quorum(ELECTION_DEADLINE_S)
    elapsed = time.monotonic() - killed_at
    new_epoch = runner.entry(new_leader)["epoch"]
    assert new_leader != leader and new_epoch > epoch
    # the manifest keeps when the fault was done (a kill -9 leaves no span): the mining timelines start from it
    assert [(f["fault"], f["node"]) for f in runner.run.read_manifest()["faults"]] == [("kill -9", leader)]
    print(f"kill -9 of leader {leader} (epoch {epoch}) -> leader {new_leader} in epoch {new_epoch} after "
          f"{elapsed:.1f} s")

    # The new leader replayed what was committed before the kill: the topic exists there, and every survivor's
    # metadata log has both records.
    assert create_topic(runner, new_leader, "orders").error_code == Errors.TOPIC_ALREADY_EXISTS
    survivors = [n for n in (1, 2, 3) if n != leader]
    for node_id in survivors:
        printed = metadata_log(runner, node_id)
        assert '"type":"REGISTER_BROKER_RECORD"' in printed and '"brokerId":4' in printed, node_id
        assert '"type":"TOPIC_RECORD"' in printed and '"name":"orders"' in printed, node_id

    # The killed voter comes back and catches up; then a graceful stop of the leader: it resigns (EndQuorumEpoch,
    # successors most caught up first) and the other two elect again
    runner.start(leader)
    runner.wait_for_quorum(ELECTION_DEADLINE_S)
    wait_until(lambda: '"name":"orders"' in metadata_log(runner, leader), 30, "the restarted voter to catch up")
    new_leader = runner.wait_for_quorum(5)
    new_epoch = runner.entry(new_leader)["epoch"]
    runner.stop(new_leader)
    third = runner.wait_for_quorum(ELECTION_DEADLINE_S)
    assert third != new_leader and runner.entry(third)["epoch"] > new_epoch

    # kafka-metadata-quorum against the live voter
    status = subprocess.run([sys.executable, "-m", "kafka_edu.cli", "metadata-quorum", "--bootstrap-controller",
                             manifest["bootstrap_controllers"], "describe", "--status"], capture_output=True,
                            text=True, timeout=60, cwd=REPO)
    assert status.returncode == 0, status.stderr
    assert f"ClusterId:              {manifest['cluster_id']}" in status.stdout
    assert f"LeaderId:               {third}" in status.stdout

    # The broker stopped heartbeating long ago: the active controller's deferred fencing event fences it
    # (BrokerRegistrationChangeRecord fenced=1) and moves its leaderships (PartitionChangeRecord, no leader left)
    fenced = wait_until(lambda: (log := metadata_log(runner, third)) and '"type":"BROKER_REGISTRATION_CHANGE_RECORD"'
                        in log and '"fenced":1' in log and log, BROKER_SESSION_TIMEOUT_MS / 1000 + 30,
                        "the silent broker to be fenced")
    assert '"type":"PARTITION_CHANGE_RECORD"' in fenced

    # One leader per epoch, ever; and the trace contract holds for the KR rows of part 1
    for elected_epoch, nodes in leaders_by_epoch(runner.run.path).items():
        assert len(nodes) == 1, f"epoch {elected_epoch} had leaders {nodes}"
    if CHECK_TRACE.exists():
        rows = ["KR.build", "KR.server", "KR.controller", "KR.shared", "KR.driver", "KR.poll", "KR.role", "KR.vote",
                "KR.begin", "KR.fetch", "KR.end", "KR.apis", "KR.qc", "KR.queue", "KR.replay", "KR.storage",
                "KR.fence", "KR.listener"]
        check = subprocess.run([sys.executable, str(CHECK_TRACE), str(runner.run.path),
                                *[arg for row in rows for arg in ("--require", row)]],
                               capture_output=True, text=True, timeout=300)
        assert check.returncode == 0, check.stdout


def test_a_controller_refuses_an_unformatted_log_dir_with_one_line(tmp_path: Path) -> None:
    config = tmp_path / "controller.properties"
    config.write_text("process.roles=controller\nnode.id=1\ncontroller.listener.names=CONTROLLER\n"
                      "listeners=CONTROLLER://127.0.0.1:0\ncontroller.quorum.voters=1@127.0.0.1:9093\n"
                      f"log.dirs={tmp_path / 'logs'}\n")
    done = subprocess.run([sys.executable, "-m", "kafka_edu.cli", "server-start", str(config)], capture_output=True,
                          text=True, timeout=60, cwd=REPO, env={**os.environ,
                                                                "KAFKA_EDU_RUN_DIR": str(tmp_path / "run")})
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1].startswith("kafka-edu: ")
    assert "kafka-edu storage format" in done.stderr


def test_a_controller_not_among_the_voters_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "controller.properties"
    config.write_text("process.roles=controller\nnode.id=2\ncontroller.listener.names=CONTROLLER\n"
                      "listeners=CONTROLLER://127.0.0.1:0\ncontroller.quorum.voters=1@127.0.0.1:9093\n"
                      f"log.dirs={tmp_path / 'logs'}\n")
    done = subprocess.run([sys.executable, "-m", "kafka_edu.cli", "server-start", str(config)], capture_output=True,
                          text=True, timeout=60, cwd=REPO, env={**os.environ,
                                                                "KAFKA_EDU_RUN_DIR": str(tmp_path / "run")})
    assert done.returncode == 1
    assert "controller.quorum.voters" in done.stderr.strip().splitlines()[-1]
    json.dumps(done.stderr)  # one printable line


def role_changes(run_dir: Path) -> list[tuple[int, str, str, str, int]]:
    """(time, node, from, to, epoch) of every raft.role.change in the run, in time order."""
    changes = []
    for s in load_run(run_dir):
        for e in s.events:
            if e.name == "raft.role.change":
                a = e.attributes
                changes.append((getattr(e, "time_ns", s.start_ns), s.instance, a["kafka.raft.role.from"],
                                a["kafka.raft.role.to"], a["kafka.raft.epoch"]))
    return sorted(changes)


def test_a_paused_voter_that_wakes_up_deposes_the_leader_without_pre_vote(quorum: ClusterRunner) -> None:
    """3.9 has no pre-vote (KIP-996 comes in 4.0): a voter that slept past its fetch timeout wakes up as a candidate
    in a higher epoch, and its Vote moves every voter, the healthy leader too, to that epoch. Its log is behind, so
    it cannot win; another voter is elected later. (Whether the sleeper wakes up to its timer or to a queued Fetch
    answer first is a race, so the pause is tried up to three times.)"""
    runner = quorum
    for _attempt in range(3):
        leader = runner.wait_for_quorum(ELECTION_DEADLINE_S)
        epoch = runner.entry(leader)["epoch"]
        sleeper = next(n for n in (1, 2, 3) if n != leader)
        runner.pause(sleeper)
        time.sleep((FETCH_TIMEOUT_MS + 1500) / 1000)  # the fault itself: a pause longer than the fetch timeout
        runner.resume(sleeper)
        runner._update_entry(sleeper, state="Follower")
        # until a later epoch shows in the trace, or long enough that the sleeper surely went on following
        deadline = time.monotonic() + FETCH_TIMEOUT_MS / 1000 + 3
        while time.monotonic() < deadline and not [c for c in role_changes(runner.run.path) if c[4] > epoch]:
            time.sleep(0.2)
        changes = [c for c in role_changes(runner.run.path) if c[4] > epoch]
        woke_as_candidate = [c for c in changes if c[1] == f"controller-{sleeper}" and c[3] == "Candidate"]
        if not woke_as_candidate:
            continue  # it woke to a Fetch answer and simply went on following
        new_leader = runner.wait_for_quorum(ELECTION_DEADLINE_S)  # its states now come from the later epochs
        changes = [c for c in role_changes(runner.run.path) if c[4] > epoch]
        deposed = [c for c in changes if c[1] == f"controller-{leader}" and c[2] == "Leader"]
        assert deposed and deposed[0][4] == woke_as_candidate[0][4], "the healthy leader moved to the sleeper's epoch"
        winners = [c for c in changes if c[3] == "Leader"]
        assert winners and all(c[1] != f"controller-{sleeper}" for c in winners), "a voter with a stale log won"
        assert runner.entry(new_leader)["epoch"] > epoch
        return
    pytest.fail("in three pauses past the fetch timeout the sleeping voter never woke up as a candidate")


def single_voter(tmp_path: Path) -> Path:
    """A formatted one-controller quorum's properties file (it elects itself without a Vote)."""
    port = free_port()
    config = tmp_path / "controller.properties"
    config.write_text("process.roles=controller\nnode.id=1\ncontroller.listener.names=CONTROLLER\n"
                      f"listeners=CONTROLLER://127.0.0.1:{port}\ncontroller.quorum.voters=1@127.0.0.1:{port}\n"
                      f"log.dirs={tmp_path / 'logs'}\n")
    cluster_id = subprocess.run([sys.executable, "-m", "kafka_edu.cli", "storage", "random-uuid"],
                                capture_output=True, text=True, timeout=60, cwd=REPO).stdout.strip()
    formatted = subprocess.run([sys.executable, "-m", "kafka_edu.cli", "storage", "format", "--config", str(config),
                                "--cluster-id", cluster_id], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert formatted.returncode == 0, formatted.stderr
    return config


def server_start(config: Path, tmp_path: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "kafka_edu.cli", "server-start", str(config)], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "KAFKA_EDU_RUN_DIR": str(tmp_path / "run")})


def test_a_corrupt_quorum_state_stops_the_controller_with_one_line(tmp_path: Path) -> None:
    config = single_voter(tmp_path)
    state = tmp_path / "logs" / "__cluster_metadata-0" / "quorum-state"
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_text('{"leaderId":')
    process = server_start(config, tmp_path)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 1
    assert err.strip().splitlines()[-1].startswith("kafka-edu: ") and "quorum-state" in err


def test_a_torn_metadata_log_tail_is_cut_and_the_voter_comes_back(tmp_path: Path) -> None:
    config = single_voter(tmp_path)
    process = server_start(config, tmp_path)
    segment = tmp_path / "logs" / "__cluster_metadata-0" / "00000000000000000000.log"
    try:
        wait_until(lambda: segment.exists() and segment.stat().st_size > 500, 60, "a few NoOps in the metadata log")
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(10)
    good = segment.stat().st_size
    with open(segment, "ab") as f:  # half a batch: what a crash in the middle of a write leaves
        f.write(b"\x00\x00\x00\x00\x00\x00\x00\x63\x00\x00\x01\x00\xff\xff")
    process = server_start(config, tmp_path)
    try:
        # it recovers the log, elects itself in a new epoch and appends after the last whole batch
        wait_until(lambda: segment.stat().st_size > good + 200, 60, "appends after the recovered tail")
        done = subprocess.run([sys.executable, "-m", "kafka_edu.cli", "dump-log", "--cluster-metadata-decoder",
                               str(segment)], capture_output=True, text=True, timeout=60, cwd=REPO)
        assert done.returncode == 0 and "isvalid: false" not in done.stdout
        assert "controlType: LEADER_CHANGE(2)" in done.stdout
    finally:
        process.terminate()
        process.wait(60)


def test_a_second_controller_on_the_same_log_dir_is_refused(tmp_path: Path) -> None:
    config = single_voter(tmp_path)
    first = server_start(config, tmp_path)
    try:
        segment = tmp_path / "logs" / "__cluster_metadata-0" / "00000000000000000000.log"
        wait_until(lambda: segment.exists() and segment.stat().st_size > 0, 60, "the first controller to elect itself")
        # the same log dir on another port: the metadata dir's .lock refuses it (the port would refuse it first)
        other = tmp_path / "other.properties"
        other.write_text(re.sub(r"^listeners=.*$", f"listeners=CONTROLLER://127.0.0.1:{free_port()}",
                                config.read_text(), flags=re.M))
        second = server_start(other, tmp_path)
        _, err = second.communicate(timeout=60)
        assert second.returncode == 1 and "Failed to acquire lock" in err.strip().splitlines()[-1]
        assert first.poll() is None  # the first one goes on
    finally:
        first.terminate()
        first.wait(60)
