"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/TxnMetadata.java (Kafka 3.9): an open or
just-finished transaction in a partition: its producer, where it starts, and (once its marker is written) where
it ends."""

from __future__ import annotations

from kafka_edu.v3_9.storage.storage.internals.log.log_offset_metadata import LogOffsetMetadata


class TxnMetadata:
    """Kafka's three constructors in one: first_offset is a LogOffsetMetadata or a bare offset."""

    __slots__ = ("producer_id", "first_offset", "last_offset")

    def __init__(self, producer_id: int, first_offset: LogOffsetMetadata | int,
                 last_offset: int | None = None) -> None:
        if first_offset is None:
            raise TypeError("firstOffset must be non null")
        self.producer_id = producer_id
        self.first_offset: LogOffsetMetadata = (first_offset if isinstance(first_offset, LogOffsetMetadata)
                                                else LogOffsetMetadata(first_offset))
        # the offset of the COMMIT/ABORT marker, set when the transaction completes
        self.last_offset: int | None = last_offset

    def __str__(self) -> str:
        return (f"TxnMetadata(producerId={self.producer_id}, firstOffset={self.first_offset}, "
                f"lastOffset={self.last_offset})")

    __repr__ = __str__
