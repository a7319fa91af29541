"""Port of clients/src/main/java/org/apache/kafka/common/record/RecordBatch.java, MutableRecordBatch.java and
AbstractRecordBatch.java (Kafka 3.9): a batch of records as the log stores it, whatever its magic; the mutable
batch the broker assigns offsets and timestamps in place; and the methods all batches share."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol, runtime_checkable

from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.record.record import Record
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType

MAGIC_VALUE_V0 = 0
MAGIC_VALUE_V1 = 1
MAGIC_VALUE_V2 = 2
CURRENT_MAGIC_VALUE = MAGIC_VALUE_V2
NO_TIMESTAMP = -1
NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
NO_SEQUENCE = -1
NO_PARTITION_LEADER_EPOCH = -1


class CloseableIterator(Iterator[Record]):
    """org.apache.kafka.common.utils.CloseableIterator: an iterator holding a (decompression) stream."""

    def close(self) -> None:
        pass

    def __enter__(self) -> CloseableIterator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @staticmethod
    def wrap(inner: Iterator[Record]) -> CloseableIterator:
        return _WrappedIterator(inner)


class _WrappedIterator(CloseableIterator):
    def __init__(self, inner: Iterator[Record]) -> None:
        self._inner = inner

    def __next__(self) -> Record:
        return next(self._inner)


@runtime_checkable
class RecordBatch(Protocol):
    """RecordBatch's methods (Kafka's Iterable<Record> is __iter__)."""

    def is_valid(self) -> bool: ...

    def ensure_valid(self) -> None: ...

    def checksum(self) -> int: ...

    def max_timestamp(self) -> int: ...

    def timestamp_type(self) -> TimestampType: ...

    def base_offset(self) -> int: ...

    def last_offset(self) -> int: ...

    def next_offset(self) -> int: ...

    def magic(self) -> int: ...

    def producer_id(self) -> int: ...

    def producer_epoch(self) -> int: ...

    def has_producer_id(self) -> bool: ...

    def base_sequence(self) -> int: ...

    def last_sequence(self) -> int: ...

    def compression_type(self) -> CompressionType: ...

    def size_in_bytes(self) -> int: ...

    def count_or_null(self) -> int | None: ...

    def is_compressed(self) -> bool: ...

    def write_to(self, buffer: bytearray) -> None: ...

    def is_transactional(self) -> bool: ...

    def delete_horizon_ms(self) -> int | None: ...

    def partition_leader_epoch(self) -> int: ...

    def streaming_iterator(self, decompression_buffer_supplier: Any = None) -> CloseableIterator: ...

    def is_control_batch(self) -> bool: ...

    def offset_of_max_timestamp(self) -> int | None: ...

    def __iter__(self) -> Iterator[Record]: ...


@runtime_checkable
class MutableRecordBatch(RecordBatch, Protocol):
    """A batch whose header the broker may rewrite in place."""

    def set_last_offset(self, offset: int) -> None: ...

    def set_max_timestamp(self, timestamp_type: TimestampType, max_timestamp: int) -> None: ...

    def set_partition_leader_epoch(self, epoch: int) -> None: ...

    def skip_key_value_iterator(self, buffer_supplier: Any = None) -> CloseableIterator: ...


class AbstractRecordBatch:
    """The part of RecordBatch every format shares, plus RecordBatch's default offsetOfMaxTimestamp()."""

    def has_producer_id(self) -> bool:
        return NO_PRODUCER_ID < self.producer_id()  # type: ignore[attr-defined]

    def next_offset(self) -> int:
        return self.last_offset() + 1  # type: ignore[attr-defined]

    def is_compressed(self) -> bool:
        return self.compression_type() is not CompressionType.NONE  # type: ignore[attr-defined]

    def offset_of_max_timestamp(self) -> int | None:
        """The offset of the first record holding the batch's max timestamp; None for magic v0."""
        if self.magic() == MAGIC_VALUE_V0:  # type: ignore[attr-defined]
            return None
        max_timestamp = self.max_timestamp()  # type: ignore[attr-defined]
        with self.streaming_iterator() as records:  # type: ignore[attr-defined]
            for record in records:
                if max_timestamp == record.timestamp():
                    return record.offset()
        return None
