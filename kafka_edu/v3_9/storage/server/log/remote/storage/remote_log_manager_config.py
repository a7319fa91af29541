"""Port of storage/src/main/java/org/apache/kafka/server/log/remote/storage/RemoteLogManagerConfig.java (Kafka 3.9):
the tiered-storage keys of a broker's configuration, and the accessors over them.

Tiered storage is not ported: the keys are defined so a broker's properties are read (and refused) as 3.9 reads
them, and so the broker's log.local.retention.* defaults reach the topic configs; nothing acts on them."""

from __future__ import annotations

from typing import Any

from kafka_edu.v3_9.clients.common.config.config_def import (
    AbstractConfig,
    ConfigDef,
    ConfigException,
    NonEmptyString,
    Range,
    Type,
)

LONG_MAX = 2**63 - 1

REMOTE_STORAGE_MANAGER_CONFIG_PREFIX_PROP = "remote.log.storage.manager.impl.prefix"
DEFAULT_REMOTE_STORAGE_MANAGER_CONFIG_PREFIX = "rsm.config."
REMOTE_LOG_METADATA_MANAGER_CONFIG_PREFIX_PROP = "remote.log.metadata.manager.impl.prefix"
DEFAULT_REMOTE_LOG_METADATA_MANAGER_CONFIG_PREFIX = "rlmm.config."
REMOTE_LOG_STORAGE_SYSTEM_ENABLE_PROP = "remote.log.storage.system.enable"
DEFAULT_REMOTE_LOG_STORAGE_SYSTEM_ENABLE = False
REMOTE_STORAGE_MANAGER_CLASS_NAME_PROP = "remote.log.storage.manager.class.name"
REMOTE_STORAGE_MANAGER_CLASS_PATH_PROP = "remote.log.storage.manager.class.path"
REMOTE_LOG_METADATA_MANAGER_CLASS_NAME_PROP = "remote.log.metadata.manager.class.name"
DEFAULT_REMOTE_LOG_METADATA_MANAGER_CLASS_NAME = (
    "org.apache.kafka.server.log.remote.metadata.storage.TopicBasedRemoteLogMetadataManager")
