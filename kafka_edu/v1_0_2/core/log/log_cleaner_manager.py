"""Port of core/src/main/scala/kafka/log/LogCleanerManager.scala (Kafka 1.0.2): which compacted log the cleaner takes
next, the cleaning state of each log (in progress, aborted, paused), and the `cleaner-offset-checkpoint` of each log
directory. LogToClean (of LogCleaner.scala) is here too, as the manager builds it; log_cleaner.py re-exports it."""

from __future__ import annotations

import enum
import logging
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import (
    IllegalStateException,
    KafkaStorageException,
    LogCleaningAbortedException,
)
from kafka_edu.v1_0_2.core.server.checkpoints.offset_checkpoint_file import OffsetCheckpointFile

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.log.log import Log
    from kafka_edu.v1_0_2.core.server.log_dir_failure_channel import LogDirFailureChannel

log = logging.getLogger("kafka.log.LogCleaner")

TopicPartition = tuple[str, int]


class LogCleaningState(enum.Enum):
    """LogCleaningInProgress, LogCleaningAborted, LogCleaningPaused."""

    LogCleaningInProgress = "LogCleaningInProgress"
    LogCleaningAborted = "LogCleaningAborted"
    LogCleaningPaused = "LogCleaningPaused"


LogCleaningInProgress = LogCleaningState.LogCleaningInProgress
LogCleaningAborted = LogCleaningState.LogCleaningAborted
LogCleaningPaused = LogCleaningState.LogCleaningPaused


class LogToClean:
    """A log with the range the cleaner may clean: [first_dirty_offset, first_uncleanable_offset), and how dirty it
    is (the cleanable bytes over all bytes up to the first uncleanable segment). Ordered by that ratio."""

    def __init__(self, topic_partition: TopicPartition, log: Log, first_dirty_offset: int,
                 uncleanable_offset: int) -> None:
        self.topic_partition = topic_partition
        self.log = log
        self.first_dirty_offset = first_dirty_offset
        self.clean_bytes = sum(s.size for s in log.log_segments(-1, first_dirty_offset))
        active = log.active_segment
        uncleanable = log.log_segments(uncleanable_offset, active.base_offset)
        first_uncleanable_segment = uncleanable[0] if uncleanable else active
        self.first_uncleanable_offset = first_uncleanable_segment.base_offset
        self.cleanable_bytes = sum(s.size for s in log.log_segments(
            first_dirty_offset, max(first_dirty_offset, self.first_uncleanable_offset)))
        self.total_bytes = self.clean_bytes + self.cleanable_bytes
        self.cleanable_ratio = self.cleanable_bytes / self.total_bytes if self.total_bytes else float("nan")

    def __lt__(self, other: LogToClean) -> bool:
        return self.cleanable_ratio < other.cleanable_ratio

    def __repr__(self) -> str:
        return (f"LogToClean({self.topic_partition}, firstDirtyOffset={self.first_dirty_offset}, "
                f"firstUncleanableOffset={self.first_uncleanable_offset}, ratio={self.cleanable_ratio:.3f})")


