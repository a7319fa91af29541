"""Port of core/src/main/scala/kafka/log/LogCleaner.scala (Kafka 1.0.2): the log cleaner of compacted topics, with
CleanerConfig.scala. LogCleaner owns the CleanerThreads; each thread's Cleaner keeps, for the filthiest compacted log,
only the newest record of every key (and a tombstone until its delete horizon), rewriting groups of segments into one
and swapping it in.

LogToClean is in log_cleaner_manager.py (the manager builds it) and is re-exported here.
"""

from __future__ import annotations

import heapq
import logging
import threading
import time as _time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kafka_edu.tracing import note, step
from kafka_edu.v1_0_2.clients.common.errors import (
    IllegalArgumentException,
    IllegalStateException,
    KafkaStorageException,
    LogCleaningAbortedException,
    ThreadShutdownException,
)
from kafka_edu.v1_0_2.clients.common.record.default_record import DefaultRecord
from kafka_edu.v1_0_2.clients.common.record.end_transaction_marker import ControlRecordType
from kafka_edu.v1_0_2.clients.common.record.file_records import DefaultRecordBatch, FileRecords, MemoryRecords
from kafka_edu.v1_0_2.clients.common.record.memory_records import BatchRetention, RecordFilter
from kafka_edu.v1_0_2.clients.common.utils.time import SYSTEM, Time
from kafka_edu.v1_0_2.core.log.log_cleaner_manager import LogCleanerManager, LogToClean
from kafka_edu.v1_0_2.core.log.log_segment import INT_MAX, LogSegment
from kafka_edu.v1_0_2.core.log.offset_index import OffsetIndex
from kafka_edu.v1_0_2.core.log.offset_map import OffsetMap, SkimpyOffsetMap
from kafka_edu.v1_0_2.core.log.time_index import TimeIndex
from kafka_edu.v1_0_2.core.log.transaction_index import AbortedTxn, TransactionIndex
from kafka_edu.v1_0_2.core.utils.concurrent import CountDownLatch
from kafka_edu.v1_0_2.core.utils.throttler import Throttler

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.log.log import Log
    from kafka_edu.v1_0_2.core.server.log_dir_failure_channel import LogDirFailureChannel

__all__ = ["CleanedTransactionMetadata", "Cleaner", "CleanerConfig", "CleanerStats", "LogCleaner", "LogToClean"]

logger = logging.getLogger("kafka.log.LogCleaner")

TopicPartition = tuple[str, int]
DOUBLE_MAX = 1.7976931348623157e308


@dataclass(frozen=True)
class CleanerConfig:
    """CleanerConfig.scala: the broker's `log.cleaner.*` settings (these defaults are the case class's; KafkaServer
    fills it from KafkaConfig, whose defaults differ: a 128 MiB dedupe buffer, 512 KiB of I/O buffer)."""

    num_threads: int = 1
    dedupe_buffer_size: int = 4 * 1024 * 1024
    dedupe_buffer_load_factor: float = 0.9
    io_buffer_size: int = 1024 * 1024
    max_message_size: int = 32 * 1024 * 1024
    max_io_bytes_per_second: float = DOUBLE_MAX
    back_off_ms: int = 15 * 1000
    enable_cleaner: bool = True
    hash_algorithm: str = "MD5"


