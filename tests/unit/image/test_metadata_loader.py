"""MetadataLoader (Kafka 3.9): committed batches become deltas and images on the loader's own thread; nothing is
published before the loader has caught up with the high watermark; a snapshot load replaces the image; a publisher
installed late first gets the whole image."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from kafka_edu.v3_9.metadata.common.metadata import (
    AbortTransactionRecord,
    ApiMessageAndVersion,
    BeginTransactionRecord,
    EndTransactionRecord,
)
from kafka_edu.v3_9.metadata.image.loader.loader_manifest import LoaderManifestType
from kafka_edu.v3_9.metadata.image.loader.metadata_loader import MetadataLoader
from kafka_edu.v3_9.metadata.image.metadata_provenance import MetadataProvenance
from kafka_edu.v3_9.metadata.image.publisher.metadata_publisher import MetadataPublisher
from kafka_edu.v3_9.raft.raft.batch import Batch
from kafka_edu.v3_9.raft.raft.batch_reader import CloseListener
from kafka_edu.v3_9.raft.raft.internals.memory_batch_reader import MemoryBatchReader
from kafka_edu.v3_9.raft.raft.leader_and_epoch import LeaderAndEpoch
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.snapshot.snapshot_reader import SnapshotReader
from tests.integration.helpers import wait_until
from tests.unit.image.records import (
    ORDERS,
    PAYMENTS,
    feature_level,
    no_op,
    partition,
    register_broker,
    topic,
    unfence,
)

EPOCH = 3


class Recorder(MetadataPublisher):
    def __init__(self, name: str = "recorder") -> None:
        self._name = name
        self.updates: list[tuple] = []  # (manifest, delta, image)
        self.leaders: list[LeaderAndEpoch] = []
        self.closed = False

    def name(self) -> str:
        return self._name

    def on_controller_change(self, new_leader_and_epoch: LeaderAndEpoch) -> None:
        self.leaders.append(new_leader_and_epoch)

    def on_metadata_update(self, delta, new_image, manifest) -> None:
        self.updates.append((manifest, delta, new_image))

    def close(self) -> None:
        self.closed = True


class Closes(CloseListener):
    def __init__(self) -> None:
        self.closed: list = []

    def on_close(self, closeable) -> None:
        self.closed.append(closeable)


class ListSnapshotReader(SnapshotReader):
    def __init__(self, snapshot_id: OffsetAndEpoch, records: list[ApiMessageAndVersion], timestamp: int) -> None:
        self._id, self._timestamp = snapshot_id, timestamp
        self._batches = iter([Batch.data(0, snapshot_id.epoch, timestamp, 100, records)])
        self.closed = False

    def snapshot_id(self) -> OffsetAndEpoch:
        return self._id

    def last_contained_log_offset(self) -> int:
        return self._id.offset - 1

    def last_contained_log_epoch(self) -> int:
        return self._id.epoch

    def last_contained_log_timestamp(self) -> int:
        return self._timestamp

    def __next__(self) -> Batch:
        return next(self._batches)

    def close(self) -> None:
        self.closed = True


class Log:
    """Hands the loader committed batches at consecutive offsets, as the raft client does."""

    def __init__(self, loader: MetadataLoader) -> None:
        self.loader = loader
        self.next_offset = 0
        self.closes = Closes()
        self.high_watermark: int | None = None

    def commit(self, *batches: list[ApiMessageAndVersion]) -> MemoryBatchReader:
        made = []
        for records in batches:
            made.append(Batch.data(self.next_offset, EPOCH, 1_000 + self.next_offset, 50 * len(records), records))
            self.next_offset += len(records)
        reader = MemoryBatchReader.of(made, self.closes)
        self.loader.handle_commit(reader)
        return reader

    def commit_control(self) -> None:
        batch = Batch.control(self.next_offset, EPOCH, 1_000, 80, [("LEADER_CHANGE", None)])
        self.next_offset += 1
        self.loader.handle_commit(MemoryBatchReader.of([batch], self.closes))


@pytest.fixture
def loader_and_log() -> Iterator[tuple[MetadataLoader, Log]]:
    holder: dict[str, Log] = {}
    loader = (MetadataLoader.Builder().set_node_id(1).set_thread_name_prefix("test-")
              .set_high_water_mark_accessor(lambda: holder["log"].high_watermark).build())
    holder["log"] = Log(loader)
    try:
        yield loader, holder["log"]
    finally:
        loader.close()


def test_nothing_is_published_until_the_loader_has_caught_up_with_the_high_watermark(loader_and_log) -> None:
    loader, log = loader_and_log
    publisher = Recorder()
    loader.install_publishers([publisher]).result(5)

    log.commit_control()  # the leader's LeaderChangeMessage at offset 0
    log.commit([feature_level(), register_broker(1, 1)])  # 1-2, the high watermark not known yet
    loader.wait_for_all_events_to_be_handled()
    assert publisher.updates == [] and loader.image.offset() == 2

    log.high_watermark = 8
    log.commit([unfence(1, 1), topic("orders", ORDERS)])  # 3-4: still behind offset 7
    loader.wait_for_all_events_to_be_handled()
    assert publisher.updates == [] and loader.catching_up

    log.commit([partition(ORDERS, 0, (1,)), partition(ORDERS, 1, (1,))], [no_op()])  # 5-7: caught up
    wait_until(lambda: publisher.updates, 5, "the first publish")
    manifest, delta, image = publisher.updates[0]
    # the first thing a publisher sees is the whole image, as a snapshot from nothing
    assert manifest.type() is LoaderManifestType.SNAPSHOT and manifest.provenance().last_contained_offset == 7
    assert delta.image().is_empty() and image.offset() == 7
    assert sorted(image.topics.get_topic("orders").partitions) == [0, 1] and not image.cluster.broker(1).fenced
    assert loader.last_applied_offset() == 7

    # from then on, each commit is a delta from the last image
    reader = log.commit([topic("payments", PAYMENTS)], [no_op(), no_op()])
    wait_until(lambda: len(publisher.updates) == 2, 5, "the next publish")
    manifest, delta, image = publisher.updates[1]
    assert manifest.type() is LoaderManifestType.LOG_DELTA
    assert manifest.provenance() == MetadataProvenance(10, EPOCH, 1_009)
    assert (manifest.num_batches, manifest.num_bytes) == (2, 150)
    assert delta.image() == publisher.updates[0][2] and list(delta.topics_delta().created_topic_ids()) == [PAYMENTS]
    assert delta.cluster_delta() is None and image.topics.get_topic("payments") is not None
    assert reader in log.closes.closed and len(log.closes.closed) == 5  # every reader is closed once loaded


def test_a_metadata_transaction_is_published_whole_or_not_at_all(loader_and_log) -> None:
    loader, log = loader_and_log
    log.high_watermark = 0
    publisher = Recorder()
    loader.install_publishers([publisher]).result(5)
    log.commit([feature_level()])
    wait_until(lambda: publisher.updates, 5, "the first publish")

    log.commit([ApiMessageAndVersion(BeginTransactionRecord(name="Bootstrap records"), 0), register_broker(1, 2)])
    log.commit([topic("orders", ORDERS)])
    loader.wait_for_all_events_to_be_handled()
    assert len(publisher.updates) == 1  # the transaction is still open: nothing of it is published
    log.commit([ApiMessageAndVersion(EndTransactionRecord(), 0)])
    wait_until(lambda: len(publisher.updates) == 2, 5, "the transaction's publish")
    manifest, _, image = publisher.updates[1]
    assert manifest.provenance().last_contained_offset == 4 and image.topics.get_topic("orders") is not None

    log.commit([ApiMessageAndVersion(BeginTransactionRecord(name="t"), 0), topic("payments", PAYMENTS)])
    log.commit([ApiMessageAndVersion(AbortTransactionRecord(reason="Controller failover"), 0)])
    wait_until(lambda: len(publisher.updates) == 3, 5, "the aborted transaction's publish")
    manifest, delta, image = publisher.updates[2]
    # an aborted transaction publishes an empty delta: the offset moves on, the state does not
    assert manifest.provenance().last_contained_offset == 7 and delta.topics_delta() is None
    assert image.topics.get_topic("payments") is None


def test_a_snapshot_load_replaces_the_image_and_the_next_commits_build_on_it(loader_and_log) -> None:
    loader, log = loader_and_log
    log.high_watermark = 0
    publisher = Recorder()
    loader.install_publishers([publisher]).result(5)
    log.commit([feature_level(), register_broker(1, 1), topic("orders", ORDERS), partition(ORDERS, 0, (1,))])
    wait_until(lambda: publisher.updates, 5, "the first publish")

    # a follower that fell behind the leader's log start gets the leader's snapshot: broker 2 and payments only
    reader = ListSnapshotReader(OffsetAndEpoch(100, 5), [feature_level(), register_broker(2, 50),
                                                         topic("payments", PAYMENTS), partition(PAYMENTS, 0, (2,))],
                                timestamp=7_000)
    loader.handle_load_snapshot(reader)
    wait_until(lambda: len(publisher.updates) == 2, 5, "the snapshot's publish")
    manifest, delta, image = publisher.updates[1]
    assert manifest.type() is LoaderManifestType.SNAPSHOT
    assert manifest.provenance() == MetadataProvenance(99, 5, 7_000) and reader.closed
    assert sorted(image.topics.topics_by_name) == ["payments"] and sorted(image.cluster.brokers) == [2]
    assert delta.topics_delta().deleted_topic_ids() == {ORDERS}  # a delta from the image it replaced

    log.next_offset = 100
    log.commit([topic("orders", ORDERS)])
    wait_until(lambda: len(publisher.updates) == 3, 5, "the commit after the snapshot")
    manifest, delta, image = publisher.updates[2]
    assert delta.image() == publisher.updates[1][2] and manifest.provenance().last_contained_offset == 100
    assert sorted(image.topics.topics_by_name) == ["orders", "payments"]


def test_a_publisher_installed_late_gets_the_whole_image_and_the_leader_and_names_are_unique(loader_and_log) -> None:
    loader, log = loader_and_log
    log.high_watermark = 0
    first = Recorder("first")
    loader.install_publishers([first]).result(5)
    loader.handle_leader_change(LeaderAndEpoch(2, EPOCH))
    log.commit([feature_level(), register_broker(1, 1)])
    log.commit([topic("orders", ORDERS)])
    wait_until(lambda: len(first.updates) == 2, 5, "two publishes")

    late = Recorder("late")
    loader.install_publishers([late]).result(5)
    wait_until(lambda: late.updates, 5, "the late publisher's first image")
    manifest, delta, image = late.updates[0]
    assert manifest.type() is LoaderManifestType.SNAPSHOT and image == first.updates[-1][2]
    assert delta.image().is_empty() and delta.topics_delta().created_topic_ids() == {ORDERS}
    assert late.leaders == [LeaderAndEpoch(2, EPOCH)]

    # refused through the fault handler, whose exception names the cause
    with pytest.raises(RuntimeError, match="installPublishers") as refused:
        loader.install_publishers([late]).result(5)
    assert "late, which is already installed" in str(refused.value.__cause__)
    with pytest.raises(RuntimeError, match="installPublishers") as refused:
        loader.install_publishers([Recorder("late")]).result(5)
    assert "already a publisher with that name" in str(refused.value.__cause__)

    loader.handle_leader_change(LeaderAndEpoch(3, EPOCH + 1))
    wait_until(lambda: first.leaders[-1] == LeaderAndEpoch(3, EPOCH + 1) == late.leaders[-1], 5, "the new leader")
    loader.close()
    assert first.closed and late.closed


def test_the_loader_runs_publishers_on_its_own_thread(loader_and_log) -> None:
    loader, log = loader_and_log
    log.high_watermark = 0
    threads: list[str] = []

    class ThreadRecorder(Recorder):
        def on_metadata_update(self, delta, new_image, manifest) -> None:
            threads.append(threading.current_thread().name)

    loader.install_publishers([ThreadRecorder()]).result(5)
    log.commit([feature_level()])
    wait_until(lambda: threads, 5, "a publish")
    assert threads == ["test-metadata-loader-event-handler"]
