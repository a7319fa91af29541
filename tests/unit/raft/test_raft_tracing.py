"""What the raft client's spans tell: an election is one trace across the voters, each Vote says why, the high
watermark is computed on the fetch that moves it, and an idle quorum writes no fetch spans."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kafka_edu.tracing import setup_tracing
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.raft.raft import raft_util
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey
from tests.integration.helpers import wait_until
from tests.unit.raft.raft_cluster import CLUSTER_ID, RaftCluster, send_raw

METADATA = TopicPartition("__cluster_metadata", 0)


@pytest.fixture
def traced(tmp_path: Path) -> Iterator[tuple[RaftCluster, Any]]:
    tracing = setup_tracing("controller-0", "run-1", mode="kraft")
    cluster = RaftCluster(tmp_path)
    try:
        yield cluster.start(), tracing
    finally:
        cluster.stop()
        tracing.shutdown()


def spans(tracing: Any) -> list[Any]:
    return list(tracing.memory.get_finished_spans())


def role_changes(span: Any) -> list[dict]:
    return [dict(e.attributes) for e in span.events if e.name == "raft.role.change"]


def test_one_election_is_one_trace_from_the_candidate_to_every_voter(traced: tuple[RaftCluster, Any]) -> None:
    cluster, tracing = traced
    leader = wait_until(cluster.stable_leader, 20, "a leader")
    epoch = leader.client.quorum.epoch()

    def election_root() -> Any:
        return next((s for s in spans(tracing) if s.attributes.get("kafka.node.id") == leader.node_id
                     and any(c["kafka.raft.role.to"] == "Candidate" and c["kafka.raft.epoch"] == epoch
                             for c in role_changes(s))), None)

    root = wait_until(election_root, 10, "the span where the winner became candidate")
    assert root.parent is None and root.name in ("KafkaRaftClient.pollUnattached", "KafkaRaftClient.pollFollower",
                                                 "KafkaRaftClient.pollCandidate")
    trace_id = root.context.trace_id
    followers = {n.node_id for n in cluster.nodes} - {leader.node_id}

    def in_trace() -> list[Any]:
        return [s for s in spans(tracing) if s.context.trace_id == trace_id]

    # each follower's BeginQuorumEpoch handling, where it becomes a follower, belongs to the same trace
    wait_until(lambda: {s.attributes["kafka.node.id"] for s in in_trace()
                        if s.name == "KafkaRaftClient.handleBeginQuorumEpochRequest"} == followers, 10,
               "each follower's BeginQuorumEpoch in the election's trace")
    by_id = {s.context.span_id: s for s in in_trace()}
    vote_round = next(s for s in in_trace() if s.name == "KafkaRaftClient.maybeSendVoteRequests")
    assert vote_round.parent.span_id == root.context.span_id
    handled = [s for s in in_trace() if s.name == "KafkaRaftClient.handleVoteRequest"]
    assert {s.attributes["kafka.node.id"] for s in handled} <= followers and handled
    for vote in handled:  # the remote handling is the vote round's child, through the request's traceparent
        assert vote.parent.span_id == vote_round.context.span_id and vote.parent.is_remote
        attributes = vote.attributes
        assert attributes["kafka.step"] == "KR.vote" and attributes["kafka.raft.vote.candidate_id"] == leader.node_id
        assert isinstance(attributes["kafka.raft.vote.granted"], bool) and attributes["kafka.raft.vote.reason"]
    granted = [s for s in handled if s.attributes["kafka.raft.vote.granted"]]
    assert granted and all(s.attributes["kafka.raft.vote.reason"].startswith("granted") for s in granted)
    responses = [s for s in in_trace() if s.name == "KafkaRaftClient.handleVoteResponse"]
    assert any(c["kafka.raft.role.to"] == "Leader" for s in responses for c in role_changes(s))
    assert all(by_id.get(s.parent.span_id) is root for s in responses)
    # each follower became one, from the BeginQuorumEpoch or from a Fetch answered by the new leader first
    became_follower = {s.attributes["kafka.node.id"] for s in spans(tracing) for c in role_changes(s)
                       if c["kafka.raft.role.to"] == "Follower" and c["kafka.raft.epoch"] == epoch}
    assert became_follower == followers
    # the role change event shows what was already on disk
    for change in (c for s in in_trace() for c in role_changes(s)):
        assert f'"leaderEpoch":{change["kafka.raft.epoch"]}' in change["kafka.raft.quorum_state"]


def test_a_refused_vote_says_why(traced: tuple[RaftCluster, Any]) -> None:
    cluster, tracing = traced
    leader = wait_until(cluster.stable_leader, 20, "a leader")
    epoch = leader.client.quorum.epoch()
    follower = next(n for n in cluster.nodes if n is not leader)
    traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    body = raft_util.singleton_vote_request(METADATA, CLUSTER_ID, epoch, ReplicaKey(99), ReplicaKey(follower.node_id),
                                            0, 0)
    send_raw(follower.port, ApiKeys.VOTE, 1, body, traceparent=traceparent)
    vote = wait_until(lambda: next((s for s in spans(tracing) if s.name == "KafkaRaftClient.handleVoteRequest"
                                    and s.attributes.get("kafka.raft.vote.candidate_id") == 99), None), 10,
                      "the traced vote")
    assert vote.parent.trace_id == 0x0AF7651916CD43DD8448EB211C80319C
    assert vote.attributes["kafka.raft.vote.granted"] is False
    assert vote.attributes["kafka.raft.vote.reason"] == f"leader known: {leader.node_id} in epoch {epoch}"


def test_the_high_watermark_is_computed_on_the_fetch_that_moves_it(traced: tuple[RaftCluster, Any]) -> None:
    cluster, tracing = traced
    leader = wait_until(cluster.stable_leader, 20, "a leader")
    start_offset = leader.client.log_end_offset()
    leader.append(["x"])
    wait_until(lambda: all(n.listener.records() == ["x"] for n in cluster.nodes), 10, "x everywhere")

    def moving_fetch() -> Any:
        return next((s for s in spans(tracing) if s.name == "KafkaRaftClient.handleFetchRequest"
                     and s.attributes.get("kafka.raft.fetch.offset") == start_offset + 1
                     and s.attributes.get("kafka.raft.high_watermark", -1) >= start_offset + 1), None)

    fetch = wait_until(moving_fetch, 10, "the leader's handling of the fetch that acknowledged x")
    offsets = list(fetch.attributes["kafka.raft.hw.sorted_offsets"])
    assert offsets == sorted(offsets, reverse=True) and len(offsets) == 3
    assert fetch.attributes["kafka.raft.hw.majority_index"] == 1
    assert fetch.attributes["kafka.raft.hw.candidate"] == offsets[1]
    assert fetch.attributes["kafka.raft.hw.epoch_start_offset"] < fetch.attributes["kafka.raft.high_watermark"]
    assert fetch.parent is not None and fetch.parent.is_remote  # the follower traced the send it is the child of


def test_an_idle_quorum_writes_no_fetch_spans(traced: tuple[RaftCluster, Any]) -> None:
    cluster, tracing = traced
    leader = wait_until(cluster.stable_leader, 20, "a leader")
    wait_until(lambda: all(n.client.high_watermark() == leader.client.high_watermark() for n in cluster.nodes), 10,
               "followers caught up")
    def fetches() -> int:
        return sum(1 for api, _ in leader.server.received if api == ApiKeys.FETCH)

    # A follower sends its next fetch only once it has handled the last answer: after two more rounds, the answer
    # that brought it the high watermark (handled under a span still open when the wait above saw it) is behind us.
    caught_up = fetches()
    wait_until(lambda: fetches() >= caught_up + 4, 30, "two more rounds of long polls")
    before = len(spans(tracing))
    fetches_before = fetches()
    # the followers' long polls go on: wait for a good number of them to reach the leader
    wait_until(lambda: fetches() >= fetches_before + 6, 30, "six more long polls")
    idle = spans(tracing)[before:]
    assert [s.name for s in idle if "Fetch" in s.name] == []


def test_a_graceful_resignation_names_its_successors_and_the_first_runs_at_once(
        traced: tuple[RaftCluster, Any]) -> None:
    cluster, tracing = traced
    leader = wait_until(cluster.stable_leader, 20, "a leader")
    epoch = leader.client.quorum.epoch()
    leader.stop()  # Resigned, then EndQuorumEpoch to the voters with the most caught up first
    successor = wait_until(cluster.stable_leader, 20, "a successor")
    assert successor.client.quorum.epoch() == epoch + 1
    ends = [s for s in spans(tracing) if s.name == "KafkaRaftClient.handleEndQuorumEpochRequest"
            and s.attributes.get("kafka.raft.request.leader_epoch") == epoch]
    assert ends and all(s.attributes["kafka.step"] == "KR.end" for s in ends)
    first = [s for s in ends if s.attributes.get("kafka.raft.fetch_timeout_override_ms") == 0]
    assert first, [dict(s.attributes) for s in ends]
    # the first successor's fetch timeout is now over: it becomes candidate in the next epoch without waiting
    first_id = first[0].attributes["kafka.node.id"]
    assert list(first[0].attributes["kafka.raft.preferred_successors"])[0] == first_id
    assert any(s.attributes.get("kafka.node.id") == first_id and any(
        c["kafka.raft.role.to"] == "Candidate" and c["kafka.raft.epoch"] == epoch + 1 for c in role_changes(s))
        for s in spans(tracing))
