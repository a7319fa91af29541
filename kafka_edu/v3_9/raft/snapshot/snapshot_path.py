"""Port of raft/src/main/java/org/apache/kafka/snapshot/SnapshotPath.java (Kafka 3.9)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch


@dataclass(frozen=True)
class SnapshotPath:
    """A file in a partition directory that Snapshots.parse recognised, and which state its name says it is in."""

    path: Path
    snapshot_id: OffsetAndEpoch
    partial: bool  # `.checkpoint.part`: still being written (or left behind by a crash); never a snapshot
    deleted: bool  # `.checkpoint.deleted`: marked for deletion, removed asynchronously

    def __str__(self) -> str:
        return (f"SnapshotPath(path={self.path}, snapshotId={self.snapshot_id}, partial={self.partial}, "
                f"deleted={self.deleted})")
