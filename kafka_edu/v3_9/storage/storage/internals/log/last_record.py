"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/LastRecord.java (Kafka 3.9): a producer's last
written record: its data offset (none when only a transaction marker is left) and its epoch."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LastRecord:
    last_data_offset: int | None
    producer_epoch: int

    def __str__(self) -> str:
        return f"LastRecord(lastDataOffset={self.last_data_offset}, producerEpoch={self.producer_epoch})"

    __repr__ = __str__
