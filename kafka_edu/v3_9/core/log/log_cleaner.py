"""Port of core/src/main/scala/kafka/log/LogCleaner.scala (Kafka 3.9): the cleaner of compacted logs. LogCleaner owns
the CleanerThreads; each thread's Cleaner keeps, for the filthiest compacted log, only the newest record of every key
(a tombstone and a transaction marker until their delete horizon), rewriting groups of segments into one and
swapping it in. CleanerStats, PreCleanStats, LogToClean and CleanedTransactionMetadata are here too."""

from __future__ import annotations

import heapq
import logging
import time as _time
from collections.abc import Callable, Iterable, MutableMapping
from pathlib import Path
from typing import Any

from kafka_edu.tracing import note, step
from kafka_edu.v1_0_2.clients.common.config.config_def import ConfigException
from kafka_edu.v1_0_2.clients.common.errors import (
    CorruptRecordException,
    IllegalArgumentException,
    IllegalStateException,
    KafkaException,
    KafkaStorageException,
    LogCleaningAbortedException,
    ThreadShutdownException,
)
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType
from kafka_edu.v3_9.clients.common.record.file_records import FileRecords
from kafka_edu.v3_9.clients.common.record.memory_records import (
    BatchRetention,
    BatchRetentionResult,
    MemoryRecords,
    RecordFilter,
)
from kafka_edu.v3_9.clients.common.record.record import Record
from kafka_edu.v3_9.clients.common.record.record_batch import MAGIC_VALUE_V2, RecordBatch
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.buffer_supplier import BufferSupplier
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM, Time
from kafka_edu.v3_9.core.log import unified_log
from kafka_edu.v3_9.core.log.log_cleaner_manager import (
    LogCleanerManager,
    LogCleaningException,
    calculate_cleanable_bytes,
)
from kafka_edu.v3_9.core.log.unified_log import UnifiedLog
from kafka_edu.v3_9.server_common.server.util.shutdownable_thread import ShutdownableThread
from kafka_edu.v3_9.storage.storage.internals.log import cleaner_config as CC
from kafka_edu.v3_9.storage.storage.internals.log.aborted_txn import AbortedTxn
from kafka_edu.v3_9.storage.storage.internals.log.cleaner_config import CleanerConfig
from kafka_edu.v3_9.storage.storage.internals.log.last_record import LastRecord
from kafka_edu.v3_9.storage.storage.internals.log.log_dir_failure_channel import LogDirFailureChannel
from kafka_edu.v3_9.storage.storage.internals.log.log_segment import LogSegment
from kafka_edu.v3_9.storage.storage.internals.log.log_segment_offset_overflow_exception import (
    LogSegmentOffsetOverflowException,
)
from kafka_edu.v3_9.storage.storage.internals.log.offset_map import OffsetMap
from kafka_edu.v3_9.storage.storage.internals.log.skimpy_offset_map import SkimpyOffsetMap
from kafka_edu.v3_9.storage.storage.internals.log.transaction_index import TransactionIndex
from kafka_edu.v3_9.storage.storage.internals.utils.throttler import Throttler

logger = logging.getLogger("kafka.log.LogCleaner")

INT_MAX = 2**31 - 1

# KafkaConfig's names for the cleaner settings a broker may change at runtime
RECONFIGURABLE_CONFIGS = frozenset({
    CC.LOG_CLEANER_THREADS_PROP,
    CC.LOG_CLEANER_DEDUPE_BUFFER_SIZE_PROP,
    CC.LOG_CLEANER_DEDUPE_BUFFER_LOAD_FACTOR_PROP,
    CC.LOG_CLEANER_IO_BUFFER_SIZE_PROP,
    "message.max.bytes",
    CC.LOG_CLEANER_IO_MAX_BYTES_PER_SECOND_PROP,
    CC.LOG_CLEANER_BACKOFF_MS_PROP,
})