class LogCleaner:
    """The cleaner threads of one broker and the LogCleanerManager they share. `logs` is the LogManager's own map,
    so that a log created or deleted later is seen."""

    def __init__(self, config: CleanerConfig, log_dirs: Iterable[Path], logs: dict[TopicPartition, Log],
                 log_dir_failure_channel: LogDirFailureChannel | None, time: Time = SYSTEM) -> None:
        self.config = config
        self.log_dirs = [Path(d) for d in log_dirs]
        self.logs = logs
        self.log_dir_failure_channel = log_dir_failure_channel
        self.time = time
        self.cleaner_manager = LogCleanerManager(self.log_dirs, logs, log_dir_failure_channel)
        # one throttle for the I/O of all the threads together
        self.throttler = Throttler(config.max_io_bytes_per_second, check_interval_ms=300, throttle_down=True,
                                   metric_name="cleaner-io", units="bytes", time=time)
        self.cleaners = [CleanerThread(self, i) for i in range(config.num_threads)]

    @step("CL.startup")
    def startup(self) -> None:
        logger.info("Starting the log cleaner")
        for cleaner in self.cleaners:
            cleaner.start()

    def shutdown(self) -> None:
        logger.info("Shutting down the log cleaner.")
        for cleaner in self.cleaners:
            cleaner.shutdown()

    def abort_cleaning(self, topic_partition: TopicPartition) -> None:
        """Stop the log's cleaning (it is being deleted) and wait until it has stopped."""
        self.cleaner_manager.abort_cleaning(topic_partition)

    def update_checkpoints(self, data_dir: Path) -> None:
        """Drop the checkpoint entries of logs no longer in the directory."""
        self.cleaner_manager.update_checkpoints(data_dir, update=None)

    def handle_log_dir_failure(self, dir: str) -> None:
        self.cleaner_manager.handle_log_dir_failure(dir)

    def maybe_truncate_checkpoint(self, data_dir: Path, topic_partition: TopicPartition, offset: int) -> None:
        self.cleaner_manager.maybe_truncate_checkpoint(data_dir, topic_partition, offset)

    def abort_and_pause_cleaning(self, topic_partition: TopicPartition) -> None:
        self.cleaner_manager.abort_and_pause_cleaning(topic_partition)

    def resume_cleaning(self, topic_partition: TopicPartition) -> None:
        self.cleaner_manager.resume_cleaning(topic_partition)

    def await_cleaned(self, topic_partition: TopicPartition, offset: int, max_wait_ms: int = 60000) -> bool:
        """For tests: wait (polling every 100 ms, as Kafka does) until the log is cleaned up to `offset`."""
        def is_cleaned() -> bool:
            cleaned = self.cleaner_manager.all_cleaner_checkpoints().get(topic_partition)
            return cleaned is not None and cleaned >= offset

        remaining_wait_ms = max_wait_ms
        while not is_cleaned() and remaining_wait_ms > 0:
            sleep_time = min(100, remaining_wait_ms)
            _time.sleep(sleep_time / 1000)
            remaining_wait_ms -= sleep_time
        return is_cleaned()


