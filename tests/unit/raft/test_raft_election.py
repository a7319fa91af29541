"""Three KafkaRaftClients over real localhost sockets: elections, failover, replication (Kafka 3.9's raft)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_edu.cluster_runner.processes import free_port
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.raft.raft import raft_util
from kafka_edu.v3_9.raft.raft.file_quorum_state_store import QuorumStateReadError
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey
from tests.integration.helpers import wait_until
from tests.unit.raft.raft_cluster import CLUSTER_ID, RaftCluster, RaftNode, RaftTestServer, leaders_by_epoch, send_raw

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
    """Followers that wait 10 s for their leader: a loaded machine's pause starts no election mid-test."""
    c = RaftCluster(tmp_path, **{"controller.quorum.fetch.timeout.ms": 10_000})
    try:
        yield c.start()
    finally:
        c.stop()


def one_leader_per_epoch(cluster: RaftCluster) -> None:
    seen = leaders_by_epoch(cluster.nodes)
    assert all(len(leaders) == 1 for leaders in seen.values()), seen


def test_three_voters_elect_one_leader_that_the_others_follow(cluster: RaftCluster) -> None:
    leader = wait_until(cluster.stable_leader, 20, "a leader every voter follows")
    epoch = leader.client.quorum.epoch()
    assert [n.node_id for n in cluster.leaders()] == [leader.node_id]
    assert sorted(n.role() for n in cluster.nodes) == ["Follower", "Follower", "Leader"]
    # the new leader's first record is its LeaderChangeMessage, committed on every voter
    wait_until(lambda: all(n.listener.control_batches and n.listener.control_batches[-1][1] == epoch
                           for n in cluster.nodes), 30, "the LeaderChange batch on every voter")
    one_leader_per_epoch(cluster)


def test_quorum_state_is_on_disk_before_the_role_changes(cluster: RaftCluster) -> None:
    leader = wait_until(cluster.stable_leader, 20, "a leader")
    epoch = leader.client.quorum.epoch()
    wait_until(lambda: all(any(le.epoch == epoch and le.leader_id == leader.node_id
                               for le, _ in n.listener.leader_changes) for n in cluster.nodes),
               30, "every listener told of the leader")
    for node in cluster.nodes:
        for leader_and_epoch, on_disk in node.listener.leader_changes:
            # what the listener found on disk when told: the same epoch (or a later one), never an older
            state = json.loads(on_disk)
            assert state["data_version"] == 0 and state["leaderEpoch"] >= leader_and_epoch.epoch
            if leader_and_epoch.leader_id is not None and state["leaderEpoch"] == leader_and_epoch.epoch:
                assert state["leaderId"] == leader_and_epoch.leader_id
            assert state["currentVoters"] == [{"voterId": 0}, {"voterId": 1}, {"voterId": 2}]


def test_a_committed_record_survives_the_leader_and_reaches_every_live_voter(cluster: RaftCluster) -> None:
    leader = wait_until(cluster.stable_leader, 20, "a leader")
    epoch = leader.client.quorum.epoch()
    last = leader.append(["a", "b"])
    wait_until(lambda: all(n.listener.records() == ["a", "b"] for n in cluster.nodes), 30, "a and b everywhere")
    assert leader.client.high_watermark() > last
    leader.stop()  # graceful: it resigns and asks the others (EndQuorumEpoch) to elect now
    successor = wait_until(cluster.stable_leader, 20, "a new leader")
    assert successor.client.quorum.epoch() == epoch + 1
    successor.append(["c"])
    wait_until(lambda: all(n.listener.records() == ["a", "b", "c"] for n in cluster.live()), 30, "c on the live")
    one_leader_per_epoch(cluster)


def test_a_crashed_leader_is_replaced_after_the_fetch_timeout(cluster: RaftCluster) -> None:
    leader = wait_until(cluster.stable_leader, 20, "a leader")
    epoch = leader.client.quorum.epoch()
    leader.append(["before"])
    wait_until(lambda: all(n.listener.records() == ["before"] for n in cluster.nodes), 30, "the record everywhere")
    leader.kill()
    successor = wait_until(cluster.stable_leader, 20, "a new leader")
    assert successor.node_id != leader.node_id and successor.client.quorum.epoch() > epoch
    successor.append(["after"])
    wait_until(lambda: all(n.listener.records() == ["before", "after"] for n in cluster.live()), 30, "after")
    one_leader_per_epoch(cluster)