class LogCleaner:
    """The cleaner threads of one broker and the LogCleanerManager they share. `logs` is the LogManager's own map
    (its Pool), so a log created or deleted later is seen."""

    def __init__(self, initial_config: CleanerConfig, log_dirs: Iterable[Path],
                 logs: MutableMapping[TopicPartition, UnifiedLog], log_dir_failure_channel: LogDirFailureChannel,
                 time: Time = SYSTEM) -> None:
        # may be replaced by reconfigure
        self._config = initial_config
        self.log_dirs = [Path(d) for d in log_dirs]
        self.logs = logs
        self.log_dir_failure_channel = log_dir_failure_channel
        self.time = time
        # the state of the partitions being cleaned
        self.cleaner_manager = LogCleanerManager(self.log_dirs, logs, log_dir_failure_channel)
        # one throttle for the I/O of all the threads together
        self.throttler = Throttler(self._config.max_io_bytes_per_second, 300, "cleaner-io", "bytes", time)
        self.cleaners: list[CleanerThread] = []

    def dead_thread_count(self) -> int:
        return sum(1 for c in self.cleaners if c.is_thread_failed)

    @step("CL.startup")
    def startup(self) -> None:
        """The threads are created here (their number is reconfigurable), `log.cleaner.threads` of them."""
        logger.info("Starting the log cleaner")
        for i in range(self._config.num_threads):
            cleaner = CleanerThread(self, i)
            self.cleaners.append(cleaner)
            cleaner.start()

    def _shutdown_cleaners(self) -> None:
        logger.info("Shutting down the log cleaner.")
        for cleaner in self.cleaners:
            cleaner.shutdown()
        self.cleaners.clear()

    def shutdown(self) -> None:
        try:
            self._shutdown_cleaners()
        finally:
            self.remove_metrics()

    def remove_metrics(self) -> None:
        self.cleaner_manager.remove_metrics()

    def reconfigurable_configs(self) -> frozenset[str]:
        return RECONFIGURABLE_CONFIGS

    def validate_reconfiguration(self, new_config: Any) -> None:
        num_threads = cleaner_config(new_config).num_threads
        current_threads = self._config.num_threads
        if num_threads < 1:
            raise ConfigException("Log cleaner threads should be at least 1")
        if num_threads < current_threads / 2:
            raise ConfigException(f"Log cleaner threads cannot be reduced to less than half the current value "
                                  f"{current_threads}")
        if num_threads > current_threads * 2:
            raise ConfigException(f"Log cleaner threads cannot be increased to more than double the current value "
                                  f"{current_threads}")

    def reconfigure(self, old_config: Any, new_config: Any) -> None:
        """New settings: the throttle rate in place, then the threads stopped and started afresh."""
        self._config = cleaner_config(new_config)
        max_io_bytes_per_second = self._config.max_io_bytes_per_second
        if max_io_bytes_per_second != _kafka_config_value(old_config, "log_cleaner_io_max_bytes_per_second"):
            logger.info("Updating logCleanerIoMaxBytesPerSecond: %s", max_io_bytes_per_second)
            self.throttler.update_desired_rate_per_sec(max_io_bytes_per_second)
        # not shutdown(): the metrics stay
        self._shutdown_cleaners()
        self.startup()

    def abort_cleaning(self, topic_partition: TopicPartition) -> None:
        """Stop the partition's cleaning (it is being deleted) and wait until it has stopped."""
        self.cleaner_manager.abort_cleaning(topic_partition)

    def update_checkpoints(self, data_dir: Path, partition_to_remove: TopicPartition | None = None) -> None:
        self.cleaner_manager.update_checkpoints(data_dir, partition_to_remove=partition_to_remove)

    def alter_checkpoint_dir(self, topic_partition: TopicPartition, source_log_dir: Path, dest_log_dir: Path) -> None:
        self.cleaner_manager.alter_checkpoint_dir(topic_partition, source_log_dir, dest_log_dir)

    def handle_log_dir_failure(self, dir: str) -> None:
        self.cleaner_manager.handle_log_dir_failure(dir)

    def maybe_truncate_checkpoint(self, data_dir: Path, topic_partition: TopicPartition, offset: int) -> None:
        self.cleaner_manager.maybe_truncate_checkpoint(data_dir, topic_partition, offset)

    def abort_and_pause_cleaning(self, topic_partition: TopicPartition) -> None:
        self.cleaner_manager.abort_and_pause_cleaning(topic_partition)

    def resume_cleaning(self, topic_partitions: Iterable[TopicPartition]) -> None:
        self.cleaner_manager.resume_cleaning(topic_partitions)

    def await_cleaned(self, topic_partition: TopicPartition, offset: int, max_wait_ms: int = 60000) -> bool:
        """For tests: poll every 100 ms, as Kafka does, until the partition is cleaned up to `offset`."""
        def is_cleaned() -> bool:
            cleaned = self.cleaner_manager.all_cleaner_checkpoints().get(topic_partition)
            return cleaned is not None and cleaned >= offset

        remaining_wait_ms = max_wait_ms
        while not is_cleaned() and remaining_wait_ms > 0:
            sleep_time = min(100, remaining_wait_ms)
            _time.sleep(sleep_time / 1000)
            remaining_wait_ms -= sleep_time
        return is_cleaned()

    def pause_cleaning_for_non_compacted_partitions(self) -> list[tuple[TopicPartition, UnifiedLog]]:
        return self.cleaner_manager.pause_cleaning_for_non_compacted_partitions()

    def current_config(self) -> CleanerConfig:
        """Only for testing."""
        return self._config

    def cleaner_count(self) -> int:
        """Only for testing."""
        return len(self.cleaners)


def cleaner_config(config: Any) -> CleanerConfig:
    """LogCleaner.cleanerConfig: the CleanerConfig of a KafkaConfig."""
    return CleanerConfig(_kafka_config_value(config, "log_cleaner_threads"),
                         _kafka_config_value(config, "log_cleaner_dedupe_buffer_size"),
                         _kafka_config_value(config, "log_cleaner_dedupe_buffer_load_factor"),
                         _kafka_config_value(config, "log_cleaner_io_buffer_size"),
                         _kafka_config_value(config, "message_max_bytes"),
                         _kafka_config_value(config, "log_cleaner_io_max_bytes_per_second"),
                         _kafka_config_value(config, "log_cleaner_backoff_ms"),
                         _kafka_config_value(config, "log_cleaner_enable"))


def _kafka_config_value(config: Any, name: str) -> Any:
    """A KafkaConfig getter, as an attribute or a method."""
    value = getattr(config, name)
    return value() if callable(value) else value