class CleanerThread(threading.Thread):
    """`kafka-log-cleaner-thread-<n>`: one pass per do_work, a back-off sleep when there was nothing to clean.

    A ShutdownableThread (not interruptible): its loop and shutdown are below, as AbstractFetcherThread's are.
    """

    def __init__(self, log_cleaner: LogCleaner, thread_id: int) -> None:
        super().__init__(name=f"kafka-log-cleaner-thread-{thread_id}", daemon=True)
        self._shutdown_initiated = CountDownLatch(1)
        self._shutdown_complete = CountDownLatch(1)
        self._is_started = False
        self.log_cleaner = log_cleaner
        self.cleaner_manager = log_cleaner.cleaner_manager
        config = log_cleaner.config
        if config.dedupe_buffer_size // config.num_threads > INT_MAX:
            logger.warning("Cannot use more than 2G of cleaner buffer space per cleaner thread, ignoring excess "
                             "buffer space...")
        self.cleaner = Cleaner(id=thread_id,
                               offset_map=SkimpyOffsetMap(min(config.dedupe_buffer_size // config.num_threads, INT_MAX),
                                                          config.hash_algorithm),
                               io_buffer_size=config.io_buffer_size // config.num_threads // 2,
                               max_io_buffer_size=config.max_message_size,
                               dup_buffer_load_factor=config.dedupe_buffer_load_factor,
                               throttler=log_cleaner.throttler, time=log_cleaner.time, check_done=self._check_done)
        self.last_stats = CleanerStats()
        self._back_off_wait_latch = CountDownLatch(1)

    def _check_done(self, topic_partition: TopicPartition) -> None:
        """Between two chunks of a clean: stop for a shutdown or for an abort of this log's cleaning."""
        if not self.is_running:
            raise ThreadShutdownException()
        self.cleaner_manager.check_cleaning_aborted(topic_partition)

    @step("CL.work", root=True)
    def do_work(self) -> None:
        self._clean_or_sleep()

    def shutdown(self) -> None:
        self.initiate_shutdown()
        self._back_off_wait_latch.count_down()
        self.await_shutdown()

    # -- ShutdownableThread -------------------------------------------------------------------------------------------

    @property
    def is_running(self) -> bool:
        return self._shutdown_initiated.count > 0

    def initiate_shutdown(self) -> bool:
        if not self.is_running:
            return False
        logger.info("[%s]: Shutting down", self.name)
        self._shutdown_initiated.count_down()
        return True

    def await_shutdown(self) -> None:
        if self._is_started and self is not threading.current_thread():
            self._shutdown_complete.await_()
        logger.info("[%s]: Shutdown completed", self.name)

    def start(self) -> None:
        self._is_started = True
        super().start()

    def run(self) -> None:
        logger.info("[%s]: Starting", self.name)
        try:
            while self.is_running:
                self.do_work()
        except BaseException:
            if self.is_running:
                logger.exception("[%s]: Error due to", self.name)
        finally:
            self._shutdown_complete.count_down()
        logger.info("[%s]: Stopped", self.name)

    def _clean_or_sleep(self) -> None:
        """Clean the filthiest log if there is one, then apply retention to compact+delete logs; sleep if idle."""
        cleanable = self.cleaner_manager.grab_filthiest_compacted_log(self.log_cleaner.time)
        if cleanable is None:
            cleaned = False
        else:
            end_offset = cleanable.first_dirty_offset
            try:
                next_dirty_offset, cleaner_stats = self.cleaner.clean(cleanable)
                self.record_stats(self.cleaner.id, cleanable.log.name, cleanable.first_dirty_offset, end_offset,
                                  cleaner_stats)
                end_offset = next_dirty_offset
            except LogCleaningAbortedException:
                pass  # a truncation or a deletion stopped it
            except KafkaStorageException:
                pass  # the log's directory is already offline
            except OSError as e:
                msg = (f"Failed to clean up log for {_tp(cleanable.topic_partition)} in dir "
                       f"{cleanable.log.dir.parent} due to IOException")
                if self.log_cleaner.log_dir_failure_channel is not None:
                    self.log_cleaner.log_dir_failure_channel.maybe_add_offline_log_dir(str(cleanable.log.dir.parent),
                                                                                       msg, e)
            finally:
                self.cleaner_manager.done_cleaning(cleanable.topic_partition, cleanable.log.dir.parent, end_offset)
            cleaned = True

        with step("CL.delete", self.cleaner_manager):
            deletable = self.cleaner_manager.deletable_logs()
            segments_deleted = 0
            for topic_partition, lg in deletable:
                try:
                    segments_deleted += lg.delete_old_segments()
                finally:
                    self.cleaner_manager.done_deleting(topic_partition)
            note(deletable=deletable, segments_deleted=segments_deleted)

        if not cleaned:
            self._back_off_wait_latch.await_(self.log_cleaner.config.back_off_ms / 1000)

    def record_stats(self, id: int, name: str, from_offset: int, to_offset: int, stats: CleanerStats) -> None:
        self.last_stats = stats

        def mb(b: float) -> float:
            return b / (1024 * 1024)

        elapsed = max(stats.elapsed_secs, 1e-9)
        logger.info("Log cleaner thread %d cleaned log %s (dirty section = [%d, %d]): %.1f MB of log processed in "
                    "%.1f seconds (%.1f MB/sec); indexed %.1f MB; buffer utilization %.1f%%; start size %.1f MB "
                    "(%d messages), end size %.1f MB (%d messages)", id, name, from_offset, to_offset,
                    mb(stats.bytes_read), stats.elapsed_secs, mb(stats.bytes_read) / elapsed,
                    mb(stats.map_bytes_read), 100 * stats.buffer_utilization, mb(stats.bytes_read),
                    stats.messages_read, mb(stats.bytes_written), stats.messages_written)
        if stats.invalid_messages_read > 0:
            logger.warning("Found %d invalid messages during compaction.", stats.invalid_messages_read)


class _LogCleanerFilter(RecordFilter):
    """cleanInto's RecordFilter: whole batches of aborted transactions (and spent markers) go; the batch holding a
    live producer's last sequence stays, even empty; otherwise each record is kept by shouldRetainRecord."""

    def __init__(self, cleaner: Cleaner, map: OffsetMap, retain_deletes: bool,
                 transaction_metadata: CleanedTransactionMetadata, active_producers: dict[int, int],
                 stats: CleanerStats) -> None:
        self.cleaner = cleaner
        self.map = map
        self.retain_deletes = retain_deletes
        self.transaction_metadata = transaction_metadata
        self.active_producers = active_producers
        self.stats = stats
        self.discard_batch_records = False

    def check_batch_retention(self, batch: DefaultRecordBatch) -> BatchRetention:
        self.discard_batch_records = self.cleaner.should_discard_batch(batch, self.transaction_metadata,
                                                                       retain_txn_markers=self.retain_deletes)
        if batch.has_producer_id and self.active_producers.get(batch.producer_id) == batch.last_sequence:
            return BatchRetention.RETAIN_EMPTY
        if self.discard_batch_records:
            return BatchRetention.DELETE
        return BatchRetention.DELETE_EMPTY

    def should_retain_record(self, record_batch: DefaultRecordBatch, record: DefaultRecord) -> bool:
        if self.discard_batch_records:
            return False
        return self.cleaner.should_retain_record(self.map, self.retain_deletes, record_batch, record, self.stats)


class Cleaner:
    """One thread's cleaning: an offset map of the dirty section, then every segment up to the map's last offset
    copied without the records the map has a newer offset for. `check_done` is called between chunks."""

    def __init__(self, id: int, offset_map: OffsetMap, io_buffer_size: int, max_io_buffer_size: int,
                 dup_buffer_load_factor: float, throttler: Throttler, time: Time,
                 check_done: Callable[[TopicPartition], None]) -> None:
        self.id = id
        self.offset_map = offset_map
        self.io_buffer_size = io_buffer_size
        self.max_io_buffer_size = max_io_buffer_size
        self.dup_buffer_load_factor = dup_buffer_load_factor
        self.throttler = throttler
        self.time = time
        self.check_done = check_done
        self.log_ident = f"Cleaner {id}: "
        # the read and write buffers' capacities (Kafka allocates ByteBuffers; here reads are sized by them)
        self.read_buffer_size = io_buffer_size
        self.write_buffer_size = io_buffer_size
        if not offset_map.slots * dup_buffer_load_factor > 1:
            raise IllegalArgumentException(
                "requirement failed: offset map is too small to fit in even a single message, so log cleaning will "
                "never make progress. You can increase log.cleaner.dedupe.buffer.size or decrease log.cleaner.threads")

    def _info(self, msg: str, *args: Any) -> None:
        logger.info(self.log_ident + msg, *args)

    @step("CL.clean")
    def clean(self, cleanable: LogToClean) -> tuple[int, CleanerStats]:
        """Clean the log; the delete horizon is the last clean segment's last-modified time - delete.retention.ms."""
        clean_segments = cleanable.log.log_segments(0, cleanable.first_dirty_offset)
        if not clean_segments:
            delete_horizon_ms = 0
        else:
            delete_horizon_ms = clean_segments[-1].last_modified - cleanable.log.config.delete_retention_ms
        return self.do_clean(cleanable, delete_horizon_ms)

    def do_clean(self, cleanable: LogToClean, delete_horizon_ms: int) -> tuple[int, CleanerStats]:
        """Returns the next dirty offset (one past the map's latest offset) and the statistics."""
        self._info("Beginning cleaning of log %s.", cleanable.log.name)
        lg = cleanable.log
        stats = CleanerStats(self.time)
        self._info("Building offset map for %s...", cleanable.log.name)
        upper_bound_offset = cleanable.first_uncleanable_offset
        self.build_offset_map(lg, cleanable.first_dirty_offset, upper_bound_offset, self.offset_map, stats)
        end_offset = self.offset_map.latest_offset + 1
        stats.index_done()
        uncleanable = lg.log_segments(0, cleanable.first_uncleanable_offset)
        cleanable_horizon_ms = uncleanable[-1].last_modified if uncleanable else 0
        self._info("Cleaning log %s (cleaning prior to %s, discarding tombstones prior to %s)...", lg.name,
                   _date(cleanable_horizon_ms), _date(delete_horizon_ms))
        for group in self.group_segments_by_size(lg.log_segments(0, end_offset), lg.config.segment_bytes,
                                                 lg.config.segment_index_bytes, cleanable.first_uncleanable_offset):
            self.clean_segments(lg, group, self.offset_map, delete_horizon_ms, stats)
        stats.buffer_utilization = self.offset_map.utilization
        stats.all_done()
        return end_offset, stats

    @step("CL.segments")
    def clean_segments(self, log: Log, segments: list[LogSegment], map: OffsetMap, delete_horizon_ms: int,
                       stats: CleanerStats) -> None:
        """Rewrite a group of segments into one `.cleaned` segment at the first one's base offset, then swap it in."""
        def delete_and_get_cleaned_file(file: Path) -> Path:
            f = Path(str(file) + log.CleanedFileSuffix)
            f.unlink(missing_ok=True)
            return f

        first_segment = segments[0]
        log_file = delete_and_get_cleaned_file(first_segment.log.file)
        index_file = delete_and_get_cleaned_file(first_segment.index.file)
        time_index_file = delete_and_get_cleaned_file(first_segment.time_index.file)
        txn_index_file = delete_and_get_cleaned_file(first_segment.txn_index.file)

        start_offset = first_segment.base_offset
        records = FileRecords.open(log_file)
        index = OffsetIndex(index_file, start_offset, first_segment.index.max_index_size)
        time_index = TimeIndex(time_index_file, start_offset, first_segment.time_index.max_index_size)
        txn_index = TransactionIndex(start_offset, txn_index_file)
        cleaned = LogSegment(records, index, time_index, txn_index, start_offset, first_segment.index_interval_bytes,
                             log.config.random_segment_jitter(), self.time.milliseconds)
        try:
            for i, current_segment in enumerate(segments):
                next_segment = segments[i + 1] if i + 1 < len(segments) else None
                segment_start_offset = current_segment.base_offset
                upper_bound_offset = (next_segment.base_offset if next_segment is not None
                                      else map.latest_offset + 1)
                aborted_transactions = log.collect_aborted_transactions(segment_start_offset, upper_bound_offset)
                transaction_metadata = CleanedTransactionMetadata(aborted_transactions, txn_index)
                retain_deletes = current_segment.last_modified > delete_horizon_ms
                self._info("Cleaning segment %d in log %s (largest timestamp %s) into %d, %s deletes.",
                           segment_start_offset, log.name, _date(current_segment.largest_timestamp),
                           cleaned.base_offset, "retaining" if retain_deletes else "discarding")
                self.clean_into(log.topic_partition, current_segment.log, cleaned, map, retain_deletes,
                                log.config.max_message_bytes, transaction_metadata,
                                log.active_producers_with_last_sequence, stats)

            # trim the files to their contents, fill the time index's last entry, and fsync
            cleaned.log.trim()
            index.trim_to_valid_size()
            cleaned.on_become_inactive_segment()
            time_index.trim_to_valid_size()
            cleaned.flush()

            # the cleaned segment is as old as the newest segment it replaces (the delete horizon reads it)
            modified = segments[-1].last_modified
            cleaned.last_modified = modified

            self._info("Swapping in cleaned segment %d for segment(s) %s in log %s.", cleaned.base_offset,
                       ",".join(str(s.base_offset) for s in segments), log.name)
            log.replace_segments(cleaned, segments)
        except LogCleaningAbortedException:
            try:
                cleaned.delete()
            except Exception as e:
                logger.warning("%sFailed to delete the aborted cleaned segment: %s", self.log_ident, e)
            raise

    @step("CL.into")
    def clean_into(self, topic_partition: TopicPartition, source_records: FileRecords, dest: LogSegment,
                   map: OffsetMap, retain_deletes: bool, max_log_message_size: int,
                   transaction_metadata: CleanedTransactionMetadata, active_producers: dict[int, int],
                   stats: CleanerStats) -> None:
        """Copy what survives of one source segment into `dest`, a read buffer at a time."""
        log_cleaner_filter = _LogCleanerFilter(self, map, retain_deletes, transaction_metadata, active_producers,
                                               stats)
        position = 0
        while position < source_records.size_in_bytes():
            self.check_done(topic_partition)
            read = source_records.read(position, self.read_buffer_size).to_bytes()
            records = MemoryRecords(read)
            self.throttler.maybe_throttle(records.size_in_bytes())
            result = records.filter_to(topic_partition, log_cleaner_filter, self.write_buffer_size,
                                       max_log_message_size)
            stats.read_messages(result.messages_read, result.bytes_read)
            stats.recopy_messages(result.messages_retained, result.bytes_retained)

            position += result.bytes_read

            output_buffer = result.output
            if len(output_buffer) > 0:
                retained = MemoryRecords(output_buffer)
                dest.append(first_offset=next(retained.batches()).base_offset, largest_offset=result.max_offset,
                            largest_timestamp=result.max_timestamp,
                            shallow_offset_of_max_timestamp=result.shallow_offset_of_max_timestamp, records=retained)
                self.throttler.maybe_throttle(len(output_buffer))

            # nothing read from a full buffer: a batch bigger than the buffer; grow the buffers and try again
            if len(read) > 0 and result.bytes_read == 0:
                self.grow_buffers(max_log_message_size)
        self.restore_buffers()

    def should_discard_batch(self, batch: DefaultRecordBatch, transaction_metadata: CleanedTransactionMetadata,
                             retain_txn_markers: bool) -> bool:
        if batch.is_control_batch:
            can_discard_control_batch = transaction_metadata.on_control_batch_read(batch)
            return can_discard_control_batch and not retain_txn_markers
        return transaction_metadata.on_batch_read(batch)

    def should_retain_record(self, map: OffsetMap, retain_deletes: bool, batch: DefaultRecordBatch,
                             record: DefaultRecord, stats: CleanerStats) -> bool:
        """Keep a record past the map, or the newest of its key, unless it is a tombstone past its horizon."""
        past_latest_offset = record.offset > map.latest_offset
        if past_latest_offset:
            return True
        if record.has_key():
            found_offset = map.get(record.key)  # type: ignore[arg-type]
            # an older record of a key the map has a newer offset for, or a tombstone whose horizon passed
            redundant = found_offset >= 0 and record.offset < found_offset
            obsolete_delete = not retain_deletes and record.value is None
            return not redundant and not obsolete_delete
        stats.invalid_message()
        return False

    def grow_buffers(self, max_log_message_size: int) -> None:
        max_buffer_size = max(max_log_message_size, self.max_io_buffer_size)
        if self.read_buffer_size >= max_buffer_size or self.write_buffer_size >= max_buffer_size:
            raise IllegalStateException(f"This log contains a message larger than maximum allowable size of "
                                        f"{max_buffer_size}.")
        new_size = min(self.read_buffer_size * 2, max_buffer_size)
        self._info("Growing cleaner I/O buffers from %dbytes to %d bytes.", self.read_buffer_size, new_size)
        self.read_buffer_size = new_size
        self.write_buffer_size = new_size

    def restore_buffers(self) -> None:
        if self.read_buffer_size > self.io_buffer_size:
            self.read_buffer_size = self.io_buffer_size
        if self.write_buffer_size > self.io_buffer_size:
            self.write_buffer_size = self.io_buffer_size

    @step("CL.group")
    def group_segments_by_size(self, segments: Iterable[LogSegment], max_size: int, max_index_size: int,
                               first_uncleanable_offset: int) -> list[list[LogSegment]]:
        """Consecutive segments whose logs fit in `max_size`, whose indexes fit in `max_index_size`, and whose
        offsets fit relative (32-bit) offsets of the first one."""
        grouped: list[list[LogSegment]] = []
        segs = list(segments)
        while segs:
            group = [segs[0]]
            log_size = segs[0].size
            index_size = segs[0].index.size_in_bytes()
            time_index_size = segs[0].time_index.size_in_bytes()
            segs = segs[1:]
            while (segs
                   and log_size + segs[0].size <= max_size
                   and index_size + segs[0].index.size_in_bytes() <= max_index_size
                   and time_index_size + segs[0].time_index.size_in_bytes() <= max_index_size
                   and self._last_offset_for_first_segment(segs, first_uncleanable_offset)
                   - group[-1].base_offset <= INT_MAX):
                group.append(segs[0])
                log_size += segs[0].size
                index_size += segs[0].index.size_in_bytes()
                time_index_size += segs[0].time_index.size_in_bytes()
                segs = segs[1:]
            grouped.append(group)
        return grouped

    @staticmethod
    def _last_offset_for_first_segment(segs: list[LogSegment], first_uncleanable_offset: int) -> int:
        """An upper bound of the first segment's last offset: the next one's base offset - 1, else the cleanable
        range's end - 1 (reading the segment to find it would cost a scan)."""
        if len(segs) > 1:
            return segs[1].base_offset - 1
        return first_uncleanable_offset - 1

    @step("CL.map")
    def build_offset_map(self, log: Log, start: int, end: int, map: OffsetMap, stats: CleanerStats) -> None:
        """Map each key of the dirty section [start, end) to its last offset, until the map is full."""
        map.clear()
        dirty = log.log_segments(start, end)
        self._info("Building offset map for log %s for %d segments in offset range [%d, %d).", log.name, len(dirty),
                   start, end)
        aborted_transactions = log.collect_aborted_transactions(start, end)
        transaction_metadata = CleanedTransactionMetadata(aborted_transactions)
        full = False
        for segment in dirty:
            if full:
                break
            self.check_done(log.topic_partition)
            full = self._build_offset_map_for_segment(log.topic_partition, segment, map, start,
                                                      log.config.max_message_bytes, transaction_metadata, stats)
            if full:
                logger.debug("%sOffset map is full, %d segments fully mapped, segment with base offset %d is "
                             "partially mapped", self.log_ident, dirty.index(segment), segment.base_offset)
        self._info("Offset map for log %s complete.", log.name)

    def _build_offset_map_for_segment(self, topic_partition: TopicPartition, segment: LogSegment, map: OffsetMap,
                                      start_offset: int, max_log_message_size: int,
                                      transaction_metadata: CleanedTransactionMetadata, stats: CleanerStats) -> bool:
        """Add one segment's keys from `start_offset` on; True when the map filled up before its end."""
        position = segment.index.lookup(start_offset).position
        max_desired_map_size = int(map.slots * self.dup_buffer_load_factor)
        while position < segment.log.size_in_bytes():
            self.check_done(topic_partition)
            read = segment.log.read(position, self.read_buffer_size).to_bytes()
            records = MemoryRecords(read)
            self.throttler.maybe_throttle(records.size_in_bytes())
            start_position = position
            bytes_read = 0
            for batch in records.batches():
                bytes_read += batch.size_in_bytes
                if batch.is_control_batch:
                    transaction_metadata.on_control_batch_read(batch)
                    stats.index_messages_read(1)
                else:
                    is_aborted = transaction_metadata.on_batch_read(batch)
                    if is_aborted:
                        # an aborted transaction's records do not enter the map: the cleaner drops them
                        stats.index_messages_read(batch.record_count)
                    else:
                        for record in batch.records():
                            if record.has_key() and record.offset >= start_offset:
                                if map.size < max_desired_map_size:
                                    map.put(record.key, record.offset)  # type: ignore[arg-type]
                                else:
                                    return True
                            stats.index_messages_read(1)
                if batch.last_offset >= start_offset:
                    map.update_latest_offset(batch.last_offset)
            position += bytes_read
            stats.index_bytes_read(bytes_read)
            # nothing read: a batch bigger than the buffer
            if position == start_position:
                self.grow_buffers(max_log_message_size)
        self.restore_buffers()
        return False


class CleanerStats:
    """What one clean read, wrote and mapped, and when its phases ended."""

    def __init__(self, time: Time = SYSTEM) -> None:
        self.time = time
        self.start_time = time.milliseconds()
        self.map_complete_time = -1
        self.end_time = -1
        self.bytes_read = 0
        self.bytes_written = 0
        self.map_bytes_read = 0
        self.map_messages_read = 0
        self.messages_read = 0
        self.invalid_messages_read = 0
        self.messages_written = 0
        self.buffer_utilization = 0.0

    def read_messages(self, messages_read: int, bytes_read: int) -> None:
        self.messages_read += messages_read
        self.bytes_read += bytes_read

    def invalid_message(self) -> None:
        self.invalid_messages_read += 1

    def recopy_messages(self, messages_written: int, bytes_written: int) -> None:
        self.messages_written += messages_written
        self.bytes_written += bytes_written

    def index_messages_read(self, size: int) -> None:
        self.map_messages_read += size

    def index_bytes_read(self, size: int) -> None:
        self.map_bytes_read += size

    def index_done(self) -> None:
        self.map_complete_time = self.time.milliseconds()

    def all_done(self) -> None:
        self.end_time = self.time.milliseconds()

    @property
    def elapsed_secs(self) -> float:
        return (self.end_time - self.start_time) / 1000.0

    @property
    def elapsed_index_secs(self) -> float:
        return (self.map_complete_time - self.start_time) / 1000.0


class _AbortedTransactionMetadata:
    def __init__(self, aborted_txn: AbortedTxn) -> None:
        self.aborted_txn = aborted_txn
        self.last_observed_batch_offset: int | None = None


class CleanedTransactionMetadata:
    """The transactions seen while reading a section: which producers' open transactions were aborted (from the
    aborted transactions of the section, in first-offset order) and which were committed. With a transaction index,
    an aborted transaction whose data stays is recorded in the cleaned segment's index."""

    def __init__(self, aborted_transactions: list[AbortedTxn],
                 transaction_index: TransactionIndex | None = None) -> None:
        self._aborted_transactions = [(t.first_offset, i, t) for i, t in enumerate(aborted_transactions)]
        heapq.heapify(self._aborted_transactions)
        self.transaction_index = transaction_index
        self.ongoing_committed_txns: set[int] = set()
        self.ongoing_aborted_txns: dict[int, _AbortedTransactionMetadata] = {}

    def on_control_batch_read(self, control_batch: DefaultRecordBatch) -> bool:
        """A COMMIT or ABORT marker: True when it may go (its transaction has no data left)."""
        self._consume_aborted_txns_up_to(control_batch.last_offset)
        control_record = next(control_batch.records())
        control_type = ControlRecordType.parse(control_record.key)  # type: ignore[arg-type]
        producer_id = control_batch.producer_id
        if control_type == ControlRecordType.ABORT:
            aborted_txn_metadata = self.ongoing_aborted_txns.pop(producer_id, None)
            if aborted_txn_metadata is not None and aborted_txn_metadata.last_observed_batch_offset is not None:
                # data of the aborted transaction was read, so the marker stays: write it into the cleaned index
                if self.transaction_index is not None:
                    self.transaction_index.append(aborted_txn_metadata.aborted_txn)
                return False
            return True
        if control_type == ControlRecordType.COMMIT:
            # a commit marker stays while the transaction's data was read in this section
            if producer_id in self.ongoing_committed_txns:
                self.ongoing_committed_txns.discard(producer_id)
                return False
            return True
        return False

    def _consume_aborted_txns_up_to(self, offset: int) -> None:
        while self._aborted_transactions and self._aborted_transactions[0][0] <= offset:
            aborted_txn = heapq.heappop(self._aborted_transactions)[2]
            self.ongoing_aborted_txns[aborted_txn.producer_id] = _AbortedTransactionMetadata(aborted_txn)

    def on_batch_read(self, batch: DefaultRecordBatch) -> bool:
        """A data batch: True when it belongs to an aborted transaction (it is to be dropped)."""
        self._consume_aborted_txns_up_to(batch.last_offset)
        if batch.is_transactional:
            aborted_transaction_metadata = self.ongoing_aborted_txns.get(batch.producer_id)
            if aborted_transaction_metadata is not None:
                aborted_transaction_metadata.last_observed_batch_offset = batch.last_offset
                return True
            self.ongoing_committed_txns.add(batch.producer_id)
            return False
        return False


def _date(ms: int) -> str:
    return _time.strftime("%Y-%m-%d %H:%M:%S", _time.gmtime(ms / 1000)) if ms > 0 else "the epoch"


def _tp(topic_partition: TopicPartition) -> str:
    topic, partition = topic_partition
    return f"{topic}-{partition}"
