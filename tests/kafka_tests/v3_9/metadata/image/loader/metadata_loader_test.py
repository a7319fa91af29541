"""Port of metadata/src/test/java/org/apache/kafka/image/loader/MetadataLoaderTest.java (Kafka 3.9).

Left out: the loader's MetadataLoaderMetrics (docs/kraft.md: metrics are not ported). Where Kafka's case waits on
`handleLoadSnapshotCount` before going on, the port's case goes on after `wait_for_all_events_to_be_handled`, which
Kafka's case calls next anyway. Where it asserts `currentMetadataVersion` (testLoadEmptySnapshot, testReloadSnapshot),
the port asserts the metadata.version of the image the publisher last got instead: the metric is set from that
image, right after the publishers have it.

Java's readers answer hasNext() and next(); a Python reader only __next__. The mock readers' __next__ is one hasNext()
followed, when there is a batch, by one next(): each ticks the MockTime as Kafka's do, so a snapshot read through
takes the 3 ms Kafka's testLoadEmptySnapshot expects.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager

import pytest
from kio.schema.snapshot_header_record.v0.data import SnapshotHeaderRecord
from kio.static.primitive import i16, i64

from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.metadata.common.metadata import (
    AbortTransactionRecord,
    ApiMessageAndVersion,
    BeginTransactionRecord,
    ConfigRecord,
    EndTransactionRecord,
    FeatureLevelRecord,
    PartitionRecord,
    RemoveTopicRecord,
    TopicRecord,
)
from kafka_edu.v3_9.metadata.controller.configuration_control_manager import ConfigResourceType
from kafka_edu.v3_9.metadata.controller.controller_exceptions import FaultHandlerException
from kafka_edu.v3_9.metadata.image.loader.loader_manifest import LoaderManifest, LoaderManifestType
from kafka_edu.v3_9.metadata.image.loader.log_delta_manifest import LogDeltaManifest
from kafka_edu.v3_9.metadata.image.loader.metadata_loader import MetadataLoader
from kafka_edu.v3_9.metadata.image.loader.snapshot_manifest import SnapshotManifest
from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.metadata.image.metadata_provenance import MetadataProvenance
from kafka_edu.v3_9.metadata.image.publisher.metadata_publisher import MetadataPublisher
from kafka_edu.v3_9.raft.raft.batch import Batch
from kafka_edu.v3_9.raft.raft.batch_reader import BatchReader
from kafka_edu.v3_9.raft.raft.control_record import ControlRecord
from kafka_edu.v3_9.raft.raft.leader_and_epoch import LeaderAndEpoch
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.snapshot.snapshot_reader import SnapshotReader
from kafka_edu.v3_9.server_common.server.common.metadata_version import (
    FEATURE_NAME,
    MINIMUM_KRAFT_VERSION,
    MetadataVersion,
)
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import MockFaultHandler

KAFKA = kafka_test_class(
    "3.9", "metadata/src/test/java/org/apache/kafka/image/loader/MetadataLoaderTest.java",
    cases=[
        "testCreateAndClose",
        "testInstallPublishers",
        "testPublisherCannotBeInstalledMoreThanOnce",
        "testRemovePublisher",
        "testLoadEmptySnapshot",
        "testLoadEmptyBatch",
        "testLastAppliedOffset",
        "testCatchingUpState",
        "testReloadSnapshot",
        "testPublishTransaction",
        "testPublishTransactionWithinBatch",
        "testSnapshotDuringTransaction",
        "testNoPublishEmptyImage",
    ],
)

IBP_3_3_IV1 = MetadataVersion.IBP_3_3_IV1
IBP_3_3_IV2 = MetadataVersion.IBP_3_3_IV2
IBP_3_5_IV0 = MetadataVersion.IBP_3_5_IV0
TIMEOUT_S = 60  # the longest a case waits for a publish (Kafka's own waits are 10 s to 1 min)


def _uuid(text: str) -> uuid.UUID:
    """Uuid.fromString, as the uuid.UUID the port's records hold."""
    return uuid.UUID(bytes=Uuid.from_string(text).to_bytes())