def test_a_follower_with_a_diverging_log_truncates_it(cluster: RaftCluster) -> None:
    leader = wait_until(cluster.stable_leader, 20, "a leader")
    old_epoch = leader.client.quorum.epoch()
    leader.append(["a"])
    wait_until(lambda: all(n.listener.records() == ["a"] for n in cluster.nodes), 30, "a everywhere")
    committed_end = leader.client.log_end_offset()
    # cut off, the leader still takes two records into its own log; no one else will ever have them
    leader.isolate()
    leader.append(["lost-1", "lost-2"])
    wait_until(lambda: leader.client.log_end_offset() >= committed_end + 2, 30, "the unreplicated append")
    successor = wait_until(lambda: next((n for n in cluster.live() if n is not leader and n.is_leader()), None), 20,
                           "a leader among the other two")
    successor.append(["b"])
    others = [n for n in cluster.nodes if n is not leader]
    wait_until(lambda: all(n.listener.records() == ["a", "b"] for n in others), 30, "b on the other two")
    leader.kill()
    assert leader.quorum_state_file.exists()
    restarted = RaftNode(leader.node_id, leader.voters, leader.port, leader.log_dir).start()
    cluster.nodes[leader.node_id] = restarted
    wait_until(lambda: restarted.listener.records() == ["a", "b"], 20, "the old leader caught up")
    log_ = restarted.client.log
    values = [r for batch in _batches(log_) for r in batch]
    assert "lost-1" not in values and "lost-2" not in values
    assert max(e.epoch for e in log_.leader_epoch_cache.epoch_entries()) > old_epoch
    one_leader_per_epoch(cluster)


def _batches(log_: object) -> list[list[str]]:
    from kafka_edu.v1_0_2.clients.common.record.file_records import MemoryRecords
    from kafka_edu.v3_9.raft.raft.isolation import Isolation
    records = log_.read(0, Isolation.UNCOMMITTED).records
    return [[bytes(r.value).decode(errors="replace") for r in b.records()] for b in MemoryRecords(records).batches()
            if not b.is_control_batch]


def test_votes_from_outside_are_refused_with_3_9s_errors(steady_cluster: RaftCluster) -> None:
    cluster = steady_cluster
    first = wait_until(cluster.stable_leader, 20, "a leader")
    first.client.resign(first.client.quorum.epoch())  # a second election, so that a stale epoch exists
    leader = wait_until(lambda: (ldr := cluster.stable_leader()) and ldr.client.quorum.epoch() >= 2 and ldr, 20,
                        "a leader in a later epoch")
    epoch = leader.client.quorum.epoch()
    follower = next(n for n in cluster.nodes if n is not leader)

    def vote(candidate: int, candidate_epoch: int, voter: int, last_epoch: int, last_offset: int) -> tuple:
        body = raft_util.singleton_vote_request(METADATA, CLUSTER_ID, candidate_epoch, ReplicaKey(candidate),
                                                ReplicaKey(voter), last_epoch, last_offset)
        response = send_raw(follower.port, ApiKeys.VOTE, 1, body)
        partition = response.topics[0].partitions[0]
        return Errors.for_code(partition.error_code), partition.vote_granted, int(partition.leader_epoch)

    def answered(candidate: int, voter: int, last_epoch_back: int | None, last_offset: int,
                 expected: tuple) -> bool:
        """Votes in the follower's current epoch until one lands in it: on a loaded machine an election may start
        between reading the epoch and the vote's arrival, and the answer is then FENCED_LEADER_EPOCH instead."""
        now = follower.client.quorum.epoch()
        last_epoch = 0 if last_epoch_back is None else now - last_epoch_back
        answer = vote(candidate, now, voter, last_epoch, last_offset)
        if answer[0] is Errors.FENCED_LEADER_EPOCH and answer[2] > now:
            return False
        assert answer[:len(expected)] == expected, (candidate, voter, now, answer)
        assert len(expected) < 2 or answer[2] == now, (candidate, voter, now, answer)  # the answer names its epoch
        return True

    # a stale epoch is fenced, and the answer names the voter's epoch (a later one if, on a loaded machine, another
    # election happened since `epoch` was read)
    error, granted, voter_epoch = vote(2, epoch - 1, follower.node_id, 0, 0)
    assert (error, granted) == (Errors.FENCED_LEADER_EPOCH, False) and voter_epoch >= epoch
    # a negative candidate id is invalid
    wait_until(lambda: answered(-1, follower.node_id, None, 0, (Errors.INVALID_REQUEST,)), 20, "INVALID_REQUEST")
    # a last epoch not below the candidate's epoch is invalid
    wait_until(lambda: answered(99, follower.node_id, 0, 5, (Errors.INVALID_REQUEST,)), 20, "INVALID_REQUEST")
    # addressed to another voter
    other = next(n.node_id for n in cluster.nodes if n.node_id != follower.node_id)
    wait_until(lambda: answered(99, other, None, 0, (Errors.INVALID_VOTER_KEY, False)), 20, "INVALID_VOTER_KEY")
    # a replica outside the voter set, in the current epoch: the follower knows its leader and refuses
    wait_until(lambda: answered(99, follower.node_id, 1, 10**6, (Errors.NONE, False)), 20, "a refused vote")
    # wrong cluster
    body = raft_util.singleton_vote_request(METADATA, "another-cluster", epoch, ReplicaKey(99),
                                            ReplicaKey(follower.node_id), 0, 0)
    assert Errors.for_code(send_raw(follower.port, ApiKeys.VOTE, 1, body).error_code) is Errors.INCONSISTENT_CLUSTER_ID
    # none of these votes moved the quorum: the leader is the one it was unless a loaded machine forced an election
    if follower.client.quorum.epoch() == epoch:
        assert cluster.stable_leader() is leader
    one_leader_per_epoch(cluster)


