"""Port of core/src/main/scala/kafka/log/LocalLog.scala (Kafka 3.9): a partition's log on local disk, a sequence of
segments with a recovery point and a log end offset, and its companion's helpers (deletion, swaps, splits, names)."""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import (
    IllegalArgumentException,
    IllegalStateException,
    KafkaException,
    KafkaStorageException,
    OffsetOutOfRangeException,
)
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils import time as time_module
from kafka_edu.v3_9.clients.common.utils import utils
from kafka_edu.v3_9.storage.storage.internals.log import log_file_utils
from kafka_edu.v3_9.storage.storage.internals.log.fetch_data_info import FetchDataInfo
from kafka_edu.v3_9.storage.storage.internals.log.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.storage.storage.internals.log.log_segment import LogSegment
from kafka_edu.v3_9.storage.storage.internals.log.offset_position import OffsetPosition

if TYPE_CHECKING:
    from kafka_edu.v3_9.clients.common.utils.time import Time
    from kafka_edu.v3_9.server_common.server.util.scheduler import Scheduler
    from kafka_edu.v3_9.storage.storage.internals.log.aborted_txn import AbortedTxn
    from kafka_edu.v3_9.storage.storage.internals.log.log_config import LogConfig
    from kafka_edu.v3_9.storage.storage.internals.log.log_dir_failure_channel import LogDirFailureChannel
    from kafka_edu.v3_9.storage.storage.internals.log.log_segments import LogSegments

T = TypeVar("T")

# the companion object's logger (its messages carry the caller's log prefix)
logger = Logging("kafka.log.LocalLog")

# --- the companion object's constants ---

# a file that is scheduled to be deleted
DELETED_FILE_SUFFIX = log_file_utils.DELETED_FILE_SUFFIX

# a temporary file that is being used for log cleaning
CLEANED_FILE_SUFFIX = ".cleaned"

# a temporary file used when swapping files into the log
SWAP_FILE_SUFFIX = ".swap"

# a directory that is scheduled to be deleted
DELETE_DIR_SUFFIX = "-delete"

# a directory that is used for future partition
FUTURE_DIR_SUFFIX = "-future"

# a directory that is used for stray partition
STRAY_DIR_SUFFIX = "-stray"

DELETE_DIR_PATTERN = re.compile(r"^(\S+)-(\S+)\.(\S+)" + DELETE_DIR_SUFFIX)
FUTURE_DIR_PATTERN = re.compile(r"^(\S+)-(\S+)\.(\S+)" + FUTURE_DIR_SUFFIX)
STRAY_DIR_PATTERN = re.compile(r"^(\S+)-(\S+)\.(\S+)" + STRAY_DIR_SUFFIX)

UNKNOWN_OFFSET = -1


@dataclass(frozen=True)
class SplitSegmentResult:
    """What splitting a segment did: the segments deleted and the segments created in their place."""

    deleted_segments: Sequence[LogSegment]
    new_segments: Sequence[LogSegment]