class CleanerThread(ShutdownableThread):
    """`kafka-log-cleaner-thread-<n>` (not interruptible): one pass per do_work, the back-off when idle."""

    def __init__(self, log_cleaner: LogCleaner, thread_id: int) -> None:
        super().__init__(f"kafka-log-cleaner-thread-{thread_id}", False, logger_name="kafka.log.LogCleaner",
                         daemon=True)
        self.log_cleaner = log_cleaner
        self.cleaner_manager = log_cleaner.cleaner_manager
        config = log_cleaner.current_config()
        if config.dedupe_buffer_size // config.num_threads > INT_MAX:
            logger.warning("Cannot use more than 2G of cleaner buffer space per cleaner thread, ignoring excess "
                           "buffer space...")
        self.cleaner = Cleaner(id=thread_id,
                               offset_map=SkimpyOffsetMap(min(config.dedupe_buffer_size // config.num_threads,
                                                              INT_MAX), config.hash_algorithm()),
                               io_buffer_size=config.io_buffer_size // config.num_threads // 2,
                               max_io_buffer_size=config.max_message_size,
                               dup_buffer_load_factor=config.dedupe_buffer_load_factor,
                               throttler=log_cleaner.throttler, time=log_cleaner.time, check_done=self._check_done)
        self.last_stats = CleanerStats()
        self.last_pre_clean_stats = PreCleanStats()

    def _check_done(self, topic_partition: TopicPartition) -> None:
        """Between two chunks of a clean: stop for a shutdown, or for an abort of this partition's cleaning."""
        if not self.is_running:
            raise ThreadShutdownException()
        self.cleaner_manager.check_cleaning_aborted(topic_partition)

    @step("CL.work", root=True)
    def do_work(self) -> None:
        cleaned = self._try_clean_filthiest_log()
        if not cleaned:
            self.pause(self.log_cleaner.current_config().backoff_ms / 1000)
        self.cleaner_manager.maintain_uncleanable_partitions()

    def _try_clean_filthiest_log(self) -> bool:
        """A failure marks the partition uncleanable; the thread goes on with the others."""
        try:
            return self._clean_filthiest_log()
        except LogCleaningException as e:
            logger.warning("Unexpected exception thrown when cleaning log %s. Marking its partition (%s) as "
                           "uncleanable", e.log, e.log.topic_partition(), exc_info=e)
            self.cleaner_manager.mark_partition_uncleanable(e.log.parent_dir(), e.log.topic_partition())
            return False

    def _clean_filthiest_log(self) -> bool:
        pre_clean_stats = PreCleanStats()
        ltc = self.cleaner_manager.grab_filthiest_compacted_log(self.log_cleaner.time, pre_clean_stats)
        if ltc is None:
            cleaned = False
        else:
            self.last_pre_clean_stats = pre_clean_stats
            try:
                self._clean_log(ltc)
                cleaned = True
            except ThreadShutdownException:
                raise
            except Exception as e:
                raise LogCleaningException(ltc.log, str(e), e) from e

        with step("CL.delete", self.cleaner_manager):
            deletable = self.cleaner_manager.deletable_logs()
            segments_deleted = 0
            try:
                for _, lg in deletable:
                    try:
                        segments_deleted += lg.delete_old_segments()
                    except ThreadShutdownException:
                        raise
                    except Exception as e:
                        raise LogCleaningException(lg, str(e), e) from e
            finally:
                self.cleaner_manager.done_deleting([tp for tp, _ in deletable])
            note(deletable=deletable, segments_deleted=segments_deleted)
        return cleaned

    def _clean_log(self, cleanable: LogToClean) -> None:
        start_offset = cleanable.first_dirty_offset
        end_offset = start_offset
        try:
            next_dirty_offset, cleaner_stats = self.cleaner.clean(cleanable)
            end_offset = next_dirty_offset
            self._record_stats(self.cleaner.id, cleanable.log.name(), start_offset, end_offset, cleaner_stats)
        except LogCleaningAbortedException:
            pass  # a truncation, a deletion or a dir move stopped it
        except KafkaStorageException:
            pass  # the partition is already offline
        except OSError as e:
            log_directory = cleanable.log.parent_dir()
            msg = (f"Failed to clean up log for {cleanable.topic_partition} in dir {log_directory} due to "
                   "IOException")
            self.log_cleaner.log_dir_failure_channel.maybe_add_offline_log_dir(log_directory, msg, e)
        finally:
            self.cleaner_manager.done_cleaning(cleanable.topic_partition, cleanable.log.parent_dir_file(),
                                               end_offset)

    def _record_stats(self, id: int, name: str, from_offset: int, to_offset: int, stats: CleanerStats) -> None:
        self.last_stats = stats

        def mb(b: float) -> float:
            return b / (1024 * 1024)

        elapsed = stats.elapsed_secs() or 1e-9
        logger.info("Log cleaner thread %d cleaned log %s (dirty section = [%d, %d]): %.1f MB of log processed in "
                    "%.1f seconds (%.1f MB/sec); indexed %.1f MB; buffer utilization %.1f%%; start size %.1f MB "
                    "(%d messages), end size %.1f MB (%d messages)", id, name, from_offset, to_offset,
                    mb(stats.bytes_read), stats.elapsed_secs(), mb(stats.bytes_read) / elapsed,
                    mb(stats.map_bytes_read), 100 * stats.buffer_utilization, mb(stats.bytes_read),
                    stats.messages_read, mb(stats.bytes_written), stats.messages_written)
        if self.last_pre_clean_stats.delayed_partitions > 0:
            logger.info("Cleanable partitions: %d, Delayed partitions: %d, max delay: %d",
                        self.last_pre_clean_stats.cleanable_partitions,
                        self.last_pre_clean_stats.delayed_partitions,
                        self.last_pre_clean_stats.max_compaction_delay_ms)
        if stats.invalid_messages_read > 0:
            logger.warning("Found %d invalid messages during compaction.", stats.invalid_messages_read)


