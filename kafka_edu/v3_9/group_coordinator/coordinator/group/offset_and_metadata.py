"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/OffsetAndMetadata.java (Kafka 3.9).

Java's OptionalInt/OptionalLong fields are `int | None`. from_record takes any object with the fields of Kafka's
OffsetCommitValue record (generated/offset_commit_value.py); from_request takes an OffsetCommit or
TxnOffsetCommit request partition (kio's, or anything with its fields).
"""

from __future__ import annotations

from typing import Any

NO_METADATA = ""
# OffsetCommitRequest.DEFAULT_TIMESTAMP: the partition carries no commit time of its own
_DEFAULT_TIMESTAMP = -1


def _of_sentinel(value: int) -> int | None:
    """Kafka's group Utils.ofSentinel: -1 means absent."""
    return value if value != -1 else None


class OffsetAndMetadata:
    """One committed offset of a partition as the coordinator keeps it, with the offset of the record that stored
    it in __consumer_offsets (-1 until it is written)."""

    def __init__(self, *args: Any) -> None:
        """Kafka's two constructors: (committedOffset, leaderEpoch, metadata, commitTimestampMs, expireTimestampMs)
        and the same with the record offset first."""
        if len(args) == 5:
            args = (-1, *args)
        record_offset, committed_offset, leader_epoch, metadata, commit_timestamp_ms, expire_timestamp_ms = args
        if metadata is None:
            raise TypeError("metadata")  # Objects.requireNonNull
        self.record_offset: int = record_offset
        self.committed_offset: int = committed_offset
        self.leader_epoch: int | None = leader_epoch
        self.metadata: str = metadata
        self.commit_timestamp_ms: int = commit_timestamp_ms
        self.expire_timestamp_ms: int | None = expire_timestamp_ms

    def __repr__(self) -> str:
        return (f"OffsetAndMetadata(offset={self.committed_offset}, leaderEpoch={self.leader_epoch}, "
                f"metadata={self.metadata}, commitTimestampMs={self.commit_timestamp_ms}, "
                f"expireTimestampMs={self.expire_timestamp_ms}, recordOffset={self.record_offset})")

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other is None or type(other) is not type(self):
            return False
        return (self.committed_offset == other.committed_offset
                and self.commit_timestamp_ms == other.commit_timestamp_ms
                and self.record_offset == other.record_offset
                and self.leader_epoch == other.leader_epoch
                and self.metadata == other.metadata
                and self.expire_timestamp_ms == other.expire_timestamp_ms)

    def __hash__(self) -> int:
        return hash((self.committed_offset, self.leader_epoch, self.metadata, self.commit_timestamp_ms,
                     self.expire_timestamp_ms, self.record_offset))

    @staticmethod
    def from_record(record_offset: int, record: Any) -> OffsetAndMetadata:
        """From an OffsetCommitValue record read at record_offset."""
        return OffsetAndMetadata(
            record_offset,
            record.offset,
            _of_sentinel(record.leader_epoch),
            record.metadata,
            record.commit_timestamp,
            _of_sentinel(record.expire_timestamp),
        )

    @staticmethod
    def from_request(partition: Any, current_time_ms: int, *expire_timestamp_ms: int | None) -> OffsetAndMetadata:
        """Kafka's two overloads: an OffsetCommit partition with its expiry time (None: none), or a TxnOffsetCommit
        partition (no third argument), which always commits at the current time with no expiry."""
        metadata = NO_METADATA if partition.committed_metadata is None else partition.committed_metadata
        # versions before the leader epoch existed read as Kafka's default, -1
        leader_epoch = _of_sentinel(getattr(partition, "committed_leader_epoch", -1))
        if not expire_timestamp_ms:
            return OffsetAndMetadata(partition.committed_offset, leader_epoch, metadata, current_time_ms, None)
        # only OffsetCommit v1 carries a commit timestamp
        commit_timestamp = getattr(partition, "commit_timestamp", _DEFAULT_TIMESTAMP)
        return OffsetAndMetadata(
            partition.committed_offset,
            leader_epoch,
            metadata,
            current_time_ms if commit_timestamp == _DEFAULT_TIMESTAMP else commit_timestamp,
            expire_timestamp_ms[0],
        )
