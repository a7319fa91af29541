"""KIP-853 traced (FIDELITY KV) on real processes: three Kafka 3.9 controllers formatted with `--initial-controllers`
and one broker. A fourth controller is added and the leader removed, as in test_kraft_dynamic_quorum; then a follower
comes back advertising its listener under another host name, so that it tells the leader with UpdateRaftVoter. The
run's traces must hold every KV row (check_trace.py --require KV), and each membership change must be one trace on
the active controller: KV.add -> KV.apiv -> KV.voters -> KV.commit, KV.remove -> KV.voters -> KV.commit.

3.9's follower sends UpdateRaftVoter only when its update period (3 x the fetch timeout) runs out while no request to
the leader is in flight: `pollFollowerAsVoter` tries once and resets the period whether it sent or not, and a
follower's Fetch is long-polled at the leader nearly all the time. So the test sends the follower's UpdateRaftVoter
itself, with what the follower would send: its id, directory id, new endpoint and kraft.version range."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.tracing.query import SpanRecord, Spans, load_run
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.raft.raft import raft_util
from tests.integration.helpers import request_to, wait_until

CHECK_TRACE = Path(__file__).resolve().parents[2].parent / "shared" / "acceptance" / "check_trace.py"


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[ClusterRunner]:
    runner = ClusterRunner.up(1, tmp_path / "traces", mode="kraft", controllers=3, dynamic_quorum=True, timeout_s=90)
    try:
        yield runner
    finally:
        runner.down()


def kv_spans(runner: ClusterRunner) -> Spans:
    return Spans(s for s in load_run(runner.run.path) if (s.step or "").startswith("KV."))


def change_trace(spans: Spans, root: SpanRecord) -> list[SpanRecord]:
    """The KV spans of the active controller in the trace `root` began, in start order."""
    return sorted((s for s in spans if s.trace_id == root.trace_id and s.instance == root.instance),
                  key=lambda s: s.start_ns)


def test_a_membership_change_is_one_trace_on_the_active_controller_and_every_kv_row_is_traced(
        cluster: ClusterRunner) -> None:
    first_leader = cluster.wait_for_quorum(60)
    added = cluster.add_controller(90)
    old_leader = cluster.wait_for_quorum(60)
    cluster.remove_controller(old_leader, 90)
    new_leader = cluster.wait_for_quorum(60)
    assert new_leader != old_leader

    # a follower moves to another advertised host name: on its next update period it sends UpdateRaftVoter
    follower = min(n for n in (1, 2, 3, added) if n not in (old_leader, new_leader))
    config = Path(cluster.entry(follower)["config"])
    cluster.stop(follower)
    config.write_text(config.read_text().replace("advertised.listeners=CONTROLLER://127.0.0.1:",
                                                 "advertised.listeners=CONTROLLER://localhost:"))
    cluster.start(follower)
    cluster.wait_for_quorum(60)
    entry = cluster.entry(follower)
    response = request_to(
        cluster.entry(new_leader)["port"], ApiKeys.UPDATE_RAFT_VOTER,
        raft_util.REQUEST_VERSIONS[ApiKeys.UPDATE_RAFT_VOTER], cluster_id=cluster.run.read_manifest()["cluster_id"],
        current_leader_epoch=cluster.raft_state(new_leader)[1], voter_id=follower,
        voter_directory_id=raft_util.kio_uuid(Uuid.from_string(entry["directory_id"])),
        listeners=[{"name": "CONTROLLER", "host": "localhost", "port": entry["port"]}],
        k_raft_version_feature={"min_supported_version": 0, "max_supported_version": 1})
    assert int(response.error_code) == 0, response

    def updated() -> bool:
        return any(s.attributes.get("kafka.raft.voter.id") == follower and s.attributes.get("kafka.error") == "NONE"
                   for s in kv_spans(cluster).where(step="KV.update"))
    wait_until(updated, 60, f"an UpdateRaftVoter from controller {follower} (KV.update) answered NONE")

    spans = kv_spans(cluster)
    assert not [s.name for s in spans if "kafka.describe.error" in s.attributes]

    # the add: one trace on the leader that took it, in FIDELITY's order
    add = next(s for s in spans.where(step="KV.add") if s.attributes.get("kafka.raft.voter.id") == added
               and s.attributes.get("kafka.raft.role") == "Leader"
               and any(c.trace_id == s.trace_id for c in spans.where(step="KV.commit")))
    assert add.instance == f"controller-{first_leader}"
    steps = [s.step for s in change_trace(spans, add)]
    assert steps == ["KV.add", "KV.apiv", "KV.voters", "KV.commit"], steps
    apiv, voters, commit = change_trace(spans, add)[1:]
    offset = apiv.attributes["kafka.raft.voters_record.offset"]
    assert voters.attributes["kafka.raft.voters.offset"] == offset
    assert added in voters.attributes["kafka.raft.voters"]
    assert commit.attributes["kafka.error"] == "NONE" and commit.attributes["kafka.raft.high_watermark"] > offset
    # every node applied the record when it appended it, the new voter and the broker too
    applied = {s.instance for s in spans.where(step="KV.voters") if s.attributes.get("kafka.raft.voters.offset")
               == offset and s.attributes.get("kafka.raft.voters.offset.before") != offset}
    assert {f"controller-{n}" for n in (1, 2, 3, added)} | {"broker-4"} <= applied

    # the remove: the same on the leader that removed itself, which asked to resign at commit
    # (the tool may ask a follower first: it answers NOT_LEADER_OR_FOLLOWER at once)
    remove = next(s for s in spans.where(step="KV.remove") if s.attributes.get("kafka.raft.voter.id") == old_leader
                  and s.instance == f"controller-{old_leader}")
    removal = change_trace(spans, remove)
    assert [s.step for s in removal] == ["KV.remove", "KV.voters", "KV.commit"]
    assert old_leader not in removal[1].attributes["kafka.raft.voters"]
    assert removal[2].attributes["kafka.raft.resign_requested"] is True

    # each voter's endpoint (`id@host:port`), for the TUI's voter table: the bootstrap set at start-up, the new
    # voter's own in the set that adds it, and the follower's new host name once UpdateRaftVoter wrote it
    def endpoint(node: int, host: str = "127.0.0.1") -> str:
        return f"{node}@{host}:{cluster.entry(node)['port']}"
    inits = [s for s in spans.where(step="KV.init") if s.instance in {f"controller-{n}" for n in (1, 2, 3)}
             and s.attributes.get("kafka.raft.voters") == [1, 2, 3]]
    assert inits and all(s.attributes["kafka.raft.voters.endpoints"] == [endpoint(n) for n in (1, 2, 3)]
                         for s in inits), [s.attributes.get("kafka.raft.voters.endpoints") for s in inits]
    assert voters.attributes["kafka.raft.voters.endpoints"] == [endpoint(n) for n in sorted((1, 2, 3, added))]
    assert any(endpoint(follower, "localhost") in s.attributes.get("kafka.raft.voters.endpoints", [])
               for s in spans.where(step="KV.voters")), f"no KV.voters names {endpoint(follower, 'localhost')}"

    # the other KV rows: the bootstrap checkpoint, start-up, the observer, the new leader's epoch start
    assert {s.instance for s in spans.where(step="KV.format")} == {f"storage-{n}" for n in (1, 2, 3)}
    assert any(s.instance == f"controller-{added}" for s in spans.where(step="KV.observe"))
    assert any(s.instance == f"controller-{new_leader}" for s in spans.where(step="KV.epoch"))

    if CHECK_TRACE.exists():
        done = subprocess.run([sys.executable, str(CHECK_TRACE), str(cluster.run.path), "--require", "KV"],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
