"""Port of core/src/main/scala/kafka/log/LogLoader.scala (Kafka 3.9): loads a partition's segments from disk at
startup: drops temporary files, completes interrupted swaps, opens the segments, recovers what was not flushed and
rebuilds the producer state."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException, InvalidOffsetException
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.utils.utils import replace_suffix
from kafka_edu.v3_9.core.log import local_log, unified_log  # modules, not names: unified_log builds LogLoaders
from kafka_edu.v3_9.core.log.local_log import CLEANED_FILE_SUFFIX, SWAP_FILE_SUFFIX, is_index_file, is_log_file
from kafka_edu.v3_9.raft.snapshot.snapshots import Snapshots
from kafka_edu.v3_9.storage.storage.internals.log import log_file_utils
from kafka_edu.v3_9.storage.storage.internals.log.corrupt_index_exception import CorruptIndexException
from kafka_edu.v3_9.storage.storage.internals.log.loaded_log_offsets import LoadedLogOffsets
from kafka_edu.v3_9.storage.storage.internals.log.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.storage.storage.internals.log.log_segment import LogSegment
from kafka_edu.v3_9.storage.storage.internals.log.log_segment_offset_overflow_exception import (
    LogSegmentOffsetOverflowException,
)
from kafka_edu.v3_9.storage.storage.internals.log.producer_state_manager import ProducerStateManager

if TYPE_CHECKING:
    from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
    from kafka_edu.v3_9.clients.common.utils.time import Time
    from kafka_edu.v3_9.server_common.server.util.scheduler import Scheduler
    from kafka_edu.v3_9.storage.storage.internals.epoch.leader_epoch_file_cache import LeaderEpochFileCache
    from kafka_edu.v3_9.storage.storage.internals.log.log_config import LogConfig
    from kafka_edu.v3_9.storage.storage.internals.log.log_dir_failure_channel import LogDirFailureChannel
    from kafka_edu.v3_9.storage.storage.internals.log.log_segments import LogSegments

T = TypeVar("T")

LONG_MAX = 2**63 - 1
LONG_MIN = -(2**63)


def _offset_from_file(file: Path) -> int:
    return log_file_utils.offset_from_file(file)


class LogLoader:
    """Loads one log directory into `segments` and brings `producer_state_manager` and `leader_epoch_cache` in line
    with it. `had_clean_shutdown` skips recovery; `num_remaining_segments` (thread name -> segments left to
    recover) lets the log manager report recovery progress."""

    def __init__(self, dir: str | Path, topic_partition: TopicPartition, config: LogConfig, scheduler: Scheduler,
                 time: Time, log_dir_failure_channel: LogDirFailureChannel, had_clean_shutdown: bool,
                 segments: LogSegments, log_start_offset_checkpoint: int, recovery_point_checkpoint: int,
                 leader_epoch_cache: LeaderEpochFileCache | None, producer_state_manager: ProducerStateManager,
                 num_remaining_segments: dict[str, int] | None = None, is_remote_log_enabled: bool = False) -> None:
        self._dir = Path(dir)
        self._topic_partition = topic_partition
        self._config = config
        self._scheduler = scheduler
        self._time = time
        self._log_dir_failure_channel = log_dir_failure_channel
        self._had_clean_shutdown = had_clean_shutdown
        self._segments = segments
        self._log_start_offset_checkpoint = log_start_offset_checkpoint
        self._recovery_point_checkpoint = recovery_point_checkpoint
        self._leader_epoch_cache = leader_epoch_cache
        self._producer_state_manager = producer_state_manager
        self._num_remaining_segments = num_remaining_segments if num_remaining_segments is not None else {}
        self._is_remote_log_enabled = is_remote_log_enabled
        self.log_ident = f"[LogLoader partition={topic_partition}, dir={self._dir.parent}] "
        self.logger = Logging("kafka.log.LogLoader", self.log_ident)

    def _files(self) -> list[Path]:
        """dir.listFiles filtered to regular files (sorted, for a deterministic order)."""
        return sorted(file for file in self._dir.iterdir() if file.is_file())

    @step("RQ.load.2")
    def load(self) -> LoadedLogOffsets:
        """Load the segments from disk and return the loaded log's offsets; the leader epoch cache and the producer
        state manager are updated to match. An OSError is not converted: this runs before the logs are online.
        Raises LogSegmentOffsetOverflowException for a .swap file whose records overflow a relative offset."""
        # first pass: remove temporary files and collect the swaps that were interrupted
        swap_files = self._remove_temp_files_and_collect_swap_files()

        # the valid .swap files come from a compaction or a split: they become segments by renaming, but the
        # segments they replace must go first; the range they cover is [min swap offset, max swap next offset)
        min_swap_file_offset = LONG_MAX
        max_swap_file_offset = LONG_MIN
        for f in swap_files:
            if not is_log_file(Path(replace_suffix(str(f), SWAP_FILE_SUFFIX, ""))):
                continue
            base_offset = _offset_from_file(f)
            segment = LogSegment.open(f.parent, base_offset, self._config, self._time, False, 0, False,
                                      SWAP_FILE_SUFFIX)
            self.logger.info("Found log file %s from interrupted swap operation, which is recoverable from %s files "
                             "by renaming.", f, SWAP_FILE_SUFFIX)
            min_swap_file_offset = min(segment.base_offset(), min_swap_file_offset)
            max_swap_file_offset = max(segment.read_next_offset(), max_swap_file_offset)

        # second pass: delete the segments the swap replaces (compacted or split, not yet renamed .deleted)
        for file in self._files():
            try:
                if not file.name.endswith(SWAP_FILE_SUFFIX):
                    offset = _offset_from_file(file)
                    if min_swap_file_offset <= offset < max_swap_file_offset:
                        self.logger.info("Deleting segment files %s that is compacted but has not been deleted "
                                         "yet.", file.name)
                        _file_delete(file)
            except ValueError:
                # a file whose name carries no offset
                pass

        # third pass: rename the swap files into place
        for file in self._files():
            if file.name.endswith(SWAP_FILE_SUFFIX):
                self.logger.info("Recovering file %s by renaming from %s files.", file.name, SWAP_FILE_SUFFIX)
                _file_rename_to(file, Path(replace_suffix(str(file), SWAP_FILE_SUFFIX, "")))

        # fourth pass: load the log and index files; a legacy segment whose offsets overflow (KAFKA-6264) is split
        # and loading starts over
        def load_segments() -> None:
            # a retry must close what the failed attempt opened
            self._segments.close()
            self._segments.clear()
            self._load_segment_files()
        self._retry_on_offset_overflow(load_segments)

        if not str(self._dir.absolute()).endswith(local_log.DELETE_DIR_SUFFIX):
            new_recovery_point, next_offset = self._retry_on_offset_overflow(self.recover_log)

            # the active segment's indexes may grow again
            last_segment = self._segments.last_segment()
            assert last_segment is not None
            last_segment.resize_indexes(self._config.max_index_size)
        else:
            if self._segments.is_empty():
                self._segments.add(LogSegment.open(self._dir, 0, self._config, self._time, False,
                                                   self._config.init_file_size(), False))
            new_recovery_point, next_offset = 0, 0

        if self._leader_epoch_cache is not None:
            self._leader_epoch_cache.truncate_from_end_async_flush(next_offset)
        if self._is_remote_log_enabled:
            new_log_start_offset = self._log_start_offset_checkpoint
        else:
            first_segment = self._segments.first_segment()
            assert first_segment is not None
            new_log_start_offset = max(self._log_start_offset_checkpoint, first_segment.base_offset())
        # a hard failure may have lost the flush of the earliest epoch: truncate it again
        if self._leader_epoch_cache is not None:
            self._leader_epoch_cache.truncate_from_start_async_flush(self._log_start_offset_checkpoint)

        # loading and recovery must not touch this producer state manager: its state is built here from scratch
        if not self._producer_state_manager.is_empty():
            raise IllegalStateException("Producer state must be empty during log initialization")

        # recovery's interim managers may have deleted snapshots this one still lists: reload them all
        self._producer_state_manager.remove_stray_snapshots(self._segments.base_offsets())
        unified_log.rebuild_producer_state(
            self._producer_state_manager, self._segments, new_log_start_offset, next_offset,
            self._config.record_version(), self._time, self._had_clean_shutdown, self.log_ident)
        active_segment = self._segments.last_segment()
        assert active_segment is not None
        return LoadedLogOffsets(new_log_start_offset, new_recovery_point,
                                LogOffsetMetadata(next_offset, active_segment.base_offset(), active_segment.size()))

    def _remove_temp_files_and_collect_swap_files(self) -> set[Path]:
        """Delete the temporary files (.deleted, .cleaned) and return the .swap files that may be swapped in. A
        .swap file above the lowest .cleaned one belongs to a split that did not finish and is deleted too."""
        swap_files: set[Path] = set()
        cleaned_files: set[Path] = set()
        min_cleaned_file_offset = LONG_MAX

        for file in self._files():
            if not os.access(file, os.R_OK):
                raise OSError(f"Could not read file {file}")
            filename = file.name

            # stray files marked for deletion go, except KRaft snapshots (KafkaMetadataLog recovers those)
            if filename.endswith(log_file_utils.DELETED_FILE_SUFFIX) and not filename.endswith(
                    Snapshots.DELETE_SUFFIX):
                self.logger.debug("Deleting stray temporary file %s", file.absolute())
                file.unlink(missing_ok=True)
            elif filename.endswith(CLEANED_FILE_SUFFIX):
                min_cleaned_file_offset = min(_offset_from_file(file), min_cleaned_file_offset)
                cleaned_files.add(file)
            elif filename.endswith(SWAP_FILE_SUFFIX):
                swap_files.add(file)

        # KAFKA-6264: swap files at or above the lowest .cleaned offset are from an unfinished split
        invalid_swap_files = {file for file in swap_files if _offset_from_file(file) >= min_cleaned_file_offset}
        valid_swap_files = swap_files - invalid_swap_files
        for file in invalid_swap_files:
            self.logger.debug("Deleting invalid swap file %s minCleanedFileOffset: %d", file.absolute(),
                              min_cleaned_file_offset)
            file.unlink(missing_ok=True)

        # with the unfinished splits gone, the .cleaned files go too
        for file in cleaned_files:
            self.logger.debug("Deleting stray .clean file %s", file.absolute())
            file.unlink(missing_ok=True)

        return valid_swap_files

    def _retry_on_offset_overflow(self, fn: Callable[[], T]) -> T:
        """Run `fn`; on LogSegmentOffsetOverflowException split the overflowing segment and run it again."""
        while True:
            try:
                return fn()
            except LogSegmentOffsetOverflowException as e:
                self.logger.info("Caught segment overflow error: %s. Split segment and retry.", e)
                result = local_log.split_overflowed_segment(
                    e.segment, self._segments, self._dir, self._topic_partition, self._config, self._scheduler,
                    self._log_dir_failure_channel, self.log_ident)
                self._delete_producer_snapshots_async(result.deleted_segments)

    def _load_segment_files(self) -> None:
        """Open a segment for every .log file in the directory, recovering one whose indexes are missing or
        corrupt. Segments opened before a LogSegmentOffsetOverflowException stay open for the caller to close."""
        # ascending order: a segment's transactional state may depend on earlier segments
        for file in self._files():
            if is_index_file(file):
                # an index file needs its .log file
                offset = _offset_from_file(file)
                log_file = log_file_utils.log_file(self._dir, offset)
                if not log_file.exists():
                    self.logger.warning("Found an orphaned index file %s, with no corresponding log file.",
                                        file.absolute())
                    file.unlink(missing_ok=True)
            elif is_log_file(file):
                # a log file: load its segment
                base_offset = _offset_from_file(file)
                time_index_file_newly_created = not log_file_utils.time_index_file(self._dir, base_offset).exists()
                segment = LogSegment.open(self._dir, base_offset, self._config, self._time, True, 0, False, "")

                try:
                    segment.sanity_check(time_index_file_newly_created)
                except FileNotFoundError:  # NoSuchFileException
                    if self._had_clean_shutdown or segment.base_offset() < self._recovery_point_checkpoint:
                        self.logger.error("Could not find offset index file corresponding to log file %s, "
                                          "recovering segment and rebuilding index files...",
                                          segment.log().file().absolute())
                    self._recover_segment(segment)
                except CorruptIndexException as e:
                    self.logger.warning("Found a corrupted index file corresponding to log file %s due to %s}, "
                                        "recovering segment and rebuilding index files...",
                                        segment.log().file().absolute(), e)
                    self._recover_segment(segment)
                self._segments.add(segment)

    def _recover_segment(self, segment: LogSegment) -> int:
        """Recover `segment` (not adding it to the segments) with producer state rebuilt up to its base offset in
        an interim manager; returns the bytes truncated."""
        producer_state_manager = ProducerStateManager(
            self._topic_partition, self._dir, self._producer_state_manager.max_transaction_timeout_ms(),
            self._producer_state_manager.producer_state_manager_config(), self._time)
        unified_log.rebuild_producer_state(
            producer_state_manager, self._segments, self._log_start_offset_checkpoint, segment.base_offset(),
            self._config.record_version(), self._time, False, self.log_ident)
        bytes_truncated = segment.recover(producer_state_manager, self._leader_epoch_cache)
        # a snapshot at the segment's end saves reloading it while recovering the next segment
        producer_state_manager.take_snapshot()
        return bytes_truncated

    def recover_log(self) -> tuple[int, int]:
        """Recover the segments past the recovery point unless the shutdown was clean, make sure an active segment
        exists, and return (new recovery point, next offset). Raises LogSegmentOffsetOverflowException for a
        legacy segment whose offsets overflow."""
        def delete_segments_if_log_start_greater_than_log_end() -> int | None:
            """The log end offset, if it is not below the log start offset; otherwise everything is deleted."""
            last_segment = self._segments.last_segment()
            if last_segment is not None:
                log_end_offset = last_segment.read_next_offset()
                if log_end_offset >= self._log_start_offset_checkpoint:
                    return log_end_offset
                self.logger.warning("Deleting all segments because logEndOffset (%d) is smaller than logStartOffset "
                                    "%d. This could happen if segment files were deleted from the file system.",
                                    log_end_offset, self._log_start_offset_checkpoint)
                self._remove_and_delete_segments_async(self._segments.values())
                if self._leader_epoch_cache is not None:
                    self._leader_epoch_cache.clear_and_flush()
                self._producer_state_manager.truncate_fully_and_start_at(self._log_start_offset_checkpoint)
                return None
            return None

        # a clean shutdown needs no recovery
        if not self._had_clean_shutdown:
            unflushed = self._segments.values(self._recovery_point_checkpoint, LONG_MAX)
            num_unflushed = len(unflushed)
            unflushed_iter = iter(unflushed)
            truncated = False
            num_flushed = 0
            thread_name = threading.current_thread().name
            self._num_remaining_segments[thread_name] = num_unflushed

            while not truncated:
                segment = next(unflushed_iter, None)
                if segment is None:
                    break
                self.logger.info("Recovering unflushed segment %d. %d/%d recovered for %s.", segment.base_offset(),
                                 num_flushed, num_unflushed, self._topic_partition)

                try:
                    truncated_bytes = self._recover_segment(segment)
                except InvalidOffsetException:
                    start_offset = segment.base_offset()
                    self.logger.warning("Found invalid offset during recovery. Deleting the corrupt segment and "
                                        "creating an empty one with starting offset %d", start_offset)
                    truncated_bytes = segment.truncate_to(start_offset)
                if truncated_bytes > 0:
                    # an invalid message: everything after it goes
                    self.logger.warning("Corruption found in segment %d, truncating to offset %d",
                                        segment.base_offset(), segment.read_next_offset())
                    unflushed_remaining = list(unflushed_iter)
                    self._remove_and_delete_segments_async(unflushed_remaining)
                    truncated = True
                    # nothing is left to recover
                    self._num_remaining_segments[thread_name] = 0
                else:
                    num_flushed += 1
                    self._num_remaining_segments[thread_name] = num_unflushed - num_flushed

        log_end_offset_option = delete_segments_if_log_start_greater_than_log_end()

        if self._segments.is_empty():
            # no segments: start a new active one at the log start offset
            self._segments.add(LogSegment.open(self._dir, self._log_start_offset_checkpoint, self._config, self._time,
                                               False, self._config.init_file_size(), self._config.preallocate))

        # after a clean shutdown with nothing changed the recovery point is the log end; otherwise it only must not
        # pass the log end: advancing it before a flush could skip recovering unflushed data after a crash
        if self._had_clean_shutdown and log_end_offset_option is not None:
            return log_end_offset_option, log_end_offset_option
        if log_end_offset_option is not None:
            log_end_offset = log_end_offset_option
        else:
            last_segment = self._segments.last_segment()
            assert last_segment is not None
            log_end_offset = last_segment.read_next_offset()
        return min(self._recovery_point_checkpoint, log_end_offset), log_end_offset

    def _remove_and_delete_segments_async(self, segments_to_delete: Iterable[LogSegment]) -> None:
        """Take the segments out of the segment map and schedule the deletion of their files and of their producer
        snapshots. An OSError is left to the caller."""
        # materialise: callers pass views of the segments this removes from
        to_delete = list(segments_to_delete)
        if to_delete:
            self.logger.info("Deleting segments as part of log recovery: %s", ",".join(str(s) for s in to_delete))
            for segment in to_delete:
                self._segments.remove(segment.base_offset())
            local_log.delete_segment_files(to_delete, True, self._dir, self._topic_partition, self._config,
                                           self._scheduler, self._log_dir_failure_channel, self.log_ident)
            self._delete_producer_snapshots_async(to_delete)

    def _delete_producer_snapshots_async(self, segments: Iterable[LogSegment]) -> None:
        unified_log.delete_producer_snapshots(
            segments, self._producer_state_manager, True, self._scheduler, self._config,
            self._log_dir_failure_channel, str(self._dir.parent), self._topic_partition)


def _file_delete(file: Path) -> bool:
    """File.delete: False instead of an exception."""
    try:
        file.unlink()
        return True
    except OSError:
        return False


def _file_rename_to(file: Path, dest: Path) -> bool:
    """File.renameTo: False instead of an exception."""
    try:
        os.rename(file, dest)
        return True
    except OSError:
        return False
