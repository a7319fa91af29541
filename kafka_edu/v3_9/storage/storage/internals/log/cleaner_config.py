"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/CleanerConfig.java (Kafka 3.9), the broker
configs of the log cleaner: their names, defaults and definitions."""

from __future__ import annotations

import sys

from kafka_edu.v3_9.clients.common.config.config_def import ConfigDef, Range, Type
from kafka_edu.v3_9.server_common.server.config.server_topic_config_synonyms import LOG_CLEANER_PREFIX, server_synonym
from kafka_edu.v3_9.storage.storage.internals.log import log_config

HASH_ALGORITHM = "MD5"
LOG_CLEANER_THREADS = 1
LOG_CLEANER_IO_MAX_BYTES_PER_SECOND = sys.float_info.max  # Double.MAX_VALUE
LOG_CLEANER_DEDUPE_BUFFER_SIZE = 128 * 1024 * 1024
LOG_CLEANER_IO_BUFFER_SIZE = 512 * 1024
LOG_CLEANER_DEDUPE_BUFFER_LOAD_FACTOR = 0.9
LOG_CLEANER_BACKOFF_MS = 15 * 1000
LOG_CLEANER_ENABLE = True

LOG_CLEANER_THREADS_PROP = LOG_CLEANER_PREFIX + "threads"
LOG_CLEANER_IO_MAX_BYTES_PER_SECOND_PROP = LOG_CLEANER_PREFIX + "io.max.bytes.per.second"
LOG_CLEANER_DEDUPE_BUFFER_SIZE_PROP = LOG_CLEANER_PREFIX + "dedupe.buffer.size"
LOG_CLEANER_IO_BUFFER_SIZE_PROP = LOG_CLEANER_PREFIX + "io.buffer.size"
LOG_CLEANER_DEDUPE_BUFFER_LOAD_FACTOR_PROP = LOG_CLEANER_PREFIX + "io.buffer.load.factor"
LOG_CLEANER_BACKOFF_MS_PROP = LOG_CLEANER_PREFIX + "backoff.ms"
LOG_CLEANER_MIN_CLEAN_RATIO_PROP = server_synonym("min.cleanable.dirty.ratio")
LOG_CLEANER_ENABLE_PROP = LOG_CLEANER_PREFIX + "enable"
LOG_CLEANER_DELETE_RETENTION_MS_PROP = server_synonym("delete.retention.ms")
LOG_CLEANER_MIN_COMPACTION_LAG_MS_PROP = server_synonym("min.compaction.lag.ms")
LOG_CLEANER_MAX_COMPACTION_LAG_MS_PROP = server_synonym("max.compaction.lag.ms")

CONFIG_DEF = (
    ConfigDef()
    .define(LOG_CLEANER_THREADS_PROP, Type.INT, LOG_CLEANER_THREADS, Range.at_least(0))
    .define(LOG_CLEANER_IO_MAX_BYTES_PER_SECOND_PROP, Type.DOUBLE, LOG_CLEANER_IO_MAX_BYTES_PER_SECOND)
    .define(LOG_CLEANER_DEDUPE_BUFFER_SIZE_PROP, Type.LONG, LOG_CLEANER_DEDUPE_BUFFER_SIZE)
    .define(LOG_CLEANER_IO_BUFFER_SIZE_PROP, Type.INT, LOG_CLEANER_IO_BUFFER_SIZE, Range.at_least(0))
    .define(LOG_CLEANER_DEDUPE_BUFFER_LOAD_FACTOR_PROP, Type.DOUBLE, LOG_CLEANER_DEDUPE_BUFFER_LOAD_FACTOR)
    .define(LOG_CLEANER_BACKOFF_MS_PROP, Type.LONG, LOG_CLEANER_BACKOFF_MS, Range.at_least(0))
    .define(LOG_CLEANER_MIN_CLEAN_RATIO_PROP, Type.DOUBLE, log_config.DEFAULT_MIN_CLEANABLE_DIRTY_RATIO,
            Range.between(0, 1))
    .define(LOG_CLEANER_ENABLE_PROP, Type.BOOLEAN, LOG_CLEANER_ENABLE)
    .define(LOG_CLEANER_DELETE_RETENTION_MS_PROP, Type.LONG, log_config.DEFAULT_DELETE_RETENTION_MS, Range.at_least(0))
    .define(LOG_CLEANER_MIN_COMPACTION_LAG_MS_PROP, Type.LONG, log_config.DEFAULT_MIN_COMPACTION_LAG_MS,
            Range.at_least(0))
    .define(LOG_CLEANER_MAX_COMPACTION_LAG_MS_PROP, Type.LONG, log_config.DEFAULT_MAX_COMPACTION_LAG_MS,
            Range.at_least(1))
)


class CleanerConfig:
    """The settings one LogCleaner runs with. `CleanerConfig(enable_cleaner)` alone (Java's one-argument constructor)
    takes the small test defaults: a 4 MiB dedupe buffer, 1 MiB of I/O buffer."""

    def __init__(self, num_threads: int | bool = 1, dedupe_buffer_size: int = 4 * 1024 * 1024,
                 dedupe_buffer_load_factor: float = 0.9, io_buffer_size: int = 1024 * 1024,
                 max_message_size: int = 32 * 1024 * 1024,
                 max_io_bytes_per_second: float = LOG_CLEANER_IO_MAX_BYTES_PER_SECOND,
                 backoff_ms: int = 15 * 1000, enable_cleaner: bool = True) -> None:
        if isinstance(num_threads, bool):  # CleanerConfig(boolean enableCleaner)
            enable_cleaner, num_threads = num_threads, 1
        self.num_threads = num_threads
        self.dedupe_buffer_size = dedupe_buffer_size
        self.dedupe_buffer_load_factor = dedupe_buffer_load_factor
        self.io_buffer_size = io_buffer_size
        self.max_message_size = max_message_size
        self.max_io_bytes_per_second = max_io_bytes_per_second
        self.backoff_ms = backoff_ms
        self.enable_cleaner = enable_cleaner

    def hash_algorithm(self) -> str:
        return HASH_ALGORITHM
