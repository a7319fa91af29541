"""Raft snapshot files (Kafka 3.9's org.apache.kafka.snapshot): naming, raw writer and reader, records on top."""

from __future__ import annotations

import os
import stat
import uuid
from pathlib import Path

import pytest
from kio.schema.types import TopicName
from kio.static.primitive import i16

from kafka_edu.v1_0_2.clients.common.errors import (
    IllegalStateException,
    InvalidRecordException,
    RecordBatchTooLargeException,
)
from kafka_edu.v1_0_2.clients.common.record.file_records import FileRecords
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import with_records
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType, ControlRecordUtils
from kafka_edu.v3_9.metadata.common.metadata import ApiMessageAndVersion, FeatureLevelRecord, TopicRecord
from kafka_edu.v3_9.metadata.metadata.metadata_record_serde import MetadataRecordSerde
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.snapshot.file_raw_snapshot_reader import FileRawSnapshotReader
from kafka_edu.v3_9.raft.snapshot.file_raw_snapshot_writer import FileRawSnapshotWriter
from kafka_edu.v3_9.raft.snapshot.records_snapshot_reader import RecordsSnapshotReader
from kafka_edu.v3_9.raft.snapshot.records_snapshot_writer import RecordsSnapshotWriter
from kafka_edu.v3_9.raft.snapshot.snapshots import Snapshots

SERDE = MetadataRecordSerde.INSTANCE
SNAPSHOT_ID = OffsetAndEpoch(100, 3)
NOW = 1_730_000_000_000


def _topics(count: int) -> list[ApiMessageAndVersion]:
    return [ApiMessageAndVersion(TopicRecord(name=TopicName(f"topic-{i}"), topic_id=uuid.UUID(int=i + 1)), 0)
            for i in range(count)]


def _write_snapshot(log_dir: Path, records: list[ApiMessageAndVersion], snapshot_id: OffsetAndEpoch = SNAPSHOT_ID,
                    max_batch_size: int = 1024, kraft_version: int = 0) -> int:
    writer = (RecordsSnapshotWriter.Builder()
              .set_raw_snapshot_writer(FileRawSnapshotWriter.create(log_dir, snapshot_id))
              .set_last_contained_log_timestamp(NOW - 5)
              .set_time(lambda: NOW)
              .set_max_batch_size(max_batch_size)
              .set_kraft_version(kraft_version)
              .build(SERDE))
    with writer:
        writer.append(records)
        return writer.freeze()


def test_file_names() -> None:
    assert Snapshots.filename_from_snapshot_id(SNAPSHOT_ID) == "00000000000000000100-0000000003"
    path = Snapshots.snapshot_path(Path("/data/__cluster_metadata-0"), SNAPSHOT_ID)
    assert path == Path("/data/__cluster_metadata-0/00000000000000000100-0000000003.checkpoint")
    parsed = Snapshots.parse(path)
    assert parsed is not None and parsed.snapshot_id == SNAPSHOT_ID and not parsed.partial and not parsed.deleted
    deleted = Snapshots.parse(Snapshots.delete_rename_path(path, SNAPSHOT_ID))
    assert deleted is not None and deleted.deleted and deleted.path.name.endswith(".checkpoint.deleted")
    assert Snapshots.parse(Path("/data/__cluster_metadata-0/00000000000000000000.log")) is None
    assert Snapshots.parse(Path("/data/__cluster_metadata-0/quorum-state")) is None
    assert Snapshots.BOOTSTRAP_SNAPSHOT_ID == OffsetAndEpoch(0, 0)