class LocalLog:
    """An append-only log of segments on local disk. Not thread safe: UnifiedLog serialises access to it.

    `dir` is the partition's directory, `config` its LogConfig, `segments` the (non-empty, once loaded) segments,
    `recovery_point` the first offset not yet flushed to disk, `next_offset_metadata` where the next message goes.
    """

    def __init__(self, dir: str | Path, config: LogConfig, segments: LogSegments, recovery_point: int,
                 next_offset_metadata: LogOffsetMetadata, scheduler: Scheduler, time: Time,
                 topic_partition: TopicPartition, log_dir_failure_channel: LogDirFailureChannel) -> None:
        self._dir = Path(dir)
        self.config = config
        self.segments = segments
        self.recovery_point = recovery_point
        self._next_offset_metadata = next_offset_metadata
        self.scheduler = scheduler
        self.time = time
        self.topic_partition = topic_partition
        self.log_dir_failure_channel = log_dir_failure_channel

        self.log_ident = f"[LocalLog partition={topic_partition}, dir={self._dir.parent}] "
        self.logger = Logging("kafka.log.LocalLog", self.log_ident)

        # once delete() or close_handlers() closed the index mmaps, no more disk I/O may happen on this log
        self.is_memory_mapped_buffer_closed = False

        # the parent directory, cached for hot paths such as the high watermark checkpoint
        self._parent_dir = str(self._dir.parent)

        # last time the log was flushed
        self._last_flushed_time = time.milliseconds()

    def dir(self) -> Path:
        return self._dir

    def name(self) -> str:
        return self._dir.name

    def parent_dir(self) -> str:
        return self._parent_dir

    def parent_dir_file(self) -> Path:
        return Path(self._parent_dir)

    def is_future(self) -> bool:
        return self._dir.name.endswith(FUTURE_DIR_SUFFIX)

    def _maybe_handle_io_exception(self, msg: str | Callable[[], str], fun: Callable[[], T]) -> T:
        return maybe_handle_io_exception(self.log_dir_failure_channel, self.parent_dir(), msg, fun)

    def rename_dir(self, name: str) -> bool:
        """Rename the log's directory to `name` (same parent); False if it already had that name.
        Raises KafkaStorageException if the rename fails."""
        def rename() -> bool:
            renamed_dir = self._dir.parent / name
            utils.atomic_move_with_fallback(self._dir, renamed_dir)
            if renamed_dir != self._dir:
                self._dir = renamed_dir
                self._parent_dir = str(renamed_dir.parent)
                self.segments.update_parent_dir(renamed_dir)
                return True
            return False
        return self._maybe_handle_io_exception(
            lambda: f"Error while renaming dir for {self.topic_partition} in log dir {self._dir.parent}", rename)

    def update_config(self, new_config: LogConfig) -> None:
        old_config = self.config
        self.config = new_config
        old_record_version = old_config.record_version()
        new_record_version = new_config.record_version()
        if new_record_version.precedes(old_record_version):
            self.logger.warning("Record format version has been downgraded from %s to %s.", old_record_version,
                                new_record_version)

    def check_if_memory_mapped_buffer_closed(self) -> None:
        if self.is_memory_mapped_buffer_closed:
            raise KafkaStorageException(
                f"The memory mapped buffer for log of {self.topic_partition} is already closed")

    def update_recovery_point(self, new_recovery_point: int) -> None:
        self.recovery_point = new_recovery_point

    def mark_flushed(self, offset: int) -> None:
        """Move the recovery point up to `offset` (never back) and record the flush time."""
        self.check_if_memory_mapped_buffer_closed()
        if offset > self.recovery_point:
            self.update_recovery_point(offset)
            self._last_flushed_time = self.time.milliseconds()

    def unflushed_messages(self) -> int:
        """The number of messages appended since the last flush."""
        return self.log_end_offset() - self.recovery_point

    def flush(self, offset: int) -> None:
        """fsync the segments holding offsets [recovery point, offset); the recovery point is not moved."""
        current_recovery_point = self.recovery_point
        if current_recovery_point <= offset:
            segments_to_flush = self.segments.values(current_recovery_point, offset)
            for segment in segments_to_flush:
                segment.flush()
            # a new segment file is only durable once its directory entry is flushed too
            if any(segment.base_offset() >= current_recovery_point for segment in segments_to_flush):
                # the directory may be renamed concurrently for deletion: a missing one is fine
                utils.flush_dir_if_exists(self.dir())

    def last_flush_time(self) -> int:
        """When the log was last known to be fully flushed to disk."""
        return self._last_flushed_time

    def log_end_offset_metadata(self) -> LogOffsetMetadata:
        """The offset metadata of the next message to be appended."""
        return self._next_offset_metadata

    def log_end_offset(self) -> int:
        """The offset of the next message to be appended."""
        return self._next_offset_metadata.message_offset

    def update_log_end_offset(self, end_offset: int) -> None:
        """Set the log end offset (on the active segment) and pull the recovery point back to it if beyond."""
        active_segment = self.segments.active_segment()
        self._next_offset_metadata = LogOffsetMetadata(end_offset, active_segment.base_offset(),
                                                       active_segment.size())
        if self.recovery_point > end_offset:
            self.update_recovery_point(end_offset)

    def close_handlers(self) -> None:
        """Close the file handles without writing to disk: the log directory went offline."""
        self.segments.close_handlers()
        self.is_memory_mapped_buffer_closed = True

    def close(self) -> None:
        """Close the log's segments."""
        def close() -> None:
            self.check_if_memory_mapped_buffer_closed()
            self.segments.close()
        self._maybe_handle_io_exception(
            lambda: f"Error while renaming dir for {self.topic_partition} in dir {self._dir.parent}", close)

    def delete_empty_dir(self) -> None:
        """Delete the log's directory at once; its segments must be gone and its mmaps closed."""
        def delete() -> None:
            if self.segments.non_empty():
                raise IllegalStateException(
                    f"Can not delete directory when {self.segments.number_of_segments()} segments are still present")
            if not self.is_memory_mapped_buffer_closed:
                raise IllegalStateException(
                    "Can not delete directory when memory mapped buffer for log of "
                    f"{self.topic_partition} is still open.")
            utils.delete(self._dir)
        self._maybe_handle_io_exception(
            lambda: f"Error while deleting dir for {self.topic_partition} in dir {self._dir.parent}", delete)

    def delete_all_segments(self) -> list[LogSegment]:
        """Delete every segment at once; returns the segments deleted."""
        def delete() -> list[LogSegment]:
            deletable_segments = list(self.segments.values())
            self.remove_and_delete_segments(self.segments.values(), False, LogDeletion(self))
            self.is_memory_mapped_buffer_closed = True
            return deletable_segments
        return self._maybe_handle_io_exception(
            lambda: f"Error while deleting all segments for {self.topic_partition} in dir {self._dir.parent}",
            delete)

    def remove_and_delete_segments(self, segments_to_delete: Iterable[LogSegment], async_delete: bool,
                                   reason: SegmentDeletionReason) -> None:
        """Take the segments out of the segment map (no more reads), rename their files to .deleted and delete
        them, now or after file.delete.delay.ms. An OSError is left to the caller."""
        # materialise: callers often pass a view of the segments this loop removes from
        to_delete = list(segments_to_delete)
        if to_delete:
            reason.log_reason(to_delete)
            for segment in to_delete:
                self.segments.remove(segment.base_offset())
            delete_segment_files(to_delete, async_delete, self._dir, self.topic_partition, self.config,
                                 self.scheduler, self.log_dir_failure_channel, self.log_ident)

    def create_and_delete_segment(self, new_offset: int, segment_to_delete: LogSegment, async_delete: bool,
                                  reason: SegmentDeletionReason) -> LogSegment:
        """Replace `segment_to_delete` with a new empty segment at `new_offset`, so that the log always has an
        active segment. An OSError is left to the caller."""
        if new_offset == segment_to_delete.base_offset():
            # free the file names for the new segment
            segment_to_delete.change_file_suffixes("", log_file_utils.DELETED_FILE_SUFFIX)

        new_segment = LogSegment.open(self._dir, new_offset, self.config, self.time,
                                      init_file_size=self.config.init_file_size(),
                                      preallocate=self.config.preallocate)
        self.segments.add(new_segment)

        reason.log_reason([segment_to_delete])
        if new_offset != segment_to_delete.base_offset():
            self.segments.remove(segment_to_delete.base_offset())
        delete_segment_files([segment_to_delete], async_delete, self._dir, self.topic_partition, self.config,
                             self.scheduler, self.log_dir_failure_channel, self.log_ident)

        return new_segment

    def convert_to_offset_metadata_or_throw(self, offset: int) -> LogOffsetMetadata:
        """The offset metadata of `offset`; OffsetOutOfRangeException if it is not in the log."""
        fetch_data_info = self.read(offset, max_length=1, min_one_message=False,
                                    max_offset_metadata=self._next_offset_metadata, include_aborted_txns=False)
        return fetch_data_info.fetch_offset_metadata

    def read(self, start_offset: int, max_length: int, min_one_message: bool,
             max_offset_metadata: LogOffsetMetadata, include_aborted_txns: bool) -> FetchDataInfo:
        """Read up to `max_length` bytes from `start_offset`, not past `max_offset_metadata`; with
        `min_one_message` the first batch comes whole even if larger. OffsetOutOfRangeException if
        `start_offset` is beyond the log end offset."""
        def read() -> FetchDataInfo:
            if self.logger.isEnabledFor(logging.DEBUG):  # Scala builds this message only when debug is on
                self.logger.debug("Reading maximum %d bytes at offset %d from log with total length %d bytes",
                                  max_length, start_offset, self.segments.size_in_bytes())

            end_offset_metadata = self._next_offset_metadata
            end_offset = end_offset_metadata.message_offset
            segment_opt = self.segments.floor_segment(start_offset)

            # reading beyond the log end offset is an error
            if start_offset > end_offset or segment_opt is None:
                raise OffsetOutOfRangeException(
                    f"Received request for offset {start_offset} for partition {self.topic_partition}, "
                    f"but we only have log segments upto {end_offset}.")

            if start_offset == max_offset_metadata.message_offset:
                return empty_fetch_data_info(max_offset_metadata, include_aborted_txns)
            elif start_offset > max_offset_metadata.message_offset:
                return empty_fetch_data_info(self.convert_to_offset_metadata_or_throw(start_offset),
                                             include_aborted_txns)
            else:
                # read from the floor segment; if it holds nothing at or above the start offset, go on to the
                # following segments until something is read or the log ends
                fetch_data_info: FetchDataInfo | None = None
                while fetch_data_info is None and segment_opt is not None:
                    segment = segment_opt
                    base_offset = segment.base_offset()

                    # the read stops at the max offset's position when it is on this segment and known, at the
                    # segment's end when the max offset is on a later segment, and reads nothing otherwise
                    if segment.base_offset() < max_offset_metadata.segment_base_offset:
                        max_position_opt: int | None = segment.size()
                    elif (segment.base_offset() == max_offset_metadata.segment_base_offset
                          and not max_offset_metadata.message_offset_only()):
                        max_position_opt = max_offset_metadata.relative_position_in_segment
                    else:
                        max_position_opt = None

                    fetch_data_info = segment.read(start_offset, max_length, max_position_opt, min_one_message)
                    if fetch_data_info is not None:
                        if include_aborted_txns:
                            fetch_data_info = self._add_aborted_transactions(start_offset, segment,
                                                                             fetch_data_info)
                    else:
                        segment_opt = self.segments.higher_segment(base_offset)

                if fetch_data_info is not None:
                    return fetch_data_info
                # beyond the last segment with the start offset in range: every message from there on was deleted
                return FetchDataInfo(self._next_offset_metadata, MemoryRecords.EMPTY)
        return self._maybe_handle_io_exception(
            lambda: f"Exception while reading from {self.topic_partition} in dir {self._dir.parent}", read)

    @step("RQ.produce.7")
    def append(self, last_offset: int, largest_timestamp: int, shallow_offset_of_max_timestamp: int,
               records: MemoryRecords) -> None:
        self.segments.active_segment().append(last_offset, largest_timestamp, shallow_offset_of_max_timestamp,
                                              records)
        self.update_log_end_offset(last_offset + 1)

    def _add_aborted_transactions(self, start_offset: int, segment: LogSegment,
                                  fetch_info: FetchDataInfo) -> FetchDataInfo:
        fetch_size = fetch_info.records.size_in_bytes()
        start_offset_position = OffsetPosition(fetch_info.fetch_offset_metadata.message_offset,
                                               fetch_info.fetch_offset_metadata.relative_position_in_segment)
        upper_bound_offset = segment.fetch_upper_bound_offset(start_offset_position, fetch_size)
        if upper_bound_offset is None:
            next_segment = self.segments.higher_segment(segment.base_offset())
            upper_bound_offset = next_segment.base_offset() if next_segment is not None else self.log_end_offset()

        aborted_transactions: list[Any] = []

        def accumulator(aborted_txns: Sequence[AbortedTxn]) -> None:
            aborted_transactions.extend(txn.as_aborted_transaction() for txn in aborted_txns)
        self._collect_aborted_transactions(start_offset, upper_bound_offset, segment, accumulator)

        return FetchDataInfo(fetch_info.fetch_offset_metadata, fetch_info.records,
                             fetch_info.first_entry_incomplete, aborted_transactions)

    def _collect_aborted_transactions(self, start_offset: int, upper_bound_offset: int,
                                      starting_segment: LogSegment,
                                      accumulator: Callable[[Sequence[AbortedTxn]], None]) -> None:
        higher_segments = iter(self.segments.higher_segments(starting_segment.base_offset()))
        segment_entry_opt: LogSegment | None = starting_segment
        while segment_entry_opt is not None:
            segment = segment_entry_opt
            search_result = segment.collect_aborted_txns(start_offset, upper_bound_offset)
            accumulator(search_result.aborted_transactions)
            if search_result.is_complete:
                return
            segment_entry_opt = next(higher_segments, None)

    def collect_aborted_transactions(self, log_start_offset: int, base_offset: int,
                                     upper_bound_offset: int) -> list[AbortedTxn]:
        """The aborted transactions of the segments from the one holding `base_offset`, up to
        `upper_bound_offset` (Kafka's 3-argument overload)."""
        segment_entry = self.segments.floor_segment(base_offset)
        all_aborted_txns: list[AbortedTxn] = []
        if segment_entry is not None:
            self._collect_aborted_transactions(log_start_offset, upper_bound_offset, segment_entry,
                                               all_aborted_txns.extend)
        return all_aborted_txns

    def roll(self, expected_next_offset: int | None = None) -> LogSegment:
        """Start a new active segment at max(expected_next_offset, log end offset); the old one's indexes are
        trimmed to their entries. Returns the new segment."""
        def roll() -> LogSegment:
            start = self.time.hi_res_clock_ms()
            self.check_if_memory_mapped_buffer_closed()
            new_offset = max(expected_next_offset if expected_next_offset is not None else 0,
                             self.log_end_offset())
            log_file = log_file_utils.log_file(self._dir, new_offset, "")
            active_segment = self.segments.active_segment()
            if self.segments.contains(new_offset):
                # a segment with this base offset is already loaded
                if active_segment.base_offset() == new_offset and active_segment.size() == 0:
                    # KAFKA-6388: an empty active segment whose index reported "full" (max entries 0) asked to roll
                    self.logger.warning(
                        "Trying to roll a new log segment with start offset %d =max(provided offset = %s, "
                        "LEO = %d) while it already exists and is active with size 0. Size of time index: %d, "
                        "size of offset index: %d.", new_offset, expected_next_offset,
                        self.log_end_offset(), active_segment.time_index().entries(),
                        active_segment.offset_index().entries())
                    new_segment = self.create_and_delete_segment(new_offset, active_segment, True, LogRoll(self))
                    self.update_log_end_offset(self._next_offset_metadata.message_offset)
                    self.logger.info("Rolled new log segment at offset %d in %d ms.", new_offset,
                                     self.time.hi_res_clock_ms() - start)
                    return new_segment
                else:
                    raise KafkaException(
                        f"Trying to roll a new log segment for topic partition {self.topic_partition} with start "
                        f"offset {new_offset} =max(provided offset = {expected_next_offset}, LEO = "
                        f"{self.log_end_offset()}) while it already exists. Existing segment is "
                        f"{self.segments.get(new_offset)}.")
            elif self.segments.non_empty() and new_offset < active_segment.base_offset():
                raise KafkaException(
                    f"Trying to roll a new log segment for topic partition {self.topic_partition} with start offset "
                    f"{new_offset} =max(provided offset = {expected_next_offset}, LEO = {self.log_end_offset()}) "
                    f"lower than start offset of the active segment {active_segment}")
            else:
                offset_idx_file = log_file_utils.offset_index_file(self._dir, new_offset)
                time_idx_file = log_file_utils.time_index_file(self._dir, new_offset)
                txn_idx_file = log_file_utils.transaction_index_file(self._dir, new_offset)

                for file in (log_file, offset_idx_file, time_idx_file, txn_idx_file):
                    if file.exists():
                        self.logger.warning("Newly rolled segment file %s already exists; deleting it first",
                                            file.absolute())
                        file.unlink()

                last_segment = self.segments.last_segment()
                if last_segment is not None:
                    last_segment.on_become_inactive_segment()

            new_segment = LogSegment.open(self._dir, new_offset, self.config, self.time,
                                          init_file_size=self.config.init_file_size(),
                                          preallocate=self.config.preallocate)
            self.segments.add(new_segment)

            # the next offset stays; its segment and position are now the new segment's
            self.update_log_end_offset(self._next_offset_metadata.message_offset)

            self.logger.info("Rolled new log segment at offset %d in %d ms.", new_offset,
                             self.time.hi_res_clock_ms() - start)

            return new_segment
        return self._maybe_handle_io_exception(
            lambda: f"Error while rolling log segment for {self.topic_partition} in dir {self._dir.parent}", roll)

    def truncate_fully_and_start_at(self, new_offset: int) -> list[LogSegment]:
        """Delete everything and start the log over at `new_offset`; returns the segments scheduled for deletion."""
        def truncate() -> list[LogSegment]:
            self.logger.debug("Truncate and start at offset %d", new_offset)
            self.check_if_memory_mapped_buffer_closed()
            segments_to_delete = list(self.segments.values())

            if segments_to_delete:
                self.remove_and_delete_segments(segments_to_delete[:-1], True, LogTruncation(self))
                # the new segment is created before the last old one goes, so an active segment always exists
                self.create_and_delete_segment(new_offset, segments_to_delete[-1], True, LogTruncation(self))

            self.update_log_end_offset(new_offset)

            return segments_to_delete
        return self._maybe_handle_io_exception(
            lambda: f"Error while truncating the entire log for {self.topic_partition} in dir {self._dir.parent}",
            truncate)

    def truncate_to(self, target_offset: int) -> list[LogSegment]:
        """Truncate so that the log ends below `target_offset`; returns the segments scheduled for deletion."""
        deletable_segments = self.segments.filter(lambda segment: segment.base_offset() > target_offset)
        self.remove_and_delete_segments(deletable_segments, True, LogTruncation(self))
        self.segments.active_segment().truncate_to(target_offset)
        self.update_log_end_offset(target_offset)
        return deletable_segments


