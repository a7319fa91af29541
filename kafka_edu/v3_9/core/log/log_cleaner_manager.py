"""Port of core/src/main/scala/kafka/log/LogCleanerManager.scala (Kafka 3.9): the cleaning state of each partition
(in progress, aborted, paused n times), the uncleanable partitions of each log dir, the `cleaner-offset-checkpoint`
files, and the choice of the filthiest compacted log."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kafka_edu.tracing import event, step
from kafka_edu.v1_0_2.clients.common.errors import (
    IllegalStateException,
    KafkaException,
    KafkaStorageException,
    LogCleaningAbortedException,
)
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM, Time
from kafka_edu.v3_9.core.server.checkpoints.offset_checkpoint_file import OffsetCheckpointFile
from kafka_edu.v3_9.storage.storage.internals.log.log_dir_failure_channel import LogDirFailureChannel

if TYPE_CHECKING:
    from kafka_edu.v3_9.core.log.log_cleaner import LogToClean, PreCleanStats
    from kafka_edu.v3_9.core.log.unified_log import UnifiedLog

log = logging.getLogger("kafka.log.LogCleaner")

LONG_MAX = 2**63 - 1


class LogCleaningState:
    """The sealed trait: LogCleaningInProgress, LogCleaningAborted (objects) and LogCleaningPaused(count)."""

    value: str = ""


class _LogCleaningInProgress(LogCleaningState):
    value = "LogCleaningInProgress"

    def __repr__(self) -> str:
        return self.value


class _LogCleaningAborted(LogCleaningState):
    value = "LogCleaningAborted"

    def __repr__(self) -> str:
        return self.value


LogCleaningInProgress = _LogCleaningInProgress()
LogCleaningAborted = _LogCleaningAborted()


@dataclass(frozen=True)
class LogCleaningPaused(LogCleaningState):
    """Paused `paused_count` times: each abortAndPauseCleaning adds one, each resumeCleaning takes one off."""

    paused_count: int

    @property
    def value(self) -> str:  # type: ignore[override]
        return f"LogCleaningPaused({self.paused_count})"

    def __repr__(self) -> str:
        return self.value


class LogCleaningException(KafkaException):
    """A failure cleaning `log`: the thread marks its partition uncleanable and goes on."""

    def __init__(self, log: UnifiedLog, message: str, cause: BaseException | None) -> None:
        super().__init__(message)
        self.log = log
        self.__cause__ = cause


class LogCleanerManager:
    """Shared by the cleaner threads and whoever must stop a partition's cleaning (truncation, deletion, a log dir
    move): one lock guards the in-progress map, the uncleanable partitions and the checkpoint files."""

    offset_checkpoint_file = "cleaner-offset-checkpoint"

    def __init__(self, log_dirs: Iterable[Path], logs: MutableMapping[TopicPartition, UnifiedLog],
                 log_dir_failure_channel: LogDirFailureChannel | None) -> None:
        self.log_dirs = [Path(d) for d in log_dirs]
        self.logs = logs
        self.log_dir_failure_channel = log_dir_failure_channel
        # the last cleaned offset of each log, one file per log dir
        self._checkpoints: dict[Path, OffsetCheckpointFile] = {
            d: OffsetCheckpointFile(d / self.offset_checkpoint_file, log_dir_failure_channel) for d in self.log_dirs}
        # the partitions being cleaned, aborted or paused
        self._in_progress: dict[TopicPartition, LogCleaningState] = {}
        # per log dir, the partitions whose cleaning failed unexpectedly: skipped until they are deleted
        self._uncleanable_partitions: dict[str, set[TopicPartition]] = {}
        self._lock = threading.RLock()
        self._paused_cleaning_cond = threading.Condition(self._lock)
        # the max-dirty-percent and time-since-last-run-ms gauges' values (no metrics registry here)
        self.dirtiest_log_cleanable_ratio = 0.0
        self.time_of_last_run = SYSTEM.milliseconds()

    def all_cleaner_checkpoints(self) -> dict[TopicPartition, int]:
        """The position processed for every log, from each dir's checkpoint file."""
        with self._lock:
            result: dict[TopicPartition, int] = {}
            for checkpoint in self._checkpoints.values():
                try:
                    result.update(checkpoint.read())
                except KafkaStorageException as e:
                    log.error("Failed to access checkpoint file %s in dir %s", checkpoint.file.name,
                              checkpoint.file.parent.absolute(), exc_info=e)
            return result

    def cleaning_state(self, tp: TopicPartition) -> LogCleaningState | None:
        with self._lock:
            return self._in_progress.get(tp)

    def set_cleaning_state(self, tp: TopicPartition, state: LogCleaningState) -> None:
        with self._lock:
            self._in_progress[tp] = state

    @step("CL.grab")
    def grab_filthiest_compacted_log(self, time: Time,
                                     pre_clean_stats: PreCleanStats | None = None) -> LogToClean | None:
        """The compacted log with the highest dirty ratio past its threshold (or overdue by max.compaction.lag.ms),
        marked in progress; recomputed each time so logs added or removed since are seen."""
        from kafka_edu.v3_9.core.log.log_cleaner import LogToClean, PreCleanStats
        if pre_clean_stats is None:
            pre_clean_stats = PreCleanStats()
        with self._lock:
            now = time.milliseconds()
            self.time_of_last_run = now
            last_clean = self.all_cleaner_checkpoints()
            dirty_logs = []
            for topic_partition, lg in list(self.logs.items()):
                if not lg.config().compact:
                    continue
                if topic_partition in self._in_progress or self._is_uncleanable_partition(lg, topic_partition):
                    continue
                try:
                    last_clean_offset = last_clean.get(topic_partition)
                    offsets_to_clean = cleanable_offsets(lg, last_clean_offset, now)
                    # a checkpoint that no longer fits the log is rewritten
                    if offsets_to_clean.force_update_checkpoint:
                        self.update_checkpoints(lg.parent_dir_file(), partition_to_update_or_add=(
                            topic_partition, offsets_to_clean.first_dirty_offset))
                    compaction_delay_ms = max_compaction_delay(lg, offsets_to_clean.first_dirty_offset, now)
                    pre_clean_stats.update_max_compaction_delay(compaction_delay_ms)
                    ltc = LogToClean(topic_partition, lg, offsets_to_clean.first_dirty_offset,
                                     offsets_to_clean.first_uncleanable_dirty_offset, compaction_delay_ms > 0)
                except Exception as e:
                    raise LogCleaningException(
                        lg, f"Failed to calculate log cleaning stats for partition {topic_partition}", e) from e
                if ltc.total_bytes > 0:  # skip empty logs
                    dirty_logs.append(ltc)

            self.dirtiest_log_cleanable_ratio = max(dirty_logs).cleanable_ratio if dirty_logs else 0.0
            # past the dirty ratio threshold, or with bytes that must be compacted by now
            cleanable_logs = [ltc for ltc in dirty_logs
                              if (ltc.need_compaction_now and ltc.cleanable_bytes > 0)
                              or ltc.cleanable_ratio > ltc.log.config().min_cleanable_ratio]
            if not cleanable_logs:
                return None
            pre_clean_stats.record_cleanable_partitions(len(cleanable_logs))
            filthiest = max(cleanable_logs)
            self._in_progress[filthiest.topic_partition] = LogCleaningInProgress
            return filthiest

    def pause_cleaning_for_non_compacted_partitions(self) -> list[tuple[TopicPartition, UnifiedLog]]:
        """Pause the non-compacted logs nobody is cleaning (a topic switched from compact to delete races the
        retention thread otherwise)."""
        with self._lock:
            deletable_logs = [(tp, lg) for tp, lg in list(self.logs.items())
                              if not lg.config().compact and tp not in self._in_progress]
            for topic_partition, _ in deletable_logs:
                self._in_progress[topic_partition] = LogCleaningPaused(1)
            return deletable_logs

    def deletable_logs(self) -> list[tuple[TopicPartition, UnifiedLog]]:
        """Every compacted log nobody is cleaning (and not uncleanable), marked in progress: its segments before
        the log start offset may go even without the delete policy."""
        with self._lock:
            to_clean = [(tp, lg) for tp, lg in list(self.logs.items())
                        if tp not in self._in_progress and lg.config().compact
                        and not self._is_uncleanable_partition(lg, tp)]
            for tp, _ in to_clean:
                self._in_progress[tp] = LogCleaningInProgress
            return to_clean

    def abort_cleaning(self, topic_partition: TopicPartition) -> None:
        """Abort the partition's cleaning, wait for it to stop, and leave it cleanable (abort-and-pause, resume)."""
        with self._lock:
            self.abort_and_pause_cleaning(topic_partition)
            self.resume_cleaning([topic_partition])

    @step("CL.abort")
    def abort_and_pause_cleaning(self, topic_partition: TopicPartition) -> None:
        """Pause the partition's cleaning; a clean in progress is marked aborted and waited for (its thread sees it
        in checkDone, and doneCleaning makes it paused). A paused partition is paused once more."""
        with self._lock:
            state = self._in_progress.get(topic_partition)
            if state is None:
                self._in_progress[topic_partition] = LogCleaningPaused(1)
            elif state is LogCleaningInProgress:
                self._in_progress[topic_partition] = LogCleaningAborted
            elif isinstance(state, LogCleaningPaused):
                self._in_progress[topic_partition] = LogCleaningPaused(state.paused_count + 1)
            else:
                raise IllegalStateException(f"Compaction for partition {topic_partition} cannot be aborted and "
                                            f"paused since it is in {state.value} state.")
            while not self._is_cleaning_in_state_paused(topic_partition):
                self._paused_cleaning_cond.wait(0.1)

    def resume_cleaning(self, topic_partitions: Iterable[TopicPartition]) -> None:
        """Undo one pause of each partition."""
        with self._lock:
            for topic_partition in topic_partitions:
                state = self._in_progress.get(topic_partition)
                if state is None:
                    raise IllegalStateException(f"Compaction for partition {topic_partition} cannot be resumed "
                                                "since it is not paused.")
                if isinstance(state, LogCleaningPaused) and state.paused_count == 1:
                    del self._in_progress[topic_partition]
                elif isinstance(state, LogCleaningPaused) and state.paused_count > 1:
                    self._in_progress[topic_partition] = LogCleaningPaused(state.paused_count - 1)
                else:
                    raise IllegalStateException(f"Compaction for partition {topic_partition} cannot be resumed "
                                                f"since it is in {state.value} state.")

    def _is_cleaning_in_state(self, topic_partition: TopicPartition, expected_state: LogCleaningState) -> bool:
        state = self._in_progress.get(topic_partition)
        return state is not None and state == expected_state

    def _is_cleaning_in_state_paused(self, topic_partition: TopicPartition) -> bool:
        return isinstance(self._in_progress.get(topic_partition), LogCleaningPaused)

    def check_cleaning_aborted(self, topic_partition: TopicPartition) -> None:
        with self._lock:
            if self._is_cleaning_in_state(topic_partition, LogCleaningAborted):
                raise LogCleaningAbortedException()

    def update_checkpoints(self, data_dir: Path, partition_to_update_or_add: tuple[TopicPartition, int] | None = None,
                           partition_to_remove: TopicPartition | None = None) -> None:
        """Rewrite the dir's checkpoint: the entries of logs that still exist, less one, plus one."""
        with self._lock:
            checkpoint = self._checkpoints[Path(data_dir)]
            if checkpoint is not None:
                try:
                    current_checkpoint = {tp: offset for tp, offset in checkpoint.read().items() if tp in self.logs}
                    updated_checkpoint = dict(current_checkpoint)
                    if partition_to_remove is not None:
                        updated_checkpoint.pop(partition_to_remove, None)
                    if partition_to_update_or_add is not None:
                        tp, offset = partition_to_update_or_add
                        updated_checkpoint[tp] = offset
                    checkpoint.write(updated_checkpoint)
                except KafkaStorageException as e:
                    log.error("Failed to access checkpoint file %s in dir %s", checkpoint.file.name,
                              checkpoint.file.parent.absolute(), exc_info=e)

    def alter_checkpoint_dir(self, topic_partition: TopicPartition, source_log_dir: Path, dest_log_dir: Path) -> None:
        """A partition moved dirs: its checkpoint entry (and uncleanable mark) moves with it."""
        with self._lock:
            try:
                source = self._checkpoints.get(Path(source_log_dir))
                offset = source.read().get(topic_partition) if source is not None else None
                if offset is not None:
                    log.debug("Removing the partition offset data in checkpoint file for '%s' from %s directory.",
                              topic_partition, Path(source_log_dir).absolute())
                    self.update_checkpoints(source_log_dir, partition_to_remove=topic_partition)
                    log.debug("Adding the partition offset data in checkpoint file for '%s' to %s directory.",
                              topic_partition, Path(dest_log_dir).absolute())
                    self.update_checkpoints(dest_log_dir, partition_to_update_or_add=(topic_partition, offset))
            except KafkaStorageException as e:
                log.error("Failed to access checkpoint file in dir %s", Path(source_log_dir).absolute(), exc_info=e)

            log_uncleanable_partitions = self._uncleanable_partitions.get(str(source_log_dir), set())
            if topic_partition in log_uncleanable_partitions:
                log_uncleanable_partitions.discard(topic_partition)
                self.mark_partition_uncleanable(str(dest_log_dir), topic_partition)

    def handle_log_dir_failure(self, dir: str) -> None:
        """Stop cleaning the logs of the failed dir."""
        log.warning("Stopping cleaning logs in dir %s", dir)
        with self._lock:
            self._checkpoints = {k: v for k, v in self._checkpoints.items() if str(k.absolute()) != dir}

    def maybe_truncate_checkpoint(self, data_dir: Path, topic_partition: TopicPartition, offset: int) -> None:
        """A truncated compacted log's checkpoint may not stay above `offset`."""
        with self._lock:
            if self.logs[topic_partition].config().compact:
                checkpoint = self._checkpoints[Path(data_dir)]
                if checkpoint is not None:
                    existing = checkpoint.read()
                    if existing.get(topic_partition, 0) > offset:
                        checkpoint.write({**existing, topic_partition: offset})

    @step("CL.done")
    def done_cleaning(self, topic_partition: TopicPartition, data_dir: Path, end_offset: int) -> None:
        """Checkpoint `end_offset` and forget the partition; an aborted clean becomes paused, its waiters woken."""
        with self._lock:
            state = self._in_progress.get(topic_partition)
            if state is LogCleaningInProgress:
                self.update_checkpoints(data_dir, partition_to_update_or_add=(topic_partition, end_offset))
                del self._in_progress[topic_partition]
            elif state is LogCleaningAborted:
                self._in_progress[topic_partition] = LogCleaningPaused(1)
                self._paused_cleaning_cond.notify_all()
            elif state is None:
                raise IllegalStateException(f"State for partition {topic_partition} should exist.")
            else:
                raise IllegalStateException(f"In-progress partition {topic_partition} cannot be in {state.value} "
                                            "state.")

    def done_deleting(self, topic_partitions: Iterable[TopicPartition]) -> None:
        with self._lock:
            for topic_partition in topic_partitions:
                state = self._in_progress.get(topic_partition)
                if state is LogCleaningInProgress:
                    del self._in_progress[topic_partition]
                elif state is LogCleaningAborted:
                    self._in_progress[topic_partition] = LogCleaningPaused(1)
                    self._paused_cleaning_cond.notify_all()
                elif state is None:
                    raise IllegalStateException(f"State for partition {topic_partition} should exist.")
                else:
                    raise IllegalStateException(f"In-progress partition {topic_partition} cannot be in "
                                                f"{state.value} state.")

    def uncleanable_partitions(self, log_dir: str) -> set[TopicPartition]:
        """A copy of the dir's uncleanable partitions (for tests)."""
        with self._lock:
            return set(self._uncleanable_partitions.get(log_dir, set()))

    def mark_partition_uncleanable(self, log_dir: str, partition: TopicPartition) -> None:
        with self._lock:
            self._uncleanable_partitions.setdefault(log_dir, set()).add(partition)
        event("partition.uncleanable", self, log_dir=log_dir, topic_partition=partition)

    def _is_uncleanable_partition(self, lg: UnifiedLog, topic_partition: TopicPartition) -> bool:
        with self._lock:
            partitions = self._uncleanable_partitions.get(lg.parent_dir())
            return partitions is not None and topic_partition in partitions

    def maintain_uncleanable_partitions(self) -> None:
        """Forget uncleanable partitions that were deleted, and dirs left with none."""
        with self._lock:
            for partitions in self._uncleanable_partitions.values():
                for tp in [p for p in partitions if p not in self.logs]:
                    partitions.discard(tp)
            for log_dir in [d for d, partitions in self._uncleanable_partitions.items() if not partitions]:
                del self._uncleanable_partitions[log_dir]

    def remove_metrics(self) -> None:
        """No metrics registry: nothing to remove."""


