"""Port of raft/src/main/java/org/apache/kafka/raft/ReplicatedLog.java (Kafka 3.9): what the raft client needs of a
log, with the two methods whose logic Kafka writes in the interface itself."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from kafka_edu.v3_9.raft.raft.isolation import Isolation
from kafka_edu.v3_9.raft.raft.log_fetch_info import LogAppendInfo, LogFetchInfo
from kafka_edu.v3_9.raft.raft.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.raft.valid_offset_and_epoch import ValidOffsetAndEpoch


class ReplicatedLog(ABC):
    @abstractmethod
    def append_as_leader(self, records: bytes, epoch: int) -> LogAppendInfo: ...

    @abstractmethod
    def append_as_follower(self, records: bytes) -> LogAppendInfo: ...

    @abstractmethod
    def read(self, start_offset: int, isolation: Isolation) -> LogFetchInfo: ...

    @abstractmethod
    def last_fetched_epoch(self) -> int:
        """The epoch of the last record in the log (or of the latest snapshot when the log is empty)."""

    @abstractmethod
    def end_offset_for_epoch(self, epoch: int) -> OffsetAndEpoch:
        """Where `epoch` ends in this log: (end offset, the largest epoch <= `epoch` the log has)."""

    @abstractmethod
    def end_offset(self) -> LogOffsetMetadata: ...

    @abstractmethod
    def start_offset(self) -> int: ...

    @abstractmethod
    def initialize_leader_epoch(self, epoch: int) -> None: ...

    @abstractmethod
    def update_high_watermark(self, offset_metadata: LogOffsetMetadata) -> None: ...

    @abstractmethod
    def high_watermark(self) -> LogOffsetMetadata: ...

    @abstractmethod
    def flush(self, force_flush_active_segment: bool) -> None: ...

    @abstractmethod
    def last_flushed_offset(self) -> int: ...

    @abstractmethod
    def truncate_to(self, offset: int) -> None: ...

    @abstractmethod
    def truncate_to_latest_snapshot(self) -> bool: ...

    @abstractmethod
    def topic_partition(self) -> Any: ...

    @abstractmethod
    def topic_id(self) -> Any: ...

    @abstractmethod
    def latest_snapshot_id(self) -> OffsetAndEpoch | None: ...

    @abstractmethod
    def earliest_snapshot_id(self) -> OffsetAndEpoch | None: ...

    @abstractmethod
    def create_new_snapshot(self, snapshot_id: OffsetAndEpoch) -> Any:
        """A RawSnapshotWriter for a snapshot of the committed log below `snapshot_id`, or None."""

    @abstractmethod
    def create_new_snapshot_unchecked(self, snapshot_id: OffsetAndEpoch) -> Any: ...

    @abstractmethod
    def read_snapshot(self, snapshot_id: OffsetAndEpoch) -> Any: ...

    @abstractmethod
    def latest_snapshot(self) -> Any: ...

    @abstractmethod
    def delete_before_snapshot(self, snapshot_id: OffsetAndEpoch) -> bool:
        """Let the log start at `snapshot_id`: what a snapshot covers need not stay in the log."""

    @abstractmethod
    def maybe_clean(self) -> bool: ...

    def validate_offset_and_epoch(self, offset: int, epoch: int) -> ValidOffsetAndEpoch:
        """Judge a follower's (fetch offset, last fetched epoch) against this log.

        A follower behind the log start is sent the latest snapshot; one whose epoch ends earlier here (or never
        happened here) is told where this log's copy of that epoch ends: it diverged and must truncate there.
        """
        if self.start_offset() == 0 and offset == 0:
            return ValidOffsetAndEpoch.valid(OffsetAndEpoch(0, 0))
        earliest_snapshot_id = self.earliest_snapshot_id()
        if earliest_snapshot_id is not None and (
                offset < self.start_offset()
                or (offset == self.start_offset() and epoch != earliest_snapshot_id.epoch)
                or epoch < earliest_snapshot_id.epoch):
            latest_snapshot_id = self.latest_snapshot_id()
            if latest_snapshot_id is None:
                raise RuntimeError(f"Log start offset ({self.start_offset()}) is greater than zero but latest "
                                   "snapshot was not found")
            return ValidOffsetAndEpoch.snapshot(latest_snapshot_id)
        end_offset_and_epoch = self.end_offset_for_epoch(epoch)
        if end_offset_and_epoch.epoch != epoch or end_offset_and_epoch.offset < offset:
            return ValidOffsetAndEpoch.diverging(end_offset_and_epoch)
        return ValidOffsetAndEpoch.valid(OffsetAndEpoch(offset, epoch))

    def truncate_to_end_offset(self, end_offset: OffsetAndEpoch) -> int:
        """Truncate to where the leader says our logs agree (a diverging epoch); returns the new end offset."""
        leader_epoch = end_offset.epoch
        if leader_epoch == 0:
            truncation_offset = min(end_offset.offset, self.end_offset().offset)
        else:
            local_end_offset = self.end_offset_for_epoch(leader_epoch)
            if local_end_offset.epoch == leader_epoch:
                truncation_offset = min(local_end_offset.offset, end_offset.offset)
            else:
                truncation_offset = local_end_offset.offset
        self.truncate_to(truncation_offset)
        return truncation_offset

    def close(self) -> None:  # noqa: B027 (a log holding no resources closes as a no-op)
        pass
