"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/LogSegment.java (Kafka 3.9): one segment of a
partition's log: the records file plus its offset, time and transaction indexes, all named by the base offset."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kafka_edu.v1_0_2.clients.common.errors import (
    CorruptRecordException,
    IllegalArgumentException,
)
from kafka_edu.v3_9.clients.common.invalid_record_exception import InvalidRecordException
from kafka_edu.v3_9.clients.common.record.file_records import FileRecords, LogOffsetPosition, TimestampAndOffset
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record_batch import MAGIC_VALUE_V2
from kafka_edu.v3_9.clients.common.utils.buffer_supplier import BufferSupplier, GrowableBufferSupplier
from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.clients.common.utils.utils import close_quietly, replace_suffix, swallow, try_all
from kafka_edu.v3_9.storage.storage.internals.log import log_file_utils
from kafka_edu.v3_9.storage.storage.internals.log.aborted_txn import AbortedTxn
from kafka_edu.v3_9.storage.storage.internals.log.append_origin import AppendOrigin
from kafka_edu.v3_9.storage.storage.internals.log.completed_txn import CompletedTxn
from kafka_edu.v3_9.storage.storage.internals.log.fetch_data_info import FetchDataInfo
from kafka_edu.v3_9.storage.storage.internals.log.lazy_index import LazyIndex
from kafka_edu.v3_9.storage.storage.internals.log.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.storage.storage.internals.log.log_segment_offset_overflow_exception import (
    LogSegmentOffsetOverflowException,
)
from kafka_edu.v3_9.storage.storage.internals.log.offset_index import OffsetIndex
from kafka_edu.v3_9.storage.storage.internals.log.offset_position import OffsetPosition
from kafka_edu.v3_9.storage.storage.internals.log.roll_params import RollParams
from kafka_edu.v3_9.storage.storage.internals.log.time_index import TimeIndex
from kafka_edu.v3_9.storage.storage.internals.log.timestamp_offset import TimestampOffset
from kafka_edu.v3_9.storage.storage.internals.log.transaction_index import TransactionIndex
from kafka_edu.v3_9.storage.storage.internals.log.txn_index_search_result import TxnIndexSearchResult

if TYPE_CHECKING:
    from kafka_edu.v3_9.clients.common.record.record_batch import RecordBatch
    from kafka_edu.v3_9.storage.storage.internals.epoch.leader_epoch_file_cache import LeaderEpochFileCache
    from kafka_edu.v3_9.storage.storage.internals.log.producer_state_manager import ProducerStateManager

LOGGER = logging.getLogger("org.apache.kafka.storage.internals.log.LogSegment")

# a directory that is used for future partition
FUTURE_DIR_SUFFIX = "-future"
FUTURE_DIR_PATTERN = re.compile(r"^(\S+)-(\S+)\.(\S+)" + FUTURE_DIR_SUFFIX)

LONG_MIN = -(2**63)
LONG_MAX = 2**63 - 1


class _UpToSegmentSize:
    """The default of read's `max_position_opt`: the segment's size when the read starts (Kafka's 2-arg read)."""


_UP_TO_SEGMENT_SIZE = _UpToSegmentSize()


