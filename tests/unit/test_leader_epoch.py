"""Leader epochs as Kafka 1.0.2 keeps them (KIP-101): the LeaderEpochFileCache and its checkpoint, the epochs a
log records as leaders and followers append, and a follower's truncation choice. (A leader's answer to
OffsetsForLeaderEpoch, on the KRaft broker's 3.9 ReplicaManager: tests/unit/kraft_broker_data/test_apply_delta.py.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kafka_edu.tracing import setup_tracing
from kafka_edu.v1_0_2.clients.common.errors import KafkaStorageException
from kafka_edu.v1_0_2.clients.common.record.file_records import MemoryRecords
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import with_records
from kafka_edu.v1_0_2.clients.common.requests.epoch_end_offset import UNDEFINED_EPOCH_OFFSET, EpochEndOffset
from kafka_edu.v1_0_2.core.cluster.partition import Replica
from kafka_edu.v1_0_2.core.log.log import Log, TopicPartition
from kafka_edu.v1_0_2.core.log.log_config import LogConfig
from kafka_edu.v1_0_2.core.server.abstract_fetcher_thread import BrokerEndPoint, PartitionFetchState
from kafka_edu.v1_0_2.core.server.checkpoints.leader_epoch_checkpoint_file import LeaderEpochCheckpointFile, new_file
from kafka_edu.v1_0_2.core.server.checkpoints.offset_checkpoint_file import OffsetCheckpointFile
from kafka_edu.v1_0_2.core.server.epoch.leader_epoch_file_cache import UNDEFINED_EPOCH, EpochEntry, LeaderEpochFileCache
from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
from kafka_edu.v1_0_2.core.server.log_dir_failure_channel import LogDirFailureChannel
from kafka_edu.v1_0_2.core.server.replica_fetcher_thread import ReplicaFetcherThread
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors

TP = TopicPartition("orders", 0)
NOW = 1_700_000_000_000


def batch(offset: int, epoch: int, *values: bytes) -> bytes:
    """A batch as a leader of epoch `epoch` wrote it at `offset` (what a follower fetches)."""
    return bytes(with_records(offset, NOW, epoch, list(values) or [b"v"]).buffer)


def client_batch(*values: bytes) -> bytes:
    """A producer's batch: offset 0, no epoch; the leader gives it both."""
    return batch(0, -1, *values)


def cache_in(directory: Path, leo: list[int]) -> LeaderEpochFileCache:
    return LeaderEpochFileCache(TP, lambda: leo[0], LeaderEpochCheckpointFile(new_file(directory)))


@pytest.fixture
def tracing() -> Iterator[Any]:
    traced = setup_tracing("broker-1", "run-1")
    try:
        yield traced
    finally:
        traced.shutdown()


def spans(tracing: Any, step_id: str) -> list[Any]:
    return [s for s in tracing.memory.get_finished_spans() if s.attributes.get("kafka.step") == step_id]


# -- LeaderEpochFileCache -----------------------------------------------------------------------------------------

def test_assign_records_each_new_epoch_once_and_traces_only_those(tmp_path: Path, tracing: Any) -> None:
    cache = cache_in(tmp_path, [0])
    cache.assign(0, 0)
    cache.assign(0, 3)  # later batches of the same epoch
    cache.assign(2, 5)
    cache.assign(1, 7)  # an older epoch after a newer one: out of order, ignored
    cache.assign(3, 4)  # a new epoch starting before the latest one's start: ignored
    assert cache.epoch_entries() == [EpochEntry(0, 0), EpochEntry(2, 5)]
    assert cache.latest_epoch() == 2
    assigned = spans(tracing, "LE.assign")
    assert [(s.name, s.attributes["kafka.leader.epoch"], s.attributes["kafka.leader.epoch.start_offset"],
             s.attributes["kafka.leader.epoch.previous"]) for s in assigned] == [
        ("LeaderEpochFileCache.assign", 0, 0, UNDEFINED_EPOCH), ("LeaderEpochFileCache.assign", 2, 5, 0)]
    assert assigned[0].attributes["kafka.topic"] == "orders"
    assert assigned[1].attributes["kafka.leader.epoch.entries"] == 2
    with pytest.raises(AssertionError):
        cache.assign(-1, 9)  # 1.0.2 asserts: a leader always stamps an epoch


