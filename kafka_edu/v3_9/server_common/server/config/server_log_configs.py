"""Port of server-common/src/main/java/org/apache/kafka/server/config/ServerLogConfigs.java (Kafka 3.9): the names and
defaults of the broker's log configs (their definitions are LogConfig.SERVER_CONFIG_DEF, in storage)."""

from __future__ import annotations

from kafka_edu.v3_9.server_common.server.config.server_topic_config_synonyms import LOG_PREFIX, server_synonym

LONG_MAX = 2**63 - 1

NUM_PARTITIONS_CONFIG = "num.partitions"
NUM_PARTITIONS_DEFAULT = 1

LOG_DIRS_CONFIG = LOG_PREFIX + "dirs"
LOG_DIR_CONFIG = LOG_PREFIX + "dir"
LOG_DIR_DEFAULT = "/tmp/kafka-logs"

LOG_SEGMENT_BYTES_CONFIG = server_synonym("segment.bytes")

LOG_ROLL_TIME_MILLIS_CONFIG = server_synonym("segment.ms")
LOG_ROLL_TIME_HOURS_CONFIG = LOG_PREFIX + "roll.hours"

LOG_ROLL_TIME_JITTER_MILLIS_CONFIG = server_synonym("segment.jitter.ms")
LOG_ROLL_TIME_JITTER_HOURS_CONFIG = LOG_PREFIX + "roll.jitter.hours"

LOG_RETENTION_TIME_MILLIS_CONFIG = server_synonym("retention.ms")
LOG_RETENTION_TIME_MINUTES_CONFIG = LOG_PREFIX + "retention.minutes"
LOG_RETENTION_TIME_HOURS_CONFIG = LOG_PREFIX + "retention.hours"

LOG_RETENTION_BYTES_CONFIG = server_synonym("retention.bytes")
LOG_RETENTION_BYTES_DEFAULT = -1

LOG_CLEANUP_INTERVAL_MS_CONFIG = LOG_PREFIX + "retention.check.interval.ms"
LOG_CLEANUP_INTERVAL_MS_DEFAULT = 5 * 60 * 1000

LOG_CLEANUP_POLICY_CONFIG = server_synonym("cleanup.policy")
LOG_CLEANUP_POLICY_DEFAULT = "delete"

LOG_INDEX_SIZE_MAX_BYTES_CONFIG = server_synonym("segment.index.bytes")
LOG_INDEX_SIZE_MAX_BYTES_DEFAULT = 10 * 1024 * 1024

LOG_INDEX_INTERVAL_BYTES_CONFIG = server_synonym("index.interval.bytes")
LOG_INDEX_INTERVAL_BYTES_DEFAULT = 4096

LOG_FLUSH_INTERVAL_MESSAGES_CONFIG = server_synonym("flush.messages")
LOG_FLUSH_INTERVAL_MESSAGES_DEFAULT = LONG_MAX

LOG_DELETE_DELAY_MS_CONFIG = server_synonym("file.delete.delay.ms")
LOG_DELETE_DELAY_MS_DEFAULT = 60000

LOG_FLUSH_SCHEDULER_INTERVAL_MS_CONFIG = LOG_PREFIX + "flush.scheduler.interval.ms"
LOG_FLUSH_SCHEDULER_INTERVAL_MS_DEFAULT = LONG_MAX

LOG_FLUSH_INTERVAL_MS_CONFIG = server_synonym("flush.ms")

LOG_FLUSH_OFFSET_CHECKPOINT_INTERVAL_MS_CONFIG = LOG_PREFIX + "flush.offset.checkpoint.interval.ms"
LOG_FLUSH_OFFSET_CHECKPOINT_INTERVAL_MS_DEFAULT = 60000

LOG_FLUSH_START_OFFSET_CHECKPOINT_INTERVAL_MS_CONFIG = LOG_PREFIX + "flush.start.offset.checkpoint.interval.ms"
LOG_FLUSH_START_OFFSET_CHECKPOINT_INTERVAL_MS_DEFAULT = 60000

LOG_PRE_ALLOCATE_CONFIG = server_synonym("preallocate")

# deprecated since 3.0: ignored once the inter-broker protocol is 3.0 or newer
LOG_MESSAGE_FORMAT_VERSION_CONFIG = server_synonym("message.format.version")
LOG_MESSAGE_FORMAT_VERSION_DEFAULT = "3.0-IV1"

LOG_MESSAGE_TIMESTAMP_TYPE_CONFIG = server_synonym("message.timestamp.type")
LOG_MESSAGE_TIMESTAMP_TYPE_DEFAULT = "CreateTime"

# deprecated since 3.6 in favour of the before/after pair
LOG_MESSAGE_TIMESTAMP_DIFFERENCE_MAX_MS_CONFIG = server_synonym("message.timestamp.difference.max.ms")
LOG_MESSAGE_TIMESTAMP_DIFFERENCE_MAX_MS_DEFAULT = LONG_MAX

LOG_MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG = server_synonym("message.timestamp.before.max.ms")
LOG_MESSAGE_TIMESTAMP_BEFORE_MAX_MS_DEFAULT = LONG_MAX

LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG = server_synonym("message.timestamp.after.max.ms")
LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS_DEFAULT = LONG_MAX

NUM_RECOVERY_THREADS_PER_DATA_DIR_CONFIG = "num.recovery.threads.per.data.dir"
NUM_RECOVERY_THREADS_PER_DATA_DIR_DEFAULT = 1

AUTO_CREATE_TOPICS_ENABLE_CONFIG = "auto.create.topics.enable"
AUTO_CREATE_TOPICS_ENABLE_DEFAULT = True

MIN_IN_SYNC_REPLICAS_CONFIG = server_synonym("min.insync.replicas")
MIN_IN_SYNC_REPLICAS_DEFAULT = 1

CREATE_TOPIC_POLICY_CLASS_NAME_CONFIG = "create.topic.policy.class.name"
ALTER_CONFIG_POLICY_CLASS_NAME_CONFIG = "alter.config.policy.class.name"

LOG_MESSAGE_DOWNCONVERSION_ENABLE_CONFIG = server_synonym("message.downconversion.enable")
LOG_MESSAGE_DOWNCONVERSION_ENABLE_DEFAULT = True

LOG_INITIAL_TASK_DELAY_MS_CONFIG = LOG_PREFIX + "initial.task.delay.ms"
LOG_INITIAL_TASK_DELAY_MS_DEFAULT = 30 * 1000

LOG_DIR_FAILURE_TIMEOUT_MS_CONFIG = LOG_PREFIX + "dir.failure.timeout.ms"
LOG_DIR_FAILURE_TIMEOUT_MS_DEFAULT = 30000