# --- the companion object's helpers ---

def log_delete_dir_name(topic_partition: TopicPartition) -> str:
    """The name a log directory is renamed to for asynchronous deletion: "topic-partition.uniqueId-delete", the
    topic cut short if the name would exceed 255 characters."""
    return log_dir_name_with_suffix_capped_length(topic_partition, DELETE_DIR_SUFFIX)


def log_stray_dir_name(topic_partition: TopicPartition) -> str:
    """The name a stray partition's directory is renamed to: "topic-partition.uniqueId-stray", capped to 255."""
    return log_dir_name_with_suffix_capped_length(topic_partition, STRAY_DIR_SUFFIX)


def log_future_dir_name(topic_partition: TopicPartition) -> str:
    """A future log's directory name: "topic-partition.uniqueId-future"."""
    return log_dir_name_with_suffix(topic_partition, FUTURE_DIR_SUFFIX)


def log_dir_name_with_suffix_capped_length(topic_partition: TopicPartition, suffix: str) -> str:
    unique_id = uuid.uuid4().hex
    full_suffix = f"-{topic_partition.partition}.{unique_id}{suffix}"
    prefix_length = min(len(topic_partition.topic), 255 - len(full_suffix))
    return f"{topic_partition.topic[:prefix_length]}{full_suffix}"


