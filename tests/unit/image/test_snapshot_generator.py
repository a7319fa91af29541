"""SnapshotGenerator and SnapshotEmitter (Kafka 3.9): a snapshot once metadata.log.max.record.bytes.between.snapshots
bytes or metadata.log.max.snapshot.interval.ms have gone by since the last one, never a second one while one is
queued or being written; the emitter writes the image through createSnapshot and freezes it."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from kafka_edu.v3_9.metadata.image.loader.log_delta_manifest import LogDeltaManifest
from kafka_edu.v3_9.metadata.image.loader.snapshot_manifest import SnapshotManifest
from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.metadata.image.metadata_provenance import MetadataProvenance
from kafka_edu.v3_9.metadata.image.publisher.snapshot_emitter import SnapshotEmitter
from kafka_edu.v3_9.metadata.image.publisher.snapshot_generator import SnapshotGenerator
from kafka_edu.v3_9.metadata.metadata.metadata_record_serde import MetadataRecordSerde
from kafka_edu.v3_9.raft.raft.leader_and_epoch import LeaderAndEpoch
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.snapshot.file_raw_snapshot_reader import FileRawSnapshotReader
from kafka_edu.v3_9.raft.snapshot.file_raw_snapshot_writer import FileRawSnapshotWriter
from kafka_edu.v3_9.raft.snapshot.records_snapshot_reader import RecordsSnapshotReader
from kafka_edu.v3_9.raft.snapshot.records_snapshot_writer import RecordsSnapshotWriter
from kafka_edu.v3_9.raft.snapshot.snapshots import Snapshots
from tests.integration.helpers import wait_until
from tests.unit.image.records import cluster_records

MS = 1_000_000


class Clock:
    def __init__(self) -> None:
        self.ns = 1_000 * MS

    def nanoseconds(self) -> int:
        return self.ns


class Emitter(SnapshotGenerator.Emitter):
    """Records the images it is asked to write; `hold` keeps a write in progress until released."""

    def __init__(self) -> None:
        self.images: list[MetadataImage] = []
        self.hold = threading.Event()
        self.hold.set()
        self.started = threading.Event()

    def maybe_emit(self, image: MetadataImage) -> None:
        self.started.set()
        self.hold.wait(10)
        self.images.append(image)


def image_at(offset: int) -> MetadataImage:
    delta = MetadataDelta.Builder().build()
    for record in cluster_records():
        delta.replay(record.message)
    return delta.apply(MetadataProvenance(offset, 2, 5_000 + offset))


def log_delta(generator: SnapshotGenerator, offset: int, num_bytes: int) -> None:
    image = image_at(offset)
    manifest = LogDeltaManifest(image.provenance, LeaderAndEpoch(1, 2), 1, 10, num_bytes)
    generator.on_metadata_update(MetadataDelta(image), image, manifest)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def emitter() -> Emitter:
    return Emitter()


def generator_of(emitter: Emitter, clock: Clock, max_bytes: int = 100, max_interval_ms: int = 0
                 ) -> SnapshotGenerator:
    return (SnapshotGenerator.Builder(emitter).set_node_id(1).set_time(clock)
            .set_max_bytes_since_last_snapshot(max_bytes).set_max_time_since_last_snapshot_ns(max_interval_ms * MS)
            .set_thread_name_prefix("test-").build())


def drained(generator: SnapshotGenerator) -> None:
    wait_until(generator.event_queue.is_empty, 5, "the generator's queue to drain")


def test_a_snapshot_once_the_bytes_since_the_last_one_reach_the_threshold(emitter, clock) -> None:
    generator = generator_of(emitter, clock, max_bytes=100)
    try:
        log_delta(generator, 10, 60)
        drained(generator)
        assert emitter.images == []  # 60 < 100
        log_delta(generator, 20, 40)  # 100: the threshold is reached
        drained(generator)
        assert [i.offset() for i in emitter.images] == [20]
        assert generator.bytes_since_last_snapshot == 0  # counting starts again
        log_delta(generator, 30, 99)
        drained(generator)
        assert len(emitter.images) == 1
        log_delta(generator, 40, 1)
        drained(generator)
        assert [i.offset() for i in emitter.images] == [20, 40]
    finally:
        generator.close()


def test_a_snapshot_once_the_interval_has_passed_and_none_when_it_is_zero(emitter, clock) -> None:
    generator = generator_of(emitter, clock, max_bytes=10**9, max_interval_ms=60_000)
    try:
        clock.ns += 59_999 * MS
        log_delta(generator, 10, 1)
        drained(generator)
        assert emitter.images == []
        clock.ns += 1 * MS
        log_delta(generator, 11, 1)
        drained(generator)
        assert [i.offset() for i in emitter.images] == [11]
        clock.ns += 30_000 * MS  # the interval counts from that snapshot
        log_delta(generator, 12, 1)
        drained(generator)
        assert len(emitter.images) == 1
    finally:
        generator.close()
    untimed = generator_of(emitter, clock, max_bytes=10**9, max_interval_ms=0)
    try:
        clock.ns += 10**6 * 60_000 * MS
        log_delta(untimed, 13, 1)
        drained(untimed)
        assert len(emitter.images) == 1
    finally:
        untimed.close()


def test_no_second_snapshot_is_scheduled_while_one_is_in_progress(emitter, clock) -> None:
    generator = generator_of(emitter, clock, max_bytes=100)
    try:
        emitter.hold.clear()
        log_delta(generator, 10, 100)
        assert emitter.started.wait(5)  # being written now
        log_delta(generator, 20, 100)  # over the threshold again, but a snapshot is in progress
        log_delta(generator, 30, 500)
        assert generator.event_queue.size() == 1
        emitter.hold.set()
        drained(generator)
        assert [i.offset() for i in emitter.images] == [10]
        log_delta(generator, 40, 100)
        drained(generator)
        assert [i.offset() for i in emitter.images] == [10, 40]
    finally:
        emitter.hold.set()
        generator.close()


def test_a_loaded_snapshot_resets_the_counters_and_a_disabled_generator_writes_nothing(emitter, clock) -> None:
    generator = generator_of(emitter, clock, max_bytes=100)
    try:
        log_delta(generator, 10, 90)
        image = image_at(50)
        generator.on_metadata_update(MetadataDelta(image), image, SnapshotManifest(image.provenance, 1))
        log_delta(generator, 60, 90)
        drained(generator)
        assert emitter.images == [] and generator.bytes_since_last_snapshot == 90

        generator.disabled_reason.compare_and_set(None, "metadata loading fault")
        log_delta(generator, 70, 10)
        drained(generator)
        assert emitter.images == []
    finally:
        generator.close()


class RaftClientStub:
    """createSnapshot as KafkaRaftClient does it over a log directory: None when the snapshot exists."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.created: list[tuple[OffsetAndEpoch, int]] = []

    def create_snapshot(self, snapshot_id: OffsetAndEpoch, last_contained_log_timestamp: int):
        self.created.append((snapshot_id, last_contained_log_timestamp))
        if Snapshots.snapshot_path(self.log_dir, snapshot_id).exists():
            return None
        return (RecordsSnapshotWriter.Builder()
                .set_raw_snapshot_writer(FileRawSnapshotWriter.create(self.log_dir, snapshot_id))
                .set_last_contained_log_timestamp(last_contained_log_timestamp)
                .build(MetadataRecordSerde.INSTANCE))


