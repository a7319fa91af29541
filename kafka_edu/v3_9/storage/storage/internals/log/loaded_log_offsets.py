"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/LoadedLogOffsets.java (Kafka 3.9): the offsets
LogLoader.load hands back: the log start offset, the recovery point and where the next message goes."""

from __future__ import annotations

from dataclasses import dataclass

from kafka_edu.v3_9.storage.storage.internals.log.log_offset_metadata import LogOffsetMetadata


@dataclass(frozen=True)
class LoadedLogOffsets:
    log_start_offset: int
    recovery_point: int
    next_offset_metadata: LogOffsetMetadata

    def __post_init__(self) -> None:
        if self.next_offset_metadata is None:
            raise TypeError("nextOffsetMetadata should not be null")

    def __str__(self) -> str:
        return (f"LoadedLogOffsets(logStartOffset={self.log_start_offset}, recoveryPoint={self.recovery_point}, "
                f"nextOffsetMetadata={self.next_offset_metadata})")