def test_a_snapshot_is_written_under_a_part_name_and_appears_only_when_frozen(tmp_path: Path) -> None:
    writer = FileRawSnapshotWriter.create(tmp_path, SNAPSHOT_ID)
    [part] = list(tmp_path.iterdir())
    parsed = Snapshots.parse(part)
    assert parsed is not None and parsed.partial and parsed.snapshot_id == SNAPSHOT_ID
    assert part.name.startswith("00000000000000000100-0000000003-") and part.name.endswith(".checkpoint.part")

    batch = with_records(0, NOW, 3, [SERDE.write(r) for r in _topics(2)])
    writer.append(batch)
    writer.append(bytes(batch.buffer))  # a chunk fetched from the leader: any bytes
    assert writer.size_in_bytes() == 2 * batch.size_in_bytes()
    assert not Snapshots.snapshot_path(tmp_path, SNAPSHOT_ID).exists()
    with pytest.raises(FileNotFoundError):  # a .part file is not a snapshot
        FileRawSnapshotReader.open(tmp_path, SNAPSHOT_ID)

    writer.freeze()
    assert writer.is_frozen() and writer.size_in_bytes() == 2 * batch.size_in_bytes()
    final = Snapshots.snapshot_path(tmp_path, SNAPSHOT_ID)
    assert [p.name for p in tmp_path.iterdir()] == [final.name]
    assert os.stat(final).st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) == 0  # read-only once frozen
    with pytest.raises(IllegalStateException, match="Append is not supported. Snapshot is already frozen"):
        writer.append(batch)
    with pytest.raises(IllegalStateException, match="Freeze is not supported"):
        writer.freeze()
    writer.close()  # after freeze: nothing to delete
    assert final.exists()

    with FileRawSnapshotReader.open(tmp_path, SNAPSHOT_ID) as reader:
        assert reader.snapshot_id() == SNAPSHOT_ID and reader.size_in_bytes() == 2 * batch.size_in_bytes()
        assert [b.base_offset for b in reader.records().batches()] == [0, 0]
        assert reader.slice(5, 10) == bytes(batch.buffer)[5:15]


def test_closing_an_unfrozen_writer_throws_the_snapshot_away(tmp_path: Path) -> None:
    writer = FileRawSnapshotWriter.create(tmp_path, SNAPSHOT_ID)
    writer.append(with_records(0, NOW, 3, [b"x"]))
    writer.close()
    assert list(tmp_path.iterdir()) == []


def test_records_round_trip_through_batches_between_header_and_footer(tmp_path: Path) -> None:
    records = _topics(100)
    size = _write_snapshot(tmp_path, records, max_batch_size=1024)
    path = Snapshots.snapshot_path(tmp_path, SNAPSHOT_ID)
    assert size == path.stat().st_size

    # The raw layout: a header control batch at offset 0, full data batches, a footer control batch last.
    raw = FileRecords(path, os.open(path, os.O_RDONLY), 0, 2**31 - 1, is_slice=False)
    batches = [b.load_full_batch() for b in raw.batches()]
    raw.close_handlers()
    assert len(batches) > 3  # 100 records do not fit one 1 KiB batch
    assert all(b.size_in_bytes <= 1024 and b.partition_leader_epoch == 3 for b in batches)
    header, *data, footer = batches
    assert header.is_control_batch and header.base_offset == 0
    [header_record] = list(header.records())
    assert ControlRecordType.parse(header_record.key) is ControlRecordType.SNAPSHOT_HEADER
    assert ControlRecordUtils.deserialize_snapshot_header_record(header_record).last_contained_log_timestamp == NOW - 5
    assert not any(b.is_control_batch for b in data)
    assert [b.base_offset for b in data] == [1] + [b.last_offset + 1 for b in data[:-1]]
    assert footer.is_control_batch and footer.base_offset == data[-1].last_offset + 1
    assert ControlRecordType.parse(next(footer.records()).key) is ControlRecordType.SNAPSHOT_FOOTER

    # Read back: only the data batches, decoded, in order.
    with RecordsSnapshotReader.of(FileRawSnapshotReader.open(tmp_path, SNAPSHOT_ID), SERDE) as reader:
        assert reader.last_contained_log_timestamp() == NOW - 5
        assert (reader.last_contained_log_offset(), reader.last_contained_log_epoch()) == (99, 3)
        read = list(reader)
    assert [b.base_offset for b in read] == [b.base_offset for b in data]
    assert all(b.epoch == 3 and b.append_timestamp == NOW and not b.control_records for b in read)
    assert [r for b in read for r in b.records] == records