def log_dir_name_with_suffix(topic_partition: TopicPartition, suffix: str) -> str:
    unique_id = uuid.uuid4().hex
    return f"{log_dir_name(topic_partition)}.{unique_id}{suffix}"


def log_dir_name(topic_partition: TopicPartition) -> str:
    """A log's directory name: "topic-partition"."""
    return f"{topic_partition.topic}-{topic_partition.partition}"


def parse_topic_partition_name(dir: str | Path | None) -> TopicPartition:
    """The topic and partition a log directory's name carries (plain, -delete, -future or -stray)."""
    if dir is None:
        raise KafkaException("dir should not be null")
    dir = Path(dir)

    def exception(dir: Path) -> KafkaException:
        return KafkaException(
            f"Found directory {dir.resolve()}, '{dir.name}' is not in the form of topic-partition or "
            "topic-partition.uniqueId-delete (if marked for deletion).\n"
            "Kafka's log directories (and children) should only contain Kafka topic data.")

    dir_name = dir.name
    if not dir_name or "-" not in dir_name:
        raise exception(dir)
    if (dir_name.endswith(DELETE_DIR_SUFFIX) and not DELETE_DIR_PATTERN.fullmatch(dir_name)
            or dir_name.endswith(FUTURE_DIR_SUFFIX) and not FUTURE_DIR_PATTERN.fullmatch(dir_name)
            or dir_name.endswith(STRAY_DIR_SUFFIX) and not STRAY_DIR_PATTERN.fullmatch(dir_name)):
        raise exception(dir)

    if (dir_name.endswith(DELETE_DIR_SUFFIX) or dir_name.endswith(FUTURE_DIR_SUFFIX)
            or dir_name.endswith(STRAY_DIR_SUFFIX)):
        name = dir_name[:dir_name.rindex(".")]
    else:
        name = dir_name

    index = name.rindex("-")
    topic = name[:index]
    partition_string = name[index + 1:]
    if not topic or not partition_string:
        raise exception(dir)

    try:
        partition = _parse_java_int(partition_string)
    except ValueError:
        raise exception(dir) from None

    return TopicPartition(topic, partition)