def _feature_level(version: MetadataVersion) -> ApiMessageAndVersion:
    return ApiMessageAndVersion(FeatureLevelRecord(name=FEATURE_NAME, feature_level=i16(version.feature_level())), 0)


def _topic(name: str, topic_id: str) -> ApiMessageAndVersion:
    return ApiMessageAndVersion(TopicRecord(name=name, topic_id=_uuid(topic_id)), 0)


def _snapshot_header_batch(base_offset: int) -> Batch[ApiMessageAndVersion]:
    """Batch.control(baseOffset, 100, 4000, 10, [a SNAPSHOT_HEADER control record: `new SnapshotHeaderRecord()`])."""
    header = SnapshotHeaderRecord(version=i16(0), last_contained_log_timestamp=i64(0))
    return Batch.control(base_offset, 100, 4000, 10, [ControlRecord(ControlRecordType.SNAPSHOT_HEADER, header)])


class MockPublisher(MetadataPublisher):
    def __init__(self, name: str = "MockPublisher") -> None:
        self.first_publish: Future[None] = Future()
        self._name = name
        self.latest_delta: MetadataDelta | None = None
        self.latest_image: MetadataImage | None = None
        self.latest_log_delta_manifest: LogDeltaManifest | None = None
        self.latest_snapshot_manifest: SnapshotManifest | None = None
        self.closed = False

    def name(self) -> str:
        return self._name

    def on_metadata_update(self, delta: MetadataDelta, new_image: MetadataImage, manifest: LoaderManifest) -> None:
        self.latest_delta = delta
        self.latest_image = new_image
        if manifest.type() is LoaderManifestType.LOG_DELTA:
            self.latest_log_delta_manifest = manifest  # type: ignore[assignment]
        elif manifest.type() is LoaderManifestType.SNAPSHOT:
            self.latest_snapshot_manifest = manifest  # type: ignore[assignment]
        else:
            raise RuntimeError(f"Invalid manifest type {manifest.type()}")
        _complete(self.first_publish)

    def close(self) -> None:
        if not self.first_publish.done():  # CompletableFuture.completeExceptionally: no-op once complete
            self.first_publish.set_exception(RuntimeError("RejectedExecutionException"))
        self.closed = True


def _complete(future: Future[None]) -> None:
    """CompletableFuture.complete(null): the first completion wins."""
    if not future.done():
        future.set_result(None)


class _TickingReader:
    """hasNext()/next() of Kafka's mock readers, ticking `time` (when set) by 1 ms on each."""

    def __init__(self, batches: list[Batch[ApiMessageAndVersion]]) -> None:
        self._iterator = iter(batches)
        self._next: Batch[ApiMessageAndVersion] | None = None
        self.time: MockTime | None = None
        self.closed = False

    def _tick(self) -> None:
        if self.time is not None:
            self.time.sleep(1)

    def has_next(self) -> bool:
        self._tick()
        if self._next is None:
            self._next = next(self._iterator, None)
        return self._next is not None

    def next_batch(self) -> Batch[ApiMessageAndVersion]:
        self._tick()
        batch, self._next = self._next, None
        if batch is None:
            raise StopIteration
        return batch

    def __next__(self) -> Batch[ApiMessageAndVersion]:
        if not self.has_next():
            raise StopIteration
        return self.next_batch()

    def close(self) -> None:
        self.closed = True


