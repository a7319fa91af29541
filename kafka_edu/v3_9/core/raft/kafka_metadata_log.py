"""Port of core/src/main/scala/kafka/raft/KafkaMetadataLog.scala (Kafka 3.9): the replicated log of
`__cluster_metadata-0`, over the port's `kafka_edu.log.Log`.

Kafka 3.9 builds it on UnifiedLog, which keeps the leader-epoch cache itself; the port's Log is 1.0.2's, which keeps
one too (LeaderEpochFileCache): every append assigns its batches' epochs, every truncation trims the cache.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kafka_edu.v1_0_2.clients.common.config.config_def import ConfigException
from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, KafkaException
from kafka_edu.v1_0_2.core.log.log import Log, TopicPartition
from kafka_edu.v1_0_2.core.log.log_config import LogConfig
from kafka_edu.v1_0_2.core.server.epoch.leader_epoch_file_cache import (
    UNDEFINED_EPOCH,
    UNDEFINED_EPOCH_OFFSET,
    LeaderEpochFileCache,
)
from kafka_edu.v3_9.clients.common.uuid import METADATA_TOPIC_ID, Uuid
from kafka_edu.v3_9.raft.raft.isolation import Isolation
from kafka_edu.v3_9.raft.raft.log_fetch_info import LogAppendInfo, LogFetchInfo
from kafka_edu.v3_9.raft.raft.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.raft.replicated_log import ReplicatedLog
from kafka_edu.v3_9.raft.raft.valid_offset_and_epoch import Kind
from kafka_edu.v3_9.raft.snapshot.file_raw_snapshot_reader import FileRawSnapshotReader
from kafka_edu.v3_9.raft.snapshot.file_raw_snapshot_writer import FileRawSnapshotWriter
from kafka_edu.v3_9.raft.snapshot.snapshots import Snapshots

log = logging.getLogger("kafka.raft.KafkaMetadataLog")

METADATA_TOPIC = "__cluster_metadata"


def _system_time_ms() -> int:
    return time.time_ns() // 1_000_000


METADATA_PARTITION = TopicPartition(METADATA_TOPIC, 0)
PARTITION_METADATA_FILENAME = "partition.metadata"


@dataclass(frozen=True)
class MetadataLogConfig:
    """Port of raft/src/main/java/org/apache/kafka/raft/MetadataLogConfig.java (Kafka 3.9): the `metadata.log.*`
    settings, with 3.9's defaults."""

    log_segment_bytes: int = 1024 * 1024 * 1024
    log_segment_min_bytes: int = 8 * 1024 * 1024
    log_segment_millis: int = 7 * 24 * 60 * 60 * 1000
    retention_max_bytes: int = 100 * 1024 * 1024
    retention_millis: int = 7 * 24 * 60 * 60 * 1000
    max_batch_size_in_bytes: int = 8 * 1024 * 1024
    max_fetch_size_in_bytes: int = 8 * 1024 * 1024
    delete_delay_millis: int = 60_000

    @staticmethod
    def from_config(config: Any, max_batch_size_in_bytes: int, max_fetch_size_in_bytes: int) -> MetadataLogConfig:
        """Read the `metadata.log.*` / `metadata.max.retention.*` keys a server config defines, else the defaults."""
        default = MetadataLogConfig()

        def value(key: str, fallback: int) -> int:
            try:
                found = config.get(key)
            except (KeyError, AttributeError, ConfigException):  # a key KafkaConfig does not define
                found = None
            return int(found) if found is not None else fallback

        return MetadataLogConfig(
            log_segment_bytes=value("metadata.log.segment.bytes", default.log_segment_bytes),
            log_segment_min_bytes=value("metadata.log.segment.min.bytes", default.log_segment_min_bytes),
            log_segment_millis=value("metadata.log.segment.ms", default.log_segment_millis),
            retention_max_bytes=value("metadata.max.retention.bytes", default.retention_max_bytes),
            retention_millis=value("metadata.max.retention.ms", default.retention_millis),
            max_batch_size_in_bytes=max_batch_size_in_bytes,
            max_fetch_size_in_bytes=max_fetch_size_in_bytes,
            delete_delay_millis=value("metadata.log.delete.delay.ms", default.delete_delay_millis))


