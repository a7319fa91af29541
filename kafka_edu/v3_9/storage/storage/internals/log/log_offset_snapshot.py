"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/LogOffsetSnapshot.java (Kafka 3.9): a log's
start offset, end offset, high watermark and last stable offset, read together."""

from __future__ import annotations

from dataclasses import dataclass

from kafka_edu.v3_9.storage.storage.internals.log.log_offset_metadata import LogOffsetMetadata


@dataclass(frozen=True)
class LogOffsetSnapshot:
    log_start_offset: int
    log_end_offset: LogOffsetMetadata
    high_watermark: LogOffsetMetadata
    last_stable_offset: LogOffsetMetadata
