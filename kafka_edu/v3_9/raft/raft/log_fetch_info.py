"""Port of raft/src/main/java/org/apache/kafka/raft/LogFetchInfo.java and LogAppendInfo.java (Kafka 3.9)."""

from __future__ import annotations

from dataclasses import dataclass

from kafka_edu.v3_9.raft.raft.log_offset_metadata import LogOffsetMetadata


@dataclass(frozen=True)
class LogFetchInfo:
    """Record batches read from the log (bytes), and where the read started."""

    records: bytes
    start_offset_metadata: LogOffsetMetadata


@dataclass(frozen=True)
class LogAppendInfo:
    """The offsets an append wrote."""

    first_offset: int
    last_offset: int