class KafkaMetadataLog(ReplicatedLog):
    def __init__(self, log_: Log, leader_epoch_cache: LeaderEpochFileCache, scheduler: Any,
                 snapshots: dict[OffsetAndEpoch, FileRawSnapshotReader | None], topic_partition: TopicPartition,
                 topic_id: Uuid, config: MetadataLogConfig, time_ms: Callable[[], int] = _system_time_ms) -> None:
        self.log = log_
        self.leader_epoch_cache = leader_epoch_cache
        self.scheduler = scheduler
        # the snapshots on disk, by id; a reader once one was opened. Guarded by the lock: the raft thread and the
        # state machine's snapshot writer both touch it
        self.snapshots = dict(sorted(snapshots.items()))
        self._snapshots_lock = threading.RLock()
        self._topic_partition = topic_partition
        self._topic_id = topic_id
        self.config = config
        self.time_ms = time_ms
        self._high_watermark = LogOffsetMetadata(0)

    @staticmethod
    def apply(topic_partition: TopicPartition, topic_id: Uuid, data_dir: Path, scheduler: Any,
              config: MetadataLogConfig) -> KafkaMetadataLog:
        """Open (and recover) the log in `data_dir`; KafkaMetadataLog.apply."""
        # no time or size retention on the segments themselves: snapshots decide what may go
        default_log_config = LogConfig(segment_bytes=config.log_segment_bytes, segment_ms=config.log_segment_millis,
                                       file_delete_delay_ms=config.delete_delay_millis,
                                       max_message_bytes=config.max_batch_size_in_bytes, retention_ms=-1,
                                       retention_bytes=-1)
        if config.log_segment_bytes < config.log_segment_min_bytes:
            raise KafkaException(f"Cannot set metadata.log.segment.bytes below {config.log_segment_min_bytes}: "
                                 f"{config.log_segment_bytes}")
        # Kafka opens it with lastShutdownClean = false: every start recovers the segments (a torn tail is cut)
        log_ = Log(data_dir, default_log_config, log_start_offset=0, recovery_point=0, scheduler=scheduler)
        _write_partition_metadata(Path(data_dir), topic_id)
        cache = log_.leader_epoch_cache
        _reconcile_leader_epoch_cache(log_, cache)
        metadata_log = KafkaMetadataLog(log_, cache, scheduler, _recover_snapshots(log_), topic_partition, topic_id,
                                        config)
        if config.log_segment_min_bytes != config.max_batch_size_in_bytes:
            log.error("Overriding metadata.log.segment.min.bytes is only supported for testing. Setting this value "
                      "too low may lead to an inability to write batches of metadata records.")
        # a follower that crashed after fetching a snapshot but before truncating its log truncates now
        metadata_log.truncate_to_latest_snapshot()
        return metadata_log

    def read(self, start_offset: int, read_isolation: Isolation) -> LogFetchInfo:
        max_offset = self._high_watermark.offset if read_isolation is Isolation.COMMITTED else None
        records = self.log.read(start_offset, self.config.max_fetch_size_in_bytes, max_offset=max_offset,
                                min_one_message=True)
        return LogFetchInfo(records, LogOffsetMetadata(start_offset))

    def append_as_leader(self, records: bytes, epoch: int) -> LogAppendInfo:
        if len(records) == 0:
            raise IllegalArgumentException("Attempt to append an empty record set")
        info = self.log.append_as_leader(records, epoch, is_from_client=False)
        return self._handle_and_convert_log_append_info(info)

    def append_as_follower(self, records: bytes) -> LogAppendInfo:
        if len(records) == 0:
            raise IllegalArgumentException("Attempt to append an empty record set")
        info = self.log.append_as_follower(records)
        return self._handle_and_convert_log_append_info(info)

    @staticmethod
    def _handle_and_convert_log_append_info(append_info: Any) -> LogAppendInfo:
        if append_info.first_offset != -1:
            return LogAppendInfo(append_info.first_offset, append_info.last_offset)
        raise KafkaException(f"Append failed unexpectedly {append_info}")

    def last_fetched_epoch(self) -> int:
        latest_epoch = self.leader_epoch_cache.latest_epoch()
        if latest_epoch != UNDEFINED_EPOCH:
            return latest_epoch
        snapshot_id = self.latest_snapshot_id()
        if snapshot_id is None:
            return 0
        log_end_offset = self.end_offset().offset
        if snapshot_id.offset == self.start_offset() and snapshot_id.offset == log_end_offset:
            return snapshot_id.epoch  # an empty log after a snapshot: the snapshot's epoch
        raise KafkaException(f"Log doesn't have a last fetch epoch and there is a snapshot ({snapshot_id}). Expected "
                             f"the snapshot's end offset to match the log's end offset ({log_end_offset}) and the "
                             f"log start offset ({self.start_offset()})")

    def end_offset_for_epoch(self, epoch: int) -> OffsetAndEpoch:
        found_epoch, found_offset = self.leader_epoch_cache.end_offset_for_epoch(epoch, self.log.log_end_offset)
        earliest_snapshot_id = self.earliest_snapshot_id()
        if found_offset != UNDEFINED_EPOCH_OFFSET:
            if (earliest_snapshot_id is not None and found_offset == earliest_snapshot_id.offset
                    and found_epoch == epoch):
                # older than anything left in the log: answer with the oldest snapshot, at the log start
                return OffsetAndEpoch(earliest_snapshot_id.offset, earliest_snapshot_id.epoch)
            return OffsetAndEpoch(found_offset, found_epoch)
        return OffsetAndEpoch(self.end_offset().offset, self.last_fetched_epoch())

    def end_offset(self) -> LogOffsetMetadata:
        end = self.log.log_end_offset_metadata
        return LogOffsetMetadata(end.message_offset, (end.segment_base_offset, end.relative_position_in_segment))

    def start_offset(self) -> int:
        return self.log.log_start_offset

    def truncate_to(self, offset: int) -> None:
        if offset < self._high_watermark.offset:
            raise IllegalArgumentException(f"Attempt to truncate to offset {offset}, which is below the current high "
                                           f"watermark {self._high_watermark.offset}")
        self.log.truncate_to(offset)

    def truncate_to_latest_snapshot(self) -> bool:
        """A snapshot past everything in the log (a follower that fetched one): the log restarts empty after it."""
        latest_epoch = self.leader_epoch_cache.latest_epoch()
        latest_epoch = latest_epoch if latest_epoch != UNDEFINED_EPOCH else 0
        snapshot_id = self.latest_snapshot_id()
        if snapshot_id is None or not (snapshot_id.epoch > latest_epoch or (
                snapshot_id.epoch == latest_epoch and snapshot_id.offset > self.end_offset().offset)):
            return False
        self.log.truncate_fully_and_start_at(snapshot_id.offset)
        if self._high_watermark.offset < snapshot_id.offset:
            self._high_watermark = LogOffsetMetadata(snapshot_id.offset)
            self.log.on_high_watermark_incremented(snapshot_id.offset)
        with self._snapshots_lock:
            forgotten = self._forget_snapshots_before(snapshot_id)
        self._remove_snapshots(forgotten)
        return True

    def initialize_leader_epoch(self, epoch: int) -> None:
        self.leader_epoch_cache.assign(epoch, self.log.log_end_offset)

    def update_high_watermark(self, offset_metadata: LogOffsetMetadata) -> None:
        if offset_metadata.offset == self._high_watermark.offset:
            return
        # the log's own high watermark never passes its end; retention never deletes at or above it
        offset = min(offset_metadata.offset, self.log.log_end_offset)
        self._high_watermark = LogOffsetMetadata(offset)
        self.log.on_high_watermark_incremented(offset)

    def high_watermark(self) -> LogOffsetMetadata:
        return self._high_watermark

    def flush(self, force_flush_active_segment: bool) -> None:
        self.log.flush()

    def last_flushed_offset(self) -> int:
        return self.log.recovery_point

    def topic_partition(self) -> TopicPartition:
        return self._topic_partition

    def topic_id(self) -> Uuid:
        return self._topic_id

    def create_new_snapshot(self, snapshot_id: OffsetAndEpoch) -> Any:
        """A writer for a snapshot of the committed log up to `snapshot_id`; None if the log already starts
        after it (or the snapshot exists)."""
        if snapshot_id.offset < self.start_offset():
            log.info("Cannot create a snapshot with an id (%s) less than the log start offset (%d)", snapshot_id,
                     self.start_offset())
            return None
        high_watermark_offset = self._high_watermark.offset
        if snapshot_id.offset > high_watermark_offset:
            raise IllegalArgumentException(f"Cannot create a snapshot with an id ({snapshot_id}) greater than the "
                                           f"high-watermark ({high_watermark_offset})")
        valid_offset_and_epoch = self.validate_offset_and_epoch(snapshot_id.offset, snapshot_id.epoch)
        if valid_offset_and_epoch.kind is not Kind.VALID:
            raise IllegalArgumentException(f"Snapshot id ({snapshot_id}) is not valid according to the log: "
                                           f"{valid_offset_and_epoch}")
        return self.create_new_snapshot_unchecked(snapshot_id)

    def create_new_snapshot_unchecked(self, snapshot_id: OffsetAndEpoch) -> Any:
        """A writer for `snapshot_id` without checking it against the log (a follower fetching the leader's)."""
        with self._snapshots_lock:
            if snapshot_id in self.snapshots:
                return None
        return _NotifyingRawSnapshotWriter(FileRawSnapshotWriter.create(self.log.dir, snapshot_id),
                                           self.on_snapshot_frozen)

    def read_snapshot(self, snapshot_id: OffsetAndEpoch) -> FileRawSnapshotReader | None:
        with self._snapshots_lock:
            if snapshot_id not in self.snapshots:
                return None
            reader = self.snapshots[snapshot_id]
            if reader is None:  # on disk, never read yet
                try:
                    reader = FileRawSnapshotReader.open(self.log.dir, snapshot_id)
                except FileNotFoundError:
                    del self.snapshots[snapshot_id]
                    return None
                self.snapshots[snapshot_id] = reader
            return reader

    def latest_snapshot(self) -> FileRawSnapshotReader | None:
        with self._snapshots_lock:
            snapshot_id = self.latest_snapshot_id()
            return self.read_snapshot(snapshot_id) if snapshot_id is not None else None

    def latest_snapshot_id(self) -> OffsetAndEpoch | None:
        with self._snapshots_lock:
            return next(reversed(self.snapshots)) if self.snapshots else None

    def earliest_snapshot_id(self) -> OffsetAndEpoch | None:
        with self._snapshots_lock:
            return next(iter(self.snapshots)) if self.snapshots else None

    def on_snapshot_frozen(self, snapshot_id: OffsetAndEpoch) -> None:
        with self._snapshots_lock:
            self.snapshots[snapshot_id] = None
            self.snapshots = dict(sorted(self.snapshots.items()))

    def delete_before_snapshot(self, snapshot_id: OffsetAndEpoch) -> bool:
        """Move the log start to `snapshot_id` (which a snapshot now covers): the segments wholly below it and the
        older snapshots go. Only up to the latest snapshot."""
        deleted = False
        forgotten: dict[OffsetAndEpoch, FileRawSnapshotReader | None] = {}
        with self._snapshots_lock:
            latest_snapshot_id = self.latest_snapshot_id()
            if (latest_snapshot_id is not None and snapshot_id in self.snapshots
                    and self.start_offset() < snapshot_id.offset <= latest_snapshot_id.offset):
                self.log.maybe_increment_log_start_offset(snapshot_id.offset)
                deleted = self.log.delete_old_segments() != 0
                forgotten = self._forget_snapshots_before(snapshot_id)
        self._remove_snapshots(forgotten)
        return deleted

    def maybe_clean(self) -> bool:
        """Retention of the metadata log, by snapshots: `metadata.max.retention.bytes` and `.ms` delete the log
        (and the snapshots) before the next snapshot."""
        with self._snapshots_lock:
            did_clean = self._clean_snapshots_retention_size()
            did_clean |= self._clean_snapshots_retention_ms()
            return did_clean

    def _clean_snapshots_retention_ms(self) -> bool:
        if self.config.retention_millis < 0:
            return False

        def expired(snapshot_id: OffsetAndEpoch) -> bool:
            reader = self.read_snapshot(snapshot_id)
            if reader is None:
                return False
            timestamp = Snapshots.last_contained_log_timestamp(reader)
            return self.time_ms() - timestamp > self.config.retention_millis
        return self._clean_snapshots(expired)

    def _clean_snapshots_retention_size(self) -> bool:
        if self.config.retention_max_bytes < 1:
            return False
        snapshot_total_size = sum(r.size_in_bytes() for i in list(self.snapshots)
                                  if (r := self.read_snapshot(i)) is not None)
        log_size = self.log.size

        def over_size(snapshot_id: OffsetAndEpoch) -> bool:
            nonlocal snapshot_total_size
            if log_size + snapshot_total_size > self.config.retention_max_bytes:
                reader = self.read_snapshot(snapshot_id)
                snapshot_total_size -= reader.size_in_bytes() if reader is not None else 0
                return True
            return False
        return self._clean_snapshots(over_size)

    def _clean_snapshots(self, predicate: Callable[[OffsetAndEpoch], bool]) -> bool:
        """Delete the log before each next snapshot while `predicate` holds for the one before it; the latest
        snapshot always stays."""
        ids = list(self.snapshots)
        did_clean = False
        for snapshot_id, next_snapshot_id in zip(ids, ids[1:], strict=False):
            if predicate(snapshot_id) and self.delete_before_snapshot(next_snapshot_id):
                did_clean = True
            else:
                return did_clean
        return did_clean

    def _forget_snapshots_before(self, log_start_snapshot_id: OffsetAndEpoch
                                 ) -> dict[OffsetAndEpoch, FileRawSnapshotReader | None]:
        forgotten = {i: r for i, r in self.snapshots.items() if i < log_start_snapshot_id}
        for snapshot_id in forgotten:
            del self.snapshots[snapshot_id]
        return forgotten

    def _remove_snapshots(self, expired: dict[OffsetAndEpoch, FileRawSnapshotReader | None]) -> None:
        """Renamed `.checkpoint.deleted` at once, removed after file.delete.delay.ms (a reader may still use it)."""
        for snapshot_id in expired:
            Snapshots.mark_for_delete(self.log.dir, snapshot_id)

        def delete_snapshot_files() -> None:
            for snapshot_id, reader in expired.items():
                if reader is not None:
                    reader.close()
                Snapshots.delete_if_exists(self.log.dir, snapshot_id)
        if not expired:
            return
        if self.scheduler is not None:
            self.scheduler.schedule("delete-snapshot-files", delete_snapshot_files,
                                    delay=self.config.delete_delay_millis)
        else:
            delete_snapshot_files()

    def close(self) -> None:
        self.log.close()
        with self._snapshots_lock:
            for reader in self.snapshots.values():
                if reader is not None:
                    reader.close()

    def __str__(self) -> str:
        return (f"KafkaMetadataLog(topicPartition={self._topic_partition}, logStartOffset={self.start_offset()}, "
                f"logEndOffset={self.log.log_end_offset}, highWatermark={self._high_watermark.offset})")