class MockSnapshotReader(_TickingReader, SnapshotReader[ApiMessageAndVersion]):
    def __init__(self, provenance: MetadataProvenance, batches: list[Batch[ApiMessageAndVersion]]) -> None:
        super().__init__(batches)
        self.provenance = provenance

    @staticmethod
    def from_record_lists(provenance: MetadataProvenance,
                          lists: list[list[ApiMessageAndVersion]]) -> MockSnapshotReader:
        return MockSnapshotReader(provenance, [Batch.data(0, 0, 0, 0, records) for records in lists])

    def set_time(self, time: MockTime) -> MockSnapshotReader:
        self.time = time
        return self

    def snapshot_id(self) -> OffsetAndEpoch:
        return self.provenance.snapshot_id()

    def last_contained_log_offset(self) -> int:
        return self.provenance.last_contained_offset

    def last_contained_log_epoch(self) -> int:
        return self.provenance.last_contained_epoch

    def last_contained_log_timestamp(self) -> int:
        return self.provenance.last_contained_log_time_ms


class MockBatchReader(_TickingReader, BatchReader[ApiMessageAndVersion]):
    def __init__(self, base_offset: int, batches: list[Batch[ApiMessageAndVersion]]) -> None:
        super().__init__(batches)
        self._base_offset = base_offset

    @staticmethod
    def new_single_batch_reader(batch_base_offset: int, epoch: int,
                                records: list[ApiMessageAndVersion]) -> MockBatchReader:
        return MockBatchReader(batch_base_offset, [MockBatchReader.new_batch(batch_base_offset, epoch, records)])

    @staticmethod
    def new_batch(batch_base_offset: int, epoch: int,
                  records: list[ApiMessageAndVersion]) -> Batch[ApiMessageAndVersion]:
        return Batch.data(batch_base_offset, epoch, 0, 0, records)

    def set_time(self, time: MockTime) -> MockBatchReader:
        self.time = time
        return self

    def base_offset(self) -> int:
        return self._base_offset

    def last_offset(self) -> int | None:
        return None


@contextmanager
def _loader(fault_handler: MockFaultHandler, high_water_mark: int | None = None, *, time: MockTime | None = None,
            high_water_mark_accessor=None) -> Iterator[MetadataLoader]:
    """`try (MetadataLoader loader = new MetadataLoader.Builder()...build())`: closed at the end of the block."""
    builder = MetadataLoader.Builder().set_fault_handler(fault_handler)
    if time is not None:
        builder.set_time(time)
    builder.set_high_water_mark_accessor(high_water_mark_accessor or (lambda: high_water_mark))
    loader = builder.build()
    try:
        yield loader
    finally:
        loader.close()


def test_create_and_close() -> None:
    fault_handler = MockFaultHandler("testCreateAndClose")
    with _loader(fault_handler, None) as loader:
        assert loader.last_applied_offset() == -1
    fault_handler.maybe_rethrow_first_exception()


def test_install_publishers() -> None:
    fault_handler = MockFaultHandler("testInstallPublishers")
    publishers = [MockPublisher("a"), MockPublisher("b"), MockPublisher("c")]
    with _loader(fault_handler, None) as loader:
        loader.install_publishers(publishers[:2]).result(TIMEOUT_S)
    assert publishers[0].closed
    assert publishers[0].latest_image is None
    assert publishers[1].closed
    assert publishers[1].latest_image is None
    assert not publishers[2].closed
    assert publishers[2].latest_image is None
    fault_handler.maybe_rethrow_first_exception()


@pytest.mark.parametrize(("load_snapshot", "same_object"),
                         [(False, False), (False, True), (True, False), (True, True)])