def _parse_java_int(s: str) -> int:
    """Integer.parseInt: an optional sign and ASCII digits, within 32 bits."""
    if not re.fullmatch(r"[+-]?[0-9]+", s):
        raise ValueError(s)
    value = int(s)
    if not -(2**31) <= value < 2**31:
        raise ValueError(s)
    return value


def is_index_file(file: str | Path) -> bool:
    file_name = Path(file).name
    return (file_name.endswith(log_file_utils.INDEX_FILE_SUFFIX)
            or file_name.endswith(log_file_utils.TIME_INDEX_FILE_SUFFIX)
            or file_name.endswith(log_file_utils.TXN_INDEX_FILE_SUFFIX))


def is_log_file(file: str | Path) -> bool:
    return str(file).endswith(log_file_utils.LOG_FILE_SUFFIX)


def maybe_handle_io_exception(log_dir_failure_channel: LogDirFailureChannel, log_dir: str,
                              error_msg: str | Callable[[], str], fun: Callable[[], T]) -> T:
    """Run `fun`; an OSError marks `log_dir` offline and becomes a KafkaStorageException. A directory already
    offline refuses the call."""
    if log_dir_failure_channel.has_offline_log_dir(log_dir):
        raise KafkaStorageException(f"The log dir {log_dir} is already offline due to a previous IO exception.")
    try:
        return fun()
    except OSError as e:
        msg = error_msg() if callable(error_msg) else error_msg
        log_dir_failure_channel.maybe_add_offline_log_dir(log_dir, msg, e)
        raise KafkaStorageException(msg) from e