class _LogCleanerFilter(RecordFilter):
    """cleanInto's RecordFilter: aborted batches and spent markers go whole; the batch with an active producer's
    last sequence (or its last marker) stays, even empty; each other record is kept by shouldRetainRecord."""

    def __init__(self, cleaner: Cleaner, current_time: int, delete_retention_ms: int, map: OffsetMap,
                 retain_legacy_deletes_and_txn_markers: bool, transaction_metadata: CleanedTransactionMetadata,
                 last_records_of_active_producers: dict[int, LastRecord], stats: CleanerStats) -> None:
        super().__init__(current_time, delete_retention_ms)
        self.cleaner = cleaner
        self.map = map
        self.retain_legacy_deletes_and_txn_markers = retain_legacy_deletes_and_txn_markers
        self.transaction_metadata = transaction_metadata
        self.last_records_of_active_producers = last_records_of_active_producers
        self.stats = stats
        self.discard_batch_records = False

    def check_batch_retention(self, batch: RecordBatch) -> BatchRetentionResult:
        # transaction markers use the tombstone horizon: a marker goes only once its transaction's data is gone
        can_discard_batch = self.cleaner._should_discard_batch(batch, self.transaction_metadata)
        if batch.is_control_batch():
            horizon = batch.delete_horizon_ms()
            self.discard_batch_records = (can_discard_batch and horizon is not None
                                          and horizon <= self.current_time)
        else:
            self.discard_batch_records = can_discard_batch

        def is_batch_last_record_of_producer() -> bool:
            # an active producer keeps the batch with its last sequence, or its last marker (for fencing)
            last_record = self.last_records_of_active_producers.get(batch.producer_id())
            if last_record is None:
                return False
            if last_record.last_data_offset is not None:
                return batch.last_offset() == last_record.last_data_offset
            return batch.is_control_batch() and batch.producer_epoch() == last_record.producer_epoch

        if batch.has_producer_id() and is_batch_last_record_of_producer():
            batch_retention = BatchRetention.RETAIN_EMPTY
        elif self.discard_batch_records:
            batch_retention = BatchRetention.DELETE
        else:
            batch_retention = BatchRetention.DELETE_EMPTY
        return BatchRetentionResult(batch_retention, can_discard_batch and batch.is_control_batch())

    def should_retain_record(self, record_batch: RecordBatch, record: Record) -> bool:
        if self.discard_batch_records:
            # the batch stays only for the producer's sequence: its records go
            return False
        if record_batch.is_control_batch():
            return True
        return self.cleaner._should_retain_record(self.map, self.retain_legacy_deletes_and_txn_markers,
                                                  record_batch, record, self.stats, self.current_time)