def test_publisher_cannot_be_installed_more_than_once(load_snapshot: bool, same_object: bool) -> None:
    fault_handler = MockFaultHandler("testPublisherCannotBeInstalledMoreThanOnce")
    publisher = MockPublisher()
    with _loader(fault_handler, 0) as loader:
        loader.install_publishers([publisher]).result(TIMEOUT_S)
        if load_snapshot:
            snapshot_reader = MockSnapshotReader(MetadataProvenance(200, 100, 4000), [_snapshot_header_batch(200)])
            loader.handle_load_snapshot(snapshot_reader)
            # Kafka waits here until handleLoadSnapshotCount is 1 (a metric): the wait below covers it
        loader.wait_for_all_events_to_be_handled()
        if same_object:
            with pytest.raises(FaultHandlerException) as raised:
                loader.install_publishers([publisher]).result(TIMEOUT_S)
            assert str(raised.value) == ("testPublisherCannotBeInstalledMoreThanOnce: Attempted to install "
                                         "publisher MockPublisher, which is already installed.")
        else:
            with pytest.raises(FaultHandlerException) as raised:
                loader.install_publishers([MockPublisher()]).result(TIMEOUT_S)
            assert str(raised.value) == ("testPublisherCannotBeInstalledMoreThanOnce: Attempted to install "
                                         "a new publisher named MockPublisher, but there is already a publisher "
                                         "with that name.")


def test_remove_publisher() -> None:
    fault_handler = MockFaultHandler("testRemovePublisher")
    publishers = [MockPublisher("a"), MockPublisher("b"), MockPublisher("c")]
    with _loader(fault_handler, 1) as loader:
        loader.install_publishers(publishers[:2]).result(TIMEOUT_S)
        loader.remove_and_close_publisher(publishers[1]).result(TIMEOUT_S)
        snapshot_reader = MockSnapshotReader.from_record_lists(MetadataProvenance(100, 50, 2000),
                                                               [[_feature_level(IBP_3_3_IV2)]])
        assert not snapshot_reader.closed
        loader.handle_load_snapshot(snapshot_reader)
        loader.wait_for_all_events_to_be_handled()
        assert snapshot_reader.closed
        publishers[0].first_publish.result(TIMEOUT_S)
        loader.remove_and_close_publisher(publishers[0]).result(TIMEOUT_S)
    assert publishers[0].closed
    assert publishers[0].latest_image.features.metadata_version is IBP_3_3_IV2
    assert publishers[1].closed
    assert publishers[1].latest_image is None
    assert not publishers[2].closed
    assert publishers[2].latest_image is None
    fault_handler.maybe_rethrow_first_exception()


def _load_empty_snapshot(loader: MetadataLoader, offset: int) -> None:
    snapshot_reader = MockSnapshotReader(MetadataProvenance(offset, 100, 4000), [_snapshot_header_batch(200)])
    if isinstance(loader.time, MockTime):
        snapshot_reader.set_time(loader.time)
    loader.handle_load_snapshot(snapshot_reader)
    loader.wait_for_all_events_to_be_handled()


def test_load_empty_snapshot() -> None:
    fault_handler = MockFaultHandler("testLoadEmptySnapshot")
    time = MockTime()
    publishers = [MockPublisher()]
    with _loader(fault_handler, 0, time=time) as loader:
        loader.install_publishers(publishers).result(TIMEOUT_S)
        _load_empty_snapshot(loader, 200)
        publishers[0].first_publish.result(TIMEOUT_S)
        assert loader.last_applied_offset() == 200
        _load_empty_snapshot(loader, 300)
        assert loader.last_applied_offset() == 300
        assert publishers[0].latest_snapshot_manifest == SnapshotManifest(MetadataProvenance(300, 100, 4000),
                                                                          3_000_000)
        # Kafka: loader.metrics().currentMetadataVersion() is MINIMUM_KRAFT_VERSION
        assert publishers[0].latest_image.features.metadata_version is MINIMUM_KRAFT_VERSION
    assert publishers[0].closed
    assert publishers[0].latest_image.features.metadata_version is MetadataVersion.IBP_3_0_IV1
    assert publishers[0].latest_image.is_empty()
    fault_handler.maybe_rethrow_first_exception()


