"""Port of core/src/main/scala/kafka/coordinator/group/OffsetConfig.scala (read: 1.x OffsetConfig object)."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MAX_METADATA_SIZE = 4096
DEFAULT_LOAD_BUFFER_SIZE = 5 * 1024 * 1024
DEFAULT_OFFSET_RETENTION_MS = 24 * 60 * 60 * 1000
DEFAULT_OFFSETS_RETENTION_CHECK_INTERVAL_MS = 600000
DEFAULT_OFFSETS_TOPIC_NUM_PARTITIONS = 50
DEFAULT_OFFSETS_TOPIC_SEGMENT_BYTES = 100 * 1024 * 1024
DEFAULT_OFFSETS_TOPIC_REPLICATION_FACTOR = 3
DEFAULT_OFFSETS_TOPIC_COMPRESSION_CODEC = 0  # NoCompressionCodec
DEFAULT_OFFSET_COMMIT_TIMEOUT_MS = 5000
DEFAULT_OFFSET_COMMIT_REQUIRED_ACKS = -1


@dataclass(frozen=True)
class OffsetConfig:
    """How committed offsets are stored in __consumer_offsets and for how long they are kept.

    max_metadata_size: the longest metadata string an offset commit may carry.
    load_buffer_size: bytes read from the offsets log per step when a partition is loaded.
    offsets_retention_ms: how long a committed offset lives when the commit names no retention time.
    offsets_topic_compression_codec: the codec id used for batches written to __consumer_offsets.
    offset_commit_required_acks / offset_commit_timeout_ms: the produce acks and timeout of those writes.
    """

    max_metadata_size: int = DEFAULT_MAX_METADATA_SIZE
    load_buffer_size: int = DEFAULT_LOAD_BUFFER_SIZE
    offsets_retention_ms: int = DEFAULT_OFFSET_RETENTION_MS
    offsets_retention_check_interval_ms: int = DEFAULT_OFFSETS_RETENTION_CHECK_INTERVAL_MS
    offsets_topic_num_partitions: int = DEFAULT_OFFSETS_TOPIC_NUM_PARTITIONS
    offsets_topic_segment_bytes: int = DEFAULT_OFFSETS_TOPIC_SEGMENT_BYTES
    offsets_topic_replication_factor: int = DEFAULT_OFFSETS_TOPIC_REPLICATION_FACTOR
    offsets_topic_compression_codec: int = DEFAULT_OFFSETS_TOPIC_COMPRESSION_CODEC
    offset_commit_timeout_ms: int = DEFAULT_OFFSET_COMMIT_TIMEOUT_MS
    offset_commit_required_acks: int = DEFAULT_OFFSET_COMMIT_REQUIRED_ACKS
