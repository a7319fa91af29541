"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/BatchMetadata.java (Kafka 3.9): the sequence
and offset range of one batch a producer wrote, kept to recognise a retried (duplicate) batch."""

from __future__ import annotations

from dataclasses import dataclass

from kafka_edu.v3_9.clients.common.record.default_record_batch import decrement_sequence


@dataclass(frozen=True)
class BatchMetadata:
    last_seq: int
    last_offset: int
    offset_delta: int
    timestamp: int

    def first_seq(self) -> int:
        # sequences wrap at Integer.MAX_VALUE, so the first one may be numerically larger than the last
        return decrement_sequence(self.last_seq, self.offset_delta)

    def first_offset(self) -> int:
        return self.last_offset - self.offset_delta

    def __str__(self) -> str:
        return (f"BatchMetadata(firstSeq={self.first_seq()}, lastSeq={self.last_seq}, "
                f"firstOffset={self.first_offset()}, lastOffset={self.last_offset}, timestamp={self.timestamp})")

    __repr__ = __str__