def test_load_empty_batch() -> None:
    fault_handler = MockFaultHandler("testLoadEmptyBatch")
    time = MockTime()
    publishers = [MockPublisher()]
    with _loader(fault_handler, 1, time=time) as loader:
        loader.install_publishers(publishers).result(TIMEOUT_S)
        _load_test_snapshot(loader, 200)
        publishers[0].first_publish.result(TIMEOUT_S)
        batch_reader = MockBatchReader(300, [_snapshot_header_batch(300)]).set_time(time)
        loader.handle_commit(batch_reader)
        loader.wait_for_all_events_to_be_handled()
        assert batch_reader.closed
        assert loader.last_applied_offset() == 300
    assert publishers[0].closed
    assert publishers[0].latest_log_delta_manifest == (LogDeltaManifest.new_builder()
                                                       .provenance(MetadataProvenance(300, 100, 4000))
                                                       .leader_and_epoch(LeaderAndEpoch.UNKNOWN)
                                                       .num_batches(1)
                                                       .elapsed_ns(0)
                                                       .num_bytes(10)
                                                       .build())
    assert publishers[0].latest_image.features.metadata_version is IBP_3_3_IV1
    fault_handler.maybe_rethrow_first_exception()


def test_last_applied_offset() -> None:
    fault_handler = MockFaultHandler("testLastAppliedOffset")
    publishers = [MockPublisher("a"), MockPublisher("b")]
    with _loader(fault_handler, 1) as loader:
        loader.install_publishers(publishers).result(TIMEOUT_S)
        loader.handle_load_snapshot(MockSnapshotReader.from_record_lists(
            MetadataProvenance(200, 100, 4000),
            [[_feature_level(IBP_3_3_IV1)], [_topic("foo", "Uum7sfhHQP-obSvfywmNUA")]]))
        for publisher in publishers:
            publisher.first_publish.result(TIMEOUT_S)
        loader.wait_for_all_events_to_be_handled()
        assert loader.last_applied_offset() == 200
        loader.handle_commit(MockBatchReader(201, [MockBatchReader.new_batch(201, 100, [
            ApiMessageAndVersion(RemoveTopicRecord(topic_id=_uuid("Uum7sfhHQP-obSvfywmNUA")), 0)])]))
        loader.wait_for_all_events_to_be_handled()
        assert loader.last_applied_offset() == 201
    for i in range(2):
        assert publishers[i].closed
        assert publishers[i].latest_image.features.metadata_version is IBP_3_3_IV1
    fault_handler.maybe_rethrow_first_exception()


def test_catching_up_state() -> None:
    fault_handler = MockFaultHandler("testLastAppliedOffset")
    publishers = [MockPublisher("a"), MockPublisher("b")]
    high_water_mark: list[int | None] = [None]  # AtomicReference<OptionalLong>
    with _loader(fault_handler, high_water_mark_accessor=lambda: high_water_mark[0]) as loader:
        loader.install_publishers(publishers).result(TIMEOUT_S)
        _load_test_snapshot(loader, 200)

        # the high watermark is not known yet: still catching up, nothing applied
        assert loader.last_applied_offset() == -1
        assert not publishers[0].first_publish.done()

        # a high watermark of 221 is past the snapshot at 210
        high_water_mark[0] = 221
        _load_test_snapshot(loader, 210)
        assert loader.last_applied_offset() == -1

        # the snapshot at 220 reaches it
        _load_test_snapshot(loader, 220)
        assert loader.last_applied_offset() == 220
        publishers[0].first_publish.result(TIMEOUT_S)
    fault_handler.maybe_rethrow_first_exception()


def _load_test_snapshot(loader: MetadataLoader, offset: int) -> None:
    loader.handle_load_snapshot(MockSnapshotReader.from_record_lists(
        MetadataProvenance(offset, 100, 4000),
        [[_feature_level(IBP_3_3_IV1)], [_topic("foo", "Uum7sfhHQP-obSvfywmNUA")]]))
    loader.wait_for_all_events_to_be_handled()


