"""KRaft snapshots on real processes (Kafka 3.9): three controllers write metadata snapshots as the log grows
(SnapshotGenerator -> SnapshotEmitter -> KafkaRaftClient.createSnapshot); the leader deletes the log below its
latest snapshot; a follower that was stopped meanwhile comes back behind the leader's log start and catches up
through FetchSnapshot, loading the leader's snapshot, with a topic created while it was away.

The leader's log cleaner (RaftMetadataLogCleanerManager) runs every 60 s, a constant of 3.9's KafkaRaftClient, the
first time 60 s after the raft client starts: so this test lasts a little over a minute."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.tracing.query import load_run
from kafka_edu.v1_0_2.clients.common.record.file_records import FileRecords
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.raft.snapshot.snapshots import Snapshots
from tests.integration.helpers import REPO, wait_until
from tests.integration.test_kraft_controllers import create_topic, heartbeat, register_broker

CLEANER_DELAY_S = 60  # KafkaRaftClient's snapshot cleaner: maybeClean every 60 s
OVERRIDES = [
    # a snapshot every ~600 bytes of log: the idle NoOp batch every 500 ms is ~70 bytes, so one every ~4.5 s
    "metadata.log.max.record.bytes.between.snapshots=600",
    # 1 KiB segments (KafkaConfig lets segment.bytes go down to LOG_OVERHEAD, 12 bytes, once the internal
    # segment.min.bytes is lowered with it; the metadata log refuses segment.bytes below segment.min.bytes)
    "metadata.log.segment.bytes=1024",
    "metadata.log.segment.min.bytes=1024",
    # keep only the latest snapshot and the log after it
    "metadata.max.retention.ms=1000",
    "metadata.max.retention.bytes=1",
]


@pytest.fixture
def quorum(tmp_path: Path) -> Iterator[ClusterRunner]:
    runner = ClusterRunner.up(0, tmp_path / "traces", mode="kraft", controllers=3, overrides=OVERRIDES,
                              timeout_s=60)
    try:
        yield runner
    finally:
        runner.down()


def metadata_dir(runner: ClusterRunner, node_id: int) -> Path:
    return runner.run.path / f"controller-{node_id}" / "logs" / "__cluster_metadata-0"


def snapshot_ids(runner: ClusterRunner, node_id: int) -> list:
    return sorted(path.snapshot_id for p in metadata_dir(runner, node_id).glob("*.checkpoint")
                  if (path := Snapshots.parse(p)) is not None and not path.partial and not path.deleted)


def segment_base_offsets(runner: ClusterRunner, node_id: int) -> list[int]:
    return sorted(int(p.name.split(".")[0]) for p in metadata_dir(runner, node_id).glob("*.log"))


def log_end_offset(runner: ClusterRunner, node_id: int) -> int:
    """The offset after the last batch in a (stopped) voter's metadata log."""
    end = 0
    for base in segment_base_offsets(runner, node_id):
        records = FileRecords.open(metadata_dir(runner, node_id) / f"{base:020d}.log")
        try:
            for batch in records.batches():
                end = max(end, batch.last_offset + 1)
        finally:
            records.close()
    return end


def dump(path: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "kafka_edu.cli", "dump-log", "--cluster-metadata-decoder",
                           str(path)], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.long_run  # over a minute: the cleaner's first pass is 60 s after the raft client starts