class Cleaner:
    """One thread's cleaning: an offset map of the dirty section, then every segment up to the map's latest offset
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
        # the capacities of the read and write buffers (a read fills a fresh buffer of this size)
        self.read_buffer_capacity = io_buffer_size
        self.write_buffer_capacity = io_buffer_size
        self._decompression_buffer_supplier = BufferSupplier.create()
        if not offset_map.slots() * dup_buffer_load_factor > 1:
            raise IllegalArgumentException(
                "requirement failed: offset map is too small to fit in even a single message, so log cleaning will "
                "never make progress. You can increase log.cleaner.dedupe.buffer.size or decrease log.cleaner.threads")

    def _info(self, msg: str, *args: Any) -> None:
        logger.info(self.log_ident + msg, *args)

    @step("CL.clean")
    def clean(self, cleanable: LogToClean) -> tuple[int, CleanerStats]:
        """Clean the log now; returns the first offset not cleaned and the round's statistics."""
        return self.do_clean(cleanable, self.time.milliseconds())

    def do_clean(self, cleanable: LogToClean, current_time: int) -> tuple[int, CleanerStats]:
        self._info("Beginning cleaning of log %s", cleanable.log.name())

        # below it tombstones of pre-v2 batches may go: the last clean segment's last-modified time, less the
        # retention of deletes (v2 batches carry their own horizon)
        clean_segments = cleanable.log.log_segments(0, cleanable.first_dirty_offset)
        legacy_delete_horizon_ms = (clean_segments[-1].last_modified() - cleanable.log.config().delete_retention_ms
                                    if clean_segments else 0)
        lg = cleanable.log
        stats = CleanerStats(self.time)

        # build the offset map
        self._info("Building offset map for %s...", cleanable.log.name())
        upper_bound_offset = cleanable.first_uncleanable_offset
        self.build_offset_map(lg, cleanable.first_dirty_offset, upper_bound_offset, self.offset_map, stats)
        end_offset = self.offset_map.latest_offset() + 1
        stats.index_done()

        # the time up to which the log is cleaned: the last cleanable segment's
        uncleanable = lg.log_segments(0, cleanable.first_uncleanable_offset)
        cleanable_horizon_ms = uncleanable[-1].last_modified() if uncleanable else 0

        # group the segments and clean the groups, one transaction state across them
        self._info("Cleaning log %s (cleaning prior to %s, discarding tombstones prior to upper bound deletion "
                   "horizon %s)...", lg.name(), _date(cleanable_horizon_ms), _date(legacy_delete_horizon_ms))
        transaction_metadata = CleanedTransactionMetadata()
        grouped_segments = self.group_segments_by_size(lg.log_segments(0, end_offset), lg.config().segment_size,
                                                       lg.config().max_index_size, cleanable.first_uncleanable_offset)
        for group in grouped_segments:
            self.clean_segments(lg, group, self.offset_map, current_time, stats, transaction_metadata,
                                legacy_delete_horizon_ms)

        stats.buffer_utilization = self.offset_map.utilization()
        stats.all_done()
        return end_offset, stats

    @step("CL.segments")
    def clean_segments(self, log: UnifiedLog, segments: list[LogSegment], map: OffsetMap, current_time: int,
                       stats: CleanerStats, transaction_metadata: CleanedTransactionMetadata,
                       legacy_delete_horizon_ms: int) -> None:
        """Rewrite a group of segments into one `.cleaned` segment at the first one's base offset, then swap it in."""
        cleaned = unified_log.create_new_cleaned_segment(log.dir(), log.config(), segments[0].base_offset())
        transaction_metadata.cleaned_index = cleaned.txn_index()
        try:
            last_offset_of_active_producers = log.last_records_of_active_producers()
            for i, current_segment in enumerate(segments):
                next_segment = segments[i + 1] if i + 1 < len(segments) else None
                # aborted transactions of the whole segment range: the new segment's txn index is rebuilt from them
                start_offset = current_segment.base_offset()
                upper_bound_offset = (next_segment.base_offset() if next_segment is not None
                                      else current_segment.read_next_offset())
                aborted_transactions = log.collect_aborted_transactions(start_offset, upper_bound_offset)
                transaction_metadata.add_aborted_transactions(aborted_transactions)

                retain_legacy_deletes_and_txn_markers = current_segment.last_modified() > legacy_delete_horizon_ms
                self._info("Cleaning %s in log %s into %d with an upper bound deletion horizon %d computed from the "
                           "segment last modified time of %d,%s deletes.", current_segment, log.name(),
                           cleaned.base_offset(), legacy_delete_horizon_ms, current_segment.last_modified(),
                           "retaining" if retain_legacy_deletes_and_txn_markers else "discarding")
                try:
                    self.clean_into(log.topic_partition(), current_segment.log(), cleaned, map,
                                    retain_legacy_deletes_and_txn_markers, log.config().delete_retention_ms,
                                    log.config().max_message_size(), transaction_metadata,
                                    last_offset_of_active_producers, stats, current_time=current_time)
                except LogSegmentOffsetOverflowException as e:
                    # split the segment and start again from scratch once that is done
                    self._info("Caught segment overflow error during cleaning: %s", e)
                    log.split_overflowed_segment(current_segment)
                    raise LogCleaningAbortedException() from e

            cleaned.on_become_inactive_segment()
            # flush the new segment before the swap
            cleaned.flush()
            # the cleaned segment is as old as the newest segment it replaces (the legacy horizon reads it)
            modified = segments[-1].last_modified()
            cleaned.set_last_modified(modified)

            self._info("Swapping in cleaned segment %s for segment(s) %s in log %s", cleaned,
                       ",".join(str(s.base_offset()) for s in segments), log)
            log.replace_segments([cleaned], segments)
        except LogCleaningAbortedException:
            try:
                cleaned.delete_if_exists()
            except Exception as delete_exception:
                logger.warning("%sFailed to delete the aborted cleaned segment", self.log_ident,
                               exc_info=delete_exception)
            raise

    @step("CL.into")
    def clean_into(self, topic_partition: TopicPartition, source_records: FileRecords, dest: LogSegment,
                   map: OffsetMap, retain_legacy_deletes_and_txn_markers: bool, delete_retention_ms: int,
                   max_log_message_size: int, transaction_metadata: CleanedTransactionMetadata,
                   last_records_of_active_producers: dict[int, LastRecord], stats: CleanerStats,
                   current_time: int) -> None:
        """Copy what survives of one source segment into `dest`, a read buffer at a time."""
        log_cleaner_filter = _LogCleanerFilter(self, current_time, delete_retention_ms, map,
                                               retain_legacy_deletes_and_txn_markers, transaction_metadata,
                                               last_records_of_active_producers, stats)
        position = 0
        while position < source_records.size_in_bytes():
            self.check_done(topic_partition)
            # read a chunk and copy what is retained to the write buffer
            read_buffer = bytearray(self.read_buffer_capacity)
            write_buffer = bytearray()
            source_records.read_into(read_buffer, position)
            records = MemoryRecords.readable_records(read_buffer)
            self.throttler.maybe_throttle(records.size_in_bytes())
            result = records.filter_to(topic_partition, log_cleaner_filter, write_buffer, max_log_message_size,
                                       self._decompression_buffer_supplier)
            stats.read_messages(result.messages_read(), result.bytes_read())
            stats.recopy_messages(result.messages_retained(), result.bytes_retained())

            position += result.bytes_read()

            output_buffer = result.output_buffer()
            if len(output_buffer) > 0:
                retained = MemoryRecords.readable_records(output_buffer)
                # no log lock needed: only this thread sees the segment until replaceSegments
                dest.append(result.max_offset(), result.max_timestamp(), result.shallow_offset_of_max_timestamp(),
                            retained)
                self.throttler.maybe_throttle(len(output_buffer))

            # bytes read but no complete batch: the buffer is too small, grow it and try again
            if len(read_buffer) > 0 and result.bytes_read() == 0:
                self._grow_buffers_or_fail(source_records, position, max_log_message_size, records)
        self._restore_buffers()

    def _grow_buffers_or_fail(self, source_records: FileRecords, position: int, max_log_message_size: int,
                              memory_records: MemoryRecords) -> None:
        if self.read_buffer_capacity >= max_log_message_size:
            next_batch_size = memory_records.first_batch_size()
            log_desc = f"log segment {source_records.file()} at position {position}"
            if next_batch_size is None:
                raise IllegalStateException(f"Could not determine next batch size for {log_desc}")
            if next_batch_size <= 0:
                raise IllegalStateException(f"Invalid batch size {next_batch_size} for {log_desc}")
            if next_batch_size <= self.read_buffer_capacity:
                raise IllegalStateException(f"Batch size {next_batch_size} < buffer size "
                                            f"{self.read_buffer_capacity}, but not processed for {log_desc}")
            bytes_left = source_records.channel().size() - position
            if next_batch_size > bytes_left:
                raise CorruptRecordException(f"Log segment may be corrupt, batch size {next_batch_size} > "
                                             f"{bytes_left} bytes left in segment for {log_desc}")
            max_size = next_batch_size
        else:
            max_size = max_log_message_size
        self._grow_buffers(max_size)

    def _should_discard_batch(self, batch: RecordBatch, transaction_metadata: CleanedTransactionMetadata) -> bool:
        if batch.is_control_batch():
            return transaction_metadata.on_control_batch_read(batch)
        return transaction_metadata.on_batch_read(batch)

    def _should_retain_record(self, map: OffsetMap, retain_deletes_for_legacy_records: bool, batch: RecordBatch,
                              record: Record, stats: CleanerStats, current_time: int) -> bool:
        """Keep a record past the map, or the newest of its key unless it is a tombstone past its horizon."""
        past_latest_offset = record.offset() > map.latest_offset()
        if past_latest_offset:
            return True
        if record.has_key():
            found_offset = map.get(bytes(record.key()))
            # the newest offset of its key (an older duplicate goes)
            latest_offset_for_key = record.offset() >= found_offset
            legacy_record = batch.magic() < MAGIC_VALUE_V2
            if not legacy_record:
                horizon = batch.delete_horizon_ms()
                should_retain_deletes = horizon is None or current_time < horizon
            else:
                should_retain_deletes = retain_deletes_for_legacy_records
            is_retained_value = record.has_value() or should_retain_deletes
            return latest_offset_for_key and is_retained_value
        stats.invalid_message()
        return False

    def _grow_buffers(self, max_log_message_size: int) -> None:
        max_buffer_size = max(max_log_message_size, self.max_io_buffer_size)
        if self.read_buffer_capacity >= max_buffer_size or self.write_buffer_capacity >= max_buffer_size:
            raise IllegalStateException(f"This log contains a message larger than maximum allowable size of "
                                        f"{max_buffer_size}.")
        new_size = min(self.read_buffer_capacity * 2, max_buffer_size)
        self._info("Growing cleaner I/O buffers from %d bytes to %d bytes.", self.read_buffer_capacity, new_size)
        self.read_buffer_capacity = new_size
        self.write_buffer_capacity = new_size

    def _restore_buffers(self) -> None:
        if self.read_buffer_capacity > self.io_buffer_size:
            self.read_buffer_capacity = self.io_buffer_size
        if self.write_buffer_capacity > self.io_buffer_size:
            self.write_buffer_capacity = self.io_buffer_size

    @step("CL.group")
    def group_segments_by_size(self, segments: Iterable[LogSegment], max_size: int, max_index_size: int,
                               first_uncleanable_offset: int) -> list[list[LogSegment]]:
        """Consecutive segments whose logs fit `max_size`, whose indexes fit `max_index_size`, and whose offsets fit
        relative (32-bit) offsets of the group's first."""
        grouped: list[list[LogSegment]] = []
        segs = list(segments)
        while segs:
            group = [segs[0]]
            log_size = segs[0].size()
            index_size = segs[0].offset_index().size_in_bytes()
            time_index_size = segs[0].time_index().size_in_bytes()
            segs = segs[1:]
            while (segs
                   and log_size + segs[0].size() <= max_size
                   and index_size + segs[0].offset_index().size_in_bytes() <= max_index_size
                   and time_index_size + segs[0].time_index().size_in_bytes() <= max_index_size
                   # an empty segment needs no offset range check (no empty log left every 2^31 messages)
                   and (segs[0].size() == 0
                        or self._last_offset_for_first_segment(segs, first_uncleanable_offset)
                        - group[-1].base_offset() <= INT_MAX)):
                group.append(segs[0])
                log_size += segs[0].size()
                index_size += segs[0].offset_index().size_in_bytes()
                time_index_size += segs[0].time_index().size_in_bytes()
                segs = segs[1:]
            grouped.append(group)
        return grouped

    @staticmethod
    def _last_offset_for_first_segment(segs: list[LogSegment], first_uncleanable_offset: int) -> int:
        """An upper bound of the first segment's last offset without reading it: the next one's base offset - 1,
        else the first uncleanable offset - 1."""
        if len(segs) > 1:
            return segs[1].base_offset() - 1
        return first_uncleanable_offset - 1

    @step("CL.map")
    def build_offset_map(self, log: UnifiedLog, start: int, end: int, map: OffsetMap, stats: CleanerStats) -> None:
        """Map each key of the dirty section [start, end) to its last offset, until the map is full."""
        map.clear()
        dirty = log.log_segments(start, end)
        next_segment_start_offsets: list[int] = []
        if dirty:
            next_segment_start_offsets.extend(s.base_offset() for s in dirty[1:])
            next_segment_start_offsets.append(end)
        self._info("Building offset map for log %s for %d segments in offset range [%d, %d).", log.name(),
                   len(dirty), start, end)

        transaction_metadata = CleanedTransactionMetadata()
        aborted_transactions = log.collect_aborted_transactions(start, end)
        transaction_metadata.add_aborted_transactions(aborted_transactions)

        # at least slots * load factor keys, more if the dirty section has many duplicates
        full = False
        for segment, next_segment_start_offset in zip(dirty, next_segment_start_offsets, strict=False):
            if full:
                break
            self.check_done(log.topic_partition())
            full = self._build_offset_map_for_segment(log.topic_partition(), segment, map, start,
                                                      next_segment_start_offset, log.config().max_message_size(),
                                                      transaction_metadata, stats)
            if full:
                logger.debug("%sOffset map is full, %d segments fully mapped, segment with base offset %d is "
                             "partially mapped", self.log_ident, dirty.index(segment), segment.base_offset())
        self._info("Offset map for log %s complete.", log.name())

    def _build_offset_map_for_segment(self, topic_partition: TopicPartition, segment: LogSegment, map: OffsetMap,
                                      start_offset: int, next_segment_start_offset: int, max_log_message_size: int,
                                      transaction_metadata: CleanedTransactionMetadata, stats: CleanerStats) -> bool:
        """Add one segment's keys from `start_offset` on; True when the map filled up before its end."""
        position = segment.offset_index().lookup(start_offset).position
        max_desired_map_size = int(map.slots() * self.dup_buffer_load_factor)
        while position < segment.log().size_in_bytes():
            self.check_done(topic_partition)
            read_buffer = bytearray(self.read_buffer_capacity)
            try:
                segment.log().read_into(read_buffer, position)
            except Exception as e:
                raise KafkaException(f"Failed to read from segment {segment} of partition {topic_partition} while "
                                     "loading offset map") from e
            records = MemoryRecords.readable_records(read_buffer)
            self.throttler.maybe_throttle(records.size_in_bytes())

            start_position = position
            for batch in records.batches():
                if batch.is_control_batch():
                    transaction_metadata.on_control_batch_read(batch)
                    stats.index_messages_read(1)
                else:
                    is_aborted = transaction_metadata.on_batch_read(batch)
                    if is_aborted:
                        # an aborted batch stays out of the map (the cleaner drops it); v2 batches have a count
                        stats.index_messages_read(batch.count_or_null() or 0)
                    else:
                        with batch.streaming_iterator(self._decompression_buffer_supplier) as records_iterator:
                            for record in records_iterator:
                                if record.has_key() and record.offset() >= start_offset:
                                    if map.size() < max_desired_map_size:
                                        map.put(bytes(record.key()), record.offset())
                                    else:
                                        return True
                                stats.index_messages_read(1)
                if batch.last_offset() >= start_offset:
                    map.update_latest_offset(batch.last_offset())
            bytes_read = records.valid_bytes()
            position += bytes_read
            stats.index_bytes_read(bytes_read)

            # not even one complete batch read: the read buffer may be too small
            if position == start_position:
                self._grow_buffers_or_fail(segment.log(), position, max_log_message_size, records)

        # an offset gap: fast-forward to the last offset this segment may hold
        map.update_latest_offset(next_segment_start_offset - 1)
        self._restore_buffers()
        return False