def split_overflowed_segment(segment: LogSegment, existing_segments: LogSegments, dir: str | Path,
                             topic_partition: TopicPartition, config: LogConfig, scheduler: Scheduler,
                             log_dir_failure_channel: LogDirFailureChannel, log_prefix: str) -> SplitSegmentResult:
    """Split a segment whose offsets overflow a relative offset into segments that do not, holding the same
    records; the new segments go through .cleaned and replace_segments, so a crash midway is recovered."""
    if not is_log_file(segment.log().file()):
        raise IllegalArgumentException(f"requirement failed: Cannot split file {segment.log().file().absolute()}")
    if not segment.has_overflow():
        raise IllegalArgumentException(
            "requirement failed: Split operation is only permitted for segments with overflow, and the problem "
            f"path is {segment.log().file().absolute()}")

    logger.info("%sSplitting overflowed segment %s", log_prefix, segment)

    new_segments: list[LogSegment] = []
    try:
        position = 0
        source_records = segment.log()

        while position < source_records.size_in_bytes():
            first_batch = next(iter(source_records.batches_from(position)))
            new_segment = create_new_cleaned_segment(dir, config, first_batch.base_offset())
            new_segments.append(new_segment)

            bytes_appended = new_segment.append_from_file(source_records, position)
            if bytes_appended == 0:
                raise IllegalStateException(f"Failed to append records from position {position} in {segment}")

            position += bytes_appended

        # make the new segments final
        total_size_of_new_segments = 0
        for split_segment in new_segments:
            split_segment.on_become_inactive_segment()
            split_segment.flush()
            split_segment.set_last_modified(segment.last_modified())
            total_size_of_new_segments += split_segment.log().size_in_bytes()
        # the split must keep every byte
        if total_size_of_new_segments != segment.log().size_in_bytes():
            raise IllegalStateException(
                f"Inconsistent segment sizes after split before: {segment.log().size_in_bytes()} after: "
                f"{total_size_of_new_segments}")

        # swap the new segments in for the old one
        logger.info("%sReplacing overflowed segment %s with split segments %s", log_prefix, segment,
                    [str(s) for s in new_segments])
        new_segments_to_add = list(new_segments)
        deleted_segments = replace_segments(existing_segments, new_segments_to_add, [segment], dir,
                                            topic_partition, config, scheduler, log_dir_failure_channel,
                                            log_prefix)
        return SplitSegmentResult(list(deleted_segments), new_segments_to_add)
    except Exception:
        for split_segment in new_segments:
            split_segment.close()
            split_segment.delete_if_exists()
        raise