REMOTE_LOG_METADATA_MANAGER_CLASS_PATH_PROP = "remote.log.metadata.manager.class.path"
REMOTE_LOG_METADATA_MANAGER_LISTENER_NAME_PROP = "remote.log.metadata.manager.listener.name"
REMOTE_LOG_METADATA_CUSTOM_METADATA_MAX_BYTES_PROP = "remote.log.metadata.custom.metadata.max.bytes"
DEFAULT_REMOTE_LOG_METADATA_CUSTOM_METADATA_MAX_BYTES = 128
REMOTE_LOG_INDEX_FILE_CACHE_TOTAL_SIZE_BYTES_PROP = "remote.log.index.file.cache.total.size.bytes"
DEFAULT_REMOTE_LOG_INDEX_FILE_CACHE_TOTAL_SIZE_BYTES = 1024 * 1024 * 1024
REMOTE_LOG_MANAGER_THREAD_POOL_SIZE_PROP = "remote.log.manager.thread.pool.size"
DEFAULT_REMOTE_LOG_MANAGER_THREAD_POOL_SIZE = 10
REMOTE_LOG_MANAGER_COPIER_THREAD_POOL_SIZE_PROP = "remote.log.manager.copier.thread.pool.size"
DEFAULT_REMOTE_LOG_MANAGER_COPIER_THREAD_POOL_SIZE = -1
REMOTE_LOG_MANAGER_EXPIRATION_THREAD_POOL_SIZE_PROP = "remote.log.manager.expiration.thread.pool.size"
DEFAULT_REMOTE_LOG_MANAGER_EXPIRATION_THREAD_POOL_SIZE = -1
REMOTE_LOG_MANAGER_TASK_INTERVAL_MS_PROP = "remote.log.manager.task.interval.ms"
DEFAULT_REMOTE_LOG_MANAGER_TASK_INTERVAL_MS = 30 * 1000
REMOTE_LOG_MANAGER_TASK_RETRY_BACK_OFF_MS_PROP = "remote.log.manager.task.retry.backoff.ms"
DEFAULT_REMOTE_LOG_MANAGER_TASK_RETRY_BACK_OFF_MS = 500
REMOTE_LOG_MANAGER_TASK_RETRY_BACK_OFF_MAX_MS_PROP = "remote.log.manager.task.retry.backoff.max.ms"
DEFAULT_REMOTE_LOG_MANAGER_TASK_RETRY_BACK_OFF_MAX_MS = 30 * 1000
REMOTE_LOG_MANAGER_TASK_RETRY_JITTER_PROP = "remote.log.manager.task.retry.jitter"
DEFAULT_REMOTE_LOG_MANAGER_TASK_RETRY_JITTER = 0.2
REMOTE_LOG_READER_THREADS_PROP = "remote.log.reader.threads"
DEFAULT_REMOTE_LOG_READER_THREADS = 10
REMOTE_LOG_READER_MAX_PENDING_TASKS_PROP = "remote.log.reader.max.pending.tasks"
DEFAULT_REMOTE_LOG_READER_MAX_PENDING_TASKS = 100
LOG_LOCAL_RETENTION_MS_PROP = "log.local.retention.ms"
DEFAULT_LOG_LOCAL_RETENTION_MS = -2  # -2: the value of log.retention.ms
LOG_LOCAL_RETENTION_BYTES_PROP = "log.local.retention.bytes"
DEFAULT_LOG_LOCAL_RETENTION_BYTES = -2  # -2: the value of log.retention.bytes
REMOTE_LOG_MANAGER_COPY_MAX_BYTES_PER_SECOND_PROP = "remote.log.manager.copy.max.bytes.per.second"
DEFAULT_REMOTE_LOG_MANAGER_COPY_MAX_BYTES_PER_SECOND = LONG_MAX
REMOTE_LOG_MANAGER_COPY_QUOTA_WINDOW_NUM_PROP = "remote.log.manager.copy.quota.window.num"
DEFAULT_REMOTE_LOG_MANAGER_COPY_QUOTA_WINDOW_NUM = 11
REMOTE_LOG_MANAGER_COPY_QUOTA_WINDOW_SIZE_SECONDS_PROP = "remote.log.manager.copy.quota.window.size.seconds"
DEFAULT_REMOTE_LOG_MANAGER_COPY_QUOTA_WINDOW_SIZE_SECONDS = 1
REMOTE_LOG_MANAGER_FETCH_MAX_BYTES_PER_SECOND_PROP = "remote.log.manager.fetch.max.bytes.per.second"
DEFAULT_REMOTE_LOG_MANAGER_FETCH_MAX_BYTES_PER_SECOND = LONG_MAX
REMOTE_LOG_MANAGER_FETCH_QUOTA_WINDOW_NUM_PROP = "remote.log.manager.fetch.quota.window.num"
DEFAULT_REMOTE_LOG_MANAGER_FETCH_QUOTA_WINDOW_NUM = 11
REMOTE_LOG_MANAGER_FETCH_QUOTA_WINDOW_SIZE_SECONDS_PROP = "remote.log.manager.fetch.quota.window.size.seconds"
DEFAULT_REMOTE_LOG_MANAGER_FETCH_QUOTA_WINDOW_SIZE_SECONDS = 1
REMOTE_FETCH_MAX_WAIT_MS_PROP = "remote.fetch.max.wait.ms"
DEFAULT_REMOTE_FETCH_MAX_WAIT_MS = 500


def _remote_log_manager_thread_pool_size_validator(name: str, value: Any) -> None:
    """-1 (fall back to remote.log.manager.thread.pool.size) or a positive size."""
    if value < -1 or value == 0:
        raise ConfigException(name, value, "Value can be -1 or greater than 0")