class LogSegment:
    """A segment of the log: a FileRecords for the data plus a sparse offset index and time index (loaded lazily)
    and a transaction index. The offset index maps the *last* offset of an append to the position the append
    started at, once every `index_interval_bytes`. Not thread safe for writes: the log serialises appends."""

    def __init__(self, log: FileRecords, lazy_offset_index: LazyIndex[OffsetIndex],
                 lazy_time_index: LazyIndex[TimeIndex], txn_index: TransactionIndex, base_offset: int,
                 index_interval_bytes: int, roll_jitter_ms: int, time: Time) -> None:
        self._log = log
        self._lazy_offset_index = lazy_offset_index
        self._lazy_time_index = lazy_time_index
        self._txn_index = txn_index
        self._base_offset = base_offset
        self._index_interval_bytes = index_interval_bytes
        self._roll_jitter_ms = roll_jitter_ms
        self._time = time

        # The timestamp used for time based rolling and for the max compaction delay; None until known
        self._rolling_based_timestamp: int | None = None

        # The largest timestamp seen so far, with the last offset of the batch that carried it
        self._max_timestamp_and_offset_so_far = TimestampOffset.UNKNOWN

        self._created = time.milliseconds()

        # bytes appended since the last offset index entry
        self._bytes_since_last_index_entry = 0

    def offset_index(self) -> OffsetIndex:
        return self._lazy_offset_index.get()

    def offset_index_file(self) -> Path:
        return self._lazy_offset_index.file()

    def time_index(self) -> TimeIndex:
        return self._lazy_time_index.get()

    def time_index_file(self) -> Path:
        return self._lazy_time_index.file()

    def base_offset(self) -> int:
        return self._base_offset

    def log(self) -> FileRecords:
        return self._log

    def roll_jitter_ms(self) -> int:
        return self._roll_jitter_ms

    def txn_index(self) -> TransactionIndex:
        return self._txn_index

    def should_roll(self, roll_params: RollParams) -> bool:
        """Whether the batch described by `roll_params` must go to a new segment: this one is too big or too old,
        an index is full, or the batch's last offset does not fit a relative offset."""
        reached_roll_ms = (self.time_waited_for_roll(roll_params.now, roll_params.max_timestamp_in_messages)
                           > roll_params.max_segment_ms - self._roll_jitter_ms)
        size = self.size()
        return (size > roll_params.max_segment_bytes - roll_params.messages_size
                or (size > 0 and reached_roll_ms)
                or self.offset_index().is_full() or self.time_index().is_full()
                or not self._can_convert_to_relative_offset(roll_params.max_offset_in_messages))

    def resize_indexes(self, size: int) -> None:
        self.offset_index().resize(size)
        self.time_index().resize(size)

    def sanity_check(self, time_index_file_newly_created: bool) -> None:
        if self.offset_index_file().exists():
            # a time index created just now (an old segment had none) starts empty
            if time_index_file_newly_created:
                self.time_index().resize(0)
            # the offset and time indexes of segments above the recovery point are rebuilt by recovery anyway
            self._txn_index.sanity_check()
        else:
            raise FileNotFoundError(f"Offset index file {self.offset_index_file().absolute()} does not exist")

    def read_max_timestamp_and_offset_so_far(self) -> TimestampOffset:
        if self._max_timestamp_and_offset_so_far is TimestampOffset.UNKNOWN:
            self._max_timestamp_and_offset_so_far = self.time_index().last_entry()
        return self._max_timestamp_and_offset_so_far

    def max_timestamp_so_far(self) -> int:
        """The largest timestamp seen in this segment, read from the time index the first time."""
        return self.read_max_timestamp_and_offset_so_far().timestamp

    def _shallow_offset_of_max_timestamp_so_far(self) -> int:
        return self.read_max_timestamp_and_offset_so_far().offset

    def size(self) -> int:
        """The size in bytes of this segment's records."""
        return self._log.size_in_bytes()

    def _can_convert_to_relative_offset(self, offset: int) -> bool:
        return self.offset_index().can_append_offset(offset)

    def append(self, largest_offset: int, largest_timestamp_ms: int, shallow_offset_of_max_timestamp: int,
               records: MemoryRecords) -> None:
        """Append `records` (already validated and assigned offsets) at the end of the segment; every
        `index_interval_bytes` the indexes get an entry: `largest_offset` -> the position this append starts at.

        Raises LogSegmentOffsetOverflowException if `largest_offset` does not fit a relative offset."""
        if records.size_in_bytes() > 0:
            LOGGER.debug("Inserting %s bytes at end offset %s at position %s with largest timestamp %s at offset %s",
                         records.size_in_bytes(), largest_offset, self._log.size_in_bytes(), largest_timestamp_ms,
                         shallow_offset_of_max_timestamp)
            physical_position = self._log.size_in_bytes()
            if physical_position == 0:
                self._rolling_based_timestamp = largest_timestamp_ms

            self._ensure_offset_in_range(largest_offset)

            # append the messages
            appended_bytes = self._log.append(records)
            LOGGER.debug("Appended %s to %s at end offset %s", appended_bytes, self._log.file(), largest_offset)
            # keep the in-memory max timestamp (and its offset) current
            if largest_timestamp_ms > self.max_timestamp_so_far():
                self._max_timestamp_and_offset_so_far = TimestampOffset(largest_timestamp_ms,
                                                                        shallow_offset_of_max_timestamp)
            # append an entry to the index (if needed)
            if self._bytes_since_last_index_entry > self._index_interval_bytes:
                self.offset_index().append(largest_offset, physical_position)
                self.time_index().maybe_append(self.max_timestamp_so_far(),
                                               self._shallow_offset_of_max_timestamp_so_far())
                self._bytes_since_last_index_entry = 0
            self._bytes_since_last_index_entry += records.size_in_bytes()

    def _ensure_offset_in_range(self, offset: int) -> None:
        if not self._can_convert_to_relative_offset(offset):
            raise LogSegmentOffsetOverflowException(self, offset)

    def _append_chunk_from_file(self, records: FileRecords, position: int, buffer_supplier: BufferSupplier) -> int:
        bytes_to_append = 0
        max_timestamp = LONG_MIN
        shallow_offset_of_max_timestamp = LONG_MIN
        max_offset = LONG_MIN
        read_buffer = buffer_supplier.get(1024 * 1024)

        # the batches that fit this segment's offset range and the read buffer, with their max offset and timestamp
        next_batches = iter(records.batches_from(position))
        while (batch := self._next_appendable_batch(next_batches, read_buffer, bytes_to_append)) is not None:
            if batch.max_timestamp() > max_timestamp:
                max_timestamp = batch.max_timestamp()
                shallow_offset_of_max_timestamp = batch.last_offset()
            max_offset = batch.last_offset()
            bytes_to_append += batch.size_in_bytes()

        if bytes_to_append > 0:
            # grow the buffer so that at least one batch is copied
            if len(read_buffer) < bytes_to_append:
                read_buffer = buffer_supplier.get(bytes_to_append)

            limited = memoryview(read_buffer)[:bytes_to_append]  # readBuffer.limit(bytesToAppend)
            records.read_into(limited, position)

            self.append(max_offset, max_timestamp, shallow_offset_of_max_timestamp,
                        MemoryRecords.readable_records(limited))

        buffer_supplier.release(read_buffer)
        return bytes_to_append

    def _next_appendable_batch(self, record_batches: Any, read_buffer: bytearray, bytes_to_append: int) -> Any:
        batch = next(record_batches, None)
        if batch is not None:
            if (self._can_convert_to_relative_offset(batch.last_offset())
                    and (bytes_to_append == 0 or bytes_to_append + batch.size_in_bytes() < len(read_buffer))):
                return batch
        return None

    def append_from_file(self, records: FileRecords, start: int) -> int:
        """Append from `records` starting at position `start` as many batches as fit this segment's offset range;
        returns the bytes appended (the caller rolls a new segment for the rest)."""
        position = start
        buffer_supplier = GrowableBufferSupplier()
        while position < start + records.size_in_bytes():
            bytes_appended = self._append_chunk_from_file(records, position, buffer_supplier)
            if bytes_appended == 0:
                return position - start
            position += bytes_appended
        return position - start

    def update_txn_index(self, completed_txn: CompletedTxn, last_stable_offset: int) -> None:
        """Not thread safe."""
        if completed_txn.is_aborted:
            LOGGER.debug("Writing aborted transaction %s to transaction index, last stable offset is %s",
                         completed_txn, last_stable_offset)
            self._txn_index.append(AbortedTxn.from_completed_txn(completed_txn, last_stable_offset))

    def _update_producer_state(self, producer_state_manager: ProducerStateManager, batch: RecordBatch) -> None:
        if batch.has_producer_id():
            producer_id = batch.producer_id()
            append_info = producer_state_manager.prepare_update(producer_id, AppendOrigin.REPLICATION)
            maybe_completed_txn = append_info.append(batch, None)
            producer_state_manager.update(append_info)
            if maybe_completed_txn is not None:
                last_stable_offset = producer_state_manager.last_stable_offset(maybe_completed_txn)
                self.update_txn_index(maybe_completed_txn, last_stable_offset)
                producer_state_manager.complete_txn(maybe_completed_txn)
        producer_state_manager.update_map_end_offset(batch.last_offset() + 1)

    def translate_offset(self, offset: int, starting_file_position: int = 0) -> LogOffsetPosition | None:
        """The position and size of the first batch whose last offset is >= `offset` (None if there is none):
        from the index's floor entry (or `starting_file_position` if further) the file is scanned forward."""
        mapping = self.offset_index().lookup(offset)
        return self._log.search_for_offset_with_size(offset, max(mapping.position, starting_file_position))

    def read(self, start_offset: int, max_size: int,
             max_position_opt: int | None | _UpToSegmentSize = _UP_TO_SEGMENT_SIZE,
             min_one_message: bool = False) -> FetchDataInfo | None:
        """Up to `max_size` bytes of batches from the one holding `start_offset`, not past `max_position_opt`
        (the segment's size by default; None reads nothing but the start offset's metadata); with
        `min_one_message` the first batch is returned whole even if it is larger than `max_size`.
        None if `start_offset` is beyond the end of the segment."""
        if isinstance(max_position_opt, _UpToSegmentSize):
            max_position_opt = self.size()
        if max_size < 0:
            raise IllegalArgumentException(f"Invalid max size {max_size} for log read from segment {self._log}")

        start_offset_and_size = self.translate_offset(start_offset)

        # the start position is already off the end of the log
        if start_offset_and_size is None:
            return None

        start_position = start_offset_and_size.position
        offset_metadata = LogOffsetMetadata(start_offset, self._base_offset, start_position)

        adjusted_max_size = max_size
        if min_one_message:
            adjusted_max_size = max(max_size, start_offset_and_size.size)

        # nothing may be read: no room, or no position to read up to
        if adjusted_max_size == 0 or max_position_opt is None:
            return FetchDataInfo(offset_metadata, MemoryRecords.EMPTY)

        # the length of the slice: up to the max position, at most the (adjusted) max size
        fetch_size = min(max_position_opt - start_position, adjusted_max_size)

        return FetchDataInfo(offset_metadata, self._log.slice(start_position, fetch_size),
                             adjusted_max_size < start_offset_and_size.size, None)

    def fetch_upper_bound_offset(self, start_offset_position: OffsetPosition, fetch_size: int) -> int | None:
        position = self.offset_index().fetch_upper_bound_offset(start_offset_position, fetch_size)
        return position.offset if position is not None else None

    def recover(self, producer_state_manager: ProducerStateManager,
                leader_epoch_cache: LeaderEpochFileCache | None = None) -> int:
        """Rebuild the indexes (and the producer state, the transaction index and the leader epoch cache) from the
        records file, and cut off any invalid bytes at its end. Not thread safe. Returns the bytes truncated.

        Raises LogSegmentOffsetOverflowException if a batch's offset does not fit a relative offset."""
        self.offset_index().reset()
        self.time_index().reset()
        self._txn_index.reset()
        valid_bytes = 0
        last_index_entry = 0
        self._max_timestamp_and_offset_so_far = TimestampOffset.UNKNOWN
        try:
            for batch in self._log.batches():
                batch.ensure_valid()
                self._ensure_offset_in_range(batch.last_offset())

                # the batch exposes its max timestamp: no need to read its records
                if batch.max_timestamp() > self.max_timestamp_so_far():
                    self._max_timestamp_and_offset_so_far = TimestampOffset(batch.max_timestamp(), batch.last_offset())

                # build the offset index
                if valid_bytes - last_index_entry > self._index_interval_bytes:
                    self.offset_index().append(batch.last_offset(), valid_bytes)
                    self.time_index().maybe_append(self.max_timestamp_so_far(),
                                                   self._shallow_offset_of_max_timestamp_so_far())
                    last_index_entry = valid_bytes
                valid_bytes += batch.size_in_bytes()

                if batch.magic() >= MAGIC_VALUE_V2:
                    if leader_epoch_cache is not None:
                        latest_epoch = leader_epoch_cache.latest_epoch()
                        if batch.partition_leader_epoch() >= 0 and (
                                latest_epoch is None or batch.partition_leader_epoch() > latest_epoch):
                            leader_epoch_cache.assign(batch.partition_leader_epoch(), batch.base_offset())
                    self._update_producer_state(producer_state_manager, batch)
        except (CorruptRecordException, InvalidRecordException) as e:
            LOGGER.warning("Found invalid messages in log segment %s at byte offset %s.",
                           self._log.file().absolute(), valid_bytes, exc_info=e)
        truncated = self._log.size_in_bytes() - valid_bytes
        if truncated > 0:
            LOGGER.debug("Truncated %s invalid bytes at the end of segment %s during recovery", truncated,
                         self._log.file().absolute())

        self._log.truncate_to(valid_bytes)
        self.offset_index().trim_to_valid_size()
        # a cleanly closed segment ends its time index with its largest timestamp: so does a recovered one
        self.time_index().maybe_append(self.max_timestamp_so_far(), self._shallow_offset_of_max_timestamp_so_far(),
                                       True)
        self.time_index().trim_to_valid_size()
        return truncated

    def has_overflow(self) -> bool:
        """Whether the segment holds an offset that does not fit a relative offset (written by an old broker)."""
        next_offset = self.read_next_offset()
        return next_offset > self._base_offset and not self._can_convert_to_relative_offset(next_offset - 1)

    def collect_aborted_txns(self, fetch_offset: int, upper_bound_offset: int) -> TxnIndexSearchResult:
        return self._txn_index.collect_aborted_txns(fetch_offset, upper_bound_offset)

    def __str__(self) -> str:
        # the cached max timestamp, not largest_record_timestamp: printing must not load the time index
        return (f"LogSegment(baseOffset={self._base_offset}, size={self.size()}, "
                f"lastModifiedTime={self.last_modified()}, "
                f"largestRecordTimestamp={self._max_timestamp_and_offset_so_far.timestamp})")

    __repr__ = __str__

    def truncate_to(self, offset: int) -> int:
        """Drop every batch from the one holding `offset` on, and the index entries at or above `offset`;
        returns the bytes truncated."""
        # translate before truncating the index, so a fully truncated index does not make us scan the file
        mapping = self.translate_offset(offset)
        offset_index = self.offset_index()
        time_index = self.time_index()

        offset_index.truncate_to(offset)
        time_index.truncate_to(offset)
        self._txn_index.truncate_to(offset)

        # the segment may be the active one again: give its indexes their full size back
        offset_index.resize(offset_index.max_index_size())
        time_index.resize(time_index.max_index_size())

        bytes_truncated = 0 if mapping is None else self._log.truncate_to(mapping.position)

        if self._log.size_in_bytes() == 0:
            self._created = self._time.milliseconds()
            self._rolling_based_timestamp = None

        self._bytes_since_last_index_entry = 0
        if self.max_timestamp_so_far() >= 0:
            self._max_timestamp_and_offset_so_far = self._read_largest_timestamp()

        return bytes_truncated

    def _read_largest_timestamp(self) -> TimestampOffset:
        # the last time index entry ((-1, base offset) when the index is empty)
        last_time_index_entry = self.time_index().last_entry()
        offset_position = self.offset_index().lookup(last_time_index_entry.offset)

        # a batch after the last entry may carry a larger timestamp
        max_timestamp_offset_after_last_entry = self._log.largest_timestamp_after(offset_position.position)
        if max_timestamp_offset_after_last_entry.timestamp > last_time_index_entry.timestamp:
            return TimestampOffset(max_timestamp_offset_after_last_entry.timestamp,
                                   max_timestamp_offset_after_last_entry.offset)
        return last_time_index_entry

    def read_next_offset(self) -> int:
        """The offset after the segment's last batch (its base offset when empty): read from the last index
        entry on."""
        fetch_data = self.read(self.offset_index().last_offset(), self._log.size_in_bytes())
        if fetch_data is None:
            return self._base_offset
        last_batch = fetch_data.records.last_batch()
        return last_batch.next_offset() if last_batch is not None else self._base_offset

    def flush(self) -> None:
        """fsync the records file and the indexes."""
        self._log.flush()
        self.offset_index().flush()
        self.time_index().flush()
        self._txn_index.flush()

    def update_parent_dir(self, dir: Path) -> None:
        self._log.update_parent_dir(dir)
        self._lazy_offset_index.update_parent_dir(dir)
        self._lazy_time_index.update_parent_dir(dir)
        self._txn_index.update_parent_dir(dir)

    def change_file_suffixes(self, old_suffix: str, new_suffix: str) -> None:
        """Rename the segment's files, e.g. "" -> ".deleted" before an asynchronous delete."""
        self._log.rename_to(Path(replace_suffix(str(self._log.file()), old_suffix, new_suffix)))
        self._lazy_offset_index.rename_to(Path(replace_suffix(str(self.offset_index_file()), old_suffix, new_suffix)))
        self._lazy_time_index.rename_to(Path(replace_suffix(str(self.time_index_file()), old_suffix, new_suffix)))
        self._txn_index.rename_to(Path(replace_suffix(str(self._txn_index.file()), old_suffix, new_suffix)))

    def has_suffix(self, suffix: str) -> bool:
        return (self._log.file().name.endswith(suffix)
                and self.offset_index_file().name.endswith(suffix)
                and self.time_index_file().name.endswith(suffix)
                and self._txn_index.file().name.endswith(suffix))

    def on_become_inactive_segment(self) -> None:
        """The segment is no longer the active one: end its time index with its largest timestamp and cut the
        preallocated space off the indexes and the records file."""
        self.time_index().maybe_append(self.max_timestamp_so_far(), self._shallow_offset_of_max_timestamp_so_far(),
                                       True)
        self.offset_index().trim_to_valid_size()
        self.time_index().trim_to_valid_size()
        self._log.trim()

    def _load_first_batch_timestamp(self) -> None:
        if self._rolling_based_timestamp is None:
            for batch in self._log.batches():
                self._rolling_based_timestamp = batch.max_timestamp()
                break

    def time_waited_for_roll(self, now: int, message_timestamp: int) -> int:
        """How long the segment has been open for time-based rolling: by the first batch's timestamp if it has
        one, else by the wall clock since the segment was created."""
        self._load_first_batch_timestamp()
        ts = self._rolling_based_timestamp if self._rolling_based_timestamp is not None else -1
        if ts >= 0:
            return message_timestamp - ts
        return now - self._created

    def get_first_batch_timestamp(self) -> int:
        """The first batch's timestamp, Long.MAX_VALUE if there is none."""
        self._load_first_batch_timestamp()
        timestamp = self._rolling_based_timestamp
        if timestamp is not None and timestamp >= 0:
            return timestamp
        return LONG_MAX

    def find_offset_by_timestamp(self, timestamp_ms: int, starting_offset: int = 0) -> TimestampAndOffset | None:
        """The first record at or after `starting_offset` whose timestamp is >= `timestamp_ms`, None if none."""
        # the time index entry of the largest timestamp <= the target
        timestamp_offset = self.time_index().lookup(timestamp_ms)
        position = self.offset_index().lookup(max(timestamp_offset.offset, starting_offset)).position

        # scan the file from there
        return self._log.search_for_timestamp(timestamp_ms, position, starting_offset)

    def close(self) -> None:
        if self._max_timestamp_and_offset_so_far is not TimestampOffset.UNKNOWN:
            swallow(LOGGER, logging.WARNING, "maybeAppend",
                    lambda: self.time_index().maybe_append(self.max_timestamp_so_far(),
                                                           self._shallow_offset_of_max_timestamp_so_far(), True))
        close_quietly(self._lazy_offset_index, "offsetIndex")
        close_quietly(self._lazy_time_index, "timeIndex")
        close_quietly(self._log, "log")
        close_quietly(self._txn_index, "txnIndex")

    def close_handlers(self) -> None:
        """Close the file handles without flushing: the log dir failed."""
        swallow(LOGGER, logging.WARNING, "offsetIndex", self._lazy_offset_index.close_handler)
        swallow(LOGGER, logging.WARNING, "timeIndex", self._lazy_time_index.close_handler)
        swallow(LOGGER, logging.WARNING, "log", self._log.close_handlers)
        close_quietly(self._txn_index, "txnIndex")

    def delete_if_exists(self) -> None:
        """Delete the records file and the indexes; every delete is tried, the first failure is raised."""
        try_all([
            lambda: self._delete_type_if_exists(self._log.delete_if_exists, "log", self._log.file(), True),
            lambda: self._delete_type_if_exists(self._lazy_offset_index.delete_if_exists, "offset index",
                                                self.offset_index_file(), True),
            lambda: self._delete_type_if_exists(self._lazy_time_index.delete_if_exists, "time index",
                                                self.time_index_file(), True),
            lambda: self._delete_type_if_exists(self._txn_index.delete_if_exists, "transaction index",
                                                self._txn_index.file(), False),
        ])

    @staticmethod
    def _delete_type_if_exists(delete: Callable[[], bool], file_type: str, file: Path, log_if_missing: bool) -> None:
        try:
            if delete():
                LOGGER.info("Deleted %s %s.", file_type, file.absolute())
            else:
                if log_if_missing:
                    LOGGER.info("Failed to delete %s %s because it does not exist.", file_type, file.absolute())

                # an alter-log-dir may have moved the segment: delete the file in the new dir, or it is orphaned
                dir_matcher = FUTURE_DIR_PATTERN.fullmatch(str(file.parent))
                if dir_matcher is not None:
                    topic_partition_absolute_path = dir_matcher.group(1) + "-" + dir_matcher.group(2)
                    fallback_file = Path(topic_partition_absolute_path, file.name)
                    if (fallback_file.exists() and file.name.endswith(log_file_utils.DELETED_FILE_SUFFIX)
                            and _delete_file(fallback_file)):
                        LOGGER.info("Fallback to delete %s %s.", file_type, fallback_file.absolute())
        except OSError as e:
            raise OSError(f"Delete of {file_type} {file.absolute()} failed.") from e

    def deleted(self) -> bool:
        """Visible for testing."""
        return (not self._log.file().exists() and not self.offset_index_file().exists()
                and not self.time_index_file().exists() and not self._txn_index.file().exists())

    def last_modified(self) -> int:
        """The records file's modification time in ms (0 if it does not exist, as File.lastModified)."""
        try:
            return os.stat(self._log.file()).st_mtime_ns // 1_000_000
        except OSError:
            return 0

    def largest_record_timestamp(self) -> int | None:
        """The largest timestamp of the segment's records, None if none has one."""
        max_timestamp_so_far = self.max_timestamp_so_far()
        if max_timestamp_so_far >= 0:
            return max_timestamp_so_far
        return None

    def largest_timestamp(self) -> int:
        """The largest record timestamp, or the last modified time if no record has one (for retention)."""
        max_timestamp_so_far = self.max_timestamp_so_far()
        if max_timestamp_so_far >= 0:
            return max_timestamp_so_far
        return self.last_modified()

    def set_last_modified(self, ms: int) -> None:
        ns = ms * 1_000_000
        for file in (self._log.file(), self.offset_index_file(), self.time_index_file()):
            os.utime(file, ns=(ns, ns))

    @staticmethod
    def open(dir: str | os.PathLike[str], base_offset: int, config: Any, time: Time, file_already_exists: bool = False,
             init_file_size: int = 0, preallocate: bool = False, file_suffix: str = "") -> LogSegment:
        """Both LogSegment.open overloads. `config` is a LogConfig: max_index_size, index_interval and
        random_segment_jitter() are read."""
        max_index_size = config.max_index_size
        return LogSegment(
            FileRecords.open(log_file_utils.log_file(dir, base_offset, file_suffix),
                             file_already_exists=file_already_exists, init_file_size=init_file_size,
                             preallocate=preallocate),
            LazyIndex.for_offset(log_file_utils.offset_index_file(dir, base_offset, file_suffix), base_offset,
                                 max_index_size),
            LazyIndex.for_time(log_file_utils.time_index_file(dir, base_offset, file_suffix), base_offset,
                               max_index_size),
            TransactionIndex(base_offset, log_file_utils.transaction_index_file(dir, base_offset, file_suffix)),
            base_offset,
            config.index_interval,
            config.random_segment_jitter(),
            time)

    @staticmethod
    def delete_files_if_exist(dir: str | os.PathLike[str], base_offset: int, file_suffix: str) -> None:
        """The static LogSegment.deleteIfExists(dir, baseOffset, fileSuffix): a segment's files, not opened."""
        _delete_file_if_exists(log_file_utils.offset_index_file(dir, base_offset, file_suffix))
        _delete_file_if_exists(log_file_utils.time_index_file(dir, base_offset, file_suffix))
        _delete_file_if_exists(log_file_utils.transaction_index_file(dir, base_offset, file_suffix))
        _delete_file_if_exists(log_file_utils.log_file(dir, base_offset, file_suffix))


def _delete_file_if_exists(file: Path) -> bool:
    """Files.deleteIfExists."""
    try:
        file.unlink()
        return True
    except FileNotFoundError:
        return False


def _delete_file(file: Path) -> bool:
    """File.delete: False instead of an exception."""
    try:
        file.unlink()
        return True
    except OSError:
        return False
