"""Port of raft/src/main/java/org/apache/kafka/raft/Batch.java (Kafka 3.9)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Batch(Generic[T]):
    """One record batch of the log as a listener sees it: data records, or the control records of a control batch."""

    base_offset: int
    epoch: int
    append_timestamp: int
    size_in_bytes: int
    records: list[T] = field(default_factory=list)
    control_records: list[Any] = field(default_factory=list)  # ControlRecord: (type, message) of a control batch
    last_offset: int = -1

    @staticmethod
    def data(base_offset: int, epoch: int, append_timestamp: int, size_in_bytes: int, records: list[T]) -> Batch[T]:
        if not records:
            raise ValueError(f"Batch must contain at least one record; baseOffset = {base_offset}; epoch = {epoch}")
        return Batch(base_offset, epoch, append_timestamp, size_in_bytes, list(records), [],
                     base_offset + len(records) - 1)

    @staticmethod
    def control(base_offset: int, epoch: int, append_timestamp: int, size_in_bytes: int,
                control_records: list[Any]) -> Batch[T]:
        if not control_records:
            raise ValueError(f"Control batch must contain at least one record; baseOffset = {base_offset}; "
                             f"epoch = {epoch}")
        return Batch(base_offset, epoch, append_timestamp, size_in_bytes, [], list(control_records),
                     base_offset + len(control_records) - 1)

    def __iter__(self):  # a Batch iterates its data records, as the Java class does
        return iter(self.records)