def replace_segments(existing_segments: LogSegments, new_segments: Sequence[LogSegment],
                     old_segments: Sequence[LogSegment], dir: str | Path, topic_partition: TopicPartition,
                     config: LogConfig, scheduler: Scheduler, log_dir_failure_channel: LogDirFailureChannel,
                     log_prefix: str, is_recovered_swap_file: bool = False) -> list[LogSegment]:
    """Swap new segments in for old ones, crash-safely; the old ones are deleted asynchronously. Returns the old
    segments deleted and not replaced by a new segment of the same base offset.

    The steps, and what recovery (LogLoader) does after a crash at each:
    - the new segments exist as .cleaned: recovery deletes them (the swap is aborted);
    - they are renamed .cleaned -> .swap in descending offset order: until all are .swap, recovery deletes the
      .swap files above the lowest .cleaned one and aborts;
    - the old segments are renamed .deleted and their deletion scheduled: recovery deletes leftover .deleted
      files and completes the swap from the .swap files;
    - the .swap suffix is removed, completing the swap.
    An OSError is left to the caller (this runs before logs load, or under a caller that handles it)."""
    sorted_new_segments = sorted(new_segments, key=lambda s: s.base_offset())
    # an old segment may already have been removed and scheduled for deletion since the caller listed it
    sorted_old_segments = sorted((seg for seg in old_segments if existing_segments.contains(seg.base_offset())),
                                 key=lambda s: s.base_offset())

    # two phases, to be crash safe and still delete asynchronously
    if not is_recovered_swap_file:
        for segment in reversed(sorted_new_segments):
            segment.change_file_suffixes(CLEANED_FILE_SUFFIX, SWAP_FILE_SUFFIX)
    for segment in reversed(sorted_new_segments):
        existing_segments.add(segment)
    new_segment_base_offsets = {segment.base_offset() for segment in sorted_new_segments}

    # delete the old files
    deleted_not_replaced: list[LogSegment] = []
    for seg in sorted_old_segments:
        # a new segment at the same base offset has already replaced the map entry
        if seg.base_offset() != sorted_new_segments[0].base_offset():
            existing_segments.remove(seg.base_offset())
        delete_segment_files([seg], True, dir, topic_partition, config, scheduler, log_dir_failure_channel,
                             log_prefix)
        if seg.base_offset() not in new_segment_base_offsets:
            deleted_not_replaced.append(seg)

    # safe now: drop the .swap suffix
    for segment in sorted_new_segments:
        segment.change_file_suffixes(SWAP_FILE_SUFFIX, "")
    utils.flush_dir(Path(dir))
    return deleted_not_replaced