class PreCleanStats:
    """What grabFilthiestCompactedLog saw: the longest compaction delay, the delayed and the cleanable logs."""

    def __init__(self) -> None:
        self.max_compaction_delay_ms = 0
        self.delayed_partitions = 0
        self.cleanable_partitions = 0

    def update_max_compaction_delay(self, delay_ms: int) -> None:
        self.max_compaction_delay_ms = max(self.max_compaction_delay_ms, delay_ms)
        if delay_ms > 0:
            self.delayed_partitions += 1

    def record_cleanable_partitions(self, num_of_cleanables: int) -> None:
        self.cleanable_partitions = num_of_cleanables


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

    def elapsed_secs(self) -> float:
        return (self.end_time - self.start_time) / 1000.0

    def elapsed_index_secs(self) -> float:
        return (self.map_complete_time - self.start_time) / 1000.0


class LogToClean:
    """A log with the range the cleaner may clean, and how dirty it is (cleanable bytes over all bytes up to the
    first uncleanable segment); ordered by that ratio. `need_compaction_now`: past max.compaction.lag.ms."""

    def __init__(self, topic_partition: TopicPartition, log: UnifiedLog, first_dirty_offset: int,
                 uncleanable_offset: int, need_compaction_now: bool = False) -> None:
        self.topic_partition = topic_partition
        self.log = log
        self.first_dirty_offset = first_dirty_offset
        self.uncleanable_offset = uncleanable_offset
        self.need_compaction_now = need_compaction_now
        self.clean_bytes = sum(s.size() for s in log.log_segments(-1, first_dirty_offset))
        self.first_uncleanable_offset, self.cleanable_bytes = calculate_cleanable_bytes(log, first_dirty_offset,
                                                                                        uncleanable_offset)
        self.total_bytes = self.clean_bytes + self.cleanable_bytes
        self.cleanable_ratio = self.cleanable_bytes / self.total_bytes if self.total_bytes else float("nan")

    def compare(self, that: LogToClean) -> int:
        diff = self.cleanable_ratio - that.cleanable_ratio
        return (diff > 0) - (diff < 0)

    def __lt__(self, other: LogToClean) -> bool:
        return self.compare(other) < 0

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LogToClean):
            return NotImplemented
        return (self.topic_partition, self.log, self.first_dirty_offset, self.uncleanable_offset,
                self.need_compaction_now) == (other.topic_partition, other.log, other.first_dirty_offset,
                                              other.uncleanable_offset, other.need_compaction_now)

    def __hash__(self) -> int:
        return hash((self.topic_partition, self.first_dirty_offset, self.uncleanable_offset))

    def __repr__(self) -> str:
        return (f"LogToClean({self.topic_partition}, firstDirtyOffset={self.first_dirty_offset}, "
                f"firstUncleanableOffset={self.first_uncleanable_offset}, ratio={self.cleanable_ratio:.3f})")


