"""Port of metadata/src/main/java/org/apache/kafka/image/MetadataProvenance.java (Kafka 3.9)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.snapshot.snapshots import Snapshots


@dataclass(frozen=True)
class MetadataProvenance:
    """Where an image comes from: the last log offset it contains, that record's epoch and append time."""

    EMPTY: ClassVar[MetadataProvenance]

    last_contained_offset: int
    last_contained_epoch: int
    last_contained_log_time_ms: int

    def snapshot_id(self) -> OffsetAndEpoch:
        """The id a snapshot of this image gets: it holds everything below the next offset."""
        return OffsetAndEpoch(self.last_contained_offset + 1, self.last_contained_epoch)

    def snapshot_name(self) -> str:
        return f"snapshot {Snapshots.filename_from_snapshot_id(self.snapshot_id())}"

    def __str__(self) -> str:
        return (f"MetadataProvenance(lastContainedOffset={self.last_contained_offset}, lastContainedEpoch="
                f"{self.last_contained_epoch}, lastContainedLogTimeMs={self.last_contained_log_time_ms})")


MetadataProvenance.EMPTY = MetadataProvenance(-1, -1, -1)
