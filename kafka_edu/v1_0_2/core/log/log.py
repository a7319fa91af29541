"""Port of core/src/main/scala/kafka/log/Log.scala (Kafka 1.0.2)."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from kafka_edu.tracing import span
from kafka_edu.v1_0_2.clients.common.errors import (
    CorruptRecordException,
    IllegalArgumentException,
    InvalidOffsetException,
    InvalidRecordException,
    KafkaException,
    KafkaStorageException,
    OffsetOutOfRangeException,
    OffsetsOutOfOrderException,
    RecordBatchTooLargeException,
    RecordTooLargeException,
    UnexpectedAppendOffsetException,
    UnsupportedForMessageFormatException,
)
from kafka_edu.v1_0_2.clients.common.record.compression_type import CompressionType
from kafka_edu.v1_0_2.clients.common.record.file_records import (
    MAGIC_VALUE_V2,
    NO_TIMESTAMP,
    DefaultRecordBatch,
    FileRecords,
    MemoryRecords,
    TimestampType,
)
from kafka_edu.v1_0_2.clients.common.requests.fetch_response import AbortedTransaction
from kafka_edu.v1_0_2.clients.common.requests.isolation_level import IsolationLevel
from kafka_edu.v1_0_2.core.log import log_validator
from kafka_edu.v1_0_2.core.log.log_config import LogConfig
from kafka_edu.v1_0_2.core.log.log_segment import (
    INDEX_FILE_SUFFIX,
    INT_MAX,
    LOG_FILE_SUFFIX,
    TIME_INDEX_FILE_SUFFIX,
    TXN_INDEX_FILE_SUFFIX,
    FetchDataInfo,
    LogOffsetMetadata,
    LogSegment,
    log_file,
    offset_index_file,
    system_time_ms,
    time_index_file,
    transaction_index_file,
)
from kafka_edu.v1_0_2.core.log.offset_index import OffsetIndex, OffsetPosition
from kafka_edu.v1_0_2.core.log.producer_state_manager import (
    PRODUCER_SNAPSHOT_FILE_SUFFIX,
    BatchMetadata,
    CompletedTxn,
    ProducerAppendInfo,
    ProducerStateManager,
    producer_snapshot_file,
)
from kafka_edu.v1_0_2.core.log.time_index import TimeIndex
from kafka_edu.v1_0_2.core.log.transaction_index import AbortedTxn, TransactionIndex
from kafka_edu.v1_0_2.core.server.checkpoints.leader_epoch_checkpoint_file import LeaderEpochCheckpointFile, new_file
from kafka_edu.v1_0_2.core.server.epoch.leader_epoch_file_cache import LeaderEpochFileCache

# Re-exported: callers import these from kafka_edu.v1_0_2.core.log.log, where they used to be defined.
__all__ = ["CorruptRecordException", "InvalidRecordException", "KafkaStorageException", "OffsetOutOfRangeException",
           "OffsetsOutOfOrderException", "RecordBatchTooLargeException", "RecordTooLargeException",
           "UnexpectedAppendOffsetException", "CompletedTxn", "Log", "LogAppendInfo", "TopicPartition"]

# ListOffsetRequest.EARLIEST_TIMESTAMP / LATEST_TIMESTAMP.
EARLIEST_TIMESTAMP = -2
LATEST_TIMESTAMP = -1

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.server.log_dir_failure_channel import LogDirFailureChannel
    from kafka_edu.v1_0_2.core.utils.kafka_scheduler import KafkaScheduler

logger = logging.getLogger(__name__)


class TopicPartition(NamedTuple):
    """org.apache.kafka.common.TopicPartition."""

    topic: str
    partition: int

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"


@dataclass
class LogAppendInfo:
    """What an append learned about its batches; for a retried (duplicate) batch, the original append's offsets.

    log_append_time is the broker time stamped on the batches under LogAppendTime, else -1 (NO_TIMESTAMP).
    """

    first_offset: int
    last_offset: int
    max_timestamp: int
    offset_of_max_timestamp: int
    log_append_time: int
    log_start_offset: int
    shallow_count: int
    valid_bytes: int
    offsets_monotonic: bool
    source_codec: CompressionType = CompressionType.NONE
    target_codec: CompressionType = CompressionType.NONE
    num_messages: int = 0


class Log:
    """An append-only log of one partition: segments keyed by base offset, the last one taking appends."""

    LogFileSuffix = LOG_FILE_SUFFIX
    IndexFileSuffix = INDEX_FILE_SUFFIX
    TimeIndexFileSuffix = TIME_INDEX_FILE_SUFFIX
    TxnIndexFileSuffix = TXN_INDEX_FILE_SUFFIX
    DeletedFileSuffix = ".deleted"
    CleanedFileSuffix = ".cleaned"
    SwapFileSuffix = ".swap"
    # Written in the log dir (the parent of each partition dir) by LogManager after a clean shutdown.
    CleanShutdownFile = ".kafka_cleanshutdown"
    DeleteDirSuffix = "-delete"
    DeleteDirPattern = re.compile(r"^(\S+)-(\S+)\.(\S+)" + re.escape(DeleteDirSuffix) + "$")
    ProducerSnapshotFileSuffix = PRODUCER_SNAPSHOT_FILE_SUFFIX
    UnknownLogStartOffset = -1

    def __init__(self, dir: str | os.PathLike[str], config: LogConfig, log_start_offset: int = 0,
                 recovery_point: int = 0, scheduler: KafkaScheduler | None = None,
                 time_ms: Callable[[], int] = system_time_ms,
                 log_dir_failure_channel: LogDirFailureChannel | None = None,
                 max_producer_id_expiration_ms: int = 7 * 24 * 60 * 60 * 1000,
                 producer_id_expiration_check_interval_ms: int = 10 * 60 * 1000,
                 producer_state_manager: ProducerStateManager | None = None) -> None:
        """Open the partition directory `dir` (named topic-partition) and load or recover its segments.

        Without a scheduler, delayed work (flush after roll, deleting segment files) runs at once and the
        periodic producer expiration check is not scheduled. The expiration defaults are the broker's
        transactional.id.expiration.ms and producer id expiration check interval. `producer_state_manager` is
        the partition's (Log.apply makes a new one, as without it).
        """
        self.dir = Path(dir)
        self.config = config
        self.topic_partition = Log.parse_topic_partition_name(self.dir)
        self._log_start_offset = log_start_offset
        # The first offset not yet known to be fsynced; recovery starts from its segment.
        self._recovery_point = recovery_point
        self._scheduler = scheduler
        self._log_dir_failure_channel = log_dir_failure_channel
        self._time_ms = time_ms
        self._log_ident = f"[Log partition={self.topic_partition}, dir={self.dir.parent}] "
        # Guards every change to the segments and offsets; reads go without it.
        self._lock = threading.RLock()
        # Set once the index files are unmapped; after that no disk I/O is allowed.
        self._is_memory_mapped_buffer_closed = False
        self._last_flushed_time = time_ms()
        # base offset -> segment, sorted; the last one is the active segment. Kafka uses a ConcurrentSkipListMap;
        # here every change builds a new dict, so readers without the lock never see one change under them.
        self._segments: dict[int, LogSegment] = {}
        # The log end offset with its segment and byte position.
        self._next_offset_metadata = LogOffsetMetadata(0)
        # First offset of a transaction not yet decided or not yet replicated (caps read_committed fetches).
        self.first_unstable_offset: LogOffsetMetadata | None = None
        # Set by the replica layer; segments at or above it are never deleted, and none before it is known.
        self._replica_high_watermark: int | None = None
        self.max_producer_id_expiration_ms = max_producer_id_expiration_ms
        self.producer_state_manager = producer_state_manager if producer_state_manager is not None else \
            ProducerStateManager(self.topic_partition, self.dir, max_producer_id_expiration_ms)
        # (leader epoch, first offset) of every epoch in this log, kept in leader-epoch-checkpoint
        self.leader_epoch_cache = self._initialize_leader_epoch_cache()

        start_ms = time_ms()
        self.dir.mkdir(parents=True, exist_ok=True)
        next_offset = self._load_segments()
        self._next_offset_metadata = LogOffsetMetadata(next_offset, self.active_segment.base_offset,
                                                       self.active_segment.size)
        # epochs past a log cut short by recovery go; so do those below the start, if a crash kept them
        self.leader_epoch_cache.clear_and_flush_latest(self._next_offset_metadata.message_offset)
        self._log_start_offset = max(self._log_start_offset, self.log_segments()[0].base_offset)
        self.leader_epoch_cache.clear_and_flush_earliest(self._log_start_offset)
        self._load_producer_state(self.log_end_offset, reload_from_clean_shutdown=self._has_clean_shutdown_file())
        self._info(f"Completed load of log with {self.number_of_segments} segments, log start offset "
                   f"{self._log_start_offset} and log end offset {self.log_end_offset} in {time_ms() - start_ms} ms")
        if scheduler is not None:
            def expire_producers() -> None:
                with self._lock:
                    self.producer_state_manager.remove_expired_producers(self._time_ms())

            scheduler.schedule("PeriodicProducerExpirationCheck", expire_producers,
                               delay=producer_id_expiration_check_interval_ms,
                               period=producer_id_expiration_check_interval_ms)

    # ---- properties ----

    @property
    def name(self) -> str:
        return self.dir.name

    @property
    def log_start_offset(self) -> int:
        return self._log_start_offset

    @property
    def recovery_point(self) -> int:
        return self._recovery_point

    @property
    def log_end_offset_metadata(self) -> LogOffsetMetadata:
        return self._next_offset_metadata

    @property
    def log_end_offset(self) -> int:
        """The offset the next appended record will get (LEO)."""
        return self._next_offset_metadata.message_offset

    @property
    def size(self) -> int:
        return Log.size_in_bytes(self.log_segments())

    @property
    def number_of_segments(self) -> int:
        return len(self._segments)

    @property
    def active_segment(self) -> LogSegment:
        segments = self._segments
        return segments[next(reversed(segments))]

    @property
    def unflushed_messages(self) -> int:
        return self.log_end_offset - self._recovery_point

    @property
    def last_flush_time(self) -> int:
        return self._last_flushed_time

    # ---- loading ----

    def _initialize_leader_epoch_cache(self) -> LeaderEpochFileCache:
        self.dir.mkdir(parents=True, exist_ok=True)
        return LeaderEpochFileCache(self.topic_partition, lambda: self.log_end_offset,
                                    LeaderEpochCheckpointFile(new_file(self.dir), self._log_dir_failure_channel))

    def _remove_temp_files_and_collect_swap_files(self) -> set[Path]:
        """First pass over the directory: delete leftovers of interrupted deletes and cleanings."""
        swap_files: set[Path] = set()
        for file in self.dir.iterdir():
            if not file.is_file():
                continue
            if not os.access(file, os.R_OK):
                raise OSError(f"Could not read file {file}")
            filename = file.name
            if filename.endswith(Log.DeletedFileSuffix) or filename.endswith(Log.CleanedFileSuffix):
                file.unlink(missing_ok=True)
            elif filename.endswith(Log.SwapFileSuffix):
                # A crash mid-swap: an index is simply rebuilt, a log is swapped in by complete_swap_operations.
                base_file = file.with_name(filename[: -len(Log.SwapFileSuffix)])
                if Log._is_index_file(base_file):
                    file.unlink(missing_ok=True)
                elif Log._is_log_file(base_file):
                    offset = Log.offset_from_file(base_file)
                    offset_index_file(self.dir, offset).unlink(missing_ok=True)
                    time_index_file(self.dir, offset).unlink(missing_ok=True)
                    transaction_index_file(self.dir, offset).unlink(missing_ok=True)
                    swap_files.add(file)
        return swap_files

    def _load_segment_files(self) -> None:
        """Second pass: open a segment per .log file, rebuilding any index that is missing or fails its check."""
        for file in sorted(self.dir.iterdir(), key=lambda f: f.name):
            if not file.is_file():
                continue
            if Log._is_index_file(file):
                offset = Log.offset_from_file(file)
                if not log_file(self.dir, offset).exists():
                    logger.warning("%sFound an orphaned index file %s with no log file", self._log_ident, file)
                    file.unlink(missing_ok=True)
            elif Log._is_log_file(file):
                start_offset = Log.offset_from_file(file)
                index_file = offset_index_file(self.dir, start_offset)
                time_idx_file = time_index_file(self.dir, start_offset)
                index_file_exists = index_file.exists()
                time_index_file_exists = time_idx_file.exists()
                segment = LogSegment.open(self.dir, start_offset, self.config.index_interval_bytes,
                                          self.config.segment_index_bytes, self.config.random_segment_jitter(),
                                          self._time_ms)
                if index_file_exists:
                    try:
                        segment.index.sanity_check()
                        # A time index created just now is full-size zeros; an empty one is what it should be.
                        if not time_index_file_exists:
                            segment.time_index.resize(0)
                        segment.time_index.sanity_check()
                        segment.txn_index.sanity_check()
                    except IllegalArgumentException as e:
                        # Kafka deletes the three index files first; recover() empties and refills them, to the
                        # same effect.
                        logger.warning("%sFound a corrupted index file due to %s. Rebuilding %s, %s and %s",
                                       self._log_ident, e, time_idx_file, index_file, segment.txn_index.file)
                        self._recover_segment(segment)
                else:
                    logger.error("%sCould not find offset index file for log file %s, rebuilding index...",
                                 self._log_ident, segment.log.file)
                    self._recover_segment(segment)
                self.add_segment(segment)

    def _recover_segment(self, segment: LogSegment, leader_epoch_cache: LeaderEpochFileCache | None = None) -> int:
        """Recover one segment with producer state rebuilt up to its base offset (from a snapshot and the log); with
        `leader_epoch_cache`, the epochs of its batches are assigned again."""
        with self._lock:
            state_manager = ProducerStateManager(self.topic_partition, self.dir, self.max_producer_id_expiration_ms)
            state_manager.truncate_and_reload(self._log_start_offset, segment.base_offset, self._time_ms())
            for earlier in self.log_segments(state_manager.map_end_offset, segment.base_offset):
                start_offset = max(earlier.base_offset, state_manager.map_end_offset)
                fetch_data_info = earlier.read(start_offset, None, INT_MAX)
                if fetch_data_info is not None and fetch_data_info.records is not None:
                    self._load_producers_from_log(state_manager, fetch_data_info.records)
            state_manager.update_map_end_offset(segment.base_offset)
            # A snapshot at the base offset spares the next restart this replay if we stop before a checkpoint.
            state_manager.take_snapshot()
            bytes_truncated = segment.recover(state_manager, leader_epoch_cache)
            # And one after the segment, so recovering the next segment starts from here.
            state_manager.take_snapshot()
            return bytes_truncated

    def _complete_swap_operations(self, swap_files: set[Path]) -> None:
        """Finish a swap the log cleaner started: the .swap log replaces the segments it covers."""
        for swap_file in swap_files:
            log_path = swap_file.with_name(swap_file.name[: -len(Log.SwapFileSuffix)])
            start_offset = Log.offset_from_file(log_path)
            index = OffsetIndex(offset_index_file(self.dir, start_offset, Log.SwapFileSuffix), start_offset,
                                self.config.segment_index_bytes)
            time_index = TimeIndex(time_index_file(self.dir, start_offset, Log.SwapFileSuffix), start_offset,
                                   self.config.segment_index_bytes)
            txn_index = TransactionIndex(start_offset, transaction_index_file(self.dir, start_offset,
                                                                              Log.SwapFileSuffix))
            swap_segment = LogSegment(FileRecords.open(swap_file), index, time_index, txn_index, start_offset,
                                      self.config.index_interval_bytes, self.config.random_segment_jitter(),
                                      self._time_ms)
            self._info(f"Found log file {swap_file} from interrupted swap operation, repairing.")
            self._recover_segment(swap_segment)
            old_segments = self.log_segments(swap_segment.base_offset, swap_segment.next_offset())
            self.replace_segments(swap_segment, old_segments, is_recovered_swap_file=True)

    def _load_segments(self) -> int:
        """Load segments from disk and return the log end offset."""
        swap_files = self._remove_temp_files_and_collect_swap_files()
        self._load_segment_files()
        self._complete_swap_operations(swap_files)
        if not self._segments:
            # An empty directory: start with one empty segment at offset 0.
            self.add_segment(LogSegment.open(self.dir, 0, self.config.index_interval_bytes,
                                             self.config.segment_index_bytes, self.config.random_segment_jitter(),
                                             self._time_ms))
            return 0
        if not str(self.dir).endswith(Log.DeleteDirSuffix):
            next_offset = self._recover_log()
            # The active segment's indexes were trimmed at close; give them room again.
            self.active_segment.index.resize(self.config.segment_index_bytes)
            self.active_segment.time_index.resize(self.config.segment_index_bytes)
            return next_offset
        return 0

    def _update_log_end_offset(self, message_offset: int) -> None:
        self._next_offset_metadata = LogOffsetMetadata(message_offset, self.active_segment.base_offset,
                                                       self.active_segment.size)

    def _recover_log(self) -> int:
        """After an unclean shutdown, re-check every segment from the recovery point; return the next offset."""
        if not self._has_clean_shutdown_file():
            unflushed = iter(self.log_segments(self._recovery_point, 2**63 - 1))
            for segment in unflushed:
                self._info(f"Recovering unflushed segment {segment.base_offset}")
                try:
                    truncated_bytes = self._recover_segment(segment, self.leader_epoch_cache)
                except InvalidOffsetException:
                    self._warn(f"Found invalid offset during recovery. Deleting the corrupt segment and creating "
                               f"an empty one with starting offset {segment.base_offset}")
                    truncated_bytes = segment.truncate_to(segment.base_offset)
                if truncated_bytes > 0:
                    # Everything after a corrupt batch is suspect: drop all later segments.
                    self._warn(f"Corruption found in segment {segment.base_offset}, truncating to offset "
                               f"{segment.next_offset()}")
                    for later in unflushed:
                        self._delete_segment(later)
        self._recovery_point = self.active_segment.next_offset()
        return self._recovery_point

    def _load_producer_state(self, last_offset: int, reload_from_clean_shutdown: bool) -> None:
        """Rebuild producer state up to `last_offset`: the newest snapshot at or below it, then the log after it."""
        with self._lock:
            self._check_if_memory_mapped_buffer_closed()
            self._info(f"Loading producer state from offset {last_offset} with message format version {MAGIC_VALUE_V2}")
            psm = self.producer_state_manager
            if psm.latest_snapshot_offset() is None and reload_from_clean_shutdown:
                # No snapshot after a clean shutdown: the upgrade case (a broker that never wrote snapshots).
                # Kafka skips the scan and writes empty snapshots at the last two segments and the end.
                lower = self._lower_segment(self.active_segment.base_offset)
                for offset in ([lower.base_offset] if lower else []) + [self.active_segment.base_offset, last_offset]:
                    psm.update_map_end_offset(offset)
                    psm.take_snapshot()
            else:
                is_empty_before_truncation = psm.is_empty() and psm.map_end_offset >= last_offset
                psm.truncate_and_reload(self._log_start_offset, last_offset, self._time_ms())
                # Scan only when the snapshot is behind and there were producers before (or none was loaded yet).
                if last_offset > psm.map_end_offset and not is_empty_before_truncation:
                    for segment in self.log_segments(psm.map_end_offset, last_offset):
                        start_offset = max(segment.base_offset, psm.map_end_offset, self._log_start_offset)
                        psm.update_map_end_offset(start_offset)
                        psm.take_snapshot()
                        fetch_data_info = segment.read(start_offset, last_offset, INT_MAX)
                        if fetch_data_info is not None and fetch_data_info.records is not None:
                            self._load_producers_from_log(psm, fetch_data_info.records)
                psm.update_map_end_offset(last_offset)
                self._update_first_unstable_offset()

    def _load_producers_from_log(self, producer_state_manager: ProducerStateManager, records: FileRecords) -> None:
        loaded_producers: dict[int, ProducerAppendInfo] = {}
        completed_txns: list[CompletedTxn] = []
        for file_batch in records.batches():
            batch = file_batch.load_full_batch()
            if batch.has_producer_id:
                completed_txn = self._update_producers(batch, loaded_producers, False, producer_state_manager)
                if completed_txn is not None:
                    completed_txns.append(completed_txn)
        for append_info in loaded_producers.values():
            producer_state_manager.update(append_info)
        for completed_txn in completed_txns:
            producer_state_manager.complete_txn(completed_txn)

    @property
    def latest_producer_snapshot_offset(self) -> int | None:
        with self._lock:
            return self.producer_state_manager.latest_snapshot_offset()

    @property
    def oldest_producer_snapshot_offset(self) -> int | None:
        with self._lock:
            return self.producer_state_manager.oldest_snapshot_offset()

    @property
    def latest_producer_state_end_offset(self) -> int:
        with self._lock:
            return self.producer_state_manager.map_end_offset

    def take_producer_snapshot(self) -> None:
        with self._lock:
            self._check_if_memory_mapped_buffer_closed()
            self.producer_state_manager.take_snapshot()

    @property
    def active_producers_with_last_sequence(self) -> dict[int, int]:
        with self._lock:
            return {pid: entry.last_seq for pid, entry in self.producer_state_manager.active_producers.items()}

    def _has_clean_shutdown_file(self) -> bool:
        return (self.dir.parent / Log.CleanShutdownFile).exists()

    def close(self) -> None:
        """Close every segment: trim indexes and fsync. The clean-shutdown marker is LogManager's job."""
        logger.debug("%sClosing log", self._log_ident)
        with self._lock:
            self._check_if_memory_mapped_buffer_closed()
            with self._maybe_handle_io_exception(f"Error while renaming dir for {self.topic_partition} "
                                                 f"in dir {self.dir.parent}"):
                # A snapshot at the log end offset: the next start loads it instead of scanning the log.
                self.producer_state_manager.take_snapshot()
                for segment in self.log_segments():
                    segment.close()

    def close_handlers(self) -> None:
        with self._lock:
            for segment in self.log_segments():
                segment.close_handlers()
            self._is_memory_mapped_buffer_closed = True

    # ---- append ----

    def append_as_leader(self, records: bytes | bytearray | MemoryRecords, leader_epoch: int,
                         is_from_client: bool = True) -> LogAppendInfo:
        """Validate, assign offsets and the leader epoch, check producer sequences, and write the batches."""
        return self.append(records, assign_offsets=True, leader_epoch=leader_epoch, is_from_client=is_from_client)

    def append_as_follower(self, records: bytes | bytearray | MemoryRecords) -> LogAppendInfo:
        """Write batches fetched from the leader as they are, keeping the leader's offsets."""
        return self.append(records, assign_offsets=False, leader_epoch=-1, is_from_client=False)

    def append(self, records: bytes | bytearray | MemoryRecords, assign_offsets: bool = True,
               leader_epoch: int = -1, is_from_client: bool | None = None) -> LogAppendInfo:
        """Append to the active segment, rolling first if it is full; on the leader, give the batches offsets.

        `is_from_client` defaults to `assign_offsets` (a leader append is a producer's unless said otherwise).
        """
        if is_from_client is None:
            is_from_client = assign_offsets
        memory_records = MemoryRecords(records.buffer if isinstance(records, MemoryRecords) else records)
        with self._maybe_handle_io_exception(f"Error while appending records to {self.topic_partition} "
                                             f"in dir {self.dir.parent}"):
            # 1. Per batch: magic, size, CRC; gather offsets, timestamps and the codec.
            append_info = self._analyze_and_validate_records(memory_records, is_from_client)
            if append_info.shallow_count == 0:
                return append_info
            # 2. Drop a partial batch at the end.
            valid_records = self._trim_invalid_bytes(memory_records, append_info)

            with self._lock:
                self._check_if_memory_mapped_buffer_closed()
                if assign_offsets:
                    # 3. LogValidator: check every record, assign offsets (in place when the bytes can be kept).
                    offset = log_validator.LongRef(self._next_offset_metadata.message_offset)
                    append_info.first_offset = offset.value
                    now = self._time_ms()
                    timestamp_type = TimestampType.for_name(self.config.message_timestamp_type)
                    result = log_validator.validate_messages_and_assign_offsets(
                        valid_records, offset, now, append_info.source_codec, append_info.target_codec,
                        self.config.compact, MAGIC_VALUE_V2, timestamp_type,
                        self.config.message_timestamp_difference_max_ms, leader_epoch, is_from_client)
                    valid_records = result.validated_records
                    append_info.max_timestamp = result.max_timestamp
                    append_info.offset_of_max_timestamp = result.shallow_offset_of_max_timestamp
                    append_info.last_offset = offset.value - 1
                    append_info.num_messages = result.num_messages
                    if timestamp_type is TimestampType.LOG_APPEND_TIME:
                        append_info.log_append_time = now
                    # A rebuilt (recompressed) batch may have grown past max.message.bytes.
                    if result.message_size_maybe_changed:
                        for batch in valid_records.batches():
                            if batch.size_in_bytes > self.config.max_message_bytes:
                                raise RecordTooLargeException(
                                    f"Message batch size is {batch.size_in_bytes} bytes which exceeds the maximum "
                                    f"configured size of {self.config.max_message_bytes}.")
                else:
                    # A follower takes the offsets it is given, if they make sense.
                    if not append_info.offsets_monotonic:
                        raise OffsetsOutOfOrderException(
                            f"Out of order offsets found in append to {self.topic_partition}: "
                            f"{[batch.last_offset for batch in valid_records.batches()]}")
                    if append_info.first_offset < self._next_offset_metadata.message_offset:
                        raise UnexpectedAppendOffsetException(
                            f"Unexpected offset in append to {self.topic_partition}. First offset "
                            f"{append_info.first_offset} is less than the next offset "
                            f"{self._next_offset_metadata.message_offset}. Last offset in append: "
                            f"{append_info.last_offset}. Log start offset = {self._log_start_offset}",
                            append_info.first_offset, append_info.last_offset)

                # The epoch the leader stamped on each batch: a new one starts in the cache here. (Only tests and
                # tools append with no epoch, -1; a 1.0.2 leader always has one.)
                for batch in valid_records.batches():
                    if batch.magic >= MAGIC_VALUE_V2 and batch.partition_leader_epoch >= 0:
                        self.leader_epoch_cache.assign(batch.partition_leader_epoch, batch.base_offset)

                if valid_records.size_in_bytes() > self.config.segment_bytes:
                    raise RecordBatchTooLargeException(
                        f"Message batch size is {valid_records.size_in_bytes()} bytes which exceeds the maximum "
                        f"configured segment size of {self.config.segment_bytes}.")

                # 4. Idempotence and transactions: epochs and sequences against the producer state.
                updated_producers, completed_txns, duplicate = self._analyze_and_validate_producer_state(
                    valid_records, is_from_client)
                if duplicate is not None:
                    # A retry of a batch already in the log: answer with where it went, write nothing.
                    append_info.first_offset = duplicate.first_offset
                    append_info.last_offset = duplicate.last_offset
                    append_info.log_append_time = duplicate.timestamp
                    append_info.log_start_offset = self._log_start_offset
                    append_info.num_messages = duplicate.offset_delta + 1
                    return append_info

                # 5. Roll if the active segment is full or old, then write.
                segment = self._maybe_roll(valid_records.size_in_bytes(), append_info.max_timestamp,
                                           append_info.last_offset)
                log_offset_metadata = LogOffsetMetadata(append_info.first_offset, segment.base_offset, segment.size)
                segment.append(append_info.first_offset, append_info.last_offset, append_info.max_timestamp,
                               append_info.offset_of_max_timestamp, valid_records)

                # 6. Producer state follows the data it describes.
                for producer_append_info in updated_producers.values():
                    producer_append_info.maybe_cache_txn_first_offset_metadata(log_offset_metadata)
                    self.producer_state_manager.update(producer_append_info)
                # The index gets the true last stable offset: a read_committed fetch stops at it (and at the
                # high watermark), and a search of the index for aborts below it can stop there.
                for completed_txn in completed_txns:
                    last_stable_offset = self.producer_state_manager.complete_txn(completed_txn)
                    segment.update_txn_index(completed_txn, last_stable_offset)
                self.producer_state_manager.update_map_end_offset(append_info.last_offset + 1)

                # 7. The new log end offset; then flush if flush.messages says so.
                self._update_log_end_offset(append_info.last_offset + 1)
                self._update_first_unstable_offset()
                if not assign_offsets:
                    append_info.num_messages = append_info.last_offset - append_info.first_offset + 1
                logger.debug("%sAppended message set with last offset %d, first offset %d, next offset %d",
                             self._log_ident, append_info.last_offset, append_info.first_offset,
                             self.log_end_offset)
                if self.unflushed_messages >= self.config.flush_interval_messages:
                    self.flush()
                return append_info

    def on_high_watermark_incremented(self, high_watermark: int) -> None:
        """Called by the replica layer as the high watermark moves; retention never deletes at or above it."""
        with self._lock:
            self._replica_high_watermark = high_watermark
            self.producer_state_manager.on_high_watermark_updated(high_watermark)
            self._update_first_unstable_offset()

    def _update_first_unstable_offset(self) -> None:
        with self._lock:
            self._check_if_memory_mapped_buffer_closed()
            updated = self.producer_state_manager.first_unstable_offset()
            if updated is not None and (updated.segment_base_offset < 0
                                        or updated.message_offset < self._log_start_offset):
                offset = max(updated.message_offset, self._log_start_offset)
                base = max((b for b in self._segments if b <= offset), default=None)
                if base is not None:
                    position = self._segments[base].translate_offset(offset)
                    updated = LogOffsetMetadata(offset, base, position.position if position else -1)
            if updated != self.first_unstable_offset:
                logger.debug("%sFirst unstable offset updated to %s", self._log_ident, updated)
                self.first_unstable_offset = updated

    def maybe_increment_log_start_offset(self, new_log_start_offset: int) -> None:
        """Move the log start offset forward (retention, DeleteRecords); producers wholly below it are dropped."""
        with self._maybe_handle_io_exception(f"Exception while increasing log start offset for "
                                             f"{self.topic_partition} to {new_log_start_offset} in dir "
                                             f"{self.dir.parent}"):
            with self._lock:
                self._check_if_memory_mapped_buffer_closed()
                if new_log_start_offset > self._log_start_offset:
                    self._info(f"Incrementing log start offset to {new_log_start_offset}")
                    self._log_start_offset = new_log_start_offset
                    self.leader_epoch_cache.clear_and_flush_earliest(self._log_start_offset)
                    self.producer_state_manager.truncate_head(new_log_start_offset)
                    self._update_first_unstable_offset()

    def _analyze_and_validate_producer_state(
            self, records: MemoryRecords, is_from_client: bool
    ) -> tuple[dict[int, ProducerAppendInfo], list[CompletedTxn], BatchMetadata | None]:
        updated_producers: dict[int, ProducerAppendInfo] = {}
        completed_txns: list[CompletedTxn] = []
        for batch in records.batches():
            if not batch.has_producer_id:
                continue
            last_entry = self.producer_state_manager.last_entry(batch.producer_id)
            # A client may retry any of its last 5 batches; the cached metadata says where each one went.
            if is_from_client and last_entry is not None:
                duplicate = last_entry.find_duplicate_batch(batch)
                if duplicate is not None:
                    return updated_producers, completed_txns, duplicate
            completed_txn = self._update_producers(batch, updated_producers, is_from_client)
            if completed_txn is not None:
                completed_txns.append(completed_txn)
        return updated_producers, completed_txns, None

    def _analyze_and_validate_records(self, records: MemoryRecords, is_from_client: bool) -> LogAppendInfo:
        """Check each batch (magic, offset 0 from clients, size, CRC) and collect offsets, timestamps and codec."""
        shallow_message_count = 0
        valid_bytes_count = 0
        first_offset = -1
        last_offset = -1
        source_codec = CompressionType.NONE
        monotonic = True
        max_timestamp = NO_TIMESTAMP
        offset_of_max_timestamp = -1
        for batch in records.batches():
            if batch.magic != MAGIC_VALUE_V2:
                # Kafka 1.0.2 converts v0/v1 batches; this port stores message format v2 only.
                raise UnsupportedForMessageFormatException(
                    f"Record batch magic {batch.magic} is not supported: this broker stores message format v2 only")
            if is_from_client and batch.base_offset != 0:
                raise InvalidRecordException(
                    f"The baseOffset of the record batch should be 0, but it is {batch.base_offset}")
            if first_offset < 0:
                first_offset = batch.base_offset
            if last_offset >= batch.last_offset:
                monotonic = False
            last_offset = batch.last_offset
            batch_size = batch.size_in_bytes
            if batch_size > self.config.max_message_bytes:
                raise RecordTooLargeException(
                    f"The record batch size is {batch_size} bytes which exceeds the maximum configured value "
                    f"of {self.config.max_message_bytes}.")
            batch.ensure_valid()
            if batch.max_timestamp > max_timestamp:
                max_timestamp = batch.max_timestamp
                offset_of_max_timestamp = last_offset
            shallow_message_count += 1
            valid_bytes_count += batch_size
            codec = batch.compression_type
            if codec is not CompressionType.NONE:
                source_codec = codec
        # BrokerCompressionCodec.getTargetCompressionCodec: "producer" keeps what the producer used.
        if self.config.compression_type == "producer":
            target_codec = source_codec
        elif self.config.compression_type == "uncompressed":
            target_codec = CompressionType.NONE
        else:
            target_codec = CompressionType.for_name(self.config.compression_type)
        return LogAppendInfo(first_offset, last_offset, max_timestamp, offset_of_max_timestamp, NO_TIMESTAMP,
                             self._log_start_offset, shallow_message_count, valid_bytes_count, monotonic,
                             source_codec, target_codec)

    def _update_producers(self, batch: DefaultRecordBatch, producers: dict[int, ProducerAppendInfo],
                          is_from_client: bool,
                          state_manager: ProducerStateManager | None = None) -> CompletedTxn | None:
        # Kafka 1.0.2 always asks the log's own manager here, even when rebuilding another one during
        # recovery; this port asks the manager being rebuilt.
        state_manager = state_manager or self.producer_state_manager
        producer_id = batch.producer_id
        append_info = producers.get(producer_id)
        if append_info is None:
            append_info = state_manager.prepare_update(producer_id, is_from_client)
            producers[producer_id] = append_info
        return append_info.append_batch(batch)

    @staticmethod
    def _trim_invalid_bytes(records: MemoryRecords, info: LogAppendInfo) -> MemoryRecords:
        """Drop a partial batch at the end of the request."""
        valid_bytes = info.valid_bytes
        if valid_bytes < 0:
            raise CorruptRecordException(f"Illegal length of message set {valid_bytes}")
        if valid_bytes == records.size_in_bytes():
            return records
        return MemoryRecords(records.buffer[:valid_bytes])

    # ---- read ----

    def read_uncommitted(self, start_offset: int, max_length: int, max_offset: int | None = None,
                         min_one_message: bool = False) -> FetchDataInfo:
        return self.read_fetch_data_info(start_offset, max_length, max_offset, min_one_message,
                                         IsolationLevel.READ_UNCOMMITTED)

    def read(self, start_offset: int, max_length: int, max_offset: int | None = None,
             min_one_message: bool = False) -> bytes:
        """The bytes of a read_uncommitted read: what replication, the coordinators and tools use."""
        return self.read_uncommitted(start_offset, max_length, max_offset, min_one_message).records_bytes()

    def read_fetch_data_info(self, start_offset: int, max_length: int, max_offset: int | None = None,
                             min_one_message: bool = False,
                             isolation_level: IsolationLevel = IsolationLevel.READ_UNCOMMITTED) -> FetchDataInfo:
        """Kafka's Log.read: the log from the batch holding `start_offset`, at most `max_length` bytes, below
        `max_offset` (exclusive) when one is given.

        As in Kafka the last batch may be cut short by `max_length`; clients ignore such a partial batch.
        `min_one_message` returns the first batch whole even when it is larger than `max_length`. A read_committed
        read (whose caller passes the last stable offset as `max_offset`) also lists the aborted transactions that
        overlap what it returns, from the transaction indexes, so the consumer can drop their records.
        """
        with self._maybe_handle_io_exception(f"Exception while reading from {self.topic_partition} "
                                             f"in dir {self.dir.parent}"):
            # No lock: take one consistent snapshot of the end of the log.
            current_next_offset_metadata = self._next_offset_metadata
            next_offset = current_next_offset_metadata.message_offset
            if start_offset == next_offset:
                aborted_transactions = [] if isolation_level is IsolationLevel.READ_COMMITTED else None
                return FetchDataInfo(current_next_offset_metadata, None, first_entry_incomplete=False,
                                     aborted_transactions=aborted_transactions)
            segments = self._segments
            base_offset = max((base for base in segments if base <= start_offset), default=None)
            if start_offset > next_offset or base_offset is None or start_offset < self._log_start_offset:
                raise OffsetOutOfRangeException(
                    f"Request for offset {start_offset} but we only have log segments in the range "
                    f"{self._log_start_offset} to {next_offset}.")
            # Read from the segment holding the offset; if it has nothing at or above it, try the next ones.
            while base_offset is not None:
                segment = segments[base_offset]
                if base_offset == next(reversed(segments)):
                    # Do not expose bytes appended after the snapshot above.
                    max_position = current_next_offset_metadata.relative_position_in_segment
                    if current_next_offset_metadata.segment_base_offset != base_offset:
                        max_position = segment.size  # a roll happened since the snapshot
                else:
                    max_position = segment.size
                fetch_info = segment.read(start_offset, max_offset, max_length, max_position, min_one_message)
                if fetch_info is not None:
                    if isolation_level is IsolationLevel.READ_COMMITTED:
                        return self._add_aborted_transactions(start_offset, segments, base_offset, fetch_info)
                    return fetch_info
                base_offset = min((base for base in segments if base > base_offset), default=None)
            # All offsets at or above start_offset were deleted: nothing to return.
            return FetchDataInfo(self._next_offset_metadata, None)

    def collect_aborted_transactions(self, start_offset: int, upper_bound_offset: int) -> list[AbortedTxn]:
        """Every aborted transaction overlapping [log start offset, upper_bound_offset), searching from the segment
        holding `start_offset` (what the log cleaner asks)."""
        segments = self._segments
        base_offset = max((base for base in segments if base <= start_offset), default=None)
        all_aborted_txns: list[AbortedTxn] = []
        self._collect_aborted_transactions(self._log_start_offset, upper_bound_offset, segments, base_offset,
                                           all_aborted_txns.extend)
        return all_aborted_txns

    def _add_aborted_transactions(self, start_offset: int, segments: dict[int, LogSegment], base_offset: int,
                                  fetch_info: FetchDataInfo) -> FetchDataInfo:
        """The read's aborted transactions: those overlapping [start_offset, the first offset past what it read)."""
        fetch_size = fetch_info.records.size_in_bytes() if fetch_info.records is not None else 0
        start_offset_position = OffsetPosition(fetch_info.fetch_offset_metadata.message_offset,
                                               fetch_info.fetch_offset_metadata.relative_position_in_segment)
        upper_bound_offset = segments[base_offset].fetch_upper_bound_offset(start_offset_position, fetch_size)
        if upper_bound_offset is None:
            # The index knows nothing past the read: the next segment's base bounds it, or the log end.
            next_base = min((base for base in segments if base > base_offset), default=None)
            upper_bound_offset = segments[next_base].base_offset if next_base is not None else self.log_end_offset
        aborted_transactions: list[AbortedTransaction] = []
        self._collect_aborted_transactions(
            start_offset, upper_bound_offset, segments, base_offset,
            lambda aborted_txns: aborted_transactions.extend(t.as_aborted_transaction() for t in aborted_txns))
        return FetchDataInfo(fetch_info.fetch_offset_metadata, fetch_info.records,
                             first_entry_incomplete=fetch_info.first_entry_incomplete,
                             aborted_transactions=aborted_transactions)

    @staticmethod
    def _collect_aborted_transactions(start_offset: int, upper_bound_offset: int, segments: dict[int, LogSegment],
                                      starting_base_offset: int | None,
                                      accumulator: Callable[[list[AbortedTxn]], None]) -> None:
        """Search segment after segment (a transaction can be aborted in a later segment than it began in) until
        one index says no later one can matter."""
        base_offset = starting_base_offset
        while base_offset is not None:
            search_result = segments[base_offset].collect_aborted_txns(start_offset, upper_bound_offset)
            accumulator(search_result.aborted_transactions)
            if search_result.is_complete:
                return
            base_offset = min((base for base in segments if base > base_offset), default=None)

    # ---- roll ----

    def _maybe_roll(self, messages_size: int, max_timestamp_in_messages: int,
                    max_offset_in_messages: int) -> LogSegment:
        """Roll when the segment is full by bytes, by age, or its indexes are full; return the active segment."""
        segment = self.active_segment
        now = self._time_ms()
        reached_roll_ms = (segment.time_waited_for_roll(now, max_timestamp_in_messages)
                           > self.config.segment_ms - segment.roll_jitter_ms)
        if (segment.size > self.config.segment_bytes - messages_size
                or (segment.size > 0 and reached_roll_ms)
                or segment.index.is_full() or segment.time_index.is_full()
                or not segment.can_convert_to_relative_offset(max_offset_in_messages)):
            logger.debug("%sRolling new log segment (log_size = %d/%d, offset_index_size = %d/%d, "
                         "time_index_size = %d/%d)", self._log_ident, segment.size, self.config.segment_bytes,
                         segment.index.entries, segment.index.max_entries,
                         segment.time_index.entries, segment.time_index.max_entries)
            # max offset - INT_MAX is a safe lower bound for the first offset without reading the batches.
            return self.roll(max_offset_in_messages - INT_MAX)
        return segment

    def roll(self, expected_next_offset: int = 0) -> LogSegment:
        """Start a new active segment at the log end offset; the old one gets trimmed indexes and a flush."""
        with self._maybe_handle_io_exception(f"Error while rolling log segment for {self.topic_partition} "
                                             f"in dir {self.dir.parent}"):
            start = self._time_ms()
            with self._lock:
                self._check_if_memory_mapped_buffer_closed()
                new_offset = max(expected_next_offset, self.log_end_offset)
                for file in (log_file(self.dir, new_offset), offset_index_file(self.dir, new_offset),
                             time_index_file(self.dir, new_offset), transaction_index_file(self.dir, new_offset)):
                    if file.exists():
                        self._warn(f"Newly rolled segment file {file.name} already exists; deleting it first")
                        file.unlink()
                if self._segments:
                    seg = self.active_segment
                    seg.on_become_inactive_segment()
                    seg.index.trim_to_valid_size()
                    seg.time_index.trim_to_valid_size()
                    seg.log.trim()
                # A snapshot at the new base offset: recovering the new segment can start from it.
                self.producer_state_manager.update_map_end_offset(new_offset)
                self.producer_state_manager.take_snapshot()
                segment = LogSegment.open(self.dir, new_offset, self.config.index_interval_bytes,
                                          self.config.segment_index_bytes, self.config.random_segment_jitter(),
                                          self._time_ms)
                if self.add_segment(segment) is not None:
                    raise KafkaException(f"Trying to roll a new log segment for topic partition {self.name} with "
                                         f"start offset {new_offset} while it already exists.")
                # Same log end offset, now in the new segment at position 0.
                self._update_log_end_offset(self._next_offset_metadata.message_offset)
                self._schedule("flush-log", lambda: self.flush(new_offset))
                self._info(f"Rolled new log segment at offset {new_offset} in {self._time_ms() - start} ms.")
                return segment

    # ---- flush ----

    def flush(self, offset: int | None = None) -> None:
        """fsync the segments holding offsets below `offset` (default: everything) and move the recovery point."""
        if offset is None:
            offset = self.log_end_offset
        with self._maybe_handle_io_exception(f"Error while flushing log for {self.topic_partition} in dir "
                                             f"{self.dir.parent} with offset {offset}"):
            if offset <= self._recovery_point:
                return
            logger.debug("%sFlushing log up to offset %d, last flushed: %d, unflushed: %d", self._log_ident,
                         offset, self._last_flushed_time, self.unflushed_messages)
            for segment in self.log_segments(self._recovery_point, offset):
                segment.flush()
            with self._lock:
                self._check_if_memory_mapped_buffer_closed()
                if offset > self._recovery_point:
                    self._recovery_point = offset
                    self._last_flushed_time = self._time_ms()

    def delete_snapshots_after_recovery_point_checkpoint(self) -> int:
        """After LogManager checkpoints the recovery point: keep snapshots of the last two segments and above it."""
        min_offset_to_retain = self.min_snapshots_offset_to_retain()
        self.producer_state_manager.delete_snapshots_before(min_offset_to_retain)
        return min_offset_to_retain

    def min_snapshots_offset_to_retain(self) -> int:
        with self._lock:
            two_segments_min_offset = (self._lower_segment(self.active_segment.base_offset)
                                       or self.active_segment).base_offset
            lower = self._lower_segment(self._recovery_point)
            recovery_point_offset = lower.base_offset if lower is not None else self._recovery_point
            return min(recovery_point_offset, two_segments_min_offset)

    def _lower_segment(self, offset: int) -> LogSegment | None:
        """The segment with the greatest base offset strictly below `offset`."""
        base = max((b for b in self._segments if b < offset), default=None)
        return self._segments[base] if base is not None else None

    # ---- ListOffsets ----

    def fetch_offsets_by_timestamp(self, target_timestamp: int) -> tuple[int, int] | None:
        """ListOffsets: (timestamp, offset) of the first record with timestamp >= target, or None if none is.

        -2 (EARLIEST_TIMESTAMP) answers the log start offset and -1 (LATEST_TIMESTAMP) the log end offset, both
        with timestamp -1.
        """
        with self._maybe_handle_io_exception(f"Error while fetching offset by timestamp for {self.topic_partition} "
                                             f"in dir {self.dir.parent}"):
            logger.debug("%sSearching offset for timestamp %d", self._log_ident, target_timestamp)
            segments_copy = self.log_segments()
            if target_timestamp == EARLIEST_TIMESTAMP:
                return NO_TIMESTAMP, self._log_start_offset
            if target_timestamp == LATEST_TIMESTAMP:
                return NO_TIMESTAMP, self.log_end_offset
            # The first segment whose largest timestamp reaches the target holds the answer, if any does.
            target_seg = next((seg for seg in segments_copy if seg.largest_timestamp >= target_timestamp), None)
            if target_seg is None:
                return None
            found = target_seg.find_offset_by_timestamp(target_timestamp, self._log_start_offset)
            return (found.timestamp, found.offset) if found is not None else None

    # ---- retention ----

    def delete_old_segments(self) -> int:
        """Delete whole segments past retention.ms, past retention.bytes, or below the log start offset.

        Only with cleanup.policy=delete, and only segments wholly below the high watermark: until the replica
        layer calls on_high_watermark_incremented, nothing is deleted. Returns the number of segments deleted.
        """
        if not self.config.delete:
            return 0
        return (self._delete_retention_ms_breached_segments() + self._delete_retention_size_breached_segments()
                + self._delete_log_start_offset_breached_segments())

    def _delete_retention_ms_breached_segments(self) -> int:
        if self.config.retention_ms < 0:
            return 0
        start_ms = self._time_ms()
        return self._delete_old_segments(
            lambda segment, _next: start_ms - segment.largest_timestamp > self.config.retention_ms,
            reason=f"retention time {self.config.retention_ms}ms breach")

    def _delete_retention_size_breached_segments(self) -> int:
        if self.config.retention_bytes < 0 or self.size < self.config.retention_bytes:
            return 0
        diff = self.size - self.config.retention_bytes

        def should_delete(segment: LogSegment, _next: LogSegment | None) -> bool:
            nonlocal diff
            if diff - segment.size >= 0:
                diff -= segment.size
                return True
            return False

        return self._delete_old_segments(should_delete,
                                         reason=f"retention size in bytes {self.config.retention_bytes} breach")

    def _delete_log_start_offset_breached_segments(self) -> int:
        def should_delete(_segment: LogSegment, next_segment: LogSegment | None) -> bool:
            return next_segment is not None and next_segment.base_offset <= self._log_start_offset

        return self._delete_old_segments(should_delete, reason=f"log start offset {self._log_start_offset} breach")

    def _delete_old_segments(self, predicate: Callable[[LogSegment, LogSegment | None], bool], reason: str) -> int:
        with self._lock:
            deletable = self._deletable_segments(predicate)
            if deletable:
                self._info(f"Found deletable segments with base offsets "
                           f"[{','.join(str(s.base_offset) for s in deletable)}] due to {reason}")
            return self._delete_segments(deletable)

    def _delete_segments(self, deletable: list[LogSegment]) -> int:
        with self._maybe_handle_io_exception(f"Error while deleting segments for {self.topic_partition} "
                                             f"in dir {self.dir.parent}"):
            num_to_delete = len(deletable)
            if num_to_delete > 0:
                # A log always has a segment: deleting them all starts an empty one first.
                if self.number_of_segments == num_to_delete:
                    self.roll()
                with self._lock:
                    self._check_if_memory_mapped_buffer_closed()
                    for segment in deletable:
                        self._delete_segment(segment)
                    self.maybe_increment_log_start_offset(self.log_segments()[0].base_offset)
            return num_to_delete

    def _deletable_segments(self, predicate: Callable[[LogSegment, LogSegment | None], bool]) -> list[LogSegment]:
        """Oldest first while `predicate` holds and the segment is wholly below the high watermark.

        A last segment that is empty is never returned (it would only be re-created).
        """
        if not self._segments or self._replica_high_watermark is None:
            return []
        high_watermark = self._replica_high_watermark
        segments = self.log_segments()
        deletable = []
        for i, segment in enumerate(segments):
            next_segment = segments[i + 1] if i + 1 < len(segments) else None
            if next_segment is not None:
                upper_bound_offset, is_last_segment_and_empty = next_segment.base_offset, False
            else:
                upper_bound_offset, is_last_segment_and_empty = self.log_end_offset, segment.size == 0
            if (high_watermark >= upper_bound_offset and predicate(segment, next_segment)
                    and not is_last_segment_and_empty):
                deletable.append(segment)
            else:
                break
        return deletable

    # ---- delete and truncate ----

    def delete(self) -> None:
        """Delete every segment and the partition directory now."""
        with self._maybe_handle_io_exception(f"Error while deleting log for {self.topic_partition} "
                                             f"in dir {self.dir.parent}"):
            with self._lock:
                self._check_if_memory_mapped_buffer_closed()
                for segment in self.log_segments():
                    segment.delete()
                self._segments = {}
                self.leader_epoch_cache.clear()
                shutil.rmtree(self.dir, ignore_errors=True)
                self._is_memory_mapped_buffer_closed = True

    def truncate_to(self, target_offset: int) -> bool:
        """Remove everything at or above `target_offset` (a follower catching up with a new leader)."""
        with self._maybe_handle_io_exception(f"Error while truncating log to offset {target_offset} for "
                                             f"{self.topic_partition} in dir {self.dir.parent}"):
            if target_offset < 0:
                raise IllegalArgumentException(f"Cannot truncate partition {self.topic_partition} to a negative offset "
                                 f"({target_offset}).")
            if target_offset >= self.log_end_offset:
                self._info(f"Truncating to {target_offset} has no effect as the largest offset in the log is "
                           f"{self.log_end_offset - 1}")
                return False
            self._info(f"Truncating to offset {target_offset}")
            with self._lock:
                self._check_if_memory_mapped_buffer_closed()
                if self.log_segments()[0].base_offset > target_offset:
                    self.truncate_fully_and_start_at(target_offset)
                else:
                    for segment in [s for s in self.log_segments() if s.base_offset > target_offset]:
                        self._delete_segment(segment)
                    self.active_segment.truncate_to(target_offset)
                    self._update_log_end_offset(target_offset)
                    self._recovery_point = min(target_offset, self._recovery_point)
                    self._log_start_offset = min(target_offset, self._log_start_offset)
                    self.leader_epoch_cache.clear_and_flush_latest(target_offset)
                    self._load_producer_state(target_offset, reload_from_clean_shutdown=False)
                return True

    def truncate_fully_and_start_at(self, new_offset: int) -> None:
        """Delete all segments and start empty at `new_offset`."""
        with self._maybe_handle_io_exception(f"Error while truncating the entire log for {self.topic_partition} "
                                             f"in dir {self.dir.parent}"):
            with self._lock:
                self._check_if_memory_mapped_buffer_closed()
                for segment in self.log_segments():
                    self._delete_segment(segment)
                self.add_segment(LogSegment.open(self.dir, new_offset, self.config.index_interval_bytes,
                                                 self.config.segment_index_bytes,
                                                 self.config.random_segment_jitter(), self._time_ms))
                self._update_log_end_offset(new_offset)
                self.leader_epoch_cache.clear_and_flush()
                self.producer_state_manager.truncate()
                self.producer_state_manager.update_map_end_offset(new_offset)
                self._update_first_unstable_offset()
                self._recovery_point = min(new_offset, self._recovery_point)
                self._log_start_offset = new_offset

    # ---- segments ----

    def log_segments(self, from_offset: int | None = None, to_offset: int | None = None) -> list[LogSegment]:
        """All segments oldest first; with bounds, those from the one holding `from_offset` to below `to_offset`."""
        with self._lock:
            if from_offset is None or to_offset is None:
                return list(self._segments.values())
            # Start at the segment holding from_offset (the greatest base offset <= it), if any.
            floor = max((base for base in self._segments if base <= from_offset), default=-1)
            return [s for base, s in self._segments.items() if floor <= base < to_offset]

    def add_segment(self, segment: LogSegment) -> LogSegment | None:
        """Insert (or replace) the segment at its base offset; return the one it replaced."""
        with self._lock:
            previous = self._segments.get(segment.base_offset)
            self._segments = dict(sorted({**self._segments, segment.base_offset: segment}.items()))
            return previous

    def _remove_segment(self, base_offset: int) -> None:
        with self._lock:
            self._segments = {base: s for base, s in self._segments.items() if base != base_offset}

    def _delete_segment(self, segment: LogSegment) -> None:
        """Unlist the segment now so reads stop finding it; its files go later (async delete)."""
        self._info(f"Scheduling log segment [baseOffset {segment.base_offset}, size {segment.size}] for deletion.")
        with self._lock:
            self._remove_segment(segment.base_offset)
            self._async_delete_segment(segment)

    def _async_delete_segment(self, segment: LogSegment) -> None:
        # Renaming first means a crash before the delete leaves .deleted files, which the next load removes.
        segment.change_file_suffixes("", Log.DeletedFileSuffix)

        def delete_seg() -> None:
            self._info(f"Deleting segment {segment.base_offset}")
            with self._maybe_handle_io_exception(f"Error while deleting segments for {self.topic_partition} "
                                                 f"in dir {self.dir.parent}"):
                segment.delete()

        self._schedule("delete-file", delete_seg, self.config.file_delete_delay_ms)

    @span("Log.replaceSegments")
    def replace_segments(self, new_segment: LogSegment, old_segments: list[LogSegment],
                         is_recovered_swap_file: bool = False) -> None:
        """Swap `new_segment` in for `old_segments` so that a crash at any point can be completed on load."""
        with self._lock:
            self._check_if_memory_mapped_buffer_closed()
            if not is_recovered_swap_file:
                new_segment.change_file_suffixes(Log.CleanedFileSuffix, Log.SwapFileSuffix)
            self.add_segment(new_segment)
            for seg in old_segments:
                if seg.base_offset != new_segment.base_offset:
                    self._remove_segment(seg.base_offset)
                self._async_delete_segment(seg)
            new_segment.change_file_suffixes(Log.SwapFileSuffix, "")

    # ---- helpers ----

    def _schedule(self, name: str, fun: Callable[[], None], delay_ms: int = 0) -> None:
        if self._scheduler is not None:
            self._scheduler.schedule(name, fun, delay=delay_ms)
        else:
            fun()  # no scheduler (tests, tools): do the work now

    def _check_if_memory_mapped_buffer_closed(self) -> None:
        if self._is_memory_mapped_buffer_closed:
            raise KafkaStorageException(f"The memory mapped buffer for log of {self.topic_partition} is already closed")

    @contextlib.contextmanager
    def _maybe_handle_io_exception(self, msg: str) -> Iterator[None]:
        """An OSError takes the whole log directory offline and surfaces as KafkaStorageException."""
        try:
            yield
        except OSError as e:
            if self._log_dir_failure_channel is not None:
                self._log_dir_failure_channel.maybe_add_offline_log_dir(str(self.dir.parent), msg, e)
            raise KafkaStorageException(msg) from e

    def _info(self, msg: str) -> None:
        logger.info("%s%s", self._log_ident, msg)

    def _warn(self, msg: str) -> None:
        logger.warning("%s%s", self._log_ident, msg)

    def __repr__(self) -> str:
        return f"Log({self.dir})"

    # ---- static helpers (object Log) ----

    @staticmethod
    def log_file(dir: Path, offset: int) -> Path:
        return log_file(Path(dir), offset)

    @staticmethod
    def offset_index_file(dir: Path, offset: int) -> Path:
        return offset_index_file(Path(dir), offset)

    @staticmethod
    def time_index_file(dir: Path, offset: int) -> Path:
        return time_index_file(Path(dir), offset)

    @staticmethod
    def transaction_index_file(dir: Path, offset: int) -> Path:
        return transaction_index_file(Path(dir), offset)

    @staticmethod
    def producer_snapshot_file(dir: Path, offset: int) -> Path:
        return producer_snapshot_file(Path(dir), offset)

    @staticmethod
    def size_in_bytes(segments: Iterable[LogSegment]) -> int:
        """The total bytes of `segments` (a long in Kafka: it may pass Int.MaxValue)."""
        return sum(segment.size for segment in segments)

    @staticmethod
    def offset_from_file(file: Path) -> int:
        return int(file.name[: file.name.index(".")])

    @staticmethod
    def log_delete_dir_name(log_name: str) -> str:
        import uuid

        return f"{log_name}.{uuid.uuid4().hex}{Log.DeleteDirSuffix}"

    @staticmethod
    def parse_topic_partition_name(dir: str | os.PathLike[str] | None) -> TopicPartition:
        """topic-partition (or topic-partition.uniqueId-delete) -> TopicPartition, else KafkaException."""
        if dir is None:
            raise KafkaException("dir should not be null")
        path = Path(dir)

        def exception() -> KafkaException:
            return KafkaException(
                f"Found directory {path.resolve()}, '{path.name}' is not in the form of topic-partition or "
                "topic-partition.uniqueId-delete (if marked for deletion).\n"
                "Kafka's log directories (and children) should only contain Kafka topic data.")

        dir_name = path.name
        if not dir_name or "-" not in dir_name:
            raise exception()
        if dir_name.endswith(Log.DeleteDirSuffix) and not Log.DeleteDirPattern.match(dir_name):
            raise exception()
        name = dir_name[: dir_name.rindex(".")] if dir_name.endswith(Log.DeleteDirSuffix) else dir_name
        index = name.rindex("-")
        topic, partition_string = name[:index], name[index + 1:]
        if not topic or not partition_string:
            raise exception()
        if not re.fullmatch(r"[+-]?\d+", partition_string) or not -(2**31) <= int(partition_string) < 2**31:
            raise exception()  # what Integer.parseInt would reject
        return TopicPartition(topic, int(partition_string))

    @staticmethod
    def _is_index_file(file: Path) -> bool:
        return file.name.endswith((Log.IndexFileSuffix, Log.TimeIndexFileSuffix, Log.TxnIndexFileSuffix))

    @staticmethod
    def _is_log_file(file: Path) -> bool:
        return file.name.endswith(Log.LogFileSuffix)