class _AbortedTransactionMetadata:
    def __init__(self, aborted_txn: AbortedTxn) -> None:
        self.aborted_txn = aborted_txn
        self.last_observed_batch_offset: int | None = None

    def __repr__(self) -> str:
        return f"(txn: {self.aborted_txn}, lastOffset: {self.last_observed_batch_offset})"


class CleanedTransactionMetadata:
    """The transactions seen while the cleaner walks the log, across the segments of a whole round: the open
    aborted ones (from the aborted transactions added, taken in first-offset order) and the open committed ones.
    It decides when a marker may go, and writes the aborted transactions whose data stays into the cleaned
    segment's transaction index."""

    def __init__(self) -> None:
        self._ongoing_committed_txns: set[int] = set()
        self._ongoing_aborted_txns: dict[int, _AbortedTransactionMetadata] = {}
        # a min-heap of aborted transactions by first offset (the counter keeps equal offsets in order)
        self._aborted_transactions: list[tuple[int, int, AbortedTxn]] = []
        self._counter = 0
        # the cleaned segment's transaction index
        self.cleaned_index: TransactionIndex | None = None

    def add_aborted_transactions(self, aborted_transactions: Iterable[AbortedTxn]) -> None:
        for txn in aborted_transactions:
            heapq.heappush(self._aborted_transactions, (txn.first_offset(), self._counter, txn))
            self._counter += 1

    def on_control_batch_read(self, control_batch: RecordBatch) -> bool:
        """A marker: True when it may go (its transaction has no data left)."""
        self._consume_aborted_txns_up_to(control_batch.last_offset())
        control_record_iterator = iter(control_batch)
        control_record = next(control_record_iterator, None)
        if control_record is None:
            # an empty control batch was cleaned already
            return True
        control_type = ControlRecordType.parse(control_record.key())
        producer_id = control_batch.producer_id()
        if control_type == ControlRecordType.ABORT:
            aborted_txn_metadata = self._ongoing_aborted_txns.pop(producer_id, None)
            # the marker stays until every batch of its transaction is gone
            if aborted_txn_metadata is not None and aborted_txn_metadata.last_observed_batch_offset is not None:
                if self.cleaned_index is not None:
                    self.cleaned_index.append(aborted_txn_metadata.aborted_txn)
                return False
            return True
        if control_type == ControlRecordType.COMMIT:
            # may go if none of the transaction's batches were seen
            if producer_id in self._ongoing_committed_txns:
                self._ongoing_committed_txns.discard(producer_id)
                return False
            return True
        return False

    def _consume_aborted_txns_up_to(self, offset: int) -> None:
        while self._aborted_transactions and self._aborted_transactions[0][0] <= offset:
            aborted_txn = heapq.heappop(self._aborted_transactions)[2]
            self._ongoing_aborted_txns.setdefault(aborted_txn.producer_id(),
                                                  _AbortedTransactionMetadata(aborted_txn))

    def on_batch_read(self, batch: RecordBatch) -> bool:
        """A data batch: True when it belongs to an aborted transaction (it may go)."""
        self._consume_aborted_txns_up_to(batch.last_offset())
        if batch.is_transactional():
            aborted_transaction_metadata = self._ongoing_aborted_txns.get(batch.producer_id())
            if aborted_transaction_metadata is not None:
                aborted_transaction_metadata.last_observed_batch_offset = batch.last_offset()
                return True
            self._ongoing_committed_txns.add(batch.producer_id())
            return False
        return False


def _date(ms: int) -> str:
    return _time.strftime("%a %b %d %H:%M:%S UTC %Y", _time.gmtime(ms / 1000))