def _reconcile_leader_epoch_cache(log_: Log, cache: LeaderEpochFileCache) -> None:
    """After recovery: entries past the log end go (a torn tail was cut), and the epochs of batches written after
    the checkpoint's last entry are assigned, as UnifiedLog's segment recovery assigns every recovered batch's."""
    log_end_offset = log_.log_end_offset
    cache.clear_and_flush_latest(log_end_offset)
    entries = cache.epoch_entries()
    from_offset = entries[-1].start_offset if entries else log_.log_start_offset
    for segment in log_.log_segments():
        if segment.next_offset() <= from_offset:
            continue
        for batch in segment.log.batches():
            if batch.last_offset >= from_offset and batch.base_offset < log_end_offset:
                cache.assign(batch.partition_leader_epoch, batch.base_offset)


def _recover_snapshots(log_: Log) -> dict[OffsetAndEpoch, FileRawSnapshotReader | None]:
    """The snapshots in the log directory: partial ones, ones marked deleted and ones below the log start go."""
    to_retain: dict[OffsetAndEpoch, FileRawSnapshotReader | None] = {}
    to_delete = []
    for path in Path(log_.dir).iterdir():
        snapshot_path = Snapshots.parse(path)
        if snapshot_path is None:
            continue
        if snapshot_path.partial or snapshot_path.deleted or snapshot_path.snapshot_id.offset < log_.log_start_offset:
            to_delete.append(snapshot_path)
        else:
            to_retain[snapshot_path.snapshot_id] = None
    # a log that does not start at 0 needs a snapshot covering what it no longer has
    if log_.log_start_offset > 0:
        latest = max(to_retain, default=None)
        if latest is None or latest.offset < log_.log_start_offset:
            raise RuntimeError(f"Inconsistent snapshot state: there must be a snapshot at an offset larger then the "
                               f"current log start offset {log_.log_start_offset}, but the latest snapshot is "
                               f"{latest}")
    for snapshot_path in to_delete:
        snapshot_path.path.unlink(missing_ok=True)
        log.info("Deleted unneeded snapshot file with path %s", snapshot_path)
    log.info("Initialized snapshots with IDs %s from %s", sorted(to_retain), log_.dir)
    return dict(sorted(to_retain.items()))