@dataclass(frozen=True)
class OffsetsToClean:
    """The cleanable range [first_dirty_offset, first_uncleanable_dirty_offset), and whether the checkpoint must be
    reset to first_dirty_offset."""

    first_dirty_offset: int
    first_uncleanable_dirty_offset: int
    force_update_checkpoint: bool = False


# -- object LogCleanerManager ------------------------------------------------------------------------------------------

def is_compact_and_delete(lg: UnifiedLog) -> bool:
    return lg.config().compact and lg.config().delete


def max_compaction_delay(lg: UnifiedLog, first_dirty_offset: int, now: int) -> int:
    """How far past max.compaction.lag.ms the oldest dirty non-active segment's first batch is (0 if not past)."""
    dirty_non_active_segments = lg.non_active_log_segments_from(first_dirty_offset)
    first_batch_timestamps = [t for t in lg.get_first_batch_timestamp_for_segments(dirty_non_active_segments) if t > 0]
    earliest_dirty_segment_timestamp = min(first_batch_timestamps, default=LONG_MAX)
    max_compaction_lag_ms = max(lg.config().max_compaction_lag_ms, 0)
    clean_until_time = now - max_compaction_lag_ms
    if earliest_dirty_segment_timestamp < clean_until_time:
        return clean_until_time - earliest_dirty_segment_timestamp
    return 0


