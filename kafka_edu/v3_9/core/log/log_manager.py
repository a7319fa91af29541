"""Port of core/src/main/scala/kafka/log/LogManager.scala (Kafka 3.9): the broker's log subsystem: loads (and
recovers) every partition log of every log dir at startup, creates and deletes logs, runs retention, flush and
checkpoint tasks, and closes everything cleanly at shutdown."""

from __future__ import annotations

import contextvars
import itertools
import os
import queue
import threading
import uuid as _py_uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import (
    IllegalStateException,
    KafkaException,
    KafkaStorageException,
    LogDirNotFoundException,
)
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.errors.inconsistent_topic_id_exception import InconsistentTopicIdException
from kafka_edu.v3_9.clients.common.internals import topic as Topic
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.clients.common.utils.utils import flush_dir
from kafka_edu.v3_9.clients.common.uuid import DirectoryId, Uuid
from kafka_edu.v3_9.core.log import log_cleaner, unified_log
from kafka_edu.v3_9.core.log.log_cleaner import LogCleaner
from kafka_edu.v3_9.core.log.unified_log import UnifiedLog
from kafka_edu.v3_9.core.server.checkpoints.offset_checkpoint_file import OffsetCheckpointFile
from kafka_edu.v3_9.metadata.metadata.properties.meta_properties import (
    META_PROPERTIES_NAME,
    MetaProperties,
    read_properties_file,
)
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from kafka_edu.v3_9.server_common.server.util.file_lock import FileLock
from kafka_edu.v3_9.server_common.server.util.scheduler import Scheduler
from kafka_edu.v3_9.storage.storage.internals.checkpoint.clean_shutdown_file_handler import CleanShutdownFileHandler
from kafka_edu.v3_9.storage.storage.internals.log import log_config
from kafka_edu.v3_9.storage.storage.internals.log.cleaner_config import CleanerConfig
from kafka_edu.v3_9.storage.storage.internals.log.log_config import LogConfig, MessageFormatVersion
from kafka_edu.v3_9.storage.storage.internals.log.log_dir_failure_channel import LogDirFailureChannel
from kafka_edu.v3_9.storage.storage.internals.log.producer_state_manager_config import ProducerStateManagerConfig

LOCK_FILE_NAME = ".lock"
RECOVERY_POINT_CHECKPOINT_FILE = "recovery-point-offset-checkpoint"
LOG_START_OFFSET_CHECKPOINT_FILE = "log-start-offset-checkpoint"

# RemoteIndexCache.DIR_NAME: tiered storage's index cache, not a partition (tiered storage is not ported)
REMOTE_INDEX_CACHE_DIR_NAME = "remote-log-index-cache"
MESSAGE_FORMAT_VERSION_CONFIG = "message.format.version"

_companion_logger = Logging("kafka.log.LogManager")


class ConfigRepository(Protocol):
    """kafka.server.metadata.ConfigRepository, as far as the log manager reads it: a copy of a topic's overrides."""

    def topic_config(self, topic_name: str) -> Mapping[str, Any]: ...


def _halt(status_code: int) -> None:
    """Exit.halt: stop the process now, without shutdown hooks."""
    os._exit(status_code)


def _log_config_from_props(defaults: Mapping[str, Any], overrides: Mapping[str, Any]) -> LogConfig:
    """LogConfig.fromProps: the defaults with the topic's overrides on top, remembering which keys were overridden."""
    return LogConfig({**defaults, **overrides}, frozenset(overrides))


