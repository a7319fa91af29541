"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/CompletedTxn.java (Kafka 3.9): a transaction
whose COMMIT or ABORT marker has just been appended, with the offsets that bound it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CompletedTxn:
    producer_id: int
    first_offset: int  # inclusive
    last_offset: int  # inclusive: the offset of the marker itself
    is_aborted: bool