def test_a_vote_from_outside_the_voters_never_makes_two_leaders(cluster: RaftCluster) -> None:
    leader = wait_until(cluster.stable_leader, 20, "a leader")
    epoch = leader.client.quorum.epoch()
    follower = next(n for n in cluster.nodes if n is not leader)
    body = raft_util.singleton_vote_request(METADATA, CLUSTER_ID, epoch + 1, ReplicaKey(99),
                                            ReplicaKey(follower.node_id), epoch, 10**6)
    partition = send_raw(follower.port, ApiKeys.VOTE, 1, body).topics[0].partitions[0]
    # 3.9 (KIP-853) no longer answers INCONSISTENT_VOTER_SET: the follower moves to the higher epoch and, the
    # candidate's log being ahead, grants it the vote, on disk first
    assert (Errors.for_code(partition.error_code), partition.vote_granted) == (Errors.NONE, True)
    state = json.loads(follower.quorum_state_file.read_text())
    assert (state["leaderEpoch"], state["votedId"], state["leaderId"]) == (epoch + 1, 99, -1)
    # node 99 can never collect a majority of the voters: the quorum elects one of its own, later
    new_leader = wait_until(lambda: (ldr := cluster.stable_leader()) and ldr.client.quorum.epoch() > epoch + 1
                            and ldr, 20, "a leader past the disturbed epoch")
    assert new_leader.client.quorum.epoch() > epoch + 1
    one_leader_per_epoch(cluster)


def test_a_corrupt_quorum_state_refuses_startup(tmp_path: Path) -> None:
    cluster = RaftCluster(tmp_path, size=1)
    node = cluster.nodes[0]
    state_file = node.quorum_state_file
    state_file.parent.mkdir(parents=True)
    state_file.write_text('{"clusterId":"","leaderId":-1,"leaderEp')
    with pytest.raises(QuorumStateReadError, match="Error while reading the Quorum status from the file .*"):
        node.start()
    node.manager.shutdown()
    node.manager = None
    state_file.write_text('{"leaderEpoch": 3}\n')  # no data_version
    with pytest.raises(QuorumStateReadError, match="does not have data_version"):
        node.start()
    node.manager.shutdown()


def test_a_single_voter_elects_itself_and_commits_alone(tmp_path: Path) -> None:
    cluster = RaftCluster(tmp_path, size=1)
    try:
        node = cluster.start().nodes[0]
        assert node.is_leader() and node.client.quorum.epoch() == 1  # at once, in initialize: no Vote to send
        node.append(["solo"])
        wait_until(lambda: node.listener.records() == ["solo"], 30, "the record committed by the quorum of one")
    finally:
        cluster.stop()


def test_an_unattached_voter_sends_no_fetch_and_stands_at_its_election_timeout(tmp_path: Path) -> None:
    """3.9's Unattached voter waits for a leader's BeginQuorumEpoch or its own election timeout; it does not look
    for a leader with Fetch requests to the other voters (that is KAFKA-17030, Kafka 4.0). Voters 1 and 2 here are
    sockets that record what reaches them and answer nothing."""
    ports = [free_port() for _ in range(3)]
    voters = ",".join(f"{i}@127.0.0.1:{port}" for i, port in enumerate(ports))
    peers = [RaftTestServer(port, lambda: None) for port in ports[1:]]
    node = RaftNode(0, voters, ports[0], tmp_path / "node-0", **{"controller.quorum.election.timeout.ms": 1000})
    try:
        node.start()
        wait_until(lambda: all(p.received for p in peers), 30, "the voter to reach both peers")
        assert [p.received[0][0] for p in peers] == [ApiKeys.VOTE, ApiKeys.VOTE], [p.received for p in peers]
        assert node.role() == "Candidate"
    finally:
        node.stop()
        for peer in peers:
            peer.close()