class LogCleanerManager:
    """Shared by the cleaner threads and by whoever must stop a log's cleaning (truncation, deletion): one lock
    guards the in-progress map and the checkpoint files."""

    offset_checkpoint_file = "cleaner-offset-checkpoint"

    def __init__(self, log_dirs: Iterable[Path], logs: dict[TopicPartition, Log],
                 log_dir_failure_channel: LogDirFailureChannel | None) -> None:
        self.log_dirs = [Path(d) for d in log_dirs]
        self.logs = logs
        self.log_dir_failure_channel = log_dir_failure_channel
        self.checkpoints: dict[Path, OffsetCheckpointFile] = {
            d: OffsetCheckpointFile(d / self.offset_checkpoint_file, log_dir_failure_channel) for d in self.log_dirs}
        self.in_progress: dict[TopicPartition, LogCleaningState] = {}
        self._lock = threading.RLock()
        self._paused_cleaning_cond = threading.Condition(self._lock)
        # the max-dirty-percent and time-since-last-run-ms gauges' values (no JMX here)
        self.dirtiest_log_cleanable_ratio = 0.0
        self.time_of_last_run = 0

    def all_cleaner_checkpoints(self) -> dict[TopicPartition, int]:
        """Every log's last cleaned offset, read from the checkpoint file of each log directory."""
        with self._lock:
            result: dict[TopicPartition, int] = {}
            for checkpoint in self.checkpoints.values():
                try:
                    result.update(checkpoint.read())
                except KafkaStorageException as e:
                    log.error("Failed to access checkpoint file %s in dir %s: %s", checkpoint.file.name,
                              checkpoint.file.parent.absolute(), e)
            return result

    def cleaning_state(self, tp: TopicPartition) -> LogCleaningState | None:
        with self._lock:
            return self.in_progress.get(tp)

    def set_cleaning_state(self, tp: TopicPartition, state: LogCleaningState) -> None:
        with self._lock:
            self.in_progress[tp] = state

    @step("CL.grab")
    def grab_filthiest_compacted_log(self, time: object) -> LogToClean | None:
        """The compacted log with the highest dirty ratio above its min.cleanable.dirty.ratio, now in progress."""
        with self._lock:
            now = time.milliseconds()  # type: ignore[attr-defined]
            self.time_of_last_run = now
            last_clean = self.all_cleaner_checkpoints()
            dirty_logs = []
            for topic_partition, lg in list(self.logs.items()):
                if not lg.config.compact or topic_partition in self.in_progress:
                    continue
                first_dirty_offset, first_uncleanable_dirty_offset = cleanable_offsets(lg, topic_partition,
                                                                                       last_clean, now)
                ltc = LogToClean(topic_partition, lg, first_dirty_offset, first_uncleanable_dirty_offset)
                if ltc.total_bytes > 0:  # skip empty logs
                    dirty_logs.append(ltc)
            self.dirtiest_log_cleanable_ratio = max(dirty_logs).cleanable_ratio if dirty_logs else 0.0
            cleanable_logs = [ltc for ltc in dirty_logs if ltc.cleanable_ratio > ltc.log.config.min_cleanable_ratio]
            if not cleanable_logs:
                return None
            filthiest = max(cleanable_logs)
            self.in_progress[filthiest.topic_partition] = LogCleaningInProgress
            return filthiest

    def deletable_logs(self) -> list[tuple[TopicPartition, Log]]:
        """Logs with both compact and delete policies that nobody is cleaning, marked in progress."""
        with self._lock:
            to_clean = [(tp, lg) for tp, lg in list(self.logs.items())
                        if tp not in self.in_progress and is_compact_and_delete(lg)]
            for tp, _ in to_clean:
                self.in_progress[tp] = LogCleaningInProgress
            return to_clean

    def abort_cleaning(self, topic_partition: TopicPartition) -> None:
        """Abort the log's cleaning, wait for it to stop, and leave the log cleanable again (it is being deleted)."""
        with self._lock:
            self.abort_and_pause_cleaning(topic_partition)
            self.resume_cleaning(topic_partition)
        log.info("The cleaning for partition %s is aborted", _tp(topic_partition))

    @step("CL.abort")
    def abort_and_pause_cleaning(self, topic_partition: TopicPartition) -> None:
        """Stop the log's cleaning and keep it from being cleaned until resume_cleaning; a clean in progress is
        told to abort and waited for (its thread's done_cleaning makes the state Paused)."""
        with self._lock:
            state = self.in_progress.get(topic_partition)
            if state is None:
                self.in_progress[topic_partition] = LogCleaningPaused
            elif state is LogCleaningInProgress:
                self.in_progress[topic_partition] = LogCleaningAborted
            else:
                raise IllegalStateException(f"Compaction for partition {_tp(topic_partition)} cannot be aborted and "
                                            f"paused since it is in {state.value} state.")
            while not self._is_cleaning_in_state(topic_partition, LogCleaningPaused):
                self._paused_cleaning_cond.wait(0.1)
        log.info("The cleaning for partition %s is aborted and paused", _tp(topic_partition))

    def resume_cleaning(self, topic_partition: TopicPartition) -> None:
        with self._lock:
            state = self.in_progress.get(topic_partition)
            if state is None:
                raise IllegalStateException(f"Compaction for partition {_tp(topic_partition)} cannot be resumed since "
                                            "it is not paused.")
            if state is not LogCleaningPaused:
                raise IllegalStateException(f"Compaction for partition {_tp(topic_partition)} cannot be resumed since "
                                            f"it is in {state.value} state.")
            del self.in_progress[topic_partition]
        log.info("Compaction for partition %s is resumed", _tp(topic_partition))

    def _is_cleaning_in_state(self, topic_partition: TopicPartition, expected_state: LogCleaningState) -> bool:
        return self.in_progress.get(topic_partition) is expected_state

    def check_cleaning_aborted(self, topic_partition: TopicPartition) -> None:
        with self._lock:
            if self._is_cleaning_in_state(topic_partition, LogCleaningAborted):
                raise LogCleaningAbortedException()

    def update_checkpoints(self, data_dir: Path, update: tuple[TopicPartition, int] | None) -> None:
        """Rewrite the directory's checkpoint: entries of logs that still exist, plus `update`."""
        with self._lock:
            checkpoint = self.checkpoints.get(Path(data_dir))
            if checkpoint is not None:
                try:
                    existing = {tp: offset for tp, offset in checkpoint.read().items() if tp in self.logs}
                    if update is not None:
                        existing[update[0]] = update[1]
                    checkpoint.write(existing)
                except KafkaStorageException as e:
                    log.error("Failed to access checkpoint file %s in dir %s: %s", checkpoint.file.name,
                              checkpoint.file.parent.absolute(), e)

    def handle_log_dir_failure(self, dir: str) -> None:
        log.info("Stopping cleaning logs in dir %s", dir)
        with self._lock:
            self.checkpoints = {d: c for d, c in self.checkpoints.items() if str(d.absolute()) != dir}

    def maybe_truncate_checkpoint(self, data_dir: Path, topic_partition: TopicPartition, offset: int) -> None:
        """A truncated compacted log: its checkpoint may not stay above the new end."""
        with self._lock:
            if self.logs[topic_partition].config.compact:
                checkpoint = self.checkpoints.get(Path(data_dir))
                if checkpoint is not None:
                    existing = checkpoint.read()
                    if existing.get(topic_partition, 0) > offset:
                        checkpoint.write({**existing, topic_partition: offset})

    @step("CL.done")
    def done_cleaning(self, topic_partition: TopicPartition, data_dir: Path, end_offset: int) -> None:
        """The clean ended (or failed): checkpoint `end_offset` and forget the log, or, aborted, pause it."""
        with self._lock:
            state = self.in_progress.get(topic_partition)
            if state is LogCleaningInProgress:
                self.update_checkpoints(data_dir, (topic_partition, end_offset))
                del self.in_progress[topic_partition]
            elif state is LogCleaningAborted:
                self.in_progress[topic_partition] = LogCleaningPaused
                self._paused_cleaning_cond.notify_all()
            else:
                raise IllegalStateException(f"In-progress partition {_tp(topic_partition)} cannot be in "
                                            f"{state.value if state else None} state.")

    # -- object LogCleanerManager (the companion object's functions) --

    @staticmethod
    def is_compact_and_delete(lg: Log) -> bool:
        return is_compact_and_delete(lg)

    @staticmethod
    def cleanable_offsets(lg: Log, topic_partition: TopicPartition, last_clean: dict[TopicPartition, int],
                          now: int) -> tuple[int, int]:
        return cleanable_offsets(lg, topic_partition, last_clean, now)

    def done_deleting(self, topic_partition: TopicPartition) -> None:
        with self._lock:
            state = self.in_progress.get(topic_partition)
            if state is LogCleaningInProgress:
                del self.in_progress[topic_partition]
            elif state is LogCleaningAborted:
                self.in_progress[topic_partition] = LogCleaningPaused
                self._paused_cleaning_cond.notify_all()
            else:
                raise IllegalStateException(f"In-progress partition {_tp(topic_partition)} cannot be in "
                                            f"{state.value if state else None} state.")