def test_end_offset_for_an_epoch_is_where_the_next_epoch_starts_or_the_log_end(tmp_path: Path) -> None:
    leo = [20]
    cache = cache_in(tmp_path, leo)
    assert cache.end_offset_for(0) == UNDEFINED_EPOCH_OFFSET  # an empty cache knows no epoch
    for epoch, offset in [(2, 0), (4, 7), (5, 15)]:
        cache.assign(epoch, offset)
    assert cache.end_offset_for(5) == 20  # the latest epoch: the log end offset now...
    leo[0] = 23
    assert cache.end_offset_for(5) == 23  # ...which moves with the log
    assert cache.end_offset_for(4) == 15 and cache.end_offset_for(2) == 7
    assert cache.end_offset_for(3) == 7  # an epoch this leader skipped: where the next one it had starts
    assert cache.end_offset_for(1) == UNDEFINED_EPOCH_OFFSET  # older than the first: the follower uses its HW
    assert cache.end_offset_for(6) == UNDEFINED_EPOCH_OFFSET  # newer than any the leader had
    assert cache.end_offset_for(UNDEFINED_EPOCH) == UNDEFINED_EPOCH_OFFSET


def test_truncation_from_the_end_and_from_the_start(tmp_path: Path) -> None:
    cache = cache_in(tmp_path, [40])
    for epoch, offset in [(1, 0), (2, 10), (3, 20), (4, 30)]:
        cache.assign(epoch, offset)
    cache.clear_and_flush_latest(25)  # the log was cut at 25: epoch 4 (from 30) is gone, epoch 3 stays
    assert cache.epoch_entries() == [EpochEntry(1, 0), EpochEntry(2, 10), EpochEntry(3, 20)]
    cache.clear_and_flush_latest(20)  # cut at an epoch's first offset: that epoch goes too
    assert cache.epoch_entries() == [EpochEntry(1, 0), EpochEntry(2, 10)]
    cache.clear_and_flush_latest(50)  # past the latest start: nothing to clear
    assert len(cache.epoch_entries()) == 2
    cache.clear_and_flush_earliest(5)  # the log now starts at 5, inside epoch 1
    assert cache.epoch_entries() == [EpochEntry(1, 5), EpochEntry(2, 10)]
    cache.clear_and_flush_earliest(12)
    assert cache.epoch_entries() == [EpochEntry(2, 12)]
    assert cache_in(tmp_path, [40]).epoch_entries() == [EpochEntry(2, 12)]  # each change was flushed
    cache.clear_and_flush()
    assert cache.epoch_entries() == [] and cache_in(tmp_path, [40]).epoch_entries() == []


def test_the_checkpoint_round_trips_in_kafkas_format(tmp_path: Path) -> None:
    checkpoint = LeaderEpochCheckpointFile(new_file(tmp_path))
    assert checkpoint.read() == []  # created empty
    checkpoint.write([EpochEntry(0, 0), EpochEntry(3, 1234567890123)])
    assert (tmp_path / "leader-epoch-checkpoint").read_text() == "0\n2\n0 0\n3 1234567890123\n"
    assert not (tmp_path / "leader-epoch-checkpoint.tmp").exists()
    assert LeaderEpochCheckpointFile(new_file(tmp_path)).read() == [EpochEntry(0, 0), EpochEntry(3, 1234567890123)]


@pytest.mark.parametrize(("content", "message"), [
    ("0\n2\n1 0\n", "Expected 2 entries"),
    ("1\n0\n", "Unrecognized version"),
    ("0\n1\n1 0 9\n", "Malformed line"),
    ("0\n1\none 0\n", "Malformed line"),
    ("zero\n", "Malformed line"),
])
def test_a_corrupt_checkpoint_is_refused(tmp_path: Path, content: str, message: str) -> None:
    file = new_file(tmp_path)
    file.write_text(content)
    with pytest.raises(OSError, match=message):
        cache_in(tmp_path, [0])