def config_def() -> ConfigDef:
    return (
        ConfigDef()
        .define(REMOTE_LOG_STORAGE_SYSTEM_ENABLE_PROP, Type.BOOLEAN, DEFAULT_REMOTE_LOG_STORAGE_SYSTEM_ENABLE)
        .define(REMOTE_STORAGE_MANAGER_CONFIG_PREFIX_PROP, Type.STRING, DEFAULT_REMOTE_STORAGE_MANAGER_CONFIG_PREFIX,
                NonEmptyString())
        .define(REMOTE_LOG_METADATA_MANAGER_CONFIG_PREFIX_PROP, Type.STRING,
                DEFAULT_REMOTE_LOG_METADATA_MANAGER_CONFIG_PREFIX, NonEmptyString())
        .define(REMOTE_STORAGE_MANAGER_CLASS_NAME_PROP, Type.STRING, None, NonEmptyString())
        .define(REMOTE_STORAGE_MANAGER_CLASS_PATH_PROP, Type.STRING, None)
        .define(REMOTE_LOG_METADATA_MANAGER_CLASS_NAME_PROP, Type.STRING,
                DEFAULT_REMOTE_LOG_METADATA_MANAGER_CLASS_NAME, NonEmptyString())
        .define(REMOTE_LOG_METADATA_MANAGER_CLASS_PATH_PROP, Type.STRING, None)
        .define(REMOTE_LOG_METADATA_MANAGER_LISTENER_NAME_PROP, Type.STRING, None, NonEmptyString())
        .define(REMOTE_LOG_METADATA_CUSTOM_METADATA_MAX_BYTES_PROP, Type.INT,
                DEFAULT_REMOTE_LOG_METADATA_CUSTOM_METADATA_MAX_BYTES, Range.at_least(0))
        .define(REMOTE_LOG_INDEX_FILE_CACHE_TOTAL_SIZE_BYTES_PROP, Type.LONG,
                DEFAULT_REMOTE_LOG_INDEX_FILE_CACHE_TOTAL_SIZE_BYTES, Range.at_least(1))
        .define(REMOTE_LOG_MANAGER_THREAD_POOL_SIZE_PROP, Type.INT, DEFAULT_REMOTE_LOG_MANAGER_THREAD_POOL_SIZE,
                Range.at_least(1))
        .define(REMOTE_LOG_MANAGER_COPIER_THREAD_POOL_SIZE_PROP, Type.INT,
                DEFAULT_REMOTE_LOG_MANAGER_COPIER_THREAD_POOL_SIZE, _remote_log_manager_thread_pool_size_validator)
        .define(REMOTE_LOG_MANAGER_EXPIRATION_THREAD_POOL_SIZE_PROP, Type.INT,
                DEFAULT_REMOTE_LOG_MANAGER_EXPIRATION_THREAD_POOL_SIZE, _remote_log_manager_thread_pool_size_validator)
        .define(REMOTE_LOG_MANAGER_TASK_INTERVAL_MS_PROP, Type.LONG, DEFAULT_REMOTE_LOG_MANAGER_TASK_INTERVAL_MS,
                Range.at_least(1))
        .define_internal(REMOTE_LOG_MANAGER_TASK_RETRY_BACK_OFF_MS_PROP, Type.LONG,
                         DEFAULT_REMOTE_LOG_MANAGER_TASK_RETRY_BACK_OFF_MS, Range.at_least(1))
        .define_internal(REMOTE_LOG_MANAGER_TASK_RETRY_BACK_OFF_MAX_MS_PROP, Type.LONG,
                         DEFAULT_REMOTE_LOG_MANAGER_TASK_RETRY_BACK_OFF_MAX_MS, Range.at_least(1))
        .define_internal(REMOTE_LOG_MANAGER_TASK_RETRY_JITTER_PROP, Type.DOUBLE,
                         DEFAULT_REMOTE_LOG_MANAGER_TASK_RETRY_JITTER, Range.between(0, 0.5))
        .define(REMOTE_LOG_READER_THREADS_PROP, Type.INT, DEFAULT_REMOTE_LOG_READER_THREADS, Range.at_least(1))
        .define(REMOTE_LOG_READER_MAX_PENDING_TASKS_PROP, Type.INT, DEFAULT_REMOTE_LOG_READER_MAX_PENDING_TASKS,
                Range.at_least(1))
        .define(LOG_LOCAL_RETENTION_MS_PROP, Type.LONG, DEFAULT_LOG_LOCAL_RETENTION_MS,
                Range.at_least(DEFAULT_LOG_LOCAL_RETENTION_MS))
        .define(LOG_LOCAL_RETENTION_BYTES_PROP, Type.LONG, DEFAULT_LOG_LOCAL_RETENTION_BYTES,
                Range.at_least(DEFAULT_LOG_LOCAL_RETENTION_BYTES))
        .define(REMOTE_LOG_MANAGER_COPY_MAX_BYTES_PER_SECOND_PROP, Type.LONG,
                DEFAULT_REMOTE_LOG_MANAGER_COPY_MAX_BYTES_PER_SECOND, Range.at_least(1))
        .define(REMOTE_LOG_MANAGER_COPY_QUOTA_WINDOW_NUM_PROP, Type.INT,
                DEFAULT_REMOTE_LOG_MANAGER_COPY_QUOTA_WINDOW_NUM, Range.at_least(1))
        .define(REMOTE_LOG_MANAGER_COPY_QUOTA_WINDOW_SIZE_SECONDS_PROP, Type.INT,
                DEFAULT_REMOTE_LOG_MANAGER_COPY_QUOTA_WINDOW_SIZE_SECONDS, Range.at_least(1))
        .define(REMOTE_LOG_MANAGER_FETCH_MAX_BYTES_PER_SECOND_PROP, Type.LONG,
                DEFAULT_REMOTE_LOG_MANAGER_FETCH_MAX_BYTES_PER_SECOND, Range.at_least(1))
        .define(REMOTE_LOG_MANAGER_FETCH_QUOTA_WINDOW_NUM_PROP, Type.INT,
                DEFAULT_REMOTE_LOG_MANAGER_FETCH_QUOTA_WINDOW_NUM, Range.at_least(1))
        .define(REMOTE_LOG_MANAGER_FETCH_QUOTA_WINDOW_SIZE_SECONDS_PROP, Type.INT,
                DEFAULT_REMOTE_LOG_MANAGER_FETCH_QUOTA_WINDOW_SIZE_SECONDS, Range.at_least(1))
        .define(REMOTE_FETCH_MAX_WAIT_MS_PROP, Type.INT, DEFAULT_REMOTE_FETCH_MAX_WAIT_MS, Range.at_least(1))
    )


