"""Three KafkaRaftClients over real localhost sockets: elections, failover, replication (Kafka 3.9's raft)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.helpers import wait_until
from tests.unit.raft.raft_cluster import RaftCluster


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[RaftCluster]:
    c = RaftCluster(tmp_path)
    try:
        yield c.start()
    finally:
        c.stop()


def test_three_voters_elect_one_leader_that_the_others_follow(cluster: RaftCluster) -> None:
    leader = wait_until(cluster.stable_leader, 20, "a leader every voter follows")
    epoch = leader.client.quorum.epoch()
    assert [n.node_id for n in cluster.leaders()] == [leader.node_id]
    for node in cluster.nodes:
        if node is not leader:
            assert node.role() == "Follower"
    # the new leader's first record is its LeaderChangeMessage, committed on every voter
    wait_until(lambda: all(n.listener.control_batches and n.listener.control_batches[-1][1] == epoch
                           for n in cluster.nodes), 10, "the LeaderChange batch on every voter")
