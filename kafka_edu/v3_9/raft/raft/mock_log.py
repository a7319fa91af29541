"""Port of raft/src/test/java/org/apache/kafka/raft/MockLog.java (Kafka 3.9): a ReplicatedLog in memory, for the
raft client's tests and the raft simulation.

It keeps batches of entries (offset, record, and a unique MockOffsetMetadata id that a high watermark's metadata must
match), the start offset of each epoch, and snapshots as MockRawSnapshotReaders. `flush` only moves the first
unflushed offset, and `reopen` drops what was not flushed, as a crash would. A read returns at most two batches, so
tests see partial reads.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import OffsetOutOfRangeException
from kafka_edu.v1_0_2.clients.common.record.compression_type import CompressionType
from kafka_edu.v1_0_2.clients.common.record.file_records import MemoryRecords, TimestampType
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import MemoryRecordsBuilder, SimpleRecord
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v3_9.raft.raft.isolation import Isolation
from kafka_edu.v3_9.raft.raft.log_fetch_info import LogAppendInfo, LogFetchInfo
from kafka_edu.v3_9.raft.raft.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.raft.replicated_log import ReplicatedLog
from kafka_edu.v3_9.raft.raft.valid_offset_and_epoch import Kind
from kafka_edu.v3_9.raft.snapshot.mock_raw_snapshot_reader import MockRawSnapshotReader
from kafka_edu.v3_9.raft.snapshot.mock_raw_snapshot_writer import MockRawSnapshotWriter

log = logging.getLogger("org.apache.kafka.raft.MockLog")

_ID_GENERATOR = itertools.count()
NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
NO_SEQUENCE = -1


@dataclass(frozen=True)
class MockOffsetMetadata:
    id: int


@dataclass(frozen=True)
class LogEntry:
    metadata: MockOffsetMetadata
    offset: int
    record: SimpleRecord

    def log_offset_metadata(self) -> LogOffsetMetadata:
        return LogOffsetMetadata(self.offset, self.metadata)


@dataclass
class LogBatch:
    epoch: int
    is_control_batch: bool
    entries: list[LogEntry]

    def __post_init__(self) -> None:
        if not self.entries:
            raise ValueError("Empty batches are not supported")

    def first_offset(self) -> int:
        return self.entries[0].offset

    def first(self) -> LogEntry:
        return self.entries[0]

    def last_offset(self) -> int:
        return self.entries[-1].offset

    def last(self) -> LogEntry:
        return self.entries[-1]

    def write_to(self, buffer: bytearray) -> bytearray:
        """Append this batch, as a v2 record batch, to `buffer`; returns it."""
        first = self.first()
        builder = MemoryRecordsBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, first.offset,
                                       first.record.timestamp, NO_PRODUCER_ID, NO_PRODUCER_EPOCH, NO_SEQUENCE, False,
                                       self.epoch, is_control_batch=self.is_control_batch)
        for entry in self.entries:
            record = entry.record
            builder._append_with_offset(entry.offset, self.is_control_batch, record.timestamp, record.key,
                                        record.value, list(record.headers))
        buffer += builder.build().buffer
        return buffer


@dataclass
class EpochStartOffset:
    epoch: int
    start_offset: int


class MockLog(ReplicatedLog):
    """MockLog(topicPartition, topicId, logContext); the log context only names the logger in Kafka."""

    def __init__(self, topic_partition: TopicPartition, topic_id: Any, log_context: Any = None) -> None:
        self._topic_partition = topic_partition
        self._topic_id = topic_id
        self.epoch_start_offsets: list[EpochStartOffset] = []
        self.batches: list[LogBatch] = []
        self.snapshots: dict[OffsetAndEpoch, MockRawSnapshotReader] = {}
        self._next_id = next(_ID_GENERATOR)
        self._high_watermark = LogOffsetMetadata(0, None)
        self._first_unflushed_offset = 0
        self._flushed_since_last_checked = False

    def truncate_to(self, offset: int) -> None:
        if offset < self._high_watermark.offset:
            raise ValueError(f"Illegal attempt to truncate to offset {offset} which is below the current high "
                             f"watermark {self._high_watermark}")
        log.debug("Truncating log to end offset %d", offset)
        self.batches = [b for b in self.batches if b.last_offset() < offset]
        self.epoch_start_offsets = [e for e in self.epoch_start_offsets if e.start_offset < offset]
        self._first_unflushed_offset = min(self._first_unflushed_offset, self.end_offset().offset)

    def truncate_to_latest_snapshot(self) -> bool:
        snapshot_id = self.latest_snapshot_id()
        if snapshot_id is None:
            return False
        last_fetched = self._log_last_fetched_epoch()
        last_fetched = 0 if last_fetched is None else last_fetched
        if snapshot_id.epoch > last_fetched or (snapshot_id.epoch == last_fetched
                                                 and snapshot_id.offset > self.end_offset().offset):
            log.debug("Truncating to the latest snapshot at %s", snapshot_id)
            self.batches.clear()
            self.epoch_start_offsets.clear()
            self.snapshots = {k: v for k, v in self.snapshots.items() if not k < snapshot_id}
            self.update_high_watermark(LogOffsetMetadata(snapshot_id.offset))
            self.flush(False)
            return True
        return False

    def update_high_watermark(self, offset_metadata: LogOffsetMetadata) -> None:
        if self._high_watermark.offset > offset_metadata.offset:
            raise ValueError(f"Non-monotonic update of current high watermark {self._high_watermark} to new value "
                             f"{offset_metadata}")
        if offset_metadata.offset > self.end_offset().offset:
            raise ValueError(f"Attempt to update high watermark to {offset_metadata} which is larger than the "
                             f"current end offset {self.end_offset()}")
        if offset_metadata.offset < self.start_offset():
            raise ValueError(f"Attempt to update high watermark to {offset_metadata} which is smaller than the "
                             f"current start offset {self.start_offset()}")
        self._assert_valid_high_watermark_metadata(offset_metadata)
        self._high_watermark = offset_metadata

    def high_watermark(self) -> LogOffsetMetadata:
        return self._high_watermark

    def topic_partition(self) -> TopicPartition:
        return self._topic_partition

    def topic_id(self) -> Any:
        return self._topic_id

    def _metadata_for_offset(self, offset: int) -> MockOffsetMetadata | None:
        if offset == self.end_offset().offset:
            return self.end_offset().metadata
        for batch in self.batches:
            if batch.last_offset() < offset:
                continue
            for entry in batch.entries:
                if entry.offset == offset:
                    return entry.metadata
        return None

    def _assert_valid_high_watermark_metadata(self, offset_metadata: LogOffsetMetadata) -> None:
        if not isinstance(offset_metadata.metadata, MockOffsetMetadata):
            return
        metadata = self._metadata_for_offset(offset_metadata.offset)
        if metadata is not None and metadata.id != offset_metadata.metadata.id:
            raise ValueError(f"High watermark {offset_metadata.offset} metadata uuid {offset_metadata.metadata.id} "
                             f"does not match the  log's record entry maintained uuid {metadata.id}")

    def _log_last_fetched_epoch(self) -> int | None:
        return self.epoch_start_offsets[-1].epoch if self.epoch_start_offsets else None

    def last_fetched_epoch(self) -> int:
        epoch = self._log_last_fetched_epoch()
        if epoch is not None:
            return epoch
        latest = self.latest_snapshot_id()
        return latest.epoch if latest is not None else 0

    def end_offset_for_epoch(self, epoch: int) -> OffsetAndEpoch:
        return self._last_offset_and_epoch_filtered(lambda e: e.epoch <= epoch)

    def _last_offset_and_epoch_filtered(self, predicate: Callable[[EpochStartOffset], bool]) -> OffsetAndEpoch:
        earliest = self.earliest_snapshot_id()
        epoch_lower_bound = earliest.epoch if earliest is not None else 0
        for epoch_start_offset in self.epoch_start_offsets:
            if not predicate(epoch_start_offset):
                return OffsetAndEpoch(epoch_start_offset.start_offset, epoch_lower_bound)
            epoch_lower_bound = epoch_start_offset.epoch
        return OffsetAndEpoch(self.end_offset().offset, self.last_fetched_epoch())

    def end_offset(self) -> LogOffsetMetadata:
        if self.batches:
            next_offset = self.batches[-1].last().offset + 1
        else:
            latest = self.latest_snapshot_id()
            next_offset = latest.offset if latest is not None else 0
        return LogOffsetMetadata(next_offset, MockOffsetMetadata(self._next_id))

    def start_offset(self) -> int:
        if self.batches:
            return self.batches[0].first().offset
        earliest = self.earliest_snapshot_id()
        return earliest.offset if earliest is not None else 0

    def _build_entries(self, batch: Any) -> list[LogEntry]:
        return [self._build_entry(record.offset, SimpleRecord(record.value, record.key, record.timestamp,
                                                              tuple(record.headers)))
                for record in batch.records()]

    def _build_entry(self, offset: int, record: SimpleRecord) -> LogEntry:
        entry_id = self._next_id
        self._next_id = next(_ID_GENERATOR)
        return LogEntry(MockOffsetMetadata(entry_id), offset, record)

    def append_as_leader(self, records: Any, epoch: int) -> LogAppendInfo:
        return self._append(records, epoch)

    def _append_batch(self, batch: LogBatch) -> int:
        if batch.epoch > self.last_fetched_epoch():
            self.epoch_start_offsets.append(EpochStartOffset(batch.epoch, batch.first_offset()))
        self.batches.append(batch)
        return batch.first_offset()

    def append_as_follower(self, records: Any) -> LogAppendInfo:
        return self._append(records, None)

    def _append(self, records: Any, epoch: int | None) -> LogAppendInfo:
        memory_records = records if isinstance(records, MemoryRecords) else MemoryRecords(bytes(records))
        if memory_records.size_in_bytes() == 0:
            raise ValueError("Attempt to append an empty record set")
        base_offset = self.end_offset().offset
        last_offset = base_offset
        for batch in memory_records.batches():
            if batch.base_offset != self.end_offset().offset:
                # KafkaMetadataLog raises UnexpectedAppendOffsetException here
                raise RuntimeError(f"Illegal append at offset {batch.base_offset} with current end offset of "
                                   f"{self.end_offset().offset}")
            log_batch = LogBatch(epoch if epoch is not None else batch.partition_leader_epoch,
                                 batch.is_control_batch, self._build_entries(batch))
            log.debug("%s appending to the log %s", "Leader" if epoch is not None else "Follower", log_batch)
            self._append_batch(log_batch)
            last_offset = log_batch.last().offset
        return LogAppendInfo(base_offset, last_offset)

    def flush(self, force_flush_active_segment: bool) -> None:
        self._flushed_since_last_checked = True
        self._first_unflushed_offset = self.end_offset().offset

    def last_flushed_offset(self) -> int:
        return self._first_unflushed_offset

    def maybe_clean(self) -> bool:
        return False

    def first_unflushed_offset(self) -> int:
        return self._first_unflushed_offset

    def flushed_since_last_checked(self) -> bool:
        """Whether the log was flushed since the last call."""
        old_value = self._flushed_since_last_checked
        self._flushed_since_last_checked = False
        return old_value

    def reopen(self) -> None:
        """Reopening the log loses whatever was not flushed."""
        self.batches = [b for b in self.batches if b.first_offset() < self._first_unflushed_offset]
        self.epoch_start_offsets = [e for e in self.epoch_start_offsets
                                    if e.start_offset < self._first_unflushed_offset]
        self._high_watermark = LogOffsetMetadata(0, None)

    def read_batches(self, start_offset: int, max_offset: int | None = None) -> list[LogBatch]:
        self._verify_offset_in_range(start_offset)
        max_offset = self.end_offset().offset if max_offset is None else max_offset
        if start_offset == max_offset:
            return []
        return [b for b in self.batches if start_offset <= b.last_offset() < max_offset]

    def _verify_offset_in_range(self, offset: int) -> None:
        if offset > self.end_offset().offset:
            raise OffsetOutOfRangeException(f"Requested offset {offset} is larger than then log end offset "
                                            f"{self.end_offset().offset}")
        if offset < self.start_offset():
            raise OffsetOutOfRangeException(f"Requested offset {offset} is smaller than then log start offset "
                                            f"{self.start_offset()}")

    def read(self, start_offset: int, isolation: Isolation) -> LogFetchInfo:
        self._verify_offset_in_range(start_offset)
        max_offset = (self._high_watermark.offset if isolation is Isolation.COMMITTED
                      else self.end_offset().offset)
        if start_offset >= max_offset:
            return LogFetchInfo(b"", LogOffsetMetadata(start_offset, self._metadata_for_offset(start_offset)))
        buffer = bytearray()
        batch_count = 0
        batch_start_offset: LogOffsetMetadata | None = None
        for batch in self.batches:
            # whole batches only: one ending past max_offset is left out, as a consumer drops a partial batch
            if start_offset <= batch.last_offset() < max_offset and batch.entries:
                buffer = batch.write_to(buffer)
                if batch_start_offset is None:
                    batch_start_offset = batch.entries[0].log_offset_metadata()
                # at most two batches: tests see partial reads
                batch_count += 1
                if batch_count >= 2:
                    break
        if batch_start_offset is None:
            raise RuntimeError(f"Expected to find at least one entry starting from offset {start_offset} but "
                               "found none")
        return LogFetchInfo(bytes(buffer), batch_start_offset)

    def initialize_leader_epoch(self, epoch: int) -> None:
        start_offset = self.end_offset().offset
        self.epoch_start_offsets = [e for e in self.epoch_start_offsets
                                    if not (e.start_offset >= start_offset or e.epoch >= epoch)]
        self.epoch_start_offsets.append(EpochStartOffset(epoch, start_offset))

    def create_new_snapshot(self, snapshot_id: OffsetAndEpoch) -> MockRawSnapshotWriter | None:
        if snapshot_id.offset < self.start_offset():
            log.info("Cannot create a snapshot with an id (%s) less than the log start offset (%d)", snapshot_id,
                     self.start_offset())
            return None
        high_watermark_offset = self.high_watermark().offset
        if snapshot_id.offset > high_watermark_offset:
            raise ValueError(f"Cannot create a snapshot with an id ({snapshot_id}) greater than the high-watermark "
                             f"({high_watermark_offset})")
        valid_offset_and_epoch = self.validate_offset_and_epoch(snapshot_id.offset, snapshot_id.epoch)
        if valid_offset_and_epoch.kind is not Kind.VALID:
            raise ValueError(f"Snapshot id ({snapshot_id}) is not valid according to the log: "
                             f"{valid_offset_and_epoch}")
        return self.create_new_snapshot_unchecked(snapshot_id)

    def create_new_snapshot_unchecked(self, snapshot_id: OffsetAndEpoch) -> MockRawSnapshotWriter | None:
        if snapshot_id in self.snapshots:
            return None

        def on_frozen(data: bytes) -> None:
            self.snapshots.setdefault(snapshot_id, MockRawSnapshotReader(snapshot_id, data))
        return MockRawSnapshotWriter(snapshot_id, on_frozen)

    def read_snapshot(self, snapshot_id: OffsetAndEpoch) -> MockRawSnapshotReader | None:
        return self.snapshots.get(snapshot_id)

    def latest_snapshot(self) -> MockRawSnapshotReader | None:
        snapshot_id = self.latest_snapshot_id()
        return None if snapshot_id is None else self.read_snapshot(snapshot_id)

    def latest_snapshot_id(self) -> OffsetAndEpoch | None:
        return max(self.snapshots, default=None)

    def earliest_snapshot_id(self) -> OffsetAndEpoch | None:
        return min(self.snapshots, default=None)

    def on_snapshot_frozen(self, snapshot_id: OffsetAndEpoch) -> None:
        pass

    def delete_before_snapshot(self, snapshot_id: OffsetAndEpoch) -> bool:
        if self.start_offset() > snapshot_id.offset:
            raise OffsetOutOfRangeException(f"New log start ({snapshot_id}) is less than the current log start "
                                            f"offset ({self.start_offset()})")
        if self._high_watermark.offset < snapshot_id.offset:
            raise OffsetOutOfRangeException(f"New log start ({snapshot_id}) is greater than the high watermark "
                                            f"({self._high_watermark.offset})")
        if snapshot_id not in self.snapshots:
            return False
        self.snapshots = {k: v for k, v in self.snapshots.items() if not k < snapshot_id}
        log.debug("Deleting batches included in the snapshot %s", snapshot_id)
        self.batches = [b for b in self.batches if b.last_offset() >= snapshot_id.offset]
        last = None
        kept = []
        for epoch_start_offset in self.epoch_start_offsets:
            if epoch_start_offset.start_offset <= snapshot_id.offset:
                last = epoch_start_offset
            else:
                kept.append(epoch_start_offset)
        if last is not None:
            kept.insert(0, EpochStartOffset(last.epoch, snapshot_id.offset))
        self.epoch_start_offsets = kept
        return True

    def __repr__(self) -> str:
        return (f"MockLog(epochStartOffsets={self.epoch_start_offsets}, batches={self.batches}, "
                f"snapshots={list(self.snapshots)}, highWatermark={self._high_watermark}")