def test_an_unreadable_checkpoint_takes_the_log_dir_offline(tmp_path: Path) -> None:
    partition_dir = tmp_path / "orders-0"
    partition_dir.mkdir()
    new_file(partition_dir).mkdir()  # a directory where the file should be: reads and writes fail
    channel = LogDirFailureChannel(1)
    with pytest.raises(OSError):
        LeaderEpochCheckpointFile(new_file(partition_dir), channel).read()
    assert channel.offline_log_dirs == {str(tmp_path)}


def test_the_offset_checkpoints_share_the_same_file_format(tmp_path: Path) -> None:
    checkpoint = OffsetCheckpointFile(tmp_path / "replication-offset-checkpoint")
    checkpoint.write({("orders", 0): 5, ("payments", 3): 0})
    assert checkpoint.file.read_text() == "0\n2\norders 0 5\npayments 3 0\n"
    assert checkpoint.read() == {("orders", 0): 5, ("payments", 3): 0}
    checkpoint.file.write_text("0\n1\norders 0\n")
    with pytest.raises(OSError, match="Malformed line"):
        checkpoint.read()


# -- the log's epochs -------------------------------------------------------------------------------------------------

def open_log(tmp_path: Path) -> Log:
    return Log(tmp_path / "logs" / "orders-0", LogConfig())


