"""Port of core/src/main/scala/kafka/log/LogManager.scala (Kafka 1.0.2)."""

from __future__ import annotations

import fcntl
import logging
import os
import shutil
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from kafka_edu.v1_0_2.clients.common.errors import KafkaException, KafkaStorageException, LogDirNotFoundException
from kafka_edu.v1_0_2.clients.common.utils.time import SYSTEM, Time
from kafka_edu.v1_0_2.core.log.log import Log
from kafka_edu.v1_0_2.core.log.log_cleaner import CleanerConfig, LogCleaner
from kafka_edu.v1_0_2.core.log.log_config import LogConfig
from kafka_edu.v1_0_2.core.log.log_segment import system_time_ms
from kafka_edu.v1_0_2.core.server.broker_states import BrokerState, BrokerStates
from kafka_edu.v1_0_2.core.server.checkpoints.offset_checkpoint_file import OffsetCheckpointFile
from kafka_edu.v1_0_2.core.server.log_dir_failure_channel import LogDirFailureChannel
from kafka_edu.v1_0_2.core.utils.kafka_scheduler import KafkaScheduler

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig

log = logging.getLogger("kafka.log.LogManager")

RECOVERY_POINT_CHECKPOINT_FILE = "recovery-point-offset-checkpoint"
LOG_START_OFFSET_CHECKPOINT_FILE = "log-start-offset-checkpoint"
LOCK_FILE = ".lock"
INITIAL_TASK_DELAY_MS = 30 * 1000
PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS = 10 * 60 * 1000
DEFAULT_MAX_PID_EXPIRATION_MS = 7 * 24 * 60 * 60 * 1000  # transactional.id.expiration.ms's default
METADATA_PARTITION_DIR = "__cluster_metadata-0"  # the KRaft metadata log (3.9: a topic-partition the LogManager skips)


def cleaner_config_of(config: KafkaConfig) -> CleanerConfig:
    """LogManager.apply's CleanerConfig: the broker's `log.cleaner.*` settings (max message size: message.max.bytes)."""
    return CleanerConfig(num_threads=config.log_cleaner_threads,
                         dedupe_buffer_size=config.log_cleaner_dedupe_buffer_size,
                         dedupe_buffer_load_factor=config.log_cleaner_dedupe_buffer_load_factor,
                         io_buffer_size=config.log_cleaner_io_buffer_size,
                         max_message_size=config.message_max_bytes,
                         max_io_bytes_per_second=config.log_cleaner_io_max_bytes_per_second,
                         back_off_ms=config.log_cleaner_backoff_ms,
                         enable_cleaner=config.log_cleaner_enable)


class FileLock:
    """kafka.utils.FileLock: an exclusive OS lock on `<dir>/.lock`, held for the broker's life."""

    def __init__(self, file: Path) -> None:
        self.file = file
        self._fd = os.open(file, os.O_RDWR | os.O_CREAT, 0o644)

    def try_lock(self) -> bool:
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False

    def destroy(self) -> None:
        if self._fd >= 0:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = -1


