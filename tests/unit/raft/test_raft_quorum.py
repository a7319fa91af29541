"""Check-quorum, DescribeQuorum, lazy listener registration and an observer (a broker), on three voters."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.raft.raft.leader_and_epoch import LeaderAndEpoch
from tests.integration.helpers import wait_until
from tests.unit.raft.raft_cluster import RaftCluster, RaftNode, RecordingListener, send_raw

METADATA = TopicPartition("__cluster_metadata", 0)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[RaftCluster]:
    c = RaftCluster(tmp_path)
    try:
        yield c.start()
    finally:
        c.stop()


@pytest.fixture
def steady_cluster(tmp_path: Path) -> Iterator[RaftCluster]:
    """Three voters that keep their leader through a busy machine's pauses: with the 600 ms fetch timeout above, a
    follower starved of CPU for that long starts an election, and a test about one epoch's appends fails for it."""
    c = RaftCluster(tmp_path, **{"controller.quorum.election.timeout.ms": 1000,
                                 "controller.quorum.fetch.timeout.ms": 5000})
    try:
        yield c.start()
    finally:
        c.stop()


def test_a_leader_cut_off_from_its_voters_resigns_after_one_and_a_half_fetch_timeouts(cluster: RaftCluster) -> None:
    leader = wait_until(cluster.stable_leader, 20, "a leader")
    epoch = leader.client.quorum.epoch()
    leader.isolate()
    # check-quorum: no Fetch from a majority within 1.5 x 600 ms, and it gives the epoch up on its own
    wait_until(lambda: not leader.client.quorum.is_leader(), 10, "the cut-off leader stepping down")
    successor = wait_until(lambda: next((n for n in cluster.live() if n is not leader and n.is_leader()), None), 20,
                           "a leader among the other two")
    assert successor.client.quorum.epoch() > epoch


def test_describe_quorum_is_answered_by_the_leader(cluster: RaftCluster) -> None:
    leader = wait_until(cluster.stable_leader, 20, "a leader")
    leader.append(["x"])
    wait_until(lambda: all(n.listener.records() == ["x"] for n in cluster.nodes), 10, "x everywhere")
    request = build(ApiKeys.DESCRIBE_QUORUM.request_schema(2), topics=[{"topic_name": METADATA.topic,
                                                                        "partitions": [{"partition_index": 0}]}])
    # every voter's fetch offset reported (an answer of a moment with no leader has no voters)
    wait_until(lambda: {v.log_end_offset for v in _describe(leader.port, request).current_voters}
               == {leader.client.log_end_offset()}, 10, "the followers' fetch offsets reported")
    partition = _describe(leader.port, request)
    assert (partition.error_code, partition.leader_id, partition.leader_epoch) == (
        Errors.NONE, leader.node_id, leader.client.quorum.epoch())
    assert partition.high_watermark == leader.client.high_watermark()
    assert sorted(v.replica_id for v in partition.current_voters) == [0, 1, 2]
    assert {v.log_end_offset for v in partition.current_voters} == {leader.client.log_end_offset()}
    follower = next(n for n in cluster.nodes if n is not leader)
    assert _describe(follower.port, request).error_code == Errors.NOT_LEADER_OR_FOLLOWER


def _describe(port: int, request: object) -> object:
    return send_raw(port, ApiKeys.DESCRIBE_QUORUM, 2, request).topics[0].partitions[0]


def test_a_listener_registered_late_reads_from_the_start(cluster: RaftCluster) -> None:
    leader = wait_until(cluster.stable_leader, 20, "a leader")
    leader.append(["one", "two"])
    follower = next(n for n in cluster.nodes if n is not leader)
    wait_until(lambda: follower.listener.records() == ["one", "two"], 10, "committed on a follower")
    late = RecordingListener(follower.quorum_state_file)
    follower.manager.register(late)  # attached on the raft thread's next poll
    wait_until(lambda: late.records() == ["one", "two"], 10, "the late listener caught up from offset 0")
    wait_until(lambda: [le for le, _ in late.leader_changes] == [LeaderAndEpoch(leader.node_id,
                                                                               leader.client.quorum.epoch())],
               10, "the late listener told the current leader")
    follower.client.unregister(late)
    leader.append(["three"])
    wait_until(lambda: follower.listener.records() == ["one", "two", "three"], 10, "three committed")
    wait_until(lambda: not any(c.listener is late for c in follower.client.listener_contexts.values()), 10,
               "the unregistration applied")
    assert late.records() == ["one", "two"]


def test_an_observer_follows_the_leader_without_voting(cluster: RaftCluster, tmp_path: Path) -> None:
    leader = wait_until(cluster.stable_leader, 20, "a leader")
    from kafka_edu.cluster_runner.processes import free_port
    observer = RaftNode(10, leader.voters, free_port(), tmp_path / "observer", process_roles=["broker"]).start()
    try:
        assert observer.client.quorum.is_observer()
        leader.append(["seen-by-the-broker"])
        wait_until(lambda: observer.listener.records() == ["seen-by-the-broker"], 20, "the observer replicating")
        assert observer.client.leader_and_epoch() == LeaderAndEpoch(leader.node_id, leader.client.quorum.epoch())
        assert 10 not in leader.client.quorum.leader_state_or_throw().voter_states
        assert any(k.id == 10 for k in leader.client.quorum.leader_state_or_throw().observer_states(0))
        assert observer.role() == "Follower"
    finally:
        observer.kill()


def test_prepared_appends_wait_for_schedule_and_only_a_leader_appends(steady_cluster: RaftCluster) -> None:
    from kafka_edu.v3_9.raft.raft.errors import NotLeaderException
    cluster = steady_cluster
    leader = wait_until(cluster.stable_leader, 20, "a leader")
    epoch = leader.client.quorum.epoch()
    follower = next(n for n in cluster.nodes if n is not leader)
    with pytest.raises(NotLeaderException):
        follower.client.prepare_append(epoch, ["nope"])
    with pytest.raises(NotLeaderException):
        leader.client.prepare_append(epoch - 1, ["stale epoch"])
    end_before = leader.client.log_end_offset()
    last = leader.client.prepare_append(epoch, ["held", "back"])
    assert last == end_before + 1  # the offset its last record will get
    # prepared but not scheduled: a poll cycle passes (a follower's long poll completes) and nothing is appended
    fetches = sum(1 for api, _ in leader.server.received if api == ApiKeys.FETCH)
    wait_until(lambda: sum(1 for api, _ in leader.server.received if api == ApiKeys.FETCH) >= fetches + 4, 10,
               "more long polls")
    assert leader.client.log_end_offset() == end_before
    leader.client.schedule_prepared_append()
    wait_until(lambda: all(n.listener.records() == ["held", "back"] for n in cluster.nodes), 10, "both committed")
    assert leader.client.schedule_atomic_append(epoch, ["atomic"]) == last + 1
    wait_until(lambda: leader.listener.records() == ["held", "back", "atomic"], 10, "the atomic append")