# -- object LogCleanerManager ------------------------------------------------------------------------------------------

def is_compact_and_delete(lg: Log) -> bool:
    return lg.config.compact and lg.config.delete


def cleanable_offsets(lg: Log, topic_partition: TopicPartition, last_clean: dict[TopicPartition, int],
                      now: int) -> tuple[int, int]:
    """(first dirty offset, first uncleanable offset): from the checkpoint (or the log start) to the first of the
    first unstable offset, the active segment, and the first segment younger than min.compaction.lag.ms."""
    last_clean_offset = last_clean.get(topic_partition)
    log_start_offset = lg.log_segments()[0].base_offset
    offset = last_clean_offset if last_clean_offset is not None else log_start_offset
    if offset < log_start_offset:
        if not is_compact_and_delete(lg):
            log.warning("Resetting first dirty offset of %s to log start offset %d since the checkpointed offset %d "
                        "is invalid.", lg.name, log_start_offset, offset)
        first_dirty_offset = log_start_offset
    else:
        first_dirty_offset = offset

    active_base_offset = lg.active_segment.base_offset
    dirty_non_active_segments = lg.log_segments(first_dirty_offset, active_base_offset)
    compaction_lag_ms = max(lg.config.compaction_lag_ms, 0)
    candidates = [active_base_offset]
    if lg.first_unstable_offset is not None:
        candidates.append(lg.first_unstable_offset.message_offset)
    if compaction_lag_ms > 0:
        for s in dirty_non_active_segments:
            is_uncleanable = s.largest_timestamp > now - compaction_lag_ms
            log.debug("Checking if log segment may be cleaned: log='%s' segment.baseOffset=%d "
                      "segment.largestTimestamp=%d; now - compactionLag=%d; is uncleanable=%s", lg.name,
                      s.base_offset, s.largest_timestamp, now - compaction_lag_ms, is_uncleanable)
            if is_uncleanable:
                candidates.append(s.base_offset)
                break
    first_uncleanable_dirty_offset = min(candidates)
    log.debug("Finding range of cleanable offsets for log=%s topicPartition=%s. Last clean offset=%s now=%d => "
              "firstDirtyOffset=%d firstUncleanableOffset=%d activeSegment.baseOffset=%d", lg.name,
              _tp(topic_partition), last_clean_offset, now, first_dirty_offset, first_uncleanable_dirty_offset,
              active_base_offset)
    return first_dirty_offset, first_uncleanable_dirty_offset


def _tp(topic_partition: TopicPartition) -> str:
    topic, partition = topic_partition
    return f"{topic}-{partition}"