class _NotifyingRawSnapshotWriter:
    """Port of raft/src/main/java/org/apache/kafka/snapshot/NotifyingRawSnapshotWriter.java (Kafka 3.9): tells the
    log once the snapshot is frozen, so it counts among the log's snapshots."""

    def __init__(self, writer: FileRawSnapshotWriter, callback: Callable[[OffsetAndEpoch], None]) -> None:
        self.writer = writer
        self.callback = callback

    def snapshot_id(self) -> OffsetAndEpoch:
        return self.writer.snapshot_id()

    def size_in_bytes(self) -> int:
        return self.writer.size_in_bytes()

    def append(self, records: Any) -> None:
        self.writer.append(records)

    def is_frozen(self) -> bool:
        return self.writer.is_frozen()

    def freeze(self) -> None:
        self.writer.freeze()
        self.callback(self.writer.snapshot_id())  # only once the file is in place under its final name

    def close(self) -> None:
        self.writer.close()


def _write_partition_metadata(dir: Path, topic_id: Uuid) -> None:
    """PartitionMetadataFile (KIP-516): `partition.metadata` names the topic id; written once, tmp file + rename."""
    file = dir / PARTITION_METADATA_FILENAME
    content = f"version: 0\ntopic_id: {topic_id}\n"
    if file.exists() and file.read_text(encoding="utf-8") == content:
        return
    temp = dir / (PARTITION_METADATA_FILENAME + ".tmp")
    with open(temp, "w", encoding="utf-8") as f:
        f.write(content)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temp, file)


__all__ = ["KafkaMetadataLog", "MetadataLogConfig", "METADATA_PARTITION", "METADATA_TOPIC", "METADATA_TOPIC_ID"]