class LogManager:
    """The entry point to the log subsystem: every read and write goes to the logs it holds. A new log goes to the
    live log dir holding the fewest logs; logs never move between dirs on their own."""

    def __init__(self, log_dirs: Sequence[Path], initial_offline_dirs: Sequence[Path],
                 config_repository: ConfigRepository, initial_default_config: LogConfig,
                 cleaner_config: CleanerConfig, recovery_threads_per_data_dir: int, flush_check_ms: int,
                 flush_recovery_offset_checkpoint_ms: int, flush_start_offset_checkpoint_ms: int,
                 retention_check_ms: int, max_transaction_timeout_ms: int,
                 producer_state_manager_config: ProducerStateManagerConfig,
                 producer_id_expiration_check_interval_ms: int, inter_broker_protocol_version: MetadataVersion,
                 scheduler: Scheduler, broker_topic_stats: Any, log_dir_failure_channel: LogDirFailureChannel,
                 time: Time, keep_partition_metadata_file: bool, remote_storage_system_enable: bool,
                 initial_task_delay_ms: int) -> None:
        self._logger = Logging("kafka.log.LogManager")
        self._log_dirs = [Path(d) for d in log_dirs]
        self._config_repository = config_repository
        self.initial_default_config = initial_default_config
        self.cleaner_config = cleaner_config
        self.flush_check_ms = flush_check_ms
        self.flush_recovery_offset_checkpoint_ms = flush_recovery_offset_checkpoint_ms
        self.flush_start_offset_checkpoint_ms = flush_start_offset_checkpoint_ms
        self.retention_check_ms = retention_check_ms
        self.max_transaction_timeout_ms = max_transaction_timeout_ms
        self.producer_state_manager_config = producer_state_manager_config
        self.producer_id_expiration_check_interval_ms = producer_id_expiration_check_interval_ms
        self._inter_broker_protocol_version = inter_broker_protocol_version
        self._scheduler = scheduler
        self._broker_topic_stats = broker_topic_stats
        self._log_dir_failure_channel = log_dir_failure_channel
        self._time = time
        self.keep_partition_metadata_file = keep_partition_metadata_file
        self._remote_storage_system_enable = remote_storage_system_enable
        self.initial_task_delay_ms = initial_task_delay_ms

        # reentrant: Scala's `synchronized` is
        self._log_creation_or_deletion_lock = threading.RLock()
        self._current_logs: dict[TopicPartition, UnifiedLog] = {}
        # A future log lives in a "-future" dir while a replica moves to another log dir of this broker; it
        # replaces the current log once it has caught up.
        self._future_logs: dict[TopicPartition, UnifiedLog] = {}
        # each entry: a log to delete and when its deletion was scheduled
        self._logs_to_be_deleted: queue.Queue[tuple[UnifiedLog, int]] = queue.Queue()

        # stray partition -> stray log, every one found on this broker (visible for testing)
        self._stray_logs: dict[TopicPartition, UnifiedLog] = {}

        self._live_log_dirs: list[Path] = self._create_and_validate_log_dirs(self._log_dirs,
                                                                             [Path(d) for d in initial_offline_dirs])
        self._current_default_config = initial_default_config
        self._num_recovery_threads_per_data_dir = recovery_threads_per_data_dir

        # Partitions whose logs are being loaded: a config update meanwhile sets the flag, and the config is
        # reloaded once the log is initialised (KAFKA-8813). Visible for testing.
        self.partitions_initializing: dict[TopicPartition, bool] = {}

        self._dir_locks = self._lock_log_dirs(self.live_log_dirs())
        self._directory_ids: dict[str, Uuid] = self._load_directory_ids(self.live_log_dirs())

        self._recovery_point_checkpoints: dict[Path, OffsetCheckpointFile] = {
            dir: OffsetCheckpointFile(dir / RECOVERY_POINT_CHECKPOINT_FILE, log_dir_failure_channel)
            for dir in self.live_log_dirs()}
        self._log_start_offset_checkpoints: dict[Path, OffsetCheckpointFile] = {
            dir: OffsetCheckpointFile(dir / LOG_START_OFFSET_CHECKPOINT_FILE, log_dir_failure_channel)
            for dir in self.live_log_dirs()}

        self._preferred_log_dirs: dict[TopicPartition, str] = {}

        # log dir -> whether it had the clean shutdown file at startup
        self._had_clean_shutdown_flags: dict[str, bool] = {}
        # log dir -> whether every log in it was loaded at startup
        self._load_logs_completed_flags: dict[str, bool] = {}

        self._cleaner: LogCleaner | None = None
        self._num_remaining_logs_lock = threading.Lock()
        # metrics (OfflineLogDirectoryCount, LogDirectoryOffline gauges) are not ported

    def reconfigure_default_log_config(self, log_config: LogConfig) -> None:
        self._current_default_config = log_config

    def current_default_config(self) -> LogConfig:
        return self._current_default_config

    def live_log_dirs(self) -> list[Path]:
        if len(self._live_log_dirs) == len(self._log_dirs):
            return list(self._log_dirs)
        return list(self._live_log_dirs)

    def directory_ids_set(self) -> set[Uuid]:
        return set(self._directory_ids.values())

    def has_offline_log_dirs(self) -> bool:
        return bool(self._offline_log_dirs())

    def online_log_dir_id(self, uuid: Uuid) -> bool:
        return uuid in self._directory_ids.values()

    def _offline_log_dirs(self) -> list[Path]:
        live = set(self._live_log_dirs)
        return [dir for dir in self._log_dirs if dir not in live]

    def cleaner(self) -> LogCleaner | None:
        return self._cleaner

    def _create_and_validate_log_dirs(self, dirs: Sequence[Path], initial_offline_dirs: Sequence[Path]) -> list[Path]:
        """The dirs not offline from the start, each created if missing and checked to be a readable directory;
        a duplicate stops the broker, a dir failing its checks goes offline."""
        live_log_dirs: list[Path] = []
        canonical_paths: set[str] = set()

        for dir in dirs:
            try:
                if dir in initial_offline_dirs:
                    raise OSError(f"Failed to load {dir.absolute()} during broker startup")

                if not dir.exists():
                    self._logger.info(f"Log directory {dir.absolute()} not found, creating it.")
                    try:
                        dir.mkdir(parents=True)
                    except OSError as e:
                        raise OSError(f"Failed to create data directory {dir.absolute()}") from e
                    flush_dir(Path(os.path.normpath(dir.absolute())).parent)
                if not dir.is_dir() or not os.access(dir, os.R_OK):
                    raise OSError(f"{dir.absolute()} is not a readable log directory.")

                # a failed file system query and an invalid path (a NUL character: Java's getCanonicalPath throws
                # IOException, Python a ValueError) both mean the dir is offline
                if os.path.realpath(dir) in canonical_paths:
                    raise KafkaException(f"Duplicate log directory found: {', '.join(str(d) for d in dirs)}")
                canonical_paths.add(os.path.realpath(dir))

                live_log_dirs.append(dir)
            except (OSError, ValueError) as e:
                self._log_dir_failure_channel.maybe_add_offline_log_dir(
                    str(dir.absolute()), f"Failed to create or validate data directory {dir.absolute()}", e)
        if not live_log_dirs:
            self._logger.critical("Shutdown broker because none of the specified log dirs from "
                                  f"{', '.join(str(d) for d in dirs)} can be created or validated")
            _halt(1)

        return live_log_dirs

    def resize_recovery_thread_pool(self, new_size: int) -> None:
        self._logger.info("Resizing recovery thread pool size for each data dir from "
                          f"{self._num_recovery_threads_per_data_dir} to {new_size}")
        self._num_recovery_threads_per_data_dir = new_size

    def handle_log_dir_failure(self, dir: str) -> None:
        """Stop serving the logs of a failed log dir (an absolute path), and stop cleaning in it."""
        self._logger.warning(f"Stopping serving logs in dir {dir}")
        with self._log_creation_or_deletion_lock:
            if Path(dir) in self._live_log_dirs:
                self._live_log_dirs.remove(Path(dir))
            self._directory_ids.pop(dir, None)
            if not self._live_log_dirs:
                self._logger.critical("Shutdown broker because all log dirs in "
                                      f"{', '.join(str(d) for d in self._log_dirs)} have failed")
                _halt(1)

            self._recovery_point_checkpoints = {file: c for file, c in self._recovery_point_checkpoints.items()
                                                if str(file.absolute()) != dir}
            self._log_start_offset_checkpoints = {file: c for file, c in self._log_start_offset_checkpoints.items()
                                                  if str(file.absolute()) != dir}
            cleaner = self.cleaner()
            if cleaner is not None:
                cleaner.handle_log_dir_failure(dir)

            def remove_offline_logs(logs: dict[TopicPartition, UnifiedLog]) -> list[TopicPartition]:
                offline_topic_partitions = [tp for tp, log in list(logs.items()) if log.parent_dir() == dir]
                for topic_partition in offline_topic_partitions:
                    removed_log = self._remove_log_and_metrics(logs, topic_partition)
                    if removed_log is not None:
                        removed_log.close_handlers()
                return offline_topic_partitions

            offline_current_topic_partitions = remove_offline_logs(self._current_logs)
            offline_future_topic_partitions = remove_offline_logs(self._future_logs)

            self._logger.warning(
                f"Logs for partitions {','.join(str(tp) for tp in offline_current_topic_partitions)} are offline and "
                f"logs for future partitions {','.join(str(tp) for tp in offline_future_topic_partitions)} are "
                f"offline due to failure on log directory {dir}")
            for lock in self._dir_locks:
                if str(lock.file.parent) == dir:
                    try:
                        lock.destroy()
                    except Exception:
                        self._logger.warning("", exc_info=True)

    def _lock_log_dirs(self, dirs: Sequence[Path]) -> list[FileLock]:
        """Lock every given dir; a dir whose lock cannot be taken for a disk error goes offline."""
        locks = []
        for dir in dirs:
            try:
                lock = FileLock(dir / LOCK_FILE_NAME)
                if not lock.try_lock():
                    raise KafkaException(f"Failed to acquire lock on file .lock in {lock.file.parent}. A Kafka "
                                         "instance in another process or thread is using this directory.")
                locks.append(lock)
            except OSError as e:
                self._log_dir_failure_channel.maybe_add_offline_log_dir(
                    str(dir.absolute()), f"Disk error while locking directory {dir}", e)
        return locks

    def directory_id(self, dir: str) -> Uuid | None:
        """The id of a log dir, given its absolute path."""
        return self._directory_ids.get(dir)

    def directory_path(self, uuid: Uuid) -> str | None:
        return next((path for path, id in self._directory_ids.items() if id == uuid), None)

    def _load_directory_ids(self, log_dirs: Sequence[Path]) -> dict[str, Uuid]:
        """The directory id of each dir whose meta.properties has one; a dir without the file gets none."""
        result: dict[str, Uuid] = {}
        for log_dir in log_dirs:
            try:
                props = read_properties_file(str((log_dir / META_PROPERTIES_NAME).absolute()))
                meta_props = MetaProperties.Builder(props).build()
                if meta_props.directory_id is not None:
                    result[str(log_dir.absolute())] = meta_props.directory_id
            except FileNotFoundError:
                self._logger.info(f"No meta.properties file found in {log_dir}.")
            except OSError as e:
                self._log_dir_failure_channel.maybe_add_offline_log_dir(
                    str(log_dir.absolute()), f"Disk error while loading ID {log_dir}", e)
        return result

    def _add_log_to_be_deleted(self, log: UnifiedLog) -> None:
        self._logs_to_be_deleted.put((log, self._time.milliseconds()))

    def add_stray_log(self, stray_partition: TopicPartition, stray_log: UnifiedLog) -> None:
        self._stray_logs[stray_partition] = stray_log

    # only for testing
    def has_logs_to_be_deleted(self) -> bool:
        return not self._logs_to_be_deleted.empty()

    def load_log(self, log_dir: Path, had_clean_shutdown: bool, recovery_points: Mapping[TopicPartition, int],
                 log_start_offsets: Mapping[TopicPartition, int], default_config: LogConfig,
                 topic_config_overrides: Mapping[str, LogConfig], num_remaining_segments: dict[str, int],
                 is_stray: Callable[[UnifiedLog], bool]) -> UnifiedLog:
        topic_partition = unified_log.parse_topic_partition_name(log_dir)
        config = topic_config_overrides.get(topic_partition.topic, default_config)
        log_recovery_point = recovery_points.get(topic_partition, 0)
        log_start_offset = log_start_offsets.get(topic_partition, 0)

        log = unified_log.apply(
            log_dir, config, log_start_offset, log_recovery_point, self._scheduler, self._broker_topic_stats,
            self._time, self.max_transaction_timeout_ms, self.producer_state_manager_config,
            self.producer_id_expiration_check_interval_ms, self._log_dir_failure_channel,
            last_shutdown_clean=had_clean_shutdown, topic_id=None,
            keep_partition_metadata_file=self.keep_partition_metadata_file,
            num_remaining_segments=num_remaining_segments,
            remote_storage_system_enable=self._remote_storage_system_enable)

        if log_dir.name.endswith(unified_log.DELETE_DIR_SUFFIX):
            self._add_log_to_be_deleted(log)
        elif log_dir.name.endswith(unified_log.STRAY_DIR_SUFFIX):
            self.add_stray_log(topic_partition, log)
            self._logger.warning(f"Loaded stray log: {log_dir}")
        elif is_stray(log):
            # KRaft cannot stop a topic from being recreated before every replica was deleted: a replica found in
            # a dir that was offline meanwhile is moved aside, so it cannot clash with the new incarnation
            log.rename_dir(unified_log.log_stray_dir_name(log.topic_partition()), should_reinitialize=False)
            self.add_stray_log(log.topic_partition(), log)
            self._logger.warning(f"Log in {log_dir.absolute()} marked stray and renamed to {log.dir().absolute()}")
        else:
            logs = self._future_logs if log.is_future() else self._current_logs
            previous = logs.get(topic_partition)
            logs[topic_partition] = log
            if previous is not None:
                if log.is_future():
                    raise IllegalStateException(f"Duplicate log directories found: {log.dir().absolute()}, "
                                                f"{previous.dir().absolute()}")
                raise IllegalStateException(
                    f"Duplicate log directories for {topic_partition} are found in both {log.dir().absolute()} "
                    f"and {previous.dir().absolute()}. It is likely because log directory failure happened while "
                    "broker was replacing current replica with future replica. Recover broker from this failure by "
                    "manually deleting one of the two directories for this partition. It is recommended to delete "
                    "the partition in the log directory that is known to have failed recently.")

        return log

    @staticmethod
    def _log_recovery_thread_name(dir_path: str, thread_num: int, prefix: str = "log-recovery") -> str:
        """A unique name per log dir and thread, e.g. "log-recovery-/tmp/kafkaLogs-0"."""
        return f"{prefix}-{dir_path}-{thread_num}"

    def _new_recovery_thread_pool(self, dir_path: str) -> ThreadPoolExecutor:
        """LogRecoveryThreadFactory: the pool's threads carry the names the remaining-segments map is keyed by."""
        thread_num = itertools.count()

        def name_thread() -> None:
            threading.current_thread().name = self._log_recovery_thread_name(dir_path, next(thread_num))

        return ThreadPoolExecutor(max_workers=self._num_recovery_threads_per_data_dir, initializer=name_thread)

    def dec_num_remaining_logs(self, num_remaining_logs: dict[str, int], path: str) -> int:
        """Decrement the logs left to load in a dir; the number left."""
        if path is None:
            raise ValueError("path cannot be null to update remaining logs metric.")
        # ConcurrentHashMap.compute: the decrement is atomic
        with self._num_remaining_logs_lock:
            num_remaining_logs[path] = num_remaining_logs[path] - 1
            return num_remaining_logs[path]

    @step("RQ.load.1")
    def load_logs(self, default_config: LogConfig, topic_config_overrides: Mapping[str, LogConfig],
                  is_stray: Callable[[UnifiedLog], bool]) -> None:
        """Recover and load every log of the live log dirs, `num.recovery.threads.per.data.dir` threads per dir."""
        self._logger.info(f"Loading logs from log dirs {[str(d) for d in self.live_log_dirs()]}")
        start_ms = self._time.hi_res_clock_ms()
        thread_pools: list[ThreadPoolExecutor] = []
        offline_dirs: list[tuple[str, OSError]] = []
        jobs: list[list[Future[None]]] = []
        num_total_logs = 0
        # log dir path -> logs left to load (the remainingLogsToRecover metric)
        num_remaining_logs: dict[str, int] = {}
        # recovery thread name -> segments left to recover (the remainingSegmentsToRecover metric)
        num_remaining_segments: dict[str, int] = {}

        def handle_io_exception(log_dir_absolute_path: str, e: OSError) -> None:
            offline_dirs.append((log_dir_absolute_path, e))
            self._logger.error(f"Error while loading log dir {log_dir_absolute_path}", exc_info=e)

        unclean_log_dirs: list[str] = []
        for dir in self.live_log_dirs():
            log_dir_absolute_path = str(dir.absolute())
            had_clean_shutdown = False
            try:
                pool = self._new_recovery_thread_pool(log_dir_absolute_path)
                thread_pools.append(pool)

                clean_shutdown_file_handler = CleanShutdownFileHandler(dir)
                if clean_shutdown_file_handler.exists():
                    # Remember the clean shutdown, and delete the file: a crash while loading must count as an
                    # unclean shutdown at the next start (KAFKA-10471).
                    clean_shutdown_file_handler.delete()
                    had_clean_shutdown = True
                self._had_clean_shutdown_flags[log_dir_absolute_path] = had_clean_shutdown

                recovery_points: Mapping[TopicPartition, int] = {}
                try:
                    recovery_points = self._recovery_point_checkpoints[dir].read()
                except Exception as e:
                    self._logger.warning("Error occurred while reading recovery-point-offset-checkpoint file of "
                                         f"directory {log_dir_absolute_path}, resetting the recovery checkpoint to 0",
                                         exc_info=e)

                log_start_offsets: Mapping[TopicPartition, int] = {}
                try:
                    log_start_offsets = self._log_start_offset_checkpoints[dir].read()
                except Exception as e:
                    self._logger.warning("Error occurred while reading log-start-offset-checkpoint file of directory "
                                         f"{log_dir_absolute_path}, resetting to the base offset of the first segment",
                                         exc_info=e)

                try:
                    children = sorted(dir.iterdir())
                except OSError:
                    # File.listFiles answers null on an I/O error: nothing to load
                    children = []
                logs_to_load = [log_dir for log_dir in children
                                if log_dir.is_dir()
                                # tiered storage's index cache is not a partition
                                and log_dir.name != REMOTE_INDEX_CACHE_DIR_NAME
                                and unified_log.parse_topic_partition_name(log_dir).topic
                                != Topic.CLUSTER_METADATA_TOPIC_NAME]
                num_total_logs += len(logs_to_load)
                num_remaining_logs[log_dir_absolute_path] = len(logs_to_load)
                self._load_logs_completed_flags[log_dir_absolute_path] = not logs_to_load

                if not logs_to_load:
                    self._logger.info(f"No logs found to be loaded in {log_dir_absolute_path}")
                elif had_clean_shutdown:
                    self._logger.info(f"Skipping recovery of {len(logs_to_load)} logs from {log_dir_absolute_path} "
                                      "since clean shutdown file was found")
                else:
                    self._logger.info(f"Recovering {len(logs_to_load)} logs from {log_dir_absolute_path} since no "
                                      "clean shutdown file was found")
                    unclean_log_dirs.append(log_dir_absolute_path)

                def job(log_dir: Path, log_dir_absolute_path: str = log_dir_absolute_path,
                        had_clean_shutdown: bool = had_clean_shutdown,
                        recovery_points: Mapping[TopicPartition, int] = recovery_points,
                        log_start_offsets: Mapping[TopicPartition, int] = log_start_offsets,
                        num_logs_to_load: int = len(logs_to_load)) -> None:
                    self._logger.debug(f"Loading log {log_dir}")
                    log: UnifiedLog | None = None
                    log_load_start_ms = self._time.hi_res_clock_ms()
                    try:
                        log = self.load_log(log_dir, had_clean_shutdown, recovery_points, log_start_offsets,
                                            default_config, topic_config_overrides, num_remaining_segments, is_stray)
                    except OSError as e:
                        handle_io_exception(log_dir_absolute_path, e)
                    except KafkaStorageException as e:
                        # raised after the IOException under it was handled (e.g. writing the epoch cache)
                        if not isinstance(e.__cause__, OSError):
                            raise
                    finally:
                        log_load_duration_ms = self._time.hi_res_clock_ms() - log_load_start_ms
                        remaining_logs = self.dec_num_remaining_logs(num_remaining_logs, log_dir_absolute_path)
                        current_num_loaded = num_logs_to_load - remaining_logs
                        if log is not None:
                            self._logger.info(
                                f"Completed load of {log} with {log.number_of_segments()} segments, "
                                f"local-log-start-offset {log.local_log_start_offset()} and log-end-offset "
                                f"{log.log_end_offset()} in {log_load_duration_ms}ms ({current_num_loaded}/"
                                f"{num_logs_to_load} completed in {log_dir_absolute_path})")
                        else:
                            self._logger.info(f"Error while loading logs in {log_dir} in {log_load_duration_ms}ms "
                                              f"({current_num_loaded}/{num_logs_to_load} completed in "
                                              f"{log_dir_absolute_path})")

                        if remaining_logs == 0:
                            # every log of this dir is loaded
                            self._load_logs_completed_flags[log_dir_absolute_path] = True

                # each job in a copy of this thread's context, so that what it does belongs to this load
                jobs.append([pool.submit(contextvars.copy_context().run, job, log_dir) for log_dir in logs_to_load])
            except OSError as e:
                handle_io_exception(log_dir_absolute_path, e)

        try:
            self.add_log_recovery_metrics(num_remaining_logs, num_remaining_segments)
            try:
                for dir_jobs in jobs:
                    for future in dir_jobs:
                        future.result()
            except Exception as e:
                # ExecutionException: the cause is rethrown
                self._logger.error(f"There was an error in one of the threads during logs loading: {e}")
                raise

            for dir_path, e in offline_dirs:
                self._log_dir_failure_channel.maybe_add_offline_log_dir(
                    dir_path, f"Error while loading log dir {dir_path}", e)
        finally:
            self.remove_log_recovery_metrics()
            for pool in thread_pools:
                pool.shutdown(wait=False)

        elapsed_ms = self._time.hi_res_clock_ms() - start_ms
        printed_unclean_log_dirs = f" (unclean log dirs = {unclean_log_dirs})" if unclean_log_dirs else ""
        self._logger.info(f"Loaded {num_total_logs} logs in {elapsed_ms}ms{printed_unclean_log_dirs}")

    def add_log_recovery_metrics(self, num_remaining_logs: dict[str, int],
                                 num_remaining_segments: dict[str, int]) -> None:
        """The remainingLogsToRecover / remainingSegmentsToRecover gauges: metrics are not ported."""
        self._logger.debug("Adding log recovery metrics")

    def remove_log_recovery_metrics(self) -> None:
        self._logger.debug("Removing log recovery metrics")

    def startup(self, topic_names: Iterable[str],
                is_stray: Callable[[UnifiedLog], bool] = lambda _: False) -> None:
        """Load the logs, then start the background tasks (retention, flush, checkpoints, deletion)."""
        # the defaults and the overrides must agree
        default_config = self.current_default_config()
        self.startup_with_config_overrides(default_config,
                                           self.fetch_topic_config_overrides(default_config, set(topic_names)),
                                           is_stray)

    # visible for testing
    def fetch_topic_config_overrides(self, default_config: LogConfig, topic_names: Iterable[str]
                                     ) -> dict[str, LogConfig]:
        topic_config_overrides: dict[str, LogConfig] = {}
        default_props = default_config.props
        for topic_name in topic_names:
            overrides = dict(self._config_repository.topic_config(topic_name))
            # only topics with overrides get a config of their own
            if overrides:
                version_string = overrides.get(MESSAGE_FORMAT_VERSION_CONFIG)
                if version_string is not None:
                    message_format_version = MessageFormatVersion(str(version_string),
                                                                  self._inter_broker_protocol_version.version())
                    if message_format_version.should_ignore():
                        del overrides[MESSAGE_FORMAT_VERSION_CONFIG]

                        if message_format_version.should_warn():
                            self._logger.warning(
                                f"Topic configuration {MESSAGE_FORMAT_VERSION_CONFIG} with value "
                                f"`{version_string}` is ignored for `{topic_name}` because the inter-broker protocol "
                                f"version `{self._inter_broker_protocol_version.version()}` is greater or equal than "
                                "3.0. This configuration is deprecated and it will be removed in Apache Kafka 4.0.")

                topic_config_overrides[topic_name] = _log_config_from_props(default_props, overrides)
        return topic_config_overrides

    def _fetch_log_config(self, topic_name: str) -> LogConfig:
        # the defaults and the overrides must agree
        default_config = self.current_default_config()
        overrides = self.fetch_topic_config_overrides(default_config, {topic_name})
        return next(iter(overrides.values()), default_config)

    # visible for testing
    def startup_with_config_overrides(self, default_config: LogConfig,
                                      topic_config_overrides: Mapping[str, LogConfig],
                                      is_stray: Callable[[UnifiedLog], bool]) -> None:
        # this could take a while if shutdown was not clean
        self.load_logs(default_config, topic_config_overrides, is_stray)

        # the background tasks
        if self._scheduler is not None:
            self._logger.info(f"Starting log cleanup with a period of {self.retention_check_ms} ms.")
            self._scheduler.schedule("kafka-log-retention", self._cleanup_logs, self.initial_task_delay_ms,
                                     self.retention_check_ms)
            self._logger.info(f"Starting log flusher with a default period of {self.flush_check_ms} ms.")
            self._scheduler.schedule("kafka-log-flusher", self._flush_dirty_logs, self.initial_task_delay_ms,
                                     self.flush_check_ms)
            self._scheduler.schedule("kafka-recovery-point-checkpoint", self.checkpoint_log_recovery_offsets,
                                     self.initial_task_delay_ms, self.flush_recovery_offset_checkpoint_ms)
            self._scheduler.schedule("kafka-log-start-offset-checkpoint", self.checkpoint_log_start_offsets,
                                     self.initial_task_delay_ms, self.flush_start_offset_checkpoint_ms)
            # rescheduled after each run, with a delay that depends on what is left to delete
            self._scheduler.schedule_once("kafka-delete-logs", self._delete_logs, self.initial_task_delay_ms)
        if self.cleaner_config.enable_cleaner:
            self._cleaner = LogCleaner(self.cleaner_config, self.live_log_dirs(), self._current_logs,
                                       self._log_dir_failure_channel, time=self._time)
            self._cleaner.startup()

    def shutdown(self, broker_epoch: int = -1) -> None:
        """Close every log; a dir whose logs all closed gets its checkpoints and the clean shutdown file."""
        self._logger.info("Shutting down.")

        thread_pools: list[ThreadPoolExecutor] = []
        jobs: dict[Path, list[Future[None]]] = {}

        # the cleaner stops first
        cleaner = self.cleaner()
        if cleaner is not None:
            try:
                cleaner.shutdown()
            except Exception:
                self._logger.warning("", exc_info=True)

        local_logs_by_dir = self._logs_by_dir()

        # close the logs of each dir
        for dir in self.live_log_dirs():
            self._logger.debug(f"Flushing and closing logs at {dir}")

            pool = ThreadPoolExecutor(max_workers=self._num_recovery_threads_per_data_dir,
                                      thread_name_prefix=f"log-closing-{dir.absolute()}")
            thread_pools.append(pool)

            logs = self._logs_in_dir(local_logs_by_dir, dir).values()

            def close_log(log: UnifiedLog) -> None:
                # flush the log to ensure latest possible recovery point
                log.flush(True)
                log.close()

            jobs[dir] = [pool.submit(close_log, log) for log in logs]

        try:
            for dir, dir_jobs in jobs.items():
                if wait_for_all_to_complete(
                        dir_jobs, lambda e: self._logger.warning(
                            f"There was an error in one of the threads during LogManager shutdown: {e}")):
                    logs = self._logs_in_dir(local_logs_by_dir, dir)

                    # update the last flush point
                    self._logger.debug(f"Updating recovery points at {dir}")
                    self._checkpoint_recovery_offsets_in_dir(dir, logs)

                    self._logger.debug(f"Updating log start offsets at {dir}")
                    self._checkpoint_log_start_offsets_in_dir(dir, logs)

                    # the shutdown was clean for a dir that had the marker at startup, or had none but whose logs
                    # were all recovered at startup
                    log_dir_absolute_path = str(dir.absolute())
                    if (self._had_clean_shutdown_flags.get(log_dir_absolute_path, False)
                            or self._load_logs_completed_flags.get(log_dir_absolute_path, False)):
                        clean_shutdown_file_handler = CleanShutdownFileHandler(dir)
                        self._logger.debug(f"Writing clean shutdown marker at {dir} with broker epoch={broker_epoch}")
                        try:
                            clean_shutdown_file_handler.write(broker_epoch)
                        except Exception:
                            self._logger.warning("", exc_info=True)
        finally:
            for pool in thread_pools:
                pool.shutdown(wait=False)
            # whether or not the logs closed, the data directories are unlocked
            for lock in self._dir_locks:
                lock.destroy()

        self._logger.info("Shutdown complete.")

    def truncate_to(self, partition_offsets: Mapping[TopicPartition, int], is_future: bool) -> None:
        """Truncate the logs to the given offsets and checkpoint the recovery points of their dirs."""
        affected_logs: list[UnifiedLog] = []
        for topic_partition, truncate_offset in partition_offsets.items():
            log = (self._future_logs if is_future else self._current_logs).get(topic_partition)
            # a log that does not exist is skipped
            if log is not None:
                # cleaning below the active segment must stop while the log is truncated
                need_to_stop_cleaner = truncate_offset < log.active_segment().base_offset()
                if need_to_stop_cleaner and not is_future:
                    self.abort_and_pause_cleaning(topic_partition)
                try:
                    if log.truncate_to(truncate_offset):
                        affected_logs.append(log)
                    if need_to_stop_cleaner and not is_future:
                        self._maybe_truncate_cleaner_checkpoint_to_active_segment_base_offset(log, topic_partition)
                finally:
                    if need_to_stop_cleaner and not is_future:
                        self._resume_cleaning(topic_partition)

        for dir in dict.fromkeys(log.parent_dir_file() for log in affected_logs):
            self.checkpoint_recovery_offsets_in_dir(dir)

    def truncate_fully_and_start_at(self, topic_partition: TopicPartition, new_offset: int, is_future: bool,
                                    log_start_offset_opt: int | None = None) -> None:
        """Delete all the data of a partition and start its log at `new_offset`."""
        log = (self._future_logs if is_future else self._current_logs).get(topic_partition)
        # a log that does not exist is skipped
        if log is not None:
            # cleaning stops while the log is truncated
            if not is_future:
                self.abort_and_pause_cleaning(topic_partition)
            try:
                log.truncate_fully_and_start_at(new_offset, log_start_offset_opt)
                if not is_future:
                    self._maybe_truncate_cleaner_checkpoint_to_active_segment_base_offset(log, topic_partition)
            finally:
                if not is_future:
                    self._resume_cleaning(topic_partition)
            self.checkpoint_recovery_offsets_in_dir(log.parent_dir_file())

    def checkpoint_log_recovery_offsets(self) -> None:
        """Write each live dir's recovery points, so that a restart does not recover the whole log."""
        logs_by_dir_cached = self._logs_by_dir()
        for log_dir in self.live_log_dirs():
            logs_to_checkpoint = self._logs_in_dir(logs_by_dir_cached, log_dir)
            self._checkpoint_recovery_offsets_in_dir(log_dir, logs_to_checkpoint)

    def checkpoint_log_start_offsets(self) -> None:
        """Write each live dir's log start offsets, so that records removed by DeleteRecords stay hidden."""
        logs_by_dir_cached = self._logs_by_dir()
        for log_dir in self.live_log_dirs():
            self._checkpoint_log_start_offsets_in_dir(log_dir, self._logs_in_dir(logs_by_dir_cached, log_dir))

    # only for testing
    def checkpoint_recovery_offsets_in_dir(self, log_dir: Path) -> None:
        self._checkpoint_recovery_offsets_in_dir(log_dir, self._logs_in_dir(self._logs_by_dir(), log_dir))

    def _checkpoint_recovery_offsets_in_dir(self, log_dir: Path,
                                            logs_to_checkpoint: Mapping[TopicPartition, UnifiedLog]) -> None:
        try:
            checkpoint = self._recovery_point_checkpoints.get(log_dir)
            if checkpoint is not None:
                recovery_offsets = {tp: log.recovery_point() for tp, log in logs_to_checkpoint.items()}
                # the write's atomic move flushes the parent dir: the checkpoint survives a crash
                checkpoint.write(recovery_offsets)
        except KafkaStorageException as e:
            self._logger.error(f"Disk error while writing recovery offsets checkpoint in directory {log_dir}: {e}")
        except OSError as e:
            self._log_dir_failure_channel.maybe_add_offline_log_dir(
                str(log_dir.absolute()),
                f"Disk error while writing recovery offsets checkpoint in directory {log_dir}: {e}", e)

    def _checkpoint_log_start_offsets_in_dir(self, log_dir: Path,
                                             logs_to_checkpoint: Mapping[TopicPartition, UnifiedLog]) -> None:
        try:
            checkpoint = self._log_start_offset_checkpoints.get(log_dir)
            if checkpoint is not None:
                # only a start offset past the first segment's base offset needs remembering
                log_start_offsets = {tp: log.log_start_offset for tp, log in logs_to_checkpoint.items()
                                     if log.remote_log_enabled()
                                     or log.log_start_offset > log.log_segments()[0].base_offset()}
                checkpoint.write(log_start_offsets)
        except KafkaStorageException as e:
            self._logger.error(f"Disk error while writing log start offsets checkpoint in directory {log_dir}: {e}")

    def maybe_update_preferred_log_dir(self, topic_partition: TopicPartition, log_dir: str) -> None:
        """Remember where the partition should go (an absolute path), unless its current or future log is there."""
        current = self.get_log(topic_partition)
        future = self.get_log(topic_partition, is_future=True)
        if ((current is None or current.parent_dir() != log_dir)
                and (future is None or future.parent_dir() != log_dir)):
            self._preferred_log_dirs[topic_partition] = log_dir

    def abort_and_pause_cleaning(self, topic_partition: TopicPartition) -> None:
        cleaner = self.cleaner()
        if cleaner is not None:
            cleaner.abort_and_pause_cleaning(topic_partition)
            self._logger.info(f"The cleaning for partition {topic_partition} is aborted and paused")

    def abort_cleaning(self, topic_partition: TopicPartition) -> None:
        cleaner = self.cleaner()
        if cleaner is not None:
            cleaner.abort_cleaning(topic_partition)
            self._logger.info(f"The cleaning for partition {topic_partition} is aborted")

    def _resume_cleaning(self, topic_partition: TopicPartition) -> None:
        cleaner = self.cleaner()
        if cleaner is not None:
            cleaner.resume_cleaning([topic_partition])
            self._logger.info(f"Cleaning for partition {topic_partition} is resumed")

    def _maybe_truncate_cleaner_checkpoint_to_active_segment_base_offset(self, log: UnifiedLog,
                                                                         topic_partition: TopicPartition) -> None:
        cleaner = self.cleaner()
        if cleaner is not None:
            cleaner.maybe_truncate_checkpoint(log.parent_dir_file(), topic_partition,
                                              log.active_segment().base_offset())

    def get_log(self, topic_partition: TopicPartition, is_future: bool = False) -> UnifiedLog | None:
        if is_future:
            return self._future_logs.get(topic_partition)
        return self._current_logs.get(topic_partition)

    def initializing_log(self, topic_partition: TopicPartition) -> None:
        """The partition's log is being initialised; finished_initializing_log must follow."""
        self.partitions_initializing[topic_partition] = False

    def topic_config_updated(self, topic: str) -> None:
        """Mark the topic's partitions being initialised as having a stale config."""
        for topic_partition in list(self.partitions_initializing):
            if topic_partition.topic == topic and self.partitions_initializing.get(topic_partition) is False:
                self.partitions_initializing[topic_partition] = True

    def update_topic_config(self, topic: str, new_topic_config: Mapping[str, Any],
                            is_remote_log_storage_system_enabled: bool, was_remote_log_enabled: bool,
                            from_zk: bool) -> None:
        """Apply a topic's new overrides to its logs; turning compaction off aborts their cleaning. Of the
        remote-storage validations, the port has the one that needs no tiered storage."""
        self.topic_config_updated(topic)
        logs = self.logs_by_topic(topic)
        # the broker's defaults with the topic's overrides
        new_log_config = _log_config_from_props(self.current_default_config().props, new_topic_config)
        # validated whether or not the logs exist yet: a tiered topic must not survive tiered storage being turned
        # off cluster-wide just because it has no log here
        log_config.validate_remote_storage_only_if_system_enabled(log_config.CONFIG.parse(new_log_config.props),
                                                                  is_remote_log_storage_system_enabled, True)
        for log in logs:
            old_log_config = log.update_config(new_log_config)
            if old_log_config.compact and not new_log_config.compact:
                self.abort_cleaning(log.topic_partition())

    def broker_config_updated(self) -> None:
        """Mark every partition being initialised as having a stale config."""
        for topic_partition in list(self.partitions_initializing):
            if self.partitions_initializing.get(topic_partition) is False:
                self.partitions_initializing[topic_partition] = True

    def finished_initializing_log(self, topic_partition: TopicPartition, maybe_log: UnifiedLog | None) -> None:
        """The partition's log is initialised: its config is fetched again if it changed meanwhile."""
        removed_value = self.partitions_initializing.pop(topic_partition, None)
        if removed_value is True and maybe_log is not None:
            maybe_log.update_config(self._fetch_log_config(topic_partition.topic))

    def get_or_create_log(self, topic_partition: TopicPartition, is_new: bool = False, is_future: bool = False,
                          topic_id: Uuid | None = None, target_log_directory_id: Uuid | None = None) -> UnifiedLog:
        """The partition's log, created if missing (in the target dir, the preferred one, or the least loaded).
        KafkaStorageException when it is missing, not new, and a log dir is offline (it may be there);
        InconsistentTopicIdException when the log has another topic id."""
        with self._log_creation_or_deletion_lock:
            log = self.get_log(topic_partition, is_future)
            if log is None:
                # not created by another thread meanwhile
                if not is_new and self._offline_log_dirs():
                    raise KafkaStorageException(
                        f"Can not create log for {topic_partition} because log directories "
                        f"{','.join(str(d) for d in self._offline_log_dirs())} are offline")

                if (target_log_directory_id is not None
                        and target_log_directory_id not in (DirectoryId.UNASSIGNED, DirectoryId.LOST)
                        and topic_partition not in self._preferred_log_dirs):
                    # the preferred dir wins over the target dir when both are given
                    preferred_log_dir = self.directory_path(target_log_directory_id)
                else:
                    preferred_log_dir = self._preferred_log_dirs.get(topic_partition)

                if is_future:
                    if preferred_log_dir is None:
                        raise IllegalStateException(f"Can not create the future log for {topic_partition} without "
                                                    "having a preferred log directory")
                    current = self.get_log(topic_partition)
                    if current is not None and current.parent_dir() == preferred_log_dir:
                        raise IllegalStateException(f"Can not create the future log for {topic_partition} in the "
                                                    "current log directory of this partition")

                log_dirs = [Path(preferred_log_dir)] if preferred_log_dir is not None else self._next_log_dirs()

                log_dir_name = (unified_log.log_future_dir_name(topic_partition) if is_future
                                else unified_log.log_dir_name(topic_partition))

                # the first dir where the log directory can be created
                log_dir: Path | None = None
                for candidate in log_dirs:
                    created, failure = self.create_log_directory(candidate, log_dir_name)
                    if created is not None:
                        log_dir = created
                        break
                if log_dir is None:
                    raise KafkaStorageException("No log directories available. Tried "
                                                + ", ".join(str(d.absolute()) for d in log_dirs))

                config = self._fetch_log_config(topic_partition.topic)
                log = unified_log.apply(
                    log_dir, config, 0, 0, self._scheduler, self._broker_topic_stats, self._time,
                    self.max_transaction_timeout_ms, self.producer_state_manager_config,
                    self.producer_id_expiration_check_interval_ms, self._log_dir_failure_channel,
                    topic_id=topic_id, keep_partition_metadata_file=self.keep_partition_metadata_file,
                    remote_storage_system_enable=self._remote_storage_system_enable)

                if is_future:
                    self._future_logs[topic_partition] = log
                else:
                    self._current_logs[topic_partition] = log

                self._logger.info(f"Created log for partition {topic_partition} in {log_dir} with properties "
                                  f"{_overridden_configs_as_loggable_string(config)}")
                # the preferred dir is satisfied
                self._preferred_log_dirs.pop(topic_partition, None)

            # a log from a ZK controller may have no topic id yet
            if log.topic_id() is None and topic_id is not None:
                log.assign_topic_id(topic_id)

            # the topic ids must agree
            if topic_id is not None:
                log_topic_id = log.topic_id()
                if log_topic_id is not None and topic_id != log_topic_id:
                    raise InconsistentTopicIdException(
                        f"Tried to assign topic ID {topic_id} to log for topic partition {topic_partition},"
                        f"but log already contained topic ID {log_topic_id}")
            return log

    def create_log_directory(self, log_dir: Path, log_dir_name: str) -> tuple[Path | None, BaseException | None]:
        """Scala's Try[File]: (the new directory, None) or (None, the failure)."""
        log_dir_path = str(log_dir.absolute())
        if self.is_log_dir_online(log_dir_path):
            dir = Path(log_dir_path, log_dir_name)
            try:
                dir.mkdir(parents=True, exist_ok=True)
                return dir, None
            except OSError as e:
                msg = f"Error while creating log for {log_dir_name} in dir {log_dir_path}"
                self._log_dir_failure_channel.maybe_add_offline_log_dir(log_dir_path, msg, e)
                self._logger.warning(msg, exc_info=e)
                failure = KafkaStorageException(msg)
                failure.__cause__ = e
                return None, failure
        return None, KafkaStorageException(f"Can not create log {log_dir_name} because log directory "
                                           f"{log_dir_path} is offline")

    def _delete_logs(self) -> None:
        """Delete the logs whose file.delete.delay.ms has passed since their deletion was scheduled, then run
        again when the next one is due (or after max(file.delete.delay.ms, 1) when none is left)."""
        next_delay_ms = 0
        file_delete_delay_ms = self.current_default_config().file_delete_delay_ms
        try:
            def next_delete_delay_ms() -> int:
                with self._logs_to_be_deleted.mutex:
                    head = self._logs_to_be_deleted.queue[0] if self._logs_to_be_deleted.queue else None
                if head is not None:
                    _, schedule_time_ms = head
                    return schedule_time_ms + file_delete_delay_ms - self._time.milliseconds()
                # with file.delete.delay.ms 0 and nothing to delete, the loop below would wait forever
                return max(file_delete_delay_ms, 1)

            next_delay_ms = next_delete_delay_ms()
            while next_delay_ms <= 0:
                removed_log, _ = self._logs_to_be_deleted.get()
                if removed_log is not None:
                    try:
                        removed_log.delete()
                        self._logger.info(f"Deleted log for partition {removed_log.topic_partition()} in "
                                          f"{removed_log.dir().absolute()}.")
                    except KafkaStorageException as e:
                        self._logger.error(f"Exception while deleting {removed_log} in dir "
                                           f"{removed_log.parent_dir()}.", exc_info=e)
                next_delay_ms = next_delete_delay_ms()
        except Exception as e:
            self._logger.error("Exception in kafka-delete-logs thread.", exc_info=e)
        finally:
            try:
                self._scheduler.schedule_once("kafka-delete-logs", self._delete_logs, next_delay_ms)
            except Exception as e:
                # only once the scheduler is shut down
                self._logger.error("Failed to schedule next delete in kafka-delete-logs thread", exc_info=e)

    def recover_abandoned_future_logs(self, broker_id: int, new_topics_image: Any) -> None:
        """Future logs the metadata image already places in their dir become the current logs."""
        abandoned_future_logs = self._find_abandoned_future_logs(broker_id, new_topics_image)
        for future_log, current_log in abandoned_future_logs:
            tp = future_log.topic_partition()
            # replace_current_with_future_log resumes cleaning, which needs the cleaner to know the partition
            self.abort_and_pause_cleaning(tp)

            if current_log is not None:
                self._logger.info(f"Attempting to recover abandoned future log for {tp} at {future_log} and removing "
                                  f"{current_log}")
            else:
                self._logger.info(f"Attempting to recover abandoned future log for {tp} at {future_log}")
            self.replace_current_with_future_log(current_log, future_log)
            self._logger.info(f"Successfully recovered abandoned future log for {tp}")

    def _find_abandoned_future_logs(self, broker_id: int, new_topics_image: Any
                                    ) -> list[tuple[UnifiedLog, UnifiedLog | None]]:
        result: list[tuple[UnifiedLog, UnifiedLog | None]] = []
        for future_log in list(self._future_logs.values()):
            topic_id = future_log.topic_id()
            if topic_id is None:
                raise RuntimeError(f"The log dir {future_log} does not have a topic ID, which is not allowed when "
                                   "running in KRaft mode.")
            partition_id = future_log.topic_partition().partition
            pr = new_topics_image.get_partition(_image_uuid(topic_id), partition_id)
            if pr is None:
                continue
            dir_id = self.directory_id(future_log.parent_dir())
            if dir_id is None or _image_uuid(dir_id) != pr.directory(broker_id):
                continue
            current_log = self._current_logs.get(future_log.topic_partition())
            if current_log is not None and current_log.topic_id() != topic_id:
                current_log = None
            result.append((future_log, current_log))
        return result

    def replace_current_with_future_log(self, source_log_or_topic_partition: UnifiedLog | TopicPartition | None,
                                        dest_log: UnifiedLog | None = None, update_high_watermark: bool = False
                                        ) -> None:
        """Kafka's two overloads: with a TopicPartition, swap its current and future logs (the current one is
        deleted); with (sourceLog option, destLog), rename the future log into place."""
        if isinstance(source_log_or_topic_partition, TopicPartition):
            topic_partition = source_log_or_topic_partition
            with self._log_creation_or_deletion_lock:
                source_log = self._current_logs.get(topic_partition)
                future = self._future_logs.get(topic_partition)

                if source_log is None:
                    raise KafkaStorageException(f"The current replica for {topic_partition} is offline")
                if future is None:
                    raise KafkaStorageException(f"The future replica for {topic_partition} is offline")

                self._logger.info(f"Attempting to replace current log {source_log} with {future} for "
                                  f"{topic_partition}")
                self._replace_current_with_future_log(source_log, future, update_high_watermark=True)
                self._logger.info(f"The current replica is successfully replaced with the future replica for "
                                  f"{topic_partition}")
            return
        assert dest_log is not None
        self._replace_current_with_future_log(source_log_or_topic_partition, dest_log, update_high_watermark)

    def _replace_current_with_future_log(self, source_log: UnifiedLog | None, dest_log: UnifiedLog,
                                         update_high_watermark: bool = False) -> None:
        topic_partition = dest_log.topic_partition()

        dest_log.rename_dir(unified_log.log_dir_name(topic_partition), should_reinitialize=True)
        # the metrics' tags still say "future": removed here, added back once the source log's are gone
        dest_log.remove_log_metrics()
        if update_high_watermark and source_log is not None:
            dest_log.update_high_watermark(source_log.high_watermark())

        # the future log is the current one now: the maps and the cleaner follow
        self._future_logs.pop(topic_partition, None)
        self._current_logs[topic_partition] = dest_log
        cleaner = self.cleaner()
        if cleaner is not None:
            if source_log is not None:
                cleaner.alter_checkpoint_dir(topic_partition, source_log.parent_dir_file(),
                                             dest_log.parent_dir_file())
            self._resume_cleaning(topic_partition)

        try:
            if source_log is not None:
                source_log.rename_dir(unified_log.log_delete_dir_name(topic_partition), should_reinitialize=True)
                # renamed for deletion: close it, checkpoint its dir, and queue it for deletion
                source_log.close()
                log_dir = source_log.parent_dir_file()
                logs_to_checkpoint = self._logs_in_dir(self._logs_by_dir(), log_dir)
                self._checkpoint_recovery_offsets_in_dir(log_dir, logs_to_checkpoint)
                self._checkpoint_log_start_offsets_in_dir(log_dir, logs_to_checkpoint)
                source_log.remove_log_metrics()
                self._add_log_to_be_deleted(source_log)
            # destLog.newMetrics(): metrics are not ported
        except KafkaStorageException:
            # the source log's dir is offline: handle_log_dir_failure will not close it (it left currentLogs)
            if source_log is not None:
                source_log.close_handlers()
                source_log.remove_log_metrics()
            raise

    def async_delete(self, topic_partition: TopicPartition, is_future: bool = False, checkpoint: bool = True,
                     is_stray: bool = False) -> UnifiedLog | None:
        """Rename the partition's dir to `<topic>-<partition>.<uuid>-delete` (or `-stray`, kept) and queue it for
        deletion; the removed log, or None."""
        with self._log_creation_or_deletion_lock:
            removed_log = self._remove_log_and_metrics(self._future_logs if is_future else self._current_logs,
                                                       topic_partition)
        if removed_log is not None:
            # no cleaning may be running on a log about to be deleted
            cleaner = self.cleaner()
            if cleaner is not None and not is_future:
                cleaner.abort_cleaning(topic_partition)
                if checkpoint:
                    cleaner.update_checkpoints(removed_log.parent_dir_file(),
                                               partition_to_remove=topic_partition)
            if is_stray:
                # stray partitions are moved aside, not deleted
                removed_log.rename_dir(unified_log.log_stray_dir_name(topic_partition), should_reinitialize=False)
                self._logger.warning(f"Log for partition {removed_log.topic_partition()} is marked as stray and "
                                     f"renamed to {removed_log.dir().absolute()}")
            else:
                removed_log.rename_dir(unified_log.log_delete_dir_name(topic_partition), should_reinitialize=False)
                self._add_log_to_be_deleted(removed_log)
                self._logger.info(f"Log for partition {removed_log.topic_partition()} is renamed to "
                                  f"{removed_log.dir().absolute()} and is scheduled for deletion")
            if checkpoint:
                log_dir = removed_log.parent_dir_file()
                logs_to_checkpoint = self._logs_in_dir(self._logs_by_dir(), log_dir)
                self._checkpoint_recovery_offsets_in_dir(log_dir, logs_to_checkpoint)
                self._checkpoint_log_start_offsets_in_dir(log_dir, logs_to_checkpoint)
        elif self._offline_log_dirs():
            raise KafkaStorageException(
                f"Failed to delete log for {'future' if is_future else ''} {topic_partition} because it may be in "
                f"one of the offline directories {','.join(str(d) for d in self._offline_log_dirs())}")

        return removed_log

    def async_delete_all(self, topic_partitions: Iterable[TopicPartition], is_stray: bool,
                         error_handler: Callable[[TopicPartition, BaseException], None]) -> None:
        """asyncDelete(topicPartitions, isStray, errorHandler): rename every dir, then checkpoint each affected
        dir once."""
        log_dirs: dict[Path, None] = {}

        for topic_partition in topic_partitions:
            try:
                log = self.get_log(topic_partition)
                if log is not None:
                    log_dirs[log.parent_dir_file()] = None
                    self.async_delete(topic_partition, checkpoint=False, is_stray=is_stray)
                future = self.get_log(topic_partition, is_future=True)
                if future is not None:
                    log_dirs[future.parent_dir_file()] = None
                    self.async_delete(topic_partition, is_future=True, checkpoint=False, is_stray=is_stray)
            except Exception as e:
                error_handler(topic_partition, e)

        logs_by_dir_cached = self._logs_by_dir()
        for log_dir in log_dirs:
            cleaner = self.cleaner()
            if cleaner is not None:
                cleaner.update_checkpoints(log_dir)
            logs_to_checkpoint = self._logs_in_dir(logs_by_dir_cached, log_dir)
            self._checkpoint_recovery_offsets_in_dir(log_dir, logs_to_checkpoint)
            self._checkpoint_log_start_offsets_in_dir(log_dir, logs_to_checkpoint)

    def _next_log_dirs(self) -> list[Path]:
        """The live dirs, those holding the fewest logs first."""
        if len(self._live_log_dirs) == 1:
            return [self._live_log_dirs[0]]
        # 0 for the dirs without logs
        dir_counts: dict[str, int] = {str(dir): 0 for dir in self._live_log_dirs}
        for log in self.all_logs():
            dir_counts[log.parent_dir()] = dir_counts.get(log.parent_dir(), 0) + 1
        return [Path(path) for path, _ in sorted(dir_counts.items(), key=lambda item: item[1])]

    def _cleanup_logs(self) -> None:
        """Retention: delete the eligible segments of the logs not compacted (the cleaner handles those)."""
        self._logger.debug("Beginning log cleanup...")
        total = 0
        start_ms = self._time.milliseconds()

        # the current logs
        cleaner = self.cleaner()
        if cleaner is not None:
            # the cleaner must not work on these while the cleanup policy may be changing
            deletable_logs = list(cleaner.pause_cleaning_for_non_compacted_partitions())
        else:
            deletable_logs = [(tp, log) for tp, log in list(self._current_logs.items()) if not log.config().compact]

        try:
            for topic_partition, log in deletable_logs:
                self._logger.debug(f"Garbage collecting '{log.name()}'")
                total += log.delete_old_segments()

                future_log = self._future_logs.get(topic_partition)
                if future_log is not None:
                    # the future logs
                    self._logger.debug(f"Garbage collecting future log '{future_log.name()}'")
                    total += future_log.delete_old_segments()
        finally:
            if cleaner is not None:
                cleaner.resume_cleaning([tp for tp, _ in deletable_logs])

        self._logger.debug(f"Log cleanup completed. {total} files deleted in "
                           f"{(self._time.milliseconds() - start_ms) // 1000} seconds")

    def all_logs(self) -> list[UnifiedLog]:
        """Every partition log, current and future."""
        return list(self._current_logs.values()) + list(self._future_logs.values())

    def logs_by_topic(self, topic: str) -> list[UnifiedLog]:
        return [log for tp, log in list(self._current_logs.items()) + list(self._future_logs.items())
                if tp.topic == topic]

    def _logs_by_dir(self) -> dict[str, dict[TopicPartition, UnifiedLog]]:
        """Log dir -> its logs by partition."""
        by_dir: dict[str, dict[TopicPartition, UnifiedLog]] = {}
        for tp, log in list(self._current_logs.items()) + list(self._future_logs.items()):
            by_dir.setdefault(log.parent_dir(), {})[tp] = log
        return by_dir

    @staticmethod
    def _logs_in_dir(cached_logs_by_dir: Mapping[str, Mapping[TopicPartition, UnifiedLog]], dir: Path
                     ) -> Mapping[TopicPartition, UnifiedLog]:
        return cached_logs_by_dir.get(str(dir.absolute()), {})

    def is_log_dir_online(self, log_dir: str) -> bool:
        """Whether a configured log dir (an absolute path) is online; LogDirNotFoundException if not configured."""
        if not any(str(d.absolute()) == log_dir for d in self._log_dirs):
            raise LogDirNotFoundException(f"Log dir {log_dir} is not found in the config.")
        return Path(log_dir) in self._live_log_dirs

    def _flush_dirty_logs(self) -> None:
        """Flush every log whose flush.ms has passed since its last flush."""
        self._logger.debug("Checking for dirty logs to flush...")

        for topic_partition, log in list(self._current_logs.items()) + list(self._future_logs.items()):
            try:
                time_since_last_flush = self._time.milliseconds() - log.last_flush_time()
                self._logger.debug(f"Checking if flush is needed on {topic_partition.topic} flush interval "
                                   f"{log.config().flush_ms} last flushed {log.last_flush_time()} time since last "
                                   f"flush: {time_since_last_flush}")
                if time_since_last_flush >= log.config().flush_ms:
                    log.flush(False)
            except Exception as e:
                self._logger.error(f"Error flushing topic {topic_partition.topic}", exc_info=e)

    def _remove_log_and_metrics(self, logs: dict[TopicPartition, UnifiedLog], tp: TopicPartition
                                ) -> UnifiedLog | None:
        removed_log = logs.pop(tp, None)
        if removed_log is not None:
            removed_log.remove_log_metrics()
        return removed_log

    def read_broker_epoch_from_clean_shutdown_files(self) -> int | None:
        """The broker epoch every live dir's clean shutdown file agrees on (OptionalLong); None if a dir is
        offline, has no readable file, or disagrees."""
        if len(self.live_log_dirs()) < len(self._log_dirs):
            return None
        broker_epoch = -1
        for dir in self.live_log_dirs():
            clean_shutdown_file_handler = CleanShutdownFileHandler(dir)
            current_broker_epoch = clean_shutdown_file_handler.read()
            if current_broker_epoch is None:
                self._logger.info(f"Unable to read the broker epoch in {dir}.")
                return None
            if broker_epoch != -1 and current_broker_epoch != broker_epoch:
                self._logger.info(f"Found different broker epochs in {dir}. Other={broker_epoch} vs "
                                  f"current={current_broker_epoch}.")
                return None
            broker_epoch = current_broker_epoch
        return broker_epoch