def test_a_follower_behind_the_leaders_log_start_catches_up_through_fetch_snapshot(quorum: ClusterRunner) -> None:
    runner = quorum
    started = time.monotonic()
    manifest = runner.run.read_manifest()
    leader = runner.wait_for_quorum(30)
    follower = next(n for n in (1, 2, 3) if n != leader)

    # A broker registers and is unfenced, so a topic can be placed; "orders" is committed on all three voters.
    broker_epoch = register_broker(runner, leader, 4, manifest["cluster_id"])
    wait_until(lambda: not heartbeat(runner, leader, 4, broker_epoch, 10**9).is_fenced, 30, "the broker unfenced")
    assert create_topic(runner, leader, "orders").error_code == Errors.NONE

    # One follower stops; "payments" is committed by the other two while it is away.
    runner.stop(follower)
    stopped_end = log_end_offset(runner, follower)
    assert create_topic(runner, leader, "payments").error_code == Errors.NONE

    # Every voter writes snapshots as the log grows. The leader's cleaner keeps only the latest snapshot and moves
    # its log start there, deleting the segments below it: the stopped follower's log now ends before the start.
    # (The log start shows on the leader's next createSnapshot span.)
    def leader_log_start() -> int | None:
        if 0 in segment_base_offsets(runner, leader):
            return None
        starts = [s.attributes["kafka.raft.log_start_offset"] for s in load_run(runner.run.path)
                  if s.instance == f"controller-{leader}" and s.name == "KafkaRaftClient.createSnapshot"]
        return starts[-1] if starts and starts[-1] > stopped_end else None
    log_start = wait_until(leader_log_start, CLEANER_DELAY_S + 30,
                           "the leader to delete its log below a snapshot past the stopped follower's end")
    assert log_start in {i.offset for i in snapshot_ids(runner, leader)} | {0}
    assert min(segment_base_offsets(runner, leader)) <= log_start  # the segment holding the new log start stays
    print(f"follower {follower} stopped at log end {stopped_end}; leader {leader} log start {log_start} after "
          f"{time.monotonic() - started:.0f} s")

    # The follower comes back: its Fetch at its old end is answered with the leader's snapshot id; it downloads
    # the snapshot (FetchSnapshot), truncates its log to it, and its MetadataLoader loads it.
    runner.start(follower)

    def fetched_snapshot() -> list | None:
        ids = [i for i in snapshot_ids(runner, follower) if i.offset >= log_start]
        return ids or None
    fetched = wait_until(fetched_snapshot, 30, "the follower to hold a snapshot past the leader's log start")[0]
    spans = wait_until(lambda: [s for s in load_run(runner.run.path)
                                if s.instance == f"controller-{follower}" and s.name ==
                                "MetadataLoader.handleLoadSnapshot"
                                and s.attributes.get("kafka.raft.snapshot.end_offset") == fetched.offset] or None,
                       30, "the follower's loader to load the fetched snapshot")
    loaded = spans[-1].attributes
    assert loaded["kafka.step"] == "KR.publish"
    assert {"orders", "payments"} <= set(loaded["kafka.metadata.image.topic_names"])

    run_spans = load_run(runner.run.path)
    on_follower = [s for s in run_spans if s.instance == f"controller-{follower}"]
    fetch_snapshot = [s for s in on_follower if s.name == "KafkaRaftClient.handleFetchSnapshotResponse"]
    assert fetch_snapshot and fetch_snapshot[0].attributes["kafka.raft.snapshot.end_offset"] == fetched.offset
    assert [s for s in run_spans if s.instance == f"controller-{leader}"
            and s.name == "KafkaRaftClient.handleFetchSnapshotRequest"]

    # The snapshot file on the follower is the leader's image: topics, partitions and the broker, in 3.9's order
    printed = dump(Snapshots.snapshot_path(metadata_dir(runner, follower), fetched))
    assert f"Snapshot end offset: {fetched.offset}, epoch: {fetched.epoch}" in printed
    assert '"type":"TOPIC_RECORD"' in printed and '"name":"payments"' in printed and '"name":"orders"' in printed
    assert printed.index("FEATURE_LEVEL_RECORD") < printed.index("REGISTER_BROKER_RECORD") \
        < printed.index("TOPIC_RECORD") < printed.index("PARTITION_RECORD")

    # The leader made its snapshots itself: KR.publish -> publishLogDelta, which asks the snapshot generator's queue
    # for the write: maybeEmit -> KR.snapshot, a trace of its own linked to the publish that asked for it
    on_leader = [s for s in run_spans if s.instance == f"controller-{leader}"]
    emits = [s for s in on_leader if s.name == "SnapshotEmitter.maybeEmit"]
    creates = {s.trace_id for s in on_leader if s.name == "KafkaRaftClient.createSnapshot"
               and s.attributes.get("kafka.raft.snapshot.created")}
    publishes = {s.trace_id for s in on_leader if s.name == "MetadataLoader.handleCommit"}
    asked_by = {trace_id for s in on_leader if s.name == "KafkaEventQueue.enqueue" and s.trace_id in creates
                for trace_id, _ in s.links}
    assert emits and {s.trace_id for s in emits} <= creates and asked_by and asked_by <= publishes
    # and no KR.publish span for an idle NoOp commit that made no snapshot
    assert all(s.trace_id in asked_by or s.attributes["kafka.metadata.record.types"] != ["NoOpRecord"]
               for s in on_leader if s.name == "MetadataLoader.handleCommit")

    # the follower is a voter again: the quorum agrees on one leader with it
    assert runner.wait_for_quorum(30) in (1, 2, 3)
    print(f"follower fetched snapshot {fetched} and caught up after {time.monotonic() - started:.0f} s")
