"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/LogStartOffsetIncrementReason.java
(Kafka 3.9): why a log's start offset moved, for the log line that says so."""

from __future__ import annotations

import enum


class LogStartOffsetIncrementReason(enum.Enum):
    LeaderOffsetIncremented = "leader offset increment"
    SegmentDeletion = "segment deletion"
    ClientRecordDeletion = "client delete records request"
    SnapshotGenerated = "snapshot generated"

    def __str__(self) -> str:
        return self.value