def _overridden_configs_as_loggable_string(config: LogConfig) -> str:
    """LogConfig.overriddenConfigsAsLoggableString (password-typed configs would be hidden: a log has none)."""
    return "{" + ", ".join(f"{k}={v}" for k, v in sorted(config.props.items())
                           if k in config.overridden_configs) + "}"


def _image_uuid(id: Uuid) -> _py_uuid.UUID:
    """The metadata image keys topics and directories by Python UUIDs."""
    return _py_uuid.UUID(bytes=id.to_bytes())


def wait_for_all_to_complete(jobs: Sequence[Any], callback: Callable[[BaseException], None]) -> bool:
    """Wait for every job (anything with Future's get/result); each failure goes to `callback`. True if none
    failed."""
    failures = 0
    for future in jobs:
        try:
            if hasattr(future, "result"):
                future.result()
            else:
                future.get()
        except Exception as e:
            callback(e)
            failures += 1
    return failures == 0


def apply(config: Any, initial_offline_dirs: Sequence[str], config_repository: ConfigRepository,
          kafka_scheduler: Scheduler, time: Time, broker_topic_stats: Any,
          log_dir_failure_channel: LogDirFailureChannel, keep_partition_metadata_file: bool) -> LogManager:
    """LogManager.apply: a log manager from the broker's KafkaConfig (tiered storage is not ported: the remote
    storage system is off)."""
    default_props = config.extract_log_config_map()
    default_log_config = LogConfig(default_props)

    cleaner_config = log_cleaner.cleaner_config(config)

    return LogManager(
        log_dirs=[Path(d).absolute() for d in config.log_dirs],
        initial_offline_dirs=[Path(d).absolute() for d in initial_offline_dirs],
        config_repository=config_repository,
        initial_default_config=default_log_config,
        cleaner_config=cleaner_config,
        recovery_threads_per_data_dir=config.num_recovery_threads_per_data_dir(),
        flush_check_ms=config.log_flush_scheduler_interval_ms,
        flush_recovery_offset_checkpoint_ms=config.log_flush_offset_checkpoint_interval_ms,
        flush_start_offset_checkpoint_ms=config.log_flush_start_offset_checkpoint_interval_ms,
        retention_check_ms=config.log_cleanup_interval_ms,
        max_transaction_timeout_ms=config.transaction_max_timeout_ms,
        producer_state_manager_config=ProducerStateManagerConfig(config.producer_id_expiration_ms(),
                                                                 config.transaction_partition_verification_enable()),
        producer_id_expiration_check_interval_ms=config.producer_id_expiration_check_interval_ms,
        scheduler=kafka_scheduler,
        broker_topic_stats=broker_topic_stats,
        log_dir_failure_channel=log_dir_failure_channel,
        time=time,
        keep_partition_metadata_file=keep_partition_metadata_file,
        inter_broker_protocol_version=config.inter_broker_protocol_version,
        remote_storage_system_enable=False,
        initial_task_delay_ms=config.log_initial_task_delay_ms())


def is_stray_kraft_replica(broker_id: int, new_topics_image: Any, log: UnifiedLog) -> bool:
    """Whether the metadata image says this log should not be on this broker."""
    if log.topic_id() is None:
        # partition.metadata is flushed before the first append, so a log without a topic id holds no data:
        # it was created just before a storage failure or an unclean shutdown, and is treated as stray
        _companion_logger.info(f"The topicId does not exist in {log}, treat it as a stray log")
        return True

    topic_id = log.topic_id()
    assert topic_id is not None
    partition_id = log.topic_partition().partition
    partition = new_topics_image.get_partition(_image_uuid(topic_id), partition_id)
    if partition is not None:
        if broker_id not in partition.replicas:
            _companion_logger.info(f"Found stray log dir {log}: the current replica assignment "
                                   f"[{', '.join(str(r) for r in partition.replicas)}] does not contain the local "
                                   f"brokerId {broker_id}.")
            return True
        return False
    _companion_logger.info(f"Found stray log dir {log}: the topicId {topic_id} does not exist in the metadata image")
    return True