class RemoteLogManagerConfig:
    """Read-through accessors: each call reads the config it was built on (KafkaConfig's current one)."""

    def __init__(self, config: AbstractConfig) -> None:
        self._config = config

    def is_remote_storage_system_enabled(self) -> bool:
        return self._config.get_boolean(REMOTE_LOG_STORAGE_SYSTEM_ENABLE_PROP)

    def remote_storage_manager_class_name(self) -> str | None:
        return self._config.get_string(REMOTE_STORAGE_MANAGER_CLASS_NAME_PROP)

    def remote_storage_manager_class_path(self) -> str | None:
        return self._config.get_string(REMOTE_STORAGE_MANAGER_CLASS_PATH_PROP)

    def remote_log_metadata_manager_class_name(self) -> str:
        return self._config.get_string(REMOTE_LOG_METADATA_MANAGER_CLASS_NAME_PROP)

    def remote_log_metadata_manager_class_path(self) -> str | None:
        return self._config.get_string(REMOTE_LOG_METADATA_MANAGER_CLASS_PATH_PROP)

    def remote_log_manager_thread_pool_size(self) -> int:
        return self._config.get_int(REMOTE_LOG_MANAGER_THREAD_POOL_SIZE_PROP)

    def remote_log_manager_copier_thread_pool_size(self) -> int:
        size = self._config.get_int(REMOTE_LOG_MANAGER_COPIER_THREAD_POOL_SIZE_PROP)
        return self.remote_log_manager_thread_pool_size() if size == -1 else size

    def remote_log_manager_expiration_thread_pool_size(self) -> int:
        size = self._config.get_int(REMOTE_LOG_MANAGER_EXPIRATION_THREAD_POOL_SIZE_PROP)
        return self.remote_log_manager_thread_pool_size() if size == -1 else size

    def remote_log_manager_task_interval_ms(self) -> int:
        return self._config.get_long(REMOTE_LOG_MANAGER_TASK_INTERVAL_MS_PROP)

    def remote_log_manager_task_retry_backoff_ms(self) -> int:
        return self._config.get_long(REMOTE_LOG_MANAGER_TASK_RETRY_BACK_OFF_MS_PROP)

    def remote_log_manager_task_retry_backoff_max_ms(self) -> int:
        return self._config.get_long(REMOTE_LOG_MANAGER_TASK_RETRY_BACK_OFF_MAX_MS_PROP)

    def remote_log_manager_task_retry_jitter(self) -> float:
        return self._config.get_double(REMOTE_LOG_MANAGER_TASK_RETRY_JITTER_PROP)

    def remote_log_reader_threads(self) -> int:
        return self._config.get_int(REMOTE_LOG_READER_THREADS_PROP)

    def remote_log_reader_max_pending_tasks(self) -> int:
        return self._config.get_int(REMOTE_LOG_READER_MAX_PENDING_TASKS_PROP)

    def remote_log_metadata_manager_listener_name(self) -> str | None:
        return self._config.get_string(REMOTE_LOG_METADATA_MANAGER_LISTENER_NAME_PROP)

    def remote_log_metadata_custom_metadata_max_bytes(self) -> int:
        return self._config.get_int(REMOTE_LOG_METADATA_CUSTOM_METADATA_MAX_BYTES_PROP)

    def remote_storage_manager_prefix(self) -> str:
        return self._config.get_string(REMOTE_STORAGE_MANAGER_CONFIG_PREFIX_PROP)

    def remote_log_metadata_manager_prefix(self) -> str:
        return self._config.get_string(REMOTE_LOG_METADATA_MANAGER_CONFIG_PREFIX_PROP)

    def remote_storage_manager_props(self) -> dict[str, Any]:
        return self.get_config_props(REMOTE_STORAGE_MANAGER_CONFIG_PREFIX_PROP)

    def remote_log_metadata_manager_props(self) -> dict[str, Any]:
        return self.get_config_props(REMOTE_LOG_METADATA_MANAGER_CONFIG_PREFIX_PROP)

    def get_config_props(self, config_prefix_prop: str) -> dict[str, Any]:
        prefix_prop = self._config.get_string(config_prefix_prop)
        return {} if prefix_prop is None else self._config.originals_with_prefix(prefix_prop)

    def remote_log_manager_copy_num_quota_samples(self) -> int:
        return self._config.get_int(REMOTE_LOG_MANAGER_COPY_QUOTA_WINDOW_NUM_PROP)

    def remote_log_manager_copy_quota_window_size_seconds(self) -> int:
        return self._config.get_int(REMOTE_LOG_MANAGER_COPY_QUOTA_WINDOW_SIZE_SECONDS_PROP)

    def remote_log_manager_fetch_num_quota_samples(self) -> int:
        return self._config.get_int(REMOTE_LOG_MANAGER_FETCH_QUOTA_WINDOW_NUM_PROP)

    def remote_log_manager_fetch_quota_window_size_seconds(self) -> int:
        return self._config.get_int(REMOTE_LOG_MANAGER_FETCH_QUOTA_WINDOW_SIZE_SECONDS_PROP)

    def remote_log_index_file_cache_total_size_bytes(self) -> int:
        return self._config.get_long(REMOTE_LOG_INDEX_FILE_CACHE_TOTAL_SIZE_BYTES_PROP)

    def remote_log_manager_copy_max_bytes_per_second(self) -> int:
        return self._config.get_long(REMOTE_LOG_MANAGER_COPY_MAX_BYTES_PER_SECOND_PROP)

    def remote_log_manager_fetch_max_bytes_per_second(self) -> int:
        return self._config.get_long(REMOTE_LOG_MANAGER_FETCH_MAX_BYTES_PER_SECOND_PROP)

    def remote_fetch_max_wait_ms(self) -> int:
        return self._config.get_int(REMOTE_FETCH_MAX_WAIT_MS_PROP)

    def log_local_retention_bytes(self) -> int:
        return self._config.get_long(LOG_LOCAL_RETENTION_BYTES_PROP)

    def log_local_retention_ms(self) -> int:
        return self._config.get_long(LOG_LOCAL_RETENTION_MS_PROP)