def test_a_kraft_version_record_in_the_header_batch_is_read_and_skipped(tmp_path: Path) -> None:
    bootstrap = [ApiMessageAndVersion(FeatureLevelRecord(name="metadata.version", feature_level=i16(21)), 0)]
    _write_snapshot(tmp_path, bootstrap, snapshot_id=Snapshots.BOOTSTRAP_SNAPSHOT_ID, kraft_version=1)
    with RecordsSnapshotReader.of(FileRawSnapshotReader.open(tmp_path, Snapshots.BOOTSTRAP_SNAPSHOT_ID),
                                  SERDE) as reader:
        [batch] = list(reader)
    assert batch.base_offset == 2  # offsets 0 and 1: the header and the KRaftVersionRecord
    assert batch.records == bootstrap


def test_a_snapshot_must_open_with_its_header(tmp_path: Path) -> None:
    writer = FileRawSnapshotWriter.create(tmp_path, SNAPSHOT_ID)
    writer.append(with_records(0, NOW, 3, [SERDE.write(r) for r in _topics(1)]))
    writer.freeze()
    writer.close()
    with RecordsSnapshotReader.of(FileRawSnapshotReader.open(tmp_path, SNAPSHOT_ID), SERDE) as reader:
        with pytest.raises(IllegalStateException, match="First batch is not a control batch"):
            list(reader)


def test_a_corrupt_batch_is_refused(tmp_path: Path) -> None:
    _write_snapshot(tmp_path, _topics(3))
    path = Snapshots.snapshot_path(tmp_path, SNAPSHOT_ID)
    os.chmod(path, 0o644)
    data = bytearray(path.read_bytes())
    data[-3] ^= 0xFF  # inside the footer batch, covered by its CRC
    path.write_bytes(bytes(data))
    with RecordsSnapshotReader.of(FileRawSnapshotReader.open(tmp_path, SNAPSHOT_ID), SERDE) as reader:
        with pytest.raises(InvalidRecordException, match="Record is corrupt"):
            list(reader)


def test_a_record_larger_than_a_batch_is_refused(tmp_path: Path) -> None:
    writer = (RecordsSnapshotWriter.Builder().set_raw_snapshot_writer(FileRawSnapshotWriter.create(tmp_path,
                                                                                                   SNAPSHOT_ID))
              .set_max_batch_size(100).build(SERDE))
    with writer:
        with pytest.raises(RecordBatchTooLargeException):
            writer.append([ApiMessageAndVersion(TopicRecord(name=TopicName("t" * 200), topic_id=uuid.uuid4()), 0)])
    assert list(tmp_path.iterdir()) == []  # closed unfrozen


def test_builder_needs_an_empty_raw_writer(tmp_path: Path) -> None:
    with pytest.raises(IllegalStateException, match="without a RawSnapshotWriter"):
        RecordsSnapshotWriter.Builder().build(SERDE)
    raw = FileRawSnapshotWriter.create(tmp_path, SNAPSHOT_ID)
    raw.append(b"x")
    with pytest.raises(IllegalStateException, match="non-empty snapshot"):
        RecordsSnapshotWriter.Builder().set_raw_snapshot_writer(raw).build(SERDE)
    raw.close()


def test_mark_for_delete_then_delete(tmp_path: Path) -> None:
    _write_snapshot(tmp_path, _topics(1))
    with FileRawSnapshotReader.open(tmp_path, SNAPSHOT_ID) as raw:
        assert Snapshots.last_contained_log_timestamp(raw) == NOW - 5
    marked = Snapshots.mark_for_delete(tmp_path, SNAPSHOT_ID)
    parsed = Snapshots.parse(marked)
    assert parsed is not None and parsed.deleted and [p.name for p in tmp_path.iterdir()] == [marked.name]
    assert Snapshots.delete_if_exists(tmp_path, SNAPSHOT_ID)
    assert list(tmp_path.iterdir()) == []
    assert not Snapshots.delete_if_exists(tmp_path, SNAPSHOT_ID)
