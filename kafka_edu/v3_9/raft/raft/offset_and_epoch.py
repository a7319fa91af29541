"""Port of raft/src/main/java/org/apache/kafka/raft/OffsetAndEpoch.java (Kafka 3.9)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OffsetAndEpoch:
    """An end offset and the epoch of the record before it; ordered by epoch first, as Raft compares logs."""

    offset: int
    epoch: int

    def compare_to(self, other: OffsetAndEpoch) -> int:
        if self.epoch != other.epoch:
            return -1 if self.epoch < other.epoch else 1
        if self.offset != other.offset:
            return -1 if self.offset < other.offset else 1
        return 0

    # compare_to's order as tuples: a MockLog finds its earliest and latest snapshot with min/max over them all
    def __lt__(self, other: OffsetAndEpoch) -> bool:
        return (self.epoch, self.offset) < (other.epoch, other.offset)

    def __le__(self, other: OffsetAndEpoch) -> bool:
        return (self.epoch, self.offset) <= (other.epoch, other.offset)

    def __gt__(self, other: OffsetAndEpoch) -> bool:
        return (self.epoch, self.offset) > (other.epoch, other.offset)

    def __ge__(self, other: OffsetAndEpoch) -> bool:
        return (self.epoch, self.offset) >= (other.epoch, other.offset)

    def __str__(self) -> str:
        return f"OffsetAndEpoch(offset={self.offset}, epoch={self.epoch})"