def delete_segment_files(segments_to_delete: Iterable[LogSegment], async_delete: bool, dir: str | Path,
                         topic_partition: TopicPartition, config: LogConfig, scheduler: Scheduler,
                         log_dir_failure_channel: LogDirFailureChannel, log_prefix: str) -> None:
    """Rename the segments' files to .deleted, then delete them, now or after file.delete.delay.ms. The files
    must exist; an OSError from the rename is left to the caller."""
    segments_to_delete = list(segments_to_delete)  # Scala's immutable.Iterable: the deferred delete sees them all
    for segment in segments_to_delete:
        if not segment.has_suffix(log_file_utils.DELETED_FILE_SUFFIX):
            segment.change_file_suffixes("", log_file_utils.DELETED_FILE_SUFFIX)

    def delete_segments() -> None:
        logger.info("%sDeleting segment files %s", log_prefix, ",".join(str(s) for s in segments_to_delete))
        parent_dir = str(Path(dir).parent)

        def delete() -> None:
            for segment in segments_to_delete:
                segment.delete_if_exists()
        maybe_handle_io_exception(log_dir_failure_channel, parent_dir,
                                  lambda: f"Error while deleting segments for {topic_partition} in dir {parent_dir}",
                                  delete)

    if async_delete:
        scheduler.schedule_once("delete-file", delete_segments, config.file_delete_delay_ms)
    else:
        delete_segments()


def empty_fetch_data_info(fetch_offset_metadata: LogOffsetMetadata, include_aborted_txns: bool) -> FetchDataInfo:
    aborted_transactions: list[Any] | None = [] if include_aborted_txns else None
    return FetchDataInfo(fetch_offset_metadata, MemoryRecords.EMPTY, False, aborted_transactions)


def create_new_cleaned_segment(dir: str | Path, log_config: LogConfig, base_offset: int) -> LogSegment:
    LogSegment.delete_files_if_exist(dir, base_offset, CLEANED_FILE_SUFFIX)
    return LogSegment.open(dir, base_offset, log_config, time_module.SYSTEM, False, log_config.init_file_size(),
                           log_config.preallocate, CLEANED_FILE_SUFFIX)


# --- why segments are deleted (for the log line) ---

class SegmentDeletionReason:
    def log_reason(self, to_delete: list[LogSegment]) -> None:
        raise NotImplementedError


@dataclass(frozen=True)
class LogTruncation(SegmentDeletionReason):
    log: LocalLog

    def log_reason(self, to_delete: list[LogSegment]) -> None:
        self.log.logger.info("Deleting segments as part of log truncation: %s", ",".join(str(s) for s in to_delete))


@dataclass(frozen=True)
class LogRoll(SegmentDeletionReason):
    log: LocalLog

    def log_reason(self, to_delete: list[LogSegment]) -> None:
        self.log.logger.info("Deleting segments as part of log roll: %s", ",".join(str(s) for s in to_delete))


@dataclass(frozen=True)
class LogDeletion(SegmentDeletionReason):
    log: LocalLog

    def log_reason(self, to_delete: list[LogSegment]) -> None:
        self.log.logger.info("Deleting segments as the log has been deleted: %s", ",".join(str(s) for s in to_delete))