def test_the_emitter_writes_the_image_as_the_snapshot_after_its_last_offset(tmp_path: Path) -> None:
    client = RaftClientStub(tmp_path)
    emitter = SnapshotEmitter.Builder().set_node_id(1).set_raft_client(client).set_batch_size(3).build()
    image = image_at(41)
    emitter.maybe_emit(image)

    # createSnapshot(OffsetAndEpoch(lastContainedOffset + 1, epoch), lastContainedLogAppendTimeMs)
    assert client.created == [(OffsetAndEpoch(42, 2), 5_041)]
    assert (tmp_path / "00000000000000000042-0000000002.checkpoint").exists()
    assert not list(tmp_path.glob("*.part"))  # frozen
    assert emitter.latest_snapshot_generated_bytes == (tmp_path / "00000000000000000042-0000000002.checkpoint"
                                                       ).stat().st_size
    reader = RecordsSnapshotReader.of(FileRawSnapshotReader.open(tmp_path, OffsetAndEpoch(42, 2)),
                                      MetadataRecordSerde.INSTANCE)
    with reader:
        records = [r for batch in reader for r in batch.records]
        assert reader.last_contained_log_timestamp() == 5_041
    delta = MetadataDelta.Builder().build()
    for record in records:
        delta.replay(record.message)
    delta.finish_snapshot()
    assert delta.apply(image.provenance) == image

    emitter.maybe_emit(image)  # the same offset again: it exists, nothing is written, nothing fails
    assert len(client.created) == 2 and len(list(tmp_path.glob("*.checkpoint"))) == 1
