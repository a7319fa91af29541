"""Port of clients/src/main/java/org/apache/kafka/common/requests/ProduceResponse.java (Kafka 3.9): the Produce
response; so far its RecordError, the per-record error (batch index and message) a partition's response carries
from Produce v8 on (KIP-467). The response itself is still written from kio's schema by the request path."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RecordError:
    """ProduceResponse.RecordError: which record of the batch was refused, and why."""

    batch_index: int
    message: str | None = None

    def __str__(self) -> str:
        message = "null" if self.message is None else f"'{self.message}'"
        return f"RecordError(batchIndex={self.batch_index}, message={message})"

    __repr__ = __str__
