"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/EpochEntry.java (Kafka 3.9): a leader epoch
and the offset of the first record written in it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EpochEntry:
    epoch: int
    start_offset: int
