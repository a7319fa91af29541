"""Port of core/src/main/scala/kafka/log/LogSegment.scala (Kafka 1.0.2)."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v1_0_2.clients.common.record.file_records import (
    MAGIC_VALUE_V2,
    NO_TIMESTAMP,
    CorruptRecordException,
    DefaultRecordBatch,
    FileRecords,
    LogOffsetPosition,
    MemoryRecords,
)
from kafka_edu.v1_0_2.core.log.offset_index import OffsetIndex, OffsetPosition, require
from kafka_edu.v1_0_2.core.log.time_index import TimeIndex, TimestampOffset
from kafka_edu.v1_0_2.core.log.transaction_index import AbortedTxn, TransactionIndex, TxnIndexSearchResult

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.clients.common.requests.fetch_response import AbortedTransaction
    from kafka_edu.v1_0_2.core.log.producer_state_manager import CompletedTxn, ProducerStateManager
    from kafka_edu.v1_0_2.core.server.epoch.leader_epoch_file_cache import LeaderEpochFileCache

logger = logging.getLogger(__name__)

LOG_FILE_SUFFIX = ".log"
INDEX_FILE_SUFFIX = ".index"
TIME_INDEX_FILE_SUFFIX = ".timeindex"
TXN_INDEX_FILE_SUFFIX = ".txnindex"
INT_MAX = 2**31 - 1


def system_time_ms() -> int:
    return int(time.time() * 1000)


def filename_prefix_from_offset(offset: int) -> str:
    """Zero-pad to 20 digits so that `ls` sorts segments by offset."""
    return f"{offset:020d}"


def log_file(dir: Path, offset: int, suffix: str = "") -> Path:
    return dir / (filename_prefix_from_offset(offset) + LOG_FILE_SUFFIX + suffix)


def offset_index_file(dir: Path, offset: int, suffix: str = "") -> Path:
    return dir / (filename_prefix_from_offset(offset) + INDEX_FILE_SUFFIX + suffix)


def time_index_file(dir: Path, offset: int, suffix: str = "") -> Path:
    return dir / (filename_prefix_from_offset(offset) + TIME_INDEX_FILE_SUFFIX + suffix)


def transaction_index_file(dir: Path, offset: int, suffix: str = "") -> Path:
    return dir / (filename_prefix_from_offset(offset) + TXN_INDEX_FILE_SUFFIX + suffix)


class LogOffsetMetadata(NamedTuple):
    """kafka.server.LogOffsetMetadata: an offset and where it sits on disk."""

    message_offset: int
    segment_base_offset: int = -1
    relative_position_in_segment: int = -1


@dataclass
class FetchDataInfo:
    """kafka.server.FetchDataInfo: what a read returns; `records` is a view of the segment file.

    `aborted_transactions` is None for a read_uncommitted read, else the aborted transactions in the range read.
    """

    fetch_offset_metadata: LogOffsetMetadata
    records: FileRecords | None  # None stands for MemoryRecords.EMPTY
    first_entry_incomplete: bool = False
    aborted_transactions: list[AbortedTransaction] | None = None

    def records_bytes(self) -> bytes:
        return self.records.to_bytes() if self.records is not None else b""


class LogSegment:
    """One .log file with its .index, .timeindex and .txnindex; every offset in it is >= base_offset."""

    def __init__(self, log: FileRecords, index: OffsetIndex, time_index: TimeIndex, txn_index: TransactionIndex,
                 base_offset: int, index_interval_bytes: int, roll_jitter_ms: int = 0,
                 time_ms: Callable[[], int] = system_time_ms) -> None:
        self.log = log
        self.index = index
        self.time_index = time_index
        self.txn_index = txn_index
        self.base_offset = base_offset
        self.index_interval_bytes = index_interval_bytes
        self.roll_jitter_ms = roll_jitter_ms
        self._time_ms = time_ms
        self._created = time_ms()
        # Bytes appended since the last offset index entry.
        self._bytes_since_last_index_entry = 0
        # Timestamp of the first batch, the clock for time-based rolling.
        self._rolling_based_timestamp: int | None = None
        # Largest timestamp seen so far and the offset that carries it.
        self._max_timestamp_so_far = time_index.last_entry.timestamp
        self._offset_of_max_timestamp = time_index.last_entry.offset

    @classmethod
    def open(cls, dir: Path, start_offset: int, index_interval_bytes: int, max_index_size: int,
             roll_jitter_ms: int = 0, time_ms: Callable[[], int] = system_time_ms, file_already_exists: bool = False,
             init_file_size: int = 0, preallocate: bool = False) -> LogSegment:
        """The auxiliary constructor: open or create the files named after `start_offset` in `dir` (the .txnindex
        only once it gets an entry); with `preallocate` a new .log file is first sized to `init_file_size`."""
        return cls(FileRecords.open(log_file(dir, start_offset), file_already_exists, init_file_size, preallocate),
                   OffsetIndex(offset_index_file(dir, start_offset), start_offset, max_index_size),
                   TimeIndex(time_index_file(dir, start_offset), start_offset, max_index_size),
                   TransactionIndex(start_offset, transaction_index_file(dir, start_offset)),
                   start_offset, index_interval_bytes, roll_jitter_ms, time_ms)

    @property
    def size(self) -> int:
        return self.log.size_in_bytes()

    def can_convert_to_relative_offset(self, offset: int) -> bool:
        """Index entries store offset - base_offset in 4 bytes."""
        return offset - self.base_offset <= INT_MAX

    def append(self, first_offset: int, largest_offset: int, largest_timestamp: int,
               shallow_offset_of_max_timestamp: int, records: MemoryRecords) -> None:
        """Append batches whose offsets are already assigned; add index entries every index_interval_bytes."""
        if records.size_in_bytes() > 0:
            physical_position = self.log.size_in_bytes()
            if physical_position == 0:
                self._rolling_based_timestamp = largest_timestamp
            require(self.can_convert_to_relative_offset(largest_offset),
                    "largest offset in message set can not be safely converted to relative offset.")
            self.log.append(records)
            if largest_timestamp > self._max_timestamp_so_far:
                self._max_timestamp_so_far = largest_timestamp
                self._offset_of_max_timestamp = shallow_offset_of_max_timestamp
            # The index is sparse: one entry per index_interval_bytes of data keeps it small enough to mmap.
            if self._bytes_since_last_index_entry > self.index_interval_bytes:
                self.index.append(first_offset, physical_position)
                self.time_index.maybe_append(self._max_timestamp_so_far, self._offset_of_max_timestamp)
                self._bytes_since_last_index_entry = 0
            self._bytes_since_last_index_entry += records.size_in_bytes()

    def update_txn_index(self, completed_txn: CompletedTxn, last_stable_offset: int) -> None:
        """An aborted transaction enters this segment's index, with the last stable offset after its marker."""
        if completed_txn.is_aborted:
            logger.debug("Writing aborted transaction %s to transaction index, last stable offset is %d",
                         completed_txn, last_stable_offset)
            self.txn_index.append(AbortedTxn.of(completed_txn, last_stable_offset))

    def _update_producer_state(self, producer_state_manager: ProducerStateManager, batch: DefaultRecordBatch) -> None:
        if batch.has_producer_id:
            append_info = producer_state_manager.prepare_update(batch.producer_id, is_from_client=False)
            completed_txn = append_info.append_batch(batch)
            producer_state_manager.update(append_info)
            if completed_txn is not None:
                last_stable_offset = producer_state_manager.complete_txn(completed_txn)
                self.update_txn_index(completed_txn, last_stable_offset)
        producer_state_manager.update_map_end_offset(batch.last_offset + 1)

    def translate_offset(self, offset: int, starting_file_position: int = 0) -> LogOffsetPosition | None:
        """Find the batch holding `offset`: jump via the index, then scan batch headers forward."""
        mapping = self.index.lookup(offset)
        return self.log.search_for_offset_with_size(offset, max(mapping.position, starting_file_position))

    def read(self, start_offset: int, max_offset: int | None, max_size: int, max_position: int | None = None,
             min_one_message: bool = False) -> FetchDataInfo | None:
        """Up to `max_size` bytes from the batch holding `start_offset`; None if the offset is past this segment."""
        if max_size < 0:
            raise IllegalArgumentException(f"Invalid max size for log read ({max_size})")
        if max_position is None:
            max_position = self.size
        log_size = self.log.size_in_bytes()  # read once: appends may move it under us
        start_offset_and_size = self.translate_offset(start_offset)
        if start_offset_and_size is None:
            return None

        start_position = start_offset_and_size.position
        offset_metadata = LogOffsetMetadata(start_offset, self.base_offset, start_position)
        adjusted_max_size = max(max_size, start_offset_and_size.size) if min_one_message else max_size
        if adjusted_max_size == 0:
            return FetchDataInfo(offset_metadata, None)

        if max_offset is None:
            # Replication reads up to the exposed end of the log.
            fetch_size = min(max_position - start_position, adjusted_max_size)
        else:
            # Consumers stop at the high watermark, which may sit before start_offset on a new leader.
            if max_offset < start_offset:
                return FetchDataInfo(offset_metadata, None)
            mapping = self.translate_offset(max_offset, start_position)
            end_position = log_size if mapping is None else mapping.position
            fetch_size = min(min(max_position, end_position) - start_position, adjusted_max_size)

        return FetchDataInfo(offset_metadata, self.log.read(start_position, fetch_size),
                             first_entry_incomplete=adjusted_max_size < start_offset_and_size.size)

    def fetch_upper_bound_offset(self, start_offset_position: OffsetPosition, fetch_size: int) -> int | None:
        """The offset of the first indexed batch past the bytes a read returned, if the index knows one."""
        upper = self.index.fetch_upper_bound_offset(start_offset_position, fetch_size)
        return upper.offset if upper is not None else None

    def recover(self, producer_state_manager: ProducerStateManager | None = None,
                leader_epoch_cache: LeaderEpochFileCache | None = None) -> int:
        """Rebuild both indexes from the .log file and cut it after the last valid batch; return bytes cut.

        `producer_state_manager` holds the state as of this segment's base offset; each valid batch updates it.
        A `leader_epoch_cache` gets the epoch of each batch newer than its latest (a checkpoint that lost some).
        """
        self.index.truncate()
        self.index.resize(self.index.max_index_size)
        self.time_index.truncate()
        self.time_index.resize(self.time_index.max_index_size)
        self.txn_index.truncate()
        valid_bytes = 0
        last_index_entry = 0
        self._max_timestamp_so_far = NO_TIMESTAMP
        try:
            for batch in self.log.batches():
                batch.ensure_valid()
                # The batch header carries its max timestamp, so records need not be read.
                if batch.max_timestamp > self._max_timestamp_so_far:
                    self._max_timestamp_so_far = batch.max_timestamp
                    self._offset_of_max_timestamp = batch.last_offset
                if valid_bytes - last_index_entry > self.index_interval_bytes:
                    self.index.append(batch.base_offset, valid_bytes)
                    self.time_index.maybe_append(self._max_timestamp_so_far, self._offset_of_max_timestamp)
                    last_index_entry = valid_bytes
                valid_bytes += batch.size_in_bytes
                if batch.magic >= MAGIC_VALUE_V2:
                    if leader_epoch_cache is not None \
                            and batch.partition_leader_epoch > leader_epoch_cache.latest_epoch():
                        leader_epoch_cache.assign(batch.partition_leader_epoch, batch.base_offset)
                    if producer_state_manager is not None:
                        self._update_producer_state(producer_state_manager, batch.load_full_batch())
        except CorruptRecordException as e:
            logger.warning("Found invalid messages in log segment %s at byte offset %d: %s.",
                           self.log.file, valid_bytes, e)
        truncated = self.log.size_in_bytes() - valid_bytes
        if truncated > 0:
            logger.debug("Truncated %d invalid bytes at the end of segment %s", truncated, self.log.file)
        self.log.truncate_to(valid_bytes)
        self.index.trim_to_valid_size()
        # Match what close() leaves behind: the segment's max timestamp as the last time index entry.
        self.time_index.maybe_append(self._max_timestamp_so_far, self._offset_of_max_timestamp, skip_full_check=True)
        self.time_index.trim_to_valid_size()
        return truncated

    def find_offset_by_timestamp(self, timestamp: int, starting_offset: int | None = None) -> TimestampOffset | None:
        """The first record here with timestamp >= `timestamp` and offset >= `starting_offset`, or None.

        The time index gives a position to start from; the log is scanned from there.
        """
        if starting_offset is None:
            starting_offset = self.base_offset
        timestamp_offset = self.time_index.lookup(timestamp)
        position = self.index.lookup(max(timestamp_offset.offset, starting_offset)).position
        found = self.log.search_for_timestamp(timestamp, position, starting_offset)
        return TimestampOffset(found.timestamp, found.offset) if found is not None else None

    def _load_largest_timestamp(self) -> None:
        last_time_index_entry = self.time_index.last_entry
        self._max_timestamp_so_far = last_time_index_entry.timestamp
        self._offset_of_max_timestamp = last_time_index_entry.offset
        offset_position = self.index.lookup(last_time_index_entry.offset)
        # Batches after the last time index entry may carry a larger timestamp.
        after = self.log.largest_timestamp_after(offset_position.position)
        if after.timestamp > last_time_index_entry.timestamp:
            self._max_timestamp_so_far = after.timestamp
            self._offset_of_max_timestamp = after.offset

    def collect_aborted_txns(self, fetch_offset: int, upper_bound_offset: int) -> TxnIndexSearchResult:
        return self.txn_index.collect_aborted_txns(fetch_offset, upper_bound_offset)

    def __repr__(self) -> str:
        return f"LogSegment(baseOffset={self.base_offset}, size={self.size})"

    def truncate_to(self, offset: int) -> int:
        """Remove every batch and index entry at or above `offset`; return the number of log bytes removed."""
        mapping = self.translate_offset(offset)
        if mapping is None:
            return 0
        self.index.truncate_to(offset)
        self.time_index.truncate_to(offset)
        self.txn_index.truncate_to(offset)
        # This segment is (again) the active one, so its indexes get room to grow.
        self.index.resize(self.index.max_index_size)
        self.time_index.resize(self.time_index.max_index_size)
        bytes_truncated = self.log.truncate_to(mapping.position)
        if self.log.size_in_bytes() == 0:
            self._created = self._time_ms()
            self._rolling_based_timestamp = None
        self._bytes_since_last_index_entry = 0
        if self._max_timestamp_so_far >= 0:
            self._load_largest_timestamp()
        return bytes_truncated

    def next_offset(self) -> int:
        """The offset the next appended batch would get; found by scanning from the last index entry."""
        fetch_info = self.read(self.index.last_offset, None, self.log.size_in_bytes())
        if fetch_info is None or fetch_info.records is None:
            return self.base_offset
        batches = list(fetch_info.records.batches())
        return batches[-1].next_offset if batches else self.base_offset

    def flush(self) -> None:
        self.log.flush()
        self.index.flush()
        self.time_index.flush()
        self.txn_index.flush()

    def change_file_suffixes(self, old_suffix: str, new_suffix: str) -> None:
        """Rename all four files, e.g. "" -> ".deleted" before an asynchronous delete."""
        for f in (self.log, self.index, self.time_index, self.txn_index):
            f.rename_to(_replace_suffix(f.file, old_suffix, new_suffix))

    def update_dir(self, dir: Path) -> None:
        """Point the four files at `dir` (their directory was renamed; the files themselves did not move)."""
        self.log.file = Path(dir) / self.log.file.name
        self.index.file = Path(dir) / self.index.file.name
        self.time_index.file = Path(dir) / self.time_index.file.name
        self.txn_index.file = Path(dir) / self.txn_index.file.name

    def on_become_inactive_segment(self) -> None:
        """Record the segment's max timestamp; retention by time reads it from the last time index entry."""
        self.time_index.maybe_append(self._max_timestamp_so_far, self._offset_of_max_timestamp, skip_full_check=True)

    def time_waited_for_roll(self, now: int, message_timestamp: int) -> int:
        """Age of this segment: by the first batch's timestamp if it has one, else by wall clock since creation."""
        if self._rolling_based_timestamp is None:
            first = next(iter(self.log.batches()), None)
            if first is not None:
                self._rolling_based_timestamp = first.max_timestamp
        if self._rolling_based_timestamp is not None and self._rolling_based_timestamp >= 0:
            return message_timestamp - self._rolling_based_timestamp
        return now - self._created

    def close(self) -> None:
        self._swallow(lambda: self.time_index.maybe_append(
            self._max_timestamp_so_far, self._offset_of_max_timestamp, skip_full_check=True))
        self._swallow(self.index.close)
        self._swallow(self.time_index.close)
        self._swallow(self.log.close)
        self._swallow(self.txn_index.close)

    def close_handlers(self) -> None:
        """Drop file handles without writing anything, for when the disk may be failing."""
        self._swallow(self.index.close_handler)
        self._swallow(self.time_index.close_handler)
        self._swallow(self.log.close_handlers)
        self._swallow(self.txn_index.close)

    def delete(self) -> None:
        deleted_log = self.log.delete()
        deleted_index = self.index.delete()
        deleted_time_index = self.time_index.delete()
        deleted_txn_index = self.txn_index.delete()
        if not deleted_log and self.log.file.exists():
            raise OSError(f"Delete of log {self.log.file.name} failed.")
        if not deleted_index and self.index.file.exists():
            raise OSError(f"Delete of index {self.index.file.name} failed.")
        if not deleted_time_index and self.time_index.file.exists():
            raise OSError(f"Delete of time index {self.time_index.file.name} failed.")
        if not deleted_txn_index and self.txn_index.file.exists():
            raise OSError(f"Delete of transaction index {self.txn_index.file.name} failed.")

    @property
    def last_modified(self) -> int:
        return int(self.log.file.stat().st_mtime * 1000)

    @last_modified.setter
    def last_modified(self, ms: int) -> None:
        """Set the last-modified time of the log and its two indexes (the cleaner keeps a cleaned segment's age)."""
        for f in (self.log.file, self.index.file, self.time_index.file):
            os.utime(f, ns=(ms * 1_000_000, ms * 1_000_000))

    @property
    def largest_timestamp(self) -> int:
        return self._max_timestamp_so_far if self._max_timestamp_so_far >= 0 else self.last_modified

    @staticmethod
    def _swallow(action: Callable[[], object]) -> None:
        """CoreUtils.swallow: log and carry on, so one failing file does not keep the others open."""
        try:
            action()
        except Exception:
            logger.exception("Error while closing segment files")


def _replace_suffix(path: Path, old_suffix: str, new_suffix: str) -> Path:
    name = path.name
    if not name.endswith(old_suffix):
        raise ValueError(f"Expected string to end with '{old_suffix}' but string is '{name}'")
    return path.with_name(name[: len(name) - len(old_suffix)] + new_suffix)
