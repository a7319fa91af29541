"""Port of clients/src/main/java/org/apache/kafka/common/record/ByteBufferLogInputStream.java (Kafka 3.9): slices
the batches out of an in-memory buffer, checking each one's size and magic first."""

from __future__ import annotations

import struct

from kafka_edu.v1_0_2.clients.common.errors import CorruptRecordException
from kafka_edu.v3_9.clients.common.record.legacy_record import RECORD_OVERHEAD_V0
from kafka_edu.v3_9.clients.common.record.record_batch import CURRENT_MAGIC_VALUE, MAGIC_VALUE_V1, MutableRecordBatch
from kafka_edu.v3_9.clients.common.record.records import (
    HEADER_SIZE_UP_TO_MAGIC,
    LOG_OVERHEAD,
    MAGIC_OFFSET,
    SIZE_OFFSET,
)

_INT32 = struct.Struct(">i")


class ByteBufferLogInputStream:
    """`buffer` from `position` to its end; each batch returned is a view of it, so setters write through."""

    def __init__(self, buffer: memoryview, max_message_size: int, position: int = 0) -> None:
        self.buffer = buffer
        self.max_message_size = max_message_size
        self.position = position

    def next_batch(self) -> MutableRecordBatch | None:
        remaining = len(self.buffer) - self.position
        batch_size = self.next_batch_size()
        if batch_size is None or remaining < batch_size:
            return None
        magic = struct.unpack_from(">b", self.buffer, self.position + MAGIC_OFFSET)[0]
        batch_slice = self.buffer[self.position:self.position + batch_size]
        self.position += batch_size
        if magic > MAGIC_VALUE_V1:
            from kafka_edu.v3_9.clients.common.record.default_record_batch import DefaultRecordBatch
            return DefaultRecordBatch(batch_slice)
        from kafka_edu.v3_9.clients.common.record.abstract_legacy_record_batch import ByteBufferLegacyRecordBatch
        return ByteBufferLegacyRecordBatch(batch_slice)

    def next_batch_size(self) -> int | None:
        """The size of the next batch with its log overhead; None if even the header is incomplete."""
        remaining = len(self.buffer) - self.position
        if remaining < LOG_OVERHEAD:
            return None
        record_size = _INT32.unpack_from(self.buffer, self.position + SIZE_OFFSET)[0]
        if record_size < RECORD_OVERHEAD_V0:
            raise CorruptRecordException(f"Record size {record_size} is less than the minimum record overhead "
                                         f"({RECORD_OVERHEAD_V0})")
        if record_size > self.max_message_size:
            raise CorruptRecordException(f"Record size {record_size} exceeds the largest allowable message size "
                                         f"({self.max_message_size}).")
        if remaining < HEADER_SIZE_UP_TO_MAGIC:
            return None
        magic = struct.unpack_from(">b", self.buffer, self.position + MAGIC_OFFSET)[0]
        if magic < 0 or magic > CURRENT_MAGIC_VALUE:
            raise CorruptRecordException(f"Invalid magic found in record: {magic}")
        return record_size + LOG_OVERHEAD
