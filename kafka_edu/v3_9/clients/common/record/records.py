"""Port of clients/src/main/java/org/apache/kafka/common/record/Records.java and LogInputStream.java (Kafka 3.9):
the log-level framing constants, the interface of a sequence of batches (in memory or in a file), and the source
a batch iterator pulls from."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Protocol, TypeVar, runtime_checkable

from kafka_edu.v3_9.clients.common.record.record import Record
from kafka_edu.v3_9.clients.common.record.record_batch import RecordBatch

OFFSET_OFFSET = 0
OFFSET_LENGTH = 8
SIZE_OFFSET = OFFSET_OFFSET + OFFSET_LENGTH
SIZE_LENGTH = 4
LOG_OVERHEAD = SIZE_OFFSET + SIZE_LENGTH
# Every format has its magic byte here; what lies between the size and the magic differs.
MAGIC_OFFSET = LOG_OVERHEAD + 4
MAGIC_LENGTH = 1
HEADER_SIZE_UP_TO_MAGIC = MAGIC_OFFSET + MAGIC_LENGTH

T = TypeVar("T", bound=RecordBatch, covariant=True)


@runtime_checkable
class Records(Protocol):
    def size_in_bytes(self) -> int: ...

    def batches(self) -> Iterable[RecordBatch]: ...

    def batch_iterator(self) -> Iterator[RecordBatch]: ...

    def last_batch(self) -> RecordBatch | None: ...

    def has_matching_magic(self, magic: int) -> bool: ...

    def down_convert(self, to_magic: int, first_offset: int, time: Any) -> Any: ...

    def records(self) -> Iterable[Record]: ...


class LogInputStream(Protocol[T]):
    """Yields the batches of a log one at a time; None once no complete batch is left."""

    def next_batch(self) -> T | None: ...
