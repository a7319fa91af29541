"""Port of clients/src/main/java/org/apache/kafka/common/record/LazyDownConversionRecords.java (Kafka 3.9): records
to send an old consumer, converted chunk by chunk as the fetch response is written rather than all at once.

LazyDownConversionRecordsSend (the network send that drives it) is not ported with it: the fetch path's Send
belongs to the network layer.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kafka_edu.v3_9.clients.common.record.converted_records import ConvertedRecords
from kafka_edu.v3_9.clients.common.record.record_batch import RecordBatch
from kafka_edu.v3_9.clients.common.record.records import LOG_OVERHEAD
from kafka_edu.v3_9.clients.common.record.records_util import down_convert

# LazyDownConversionRecordsSend.MIN_OVERFLOW_MESSAGE_LENGTH: what an unconvertible first batch is announced as.
MIN_OVERFLOW_MESSAGE_LENGTH = LOG_OVERHEAD


class LazyDownConversionRecords:
    def __init__(self, topic_partition: Any, records: Any, to_magic: int, first_offset: int, time: Any) -> None:
        if topic_partition is None or records is None or time is None:
            raise TypeError("topic_partition, records and time must not be null")
        self._topic_partition = topic_partition
        self.records = records
        self.to_magic = to_magic
        self.first_offset = first_offset
        self.time = time
        # Convert the first batch now, so the size announced in the response is at least what will be sent.
        self._first_converted_batch: ConvertedRecords[Any] | None = None
        it = self.iterator(0)
        first = next(it, None)
        if first is not None:
            self._first_converted_batch = first
            self._size_in_bytes = max(records.size_in_bytes(), first.records().size_in_bytes())
        else:
            self._first_converted_batch = None
            has_batches = next(iter(records.batches()), None) is not None
            self._size_in_bytes = MIN_OVERFLOW_MESSAGE_LENGTH if has_batches else 0

    def size_in_bytes(self) -> int:
        return self._size_in_bytes

    def topic_partition(self) -> Any:
        return self._topic_partition

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyDownConversionRecords):
            return (self.to_magic == other.to_magic and self.first_offset == other.first_offset
                    and self._topic_partition == other._topic_partition and self.records == other.records)
        return False

    def __hash__(self) -> int:
        return hash((self.to_magic, self.first_offset, self._topic_partition, id(self.records)))

    def __repr__(self) -> str:
        return (f"LazyDownConversionRecords(size={self._size_in_bytes}, underlying={self.records}, "
                f"toMagic={self.to_magic}, firstOffset={self.first_offset})")

    def iterator(self, maximum_read_size: int) -> Iterator[ConvertedRecords[Any]]:
        """Converted chunks of about `maximum_read_size` bytes of input each (at least one batch per chunk)."""
        first_batch = self._first_converted_batch
        self._first_converted_batch = None
        return self._iterator(maximum_read_size, first_batch)

    def _iterator(self, maximum_read_size: int,
                  first_converted_batch: ConvertedRecords[Any] | None) -> Iterator[ConvertedRecords[Any]]:
        batch_iterator = self.records.batch_iterator()
        if first_converted_batch is not None:
            next(batch_iterator)
            yield first_converted_batch
        while batch_iterator.has_next():
            batches: list[RecordBatch] = []
            is_first_batch = True
            size_so_far = 0
            while batch_iterator.has_next() and (
                    is_first_batch or batch_iterator.peek().size_in_bytes() + size_so_far <= maximum_read_size):
                current_batch = next(batch_iterator)
                batches.append(current_batch)
                size_so_far += current_batch.size_in_bytes()
                is_first_batch = False
            converted_records = down_convert(batches, self.to_magic, self.first_offset, self.time)
            if converted_records.records().size_in_bytes() > 0:
                yield converted_records