def _load_test_snapshot2(loader: MetadataLoader, offset: int) -> None:
    loader.handle_load_snapshot(MockSnapshotReader.from_record_lists(
        MetadataProvenance(offset, 100, 4000),
        [[_feature_level(IBP_3_3_IV2)], [_topic("bar", "VcL2Mw-cT4aL6XV9VujzoQ")]]))
    loader.wait_for_all_events_to_be_handled()


def test_reload_snapshot() -> None:
    fault_handler = MockFaultHandler("testLastAppliedOffset")
    publishers = [MockPublisher("a")]
    with _loader(fault_handler, 0) as loader:
        _load_test_snapshot(loader, 100)
        loader.install_publishers(publishers).result(TIMEOUT_S)
        loader.wait_for_all_events_to_be_handled()
        assert publishers[0].first_publish.done()
        assert publishers[0].latest_delta.image().is_empty()
        assert publishers[0].latest_image.provenance.last_contained_offset == 100

        _load_test_snapshot(loader, 200)
        assert loader.last_applied_offset() == 200
        # Kafka: loader.metrics().currentMetadataVersion()
        assert publishers[0].latest_image.features.metadata_version.feature_level() == IBP_3_3_IV1.feature_level()
        assert not publishers[0].latest_delta.image().is_empty()

        _load_test_snapshot2(loader, 400)
        assert loader.last_applied_offset() == 400
        assert publishers[0].latest_image.features.metadata_version.feature_level() == IBP_3_3_IV2.feature_level()

        # the new snapshot replaced the old one's topic
        assert "foo" not in publishers[0].latest_image.topics.topics_by_name
        assert "bar" in publishers[0].latest_image.topics.topics_by_name

        loader.handle_commit(MockBatchReader(500, [MockBatchReader.new_batch(500, 100, [
            _feature_level(IBP_3_5_IV0)])]))
        loader.wait_for_all_events_to_be_handled()
        assert publishers[0].latest_image.features.metadata_version.feature_level() == IBP_3_5_IV0.feature_level()
    fault_handler.maybe_rethrow_first_exception()


@pytest.mark.parametrize("abort_txn", [True, False])
def test_publish_transaction(abort_txn: bool) -> None:
    fault_handler = MockFaultHandler("testTransactions")
    publisher = MockPublisher("testTransactions")
    topic_id = _uuid("dMCqhcK4T5miGH5wEX7NsQ")
    with _loader(fault_handler, 0) as loader:
        loader.install_publishers([publisher]).result(TIMEOUT_S)
        loader.wait_for_all_events_to_be_handled()

        loader.handle_commit(MockBatchReader.new_single_batch_reader(500, 100, [
            ApiMessageAndVersion(BeginTransactionRecord(name="testTransactions"), 0),
            ApiMessageAndVersion(TopicRecord(name="foo", topic_id=topic_id), 0)]))
        loader.wait_for_all_events_to_be_handled()
        publisher.first_publish.result(TIMEOUT_S)
        assert publisher.latest_image.topics.get_topic("foo") is None, \
            "Topic should not be visible since we started transaction"

        loader.handle_commit(MockBatchReader.new_single_batch_reader(500, 100, [
            ApiMessageAndVersion(PartitionRecord(topic_id=topic_id, partition_id=0, replicas=(), isr=()), 0),
            ApiMessageAndVersion(PartitionRecord(topic_id=topic_id, partition_id=1, replicas=(), isr=()), 0)]))
        loader.wait_for_all_events_to_be_handled()
        assert publisher.latest_image.topics.get_topic("foo") is None, \
            "Topic should not be visible after subsequent batch"

        if abort_txn:
            loader.handle_commit(MockBatchReader.new_single_batch_reader(500, 100, [
                ApiMessageAndVersion(AbortTransactionRecord(), 0)]))
            loader.wait_for_all_events_to_be_handled()
            assert publisher.latest_image.topics.get_topic("foo") is None, \
                "Topic should not be visible since the transaction was aborted"
        else:
            loader.handle_commit(MockBatchReader.new_single_batch_reader(500, 100, [
                ApiMessageAndVersion(EndTransactionRecord(), 0)]))
            loader.wait_for_all_events_to_be_handled()
            assert publisher.latest_image.topics.get_topic("foo") is not None, \
                "Topic should be visible now that transaction has ended"
    fault_handler.maybe_rethrow_first_exception()


