"""Port of clients/src/main/java/org/apache/kafka/common/requests/ProduceResponse.java (Kafka 3.9): the Produce
response; so far its RecordError, the per-record error (batch index and message) a partition's response carries
from Produce v8 on (KIP-467). The response itself is still written from kio's schema by the request path."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class RecordError:
    """ProduceResponse.RecordError: which record of the batch was refused, and why."""

    batch_index: int
    message: str | None = None

    def __str__(self) -> str:
        message = "null" if self.message is None else f"'{self.message}'"
        return f"RecordError(batchIndex={self.batch_index}, message={message})"

    __repr__ = __str__


@dataclass(eq=False)
class PartitionResponse:
    """ProduceResponse.PartitionResponse: one partition's answer to a produce. Mutable as Kafka's is: DelayedProduce
    sets the error as acknowledgements arrive. (The current leader, KIP-951, is added by the request path.)"""

    error: Any
    base_offset: int = -1
    last_offset: int = -1
    log_append_time: int = -1
    log_start_offset: int = -1
    record_errors: list[RecordError] = field(default_factory=list)
    error_message: str | None = None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PartitionResponse):
            return NotImplemented
        return (self.error, self.base_offset, self.last_offset, self.log_append_time, self.log_start_offset,
                self.record_errors, self.error_message) == (
            other.error, other.base_offset, other.last_offset, other.log_append_time, other.log_start_offset,
            other.record_errors, other.error_message)

    __hash__ = None  # type: ignore[assignment]