def test_a_leader_stamps_its_epoch_on_every_batch_and_records_where_each_epoch_starts(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    log.append_as_leader(client_batch(b"a", b"b"), leader_epoch=3)
    log.append_as_leader(client_batch(b"c"), leader_epoch=3)
    log.append_as_leader(client_batch(b"d"), leader_epoch=5)
    stamped = [(b.base_offset, b.partition_leader_epoch) for b in MemoryRecords(log.read(0, 1 << 20)).batches()]
    assert stamped == [(0, 3), (2, 3), (3, 5)]
    assert log.leader_epoch_cache.epoch_entries() == [EpochEntry(3, 0), EpochEntry(5, 3)]
    assert log.leader_epoch_cache.end_offset_for(3) == 3 and log.leader_epoch_cache.end_offset_for(5) == 4
    assert new_file(log.dir).read_text() == "0\n2\n3 0\n5 3\n"


def test_a_follower_takes_the_epochs_its_leader_stamped(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    log.append_as_follower(batch(0, 0, b"a", b"b") + batch(2, 2, b"c"))
    log.append_as_follower(batch(3, 2, b"d"))
    assert log.leader_epoch_cache.epoch_entries() == [EpochEntry(0, 0), EpochEntry(2, 2)]


def test_truncating_the_log_truncates_its_epochs(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    log.append_as_follower(batch(0, 0, b"a", b"b") + batch(2, 1, b"c", b"d") + batch(4, 4, b"e"))
    log.truncate_to(3)  # inside epoch 1: epoch 4 goes
    assert log.leader_epoch_cache.epoch_entries() == [EpochEntry(0, 0), EpochEntry(1, 2)]
    log.maybe_increment_log_start_offset(1)
    assert log.leader_epoch_cache.epoch_entries() == [EpochEntry(0, 1), EpochEntry(1, 2)]
    log.truncate_fully_and_start_at(10)
    assert log.leader_epoch_cache.epoch_entries() == []


def test_a_reopened_log_keeps_its_epochs_and_drops_those_past_its_end(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    log.append_as_follower(batch(0, 0, b"a") + batch(1, 2, b"b"))
    log.close()
    new_file(log.dir).write_text("0\n3\n0 0\n2 1\n7 2\n")  # an epoch whose batch never reached the disk
    reopened = open_log(tmp_path)
    assert reopened.log_end_offset == 2
    assert reopened.leader_epoch_cache.epoch_entries() == [EpochEntry(0, 0), EpochEntry(2, 1)]


def test_recovery_assigns_the_epochs_a_lost_checkpoint_had(tmp_path: Path) -> None:
    log = open_log(tmp_path)
    log.append_as_follower(batch(0, 0, b"a") + batch(1, 2, b"b") + batch(2, 5, b"c"))
    log.close()
    new_file(log.dir).write_text("0\n1\n0 0\n")  # the last two assignments were lost in a crash
    reopened = open_log(tmp_path)  # no clean shutdown marker: the segments are recovered
    assert reopened.leader_epoch_cache.epoch_entries() == [EpochEntry(0, 0), EpochEntry(2, 1), EpochEntry(5, 2)]


# -- the follower's truncation choice ---------------------------------------------------------------------------------

class FakeReplicaManager:
    """What ReplicaFetcherThread asks its ReplicaManager for: the local replica of each partition."""

    def __init__(self) -> None:
        self.replicas: dict[TopicPartition, Replica] = {}
        self.zk_utils = None
        self.log_manager = self  # the fetcher truncates through LogManager.truncateTo, as Kafka's does

    def truncate_to(self, partition_offsets: dict[TopicPartition, int]) -> None:
        for tp, offset in partition_offsets.items():
            self.replicas[tp].log.truncate_to(offset)

    def get_replica(self, tp: TopicPartition, replica_id: int | None = None) -> Replica | None:
        return self.replicas.get(tp)

    def get_replica_or_exception(self, tp: TopicPartition) -> Replica:
        if tp not in self.replicas:
            raise KafkaStorageException(f"no replica of {tp}")
        return self.replicas[tp]


class FakeLeader:
    """The leader's end of the fetcher's connection: answers OffsetsForLeaderEpoch with the given end offsets."""

    def __init__(self, answers: dict[TopicPartition, tuple[Errors, int]] | Exception) -> None:
        self.answers = answers
        self.requests: list[tuple[ApiKeys, int, Any]] = []

    def send_request(self, api_key: ApiKeys, api_version: int, body: Any) -> Any:
        self.requests.append((api_key, api_version, body))
        if isinstance(self.answers, Exception):
            raise self.answers
        topics: dict[str, list[dict[str, Any]]] = {}
        for tp, (error, end_offset) in self.answers.items():
            topics.setdefault(tp.topic, []).append(dict(error_code=error, partition=tp.partition,
                                                        end_offset=end_offset))
        return build(ApiKeys.OFFSET_FOR_LEADER_EPOCH.response_schema(0),
                     topics=[dict(topic=t, partitions=p) for t, p in topics.items()])

    def close(self) -> None:
        pass


def fetcher(tmp_path: Path, manager: FakeReplicaManager, **overrides: str) -> ReplicaFetcherThread:
    props = {"broker.id": "2", "zookeeper.connect": "127.0.0.1:1", "log.dirs": str(tmp_path / "logs"), **overrides}
    config = KafkaConfig.from_props(props, do_log=False)
    return ReplicaFetcherThread("ReplicaFetcherThread-0-1", 0, BrokerEndPoint(1, "127.0.0.1", 1), config, manager)


def follower_replica(tmp_path: Path, manager: FakeReplicaManager, tp: TopicPartition, high_watermark: int,
                     records: bytes) -> Replica:
    log = Log(tmp_path / "logs" / str(tp), LogConfig())
    log.append_as_follower(records)
    replica = Replica(2, tp, high_watermark, log)
    manager.replicas[tp] = replica
    return replica


def test_the_follower_truncates_to_the_leaders_end_of_its_epoch_not_to_its_high_watermark(tmp_path: Path,
                                                                                         tracing: Any) -> None:
    manager = FakeReplicaManager()
    diverged = TopicPartition("orders", 0)  # offsets 3-4 were written in epoch 1 by a leader that lost them
    behind = TopicPartition("orders", 1)  # all it has is on the leader: keep it, though the HW says 1
    unknown = TopicPartition("orders", 2)  # the leader has no such epoch (an older message format)
    failed = TopicPartition("orders", 3)
    follower_replica(tmp_path, manager, diverged, 2, batch(0, 0, b"a", b"b", b"c") + batch(3, 1, b"d", b"e"))
    follower_replica(tmp_path, manager, behind, 1, batch(0, 0, b"a", b"b", b"c"))
    follower_replica(tmp_path, manager, unknown, 1, batch(0, 0, b"a", b"b"))
    follower_replica(tmp_path, manager, failed, 0, batch(0, 0, b"a"))
    thread = fetcher(tmp_path, manager)
    thread.leader_endpoint = FakeLeader({diverged: (Errors.NONE, 3), behind: (Errors.NONE, 9),
                                         unknown: (Errors.NONE, UNDEFINED_EPOCH_OFFSET),
                                         failed: (Errors.NOT_LEADER_OR_FOLLOWER, UNDEFINED_EPOCH_OFFSET)})
    for tp in (diverged, behind, unknown, failed):
        thread.partition_states[tp] = PartitionFetchState.of(manager.replicas[tp].log_end_offset, True)

    asked = thread.build_leader_epoch_request(thread.states())
    assert asked.result == {diverged: 1, behind: 0, unknown: 0, failed: 0}  # each log's own latest epoch
    thread.maybe_truncate()

    (api_key, version, body), = thread.leader_endpoint.requests
    assert (api_key, version) == (ApiKeys.OFFSET_FOR_LEADER_EPOCH, 0)
    assert sorted((t.topic, p.partition, p.leader_epoch) for t in body.topics for p in t.partitions) == [
        ("orders", 0, 1), ("orders", 1, 0), ("orders", 2, 0), ("orders", 3, 0)]
    assert [manager.replicas[tp].log_end_offset for tp in (diverged, behind, unknown, failed)] == [3, 3, 1, 1]
    assert manager.replicas[diverged].log.leader_epoch_cache.epoch_entries() == [EpochEntry(0, 0)]
    # truncated partitions fetch from their new end; the failed one asks again after the back-off
    assert {tp: (s.fetch_offset, s.truncating_log) for tp, s in thread.partition_states.items()} == {
        diverged: (3, False), behind: (3, False), unknown: (1, False), failed: (1, True)}
    assert thread.partition_states[failed].is_delayed()

    request, = spans(tracing, "LE.request")
    truncate, = spans(tracing, "LE.truncate")
    assert truncate.parent.span_id == request.context.span_id and request.parent is None
    assert request.attributes["kafka.partitions"] == ("orders-0", "orders-1", "orders-2", "orders-3")
    assert request.attributes["kafka.leader.epochs"] == (1, 0, 0, 0)
    assert request.attributes["kafka.leader.epoch.end_offsets"] == (3, 9, -1, -1)
    choices = {(e.attributes["kafka.partition"]): e.attributes for e in truncate.events if e.name == "log.truncate"}
    assert {p: (a["kafka.offset"], a["kafka.truncation.by"], a["kafka.records.lost"])
            for p, a in choices.items()} == {0: (3, "leader epoch", 2), 1: (3, "log end offset", 0),
                                            2: (1, "high watermark", 1)}
    assert choices[1]["kafka.high_watermark"] == 1 and choices[1]["kafka.leader.epoch.end_offset"] == 9
    assert truncate.attributes["kafka.partitions.failed"] == ("orders-3",)


def test_below_0_11_0_iv2_the_follower_asks_nothing_and_truncates_to_its_high_watermark(tmp_path: Path) -> None:
    manager = FakeReplicaManager()
    follower_replica(tmp_path, manager, TP, 1, batch(0, 0, b"a", b"b", b"c"))
    thread = fetcher(tmp_path, manager, **{"inter.broker.protocol.version": "0.11.0-IV1"})
    thread.leader_endpoint = FakeLeader({TP: (Errors.NONE, 3)})
    thread.partition_states[TP] = PartitionFetchState.of(3, True)
    thread.maybe_truncate()
    assert thread.leader_endpoint.requests == []
    assert manager.replicas[TP].log_end_offset == 1  # the acknowledged records at 1 and 2 are gone


def test_a_failed_epoch_request_marks_every_partition_for_another_try(tmp_path: Path) -> None:
    manager = FakeReplicaManager()
    follower_replica(tmp_path, manager, TP, 0, batch(0, 0, b"a"))
    thread = fetcher(tmp_path, manager)
    thread.leader_endpoint = FakeLeader(ConnectionError("the leader went away"))
    assert thread.fetch_epochs_from_leader({TP: 0}) == {TP: EpochEndOffset(Errors.UNKNOWN_SERVER_ERROR,
                                                                           UNDEFINED_EPOCH_OFFSET)}
    thread.partition_states[TP] = PartitionFetchState.of(1, True)
    thread.maybe_truncate()
    assert manager.replicas[TP].log_end_offset == 1 and thread.partition_states[TP].truncating_log