class LogManager:
    """Owns every partition log on this broker: loads (and recovers) them at startup, flushes, retains, closes."""

    def __init__(self, log_dirs: Sequence[Path], initial_offline_dirs: Sequence[Path],
                 topic_configs: dict[str, LogConfig], default_config: LogConfig, io_threads: int,
                 flush_check_ms: int, flush_recovery_offset_checkpoint_ms: int, flush_start_offset_checkpoint_ms: int,
                 retention_check_ms: int, scheduler: KafkaScheduler, broker_state: BrokerState,
                 log_dir_failure_channel: LogDirFailureChannel,
                 max_pid_expiration_ms: int = DEFAULT_MAX_PID_EXPIRATION_MS,
                 time_ms: Callable[[], int] = system_time_ms, cleaner_config: CleanerConfig | None = None,
                 time: Time | None = None) -> None:
        """`cleaner_config` None builds no cleaner, as CleanerConfig(enableCleaner = false); `time` is the
        cleaner's clock (Kafka's Time; `time_ms` stays the logs' and tasks' clock)."""
        self.log_dirs = [Path(d).absolute() for d in log_dirs]
        self.topic_configs = topic_configs
        self.default_config = default_config
        self.io_threads = io_threads
        self.flush_check_ms = flush_check_ms
        self.flush_recovery_offset_checkpoint_ms = flush_recovery_offset_checkpoint_ms
        self.flush_start_offset_checkpoint_ms = flush_start_offset_checkpoint_ms
        self.retention_check_ms = retention_check_ms
        self.scheduler = scheduler
        self.broker_state = broker_state
        self.log_dir_failure_channel = log_dir_failure_channel
        self.max_pid_expiration_ms = max_pid_expiration_ms
        # Kafka's `time`: the clock of the flusher's intervals, handed to every Log (a MockTime's in tests)
        self.time_ms = time_ms
        self.logs: dict[tuple[str, int], Log] = {}
        # AlterReplicaLogDirs for a replica not created yet: the directory its log is to be created in
        self.preferred_log_dirs: dict[tuple[str, int], Path] = {}
        self._log_creation_or_deletion_lock = threading.RLock()
        self._live_log_dirs = self.create_and_validate_log_dirs(self.log_dirs, [Path(d).absolute()
                                                                                for d in initial_offline_dirs])
        self.dir_locks = self.lock_log_dirs(self.live_log_dirs)
        self.recovery_point_checkpoints = {
            d: OffsetCheckpointFile(d / RECOVERY_POINT_CHECKPOINT_FILE, log_dir_failure_channel)
            for d in self.live_log_dirs}
        self.log_start_offset_checkpoints = {
            d: OffsetCheckpointFile(d / LOG_START_OFFSET_CHECKPOINT_FILE, log_dir_failure_channel)
            for d in self.live_log_dirs}
        self.load_logs()

        self.cleaner_config = cleaner_config if cleaner_config is not None else CleanerConfig(enable_cleaner=False)
        self.cleaner: LogCleaner | None = (
            LogCleaner(self.cleaner_config, self.live_log_dirs, self.logs, log_dir_failure_channel,
                       time=time if time is not None else SYSTEM)
            if self.cleaner_config.enable_cleaner else None)

    @property
    def live_log_dirs(self) -> list[Path]:
        return list(self._live_log_dirs)

    def is_log_dir_online(self, log_dir: str | Path) -> bool:
        """Whether a directory of `log.dirs` is usable; one that is not in `log.dirs` is LOG_DIR_NOT_FOUND."""
        path = Path(log_dir).absolute()
        if path not in self.log_dirs:
            raise LogDirNotFoundException(f"Log dir {log_dir} is not found in the config.")
        return path in self._live_log_dirs

    def create_and_validate_log_dirs(self, dirs: list[Path], initial_offline_dirs: list[Path]) -> list[Path]:
        if len({d.resolve() for d in dirs}) < len(dirs):
            raise KafkaException("Duplicate log directory found: " + ", ".join(map(str, dirs)))
        live_log_dirs = []
        for d in dirs:
            if d in initial_offline_dirs:
                continue
            try:
                if not d.exists():
                    log.info("Log directory '%s' not found, creating it.", d)
                    d.mkdir(parents=True)
                if not d.is_dir() or not os.access(d, os.R_OK):
                    raise OSError(f"{d} is not a readable log directory.")
                live_log_dirs.append(d)
            except OSError as e:
                log.error("Failed to create or validate data directory %s: %s", d, e)
        if not live_log_dirs:
            # Kafka halts the JVM here; the broker cannot serve without a single usable directory.
            raise KafkaException("Shutdown broker because none of the specified log dirs from "
                                 + ", ".join(map(str, dirs)) + " can be created or validated")
        return live_log_dirs

    def lock_log_dirs(self, dirs: list[Path]) -> list[FileLock]:
        locks = []
        for d in dirs:
            try:
                lock = FileLock(d / LOCK_FILE)
                if not lock.try_lock():
                    for held in locks:
                        held.destroy()
                    raise KafkaException(f"Failed to acquire lock on file .lock in {d}. A Kafka instance in another "
                                         "process or thread is using this directory.")
                locks.append(lock)
            except OSError as e:
                self.log_dir_failure_channel.maybe_add_offline_log_dir(str(d), f"Disk error while locking directory "
                                                                              f"{d}", e)
        return locks

    def load_log(self, log_dir: Path, recovery_points: dict[tuple[str, int], int],
                 log_start_offsets: dict[tuple[str, int], int]) -> None:
        topic_partition = Log.parse_topic_partition_name(log_dir)
        config = self.topic_configs.get(topic_partition[0], self.default_config)
        current = Log(log_dir, config, log_start_offset=log_start_offsets.get(topic_partition, 0),
                      recovery_point=recovery_points.get(topic_partition, 0), scheduler=self.scheduler,
                      time_ms=self.time_ms, log_dir_failure_channel=self.log_dir_failure_channel,
                      max_producer_id_expiration_ms=self.max_pid_expiration_ms,
                      producer_id_expiration_check_interval_ms=PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS)
        if log_dir.name.endswith(Log.DeleteDirSuffix):
            # A deletion interrupted by a restart: finish it, the partition is gone.
            current.close()
            shutil.rmtree(log_dir, ignore_errors=True)
            return
        previous = self.logs.setdefault(topic_partition, current)
        if previous is not current:
            raise ValueError(f"Duplicate log directories found: {current.dir}, {previous.dir}!")

    def load_logs(self) -> None:
        log.info("Loading logs.")
        start_ms = self.time_ms()
        jobs: dict[Path, list] = {}
        pools = []
        offline_dirs: list[tuple[Path, OSError]] = []
        for d in self.live_log_dirs:
            try:
                pool = ThreadPoolExecutor(self.io_threads, thread_name_prefix="log-recovery")
                pools.append(pool)
                clean_shutdown_file = d / Log.CleanShutdownFile
                if clean_shutdown_file.exists():
                    log.debug("Found clean shutdown file. Skipping recovery for all logs in %s", d)
                else:
                    # The recovery itself happens inside each Log as it loads.
                    self.broker_state.new_state(BrokerStates.RecoveringFromUncleanShutdown)
                recovery_points = self._read_checkpoint(self.recovery_point_checkpoints[d], "recovery-point")
                log_start_offsets = self._read_checkpoint(self.log_start_offset_checkpoints[d], "log-start")
                # 3.9 skips the KRaft metadata partition: the Raft client owns that log, not the LogManager
                log_dirs = sorted(p for p in d.iterdir() if p.is_dir() and p.name != METADATA_PARTITION_DIR)
                jobs[clean_shutdown_file] = [pool.submit(self.load_log, p, recovery_points, log_start_offsets)
                                             for p in log_dirs]
            except OSError as e:
                offline_dirs.append((d, e))
                log.error("Error while loading log dir %s: %s", d, e)
        try:
            for clean_shutdown_file, dir_jobs in jobs.items():
                for job in dir_jobs:
                    job.result()
                try:
                    clean_shutdown_file.unlink(missing_ok=True)
                except OSError as e:
                    offline_dirs.append((clean_shutdown_file.parent, e))
            for d, e in offline_dirs:
                self.log_dir_failure_channel.maybe_add_offline_log_dir(str(d), f"Error while loading log dir {d}",
                                                                       e)
        finally:
            for pool in pools:
                pool.shutdown()
        log.info("Logs loading complete in %d ms.", self.time_ms() - start_ms)

    @staticmethod
    def _read_checkpoint(checkpoint: OffsetCheckpointFile, what: str) -> dict[tuple[str, int], int]:
        try:
            return checkpoint.read()
        except (OSError, ValueError) as e:
            log.warning("Error occurred while reading %s checkpoint file %s, resetting to 0: %s", what,
                        checkpoint.file, e)
            return {}

    def startup(self) -> None:
        """Start the background tasks that flush, checkpoint and apply retention."""
        log.info("Starting log cleanup with a period of %d ms.", self.retention_check_ms)
        self.scheduler.schedule("kafka-log-retention", self.cleanup_logs, INITIAL_TASK_DELAY_MS,
                                self.retention_check_ms)
        log.info("Starting log flusher with a default period of %d ms.", self.flush_check_ms)
        self.scheduler.schedule("kafka-log-flusher", self.flush_dirty_logs, INITIAL_TASK_DELAY_MS, self.flush_check_ms)
        self.scheduler.schedule("kafka-recovery-point-checkpoint", self.checkpoint_log_recovery_offsets,
                                INITIAL_TASK_DELAY_MS, self.flush_recovery_offset_checkpoint_ms)
        self.scheduler.schedule("kafka-log-start-offset-checkpoint", self.checkpoint_log_start_offsets,
                                INITIAL_TASK_DELAY_MS, self.flush_start_offset_checkpoint_ms)
        if self.cleaner is not None:
            self.cleaner.startup()

    def shutdown(self) -> None:
        log.info("Shutting down.")
        # stop the cleaner first
        if self.cleaner is not None:
            try:
                self.cleaner.shutdown()
            except Exception as e:  # CoreUtils.swallow
                log.warning("Error while shutting down the log cleaner: %s", e)
        pools = []
        jobs: dict[Path, list] = {}
        for d in self.live_log_dirs:
            pool = ThreadPoolExecutor(self.io_threads, thread_name_prefix="log-closing")
            pools.append(pool)
            jobs[d] = [pool.submit(self._flush_and_close, lg) for lg in self.logs_by_dir().get(d, [])]
        try:
            for d, dir_jobs in jobs.items():
                for job in dir_jobs:
                    job.result()
                self.checkpoint_log_recovery_offsets_in_dir(d)
                self.checkpoint_log_start_offsets_in_dir(d)
                # The marker tells the next startup that every log here was flushed and closed.
                try:
                    (d / Log.CleanShutdownFile).touch(exist_ok=False)
                except OSError as e:
                    log.warning("Failed to write clean shutdown marker in %s: %s", d, e)
        finally:
            for pool in pools:
                pool.shutdown()
            for lock in self.dir_locks:
                lock.destroy()
        log.info("Shutdown complete.")

    def get_log(self, topic_partition: tuple[str, int]) -> Log | None:
        return self.logs.get(topic_partition)

    def get_or_create_log(self, topic_partition: tuple[str, int], config: LogConfig, is_new: bool = False) -> Log:
        """The partition's log, created in the live log dir holding the fewest partitions when it has none."""
        with self._log_creation_or_deletion_lock:
            existing = self.logs.get(topic_partition)
            if existing is not None:
                return existing
            preferred_log_dir = self.preferred_log_dirs.get(topic_partition)
            log_dir = preferred_log_dir if preferred_log_dir is not None else self.next_log_dir()
            if not self.is_log_dir_online(log_dir):
                raise KafkaStorageException(f"Can not create log for {topic_partition} because log directory "
                                            f"{log_dir} is offline")
            topic, partition = topic_partition
            current = Log(log_dir / f"{topic}-{partition}", config, scheduler=self.scheduler, time_ms=self.time_ms,
                          log_dir_failure_channel=self.log_dir_failure_channel,
                          max_producer_id_expiration_ms=self.max_pid_expiration_ms,
                          producer_id_expiration_check_interval_ms=PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS)
            self.logs[topic_partition] = current
            log.info("Created log for partition %s-%d in %s", topic, partition, log_dir)
            # the preference is spent once the log exists
            self.preferred_log_dirs.pop(topic_partition, None)
            return current

    def truncate_to(self, partition_offsets: dict[tuple[str, int], int]) -> None:
        """Truncate each partition's log to its offset; a cut below the active segment first stops the log's
        cleaning (CL.abort), and its cleaner checkpoint may not stay past the new end."""
        truncated = False
        for topic_partition, truncate_offset in partition_offsets.items():
            lg = self.logs.get(topic_partition)
            if lg is None:
                continue
            need_to_stop_cleaner = self.cleaner is not None and truncate_offset < lg.active_segment.base_offset
            if need_to_stop_cleaner:
                self.cleaner.abort_and_pause_cleaning(topic_partition)  # type: ignore[union-attr]
            try:
                if lg.truncate_to(truncate_offset):
                    truncated = True
                if need_to_stop_cleaner:
                    self.cleaner.maybe_truncate_checkpoint(  # type: ignore[union-attr]
                        Path(lg.dir).parent, topic_partition, lg.active_segment.base_offset)
            finally:
                if need_to_stop_cleaner:
                    self.cleaner.resume_cleaning(topic_partition)  # type: ignore[union-attr]
        if truncated:
            self.checkpoint_log_recovery_offsets()

    def truncate_fully_and_start_at(self, topic_partition: tuple[str, int], new_offset: int) -> None:
        """Empty the partition's log and start it at `new_offset`, its cleaning paused meanwhile."""
        lg = self.logs.get(topic_partition)
        if lg is not None:
            if self.cleaner is not None:
                self.cleaner.abort_and_pause_cleaning(topic_partition)
            lg.truncate_fully_and_start_at(new_offset)
            if self.cleaner is not None:
                self.cleaner.maybe_truncate_checkpoint(Path(lg.dir).parent, topic_partition,
                                                       lg.active_segment.base_offset)
                self.cleaner.resume_cleaning(topic_partition)
        self.checkpoint_log_recovery_offsets()

    def update_preferred_log_dir(self, topic_partition: tuple[str, int], log_dir: str | Path) -> None:
        self.preferred_log_dirs[topic_partition] = Path(log_dir).absolute()

    def all_logs(self) -> list[Log]:
        return list(self.logs.values())

    def next_log_dir(self) -> Path:
        if len(self._live_log_dirs) == 1:
            return self._live_log_dirs[0]
        counts = {d: 0 for d in self._live_log_dirs}
        for lg in self.logs.values():
            parent = Path(lg.dir).parent.absolute()
            if parent in counts:
                counts[parent] += 1
        return min(counts, key=lambda d: counts[d])

    def async_delete(self, topic_partition: tuple[str, int]) -> Log | None:
        """Take the log out of service, rename its directory `<tp>.<uuid>-delete`, and delete it in the background.

        Returns the removed log (its segments now point into the renamed directory), None if there was none.
        """
        with self._log_creation_or_deletion_lock:
            removed = self.logs.pop(topic_partition, None)
        if removed is None:
            return None
        # no cleaning may be running on a log about to be deleted
        if self.cleaner is not None:
            self.cleaner.abort_cleaning(topic_partition)
            self.cleaner.update_checkpoints(Path(removed.dir).parent.absolute())
        removed.close()
        parent = Path(removed.dir).parent
        renamed = parent / Log.log_delete_dir_name(Path(removed.dir).name)
        Path(removed.dir).rename(renamed)
        self.checkpoint_log_start_offsets_in_dir(parent.absolute())
        removed.dir = renamed
        # change the file pointers of the log and index files
        for segment in removed.log_segments():
            segment.update_dir(renamed)
        log.info("Log for partition %s is renamed to %s and is scheduled for deletion", topic_partition, renamed)

        def delete_log() -> None:
            try:
                removed.delete()
                log.info("Deleted log for partition %s in %s.", removed.topic_partition, removed.dir)
            except KafkaStorageException as e:
                log.error("Exception while deleting %s in dir %s: %s", removed, parent, e)

        self.scheduler.schedule("kafka-delete-logs", delete_log, self.default_config.file_delete_delay_ms)
        return removed

    @staticmethod
    def _flush_and_close(lg: Log) -> None:
        lg.flush()
        lg.close()

    def logs_by_dir(self) -> dict[Path, list[Log]]:
        by_dir: dict[Path, list[Log]] = {}
        for lg in self.logs.values():
            by_dir.setdefault(Path(lg.dir).parent.absolute(), []).append(lg)
        return by_dir

    def checkpoint_log_recovery_offsets(self) -> None:
        for d in self.live_log_dirs:
            self.checkpoint_log_recovery_offsets_in_dir(d)

    def checkpoint_log_recovery_offsets_in_dir(self, d: Path) -> None:
        logs = self.logs_by_dir().get(d, [])
        self.recovery_point_checkpoints[d].write({lg.topic_partition: lg.recovery_point for lg in logs})
        # producer snapshots below what recovery could need are dropped once the recovery points are safe
        for lg in list(self.logs.values()):
            lg.delete_snapshots_after_recovery_point_checkpoint()

    def checkpoint_log_start_offsets(self) -> None:
        for d in self.live_log_dirs:
            self.checkpoint_log_start_offsets_in_dir(d)

    def checkpoint_log_start_offsets_in_dir(self, d: Path) -> None:
        logs = self.logs_by_dir().get(d, [])
        self.log_start_offset_checkpoints[d].write({lg.topic_partition: lg.log_start_offset for lg in logs})

    def flush_dirty_logs(self) -> None:
        for lg in list(self.logs.values()):
            if self.time_ms() - lg.last_flush_time >= lg.config.flush_ms:
                lg.flush()

    def cleanup_logs(self) -> None:
        total = 0
        # compacted logs (compact or compact,delete) are the LogCleaner's, not retention's
        for lg in [lg for lg in self.logs.values() if not lg.config.compact]:
            total += lg.delete_old_segments()
        log.debug("Log cleanup completed. %d files deleted", total)