def test_publish_transaction_within_batch() -> None:
    fault_handler = MockFaultHandler("testPublishTransactionWithinBatch")
    publisher = MockPublisher("testPublishTransactionWithinBatch")
    with _loader(fault_handler, 0) as loader:
        loader.install_publishers([publisher]).result(TIMEOUT_S)
        loader.wait_for_all_events_to_be_handled()

        loader.handle_commit(MockBatchReader.new_single_batch_reader(500, 100, [
            ApiMessageAndVersion(BeginTransactionRecord(name="txn-1"), 0),
            _topic("foo", "HQSM3ccPQISrHqYK_C8GpA"),
            ApiMessageAndVersion(EndTransactionRecord(), 0)]))
        loader.wait_for_all_events_to_be_handled()

        publisher.first_publish.result(TIMEOUT_S)
        assert publisher.latest_image.topics.get_topic("foo") is not None
    fault_handler.maybe_rethrow_first_exception()


def test_snapshot_during_transaction() -> None:
    fault_handler = MockFaultHandler("testSnapshotDuringTransaction")
    publisher = MockPublisher("testSnapshotDuringTransaction")
    with _loader(fault_handler, 0) as loader:
        loader.install_publishers([publisher]).result(TIMEOUT_S)
        loader.wait_for_all_events_to_be_handled()

        loader.handle_commit(MockBatchReader.new_single_batch_reader(500, 100, [
            ApiMessageAndVersion(BeginTransactionRecord(name="txn-1"), 0),
            _topic("foo", "HQSM3ccPQISrHqYK_C8GpA")]))
        loader.wait_for_all_events_to_be_handled()
        publisher.first_publish.result(TIMEOUT_S)
        assert publisher.latest_image.topics.get_topic("foo") is None

        # a snapshot load drops the transaction in flight
        loader.handle_load_snapshot(MockSnapshotReader.from_record_lists(
            MetadataProvenance(600, 101, 4000), [[_topic("foo", "Uum7sfhHQP-obSvfywmNUA")]]))
        loader.wait_for_all_events_to_be_handled()
        topic_id = publisher.latest_image.topics.get_topic("foo").id
        assert str(Uuid.from_bytes(topic_id.bytes)) == "Uum7sfhHQP-obSvfywmNUA"
    fault_handler.maybe_rethrow_first_exception()


def test_no_publish_empty_image() -> None:
    fault_handler = MockFaultHandler("testNoPublishEmptyImage")
    captured_images: list[MetadataImage] = []
    first_publish: Future[None] = Future()
    lock = threading.Lock()

    class CapturingPublisher(MetadataPublisher):
        def name(self) -> str:
            return "testNoPublishEmptyImage"

        def on_metadata_update(self, delta: MetadataDelta, new_image: MetadataImage,
                               manifest: LoaderManifest) -> None:
            with lock:
                captured_images.append(new_image)
            _complete(first_publish)

    with _loader(fault_handler, 1) as loader:
        loader.install_publishers([CapturingPublisher()]).result(TIMEOUT_S)
        loader.handle_commit(MockBatchReader.new_single_batch_reader(0, 1, [
            # any record does
            ApiMessageAndVersion(ConfigRecord(resource_type=int(ConfigResourceType.BROKER), resource_name="3000",
                                              name="foo", value="bar"), 0)]))
        first_publish.result(TIMEOUT_S)

        with lock:
            assert captured_images
            for metadata_image in captured_images:
                assert not metadata_image.is_empty()
    fault_handler.maybe_rethrow_first_exception()