def cleanable_offsets(lg: UnifiedLog, last_clean_offset: int | None, now: int) -> OffsetsToClean:
    """From the checkpoint (reset to the log start when it is below it or past the end) to the first of: the last
    stable offset, the active segment, the first segment newer than min.compaction.lag.ms."""
    log_start_offset = lg.log_start_offset
    checkpoint_dirty_offset = last_clean_offset if last_clean_offset is not None else log_start_offset
    if checkpoint_dirty_offset < log_start_offset:
        if not is_compact_and_delete(lg):
            log.warning("Resetting first dirty offset of %s to log start offset %d since the checkpointed offset %d "
                        "is invalid.", lg.name(), log_start_offset, checkpoint_dirty_offset)
        first_dirty_offset, force_update_checkpoint = log_start_offset, True
    elif checkpoint_dirty_offset > lg.log_end_offset():
        # corruption at the log's end: clean it all again
        log.warning("The last checkpoint dirty offset for partition %s is %d, which is larger than the log end offset "
                    "%d. Resetting to the log start offset %d.", lg.name(), checkpoint_dirty_offset,
                    lg.log_end_offset(), log_start_offset)
        first_dirty_offset, force_update_checkpoint = log_start_offset, True
    else:
        first_dirty_offset, force_update_checkpoint = checkpoint_dirty_offset, False

    min_compaction_lag_ms = max(lg.config().compaction_lag_ms, 0)
    candidates = [lg.last_stable_offset(), lg.active_segment().base_offset()]
    if min_compaction_lag_ms > 0:
        for s in lg.non_active_log_segments_from(first_dirty_offset):
            is_uncleanable = s.largest_timestamp() > now - min_compaction_lag_ms
            log.debug("Checking if log segment may be cleaned: log='%s' segment.baseOffset=%d "
                      "segment.largestTimestamp=%d; now - compactionLag=%d; is uncleanable=%s", lg.name(),
                      s.base_offset(), s.largest_timestamp(), now - min_compaction_lag_ms, is_uncleanable)
            if is_uncleanable:
                candidates.append(s.base_offset())
                break
    first_uncleanable_dirty_offset = min(candidates)
    log.debug("Finding range of cleanable offsets for log=%s. Last clean offset=%s now=%d => firstDirtyOffset=%d "
              "firstUncleanableOffset=%d activeSegment.baseOffset=%d", lg.name(), last_clean_offset, now,
              first_dirty_offset, first_uncleanable_dirty_offset, lg.active_segment().base_offset())
    return OffsetsToClean(first_dirty_offset, max(first_dirty_offset, first_uncleanable_dirty_offset),
                          force_update_checkpoint)


def calculate_cleanable_bytes(lg: UnifiedLog, first_dirty_offset: int, uncleanable_offset: int) -> tuple[int, int]:
    """(the base offset of the segment holding `uncleanable_offset`, the bytes from the first dirty to it)."""
    non_active = lg.non_active_log_segments_from(uncleanable_offset)
    first_uncleanable_segment = non_active[0] if non_active else lg.active_segment()
    first_uncleanable_offset = first_uncleanable_segment.base_offset()
    cleanable_bytes = sum(s.size() for s in lg.log_segments(min(first_dirty_offset, first_uncleanable_offset),
                                                             first_uncleanable_offset))
    return first_uncleanable_offset, cleanable_bytes


