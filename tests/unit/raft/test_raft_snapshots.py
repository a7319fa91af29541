"""Snapshots (Kafka 3.9): a leader's snapshot lets its log start move on, and a follower behind the log start
fetches the snapshot (FetchSnapshot) before it fetches records again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from tests.integration.helpers import wait_until
from tests.unit.raft.raft_cluster import RaftCluster, RaftNode


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[RaftCluster]:
    c = RaftCluster(tmp_path)
    try:
        yield c.start()
    finally:
        c.stop()


def test_a_follower_behind_the_log_start_fetches_the_leaders_snapshot(cluster: RaftCluster) -> None:
    leader = wait_until(cluster.stable_leader, 20, "a leader")
    leader.append(["a", "b", "c"])
    wait_until(lambda: all(n.listener.records() == ["a", "b", "c"] for n in cluster.nodes), 10, "abc everywhere")
    behind = next(n for n in cluster.nodes if n is not leader)
    behind.kill()
    leader.append(["d", "e"])
    wait_until(lambda: leader.listener.records() == ["a", "b", "c", "d", "e"], 10, "de committed without it")

    # the state machine snapshots everything committed, and the log may then start after it
    high_watermark = leader.client.high_watermark()
    snapshot_id = OffsetAndEpoch(high_watermark, leader.client.log.last_fetched_epoch())
    writer = leader.client.create_snapshot(snapshot_id, 1_700_000_000_000)
    writer.append(leader.listener.records())
    writer.freeze()
    assert (leader.log_dir / "__cluster_metadata-0" / f"{high_watermark:020d}-{snapshot_id.epoch:010d}.checkpoint"
            ).exists()
    assert leader.client.latest_snapshot_id() == snapshot_id
    assert leader.client.create_snapshot(snapshot_id, 0) is None  # it exists already
    leader.client.log.delete_before_snapshot(snapshot_id)
    assert leader.client.log.start_offset() == high_watermark

    restarted = RaftNode(behind.node_id, behind.voters, behind.port, behind.log_dir).start()
    cluster.nodes[behind.node_id] = restarted
    wait_until(lambda: restarted.listener.snapshots_loaded == [snapshot_id], 20, "the snapshot loaded")
    assert restarted.client.latest_snapshot_id() == snapshot_id
    assert restarted.client.log.start_offset() == high_watermark  # its old log is gone
    assert restarted.listener.records() == ["a", "b", "c", "d", "e"]
    leader.append(["f"])
    wait_until(lambda: restarted.listener.records() == ["a", "b", "c", "d", "e", "f"], 10, "f after the snapshot")


def test_a_snapshot_past_the_high_watermark_is_refused(cluster: RaftCluster) -> None:
    leader = wait_until(cluster.stable_leader, 20, "a leader")
    high_watermark = leader.client.high_watermark()
    with pytest.raises(ValueError, match="greater than the high-watermark"):
        leader.client.create_snapshot(OffsetAndEpoch(high_watermark + 5, leader.client.quorum.epoch()), 0)
